/*  =========================================================================
    test_task_oom - a task's --mem is enforced: a task allocating past it
    is killed by the OOM killer and reported so, while its worker and the
    other tasks on it are unharmed

    A real broker and a real `drover worker` on loopback, its tasks' memory
    bounded through this machine's memory controller (cgroup v2, else v1:
    the development and CI machines are hybrid). One task allocates 300 MiB
    with --mem 64M; another, beside it on the same worker, succeeds. The
    first ends FAILED by signal 9 with the worker's reason, its attempt's
    outcome (the worker's TASK RESULT, as `drover show --json` gives it)
    is "oom", and the worker stays registered and runs a task after it.
    Where the machine has no memory controller at all it says it skipped.
    =========================================================================
*/

#include "testutil_wire.h"
#include "testutil_cluster.h"
#include "drover_memlimit.h"
#include <signal.h>

#define S_WAIT_MAX      20000   //  msec any one step may take at most

//  A SUBMIT of python3 -c program asking mem bytes, notified at its end
static drover_msg_t *
s_python_submit (const char *program, uint64_t mem)
{
    drover_exec_t *exec = drover_exec_new ();
    const char *argv [] = { "python3", "-c", program };
    assert_int_equal (drover_exec_set_argv (exec, 3, argv), 0);
    size_t size;
    byte *body = drover_exec_encode (exec, &size);
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    msg->procs = 1;
    msg->mem = mem;
    msg->flags = DROVER_SUBMIT_NOTIFY;
    drover_msg_set_body (msg, body, size);
    free (body);
    drover_exec_destroy (&exec);
    return msg;
}

//  True if this machine bounds memory through some controller
static bool
s_machine_has_controller (void)
{
    drover_memlimit_t *probe = drover_memlimit_new ("hard", NULL);
    bool has = drover_memlimit_controller (probe) != DROVER_MEMLIMIT_NONE;
    drover_memlimit_destroy (&probe);
    return has;
}

//  Past its --mem a task ends OOM; the task beside it and the worker go on
static void
test_task_past_mem_ends_oom (void **state)
{
    if (!s_machine_has_controller ()) {
        fprintf (stderr, "test_task_oom: skipped: this machine has no memory controller "
                         "(neither cgroup v2's nor v1's)\n");
        skip ();
    }
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    const char *flags [] = { "--mem", "1G", NULL };
    testutil_cluster_add_worker (cluster, 0, "oomy", 2, flags);
    zsock_t *client = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (client, 1, S_WAIT_MAX));

    uint64_t hog = testutil_submit (client, s_python_submit (
        "x = bytearray(300 << 20); import time; time.sleep(1)", 64 << 20));
    uint64_t calm = testutil_submit (client, s_python_submit (
        "x = bytearray(8 << 20); print('calm')", 64 << 20));
    uint64_t tasks [] = { hog, calm };
    drover_msg_t *done [2] = { NULL, NULL };
    testutil_collect (client, tasks, done, 2, S_WAIT_MAX);
    assert_non_null (done [0]);
    assert_non_null (done [1]);
    if (done [0]->state != DROVER_TASK_FAILED)
        fprintf (stderr, "test_task_oom: the hog ended %s: %s\n",
                 drover_task_state_name (done [0]->state),
                 done [0]->reason? done [0]->reason: "");
    assert_int_equal (done [0]->state, DROVER_TASK_FAILED);
    assert_int_equal (done [0]->end, DROVER_END_OOM);       //  a level-4 client is told OOM
    assert_string_equal (done [0]->worker, "oomy");
    assert_int_equal (done [0]->signal, SIGKILL);
    assert_non_null (done [0]->reason);
    assert_non_null (strstr (done [0]->reason, "OOM killer"));
    assert_int_equal (done [1]->state, DROVER_TASK_SUCCEEDED);
    assert_string_equal (done [1]->worker, "oomy");
    assert_int_equal (done [1]->out_size, 5);
    assert_memory_equal (done [1]->out, "calm\n", 5);
    drover_msg_destroy (&done [0]);
    drover_msg_destroy (&done [1]);

    //  The worker's RESULT said OOM: the attempt's outcome the broker kept
    char id [32];
    snprintf (id, sizeof id, "%" PRIu64, hog);
    const char *show [] = { "show", "--json", id, NULL };
    testutil_cli_t run;
    testutil_cli (cluster->endpoint, show, &run);
    testutil_cli_expect (&run, 0, run.out, "\"outcome\":\"oom\"");
    //  explain says how it ended
    const char *explain [] = { "explain", id, NULL };
    testutil_cli (cluster->endpoint, explain, &run);
    testutil_cli_expect (&run, 0, run.out, "ended:   OOM: killed by the OOM killer");

    //  The worker is still registered and runs what comes next
    assert_true (testutil_wait_workers (client, 1, S_WAIT_MAX));
    uint64_t after = testutil_submit (client, s_python_submit ("print('after')", 64 << 20));
    drover_msg_t *last = testutil_expect_done (client, after, DROVER_TASK_SUCCEEDED, S_WAIT_MAX);
    assert_string_equal (last->worker, "oomy");
    drover_msg_destroy (&last);
    zsock_destroy (&client);
    testutil_cluster_destroy (&cluster);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_task_past_mem_ends_oom),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
