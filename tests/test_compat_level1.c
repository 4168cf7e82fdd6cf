/*  =========================================================================
    test_compat_level1 - the oldest peer drover still supports, against
    today's broker, worker and CLI

    tests/compat/drv1_peer.py is a worker and a client frozen at protocol
    level 1 (PROTOCOL.md as it stood at 4fe0aee, kept as
    tests/compat/PROTOCOL-level1.md), strict about that spec's field counts
    and enum ranges. Over real TCP with a real broker: the frozen worker
    registers and runs what today's `drover submit` gives it; the frozen
    client submits, waits, cancels and lists against today's `drover
    worker`; today's `drover workers` lists the frozen worker; a wait on an
    id never given out says UNKNOWN. This must keep passing as the protocol
    grows: a broker speaks to each peer at that peer's level.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <sys/wait.h>

#define S_PYTHON    "/usr/bin/python3"
#define S_PEER      DROVER_SOURCE_DIR "/tests/compat/drv1_peer.py"

//  A frozen worker running as a child process
typedef struct {
    pid_t pid;                  //  its process
    char out [PATH_MAX];        //  its stdout: welcome, offer, result, acked lines
    char err [PATH_MAX];        //  its stderr: "malformed: ..." and other logs
} s_worker_t;

//  What one test started, for s_teardown to stop whether it passed or not
typedef struct {
    testutil_cluster_t *cluster;    //  broker (and today's workers), or NULL
    s_worker_t elder;           //  the frozen worker, pid 0 if none
    zsock_t *dealer;            //  a DEALER of today's codec, for barriers, or NULL
    bool passed;                //  the test reached its end
} s_fixture_t;

//  What one run of the frozen client said
typedef struct {
    int status;                 //  exit status
    char out [65536];           //  stdout: its machine-readable lines
    char err [8192];            //  stderr: why it failed
} s_run_t;

//  Start the frozen worker id with labels for the cluster's broker, its
//  stdout and stderr in two files of the cluster's log directory
static void
s_worker_start (testutil_cluster_t *cluster, s_worker_t *worker, const char *id,
                const char *labels)
{
    snprintf (worker->out, sizeof worker->out, "%s/%s.out", cluster->logdir, id);
    snprintf (worker->err, sizeof worker->err, "%s/%s.err", cluster->logdir, id);
    const char *argv [] = { S_PYTHON, S_PEER, "worker", "--broker", cluster->endpoint,
                            "--id", id, "--procs", "2", "--labels", labels, NULL };
    fflush (stdout);
    fflush (stderr);
    worker->pid = fork ();
    assert_true (worker->pid >= 0);
    if (worker->pid == 0) {
        int out = open (worker->out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int err = open (worker->err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (out < 0 || err < 0)
            _exit (127);
        dup2 (out, STDOUT_FILENO);
        dup2 (err, STDERR_FILENO);
        execv (argv [0], (char *const *) argv);
        _exit (127);
    }
}

//  Wait until the frozen worker says line on stdout; fail with both of its
//  streams if it does not within timeout msec
static void
s_worker_expect (s_worker_t *worker, const char *line, int timeout)
{
    if (testutil_await_line (worker->out, line, timeout))
        return;
    char *out = testutil_slurp (worker->out);
    char *err = testutil_slurp (worker->err);
    fail_msg ("the frozen worker did not say '%s' within %d ms\nstdout:\n%s\nstderr:\n%s",
              line, timeout, out? out: "", err? err: "");
}

//  Count the lines of the frozen worker's stdout that are exactly line
static int
s_worker_count (s_worker_t *worker, const char *line)
{
    char *text = testutil_slurp (worker->out);
    assert_non_null (text);
    int count = 0;
    size_t length = strlen (line);
    for (char *at = text; at && *at; at = strchr (at, '\n'), at = at? at + 1: NULL)
        if (strncmp (at, line, length) == 0 && (at [length] == '\n' || at [length] == 0))
            count++;
    free (text);
    return count;
}

//  Stop the frozen worker with SIGTERM: it says GOODBYE and exits 0
static void
s_worker_stop (s_worker_t *worker)
{
    kill (worker->pid, SIGTERM);
    int status = testutil_wait_exit (worker->pid, 10000);
    if (status == -1)
        testutil_stop (worker->pid, 100);
    assert_true (status != -1 && WIFEXITED (status) && WEXITSTATUS (status) == 0);
    assert_int_equal (s_worker_count (worker, "goodbye"), 1);
    worker->pid = 0;
}

//  Start a test: a broker with durability as it comes by default
static int
s_setup (void **state)
{
    s_fixture_t *self = (s_fixture_t *) zmalloc (sizeof (s_fixture_t));
    self->cluster = testutil_cluster_new (NULL);
    *state = self;
    return 0;
}

//  End a test: stop what it started, checking each stops cleanly, and
//  remove its logs; after a failure, kill what it left and keep the logs
static int
s_teardown (void **state)
{
    s_fixture_t *self = (s_fixture_t *) *state;
    testutil_cluster_t *cluster = self->cluster;
    zsock_destroy (&self->dealer);
    if (self->passed) {
        if (self->elder.pid > 0)
            s_worker_stop (&self->elder);
        testutil_cluster_destroy (&self->cluster);
    }
    else {
        if (self->elder.pid > 0)
            testutil_stop (self->elder.pid, 2000);
        for (int slot = 0; slot < 8; slot++) {
            if (cluster->workers [slot] > 0)
                testutil_stop (cluster->workers [slot], 5000);
            zstr_free (&cluster->worker_ids [slot]);
        }
        if (cluster->broker > 0)
            testutil_stop (cluster->broker, 5000);
        print_message ("logs kept in %s\n", cluster->logdir);
        free (cluster);
    }
    free (self);
    return 0;
}

//  Run the frozen client: drv1_peer.py COMMAND --broker ENDPOINT ARGS...
//  (NULL-terminated) into run
static void
s_client (testutil_cluster_t *cluster, s_run_t *run, const char *command, ...)
{
    const char *argv [40] = { S_PYTHON, S_PEER, command, "--broker", cluster->endpoint };
    int argc = 5;
    va_list args;
    va_start (args, command);
    for (const char *arg = va_arg (args, const char *); arg && argc < 39;
         arg = va_arg (args, const char *))
        argv [argc++] = arg;
    va_end (args);
    int status = testutil_run_cli (argv, run->out, sizeof run->out, run->err, sizeof run->err,
                                   30000);
    if (status == -1 || !WIFEXITED (status))
        fail_msg ("drv1_peer.py %s did not exit\nstdout:\n%s\nstderr:\n%s", command,
                  run->out, run->err);
    run->status = WEXITSTATUS (status);
}

//  Assert the frozen client exited 0 and said a line that starts with
//  words (the whole line, or its first words)
static void
s_client_said (const s_run_t *run, const char *words)
{
    size_t length = strlen (words);
    for (const char *at = run->out; run->status == 0 && at && *at;
         at = strchr (at, '\n'), at = at? at + 1: NULL)
        if (strncmp (at, words, length) == 0 && strchr ("\n ", at [length]))
            return;
    fail_msg ("expected exit 0 and a line '%s...'; got exit %d\nstdout:\n%s\nstderr:\n%s",
              words, run->status, run->out, run->err);
}

//  The task id of the frozen client's `accepted ID` line
static uint64_t
s_accepted (const s_run_t *run)
{
    const char *line = strstr (run->out, "accepted ");
    if (run->status != 0 || !line)
        fail_msg ("the frozen client's submit failed: exit %d\nstdout:\n%s\nstderr:\n%s",
                  run->status, run->out, run->err);
    return strtoull (line + strlen ("accepted "), NULL, 10);
}

//  A worker row of today's broker that says the worker is up and well, and
//  has sent a HEARTBEAT (only a HEARTBEAT carries stats)
static bool
s_up_and_beating (const drover_worker_row_t *row, void *arg)
{
    (void) arg;
    return row->state == DROVER_WORKER_UP && row->health == DROVER_HEALTH_OK
        && row->stats.mem_total > 0;
}

//  The frozen peer's codec accepts level-1 messages built by hand and
//  refuses longer ones: it is right before it meets any broker
static void
test_selftest (void **state)
{
    (void) state;
    const char *argv [] = { S_PYTHON, S_PEER, "selftest", NULL };
    s_run_t run;
    int status = testutil_run_cli (argv, run.out, sizeof run.out, run.err, sizeof run.err,
                                   30000);
    run.status = status != -1 && WIFEXITED (status)? WEXITSTATUS (status): -1;
    s_client_said (&run, "selftest ok");
}

//  a. The frozen worker registers; today's `drover submit` gives it tasks
//  (a label only it has), `drover wait` sees them SUCCEEDED, `drover
//  logs` their output; each ran once, and its RESULT was acknowledged
static void
test_frozen_worker_runs_cli_tasks (void **state)
{
    s_fixture_t *self = (s_fixture_t *) *state;
    testutil_cluster_t *cluster = self->cluster;
    s_worker_t *elder = &self->elder;
    s_worker_start (cluster, elder, "elder", "era=level1");
    s_worker_expect (elder, "welcome", 10000);

    char ran [PATH_MAX];
    snprintf (ran, sizeof ran, "%s/ran", cluster->logdir);
    uint64_t ids [3];
    const char *wait [8] = { "wait", "--json" };
    char texts [3][32];
    for (int index = 0; index < 3; index++) {
        char script [PATH_MAX + 64];
        snprintf (script, sizeof script, "echo hi-%d; echo %d >> %s", index, index, ran);
        const char *submit [] = { "submit", "--label", "era=level1", "--", "sh", "-c", script,
                                  NULL };
        testutil_cli_t run;
        testutil_cli (cluster->endpoint, submit, &run);
        testutil_cli_expect (&run, 0, run.out, "");
        ids [index] = strtoull (run.out, NULL, 10);
        assert_true (ids [index] > 0);
        snprintf (texts [index], sizeof texts [index], "%" PRIu64, ids [index]);
        wait [2 + index] = texts [index];
    }
    testutil_cli_t run;
    testutil_cli (cluster->endpoint, wait, &run);
    testutil_cli_expect (&run, 0, run.out, "\"total\":3,\"succeeded\":3,");
    for (int index = 0; index < 3; index++) {
        const char *logs [] = { "logs", texts [index], NULL };
        testutil_cli (cluster->endpoint, logs, &run);
        char expected [32];
        snprintf (expected, sizeof expected, "hi-%d\n", index);
        testutil_cli_expect (&run, 0, run.out, expected);
        assert_string_equal (run.out, expected);

        //  The frozen worker was offered it once and reported it once
        char line [64];
        snprintf (line, sizeof line, "acked %" PRIu64 " 1 200", ids [index]);
        s_worker_expect (elder, line, 10000);
        assert_int_equal (s_worker_count (elder, line), 1);
        snprintf (line, sizeof line, "offer %" PRIu64 " 1", ids [index]);
        assert_int_equal (s_worker_count (elder, line), 1);
        snprintf (line, sizeof line, "result %" PRIu64 " 1 0", ids [index]);
        assert_int_equal (s_worker_count (elder, line), 1);
    }
    //  Each task ran exactly once
    char *lines = testutil_slurp (ran);
    assert_non_null (lines);
    assert_int_equal (strlen (lines), 6);
    for (int index = 0; index < 3; index++) {
        char line [8];
        snprintf (line, sizeof line, "%d\n", index);
        assert_non_null (strstr (lines, line));
    }
    free (lines);
    self->passed = true;
}

//  b. Today's `drover worker` runs what the frozen client submits; the
//  frozen client waits (output right), is notified, cancels a task no
//  worker can run, and lists tasks and both workers in level-1 rows
static void
test_frozen_client_against_worker (void **state)
{
    s_fixture_t *self = (s_fixture_t *) *state;
    testutil_cluster_t *cluster = self->cluster;
    const char *labels [] = { "--label", "era=today", NULL };
    testutil_cluster_add_worker (cluster, 0, "today", 2, labels);
    s_worker_start (cluster, &self->elder, "elder", "era=level1");
    self->dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_worker_row (self->dealer, "today", s_up_and_beating, NULL,
                                           10000));

    s_run_t run;
    s_client (cluster, &run, "submit", "--label", "era=today", "--", "sh", "-c",
              "echo hello-from-level1", NULL);
    uint64_t task = s_accepted (&run);
    char id [32], line [256];
    snprintf (id, sizeof id, "%" PRIu64, task);
    s_client (cluster, &run, "wait", id, NULL);
    snprintf (line, sizeof line, "done %s SUCCEEDED 0 today", id);
    s_client_said (&run, line);
    snprintf (line, sizeof line, "out %s 68656c6c6f2d66726f6d2d6c6576656c310a", id);
    s_client_said (&run, line);

    s_client (cluster, &run, "submit", "--notify", "--label", "era=today", "--", "sh", "-c",
              "echo notified", NULL);
    uint64_t notified = s_accepted (&run);
    snprintf (line, sizeof line, "done %" PRIu64 " SUCCEEDED 0 today", notified);
    s_client_said (&run, line);
    snprintf (line, sizeof line, "out %" PRIu64 " 6e6f7469666965640a", notified);
    s_client_said (&run, line);

    s_client (cluster, &run, "submit", "--label", "nobody=has", "--", "true", NULL);
    uint64_t stuck = s_accepted (&run);
    char stuck_id [32];
    snprintf (stuck_id, sizeof stuck_id, "%" PRIu64, stuck);
    s_client (cluster, &run, "cancel", stuck_id, NULL);
    s_client_said (&run, "ok cancelled");
    s_client (cluster, &run, "wait", stuck_id, NULL);
    snprintf (line, sizeof line, "done %s CANCELLED", stuck_id);
    s_client_said (&run, line);

    s_client (cluster, &run, "tasks", NULL);
    s_client_said (&run, "counts QUEUED=0 ASSIGNED=0 RUNNING=0 SUCCEEDED=2 FAILED=0 "
                         "CANCELLED=1 UNKNOWN=0");
    snprintf (line, sizeof line, "task %s SUCCEEDED 0 1 1 today sh -c echo hello-from-level1",
              id);
    s_client_said (&run, line);
    snprintf (line, sizeof line, "task %s CANCELLED 0 1 0 - true", stuck_id);
    s_client_said (&run, line);

    //  Both workers, in rows of exactly 9 (the peer refuses any other)
    s_worker_expect (&self->elder, "welcome", 10000);
    assert_true (testutil_wait_worker_row (self->dealer, "elder", s_up_and_beating, NULL,
                                           10000));
    s_client (cluster, &run, "workers", NULL);
    if (run.status != 0 || !strstr (run.out, "worker today OK RUN 2 0 ")
        || !strstr (run.out, "worker elder OK RUN 2 0 ") || !strstr (run.out, " era=level1 ")
        || !strstr (run.out, " era=today "))
        fail_msg ("expected both workers\nstdout:\n%s\nstderr:\n%s", run.out, run.err);
    self->passed = true;
}

//  c. Today's `drover workers --json` lists the frozen worker, up and well,
//  with its labels and the stats of its level-1 HEARTBEAT
static void
test_cli_lists_frozen_worker (void **state)
{
    s_fixture_t *self = (s_fixture_t *) *state;
    testutil_cluster_t *cluster = self->cluster;
    s_worker_start (cluster, &self->elder, "elder", "era=level1,rack=r7");
    s_worker_expect (&self->elder, "welcome", 10000);
    self->dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_worker_row (self->dealer, "elder", s_up_and_beating, NULL,
                                           10000));

    const char *workers [] = { "workers", "--json", NULL };
    testutil_cli_t run;
    testutil_cli (cluster->endpoint, workers, &run);
    testutil_cli_expect (&run, 0, run.out, "{\"id\":\"elder\",");
    testutil_assert_json (run.out);
    //  Its object: up to the next worker's, if any
    char *row = strstr (run.out, "{\"id\":\"elder\",");
    char *next = strstr (row + 1, "{\"id\":\"");
    if (next)
        *next = 0;
    if (!strstr (row, "\"state\":\"up\"") || !strstr (row, "\"health\":\"ok\"")
        || !strstr (row, "\"procs\":2,")
        || !strstr (row, "\"labels\":[\"era=level1\",\"rack=r7\"]")
        || !strstr (row, "\"level\":1,\"release\":\"\""))
        fail_msg ("the frozen worker's row is not as it registered: %s", row);
    //  And the text table says which protocol level each agent speaks
    const char *text [] = { "workers", NULL };
    testutil_cli (cluster->endpoint, text, &run);
    testutil_cli_expect (&run, 0, run.out, "LEVEL");
    self->passed = true;
}

//  d. A frozen client's wait on an id never given out gets UNKNOWN (state
//  6); its cancel gets 404
static void
test_frozen_client_wait_unknown (void **state)
{
    s_fixture_t *self = (s_fixture_t *) *state;
    testutil_cluster_t *cluster = self->cluster;
    s_run_t run;
    s_client (cluster, &run, "wait", "987654", NULL);
    s_client_said (&run, "done 987654 UNKNOWN");
    s_client_said (&run, "out 987654 -");
    s_client (cluster, &run, "cancel", "987654", NULL);
    if (run.status != 1 || !strstr (run.out, "error 404 "))
        fail_msg ("expected error 404\nstdout:\n%s\nstderr:\n%s", run.out, run.err);
    self->passed = true;
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_selftest),
        cmocka_unit_test_setup_teardown (test_frozen_worker_runs_cli_tasks, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_frozen_client_against_worker, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_cli_lists_frozen_worker, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_frozen_client_wait_unknown, s_setup, s_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
