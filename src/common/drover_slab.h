/*  =========================================================================
    drover_slab - fixed-size records found by a uint64 key: a pool of
    records in one array, reached by a uint32 handle, and an open-addressing
    index from key to handle

    Made for a million small records (queued requests): no allocation per
    record, no per-entry node, 4 bytes of index per slot. Every record
    begins with its uint64_t key, which the pool sets and the caller must
    not change. Handles are never 0; a deleted record's handle is reused.
    Records move when the pool grows: a pointer from drover_slab_get or
    drover_slab_base is valid until the next insert; keep handles.
    A plain class: no threads, no I/O.
    =========================================================================
*/

#ifndef DROVER_SLAB_H_INCLUDED
#define DROVER_SLAB_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_slab_t drover_slab_t;

//  Create an empty pool of records of record_size bytes (>= 8, a multiple
//  of 8), each beginning with its uint64_t key
drover_slab_t *
    drover_slab_new (size_t record_size);

//  Destroy the pool and every record in it; harmless on NULL
void
    drover_slab_destroy (drover_slab_t **self_p);

//  Add a zeroed record with this key. Returns its handle, or 0 if a record
//  with the key is held already.
uint32_t
    drover_slab_insert (drover_slab_t *self, uint64_t key);

//  Return the handle of the record with this key, or 0
uint32_t
    drover_slab_find (drover_slab_t *self, uint64_t key);

//  Start loading the index slot where a key's find or insert begins, and
//  change nothing: a caller with many keys at hand (a batch) calls it a
//  few keys ahead, so that their cache misses overlap
void
    drover_slab_prefetch (drover_slab_t *self, uint64_t key);

//  Return the record behind a held handle; valid until the next insert
void *
    drover_slab_get (drover_slab_t *self, uint32_t handle);

//  Return the address record handle h is at minus h * record_size, so that
//  a hot loop reaches records without a call; valid until the next insert
void *
    drover_slab_base (drover_slab_t *self);

//  Delete the record behind a held handle
void
    drover_slab_delete (drover_slab_t *self, uint32_t handle);

//  Return how many records are held
size_t
    drover_slab_size (drover_slab_t *self);

//  Return the bytes of one record
size_t
    drover_slab_record_size (drover_slab_t *self);

//  Return the bytes the pool has allocated (records and index)
size_t
    drover_slab_footprint (drover_slab_t *self);

#ifdef __cplusplus
}
#endif

#endif
