/*  =========================================================================
    test_drover_confine_announce - without a cgroup, a task's first process
    tells the supervisor its process group itself, before the task runs:
    a worker killed right after the clone, before it could say so, still
    takes the task's processes along

    A helper process plays the worker: it makes a confinement of process
    groups (with its supervisor) and starts a child that leads its own
    group, as the spawner's child does, then is SIGKILLed before it calls
    drover_confine_started. A child that announced itself dies; one that
    did not (the worker's old way, told only after the clone) lives on.
    =========================================================================
*/

#include "testutil_proc.h"
#include "drover_confine.h"
#include <signal.h>
#include <sys/wait.h>

//  Play the worker: start a child of its own process group, announced to
//  the supervisor if announce, and tell its pid on report; then wait to be
//  killed. Never returns.
static void
s_worker (int report, bool announce)
{
    drover_confine_t *confine = drover_confine_new ("pgroup");
    int guard_fd = drover_confine_guard_fd (confine, 0);
    if (guard_fd < 0)
        _exit (2);
    pid_t child = fork ();
    if (child == 0) {
        setpgid (0, 0);
        if (announce && drover_confine_announce (guard_fd) != 0)
            _exit (3);
        close (guard_fd);       //  as exec closes it (close-on-exec)
        pid_t self = getpid ();
        if (write (report, &self, sizeof self) != (ssize_t) sizeof self)
            _exit (4);
        while (true)
            pause ();
    }
    while (true)
        pause ();               //  killed before drover_confine_started
}

//  Start the played worker, kill it once its child runs; return whether
//  that child was gone within 5 s (it is killed here if not)
static bool
s_child_dies_with_worker (bool announce)
{
    int ends [2];
    assert_int_equal (pipe (ends), 0);
    pid_t worker = fork ();
    assert_true (worker >= 0);
    if (worker == 0) {
        close (ends [0]);
        s_worker (ends [1], announce);
    }
    close (ends [1]);
    pid_t child = 0;
    assert_int_equal (read (ends [0], &child, sizeof child), (ssize_t) sizeof child);
    close (ends [0]);
    assert_true (child > 0);
    assert_int_equal (kill (worker, SIGKILL), 0);
    int status;
    assert_int_equal (waitpid (worker, &status, 0), worker);
    bool gone = testutil_await_gone (child, 5000);
    if (!gone)
        kill (child, SIGKILL);
    return gone;
}

//  Announced before the task runs: its group dies with the worker
static void
test_announced_group_dies_with_worker (void **state)
{
    assert_true (s_child_dies_with_worker (true));
}

//  Not announced, the worker killed before it said so: the group lives on
//  (what the announcement is for)
static void
test_unannounced_group_outlives_worker (void **state)
{
    assert_false (s_child_dies_with_worker (false));
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_announced_group_dies_with_worker),
        cmocka_unit_test (test_unannounced_group_outlives_worker),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
