/*  =========================================================================
    drover_fairshare - who is served next among owners that wait: Dominant
    Resource Fairness over procs, memory and counted devices, and the
    quotas of owners and accounts

    Owners are grouped into accounts, each with a weight (default 1); an
    owner in no account is an account of its own, named after it, with the
    owner's weight. Running usage (procs, memory, devices by name) is kept
    per owner and per account, updated on place and free. An account's
    dominant share is the largest of used / capacity over the resources,
    divided by its weight; an owner's likewise, with the owner's weight.

    The caller says which owners have work waiting at which priority.
    Per priority band (lower first) the accounts with waiting work wait in
    a heap, lowest dominant share first, ties by name; in each, its owners
    with waiting work likewise. drover_fairshare_next gives the owner to
    serve in O(1); a placement or free reorders its owner and its account
    in each band they wait in, O(log n) each (bands are few). A change of
    capacity, weight or membership reorders all: O(n log n), rare.
    A plain class: no threads, no I/O, no clock.
    =========================================================================
*/

#ifndef DROVER_FAIRSHARE_H_INCLUDED
#define DROVER_FAIRSHARE_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_fairshare_t drover_fairshare_t;

//  Distinct device names counted, at most
#define DROVER_FAIRSHARE_DEVICES_MAX    8

//  Most weight an account or owner may have
#define DROVER_FAIRSHARE_WEIGHT_MAX     1000000

//  A count of one named device
typedef struct {
    const char *name;           //  device name, "gpu" (borrowed)
    uint32_t count;             //  how many
} drover_fairshare_device_t;

//  What a task uses while it runs
typedef struct {
    uint32_t procs;             //  procs
    uint64_t mem;               //  memory, bytes (0: none counted)
    const drover_fairshare_device_t *devices;  //  devices (borrowed), or NULL
    size_t ndevices;            //  entries in devices
} drover_fairshare_use_t;

//  The quotas of an account or owner; 0 is no limit
typedef struct {
    uint32_t procs;             //  most procs running at once
    uint64_t mem;               //  most memory running at once, bytes
    drover_fairshare_device_t devices [DROVER_FAIRSHARE_DEVICES_MAX];  //  most of each
                                //  device running at once (names borrowed)
    size_t ndevices;            //  entries in devices
    uint32_t queued;            //  most tasks queued
} drover_fairshare_quota_t;

//  Why a quota refuses: pointers borrowed, valid until the next change
typedef struct {
    const char *who;            //  the owner's or the account's name
    bool account;               //  who is an account (else an owner)
    const char *resource;       //  "procs", "mem", "queued" or a device name
    uint64_t used;              //  used now (queued: tasks queued now)
    uint64_t limit;             //  the quota
} drover_fairshare_refusal_t;

//  An owner's standing, for explaining why its task waits and for SHARE
//  TABLE: pointers borrowed, valid until the next change
typedef struct {
    const char *owner;          //  the owner's name
    const char *account;        //  its account's name (the owner's own if solo)
    bool solo;                  //  in no declared account
    uint32_t owner_weight;      //  the owner's weight within its account
    uint32_t account_weight;    //  the account's weight
    uint32_t owner_permille;    //  the owner's dominant share, unweighted, permille
    const char *owner_resource; //  the owner's dominant resource
    uint32_t account_permille;  //  the account's dominant share, unweighted, permille
    const char *account_resource;   //  the account's dominant resource
    uint32_t fair_permille;     //  the account's fair share: its weight over the sum of
                                //  the weights of the accounts with demand, permille
    bool above;                 //  the account's dominant share exceeds its fair share
    uint64_t waiting;           //  the owner's tasks waiting (as the caller said)
    uint64_t queued;            //  the owner's tasks queued (add_queued)
    uint32_t procs;             //  the owner's procs running
    uint64_t mem;               //  the owner's memory running, bytes
    drover_fairshare_device_t devices [DROVER_FAIRSHARE_DEVICES_MAX];  //  the owner's
                                //  devices running, by name (names borrowed), those it holds
    size_t ndevices;            //  entries in devices
} drover_fairshare_standing_t;

//  Create an empty table: no accounts, no owners, no capacity
drover_fairshare_t *
    drover_fairshare_new (void);

//  Destroy the table; harmless on NULL
void
    drover_fairshare_destroy (drover_fairshare_t **self_p);

//  Set the cluster's capacity of procs and memory (bytes), the sums over
//  the workers that take work; a resource of capacity 0 is not counted
void
    drover_fairshare_set_capacity (drover_fairshare_t *self, uint64_t procs, uint64_t mem);

//  Set the cluster's capacity of a named device. Returns 0, or -1 if
//  DROVER_FAIRSHARE_DEVICES_MAX names are known already.
int
    drover_fairshare_set_device_capacity (drover_fairshare_t *self, const char *name,
                                         uint64_t count);

//  Return the handle of an owner (never 0), known from now on: an account
//  of its own until some account lists it. Returns 0 if name is not an id.
uint32_t
    drover_fairshare_owner (drover_fairshare_t *self, const char *name);

//  Return an owner's name (borrowed), or NULL if the handle is unknown
const char *
    drover_fairshare_owner_name (drover_fairshare_t *self, uint32_t owner);

//  Declare an account, or change one: its weight (1..WEIGHT_MAX) and its
//  members (names; NULL keeps them as they are). Owners it no longer
//  lists become accounts of their own; owners it lists leave the account
//  they were in. Returns 0, or -1 if a name is not an id or the weight is
//  out of range.
int
    drover_fairshare_set_account (drover_fairshare_t *self, const char *name, uint32_t weight,
                                 const char **members, size_t nmembers);

//  Forget a declared account; its members become accounts of their own.
//  Returns 0, or -1 if unknown.
int
    drover_fairshare_drop_account (drover_fairshare_t *self, const char *name);

//  Set an owner's weight within its account (and as its own account's
//  weight while solo). Returns 0, or -1 if out of range or not an id.
int
    drover_fairshare_set_owner_weight (drover_fairshare_t *self, const char *name,
                                      uint32_t weight);

//  Set the quotas of a declared account by that name, else of the owner
//  by that name. Returns 0, or -1 if not an id or a device name is one
//  too many.
int
    drover_fairshare_set_quota (drover_fairshare_t *self, const char *name,
                               const drover_fairshare_quota_t *quota);

//  Count waiting tasks of an owner at a priority (delta > 0) or stop
//  counting them (delta < 0): while an owner has some at a priority it
//  is in that band's order. Returns 0, or -1 if that would go below 0.
int
    drover_fairshare_wait (drover_fairshare_t *self, uint32_t owner, int32_t priority,
                          int64_t delta);

//  Return the owner to serve next: in the lowest priority band with
//  waiting work, the account with the lowest dominant share, and in it
//  the owner with the lowest (ties by name). Sets *priority_p if given.
//  Returns 0 if nobody waits.
uint32_t
    drover_fairshare_next (drover_fairshare_t *self, int32_t *priority_p);

//  Return true if all the work waiting is one owner's, at one priority
bool
    drover_fairshare_one_waiting (drover_fairshare_t *self);

//  Return the owner to serve next in one priority band, or 0
uint32_t
    drover_fairshare_next_at (drover_fairshare_t *self, int32_t priority);

//  Count a task of an owner as running. Returns 0, or -1 if a device name
//  is one too many.
int
    drover_fairshare_place (drover_fairshare_t *self, uint32_t owner,
                           const drover_fairshare_use_t *use);

//  Stop counting a running task of an owner (what place counted)
void
    drover_fairshare_free (drover_fairshare_t *self, uint32_t owner,
                          const drover_fairshare_use_t *use);

//  Return 0 if a task may start for an owner within the running quotas of
//  the owner and its account, else -1 and fill *refusal (may be NULL)
int
    drover_fairshare_check (drover_fairshare_t *self, uint32_t owner,
                           const drover_fairshare_use_t *use,
                           drover_fairshare_refusal_t *refusal);

//  Return true if some owner or account has a running quota
bool
    drover_fairshare_has_quotas (drover_fairshare_t *self);

//  Return the handle of the account an owner is in now, 0 if the owner is
//  unknown: owners of one account get the same (their own when solo)
uint32_t
    drover_fairshare_account_of (drover_fairshare_t *self, uint32_t owner);

//  Count tasks of an owner as queued (delta > 0) or no longer (delta < 0),
//  for the queued quotas
void
    drover_fairshare_add_queued (drover_fairshare_t *self, uint32_t owner, int64_t delta);

//  Return 0 if count more tasks may be queued for an owner within the
//  queued quotas of the owner and its account, else -1 and fill *refusal
int
    drover_fairshare_may_queue (drover_fairshare_t *self, uint32_t owner, uint64_t count,
                               drover_fairshare_refusal_t *refusal);

//  Fill *standing with an owner's shares and usage. Returns 0, or -1 if
//  the handle is unknown.
int
    drover_fairshare_standing (drover_fairshare_t *self, uint32_t owner,
                              drover_fairshare_standing_t *standing);

//  Say why an owner waits for its share, e.g. "owner alice is above her
//  share: 60% of procs against 25%", or NULL if its account is not above
//  its fair share. Caller frees.
char *
    drover_fairshare_describe (drover_fairshare_t *self, uint32_t owner);

//  Called once per known owner, by name, with its standing (borrowed)
typedef void (drover_fairshare_owner_fn) (const drover_fairshare_standing_t *standing,
                                         void *arg);

//  Call fn for every known owner, by account name then owner name
void
    drover_fairshare_each_owner (drover_fairshare_t *self, drover_fairshare_owner_fn *fn,
                                void *arg);

//  Return how many owners are known
size_t
    drover_fairshare_owners (drover_fairshare_t *self);

//  Check every invariant (heaps in order, each account's usage the sum of
//  its members', the weights of accounts with demand): 0, or -1 and log
//  what is wrong. For tests.
int
    drover_fairshare_verify (drover_fairshare_t *self);

#ifdef __cplusplus
}
#endif

#endif
