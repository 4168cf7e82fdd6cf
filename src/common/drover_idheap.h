/*  =========================================================================
    drover_idheap - a binary heap of drover_slab handles, ordered by a
    comparison of their records

    Each record keeps its own index in the heap (a uint32_t at a given
    offset, DROVER_IDHEAP_NOWHERE when it is in none), so that a removal
    from the middle or a reorder after a key changed costs O(log n). The
    heap holds 4 bytes per element. A plain class: no threads, no I/O.
    =========================================================================
*/

#ifndef DROVER_IDHEAP_H_INCLUDED
#define DROVER_IDHEAP_H_INCLUDED

#include <czmq.h>
#include "drover_slab.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_idheap_t drover_idheap_t;

//  The index a record holds while it is in no heap
#define DROVER_IDHEAP_NOWHERE   UINT32_MAX

//  Return true if record a must come before record b
typedef bool (drover_idheap_less_fn) (const void *a, const void *b);

//  Create an empty heap over the records of pool (borrowed; it must
//  outlive the heap), ordered by less; offset is where a record keeps its
//  uint32_t index
drover_idheap_t *
    drover_idheap_new (drover_slab_t *pool, drover_idheap_less_fn *less, size_t offset);

//  Destroy the heap (not the records); harmless on NULL
void
    drover_idheap_destroy (drover_idheap_t **self_p);

//  Add a record that is in no heap
void
    drover_idheap_push (drover_idheap_t *self, uint32_t handle);

//  Remove a record from wherever it is in the heap; its index becomes
//  DROVER_IDHEAP_NOWHERE
void
    drover_idheap_remove (drover_idheap_t *self, uint32_t handle);

//  Restore the order around a record in the heap whose key changed
void
    drover_idheap_fix (drover_idheap_t *self, uint32_t handle);

//  Return the first record's handle, or 0 if the heap is empty
uint32_t
    drover_idheap_top (drover_idheap_t *self);

//  Return the handle at an index (< size), in no particular order
uint32_t
    drover_idheap_at (drover_idheap_t *self, size_t index);

//  Return how many records are in the heap
size_t
    drover_idheap_size (drover_idheap_t *self);

#ifdef __cplusplus
}
#endif

#endif
