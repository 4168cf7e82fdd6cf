/*  =========================================================================
    drover_endpoints - a peer's list of brokers, and where to talk next
    (see drover_endpoints.h)

    The list keeps its order; `position` is the list item last talked to
    (or, while the peer talks to a leader named by REDIRECT that is not in
    the list, the item it came from), so the next of the list is always
    position + 1. Dead marks are kept by endpoint text, list items and
    REDIRECT targets alike, and forgotten after DEAD_MEMORY.
    =========================================================================
*/

#include "drover_endpoints.h"

struct _drover_endpoints_t {
    char **items;               //  the list's endpoints, in order, owned
    char **keys;                //  each one's server key ("=KEY"), or NULL, owned
    size_t size;                //  items
    size_t position;            //  the list item last used
    char *current;              //  where to talk now (an item, or a leader), owned
    zhashx_t *dead;             //  endpoint -> int64_t *, msec it was found dead
    uint32_t hops;              //  moves since the current broker last served
    int backoff;                //  msec of the next backoff
    uint64_t moves;             //  moves ever
};


//  Split an item "ENDPOINT=KEY" at its last '=' into *key_p (the server
//  key, trimmed; NULL if none): only when what is before holds "://" and
//  what is after is not empty, so an endpoint is never cut in its scheme
static void
s_split_key (char *item, char **key_p)
{
    *key_p = NULL;
    char *equals = strrchr (item, '=');
    if (!equals || !strstr (item, "://") || strstr (item, "://") > equals)
        return;
    char *key = equals + 1;
    while (isspace ((byte) *key))
        key++;
    if (!*key)
        return;
    *key_p = strdup (key);
    assert (*key_p);
    *equals = 0;
    while (equals > item && isspace ((byte) equals [-1]))
        *--equals = 0;
}

//  Parse a comma-separated list of endpoints
drover_endpoints_t *
drover_endpoints_new (const char *list)
{
    if (!list)
        return NULL;
    drover_endpoints_t *self = (drover_endpoints_t *) zmalloc (sizeof (drover_endpoints_t));
    size_t most = 1;
    for (const char *cursor = list; *cursor; cursor++)
        most += *cursor == ',';
    self->items = (char **) zmalloc (most * sizeof (char *));
    self->keys = (char **) zmalloc (most * sizeof (char *));
    const char *start = list;
    while (true) {
        const char *end = strchr (start, ',');
        if (!end)
            end = start + strlen (start);
        while (start < end && isspace ((byte) *start))
            start++;
        const char *last = end;
        while (last > start && isspace ((byte) last [-1]))
            last--;
        char *item = strndup (start, (size_t) (last - start));
        assert (item);
        char *key = NULL;
        s_split_key (item, &key);
        bool repeat = false;
        for (size_t index = 0; index < self->size; index++)
            repeat = repeat || streq (self->items [index], item);
        if (*item && !repeat) {
            self->keys [self->size] = key;
            self->items [self->size++] = item;
        }
        else {
            free (item);
            free (key);
        }
        if (!*end)
            break;
        start = end + 1;
    }
    if (self->size == 0) {
        drover_endpoints_destroy (&self);
        return NULL;
    }
    self->current = strdup (self->items [0]);
    self->dead = zhashx_new ();
    zhashx_set_destructor (self->dead, (zhashx_destructor_fn *) zstr_free);
    self->backoff = DROVER_ENDPOINTS_BACKOFF_MIN;
    return self;
}

//  Destroy
void
drover_endpoints_destroy (drover_endpoints_t **self_p)
{
    assert (self_p);
    drover_endpoints_t *self = *self_p;
    if (!self)
        return;
    for (size_t index = 0; index < self->size; index++) {
        free (self->items [index]);
        free (self->keys [index]);
    }
    free (self->items);
    free (self->keys);
    free (self->current);
    zhashx_destroy (&self->dead);
    free (self);
    *self_p = NULL;
}

//  Return how many endpoints the list has
size_t
drover_endpoints_size (drover_endpoints_t *self)
{
    assert (self);
    return self->size;
}

//  Return the list's endpoint at index
const char *
drover_endpoints_item (drover_endpoints_t *self, size_t index)
{
    assert (self);
    return index < self->size? self->items [index]: NULL;
}

//  True if an endpoint passes the checks ZeroMQ makes before it connects:
//  tcp://[SOURCE;]HOST:PORT, ipc://PATH, inproc://NAME (names are resolved
//  when it connects, not here)
static bool
s_endpoint_valid (const char *endpoint)
{
    const char *separator = strstr (endpoint, "://");
    if (!separator || !separator [3])
        return false;
    size_t scheme = (size_t) (separator - endpoint);
    const char *rest = separator + 3;
    if ((scheme == 3 && memcmp (endpoint, "ipc", 3) == 0)
    ||  (scheme == 6 && memcmp (endpoint, "inproc", 6) == 0))
        return true;
    if (scheme != 3 || memcmp (endpoint, "tcp", 3))
        return false;
    const char *source = strrchr (rest, ';');
    if (source)
        rest = source + 1;
    const char *colon = strrchr (rest, ':');
    if (!colon || colon == rest || *rest == '*' || !colon [1])
        return false;
    for (const char *digit = colon + 1; *digit; digit++)
        if (!isdigit ((byte) *digit))
            return false;
    long port = atol (colon + 1);
    return port >= 1 && port <= 65535;
}

//  True if every endpoint of the list passes ZeroMQ's checks
bool
drover_endpoints_valid (drover_endpoints_t *self)
{
    assert (self);
    for (size_t index = 0; index < self->size; index++)
        if (!s_endpoint_valid (self->items [index]))
            return false;
    return true;
}

//  Return the server key the list gives the endpoint at index, or NULL
const char *
drover_endpoints_item_key (drover_endpoints_t *self, size_t index)
{
    assert (self);
    return index < self->size? self->keys [index]: NULL;
}

//  Return the endpoint to talk to now
const char *
drover_endpoints_current (drover_endpoints_t *self)
{
    assert (self);
    return self->current;
}

//  True if endpoint was found dead less than DEAD_MEMORY ago
static bool
s_dead_lately (drover_endpoints_t *self, const char *endpoint, int64_t now)
{
    int64_t *since = (int64_t *) zhashx_lookup (self->dead, endpoint);
    return since && now - *since < DROVER_ENDPOINTS_DEAD_MEMORY;
}

//  Talk to endpoint from now on (the list item at index, or SIZE_MAX for
//  a leader that is not in the list)
static void
s_move_to (drover_endpoints_t *self, const char *endpoint, size_t index)
{
    char *copy = strdup (endpoint);
    assert (copy);
    free (self->current);
    self->current = copy;
    if (index == SIZE_MAX)
        for (index = 0; index < self->size; index++)
            if (streq (self->items [index], endpoint))
                break;
    if (index < self->size)
        self->position = index;
    self->hops++;
    self->moves++;
}

//  Return the index of the next list item after position that is neither
//  the current broker nor dead lately; SIZE_MAX if there is none
static size_t
s_next_alive (drover_endpoints_t *self, int64_t now)
{
    for (size_t step = 1; step <= self->size; step++) {
        size_t index = (self->position + step) % self->size;
        if (!streq (self->items [index], self->current)
        &&  !s_dead_lately (self, self->items [index], now))
            return index;
    }
    return SIZE_MAX;
}

//  The msec to wait before the next try: none while a round of the list
//  is not done since the last broker that served, then a backoff that
//  doubles to its cap
static int
s_delay (drover_endpoints_t *self, uint32_t free_hops)
{
    if (self->hops <= free_hops)
        return 0;
    int delay = self->backoff;
    self->backoff = self->backoff * 2 > DROVER_ENDPOINTS_BACKOFF_MAX
                  ? DROVER_ENDPOINTS_BACKOFF_MAX: self->backoff * 2;
    return delay;
}

//  The current broker answered REDIRECT naming leader
int
drover_endpoints_redirected (drover_endpoints_t *self, const char *leader, int64_t now)
{
    assert (self);
    if (leader && *leader && !streq (leader, self->current)
    &&  !s_dead_lately (self, leader, now)) {
        s_move_to (self, leader, SIZE_MAX);
        //  Two standbys may name each other for a moment: follow a few
        //  REDIRECTs at once, then slow down
        return s_delay (self, (uint32_t) self->size * 2 + 2);
    }
    size_t next = s_next_alive (self, now);
    if (next == SIZE_MAX) {
        //  No other broker to ask: ask this one again, after a while
        self->hops++;
        self->moves++;
        return s_delay (self, 0);
    }
    s_move_to (self, self->items [next], next);
    return s_delay (self, (uint32_t) self->size - 1);
}

//  The current broker is gone, or did not answer in time
int
drover_endpoints_failed (drover_endpoints_t *self, int64_t now)
{
    assert (self);
    if (zhashx_size (self->dead) > 64)
        zhashx_purge (self->dead);      //  leaders named by REDIRECT: keep it small
    int64_t *since = (int64_t *) zmalloc (sizeof (int64_t));
    *since = now;
    zhashx_update (self->dead, self->current, since);
    size_t next = s_next_alive (self, now);
    if (next == SIZE_MAX)
        next = (self->position + 1) % self->size;   //  all dead lately: round robin
    s_move_to (self, self->items [next], next);
    return s_delay (self, (uint32_t) self->size - 1);
}

//  The current broker serves
void
drover_endpoints_served (drover_endpoints_t *self)
{
    assert (self);
    self->hops = 0;
    self->backoff = DROVER_ENDPOINTS_BACKOFF_MIN;
    zhashx_delete (self->dead, self->current);
}

//  Return how many moves were made, ever
uint64_t
drover_endpoints_moves (drover_endpoints_t *self)
{
    assert (self);
    return self->moves;
}
