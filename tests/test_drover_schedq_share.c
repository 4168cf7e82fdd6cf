/*  =========================================================================
    test_drover_schedq_share - the scheduling queue shared by owners,
    without threads or clock: the fair order (Dominant Resource Fairness
    between owners and accounts, inside a priority), running quotas that
    hold requests until their owner frees, and counted devices
    =========================================================================
*/

#include "testutil_placed.h"

//  Queue count requests of one proc for an owner, ids from first
static void
s_push_many (drover_schedq_t *sched, const char *owner, uint64_t first, size_t count,
             const char *devices)
{
    drover_schedq_tenant_t tenant = { owner, devices, 0 };
    for (size_t index = 0; index < count; index++)
        assert_int_equal (drover_schedq_push_as (sched, first + index, 0, 1, 0, NULL, &tenant), 0);
}

//  Return the procs an owner runs now
static uint32_t
s_running (drover_schedq_t *sched, const char *owner)
{
    drover_fairshare_t *fairshare = drover_schedq_fairshare (sched);
    drover_fairshare_standing_t standing;
    uint32_t handle = drover_fairshare_owner (fairshare, owner);
    assert_int_equal (drover_fairshare_standing (fairshare, handle, &standing), 0);
    return standing.procs;
}

//  An owner alone on the cluster gets all of it
static void
test_owner_alone_takes_all (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "m1", 4, 0, NULL);
    drover_schedq_add_worker (sched, "m2", 4, 0, NULL);
    s_push_many (sched, "alice", 1, 20, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 8);
    assert_int_equal (s_running (sched, "alice"), 8);
    assert_int_equal (drover_schedq_size (sched), 12);
}

//  Two owners with weights 1:3 that keep the cluster full get procs
//  25%/75%, placement after placement, whatever order tasks end in
static void
test_two_owners_converge (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_fairshare_t *fairshare = drover_schedq_fairshare (sched);
    assert_int_equal (drover_fairshare_set_owner_weight (fairshare, "bob", 3), 0);
    drover_schedq_add_worker (sched, "m1", 60, 0, NULL);
    drover_schedq_add_worker (sched, "m2", 40, 0, NULL);
    //  bob's tasks come first: arrival does not decide between owners
    s_push_many (sched, "bob", 1, 3000, NULL);
    s_push_many (sched, "alice", 10001, 3000, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 100);
    assert_int_equal (s_running (sched, "alice"), 25);
    assert_int_equal (s_running (sched, "bob"), 75);
    //  Tasks end in a pseudo-random order (a fixed LCG): a free and a pass
    //  each round; the split, summed over the rounds, stays 25/75 within 1%
    uint64_t running [100];
    memcpy (running, placed.tasks, sizeof running);
    uint64_t seed = 12345, alice_sum = 0;
    int rounds = 2000;
    for (int round = 0; round < rounds; round++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        size_t slot = (size_t) (seed >> 33) % 100;
        assert_non_null (drover_schedq_free (sched, running [slot]));
        placed.count = 0;
        assert_int_equal (testutil_placed_run (sched, &placed), 1);
        running [slot] = placed.tasks [0];
        uint32_t alice = s_running (sched, "alice");
        assert_true (alice >= 24 && alice <= 26);
        alice_sum += alice;
    }
    assert_true (alice_sum * 100 >= 24ULL * 100 * rounds && alice_sum * 100 <= 26ULL * 100 * rounds);
    assert_int_equal (drover_fairshare_verify (fairshare), 0);
}

//  An owner who comes late, below its share, is served at the next free
static void
test_late_owner_served_next (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "m1", 10, 0, NULL);
    s_push_many (sched, "alice", 1, 100, NULL);
    s_push_many (sched, "bob", 1001, 100, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 10);
    assert_int_equal (s_running (sched, "alice"), 5);
    s_push_many (sched, "carol", 2001, 5, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 0);     //  full
    assert_non_null (drover_schedq_free (sched, placed.tasks [0]));
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [10], 2001);
    assert_non_null (drover_schedq_free (sched, placed.tasks [1]));
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [11], 2002);
}

//  Priority comes before the share: an owner above its share still goes
//  first with a lower priority value
static void
test_priority_before_share (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "m1", 4, 0, NULL);
    s_push_many (sched, "alice", 1, 4, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 4);
    drover_schedq_tenant_t bob = { "bob", NULL, 0 }, alice = { "alice", NULL, 0 };
    assert_int_equal (drover_schedq_push_as (sched, 10, 0, 1, 0, NULL, &bob), 0);
    assert_int_equal (drover_schedq_push_as (sched, 11, -1, 1, 0, NULL, &alice), 0);
    assert_non_null (drover_schedq_free (sched, 1));
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [4], 11);
    assert_non_null (drover_schedq_free (sched, 2));
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [5], 10);
}

//  Accounts share first, their owners inside: team-a (alice, bob) and
//  carol alone, equal weights, split the cluster in halves
static void
test_accounts_then_owners (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    const char *members [] = { "alice", "bob" };
    assert_int_equal (drover_fairshare_set_account (drover_schedq_fairshare (sched), "team-a", 1,
                                                    members, 2), 0);
    drover_schedq_add_worker (sched, "m1", 12, 0, NULL);
    s_push_many (sched, "alice", 1, 50, NULL);
    s_push_many (sched, "bob", 101, 50, NULL);
    s_push_many (sched, "carol", 201, 50, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 12);
    assert_int_equal (s_running (sched, "carol"), 6);
    assert_int_equal (s_running (sched, "alice"), 3);
    assert_int_equal (s_running (sched, "bob"), 3);
}

//  A request past its owner's running quota waits, the rest of the
//  cluster goes to others, and it runs when its owner frees
static void
test_quota_holds_until_free (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_fairshare_quota_t quota = { .procs = 2 };
    assert_int_equal (drover_fairshare_set_quota (drover_schedq_fairshare (sched), "alice",
                                                  &quota), 0);
    drover_schedq_shares_changed (sched);
    drover_schedq_add_worker (sched, "m1", 10, 0, NULL);
    s_push_many (sched, "alice", 1, 5, NULL);
    s_push_many (sched, "bob", 101, 3, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 5);
    assert_int_equal (s_running (sched, "alice"), 2);
    assert_int_equal (s_running (sched, "bob"), 3);
    assert_int_equal (testutil_placed_run (sched, &placed), 0);     //  held: room is not enough
    assert_int_equal (drover_schedq_size (sched), 3);
    //  bob's free wakes nothing of alice's; hers does
    assert_non_null (drover_schedq_free (sched, 101));
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    assert_non_null (drover_schedq_free (sched, 1));
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [5], 3);
    //  Raising the quota lets the rest run
    quota.procs = 0;
    drover_fairshare_set_quota (drover_schedq_fairshare (sched), "alice", &quota);
    drover_schedq_shares_changed (sched);
    assert_int_equal (testutil_placed_run (sched, &placed), 2);
    assert_int_equal (s_running (sched, "alice"), 4);
    //  With no quota left anywhere, leases may be lent again
    assert_false (drover_fairshare_has_quotas (drover_schedq_fairshare (sched)));
}

//  An account's quota holds all its members together
static void
test_account_quota (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_fairshare_t *fairshare = drover_schedq_fairshare (sched);
    const char *members [] = { "alice", "bob" };
    drover_fairshare_set_account (fairshare, "team-a", 1, members, 2);
    drover_fairshare_quota_t quota = { .procs = 3 };
    assert_int_equal (drover_fairshare_set_quota (fairshare, "team-a", &quota), 0);
    drover_schedq_add_worker (sched, "m1", 10, 0, NULL);
    s_push_many (sched, "alice", 1, 5, NULL);
    s_push_many (sched, "bob", 101, 5, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 3);
    assert_int_equal (s_running (sched, "alice") + s_running (sched, "bob"), 3);
    //  alice's free wakes bob's waiting requests too (same account)
    uint64_t freed = placed.tasks [0];
    assert_non_null (drover_schedq_free (sched, freed));
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
}

//  A device request fits only where that many are free; a worker's devices
//  come with set_devices; one no worker could hold is parked until one can
static void
test_devices_fit (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "plain", 16, 0, NULL);
    drover_schedq_add_worker (sched, "gpus", 8, 0, NULL);
    assert_int_equal (drover_schedq_set_devices (sched, "gpus", "gpu=2"), 0);
    assert_int_equal (drover_schedq_set_devices (sched, "gone", "gpu=2"), -1);
    assert_int_equal (drover_schedq_set_devices (sched, "gpus", "gpu=0"), -1);
    s_push_many (sched, "alice", 1, 4, "gpu=1");
    assert_int_equal (testutil_placed_run (sched, &placed), 2);
    assert_string_equal (placed.workers [0], "gpus");
    assert_string_equal (placed.workers [1], "gpus");
    drover_schedq_view_t view;
    assert_int_equal (drover_schedq_lookup (sched, "gpus", &view), 0);
    assert_int_equal (view.ndevices, 1);
    assert_string_equal (view.devices [0].name, "gpu");
    assert_int_equal (view.devices_used [0], 2);
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    assert_non_null (drover_schedq_free (sched, placed.tasks [0]));
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_string_equal (placed.workers [2], "gpus");
    //  Not a device list: refused
    drover_schedq_tenant_t bad = { "alice", "gpu=x", 0 };
    assert_int_equal (drover_schedq_push_as (sched, 50, 0, 1, 0, NULL, &bad), -1);
    //  Three gpus: no worker could hold it, until one has them
    s_push_many (sched, "bob", 60, 1, "gpu=3");
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    assert_int_equal (drover_schedq_set_devices (sched, "plain", "gpu=4"), 0);
    assert_int_equal (testutil_placed_run (sched, &placed), 2);    //  60 and task 4
    bool found = false;
    for (size_t index = 3; index < placed.count; index++)
        if (placed.tasks [index] == 60) {
            assert_string_equal (placed.workers [index], "plain");
            found = true;
        }
    assert_true (found);
}

//  Devices count in the dominant share: an owner of one gpu in two has a
//  share of 50% whatever its procs
static void
test_devices_in_dominant_share (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "m1", 100, 0, NULL);
    drover_schedq_set_devices (sched, "m1", "gpu=2");
    s_push_many (sched, "alice", 1, 1, "gpu=1");
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    drover_fairshare_t *fairshare = drover_schedq_fairshare (sched);
    drover_fairshare_standing_t standing;
    drover_fairshare_standing (fairshare, drover_fairshare_owner (fairshare, "alice"), &standing);
    assert_string_equal (standing.owner_resource, "gpu");
    assert_int_equal (standing.owner_permille, 500);
    //  The worker's going takes its gpus out of the capacity and alice's use
    assert_int_equal (drover_schedq_remove_worker (sched, "m1", NULL, NULL), 1);
    drover_fairshare_standing (fairshare, drover_fairshare_owner (fairshare, "alice"), &standing);
    assert_int_equal (standing.owner_permille, 0);
}

//  What preemption told: the tasks to stop, where, for whom
typedef struct {
    size_t count;               //  told
    uint64_t tasks [16];        //  each task to stop
    char workers [16][16];      //  its worker
    uint64_t for_tasks [16];    //  the task it makes room for
} s_stopped_t;

//  Record a task to stop
static void
s_on_preempt (uint64_t task, const char *worker, uint64_t for_task, void *arg)
{
    s_stopped_t *stopped = (s_stopped_t *) arg;
    assert_true (stopped->count < 16);
    stopped->tasks [stopped->count] = task;
    snprintf (stopped->workers [stopped->count], 16, "%s", worker);
    stopped->for_tasks [stopped->count++] = for_task;
}

//  A higher-priority task stops the newest preemptible task of another
//  account, takes the worker kept for it once that one ends, and nothing
//  is told twice
static void
test_preemption_by_priority (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    s_stopped_t stopped = { 0 };
    drover_schedq_set_preemption (sched, 4, s_on_preempt, &stopped);
    drover_schedq_add_worker (sched, "m1", 2, 0, NULL);
    drover_schedq_add_worker (sched, "m2", 2, 0, NULL);
    drover_schedq_tenant_t bob = { "bob", NULL, DROVER_SUBMIT_PREEMPTIBLE };
    drover_schedq_tenant_t carol = { "carol", NULL, 0 };
    drover_schedq_push_as (sched, 1, 5, 1, 0, NULL, &carol);   //  not preemptible
    drover_schedq_push_as (sched, 2, 5, 1, 0, NULL, &bob);
    drover_schedq_push_as (sched, 3, 5, 1, 0, NULL, &bob);
    drover_schedq_push_as (sched, 4, 5, 1, 0, NULL, &carol);
    assert_int_equal (testutil_placed_run (sched, &placed), 4);
    //  A request of carol's own: never stops her tasks, nor bob's (carol is
    //  above her share, bob is not below his)
    drover_schedq_push_as (sched, 10, 5, 1, 0, NULL, &carol);
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    assert_int_equal (stopped.count, 0);
    assert_int_equal (drover_schedq_remove (sched, 10), 0);
    //  Higher priority, one proc: the newest of bob's (3) stops
    drover_schedq_tenant_t alice = { "alice", NULL, 0 };
    drover_schedq_push_as (sched, 11, 0, 1, 0, NULL, &alice);
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    assert_int_equal (stopped.count, 1);
    assert_int_equal (stopped.tasks [0], 3);
    assert_int_equal (stopped.for_tasks [0], 11);
    const char *where = drover_schedq_assigned (sched, 3);
    assert_string_equal (stopped.workers [0], where);
    assert_int_equal (testutil_placed_reserved (sched, where), 11);
    //  Not told again while it ends
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    assert_int_equal (stopped.count, 1);
    assert_non_null (drover_schedq_free (sched, 3));
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [4], 11);
    assert_string_equal (placed.workers [4], where);
}

//  Fair share justifies it too: an account below its share stops one
//  above; off, nothing is stopped
static void
test_preemption_by_share (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    s_stopped_t stopped = { 0 };
    drover_schedq_add_worker (sched, "m1", 4, 0, NULL);
    drover_schedq_tenant_t bob = { "bob", NULL, DROVER_SUBMIT_PREEMPTIBLE };
    for (uint64_t task = 1; task <= 4; task++)
        drover_schedq_push_as (sched, task, 0, 1, 0, NULL, &bob);
    assert_int_equal (testutil_placed_run (sched, &placed), 4);
    drover_schedq_tenant_t alice = { "alice", NULL, 0 };
    drover_schedq_push_as (sched, 10, 0, 2, 0, NULL, &alice);
    assert_int_equal (testutil_placed_run (sched, &placed), 0);    //  off: it waits
    drover_schedq_set_preemption (sched, 4, s_on_preempt, &stopped);
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    assert_int_equal (stopped.count, 2);       //  two procs: the two newest
    assert_int_equal (stopped.tasks [0], 4);
    assert_int_equal (stopped.tasks [1], 3);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_owner_alone_takes_all, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_two_owners_converge, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_late_owner_served_next, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_priority_before_share, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_accounts_then_owners, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_quota_holds_until_free, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_account_quota, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_devices_fit, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_devices_in_dominant_share, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_preemption_by_priority, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_preemption_by_share, testutil_placed_setup, testutil_placed_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
