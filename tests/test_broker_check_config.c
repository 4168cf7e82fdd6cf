/*  =========================================================================
    test_broker_check_config - `drover broker --check-config` checks the
    settings as a start would, without binding or opening the state: "config
    ok" and 0, or every mistake (not the first only) and 2
    =========================================================================
*/

#include "testutil_proc.h"
#include <sys/stat.h>
#include <sys/wait.h>

//  Run `drover broker --check-config` with flags; its status, its output
static int
s_check (const char *const flags [], char *output, size_t size)
{
    char errors [8192];
    const char *argv [24] = { DROVER_BIN, "broker", "--check-config" };
    int argc = 3;
    for (int index = 0; flags [index] && argc < 23; index++)
        argv [argc++] = flags [index];
    argv [argc] = NULL;
    int status = testutil_run_cli (argv, output, size, errors, sizeof errors, 10000);
    assert_true (status != -1 && WIFEXITED (status));
    strncat (output, errors, size - strlen (output) - 1);
    return WEXITSTATUS (status);
}

//  Write text as a settings file in dir; its path in path
static void
s_write (const char *dir, const char *name, const char *text, char *path, size_t size)
{
    snprintf (path, size, "%s/%s", dir, name);
    FILE *file = fopen (path, "w");
    assert_non_null (file);
    fputs (text, file);
    assert_int_equal (fclose (file), 0);
}

//  A good file: ok, exit 0, its warnings said, no state made, no port taken
static void
test_good_file_is_ok (void **state)
{
    char dir [] = "/tmp/drover-checkcfg-XXXXXX";
    assert_non_null (mkdtemp (dir));
    char cfg [256], state_dir [256], endpoint [64];
    int port = testutil_free_port ();
    snprintf (endpoint, sizeof endpoint, "tcp://127.0.0.1:%d", port);
    s_write (dir, "good.cfg", "share\n    weights = \"alice=3\"\nsched\n    preemption = \"on\"\n"
             "    preempt-max = 8\nbroker\n    log-level = warning\n", cfg, sizeof cfg);
    snprintf (state_dir, sizeof state_dir, "%s/state", dir);
    char output [16384] = "";
    const char *flags [] = { "-c", cfg, "--state-dir", state_dir, "--endpoint", endpoint,
                             NULL };
    assert_int_equal (s_check (flags, output, sizeof output), 0);
    assert_non_null (strstr (output, "drover broker: config ok"));
    struct stat info;
    assert_int_equal (stat (state_dir, &info), -1);
    assert_true (testutil_port_free (port));
    //  A setting idle on purpose is a warning, not a mistake
    char warned [16384] = "";
    const char *idle [] = { "--durability", "off", "--set", "store/history-count=5",
                            "--state-dir", state_dir, NULL };
    assert_int_equal (s_check (idle, warned, sizeof warned), 0);
    assert_non_null (strstr (warned, "drover broker: warning: settings that do nothing: "));
    assert_non_null (strstr (warned, "store/history-count"));
    assert_non_null (strstr (warned, "config ok"));
    testutil_remove_tree (dir);
}

//  Two mistakes in the file: both said, exit 2; and mistakes of settings
//  together (preempt-max without preemption, a non-loopback endpoint
//  without CURVE) all said as well
static void
test_every_mistake_is_said (void **state)
{
    char dir [] = "/tmp/drover-checkcfg-XXXXXX";
    assert_non_null (mkdtemp (dir));
    char cfg [256], state_dir [256];
    s_write (dir, "bad.cfg", "broker\n    hwm = 5\n    no-such-key = 1\n", cfg, sizeof cfg);
    snprintf (state_dir, sizeof state_dir, "%s/state", dir);
    char output [16384] = "";
    const char *flags [] = { "-c", cfg, "--state-dir", state_dir, NULL };
    assert_int_equal (s_check (flags, output, sizeof output), 2);
    assert_non_null (strstr (output, "broker/hwm: '5' is not a whole number"));
    assert_non_null (strstr (output, "broker/no-such-key: no such setting"));
    assert_null (strstr (output, "config ok"));
    struct stat info;
    assert_int_equal (stat (state_dir, &info), -1);

    char together [256];
    s_write (dir, "together.cfg", "sched\n    preempt-max = 9\nbroker\n"
             "    endpoint = \"tcp://0.0.0.0:5555\"\n", together, sizeof together);
    char said [16384] = "";
    const char *more [] = { "-c", together, "--set", "share/weights=alice", NULL };
    assert_int_equal (s_check (more, said, sizeof said), 2);
    assert_non_null (strstr (said, "refusing a non-loopback address without CURVE"));
    assert_non_null (strstr (said, "sched/preempt-max needs sched/preemption = on"));
    assert_non_null (strstr (said, "share/weights"));
    //  Key files that cannot be read are a mistake too
    char keys [16384] = "";
    const char *curve [] = { "--key", "/nonexistent/broker.key", "--keys", "/nonexistent/keys",
                             NULL };
    assert_int_equal (s_check (curve, keys, sizeof keys), 2);
    assert_non_null (strstr (keys, "/nonexistent/broker.key"));
    testutil_remove_tree (dir);
}

//  --help names --check-config
static void
test_help_names_it (void **state)
{
    char output [16384], errors [1024];
    const char *argv [] = { DROVER_BIN, "broker", "--help", NULL };
    int status = testutil_run_cli (argv, output, sizeof output, errors, sizeof errors, 10000);
    assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
    assert_non_null (strstr (output, "--check-config"));
    assert_non_null (strstr (output, "SIGHUP"));
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_good_file_is_ok),
        cmocka_unit_test (test_every_mistake_is_said),
        cmocka_unit_test (test_help_names_it),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
