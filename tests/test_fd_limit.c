/*  =========================================================================
    test_fd_limit - out of file descriptors the broker says so and keeps
    serving: a real broker under a hard limit of 128 descriptors, more raw
    TCP connections than that, then clients old and new
    =========================================================================
*/

#include "testutil.h"
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>

//  The broker's descriptor limit, soft and hard
#define S_NOFILE        128
//  Raw connections opened at it
#define S_RAW           200

//  Start the broker of cluster with RLIMIT_NOFILE soft 64 and hard
//  S_NOFILE (it may raise the soft one to the hard one); true once ready
static bool
s_broker_start (testutil_cluster_t *cluster)
{
    cluster->port = testutil_free_port ();
    cluster->events_port = testutil_free_port ();
    snprintf (cluster->endpoint, sizeof cluster->endpoint, "tcp://127.0.0.1:%d", cluster->port);
    snprintf (cluster->events, sizeof cluster->events, "tcp://127.0.0.1:%d",
              cluster->events_port);
    const char *log = testutil_cluster_log (cluster, "broker");
    unlink (log);
    pid_t pid = fork ();
    assert_true (pid >= 0);
    if (pid == 0) {
        int fd = open (log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        dup2 (fd, 1);
        dup2 (fd, 2);
        close (fd);
        struct rlimit limit = { 64, S_NOFILE };
        setrlimit (RLIMIT_NOFILE, &limit);
        char state_dir [128];
        snprintf (state_dir, sizeof state_dir, "%s/state", cluster->logdir);
        execl (DROVER_BIN, DROVER_BIN, "broker", "--endpoint", cluster->endpoint,
               "--events", cluster->events, "--state-dir", state_dir, (char *) NULL);
        _exit (127);
    }
    cluster->broker = pid;
    if (testutil_await_line (log, "broker: ready", 10000))
        return true;
    testutil_stop (pid, 1000);
    cluster->broker = 0;
    return false;
}

//  Open a TCP connection to port on loopback; returns the fd
static int
s_raw_connect (int port)
{
    int fd = socket (AF_INET, SOCK_STREAM, 0);
    assert_true (fd >= 0);
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons (port) };
    addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    assert_int_equal (connect (fd, (struct sockaddr *) &addr, sizeof addr), 0);
    return fd;
}

//  Ask for the worker table: the reply, or NULL on timeout
static drover_msg_t *
s_ask (zsock_t *client, int timeout)
{
    drover_msg_t *request = drover_msg_new (DROVER_MSG_WORKER_LIST);
    return testutil_request (client, &request, timeout);
}

//  CPU time the process used so far, msec (utime + stime)
static int64_t
s_cpu_msec (pid_t pid)
{
    char path [64];
    snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
    FILE *file = fopen (path, "r");
    assert_non_null (file);
    char text [1024];
    size_t size = fread (text, 1, sizeof text - 1, file);
    fclose (file);
    text [size] = 0;
    char *cursor = strrchr (text, ')');
    assert_non_null (cursor);
    unsigned long utime = 0, stime = 0;
    //  After ") ": state, then fields 4..13, then utime (14) and stime (15)
    int field = 2;
    for (char *token = strtok (cursor + 1, " "); token; token = strtok (NULL, " ")) {
        field++;
        if (field == 14)
            utime = strtoul (token, NULL, 10);
        else
        if (field == 15) {
            stime = strtoul (token, NULL, 10);
            break;
        }
    }
    return (int64_t) (utime + stime) * 1000 / sysconf (_SC_CLK_TCK);
}

//  Past its descriptors the broker logs it, does not spin, keeps serving
//  the clients it has, and tells a new one clearly; once the others
//  leave, a new client is served
static void
test_out_of_descriptors (void **state)
{
    testutil_cluster_t *cluster = (testutil_cluster_t *) zmalloc (sizeof (testutil_cluster_t));
    snprintf (cluster->logdir, sizeof cluster->logdir, "/tmp/drover-test-XXXXXX");
    assert_non_null (mkdtemp (cluster->logdir));
    int tries = 0;
    while (!s_broker_start (cluster))
        assert_true (++tries < 5);
    const char *log = testutil_cluster_log (cluster, "broker");
    zsock_t *old_client = testutil_dealer (cluster);
    drover_msg_t *reply = s_ask (old_client, 5000);
    assert_non_null (reply);
    drover_msg_destroy (&reply);

    int raw [S_RAW];
    for (int index = 0; index < S_RAW; index++)
        raw [index] = s_raw_connect (cluster->port);
    //  It says so
    bool logged = testutil_await_line (log, "connection", 5000)
               && testutil_await_line (log, "limit", 100);
    //  It does not spin: less than half a core over a second
    int64_t cpu = s_cpu_msec (cluster->broker);
    zclock_sleep (1000);        //  the window CPU time is measured over
    cpu = s_cpu_msec (cluster->broker) - cpu;
    //  The client it had is still served
    reply = s_ask (old_client, 3000);
    bool old_served = reply != NULL;
    drover_msg_destroy (&reply);
    //  A new client is told why it is not
    zsock_t *new_client = testutil_dealer (cluster);
    reply = s_ask (new_client, 5000);
    char *text = testutil_slurp (log);
    fprintf (stderr, "cpu %d msec over 1 s; new client got %s %d %s\nbroker log:\n%s",
             (int) cpu, reply? drover_msg_name (reply->id): "nothing", reply? reply->code: 0,
             reply && reply->reason? reply->reason: "", text);
    free (text);
    bool new_refused = reply && reply->id == DROVER_MSG_ERROR
                    && reply->code == DROVER_CODE_TOO_MANY
                    && strstr (reply->reason, "connections");
    drover_msg_destroy (&reply);
    zsock_destroy (&new_client);
    //  Once the raw ones leave, a new client is served
    for (int index = 0; index < S_RAW; index++)
        close (raw [index]);
    new_client = testutil_dealer (cluster);
    reply = s_ask (new_client, 5000);
    bool later_served = reply && reply->id == DROVER_MSG_WORKER_TABLE;
    drover_msg_destroy (&reply);
    zsock_destroy (&new_client);
    zsock_destroy (&old_client);
    testutil_cluster_destroy (&cluster);

    assert_true (logged);
    assert_true (cpu < 250);          //  before the fix: 510 (libzmq spinning on accept)
    assert_true (old_served);
    assert_true (new_refused);
    assert_true (later_served);
}

//  Run every test
int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_out_of_descriptors),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
