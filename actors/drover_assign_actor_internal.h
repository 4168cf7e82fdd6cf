/*  =========================================================================
    drover_assign_actor_internal - what the assign actor's own files share: its
    state, and the steps its parts call

    Only drover_assign_actor.c, drover_assign_actor_requests.c (clients' requests and
    workers' reports) and drover_assign_actor_replicas.c (the reconciler's
    replica tasks) include this; everyone else uses drover_assign_actor.h.
    =========================================================================
*/

#ifndef DROVER_ASSIGN_ACTOR_INTERNAL_H_INCLUDED
#define DROVER_ASSIGN_ACTOR_INTERNAL_H_INCLUDED

#include "drover_assign_actor.h"
#include "drover_msg.h"
#include "drover_assign.h"
#include "drover_leases.h"
#include "drover_tasktags.h"
#include "drover_actor.h"
#include "drover_metrics.h"

typedef struct {
    zsock_t *pipe;              //  commands from the broker main
    drover_outbox_t *outbox;    //  what this turn says, flushed as one BATCH
    zsock_t *link;              //  PAIR straight to schedq (ACTORS.md, "The link")
    drover_outbox_t *to_schedq; //  what this turn says on the link: QUEUE, TAKE, FREE, RETURN...
    drover_once_t succeeded;    //  workers told SUCCESS this turn
    drover_once_t heard;        //  workers health was told HEARD of this turn
    drover_poller_t *poller;    //  the pipe (and the link)
    drover_assign_t *table;  //  every task; decides everything
    drover_leases_t *leases;    //  idle capacity schedq lent us: tasks placed without it
    drover_tasktags_t *tags;    //  replicas' service and slot, affinity keys
    drover_turns_t turns;       //  when the loop last turned, to notice our own stalls
    uint64_t stale;             //  reports answered STALE, NOT FOUND or NOT REGISTERED
    uint64_t suppressed;        //  warnings held back by the rate limit
    int64_t warned_at;          //  start of the current warning second, msec
    int warnings;               //  warnings logged in that second
    drover_actor_flags_t flags; //  EVENTS, VERBOSE (also logs each task's end), $TERM
    int durability;             //  drover_durability_t
    drover_record_kind_t acks;  //  how acknowledgements go: REPLY with durability full, else SEND
    uint32_t restart_grace;     //  msec for workers to report after a restart
    int64_t grace_at;           //  msec (mono) when the restart grace ends, 0: none
    uint64_t restored;          //  RESTOREs handled this turn, not yet said RESTORED
    char state_id [DROVER_STATE_ID_SIZE + 1];   //  the broker's state id (STATE)
    drover_msg_t *submit;       //  the TASK SUBMIT being handled: its task's first change
    uint64_t submitted;         //  tasks accepted, ever (METRICS)
    uint64_t ended [DROVER_END_MAX + 1];    //  tasks that reached a final state, by end
    uint64_t requeued;          //  attempts put back in the queue
    uint64_t refused [3];       //  reports refused: 409 STALE, 404 NOT FOUND, 401 NOT REGISTERED
    drover_histogram_t histograms [DROVER_HISTOGRAMS];  //  queue wait, run time, end to end
    bool loaded;                //  LOADED heard: a RESTORE now is a task read back (RECALL)
    zlistx_t *parked;           //  drover_assign_actor_parked_t: requests waiting for a RECALL,
                                //  in the order the RECALLs were said (owned)
    uint64_t recalls;           //  RECALLs said, ever: the last one's number
    uint64_t recall_restored;   //  tasks read back since the last RECALLED
} drover_assign_actor_self_t;

//  A client's TASK WAIT or SHOW naming tasks evicted from the table (past
//  keep-finished): parked while the store reads them back from its
//  durable history (RECALL), then handled as if it came then (RECALLED)
typedef struct {
    uint64_t ref;               //  its RECALL's number
    byte route [256];           //  the client's routing id
    size_t route_size;          //  bytes in route
    drover_msg_t *msg;          //  the request, owned
} drover_assign_actor_parked_t;

//  Destroy a parked request (the parked list's destructor)
void
    drover_assign_actor_parked_destroy (void **item_p);

//  MSG TASK WAIT or SHOW naming tasks evicted from the table, with durable
//  history: say RECALL to the store and park the request (taking *msg_p)
//  until RECALLED. Returns true if parked, false to handle it now.
bool
    drover_assign_actor_recall (drover_assign_actor_self_t *self, const byte *route, size_t route_size,
                          drover_msg_t **msg_p);

//  RECALLED ref(8): the store said the tasks it read back (RESTORE, before
//  this): handle the request parked under ref now
void
    drover_assign_actor_recalled (drover_assign_actor_self_t *self, uint64_t ref);

//  Carry out everything the table decided, in order
void
    drover_assign_actor_carry_out (drover_assign_actor_self_t *self);

//  Tell whether a warning may be logged now: a flood of stale reports or
//  failures must not flood the log
bool
    drover_assign_actor_may_warn (drover_assign_actor_self_t *self);

//  MSG: a request from a client or a report from a worker; answer it, then
//  carry out what it caused
void
    drover_assign_actor_handle_request (drover_assign_actor_self_t *self, const byte *route,
                                  size_t route_size, drover_msg_t *msg);

//  A task changed: if it is a replica, say REPLICA to the reconciler; once
//  it is final, forget its tag
void
    drover_assign_actor_tell_replica (drover_assign_actor_self_t *self, const drover_action_t *action);

//  Say REPLICA for each replica restored (after LOADED)
void
    drover_assign_actor_say_restored (drover_assign_actor_self_t *self);

//  START worker(s) submit(f): run the reconciler's replica there now
void
    drover_assign_actor_start (drover_assign_actor_self_t *self, zmsg_t *msg);

//  STOP task(8) reason(s): cancel a replica
void
    drover_assign_actor_stop (drover_assign_actor_self_t *self, zmsg_t *msg);

#endif
