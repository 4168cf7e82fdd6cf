/*  =========================================================================
    test_drover_runner_stop - the process runner ending tasks, with real
    child processes: timeouts (and children that ignore TERM), cancel,
    stop all, the worker dying, and the grandchildren a task leaves behind,
    in a cgroup or in a process group only

    Every test starts real `sh -c` children and drives the runner the way
    the worker loop does (testutil_runner). Waits are bounded by a
    deadline; nothing sleeps. The test process is a child subreaper, so
    grandchildren that a task leaves behind come back to it and their end
    can be observed.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_runner.h"
#include "drover_cgfile.h"
#include <limits.h>
#include <signal.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>

//  A child past its timeout gets SIGTERM and ends TIMEDOUT
static void
test_timeout (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    int64_t started = zclock_mono ();
    drover_msg_t *result = testutil_runner_run_shell (runner, "sleep 30", 200);
    assert_int_equal (result->outcome, DROVER_OUTCOME_TIMEDOUT);
    assert_int_equal (result->signal, SIGTERM);
    assert_true (result->duration >= 200);
    assert_true (zclock_mono () - started < 5000);
    assert_non_null (result->reason);
    assert_non_null (strstr (result->reason, "timed out"));
    drover_msg_destroy (&result);
}

//  Open a fifo for reading without blocking; the path is filled
static int
s_fifo_open (char *path, size_t size)
{
    snprintf (path, size, "/tmp/drover-runner-fifo-%d-%u", getpid (), (unsigned) zclock_mono ());
    assert_int_equal (mkfifo (path, 0600), 0);
    int fd = open (path, O_RDONLY | O_NONBLOCK);
    assert_true (fd >= 0);
    return fd;
}

//  Wait up to timeout msec for a line on the fifo; true if one came
static bool
s_fifo_ready (int fd, int timeout)
{
    struct pollfd item = { fd, POLLIN, 0 };
    if (poll (&item, 1, timeout) != 1)
        return false;
    char buffer [64];
    return read (fd, buffer, sizeof buffer) > 0;
}

//  Wait up to 5 s for the pid a task's process writes on the fifo
static pid_t
s_fifo_pid (int fd)
{
    struct pollfd item = { fd, POLLIN, 0 };
    assert_int_equal (poll (&item, 1, 5000), 1);
    char line [32] = "";
    assert_true (read (fd, line, sizeof line - 1) > 0);
    pid_t pid = atoi (line);
    assert_true (pid > 0);
    return pid;
}

//  A child that ignores SIGTERM is killed with SIGKILL after the grace
static void
test_timeout_ignores_term (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    drover_runner_set_grace (runner, 300);
    char fifo [128], script [256];
    int fd = s_fifo_open (fifo, sizeof fifo);
    snprintf (script, sizeof script, "trap '' TERM; echo ready > %s; sleep 30", fifo);
    drover_exec_t *exec = testutil_runner_shell (script);
    int64_t started = zclock_mono ();
    assert_int_equal (drover_runner_start (runner, 7, 2, exec, 100, started), 0);
    drover_exec_destroy (&exec);
    //  The runner acts on the timeout only once driven, after the trap is set
    assert_true (s_fifo_ready (fd, 5000));
    drover_msg_t *result = testutil_runner_wait_result (runner, 10000);
    assert_non_null (result);
    assert_int_equal (result->task, 7);
    assert_int_equal (result->attempt, 2);
    assert_int_equal (result->outcome, DROVER_OUTCOME_TIMEDOUT);
    assert_int_equal (result->signal, SIGKILL);
    assert_true (result->duration >= 100 + 300);
    drover_msg_destroy (&result);
    close (fd);
    unlink (fifo);
}

//  Cancel kills the attempt (and its process group) and says CANCELLED
static void
test_cancel (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    drover_runner_set_grace (runner, 300);
    char fifo [128], script [256];
    int fd = s_fifo_open (fifo, sizeof fifo);
    //  The grandchild ignores SIGTERM: only the SIGKILL of the group ends it
    snprintf (script, sizeof script,
              "sh -c 'trap \"\" TERM; echo $$ > %s; exec sleep 30' & wait", fifo);
    drover_exec_t *exec = testutil_runner_shell (script);
    assert_int_equal (drover_runner_start (runner, 9, 1, exec, 0, zclock_mono ()), 0);
    drover_exec_destroy (&exec);
    pid_t grandchild = s_fifo_pid (fd);

    assert_true (drover_runner_running (runner, 9, 1));
    assert_int_equal (drover_runner_cancel (runner, 9, 2, zclock_mono ()), -1);
    assert_int_equal (drover_runner_cancel (runner, 9, 1, zclock_mono ()), 0);
    drover_msg_t *result = testutil_runner_wait_outcome (runner, DROVER_OUTCOME_CANCELLED);
    assert_int_equal (result->signal, SIGTERM);
    assert_false (drover_runner_running (runner, 9, 1));
    drover_msg_destroy (&result);
    //  The orphaned grandchild came back to us, the subreaper: it was killed
    int status = testutil_wait_exit (grandchild, 5000);
    assert_true (status != -1);
    assert_true (WIFSIGNALED (status));
    assert_int_equal (WTERMSIG (status), SIGKILL);
    close (fd);
    unlink (fifo);
}

//  A grandchild holding stdout open does not delay the result
static void
test_lingering_grandchild (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    int64_t started = zclock_mono ();
    drover_msg_t *result = testutil_runner_run_shell (runner, "sleep 30 & echo started", 0);
    assert_true (zclock_mono () - started < 5000);
    assert_int_equal (result->outcome, DROVER_OUTCOME_EXITED);
    testutil_runner_assert_out (result, "started\n");
    drover_msg_destroy (&result);
}

//  A task dies with its worker: when the process that started it is
//  killed outright, PR_SET_PDEATHSIG sends the task SIGKILL
static void
test_dies_with_worker (void **state)
{
    char fifo [128], script [256];
    int fd = s_fifo_open (fifo, sizeof fifo);
    snprintf (script, sizeof script, "echo $$ > %s; exec sleep 30", fifo);
    int go [2];
    assert_int_equal (pipe (go), 0);
    pid_t worker = fork ();
    assert_true (worker >= 0);
    if (worker == 0) {
        //  The "worker": start the task, wait for the word, die
        close (go [1]);
        drover_runner_t *runner = drover_runner_new ();
        drover_exec_t *exec = testutil_runner_shell (script);
        int rc = drover_runner_start (runner, 1, 1, exec, 0, zclock_mono ());
        char byte_read;
        if (read (go [0], &byte_read, 1) < 0)
            rc = -1;
        _exit (rc == 0? 0: 1);
    }
    close (go [0]);
    pid_t task = s_fifo_pid (fd);
    close (go [1]);             //  the worker exits without stopping its task
    int status = testutil_wait_exit (worker, 5000);
    assert_true (status != -1);
    assert_true (WIFEXITED (status));
    assert_int_equal (WEXITSTATUS (status), 0);
    //  The orphaned task came back to us, the subreaper: it was killed
    status = testutil_wait_exit (task, 5000);
    if (status == -1)
        kill (task, SIGKILL);
    assert_true (status != -1);
    assert_true (WIFSIGNALED (status));
    assert_int_equal (WTERMSIG (status), SIGKILL);
    close (fd);
    unlink (fifo);
}

//  stop_all ends everything within the grace, SIGKILL for the stubborn
static void
test_stop_all (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    drover_runner_set_grace (runner, 300);
    drover_exec_t *exec = testutil_runner_shell ("sleep 30");
    assert_int_equal (drover_runner_start (runner, 1, 1, exec, 0, zclock_mono ()), 0);
    drover_exec_destroy (&exec);
    exec = testutil_runner_shell ("trap '' TERM; sleep 30");
    assert_int_equal (drover_runner_start (runner, 2, 1, exec, 0, zclock_mono ()), 0);
    drover_exec_destroy (&exec);
    int64_t started = zclock_mono ();
    drover_runner_stop_all (runner);
    assert_true (zclock_mono () - started < 3000);
    assert_int_equal (drover_runner_size (runner), 0);
    assert_null (drover_runner_next_result (runner));
}

//  ---------------------------------------------------------------------
//  Every process a task starts ends with it, orphans too: the grandchild
//  below runs `sleep 300` and, with a cgroup, leaves the task's process
//  group and session first (setsid), so only the cgroup holds it

static int
s_setup_pgroup (void **state)
{
    drover_runner_t *runner = drover_runner_new ();
    drover_runner_set_confine (runner, "pgroup");
    *state = runner;
    return 0;
}

//  Start a task (task 1, attempt 1) whose grandchild sleeps; return the
//  grandchild's pid. escape: the grandchild calls setsid first.
static pid_t
s_start_grandchild (drover_runner_t *runner, bool escape, uint32_t timeout)
{
    char fifo [128], script [384];
    int fd = s_fifo_open (fifo, sizeof fifo);
    snprintf (script, sizeof script,
              "%s sh -c 'echo $$ > %s; exec sleep 300' & wait",
              escape? "setsid": "", fifo);
    drover_exec_t *exec = testutil_runner_shell (script);
    assert_int_equal (drover_runner_start (runner, 1, 1, exec, timeout, zclock_mono ()), 0);
    drover_exec_destroy (&exec);
    pid_t grandchild = s_fifo_pid (fd);
    close (fd);
    unlink (fifo);
    return grandchild;
}

//  The grandchild is gone within 5 s (killed, not left to run)
static void
s_assert_gone (pid_t grandchild)
{
    bool gone = testutil_await_gone (grandchild, 5000);
    if (!gone)
        kill (grandchild, SIGKILL);
    assert_true (gone);
}

//  Skip a cgroup test where the machine gives tasks no cgroup
static bool
s_without_cgroup (drover_runner_t *runner)
{
    if (drover_runner_cgroup (runner))
        return false;
    print_message ("no cgroup v2 for tasks here: skipped\n");
    return true;
}

//  s_without_cgroup once the runner has run a first task (`true`): it
//  makes its cgroup directory then
static bool
s_without_cgroup_after_one (drover_runner_t *runner)
{
    drover_msg_t *result = testutil_runner_run_shell (runner, "true", 0);
    drover_msg_destroy (&result);
    return s_without_cgroup (runner);
}

//  Cancel ends the grandchild that left the task's process group
static void
test_cancel_kills_escaped_grandchild (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    drover_runner_set_grace (runner, 300);
    pid_t grandchild = s_start_grandchild (runner, true, 0);
    if (s_without_cgroup (runner)) {
        kill (grandchild, SIGKILL);
        skip ();
    }
    assert_int_equal (drover_runner_cancel (runner, 1, 1, zclock_mono ()), 0);
    drover_msg_t *result = testutil_runner_wait_outcome (runner, DROVER_OUTCOME_CANCELLED);
    drover_msg_destroy (&result);
    s_assert_gone (grandchild);
}

//  A timeout ends the grandchild that left the task's process group
static void
test_timeout_kills_escaped_grandchild (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    drover_runner_set_grace (runner, 300);
    pid_t grandchild = s_start_grandchild (runner, true, 300);
    if (s_without_cgroup (runner)) {
        kill (grandchild, SIGKILL);
        skip ();
    }
    drover_msg_t *result = testutil_runner_wait_outcome (runner, DROVER_OUTCOME_TIMEDOUT);
    drover_msg_destroy (&result);
    s_assert_gone (grandchild);
}

//  With process groups only, cancel and timeout end the grandchild too
static void
test_pgroup_cancel_and_timeout_kill_grandchild (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    drover_runner_set_grace (runner, 300);
    pid_t grandchild = s_start_grandchild (runner, false, 0);
    assert_null (drover_runner_cgroup (runner));
    assert_int_equal (drover_runner_cancel (runner, 1, 1, zclock_mono ()), 0);
    drover_msg_t *result = testutil_runner_wait_outcome (runner, DROVER_OUTCOME_CANCELLED);
    drover_msg_destroy (&result);
    s_assert_gone (grandchild);

    grandchild = s_start_grandchild (runner, false, 300);
    result = testutil_runner_wait_outcome (runner, DROVER_OUTCOME_TIMEDOUT);
    drover_msg_destroy (&result);
    s_assert_gone (grandchild);
}

//  A "worker" process starts a task with a grandchild, then is SIGKILLed:
//  its supervisor kills the grandchild. Returns the grandchild's pid.
static void
s_grandchild_dies_with_worker (const char *mode, bool escape)
{
    char fifo [128], script [384];
    int fd = s_fifo_open (fifo, sizeof fifo);
    snprintf (script, sizeof script,
              "%s sh -c 'echo $$ > %s; exec sleep 300' & wait", escape? "setsid": "", fifo);
    int go [2];
    assert_int_equal (pipe (go), 0);
    pid_t worker = fork ();
    assert_true (worker >= 0);
    if (worker == 0) {
        //  The "worker": start the task, wait for the word, die outright
        close (go [1]);
        drover_runner_t *runner = drover_runner_new ();
        drover_runner_set_confine (runner, mode);
        drover_exec_t *exec = testutil_runner_shell (script);
        int rc = drover_runner_start (runner, 1, 1, exec, 0, zclock_mono ());
        char byte_read;
        if (rc == 0 && read (go [0], &byte_read, 1) >= 0)
            raise (SIGKILL);
        _exit (1);
    }
    close (go [0]);
    pid_t grandchild = s_fifo_pid (fd);
    close (go [1]);
    int status = testutil_wait_exit (worker, 5000);
    assert_true (status != -1);
    assert_true (WIFSIGNALED (status));
    assert_int_equal (WTERMSIG (status), SIGKILL);
    s_assert_gone (grandchild);
    close (fd);
    unlink (fifo);
}

//  With cgroups, even a grandchild in its own session dies with the worker
static void
test_escaped_grandchild_dies_with_worker (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    if (s_without_cgroup_after_one (runner))
        skip ();
    s_grandchild_dies_with_worker ("auto", true);
}

//  With process groups only, the grandchild dies with the worker
static void
test_pgroup_grandchild_dies_with_worker (void **state)
{
    s_grandchild_dies_with_worker ("pgroup", false);
}

//  Count the task cgroups under dir that hold a process (cgroup.events
//  "populated 1"); *dirs_p: the task cgroup directories
static int
s_populated (const char *dir, int *dirs_p)
{
    int populated = 0, dirs = 0;
    DIR *handle = opendir (dir);
    assert_non_null (handle);
    struct dirent *entry;
    while ((entry = readdir (handle))) {
        if (entry->d_type != DT_DIR || entry->d_name [0] != 't')
            continue;
        dirs++;
        char path [PATH_MAX];
        snprintf (path, sizeof path, "%s/%s/cgroup.events", dir, entry->d_name);
        char *events = drover_cgfile_read (path);
        if (events && strstr (events, "populated 1"))
            populated++;
        free (events);
    }
    closedir (handle);
    if (dirs_p)
        *dirs_p = dirs;
    return populated;
}

//  A task's cgroup is emptied when it ends, even when something it
//  started lingered, and kept for the next task; the worker's cgroup
//  directory goes with the runner
static void
test_cgroups_removed (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    if (s_without_cgroup_after_one (runner))
        skip ();
    char *dir = strdup (drover_runner_cgroup (runner));
    drover_msg_t *result = testutil_runner_run_shell (runner, "sleep 30 & echo started", 0);
    drover_msg_destroy (&result);
    //  Wait (driving the runner) until no task cgroup holds a process
    int64_t deadline = zclock_mono () + 5000;
    int populated = -1, dirs = 0;
    while (populated != 0 && zclock_mono () < deadline) {
        populated = s_populated (dir, &dirs);
        if (populated)
            assert_null (testutil_runner_wait_result (runner, 20));
    }
    assert_int_equal (populated, 0);
    assert_true (dirs >= 1 && dirs <= 2);      //  pooled, not one per task
    drover_runner_destroy (&runner);
    *state = NULL;
    struct stat info;
    assert_int_equal (stat (dir, &info), -1);
    assert_int_equal (errno, ENOENT);
    free (dir);
}

//  Run script as a task; return its first line of output (its cgroup, as
//  the scripts below print it first), fresh
static char *
s_run_first_line (drover_runner_t *runner, const char *script)
{
    drover_msg_t *result = testutil_runner_run_shell (runner, script, 0);
    assert_int_equal (result->outcome, DROVER_OUTCOME_EXITED);
    assert_int_equal (result->exit_code, 0);
    assert_true (result->out_size > 0);
    char *line = (char *) zmalloc (result->out_size + 1);
    memcpy (line, result->out, result->out_size);
    line [strcspn (line, "\n")] = 0;
    drover_msg_destroy (&result);
    return line;
}

//  Tasks reuse a pooled cgroup; one whose task left a grandchild in it (in
//  a session of its own) is killed whole at the task's end and not reused
//  (a killed cgroup kills children cloned into it on Linux 6.14+): the
//  next task runs alone in a cgroup of its own
static void
test_pooled_cgroup_reused_empty (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    if (s_without_cgroup_after_one (runner))
        skip ();
    const char *own = "sed -n 's/^0:://p' /proc/self/cgroup";
    char *first = s_run_first_line (runner, own);
    char *again = s_run_first_line (runner, own);
    assert_string_equal (first, again);         //  the same cgroup, pooled
    free (again);

    //  A task that leaves a grandchild behind, in its own session
    char file [128], script [PATH_MAX + 1024];
    snprintf (file, sizeof file, "/tmp/drover-runner-pool-%d-%u", getpid (),
              (unsigned) zclock_mono ());
    snprintf (script, sizeof script,
              "%s; setsid sh -c 'echo $$ > %s.tmp; mv %s.tmp %s; exec sleep 300' & "
              "until [ -s %s ]; do :; done", own, file, file, file, file);
    char *held = s_run_first_line (runner, script);
    assert_string_equal (first, held);
    char *text = drover_cgfile_read (file);
    assert_non_null (text);
    pid_t grandchild = atoi (text);
    free (text);
    unlink (file);
    assert_true (grandchild > 0);
    s_assert_gone (grandchild);                 //  killed with its task
    //  Drive the runner until the killed cgroup is seen empty and removed
    int64_t deadline = zclock_mono () + 5000;
    while (drover_runner_next_deadline (runner) != -1 && zclock_mono () < deadline)
        assert_null (testutil_runner_wait_result (runner, 20));
    assert_int_equal (drover_runner_next_deadline (runner), -1);

    char path [PATH_MAX * 2];
    snprintf (path, sizeof path, "%s", drover_runner_cgroup (runner));
    *strrchr (path, '/') = 0;
    snprintf (path + strlen (path), sizeof path - strlen (path), "%s", held);
    struct stat info;
    assert_int_equal (stat (path, &info), -1);
    free (held);

    //  The next task is the only process in its cgroup, and the one after
    //  it runs in the same, pooled
    char mount [PATH_MAX];
    snprintf (mount, sizeof mount, "%s", drover_runner_cgroup (runner));
    *strrchr (mount, '/') = 0;
    snprintf (script, sizeof script,
              "g=$(%s); echo $g; n=0; while read p; do n=$((n+1)); done < %s$g/cgroup.procs; "
              "echo $n", own, mount);
    drover_msg_t *result = testutil_runner_run_shell (runner, script, 0);
    if (result->outcome != DROVER_OUTCOME_EXITED)
        print_message ("outcome %d: %s; err: %.*s\n", result->outcome,
                       result->reason? result->reason: "", (int) result->err_size,
                       (char *) result->err);
    assert_int_equal (result->outcome, DROVER_OUTCOME_EXITED);
    char expect [PATH_MAX + 8];
    char *next = s_run_first_line (runner, own);
    snprintf (expect, sizeof expect, "%s\n1\n", next);
    testutil_runner_assert_out (result, expect);
    drover_msg_destroy (&result);
    free (next);
    free (first);
}

int
main (void)
{
    //  Orphans of tasks come back to us, so tests can see how they ended
    prctl (PR_SET_CHILD_SUBREAPER, 1);
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_timeout, testutil_runner_setup,
                                         testutil_runner_teardown),
        cmocka_unit_test_setup_teardown (test_timeout_ignores_term, testutil_runner_setup,
                                         testutil_runner_teardown),
        cmocka_unit_test_setup_teardown (test_cancel, testutil_runner_setup,
                                         testutil_runner_teardown),
        cmocka_unit_test_setup_teardown (test_lingering_grandchild, testutil_runner_setup,
                                         testutil_runner_teardown),
        cmocka_unit_test_setup_teardown (test_dies_with_worker, testutil_runner_setup,
                                         testutil_runner_teardown),
        cmocka_unit_test_setup_teardown (test_stop_all, testutil_runner_setup,
                                         testutil_runner_teardown),
        cmocka_unit_test_setup_teardown (test_cancel_kills_escaped_grandchild,
                                         testutil_runner_setup, testutil_runner_teardown),
        cmocka_unit_test_setup_teardown (test_timeout_kills_escaped_grandchild,
                                         testutil_runner_setup, testutil_runner_teardown),
        cmocka_unit_test_setup_teardown (test_pgroup_cancel_and_timeout_kill_grandchild,
                                         s_setup_pgroup, testutil_runner_teardown),
        cmocka_unit_test_setup_teardown (test_escaped_grandchild_dies_with_worker,
                                         testutil_runner_setup, testutil_runner_teardown),
        cmocka_unit_test_setup_teardown (test_pgroup_grandchild_dies_with_worker,
                                         testutil_runner_setup, testutil_runner_teardown),
        cmocka_unit_test_setup_teardown (test_cgroups_removed, testutil_runner_setup,
                                         testutil_runner_teardown),
        cmocka_unit_test_setup_teardown (test_pooled_cgroup_reused_empty, testutil_runner_setup,
                                         testutil_runner_teardown),
        //  The tests written for process groups, again with process groups only
        cmocka_unit_test_setup_teardown (test_cancel, s_setup_pgroup, testutil_runner_teardown),
        cmocka_unit_test_setup_teardown (test_timeout_ignores_term, s_setup_pgroup,
                                         testutil_runner_teardown),
        cmocka_unit_test_setup_teardown (test_dies_with_worker, s_setup_pgroup,
                                         testutil_runner_teardown),
        cmocka_unit_test_setup_teardown (test_stop_all, s_setup_pgroup, testutil_runner_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
