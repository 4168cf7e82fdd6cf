/*  =========================================================================
    drover_probation_actor - the probation actor: puts on probation the workers whose sends fail

    Vocabulary in actors/ACTORS.md (probation) and at the top of the .c.
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
