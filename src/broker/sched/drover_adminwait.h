/*  =========================================================================
    drover_adminwait - WORKER ADMIN answers held until the worker's lease
    is back

    A hold or drain of a worker schedq has lent to assign takes effect in
    schedq at once, but assign may still place a task on the lease until
    it reads the REVOKE on the link. An OK sent meanwhile would let the
    operator's next submit land on the held worker (the submit reaches
    assign by another path than the REVOKE). So the OK waits here until
    assign says RETURN for that lease: by then it places nothing there.
    A plain list: holds are rare and few.
    =========================================================================
*/

#ifndef DROVER_ADMINWAIT_H_INCLUDED
#define DROVER_ADMINWAIT_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_adminwait_t drover_adminwait_t;

//  Create an empty set
drover_adminwait_t *
    drover_adminwait_new (void);

//  Destroy it, and the answers that still wait; harmless on NULL
void
    drover_adminwait_destroy (drover_adminwait_t **self_p);

//  Hold the OK (with text) to a WORKER ADMIN from route (copied), seq,
//  until drover_adminwait_answer for worker
void
    drover_adminwait_add (drover_adminwait_t *self, const char *worker, zframe_t *route,
                          uint32_t seq, const char *text);

//  How an OK held for a worker is said, when its lease is back
typedef void (drover_adminwait_fn) (void *arg, const char *worker, zframe_t *route,
                                    uint32_t seq, const char *text);

//  Say every OK held for worker through answer (with arg); returns how many
size_t
    drover_adminwait_answer (drover_adminwait_t *self, const char *worker,
                             drover_adminwait_fn *answer, void *arg);

//  Return how many answers wait
size_t
    drover_adminwait_size (drover_adminwait_t *self);

#ifdef __cplusplus
}
#endif

#endif
