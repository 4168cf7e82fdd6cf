/*  =========================================================================
    test_drover_connwatch - the broker's connections, heard from a real
    ROUTER's monitor over loopback (the rules themselves are drover_conns's,
    tested with a fake clock in test_drover_conns; the whole broker out of
    descriptors is test_fd_limit, and silent connections test_conn_silent)
    =========================================================================
*/

#include "testutil_wire.h"
#include "drover_connwatch.h"
#include <dirent.h>
#include <sys/resource.h>

//  Read the monitor until count connections are open; false on timeout
static bool
s_await_count (drover_connwatch_t *connwatch, zsock_t *monitor, size_t count, int timeout)
{
    zpoller_t *poller = zpoller_new (monitor, NULL);
    int64_t deadline = zclock_mono () + timeout;
    drover_connwatch_read (connwatch, 0);
    while (drover_connwatch_count (connwatch) != count && zclock_mono () < deadline) {
        zpoller_wait (poller, (int) (deadline - zclock_mono ()));
        drover_connwatch_read (connwatch, 0);
    }
    zpoller_destroy (&poller);
    return drover_connwatch_count (connwatch) == count;
}

//  The routing id of the last request s_recv_fd received
static byte s_route [256];
static size_t s_route_size;

//  Receive one request on router within timeout msec; returns the
//  descriptor of the connection it came on (its routing id in s_route),
//  -1 on timeout
static int
s_recv_fd (zsock_t *router, int timeout)
{
    zpoller_t *poller = zpoller_new (router, NULL);
    int fd = -1;
    if (zpoller_wait (poller, timeout)) {
        zmq_msg_t frame;
        zmq_msg_init (&frame);
        bool more = zmq_msg_recv (&frame, zsock_resolve (router), 0) != -1;
        s_route_size = zmq_msg_size (&frame) < sizeof s_route? zmq_msg_size (&frame): 0;
        memcpy (s_route, zmq_msg_data (&frame), s_route_size);
        more = more && zmq_msg_more (&frame);
        while (more && zmq_msg_recv (&frame, zsock_resolve (router), 0) != -1) {
            fd = zmq_msg_get (&frame, ZMQ_SRCFD);
            more = zmq_msg_more (&frame);
        }
        zmq_msg_close (&frame);
    }
    zpoller_destroy (&poller);
    return fd;
}

//  Admit the last request s_recv_fd received, on fd
static const char *
s_admit (drover_connwatch_t *connwatch, int fd, bool member)
{
    return drover_connwatch_admit (connwatch, fd, s_route, s_route_size, member, zclock_mono ());
}

//  A connection is counted when accepted and forgotten when it closes;
//  served connections are never refused and nothing is due to be cut
//  while the broker does not serve (silent ones are not cut then)
static void
test_connections_are_counted (void **state)
{
    drover_connwatch_t *connwatch = drover_connwatch_new (10000, 10, 0);
    zsock_t *router = zsock_new (ZMQ_ROUTER);
    zsock_set_linger (router, 0);
    zsock_t *monitor = drover_connwatch_watch (connwatch, router, false);
    assert_non_null (monitor);
    int port = zsock_bind (router, "tcp://127.0.0.1:*");
    assert_true (port > 0);
    drover_connwatch_start (connwatch, false);
    assert_true (drover_connwatch_limit (connwatch) >= 1);
    assert_int_equal (drover_connwatch_count (connwatch), 0);

    zsock_t *dealer = zsock_new (ZMQ_DEALER);
    zsock_set_linger (dealer, 0);
    assert_int_equal (zsock_connect (dealer, "tcp://127.0.0.1:%d", port), 0);
    assert_true (s_await_count (connwatch, monitor, 1, 5000));
    assert_int_equal (drover_connwatch_deadline (connwatch), -1);
    //  A served connection's request is not refused
    zstr_send (dealer, "hello");
    int fd = s_recv_fd (router, 5000);
    assert_true (fd >= 0);
    assert_null (s_admit (connwatch, fd, false));
    assert_null (s_admit (connwatch, 9999, false));

    zsock_destroy (&dealer);
    assert_true (s_await_count (connwatch, monitor, 0, 5000));
    drover_connwatch_cut (connwatch, zclock_mono ());   //  nothing due: nothing cut
    drover_connwatch_destroy (&connwatch);
    drover_connwatch_destroy (&connwatch);              //  harmless twice
    assert_null (connwatch);
    zsock_destroy (&router);
}

//  max-workers is lowered to what the descriptors allow, never raised
static void
test_max_workers_fits_the_descriptors (void **state)
{
    drover_connwatch_t *connwatch = drover_connwatch_new (10000, 10, 0);
    assert_int_equal (drover_connwatch_fit_workers (connwatch, 1), 1);
    uint32_t fitted = drover_connwatch_fit_workers (connwatch, UINT32_MAX);
    assert_true (fitted >= 1);
    assert_true (fitted < UINT32_MAX);
    drover_connwatch_destroy (&connwatch);
}

//  Count the descriptors this process has open
static int
s_open_fds (void)
{
    DIR *dir = opendir ("/proc/self/fd");
    assert_non_null (dir);
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir (dir)))
        count += entry->d_name [0] != '.';
    closedir (dir);
    return count - 1;           //  not the directory's own
}

//  The next connection event on monitor, read by the test itself (so
//  that connwatch never hears it): its id, or -1 on timeout
static int
s_steal_event (zsock_t *monitor, int timeout)
{
    zmsg_t *event = testutil_recv (monitor, timeout);
    if (!event)
        return -1;
    uint16_t id;
    memcpy (&id, zframe_data (zmsg_first (event)), 2);
    zmsg_destroy (&event);
    return id;
}

//  Under a descriptor limit that leaves room for one connection, a second
//  is excess: its requests are refused and it is cut after it was told.
//  A close libzmq did not report gives its place back all the same.
//  (This lowers the process's hard limit; it runs first, before any other
//  test's sockets are closing in libzmq's background and the count moves.)
static void
test_excess_connection_is_refused_and_cut (void **state)
{
    //  Spare (4) and margin (8) are kept; the sockets below take the rest
    rlim_t room = (rlim_t) s_open_fds () + 16;
    struct rlimit limit = { room, room };
    assert_int_equal (setrlimit (RLIMIT_NOFILE, &limit), 0);
    drover_connwatch_t *connwatch = drover_connwatch_new (10000, 10, 0);
    zsock_t *router = zsock_new (ZMQ_ROUTER);
    zsock_set_linger (router, 0);
    zsock_t *monitor = drover_connwatch_watch (connwatch, router, false);
    int port = zsock_bind (router, "tcp://127.0.0.1:*");
    assert_true (port > 0);
    drover_connwatch_start (connwatch, false);
    assert_int_equal (drover_connwatch_limit (connwatch), 1);

    zsock_t *served = zsock_new (ZMQ_DEALER);
    zsock_set_linger (served, 0);
    assert_int_equal (zsock_connect (served, "tcp://127.0.0.1:%d", port), 0);
    assert_true (s_await_count (connwatch, monitor, 1, 5000));
    zsock_t *excess = zsock_new (ZMQ_DEALER);
    zsock_set_linger (excess, 0);
    zsock_set_reconnect_ivl (excess, -1);
    assert_int_equal (zsock_connect (excess, "tcp://127.0.0.1:%d", port), 0);
    assert_true (s_await_count (connwatch, monitor, 2, 5000));

    zstr_send (served, "served");
    int fd = s_recv_fd (router, 5000);
    assert_true (fd >= 0);
    assert_null (s_admit (connwatch, fd, false));
    zstr_send (excess, "excess");
    fd = s_recv_fd (router, 5000);
    assert_true (fd >= 0);
    int64_t now = zclock_mono ();
    const char *reason = drover_connwatch_admit (connwatch, fd, s_route, s_route_size, true, now);
    assert_non_null (reason);
    assert_non_null (strstr (reason, "too many connections"));
    int64_t deadline = drover_connwatch_deadline (connwatch);
    assert_true (deadline > now && deadline <= now + 100);    //  told: soon, not after the grace
    drover_connwatch_cut (connwatch, deadline);
    assert_int_equal (drover_connwatch_deadline (connwatch), -1);
    //  libzmq sees the end of the cut connection and closes it
    assert_true (s_await_count (connwatch, monitor, 1, 5000));

    //  The served one goes, and connwatch never hears it: the count is
    //  wrong until a newcomer comes, on the same descriptor (or, on
    //  another, finds no room and has the count checked): it is served
    zsock_destroy (&served);
    assert_int_equal (s_steal_event (monitor, 5000), ZMQ_EVENT_DISCONNECTED);
    assert_int_equal (drover_connwatch_count (connwatch), 1);
    zsock_t *newcomer = zsock_new (ZMQ_DEALER);
    zsock_set_linger (newcomer, 0);
    assert_int_equal (zsock_connect (newcomer, "tcp://127.0.0.1:%d", port), 0);
    //  Its request is read before its accept is: it is served, and counted
    //  as the client it is (not as the one gone, nor as silent)
    zstr_send (newcomer, "newcomer");
    fd = s_recv_fd (router, 5000);
    assert_true (fd >= 0);
    assert_null (s_admit (connwatch, fd, false));
    assert_int_equal (drover_connwatch_count (connwatch), 1);
    drover_metrics_t *metrics = drover_metrics_new ();
    drover_connwatch_metrics (connwatch, metrics);
    assert_int_equal (drover_metrics_get (metrics, DROVER_METRIC_CLOSED_UNREPORTED), 1);
    assert_int_equal (drover_metrics_get (metrics, DROVER_METRIC_CONNECTIONS_CLIENT), 1);
    assert_int_equal (drover_metrics_get (metrics, DROVER_METRIC_CONNECTIONS_SILENT), 0);
    assert_int_equal (drover_metrics_get (metrics, DROVER_METRIC_CONNECTIONS_ACCEPTED), 3);
    drover_metrics_destroy (&metrics);

    zsock_destroy (&newcomer);
    zsock_destroy (&excess);
    drover_connwatch_destroy (&connwatch);
    zsock_destroy (&router);
    //  The other tests run under this limit: wait until libzmq has closed
    //  what these sockets held, in its background (its own context stays)
    deadline = zclock_mono () + 5000;
    while (s_open_fds () > (int) room - 9 && zclock_mono () < deadline)
        zclock_sleep (10);      //  paces the look; the deadline bounds the wait
    assert_true (s_open_fds () <= (int) room - 9);
}

//  Run every test
int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_excess_connection_is_refused_and_cut),
        cmocka_unit_test (test_connections_are_counted),
        cmocka_unit_test (test_max_workers_fits_the_descriptors),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
