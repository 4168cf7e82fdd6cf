/*  =========================================================================
    drover_routing - the broker's routing table: who hears each wire
    message a peer sends and each command an actor says

    The one answer to "who hears X". The broker's main routes by it and by
    nothing else: a wire message by its id, an actor's record by its kind
    (both looked up in arrays indexed once, at new), a plain command by its
    word. actors/ACTORS.md's tables say it in words, and test_actors_doc
    holds them to it through drover_routing_describe.
    =========================================================================
*/

#ifndef DROVER_ROUTING_H_INCLUDED
#define DROVER_ROUTING_H_INCLUDED

#include <czmq.h>
#include "drover_outbox.h"

#ifdef __cplusplus
extern "C" {
#endif

//  The broker's actors, by index: the hearers a route names, the order the
//  main starts and polls them in (drover_crew); the pool only runs when the
//  settings have instance types (its slot is empty otherwise)
typedef enum {
    DROVER_ROUTING_HEALTH,
    DROVER_ROUTING_PROBATION,
    DROVER_ROUTING_SCHEDQ,
    DROVER_ROUTING_ASSIGN,
    DROVER_ROUTING_STORE,
    DROVER_ROUTING_METRICS,
    DROVER_ROUTING_POOL,
    DROVER_ROUTING_RECONCILER,
    DROVER_ROUTING_ACTORS       //  one past the last
} drover_routing_actor_t;

//  A route's targets: the bit of each actor that hears it, and the other
//  ways out
#define DROVER_ROUTING_TO(actor)    (1 << (actor))
#define DROVER_ROUTING_ANY_ACTOR    (DROVER_ROUTING_TO (DROVER_ROUTING_ACTORS) - 1)
#define DROVER_ROUTING_PEER     (1 << 8)    //  the main sends it to a peer on the ROUTER
#define DROVER_ROUTING_PUBLISH  (1 << 9)    //  the main publishes it on the XPUB
#define DROVER_ROUTING_LINK     (1 << 10)   //  on the link between assign and schedq: never
                                            //  through the main
#define DROVER_ROUTING_SELF     (1 << 11)   //  the main acts on it itself (start-up; a wire
                                            //  message: the main answers it,
                                            //  drover_poolwire_none)
#define DROVER_ROUTING_COUNTS   (1 << 12)   //  the main answers it too, with its own counts
#define DROVER_ROUTING_OTHERS   (1 << 13)   //  said both ways: each actor it names hears it
                                            //  from the others, never its own (FLEET)

typedef struct _drover_routing_t drover_routing_t;

//  Create the routing table's indexes: who hears each wire message and
//  each record kind, so that the hot path looks them up without comparing
//  words
drover_routing_t *
    drover_routing_new (void);

//  Destroy the indexes; harmless on NULL
void
    drover_routing_destroy (drover_routing_t **self_p);

//  Who hears a wire message: one actor's bit, or DROVER_ROUTING_SELF (the
//  main answers it); 0 if no row names the id (answered ERROR 415)
int
    drover_routing_wire (drover_routing_t *self, int id);

//  The DROVER_ROLE_* bits any of which may send a wire message; 0 if no
//  row names the id
uint8_t
    drover_routing_senders (drover_routing_t *self, int id);

//  Who hears a record an actor says, by its kind: DROVER_ROUTING_ bits
int
    drover_routing_record (drover_routing_t *self, drover_record_kind_t kind);

//  Who hears a command an actor (or the main) says: DROVER_ROUTING_ bits;
//  0 if no row names it
int
    drover_routing_command (drover_routing_t *self, const char *command);

//  The routing table read-only, in the words of actors/ACTORS.md's tables
//  (a test holds the document to it). Row index: name gets the wire
//  message's name (e.g. "TASK SUBMIT") or the command word; hearers who
//  hears it: the actors' names in the order of drover_routing_actor_name,
//  then the main's ways ("the main", "a peer", "the event stream"), then
//  "on the link" and "not the sayer" where they apply, ", "-joined;
//  senders, for a wire message, who may send it ("workers", "clients",
//  "admins", "anyone"), else "". Returns false past the last row.
bool
    drover_routing_describe (size_t index, char *name, size_t name_size, char *hearers,
                             size_t hearers_size, char *senders, size_t senders_size);

//  Return the name of the broker's actor at index ("health", "probation",
//  ...), or NULL past the last
const char *
    drover_routing_actor_name (size_t index);

#ifdef __cplusplus
}
#endif

#endif
