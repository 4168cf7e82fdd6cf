/*  =========================================================================
    test_broker_reload - operating a real broker: SIGHUP reads the -c file
    again (applies shares and the log level, names what needs a restart,
    keeps everything when the file is broken and goes on serving), SIGTERM
    is a clean stop (exit 0, the state closed: it opens again as it was),
    and its log goes to the journal with priorities when JOURNAL_STREAM
    names it
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_cluster.h"
#include <sys/stat.h>
#include <sys/wait.h>

#define S_WAIT_MAX      10000   //  msec a test waits for the broker at most

//  Write text as the settings file at path
static void
s_write_file (const char *path, const char *text)
{
    FILE *file = fopen (path, "w");
    assert_non_null (file);
    fputs (text, file);
    assert_int_equal (fclose (file), 0);
}

//  Assert the broker's log gets a line with needle, showing the log if not
static void
s_expect_line (testutil_cluster_t *cluster, const char *needle)
{
    const char *log = testutil_cluster_log (cluster, "broker");
    if (!testutil_await_line (log, needle, S_WAIT_MAX)) {
        char *text = testutil_slurp (log);
        fail_msg ("no '%s' in the broker's log:\n%s", needle, text? text: "(none)");
    }
}

//  The weight `drover share --json` lists for name as an account, or -1
static long
s_weight (testutil_cluster_t *cluster, const char *name)
{
    testutil_cli_t *run = (testutil_cli_t *) zmalloc (sizeof (testutil_cli_t));
    const char *list [] = { "share", "--json", NULL };
    testutil_cli (cluster->endpoint, list, run);
    testutil_cli_expect (run, 0, run->out, "\"shares\"");
    char needle [128];
    snprintf (needle, sizeof needle, "{\"name\":\"%s\",\"kind\":\"account\",\"account\":\"\","
              "\"weight\":", name);
    const char *found = strstr (run->out, needle);
    long weight = found? strtol (found + strlen (needle), NULL, 10): -1;
    free (run);
    return weight;
}

//  SIGHUP applies share/weights, broker/log-level and the status lines'
//  interval (none, then every 200 msec), says broker/hwm
//  needs a restart; a broken file then keeps every running setting and
//  the broker goes on serving: a task submitted after it runs
static void
test_reload_applies_and_refuses (void **state)
{
    char dir [] = "/tmp/drover-reload-XXXXXX";
    assert_non_null (mkdtemp (dir));
    char cfg [128];
    snprintf (cfg, sizeof cfg, "%s/drover.cfg", dir);
    s_write_file (cfg, "broker\n    hwm = 1000\n    status-interval = 0\n"
                       "share\n    weights = \"alice=2\"\n");
    const char *flags [] = { "-c", cfg, NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    assert_int_equal (s_weight (cluster, "alice"), 2);

    const char *log_path = testutil_cluster_log (cluster, "broker");
    assert_int_equal (testutil_count_lines_with (log_path, "metrics: status "), 0);
    s_write_file (cfg, "broker\n    hwm = 2000\n    status-interval = 200\n"
                       "    log-level = debug\nshare\n    weights = \"alice=5\"\n");
    assert_int_equal (kill (cluster->broker, SIGHUP), 0);
    s_expect_line (cluster, "reload: applied broker/status-interval, broker/log-level, "
                            "share/weights");
    s_expect_line (cluster, "metrics: status pending=");     //  none before the reload
    s_expect_line (cluster, "reload: needs a restart: broker/hwm");
    assert_int_equal (s_weight (cluster, "alice"), 5);

    //  Two mistakes: both said, nothing applied
    s_write_file (cfg, "broker\n    hwm = 5\n    log-level = loud\n"
                       "share\n    weights = \"alice=9\"\n");
    assert_int_equal (kill (cluster->broker, SIGHUP), 0);
    s_expect_line (cluster, "reload: refused: every running setting stays");
    char log [256];
    snprintf (log, sizeof log, "%s", testutil_cluster_log (cluster, "broker"));
    assert_int_equal (testutil_count_lines_with (log, "broker/hwm: '5' is not"), 1);
    assert_int_equal (testutil_count_lines_with (log, "broker/log-level: 'loud'"), 1);
    assert_int_equal (s_weight (cluster, "alice"), 5);

    //  Still serving: a task submitted now runs on a worker
    testutil_cluster_add_worker (cluster, 0, "w-reload", 1, NULL);
    testutil_cli_t *run = (testutil_cli_t *) zmalloc (sizeof (testutil_cli_t));
    const char *submit [] = { "submit", "--wait", "--", "echo", "served-after-reload", NULL };
    testutil_cli (cluster->endpoint, submit, run);
    testutil_cli_expect (run, 0, run->out, "served-after-reload");
    free (run);
    //  A file that cannot be read is refused the same way
    assert_int_equal (unlink (cfg), 0);
    assert_int_equal (kill (cluster->broker, SIGHUP), 0);
    assert_true (testutil_await_line (log, "cannot read or parse this file", S_WAIT_MAX));
    assert_int_equal (s_weight (cluster, "alice"), 5);
    testutil_cluster_destroy (&cluster);
    testutil_remove_tree (dir);
}

//  SIGTERM: exit 0 once the state is closed (SQLite leaves no -wal file
//  behind), and a broker started on that state finds the task kept
static void
test_sigterm_is_a_clean_stop (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    testutil_cli_t *run = (testutil_cli_t *) zmalloc (sizeof (testutil_cli_t));
    const char *submit [] = { "submit", "--label", "pool=none", "--", "true", NULL };
    testutil_cli (cluster->endpoint, submit, run);
    testutil_cli_expect (run, 0, run->out, "1");
    assert_int_equal (kill (cluster->broker, SIGTERM), 0);
    int status = testutil_wait_exit (cluster->broker, S_WAIT_MAX);
    assert_true (status != -1 && WIFEXITED (status));
    assert_int_equal (WEXITSTATUS (status), 0);
    cluster->broker = 0;
    char log [256];
    snprintf (log, sizeof log, "%s", testutil_cluster_log (cluster, "broker"));
    assert_int_equal (testutil_count_lines_with (log, "broker: stopped cleanly"), 1);
    char wal [256];
    snprintf (wal, sizeof wal, "%s/state/state.db-wal", cluster->logdir);
    assert_int_equal (access (wal, F_OK), -1);
    //  Started again on the same state: the task is there, QUEUED
    char kept [256];
    snprintf (kept, sizeof kept, "%s", testutil_cluster_log (cluster, "broker-1"));
    assert_int_equal (rename (log, kept), 0);
    char state_dir [256];
    snprintf (state_dir, sizeof state_dir, "%s/state", cluster->logdir);
    const char *argv [] = { DROVER_BIN, "broker", "--endpoint", cluster->endpoint,
                            "--events", cluster->events, "--state-dir", state_dir, NULL };
    cluster->broker = testutil_spawn (argv, testutil_cluster_log (cluster, "broker"));
    assert_true (cluster->broker > 0);
    s_expect_line (cluster, "tasks=1");
    s_expect_line (cluster, "broker: ready");
    const char *show [] = { "tasks", "--json", NULL };
    testutil_cli (cluster->endpoint, show, run);
    testutil_cli_expect (run, 0, run->out, "\"id\":1,\"state\":\"queued\"");
    free (run);
    testutil_cluster_destroy (&cluster);
}

//  JOURNAL_STREAM naming the broker's log: "<N>" priorities, no date
static void
test_journal_priorities (void **state)
{
    char dir [] = "/tmp/drover-journal-XXXXXX";
    assert_non_null (mkdtemp (dir));
    char log [128];
    snprintf (log, sizeof log, "%s/broker.log", dir);
    s_write_file (log, "");
    struct stat info;
    assert_int_equal (stat (log, &info), 0);
    char stream [64];
    snprintf (stream, sizeof stream, "%llu:%llu", (unsigned long long) info.st_dev,
              (unsigned long long) info.st_ino);
    int port = testutil_free_port_pair ();
    char endpoint [64], events [64], state_dir [128];
    snprintf (endpoint, sizeof endpoint, "tcp://127.0.0.1:%d", port);
    snprintf (events, sizeof events, "tcp://127.0.0.1:%d", port + 1);
    snprintf (state_dir, sizeof state_dir, "%s/state", dir);
    const char *argv [] = { DROVER_BIN, "broker", "--endpoint", endpoint, "--events", events,
                            "--state-dir", state_dir, NULL };
    setenv ("JOURNAL_STREAM", stream, 1);
    pid_t broker = testutil_spawn (argv, log);
    unsetenv ("JOURNAL_STREAM");
    assert_true (broker > 0);
    bool ready = testutil_await_line (log, "<5>broker: ready endpoint=", S_WAIT_MAX);
    kill (broker, SIGTERM);
    int status = testutil_wait_exit (broker, S_WAIT_MAX);
    char *text = testutil_slurp (log);
    if (!ready)
        fail_msg ("no <5> ready line:\n%s", text? text: "(none)");
    assert_non_null (strstr (text, "<6>broker: bounds"));
    assert_null (strstr (text, "N: (drover-broker)"));
    assert_null (strstr (text, "Z broker: ready"));
    free (text);
    assert_true (status != -1 && WIFEXITED (status) && WEXITSTATUS (status) == 0);
    testutil_remove_tree (dir);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_reload_applies_and_refuses),
        cmocka_unit_test (test_sigterm_is_a_clean_stop),
        cmocka_unit_test (test_journal_priorities),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
