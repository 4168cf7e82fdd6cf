/*  =========================================================================
    test_drover_client - the client API against a fake broker

    The fake broker is an actor that binds a real ROUTER on
    tcp://127.0.0.1:* and answers each request with a behaviour function
    the test picks. Its counters belong to the actor thread while it runs;
    the test reads them only after zactor_destroy has joined it.
    =========================================================================
*/

#include "testutil_proc.h"
#include "drover_client_wire.h"
#include <sys/wait.h>

typedef struct _fake_t fake_t;

//  How the fake broker answers one decoded request from route
typedef void (fake_fn) (fake_t *fake, zframe_t *route, drover_msg_t *msg);

struct _fake_t {
    fake_fn *behave;            //  the test's behaviour
    zsock_t *router;            //  the fake broker's socket, actor thread only
    int requests [DROVER_MSG_ID_MAX + 1];   //  requests received per message id
    size_t wait_ids;            //  task ids received in all TASK WAITs
    uint32_t last_seq;          //  seq of the last request
    int hellos;                 //  CLIENT HELLOs heard (answered, not recorded)
    uint32_t last_flags;        //  flags of the last TASK SUBMIT
    int32_t last_priority;      //  priority of the last TASK SUBMIT
    char last_argv0 [64];       //  argv [0] of the last TASK SUBMIT's body
    char last_worker [DROVER_ID_MAX + 1];   //  worker of the last WORKER ADMIN
    uint8_t last_admin;         //  admin of the last WORKER ADMIN
    zlistx_t *held;             //  requests held back for a later answer
    char last_key [DROVER_KEY_MAX + 1];     //  key of the last TASK SUBMIT, "" if none
    char last_state_id [DROVER_STATE_ID_SIZE + 1];  //  state id of the last TASK WAIT
    uint32_t seqs [64];         //  SUBMITs received per seq (seq < 64)
};

//  Send msg to route on the fake's ROUTER (destroys msg)
static void
s_fake_send (fake_t *fake, zframe_t *route, drover_msg_t **msg_p)
{
    zframe_t *frame = drover_msg_encode (*msg_p);
    assert (frame);             //  the actor thread: cmocka asserts belong to the test's
    zframe_t *copy = zframe_dup (route);
    zframe_send (&copy, fake->router, ZFRAME_MORE);
    zframe_send (&frame, fake->router, 0);
    drover_msg_destroy (msg_p);
}

//  Reply with a message of id echoing the request's seq
static void
s_fake_reply (fake_t *fake, zframe_t *route, drover_msg_t *request, int id)
{
    drover_msg_t *reply = drover_msg_new (id);
    reply->seq = request->seq;
    s_fake_send (fake, route, &reply);
}

//  Reply TASK ACCEPTED for task, echoing the submit's seq
static void
s_fake_accept (fake_t *fake, zframe_t *route, drover_msg_t *submit, uint64_t task)
{
    drover_msg_t *reply = drover_msg_new (DROVER_MSG_TASK_ACCEPTED);
    reply->seq = submit->seq;
    reply->task = task;
    s_fake_send (fake, route, &reply);
}

//  Reply ERROR code reason
static void
s_fake_error (fake_t *fake, zframe_t *route, drover_msg_t *request, int code, const char *reason)
{
    drover_msg_t *reply = drover_msg_new (DROVER_MSG_ERROR);
    reply->seq = request->seq;
    reply->code = code;
    drover_msg_set_reason (reply, reason);
    s_fake_send (fake, route, &reply);
}

//  Send a TASK DONE for task: SUCCEEDED with "out-<task>\n" on stdout
static void
s_fake_done (fake_t *fake, zframe_t *route, uint64_t task, uint32_t seq)
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
    s_fake_send (fake, route, &done);
}

//  Note what a request said, for the test to check afterwards
static void
s_fake_record (fake_t *fake, drover_msg_t *msg)
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
    fake_t *fake = (fake_t *) args;
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
            drover_msg_t *welcome = drover_msg_new (DROVER_MSG_CLIENT_WELCOME);
            zframe_t *reply = drover_msg_encode (welcome);
            drover_msg_destroy (&welcome);
            zframe_t *to = zframe_dup (route);
            zframe_send (&to, fake->router, ZFRAME_MORE);
            zframe_send (&reply, fake->router, 0);
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
static zactor_t *
s_fake_start (fake_t *fake, fake_fn *behave, char *endpoint)
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
//  Behaviours

//  Accept every submit (task = 1000 + seq), refuse every 100th with 301
static void
s_accept_all (fake_t *fake, zframe_t *route, drover_msg_t *msg)
{
    if (msg->id != DROVER_MSG_TASK_SUBMIT)
        return;
    if (msg->seq % 100 == 0) {
        s_fake_error (fake, route, msg, DROVER_CODE_QUEUE_FULL, "queue full: 2000000 tasks not final");
        return;
    }
    s_fake_accept (fake, route, msg, 1000 + msg->seq);
}

//  Refuse every submit with 301
static void
s_refuse_all (fake_t *fake, zframe_t *route, drover_msg_t *msg)
{
    s_fake_error (fake, route, msg, DROVER_CODE_QUEUE_FULL, "2000000 tasks not final");
}

//  WAIT: OK, then each id's TASK DONE twice, plus one for a task nobody asked for
static void
s_done_twice (fake_t *fake, zframe_t *route, drover_msg_t *msg)
{
    if (msg->id != DROVER_MSG_TASK_WAIT)
        return;
    s_fake_reply (fake, route, msg, DROVER_MSG_OK);
    for (uint32_t index = 0; index < msg->ntasks; index++)
        s_fake_done (fake, route, msg->tasks [index], msg->seq);
    for (uint32_t index = 0; index < msg->ntasks; index++)
        s_fake_done (fake, route, msg->tasks [index], msg->seq);
    s_fake_done (fake, route, 999999, msg->seq);
}

//  WAIT: the first goes unanswered; later ones get OK and the TASK DONEs
static void
s_ignore_first_wait (fake_t *fake, zframe_t *route, drover_msg_t *msg)
{
    if (msg->id != DROVER_MSG_TASK_WAIT || fake->requests [DROVER_MSG_TASK_WAIT] == 1)
        return;
    s_fake_reply (fake, route, msg, DROVER_MSG_OK);
    for (uint32_t index = 0; index < msg->ntasks; index++)
        s_fake_done (fake, route, msg->tasks [index], msg->seq);
}

//  WAIT: refused as a bad request
static void
s_refuse_wait (fake_t *fake, zframe_t *route, drover_msg_t *msg)
{
    if (msg->id == DROVER_MSG_TASK_WAIT)
        s_fake_error (fake, route, msg, DROVER_CODE_BAD_REQUEST, "no task ids");
}

//  SUBMIT with notify: ACCEPTED (task 77) then at once its TASK DONE (seq 0);
//  WAIT: OK only, so a wait must use the TASK DONE it kept
static void
s_notify (fake_t *fake, zframe_t *route, drover_msg_t *msg)
{
    if (msg->id == DROVER_MSG_TASK_SUBMIT) {
        s_fake_accept (fake, route, msg, 77);
        if (msg->flags & DROVER_SUBMIT_NOTIFY)
            s_fake_done (fake, route, 77, 0);
    }
    else
    if (msg->id == DROVER_MSG_TASK_WAIT)
        s_fake_reply (fake, route, msg, DROVER_MSG_OK);
}

//  SUBMIT: ACCEPTED (task 1000 + seq) and, with notify, at once its TASK
//  DONE (seq 0); WAIT: OK and a TASK DONE in state UNKNOWN for each task
static void
s_notify_each (fake_t *fake, zframe_t *route, drover_msg_t *msg)
{
    if (msg->id == DROVER_MSG_TASK_SUBMIT) {
        s_fake_accept (fake, route, msg, 1000 + msg->seq);
        if (msg->flags & DROVER_SUBMIT_NOTIFY)
            s_fake_done (fake, route, 1000 + msg->seq, 0);
    }
    else
    if (msg->id == DROVER_MSG_TASK_WAIT) {
        s_fake_reply (fake, route, msg, DROVER_MSG_OK);
        for (uint32_t index = 0; index < msg->ntasks; index++) {
            drover_msg_t *done = drover_msg_new (DROVER_MSG_TASK_DONE);
            done->seq = msg->seq;
            done->task = msg->tasks [index];
            done->state = DROVER_TASK_UNKNOWN;
            done->end = DROVER_END_UNKNOWN;
            s_fake_send (fake, route, &done);
        }
    }
}

//  The admin requests, each answered as the protocol says
static void
s_admin (fake_t *fake, zframe_t *route, drover_msg_t *msg)
{
    if (msg->id == DROVER_MSG_TASK_CANCEL) {
        if (msg->task == 7)
            s_fake_reply (fake, route, msg, DROVER_MSG_OK);
        else
            s_fake_error (fake, route, msg, DROVER_CODE_NOT_FOUND, "no such task");
    }
    else
    if (msg->id == DROVER_MSG_WORKER_ADMIN) {
        if (streq (msg->worker, "alpha"))
            s_fake_reply (fake, route, msg, DROVER_MSG_OK);
        else
            s_fake_error (fake, route, msg, DROVER_CODE_NOT_FOUND, "no such worker");
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
        s_fake_send (fake, route, &reply);
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
        s_fake_send (fake, route, &reply);
    }
}

//  WORKER LIST: hold the first back; answer it late, just before the second,
//  with a table of one row (the second gets two rows)
static void
s_late_reply (fake_t *fake, zframe_t *route, drover_msg_t *msg)
{
    if (msg->id != DROVER_MSG_WORKER_LIST)
        return;
    if (fake->requests [DROVER_MSG_WORKER_LIST] == 1) {
        fake->last_flags = msg->seq;            //  remember the first seq
        return;
    }
    for (uint32_t rows = 1; rows <= 2; rows++) {
        drover_msg_t *reply = drover_msg_new (DROVER_MSG_WORKER_TABLE);
        reply->seq = rows == 1? fake->last_flags: msg->seq;
        reply->nrows = rows;
        reply->worker_rows = (drover_worker_row_t *) zmalloc (rows * sizeof (drover_worker_row_t));
        for (uint32_t row = 0; row < rows; row++)
            snprintf (reply->worker_rows [row].id, DROVER_ID_MAX + 1, "w%u", row);
        s_fake_send (fake, route, &reply);
    }
}


//  ---------------------------------------------------------------------
//  Tests

//  submit returns the id from ACCEPTED; the body carries argv and flags
static void
test_submit_returns_id (void **state)
{
    fake_t fake;
    char endpoint [64];
    zactor_t *actor = s_fake_start (&fake, s_accept_all, endpoint);
    drover_client_t *client = drover_client_new (endpoint);
    assert_non_null (client);
    assert_string_equal (drover_client_endpoint (client), endpoint);

    const char *argv [] = { "echo", "hello" };
    drover_submit_t *submit = drover_submit_new (2, argv);
    assert_non_null (submit);
    drover_submit_msg (submit)->priority = -3;
    drover_submit_set_notify (submit, true);
    uint64_t task = 0;
    assert_int_equal (drover_client_submit (client, submit, &task), 0);
    assert_int_equal (task, 1000 + drover_submit_msg (submit)->seq);
    assert_int_equal (drover_client_submit (client, submit, &task), 0);
    assert_int_equal (task, 1000 + drover_submit_msg (submit)->seq);
    assert_int_equal (drover_client_error_code (client), 0);
    drover_submit_destroy (&submit);
    drover_client_destroy (&client);
    assert_null (client);
    drover_client_destroy (&client);        //  harmless twice

    zactor_destroy (&actor);
    assert_int_equal (fake.requests [DROVER_MSG_TASK_SUBMIT], 2);
    assert_int_equal (fake.last_priority, -3);
    assert_int_equal (fake.last_flags, DROVER_SUBMIT_NOTIFY);
    assert_string_equal (fake.last_argv0, "echo");
}

//  An ERROR reply surfaces its code and text
static void
test_error_reply_surfaces (void **state)
{
    fake_t fake;
    char endpoint [64];
    zactor_t *actor = s_fake_start (&fake, s_refuse_all, endpoint);
    drover_client_t *client = drover_client_new (endpoint);
    const char *argv [] = { "true" };
    drover_submit_t *submit = drover_submit_new (1, argv);
    uint64_t task = 12345;
    assert_int_equal (drover_client_submit (client, submit, &task), -1);
    assert_int_equal (task, 12345);
    assert_int_equal (drover_client_error_code (client), DROVER_CODE_QUEUE_FULL);
    assert_string_equal (drover_client_error_text (client), "2000000 tasks not final");
    assert_string_equal (drover_client_code_name (DROVER_CODE_QUEUE_FULL), "queue full");
    drover_submit_destroy (&submit);
    drover_client_destroy (&client);
    zactor_destroy (&actor);
}

//  Nobody listening: every kind of request fails after the timeout
static void
test_unreachable_broker_times_out (void **state)
{
    char endpoint [64];
    sprintf (endpoint, "tcp://127.0.0.1:%d", testutil_free_port ());
    drover_client_t *client = drover_client_new (endpoint);
    assert_non_null (client);
    drover_client_set_timeout (client, 300);
    assert_int_equal (drover_client_timeout (client), 300);

    const char *argv [] = { "true" };
    drover_submit_t *submit = drover_submit_new (1, argv);
    int64_t started = zclock_mono ();
    uint64_t task;
    assert_int_equal (drover_client_submit (client, submit, &task), -1);
    int64_t elapsed = zclock_mono () - started;
    assert_true (elapsed >= 290 && elapsed < 3000);
    assert_int_equal (drover_client_error_code (client), DROVER_CLIENT_ERR_TIMEOUT);
    assert_non_null (strstr (drover_client_error_text (client), endpoint));

    started = zclock_mono ();
    assert_null (drover_client_workers (client));
    assert_int_equal (drover_client_error_code (client), DROVER_CLIENT_ERR_TIMEOUT);
    uint64_t ids [] = { 1, 2 };
    drover_client_set_resend (client, 100);
    assert_int_equal (drover_client_wait (client, ids, 2, NULL, NULL, NULL), -1);
    assert_int_equal (drover_client_error_code (client), DROVER_CLIENT_ERR_TIMEOUT);
    assert_true (drover_client_submit_async (client, submit, 1) > 0);
    assert_int_equal (drover_client_flush (client), -1);
    assert_int_equal (drover_client_outstanding (client), 1);
    assert_true (zclock_mono () - started < 5000);
    drover_submit_destroy (&submit);
    drover_client_destroy (&client);
}

//  Count async replies by tag
typedef struct {
    int *acks;                  //  replies per tag
    int accepted;               //  ACCEPTED replies
    int refused;                //  ERROR replies
    bool bad_task;              //  an ACCEPTED whose task was not 1000 + seq
} s_acks_t;

//  Count one async reply; check an accepted id against its seq
static void
s_on_ack (uint32_t seq, uintptr_t tag, uint64_t task, int code, const char *reason, void *arg)
{
    s_acks_t *acks = (s_acks_t *) arg;
    acks->acks [tag]++;
    if (code == DROVER_CODE_OK) {
        acks->accepted++;
        if (task != 1000 + (uint64_t) seq)
            acks->bad_task = true;
    }
    else
    if (code == DROVER_CODE_QUEUE_FULL && reason && strstr (reason, "queue full"))
        acks->refused++;
}

//  Pipelined submits: every one answered exactly once, errors included
static void
test_pipelined_submits_all_acknowledged (void **state)
{
    fake_t fake;
    char endpoint [64];
    zactor_t *actor = s_fake_start (&fake, s_accept_all, endpoint);
    drover_client_t *client = drover_client_new (endpoint);
    const int total = 20000;
    s_acks_t acks = { (int *) zmalloc (sizeof (int) * total), 0, 0, false };
    drover_client_set_ack_handler (client, s_on_ack, &acks);
    assert_int_equal (drover_client_set_window (client, 64), 0);
    const char *argv [] = { "true" };
    drover_submit_t *submit = drover_submit_new (1, argv);
    for (int index = 0; index < total; index++) {
        assert_true (drover_client_submit_async (client, submit, (uintptr_t) index) > 0);
        assert_true (drover_client_outstanding (client) <= 64);
        if (index == 10)
            assert_int_equal (drover_client_set_window (client, 128), -1);
    }
    assert_int_equal (drover_client_flush (client), 0);
    assert_int_equal (drover_client_outstanding (client), 0);
    assert_int_equal (drover_client_poll (client, 0), 0);
    assert_int_equal (acks.accepted + acks.refused, total);
    assert_int_equal (acks.refused, total / 100);
    assert_false (acks.bad_task);
    for (int index = 0; index < total; index++)
        assert_int_equal (acks.acks [index], 1);

    //  A synchronous request between async ones still gets its own reply
    assert_true (drover_client_submit_async (client, submit, 0) > 0);
    uint64_t task;
    int rc = drover_client_submit (client, submit, &task);
    if (rc == 0)
        assert_int_equal (task, 1000 + drover_submit_msg (submit)->seq);
    else
        assert_int_equal (drover_client_error_code (client), DROVER_CODE_QUEUE_FULL);
    assert_int_equal (drover_client_flush (client), 0);
    assert_int_equal (acks.acks [0], 2);

    drover_submit_destroy (&submit);
    drover_client_destroy (&client);
    zactor_destroy (&actor);
    assert_int_equal (fake.requests [DROVER_MSG_TASK_SUBMIT], total + 2);
    free (acks.acks);
}


//  The fake broker's state id
#define S_STATE_ID  "5f4c2ff9a1b2c3d4e5f60718293a4b5c"

//  SUBMIT: the first copy of each seq goes unanswered (as if the broker
//  died before saving it), a copy sent again is ACCEPTED (task 500 + seq,
//  with the state id)
static void
s_ignore_first_copy (fake_t *fake, zframe_t *route, drover_msg_t *msg)
{
    if (msg->id != DROVER_MSG_TASK_SUBMIT || msg->seq >= 64 || fake->seqs [msg->seq] < 2)
        return;
    drover_msg_t *reply = drover_msg_new (DROVER_MSG_TASK_ACCEPTED);
    reply->seq = msg->seq;
    reply->task = 500 + msg->seq;
    strcpy (reply->state_id, S_STATE_ID);
    s_fake_send (fake, route, &reply);
}

//  SUBMIT: ACCEPTED (task 1000 + seq) with the state id; WAIT naming it:
//  412, as a broker whose state is another would say
static void
s_state_changed (fake_t *fake, zframe_t *route, drover_msg_t *msg)
{
    if (msg->id == DROVER_MSG_TASK_SUBMIT) {
        drover_msg_t *reply = drover_msg_new (DROVER_MSG_TASK_ACCEPTED);
        reply->seq = msg->seq;
        reply->task = 1000 + msg->seq;
        strcpy (reply->state_id, S_STATE_ID);
        s_fake_send (fake, route, &reply);
    }
    else
    if (msg->id == DROVER_MSG_TASK_WAIT && streq (msg->state_id, S_STATE_ID))
        s_fake_error (fake, route, msg, DROVER_CODE_STATE_CHANGED, "state id is not ours");
}

//  A keyed submit the broker does not answer goes again, same seq and
//  key, after the resend interval, sync and async; one without a key is
//  never sent twice (it would be a second task). Before, the client gave
//  up at the timeout, and a submit lost with a broker's crash was lost.
static void
test_keyed_submit_sent_again_after_silence (void **state)
{
    fake_t fake;
    char endpoint [64];
    zactor_t *actor = s_fake_start (&fake, s_ignore_first_copy, endpoint);
    drover_client_t *client = drover_client_new (endpoint);
    drover_client_set_resend (client, 150);
    drover_client_set_timeout (client, 3000);
    const char *argv [] = { "true" };
    drover_submit_t *submit = drover_submit_new (1, argv);
    assert_int_equal (drover_submit_set_key (submit, ""), -1);
    assert_int_equal (drover_submit_set_key (submit, "tab\there"), -1);
    assert_null (drover_submit_msg (submit)->key);
    assert_int_equal (drover_submit_set_key (submit, "batch:1"), 0);
    assert_string_equal (drover_client_state_id (client), "");
    uint64_t task = 0;
    assert_int_equal (drover_client_submit (client, submit, &task), 0);
    assert_true (task == 500 + drover_submit_msg (submit)->seq);
    uint32_t sync_seq = drover_submit_msg (submit)->seq;
    assert_string_equal (drover_client_state_id (client), S_STATE_ID);

    s_acks_t acks = { (int *) zmalloc (sizeof (int) * 4), 0, 0, false };
    drover_client_set_ack_handler (client, s_on_ack, &acks);
    uint32_t async_seq [3];
    for (int index = 0; index < 3; index++) {
        char key [16];
        snprintf (key, sizeof key, "batch:%d", index + 2);
        assert_int_equal (drover_submit_set_key (submit, key), 0);
        async_seq [index] = drover_client_submit_async (client, submit, (uintptr_t) index);
        assert_true (async_seq [index] > 0);
    }
    assert_int_equal (drover_client_flush (client), 0);
    for (int index = 0; index < 3; index++)
        assert_int_equal (acks.acks [index], 1);

    //  Without a key: sent once, then the timeout
    assert_int_equal (drover_submit_set_key (submit, NULL), 0);
    drover_client_set_timeout (client, 600);
    assert_int_equal (drover_client_submit (client, submit, &task), -1);
    assert_int_equal (drover_client_error_code (client), DROVER_CLIENT_ERR_TIMEOUT);
    uint32_t bare_seq = drover_submit_msg (submit)->seq;
    drover_submit_destroy (&submit);
    drover_client_destroy (&client);
    zactor_destroy (&actor);
    assert_true (fake.seqs [sync_seq] >= 2);
    for (int index = 0; index < 3; index++)
        assert_true (fake.seqs [async_seq [index]] >= 2);
    assert_int_equal (fake.seqs [bare_seq], 1);
    assert_string_equal (fake.last_key, "");
    free (acks.acks);
}

//  WAIT names the state id of the last TASK ACCEPTED; a broker with
//  another state answers 412, and the wait fails saying so
static void
test_wait_state_changed_fails_clearly (void **state)
{
    fake_t fake;
    char endpoint [64];
    zactor_t *actor = s_fake_start (&fake, s_state_changed, endpoint);
    drover_client_t *client = drover_client_new (endpoint);
    const char *argv [] = { "true" };
    drover_submit_t *submit = drover_submit_new (1, argv);
    uint64_t task = 0;
    assert_int_equal (drover_client_submit (client, submit, &task), 0);
    assert_int_equal (drover_client_wait (client, &task, 1, NULL, NULL, NULL), -1);
    assert_int_equal (drover_client_error_code (client), DROVER_CODE_STATE_CHANGED);
    assert_non_null (strstr (drover_client_error_text (client),
                             "broker state changed: tasks submitted before are unknown to it"));
    assert_string_equal (drover_client_code_name (DROVER_CODE_STATE_CHANGED),
                         "broker state changed");
    drover_submit_destroy (&submit);
    drover_client_destroy (&client);
    zactor_destroy (&actor);
    assert_string_equal (fake.last_state_id, S_STATE_ID);
}

//  Count deliveries per task (tasks 1..N)
typedef struct {
    int count [32];             //  deliveries per task id below 32
    int other;                  //  deliveries of any other id
    bool bad_output;            //  stdout was not "out-<task>\n"
    size_t last_done;           //  last progress: done
    size_t last_total;          //  last progress: total
    int progress_calls;         //  progress callbacks
    size_t big;                 //  deliveries in the large test
} s_done_t;

//  Count one delivery; check its output
static void
s_on_done (const drover_result_t *result, void *arg)
{
    const drover_msg_t *done = drover_result_msg (result);
    s_done_t *record = (s_done_t *) arg;
    char expected [64];
    snprintf (expected, sizeof expected, "out-%llu\n", (unsigned long long) done->task);
    if (done->out_size != strlen (expected) || memcmp (done->out, expected, done->out_size))
        record->bad_output = true;
    if (done->task < 32)
        record->count [done->task]++;
    else
        record->other++;
}

//  Keep the last progress report
static void
s_on_progress (size_t done, size_t total, void *arg)
{
    s_done_t *record = (s_done_t *) arg;
    record->last_done = done;
    record->last_total = total;
    record->progress_calls++;
}

//  Each result delivered exactly once, though the broker sends each twice
static void
test_wait_delivers_each_once (void **state)
{
    fake_t fake;
    char endpoint [64];
    zactor_t *actor = s_fake_start (&fake, s_done_twice, endpoint);
    drover_client_t *client = drover_client_new (endpoint);
    uint64_t ids [] = { 1, 2, 3, 2 };       //  a repeated id counts once
    s_done_t record;
    memset (&record, 0, sizeof record);
    assert_int_equal (drover_client_wait (client, ids, 4, s_on_done, s_on_progress, &record), 0);
    assert_int_equal (record.count [1], 1);
    assert_int_equal (record.count [2], 1);
    assert_int_equal (record.count [3], 1);
    assert_int_equal (record.other, 0);
    assert_false (record.bad_output);
    assert_int_equal (record.last_done, 3);
    assert_int_equal (record.last_total, 3);
    assert_true (record.progress_calls >= 2);

    //  The late duplicates are not kept for, or delivered to, a later wait
    memset (&record, 0, sizeof record);
    uint64_t again [] = { 3 };
    assert_int_equal (drover_client_wait (client, again, 1, s_on_done, NULL, &record), 0);
    assert_int_equal (record.count [3], 1);
    assert_int_equal (record.count [1] + record.count [2] + record.other, 0);
    drover_client_destroy (&client);
    zactor_destroy (&actor);
    //  The second wait may be answered by the duplicate already queued for
    //  task 3, and its own WAIT dropped by the linger-0 destroy before the
    //  fake counts it: only the first WAIT is certain to arrive
    assert_true (fake.requests [DROVER_MSG_TASK_WAIT] >= 1);
    assert_true (fake.requests [DROVER_MSG_TASK_WAIT] <= 2);
}

//  More ids than one WAIT may carry go in several WAITs
static void
test_wait_many_ids_in_chunks (void **state)
{
    fake_t fake;
    char endpoint [64];
    zactor_t *actor = s_fake_start (&fake, s_ignore_first_wait, endpoint);
    drover_client_t *client = drover_client_new (endpoint);
    drover_client_set_resend (client, 200);
    size_t count = DROVER_WAIT_MAX * 2 + 5;
    uint64_t *ids = (uint64_t *) zmalloc (sizeof (uint64_t) * count);
    for (size_t index = 0; index < count; index++)
        ids [index] = 100 + index;
    s_done_t record;
    memset (&record, 0, sizeof record);
    assert_int_equal (drover_client_wait (client, ids, count, s_on_done, s_on_progress, &record), 0);
    assert_int_equal (record.other, count);
    assert_false (record.bad_output);
    assert_int_equal (record.last_done, count);
    drover_client_destroy (&client);
    zactor_destroy (&actor);
    //  Three WAITs, the first chunk ignored, then at least its re-send
    assert_true (fake.requests [DROVER_MSG_TASK_WAIT] >= 4);
    assert_true (fake.wait_ids >= count + DROVER_WAIT_MAX);
    free (ids);
}

//  The first WAIT goes unanswered: the wait sends it again and completes
static void
test_wait_resends_unanswered (void **state)
{
    fake_t fake;
    char endpoint [64];
    zactor_t *actor = s_fake_start (&fake, s_ignore_first_wait, endpoint);
    drover_client_t *client = drover_client_new (endpoint);
    drover_client_set_resend (client, 100);
    drover_client_set_timeout (client, 3000);
    uint64_t ids [] = { 4, 5 };
    s_done_t record;
    memset (&record, 0, sizeof record);
    int64_t started = zclock_mono ();
    assert_int_equal (drover_client_wait (client, ids, 2, s_on_done, NULL, &record), 0);
    assert_true (zclock_mono () - started < 3000);
    assert_int_equal (record.count [4], 1);
    assert_int_equal (record.count [5], 1);
    drover_client_destroy (&client);
    zactor_destroy (&actor);
    //  The fake answers only the second WAIT, so the wait ended after it
    //  counted at least two (a slow machine may let a third go out)
    assert_true (fake.requests [DROVER_MSG_TASK_WAIT] >= 2);
}

//  A WAIT the broker refuses ends the wait with its code
static void
test_wait_refused (void **state)
{
    fake_t fake;
    char endpoint [64];
    zactor_t *actor = s_fake_start (&fake, s_refuse_wait, endpoint);
    drover_client_t *client = drover_client_new (endpoint);
    uint64_t ids [] = { 4 };
    assert_int_equal (drover_client_wait (client, ids, 1, NULL, NULL, NULL), -1);
    assert_int_equal (drover_client_error_code (client), DROVER_CODE_BAD_REQUEST);
    assert_string_equal (drover_client_error_text (client), "no task ids");
    drover_client_destroy (&client);
    zactor_destroy (&actor);
}

//  A notify's TASK DONE that came with the submit is given to the next wait
static void
test_notify_done_kept_for_wait (void **state)
{
    fake_t fake;
    char endpoint [64];
    zactor_t *actor = s_fake_start (&fake, s_notify, endpoint);
    drover_client_t *client = drover_client_new (endpoint);
    const char *argv [] = { "true" };
    drover_submit_t *submit = drover_submit_new (1, argv);
    drover_submit_set_notify (submit, true);
    uint64_t task = 0;
    assert_int_equal (drover_client_submit (client, submit, &task), 0);
    assert_int_equal (task, 77);
    //  A sync request after it makes sure the TASK DONE has come in
    assert_int_equal (drover_client_submit (client, submit, &task), 0);
    s_done_t record;
    memset (&record, 0, sizeof record);
    drover_client_set_timeout (client, 500);
    assert_int_equal (drover_client_wait (client, &task, 1, s_on_done, NULL, &record), 0);
    assert_int_equal (record.other, 1);
    assert_false (record.bad_output);
    drover_submit_destroy (&submit);
    drover_client_destroy (&client);
    zactor_destroy (&actor);
}

#define S_NOTIFIED  20000       //  tasks kept in flight through the done handler
#define S_INFLIGHT  1000        //  at most this many without their TASK DONE

//  What the done handler saw
typedef struct {
    int *count;                 //  deliveries per task, by task - 1001
    size_t done;                //  deliveries in all
    bool bad;                   //  a task id out of range, or wrong output
} s_notified_t;

//  Keep the state of the one TASK DONE a wait delivered
static void
s_on_state (const drover_result_t *result, void *arg)
{
    const drover_msg_t *done = drover_result_msg (result);
    *(int *) arg = done->state;
}

//  Count one NOTIFY TASK DONE
static void
s_on_notified (const drover_result_t *result, void *arg)
{
    const drover_msg_t *done = drover_result_msg (result);
    s_notified_t *notified = (s_notified_t *) arg;
    char expected [64];
    snprintf (expected, sizeof expected, "out-%llu\n", (unsigned long long) done->task);
    if (done->task < 1001 || done->task > 1000 + S_NOTIFIED
    ||  done->out_size != strlen (expected) || memcmp (done->out, expected, done->out_size)) {
        notified->bad = true;
        return;
    }
    notified->count [done->task - 1001]++;
    notified->done++;
}

//  A window of notify submits kept full through the done handler alone:
//  each TASK DONE comes to it exactly once, read in bursts, nothing lost,
//  no TASK WAIT sent, and none kept back for a later wait
static void
test_done_handler_keeps_a_window (void **state)
{
    fake_t fake;
    char endpoint [64];
    zactor_t *actor = s_fake_start (&fake, s_notify_each, endpoint);
    drover_client_t *client = drover_client_new (endpoint);
    s_notified_t notified = { (int *) zmalloc (sizeof (int) * S_NOTIFIED), 0, false };
    drover_client_set_done_handler (client, s_on_notified, &notified);
    assert_int_equal (drover_client_set_window (client, S_INFLIGHT), 0);
    const char *argv [] = { "true" };
    drover_submit_t *submit = drover_submit_new (1, argv);
    drover_submit_set_notify (submit, true);
    size_t sent = 0;
    int64_t deadline = zclock_mono () + 30000;
    while (notified.done < S_NOTIFIED && zclock_mono () < deadline) {
        while (sent < S_NOTIFIED && sent - notified.done < S_INFLIGHT) {
            assert_true (drover_client_submit_async (client, submit, sent) > 0);
            sent++;
        }
        assert_true (drover_client_poll (client, 1000) >= 0);
    }
    assert_int_equal (drover_client_flush (client), 0);
    assert_false (notified.bad);
    assert_int_equal (notified.done, S_NOTIFIED);
    for (int index = 0; index < S_NOTIFIED; index++)
        assert_int_equal (notified.count [index], 1);
    //  Given to the handler, not kept: a wait for one gets the broker's
    //  answer to its WAIT (UNKNOWN here), not the SUCCEEDED the handler had
    uint64_t task = 1001;
    int seen = -1;
    assert_int_equal (drover_client_wait (client, &task, 1, s_on_state, NULL, &seen), 0);
    assert_int_equal (seen, DROVER_TASK_UNKNOWN);
    assert_int_equal (notified.done, S_NOTIFIED);
    drover_submit_destroy (&submit);
    drover_client_destroy (&client);
    zactor_destroy (&actor);
    assert_int_equal (fake.requests [DROVER_MSG_TASK_SUBMIT], S_NOTIFIED);
    assert_int_equal (fake.requests [DROVER_MSG_TASK_WAIT], 1);     //  the last wait's
    free (notified.count);
}

//  cancel, admin, workers and tasks: request and reply round trips
static void
test_admin_round_trips (void **state)
{
    fake_t fake;
    char endpoint [64];
    zactor_t *actor = s_fake_start (&fake, s_admin, endpoint);
    drover_client_t *client = drover_client_new (endpoint);

    assert_int_equal (drover_client_cancel (client, 7), 0);
    assert_int_equal (drover_client_cancel (client, 8), -1);
    assert_int_equal (drover_client_error_code (client), DROVER_CODE_NOT_FOUND);
    assert_string_equal (drover_client_error_text (client), "no such task");

    assert_int_equal (drover_client_admin (client, "alpha", DROVER_ADMIN_DRAIN), 0);
    assert_int_equal (drover_client_admin (client, "gamma", DROVER_ADMIN_HOLD), -1);
    assert_int_equal (drover_client_error_code (client), DROVER_CODE_NOT_FOUND);
    assert_int_equal (drover_client_admin (client, "has space", DROVER_ADMIN_HOLD), -1);
    assert_int_equal (drover_client_error_code (client), DROVER_CLIENT_ERR_INVALID);

    //  The listings: the API's own rows, made from the wire's tables
    drover_workers_t *workers = drover_client_workers (client);
    assert_non_null (workers);
    assert_int_equal (drover_workers_size (workers), 2);
    assert_string_equal (drover_workers_row (workers, 0)->id, "alpha");
    assert_int_equal (drover_workers_row (workers, 0)->procs, 4);
    assert_int_equal (drover_workers_row (workers, 1)->admin, DROVER_ADMIN_HOLD);
    assert_string_equal (drover_workers_row (workers, 1)->why, "");
    assert_null (drover_workers_row (workers, 2));
    drover_workers_destroy (&workers);
    drover_workers_destroy (&workers);

    drover_tasks_t *tasks = drover_client_tasks (client, DROVER_TASK_RUNNING, 33);
    assert_non_null (tasks);
    assert_int_equal (drover_tasks_count (tasks, DROVER_TASK_QUEUED), 5);
    assert_int_equal (drover_tasks_count (tasks, DROVER_TASK_RUNNING), 33);
    assert_int_equal (drover_tasks_count (tasks, DROVER_TASK_STATES), 0);
    assert_int_equal (drover_tasks_size (tasks), 2);
    assert_int_equal (drover_tasks_row (tasks, 0)->state, DROVER_TASK_RUNNING);
    assert_int_equal (drover_tasks_row (tasks, 0)->end, DROVER_END_NONE);
    assert_string_equal (drover_tasks_row (tasks, 0)->summary, "sh -c true");
    assert_int_equal (drover_tasks_row (tasks, 1)->end, DROVER_END_TIMED_OUT);
    assert_null (drover_tasks_row (tasks, 2));
    drover_tasks_destroy (&tasks);

    drover_client_destroy (&client);
    zactor_destroy (&actor);
    assert_int_equal (fake.requests [DROVER_MSG_TASK_CANCEL], 2);
    assert_int_equal (fake.requests [DROVER_MSG_WORKER_ADMIN], 2);
    assert_string_equal (fake.last_worker, "gamma");
    assert_int_equal (fake.last_admin, DROVER_ADMIN_HOLD);
    //  Its level said once on its one connection, before the first request
    assert_int_equal (fake.hellos, 1);
}

//  A reply that comes after its request timed out is not taken for the
//  answer to the next request
static void
test_late_reply_not_mistaken (void **state)
{
    fake_t fake;
    char endpoint [64];
    zactor_t *actor = s_fake_start (&fake, s_late_reply, endpoint);
    drover_client_t *client = drover_client_new (endpoint);
    drover_client_set_timeout (client, 200);
    assert_null (drover_client_workers (client));
    assert_int_equal (drover_client_error_code (client), DROVER_CLIENT_ERR_TIMEOUT);
    drover_client_set_timeout (client, 5000);
    drover_workers_t *workers = drover_client_workers (client);
    assert_non_null (workers);
    assert_int_equal (drover_workers_size (workers), 2);
    drover_workers_destroy (&workers);
    drover_client_destroy (&client);
    zactor_destroy (&actor);
}

//  The endpoint comes from DROVER_BROKER unless given; nonsense is refused
static void
test_endpoint_from_environment (void **state)
{
    setenv ("DROVER_BROKER", "tcp://127.0.0.1:5999", 1);
    drover_client_t *client = drover_client_new (NULL);
    assert_non_null (client);
    assert_string_equal (drover_client_endpoint (client), "tcp://127.0.0.1:5999");
    drover_client_destroy (&client);
    unsetenv ("DROVER_BROKER");
    client = drover_client_new (NULL);
    assert_string_equal (drover_client_endpoint (client), DROVER_CLIENT_ENDPOINT);
    drover_client_destroy (&client);
    assert_null (drover_client_new ("nonsense"));
}


//  ---------------------------------------------------------------------
//  The drover executable's client commands against the fake broker

//  Run the drover executable with argv (after the program name); returns
//  its exit status and fills *output_p with its stdout and stderr together
static int
s_run (const char *const args [], char **output_p)
{
    char log [64];
    snprintf (log, sizeof log, "/tmp/test-drover-client-%d.log", (int) getpid ());
    unlink (log);
    const char *argv [32] = { DROVER_BIN };
    for (int index = 0; args [index] && index < 30; index++)
        argv [index + 1] = args [index];
    pid_t pid = testutil_spawn (argv, log);
    assert_true (pid > 0);
    int status = testutil_wait_exit (pid, 20000);
    if (status == -1)
        testutil_stop (pid, 100);
    assert_true (status != -1 && WIFEXITED (status));
    *output_p = testutil_slurp (log);
    assert_non_null (*output_p);
    unlink (log);
    return WEXITSTATUS (status);
}

//  Run the drover executable with args (s_run), assert it exits with
//  status and says each needle (the list NULL-terminated), showing its
//  output if not
static void
s_run_says (const char *const args [], int status, ...)
{
    char *output;
    int exit_status = s_run (args, &output);
    if (exit_status != status)
        fail_msg ("drover %s: exit %d, not %d: %s", args [0], exit_status, status, output);
    va_list needles;
    va_start (needles, status);
    for (const char *needle = va_arg (needles, const char *); needle;
         needle = va_arg (needles, const char *))
        if (!strstr (output, needle))
            fail_msg ("drover %s said no '%s': %s", args [0], needle, output);
    va_end (needles);
    free (output);
}

//  SUBMIT with notify: ACCEPTED (task 90), then a FAILED TASK DONE with
//  exit 3 and output on both streams
static void
s_notify_failed (fake_t *fake, zframe_t *route, drover_msg_t *msg)
{
    if (msg->id == DROVER_MSG_TASK_SUBMIT) {
        s_fake_accept (fake, route, msg, 90);
        drover_msg_t *done = drover_msg_new (DROVER_MSG_TASK_DONE);
        done->task = 90;
        done->attempt = 1;
        done->state = DROVER_TASK_FAILED;
        done->end = DROVER_END_FAILED;
        done->exit_code = 3;
        drover_msg_set_output (done, (byte *) "partial\n", 8, (byte *) "boom\n", 5);
        drover_msg_set_reason (done, "exit 3");
        s_fake_send (fake, route, &done);
    }
    else
    if (msg->id == DROVER_MSG_TASK_WAIT)
        s_fake_reply (fake, route, msg, DROVER_MSG_OK);
}

//  SUBMIT with notify: ACCEPTED (task 91 + the submit's priority), then a
//  FAILED TASK DONE whose reason's words mislead: priority 0, a timeout
//  killed by SIGKILL and said "killed after 1000 ms"; priority 1, the
//  task's own exit 3 said "timed out waiting for the lock"
static void
s_notify_misleading (fake_t *fake, zframe_t *route, drover_msg_t *msg)
{
    if (msg->id == DROVER_MSG_TASK_SUBMIT) {
        s_fake_accept (fake, route, msg, 91 + msg->priority);
        drover_msg_t *done = drover_msg_new (DROVER_MSG_TASK_DONE);
        done->task = 91 + msg->priority;
        done->attempt = 1;
        done->state = DROVER_TASK_FAILED;
        if (msg->priority == 0) {
            done->end = DROVER_END_TIMED_OUT;
            done->exit_code = -1;
            done->signal = 9;
            drover_msg_set_reason (done, "killed after 1000 ms");
        }
        else {
            done->end = DROVER_END_FAILED;
            done->exit_code = 3;
            drover_msg_set_reason (done, "timed out waiting for the lock");
        }
        s_fake_send (fake, route, &done);
    }
    else
    if (msg->id == DROVER_MSG_TASK_WAIT)
        s_fake_reply (fake, route, msg, DROVER_MSG_OK);
}

//  WAIT: task 1 SUCCEEDED, ids below 100 EXPIRED, the others UNKNOWN
static void
s_expired_and_unknown (fake_t *fake, zframe_t *route, drover_msg_t *msg)
{
    if (msg->id != DROVER_MSG_TASK_WAIT)
        return;
    s_fake_reply (fake, route, msg, DROVER_MSG_OK);
    for (uint32_t index = 0; index < msg->ntasks; index++) {
        uint64_t task = msg->tasks [index];
        if (task == 1) {
            s_fake_done (fake, route, task, msg->seq);
            continue;
        }
        drover_msg_t *done = drover_msg_new (DROVER_MSG_TASK_DONE);
        done->seq = msg->seq;
        done->task = task;
        done->state = DROVER_TASK_UNKNOWN;
        done->end = task < 100? DROVER_END_EXPIRED: DROVER_END_UNKNOWN;
        s_fake_send (fake, route, &done);
    }
}

//  drover wait counted a task the broker no longer holds as failed: an
//  expired result and an unknown id are counted apart, never as failed
static void
test_cli_wait_counts_expired_and_unknown_apart (void **state)
{
    fake_t fake;
    char endpoint [64];
    zactor_t *actor = s_fake_start (&fake, s_expired_and_unknown, endpoint);
    const char *wait [] = { "wait", "--broker", endpoint, "1", "7", "8", "500", NULL };
    s_run_says (wait, 1, "4 tasks: 1 succeeded, 0 failed, 0 cancelled, 2 expired, 1 unknown",
                "expired", NULL);
    zactor_destroy (&actor);
}

//  submit --wait once told a timeout by the reason's words ("timed out..."):
//  a timeout said otherwise exited 137 (signal 9), a task's own exit 3
//  whose reason began "timed out" exited 124. The outcome decides.
static void
test_cli_exit_status_from_outcome (void **state)
{
    fake_t fake;
    char endpoint [64];
    zactor_t *actor = s_fake_start (&fake, s_notify_misleading, endpoint);
    const char *timed_out [] = { "submit", "--broker", endpoint, "--wait", "--", "sleep", "9",
                                 NULL };
    s_run_says (timed_out, 124, "task 91 FAILED (timed out): killed after 1000 ms", NULL);
    const char *exited [] = { "submit", "--broker", endpoint, "--priority", "1", "--wait", "--",
                              "false", NULL };
    s_run_says (exited, 3, NULL);
    zactor_destroy (&actor);
}

//  submit prints the id; a file of commands prints one id per command
static void
test_cli_submit_prints_ids (void **state)
{
    fake_t fake;
    char endpoint [64];
    zactor_t *actor = s_fake_start (&fake, s_accept_all, endpoint);
    char *output;
    const char *one [] = { "submit", "--broker", endpoint, "--priority", "-2", "--label",
                           "gpu=a100", "--mem", "2G", "--", "echo", "hi", NULL };
    assert_int_equal (s_run (one, &output), 0);
    assert_string_equal (output, "1001\n");
    free (output);

    char path [64];
    snprintf (path, sizeof path, "/tmp/test-drover-client-%d.txt", (int) getpid ());
    FILE *file = fopen (path, "w");
    assert_non_null (file);
    fprintf (file, "echo one\n\n# a comment\necho two\n   \necho three\n");
    fclose (file);
    setenv ("DROVER_BROKER", endpoint, 1);
    const char *batch [] = { "submit", "--file", path, "--window", "2", NULL };
    assert_int_equal (s_run (batch, &output), 0);
    unsetenv ("DROVER_BROKER");
    assert_non_null (strstr (output, "1001\n1002\n1003\n"));
    free (output);

    //  The 100th submit is refused: said with its line, the others' ids printed
    file = fopen (path, "w");
    assert_non_null (file);
    for (int line = 1; line <= 120; line++)
        fprintf (file, "echo %d\n", line);
    fclose (file);
    const char *refused [] = { "submit", "--broker", endpoint, "--file", path, NULL };
    assert_int_equal (s_run (refused, &output), 1);
    assert_non_null (strstr (output, "line 100: queue full (301)"));
    assert_non_null (strstr (output, "1099\n1101\n"));
    assert_null (strstr (output, "1100\n"));
    free (output);
    unlink (path);
    zactor_destroy (&actor);
    assert_int_equal (fake.requests [DROVER_MSG_TASK_SUBMIT], 124);
    assert_string_equal (fake.last_argv0, "sh");
}

//  Bad flags name the flag and exit 2; broker errors are in plain words
static void
test_cli_errors (void **state)
{
    char *output;
    const char *procs [] = { "submit", "--procs", "many", "--", "true", NULL };
    s_run_says (procs, 2, "--procs", NULL);
    const char *bogus [] = { "tasks", "--bogus", NULL };
    s_run_says (bogus, 2, "--bogus", NULL);
    const char *missing [] = { "tasks", "--limit", NULL };
    s_run_says (missing, 2, "--limit", NULL);
    const char *unknown [] = { "frobnicate", NULL };
    s_run_says (unknown, 2, "frobnicate", NULL);
    const char *help [] = { "help", NULL };
    s_run_says (help, 0, "submit", "events", NULL);
    const char *version [] = { "--version", NULL };
    s_run_says (version, 0, "drover ", NULL);

    fake_t fake;
    char endpoint [64];
    zactor_t *actor = s_fake_start (&fake, s_refuse_all, endpoint);
    const char *refused [] = { "submit", "--broker", endpoint, "--", "true", NULL };
    s_run_says (refused, 1, "queue full (301)", NULL);
    zactor_destroy (&actor);

    char nowhere [64];
    sprintf (nowhere, "tcp://127.0.0.1:%d", testutil_free_port ());
    const char *status [] = { "--broker-timeout", "0.3", "--broker", nowhere, "status", NULL };
    int64_t started = zclock_mono ();
    assert_int_equal (s_run (status, &output), 1);
    assert_true (zclock_mono () - started < 5000);
    assert_non_null (strstr (output, "no reply"));
    free (output);
}

//  submit --wait copies the task's output and exits with its status;
//  wait prints a summary
static void
test_cli_wait (void **state)
{
    fake_t fake;
    char endpoint [64];
    zactor_t *actor = s_fake_start (&fake, s_notify_failed, endpoint);
    const char *failing [] = { "submit", "--broker", endpoint, "--wait", "--", "false", NULL };
    s_run_says (failing, 3, "partial\n", "boom\n", NULL);
    zactor_destroy (&actor);

    actor = s_fake_start (&fake, s_done_twice, endpoint);
    const char *wait [] = { "wait", "--broker", endpoint, "1", "2", "3", NULL };
    s_run_says (wait, 0, "3 tasks: 3 succeeded, 0 failed, 0 cancelled", NULL);
    zactor_destroy (&actor);
}

//  workers and tasks print tables, and JSON with --json
static void
test_cli_tables (void **state)
{
    fake_t fake;
    char endpoint [64];
    zactor_t *actor = s_fake_start (&fake, s_admin, endpoint);
    const char *workers [] = { "workers", "--broker", endpoint, NULL };
    s_run_says (workers, 0, "WORKER", "beta", "probation", NULL);
    const char *json [] = { "workers", "--json", "--broker", endpoint, NULL };
    s_run_says (json, 0, "{\"workers\":[{\"id\":\"alpha\"", NULL);
    const char *tasks [] = { "tasks", "--state", "running", "--json", "--broker", endpoint, NULL };
    s_run_says (tasks, 0, "\"state\":\"running\"", "\"command\":\"sh -c true\"",
                "\"state\":\"running\",\"outcome\":\"none\"",
                "\"state\":\"failed\",\"outcome\":\"timed_out\"", NULL);
    const char *text [] = { "tasks", "--broker", endpoint, NULL };
    s_run_says (text, 0, "OUTCOME", "timed_out", NULL);
    const char *status [] = { "status", "--broker", endpoint, NULL };
    //  beta is held: its procs are not capacity; status counts busy workers
    s_run_says (status, 0, "1/4 in use, and 0 on held or draining workers",
                "2 up (1 busy, 1 idle; 1 on probation, 0 low on disk, 1 held", NULL);
    const char *cancel [] = { "cancel", "--broker", endpoint, "7", "8", NULL };
    s_run_says (cancel, 1, "cancelled 7", "not found (404)", NULL);
    const char *drain [] = { "drain", "--broker", endpoint, "alpha", NULL };
    s_run_says (drain, 0, NULL);
    zactor_destroy (&actor);
    assert_string_equal (fake.last_worker, "alpha");
    assert_int_equal (fake.last_admin, DROVER_ADMIN_DRAIN);
}

//  Run every test
int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_submit_returns_id),
        cmocka_unit_test (test_error_reply_surfaces),
        cmocka_unit_test (test_unreachable_broker_times_out),
        cmocka_unit_test (test_pipelined_submits_all_acknowledged),
        cmocka_unit_test (test_wait_delivers_each_once),
        cmocka_unit_test (test_wait_many_ids_in_chunks),
        cmocka_unit_test (test_wait_resends_unanswered),
        cmocka_unit_test (test_wait_refused),
        cmocka_unit_test (test_done_handler_keeps_a_window),
        cmocka_unit_test (test_notify_done_kept_for_wait),
        cmocka_unit_test (test_admin_round_trips),
        cmocka_unit_test (test_late_reply_not_mistaken),
        cmocka_unit_test (test_endpoint_from_environment),
        cmocka_unit_test (test_cli_submit_prints_ids),
        cmocka_unit_test (test_keyed_submit_sent_again_after_silence),
        cmocka_unit_test (test_wait_state_changed_fails_clearly),
        cmocka_unit_test (test_cli_errors),
        cmocka_unit_test (test_cli_wait),
        cmocka_unit_test (test_cli_exit_status_from_outcome),
        cmocka_unit_test (test_cli_wait_counts_expired_and_unknown_apart),
        cmocka_unit_test (test_cli_tables),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
