/*  =========================================================================
    drover_health_actor - the health actor: worker registration and liveness

    What it hears and says, and how: actors/ACTORS.md, "health".
    =========================================================================
*/

#ifndef DROVER_HEALTH_ACTOR_H_INCLUDED
#define DROVER_HEALTH_ACTOR_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

//  The actor: zactor_new (drover_health_actor, NULL)
void
    drover_health_actor (zsock_t *pipe, void *args);

#ifdef __cplusplus
}
#endif

#endif
