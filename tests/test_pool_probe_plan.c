/*  =========================================================================
    test_pool_probe_plan - the elastic pool's Arvados rows, decided by the
    pool class with a fake clock: boot probes (held until passed, probed
    again after probe-interval, destroyed at probe-timeout, at most
    probes-per-second; pool/probe auto, on, off), surplus booting
    instances destroyed when their demand is gone, instances of unknown
    types ignored and counted once, the create-failure backoff settings
    =========================================================================
*/

#include "testutil_poolplan.h"

//  A pool that probes (pool/probe on), probes-per-second pps, started at 0
static void
s_probing_pool (testutil_poolplan_t *fx, uint32_t pps)
{
    fx->config.probe = "on";
    fx->config.probes_per_second = pps;
    fx->config.probe_interval = 1000;
    fx->config.probe_timeout = 30000;
    testutil_poolplan_pool (fx);
    testutil_poolplan_start (fx, 0);
    assert_true (drover_pool_probing (fx->pool));
}

//  Return an instance's probe state
static int
s_probe (testutil_poolplan_t *fx, const char *id)
{
    drover_instance_view_t view;
    return drover_pool_lookup (fx->pool, id, &view) ? (int) view.probe : -1;
}

//  A new instance is held before it can register (ADMIN hold "probing",
//  said before its CREATE); registered, it stays booting until its probe
//  passes, then it is idle and its behaviour is said again
static void
test_probe_passes (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    s_probing_pool (fx, 10);
    testutil_poolplan_demand (fx, 2, TESTUTIL_GIB, "", 1, 10);
    assert_int_equal (testutil_poolplan_plan (fx, 10), 2);
    assert_string_equal ((char *) zlistx_first (fx->actions), "ADMIN P-1 run probing");
    assert_string_equal ((char *) zlistx_next (fx->actions), "CREATE P-1 small run");
    assert_int_equal (s_probe (fx, "P-1"), DROVER_PROBE_PENDING);
    drover_pool_created (fx->pool, "P-1", DROVER_POOLOP_OK, "", 20);
    assert_int_equal (testutil_poolplan_plan (fx, 20), 0);     //  not registered: no probe
    assert_true (drover_pool_registered (fx->pool, "P-1", 100));
    assert_int_equal (testutil_poolplan_state (fx, "P-1"), DROVER_INSTANCE_BOOTING);
    assert_int_equal (testutil_poolplan_told (fx, "P-1 1>1 registered; probing"), 1);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 100), 100);
    testutil_poolplan_plan_says (fx, 100, "PROBE P-1");
    assert_int_equal (testutil_poolplan_plan (fx, 101), 0);    //  one in flight at a time
    drover_poolcounts_t counts;
    drover_pool_counts (fx->pool, &counts);
    assert_int_equal (counts.probing, 1);
    assert_int_equal (counts.procs, 0);                         //  not capacity in use yet
    drover_pool_probed (fx->pool, "P-1", DROVER_POOLOP_OK, "", 150);
    assert_int_equal (testutil_poolplan_state (fx, "P-1"), DROVER_INSTANCE_IDLE);
    assert_int_equal (s_probe (fx, "P-1"), DROVER_PROBE_OK);
    assert_int_equal (testutil_poolplan_told (fx, "P-1 1>2 registered; probe passed"), 1);
    testutil_poolplan_plan_says (fx, 150, "ADMIN P-1 run probed");
    drover_pool_counts (fx->pool, &counts);
    assert_int_equal (counts.probing, 0);
    assert_int_equal (counts.probes, 1);
    assert_int_equal (counts.probe_failures, 0);
    assert_int_equal (counts.procs, 2);
    //  Lost and back: passed once, no second probe
    drover_pool_lost (fx->pool, "P-1", "silent", 200);
    assert_true (drover_pool_registered (fx->pool, "P-1", 300));
    assert_int_equal (testutil_poolplan_state (fx, "P-1"), DROVER_INSTANCE_IDLE);
}

//  Released after its probe, an instance counts as coming capacity for a
//  moment even if a load report shows it idle beside the demand (a report
//  said before the scheduler heard the release): no second instance for
//  the same task; past the grace, the report is believed
static void
test_released_instance_counts_as_coming (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    s_probing_pool (fx, 10);
    testutil_poolplan_demand (fx, 2, TESTUTIL_GIB, "", 1, 0);
    testutil_poolplan_plan (fx, 0);
    drover_pool_created (fx->pool, "P-1", DROVER_POOLOP_OK, "", 0);
    assert_true (drover_pool_registered (fx->pool, "P-1", 100));
    testutil_poolplan_plan_says (fx, 100, "PROBE P-1");
    drover_pool_probed (fx->pool, "P-1", DROVER_POOLOP_OK, "", 100);
    //  A report said while it was held: idle, the task still waiting
    drover_pooldemand_t demand = { 2, TESTUTIL_GIB, "", 1, "" };
    drover_poolload_t load = { "P-1", 0, 0, 0, 0 };
    drover_pool_set_load (fx->pool, &demand, 1, &load, 1, 110);
    assert_int_equal (testutil_poolplan_plan (fx, 110), 1);
    assert_int_equal (testutil_poolplan_said (fx, "ADMIN P-1 run probed"), 1);
    assert_int_equal (testutil_poolplan_said (fx, "CREATE"), 0);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 110), 1100);
    //  Past the grace the same report is believed: the task does not go there
    assert_int_equal (testutil_poolplan_plan (fx, 1100), 2);     //  its hold, its create
    assert_int_equal (testutil_poolplan_said (fx, "CREATE P-2"), 1);
}

//  A probe that keeps failing: told each time (a probe note, its detail in
//  why), probed again after probe-interval, never idle, destroyed at
//  probe-timeout after its worker registered, the why saying so
static void
test_probe_fails_until_the_timeout (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    s_probing_pool (fx, 10);
    testutil_poolplan_demand (fx, 2, TESTUTIL_GIB, "", 1, 0);
    testutil_poolplan_plan (fx, 0);
    drover_pool_created (fx->pool, "P-1", DROVER_POOLOP_OK, "", 0);
    assert_true (drover_pool_registered (fx->pool, "P-1", 1000));
    testutil_poolplan_plan_says (fx, 1000, "PROBE P-1");
    drover_pool_probed (fx->pool, "P-1", DROVER_POOLOP_FAILED, "disk not mounted", 1100);
    assert_int_equal (s_probe (fx, "P-1"), DROVER_PROBE_FAILED);
    assert_int_equal (testutil_poolplan_state (fx, "P-1"), DROVER_INSTANCE_BOOTING);
    assert_int_equal (testutil_poolplan_told (fx, "PROBE P-1 1>1 probe failed: disk not mounted"),
                      1);
    drover_instance_view_t view;
    assert_true (drover_pool_lookup (fx->pool, "P-1", &view));
    assert_string_equal (view.why, "probe failed: disk not mounted");
    assert_int_equal (view.probes, 1);
    //  Again after probe-interval, not before
    assert_int_equal (drover_pool_next_deadline (fx->pool, 1100), 2100);
    assert_int_equal (testutil_poolplan_plan (fx, 2099), 0);
    testutil_poolplan_plan_says (fx, 2100, "PROBE P-1");
    drover_pool_probed (fx->pool, "P-1", DROVER_POOLOP_FAILED, "disk not mounted", 2200);
    //  Once registered, the probe timeout applies (from its registration)
    size_t probes = 2;
    uint64_t now = 3200;
    while (now < 1000 + 30000) {
        assert_int_equal (drover_pool_next_deadline (fx->pool, now - 1), now);
        testutil_poolplan_plan_says (fx, now, "PROBE P-1");
        probes++;
        drover_pool_probed (fx->pool, "P-1", DROVER_POOLOP_FAILED, "disk not mounted", now);
        assert_int_equal (testutil_poolplan_state (fx, "P-1"), DROVER_INSTANCE_BOOTING);
        now += 1000;
    }
    assert_int_equal (drover_pool_next_deadline (fx->pool, 30999), 31000);
    testutil_poolplan_plan_says (fx, 31000, "DESTROY P-1");
    assert_int_equal (testutil_poolplan_said (fx, "PROBE"), 0);
    assert_int_equal (testutil_poolplan_state (fx, "P-1"), DROVER_INSTANCE_SHUTDOWN);
    assert_int_equal (testutil_poolplan_told (fx, "P-1 1>4 probe timeout: not passed in"), 1);
    assert_int_equal (testutil_poolplan_told (fx, "; probe failed: disk not mounted"), 1);
    drover_poolcounts_t counts;
    drover_pool_counts (fx->pool, &counts);
    assert_int_equal (counts.probes, probes);
    assert_int_equal (counts.probe_failures, probes);
    assert_int_equal (counts.probing, 0);
    //  A probe answering after the destroy changes nothing
    drover_pool_probed (fx->pool, "P-1", DROVER_POOLOP_OK, "", 31001);
    assert_int_equal (testutil_poolplan_state (fx, "P-1"), DROVER_INSTANCE_SHUTDOWN);
}

//  At most probes-per-second probes: three instances registered at once
//  are probed one a second with 1 a second
static void
test_probes_are_rate_limited (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    s_probing_pool (fx, 1);
    testutil_poolplan_demand (fx, 2, TESTUTIL_GIB, "", 3, 0);
    testutil_poolplan_plan (fx, 0);
    assert_int_equal (testutil_poolplan_said (fx, "CREATE"), 3);
    const char *names [] = { "P-1", "P-2", "P-3" };
    for (int index = 0; index < 3; index++) {
        drover_pool_created (fx->pool, names [index], DROVER_POOLOP_OK, "", 0);
        assert_true (drover_pool_registered (fx->pool, names [index], 5000));
    }
    assert_int_equal (testutil_poolplan_plan (fx, 5000), 1);
    assert_int_equal (testutil_poolplan_said (fx, "PROBE"), 1);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 5000), 6000);
    assert_int_equal (testutil_poolplan_plan (fx, 5999), 0);
    assert_int_equal (testutil_poolplan_plan (fx, 6000), 1);
    assert_int_equal (testutil_poolplan_said (fx, "PROBE"), 1);
    assert_int_equal (testutil_poolplan_plan (fx, 7000), 1);
    assert_int_equal (testutil_poolplan_said (fx, "PROBE"), 1);
    drover_poolcounts_t counts;
    drover_pool_counts (fx->pool, &counts);
    assert_int_equal (counts.probes, 3);
}

//  pool/probe: on probes with any driver; auto probes with the local
//  driver only; off, or none said (a command driver on auto), registered
//  is enough: idle at once, no ADMIN, no PROBE
static void
test_probe_setting (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    struct { const char *probe, *driver; bool probing; } cases [] = {
        { "on", "command", true }, { "auto", "local", true }, { "auto", "command", false },
        { "off", "local", false }, { NULL, "local", false } };
    for (size_t index = 0; index < sizeof cases / sizeof cases [0]; index++) {
        fx->config.probe = (char *) cases [index].probe;
        fx->config.driver = (char *) cases [index].driver;
        drover_pool_destroy (&fx->pool);
        testutil_poolplan_pool (fx);
        assert_int_equal (drover_pool_probing (fx->pool), cases [index].probing);
    }
    //  Off: registered is idle at once
    testutil_poolplan_start (fx, 0);
    testutil_poolplan_demand (fx, 2, TESTUTIL_GIB, "", 1, 0);
    assert_int_equal (testutil_poolplan_plan (fx, 0), 1);
    assert_int_equal (testutil_poolplan_said (fx, "CREATE P-1"), 1);
    drover_pool_created (fx->pool, "P-1", DROVER_POOLOP_OK, "", 0);
    assert_true (drover_pool_registered (fx->pool, "P-1", 10));
    assert_int_equal (testutil_poolplan_state (fx, "P-1"), DROVER_INSTANCE_IDLE);
    assert_int_equal (s_probe (fx, "P-1"), DROVER_PROBE_NONE);
    assert_int_equal (testutil_poolplan_plan (fx, 10), 0);
}

//  An instance adopted after a restart is probed too before it takes work
static void
test_adopted_instance_is_probed (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    fx->config.probe = "on";
    fx->config.probe_timeout = 30000;
    testutil_poolplan_pool (fx);
    assert_false (drover_pool_registered (fx->pool, "OLD-1", 0));
    testutil_poolplan_plan_says (fx, 0, "LIST");
    drover_poolentry_t entries [1] = { { "OLD-1", "small", "drover", DROVER_IDLE_RUN } };
    drover_pool_listed (fx->pool, DROVER_POOLOP_OK, entries, 1, "", 100);
    assert_int_equal (testutil_poolplan_state (fx, "OLD-1"), DROVER_INSTANCE_UNKNOWN);
    assert_int_equal (testutil_poolplan_plan (fx, 100), 2);
    assert_int_equal (testutil_poolplan_said (fx, "ADMIN OLD-1 run probing"), 1);
    assert_int_equal (testutil_poolplan_said (fx, "PROBE OLD-1"), 1);
    drover_pool_probed (fx->pool, "OLD-1", DROVER_POOLOP_OK, "", 200);
    assert_int_equal (testutil_poolplan_state (fx, "OLD-1"), DROVER_INSTANCE_IDLE);
    testutil_poolplan_plan_says (fx, 200, "ADMIN OLD-1 run probed");
}

//  The tasks booting instances were created for are gone (cancelled, or
//  placed elsewhere): those beyond the demand left for their type are
//  destroyed at once, newest first, the why saying so; registered ones
//  wait for their idle timeout; never below min-instances
static void
test_surplus_boots_destroyed (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    fx->config.min_instances = 1;
    testutil_poolplan_pool_demanding (fx, 4);
    assert_int_equal (testutil_poolplan_said (fx, "CREATE"), 4);
    const char *names [] = { "P-1", "P-2", "P-3", "P-4" };
    for (int index = 0; index < 4; index++)
        drover_pool_created (fx->pool, names [index], DROVER_POOLOP_OK, "", 10);
    assert_true (drover_pool_registered (fx->pool, "P-1", 20));
    //  Demand still there: nothing destroyed
    testutil_poolplan_demand (fx, 2, TESTUTIL_GIB, "", 4, 30);
    assert_int_equal (testutil_poolplan_plan (fx, 30), 0);
    //  Two of the four tasks cancelled: two booting ones go, newest first
    //  (P-1, registered but not yet in the report, counts as coming)
    testutil_poolplan_demand (fx, 2, TESTUTIL_GIB, "", 2, 40);
    assert_int_equal (testutil_poolplan_plan (fx, 40), 2);
    assert_int_equal (testutil_poolplan_said (fx, "DESTROY P-4"), 1);
    assert_int_equal (testutil_poolplan_said (fx, "DESTROY P-3"), 1);
    assert_int_equal (testutil_poolplan_state (fx, "P-4"), DROVER_INSTANCE_SHUTDOWN);
    assert_int_equal (testutil_poolplan_told (fx, "P-4 1>4 surplus: the tasks it was created "
                                                  "for are gone"), 1);
    assert_int_equal (testutil_poolplan_state (fx, "P-2"), DROVER_INSTANCE_BOOTING);
    //  All gone (placed elsewhere): P-2 goes; P-1 (registered, idle) stays,
    //  and the minimum of 1 would keep one anyway
    testutil_poolplan_demand (fx, 2, TESTUTIL_GIB, "", 0, 50);
    assert_int_equal (testutil_poolplan_plan (fx, 50), 1);
    assert_int_equal (testutil_poolplan_said (fx, "DESTROY P-2"), 1);
    assert_int_equal (testutil_poolplan_state (fx, "P-1"), DROVER_INSTANCE_IDLE);
    drover_poolcounts_t counts;
    drover_pool_counts (fx->pool, &counts);
    assert_int_equal (counts.surplus, 3);
}

//  Surplus never takes the last instances min-instances keeps, nor one
//  whose create is still in flight (the plan after it finishes does)
static void
test_surplus_bounds (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    fx->config.min_instances = 1;
    testutil_poolplan_pool_demanding (fx, 2);
    drover_pool_created (fx->pool, "P-1", DROVER_POOLOP_OK, "", 10);
    testutil_poolplan_demand (fx, 2, TESTUTIL_GIB, "", 0, 20);
    //  P-2's create is in flight: P-1 goes
    assert_int_equal (testutil_poolplan_plan (fx, 20), 1);
    assert_int_equal (testutil_poolplan_said (fx, "DESTROY P-1"), 1);
    drover_pool_created (fx->pool, "P-2", DROVER_POOLOP_OK, "", 30);
    assert_int_equal (testutil_poolplan_plan (fx, 30), 0);     //  P-2: the minimum
    assert_int_equal (testutil_poolplan_state (fx, "P-2"), DROVER_INSTANCE_BOOTING);
}

//  An instance listed with a type the settings do not have is ignored:
//  not adopted, counted and told once however often it is listed
static void
test_unknown_type_ignored_once (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    testutil_poolplan_pool (fx);
    drover_poolentry_t entries [2] = {
        { "OLD-1", "gone-type", "drover", DROVER_IDLE_RUN },
        { "OLD-2", "-", "drover", DROVER_IDLE_RUN } };
    for (uint64_t now = 0; now < 3 * 60000; now += 60000) {
        testutil_poolplan_plan_says (fx, now, "LIST");
        drover_pool_listed (fx->pool, DROVER_POOLOP_OK, entries, 2, "", now);
    }
    assert_int_equal (drover_pool_size (fx->pool), 0);
    assert_int_equal (testutil_poolplan_told (fx, "WARN OLD-1 listed with type 'gone-type'"), 1);
    assert_int_equal (testutil_poolplan_told (fx, "WARN OLD-2 listed with type '-'"), 1);
    drover_poolcounts_t counts;
    drover_pool_counts (fx->pool, &counts);
    assert_int_equal (counts.unknown_types, 2);
    //  Its worker registering makes it no instance either
    assert_false (drover_pool_registered (fx->pool, "OLD-1", 200000));
}

//  The create-failure backoff is the settings': create-backoff after the
//  second failure in a row, doubling, at most create-backoff-max
static void
test_create_backoff_settings (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    fx->config.create_backoff = 500;
    fx->config.create_backoff_max = 1500;
    testutil_poolplan_pool_demanding (fx, 1);
    uint64_t now = 0;
    uint64_t waits [] = { 0, 500, 1000, 1500, 1500 };
    char name [16];
    for (uint32_t index = 0; index < 5; index++) {
        snprintf (name, sizeof name, "P-%u", index + 1);
        drover_pool_created (fx->pool, name, DROVER_POOLOP_FAILED, "boom", now);
        if (waits [index])
            assert_int_equal (testutil_poolplan_plan (fx, now + waits [index] - 1), 0);
        now += waits [index];
        snprintf (name, sizeof name, "CREATE P-%u", index + 2);
        testutil_poolplan_plan_says (fx, now, name);
    }
    //  0: no backoff at all
    drover_pool_destroy (&fx->pool);
    fx->config.create_backoff = 0;
    testutil_poolplan_pool_demanding (fx, 1);
    for (uint32_t index = 0; index < 4; index++) {
        snprintf (name, sizeof name, "P-%u", index + 1);
        drover_pool_created (fx->pool, name, DROVER_POOLOP_FAILED, "boom", 10);
        snprintf (name, sizeof name, "CREATE P-%u", index + 2);
        testutil_poolplan_plan_says (fx, 10, name);
    }
}

//  The settings: pool/probe takes auto, on or off; probes-per-second and
//  probe-interval would do nothing without probes, create-backoff-max
//  without a create-backoff: start-up refuses them, naming them
static void
test_settings_checked (void **state)
{
    drover_config_t *config = drover_config_new ();
    char *error = NULL;
    assert_string_equal (config->pool.probe, "auto");
    assert_int_equal (config->pool.probes_per_second, 10);
    assert_int_equal (config->pool.probe_interval, 10000);
    assert_int_equal (config->pool.create_backoff, 1000);
    assert_int_equal (config->pool.create_backoff_max, 60000);
    assert_int_equal (drover_config_set (config, "pool/probe", "sometimes", &error), -1);
    assert_non_null (strstr (error, "pool/probe"));
    zstr_free (&error);
    assert_int_equal (drover_config_set (config, "pool/type/small/procs", "2", &error), 0);
    assert_int_equal (drover_config_set (config, "pool/driver", "command", &error), 0);
    assert_int_equal (drover_config_set (config, "pool/probes-per-second", "5", &error), 0);
    assert_int_equal (drover_config_check_together (config, &error), -1);
    assert_non_null (strstr (error, "pool/probes-per-second"));
    zstr_free (&error);
    assert_int_equal (drover_config_set (config, "pool/probe", "on", &error), 0);
    assert_int_equal (drover_config_check_together (config, &error), 0);
    assert_int_equal (drover_config_set (config, "pool/create-backoff", "0", &error), 0);
    assert_int_equal (drover_config_set (config, "pool/create-backoff-max", "500", &error), 0);
    assert_int_equal (drover_config_check_together (config, &error), -1);
    assert_non_null (strstr (error, "pool/create-backoff-max"));
    zstr_free (&error);
    drover_config_destroy (&config);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_probe_passes, testutil_poolplan_setup,
                                         testutil_poolplan_teardown),
        cmocka_unit_test_setup_teardown (test_released_instance_counts_as_coming,
                                         testutil_poolplan_setup, testutil_poolplan_teardown),
        cmocka_unit_test_setup_teardown (test_probe_fails_until_the_timeout,
                                         testutil_poolplan_setup, testutil_poolplan_teardown),
        cmocka_unit_test_setup_teardown (test_probes_are_rate_limited, testutil_poolplan_setup,
                                         testutil_poolplan_teardown),
        cmocka_unit_test_setup_teardown (test_probe_setting, testutil_poolplan_setup,
                                         testutil_poolplan_teardown),
        cmocka_unit_test_setup_teardown (test_adopted_instance_is_probed,
                                         testutil_poolplan_setup, testutil_poolplan_teardown),
        cmocka_unit_test_setup_teardown (test_surplus_boots_destroyed, testutil_poolplan_setup,
                                         testutil_poolplan_teardown),
        cmocka_unit_test_setup_teardown (test_surplus_bounds, testutil_poolplan_setup,
                                         testutil_poolplan_teardown),
        cmocka_unit_test_setup_teardown (test_unknown_type_ignored_once,
                                         testutil_poolplan_setup, testutil_poolplan_teardown),
        cmocka_unit_test_setup_teardown (test_create_backoff_settings, testutil_poolplan_setup,
                                         testutil_poolplan_teardown),
        cmocka_unit_test (test_settings_checked),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
