/*  =========================================================================
    drover_clientids - clients' ROUTER routing ids, one copy per client,
    shared by reference count among that client's waiters

    Entries live in one array, indexed by reference - 1, so that resolving
    a reference is one array access. Free entries are kept on a stack of
    indexes, lowest on top, so a fresh array is used from its start. The
    index from route to reference keys a zhashx on the route in hex (the
    route is binary and zhashx keys are strings).
    =========================================================================
*/

#include "drover_clientids.h"

//  A client's routing id and how many waiters use it
typedef struct {
    uint32_t refs;              //  references held; 0 = free entry
    uint32_t size;              //  bytes in route
    byte route [DROVER_CLIENTIDS_ROUTE_MAX + 1];   //  ROUTER routing id
} s_route_t;

struct _drover_clientids_t {
    s_route_t *routes;          //  entries, by reference - 1
    uint32_t routes_size;       //  entries allocated in routes
    uint32_t *free_routes;      //  indexes of free entries in routes
    uint32_t nfree_routes;      //  entries in free_routes
    zhashx_t *index;            //  route in hex -> reference
};

//  Create an empty registry
drover_clientids_t *
drover_clientids_new (void)
{
    drover_clientids_t *self = (drover_clientids_t *) zmalloc (sizeof (drover_clientids_t));
    self->index = zhashx_new ();
    return self;
}

//  Destroy the registry; harmless on NULL or when called twice
void
drover_clientids_destroy (drover_clientids_t **self_p)
{
    assert (self_p);
    drover_clientids_t *self = *self_p;
    if (!self)
        return;
    zhashx_destroy (&self->index);
    free (self->routes);
    free (self->free_routes);
    free (self);
    *self_p = NULL;
}

//  Format a route as hex: its key in the index (key holds 511 bytes)
static void
s_route_key (const byte *route, size_t size, char *key)
{
    static const char hex [] = "0123456789abcdef";
    for (size_t index = 0; index < size; index++) {
        key [2 * index] = hex [route [index] >> 4];
        key [2 * index + 1] = hex [route [index] & 15];
    }
    key [2 * size] = 0;
}

//  Return the reference held on a route, or 0 if nobody holds one
uint32_t
drover_clientids_find (drover_clientids_t *self, const byte *route, size_t size)
{
    assert (self && route);
    assert (size <= DROVER_CLIENTIDS_ROUTE_MAX);
    char key [2 * DROVER_CLIENTIDS_ROUTE_MAX + 1];
    s_route_key (route, size, key);
    return (uint32_t) (uintptr_t) zhashx_lookup (self->index, key);
}

//  Double the entries, pushing the new ones on the free stack lowest on top
static void
s_grow (drover_clientids_t *self)
{
    uint32_t old_size = self->routes_size;
    self->routes_size = old_size? old_size * 2: 16;
    self->routes = (s_route_t *) realloc (self->routes,
                                          self->routes_size * sizeof (s_route_t));
    self->free_routes = (uint32_t *) realloc (self->free_routes,
                                              self->routes_size * sizeof (uint32_t));
    assert (self->routes && self->free_routes);
    for (uint32_t index = self->routes_size; index > old_size; index--)
        self->free_routes [self->nfree_routes++] = index - 1;
}

//  Take a reference on a route, adding it if new; never returns 0
uint32_t
drover_clientids_ref (drover_clientids_t *self, const byte *route, size_t size)
{
    assert (self && route);
    assert (size >= 1 && size <= DROVER_CLIENTIDS_ROUTE_MAX);
    uint32_t ref = drover_clientids_find (self, route, size);
    if (!ref) {
        if (self->nfree_routes == 0)
            s_grow (self);
        uint32_t index = self->free_routes [--self->nfree_routes];
        s_route_t *entry = &self->routes [index];
        entry->refs = 0;
        entry->size = (uint32_t) size;
        memcpy (entry->route, route, size);
        char key [2 * DROVER_CLIENTIDS_ROUTE_MAX + 1];
        s_route_key (route, size, key);
        zhashx_insert (self->index, key, (void *) (uintptr_t) (index + 1));
        ref = index + 1;
    }
    self->routes [ref - 1].refs++;
    return ref;
}

//  Drop a reference, forgetting the route with its last one
void
drover_clientids_unref (drover_clientids_t *self, uint32_t ref)
{
    assert (self);
    assert (ref >= 1 && ref <= self->routes_size);
    s_route_t *entry = &self->routes [ref - 1];
    assert (entry->refs);
    if (--entry->refs == 0) {
        char key [2 * DROVER_CLIENTIDS_ROUTE_MAX + 1];
        s_route_key (entry->route, entry->size, key);
        zhashx_delete (self->index, key);
        self->free_routes [self->nfree_routes++] = ref - 1;
    }
}

//  Return the route bytes behind a held reference and their length
const byte *
drover_clientids_route (drover_clientids_t *self, uint32_t ref, size_t *size_p)
{
    assert (self && size_p);
    assert (ref >= 1 && ref <= self->routes_size);
    s_route_t *entry = &self->routes [ref - 1];
    assert (entry->refs);
    *size_p = entry->size;
    return entry->route;
}

//  Return how many references are held on a route (0 if free)
uint32_t
drover_clientids_refs (drover_clientids_t *self, uint32_t ref)
{
    assert (self);
    assert (ref >= 1 && ref <= self->routes_size);
    return self->routes [ref - 1].refs;
}

//  Return how many distinct routes are held
size_t
drover_clientids_size (drover_clientids_t *self)
{
    assert (self);
    return self->routes_size - self->nfree_routes;
}
