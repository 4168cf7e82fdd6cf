/*  =========================================================================
    test_drover_runner_results - the process runner, with real child
    processes: what a task is given (stdin, environment, working
    directory, PATH, signal state) and what its result says (exit codes,
    signals, output and its truncation, a failed spawn, the machine's
    failures), many at once, and with SIGCHLD ignored

    Every test starts real `sh -c` children and drives the runner the way
    the worker loop does (testutil_runner). Waits are bounded by a
    deadline; nothing sleeps. The test process is a child subreaper, so
    grandchildren that a task leaves behind come back to it.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_runner.h"
#include <signal.h>
#include <pthread.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <pwd.h>
#include <limits.h>

//  Exit codes come back as EXITED with the status
static void
test_exit_codes (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    drover_msg_t *result = testutil_runner_run_shell (runner, "exit 3", 0);
    assert_int_equal (result->task, 1);
    assert_int_equal (result->attempt, 1);
    assert_int_equal (result->outcome, DROVER_OUTCOME_EXITED);
    assert_int_equal (result->exit_code, 3);
    assert_int_equal (result->signal, 0);
    assert_int_equal (result->truncated, 0);
    assert_int_equal (result->out_size, 0);
    drover_msg_destroy (&result);

    result = testutil_runner_run_shell (runner, "true", 0);
    assert_int_equal (result->outcome, DROVER_OUTCOME_EXITED);
    assert_int_equal (result->exit_code, 0);
    drover_msg_destroy (&result);
}

//  A child that closes its stdout and stderr and goes on running is not
//  taken for ended when its pipes reach their end: its exit status, and
//  the output before, still come back whole
static void
test_pipes_closed_early (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    drover_msg_t *result = testutil_runner_run_shell (
        runner, "echo before; exec >&- 2>&-; sleep 0.2; exit 7", 0);
    assert_int_equal (result->outcome, DROVER_OUTCOME_EXITED);
    assert_int_equal (result->exit_code, 7);
    assert_true (result->duration >= 150);
    testutil_runner_assert_out (result, "before\n");
    drover_msg_destroy (&result);
}

//  A child killed by a signal is SIGNALLED with that signal
static void
test_signal (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    drover_msg_t *result = testutil_runner_run_shell (runner, "kill -9 $$", 0);
    assert_int_equal (result->outcome, DROVER_OUTCOME_SIGNALLED);
    assert_int_equal (result->signal, SIGKILL);
    assert_non_null (result->reason);
    drover_msg_destroy (&result);
}

//  stdout and stderr are captured separately
static void
test_output (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    drover_msg_t *result =
        testutil_runner_run_shell (runner, "echo out; echo err >&2; echo more", 0);
    testutil_runner_assert_out (result, "out\nmore\n");
    assert_int_equal (result->err_size, 4);
    assert_memory_equal (result->err, "err\n", 4);
    drover_msg_destroy (&result);
}

//  The input bytes arrive on stdin, binary and large; no input reads as empty
static void
test_stdin (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    drover_exec_t *exec = drover_exec_new ();
    const char *cat [] = { "cat" };
    drover_exec_set_argv (exec, 1, cat);
    drover_exec_set_input (exec, (const byte *) "hello\0world", 11);
    drover_msg_t *result = testutil_runner_run (runner, &exec, 0);
    assert_int_equal (result->out_size, 11);
    assert_memory_equal (result->out, "hello\0world", 11);
    drover_msg_destroy (&result);

    //  A full-size input, to a child that never reads it, must not block
    byte *big = (byte *) malloc (DROVER_INPUT_MAX);
    memset (big, 'x', DROVER_INPUT_MAX);
    exec = testutil_runner_shell ("exit 0");
    drover_exec_set_input (exec, big, DROVER_INPUT_MAX);
    result = testutil_runner_run (runner, &exec, 0);
    assert_int_equal (result->exit_code, 0);
    drover_msg_destroy (&result);

    exec = testutil_runner_shell ("wc -c");
    drover_exec_set_input (exec, big, DROVER_INPUT_MAX);
    result = testutil_runner_run (runner, &exec, 0);
    char expect [32];
    snprintf (expect, sizeof expect, "%d\n", DROVER_INPUT_MAX);
    testutil_runner_assert_out (result, expect);
    drover_msg_destroy (&result);
    free (big);

    result = testutil_runner_run_shell (runner, "wc -c", 0);
    testutil_runner_assert_out (result, "0\n");
    drover_msg_destroy (&result);
}

//  A task sees none of the worker's variables but those allowed through,
//  and its own entries win over them; cwd applies
static void
test_env_and_cwd (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    setenv ("RUNNER_TEST_HIDDEN", "leaked", 1);
    setenv ("RUNNER_TEST_INHERITED", "kept", 1);
    setenv ("RUNNER_TEST_OVERRIDE", "old", 1);
    drover_taskenv_t *taskenv = drover_taskenv_new ();
    char *error = NULL;
    assert_int_equal (drover_taskenv_pass (taskenv, "RUNNER_TEST_INHERITED,RUNNER_TEST_OVER*",
                                           &error), 0);
    drover_runner_set_taskenv (runner, taskenv);
    char dir [] = "/tmp/drover-runner-XXXXXX";
    assert_non_null (mkdtemp (dir));
    char *real = realpath (dir, NULL);
    assert_non_null (real);

    drover_exec_t *exec = testutil_runner_shell ("echo $RUNNER_TEST_HIDDEN/$RUNNER_TEST_INHERITED/"
                                                 "$RUNNER_TEST_OVERRIDE/$RUNNER_TEST_NEW; pwd");
    drover_exec_add_env (exec, "RUNNER_TEST_OVERRIDE=new");
    drover_exec_add_env (exec, "RUNNER_TEST_NEW=added");
    drover_exec_set_cwd (exec, dir);
    drover_msg_t *result = testutil_runner_run (runner, &exec, 0);
    char expect [512];
    snprintf (expect, sizeof expect, "/kept/new/added\n%s\n", real);
    testutil_runner_assert_out (result, expect);
    drover_msg_destroy (&result);
    drover_runner_set_taskenv (runner, NULL);   //  back to its own, before ours goes
    drover_taskenv_destroy (&taskenv);
    rmdir (dir);
    free (real);
    unsetenv ("RUNNER_TEST_HIDDEN");
    unsetenv ("RUNNER_TEST_INHERITED");
    unsetenv ("RUNNER_TEST_OVERRIDE");
}

//  By default a task's environment is the documented base exactly, for
//  the worker's own user, then who it is (task 1, attempt 1, and the
//  worker id once set): none of the worker's variables
static void
test_env_base_only (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    setenv ("RUNNER_TEST_SECRET", "leaked", 1);
    struct passwd *pw = getpwuid (geteuid ());
    assert_non_null (pw);
    const char *argv [] = { "env" };
    for (int named = 0; named < 2; named++) {
        drover_runner_set_worker (runner, named? "rack-2": NULL);
        drover_exec_t *exec = drover_exec_new ();
        assert_int_equal (drover_exec_set_argv (exec, 1, argv), 0);
        drover_msg_t *result = testutil_runner_run (runner, &exec, 0);
        char expect [1024];
        snprintf (expect, sizeof expect, "PATH=/usr/local/bin:/usr/bin:/bin\nHOME=%s\nUSER=%s\n"
                  "LOGNAME=%s\nLANG=C.UTF-8\nDROVER_TASK_ID=1\nDROVER_ATTEMPT=1\n%s",
                  pw->pw_dir, pw->pw_name, pw->pw_name, named? "DROVER_WORKER=rack-2\n": "");
        testutil_runner_assert_out (result, expect);
        drover_msg_destroy (&result);
    }
    drover_runner_set_worker (runner, NULL);
    unsetenv ("RUNNER_TEST_SECRET");
}

//  Write an executable file path holding text
static void
s_write_program (const char *path, const char *text)
{
    FILE *file = fopen (path, "w");
    assert_non_null (file);
    fputs (text, file);
    fclose (file);
    assert_int_equal (chmod (path, 0755), 0);
}

//  A command is looked up in the task's own PATH (the one it will see),
//  not the worker's; a file without #! runs under /bin/sh, as execvp's
static void
test_command_found_in_task_path (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    char dir [] = "/tmp/drover-runner-XXXXXX";
    assert_non_null (mkdtemp (dir));
    char probe [PATH_MAX], bare [PATH_MAX];
    snprintf (probe, sizeof probe, "%s/drover-path-probe", dir);
    snprintf (bare, sizeof bare, "%s/drover-bare-script", dir);
    s_write_program (probe, "#!/bin/sh\necho \"found $1\"\n");
    s_write_program (bare, "echo \"bare $1\"\n");
    char path [PATH_MAX + 64];
    snprintf (path, sizeof path, "PATH=/nonexistent/bin::%s:/usr/bin:/bin", dir);

    const char *names [] = { "drover-path-probe", "drover-bare-script" };
    const char *expected [] = { "found x\n", "bare x\n" };
    for (int index = 0; index < 2; index++) {
        drover_exec_t *exec = drover_exec_new ();
        const char *argv [] = { names [index], "x" };
        assert_int_equal (drover_exec_set_argv (exec, 2, argv), 0);
        drover_exec_add_env (exec, path);
        drover_msg_t *result = testutil_runner_run (runner, &exec, 0);
        assert_int_equal (result->outcome, DROVER_OUTCOME_EXITED);
        testutil_runner_assert_out (result, expected [index]);
        drover_msg_destroy (&result);
    }
    //  Not in the task's PATH, though in the worker's: not found
    char *saved = strdup (getenv ("PATH")? getenv ("PATH"): "/usr/bin:/bin");
    char *worker_path = zsys_sprintf ("%s:%s", dir, saved);
    setenv ("PATH", worker_path, 1);
    drover_exec_t *exec = drover_exec_new ();
    const char *argv [] = { "drover-path-probe" };
    assert_int_equal (drover_exec_set_argv (exec, 1, argv), 0);
    assert_int_equal (drover_runner_start (runner, 7, 1, exec, 0, zclock_mono ()), -1);
    drover_msg_t *result = drover_runner_next_result (runner);
    setenv ("PATH", saved, 1);
    assert_non_null (result);
    assert_int_equal (result->outcome, DROVER_OUTCOME_SPAWN_FAILED);
    assert_non_null (strstr (result->reason, "No such file"));
    drover_msg_destroy (&result);
    drover_exec_destroy (&exec);
    free (worker_path);
    free (saved);
    unlink (probe);
    unlink (bare);
    rmdir (dir);
}

//  Output past DROVER_OUTPUT_MAX is read and discarded, and flagged
static void
test_truncated (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    drover_msg_t *result =
        testutil_runner_run_shell (runner, "head -c 3000000 /dev/zero; echo small >&2", 0);
    assert_int_equal (result->outcome, DROVER_OUTCOME_EXITED);
    assert_int_equal (result->exit_code, 0);
    assert_int_equal (result->out_size, DROVER_OUTPUT_MAX);
    assert_int_equal (result->truncated, DROVER_TRUNC_STDOUT);
    assert_int_equal (result->err_size, 6);
    drover_msg_destroy (&result);

    result = testutil_runner_run_shell (runner, "head -c 3000000 /dev/zero >&2", 0);
    assert_int_equal (result->err_size, DROVER_OUTPUT_MAX);
    assert_int_equal (result->truncated, DROVER_TRUNC_STDERR);
    drover_msg_destroy (&result);

    //  Exactly the bound is not truncated
    result = testutil_runner_run_shell (runner, "head -c 1048576 /dev/zero", 0);
    assert_int_equal (result->out_size, DROVER_OUTPUT_MAX);
    assert_int_equal (result->truncated, 0);
    drover_msg_destroy (&result);
}

//  A command that does not exist, or a bad cwd, is SPAWN_FAILED with a reason
static void
test_spawn_failed (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    drover_exec_t *exec = drover_exec_new ();
    const char *argv [] = { "drover-no-such-command", "x" };
    drover_exec_set_argv (exec, 2, argv);
    assert_int_equal (drover_runner_start (runner, 5, 1, exec, 0, zclock_mono ()), -1);
    assert_int_equal (drover_runner_size (runner), 0);
    drover_msg_t *result = drover_runner_next_result (runner);
    assert_non_null (result);
    assert_int_equal (result->task, 5);
    assert_int_equal (result->outcome, DROVER_OUTCOME_SPAWN_FAILED);
    assert_non_null (result->reason);
    assert_non_null (strstr (result->reason, "drover-no-such-command"));
    assert_non_null (strstr (result->reason, "No such file"));
    assert_int_equal (result->exit_code, -1);       //  nothing ran: no status
    assert_int_equal (result->signal, 0);
    drover_msg_destroy (&result);

    drover_exec_set_argv (exec, 1, (const char *[]) { "true" });
    drover_exec_set_cwd (exec, "/nonexistent/drover");
    assert_int_equal (drover_runner_start (runner, 6, 1, exec, 0, zclock_mono ()), -1);
    result = drover_runner_next_result (runner);
    assert_non_null (result);
    assert_int_equal (result->outcome, DROVER_OUTCOME_SPAWN_FAILED);
    assert_non_null (strstr (result->reason, "chdir"));
    drover_msg_destroy (&result);
    assert_null (drover_runner_next_result (runner));
    drover_exec_destroy (&exec);
}

//  Read a signal mask line ("SigBlk:", "SigIgn:") from a /proc status text
static uint64_t
s_status_mask (const char *status, const char *name)
{
    const char *line = strstr (status, name);
    assert_non_null (line);
    unsigned long long mask = 0;
    assert_int_equal (sscanf (line + strlen (name), " %llx", &mask), 1);
    return (uint64_t) mask;
}

//  The handler that must not reach tasks
static void
s_handler (int signum)
{
}

//  Signals the worker ignores, handles or blocks reach the task at their
//  default, unblocked; the worker's own mask and handlers stay as they were
static void
test_signals_reset (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    struct sigaction ignore, handle, old_pipe, old_usr1;
    memset (&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    memset (&handle, 0, sizeof handle);
    handle.sa_handler = s_handler;
    sigaction (SIGPIPE, &ignore, &old_pipe);
    sigaction (SIGUSR1, &handle, &old_usr1);
    sigset_t block, old_mask;
    sigemptyset (&block);
    sigaddset (&block, SIGUSR2);
    pthread_sigmask (SIG_BLOCK, &block, &old_mask);

    drover_exec_t *exec = drover_exec_new ();
    const char *argv [] = { "cat", "/proc/self/status" };
    drover_exec_set_argv (exec, 2, argv);
    drover_msg_t *result = testutil_runner_run (runner, &exec, 0);

    sigset_t mask_after;
    pthread_sigmask (SIG_SETMASK, &old_mask, &mask_after);
    struct sigaction pipe_after, usr1_after;
    sigaction (SIGPIPE, &old_pipe, &pipe_after);
    sigaction (SIGUSR1, &old_usr1, &usr1_after);
    assert_true (sigismember (&mask_after, SIGUSR2));
    assert_false (sigismember (&mask_after, SIGINT));
    assert_true (pipe_after.sa_handler == SIG_IGN);
    assert_true (usr1_after.sa_handler == s_handler);

    assert_int_equal (result->exit_code, 0);
    char *status = (char *) zmalloc (result->out_size + 1);
    memcpy (status, result->out, result->out_size);
    assert_int_equal (s_status_mask (status, "SigBlk:"), 0);
    uint64_t ignored = s_status_mask (status, "SigIgn:");
    assert_int_equal (ignored & (1ULL << (SIGPIPE - 1)), 0);
    uint64_t caught = s_status_mask (status, "SigCgt:");
    assert_int_equal (caught, 0);
    free (status);
    drover_msg_destroy (&result);
}

#define S_MANY 60

//  Many short tasks at once: every one is reaped with its own output
static void
test_many_concurrent (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    for (int index = 0; index < S_MANY; index++) {
        char script [64];
        snprintf (script, sizeof script, "echo task-%d", index);
        drover_exec_t *exec = testutil_runner_shell (script);
        assert_int_equal (drover_runner_start (runner, 100 + index, 1, exec, 0, zclock_mono ()), 0);
        drover_exec_destroy (&exec);
    }
    assert_int_equal (drover_runner_size (runner), S_MANY);
    drover_taskref_t refs [S_MANY];
    assert_int_equal (drover_runner_list (runner, refs, S_MANY), S_MANY);
    bool seen [S_MANY] = { false };
    for (int count = 0; count < S_MANY; count++) {
        drover_msg_t *result = testutil_runner_wait_result (runner, 10000);
        assert_non_null (result);
        int index = (int) (result->task - 100);
        assert_true (index >= 0 && index < S_MANY);
        assert_false (seen [index]);
        seen [index] = true;
        char expect [32];
        snprintf (expect, sizeof expect, "task-%d\n", index);
        testutil_runner_assert_out (result, expect);
        assert_int_equal (result->exit_code, 0);
        drover_msg_destroy (&result);
    }
    assert_int_equal (drover_runner_size (runner), 0);
}

//  With SIGCHLD ignored the kernel reaps children itself: the runner still
//  ends the attempt (its exit status is lost) instead of spinning
static void
test_sigchld_ignored (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    struct sigaction ignore, previous;
    memset (&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    sigaction (SIGCHLD, &ignore, &previous);
    drover_msg_t *result = testutil_runner_run_shell (runner, "echo bye; exit 3", 0);
    sigaction (SIGCHLD, &previous, NULL);
    assert_int_equal (result->exit_code, -1);
    assert_non_null (result->reason);
    testutil_runner_assert_out (result, "bye\n");
    drover_msg_destroy (&result);
}

//  A spawn that fails for the machine's sake (its work directory gone, out
//  of file descriptors) is MACHINE_FAILED; the task's own mistakes (no
//  such command, its own cwd missing) stay SPAWN_FAILED
static void
test_machine_failures (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    char workdir [] = "/tmp/drover-runner-workdir-XXXXXX";
    assert_non_null (mkdtemp (workdir));
    drover_runner_set_workdir (runner, workdir);
    drover_exec_t *exec = testutil_runner_shell ("pwd");
    drover_exec_set_cwd (exec, "");
    drover_msg_t *result = testutil_runner_run (runner, &exec, 0);
    assert_int_equal (result->outcome, DROVER_OUTCOME_EXITED);
    assert_int_equal (result->out_size, strlen (workdir) + 1);
    assert_memory_equal (result->out, workdir, strlen (workdir));
    drover_msg_destroy (&result);

    //  The task's own: a missing cwd, a missing command
    exec = drover_exec_new ();
    drover_exec_set_argv (exec, 1, (const char *[]) { "true" });
    drover_exec_set_cwd (exec, "no-such-subdirectory");
    assert_int_equal (drover_runner_start (runner, 2, 1, exec, 0, zclock_mono ()), -1);
    result = drover_runner_next_result (runner);
    assert_int_equal (result->outcome, DROVER_OUTCOME_SPAWN_FAILED);
    drover_msg_destroy (&result);

    //  The machine's: the work directory went away
    assert_int_equal (rmdir (workdir), 0);
    drover_exec_set_cwd (exec, "");
    assert_int_equal (drover_runner_start (runner, 3, 1, exec, 0, zclock_mono ()), -1);
    result = drover_runner_next_result (runner);
    assert_int_equal (result->outcome, DROVER_OUTCOME_MACHINE_FAILED);
    assert_non_null (strstr (result->reason, "work directory"));
    drover_msg_destroy (&result);
    drover_runner_set_workdir (runner, NULL);

    //  The machine's: out of file descriptors
    struct rlimit limit, low;
    assert_int_equal (getrlimit (RLIMIT_NOFILE, &limit), 0);
    int probe = dup (0);
    low = limit;
    low.rlim_cur = (rlim_t) probe + 1;      //  room for one more fd, not three
    close (probe);
    assert_int_equal (setrlimit (RLIMIT_NOFILE, &low), 0);
    int rc = drover_runner_start (runner, 4, 1, exec, 0, zclock_mono ());
    setrlimit (RLIMIT_NOFILE, &limit);
    assert_int_equal (rc, -1);
    result = drover_runner_next_result (runner);
    assert_int_equal (result->outcome, DROVER_OUTCOME_MACHINE_FAILED);
    assert_non_null (strstr (result->reason, "Too many open files"));
    drover_msg_destroy (&result);
    drover_exec_destroy (&exec);
}

int
main (void)
{
    //  Orphans of tasks come back to us, so tests can see how they ended
    prctl (PR_SET_CHILD_SUBREAPER, 1);
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_exit_codes, testutil_runner_setup,
                                         testutil_runner_teardown),
        cmocka_unit_test_setup_teardown (test_pipes_closed_early, testutil_runner_setup,
                                         testutil_runner_teardown),
        cmocka_unit_test_setup_teardown (test_signal, testutil_runner_setup,
                                         testutil_runner_teardown),
        cmocka_unit_test_setup_teardown (test_output, testutil_runner_setup,
                                         testutil_runner_teardown),
        cmocka_unit_test_setup_teardown (test_stdin, testutil_runner_setup,
                                         testutil_runner_teardown),
        cmocka_unit_test_setup_teardown (test_env_and_cwd, testutil_runner_setup,
                                         testutil_runner_teardown),
        cmocka_unit_test_setup_teardown (test_env_base_only, testutil_runner_setup,
                                         testutil_runner_teardown),
        cmocka_unit_test_setup_teardown (test_command_found_in_task_path, testutil_runner_setup,
                                         testutil_runner_teardown),
        cmocka_unit_test_setup_teardown (test_truncated, testutil_runner_setup,
                                         testutil_runner_teardown),
        cmocka_unit_test_setup_teardown (test_spawn_failed, testutil_runner_setup,
                                         testutil_runner_teardown),
        cmocka_unit_test_setup_teardown (test_signals_reset, testutil_runner_setup,
                                         testutil_runner_teardown),
        cmocka_unit_test_setup_teardown (test_many_concurrent, testutil_runner_setup,
                                         testutil_runner_teardown),
        cmocka_unit_test_setup_teardown (test_sigchld_ignored, testutil_runner_setup,
                                         testutil_runner_teardown),
        cmocka_unit_test_setup_teardown (test_machine_failures, testutil_runner_setup,
                                         testutil_runner_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
