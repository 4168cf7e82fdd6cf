/*  =========================================================================
    test_compat_level6 - peers of the release before level 7 (protocol
    level 6, drover 0.6) keep working against this broker, which speaks
    level 7, counted at the wire:
    - a level-6 worker's WELCOME has the three fields level 6 knows (no
      ack_timeout); a level-7 worker's tells the broker's ack-timeout;
    - a level-6 worker that says STARTED and then RESULT runs a level-6
      client's task, which the client sees end once.
    Requests are encoded at level 6 as a peer of that release would.
    =========================================================================
*/

#include "testutil_cluster.h"
#include "testutil_peer.h"
#include <msgpack.h>

//  Broker flags: played workers never heartbeat; an ack-timeout to see
static const char *s_flags [] = {
    "--set", "health/lost-after=60000", "--set", "assign/ack-timeout=7000", NULL
};

//  The number of fields (elements after the header's 4) of a frame
static size_t
s_fields (zframe_t *frame)
{
    msgpack_unpacked unpacked;
    msgpack_unpacked_init (&unpacked);
    assert_int_equal (msgpack_unpack_next (&unpacked, (const char *) zframe_data (frame),
                                           zframe_size (frame), NULL), MSGPACK_UNPACK_SUCCESS);
    size_t fields = unpacked.data.via.array.size - 4;
    msgpack_unpacked_destroy (&unpacked);
    return fields;
}

//  Say HELLO as a worker of level; return its DEALER and the WELCOME's
//  frame as it came
static zsock_t *
s_hello (testutil_cluster_t *cluster, const char *id, int level, zframe_t **welcome_p)
{
    zsock_t *worker = zsock_new_dealer (cluster->endpoint);
    assert_non_null (worker);
    drover_msg_t *hello = testutil_played_msg (id, 1, DROVER_MSG_WORKER_HELLO, 0, 0);
    hello->level = (uint16_t) level;
    testutil_peer_send_at (worker, &hello, level);
    *welcome_p = testutil_peer_expect_frame (worker, DROVER_MSG_WORKER_WELCOME);
    return worker;
}

//  WELCOME as each level has it: three fields for level 6, four with the
//  ack-timeout for level 7
static void
test_welcome_by_level (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (s_flags);
    zframe_t *frame;
    zsock_t *elder = s_hello (cluster, "elder", 6, &frame);
    assert_int_equal (s_fields (frame), 3);
    drover_msg_t *welcome = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (welcome, zframe_data (frame), zframe_size (frame)), 0);
    assert_int_equal (welcome->ack_timeout, 0);
    assert_int_equal (welcome->heartbeat, 1000);
    zframe_destroy (&frame);
    zsock_t *young = s_hello (cluster, "young", DROVER_MSG_LEVEL, &frame);
    assert_int_equal (s_fields (frame), 4);
    assert_int_equal (drover_msg_decode (welcome, zframe_data (frame), zframe_size (frame)), 0);
    assert_int_equal (welcome->ack_timeout, 7000);
    zframe_destroy (&frame);
    drover_msg_destroy (&welcome);
    zsock_destroy (&elder);
    zsock_destroy (&young);
    testutil_cluster_destroy (&cluster);
}

//  A level-6 worker runs a level-6 client's task: OFFER, STARTED, RESULT
//  answered OK; the client's TASK DONE comes once, SUCCEEDED
static void
test_level_six_runs_a_task (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (s_flags);
    zsock_t *worker = testutil_peer_worker (cluster->endpoint, "elder", 6, "", NULL);
    zsock_t *client = testutil_peer_client (cluster->endpoint, 6);
    drover_msg_t *submit = testutil_submit_msg ("true", 0, 1, DROVER_SUBMIT_NOTIFY);
    submit->seq = 7;
    testutil_peer_send_at (client, &submit, 6);
    drover_msg_t *accepted = testutil_peer_expect_at (client, DROVER_MSG_TASK_ACCEPTED, 6);
    uint64_t task = accepted->task;
    drover_msg_destroy (&accepted);

    drover_msg_t *offer = testutil_peer_expect_at (worker, DROVER_MSG_TASK_OFFER, 6);
    assert_true (offer->task == task);
    drover_msg_t *started = testutil_played_msg ("elder", 1, DROVER_MSG_TASK_STARTED, task,
                                                 offer->attempt);
    testutil_peer_send_at (worker, &started, 6);
    drover_msg_t *result = testutil_result_msg ("elder", task, offer->attempt,
                                                DROVER_OUTCOME_EXITED, 0);
    result->seq = 11;
    testutil_peer_send_at (worker, &result, 6);
    drover_msg_t *ok = testutil_peer_expect_at (worker, DROVER_MSG_OK, 6);
    assert_int_equal (ok->seq, 11);
    drover_msg_destroy (&ok);
    drover_msg_destroy (&offer);

    drover_msg_t *done = testutil_peer_expect_at (client, DROVER_MSG_TASK_DONE, 6);
    assert_true (done->task == task);
    assert_int_equal (done->state, DROVER_TASK_SUCCEEDED);
    drover_msg_destroy (&done);
    //  Once: nothing more for this client
    drover_msg_t *again = testutil_recv_msg (client, 300);
    assert_true (again == NULL || again->id != DROVER_MSG_TASK_DONE);
    drover_msg_destroy (&again);
    zsock_destroy (&client);
    zsock_destroy (&worker);
    testutil_cluster_destroy (&cluster);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_welcome_by_level),
        cmocka_unit_test (test_level_six_runs_a_task),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
