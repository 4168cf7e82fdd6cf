/*  =========================================================================
    test_worker_no_broker - a worker started with a --broker where nothing
    answers says so plainly, at WARNING, less and less often; once a broker
    answers there it registers and says so

    The real `drover worker` against a loopback port nobody listens on, its
    output read line by line. It once logged the same NOTICE ("reconnecting
    ... reason=no reply to hello") at every try, forever.
    =========================================================================
*/

#include "testutil_proc.h"
#include <limits.h>
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>

#define S_WAIT_MAX      15000   //  msec any one step may take at most
#define S_WARNINGS      3       //  warnings read before a broker starts

//  Wait up to timeout msec until count lines of the file at path contain
//  needle; false on timeout
static bool
s_await_lines (const char *path, const char *needle, int count, int timeout)
{
    int64_t deadline = zclock_mono () + timeout;
    while (testutil_count_lines_with (path, needle) < count) {
        if (zclock_mono () >= deadline)
            return false;
        zclock_sleep (10);      //  paces reading the file; the deadline bounds the wait
    }
    return true;
}

//  Read the first count lines of the file at path that contain needle:
//  each must be a WARNING; fills the msec of "next try in N ms" of each
static void
s_read_warnings (const char *path, const char *needle, long *retry, int count)
{
    char *text = testutil_slurp (path);
    assert_non_null (text);
    int found = 0;
    char *saved = NULL;
    for (char *line = strtok_r (text, "\n", &saved); line && found < count;
         line = strtok_r (NULL, "\n", &saved)) {
        if (!strstr (line, needle))
            continue;
        fprintf (stderr, "%s\n", line);
        assert_true (strncmp (line, "W:", 2) == 0);
        const char *next = strstr (line, "next try in ");
        assert_non_null (next);
        retry [found++] = atol (next + strlen ("next try in "));
    }
    free (text);
    assert_int_equal (found, count);
}

//  The processes and files of one run, for the teardown to clean up
//  even after a failed assertion
typedef struct {
    char logdir [32];           //  where the processes log
    char worker_log [PATH_MAX]; //  the worker's output
    char broker_log [PATH_MAX]; //  the broker's output
    pid_t worker;               //  worker pid, or 0
    pid_t broker;               //  broker pid, or 0
    bool passed;                //  ran to its end: the logs can go
} s_run_t;

//  Make the log directory
static int
s_setup (void **state)
{
    s_run_t *run = (s_run_t *) zmalloc (sizeof (s_run_t));
    snprintf (run->logdir, sizeof run->logdir, "/tmp/drover-no-broker-XXXXXX");
    assert_non_null (mkdtemp (run->logdir));
    snprintf (run->worker_log, sizeof run->worker_log, "%s/worker.log", run->logdir);
    snprintf (run->broker_log, sizeof run->broker_log, "%s/broker.log", run->logdir);
    *state = run;
    return 0;
}

//  Stop what still runs; keep the logs of a failed run
static int
s_teardown (void **state)
{
    s_run_t *run = (s_run_t *) *state;
    testutil_stop (run->worker, 5000);
    testutil_stop (run->broker, 5000);
    if (run->passed) {
        testutil_remove_tree (run->logdir);
    }
    else
        fprintf (stderr, "logs kept in %s\n", run->logdir);
    free (run);
    return 0;
}

//  Nothing at --broker: warnings naming the endpoint, the next try further
//  off each time; a broker started there then gets the worker registered
static void
test_nothing_at_broker_is_a_warning (void **state)
{
    s_run_t *run = (s_run_t *) *state;
    char endpoint [64], events [64];
    snprintf (endpoint, sizeof endpoint, "tcp://127.0.0.1:%d", testutil_free_port ());
    snprintf (events, sizeof events, "tcp://127.0.0.1:%d", testutil_free_port ());

    //  100 msec heartbeats: a HELLO counts as unanswered after 300 msec
    const char *worker_argv [] = { DROVER_BIN, "worker", "--broker", endpoint, "--id", "lonely",
                                   "--procs", "1", "--heartbeat", "100", NULL };
    run->worker = testutil_spawn (worker_argv, run->worker_log);
    assert_true (run->worker > 0);
    char needle [96];
    snprintf (needle, sizeof needle, "no broker answers at %s", endpoint);
    bool warned = s_await_lines (run->worker_log, needle, S_WARNINGS, S_WAIT_MAX);
    if (!warned) {
        char *text = testutil_slurp (run->worker_log);
        fprintf (stderr, "no %d lines '%s' in:\n%s", S_WARNINGS, needle, text? text: "");
        free (text);
    }
    assert_true (warned);      //  before the fix: "N: ... reconnecting ..." lines only
    long retry [S_WARNINGS];
    s_read_warnings (run->worker_log, needle, retry, S_WARNINGS);
    for (int index = 1; index < S_WARNINGS; index++)
        assert_true (retry [index] > retry [index - 1]);
    assert_int_equal (testutil_count_lines_with (run->worker_log, "registered"), 0);

    //  A broker at that endpoint: the worker's next try finds it
    char state_dir [PATH_MAX];
    snprintf (state_dir, sizeof state_dir, "%s/state", run->logdir);
    const char *broker_argv [] = { DROVER_BIN, "broker", "--endpoint", endpoint,
                                   "--events", events, "--state-dir", state_dir, NULL };
    run->broker = testutil_spawn (broker_argv, run->broker_log);
    assert_true (run->broker > 0);
    snprintf (needle, sizeof needle, "registered broker=%s", endpoint);
    assert_true (testutil_await_line (run->worker_log, needle, S_WAIT_MAX));
    char *text = testutil_slurp (run->worker_log);
    const char *registered = strstr (text, needle);
    assert_non_null (registered);
    while (registered > text && registered [-1] != '\n')
        registered--;
    fprintf (stderr, "%.*s\n", (int) strcspn (registered, "\n"), registered);
    assert_true (strncmp (registered, "N:", 2) == 0);
    free (text);

    testutil_stop (run->worker, 5000);
    run->worker = 0;
    kill (run->broker, SIGTERM);
    int status = testutil_wait_exit (run->broker, 5000);
    assert_true (status != -1 && WIFEXITED (status) && WEXITSTATUS (status) == 0);
    run->broker = 0;
    run->passed = true;
}

//  At the backoff's cap (5 s) a try that does not find a broker is no
//  longer said each time: six warnings (250 ms up to 5000 ms), then the
//  seventh try passes unsaid; -v logs each HELLO sent, which counts tries
static void
test_warnings_thin_out_at_the_cap (void **state)
{
    s_run_t *run = (s_run_t *) *state;
    char endpoint [64];
    snprintf (endpoint, sizeof endpoint, "tcp://127.0.0.1:%d", testutil_free_port ());
    const char *worker_argv [] = { DROVER_BIN, "worker", "--broker", endpoint, "--id", "lonely",
                                   "--procs", "1", "--heartbeat", "100", "-v", NULL };
    run->worker = testutil_spawn (worker_argv, run->worker_log);
    assert_true (run->worker > 0);
    char needle [96];
    snprintf (needle, sizeof needle, "no broker answers at %s", endpoint);
    //  The eighth HELLO goes after the seventh try went unanswered
    assert_true (s_await_lines (run->worker_log, "send WORKER HELLO", 8, 30000));
    long retry [6];
    s_read_warnings (run->worker_log, needle, retry, 6);
    assert_int_equal (retry [0], 250);
    assert_int_equal (retry [5], 5000);
    assert_int_equal (testutil_count_lines_with (run->worker_log, needle), 6);
    run->passed = true;
}

//  Run every test
int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_nothing_at_broker_is_a_warning, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_warnings_thin_out_at_the_cap, s_setup, s_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
