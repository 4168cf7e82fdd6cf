/*  =========================================================================
    test_drover_runner - the process runner, with real child processes

    Every test starts real `sh -c` children and drives the runner the way
    the worker loop does: fill the poll items, zmq_poll until the next
    deadline, process. Waits are bounded by a deadline; nothing sleeps.
    The test process is a child subreaper, so grandchildren that a task
    leaves behind come back to it and their end can be observed.
    =========================================================================
*/

#include "testutil_proc.h"
#include "drover_runner.h"
#include <signal.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <sys/resource.h>
#include <pwd.h>
#include <limits.h>

//  Drive the runner until a result is ready or timeout msec pass; NULL on timeout
static drover_msg_t *
s_wait_result (drover_runner_t *runner, int timeout)
{
    int64_t end = zclock_mono () + timeout;
    while (true) {
        drover_msg_t *result = drover_runner_next_result (runner);
        if (result)
            return result;
        int64_t now = zclock_mono ();
        if (now >= end)
            return NULL;
        int64_t wait = end - now;
        int64_t due = drover_runner_next_deadline (runner);
        if (due != -1 && due - now < wait)
            wait = due > now? due - now: 0;
        size_t max = drover_runner_items (runner);
        zmq_pollitem_t *items = (zmq_pollitem_t *) calloc (max + 1, sizeof (zmq_pollitem_t));
        size_t count = drover_runner_fill (runner, items, max);
        zmq_poll (items, (int) count, (long) wait);
        drover_runner_process (runner, items, count, zclock_mono ());
        free (items);
    }
}

//  Build an exec running sh -c script
static drover_exec_t *
s_shell (const char *script)
{
    drover_exec_t *exec = drover_exec_new ();
    const char *argv [] = { "sh", "-c", script };
    assert_int_equal (drover_exec_set_argv (exec, 3, argv), 0);
    return exec;
}

//  Run script to the end (within 10 s) and return its result
static drover_msg_t *
s_run (drover_runner_t *runner, drover_exec_t **exec_p, uint32_t timeout)
{
    assert_int_equal (drover_runner_start (runner, 1, 1, *exec_p, timeout, zclock_mono ()), 0);
    drover_exec_destroy (exec_p);
    drover_msg_t *result = s_wait_result (runner, 10000);
    assert_non_null (result);
    assert_int_equal (result->id, DROVER_MSG_TASK_RESULT);
    assert_int_equal (drover_runner_size (runner), 0);
    return result;
}

//  Run sh -c script to the end (within 10 s) and return its result
static drover_msg_t *
s_run_shell (drover_runner_t *runner, const char *script, uint32_t timeout)
{
    drover_exec_t *exec = s_shell (script);
    return s_run (runner, &exec, timeout);
}

//  Drive the runner until a result comes (within 10 s) and check its
//  outcome; the caller checks the rest and destroys it
static drover_msg_t *
s_wait_outcome (drover_runner_t *runner, int outcome)
{
    drover_msg_t *result = s_wait_result (runner, 10000);
    assert_non_null (result);
    assert_int_equal (result->outcome, outcome);
    return result;
}

//  Check that a result's stdout is exactly text
static void
s_assert_out (drover_msg_t *result, const char *text)
{
    assert_int_equal (result->out_size, strlen (text));
    assert_memory_equal (result->out, text, strlen (text));
}

static int
s_setup (void **state)
{
    *state = drover_runner_new ();
    return 0;
}

static int
s_teardown (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    drover_runner_destroy (&runner);
    assert_null (runner);
    drover_runner_destroy (&runner);     //  harmless twice
    while (waitpid (-1, NULL, WNOHANG) > 0)
        ;                               //  orphans left to us, the subreaper
    return 0;
}

//  Exit codes come back as EXITED with the status
static void
test_exit_codes (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    drover_msg_t *result = s_run_shell (runner, "exit 3", 0);
    assert_int_equal (result->task, 1);
    assert_int_equal (result->attempt, 1);
    assert_int_equal (result->outcome, DROVER_OUTCOME_EXITED);
    assert_int_equal (result->exit_code, 3);
    assert_int_equal (result->signal, 0);
    assert_int_equal (result->truncated, 0);
    assert_int_equal (result->out_size, 0);
    drover_msg_destroy (&result);

    result = s_run_shell (runner, "true", 0);
    assert_int_equal (result->outcome, DROVER_OUTCOME_EXITED);
    assert_int_equal (result->exit_code, 0);
    drover_msg_destroy (&result);
}

//  A child killed by a signal is SIGNALLED with that signal
static void
test_signal (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    drover_msg_t *result = s_run_shell (runner, "kill -9 $$", 0);
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
    drover_msg_t *result = s_run_shell (runner, "echo out; echo err >&2; echo more", 0);
    s_assert_out (result, "out\nmore\n");
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
    drover_msg_t *result = s_run (runner, &exec, 0);
    assert_int_equal (result->out_size, 11);
    assert_memory_equal (result->out, "hello\0world", 11);
    drover_msg_destroy (&result);

    //  A full-size input, to a child that never reads it, must not block
    byte *big = (byte *) malloc (DROVER_INPUT_MAX);
    memset (big, 'x', DROVER_INPUT_MAX);
    exec = s_shell ("exit 0");
    drover_exec_set_input (exec, big, DROVER_INPUT_MAX);
    result = s_run (runner, &exec, 0);
    assert_int_equal (result->exit_code, 0);
    drover_msg_destroy (&result);

    exec = s_shell ("wc -c");
    drover_exec_set_input (exec, big, DROVER_INPUT_MAX);
    result = s_run (runner, &exec, 0);
    char expect [32];
    snprintf (expect, sizeof expect, "%d\n", DROVER_INPUT_MAX);
    s_assert_out (result, expect);
    drover_msg_destroy (&result);
    free (big);

    result = s_run_shell (runner, "wc -c", 0);
    s_assert_out (result, "0\n");
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

    drover_exec_t *exec = s_shell ("echo $RUNNER_TEST_HIDDEN/$RUNNER_TEST_INHERITED/"
                                   "$RUNNER_TEST_OVERRIDE/$RUNNER_TEST_NEW; pwd");
    drover_exec_add_env (exec, "RUNNER_TEST_OVERRIDE=new");
    drover_exec_add_env (exec, "RUNNER_TEST_NEW=added");
    drover_exec_set_cwd (exec, dir);
    drover_msg_t *result = s_run (runner, &exec, 0);
    char expect [512];
    snprintf (expect, sizeof expect, "/kept/new/added\n%s\n", real);
    s_assert_out (result, expect);
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
//  the worker's own user: none of the worker's variables
static void
test_env_base_only (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    setenv ("RUNNER_TEST_SECRET", "leaked", 1);
    drover_exec_t *exec = drover_exec_new ();
    const char *argv [] = { "env" };
    assert_int_equal (drover_exec_set_argv (exec, 1, argv), 0);
    drover_msg_t *result = s_run (runner, &exec, 0);
    struct passwd *pw = getpwuid (geteuid ());
    assert_non_null (pw);
    char expect [1024];
    snprintf (expect, sizeof expect, "PATH=/usr/local/bin:/usr/bin:/bin\nHOME=%s\nUSER=%s\n"
              "LOGNAME=%s\nLANG=C.UTF-8\n", pw->pw_dir, pw->pw_name, pw->pw_name);
    s_assert_out (result, expect);
    drover_msg_destroy (&result);
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
        drover_msg_t *result = s_run (runner, &exec, 0);
        assert_int_equal (result->outcome, DROVER_OUTCOME_EXITED);
        s_assert_out (result, expected [index]);
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
    drover_msg_t *result = s_run_shell (runner, "head -c 3000000 /dev/zero; echo small >&2", 0);
    assert_int_equal (result->outcome, DROVER_OUTCOME_EXITED);
    assert_int_equal (result->exit_code, 0);
    assert_int_equal (result->out_size, DROVER_OUTPUT_MAX);
    assert_int_equal (result->truncated, DROVER_TRUNC_STDOUT);
    assert_int_equal (result->err_size, 6);
    drover_msg_destroy (&result);

    result = s_run_shell (runner, "head -c 3000000 /dev/zero >&2", 0);
    assert_int_equal (result->err_size, DROVER_OUTPUT_MAX);
    assert_int_equal (result->truncated, DROVER_TRUNC_STDERR);
    drover_msg_destroy (&result);

    //  Exactly the bound is not truncated
    result = s_run_shell (runner, "head -c 1048576 /dev/zero", 0);
    assert_int_equal (result->out_size, DROVER_OUTPUT_MAX);
    assert_int_equal (result->truncated, 0);
    drover_msg_destroy (&result);
}

//  A child past its timeout gets SIGTERM and ends TIMEDOUT
static void
test_timeout (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    int64_t started = zclock_mono ();
    drover_msg_t *result = s_run_shell (runner, "sleep 30", 200);
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
    drover_exec_t *exec = s_shell (script);
    int64_t started = zclock_mono ();
    assert_int_equal (drover_runner_start (runner, 7, 2, exec, 100, started), 0);
    drover_exec_destroy (&exec);
    //  The runner acts on the timeout only once driven, after the trap is set
    assert_true (s_fifo_ready (fd, 5000));
    drover_msg_t *result = s_wait_result (runner, 10000);
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
    drover_exec_t *exec = s_shell (script);
    assert_int_equal (drover_runner_start (runner, 9, 1, exec, 0, zclock_mono ()), 0);
    drover_exec_destroy (&exec);
    pid_t grandchild = s_fifo_pid (fd);

    assert_true (drover_runner_running (runner, 9, 1));
    assert_int_equal (drover_runner_cancel (runner, 9, 2, zclock_mono ()), -1);
    assert_int_equal (drover_runner_cancel (runner, 9, 1, zclock_mono ()), 0);
    drover_msg_t *result = s_wait_outcome (runner, DROVER_OUTCOME_CANCELLED);
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
    drover_msg_t *result = s_run_shell (runner, "sleep 30 & echo started", 0);
    assert_true (zclock_mono () - started < 5000);
    assert_int_equal (result->outcome, DROVER_OUTCOME_EXITED);
    s_assert_out (result, "started\n");
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
        drover_exec_t *exec = s_shell (script);
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
    drover_msg_t *result = s_run (runner, &exec, 0);

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
        drover_exec_t *exec = s_shell (script);
        assert_int_equal (drover_runner_start (runner, 100 + index, 1, exec, 0, zclock_mono ()), 0);
        drover_exec_destroy (&exec);
    }
    assert_int_equal (drover_runner_size (runner), S_MANY);
    drover_taskref_t refs [S_MANY];
    assert_int_equal (drover_runner_list (runner, refs, S_MANY), S_MANY);
    bool seen [S_MANY] = { false };
    for (int count = 0; count < S_MANY; count++) {
        drover_msg_t *result = s_wait_result (runner, 10000);
        assert_non_null (result);
        int index = (int) (result->task - 100);
        assert_true (index >= 0 && index < S_MANY);
        assert_false (seen [index]);
        seen [index] = true;
        char expect [32];
        snprintf (expect, sizeof expect, "task-%d\n", index);
        s_assert_out (result, expect);
        assert_int_equal (result->exit_code, 0);
        drover_msg_destroy (&result);
    }
    assert_int_equal (drover_runner_size (runner), 0);
}

//  stop_all ends everything within the grace, SIGKILL for the stubborn
static void
test_stop_all (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    drover_runner_set_grace (runner, 300);
    drover_exec_t *exec = s_shell ("sleep 30");
    assert_int_equal (drover_runner_start (runner, 1, 1, exec, 0, zclock_mono ()), 0);
    drover_exec_destroy (&exec);
    exec = s_shell ("trap '' TERM; sleep 30");
    assert_int_equal (drover_runner_start (runner, 2, 1, exec, 0, zclock_mono ()), 0);
    drover_exec_destroy (&exec);
    int64_t started = zclock_mono ();
    drover_runner_stop_all (runner);
    assert_true (zclock_mono () - started < 3000);
    assert_int_equal (drover_runner_size (runner), 0);
    assert_null (drover_runner_next_result (runner));
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
    drover_msg_t *result = s_run_shell (runner, "echo bye; exit 3", 0);
    sigaction (SIGCHLD, &previous, NULL);
    assert_int_equal (result->exit_code, -1);
    assert_non_null (result->reason);
    s_assert_out (result, "bye\n");
    drover_msg_destroy (&result);
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
    drover_exec_t *exec = s_shell (script);
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
    drover_msg_t *result = s_run_shell (runner, "true", 0);
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
    drover_msg_t *result = s_wait_outcome (runner, DROVER_OUTCOME_CANCELLED);
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
    drover_msg_t *result = s_wait_outcome (runner, DROVER_OUTCOME_TIMEDOUT);
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
    drover_msg_t *result = s_wait_outcome (runner, DROVER_OUTCOME_CANCELLED);
    drover_msg_destroy (&result);
    s_assert_gone (grandchild);

    grandchild = s_start_grandchild (runner, false, 300);
    result = s_wait_outcome (runner, DROVER_OUTCOME_TIMEDOUT);
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
        drover_exec_t *exec = s_shell (script);
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

//  A task's cgroup is removed when it ends, even when something it started
//  lingered; the worker's cgroup directory when the runner goes
static void
test_cgroups_removed (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    if (s_without_cgroup_after_one (runner))
        skip ();
    char *dir = strdup (drover_runner_cgroup (runner));
    drover_msg_t *result = s_run_shell (runner, "sleep 30 & echo started", 0);
    drover_msg_destroy (&result);
    //  Wait (driving the runner) until no task directory is left
    int64_t deadline = zclock_mono () + 5000;
    int tasks = -1;
    while (tasks != 0 && zclock_mono () < deadline) {
        tasks = 0;
        DIR *handle = opendir (dir);
        assert_non_null (handle);
        struct dirent *entry;
        while ((entry = readdir (handle)))
            if (entry->d_type == DT_DIR && entry->d_name [0] == 't')
                tasks++;
        closedir (handle);
        if (tasks)
            assert_null (s_wait_result (runner, 20));
    }
    assert_int_equal (tasks, 0);
    drover_runner_destroy (&runner);
    *state = NULL;
    struct stat info;
    assert_int_equal (stat (dir, &info), -1);
    assert_int_equal (errno, ENOENT);
    free (dir);
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
    drover_exec_t *exec = s_shell ("pwd");
    drover_exec_set_cwd (exec, "");
    drover_msg_t *result = s_run (runner, &exec, 0);
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
        cmocka_unit_test_setup_teardown (test_exit_codes, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_signal, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_output, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_stdin, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_env_and_cwd, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_env_base_only, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_command_found_in_task_path, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_truncated, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_timeout, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_timeout_ignores_term, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_cancel, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_lingering_grandchild, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_spawn_failed, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_dies_with_worker, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_signals_reset, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_many_concurrent, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_stop_all, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_sigchld_ignored, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_cancel_kills_escaped_grandchild, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_timeout_kills_escaped_grandchild, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_pgroup_cancel_and_timeout_kill_grandchild,
                                         s_setup_pgroup, s_teardown),
        cmocka_unit_test_setup_teardown (test_escaped_grandchild_dies_with_worker, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_pgroup_grandchild_dies_with_worker, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_cgroups_removed, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_machine_failures, s_setup, s_teardown),
        //  The tests written for process groups, again with process groups only
        cmocka_unit_test_setup_teardown (test_cancel, s_setup_pgroup, s_teardown),
        cmocka_unit_test_setup_teardown (test_timeout_ignores_term, s_setup_pgroup, s_teardown),
        cmocka_unit_test_setup_teardown (test_dies_with_worker, s_setup_pgroup, s_teardown),
        cmocka_unit_test_setup_teardown (test_stop_all, s_setup_pgroup, s_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
