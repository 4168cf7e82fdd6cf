/*  =========================================================================
    testutil - helpers shared by the tests
    =========================================================================
*/

#define _GNU_SOURCE             //  strcasestr
#include "testutil.h"
#include "drover_taskrecord.h"
#include <fcntl.h>
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <arpa/inet.h>

//  Ask the kernel for an ephemeral port on loopback, then release it
int
testutil_free_port (void)
{
    int fd = socket (AF_INET, SOCK_STREAM, 0);
    assert (fd >= 0);
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = 0 };
    addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    int rc = bind (fd, (struct sockaddr *) &addr, sizeof addr);
    assert (rc == 0);
    socklen_t len = sizeof addr;
    rc = getsockname (fd, (struct sockaddr *) &addr, &len);
    assert (rc == 0);
    close (fd);
    return ntohs (addr.sin_port);
}

//  True if port is free on 127.0.0.1 (a bind works)
static bool
s_port_free (int port)
{
    int fd = socket (AF_INET, SOCK_STREAM, 0);
    assert (fd >= 0);
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) port) };
    addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    bool free_ = bind (fd, (struct sockaddr *) &addr, sizeof addr) == 0;
    close (fd);
    return free_;
}

//  A free port whose next one is free too: a broker's ROUTER and, on the
//  next port, its events, as `drover events` finds them
int
testutil_free_port_pair (void)
{
    while (true) {
        int port = testutil_free_port ();
        if (port < 65535 && s_port_free (port + 1))
            return port;
    }
}

//  Fork and exec argv with output going to log_path
pid_t
testutil_spawn (const char *const argv [], const char *log_path)
{
    pid_t pid = fork ();
    if (pid != 0)
        return pid;             //  parent (or -1)
    if (log_path) {
        int fd = open (log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd >= 0) {
            dup2 (fd, 1);
            dup2 (fd, 2);
            close (fd);
        }
    }
    execv (argv [0], (char *const *) argv);
    _exit (127);
}

//  Poll waitpid until the child exits or the deadline passes
int
testutil_wait_exit (pid_t pid, int timeout)
{
    int64_t deadline = zclock_mono () + timeout;
    while (true) {
        int status;
        pid_t rc = waitpid (pid, &status, WNOHANG);
        if (rc == pid)
            return status;
        if (rc < 0 || zclock_mono () >= deadline)
            return -1;
        zclock_sleep (10);      //  polling a child's exit, not settling state
    }
}

//  Terminate politely, then firmly
void
testutil_stop (pid_t pid, int timeout)
{
    if (pid <= 0)
        return;
    kill (pid, SIGTERM);
    if (testutil_wait_exit (pid, timeout) == -1) {
        kill (pid, SIGKILL);
        waitpid (pid, NULL, 0);
    }
}

static int
    s_run_output (const char *const argv [], char *output, size_t size, int timeout,
                  int err_fd);

//  Read the child's stdout on a pipe until it closes it or the deadline
int
testutil_run_output (const char *const argv [], char *output, size_t size, int timeout)
{
    return s_run_output (argv, output, size, timeout, -1);
}

//  Run a command as a user would without a terminal: stdin /dev/null,
//  stdout and stderr apart
int
testutil_run_cli (const char *const argv [], char *output, size_t size, char *errors,
                  size_t errors_size, int timeout)
{
    char path [] = "/tmp/drover-cli-stderr-XXXXXX";
    int fd = mkstemp (path);
    assert_true (fd >= 0);
    unlink (path);
    int status = s_run_output (argv, output, size, timeout, fd);
    ssize_t got = pread (fd, errors, errors_size - 1, 0);
    errors [got > 0? got: 0] = 0;
    close (fd);
    return status;
}

//  Run argv with its stdout on a pipe read into output, its stderr to
//  err_fd (-1: inherited; then stdin is inherited too, else /dev/null)
static int
s_run_output (const char *const argv [], char *output, size_t size, int timeout, int err_fd)
{
    int fds [2];
    assert_int_equal (pipe (fds), 0);
    fflush (stdout);
    fflush (stderr);
    pid_t pid = fork ();
    assert_true (pid >= 0);
    if (pid == 0) {
        dup2 (fds [1], STDOUT_FILENO);
        close (fds [0]);
        close (fds [1]);
        if (err_fd >= 0) {
            dup2 (err_fd, STDERR_FILENO);
            int null = open ("/dev/null", O_RDONLY);
            if (null >= 0)
                dup2 (null, STDIN_FILENO);
        }
        execv (argv [0], (char *const *) argv);
        _exit (127);
    }
    close (fds [1]);
    size_t used = 0;
    int64_t deadline = zclock_mono () + timeout;
    bool killed = false;
    while (true) {
        int64_t left = deadline - zclock_mono ();
        if (left <= 0) {
            kill (pid, SIGTERM);        //  benchmarks stop their brokers on SIGTERM
            killed = true;
            break;
        }
        struct pollfd item = { .fd = fds [0], .events = POLLIN };
        if (poll (&item, 1, (int) left) <= 0)
            continue;
        char buffer [4096];
        ssize_t got = read (fds [0], buffer, sizeof buffer);
        if (got <= 0)
            break;                      //  end of output: the program is done
        size_t take = (size_t) got < size - 1 - used? (size_t) got: size - 1 - used;
        memcpy (output + used, buffer, take);
        used += take;
    }
    output [used] = 0;
    close (fds [0]);
    int status = 0;
    int64_t grace = zclock_mono () + 10000;
    while (waitpid (pid, &status, WNOHANG) == 0) {
        if (zclock_mono () >= grace)
            kill (pid, SIGKILL);        //  did not stop on SIGTERM either
        zclock_sleep (10);              //  polling the child's exit, not settling
    }
    return killed? -1: status;
}

//  Run the real `drover keygen`
void
testutil_keygen (const char *dir, const char *name)
{
    testutil_keygen_worker (dir, name, NULL);
}

//  Run the real `drover keygen --worker-ids`
void
testutil_keygen_worker (const char *dir, const char *name, const char *worker_ids)
{
    const char *argv [] = { DROVER_BIN, "keygen", name, "--dir", dir,
                            worker_ids? "--worker-ids": NULL, worker_ids, NULL };
    char output [1024];
    int status = testutil_run_output (argv, output, sizeof output, 10000);
    if (!(status != -1 && WIFEXITED (status) && WEXITSTATUS (status) == 0))
        fail_msg ("drover keygen %s --dir %s failed: status %d, output: %s", name, dir,
                  status, output);
}

//  Check a string we own, then free it
void
testutil_assert_and_free (char *string, const char *expected)
{
    assert_non_null (string);
    assert_string_equal (string, expected);
    zstr_free (&string);
}

//  Read a file into memory
char *
testutil_slurp (const char *path)
{
    FILE *file = fopen (path, "rb");
    if (!file)
        return NULL;
    fseek (file, 0, SEEK_END);
    long size = ftell (file);
    fseek (file, 0, SEEK_SET);
    char *data = (char *) zmalloc (size + 1);
    size_t got = fread (data, 1, size, file);
    data [got] = 0;
    fclose (file);
    return data;
}

//  Count the lines of a file that contain needle, case-insensitively
int
testutil_count_lines_with (const char *path, const char *needle)
{
    char *text = testutil_slurp (path);
    int count = 0;
    char *saved = NULL;
    for (char *line = text? strtok_r (text, "\n", &saved): NULL; line;
         line = strtok_r (NULL, "\n", &saved))
        count += strcasestr (line, needle) != NULL;
    free (text);
    return count;
}

//  Read the file again until the line shows or the deadline passes
bool
testutil_await_line (const char *path, const char *needle, int timeout)
{
    int64_t deadline = zclock_mono () + timeout;
    while (testutil_count_lines_with (path, needle) == 0) {
        if (zclock_mono () >= deadline)
            return false;
        zclock_sleep (10);      //  paces reading the file; the deadline bounds the wait
    }
    return true;
}

//  A process's resident set, from /proc/PID/status
size_t
testutil_rss (pid_t pid)
{
    char path [64];
    snprintf (path, sizeof path, "/proc/%d/status", (int) pid);
    FILE *file = fopen (path, "r");
    assert_non_null (file);
    char line [256];
    size_t kib = 0;
    while (fgets (line, sizeof line, file))
        if (strncmp (line, "VmRSS:", 6) == 0)
            kib = strtoul (line + 6, NULL, 10);
    fclose (file);
    assert_true (kib > 0);
    return kib * 1024;
}

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

//  Wait for one message with a deadline
zmsg_t *
testutil_recv (zsock_t *sock, int timeout)
{
    zpoller_t *poller = zpoller_new (sock, NULL);
    zmsg_t *msg = NULL;
    if (zpoller_wait (poller, timeout) == sock)
        msg = zmsg_recv (sock);
    zpoller_destroy (&poller);
    return msg;
}

//  ---------------------------------------------------------------------
//  Integration helpers

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

//  Remove a log directory and its files, and the broker's state directory
//  in it; reached only when a test passed, since a failed assertion skips
//  teardown, so failures keep their logs
void
testutil_remove_tree (const char *logdir)
{
    DIR *dir = opendir (logdir);
    if (!dir)
        return;
    struct dirent *entry;
    while ((entry = readdir (dir)))
        if (entry->d_name [0] != '.') {
            char path [PATH_MAX];
            snprintf (path, sizeof path, "%s/%s", logdir, entry->d_name);
            if (entry->d_type == DT_DIR)
                testutil_remove_tree (path);
            else
                unlink (path);
        }
    closedir (dir);
    rmdir (logdir);
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

//  A DEALER connected to the broker
zsock_t *
testutil_dealer (testutil_cluster_t *self)
{
    zsock_t *dealer = zsock_new (ZMQ_DEALER);
    assert_non_null (dealer);
    zsock_set_linger (dealer, 0);
    assert_int_equal (zsock_connect (dealer, "%s", self->endpoint), 0);
    testutil_say_level (dealer, 5000);
    return dealer;
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

//  Say this codec's protocol level on a client's dealer (CLIENT HELLO)
//  and take the broker's CLIENT WELCOME, so that the broker answers it
//  with every field of that level; asserts it comes within timeout msec
void
testutil_say_level (zsock_t *dealer, int timeout)
{
    drover_msg_t *hello = drover_msg_new (DROVER_MSG_CLIENT_HELLO);
    hello->seq = 0xfffffff0;
    testutil_send (dealer, &hello);
    drover_msg_t *welcome = testutil_recv_msg (dealer, timeout);
    assert_non_null (welcome);
    assert_int_equal (welcome->id, DROVER_MSG_CLIENT_WELCOME);
    assert_int_equal (welcome->level, DROVER_MSG_LEVEL);
    drover_msg_destroy (&welcome);
}

//  Encode and send
void
testutil_send (zsock_t *dealer, drover_msg_t **msg_p)
{
    zframe_t *frame = drover_msg_encode (*msg_p);
    assert_non_null (frame);
    assert_int_equal (zframe_send (&frame, dealer, 0), 0);
    drover_msg_destroy (msg_p);
}

//  TASK DONEs that arrived while a request waited for its reply, kept
//  for the next receive on the same socket, so that nothing is lost
typedef struct {
    zsock_t *dealer;            //  socket it arrived on
    drover_msg_t *msg;          //  the TASK DONE
} s_stashed_t;

static zlistx_t *s_stash = NULL;

//  Take the oldest stashed message for this socket, or NULL
static drover_msg_t *
s_unstash (zsock_t *dealer)
{
    if (!s_stash)
        return NULL;
    for (s_stashed_t *item = (s_stashed_t *) zlistx_first (s_stash); item;
         item = (s_stashed_t *) zlistx_next (s_stash))
        if (item->dealer == dealer) {
            drover_msg_t *msg = item->msg;
            zlistx_delete (s_stash, zlistx_cursor (s_stash));
            free (item);
            return msg;
        }
    return NULL;
}

//  Keep a message for a later receive on this socket
static void
s_stash_msg (zsock_t *dealer, drover_msg_t *msg)
{
    if (!s_stash)
        s_stash = zlistx_new ();
    s_stashed_t *item = (s_stashed_t *) zmalloc (sizeof (s_stashed_t));
    item->dealer = dealer;
    item->msg = msg;
    zlistx_add_end (s_stash, item);
}

//  Receive and decode with a deadline, stashed messages first
drover_msg_t *
testutil_recv_msg (zsock_t *dealer, int timeout)
{
    drover_msg_t *stashed = s_unstash (dealer);
    if (stashed)
        return stashed;
    zmsg_t *raw = testutil_recv (dealer, timeout);
    if (!raw)
        return NULL;
    assert_int_equal (zmsg_size (raw), 1);
    zframe_t *frame = zmsg_first (raw);
    drover_msg_t *msg = drover_msg_new (0);
    int rc = drover_msg_decode (msg, zframe_data (frame), zframe_size (frame));
    if (rc)
        fprintf (stderr, "testutil: broker sent undecodable message: %s\n", msg->error);
    assert_int_equal (rc, 0);
    zmsg_destroy (&raw);
    return msg;
}

//  Receive the next message on a played peer and assert its id
drover_msg_t *
testutil_expect_msg (zsock_t *peer, int id, int timeout)
{
    drover_msg_t *msg = testutil_recv_msg (peer, timeout);
    assert_non_null (msg);
    if (msg->id != id)
        fprintf (stderr, "expected %s, got %s code=%u reason=%s\n", drover_msg_name (id),
                 drover_msg_name (msg->id), msg->code, msg->reason? msg->reason: "");
    assert_int_equal (msg->id, id);
    return msg;
}

//  Make a message of a played worker with a HELLO's and a report's fields
drover_msg_t *
testutil_played_msg (const char *worker, uint32_t procs, int id, uint64_t task,
                     uint32_t attempt)
{
    drover_msg_t *msg = drover_msg_new (id);
    snprintf (msg->worker, sizeof msg->worker, "%s", worker);
    msg->epoch = 1;
    msg->procs = procs;
    msg->mem = 1ULL << 30;
    msg->task = task;
    msg->attempt = attempt;
    msg->outcome = DROVER_OUTCOME_EXITED;
    return msg;
}

//  Request and reply by seq; a TASK DONE arriving meanwhile is stashed
//  for a later testutil_recv_msg, anything else unrelated is dropped
drover_msg_t *
testutil_request (zsock_t *dealer, drover_msg_t **msg_p, int timeout)
{
    static uint32_t seq = 1000000;
    uint32_t expected = (*msg_p)->seq? (*msg_p)->seq: ++seq;
    (*msg_p)->seq = expected;
    testutil_send (dealer, msg_p);
    drover_msg_t *reply = NULL;
    int64_t deadline = zclock_mono () + timeout;
    while (!reply && zclock_mono () < deadline) {
        zmsg_t *raw = testutil_recv (dealer, (int) (deadline - zclock_mono ()));
        if (!raw)
            break;
        zframe_t *frame = zmsg_first (raw);
        drover_msg_t *msg = drover_msg_new (0);
        assert_int_equal (drover_msg_decode (msg, zframe_data (frame), zframe_size (frame)), 0);
        zmsg_destroy (&raw);
        if (msg->id == DROVER_MSG_TASK_DONE)
            s_stash_msg (dealer, msg);
        else
        if (msg->seq == expected)
            reply = msg;
        else
            drover_msg_destroy (&msg);
    }
    return reply;
}

//  Take every pending action of a task table
testutil_actions_t *
testutil_take_actions (drover_assign_t *table)
{
    static testutil_actions_t actions;
    actions.count = 0;
    const drover_action_t *action;
    while ((action = drover_assign_next_action (table))) {
        assert_true (actions.count < TESTUTIL_MAX_ACTIONS);
        actions.items [actions.count++] = *action;
    }
    return &actions;
}

//  Find the nth action of a type about a task (task 0: any), or NULL
drover_action_t *
testutil_find_action (testutil_actions_t *actions, int type, uint64_t task, int nth)
{
    for (int index = 0; index < actions->count; index++) {
        drover_action_t *action = &actions->items [index];
        if (action->type == type && (task == 0 || action->task == task) && nth-- == 0)
            return action;
    }
    return NULL;
}

//  Note one SEND or REPLY record as a decoded message (drover_outbox_each
//  calls this)
static void
s_read_send (void *arg, drover_record_t *record)
{
    testutil_sends_t *sends = (testutil_sends_t *) arg;
    assert_true (record->kind == DROVER_RECORD_SEND || record->kind == DROVER_RECORD_REPLY);
    assert_true (sends->count < TESTUTIL_MAX_SENDS);
    drover_msg_t *msg = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (msg, zframe_data (record->payload),
                                         zframe_size (record->payload)), 0);
    snprintf (sends->workers [sends->count], DROVER_ID_MAX + 1, "%s", record->worker);
    sends->msgs [sends->count++] = msg;
}

//  Read every record the outbox holds into sends, decoded
void
testutil_read_sends (drover_outbox_t *outbox, testutil_sends_t *sends)
{
    assert_int_equal (sends->count, 0);
    drover_outbox_each (outbox, s_read_send, sends);
}

//  Destroy the messages sends holds
void
testutil_sends_reset (testutil_sends_t *sends)
{
    for (size_t index = 0; index < sends->count; index++)
        drover_msg_destroy (&sends->msgs [index]);
    sends->count = 0;
}

//  A TASK SUBMIT for sh -c script
drover_msg_t *
testutil_submit_msg (const char *script, int priority, int procs, uint32_t flags)
{
    drover_exec_t *exec = drover_exec_new ();
    const char *argv [] = { "sh", "-c", script };
    assert_int_equal (drover_exec_set_argv (exec, 3, argv), 0);
    size_t size;
    byte *body = drover_exec_encode (exec, &size);
    assert_non_null (body);
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    msg->priority = priority;
    msg->procs = procs;
    msg->flags = flags;
    drover_msg_set_body (msg, body, size);
    free (body);
    drover_exec_destroy (&exec);
    return msg;
}

//  Make a task record as a submit would
struct _drover_taskrecord_t *
testutil_taskrecord (uint64_t id, int priority, int procs, uint64_t mem)
{
    drover_msg_t *msg = testutil_submit_msg ("true", priority, procs, 0);
    msg->mem = mem;
    drover_taskrecord_t *task = drover_taskrecord_new (id, msg);
    drover_msg_destroy (&msg);
    return task;
}

//  Wait on a condition the broker reports, asking again every 50 msec
static bool
s_wait_until (int timeout, bool (*check) (zsock_t *, void *), zsock_t *dealer, void *arg)
{
    int64_t deadline = zclock_mono () + timeout;
    while (zclock_mono () < deadline) {
        if (check (dealer, arg))
            return true;
        zclock_sleep (50);      //  paces the questions; the deadline bounds the wait
    }
    return false;
}

//  Check: at least *count workers in health OK
static bool
s_check_workers (zsock_t *dealer, void *arg)
{
    drover_msg_t *request = drover_msg_new (DROVER_MSG_WORKER_LIST);
    drover_msg_t *reply = testutil_request (dealer, &request, 2000);
    bool done = false;
    if (reply && reply->id == DROVER_MSG_WORKER_TABLE) {
        int healthy = 0;
        for (uint32_t row = 0; row < reply->nrows; row++)
            healthy += reply->worker_rows [row].health == DROVER_HEALTH_OK;
        done = healthy >= *(int *) arg;
    }
    drover_msg_destroy (&reply);
    return done;
}

bool
testutil_wait_workers (zsock_t *dealer, int count, int timeout)
{
    return s_wait_until (timeout, s_check_workers, dealer, &count);
}

//  Check: the worker has a row that match accepts
typedef struct {
    const char *worker;         //  worker asked about
    testutil_row_match_fn *match;   //  what else its row must say
    void *arg;                  //  match's argument
} s_row_t;

static bool
s_check_row (zsock_t *dealer, void *arg)
{
    s_row_t *wanted = (s_row_t *) arg;
    drover_msg_t *request = drover_msg_new (DROVER_MSG_WORKER_LIST);
    drover_msg_t *reply = testutil_request (dealer, &request, 2000);
    bool done = false;
    for (uint32_t row = 0; reply && reply->id == DROVER_MSG_WORKER_TABLE && row < reply->nrows; row++)
        done |= streq (reply->worker_rows [row].id, wanted->worker)
             && wanted->match (&reply->worker_rows [row], wanted->arg);
    drover_msg_destroy (&reply);
    return done;
}

bool
testutil_wait_worker_row (zsock_t *dealer, const char *worker, testutil_row_match_fn *match,
                          void *arg, int timeout)
{
    s_row_t wanted = { worker, match, arg };
    return s_wait_until (timeout, s_check_row, dealer, &wanted);
}

//  Match a row reserved for the task *arg
static bool
s_reserved_for (const drover_worker_row_t *row, void *arg)
{
    return row->reserved == *(uint64_t *) arg;
}

bool
testutil_wait_reserved (zsock_t *dealer, const char *worker, uint64_t task, int timeout)
{
    return testutil_wait_worker_row (dealer, worker, s_reserved_for, &task, timeout);
}

//  Check: the task is RUNNING; copies its worker
typedef struct {
    uint64_t task;              //  task asked about
    char *worker;               //  filled with its worker id
} s_running_t;

static bool
s_check_running (zsock_t *dealer, void *arg)
{
    s_running_t *running = (s_running_t *) arg;
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_LIST);
    request->limit = DROVER_ROWS_MAX;
    request->state = DROVER_TASK_RUNNING;
    drover_msg_t *reply = testutil_request (dealer, &request, 2000);
    bool done = false;
    for (uint32_t row = 0; reply && row < reply->nrows; row++)
        if (reply->task_rows [row].task == running->task
        &&  reply->task_rows [row].state == DROVER_TASK_RUNNING) {
            strcpy (running->worker, reply->task_rows [row].worker);
            done = true;
        }
    drover_msg_destroy (&reply);
    return done;
}

bool
testutil_wait_running (zsock_t *dealer, uint64_t task, char *worker, int timeout)
{
    s_running_t running = { task, worker };
    return s_wait_until (timeout, s_check_running, dealer, &running);
}

//  Submit one task and return its id (asserts it is accepted)
uint64_t
testutil_submit (zsock_t *dealer, drover_msg_t *submit)
{
    drover_msg_t *reply = testutil_request (dealer, &submit, 5000);
    assert_non_null (reply);
    if (reply->id == DROVER_MSG_ERROR)
        fprintf (stderr, "submit refused: %d %s\n", reply->code, reply->reason);
    assert_int_equal (reply->id, DROVER_MSG_TASK_ACCEPTED);
    uint64_t task = reply->task;
    assert_true (task > 0);
    drover_msg_destroy (&reply);
    return task;
}

//  Collect the TASK DONE of each of count tasks into done [], asserting
//  that none arrives twice and nothing else arrives; false on timeout
bool
testutil_collect (zsock_t *dealer, const uint64_t *tasks, drover_msg_t **done, int count, int timeout)
{
    int missing = count;
    int64_t deadline = zclock_mono () + timeout;
    while (missing && zclock_mono () < deadline) {
        drover_msg_t *msg = testutil_recv_msg (dealer, (int) (deadline - zclock_mono ()));
        if (!msg)
            continue;
        assert_int_equal (msg->id, DROVER_MSG_TASK_DONE);
        int index = 0;
        while (index < count && tasks [index] != msg->task)
            index++;
        assert_true (index < count);
        assert_null (done [index]);
        done [index] = msg;
        missing--;
    }
    return missing == 0;
}

//  Wait for the TASK DONE of one task
drover_msg_t *
testutil_wait_done (zsock_t *dealer, uint64_t task, int timeout)
{
    drover_msg_t *done = NULL;
    testutil_collect (dealer, &task, &done, 1, timeout);
    return done;
}

//  Wait for the TASK DONE of one task and check its state, saying how it
//  ended when that is not the state expected
drover_msg_t *
testutil_expect_done (zsock_t *dealer, uint64_t task, int state, int timeout)
{
    drover_msg_t *done = testutil_wait_done (dealer, task, timeout);
    assert_non_null (done);
    if (done->state != state)
        fprintf (stderr, "task %" PRIu64 " ended %s on %s: %s\n", task,
                 drover_task_state_name (done->state), done->worker,
                 done->reason? done->reason: "");
    assert_int_equal (done->state, state);
    return done;
}



//  ---------------------------------------------------------------------
//  Playing the broker main to one actor

//  Commands an actor said in a BATCH and the test has not read yet, and
//  the socket they came from (a test plays the main to one actor at a
//  time, and maybe the other end of its link): one for the actor's pipe,
//  one for a link
typedef struct {
    zlist_t *commands;          //  zmsg_t, in the order said
    void *from;                 //  the actor or link they came from
} s_pending_t;
static s_pending_t s_pending [2];

//  Forget the pending commands of one socket
static void
s_pending_clear (s_pending_t *pending)
{
    zmsg_t *msg;
    while (pending->commands && (msg = (zmsg_t *) zlist_pop (pending->commands)))
        zmsg_destroy (&msg);
}

//  Destroy an actor whose commands the tests read, forgetting those of
//  them still pending: a later actor may be made at the same address, and
//  must not be taken for this one (its leftover commands read as its own)
void
testutil_actor_destroy (zactor_t **actor_p)
{
    assert (actor_p);
    for (int index = 0; index < 2; index++)
        if (*actor_p && s_pending [index].from == (void *) *actor_p) {
            s_pending_clear (&s_pending [index]);
            s_pending [index].from = NULL;
        }
    zactor_destroy (actor_p);
}

//  Forget every pending command (at exit)
static void
s_pending_purge (void)
{
    for (int index = 0; index < 2; index++) {
        s_pending_clear (&s_pending [index]);
        zlist_destroy (&s_pending [index].commands);
    }
}

//  Keep a copy of one control command of a BATCH (drover_outbox_receive
//  calls this)
static void
s_pend (void *arg, zmsg_t *command)
{
    zlist_append ((zlist_t *) arg, zmsg_dup (command));
}

//  Keep one record of a BATCH as the frames ACTORS.md lists for its
//  command, so a test reads every command alike (the pointer a MSG hands
//  off is not expected from an actor: actors say SEND, QUEUE, TAKE, ASSIGN
//  and FREE; a CHANGE or RESTORE as topic task attempt worker reason state
//  and "submit" / "done" for what it carries, "" if not; a MSG as route and
//  the message encoded)
static void
s_pend_record (void *arg, drover_record_t *record)
{
    zmsg_t *command = zmsg_new ();
    zmsg_addstr (command, drover_record_word (record));
    if (record->kind == DROVER_RECORD_SEND || record->kind == DROVER_RECORD_REPLY) {
        zmsg_addmem (command, drover_record_route (record), record->route_size);
        zmsg_append (command, &record->payload);
        zmsg_addstr (command, record->worker);
    }
    else
    if (record->kind == DROVER_RECORD_QUEUE) {
        zmsg_addstrf (command, "%" PRIu64, record->task);
        zmsg_addstrf (command, "%d", record->priority);
        zmsg_addstrf (command, "%u", record->procs);
        zmsg_addstrf (command, "%" PRIu64, record->mem);
        zmsg_addstr (command, drover_record_labels (record));
    }
    else
    if (record->kind == DROVER_RECORD_TAKE) {
        zmsg_addstrf (command, "%" PRIu64, record->lease);
        zmsg_addstrf (command, "%" PRIu64, record->task);
        zmsg_addstrf (command, "%u", record->procs);
        zmsg_addstrf (command, "%" PRIu64, record->mem);
        zmsg_addstr (command, drover_record_labels (record));
    }
    else
    if (record->kind == DROVER_RECORD_ASSIGN) {
        zmsg_addstrf (command, "%" PRIu64, record->task);
        zmsg_addstr (command, record->worker);
    }
    else
    if (record->kind == DROVER_RECORD_FREE)
        zmsg_addstrf (command, "%" PRIu64, record->task);
    else
    if (record->kind == DROVER_RECORD_CHANGE || record->kind == DROVER_RECORD_RESTORE) {
        drover_change_t *change = record->change;
        zmsg_addstr (command, change->topic);
        zmsg_addstrf (command, "%" PRIu64, change->task);
        zmsg_addstrf (command, "%u", change->attempt);
        zmsg_addstr (command, change->worker);
        zmsg_addstr (command, change->reason);
        zmsg_addstrf (command, "%u", change->state);
        zmsg_addstr (command, change->submit? "submit": "");
        zmsg_addstr (command, change->done? "done": "");
    }
    else
    if (record->kind == DROVER_RECORD_MSG) {
        zmsg_addmem (command, drover_record_route (record), record->route_size);
        zframe_t *payload = drover_msg_encode (record->msg);
        assert_non_null (payload);
        zmsg_append (command, &payload);
    }
    else
        fail_msg ("an actor said %s", drover_record_word (record));
    zlist_append ((zlist_t *) arg, command);
}

//  Receive the next command from sock (an actor's pipe at slot 0, a link
//  at slot 1) within timeout msec, one at a time out of its BATCHes
static zmsg_t *
s_next_command (int slot, void *from, zsock_t *sock, int timeout)
{
    s_pending_t *pending = &s_pending [slot];
    if (!pending->commands) {
        pending->commands = zlist_new ();
        static bool purged_at_exit = false;     //  whichever slot is used first
        if (!purged_at_exit)
            atexit (s_pending_purge);
        purged_at_exit = true;
    }
    if (from != pending->from) {
        s_pending_clear (pending);
        pending->from = from;
    }
    if (zlist_size (pending->commands) == 0) {
        zpoller_t *poller = zpoller_new (sock, NULL);
        if (zpoller_wait (poller, timeout) == sock)
            drover_outbox_receive (sock, 0, s_pend, s_pend_record, pending->commands);
        zpoller_destroy (&poller);
    }
    return (zmsg_t *) zlist_pop (pending->commands);
}

//  Check a command's word; return the rest of it
static zmsg_t *
s_expect_word (zmsg_t *msg, const char *command)
{
    if (!msg)
        print_error ("expected %s, the actor said nothing in time\n", command);
    assert_non_null (msg);
    char *first = zmsg_popstr (msg);
    assert_non_null (first);
    if (!streq (first, command))
        print_error ("expected %s, actor said %s\n", command, first);
    assert_string_equal (first, command);
    zstr_free (&first);
    return msg;
}

//  Receive the actor's next command within timeout msec, one at a time
//  out of the BATCHes it says; NULL on timeout
zmsg_t *
testutil_actor_recv (zactor_t *actor, int timeout)
{
    return s_next_command (0, actor, zactor_sock (actor), timeout);
}

//  Receive the actor's next command and check its command word
zmsg_t *
testutil_expect (zactor_t *actor, const char *command, int timeout)
{
    return s_expect_word (testutil_actor_recv (actor, timeout), command);
}

//  Receive the next command said on a link within timeout msec; NULL if none
zmsg_t *
testutil_link_recv (zsock_t *link, int timeout)
{
    return s_next_command (1, link, link, timeout);
}

//  Receive the next command said on a link and check its command word
zmsg_t *
testutil_expect_link (zsock_t *link, const char *command, int timeout)
{
    return s_expect_word (s_next_command (1, link, link, timeout), command);
}

//  Bind the test's end of a link for an actor that connects to it
zsock_t *
testutil_link_bind (char *endpoint, size_t size)
{
    static int count = 0;
    snprintf (endpoint, size, "inproc://testutil-link-%d-%d", getpid (), ++count);
    zsock_t *link = zsock_new (ZMQ_PAIR);
    assert_non_null (link);
    assert_int_equal (zsock_bind (link, "%s", endpoint), 0);
    return link;
}

//  Pop a string frame and check it
void
testutil_pop_check (zmsg_t *msg, const char *expected)
{
    char *text = zmsg_popstr (msg);
    assert_non_null (text);
    assert_string_equal (text, expected);
    zstr_free (&text);
}

//  Expect SEND to route for worker; decode its payload
drover_msg_t *
testutil_expect_send (zactor_t *actor, const char *route, const char *worker)
{
    zmsg_t *msg = testutil_expect (actor, "SEND", 2000);
    testutil_pop_check (msg, route);
    zframe_t *payload = zmsg_pop (msg);
    assert_non_null (payload);
    testutil_pop_check (msg, worker);
    drover_msg_t *decoded = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (decoded, zframe_data (payload), zframe_size (payload)), 0);
    zframe_destroy (&payload);
    zmsg_destroy (&msg);
    return decoded;
}

//  Expect an EVENT with topic about worker
void
testutil_expect_event (zactor_t *actor, const char *topic, const char *worker, const char *reason)
{
    zmsg_t *msg = testutil_expect (actor, "EVENT", 2000);
    testutil_pop_check (msg, topic);
    zframe_t *body = zmsg_pop (msg);
    assert_non_null (body);
    drover_event_t event;
    assert_int_equal (drover_event_decode (&event, zframe_data (body), zframe_size (body)), 0);
    assert_string_equal (event.topic, topic);
    assert_string_equal (event.worker, worker);
    if (reason)
        assert_string_equal (event.reason, reason);
    assert_true (event.time > 0);
    zframe_destroy (&body);
    zmsg_destroy (&msg);
}

//  Send what outbox holds to an actor's pipe (or a link) as one BATCH
static void
s_flush_to (void *to, drover_outbox_t *outbox)
{
    zsock_t *sock = zactor_is (to)? zactor_sock ((zactor_t *) to): (zsock_t *) to;
    assert_int_equal (drover_outbox_flush (outbox, sock), 0);
}

//  Hand the actor a wire message from a route of route_size bytes
void
testutil_hand_bytes (zactor_t *actor, const byte *route, size_t route_size, drover_msg_t *msg)
{
    drover_outbox_t *outbox = drover_outbox_new ();
    drover_outbox_say_msg (outbox, route, route_size, &msg);  //  the actor owns msg now
    s_flush_to (actor, outbox);
    drover_outbox_destroy (&outbox);
}

//  Hand the actor a wire message from route
void
testutil_hand (zactor_t *actor, const char *route, drover_msg_t *msg)
{
    testutil_hand_bytes (actor, (const byte *) route, strlen (route), msg);
}

//  Say QUEUE on a link in a BATCH, as assign does
void
testutil_say_queue (zsock_t *link, uint64_t task, int32_t priority, uint32_t procs,
                    uint64_t mem, const char *labels)
{
    drover_outbox_t *outbox = drover_outbox_new ();
    drover_outbox_say_queue (outbox, task, priority, procs, mem, labels);
    testutil_say_batch (link, &outbox);
}

//  Send what an outbox holds as one BATCH, then destroy the outbox
void
testutil_say_batch (void *to, drover_outbox_t **outbox_p)
{
    s_flush_to (to, *outbox_p);
    drover_outbox_destroy (outbox_p);
}

//  Say FREE on a link in a BATCH, as assign does
void
testutil_say_free (zsock_t *link, uint64_t task)
{
    drover_outbox_t *outbox = drover_outbox_new ();
    drover_outbox_say_free (outbox, task);
    testutil_say_batch (link, &outbox);
}

//  Say the record ASSIGN on a link to assign in a BATCH, as schedq does
void
testutil_say_assign (zsock_t *link, uint64_t task, const char *worker)
{
    drover_outbox_t *outbox = drover_outbox_new ();
    drover_outbox_say_assign (outbox, task, worker);
    testutil_say_batch (link, &outbox);
}

//  Send a WORKER ADMIN and return the reply's code
int
testutil_admin (zsock_t *dealer, const char *worker, int admin)
{
    drover_msg_t *request = drover_msg_new (DROVER_MSG_WORKER_ADMIN);
    strcpy (request->worker, worker);
    request->admin = admin;
    drover_msg_t *reply = testutil_request (dealer, &request, 5000);
    assert_non_null (reply);
    int code = reply->code;
    if (reply->id == DROVER_MSG_OK)
        assert_int_equal (code, DROVER_CODE_OK);
    drover_msg_destroy (&reply);
    return code;
}

//  Send WORKER ADMIN with the operator's reason and flags; return the reply's code
int
testutil_admin_with (zsock_t *dealer, const char *worker, int admin, const char *reason,
                     uint32_t flags)
{
    drover_msg_t *request = drover_msg_new (DROVER_MSG_WORKER_ADMIN);
    strcpy (request->worker, worker);
    request->admin = admin;
    request->flags = flags;
    if (reason)
        drover_msg_set_reason (request, reason);
    drover_msg_t *reply = testutil_request (dealer, &request, 5000);
    assert_non_null (reply);
    int code = reply->code;
    if (reply->id == DROVER_MSG_OK)
        assert_int_equal (code, DROVER_CODE_OK);
    drover_msg_destroy (&reply);
    return code;
}

//  Receive the next event on sub within timeout; false on timeout
bool
testutil_next_event (zsock_t *sub, drover_event_t *event, int timeout)
{
    zmsg_t *msg = testutil_recv (sub, timeout);
    if (!msg)
        return false;
    assert_int_equal (zmsg_size (msg), 2);
    char *topic = zmsg_popstr (msg);
    zframe_t *body = zmsg_pop (msg);
    assert_int_equal (drover_event_decode (event, zframe_data (body), zframe_size (body)), 0);
    assert_string_equal (topic, event->topic);
    zstr_free (&topic);
    zframe_destroy (&body);
    zmsg_destroy (&msg);
    return true;
}

//  Read events until the one asked for, or the deadline
bool
testutil_await_event (zsock_t *sub, const char *topic, const char *worker,
                      drover_event_t *event, int timeout)
{
    int64_t deadline = zclock_mono () + timeout;
    while (zclock_mono () < deadline)
        if (testutil_next_event (sub, event, (int) (deadline - zclock_mono ()))
        &&  streq (event->topic, topic) && streq (event->worker, worker))
            return true;
    return false;
}

//  Wait until a new SUB hears the broker, poking it with admin changes
bool
testutil_await_subscription (zsock_t *sub, zsock_t *dealer, const char *worker)
{
    drover_event_t event;
    int64_t deadline = zclock_mono () + 10000;
    while (zclock_mono () < deadline) {
        assert_int_equal (testutil_admin (dealer, worker, DROVER_ADMIN_HOLD), DROVER_CODE_OK);
        assert_int_equal (testutil_admin (dealer, worker, DROVER_ADMIN_RUN), DROVER_CODE_OK);
        if (testutil_next_event (sub, &event, 100))
            return true;
    }
    return false;
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

//  Wait until a process (any, not only a child) has ended, on its pidfd
bool
testutil_await_gone (pid_t pid, int timeout)
{
    int fd = (int) syscall (SYS_pidfd_open, pid, 0);
    if (fd == -1)
        return errno == ESRCH;          //  gone already
    struct pollfd item = { fd, POLLIN, 0 };
    int rc;
    int64_t deadline = zclock_mono () + timeout;
    while ((rc = poll (&item, 1, (int) (deadline - zclock_mono ()))) == -1 && errno == EINTR
    &&     zclock_mono () < deadline)
        ;
    close (fd);
    return rc == 1;
}

//  ---------------------------------------------------------------------
//  A real etcd started by the test

#define TESTUTIL_ETCD_SCRIPT    DROVER_SOURCE_DIR "/tests/etcd_server.sh"

//  Start etcd through the script
testutil_etcd_t *
testutil_etcd_start (void)
{
    testutil_etcd_t *self = (testutil_etcd_t *) zmalloc (sizeof (testutil_etcd_t));
    char template [] = "/tmp/drover-etcd-XXXXXX";
    assert_non_null (mkdtemp (template));
    snprintf (self->dir, sizeof self->dir, "%s", template);
    //  A free port may be taken by a test running beside us before etcd
    //  binds it (the script then fails): try fresh ports a few times
    char output [256];
    int status = -1;
    for (int attempt = 0; attempt < 3 && status != 0; attempt++) {
        self->client_port = testutil_free_port ();
        do
            self->peer_port = testutil_free_port ();
        while (self->peer_port == self->client_port);
        char client [16], peer [16];
        snprintf (client, sizeof client, "%d", self->client_port);
        snprintf (peer, sizeof peer, "%d", self->peer_port);
        const char *argv [] = { "/bin/sh", TESTUTIL_ETCD_SCRIPT, "start", self->dir, client, peer,
                                NULL };
        status = testutil_run_output (argv, output, sizeof output, 40000);
    }
    if (!(status != -1 && WIFEXITED (status) && WEXITSTATUS (status) == 0))
        fail_msg ("etcd did not start (status %d): is etcd-server installed? "
                  "(apt-get install etcd-server etcd-client); see %s", status, self->dir);
    output [strcspn (output, "\n")] = 0;
    assert_true (strlen (output) < sizeof self->url);
    memcpy (self->url, output, strlen (output) + 1);
    assert_true (strneq (self->url, "") && strncmp (self->url, "http://127.0.0.1:", 17) == 0);
    return self;
}

//  Pause or resume etcd
void
testutil_etcd_signal (testutil_etcd_t *self, const char *command)
{
    assert_non_null (self);
    const char *argv [] = { "/bin/sh", TESTUTIL_ETCD_SCRIPT, command, self->dir, NULL };
    char output [256];
    int status = testutil_run_output (argv, output, sizeof output, 10000);
    assert_true (status != -1 && WIFEXITED (status) && WEXITSTATUS (status) == 0);
}

//  Stop etcd
void
testutil_etcd_stop (testutil_etcd_t **self_p, bool keep)
{
    testutil_etcd_t *self = *self_p;
    if (!self)
        return;
    const char *argv [] = { "/bin/sh", TESTUTIL_ETCD_SCRIPT, "stop", self->dir, keep? "keep": "",
                            NULL };
    char output [256];
    testutil_run_output (argv, output, sizeof output, 20000);
    if (keep)
        fprintf (stderr, "testutil: etcd's data and log kept in %s\n", self->dir);
    free (self);
    *self_p = NULL;
}

//  ---------------------------------------------------------------------
//  The drover CLI run as a user would

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

//  ---------------------------------------------------------------------
//  A task table on a fake clock

//  The fake wall clock: msec since the epoch, read from *arg
static int64_t
s_fake_clock (void *arg)
{
    return *(int64_t *) arg;
}

//  A task table on a fake wall clock reading *now, alpha and beta up
drover_assign_t *
testutil_fake_table (int64_t *now)
{
    drover_assign_t *table = drover_assign_new ();
    drover_assign_set_clock (table, s_fake_clock, now);
    drover_assign_worker_up (table, "alpha", TESTUTIL_ALPHA_ROUTE, NULL, 0);
    drover_assign_worker_up (table, "beta", TESTUTIL_BETA_ROUTE, NULL, 0);
    testutil_take_actions (table);
    return table;
}

//  Submit "true" with retries; returns its id
uint64_t
testutil_table_submit (drover_assign_t *table, uint32_t retries)
{
    drover_msg_t *msg = testutil_submit_msg ("true", 0, 1, 0);
    msg->retries = retries;
    uint64_t task = 0;
    const char *reason;
    assert_int_equal (drover_assign_submit (table, msg, TESTUTIL_CLIENT_ROUTE, &task,
                                               &reason), 200);
    drover_msg_destroy (&msg);
    testutil_take_actions (table);
    return task;
}

//  A TASK RESULT of a task's attempt
drover_msg_t *
testutil_result_msg (const char *worker, uint64_t task, uint32_t attempt, int outcome,
                     int exit_code)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_TASK_RESULT);
    strcpy (msg->worker, worker);
    msg->task = task;
    msg->attempt = attempt;
    msg->outcome = outcome;
    msg->exit_code = exit_code;
    return msg;
}

//  Report a result; asserts it is accepted
void
testutil_table_result (drover_assign_t *table, uint64_t task, const char *worker,
                       uint32_t attempt, int outcome, int exit_code, int signal,
                       const char *reason)
{
    drover_msg_t *msg = testutil_result_msg (worker, task, attempt, outcome, exit_code);
    msg->signal = signal;
    if (reason)
        drover_msg_set_reason (msg, reason);
    const char *text;
    assert_int_equal (drover_assign_result (table, msg, &text), 200);
    drover_msg_destroy (&msg);
}

//  ---------------------------------------------------------------------
//  What an actor says

//  Assert that msg's frames, read as text, are exactly the strings in args
void
testutil_assert_frames (zmsg_t **msg_p, va_list args)
{
    zmsg_t *msg = *msg_p;
    const char *expected;
    while ((expected = va_arg (args, const char *))) {
        char *frame = zmsg_popstr (msg);
        assert_non_null (frame);
        assert_string_equal (frame, expected);
        zstr_free (&frame);
    }
    assert_int_equal (zmsg_size (msg), 0);
    zmsg_destroy (msg_p);
}

//  Pool settings with Arvados' defaults, no types
void
testutil_pool_defaults (drover_poolconfig_t *config)
{
    memset (config, 0, sizeof *config);
    config->name = "drover";
    config->max_creates = 10;
    config->ops_per_second = 1000;
    config->boot_timeout = 600000;
    config->idle_timeout = 60000;
    config->probe_timeout = 600000;
    config->shutdown_timeout = 10000;
    config->quota_backoff = 60000;
    config->rate_backoff = 10000;
    config->warn_failures = 3;
    config->list_interval = 60000;
}

//  A new CURVE key pair saved at path, its secret half mode 0600
zcert_t *
testutil_save_key_pair (const char *path)
{
    zcert_t *pair = zcert_new ();
    assert_int_equal (zcert_save (pair, path), 0);
    char *secret = zsys_sprintf ("%s_secret", path);
    assert_int_equal (chmod (secret, 0600), 0);
    zstr_free (&secret);
    return pair;
}

//  How many tasks the broker holds in any state
uint64_t
testutil_task_count (zsock_t *dealer, int timeout)
{
    drover_msg_t *list = drover_msg_new (DROVER_MSG_TASK_LIST);
    list->limit = 1;                //  the counts cover every task, whatever the rows
    drover_msg_t *table = testutil_request (dealer, &list, timeout);
    assert_non_null (table);
    assert_int_equal (table->id, DROVER_MSG_TASK_TABLE);
    uint64_t total = 0;
    for (int state = 0; state < DROVER_TASK_STATES; state++)
        total += table->counts [state];
    drover_msg_destroy (&table);
    return total;
}

//  Fill argv with prefix, first and the rest of args
void
testutil_argv_va (const char **argv, size_t size, const char *const prefix [],
                  const char *first, va_list args)
{
    size_t argc = 0;
    for (; prefix [argc] && argc < size - 2; argc++)
        argv [argc] = prefix [argc];
    argv [argc++] = first;
    const char *arg;
    while ((arg = va_arg (args, const char *)) && argc < size - 1)
        argv [argc++] = arg;
    argv [argc] = NULL;
}

//  testutil_run_cli of prefix, first and the rest of args; the exit status
int
testutil_run_cli_va (const char *const prefix [], const char *first, va_list args,
                     char *output, size_t size, char *errors, size_t errors_size)
{
    const char *argv [64];
    testutil_argv_va (argv, 64, prefix, first, args);
    int status = testutil_run_cli (argv, output, size, errors, errors_size, 30000);
    if (!(status != -1 && WIFEXITED (status)))
        fail_msg ("drover %s did not exit: stdout %s stderr %s", first, output, errors);
    return WEXITSTATUS (status);
}

//  The pids of `drover worker` processes for endpoint
size_t
testutil_worker_pids (const char *endpoint, pid_t *pids, size_t max)
{
    size_t count = 0;
    DIR *proc = opendir ("/proc");
    assert_non_null (proc);
    struct dirent *entry;
    while ((entry = readdir (proc)) && count < max) {
        pid_t pid = (pid_t) atoi (entry->d_name);
        if (pid <= 0)
            continue;
        char path [64], cmdline [2048];
        snprintf (path, sizeof path, "/proc/%d/cmdline", (int) pid);
        FILE *file = fopen (path, "r");
        if (!file)
            continue;               //  ended meanwhile
        size_t size = fread (cmdline, 1, sizeof cmdline - 1, file);
        fclose (file);
        cmdline [size] = 0;
        bool worker = false, ours = false;
        for (size_t at = 0; at < size; at += strlen (cmdline + at) + 1) {
            worker |= streq (cmdline + at, "worker");
            ours |= streq (cmdline + at, endpoint);
        }
        if (worker && ours)
            pids [count++] = pid;
    }
    closedir (proc);
    return count;
}

//  A TASK WAIT for count tasks (copied)
drover_msg_t *
testutil_wait_msg (const uint64_t *tasks, uint32_t count)
{
    drover_msg_t *wait = drover_msg_new (DROVER_MSG_TASK_WAIT);
    wait->tasks = (uint64_t *) zmalloc (count * sizeof (uint64_t));
    memcpy (wait->tasks, tasks, count * sizeof (uint64_t));
    wait->ntasks = count;
    return wait;
}

//  Collect every task's TASK DONE and assert each SUCCEEDED
void
testutil_expect_all_succeeded (zsock_t *dealer, const uint64_t *tasks, int count, int timeout)
{
    drover_msg_t **done = (drover_msg_t **) zmalloc (count * sizeof (drover_msg_t *));
    assert_true (testutil_collect (dealer, tasks, done, count, timeout));
    for (int index = 0; index < count; index++) {
        assert_int_equal (done [index]->state, DROVER_TASK_SUCCEEDED);
        drover_msg_destroy (&done [index]);
    }
    free (done);
}
