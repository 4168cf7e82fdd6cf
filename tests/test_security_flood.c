/*  =========================================================================
    test_security_flood - a CURVE broker under floods, through real
    processes over loopback

    Before authentication: a thousand idle and garbage TCP connections at
    once and a flood of handshakes with unknown keys or with no CURVE at
    all. Each idle connection is closed once security/handshake has
    passed, and meanwhile a worker's key registers within a second and a
    client's submit is accepted.

    After authentication: keys that misbehave (garbage, two frames, past
    max-message, messages of another role) send thousands a second beside
    handshake and garbage noise from peers without a key, while a
    well-behaved client times submit -> wait round trips against its own
    baseline, and the broker's resident size stays flat.

    What the broker accepted is counted at the wire: no DEALER without a
    key hears anything, every misbehaving message is answered with an
    ERROR, and only the client's tasks reach a worker.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_keys.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"

//  Built with AddressSanitizer (gcc says so one way, clang another)
#if defined (__SANITIZE_ADDRESS__)
#   define S_SANITIZED
#elif defined (__has_feature)
#   if __has_feature (address_sanitizer)
#       define S_SANITIZED
#   endif
#endif
#include <fcntl.h>
#include <poll.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

//  msec a connection has to finish its handshake (security/handshake)
#define S_HANDSHAKE         1000
//  msec past the handshake by which an idle connection must be closed:
//  the broker's I/O thread runs the timer, and the machine may be busy
#define S_CLOSE_MARGIN      2000
//  Plain TCP connections that say nothing, and that say garbage
#define S_IDLE              500
#define S_GARBAGE           500
//  msec a worker's key has to register (HELLO -> WELCOME), flood or not
#define S_REGISTER_MAX      1000
//  Most handshakes the noise keeps in flight at once
#define S_NOISE_MAX         128
//  Handshakes the noise has had refused before the test goes on
#define S_NOISE_WARM        300
//  Unknown keys the noise uses, in turn
#define S_NOISE_KEYS        16
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

//  The keys of one test and its broker
typedef struct {
    char dir [64];              //  temp directory: broker.key, keys/
    char broker_key [128];      //  the broker's key pair file
    char keys [128];            //  the keys directory (--keys)
    zcert_t *broker;            //  the broker's pair
    zcert_t *worker;            //  workers/node.key
    zcert_t *client;            //  clients/alice.key
    zcert_t *admin;             //  admins/ops.key
    testutil_cluster_t *cluster;    //  the broker, started on these keys
} s_fixture_t;

//  Save a peer's public key in a role subdirectory; returns the pair
static zcert_t *
s_peer_key (s_fixture_t *self, const char *role, const char *name)
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
static s_fixture_t *
s_fixture_new (const char *settings [])
{
    s_fixture_t *self = (s_fixture_t *) zmalloc (sizeof (s_fixture_t));
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
static void
s_fixture_destroy (s_fixture_t **self_p)
{
    s_fixture_t *self = *self_p;
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
static zsock_t *
s_dealer (s_fixture_t *self, zcert_t *pair)
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
static int64_t
s_register (s_fixture_t *self, const char *id)
{
    int64_t started = zclock_mono ();
    zsock_t *worker = s_dealer (self, self->worker);
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
static uint64_t
s_task_count (s_fixture_t *self)
{
    zsock_t *admin = s_dealer (self, self->admin);
    uint64_t total = testutil_task_count (admin, 10000);
    zsock_destroy (&admin);
    return total;
}

//  The next number of a small xorshift generator: garbage, not secrets
static uint32_t
s_random (uint32_t *state)
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
static size_t
s_garbage (byte *buffer, int kind, uint32_t *state)
{
    for (size_t index = 0; index < 512; index++)
        buffer [index] = (byte) s_random (state);
    if (kind == 0) {
        buffer [0] = 1 + (byte) (s_random (state) % 254);
        return 64 + s_random (state) % 400;
    }
    buffer [0] = 0xFF;
    if (kind == 1)
        return 11 + s_random (state) % 400;
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
static int
s_tcp_connect (int port)
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
static bool
s_tcp_drained_closed (int fd)
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

typedef struct {
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
} s_noise_t;

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
s_slot_close (s_slot_t *slot, s_noise_t *noise)
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
s_slot_dealer (s_slot_t *slot, s_noise_t *noise, void *context, zcert_t *key)
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
s_slot_raw (s_slot_t *slot, s_noise_t *noise, uint32_t *state)
{
    slot->fd = s_tcp_connect (noise->port);
    if (slot->fd == -1)
        return;                 //  tried again next turn
    byte garbage [512];
    size_t size = s_garbage (garbage, (int) (noise->raw_opened % 3), state);
    //  A failed write means it is closed already: seen on the next read
    ssize_t written = write (slot->fd, garbage, size);
    (void) written;
    noise->raw_opened++;
}

//  Read a slot's handshake events; true when its connection is over,
//  counted by how: let through, refused (a HANDSHAKE_FAILED event), or
//  dropped with no word why
static bool
s_slot_event (s_slot_t *slot, s_noise_t *noise)
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
    s_noise_t *noise = (s_noise_t *) args;
    int slots = noise->curve_slots + noise->null_slots + noise->raw_slots;
    assert (slots <= S_NOISE_MAX);
    void *context = zmq_ctx_new ();
    zmq_ctx_set (context, ZMQ_MAX_SOCKETS, 8192);
    zcert_t *keys [S_NOISE_KEYS];
    for (int index = 0; index < S_NOISE_KEYS; index++)
        keys [index] = zcert_new ();
    s_slot_t slot [S_NOISE_MAX];
    for (int index = 0; index < slots; index++)
        slot [index] = (s_slot_t) { NULL, NULL, -1, 0 };
    uint32_t state = 2463534242u;
    zsock_signal (pipe, 0);
    zmq_pollitem_t items [1 + S_NOISE_MAX];
    int owner [1 + S_NOISE_MAX];
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
            if (items [item].revents && s_tcp_drained_closed (which->fd)) {
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
//  s_noise_start, end it with zactor_destroy, check and free it with
//  s_noise_check_free
static s_noise_t *
s_noise_new (s_fixture_t *fixture, int curve_slots, int null_slots, int raw_slots)
{
    s_noise_t *self = (s_noise_t *) zmalloc (sizeof (s_noise_t));
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
static zactor_t *
s_noise_start (s_noise_t *noise)
{
    zactor_t *actor = zactor_new (s_noise_actor, noise);
    zmsg_t *flooding = testutil_recv (zactor_sock (actor), 30000);
    if (!flooding)
        fail_msg ("the noise did not get %d handshakes refused in 30 s", S_NOISE_WARM);
    zmsg_destroy (&flooding);
    return actor;
}

//  Say what the noise did, check the broker let none of it through, free
static void
s_noise_check_free (s_noise_t **self_p, uint64_t at_least)
{
    s_noise_t *self = *self_p;
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


//  ---------------------------------------------------------------------
//  Before authentication

//  One plain connection of the test
typedef struct {
    int fd;                     //  its descriptor
    int64_t opened;             //  msec mono its connect was seen made, 0 before
    int64_t closed;             //  msec mono the broker's close was read, 0 while open
} s_plain_t;

//  Start count plain connections to port at once, as a flood does: each
//  connect is left in progress (the kernel completes it)
static void
s_plain_burst (s_plain_t *plain, int count, int port)
{
    struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) port) };
    address.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    for (int index = 0; index < count; index++) {
        int fd = socket (AF_INET, SOCK_STREAM, 0);
        if (fd == -1)
            fail_msg ("plain connection %d: %s", index, strerror (errno));
        fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) | O_NONBLOCK);
        if (connect (fd, (struct sockaddr *) &address, sizeof address) && errno != EINPROGRESS)
            fail_msg ("plain connection %d: %s", index, strerror (errno));
        plain [index] = (s_plain_t) { fd, 0, 0 };
    }
}

//  Wait until every plain connection is made (writable), up to deadline
//  (msec mono), noting when; the first idle ones say nothing, the others
//  write garbage. Returns how many are not made.
static int
s_plain_made (s_plain_t *plain, int count, int idle, int64_t deadline)
{
    struct pollfd *fds = (struct pollfd *) calloc ((size_t) count, sizeof (struct pollfd));
    int *which = (int *) calloc ((size_t) count, sizeof (int));
    assert_non_null (fds);
    assert_non_null (which);
    uint32_t random = 88172645u;
    int pending = count;
    while (pending && zclock_mono () < deadline) {
        int polled = 0;
        for (int index = 0; index < count; index++)
            if (!plain [index].opened) {
                fds [polled] = (struct pollfd) { plain [index].fd, POLLOUT, 0 };
                which [polled++] = index;
            }
        int ready = poll (fds, (nfds_t) polled, (int) (deadline - zclock_mono ()));
        int64_t now = zclock_mono ();
        for (int item = 0; ready > 0 && item < polled; item++) {
            if (!fds [item].revents)
                continue;
            int index = which [item], error = 0;
            socklen_t size = sizeof error;
            getsockopt (fds [item].fd, SOL_SOCKET, SO_ERROR, &error, &size);
            if (error)
                fail_msg ("plain connection %d: %s", index, strerror (error));
            plain [index].opened = now;
            pending--;
            if (index >= idle) {
                byte garbage [512];
                size_t length = s_garbage (garbage, index % 3, &random);
                assert_true (write (fds [item].fd, garbage, length) > 0);
            }
        }
    }
    free (fds);
    free (which);
    return pending;
}

//  Wait until the broker closed every plain connection, up to deadline
//  (msec mono); returns how many are still open
static int
s_plain_closed (s_plain_t *plain, int count, int64_t deadline)
{
    struct pollfd *fds = (struct pollfd *) calloc ((size_t) count, sizeof (struct pollfd));
    int *which = (int *) calloc ((size_t) count, sizeof (int));
    assert_non_null (fds);
    assert_non_null (which);
    int open = count;
    while (open && zclock_mono () < deadline) {
        int polled = 0;
        for (int index = 0; index < count; index++)
            if (!plain [index].closed) {
                fds [polled] = (struct pollfd) { plain [index].fd, POLLIN, 0 };
                which [polled++] = index;
            }
        int ready = poll (fds, (nfds_t) polled, (int) (deadline - zclock_mono ()));
        int64_t now = zclock_mono ();
        for (int item = 0; ready > 0 && item < polled; item++)
            if (fds [item].revents && s_tcp_drained_closed (fds [item].fd)) {
                plain [which [item]].closed = now;
                open--;
            }
    }
    free (fds);
    free (which);
    return open;
}

//  Raise our descriptor limit to the hard one: this test holds a thousand
//  plain connections and the noise's sockets; the broker, our child,
//  inherits it (and raises its own the same way, drover_connwatch)
static void
s_raise_fd_limit (int needed)
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

//  500 idle and 500 garbage TCP connections at once and a flood of
//  refused handshakes (unknown keys, no CURVE): a worker's key still
//  registers within a second, a client's submit is accepted, the idle
//  connections are closed once the handshake interval has passed (the
//  garbage ones no later), no flood connection hears anything and no
//  task but the client's is queued. Before libzmq's accept queue was made
//  deeper (S_BACKLOG), the worker's SYN was dropped behind the burst and
//  it registered after 1.07-2.3 s
static void
test_preauth_exhaustion (void **state)
{
    s_raise_fd_limit (S_IDLE + S_GARBAGE + 4 * S_NOISE_MAX + 256);
    char handshake [64];
    snprintf (handshake, sizeof handshake, "security/handshake=%d", S_HANDSHAKE);
    const char *settings [] = { "--set", handshake, "--durability", "off", NULL };
    s_fixture_t *fixture = s_fixture_new (settings);

    s_noise_t *noise = s_noise_new (fixture, 64, 32, 0);
    zactor_t *noise_actor = s_noise_start (noise);
    assert_true (s_register (fixture, "flood-1") < S_REGISTER_MAX);

    //  A thousand connections at once; a worker registers meanwhile
    s_plain_t *plain = (s_plain_t *) calloc (S_IDLE + S_GARBAGE, sizeof (s_plain_t));
    assert_non_null (plain);
    int64_t started = zclock_mono ();
    s_plain_burst (plain, S_IDLE + S_GARBAGE, fixture->cluster->port);
    assert_true (s_register (fixture, "flood-2") < S_REGISTER_MAX);
    assert_int_equal (s_plain_made (plain, S_IDLE + S_GARBAGE, S_IDLE, started + 30000), 0);
    fprintf (stderr, "plain: %d connections made in %" PRId64 " ms\n", S_IDLE + S_GARBAGE,
             zclock_mono () - started);
    //  With all of them open and the flood going on, the legitimate peers
    zsock_t *client = s_dealer (fixture, fixture->client);
    int64_t submitted = zclock_mono ();
    testutil_submit (client, testutil_submit_msg ("true", 0, 1, 0));
    fprintf (stderr, "submit accepted in %" PRId64 " ms\n", zclock_mono () - submitted);
    assert_true (s_register (fixture, "flood-3") < S_REGISTER_MAX);

    //  Every plain connection closed: none before the handshake interval
    //  if idle, all by its end plus the margin
    int64_t last = 0;
    for (int index = 0; index < S_IDLE + S_GARBAGE; index++)
        last = plain [index].opened > last? plain [index].opened: last;
    int open = s_plain_closed (plain, S_IDLE + S_GARBAGE, last + S_HANDSHAKE + S_CLOSE_MARGIN);
    //  An idle connection's close, since the burst began (no sooner than
    //  the handshake interval: libzmq accepted it after that) and since
    //  its connect returned; a garbage connection's since its connect
    int64_t idle_first = INT64_MAX, idle_last = 0, garbage_last = 0;
    for (int index = 0; index < S_IDLE + S_GARBAGE; index++) {
        int64_t after = plain [index].closed? plain [index].closed - plain [index].opened: -1;
        if (index < S_IDLE && plain [index].closed) {
            int64_t since_burst = plain [index].closed - started;
            idle_first = since_burst < idle_first? since_burst: idle_first;
            idle_last = after > idle_last? after: idle_last;
        }
        else
        if (after > garbage_last)
            garbage_last = after;
        close (plain [index].fd);
    }
    fprintf (stderr, "plain: %d still open; idle closed from %" PRId64 " ms after the burst, "
             "by %" PRId64 " ms after its connect; garbage by %" PRId64 " ms\n", open,
             idle_first, idle_last, garbage_last);
    free (plain);
    assert_int_equal (open, 0);
    assert_true (idle_first >= S_HANDSHAKE - 10);   //  the handshake timer, not another cut
    assert_true (idle_last <= S_HANDSHAKE + S_CLOSE_MARGIN);
    assert_true (s_register (fixture, "flood-4") < S_REGISTER_MAX);

    zactor_destroy (&noise_actor);
    s_noise_check_free (&noise, 100);
    //  Only the client's task got in
    assert_int_equal (s_task_count (fixture), 1);
    zsock_destroy (&client);
    s_fixture_destroy (&fixture);
}


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
s_misbehaver_new (s_fixture_t *fixture, zcert_t *pair, bool is_worker, size_t max_message,
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
        s_garbage (garbage, 0, &random);
        self->mix [index] = zmsg_new ();
        zmsg_addmem (self->mix [index], garbage, 16 + s_random (&random) % 200);
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
    s_raise_fd_limit (4 * S_NOISE_MAX + 256);
    char handshake [64], max_message [64];
    snprintf (handshake, sizeof handshake, "security/handshake=%d", S_HANDSHAKE);
    snprintf (max_message, sizeof max_message, "broker/max-message=%d", S_MAX_MESSAGE);
    const char *settings [] = { "--set", handshake, "--set", max_message,
                                "--set", "health/lost-after=120000",
                                "--set", "assign/keep-finished=100",
                                "--durability", "off", NULL };
    s_fixture_t *fixture = s_fixture_new (settings);
    s_steady_t steady = { .pair = fixture->worker };
    snprintf (steady.endpoint, sizeof steady.endpoint, "%s", fixture->cluster->endpoint);
    snprintf (steady.server, sizeof steady.server, "%s", zcert_public_txt (fixture->broker));
    zactor_t *worker = zactor_new (s_steady_actor, &steady);
    assert_true (steady.welcomed);
    zsock_t *client = s_dealer (fixture, fixture->client);
    uint64_t round_trips = 0;
    s_p99 (client, 500, "warm-up", &round_trips);
    int64_t baseline = s_p99 (client, S_MEASURE, "baseline", &round_trips);
    size_t rss_before = testutil_rss (fixture->cluster->broker);

    //  Noise without a key: handshakes with unknown keys and with none,
    //  plain connections that write garbage, a few hundred a second each
    s_noise_t *noise = s_noise_new (fixture, 4, 2, 4);
    zactor_t *noise_actor = s_noise_start (noise);
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
    s_noise_check_free (&noise, 100);
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
    s_fixture_destroy (&fixture);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_preauth_exhaustion),
        cmocka_unit_test (test_flood_keeps_client_served),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
