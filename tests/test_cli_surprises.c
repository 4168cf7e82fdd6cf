/*  =========================================================================
    test_cli_surprises - the CLI without surprises, through the real
    `drover` binary: "did you mean" for a mistyped command, --version on
    every subcommand, `drover worker` finding the broker as every other
    command does, the short flags, --json on submit and wait, submit
    --wait's task id on stderr, and wait's failures in id order
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include <sys/wait.h>

//  Output buffers of one run
static char s_out [65536];
static char s_err [65536];

//  Run drover with the NULL-terminated arguments; stdout in s_out, stderr
//  in s_err; returns the exit status (asserts it exited)
static int
s_drover (const char *first, ...)
{
    const char *prefix [] = { DROVER_BIN, NULL };
    va_list args;
    va_start (args, first);
    int status = testutil_run_cli_va (prefix, first, args, s_out, sizeof s_out, s_err,
                                      sizeof s_err);
    va_end (args);
    return status;
}

//  A mistyped command is refused with the nearest one; a word far from
//  every command gets no guess
static void
test_mistyped_command_says_did_you_mean (void **state)
{
    assert_int_equal (s_drover ("stauts", NULL), 2);
    assert_non_null (strstr (s_err, "unknown command 'stauts'"));
    assert_non_null (strstr (s_err, "did you mean 'status'?"));
    assert_int_equal (s_drover ("sumbit", "--", "true", NULL), 2);
    assert_non_null (strstr (s_err, "did you mean 'submit'?"));
    assert_int_equal (s_drover ("help", "wiat", NULL), 2);
    assert_non_null (strstr (s_err, "did you mean 'wait'?"));
    assert_int_equal (s_drover ("frobnicate", NULL), 2);
    assert_non_null (strstr (s_err, "unknown command 'frobnicate'"));
    assert_null (strstr (s_err, "did you mean"));
}

//  Every subcommand answers --version, exit 0, like `drover --version`
static void
test_version_on_every_subcommand (void **state)
{
    assert_int_equal (s_drover ("--version", NULL), 0);
    char expected [128];
    snprintf (expected, sizeof expected, "%.100s", s_out);
    assert_non_null (strstr (expected, "drover "));
    const char *commands [] = { "broker", "worker", "submit", "wait", "cancel", "status",
                                "workers", "tasks", "hold", "drain", "resume", "events",
                                "keygen", "bench", "top", NULL };
    for (int index = 0; commands [index]; index++) {
        int rc = s_drover (commands [index], "--version", NULL);
        if (rc != 0 || !streq (s_out, expected))
            fail_msg ("drover %s --version: exit %d, stdout '%s', stderr '%s'",
                      commands [index], rc, s_out, s_err);
    }
    //  After "--" it is the task's own argument, not ours
    assert_int_equal (s_drover ("--broker-timeout", "0.2", "submit", "--", "echo", "--version",
                                NULL), 1);
    assert_string_equal (s_out, "");
}

//  Start `drover worker` with args (after the program name) in slot
static pid_t
s_worker (testutil_cluster_t *cluster, const char *name, const char *const args [])
{
    const char *argv [16] = { DROVER_BIN };
    int argc = 1;
    for (int index = 0; args [index] && argc < 15; index++)
        argv [argc++] = args [index];
    argv [argc] = NULL;
    pid_t pid = testutil_spawn (argv, testutil_cluster_log (cluster, name));
    assert_true (pid > 0);
    return pid;
}

//  `drover worker` finds the broker in DROVER_BROKER and in the global
//  --broker (before the command), as every client command does
static void
test_worker_honours_drover_broker (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    zsock_t *dealer = testutil_dealer (cluster);
    setenv ("DROVER_BROKER", cluster->endpoint, 1);
    const char *from_env [] = { "worker", "--id", "from-env", "--procs", "1", NULL };
    pid_t first = s_worker (cluster, "from-env", from_env);
    unsetenv ("DROVER_BROKER");
    //  Before: it went to the default endpoint and never registered
    assert_true (testutil_wait_workers (dealer, 1, 10000));
    const char *global [] = { "--broker", cluster->endpoint, "worker", "--id", "from-flag",
                              "-n", "1", NULL };
    pid_t second = s_worker (cluster, "from-flag", global);
    assert_true (testutil_wait_workers (dealer, 2, 10000));
    assert_int_equal (s_drover ("--broker", cluster->endpoint, "workers", "-j", NULL), 0);
    assert_non_null (strstr (s_out, "\"id\":\"from-env\""));
    assert_non_null (strstr (s_out, "\"id\":\"from-flag\""));
    testutil_stop (first, 5000);
    testutil_stop (second, 5000);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  The short flags reach the broker as the long ones do, and --json gives
//  the ids; submit --wait says the task id on stderr and with --json
//  prints the outcome, the task's output included
static void
test_short_flags_and_submit_json (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    const char *labels [] = { "--label", "zone=a", NULL };
    testutil_cluster_add_worker (cluster, 0, "w1", 2, labels);
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 1, 10000));
    const char *broker = cluster->endpoint;

    assert_int_equal (s_drover ("--broker", broker, "submit", "-p", "7", "-n", "2", "-m", "1M",
                                "-l", "zone=a", "-t", "30", "-j", "--", "true", NULL), 0);
    unsigned long long task = 0;
    assert_int_equal (sscanf (s_out, "{\"ids\":[%llu]}", &task), 1);
    char needle [96];
    snprintf (needle, sizeof needle, "%llu", task);
    if (s_drover ("--broker", broker, "wait", "-j", needle, NULL) != 0)
        fail_msg ("wait: %s %s", s_out, s_err);
    snprintf (needle, sizeof needle, "{\"id\":%llu,\"state\":\"succeeded\"", task);
    assert_non_null (strstr (s_out, needle));
    assert_non_null (strstr (s_out, "\"succeeded\":1,"));
    assert_int_equal (s_drover ("--broker", broker, "tasks", "-s", "succeeded", "-j", NULL), 0);
    snprintf (needle, sizeof needle, "{\"id\":%llu,\"state\":\"succeeded\",\"outcome\":"
              "\"succeeded\",\"priority\":7,\"procs\":2,", task);
    assert_non_null (strstr (s_out, needle));

    //  --wait: the id on stderr (stdout is the task's), then its status
    assert_int_equal (s_drover ("--broker", broker, "submit", "-w", "--", "sh", "-c",
                                "echo out; exit 3", NULL), 3);
    assert_string_equal (s_out, "out\n");
    assert_int_equal (sscanf (s_err, "drover: task %llu submitted", &task), 1);
    assert_int_equal (s_drover ("--broker", broker, "submit", "-w", "-j", "--", "sh", "-c",
                                "echo 'a \"b\"'; echo err >&2; exit 3", NULL), 3);
    unsigned long long second = 0;
    assert_int_equal (sscanf (s_err, "drover: task %llu submitted", &second), 1);
    assert_true (second > task);
    snprintf (needle, sizeof needle, "{\"id\":%llu,\"state\":\"failed\",\"outcome\":\"failed\","
              "\"exit_code\":3,\"signal\":0,\"status\":3,\"worker\":\"w1\"", second);
    assert_non_null (strstr (s_out, needle));
    assert_non_null (strstr (s_out, "\"stdout\":\"a \\\"b\\\"\\n\",\"stderr\":\"err\\n\""));

    //  --file --json: the ids in the file's order
    char path [] = "/tmp/drover-surprises-XXXXXX";
    int fd = mkstemp (path);
    assert_true (fd >= 0);
    assert_int_equal (write (fd, "true\ntrue\n", 10), 10);
    close (fd);
    assert_int_equal (s_drover ("--broker", broker, "submit", "--no-submit-keys", "-j", "--file", path,
                                NULL), 0);
    unsigned long long one = 0, two = 0;
    assert_int_equal (sscanf (s_out, "{\"ids\":[%llu,%llu]}", &one, &two), 2);
    assert_true (two == one + 1 && one > second);
    unlink (path);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  The wait summary lists what did not succeed in id order, not in the
//  order the tasks ended; --json too
static void
test_wait_lists_failures_in_id_order (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    testutil_cluster_add_worker (cluster, 0, "w1", 2, NULL);
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 1, 10000));
    const char *broker = cluster->endpoint;
    char slow [32], fast [32];
    //  The first fails after the second
    assert_int_equal (s_drover ("--broker", broker, "submit", "--", "sh", "-c", "sleep 1; exit 3",
                                NULL), 0);
    snprintf (slow, sizeof slow, "%llu", strtoull (s_out, NULL, 10));
    assert_int_equal (s_drover ("--broker", broker, "submit", "--", "sh", "-c", "exit 4", NULL), 0);
    snprintf (fast, sizeof fast, "%llu", strtoull (s_out, NULL, 10));
    assert_int_equal (s_drover ("--broker", broker, "wait", fast, slow, NULL), 1);
    char first [48], second [48];
    snprintf (first, sizeof first, "\n  %s  ", slow);
    snprintf (second, sizeof second, "\n  %s  ", fast);
    char *at_slow = strstr (s_out, first), *at_fast = strstr (s_out, second);
    if (!at_slow || !at_fast || at_slow > at_fast)
        fail_msg ("not in id order (%s before %s):\n%s", slow, fast, s_out);
    assert_non_null (strstr (s_out, "2 tasks: 0 succeeded, 2 failed"));
    //  --failures 1 keeps the lowest id
    assert_int_equal (s_drover ("--broker", broker, "wait", "--failures", "1", fast, slow, NULL), 1);
    assert_non_null (strstr (s_out, first));
    assert_null (strstr (s_out, second));
    assert_int_equal (s_drover ("--broker", broker, "wait", "-j", fast, slow, NULL), 1);
    char expected [256];
    snprintf (expected, sizeof expected, "\"not_succeeded\":[{\"id\":%s,\"state\":\"failed\","
              "\"end\":\"exit 3\",\"worker\":\"w1\",\"reason\":", slow);
    assert_non_null (strstr (s_out, expected));
    snprintf (expected, sizeof expected, "\"tasks\":[{\"id\":%s,\"state\":\"failed\",\"outcome\":"
              "\"failed\",\"exit_code\":3,\"signal\":0},{\"id\":%s,", slow, fast);
    assert_non_null (strstr (s_out, expected));
    assert_non_null (strstr (s_out, "{\"total\":2,\"succeeded\":0,\"failed\":2,"));
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  Return the first line of text that czmq dated ("I: 26-12-06 04:42:01 ..."),
//  its own format with a two-digit year, or NULL if none
static const char *
s_czmq_line (const char *text)
{
    const char *line = text;
    while (line && *line) {
        int year, month, day, hour, minute, second;
        char level;
        if (sscanf (line, "%c: %2d-%2d-%2d %2d:%2d:%2d ", &level, &year, &month, &day, &hour,
                    &minute, &second) == 7)
            return line;
        line = strchr (line, '\n');
        line = line? line + 1: NULL;
    }
    return NULL;
}

//  The first broker of the list down: every command still works, and
//  stderr holds no line of the library's log in czmq's own format (the
//  client moving to the next broker is not the command's news); what
//  the library warns of comes as "drover: warning: ..."
static void
test_no_library_log_lines_with_first_broker_down (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    char list [160];
    snprintf (list, sizeof list, "tcp://127.0.0.1:%d,%s", testutil_free_port (),
              cluster->endpoint);
    assert_int_equal (s_drover ("--broker", list, "tasks", NULL), 0);
    const char *line = s_czmq_line (s_err);
    if (line)
        fail_msg ("drover tasks printed czmq's log line: %s", line);
    assert_int_equal (s_drover ("--broker", list, "submit", "--", "true", NULL), 0);
    line = s_czmq_line (s_err);
    if (line)
        fail_msg ("drover submit printed czmq's log line: %s", line);
    testutil_cluster_destroy (&cluster);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_mistyped_command_says_did_you_mean),
        cmocka_unit_test (test_version_on_every_subcommand),
        cmocka_unit_test (test_worker_honours_drover_broker),
        cmocka_unit_test (test_short_flags_and_submit_json),
        cmocka_unit_test (test_wait_lists_failures_in_id_order),
        cmocka_unit_test (test_no_library_log_lines_with_first_broker_down),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
