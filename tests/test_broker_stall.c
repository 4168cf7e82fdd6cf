/*  =========================================================================
    test_broker_stall - a pause of the broker is not silence of the workers

    The broker process is stopped (SIGSTOP) for three times its lost-after
    and resumed (SIGCONT). Its workers never stopped heartbeating: their
    beats wait in socket buffers. It used to declare every worker LOST at
    once, put it on probation and requeue what it ran; and an offer acknowledged
    during the pause was taken as never acknowledged. Now the broker's
    actors notice their own stall and extend their deadlines by it.

    Workers that wait for an answer give up on a stopped broker and connect
    again: what the broker sends on their old connections after the pause
    fails, and that is not the workers' fault, so nobody goes on probation.

    A worker paused itself (SIGSTOP) past lost-after is LOST and its tasks
    run again; when it comes back its old attempts, killed now, still hold
    its procs until they end: it is offered nothing past its procs.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include "testutil_signals.h"
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

//  Match a worker row that is not on probation
static bool
s_row_ok (const drover_worker_row_t *row, void *arg)
{
    return row->health == DROVER_HEALTH_OK;
}

//  Count the worker.probation events that came before the marker: a hold
//  of worker said after everything else (the store numbers events in order)
static int
s_probations_before_marker (zsock_t *sub, zsock_t *client, const char *worker)
{
    assert_int_equal (testutil_admin (client, worker, DROVER_ADMIN_HOLD), DROVER_CODE_OK);
    int probations = 0;
    drover_event_t event;
    int64_t deadline = zclock_mono () + S_WAIT_MAX;
    while (zclock_mono () < deadline
    &&     testutil_next_event (sub, &event, (int) (deadline - zclock_mono ()))) {
        if (streq (event.topic, "worker.probation")) {
            fprintf (stderr, "event %s worker=%s reason=%s\n", event.topic, event.worker,
                     event.reason);
            probations++;
        }
        if (streq (event.topic, "worker.hold") && streq (event.worker, worker))
            return probations;
    }
    fail_msg ("no worker.hold event for the marker");
    return -1;
}

//  Workers busy with short tasks through the stall: their results wait
//  unanswered, they give up on the broker and connect again, and what the
//  broker then sends on their old connections fails. No worker goes on
//  probation for it, and every task ends once, at attempt 1.
static void
test_stall_benches_nobody (void **state)
{
    const char *flags [] = { "--set", "health/lost-after=1000",
                             "--set", "health/heartbeat=200",
                             "--set", "assign/lost-retries=0", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    zsock_t *client = testutil_dealer (cluster);
    const char *ids [] = { "w1", "w2", "w3", "w4" };
    for (int slot = 0; slot < 4; slot++)
        testutil_cluster_add_worker (cluster, slot, ids [slot], 2, NULL);
    assert_true (testutil_wait_workers (client, 4, S_WAIT_MAX));
    zsock_t *sub = testutil_cluster_sub (cluster, client, "worker.", "w1");

    uint64_t tasks [40];
    for (int index = 0; index < 40; index++)
        tasks [index] = testutil_submit (client, testutil_submit_msg ("sleep 0.3", 0, 1,
                                                                      DROVER_SUBMIT_NOTIFY));
    char worker [DROVER_ID_MAX + 1];
    assert_true (testutil_wait_running (client, tasks [0], worker, S_WAIT_MAX));
    s_stall_broker (cluster);

    drover_msg_t *done [40] = { NULL };
    assert_true (testutil_collect (client, tasks, done, 40, 4 * S_WAIT_MAX));
    for (int index = 0; index < 40; index++) {
        if (done [index]->state != DROVER_TASK_SUCCEEDED)
            fprintf (stderr, "task %" PRIu64 " ended %s: %s\n", done [index]->task,
                     drover_task_state_name (done [index]->state),
                     done [index]->reason? done [index]->reason: "");
        assert_int_equal (done [index]->state, DROVER_TASK_SUCCEEDED);
        drover_msg_destroy (&done [index]);
    }
    for (int slot = 0; slot < 4; slot++)
        assert_true (testutil_wait_worker_row (client, ids [slot], s_row_ok, NULL, 1000));
    assert_int_equal (s_probations_before_marker (sub, client, "w1"), 0);

    zsock_destroy (&sub);
    zsock_destroy (&client);
    testutil_cluster_destroy (&cluster);
}

//  A 2-proc worker runs 2 long tasks and is stopped past lost-after: it is
//  LOST, its tasks go back to the queue. Resumed, it registers again
//  listing its 2 old attempts; the broker kills them, and offers the tasks
//  again only once they ended: never past the worker's procs.
static void
test_paused_worker_offered_within_procs (void **state)
{
    const char *flags [] = { "--set", "health/lost-after=1000",
                             "--set", "health/heartbeat=200", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    zsock_t *client = testutil_dealer (cluster);
    testutil_cluster_add_worker (cluster, 0, "w-paused", 2, NULL);
    assert_true (testutil_wait_workers (client, 1, S_WAIT_MAX));
    char script [PATH_MAX + 96];
    snprintf (script, sizeof script,
              "i=0; while [ ! -e %s/go ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done",
              cluster->logdir);
    uint64_t tasks [2];
    char worker [DROVER_ID_MAX + 1];
    for (int index = 0; index < 2; index++) {
        tasks [index] = testutil_submit (client, testutil_submit_msg (script, 0, 1,
                                                                      DROVER_SUBMIT_NOTIFY));
        assert_true (testutil_wait_running (client, tasks [index], worker, S_WAIT_MAX));
    }
    assert_int_equal (kill (cluster->workers [0], SIGSTOP), 0);
    assert_true (testutil_await_worker_state (client, "w-paused", DROVER_WORKER_LOST,
                                              S_WAIT_MAX));
    uint64_t lost = testutil_worker_since (client, "w-paused");
    assert_int_equal (kill (cluster->workers [0], SIGCONT), 0);
    assert_true (testutil_await_worker_up_since (client, "w-paused", lost, S_WAIT_MAX));
    //  The HELLO's list of running attempts shows in no reply or event:
    //  the broker's log of the registration is the only witness of it
    const char *log = testutil_cluster_log (cluster, "broker");
    assert_true (testutil_await_line (log, "labels=0 running=2", S_WAIT_MAX));

    char go [PATH_MAX];
    snprintf (go, sizeof go, "%s/go", cluster->logdir);
    FILE *file = fopen (go, "w");
    assert_non_null (file);
    fclose (file);
    testutil_expect_all_succeeded (client, tasks, 2, 3 * S_WAIT_MAX);
    //  Every offer the worker took was logged before its result came (an
    //  offer past its procs is seen only by the worker, which warns of it)
    assert_int_equal (testutil_count_lines_with (testutil_cluster_log (cluster, "w-paused"),
                                                 "offer past free procs"), 0);
    zsock_destroy (&client);
    testutil_cluster_destroy (&cluster);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_stall_does_not_lose_workers),
        cmocka_unit_test (test_ack_during_stall_counts),
        cmocka_unit_test (test_stall_benches_nobody),
        cmocka_unit_test (test_paused_worker_offered_within_procs),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
