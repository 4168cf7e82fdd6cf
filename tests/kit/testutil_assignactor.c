/*  =========================================================================
    testutil_assignactor - playing the main and schedq to the assign actor
    (test_drover_assign_actor): testutil_assignactor.h
    =========================================================================
*/

#include "testutil_assignactor.h"
#include "testutil_wire.h"
#include "testutil_actor.h"
#include "drover_assign_actor.h"
#include "drover_store_actor.h"
#include "drover_actor.h"

//  The test's end of the actor's link: it plays schedq there (ACTORS.md,
//  "The link"), as it plays the main on the pipe
zsock_t *testutil_assignactor_link = NULL;

//  Start the actor, its link bound by the test, with an ack timeout (msec)
zactor_t *
testutil_assignactor_new (uint32_t ack_timeout)
{
    char endpoint [64];
    testutil_assignactor_link = testutil_link_bind (endpoint, sizeof endpoint);
    zactor_t *actor = zactor_new (drover_assign_actor, endpoint);
    assert_non_null (actor);
    zsock_send (actor, "s44444444", "CONFIGURE", ack_timeout, 5, 1000, 1000, 1u << 30, 1u << 28,
                DROVER_DURABILITY_OFF, 5000);
    return actor;
}

//  Stop the actor and close the link
void
testutil_assignactor_destroy (zactor_t **actor_p)
{
    testutil_actor_destroy (actor_p);
    zsock_destroy (&testutil_assignactor_link);
}

//  Hand a message to the actor, as the main does; the actor owns it now
void
testutil_assignactor_hand (zactor_t *actor, const byte *route, size_t route_size, drover_msg_t *msg)
{
    testutil_hand_bytes (actor, route, route_size, msg);
}

//  Expect a command whose frames, read as text, are the given strings
//  (NULL-terminated list)
void
testutil_assignactor_expect_frames (zactor_t *actor, const char *command, ...)
{
    //  What assign says to schedq comes on the link, the rest on the pipe
    bool on_link = streq (command, "QUEUE") || streq (command, "DEQUEUE")
                || streq (command, "FREE") || streq (command, "PROBATION")
                || streq (command, "TAKE") || streq (command, "RETURN")
                || streq (command, "SETTLED");
    zmsg_t *msg = on_link? testutil_expect_link (testutil_assignactor_link, command, 3000)
                         : testutil_expect (actor, command, 3000);
    va_list args;
    va_start (args, command);
    testutil_assert_frames (&msg, args);
    va_end (args);
}

//  Expect a SEND to route for worker (or "" for a client); return the
//  decoded payload (caller destroys)
drover_msg_t *
testutil_assignactor_expect_send (zactor_t *actor, const byte *route, size_t route_size,
                                  const char *worker, int id)
{
    return testutil_assignactor_expect_said (actor, "SEND", route, route_size, worker, id);
}

//  Expect a SEND or a REPLY (word) to route for worker; return the decoded
//  payload (caller destroys)
drover_msg_t *
testutil_assignactor_expect_said (zactor_t *actor, const char *word, const byte *route,
                                  size_t route_size, const char *worker, int id)
{
    zmsg_t *msg = testutil_expect (actor, word, 3000);
    assert_int_equal (zmsg_size (msg), 3);
    zframe_t *frame = zmsg_pop (msg);
    assert_int_equal (zframe_size (frame), route_size);
    assert_memory_equal (zframe_data (frame), route, route_size);
    zframe_destroy (&frame);
    frame = zmsg_pop (msg);
    drover_msg_t *payload = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (payload, zframe_data (frame), zframe_size (frame)), 0);
    zframe_destroy (&frame);
    char *text = zmsg_popstr (msg);
    assert_string_equal (text, worker);
    zstr_free (&text);
    zmsg_destroy (&msg);
    if (payload->id != id)
        fprintf (stderr, "expected %s, got %s\n", drover_msg_name (id), drover_msg_name (payload->id));
    assert_int_equal (payload->id, id);
    return payload;
}

//  Expect HEARD worker route: a report came from the worker's registration
void
testutil_assignactor_expect_heard (zactor_t *actor, const char *worker, const byte *route,
                                   size_t route_size)
{
    zmsg_t *msg = testutil_expect (actor, "HEARD", 3000);
    assert_int_equal (zmsg_size (msg), 2);
    testutil_pop_check (msg, worker);
    zframe_t *frame = zmsg_pop (msg);
    assert_int_equal (zframe_size (frame), route_size);
    assert_memory_equal (zframe_data (frame), route, route_size);
    zframe_destroy (&frame);
    zmsg_destroy (&msg);
}

//  Expect the CHANGE (the event, for the store) about a task with this
//  topic and attempt; returns the rest: worker reason state submit done
zmsg_t *
testutil_assignactor_expect_change (zactor_t *actor, const char *topic, uint64_t task,
                                    uint32_t attempt)
{
    zmsg_t *msg = testutil_expect (actor, "CHANGE", 3000);
    testutil_pop_check (msg, topic);
    assert_int_equal (drover_actor_pop_number (msg), task);
    assert_int_equal (drover_actor_pop_number (msg), attempt);
    return msg;
}

//  Expect the CHANGE about a task with this topic and attempt
void
testutil_assignactor_expect_event (zactor_t *actor, const char *topic, uint64_t task,
                                   uint32_t attempt)
{
    zmsg_t *msg = testutil_assignactor_expect_change (actor, topic, task, attempt);
    zmsg_destroy (&msg);
}

//  A TASK SUBMIT of "sh -c echo hi"
drover_msg_t *
testutil_assignactor_submit_msg (uint32_t seq, uint32_t flags)
{
    drover_msg_t *msg = testutil_submit_msg ("echo hi", 3, 2, flags);
    msg->seq = seq;
    msg->mem = 4096;
    return msg;
}

//  Submit a task and read what that says; returns the task id
uint64_t
testutil_assignactor_submit (zactor_t *actor, uint32_t seq, uint32_t flags)
{
    testutil_assignactor_hand (actor, TESTUTIL_ROUTE_CLIENT,
                               testutil_assignactor_submit_msg (seq, flags));
    drover_msg_t *reply = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_CLIENT, "",
                                                            DROVER_MSG_TASK_ACCEPTED);
    assert_int_equal (reply->seq, seq);
    uint64_t task = reply->task;
    assert_true (task > 0);
    drover_msg_destroy (&reply);
    testutil_assignactor_expect_event (actor, "task.queued", task, 0);
    char id [24];
    snprintf (id, sizeof id, "%" PRIu64, task);
    testutil_assignactor_expect_frames (actor, "QUEUE", id, "3", "2", "4096", "", NULL);
    return task;
}

//  Say UP for a worker with a running list
void
testutil_assignactor_up (zactor_t *actor, const char *worker, const byte *route, size_t route_size,
      const drover_taskref_t *running, size_t count)
{
    zframe_t *route_frame = zframe_new (route, route_size);
    zframe_t *running_frame = zframe_new (running, count * sizeof (drover_taskref_t));
    zsock_send (actor, "ssf848sf", "UP", worker, route_frame, (uint64_t) 1, (uint32_t) 4,
                (uint64_t) 1 << 30, "", running_frame);
    zframe_destroy (&route_frame);
    zframe_destroy (&running_frame);
}

//  Say ASSIGN of one task to a worker and check the offer
void
testutil_assignactor_assign (zactor_t *actor, uint64_t task, const char *worker, const byte *route,
          size_t route_size, uint32_t attempt)
{
    testutil_say_assign (testutil_assignactor_link, task, worker);             //  as schedq says it
    drover_msg_t *offer = testutil_assignactor_expect_send (actor, route, route_size, worker,
                                                            DROVER_MSG_TASK_OFFER);
    assert_int_equal (offer->task, task);
    assert_int_equal (offer->attempt, attempt);
    assert_int_equal (offer->seq, 0);
    assert_int_equal (offer->procs, 2);
    assert_int_equal (offer->priority, 3);
    assert_int_equal (offer->mem, 4096);
    const char *error = NULL;
    assert_int_equal (drover_exec_validate (offer->body, offer->body_size, &error), 0);
    drover_msg_destroy (&offer);
    testutil_assignactor_expect_event (actor, "task.assigned", task, attempt);
}

//  A TASK STARTED or RESULT from a worker
drover_msg_t *
testutil_assignactor_report (int id, const char *worker, uint64_t task, uint32_t attempt,
                             uint32_t seq)
{
    drover_msg_t *msg = drover_msg_new (id);
    strcpy (msg->worker, worker);
    msg->task = task;
    msg->attempt = attempt;
    msg->seq = seq;
    return msg;
}

//  Ask for the task table as request seq
static void
s_ask_list (zactor_t *actor, uint8_t state, uint32_t limit, uint32_t seq)
{
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_LIST);
    request->seq = seq;
    request->state = state;
    request->limit = limit;
    testutil_assignactor_hand (actor, TESTUTIL_ROUTE_CLIENT, request);
}

//  Ask for the task table: its reply must be the next thing said, so
//  nothing was said in between
drover_msg_t *
testutil_assignactor_list (zactor_t *actor, uint8_t state, uint32_t limit)
{
    s_ask_list (actor, state, limit, 99);
    drover_msg_t *table = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_CLIENT, "",
                                                            DROVER_MSG_TASK_TABLE);
    assert_int_equal (table->seq, 99);
    return table;
}

//  Expect assign to hand a message on to schedq on the link (MSG route
//  msg) for the client; return it decoded (caller destroys)
drover_msg_t *
testutil_assignactor_expect_handed (const byte *from, size_t from_size, int id)
{
    zmsg_t *msg = testutil_expect_link (testutil_assignactor_link, "MSG", 3000);
    zframe_t *route = zmsg_pop (msg);
    assert_int_equal (zframe_size (route), from_size);
    assert_memory_equal (zframe_data (route), from, from_size);
    zframe_t *payload = zmsg_pop (msg);
    drover_msg_t *handed = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (handed, zframe_data (payload), zframe_size (payload)), 0);
    assert_int_equal (handed->id, id);
    zframe_destroy (&payload);
    zframe_destroy (&route);
    zmsg_destroy (&msg);
    return handed;
}

//  Ask for the task table while a task is queued: assign hands it to
//  schedq, which says why each queued task waits and sends it
drover_msg_t *
testutil_assignactor_list_queued (zactor_t *actor, uint8_t state, uint32_t limit)
{
    s_ask_list (actor, state, limit, 98);
    drover_msg_t *table = testutil_assignactor_expect_handed (TESTUTIL_ROUTE_CLIENT,
                                                              DROVER_MSG_TASK_TABLE);
    assert_int_equal (table->seq, 98);
    return table;
}

