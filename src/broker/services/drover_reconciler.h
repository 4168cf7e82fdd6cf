/*  =========================================================================
    drover_reconciler - the reconciler's decisions: services kept at their
    desired count, placed by rendezvous hashing and spread evenly, after an
    orchestrator's terms and Arvados' keep-balance

    A service is a definition (name, replicas, procs, memory, labels,
    restart delay) whose replicas are long-running tasks, one per slot
    0..replicas-1. Inputs change the view: a definition created, scaled or
    deleted; a replica task's state as assign reports it (started, running,
    ended); the fleet (each connected worker's capacity, labels and whether
    it takes new work, from schedq); and each term's gather (what every
    worker says it runs, or that it did not answer in time).

    Only drover_reconciler_compute decides, and it changes nothing: it
    returns a change set (starts, stops, moves; for a plan, also the batch
    tasks a drain leaves to finish) with the statistics before and after.
    drover_reconciler_commit records a change set as carried out. So a plan
    (drover plan drain W) is the same computation on a hypothetical view,
    never committed.

    The rules:
    - A slot with no replica (none running or pending on a worker that
      keeps it) gets one once its restart backoff is over: on the first
      worker in rendezvous order of the key "SERVICE/SLOT" that takes new
      work, has the service's labels, has room (free procs and memory in
      the fleet, less the starts not reported yet and what this
      computation placed already) and stays within the even spread: of the
      workers that could hold one (usable, big enough, labelled), each
      holds floor (replicas / workers) and at most replicas % workers of
      them one more. None within the spread: the first with room. None
      with room: the slot waits (rows say so). A worker that did not
      answer the term's gather (the last term's, for a pass or a plan)
      takes no new replica. A service's max-per-worker N: no worker
      gets more than N of its replicas, in placement, spread, drains and
      rebalancing; a slot left unplaced by it is counted (capped) and its
      rows say why.
    - A replica on a draining worker moves: started first on its new worker,
      stopped once that one runs. Held, on probation or low on disk: it
      stays, nothing new goes there. A worker out of the fleet: its
      replicas are started elsewhere (assign ends the old ones).
    - A slot of service beyond its replicas (scaled down, deleted), a second
      replica of one slot (once one runs): stopped.
    - Spread (terms and plans): from the highest slot down, a running
      replica moves from a worker holding at least two more of the
      service's replicas than another that could hold one and has room,
      to the first such in the slot's rendezvous order: a worker that
      joins takes only what spread needs. With rebalancing on
      (rebalance-moves > 0) spread makes the fewest moves, from workers
      over their share to workers under it, first those that take a
      replica to its slot's best worker: a join moves about 1/(N+1).
    - Rebalancing (keep-balance, terms and plans): once a service runs
      its count, a running replica moves to a better-ranked worker of its
      slot's order that could hold one, has room and holds fewer of the
      service's replicas; at most rebalance-moves per computation.
    - Placement figures (terms and plans): each running replica's rank in
      its slot's order among the workers that could hold one (0: best),
      before and after the changes: best, not best, a histogram.
    - A replica ended: its slot restarts after the service's restart delay,
      doubling with each quick exit in a row (one that ran less than
      stable-after) up to max-restart-delay; crash-warn quick exits in a
      row make the service CRASHING (reported, still restarted). Ended
      with its worker lost: restarted at once. Stopped by the reconciler:
      not restarted.
    - Sanity (keep-balance): in a term whose gather is incomplete (a worker
      did not answer) or whose removals not asked for by a definition
      (spread, duplicates, replicas their worker no longer runs; stopping
      a replica that moved is not counted) would stop more than
      max-stop-percent of the running replicas, nothing is removed (the
      gather is not trusted: a replica it misses keeps its slot) and the
      statistics say why. Starts still happen.

    This class keeps the services, their slots and replica tasks, the
    fleet and the gather, and decides what keeps or needs each slot;
    where a replica goes (room, the even spread, max-per-worker, the
    spread's and rebalancing's moves, ranks and placement figures) is
    drover_rebalance's, which each computation drives.

    A plain class: no threads, no I/O, no clock (now is the caller's msec
    since the epoch).
    =========================================================================
*/

#ifndef DROVER_RECONCILER_H_INCLUDED
#define DROVER_RECONCILER_H_INCLUDED

#include <czmq.h>
#include "drover_msg.h"
#include "drover_config.h"
#include "drover_fleet.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_reconciler_t drover_reconciler_t;

//  What a computation is for
typedef enum {
    DROVER_RECONCILER_TERM = 0,      //  a term: the gather's view, every rule, sanity checked
    DROVER_RECONCILER_PASS,          //  between terms (a definition changed, a replica ended, a
                                    //  backoff is over): starts, and the stops a definition
                                    //  asks for; no spread, no removals from the gather
    DROVER_RECONCILER_PLAN           //  a plan: a term on the hypothetical view below
} drover_reconciler_kind_t;

//  What to compute; for a plan, the change to suppose
typedef struct {
    drover_reconciler_kind_t kind;
    drover_plan_action_t action;    //  PLAN: DRAIN, HOLD, SCALE or TERM (nothing supposed)
    const char *worker;             //  PLAN DRAIN, HOLD: the worker
    const char *service;            //  PLAN SCALE: the service
    uint32_t count;                 //  PLAN SCALE: its replicas
} drover_reconciler_what_t;

//  A change set: what a computation decided, and the statistics of the
//  view before it and (as predicted) after it
typedef struct {
    drover_planchange_t *changes;       //  in the order to carry out, owned
    size_t count;                   //  entries in changes
    size_t capacity;                //  entries allocated
    drover_service_stats_t before;  //  the view now (term, at: the last term's)
    drover_service_stats_t after;   //  the view once every change is done (started
                                    //  replicas counted running)
    uint64_t next;                  //  msec since the epoch a backoff ends: compute again
                                    //  then (PASS); 0 none
    drover_reconciler_kind_t kind;   //  what it was computed for (commit: a TERM's
                                    //  statistics become the last view)
} drover_changeset_t;

//  A replica task as assign reports it (REPLICA)
typedef struct {
    uint64_t task;                  //  task id
    const char *service;            //  its service
    uint32_t slot;                  //  its slot
    const char *worker;             //  the worker of its attempt, "" none
    uint32_t attempt;               //  its attempt
    drover_task_state_t state;      //  ASSIGNED, RUNNING, or final
    drover_end_t end;               //  final: how it ended
    const char *why;                //  final: its reason ("exited 1", "worker lost"), or ""
} drover_replica_report_t;

//  Create an empty reconciler with the service/... settings (copied)
drover_reconciler_t *
    drover_reconciler_new (const drover_serviceconfig_t *config);

//  Destroy a reconciler; harmless on NULL
void
    drover_reconciler_destroy (drover_reconciler_t **self_p);

//  Define a service (name, replicas, procs >= 1, mem, labels, restart
//  delay of def; created too: 0 takes now). Returns 0 if new, 1 if it
//  replaced one of that name (its replicas keep their slots), -1 if over
//  service/max-services or service/max-replicas (nothing changed).
int
    drover_reconciler_define (drover_reconciler_t *self, const drover_service_row_t *def,
                             uint64_t now);

//  Set a service's replicas. Returns 0, or -1 if unknown or past
//  service/max-replicas.
int
    drover_reconciler_scale (drover_reconciler_t *self, const char *name, uint32_t replicas,
                            uint64_t now);

//  Delete a service: its replicas are stopped by the next computation.
//  Returns 0, or -1 if unknown.
int
    drover_reconciler_undefine (drover_reconciler_t *self, const char *name, uint64_t now);

//  Return true if the service is defined
bool
    drover_reconciler_has (drover_reconciler_t *self, const char *name);

//  Count the services defined
size_t
    drover_reconciler_services (drover_reconciler_t *self);

//  A replica task changed (assign's REPLICA), including each one restored
//  at start. A final state empties its slot (a restart, with its backoff,
//  unless the reconciler stopped it); a task of a service or slot no longer
//  wanted is remembered so that it is stopped. Returns 1 if this end made
//  its service CRASHING (its slot's quick exits in a row reached
//  crash-warn: say service.crashing), else 0.
int
    drover_reconciler_replica (drover_reconciler_t *self, const drover_replica_report_t *report,
                              uint64_t now);

//  Replace the fleet (schedq's FLEET); the workers are copied
void
    drover_reconciler_set_fleet (drover_reconciler_t *self, const drover_fleet_worker_t *workers,
                                size_t count);

//  Start a term's gather: every worker of the fleet is asked, none has
//  answered yet
void
    drover_reconciler_gather_begin (drover_reconciler_t *self, uint64_t term, uint64_t now);

//  A worker answered the gather with the attempts it runs (refs copied).
//  Returns 0, or -1 if it was not asked in this term's gather.
int
    drover_reconciler_gathered (drover_reconciler_t *self, const char *worker,
                               const drover_taskref_t *refs, size_t count);

//  Compute a change set (reset first; changes nothing in self)
void
    drover_reconciler_compute (drover_reconciler_t *self, const drover_reconciler_what_t *what,
                              uint64_t now, drover_changeset_t *set);

//  Record a change set as carried out: its starts are pending on their
//  workers until their REPLICA comes, its stops are stopping; a TERM's
//  statistics become the last view (drover_reconciler_stats)
void
    drover_reconciler_commit (drover_reconciler_t *self, const drover_changeset_t *set,
                             uint64_t now);

//  The last term's statistics (term 0 before the first)
const drover_service_stats_t *
    drover_reconciler_stats (drover_reconciler_t *self);

//  Fill rows for SERVICE TABLE: every service, by name (name NULL or ""),
//  or the one named with its replica rows by slot. Returns the rows made
//  (caller frees each with drover_reconciler_rows_free), or -1 if name is
//  unknown.
int
    drover_reconciler_rows (drover_reconciler_t *self, const char *name, uint64_t now,
                           drover_service_row_t **services_p, size_t *nservices_p,
                           drover_replica_row_t **replicas_p, size_t *nreplicas_p);

//  Free rows drover_reconciler_rows made
void
    drover_reconciler_rows_free (drover_service_row_t **services_p, size_t nservices,
                                drover_replica_row_t **replicas_p);

//  Empty a change set for reuse; free what it holds
void
    drover_changeset_reset (drover_changeset_t *set);

//  Append a change (copied) to a change set
void
    drover_changeset_add (drover_changeset_t *set, const drover_planchange_t *change);

#ifdef __cplusplus
}
#endif

#endif
