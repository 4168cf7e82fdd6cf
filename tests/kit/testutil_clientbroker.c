/*  =========================================================================
    testutil_clientbroker - a broker faked for the client API's tests
    (test_drover_client_requests, _wait, _cli): testutil_clientbroker.h
    =========================================================================
*/

#include "testutil_clientbroker.h"

//  Send msg to route on the fake's ROUTER (destroys msg)
void
testutil_clientbroker_send (testutil_clientbroker_t *fake, zframe_t *route, drover_msg_t **msg_p)
{
    zframe_t *frame = drover_msg_encode (*msg_p);
    assert (frame);             //  the actor thread: cmocka asserts belong to the test's
    zframe_t *copy = zframe_dup (route);
    zframe_send (&copy, fake->router, ZFRAME_MORE);
    zframe_send (&frame, fake->router, 0);
    drover_msg_destroy (msg_p);
}

//  Reply with a message of id echoing the request's seq
void
testutil_clientbroker_reply (testutil_clientbroker_t *fake, zframe_t *route,
                             drover_msg_t *request, int id)
{
    drover_msg_t *reply = drover_msg_new (id);
    reply->seq = request->seq;
    testutil_clientbroker_send (fake, route, &reply);
}

//  Reply TASK ACCEPTED for task, echoing the submit's seq
void
testutil_clientbroker_accept (testutil_clientbroker_t *fake, zframe_t *route,
                              drover_msg_t *submit, uint64_t task)
{
    drover_msg_t *reply = drover_msg_new (DROVER_MSG_TASK_ACCEPTED);
    reply->seq = submit->seq;
    reply->task = task;
    testutil_clientbroker_send (fake, route, &reply);
}

//  Reply ERROR code reason
void
testutil_clientbroker_error (testutil_clientbroker_t *fake, zframe_t *route,
                             drover_msg_t *request, int code, const char *reason)
{
    drover_msg_t *reply = drover_msg_new (DROVER_MSG_ERROR);
    reply->seq = request->seq;
    reply->code = code;
    drover_msg_set_reason (reply, reason);
    testutil_clientbroker_send (fake, route, &reply);
}

//  Send a TASK DONE for task: SUCCEEDED with "out-<task>\n" on stdout
void
testutil_clientbroker_done (testutil_clientbroker_t *fake, zframe_t *route, uint64_t task,
                            uint32_t seq)
{
    drover_msg_t *done = drover_msg_new (DROVER_MSG_TASK_DONE);
    done->seq = seq;
    done->task = task;
    done->attempt = 1;
    done->state = DROVER_TASK_SUCCEEDED;
    done->end = DROVER_END_SUCCEEDED;
    char out [64];
    snprintf (out, sizeof out, "out-%llu\n", (unsigned long long) task);
    drover_msg_set_output (done, (byte *) out, strlen (out), NULL, 0);
    testutil_clientbroker_send (fake, route, &done);
}

//  Note what a request said, for the test to check afterwards
static void
s_fake_record (testutil_clientbroker_t *fake, drover_msg_t *msg)
{
    if (msg->id >= 0 && msg->id <= DROVER_MSG_ID_MAX)
        fake->requests [msg->id]++;
    fake->last_seq = msg->seq;
    if (msg->id == DROVER_MSG_TASK_WAIT) {
        fake->wait_ids += msg->ntasks;
        strcpy (fake->last_state_id, msg->state_id);
    }
    if (msg->id == DROVER_MSG_TASK_SUBMIT) {
        snprintf (fake->last_key, sizeof fake->last_key, "%s", msg->key? msg->key: "");
        if (msg->seq < 64)
            fake->seqs [msg->seq]++;
        fake->last_flags = msg->flags;
        fake->last_priority = msg->priority;
        drover_exec_t *exec = drover_exec_new ();
        const char *error = NULL;
        if (drover_exec_decode (exec, msg->body, msg->body_size, &error) == 0)
            snprintf (fake->last_argv0, sizeof fake->last_argv0, "%s", exec->argv [0]);
        drover_exec_destroy (&exec);
    }
    if (msg->id == DROVER_MSG_WORKER_ADMIN) {
        strcpy (fake->last_worker, msg->worker);
        fake->last_admin = msg->admin;
    }
}

//  The fake broker: receive, decode, record, behave, until $TERM
static void
s_fake_actor (zsock_t *pipe, void *args)
{
    testutil_clientbroker_t *fake = (testutil_clientbroker_t *) args;
    fake->router = zsock_new (ZMQ_ROUTER);
    assert (fake->router);
    zsock_set_sndhwm (fake->router, 0);
    zsock_set_rcvhwm (fake->router, 0);
    int port = zsock_bind (fake->router, "tcp://127.0.0.1:*");
    assert (port > 0);
    zsock_signal (pipe, 0);                 //  zactor_new returns after this
    zsock_send (pipe, "i", port);
    zpoller_t *poller = zpoller_new (pipe, fake->router, NULL);
    drover_msg_t *msg = drover_msg_new (0);
    while (true) {
        void *which = zpoller_wait (poller, -1);
        if (which == pipe || !which)
            break;                      //  $TERM, or interrupted
        zmsg_t *raw = zmsg_recv (fake->router);
        if (!raw)
            break;
        zframe_t *route = zmsg_pop (raw);
        zframe_t *frame = zmsg_pop (raw);
        if (route && frame
        &&  drover_msg_decode (msg, zframe_data (frame), zframe_size (frame)) == 0
        &&  msg->id == DROVER_MSG_CLIENT_HELLO) {
            fake->hellos++;             //  the client's level, said on each connection
            if (fake->level >= 0) {
                drover_msg_t *welcome = drover_msg_new (DROVER_MSG_CLIENT_WELCOME);
                welcome->level = (uint16_t) fake->level;
                zframe_t *reply = drover_msg_encode (welcome);
                drover_msg_destroy (&welcome);
                zframe_t *to = zframe_dup (route);
                zframe_send (&to, fake->router, ZFRAME_MORE);
                zframe_send (&reply, fake->router, 0);
            }
        }
        else
        if (route && frame
        &&  drover_msg_decode (msg, zframe_data (frame), zframe_size (frame)) == 0) {
            s_fake_record (fake, msg);
            fake->behave (fake, route, msg);
        }
        zframe_destroy (&frame);
        zframe_destroy (&route);
        zmsg_destroy (&raw);
    }
    drover_msg_destroy (&msg);
    zpoller_destroy (&poller);
    zsock_destroy (&fake->router);
}

//  Start a fake broker with a behaviour; fills endpoint
zactor_t *
testutil_clientbroker_start (testutil_clientbroker_t *fake, testutil_clientbroker_fn *behave,
                             char *endpoint)
{
    memset (fake, 0, sizeof *fake);
    fake->behave = behave;
    zactor_t *actor = zactor_new (s_fake_actor, fake);
    assert_non_null (actor);
    int port = 0;
    assert_int_equal (zsock_recv (actor, "i", &port), 0);
    assert_true (port > 0);
    sprintf (endpoint, "tcp://127.0.0.1:%d", port);
    return actor;
}



//  ---------------------------------------------------------------------
//  Behaviours more than one test file picks

//  Accept every submit (task = 1000 + seq), refuse every 100th with 301
void
testutil_clientbroker_accept_all (testutil_clientbroker_t *fake, zframe_t *route, drover_msg_t *msg)
{
    if (msg->id != DROVER_MSG_TASK_SUBMIT)
        return;
    if (msg->seq % 100 == 0) {
        testutil_clientbroker_error (fake, route, msg, DROVER_CODE_QUEUE_FULL,
                                     "queue full: 2000000 tasks not final");
        return;
    }
    testutil_clientbroker_accept (fake, route, msg, 1000 + msg->seq);
}

//  Refuse every submit with 301
void
testutil_clientbroker_refuse_all (testutil_clientbroker_t *fake, zframe_t *route, drover_msg_t *msg)
{
    testutil_clientbroker_error (fake, route, msg, DROVER_CODE_QUEUE_FULL,
                                 "2000000 tasks not final");
}

//  WAIT: OK, then each id's TASK DONE twice, plus one for a task nobody asked for
void
testutil_clientbroker_done_twice (testutil_clientbroker_t *fake, zframe_t *route, drover_msg_t *msg)
{
    if (msg->id != DROVER_MSG_TASK_WAIT)
        return;
    testutil_clientbroker_reply (fake, route, msg, DROVER_MSG_OK);
    for (uint32_t index = 0; index < msg->ntasks; index++)
        testutil_clientbroker_done (fake, route, msg->tasks [index], msg->seq);
    for (uint32_t index = 0; index < msg->ntasks; index++)
        testutil_clientbroker_done (fake, route, msg->tasks [index], msg->seq);
    testutil_clientbroker_done (fake, route, 999999, msg->seq);
}

//  The admin requests, each answered as the protocol says
void
testutil_clientbroker_admin (testutil_clientbroker_t *fake, zframe_t *route, drover_msg_t *msg)
{
    if (msg->id == DROVER_MSG_TASK_CANCEL) {
        if (msg->task == 7)
            testutil_clientbroker_reply (fake, route, msg, DROVER_MSG_OK);
        else
            testutil_clientbroker_error (fake, route, msg, DROVER_CODE_NOT_FOUND, "no such task");
    }
    else
    if (msg->id == DROVER_MSG_WORKER_ADMIN) {
        if (streq (msg->worker, "alpha"))
            testutil_clientbroker_reply (fake, route, msg, DROVER_MSG_OK);
        else
            testutil_clientbroker_error (fake, route, msg, DROVER_CODE_NOT_FOUND, "no such worker");
    }
    else
    if (msg->id == DROVER_MSG_WORKER_LIST) {
        drover_msg_t *reply = drover_msg_new (DROVER_MSG_WORKER_TABLE);
        reply->seq = msg->seq;
        reply->nrows = 2;
        reply->worker_rows = (drover_worker_row_t *) zmalloc (2 * sizeof (drover_worker_row_t));
        strcpy (reply->worker_rows [0].id, "alpha");
        reply->worker_rows [0].procs = 4;
        reply->worker_rows [0].procs_used = 1;
        strcpy (reply->worker_rows [1].id, "beta");
        reply->worker_rows [1].health = DROVER_HEALTH_PROBATION;
        reply->worker_rows [1].admin = DROVER_ADMIN_HOLD;
        reply->worker_rows [1].procs = 2;
        testutil_clientbroker_send (fake, route, &reply);
    }
    else
    if (msg->id == DROVER_MSG_TASK_LIST) {
        drover_msg_t *reply = drover_msg_new (DROVER_MSG_TASK_TABLE);
        reply->seq = msg->seq;
        reply->counts [DROVER_TASK_QUEUED] = 5;
        reply->counts [DROVER_TASK_RUNNING] = msg->limit;
        reply->nrows = 2;
        reply->task_rows = (drover_task_row_t *) zmalloc (2 * sizeof (drover_task_row_t));
        reply->task_rows [0].task = 12;
        reply->task_rows [0].state = msg->state == 255? DROVER_TASK_QUEUED: msg->state;
        reply->task_rows [0].summary = strdup ("sh -c true");
        reply->task_rows [1].task = 11;
        reply->task_rows [1].state = DROVER_TASK_FAILED;
        reply->task_rows [1].end = DROVER_END_TIMED_OUT;
        reply->task_rows [1].summary = strdup ("sleep 60");
        testutil_clientbroker_send (fake, route, &reply);
    }
}
