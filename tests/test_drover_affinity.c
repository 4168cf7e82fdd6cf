/*  =========================================================================
    test_drover_affinity - requests placed by an affinity key, with a fake
    clock, on a real drover_schedq

    The same key goes to the same worker, the first in its rendezvous order
    that takes new work and has its labels; for the wait it goes nowhere
    else, even while that worker is full; after it, to the first in order
    with room. Workers that come and go move only the keys they must. A run
    when nothing changed costs nothing, however many requests wait.
    =========================================================================
*/

#include "testutil.h"
#include "drover_affinity.h"
#include "drover_rendezvous.h"

//  Placements a run made, in order
typedef struct {
    uint64_t tasks [64];        //  task placed
    char workers [64][DROVER_ID_MAX + 1];   //  where
    int count;                  //  how many
} s_placed_t;

//  Record one placement
static void
s_on_place (uint64_t task, const char *worker, void *arg)
{
    s_placed_t *placed = (s_placed_t *) arg;
    assert_true (placed->count < 64);
    placed->tasks [placed->count] = task;
    snprintf (placed->workers [placed->count], DROVER_ID_MAX + 1, "%s", worker);
    placed->count++;
}

//  Run once; return what it placed (a static buffer)
static s_placed_t *
s_run (drover_affinity_t *affinity, drover_schedq_t *sched, int64_t now)
{
    static s_placed_t placed;
    memset (&placed, 0, sizeof placed);
    int count = drover_affinity_run (affinity, sched, now, s_on_place, &placed);
    assert_int_equal (count, placed.count);
    return &placed;
}

//  The workers w0..w(count-1), 4 procs and 1 GiB each
static drover_schedq_t *
s_sched_new (int count)
{
    drover_schedq_t *sched = drover_schedq_new (8);
    for (int index = 0; index < count; index++) {
        char id [16];
        snprintf (id, sizeof id, "w%d", index);
        drover_schedq_add_worker (sched, id, 4, 1 << 30, index % 2? "zone=b": "zone=a");
    }
    return sched;
}

//  The key's rendezvous order over w0..w(count-1): fills ids [] best first
static void
s_order (const char *key, int count, char ids [][16])
{
    char names [64][16];
    const char *pointers [64];
    size_t order [64];
    for (int index = 0; index < count; index++) {
        snprintf (names [index], 16, "w%d", index);
        pointers [index] = names [index];
    }
    drover_rendezvous_order (key, strlen (key), pointers, NULL, (size_t) count, order);
    for (int index = 0; index < count; index++)
        strcpy (ids [index], names [order [index]]);
}

//  The same key goes to its first worker, again and again
static void
test_same_key_same_worker (void **state)
{
    drover_schedq_t *sched = s_sched_new (10);
    drover_affinity_t *affinity = drover_affinity_new (1000);
    char order [10][16];
    s_order ("dataset-7", 10, order);
    for (uint64_t task = 1; task <= 3; task++) {
        assert_int_equal (drover_affinity_add (affinity, task, 0, 1, 0, "", "dataset-7", 0), 0);
        s_placed_t *placed = s_run (affinity, sched, 0);
        assert_int_equal (placed->count, 1);
        assert_int_equal (placed->tasks [0], task);
        assert_string_equal (placed->workers [0], order [0]);
        assert_string_equal (drover_schedq_assigned (sched, task), order [0]);
        assert_false (drover_affinity_holds (affinity, task));
    }
    //  Bad requests are refused
    assert_int_equal (drover_affinity_add (affinity, 9, 0, 0, 0, "", "k", 0), -1);
    assert_int_equal (drover_affinity_add (affinity, 9, 0, 1, 0, "", "", 0), -1);
    assert_int_equal (drover_affinity_size (affinity), 0);
    drover_affinity_destroy (&affinity);
    drover_affinity_destroy (&affinity);
    drover_schedq_destroy (&sched);
}

//  Its first worker full: it waits there for the wait, then goes to the
//  next in order with room; EXPLAIN says which and until when
static void
test_waits_for_first_then_falls_back (void **state)
{
    drover_schedq_t *sched = s_sched_new (10);
    drover_affinity_t *affinity = drover_affinity_new (500);
    char order [10][16];
    s_order ("cache-1", 10, order);
    //  Fill its first worker
    assert_int_equal (drover_schedq_place (sched, order [0], 100, 4, 0, ""), 0);
    drover_affinity_add (affinity, 1, 0, 2, 0, "", "cache-1", 1000);
    assert_int_equal (s_run (affinity, sched, 1000)->count, 0);
    assert_int_equal (drover_affinity_deadline (affinity), 1500);
    char worker [DROVER_ID_MAX + 1];
    int64_t left;
    assert_int_equal (drover_affinity_explain (affinity, sched, 1, 1200, worker, sizeof worker,
                                               &left), 0);
    assert_string_equal (worker, order [0]);
    assert_int_equal (left, 300);
    assert_int_equal (drover_affinity_explain (affinity, sched, 2, 1200, worker, sizeof worker,
                                               &left), -1);
    //  Nothing changed, no wait ended: nothing to do
    assert_int_equal (s_run (affinity, sched, 1499)->count, 0);
    //  Room on its first during the wait: it goes there
    drover_schedq_free (sched, 100);
    drover_affinity_room_changed (affinity);
    s_placed_t *placed = s_run (affinity, sched, 1400);
    assert_int_equal (placed->count, 1);
    assert_string_equal (placed->workers [0], order [0]);
    //  Again, full: past the wait it takes the next in order with room
    assert_int_equal (drover_schedq_place (sched, order [0], 101, 2, 0, ""), 0);
    drover_affinity_add (affinity, 2, 0, 2, 0, "", "cache-1", 2000);
    assert_int_equal (s_run (affinity, sched, 2000)->count, 0);
    assert_int_equal (s_run (affinity, sched, 2499)->count, 0);
    placed = s_run (affinity, sched, 2500);
    assert_int_equal (placed->count, 1);
    assert_string_equal (placed->workers [0], order [1]);
    assert_int_equal (drover_affinity_deadline (affinity), -1);
    drover_affinity_destroy (&affinity);
    drover_schedq_destroy (&sched);
}

//  Its first is the first that takes new work and has its labels; a held
//  worker is passed over, and when it is resumed the key comes back to it;
//  a cancelled request goes
static void
test_labels_and_eligibility (void **state)
{
    drover_schedq_t *sched = s_sched_new (10);
    drover_affinity_t *affinity = drover_affinity_new (0);
    char order [10][16];
    s_order ("tenant-x", 10, order);
    //  Its first worker in zone=b
    int first_b = 0;
    while (atoi (order [first_b] + 1) % 2 == 0)
        first_b++;
    drover_affinity_add (affinity, 1, 0, 1, 0, "zone=b", "tenant-x", 0);
    s_placed_t *placed = s_run (affinity, sched, 0);
    assert_int_equal (placed->count, 1);
    assert_string_equal (placed->workers [0], order [first_b]);
    //  Held: the next in order
    drover_schedq_set_admin (sched, order [0], DROVER_ADMIN_HOLD);
    drover_affinity_workers_changed (affinity);
    drover_affinity_add (affinity, 2, 0, 1, 0, "", "tenant-x", 0);
    placed = s_run (affinity, sched, 0);
    assert_string_equal (placed->workers [0], order [1]);
    drover_schedq_set_admin (sched, order [0], DROVER_ADMIN_RUN);
    drover_affinity_workers_changed (affinity);
    drover_affinity_add (affinity, 3, 0, 1, 0, "", "tenant-x", 0);
    placed = s_run (affinity, sched, 0);
    assert_string_equal (placed->workers [0], order [0]);
    //  Nobody could ever hold it: it waits, and goes when cancelled
    drover_affinity_add (affinity, 4, 0, 64, 0, "", "tenant-x", 0);
    assert_int_equal (s_run (affinity, sched, 0)->count, 0);
    char worker [DROVER_ID_MAX + 1];
    int64_t left;
    assert_int_equal (drover_affinity_explain (affinity, sched, 4, 10, worker, sizeof worker,
                                               &left), 0);
    assert_string_equal (worker, "");
    assert_int_equal (left, 0);
    assert_int_equal (drover_affinity_remove (affinity, 4), 0);
    assert_int_equal (drover_affinity_remove (affinity, 4), -1);
    assert_int_equal (drover_affinity_size (affinity), 0);
    drover_affinity_destroy (&affinity);
    drover_schedq_destroy (&sched);
}

//  Priority order: the lower priority takes the last room
static void
test_priority_order (void **state)
{
    drover_schedq_t *sched = s_sched_new (1);
    drover_affinity_t *affinity = drover_affinity_new (0);
    drover_affinity_add (affinity, 1, 5, 4, 0, "", "a", 0);
    drover_affinity_add (affinity, 2, 1, 4, 0, "", "b", 0);
    s_placed_t *placed = s_run (affinity, sched, 0);
    assert_int_equal (placed->count, 1);
    assert_int_equal (placed->tasks [0], 2);
    assert_true (drover_affinity_holds (affinity, 1));
    drover_affinity_destroy (&affinity);
    drover_schedq_destroy (&sched);
}

//  Removing one of 10 workers moves only the keys it was first for;
//  adding one moves only the keys it becomes first for
static void
test_keys_move_little (void **state)
{
    enum { KEYS = 200 };
    drover_schedq_t *sched = s_sched_new (10);
    drover_affinity_t *affinity = drover_affinity_new (0);
    char before [KEYS][DROVER_ID_MAX + 1];
    for (int key = 0; key < KEYS; key++) {
        char text [16];
        snprintf (text, sizeof text, "key-%d", key);
        drover_affinity_add (affinity, (uint64_t) key + 1, 0, 1, 0, "", text, 0);
        s_placed_t *placed = s_run (affinity, sched, 0);
        assert_int_equal (placed->count, 1);
        strcpy (before [key], placed->workers [0]);
        drover_schedq_free (sched, (uint64_t) key + 1);
        drover_affinity_room_changed (affinity);
    }
    drover_schedq_remove_worker (sched, "w3", NULL, NULL);
    drover_affinity_workers_changed (affinity);
    int moved = 0;
    for (int key = 0; key < KEYS; key++) {
        char text [16];
        snprintf (text, sizeof text, "key-%d", key);
        drover_affinity_add (affinity, 1000 + (uint64_t) key, 0, 1, 0, "", text, 0);
        s_placed_t *placed = s_run (affinity, sched, 0);
        assert_int_equal (placed->count, 1);
        if (strcmp (placed->workers [0], before [key])) {
            assert_string_equal (before [key], "w3");   //  only w3's keys move
            moved++;
        }
        else
            assert_string_not_equal (before [key], "w3");
        drover_schedq_free (sched, 1000 + (uint64_t) key);
        drover_affinity_room_changed (affinity);
    }
    //  About a tenth
    assert_in_range (moved, KEYS / 20, KEYS / 5);
    drover_affinity_destroy (&affinity);
    drover_schedq_destroy (&sched);
}

//  2,000 requests past their wait that fit nowhere, 500 workers: runs
//  when nothing changed cost nothing, and one after a room change walks
//  the workers once per shape, not once per request
static void
test_runs_are_cheap (void **state)
{
    drover_schedq_t *sched = drover_schedq_new (8);
    for (int index = 0; index < 500; index++) {
        char id [16];
        snprintf (id, sizeof id, "w%d", index);
        drover_schedq_add_worker (sched, id, 4, 1 << 30, "");
        assert_int_equal (drover_schedq_place (sched, id, 10000 + (uint64_t) index, 4, 0, ""), 0);
    }
    drover_affinity_t *affinity = drover_affinity_new (0);
    for (uint64_t task = 1; task <= 2000; task++) {
        char key [16];
        snprintf (key, sizeof key, "k%" PRIu64, task);
        drover_affinity_add (affinity, task, 0, 1, 0, "", key, 0);
    }
    assert_int_equal (s_run (affinity, sched, 10)->count, 0);
    int64_t start = zclock_usecs ();
    for (int round = 0; round < 1000; round++)
        assert_int_equal (s_run (affinity, sched, 10 + round)->count, 0);
    int64_t unchanged = zclock_usecs () - start;
    start = zclock_usecs ();
    for (int round = 0; round < 20; round++) {
        drover_affinity_room_changed (affinity);
        assert_int_equal (s_run (affinity, sched, 2000)->count, 0);
    }
    int64_t changed = (zclock_usecs () - start) / 20;
    printf ("affinity: 2000 waiting, 500 workers: unchanged run %.3f usec, after a change "
            "%" PRId64 " usec\n", unchanged / 1000.0, changed);
    assert_true (unchanged < 50000);        //  1000 runs: a walk each would take seconds
    assert_true (changed < 20000);          //  2000 walks of 500 would take ~10 ms or more
    //  Room on one worker: the first request takes it
    drover_schedq_free (sched, 10007);
    drover_affinity_room_changed (affinity);
    s_placed_t *placed = s_run (affinity, sched, 3000);
    assert_int_equal (placed->count, 4);
    assert_string_equal (placed->workers [0], "w7");
    assert_int_equal (placed->tasks [0], 1);
    drover_affinity_destroy (&affinity);
    drover_schedq_destroy (&sched);
}

//  What the pool must see: the requests' distinct demands, counted
static void
s_on_demand (uint32_t procs, uint64_t mem, const char *labels, const char *devices,
             uint32_t count, void *arg)
{
    assert_string_equal (devices, "");
    char *text = (char *) arg;
    size_t size = strlen (text);
    snprintf (text + size, 256 - size, "%u/%" PRIu64 "/%s x%u;", procs, mem, labels, count);
}

static void
test_demand_shapes (void **state)
{
    drover_affinity_t *affinity = drover_affinity_new (0);
    char text [256] = "";
    drover_affinity_each_demand (affinity, 10, s_on_demand, text);
    assert_string_equal (text, "");
    drover_affinity_add (affinity, 1, 0, 2, 0, "", "a", 0);
    drover_affinity_add (affinity, 2, 0, 1, 100, "zone=b", "b", 0);
    drover_affinity_add (affinity, 3, 0, 2, 0, "", "c", 0);
    drover_affinity_add (affinity, 4, 0, 8, 0, "", "d", 0);
    drover_affinity_each_demand (affinity, 2, s_on_demand, text);
    assert_string_equal (text, "2/0/ x2;1/100/zone=b x1;");
    drover_affinity_destroy (&affinity);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_same_key_same_worker),
        cmocka_unit_test (test_waits_for_first_then_falls_back),
        cmocka_unit_test (test_labels_and_eligibility),
        cmocka_unit_test (test_priority_order),
        cmocka_unit_test (test_keys_move_little),
        cmocka_unit_test (test_runs_are_cheap),
        cmocka_unit_test (test_demand_shapes),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
