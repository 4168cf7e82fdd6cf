/*  =========================================================================
    test_drover_reconciler_stops - what the reconciler stops and restarts,
    with a fake clock and a simulated cluster (testutil_sim): drained and
    held workers, scaling down and deleting a service, duplicates, a
    replica not running where it should, the cap on stops per term, and
    the restart backoff
    =========================================================================
*/

#include "testutil_sim.h"

//  A draining worker's replicas move: started first elsewhere, stopped
//  once the new one runs; a held worker keeps its replicas
static void
test_drain_and_hold (void **state)
{
    testutil_sim_t *sim = testutil_sim_new (3);
    testutil_sim_define (sim, "web", 4, NULL);
    testutil_sim_settle (sim);
    sim->states [1] = DROVER_FLEET_HELD;
    drover_changeset_t set = { 0 };
    testutil_sim_term (sim, NULL, &set);
    assert_int_equal (set.count, 0);
    uint32_t counts [TESTUTIL_SIM_WORKERS];
    testutil_sim_counts (sim, "web", counts);
    uint32_t on_w1 = counts [0];
    sim->states [1] = DROVER_FLEET_USABLE;
    sim->states [0] = DROVER_FLEET_DRAINING;
    testutil_sim_term (sim, NULL, &set);
    assert_int_equal (set.count, on_w1);
    assert_int_equal (testutil_sim_changes (&set, DROVER_CHANGE_MOVE), on_w1);
    for (size_t index = 0; index < set.count; index++) {
        assert_string_equal (set.changes [index].from, "w1");
        assert_string_not_equal (set.changes [index].to, "w1");
        assert_string_equal (set.changes [index].why, "worker draining");
        assert_true (set.changes [index].task > 0);
    }
    testutil_sim_apply (sim, &set);
    testutil_sim_counts (sim, "web", counts);
    assert_int_equal (counts [0], on_w1);           //  still running there
    testutil_sim_term (sim, NULL, &set);
    assert_int_equal (testutil_sim_changes (&set, DROVER_CHANGE_STOP), on_w1);
    assert_int_equal (set.count, on_w1);
    testutil_sim_apply (sim, &set);
    testutil_sim_counts (sim, "web", counts);
    assert_int_equal (counts [0], 0);
    assert_int_equal (counts [1] + counts [2], 4);
    drover_changeset_reset (&set);
    testutil_sim_destroy (&sim);
}

//  Scale down stops the highest slots, in a pass too; delete stops all,
//  and the service is gone once they end
static void
test_scale_down_and_delete (void **state)
{
    testutil_sim_t *sim = testutil_sim_new (3);
    testutil_sim_define (sim, "web", 5, NULL);
    testutil_sim_settle (sim);
    assert_int_equal (drover_reconciler_scale (sim->rec, "web", 2, sim->now), 0);
    drover_changeset_t set = { 0 };
    testutil_sim_pass (sim, &set);
    assert_int_equal (set.count, 3);
    for (size_t index = 0; index < set.count; index++) {
        assert_int_equal (set.changes [index].kind, DROVER_CHANGE_STOP);
        assert_true (set.changes [index].slot >= 2);
        assert_string_equal (set.changes [index].why, "scaled down");
    }
    assert_int_equal (set.after.running, 2);
    assert_int_equal (set.after.wanted, 2);
    assert_int_equal (set.before.over, 1);
    assert_int_equal (set.after.ok, 1);
    testutil_sim_apply (sim, &set);
    testutil_sim_pass (sim, &set);
    assert_int_equal (set.count, 0);
    assert_int_equal (drover_reconciler_undefine (sim->rec, "web", sim->now), 0);
    assert_false (drover_reconciler_has (sim->rec, "web"));
    assert_int_equal (drover_reconciler_services (sim->rec), 0);
    testutil_sim_pass (sim, &set);
    assert_int_equal (set.count, 2);
    assert_string_equal (set.changes [0].why, "service deleted");
    testutil_sim_apply (sim, &set);
    testutil_sim_pass (sim, &set);
    assert_int_equal (set.count, 0);
    assert_int_equal (drover_reconciler_undefine (sim->rec, "web", sim->now), -1);
    //  A replica of a service nobody defines (restored) is stopped
    testutil_sim_start_task (sim, "ghost", 0, "w2");
    testutil_sim_pass (sim, &set);
    assert_int_equal (set.count, 1);
    assert_string_equal (set.changes [0].why, "service deleted");
    assert_false (drover_reconciler_has (sim->rec, "ghost"));
    drover_changeset_reset (&set);
    testutil_sim_destroy (&sim);
}

//  A second replica of a slot is stopped by a term once one runs; a
//  pass leaves it
static void
test_duplicate (void **state)
{
    testutil_sim_t *sim = testutil_sim_new (3);
    testutil_sim_define (sim, "web", 2, NULL);
    testutil_sim_settle (sim);
    size_t extra = testutil_sim_start_task (sim, "web", 1, "w3");
    drover_changeset_t set = { 0 };
    testutil_sim_pass (sim, &set);
    assert_int_equal (set.count, 0);
    assert_int_equal (set.before.over, 1);
    testutil_sim_term (sim, NULL, &set);
    assert_int_equal (set.count, 1);
    assert_int_equal (set.changes [0].kind, DROVER_CHANGE_STOP);
    assert_int_equal (set.changes [0].slot, 1);
    assert_string_equal (set.changes [0].why, "duplicate");
    assert_true (set.changes [0].task == sim->tasks [extra].task);  //  the newer one
    drover_changeset_reset (&set);
    testutil_sim_destroy (&sim);
}

//  A running replica its worker does not list is stopped and replaced
static void
test_not_running_on_worker (void **state)
{
    testutil_sim_t *sim = testutil_sim_new (3);
    testutil_sim_define (sim, "web", 4, NULL);
    testutil_sim_settle (sim);
    size_t vanished = 0;
    sim->tasks [vanished].alive = false;        //  gone, unreported
    drover_changeset_t set = { 0 };
    testutil_sim_term (sim, NULL, &set);
    assert_int_equal (set.count, 2);
    assert_int_equal (set.changes [0].kind, DROVER_CHANGE_STOP);
    assert_string_equal (set.changes [0].why, "not running on its worker");
    assert_true (set.changes [0].task == sim->tasks [vanished].task);
    assert_int_equal (set.changes [1].kind, DROVER_CHANGE_START);
    assert_int_equal (set.changes [1].slot, sim->tasks [vanished].slot);
    assert_int_equal (set.after.complete, 1);
    drover_changeset_reset (&set);
    testutil_sim_destroy (&sim);
}

//  keep-balance's sanity: removals past max-stop-percent of the running
//  replicas are not made, and the statistics say why
static void
test_max_stop_percent (void **state)
{
    testutil_sim_t *sim = testutil_sim_new (3);
    testutil_sim_define (sim, "web", 4, NULL);
    testutil_sim_settle (sim);
    for (size_t index = 0; index < 3; index++)
        sim->tasks [index].alive = false;      //  3 of 4 vanish: implausible
    drover_changeset_t set = { 0 };
    testutil_sim_term (sim, NULL, &set);
    assert_int_equal (set.count, 0);
    assert_int_equal (set.after.complete, 0);
    assert_string_equal (set.after.why,
                         "implausible: would stop 3 of 4 running replicas (over 50%)");
    //  Two of four is within 50%: stopped and replaced
    sim->tasks [2].alive = true;
    testutil_sim_term (sim, NULL, &set);
    assert_int_equal (set.after.complete, 1);
    assert_int_equal (testutil_sim_changes (&set, DROVER_CHANGE_STOP), 2);
    assert_int_equal (testutil_sim_changes (&set, DROVER_CHANGE_START), 2);
    drover_changeset_reset (&set);
    testutil_sim_destroy (&sim);
}

//  A replica that ends restarts after the restart delay, doubling with
//  each quick exit up to the cap; crash-warn quick exits in a row make the
//  service CRASHING; a long run ends the streak; a lost worker no backoff
static void
test_restart_backoff (void **state)
{
    testutil_sim_t *sim = testutil_sim_new (2);
    testutil_sim_define (sim, "job", 1, NULL);
    testutil_sim_settle (sim);
    uint64_t expected [6] = { 1000, 2000, 4000, 5000, 5000, 5000 };
    drover_changeset_t set = { 0 };
    for (int exit = 0; exit < 6; exit++) {
        size_t task = sim->ntasks - 1;
        assert_true (sim->tasks [task].alive);
        sim->now += 10;
        int crashing = testutil_sim_end_task (sim, task, DROVER_TASK_FAILED, DROVER_END_FAILED,
                                              "exited 1");
        assert_int_equal (crashing, exit == 2);
        uint64_t ended = sim->now;
        testutil_sim_pass (sim, &set);
        assert_int_equal (set.count, 0);
        assert_true (set.next == ended + expected [exit]);
        drover_service_row_t *rows;
        drover_replica_row_t *replicas;
        size_t nrows, nreplicas;
        drover_reconciler_rows (sim->rec, "job", sim->now, &rows, &nrows, &replicas, &nreplicas);
        assert_int_equal (rows [0].state, exit >= 2? DROVER_SERVICE_CRASHING:
                                                    DROVER_SERVICE_LOST);
        assert_int_equal (rows [0].restarts, exit + 1);
        assert_int_equal (replicas [0].state, DROVER_REPLICA_WAITING);
        assert_non_null (strstr (replicas [0].why, "exited 1"));
        assert_int_equal (replicas [0].restarts, exit + 1);
        drover_reconciler_rows_free (&rows, nrows, &replicas);
        sim->now = set.next - 1;
        testutil_sim_pass (sim, &set);
        assert_int_equal (set.count, 0);
        sim->now++;
        testutil_sim_pass (sim, &set);
        assert_int_equal (set.count, 1);
        assert_string_equal (set.changes [0].why, "restart");
        testutil_sim_apply (sim, &set);
    }
    //  A run past stable-after ends the streak: the next exit waits 1 s
    sim->now += 60000;
    size_t task = sim->ntasks - 1;
    assert_int_equal (testutil_sim_end_task (sim, task, DROVER_TASK_SUCCEEDED, DROVER_END_SUCCEEDED,
                                             "exited 0"), 0);
    testutil_sim_pass (sim, &set);
    assert_true (set.next == sim->now + 1000);
    sim->now = set.next;
    testutil_sim_pass (sim, &set);
    testutil_sim_apply (sim, &set);
    //  Its worker lost: restarted at once
    task = sim->ntasks - 1;
    testutil_sim_end_task (sim, task, DROVER_TASK_FAILED, DROVER_END_LOST, "worker lost");
    testutil_sim_pass (sim, &set);
    assert_int_equal (set.count, 1);
    //  Stopped by the reconciler: no restart
    testutil_sim_apply (sim, &set);
    drover_reconciler_scale (sim->rec, "job", 0, sim->now);
    testutil_sim_pass (sim, &set);
    assert_int_equal (set.count, 1);
    testutil_sim_apply (sim, &set);
    drover_reconciler_scale (sim->rec, "job", 1, sim->now);
    testutil_sim_pass (sim, &set);
    assert_int_equal (set.count, 1);
    assert_int_equal (set.next, 0);
    drover_changeset_reset (&set);
    testutil_sim_destroy (&sim);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_drain_and_hold),
        cmocka_unit_test (test_scale_down_and_delete),
        cmocka_unit_test (test_duplicate),
        cmocka_unit_test (test_not_running_on_worker),
        cmocka_unit_test (test_max_stop_percent),
        cmocka_unit_test (test_restart_backoff),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
