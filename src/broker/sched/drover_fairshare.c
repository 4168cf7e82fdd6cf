/*  =========================================================================
    drover_fairshare - who is served next among owners that wait: Dominant
    Resource Fairness over procs, memory and counted devices, and quotas

    Owners, accounts, bands and the entries of the order live in pools of
    fixed-size records (drover_slab) reached by uint32 handles. Each owner
    has an account of its own from the start (its "solo" account, named
    and weighted after it), used while no declared account lists it.

    A band is one priority with waiting work: a heap of account entries
    (one per account with waiting owners at that priority), each a heap of
    owner entries. An entry keeps a copy of its account's or owner's
    weighted dominant share and name, since the heap orders records alone;
    a change of usage copies the new share to the entries of one owner and
    one account and fixes each in its heap.

    Shares are integers in units of 1e-12 (used * 1e12 / capacity, in 128
    bits), divided by the weight: exact and deterministic. The file reads:
    records and orderings, construction, capacity and devices, owners and
    accounts, the bands, usage, quotas, standings, verification.
    =========================================================================
*/

#include "drover_fairshare.h"
#include "drover_slab.h"
#include "drover_idheap.h"
#include "drover_msg.h"

//  Resources counted: procs, memory, then the devices by name
#define S_PROCS     0
#define S_MEM       1
#define S_RES       (2 + DROVER_FAIRSHARE_DEVICES_MAX)

//  A share of 1: the whole of a resource
#define S_WHOLE     1000000000000ULL


//  ---------------------------------------------------------------------
//  Records

//  What an owner and an account both keep
typedef struct {
    uint64_t used [S_RES];      //  running use per resource (procs, bytes, devices)
    uint64_t limit [S_RES];     //  running quota per resource, 0 none
    uint64_t queued;            //  tasks queued
    uint64_t max_queued;        //  queued quota, 0 none
    uint64_t waiting;           //  tasks waiting in the bands, as the caller said
    uint64_t share;             //  weighted dominant share, 1e-12 units
    uint32_t weight;            //  weight, 1..WEIGHT_MAX
    uint32_t nentries;          //  entries in entries
    uint32_t *entries;          //  handles of its band entries
    uint32_t entries_capacity;  //  entries allocated
} s_tally_t;

//  An owner
typedef struct {
    uint64_t key;               //  owner number, the key in self->owner_pool
    char *name;                 //  its name
    uint32_t account;           //  handle of the account it is in now
    uint32_t solo;              //  handle of its own account
    s_tally_t tally;            //  usage, quotas, share, entries (in self->oentries)
} s_owner_t;

//  An account: declared, or an owner's own
typedef struct {
    uint64_t key;               //  account number, the key in self->account_pool
    const char *name;           //  its name: owned if declared, the owner's if solo
    bool declared;              //  set in settings or by an admin
    uint32_t members;           //  owners in it now
    bool active;                //  has demand (waiting or running): its weight counts
    s_tally_t tally;            //  usage, quotas, share, entries (in self->aentries)
} s_account_t;

//  A priority with waiting work
typedef struct {
    uint64_t key;               //  the priority, biased to unsigned
    int32_t priority;           //  lower first
    uint32_t index;             //  in self->bands
    drover_idheap_t *heap;      //  its account entries
} s_band_t;

//  An account waiting in a band
typedef struct {
    uint64_t key;               //  band handle << 32 | account handle
    uint64_t share;             //  the account's share, copied
    const char *name;           //  the account's name, copied
    uint32_t account;           //  account handle
    uint32_t band;              //  band handle
    uint32_t index;             //  in its band's heap
    uint32_t solo;              //  1 if a solo account: after a declared one of the name
    drover_idheap_t *heap;      //  its owner entries
} s_aentry_t;

//  An owner waiting in a band
typedef struct {
    uint64_t key;               //  band handle << 32 | owner handle
    uint64_t share;             //  the owner's share, copied
    const char *name;           //  the owner's name, copied
    uint64_t waiting;           //  its tasks waiting at this priority
    uint32_t owner;             //  owner handle
    uint32_t aentry;            //  handle of its account's entry in this band
    uint32_t index;             //  in the account entry's heap
    uint32_t band;              //  band handle
} s_oentry_t;

struct _drover_fairshare_t {
    drover_slab_t *owner_pool;  //  owner number -> s_owner_t
    drover_slab_t *account_pool;    //  account number -> s_account_t
    drover_slab_t *band_pool;   //  biased priority -> s_band_t
    drover_slab_t *aentries;    //  band << 32 | account -> s_aentry_t
    drover_slab_t *oentries;    //  band << 32 | owner -> s_oentry_t
    zhashx_t *owners;           //  owner name -> handle (a number, not owned)
    zhashx_t *accounts;         //  declared account name -> handle
    drover_idheap_t *bands;     //  bands, lowest priority first
    uint64_t capacity [S_RES];  //  the cluster's capacity per resource
    char *devices [DROVER_FAIRSHARE_DEVICES_MAX];   //  device names, in order met
    uint32_t ndevices;          //  entries in devices
    uint64_t active_weights;    //  sum of the weights of accounts with demand
    uint64_t owner_numbers;     //  owners made so far
    uint64_t account_numbers;   //  accounts made so far
    uint32_t limited;           //  owners and accounts with a running quota
};


//  Return an owner by handle; valid until the next owner is made
static inline s_owner_t *
s_owner (drover_fairshare_t *self, uint32_t handle)
{
    return (s_owner_t *) drover_slab_get (self->owner_pool, handle);
}

//  Return true if an owner handle was given: owners are never forgotten,
//  so their handles are 1..owners
static inline bool
s_known (drover_fairshare_t *self, uint32_t handle)
{
    return handle >= 1 && handle <= zhashx_size (self->owners);
}

//  Return an account by handle; valid until the next account is made
static inline s_account_t *
s_account (drover_fairshare_t *self, uint32_t handle)
{
    return (s_account_t *) drover_slab_get (self->account_pool, handle);
}

//  Return an account entry by handle
static inline s_aentry_t *
s_aentry (drover_fairshare_t *self, uint32_t handle)
{
    return (s_aentry_t *) drover_slab_get (self->aentries, handle);
}

//  Return an owner entry by handle
static inline s_oentry_t *
s_oentry (drover_fairshare_t *self, uint32_t handle)
{
    return (s_oentry_t *) drover_slab_get (self->oentries, handle);
}

//  Return a band by handle
static inline s_band_t *
s_band (drover_fairshare_t *self, uint32_t handle)
{
    return (s_band_t *) drover_slab_get (self->band_pool, handle);
}

//  Band order: priority, lower first
static bool
s_band_less (const void *a, const void *b)
{
    return ((const s_band_t *) a)->priority < ((const s_band_t *) b)->priority;
}

//  Account order: share, then name, then a declared account before a solo one
static bool
s_aentry_less (const void *a, const void *b)
{
    const s_aentry_t *one = (const s_aentry_t *) a;
    const s_aentry_t *two = (const s_aentry_t *) b;
    if (one->share != two->share)
        return one->share < two->share;
    int order = strcmp (one->name, two->name);
    if (order)
        return order < 0;
    return one->solo < two->solo;
}

//  Owner order: share, then name
static bool
s_oentry_less (const void *a, const void *b)
{
    const s_oentry_t *one = (const s_oentry_t *) a;
    const s_oentry_t *two = (const s_oentry_t *) b;
    if (one->share != two->share)
        return one->share < two->share;
    return strcmp (one->name, two->name) < 0;
}


//  ---------------------------------------------------------------------
//  Construction

//  Create an empty table
drover_fairshare_t *
drover_fairshare_new (void)
{
    drover_fairshare_t *self = (drover_fairshare_t *) zmalloc (sizeof (drover_fairshare_t));
    self->owner_pool = drover_slab_new (sizeof (s_owner_t));
    self->account_pool = drover_slab_new (sizeof (s_account_t));
    self->band_pool = drover_slab_new (sizeof (s_band_t));
    self->aentries = drover_slab_new (sizeof (s_aentry_t));
    self->oentries = drover_slab_new (sizeof (s_oentry_t));
    self->owners = zhashx_new ();
    self->accounts = zhashx_new ();
    self->bands = drover_idheap_new (self->band_pool, s_band_less, offsetof (s_band_t, index));
    return self;
}

//  Destroy the table
void
drover_fairshare_destroy (drover_fairshare_t **self_p)
{
    assert (self_p);
    drover_fairshare_t *self = *self_p;
    if (!self)
        return;
    while (drover_idheap_size (self->bands)) {
        uint32_t band = drover_idheap_top (self->bands);
        drover_idheap_t *heap = s_band (self, band)->heap;
        for (size_t index = 0; index < drover_idheap_size (heap); index++)
            drover_idheap_destroy (&s_aentry (self, drover_idheap_at (heap, index))->heap);
        drover_idheap_destroy (&heap);
        drover_idheap_remove (self->bands, band);
    }
    for (void *item = zhashx_first (self->owners); item; item = zhashx_next (self->owners)) {
        s_owner_t *owner = s_owner (self, (uint32_t) (uintptr_t) item);
        free (owner->tally.entries);
        free (s_account (self, owner->solo)->tally.entries);
        free (owner->name);
    }
    for (void *item = zhashx_first (self->accounts); item; item = zhashx_next (self->accounts)) {
        s_account_t *account = s_account (self, (uint32_t) (uintptr_t) item);
        free (account->tally.entries);
        free ((char *) account->name);
    }
    for (uint32_t index = 0; index < self->ndevices; index++)
        free (self->devices [index]);
    zhashx_destroy (&self->owners);
    zhashx_destroy (&self->accounts);
    drover_idheap_destroy (&self->bands);
    drover_slab_destroy (&self->owner_pool);
    drover_slab_destroy (&self->account_pool);
    drover_slab_destroy (&self->band_pool);
    drover_slab_destroy (&self->aentries);
    drover_slab_destroy (&self->oentries);
    free (self);
    *self_p = NULL;
}


//  ---------------------------------------------------------------------
//  Shares

//  Return the share of one resource, 1e-12 units, unweighted; 0 when the
//  resource has no capacity
static uint64_t
s_fraction (uint64_t used, uint64_t capacity)
{
    if (!capacity || !used)
        return 0;
    unsigned __int128 value = (unsigned __int128) used * S_WHOLE / capacity;
    return value > UINT64_MAX? UINT64_MAX: (uint64_t) value;
}

//  Return a tally's dominant resource and set *fraction_p to its share,
//  unweighted (the first resource on a tie; procs when nothing is used)
static uint32_t
s_dominant (drover_fairshare_t *self, const s_tally_t *tally, uint64_t *fraction_p)
{
    uint32_t dominant = S_PROCS;
    uint64_t best = 0;
    for (uint32_t resource = 0; resource < 2 + self->ndevices; resource++) {
        uint64_t fraction = s_fraction (tally->used [resource], self->capacity [resource]);
        if (fraction > best) {
            best = fraction;
            dominant = resource;
        }
    }
    *fraction_p = best;
    return dominant;
}

//  Return the name of a resource
static const char *
s_resource_name (drover_fairshare_t *self, uint32_t resource)
{
    return resource == S_PROCS? "procs": resource == S_MEM? "mem": self->devices [resource - 2];
}

//  Compute a tally's weighted dominant share
static void
s_compute (drover_fairshare_t *self, s_tally_t *tally)
{
    uint64_t fraction;
    s_dominant (self, tally, &fraction);
    tally->share = fraction / tally->weight;
}

//  Count an account's weight among those with demand, or stop counting it,
//  after its waiting work or its usage changed
static void
s_activity (drover_fairshare_t *self, uint32_t handle)
{
    s_account_t *account = s_account (self, handle);
    bool active = account->tally.waiting > 0;
    for (uint32_t resource = 0; resource < S_RES && !active; resource++)
        active = account->tally.used [resource] > 0;
    if (active && !account->active)
        self->active_weights += account->tally.weight;
    else
    if (!active && account->active)
        self->active_weights -= account->tally.weight;
    account->active = active;
}

//  Recompute an owner's share and reorder its entries
static void
s_owner_reorder (drover_fairshare_t *self, uint32_t handle)
{
    s_owner_t *owner = s_owner (self, handle);
    s_compute (self, &owner->tally);
    for (uint32_t index = 0; index < owner->tally.nentries; index++) {
        uint32_t entry_handle = owner->tally.entries [index];
        s_oentry_t *entry = s_oentry (self, entry_handle);
        if (entry->share != owner->tally.share) {
            entry->share = owner->tally.share;
            drover_idheap_fix (s_aentry (self, entry->aentry)->heap, entry_handle);
        }
    }
}

//  Recompute an account's share and reorder its entries
static void
s_account_reorder (drover_fairshare_t *self, uint32_t handle)
{
    s_account_t *account = s_account (self, handle);
    s_compute (self, &account->tally);
    for (uint32_t index = 0; index < account->tally.nentries; index++) {
        uint32_t entry_handle = account->tally.entries [index];
        s_aentry_t *entry = s_aentry (self, entry_handle);
        if (entry->share != account->tally.share) {
            entry->share = account->tally.share;
            drover_idheap_fix (s_band (self, entry->band)->heap, entry_handle);
        }
    }
}

//  Recompute every share and reorder everything: after a capacity changed
static void
s_reorder_all (drover_fairshare_t *self)
{
    for (void *item = zhashx_first (self->owners); item; item = zhashx_next (self->owners)) {
        uint32_t handle = (uint32_t) (uintptr_t) item;
        s_owner_reorder (self, handle);
        s_account_reorder (self, s_owner (self, handle)->solo);
    }
    for (void *item = zhashx_first (self->accounts); item; item = zhashx_next (self->accounts))
        s_account_reorder (self, (uint32_t) (uintptr_t) item);
}


//  ---------------------------------------------------------------------
//  Capacity and devices

//  Set the cluster's capacity of procs and memory
void
drover_fairshare_set_capacity (drover_fairshare_t *self, uint64_t procs, uint64_t mem)
{
    assert (self);
    if (self->capacity [S_PROCS] == procs && self->capacity [S_MEM] == mem)
        return;
    self->capacity [S_PROCS] = procs;
    self->capacity [S_MEM] = mem;
    s_reorder_all (self);
}

//  Return a device's resource index, known from now on; -1 if one too many
static int
s_device (drover_fairshare_t *self, const char *name)
{
    for (uint32_t index = 0; index < self->ndevices; index++)
        if (streq (self->devices [index], name))
            return 2 + (int) index;
    if (self->ndevices == DROVER_FAIRSHARE_DEVICES_MAX || !drover_id_valid (name))
        return -1;
    self->devices [self->ndevices] = strdup (name);
    return 2 + (int) self->ndevices++;
}

//  Set the cluster's capacity of a named device
int
drover_fairshare_set_device_capacity (drover_fairshare_t *self, const char *name, uint64_t count)
{
    assert (self && name);
    int resource = s_device (self, name);
    if (resource < 0)
        return -1;
    if (self->capacity [resource] != count) {
        self->capacity [resource] = count;
        s_reorder_all (self);
    }
    return 0;
}

//  Turn a use into amounts per resource. Returns 0, or -1 if a device is
//  one too many.
static int
s_amounts (drover_fairshare_t *self, const drover_fairshare_use_t *use, uint64_t *amounts)
{
    memset (amounts, 0, S_RES * sizeof (uint64_t));
    amounts [S_PROCS] = use->procs;
    amounts [S_MEM] = use->mem;
    for (size_t index = 0; index < use->ndevices; index++) {
        int resource = s_device (self, use->devices [index].name);
        if (resource < 0)
            return -1;
        amounts [resource] += use->devices [index].count;
    }
    return 0;
}


//  ---------------------------------------------------------------------
//  Owners and accounts

//  Make an account record; name borrowed (solo) or owned (declared)
static uint32_t
s_account_new (drover_fairshare_t *self, const char *name, bool declared, uint32_t weight)
{
    uint32_t handle = drover_slab_insert (self->account_pool, ++self->account_numbers);
    s_account_t *account = s_account (self, handle);
    account->name = name;
    account->declared = declared;
    account->tally.weight = weight;
    return handle;
}

//  Return the handle of an owner, made if new
uint32_t
drover_fairshare_owner (drover_fairshare_t *self, const char *name)
{
    assert (self);
    uint32_t handle = name? (uint32_t) (uintptr_t) zhashx_lookup (self->owners, name): 0;
    if (handle)
        return handle;
    if (!drover_id_valid (name))
        return 0;               //  not a name
    handle = drover_slab_insert (self->owner_pool, ++self->owner_numbers);
    char *copy = strdup (name);
    uint32_t solo = s_account_new (self, copy, false, 1);
    s_owner_t *owner = s_owner (self, handle);
    owner->name = copy;
    owner->solo = solo;
    owner->account = solo;
    owner->tally.weight = 1;
    s_account (self, solo)->members = 1;
    zhashx_insert (self->owners, name, (void *) (uintptr_t) handle);
    return handle;
}

//  Return an owner's name
const char *
drover_fairshare_owner_name (drover_fairshare_t *self, uint32_t owner)
{
    assert (self);
    if (!s_known (self, owner))
        return NULL;
    return s_owner (self, owner)->name;
}

//  Return how many owners are known
size_t
drover_fairshare_owners (drover_fairshare_t *self)
{
    assert (self);
    return zhashx_size (self->owners);
}

static void s_leave_bands (drover_fairshare_t *self, uint32_t owner, int32_t *priorities,
                           uint64_t *counts, uint32_t *count_p);
static void s_enter_band (drover_fairshare_t *self, uint32_t owner, int32_t priority,
                          uint64_t count);

//  Move an owner, with its usage, queued and waiting work, to another account
static void
s_move (drover_fairshare_t *self, uint32_t handle, uint32_t target)
{
    s_owner_t *owner = s_owner (self, handle);
    uint32_t source = owner->account;
    if (source == target)
        return;
    uint32_t nbands = owner->tally.nentries;
    int32_t *priorities = (int32_t *) malloc ((nbands + 1) * sizeof (int32_t));
    uint64_t *counts = (uint64_t *) malloc ((nbands + 1) * sizeof (uint64_t));
    assert (priorities && counts);
    s_leave_bands (self, handle, priorities, counts, &nbands);
    owner = s_owner (self, handle);
    s_account_t *from = s_account (self, source);
    s_account_t *to = s_account (self, target);
    for (uint32_t resource = 0; resource < S_RES; resource++) {
        from->tally.used [resource] -= owner->tally.used [resource];
        to->tally.used [resource] += owner->tally.used [resource];
    }
    from->tally.queued -= owner->tally.queued;
    to->tally.queued += owner->tally.queued;
    from->members--;
    to->members++;
    owner->account = target;
    for (uint32_t index = 0; index < nbands; index++)
        s_enter_band (self, handle, priorities [index], counts [index]);
    free (priorities);
    free (counts);
    s_account_reorder (self, source);
    s_account_reorder (self, target);
    s_activity (self, source);
    s_activity (self, target);
}

//  Change an account's weight, counted among the active ones if it is
static void
s_set_weight (drover_fairshare_t *self, uint32_t handle, uint32_t weight)
{
    s_account_t *account = s_account (self, handle);
    if (account->active)
        self->active_weights = self->active_weights - account->tally.weight + weight;
    account->tally.weight = weight;
    s_account_reorder (self, handle);
}

//  Declare an account or change one
int
drover_fairshare_set_account (drover_fairshare_t *self, const char *name, uint32_t weight,
                             const char **members, size_t nmembers)
{
    assert (self);
    if (!drover_id_valid (name) || weight < 1 || weight > DROVER_FAIRSHARE_WEIGHT_MAX)
        return -1;
    for (size_t index = 0; index < nmembers; index++)
        if (!drover_id_valid (members [index]))
            return -1;
    uint32_t handle = (uint32_t) (uintptr_t) zhashx_lookup (self->accounts, name);
    if (!handle) {
        handle = s_account_new (self, strdup (name), true, weight);
        zhashx_insert (self->accounts, name, (void *) (uintptr_t) handle);
    }
    s_set_weight (self, handle, weight);
    if (!members)
        return 0;
    //  Those it no longer lists go back to their own accounts
    for (void *item = zhashx_first (self->owners); item; item = zhashx_next (self->owners)) {
        uint32_t owner = (uint32_t) (uintptr_t) item;
        if (s_owner (self, owner)->account != handle)
            continue;
        bool listed = false;
        for (size_t index = 0; index < nmembers && !listed; index++)
            listed = streq (members [index], s_owner (self, owner)->name);
        if (!listed)
            s_move (self, owner, s_owner (self, owner)->solo);
    }
    for (size_t index = 0; index < nmembers; index++)
        s_move (self, drover_fairshare_owner (self, members [index]), handle);
    return 0;
}

//  Return true if a tally has a running quota
static bool
s_limited (const s_tally_t *tally)
{
    for (uint32_t resource = 0; resource < S_RES; resource++)
        if (tally->limit [resource])
            return true;
    return false;
}

//  Forget a declared account
int
drover_fairshare_drop_account (drover_fairshare_t *self, const char *name)
{
    assert (self);
    uint32_t handle = name? (uint32_t) (uintptr_t) zhashx_lookup (self->accounts, name): 0;
    if (!handle)
        return -1;
    for (void *item = zhashx_first (self->owners); item; item = zhashx_next (self->owners)) {
        uint32_t owner = (uint32_t) (uintptr_t) item;
        if (s_owner (self, owner)->account == handle)
            s_move (self, owner, s_owner (self, owner)->solo);
    }
    s_account_t *account = s_account (self, handle);
    assert (account->members == 0 && account->tally.nentries == 0);
    if (s_limited (&account->tally))
        self->limited--;
    if (account->active)
        self->active_weights -= account->tally.weight;
    free (account->tally.entries);
    free ((char *) account->name);
    zhashx_delete (self->accounts, name);
    drover_slab_delete (self->account_pool, handle);
    return 0;
}

//  Set an owner's weight
int
drover_fairshare_set_owner_weight (drover_fairshare_t *self, const char *name, uint32_t weight)
{
    assert (self);
    if (weight < 1 || weight > DROVER_FAIRSHARE_WEIGHT_MAX)
        return -1;
    uint32_t handle = drover_fairshare_owner (self, name);
    if (!handle)
        return -1;
    s_owner (self, handle)->tally.weight = weight;
    s_owner_reorder (self, handle);
    s_set_weight (self, s_owner (self, handle)->solo, weight);
    return 0;
}

//  Set the quotas of a declared account, else of an owner
int
drover_fairshare_set_quota (drover_fairshare_t *self, const char *name,
                           const drover_fairshare_quota_t *quota)
{
    assert (self && quota);
    uint64_t limit [S_RES] = { quota->procs, quota->mem };
    for (size_t index = 0; index < quota->ndevices; index++) {
        int resource = s_device (self, quota->devices [index].name);
        if (resource < 0)
            return -1;
        limit [resource] = quota->devices [index].count;
    }
    uint32_t handle = name? (uint32_t) (uintptr_t) zhashx_lookup (self->accounts, name): 0;
    s_tally_t *tally;
    if (handle)
        tally = &s_account (self, handle)->tally;
    else {
        handle = drover_fairshare_owner (self, name);
        if (!handle)
            return -1;
        tally = &s_owner (self, handle)->tally;
    }
    self->limited -= s_limited (tally);
    memcpy (tally->limit, limit, sizeof limit);
    self->limited += s_limited (tally);
    tally->max_queued = quota->queued;
    return 0;
}

//  Return true if some owner or account has a running quota
bool
drover_fairshare_has_quotas (drover_fairshare_t *self)
{
    assert (self);
    return self->limited > 0;
}

//  Return the handle of the account an owner is in now (0 if unknown):
//  equal for owners that share an account
uint32_t
drover_fairshare_account_of (drover_fairshare_t *self, uint32_t owner)
{
    assert (self);
    return s_known (self, owner)? s_owner (self, owner)->account: 0;
}


//  ---------------------------------------------------------------------
//  The bands

//  Append a handle to a tally's entries
static void
s_entries_add (s_tally_t *tally, uint32_t handle)
{
    if (tally->nentries == tally->entries_capacity) {
        tally->entries_capacity = tally->entries_capacity? tally->entries_capacity * 2: 4;
        tally->entries = (uint32_t *) realloc (tally->entries,
                                               tally->entries_capacity * sizeof (uint32_t));
        assert (tally->entries);
    }
    tally->entries [tally->nentries++] = handle;
}

//  Take a handle off a tally's entries (few: one per band it waits in)
static void
s_entries_drop (s_tally_t *tally, uint32_t handle)
{
    for (uint32_t index = 0; index < tally->nentries; index++)
        if (tally->entries [index] == handle) {
            tally->entries [index] = tally->entries [--tally->nentries];
            return;
        }
    assert (false);             //  our own bug: an entry its tally does not know
}

//  Return the key of a band: the priority biased so that it is unsigned
static inline uint64_t
s_band_key (int32_t priority)
{
    return (uint64_t) ((uint32_t) priority ^ 0x80000000u) + 1;
}

//  Return a band's handle, made if new (make), or 0
static uint32_t
s_band_find (drover_fairshare_t *self, int32_t priority, bool make)
{
    uint32_t handle = drover_slab_find (self->band_pool, s_band_key (priority));
    if (handle || !make)
        return handle;
    handle = drover_slab_insert (self->band_pool, s_band_key (priority));
    s_band_t *band = s_band (self, handle);
    band->priority = priority;
    band->heap = drover_idheap_new (self->aentries, s_aentry_less, offsetof (s_aentry_t, index));
    drover_idheap_push (self->bands, handle);
    return handle;
}

//  Count waiting work of an owner at a priority, entering the band (and
//  its account entering it) if new
static void
s_enter_band (drover_fairshare_t *self, uint32_t owner_handle, int32_t priority, uint64_t count)
{
    uint32_t band = s_band_find (self, priority, true);
    uint32_t account_handle = s_owner (self, owner_handle)->account;
    s_account_t *account = s_account (self, account_handle);
    uint64_t akey = (uint64_t) band << 32 | account_handle;
    uint32_t aentry = drover_slab_find (self->aentries, akey);
    if (!aentry) {
        aentry = drover_slab_insert (self->aentries, akey);
        s_aentry_t *entry = s_aentry (self, aentry);
        entry->share = account->tally.share;
        entry->name = account->name;
        entry->account = account_handle;
        entry->band = band;
        entry->solo = !account->declared;
        entry->heap = drover_idheap_new (self->oentries, s_oentry_less,
                                        offsetof (s_oentry_t, index));
        drover_idheap_push (s_band (self, band)->heap, aentry);
        s_entries_add (&account->tally, aentry);
    }
    s_owner_t *owner = s_owner (self, owner_handle);
    uint64_t okey = (uint64_t) band << 32 | owner_handle;
    uint32_t oentry = drover_slab_find (self->oentries, okey);
    if (!oentry) {
        oentry = drover_slab_insert (self->oentries, okey);
        s_oentry_t *entry = s_oentry (self, oentry);
        entry->share = owner->tally.share;
        entry->name = owner->name;
        entry->owner = owner_handle;
        entry->aentry = aentry;
        entry->band = band;
        drover_idheap_push (s_aentry (self, aentry)->heap, oentry);
        s_entries_add (&owner->tally, oentry);
    }
    s_oentry (self, oentry)->waiting += count;
    owner->tally.waiting += count;
    account->tally.waiting += count;
}

//  Take an owner's entry out of its band, and its account's entry and the
//  band itself when they are left empty
static void
s_leave_entry (drover_fairshare_t *self, uint32_t oentry)
{
    s_oentry_t *entry = s_oentry (self, oentry);
    s_owner_t *owner = s_owner (self, entry->owner);
    uint32_t aentry = entry->aentry;
    uint32_t band = entry->band;
    s_aentry_t *aent = s_aentry (self, aentry);
    s_account_t *account = s_account (self, aent->account);
    owner->tally.waiting -= entry->waiting;
    account->tally.waiting -= entry->waiting;
    drover_idheap_remove (aent->heap, oentry);
    s_entries_drop (&owner->tally, oentry);
    drover_slab_delete (self->oentries, oentry);
    if (drover_idheap_size (aent->heap))
        return;
    drover_idheap_destroy (&aent->heap);
    drover_idheap_remove (s_band (self, band)->heap, aentry);
    s_entries_drop (&account->tally, aentry);
    drover_slab_delete (self->aentries, aentry);
    s_band_t *record = s_band (self, band);
    if (drover_idheap_size (record->heap))
        return;
    drover_idheap_destroy (&record->heap);
    drover_idheap_remove (self->bands, band);
    drover_slab_delete (self->band_pool, band);
}

//  Take an owner out of every band, saying at which priorities and with
//  how much waiting work it was (arrays of at least its entries)
static void
s_leave_bands (drover_fairshare_t *self, uint32_t owner, int32_t *priorities, uint64_t *counts,
               uint32_t *count_p)
{
    uint32_t count = 0;
    while (s_owner (self, owner)->tally.nentries) {
        uint32_t oentry = s_owner (self, owner)->tally.entries [0];
        s_oentry_t *entry = s_oentry (self, oentry);
        priorities [count] = s_band (self, entry->band)->priority;
        counts [count++] = entry->waiting;
        s_leave_entry (self, oentry);
    }
    *count_p = count;
}

//  Count or stop counting waiting tasks of an owner at a priority
int
drover_fairshare_wait (drover_fairshare_t *self, uint32_t owner, int32_t priority, int64_t delta)
{
    assert (self);
    if (!s_known (self, owner))
        return -1;
    if (delta > 0)
        s_enter_band (self, owner, priority, (uint64_t) delta);
    else
    if (delta < 0) {
        uint32_t band = s_band_find (self, priority, false);
        uint32_t oentry = band?
            drover_slab_find (self->oentries, (uint64_t) band << 32 | owner): 0;
        uint64_t count = (uint64_t) -delta;
        if (!oentry || s_oentry (self, oentry)->waiting < count)
            return -1;          //  not that many waiting
        if (s_oentry (self, oentry)->waiting == count)
            s_leave_entry (self, oentry);
        else {
            s_oentry (self, oentry)->waiting -= count;
            s_owner (self, owner)->tally.waiting -= count;
            s_account (self, s_owner (self, owner)->account)->tally.waiting -= count;
        }
    }
    s_activity (self, s_owner (self, owner)->account);
    return 0;
}

//  Return the owner first in a band
static uint32_t
s_band_next (drover_fairshare_t *self, uint32_t band)
{
    uint32_t aentry = drover_idheap_top (s_band (self, band)->heap);
    uint32_t oentry = drover_idheap_top (s_aentry (self, aentry)->heap);
    return s_oentry (self, oentry)->owner;
}

//  Return the owner to serve next
uint32_t
drover_fairshare_next (drover_fairshare_t *self, int32_t *priority_p)
{
    assert (self);
    uint32_t band = drover_idheap_top (self->bands);
    if (!band)
        return 0;
    if (priority_p)
        *priority_p = s_band (self, band)->priority;
    return s_band_next (self, band);
}

//  Return true if all the work waiting is one owner's, at one priority
bool
drover_fairshare_one_waiting (drover_fairshare_t *self)
{
    assert (self);
    if (drover_idheap_size (self->bands) != 1)
        return false;
    s_band_t *band = s_band (self, drover_idheap_top (self->bands));
    if (drover_idheap_size (band->heap) != 1)
        return false;
    return drover_idheap_size (s_aentry (self, drover_idheap_top (band->heap))->heap) == 1;
}

//  Return the owner to serve next in one priority band
uint32_t
drover_fairshare_next_at (drover_fairshare_t *self, int32_t priority)
{
    assert (self);
    uint32_t band = s_band_find (self, priority, false);
    return band? s_band_next (self, band): 0;
}


//  ---------------------------------------------------------------------
//  Usage

//  Count a task of an owner as running
int
drover_fairshare_place (drover_fairshare_t *self, uint32_t owner,
                       const drover_fairshare_use_t *use)
{
    assert (self && use);
    uint64_t amounts [S_RES];
    if (!s_known (self, owner) || s_amounts (self, use, amounts))
        return -1;
    s_tally_t *tally = &s_owner (self, owner)->tally;
    uint32_t account = s_owner (self, owner)->account;
    for (uint32_t resource = 0; resource < S_RES; resource++) {
        tally->used [resource] += amounts [resource];
        s_account (self, account)->tally.used [resource] += amounts [resource];
    }
    s_owner_reorder (self, owner);
    s_account_reorder (self, account);
    s_activity (self, account);
    return 0;
}

//  Stop counting a running task of an owner
void
drover_fairshare_free (drover_fairshare_t *self, uint32_t owner, const drover_fairshare_use_t *use)
{
    assert (self && use);
    uint64_t amounts [S_RES];
    if (!s_known (self, owner) || s_amounts (self, use, amounts))
        return;                 //  never counted
    s_tally_t *tally = &s_owner (self, owner)->tally;
    uint32_t account = s_owner (self, owner)->account;
    for (uint32_t resource = 0; resource < S_RES; resource++) {
        uint64_t amount = amounts [resource] < tally->used [resource]?
                          amounts [resource]: tally->used [resource];
        tally->used [resource] -= amount;
        s_account (self, account)->tally.used [resource] -= amount;
    }
    s_owner_reorder (self, owner);
    s_account_reorder (self, account);
    s_activity (self, account);
}


//  ---------------------------------------------------------------------
//  Quotas

//  Check amounts against a tally's running quotas; fill *refusal on the
//  first exceeded. Returns 0 or -1.
static int
s_check_tally (drover_fairshare_t *self, const s_tally_t *tally, const uint64_t *amounts,
               const char *who, bool account, drover_fairshare_refusal_t *refusal)
{
    for (uint32_t resource = 0; resource < 2 + self->ndevices; resource++) {
        uint64_t limit = tally->limit [resource];
        if (limit && amounts [resource] && tally->used [resource] + amounts [resource] > limit) {
            if (refusal)
                *refusal = (drover_fairshare_refusal_t) {
                    .who = who, .account = account, .resource = s_resource_name (self, resource),
                    .used = tally->used [resource], .limit = limit };
            return -1;
        }
    }
    return 0;
}

//  Return 0 if a task may start within the running quotas
int
drover_fairshare_check (drover_fairshare_t *self, uint32_t owner,
                       const drover_fairshare_use_t *use, drover_fairshare_refusal_t *refusal)
{
    assert (self && use);
    uint64_t amounts [S_RES];
    if (!s_known (self, owner))
        return 0;               //  nobody's: no quota
    if (s_amounts (self, use, amounts)) {
        if (refusal)            //  a device past the names counted: none may run
            *refusal = (drover_fairshare_refusal_t) {
                .who = s_owner (self, owner)->name, .resource = "devices", .used = 0,
                .limit = DROVER_FAIRSHARE_DEVICES_MAX };
        return -1;
    }
    s_owner_t *record = s_owner (self, owner);
    s_account_t *account = s_account (self, record->account);
    if (s_check_tally (self, &record->tally, amounts, record->name, false, refusal))
        return -1;
    return s_check_tally (self, &account->tally, amounts, account->name, account->declared,
                          refusal);
}

//  Count tasks of an owner as queued or no longer
void
drover_fairshare_add_queued (drover_fairshare_t *self, uint32_t owner, int64_t delta)
{
    assert (self);
    if (!s_known (self, owner))
        return;
    s_tally_t *tally = &s_owner (self, owner)->tally;
    s_tally_t *account = &s_account (self, s_owner (self, owner)->account)->tally;
    if (delta < 0 && (uint64_t) -delta > tally->queued)
        delta = - (int64_t) tally->queued;
    tally->queued += delta;
    account->queued += delta;
}

//  Return 0 if count more tasks may be queued for an owner
int
drover_fairshare_may_queue (drover_fairshare_t *self, uint32_t owner, uint64_t count,
                           drover_fairshare_refusal_t *refusal)
{
    assert (self);
    if (!s_known (self, owner))
        return 0;
    s_owner_t *record = s_owner (self, owner);
    s_account_t *account = s_account (self, record->account);
    const s_tally_t *tallies [2] = { &record->tally, &account->tally };
    for (int index = 0; index < 2; index++) {
        const s_tally_t *tally = tallies [index];
        if (tally->max_queued && tally->queued + count > tally->max_queued) {
            if (refusal)
                *refusal = (drover_fairshare_refusal_t) {
                    .who = index? account->name: record->name,
                    .account = index && account->declared, .resource = "queued",
                    .used = tally->queued, .limit = tally->max_queued };
            return -1;
        }
    }
    return 0;
}


//  ---------------------------------------------------------------------
//  Standings

//  Return a share in 1e-12 units as permille, rounded down
static inline uint32_t
s_permille (uint64_t fraction)
{
    uint64_t permille = fraction / (S_WHOLE / 1000);
    return permille > UINT32_MAX? UINT32_MAX: (uint32_t) permille;
}

//  Fill *standing with an owner's shares and usage
int
drover_fairshare_standing (drover_fairshare_t *self, uint32_t owner,
                          drover_fairshare_standing_t *standing)
{
    assert (self && standing);
    if (!s_known (self, owner))
        return -1;
    s_owner_t *record = s_owner (self, owner);
    s_account_t *account = s_account (self, record->account);
    uint64_t owner_fraction, account_fraction;
    uint32_t owner_resource = s_dominant (self, &record->tally, &owner_fraction);
    uint32_t account_resource = s_dominant (self, &account->tally, &account_fraction);
    uint64_t weights = self->active_weights + (account->active? 0: account->tally.weight);
    uint32_t fair = (uint32_t) (account->tally.weight * 1000ULL / weights);
    *standing = (drover_fairshare_standing_t) {
        .owner = record->name,
        .account = account->name,
        .solo = !account->declared,
        .owner_weight = record->tally.weight,
        .account_weight = account->tally.weight,
        .owner_permille = s_permille (owner_fraction),
        .owner_resource = s_resource_name (self, owner_resource),
        .account_permille = s_permille (account_fraction),
        .account_resource = s_resource_name (self, account_resource),
        .fair_permille = fair,
        .above = (unsigned __int128) account_fraction * weights
                 > (unsigned __int128) account->tally.weight * S_WHOLE,
        .waiting = record->tally.waiting,
        .queued = record->tally.queued,
        .procs = (uint32_t) record->tally.used [S_PROCS],
        .mem = record->tally.used [S_MEM]
    };
    for (uint32_t index = 0; index < self->ndevices; index++)
        if (record->tally.used [2 + index])
            standing->devices [standing->ndevices++] = (drover_fairshare_device_t) {
                self->devices [index], (uint32_t) record->tally.used [2 + index] };
    return 0;
}

//  Write a permille as a percentage: "60%", or "12.5%" when not whole
static void
s_percent (char *text, size_t size, uint32_t permille)
{
    if (permille % 10)
        snprintf (text, size, "%u.%u%%", permille / 10, permille % 10);
    else
        snprintf (text, size, "%u%%", permille / 10);
}

//  Say why an owner waits for its share, or NULL if its account is not above
char *
drover_fairshare_describe (drover_fairshare_t *self, uint32_t owner)
{
    assert (self);
    drover_fairshare_standing_t standing;
    if (drover_fairshare_standing (self, owner, &standing) || !standing.above)
        return NULL;
    char used [16], fair [16];
    s_percent (used, sizeof used, standing.account_permille);
    s_percent (fair, sizeof fair, standing.fair_permille);
    if (standing.solo)
        return zsys_sprintf ("owner %s is above their share: %s of %s against %s",
                             standing.owner, used, standing.account_resource, fair);
    return zsys_sprintf ("account %s of owner %s is above its share: %s of %s against %s",
                         standing.account, standing.owner, used, standing.account_resource,
                         fair);
}

//  An owner's place in a listing: by account name, then owner name
typedef struct {
    const char *account;        //  its account's name
    const char *owner;          //  its name
    uint32_t handle;            //  owner handle
} s_listed_t;

//  Listing order: account name, then owner name
static int
s_listed_compare (const void *a, const void *b)
{
    const s_listed_t *one = (const s_listed_t *) a;
    const s_listed_t *two = (const s_listed_t *) b;
    int order = strcmp (one->account, two->account);
    return order? order: strcmp (one->owner, two->owner);
}

//  Call fn for every known owner, by account name then owner name
void
drover_fairshare_each_owner (drover_fairshare_t *self, drover_fairshare_owner_fn *fn, void *arg)
{
    assert (self && fn);
    size_t count = zhashx_size (self->owners);
    s_listed_t *listed = (s_listed_t *) malloc ((count + 1) * sizeof (s_listed_t));
    assert (listed);
    for (uint32_t handle = 1; handle <= count; handle++) {
        s_owner_t *owner = s_owner (self, handle);
        listed [handle - 1] = (s_listed_t) {
            s_account (self, owner->account)->name, owner->name, handle };
    }
    qsort (listed, count, sizeof (s_listed_t), s_listed_compare);
    for (size_t index = 0; index < count; index++) {
        drover_fairshare_standing_t standing;
        drover_fairshare_standing (self, listed [index].handle, &standing);
        fn (&standing, arg);
    }
    free (listed);
}


//  ---------------------------------------------------------------------
//  Verification

//  Check that a heap is in order; 0 or -1
static int
s_heap_ordered (drover_idheap_t *heap, drover_slab_t *pool, drover_idheap_less_fn *less)
{
    for (size_t index = 1; index < drover_idheap_size (heap); index++) {
        const void *child = drover_slab_get (pool, drover_idheap_at (heap, index));
        const void *parent = drover_slab_get (pool, drover_idheap_at (heap, (index - 1) / 2));
        if (less (child, parent))
            return -1;
    }
    return 0;
}

//  Log a broken invariant and return -1
static int
s_broken (const char *what, const char *name)
{
    zsys_error ("fairshare: broken invariant: %s (%s)", what, name);
    return -1;
}

//  Check the bands: heaps in order, copies of shares current, counts
static int
s_verify_bands (drover_fairshare_t *self, uint64_t *waiting_p)
{
    if (s_heap_ordered (self->bands, self->band_pool, s_band_less))
        return s_broken ("bands out of order", "");
    for (size_t bi = 0; bi < drover_idheap_size (self->bands); bi++) {
        s_band_t *band = s_band (self, drover_idheap_at (self->bands, bi));
        if (!drover_idheap_size (band->heap))
            return s_broken ("an empty band", "");
        if (s_heap_ordered (band->heap, self->aentries, s_aentry_less))
            return s_broken ("accounts out of order", "");
        for (size_t ai = 0; ai < drover_idheap_size (band->heap); ai++) {
            s_aentry_t *aentry = s_aentry (self, drover_idheap_at (band->heap, ai));
            if (aentry->share != s_account (self, aentry->account)->tally.share)
                return s_broken ("an account's share not copied", aentry->name);
            if (!drover_idheap_size (aentry->heap))
                return s_broken ("an empty account entry", aentry->name);
            if (s_heap_ordered (aentry->heap, self->oentries, s_oentry_less))
                return s_broken ("owners out of order", aentry->name);
            for (size_t oi = 0; oi < drover_idheap_size (aentry->heap); oi++) {
                s_oentry_t *oentry = s_oentry (self, drover_idheap_at (aentry->heap, oi));
                s_owner_t *owner = s_owner (self, oentry->owner);
                if (oentry->share != owner->tally.share || owner->account != aentry->account)
                    return s_broken ("an owner entry out of date", oentry->name);
                if (!oentry->waiting)
                    return s_broken ("an owner entry with nothing waiting", oentry->name);
                *waiting_p += oentry->waiting;
            }
        }
    }
    return 0;
}

//  Check every invariant
int
drover_fairshare_verify (drover_fairshare_t *self)
{
    assert (self);
    uint64_t waiting = 0;
    if (s_verify_bands (self, &waiting))
        return -1;
    //  Each account's usage, queued and waiting work: the sums of its members'
    size_t naccounts = self->account_numbers + 1;
    uint64_t (*sums) [S_RES + 2] = calloc (naccounts, sizeof (*sums));
    assert (sums);
    uint64_t owners_waiting = 0;
    for (uint32_t handle = 1; handle <= zhashx_size (self->owners); handle++) {
        s_owner_t *owner = s_owner (self, handle);
        uint64_t *sum = sums [s_account (self, owner->account)->key];
        for (uint32_t resource = 0; resource < S_RES; resource++)
            sum [resource] += owner->tally.used [resource];
        sum [S_RES] += owner->tally.queued;
        sum [S_RES + 1] += owner->tally.waiting;
        owners_waiting += owner->tally.waiting;
    }
    int rc = owners_waiting == waiting? 0: s_broken ("waiting counts", "owners");
    uint64_t weights = 0;
    for (uint32_t number = 1; number < naccounts && rc == 0; number++) {
        uint32_t handle = drover_slab_find (self->account_pool, number);
        if (!handle)
            continue;
        s_account_t *account = s_account (self, handle);
        const uint64_t *sum = sums [number];
        for (uint32_t resource = 0; resource < S_RES && rc == 0; resource++)
            if (sum [resource] != account->tally.used [resource])
                rc = s_broken ("usage not the sum of its members'", account->name);
        if (rc == 0 && (sum [S_RES] != account->tally.queued
                    ||  sum [S_RES + 1] != account->tally.waiting))
            rc = s_broken ("queued or waiting not the sum of its members'", account->name);
        if (account->active)
            weights += account->tally.weight;
    }
    if (rc == 0 && weights != self->active_weights)
        rc = s_broken ("weights of the accounts with demand", "");
    free (sums);
    return rc;
}
