/*  =========================================================================
    test_drover_reload - a reload's comparison: which settings changed, which
    of them apply while the broker runs and which need a restart, and a
    file that does not read or check changing nothing
    =========================================================================
*/

#include "testutil.h"
#include "drover_reload.h"
#include "drover_brokerflags.h"

//  Write text as the settings file at path
static void
s_write_file (const char *path, const char *text)
{
    FILE *file = fopen (path, "w");
    assert_non_null (file);
    fputs (text, file);
    assert_int_equal (fclose (file), 0);
}

//  Live settings apply (and are set in the running ones), others are
//  named as needing a restart and keep their running value
static void
test_compare_sorts_settings (void **state)
{
    char path [] = "/tmp/drover-reload-XXXXXX";
    int fd = mkstemp (path);
    assert_true (fd >= 0);
    close (fd);
    s_write_file (path, "broker\n    hwm = 1000\nshare\n    weights = \"alice=2\"\n");
    char *argv [] = { "broker", "-c", path, "--set", "probation/timeout=5000", NULL };
    drover_config_t *running = drover_config_new ();
    bool verbose = false;
    int status = 0;
    assert_int_equal (drover_brokerflags_parse (running, 5, argv, &verbose, &status), 0);
    drover_reload_t *reload = drover_reload_new (5, argv, running);
    assert_non_null (reload);
    running->max_workers = 7;   //  fitted by the broker after: not a change
    assert_true (drover_reload_fd (reload) >= 0);
    assert_false (drover_reload_heard (reload));

    char *applied = NULL, *restart = NULL, *errors = NULL;
    assert_int_equal (drover_reload_compare (reload, running, &applied, &restart, &errors), 0);
    if (applied || restart)
        fail_msg ("unchanged, yet applied=%s restart=%s", applied, restart);

    s_write_file (path, "broker\n    hwm = 3000\n    log-level = warning\n"
                        "share\n    weights = \"alice=4\"\n    quotas = \"alice:procs=2\"\n"
                        "health\n    lost-after = 9000\n");
    assert_int_equal (drover_reload_compare (reload, running, &applied, &restart, &errors), 0);
    assert_string_equal (applied, "broker/log-level, share/weights, share/quotas");
    assert_string_equal (restart, "broker/hwm, health/lost-after");
    assert_string_equal (running->share_weights, "alice=4");
    assert_string_equal (running->log_level, "warning");
    assert_int_equal (running->hwm, 1000);
    assert_int_equal (running->lost_after, 5000);
    assert_int_equal (running->probation_timeout, 5000);    //  --set still wins
    zstr_free (&applied);
    zstr_free (&restart);
    //  The same again: nothing more applies; the restart still pends
    assert_int_equal (drover_reload_compare (reload, running, &applied, &restart, &errors), 0);
    assert_null (applied);
    assert_string_equal (restart, "broker/hwm, health/lost-after");
    zstr_free (&restart);

    //  Broken: every reason, nothing changed
    s_write_file (path, "broker\n    hwm = 5\nshare\n    weights = \"alice=9\"\n    bad = 1\n");
    assert_int_equal (drover_reload_compare (reload, running, &applied, &restart, &errors), -1);
    assert_non_null (strstr (errors, "broker/hwm"));
    assert_non_null (strstr (errors, "\n"));
    assert_non_null (strstr (errors, "share/bad: no such setting"));
    assert_string_equal (running->share_weights, "alice=4");
    zstr_free (&errors);
    //  Well formed but refused by the checks: the same
    s_write_file (path, "share\n    weights = \"alice\"\n");
    assert_int_equal (drover_reload_compare (reload, running, &applied, &restart, &errors), -1);
    assert_non_null (strstr (errors, "share/weights"));
    assert_string_equal (running->share_weights, "alice=4");
    zstr_free (&errors);
    drover_reload_destroy (&reload);
    drover_reload_destroy (&reload);
    drover_config_destroy (&running);
    unlink (path);
}

//  What applies while running, and what does not
static void
test_live_settings (void **state)
{
    assert_true (drover_reload_live ("share/weights"));
    assert_true (drover_reload_live ("broker/log-level"));
    assert_true (drover_reload_live ("sched/preempt-max"));
    assert_false (drover_reload_live ("broker/hwm"));
    assert_false (drover_reload_live ("security/keys"));
    assert_false (drover_reload_live ("broker/endpoint"));
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_compare_sorts_settings),
        cmocka_unit_test (test_live_settings),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
