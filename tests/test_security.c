/*  =========================================================================
    test_security - a broker with CURVE: real processes, real key files

    The broker runs with a key pair and a keys directory (workers/,
    clients/, admins/); the test plays workers and clients over DEALERs
    with their own keys, and counts what the broker accepted at the wire:
    a refused key gets no reply at all (its handshake fails, seen on the
    socket's monitor), a known key in the wrong role gets ERROR 403, and in
    each case an admin's TASK LIST shows nothing was queued.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_keys.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include <sys/stat.h>
#include "drover_event.h"

//  The keys of one test: the broker's pair, and a pair per peer whose
//  public half is in the role subdirectory that peer plays
typedef struct {
    char dir [64];              //  temp directory: broker.key, keys/
    char broker_key [128];      //  the broker's key pair file
    char keys [128];            //  the keys directory (--keys)
    zcert_t *broker;            //  the broker's pair
    zcert_t *worker;            //  workers/node.key
    zcert_t *other_worker;      //  workers/rogue.key
    zcert_t *pinned;            //  workers/rack.key, worker-ids "rack-1"
    zcert_t *alice;             //  clients/alice.key
    zcert_t *bob;               //  clients/bob.key
    zcert_t *admin;             //  admins/ops.key
    testutil_cluster_t *cluster;    //  the broker, started on these keys
} s_keys_t;

//  Save a peer's public key in a role subdirectory; returns the pair
static zcert_t *
s_peer_key (s_keys_t *self, const char *role, const char *name, const char *worker_ids)
{
    zcert_t *cert = zcert_new ();
    if (worker_ids)
        zcert_set_meta (cert, "worker-ids", "%s", worker_ids);
    char *path = zsys_sprintf ("%s/%s/%s.key", self->keys, role, name);
    assert_int_equal (zcert_save_public (cert, path), 0);
    zstr_free (&path);
    return cert;
}

//  Make the keys and start a broker on them
static s_keys_t *
s_keys_new (void)
{
    s_keys_t *self = (s_keys_t *) zmalloc (sizeof (s_keys_t));
    snprintf (self->dir, sizeof self->dir, "/tmp/drover-security-XXXXXX");
    assert_non_null (mkdtemp (self->dir));
    snprintf (self->broker_key, sizeof self->broker_key, "%s/broker.key", self->dir);
    snprintf (self->keys, sizeof self->keys, "%s/keys", self->dir);
    assert_int_equal (mkdir (self->keys, 0755), 0);
    const char *roles [] = { "workers", "clients", "admins" };
    for (int index = 0; index < 3; index++) {
        char *path = zsys_sprintf ("%s/%s", self->keys, roles [index]);
        assert_int_equal (mkdir (path, 0755), 0);
        zstr_free (&path);
    }
    self->broker = testutil_save_key_pair (self->broker_key);
    self->worker = s_peer_key (self, "workers", "node", NULL);
    self->other_worker = s_peer_key (self, "workers", "rogue", NULL);
    self->pinned = s_peer_key (self, "workers", "rack", "rack-1");
    self->alice = s_peer_key (self, "clients", "alice", NULL);
    self->bob = s_peer_key (self, "clients", "bob", NULL);
    self->admin = s_peer_key (self, "admins", "ops", NULL);
    //  Played workers do not heartbeat: lost-after is long, so a worker is
    //  LOST only when a test makes it so. Verbose: the log checked for
    //  secrets (s_keys_destroy) is the broker's most talkative.
    const char *flags [] = { "--key", self->broker_key, "--keys", self->keys,
                             "--set", "health/lost-after=60000", "-v", NULL };
    self->cluster = testutil_cluster_new (flags);
    return self;
}

//  Stop the broker and remove the keys; no secret key may be in its log
static void
s_keys_destroy (s_keys_t **self_p)
{
    s_keys_t *self = *self_p;
    char *log = testutil_slurp (testutil_cluster_log (self->cluster, "broker"));
    assert_non_null (log);
    zcert_t *pairs [] = { self->broker, self->worker, self->other_worker, self->pinned,
                          self->alice, self->bob, self->admin };
    for (size_t index = 0; index < sizeof pairs / sizeof pairs [0]; index++)
        if (strstr (log, zcert_secret_txt (pairs [index])))
            fail_msg ("a secret key is in the broker's log");
    assert_non_null (strstr (log, "guard: curve=on"));
    free (log);
    testutil_cluster_destroy (&self->cluster);
    zcert_destroy (&self->broker);
    zcert_destroy (&self->worker);
    zcert_destroy (&self->other_worker);
    zcert_destroy (&self->pinned);
    zcert_destroy (&self->alice);
    zcert_destroy (&self->bob);
    zcert_destroy (&self->admin);
    testutil_remove_tree (self->dir);
    free (self);
    *self_p = NULL;
}

//  Watch a socket's handshake outcome: a PAIR that hears its events
static zsock_t *
s_watch (zsock_t *sock)
{
    static int count = 0;
    char *endpoint = zsys_sprintf ("inproc://test-security-monitor-%d", ++count);
    int events = ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH
               | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL;
    assert_int_equal (zmq_socket_monitor (zsock_resolve (sock), endpoint, events), 0);
    zsock_t *watch = zsock_new_pair (endpoint);
    assert_non_null (watch);
    zstr_free (&endpoint);
    return watch;
}

//  A DEALER to the broker speaking CURVE with PAIR (NULL: the NULL
//  mechanism) against SERVER's public key; with WATCH_P, its handshake
//  watched from before it connects
static zsock_t *
s_dealer_watched (s_keys_t *self, zcert_t *pair, zcert_t *server, zsock_t **watch_p)
{
    zsock_t *dealer = zsock_new (ZMQ_DEALER);
    zsock_set_linger (dealer, 0);
    if (pair) {
        zcert_apply (pair, dealer);
        zsock_set_curve_serverkey (dealer, zcert_public_txt (server));
    }
    if (watch_p)
        *watch_p = s_watch (dealer);
    assert_int_equal (zsock_connect (dealer, "%s", self->cluster->endpoint), 0);
    return dealer;
}

//  A DEALER to the broker with a key (see s_dealer_watched)
static zsock_t *
s_dealer (s_keys_t *self, zcert_t *pair, zcert_t *server)
{
    return s_dealer_watched (self, pair, server, NULL);
}

//  A client's DEALER with a key that says its protocol level first, so
//  that the broker answers with every field of it (owners in TASK TABLE)
static zsock_t *
s_client (s_keys_t *self, zcert_t *pair, zcert_t *server)
{
    zsock_t *dealer = s_dealer (self, pair, server);
    testutil_say_level (dealer, 5000);
    return dealer;
}

//  The next handshake event a watch hears within timeout msec, or 0
static int
s_handshake_event (zsock_t *watch, int timeout)
{
    zmsg_t *msg = testutil_recv (watch, timeout);
    if (!msg)
        return 0;
    zframe_t *frame = zmsg_first (msg);
    uint16_t event = 0;
    memcpy (&event, zframe_data (frame), sizeof event);
    zmsg_destroy (&msg);
    return event;
}

//  Assert a watched socket has had no handshake succeed, of the events
//  it has heard by now
static void
s_expect_no_handshake (zsock_t *watch)
{
    int event;
    while ((event = s_handshake_event (watch, 0)))
        if (event == ZMQ_EVENT_HANDSHAKE_SUCCEEDED)
            fail_msg ("a socket without a key completed a handshake");
}

//  Wait until the broker has refused a watched socket's handshake (a
//  failure event; 5 s at most), none having succeeded
static void
s_await_refused (zsock_t *watch)
{
    int event = s_handshake_event (watch, 5000);
    if (event == 0 || event == ZMQ_EVENT_HANDSHAKE_SUCCEEDED)
        fail_msg ("a socket without a key: %s", event? "its handshake succeeded"
                  : "no handshake refused within 5 s");
}

//  Tasks the broker holds in any state, asked with the admin's key
static uint64_t
s_task_count (s_keys_t *self)
{
    zsock_t *admin = s_dealer (self, self->admin, self->broker);
    uint64_t total = testutil_task_count (admin, 5000);
    zsock_destroy (&admin);
    return total;
}

//  Send REQUEST and expect ERROR 403 in return
static void
s_expect_forbidden (zsock_t *dealer, drover_msg_t *request)
{
    drover_msg_t *reply = testutil_request (dealer, &request, 5000);
    assert_non_null (reply);
    if (reply->id != DROVER_MSG_ERROR || reply->code != DROVER_CODE_FORBIDDEN)
        fail_msg ("expected ERROR 403, got %s %d %s", drover_msg_name (reply->id), reply->code,
                  reply->reason? reply->reason: "");
    drover_msg_destroy (&reply);
}

//  An unknown key, the NULL mechanism and a wrong server key all fail at
//  the handshake: no reply, nothing queued; a known key gets through
static void
test_handshake_refusals (void **state)
{
    s_keys_t *keys = s_keys_new ();
    zcert_t *stranger = zcert_new ();
    zcert_t *wrong_server = zcert_new ();
    struct {
        zcert_t *pair;          //  the peer's key, NULL for no CURVE
        zcert_t *server;        //  the server key it believes in
        int event;              //  what its handshake ends in
    } cases [] = {
        { stranger, keys->broker, ZMQ_EVENT_HANDSHAKE_FAILED_AUTH },
        { NULL, NULL, 0 },     //  PROTOCOL or NO_DETAIL: which, libzmq's timing says
        { keys->alice, wrong_server, 0 },
        { keys->alice, keys->broker, ZMQ_EVENT_HANDSHAKE_SUCCEEDED },
    };
    for (size_t index = 0; index < sizeof cases / sizeof cases [0]; index++) {
        zsock_t *watch = NULL;
        zsock_t *dealer = s_dealer_watched (keys, cases [index].pair, cases [index].server,
                                            &watch);
        drover_msg_t *submit = testutil_submit_msg ("true", 0, 1, 0);
        submit->seq = 77;
        testutil_send (dealer, &submit);
        //  The handshake's outcome is the barrier: a message goes only
        //  over a connection whose handshake succeeded
        int event = s_handshake_event (watch, 5000);
        drover_msg_t *reply = NULL;
        if (cases [index].event == ZMQ_EVENT_HANDSHAKE_SUCCEEDED) {
            assert_int_equal (event, ZMQ_EVENT_HANDSHAKE_SUCCEEDED);
            reply = testutil_recv_msg (dealer, 5000);
            assert_non_null (reply);
            assert_int_equal (reply->id, DROVER_MSG_TASK_ACCEPTED);
        }
        else {
            if (event == 0 || event == ZMQ_EVENT_HANDSHAKE_SUCCEEDED)
                fail_msg ("case %zu: %s", index, event? "the handshake succeeded"
                          : "no handshake refused within 5 s");
            if (cases [index].event && event != cases [index].event)
                fail_msg ("case %zu: handshake event 0x%x, expected 0x%x", index, event,
                          cases [index].event);
            s_expect_no_handshake (watch);
            reply = testutil_recv_msg (dealer, 0);
            if (reply)
                fail_msg ("case %zu: the broker answered %s", index, drover_msg_name (reply->id));
        }
        drover_msg_destroy (&reply);
        zsock_destroy (&watch);
        zsock_destroy (&dealer);
    }
    assert_int_equal (s_task_count (keys), 1);     //  only the known key's
    zcert_destroy (&stranger);
    zcert_destroy (&wrong_server);
    s_keys_destroy (&keys);
}

//  Each role speaks only its own dialogue: a worker key cannot submit or
//  list, a client key cannot say HELLO or RESULT, hold a worker or replay
//  events; an admin may hold
static void
test_roles_refused_by_message (void **state)
{
    s_keys_t *keys = s_keys_new ();
    zsock_t *worker = s_dealer (keys, keys->worker, keys->broker);
    zsock_t *alice = s_dealer (keys, keys->alice, keys->broker);
    zsock_t *admin = s_dealer (keys, keys->admin, keys->broker);

    s_expect_forbidden (worker, testutil_submit_msg ("true", 0, 1, 0));
    s_expect_forbidden (worker, drover_msg_new (DROVER_MSG_TASK_LIST));
    s_expect_forbidden (alice, testutil_played_msg ("node-1", 1, DROVER_MSG_WORKER_HELLO, 0, 0));
    s_expect_forbidden (alice, testutil_played_msg ("node-1", 1, DROVER_MSG_TASK_RESULT, 1, 1));
    drover_msg_t *hold = drover_msg_new (DROVER_MSG_WORKER_ADMIN);
    snprintf (hold->worker, sizeof hold->worker, "node-1");
    hold->admin = DROVER_ADMIN_HOLD;
    s_expect_forbidden (alice, hold);
    s_expect_forbidden (alice, drover_msg_new (DROVER_MSG_EVENT_REPLAY));
    assert_int_equal (s_task_count (keys), 0);

    //  The worker registers; the admin holds it
    drover_msg_t *hello = testutil_played_msg ("node-1", 1, DROVER_MSG_WORKER_HELLO, 0, 0);
    drover_msg_t *welcome = testutil_request (worker, &hello, 5000);
    assert_non_null (welcome);
    assert_int_equal (welcome->id, DROVER_MSG_WORKER_WELCOME);
    drover_msg_destroy (&welcome);
    hold = drover_msg_new (DROVER_MSG_WORKER_ADMIN);
    snprintf (hold->worker, sizeof hold->worker, "node-1");
    hold->admin = DROVER_ADMIN_HOLD;
    drover_msg_t *ok = testutil_request (admin, &hold, 5000);
    assert_non_null (ok);
    assert_int_equal (ok->id, DROVER_MSG_OK);
    drover_msg_destroy (&ok);

    zsock_destroy (&worker);
    zsock_destroy (&alice);
    zsock_destroy (&admin);
    s_keys_destroy (&keys);
}

//  The pool's messages go through the guard's roles like the others: a
//  client key may list the pool but not hold, drain, run or destroy an
//  instance (403); a worker key may do neither; an admin key gets past the
//  guard (here the broker has no pool: 503)
static void
test_pool_admin_is_for_admins (void **state)
{
    s_keys_t *keys = s_keys_new ();
    zsock_t *worker = s_dealer (keys, keys->worker, keys->broker);
    zsock_t *alice = s_dealer (keys, keys->alice, keys->broker);
    zsock_t *admin = s_dealer (keys, keys->admin, keys->broker);

    for (int action = 0; action <= DROVER_POOLADMIN_MAX; action++) {
        drover_msg_t *destroy = drover_msg_new (DROVER_MSG_POOL_ADMIN);
        snprintf (destroy->worker, sizeof destroy->worker, "POOL-1");
        destroy->admin = (uint8_t) action;
        s_expect_forbidden (alice, destroy);
    }
    s_expect_forbidden (worker, drover_msg_new (DROVER_MSG_POOL_LIST));
    drover_msg_t *hold = drover_msg_new (DROVER_MSG_POOL_ADMIN);
    snprintf (hold->worker, sizeof hold->worker, "POOL-1");
    hold->admin = DROVER_POOLADMIN_HOLD;
    s_expect_forbidden (worker, hold);

    //  A client lists; an admin's POOL ADMIN is answered, not refused
    drover_msg_t *list = drover_msg_new (DROVER_MSG_POOL_LIST);
    drover_msg_t *table = testutil_request (alice, &list, 5000);
    assert_non_null (table);
    assert_int_equal (table->id, DROVER_MSG_POOL_TABLE);
    assert_int_equal (table->pool.enabled, 0);
    drover_msg_destroy (&table);
    hold = drover_msg_new (DROVER_MSG_POOL_ADMIN);
    snprintf (hold->worker, sizeof hold->worker, "POOL-1");
    hold->admin = DROVER_POOLADMIN_HOLD;
    drover_msg_t *reply = testutil_request (admin, &hold, 5000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_ERROR);
    assert_int_equal (reply->code, DROVER_CODE_UNAVAILABLE);
    drover_msg_destroy (&reply);

    zsock_destroy (&worker);
    zsock_destroy (&alice);
    zsock_destroy (&admin);
    s_keys_destroy (&keys);
}

//  A worker id belongs to the key that registered it: another worker key
//  claiming it is refused, even after the first said GOODBYE; a key whose
//  file pins its ids may use only those
static void
test_worker_id_bound_to_key (void **state)
{
    s_keys_t *keys = s_keys_new ();
    zsock_t *first = s_dealer (keys, keys->worker, keys->broker);
    zsock_t *rogue = s_dealer (keys, keys->other_worker, keys->broker);
    drover_msg_t *hello = testutil_played_msg ("node-1", 1, DROVER_MSG_WORKER_HELLO, 0, 0);
    drover_msg_t *welcome = testutil_request (first, &hello, 5000);
    assert_non_null (welcome);
    assert_int_equal (welcome->id, DROVER_MSG_WORKER_WELCOME);
    drover_msg_destroy (&welcome);

    drover_msg_t *stolen = testutil_played_msg ("node-1", 1, DROVER_MSG_WORKER_HELLO, 0, 0);
    stolen->epoch = 2;
    s_expect_forbidden (rogue, stolen);
    drover_msg_t *goodbye = testutil_played_msg ("node-1", 1, DROVER_MSG_WORKER_GOODBYE, 0, 0);
    testutil_send (first, &goodbye);
    zsock_t *admin = s_dealer (keys, keys->admin, keys->broker);
    assert_true (testutil_wait_workers (admin, 0, 5000));
    stolen = testutil_played_msg ("node-1", 1, DROVER_MSG_WORKER_HELLO, 0, 0);
    stolen->epoch = 3;
    s_expect_forbidden (rogue, stolen);
    //  Its own new id is fine
    hello = testutil_played_msg ("rogue-1", 1, DROVER_MSG_WORKER_HELLO, 0, 0);
    welcome = testutil_request (rogue, &hello, 5000);
    assert_int_equal (welcome->id, DROVER_MSG_WORKER_WELCOME);
    drover_msg_destroy (&welcome);

    zsock_t *rack = s_dealer (keys, keys->pinned, keys->broker);
    s_expect_forbidden (rack, testutil_played_msg ("rack-2", 1, DROVER_MSG_WORKER_HELLO, 0, 0));
    hello = testutil_played_msg ("rack-1", 1, DROVER_MSG_WORKER_HELLO, 0, 0);
    welcome = testutil_request (rack, &hello, 5000);
    assert_int_equal (welcome->id, DROVER_MSG_WORKER_WELCOME);
    drover_msg_destroy (&welcome);

    zsock_destroy (&rack);
    zsock_destroy (&admin);
    zsock_destroy (&first);
    zsock_destroy (&rogue);
    s_keys_destroy (&keys);
}

//  Removing a key's file: a new connection with it fails its handshake at
//  once, a live client session is refused within a refresh, and a live
//  worker of that key is LOST without waiting for lost-after
static void
test_revoked_key_ends_sessions (void **state)
{
    s_keys_t *keys = s_keys_new ();
    zsock_t *alice = s_dealer (keys, keys->alice, keys->broker);
    zsock_t *worker = s_dealer (keys, keys->worker, keys->broker);
    zsock_t *admin = s_dealer (keys, keys->admin, keys->broker);
    testutil_submit (alice, testutil_submit_msg ("true", 0, 64, 0));
    drover_msg_t *hello = testutil_played_msg ("node-1", 1, DROVER_MSG_WORKER_HELLO, 0, 0);
    drover_msg_t *welcome = testutil_request (worker, &hello, 5000);
    assert_int_equal (welcome->id, DROVER_MSG_WORKER_WELCOME);
    drover_msg_destroy (&welcome);
    assert_true (testutil_wait_workers (admin, 1, 5000));

    char *path = zsys_sprintf ("%s/clients/alice.key", keys->keys);
    assert_int_equal (unlink (path), 0);
    zstr_free (&path);
    path = zsys_sprintf ("%s/workers/node.key", keys->keys);
    assert_int_equal (unlink (path), 0);
    zstr_free (&path);
    int64_t revoked_at = zclock_mono ();

    //  The live worker is LOST well before lost-after (60 s)
    assert_true (testutil_wait_workers (admin, 0, 2000));
    assert_true (zclock_mono () - revoked_at < 2000);
    //  The live client session: refused once the broker looked again
    bool refused = false;
    while (!refused && zclock_mono () - revoked_at < 2000) {
        drover_msg_t *reply = testutil_request (alice, &(drover_msg_t *) {
                                  testutil_submit_msg ("true", 0, 64, 0) }, 5000);
        assert_non_null (reply);
        refused = reply->id == DROVER_MSG_ERROR && reply->code == DROVER_CODE_FORBIDDEN;
        drover_msg_destroy (&reply);
    }
    assert_true (refused);
    //  A new connection with the key: no handshake
    zsock_t *watch = NULL;
    zsock_t *again = s_dealer_watched (keys, keys->alice, keys->broker, &watch);
    assert_int_equal (s_handshake_event (watch, 2000), ZMQ_EVENT_HANDSHAKE_FAILED_AUTH);
    zsock_destroy (&watch);
    zsock_destroy (&again);

    zsock_destroy (&alice);
    zsock_destroy (&worker);
    zsock_destroy (&admin);
    s_keys_destroy (&keys);
}

//  The rows of a TASK LIST asked with a dealer: how many, and whether one
//  is TASK (its owner then in OWNER)
static uint32_t
s_rows (zsock_t *dealer, uint64_t task, char *owner)
{
    drover_msg_t *list = drover_msg_new (DROVER_MSG_TASK_LIST);
    list->limit = 100;
    list->state = 255;
    drover_msg_t *table = testutil_request (dealer, &list, 5000);
    assert_non_null (table);
    assert_int_equal (table->id, DROVER_MSG_TASK_TABLE);
    uint32_t rows = table->nrows;
    *owner = 0;
    for (uint32_t index = 0; index < table->nrows; index++)
        if (table->task_rows [index].task == task)
            strcpy (owner, table->task_rows [index].owner);
    drover_msg_destroy (&table);
    return rows;
}

//  A task belongs to the key that submitted it, across a restart: another
//  client can neither cancel it, wait on it, explain it, nor see its row
//  (only the counts); its owner and an admin can
static void
test_tasks_belong_to_their_submitter (void **state)
{
    s_keys_t *keys = s_keys_new ();
    zsock_t *alice = s_client (keys, keys->alice, keys->broker);
    zsock_t *bob = s_client (keys, keys->bob, keys->broker);
    uint64_t task = testutil_submit (alice, testutil_submit_msg ("true", 0, 64, 0));
    uint64_t other = testutil_submit (alice, testutil_submit_msg ("true", 0, 64, 0));
    for (int round = 0; round < 2; round++) {
        drover_msg_t *cancel = drover_msg_new (DROVER_MSG_TASK_CANCEL);
        cancel->task = task;
        s_expect_forbidden (bob, cancel);
        drover_msg_t *wait = drover_msg_new (DROVER_MSG_TASK_WAIT);
        wait->ntasks = 1;
        wait->tasks = (uint64_t *) zmalloc (sizeof (uint64_t));
        wait->tasks [0] = task;
        s_expect_forbidden (bob, wait);
        drover_msg_t *explain = drover_msg_new (DROVER_MSG_TASK_EXPLAIN);
        explain->task = task;
        s_expect_forbidden (bob, explain);
        explain = drover_msg_new (DROVER_MSG_TASK_EXPLAIN);
        explain->task = task;
        drover_msg_t *told = testutil_request (alice, &explain, 5000);
        assert_int_equal (told->id, DROVER_MSG_TASK_EXPLANATION);
        assert_int_equal (told->state, DROVER_TASK_QUEUED);
        assert_true (told->nwhys >= 2);
        drover_msg_destroy (&told);
        char owner [DROVER_ID_MAX + 1];
        assert_int_equal (s_rows (bob, task, owner), 0);
        assert_int_equal (s_rows (alice, task, owner), 2);
        assert_string_equal (owner, "alice");
        if (round == 0) {
            //  Owners are kept with the tasks
            zsock_destroy (&alice);
            zsock_destroy (&bob);
            const char *flags [] = { "--key", keys->broker_key, "--keys", keys->keys,
                                     "--set", "health/lost-after=60000", NULL };
            testutil_cluster_kill_restart (keys->cluster, flags);
            alice = s_client (keys, keys->alice, keys->broker);
            bob = s_client (keys, keys->bob, keys->broker);
        }
    }
    drover_msg_t *cancel = drover_msg_new (DROVER_MSG_TASK_CANCEL);
    cancel->task = task;
    drover_msg_t *ok = testutil_request (alice, &cancel, 5000);
    assert_int_equal (ok->id, DROVER_MSG_OK);
    drover_msg_destroy (&ok);
    zsock_t *admin = s_client (keys, keys->admin, keys->broker);
    char owner [DROVER_ID_MAX + 1];
    assert_int_equal (s_rows (admin, other, owner), 2);
    assert_string_equal (owner, "alice");
    cancel = drover_msg_new (DROVER_MSG_TASK_CANCEL);
    cancel->task = other;
    ok = testutil_request (admin, &cancel, 5000);
    assert_int_equal (ok->id, DROVER_MSG_OK);
    drover_msg_destroy (&ok);
    zsock_destroy (&admin);
    zsock_destroy (&alice);
    zsock_destroy (&bob);
    s_keys_destroy (&keys);
}

//  A SUB to the broker's event stream with a key (NULL: none), subscribed
//  to topic, its handshake watched if WATCH_P
static zsock_t *
s_subscriber (s_keys_t *self, zcert_t *pair, const char *topic, zsock_t **watch_p)
{
    zsock_t *sub = zsock_new (ZMQ_SUB);
    if (pair) {
        zcert_apply (pair, sub);
        zsock_set_curve_serverkey (sub, zcert_public_txt (self->broker));
    }
    if (watch_p)
        *watch_p = s_watch (sub);
    zsock_set_subscribe (sub, topic);
    assert_int_equal (zsock_connect (sub, "%s", self->cluster->events), 0);
    return sub;
}

//  What one subscriber saw: task ids of task events, by whose they were
typedef struct {
    zsock_t *sub;               //  the subscriber
    const char *name;           //  whose key, for messages
    size_t own;                 //  events about its own tasks
    size_t others;              //  events about anyone else's tasks
} s_seen_t;

//  Read what a subscriber has now; OWNED lists the tasks of its key
static void
s_seen_read (s_seen_t *seen, const uint64_t *owned, size_t nowned, int timeout)
{
    zmsg_t *msg;
    while ((msg = testutil_recv (seen->sub, timeout))) {
        timeout = 0;
        zframe_t *body = zmsg_last (msg);
        drover_event_t event;
        assert_int_equal (drover_event_decode (&event, zframe_data (body), zframe_size (body)), 0);
        if (event.task) {
            bool mine = false;
            for (size_t index = 0; index < nowned; index++)
                mine |= owned [index] == event.task;
            if (mine)
                seen->own++;
            else
                seen->others++;
        }
        zmsg_destroy (&msg);
    }
}

//  The event stream: no key, no events; a client sees its own tasks'
//  events only, an admin everyone's
static void
test_event_stream_by_owner (void **state)
{
    s_keys_t *keys = s_keys_new ();
    zsock_t *watch = NULL;
    zsock_t *anonymous = s_subscriber (keys, NULL, "", &watch);
    s_seen_t alice = { s_subscriber (keys, keys->alice, "", NULL), "alice", 0, 0 };
    s_seen_t bob = { s_subscriber (keys, keys->bob, "own/bob/task.", NULL), "bob", 0, 0 };
    s_seen_t admin = { s_subscriber (keys, keys->admin, "task.", NULL), "admin", 0, 0 };
    zsock_t *alice_dealer = s_dealer (keys, keys->alice, keys->broker);
    zsock_t *bob_dealer = s_dealer (keys, keys->bob, keys->broker);
    uint64_t alices [64], bobs [64], everyone [128];
    size_t nalices = 0, nbobs = 0;
    //  Submit in pairs until each subscriber has heard one of its own
    //  (subscriptions reach the broker some time after connecting)
    int64_t deadline = zclock_mono () + 10000;
    while ((!alice.own || !bob.own || !admin.own) && zclock_mono () < deadline
    &&  nalices < 64) {
        alices [nalices++] = testutil_submit (alice_dealer,
                                              testutil_submit_msg ("true", 0, 64, 0));
        bobs [nbobs++] = testutil_submit (bob_dealer, testutil_submit_msg ("true", 0, 64, 0));
        for (size_t index = 0; index < nalices; index++) {
            everyone [2 * index] = alices [index];
            everyone [2 * index + 1] = bobs [index];
        }
        s_seen_read (&alice, alices, nalices, 100);
        s_seen_read (&bob, bobs, nbobs, 0);
        s_seen_read (&admin, everyone, nalices + nbobs, 0);
    }
    if (!alice.own || !bob.own || !admin.own)
        fail_msg ("heard their own: alice %zu, bob %zu, admin %zu (others %zu %zu %zu)", alice.own,
                  bob.own, admin.own, alice.others, bob.others, admin.others);
    //  Then one more each, all heard by the admin, each by its owner only
    size_t alice_before = alice.own, bob_before = bob.own;
    alices [nalices++] = testutil_submit (alice_dealer, testutil_submit_msg ("true", 0, 64, 0));
    bobs [nbobs++] = testutil_submit (bob_dealer, testutil_submit_msg ("true", 0, 64, 0));
    for (size_t index = 0; index < nalices; index++) {
        everyone [2 * index] = alices [index];
        everyone [2 * index + 1] = bobs [index];
    }
    size_t admin_before = admin.own;
    deadline = zclock_mono () + 5000;
    while ((alice.own == alice_before || bob.own == bob_before || admin.own < admin_before + 2)
    &&  zclock_mono () < deadline) {
        s_seen_read (&alice, alices, nalices, 50);
        s_seen_read (&bob, bobs, nbobs, 0);
        s_seen_read (&admin, everyone, nalices + nbobs, 0);
    }
    assert_true (alice.own > alice_before && bob.own > bob_before);
    assert_true (admin.own >= admin_before + 2);
    assert_int_equal (alice.others, 0);
    assert_int_equal (bob.others, 0);
    assert_int_equal (admin.others, 0);
    //  Without a key: its handshake refused (the barrier: events go only
    //  over a connection whose handshake succeeded), none succeeded, no event
    s_await_refused (watch);
    s_expect_no_handshake (watch);
    zmsg_t *leak = testutil_recv (anonymous, 0);
    assert_null (leak);

    zsock_destroy (&watch);
    zsock_destroy (&anonymous);
    zsock_destroy (&alice.sub);
    zsock_destroy (&bob.sub);
    zsock_destroy (&admin.sub);
    zsock_destroy (&alice_dealer);
    zsock_destroy (&bob_dealer);
    s_keys_destroy (&keys);
}

//  Send a message from a socket without a key, refused at its handshake
//  already (s_await_refused), and expect it never to be answered: a
//  message goes only over a connection whose handshake succeeded, and as
//  none ever does (checked here and at the end of the test), nothing was
//  delivered, and no reply can come, now or late
static void
s_expect_silence (zsock_t *peer, zsock_t *watch, drover_msg_t *msg)
{
    zframe_t *frame = drover_msg_encode (msg);
    assert_non_null (frame);
    zframe_send (&frame, peer, ZFRAME_DONTWAIT);
    zframe_destroy (&frame);
    drover_msg_destroy (&msg);
    s_expect_no_handshake (watch);
    drover_msg_t *reply = testutil_recv_msg (peer, 0);
    if (reply)
        fail_msg ("an unauthenticated peer got %s", drover_msg_name (reply->id));
}

//  What one unauthenticated connection could do before CURVE, replayed:
//  with no key nothing at all is answered; with a key of another role or
//  owner each step is refused. Then the task runs on as if nothing was
//  tried: the real worker's result is the one its owner gets.
static void
test_exposures_refused (void **state)
{
    s_keys_t *keys = s_keys_new ();
    zsock_t *alice = s_dealer (keys, keys->alice, keys->broker);
    zsock_t *worker = s_dealer (keys, keys->worker, keys->broker);
    drover_msg_t *hello = testutil_played_msg ("node-1", 1, DROVER_MSG_WORKER_HELLO, 0, 0);
    drover_msg_t *welcome = testutil_request (worker, &hello, 5000);
    assert_int_equal (welcome->id, DROVER_MSG_WORKER_WELCOME);
    drover_msg_destroy (&welcome);
    drover_msg_t *submit = testutil_submit_msg ("echo secret", 0, 1, DROVER_SUBMIT_NOTIFY);
    uint64_t task = testutil_submit (alice, submit);
    drover_msg_t *offer = testutil_expect_msg (worker, DROVER_MSG_TASK_OFFER, 5000);
    assert_true (offer->task == task);
    uint32_t attempt = offer->attempt;
    drover_msg_destroy (&offer);
    drover_msg_t *started = testutil_played_msg ("node-1", 1, DROVER_MSG_TASK_STARTED, task,
                                                 attempt);
    testutil_send (worker, &started);

    zsock_t *watch = NULL;
    zsock_t *anonymous = s_dealer_watched (keys, NULL, NULL, &watch);
    s_await_refused (watch);
    zsock_t *rogue = s_dealer (keys, keys->other_worker, keys->broker);
    zsock_t *bob = s_dealer (keys, keys->bob, keys->broker);
    //  A forged result
    drover_msg_t *forged = testutil_played_msg ("node-1", 1, DROVER_MSG_TASK_RESULT, task,
                                                attempt);
    s_expect_silence (anonymous, watch, forged);
    forged = testutil_played_msg ("node-1", 1, DROVER_MSG_TASK_RESULT, task, attempt);
    drover_msg_t *refused = testutil_request (rogue, &forged, 5000);
    assert_int_equal (refused->id, DROVER_MSG_ERROR);
    assert_int_equal (refused->code, DROVER_CODE_NOT_REGISTERED);
    drover_msg_destroy (&refused);
    s_expect_forbidden (bob, testutil_played_msg ("node-1", 1, DROVER_MSG_TASK_RESULT, task,
                                                  attempt));
    //  The worker's id taken over; a rogue worker registering for work
    drover_msg_t *takeover = testutil_played_msg ("node-1", 1, DROVER_MSG_WORKER_HELLO, 0, 0);
    takeover->epoch = 9;
    s_expect_silence (anonymous, watch, takeover);
    takeover = testutil_played_msg ("node-1", 1, DROVER_MSG_WORKER_HELLO, 0, 0);
    takeover->epoch = 9;
    s_expect_forbidden (rogue, takeover);
    s_expect_silence (anonymous, watch, testutil_played_msg ("evil", 64, DROVER_MSG_WORKER_HELLO,
                                                             0, 0));
    //  Cancel, read the output, fill the task's waiters, hold the worker
    drover_msg_t *cancel = drover_msg_new (DROVER_MSG_TASK_CANCEL);
    cancel->task = task;
    s_expect_silence (anonymous, watch, cancel);
    cancel = drover_msg_new (DROVER_MSG_TASK_CANCEL);
    cancel->task = task;
    s_expect_forbidden (bob, cancel);
    for (int round = 0; round < 50; round++) {
        drover_msg_t *wait = drover_msg_new (DROVER_MSG_TASK_WAIT);
        wait->ntasks = 1;
        wait->tasks = (uint64_t *) zmalloc (sizeof (uint64_t));
        wait->tasks [0] = task;
        if (round == 0)
            s_expect_silence (anonymous, watch, wait);
        else
            s_expect_forbidden (bob, wait);
    }
    drover_msg_t *hold = drover_msg_new (DROVER_MSG_WORKER_ADMIN);
    snprintf (hold->worker, sizeof hold->worker, "node-1");
    hold->admin = DROVER_ADMIN_DRAIN;
    s_expect_silence (anonymous, watch, hold);
    hold = drover_msg_new (DROVER_MSG_WORKER_ADMIN);
    snprintf (hold->worker, sizeof hold->worker, "node-1");
    hold->admin = DROVER_ADMIN_HOLD;
    s_expect_forbidden (bob, hold);
    //  Nothing of it took: the task still runs on node-1, which is not held
    zsock_t *admin = s_dealer (keys, keys->admin, keys->broker);
    char running_on [DROVER_ID_MAX + 1];
    assert_true (testutil_wait_running (admin, task, running_on, 5000));
    assert_string_equal (running_on, "node-1");
    drover_msg_t *list = drover_msg_new (DROVER_MSG_WORKER_LIST);
    drover_msg_t *workers = testutil_request (admin, &list, 5000);
    assert_int_equal (workers->nrows, 1);
    assert_string_equal (workers->worker_rows [0].id, "node-1");
    assert_int_equal (workers->worker_rows [0].admin, DROVER_ADMIN_RUN);
    drover_msg_destroy (&workers);
    //  The real result reaches its owner
    drover_msg_t *result = testutil_played_msg ("node-1", 1, DROVER_MSG_TASK_RESULT, task,
                                                attempt);
    result->out = (byte *) strdup ("secret\n");
    result->out_size = 7;
    drover_msg_t *ok = testutil_request (worker, &result, 5000);
    assert_int_equal (ok->id, DROVER_MSG_OK);
    drover_msg_destroy (&ok);
    drover_msg_t *done = testutil_expect_done (alice, task, DROVER_TASK_SUCCEEDED, 5000);
    assert_int_equal (done->out_size, 7);
    drover_msg_destroy (&done);
    assert_null (testutil_recv_msg (anonymous, 0));
    s_expect_no_handshake (watch);

    zsock_destroy (&admin);
    zsock_destroy (&watch);
    zsock_destroy (&anonymous);
    zsock_destroy (&rogue);
    zsock_destroy (&bob);
    zsock_destroy (&worker);
    zsock_destroy (&alice);
    s_keys_destroy (&keys);
}

//  A key added while the broker runs is served from its first message
//  (zauth admits it at once; the guard looks again on a miss)
static void
test_added_key_served_at_once (void **state)
{
    s_keys_t *keys = s_keys_new ();
    for (int round = 0; round < 5; round++) {
        char name [16];
        snprintf (name, sizeof name, "late-%d", round);
        zcert_t *late = s_peer_key (keys, "clients", name, NULL);
        zsock_t *dealer = s_dealer (keys, late, keys->broker);
        drover_msg_t *submit = testutil_submit_msg ("true", 0, 64, 0);
        drover_msg_t *reply = testutil_request (dealer, &submit, 5000);
        assert_non_null (reply);
        if (reply->id != DROVER_MSG_TASK_ACCEPTED)
            fail_msg ("round %d: a key just added got %s %s", round, drover_msg_name (reply->id),
                      reply->reason? reply->reason: "");
        drover_msg_destroy (&reply);
        zsock_destroy (&dealer);
        zcert_destroy (&late);
    }
    s_keys_destroy (&keys);
}

//  Broker start-up: a secret key others may read, a keys directory
//  without role subdirectories, keys without a pair: each refused clearly
static void
test_refuses_bad_security_settings (void **state)
{
    char dir [64] = "/tmp/drover-security-XXXXXX";
    assert_non_null (mkdtemp (dir));
    zcert_t *cert = zcert_new ();
    char *pair = zsys_sprintf ("%s/broker.key", dir);
    assert_int_equal (zcert_save (cert, pair), 0);
    char *secret = zsys_sprintf ("%s_secret", pair);
    assert_int_equal (chmod (secret, 0640), 0);
    char *keys = zsys_sprintf ("%s/keys", dir);
    assert_int_equal (mkdir (keys, 0755), 0);
    char *workers = zsys_sprintf ("%s/workers", keys);
    assert_int_equal (mkdir (workers, 0755), 0);
    struct {
        const char *flags [6];  //  the broker's security flags
        const char *says;       //  what its error says
    } cases [] = {
        { { "--key", pair, "--keys", keys, NULL }, "readable by its owner only" },
        { { "--keys", keys, NULL }, "security/keys needs the broker's own key pair" },
        { { "--key", pair, "--keys", dir, NULL }, "none of the role subdirectories" },
    };
    for (size_t index = 0; index < sizeof cases / sizeof cases [0]; index++) {
        if (index == 2)
            assert_int_equal (chmod (secret, 0600), 0);
        const char *argv [16] = { DROVER_BIN, "broker", "--endpoint", "tcp://127.0.0.1:*",
                                  "--events", "tcp://127.0.0.1:*", "--durability", "off" };
        int argc = 8;
        for (int flag = 0; cases [index].flags [flag]; flag++)
            argv [argc++] = cases [index].flags [flag];
        argv [argc] = NULL;
        char *log = zsys_sprintf ("%s/broker-%zu.log", dir, index);
        pid_t pid = testutil_spawn (argv, log);
        int status = testutil_wait_exit (pid, 10000);
        assert_true (WIFEXITED (status) && WEXITSTATUS (status) != 0);
        char *text = testutil_slurp (log);
        if (!text || !strstr (text, cases [index].says))
            fail_msg ("case %zu: expected \"%s\" in: %s", index, cases [index].says,
                      text? text: "(no log)");
        free (text);
        zstr_free (&log);
    }
    zcert_destroy (&cert);
    zstr_free (&pair);
    zstr_free (&secret);
    zstr_free (&keys);
    zstr_free (&workers);
    testutil_remove_tree (dir);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_handshake_refusals),
        cmocka_unit_test (test_roles_refused_by_message),
        cmocka_unit_test (test_pool_admin_is_for_admins),
        cmocka_unit_test (test_worker_id_bound_to_key),
        cmocka_unit_test (test_revoked_key_ends_sessions),
        cmocka_unit_test (test_tasks_belong_to_their_submitter),
        cmocka_unit_test (test_event_stream_by_owner),
        cmocka_unit_test (test_exposures_refused),
        cmocka_unit_test (test_added_key_served_at_once),
        cmocka_unit_test (test_refuses_bad_security_settings),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
