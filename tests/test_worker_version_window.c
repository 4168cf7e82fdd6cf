/*  =========================================================================
    test_worker_version_window - which worker agents a broker takes, with
    no I/O: releases read and ordered (drover_semver), the window's
    decision and its reasons (drover_workerwindow), the settings that
    shape it (health/min-release, health/stats-period), the release series
    of the metrics, and the health actor through its pipe: refusing a
    HELLO, and holding STATS back for the stats period
    =========================================================================
*/

#include "testutil_actor.h"
#include "drover_health_actor.h"
#include "drover_semver.h"
#include "drover_workerwindow.h"
#include "drover_config.h"
#include "drover_metrics.h"

//  Order two release texts (both must read)
static int
s_order (const char *left, const char *right)
{
    drover_semver_t a, b;
    assert_int_equal (drover_semver_parse (left, &a), 0);
    assert_int_equal (drover_semver_parse (right, &b), 0);
    return drover_semver_compare (&a, &b);
}

//  Releases read as peers say them, ordered by number, a pre-release
//  before its release; a setting takes only the plain form
static void
test_semver_read_and_ordered (void **state)
{
    drover_semver_t semver;
    assert_int_equal (drover_semver_parse ("0.7.0", &semver), 0);
    assert_int_equal (semver.major, 0);
    assert_int_equal (semver.minor, 7);
    assert_int_equal (semver.patch, 0);
    assert_false (semver.pre);
    assert_int_equal (drover_semver_parse ("1.2", &semver), 0);
    assert_int_equal (semver.patch, 0);
    assert_int_equal (drover_semver_parse ("0.7.0-rc1", &semver), 0);
    assert_true (semver.pre);
    assert_int_equal (drover_semver_parse ("0.7.0+g1234", &semver), 0);
    assert_false (semver.pre);
    const char *bad [] = { "", "7", "0.", ".7", "a.b", "0.7x", "0.7.0.1", "-1.0",
                           "0.9999999", "0. 7" };
    for (size_t index = 0; index < sizeof bad / sizeof bad [0]; index++)
        if (drover_semver_parse (bad [index], &semver) == 0)
            fail_msg ("'%s' read as a release", bad [index]);

    assert_true (s_order ("0.3.0", "0.4.0") < 0);
    assert_true (s_order ("0.10.0", "0.9.9") > 0);      //  by number, not by text
    assert_true (s_order ("1.0", "0.99.99") > 0);
    assert_true (s_order ("0.7.1", "0.7.0") > 0);
    assert_int_equal (s_order ("0.7", "0.7.0"), 0);
    assert_int_equal (s_order ("0.7.0+build", "0.7.0"), 0);
    assert_true (s_order ("0.7.0-rc1", "0.7.0") < 0);
    assert_true (s_order ("0.7.0-rc1", "0.6.9") > 0);

    assert_true (drover_semver_plain ("0.6.0"));
    assert_true (drover_semver_plain ("0.6"));
    assert_false (drover_semver_plain ("0.6.0-rc1"));
    assert_false (drover_semver_plain ("v0.6.0"));
    assert_false (drover_semver_plain (""));
    assert_false (drover_semver_plain (NULL));
}

//  Assert the window refuses (level, release) with a reason holding each
//  of the NULL-ended needles, at most DROVER_REASON_MAX bytes
static void
s_refused (drover_workerwindow_t *window, int level, const char *release, ...)
{
    char *reason = drover_workerwindow_refuse (window, level, release);
    if (!reason)
        fail_msg ("level %d release '%s' was taken", level, release);
    assert_true (strlen (reason) <= DROVER_REASON_MAX);
    va_list args;
    va_start (args, release);
    const char *needle;
    while ((needle = va_arg (args, const char *)))
        if (!strstr (reason, needle))
            fail_msg ("reason '%s' lacks '%s'", reason, needle);
    va_end (args);
    zstr_free (&reason);
}

//  Assert the window takes (level, release)
static void
s_taken (drover_workerwindow_t *window, int level, const char *release)
{
    char *reason = drover_workerwindow_refuse (window, level, release);
    if (reason)
        fail_msg ("level %d release '%s' refused: %s", level, release, reason);
}

//  The default window takes every level it serves and any release, the
//  unknown one of a level-1 agent too, and a newer agent at any level
static void
test_window_default_takes_any_release (void **state)
{
    drover_workerwindow_t *window = drover_workerwindow_new (DROVER_MSG_LEVEL_MIN,
                                                             DROVER_MSG_LEVEL, "0.7.0", "");
    assert_non_null (window);
    s_taken (window, 0, "");            //  a level-1 HELLO: no level, no release
    s_taken (window, 1, "");
    s_taken (window, 2, "0.2.0");
    s_taken (window, DROVER_MSG_LEVEL, "0.7.0");
    s_taken (window, DROVER_MSG_LEVEL, "not a release");
    s_taken (window, DROVER_MSG_LEVEL + 1, "0.8.0");    //  newer: speaks ours
    s_taken (window, 65535, "99.0.0");
    char expected [64];
    snprintf (expected, sizeof expected, "levels 1..%d, any release", DROVER_MSG_LEVEL);
    assert_string_equal (drover_workerwindow_describe (window), expected);
    drover_workerwindow_destroy (&window);
    drover_workerwindow_destroy (&window);
    assert_null (window);
    window = drover_workerwindow_new (1, 7, "0.7.0", NULL);     //  NULL is "" too
    s_taken (window, 1, "");
    drover_workerwindow_destroy (&window);
}

//  A level below the oldest served is refused, saying the levels taken,
//  the broker's own, and what to do
static void
test_window_refuses_an_older_level (void **state)
{
    drover_workerwindow_t *window = drover_workerwindow_new (4, 7, "0.7.0", "");
    s_refused (window, 3, "0.3.0", "worker release 0.3.0 (level 3) is older than this broker "
               "supports: levels 4..7", "0.7.0, level 7", "upgrade the worker", NULL);
    s_refused (window, 0, "", "worker release unknown (level 1)", NULL);
    s_taken (window, 4, "0.4.0");
    s_taken (window, 8, "0.8.0");
    drover_workerwindow_destroy (&window);
}

//  With an oldest release, an older one, an unknown one (a level-1 agent
//  says none) and one that does not read are refused; it and newer ones,
//  at any level served, are taken
static void
test_window_refuses_an_older_release (void **state)
{
    drover_workerwindow_t *window = drover_workerwindow_new (1, 7, "0.7.0", "0.6.0");
    assert_non_null (window);
    assert_string_equal (drover_workerwindow_describe (window),
                         "levels 1..7, release 0.6.0 or newer");
    s_refused (window, 5, "0.5.9", "worker release 0.5.9 (level 5) is older than this "
               "broker supports: 0.6.0 .. 0.7.0", "health/min-release", "upgrade the worker",
               NULL);
    s_refused (window, 6, "0.6.0-rc1", "0.6.0-rc1", NULL);
    s_refused (window, 1, "", "worker release unknown (level 1)", "0.6.0", NULL);
    s_refused (window, 7, "banana", "banana", NULL);
    s_refused (window, 7, "0.5 bad\n", "0.5?bad?", NULL);      //  printable in the reason
    char long_release [DROVER_RELEASE_MAX + 1];
    memset (long_release, '9', DROVER_RELEASE_MAX);
    long_release [DROVER_RELEASE_MAX] = 0;
    s_refused (window, 65535, long_release, "upgrade the worker", NULL);
    s_taken (window, 6, "0.6.0");
    s_taken (window, 6, "0.6");
    s_taken (window, 7, "0.6.1+local");
    s_taken (window, 7, "0.10.0");
    s_taken (window, 9, "1.0.0");
    drover_workerwindow_destroy (&window);
    assert_null (drover_workerwindow_new (1, 7, "0.7.0", "0.6.0-rc1"));
    assert_null (drover_workerwindow_new (1, 7, "0.7.0", "six"));
}

//  The settings: defaults, a release that does not read refused naming
//  the key, stats-period within its range
static void
test_settings_checked (void **state)
{
    drover_config_t *config = drover_config_new ();
    assert_string_equal (config->min_release, "");
    assert_int_equal (config->stats_period, 250);
    char *error = NULL;
    assert_int_equal (drover_config_set (config, "health/min-release", "0.6.0", &error), 0);
    assert_string_equal (config->min_release, "0.6.0");
    assert_int_equal (drover_config_set (config, "health/min-release", "0.6", &error), 0);
    assert_int_equal (drover_config_set (config, "health/min-release", "", &error), 0);
    assert_int_equal (drover_config_set (config, "health/min-release", "v0.6", &error), -1);
    assert_non_null (strstr (error, "health/min-release: 'v0.6' is not a release"));
    zstr_free (&error);
    assert_int_equal (drover_config_set (config, "health/stats-period", "0", &error), 0);
    assert_int_equal (config->stats_period, 0);
    assert_int_equal (drover_config_set (config, "health/stats-period", "60000", &error), 0);
    assert_int_equal (drover_config_set (config, "health/stats-period", "60001", &error), -1);
    assert_non_null (strstr (error, "health/stats-period"));
    zstr_free (&error);
    drover_config_destroy (&config);
}

//  Workers by release in the exposition: each slot's release as its
//  label (escaped), other apart; the labels travel in a merge
static void
test_metrics_count_releases (void **state)
{
    drover_metrics_t *counts = drover_metrics_new ();
    drover_metrics_set_release (counts, 0, "0.7.0", 3);
    drover_metrics_set_release (counts, 1, "0.6.\"x\"", 1);
    drover_metrics_set (counts, DROVER_METRIC_WORKERS_RELEASE_OTHER, 0);
    drover_metrics_set (counts, DROVER_METRIC_WORKERS_REFUSED_TOTAL, 2);
    zframe_t *frame = drover_metrics_pack (counts);
    drover_metrics_t *merged = drover_metrics_new ();
    assert_int_equal (drover_metrics_merge (merged, frame), 0);
    char *text = drover_metrics_exposition (merged);
    const char *needles [] = {
        "# TYPE drover_workers_release gauge\n",
        "drover_workers_release{release=\"0.7.0\"} 3\n",
        "drover_workers_release{release=\"0.6.\\\"x\\\"\"} 1\n",
        "drover_workers_release{release=\"other\"} 0\n",
        "# TYPE drover_workers_refused_total counter\ndrover_workers_refused_total 2\n" };
    for (size_t index = 0; index < sizeof needles / sizeof needles [0]; index++)
        if (!strstr (text, needles [index]))
            fail_msg ("no '%s' in:\n%s", needles [index], text);
    assert_null (strstr (text, "release=\"\""));     //  slots not set are not written
    zstr_free (&text);
    zframe_destroy (&frame);
    drover_metrics_destroy (&merged);
    drover_metrics_destroy (&counts);
}

//  Say HELLO of level and release from route
static void
s_hello (zactor_t *actor, const char *route, const char *worker, uint32_t level,
         const char *release, uint32_t seq)
{
    drover_msg_t *hello = drover_msg_new (DROVER_MSG_WORKER_HELLO);
    snprintf (hello->worker, sizeof hello->worker, "%s", worker);
    hello->epoch = 1;
    hello->procs = 1;
    hello->seq = seq;
    hello->level = level;
    snprintf (hello->release, sizeof hello->release, "%s", release);
    testutil_hand (actor, route, hello);
}

//  Ask the actor's METRICS and return its answer merged (ours to destroy)
static drover_metrics_t *
s_metrics (zactor_t *actor)
{
    zsock_send (actor, "ss", "METRICS", "7");
    zmsg_t *msg = testutil_expect (actor, "COUNTS", 2000);
    testutil_pop_check (msg, "7");
    zframe_t *frame = zmsg_pop (msg);
    drover_metrics_t *counts = drover_metrics_new ();
    assert_int_equal (drover_metrics_merge (counts, frame), 0);
    zframe_destroy (&frame);
    zmsg_destroy (&msg);
    return counts;
}

//  The health actor with health/min-release 0.6.0: a HELLO of 0.5.0 and
//  one of no release are refused with 426 and the window's reason, and
//  not registered; one of 0.7.0 and one newer are; METRICS counts them by
//  release and the refusals
static void
test_health_actor_refuses_old_release (void **state)
{
    zactor_t *actor = zactor_new (drover_health_actor, NULL);
    assert_non_null (actor);
    zsock_send (actor, "s444444s", "CONFIGURE", 250, 60000, 10, 0, 0, 0, "0.6.0");
    s_hello (actor, "r1", "old", 5, "0.5.0", 11);
    drover_msg_t *reply = testutil_expect_send (actor, "r1", "");
    assert_int_equal (reply->id, DROVER_MSG_ERROR);
    assert_int_equal (reply->code, DROVER_CODE_BAD_VERSION);
    assert_int_equal (reply->seq, 11);
    assert_non_null (strstr (reply->reason, "worker release 0.5.0 (level 5) is older than "
                                            "this broker supports: 0.6.0 .. " DROVER_RELEASE));
    drover_msg_destroy (&reply);
    s_hello (actor, "r2", "level1", 0, "", 12);
    reply = testutil_expect_send (actor, "r2", "");
    assert_int_equal (reply->code, DROVER_CODE_BAD_VERSION);
    assert_non_null (strstr (reply->reason, "worker release unknown (level 1)"));
    drover_msg_destroy (&reply);

    const char *releases [] = { "0.7.0", "0.9.1", "0.7.0" };
    for (uint32_t index = 0; index < 3; index++) {
        char worker [16], route [16];
        snprintf (worker, sizeof worker, "w%u", index);
        snprintf (route, sizeof route, "ok%u", index);
        s_hello (actor, route, worker, DROVER_MSG_LEVEL, releases [index], 20 + index);
        reply = testutil_expect_send (actor, route, worker);
        assert_int_equal (reply->id, DROVER_MSG_WORKER_WELCOME);
        drover_msg_destroy (&reply);
        zmsg_t *up = testutil_expect (actor, "UP", 2000);
        testutil_pop_check (up, worker);
        zmsg_destroy (&up);
        testutil_expect_event (actor, "worker.up", worker, "");
    }
    drover_metrics_t *counts = s_metrics (actor);
    assert_int_equal (drover_metrics_get (counts, DROVER_METRIC_WORKERS_REFUSED_TOTAL), 2);
    assert_int_equal (drover_metrics_get (counts, DROVER_METRIC_WORKERS_RELEASE_0), 2);
    assert_int_equal (drover_metrics_get (counts, DROVER_METRIC_WORKERS_RELEASE_0 + 1), 1);
    assert_false (drover_metrics_has (counts, DROVER_METRIC_WORKERS_RELEASE_0 + 2));
    assert_int_equal (drover_metrics_get (counts, DROVER_METRIC_WORKERS_RELEASE_OTHER), 0);
    char *text = drover_metrics_exposition (counts);
    assert_non_null (strstr (text, "drover_workers_release{release=\"0.7.0\"} 2\n"));
    assert_non_null (strstr (text, "drover_workers_release{release=\"0.9.1\"} 1\n"));
    zstr_free (&text);
    drover_metrics_destroy (&counts);
    testutil_actor_destroy (&actor);
}

//  Without the trailing fields (an older main, the other tests) CONFIGURE
//  keeps the defaults: any release, a level-1 agent registered
static void
test_health_actor_default_takes_level_1 (void **state)
{
    zactor_t *actor = zactor_new (drover_health_actor, NULL);
    zsock_send (actor, "s44444", "CONFIGURE", 250, 60000, 10, 0, 0);
    s_hello (actor, "r1", "old", 0, "", 5);
    drover_msg_t *reply = testutil_expect_send (actor, "r1", "old");
    assert_int_equal (reply->id, DROVER_MSG_WORKER_WELCOME);
    drover_msg_destroy (&reply);
    zmsg_t *up = testutil_expect (actor, "UP", 2000);
    zmsg_destroy (&up);
    testutil_expect_event (actor, "worker.up", "old", "");
    drover_metrics_t *counts = s_metrics (actor);
    assert_int_equal (drover_metrics_get (counts, DROVER_METRIC_WORKERS_REFUSED_TOTAL), 0);
    char *text = drover_metrics_exposition (counts);
    assert_non_null (strstr (text, "drover_workers_release{release=\"unknown\"} 1\n"));
    zstr_free (&text);
    drover_metrics_destroy (&counts);
    testutil_actor_destroy (&actor);
}

//  health/stats-period: a heartbeat's STATS are held back that long (here
//  600 msec, not the default 250) before they go out
static void
test_health_actor_holds_stats_for_the_period (void **state)
{
    zactor_t *actor = zactor_new (drover_health_actor, NULL);
    zsock_send (actor, "s444444s", "CONFIGURE", 250, 60000, 10, 0, 0, 600, "");
    s_hello (actor, "r1", "w1", DROVER_MSG_LEVEL, "", 1);
    drover_msg_t *reply = testutil_expect_send (actor, "r1", "w1");
    assert_int_equal (reply->id, DROVER_MSG_WORKER_WELCOME);
    drover_msg_destroy (&reply);
    zmsg_t *up = testutil_expect (actor, "UP", 2000);
    zmsg_destroy (&up);
    testutil_expect_event (actor, "worker.up", "w1", "");
    drover_msg_t *heartbeat = drover_msg_new (DROVER_MSG_WORKER_HEARTBEAT);
    snprintf (heartbeat->worker, sizeof heartbeat->worker, "w1");
    heartbeat->epoch = 1;
    heartbeat->stats.running = 3;
    heartbeat->seq = 2;
    int64_t sent = zclock_mono ();
    testutil_hand (actor, "r1", heartbeat);
    zmsg_t *stats = testutil_expect (actor, "STATS", 5000);
    int64_t held = zclock_mono () - sent;
    print_message ("STATS held %" PRId64 " msec\n", held);
    assert_true (held >= 590);
    testutil_pop_check (stats, "w1");
    zmsg_destroy (&stats);
    testutil_actor_destroy (&actor);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_semver_read_and_ordered),
        cmocka_unit_test (test_window_default_takes_any_release),
        cmocka_unit_test (test_window_refuses_an_older_level),
        cmocka_unit_test (test_window_refuses_an_older_release),
        cmocka_unit_test (test_settings_checked),
        cmocka_unit_test (test_metrics_count_releases),
        cmocka_unit_test (test_health_actor_refuses_old_release),
        cmocka_unit_test (test_health_actor_default_takes_level_1),
        cmocka_unit_test (test_health_actor_holds_stats_for_the_period),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
