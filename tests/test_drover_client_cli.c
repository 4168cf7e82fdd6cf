/*  =========================================================================
    test_drover_client_cli - the drover executable's client commands against
    a fake broker (testutil_clientbroker): submit, wait and their exit
    statuses, the tables, bad flags and plain-worded errors
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_clientbroker.h"
#include <sys/wait.h>

//  ---------------------------------------------------------------------
//  The drover executable's client commands against the fake broker

//  Run the drover executable with argv (after the program name); returns
//  its exit status and fills *output_p with its stdout and stderr together
static int
s_run (const char *const args [], char **output_p)
{
    char log [64];
    snprintf (log, sizeof log, "/tmp/test-drover-client-%d.log", (int) getpid ());
    unlink (log);
    const char *argv [32] = { DROVER_BIN };
    for (int index = 0; args [index] && index < 30; index++)
        argv [index + 1] = args [index];
    pid_t pid = testutil_spawn (argv, log);
    assert_true (pid > 0);
    int status = testutil_wait_exit (pid, 20000);
    if (status == -1)
        testutil_stop (pid, 100);
    assert_true (status != -1 && WIFEXITED (status));
    *output_p = testutil_slurp (log);
    assert_non_null (*output_p);
    unlink (log);
    return WEXITSTATUS (status);
}

//  Run the drover executable with args (s_run), assert it exits with
//  status and says each needle (the list NULL-terminated), showing its
//  output if not
static void
s_run_says (const char *const args [], int status, ...)
{
    char *output;
    int exit_status = s_run (args, &output);
    if (exit_status != status)
        fail_msg ("drover %s: exit %d, not %d: %s", args [0], exit_status, status, output);
    va_list needles;
    va_start (needles, status);
    for (const char *needle = va_arg (needles, const char *); needle;
         needle = va_arg (needles, const char *))
        if (!strstr (output, needle))
            fail_msg ("drover %s said no '%s': %s", args [0], needle, output);
    va_end (needles);
    free (output);
}

//  SUBMIT with notify: ACCEPTED (task 90), then a FAILED TASK DONE with
//  exit 3 and output on both streams
static void
s_notify_failed (testutil_clientbroker_t *fake, zframe_t *route, drover_msg_t *msg)
{
    if (msg->id == DROVER_MSG_TASK_SUBMIT) {
        testutil_clientbroker_accept (fake, route, msg, 90);
        drover_msg_t *done = drover_msg_new (DROVER_MSG_TASK_DONE);
        done->task = 90;
        done->attempt = 1;
        done->state = DROVER_TASK_FAILED;
        done->end = DROVER_END_FAILED;
        done->exit_code = 3;
        drover_msg_set_output (done, (byte *) "partial\n", 8, (byte *) "boom\n", 5);
        drover_msg_set_reason (done, "exit 3");
        testutil_clientbroker_send (fake, route, &done);
    }
    else
    if (msg->id == DROVER_MSG_TASK_WAIT)
        testutil_clientbroker_reply (fake, route, msg, DROVER_MSG_OK);
}

//  SUBMIT with notify: ACCEPTED (task 91 + the submit's priority), then a
//  FAILED TASK DONE whose reason's words mislead: priority 0, a timeout
//  killed by SIGKILL and said "killed after 1000 ms"; priority 1, the
//  task's own exit 3 said "timed out waiting for the lock"
static void
s_notify_misleading (testutil_clientbroker_t *fake, zframe_t *route, drover_msg_t *msg)
{
    if (msg->id == DROVER_MSG_TASK_SUBMIT) {
        testutil_clientbroker_accept (fake, route, msg, 91 + msg->priority);
        drover_msg_t *done = drover_msg_new (DROVER_MSG_TASK_DONE);
        done->task = 91 + msg->priority;
        done->attempt = 1;
        done->state = DROVER_TASK_FAILED;
        if (msg->priority == 0) {
            done->end = DROVER_END_TIMED_OUT;
            done->exit_code = -1;
            done->signal = 9;
            drover_msg_set_reason (done, "killed after 1000 ms");
        }
        else {
            done->end = DROVER_END_FAILED;
            done->exit_code = 3;
            drover_msg_set_reason (done, "timed out waiting for the lock");
        }
        testutil_clientbroker_send (fake, route, &done);
    }
    else
    if (msg->id == DROVER_MSG_TASK_WAIT)
        testutil_clientbroker_reply (fake, route, msg, DROVER_MSG_OK);
}

//  WAIT: task 1 SUCCEEDED, ids below 100 EXPIRED, the others UNKNOWN
static void
s_expired_and_unknown (testutil_clientbroker_t *fake, zframe_t *route, drover_msg_t *msg)
{
    if (msg->id != DROVER_MSG_TASK_WAIT)
        return;
    testutil_clientbroker_reply (fake, route, msg, DROVER_MSG_OK);
    for (uint32_t index = 0; index < msg->ntasks; index++) {
        uint64_t task = msg->tasks [index];
        if (task == 1) {
            testutil_clientbroker_done (fake, route, task, msg->seq);
            continue;
        }
        drover_msg_t *done = drover_msg_new (DROVER_MSG_TASK_DONE);
        done->seq = msg->seq;
        done->task = task;
        done->state = DROVER_TASK_UNKNOWN;
        done->end = task < 100? DROVER_END_EXPIRED: DROVER_END_UNKNOWN;
        testutil_clientbroker_send (fake, route, &done);
    }
}

//  drover wait counted a task the broker no longer holds as failed: an
//  expired result and an unknown id are counted apart, never as failed
static void
test_cli_wait_counts_expired_and_unknown_apart (void **state)
{
    testutil_clientbroker_t fake;
    char endpoint [64];
    zactor_t *actor = testutil_clientbroker_start (&fake, s_expired_and_unknown, endpoint);
    const char *wait [] = { "wait", "--broker", endpoint, "1", "7", "8", "500", NULL };
    s_run_says (wait, 1, "4 tasks: 1 succeeded, 0 failed, 0 cancelled, 2 expired, 1 unknown",
                "expired", NULL);
    zactor_destroy (&actor);
}

//  submit --wait once told a timeout by the reason's words ("timed out..."):
//  a timeout said otherwise exited 137 (signal 9), a task's own exit 3
//  whose reason began "timed out" exited 124. The outcome decides.
static void
test_cli_exit_status_from_outcome (void **state)
{
    testutil_clientbroker_t fake;
    char endpoint [64];
    zactor_t *actor = testutil_clientbroker_start (&fake, s_notify_misleading, endpoint);
    const char *timed_out [] = { "submit", "--broker", endpoint, "--wait", "--", "sleep", "9",
                                 NULL };
    s_run_says (timed_out, 124, "task 91 FAILED (timed out): killed after 1000 ms", NULL);
    const char *exited [] = { "submit", "--broker", endpoint, "--priority", "1", "--wait", "--",
                              "false", NULL };
    s_run_says (exited, 3, NULL);
    zactor_destroy (&actor);
}

//  submit prints the id; a file of commands prints one id per command
static void
test_cli_submit_prints_ids (void **state)
{
    testutil_clientbroker_t fake;
    char endpoint [64];
    zactor_t *actor = testutil_clientbroker_start (&fake, testutil_clientbroker_accept_all,
                                                   endpoint);
    char *output;
    const char *one [] = { "submit", "--broker", endpoint, "--priority", "-2", "--label",
                           "gpu=a100", "--mem", "2G", "--", "echo", "hi", NULL };
    assert_int_equal (s_run (one, &output), 0);
    assert_string_equal (output, "1001\n");
    free (output);

    char path [64];
    snprintf (path, sizeof path, "/tmp/test-drover-client-%d.txt", (int) getpid ());
    FILE *file = fopen (path, "w");
    assert_non_null (file);
    fprintf (file, "echo one\n\n# a comment\necho two\n   \necho three\n");
    fclose (file);
    setenv ("DROVER_BROKER", endpoint, 1);
    const char *batch [] = { "submit", "--file", path, "--window", "2", NULL };
    assert_int_equal (s_run (batch, &output), 0);
    unsetenv ("DROVER_BROKER");
    assert_non_null (strstr (output, "1001\n1002\n1003\n"));
    free (output);

    //  The 100th submit is refused: said with its line, the others' ids printed
    file = fopen (path, "w");
    assert_non_null (file);
    for (int line = 1; line <= 120; line++)
        fprintf (file, "echo %d\n", line);
    fclose (file);
    const char *refused [] = { "submit", "--broker", endpoint, "--file", path, NULL };
    assert_int_equal (s_run (refused, &output), 1);
    assert_non_null (strstr (output, "line 100: queue full (301)"));
    assert_non_null (strstr (output, "1099\n1101\n"));
    assert_null (strstr (output, "1100\n"));
    free (output);
    unlink (path);
    zactor_destroy (&actor);
    assert_int_equal (fake.requests [DROVER_MSG_TASK_SUBMIT], 124);
    assert_string_equal (fake.last_argv0, "sh");
}

//  Bad flags name the flag and exit 2; broker errors are in plain words
static void
test_cli_errors (void **state)
{
    char *output;
    const char *procs [] = { "submit", "--procs", "many", "--", "true", NULL };
    s_run_says (procs, 2, "--procs", NULL);
    const char *bogus [] = { "tasks", "--bogus", NULL };
    s_run_says (bogus, 2, "--bogus", NULL);
    const char *missing [] = { "tasks", "--limit", NULL };
    s_run_says (missing, 2, "--limit", NULL);
    const char *unknown [] = { "frobnicate", NULL };
    s_run_says (unknown, 2, "frobnicate", NULL);
    const char *help [] = { "help", NULL };
    s_run_says (help, 0, "submit", "events", NULL);
    const char *version [] = { "--version", NULL };
    s_run_says (version, 0, "drover ", NULL);

    testutil_clientbroker_t fake;
    char endpoint [64];
    zactor_t *actor = testutil_clientbroker_start (&fake, testutil_clientbroker_refuse_all,
                                                   endpoint);
    const char *refused [] = { "submit", "--broker", endpoint, "--", "true", NULL };
    s_run_says (refused, 1, "queue full (301)", NULL);
    zactor_destroy (&actor);

    char nowhere [64];
    sprintf (nowhere, "tcp://127.0.0.1:%d", testutil_free_port ());
    const char *status [] = { "--broker-timeout", "0.3", "--broker", nowhere, "status", NULL };
    int64_t started = zclock_mono ();
    assert_int_equal (s_run (status, &output), 1);
    assert_true (zclock_mono () - started < 5000);
    assert_non_null (strstr (output, "no reply"));
    free (output);
}

//  submit --wait copies the task's output and exits with its status;
//  wait prints a summary
static void
test_cli_wait (void **state)
{
    testutil_clientbroker_t fake;
    char endpoint [64];
    zactor_t *actor = testutil_clientbroker_start (&fake, s_notify_failed, endpoint);
    const char *failing [] = { "submit", "--broker", endpoint, "--wait", "--", "false", NULL };
    s_run_says (failing, 3, "partial\n", "boom\n", NULL);
    zactor_destroy (&actor);

    actor = testutil_clientbroker_start (&fake, testutil_clientbroker_done_twice, endpoint);
    const char *wait [] = { "wait", "--broker", endpoint, "1", "2", "3", NULL };
    s_run_says (wait, 0, "3 tasks: 3 succeeded, 0 failed, 0 cancelled", NULL);
    zactor_destroy (&actor);
}

//  workers and tasks print tables, and JSON with --json
static void
test_cli_tables (void **state)
{
    testutil_clientbroker_t fake;
    char endpoint [64];
    zactor_t *actor = testutil_clientbroker_start (&fake, testutil_clientbroker_admin, endpoint);
    const char *workers [] = { "workers", "--broker", endpoint, NULL };
    s_run_says (workers, 0, "WORKER", "beta", "probation", NULL);
    const char *json [] = { "workers", "--json", "--broker", endpoint, NULL };
    s_run_says (json, 0, "{\"workers\":[{\"id\":\"alpha\"", NULL);
    const char *tasks [] = { "tasks", "--state", "running", "--json", "--broker", endpoint, NULL };
    s_run_says (tasks, 0, "\"state\":\"running\"", "\"command\":\"sh -c true\"",
                "\"state\":\"running\",\"outcome\":\"none\"",
                "\"state\":\"failed\",\"outcome\":\"timed_out\"", NULL);
    const char *text [] = { "tasks", "--broker", endpoint, NULL };
    s_run_says (text, 0, "OUTCOME", "timed_out", NULL);
    const char *status [] = { "status", "--broker", endpoint, NULL };
    //  beta is held: its procs are not capacity; status counts busy workers
    s_run_says (status, 0, "1/4 in use, and 0 on held or draining workers",
                "2 up (1 busy, 1 idle; 1 on probation, 0 low on disk, 1 held", NULL);
    const char *cancel [] = { "cancel", "--broker", endpoint, "7", "8", NULL };
    s_run_says (cancel, 1, "cancelled 7", "not found (404)", NULL);
    const char *drain [] = { "drain", "--broker", endpoint, "alpha", NULL };
    s_run_says (drain, 0, NULL);
    zactor_destroy (&actor);
    assert_string_equal (fake.last_worker, "alpha");
    assert_int_equal (fake.last_admin, DROVER_ADMIN_DRAIN);
}

//  Run every test
int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_cli_submit_prints_ids),
        cmocka_unit_test (test_cli_errors),
        cmocka_unit_test (test_cli_wait),
        cmocka_unit_test (test_cli_exit_status_from_outcome),
        cmocka_unit_test (test_cli_wait_counts_expired_and_unknown_apart),
        cmocka_unit_test (test_cli_tables),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
