/*  =========================================================================
    drover_schedq_actor_internal - what the schedq actor's own files share: its
    state, its settings until CONFIGURE, and the steps its parts call

    Only drover_schedq_actor.c (the actor and its loop, workers, requests from
    assign, placements), drover_schedq_actor_requests.c (clients' requests) and
    drover_schedq_actor_pool.c (the elastic pool) include this; everyone else
    uses drover_schedq_actor.h.
    =========================================================================
*/

#ifndef DROVER_SCHEDQ_ACTOR_INTERNAL_H_INCLUDED
#define DROVER_SCHEDQ_ACTOR_INTERNAL_H_INCLUDED

#include "drover_schedq_actor.h"
#include "drover_adminwait.h"
#include "drover_msg.h"
#include "drover_schedq.h"
#include "drover_explain.h"
#include "drover_actor.h"
#include "drover_metrics.h"
#include "drover_defaults.h"
#include "drover_gone.h"
#include "drover_adminbook.h"
#include "drover_loadreport.h"
#include "drover_affinity.h"
#include "drover_why.h"

//  Settings until CONFIGURE says otherwise: the broker's defaults
#define S_MAX_SHELVE    DROVER_DEFAULT_MAX_SHELVE
#define S_MIN_DISK_FREE ((uint64_t) DROVER_DEFAULT_MIN_DISK_FREE << 20)     //  bytes
#define S_MAX_LEASES    DROVER_DEFAULT_MAX_LEASES
#define S_KEEP_GONE     DROVER_DEFAULT_KEEP_GONE
#define S_MAX_GONE      DROVER_DEFAULT_MAX_GONE
//  Worker ids an operator's settings are kept for, at most
#define S_MAX_ADMIN     DROVER_ROWS_MAX
//  Encoded bytes a WORKER TABLE row takes besides its id and labels, at most
#define S_ROW_OVERHEAD  160
//  Demand shapes of affinity requests told the pool, at most
#define S_AFFINITY_SHAPES   100
//  Least msec between two LOADs to the pool
#define S_LOAD_EVERY    100
//  Msec the pipe and link are left unread after a turn while leases are
//  out and nothing waits (s_may_hold): 1 to 2 msec, the clock counting msec
#define S_HOLD_WHILE_LENT   2

//  What the actor keeps about a worker besides what the queue keeps
typedef struct {
    zframe_t *route;            //  routing id of the worker's latest HELLO
    char *labels;               //  its labels as UP said them, "k=v" joined by "\n"
    bool leave_sent;            //  WORKER LEAVE said since it began draining
    uint64_t since;             //  when it registered, msec since the epoch
    uint16_t level;             //  the protocol level its HELLO said (PROTOCOL.md §12)
    char release [DROVER_RELEASE_MAX + 1];  //  the release its HELLO said, "" unknown
    uint64_t last_task;         //  the last task placed on it, 0 none (for the pool)
    bool retired;               //  the pool retired it: no new work, not in the admin book
    bool retired_said;          //  RETIRED said since
} drover_schedq_actor_worker_t;

typedef struct {
    zsock_t *pipe;              //  commands from the broker main
    drover_outbox_t *outbox;    //  what this turn says, flushed as one BATCH
    zsock_t *link;              //  PAIR straight to assign (ACTORS.md, "The link")
    drover_outbox_t *to_assign; //  what this turn says on the link: ASSIGN, LEASE, REVOKE
    drover_poller_t *poller;    //  the pipe (and the link)
    drover_schedq_t *sched;      //  requests and workers; decides placements
    zhashx_t *workers;          //  worker id -> s_worker_t (owned)
    zhashx_t *unsettled;        //  worker id -> UPs with running attempts heard less
                                //  SETTLEDs heard (intptr_t, never 0: deleted then)
    drover_gone_t *gone;        //  workers that went, listed a while
    drover_adminbook_t *book;   //  an operator's settings, by worker id
    drover_adminwait_t *admin_waits;    //  OKs held until a held worker's lease is back
    bool keep_admin;            //  the store keeps them: say KEEPADMIN
    drover_affinity_t *affinity;    //  requests placed by an affinity key, before each pass
    drover_poolconfig_t *pool;  //  the elastic pool's settings, or NULL: no LOAD
    bool load_due;              //  something changed since the last LOAD
    bool load_now;              //  a worker came or went: LOAD without waiting
    int64_t load_at;            //  when the last LOAD was said, msec monotonic
    drover_actor_flags_t flags; //  EVENTS, VERBOSE, $TERM heard
} drover_schedq_actor_self_t;

//  Say to the store what an operator's setting of a worker is now, to keep
void
    drover_schedq_actor_keep_admin (drover_schedq_actor_self_t *self, const char *id);

//  Tell a worker drained with --exit and with nothing assigned to leave,
//  once; say RETIRED for a retired worker that is idle
void
    drover_schedq_actor_check_drained (drover_schedq_actor_self_t *self, const char *id);

//  In drover_schedq_actor_requests.c

//  MSG: a wire message the main handed us, or assign on the link
void
    drover_schedq_actor_handle_wire (drover_schedq_actor_self_t *self, zframe_t *route, drover_msg_t *wire);

//  FLEET: say every connected worker as the reconciler sees it
void
    drover_schedq_actor_handle_fleet (drover_schedq_actor_self_t *self);

//  ADMIN from the store at start: a setting it kept
void
    drover_schedq_actor_handle_kept_admin (drover_schedq_actor_self_t *self, zmsg_t *msg);

//  In drover_schedq_actor_pool.c

//  POOLTYPES config: the pool's settings (ours now): LOAD from now on
void
    drover_schedq_actor_handle_pooltypes (drover_schedq_actor_self_t *self, zmsg_t *msg);

//  RETIRE worker: the pool takes it away: no new work, RETIRED once idle
void
    drover_schedq_actor_handle_retire (drover_schedq_actor_self_t *self, zmsg_t *msg);

//  POOLADMIN worker admin reason: the admin book entry the pool asks for
void
    drover_schedq_actor_handle_pooladmin (drover_schedq_actor_self_t *self, zmsg_t *msg);

//  After a turn: say LOAD if something changed and the last was long
//  enough ago; returns msec until a held-back LOAD is due, or -1
int
    drover_schedq_actor_check_load (drover_schedq_actor_self_t *self, bool changed, int64_t now);

#endif
