/*  =========================================================================
    test_duplicate_worker_id - two real `drover worker` agents with one --id

    The second agent's HELLO (another connection, another epoch) used to be
    taken as a restart of the first: the first was declared LOST, its next
    heartbeat earned a 401, its HELLO again declared the second LOST, and
    so on forever, every task on either run twice. Now the second is
    refused while the first is registered and alive: it prints why and
    exits non-zero, the broker logs it, and the first stays UP.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include <sys/wait.h>

#define S_WAIT_MAX      10000   //  msec the second agent may take to give up

//  Collect the worker events heard within msec; returns how many were
//  worker.lost or worker.up
static int
s_flaps_within (zsock_t *sub, int msec)
{
    int flaps = 0;
    int64_t deadline = zclock_mono () + msec;
    drover_event_t event;
    while (zclock_mono () < deadline)
        if (testutil_next_event (sub, &event, (int) (deadline - zclock_mono ()))
        &&  (streq (event.topic, "worker.lost") || streq (event.topic, "worker.up"))) {
            fprintf (stderr, "event %s worker=%s reason=%s\n", event.topic, event.worker,
                     event.reason);
            flaps++;
        }
    return flaps;
}

static void
test_second_agent_with_the_same_id_is_refused (void **state)
{
    const char *flags [] = { "--set", "health/heartbeat=100",
                             "--set", "health/lost-after=1000", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    zsock_t *client = testutil_dealer (cluster);
    testutil_cluster_add_worker (cluster, 0, "twin", 1, NULL);
    assert_true (testutil_wait_workers (client, 1, S_WAIT_MAX));
    zsock_t *sub = testutil_cluster_sub (cluster, client, "worker.", "twin");

    const char *argv [] = { DROVER_BIN, "worker", "--broker", cluster->endpoint,
                            "--id", "twin", "--procs", "1", NULL };
    const char *log = testutil_cluster_log (cluster, "second");
    pid_t second = testutil_spawn (argv, log);
    assert_true (second > 0);
    int status = testutil_wait_exit (second, S_WAIT_MAX);
    if (status == -1)
        testutil_stop (second, 1000);
    assert_true (status != -1);
    assert_true (WIFEXITED (status));
    assert_int_not_equal (WEXITSTATUS (status), 0);
    char *said = testutil_slurp (log);
    assert_non_null (said);
    assert_non_null (strstr (said, "drover worker: "));
    assert_non_null (strstr (said, "worker id in use by another agent"));
    free (said);
    assert_true (testutil_count_lines_with (testutil_cluster_log (cluster, "broker"),
                                            "worker id in use by another agent") >= 1);

    //  The first never flapped: no LOST or UP, still the one registered,
    //  through more than lost-after
    assert_int_equal (s_flaps_within (sub, 1500), 0);
    assert_true (testutil_wait_workers (client, 1, 1000));
    uint64_t task = testutil_submit (client, testutil_submit_msg ("true", 0, 1,
                                                                  DROVER_SUBMIT_NOTIFY));
    drover_msg_t *done = testutil_expect_done (client, task, DROVER_TASK_SUCCEEDED, S_WAIT_MAX);
    assert_int_equal (done->attempt, 1);
    drover_msg_destroy (&done);

    zsock_destroy (&sub);
    zsock_destroy (&client);
    testutil_cluster_destroy (&cluster);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_second_agent_with_the_same_id_is_refused),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
