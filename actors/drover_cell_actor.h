/*  =========================================================================
    drover_cell_actor - one named queue this broker offers: a broker of its own
    (drover_broker_t) in a thread of its own, serving while the placement
    makes this broker the queue's owner and redirecting to the owner
    otherwise

    Its ROUTER and event stream are bound for the life of the process (on
    the queue's ports: drover_queuespec); its actors run only while it
    serves, on the queue's own schema of the shared database, held with the
    queue's fencing token (the mod revision of its placement key in etcd).
    The HA main (drover_ha) tells it what the elector says. What it hears,
    and how: actors/ACTORS.md, "elector" (the cells) and "How actors talk".
    =========================================================================
*/

#ifndef DROVER_CELL_ACTOR_H_INCLUDED
#define DROVER_CELL_ACTOR_H_INCLUDED

#include <czmq.h>
#include "drover_config.h"
#include "drover_queuetable.h"

#ifdef __cplusplus
extern "C" {
#endif

//  What a cell starts with (copied before zactor_new returns)
typedef struct {
    drover_config_t *config;    //  the host broker's settings
    const char *queue;          //  the queue's name
    int port;                   //  its ROUTER's port; its events' the next
    const char *state;          //  its state: the database URI with its schema
    const char *schema;         //  that schema, quoted for SQL (made if missing)
    bool verbose;               //  log more
} drover_cell_args_t;

//  The actor: zactor_new (drover_cell_actor, &args). If its sockets cannot
//  be bound, it logs why and zactor_new's signal says -1: see
//  drover_cell_new.
void
    drover_cell_actor (zsock_t *pipe, void *args);

//  Start a cell: the actor, or NULL if it could not bind (logged)
zactor_t *
    drover_cell_new (drover_cell_args_t *args);

//  Hand cell a copy of table to answer QUEUES with (TABLE)
void
    drover_cell_set_queues (zactor_t *cell, drover_queuetable_t *table);

#ifdef __cplusplus
}
#endif

#endif
