/*  =========================================================================
    test_result_fencing - through a real broker: reports about an attempt
    count only from the connection of the worker's current registration

    A TASK STARTED or RESULT naming the right worker id and attempt but sent
    from another connection was accepted, and its forged output became the
    task's result; a late result from a worker declared LOST was answered
    409 as if the worker were still registered. Both get ERROR 401 now
    (PROTOCOL.md §7.7, §7.8). The worker and the forger are raw DEALERs
    played by the test.
    =========================================================================
*/

#include "testutil_wire.h"
#include "testutil_cluster.h"

#define S_WAIT_MAX      5000    //  msec any one message may take at most

//  Receive the next message on a played peer and check its id
static drover_msg_t *
s_expect (zsock_t *peer, int id)
{
    return testutil_expect_msg (peer, id, S_WAIT_MAX);
}

//  Send a report naming worker "fenced" (HELLO, STARTED or RESULT) from peer
static void
s_say (zsock_t *peer, int id, uint64_t task, uint32_t attempt, uint32_t seq, const char *out)
{
    drover_msg_t *msg = testutil_played_msg ("fenced", 1, id, task, attempt);
    msg->seq = seq;
    if (out) {
        msg->out_size = strlen (out);
        msg->out = (byte *) malloc (msg->out_size);
        memcpy (msg->out, out, msg->out_size);
    }
    testutil_send (peer, &msg);
}

//  Expect ERROR code echoing seq on peer
static void
s_expect_error (zsock_t *peer, int code, uint32_t seq)
{
    drover_msg_t *reply = s_expect (peer, DROVER_MSG_ERROR);
    assert_int_equal (reply->code, code);
    assert_int_equal (reply->seq, seq);
    drover_msg_destroy (&reply);
}

//  Register "fenced" on worker, submit one task, return its offer
static drover_msg_t *
s_register_and_offer (zsock_t *worker, zsock_t *client)
{
    s_say (worker, DROVER_MSG_WORKER_HELLO, 0, 0, 1, NULL);
    drover_msg_t *welcome = s_expect (worker, DROVER_MSG_WORKER_WELCOME);
    drover_msg_destroy (&welcome);
    uint64_t task = testutil_submit (client, testutil_submit_msg ("true", 0, 1,
                                                                  DROVER_SUBMIT_NOTIFY));
    drover_msg_t *offer = s_expect (worker, DROVER_MSG_TASK_OFFER);
    assert_true (offer->task == task);
    return offer;
}

//  Another connection names the worker and its attempt: STARTED and RESULT
//  get 401, and the real worker's result is the task's
static void
test_report_from_another_connection_is_refused (void **state)
{
    const char *flags [] = { "--set", "health/lost-after=30000", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    zsock_t *client = testutil_dealer (cluster);
    zsock_t *worker = testutil_dealer (cluster);
    zsock_t *forger = testutil_dealer (cluster);
    drover_msg_t *offer = s_register_and_offer (worker, client);
    uint64_t task = offer->task;
    uint32_t attempt = offer->attempt;
    drover_msg_destroy (&offer);

    s_say (forger, DROVER_MSG_TASK_STARTED, task, attempt, 5, NULL);
    s_expect_error (forger, DROVER_CODE_NOT_REGISTERED, 5);
    s_say (worker, DROVER_MSG_TASK_STARTED, task, attempt, 6, NULL);
    char running_on [DROVER_ID_MAX + 1];
    assert_true (testutil_wait_running (client, task, running_on, S_WAIT_MAX));
    assert_string_equal (running_on, "fenced");
    s_say (forger, DROVER_MSG_TASK_RESULT, task, attempt, 7, "forged");
    s_expect_error (forger, DROVER_CODE_NOT_REGISTERED, 7);

    s_say (worker, DROVER_MSG_TASK_RESULT, task, attempt, 8, "real");
    drover_msg_t *ok = s_expect (worker, DROVER_MSG_OK);
    assert_int_equal (ok->seq, 8);
    drover_msg_destroy (&ok);
    drover_msg_t *done = testutil_expect_done (client, task, DROVER_TASK_SUCCEEDED, S_WAIT_MAX);
    assert_int_equal (done->out_size, 4);
    assert_memory_equal (done->out, "real", 4);
    drover_msg_destroy (&done);

    zsock_destroy (&forger);
    zsock_destroy (&worker);
    zsock_destroy (&client);
    testutil_cluster_destroy (&cluster);
}

//  A worker declared LOST is no longer registered: its late result gets
//  401 (so it registers again), not 409
static void
test_late_result_from_lost_worker_is_refused (void **state)
{
    const char *flags [] = { "--set", "health/lost-after=1000",
                             "--set", "health/heartbeat=200", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    zsock_t *client = testutil_dealer (cluster);
    zsock_t *worker = testutil_dealer (cluster);
    zsock_t *sub = zsock_new_sub (cluster->events, "worker.lost");
    assert_non_null (sub);
    drover_msg_t *offer = s_register_and_offer (worker, client);
    uint64_t task = offer->task;
    uint32_t attempt = offer->attempt;
    drover_msg_destroy (&offer);
    s_say (worker, DROVER_MSG_TASK_STARTED, task, attempt, 2, NULL);

    //  No heartbeat: lost after a second (the subscription has that long
    //  to take effect)
    drover_event_t event;
    assert_true (testutil_next_event (sub, &event, S_WAIT_MAX));
    assert_string_equal (event.topic, "worker.lost");
    assert_string_equal (event.worker, "fenced");
    s_say (worker, DROVER_MSG_TASK_RESULT, task, attempt, 3, "late");
    s_expect_error (worker, DROVER_CODE_NOT_REGISTERED, 3);

    zsock_destroy (&sub);
    zsock_destroy (&worker);
    zsock_destroy (&client);
    testutil_cluster_destroy (&cluster);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_report_from_another_connection_is_refused),
        cmocka_unit_test (test_late_result_from_lost_worker_is_refused),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
