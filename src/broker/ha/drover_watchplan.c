/*  =========================================================================
    drover_watchplan - when the elector reads etcd: watching, or polling
    because the watch is down (see the header)

    Four states, the transitions in the functions named after their events:
    OFF stays OFF; OPENING -> UP (created) or DOWN (broken); UP -> DOWN;
    DOWN -> OPENING once reopen_at has come. The backoff doubles on each
    break before an UP and falls back to retry_min at UP.
    =========================================================================
*/

#include "drover_watchplan.h"

struct _drover_watchplan_t {
    int state;                  //  DROVER_WATCHPLAN_...
    uint32_t poll;              //  msec between reads while not up
    uint32_t safety;            //  msec between reads while up
    uint32_t retry_min;         //  msec, the first backoff after a break
    uint32_t retry_max;         //  msec, the backoff's cap
    uint32_t backoff;           //  msec, the next break's wait before reopening
    int64_t reopen_at;          //  msec (mono): DOWN until then
    bool broke;                 //  a break was said, and no recovery since
};

//  Create a plan
drover_watchplan_t *
drover_watchplan_new (bool enabled, uint32_t poll, uint32_t safety, uint32_t retry_min,
                      uint32_t retry_max)
{
    drover_watchplan_t *self = (drover_watchplan_t *) zmalloc (sizeof (drover_watchplan_t));
    self->state = enabled? DROVER_WATCHPLAN_DOWN: DROVER_WATCHPLAN_OFF;
    self->poll = poll > 0? poll: 1;
    self->safety = safety > self->poll? safety: self->poll;
    self->retry_min = retry_min > 0? retry_min: 1;
    self->retry_max = retry_max > self->retry_min? retry_max: self->retry_min;
    self->backoff = self->retry_min;
    self->reopen_at = 0;        //  the first open is due at once
    return self;
}

//  Destroy the plan
void
drover_watchplan_destroy (drover_watchplan_t **self_p)
{
    assert (self_p);
    if (*self_p) {
        free (*self_p);
        *self_p = NULL;
    }
}

//  The state
int
drover_watchplan_state (drover_watchplan_t *self)
{
    assert (self);
    return self->state;
}

//  A watch was asked for
void
drover_watchplan_opening (drover_watchplan_t *self, int64_t now)
{
    assert (self);
    (void) now;
    if (self->state != DROVER_WATCHPLAN_OFF)
        self->state = DROVER_WATCHPLAN_OPENING;
}

//  etcd created the watch: true if that ends a break
bool
drover_watchplan_up (drover_watchplan_t *self, int64_t now)
{
    assert (self);
    (void) now;
    if (self->state == DROVER_WATCHPLAN_OFF)
        return false;
    self->state = DROVER_WATCHPLAN_UP;
    self->backoff = self->retry_min;
    bool recovery = self->broke;
    self->broke = false;
    return recovery;
}

//  The watch broke: true if that is news
bool
drover_watchplan_broken (drover_watchplan_t *self, int64_t now)
{
    assert (self);
    if (self->state == DROVER_WATCHPLAN_OFF || self->state == DROVER_WATCHPLAN_DOWN)
        return false;           //  nothing was watching
    bool was_up = self->state == DROVER_WATCHPLAN_UP;
    self->state = DROVER_WATCHPLAN_DOWN;
    self->reopen_at = now + self->backoff;
    if (!was_up)                //  it never came up: wait longer next time
        self->backoff = self->backoff * 2 < self->retry_max? self->backoff * 2: self->retry_max;
    bool news = !self->broke;
    self->broke = true;
    return news;
}

//  True if a watch should be opened now
bool
drover_watchplan_open_due (drover_watchplan_t *self, int64_t now)
{
    assert (self);
    return self->state == DROVER_WATCHPLAN_DOWN && now >= self->reopen_at;
}

//  When the next open is due, -1 if none
int64_t
drover_watchplan_open_at (drover_watchplan_t *self)
{
    assert (self);
    return self->state == DROVER_WATCHPLAN_DOWN? self->reopen_at: -1;
}

//  msec between reads now
uint32_t
drover_watchplan_interval (drover_watchplan_t *self)
{
    assert (self);
    return self->state == DROVER_WATCHPLAN_UP? self->safety: self->poll;
}
