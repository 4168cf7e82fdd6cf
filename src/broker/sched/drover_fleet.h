/*  =========================================================================
    drover_fleet - the scheduler's view of the connected workers, as one
    frame: for each, what it offers, what is taken, its labels and whether
    it takes new work (and why not)

    The reconciler asks schedq for it (FLEET) at the start of each term and
    for each plan: it places replicas with it. schedq builds one with an
    add per connected worker (O(workers)) and says FLEET with it; the
    reconciler decodes it into the array drover_reconciler_set_fleet takes.
    The frame is native layout: it never leaves the process. A plain class:
    no threads, no I/O.
    =========================================================================
*/

#ifndef DROVER_FLEET_H_INCLUDED
#define DROVER_FLEET_H_INCLUDED

#include <czmq.h>
#include "drover_msg.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_fleet_t drover_fleet_t;

//  Why a worker takes no new work (0: it does)
typedef enum {
    DROVER_FLEET_USABLE     = 0,    //  takes new work
    DROVER_FLEET_HELD       = 1,    //  admin HOLD: keeps what runs, takes nothing new
    DROVER_FLEET_DRAINING   = 2,    //  admin DRAIN (or retired by the pool): what runs
                                    //  there should move away
    DROVER_FLEET_PROBATION  = 3,    //  on probation: keeps what runs, nothing new for now
    DROVER_FLEET_LOW_DISK   = 4     //  free disk under the floor: keeps what runs
} drover_fleet_state_t;

//  One worker; pointers borrowed from the fleet until it is destroyed
typedef struct {
    const char *id;             //  worker id
    uint32_t procs;             //  procs it offers
    uint64_t mem;               //  memory it offers, bytes
    uint32_t procs_used;        //  procs taken by what is assigned there (leases count
                                //  as free: a lease is called back when anything waits)
    uint64_t mem_used;          //  memory taken, bytes
    const char *labels;         //  its labels, "k=v" joined by "\n", "" none
    drover_fleet_state_t state; //  whether it takes new work
    uint32_t tasks;             //  tasks assigned there now
} drover_fleet_worker_t;

//  Create an empty fleet
drover_fleet_t *
    drover_fleet_new (void);

//  Destroy a fleet; harmless on NULL
void
    drover_fleet_destroy (drover_fleet_t **self_p);

//  Add a worker (every string copied)
void
    drover_fleet_add (drover_fleet_t *self, const drover_fleet_worker_t *worker);

//  Encode the fleet as one frame (caller owns it)
zframe_t *
    drover_fleet_encode (drover_fleet_t *self);

//  Decode a frame encode made. Returns a fleet, or NULL if the frame is
//  not one (our bug: logged).
drover_fleet_t *
    drover_fleet_decode (zframe_t *frame);

//  The fleet's workers in the order added, borrowed until it is destroyed
const drover_fleet_worker_t *
    drover_fleet_workers (drover_fleet_t *self, size_t *count_p);

//  Return true if a worker has every label of labels ("k=v" joined by
//  "\n", "" or NULL none), byte for byte (PROTOCOL.md §7.10)
bool
    drover_fleet_has_labels (const drover_fleet_worker_t *worker, const char *labels);

#ifdef __cplusplus
}
#endif

#endif
