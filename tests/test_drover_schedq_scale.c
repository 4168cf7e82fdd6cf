/*  =========================================================================
    test_drover_schedq_scale - the scheduling queue under load, without
    threads: many requests keep the bookkeeping exact, passes over a full
    cluster or unplaceable requests stay cheap, and requests waiting for a
    busy worker do not starve the rest
    =========================================================================
*/

#include "testutil_placed.h"

//  Many requests and workers, mixed sizes, frees and removals: capacity
//  bookkeeping stays exact and nothing is placed twice or lost
static void
test_many_requests_stay_consistent (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    char id [16];
    for (int worker = 0; worker < 100; worker++) {
        snprintf (id, sizeof id, "m%03d", worker);
        drover_schedq_add_worker (sched, id, 1 + worker % 8, 0, NULL);
    }
    const uint64_t total = 20000;
    for (uint64_t task = 1; task <= total; task++)
        assert_int_equal (drover_schedq_push (sched, task, (int32_t) (task % 7), 1 + task % 5, 0, NULL), 0);
    uint64_t done = 0;
    while (drover_schedq_size (sched) > 0) {
        placed.count = 0;
        int count = testutil_placed_run (sched, &placed);
        assert_true (count > 0);
        for (size_t index = 0; index < placed.count; index++) {
            assert_false (drover_schedq_queued (sched, placed.tasks [index]));
            assert_string_equal (drover_schedq_free (sched, placed.tasks [index]),
                                 placed.workers [index]);
        }
        done += count;
    }
    assert_int_equal (done, total);
    for (const char *worker = drover_schedq_first (sched); worker; worker = drover_schedq_next (sched)) {
        assert_true (drover_schedq_idle (sched, worker));
        assert_int_equal (testutil_placed_used (sched, worker), 0);
    }
}

//  Run up to passes empty passes within msec; return how many ran
static int
s_passes_within (drover_schedq_t *sched, testutil_placed_t *placed, int passes, int msec)
{
    int64_t deadline = zclock_mono () + msec;
    int pass;
    for (pass = 0; pass < passes && zclock_mono () < deadline; pass++)
        assert_int_equal (testutil_placed_run (sched, placed), 0);
    return pass;
}

//  A pass over a full cluster with a long queue costs nothing per request
static void
test_full_cluster_pass_is_cheap (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_schedq_set_max_shelve (sched, UINT32_MAX);
    drover_schedq_add_worker (sched, "m", 1, 0, NULL);
    for (uint64_t task = 1; task <= 200000; task++)
        drover_schedq_push (sched, task, 0, 2, 0, NULL);
    //  One free proc and nothing that small queued: a pass stops at once,
    //  where walking the queue would shelve 200000 requests each time
    assert_int_equal (s_passes_within (sched, &placed, 1000, 2000), 1000);
    //  A 1-proc request behind all of them is found and placed
    drover_schedq_push (sched, 999999, 9, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [0], 999999);
    assert_int_equal (s_passes_within (sched, &placed, 1000, 2000), 1000);   //  full
    assert_int_equal (drover_schedq_size (sched), 200000);
}

//  Requests no worker could ever hold (a label nobody has,
//  more procs than any worker, each alike or each different) at the
//  highest priority, far past max-shelve, cost a pass nothing: a normal
//  request behind them is placed in the same pass, and later passes stay
//  cheap; each waits, parked, until a worker that could hold it comes
static void
test_unplaceable_requests_cost_nothing (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "m", 2, 0, "pool=main");
    uint64_t task = 1;
    for (int index = 0; index < 1500; index++)
        drover_schedq_push (sched, task++, -10, 1, 0, "pool=nowhere");
    for (int index = 0; index < 1500; index++) {
        char labels [32];
        snprintf (labels, sizeof labels, "pool=main\nn=%d", index);
        drover_schedq_push (sched, task++, -10, 1, 0, labels);
    }
    for (int index = 0; index < 1500; index++)
        drover_schedq_push (sched, task++, -10, 64, 0, NULL);
    drover_schedq_push (sched, 9999, 10, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [0], 9999);
    assert_string_equal (placed.workers [0], "m");
    assert_int_equal (drover_schedq_size (sched), 4500);
    //  Later passes skip them at once, whatever their number
    drover_schedq_push (sched, 10000, 10, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_int_equal (s_passes_within (sched, &placed, 1000, 2000), 1000);
    //  A worker that could hold some wakes them, and only them
    drover_schedq_add_worker (sched, "nowhere", 1, 0, "pool=nowhere");
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [2], 1);
    assert_string_equal (placed.workers [2], "nowhere");
    drover_schedq_add_worker (sched, "n7", 1, 0, "n=7\npool=main");
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [3], 1501 + 7);
    drover_schedq_add_worker (sched, "huge", 64, 0, NULL);
    drover_schedq_set_admin (sched, "huge", DROVER_ADMIN_HOLD);
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    drover_schedq_set_admin (sched, "huge", DROVER_ADMIN_RUN);   //  resumed: woken
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [4], 3001);
    assert_string_equal (placed.workers [4], "huge");
    //  Cancelled while parked: gone for good
    assert_int_equal (drover_schedq_remove (sched, 3002), 0);
    assert_false (drover_schedq_queued (sched, 3002));
    assert_int_equal (drover_schedq_size (sched), 4496);
}

//  Thousands of requests waiting for one busy labelled worker
//  do not keep a request that can run elsewhere waiting: the first
//  reserves the worker, the rest of its kind are passed over in one step;
//  the worker then serves them in order
static void
test_waiting_for_busy_workers_does_not_starve (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "gpu", 1, 1 << 20, "gpu=yes");
    drover_schedq_add_worker (sched, "plain", 1, 0, NULL);
    drover_schedq_push (sched, 1, 0, 1, 0, "gpu=yes");
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    for (uint64_t task = 2; task <= 3001; task++)
        drover_schedq_push (sched, task, 0, 1, 0, "gpu=yes");
    drover_schedq_push (sched, 5000, 5, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [1], 5000);
    assert_string_equal (placed.workers [1], "plain");
    assert_int_equal (s_passes_within (sched, &placed, 1000, 2000), 1000);
    for (uint64_t task = 1; task <= 3; task++) {
        assert_string_equal (drover_schedq_free (sched, task), "gpu");
        assert_int_equal (testutil_placed_run (sched, &placed), 1);
        assert_int_equal (placed.tasks [placed.count - 1], task + 1);
    }
    //  Each asking a different memory: 1500 groups, none costing a pass
    for (uint64_t task = 6001; task <= 7500; task++)
        drover_schedq_push (sched, task, -1, 1, task, "gpu=yes");
    assert_string_equal (drover_schedq_free (sched, 5000), "plain");
    drover_schedq_push (sched, 8000, 5, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [placed.count - 1], 8000);
    assert_int_equal (s_passes_within (sched, &placed, 1000, 2000), 1000);
    //  The gpu worker frees: the first of them, ranked first, takes it
    assert_string_equal (drover_schedq_free (sched, 4), "gpu");
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [placed.count - 1], 6001);
}

//  A request that arrives ranked before the one a worker is reserved for
//  takes the reservation over, even when the rest of its kind wait set
//  aside for that worker: it runs first when the worker empties
static void
test_new_request_outranks_a_waiting_kind (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "w", 4, 0, NULL);
    drover_schedq_add_worker (sched, "v", 2, 0, NULL);   //  too small for the wide ones
    for (uint64_t task = 1; task <= 10; task++)
        drover_schedq_push (sched, task, 5, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 6);
    uint64_t on_w [4], on_v [2];
    size_t nw = 0, nv = 0;
    for (size_t index = 0; index < placed.count; index++)
        if (streq (placed.workers [index], "w"))
            on_w [nw++] = placed.tasks [index];
        else
            on_v [nv++] = placed.tasks [index];
    assert_int_equal (nw, 4);
    drover_schedq_push (sched, 20, 3, 4, 0, NULL);     //  reserves w
    drover_schedq_push (sched, 21, 4, 4, 0, NULL);     //  then waits for w, set aside
    assert_string_equal (drover_schedq_free (sched, on_v [0]), "v");
    assert_int_equal (testutil_placed_run (sched, &placed), 1);     //  a small one takes v's room
    assert_string_equal (placed.workers [placed.count - 1], "v");
    assert_int_equal (testutil_placed_reserved (sched, "w"), 20);
    drover_schedq_push (sched, 22, 0, 4, 0, NULL);     //  ranked first of all
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    assert_int_equal (testutil_placed_reserved (sched, "w"), 22);
    for (size_t index = 0; index < 4; index++)
        assert_string_equal (drover_schedq_free (sched, on_w [index]), "w");
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [placed.count - 1], 22);
    assert_string_equal (drover_schedq_free (sched, 22), "w");
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [placed.count - 1], 20);
    assert_string_equal (drover_schedq_free (sched, 20), "w");
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [placed.count - 1], 21);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_many_requests_stay_consistent, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_full_cluster_pass_is_cheap, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_unplaceable_requests_cost_nothing, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_waiting_for_busy_workers_does_not_starve, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_new_request_outranks_a_waiting_kind, testutil_placed_setup, testutil_placed_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
