/*  =========================================================================
    test_drover_store - the store's backends on real files: a round trip
    through a reopen, ids that survive it, a failed batch that keeps
    nothing, damaged files refused by name, a full filesystem, pruning in
    bounded steps, and the memory backend
    =========================================================================
*/

#define _GNU_SOURCE                 //  unshare, for the full-filesystem test
#include "testutil_proc.h"
#include "testutil_backend.h"
#include <sqlite3.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>

//  A fresh state directory under a fresh temporary directory
//  The columns format 3 added (task times and attempts): dropped, a state
//  is as format 2 wrote it
#define S_DROP_COLUMNS_4 \
    "ALTER TABLE tasks DROP COLUMN service; ALTER TABLE tasks DROP COLUMN slot;" \
    " ALTER TABLE tasks DROP COLUMN affinity;"
#define S_DROP_COLUMNS_3 \
    S_DROP_COLUMNS_4 \
    "ALTER TABLE tasks DROP COLUMN offered; ALTER TABLE tasks DROP COLUMN started;" \
    " ALTER TABLE tasks DROP COLUMN last_outcome; ALTER TABLE tasks DROP COLUMN history;"

typedef struct {
    char top [64];                  //  the temporary directory
    char dir [80];                  //  the state directory (made by open)
    char file [96];                 //  dir/state.db
} s_dirs_t;

static int
s_setup (void **state)
{
    s_dirs_t *dirs = (s_dirs_t *) zmalloc (sizeof (s_dirs_t));
    snprintf (dirs->top, sizeof dirs->top, "/tmp/drover-backend-XXXXXX");
    assert_non_null (mkdtemp (dirs->top));
    snprintf (dirs->dir, sizeof dirs->dir, "%s/state", dirs->top);
    snprintf (dirs->file, sizeof dirs->file, "%s/state.db", dirs->dir);
    *state = dirs;
    return 0;
}

static int
s_teardown (void **state)
{
    s_dirs_t *dirs = (s_dirs_t *) *state;
    char *command = zsys_sprintf ("rm -rf '%s'", dirs->top);
    assert_int_equal (system (command), 0);
    zstr_free (&command);
    free (dirs);
    return 0;
}

//  Read the format marker of a state file
static char *
s_format (const char *file)
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
static void
s_sql_file (const char *file, const char *sql)
{
    sqlite3 *db;
    assert_int_equal (sqlite3_open (file, &db), SQLITE_OK);
    assert_int_equal (sqlite3_exec (db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close (db);
}

//  Open the state in dirs->dir, failing the test with open's text if it
//  is refused
static drover_store_t *
s_open (s_dirs_t *dirs)
{
    char *error = NULL;
    drover_store_t *backend = drover_store_open_sqlite (dirs->dir, &error);
    if (!backend)
        fail_msg ("state %s refused: %s", dirs->dir, error);
    return backend;
}

//  Run sql on the closed state (making it as an older format wrote it),
//  then open it, failing the test if it is refused
static drover_store_t *
s_open_after_sql (s_dirs_t *dirs, const char *sql)
{
    s_sql_file (dirs->file, sql);
    return s_open (dirs);
}

//  What was applied comes back after a reopen: queued tasks, a running
//  one with its attempt and worker, final ones with their outputs, keys;
//  changes to one task merged within a batch and across batches; the
//  events in order
static void
test_round_trip (void **state)
{
    s_dirs_t *dirs = (s_dirs_t *) *state;
    char *error = NULL;
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_t *backend = drover_store_open_sqlite (dirs->dir, &error);
    assert_non_null (backend);
    assert_null (error);
    assert_string_equal (drover_store_name (backend), "sqlite");
    struct stat info;
    assert_int_equal (stat (dirs->dir, &info), 0);
    assert_int_equal (info.st_mode & 0777, 0700);
    char state_id [DROVER_STATE_ID_SIZE + 1];
    const drover_store_meta_t *meta = drover_store_meta (backend);
    snprintf (state_id, sizeof state_id, "%s", meta->state);
    assert_int_equal (strlen (state_id), 32);
    assert_int_equal (strspn (state_id, "0123456789abcdef"), 32);
    assert_int_equal (meta->next_task, 1);
    assert_int_equal (meta->next_seq, 1);

    //  Batch 1: tasks 1-3 queued; 2 assigned and running; 3 runs and
    //  succeeds (one write each); a worker event
    drover_change_t *batch1 [9];
    testutil_round_trip_batch (batch1, false);
    assert_int_equal (testutil_apply (backend, batch1, 9, text), 0);
    //  Batch 2: task 4 queued; 1 assigned to w2 (an update); 2 fails on
    //  its second attempt (an update with the result)
    drover_change_t *batch2 [] = {
        testutil_queued (4, 10, NULL),
        testutil_attempt ("task.assigned", 1, 11, DROVER_TASK_ASSIGNED, 1, "w2"),
        testutil_final (2, 12, DROVER_TASK_FAILED, DROVER_END_FAILED, 2, "bye"),
    };
    batch2 [2]->lost = 1;
    batch2 [2]->time = 2000;            //  ended after task 3
    batch2 [2]->retries_left = 0;
    assert_int_equal (testutil_apply (backend, batch2, 3, text), 0);
    assert_int_equal (meta->next_task, 5);
    assert_int_equal (meta->next_seq, 13);
    drover_store_destroy (&backend);
    assert_null (backend);
    drover_store_destroy (&backend);      //  harmless twice
    //  The file is in WAL mode, its schema current
    sqlite3 *db;
    assert_int_equal (sqlite3_open_v2 (dirs->file, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *stmt;
    assert_int_equal (sqlite3_prepare_v2 (db, "PRAGMA journal_mode", -1, &stmt, NULL), SQLITE_OK);
    assert_int_equal (sqlite3_step (stmt), SQLITE_ROW);
    assert_string_equal ((const char *) sqlite3_column_text (stmt, 0), "wal");
    sqlite3_finalize (stmt);
    sqlite3_close (db);

    backend = s_open (dirs);
    meta = drover_store_meta (backend);
    assert_string_equal (meta->state, state_id);
    assert_int_equal (meta->next_task, 5);
    assert_int_equal (meta->next_seq, 13);
    testutil_loaded_t loaded = { { NULL }, 0 };
    assert_int_equal (testutil_load (backend, 10, &loaded), 4);
    assert_int_equal (loaded.count, 4);
    drover_change_t *task1 = loaded.changes [0], *task2 = loaded.changes [1],
                    *task3 = loaded.changes [2], *task4 = loaded.changes [3];
    testutil_assert_submit (task1, 1, "key-1");
    assert_int_equal (task1->state, DROVER_TASK_ASSIGNED);
    assert_int_equal (task1->attempt, 1);
    assert_string_equal (task1->worker, "w2");
    assert_int_equal (task1->retries_left, 2);
    assert_null (task1->done);
    testutil_assert_submit (task2, 2, NULL);
    assert_int_equal (task2->state, DROVER_TASK_FAILED);
    assert_int_equal (task2->attempt, 2);
    assert_int_equal (task2->lost, 1);
    assert_int_equal (task2->retries_left, 0);
    testutil_assert_failed_result (task2, "bye");
    assert_int_equal (task2->done->id, DROVER_MSG_TASK_DONE);
    assert_int_equal (task2->done->state, DROVER_TASK_FAILED);
    testutil_assert_submit (task3, 3, "key-3");
    assert_int_equal (task3->state, DROVER_TASK_SUCCEEDED);
    assert_int_equal (task3->attempt, 1);
    assert_string_equal (task3->worker, "w1");
    assert_non_null (task3->done);
    assert_int_equal (task3->done->end, DROVER_END_SUCCEEDED);
    assert_memory_equal (task3->done->out, "hello", 5);
    testutil_assert_submit (task4, 4, NULL);
    assert_int_equal (task4->state, DROVER_TASK_QUEUED);
    assert_int_equal (task4->attempt, 0);
    assert_string_equal (task4->worker, "");
    testutil_loaded_free (&loaded);

    //  Only the newest final one (task 2 ended last) with max_final 1
    assert_int_equal (testutil_load (backend, 1, &loaded), 3);
    assert_int_equal (loaded.changes [0]->task, 1);
    assert_int_equal (loaded.changes [1]->task, 2);
    assert_int_equal (loaded.changes [2]->task, 4);
    testutil_loaded_free (&loaded);

    //  Every event, in order, as applied
    testutil_replayed_t replayed = { .count = 0 };
    assert_int_equal (drover_store_replay (backend, 0, 100, testutil_take_event, &replayed,
                                             text, sizeof text), 12);
    for (size_t index = 0; index < 12; index++)
        assert_int_equal (replayed.events [index].seq, index + 1);
    assert_string_equal (replayed.events [0].topic, "worker.up");
    assert_string_equal (replayed.events [0].worker, "w1");
    assert_string_equal (replayed.events [0].reason, "procs=4");
    assert_int_equal (replayed.events [0].task, 0);
    assert_string_equal (replayed.events [6].topic, "task.running");
    assert_int_equal (replayed.events [6].task, 2);
    assert_int_equal (replayed.events [6].attempt, 1);
    assert_string_equal (replayed.events [11].topic, "task.failed");
    assert_int_equal (replayed.events [11].attempt, 2);
    assert_true (replayed.events [0].time > 1000000);
    assert_int_equal (replayed.events [8].time, 1000);     //  time steps back and forth
    assert_int_equal (replayed.events [11].time, 2000);
    //  From within a batch, and at most max
    replayed.count = 0;
    assert_int_equal (drover_store_replay (backend, 7, 3, testutil_take_event, &replayed,
                                             text, sizeof text), 3);
    assert_int_equal (replayed.events [0].seq, 8);
    assert_int_equal (replayed.events [2].seq, 10);
    replayed.count = 0;
    assert_int_equal (drover_store_replay (backend, 12, 100, testutil_take_event, &replayed,
                                             text, sizeof text), 0);
    drover_store_destroy (&backend);
}

//  Ids and seqs keep counting across reopens, from where the batches left
//  them (a task id past every one seen, even without its submit)
static void
test_ids_survive_reopen (void **state)
{
    s_dirs_t *dirs = (s_dirs_t *) *state;
    char *error = NULL;
    char text [DROVER_STORE_ERROR_MAX];
    for (uint64_t round = 0; round < 3; round++) {
        drover_store_t *backend = drover_store_open_sqlite (dirs->dir, &error);
        assert_non_null (backend);
        const drover_store_meta_t *meta = drover_store_meta (backend);
        assert_int_equal (meta->next_task, round? round * 10: 1);
        assert_int_equal (meta->next_seq, 1 + round * 100);
        drover_change_t *batch [] = {
            testutil_queued (1 + round * 10, 1 + round * 100, NULL),
            testutil_change ("worker.lost", 0, 50 + round * 100, 0),
        };
        assert_int_equal (testutil_apply (backend, batch, 2, text), 0);
        //  A change about a task never seen (e.g. pruned) moves next_task on
        drover_change_t *other [] = {
            testutil_change ("task.cancelled", 9 + round * 10, 100 + round * 100,
                             DROVER_TASK_CANCELLED),
        };
        assert_int_equal (testutil_apply (backend, other, 1, text), 0);
        assert_int_equal (meta->next_task, 10 + round * 10);
        assert_int_equal (meta->next_seq, 101 + round * 100);
        drover_store_destroy (&backend);
    }
}

//  A batch that fails (a task id already kept) keeps nothing: no task, no
//  event, meta unchanged, and the next batch goes through
static void
test_failed_batch_keeps_nothing (void **state)
{
    s_dirs_t *dirs = (s_dirs_t *) *state;
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_t *backend = s_open (dirs);
    drover_change_t *first [] = { testutil_queued (1, 1, "same") };
    assert_int_equal (testutil_apply (backend, first, 1, text), 0);
    drover_change_t *bad [] = {
        testutil_queued (2, 2, NULL),
        testutil_attempt ("task.assigned", 1, 3, DROVER_TASK_ASSIGNED, 1, "w1"),
        testutil_queued (3, 4, "same"),            //  a key already kept
    };
    text [0] = 0;
    assert_int_equal (testutil_apply (backend, bad, 3, text), -1);
    assert_non_null (strstr (text, dirs->file));
    assert_non_null (strstr (text, "UNIQUE"));
    const drover_store_meta_t *meta = drover_store_meta (backend);
    assert_int_equal (meta->next_task, 2);
    assert_int_equal (meta->next_seq, 2);
    drover_change_t *dup [] = { testutil_queued (1, 2, NULL) };  //  an id already kept
    assert_int_equal (testutil_apply (backend, dup, 1, text), -1);
    assert_non_null (strstr (text, dirs->file));

    drover_change_t *good [] = { testutil_queued (2, 2, NULL) };
    assert_int_equal (testutil_apply (backend, good, 1, text), 0);
    drover_store_destroy (&backend);
    backend = s_open (dirs);
    testutil_loaded_t loaded = { { NULL }, 0 };
    assert_int_equal (testutil_load (backend, 10, &loaded), 2);
    assert_int_equal (loaded.changes [0]->task, 1);
    assert_int_equal (loaded.changes [0]->state, DROVER_TASK_QUEUED);
    assert_int_equal (loaded.changes [1]->task, 2);
    assert_null (loaded.changes [1]->submit->key);
    testutil_loaded_free (&loaded);
    testutil_replayed_t replayed = { .count = 0 };
    assert_int_equal (drover_store_replay (backend, 0, 100, testutil_take_event, &replayed,
                                             text, sizeof text), 2);
    assert_string_equal (replayed.events [1].topic, "task.queued");
    assert_int_equal (replayed.events [1].task, 2);
    drover_store_destroy (&backend);
}

//  The memory backend keeps nothing: no state id (it names no state that
//  outlives it, PROTOCOL.md §6.5), ids from 1, seqs moving on with apply,
//  nothing to load or replay
static void
test_memory_backend (void **state)
{
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_t *backend = drover_store_open_memory ();
    assert_non_null (backend);
    assert_string_equal (drover_store_name (backend), "memory");
    const drover_store_meta_t *meta = drover_store_meta (backend);
    assert_string_equal (meta->state, "");
    assert_int_equal (meta->next_task, 1);
    assert_int_equal (meta->next_seq, 1);
    drover_change_t *batch [] = { testutil_queued (1, 1, "k"), testutil_queued (2, 2, NULL) };
    assert_int_equal (testutil_apply (backend, batch, 2, text), 0);
    assert_int_equal (meta->next_task, 3);
    assert_int_equal (meta->next_seq, 3);
    testutil_loaded_t loaded = { { NULL }, 0 };
    assert_int_equal (testutil_load (backend, 10, &loaded), 0);
    testutil_replayed_t replayed = { .count = 0 };
    assert_int_equal (drover_store_replay (backend, 0, 10, testutil_take_event, &replayed,
                                             text, sizeof text), 0);
    assert_int_equal (drover_store_prune (backend, 1, 1, 1, 100, 10, text, sizeof text), 0);
    drover_store_destroy (&backend);
    backend = drover_store_open_memory ();
    assert_string_equal (drover_store_meta (backend)->state, "");
    assert_int_equal (drover_store_meta (backend)->next_task, 1);
    drover_store_destroy (&backend);
}

//  One kept task read back by id (for a WAIT on a task evicted from
//  memory): final with its outputs, or not; 0 for one not kept; the memory
//  backend keeps none
static void
test_read_task (void **state)
{
    s_dirs_t *dirs = (s_dirs_t *) *state;
    char *error = NULL;
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_t *backend = drover_store_open_sqlite (dirs->dir, &error);
    assert_non_null (backend);
    drover_change_t *batch [9];
    testutil_round_trip_batch (batch, true);
    assert_int_equal (testutil_apply (backend, batch, 9, text), 0);
    drover_change_t *change = NULL;
    assert_int_equal (drover_store_read_task (backend, 3, &change, text, sizeof text), 1);
    assert_non_null (change);
    assert_true (change->task == 3);
    assert_int_equal (change->state, DROVER_TASK_SUCCEEDED);
    assert_non_null (change->submit);
    assert_string_equal (change->submit->principal, "alice");
    assert_non_null (change->done);
    assert_int_equal (change->done->out_size, 5);
    assert_memory_equal (change->done->out, "hello", 5);
    drover_change_destroy (&change);
    assert_int_equal (drover_store_read_task (backend, 2, &change, text, sizeof text), 1);
    assert_int_equal (change->state, DROVER_TASK_RUNNING);
    assert_null (change->done);
    drover_change_destroy (&change);
    assert_int_equal (drover_store_read_task (backend, 99, &change, text, sizeof text), 0);
    assert_null (change);
    drover_store_destroy (&backend);
    backend = drover_store_open_memory ();
    assert_int_equal (drover_store_read_task (backend, 1, &change, text, sizeof text), 0);
    assert_null (change);
    drover_store_destroy (&backend);
}

//  Make a state with a few tasks in dirs->dir, closed
static void
s_make_state (s_dirs_t *dirs, uint64_t tasks)
{
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_t *backend = s_open (dirs);
    for (uint64_t task = 1; task <= tasks; task++) {
        drover_change_t *batch [] = { testutil_queued (task, task, NULL) };
        assert_int_equal (testutil_apply (backend, batch, 1, text), 0);
    }
    drover_store_destroy (&backend);
}

//  Assert that opening or loading dirs->dir fails with a message naming
//  the file and what to do
static void
s_assert_refused (s_dirs_t *dirs)
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
    s_dirs_t *dirs = (s_dirs_t *) *state;
    s_make_state (dirs, 50);
    struct stat info;
    assert_int_equal (stat (dirs->file, &info), 0);
    s_scribble (dirs->file, 4096, (size_t) info.st_size - 4096);
    s_assert_refused (dirs);
    s_scribble (dirs->file, 0, 4096);
    s_assert_refused (dirs);
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
    s_dirs_t *dirs = (s_dirs_t *) *state;
    s_make_state (dirs, 20);
    const char *names [] = { "events", "tasks_final" };
    for (int index = 0; index < 2; index++) {
        int page = s_root_page (dirs->file, names [index]);
        char *copy = zsys_sprintf ("cp '%s' '%s.copy'", dirs->file, dirs->file);
        assert_int_equal (system (copy), 0);
        zstr_free (&copy);
        s_scribble (dirs->file, (off_t) (page - 1) * 4096, 4096);
        s_assert_refused (dirs);
        char *back = zsys_sprintf ("mv '%s.copy' '%s'", dirs->file, dirs->file);
        assert_int_equal (system (back), 0);
        zstr_free (&back);
    }
}

//  A truncated state.db (to half, to a few bytes, to nothing) is refused
static void
test_truncated_file_refused (void **state)
{
    s_dirs_t *dirs = (s_dirs_t *) *state;
    s_make_state (dirs, 200);
    struct stat info;
    assert_int_equal (stat (dirs->file, &info), 0);
    assert_true (info.st_size > 3 * 4096);
    off_t sizes [] = { info.st_size / 2, 50, 0 };
    for (size_t index = 0; index < 3; index++) {
        assert_int_equal (truncate (dirs->file, sizes [index]), 0);
        s_assert_refused (dirs);
        assert_int_equal (stat (dirs->file, &info), 0);
        assert_int_equal (info.st_size, sizes [index]);
    }
}

//  Another program's SQLite file, and a drover state of another format,
//  are refused
static void
test_other_schema_refused (void **state)
{
    s_dirs_t *dirs = (s_dirs_t *) *state;
    assert_int_equal (mkdir (dirs->dir, 0700), 0);
    s_sql_file (dirs->file, "CREATE TABLE jobs (id INTEGER PRIMARY KEY, what TEXT);"
                "INSERT INTO jobs VALUES (1, 'x')");
    s_assert_refused (dirs);

    s_sql_file (dirs->file, "CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT);"
                "INSERT INTO meta VALUES ('format', 'drover-state 99')");
    char *error = NULL;
    drover_store_t *backend = drover_store_open_sqlite (dirs->dir, &error);
    assert_null (backend);
    assert_non_null (strstr (error, dirs->file));
    assert_non_null (strstr (error, "drover-state 99"));
    zstr_free (&error);
}

//  A task's owner is kept; a state written before owners existed (format
//  1, no owner column) is upgraded at open, its tasks owned by nobody
static void
test_owner_kept_and_format_1_upgraded (void **state)
{
    s_dirs_t *dirs = (s_dirs_t *) *state;
    char text [DROVER_STORE_ERROR_MAX];
    s_make_state (dirs, 1);
    //  Make it a format 1 state: no owner column
    drover_store_t *backend = s_open_after_sql (dirs, "ALTER TABLE tasks DROP COLUMN owner;"
                                                  S_DROP_COLUMNS_3
                                                  "UPDATE meta SET value = 'drover-state 1'"
                                                  " WHERE name = 'format'");
    drover_change_t *owned = testutil_queued (2, 2, NULL);
    strcpy (owned->submit->principal, "alice");
    drover_change_t *second [] = { owned };
    assert_int_equal (testutil_apply (backend, second, 1, text), 0);
    drover_store_destroy (&backend);

    backend = s_open (dirs);
    testutil_loaded_t loaded = { .count = 0 };
    assert_int_equal (testutil_load (backend, 10, &loaded), 2);
    assert_string_equal (loaded.changes [0]->submit->principal, "");
    assert_string_equal (loaded.changes [1]->submit->principal, "alice");
    testutil_loaded_free (&loaded);
    drover_store_destroy (&backend);
    testutil_assert_and_free (s_format (dirs->file), "drover-state 4");
}

//  A final change with times, a RESULT outcome and past attempts
static drover_change_t *
s_final_with_history (uint64_t task, uint64_t seq)
{
    drover_change_t *change = testutil_final (task, seq, DROVER_TASK_FAILED, DROVER_END_FAILED, 3,
                                              "x");
    change->done->outcome = DROVER_OUTCOME_EXITED;
    change->queued_at = 1795000000000;
    change->offered_at = 1795000001000;
    change->started_at = 1795000001100;
    change->ended_at = 1795000002000;
    drover_attempt_t attempts [2] = {
        { .attempt = 1, .worker = "w1", .offered_at = 1795000000100, .started_at = 1795000000200,
          .ended_at = 1795000000300, .outcome = DROVER_OUTCOME_EXITED, .requeued = true,
          .exit_code = 3, .reason = "exit 3" },
        { .attempt = 2, .worker = "w2", .offered_at = 1795000000400, .ended_at = 1795000000900,
          .outcome = DROVER_ATTEMPT_NO_RESULT, .requeued = true, .exit_code = -1,
          .reason = "worker lost: heartbeats stopped" },
    };
    change->history = drover_taskinfo_encode_attempts (attempts, 2, 5, &change->history_size);
    return change;
}

//  Check what s_final_with_history kept came back
static void
s_assert_history (drover_change_t *change)
{
    assert_true (change->queued_at > 0);
    assert_int_equal (change->offered_at, 1795000001000);
    assert_int_equal (change->started_at, 1795000001100);
    assert_int_equal (change->ended_at, 1795000002000);
    assert_int_equal (change->done->outcome, DROVER_OUTCOME_EXITED);
    drover_attempt_t attempts [DROVER_ATTEMPTS_MAX];
    uint32_t dropped = 0;
    assert_int_equal (drover_taskinfo_decode_attempts (change->history, change->history_size,
                                                       attempts, &dropped), 2);
    assert_int_equal (dropped, 5);
    assert_int_equal (attempts [0].attempt, 1);
    assert_string_equal (attempts [0].worker, "w1");
    assert_int_equal (attempts [0].exit_code, 3);
    assert_int_equal (attempts [1].ended_at, 1795000000900);
    assert_string_equal (attempts [1].reason, "worker lost: heartbeats stopped");
    assert_true (attempts [1].requeued);
}

//  Format 4 keeps a replica's service and slot and a task's affinity key;
//  a state written before them (format 3) is upgraded at open, its tasks
//  load with neither
static void
test_services_and_affinity_kept_and_format_3_upgraded (void **state)
{
    s_dirs_t *dirs = (s_dirs_t *) *state;
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_t *backend = s_open (dirs);
    drover_change_t *first [] = { testutil_queued (1, 1, NULL), testutil_queued (2, 2, NULL) };
    strcpy (first [0]->submit->service, "web");
    first [0]->submit->slot = 3;
    first [1]->submit->affinity = strdup ("dataset-7");
    assert_int_equal (testutil_apply (backend, first, 2, text), 0);
    drover_store_destroy (&backend);

    backend = s_open (dirs);
    testutil_loaded_t loaded = { .count = 0 };
    assert_int_equal (testutil_load (backend, 10, &loaded), 2);
    assert_string_equal (loaded.changes [0]->submit->service, "web");
    assert_int_equal (loaded.changes [0]->submit->slot, 3);
    assert_null (loaded.changes [0]->submit->affinity);
    assert_string_equal (loaded.changes [1]->submit->service, "");
    assert_string_equal (loaded.changes [1]->submit->affinity, "dataset-7");
    testutil_loaded_free (&loaded);
    drover_store_destroy (&backend);

    backend = s_open_after_sql (dirs, S_DROP_COLUMNS_4
                                "UPDATE meta SET value = 'drover-state 3'"
                                " WHERE name = 'format'");
    assert_int_equal (testutil_load (backend, 10, &loaded), 2);
    assert_string_equal (loaded.changes [0]->submit->service, "");
    assert_null (loaded.changes [1]->submit->affinity);
    testutil_loaded_free (&loaded);
    drover_store_destroy (&backend);
    testutil_assert_and_free (s_format (dirs->file), "drover-state 4");
}

//  Format 3 keeps a task's times, its last RESULT outcome and its past
//  attempts; a task without them keeps none (NULL outcome, no history)
static void
test_times_and_attempts_round_trip (void **state)
{
    s_dirs_t *dirs = (s_dirs_t *) *state;
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_t *backend = s_open (dirs);
    drover_change_t *first [] = { testutil_queued (1, 1, NULL), testutil_queued (2, 2, NULL) };
    first [0]->queued_at = 1794000000000;
    assert_int_equal (testutil_apply (backend, first, 2, text), 0);
    drover_change_t *second [] = { s_final_with_history (1, 3) };
    assert_int_equal (testutil_apply (backend, second, 1, text), 0);
    drover_store_destroy (&backend);

    backend = s_open (dirs);
    testutil_loaded_t loaded = { .count = 0 };
    assert_int_equal (testutil_load (backend, 10, &loaded), 2);
    s_assert_history (loaded.changes [0]);
    assert_int_equal (loaded.changes [0]->queued_at, 1794000000000);
    assert_null (loaded.changes [1]->history);
    assert_int_equal (loaded.changes [1]->started_at, 0);
    testutil_loaded_free (&loaded);
    drover_store_destroy (&backend);
}

//  A state written before task times and attempts (format 2) is upgraded
//  at open: its tasks load with none, and take them from then on
static void
test_format_2_upgraded (void **state)
{
    s_dirs_t *dirs = (s_dirs_t *) *state;
    char text [DROVER_STORE_ERROR_MAX];
    s_make_state (dirs, 2);
    drover_store_t *backend = s_open_after_sql (dirs, S_DROP_COLUMNS_3
                                                  "UPDATE meta SET value = 'drover-state 2'"
                                                  " WHERE name = 'format'");
    testutil_loaded_t loaded = { .count = 0 };
    assert_int_equal (testutil_load (backend, 10, &loaded), 2);
    assert_int_equal (loaded.changes [0]->offered_at, 0);
    assert_null (loaded.changes [0]->history);
    testutil_assert_submit (loaded.changes [1], 2, NULL);
    testutil_loaded_free (&loaded);
    drover_change_t *later [] = { s_final_with_history (1, 3) };
    assert_int_equal (testutil_apply (backend, later, 1, text), 0);
    drover_store_destroy (&backend);

    backend = s_open (dirs);
    assert_int_equal (testutil_load (backend, 10, &loaded), 2);
    s_assert_history (loaded.changes [0]);
    testutil_loaded_free (&loaded);
    drover_store_destroy (&backend);
    testutil_assert_and_free (s_format (dirs->file), "drover-state 4");
}

//  An operator's settings per worker id round trip: saved at once, replaced,
//  forgotten on RUN, loaded in id order after a reopen; the memory backend
//  keeps none
static void
test_admin_round_trip (void **state)
{
    s_dirs_t *dirs = (s_dirs_t *) *state;
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_t *backend = s_open (dirs);
    drover_store_admin_t held = {
        .worker = "node-b", .admin = DROVER_ADMIN_HOLD, .reason = "disk swap", .since = 1000
    };
    drover_store_admin_t drained = {
        .worker = "node-a", .admin = DROVER_ADMIN_DRAIN, .flags = DROVER_ADMIN_EXIT,
        .reason = "", .since = 2000
    };
    drover_store_admin_t gone = { .worker = "node-c", .admin = DROVER_ADMIN_HOLD,
                                    .reason = "x", .since = 3 };
    assert_int_equal (drover_store_save_admin (backend, &held, text, sizeof text), 0);
    assert_int_equal (drover_store_save_admin (backend, &drained, text, sizeof text), 0);
    assert_int_equal (drover_store_save_admin (backend, &gone, text, sizeof text), 0);
    gone.admin = DROVER_ADMIN_RUN;                          //  resumed: forgotten
    assert_int_equal (drover_store_save_admin (backend, &gone, text, sizeof text), 0);
    held.reason = "disk swap, then fsck";                   //  replaced
    assert_int_equal (drover_store_save_admin (backend, &held, text, sizeof text), 0);
    drover_store_destroy (&backend);

    backend = s_open (dirs);
    testutil_admins_t admins = { .count = 0 };
    assert_int_equal (drover_store_load_admin (backend, testutil_take_admin, &admins, text,
                                                 sizeof text), 2);
    assert_int_equal (admins.count, 2);
    assert_string_equal (admins.worker [0], "node-a");
    assert_int_equal (admins.admin [0], DROVER_ADMIN_DRAIN);
    assert_int_equal (admins.flags [0], DROVER_ADMIN_EXIT);
    assert_string_equal (admins.reason [0], "");
    assert_int_equal (admins.since [0], 2000);
    assert_string_equal (admins.worker [1], "node-b");
    assert_int_equal (admins.admin [1], DROVER_ADMIN_HOLD);
    assert_string_equal (admins.reason [1], "disk swap, then fsck");
    assert_int_equal (admins.since [1], 1000);
    drover_store_destroy (&backend);

    backend = drover_store_open_memory ();
    assert_int_equal (drover_store_save_admin (backend, &held, text, sizeof text), 0);
    admins.count = 0;
    assert_int_equal (drover_store_load_admin (backend, testutil_take_admin, &admins, text,
                                                 sizeof text), 0);
    drover_store_destroy (&backend);
}

//  with an empty one, loaded in name order after a reopen, also from a
//  state made before services were kept (the table is made when missing);
//  the memory backend keeps none
static void
test_services_round_trip (void **state)
{
    s_dirs_t *dirs = (s_dirs_t *) *state;
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_t *backend = s_open (dirs);
    drover_store_destroy (&backend);
    //  A state made before services were kept: no services table
    s_sql_file (dirs->file, "DROP TABLE services");

    backend = s_open (dirs);
    const byte web [] = "web: 3 replicas";
    const byte db_def [] = "db: 1 replica";
    const byte cache [] = "cache: 2";
    assert_int_equal (drover_store_save_service (backend, "web", web, sizeof web - 1,
                                                   text, sizeof text), 0);
    assert_int_equal (drover_store_save_service (backend, "db", db_def, sizeof db_def - 1,
                                                   text, sizeof text), 0);
    assert_int_equal (drover_store_save_service (backend, "cache", cache, sizeof cache - 1,
                                                   text, sizeof text), 0);
    assert_int_equal (drover_store_save_service (backend, "cache", NULL, 0,
                                                   text, sizeof text), 0);     //  deleted
    const byte scaled [] = "web: 5 replicas";
    assert_int_equal (drover_store_save_service (backend, "web", scaled, sizeof scaled - 1,
                                                   text, sizeof text), 0);     //  replaced
    drover_store_destroy (&backend);

    backend = s_open (dirs);
    testutil_services_t services = { .count = 0 };
    assert_int_equal (drover_store_load_services (backend, testutil_take_service, &services, text,
                                                    sizeof text), 2);
    assert_int_equal (services.count, 2);
    assert_string_equal (services.name [0], "db");
    assert_string_equal (services.def [0], "db: 1 replica");
    assert_string_equal (services.name [1], "web");
    assert_string_equal (services.def [1], "web: 5 replicas");
    drover_store_destroy (&backend);

    backend = drover_store_open_memory ();
    assert_int_equal (drover_store_save_service (backend, "web", web, sizeof web - 1,
                                                   text, sizeof text), 0);
    services.count = 0;
    assert_int_equal (drover_store_load_services (backend, testutil_take_service, &services, text,
                                                    sizeof text), 0);
    assert_int_equal (services.count, 0);
    drover_store_destroy (&backend);
}

//  A state made before worker settings were kept (no worker_admin table)
//  opens as it was: its tasks load, the table is made, the format stays
static void
test_state_without_admin_table_opens (void **state)
{
    s_dirs_t *dirs = (s_dirs_t *) *state;
    char text [DROVER_STORE_ERROR_MAX];
    s_make_state (dirs, 1);
    char *format = s_format (dirs->file);
    drover_store_t *backend = s_open_after_sql (dirs, "DROP TABLE worker_admin");
    testutil_loaded_t loaded = { .count = 0 };
    assert_int_equal (testutil_load (backend, 10, &loaded), 1);
    testutil_loaded_free (&loaded);
    testutil_admins_t admins = { .count = 0 };
    assert_int_equal (drover_store_load_admin (backend, testutil_take_admin, &admins, text,
                                                 sizeof text), 0);
    drover_store_admin_t held = { .worker = "w", .admin = DROVER_ADMIN_HOLD, .reason = "r" };
    assert_int_equal (drover_store_save_admin (backend, &held, text, sizeof text), 0);
    drover_store_destroy (&backend);
    char *after = s_format (dirs->file);
    assert_string_equal (after, format);                    //  no format change for it
    free (after);
    free (format);
}

//  A second open of a state in use is refused (one broker per directory)
static void
test_state_in_use_refused (void **state)
{
    s_dirs_t *dirs = (s_dirs_t *) *state;
    char *error = NULL;
    drover_store_t *backend = s_open (dirs);
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
    s_dirs_t *dirs = (s_dirs_t *) *state;
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

//  Pruning deletes final tasks by count and by age, then the events older
//  than every kept task and past keep_events, max_rows at a time; tasks
//  not final are never deleted
static void
test_prune_bounded (void **state)
{
    s_dirs_t *dirs = (s_dirs_t *) *state;
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_t *backend = s_open (dirs);
    //  Tasks 1-100 final (ended at 1000 + id), 101-110 queued; each its
    //  own batch, so one events row each
    for (uint64_t task = 1; task <= 110; task++)
        testutil_apply_task (backend, task, task <= 100, 1000 + task);
    //  A second end of task 100 is an event only: its row stays as it was
    //  (and it is counted once)
    drover_change_t *again [] = {
        testutil_final (100, 111, DROVER_TASK_FAILED, DROVER_END_FAILED, 2, "late")
    };
    assert_int_equal (testutil_apply (backend, again, 1, text), 0);
    //  By count: keep 50 final tasks; 50 tasks, then the 50 events rows of
    //  tasks 1-50, 10 rows a call
    int64_t total;
    assert_int_equal (testutil_prune_all (backend, 50, UINT64_MAX, UINT64_MAX, 5000, 10, &total),
                      10);
    assert_int_equal (total, 100);
    testutil_loaded_t loaded = { { NULL }, 0 };
    assert_int_equal (testutil_load (backend, 1000, &loaded), 60);
    assert_int_equal (loaded.changes [0]->task, 51);
    assert_int_equal (loaded.changes [49]->task, 100);
    assert_int_equal (loaded.changes [49]->state, DROVER_TASK_SUCCEEDED);
    assert_int_equal (loaded.changes [49]->attempt, 0);
    testutil_loaded_free (&loaded);
    testutil_replayed_t replayed = { .count = 0 };
    assert_int_equal (drover_store_replay (backend, 0, 256, testutil_take_event, &replayed,
                                             text, sizeof text), 61);
    assert_int_equal (replayed.events [0].seq, 51);
    assert_string_equal (replayed.events [60].topic, "task.failed");
    //  By age: those ended before 1071 (tasks 51-70), and their events
    assert_int_equal (testutil_prune_all (backend, UINT64_MAX, 1000, UINT64_MAX, 2071, 7, &total),
                      6);
    assert_int_equal (total, 40);
    assert_int_equal (testutil_load (backend, 1000, &loaded), 40);
    assert_int_equal (loaded.changes [0]->task, 71);
    testutil_loaded_free (&loaded);
    //  By events: the newest 5 only; no task goes
    assert_int_equal (testutil_prune_all (backend, UINT64_MAX, UINT64_MAX, 5, 2071, 100, &total),
                      1);
    assert_int_equal (total, 36);
    replayed.count = 0;
    assert_int_equal (drover_store_replay (backend, 0, 256, testutil_take_event, &replayed,
                                             text, sizeof text), 5);
    assert_int_equal (replayed.events [0].seq, 107);
    //  Queued tasks stay whatever the bounds
    assert_int_equal (testutil_prune_all (backend, 1, 1, 1, 1000000, 100, &total), 1);
    assert_int_equal (total, 30 + 4);
    assert_int_equal (testutil_load (backend, 1000, &loaded), 10);
    assert_int_equal (loaded.changes [0]->task, 101);
    assert_int_equal (loaded.changes [9]->task, 110);
    testutil_loaded_free (&loaded);
    //  Bounds of 0 keep nothing of what may go: no final task, no event
    testutil_apply_task (backend, 120, true, 5000);
    assert_int_equal (testutil_prune_all (backend, 0, UINT64_MAX, UINT64_MAX, 6000, 100, &total),
                      1);
    assert_int_equal (total, 1);
    assert_int_equal (testutil_prune_all (backend, UINT64_MAX, UINT64_MAX, 0, 6000, 100, &total),
                      1);
    assert_int_equal (total, 2);
    replayed.count = 0;
    assert_int_equal (drover_store_replay (backend, 0, 256, testutil_take_event, &replayed,
                                             text, sizeof text), 0);
    assert_int_equal (testutil_load (backend, 1000, &loaded), 10);
    testutil_loaded_free (&loaded);
    drover_store_destroy (&backend);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_round_trip, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_read_task, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_admin_round_trip, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_services_round_trip, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_state_without_admin_table_opens, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_ids_survive_reopen, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_failed_batch_keeps_nothing, s_setup, s_teardown),
        cmocka_unit_test (test_memory_backend),
        cmocka_unit_test_setup_teardown (test_garbage_file_refused, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_damaged_page_refused, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_truncated_file_refused, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_other_schema_refused, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_times_and_attempts_round_trip, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_format_2_upgraded, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_services_and_affinity_kept_and_format_3_upgraded,
                                         s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_owner_kept_and_format_1_upgraded, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_state_in_use_refused, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_full_filesystem, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_prune_bounded, s_setup, s_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
