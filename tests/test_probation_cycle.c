/*  =========================================================================
    test_probation_cycle - through a real broker: a worker that leaves an
    offer unacknowledged goes on probation, and the success of an attempt
    it was already running takes it off again (not the timeout, which is a
    minute here); the task it dropped runs again, on it, once cleared

    The worker is played by the test over a DEALER, so that it can be slow
    on purpose. This is the path where the broker main holds SUCCESS back
    (actors/ACTORS.md, "News that may wait") while FAILURE goes at once:
    probation must still hear them in the order they happened.
    =========================================================================
*/

#include "testutil_wire.h"
#include "testutil_cluster.h"

#define S_WAIT_MAX      5000    //  msec any one event may take at most

//  Receive the next message for the played worker, skipping nothing
static drover_msg_t *
s_worker_expect (zsock_t *worker, int id)
{
    return testutil_expect_msg (worker, id, S_WAIT_MAX);
}

//  Say one message as the played worker named name (a HELLO offers procs)
static void
s_worker_say_as (zsock_t *worker, const char *name, uint32_t procs, int id, uint64_t task,
                 uint32_t attempt)
{
    drover_msg_t *msg = testutil_played_msg (name, procs, id, task, attempt);
    testutil_send (worker, &msg);
}

//  Say one message as the played worker "slow", two procs
static void
s_worker_say (zsock_t *worker, int id, uint64_t task, uint32_t attempt)
{
    s_worker_say_as (worker, "slow", 2, id, task, attempt);
}

//  On probation after an unacknowledged offer, cleared by a success
static void
test_success_clears_probation (void **state)
{
    const char *flags [] = { "--set", "assign/ack-timeout=300",
                             "--set", "probation/timeout=60000",
                             "--set", "health/lost-after=30000", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    zsock_t *client = testutil_dealer (cluster);
    zsock_t *worker = testutil_dealer (cluster);
    s_worker_say (worker, DROVER_MSG_WORKER_HELLO, 0, 0);
    drover_msg_t *welcome = s_worker_expect (worker, DROVER_MSG_WORKER_WELCOME);
    drover_msg_destroy (&welcome);

    zsock_t *sub = testutil_cluster_sub (cluster, client, "worker.", "slow");
    drover_event_t event;

    //  Task A is taken at once; task B's offer is left unanswered
    uint64_t first = testutil_submit (client, testutil_submit_msg ("true", 0, 1,
                                                                   DROVER_SUBMIT_NOTIFY));
    drover_msg_t *offer = s_worker_expect (worker, DROVER_MSG_TASK_OFFER);
    assert_true (offer->task == first);
    s_worker_say (worker, DROVER_MSG_TASK_STARTED, first, offer->attempt);
    uint32_t first_attempt = offer->attempt;
    drover_msg_destroy (&offer);
    uint64_t second = testutil_submit (client, testutil_submit_msg ("true", 0, 1,
                                                                    DROVER_SUBMIT_NOTIFY));
    offer = s_worker_expect (worker, DROVER_MSG_TASK_OFFER);
    assert_true (offer->task == second);
    assert_int_equal (offer->attempt, 1);
    drover_msg_destroy (&offer);
    assert_true (testutil_await_event (sub, "worker.probation", "slow", &event, S_WAIT_MAX));
    assert_non_null (strstr (event.reason, "ack timeout"));

    //  A finishes: that success clears the worker long before the timeout
    s_worker_say (worker, DROVER_MSG_TASK_RESULT, first, first_attempt);
    assert_true (testutil_await_event (sub, "worker.cleared", "slow", &event, S_WAIT_MAX));
    assert_string_equal (event.reason, "success");
    drover_msg_t *done = testutil_expect_done (client, first, DROVER_TASK_SUCCEEDED, S_WAIT_MAX);
    drover_msg_destroy (&done);

    //  B's first attempt was called off when its offer went unanswered;
    //  requeued, it comes back as attempt 2 once the worker is cleared
    drover_msg_t *kill = s_worker_expect (worker, DROVER_MSG_TASK_KILL);
    assert_true (kill->task == second);
    assert_int_equal (kill->attempt, 1);
    drover_msg_destroy (&kill);
    drover_msg_t *ok = s_worker_expect (worker, DROVER_MSG_OK);      //  to A's result
    drover_msg_destroy (&ok);
    offer = s_worker_expect (worker, DROVER_MSG_TASK_OFFER);
    assert_true (offer->task == second);
    assert_int_equal (offer->attempt, 2);
    s_worker_say (worker, DROVER_MSG_TASK_RESULT, second, offer->attempt);
    drover_msg_destroy (&offer);
    done = testutil_expect_done (client, second, DROVER_TASK_SUCCEEDED, S_WAIT_MAX);
    assert_int_equal (done->attempt, 2);
    drover_msg_destroy (&done);

    zsock_destroy (&sub);
    zsock_destroy (&worker);
    zsock_destroy (&client);
    testutil_cluster_destroy (&cluster);
}

//  Register a played worker and wait for its WELCOME
static zsock_t *
s_worker_new (testutil_cluster_t *cluster, const char *name, uint32_t procs)
{
    zsock_t *worker = testutil_dealer (cluster);
    s_worker_say_as (worker, name, procs, DROVER_MSG_WORKER_HELLO, 0, 0);
    drover_msg_t *welcome = s_worker_expect (worker, DROVER_MSG_WORKER_WELCOME);
    drover_msg_destroy (&welcome);
    return worker;
}

//  An offer "slow" leaves unanswered (it is the least loaded worker, four
//  procs free to idle's two, so it is picked first) must put it on probation before
//  the task is placed again: attempt 2 goes to idle and succeeds there
static void
s_offer_left_unanswered (const char *lost_retries)
{
    const char *flags [] = { "--set", "assign/ack-timeout=200",
                             "--set", lost_retries,
                             "--set", "probation/timeout=60000",
                             "--set", "health/lost-after=30000", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    zsock_t *client = testutil_dealer (cluster);
    zsock_t *slow = s_worker_new (cluster, "slow", 4);
    zsock_t *idle = s_worker_new (cluster, "idle", 2);
    assert_true (testutil_wait_workers (client, 2, S_WAIT_MAX));

    uint64_t task = testutil_submit (client, testutil_submit_msg ("true", 0, 1,
                                                                  DROVER_SUBMIT_NOTIFY));
    drover_msg_t *offer = s_worker_expect (slow, DROVER_MSG_TASK_OFFER);
    assert_true (offer->task == task);
    assert_int_equal (offer->attempt, 1);
    drover_msg_destroy (&offer);

    //  Left unanswered: slow is told to drop it, idle gets attempt 2
    drover_msg_t *kill = s_worker_expect (slow, DROVER_MSG_TASK_KILL);
    assert_true (kill->task == task);
    drover_msg_destroy (&kill);
    offer = testutil_recv_msg (idle, S_WAIT_MAX);
    if (!offer) {
        drover_msg_t *instead = testutil_recv_msg (slow, S_WAIT_MAX);
        if (instead)
            fprintf (stderr, "slow, not idle, got %s attempt=%u\n",
                     drover_msg_name (instead->id), instead->attempt);
        drover_msg_destroy (&instead);
    }
    assert_non_null (offer);
    assert_int_equal (offer->id, DROVER_MSG_TASK_OFFER);
    assert_true (offer->task == task);
    assert_int_equal (offer->attempt, 2);
    s_worker_say_as (idle, "idle", 2, DROVER_MSG_TASK_STARTED, task, 2);
    s_worker_say_as (idle, "idle", 2, DROVER_MSG_TASK_RESULT, task, 2);
    drover_msg_destroy (&offer);
    drover_msg_t *done = testutil_expect_done (client, task, DROVER_TASK_SUCCEEDED, S_WAIT_MAX);
    assert_int_equal (done->attempt, 2);
    drover_msg_destroy (&done);

    zsock_destroy (&idle);
    zsock_destroy (&slow);
    zsock_destroy (&client);
    testutil_cluster_destroy (&cluster);
}

//  Probation takes effect before the requeue is placed: the on probation
//  worker is not offered attempt 2 while another sits idle
static void
test_benched_before_requeue (void **state)
{
    s_offer_left_unanswered ("assign/lost-retries=5");
}

//  An unacknowledged offer is the machine's failure, not the task's: with
//  lost-retries 0 the task still runs (it used to end FAILED as poison
//  without ever running)
static void
test_unacknowledged_offer_is_not_poison (void **state)
{
    s_offer_left_unanswered ("assign/lost-retries=0");
}

//  SUCCESS, FAILURE, SUCCESS for one worker inside one window of news the
//  main holds back: the FAILURE sends the held SUCCESS ahead of it, and the
//  second SUCCESS must still reach probation and clear the worker (it was
//  dropped as a repeat of the first: the worker stayed on probation for the
//  whole probation timeout, a minute here)
static void
test_success_after_failure_in_one_window (void **state)
{
    const int ack_timeout = 400;
    const char *flags [] = { "--set", "assign/ack-timeout=400",
                             "--set", "probation/timeout=60000",
                             "--set", "health/lost-after=30000", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    zsock_t *client = testutil_dealer (cluster);
    zsock_t *worker = s_worker_new (cluster, "slow", 2);
    zsock_t *sub = testutil_cluster_sub (cluster, client, "worker.", "slow");
    drover_event_t event;

    //  B is offered first and left unanswered; A, offered after it, is
    //  acknowledged shortly before B's ack deadline, so that the SUCCESS
    //  of A is still held by the main when B's FAILURE comes
    uint64_t second = testutil_submit (client, testutil_submit_msg ("true", 0, 1, 0));
    drover_msg_t *offer = s_worker_expect (worker, DROVER_MSG_TASK_OFFER);
    int64_t offered_at = zclock_mono ();
    assert_true (offer->task == second);
    drover_msg_destroy (&offer);
    uint64_t first = testutil_submit (client, testutil_submit_msg ("true", 0, 1,
                                                                   DROVER_SUBMIT_NOTIFY));
    offer = s_worker_expect (worker, DROVER_MSG_TASK_OFFER);
    assert_true (offer->task == first);
    uint32_t attempt = offer->attempt;
    drover_msg_destroy (&offer);
    //  Until 50 ms before B's deadline (half the longest hold), nothing is
    //  due to arrive here
    int64_t ack_at = offered_at + ack_timeout - 50;
    drover_msg_t *early = testutil_recv_msg (worker, (int) (ack_at - zclock_mono ()));
    assert_null (early);
    s_worker_say (worker, DROVER_MSG_TASK_STARTED, first, attempt);
    drover_msg_t *kill = s_worker_expect (worker, DROVER_MSG_TASK_KILL);
    assert_true (kill->task == second);
    drover_msg_destroy (&kill);
    //  At once, A ends: a success after the failure
    s_worker_say (worker, DROVER_MSG_TASK_RESULT, first, attempt);
    assert_true (testutil_await_event (sub, "worker.probation", "slow", &event, S_WAIT_MAX));
    assert_true (testutil_await_event (sub, "worker.cleared", "slow", &event, S_WAIT_MAX));
    assert_string_equal (event.reason, "success");
    drover_msg_t *done = testutil_expect_done (client, first, DROVER_TASK_SUCCEEDED, S_WAIT_MAX);
    drover_msg_destroy (&done);

    zsock_destroy (&sub);
    zsock_destroy (&worker);
    zsock_destroy (&client);
    testutil_cluster_destroy (&cluster);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_success_clears_probation),
        cmocka_unit_test (test_benched_before_requeue),
        cmocka_unit_test (test_unacknowledged_offer_is_not_poison),
        cmocka_unit_test (test_success_after_failure_in_one_window),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
