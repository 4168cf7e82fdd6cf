/*  =========================================================================
    drover_assign_actor - the assign actor: owns the task table (every task's
    state, attempt, worker, result and waiters) and fences results by
    (task, attempt). What it hears and says, and how: actors/ACTORS.md,
    "assign".
    =========================================================================
*/

#ifndef DROVER_ASSIGN_ACTOR_H_INCLUDED
#define DROVER_ASSIGN_ACTOR_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

//  Run the assign actor; start it with zactor_new (drover_assign_actor, NULL),
//  or with the inproc endpoint (a string) schedq binds for their link (ACTORS.md)
void
    drover_assign_actor (zsock_t *pipe, void *args);

#ifdef __cplusplus
}
#endif

#endif
