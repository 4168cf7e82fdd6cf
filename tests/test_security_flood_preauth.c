/*  =========================================================================
    test_security_flood_preauth - a CURVE broker under floods
    before authentication, through real processes over loopback

    A thousand idle and garbage TCP connections at once and a flood of
    handshakes with unknown keys or with no CURVE at all. Each idle
    connection is closed once security/handshake has passed, and meanwhile
    a worker's key registers within a second and a client's submit is
    accepted. No DEALER without a key hears anything, and only the
    client's task is queued.
    =========================================================================
*/

#include "testutil_flood.h"
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

//  msec past the handshake by which an idle connection must be closed:
//  the broker's I/O thread runs the timer, and the machine may be busy
#define S_CLOSE_MARGIN      2000
//  Plain TCP connections that say nothing, and that say garbage
#define S_IDLE              500
#define S_GARBAGE           500
//  msec a worker's key has to register (HELLO -> WELCOME), flood or not
#define S_REGISTER_MAX      1000

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
                size_t length = testutil_flood_garbage (garbage, index % 3, &random);
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
            if (fds [item].revents && testutil_tcp_drained_closed (fds [item].fd)) {
                plain [which [item]].closed = now;
                open--;
            }
    }
    free (fds);
    free (which);
    return open;
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
    testutil_raise_fd_limit (S_IDLE + S_GARBAGE + 4 * TESTUTIL_NOISE_MAX + 256);
    char handshake [64];
    snprintf (handshake, sizeof handshake, "security/handshake=%d", TESTUTIL_FLOOD_HANDSHAKE);
    const char *settings [] = { "--set", handshake, "--durability", "off", NULL };
    testutil_flood_t *fixture = testutil_flood_new (settings);

    testutil_noise_t *noise = testutil_noise_new (fixture, 64, 32, 0);
    zactor_t *noise_actor = testutil_noise_start (noise);
    assert_true (testutil_flood_register (fixture, "flood-1") < S_REGISTER_MAX);

    //  A thousand connections at once; a worker registers meanwhile
    s_plain_t *plain = (s_plain_t *) calloc (S_IDLE + S_GARBAGE, sizeof (s_plain_t));
    assert_non_null (plain);
    int64_t started = zclock_mono ();
    s_plain_burst (plain, S_IDLE + S_GARBAGE, fixture->cluster->port);
    assert_true (testutil_flood_register (fixture, "flood-2") < S_REGISTER_MAX);
    assert_int_equal (s_plain_made (plain, S_IDLE + S_GARBAGE, S_IDLE, started + 30000), 0);
    fprintf (stderr, "plain: %d connections made in %" PRId64 " ms\n", S_IDLE + S_GARBAGE,
             zclock_mono () - started);
    //  With all of them open and the flood going on, the legitimate peers
    zsock_t *client = testutil_flood_dealer (fixture, fixture->client);
    int64_t submitted = zclock_mono ();
    testutil_submit (client, testutil_submit_msg ("true", 0, 1, 0));
    fprintf (stderr, "submit accepted in %" PRId64 " ms\n", zclock_mono () - submitted);
    assert_true (testutil_flood_register (fixture, "flood-3") < S_REGISTER_MAX);

    //  Every plain connection closed: none before the handshake interval
    //  if idle, all by its end plus the margin
    int64_t last = 0;
    for (int index = 0; index < S_IDLE + S_GARBAGE; index++)
        last = plain [index].opened > last? plain [index].opened: last;
    int open = s_plain_closed (plain, S_IDLE + S_GARBAGE,
                               last + TESTUTIL_FLOOD_HANDSHAKE + S_CLOSE_MARGIN);
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
    assert_true (idle_first >= TESTUTIL_FLOOD_HANDSHAKE - 10);   //  the handshake timer, not another cut
    assert_true (idle_last <= TESTUTIL_FLOOD_HANDSHAKE + S_CLOSE_MARGIN);
    assert_true (testutil_flood_register (fixture, "flood-4") < S_REGISTER_MAX);

    zactor_destroy (&noise_actor);
    testutil_noise_check_free (&noise, 100);
    //  Only the client's task got in
    assert_int_equal (testutil_flood_task_count (fixture), 1);
    zsock_destroy (&client);
    testutil_flood_destroy (&fixture);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_preauth_exhaustion),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
