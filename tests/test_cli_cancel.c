/*  =========================================================================
    test_cli_cancel - `drover cancel` with a filter, through the real
    binary and a real broker: --state, --label (the broker filters TASK
    LIST by label), --all; refused without a terminal unless --yes; asks
    on a terminal (tmux); says how many it cancelled
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include <sys/wait.h>

//  Output buffers of one run
static char s_out [65536];
static char s_err [65536];

//  Run drover --broker endpoint with the NULL-terminated arguments; stdin
//  /dev/null; returns the exit status
static int
s_drover (const char *endpoint, const char *first, ...)
{
    const char *prefix [] = { DROVER_BIN, "--broker", endpoint, NULL };
    va_list args;
    va_start (args, first);
    int status = testutil_run_cli_va (prefix, first, args, s_out, sizeof s_out, s_err,
                                      sizeof s_err);
    va_end (args);
    return status;
}

//  Submit a task that cannot run (64 procs) with a label, or one that
//  runs a while; returns its id
static uint64_t
s_submit (zsock_t *dealer, const char *label, bool runs)
{
    drover_msg_t *submit = testutil_submit_msg (runs? "sleep 60": "true", 0, runs? 1: 64, 0);
    if (label)
        drover_msg_add_label (submit, label);
    return testutil_submit (dealer, submit);
}

//  The state of a task per TASK LIST
static int
s_state (zsock_t *dealer, uint64_t task)
{
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_LIST);
    request->state = 255;
    request->limit = 1000;
    drover_msg_t *table = testutil_request (dealer, &request, 5000);
    assert_non_null (table);
    int state = -1;
    for (uint32_t index = 0; index < table->nrows; index++)
        if (table->task_rows [index].task == task)
            state = table->task_rows [index].state;
    drover_msg_destroy (&table);
    return state;
}

//  Wait up to timeout msec until a task is in state; false on timeout
static bool
s_await_state (zsock_t *dealer, uint64_t task, int state, int timeout)
{
    int64_t deadline = zclock_mono () + timeout;
    while (s_state (dealer, task) != state) {
        if (zclock_mono () >= deadline)
            return false;
        zclock_sleep (50);              //  polling the broker's answer
    }
    return true;
}

//  --state, --label, --all: each cancels what it matches and says how many;
//  without a terminal and without --yes nothing is cancelled
static void
test_cancel_by_filter (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    const char *labels [] = { "--label", "zone=a", NULL };
    testutil_cluster_add_worker (cluster, 0, "w1", 1, labels);
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 1, 10000));
    const char *broker = cluster->endpoint;
    uint64_t running = s_submit (dealer, "zone=a", true);
    char worker [64];
    assert_true (testutil_wait_running (dealer, running, worker, 10000));
    uint64_t plain = s_submit (dealer, NULL, false);
    uint64_t zone_b = s_submit (dealer, "zone=b", false);
    uint64_t both = s_submit (dealer, "zone=b", false);
    assert_int_equal (s_state (dealer, both), DROVER_TASK_QUEUED);

    //  No terminal, no --yes: refused, by count, nothing cancelled
    assert_int_equal (s_drover (broker, "cancel", "--state", "queued", NULL), 2);
    if (!strstr (s_err, "3 queued task(s) match"))
        fail_msg ("stderr: %s", s_err);
    assert_non_null (strstr (s_err, "--yes"));
    assert_int_equal (s_state (dealer, plain), DROVER_TASK_QUEUED);
    //  Ids and a filter, or nothing: refused
    assert_int_equal (s_drover (broker, "cancel", "--all", "5", NULL), 2);
    assert_int_equal (s_drover (broker, "cancel", NULL), 2);

    //  By label: only the two with zone=b (the broker filters)
    assert_int_equal (s_drover (broker, "cancel", "-l", "zone=b", "-y", NULL), 0);
    assert_string_equal (s_out, "cancelled 2 tasks\n");
    assert_int_equal (s_state (dealer, zone_b), DROVER_TASK_CANCELLED);
    assert_int_equal (s_state (dealer, both), DROVER_TASK_CANCELLED);
    assert_int_equal (s_state (dealer, plain), DROVER_TASK_QUEUED);
    assert_int_equal (s_state (dealer, running), DROVER_TASK_RUNNING);
    //  A label on the running one, by state: none queued has it
    assert_int_equal (s_drover (broker, "cancel", "--label", "zone=a", "--state", "queued",
                                "--yes", NULL), 0);
    assert_string_equal (s_out, "cancelled 0 tasks\n");
    //  By state
    assert_int_equal (s_drover (broker, "cancel", "-s", "queued", "--yes", NULL), 0);
    assert_string_equal (s_out, "cancelled 1 task\n");
    assert_int_equal (s_state (dealer, plain), DROVER_TASK_CANCELLED);
    assert_int_equal (s_state (dealer, running), DROVER_TASK_RUNNING);
    //  --all: the running one too
    assert_int_equal (s_drover (broker, "cancel", "--all", "--yes", NULL), 0);
    assert_string_equal (s_out, "cancelled 1 task\n");
    assert_true (s_await_state (dealer, running, DROVER_TASK_CANCELLED, 10000));
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  On a terminal it asks first: n cancels nothing, y cancels
static void
test_cancel_asks_on_a_terminal (void **state)
{
    if (access ("/usr/bin/tmux", X_OK) != 0) {
        fprintf (stderr, "test_cli_cancel: tmux not found: skipping the terminal part\n");
        skip ();
    }
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    zsock_t *dealer = testutil_dealer (cluster);
    uint64_t task = s_submit (dealer, NULL, false);         //  no worker: queued
    char socket [64], log [128], command [512];
    snprintf (log, sizeof log, "/tmp/drover-cancel-%d.log", (int) getpid ());
    for (int round = 0; round < 2; round++) {
        //  A tmux server per round: the first one exits with its session
        snprintf (socket, sizeof socket, "drover-cancel-%d-%d", (int) getpid (), round);
        const char *answer = round == 0? "n": "y";
        unlink (log);
        snprintf (command, sizeof command, "%s --broker %s cancel --all > %s 2>&1", DROVER_BIN,
                  cluster->endpoint, log);
        const char *start [] = { "/usr/bin/tmux", "-L", socket, "new-session", "-d", "-s", "c",
                                 "-x", "100", "-y", "10", "sh", "-c", command, NULL };
        int status = testutil_run_cli (start, s_out, sizeof s_out, s_err, sizeof s_err, 10000);
        if (status != 0)
            fail_msg ("tmux new-session: status %d: %s", status, s_err);
        assert_true (testutil_await_line (log, "cancel 1 unfinished task(s)? [y/N]", 10000));
        const char *keys [] = { "/usr/bin/tmux", "-L", socket, "send-keys", "-t", "c", answer,
                                "Enter", NULL };
        testutil_run_cli (keys, s_out, sizeof s_out, s_err, sizeof s_err, 10000);
        if (round == 0) {
            assert_true (testutil_await_line (log, "nothing cancelled", 10000));
            assert_int_equal (s_state (dealer, task), DROVER_TASK_QUEUED);
        }
        else {
            assert_true (testutil_await_line (log, "cancelled 1 task", 10000));
            assert_int_equal (s_state (dealer, task), DROVER_TASK_CANCELLED);
        }
        const char *kill_server [] = { "/usr/bin/tmux", "-L", socket, "kill-server", NULL };
        testutil_run_cli (kill_server, s_out, sizeof s_out, s_err, sizeof s_err, 10000);
    }
    unlink (log);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_cancel_by_filter),
        cmocka_unit_test (test_cancel_asks_on_a_terminal),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
