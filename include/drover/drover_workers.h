/*  =========================================================================
    drover_workers - a listing of workers: one row per worker

    What drover_client_workers returns: each worker the broker has now,
    and those that went a while ago (state LOST or LEFT), with what it
    offers, what its tasks take, its last heartbeat's figures and the
    operator's setting. A row's strings are borrowed from the listing and
    live as long as it.
    =========================================================================
*/

#ifndef DROVER_WORKERS_H_INCLUDED
#define DROVER_WORKERS_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_workers_t drover_workers_t;

//  One worker of a listing
typedef struct {
    const char *id;                 //  worker id
    int state;                      //  drover_worker_state_t: UP, or went (LOST, LEFT)
    int health;                     //  drover_worker_health_t
    int admin;                      //  drover_admin_t: RUN, HOLD or DRAIN
    uint32_t procs;                 //  procs it offers
    uint32_t procs_used;            //  procs its tasks take
    uint64_t mem;                   //  memory it offers, bytes
    uint64_t mem_used;              //  memory its tasks take, bytes
    uint32_t tasks;                 //  tasks assigned to it now
    size_t nlabels;                 //  entries in labels
    const char *const *labels;      //  its "key=value" labels
    double load [3];                //  1, 5, 15 minute load averages (last heartbeat)
    uint64_t machine_mem;           //  the machine's memory, bytes (last heartbeat)
    uint64_t machine_mem_used;      //  of which in use, bytes
    uint64_t disk_used;             //  bytes used of its work directory's filesystem
    uint64_t disk_total;            //  bytes of that filesystem
    uint32_t running;               //  tasks it said it runs (last heartbeat)
    uint64_t reserved;              //  queued task it is kept for, 0 none
    uint64_t since;                 //  msec since the epoch: registered (UP) or went, 0 unknown
    const char *why;                //  why it went ("silent", "left"...), "" none
    const char *admin_reason;       //  the operator's reason for its admin setting, "" none
    uint64_t admin_since;           //  msec since the epoch the setting was made, 0 unknown
    uint64_t probation_until;       //  msec since the epoch its probation ends, 0 none
    const char *release;            //  the drover release it runs, "" unknown
    const char *devices;            //  its counted devices, "gpu=4,fpga=1", "" none
    const char *devices_used;       //  of them, held by its tasks now, "gpu=1", "" none
} drover_worker_entry_t;

//  Destroy a listing; harmless on NULL
void
    drover_workers_destroy (drover_workers_t **self_p);

//  Return the number of rows
size_t
    drover_workers_size (const drover_workers_t *self);

//  Return row index (0 .. size - 1), borrowed; NULL past the end
const drover_worker_entry_t *
    drover_workers_row (const drover_workers_t *self, size_t index);

#ifdef __cplusplus
}
#endif

#endif
