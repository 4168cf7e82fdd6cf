/*  =========================================================================
    drover_poollocal - the pool's local driver: `drover worker` processes
    on this machine
    =========================================================================
*/

#ifndef DROVER_POOLLOCAL_H_INCLUDED
#define DROVER_POOLLOCAL_H_INCLUDED

#include "drover_poolreport.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_poollocal_t drover_poollocal_t;

//  Create the driver keeping its instances in dir (made if missing),
//  starting worker (a drover binary; "" or NULL: this program) for pool,
//  connecting to broker. NULL with *error_p if dir cannot be made.
drover_poollocal_t *
    drover_poollocal_new (const char *dir, const char *worker, const char *pool,
                          const char *broker, char **error_p);

//  Destroy the driver (its instances keep running); harmless on NULL
void
    drover_poollocal_destroy (drover_poollocal_t **self_p);

//  Return the directory the instances are kept in
const char *
    drover_poollocal_dir (drover_poollocal_t *self);

//  Carry out an operation at once, appending its report to done
void
    drover_poollocal_start (drover_poollocal_t *self, drover_poolaction_kind_t kind,
                            const char *instance, const drover_pooltype_t *type,
                            drover_idle_behaviour_t behaviour, zlistx_t *done);

//  Return how many items fill needs at most (the pidfds of the workers it
//  started, to reap them when they end)
size_t
    drover_poollocal_items (drover_poollocal_t *self);

//  Fill items with the fds to watch; returns how many
size_t
    drover_poollocal_fill (drover_poollocal_t *self, zmq_pollitem_t *items, size_t max);

//  Reap the workers that ended
void
    drover_poollocal_process (drover_poollocal_t *self, zmq_pollitem_t *items, size_t count);

#ifdef __cplusplus
}
#endif

#endif
