/*  =========================================================================
    test_agent_killed - every process a task starts dies with a `drover
    worker` agent killed outright

    A real broker and a real agent on loopback. The task starts a
    grandchild that sleeps 300 s and says its pid through a fifo; the test
    SIGKILLs the agent and waits on the grandchild's pidfd for its end. The
    agent confines tasks by cgroup where the machine allows (then the
    grandchild even leaves the task's session first) and by process group
    with DROVER_CONFINE=pgroup.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

//  Start a broker and one agent, run a task whose grandchild sleeps, kill
//  the agent with SIGKILL, and check the grandchild dies within 10 s
static void
s_grandchild_dies_with_agent (const char *confine, bool escape)
{
    setenv ("DROVER_CONFINE", confine, 1);
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    testutil_cluster_add_worker (cluster, 0, "victim", 2, NULL);
    unsetenv ("DROVER_CONFINE");
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 1, 10000));

    char fifo [128], script [384];
    snprintf (fifo, sizeof fifo, "%s/grandchild.fifo", cluster->logdir);
    assert_int_equal (mkfifo (fifo, 0600), 0);
    int fd = open (fifo, O_RDONLY | O_NONBLOCK);
    assert_true (fd >= 0);
    snprintf (script, sizeof script, "%s sh -c 'echo $$ > %s; exec sleep 300' & wait",
              escape? "setsid": "", fifo);
    uint64_t task = testutil_submit (dealer, testutil_submit_msg (script, 0, 1, 0));
    assert_true (task > 0);
    struct pollfd item = { fd, POLLIN, 0 };
    assert_int_equal (poll (&item, 1, 10000), 1);
    char line [32] = "";
    assert_true (read (fd, line, sizeof line - 1) > 0);
    close (fd);
    pid_t grandchild = atoi (line);
    assert_true (grandchild > 0);

    assert_int_equal (kill (cluster->workers [0], SIGKILL), 0);
    int status = testutil_wait_exit (cluster->workers [0], 5000);
    assert_true (status != -1 && WIFSIGNALED (status));
    cluster->workers [0] = 0;
    bool gone = testutil_await_gone (grandchild, 10000);
    if (!gone)
        kill (grandchild, SIGKILL);
    assert_true (gone);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  Where cgroup v2 is writable, the agent says so when it starts its first
//  task; otherwise the cgroup case proves nothing more than the other
static bool
s_cgroup_writable (void)
{
    FILE *mounts = fopen ("/proc/self/mounts", "r");
    char line [1024];
    bool found = false;
    while (mounts && fgets (line, sizeof line, mounts)) {
        char point [512], type [64];
        if (sscanf (line, "%*s %511s %63s", point, type) == 2 && streq (type, "cgroup2"))
            found = access (point, W_OK) == 0;
    }
    if (mounts)
        fclose (mounts);
    return found;
}

//  In its own cgroup, a grandchild that left the task's session still dies
static void
test_escaped_grandchild_dies_with_agent (void **state)
{
    if (!s_cgroup_writable ()) {
        print_message ("no writable cgroup v2 here: skipped\n");
        skip ();
    }
    s_grandchild_dies_with_agent ("auto", true);
}

//  With process groups only, the grandchild in the task's group dies
static void
test_grandchild_dies_with_agent_pgroup (void **state)
{
    s_grandchild_dies_with_agent ("pgroup", false);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_escaped_grandchild_dies_with_agent),
        cmocka_unit_test (test_grandchild_dies_with_agent_pgroup),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
