/*  =========================================================================
    test_drover_store_sharing - what format 6 of the store's SQLite state
    keeps for sharing a cluster (a submit's devices and preemptible flag,
    the owner assign gives a change, an attempt's device indices), a state
    of format 5 upgraded at open, a damaged devices column refused, and
    the shares kept (table shares, made when missing)
    =========================================================================
*/

#include "testutil_statedir.h"
#include "testutil_backend.h"
#include <sqlite3.h>

//  Run a one-row query on the state file (closed); returns its first
//  column as text (ours: free), NULL for SQL NULL, asserting a row came
static char *
s_query_text (const char *file, const char *sql)
{
    sqlite3 *db;
    assert_int_equal (sqlite3_open (file, &db), SQLITE_OK);
    sqlite3_stmt *stmt;
    assert_int_equal (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL), SQLITE_OK);
    assert_int_equal (sqlite3_step (stmt), SQLITE_ROW);
    const char *text = (const char *) sqlite3_column_text (stmt, 0);
    char *copy = text? strdup (text): NULL;
    sqlite3_finalize (stmt);
    sqlite3_close (db);
    return copy;
}

//  Every sharing column comes back through a reopen, written with the
//  submit and changed by later changes; the devices are kept as their
//  canonical text
static void
test_sharing_round_trip (void **state)
{
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
    drover_store_t *backend = testutil_statedir_open (dirs);
    testutil_sharing_apply (backend, 1, 1);
    drover_store_destroy (&backend);

    testutil_assert_and_free (s_query_text (dirs->file, "SELECT devices FROM tasks"
                                            " WHERE id = 1"), "fpga=1,gpu=2");
    testutil_assert_and_free (s_query_text (dirs->file, "SELECT owner FROM tasks WHERE id = 1"),
                              "bob");
    assert_null (s_query_text (dirs->file, "SELECT devices FROM tasks WHERE id = 2"));
    assert_null (s_query_text (dirs->file, "SELECT assigned FROM tasks WHERE id = 3"));

    backend = testutil_statedir_open (dirs);
    testutil_loaded_t loaded = { .count = 0 };
    assert_int_equal (testutil_load (backend, 10, &loaded), 3);
    testutil_sharing_assert_loaded (&loaded, 1);
    testutil_loaded_free (&loaded);
    char text [DROVER_STORE_ERROR_MAX];
    drover_change_t *read = NULL;
    assert_int_equal (drover_store_read_task (backend, 2, &read, text, sizeof text), 1);
    assert_string_equal (read->assigned, "gpu=1");
    drover_change_destroy (&read);
    drover_store_destroy (&backend);
    testutil_assert_and_free (testutil_statedir_format (dirs->file), "drover-state 7");
}

//  A state of format 5 (no device columns) is upgraded at open: every task
//  is kept, asks for no devices and was given none, and the columns are
//  written from then on
static void
test_format_5_upgraded (void **state)
{
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
    testutil_statedir_make (dirs, 2);
    drover_store_t *backend =
        testutil_statedir_open_after_sql (dirs, TESTUTIL_DROP_COLUMNS_6
                                          "UPDATE meta SET value = 'drover-state 5'"
                                          " WHERE name = 'format'");
    testutil_loaded_t loaded = { .count = 0 };
    assert_int_equal (testutil_load (backend, 10, &loaded), 2);
    for (size_t index = 0; index < 2; index++) {
        drover_change_t *change = loaded.changes [index];
        testutil_assert_submit (change, index + 1, NULL);
        assert_int_equal (change->submit->ndevices, 0);
        assert_null (change->assigned);
    }
    testutil_loaded_free (&loaded);
    testutil_sharing_apply (backend, 3, 3);
    drover_store_destroy (&backend);

    backend = testutil_statedir_open (dirs);
    assert_int_equal (testutil_load (backend, 10, &loaded), 5);
    testutil_assert_submit (loaded.changes [0], 1, NULL);
    testutil_sharing_assert_loaded (&loaded, 3);
    testutil_loaded_free (&loaded);
    drover_store_destroy (&backend);
    testutil_assert_and_free (testutil_statedir_format (dirs->file), "drover-state 7");
}

//  A devices column that is not a device list is a damaged state: load
//  refuses it; mended, it loads again
static void
test_damaged_devices_refused (void **state)
{
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
    const char *damages [] = {
        "UPDATE tasks SET devices = 'gpu' WHERE id = 1",
        "UPDATE tasks SET devices = 'gpu=0' WHERE id = 1",
        "UPDATE tasks SET devices = 'GPU=1' WHERE id = 1",
    };
    testutil_statedir_make (dirs, 1);
    //  Read by its columns, as a task an update touched (a fresh one is
    //  read by its packed fields: test_drover_sqlite_fresh)
    testutil_statedir_sql_file (dirs->file, "UPDATE tasks SET fresh = NULL");
    for (size_t index = 0; index < sizeof damages / sizeof damages [0]; index++) {
        testutil_statedir_sql_file (dirs->file, damages [index]);
        testutil_statedir_assert_refused (dirs);
        testutil_statedir_sql_file (dirs->file, "UPDATE tasks SET devices = NULL");
        drover_store_t *backend = testutil_statedir_open (dirs);
        testutil_loaded_t loaded = { .count = 0 };
        assert_int_equal (testutil_load (backend, 10, &loaded), 1);
        testutil_loaded_free (&loaded);
        drover_store_destroy (&backend);
    }
}

//  Collect kept shares as "name weight members quota" lines (members "-"
//  for NULL)
static int
s_take_share (void *arg, const drover_store_share_t *share)
{
    char line [256];
    snprintf (line, sizeof line, "%s %u %s %s\n", share->name, share->weight,
              share->members? share->members: "-", share->quota);
    strcat ((char *) arg, line);
    return 0;
}

//  Shares come back through a reopen in name order (members NULL for an
//  owner); weight 0 drops one; a state made before shares were kept (no
//  table) opens and takes the table
static void
test_shares_kept (void **state)
{
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
    testutil_statedir_make (dirs, 1);
    drover_store_t *backend = testutil_statedir_open_after_sql (dirs, "DROP TABLE shares");
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_share_t shares [] = {
        { .name = "team-b", .weight = 1, .members = "carol", .quota = "" },
        { .name = "team-a", .weight = 3, .members = "alice,bob", .quota = "procs=8,gpu=2" },
        { .name = "dave", .weight = 2, .members = NULL, .quota = "queued=5" },
        { .name = "team-b", .weight = 0, .members = NULL, .quota = "" },
    };
    for (size_t index = 0; index < sizeof shares / sizeof shares [0]; index++)
        assert_int_equal (drover_store_save_share (backend, &shares [index], text,
                                                   sizeof text), 0);
    drover_store_destroy (&backend);

    backend = testutil_statedir_open (dirs);
    char lines [1024] = "";
    assert_int_equal (drover_store_load_shares (backend, s_take_share, lines, text,
                                                sizeof text), 2);
    assert_string_equal (lines, "dave 2 - queued=5\nteam-a 3 alice,bob procs=8,gpu=2\n");
    drover_store_destroy (&backend);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_sharing_round_trip, testutil_statedir_setup,
                                         testutil_statedir_teardown),
        cmocka_unit_test_setup_teardown (test_format_5_upgraded, testutil_statedir_setup,
                                         testutil_statedir_teardown),
        cmocka_unit_test_setup_teardown (test_damaged_devices_refused,
                                         testutil_statedir_setup, testutil_statedir_teardown),
        cmocka_unit_test_setup_teardown (test_shares_kept, testutil_statedir_setup,
                                         testutil_statedir_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
