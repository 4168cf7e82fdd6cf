/*  =========================================================================
    test_worker_version - an agent whose release the broker does not take,
    end to end: a broker started with health/min-release refuses a real
    `drover worker` that says an older release (DROVER_TEST_RELEASE, for
    tests only); the agent prints the broker's reason on stderr and in its
    log and exits 3 at once, without trying again. Agents of the broker's
    release and newer are registered, `drover workers` (text and JSON)
    lists each one's release, and the metrics count them by release. Without
    the setting, any release is taken.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include <sys/wait.h>

//  Start a worker in slot that says release ("" drover's own)
static void
s_add_worker (testutil_cluster_t *cluster, int slot, const char *id, const char *release)
{
    if (*release)
        setenv ("DROVER_TEST_RELEASE", release, 1);
    testutil_cluster_add_worker (cluster, slot, id, 1, NULL);
    unsetenv ("DROVER_TEST_RELEASE");
}

//  Run `drover workers` (with --json if json is 1) and assert it shows each
//  NULL-ended needle
static void
s_expect_workers (testutil_cluster_t *cluster, int json, ...)
{
    const char *args [] = { "workers", json? "--json": NULL, NULL };
    testutil_cli_t *run = (testutil_cli_t *) zmalloc (sizeof (testutil_cli_t));
    testutil_cli (cluster->endpoint, args, run);
    if (json)
        testutil_assert_json (run->out);
    va_list needles;
    va_start (needles, json);
    const char *needle;
    while ((needle = va_arg (needles, const char *)))
        testutil_cli_expect (run, 0, run->out, needle);
    va_end (needles);
    free (run);
}

//  health/min-release 0.6.0: an agent of 0.3.0 is refused, says why and
//  exits 3; one of ours and one newer are listed and counted by release
static void
test_old_agent_refused_others_listed (void **state)
{
    int metrics_port = testutil_free_port ();
    char address [64];
    snprintf (address, sizeof address, "127.0.0.1:%d", metrics_port);
    const char *flags [] = { "--set", "health/min-release=0.6.0",
                             "--set", "health/stats-period=100", "--metrics", address, NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    zsock_t *dealer = testutil_dealer (cluster);

    //  The old agent: refused at its HELLO, it stops by itself (the run
    //  would be cut at the deadline, and fail, if it kept trying)
    setenv ("DROVER_TEST_RELEASE", "0.3.0", 1);
    const char *argv [] = { DROVER_BIN, "worker", "--broker", cluster->endpoint, "--id", "old",
                            "--procs", "1", NULL };
    char *output = (char *) zmalloc (65536);
    char errors [4096];
    int64_t started = zclock_mono ();
    int status = testutil_run_cli (argv, output, 65536, errors, sizeof errors, 30000);
    unsetenv ("DROVER_TEST_RELEASE");
    print_message ("refused agent exited in %" PRId64 " ms: %s", zclock_mono () - started, errors);
    assert_true (status != -1 && WIFEXITED (status));
    assert_int_equal (WEXITSTATUS (status), 3);
    char reason [256];
    snprintf (reason, sizeof reason, "worker release 0.3.0 (level %d) is older than this "
              "broker supports: 0.6.0 .. %s and newer (health/min-release); upgrade the worker",
              DROVER_MSG_LEVEL, DROVER_RELEASE);
    char said [512];
    snprintf (said, sizeof said, "drover worker: broker=%s refused id=old: %s\n",
              cluster->endpoint, reason);
    if (!strstr (errors, said))
        fail_msg ("stderr lacks '%s':\n%s", said, errors);
    if (!strstr (output, reason) || !strstr (output, "E: "))
        fail_msg ("the log (stdout) lacks the reason at ERROR:\n%s", output);
    //  Said HELLO once: one refusal, no retries
    assert_true (testutil_cluster_await_log (cluster, "broker", "health: refused HELLO worker=old: worker release 0.3.0",
                              5000));
    assert_true (testutil_await_metric (metrics_port, "drover_workers_refused_total", 1, true,
                                        10000));
    free (output);

    //  Ours and a newer one are taken, each listed with its release
    s_add_worker (cluster, 0, "w-ours", "");
    s_add_worker (cluster, 1, "w-newer", "0.10.0");
    assert_true (testutil_wait_workers (dealer, 2, 10000));
    char ours [64];
    snprintf (ours, sizeof ours, "%d (%s)", DROVER_MSG_LEVEL, DROVER_RELEASE);
    s_expect_workers (cluster, 0, "w-ours", ours, "w-newer", "(0.10.0)", NULL);
    char ours_json [64];
    snprintf (ours_json, sizeof ours_json, "\"release\":\"%s\"", DROVER_RELEASE);
    s_expect_workers (cluster, 1, "\"id\":\"w-ours\"", ours_json, "\"release\":\"0.10.0\"",
                      NULL);
    char series [128];
    snprintf (series, sizeof series, "drover_workers_release{release=\"%s\"}", DROVER_RELEASE);
    assert_true (testutil_await_metric (metrics_port, series, 1, true, 10000));
    assert_true (testutil_await_metric (metrics_port, "drover_workers_release{release=\"0.10.0\"}",
                                        1, true, 10000));
    assert_int_equal (testutil_metric (metrics_port, "drover_workers_release{release=\"0.3.0\"}"),
                      -1);
    assert_int_equal (testutil_metric (metrics_port, "drover_workers_refused_total"), 1);
    //  The setting's period was taken
    assert_true (testutil_cluster_await_log (cluster, "broker", "stats-period=100 msec", 1000));
    assert_true (testutil_cluster_await_log (cluster, "broker", "release 0.6.0 or newer", 1000));
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  Without health/min-release any release is taken: an agent saying 0.3.0
//  registers, listed as such
static void
test_default_takes_any_release (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    zsock_t *dealer = testutil_dealer (cluster);
    s_add_worker (cluster, 0, "w-old", "0.3.0");
    assert_true (testutil_wait_workers (dealer, 1, 10000));
    s_expect_workers (cluster, 1, "\"id\":\"w-old\"", "\"release\":\"0.3.0\"", NULL);
    assert_true (testutil_cluster_await_log (cluster, "broker", "any release", 1000));
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_old_agent_refused_others_listed),
        cmocka_unit_test (test_default_takes_any_release),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
