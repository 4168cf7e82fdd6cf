/*  =========================================================================
    test_testutil_spawn - what the test kit starts dies with the test that
    started it: a test that fails leaves its body at the failed assertion,
    before it stops its brokers and workers, and those must not live on to
    take ports, CPU and files from the tests after it. Played here by a
    child that starts a long sleep through the kit, then exits at once as
    a failing test's process would.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_servers.h"
#include "drover_loopport.h"
#include <sys/stat.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>

//  A process started with testutil_spawn outlives nothing: its test
//  process exits, it is killed
static void
test_spawned_dies_with_its_test (void **state)
{
    (void) state;
    int fds [2];
    assert_int_equal (pipe (fds), 0);
    pid_t test = fork ();
    assert_true (test >= 0);
    if (test == 0) {
        close (fds [0]);
        const char *argv [] = { "/bin/sleep", "60", NULL };
        pid_t sleeper = testutil_spawn (argv, NULL);
        if (write (fds [1], &sleeper, sizeof sleeper) != sizeof sleeper)
            _exit (2);
        _exit (1);              //  as a failed assertion ends a test's process
    }
    close (fds [1]);
    pid_t sleeper = 0;
    assert_int_equal (read (fds [0], &sleeper, sizeof sleeper), sizeof sleeper);
    close (fds [0]);
    assert_true (sleeper > 0);
    int status = 0;
    assert_int_equal (waitpid (test, &status, 0), test);
    assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 1);
    bool gone = testutil_await_gone (sleeper, 5000);
    if (!gone)
        kill (sleeper, SIGKILL);
    assert_true (gone);
}

//  A server started through the kit's scripts (here etcd) is stopped, its
//  directory removed, when its test process exits without stopping it
static void
test_server_stopped_with_its_test (void **state)
{
    (void) state;
    int fds [2];
    assert_int_equal (pipe (fds), 0);
    fflush (stdout);
    fflush (stderr);
    pid_t test = fork ();
    assert_true (test >= 0);
    if (test == 0) {
        close (fds [0]);
        testutil_etcd_t *etcd = testutil_etcd_start ();
        char dir [sizeof etcd->dir];
        snprintf (dir, sizeof dir, "%s", etcd->dir);
        if (write (fds [1], dir, sizeof dir) != (ssize_t) sizeof dir)
            _exit (2);
        exit (1);               //  as cmocka's main returns after a failed test
    }
    close (fds [1]);
    char dir [sizeof ((testutil_etcd_t *) 0)->dir] = "";
    assert_int_equal (read (fds [0], dir, sizeof dir), sizeof dir);
    close (fds [0]);
    int status = 0;
    assert_int_equal (waitpid (test, &status, 0), test);
    assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 1);
    struct stat info;
    bool left = stat (dir, &info) == 0;
    if (left) {
        const char *args [] = { "stop", dir, NULL };
        testutil_server_script ("etcd_server.sh", args, NULL, 0);
    }
    assert_false (left);
}

//  A server whose port was taken before it could bind is started again on
//  fresh ports: the test goes on, given the second port
static void
test_server_started_again_on_fresh_ports (void **state)
{
    (void) state;
    char dir [] = "/tmp/drover-taken-XXXXXX";
    assert_non_null (mkdtemp (dir));
    int port = 0;
    char url [64];
    testutil_server_start ("taken_port_server.sh", dir, &port, 1, url, sizeof url);
    char expected [64];
    snprintf (expected, sizeof expected, "tcp://127.0.0.1:%d", port);
    assert_string_equal (url, expected);
    //  The first start was given another port, and failed on it
    char taken_path [128];
    snprintf (taken_path, sizeof taken_path, "%s/taken", dir);
    char *taken = testutil_slurp (taken_path);
    assert_non_null (taken);
    assert_true (atoi (taken) > 0);
    free (taken);
    const char *args [] = { "stop", dir, NULL };
    testutil_server_script ("taken_port_server.sh", args, NULL, 0);
}

//  The kit's ports are outside the ephemeral range, and so is the next
//  one of a pair: an outgoing connection of any process cannot take one
//  while the broker on it restarts (before, test_durable_restart's broker
//  once failed to start again: "cannot bind ... Address already in use").
//  And the premise: a hundred outgoing connections take their ports from
//  that range.
static void
test_free_ports_outside_ephemeral_range (void **state)
{
    (void) state;
    int low, high;
    drover_loopport_ephemeral_range (&low, &high);
    for (int index = 0; index < 200; index++) {
        int port = testutil_free_port_pair ();
        assert_true (port + 1 < low || port > high);
        assert_true (port > 1024 && port < 65535);
    }
    int listener = testutil_free_port ();
    int server = socket (AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) listener) };
    addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    assert_int_equal (bind (server, (struct sockaddr *) &addr, sizeof addr), 0);
    assert_int_equal (listen (server, 128), 0);
    int clients [100];
    for (int index = 0; index < 100; index++) {
        clients [index] = socket (AF_INET, SOCK_STREAM, 0);
        assert_int_equal (connect (clients [index], (struct sockaddr *) &addr, sizeof addr), 0);
        struct sockaddr_in local;
        socklen_t len = sizeof local;
        assert_int_equal (getsockname (clients [index], (struct sockaddr *) &local, &len), 0);
        int taken = ntohs (local.sin_port);
        assert_true (taken >= low && taken <= high);    //  where outgoing ports come from
    }
    for (int index = 0; index < 100; index++)
        close (clients [index]);
    close (server);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_spawned_dies_with_its_test),
        cmocka_unit_test (test_server_stopped_with_its_test),
        cmocka_unit_test (test_server_started_again_on_fresh_ports),
        cmocka_unit_test (test_free_ports_outside_ephemeral_range),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
