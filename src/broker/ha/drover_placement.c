/*  =========================================================================
    drover_placement - which broker owns each named queue (see the header)

    Each offered queue holds its offers (member, endpoint) in member-name
    order; an owner is found when asked, in one pass over the queue's
    offers. The queues' name order is an array built again when asked
    after a change.
    =========================================================================
*/

#include "drover_placement.h"
#include "drover_rendezvous.h"

//  One member's offer of one queue
typedef struct {
    char *member;               //  the member's (broker's) name
    char *endpoint;             //  where it serves the queue
    uint64_t hash;              //  the member name's rendezvous hash
} s_offer_t;

//  One offered queue
typedef struct {
    char *name;                 //  the queue's name
    uint64_t hash;              //  its rendezvous hash
    zlistx_t *offers;           //  s_offer_t, in member-name order
} s_queue_t;

struct _drover_placement_t {
    bool spread;                //  strategy "spread" (else "leader")
    char *leader;               //  the leader's name, "" for none
    zhashx_t *queues;           //  queue name -> s_queue_t
    const char **order;         //  queue names in name order, NULL when stale
};

//  Destroy an offer (the offers' destructor)
static void
s_offer_destroy (void **item_p)
{
    s_offer_t *offer = (s_offer_t *) *item_p;
    if (!offer)
        return;
    zstr_free (&offer->member);
    zstr_free (&offer->endpoint);
    free (offer);
    *item_p = NULL;
}

//  Order offers by member name (the offers' comparator)
static int
s_offer_compare (const void *one, const void *two)
{
    return strcmp (((const s_offer_t *) one)->member, ((const s_offer_t *) two)->member);
}

//  Destroy a queue (the queues' destructor)
static void
s_queue_destroy (void **item_p)
{
    s_queue_t *queue = (s_queue_t *) *item_p;
    if (!queue)
        return;
    zstr_free (&queue->name);
    zlistx_destroy (&queue->offers);
    free (queue);
    *item_p = NULL;
}

//  True if strategy is one we take
bool
drover_placement_strategy_valid (const char *strategy)
{
    return !strategy || !*strategy || streq (strategy, "leader") || streq (strategy, "spread");
}

//  Create a placement
drover_placement_t *
drover_placement_new (const char *strategy)
{
    if (!drover_placement_strategy_valid (strategy))
        return NULL;            //  the caller checks its settings
    drover_placement_t *self = (drover_placement_t *) zmalloc (sizeof (drover_placement_t));
    self->spread = strategy && streq (strategy, "spread");
    self->leader = strdup ("");
    assert (self->leader);
    self->queues = zhashx_new ();
    zhashx_set_destructor (self->queues, s_queue_destroy);
    return self;
}

//  Destroy the placement
void
drover_placement_destroy (drover_placement_t **self_p)
{
    assert (self_p);
    drover_placement_t *self = *self_p;
    if (!self)
        return;
    zstr_free (&self->leader);
    zhashx_destroy (&self->queues);
    free (self->order);
    free (self);
    *self_p = NULL;
}

//  The strategy
const char *
drover_placement_strategy (drover_placement_t *self)
{
    assert (self);
    return self->spread? "spread": "leader";
}

//  Set the leader's name
void
drover_placement_set_leader (drover_placement_t *self, const char *leader)
{
    assert (self);
    zstr_free (&self->leader);
    self->leader = strdup (leader? leader: "");
    assert (self->leader);
}

//  The queues changed: the name order is built again when next asked
static void
s_order_stale (drover_placement_t *self)
{
    free (self->order);
    self->order = NULL;
}

//  Member offers queue at endpoint
void
drover_placement_offer (drover_placement_t *self, const char *member, const char *queue,
                        const char *endpoint)
{
    assert (self);
    assert (member && queue && endpoint);
    s_queue_t *entry = (s_queue_t *) zhashx_lookup (self->queues, queue);
    if (!entry) {
        entry = (s_queue_t *) zmalloc (sizeof (s_queue_t));
        entry->name = strdup (queue);
        assert (entry->name);
        entry->hash = drover_rendezvous_hash (queue, strlen (queue));
        entry->offers = zlistx_new ();
        zlistx_set_destructor (entry->offers, s_offer_destroy);
        zlistx_set_comparator (entry->offers, s_offer_compare);
        zhashx_insert (self->queues, queue, entry);
        s_order_stale (self);
    }
    s_offer_t *offer = (s_offer_t *) zlistx_first (entry->offers);
    while (offer && strneq (offer->member, member))
        offer = (s_offer_t *) zlistx_next (entry->offers);
    if (offer) {                //  a second offer replaces the first
        zstr_free (&offer->endpoint);
        offer->endpoint = strdup (endpoint);
        assert (offer->endpoint);
        return;
    }
    offer = (s_offer_t *) zmalloc (sizeof (s_offer_t));
    offer->member = strdup (member);
    offer->endpoint = strdup (endpoint);
    assert (offer->member && offer->endpoint);
    offer->hash = drover_rendezvous_hash (member, strlen (member));
    zlistx_insert (entry->offers, offer, true);
}

//  Forget member and its offers; a queue nobody offers any more goes
void
drover_placement_remove (drover_placement_t *self, const char *member)
{
    assert (self);
    assert (member);
    zlistx_t *empty = zlistx_new ();
    s_queue_t *entry = (s_queue_t *) zhashx_first (self->queues);
    while (entry) {
        s_offer_t *offer = (s_offer_t *) zlistx_first (entry->offers);
        while (offer && strneq (offer->member, member))
            offer = (s_offer_t *) zlistx_next (entry->offers);
        if (offer)
            zlistx_delete (entry->offers, zlistx_cursor (entry->offers));
        if (zlistx_size (entry->offers) == 0)
            zlistx_add_end (empty, entry->name);
        entry = (s_queue_t *) zhashx_next (self->queues);
    }
    //  Deleted after the walk: a zhashx is not changed while walked
    const char *name = (const char *) zlistx_first (empty);
    while (name) {
        zhashx_delete (self->queues, name);
        name = (const char *) zlistx_next (empty);
    }
    if (zlistx_size (empty))
        s_order_stale (self);
    zlistx_destroy (&empty);
}

//  Order queue names (qsort's comparator over const char *)
static int
s_name_compare (const void *one, const void *two)
{
    return strcmp (*(const char *const *) one, *(const char *const *) two);
}

//  How many queues are offered
size_t
drover_placement_size (drover_placement_t *self)
{
    assert (self);
    return zhashx_size (self->queues);
}

//  The name of the index-th queue in name order
const char *
drover_placement_queue (drover_placement_t *self, size_t index)
{
    assert (self);
    assert (index < zhashx_size (self->queues));
    if (!self->order) {
        size_t count = zhashx_size (self->queues);
        self->order = (const char **) malloc (count * sizeof (const char *));
        assert (self->order);
        size_t at = 0;
        s_queue_t *entry = (s_queue_t *) zhashx_first (self->queues);
        for (; entry; entry = (s_queue_t *) zhashx_next (self->queues))
            self->order [at++] = entry->name;
        qsort (self->order, count, sizeof (const char *), s_name_compare);
    }
    return self->order [index];
}

//  The offer that owns queue, or NULL if none is offered
static s_offer_t *
s_owning_offer (drover_placement_t *self, const char *queue)
{
    assert (self);
    assert (queue);
    s_queue_t *entry = (s_queue_t *) zhashx_lookup (self->queues, queue);
    if (!entry)
        return NULL;            //  nobody offers it
    s_offer_t *best = NULL;
    s_offer_t *offer = (s_offer_t *) zlistx_first (entry->offers);
    for (; offer; offer = (s_offer_t *) zlistx_next (entry->offers)) {
        if (!self->spread) {
            if (streq (offer->member, self->leader))
                return offer;   //  the leader offers it
            if (!best)
                best = offer;   //  else the first by name
            continue;
        }
        //  Highest score; on a tie the first by name stays (offers are in name order)
        if (!best || drover_rendezvous_score (entry->hash, offer->hash)
                   > drover_rendezvous_score (entry->hash, best->hash))
            best = offer;
    }
    return best;
}

//  The owner of queue, or NULL
const char *
drover_placement_owner (drover_placement_t *self, const char *queue)
{
    s_offer_t *offer = s_owning_offer (self, queue);
    return offer? offer->member: NULL;
}

//  The owner's endpoint for queue, or NULL
const char *
drover_placement_owner_endpoint (drover_placement_t *self, const char *queue)
{
    s_offer_t *offer = s_owning_offer (self, queue);
    return offer? offer->endpoint: NULL;
}

//  Every member's endpoint for queue, comma-separated, in member-name order
char *
drover_placement_endpoints (drover_placement_t *self, const char *queue)
{
    assert (self);
    assert (queue);
    s_queue_t *entry = (s_queue_t *) zhashx_lookup (self->queues, queue);
    size_t size = 1;
    s_offer_t *offer = entry? (s_offer_t *) zlistx_first (entry->offers): NULL;
    for (; offer; offer = (s_offer_t *) zlistx_next (entry->offers))
        size += strlen (offer->endpoint) + 1;
    char *endpoints = (char *) zmalloc (size);
    size_t at = 0;
    offer = entry? (s_offer_t *) zlistx_first (entry->offers): NULL;
    for (; offer; offer = (s_offer_t *) zlistx_next (entry->offers)) {
        if (at)
            endpoints [at++] = ',';
        size_t length = strlen (offer->endpoint);
        memcpy (endpoints + at, offer->endpoint, length);
        at += length;
    }
    endpoints [at] = 0;
    return endpoints;
}
