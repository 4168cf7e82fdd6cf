/*  =========================================================================
    drover_reconciler_actor - the reconciler actor: services kept at their
    desired count, term by term (drover_reconciler decides)

    Always started by the broker's main, after the store. See
    actors/ACTORS.md, "reconciler".
    =========================================================================
*/

#ifndef DROVER_RECONCILER_ACTOR_H_INCLUDED
#define DROVER_RECONCILER_ACTOR_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

//  The actor; args is unused (CONFIGURE brings the settings)
void
    drover_reconciler_actor (zsock_t *pipe, void *args);

#ifdef __cplusplus
}
#endif

#endif
