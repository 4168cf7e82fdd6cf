/*  =========================================================================
    test_drover_elector_timers - the HA timers made settings: their
    defaults, their bounds refused with the key named, the pairs checked
    together (drover_ha_check_timers), ha/watch's words, and the start
    backoff's doubling to its cap (drover_ha_next_backoff)
    =========================================================================
*/

#include "testutil.h"
#include "drover_config.h"
#include "drover_ha.h"
#include "drover_elector_actor.h"

//  Defaults, as the elector's own
static void
test_defaults (void **state)
{
    (void) state;
    drover_config_t *config = drover_config_new ();
    assert_string_equal (config->ha.watch, "on");
    assert_int_equal (config->ha.safety_check, DROVER_ELECTOR_SAFETY_CHECK);
    assert_int_equal (config->ha.check_max, DROVER_ELECTOR_CHECK_MAX);
    assert_int_equal (config->ha.retry_min, DROVER_ELECTOR_RETRY_MIN);
    assert_int_equal (config->ha.retry_max, DROVER_ELECTOR_RETRY_MAX);
    assert_int_equal (config->ha.backoff_min, 1000);
    assert_int_equal (config->ha.backoff_max, 30000);
    assert_int_equal (drover_ha_check_timers (config, NULL), 0);
    drover_config_destroy (&config);
}

//  Out of bounds, or a word not known: refused, the key named
static void
test_bounds_refused (void **state)
{
    (void) state;
    drover_config_t *config = drover_config_new ();
    const char *bad [][2] = {
        { "ha/check-max", "5" }, { "ha/check-max", "60001" }, { "ha/retry-min", "0" },
        { "ha/retry-max", "600001" }, { "ha/safety-check", "99" },
        { "ha/start-backoff-min", "9" }, { "ha/start-backoff-max", "3600001" },
        { "ha/watch", "maybe" }, { "ha/strategy", "max-count" } };
    for (size_t index = 0; index < sizeof bad / sizeof bad [0]; index++) {
        char *error = NULL;
        assert_int_equal (drover_config_set (config, bad [index][0], bad [index][1], &error), -1);
        assert_non_null (error);
        if (!strstr (error, bad [index][0]))
            fail_msg ("%s=%s: \"%s\" does not name the key", bad [index][0], bad [index][1],
                      error);
        zstr_free (&error);
    }
    char *error = NULL;
    assert_int_equal (drover_config_set (config, "ha/watch", "off", &error), 0);
    assert_int_equal (drover_config_set (config, "ha/strategy", "rr", &error), 0);
    drover_config_destroy (&config);
}

//  The pairs: min above max, safety below the poll
static void
test_pairs (void **state)
{
    (void) state;
    const char *pairs [][4] = {
        { "ha/retry-min", "2000", "ha/retry-max", "1000" },
        { "ha/start-backoff-min", "5000", "ha/start-backoff-max", "4000" },
        { "ha/safety-check", "200", "ha/check-max", "300" } };
    for (size_t index = 0; index < 3; index++) {
        drover_config_t *config = drover_config_new ();
        char *error = NULL;
        assert_int_equal (drover_config_set (config, pairs [index][0], pairs [index][1], &error),
                          0);
        assert_int_equal (drover_config_set (config, pairs [index][2], pairs [index][3], &error),
                          0);
        assert_int_equal (drover_ha_check_timers (config, &error), -1);
        assert_non_null (strstr (error, pairs [index][0]));
        assert_non_null (strstr (error, pairs [index][2]));
        zstr_free (&error);
        drover_config_destroy (&config);
    }
}

//  The start backoff: min, doubling, capped
static void
test_backoff (void **state)
{
    (void) state;
    int backoff = 0;
    int expected [] = { 300, 600, 1200, 2000, 2000 };
    for (int index = 0; index < 5; index++) {
        backoff = drover_ha_next_backoff (backoff, 300, 2000);
        assert_int_equal (backoff, expected [index]);
    }
    assert_int_equal (drover_ha_next_backoff (0, 1000, 30000), 1000);
    assert_int_equal (drover_ha_next_backoff (1 << 30, 1000, 3600000), 3600000);
}

//  The elector's own check of its args: the same pairs, and rr taken
static void
test_elector_args (void **state)
{
    (void) state;
    drover_elector_actor_args_t args = { .etcd = "http://127.0.0.1:1", .name = "b1",
                                         .advertise = "tcp://127.0.0.1:5", .ttl = 2000,
                                         .strategy = "rr" };
    char *error = NULL;
    assert_int_equal (drover_elector_actor_args_check (&args, &error), 0);
    args.retry_min = 50;
    args.retry_max = 40;
    assert_int_equal (drover_elector_actor_args_check (&args, &error), -1);
    assert_non_null (strstr (error, "ha/retry-min"));
    zstr_free (&error);
    args.retry_max = 0;
    args.safety_check = 100;
    args.check_max = 200;
    assert_int_equal (drover_elector_actor_args_check (&args, &error), -1);
    assert_non_null (strstr (error, "ha/safety-check"));
    zstr_free (&error);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_defaults),
        cmocka_unit_test (test_bounds_refused),
        cmocka_unit_test (test_pairs),
        cmocka_unit_test (test_backoff),
        cmocka_unit_test (test_elector_args),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
