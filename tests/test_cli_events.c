/*  =========================================================================
    test_cli_events - `drover events` through the real binary: it says so
    and exits when nothing publishes at its endpoint, and streams when a
    broker does
    =========================================================================
*/

#include "testutil.h"
#include <signal.h>
#include <sys/wait.h>

//  Start `drover events` with args (after the program name), its output in log
static pid_t
s_events_start (const char *const args [], const char *log)
{
    const char *argv [16] = { DROVER_BIN };
    for (int index = 0; args [index] && index < 14; index++)
        argv [index + 1] = args [index];
    unlink (log);
    pid_t pid = testutil_spawn (argv, log);
    assert_true (pid > 0);
    return pid;
}

//  events against an endpoint where nothing publishes: exit 1 within the
//  broker timeout (0.5 s here), with a message naming the endpoint
static void
s_expect_nothing_there (const char *endpoint, const char *log)
{
    const char *args [] = { "--broker-timeout", "0.5", "events", "--events", endpoint, NULL };
    int64_t started = zclock_mono ();
    pid_t pid = s_events_start (args, log);
    int status = testutil_wait_exit (pid, 5000);
    if (status == -1)
        testutil_stop (pid, 100);
    char *output = testutil_slurp (log);
    fprintf (stderr, "drover events --events %s: %s", endpoint, output? output: "(nothing)\n");
    assert_true (status != -1);             //  before the fix: waited forever
    assert_true (WIFEXITED (status));
    assert_int_equal (WEXITSTATUS (status), 1);
    assert_true (zclock_mono () - started < 3000);
    assert_non_null (output);
    assert_non_null (strstr (output, "drover events:"));
    assert_non_null (strstr (output, endpoint));
    free (output);
}

//  A port nobody listens on, and the broker's ROUTER port (a broker is
//  there, but not its event stream), are both said and exit 1
static void
test_events_wrong_endpoint_times_out (void **state)
{
    char log [64];
    snprintf (log, sizeof log, "/tmp/test-cli-events-%d.log", (int) getpid ());
    char nowhere [64];
    snprintf (nowhere, sizeof nowhere, "tcp://127.0.0.1:%d", testutil_free_port ());
    s_expect_nothing_there (nowhere, log);

    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    s_expect_nothing_there (cluster->endpoint, log);
    testutil_cluster_destroy (&cluster);
    unlink (log);
}

//  Against the broker's event endpoint it keeps running past the timeout
//  and prints the events
static void
test_events_streams_from_broker (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    char log [64];
    snprintf (log, sizeof log, "/tmp/test-cli-events-%d.log", (int) getpid ());
    const char *args [] = { "--broker-timeout", "0.3", "events", "--events", cluster->events,
                            "--topic", "task.", NULL };
    pid_t pid = s_events_start (args, log);
    //  A subscription takes effect some time after connecting: submit
    //  until one task.queued line shows, 10 s at most
    zsock_t *dealer = testutil_dealer (cluster);
    bool heard = false;
    int64_t deadline = zclock_mono () + 10000;
    while (!heard && zclock_mono () < deadline) {
        testutil_submit (dealer, testutil_submit_msg ("true", 0, 1, 0));
        heard = testutil_await_line (log, "\"topic\":\"task.queued\"", 200);
    }
    assert_true (heard);
    //  Well past its 0.3 s timeout, it still runs
    assert_int_equal (waitpid (pid, NULL, WNOHANG), 0);
    kill (pid, SIGINT);
    int status = testutil_wait_exit (pid, 5000);
    assert_true (status != -1 && WIFEXITED (status));
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
    unlink (log);
}

//  Run every test
int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_events_wrong_endpoint_times_out),
        cmocka_unit_test (test_events_streams_from_broker),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
