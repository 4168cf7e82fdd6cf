/*  =========================================================================
    testutil_wire - the wire protocol on a socket the test holds (see the header)
    =========================================================================
*/

#include "testutil_wire.h"

//  Wait for one message with a deadline
zmsg_t *
testutil_recv (zsock_t *sock, int timeout)
{
    zpoller_t *poller = zpoller_new (sock, NULL);
    zmsg_t *msg = NULL;
    if (zpoller_wait (poller, timeout) == sock)
        msg = zmsg_recv (sock);
    zpoller_destroy (&poller);
    return msg;
}

//  Say this codec's protocol level on a client's dealer (CLIENT HELLO)
//  and take the broker's CLIENT WELCOME, so that the broker answers it
//  with every field of that level; asserts it comes within timeout msec
void
testutil_say_level (zsock_t *dealer, int timeout)
{
    drover_msg_t *hello = drover_msg_new (DROVER_MSG_CLIENT_HELLO);
    hello->seq = 0xfffffff0;
    testutil_send (dealer, &hello);
    drover_msg_t *welcome = testutil_recv_msg (dealer, timeout);
    assert_non_null (welcome);
    assert_int_equal (welcome->id, DROVER_MSG_CLIENT_WELCOME);
    assert_int_equal (welcome->level, DROVER_MSG_LEVEL);
    drover_msg_destroy (&welcome);
}

//  Encode and send
void
testutil_send (zsock_t *dealer, drover_msg_t **msg_p)
{
    zframe_t *frame = drover_msg_encode (*msg_p);
    assert_non_null (frame);
    assert_int_equal (zframe_send (&frame, dealer, 0), 0);
    drover_msg_destroy (msg_p);
}

//  TASK DONEs that arrived while a request waited for its reply, kept
//  for the next receive on the same socket, so that nothing is lost
typedef struct {
    zsock_t *dealer;            //  socket it arrived on
    drover_msg_t *msg;          //  the TASK DONE
} s_stashed_t;

static zlistx_t *s_stash = NULL;

//  Take the oldest stashed message for this socket, or NULL
static drover_msg_t *
s_unstash (zsock_t *dealer)
{
    if (!s_stash)
        return NULL;
    for (s_stashed_t *item = (s_stashed_t *) zlistx_first (s_stash); item;
         item = (s_stashed_t *) zlistx_next (s_stash))
        if (item->dealer == dealer) {
            drover_msg_t *msg = item->msg;
            zlistx_delete (s_stash, zlistx_cursor (s_stash));
            free (item);
            return msg;
        }
    return NULL;
}

//  Keep a message for a later receive on this socket
static void
s_stash_msg (zsock_t *dealer, drover_msg_t *msg)
{
    if (!s_stash)
        s_stash = zlistx_new ();
    s_stashed_t *item = (s_stashed_t *) zmalloc (sizeof (s_stashed_t));
    item->dealer = dealer;
    item->msg = msg;
    zlistx_add_end (s_stash, item);
}

//  Receive and decode with a deadline, stashed messages first
drover_msg_t *
testutil_recv_msg (zsock_t *dealer, int timeout)
{
    drover_msg_t *stashed = s_unstash (dealer);
    if (stashed)
        return stashed;
    zmsg_t *raw = testutil_recv (dealer, timeout);
    if (!raw)
        return NULL;
    assert_int_equal (zmsg_size (raw), 1);
    zframe_t *frame = zmsg_first (raw);
    drover_msg_t *msg = drover_msg_new (0);
    int rc = drover_msg_decode (msg, zframe_data (frame), zframe_size (frame));
    if (rc)
        fprintf (stderr, "testutil: broker sent undecodable message: %s\n", msg->error);
    assert_int_equal (rc, 0);
    zmsg_destroy (&raw);
    return msg;
}

//  Receive the next message on a played peer and assert its id
drover_msg_t *
testutil_expect_msg (zsock_t *peer, int id, int timeout)
{
    drover_msg_t *msg = testutil_recv_msg (peer, timeout);
    assert_non_null (msg);
    if (msg->id != id)
        fprintf (stderr, "expected %s, got %s code=%u reason=%s\n", drover_msg_name (id),
                 drover_msg_name (msg->id), msg->code, msg->reason? msg->reason: "");
    assert_int_equal (msg->id, id);
    return msg;
}

//  Make a message of a played worker with a HELLO's and a report's fields
drover_msg_t *
testutil_played_msg (const char *worker, uint32_t procs, int id, uint64_t task,
                     uint32_t attempt)
{
    drover_msg_t *msg = drover_msg_new (id);
    snprintf (msg->worker, sizeof msg->worker, "%s", worker);
    msg->epoch = 1;
    msg->procs = procs;
    msg->mem = 1ULL << 30;
    msg->task = task;
    msg->attempt = attempt;
    msg->outcome = DROVER_OUTCOME_EXITED;
    return msg;
}

//  Request and reply by seq; a TASK DONE arriving meanwhile is stashed
//  for a later testutil_recv_msg, anything else unrelated is dropped
drover_msg_t *
testutil_request (zsock_t *dealer, drover_msg_t **msg_p, int timeout)
{
    static uint32_t seq = 1000000;
    uint32_t expected = (*msg_p)->seq? (*msg_p)->seq: ++seq;
    (*msg_p)->seq = expected;
    testutil_send (dealer, msg_p);
    drover_msg_t *reply = NULL;
    int64_t deadline = zclock_mono () + timeout;
    while (!reply && zclock_mono () < deadline) {
        zmsg_t *raw = testutil_recv (dealer, (int) (deadline - zclock_mono ()));
        if (!raw)
            break;
        zframe_t *frame = zmsg_first (raw);
        drover_msg_t *msg = drover_msg_new (0);
        assert_int_equal (drover_msg_decode (msg, zframe_data (frame), zframe_size (frame)), 0);
        zmsg_destroy (&raw);
        if (msg->id == DROVER_MSG_TASK_DONE)
            s_stash_msg (dealer, msg);
        else
        if (msg->seq == expected)
            reply = msg;
        else
            drover_msg_destroy (&msg);
    }
    return reply;
}

//  A TASK SUBMIT for sh -c script
drover_msg_t *
testutil_submit_msg (const char *script, int priority, int procs, uint32_t flags)
{
    drover_exec_t *exec = drover_exec_new ();
    const char *argv [] = { "sh", "-c", script };
    assert_int_equal (drover_exec_set_argv (exec, 3, argv), 0);
    size_t size;
    byte *body = drover_exec_encode (exec, &size);
    assert_non_null (body);
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    msg->priority = priority;
    msg->procs = procs;
    msg->flags = flags;
    drover_msg_set_body (msg, body, size);
    free (body);
    drover_exec_destroy (&exec);
    return msg;
}

//  Wait on a condition the broker reports, asking again every 50 msec
static bool
s_wait_until (int timeout, bool (*check) (zsock_t *, void *), zsock_t *dealer, void *arg)
{
    int64_t deadline = zclock_mono () + timeout;
    while (zclock_mono () < deadline) {
        if (check (dealer, arg))
            return true;
        zclock_sleep (50);      //  paces the questions; the deadline bounds the wait
    }
    return false;
}

//  Check: at least *count workers in health OK
static bool
s_check_workers (zsock_t *dealer, void *arg)
{
    drover_msg_t *request = drover_msg_new (DROVER_MSG_WORKER_LIST);
    drover_msg_t *reply = testutil_request (dealer, &request, 2000);
    bool done = false;
    if (reply && reply->id == DROVER_MSG_WORKER_TABLE) {
        int healthy = 0;
        for (uint32_t row = 0; row < reply->nrows; row++)
            healthy += reply->worker_rows [row].health == DROVER_HEALTH_OK;
        done = healthy >= *(int *) arg;
    }
    drover_msg_destroy (&reply);
    return done;
}

bool
testutil_wait_workers (zsock_t *dealer, int count, int timeout)
{
    return s_wait_until (timeout, s_check_workers, dealer, &count);
}

//  Check: the worker has a row that match accepts
typedef struct {
    const char *worker;         //  worker asked about
    testutil_row_match_fn *match;   //  what else its row must say
    void *arg;                  //  match's argument
} s_row_t;

static bool
s_check_row (zsock_t *dealer, void *arg)
{
    s_row_t *wanted = (s_row_t *) arg;
    drover_msg_t *request = drover_msg_new (DROVER_MSG_WORKER_LIST);
    drover_msg_t *reply = testutil_request (dealer, &request, 2000);
    bool done = false;
    for (uint32_t row = 0; reply && reply->id == DROVER_MSG_WORKER_TABLE && row < reply->nrows; row++)
        done |= streq (reply->worker_rows [row].id, wanted->worker)
             && wanted->match (&reply->worker_rows [row], wanted->arg);
    drover_msg_destroy (&reply);
    return done;
}

bool
testutil_wait_worker_row (zsock_t *dealer, const char *worker, testutil_row_match_fn *match,
                          void *arg, int timeout)
{
    s_row_t wanted = { worker, match, arg };
    return s_wait_until (timeout, s_check_row, dealer, &wanted);
}

//  Match a row reserved for the task *arg
static bool
s_reserved_for (const drover_worker_row_t *row, void *arg)
{
    return row->reserved == *(uint64_t *) arg;
}

bool
testutil_wait_reserved (zsock_t *dealer, const char *worker, uint64_t task, int timeout)
{
    return testutil_wait_worker_row (dealer, worker, s_reserved_for, &task, timeout);
}

//  Check: the task is RUNNING; copies its worker
typedef struct {
    uint64_t task;              //  task asked about
    char *worker;               //  filled with its worker id
} s_running_t;

static bool
s_check_running (zsock_t *dealer, void *arg)
{
    s_running_t *running = (s_running_t *) arg;
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_LIST);
    request->limit = DROVER_ROWS_MAX;
    request->state = DROVER_TASK_RUNNING;
    drover_msg_t *reply = testutil_request (dealer, &request, 2000);
    bool done = false;
    for (uint32_t row = 0; reply && row < reply->nrows; row++)
        if (reply->task_rows [row].task == running->task
        &&  reply->task_rows [row].state == DROVER_TASK_RUNNING) {
            strcpy (running->worker, reply->task_rows [row].worker);
            done = true;
        }
    drover_msg_destroy (&reply);
    return done;
}

bool
testutil_wait_running (zsock_t *dealer, uint64_t task, char *worker, int timeout)
{
    s_running_t running = { task, worker };
    return s_wait_until (timeout, s_check_running, dealer, &running);
}

//  Submit one task and return its id (asserts it is accepted)
uint64_t
testutil_submit (zsock_t *dealer, drover_msg_t *submit)
{
    drover_msg_t *reply = testutil_request (dealer, &submit, 5000);
    assert_non_null (reply);
    if (reply->id == DROVER_MSG_ERROR)
        fprintf (stderr, "submit refused: %d %s\n", reply->code, reply->reason);
    assert_int_equal (reply->id, DROVER_MSG_TASK_ACCEPTED);
    uint64_t task = reply->task;
    assert_true (task > 0);
    drover_msg_destroy (&reply);
    return task;
}

//  Collect the TASK DONE of each of count tasks into done [], asserting
//  that none arrives twice and nothing else arrives; false on timeout
bool
testutil_collect (zsock_t *dealer, const uint64_t *tasks, drover_msg_t **done, int count, int timeout)
{
    int missing = count;
    int64_t deadline = zclock_mono () + timeout;
    while (missing && zclock_mono () < deadline) {
        drover_msg_t *msg = testutil_recv_msg (dealer, (int) (deadline - zclock_mono ()));
        if (!msg)
            continue;
        assert_int_equal (msg->id, DROVER_MSG_TASK_DONE);
        int index = 0;
        while (index < count && tasks [index] != msg->task)
            index++;
        assert_true (index < count);
        assert_null (done [index]);
        done [index] = msg;
        missing--;
    }
    return missing == 0;
}

//  Wait for the TASK DONE of one task
drover_msg_t *
testutil_wait_done (zsock_t *dealer, uint64_t task, int timeout)
{
    drover_msg_t *done = NULL;
    testutil_collect (dealer, &task, &done, 1, timeout);
    return done;
}

//  Wait for the TASK DONE of one task and check its state, saying how it
//  ended when that is not the state expected
drover_msg_t *
testutil_expect_done (zsock_t *dealer, uint64_t task, int state, int timeout)
{
    drover_msg_t *done = testutil_wait_done (dealer, task, timeout);
    assert_non_null (done);
    if (done->state != state)
        fprintf (stderr, "task %" PRIu64 " ended %s on %s: %s\n", task,
                 drover_task_state_name (done->state), done->worker,
                 done->reason? done->reason: "");
    assert_int_equal (done->state, state);
    return done;
}

//  Send a WORKER ADMIN and return the reply's code
int
testutil_admin (zsock_t *dealer, const char *worker, int admin)
{
    return testutil_admin_with (dealer, worker, admin, NULL, 0);
}

//  Send WORKER ADMIN with the operator's reason and flags; return the reply's code
int
testutil_admin_with (zsock_t *dealer, const char *worker, int admin, const char *reason,
                     uint32_t flags)
{
    drover_msg_t *request = drover_msg_new (DROVER_MSG_WORKER_ADMIN);
    strcpy (request->worker, worker);
    request->admin = admin;
    request->flags = flags;
    if (reason)
        drover_msg_set_reason (request, reason);
    drover_msg_t *reply = testutil_request (dealer, &request, 5000);
    assert_non_null (reply);
    int code = reply->code;
    if (reply->id == DROVER_MSG_OK)
        assert_int_equal (code, DROVER_CODE_OK);
    drover_msg_destroy (&reply);
    return code;
}

//  Receive the next event on sub within timeout; false on timeout
bool
testutil_next_event (zsock_t *sub, drover_event_t *event, int timeout)
{
    zmsg_t *msg = testutil_recv (sub, timeout);
    if (!msg)
        return false;
    assert_int_equal (zmsg_size (msg), 2);
    char *topic = zmsg_popstr (msg);
    zframe_t *body = zmsg_pop (msg);
    assert_int_equal (drover_event_decode (event, zframe_data (body), zframe_size (body)), 0);
    assert_string_equal (topic, event->topic);
    zstr_free (&topic);
    zframe_destroy (&body);
    zmsg_destroy (&msg);
    return true;
}

//  Read events until the one asked for, or the deadline
bool
testutil_await_event (zsock_t *sub, const char *topic, const char *worker,
                      drover_event_t *event, int timeout)
{
    int64_t deadline = zclock_mono () + timeout;
    while (zclock_mono () < deadline)
        if (testutil_next_event (sub, event, (int) (deadline - zclock_mono ()))
        &&  streq (event->topic, topic) && streq (event->worker, worker))
            return true;
    return false;
}

//  Wait until a new SUB hears the broker, poking it with admin changes
bool
testutil_await_subscription (zsock_t *sub, zsock_t *dealer, const char *worker)
{
    drover_event_t event;
    int64_t deadline = zclock_mono () + 10000;
    while (zclock_mono () < deadline) {
        assert_int_equal (testutil_admin (dealer, worker, DROVER_ADMIN_HOLD), DROVER_CODE_OK);
        assert_int_equal (testutil_admin (dealer, worker, DROVER_ADMIN_RUN), DROVER_CODE_OK);
        if (testutil_next_event (sub, &event, 100))
            return true;
    }
    return false;
}

//  A TASK RESULT of a task's attempt
drover_msg_t *
testutil_result_msg (const char *worker, uint64_t task, uint32_t attempt, int outcome,
                     int exit_code)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_TASK_RESULT);
    strcpy (msg->worker, worker);
    msg->task = task;
    msg->attempt = attempt;
    msg->outcome = outcome;
    msg->exit_code = exit_code;
    return msg;
}

//  How many tasks the broker holds in any state
uint64_t
testutil_task_count (zsock_t *dealer, int timeout)
{
    drover_msg_t *list = drover_msg_new (DROVER_MSG_TASK_LIST);
    list->limit = 1;                //  the counts cover every task, whatever the rows
    drover_msg_t *table = testutil_request (dealer, &list, timeout);
    assert_non_null (table);
    assert_int_equal (table->id, DROVER_MSG_TASK_TABLE);
    uint64_t total = 0;
    for (int state = 0; state < DROVER_TASK_STATES; state++)
        total += table->counts [state];
    drover_msg_destroy (&table);
    return total;
}

//  A TASK WAIT for count tasks (copied)
drover_msg_t *
testutil_wait_msg (const uint64_t *tasks, uint32_t count)
{
    drover_msg_t *wait = drover_msg_new (DROVER_MSG_TASK_WAIT);
    wait->tasks = (uint64_t *) zmalloc (count * sizeof (uint64_t));
    memcpy (wait->tasks, tasks, count * sizeof (uint64_t));
    wait->ntasks = count;
    return wait;
}

//  Collect every task's TASK DONE and assert each SUCCEEDED
void
testutil_expect_all_succeeded (zsock_t *dealer, const uint64_t *tasks, int count, int timeout)
{
    drover_msg_t **done = (drover_msg_t **) zmalloc (count * sizeof (drover_msg_t *));
    assert_true (testutil_collect (dealer, tasks, done, count, timeout));
    for (int index = 0; index < count; index++) {
        assert_int_equal (done [index]->state, DROVER_TASK_SUCCEEDED);
        drover_msg_destroy (&done [index]);
    }
    free (done);
}
