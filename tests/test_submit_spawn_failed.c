/*  =========================================================================
    test_submit_spawn_failed - `drover submit --wait` of a task that cannot
    start says why on stderr and exits 1, as its help says

    A real broker, a real `drover worker` and the real `drover submit`
    command on loopback. A missing command and a missing --cwd once made
    `submit --wait` exit 127 (the child's exec status) with nothing said.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>
#include <sys/wait.h>

#define S_WAIT_MAX      20000   //  msec the submit may take at most

//  Run `drover --broker ENDPOINT submit --wait ARGS...` with stdout and
//  stderr in their own files; returns its wait status (-1: killed at the
//  deadline) and what it wrote to stderr in *errors (caller frees)
static int
s_submit_wait (testutil_cluster_t *cluster, const char *const args [], char **errors)
{
    char out_log [PATH_MAX], err_log [PATH_MAX];
    snprintf (out_log, sizeof out_log, "%s/submit.out", cluster->logdir);
    snprintf (err_log, sizeof err_log, "%s/submit.err", cluster->logdir);
    unlink (out_log);
    unlink (err_log);
    const char *argv [16] = { DROVER_BIN, "--broker", cluster->endpoint, "submit", "--wait" };
    int argc = 5;
    for (int index = 0; args [index] && argc < 15; index++)
        argv [argc++] = args [index];
    argv [argc] = NULL;
    fflush (stdout);
    fflush (stderr);
    pid_t pid = fork ();
    assert_true (pid >= 0);
    if (pid == 0) {
        int out = open (out_log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int err = open (err_log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (out < 0 || err < 0)
            _exit (126);
        dup2 (out, STDOUT_FILENO);
        dup2 (err, STDERR_FILENO);
        execv (argv [0], (char *const *) argv);
        _exit (127);
    }
    int status = testutil_wait_exit (pid, S_WAIT_MAX);
    if (status == -1)
        testutil_stop (pid, 100);
    *errors = testutil_slurp (err_log);
    char *output = testutil_slurp (out_log);
    fprintf (stderr, "drover submit --wait %s ... exited %d\n  stdout: %s\n  stderr: %s\n",
             args [0], status != -1 && WIFEXITED (status)? WEXITSTATUS (status): -1,
             output? output: "", *errors? *errors: "");
    free (output);
    unlink (out_log);
    unlink (err_log);
    return status;
}

//  Expect exit status 1 and each of the needles on stderr
static void
s_expect_failed (testutil_cluster_t *cluster, const char *const args [],
                 const char *needle1, const char *needle2)
{
    char *errors = NULL;
    int status = s_submit_wait (cluster, args, &errors);
    assert_true (status != -1);
    assert_true (WIFEXITED (status));
    assert_int_equal (WEXITSTATUS (status), 1);    //  once 127, the exec's status
    assert_non_null (errors);
    assert_non_null (strstr (errors, "FAILED"));
    assert_non_null (strstr (errors, needle1));
    assert_non_null (strstr (errors, needle2));
    free (errors);
}

//  A cluster of one broker and one worker, registered
static testutil_cluster_t *
s_cluster_new (void)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    testutil_cluster_add_worker (cluster, 0, "runner", 1, NULL);
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 1, S_WAIT_MAX));
    zsock_destroy (&dealer);
    return cluster;
}

//  A command that does not exist: exit 1, the path and the error said
static void
test_missing_command_says_why (void **state)
{
    testutil_cluster_t *cluster = s_cluster_new ();
    const char *args [] = { "--", "/no/such/cmd", NULL };
    s_expect_failed (cluster, args, "/no/such/cmd", "No such file or directory");
    testutil_cluster_destroy (&cluster);
}

//  A working directory that does not exist: exit 1, the directory said
static void
test_missing_cwd_says_why (void **state)
{
    testutil_cluster_t *cluster = s_cluster_new ();
    const char *args [] = { "--cwd", "/nonexistent", "--", "true", NULL };
    s_expect_failed (cluster, args, "/nonexistent", "No such file or directory");
    testutil_cluster_destroy (&cluster);
}

//  Run every test
int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_missing_command_says_why),
        cmocka_unit_test (test_missing_cwd_says_why),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
