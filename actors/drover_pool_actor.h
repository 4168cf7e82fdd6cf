/*  =========================================================================
    drover_pool_actor - the pool actor: the elastic pool's decisions
    (drover_pool) carried out by its driver (drover_pooldriver)

    Started by the broker's main only when the configuration has instance
    types (no types, no pool). See actors/ACTORS.md, "pool".
    =========================================================================
*/

#ifndef DROVER_POOL_ACTOR_H_INCLUDED
#define DROVER_POOL_ACTOR_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

//  The actor; args is unused (CONFIGURE brings the settings)
void
    drover_pool_actor (zsock_t *pipe, void *args);

#ifdef __cplusplus
}
#endif

#endif
