/*  =========================================================================
    drover_queuewatch - the elector's view of the named queues (see the
    header)

    Three things are held: the members' offers (a drover_placement_t built
    again at each read of PREFIX/brokers/), the queue keys as last read (or
    written, by the leader), and what was last said of each queue. A
    QUEUE is said when what would be said now differs from what was.
    =========================================================================
*/

#include "drover_queuewatch.h"
#include "drover_placement.h"
#include "drover_etcd.h"

//  Longest broker name and endpoint we take from a key (the elector's limits)
#define S_OWNER_MAX         64
#define S_ENDPOINT_MAX      256

//  One queue's fields, as a key holds them or as last said
typedef struct {
    char *owner;                //  the owner's name, "" for none
    char *endpoint;             //  its endpoint for the queue, "" for none
    uint64_t token;             //  the key's mod revision, 0 for none
    char *endpoints;            //  every member's endpoint for it (said views only)
} s_fields_t;

struct _drover_queuewatch_t {
    char *name;                 //  this broker's name
    char *strategy;             //  the placement strategy, when leading
    drover_placement_t *placement;  //  the members' offers, as last read
    zhashx_t *keys;             //  queue -> s_fields_t, its key as last read or written
    zhashx_t *said;             //  queue -> s_fields_t, as last said
    bool members_read;          //  PREFIX/brokers/ read at least once
    bool queues_read;           //  PREFIX/queues/ read at least once
};

//  Copy a string, or "" for NULL
static char *
s_copy (const char *text)
{
    char *copy = strdup (text? text: "");
    assert (copy);
    return copy;
}

//  Create fields
static s_fields_t *
s_fields_new (const char *owner, const char *endpoint, uint64_t token, const char *endpoints)
{
    s_fields_t *fields = (s_fields_t *) zmalloc (sizeof (s_fields_t));
    fields->owner = s_copy (owner);
    fields->endpoint = s_copy (endpoint);
    fields->token = token;
    fields->endpoints = s_copy (endpoints);
    return fields;
}

//  Destroy fields (the hashes' destructor)
static void
s_fields_destroy (void **item_p)
{
    s_fields_t *fields = (s_fields_t *) *item_p;
    if (!fields)
        return;
    zstr_free (&fields->owner);
    zstr_free (&fields->endpoint);
    zstr_free (&fields->endpoints);
    free (fields);
    *item_p = NULL;
}

//  True if name is a queue name: 1 to 64 bytes of [A-Za-z0-9._-]
static bool
s_queue_name_valid (const char *name, size_t length)
{
    if (length == 0 || length > DROVER_QUEUEWATCH_NAME_MAX)
        return false;
    for (size_t index = 0; index < length; index++) {
        char c = name [index];
        if (!isalnum ((byte) c) && c != '.' && c != '_' && c != '-')
            return false;
    }
    return true;
}

//  Split one offer line "Q EP" of length bytes into queue and endpoint
//  (buffers of DROVER_QUEUEWATCH_NAME_MAX + 1 and endpoint_max + 1): 0, or
//  -1 and a reason
static int
s_parse_offer (const char *line, size_t length, size_t endpoint_max, char *queue,
               char *endpoint, const char **reason_p)
{
    const char *space = memchr (line, ' ', length);
    size_t name_length = space? (size_t) (space - line): length;
    if (!s_queue_name_valid (line, name_length)) {
        *reason_p = "a queue name must be 1 to 64 bytes of [A-Za-z0-9._-]";
        return -1;
    }
    size_t endpoint_length = space? length - name_length - 1: 0;
    const char *at = space? space + 1: line + length;
    bool clean = endpoint_length > 0 && endpoint_length <= endpoint_max;
    for (size_t index = 0; clean && index < endpoint_length; index++)
        if ((byte) at [index] <= 32 || at [index] == 127 || at [index] == ',')
            clean = false;
    if (!clean) {
        *reason_p = "the queue name must be followed by one space and an endpoint"
                    " without control characters, spaces or commas";
        return -1;
    }
    memcpy (queue, line, name_length);
    queue [name_length] = 0;
    memcpy (endpoint, at, endpoint_length);
    endpoint [endpoint_length] = 0;
    return 0;
}

//  Check the queues a broker offers
int
drover_queuewatch_check_offers (const char *offers, size_t endpoint_max, char **error_p)
{
    char *error = NULL;
    zhashx_t *seen = zhashx_new ();
    char queue [DROVER_QUEUEWATCH_NAME_MAX + 1];
    char *endpoint = (char *) zmalloc (endpoint_max + 1);
    const char *line = offers? offers: "";
    while (*line && !error) {
        const char *newline = strchr (line, '\n');
        size_t length = newline? (size_t) (newline - line): strlen (line);
        const char *reason = NULL;
        if (s_parse_offer (line, length, endpoint_max, queue, endpoint, &reason) == -1)
            error = zsys_sprintf ("elector: queue line \"%.*s\": %s", (int) length, line, reason);
        else
        if (zhashx_insert (seen, queue, (void *) "") == -1)
            error = zsys_sprintf ("elector: queue %s is offered twice", queue);
        else
        if (newline && newline [1] == 0)
            error = strdup ("elector: the queue lines end with a newline");
        line = newline? newline + 1: line + length;
    }
    free (endpoint);
    zhashx_destroy (&seen);
    int rc = error? -1: 0;
    if (error_p)
        *error_p = error;
    else
        zstr_free (&error);
    return rc;
}

//  Create the view
drover_queuewatch_t *
drover_queuewatch_new (const char *name, const char *strategy)
{
    assert (name);
    assert (drover_placement_strategy_valid (strategy));
    drover_queuewatch_t *self = (drover_queuewatch_t *) zmalloc (sizeof (drover_queuewatch_t));
    self->name = s_copy (name);
    self->strategy = s_copy (strategy);
    self->placement = drover_placement_new (self->strategy);
    drover_placement_set_leader (self->placement, self->name);
    self->keys = zhashx_new ();
    zhashx_set_destructor (self->keys, s_fields_destroy);
    self->said = zhashx_new ();
    zhashx_set_destructor (self->said, s_fields_destroy);
    return self;
}

//  Destroy the view
void
drover_queuewatch_destroy (drover_queuewatch_t **self_p)
{
    assert (self_p);
    drover_queuewatch_t *self = *self_p;
    if (!self)
        return;
    drover_placement_destroy (&self->placement);
    zhashx_destroy (&self->keys);
    zhashx_destroy (&self->said);
    zstr_free (&self->name);
    zstr_free (&self->strategy);
    free (self);
    *self_p = NULL;
}

//  The members and their offers: "advertise" then lines "\nQ EP"
void
drover_queuewatch_set_members (drover_queuewatch_t *self, zlistx_t *kvs, size_t prefix_length)
{
    assert (self);
    assert (kvs);
    drover_placement_destroy (&self->placement);
    self->placement = drover_placement_new (self->strategy);
    drover_placement_set_leader (self->placement, self->name);
    char queue [DROVER_QUEUEWATCH_NAME_MAX + 1];
    char endpoint [S_ENDPOINT_MAX + 1];
    drover_etcd_kv_t *kv = (drover_etcd_kv_t *) zlistx_first (kvs);
    for (; kv; kv = (drover_etcd_kv_t *) zlistx_next (kvs)) {
        if (strlen (kv->key) <= prefix_length || strlen (kv->value) != kv->value_size)
            continue;           //  no name, or NULs in the value: not a member of ours
        const char *member = kv->key + prefix_length;
        const char *line = strchr (kv->value, '\n');
        while (line) {
            line++;
            const char *newline = strchr (line, '\n');
            size_t length = newline? (size_t) (newline - line): strlen (line);
            const char *reason;
            if (s_parse_offer (line, length, S_ENDPOINT_MAX, queue, endpoint, &reason) == 0)
                drover_placement_offer (self->placement, member, queue, endpoint);
            line = newline;
        }
    }
    self->members_read = true;
}

//  Split a queue key's value "NAME\nENDPOINT"; false if malformed
static bool
s_parse_owner (drover_etcd_kv_t *kv, char *owner, char *endpoint)
{
    char *newline = strchr (kv->value, '\n');
    if (!newline || strlen (kv->value) != kv->value_size)
        return false;
    size_t owner_size = (size_t) (newline - kv->value);
    size_t endpoint_size = strlen (newline + 1);
    if (owner_size == 0 || owner_size > S_OWNER_MAX || endpoint_size > S_ENDPOINT_MAX)
        return false;
    memcpy (owner, kv->value, owner_size);
    owner [owner_size] = 0;
    memcpy (endpoint, newline + 1, endpoint_size + 1);
    return true;
}

//  The queue keys: each queue's owner and token
void
drover_queuewatch_set_queues (drover_queuewatch_t *self, zlistx_t *kvs, size_t prefix_length)
{
    assert (self);
    assert (kvs);
    zhashx_purge (self->keys);
    char owner [S_OWNER_MAX + 1];
    char endpoint [S_ENDPOINT_MAX + 1];
    drover_etcd_kv_t *kv = (drover_etcd_kv_t *) zlistx_first (kvs);
    for (; kv; kv = (drover_etcd_kv_t *) zlistx_next (kvs)) {
        const char *queue = kv->key + prefix_length;
        if (strlen (kv->key) <= prefix_length || !s_queue_name_valid (queue, strlen (queue)))
            continue;           //  not a queue's key
        if (!s_parse_owner (kv, owner, endpoint))
            owner [0] = endpoint [0] = 0;
        zhashx_update (self->keys, queue,
                       s_fields_new (owner, endpoint, (uint64_t) kv->mod_revision, NULL));
    }
    self->queues_read = true;
}

//  The next key the placement wants written
bool
drover_queuewatch_next_put (drover_queuewatch_t *self, char **queue_p, char **value_p)
{
    assert (self);
    assert (queue_p && value_p);
    if (!self->members_read || !self->queues_read)
        return false;           //  nothing to compare with yet
    size_t count = drover_placement_size (self->placement);
    for (size_t index = 0; index < count; index++) {
        const char *queue = drover_placement_queue (self->placement, index);
        const char *owner = drover_placement_owner (self->placement, queue);
        const char *endpoint = drover_placement_owner_endpoint (self->placement, queue);
        s_fields_t *key = (s_fields_t *) zhashx_lookup (self->keys, queue);
        if (key && streq (key->owner, owner) && streq (key->endpoint, endpoint))
            continue;           //  holds the choice already
        *queue_p = s_copy (queue);
        *value_p = zsys_sprintf ("%s\n%s", owner, endpoint);
        return true;
    }
    return false;
}

//  The leader wrote value to queue's key at revision
void
drover_queuewatch_put_done (drover_queuewatch_t *self, const char *queue, const char *value,
                            int64_t revision)
{
    assert (self);
    assert (queue && value);
    const char *newline = strchr (value, '\n');
    assert (newline);
    char *owner = s_copy (value);
    owner [newline - value] = 0;
    zhashx_update (self->keys, queue, s_fields_new (owner, newline + 1, (uint64_t) revision, NULL));
    zstr_free (&owner);
}

//  Say one QUEUE and remember it as said
static void
s_say (drover_queuewatch_t *self, zsock_t *pipe, const char *queue, s_fields_t *fields)
{
    char token [24];
    snprintf (token, sizeof token, "%" PRIu64, fields->token);
    zstr_sendx (pipe, "QUEUE", queue, fields->owner, fields->endpoint, token, fields->endpoints,
                NULL);
    zhashx_update (self->said, queue, fields);
}

//  What would be said of queue now (ours)
static s_fields_t *
s_view (drover_queuewatch_t *self, const char *queue, bool sure)
{
    char *endpoints = drover_placement_endpoints (self->placement, queue);
    s_fields_t *key = (s_fields_t *) zhashx_lookup (self->keys, queue);
    s_fields_t *view;
    if (!key || !*key->owner || (!sure && streq (key->owner, self->name)))
        view = s_fields_new ("", "", 0, endpoints);
    else
        view = s_fields_new (key->owner, key->endpoint, key->token, endpoints);
    zstr_free (&endpoints);
    return view;
}

//  True if two views differ in any field
static bool
s_differ (s_fields_t *one, s_fields_t *two)
{
    return strneq (one->owner, two->owner) || strneq (one->endpoint, two->endpoint)
        || one->token != two->token || strneq (one->endpoints, two->endpoints);
}

//  Say every queue whose fields changed since last said
void
drover_queuewatch_say_changes (drover_queuewatch_t *self, zsock_t *pipe, bool sure)
{
    assert (self);
    assert (pipe);
    if (!self->members_read || !self->queues_read)
        return;                 //  the first QUEUEs wait for both reads
    //  Every queue offered, with a key, or said before, in name order
    zlistx_t *queues = zlistx_new ();
    zlistx_set_destructor (queues, (czmq_destructor *) zstr_free);
    zlistx_set_duplicator (queues, (czmq_duplicator *) strdup);
    zlistx_set_comparator (queues, (czmq_comparator *) strcmp);
    for (size_t index = 0; index < drover_placement_size (self->placement); index++)
        zlistx_add_end (queues, (void *) drover_placement_queue (self->placement, index));
    zhashx_t *sources [] = { self->keys, self->said };
    for (size_t source = 0; source < 2; source++) {
        void *item = zhashx_first (sources [source]);
        for (; item; item = zhashx_next (sources [source])) {
            const char *queue = (const char *) zhashx_cursor (sources [source]);
            if (!zlistx_find (queues, (void *) queue))
                zlistx_add_end (queues, (void *) queue);
        }
    }
    zlistx_sort (queues);
    const char *queue = (const char *) zlistx_first (queues);
    for (; queue; queue = (const char *) zlistx_next (queues)) {
        s_fields_t *view = s_view (self, queue, sure);
        s_fields_t *said = (s_fields_t *) zhashx_lookup (self->said, queue);
        bool gone = !*view->owner && !*view->endpoints;     //  no key, nobody offers it
        if (said? s_differ (said, view): !gone)
            s_say (self, pipe, queue, view);
        else
            s_fields_destroy ((void **) &view);
        if (gone)
            zhashx_delete (self->said, queue);
    }
    zlistx_destroy (&queues);
}

//  Say no owner for every queue whose last QUEUE named us
void
drover_queuewatch_release (drover_queuewatch_t *self, zsock_t *pipe)
{
    assert (self);
    assert (pipe);
    zlistx_t *owned = zhashx_keys (self->said);
    const char *queue = (const char *) zlistx_first (owned);
    for (; queue; queue = (const char *) zlistx_next (owned)) {
        s_fields_t *said = (s_fields_t *) zhashx_lookup (self->said, queue);
        if (streq (said->owner, self->name))
            s_say (self, pipe, queue, s_fields_new ("", "", 0, said->endpoints));
    }
    zlistx_destroy (&owned);
}

//  True if the last QUEUE of some queue named us
bool
drover_queuewatch_owns (drover_queuewatch_t *self)
{
    assert (self);
    s_fields_t *said = (s_fields_t *) zhashx_first (self->said);
    for (; said; said = (s_fields_t *) zhashx_next (self->said))
        if (streq (said->owner, self->name))
            return true;
    return false;
}
