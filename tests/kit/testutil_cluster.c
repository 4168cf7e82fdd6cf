/*  =========================================================================
    testutil_cluster - a loopback cluster for one test (see the header)
    =========================================================================
*/

#include "testutil_cluster.h"
#include <ctype.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>

//  GET /metrics from 127.0.0.1:port: the whole answer (caller frees)
static char *
s_get_metrics (int port)
{
    int fd = socket (AF_INET, SOCK_STREAM, 0);
    assert_true (fd >= 0);
    struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = htons (port) };
    address.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    assert_int_equal (connect (fd, (struct sockaddr *) &address, sizeof address), 0);
    const char *request = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    assert_int_equal (send (fd, request, strlen (request), MSG_NOSIGNAL), (ssize_t) strlen (request));
    size_t size = 1 << 16, used = 0;
    char *text = (char *) zmalloc (size);
    int64_t deadline = zclock_mono () + 10000;
    while (true) {
        struct pollfd item = { .fd = fd, .events = POLLIN };
        int64_t left = deadline - zclock_mono ();
        assert_true (left > 0 && poll (&item, 1, (int) left) == 1);
        if (used + 1 >= size) {
            size *= 2;
            text = (char *) realloc (text, size);
        }
        ssize_t got = recv (fd, text + used, size - used - 1, 0);
        if (got <= 0)
            break;              //  the whole answer came
        used += (size_t) got;
        text [used] = 0;
    }
    close (fd);
    assert_true (strncmp (text, "HTTP/1.1 200", 12) == 0);
    return text;
}

//  The value of one series in the broker's metrics, or -1
long long
testutil_metric (int port, const char *series)
{
    char *text = s_get_metrics (port);
    char needle [256];
    snprintf (needle, sizeof needle, "\n%s ", series);
    const char *at = strstr (text, needle);
    long long value = at? atoll (at + strlen (needle)): -1;
    free (text);
    return value;
}

//  Wait until a series reaches a value
bool
testutil_await_metric (int port, const char *series, long long value, bool exactly,
                       int timeout)
{
    int64_t deadline = zclock_mono () + timeout;
    long long seen = -1;
    while (zclock_mono () < deadline) {
        seen = testutil_metric (port, series);
        if (exactly? seen == value: seen >= value)
            return true;
        //  each scrape waits for a fresh round: it paces this loop
    }
    fprintf (stderr, "%s is %lld, not %s%lld\n", series, seen, exactly? "": "at least ", value);
    return false;
}

//  Start the broker on fresh ports; true once its log says ready, false
//  if it exited first (another process took a port between our check and
//  its bind), asserting on anything else
static bool
s_broker_start (testutil_cluster_t *self, const char *extra_flags [], bool fresh_ports)
{
    if (fresh_ports) {
        self->port = testutil_free_port_pair ();
        self->events_port = self->port + 1;
    }
    snprintf (self->endpoint, sizeof self->endpoint, "tcp://127.0.0.1:%d", self->port);
    snprintf (self->events, sizeof self->events, "tcp://127.0.0.1:%d", self->events_port);
    //  Its own state, in the log directory (removed with it): a flag of the
    //  test's own may name another
    char state_dir [128];
    snprintf (state_dir, sizeof state_dir, "%s/state", self->logdir);
    const char *argv [32] = { DROVER_BIN, "broker", "--endpoint", self->endpoint,
                              "--events", self->events, "--state-dir", state_dir };
    int argc = 8;
    for (int index = 0; extra_flags && extra_flags [index] && argc < 31; index++)
        argv [argc++] = extra_flags [index];
    argv [argc] = NULL;
    const char *log = testutil_cluster_log (self, "broker");
    unlink (log);
    self->broker = testutil_spawn (argv, log);
    assert_true (self->broker > 0);
    int64_t deadline = zclock_mono () + 10000;
    while (zclock_mono () < deadline) {
        char *text = testutil_slurp (log);
        bool ready = text && strstr (text, "broker: ready");
        free (text);
        if (ready)
            return true;
        if (waitpid (self->broker, NULL, WNOHANG) == self->broker) {
            self->broker = 0;
            return false;       //  it could not bind: try other ports
        }
        zclock_sleep (10);      //  paces reading the log; the deadline bounds the wait
    }
    fail_msg ("broker did not get ready within 10 s");
    return false;
}

//  Start a broker on fresh loopback ports with extra flags
testutil_cluster_t *
testutil_cluster_new (const char *extra_flags [])
{
    testutil_cluster_t *self = (testutil_cluster_t *) zmalloc (sizeof (testutil_cluster_t));
    snprintf (self->logdir, sizeof self->logdir, "/tmp/drover-test-XXXXXX");
    assert_non_null (mkdtemp (self->logdir));
    int tries = 0;
    while (!s_broker_start (self, extra_flags, true))
        assert_true (++tries < 5);
    return self;
}

//  Kill the broker with SIGKILL and start it again on the same ports and
//  state directory, with extra flags; its earlier log is kept as
//  broker-N.log (N from 1)
void
testutil_cluster_kill_restart (testutil_cluster_t *self, const char *extra_flags [])
{
    assert_true (self->broker > 0);
    kill (self->broker, SIGKILL);
    assert_true (testutil_wait_exit (self->broker, 5000) != -1);
    self->broker = 0;
    for (int restarts = 1; ; restarts++) {
        char name [32];
        snprintf (name, sizeof name, "broker-%d", restarts);
        char kept [PATH_MAX];
        snprintf (kept, sizeof kept, "%s", testutil_cluster_log (self, name));
        if (access (kept, F_OK) == 0)
            continue;
        assert_int_equal (rename (testutil_cluster_log (self, "broker"), kept), 0);
        break;
    }
    assert_true (s_broker_start (self, extra_flags, false));
}

//  Start a worker agent for the cluster's broker
void
testutil_cluster_add_worker (testutil_cluster_t *self, int slot, const char *id,
                             int procs, const char *extra_flags [])
{
    assert_true (slot >= 0 && slot < 8);
    char procs_text [16];
    snprintf (procs_text, sizeof procs_text, "%d", procs);
    const char *argv [32] = { DROVER_BIN, "worker", "--broker", self->endpoint,
                              "--id", id, "--procs", procs_text };
    int argc = 8;
    for (int index = 0; extra_flags && extra_flags [index] && argc < 31; index++)
        argv [argc++] = extra_flags [index];
    argv [argc] = NULL;
    zstr_free (&self->worker_ids [slot]);
    self->worker_ids [slot] = strdup (id);
    self->workers [slot] = testutil_spawn (argv, testutil_cluster_log (self, id));
    assert_true (self->workers [slot] > 0);
}

//  Stop everything; the broker must exit 0 on SIGTERM
void
testutil_cluster_destroy (testutil_cluster_t **self_p)
{
    testutil_cluster_t *self = *self_p;
    if (!self)
        return;
    for (int slot = 0; slot < 8; slot++) {
        if (self->workers [slot] > 0) {
            kill (self->workers [slot], SIGCONT);   //  in case a test stopped it
            testutil_stop (self->workers [slot], 5000);
        }
        zstr_free (&self->worker_ids [slot]);
    }
    if (self->broker > 0) {
        kill (self->broker, SIGTERM);
        int status = testutil_wait_exit (self->broker, 5000);
        if (status == -1)
            testutil_stop (self->broker, 100);
        assert_true (status != -1 && WIFEXITED (status) && WEXITSTATUS (status) == 0);
    }
    testutil_remove_tree (self->logdir);
    free (self);
    *self_p = NULL;
}

//  Log path for a named process
const char *
testutil_cluster_log (testutil_cluster_t *self, const char *name)
{
    static char path [128];
    snprintf (path, sizeof path, "%s/%s.log", self->logdir, name);
    return path;
}

//  Wait until a process's log (testutil_cluster_log) holds needle; false
//  after timeout msec
bool
testutil_cluster_await_log (testutil_cluster_t *self, const char *name, const char *needle,
                            int timeout)
{
    int64_t deadline = zclock_mono () + timeout;
    while (true) {
        char *log = testutil_slurp (testutil_cluster_log (self, name));
        bool found = log && strstr (log, needle);
        zstr_free (&log);
        if (found)
            return true;
        if (zclock_mono () >= deadline)
            return false;
        zclock_sleep (20);          //  polling a file, with a deadline
    }
}

//  Open a DEALER to the cluster's broker that says no level: a peer of
//  level 1, answered with level 1's fields (and whose first request is
//  its first message, e.g. to be refused for want of connections)
zsock_t *
testutil_dealer_level_1 (testutil_cluster_t *self)
{
    zsock_t *dealer = zsock_new (ZMQ_DEALER);
    assert_non_null (dealer);
    zsock_set_linger (dealer, 0);
    assert_int_equal (zsock_connect (dealer, "%s", self->endpoint), 0);
    return dealer;
}

//  A DEALER connected to the broker, its level said
zsock_t *
testutil_dealer (testutil_cluster_t *self)
{
    zsock_t *dealer = testutil_dealer_level_1 (self);
    testutil_say_level (dealer, 5000);
    return dealer;
}

//  Subscribe to the cluster's events and wait until the subscription holds
zsock_t *
testutil_cluster_sub (testutil_cluster_t *self, zsock_t *dealer, const char *topic,
                      const char *worker)
{
    zsock_t *sub = zsock_new_sub (self->events, topic);
    assert_non_null (sub);
    assert_true (testutil_await_subscription (sub, dealer, worker));
    return sub;
}

//  Run `drover --broker endpoint --broker-timeout 10 ARGS...` (args
//  NULL-terminated) as a user would, into run
void
testutil_cli (const char *endpoint, const char *const args [], testutil_cli_t *run)
{
    const char *argv [40] = { DROVER_BIN, "--broker", endpoint, "--broker-timeout", "10" };
    int argc = 5;
    for (int index = 0; args [index] && argc < 39; index++)
        argv [argc++] = args [index];
    argv [argc] = NULL;
    int status = testutil_run_cli (argv, run->out, sizeof run->out, run->err, sizeof run->err,
                                   20000);
    run->status = status == -1? -1: WIFEXITED (status)? WEXITSTATUS (status)
                                   : 128 + WTERMSIG (status);
}

//  Assert a run exited with status and its stream holds needle
void
testutil_cli_expect (const testutil_cli_t *run, int status, const char *stream,
                     const char *needle)
{
    if (run->status != status || !strstr (stream, needle))
        fail_msg ("expected status %d and '%s'; got status %d\nstdout:\n%s\nstderr:\n%s",
                  status, needle, run->status, run->out, run->err);
}

//  A tiny JSON checker: the end of the one JSON value at text, or NULL
//  (RFC 8259, what the CLI prints: objects, arrays, strings, numbers,
//  true/false/null)
static const char *
s_json_value (const char *text, int depth)
{
    while (isspace ((unsigned char) *text))
        text++;
    if (depth > 32)
        return NULL;
    if (*text == '{' || *text == '[') {
        char close = *text == '{'? '}': ']';
        bool object = *text == '{';
        for (text++; isspace ((unsigned char) *text); text++)
            ;
        if (*text == close)
            return text + 1;
        while (true) {
            if (object) {
                while (isspace ((unsigned char) *text))
                    text++;
                if (*text != '"' || !(text = s_json_value (text, depth + 1)))
                    return NULL;
                while (isspace ((unsigned char) *text))
                    text++;
                if (*text++ != ':')
                    return NULL;
            }
            if (!(text = s_json_value (text, depth + 1)))
                return NULL;
            while (isspace ((unsigned char) *text))
                text++;
            if (*text == close)
                return text + 1;
            if (*text++ != ',')
                return NULL;
        }
    }
    if (*text == '"') {
        for (text++; *text != '"'; text++) {
            if ((unsigned char) *text < 0x20)
                return NULL;
            if (*text == '\\') {
                text++;
                if (*text == 'u') {
                    for (int digit = 1; digit <= 4; digit++)
                        if (!isxdigit ((unsigned char) text [digit]))
                            return NULL;
                    text += 4;
                }
                else
                if (!*text || !strchr ("\"\\/bfnrt", *text))
                    return NULL;
            }
        }
        return text + 1;
    }
    if (strncmp (text, "true", 4) == 0 || strncmp (text, "null", 4) == 0)
        return text + 4;
    if (strncmp (text, "false", 5) == 0)
        return text + 5;
    const char *start = text;
    if (*text == '-')
        text++;
    if (!isdigit ((unsigned char) *text))
        return NULL;
    while (isdigit ((unsigned char) *text) || *text == '.' || *text == 'e' || *text == 'E'
       ||  ((*text == '+' || *text == '-') && (text [-1] == 'e' || text [-1] == 'E')))
        text++;
    return text > start? text: NULL;
}

//  Assert text is exactly one JSON document (RFC 8259, as the CLI prints
//  it) and a newline; if not, fail showing it
void
testutil_assert_json (const char *text)
{
    const char *end = s_json_value (text, 0);
    if (!end || strspn (end, "\n") != strlen (end))
        fail_msg ("not one JSON document:\n%s", text);
}
