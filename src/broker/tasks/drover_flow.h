/*  =========================================================================
    drover_flow - what a task waits for before it is queued, and when

    The task table (drover_assign) asks this class at each turn of a
    task's life whether it goes to the scheduling queue or is held back:
    when it is submitted (its parents, its begin time), when a hold ends,
    when an attempt failed with retries left (the backoff), and it tells
    it of each task's end, which may release or doom the tasks that wait
    for it. The flow keeps the graph (drover_deps), the holds and their
    timers (drover_waiting), the groups (drover_groups: arrays and
    workflows) and each task's workflow settings (begin, retry delays).
    It decides; the table acts. A plain class called with the wall clock;
    no threads, no I/O.
    =========================================================================
*/

#ifndef DROVER_FLOW_H_INCLUDED
#define DROVER_FLOW_H_INCLUDED

#include <czmq.h>
#include "drover_msg.h"
#include "drover_deps.h"
#include "drover_waiting.h"
#include "drover_groups.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_flow_t drover_flow_t;

//  What the table does with a task now
typedef enum {
    DROVER_FLOW_QUEUE = 0,              //  queue it
    DROVER_FLOW_HOLD  = 1,              //  hold it back (drover_flow_cause says why)
    DROVER_FLOW_DOOM  = 2               //  cancel it: end DEPENDENCY
} drover_flow_verdict_t;

//  Create an empty flow; seed drives the retries' jitter
drover_flow_t *
    drover_flow_new (uint64_t seed);

//  Destroy the flow; harmless on NULL
void
    drover_flow_destroy (drover_flow_t **self_p);

//  Return the graph, the holds, the groups (borrowed)
drover_deps_t *
    drover_flow_deps (drover_flow_t *self);
drover_waiting_t *
    drover_flow_waiting (drover_flow_t *self);
drover_groups_t *
    drover_flow_groups (drover_flow_t *self);

//  A task (not a group) was accepted from submit (its after list names
//  tasks, no steps) at now: keep its settings, add it to the graph, and
//  say what to do with it. DOOM sets *blame_p, *blame_state_p.
int
    drover_flow_submitted (drover_flow_t *self, uint64_t task, const drover_msg_t *submit,
                           int64_t now, drover_deps_state_fn *state, void *arg,
                           uint64_t *blame_p, int *blame_state_p);

//  A task's parents all ended as it asks (drover_deps said RELEASED) at
//  now: QUEUE, or HOLD for its begin time
int
    drover_flow_released (drover_flow_t *self, uint64_t task, int64_t now);

//  An attempt of task failed at now with retries left, the retries-th
//  failure (from 1): HOLD it for its backoff (*due_p: when), or QUEUE at
//  once when it has no retry delay
int
    drover_flow_retry (drover_flow_t *self, uint64_t task, uint32_t retries, int64_t now,
                       int64_t *due_p);

//  Return the backoff before the retries-th retry (from 1) of delay msec
//  capped at max_delay (0: DROVER_RETRY_MAX_DELAY), before jitter
uint32_t
    drover_flow_backoff (uint32_t delay, uint32_t max_delay, uint32_t retries);

//  Return a task's begin time (msec since the epoch, 0 none) and its
//  retry delays
int64_t
    drover_flow_begin (drover_flow_t *self, uint64_t task, uint32_t *retry_delay_p,
                       uint32_t *retry_max_delay_p);

//  Keep a restored task's settings (from its kept submit); its holds and
//  its place in the graph are the table's to restore
void
    drover_flow_restored (drover_flow_t *self, uint64_t task, const drover_msg_t *submit);

//  Order a WORKFLOW SUBMIT's steps so that each comes after the steps its
//  after list names (DROVER_AFTER_STEP entries, checked to name steps):
//  order gets the step indexes, from 0, parents first. Returns 0, or -1
//  with the steps of a cycle named in reason (size bytes).
int
    drover_flow_order_steps (const drover_msg_t *msg, uint32_t *order, char *reason,
                             size_t size);

//  Forget a task: its settings, its hold, its place in the graph, and its
//  group if it is one
void
    drover_flow_forget (drover_flow_t *self, uint64_t task);

#ifdef __cplusplus
}
#endif

#endif
