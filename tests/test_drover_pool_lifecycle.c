/*  =========================================================================
    test_drover_pool_lifecycle - the elastic pool's instances after they are
    made, with a fake clock: the boot, idle, probe and shutdown timeouts,
    idle behaviours, adoption after a restart, vanished instances, the
    operator's kill, a shape no type fits, the names
    =========================================================================
*/

#include "testutil_poolplan.h"

static void
test_boot_timeout (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    fx->config.list_interval = 100000000;
    testutil_poolplan_pool (fx);
    testutil_poolplan_start (fx, 0);
    testutil_poolplan_demand (fx, 2, TESTUTIL_GIB, "", 1, 1000);
    testutil_poolplan_plan (fx, 1000);
    drover_pool_created (fx->pool, "P-1", DROVER_POOLOP_OK, "", 5000);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 5000), 601000);
    assert_int_equal (testutil_poolplan_plan (fx, 600999), 0);
    testutil_poolplan_plan_says (fx, 601000, "DESTROY P-1");
    assert_int_equal (testutil_poolplan_state (fx, "P-1"), DROVER_INSTANCE_SHUTDOWN);
    assert_int_equal (testutil_poolplan_told (fx, "P-1 1>4 boot timeout"), 1);
    //  The demand is still there: a new one (P-1 is no capacity now)
    assert_int_equal (testutil_poolplan_said (fx, "CREATE P-2"), 1);
}

//  Idle for idle-timeout: retired (no new work), destroyed once the
//  scheduler says it is idle, forgotten when a list no longer has it
static void
test_idle_timeout_retires_then_destroys (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    testutil_poolplan_pool_one_up (fx);
    testutil_poolplan_worker_load (fx, "P-1", 0, 1000);         //  its task done
    assert_int_equal (testutil_poolplan_state (fx, "P-1"), DROVER_INSTANCE_IDLE);
    drover_instance_view_t view;
    drover_pool_lookup (fx->pool, "P-1", &view);
    assert_int_equal (view.last_task, 42);
    assert_int_equal (view.last_busy, 0);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 1000), 60000);  //  the list
    assert_int_equal (testutil_poolplan_plan (fx, 59999), 0);
    testutil_poolplan_plan_says (fx, 61000, "RETIRE P-1");
    assert_int_equal (testutil_poolplan_said (fx, "DESTROY"), 0);
    assert_int_equal (testutil_poolplan_state (fx, "P-1"), DROVER_INSTANCE_SHUTDOWN);
    assert_int_equal (testutil_poolplan_told (fx, "P-1 2>4 idle timeout"), 1);
    drover_pool_listed (fx->pool, DROVER_POOLOP_OK, NULL, 0, "", 61000);  //  before destroy
    assert_int_equal (testutil_poolplan_state (fx, "P-1"), -1);     //  vanished, even retiring
    assert_int_equal (testutil_poolplan_told (fx, "P-1 4>-1 vanished"), 1);
}

//  A retired instance is destroyed when the scheduler says so, then gone
static void
test_retired_destroyed_then_gone (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    fx->config.list_interval = 1000000;
    testutil_poolplan_pool_one_up (fx);
    testutil_poolplan_worker_load (fx, "P-1", 0, 1000);
    testutil_poolplan_plan_says (fx, 61000, "RETIRE P-1");
    assert_int_equal (testutil_poolplan_plan (fx, 62000), 0);
    drover_pool_retired (fx->pool, "P-1", 63000);
    testutil_poolplan_plan_says (fx, 63000, "DESTROY P-1");
    drover_pool_destroyed (fx->pool, "P-1", DROVER_POOLOP_OK, "", 63100);
    testutil_poolplan_listed_without_p1 (fx, 63100, 63200);     //  a list soon after a destroy
}

//  Lost: unknown; registered again within probe-timeout is fine, else
//  destroyed
static void
test_probe_timeout (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    fx->config.list_interval = 100000000;
    testutil_poolplan_pool_one_up (fx);
    drover_pool_lost (fx->pool, "P-1", "silent", 1000);
    assert_int_equal (testutil_poolplan_state (fx, "P-1"), DROVER_INSTANCE_UNKNOWN);
    assert_int_equal (testutil_poolplan_told (fx, "P-1 3>0 lost: silent"), 1);
    drover_pool_registered (fx->pool, "P-1", 2000);
    assert_int_equal (testutil_poolplan_state (fx, "P-1"), DROVER_INSTANCE_IDLE);
    drover_pool_lost (fx->pool, "P-1", "left", 3000);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 3000), 603000);
    assert_int_equal (testutil_poolplan_plan (fx, 602999), 0);
    testutil_poolplan_plan_says (fx, 603000, "DESTROY P-1");
    assert_int_equal (testutil_poolplan_told (fx, "P-1 0>4 probe timeout"), 1);
}

//  Still listed shutdown-timeout after a destroy, or the destroy failed:
//  destroyed again
static void
test_shutdown_timeout (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    testutil_poolplan_pool_one_up (fx);
    drover_pool_kill (fx->pool, "P-1", 1000);
    testutil_poolplan_plan_says (fx, 1000, "DESTROY P-1");
    drover_pool_destroyed (fx->pool, "P-1", DROVER_POOLOP_OK, "", 1100);
    testutil_poolplan_plan_says (fx, 1100, "LIST");
    drover_poolentry_t entry = { "P-1", "small", "drover", DROVER_IDLE_RUN };
    drover_pool_listed (fx->pool, DROVER_POOLOP_OK, &entry, 1, "", 1200);
    assert_int_equal (testutil_poolplan_state (fx, "P-1"), DROVER_INSTANCE_SHUTDOWN);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 1200), 11000);
    assert_int_equal (testutil_poolplan_plan (fx, 10999), 0);
    testutil_poolplan_plan_says (fx, 11000, "DESTROY P-1");
    drover_pool_destroyed (fx->pool, "P-1", DROVER_POOLOP_FAILED, "stuck", 11100);
    assert_int_equal (testutil_poolplan_told (fx, "WARN P-1 destroy failed: stuck"), 1);
    assert_int_equal (testutil_poolplan_plan (fx, 20999), 0);
    testutil_poolplan_plan_says (fx, 21000, "DESTROY P-1");
    drover_poolcounts_t counts;
    drover_pool_counts (fx->pool, &counts);
    assert_int_equal (counts.destroys, 3);
    //  Its worker left once destroyed, and the next list lacks it: gone
    drover_pool_lost (fx->pool, "P-1", "left", 21050);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 21050), 61100);
    testutil_poolplan_listed_without_p1 (fx, 61100, 61100);
}

//  A destroy that failed, of an instance the driver no longer lists: gone,
//  not destroyed again and again
static void
test_destroy_failed_and_unlisted_is_gone (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    fx->config.shutdown_timeout = 1000000;
    testutil_poolplan_pool_one_up (fx);
    drover_pool_kill (fx->pool, "P-1", 1000);
    testutil_poolplan_plan_says (fx, 1000, "DESTROY P-1");
    testutil_poolplan_plan (fx, 1050);                  //  a list begins, the destroy in flight
    assert_int_equal (testutil_poolplan_said (fx, "LIST"), 0);
    drover_pool_destroyed (fx->pool, "P-1", DROVER_POOLOP_FAILED, "no such", 1100);
    testutil_poolplan_plan_says (fx, 60000, "LIST");
    assert_int_equal (testutil_poolplan_said (fx, "DESTROY"), 0);
    drover_poolentry_t entry = { "P-1", "small", "drover", DROVER_IDLE_RUN };
    drover_pool_listed (fx->pool, DROVER_POOLOP_OK, &entry, 1, "", 60000);
    assert_int_equal (testutil_poolplan_state (fx, "P-1"),
                      DROVER_INSTANCE_SHUTDOWN);  //  still listed
    testutil_poolplan_listed_without_p1 (fx, 120000, 120000);
}

//  Hold: tagged and kept off new work, never retired nor timed out;
//  drain: retired as soon as idle
static void
test_drain_and_hold (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    testutil_poolplan_pool_one_up (fx);
    assert_int_equal (drover_pool_set_behaviour (fx->pool, "P-1", DROVER_IDLE_HOLD, 100), 0);
    assert_int_equal (testutil_poolplan_told (fx, "P-1 3>3 behaviour hold"), 1);
    testutil_poolplan_plan_says (fx, 100, "TAG P-1 hold");
    assert_int_equal (testutil_poolplan_said (fx, "ADMIN P-1 hold"), 1);
    drover_pool_tagged (fx->pool, "P-1", DROVER_POOLOP_OK, "", 200);
    testutil_poolplan_worker_load (fx, "P-1", 0, 300);
    assert_int_equal (testutil_poolplan_state (fx, "P-1"), DROVER_INSTANCE_IDLE);
    testutil_poolplan_plan (fx, 1000000);
    assert_int_equal (testutil_poolplan_said (fx, "RETIRE"), 0);
    drover_pool_lost (fx->pool, "P-1", "silent", 1000000);
    testutil_poolplan_plan (fx, 5000000);                       //  lost, held: no probe timeout
    assert_int_equal (testutil_poolplan_said (fx, "DESTROY"), 0);
    drover_pool_registered (fx->pool, "P-1", 5000000);
    //  Drain: retired at once when idle, then destroyed
    assert_int_equal (drover_pool_set_behaviour (fx->pool, "P-1", DROVER_IDLE_DRAIN, 5000000), 0);
    testutil_poolplan_plan_says (fx, 5000000, "ADMIN P-1 drain");
    assert_int_equal (testutil_poolplan_said (fx, "RETIRE P-1"), 1);
    assert_int_equal (testutil_poolplan_said (fx, "TAG"), 0);           //  shutting down: no tag
    assert_int_equal (testutil_poolplan_told (fx, "P-1 2>4 drained"), 1);
    assert_int_equal (drover_pool_set_behaviour (fx->pool, "P-1", DROVER_IDLE_RUN, 5000000), -1);
    assert_int_equal (drover_pool_set_behaviour (fx->pool, "nobody", DROVER_IDLE_RUN, 0), -1);
    drover_pool_retired (fx->pool, "P-1", 5000100);
    testutil_poolplan_plan_says (fx, 5000100, "DESTROY P-1");
}

//  A list adopts our tagged instances: unknown until registered (at once
//  idle if its worker registered before), its behaviour restored (ADMIN);
//  one of a type the settings do not have is not adopted, told once (as
//  Arvados ignores it); other pools' ignored
static void
test_adoption (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    testutil_poolplan_pool (fx);
    assert_false (drover_pool_registered (fx->pool, "OLD-2", 0));     //  before the list
    testutil_poolplan_plan (fx, 0);
    drover_poolentry_t entries [5] = {
        { "OLD-1", "small", "drover", DROVER_IDLE_RUN },
        { "OLD-2", "medium", "drover", DROVER_IDLE_RUN },
        { "OLD-3", "small", "drover", DROVER_IDLE_HOLD },
        { "OLD-4", "huge", "drover", DROVER_IDLE_RUN },
        { "THEIRS", "small", "other", DROVER_IDLE_RUN } };
    drover_pool_listed (fx->pool, DROVER_POOLOP_OK, entries, 5, "", 100);
    assert_int_equal (drover_pool_size (fx->pool), 3);
    assert_int_equal (testutil_poolplan_state (fx, "OLD-1"), DROVER_INSTANCE_UNKNOWN);
    assert_int_equal (testutil_poolplan_state (fx, "OLD-2"), DROVER_INSTANCE_IDLE);
    assert_int_equal (testutil_poolplan_state (fx, "OLD-3"), DROVER_INSTANCE_UNKNOWN);
    assert_int_equal (testutil_poolplan_state (fx, "THEIRS"), -1);
    assert_int_equal (testutil_poolplan_told (fx, "OLD-1 -1>0 adopted"), 1);
    assert_int_equal (testutil_poolplan_told (fx, "OLD-2 -1>2 adopted"), 1);
    drover_instance_view_t view;
    assert_false (drover_pool_lookup (fx->pool, "OLD-4", &view));
    assert_int_equal (testutil_poolplan_told (fx, "WARN OLD-4 listed with type 'huge'"), 1);
    drover_pool_listed (fx->pool, DROVER_POOLOP_OK, entries, 5, "", 150);
    assert_int_equal (testutil_poolplan_told (fx, "WARN OLD-4 listed with type 'huge'"), 1);
    assert_false (drover_pool_lookup (fx->pool, "OLD-4", &view));
    assert_true (drover_pool_lookup (fx->pool, "OLD-3", &view));
    assert_int_equal (view.behaviour, DROVER_IDLE_HOLD);
    testutil_poolplan_plan_says (fx, 100, "ADMIN OLD-3 hold");
    //  Run ones are said too, quietly (a probe's hold from before a restart
    //  is cleared)
    assert_int_equal (testutil_poolplan_said (fx, "ADMIN OLD-1 run probed"), 1);
    assert_int_equal (testutil_poolplan_said (fx, "ADMIN OLD-2 run probed"), 1);
    assert_int_equal (testutil_poolplan_said (fx, "ADMIN"), 3);
    //  Adopted capacity takes demand: a small task needs no create
    testutil_poolplan_demand (fx, 2, TESTUTIL_GIB, "", 1, 200);
    assert_int_equal (testutil_poolplan_plan (fx, 200), 0);
    //  Held, never registered: never destroyed; the ignored one: left alone
    assert_true (drover_pool_registered (fx->pool, "OLD-1", 300));
    testutil_poolplan_plan (fx, 100 + 600000);
    assert_int_equal (testutil_poolplan_said (fx, "DESTROY"), 0);
}

//  Known instances a list (begun after their create finished) lacks are
//  forgotten: vanished, and that ends a quota backoff
static void
test_vanished (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    testutil_poolplan_pool_demanding (fx, 2);
    assert_int_equal (testutil_poolplan_said (fx, "CREATE"), 2);
    drover_pool_created (fx->pool, "P-1", DROVER_POOLOP_OK, "", 100);
    testutil_poolplan_plan_says (fx, 60000, "LIST");    //  a list begins, P-2 still creating
    drover_pool_created (fx->pool, "P-2", DROVER_POOLOP_OK, "", 60050);
    drover_pool_listed (fx->pool, DROVER_POOLOP_OK, NULL, 0, "", 60100);
    assert_int_equal (testutil_poolplan_state (fx, "P-1"), -1);
    assert_int_equal (testutil_poolplan_told (fx, "P-1 1>-1 vanished"), 1);
    assert_int_equal (testutil_poolplan_state (fx, "P-2"), DROVER_INSTANCE_BOOTING);
    //  A failed list concludes nothing
    testutil_poolplan_plan (fx, 120000);
    drover_pool_listed (fx->pool, DROVER_POOLOP_FAILED, NULL, 0, "no", 120100);
    assert_int_equal (testutil_poolplan_state (fx, "P-2"), DROVER_INSTANCE_BOOTING);
    //  Quota error, then P-2 vanishes: creates at once
    testutil_poolplan_demand (fx, 2, TESTUTIL_GIB, "", 3, 120200);
    testutil_poolplan_plan (fx, 120200);
    drover_pool_created (fx->pool, "P-3", DROVER_POOLOP_QUOTA, "", 120200);
    drover_pool_created (fx->pool, "P-4", DROVER_POOLOP_QUOTA, "", 120200);
    assert_int_equal (testutil_poolplan_plan (fx, 120300), 0);
    testutil_poolplan_plan (fx, 180000);
    drover_pool_listed (fx->pool, DROVER_POOLOP_OK, NULL, 0, "", 180000);
    assert_int_equal (testutil_poolplan_told (fx, "P-2 1>-1 vanished"), 1);
    testutil_poolplan_plan (fx, 180000);
    assert_int_equal (testutil_poolplan_said (fx, "CREATE"), 3);
}

//  The operator's kill: shut down and destroyed at once
static void
test_operator_kill (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    testutil_poolplan_pool_one_up (fx);
    assert_int_equal (drover_pool_kill (fx->pool, "nobody", 10), -1);
    assert_int_equal (drover_pool_kill (fx->pool, "P-1", 10), 0);
    assert_int_equal (testutil_poolplan_told (fx, "P-1 3>4 destroyed by operator"), 1);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 10), 10);
    testutil_poolplan_plan_says (fx, 10, "DESTROY P-1");
    assert_int_equal (testutil_poolplan_said (fx, "RETIRE"), 0);
    drover_instance_view_t view;
    assert_true (drover_pool_lookup (fx->pool, "P-1", &view));
    assert_string_equal (view.why, "destroyed by operator");
    //  Its worker goes: still shutdown, no probe timeout
    drover_pool_lost (fx->pool, "P-1", "silent", 20);
    assert_int_equal (testutil_poolplan_state (fx, "P-1"), DROVER_INSTANCE_SHUTDOWN);
}

//  A shape no type fits never creates anything; warned of once
static void
test_unfittable_shape_never_creates (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    testutil_poolplan_pool (fx);
    testutil_poolplan_start (fx, 0);
    drover_pooldemand_t demand [2] = { { 64, TESTUTIL_GIB, "", 5, "" },
                                       { 1, TESTUTIL_GIB, "gpu=2", 3, "" } };
    drover_pool_set_load (fx->pool, demand, 2, NULL, 0, 0);
    assert_int_equal (testutil_poolplan_plan (fx, 0), 0);
    assert_int_equal (testutil_poolplan_told (fx, "WARN - no instance type fits 64 procs"), 1);
    assert_int_equal (testutil_poolplan_told (fx, "labels 'gpu=2'"), 1);
    drover_pool_set_load (fx->pool, demand, 2, NULL, 0, 10);
    assert_int_equal (testutil_poolplan_plan (fx, 10), 0);
    assert_int_equal (testutil_poolplan_told (fx, "WARN"), 2);
    assert_true (drover_pool_next_deadline (fx->pool, 10) > 10);
}

//  Names of states and behaviours, and parsing behaviours
static void
test_names (void **state)
{
    assert_string_equal (drover_instance_state_name (DROVER_INSTANCE_UNKNOWN), "unknown");
    assert_string_equal (drover_instance_state_name (DROVER_INSTANCE_SHUTDOWN), "shutdown");
    assert_string_equal (drover_idle_behaviour_name (DROVER_IDLE_DRAIN), "drain");
    drover_idle_behaviour_t behaviour = DROVER_IDLE_RUN;
    assert_int_equal (drover_idle_behaviour_parse ("hold", &behaviour), 0);
    assert_int_equal (behaviour, DROVER_IDLE_HOLD);
    assert_int_equal (drover_idle_behaviour_parse ("sleep", &behaviour), -1);
    assert_int_equal (drover_idle_behaviour_parse (NULL, &behaviour), -1);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_boot_timeout, testutil_poolplan_setup,
                                         testutil_poolplan_teardown),
        cmocka_unit_test_setup_teardown (test_idle_timeout_retires_then_destroys,
                                         testutil_poolplan_setup, testutil_poolplan_teardown),
        cmocka_unit_test_setup_teardown (test_retired_destroyed_then_gone,
                                         testutil_poolplan_setup, testutil_poolplan_teardown),
        cmocka_unit_test_setup_teardown (test_probe_timeout, testutil_poolplan_setup,
                                         testutil_poolplan_teardown),
        cmocka_unit_test_setup_teardown (test_shutdown_timeout, testutil_poolplan_setup,
                                         testutil_poolplan_teardown),
        cmocka_unit_test_setup_teardown (test_destroy_failed_and_unlisted_is_gone,
                                         testutil_poolplan_setup, testutil_poolplan_teardown),
        cmocka_unit_test_setup_teardown (test_drain_and_hold, testutil_poolplan_setup,
                                         testutil_poolplan_teardown),
        cmocka_unit_test_setup_teardown (test_adoption, testutil_poolplan_setup,
                                         testutil_poolplan_teardown),
        cmocka_unit_test_setup_teardown (test_vanished, testutil_poolplan_setup,
                                         testutil_poolplan_teardown),
        cmocka_unit_test_setup_teardown (test_operator_kill, testutil_poolplan_setup,
                                         testutil_poolplan_teardown),
        cmocka_unit_test_setup_teardown (test_unfittable_shape_never_creates,
                                         testutil_poolplan_setup, testutil_poolplan_teardown),
        cmocka_unit_test (test_names),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
