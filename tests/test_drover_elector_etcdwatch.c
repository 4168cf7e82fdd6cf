/*  =========================================================================
    test_drover_elector_etcdwatch - what the elector's etcd watch makes of
    each line of the gateway's stream (src/broker/ha/drover_etcdwatch.c),
    as etcd 3.4 writes them: created, a change, progress, cancelled, an
    error, and lines that are no such thing; the request's body; a watch
    of a port nobody listens on breaks without blocking
    =========================================================================
*/

#include "testutil_proc.h"
#include "drover_etcdwatch.h"
#include "drover_etcd.h"
#include <poll.h>
#include <pthread.h>
#include <netinet/in.h>
#include <arpa/inet.h>

//  Take one line (a string)
static int
s_take (drover_etcdwatch_t *watch, const char *line)
{
    return drover_etcdwatch_take_line (watch, line, strlen (line));
}

//  The lines etcd writes, and what each means
static void
test_lines (void **state)
{
    (void) state;
    drover_etcdwatch_t *watch = drover_etcdwatch_new ();
    assert_int_equal (s_take (watch, "{\"result\":{\"header\":{\"cluster_id\":\"1\",\"revision\":"
                                     "\"1\",\"raft_term\":\"2\"},\"created\":true}}"),
                      DROVER_ETCDWATCH_CREATED);
    assert_int_equal (s_take (watch, "{\"result\":{\"header\":{\"revision\":\"7\"},\"events\":["
                                     "{\"kv\":{\"key\":\"L2Ryb3Zlci9h\",\"create_revision\":\"7\","
                                     "\"mod_revision\":\"7\",\"version\":\"1\",\"value\":\"eA==\"}},"
                                     "{\"type\":\"DELETE\",\"kv\":{\"key\":\"L2Ryb3Zlci9i\"}}]}}\r"),
                      DROVER_ETCDWATCH_CHANGED);
    assert_int_equal (drover_etcdwatch_changes (watch), 2);
    //  A progress notice (no events), an empty line: nothing
    assert_int_equal (s_take (watch, "{\"result\":{\"header\":{\"revision\":\"9\"}}}"), 0);
    assert_int_equal (s_take (watch, ""), 0);
    assert_int_equal (s_take (watch, "  \r"), 0);
    //  Ends: cancelled, an error, and what is not etcd's
    assert_int_equal (s_take (watch, "{\"result\":{\"canceled\":true,\"cancel_reason\":\"x\"}}"),
                      DROVER_ETCDWATCH_BROKEN);
    assert_string_equal (drover_etcdwatch_error (watch), "etcd watch: cancelled by etcd");
    assert_int_equal (s_take (watch, "{\"error\":{\"grpc_code\":14,\"http_code\":503,"
                                     "\"message\":\"etcdserver: no leader\"}}"),
                      DROVER_ETCDWATCH_BROKEN);
    assert_string_equal (drover_etcdwatch_error (watch), "etcd watch: etcdserver: no leader");
    const char *garbage [] = { "not json", "[1,2]", "{\"result\":3}", "{\"other\":{}}",
                               "{\"result\":{\"events\":{}}}", "{\"result\":", NULL };
    for (int index = 0; garbage [index]; index++)
        assert_int_equal (s_take (watch, garbage [index]), DROVER_ETCDWATCH_BROKEN);
    //  Created again: the count starts over
    assert_int_equal (s_take (watch, "{\"result\":{\"created\":true}}"), DROVER_ETCDWATCH_CREATED);
    assert_int_equal (drover_etcdwatch_changes (watch), 0);
    drover_etcdwatch_destroy (&watch);
    drover_etcdwatch_destroy (&watch);
    assert_null (watch);
}

//  The request: a create_request of the prefix's range
static void
test_body (void **state)
{
    (void) state;
    char *body = drover_etcd_watch_body ("/drover/");
    //  "/drover/" and "/drover0" in base64
    assert_string_equal (body, "{\"create_request\":{\"key\":\"L2Ryb3Zlci8=\","
                               "\"range_end\":\"L2Ryb3ZlcjA=\"}}");
    zstr_free (&body);
}

//  Nobody listens: the watch breaks, each perform returning at once
static void
test_refused_breaks (void **state)
{
    (void) state;
    drover_etcdwatch_t *watch = drover_etcdwatch_new ();
    assert_false (drover_etcdwatch_is_open (watch));
    assert_int_equal (drover_etcdwatch_perform (watch, false), 0);
    char endpoint [64];
    snprintf (endpoint, sizeof endpoint, "http://127.0.0.1:%d", testutil_free_port ());
    drover_etcdwatch_open (watch, endpoint, "/drover/", 1000);
    assert_true (drover_etcdwatch_is_open (watch));
    int64_t deadline = zclock_mono () + 5000;
    int found = 0;
    while (!(found & DROVER_ETCDWATCH_BROKEN) && zclock_mono () < deadline) {
        int64_t before = zclock_mono ();
        int timeout = drover_etcdwatch_timeout (watch);
        zclock_sleep (timeout >= 0 && timeout < 10? timeout: 10);
        found = drover_etcdwatch_perform (watch, true);
        assert_true (zclock_mono () - before < 500);        //  never blocks
    }
    assert_true (found & DROVER_ETCDWATCH_BROKEN);
    assert_false (drover_etcdwatch_is_open (watch));
    assert_int_equal (drover_etcdwatch_fd (watch), -1);
    assert_non_null (strstr (drover_etcdwatch_error (watch), "etcd watch: "));
    drover_etcdwatch_destroy (&watch);
}

//  A gateway that answers a watch with its created line and then says
//  nothing, as etcd does while no key changes: holds the connection until
//  the test closes its listener
typedef struct {
    int listener;               //  bound on 127.0.0.1, listening
    int port;                   //  its port
} s_quiet_t;

//  Serve one watch quietly until the peer goes
static void *
s_quiet_gateway (void *args)
{
    s_quiet_t *self = (s_quiet_t *) args;
    int fd = accept (self->listener, NULL, NULL);
    if (fd < 0)
        return NULL;
    char request [4096];
    if (read (fd, request, sizeof request) > 0) {
        const char *answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             "Transfer-Encoding: chunked\r\n\r\n"
                             "2b\r\n{\"result\":{\"header\":{},\"created\":true}}\n\r\n";
        if (write (fd, answer, strlen (answer)) == (ssize_t) strlen (answer))
            while (read (fd, request, sizeof request) > 0)
                ;               //  silent until the watch closes
    }
    close (fd);
    return NULL;
}

//  A watch that is open and quiet costs nothing: the elector's loop, which
//  waits on the watch's socket up to its timeout, wakes only when libcurl
//  has something to do, not again and again on a timer that fell due
static void
test_quiet_watch_sleeps (void **state)
{
    (void) state;
    s_quiet_t gateway = { .listener = socket (AF_INET, SOCK_STREAM, 0) };
    assert_true (gateway.listener >= 0);
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = 0 };
    addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    socklen_t size = sizeof addr;
    assert_int_equal (bind (gateway.listener, (struct sockaddr *) &addr, sizeof addr), 0);
    assert_int_equal (getsockname (gateway.listener, (struct sockaddr *) &addr, &size), 0);
    assert_int_equal (listen (gateway.listener, 1), 0);
    gateway.port = ntohs (addr.sin_port);
    pthread_t thread;
    assert_int_equal (pthread_create (&thread, NULL, s_quiet_gateway, &gateway), 0);

    drover_etcdwatch_t *watch = drover_etcdwatch_new ();
    char endpoint [64];
    snprintf (endpoint, sizeof endpoint, "http://127.0.0.1:%d", gateway.port);
    drover_etcdwatch_open (watch, endpoint, "/drover/", 1000);
    //  Until it is created, then for two seconds of quiet: count the turns
    int created = 0, turns = 0;
    int64_t quiet_from = -1, deadline = zclock_mono () + 5000;
    while (zclock_mono () < deadline && drover_etcdwatch_is_open (watch)) {
        int timeout = drover_etcdwatch_timeout (watch);
        int fd = drover_etcdwatch_fd (watch);
        int left = (int) (deadline - zclock_mono ());
        if (timeout == -1 || timeout > left)
            timeout = left > 0? left: 0;
        struct pollfd item = { fd, POLLIN, 0 };
        int rc = poll (&item, fd == -1? 0: 1, timeout);
        int found = drover_etcdwatch_perform (watch, rc > 0 && (item.revents & POLLIN));
        if ((found & DROVER_ETCDWATCH_CREATED) && !created) {
            created = 1;
            quiet_from = zclock_mono ();
            deadline = quiet_from + 2000;
        }
        else
        if (created)
            turns++;
    }
    assert_true (created);
    assert_true (drover_etcdwatch_is_open (watch));
    printf ("quiet watch: %d turns in %" PRId64 " ms\n", turns, zclock_mono () - quiet_from);
    assert_true (turns < 20);
    drover_etcdwatch_destroy (&watch);
    pthread_join (thread, NULL);
    close (gateway.listener);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_lines),
        cmocka_unit_test (test_body),
        cmocka_unit_test (test_refused_breaks),
        cmocka_unit_test (test_quiet_watch_sleeps),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
