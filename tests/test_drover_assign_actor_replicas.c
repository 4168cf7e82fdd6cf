/*  =========================================================================
    test_drover_assign_actor_replicas - assign's replica tasks and affinity keys,
    through its pipe and its link

    Plays the reconciler and the main on the pipe (START, STOP, UP, LOST,
    RESTORE, LOADED, and clients' submits as MSG records) and schedq on the
    link, and reads back in order what the actor says: REPLICA to the
    reconciler on every change of a replica's task, PLACED and AFFINITY to
    schedq, the offers and kills to workers.
    =========================================================================
*/

#include "testutil_wire.h"
#include "testutil_actor.h"
#include "testutil_assignactor.h"
#include "drover_assign_actor.h"
#include "drover_store_actor.h"
#include "drover_actor.h"

//  Expect a command whose fields this test does not look at
static void
s_skip_command (zactor_t *actor, const char *command)
{
    zmsg_t *rest = testutil_expect (actor, command, 3000);
    zmsg_destroy (&rest);
}

//  Stop the actor and close the link
static void
s_actor_destroy (zactor_t **actor_p)
{
    //  What a test left unread must not be read by the next (its actor
    //  may have the same address)
    zmsg_t *left;
    while ((left = testutil_actor_recv (*actor_p, 0)))
        zmsg_destroy (&left);
    testutil_actor_destroy (actor_p);
    zsock_destroy (&testutil_assignactor_link);
}

//  Expect a command whose frames, read as text, are the given strings
//  (NULL-terminated), on the link or the pipe
static void
s_expect_frames (zactor_t *actor, bool on_link, const char *command, ...)
{
    zmsg_t *msg = on_link? testutil_expect_link (testutil_assignactor_link, command, 3000)
                         : testutil_expect (actor, command, 3000);
    va_list args;
    va_start (args, command);
    testutil_assert_frames (&msg, args);
    va_end (args);
}

//  Expect REPLICA task service slot worker attempt state end why
static void
s_expect_replica (zactor_t *actor, uint64_t task, uint32_t slot, const char *worker,
                  uint32_t attempt, int state, int end, const char *why)
{
    char id [24], slot_text [12], attempt_text [12], state_text [12], end_text [12];
    snprintf (id, sizeof id, "%" PRIu64, task);
    snprintf (slot_text, sizeof slot_text, "%u", slot);
    snprintf (attempt_text, sizeof attempt_text, "%u", attempt);
    snprintf (state_text, sizeof state_text, "%d", state);
    snprintf (end_text, sizeof end_text, "%d", end);
    s_expect_frames (actor, false, "REPLICA", id, "web", slot_text, worker, attempt_text,
                     state_text, end_text, why, NULL);
}

//  Say UP for a worker with nothing running
static void
s_up (zactor_t *actor, const char *worker, const byte *route, size_t route_size)
{
    zframe_t *route_frame = zframe_new (route, route_size);
    zframe_t *running_frame = zframe_new (NULL, 0);
    zsock_send (actor, "ssf848sf", "UP", worker, route_frame, (uint64_t) 1, (uint32_t) 4,
                (uint64_t) 1 << 30, "", running_frame);
    zframe_destroy (&route_frame);
    zframe_destroy (&running_frame);
}

//  The reconciler's submit of replica slot of service "web"
static drover_msg_t *
s_replica_msg (uint32_t slot)
{
    drover_msg_t *msg = testutil_submit_msg ("sleep 100", 0, 2, 0);
    msg->mem = 4096;
    strcpy (msg->service, "web");
    msg->slot = slot;
    return msg;
}

//  Say START worker submit, as the reconciler does
static void
s_start (zactor_t *actor, const char *worker, uint32_t slot)
{
    drover_msg_t *msg = s_replica_msg (slot);
    zframe_t *submit = drover_msg_encode (msg);
    assert_non_null (submit);
    zsock_send (actor, "ssf", "START", worker, submit);
    zframe_destroy (&submit);
    drover_msg_destroy (&msg);
}

//  Start a replica on alpha (up) and read what that says; returns its id
static uint64_t
s_start_on_alpha (zactor_t *actor, uint32_t slot, uint64_t task)
{
    s_start (actor, "alpha", slot);
    testutil_assignactor_expect_event (actor, "task.queued", task, 0);
    drover_msg_t *offer = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_ALPHA, "alpha",
                                                            DROVER_MSG_TASK_OFFER);
    assert_int_equal (offer->task, task);
    assert_int_equal (offer->attempt, 1);
    assert_int_equal (offer->procs, 2);
    drover_msg_destroy (&offer);
    testutil_assignactor_expect_event (actor, "task.assigned", task, 1);
    s_expect_replica (actor, task, slot, "alpha", 1, DROVER_TASK_ASSIGNED, 0, "");
    char id [24];
    snprintf (id, sizeof id, "%" PRIu64, task);
    s_expect_frames (actor, true, "PLACED", id, "alpha", "2", "4096", "", "", "", "0", NULL);
    return task;
}


//  ---------------------------------------------------------------------

//  START on an up worker: offered, PLACED, REPLICA on each change; STOP
//  kills it and its end says the stop's reason
static void
test_start_and_stop (void **state)
{
    zactor_t *actor = testutil_assignactor_new (5000);
    s_up (actor, "alpha", TESTUTIL_ROUTE_ALPHA);
    uint64_t task = s_start_on_alpha (actor, 3, 1);
    //  It runs
    drover_msg_t *started = drover_msg_new (DROVER_MSG_TASK_STARTED);
    strcpy (started->worker, "alpha");
    started->task = task;
    started->attempt = 1;
    testutil_hand_bytes (actor, TESTUTIL_ROUTE_ALPHA, started);
    s_skip_command (actor, "HEARD");
    testutil_assignactor_expect_event (actor, "task.running", task, 1);
    s_expect_replica (actor, task, 3, "alpha", 1, DROVER_TASK_RUNNING, 0, "");
    s_skip_command (actor, "SUCCESS");
    //  Stopped: a kill; its result ends it CANCELLED with the reason
    zsock_send (actor, "s8s", "STOP", task, "scaled down");
    drover_msg_t *kill = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_ALPHA, "alpha",
                                                           DROVER_MSG_TASK_KILL);
    assert_int_equal (kill->task, task);
    drover_msg_destroy (&kill);
    drover_msg_t *result = drover_msg_new (DROVER_MSG_TASK_RESULT);
    strcpy (result->worker, "alpha");
    result->task = task;
    result->attempt = 1;
    result->outcome = DROVER_OUTCOME_SIGNALLED;
    result->signal = 15;
    testutil_hand_bytes (actor, TESTUTIL_ROUTE_ALPHA, result);
    s_skip_command (actor, "HEARD");
    drover_msg_t *ok = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_ALPHA, "alpha",
                                                         DROVER_MSG_OK);
    drover_msg_destroy (&ok);
    s_expect_frames (actor, true, "FREE", "1", NULL);
    s_skip_command (actor, "SUCCESS");
    testutil_assignactor_expect_event (actor, "task.cancelled", task, 1);
    s_expect_replica (actor, task, 3, "alpha", 1, DROVER_TASK_CANCELLED, DROVER_END_CANCELLED,
                      "scaled down");
    s_actor_destroy (&actor);
}

//  START on a worker not up: FAILED at once; a lost worker's replica ends
//  FAILED (LOST), never queued again
static void
test_not_up_and_lost (void **state)
{
    zactor_t *actor = testutil_assignactor_new (5000);
    s_start (actor, "alpha", 0);
    testutil_assignactor_expect_event (actor, "task.queued", 1, 0);
    testutil_assignactor_expect_event (actor, "task.failed", 1, 0);
    s_expect_replica (actor, 1, 0, "alpha", 0, DROVER_TASK_FAILED, DROVER_END_FAILED,
                      "worker not up");
    s_up (actor, "alpha", TESTUTIL_ROUTE_ALPHA);
    uint64_t task = s_start_on_alpha (actor, 1, 2);
    zsock_send (actor, "sss", "LOST", "alpha", "silent");
    testutil_assignactor_expect_event (actor, "task.failed", task, 1);
    s_expect_replica (actor, task, 1, "alpha", 1, DROVER_TASK_FAILED, DROVER_END_LOST,
                      "worker lost: silent");
    //  Nothing was queued: the next thing on the link is what a client's
    //  submit causes
    drover_msg_t *submit = testutil_submit_msg ("true", 0, 1, 0);
    testutil_hand_bytes (actor, TESTUTIL_ROUTE_CLIENT, submit);
    drover_msg_t *accepted = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_CLIENT, "",
                                                               DROVER_MSG_TASK_ACCEPTED);
    drover_msg_destroy (&accepted);
    testutil_assignactor_expect_event (actor, "task.queued", 3, 0);
    s_expect_frames (actor, true, "QUEUE", "3", "0", "1", "0", "", NULL);
    s_actor_destroy (&actor);
}

//  A client's submit naming a service is refused 400; one with an
//  affinity key goes to schedq as AFFINITY, never on a lease, and again so
//  when it is requeued
static void
test_client_service_refused_and_affinity (void **state)
{
    zactor_t *actor = testutil_assignactor_new (5000);
    drover_msg_t *submit = s_replica_msg (0);
    submit->seq = 7;
    testutil_hand_bytes (actor, TESTUTIL_ROUTE_CLIENT, submit);
    drover_msg_t *reply = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_CLIENT, "",
                                                            DROVER_MSG_ERROR);
    assert_int_equal (reply->code, DROVER_CODE_BAD_REQUEST);
    assert_int_equal (reply->seq, 7);
    drover_msg_destroy (&reply);

    s_up (actor, "alpha", TESTUTIL_ROUTE_ALPHA);
    //  A lease on alpha, held once a second one's RETURN comes back
    zsock_send (testutil_assignactor_link, "s8s48s", "LEASE", (uint64_t) 1, "alpha", (uint32_t) 8,
                (uint64_t) 1 << 30, "");
    zsock_send (testutil_assignactor_link, "s8s48s", "LEASE", (uint64_t) 999, "alpha",
                (uint32_t) 8, (uint64_t) 1,
                "");
    zsock_send (testutil_assignactor_link, "s8", "REVOKE", (uint64_t) 999);
    s_expect_frames (actor, true, "RETURN", "999", NULL);
    submit = testutil_submit_msg ("true", 5, 1, 0);
    submit->affinity = strdup ("dataset-7");
    testutil_hand_bytes (actor, TESTUTIL_ROUTE_CLIENT, submit);
    drover_msg_t *accepted = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_CLIENT, "",
                                                               DROVER_MSG_TASK_ACCEPTED);
    uint64_t task = accepted->task;
    drover_msg_destroy (&accepted);
    testutil_assignactor_expect_event (actor, "task.queued", task, 0);
    char id [24];
    snprintf (id, sizeof id, "%" PRIu64, task);
    s_expect_frames (actor, true, "AFFINITY", id, "5", "1", "0", "", "dataset-7", "", "", "0", NULL);
    testutil_say_assign (testutil_assignactor_link, task, "alpha");
    drover_msg_t *offer = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_ALPHA, "alpha",
                                                            DROVER_MSG_TASK_OFFER);
    drover_msg_destroy (&offer);
    zsock_send (actor, "sss", "LOST", "alpha", "silent");
    s_expect_frames (actor, true, "RETURN", "1", NULL);
    s_expect_frames (actor, true, "AFFINITY", id, "5", "1", "0", "", "dataset-7", "", "", "0", NULL);
    s_actor_destroy (&actor);
}

//  A replica the store kept, restored: after LOADED, one REPLICA for it;
//  once its grace ends with its worker not back, it ends FAILED (LOST),
//  not queued
static void
test_restored_replica_said (void **state)
{
    zactor_t *actor = testutil_assignactor_new (5000);
    zsock_send (actor, "s44444444", "CONFIGURE", 5000, 5, 1000, 1000, 1u << 30, 1u << 28,
                DROVER_DURABILITY_OFF, 50);             //  a grace of 50 msec
    drover_change_t *change = drover_change_new ("task.restored", 5);
    change->state = DROVER_TASK_RUNNING;
    change->attempt = 1;
    strcpy (change->worker, "alpha");
    change->submit = s_replica_msg (2);
    change->submit->task = 5;
    drover_outbox_t *outbox = drover_outbox_new ();
    drover_outbox_say_change (outbox, DROVER_RECORD_RESTORE, &change);
    testutil_say_batch (zactor_sock (actor), &outbox);
    zsock_send (actor, "s88", "LOADED", (uint64_t) 6, (uint64_t) 1);
    //  RESTORED may come before or after it, by how the turns fell
    zmsg_t *msg = testutil_actor_recv (actor, 3000);
    assert_non_null (msg);
    char *word = zmsg_popstr (msg);
    if (streq (word, "RESTORED")) {
        zmsg_destroy (&msg);
        msg = testutil_expect (actor, "REPLICA", 3000);
    }
    else
        assert_string_equal (word, "REPLICA");
    zstr_free (&word);
    testutil_pop_check (msg, "5");
    testutil_pop_check (msg, "web");
    testutil_pop_check (msg, "2");
    testutil_pop_check (msg, "alpha");
    testutil_pop_check (msg, "1");
    char state_text [12];
    snprintf (state_text, sizeof state_text, "%d", DROVER_TASK_RUNNING);
    testutil_pop_check (msg, state_text);
    testutil_pop_check (msg, "0");
    testutil_pop_check (msg, "restored");
    zmsg_destroy (&msg);
    //  The grace ends without alpha: FAILED (LOST), never queued
    msg = testutil_actor_recv (actor, 3000);
    assert_non_null (msg);
    word = zmsg_popstr (msg);
    if (streq (word, "RESTORED")) {
        zmsg_destroy (&msg);
        msg = testutil_expect (actor, "CHANGE", 3000);
    }
    else
        assert_string_equal (word, "CHANGE");
    zstr_free (&word);
    testutil_pop_check (msg, "task.failed");
    zmsg_destroy (&msg);
    s_expect_replica (actor, 5, 2, "alpha", 1, DROVER_TASK_FAILED, DROVER_END_LOST,
                      "its worker did not come back after a restart");
    s_actor_destroy (&actor);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_start_and_stop),
        cmocka_unit_test (test_not_up_and_lost),
        cmocka_unit_test (test_client_service_refused_and_affinity),
        cmocka_unit_test (test_restored_replica_said),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
