/*  =========================================================================
    drover_schedq_actor - the schedq actor: the queue, the workers and placements

    What it hears and says, and how: actors/ACTORS.md, "schedq".
    =========================================================================
*/

#ifndef DROVER_SCHEDQ_ACTOR_H_INCLUDED
#define DROVER_SCHEDQ_ACTOR_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

//  The actor: zactor_new (drover_schedq_actor, NULL), or with an inproc
//  endpoint (a string) to bind for the link to assign (ACTORS.md)
void
    drover_schedq_actor (zsock_t *pipe, void *args);

#ifdef __cplusplus
}
#endif

#endif
