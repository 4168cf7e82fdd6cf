/*  =========================================================================
    test_drover_store_workflows - what the store's SQLite state (format 5 on)
    keeps for workflows (a submit's after list, begin, retry delays and
    array; a task's wait, due time, group and elements made), a state of
    format 4 upgraded at open, a newer one refused, a damaged packed
    column refused
    =========================================================================
*/

#include "testutil_statedir.h"
#include "testutil_backend.h"
#include <sqlite3.h>

//  Every workflow column comes back through a reopen: written with the
//  submit, then changed by later changes (UPDATE of a queued task and of
//  one that ended); a submit without them keeps NULL after and array
static void
test_workflow_round_trip (void **state)
{
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
    drover_store_t *backend = testutil_statedir_open (dirs);
    testutil_workflow_apply (backend, 1, 1);
    drover_store_destroy (&backend);

    assert_int_equal (testutil_statedir_query_int (dirs->file,
                      "SELECT count (*) FROM tasks WHERE id = 2"
                      " AND \"after\" IS NULL AND \"array\" IS NULL"), 1);
    assert_int_equal (testutil_statedir_query_int (dirs->file,
                      "SELECT length (\"after\") FROM tasks"
                      " WHERE id = 1"), 27);
    assert_int_equal (testutil_statedir_query_int (dirs->file,
                      "SELECT length (\"array\") FROM tasks"
                      " WHERE id = 1"), 16);
    //  Packed big-endian: kind, then the id's high byte first
    assert_int_equal (testutil_statedir_query_int (dirs->file,
                      "SELECT hex (substr (\"after\", 10, 9)) ="
                      " '010102030405060708' FROM tasks WHERE id = 1"), 1);

    backend = testutil_statedir_open (dirs);
    testutil_loaded_t loaded = { .count = 0 };
    assert_int_equal (testutil_load (backend, 10, &loaded), 4);
    testutil_workflow_assert_loaded (&loaded, 1);
    testutil_loaded_free (&loaded);
    drover_store_destroy (&backend);
    testutil_assert_and_free (testutil_statedir_format (dirs->file), "drover-state 7");
}

//  A state of format 4 (no workflow columns) is upgraded at open: its
//  tasks wait for nothing and belong to no group, and take the workflow
//  fields from then on, old tasks and new alike
static void
test_format_4_upgraded (void **state)
{
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
    char text [DROVER_STORE_ERROR_MAX];
    testutil_statedir_make (dirs, 2);
    drover_store_t *backend =
        testutil_statedir_open_after_sql (dirs, TESTUTIL_DROP_COLUMNS_5
                                          "UPDATE meta SET value = 'drover-state 4'"
                                          " WHERE name = 'format'");
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

    //  An old task's row takes a wait; new tasks all the fields
    drover_change_t *waiting = testutil_change ("task.waiting", 1, 3, DROVER_TASK_QUEUED);
    waiting->waits = DROVER_WAITS_BEGIN;
    waiting->due_at = 1796000009000;
    drover_change_t *batch [] = { waiting };
    assert_int_equal (testutil_apply (backend, batch, 1, text), 0);
    testutil_workflow_apply (backend, 3, 4);
    drover_store_destroy (&backend);

    backend = testutil_statedir_open (dirs);
    assert_int_equal (testutil_load (backend, 10, &loaded), 6);
    assert_int_equal (loaded.changes [0]->waits, DROVER_WAITS_BEGIN);
    assert_int_equal (loaded.changes [0]->due_at, 1796000009000);
    testutil_assert_submit (loaded.changes [0], 1, NULL);
    testutil_workflow_assert_loaded (&loaded, 3);
    testutil_loaded_free (&loaded);
    drover_store_destroy (&backend);
    testutil_assert_and_free (testutil_statedir_format (dirs->file), "drover-state 7");
}

//  A state of a format newer than this broker reads (7) is refused,
//  naming both formats, and left as it was
static void
test_newer_format_refused (void **state)
{
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
    testutil_statedir_make (dirs, 1);
    testutil_statedir_sql_file (dirs->file, "UPDATE meta SET value = 'drover-state 8'"
                                " WHERE name = 'format'");
    char *error = NULL;
    drover_store_t *backend = drover_store_open_sqlite (dirs->dir, &error);
    assert_null (backend);
    assert_non_null (error);
    assert_non_null (strstr (error, dirs->file));
    assert_non_null (strstr (error, "'drover-state 8'"));
    assert_non_null (strstr (error, "'drover-state 7'"));
    zstr_free (&error);
    testutil_assert_and_free (testutil_statedir_format (dirs->file), "drover-state 8");
}

//  A packed column that is not one (an after list cut short, an array of
//  the wrong size or with no elements, a wait out of bounds) is a damaged
//  state: load refuses it
static void
test_damaged_columns_refused (void **state)
{
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
    const char *damages [] = {
        "UPDATE tasks SET \"after\" = x'000000000000000000000c00' WHERE id = 1",
        "UPDATE tasks SET \"after\" = x'090000000000000001' WHERE id = 1",
        "UPDATE tasks SET \"array\" = x'00000001000000010000000100' WHERE id = 1",
        "UPDATE tasks SET \"array\" = x'00000001000000010000000000000000' WHERE id = 1",
        "UPDATE tasks SET waits = 99 WHERE id = 1",
    };
    testutil_statedir_make (dirs, 1);
    //  Read by its columns, as a task an update touched (a fresh one is
    //  read by its packed fields: test_drover_sqlite_fresh)
    testutil_statedir_sql_file (dirs->file, "UPDATE tasks SET fresh = NULL");
    for (size_t index = 0; index < sizeof damages / sizeof damages [0]; index++) {
        testutil_statedir_sql_file (dirs->file, damages [index]);
        testutil_statedir_assert_refused (dirs);
        //  Mended, it loads again
        testutil_statedir_sql_file (dirs->file, "UPDATE tasks SET \"after\" = NULL,"
                                    " \"array\" = NULL, waits = 0");
        drover_store_t *backend = testutil_statedir_open (dirs);
        testutil_loaded_t loaded = { .count = 0 };
        assert_int_equal (testutil_load (backend, 10, &loaded), 1);
        testutil_loaded_free (&loaded);
        drover_store_destroy (&backend);
    }
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_workflow_round_trip, testutil_statedir_setup,
                                         testutil_statedir_teardown),
        cmocka_unit_test_setup_teardown (test_format_4_upgraded, testutil_statedir_setup,
                                         testutil_statedir_teardown),
        cmocka_unit_test_setup_teardown (test_newer_format_refused, testutil_statedir_setup,
                                         testutil_statedir_teardown),
        cmocka_unit_test_setup_teardown (test_damaged_columns_refused,
                                         testutil_statedir_setup, testutil_statedir_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
