/*  =========================================================================
    drover_idhash - items found by a uint64 id: an open-addressing hash of
    pointers (linear probing, backward-shift deletion), Fibonacci hashed
    for sequential ids

    Made for a million tasks: 8 bytes per slot, no node per entry, load
    kept under 70%. Every item begins with its uint64_t id, which must not
    change while the item is held. The hash borrows its items: it never
    frees them. A plain class: no threads, no I/O.
    =========================================================================
*/

#ifndef DROVER_IDHASH_H_INCLUDED
#define DROVER_IDHASH_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_idhash_t drover_idhash_t;

//  Create an empty hash
drover_idhash_t *
    drover_idhash_new (void);

//  Destroy the hash (not the items it holds); harmless on NULL
void
    drover_idhash_destroy (drover_idhash_t **self_p);

//  Return the item with this id, or NULL
void *
    drover_idhash_lookup (drover_idhash_t *self, uint64_t id);

//  Add an item (beginning with its uint64_t id, not held yet), doubling
//  the slots past 70% load
void
    drover_idhash_insert (drover_idhash_t *self, void *item);

//  Start loading the slot where an id's lookup or insert begins, and
//  change nothing: a caller with many ids at hand (a batch) calls it a few
//  ids ahead, so that their cache misses overlap instead of queueing
void
    drover_idhash_prefetch (drover_idhash_t *self, uint64_t id);

//  Remove an item the hash holds
void
    drover_idhash_delete (drover_idhash_t *self, void *item);

//  Return how many items the hash holds
size_t
    drover_idhash_size (drover_idhash_t *self);

//  Return how many slots there are, for a scan with drover_idhash_slot
size_t
    drover_idhash_slots (drover_idhash_t *self);

//  Return the item in a slot (index < drover_idhash_slots), or NULL if
//  the slot is free; unordered
void *
    drover_idhash_slot (drover_idhash_t *self, size_t index);

//  Tell whether an item is wanted (for drover_idhash_newest)
typedef bool (drover_idhash_filter_fn) (const void *item, void *arg);

//  Fill items with up to limit held items that filter (called with arg)
//  wants, the newest (highest id) first; returns how many. A scan of
//  every slot: for listings, not for the hot path.
size_t
    drover_idhash_newest (drover_idhash_t *self, void **items, size_t limit,
                          drover_idhash_filter_fn *filter, void *arg);

//  Order two items: negative if a comes first (for drover_idhash_first)
typedef int (drover_idhash_order_fn) (const void *a, const void *b);

//  Fill items with up to limit held items that filter wants, the first in
//  order first; returns how many. A scan of every slot, like newest.
size_t
    drover_idhash_first (drover_idhash_t *self, void **items, size_t limit,
                         drover_idhash_filter_fn *filter, void *arg,
                         drover_idhash_order_fn *order);

#ifdef __cplusplus
}
#endif

#endif
