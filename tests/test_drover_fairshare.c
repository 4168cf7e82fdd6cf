/*  =========================================================================
    test_drover_fairshare - the fair order (Dominant Resource Fairness) on
    a simulated cluster with a fake clock, quotas, standings, membership
    changes, and a thousand owners checked against a brute-force order
    =========================================================================
*/

#include "testutil.h"
#include "drover_fairshare.h"

//  ---------------------------------------------------------------------
//  A simulated cluster: tasks of equal length keep it full

#define S_MAX_OWNERS    8
#define S_MAX_RUNNING   4096

//  A running task
typedef struct {
    uint64_t ends;              //  fake msec it ends at
    uint32_t owner;             //  its owner's handle
    uint32_t procs;             //  procs it holds
    uint64_t mem;               //  memory it holds, bytes
} s_running_t;

//  The simulation: owners that always have work waiting
typedef struct {
    drover_fairshare_t *share;  //  the table under test
    uint32_t procs;             //  procs of the cluster
    uint64_t mem;               //  memory of the cluster, bytes
    uint32_t procs_used;        //  procs running
    uint64_t mem_used;          //  memory running
    s_running_t running [S_MAX_RUNNING];    //  tasks running
    size_t nrunning;            //  entries in running
    uint64_t now;               //  fake clock, msec
    uint64_t length;            //  every task's length, msec
    uint32_t task_mem [S_MAX_OWNERS + 1];   //  memory each owner's tasks take, MiB
    uint32_t held [S_MAX_OWNERS + 1];       //  procs each owner holds now
} s_sim_t;

//  Start a simulation of procs and mem (MiB) where tasks last length msec
static void
s_sim_init (s_sim_t *sim, uint32_t procs, uint64_t mem_mib, uint64_t length)
{
    memset (sim, 0, sizeof *sim);
    sim->share = drover_fairshare_new ();
    sim->procs = procs;
    sim->mem = mem_mib << 20;
    sim->length = length;
    drover_fairshare_set_capacity (sim->share, procs, sim->mem);
}

//  Bring an owner in with endless work waiting at priority 0
static uint32_t
s_sim_owner (s_sim_t *sim, const char *name, uint32_t task_mem_mib)
{
    uint32_t owner = drover_fairshare_owner (sim->share, name);
    assert_true (owner > 0 && owner <= S_MAX_OWNERS);
    sim->task_mem [owner] = task_mem_mib;
    assert_int_equal (drover_fairshare_wait (sim->share, owner, 0, 1000000), 0);
    return owner;
}

//  Fill the cluster in fair order; each task of the first fill ends after
//  a part of length spread over the tasks, so that the ends are staggered
static void
s_sim_fill (s_sim_t *sim, bool stagger)
{
    uint32_t owner;
    while ((owner = drover_fairshare_next (sim->share, NULL)) != 0) {
        uint64_t mem = (uint64_t) sim->task_mem [owner] << 20;
        if (sim->procs_used + 1 > sim->procs || sim->mem_used + mem > sim->mem)
            break;              //  the head does not fit: the cluster is full
        drover_fairshare_use_t use = { .procs = 1, .mem = mem };
        assert_int_equal (drover_fairshare_place (sim->share, owner, &use), 0);
        assert_int_equal (drover_fairshare_wait (sim->share, owner, 0, -1), 0);
        assert_int_equal (drover_fairshare_wait (sim->share, owner, 0, 1), 0);    //  more comes
        assert_true (sim->nrunning < S_MAX_RUNNING);
        uint64_t length = stagger? 1 + sim->nrunning % sim->length: sim->length;
        sim->running [sim->nrunning++] = (s_running_t) {
            .ends = sim->now + length, .owner = owner, .procs = 1, .mem = mem };
        sim->procs_used++;
        sim->mem_used += mem;
        sim->held [owner]++;
    }
}

//  Advance the clock by one msec: free what ends, fill again
static void
s_sim_tick (s_sim_t *sim)
{
    sim->now++;
    for (size_t index = 0; index < sim->nrunning; ) {
        s_running_t *task = &sim->running [index];
        if (task->ends <= sim->now) {
            drover_fairshare_use_t use = { .procs = task->procs, .mem = task->mem };
            drover_fairshare_free (sim->share, task->owner, &use);
            sim->procs_used -= task->procs;
            sim->mem_used -= task->mem;
            sim->held [task->owner] -= task->procs;
            *task = sim->running [--sim->nrunning];
        }
        else
            index++;
    }
    s_sim_fill (sim, false);
}

//  Run the clock for msec, summing each owner's procs at each tick
static void
s_sim_run (s_sim_t *sim, uint64_t msec, uint64_t *sums)
{
    for (uint64_t tick = 0; tick < msec; tick++) {
        s_sim_tick (sim);
        for (uint32_t owner = 1; owner <= S_MAX_OWNERS && sums; owner++)
            sums [owner] += sim->held [owner];
    }
    assert_int_equal (drover_fairshare_verify (sim->share), 0);
}

//  Two owners 1:3 keeping 100 procs full converge to 25/75 within 5%,
//  and a third who comes late has its share within one task duration
static void
test_two_owners_then_a_third (void **state)
{
    s_sim_t *sim = (s_sim_t *) malloc (sizeof (s_sim_t));
    s_sim_init (sim, 100, 0, 10);
    assert_int_equal (drover_fairshare_set_owner_weight (sim->share, "bob", 3), 0);
    uint32_t alice = s_sim_owner (sim, "alice", 0);
    //  Alice alone gets everything
    s_sim_fill (sim, true);
    assert_int_equal (sim->held [alice], 100);
    s_sim_run (sim, 5, NULL);
    assert_int_equal (sim->held [alice], 100);
    //  Bob comes: within one task duration the split is 25/75
    uint32_t bob = s_sim_owner (sim, "bob", 0);
    s_sim_run (sim, sim->length, NULL);
    printf ("after one task length: alice %u, bob %u\n", sim->held [alice], sim->held [bob]);
    assert_in_range (sim->held [alice], 20, 30);
    assert_in_range (sim->held [bob], 70, 80);
    //  Over a long window, the average is 25/75 within 5%
    uint64_t sums [S_MAX_OWNERS + 1] = { 0 };
    s_sim_run (sim, 6000, sums);
    double alice_avg = sums [alice] / 6000.0, bob_avg = sums [bob] / 6000.0;
    printf ("over 6000 msec: alice %.2f, bob %.2f procs\n", alice_avg, bob_avg);
    assert_true (alice_avg >= 20 && alice_avg <= 30);
    assert_true (bob_avg >= 70 && bob_avg <= 80);
    //  Carol (weight 1) comes late: shares 1:3:1 = 20/60/20 within one task length
    uint32_t carol = s_sim_owner (sim, "carol", 0);
    s_sim_run (sim, sim->length, NULL);
    printf ("carol after one task length: alice %u, bob %u, carol %u\n",
            sim->held [alice], sim->held [bob], sim->held [carol]);
    assert_in_range (sim->held [carol], 15, 25);
    assert_in_range (sim->held [alice], 15, 25);
    assert_in_range (sim->held [bob], 55, 65);
    //  Her explanation names her standing; nobody is far above now
    drover_fairshare_standing_t standing;
    assert_int_equal (drover_fairshare_standing (sim->share, carol, &standing), 0);
    assert_int_equal (standing.fair_permille, 200);
    assert_string_equal (standing.owner_resource, "procs");
    drover_fairshare_destroy (&sim->share);
    drover_fairshare_destroy (&sim->share);     //  harmless twice
    free (sim);
}

//  Memory-heavy tasks against procs-only tasks: dominant shares equal out
//  (1 proc + 4 GiB of 100 GiB against 1 proc: 20 and 80 tasks)
static void
test_dominant_resource (void **state)
{
    s_sim_t *sim = (s_sim_t *) malloc (sizeof (s_sim_t));
    s_sim_init (sim, 100, 100 * 1024, 10);
    uint32_t heavy = s_sim_owner (sim, "heavy", 4096);
    uint32_t light = s_sim_owner (sim, "light", 0);
    s_sim_fill (sim, true);
    uint64_t sums [S_MAX_OWNERS + 1] = { 0 };
    s_sim_run (sim, 1000, sums);
    double heavy_avg = sums [heavy] / 1000.0, light_avg = sums [light] / 1000.0;
    printf ("heavy %.2f, light %.2f tasks\n", heavy_avg, light_avg);
    assert_true (heavy_avg >= 18 && heavy_avg <= 22);
    assert_true (light_avg >= 75 && light_avg <= 82);
    drover_fairshare_standing_t standing;
    assert_int_equal (drover_fairshare_standing (sim->share, heavy, &standing), 0);
    assert_string_equal (standing.owner_resource, "mem");
    assert_int_equal (drover_fairshare_standing (sim->share, light, &standing), 0);
    assert_string_equal (standing.owner_resource, "procs");
    drover_fairshare_destroy (&sim->share);
    free (sim);
}


//  ---------------------------------------------------------------------
//  Order, bands, accounts

//  Place one task of procs for an owner
static void
s_place (drover_fairshare_t *share, uint32_t owner, uint32_t procs)
{
    drover_fairshare_use_t use = { .procs = procs };
    assert_int_equal (drover_fairshare_place (share, owner, &use), 0);
}

//  Priority first; within it the lowest share; ties by name; accounts
//  before owners within them
static void
test_order (void **state)
{
    drover_fairshare_t *share = drover_fairshare_new ();
    drover_fairshare_set_capacity (share, 100, 0);
    assert_int_equal (drover_fairshare_next (share, NULL), 0);
    uint32_t bob = drover_fairshare_owner (share, "bob");
    uint32_t alice = drover_fairshare_owner (share, "alice");
    assert_int_equal (drover_fairshare_owner (share, "bob"), bob);
    assert_int_equal (drover_fairshare_owner (share, "no spaces"), 0);
    assert_string_equal (drover_fairshare_owner_name (share, alice), "alice");
    assert_null (drover_fairshare_owner_name (share, 99));
    drover_fairshare_wait (share, bob, 5, 2);
    drover_fairshare_wait (share, alice, 5, 1);
    int32_t priority = 0;
    assert_int_equal (drover_fairshare_next (share, &priority), alice);    //  tie: by name
    assert_int_equal (priority, 5);
    s_place (share, alice, 1);
    assert_int_equal (drover_fairshare_next (share, NULL), bob);
    //  A lower priority is served first whatever the shares
    s_place (share, bob, 10);
    drover_fairshare_wait (share, bob, -3, 1);
    assert_int_equal (drover_fairshare_next (share, &priority), bob);
    assert_int_equal (priority, -3);
    assert_int_equal (drover_fairshare_next_at (share, 5), alice);
    assert_int_equal (drover_fairshare_wait (share, bob, -3, -2), -1);     //  only 1 waits
    assert_int_equal (drover_fairshare_wait (share, bob, -3, -1), 0);
    assert_int_equal (drover_fairshare_next_at (share, -3), 0);
    //  An account of two: its share is the sum; within it the lower owner
    const char *members [] = { "bob", "carol" };
    assert_int_equal (drover_fairshare_set_account (share, "team", 2, members, 2), 0);
    uint32_t carol = drover_fairshare_owner (share, "carol");
    drover_fairshare_wait (share, carol, 5, 1);
    //  team: 10 procs / weight 2 = 5% against alice's 1%: alice first
    assert_int_equal (drover_fairshare_next (share, NULL), alice);
    s_place (share, alice, 9);
    //  alice 10%, team 5%: the team, and in it carol (0) before bob (10)
    assert_int_equal (drover_fairshare_next (share, NULL), carol);
    drover_fairshare_standing_t standing;
    assert_int_equal (drover_fairshare_standing (share, bob, &standing), 0);
    assert_string_equal (standing.account, "team");
    assert_false (standing.solo);
    assert_int_equal (standing.account_permille, 100);
    assert_int_equal (standing.fair_permille, 666);        //  2 of 3 with demand
    assert_int_equal (drover_fairshare_verify (share), 0);
    //  Dropping the account: bob and carol are their own again, with their usage
    assert_int_equal (drover_fairshare_drop_account (share, "team"), 0);
    assert_int_equal (drover_fairshare_drop_account (share, "team"), -1);
    assert_int_equal (drover_fairshare_next (share, NULL), carol);
    assert_int_equal (drover_fairshare_standing (share, bob, &standing), 0);
    assert_true (standing.solo);
    assert_int_equal (standing.account_permille, 100);
    assert_int_equal (drover_fairshare_verify (share), 0);
    drover_fairshare_destroy (&share);
}

//  Moving an owner between accounts carries its usage, queued and waiting
//  work; a weight change reorders; capacity changes reorder everything
static void
test_membership_moves (void **state)
{
    drover_fairshare_t *share = drover_fairshare_new ();
    drover_fairshare_set_capacity (share, 100, 0);
    uint32_t alice = drover_fairshare_owner (share, "alice");
    uint32_t dave = drover_fairshare_owner (share, "dave");
    s_place (share, alice, 30);
    s_place (share, dave, 20);
    drover_fairshare_add_queued (share, alice, 7);
    drover_fairshare_wait (share, alice, 0, 3);
    drover_fairshare_wait (share, alice, 1, 4);
    drover_fairshare_wait (share, dave, 0, 1);
    assert_int_equal (drover_fairshare_next (share, NULL), dave);
    const char *members [] = { "alice" };
    assert_int_equal (drover_fairshare_set_account (share, "big", 3, members, 1), 0);
    //  big: 30% / 3 = 10% against dave's 20%
    assert_int_equal (drover_fairshare_next (share, NULL), alice);
    assert_int_equal (drover_fairshare_verify (share), 0);
    assert_int_equal (drover_fairshare_set_account (share, "big", 1, NULL, 0), 0);
    assert_int_equal (drover_fairshare_next (share, NULL), dave);
    //  Emptied: alice is her own again, waiting in both bands
    assert_int_equal (drover_fairshare_set_account (share, "big", 1, members, 0), 0);
    assert_int_equal (drover_fairshare_next_at (share, 1), alice);
    assert_int_equal (drover_fairshare_set_owner_weight (share, "alice", 2), 0);
    assert_int_equal (drover_fairshare_next (share, NULL), alice);    //  15% against 20%
    assert_int_equal (drover_fairshare_set_owner_weight (share, "alice", 0), -1);
    assert_int_equal (drover_fairshare_set_account (share, "big", 0, NULL, 0), -1);
    //  A device only dave uses, scarce: his dominant share is the device
    drover_fairshare_device_t gpu = { "gpu", 1 };
    drover_fairshare_use_t use = { .procs = 1, .devices = &gpu, .ndevices = 1 };
    assert_int_equal (drover_fairshare_place (share, dave, &use), 0);
    assert_int_equal (drover_fairshare_set_device_capacity (share, "gpu", 2), 0);
    drover_fairshare_standing_t standing;
    drover_fairshare_standing (share, dave, &standing);
    assert_string_equal (standing.owner_resource, "gpu");
    assert_int_equal (standing.owner_permille, 500);
    assert_int_equal (drover_fairshare_next (share, NULL), alice);
    drover_fairshare_free (share, dave, &use);
    assert_int_equal (drover_fairshare_verify (share), 0);
    drover_fairshare_destroy (&share);
}


//  ---------------------------------------------------------------------
//  Quotas and explanations

//  Running quotas refuse naming the resource, the used and the limit;
//  queued quotas likewise
static void
test_quotas (void **state)
{
    drover_fairshare_t *share = drover_fairshare_new ();
    drover_fairshare_set_capacity (share, 100, 64ULL << 30);
    const char *members [] = { "alice", "bob" };
    assert_int_equal (drover_fairshare_set_account (share, "team", 1, members, 2), 0);
    drover_fairshare_quota_t alice_quota = { .procs = 4 };
    assert_int_equal (drover_fairshare_set_quota (share, "alice", &alice_quota), 0);
    drover_fairshare_quota_t team_quota = {
        .mem = 10ULL << 30, .devices = { { "gpu", 1 } }, .ndevices = 1, .queued = 5 };
    assert_int_equal (drover_fairshare_set_quota (share, "team", &team_quota), 0);
    uint32_t alice = drover_fairshare_owner (share, "alice");
    uint32_t bob = drover_fairshare_owner (share, "bob");
    drover_fairshare_use_t three = { .procs = 3 };
    drover_fairshare_refusal_t refusal;
    assert_int_equal (drover_fairshare_check (share, alice, &three, &refusal), 0);
    assert_int_equal (drover_fairshare_place (share, alice, &three), 0);
    drover_fairshare_use_t two = { .procs = 2 };
    assert_int_equal (drover_fairshare_check (share, alice, &two, &refusal), -1);
    assert_string_equal (refusal.who, "alice");
    assert_false (refusal.account);
    assert_string_equal (refusal.resource, "procs");
    assert_int_equal (refusal.used, 3);
    assert_int_equal (refusal.limit, 4);
    assert_int_equal (drover_fairshare_check (share, bob, &two, NULL), 0);   //  bob: no procs quota
    //  The team's memory
    drover_fairshare_use_t big = { .procs = 1, .mem = 8ULL << 30 };
    assert_int_equal (drover_fairshare_place (share, bob, &big), 0);
    drover_fairshare_use_t more = { .procs = 1, .mem = 4ULL << 30 };
    assert_int_equal (drover_fairshare_check (share, bob, &more, &refusal), -1);
    assert_string_equal (refusal.who, "team");
    assert_true (refusal.account);
    assert_string_equal (refusal.resource, "mem");
    assert_int_equal (refusal.used, 8ULL << 30);
    assert_int_equal (refusal.limit, 10ULL << 30);
    //  The team's devices
    drover_fairshare_device_t gpus = { "gpu", 2 };
    drover_fairshare_use_t gpu_use = { .procs = 1, .devices = &gpus, .ndevices = 1 };
    assert_int_equal (drover_fairshare_check (share, alice, &gpu_use, &refusal), -1);
    assert_string_equal (refusal.resource, "gpu");
    assert_int_equal (refusal.used, 0);
    assert_int_equal (refusal.limit, 1);
    gpus.count = 1;
    assert_int_equal (drover_fairshare_check (share, alice, &gpu_use, NULL), 0);
    //  Freed, it fits again
    drover_fairshare_free (share, bob, &big);
    assert_int_equal (drover_fairshare_check (share, bob, &more, NULL), 0);
    //  Queued: the team's 5 across its members
    drover_fairshare_add_queued (share, alice, 3);
    drover_fairshare_add_queued (share, bob, 1);
    assert_int_equal (drover_fairshare_may_queue (share, bob, 1, NULL), 0);
    assert_int_equal (drover_fairshare_may_queue (share, bob, 2, &refusal), -1);
    assert_string_equal (refusal.who, "team");
    assert_string_equal (refusal.resource, "queued");
    assert_int_equal (refusal.used, 4);
    assert_int_equal (refusal.limit, 5);
    drover_fairshare_add_queued (share, alice, -3);
    assert_int_equal (drover_fairshare_may_queue (share, bob, 2, NULL), 0);
    //  Too many device names
    char name [16];
    for (int index = 0; index < DROVER_FAIRSHARE_DEVICES_MAX - 1; index++) {
        snprintf (name, sizeof name, "dev%d", index);
        assert_int_equal (drover_fairshare_set_device_capacity (share, name, 1), 0);
    }
    assert_int_equal (drover_fairshare_set_device_capacity (share, "onetoomany", 1), -1);
    assert_int_equal (drover_fairshare_verify (share), 0);
    drover_fairshare_destroy (&share);
}

//  The sentence explain gives: "owner alice is above their share: 60% of
//  procs against 25%"
static void
test_describe (void **state)
{
    drover_fairshare_t *share = drover_fairshare_new ();
    drover_fairshare_set_capacity (share, 100, 0);
    uint32_t alice = drover_fairshare_owner (share, "alice");
    uint32_t bob = drover_fairshare_owner (share, "bob");
    drover_fairshare_set_owner_weight (share, "bob", 3);
    s_place (share, alice, 60);
    assert_null (drover_fairshare_describe (share, alice));     //  alone: all hers
    s_place (share, bob, 10);
    drover_fairshare_wait (share, bob, 0, 5);
    drover_fairshare_wait (share, alice, 0, 5);
    testutil_assert_and_free (drover_fairshare_describe (share, alice),
                              "owner alice is above their share: 60% of procs against 25%");
    assert_null (drover_fairshare_describe (share, bob));
    const char *members [] = { "alice" };
    drover_fairshare_set_account (share, "team-a", 1, members, 1);
    s_place (share, alice, 1);
    testutil_assert_and_free (drover_fairshare_describe (share, alice),
        "account team-a of owner alice is above its share: 61% of procs against 25%");
    drover_fairshare_destroy (&share);
}


//  ---------------------------------------------------------------------
//  A thousand owners: the order against brute force, and its cost

#define S_OWNERS    1000
#define S_ACCOUNTS  50          //  of 10 owners each; the other 500 are their own

//  What the brute force knows of an owner
typedef struct {
    uint32_t handle;            //  its handle
    char name [16];             //  its name
    uint32_t weight;            //  its weight
    int account;                //  its account's index, or -1
    uint64_t used;              //  procs running
} s_big_owner_t;

//  The share formula, as the class computes it
static uint64_t
s_share (uint64_t used, uint64_t capacity, uint32_t weight)
{
    return (uint64_t) ((unsigned __int128) used * 1000000000000ULL / capacity) / weight;
}

//  Return the owner the order must give, found by brute force
static uint32_t
s_brute_next (s_big_owner_t *owners, uint64_t capacity)
{
    uint64_t account_used [S_ACCOUNTS] = { 0 };
    for (int index = 0; index < S_OWNERS; index++)
        if (owners [index].account >= 0)
            account_used [owners [index].account] += owners [index].used;
    //  The best account: (share, name); then its best owner: (share, name)
    uint64_t best_share = UINT64_MAX;
    char best_name [16] = "";
    for (int index = 0; index < S_OWNERS; index++) {
        s_big_owner_t *owner = &owners [index];
        char name [16];
        uint64_t share;
        if (owner->account >= 0) {
            snprintf (name, sizeof name, "acct-%02d", owner->account);
            share = s_share (account_used [owner->account], capacity,
                             1 + owner->account % 4);
        }
        else {
            snprintf (name, sizeof name, "%s", owner->name);
            share = s_share (owner->used, capacity, owner->weight);
        }
        if (share < best_share || (share == best_share && strcmp (name, best_name) < 0)) {
            best_share = share;
            snprintf (best_name, sizeof best_name, "%s", name);
        }
    }
    uint32_t best = 0;
    uint64_t best_owner_share = UINT64_MAX;
    const char *best_owner_name = "";
    for (int index = 0; index < S_OWNERS; index++) {
        s_big_owner_t *owner = &owners [index];
        char name [16];
        if (owner->account >= 0)
            snprintf (name, sizeof name, "acct-%02d", owner->account);
        else
            snprintf (name, sizeof name, "%s", owner->name);
        if (!streq (name, best_name))
            continue;
        uint64_t share = s_share (owner->used, capacity, owner->weight);
        if (share < best_owner_share
        || (share == best_owner_share && strcmp (owner->name, best_owner_name) < 0)) {
            best_owner_share = share;
            best_owner_name = owner->name;
            best = owner->handle;
        }
    }
    return best;
}

//  A running task of the big test
typedef struct {
    int owner;                  //  index in owners
    uint32_t procs;             //  procs it holds
} s_big_task_t;

//  1,000 owners in accounts and alone: next always matches brute force,
//  the structure stays consistent; the cost of a choice is printed
static void
test_thousand_owners (void **state)
{
    const uint64_t capacity = 10000;
    drover_fairshare_t *share = drover_fairshare_new ();
    drover_fairshare_set_capacity (share, capacity, 0);
    s_big_owner_t *owners = (s_big_owner_t *) calloc (S_OWNERS, sizeof (s_big_owner_t));
    for (int index = 0; index < S_OWNERS; index++) {
        s_big_owner_t *owner = &owners [index];
        snprintf (owner->name, sizeof owner->name, "own-%04d", index);
        owner->weight = 1 + (index * 7) % 5;
        owner->account = index < S_ACCOUNTS * 10? index / 10: -1;
        assert_int_equal (drover_fairshare_set_owner_weight (share, owner->name,
                                                            owner->weight), 0);
        owner->handle = drover_fairshare_owner (share, owner->name);
        drover_fairshare_wait (share, owner->handle, 0, 1000000);
        if (index % 3 == 0)
            drover_fairshare_wait (share, owner->handle, 1, 10);
    }
    for (int account = 0; account < S_ACCOUNTS; account++) {
        char name [16];
        const char *members [10];
        for (int member = 0; member < 10; member++)
            members [member] = owners [account * 10 + member].name;
        snprintf (name, sizeof name, "acct-%02d", account);
        assert_int_equal (drover_fairshare_set_account (share, name, 1 + account % 4,
                                                       members, 10), 0);
    }
    assert_int_equal (drover_fairshare_verify (share), 0);
    //  Place and free in a stream that keeps about 9,000 procs running
    s_big_task_t *tasks = (s_big_task_t *) calloc (capacity + 8, sizeof (s_big_task_t));
    size_t ntasks = 0;
    uint64_t used = 0;
    uint32_t seed = 42;
    const int rounds = 200000;
    int64_t choose_usec = 0, update_usec = 0;
    int choices = 0, checked = 0;
    for (int round = 0; round < rounds; round++) {
        seed = seed * 1103515245 + 12345;
        uint32_t procs = 1 + (seed >> 16) % 4;
        if (used + procs <= capacity * 9 / 10) {
            int64_t start = zclock_usecs ();
            uint32_t handle = drover_fairshare_next (share, NULL);
            int64_t chosen = zclock_usecs ();
            drover_fairshare_use_t use = { .procs = procs };
            drover_fairshare_place (share, handle, &use);
            update_usec += zclock_usecs () - chosen;
            choose_usec += chosen - start;
            choices++;
            int index = (int) handle - 1;      //  handles are given in order
            assert_int_equal (owners [index].handle, handle);
            owners [index].used += procs;
            tasks [ntasks++] = (s_big_task_t) { index, procs };
            used += procs;
        }
        else {
            size_t which = (seed >> 8) % ntasks;
            drover_fairshare_use_t use = { .procs = tasks [which].procs };
            int64_t start = zclock_usecs ();
            drover_fairshare_free (share, owners [tasks [which].owner].handle, &use);
            update_usec += zclock_usecs () - start;
            owners [tasks [which].owner].used -= tasks [which].procs;
            used -= tasks [which].procs;
            tasks [which] = tasks [--ntasks];
        }
        if (round % 997 == 0) {
            assert_int_equal (drover_fairshare_next (share, NULL),
                              s_brute_next (owners, capacity));
            assert_int_equal (drover_fairshare_verify (share), 0);
            checked++;
        }
    }
    printf ("1000 owners, %d choices: %.3f usec per choice of the next owner, "
            "%.3f usec per place or free (zclock_usecs resolution); %d brute-force checks\n",
            choices, (double) choose_usec / choices, (double) update_usec / rounds, checked);
    //  A capacity change reorders everything and keeps it consistent
    drover_fairshare_set_capacity (share, capacity * 2, 0);
    assert_int_equal (drover_fairshare_next (share, NULL), s_brute_next (owners, capacity * 2));
    assert_int_equal (drover_fairshare_verify (share), 0);
    free (tasks);
    free (owners);
    drover_fairshare_destroy (&share);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_two_owners_then_a_third),
        cmocka_unit_test (test_dominant_resource),
        cmocka_unit_test (test_order),
        cmocka_unit_test (test_membership_moves),
        cmocka_unit_test (test_quotas),
        cmocka_unit_test (test_describe),
        cmocka_unit_test (test_thousand_owners),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
