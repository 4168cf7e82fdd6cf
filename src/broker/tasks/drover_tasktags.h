/*  =========================================================================
    drover_tasktags - what assign knows of a task besides the task table:
    the service and slot of a replica, the affinity key of a batch task,
    and why a replica was told to stop

    Few tasks carry a tag, so the table's records stay as small as they
    are: a tag is kept from the task's submit (or its restore) until the
    task ends. assign reads it when the table says QUEUE (AFFINITY instead,
    never on a lease) and when a replica's task changes (REPLICA to the
    reconciler). A plain class: no threads, no I/O.
    =========================================================================
*/

#ifndef DROVER_TASKTAGS_H_INCLUDED
#define DROVER_TASKTAGS_H_INCLUDED

#include <czmq.h>
#include "drover_msg.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_tasktags_t drover_tasktags_t;

//  Called for each replica held
typedef void (drover_tasktags_replica_fn) (uint64_t task, const char *service, uint32_t slot,
                                           void *arg);

//  Create an empty set of tags
drover_tasktags_t *
    drover_tasktags_new (void);

//  Destroy the tags; harmless on NULL
void
    drover_tasktags_destroy (drover_tasktags_t **self_p);

//  Tag a task from its submit: its service and slot (if it names a
//  service), its affinity key (if it has one); nothing if neither. A task
//  tagged already gets the new tag.
void
    drover_tasktags_add (drover_tasktags_t *self, uint64_t task, const drover_msg_t *submit);

//  Forget a task's tag (it ended, or was forgotten); harmless if it has none
void
    drover_tasktags_remove (drover_tasktags_t *self, uint64_t task);

//  Return a replica's service (borrowed) and set *slot_p, or NULL if the
//  task is not a replica
const char *
    drover_tasktags_service (drover_tasktags_t *self, uint64_t task, uint32_t *slot_p);

//  Return a task's affinity key (borrowed), or NULL if it has none
const char *
    drover_tasktags_affinity (drover_tasktags_t *self, uint64_t task);

//  Remember why a replica was told to stop. Returns 0, or -1 if the task
//  is not a replica.
int
    drover_tasktags_set_stop (drover_tasktags_t *self, uint64_t task, const char *reason);

//  Return why a replica was told to stop (borrowed), or NULL if it was not
const char *
    drover_tasktags_stop (drover_tasktags_t *self, uint64_t task);

//  Call fn for each replica held, in no order
void
    drover_tasktags_each_replica (drover_tasktags_t *self, drover_tasktags_replica_fn *fn,
                                  void *arg);

//  Return how many tasks are tagged
size_t
    drover_tasktags_size (drover_tasktags_t *self);

#ifdef __cplusplus
}
#endif

#endif
