/*  =========================================================================
    drover_flow - what a task waits for before it is queued, and when

    Settings are kept only for tasks that have some (a begin time, a retry
    delay), in an id hash; most tasks have none and cost nothing here. The
    retries' jitter comes from a xorshift generator seeded at creation, so
    that a test's delays are the same each run.
    =========================================================================
*/

#include "drover_flow.h"
#include "drover_idhash.h"

//  A task's workflow settings
typedef struct {
    uint64_t id;                //  the task (first: drover_idhash)
    int64_t begin;              //  msec since the epoch it may start, 0 none
    uint32_t retry_delay;       //  msec before the first retry, 0 at once
    uint32_t retry_max_delay;   //  the most a retry waits, msec, 0 the default
} s_settings_t;

struct _drover_flow_t {
    drover_deps_t *deps;        //  who waits for whom
    drover_waiting_t *waiting;  //  who is held back, and until when
    drover_groups_t *groups;    //  arrays and workflows
    drover_idhash_t *settings;  //  id -> s_settings_t, of tasks that have some
    uint64_t random;            //  the jitter's generator state, never 0
};


//  --------------------------------------------------------------------------
//  Create an empty flow

drover_flow_t *
drover_flow_new (uint64_t seed)
{
    drover_flow_t *self = (drover_flow_t *) zmalloc (sizeof (drover_flow_t));
    self->deps = drover_deps_new ();
    self->waiting = drover_waiting_new ();
    self->groups = drover_groups_new ();
    self->settings = drover_idhash_new ();
    self->random = seed? seed: 0x9E3779B97F4A7C15ull;
    return self;
}


//  --------------------------------------------------------------------------
//  Destroy the flow; harmless on NULL

void
drover_flow_destroy (drover_flow_t **self_p)
{
    assert (self_p);
    drover_flow_t *self = *self_p;
    if (!self)
        return;
    for (size_t index = 0; index < drover_idhash_slots (self->settings); index++)
        free (drover_idhash_slot (self->settings, index));
    drover_idhash_destroy (&self->settings);
    drover_deps_destroy (&self->deps);
    drover_waiting_destroy (&self->waiting);
    drover_groups_destroy (&self->groups);
    free (self);
    *self_p = NULL;
}


//  --------------------------------------------------------------------------
//  Return the graph, the holds, the groups

drover_deps_t *
drover_flow_deps (drover_flow_t *self)
{
    assert (self);
    return self->deps;
}

drover_waiting_t *
drover_flow_waiting (drover_flow_t *self)
{
    assert (self);
    return self->waiting;
}

drover_groups_t *
drover_flow_groups (drover_flow_t *self)
{
    assert (self);
    return self->groups;
}

//  Keep a task's settings if it has any
static void
s_keep_settings (drover_flow_t *self, uint64_t task, const drover_msg_t *submit)
{
    if (!submit->begin && !submit->retry_delay)
        return;
    s_settings_t *settings = (s_settings_t *) zmalloc (sizeof (s_settings_t));
    settings->id = task;
    settings->begin = (int64_t) submit->begin;
    settings->retry_delay = submit->retry_delay;
    settings->retry_max_delay = submit->retry_max_delay;
    drover_idhash_insert (self->settings, settings);
}

//  Hold a task for its begin time if it is still ahead: HOLD, else QUEUE
static int
s_hold_for_begin (drover_flow_t *self, uint64_t task, int64_t now)
{
    s_settings_t *settings = (s_settings_t *) drover_idhash_lookup (self->settings, task);
    if (!settings || settings->begin <= now)
        return DROVER_FLOW_QUEUE;
    drover_waiting_add (self->waiting, task, DROVER_WAITS_BEGIN, settings->begin);
    return DROVER_FLOW_HOLD;
}


//  --------------------------------------------------------------------------
//  A task was accepted: keep its settings, add it to the graph, and say
//  what to do with it

int
drover_flow_submitted (drover_flow_t *self, uint64_t task, const drover_msg_t *submit,
                       int64_t now, drover_deps_state_fn *state, void *arg,
                       uint64_t *blame_p, int *blame_state_p)
{
    assert (self && submit && blame_p && blame_state_p);
    s_keep_settings (self, task, submit);
    if (submit->nafter) {
        int verdict = drover_deps_add (self->deps, task, submit->after, submit->nafter,
                                       state, arg, blame_p, blame_state_p);
        if (verdict == DROVER_DEPS_DOOMED)
            return DROVER_FLOW_DOOM;
        if (verdict == DROVER_DEPS_WAITS) {
            drover_waiting_add (self->waiting, task, DROVER_WAITS_AFTER, 0);
            return DROVER_FLOW_HOLD;
        }
    }
    return s_hold_for_begin (self, task, now);
}


//  --------------------------------------------------------------------------
//  A task's parents all ended as it asks: QUEUE, or HOLD for its begin

int
drover_flow_released (drover_flow_t *self, uint64_t task, int64_t now)
{
    assert (self);
    drover_waiting_remove (self->waiting, task);
    return s_hold_for_begin (self, task, now);
}

//  Return the next number of the jitter's generator (xorshift64)
static uint64_t
s_random (drover_flow_t *self)
{
    uint64_t x = self->random;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    self->random = x;
    return x;
}


//  --------------------------------------------------------------------------
//  Return the backoff before the retries-th retry, before jitter

uint32_t
drover_flow_backoff (uint32_t delay, uint32_t max_delay, uint32_t retries)
{
    uint64_t cap = max_delay? max_delay: DROVER_RETRY_MAX_DELAY;
    uint64_t wait = delay;
    for (uint32_t doubling = 1; doubling < retries && wait < cap; doubling++)
        wait *= 2;
    return (uint32_t) (wait < cap? wait: cap);
}


//  --------------------------------------------------------------------------
//  An attempt failed with retries left: HOLD for the backoff, or QUEUE

int
drover_flow_retry (drover_flow_t *self, uint64_t task, uint32_t retries, int64_t now,
                   int64_t *due_p)
{
    assert (self && due_p);
    *due_p = 0;
    s_settings_t *settings = (s_settings_t *) drover_idhash_lookup (self->settings, task);
    if (!settings || !settings->retry_delay)
        return DROVER_FLOW_QUEUE;
    uint32_t wait = drover_flow_backoff (settings->retry_delay, settings->retry_max_delay,
                                         retries);
    //  Jittered by up to 20% either way, so retries of many tasks spread out
    double factor = 0.8 + 0.4 * (double) (s_random (self) >> 11) / (double) (1ull << 53);
    *due_p = now + (int64_t) ((double) wait * factor);
    drover_waiting_add (self->waiting, task, DROVER_WAITS_RETRY, *due_p);
    return DROVER_FLOW_HOLD;
}


//  --------------------------------------------------------------------------
//  Return a task's begin time and its retry delays

int64_t
drover_flow_begin (drover_flow_t *self, uint64_t task, uint32_t *retry_delay_p,
                   uint32_t *retry_max_delay_p)
{
    assert (self);
    s_settings_t *settings = (s_settings_t *) drover_idhash_lookup (self->settings, task);
    if (retry_delay_p)
        *retry_delay_p = settings? settings->retry_delay: 0;
    if (retry_max_delay_p)
        *retry_max_delay_p = settings? settings->retry_max_delay: 0;
    return settings? settings->begin: 0;
}


//  --------------------------------------------------------------------------
//  Keep a restored task's settings

void
drover_flow_restored (drover_flow_t *self, uint64_t task, const drover_msg_t *submit)
{
    assert (self && submit);
    if (!drover_idhash_lookup (self->settings, task))
        s_keep_settings (self, task, submit);
}


//  --------------------------------------------------------------------------
//  Forget a task

void
drover_flow_forget (drover_flow_t *self, uint64_t task)
{
    assert (self);
    s_settings_t *settings = (s_settings_t *) drover_idhash_lookup (self->settings, task);
    if (settings) {
        drover_idhash_delete (self->settings, settings);
        free (settings);
    }
    drover_waiting_remove (self->waiting, task);
    drover_deps_forget (self->deps, task);
    drover_groups_remove (self->groups, task);
}


//  --------------------------------------------------------------------------
//  Order a workflow's steps so that each comes after the steps it names
//  (Kahn's algorithm)

int
drover_flow_order_steps (const drover_msg_t *msg, uint32_t *order, char *reason, size_t size)
{
    assert (msg && order && reason);
    uint32_t count = msg->nsteps;
    uint32_t *pending = (uint32_t *) zmalloc (count * sizeof (uint32_t));
    for (uint32_t step = 0; step < count; step++)
        for (uint32_t index = 0; index < msg->steps [step]->nafter; index++)
            if (msg->steps [step]->after [index].kind & DROVER_AFTER_STEP)
                pending [step]++;
    uint32_t done = 0;
    bool moved = true;
    while (moved) {             //  O(steps^2): at most 1000 steps
        moved = false;
        for (uint32_t step = 0; step < count; step++) {
            if (pending [step] != 0)
                continue;
            pending [step] = UINT32_MAX;        //  placed
            order [done++] = step;
            moved = true;
            for (uint32_t other = 0; other < count; other++) {
                const drover_msg_t *child = msg->steps [other];
                for (uint32_t index = 0; index < child->nafter; index++)
                    if ((child->after [index].kind & DROVER_AFTER_STEP)
                    &&  child->after [index].task == step + 1 && pending [other] != UINT32_MAX)
                        pending [other]--;
            }
        }
    }
    int rc = 0;
    if (done < count) {
        size_t used = (size_t) snprintf (reason, size, "a cycle joins steps");
        for (uint32_t step = 0; step < count && used < size; step++)
            if (pending [step] != UINT32_MAX)
                used += (size_t) snprintf (reason + used, size - used, " %s",
                                           msg->step_names [step]);
        rc = -1;
    }
    free (pending);
    return rc;
}
