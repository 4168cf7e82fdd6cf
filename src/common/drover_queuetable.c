/*  =========================================================================
    drover_queuetable - the named queues of several brokers (see
    drover_queuetable.h)

    A sorted array of entries: tables are small (at most DROVER_QUEUES_MAX)
    and read far more often than changed, so a put shifts the tail and a
    lookup is a binary search.
    =========================================================================
*/

#include "drover_queuetable.h"

struct _drover_queuetable_t {
    char strategy [DROVER_STRATEGY_MAX + 1];    //  "leader", "spread", "" none
    drover_queueentry_t *entries;   //  size queues in name order, each owned
    size_t size;                //  queues
    size_t capacity;            //  room in entries
};


//  Create an empty table for strategy
drover_queuetable_t *
drover_queuetable_new (const char *strategy)
{
    drover_queuetable_t *self = (drover_queuetable_t *) zmalloc (sizeof (drover_queuetable_t));
    if (strategy && strlen (strategy) > DROVER_STRATEGY_MAX)
        zsys_warning ("queuetable: strategy=\"%.40s\" is too long: none", strategy);
    else
        snprintf (self->strategy, sizeof self->strategy, "%s", strategy? strategy: "");
    return self;
}

//  Free what an entry holds
static void
s_entry_free (drover_queueentry_t *entry)
{
    zstr_free (&entry->name);
    zstr_free (&entry->owner);
    zstr_free (&entry->owner_endpoint);
    zstr_free (&entry->endpoints);
}

//  Destroy the table
void
drover_queuetable_destroy (drover_queuetable_t **self_p)
{
    assert (self_p);
    drover_queuetable_t *self = *self_p;
    if (!self)
        return;
    for (size_t index = 0; index < self->size; index++)
        s_entry_free (&self->entries [index]);
    free (self->entries);
    free (self);
    *self_p = NULL;
}

//  Return a copy of the table
drover_queuetable_t *
drover_queuetable_dup (drover_queuetable_t *self)
{
    assert (self);
    drover_queuetable_t *copy = drover_queuetable_new (self->strategy);
    for (size_t index = 0; index < self->size; index++) {
        const drover_queueentry_t *entry = &self->entries [index];
        drover_queuetable_put (copy, entry->name, entry->owner, entry->owner_endpoint,
                               entry->token, entry->endpoints);
    }
    return copy;
}

//  Return the index of name, or where it would go (*found false)
static size_t
s_search (drover_queuetable_t *self, const char *name, bool *found)
{
    size_t low = 0, high = self->size;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        int order = strcmp (self->entries [middle].name, name);
        if (order == 0) {
            *found = true;
            return middle;
        }
        if (order < 0)
            low = middle + 1;
        else
            high = middle;
    }
    *found = false;
    return low;
}

//  True if a comma-separated list holds only endpoints a row can carry
static bool
s_endpoints_valid (const char *endpoints)
{
    if (!*endpoints)
        return true;
    char *list = strdup (endpoints);
    assert (list);
    size_t count = 0;
    bool valid = true;
    for (char *item = list, *end; valid && item; item = end? end + 1: NULL) {
        end = strchr (item, ',');
        if (end)
            *end = 0;
        valid = drover_queue_endpoint_valid (item) && ++count <= DROVER_QUEUE_ENDPOINTS_MAX;
    }
    free (list);
    return valid;
}

//  Set (or replace, by name) one queue
void
drover_queuetable_put (drover_queuetable_t *self, const char *name, const char *owner,
                       const char *owner_endpoint, uint64_t token, const char *endpoints)
{
    assert (self);
    owner = owner? owner: "";
    owner_endpoint = owner_endpoint? owner_endpoint: "";
    endpoints = endpoints? endpoints: "";
    if (!drover_queue_name_valid (name)
    ||  (*owner && !drover_id_valid (owner))
    ||  (*owner_endpoint && !drover_queue_endpoint_valid (owner_endpoint))
    ||  !s_endpoints_valid (endpoints)) {
        zsys_warning ("queuetable: queue=\"%.64s\" owner=\"%.64s\" is not one the wire "
                      "can carry: not put", name? name: "", owner);
        return;
    }
    bool found;
    size_t index = s_search (self, name, &found);
    if (!found) {
        if (self->size >= DROVER_QUEUES_MAX) {
            zsys_warning ("queuetable: queue=%s is one more than %d: not put", name,
                          DROVER_QUEUES_MAX);
            return;
        }
        if (self->size == self->capacity) {
            self->capacity = self->capacity? self->capacity * 2: 8;
            self->entries = (drover_queueentry_t *) realloc (self->entries,
                                self->capacity * sizeof (drover_queueentry_t));
            assert (self->entries);
        }
        memmove (&self->entries [index + 1], &self->entries [index],
                 (self->size - index) * sizeof (drover_queueentry_t));
        self->size++;
        memset (&self->entries [index], 0, sizeof (drover_queueentry_t));
        self->entries [index].name = strdup (name);
    }
    drover_queueentry_t *entry = &self->entries [index];
    //  Copy before freeing: the texts may be this entry's own (a dup)
    char *copies [3] = { strdup (owner), strdup (owner_endpoint), strdup (endpoints) };
    assert (entry->name && copies [0] && copies [1] && copies [2]);
    zstr_free (&entry->owner);
    zstr_free (&entry->owner_endpoint);
    zstr_free (&entry->endpoints);
    entry->owner = copies [0];
    entry->owner_endpoint = copies [1];
    entry->endpoints = copies [2];
    entry->token = token;
}

//  Return how many queues the table has
size_t
drover_queuetable_size (drover_queuetable_t *self)
{
    assert (self);
    return self->size;
}

//  Return the queue at index in name order
const drover_queueentry_t *
drover_queuetable_item (drover_queuetable_t *self, size_t index)
{
    assert (self);
    return index < self->size? &self->entries [index]: NULL;
}

//  Return the queue called name, or NULL
const drover_queueentry_t *
drover_queuetable_lookup (drover_queuetable_t *self, const char *name)
{
    assert (self);
    bool found = false;
    size_t index = name? s_search (self, name, &found): 0;
    return found? &self->entries [index]: NULL;
}

//  Return the strategy
const char *
drover_queuetable_strategy (drover_queuetable_t *self)
{
    assert (self);
    return self->strategy;
}

//  Return a QUEUE TABLE of the table
drover_msg_t *
drover_queuetable_encode (drover_queuetable_t *self)
{
    assert (self);
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_QUEUE_TABLE);
    strcpy (msg->strategy, self->strategy);
    if (self->size) {
        msg->queue_rows = (drover_queue_row_t *) zmalloc (self->size * sizeof (drover_queue_row_t));
        msg->nqueues = (uint32_t) self->size;
    }
    for (size_t index = 0; index < self->size; index++) {
        const drover_queueentry_t *entry = &self->entries [index];
        drover_queue_row_t *row = &msg->queue_rows [index];
        //  put checked every length against these fields
        strcpy (row->name, entry->name);
        strcpy (row->owner, entry->owner);
        strcpy (row->owner_endpoint, entry->owner_endpoint);
        row->token = entry->token;
        row->endpoints = strdup (entry->endpoints);
        assert (row->endpoints);
    }
    return msg;
}

//  Return a table of what a QUEUE TABLE holds
drover_queuetable_t *
drover_queuetable_decode (const drover_msg_t *msg)
{
    assert (msg);
    drover_queuetable_t *self = drover_queuetable_new (msg->strategy);
    for (uint32_t index = 0; msg->queue_rows && index < msg->nqueues; index++) {
        const drover_queue_row_t *row = &msg->queue_rows [index];
        drover_queuetable_put (self, row->name, row->owner, row->owner_endpoint, row->token,
                               row->endpoints);
    }
    return self;
}

//  Return queue name's endpoints, the owner's first; "" none; NULL no such
//  queue
char *
drover_queuetable_endpoints_for (drover_queuetable_t *self, const char *name)
{
    assert (self);
    const drover_queueentry_t *entry = drover_queuetable_lookup (self, name);
    if (!entry)
        return NULL;
    const char *owner = entry->owner_endpoint;
    char *list = strdup (owner);
    assert (list);
    char *others = strdup (entry->endpoints);
    assert (others);
    for (char *item = others, *end; *others && item; item = end? end + 1: NULL) {
        end = strchr (item, ',');
        if (end)
            *end = 0;
        if (streq (item, owner))
            continue;           //  first already
        char *longer = zsys_sprintf ("%s%s%s", list, *list? ",": "", item);
        zstr_free (&list);
        list = longer;
    }
    free (others);
    return list;
}
