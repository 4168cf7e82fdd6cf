/*  =========================================================================
    test_cli_explain - `drover explain` through the real binary, a real
    broker and real workers: tasks no worker could ever run (a label none
    has, more procs or memory than any has) name the reason per worker and
    the verdict; a task waiting on a busy worker says how much must free
    there; a task not waiting says its state, worker and attempt. `drover
    tasks` shows why each queued task waits (REASON) and lists queued tasks
    in the order they will run; submit warns of a task no worker could ever
    run, submit --wait and wait say why what they wait for is left
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include <sys/wait.h>

//  What one test holds
typedef struct {
    testutil_cluster_t *cluster;    //  broker and two workers
    zsock_t *dealer;            //  to ask the broker directly
} s_fixture_t;

static int
s_setup (void **state)
{
    s_fixture_t *self = (s_fixture_t *) zmalloc (sizeof (s_fixture_t));
    self->cluster = testutil_cluster_new (NULL);
    const char *small [] = { "--mem", "24G", "--label", "zone=a", NULL };
    const char *big [] = { "--mem", "24G", "--label", "zone=b", NULL };
    testutil_cluster_add_worker (self->cluster, 0, "small", 4, small);
    testutil_cluster_add_worker (self->cluster, 1, "big", 16, big);
    self->dealer = testutil_dealer (self->cluster);
    assert_true (testutil_wait_workers (self->dealer, 2, 10000));
    *state = self;
    return 0;
}

static int
s_teardown (void **state)
{
    s_fixture_t *self = (s_fixture_t *) *state;
    zsock_destroy (&self->dealer);
    testutil_cluster_destroy (&self->cluster);
    free (self);
    return 0;
}

//  Run `drover --broker E ARGS...` and return its exit status (-1 if it
//  had to be stopped); stdout into output
static int
s_drover (s_fixture_t *self, const char *const args [], char *output, size_t size)
{
    const char *argv [24] = { DROVER_BIN, "--broker", self->cluster->endpoint };
    int argc = 3;
    for (int index = 0; args [index] && argc < 23; index++)
        argv [argc++] = args [index];
    argv [argc] = NULL;
    int status = testutil_run_output (argv, output, size, 20000);
    return status != -1 && WIFEXITED (status)? WEXITSTATUS (status): -1;
}

//  Submit a task with flags; returns its id
static uint64_t
s_submit (s_fixture_t *self, const char *const args [])
{
    char output [256];
    const char *argv [16] = { "submit" };
    int argc = 1;
    for (int index = 0; args [index]; index++)
        argv [argc++] = args [index];
    argv [argc] = NULL;
    assert_int_equal (s_drover (self, argv, output, sizeof output), 0);
    uint64_t task = strtoull (output, NULL, 10);
    assert_true (task > 0);
    return task;
}

//  Run `drover explain ID [--json]`, which must exit 0; output says it
static void
s_explain (s_fixture_t *self, uint64_t task, bool json, char *output, size_t size)
{
    char id [32];
    snprintf (id, sizeof id, "%" PRIu64, task);
    const char *args [] = { "explain", id, json? "--json": NULL, NULL };
    assert_int_equal (s_drover (self, args, output, size), 0);
}

//  Assert that output holds needle, showing it if not
static void
s_holds (const char *output, const char *needle)
{
    if (!strstr (output, needle))
        fail_msg ("expected '%s' in:\n%s", needle, output);
}

//  A label no worker has, more procs or memory than any has: each worker's
//  reason, and the verdict that no worker could ever run it
static void
test_explain_names_what_no_worker_has (void **state)
{
    s_fixture_t *self = (s_fixture_t *) *state;
    char output [4096];
    const char *label [] = { "--label", "zone=c", "--", "true", NULL };
    const char *procs [] = { "--procs", "64", "--", "true", NULL };
    const char *mem [] = { "--mem", "30G", "--", "true", NULL };
    uint64_t labelled = s_submit (self, label);
    uint64_t wide = s_submit (self, procs);
    uint64_t heavy = s_submit (self, mem);

    s_explain (self, labelled, false, output, sizeof output);
    s_holds (output, "QUEUED");
    s_holds (output, "2 workers (");
    s_holds (output, "): lacks label zone=c");
    s_holds (output, "verdict: no worker could ever run it: no worker has label zone=c");

    s_explain (self, wide, false, output, sizeof output);
    s_holds (output, "2 workers (big, small): has 16 procs of 64 asked");
    s_holds (output, "the most procs a worker has is 16, of 64 asked");
    s_holds (output, "queue:   first in the queue");

    s_explain (self, heavy, false, output, sizeof output);
    s_holds (output, "has 24G memory of 30G asked");
    s_holds (output, "verdict: no worker could ever run it: the most memory a worker has is 24G");
    //  The two before it can never run either: they wait aside, not ahead
    s_holds (output, "queue:   first in the queue");

    s_explain (self, heavy, true, output, sizeof output);
    s_holds (output, "\"never\":true");
    s_holds (output, "\"code\":\"mem\",\"count\":2,\"a\":25769803776,\"b\":32212254720");
    s_holds (output, "\"reason\":\"mem 30G>24G\"");
}

//  A task waiting for a busy worker: how much must free there; the running
//  one: its state, worker and attempt
static void
test_explain_busy_worker (void **state)
{
    s_fixture_t *self = (s_fixture_t *) *state;
    char output [4096];
    const char *hog [] = { "--procs", "14", "--", "sleep", "60", NULL };
    const char *next [] = { "--procs", "8", "--", "true", NULL };
    uint64_t running = s_submit (self, hog);
    char worker [DROVER_ID_MAX + 1];
    assert_true (testutil_wait_running (self->dealer, running, worker, 10000));
    assert_string_equal (worker, "big");
    uint64_t waiting = s_submit (self, next);

    s_explain (self, waiting, false, output, sizeof output);
    s_holds (output, "1 worker (small): has 4 procs of 8 asked");
    s_holds (output, "verdict: fits on big when 6 more procs free");

    s_explain (self, running, false, output, sizeof output);
    s_holds (output, "RUNNING on big, attempt 1");

    //  An id the broker never gave
    const char *unknown [] = { "explain", "999", NULL };
    assert_int_equal (s_drover (self, unknown, output, sizeof output), 1);
}

//  Return the line of a `drover tasks` table that starts with a task id
static const char *
s_row (const char *output, uint64_t task)
{
    char start [32];
    snprintf (start, sizeof start, "\n%" PRIu64 " ", task);
    const char *row = strstr (output, start);
    if (!row)
        fail_msg ("no row for task %" PRIu64 " in:\n%s", task, output);
    return row + 1;
}

//  Assert that a table row holds needle before its line ends
static void
s_row_holds (const char *row, const char *needle)
{
    const char *end = strchr (row, '\n');
    const char *found = strstr (row, needle);
    if (!found || (end && found > end))
        fail_msg ("expected '%s' in the row: %.*s", needle, (int) (end? end - row: 80), row);
}

//  Set up the queue of test_tasks_reason_and_run_order: a task no worker
//  has the label of, one too wide, one running on big, three waiting
//  for big (one of higher priority); returns their ids in submit order
static void
s_queue_up (s_fixture_t *self, uint64_t ids [6])
{
    const char *label [] = { "--label", "zone=c", "--", "true", NULL };
    const char *procs [] = { "--procs", "64", "--", "true", NULL };
    const char *hog [] = { "--procs", "14", "--", "sleep", "60", NULL };
    const char *eight [] = { "--procs", "8", "--", "true", NULL };
    const char *urgent [] = { "--priority", "-1", "--procs", "8", "--", "true", NULL };
    ids [0] = s_submit (self, label);
    ids [1] = s_submit (self, procs);
    ids [2] = s_submit (self, hog);
    char worker [DROVER_ID_MAX + 1];
    assert_true (testutil_wait_running (self->dealer, ids [2], worker, 10000));
    ids [3] = s_submit (self, eight);
    ids [4] = s_submit (self, urgent);
    ids [5] = s_submit (self, eight);
}

//  REASON: why each queued task waits, in a few words; queued tasks are
//  listed in the order they will run, not newest first
static void
test_tasks_reason_and_run_order (void **state)
{
    s_fixture_t *self = (s_fixture_t *) *state;
    uint64_t ids [6];
    s_queue_up (self, ids);
    char output [8192];
    const char *queued [] = { "tasks", "--state", "queued", NULL };
    assert_int_equal (s_drover (self, queued, output, sizeof output), 0);
    s_holds (output, "REASON");
    //  The order they will run: priority, then procs (more first), then id
    const char *rows [5] = { s_row (output, ids [4]), s_row (output, ids [1]),
                             s_row (output, ids [3]), s_row (output, ids [5]),
                             s_row (output, ids [0]) };
    for (int index = 1; index < 5; index++)
        if (rows [index] <= rows [index - 1])
            fail_msg ("row %d out of the run order in:\n%s", index, output);
    s_row_holds (rows [0], "busy");
    s_row_holds (rows [1], "procs 64>16");
    //  Behind the urgent one (and each other), not behind the one too
    //  wide for any worker: it waits aside
    s_row_holds (rows [2], "behind 1");
    s_row_holds (rows [3], "behind 2");
    s_row_holds (rows [4], "no label zone=c");

    //  Every state: newest first, a reason for the queued only
    const char *all [] = { "tasks", NULL };
    assert_int_equal (s_drover (self, all, output, sizeof output), 0);
    assert_true (s_row (output, ids [5]) < s_row (output, ids [4]));
    s_row_holds (s_row (output, ids [0]), "no label zone=c");
    const char *json [] = { "tasks", "--json", NULL };
    assert_int_equal (s_drover (self, json, output, sizeof output), 0);
    s_holds (output, "\"reason\":\"no label zone=c\"");
}

//  Run `drover --broker E ARGS...` in the background, stdout and stderr
//  into a log in the cluster's directory; returns its pid
static pid_t
s_spawn (s_fixture_t *self, const char *log, const char *const args [])
{
    const char *argv [24] = { DROVER_BIN, "--broker", self->cluster->endpoint };
    int argc = 3;
    for (int index = 0; args [index] && argc < 23; index++)
        argv [argc++] = args [index];
    argv [argc] = NULL;
    return testutil_spawn (argv, testutil_cluster_log (self->cluster, log));
}

//  Wait for a line in a background command's log, showing the log if not
static void
s_await (s_fixture_t *self, const char *log, const char *needle, int timeout)
{
    const char *path = testutil_cluster_log (self->cluster, log);
    if (!testutil_await_line (path, needle, timeout)) {
        char *text = testutil_slurp (path);
        fail_msg ("expected '%s' in %s:\n%s", needle, log, text? text: "(nothing)");
    }
}

//  submit warns of a task no connected worker could ever run (once for a
//  file of them); submit --wait says why its task waits; wait says which
//  tasks are left and why when none ends
static void
test_submit_warns_and_waits_say_why (void **state)
{
    s_fixture_t *self = (s_fixture_t *) *state;
    const char *label [] = { "submit", "--label", "zone=c", "--", "true", NULL };
    pid_t pid = s_spawn (self, "submit-label", label);
    assert_int_equal (testutil_wait_exit (pid, 20000), 0);
    s_await (self, "submit-label", "drover submit: warning: task 1 cannot run on any connected "
             "worker: no worker has label zone=c", 1000);

    //  A file of three: one warning for them all
    char path [256];
    snprintf (path, sizeof path, "%s", testutil_cluster_log (self->cluster, "lines.txt"));
    FILE *file = fopen (path, "w");
    assert_non_null (file);
    fprintf (file, "true\ntrue\ntrue\n");
    fclose (file);
    const char *lines [] = { "submit", "--procs", "64", "--file", path, NULL };
    pid = s_spawn (self, "submit-file", lines);
    assert_int_equal (testutil_wait_exit (pid, 20000), 0);
    const char *log = testutil_cluster_log (self->cluster, "submit-file");
    assert_int_equal (testutil_count_lines_with (log, "warning:"), 1);
    s_await (self, "submit-file", "warning: 3 tasks (the first 2) cannot run on any connected "
             "worker: the most procs a worker has is 16, of 64 asked", 1000);

    //  Waiting for a busy worker: submit --wait says so while it waits
    const char *hog [] = { "--procs", "14", "--", "sleep", "60", NULL };
    uint64_t running = s_submit (self, hog);
    char worker [DROVER_ID_MAX + 1];
    assert_true (testutil_wait_running (self->dealer, running, worker, 10000));
    const char *busy [] = { "submit", "--wait", "--procs", "8", "--", "true", NULL };
    pid_t waiting = s_spawn (self, "submit-wait", busy);
    s_await (self, "submit-wait", ": fits on big when 6 more procs free", 10000);
    testutil_stop (waiting, 2000);

    //  wait --all: none ends for a while; it says which are left and why
    const char *wait_all [] = { "wait", "--all", NULL };
    pid = s_spawn (self, "wait-all", wait_all);
    s_await (self, "wait-all", "tasks left, none ended for", 15000);
    s_await (self, "wait-all", ": no worker could ever run it: no worker has label zone=c",
             1000);
    s_await (self, "wait-all", "running on big", 1000);
    testutil_stop (pid, 2000);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_explain_names_what_no_worker_has, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_explain_busy_worker, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_tasks_reason_and_run_order, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_submit_warns_and_waits_say_why, s_setup,
                                         s_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
