/*  =========================================================================
    testutil_flood - a CURVE broker under floods, for
    test_security_flood_preauth and _authed (see the header)
    =========================================================================
*/

#include "testutil_flood.h"
#include <fcntl.h>
#include <poll.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

//  Handshakes the noise has had refused before the test goes on
#define S_NOISE_WARM        300
//  Unknown keys the noise uses, in turn
#define S_NOISE_KEYS        16

//  Save a peer's public key in a role subdirectory; returns the pair
static zcert_t *
s_peer_key (testutil_flood_t *self, const char *role, const char *name)
{
    char *path = zsys_sprintf ("%s/%s", self->keys, role);
    assert_int_equal (mkdir (path, 0755), 0);
    zstr_free (&path);
    zcert_t *cert = zcert_new ();
    path = zsys_sprintf ("%s/%s/%s.key", self->keys, role, name);
    assert_int_equal (zcert_save_public (cert, path), 0);
    zstr_free (&path);
    return cert;
}

//  Make the keys and start a CURVE broker on them with more flags
//  (NULL-terminated)
testutil_flood_t *
testutil_flood_new (const char *settings [])
{
    testutil_flood_t *self = (testutil_flood_t *) zmalloc (sizeof (testutil_flood_t));
    snprintf (self->dir, sizeof self->dir, "/tmp/drover-flood-XXXXXX");
    assert_non_null (mkdtemp (self->dir));
    snprintf (self->broker_key, sizeof self->broker_key, "%s/broker.key", self->dir);
    snprintf (self->keys, sizeof self->keys, "%s/keys", self->dir);
    assert_int_equal (mkdir (self->keys, 0755), 0);
    self->broker = testutil_save_key_pair (self->broker_key);
    self->worker = s_peer_key (self, "workers", "node");
    self->client = s_peer_key (self, "clients", "alice");
    self->admin = s_peer_key (self, "admins", "ops");
    const char *flags [32] = { "--key", self->broker_key, "--keys", self->keys };
    int count = 4;
    for (int index = 0; settings [index] && count < 31; index++)
        flags [count++] = settings [index];
    flags [count] = NULL;
    self->cluster = testutil_cluster_new (flags);
    return self;
}

//  Stop the broker and remove the keys
void
testutil_flood_destroy (testutil_flood_t **self_p)
{
    testutil_flood_t *self = *self_p;
    testutil_cluster_destroy (&self->cluster);
    zcert_destroy (&self->broker);
    zcert_destroy (&self->worker);
    zcert_destroy (&self->client);
    zcert_destroy (&self->admin);
    testutil_remove_tree (self->dir);
    free (self);
    *self_p = NULL;
}

//  A DEALER to the broker speaking CURVE with a key pair
zsock_t *
testutil_flood_dealer (testutil_flood_t *self, zcert_t *pair)
{
    zsock_t *dealer = zsock_new (ZMQ_DEALER);
    assert_non_null (dealer);
    zsock_set_linger (dealer, 0);
    zcert_apply (pair, dealer);
    zsock_set_curve_serverkey (dealer, zcert_public_txt (self->broker));
    assert_int_equal (zsock_connect (dealer, "%s", self->cluster->endpoint), 0);
    return dealer;
}

//  A worker's key registers worker id on a new connection: HELLO answered
//  WELCOME. Returns the msec it took.
int64_t
testutil_flood_register (testutil_flood_t *self, const char *id)
{
    int64_t started = zclock_mono ();
    zsock_t *worker = testutil_flood_dealer (self, self->worker);
    drover_msg_t *hello = testutil_played_msg (id, 1, DROVER_MSG_WORKER_HELLO, 0, 0);
    drover_msg_t *welcome = testutil_request (worker, &hello, 10000);
    int64_t took = zclock_mono () - started;
    assert_non_null (welcome);
    assert_int_equal (welcome->id, DROVER_MSG_WORKER_WELCOME);
    drover_msg_destroy (&welcome);
    //  Its GOODBYE, so that the next registration is a new worker
    drover_msg_t *goodbye = testutil_played_msg (id, 1, DROVER_MSG_WORKER_GOODBYE, 0, 0);
    testutil_send (worker, &goodbye);
    zsock_destroy (&worker);
    fprintf (stderr, "register %s: %" PRId64 " ms\n", id, took);
    return took;
}

//  Tasks the broker holds in any state, asked with the admin's key
uint64_t
testutil_flood_task_count (testutil_flood_t *self)
{
    zsock_t *admin = testutil_flood_dealer (self, self->admin);
    uint64_t total = testutil_task_count (admin, 10000);
    zsock_destroy (&admin);
    return total;
}

//  The next number of a small xorshift generator: garbage, not secrets
uint32_t
testutil_flood_random (uint32_t *state)
{
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

//  Garbage of one of three kinds into buffer (size at least 512); returns
//  its length. 0: random bytes that do not start like ZMTP 2 or 3 (a
//  ZMTP 1.0 peer, which a broker with ZAP refuses); 1: ZMTP's signature
//  then noise; 2: a whole ZMTP 3.0 greeting asking for CURVE, then a HELLO
//  command of the right name and the wrong size and contents
size_t
testutil_flood_garbage (byte *buffer, int kind, uint32_t *state)
{
    for (size_t index = 0; index < 512; index++)
        buffer [index] = (byte) testutil_flood_random (state);
    if (kind == 0) {
        buffer [0] = 1 + (byte) (testutil_flood_random (state) % 254);
        return 64 + testutil_flood_random (state) % 400;
    }
    buffer [0] = 0xFF;
    if (kind == 1)
        return 11 + testutil_flood_random (state) % 400;
    memset (buffer + 1, 0, 8);
    buffer [9] = 0x7F;
    buffer [10] = 3;            //  version 3.0
    buffer [11] = 0;
    memset (buffer + 12, 0, 52);
    memcpy (buffer + 12, "CURVE", 5);
    byte *command = buffer + 64;
    command [0] = 0x04;         //  a short command
    command [1] = 120;          //  of 120 bytes: a HELLO is 200
    command [2] = 5;
    memcpy (command + 3, "HELLO", 5);
    return 64 + 2 + 120;
}

//  A plain TCP connection to the broker's ROUTER, non-blocking once made
int
testutil_tcp_connect (int port)
{
    int fd = socket (AF_INET, SOCK_STREAM, 0);
    if (fd == -1)
        return -1;
    struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) port) };
    address.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    if (connect (fd, (struct sockaddr *) &address, sizeof address)) {
        close (fd);
        return -1;
    }
    fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) | O_NONBLOCK);
    return fd;
}

//  Read what a plain connection has; true once the broker closed it (end
//  of file, or reset: it may close with our garbage unread)
bool
testutil_tcp_drained_closed (int fd)
{
    byte buffer [4096];
    ssize_t got;
    while ((got = read (fd, buffer, sizeof buffer)) > 0)
        ;
    return got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

//  ---------------------------------------------------------------------
//  Noise from peers without a key: DEALERs with keys the broker does not
//  know and DEALERs with no CURVE at all, each a new connection whose
//  handshake the broker refuses (libzmq does not retry a refused
//  handshake: each gets a new socket), and plain connections that write
//  garbage. Its own ZeroMQ context, so its handshakes run in an I/O thread
//  of their own, not in the one the test's well-behaved peers use.

struct _testutil_noise_t {
    char endpoint [64];         //  the broker's ROUTER
    int port;                   //  its port
    byte server [32];           //  the broker's public key
    int curve_slots;            //  DEALERs with unknown keys in flight
    int null_slots;             //  DEALERs with no CURVE in flight
    int raw_slots;              //  plain garbage connections in flight
    zframe_t *submit;           //  what each DEALER sends: a TASK SUBMIT
    //  Counted by the actor, read once it ended
    uint64_t handshakes;        //  DEALER connections started
    uint64_t failed;            //  of those, a HANDSHAKE_FAILED event
    uint64_t dropped;           //  disconnected with no such event
    uint64_t succeeded;         //  handshakes the broker let through: must be 0
    uint64_t answered;          //  messages a DEALER received: must be 0
    uint64_t raw_opened;        //  plain connections made
    uint64_t raw_closed;        //  of those, closed by the broker
    uint64_t stuck;             //  slots given up after S_NOISE_STUCK msec
    uint64_t warm;              //  refused handshakes after which it says FLOODING
};

//  msec after which a slot is given up
#define S_NOISE_STUCK       3000

//  One connection of the noise
typedef struct {
    void *sock;                 //  DEALER, or NULL
    void *watch;                //  PAIR hearing its monitor, or NULL
    int fd;                     //  plain connection, or -1
    int64_t born;               //  msec mono it was made
} s_slot_t;

//  Close whatever a slot holds
static void
s_slot_close (s_slot_t *slot, testutil_noise_t *noise)
{
    if (slot->sock) {
        byte buffer [256];
        while (zmq_recv (slot->sock, buffer, sizeof buffer, ZMQ_DONTWAIT) >= 0)
            noise->answered++;
        //  The monitor first: an event sent to a PAIR with no peer would
        //  block the I/O thread that sends it
        zmq_socket_monitor (slot->sock, NULL, 0);
        zmq_close (slot->sock);
        zmq_close (slot->watch);
    }
    if (slot->fd != -1)
        close (slot->fd);
    slot->sock = slot->watch = NULL;
    slot->fd = -1;
}

//  Start a slot: a DEALER (with key, or none: NULL mechanism), watched
static void
s_slot_dealer (s_slot_t *slot, testutil_noise_t *noise, void *context, zcert_t *key)
{
    int zero = 0;
    slot->sock = zmq_socket (context, ZMQ_DEALER);
    if (!slot->sock)
        fprintf (stderr, "noise: zmq_socket: %s\n", zmq_strerror (zmq_errno ()));
    assert (slot->sock);
    zmq_setsockopt (slot->sock, ZMQ_LINGER, &zero, sizeof zero);
    if (key) {
        zmq_setsockopt (slot->sock, ZMQ_CURVE_SERVERKEY, noise->server, 32);
        zmq_setsockopt (slot->sock, ZMQ_CURVE_PUBLICKEY, zcert_public_key (key), 32);
        zmq_setsockopt (slot->sock, ZMQ_CURVE_SECRETKEY, zcert_secret_key (key), 32);
    }
    char endpoint [64];
    snprintf (endpoint, sizeof endpoint, "inproc://flood-noise-%p-%" PRIu64, (void *) noise,
              noise->handshakes);
    int rc = zmq_socket_monitor (slot->sock, endpoint,
                                 ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH
                                 | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL
                                 | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL
                                 | ZMQ_EVENT_DISCONNECTED);
    assert (rc == 0);
    slot->watch = zmq_socket (context, ZMQ_PAIR);
    zmq_setsockopt (slot->watch, ZMQ_LINGER, &zero, sizeof zero);
    rc = zmq_connect (slot->watch, endpoint);
    assert (rc == 0);
    rc = zmq_connect (slot->sock, noise->endpoint);
    assert (rc == 0);
    zmq_send (slot->sock, zframe_data (noise->submit), zframe_size (noise->submit), ZMQ_DONTWAIT);
    noise->handshakes++;
}

//  Start a slot: a plain connection that writes garbage
static void
s_slot_raw (s_slot_t *slot, testutil_noise_t *noise, uint32_t *state)
{
    slot->fd = testutil_tcp_connect (noise->port);
    if (slot->fd == -1)
        return;                 //  tried again next turn
    byte garbage [512];
    size_t size = testutil_flood_garbage (garbage, (int) (noise->raw_opened % 3), state);
    //  A failed write means it is closed already: seen on the next read
    ssize_t written = write (slot->fd, garbage, size);
    (void) written;
    noise->raw_opened++;
}

//  Read a slot's handshake events; true when its connection is over,
//  counted by how: let through, refused (a HANDSHAKE_FAILED event), or
//  dropped with no word why
static bool
s_slot_event (s_slot_t *slot, testutil_noise_t *noise)
{
    zmq_msg_t frame;
    zmq_msg_init (&frame);
    bool succeeded = false, failed = false, over = false;
    while (zmq_msg_recv (&frame, slot->watch, ZMQ_DONTWAIT) >= 0) {
        if (zmq_msg_size (&frame) == 6) {
            uint16_t event;
            memcpy (&event, zmq_msg_data (&frame), 2);
            succeeded |= event == ZMQ_EVENT_HANDSHAKE_SUCCEEDED;
            failed |= event != ZMQ_EVENT_HANDSHAKE_SUCCEEDED && event != ZMQ_EVENT_DISCONNECTED;
            over = true;
        }
        zmq_msg_close (&frame);
        zmq_msg_init (&frame);
    }
    zmq_msg_close (&frame);
    if (succeeded)
        noise->succeeded++;
    else
    if (failed)
        noise->failed++;
    else
    if (over)
        noise->dropped++;
    return over;
}

//  The noise's actor: keeps its slots full until $TERM
static void
s_noise_actor (zsock_t *pipe, void *args)
{
    testutil_noise_t *noise = (testutil_noise_t *) args;
    int slots = noise->curve_slots + noise->null_slots + noise->raw_slots;
    assert (slots <= TESTUTIL_NOISE_MAX);
    void *context = zmq_ctx_new ();
    zmq_ctx_set (context, ZMQ_MAX_SOCKETS, 8192);
    zcert_t *keys [S_NOISE_KEYS];
    for (int index = 0; index < S_NOISE_KEYS; index++)
        keys [index] = zcert_new ();
    s_slot_t slot [TESTUTIL_NOISE_MAX];
    for (int index = 0; index < slots; index++)
        slot [index] = (s_slot_t) { NULL, NULL, -1, 0 };
    uint32_t state = 2463534242u;
    zsock_signal (pipe, 0);
    zmq_pollitem_t items [1 + TESTUTIL_NOISE_MAX];
    int owner [1 + TESTUTIL_NOISE_MAX];
    while (true) {
        int64_t now = zclock_mono ();
        int count = 1;
        items [0] = (zmq_pollitem_t) { zsock_resolve (pipe), 0, ZMQ_POLLIN, 0 };
        for (int index = 0; index < slots; index++) {
            if (!slot [index].sock && slot [index].fd == -1) {
                if (index < noise->curve_slots)
                    s_slot_dealer (&slot [index], noise, context,
                                   keys [noise->handshakes % S_NOISE_KEYS]);
                else
                if (index < noise->curve_slots + noise->null_slots)
                    s_slot_dealer (&slot [index], noise, context, NULL);
                else
                    s_slot_raw (&slot [index], noise, &state);
                slot [index].born = now;
            }
            if (slot [index].sock)
                items [count] = (zmq_pollitem_t) { slot [index].watch, 0, ZMQ_POLLIN, 0 };
            else
            if (slot [index].fd != -1)
                items [count] = (zmq_pollitem_t) { NULL, slot [index].fd, ZMQ_POLLIN, 0 };
            else
                continue;
            owner [count++] = index;
        }
        if (zmq_poll (items, count, 10) == -1 || items [0].revents)
            break;              //  $TERM (or interrupted)
        now = zclock_mono ();
        for (int item = 1; item < count; item++) {
            s_slot_t *which = &slot [owner [item]];
            bool over = false;
            if (items [item].revents && which->sock)
                over = s_slot_event (which, noise);
            else
            if (items [item].revents && testutil_tcp_drained_closed (which->fd)) {
                noise->raw_closed++;
                over = true;
            }
            if (!over && now - which->born > S_NOISE_STUCK) {
                noise->stuck++;
                over = true;
            }
            if (over)
                s_slot_close (which, noise);
        }
        if (noise->warm && noise->failed >= noise->warm) {
            zstr_send (pipe, "FLOODING");
            noise->warm = 0;
        }
    }
    for (int index = 0; index < slots; index++)
        s_slot_close (&slot [index], noise);
    for (int index = 0; index < S_NOISE_KEYS; index++)
        zcert_destroy (&keys [index]);
    zmq_ctx_term (context);
}

//  Make the noise's settings for a fixture's broker: start it with
//  testutil_noise_start, end it with zactor_destroy, check and free it with
//  testutil_noise_check_free
testutil_noise_t *
testutil_noise_new (testutil_flood_t *fixture, int curve_slots, int null_slots, int raw_slots)
{
    testutil_noise_t *self = (testutil_noise_t *) zmalloc (sizeof (testutil_noise_t));
    snprintf (self->endpoint, sizeof self->endpoint, "%s", fixture->cluster->endpoint);
    self->port = fixture->cluster->port;
    memcpy (self->server, zcert_public_key (fixture->broker), 32);
    self->curve_slots = curve_slots;
    self->null_slots = null_slots;
    self->raw_slots = raw_slots;
    self->warm = S_NOISE_WARM;
    drover_msg_t *submit = testutil_submit_msg ("echo noise", 0, 1, 0);
    self->submit = drover_msg_encode (submit);
    assert_non_null (self->submit);
    drover_msg_destroy (&submit);
    return self;
}

//  Start the noise and wait until the broker has refused S_NOISE_WARM of
//  its handshakes
zactor_t *
testutil_noise_start (testutil_noise_t *noise)
{
    zactor_t *actor = zactor_new (s_noise_actor, noise);
    zmsg_t *flooding = testutil_recv (zactor_sock (actor), 30000);
    if (!flooding)
        fail_msg ("the noise did not get %d handshakes refused in 30 s", S_NOISE_WARM);
    zmsg_destroy (&flooding);
    return actor;
}

//  Say what the noise did, check the broker let none of it through, free
void
testutil_noise_check_free (testutil_noise_t **self_p, uint64_t at_least)
{
    testutil_noise_t *self = *self_p;
    fprintf (stderr, "noise: handshakes=%" PRIu64 " failed=%" PRIu64 " dropped=%" PRIu64
             " succeeded=%" PRIu64 " answered=%" PRIu64 " stuck=%" PRIu64 " raw_opened=%"
             PRIu64 " raw_closed=%" PRIu64 "\n", self->handshakes, self->failed,
             self->dropped, self->succeeded, self->answered, self->stuck, self->raw_opened,
             self->raw_closed);
    assert_int_equal (self->succeeded, 0);
    assert_int_equal (self->answered, 0);
    assert_true (self->failed + self->dropped >= at_least);
    zframe_destroy (&self->submit);
    free (self);
    *self_p = NULL;
}

//  Raise our descriptor limit to the hard one: this test holds a thousand
//  plain connections and the noise's sockets; the broker, our child,
//  inherits it (and raises its own the same way, drover_connwatch)
void
testutil_raise_fd_limit (int needed)
{
    struct rlimit limit;
    assert_int_equal (getrlimit (RLIMIT_NOFILE, &limit), 0);
    if (limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        assert_int_equal (setrlimit (RLIMIT_NOFILE, &limit), 0);
    }
    if (limit.rlim_cur < (rlim_t) needed)
        fail_msg ("this test needs %d descriptors and the hard limit is %llu: raise it "
                  "(ulimit -Hn)", needed, (unsigned long long) limit.rlim_cur);
}
