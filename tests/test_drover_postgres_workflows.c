/*  =========================================================================
    test_drover_postgres_workflows - what the PostgreSQL backend keeps for
    workflows (a submit's after list, begin, retry delays and array; a
    task's wait, due time, group and elements made), on a real server
    started by the test (tests/pg_server.sh, on loopback, a free port): a
    round trip through a reopen, a state of the format before them
    (drover-postgres 1) upgraded at open (to the current format), a newer
    one refused. Each test gets a database of its own. Without PostgreSQL
    installed the test fails and says to install it.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_servers.h"
#include "testutil_pgfresh.h"
#include "testutil_backend.h"

//  The server this binary runs its tests on
static testutil_pgfresh_t s_server;

//  Start the server once for every test
static int
s_group_setup (void **state)
{
    testutil_pgfresh_start (&s_server, "test_drover_postgres_workflows", "wf");
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

//  Every workflow column comes back through a reopen: written with the
//  submit, then changed by later changes (UPDATE of a queued task and of
//  one that ended); a submit without them keeps NULL after and array
static void
test_workflow_round_trip (void **state)
{
    drover_store_t *backend = testutil_pgfresh_open (&s_server);
    testutil_workflow_apply (backend, 1, 1);
    drover_store_destroy (&backend);

    assert_int_equal (testutil_pgfresh_sql (s_server.db_uri, "SELECT count (*) FROM drover_tasks WHERE id = 2"
                             " AND \"after\" IS NULL AND \"array\" IS NULL"), 1);
    assert_int_equal (testutil_pgfresh_sql (s_server.db_uri, "SELECT length (\"after\") FROM drover_tasks"
                             " WHERE id = 1"), 27);
    assert_int_equal (testutil_pgfresh_sql (s_server.db_uri, "SELECT length (\"array\") FROM drover_tasks"
                             " WHERE id = 1"), 16);
    //  The same bytes as SQLite keeps: kind, then the id's high byte first
    assert_int_equal (testutil_pgfresh_sql (s_server.db_uri, "SELECT count (*) FROM drover_tasks WHERE id = 1"
                             " AND substr (\"after\", 10, 9) = '\\x010102030405060708'"), 1);

    backend = testutil_pgfresh_open (&s_server);
    testutil_loaded_t loaded = { .count = 0 };
    assert_int_equal (testutil_load (backend, 10, &loaded), 4);
    testutil_workflow_assert_loaded (&loaded, 1);
    testutil_loaded_free (&loaded);
    char text [DROVER_STORE_ERROR_MAX];
    drover_change_t *read = NULL;
    assert_int_equal (drover_store_read_task (backend, 3, &read, text, sizeof text), 1);
    testutil_assert_workflow_submit (read);
    assert_int_equal (read->made, 11);
    drover_change_destroy (&read);
    drover_store_destroy (&backend);
    testutil_assert_and_free (testutil_pgfresh_format (&s_server), "drover-postgres 3");
    s_server.passed++;
}

//  The columns workflows added, dropped: a state as the format before
//  them (drover-postgres 1) wrote it, with the columns after them
#define S_FORMAT_1_SQL \
    "ALTER TABLE drover_tasks DROP COLUMN devices, DROP COLUMN assigned;" \
    " ALTER TABLE drover_tasks DROP COLUMN \"after\", DROP COLUMN \"begin\"," \
    " DROP COLUMN retry_delay, DROP COLUMN retry_max_delay, DROP COLUMN \"array\"," \
    " DROP COLUMN waits, DROP COLUMN due, DROP COLUMN grp, DROP COLUMN made;" \
    " UPDATE drover_meta SET value = 'drover-postgres 1' WHERE name = 'format'"

//  A state of the format before workflows is upgraded at open: its tasks
//  wait for nothing and belong to no group, and take the workflow fields
//  from then on, old tasks and new alike
static void
test_format_1_upgraded (void **state)
{
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_t *backend = testutil_pgfresh_open (&s_server);
    drover_change_t *first [] = { testutil_queued (1, 1, NULL), testutil_queued (2, 2, NULL) };
    assert_int_equal (testutil_apply (backend, first, 2, text), 0);
    drover_store_destroy (&backend);
    testutil_pgfresh_sql (s_server.db_uri, S_FORMAT_1_SQL);

    backend = testutil_pgfresh_open (&s_server);
    testutil_assert_and_free (testutil_pgfresh_format (&s_server), "drover-postgres 3");
    testutil_loaded_t loaded = { .count = 0 };
    assert_int_equal (testutil_load (backend, 10, &loaded), 2);
    for (size_t index = 0; index < 2; index++) {
        drover_change_t *change = loaded.changes [index];
        testutil_assert_submit (change, index + 1, NULL);
        assert_int_equal (change->submit->nafter, 0);
        assert_int_equal (change->submit->begin, 0);
        assert_int_equal (change->submit->array.count, 0);
        assert_int_equal (change->waits, DROVER_WAITS_NONE);
        assert_int_equal (change->group, 0);
    }
    testutil_loaded_free (&loaded);

    drover_change_t *waiting = testutil_change ("task.waiting", 1, 3, DROVER_TASK_QUEUED);
    waiting->waits = DROVER_WAITS_BEGIN;
    waiting->due_at = 1796000009000;
    drover_change_t *batch [] = { waiting };
    assert_int_equal (testutil_apply (backend, batch, 1, text), 0);
    testutil_workflow_apply (backend, 3, 4);
    drover_store_destroy (&backend);

    backend = testutil_pgfresh_open (&s_server);
    assert_int_equal (testutil_load (backend, 10, &loaded), 6);
    assert_int_equal (loaded.changes [0]->waits, DROVER_WAITS_BEGIN);
    assert_int_equal (loaded.changes [0]->due_at, 1796000009000);
    testutil_workflow_assert_loaded (&loaded, 3);
    testutil_loaded_free (&loaded);
    drover_store_destroy (&backend);
    s_server.passed++;
}

//  A state of a newer format is refused, naming both, and left as it was
static void
test_newer_format_refused (void **state)
{
    drover_store_t *backend = testutil_pgfresh_open (&s_server);
    drover_store_destroy (&backend);
    testutil_pgfresh_sql (s_server.db_uri, "UPDATE drover_meta SET value = 'drover-postgres 4'"
           " WHERE name = 'format'");
    char *error = NULL;
    backend = drover_store_open_postgres (s_server.db_uri, 0, &error);
    assert_null (backend);
    assert_non_null (error);
    assert_non_null (strstr (error, "drover-postgres 4"));
    assert_non_null (strstr (error, "'drover-postgres 3'"));
    zstr_free (&error);
    testutil_assert_and_free (testutil_pgfresh_format (&s_server), "drover-postgres 4");
    s_server.passed++;
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup (test_workflow_round_trip, s_setup),
        cmocka_unit_test_setup (test_format_1_upgraded, s_setup),
        cmocka_unit_test_setup (test_newer_format_refused, s_setup),
    };
    return cmocka_run_group_tests (tests, s_group_setup, s_group_teardown);
}
