/*  =========================================================================
    test_drover_worker - the worker API against a broker played by the test

    The test binds a ROUTER on tcp://127.0.0.1:* and speaks the protocol
    with the codec; the worker runs as a zactor (drover_worker_actor) with
    real sockets, and, unless a test sets a handler, real child processes.
    Every wait is on a message with a deadline.
    =========================================================================
*/

#include "testutil_wire.h"
#include "testutil_cluster.h"
#include "drover_worker.h"
#include "drover_handshake.h"
#include <poll.h>
#include <signal.h>
#include <unistd.h>

//  The broker side of one test
typedef struct {
    zsock_t *router;                //  what the worker connects to
    char endpoint [64];             //  tcp://127.0.0.1:port
    drover_worker_t *worker;        //  the worker under test
    zactor_t *actor;                //  runs the worker loop
    zframe_t *route;                //  routing id of the worker's last message
    uint32_t seq;                   //  seq of our messages
} s_broker_t;

static s_broker_t *
s_broker_new (void)
{
    s_broker_t *self = (s_broker_t *) zmalloc (sizeof (s_broker_t));
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

static void
s_broker_destroy (s_broker_t **self_p)
{
    s_broker_t *self = *self_p;
    zactor_destroy (&self->actor);
    drover_worker_destroy (&self->worker);
    zframe_destroy (&self->route);
    zsock_destroy (&self->router);
    free (self);
    *self_p = NULL;
}

//  Start the worker loop in its actor
static void
s_start (s_broker_t *self)
{
    self->actor = zactor_new (drover_worker_actor, self->worker);
    assert_non_null (self->actor);
}

//  Receive and decode one message from the worker within timeout msec,
//  keeping its route; NULL on timeout
static drover_msg_t *
s_recv (s_broker_t *self, int timeout)
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
static drover_msg_t *
s_expect (s_broker_t *self, int id, int timeout)
{
    int64_t end = zclock_mono () + timeout;
    while (zclock_mono () < end) {
        drover_msg_t *msg = s_recv (self, (int) (end - zclock_mono ()));
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
static void
s_send (s_broker_t *self, drover_msg_t **msg_p)
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
static void
s_welcome_state (s_broker_t *self, uint32_t heartbeat, const char *state_id)
{
    drover_msg_t *welcome = drover_msg_new (DROVER_MSG_WORKER_WELCOME);
    welcome->heartbeat = heartbeat;
    strcpy (welcome->state_id, state_id);
    s_send (self, &welcome);
}

//  Answer the worker: WELCOME with a heartbeat interval, no state id
static void
s_welcome (s_broker_t *self, uint32_t heartbeat)
{
    s_welcome_state (self, heartbeat, "");
}

//  Start the worker and take it through HELLO / WELCOME, which names a
//  heartbeat of msec
static void
s_register_beating (s_broker_t *self, uint32_t msec)
{
    s_start (self);
    drover_msg_t *hello = s_expect (self, DROVER_MSG_WORKER_HELLO, 5000);
    drover_msg_destroy (&hello);
    s_welcome (self, msec);
}

//  Start the worker and register it, with heartbeats every 100 msec
static void
s_register (s_broker_t *self)
{
    s_register_beating (self, 100);
}

//  Answer a message with OK or ERROR code, echoing its seq
static void
s_reply (s_broker_t *self, drover_msg_t *request, uint16_t code)
{
    drover_msg_t *reply = drover_msg_new (code == DROVER_CODE_OK? DROVER_MSG_OK: DROVER_MSG_ERROR);
    reply->seq = request->seq;
    reply->code = code;
    if (code != DROVER_CODE_OK)
        drover_msg_set_reason (reply, "test says no");
    s_send (self, &reply);
}

//  Answer a message with OK or ERROR code (s_reply) and destroy it
static void
s_answer (s_broker_t *self, drover_msg_t **request_p, uint16_t code)
{
    s_reply (self, *request_p, code);
    drover_msg_destroy (request_p);
}

//  Offer an attempt of sh -c script
static void
s_offer (s_broker_t *self, uint64_t task, uint32_t attempt, const char *script, uint32_t timeout)
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
    s_send (self, &offer);
}

//  Expect TASK STARTED for task, attempt
static void
s_expect_started (s_broker_t *self, uint64_t task, uint32_t attempt)
{
    drover_msg_t *started = s_expect (self, DROVER_MSG_TASK_STARTED, 5000);
    assert_string_equal (started->worker, "w-test");
    assert_true (started->task == task);
    assert_int_equal (started->attempt, attempt);
    drover_msg_destroy (&started);
}

//  Offer an attempt of sh -c script and see it start
static void
s_offer_started (s_broker_t *self, uint64_t task, uint32_t attempt, const char *script,
                 uint32_t timeout)
{
    s_offer (self, task, attempt, script, timeout);
    s_expect_started (self, task, attempt);
}

//  A registered worker running attempt of task (sh -c script): its TASK
//  STARTED seen
static s_broker_t *
s_broker_running (uint64_t task, uint32_t attempt, const char *script)
{
    s_broker_t *self = s_broker_new ();
    s_register (self);
    s_offer_started (self, task, attempt, script, 0);
    return self;
}

//  Expect the TASK RESULT of task (caller answers it)
static drover_msg_t *
s_expect_result (s_broker_t *self, uint64_t task)
{
    drover_msg_t *result = s_expect (self, DROVER_MSG_TASK_RESULT, 5000);
    assert_true (result->task == task);
    return result;
}

//  Send LEAVE and see the loop end: GOODBYE, then DONE on the actor pipe.
//  The worker reads its socket in order, so every answer we sent before
//  has been acted on; then ask the actor for its counters.
static void
s_leave (s_broker_t *self, uint64_t *tasks, uint64_t *acked)
{
    drover_msg_t *leave = drover_msg_new (DROVER_MSG_WORKER_LEAVE);
    s_send (self, &leave);
    drover_msg_t *goodbye = s_expect (self, DROVER_MSG_WORKER_GOODBYE, 5000);
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

//  s_leave, once one result was acked and the worker registered
//  registrations times
static void
s_leave_acked_one (s_broker_t *self, int registrations)
{
    uint64_t tasks, acked;
    s_leave (self, &tasks, &acked);
    assert_true (acked == 1);
    assert_true (drover_worker_registrations (self->worker) == (uint64_t) registrations);
}

//  HELLO carries the worker's identity and resources; after WELCOME,
//  heartbeats arrive with stats
static void
test_hello_welcome_heartbeats (void **state)
{
    s_broker_t *broker = s_broker_new ();
    assert_int_equal (drover_worker_set_label (broker->worker, "gpu=none"), 0);
    assert_int_equal (drover_worker_set_label (broker->worker, "zone=a"), 0);
    assert_int_equal (drover_worker_set_label (broker->worker, "not a label"), -1);
    drover_worker_set_workdir (broker->worker, "/tmp");
    s_start (broker);

    drover_msg_t *hello = s_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    assert_string_equal (hello->worker, "w-test");
    assert_true (hello->epoch == drover_worker_epoch (broker->worker));
    assert_true (hello->epoch != 0);
    assert_int_equal (hello->procs, 3);
    assert_true (hello->mem == 1ULL << 30);
    assert_int_equal (hello->nlabels, 2);
    assert_string_equal (hello->labels [0], "gpu=none");
    assert_string_equal (hello->labels [1], "zone=a");
    assert_int_equal (hello->nrunning, 0);
    drover_msg_destroy (&hello);

    //  No heartbeat before WELCOME; after it, at the broker's interval
    s_welcome (broker, 50);
    for (int count = 0; count < 3; count++) {
        drover_msg_t *heartbeat = s_expect (broker, DROVER_MSG_WORKER_HEARTBEAT, 2000);
        assert_string_equal (heartbeat->worker, "w-test");
        assert_true (heartbeat->epoch == drover_worker_epoch (broker->worker));
        assert_true (heartbeat->stats.mem_total > 0);
        assert_true (heartbeat->stats.disk_total > 0);
        assert_int_equal (heartbeat->stats.running, 0);
        drover_msg_destroy (&heartbeat);
    }
    s_broker_destroy (&broker);
}

//  OFFER -> STARTED -> RESULT with the child's output; OK acknowledges it
static void
test_offer_started_result (void **state)
{
    s_broker_t *broker = s_broker_running (42, 1, "echo hello; echo oops >&2; exit 3");
    drover_msg_t *result = s_expect (broker, DROVER_MSG_TASK_RESULT, 5000);
    assert_string_equal (result->worker, "w-test");
    assert_true (result->task == 42);
    assert_int_equal (result->attempt, 1);
    assert_int_equal (result->outcome, DROVER_OUTCOME_EXITED);
    assert_int_equal (result->exit_code, 3);
    assert_int_equal (result->out_size, 6);
    assert_memory_equal (result->out, "hello\n", 6);
    assert_int_equal (result->err_size, 5);
    assert_int_equal (result->truncated, 0);
    assert_true (result->seq != 0);
    s_answer (broker, &result, DROVER_CODE_OK);

    //  A stale answer drops a result too: it is not sent again
    s_offer_started (broker, 43, 2, "exit 0", 0);
    result = s_expect (broker, DROVER_MSG_TASK_RESULT, 5000);
    s_answer (broker, &result, DROVER_CODE_STALE);

    //  A timeout is enforced by the worker
    s_offer_started (broker, 44, 1, "sleep 30", 100);
    result = s_expect (broker, DROVER_MSG_TASK_RESULT, 5000);
    assert_int_equal (result->outcome, DROVER_OUTCOME_TIMEDOUT);
    s_answer (broker, &result, DROVER_CODE_OK);

    uint64_t tasks, acked;
    s_leave (broker, &tasks, &acked);
    assert_true (tasks == 3);
    assert_true (acked == 2);
    s_broker_destroy (&broker);
    assert_null (broker);
}

//  A broker of level 1 (drover 0.1) refuses a HELLO of level 2 as
//  malformed: the worker says HELLO again as level 1 on that connection
//  (no state id, level or release), registers, and runs work
static void
test_older_broker_gets_a_level_1_hello (void **state)
{
    s_broker_t *broker = s_broker_new ();
    s_start (broker);
    drover_msg_t *hello = s_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    assert_int_equal (drover_msg_level (hello), DROVER_MSG_LEVEL);
    assert_string_equal (hello->release, DROVER_RELEASE);
    s_answer (broker, &hello, DROVER_CODE_BAD_REQUEST);
    hello = s_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    assert_int_equal (drover_msg_level (hello), 1);
    assert_int_equal (hello->implied, 1);       //  six fields: level 1's HELLO
    assert_int_equal (hello->level, 0);
    assert_string_equal (hello->release, "");
    drover_msg_destroy (&hello);
    //  A level-1 WELCOME (no state id, no level)
    drover_msg_t *welcome = drover_msg_new (DROVER_MSG_WORKER_WELCOME);
    welcome->seq = broker->seq = 1;
    welcome->heartbeat = 100;
    zframe_t *frame = drover_msg_encode_level (welcome, 1);
    drover_msg_destroy (&welcome);
    zframe_t *route = zframe_dup (broker->route);
    zmsg_t *out = zmsg_new ();
    zmsg_append (out, &route);
    zmsg_append (out, &frame);
    assert_int_equal (zmsg_send (&out, broker->router), 0);
    s_offer_started (broker, 7, 1, "echo old", 0);
    drover_msg_t *result = s_expect (broker, DROVER_MSG_TASK_RESULT, 5000);
    assert_true (result->task == 7);
    assert_int_equal (result->outcome, DROVER_OUTCOME_EXITED);
    assert_int_equal (result->out_size, 4);
    s_answer (broker, &result, DROVER_CODE_OK);
    s_leave_acked_one (broker, 1);
    s_broker_destroy (&broker);
}

//  An unacknowledged result is sent again after ERROR 401 and a new
//  HELLO / WELCOME, under the same seq
static void
test_result_resent_after_401 (void **state)
{
    s_broker_t *broker = s_broker_running (7, 3, "echo once");
    drover_msg_t *result = s_expect (broker, DROVER_MSG_TASK_RESULT, 5000);
    uint32_t seq = result->seq;
    s_answer (broker, &result, DROVER_CODE_NOT_REGISTERED);

    drover_msg_t *hello = s_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    assert_string_equal (hello->worker, "w-test");
    assert_int_equal (hello->nrunning, 1);      //  it finished, its result unacknowledged
    assert_true (hello->running [0].task == 7);
    assert_int_equal (hello->running [0].attempt, 3);
    drover_msg_destroy (&hello);
    s_welcome (broker, 100);
    result = s_expect_result (broker, 7);
    assert_int_equal (result->attempt, 3);
    assert_int_equal (result->seq, seq);
    assert_int_equal (result->out_size, 5);
    assert_memory_equal (result->out, "once\n", 5);
    s_answer (broker, &result, DROVER_CODE_OK);

    uint64_t tasks, acked;
    s_leave (broker, &tasks, &acked);
    assert_true (acked == 1);
    s_broker_destroy (&broker);
}


//  A HELLO listed only the attempts whose process still ran: one whose
//  result was not yet acknowledged was missing, so a broker that had
//  restarted (or lost the worker) requeued it while its result was on the
//  way, and the task ran twice. Such attempts are listed too.
static void
test_hello_lists_unacknowledged_results (void **state)
{
    s_broker_t *broker = s_broker_running (21, 2, "echo done");
    drover_msg_t *result = s_expect (broker, DROVER_MSG_TASK_RESULT, 5000);
    uint32_t seq = result->seq;
    drover_msg_destroy (&result);               //  not answered
    s_offer_started (broker, 22, 1, "sleep 30", 0);
    drover_msg_t *heartbeat = s_expect (broker, DROVER_MSG_WORKER_HEARTBEAT, 2000);
    s_answer (broker, &heartbeat, DROVER_CODE_NOT_REGISTERED);
    drover_msg_t *hello = s_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    assert_int_equal (hello->nrunning, 2);
    bool finished = false, running = false;
    for (uint32_t index = 0; index < hello->nrunning; index++) {
        finished |= hello->running [index].task == 21 && hello->running [index].attempt == 2;
        running |= hello->running [index].task == 22 && hello->running [index].attempt == 1;
    }
    assert_true (finished && running);
    drover_msg_destroy (&hello);
    //  Once welcome, the result goes again under its seq; acknowledged, it
    //  is no longer listed
    s_welcome (broker, 100);
    result = s_expect_result (broker, 21);
    assert_int_equal (result->seq, seq);
    s_answer (broker, &result, DROVER_CODE_OK);
    heartbeat = s_expect (broker, DROVER_MSG_WORKER_HEARTBEAT, 2000);
    s_answer (broker, &heartbeat, DROVER_CODE_NOT_REGISTERED);
    hello = s_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    assert_int_equal (hello->nrunning, 1);
    assert_true (hello->running [0].task == 22);
    drover_msg_destroy (&hello);
    s_broker_destroy (&broker);
}

//  Send WORKER GATHER of seq and expect WORKER RUNS echoing it; returns it
static drover_msg_t *
s_gather (s_broker_t *self, uint32_t seq)
{
    drover_msg_t *gather = drover_msg_new (DROVER_MSG_WORKER_GATHER);
    gather->seq = seq;
    s_send (self, &gather);
    drover_msg_t *runs = s_expect (self, DROVER_MSG_WORKER_RUNS, 5000);
    assert_int_equal (runs->seq, seq);
    assert_string_equal (runs->worker, "w-test");
    return runs;
}

//  The reconciler's WORKER GATHER is answered at once with WORKER RUNS,
//  its seq echoed: the attempts running and those whose result is not yet
//  acknowledged, as HELLO lists them; none at first; an acknowledged
//  result no longer
static void
test_gather_answered_with_runs (void **state)
{
    s_broker_t *broker = s_broker_new ();
    s_register (broker);
    drover_msg_t *runs = s_gather (broker, 1);
    assert_int_equal (runs->nrunning, 0);
    drover_msg_destroy (&runs);

    s_offer_started (broker, 31, 2, "sleep 30", 0);
    s_offer_started (broker, 32, 1, "echo done", 0);
    drover_msg_t *result = s_expect_result (broker, 32);
    runs = s_gather (broker, 0xfffffff0);
    assert_int_equal (runs->nrunning, 2);
    bool finished = false, running = false;
    for (uint32_t index = 0; index < runs->nrunning; index++) {
        finished |= runs->running [index].task == 32 && runs->running [index].attempt == 1;
        running |= runs->running [index].task == 31 && runs->running [index].attempt == 2;
    }
    assert_true (finished && running);
    drover_msg_destroy (&runs);

    s_answer (broker, &result, DROVER_CODE_OK);
    runs = s_gather (broker, 7);
    assert_int_equal (runs->nrunning, 1);
    assert_true (runs->running [0].task == 31);
    drover_msg_destroy (&runs);
    s_broker_destroy (&broker);
}

//  HELLO names the state id of the last WELCOME: none at first
static void
test_hello_carries_last_state_id (void **state)
{
    const char *state_a = "0123456789abcdef0123456789abcdef";
    s_broker_t *broker = s_broker_new ();
    s_start (broker);
    drover_msg_t *hello = s_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    assert_string_equal (hello->state_id, "");
    drover_msg_destroy (&hello);
    s_welcome_state (broker, 100, state_a);
    drover_msg_t *heartbeat = s_expect (broker, DROVER_MSG_WORKER_HEARTBEAT, 2000);
    s_answer (broker, &heartbeat, DROVER_CODE_NOT_REGISTERED);
    hello = s_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    assert_string_equal (hello->state_id, state_a);
    drover_msg_destroy (&hello);
    //  A WELCOME without one (a broker that keeps no state) forgets nothing
    s_welcome (broker, 100);
    heartbeat = s_expect (broker, DROVER_MSG_WORKER_HEARTBEAT, 2000);
    s_answer (broker, &heartbeat, DROVER_CODE_NOT_REGISTERED);
    hello = s_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    assert_string_equal (hello->state_id, state_a);
    drover_msg_destroy (&hello);
    s_broker_destroy (&broker);
}

//  A WELCOME with another state id than the last one: the broker's state
//  was wiped, our task ids name other tasks there. The running attempt is
//  killed and no result of the old state reaches the new broker: neither
//  the unacknowledged one nor the killed attempt's.
static void
test_state_change_kills_attempts_and_drops_results (void **state)
{
    const char *state_a = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    const char *state_b = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
    s_broker_t *broker = s_broker_new ();
    s_start (broker);
    drover_msg_t *hello = s_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    drover_msg_destroy (&hello);
    s_welcome_state (broker, 100, state_a);
    s_offer_started (broker, 1, 1, "echo old", 0);
    drover_msg_t *result = s_expect (broker, DROVER_MSG_TASK_RESULT, 5000);
    drover_msg_destroy (&result);               //  not answered
    s_offer_started (broker, 2, 1, "exec sleep 30", 0);
    drover_msg_t *heartbeat = s_expect (broker, DROVER_MSG_WORKER_HEARTBEAT, 2000);
    s_answer (broker, &heartbeat, DROVER_CODE_NOT_REGISTERED);
    hello = s_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    assert_string_equal (hello->state_id, state_a);
    assert_int_equal (hello->nrunning, 2);
    drover_msg_destroy (&hello);
    int64_t welcomed = zclock_mono ();
    s_welcome_state (broker, 100, state_b);
    //  LEAVE: the worker goes once nothing runs and nothing is kept; before
    //  its GOODBYE only heartbeats may come (s_expect fails on a RESULT)
    uint64_t tasks, acked;
    s_leave (broker, &tasks, &acked);
    assert_true (zclock_mono () - welcomed < 5000);     //  killed, not waited out
    assert_true (acked == 0);
    assert_true (drover_worker_registrations (broker->worker) == 2);
    s_broker_destroy (&broker);
}

//  ERROR 507 to a RESULT: the broker could not save it. The worker keeps
//  it and sends it again (same seq) after a heartbeat interval, without
//  registering again; it used to drop it
static void
test_result_resent_after_507 (void **state)
{
    s_broker_t *broker = s_broker_running (5, 1, "echo kept");
    drover_msg_t *result = s_expect (broker, DROVER_MSG_TASK_RESULT, 5000);
    uint32_t seq = result->seq;
    s_answer (broker, &result, DROVER_CODE_NOT_SAVED);
    result = s_expect_result (broker, 5);
    assert_int_equal (result->seq, seq);
    s_answer (broker, &result, DROVER_CODE_OK);
    s_leave_acked_one (broker, 1);
    s_broker_destroy (&broker);
}

//  HELLO after a 401 lists the attempts still running
static void
test_rehello_lists_running (void **state)
{
    s_broker_t *broker = s_broker_running (11, 1, "sleep 30");
    drover_msg_t *heartbeat = s_expect (broker, DROVER_MSG_WORKER_HEARTBEAT, 2000);
    s_answer (broker, &heartbeat, DROVER_CODE_NOT_REGISTERED);
    drover_msg_t *hello = s_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    assert_int_equal (hello->nrunning, 1);
    assert_true (hello->running [0].task == 11);
    assert_int_equal (hello->running [0].attempt, 1);
    drover_msg_destroy (&hello);
    s_broker_destroy (&broker);                 //  stops it: kills the child
}

//  ERROR 409 to TASK STARTED: the attempt is not current; the worker stops it
static void
test_started_refused_stops_attempt (void **state)
{
    s_broker_t *broker = s_broker_new ();
    s_register (broker);
    s_offer (broker, 31, 1, "sleep 30", 0);
    drover_msg_t *started = s_expect (broker, DROVER_MSG_TASK_STARTED, 5000);
    s_answer (broker, &started, DROVER_CODE_STALE);
    drover_msg_t *result = s_expect_result (broker, 31);
    assert_int_equal (result->outcome, DROVER_OUTCOME_CANCELLED);
    s_answer (broker, &result, DROVER_CODE_STALE);
    s_broker_destroy (&broker);
}

//  A result the broker never answers: after 3 heartbeats of silence the
//  worker reconnects, says HELLO, and sends the result again
static void
test_unanswered_result_resent_after_reconnect (void **state)
{
    s_broker_t *broker = s_broker_running (12, 1, "echo again");
    drover_msg_t *result = s_expect (broker, DROVER_MSG_TASK_RESULT, 5000);
    uint32_t seq = result->seq;
    drover_msg_destroy (&result);
    zframe_t *first = zframe_dup (broker->route);
    drover_msg_t *hello = s_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    assert_false (zframe_eq (first, broker->route));    //  a new socket
    zframe_destroy (&first);
    drover_msg_destroy (&hello);
    s_welcome (broker, 100);
    result = s_expect_result (broker, 12);
    assert_int_equal (result->seq, seq);
    s_answer (broker, &result, DROVER_CODE_OK);
    s_leave_acked_one (broker, 2);
    assert_true (drover_worker_results_stale (broker->worker) == 0);
    s_broker_destroy (&broker);
}

//  KILL ends a running attempt with outcome CANCELLED
static void
test_kill_cancels (void **state)
{
    s_broker_t *broker = s_broker_running (5, 1, "sleep 30");
    drover_msg_t *kill = drover_msg_new (DROVER_MSG_TASK_KILL);
    kill->task = 5;
    kill->attempt = 1;
    s_send (broker, &kill);
    drover_msg_t *result = s_expect_result (broker, 5);
    assert_int_equal (result->outcome, DROVER_OUTCOME_CANCELLED);
    assert_int_equal (result->signal, SIGTERM);
    s_answer (broker, &result, DROVER_CODE_OK);
    s_broker_destroy (&broker);
}

//  LEAVE: the running task finishes and is acknowledged first, then
//  GOODBYE, then the loop ends (the actor says DONE)
static void
test_leave_goodbye (void **state)
{
    s_broker_t *broker = s_broker_running (9, 1, "sleep 0.2; echo done");
    drover_msg_t *leave = drover_msg_new (DROVER_MSG_WORKER_LEAVE);
    s_send (broker, &leave);
    drover_msg_t *result = s_expect (broker, DROVER_MSG_TASK_RESULT, 5000);
    assert_int_equal (result->outcome, DROVER_OUTCOME_EXITED);
    assert_int_equal (result->out_size, 5);
    s_answer (broker, &result, DROVER_CODE_OK);
    uint64_t tasks, acked;
    s_leave (broker, &tasks, &acked);           //  a second LEAVE is harmless
    assert_true (tasks == 1);
    assert_true (acked == 1);
    s_broker_destroy (&broker);
}

//  $TERM while a task runs: the child is killed, GOODBYE is said
static void
test_stop_kills_and_says_goodbye (void **state)
{
    s_broker_t *broker = s_broker_running (21, 1, "trap '' TERM; sleep 30");
    int64_t started = zclock_mono ();
    zactor_destroy (&broker->actor);
    assert_true (zclock_mono () - started < 3000);      //  grace is 300 ms
    drover_msg_t *goodbye = s_expect (broker, DROVER_MSG_WORKER_GOODBYE, 5000);
    drover_msg_destroy (&goodbye);
    s_broker_destroy (&broker);
}

//  No answer to HELLO: the worker drops its socket and connects again
//  (a new route), with the same epoch
static void
test_reconnect_when_silent (void **state)
{
    s_broker_t *broker = s_broker_new ();
    s_start (broker);
    drover_msg_t *hello = s_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    uint64_t epoch = hello->epoch;
    zframe_t *first = zframe_dup (broker->route);
    drover_msg_destroy (&hello);
    //  silence = 3 heartbeats of 100 ms, then a backoff of 250 ms
    hello = s_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    assert_true (hello->epoch == epoch);
    assert_false (zframe_eq (first, broker->route));
    drover_msg_destroy (&hello);
    zframe_destroy (&first);
    s_welcome (broker, 100);
    drover_msg_t *heartbeat = s_expect (broker, DROVER_MSG_WORKER_HEARTBEAT, 2000);
    drover_msg_destroy (&heartbeat);
    assert_true (drover_worker_registrations (broker->worker) >= 1);
    s_broker_destroy (&broker);
}

//  A handler that holds the worker's loop until the test writes a byte on
//  the pipe whose read end *arg is (10 s at most), then succeeds
static int
s_held_handler (void *arg, drover_job_t *job)
{
    struct pollfd item = { *(int *) arg, POLLIN, 0 };
    char byte = 0;
    bool released = poll (&item, 1, 10000) == 1 && read (item.fd, &byte, 1) == 1;
    drover_job_set_outcome (job, DROVER_OUTCOME_EXITED);
    drover_job_set_exit_code (job, released? 0: 1);
    return 0;
}

//  Bind a new ROUTER on the endpoint the last one had, once the old one's
//  port is free, watched by handshake (made before the bind)
static void
s_rebind (s_broker_t *self, drover_handshake_t **handshake_p)
{
    zsock_destroy (&self->router);
    self->router = zsock_new (ZMQ_ROUTER);
    assert_non_null (self->router);
    zsock_set_sndhwm (self->router, 0);
    zsock_set_rcvhwm (self->router, 0);
    *handshake_p = drover_handshake_new (self->router, false);
    int64_t deadline = zclock_mono () + 5000;
    while (zsock_bind (self->router, "%s", self->endpoint) == -1) {
        assert_true (zclock_mono () < deadline);
        zclock_sleep (10);      //  paces the tries while the old listener closes
    }
}

//  The broker's end went away and came back on the same endpoint (a broker
//  restarted) while the worker was busy: ZeroMQ connects its DEALER again
//  by itself. The worker registers first on that new connection: its first
//  message there is HELLO, not the RESULT it had ready, which follows our
//  WELCOME (PROTOCOL.md §9)
static void
test_hello_first_after_reconnect (void **state)
{
    s_broker_t *broker = s_broker_new ();
    int held [2];
    assert_int_equal (pipe (held), 0);
    drover_worker_set_handler (broker->worker, s_held_handler, &held [0]);
    s_register (broker);
    s_offer (broker, 41, 1, "held", 0);             //  the handler holds the loop
    drover_handshake_t *handshake;
    s_rebind (broker, &handshake);
    //  The worker's DEALER connects again (ZeroMQ's I/O thread does it)
    zpoller_t *poller = zpoller_new (drover_handshake_sock (handshake), NULL);
    int64_t deadline = zclock_mono () + 5000;
    int outcome = 0;
    while (outcome != 1 && zclock_mono () < deadline)
        if (zpoller_wait (poller, (int) (deadline - zclock_mono ())))
            outcome = drover_handshake_read (handshake);
    assert_int_equal (outcome, 1);
    zpoller_destroy (&poller);
    assert_int_equal (write (held [1], "g", 1), 1);     //  the result is ready now

    drover_msg_t *first = s_recv (broker, 5000);
    assert_non_null (first);
    if (first->id != DROVER_MSG_WORKER_HELLO)
        fail_msg ("first message after the reconnect: %s", drover_msg_name (first->id));
    assert_int_equal (first->nrunning, 1);              //  it lists the result it keeps
    assert_true (first->running [0].task == 41);
    drover_msg_destroy (&first);
    s_welcome (broker, 100);
    drover_msg_t *result = s_expect_result (broker, 41);
    assert_int_equal (result->exit_code, 0);
    s_answer (broker, &result, DROVER_CODE_OK);
    s_leave_acked_one (broker, 2);
    drover_handshake_destroy (&handshake);
    s_broker_destroy (&broker);
    close (held [0]);
    close (held [1]);
}

//  The in-process handler: what it returns is the result
static int
s_echo_handler (void *arg, drover_job_t *job)
{
    int *calls = (int *) arg;
    (*calls)++;
    assert_int_equal (drover_job_attempt (job), 1);
    assert_null (drover_job_argv (job, drover_job_argc (job)));
    const char *text = drover_job_argv (job, drover_job_argc (job) - 1);
    drover_job_set_output (job, (const byte *) text, strlen (text), NULL, 0);
    drover_job_set_exit_code (job, drover_job_argc (job));
    if (streq (text, "fail"))
        return -1;
    return 0;
}

#define S_HANDLED 1000

//  Many offers at once through the handler: the worker reads them in
//  bursts, and each gets exactly one RESULT and no STARTED (the RESULT,
//  sent at once, is the acknowledgement)
static void
test_handler (void **state)
{
    s_broker_t *broker = s_broker_new ();
    int calls = 0;
    drover_worker_set_handler (broker->worker, s_echo_handler, &calls);
    //  We answer a thousand results one by one: more than the 300 msec of
    //  silence that 100 msec heartbeats allow the worker on a busy machine
    s_register_beating (broker, 1000);
    for (int index = 0; index < S_HANDLED; index++) {
        char script [32];
        snprintf (script, sizeof script, "%d", index);
        s_offer (broker, 1000 + index, 1, script, 0);
    }
    int started = 0, results = 0;
    bool *seen = (bool *) zmalloc (S_HANDLED * sizeof (bool));
    while (results < S_HANDLED) {
        drover_msg_t *msg = s_recv (broker, 5000);
        assert_non_null (msg);
        if (msg->id == DROVER_MSG_TASK_STARTED)
            started++;
        else
        if (msg->id == DROVER_MSG_TASK_RESULT) {
            assert_true (msg->task >= 1000 && msg->task < 1000 + S_HANDLED);
            assert_false (seen [msg->task - 1000]);
            seen [msg->task - 1000] = true;
            char expect [32];
            snprintf (expect, sizeof expect, "%d", (int) (msg->task - 1000));
            assert_int_equal (msg->outcome, DROVER_OUTCOME_EXITED);
            assert_int_equal (msg->exit_code, 3);
            assert_int_equal (msg->out_size, strlen (expect));
            assert_memory_equal (msg->out, expect, strlen (expect));
            s_reply (broker, msg, DROVER_CODE_OK);
            results++;
        }
        drover_msg_destroy (&msg);
    }
    free (seen);
    assert_int_equal (started, 0);
    //  A handler that fails reports SPAWN_FAILED, also without STARTED
    s_offer (broker, 1, 1, "fail", 0);
    drover_msg_t *result = s_expect (broker, DROVER_MSG_TASK_RESULT, 5000);
    assert_int_equal (result->outcome, DROVER_OUTCOME_SPAWN_FAILED);
    assert_non_null (result->reason);
    s_answer (broker, &result, DROVER_CODE_OK);

    uint64_t tasks, acked;
    s_leave (broker, &tasks, &acked);
    assert_true (tasks == S_HANDLED + 1);
    assert_true (acked == S_HANDLED + 1);
    s_broker_destroy (&broker);
    assert_int_equal (calls, S_HANDLED + 1);
}

//  A bad offer body is answered at once with a SPAWN_FAILED RESULT (no
//  STARTED: the RESULT acknowledges the offer), not a crash
static void
test_bad_body (void **state)
{
    s_broker_t *broker = s_broker_new ();
    s_register (broker);
    drover_msg_t *offer = drover_msg_new (DROVER_MSG_TASK_OFFER);
    offer->task = 3;
    offer->attempt = 1;
    drover_msg_set_body (offer, (const byte *) "\xc1garbage", 8);
    s_send (broker, &offer);
    drover_msg_t *result = s_expect_result (broker, 3);
    assert_int_equal (result->attempt, 1);
    assert_int_equal (result->outcome, DROVER_OUTCOME_SPAWN_FAILED);
    assert_int_equal (result->exit_code, -1);       //  nothing ran: no status
    assert_non_null (result->reason);
    drover_msg_destroy (&result);
    s_broker_destroy (&broker);
}

//  The handler that answers "done" on stdout
static int
s_done_handler (void *arg, drover_job_t *job)
{
    drover_job_set_output (job, (const byte *) "done", 4, NULL, 0);
    return 0;
}

#define S_REAL_TASKS 50

//  A real broker takes a RESULT that comes without TASK STARTED as the
//  acknowledgement of its offer: every task succeeds on its first attempt,
//  every result is answered OK (none stale), and a drain ends the worker
static void
test_real_broker_takes_result_without_started (void **state)
{
    const char *flags [] = { "--set", "assign/ack-timeout=200", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    drover_worker_t *worker = drover_worker_new (cluster->endpoint, "w-inproc", 8, 1ULL << 30);
    assert_non_null (worker);
    drover_worker_set_handler (worker, s_done_handler, NULL);
    zactor_t *actor = zactor_new (drover_worker_actor, worker);
    assert_non_null (actor);
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 1, 5000));

    //  Submit, then WAIT for them all: each gets one TASK DONE
    uint64_t tasks [S_REAL_TASKS];
    for (int index = 0; index < S_REAL_TASKS; index++)
        tasks [index] = testutil_submit (dealer, testutil_submit_msg ("true", 0, 1, 0));
    drover_msg_t *wait = testutil_wait_msg (tasks, S_REAL_TASKS);
    wait->seq = 9999;
    testutil_send (dealer, &wait);
    bool seen [S_REAL_TASKS] = { false };
    int done = 0;
    int64_t deadline = zclock_mono () + 10000;
    while (done < S_REAL_TASKS && zclock_mono () < deadline) {
        drover_msg_t *msg = testutil_recv_msg (dealer, (int) (deadline - zclock_mono ()));
        if (!msg)
            break;
        if (msg->id == DROVER_MSG_OK && msg->seq == 9999) {
            drover_msg_destroy (&msg);
            continue;           //  the WAIT's OK, before or among the DONEs
        }
        assert_int_equal (msg->id, DROVER_MSG_TASK_DONE);
        int index = 0;
        while (index < S_REAL_TASKS && tasks [index] != msg->task)
            index++;
        assert_true (index < S_REAL_TASKS);
        assert_false (seen [index]);
        seen [index] = true;
        done++;
        assert_int_equal (msg->state, DROVER_TASK_SUCCEEDED);
        assert_int_equal (msg->attempt, 1);         //  never offered twice
        assert_string_equal (msg->worker, "w-inproc");
        assert_int_equal (msg->out_size, 4);
        assert_memory_equal (msg->out, "done", 4);
        drover_msg_destroy (&msg);
    }
    assert_int_equal (done, S_REAL_TASKS);
    //  Drain with exit: the broker says LEAVE once idle; the worker leaves
    //  only with every result acknowledged
    drover_msg_t *admin = drover_msg_new (DROVER_MSG_WORKER_ADMIN);
    strcpy (admin->worker, "w-inproc");
    admin->admin = DROVER_ADMIN_DRAIN;
    admin->flags = DROVER_ADMIN_EXIT;
    drover_msg_t *reply = testutil_request (dealer, &admin, 5000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_OK);
    drover_msg_destroy (&reply);
    zmsg_t *said = testutil_recv (zactor_sock (actor), 5000);
    assert_non_null (said);
    char *word = zmsg_popstr (said);
    assert_string_equal (word, "DONE");
    zstr_free (&word);
    zmsg_destroy (&said);
    uint64_t run, acked;
    assert_int_equal (zstr_send (actor, "COUNTERS"), 0);
    assert_int_equal (zsock_recv (actor, "88", &run, &acked), 0);
    assert_true (run == S_REAL_TASKS);
    assert_true (acked == S_REAL_TASKS);
    zactor_destroy (&actor);
    assert_true (drover_worker_results_stale (worker) == 0);
    drover_worker_destroy (&worker);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  Bad arguments make no worker
static void
test_new_refuses_bad_values (void **state)
{
    assert_null (drover_worker_new ("tcp://127.0.0.1:1", "has space", 1, 1));
    assert_null (drover_worker_new ("tcp://127.0.0.1:1", "", 1, 1));
    assert_null (drover_worker_new ("tcp://127.0.0.1:1", "ok", 0, 1));
    drover_worker_t *worker = drover_worker_new ("tcp://127.0.0.1:1", "ok", 1, 1);
    assert_non_null (worker);
    assert_string_equal (drover_worker_id (worker), "ok");
    for (int index = 0; index < DROVER_LABELS_MAX; index++) {
        char label [32];
        snprintf (label, sizeof label, "k%d=v", index);
        assert_int_equal (drover_worker_set_label (worker, label), 0);
    }
    assert_int_equal (drover_worker_set_label (worker, "one=toomany"), -1);
    drover_worker_destroy (&worker);
    drover_worker_destroy (&worker);
    assert_null (worker);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_new_refuses_bad_values),
        cmocka_unit_test (test_hello_welcome_heartbeats),
        cmocka_unit_test (test_offer_started_result),
        cmocka_unit_test (test_result_resent_after_401),
        cmocka_unit_test (test_older_broker_gets_a_level_1_hello),
        cmocka_unit_test (test_rehello_lists_running),
        cmocka_unit_test (test_hello_lists_unacknowledged_results),
        cmocka_unit_test (test_hello_carries_last_state_id),
        cmocka_unit_test (test_gather_answered_with_runs),
        cmocka_unit_test (test_state_change_kills_attempts_and_drops_results),
        cmocka_unit_test (test_result_resent_after_507),
        cmocka_unit_test (test_kill_cancels),
        cmocka_unit_test (test_started_refused_stops_attempt),
        cmocka_unit_test (test_unanswered_result_resent_after_reconnect),
        cmocka_unit_test (test_leave_goodbye),
        cmocka_unit_test (test_stop_kills_and_says_goodbye),
        cmocka_unit_test (test_reconnect_when_silent),
        cmocka_unit_test (test_hello_first_after_reconnect),
        cmocka_unit_test (test_handler),
        cmocka_unit_test (test_bad_body),
        cmocka_unit_test (test_real_broker_takes_result_without_started),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
