/*  =========================================================================
    drover_clientids - clients' ROUTER routing ids, one copy per client,
    shared by reference count among that client's waiters

    A waiter holds a small reference (a uint32_t, never 0) instead of its
    own copy of up to 255 route bytes, so a client waiting on many tasks
    costs one route. Entries sit in a growable array reused through a free
    list; an index hashed on the route's hex form finds an existing entry.
    A plain class: no threads, no I/O.
    =========================================================================
*/

#ifndef DROVER_CLIENTIDS_H_INCLUDED
#define DROVER_CLIENTIDS_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_clientids_t drover_clientids_t;

#define DROVER_CLIENTIDS_ROUTE_MAX     255     //  bytes in a routing id, at most

//  Create an empty registry
drover_clientids_t *
    drover_clientids_new (void);

//  Destroy the registry; harmless on NULL or when called twice
void
    drover_clientids_destroy (drover_clientids_t **self_p);

//  Return the reference held on a route, or 0 if nobody holds one
uint32_t
    drover_clientids_find (drover_clientids_t *self, const byte *route, size_t size);

//  Take a reference on a route (1..255 bytes), adding it if new; returns
//  the reference, never 0
uint32_t
    drover_clientids_ref (drover_clientids_t *self, const byte *route, size_t size);

//  Drop a reference; the route is forgotten with its last one
void
    drover_clientids_unref (drover_clientids_t *self, uint32_t ref);

//  Return the route bytes behind a held reference (borrowed, valid until
//  its last unref) and set *size_p to their length
const byte *
    drover_clientids_route (drover_clientids_t *self, uint32_t ref, size_t *size_p);

//  Return how many references are held on a route
uint32_t
    drover_clientids_refs (drover_clientids_t *self, uint32_t ref);

//  Return how many distinct routes are held
size_t
    drover_clientids_size (drover_clientids_t *self);

#ifdef __cplusplus
}
#endif

#endif
