/*  =========================================================================
    test_vanished_broker - a worker whose broker's host vanishes (no FIN, no
    RST: its packets just stop) drops the dead connection by itself, and
    registers again over a new one once the host is back

    The broker runs in a network namespace of the test's own, reached over
    a veth pair with link-local addresses; "vanishing" is taking the
    namespace's end of the pair down. The worker sends heartbeats that are
    no longer acknowledged, and the kernel closes the connection after
    three heartbeat intervals (ZMQ_TCP_MAXRT): the test waits for that
    connection to disappear from the worker's side, brings the link back,
    and waits for the broker's event worker.up a second time (from a new
    route), with no worker.lost before it. lost-after is long, so the
    broker alone never forgets the worker meanwhile: only a reconnect
    explains the second UP. (The test's SUB sends nothing, so its own
    connection outlives the outage.)

    Needs root (CAP_NET_ADMIN) and iproute2; skipped, saying so, without them.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include <signal.h>
#include <sys/wait.h>

#define S_WAIT_MAX      20000   //  msec any one event may take at most
#define S_HOST_ADDRESS  "169.254.77.1"      //  our end of the veth pair
#define S_NS_ADDRESS    "169.254.77.2"      //  the broker's end, in its namespace
#define S_IP            "/usr/sbin/ip"      //  iproute2's ip, for spawning by path

//  The namespace, the processes and the files of one run
typedef struct {
    char netns [32];            //  namespace name
    char host_link [16];        //  our end of the veth pair
    char ns_link [16];          //  its end, inside the namespace
    char endpoint [64];         //  the broker's ROUTER, in the namespace
    char logdir [64];           //  where the processes log
    char broker_log [96];       //  the broker's log file
    pid_t broker;               //  broker pid, or 0
    pid_t worker;               //  worker pid, or 0
    bool passed;                //  the test ran to its end: logs can go
} s_vanish_t;

//  Run a shell command quietly; returns true if it exited 0
static bool
s_shell (const char *format, ...)
{
    va_list args;
    va_start (args, format);
    char *command = zsys_vprintf (format, args);
    va_end (args);
    char *quiet = zsys_sprintf ("%s >/dev/null 2>&1", command);
    int status = system (quiet);
    zstr_free (&quiet);
    zstr_free (&command);
    return status != -1 && WIFEXITED (status) && WEXITSTATUS (status) == 0;
}

//  Count our established TCP connections to the broker's port
static int
s_connections (int port)
{
    char *command = zsys_sprintf ("ss -Htn state established dst %s:%d 2>/dev/null",
                                  S_NS_ADDRESS, port);
    FILE *stream = popen (command, "r");
    zstr_free (&command);
    assert_non_null (stream);
    int count = 0;
    char line [512];
    while (fgets (line, sizeof line, stream))
        count++;
    pclose (stream);
    return count;
}

//  A DEALER to the broker at endpoint, this codec's level said
static zsock_t *
s_dealer (const char *endpoint)
{
    zsock_t *dealer = zsock_new (ZMQ_DEALER);
    assert_non_null (dealer);
    zsock_set_linger (dealer, 0);
    assert_int_equal (zsock_connect (dealer, "%s", endpoint), 0);
    testutil_say_level (dealer, S_WAIT_MAX);
    return dealer;
}

//  Wait up to S_WAIT_MAX msec for the event worker.up about w-vanish on
//  sub; fails the test if worker.lost about it comes first
static bool
s_await_up_again (zsock_t *sub)
{
    int64_t deadline = zclock_mono () + S_WAIT_MAX;
    drover_event_t event;
    while (zclock_mono () < deadline)
        if (testutil_next_event (sub, &event, (int) (deadline - zclock_mono ()))
        &&  streq (event.worker, "w-vanish")) {
            if (streq (event.topic, "worker.lost"))
                fail_msg ("the broker dropped w-vanish meanwhile: %s", event.reason);
            if (streq (event.topic, "worker.up"))
                return true;
        }
    return false;
}

//  Wait until we hold want established connections to the broker's port
static bool
s_wait_connections (int port, int want)
{
    int64_t deadline = zclock_mono () + S_WAIT_MAX;
    while (s_connections (port) != want) {
        if (zclock_mono () >= deadline)
            return false;
        zclock_sleep (50);      //  polling the socket table for an event, not settling
    }
    return true;
}

//  Make the namespace and the veth pair between us; false if we may not
//  make a namespace at all. Once we may, every step must work.
static bool
s_network_new (s_vanish_t *self)
{
    snprintf (self->netns, sizeof self->netns, "drover-t%d", (int) getpid ());
    snprintf (self->host_link, sizeof self->host_link, "dvh%d", (int) getpid () % 100000);
    snprintf (self->ns_link, sizeof self->ns_link, "dvn%d", (int) getpid () % 100000);
    if (!s_shell ("ip netns add %s", self->netns)) {
        *self->netns = 0;       //  nothing to remove
        return false;
    }
    assert_true (s_shell ("ip link add %s type veth peer name %s", self->host_link, self->ns_link)
        && s_shell ("ip link set %s netns %s", self->ns_link, self->netns)
        && s_shell ("ip addr add %s/30 dev %s", S_HOST_ADDRESS, self->host_link)
        && s_shell ("ip link set %s up", self->host_link)
        && s_shell ("ip netns exec %s ip addr add %s/30 dev %s", self->netns, S_NS_ADDRESS,
                    self->ns_link)
        && s_shell ("ip netns exec %s ip link set %s up", self->netns, self->ns_link)
        && s_shell ("ip netns exec %s ip link set lo up", self->netns));
    return true;
}

//  Remove the namespace (and with it both ends of the pair)
static void
s_network_destroy (s_vanish_t *self)
{
    s_shell ("ip link del %s", self->host_link);
    s_shell ("ip netns del %s", self->netns);
}

//  Make the run's state; the namespace is made by the test
static int
s_setup (void **state)
{
    *state = zmalloc (sizeof (s_vanish_t));
    return 0;
}

//  Stop what runs and remove the namespace, even after a failed assert;
//  keep the logs of a failed run
static int
s_teardown (void **state)
{
    s_vanish_t *self = (s_vanish_t *) *state;
    if (self->worker > 0)
        testutil_stop (self->worker, 5000);
    if (self->broker > 0)
        testutil_stop (self->broker, 5000);
    if (*self->netns)
        s_network_destroy (self);
    if (*self->logdir && self->passed)
        s_shell ("rm -rf %s", self->logdir);
    else
    if (*self->logdir)
        print_message ("logs kept in %s\n", self->logdir);
    free (self);
    return 0;
}

//  A worker on a dead link drops it by itself and comes back over a new one
static void
test_worker_leaves_a_vanished_broker (void **state)
{
    s_vanish_t *self = (s_vanish_t *) *state;
    if (!s_network_new (self)) {
        print_message ("skipped: cannot make a network namespace here (needs root and iproute2)\n");
        skip ();
    }
    int port = testutil_free_port ();
    int events_port = testutil_free_port ();
    snprintf (self->endpoint, sizeof self->endpoint, "tcp://%s:%d", S_NS_ADDRESS, port);
    char events [64];
    snprintf (events, sizeof events, "tcp://%s:%d", S_NS_ADDRESS, events_port);
    snprintf (self->logdir, sizeof self->logdir, "/tmp/drover-vanish.XXXXXX");
    assert_non_null (mkdtemp (self->logdir));
    snprintf (self->broker_log, sizeof self->broker_log, "%s/broker.log", self->logdir);
    char worker_log [96];
    snprintf (worker_log, sizeof worker_log, "%s/worker.log", self->logdir);

    char state_dir [96];
    snprintf (state_dir, sizeof state_dir, "%s/state", self->logdir);
    const char *broker_argv [] = { S_IP, "netns", "exec", self->netns, DROVER_BIN, "broker",
                                   "--endpoint", self->endpoint, "--events", events, "--insecure",
                                   "--state-dir", state_dir,
                                   "--set", "health/heartbeat=200",
                                   "--set", "health/lost-after=60000", NULL };
    self->broker = testutil_spawn (broker_argv, self->broker_log);
    assert_true (self->broker > 0);
    const char *worker_argv [] = { DROVER_BIN, "worker", "--broker", self->endpoint,
                                   "--id", "w-vanish", "--procs", "1", NULL };
    self->worker = testutil_spawn (worker_argv, worker_log);
    assert_true (self->worker > 0);
    //  It registers; we hear the broker's events from now on
    zsock_t *dealer = s_dealer (self->endpoint);
    assert_true (testutil_wait_workers (dealer, 1, S_WAIT_MAX));
    zsock_t *sub = zsock_new_sub (events, "worker.");
    assert_non_null (sub);
    assert_true (testutil_await_subscription (sub, dealer, "w-vanish"));
    zsock_destroy (&dealer);
    assert_true (s_wait_connections (port, 1));

    //  The broker's host vanishes: the worker's heartbeats go unanswered
    //  until the kernel gives the connection up
    assert_true (s_shell ("ip netns exec %s ip link set %s down", self->netns, self->ns_link));
    assert_true (s_wait_connections (port, 0));

    //  Back: a new connection, and the broker hears the worker on its route
    //  (UP again, never LOST meanwhile)
    assert_true (s_shell ("ip netns exec %s ip link set %s up", self->netns, self->ns_link));
    assert_true (s_await_up_again (sub));
    assert_true (s_wait_connections (port, 1));
    zsock_destroy (&sub);

    self->passed = true;
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_worker_leaves_a_vanished_broker, s_setup,
                                         s_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
