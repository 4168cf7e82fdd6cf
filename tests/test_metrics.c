/*  =========================================================================
    test_metrics - the Prometheus endpoint and the status line of a real
    broker with real workers: the counts match what was done, promtool
    finds nothing wrong with a live scrape, scrapers that misbehave stall
    no task, a non-loopback address is refused unless configured
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include "drover_config.h"
#include <poll.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>

//  Open a TCP connection to 127.0.0.1:port; the socket, or -1
static int
s_connect (int port)
{
    int fd = socket (AF_INET, SOCK_STREAM, 0);
    assert_true (fd >= 0);
    struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = htons (port) };
    address.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    if (connect (fd, (struct sockaddr *) &address, sizeof address)) {
        close (fd);
        return -1;
    }
    return fd;
}

//  Read what the peer sends until it closes, within timeout msec; the
//  text (caller frees), or NULL on timeout
static char *
s_read_all (int fd, int timeout)
{
    size_t size = 1 << 16, used = 0;
    char *text = (char *) zmalloc (size);
    int64_t deadline = zclock_mono () + timeout;
    while (true) {
        int64_t left = deadline - zclock_mono ();
        struct pollfd item = { .fd = fd, .events = POLLIN };
        if (left <= 0 || poll (&item, 1, (int) left) != 1) {
            free (text);
            return NULL;
        }
        if (used + 1 >= size) {
            size *= 2;
            text = (char *) realloc (text, size);
        }
        ssize_t got = recv (fd, text + used, size - used - 1, 0);
        if (got <= 0)
            break;              //  closed (or reset): what came is the answer
        used += (size_t) got;
        text [used] = 0;
    }
    return text;
}

//  Send an HTTP request (whole text) and return the whole answer, or NULL
static char *
s_http (int port, const char *request)
{
    int fd = s_connect (port);
    assert_true (fd >= 0);
    assert_int_equal (send (fd, request, strlen (request), MSG_NOSIGNAL), (ssize_t) strlen (request));
    char *answer = s_read_all (fd, 5000);
    close (fd);
    return answer;
}

//  GET /metrics: the body of a 200 answer (caller frees); fails otherwise
static char *
s_scrape (int port)
{
    char *answer = s_http (port, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    assert_non_null (answer);
    assert_true (strncmp (answer, "HTTP/1.1 200", 12) == 0);
    assert_non_null (strstr (answer, "Content-Type: text/plain; version=0.0.4"));
    char *body = strstr (answer, "\r\n\r\n");
    assert_non_null (body);
    char *copy = strdup (body + 4);
    free (answer);
    return copy;
}

//  The value of one series (its whole name with labels) in a scrape, or -1
static long long
s_value (const char *text, const char *series)
{
    char needle [256];
    snprintf (needle, sizeof needle, "\n%s ", series);
    const char *at = strstr (text, needle);
    return at? atoll (at + strlen (needle)): -1;
}

//  Scrape until series has value, within timeout msec; true if it did
static bool
s_await_value (int port, const char *series, long long value, int timeout)
{
    int64_t deadline = zclock_mono () + timeout;
    long long seen = -1;
    while (zclock_mono () < deadline) {
        char *text = s_scrape (port);
        seen = s_value (text, series);
        free (text);
        if (seen == value)
            return true;
        //  each scrape waits for a fresh round: it paces this loop
    }
    print_message ("%s is %lld, not %lld\n", series, seen, value);
    return false;
}

//  Send a TASK CANCEL and return the reply's code
static int
s_cancel (zsock_t *dealer, uint64_t task)
{
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_CANCEL);
    request->task = task;
    drover_msg_t *reply = testutil_request (dealer, &request, 5000);
    assert_non_null (reply);
    int code = reply->code;
    drover_msg_destroy (&reply);
    return code;
}

//  A loopback address on a free port for --metrics (a static buffer, good
//  until the next call); the port in *port_p
static const char *
s_metrics_address (int *port_p)
{
    static char address [64];
    *port_p = testutil_free_port ();
    snprintf (address, sizeof address, "127.0.0.1:%d", *port_p);
    return address;
}

//  Start a broker serving metrics on a free port, with two workers
static testutil_cluster_t *
s_cluster (int *port_p, zsock_t **dealer_p, const char *interval)
{
    const char *address = s_metrics_address (port_p);
    static char status [64];
    snprintf (status, sizeof status, "broker/status-interval=%s", interval);
    const char *flags [] = { "--set", "health/heartbeat=200", "--metrics", address,
                             "--set", status, NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    testutil_cluster_add_worker (cluster, 0, "alpha", 3, NULL);
    testutil_cluster_add_worker (cluster, 1, "beta", 2, NULL);
    *dealer_p = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (*dealer_p, 2, 10000));
    return cluster;
}

//  Find promtool: $DROVER_PROMTOOL, else the first on $PATH; NULL if none
static const char *
s_promtool_path (char *buffer, size_t size)
{
    const char *given = getenv ("DROVER_PROMTOOL");
    if (given && *given)
        return access (given, X_OK) == 0? given: NULL;
    const char *path = getenv ("PATH");
    char *dirs = strdup (path && *path? path: "/usr/bin:/bin");
    assert_non_null (dirs);
    const char *found = NULL;
    char *save = NULL;
    for (char *dir = strtok_r (dirs, ":", &save); dir && !found;
         dir = strtok_r (NULL, ":", &save)) {
        snprintf (buffer, size, "%s/promtool", *dir? dir: ".");
        if (access (buffer, X_OK) == 0)
            found = buffer;
    }
    free (dirs);
    return found;
}

//  Check a scrape with promtool: no error, no lint problem. Without
//  promtool the test fails: CI installs it (Debian's prometheus package,
//  in ./run), and a check that passes by not running checks nothing.
static void
s_promtool (testutil_cluster_t *cluster, const char *text)
{
    char buffer [PATH_MAX];
    const char *promtool = s_promtool_path (buffer, sizeof buffer);
    if (!promtool)
        fail_msg ("promtool not found ($DROVER_PROMTOOL, else on $PATH): install Debian's "
                  "prometheus package (./run installs it) to check the scrape");
    char path [PATH_MAX];
    snprintf (path, sizeof path, "%s", testutil_cluster_log (cluster, "scrape.txt"));
    FILE *file = fopen (path, "w");
    assert_non_null (file);
    fputs (text, file);
    fclose (file);
    char command [2 * PATH_MAX + 64];
    snprintf (command, sizeof command, "%s check metrics < %s 2>&1", promtool, path);
    FILE *check = popen (command, "r");
    assert_non_null (check);
    char output [4096] = "";
    size_t got = fread (output, 1, sizeof output - 1, check);
    output [got] = 0;
    int status = pclose (check);
    if (status != 0 || got)
        print_message ("promtool says:\n%s\n", output);
    assert_int_equal (status, 0);
    assert_int_equal (got, 0);
}

//  Tasks that succeed, fail, time out and are cancelled, and a message
//  the broker cannot decode: each counter says what was done, the gauges
//  what is, promtool finds nothing wrong with the live scrape, and the
//  status line in the log has the counts
static void
test_counts_match_what_was_done (void **state)
{
    int port;
    zsock_t *dealer;
    testutil_cluster_t *cluster = s_cluster (&port, &dealer, "300");
    uint64_t tasks [6];
    int count = 0;
    for (int index = 0; index < 3; index++)
        tasks [count++] = testutil_submit (dealer, testutil_submit_msg ("true", 0, 1,
                                                                         DROVER_SUBMIT_NOTIFY));
    drover_msg_t *submit = testutil_submit_msg ("exit 3", 0, 1, DROVER_SUBMIT_NOTIFY);
    submit->retries = 1;        //  one retry: requeued once, then failed
    tasks [count++] = testutil_submit (dealer, submit);
    //  Its run time, as the broker measures it (from its STARTED to its
    //  RESULT), is the timeout less the STARTED's trip: 1 s leaves room for
    //  a slow trip (under ASan) above the 0.25 s bucket checked below
    submit = testutil_submit_msg ("sleep 30", 0, 1, DROVER_SUBMIT_NOTIFY);
    submit->timeout = 1000;
    tasks [count++] = testutil_submit (dealer, submit);
    drover_msg_t *done [6] = { NULL };
    assert_true (testutil_collect (dealer, tasks, done, count, 20000));
    for (int index = 0; index < count; index++)
        drover_msg_destroy (&done [index]);

    //  One running, then cancelled; while it runs, it is counted so
    uint64_t running = testutil_submit (dealer, testutil_submit_msg ("sleep 30", 0, 1,
                                                                      DROVER_SUBMIT_NOTIFY));
    char worker [DROVER_ID_MAX + 1] = "";
    assert_true (testutil_wait_running (dealer, running, worker, 10000));
    assert_true (s_await_value (port, "drover_tasks{state=\"running\"}", 1, 5000));
    assert_true (s_await_value (port, "drover_procs_used", 1, 5000));
    assert_int_equal (s_cancel (dealer, running), DROVER_CODE_OK);
    drover_msg_destroy (&done [0]);
    done [0] = testutil_expect_done (dealer, running, DROVER_TASK_CANCELLED, 15000);
    drover_msg_destroy (&done [0]);

    //  Not a message: answered 400 by the main
    zframe_t *garbage = zframe_new ("not msgpack", 11);
    zframe_send (&garbage, dealer, 0);
    drover_msg_t *error = testutil_recv_msg (dealer, 5000);
    assert_non_null (error);
    assert_int_equal (error->code, DROVER_CODE_BAD_REQUEST);
    drover_msg_destroy (&error);

    assert_true (s_await_value (port, "drover_tasks_ended_total{end=\"cancelled\"}", 1, 5000));
    char *text = s_scrape (port);
    assert_int_equal (s_value (text, "drover_tasks_submitted_total"), 6);
    assert_int_equal (s_value (text, "drover_tasks_ended_total{end=\"succeeded\"}"), 3);
    assert_int_equal (s_value (text, "drover_tasks_ended_total{end=\"failed\"}"), 1);
    assert_int_equal (s_value (text, "drover_tasks_ended_total{end=\"timed_out\"}"), 1);
    assert_int_equal (s_value (text, "drover_tasks_ended_total{end=\"cancelled\"}"), 1);
    assert_int_equal (s_value (text, "drover_tasks_requeued_total"), 1);
    assert_int_equal (s_value (text, "drover_tasks{state=\"succeeded\"}"), 3);
    assert_int_equal (s_value (text, "drover_tasks{state=\"failed\"}"), 2);
    assert_int_equal (s_value (text, "drover_tasks{state=\"cancelled\"}"), 1);
    assert_int_equal (s_value (text, "drover_tasks{state=\"running\"}"), 0);
    assert_int_equal (s_value (text, "drover_tasks{state=\"queued\"}"), 0);
    assert_int_equal (s_value (text, "drover_workers{health=\"ok\"}"), 2);
    assert_int_equal (s_value (text, "drover_workers{health=\"probation\"}"), 0);
    assert_int_equal (s_value (text, "drover_workers{health=\"lost\"}"), 0);
    assert_int_equal (s_value (text, "drover_workers_admin{admin=\"run\"}"), 2);
    assert_int_equal (s_value (text, "drover_procs"), 5);
    assert_int_equal (s_value (text, "drover_procs_used"), 0);
    assert_int_equal (s_value (text, "drover_bad_messages_total{code=\"400\"}"), 1);
    assert_int_equal (s_value (text, "drover_reports_refused_total{code=\"409\"}"), 0);
    //  Six tasks ended, each after it started: one observation each; the
    //  one that timed out ran about a second
    assert_int_equal (s_value (text, "drover_task_end_to_end_seconds_count"), 6);
    assert_int_equal (s_value (text, "drover_task_run_seconds_count"), 6);
    assert_int_equal (s_value (text, "drover_task_queue_wait_seconds_count"), 6);
    assert_true (s_value (text, "drover_task_run_seconds_bucket{le=\"0.25\"}") <= 5);
    assert_int_equal (s_value (text, "drover_task_run_seconds_bucket{le=\"+Inf\"}"), 6);
    assert_true (s_value (text, "process_open_fds") > 0);
    assert_true (s_value (text, "process_resident_memory_bytes") > 0);
    assert_true (s_value (text, "process_start_time_seconds") > 1700000000);

    //  promtool finds no error and no lint problem in it (and must be there)
    s_promtool (cluster, text);
    free (text);

    //  The status line, every 300 msec: nothing pending or running, two workers
    assert_true (testutil_await_line (testutil_cluster_log (cluster, "broker"),
                 "metrics: status pending=0 running=0 workers=2 probation=0 low_disk=0 lost=0 "
                 "held=0 draining=0 procs_used=0 procs=5", 5000));
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  Other paths are 404, other methods 405; HEAD answers without a body
static void
test_paths_and_methods (void **state)
{
    int port;
    zsock_t *dealer;
    testutil_cluster_t *cluster = s_cluster (&port, &dealer, "0");
    char *answer = s_http (port, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assert_non_null (answer);
    assert_true (strncmp (answer, "HTTP/1.1 404", 12) == 0);
    free (answer);
    answer = s_http (port, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n"
                           "Connection: close\r\n\r\nabc");
    assert_non_null (answer);
    assert_true (strncmp (answer, "HTTP/1.1 405", 12) == 0);
    assert_non_null (strstr (answer, "Allow: GET, HEAD"));
    free (answer);
    answer = s_http (port, "HEAD /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assert_non_null (answer);
    assert_true (strncmp (answer, "HTTP/1.1 200", 12) == 0);
    assert_null (strstr (answer, "# HELP"));
    free (answer);
    //  No status line with status-interval 0
    assert_int_equal (testutil_count_lines_with (testutil_cluster_log (cluster, "broker"),
                                                 "metrics: status"), 0);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  Scrapers that connect and say nothing, send garbage, send a huge header,
//  or take every connection: tasks keep flowing at once, the huge header
//  is refused, the silent connection is closed, and a scrape works again
static void
test_misbehaving_scrapers_stall_nothing (void **state)
{
    int port;
    zsock_t *dealer;
    testutil_cluster_t *cluster = s_cluster (&port, &dealer, "0");
    int silent = s_connect (port);
    assert_true (silent >= 0);
    int garbage = s_connect (port);
    assert_true (garbage >= 0);
    const char *noise = "\x01\x02\xff garbage\r\n\r\n";
    send (garbage, noise, strlen (noise), MSG_NOSIGNAL);
    int huge = s_connect (port);
    assert_true (huge >= 0);
    size_t huge_size = 1 << 20;
    char *header = (char *) malloc (huge_size);
    memset (header, 'a', huge_size);
    memcpy (header, "GET /metrics HTTP/1.1\r\nX-Big: ", 30);
    //  Whatever the broker reads of it, it must not wait for the rest
    int flags = 1;
    setsockopt (huge, SOL_SOCKET, SO_SNDBUF, &flags, sizeof flags);
    ssize_t sent = send (huge, header, huge_size, MSG_NOSIGNAL | MSG_DONTWAIT);
    free (header);
    assert_true (sent > 0);
    //  Fill the connection limit with idle ones too
    int idle [20];
    for (int index = 0; index < 20; index++)
        idle [index] = s_connect (port);

    //  Meanwhile 40 tasks run through, quickly
    int64_t started = zclock_mono ();
    uint64_t tasks [40];
    for (int index = 0; index < 40; index++)
        tasks [index] = testutil_submit (dealer, testutil_submit_msg ("true", 0, 1,
                                                                       DROVER_SUBMIT_NOTIFY));
    drover_msg_t *done [40] = { NULL };
    assert_true (testutil_collect (dealer, tasks, done, 40, 10000));
    for (int index = 0; index < 40; index++) {
        assert_int_equal (done [index]->state, DROVER_TASK_SUCCEEDED);
        drover_msg_destroy (&done [index]);
    }
    assert_true (zclock_mono () - started < 10000);

    //  The huge header is refused (or the connection dropped), not waited for
    char *answer = s_read_all (huge, 5000);
    assert_non_null (answer);
    assert_true (*answer == 0 || strncmp (answer, "HTTP/1.1 4", 10) == 0);
    free (answer);
    close (huge);
    //  Garbage is refused with 400, or dropped
    answer = s_read_all (garbage, 5000);
    assert_non_null (answer);
    assert_true (*answer == 0 || strncmp (answer, "HTTP/1.1 400", 12) == 0);
    free (answer);
    close (garbage);
    //  The silent one is closed within the idle timeout (5 s), and so are
    //  the idle ones: a scrape is served again
    answer = s_read_all (silent, 9000);
    assert_non_null (answer);
    free (answer);
    close (silent);
    for (int index = 0; index < 20; index++)
        if (idle [index] >= 0)
            close (idle [index]);
    char *text = s_scrape (port);
    assert_int_equal (s_value (text, "drover_tasks_ended_total{end=\"succeeded\"}"), 40);
    free (text);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  A scraper that drips its header a byte a second, never idle long
//  enough for the idle timeout, is cut when its connection has been open
//  10 s in all, and a scrape is served meanwhile
static void
test_dripping_scraper_is_cut (void **state)
{
    int port;
    zsock_t *dealer;
    testutil_cluster_t *cluster = s_cluster (&port, &dealer, "0");
    int drip = s_connect (port);
    assert_true (drip >= 0);
    const char *start = "GET /metrics HTTP/1.1\r\nX-Slow: ";
    assert_true (send (drip, start, strlen (start), MSG_NOSIGNAL) > 0);
    int64_t opened = zclock_mono ();
    bool closed = false;
    bool scraped = false;
    while (!closed && zclock_mono () - opened < 15000) {
        struct pollfd item = { .fd = drip, .events = POLLIN };
        if (poll (&item, 1, 1000) == 1) {
            char byte;
            closed = recv (drip, &byte, 1, 0) <= 0 || (item.revents & (POLLHUP | POLLERR));
            if (!closed)        //  an answer (408, 400...) before the close is fine too
                closed = true;
        }
        else
        if (send (drip, "a", 1, MSG_NOSIGNAL) != 1)
            closed = true;
        if (!scraped) {
            char *text = s_scrape (port);
            scraped = s_value (text, "drover_workers{health=\"ok\"}") == 2;
            free (text);
        }
    }
    int64_t lasted = zclock_mono () - opened;
    close (drip);
    assert_true (scraped);
    assert_true (closed);
    assert_true (lasted >= 5000);           //  not the idle timeout: it never idled
    assert_true (lasted < 15000);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  A non-loopback metrics address stops the broker before it binds, unless
//  broker/metrics-public says it may be served there
static void
test_public_address_refused_unless_configured (void **state)
{
    char output [4096];
    const char *argv [] = { DROVER_BIN, "broker", "--durability", "off",
                            "--endpoint", "tcp://127.0.0.1:1", "--metrics", "0.0.0.0:9464", NULL };
    int status = testutil_run_output (argv, output, sizeof output, 10000);
    assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 2);
    const char *malformed [] = { DROVER_BIN, "broker", "--metrics", "127.0.0.1", NULL };
    status = testutil_run_output (malformed, output, sizeof output, 10000);
    assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 2);

    char *error = NULL;
    assert_int_equal (drover_config_check_metrics ("192.0.2.7:9464", false, &error), -1);
    assert_non_null (strstr (error, "broker/metrics-public"));
    zstr_free (&error);
    assert_int_equal (drover_config_check_metrics ("192.0.2.7:9464", true, &error), 0);
    assert_int_equal (drover_config_check_metrics ("[::]:9464", false, &error), -1);
    zstr_free (&error);
    assert_int_equal (drover_config_check_metrics ("[::1]:9464", false, &error), 0);
    assert_int_equal (drover_config_check_metrics ("localhost:9464", false, &error), 0);
    assert_int_equal (drover_config_check_metrics ("127.0.0.1:0", false, &error), -1);
    zstr_free (&error);
    assert_int_equal (drover_config_check_metrics ("", false, &error), 0);
}

//  The status line comes with the HTTP endpoint off too, with the counts
static void
test_status_line_without_http (void **state)
{
    const char *flags [] = { "--set", "health/heartbeat=200",
                             "--set", "broker/status-interval=200", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    testutil_cluster_add_worker (cluster, 0, "solo", 1, NULL);
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 1, 10000));
    uint64_t running = testutil_submit (dealer, testutil_submit_msg ("sleep 30", 0, 1,
                                                                      DROVER_SUBMIT_NOTIFY));
    char worker [DROVER_ID_MAX + 1] = "";
    assert_true (testutil_wait_running (dealer, running, worker, 10000));
    testutil_submit (dealer, testutil_submit_msg ("true", 0, 1, DROVER_SUBMIT_NOTIFY));
    assert_true (testutil_await_line (testutil_cluster_log (cluster, "broker"),
                 "metrics: status pending=1 running=1 workers=1 probation=0 low_disk=0 lost=0 "
                 "held=0 draining=0 procs_used=1 procs=1", 5000));
    assert_int_equal (testutil_count_lines_with (testutil_cluster_log (cluster, "broker"),
                                                 "metrics: serving"), 0);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  Wait until the metric first is served as 0, then scrape once and
//  assert each of others (NULL-terminated) is 0 too; returns that scrape
//  (caller frees)
static char *
s_scrape_zeros (int port, const char *first, const char *const others [])
{
    assert_true (s_await_value (port, first, 0, 5000));
    char *text = s_scrape (port);
    for (int index = 0; others [index]; index++)
        if (s_value (text, others [index]) != 0)
            fail_msg ("%s is not 0 in:\n%s", others [index], text);
    return text;
}

//  The value of one series as a real number (prices), or -1
static double
s_real_value (const char *text, const char *series)
{
    char needle [256];
    snprintf (needle, sizeof needle, "\n%s ", series);
    const char *at = strstr (text, needle);
    return at? strtod (at + strlen (needle), NULL): -1;
}

//  Scrape until each series [index] has values [index] at once, within
//  timeout msec; returns that scrape (caller frees), or fails showing the
//  last one
static char *
s_await_values (int port, const char *const series [], const long long values [], int timeout)
{
    int64_t deadline = zclock_mono () + timeout;
    while (true) {
        char *text = s_scrape (port);
        size_t index = 0;
        while (series [index] && s_value (text, series [index]) == values [index])
            index++;
        if (!series [index])
            return text;
        if (zclock_mono () > deadline)
            fail_msg ("%s is %lld, not %lld, in:\n%s", series [index],
                      s_value (text, series [index]), values [index], text);
        free (text);
        //  each scrape waits for a fresh round: it paces this loop
    }
}

//  Stop the `drover worker` processes a pool started for endpoint (a
//  broker stopped does not take them down)
static void
s_stop_pool_workers (const char *endpoint)
{
    pid_t pids [16];
    size_t count = testutil_worker_pids (endpoint, pids, 16);
    for (size_t index = 0; index < count; index++)
        testutil_stop (pids [index], 5000);
}

//  With an elastic pool, its gauges are served too: all 0 while nothing
//  waits; while an instance runs a task, one running instance, its price,
//  procs and memory, one task on one proc, one create; once the task has
//  ended, the instance idle with its procs and price still counted. promtool
//  finds nothing wrong with either scrape
static void
test_pool_gauges_served (void **state)
{
    int port;
    const char *address = s_metrics_address (&port);
    const char *flags [] = { "--metrics", address, "--set", "pool/type/huge/procs=64",
                             "--set", "pool/type/huge/memory=1G",
                             "--set", "pool/type/huge/price=2.5", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    const char *zeros [] = { "drover_pool_instances{state=\"booting\"}",
                             "drover_pool_price_per_hour", "drover_pool_creates_total",
                             "drover_pool_procs", "drover_pool_tasks_running", NULL };
    char *text = s_scrape_zeros (port, "drover_pool_instances{state=\"idle\"}", zeros);
    s_promtool (cluster, text);
    free (text);

    //  A task that runs until told: the pool makes an instance for it
    char release [PATH_MAX], script [PATH_MAX + 64];
    snprintf (release, sizeof release, "%s", testutil_cluster_log (cluster, "release"));
    snprintf (script, sizeof script, "while [ ! -e %s ]; do sleep 0.05; done", release);
    zsock_t *dealer = testutil_dealer (cluster);
    uint64_t task = testutil_submit (dealer, testutil_submit_msg (script, 0, 1,
                                                                  DROVER_SUBMIT_NOTIFY));
    const char *running [] = { "drover_pool_instances{state=\"running\"}",
                               "drover_pool_instances{state=\"booting\"}",
                               "drover_pool_instances{state=\"idle\"}",
                               "drover_pool_tasks_running", "drover_pool_procs",
                               "drover_pool_procs_used", "drover_pool_memory_bytes",
                               "drover_pool_creates_total", "drover_pool_destroys_total", NULL };
    const long long busy [] = { 1, 0, 0, 1, 64, 1, 1LL << 30, 1, 0 };
    text = s_await_values (port, running, busy, 30000);
    assert_true (s_real_value (text, "drover_pool_price_per_hour") == 2.5);
    s_promtool (cluster, text);
    free (text);

    //  The task ends: the instance is idle, still live and priced
    FILE *file = fopen (release, "w");
    assert_non_null (file);
    fclose (file);
    drover_msg_t *done = testutil_expect_done (dealer, task, DROVER_TASK_SUCCEEDED, 15000);
    drover_msg_destroy (&done);
    const long long idle [] = { 0, 0, 1, 0, 64, 0, 1LL << 30, 1, 0 };
    text = s_await_values (port, running, idle, 10000);
    assert_true (s_real_value (text, "drover_pool_price_per_hour") == 2.5);
    s_promtool (cluster, text);
    free (text);
    zsock_destroy (&dealer);
    char endpoint [64];
    strcpy (endpoint, cluster->endpoint);
    testutil_cluster_destroy (&cluster);
    s_stop_pool_workers (endpoint);
}

//  The reconciler answers every round: its gauges and counters are served
//  (no service yet: all 0, the restarts histogram empty), and promtool
//  finds nothing wrong with them
static void
test_service_gauges_served (void **state)
{
    int port;
    const char *address = s_metrics_address (&port);
    const char *flags [] = { "--metrics", address, NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    const char *zeros [] = { "drover_services{state=\"crashing\"}",
                             "drover_service_replicas{state=\"wanted\"}",
                             "drover_service_replicas_started_total",
                             "drover_service_terms_total",
                             "drover_service_replica_restarts_count", NULL };
    char *text = s_scrape_zeros (port, "drover_services{state=\"ok\"}", zeros);
    assert_non_null (strstr (text, "drover_service_replica_restarts_bucket{le=\"+Inf\"} 0"));
    s_promtool (cluster, text);
    free (text);
    testutil_cluster_destroy (&cluster);
}

//  Workers are counted by the protocol level their agent speaks, and what
//  the broker re-encodes for an older one is counted: a worker of level 1
//  (its HELLO of six fields, as drover 0.1 sent) beside two of this level
static void
test_worker_levels_counted (void **state)
{
    int port;
    zsock_t *dealer;
    testutil_cluster_t *cluster = s_cluster (&port, &dealer, "0");
    assert_true (s_await_value (port, "drover_workers_level{level=\"2\"}", 2, 10000));
    assert_int_equal (s_await_value (port, "drover_workers_level{level=\"1\"}", 0, 5000), true);
    zsock_t *elder = zsock_new_dealer (cluster->endpoint);
    assert_non_null (elder);
    drover_msg_t *hello = testutil_played_msg ("elder", 1, DROVER_MSG_WORKER_HELLO, 0, 0);
    hello->seq = 1;
    zframe_t *frame = drover_msg_encode_level (hello, 1);
    drover_msg_destroy (&hello);
    assert_int_equal (zframe_send (&frame, elder, 0), 0);
    drover_msg_t *welcome = testutil_recv_msg (elder, 5000);
    assert_non_null (welcome);
    assert_int_equal (welcome->id, DROVER_MSG_WORKER_WELCOME);
    assert_int_equal (welcome->implied, 1);     //  WELCOME as level 1 has it
    drover_msg_destroy (&welcome);
    assert_true (s_await_value (port, "drover_workers_level{level=\"1\"}", 1, 10000));
    char *text = s_scrape (port);
    assert_true (s_value (text, "drover_older_peer_messages_total{fate=\"fitted\"}") >= 1);
    assert_int_equal (s_value (text, "drover_older_peer_messages_total{fate=\"unsent\"}"), 0);
    free (text);
    zsock_destroy (&elder);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_worker_levels_counted),
        cmocka_unit_test (test_counts_match_what_was_done),
        cmocka_unit_test (test_pool_gauges_served),
        cmocka_unit_test (test_service_gauges_served),
        cmocka_unit_test (test_paths_and_methods),
        cmocka_unit_test (test_misbehaving_scrapers_stall_nothing),
        cmocka_unit_test (test_dripping_scraper_is_cut),
        cmocka_unit_test (test_public_address_refused_unless_configured),
        cmocka_unit_test (test_status_line_without_http),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
