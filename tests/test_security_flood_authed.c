/*  =========================================================================
    test_security_flood_authed - a CURVE broker under floods
    after authentication, through real processes over loopback

    Keys that misbehave (garbage, two frames, past max-message, messages
    of another role) send thousands a second beside handshake and garbage
    noise from peers without a key, while a well-behaved client times
    submit -> wait round trips against its own baseline, and the broker's
    resident size stays flat. What the broker accepted is counted at the
    wire: no DEALER without a key hears anything, every misbehaving
    message is answered with an ERROR, and only the client's tasks reach
    a worker.
    =========================================================================
*/

#include "testutil_flood.h"

//  Built with AddressSanitizer (gcc says so one way, clang another)
#if defined (__SANITIZE_ADDRESS__)
#   define S_SANITIZED
#elif defined (__has_feature)
#   if __has_feature (address_sanitizer)
#       define S_SANITIZED
#   endif
#endif

//  Bytes the broker takes in one message (broker/max-message) in the
//  flood test; its misbehaving keys send one past it
#define S_MAX_MESSAGE       65536
//  Messages a second each misbehaving key sends (two keys)
#define S_FLOOD_RATE        750
//  Refusals a second the broker must have answered, at least, in all
#define S_FLOOD_MIN         1000
//  msec the client's round trips are timed, before and under the flood
#define S_MEASURE           4000
//  Round trips timed at least, in each phase
#define S_SAMPLES_MIN       200

//  ---------------------------------------------------------------------
//  After authentication: keys that misbehave, beside a client served

//  A worker the test plays with the worker's key: registers as "steady"
//  and answers each offer at once with STARTED and a RESULT (exit 0);
//  counts the offers. Plain asserts: it runs in its own thread.
typedef struct {
    char endpoint [64];         //  the broker's ROUTER
    zcert_t *pair;              //  the worker's key pair, borrowed
    char server [41];           //  the broker's public key, Z85
    bool welcomed;              //  its HELLO was answered WELCOME (before zactor_new returns)
    uint64_t offers;            //  offers received, read once it ended
} s_steady_t;

//  Encode and send a message a thread made; false if it would not go
static bool
s_send_plain (zsock_t *sock, drover_msg_t **msg_p)
{
    zframe_t *frame = drover_msg_encode (*msg_p);
    drover_msg_destroy (msg_p);
    assert (frame);
    return zframe_send (&frame, sock, 0) == 0;
}

//  Receive and decode one message within timeout msec; NULL if none
static drover_msg_t *
s_recv_plain (zsock_t *sock, int timeout)
{
    zsock_set_rcvtimeo (sock, timeout);
    zframe_t *frame = zframe_recv (sock);
    if (!frame)
        return NULL;
    drover_msg_t *msg = drover_msg_new (0);
    int rc = drover_msg_decode (msg, zframe_data (frame), zframe_size (frame));
    assert (rc == 0);
    zframe_destroy (&frame);
    return msg;
}

//  The steady worker's thread: registers before zactor_new returns
static void
s_steady_actor (zsock_t *pipe, void *args)
{
    s_steady_t *self = (s_steady_t *) args;
    zsock_t *dealer = zsock_new (ZMQ_DEALER);
    assert (dealer);
    zsock_set_linger (dealer, 0);
    zcert_apply (self->pair, dealer);
    zsock_set_curve_serverkey (dealer, self->server);
    int rc = zsock_connect (dealer, "%s", self->endpoint);
    assert (rc == 0);
    drover_msg_t *msg = testutil_played_msg ("steady", 8, DROVER_MSG_WORKER_HELLO, 0, 0);
    s_send_plain (dealer, &msg);
    msg = s_recv_plain (dealer, 10000);
    self->welcomed = msg && msg->id == DROVER_MSG_WORKER_WELCOME;
    zsock_signal (pipe, 0);
    drover_msg_destroy (&msg);
    zpoller_t *poller = zpoller_new (pipe, dealer, NULL);
    while (zpoller_wait (poller, -1) == dealer) {
        msg = s_recv_plain (dealer, 0);
        if (msg && msg->id == DROVER_MSG_TASK_OFFER) {
            self->offers++;
            drover_msg_t *report = testutil_played_msg ("steady", 8, DROVER_MSG_TASK_STARTED,
                                                        msg->task, msg->attempt);
            s_send_plain (dealer, &report);
            report = testutil_played_msg ("steady", 8, DROVER_MSG_TASK_RESULT, msg->task,
                                          msg->attempt);
            s_send_plain (dealer, &report);
        }
        drover_msg_destroy (&msg);
    }
    zpoller_destroy (&poller);
    zsock_destroy (&dealer);
}

//  What a misbehaving key sends, in turn
#define S_MIX               10

//  A peer with a real key that sends what the broker must refuse, at a
//  steady rate, and counts the answers by code
typedef struct {
    char endpoint [64];         //  the broker's ROUTER
    zcert_t *pair;              //  its key pair, borrowed
    byte server [32];           //  the broker's public key
    int rate;                   //  messages a second
    zmsg_t *mix [S_MIX];        //  what it sends, in turn (copies go out)
    //  Counted by the actor, read once it ended
    uint64_t sent;              //  messages sent
    uint64_t blocked;           //  sends the DEALER would not take at once
    uint64_t bad_request;       //  ERROR 400 (or 505) answers: malformed
    uint64_t too_large;         //  ERROR 413 answers: past max-message
    uint64_t forbidden;         //  ERROR 403 answers: not this key's role
    uint64_t other;             //  any other answer: must stay 0
} s_misbehaver_t;

//  A message as one frame in a zmsg, with seq
static zmsg_t *
s_mix_msg (drover_msg_t *msg, uint32_t seq)
{
    msg->seq = seq;
    zframe_t *frame = drover_msg_encode (msg);
    assert_non_null (frame);
    drover_msg_destroy (&msg);
    zmsg_t *zmsg = zmsg_new ();
    zmsg_append (zmsg, &frame);
    return zmsg;
}

//  A WORKER ADMIN HOLD of the steady worker
static drover_msg_t *
s_hold_msg (void)
{
    drover_msg_t *hold = drover_msg_new (DROVER_MSG_WORKER_ADMIN);
    snprintf (hold->worker, sizeof hold->worker, "steady");
    hold->admin = DROVER_ADMIN_HOLD;
    return hold;
}

//  Make a misbehaver with a key of the client role (it says worker and
//  admin messages) or the worker role (client and admin messages): garbage,
//  two frames, past max_message, and what its role may not say
static s_misbehaver_t *
s_misbehaver_new (testutil_flood_t *fixture, zcert_t *pair, bool is_worker, size_t max_message,
                  int rate)
{
    s_misbehaver_t *self = (s_misbehaver_t *) zmalloc (sizeof (s_misbehaver_t));
    snprintf (self->endpoint, sizeof self->endpoint, "%s", fixture->cluster->endpoint);
    self->pair = pair;
    memcpy (self->server, zcert_public_key (fixture->broker), 32);
    self->rate = rate;
    uint32_t random = is_worker? 3141592653u: 2718281828u;
    for (int index = 0; index < 3; index++) {
        byte garbage [512];
        testutil_flood_garbage (garbage, 0, &random);
        self->mix [index] = zmsg_new ();
        zmsg_addmem (self->mix [index], garbage, 16 + testutil_flood_random (&random) % 200);
    }
    for (int index = 3; index < 5; index++) {
        self->mix [index] = s_mix_msg (drover_msg_new (DROVER_MSG_WORKER_LIST), 500 + index);
        zmsg_addstr (self->mix [index], "a second frame");
    }
    zmsg_t *large = s_mix_msg (drover_msg_new (DROVER_MSG_WORKER_LIST), 505);
    zframe_t *head = zmsg_pop (large);
    byte *padded = (byte *) zmalloc (max_message + 100);
    memcpy (padded, zframe_data (head), zframe_size (head));
    zmsg_addmem (large, padded, max_message + 100);
    free (padded);
    zframe_destroy (&head);
    self->mix [5] = large;
    if (is_worker) {
        self->mix [6] = s_mix_msg (testutil_submit_msg ("true", 0, 1, 0), 506);
        self->mix [7] = s_mix_msg (drover_msg_new (DROVER_MSG_TASK_LIST), 507);
        drover_msg_t *cancel = drover_msg_new (DROVER_MSG_TASK_CANCEL);
        cancel->task = 1;
        self->mix [8] = s_mix_msg (cancel, 508);
    }
    else {
        self->mix [6] = s_mix_msg (testutil_played_msg ("rogue", 1, DROVER_MSG_WORKER_HELLO,
                                                        0, 0), 506);
        self->mix [7] = s_mix_msg (testutil_played_msg ("steady", 1, DROVER_MSG_TASK_RESULT,
                                                        1, 1), 507);
        self->mix [8] = s_mix_msg (drover_msg_new (DROVER_MSG_EVENT_REPLAY), 508);
    }
    self->mix [9] = s_mix_msg (s_hold_msg (), 509);
    return self;
}

//  Count one answer by its code
static void
s_misbehaver_count (s_misbehaver_t *self, const byte *data, size_t size)
{
    drover_msg_t *msg = drover_msg_new (0);
    int rc = drover_msg_decode (msg, data, size);
    if (rc || msg->id != DROVER_MSG_ERROR)
        self->other++;
    else
    if (msg->code == DROVER_CODE_FORBIDDEN)
        self->forbidden++;
    else
    if (msg->code == DROVER_CODE_TOO_LARGE)
        self->too_large++;
    else
    if (msg->code == DROVER_CODE_BAD_REQUEST || msg->code == DROVER_CODE_BAD_VERSION)
        self->bad_request++;
    else
        self->other++;
    drover_msg_destroy (&msg);
}

//  The misbehaver's thread: sends at its rate until $TERM. Its own
//  ZeroMQ context: its CURVE work runs in an I/O thread of its own, not in
//  the one the test's client and worker use
static void
s_misbehaver_actor (zsock_t *pipe, void *args)
{
    s_misbehaver_t *self = (s_misbehaver_t *) args;
    void *context = zmq_ctx_new ();
    void *dealer = zmq_socket (context, ZMQ_DEALER);
    assert (dealer);
    int zero = 0;
    zmq_setsockopt (dealer, ZMQ_LINGER, &zero, sizeof zero);
    zmq_setsockopt (dealer, ZMQ_CURVE_SERVERKEY, self->server, 32);
    zmq_setsockopt (dealer, ZMQ_CURVE_PUBLICKEY, zcert_public_key (self->pair), 32);
    zmq_setsockopt (dealer, ZMQ_CURVE_SECRETKEY, zcert_secret_key (self->pair), 32);
    int rc = zmq_connect (dealer, self->endpoint);
    assert (rc == 0);
    zsock_signal (pipe, 0);
    int64_t started = zclock_usecs ();
    while (true) {
        zmq_pollitem_t items [] = { { zsock_resolve (pipe), 0, ZMQ_POLLIN, 0 },
                                    { dealer, 0, ZMQ_POLLIN, 0 } };
        if (zmq_poll (items, 2, 1) == -1 || items [0].revents)
            break;              //  $TERM (or interrupted)
        zmq_msg_t reply;
        zmq_msg_init (&reply);
        while (zmq_msg_recv (&reply, dealer, ZMQ_DONTWAIT) >= 0)
            s_misbehaver_count (self, (const byte *) zmq_msg_data (&reply),
                                zmq_msg_size (&reply));
        zmq_msg_close (&reply);
        uint64_t due = (uint64_t) ((zclock_usecs () - started) * self->rate / 1000000);
        while (self->sent + self->blocked < due) {
            zmsg_t *msg = self->mix [(self->sent + self->blocked) % S_MIX];
            zframe_t *frame = zmsg_first (msg);
            int sent = 0;
            for (size_t index = 0; frame; index++, frame = zmsg_next (msg)) {
                int more = index + 1 < zmsg_size (msg)? ZMQ_SNDMORE: 0;
                sent = zmq_send (dealer, zframe_data (frame), zframe_size (frame),
                                 ZMQ_DONTWAIT | more);
                if (sent == -1)
                    break;      //  not taken: the DEALER is full (a first frame only)
            }
            if (sent == -1)
                self->blocked++;
            else
                self->sent++;
        }
    }
    zmq_close (dealer);
    zmq_ctx_term (context);
}

//  Say what a misbehaver got, check every message was refused, free
static uint64_t
s_misbehaver_check_free (s_misbehaver_t **self_p, const char *name)
{
    s_misbehaver_t *self = *self_p;
    fprintf (stderr, "%s: sent=%" PRIu64 " blocked=%" PRIu64 " answered 400=%" PRIu64 " 413=%"
             PRIu64 " 403=%" PRIu64 " other=%" PRIu64 "\n", name, self->sent, self->blocked,
             self->bad_request, self->too_large, self->forbidden, self->other);
    assert_int_equal (self->other, 0);
    assert_true (self->bad_request > 0);
    assert_true (self->too_large > 0);
    assert_true (self->forbidden > 0);
    uint64_t answered = self->bad_request + self->too_large + self->forbidden;
    for (int index = 0; index < S_MIX; index++)
        zmsg_destroy (&self->mix [index]);
    free (self);
    *self_p = NULL;
    return answered;
}

//  One round trip of the well-behaved client: SUBMIT, ACCEPTED, WAIT,
//  TASK DONE (SUCCEEDED); returns the usec it took
static int64_t
s_round_trip (zsock_t *client)
{
    int64_t started = zclock_usecs ();
    uint64_t task = testutil_submit (client, testutil_submit_msg ("true", 0, 1, 0));
    drover_msg_t *wait = drover_msg_new (DROVER_MSG_TASK_WAIT);
    wait->tasks = (uint64_t *) zmalloc (sizeof (uint64_t));
    wait->tasks [wait->ntasks++] = task;
    drover_msg_t *ok = testutil_request (client, &wait, 30000);
    assert_non_null (ok);
    assert_int_equal (ok->id, DROVER_MSG_OK);
    drover_msg_destroy (&ok);
    drover_msg_t *done = testutil_expect_done (client, task, DROVER_TASK_SUCCEEDED, 30000);
    drover_msg_destroy (&done);
    return zclock_usecs () - started;
}

//  Compare two round trips
static int
s_compare (const void *left, const void *right)
{
    int64_t a = *(const int64_t *) left, b = *(const int64_t *) right;
    return a < b? -1: a > b;
}

//  Time round trips for msec (at least S_SAMPLES_MIN of them); returns
//  the p99, usec, and adds the count to *count
static int64_t
s_p99 (zsock_t *client, int msec, const char *phase, uint64_t *count)
{
    size_t size = 0, limit = 1024;
    int64_t *samples = (int64_t *) malloc (limit * sizeof (int64_t));
    assert_non_null (samples);
    int64_t end = zclock_mono () + msec;
    while (zclock_mono () < end || size < S_SAMPLES_MIN) {
        if (size == limit) {
            limit *= 2;
            samples = (int64_t *) realloc (samples, limit * sizeof (int64_t));
            assert_non_null (samples);
        }
        samples [size++] = s_round_trip (client);
    }
    qsort (samples, size, sizeof (int64_t), s_compare);
    int64_t p99 = samples [size * 99 / 100];
    fprintf (stderr, "%s: %zu round trips, p50 %.2f ms, p99 %.2f ms, max %.2f ms\n", phase,
             size, samples [size / 2] / 1000.0, p99 / 1000.0, samples [size - 1] / 1000.0);
    free (samples);
    *count += size;
    return p99;
}

//  Keys that misbehave (garbage, two frames, past max-message, messages
//  of another role) at thousands a second, and handshake and garbage
//  noise from peers without a key: a client's submit -> wait round trips
//  keep their p99 within twice their baseline (or 20 ms past it), the
//  broker's resident size stays flat, every misbehaving message is
//  refused and only the client's tasks reach the worker
static void
test_flood_keeps_client_served (void **state)
{
    testutil_raise_fd_limit (4 * TESTUTIL_NOISE_MAX + 256);
    char handshake [64], max_message [64];
    snprintf (handshake, sizeof handshake, "security/handshake=%d", TESTUTIL_FLOOD_HANDSHAKE);
    snprintf (max_message, sizeof max_message, "broker/max-message=%d", S_MAX_MESSAGE);
    const char *settings [] = { "--set", handshake, "--set", max_message,
                                "--set", "health/lost-after=120000",
                                "--set", "assign/keep-finished=100",
                                "--durability", "off", NULL };
    testutil_flood_t *fixture = testutil_flood_new (settings);
    s_steady_t steady = { .pair = fixture->worker };
    snprintf (steady.endpoint, sizeof steady.endpoint, "%s", fixture->cluster->endpoint);
    snprintf (steady.server, sizeof steady.server, "%s", zcert_public_txt (fixture->broker));
    zactor_t *worker = zactor_new (s_steady_actor, &steady);
    assert_true (steady.welcomed);
    zsock_t *client = testutil_flood_dealer (fixture, fixture->client);
    uint64_t round_trips = 0;
    s_p99 (client, 500, "warm-up", &round_trips);
    int64_t baseline = s_p99 (client, S_MEASURE, "baseline", &round_trips);
    size_t rss_before = testutil_rss (fixture->cluster->broker);

    //  Noise without a key: handshakes with unknown keys and with none,
    //  plain connections that write garbage, a few hundred a second each
    testutil_noise_t *noise = testutil_noise_new (fixture, 4, 2, 4);
    zactor_t *noise_actor = testutil_noise_start (noise);
    s_misbehaver_t *as_client = s_misbehaver_new (fixture, fixture->client, false,
                                                  S_MAX_MESSAGE, S_FLOOD_RATE);
    s_misbehaver_t *as_worker = s_misbehaver_new (fixture, fixture->worker, true,
                                                  S_MAX_MESSAGE, S_FLOOD_RATE);
    zactor_t *client_flood = zactor_new (s_misbehaver_actor, as_client);
    zactor_t *worker_flood = zactor_new (s_misbehaver_actor, as_worker);
    int64_t flooded = s_p99 (client, S_MEASURE, "flooded", &round_trips);
    zactor_destroy (&client_flood);
    zactor_destroy (&worker_flood);
    zactor_destroy (&noise_actor);
    size_t rss_after = testutil_rss (fixture->cluster->broker);
    fprintf (stderr, "broker rss: %.1f MiB before the flood, %.1f MiB after\n",
             rss_before / 1048576.0, rss_after / 1048576.0);

    uint64_t refused = s_misbehaver_check_free (&as_client, "client key")
                     + s_misbehaver_check_free (&as_worker, "worker key");
    fprintf (stderr, "refused %.0f messages a second\n", refused * 1000.0 / S_MEASURE);
    testutil_noise_check_free (&noise, 100);
    zactor_destroy (&worker);
    //  Only the client's tasks reached the worker: the noise's submits
    //  and the worker key's never got in
    assert_int_equal (steady.offers, round_trips);
    //  The round trip under the flood: p99 within twice the baseline's, or
    //  20 ms past it. The floor: the flood is made by this process on the
    //  same 2 cores as the broker and the client (its handshakes, garbage
    //  connections and 64 KiB CURVE messages keep a core busy, mostly in
    //  the kernel), so the client waits for a core whatever the broker
    //  does. Measured on the 2-core test machine under other tests' load
    //  (load average 5-9): baseline p99 1.7-5 ms; flooded p99 13-14 ms at
    //  these rates; the keys' flood alone 8 ms, the noise alone 19 ms, at
    //  twice these rates 26-42 ms (so the rates are kept here)
    //  On a machine crowded past its cores (the one-minute load average
    //  over the cores online, e.g. several builds beside the suite) every
    //  process waits its turn for a core that much longer: the floor grows
    //  with it. A broker that stalls under the flood still fails: that is
    //  hundreds of ms to seconds, past any floor here.
    double load = 0;
    long cores = sysconf (_SC_NPROCESSORS_ONLN);
    double crowding = getloadavg (&load, 1) == 1 && cores > 0? load / (double) cores: 1;
    int64_t floor = (int64_t) (20000 * (crowding > 1? crowding: 1));
    if (floor > 150000)
        floor = 150000;
    fprintf (stderr, "bound: p99 <= %.2f ms (load %.1f on %ld cores)\n",
             (double) (2 * baseline > baseline + floor? 2 * baseline: baseline + floor) / 1000,
             load, cores);
    int64_t bound = 2 * baseline > baseline + floor? 2 * baseline: baseline + floor;
    assert_true (refused >= (uint64_t) S_FLOOD_MIN * S_MEASURE / 1000);
#if defined (S_SANITIZED)
    //  Under AddressSanitizer every thread runs some three times slower and
    //  freed memory waits in its quarantine (RSS grows by design): the run
    //  looks for memory errors under the flood; its time and memory bounds
    //  mean something in the plain build only (./run test)
    (void) bound;
    (void) flooded;
    (void) rss_after;
    (void) rss_before;
#else
    assert_true (flooded <= bound);
    assert_true (rss_after < rss_before + 20 * 1048576);
#endif

    zsock_destroy (&client);
    testutil_flood_destroy (&fixture);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_flood_keeps_client_served),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
