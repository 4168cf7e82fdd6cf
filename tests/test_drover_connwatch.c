/*  =========================================================================
    test_drover_connwatch - the broker's connections, heard from a real
    ROUTER's monitor over loopback (the limit itself is drover_conns's,
    tested with a fake clock in test_drover_conns; the whole broker out of
    descriptors is test_fd_limit)
    =========================================================================
*/

#include "testutil.h"
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

//  A connection is counted when accepted and forgotten when it closes;
//  served connections are never refused and nothing is due to be cut
static void
test_connections_are_counted (void **state)
{
    drover_connwatch_t *connwatch = drover_connwatch_new ();
    zsock_t *router = zsock_new (ZMQ_ROUTER);
    zsock_set_linger (router, 0);
    zsock_t *monitor = drover_connwatch_watch (connwatch, router);
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
    assert_false (drover_connwatch_over (connwatch));
    assert_int_equal (drover_connwatch_deadline (connwatch), -1);
    //  A served connection's request is not refused
    zstr_send (dealer, "hello");
    zmsg_t *request = testutil_recv (router, 5000);
    assert_non_null (request);
    zmsg_destroy (&request);
    assert_false (drover_connwatch_refuse (connwatch, 9999, zclock_mono ()));

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
    drover_connwatch_t *connwatch = drover_connwatch_new ();
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

//  Receive one request on router within timeout msec; returns the
//  descriptor of the connection it came on, -1 on timeout
static int
s_recv_fd (zsock_t *router, int timeout)
{
    zpoller_t *poller = zpoller_new (router, NULL);
    int fd = -1;
    if (zpoller_wait (poller, timeout)) {
        zmq_msg_t frame;
        zmq_msg_init (&frame);
        bool more = true;
        while (more && zmq_msg_recv (&frame, zsock_resolve (router), 0) != -1) {
            fd = zmq_msg_get (&frame, ZMQ_SRCFD);
            more = zmq_msg_more (&frame);
        }
        zmq_msg_close (&frame);
    }
    zpoller_destroy (&poller);
    return fd;
}

//  Under a descriptor limit that leaves room for one connection, a second
//  is excess: its requests are refused and it is cut after it was told
//  (this lowers the process's hard limit; it runs first, before any other
//  test's sockets are closing in libzmq's background and the count moves)
static void
test_excess_connection_is_refused_and_cut (void **state)
{
    //  Spare (16) and margin (8) are kept; the sockets below take the rest
    rlim_t room = (rlim_t) s_open_fds () + 28;
    struct rlimit limit = { room, room };
    assert_int_equal (setrlimit (RLIMIT_NOFILE, &limit), 0);
    drover_connwatch_t *connwatch = drover_connwatch_new ();
    zsock_t *router = zsock_new (ZMQ_ROUTER);
    zsock_set_linger (router, 0);
    zsock_t *monitor = drover_connwatch_watch (connwatch, router);
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
    assert_int_equal (zsock_connect (excess, "tcp://127.0.0.1:%d", port), 0);
    assert_true (s_await_count (connwatch, monitor, 2, 5000));
    assert_true (drover_connwatch_over (connwatch));

    zstr_send (served, "served");
    int fd = s_recv_fd (router, 5000);
    assert_true (fd >= 0);
    assert_false (drover_connwatch_refuse (connwatch, fd, zclock_mono ()));
    zstr_send (excess, "excess");
    fd = s_recv_fd (router, 5000);
    assert_true (fd >= 0);
    int64_t now = zclock_mono ();
    assert_true (drover_connwatch_refuse (connwatch, fd, now));
    int64_t deadline = drover_connwatch_deadline (connwatch);
    assert_true (deadline > now && deadline <= now + 100);    //  told: soon, not after the grace
    drover_connwatch_cut (connwatch, deadline);
    assert_int_equal (drover_connwatch_deadline (connwatch), -1);
    //  libzmq sees the end of the cut connection and closes it
    assert_true (s_await_count (connwatch, monitor, 1, 5000));
    assert_false (drover_connwatch_over (connwatch));

    zsock_destroy (&excess);
    zsock_destroy (&served);
    drover_connwatch_destroy (&connwatch);
    zsock_destroy (&router);
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
