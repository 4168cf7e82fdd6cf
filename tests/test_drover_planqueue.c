/*  =========================================================================
    test_drover_planqueue - PLANs without the actor: checked when they
    come, kept until a fleet, then each answered (PLAN RESULT, or 404 for
    a worker not in the fleet), oldest first
    =========================================================================
*/

#include "testutil_class.h"
#include "drover_planqueue.h"

//  A reconciler's class with one service, "web", of 2 replicas
static drover_reconciler_t *
s_reconcile_new (void)
{
    drover_serviceconfig_t config = {
        .term = 10000, .gather_timeout = 2000, .restart_delay = 1000,
        .max_restart_delay = 5000, .stable_after = 60000, .crash_warn = 3,
        .max_stop_percent = 50, .max_services = 4, .max_replicas = 100
    };
    drover_reconciler_t *reconcile = drover_reconciler_new (&config);
    drover_service_row_t def;
    memset (&def, 0, sizeof def);
    snprintf (def.name, sizeof def.name, "web");
    def.replicas = 2;
    def.procs = 1;
    assert_int_equal (drover_reconciler_define (reconcile, &def, 1000), 0);
    return reconcile;
}

//  A PLAN of action on worker or service
static drover_msg_t *
s_plan (int action, const char *worker, const char *service, uint32_t seq)
{
    drover_msg_t *plan = drover_msg_new (DROVER_MSG_PLAN);
    plan->action = (uint8_t) action;
    snprintf (plan->worker, sizeof plan->worker, "%s", worker);
    snprintf (plan->service, sizeof plan->service, "%s", service);
    plan->count = 3;
    plan->seq = seq;
    return plan;
}

//  Each action's target is checked before a plan waits
static void
test_plans_checked (void **state)
{
    drover_reconciler_t *reconcile = s_reconcile_new ();
    const struct {
        int action;
        const char *worker, *service;
        int code;
    } cases [] = {
        { DROVER_PLAN_ACTION_MAX + 1, "w1", "", DROVER_CODE_BAD_REQUEST },
        { DROVER_PLAN_DRAIN, "", "", DROVER_CODE_BAD_REQUEST },
        { DROVER_PLAN_HOLD, "", "", DROVER_CODE_BAD_REQUEST },
        { DROVER_PLAN_SCALE, "", "db", DROVER_CODE_NOT_FOUND },
        { DROVER_PLAN_DRAIN, "w1", "", DROVER_CODE_OK },
        { DROVER_PLAN_HOLD, "w1", "", DROVER_CODE_OK },
        { DROVER_PLAN_SCALE, "", "web", DROVER_CODE_OK },
        { DROVER_PLAN_TERM, "", "", DROVER_CODE_OK },
    };
    for (size_t index = 0; index < sizeof cases / sizeof cases [0]; index++) {
        drover_msg_t *plan = s_plan (cases [index].action, cases [index].worker,
                                     cases [index].service, 1);
        const char *reason = "unset";
        assert_int_equal (drover_planqueue_check (plan, reconcile, &reason), cases [index].code);
        if (cases [index].code == DROVER_CODE_OK)
            assert_null (reason);
        else
            assert_non_null (reason);
        drover_msg_destroy (&plan);
    }
    drover_reconciler_destroy (&reconcile);
}

//  Plans wait for the fleet, then are answered in the order they came: a
//  drain on a worker not in the fleet is 404, the rest PLAN RESULT
static void
test_plans_answered_on_the_fleet (void **state)
{
    drover_reconciler_t *reconcile = s_reconcile_new ();
    drover_fleet_t *fleet = drover_fleet_new ();
    drover_fleet_worker_t worker = { .id = "w1", .procs = 8, .mem = 1 << 30, .labels = "" };
    drover_fleet_add (fleet, &worker);
    size_t count = 0;
    const drover_fleet_worker_t *workers = drover_fleet_workers (fleet, &count);
    drover_reconciler_set_fleet (reconcile, workers, count);

    drover_planqueue_t *plans = drover_planqueue_new ();
    byte route [] = { 0, 1, 2, 3, 4 };
    drover_msg_t *plan = s_plan (DROVER_PLAN_DRAIN, "w9", "", 11);
    drover_planqueue_add (plans, route, sizeof route, &plan);
    assert_null (plan);
    plan = s_plan (DROVER_PLAN_SCALE, "", "web", 12);
    drover_planqueue_add (plans, route, sizeof route, &plan);
    plan = s_plan (DROVER_PLAN_DRAIN, "w1", "", 13);
    drover_planqueue_add (plans, route, sizeof route, &plan);
    assert_int_equal (drover_planqueue_size (plans), 3);

    drover_outbox_t *outbox = drover_outbox_new ();
    drover_changeset_t set = { 0 };
    drover_planqueue_answer (plans, reconcile, fleet, &set, 2000, outbox);
    assert_int_equal (drover_planqueue_size (plans), 0);
    testutil_sends_t sends = { .count = 0 };
    testutil_read_sends (outbox, &sends);
    assert_int_equal (sends.count, 3);
    assert_int_equal (sends.msgs [0]->id, DROVER_MSG_ERROR);
    assert_int_equal (sends.msgs [0]->code, DROVER_CODE_NOT_FOUND);
    assert_int_equal (sends.msgs [0]->seq, 11);
    assert_int_equal (sends.msgs [1]->id, DROVER_MSG_PLAN_RESULT);
    assert_int_equal (sends.msgs [1]->seq, 12);
    assert_int_equal (sends.msgs [2]->id, DROVER_MSG_PLAN_RESULT);
    assert_int_equal (sends.msgs [2]->seq, 13);
    testutil_sends_reset (&sends);

    //  Plans not answered go with the queue
    plan = s_plan (DROVER_PLAN_TERM, "", "", 14);
    drover_planqueue_add (plans, route, sizeof route, &plan);
    drover_changeset_reset (&set);
    drover_outbox_destroy (&outbox);
    drover_planqueue_destroy (&plans);
    assert_null (plans);
    drover_planqueue_destroy (&plans);
    drover_fleet_destroy (&fleet);
    drover_reconciler_destroy (&reconcile);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_plans_checked),
        cmocka_unit_test (test_plans_answered_on_the_fleet),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
