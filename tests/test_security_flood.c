/*  =========================================================================
    test_security_flood - a CURVE broker under floods, through real
    processes over loopback

    Before authentication: a thousand idle and garbage TCP connections at
    once and a flood of handshakes with unknown keys or with no CURVE at
    all. Each idle connection is closed once security/handshake has
    passed, and meanwhile a worker's key registers within a second and a
    client's submit is accepted.

    What the broker accepted is counted at the wire: no DEALER without a
    key hears anything, and the broker holds no task but the client's.
    =========================================================================
*/

#include "testutil.h"
#include <fcntl.h>
#include <poll.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>

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
    self->broker = zcert_new ();
    assert_int_equal (zcert_save (self->broker, self->broker_key), 0);
    char *secret = zsys_sprintf ("%s_secret", self->broker_key);
    assert_int_equal (chmod (secret, 0600), 0);
    zstr_free (&secret);
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
    drover_msg_t *list = drover_msg_new (DROVER_MSG_TASK_LIST);
    list->limit = 1;
    drover_msg_t *table = testutil_request (admin, &list, 10000);
    assert_non_null (table);
    assert_int_equal (table->id, DROVER_MSG_TASK_TABLE);
    uint64_t total = 0;
    for (int state = 0; state < DROVER_TASK_STATES; state++)
        total += table->counts [state];
    drover_msg_destroy (&table);
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

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_preauth_exhaustion),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
