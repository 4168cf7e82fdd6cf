/*  =========================================================================
    drover_refusals - which refusals the broker writes to its log (see the
    header)

    A table of subjects, each with when it was last logged and how many of
    its refusals were held back since. When the table is full, subjects
    not logged within EVERY are forgotten; if none is that old, a new
    subject is logged (within the burst limit) but not remembered.
    =========================================================================
*/

#include "drover_refusals.h"

//  One subject
typedef struct {
    int64_t logged_at;          //  msec (mono) of its last line
    uint64_t held;              //  its refusals held back since
} s_subject_t;

//  Destructor of a subject in the table
static void
s_subject_destroy (void **item)
{
    free (*item);
    *item = NULL;
}

struct _drover_refusals_t {
    zhashx_t *subjects;         //  subject text -> s_subject_t, owned
    int64_t second;             //  msec (mono) the current second of the burst limit began
    uint32_t lines;             //  lines logged in it
    uint64_t held_burst;        //  refusals the burst limit held back, not yet told
    uint64_t count;             //  refusals noted, ever
};


//  Create an empty record
drover_refusals_t *
drover_refusals_new (void)
{
    drover_refusals_t *self = (drover_refusals_t *) zmalloc (sizeof (drover_refusals_t));
    self->subjects = zhashx_new ();
    zhashx_set_destructor (self->subjects, s_subject_destroy);
    return self;
}

//  Destroy
void
drover_refusals_destroy (drover_refusals_t **self_p)
{
    assert (self_p);
    drover_refusals_t *self = *self_p;
    if (!self)
        return;
    zhashx_destroy (&self->subjects);
    free (self);
    *self_p = NULL;
}

//  Forget the subjects not logged within EVERY
static void
s_forget_old (drover_refusals_t *self, int64_t now)
{
    zlistx_t *old = zlistx_new ();
    for (s_subject_t *subject = (s_subject_t *) zhashx_first (self->subjects); subject;
         subject = (s_subject_t *) zhashx_next (self->subjects))
        if (now - subject->logged_at >= DROVER_REFUSALS_EVERY)
            zlistx_add_end (old, (void *) zhashx_cursor (self->subjects));
    for (void *key = zlistx_first (old); key; key = zlistx_next (old))
        zhashx_delete (self->subjects, key);
    zlistx_destroy (&old);
}

//  True if the burst limit lets one more line out in now's second
static bool
s_burst_allows (drover_refusals_t *self, int64_t now)
{
    if (now - self->second >= 1000) {
        self->second = now;
        self->lines = 0;
    }
    return self->lines < DROVER_REFUSALS_BURST;
}

//  A refusal of subject happened: log it or hold it back
bool
drover_refusals_due (drover_refusals_t *self, const char *subject, int64_t now,
                     uint64_t *held_p)
{
    assert (self);
    assert (subject);
    assert (held_p);
    self->count++;
    s_subject_t *known = (s_subject_t *) zhashx_lookup (self->subjects, subject);
    if (known && now - known->logged_at < DROVER_REFUSALS_EVERY) {
        known->held++;
        return false;
    }
    if (!s_burst_allows (self, now)) {
        if (known)
            known->held++;
        else
            self->held_burst++;
        return false;
    }
    self->lines++;
    *held_p = self->held_burst + (known? known->held: 0);
    self->held_burst = 0;
    if (!known && zhashx_size (self->subjects) >= DROVER_REFUSALS_KEPT)
        s_forget_old (self, now);
    if (!known && zhashx_size (self->subjects) < DROVER_REFUSALS_KEPT) {
        known = (s_subject_t *) zmalloc (sizeof (s_subject_t));
        zhashx_insert (self->subjects, subject, known);
    }
    if (known) {
        known->logged_at = now;
        known->held = 0;
    }
    return true;
}

//  Return the refusals ever noted
uint64_t
drover_refusals_count (drover_refusals_t *self)
{
    assert (self);
    return self->count;
}
