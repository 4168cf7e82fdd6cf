/*  =========================================================================
    drover_crew - the broker's actors, started and halted: each at its
    index (drover_routing_actor_t), configured, with the outbox in which
    what the main tells it waits for the turn's BATCH

    The main routes between them (drover_broker); the crew starts them in
    order, from the settings, and halts them in reverse.
    =========================================================================
*/

#ifndef DROVER_CREW_H_INCLUDED
#define DROVER_CREW_H_INCLUDED

#include <czmq.h>
#include "drover_config.h"
#include "drover_outbox.h"
#include "drover_routing.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_crew_t drover_crew_t;

//  Create a crew on config (borrowed, must outlive it), verbose if asked;
//  no actor runs yet
drover_crew_t *
    drover_crew_new (drover_config_t *config, bool verbose);

//  Destroy the crew, its actors halted; harmless on NULL
void
    drover_crew_destroy (drover_crew_t **self_p);

//  Start the actors, each configured, the state held with fence (0: none),
//  told whether anyone reads the event stream (listened). Returns 0, or -1
//  if one cannot start (logged; the caller halts what did).
int
    drover_crew_start (drover_crew_t *self, uint64_t fence, bool listened);

//  Stop every actor, in reverse order of start, and drop their outboxes
void
    drover_crew_halt (drover_crew_t *self);

//  Return the pipe of the actor at index (borrowed), or NULL if it does
//  not run (halted; the pool, without instance types)
zsock_t *
    drover_crew_sock (drover_crew_t *self, int index);

//  Return the outbox of the actor at index (borrowed): what the main tells
//  it this turn. Once started every slot has one, the pool's too (empty
//  when it does not run); NULL while halted.
drover_outbox_t *
    drover_crew_outbox (drover_crew_t *self, int index);

//  Return the DROVER_ROUTING_TO () bits of the actors running
int
    drover_crew_started (drover_crew_t *self);

//  Tell the actors whether to say events (the first subscriber came, or
//  the last went); when events are kept only the store is told, for
//  whether to publish them
void
    drover_crew_say_events (drover_crew_t *self, bool on);

//  Say the settings a reload may change (drover_reload_live) to the
//  actors that hold them, from the crew's settings as they are now:
//  schedq's (shares, preemption, schedq/...), probation's and the metrics actor's
void
    drover_crew_reconfigure (drover_crew_t *self);

#ifdef __cplusplus
}
#endif

#endif
