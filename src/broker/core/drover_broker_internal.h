/*  =========================================================================
    drover_broker_internal - what the broker's two files share: the actors'
    indexes, the routing targets' bits and the broker's own fields

    drover_broker.c decodes, routes and sends (the loop, the public API);
    drover_broker_routes.c holds the routing table it routes by;
    drover_broker_actors.c starts and halts the actors. Nothing else
    includes this header.
    =========================================================================
*/

#ifndef DROVER_BROKER_INTERNAL_H_INCLUDED
#define DROVER_BROKER_INTERNAL_H_INCLUDED

#include "drover_broker.h"
#include "drover_msg.h"
#include "drover_metrics.h"
#include "drover_outbox.h"
#include "drover_poller.h"
#include "drover_connwatch.h"
#include "drover_guard.h"
#include "drover_peerlevels.h"
#include "drover_eventstream.h"
#include "drover_queuetable.h"

//  The actors, by index; the pool only runs when the settings have
//  instance types (its slot is empty otherwise)
enum { S_HEALTH, S_PROBATION, S_SCHEDQ, S_ASSIGN, S_STORE, S_METRICS, S_POOL, S_RECONCILER,
       S_ACTORS };

//  What the main's poller watches past the actors' pipes (which are at
//  their actor's index)
enum { S_ROUTER_AT = S_ACTORS, S_PUBLISHER_AT, S_MONITOR_AT, S_MONITORS = 2 };
//  ... and the socket watched for the broker's owner (several brokers: the elector)
enum { S_WATCH_AT = S_MONITOR_AT + S_MONITORS };

//  The bit of an actor in a route's targets, and the other ways out
#define S_TO(actor)     (1 << (actor))
#define S_PEER          (1 << 8)    //  the main sends it to a peer on the ROUTER
#define S_PUBLISH       (1 << 9)    //  the main publishes it on the XPUB
#define S_LINK          (1 << 10)   //  on the link between assign and schedq: never here
#define S_SELF          (1 << 11)   //  the main acts on it itself (start-up; a wire
                                    //  message: the main answers it, drover_poolwire_none)
#define S_COUNTS        (1 << 12)   //  the main answers it too, with its own counts
#define S_OTHERS        (1 << 13)   //  said both ways: each actor it names hears it from
                                    //  the others, never its own (FLEET)


//  Who answers METRICS: the actors it goes to and the main (the pool, when
//  it runs, is one more)
#define S_COUNTERS      6

struct _drover_broker_t {
    drover_config_t *config;    //  settings, read once
    zsock_t *router;            //  workers and clients
    drover_eventstream_t *events;   //  the event stream (its XPUB)
    zactor_t *actors [S_ACTORS];            //  health, probation, schedq, assign, store,
                                            //  metrics, pool, reconciler
    drover_outbox_t *outboxes [S_ACTORS];   //  what this turn tells each actor
    drover_poller_t *poller;    //  the actors' pipes, the ROUTER, the XPUB
    int wire_targets [DROVER_MSG_ID_MAX + 1];   //  s_routes by wire message id
    uint8_t wire_roles [DROVER_MSG_ID_MAX + 1]; //  who may send each wire message
    drover_guard_t *guard;      //  CURVE, keys and roles (or none of them)
    drover_peerlevels_t *levels;    //  each peer connection's protocol level
    int record_targets [DROVER_RECORD_KINDS];   //  s_routes by record kind
    bool router_sent;           //  something went out on the ROUTER this turn
    bool publisher_sent;        //  something went out on the XPUB this turn
    uint64_t malformed;         //  messages that did not decode
    uint64_t answered [DROVER_METRICS];     //  errors the main answered, by DROVER_METRIC_BAD_*
    uint64_t refused;           //  sends the ROUTER refused
    uint64_t suppressed;        //  warnings held back by the rate limit
    int64_t warned_at;          //  last warning, msec monotonic
    zsock_t *monitors [S_MONITORS]; //  connection events of the ROUTER and the XPUB, borrowed
    drover_connwatch_t *connwatch;  //  connections against the descriptor limit
    bool verbose;               //  log each routed message
    bool durable;               //  durability is not off: every event is kept
    int started;                //  S_TO () bits of the actors running
    int speaker;                //  the actor whose commands are being routed, -1 the main
    bool loaded;                //  the store said LOADED: serving
    char *fatal;                //  the store said FATAL: why the broker cannot start
    char *fenced;               //  the store said FENCED: why the broker stopped serving
    bool stop;                  //  run returns after this turn
    drover_broker_watch_fn *standby_fn; //  reads the ROUTER while no actors run, or NULL
    void *standby_arg;          //  its argument
    zsock_t *watched;           //  the owner's socket (borrowed), or NULL
    drover_broker_watch_fn *watch_fn;   //  called when watched is readable
    void *watch_arg;            //  its argument
    drover_queuetable_t *queues;    //  what QUEUES is answered: the owner's copy, or empty
    int64_t wake_at;            //  mono msec the watch function is called unasked, 0 never
};
typedef struct _drover_broker_t s_broker_t;



//  Index the routing table into the broker (drover_broker_routes.c)
void
    drover_broker_index_routes (s_broker_t *self);

//  Send an encoded message to a peer without ever blocking, fitted to the
//  peer's protocol level: the payload goes (*payload_p NULL), or stays the
//  caller's. Returns 0 (also for a message the peer's level has not: not
//  sent), or -1 if the peer is gone or not reading (drover_broker_peers.c)
int
    drover_broker_send_to_peer (s_broker_t *self, const byte *route, size_t route_size,
                                zframe_t **payload_p);

//  Read what peers sent, up to one batch or the turn's time budget,
//  without blocking, and route or answer each (drover_broker_peers.c)
void
    drover_broker_read_peers (s_broker_t *self);

//  Who hears a command an actor (or the main) says: S_TO () bits and S_
//  ways; 0 if no row names it
int
    drover_broker_command_targets (const char *command);

//  Start the actors, each configured, the state held with fence (0: none).
//  Returns 0, or -1 if one cannot start (logged; the caller halts what did).
int
    drover_broker_start_actors (s_broker_t *self, uint64_t fence);

#endif
