/*  =========================================================================
    test_drover_reconciler_placement - where the reconciler puts replicas,
    with a fake clock and a simulated cluster (testutil_sim): 3 workers and
    4 replicas spread 2/1/1, rendezvous placement, starts pending take
    room, a worker lost, a worker joining, a silent worker
    =========================================================================
*/

#include "testutil_sim.h"
#include "drover_rendezvous.h"

//  The spread: 3 workers and a service of 4 replicas: 2/1/1, in
//  one term; the statistics say 4 started and the service just right
static void
test_spread_2_1_1 (void **state)
{
    testutil_sim_t *sim = testutil_sim_new (3);
    testutil_sim_define (sim, "web", 4, NULL);
    drover_changeset_t set = { 0 };
    testutil_sim_term (sim, NULL, &set);
    assert_int_equal (set.kind, DROVER_RECONCILER_TERM);
    assert_int_equal (set.count, 4);
    assert_int_equal (testutil_sim_changes (&set, DROVER_CHANGE_START), 4);
    assert_int_equal (set.before.lost, 1);
    assert_int_equal (set.before.running, 0);
    assert_int_equal (set.after.started, 4);
    assert_int_equal (set.after.running, 4);
    assert_int_equal (set.after.ok, 1);
    assert_int_equal (set.after.term, 1);
    assert_int_equal (set.after.complete, 1);
    testutil_sim_apply (sim, &set);
    assert_true (drover_reconciler_stats (sim->rec)->term == 1);
    assert_int_equal (drover_reconciler_stats (sim->rec)->started, 4);
    uint32_t counts [TESTUTIL_SIM_WORKERS];
    testutil_sim_counts (sim, "web", counts);
    qsort (counts, 3, sizeof counts [0], testutil_sim_compare_counts);
    assert_int_equal (counts [0], 2);
    assert_int_equal (counts [1], 1);
    assert_int_equal (counts [2], 1);
    assert_int_equal (testutil_sim_settle (sim), 1);       //  nothing more to do
    drover_changeset_reset (&set);
    testutil_sim_destroy (&sim);
}

//  A slot goes to the first worker in the rendezvous order of
//  "SERVICE/SLOT" that could hold it: labels, room, taking new work
static void
test_rendezvous_placement (void **state)
{
    testutil_sim_t *sim = testutil_sim_new (5);
    testutil_sim_define (sim, "db", 1, NULL);
    const char *ids [5] = { "w1", "w2", "w3", "w4", "w5" };
    size_t order [5];
    drover_rendezvous_order ("db/0", 4, ids, NULL, 5, order);
    drover_changeset_t set = { 0 };
    testutil_sim_pass (sim, &set);
    assert_int_equal (set.count, 1);
    assert_string_equal (set.changes [0].to, ids [order [0]]);
    assert_string_equal (set.changes [0].service, "db");
    assert_int_equal (set.changes [0].slot, 0);
    //  Its first worker full, held or without the label: the next in order
    sim->procs [order [0]] = 0;
    testutil_sim_pass (sim, &set);
    assert_string_equal (set.changes [0].to, ids [order [1]]);
    sim->procs [order [0]] = 8;
    sim->states [order [0]] = DROVER_FLEET_HELD;
    testutil_sim_pass (sim, &set);
    assert_string_equal (set.changes [0].to, ids [order [1]]);
    sim->states [order [0]] = DROVER_FLEET_USABLE;
    drover_reconciler_undefine (sim->rec, "db", sim->now);
    testutil_sim_define (sim, "db", 1, "ssd=yes");
    snprintf (sim->labels [order [2]], sizeof sim->labels [0], "zone=eu\nssd=yes");
    testutil_sim_pass (sim, &set);
    assert_int_equal (set.count, 1);
    assert_string_equal (set.changes [0].to, ids [order [2]]);
    //  Nobody with the label: the slot waits, and says so
    sim->labels [order [2]][0] = 0;
    testutil_sim_pass (sim, &set);
    assert_int_equal (set.count, 0);
    drover_service_row_t *rows;
    drover_replica_row_t *replicas;
    size_t nrows, nreplicas;
    assert_int_equal (drover_reconciler_rows (sim->rec, "db", sim->now, &rows, &nrows,
                                             &replicas, &nreplicas), 1);
    assert_int_equal (rows [0].state, DROVER_SERVICE_LOST);
    assert_non_null (strstr (rows [0].why, "waits"));
    assert_int_equal (nreplicas, 1);
    assert_int_equal (replicas [0].state, DROVER_REPLICA_WAITING);
    assert_string_equal (replicas [0].why, "no worker has room");
    drover_reconciler_rows_free (&rows, nrows, &replicas);
    assert_null (rows);
    drover_changeset_reset (&set);
    testutil_sim_destroy (&sim);
}

//  Starts committed but not reported yet take room: a worker of 1 proc
//  gets one replica, the next goes elsewhere
static void
test_pending_starts_take_room (void **state)
{
    testutil_sim_t *sim = testutil_sim_new (2);
    sim->procs [0] = sim->procs [1] = 1;
    testutil_sim_define (sim, "a", 1, NULL);
    drover_changeset_t set = { 0 };
    testutil_sim_pass (sim, &set);
    assert_int_equal (set.count, 1);
    drover_reconciler_commit (sim->rec, &set, sim->now);     //  no REPLICA yet
    char first [DROVER_ID_MAX + 1];
    snprintf (first, sizeof first, "%s", set.changes [0].to);
    testutil_sim_define (sim, "b", 1, NULL);
    testutil_sim_pass (sim, &set);
    assert_int_equal (set.count, 1);                        //  a's start holds its slot
    assert_string_equal (set.changes [0].service, "b");
    assert_string_not_equal (set.changes [0].to, first);
    //  A start never reported is forgotten after term + gather-timeout
    drover_reconciler_commit (sim->rec, &set, sim->now);
    sim->now += 12001;
    drover_reconciler_commit (sim->rec, &(drover_changeset_t) { 0 }, sim->now);
    testutil_sim_pass (sim, &set);
    assert_int_equal (set.count, 2);
    drover_changeset_reset (&set);
    testutil_sim_destroy (&sim);
}

//  A worker gone from the fleet: its replicas start elsewhere in one
//  computation, nothing else moves
static void
test_worker_lost (void **state)
{
    testutil_sim_t *sim = testutil_sim_new (3);
    testutil_sim_define (sim, "web", 4, NULL);
    testutil_sim_settle (sim);
    uint32_t counts [TESTUTIL_SIM_WORKERS];
    testutil_sim_counts (sim, "web", counts);
    int lost = counts [0] == 2? 0: counts [1] == 2? 1: 2;
    sim->in_fleet [lost] = false;
    drover_changeset_t set = { 0 };
    testutil_sim_pass (sim, &set);
    assert_int_equal (set.count, 2);
    assert_int_equal (testutil_sim_changes (&set, DROVER_CHANGE_START), 2);
    for (size_t index = 0; index < set.count; index++) {
        assert_string_not_equal (set.changes [index].to, sim->names [lost]);
        assert_string_equal (set.changes [index].why, "worker lost");
    }
    assert_int_equal (set.before.running, 2);
    assert_int_equal (set.before.under, 1);
    assert_int_equal (set.after.running, 4);
    testutil_sim_apply (sim, &set);
    //  assign ends the lost worker's tasks: no restart, no backoff
    for (size_t index = 0; index < sim->ntasks; index++)
        if (sim->tasks [index].alive && sim->tasks [index].worker == lost)
            testutil_sim_end_task (sim, index, DROVER_TASK_FAILED, DROVER_END_LOST, "worker lost");
    testutil_sim_counts (sim, "web", counts);
    assert_int_equal (counts [0] + counts [1] + counts [2], 4);
    assert_int_equal (counts [lost], 0);
    assert_true (counts [0] <= 2 && counts [1] <= 2 && counts [2] <= 2);
    testutil_sim_term (sim, NULL, &set);
    assert_int_equal (set.count, 0);
    assert_int_equal (set.after.running, 4);
    drover_changeset_reset (&set);
    testutil_sim_destroy (&sim);
}

//  A worker joining takes only what the spread needs: 4 replicas on 3
//  workers then 4: one move, to it; 3 replicas on 3 then 4: none
static void
test_worker_joins (void **state)
{
    testutil_sim_t *sim = testutil_sim_new (3);
    testutil_sim_define (sim, "web", 4, NULL);
    testutil_sim_define (sim, "api", 3, NULL);
    testutil_sim_settle (sim);
    int joined = testutil_sim_join (sim, "w4");
    drover_changeset_t set = { 0 };
    testutil_sim_term (sim, NULL, &set);
    assert_int_equal (set.count, 1);
    assert_int_equal (set.changes [0].kind, DROVER_CHANGE_MOVE);
    assert_string_equal (set.changes [0].service, "web");
    assert_string_equal (set.changes [0].to, "w4");
    assert_string_equal (set.changes [0].why, "spread");
    assert_int_equal (set.after.moved, 1);
    uint32_t counts [TESTUTIL_SIM_WORKERS];
    testutil_sim_counts (sim, "web", counts);
    assert_int_equal (counts [testutil_sim_worker (sim, set.changes [0].from)], 2);
    testutil_sim_apply (sim, &set);
    //  The next term stops the replica moved away, once the new one runs
    testutil_sim_term (sim, NULL, &set);
    assert_int_equal (set.count, 1);
    assert_int_equal (set.changes [0].kind, DROVER_CHANGE_STOP);
    assert_string_equal (set.changes [0].why, "moved");
    testutil_sim_apply (sim, &set);
    testutil_sim_counts (sim, "web", counts);
    for (int worker = 0; worker <= joined; worker++)
        assert_int_equal (counts [worker], 1);
    testutil_sim_counts (sim, "api", counts);
    assert_int_equal (counts [joined], 0);          //  api was even: it stays
    assert_int_equal (testutil_sim_settle (sim), 1);
    drover_changeset_reset (&set);
    testutil_sim_destroy (&sim);
}

//  The silent worker: no removals that term, the statistics say
//  which worker did not answer; starts still happen
static void
test_silent_worker (void **state)
{
    testutil_sim_t *sim = testutil_sim_new (3);
    testutil_sim_define (sim, "web", 3, NULL);
    testutil_sim_settle (sim);
    testutil_sim_start_task (sim, "web", 0, "w3");          //  a duplicate a term would stop
    sim->tasks [1].alive = false;               //  and one gone
    drover_reconciler_scale (sim->rec, "web", 4, sim->now);
    drover_changeset_t set = { 0 };
    testutil_sim_term (sim, "w2", &set);
    assert_int_equal (set.after.complete, 0);
    assert_string_equal (set.after.why, "incomplete: w2 did not answer");
    assert_int_equal (set.after.workers, 3);
    assert_int_equal (set.after.answered, 2);
    assert_int_equal (testutil_sim_changes (&set, DROVER_CHANGE_STOP), 0);
    assert_int_equal (testutil_sim_changes (&set, DROVER_CHANGE_MOVE), 0);
    assert_int_equal (testutil_sim_changes (&set, DROVER_CHANGE_START), 1);    //  slot 3
    testutil_sim_apply (sim, &set);
    assert_int_equal (drover_reconciler_stats (sim->rec)->complete, 0);
    assert_string_equal (drover_reconciler_stats (sim->rec)->why,
                         "incomplete: w2 did not answer");
    //  Everyone answers: the duplicate and the one gone are dealt with
    testutil_sim_term (sim, NULL, &set);
    assert_int_equal (set.after.complete, 1);
    assert_string_equal (set.after.why, "");
    assert_int_equal (testutil_sim_changes (&set, DROVER_CHANGE_STOP), 2);
    drover_changeset_reset (&set);
    testutil_sim_destroy (&sim);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_spread_2_1_1),
        cmocka_unit_test (test_rendezvous_placement),
        cmocka_unit_test (test_pending_starts_take_room),
        cmocka_unit_test (test_worker_lost),
        cmocka_unit_test (test_worker_joins),
        cmocka_unit_test (test_silent_worker),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
