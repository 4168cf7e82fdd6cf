/*  =========================================================================
    drover_taskhistory - the past attempts of one task: those that ended
    without ending the task (a retry, a lost worker, an offer not
    acknowledged, a machine failure), the latest DROVER_ATTEMPTS_MAX kept

    The task table holds one only for a task that had such an attempt (the
    common task has one attempt, its current or last one, which its record
    and result describe), found by the task's id. A plain record: no
    threads, no I/O.
    =========================================================================
*/

#ifndef DROVER_TASKHISTORY_H_INCLUDED
#define DROVER_TASKHISTORY_H_INCLUDED

#include <czmq.h>
#include "drover_taskinfo.h"

#ifdef __cplusplus
extern "C" {
#endif

//  The past attempts of a task
typedef struct {
    uint64_t id;                //  task id (first: drover_idhash finds it by it)
    uint32_t count;             //  attempts held, at most DROVER_ATTEMPTS_MAX
    uint32_t dropped;           //  earlier attempts no longer held
    drover_attempt_t *attempts; //  oldest first, count of them, owned
} drover_taskhistory_t;

//  Create an empty history for task id
drover_taskhistory_t *
    drover_taskhistory_new (uint64_t id);

//  Destroy a history; harmless on NULL
void
    drover_taskhistory_destroy (drover_taskhistory_t **self_p);

//  Add an attempt that ended (copied), dropping the oldest past the bound
void
    drover_taskhistory_add (drover_taskhistory_t *self, const drover_attempt_t *attempt);

//  Encode the attempts and the dropped count (the state's history column)
//  into a new buffer the caller frees
byte *
    drover_taskhistory_encode (const drover_taskhistory_t *self, size_t *size_p);

//  Create a history for task id from what encode made; NULL if malformed
//  or empty
drover_taskhistory_t *
    drover_taskhistory_decode (uint64_t id, const byte *data, size_t size);

#ifdef __cplusplus
}
#endif

#endif
