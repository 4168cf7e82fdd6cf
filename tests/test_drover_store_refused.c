/*  =========================================================================
    test_drover_store_refused - the store's SQLite backend refusing what it
    cannot trust, by name: garbage over a state file, a damaged page, a
    truncated file, another schema, a state in use; and a full filesystem
    that keeps nothing until space returns
    =========================================================================
*/

#define _GNU_SOURCE                 //  unshare, for the full-filesystem test
#include "testutil_proc.h"
#include "testutil_statedir.h"
#include "testutil_backend.h"
#include <sqlite3.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>

//  Overwrite size bytes of file at offset with a fixed garbage byte
static void
s_scribble (const char *file, off_t offset, size_t size)
{
    int fd = open (file, O_WRONLY);
    assert_true (fd >= 0);
    byte *garbage = (byte *) malloc (size);
    memset (garbage, 0xa5, size);
    assert_int_equal (pwrite (fd, garbage, size, offset), (ssize_t) size);
    free (garbage);
    close (fd);
}

//  Garbage written over the file's header, or over every page after the
//  first: refused, naming the file
static void
test_garbage_file_refused (void **state)
{
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
    testutil_statedir_make (dirs, 50);
    struct stat info;
    assert_int_equal (stat (dirs->file, &info), 0);
    s_scribble (dirs->file, 4096, (size_t) info.st_size - 4096);
    testutil_statedir_assert_refused (dirs);
    s_scribble (dirs->file, 0, 4096);
    testutil_statedir_assert_refused (dirs);
    //  Still there, untouched: never replaced by an empty state
    assert_int_equal (stat (dirs->file, &info), 0);
    assert_true (info.st_size > 4096);
}

//  Return the first page of table or index name in file (a closed state)
static int
s_root_page (const char *file, const char *name)
{
    sqlite3 *db;
    assert_int_equal (sqlite3_open_v2 (file, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *stmt;
    assert_int_equal (sqlite3_prepare_v2 (db, "SELECT rootpage FROM sqlite_master"
                                          " WHERE name = ?", -1, &stmt, NULL), SQLITE_OK);
    sqlite3_bind_text (stmt, 1, name, -1, SQLITE_STATIC);
    assert_int_equal (sqlite3_step (stmt), SQLITE_ROW);
    int page = sqlite3_column_int (stmt, 0);
    sqlite3_finalize (stmt);
    sqlite3_close (db);
    assert_true (page > 1);
    return page;
}

//  Garbage over a page that load does not read (the events, an index) is
//  refused at open too, not met by a write once serving
static void
test_damaged_page_refused (void **state)
{
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
    testutil_statedir_make (dirs, 20);
    const char *names [] = { "events", "tasks_final" };
    for (int index = 0; index < 2; index++) {
        int page = s_root_page (dirs->file, names [index]);
        char *copy = zsys_sprintf ("cp '%s' '%s.copy'", dirs->file, dirs->file);
        assert_int_equal (system (copy), 0);
        zstr_free (&copy);
        s_scribble (dirs->file, (off_t) (page - 1) * 4096, 4096);
        testutil_statedir_assert_refused (dirs);
        char *back = zsys_sprintf ("mv '%s.copy' '%s'", dirs->file, dirs->file);
        assert_int_equal (system (back), 0);
        zstr_free (&back);
    }
}

//  A truncated state.db (to half, to a few bytes, to nothing) is refused
static void
test_truncated_file_refused (void **state)
{
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
    testutil_statedir_make (dirs, 200);
    struct stat info;
    assert_int_equal (stat (dirs->file, &info), 0);
    assert_true (info.st_size > 3 * 4096);
    off_t sizes [] = { info.st_size / 2, 50, 0 };
    for (size_t index = 0; index < 3; index++) {
        assert_int_equal (truncate (dirs->file, sizes [index]), 0);
        testutil_statedir_assert_refused (dirs);
        assert_int_equal (stat (dirs->file, &info), 0);
        assert_int_equal (info.st_size, sizes [index]);
    }
}

//  Another program's SQLite file, and a drover state of another format,
//  are refused
static void
test_other_schema_refused (void **state)
{
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
    assert_int_equal (mkdir (dirs->dir, 0700), 0);
    testutil_statedir_sql_file (dirs->file, "CREATE TABLE jobs (id INTEGER PRIMARY KEY, what TEXT);"
                                "INSERT INTO jobs VALUES (1, 'x')");
    testutil_statedir_assert_refused (dirs);

    testutil_statedir_sql_file (dirs->file, "CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT);"
                                "INSERT INTO meta VALUES ('format', 'drover-state 99')");
    char *error = NULL;
    drover_store_t *backend = drover_store_open_sqlite (dirs->dir, &error);
    assert_null (backend);
    assert_non_null (strstr (error, dirs->file));
    assert_non_null (strstr (error, "drover-state 99"));
    zstr_free (&error);
}

//  A second open of a state in use is refused (one broker per directory)
static void
test_state_in_use_refused (void **state)
{
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
    char *error = NULL;
    drover_store_t *backend = testutil_statedir_open (dirs);
    drover_store_t *second = drover_store_open_sqlite (dirs->dir, &error);
    assert_null (second);
    assert_non_null (error);
    assert_non_null (strstr (error, dirs->file));
    zstr_free (&error);
    drover_store_destroy (&backend);
}

//  In a child: fail with a line to stderr if cond is false
#define S_CHILD_CHECK(cond) do { if (!(cond)) { \
    fprintf (stderr, "%s:%d: %s failed (%s)\n", __FILE__, __LINE__, #cond, text); \
    _exit (1); } } while (0)

//  The full-filesystem run, in a child with its own mount namespace so
//  that the tmpfs goes with it: exit status 0 if all went as it should
static void
s_full_filesystem_child (const char *top)
{
    char text [DROVER_STORE_ERROR_MAX] = "";
    if (unshare (CLONE_NEWNS) != 0
    ||  mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0
    ||  mount ("tmpfs", top, "tmpfs", 0, "size=1m") != 0)
        _exit (77);
    char *dir = zsys_sprintf ("%s/state", top);
    char *filler = zsys_sprintf ("%s/filler", top);
    char *error = NULL;
    drover_store_t *backend = drover_store_open_sqlite (dir, &error);
    S_CHILD_CHECK (backend);
    drover_change_t *first [] = { testutil_queued (1, 1, NULL) };
    S_CHILD_CHECK (testutil_apply (backend, first, 1, text) == 0);
    //  Fill the filesystem
    int fd = open (filler, O_WRONLY | O_CREAT, 0600);
    S_CHILD_CHECK (fd >= 0);
    char block [4096];
    memset (block, 'x', sizeof block);
    while (write (fd, block, sizeof block) > 0)
        ;
    close (fd);
    //  A batch of 100 tasks cannot be kept: -1, said why
    drover_change_t *batch [100];
    for (uint64_t index = 0; index < 100; index++)
        batch [index] = testutil_queued (2 + index, 2 + index, NULL);
    S_CHILD_CHECK (testutil_apply (backend, batch, 100, text) == -1);
    S_CHILD_CHECK (strstr (text, "full") && strstr (text, dir));
    S_CHILD_CHECK (drover_store_meta (backend)->next_task == 2);
    //  Space returns: the next batch goes through
    S_CHILD_CHECK (unlink (filler) == 0);
    drover_change_t *after [] = { testutil_queued (200, 2, "after") };
    S_CHILD_CHECK (testutil_apply (backend, after, 1, text) == 0);
    drover_store_destroy (&backend);
    //  Only what was kept is there
    backend = drover_store_open_sqlite (dir, &error);
    S_CHILD_CHECK (backend);
    testutil_loaded_t loaded = { { NULL }, 0 };
    S_CHILD_CHECK (drover_store_load (backend, 10, testutil_take_task, &loaded, text,
                                        sizeof text) == 2);
    S_CHILD_CHECK (loaded.changes [0]->task == 1 && loaded.changes [1]->task == 200);
    testutil_loaded_free (&loaded);
    S_CHILD_CHECK (drover_store_meta (backend)->next_task == 201);
    S_CHILD_CHECK (drover_store_meta (backend)->next_seq == 3);
    drover_store_destroy (&backend);
    zstr_free (&dir);
    zstr_free (&filler);
    _exit (0);
}

//  A full filesystem: apply returns -1 with the error and keeps nothing;
//  once space returns, apply works again
static void
test_full_filesystem (void **state)
{
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
    pid_t pid = fork ();
    assert_true (pid >= 0);
    if (pid == 0)
        s_full_filesystem_child (dirs->top);
    int status = testutil_wait_exit (pid, 30000);
    assert_true (WIFEXITED (status));
    if (WEXITSTATUS (status) == 77)
        skip ();                    //  no mount namespace here (not root)
    assert_int_equal (WEXITSTATUS (status), 0);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_garbage_file_refused, testutil_statedir_setup,
                                         testutil_statedir_teardown),
        cmocka_unit_test_setup_teardown (test_damaged_page_refused, testutil_statedir_setup,
                                         testutil_statedir_teardown),
        cmocka_unit_test_setup_teardown (test_truncated_file_refused, testutil_statedir_setup,
                                         testutil_statedir_teardown),
        cmocka_unit_test_setup_teardown (test_other_schema_refused, testutil_statedir_setup,
                                         testutil_statedir_teardown),
        cmocka_unit_test_setup_teardown (test_state_in_use_refused, testutil_statedir_setup,
                                         testutil_statedir_teardown),
        cmocka_unit_test_setup_teardown (test_full_filesystem, testutil_statedir_setup,
                                         testutil_statedir_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
