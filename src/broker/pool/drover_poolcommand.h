/*  =========================================================================
    drover_poolcommand - the pool's command driver: the operator's
    executable run as PROGRAM create|list|tag|destroy, each a child
    process (the protocol is in drover_pooldriver.h)
    =========================================================================
*/

#ifndef DROVER_POOLCOMMAND_H_INCLUDED
#define DROVER_POOLCOMMAND_H_INCLUDED

#include "drover_poolreport.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_poolcommand_t drover_poolcommand_t;

//  Create the driver running program (an executable file) for pool, with
//  workers connecting to broker; types are copied. NULL with *error_p if
//  program is not an executable file.
drover_poolcommand_t *
    drover_poolcommand_new (const char *program, const char *pool, const char *broker,
                            const drover_pooltype_t *types, size_t ntypes,
                            uint32_t op_timeout, char **error_p);

//  Destroy the driver: SIGKILL every running command's process group and
//  reap it; harmless on NULL
void
    drover_poolcommand_destroy (drover_poolcommand_t **self_p);

//  Start an operation (type: CREATE's; NULL otherwise); a command that
//  cannot start is a failure appended to done at once
void
    drover_poolcommand_start (drover_poolcommand_t *self, drover_poolaction_kind_t kind,
                              const char *instance, const drover_pooltype_t *type,
                              drover_idle_behaviour_t behaviour, zlistx_t *done);

//  Return how many commands run
size_t
    drover_poolcommand_running (drover_poolcommand_t *self);

//  Return how many items fill needs at most
size_t
    drover_poolcommand_items (drover_poolcommand_t *self);

//  Fill items with the fds to watch; returns how many
size_t
    drover_poolcommand_fill (drover_poolcommand_t *self, zmq_pollitem_t *items, size_t max);

//  Read the filled items, reap commands that exited, kill those past
//  op-timeout, appending a report (drover_poolreport_t) to done for each
//  finished operation
void
    drover_poolcommand_process (drover_poolcommand_t *self, zmq_pollitem_t *items,
                                size_t count, uint64_t now, zlistx_t *done);

//  Return the next op-timeout (monotonic msec), UINT64_MAX if none
uint64_t
    drover_poolcommand_next_deadline (drover_poolcommand_t *self);

#ifdef __cplusplus
}
#endif

#endif
