/*  =========================================================================
    test_compat_level3 - peers of the release before sharing (protocol
    level 3) keep working against this broker, which speaks level 4:
    - a level-3 worker registers, is offered a plain task without any
      level-4 field (no devices), and its report ends it;
    - a task asking devices never goes to it (it declared none), and runs
      on a level-4 worker that has them;
    - a level-3 client submits, waits, and is told an OOM kill as FAILED
      (end 2), the end its level knows, while a level-4 client is told OOM.
    Every message is encoded at level 3 as a peer of that release would,
    and what comes back is checked to need no more than level 3.
    =========================================================================
*/

#include "testutil_cluster.h"
#include "testutil_peer.h"
#include "drover_devicelist.h"

//  Submit a NOTIFY task at level (devices "" none); returns its id
static uint64_t
s_submit_at (zsock_t *client, int level, const char *devices)
{
    drover_msg_t *submit = testutil_submit_msg ("true", 0, 1, DROVER_SUBMIT_NOTIFY);
    int count = drover_devicelist_parse (devices, submit->devices, NULL);
    assert_true (count >= 0);
    submit->ndevices = (uint32_t) count;
    submit->seq = 7;
    testutil_peer_send_at (client, &submit, level);
    drover_msg_t *accepted = testutil_peer_expect_at (client, DROVER_MSG_TASK_ACCEPTED, level);
    uint64_t task = accepted->task;
    drover_msg_destroy (&accepted);
    return task;
}

//  Take the offer on worker, acknowledge it and report outcome; returns
//  the offer (the caller destroys it)
static drover_msg_t *
s_run_offer (zsock_t *worker, const char *id, int level, int outcome)
{
    drover_msg_t *offer = testutil_peer_expect_at (worker, DROVER_MSG_TASK_OFFER, level);
    drover_msg_t *started = testutil_played_msg (id, 2, DROVER_MSG_TASK_STARTED, offer->task,
                                                 offer->attempt);
    testutil_peer_send_at (worker, &started, level);
    drover_msg_t *result = testutil_result_msg (id, offer->task, offer->attempt, outcome, 0);
    if (outcome == DROVER_OUTCOME_OOM) {
        result->exit_code = -1;
        result->signal = 9;
    }
    testutil_peer_send_at (worker, &result, level);
    return offer;
}

//  A level-3 worker and client work; devices go to the level-4 worker
//  that has them; an OOM kill is told FAILED to the level-3 client
static void
test_level3_peers_keep_working (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    zsock_t *elder = testutil_peer_worker (cluster->endpoint, "elder", 3, "", NULL);
    zsock_t *client = testutil_peer_client (cluster->endpoint, 3);
    //  A plain task runs on the level-3 worker, offered without devices
    uint64_t plain = s_submit_at (client, 3, "");
    drover_msg_t *offer = s_run_offer (elder, "elder", 3, DROVER_OUTCOME_EXITED);
    assert_int_equal (offer->task, plain);
    assert_int_equal (offer->ndevices, 0);
    drover_msg_destroy (&offer);
    drover_msg_t *done = testutil_peer_expect_at (client, DROVER_MSG_TASK_DONE, 3);
    assert_int_equal (done->task, plain);
    assert_int_equal (done->state, DROVER_TASK_SUCCEEDED);
    drover_msg_destroy (&done);

    //  A task asking a GPU (from a level-4 client) waits for a worker
    //  that has one: never the level-3 worker, which declared none
    zsock_t *modern = testutil_peer_client (cluster->endpoint, DROVER_MSG_LEVEL);
    uint64_t gpu = s_submit_at (modern, DROVER_MSG_LEVEL, "gpu=1");
    zsock_t *young = testutil_peer_worker (cluster->endpoint, "young", DROVER_MSG_LEVEL, "gpu=1", NULL);
    offer = s_run_offer (young, "young", DROVER_MSG_LEVEL, DROVER_OUTCOME_EXITED);
    assert_int_equal (offer->task, gpu);
    assert_int_equal (offer->ndevices, 1);
    assert_string_equal (offer->devices [0].name, "gpu");
    drover_msg_destroy (&offer);
    done = testutil_peer_expect_at (modern, DROVER_MSG_TASK_DONE, DROVER_MSG_LEVEL);
    assert_int_equal (done->state, DROVER_TASK_SUCCEEDED);
    drover_msg_destroy (&done);
    drover_msg_t *stray;        //  its report's acknowledgements, never an offer
    while ((stray = testutil_recv_msg (elder, 0))) {
        assert_int_not_equal (stray->id, DROVER_MSG_TASK_OFFER);
        drover_msg_destroy (&stray);
    }

    //  An OOM kill on the level-4 worker: the level-3 client hears FAILED
    //  (2), a level-4 client OOM (11)
    zsock_destroy (&elder);
    uint64_t hog = s_submit_at (client, 3, "");
    offer = s_run_offer (young, "young", DROVER_MSG_LEVEL, DROVER_OUTCOME_OOM);
    assert_int_equal (offer->task, hog);
    drover_msg_destroy (&offer);
    done = testutil_peer_expect_at (client, DROVER_MSG_TASK_DONE, 3);
    assert_int_equal (done->task, hog);
    assert_int_equal (done->state, DROVER_TASK_FAILED);
    assert_int_equal (done->end, DROVER_END_FAILED);
    drover_msg_destroy (&done);
    drover_msg_t *wait = drover_msg_new (DROVER_MSG_TASK_WAIT);
    wait->ntasks = 1;
    wait->tasks = (uint64_t *) zmalloc (sizeof (uint64_t));
    wait->tasks [0] = hog;
    wait->seq = 9;
    testutil_peer_send_at (modern, &wait, DROVER_MSG_LEVEL);
    done = testutil_peer_expect_at (modern, DROVER_MSG_TASK_DONE, DROVER_MSG_LEVEL);
    assert_int_equal (done->end, DROVER_END_OOM);
    drover_msg_destroy (&done);
    zsock_destroy (&young);
    zsock_destroy (&client);
    zsock_destroy (&modern);
    testutil_cluster_destroy (&cluster);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_level3_peers_keep_working),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
