/*  =========================================================================
    test_drover_reconciler_plans - the reconciler's plans, definitions and
    stats, with a fake clock and a simulated cluster (testutil_sim): a plan
    drain equal to the term that follows the drain, a plan's scale and
    hold, and what definitions and stats say
    =========================================================================
*/

#include "testutil_sim.h"

//  Compare the replica changes (not FINISH) of two sets
static void
s_assert_same_changes (const drover_changeset_t *plan, const drover_changeset_t *term)
{
    size_t compared = 0;
    for (size_t index = 0; index < plan->count; index++) {
        const drover_planchange_t *change = &plan->changes [index];
        if (change->kind == DROVER_CHANGE_FINISH)
            continue;
        assert_true (compared < term->count);
        const drover_planchange_t *done = &term->changes [compared++];
        assert_int_equal (change->kind, done->kind);
        assert_string_equal (change->service, done->service);
        assert_int_equal (change->slot, done->slot);
        assert_true (change->task == done->task);
        assert_string_equal (change->from, done->from);
        assert_string_equal (change->to, done->to);
        assert_string_equal (change->why, done->why);
    }
    assert_int_equal (compared, term->count - testutil_sim_changes (term, DROVER_CHANGE_FINISH));
}

//  The plan: a plan drain of W equals the change set of the term
//  computed once W drains; it lists W's batch tasks as left to finish,
//  and changes nothing
static void
test_plan_drain_equals_term (void **state)
{
    testutil_sim_t *sim = testutil_sim_new (4);
    testutil_sim_define (sim, "web", 6, NULL);
    testutil_sim_define (sim, "api", 3, NULL);
    testutil_sim_settle (sim);
    sim->batch [sim->nbatch++] = 7;             //  w1 runs a batch task too
    testutil_sim_gather (sim, NULL);
    drover_reconciler_what_t what = { .kind = DROVER_RECONCILER_PLAN, .action = DROVER_PLAN_DRAIN,
                                     .worker = "w1" };
    drover_changeset_t plan = { 0 }, again = { 0 }, term = { 0 };
    drover_reconciler_compute (sim->rec, &what, sim->now, &plan);
    assert_int_equal (plan.kind, DROVER_RECONCILER_PLAN);
    assert_true (testutil_sim_changes (&plan, DROVER_CHANGE_MOVE) > 0);
    assert_int_equal (testutil_sim_changes (&plan, DROVER_CHANGE_FINISH), 1);
    const drover_planchange_t *finish = &plan.changes [plan.count - 1];
    assert_int_equal (finish->kind, DROVER_CHANGE_FINISH);
    assert_true (finish->task == 7);
    assert_string_equal (finish->from, "w1");
    assert_int_equal (plan.before.running, 9);
    assert_int_equal (plan.after.running, 9);
    assert_int_equal (plan.after.moved, testutil_sim_changes (&plan, DROVER_CHANGE_MOVE));
    //  Computing again gives the same: nothing changed
    drover_reconciler_compute (sim->rec, &what, sim->now, &again);
    s_assert_same_changes (&plan, &again);
    assert_int_equal (plan.count, again.count);
    //  Now drain it: the term does what the plan said
    sim->states [0] = DROVER_FLEET_DRAINING;
    testutil_sim_term (sim, NULL, &term);
    s_assert_same_changes (&plan, &term);
    assert_int_equal (testutil_sim_changes (&term, DROVER_CHANGE_FINISH), 0);
    drover_changeset_reset (&plan);
    drover_changeset_reset (&again);
    drover_changeset_reset (&term);
    testutil_sim_destroy (&sim);
}

//  Plans of a scale and a hold: starts or stops predicted, nothing done;
//  a hold moves nothing
static void
test_plan_scale_and_hold (void **state)
{
    testutil_sim_t *sim = testutil_sim_new (3);
    testutil_sim_define (sim, "web", 4, NULL);
    testutil_sim_settle (sim);
    drover_reconciler_what_t scale = { .kind = DROVER_RECONCILER_PLAN, .action = DROVER_PLAN_SCALE,
                                      .service = "web", .count = 7 };
    drover_changeset_t plan = { 0 };
    drover_reconciler_compute (sim->rec, &scale, sim->now, &plan);
    assert_int_equal (testutil_sim_changes (&plan, DROVER_CHANGE_START), 3);
    assert_int_equal (plan.before.wanted, 4);
    assert_int_equal (plan.after.wanted, 7);
    assert_int_equal (plan.after.running, 7);
    scale.count = 1;
    drover_reconciler_compute (sim->rec, &scale, sim->now, &plan);
    assert_int_equal (testutil_sim_changes (&plan, DROVER_CHANGE_STOP), 3);
    assert_int_equal (plan.after.running, 1);
    drover_reconciler_what_t hold = { .kind = DROVER_RECONCILER_PLAN, .action = DROVER_PLAN_HOLD,
                                     .worker = "w2" };
    drover_reconciler_compute (sim->rec, &hold, sim->now, &plan);
    assert_int_equal (plan.count, 0);
    drover_reconciler_what_t next = { .kind = DROVER_RECONCILER_PLAN, .action = DROVER_PLAN_TERM };
    drover_reconciler_compute (sim->rec, &next, sim->now, &plan);
    assert_int_equal (plan.count, 0);
    assert_int_equal (plan.after.ok, 1);
    drover_changeset_t set = { 0 };
    testutil_sim_pass (sim, &set);
    assert_int_equal (set.count, 0);                //  the plans changed nothing
    drover_changeset_reset (&plan);
    drover_changeset_reset (&set);
    testutil_sim_destroy (&sim);
}

//  Definitions: limits, replace, unknown names; statistics: lost, under,
//  ok, over and the restarts histogram
static void
test_definitions_and_stats (void **state)
{
    testutil_sim_t *sim = testutil_sim_new (2);
    drover_service_row_t def;
    memset (&def, 0, sizeof def);
    snprintf (def.name, sizeof def.name, "big");
    def.replicas = 101;                         //  past max-replicas 100
    assert_int_equal (drover_reconciler_define (sim->rec, &def, sim->now), -1);
    def.replicas = 2;
    def.procs = 0;                              //  taken as 1
    snprintf (def.summary, sizeof def.summary, "sleep 100");
    assert_int_equal (drover_reconciler_define (sim->rec, &def, sim->now), 0);
    def.replicas = 3;
    assert_int_equal (drover_reconciler_define (sim->rec, &def, sim->now + 5), 1);
    assert_int_equal (drover_reconciler_scale (sim->rec, "big", 101, sim->now), -1);
    assert_int_equal (drover_reconciler_scale (sim->rec, "nope", 1, sim->now), -1);
    testutil_sim_define (sim, "b", 1, NULL);
    testutil_sim_define (sim, "c", 1, NULL);
    testutil_sim_define (sim, "d", 0, NULL);
    snprintf (def.name, sizeof def.name, "e");
    assert_int_equal (drover_reconciler_define (sim->rec, &def, sim->now), -1);  //  5th
    assert_int_equal (drover_reconciler_services (sim->rec), 4);
    testutil_sim_settle (sim);
    //  big: 3 running, then one ends (under); b: lost (no room); c: over
    sim->procs [0] = sim->procs [1] = 0;
    size_t task = 0;
    while (!streq (sim->tasks [task].service, "b"))
        task++;
    testutil_sim_end_task (sim, task, DROVER_TASK_FAILED, DROVER_END_FAILED, "exited 2");
    task = 0;
    while (!streq (sim->tasks [task].service, "big"))
        task++;
    testutil_sim_end_task (sim, task, DROVER_TASK_FAILED, DROVER_END_FAILED, "exited 3");
    testutil_sim_start_task (sim, "c", 0, "w1");
    sim->now += 100000;
    drover_changeset_t set = { 0 };
    testutil_sim_term (sim, NULL, &set);
    assert_int_equal (set.count, 1);            //  c's duplicate
    assert_int_equal (set.before.services, 4);
    assert_int_equal (set.before.wanted, 5);
    assert_int_equal (set.before.running, 4);
    assert_int_equal (set.before.lost, 1);
    assert_int_equal (set.before.under, 1);
    assert_int_equal (set.before.over, 1);
    assert_int_equal (set.before.ok, 1);        //  d: 0 of 0
    assert_int_equal (set.before.restarts [0], 3);
    assert_int_equal (set.before.restarts [1], 2);
    assert_int_equal (set.after.over, 0);
    assert_int_equal (set.after.ok, 2);
    drover_reconciler_commit (sim->rec, &set, sim->now);
    assert_true (drover_reconciler_stats (sim->rec)->term == set.after.term);
    assert_true (drover_reconciler_stats (sim->rec)->at == sim->now);
    assert_int_equal (drover_reconciler_stats (sim->rec)->duration, 5);
    drover_service_row_t *rows;
    drover_replica_row_t *replicas;
    size_t nrows, nreplicas;
    assert_int_equal (drover_reconciler_rows (sim->rec, "", sim->now, &rows, &nrows,
                                             &replicas, &nreplicas), 4);
    assert_null (replicas);
    assert_string_equal (rows [0].name, "b");
    assert_string_equal (rows [1].name, "big");
    assert_string_equal (rows [1].summary, "sleep 100");
    assert_int_equal (rows [1].procs, 1);
    assert_int_equal (rows [1].state, DROVER_SERVICE_UNDER);
    assert_int_equal (rows [1].running, 2);
    assert_int_equal (rows [1].created, 1000000);
    drover_reconciler_rows_free (&rows, nrows, &replicas);
    assert_int_equal (drover_reconciler_rows (sim->rec, "zz", sim->now, &rows, &nrows,
                                             &replicas, &nreplicas), -1);
    drover_changeset_reset (&set);
    testutil_sim_destroy (&sim);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_plan_drain_equals_term),
        cmocka_unit_test (test_plan_scale_and_hold),
        cmocka_unit_test (test_definitions_and_stats),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
