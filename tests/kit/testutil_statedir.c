/*  =========================================================================
    testutil_statedir - the store's SQLite state directories for its tests
    (see the header)
    =========================================================================
*/

#include "testutil_statedir.h"
#include "testutil_backend.h"
#include <sqlite3.h>

//  cmocka's setup: a fresh temporary directory (its state, a
//  testutil_statedir_t) whose state directory open makes
int
testutil_statedir_setup (void **state)
{
    testutil_statedir_t *dirs = (testutil_statedir_t *) zmalloc (sizeof (testutil_statedir_t));
    snprintf (dirs->top, sizeof dirs->top, "/tmp/drover-backend-XXXXXX");
    assert_non_null (mkdtemp (dirs->top));
    snprintf (dirs->dir, sizeof dirs->dir, "%s/state", dirs->top);
    snprintf (dirs->file, sizeof dirs->file, "%s/state.db", dirs->dir);
    *state = dirs;
    return 0;
}

//  cmocka's teardown: remove the temporary directory and all in it
int
testutil_statedir_teardown (void **state)
{
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
    char *command = zsys_sprintf ("rm -rf '%s'", dirs->top);
    assert_int_equal (system (command), 0);
    zstr_free (&command);
    free (dirs);
    return 0;
}

//  Read the format marker of a state file
char *
testutil_statedir_format (const char *file)
{
    sqlite3 *db;
    assert_int_equal (sqlite3_open (file, &db), SQLITE_OK);
    sqlite3_stmt *stmt;
    assert_int_equal (sqlite3_prepare_v2 (db, "SELECT value FROM meta WHERE name = 'format'",
                                          -1, &stmt, NULL), SQLITE_OK);
    assert_int_equal (sqlite3_step (stmt), SQLITE_ROW);
    char *format = strdup ((const char *) sqlite3_column_text (stmt, 0));
    sqlite3_finalize (stmt);
    sqlite3_close (db);
    return format;
}

//  Run sql on the state file (closed); asserts it succeeds
void
testutil_statedir_sql_file (const char *file, const char *sql)
{
    sqlite3 *db;
    assert_int_equal (sqlite3_open (file, &db), SQLITE_OK);
    assert_int_equal (sqlite3_exec (db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close (db);
}

//  Run a one-row query on the state file; its first column
int64_t
testutil_statedir_query_int (const char *file, const char *sql)
{
    sqlite3 *db;
    assert_int_equal (sqlite3_open (file, &db), SQLITE_OK);
    sqlite3_stmt *stmt;
    assert_int_equal (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL), SQLITE_OK);
    assert_int_equal (sqlite3_step (stmt), SQLITE_ROW);
    int64_t value = sqlite3_column_int64 (stmt, 0);
    sqlite3_finalize (stmt);
    sqlite3_close (db);
    return value;
}

//  Open the state in dirs->dir, failing the test with open's text if it
//  is refused
drover_store_t *
testutil_statedir_open (testutil_statedir_t *dirs)
{
    char *error = NULL;
    drover_store_t *backend = drover_store_open_sqlite (dirs->dir, &error);
    if (!backend)
        fail_msg ("state %s refused: %s", dirs->dir, error);
    return backend;
}

//  Run sql on the closed state (making it as an older format wrote it),
//  then open it, failing the test if it is refused
drover_store_t *
testutil_statedir_open_after_sql (testutil_statedir_t *dirs, const char *sql)
{
    testutil_statedir_sql_file (dirs->file, sql);
    return testutil_statedir_open (dirs);
}

//  Make a state with a few tasks in dirs->dir, closed
void
testutil_statedir_make (testutil_statedir_t *dirs, uint64_t tasks)
{
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_t *backend = testutil_statedir_open (dirs);
    for (uint64_t task = 1; task <= tasks; task++) {
        drover_change_t *batch [] = { testutil_queued (task, task, NULL) };
        assert_int_equal (testutil_apply (backend, batch, 1, text), 0);
    }
    drover_store_destroy (&backend);
}

//  Assert that opening or loading dirs->dir fails with a message naming
//  the file and what to do
void
testutil_statedir_assert_refused (testutil_statedir_t *dirs)
{
    char *error = NULL;
    char text [DROVER_STORE_ERROR_MAX] = "";
    drover_store_t *backend = drover_store_open_sqlite (dirs->dir, &error);
    if (backend) {
        assert_null (error);
        testutil_loaded_t loaded = { { NULL }, 0 };
        int64_t count = drover_store_load (backend, 1000, testutil_take_task, &loaded, text,
                                             sizeof text);
        testutil_loaded_free (&loaded);
        drover_store_destroy (&backend);
        assert_int_equal (count, -1);
        error = strdup (text);
    }
    assert_non_null (error);
    assert_non_null (strstr (error, dirs->file));
    assert_non_null (strstr (error, "move it away"));
    zstr_free (&error);
}
