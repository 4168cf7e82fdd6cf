/*  =========================================================================
    drover_peerlevels - the protocol level each peer connection speaks, and
    fitting what the broker sends to it (PROTOCOL.md §12)

    Routes of a level above 1 are kept in a hash by their hex form, with
    a ring of the same keys in the order they came, so the oldest is
    forgotten first past max. Every send looks its route up, so a small
    direct-mapped cache of short routes (libzmq makes 5-byte ones) answers
    most lookups without hex or hashing.
    =========================================================================
*/

#include "drover_peerlevels.h"

#define S_CACHE_SIZE    256         //  entries of the lookup cache (a power of 2)
#define S_CACHE_ROUTE   8           //  routes of at most this many bytes are cached

//  One cached lookup
typedef struct {
    uint8_t size;                   //  route bytes, 0 for an empty entry
    uint8_t level;                  //  the route's level
    byte route [S_CACHE_ROUTE];     //  the route
} s_cached_t;

struct _drover_peerlevels_t {
    zhashx_t *levels;               //  route hex -> level (uintptr_t), above 1 only
    char **ring;                    //  the same keys in the order they came, owned
    size_t max;                     //  routes kept at most
    size_t oldest;                  //  ring index of the oldest key
    s_cached_t cache [S_CACHE_SIZE];    //  recent lookups of short routes
    uint64_t fitted;                //  messages re-encoded for an older peer
    uint64_t unsent;                //  messages an older peer's level has not
};

//  Create a table that remembers up to max routes of a level above 1
drover_peerlevels_t *
drover_peerlevels_new (size_t max)
{
    assert (max > 0);
    drover_peerlevels_t *self = (drover_peerlevels_t *) zmalloc (sizeof (drover_peerlevels_t));
    self->levels = zhashx_new ();
    self->ring = (char **) zmalloc (max * sizeof (char *));
    self->max = max;
    return self;
}

//  Destroy; harmless on NULL or when called twice
void
drover_peerlevels_destroy (drover_peerlevels_t **self_p)
{
    assert (self_p);
    drover_peerlevels_t *self = *self_p;
    if (!self)
        return;
    for (size_t index = 0; index < self->max; index++)
        free (self->ring [index]);
    free (self->ring);
    zhashx_destroy (&self->levels);
    free (self);
    *self_p = NULL;
}

//  Write a route's hex form into key (2 * size + 1 bytes)
static void
s_key (const byte *route, size_t size, char *key)
{
    static const char digits [] = "0123456789abcdef";
    for (size_t index = 0; index < size; index++) {
        key [2 * index] = digits [route [index] >> 4];
        key [2 * index + 1] = digits [route [index] & 15];
    }
    key [2 * size] = 0;
}

//  Return the cache entry a short route maps to, or NULL for a long one
static s_cached_t *
s_cache_slot (drover_peerlevels_t *self, const byte *route, size_t size)
{
    if (size == 0 || size > S_CACHE_ROUTE)
        return NULL;
    uint32_t hash = 2166136261u;                //  FNV-1a
    for (size_t index = 0; index < size; index++)
        hash = (hash ^ route [index]) * 16777619u;
    return &self->cache [hash & (S_CACHE_SIZE - 1)];
}

//  Look a route up in the hash: its level, 1 if it has none
static int
s_lookup (drover_peerlevels_t *self, const byte *route, size_t size)
{
    if (zhashx_size (self->levels) == 0)
        return 1;
    char key [2 * 255 + 1];
    s_key (route, size < 255? size: 255, key);
    return (int) (uintptr_t) zhashx_lookup (self->levels, key) ?: 1;
}

//  Return the level of the peer at route: 1 if nothing showed one
int
drover_peerlevels_level (drover_peerlevels_t *self, const byte *route, size_t size)
{
    assert (self);
    s_cached_t *cached = s_cache_slot (self, route, size);
    if (cached && cached->size == size && memcmp (cached->route, route, size) == 0)
        return cached->level;
    int level = s_lookup (self, route, size);
    if (cached) {
        cached->size = (uint8_t) size;
        cached->level = (uint8_t) level;
        memcpy (cached->route, route, size);
    }
    return level;
}

//  Keep level for route: in the hash if above 1 (forgetting the oldest
//  route when full), and in the cache
static void
s_keep (drover_peerlevels_t *self, const byte *route, size_t size, int level)
{
    char key [2 * 255 + 1];
    s_key (route, size < 255? size: 255, key);
    bool known = zhashx_lookup (self->levels, key) != NULL;
    if (level <= 1)
        zhashx_delete (self->levels, key);      //  its ring key goes in its turn
    else
    if (known)
        zhashx_update (self->levels, key, (void *) (uintptr_t) level);
    else {
        char *oldest = self->ring [self->oldest];
        if (oldest) {
            zhashx_delete (self->levels, oldest);
            memset (self->cache, 0, sizeof self->cache);   //  it may be cached
            free (oldest);
        }
        self->ring [self->oldest] = strdup (key);
        self->oldest = (self->oldest + 1) % self->max;
        zhashx_insert (self->levels, key, (void *) (uintptr_t) level);
    }
    s_cached_t *cached = s_cache_slot (self, route, size);
    if (cached) {
        cached->size = (uint8_t) size;
        cached->level = (uint8_t) level;
        memcpy (cached->route, route, size);
    }
}

//  The peer at route sent msg: remember the level it shows
void
drover_peerlevels_heard (drover_peerlevels_t *self, const byte *route, size_t size,
                         const drover_msg_t *msg)
{
    assert (self);
    assert (msg);
    bool hello = msg->id == DROVER_MSG_WORKER_HELLO || msg->id == DROVER_MSG_CLIENT_HELLO;
    //  A worker's level is the one its HELLO declares, never one its fields
    //  suggest: an agent of the releases between 0.1 and 0.2 sends a state
    //  id in HELLO yet takes no WELCOME with a level in it
    int shown = msg->id == DROVER_MSG_WORKER_HELLO? (msg->level? msg->level: 1)
                                                 : drover_msg_level (msg);
    if (shown > DROVER_MSG_LEVEL)
        shown = DROVER_MSG_LEVEL;       //  a newer peer: we speak ours to it
    int known = drover_peerlevels_level (self, route, size);
    if (shown != known && (hello || shown > known))
        s_keep (self, route, size, shown);
}

//  Fit an encoded message to the peer at route; 0 to send it, -1 if the
//  peer's level has no such message (*payload_p is then NULL)
int
drover_peerlevels_fit (drover_peerlevels_t *self, const byte *route, size_t size,
                       zframe_t **payload_p)
{
    assert (self);
    assert (payload_p && *payload_p);
    int level = drover_peerlevels_level (self, route, size);
    if (level >= DROVER_MSG_LEVEL)
        return 0;
    if (drover_msg_fit (payload_p, level) == 0) {
        self->fitted++;
        return 0;
    }
    //  A REDIRECT has no older equal: an older peer is told to retry, and
    //  where the leader is, in words (it goes there if it was given it)
    drover_msg_t *msg = drover_msg_new (0);
    zframe_t *payload = *payload_p;
    int rc = -1;
    if (drover_msg_decode (msg, zframe_data (payload), zframe_size (payload)) == 0
    &&  msg->id == DROVER_MSG_REDIRECT) {
        drover_msg_t *error = drover_msg_new (DROVER_MSG_ERROR);
        error->seq = msg->seq;
        error->code = DROVER_CODE_RETRY;
        char *reason = zsys_sprintf ("this broker does not serve: the leader is %s at %s",
                                     *msg->leader_name? msg->leader_name: "unknown",
                                     *msg->leader? msg->leader: "an unknown endpoint");
        drover_msg_set_reason (error, reason);
        zstr_free (&reason);
        zframe_destroy (payload_p);
        *payload_p = drover_msg_encode_level (error, level);
        drover_msg_destroy (&error);
        rc = *payload_p? 0: -1;
    }
    drover_msg_destroy (&msg);
    if (rc == -1) {
        zframe_destroy (payload_p);
        self->unsent++;
    }
    else
        self->fitted++;
    return rc;
}

//  Return how many routes of a level above 1 are remembered
size_t
drover_peerlevels_size (drover_peerlevels_t *self)
{
    assert (self);
    return zhashx_size (self->levels);
}

//  Return how many messages were re-encoded for an older peer
uint64_t
drover_peerlevels_fitted (drover_peerlevels_t *self)
{
    assert (self);
    return self->fitted;
}

//  Return how many messages an older peer's level has not, not sent
uint64_t
drover_peerlevels_unsent (drover_peerlevels_t *self)
{
    assert (self);
    return self->unsent;
}

//  Build the CLIENT WELCOME that answers a CLIENT HELLO
drover_msg_t *
drover_peerlevels_welcome (const drover_msg_t *hello, const char *name)
{
    assert (hello);
    drover_msg_t *welcome = drover_msg_new (DROVER_MSG_CLIENT_WELCOME);
    welcome->seq = hello->seq;
    welcome->level = DROVER_MSG_LEVEL;
    snprintf (welcome->release, sizeof welcome->release, "%s", DROVER_RELEASE);
    if (name && drover_id_valid (name))
        snprintf (welcome->leader_name, sizeof welcome->leader_name, "%s", name);
    return welcome;
}
