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

//  The strategies
#define S_LEADER    0
#define S_SPREAD    1
#define S_RR        2

struct _drover_placement_t {
    int strategy;               //  S_LEADER, S_SPREAD or S_RR
    char *leader;               //  the leader's name, "" for none
    zhashx_t *queues;           //  queue name -> s_queue_t
    const char **order;         //  queue names in name order, NULL when stale
    zhashx_t *turns;            //  rr: queue name -> its s_offer_t (borrowed), NULL when stale
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
    return !strategy || !*strategy || streq (strategy, "leader") || streq (strategy, "spread")
        || streq (strategy, "rr");
}

//  Create a placement
drover_placement_t *
drover_placement_new (const char *strategy)
{
    if (!drover_placement_strategy_valid (strategy))
        return NULL;            //  the caller checks its settings
    drover_placement_t *self = (drover_placement_t *) zmalloc (sizeof (drover_placement_t));
    self->strategy = !strategy || !*strategy || streq (strategy, "leader")? S_LEADER
                   : streq (strategy, "spread")? S_SPREAD: S_RR;
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
    zhashx_destroy (&self->turns);
    free (self->order);
    free (self);
    *self_p = NULL;
}

//  The strategy
const char *
drover_placement_strategy (drover_placement_t *self)
{
    assert (self);
    return self->strategy == S_SPREAD? "spread": self->strategy == S_RR? "rr": "leader";
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
    zhashx_destroy (&self->turns);
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
    zhashx_destroy (&self->turns);  //  rr's turns change with any offer
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
    zhashx_destroy (&self->turns);
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

//  rr: deal the queues, in name order, to the members in turn: each queue
//  goes to the member offering it that holds the fewest so far, a tie to
//  the first at or after the turn's member in name order (the turn moves
//  on by one each queue). Built once per change of the offers.
static void
s_deal_turns (drover_placement_t *self)
{
    self->turns = zhashx_new ();
    zhashx_t *held = zhashx_new ();         //  member -> queues dealt to it, as a number
    zlistx_t *members = zlistx_new ();      //  every member's name (borrowed), name order
    zlistx_set_comparator (members, (czmq_comparator *) strcmp);
    size_t count = drover_placement_size (self);
    for (size_t index = 0; index < count; index++) {
        s_queue_t *entry = (s_queue_t *) zhashx_lookup (self->queues,
                                                        drover_placement_queue (self, index));
        s_offer_t *offer = (s_offer_t *) zlistx_first (entry->offers);
        for (; offer; offer = (s_offer_t *) zlistx_next (entry->offers))
            if (!zlistx_find (members, offer->member))
                zlistx_add_end (members, offer->member);
    }
    zlistx_sort (members);
    size_t member_count = zlistx_size (members);
    for (size_t index = 0; index < count; index++) {
        const char *queue = drover_placement_queue (self, index);
        s_queue_t *entry = (s_queue_t *) zhashx_lookup (self->queues, queue);
        //  The turn's member: the index-th in name order, round and round
        const char *turn = (const char *) zlistx_first (members);
        for (size_t step = 0; step < index % member_count; step++)
            turn = (const char *) zlistx_next (members);
        s_offer_t *best = NULL;
        size_t best_held = 0;
        bool best_after = false;
        s_offer_t *offer = (s_offer_t *) zlistx_first (entry->offers);
        for (; offer; offer = (s_offer_t *) zlistx_next (entry->offers)) {
            size_t dealt = (size_t) (uintptr_t) zhashx_lookup (held, offer->member);
            bool after = strcmp (offer->member, turn) >= 0;
            if (!best || dealt < best_held || (dealt == best_held && after && !best_after)) {
                best = offer;
                best_held = dealt;
                best_after = after;
            }
        }
        zhashx_update (held, best->member, (void *) (uintptr_t) (best_held + 1));
        zhashx_insert (self->turns, queue, best);
    }
    zlistx_destroy (&members);
    zhashx_destroy (&held);
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
    if (self->strategy == S_RR) {
        if (!self->turns)
            s_deal_turns (self);
        return (s_offer_t *) zhashx_lookup (self->turns, queue);
    }
    s_offer_t *best = NULL;
    s_offer_t *offer = (s_offer_t *) zlistx_first (entry->offers);
    for (; offer; offer = (s_offer_t *) zlistx_next (entry->offers)) {
        if (self->strategy == S_LEADER) {
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
