/*  =========================================================================
    test_drover_schedq_workers - the scheduling queue's bookkeeping of
    workers and requests, without threads: which workers are eligible
    (held, draining, on probation), pushing and removing requests, removing,
    updating and iterating workers
    =========================================================================
*/

#include "testutil_placed.h"

//  A worker's probation end time, as the probation actor says it, shows in
//  its view while it is on probation, and is forgotten once it is cleared
static void
test_probation_until_in_view (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    drover_schedq_view_t view;
    drover_schedq_add_worker (sched, "a", 4, 0, NULL);
    assert_int_equal (drover_schedq_set_probation_until (sched, "nobody", 5), -1);
    assert_int_equal (drover_schedq_set_probation (sched, "a", true), 0);
    assert_int_equal (drover_schedq_lookup (sched, "a", &view), 0);
    assert_int_equal (view.probation_until, 0);             //  not said yet: unknown
    assert_int_equal (drover_schedq_set_probation_until (sched, "a", 1700000030000), 0);
    assert_int_equal (drover_schedq_lookup (sched, "a", &view), 0);
    assert_true (view.probation);
    assert_int_equal (view.probation_until, 1700000030000);
    drover_schedq_set_probation (sched, "a", false);
    assert_int_equal (drover_schedq_lookup (sched, "a", &view), 0);
    assert_int_equal (view.probation_until, 0);
    drover_schedq_set_probation (sched, "a", true);          //  again, from assign: no time
    assert_int_equal (drover_schedq_lookup (sched, "a", &view), 0);
    assert_int_equal (view.probation_until, 0);
}

//  Held, draining and on probation workers take nothing new; they do again
//  once resumed or cleared
static void
test_held_drained_probation_skipped (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "held", 8, 0, NULL);
    drover_schedq_add_worker (sched, "drained", 8, 0, NULL);
    drover_schedq_add_worker (sched, "on probation", 8, 0, NULL);
    drover_schedq_add_worker (sched, "ok", 1, 0, NULL);
    assert_int_equal (drover_schedq_set_admin (sched, "held", DROVER_ADMIN_HOLD), 0);
    assert_int_equal (drover_schedq_set_admin (sched, "drained", DROVER_ADMIN_DRAIN), 0);
    assert_int_equal (drover_schedq_set_probation (sched, "on probation", true), 0);
    assert_int_equal (drover_schedq_set_admin (sched, "nobody", DROVER_ADMIN_HOLD), -1);
    assert_int_equal (drover_schedq_set_admin (sched, "ok", 7), -1);
    assert_int_equal (drover_schedq_set_probation (sched, "nobody", true), -1);
    for (uint64_t task = 1; task <= 4; task++)
        drover_schedq_push (sched, task, 0, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_string_equal (placed.workers [0], "ok");
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    drover_schedq_view_t view;
    assert_int_equal (drover_schedq_lookup (sched, "on probation", &view), 0);
    assert_true (view.probation);
    assert_int_equal (drover_schedq_lookup (sched, "drained", &view), 0);
    assert_int_equal (view.admin, DROVER_ADMIN_DRAIN);
    assert_true (drover_schedq_idle (sched, "drained"));
    assert_false (drover_schedq_idle (sched, "ok"));
    assert_false (drover_schedq_idle (sched, "nobody"));
    //  Each comes back and takes one
    drover_schedq_set_probation (sched, "on probation", false);
    assert_int_equal (testutil_placed_run (sched, &placed), 3);           //  8 free takes all three
    assert_int_equal (testutil_placed_used (sched, "on probation"), 3);
    drover_schedq_push (sched, 5, 0, 8, 0, NULL);
    drover_schedq_set_admin (sched, "held", DROVER_ADMIN_RUN);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_string_equal (placed.workers [4], "held");
}

//  Queue bookkeeping: duplicates and empty demands refused, removal of
//  queued requests only
static void
test_push_and_remove (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    assert_int_equal (drover_schedq_push (sched, 1, 0, 0, 0, NULL), -1);
    assert_int_equal (drover_schedq_push (sched, 1, 0, 1, 0, NULL), 0);
    assert_int_equal (drover_schedq_push (sched, 1, 0, 1, 0, NULL), -1);
    assert_int_equal (drover_schedq_push (sched, 2, 0, 1, 0, NULL), 0);
    assert_int_equal (drover_schedq_push (sched, 3, 0, 1, 0, NULL), 0);
    assert_int_equal (drover_schedq_remove (sched, 2), 0);
    assert_int_equal (drover_schedq_remove (sched, 2), -1);
    assert_int_equal (drover_schedq_size (sched), 2);
    drover_schedq_add_worker (sched, "m", 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [0], 1);
    assert_int_equal (drover_schedq_remove (sched, 1), -1);  //  assigned, not queued
    assert_int_equal (drover_schedq_push (sched, 1, 0, 1, 0, NULL), -1);
    assert_int_equal (drover_schedq_remove (sched, 3), 0);
    assert_int_equal (drover_schedq_size (sched), 0);
}

//  Collect the tasks a removed worker had
static void
s_collect (uint64_t task, void *arg)
{
    zlistx_t *tasks = (zlistx_t *) arg;
    zlistx_add_end (tasks, (void *) (uintptr_t) task);
}

//  Removing a worker reports and forgets its tasks; queued ones stay
static void
test_remove_worker (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "a", 2, 0, NULL);
    drover_schedq_add_worker (sched, "b", 1, 0, NULL);
    for (uint64_t task = 1; task <= 4; task++)
        drover_schedq_push (sched, task, 0, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 3);
    zlistx_t *tasks = zlistx_new ();
    assert_int_equal (drover_schedq_remove_worker (sched, "a", s_collect, tasks), 2);
    assert_int_equal (zlistx_size (tasks), 2);
    uint64_t sum = 0;
    for (void *task = zlistx_first (tasks); task; task = zlistx_next (tasks)) {
        assert_null (drover_schedq_assigned (sched, (uint64_t) (uintptr_t) task));
        sum += (uint64_t) (uintptr_t) task;
    }
    zlistx_destroy (&tasks);
    assert_int_equal (sum, 1 + 2);                          //  a took 1 and 2 (ties by id), b took 3
    assert_int_equal (drover_schedq_remove_worker (sched, "a", NULL, NULL), -1);
    assert_int_equal (drover_schedq_workers (sched), 1);
    assert_null (drover_schedq_free (sched, 1));             //  forgotten with a
    assert_true (drover_schedq_queued (sched, 4));
    assert_string_equal (drover_schedq_free (sched, 3), "b");
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_string_equal (placed.workers [3], "b");
    //  The requeued tasks can be pushed again
    assert_int_equal (drover_schedq_push (sched, 1, 0, 1, 0, NULL), 0);
    assert_int_equal (drover_schedq_remove_worker (sched, "b", NULL, NULL), 1);
    assert_int_equal (testutil_placed_run (sched, &placed), 0);           //  no workers at all
}

//  A known worker added again keeps its tasks, admin and probation
static void
test_worker_update_keeps_state (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    assert_int_equal (drover_schedq_add_worker (sched, "m", 2, 0, "a=1"), 0);
    drover_schedq_push (sched, 1, 0, 2, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    drover_schedq_set_admin (sched, "m", DROVER_ADMIN_HOLD);
    assert_int_equal (drover_schedq_add_worker (sched, "m", 4, 100, "b=2"), 1);
    drover_schedq_view_t view;
    assert_int_equal (drover_schedq_lookup (sched, "m", &view), 0);
    assert_int_equal (view.procs, 4);
    assert_int_equal (view.procs_used, 2);
    assert_int_equal (view.mem, 100);
    assert_int_equal (view.admin, DROVER_ADMIN_HOLD);
    assert_int_equal (view.tasks, 1);
    assert_int_equal (view.nlabels, 1);
    assert_string_equal (view.labels [0], "b=2");
    drover_stats_t stats = { .running = 7, .mem_total = 1000 };
    assert_int_equal (drover_schedq_set_stats (sched, "m", &stats), 0);
    assert_int_equal (drover_schedq_set_stats (sched, "x", &stats), -1);
    assert_int_equal (drover_schedq_lookup (sched, "m", &view), 0);
    assert_int_equal (view.stats.running, 7);
    assert_int_equal (view.stats.mem_total, 1000);
    assert_int_equal (drover_schedq_lookup (sched, "x", &view), -1);
}

//  Iteration visits every worker once
static void
test_iteration (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    assert_null (drover_schedq_first (sched));
    drover_schedq_add_worker (sched, "a", 1, 0, NULL);
    drover_schedq_add_worker (sched, "b", 1, 0, NULL);
    drover_schedq_add_worker (sched, "c", 1, 0, NULL);
    int seen = 0;
    for (const char *id = drover_schedq_first (sched); id; id = drover_schedq_next (sched))
        seen |= 1 << (id [0] - 'a');
    assert_int_equal (seen, 7);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_probation_until_in_view, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_held_drained_probation_skipped, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_push_and_remove, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_remove_worker, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_worker_update_keeps_state, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_iteration, testutil_placed_setup, testutil_placed_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
