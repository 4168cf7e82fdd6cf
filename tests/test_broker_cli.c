/*  =========================================================================
    test_broker_cli - the broker refuses bad start-up settings, by name,
    before it binds anything
    =========================================================================
*/

#include "testutil_proc.h"
#include <sys/wait.h>

//  Run `drover broker` with flags; expect exit status 2 and `needle` in its output
static void
s_expect_refusal (const char *const flags [], const char *needle)
{
    char log [] = "/tmp/drover-broker-cli-XXXXXX";
    int fd = mkstemp (log);
    assert_true (fd >= 0);
    close (fd);
    const char *argv [16] = { DROVER_BIN, "broker" };
    int argc = 2;
    for (int index = 0; flags [index]; index++)
        argv [argc++] = flags [index];
    argv [argc] = NULL;
    pid_t pid = testutil_spawn (argv, log);
    int status = testutil_wait_exit (pid, 5000);
    if (status == -1)
        testutil_stop (pid, 100);
    char *output = testutil_slurp (log);
    if (!output || !strstr (output, needle))
        fprintf (stderr, "expected '%s' in: %s\n", needle, output? output: "(nothing)");
    assert_true (status != -1 && WIFEXITED (status));
    assert_int_equal (WEXITSTATUS (status), 2);
    assert_non_null (output);
    assert_non_null (strstr (output, needle));
    free (output);
    unlink (log);
}

static void
test_non_loopback_needs_insecure (void **state)
{
    char endpoint [64];
    snprintf (endpoint, sizeof endpoint, "tcp://0.0.0.0:%d", testutil_free_port ());
    const char *flags [] = { "--endpoint", endpoint, NULL };
    s_expect_refusal (flags, "--insecure");
    const char *events [] = { "--events", "tcp://*:5999", NULL };
    s_expect_refusal (events, "--insecure");
}

static void
test_bad_values_name_their_key (void **state)
{
    const char *range [] = { "--set", "health/lost-after=5", NULL };
    s_expect_refusal (range, "health/lost-after");
    const char *unknown [] = { "--set", "health/lost-afterr=5000", NULL };
    s_expect_refusal (unknown, "health/lost-afterr");
    const char *missing [] = { "-c", "/nonexistent/drover.cfg", NULL };
    s_expect_refusal (missing, "/nonexistent/drover.cfg");
    const char *flag [] = { "--frobnicate", NULL };
    s_expect_refusal (flag, "usage");
}

static void
test_print_config_is_loadable (void **state)
{
    char path [] = "/tmp/drover-printed-XXXXXX";
    int fd = mkstemp (path);
    assert_true (fd >= 0);
    close (fd);
    const char *argv [] = { DROVER_BIN, "broker", "--print-config", NULL };
    pid_t pid = testutil_spawn (argv, path);
    int status = testutil_wait_exit (pid, 5000);
    assert_true (status != -1 && WIFEXITED (status) && WEXITSTATUS (status) == 0);
    char *text = testutil_slurp (path);
    assert_non_null (strstr (text, "lost-after = 5000"));
    free (text);
    //  Loading the printed file with a value out of range still fails by name
    FILE *file = fopen (path, "a");
    fprintf (file, "assign\n    ack-timeout = 1\n");
    fclose (file);
    const char *flags [] = { "-c", path, NULL };
    s_expect_refusal (flags, "assign/ack-timeout");
    unlink (path);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_non_loopback_needs_insecure),
        cmocka_unit_test (test_bad_values_name_their_key),
        cmocka_unit_test (test_print_config_is_loadable),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
