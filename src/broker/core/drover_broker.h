/*  =========================================================================
    drover_broker - the broker process: owns the TCP sockets, starts the
    actors (drover_crew) and routes between them by the routing table
    (drover_routing; actors/ACTORS.md says it in words)

    Alone (the default) `drover broker` binds its sockets, starts the
    actors, loads the state and serves until interrupted. With several
    brokers (ha/etcd, drover_ha) the sockets are bound for the whole life
    of the process and the actors run only while this broker leads: its
    owner starts them when elected (drover_broker_start, with the fencing
    token the state is then held with) and halts them when deposed; in
    between the ROUTER is handed to the owner's standby function, which
    answers every peer with a redirect.
    =========================================================================
*/

#ifndef DROVER_BROKER_H_INCLUDED
#define DROVER_BROKER_H_INCLUDED

#include <czmq.h>
#include "drover_config.h"
#include "drover_queuetable.h"
#include "drover_peerlevels.h"
#include "drover_reload.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_broker_t drover_broker_t;

//  What the broker calls when a socket its owner gave it is readable
typedef void (drover_broker_watch_fn) (void *arg, zsock_t *sock);

//  Run `drover broker [flags]`: argv [0] is "broker". Returns the exit status.
int
    drover_broker_main (int argc, char **argv);

//  Create a broker on config (borrowed, must outlive it): its ROUTER and
//  event stream bound, no actor running. NULL if it cannot (logged).
drover_broker_t *
    drover_broker_new (drover_config_t *config, bool verbose);

//  Destroy the broker: actors halted, sockets closed; harmless on NULL
void
    drover_broker_destroy (drover_broker_t **self_p);

//  Start the actors and load the state, held with fence (a leader's
//  fencing token; 0 alone). Returns 0 once serving, or -1 if the state
//  cannot be opened or read (logged; no actor runs then).
int
    drover_broker_start (drover_broker_t *self, uint64_t fence);

//  Stop every actor; the sockets stay bound and peers' connections open
void
    drover_broker_halt (drover_broker_t *self);

//  True while the actors run and the state is loaded
bool
    drover_broker_serving (drover_broker_t *self);

//  The ROUTER where workers and clients talk (borrowed)
zsock_t *
    drover_broker_router (drover_broker_t *self);

//  Return the protocol levels of the ROUTER's connections (borrowed): a
//  standby on the same socket reads and keeps them too
drover_peerlevels_t *
    drover_broker_levels (drover_broker_t *self);

//  Watch sock in the loop: fn is called each turn it may hold input
void
    drover_broker_watch (drover_broker_t *self, zsock_t *sock, drover_broker_watch_fn *fn,
                         void *arg);

//  While no actor runs, fn reads the ROUTER (the standby's redirects)
void
    drover_broker_set_standby (drover_broker_t *self, drover_broker_watch_fn *fn, void *arg);

//  Answer QUEUES with table from now on (a copy is kept; the caller still
//  owns table). Until it is set, QUEUES gets an empty table, strategy "".
//  The main answers it itself, while serving, without any actor.
void
    drover_broker_set_queues (drover_broker_t *self, drover_queuetable_t *table);

//  Publish an event about the broker itself on the stream (seq 0: not
//  kept in the state), e.g. broker.leader
void
    drover_broker_publish (drover_broker_t *self, const char *topic, const char *name,
                           const char *reason);

//  Serve until interrupted (returns 0) or the store said FENCED (returns 1;
//  drover_broker_fenced says why)
int
    drover_broker_run (drover_broker_t *self);

//  Read the settings again when SIGHUP comes, with reload (borrowed, or
//  NULL for none): apply what may change while running, say what needs
//  a restart (docs/operating.md). several: one of several brokers, whose
//  named queues keep their settings.
void
    drover_broker_set_reload (drover_broker_t *self, drover_reload_t *reload, bool several);

//  Call the watch function once at mono msec at, readable or not (a
//  timer for the owner); 0 cancels
void
    drover_broker_wake (drover_broker_t *self, int64_t at);

//  Make run return after this turn, with 1 and no fenced reason (called
//  from the watch function: an owner's stop)
void
    drover_broker_stop (drover_broker_t *self);

//  Why the store stopped serving (a newer leader holds the state), or NULL;
//  cleared by drover_broker_start
const char *
    drover_broker_fenced (drover_broker_t *self);

#ifdef __cplusplus
}
#endif

#endif
