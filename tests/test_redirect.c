/*  =========================================================================
    test_redirect - workers and clients with a list of brokers find the
    one that serves by themselves (PROTOCOL.md §17), against real brokers
    started by testutil:

    - behind a fake standby (a ROUTER of the test's, answered by
      drover_standby, naming a real broker as leader), a client's submits
      land on the real broker and a worker registers there, both given
      only the standby's endpoint;
    - with a list whose first endpoint is dead (nothing listens), both
      reach the second;
    - with a list of two real brokers, `kill -9` of the one they use: the
      worker registers with the other by itself, and the client's next
      submit lands there, each within a few seconds (measured: the time
      is printed); the same when that broker is stopped (SIGSTOP);
    - with brokers played by the test: a RESULT answered REDIRECT goes to
      the leader after the worker registered there.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include "drover_client_wire.h"
#include "testutil_signals.h"
#include "drover_standby.h"
#include "drover_worker.h"
#include "drover_endpoints.h"
#include <signal.h>
#include <sys/wait.h>

#define S_MOVE_MAX      3000    //  msec a peer may take to find the next broker

//  ---------------------------------------------------------------------
//  A fake standby: drover_standby on a ROUTER of ours, in an actor

typedef struct {
    char endpoint [64];         //  where it binds
    const char *leader;         //  the endpoint it names
} s_standby_args_t;

//  In: $TERM | REDIRECTS (answered with the count, "8")
static void
s_standby_actor (zsock_t *pipe, void *args)
{
    s_standby_args_t *standby_args = (s_standby_args_t *) args;
    zsock_t *router = zsock_new (ZMQ_ROUTER);
    assert (router);
    int rc = zsock_bind (router, "%s", standby_args->endpoint);
    assert (rc != -1);
    drover_standby_t *standby = drover_standby_new (router, NULL);
    drover_standby_set_leader (standby, "real", standby_args->leader);
    zsock_signal (pipe, 0);
    zpoller_t *poller = zpoller_new (pipe, router, NULL);
    bool stopping = false;
    while (!stopping) {
        void *which = zpoller_wait (poller, -1);
        if (which == router)
            drover_standby_handle (standby);
        else
        if (which == pipe) {
            char *command = zstr_recv (pipe);
            stopping = !command || streq (command, "$TERM");
            if (command && streq (command, "REDIRECTS"))
                zsock_send (pipe, "8", drover_standby_redirects (standby));
            zstr_free (&command);
        }
        else
            break;
    }
    zpoller_destroy (&poller);
    drover_standby_destroy (&standby);
    zsock_destroy (&router);
}

//  How many REDIRECTs the fake standby sent
static uint64_t
s_redirects (zactor_t *standby)
{
    zstr_send (standby, "REDIRECTS");
    uint64_t count = 0;
    assert_int_equal (zsock_recv (standby, "8", &count), 0);
    return count;
}

//  Start a worker agent with a list of brokers, in slot of the cluster
//  (which stops it at the end)
static void
s_worker_start (testutil_cluster_t *cluster, int slot, const char *id, const char *brokers)
{
    const char *argv [] = { DROVER_BIN, "worker", "--broker", brokers, "--id", id,
                            "--procs", "2", NULL };
    cluster->workers [slot] = testutil_spawn (argv, testutil_cluster_log (cluster, id));
    assert_true (cluster->workers [slot] > 0);
    cluster->worker_ids [slot] = strdup (id);
}

//  Submit `true` through the client; returns the task id (asserts it is
//  accepted)
static uint64_t
s_submit (drover_client_t *client)
{
    const char *argv [] = { "true" };
    drover_submit_t *submit = drover_submit_new (1, argv);
    uint64_t task = 0;
    int rc = drover_client_submit (client, submit, &task);
    if (rc)
        fail_msg ("submit failed: %s", drover_client_error_text (client));
    drover_submit_destroy (&submit);
    assert_true (task > 0);
    return task;
}

//  Kill a cluster's broker with SIGKILL and reap it
static void
s_kill_broker (testutil_cluster_t *cluster)
{
    assert_int_equal (kill (cluster->broker, SIGKILL), 0);
    assert_true (testutil_wait_exit (cluster->broker, 5000) != -1);
    cluster->broker = 0;
}



//  ---------------------------------------------------------------------
//  Brokers played by the test, for an in-process worker

typedef struct {
    zsock_t *router;            //  what the worker connects to
    char endpoint [64];         //  tcp://127.0.0.1:port
    zframe_t *route;            //  routing id of the worker's last message
} s_played_t;

static void
s_played_init (s_played_t *self)
{
    self->router = zsock_new (ZMQ_ROUTER);
    assert_non_null (self->router);
    int port = zsock_bind (self->router, "tcp://127.0.0.1:*");
    assert_true (port > 0);
    snprintf (self->endpoint, sizeof self->endpoint, "tcp://127.0.0.1:%d", port);
    self->route = NULL;
}

static void
s_played_close (s_played_t *self)
{
    zframe_destroy (&self->route);
    zsock_destroy (&self->router);
}

//  The next message of id from the worker within timeout, skipping
//  heartbeats (unless asked for); fails the test if another comes
static drover_msg_t *
s_played_expect (s_played_t *self, int id, int timeout)
{
    int64_t end = zclock_mono () + timeout;
    while (zclock_mono () < end) {
        zmsg_t *raw = testutil_recv (self->router, (int) (end - zclock_mono ()));
        if (!raw)
            break;
        assert_int_equal (zmsg_size (raw), 2);
        zframe_destroy (&self->route);
        self->route = zmsg_pop (raw);
        zframe_t *frame = zmsg_pop (raw);
        drover_msg_t *msg = drover_msg_new (0);
        assert_int_equal (drover_msg_decode (msg, zframe_data (frame), zframe_size (frame)), 0);
        zframe_destroy (&frame);
        zmsg_destroy (&raw);
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

//  Send msg (destroyed) to the worker's last route
static void
s_played_send (s_played_t *self, drover_msg_t **msg_p)
{
    zframe_t *frame = drover_msg_encode (*msg_p);
    assert_non_null (frame);
    drover_msg_destroy (msg_p);
    zmsg_t *out = zmsg_new ();
    zframe_t *route = zframe_dup (self->route);
    zmsg_append (out, &route);
    zmsg_append (out, &frame);
    assert_int_equal (zmsg_send (&out, self->router), 0);
}

//  Answer with WELCOME (heartbeat 100 msec) and a state id
static void
s_played_welcome (s_played_t *self, uint32_t seq, const char *state_id)
{
    drover_msg_t *welcome = drover_msg_new (DROVER_MSG_WORKER_WELCOME);
    welcome->seq = seq;
    welcome->heartbeat = 100;
    strcpy (welcome->state_id, state_id);
    s_played_send (self, &welcome);
}

//  A worker's process handler: the task "ran" at once
static int
s_ran (void *arg, drover_job_t *job)
{
    drover_job_set_outcome (job, DROVER_OUTCOME_EXITED);
    return 0;
}

//  ---------------------------------------------------------------------
//  Tests

//  Given only a standby's endpoint, a worker registers with the leader it
//  names and a client's submits (one at a time, and async) land there
//  and finish
static void
test_standby_redirects_to_leader (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    s_standby_args_t args = { .leader = cluster->endpoint };
    snprintf (args.endpoint, sizeof args.endpoint, "tcp://127.0.0.1:%d",
              testutil_free_port ());
    zactor_t *standby = zactor_new (s_standby_actor, &args);
    assert_non_null (standby);

    s_worker_start (cluster, 0, "w-redirect", args.endpoint);
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 1, 10000));
    //  Registered with the leader, not the standby: the worker's notice that
    //  it followed a REDIRECT is what an operator sees of it
    assert_true (testutil_await_line (testutil_cluster_log (cluster, "w-redirect"),
                                      "redirected to leader real", 1000));

    drover_client_t *client = drover_client_new (args.endpoint);
    assert_non_null (client);
    uint64_t first = s_submit (client);
    assert_string_equal (drover_client_endpoint (client), cluster->endpoint);
    //  Async submits go to the leader now; a wait gets them all done
    uint64_t tasks [21] = { first };
    const char *argv [] = { "true" };
    for (int index = 1; index < 21; index++) {
        drover_submit_t *submit = drover_submit_new (1, argv);
        assert_true (drover_client_submit_async (client, submit, (uintptr_t) index) > 0);
        drover_submit_destroy (&submit);
    }
    assert_int_equal (drover_client_flush (client), 0);
    drover_msg_t *table = drover_client_task_table (client, 255, 100, NULL, 0);
    assert_non_null (table);
    uint64_t held = 0;
    for (int state = 0; state < DROVER_TASK_STATES; state++)
        held += table->counts [state];
    assert_int_equal (held, 21);
    for (uint32_t row = 0; row < table->nrows && row < 21; row++)
        tasks [row] = table->task_rows [row].task;
    drover_msg_destroy (&table);
    assert_int_equal (drover_client_wait (client, tasks, 21, NULL, NULL, NULL), 0);
    //  The worker's HELLO and the client's first request went to the standby
    assert_true (s_redirects (standby) >= 2);
    drover_client_destroy (&client);

    zsock_destroy (&dealer);
    zactor_destroy (&standby);
    testutil_cluster_destroy (&cluster);
}

//  A list whose first endpoint is dead: both reach the second
static void
test_first_endpoint_dead (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    char *brokers = zsys_sprintf ("tcp://127.0.0.1:%d,%s", testutil_free_port (),
                                  cluster->endpoint);
    int64_t started = zclock_mono ();
    s_worker_start (cluster, 0, "w-second", brokers);
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 1, S_MOVE_MAX + 2000));
    int64_t worker_took = zclock_mono () - started;

    started = zclock_mono ();
    drover_client_t *client = drover_client_new (brokers);
    assert_non_null (client);
    s_submit (client);
    int64_t client_took = zclock_mono () - started;
    assert_string_equal (drover_client_endpoint (client), cluster->endpoint);
    print_message ("first endpoint dead: worker registered in %" PRId64 " ms, client's submit "
                   "accepted in %" PRId64 " ms\n", worker_took, client_took);
    assert_true (client_took < S_MOVE_MAX);
    drover_client_destroy (&client);

    //  A list with an endpoint ZeroMQ does not understand is refused
    assert_null (drover_client_new ("tcp://127.0.0.1:1,not-an-endpoint"));
    zstr_free (&brokers);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  Start two brokers; a worker named worker (the second's slot 0) given
//  both, registered with the first; a client given both that has
//  submitted once. Returns the first; the second in *second_p, the client
//  in *client_p
static testutil_cluster_t *
s_two_brokers (const char *worker, testutil_cluster_t **second_p, drover_client_t **client_p)
{
    testutil_cluster_t *first = testutil_cluster_new (NULL);
    testutil_cluster_t *second = testutil_cluster_new (NULL);
    char *brokers = zsys_sprintf ("%s,%s", first->endpoint, second->endpoint);
    s_worker_start (second, 0, worker, brokers);
    zsock_t *dealer = testutil_dealer (first);
    assert_true (testutil_wait_workers (dealer, 1, 10000));
    zsock_destroy (&dealer);
    drover_client_t *client = drover_client_new (brokers);
    assert_non_null (client);
    s_submit (client);
    zstr_free (&brokers);
    *second_p = second;
    *client_p = client;
    return first;
}

//  Two brokers; the one in use is killed (kill -9): the worker registers
//  with the other by itself, reporting what it runs, and the client's next
//  submit lands there
static void
test_broker_killed (void **state)
{
    testutil_cluster_t *second;
    drover_client_t *client;
    testutil_cluster_t *first = s_two_brokers ("w-moves", &second, &client);
    assert_string_equal (drover_client_endpoint (client), first->endpoint);

    zsock_t *dealer = testutil_dealer (second);
    assert_int_equal (testutil_worker_state (dealer, "w-moves"), -1);
    int64_t killed = zclock_mono ();
    s_kill_broker (first);
    assert_true (testutil_await_worker_state (dealer, "w-moves", DROVER_WORKER_UP, S_MOVE_MAX));
    int64_t worker_took = zclock_mono () - killed;
    assert_true (testutil_wait_workers (dealer, 1, 2000));

    //  The client has been idle: it learns of the dead broker at its next
    //  request, and moves within DEAD_AFTER of that
    int64_t asked = zclock_mono ();
    s_submit (client);
    int64_t client_took = zclock_mono () - asked;
    assert_string_equal (drover_client_endpoint (client), second->endpoint);
    print_message ("broker killed: worker registered with the other in %" PRId64 " ms, "
                   "client's next submit accepted in %" PRId64 " ms\n",
                   worker_took, client_took);
    assert_true (worker_took < S_MOVE_MAX);
    assert_true (client_took < S_MOVE_MAX);

    drover_client_destroy (&client);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&second);
    testutil_cluster_destroy (&first);
}


//  Two brokers; the one in use is stopped (SIGSTOP: its kernel still
//  acknowledges TCP, its process answers nothing): the worker's ZMTP
//  heartbeats go unanswered, it drops the connection and registers with
//  the other; the client's next (keyed) submit lands there too
static void
test_broker_stopped (void **state)
{
    testutil_cluster_t *second;
    drover_client_t *client;
    testutil_cluster_t *first = s_two_brokers ("w-stopped", &second, &client);

    zsock_t *dealer = testutil_dealer (second);
    assert_int_equal (testutil_worker_state (dealer, "w-stopped"), -1);
    int64_t stopped = zclock_mono ();
    assert_int_equal (kill (first->broker, SIGSTOP), 0);
    assert_true (testutil_await_worker_state (dealer, "w-stopped", DROVER_WORKER_UP,
                                              3 * S_MOVE_MAX));
    int64_t worker_took = zclock_mono () - stopped;

    int64_t asked = zclock_mono ();
    const char *argv [] = { "true" };
    drover_submit_t *submit = drover_submit_new (1, argv);
    assert_int_equal (drover_submit_set_key (submit, "after-the-stop"), 0);
    uint64_t task = 0;
    if (drover_client_submit (client, submit, &task))
        fail_msg ("submit failed: %s", drover_client_error_text (client));
    drover_submit_destroy (&submit);
    int64_t client_took = zclock_mono () - asked;
    assert_string_equal (drover_client_endpoint (client), second->endpoint);
    print_message ("broker stopped: worker registered with the other in %" PRId64 " ms, "
                   "client's next submit accepted in %" PRId64 " ms\n",
                   worker_took, client_took);
    assert_true (client_took < 3 * S_MOVE_MAX);

    drover_client_destroy (&client);
    zsock_destroy (&dealer);
    kill (first->broker, SIGCONT);
    testutil_cluster_destroy (&second);
    testutil_cluster_destroy (&first);
}

//  A standby answers a worker's RESULT with REDIRECT: the worker keeps it,
//  registers with the leader named, listing the attempt, with the same
//  epoch and state id, and sends the RESULT there under its first seq.
//  Then that leader goes away (its socket closed): the worker is at the
//  next broker of its list within about a second.
static void
test_worker_result_redirected (void **state)
{
    #define S_STATE_ID "0123456789abcdef0123456789abcdef"
    s_played_t first, second;
    s_played_init (&first);
    s_played_init (&second);
    char *brokers = zsys_sprintf ("%s,%s", first.endpoint, second.endpoint);
    drover_worker_t *worker = drover_worker_new (brokers, "w-played", 2, 1ULL << 30);
    assert_non_null (worker);
    drover_worker_set_heartbeat (worker, 100);
    drover_worker_set_handler (worker, s_ran, NULL);
    zactor_t *actor = zactor_new (drover_worker_actor, worker);

    drover_msg_t *hello = s_played_expect (&first, DROVER_MSG_WORKER_HELLO, 5000);
    uint64_t epoch = hello->epoch;
    s_played_welcome (&first, hello->seq, S_STATE_ID);
    drover_msg_destroy (&hello);
    drover_msg_t *offer = drover_msg_new (DROVER_MSG_TASK_OFFER);
    offer->task = 7;
    offer->attempt = 1;
    offer->procs = 1;
    drover_msg_set_body (offer, (const byte *) "\x94\x91\xa4true\x90\xc0\xc0", 10);
    s_played_send (&first, &offer);
    drover_msg_t *result = s_played_expect (&first, DROVER_MSG_TASK_RESULT, 5000);
    uint32_t result_seq = result->seq;
    assert_true (result->task == 7);
    drover_msg_destroy (&result);
    //  "I do not serve: the leader is b2 at the second endpoint"
    drover_msg_t *redirect = drover_msg_new (DROVER_MSG_REDIRECT);
    redirect->seq = result_seq;
    strcpy (redirect->leader, second.endpoint);
    strcpy (redirect->leader_name, "b2");
    s_played_send (&first, &redirect);

    hello = s_played_expect (&second, DROVER_MSG_WORKER_HELLO, 5000);
    assert_true (hello->epoch == epoch);
    assert_string_equal (hello->state_id, S_STATE_ID);
    assert_int_equal (hello->nrunning, 1);
    assert_true (hello->running [0].task == 7);
    assert_int_equal (hello->running [0].attempt, 1);
    s_played_welcome (&second, hello->seq, S_STATE_ID);
    drover_msg_destroy (&hello);
    result = s_played_expect (&second, DROVER_MSG_TASK_RESULT, 5000);
    assert_true (result->task == 7);
    assert_int_equal (result->seq, result_seq);
    drover_msg_t *ok = drover_msg_new (DROVER_MSG_OK);
    ok->seq = result_seq;
    ok->code = DROVER_CODE_OK;
    s_played_send (&second, &ok);
    drover_msg_destroy (&result);

    //  The leader vanishes; the worker's connection closes and stays down
    drover_msg_t *heartbeat = s_played_expect (&second, DROVER_MSG_WORKER_HEARTBEAT, 2000);
    drover_msg_destroy (&heartbeat);
    int64_t closed = zclock_mono ();
    s_played_close (&second);
    hello = s_played_expect (&first, DROVER_MSG_WORKER_HELLO, S_MOVE_MAX);
    int64_t took = zclock_mono () - closed;
    print_message ("leader's socket closed: the worker said HELLO to the next broker in %"
                   PRId64 " ms\n", took);
    assert_true (took >= DROVER_ENDPOINTS_DEAD_AFTER - 100);
    assert_int_equal (hello->nrunning, 0);      //  the result was acknowledged
    drover_msg_destroy (&hello);

    zactor_destroy (&actor);
    drover_worker_destroy (&worker);
    zstr_free (&brokers);
    s_played_close (&first);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_standby_redirects_to_leader),
        cmocka_unit_test (test_first_endpoint_dead),
        cmocka_unit_test (test_broker_killed),
        cmocka_unit_test (test_broker_stopped),
        cmocka_unit_test (test_worker_result_redirected),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
