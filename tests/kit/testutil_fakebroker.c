/*  =========================================================================
    testutil_fakebroker - a broker played by the worker API's tests
    (see the header)
    =========================================================================
*/

#include "testutil_fakebroker.h"

//  Bind the ROUTER the worker connects to and make the worker under test
//  (not yet started), heartbeating every 100 msec with a grace of 300
testutil_fakebroker_t *
testutil_fakebroker_new (void)
{
    testutil_fakebroker_t *self =
        (testutil_fakebroker_t *) zmalloc (sizeof (testutil_fakebroker_t));
    self->router = zsock_new (ZMQ_ROUTER);
    assert_non_null (self->router);
    zsock_set_sndhwm (self->router, 0);     //  a ROUTER drops past its HWM: never here
    zsock_set_rcvhwm (self->router, 0);
    int port = zsock_bind (self->router, "tcp://127.0.0.1:*");
    assert_true (port > 0);
    snprintf (self->endpoint, sizeof self->endpoint, "tcp://127.0.0.1:%d", port);
    self->worker = drover_worker_new (self->endpoint, "w-test", 3, 1ULL << 30);
    assert_non_null (self->worker);
    drover_worker_set_heartbeat (self->worker, 100);
    drover_worker_set_grace (self->worker, 300);
    return self;
}

//  Stop the worker, destroy it and close the ROUTER
void
testutil_fakebroker_destroy (testutil_fakebroker_t **self_p)
{
    testutil_fakebroker_t *self = *self_p;
    zactor_destroy (&self->actor);
    drover_worker_destroy (&self->worker);
    zframe_destroy (&self->route);
    zsock_destroy (&self->router);
    free (self);
    *self_p = NULL;
}

//  Start the worker loop in its actor
void
testutil_fakebroker_start (testutil_fakebroker_t *self)
{
    self->actor = zactor_new (drover_worker_actor, self->worker);
    assert_non_null (self->actor);
}

//  Receive and decode one message from the worker within timeout msec,
//  keeping its route; NULL on timeout
drover_msg_t *
testutil_fakebroker_recv (testutil_fakebroker_t *self, int timeout)
{
    zmsg_t *msg = testutil_recv (self->router, timeout);
    if (!msg)
        return NULL;
    assert_int_equal (zmsg_size (msg), 2);
    zframe_destroy (&self->route);
    self->route = zmsg_pop (msg);
    zframe_t *frame = zmsg_pop (msg);
    drover_msg_t *decoded = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (decoded, zframe_data (frame), zframe_size (frame)), 0);
    zframe_destroy (&frame);
    zmsg_destroy (&msg);
    return decoded;
}

//  Receive the next message other than a heartbeat, and check its id
drover_msg_t *
testutil_fakebroker_expect (testutil_fakebroker_t *self, int id, int timeout)
{
    int64_t end = zclock_mono () + timeout;
    while (zclock_mono () < end) {
        drover_msg_t *msg = testutil_fakebroker_recv (self, (int) (end - zclock_mono ()));
        if (!msg)
            break;
        if (msg->id == DROVER_MSG_WORKER_HEARTBEAT && id != DROVER_MSG_WORKER_HEARTBEAT) {
            drover_msg_destroy (&msg);
            continue;
        }
        if (msg->id != id)
            fail_msg ("expected %s, got %s", drover_msg_name (id), drover_msg_name (msg->id));
        return msg;
    }
    fail_msg ("no %s within %d ms", drover_msg_name (id), timeout);
    return NULL;
}

//  Send a message to the worker's last route (destroys it)
void
testutil_fakebroker_send (testutil_fakebroker_t *self, drover_msg_t **msg_p)
{
    drover_msg_t *msg = *msg_p;
    if (!msg->seq)
        msg->seq = ++self->seq;
    zframe_t *frame = drover_msg_encode (msg);
    assert_non_null (frame);
    zmsg_t *out = zmsg_new ();
    zmsg_append (out, &frame);
    zframe_t *route = zframe_dup (self->route);
    zmsg_prepend (out, &route);
    assert_int_equal (zmsg_send (&out, self->router), 0);
    drover_msg_destroy (msg_p);
}

//  Answer the worker: WELCOME with a heartbeat interval and a broker state
//  id ("" for none)
void
testutil_fakebroker_welcome_state (testutil_fakebroker_t *self, uint32_t heartbeat,
                                   const char *state_id)
{
    drover_msg_t *welcome = drover_msg_new (DROVER_MSG_WORKER_WELCOME);
    welcome->heartbeat = heartbeat;
    strcpy (welcome->state_id, state_id);
    testutil_fakebroker_send (self, &welcome);
}

//  Answer the worker: WELCOME with a heartbeat interval, no state id
void
testutil_fakebroker_welcome (testutil_fakebroker_t *self, uint32_t heartbeat)
{
    testutil_fakebroker_welcome_state (self, heartbeat, "");
}

//  Start the worker and take it through HELLO / WELCOME, which names a
//  heartbeat of msec
void
testutil_fakebroker_register_beating (testutil_fakebroker_t *self, uint32_t msec)
{
    testutil_fakebroker_start (self);
    drover_msg_t *hello = testutil_fakebroker_expect (self, DROVER_MSG_WORKER_HELLO, 5000);
    drover_msg_destroy (&hello);
    testutil_fakebroker_welcome (self, msec);
}

//  Start the worker and register it, with heartbeats every 100 msec
void
testutil_fakebroker_register (testutil_fakebroker_t *self)
{
    testutil_fakebroker_register_beating (self, 100);
}

//  Answer a message with OK or ERROR code, echoing its seq
void
testutil_fakebroker_reply (testutil_fakebroker_t *self, drover_msg_t *request, uint16_t code)
{
    drover_msg_t *reply = drover_msg_new (code == DROVER_CODE_OK? DROVER_MSG_OK: DROVER_MSG_ERROR);
    reply->seq = request->seq;
    reply->code = code;
    if (code != DROVER_CODE_OK)
        drover_msg_set_reason (reply, "test says no");
    testutil_fakebroker_send (self, &reply);
}

//  Answer a message with OK or ERROR code (testutil_fakebroker_reply) and
//  destroy it
void
testutil_fakebroker_answer (testutil_fakebroker_t *self, drover_msg_t **request_p, uint16_t code)
{
    testutil_fakebroker_reply (self, *request_p, code);
    drover_msg_destroy (request_p);
}

//  Offer an attempt of sh -c script
void
testutil_fakebroker_offer (testutil_fakebroker_t *self, uint64_t task, uint32_t attempt,
                           const char *script, uint32_t timeout)
{
    drover_exec_t *exec = drover_exec_new ();
    const char *argv [] = { "sh", "-c", script };
    drover_exec_set_argv (exec, 3, argv);
    size_t size;
    byte *body = drover_exec_encode (exec, &size);
    assert_non_null (body);
    drover_msg_t *offer = drover_msg_new (DROVER_MSG_TASK_OFFER);
    offer->task = task;
    offer->attempt = attempt;
    offer->procs = 1;
    offer->timeout = timeout;
    drover_msg_set_body (offer, body, size);
    free (body);
    drover_exec_destroy (&exec);
    testutil_fakebroker_send (self, &offer);
}

//  Expect TASK STARTED for task, attempt
void
testutil_fakebroker_expect_started (testutil_fakebroker_t *self, uint64_t task, uint32_t attempt)
{
    drover_msg_t *started = testutil_fakebroker_expect (self, DROVER_MSG_TASK_STARTED, 5000);
    assert_string_equal (started->worker, "w-test");
    assert_true (started->task == task);
    assert_int_equal (started->attempt, attempt);
    drover_msg_destroy (&started);
}

//  Offer an attempt of sh -c script and see it start
void
testutil_fakebroker_offer_started (testutil_fakebroker_t *self, uint64_t task, uint32_t attempt,
                                   const char *script, uint32_t timeout)
{
    testutil_fakebroker_offer (self, task, attempt, script, timeout);
    testutil_fakebroker_expect_started (self, task, attempt);
}

//  A registered worker running attempt of task (sh -c script): its TASK
//  STARTED seen
testutil_fakebroker_t *
testutil_fakebroker_running (uint64_t task, uint32_t attempt, const char *script)
{
    testutil_fakebroker_t *self = testutil_fakebroker_new ();
    testutil_fakebroker_register (self);
    testutil_fakebroker_offer_started (self, task, attempt, script, 0);
    return self;
}

//  Expect the TASK RESULT of task (caller answers it)
drover_msg_t *
testutil_fakebroker_expect_result (testutil_fakebroker_t *self, uint64_t task)
{
    drover_msg_t *result = testutil_fakebroker_expect (self, DROVER_MSG_TASK_RESULT, 5000);
    assert_true (result->task == task);
    return result;
}

//  Send LEAVE and see the loop end: GOODBYE, then DONE on the actor pipe.
//  The worker reads its socket in order, so every answer we sent before
//  has been acted on; then ask the actor for its counters.
void
testutil_fakebroker_leave (testutil_fakebroker_t *self, uint64_t *tasks, uint64_t *acked)
{
    drover_msg_t *leave = drover_msg_new (DROVER_MSG_WORKER_LEAVE);
    testutil_fakebroker_send (self, &leave);
    drover_msg_t *goodbye = testutil_fakebroker_expect (self, DROVER_MSG_WORKER_GOODBYE, 5000);
    assert_string_equal (goodbye->worker, "w-test");
    assert_true (goodbye->epoch == drover_worker_epoch (self->worker));
    drover_msg_destroy (&goodbye);
    zmsg_t *done = testutil_recv (zactor_sock (self->actor), 5000);
    assert_non_null (done);
    char *word = zmsg_popstr (done);
    assert_string_equal (word, "DONE");
    zstr_free (&word);
    zmsg_destroy (&done);
    assert_int_equal (zstr_send (self->actor, "COUNTERS"), 0);
    assert_int_equal (zsock_recv (self->actor, "88", tasks, acked), 0);
    assert_true (*tasks == drover_worker_tasks_run (self->worker));
    assert_true (*acked == drover_worker_results_acked (self->worker));
}

//  testutil_fakebroker_leave, once one result was acked and the worker
//  registered registrations times
void
testutil_fakebroker_leave_acked_one (testutil_fakebroker_t *self, int registrations)
{
    uint64_t tasks, acked;
    testutil_fakebroker_leave (self, &tasks, &acked);
    assert_true (acked == 1);
    assert_true (drover_worker_registrations (self->worker) == (uint64_t) registrations);
}
