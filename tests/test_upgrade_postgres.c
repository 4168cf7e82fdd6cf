/*  =========================================================================
    test_upgrade_postgres - a PostgreSQL state a newer broker wrote (its
    format past this one's) is refused at open, before anything of it is
    touched, and the broker stops with an error that names both formats
    and says to upgrade the broker (docs/upgrading.md); on a real server
    started by the test (tests/pg_server.sh, on loopback, a free port),
    each test on a database of its own. Without PostgreSQL installed the
    test fails and says to install it.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_servers.h"
#include "testutil_pgfresh.h"
#include <sys/wait.h>

//  The server this binary runs its tests on
static testutil_pgfresh_t s_server;

//  Start the server once for every test
static int
s_group_setup (void **state)
{
    testutil_pgfresh_start (&s_server, "test_upgrade_postgres", "up");
    return 0;
}

//  Stop the server; its directory is kept if a test failed
static int
s_group_teardown (void **state)
{
    testutil_pgfresh_stop (&s_server);
    return 0;
}

//  A fresh database for each test
static int
s_setup (void **state)
{
    testutil_pgfresh_database (&s_server);
    return 0;
}

//  A body of drover_fence_check no release of drover writes: a newer
//  broker's, which an older one must leave alone
#define S_NEWER_FENCE_CHECK \
    "CREATE OR REPLACE FUNCTION drover_fence_check (ours bigint) RETURNS void" \
    " LANGUAGE plpgsql AS $$ BEGIN PERFORM 1; /* a newer broker's */ END $$"

//  Make the test's database a state a newer broker wrote: format marker
//  `format`, the index of final tasks dropped (as a newer format might
//  have), the fence check redefined
static void
s_make_newer (const char *format)
{
    drover_store_t *backend = testutil_pgfresh_open (&s_server);
    drover_store_destroy (&backend);
    char sql [160];
    snprintf (sql, sizeof sql, "UPDATE drover_meta SET value = '%s' WHERE name = 'format'",
              format);
    testutil_pgfresh_sql (s_server.db_uri, sql);
    testutil_pgfresh_sql (s_server.db_uri, "DROP INDEX drover_tasks_final");
    testutil_pgfresh_sql (s_server.db_uri, S_NEWER_FENCE_CHECK);
}

//  Assert the newer state is as it was made: its marker, no index made
//  again, the fence check not replaced
static void
s_assert_untouched (const char *format)
{
    testutil_assert_and_free (testutil_pgfresh_format (&s_server), format);
    assert_int_equal (testutil_pgfresh_sql (s_server.db_uri, "SELECT count (*) FROM pg_indexes"
                                            " WHERE indexname = 'drover_tasks_final'"), 0);
    assert_int_equal (testutil_pgfresh_sql (s_server.db_uri, "SELECT count (*) FROM pg_proc"
                                            " WHERE proname = 'drover_fence_check'"
                                            " AND prosrc LIKE '%a newer broker%'"), 1);
}

//  Assert error refuses format as newer than ours, naming both and the fix
static void
s_assert_newer_error (const char *error, const char *format)
{
    char quoted [64];
    snprintf (quoted, sizeof quoted, "'%s'", format);
    if (!error || !strstr (error, "state in PostgreSQL is") || !strstr (error, quoted)
    ||  !strstr (error, "newer than this broker's 'drover-postgres 3'")
    ||  !strstr (error, "upgrade the broker") || !strstr (error, "postgresql 127.0.0.1:"))
        fail_msg ("not the refusal of a newer state '%s': %s", format, error? error: "(none)");
}

//  The store refuses a newer state, whether a leader (a fence) or alone,
//  and leaves it as it was; format numbers compare as numbers
static void
test_newer_state_refused_at_open (void **state)
{
    s_make_newer ("drover-postgres 10");
    for (uint64_t fence = 0; fence < 2; fence++) {
        char *error = NULL;
        drover_store_t *backend = drover_store_open_postgres (s_server.db_uri, fence * 5,
                                                              &error);
        assert_null (backend);
        s_assert_newer_error (error, "drover-postgres 10");
        zstr_free (&error);
        s_assert_untouched ("drover-postgres 10");
    }
    //  A leader's refused open claimed nothing
    assert_int_equal (testutil_pgfresh_sql (s_server.db_uri,
                                            "SELECT token FROM drover_fence WHERE id = 1"), 0);
    s_server.passed++;
}

//  The broker started on a newer state stops at once (exit 1), never
//  ready, its log saying what to do; the state is left as it was
static void
test_newer_state_stops_the_broker (void **state)
{
    s_make_newer ("drover-postgres 4");
    char dir [] = "/tmp/drover-upgrade-pg-XXXXXX";
    assert_non_null (mkdtemp (dir));
    char log [PATH_MAX];
    snprintf (log, sizeof log, "%s/broker.log", dir);
    int port = testutil_free_port_pair ();
    char endpoint [64], events [64];
    snprintf (endpoint, sizeof endpoint, "tcp://127.0.0.1:%d", port);
    snprintf (events, sizeof events, "tcp://127.0.0.1:%d", port + 1);
    const char *argv [] = { DROVER_BIN, "broker", "--endpoint", endpoint, "--events", events,
                            "--state", s_server.db_uri, NULL };
    pid_t pid = testutil_spawn (argv, log);
    assert_true (pid > 0);
    int status = testutil_wait_exit (pid, 20000);
    if (status == -1)
        testutil_stop (pid, 100);
    char *text = testutil_slurp (log);
    assert_non_null (text);
    if (status == -1 || !WIFEXITED (status) || WEXITSTATUS (status) != 1
    ||  strstr (text, "broker: ready"))
        fail_msg ("broker on a newer PostgreSQL state: status %d, log:\n%s", status, text);
    s_assert_newer_error (text, "drover-postgres 4");
    free (text);
    s_assert_untouched ("drover-postgres 4");
    testutil_remove_tree (dir);
    s_server.passed++;
}

//  Another program's format stays "not a drover state"; this release's
//  own opens as before
static void
test_other_formats_unchanged (void **state)
{
    drover_store_t *backend = testutil_pgfresh_open (&s_server);
    drover_store_destroy (&backend);
    testutil_pgfresh_sql (s_server.db_uri, "UPDATE drover_meta SET value = 'drover-postgres x'"
                          " WHERE name = 'format'");
    char *error = NULL;
    assert_null (drover_store_open_postgres (s_server.db_uri, 0, &error));
    assert_non_null (error);
    assert_non_null (strstr (error, "not a drover state"));
    assert_null (strstr (error, "newer"));
    zstr_free (&error);
    testutil_pgfresh_sql (s_server.db_uri, "UPDATE drover_meta SET value = 'drover-postgres 03'"
                          " WHERE name = 'format'");
    assert_null (drover_store_open_postgres (s_server.db_uri, 0, &error));
    assert_non_null (strstr (error, "not a drover state"));
    zstr_free (&error);
    testutil_pgfresh_sql (s_server.db_uri, "UPDATE drover_meta SET value = 'drover-postgres 3'"
                          " WHERE name = 'format'");
    backend = testutil_pgfresh_open (&s_server);
    drover_store_destroy (&backend);
    s_server.passed++;
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup (test_newer_state_refused_at_open, s_setup),
        cmocka_unit_test_setup (test_newer_state_stops_the_broker, s_setup),
        cmocka_unit_test_setup (test_other_formats_unchanged, s_setup),
    };
    return cmocka_run_group_tests (tests, s_group_setup, s_group_teardown);
}
