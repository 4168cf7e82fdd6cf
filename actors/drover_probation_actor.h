/*  =========================================================================
    drover_probation_actor - the probation actor: puts on probation the workers whose sends fail

    What it hears and says, and how: actors/ACTORS.md, "probation".
    =========================================================================
*/

#ifndef DROVER_PROBATION_ACTOR_H_INCLUDED
#define DROVER_PROBATION_ACTOR_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

//  The actor: zactor_new (drover_probation_actor, NULL)
void
    drover_probation_actor (zsock_t *pipe, void *args);

#ifdef __cplusplus
}
#endif

#endif
