/*  =========================================================================
    test_machine_failed - a worker whose tasks cannot start is on probation, not
    a black hole that fails every task it is given

    A real broker and real `drover worker` agents on loopback. The first
    agent's work directory is removed under it, so it can start nothing:
    it reports MACHINE_FAILED, the broker puts it on probation and queues
    the task again without using up its retries (it has none), and the
    task runs on a second agent.
    =========================================================================
*/

#include "testutil_wire.h"
#include "testutil_cluster.h"
#include <limits.h>
#include <unistd.h>
#include <sys/stat.h>

#define S_WAIT_MAX      10000   //  msec any one step may take at most

//  A removed work directory puts the agent on probation; the task runs elsewhere
static void
test_workdir_gone_benches_worker (void **state)
{
    const char *flags [] = { "--set", "probation/timeout=60000", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    char workdir [PATH_MAX];
    snprintf (workdir, sizeof workdir, "%s/workdir", cluster->logdir);
    assert_int_equal (mkdir (workdir, 0700), 0);
    const char *broken_flags [] = { "--workdir", workdir, NULL };
    testutil_cluster_add_worker (cluster, 0, "broken", 2, broken_flags);
    zsock_t *client = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (client, 1, S_WAIT_MAX));
    zsock_t *sub = testutil_cluster_sub (cluster, client, "worker.", "broken");
    assert_int_equal (rmdir (workdir), 0);

    //  No retries of its own: only a machine failure may run it again
    uint64_t task = testutil_submit (client, testutil_submit_msg ("echo ran", 0, 1,
                                                                  DROVER_SUBMIT_NOTIFY));
    drover_event_t event;
    assert_true (testutil_await_event (sub, "worker.probation", "broken", &event, S_WAIT_MAX));
    assert_non_null (strstr (event.reason, "work directory"));

    testutil_cluster_add_worker (cluster, 1, "good", 2, NULL);
    drover_msg_t *done = testutil_expect_done (client, task, DROVER_TASK_SUCCEEDED, S_WAIT_MAX);
    assert_string_equal (done->worker, "good");
    assert_int_equal (done->attempt, 2);
    assert_int_equal (done->out_size, 4);
    assert_memory_equal (done->out, "ran\n", 4);
    drover_msg_destroy (&done);
    zsock_destroy (&sub);
    zsock_destroy (&client);
    testutil_cluster_destroy (&cluster);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_workdir_gone_benches_worker),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
