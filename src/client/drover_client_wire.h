/*  =========================================================================
    drover_client_wire - the client at the wire's level, for the CLI

    The public API (drover_client.h) hands out its own small types; the
    `drover` command also shows what only the wire's messages carry (a
    task's whole record, why it waits, events, the pool, services, plans,
    named queues) and builds submits with an exec body of its own. These
    calls give and take drover_msg_t: the caller destroys what they return.
    Not installed: part of the project, not of the API. The client's
    requests (drover_client_requests.c) are built on the two calls at the
    end, drover_client_request and drover_client_set_error.

    A drover_submit_t is its TASK SUBMIT message and a drover_result_t its
    TASK DONE, so moving between the two views costs nothing.
    =========================================================================
*/

#ifndef DROVER_CLIENT_WIRE_H_INCLUDED
#define DROVER_CLIENT_WIRE_H_INCLUDED

#include "drover_msg.h"
#include "drover_client.h"
#include "drover_devicelist.h"

#ifdef __cplusplus
extern "C" {
#endif

//  Return the TASK SUBMIT a submit is (borrowed: the same object)
static inline drover_msg_t *
drover_submit_msg (drover_submit_t *self)
{
    return (drover_msg_t *) self;
}

//  Return a TASK SUBMIT as a submit (borrowed: the same object)
static inline drover_submit_t *
drover_submit_of (drover_msg_t *submit)
{
    return (drover_submit_t *) submit;
}

//  Return the TASK DONE a result is (borrowed: the same object)
static inline const drover_msg_t *
drover_result_msg (const drover_result_t *self)
{
    return (const drover_msg_t *) self;
}

//  Return a TASK DONE as a result (borrowed: the same object)
static inline const drover_result_t *
drover_result_of (const drover_msg_t *done)
{
    return (const drover_result_t *) done;
}

//  Append an after entry of any kind (with DROVER_AFTER_STEP: task is a
//  step's index, from 1) to a TASK SUBMIT's after list, unchecked but for
//  its length. Returns 0, or -1 past DROVER_AFTER_MAX entries.
int
    drover_submit_append_after (drover_msg_t *submit, uint8_t kind, uint64_t task);

//  Return the protocol level of the broker the client talks to, learning
//  it first if no CLIENT WELCOME came on this connection yet (one cheap
//  request: a broker before levels says none, and is of level 1). Returns
//  1.., or -1 with the error set if the broker did not answer.
int
    drover_client_broker_level (drover_client_t *self);

//  Ask for the members of a group (an array or a workflow: TASK LIST with
//  group, level 3), as drover_client_task_table. NULL with the error set
//  (a broker below level 3: refused here, nothing sent).
drover_msg_t *
    drover_client_group_table (drover_client_t *self, uint64_t group, int state,
                               uint32_t limit);

//  Make a listing of a TASK TABLE, which it takes (*table_p is NULL after);
//  NULL if *table_p is
drover_tasks_t *
    drover_tasks_from (drover_msg_t **table_p);

//  Make a listing of a WORKER TABLE, which it takes; NULL if *table_p is
drover_workers_t *
    drover_workers_from (drover_msg_t **table_p);

//  Ask for the worker table. Returns a WORKER TABLE the caller destroys, or NULL.
drover_msg_t *
    drover_client_worker_table (drover_client_t *self);

//  Ask for task counts and rows, as drover_client_tasks_labeled (labels
//  NULL and nlabels 0: all). Returns a TASK TABLE the caller destroys, or NULL.
drover_msg_t *
    drover_client_task_table (drover_client_t *self, int state, uint32_t limit,
                              const char *const *labels, uint32_t nlabels);

//  Ask for everything the broker knows of one task (TASK SHOW). Returns a
//  TASK INFO the caller destroys, its info field (drover_taskinfo_t,
//  drover_taskinfo.h) holding the task's state and result, command (the
//  environment's names only), resources, times (msec since the epoch),
//  and attempts; for a task whose result is no longer kept, its state is
//  DROVER_TASK_UNKNOWN and its end DROVER_END_EXPIRED. NULL with the error
//  set: 404 for an id the broker never gave, 403 for another key's task
//  (CURVE, not an admin key).
drover_msg_t *
    drover_client_show (drover_client_t *self, uint64_t task);

//  Ask why a task waits (TASK EXPLAIN). Returns a TASK EXPLANATION the
//  caller destroys (state, worker, attempt; for a queued task its place,
//  each group of workers' first reason and the verdict), or NULL.
drover_msg_t *
    drover_client_explain (drover_client_t *self, uint64_t task);

//  Ask for up to limit kept events whose seq is above since, oldest first.
//  Returns an EVENT LIST the caller destroys (its events, last and more:
//  ask again from the last event's seq while more is 1), or NULL.
drover_msg_t *
    drover_client_events (drover_client_t *self, uint64_t since, uint32_t limit);

//  Ask for the elastic pool (POOL LIST). Returns a POOL TABLE the caller
//  destroys: its pool summary (enabled 0: the broker has no pool) and
//  pool_rows, the instances oldest first (times in msec since the epoch),
//  or NULL with the error set.
drover_msg_t *
    drover_client_pool (drover_client_t *self);

//  Create a service (SERVICE ADMIN create): def's name, replicas, procs,
//  mem, labels and restart_delay (0: the broker's), the command argv (argc
//  entries) run by each replica. Returns 0, or -1 with the error set: 410
//  a service of that name exists, 400 a bad definition, 302 past the
//  broker's bounds, 403 (CURVE) not an admin key.
int
    drover_client_service_create (drover_client_t *self, const drover_service_row_t *def,
                                  int argc, const char **argv);

//  List services (SERVICE LIST): all (name NULL or ""), or the one named
//  with its replicas. Returns a SERVICE TABLE the caller destroys
//  (stats_now: the last term; service_rows; replica_rows), or NULL with
//  the error set: 404 no such service.
drover_msg_t *
    drover_client_services (drover_client_t *self, const char *name);

//  Ask what a change would do, without doing it (PLAN): action
//  DROVER_PLAN_*, target the worker (DRAIN, HOLD) or the service (SCALE),
//  count the replicas (SCALE). Returns a PLAN RESULT the caller destroys
//  (changes, stats_now before, stats_after), or NULL with the error set:
//  404 no such worker or service.
drover_msg_t *
    drover_client_plan (drover_client_t *self, int action, const char *target, uint32_t count);

//  Ask the brokers where named queues are served (QUEUES: any broker of
//  the list answers it, a standby too). Returns a QUEUE TABLE the caller
//  destroys (strategy, queue_rows: name, owner, owner_endpoint, token,
//  endpoints), empty from a broker without named queues; or NULL with the
//  error set (415: a broker that predates QUEUES).
drover_msg_t *
    drover_client_queues (drover_client_t *self);

//  Send any request and return its reply (not TASK DONE), which the caller
//  destroys; request is only read (its seq is overwritten). An ERROR reply
//  is returned as NULL with the error set.
drover_msg_t *
    drover_client_request (drover_client_t *self, drover_msg_t *request);

//  Set the last error from a code and printf-style text, as
//  drover_client_error_code and drover_client_error_text then tell it: for
//  calls built on drover_client_request that check what they are given
//  before they send it (DROVER_CLIENT_ERR_INVALID), or read its answer
void
    drover_client_set_error (drover_client_t *self, int code, const char *format, ...);

#ifdef __cplusplus
}
#endif

#endif
