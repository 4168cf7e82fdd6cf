/*  =========================================================================
    test_drover_metrics_actor - the metrics actor alone, through its pipe:
    the test plays the broker main (and the actors that answer a round
    behind it) as actors/ACTORS.md lists what metrics hears and says.
    STARTED first; METRICS round on the status period or for a scrape;
    the COUNTS of a round gathered into the Prometheus text served over
    HTTP on a free loopback port, read with a plain socket; a round that
    misses an answer ends after a second with those that came, and a late
    answer is dropped.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_actor.h"
#include "drover_metrics_actor.h"
#include "drover_metrics.h"
#include <poll.h>
#include <netinet/in.h>
#include <sys/socket.h>

//  The ROUTER endpoint the actor is told (drover_broker_info)
#define S_ENDPOINT      "tcp://127.0.0.1:5999"

//  One test's actor and the port it serves on
typedef struct {
    zactor_t *metrics;          //  the actor, or NULL
    int port;                   //  its HTTP port on 127.0.0.1, 0 for none
} s_test_t;

static int
s_setup (void **state)
{
    *state = zmalloc (sizeof (s_test_t));
    return 0;
}

static int
s_teardown (void **state)
{
    s_test_t *test = (s_test_t *) *state;
    testutil_actor_destroy (&test->metrics);
    free (test);
    return 0;
}

//  Start the actor serving on a free loopback port (or none, if !serve),
//  with a status line every status_interval msec (0: none), a round
//  waiting for counters answers; asserts it says STARTED 1 and the address
static void
s_start (s_test_t *test, bool serve, uint32_t status_interval, int counters)
{
    char address [32] = "";
    test->port = serve? testutil_free_port (): 0;
    if (serve)
        snprintf (address, sizeof address, "127.0.0.1:%d", test->port);
    drover_metrics_actor_args_t args = {
        .address = address, .status_interval = status_interval, .endpoint = S_ENDPOINT,
        .counters = counters
    };
    test->metrics = zactor_new (drover_metrics_actor, &args);
    assert_non_null (test->metrics);
    zmsg_t *msg = testutil_expect (test->metrics, "STARTED", 5000);
    testutil_pop_check (msg, "1");
    testutil_pop_check (msg, address);
    zmsg_destroy (&msg);
}

//  Expect METRICS round within timeout msec
static void
s_expect_round (s_test_t *test, uint64_t round, int timeout)
{
    zmsg_t *msg = testutil_expect (test->metrics, "METRICS", timeout);
    char text [32];
    snprintf (text, sizeof text, "%" PRIu64, round);
    testutil_pop_check (msg, text);
    zmsg_destroy (&msg);
}

//  Answer round with one series set to value, as one actor does (COUNTS
//  round values, in a BATCH)
static void
s_answer (s_test_t *test, uint64_t round, drover_metric_t id, uint64_t value)
{
    drover_metrics_t *counts = drover_metrics_new ();
    drover_metrics_set (counts, id, value);
    drover_outbox_t *outbox = drover_outbox_new ();
    drover_metrics_say (counts, outbox, round);
    testutil_say_batch (test->metrics, &outbox);
    drover_metrics_destroy (&counts);
}

//  Connect to the actor's port and send method path (HTTP/1.1, the
//  connection closed after the answer); returns the socket
static int
s_http_request (s_test_t *test, const char *method, const char *path)
{
    int fd = socket (AF_INET, SOCK_STREAM, 0);
    assert_true (fd >= 0);
    struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = htons (test->port) };
    address.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    assert_int_equal (connect (fd, (struct sockaddr *) &address, sizeof address), 0);
    char request [256];
    snprintf (request, sizeof request,
              "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", method, path);
    assert_int_equal (send (fd, request, strlen (request), MSG_NOSIGNAL),
                      (ssize_t) strlen (request));
    return fd;
}

//  Read the whole answer on fd (until the server closes it) within timeout
//  msec, and close fd; NULL if it did not end in time (caller frees)
static char *
s_http_answer (int fd, int timeout)
{
    size_t size = 1 << 16, used = 0;
    char *text = (char *) zmalloc (size);
    int64_t deadline = zclock_mono () + timeout;
    while (true) {
        struct pollfd item = { .fd = fd, .events = POLLIN };
        int64_t left = deadline - zclock_mono ();
        if (left <= 0 || poll (&item, 1, (int) left) != 1) {
            zstr_free (&text);
            break;              //  not in time
        }
        if (used + 1 >= size) {
            size *= 2;
            text = (char *) realloc (text, size);
            assert_non_null (text);
        }
        ssize_t got = recv (fd, text + used, size - used - 1, 0);
        if (got <= 0)
            break;              //  the whole answer came
        used += (size_t) got;
        text [used] = 0;
    }
    close (fd);
    return text;
}

//  Assert the text holds needle, showing the text if not
static void
s_assert_has (const char *text, const char *needle)
{
    if (!strstr (text, needle))
        print_error ("no \"%s\" in:\n%s\n", needle, text);
    assert_non_null (strstr (text, needle));
}

//  Without a scrape, METRICS is said on the status period: round N no
//  sooner than N periods after the start, each once the last is answered
static void
test_rounds_on_status_period (void **state)
{
    s_test_t *test = (s_test_t *) *state;
    int64_t started = zclock_mono ();
    s_start (test, false, 100, 1);
    for (uint64_t round = 1; round <= 3; round++) {
        s_expect_round (test, round, 2000);
        assert_true (zclock_mono () - started >= 100 * (int64_t) round);
        s_answer (test, round, DROVER_METRIC_TASKS_QUEUED, round);
    }
}

//  A scrape of /metrics starts a round and waits for it: once every actor
//  has answered (well before the round's second is up) it gets the merged
//  answers in the exposition format, with the process's own series and
//  the broker's info; another path is 404, another method 405, neither
//  starting a round
static void
test_scrape_gathers_counts (void **state)
{
    s_test_t *test = (s_test_t *) *state;
    s_start (test, true, 0, 2);
    char *text = s_http_answer (s_http_request (test, "GET", "/other"), 2000);
    assert_non_null (text);
    s_assert_has (text, "HTTP/1.1 404");
    zstr_free (&text);
    text = s_http_answer (s_http_request (test, "POST", "/metrics"), 2000);
    assert_non_null (text);
    s_assert_has (text, "HTTP/1.1 405");
    zstr_free (&text);

    int64_t asked = zclock_mono ();
    int fd = s_http_request (test, "GET", "/metrics");
    s_expect_round (test, 1, 2000);                 //  the first: nothing came before
    s_answer (test, 1, DROVER_METRIC_WORKERS_OK, 3);
    s_answer (test, 1, DROVER_METRIC_TASKS_QUEUED, 5);
    text = s_http_answer (fd, 2000);
    assert_non_null (text);
    assert_true (zclock_mono () - asked < 1000);    //  ended on its answers
    s_assert_has (text, "HTTP/1.1 200");
    s_assert_has (text, "text/plain; version=0.0.4");
    s_assert_has (text, "\ndrover_workers{health=\"ok\"} 3\n");
    s_assert_has (text, "\ndrover_tasks{state=\"queued\"} 5\n");
    s_assert_has (text, "endpoint=\"" S_ENDPOINT "\"} 1\n");
    s_assert_has (text, "\nprocess_open_fds ");
    s_assert_has (text, "\nprocess_resident_memory_bytes ");
    zstr_free (&text);
}

//  A round an actor does not answer ends after a second with the answers
//  that came (the scrape gets those); an answer to a round no longer in
//  flight is dropped, not counted toward the next
static void
test_missing_answer (void **state)
{
    s_test_t *test = (s_test_t *) *state;
    s_start (test, true, 0, 2);
    int64_t asked = zclock_mono ();
    int fd = s_http_request (test, "GET", "/metrics");
    s_expect_round (test, 1, 2000);
    s_answer (test, 1, DROVER_METRIC_WORKERS_OK, 3);
    char *text = s_http_answer (fd, 3000);
    assert_non_null (text);
    assert_true (zclock_mono () - asked >= 1000);   //  waited the round's second
    s_assert_has (text, "HTTP/1.1 200");
    s_assert_has (text, "\ndrover_workers{health=\"ok\"} 3\n");
    assert_null (strstr (text, "drover_tasks{"));
    zstr_free (&text);

    asked = zclock_mono ();
    fd = s_http_request (test, "GET", "/metrics");
    s_expect_round (test, 2, 2000);
    s_answer (test, 1, DROVER_METRIC_TASKS_RUNNING, 7);    //  late: dropped
    s_answer (test, 2, DROVER_METRIC_WORKERS_OK, 4);
    s_answer (test, 2, DROVER_METRIC_TASKS_QUEUED, 6);
    text = s_http_answer (fd, 3000);
    assert_non_null (text);
    assert_true (zclock_mono () - asked < 1000);    //  ended on its own answers
    s_assert_has (text, "\ndrover_workers{health=\"ok\"} 4\n");
    s_assert_has (text, "\ndrover_tasks{state=\"queued\"} 6\n");
    assert_null (strstr (text, "state=\"running\""));
    zstr_free (&text);
}

//  An address that cannot be served (the port is taken): STARTED 0 and
//  why; the actor ends by itself (its end signal is left on the pipe for
//  zactor_destroy, as the broker leaves it)
static void
test_started_0_when_port_taken (void **state)
{
    s_test_t *test = (s_test_t *) *state;
    int port = testutil_free_port ();
    int taker = socket (AF_INET, SOCK_STREAM, 0);
    assert_true (taker >= 0);
    struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = htons (port) };
    address.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    assert_int_equal (bind (taker, (struct sockaddr *) &address, sizeof address), 0);
    assert_int_equal (listen (taker, 1), 0);
    char where [32];
    snprintf (where, sizeof where, "127.0.0.1:%d", port);
    drover_metrics_actor_args_t args = {
        .address = where, .status_interval = 100, .endpoint = S_ENDPOINT, .counters = 1
    };
    test->metrics = zactor_new (drover_metrics_actor, &args);
    zmsg_t *msg = testutil_expect (test->metrics, "STARTED", 5000);
    testutil_pop_check (msg, "0");
    char *why = zmsg_popstr (msg);
    assert_non_null (why);
    s_assert_has (why, "cannot serve");
    s_assert_has (why, where);
    zstr_free (&why);
    zmsg_destroy (&msg);
    close (taker);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_rounds_on_status_period, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_scrape_gathers_counts, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_missing_answer, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_started_0_when_port_taken, s_setup, s_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
