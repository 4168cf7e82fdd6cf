/*  =========================================================================
    drover_gone - workers that went (lost, or left), kept listed for a while

    So that an operator sees what happened to a worker after it went (as
    Slurm's sinfo -R does), schedq keeps a row for each worker that went:
    LOST or LEFT, since when, why, and what it offered. A row lasts keep
    msec, and at most max rows are kept (the oldest go first); a worker that
    comes back replaces its row. A plain class called with `now` (msec since
    the epoch): no threads, no I/O, no clock.
    =========================================================================
*/

#ifndef DROVER_GONE_H_INCLUDED
#define DROVER_GONE_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_gone_t drover_gone_t;

//  A worker that went, as WORKER TABLE shows it; pointers are borrowed
//  and valid until the class next changes
typedef struct {
    const char *id;             //  worker id
    int state;                  //  drover_worker_state_t: LOST or LEFT
    uint64_t since;             //  when it went, msec since the epoch
    const char *why;            //  why it went: "silent", "left", "restarted"...
    uint32_t procs;             //  procs it offered
    uint64_t mem;               //  memory it offered, bytes
    const char *labels;         //  its labels, "k=v" joined by "\n", or ""
} drover_gone_row_t;

//  Create an empty list: rows last keep msec, at most max of them
drover_gone_t *
    drover_gone_new (uint64_t keep, size_t max);

//  Destroy the list; harmless on NULL
void
    drover_gone_destroy (drover_gone_t **self_p);

//  Change how long rows last (msec) and how many are kept; the oldest past
//  max go at once
void
    drover_gone_set_limits (drover_gone_t *self, uint64_t keep, size_t max);

//  Record that a worker went at now (replacing a row it had); state is
//  drover_worker_state_t LOST or LEFT, why and labels may be NULL
void
    drover_gone_add (drover_gone_t *self, const char *id, int state, const char *why,
                     uint64_t now, uint32_t procs, uint64_t mem, const char *labels);

//  Forget a worker's row (it came back). Returns true if it had one.
bool
    drover_gone_remove (drover_gone_t *self, const char *id);

//  Drop the rows older than keep at now. Returns how many went.
size_t
    drover_gone_expire (drover_gone_t *self, uint64_t now);

//  Return the row of a worker, or NULL
const drover_gone_row_t *
    drover_gone_lookup (drover_gone_t *self, const char *id);

//  Return how many rows are kept
size_t
    drover_gone_size (drover_gone_t *self);

//  Return the oldest row, or NULL; then iterate with drover_gone_next.
//  Changing the list ends the iteration.
const drover_gone_row_t *
    drover_gone_first (drover_gone_t *self);

//  Return the next row, or NULL at the end
const drover_gone_row_t *
    drover_gone_next (drover_gone_t *self);

#ifdef __cplusplus
}
#endif

#endif
