/*  =========================================================================
    drover_demands - what requests demand besides procs, and which workers
    carry the labels they require: the scheduler's demands and label index

    A demand is the memory and the labels ("k=v" each) a request asks for,
    with whose it is (the owner's fair-share handle), its counted devices
    ("gpu=2", drover_devicelist) and its flags (preemptible): requests
    that differ in any of these are told apart, so the scheduler's groups
    split by owner and by device demand.
    Requests that ask for the same share one interned drover_demand_t,
    counted by reference; most ask for none. The last demand asked for is
    cached, so a run of alike requests costs a compare. The label index
    maps each label to the workers (by the caller's uint32 handle) that
    carry it, so a labelled request looks only at the holders of its
    rarest label. Part of drover_schedq, split out for size; a plain class:
    no threads, no I/O, no clock.
    =========================================================================
*/

#ifndef DROVER_DEMANDS_H_INCLUDED
#define DROVER_DEMANDS_H_INCLUDED

#include <czmq.h>
#include "drover_msg.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_demands_t drover_demands_t;

//  What a request demands besides procs; shared by all that demand the
//  same. Owned by drover_demands: callers read it and never write it; it
//  lives while they hold a reference.
typedef struct {
    char *key;                  //  "<mem hex>:<labels>", the key of the demands map
    const char *given;          //  labels as asked for, inside key
    uint64_t mem;               //  memory demanded, bytes, 0 = none
    char *label_text;           //  required labels, "\n" turned to NUL, or NULL
    char **labels;              //  pointers into label_text
    size_t nlabels;             //  entries in labels
    size_t refs;                //  references held (requests and the cache)
    uint32_t serial;            //  distinct among live demands, for group keys
    uint32_t owner;             //  the owner's handle (drover_fairshare), 0 none
    uint32_t flags;             //  DROVER_SUBMIT_* flags (PREEMPTIBLE)
    char *device_text;          //  devices demanded, canonical ("" none)
    drover_device_t *devices;   //  devices demanded, by name, or NULL
    size_t ndevices;            //  entries in devices
} drover_demand_t;

//  Whose a demand is and what it asks besides memory and labels
typedef struct {
    uint32_t owner;             //  the owner's handle (drover_fairshare), 0 none
    const char *devices;        //  devices, "gpu=2,fpga=1" (drover_devicelist), NULL / "" none
    uint32_t flags;             //  DROVER_SUBMIT_* flags
} drover_demand_tenant_t;

//  Create an empty set of demands and an empty label index
drover_demands_t *
    drover_demands_new (void);

//  Destroy the demands (references still held go with them) and the
//  label index; harmless on NULL
void
    drover_demands_destroy (drover_demands_t **self_p);

//  Return a reference to the demand for mem (bytes) and labels ("k=v"
//  joined by "\n", or "" / NULL), made if new
drover_demand_t *
    drover_demands_ref (drover_demands_t *self, uint64_t mem, const char *labels);

//  Return a reference to the demand for mem, labels and a tenant (NULL:
//  nobody's, no devices, no flags), made if new; NULL if the devices are
//  not a device list
drover_demand_t *
    drover_demands_ref_as (drover_demands_t *self, uint64_t mem, const char *labels,
                           const drover_demand_tenant_t *tenant);

//  Drop a reference to a demand, forgetting it with the last one
void
    drover_demands_unref (drover_demands_t *self, drover_demand_t *demand);

//  Return how many distinct demands are alive (the cached one and each
//  owner's plain one included)
size_t
    drover_demands_size (drover_demands_t *self);

//  Enter a worker (the caller's handle, not 0) among the holders of each
//  of its labels
void
    drover_demands_index (drover_demands_t *self, char *const *labels, size_t nlabels,
                          uint32_t handle);

//  Take a worker out of the holders of each of its labels
void
    drover_demands_unindex (drover_demands_t *self, char *const *labels, size_t nlabels,
                            uint32_t handle);

//  Return the workers (handles, in no order, borrowed until the index next
//  changes) that carry the demand's label fewest workers carry, setting
//  *count_p; NULL and 0 if some label has no holder (then no worker can
//  meet the demand) or the demand requires no label
const uint32_t *
    drover_demands_rarest (drover_demands_t *self, const drover_demand_t *demand,
                           size_t *count_p);

//  Split "k=v\nk=v" into a private copy and pointers into it (free both);
//  empty lines are skipped. Leaves both NULL when there are no labels.
void
    drover_labels_parse (const char *text, char **text_p, char ***labels_p, size_t *count_p);

//  Return true if labels (a worker's) include every label a demand
//  requires; inline: a pass calls it for each placement
static inline bool
drover_labels_match (char *const *labels, size_t nlabels, const drover_demand_t *demand)
{
    for (size_t wanted = 0; wanted < demand->nlabels; wanted++) {
        size_t have;
        for (have = 0; have < nlabels; have++)
            if (streq (labels [have], demand->labels [wanted]))
                break;
        if (have == nlabels)
            return false;
    }
    return true;
}

#ifdef __cplusplus
}
#endif

#endif
