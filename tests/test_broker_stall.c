/*  =========================================================================
    test_broker_stall - a pause of the broker is not silence of the workers

    The broker process is stopped (SIGSTOP) for three times its lost-after
    and resumed (SIGCONT). Its workers never stopped heartbeating: their
    beats wait in socket buffers. It used to declare every worker LOST at
    once, put it on probation and requeue what it ran; and an offer acknowledged
    during the pause was taken as never acknowledged. Now the broker's
    actors notice their own stall and extend their deadlines by it.
    =========================================================================
*/

#include "testutil.h"
#include <signal.h>

#define S_WAIT_MAX      10000   //  msec any one step may take at most
#define S_STALL         3000    //  msec the broker is stopped

//  Stop the broker for S_STALL msec, then let it go on
static void
s_stall_broker (testutil_cluster_t *cluster)
{
    assert_int_equal (kill (cluster->broker, SIGSTOP), 0);
    zclock_sleep (S_STALL);     //  the scenario itself: the broker does not run
    assert_int_equal (kill (cluster->broker, SIGCONT), 0);
}

//  Collect events until done arrives for task (or the deadline); return
//  how many were worker.lost or task.requeued
static int
s_bad_events (zsock_t *sub)
{
    int bad = 0;
    drover_event_t event;
    while (testutil_next_event (sub, &event, 0))
        if (streq (event.topic, "worker.lost") || streq (event.topic, "task.requeued")
        ||  streq (event.topic, "worker.probation")) {
            fprintf (stderr, "event %s worker=%s task=%" PRIu64 " reason=%s\n", event.topic,
                     event.worker, event.task, event.reason);
            bad++;
        }
    return bad;
}

//  A real worker runs a long task through the stall: it is not lost, the
//  task is not requeued and ends at attempt 1
static void
test_stall_does_not_lose_workers (void **state)
{
    const char *flags [] = { "--set", "health/lost-after=1000",
                             "--set", "health/heartbeat=200", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    zsock_t *client = testutil_dealer (cluster);
    testutil_cluster_add_worker (cluster, 0, "steady", 2, NULL);
    assert_true (testutil_wait_workers (client, 1, S_WAIT_MAX));
    zsock_t *sub = testutil_cluster_sub (cluster, client, "", "steady");

    uint64_t task = testutil_submit (client, testutil_submit_msg ("sleep 5", 0, 1,
                                                                  DROVER_SUBMIT_NOTIFY));
    char worker [DROVER_ID_MAX + 1];
    assert_true (testutil_wait_running (client, task, worker, S_WAIT_MAX));
    s_stall_broker (cluster);

    drover_msg_t *done = testutil_expect_done (client, task, DROVER_TASK_SUCCEEDED, S_WAIT_MAX);
    assert_int_equal (done->attempt, 1);
    drover_msg_destroy (&done);
    assert_int_equal (s_bad_events (sub), 0);
    assert_true (testutil_wait_workers (client, 1, 1000));

    zsock_destroy (&sub);
    zsock_destroy (&client);
    testutil_cluster_destroy (&cluster);
}

//  Send one report as the played worker "played"
static void
s_say (zsock_t *peer, int id, uint64_t task, uint32_t attempt, uint32_t seq)
{
    drover_msg_t *msg = testutil_played_msg ("played", 1, id, task, attempt);
    msg->seq = seq;
    testutil_send (peer, &msg);
}

//  An offer acknowledged while the broker is stopped, past its ack-timeout:
//  the ack is read before the offer can expire, so no KILL, no requeue
static void
test_ack_during_stall_counts (void **state)
{
    const char *flags [] = { "--set", "assign/ack-timeout=1000",
                             "--set", "health/lost-after=30000", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    zsock_t *client = testutil_dealer (cluster);
    zsock_t *worker = testutil_dealer (cluster);
    s_say (worker, DROVER_MSG_WORKER_HELLO, 0, 0, 1);
    drover_msg_t *msg = testutil_recv_msg (worker, S_WAIT_MAX);
    assert_non_null (msg);
    assert_int_equal (msg->id, DROVER_MSG_WORKER_WELCOME);
    drover_msg_destroy (&msg);
    uint64_t task = testutil_submit (client, testutil_submit_msg ("true", 0, 1,
                                                                  DROVER_SUBMIT_NOTIFY));
    msg = testutil_recv_msg (worker, S_WAIT_MAX);
    assert_non_null (msg);
    assert_int_equal (msg->id, DROVER_MSG_TASK_OFFER);
    uint32_t attempt = msg->attempt;
    drover_msg_destroy (&msg);

    assert_int_equal (kill (cluster->broker, SIGSTOP), 0);
    s_say (worker, DROVER_MSG_TASK_STARTED, task, attempt, 2);
    zclock_sleep (S_STALL);     //  the scenario itself: the broker does not run
    assert_int_equal (kill (cluster->broker, SIGCONT), 0);

    s_say (worker, DROVER_MSG_TASK_RESULT, task, attempt, 3);
    msg = testutil_recv_msg (worker, S_WAIT_MAX);
    assert_non_null (msg);
    if (msg->id != DROVER_MSG_OK)
        fprintf (stderr, "got %s code=%u attempt=%u\n", drover_msg_name (msg->id), msg->code,
                 msg->attempt);
    assert_int_equal (msg->id, DROVER_MSG_OK);
    assert_int_equal (msg->seq, 3);
    drover_msg_destroy (&msg);
    drover_msg_t *done = testutil_expect_done (client, task, DROVER_TASK_SUCCEEDED, S_WAIT_MAX);
    assert_int_equal (done->attempt, 1);
    drover_msg_destroy (&done);

    zsock_destroy (&worker);
    zsock_destroy (&client);
    testutil_cluster_destroy (&cluster);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_stall_does_not_lose_workers),
        cmocka_unit_test (test_ack_during_stall_counts),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
