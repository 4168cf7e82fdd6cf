/*  =========================================================================
    test_drover_memlimit - a task's memory limit on this machine's memory
    controller (cgroup v2 where it has one, else v1: the development and
    CI machines are hybrid): a child allocating past its limit is killed
    by the OOM killer and that is told; one under it is not; a soft limit
    or none lets it through; the runner reports outcome OOM

    Real children, python3 allocating (and touching) 300 MiB against a
    64 MiB limit. On a machine with no memory controller at all each test
    says it skipped. Waits are bounded; nothing sleeps.
    =========================================================================
*/

#include "testutil_runner.h"
#include "drover_confine.h"
#include "drover_memlimit.h"
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define S_LIMIT         (64 << 20)  //  bytes each task may use
#define S_OVER          "x = bytearray(300 << 20)"
#define S_UNDER         "x = bytearray(8 << 20)"

//  True (said once per test) if the machine has no memory controller
static bool
s_skipped (drover_memlimit_t *memlimit, const char *test)
{
    if (drover_memlimit_controller (memlimit) != DROVER_MEMLIMIT_NONE)
        return false;
    fprintf (stderr, "test_drover_memlimit: %s skipped: this machine has no memory "
                     "controller (neither cgroup v2's nor v1's)\n", test);
    return true;
}

//  Run python3 -c program as a task of memlimit bounded to S_LIMIT, the
//  way the spawner does (into the task's v2 cgroup, into its v1 one
//  before exec); return whether the OOM killer killed in it and its status
static bool
s_run (drover_confine_t *confine, drover_memlimit_t *memlimit, const char *program,
       int *status_p, uint32_t *limit_p)
{
    uint32_t group;
    int v2_fd = drover_confine_prepare (confine, &group);
    assert_true (v2_fd >= -1);
    uint32_t limit;
    int join_fd;
    assert_int_equal (drover_memlimit_prepare (memlimit, S_LIMIT, v2_fd, &limit, &join_fd), 0);
    assert_true (limit > 0);
    if (v2_fd >= 0 && drover_memlimit_controller (memlimit) == DROVER_MEMLIMIT_V2)
        drover_confine_taint (confine, group);      //  as the spawner does
    assert_true (drover_memlimit_controller (memlimit) == DROVER_MEMLIMIT_V1
                 ? join_fd >= 0: join_fd == -1);
    pid_t pid = fork ();
    assert_true (pid >= 0);
    if (pid == 0) {
        if (v2_fd >= 0) {
            int procs = openat (v2_fd, "cgroup.procs", O_WRONLY);
            if (procs == -1 || write (procs, "0", 1) != 1)
                _exit (120);
        }
        if (join_fd >= 0 && write (join_fd, "0", 1) != 1)
            _exit (121);
        execlp ("python3", "python3", "-c", program, (char *) NULL);
        _exit (122);
    }
    if (join_fd >= 0)
        close (join_fd);
    int status;
    assert_int_equal (waitpid (pid, &status, 0), pid);
    bool oom = drover_memlimit_oom (memlimit, limit,
                                    WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL);
    drover_memlimit_release (memlimit, limit);
    drover_confine_release (confine, group, pid);
    *status_p = status;
    *limit_p = limit;
    return oom;
}

//  A hard limit: past it the OOM killer kills, and that is told; under it
//  the task runs to its end, and no OOM is told; the v1 directories go
static void
test_hard_limit_kills_past_it (void **state)
{
    drover_confine_t *confine = drover_confine_new ("auto");
    drover_memlimit_t *memlimit = drover_memlimit_new ("hard", drover_confine_cgroup (confine));
    assert_non_null (memlimit);
    if (s_skipped (memlimit, "test_hard_limit_kills_past_it")) {
        drover_memlimit_destroy (&memlimit);
        drover_confine_destroy (&confine);
        skip ();
    }
    fprintf (stderr, "test_drover_memlimit: through %s\n",
             drover_memlimit_controller_name (drover_memlimit_controller (memlimit)));
    int status;
    uint32_t limit;
    assert_true (s_run (confine, memlimit, S_OVER, &status, &limit));
    assert_true (WIFSIGNALED (status));
    assert_int_equal (WTERMSIG (status), SIGKILL);
    //  Asked again after its release: no such limit any more
    assert_false (drover_memlimit_oom (memlimit, limit, true));

    assert_false (s_run (confine, memlimit, S_UNDER, &status, &limit));
    assert_true (WIFEXITED (status));
    assert_int_equal (WEXITSTATUS (status), 0);
    assert_int_equal (drover_memlimit_next_tidy (memlimit), -1);
    drover_memlimit_destroy (&memlimit);
    drover_memlimit_destroy (&memlimit);        //  harmless twice
    assert_null (memlimit);
    drover_confine_destroy (&confine);
}

//  A soft limit lets a task past it (reclaimed, not killed)
static void
test_soft_limit_lets_through (void **state)
{
    drover_confine_t *confine = drover_confine_new ("auto");
    drover_memlimit_t *memlimit = drover_memlimit_new ("soft", drover_confine_cgroup (confine));
    if (s_skipped (memlimit, "test_soft_limit_lets_through")) {
        drover_memlimit_destroy (&memlimit);
        drover_confine_destroy (&confine);
        skip ();
    }
    int status;
    uint32_t limit;
    //  A little past it: on cgroup v2 memory.high throttles what it cannot
    //  reclaim, and this machine may have no swap
    assert_false (s_run (confine, memlimit, "x = bytearray(96 << 20)", &status, &limit));
    assert_true (WIFEXITED (status));
    assert_int_equal (WEXITSTATUS (status), 0);
    drover_memlimit_destroy (&memlimit);
    drover_confine_destroy (&confine);
}

//  Off, no mode known, no bytes: no limit is made
static void
test_off_and_unbounded (void **state)
{
    assert_null (drover_memlimit_new ("firm", NULL));
    assert_false (drover_memlimit_mode_valid ("firm"));
    assert_false (drover_memlimit_mode_valid (NULL));
    drover_memlimit_t *memlimit = drover_memlimit_new ("off", NULL);
    assert_non_null (memlimit);
    assert_int_equal (drover_memlimit_controller (memlimit), DROVER_MEMLIMIT_NONE);
    uint32_t limit = 7;
    int join_fd = 7;
    assert_int_equal (drover_memlimit_prepare (memlimit, S_LIMIT, -1, &limit, &join_fd), 0);
    assert_int_equal (limit, 0);
    assert_int_equal (join_fd, -1);
    drover_memlimit_destroy (&memlimit);

    memlimit = drover_memlimit_new (NULL, NULL);        //  hard
    assert_int_equal (drover_memlimit_prepare (memlimit, 0, -1, &limit, &join_fd), 0);
    assert_int_equal (limit, 0);
    assert_int_equal (join_fd, -1);
    assert_false (drover_memlimit_oom (memlimit, 12345, true));
    drover_memlimit_release (memlimit, 12345);          //  harmless
    assert_false (drover_memlimit_oom (memlimit, 0, true));
    drover_memlimit_release (memlimit, 0);              //  no limit: harmless
    drover_memlimit_destroy (&memlimit);
    assert_string_equal (drover_memlimit_controller_name (DROVER_MEMLIMIT_V1), "cgroup v1");
}

//  Build an exec running python3 -c program
static drover_exec_t *
s_python (const char *program)
{
    drover_exec_t *exec = drover_exec_new ();
    const char *argv [] = { "python3", "-c", program };
    assert_int_equal (drover_exec_set_argv (exec, 3, argv), 0);
    return exec;
}

//  The runner: a task past its --mem ends OOM (signal 9, the reason says
//  so); one under it, and one with no --mem, end as before
static void
test_runner_reports_oom (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    drover_exec_t *exec = s_python (S_OVER "; import time; time.sleep(1)");
    assert_int_equal (drover_runner_start_bounded (runner, 1, 1, exec, 0, S_LIMIT,
                                                   zclock_mono ()), 0);
    drover_exec_destroy (&exec);
    if (drover_runner_memory_controller (runner) == DROVER_MEMLIMIT_NONE) {
        fprintf (stderr, "test_drover_memlimit: test_runner_reports_oom skipped: this "
                         "machine has no memory controller\n");
        drover_msg_t *result = testutil_runner_wait_result (runner, 10000);
        drover_msg_destroy (&result);
        skip ();
    }
    drover_msg_t *result = testutil_runner_wait_outcome (runner, DROVER_OUTCOME_OOM);
    assert_int_equal (result->signal, SIGKILL);
    assert_non_null (result->reason);
    assert_non_null (strstr (result->reason, "OOM killer"));
    assert_non_null (strstr (result->reason, "67108864"));
    assert_string_equal (drover_outcome_name (result->outcome), "OOM");
    drover_msg_destroy (&result);

    exec = s_python (S_UNDER);
    assert_int_equal (drover_runner_start_bounded (runner, 2, 1, exec, 0, S_LIMIT,
                                                   zclock_mono ()), 0);
    result = testutil_runner_wait_outcome (runner, DROVER_OUTCOME_EXITED);
    assert_int_equal (result->exit_code, 0);
    drover_msg_destroy (&result);
    //  No --mem: unbounded, as before
    assert_int_equal (drover_runner_start (runner, 3, 1, exec, 0, zclock_mono ()), 0);
    drover_exec_destroy (&exec);
    result = testutil_runner_wait_outcome (runner, DROVER_OUTCOME_EXITED);
    assert_int_equal (result->exit_code, 0);
    drover_msg_destroy (&result);
}

//  With the limit off, the runner lets a task past its --mem
static void
test_runner_off (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    drover_runner_set_memory_limit (runner, "off");
    drover_exec_t *exec = s_python (S_OVER);
    assert_int_equal (drover_runner_start_bounded (runner, 1, 1, exec, 0, S_LIMIT,
                                                   zclock_mono ()), 0);
    drover_exec_destroy (&exec);
    assert_int_equal (drover_runner_memory_controller (runner), DROVER_MEMLIMIT_NONE);
    drover_msg_t *result = testutil_runner_wait_outcome (runner, DROVER_OUTCOME_EXITED);
    assert_int_equal (result->exit_code, 0);
    drover_msg_destroy (&result);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_hard_limit_kills_past_it),
        cmocka_unit_test (test_soft_limit_lets_through),
        cmocka_unit_test (test_off_and_unbounded),
        cmocka_unit_test_setup_teardown (test_runner_reports_oom,
                                         testutil_runner_setup, testutil_runner_teardown),
        cmocka_unit_test_setup_teardown (test_runner_off,
                                         testutil_runner_setup, testutil_runner_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
