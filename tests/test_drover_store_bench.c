/*  =========================================================================
    test_drover_store_bench - what the SQLite backend costs, measured on
    this machine's disk (ctest label "bench"; figures printed, never
    asserted against a clock)

      apply, no-op     batches of 2,500 tasks x 4 changes (queued with its
                       submit and a 100-byte body, assigned, running,
                       succeeded with its result): usec per task, per change
      apply, submits   batches of 2,500 queued tasks: acknowledged submits/s
      events as rows   the same events written one row each instead of
                       packed: what the blobs save
      load             open + load of N queued tasks (default 100,000;
                       `test_drover_store_bench 1000000` for the issue's
                       figure), and bytes on disk per queued task
      replay, prune    events replayed per second; a prune of every final
                       task in bounded steps

    Runs in a fresh directory under /var/tmp (a real disk, not tmpfs),
    removed after.
    =========================================================================
*/

#include "testutil.h"
#include "drover_store.h"
#include <sqlite3.h>

#define S_BATCH_TASKS   2500            //  tasks in one batch

static uint64_t s_load_tasks = 100000;  //  queued tasks for the load figure
static char s_top [64];                 //  the temporary directory

//  A directory for one measurement under s_top
static char *
s_dir (const char *name)
{
    return zsys_sprintf ("%s/%s", s_top, name);
}

//  A queued change with a submit and a 100-byte body
static drover_change_t *
s_queued (uint64_t task, uint64_t seq)
{
    drover_change_t *change = drover_change_new ("task.queued", task);
    change->seq = seq;
    change->retries_left = 1;
    drover_msg_t *submit = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    submit->procs = 1;
    submit->retries = 1;
    submit->flags = DROVER_SUBMIT_NOTIFY;
    byte body [100];
    memset (body, (int) task, sizeof body);
    drover_msg_set_body (submit, body, sizeof body);
    change->submit = submit;
    return change;
}

//  A change of task's attempt 1 on worker w-0001
static drover_change_t *
s_step (const char *topic, uint64_t task, uint64_t seq, int state)
{
    drover_change_t *change = drover_change_new (topic, task);
    change->seq = seq;
    change->state = (uint8_t) state;
    change->attempt = 1;
    change->retries_left = 1;
    snprintf (change->worker, sizeof change->worker, "w-0001");
    if (state == DROVER_TASK_SUCCEEDED) {
        drover_msg_t *done = drover_msg_new (DROVER_MSG_TASK_DONE);
        done->task = task;
        done->state = DROVER_TASK_SUCCEEDED;
        done->end = DROVER_END_SUCCEEDED;
        done->duration = 1;
        change->done = done;
    }
    return change;
}

//  Make a batch of tasks from first_task: the no-op life (4 changes each,
//  as the broker says them: all queued, then all assigned, running,
//  succeeded) or only queued. Returns the changes made; *seq moves on.
static size_t
s_batch (drover_change_t **changes, uint64_t first_task, size_t tasks, bool noop,
         uint64_t *seq)
{
    size_t count = 0;
    for (size_t index = 0; index < tasks; index++)
        changes [count++] = s_queued (first_task + index, (*seq)++);
    if (noop) {
        const char *topics [] = { "task.assigned", "task.running", "task.succeeded" };
        int states [] = { DROVER_TASK_ASSIGNED, DROVER_TASK_RUNNING, DROVER_TASK_SUCCEEDED };
        for (int step = 0; step < 3; step++)
            for (size_t index = 0; index < tasks; index++)
                changes [count++] = s_step (topics [step], first_task + index, (*seq)++,
                                            states [step]);
    }
    return count;
}

static void
s_batch_free (drover_change_t **changes, size_t count)
{
    for (size_t index = 0; index < count; index++)
        drover_change_destroy (&changes [index]);
}

//  This thread's CPU time, usec
static int64_t
s_cpu_usecs (void)
{
    struct timespec now;
    clock_gettime (CLOCK_THREAD_CPUTIME_ID, &now);
    return (int64_t) now.tv_sec * 1000000 + now.tv_nsec / 1000;
}

//  Apply batches batches of S_BATCH_TASKS tasks; returns usec spent in
//  apply alone (making the changes is not counted), *cpu the CPU time
//  of it (what other processes on the machine do not change)
static int64_t
s_apply_batches (drover_store_t *backend, int batches, bool noop, uint64_t *next_task,
                 uint64_t *seq, int64_t *cpu)
{
    char error [DROVER_STORE_ERROR_MAX];
    drover_change_t **changes = (drover_change_t **) malloc (4 * S_BATCH_TASKS
                                                            * sizeof (drover_change_t *));
    int64_t spent = 0;
    for (int batch = 0; batch < batches; batch++) {
        size_t count = s_batch (changes, *next_task, S_BATCH_TASKS, noop, seq);
        *next_task += S_BATCH_TASKS;
        int64_t start = zclock_usecs (), cpu_start = s_cpu_usecs ();
        int rc = drover_store_apply (backend, changes, count, error, sizeof error);
        spent += zclock_usecs () - start;
        if (cpu)
            *cpu += s_cpu_usecs () - cpu_start;
        if (rc)
            fail_msg ("apply: %s", error);
        s_batch_free (changes, count);
    }
    free (changes);
    return spent;
}

//  Apply: the no-op life and submits only
static void
test_apply (void **state)
{
    char *dir = s_dir ("apply");
    char *error = NULL;
    drover_store_t *backend = drover_store_open_sqlite (dir, &error);
    assert_non_null (backend);
    uint64_t next_task = 1, seq = 1;
    s_apply_batches (backend, 2, true, &next_task, &seq, NULL);    //  warm up
    int batches = 20;
    int64_t cpu = 0;
    int64_t spent = s_apply_batches (backend, batches, true, &next_task, &seq, &cpu);
    double tasks = (double) batches * S_BATCH_TASKS;
    printf ("apply, no-op: %d batches of %d tasks x 4 changes: %.2f usec/task, %.2f usec/change,"
            " %.0f tasks/s, %.1f msec/batch; CPU %.2f usec/task\n", batches, S_BATCH_TASKS,
            spent / tasks, spent / tasks / 4, tasks * 1e6 / (double) spent,
            spent / 1e3 / batches, cpu / tasks);
    cpu = 0;
    spent = s_apply_batches (backend, batches, false, &next_task, &seq, &cpu);
    printf ("apply, submits: %d batches of %d queued tasks: %.2f usec/task, %.0f submits/s,"
            " %.1f msec/batch; CPU %.2f usec/task\n", batches, S_BATCH_TASKS, spent / tasks,
            tasks * 1e6 / (double) spent, spent / 1e3 / batches, cpu / tasks);
    assert_int_equal (drover_store_meta (backend)->next_task, next_task);
    drover_store_destroy (&backend);
    zstr_free (&dir);
}

//  The same events as one row each, in one transaction per batch, on a
//  file with the backend's settings: what packing them into blobs saves
static void
test_events_as_rows (void **state)
{
    char *dir = s_dir ("rows");
    assert_int_equal (mkdir (dir, 0700), 0);
    char *file = zsys_sprintf ("%s/rows.db", dir);
    sqlite3 *db;
    assert_int_equal (sqlite3_open (file, &db), SQLITE_OK);
    assert_int_equal (sqlite3_exec (db, "PRAGMA locking_mode = EXCLUSIVE;"
                      "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;"
                      "PRAGMA cache_size = -16384; PRAGMA wal_autocheckpoint = 4096;"
                      "CREATE TABLE events (seq INTEGER PRIMARY KEY, time INTEGER, topic TEXT,"
                      " task INTEGER, attempt INTEGER, worker TEXT, reason TEXT)",
                      NULL, NULL, NULL), SQLITE_OK);
    sqlite3_stmt *insert;
    assert_int_equal (sqlite3_prepare_v2 (db, "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)",
                                          -1, &insert, NULL), SQLITE_OK);
    drover_change_t **changes = (drover_change_t **) malloc (4 * S_BATCH_TASKS
                                                            * sizeof (drover_change_t *));
    uint64_t seq = 1;
    int batches = 20;
    int64_t spent = 0, cpu = 0;
    for (int batch = 0; batch < batches + 2; batch++) {
        size_t count = s_batch (changes, 1 + (uint64_t) batch * S_BATCH_TASKS, S_BATCH_TASKS,
                                true, &seq);
        int64_t start = zclock_usecs (), cpu_start = s_cpu_usecs ();
        assert_int_equal (sqlite3_exec (db, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
        for (size_t index = 0; index < count; index++) {
            drover_change_t *change = changes [index];
            sqlite3_bind_int64 (insert, 1, (sqlite3_int64) change->seq);
            sqlite3_bind_int64 (insert, 2, (sqlite3_int64) change->time);
            sqlite3_bind_text (insert, 3, change->topic, -1, SQLITE_STATIC);
            sqlite3_bind_int64 (insert, 4, (sqlite3_int64) change->task);
            sqlite3_bind_int64 (insert, 5, change->attempt);
            sqlite3_bind_text (insert, 6, change->worker, -1, SQLITE_STATIC);
            sqlite3_bind_text (insert, 7, change->reason, -1, SQLITE_STATIC);
            assert_int_equal (sqlite3_step (insert), SQLITE_DONE);
            sqlite3_reset (insert);
        }
        assert_int_equal (sqlite3_exec (db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
        if (batch >= 2) {               //  the first two warm up
            spent += zclock_usecs () - start;
            cpu += s_cpu_usecs () - cpu_start;
        }
        s_batch_free (changes, count);
    }
    double events = (double) batches * S_BATCH_TASKS * 4;
    printf ("events as rows: %.2f usec/event (commit included), %.2f usec/task of 4 events;"
            " CPU %.2f usec/task\n", spent / events, spent / events * 4, cpu / events * 4);

    //  The same events packed, through the backend: as task-less events
    //  (task 0 packs a byte or two shorter), so that no task row is written
    char *blobs = s_dir ("blobs");
    char *error = NULL;
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_t *backend = drover_store_open_sqlite (blobs, &error);
    assert_non_null (backend);
    seq = 1;
    spent = cpu = 0;
    for (int batch = 0; batch < batches + 2; batch++) {
        size_t count = s_batch (changes, 1 + (uint64_t) batch * S_BATCH_TASKS, S_BATCH_TASKS,
                                true, &seq);
        for (size_t index = 0; index < count; index++)
            changes [index]->task = 0;
        int64_t start = zclock_usecs (), cpu_start = s_cpu_usecs ();
        assert_int_equal (drover_store_apply (backend, changes, count, text, sizeof text), 0);
        if (batch >= 2) {
            spent += zclock_usecs () - start;
            cpu += s_cpu_usecs () - cpu_start;
        }
        s_batch_free (changes, count);
    }
    printf ("events as blobs: %.2f usec/event (commit included), %.2f usec/task of 4 events;"
            " CPU %.2f usec/task\n", spent / events, spent / events * 4, cpu / events * 4);
    drover_store_destroy (&backend);
    zstr_free (&blobs);
    free (changes);
    sqlite3_finalize (insert);
    sqlite3_close (db);
    zstr_free (&file);
    zstr_free (&dir);
}

//  Count what load hands over
static int
s_count_task (void *arg, drover_change_t **change_p)
{
    (*(uint64_t *) arg)++;
    drover_change_destroy (change_p);
    return 0;
}

//  Count what replay hands over
static int
s_count_event (void *arg, const drover_event_t *event)
{
    (*(uint64_t *) arg)++;
    return 0;
}

//  Bytes of the files in dir
static uint64_t
s_dir_bytes (const char *dir)
{
    const char *names [] = { "state.db", "state.db-wal" };
    uint64_t bytes = 0;
    for (int index = 0; index < 2; index++) {
        char *path = zsys_sprintf ("%s/%s", dir, names [index]);
        struct stat info;
        if (stat (path, &info) == 0)
            bytes += (uint64_t) info.st_size;
        zstr_free (&path);
    }
    return bytes;
}

//  Load: s_load_tasks queued tasks, then open + load; replay; prune
static void
test_load_replay_prune (void **state)
{
    char *dir = s_dir ("load");
    char *error = NULL;
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_t *backend = drover_store_open_sqlite (dir, &error);
    assert_non_null (backend);
    uint64_t next_task = 1, seq = 1;
    int batches = (int) ((s_load_tasks + S_BATCH_TASKS - 1) / S_BATCH_TASKS);
    s_apply_batches (backend, batches, false, &next_task, &seq, NULL);
    drover_store_destroy (&backend);
    uint64_t bytes = s_dir_bytes (dir);
    uint64_t tasks = next_task - 1;

    int64_t start = zclock_usecs ();
    backend = drover_store_open_sqlite (dir, &error);
    assert_non_null (backend);
    int64_t opened = zclock_usecs () - start;
    uint64_t loaded = 0;
    assert_int_equal (drover_store_load (backend, 10000, s_count_task, &loaded, text,
                                           sizeof text), (int64_t) tasks);
    int64_t spent = zclock_usecs () - start;
    assert_int_equal (loaded, tasks);
    printf ("load: %" PRIu64 " queued tasks: open %.1f msec, open + load %.2f s"
            " (%.2f usec/task); %.0f bytes on disk per queued task\n", tasks, opened / 1e3,
            spent / 1e6, (double) spent / (double) tasks, (double) bytes / (double) tasks);

    uint64_t replayed = 0;
    start = zclock_usecs ();
    assert_int_equal (drover_store_replay (backend, 0, SIZE_MAX, s_count_event, &replayed,
                                             text, sizeof text), (int64_t) tasks);
    spent = zclock_usecs () - start;
    printf ("replay: %" PRIu64 " events in %.1f msec (%.2f usec/event)\n", replayed,
            spent / 1e3, (double) spent / (double) replayed);

    //  Every task final (one batch of updates each), then prune them all
    //  at 10,000 rows a call
    drover_store_destroy (&backend);
    backend = drover_store_open_sqlite (dir, &error);
    assert_non_null (backend);
    drover_change_t **changes = (drover_change_t **) malloc (S_BATCH_TASKS
                                                            * sizeof (drover_change_t *));
    for (uint64_t first = 1; first <= tasks; first += S_BATCH_TASKS) {
        size_t count = 0;
        for (uint64_t task = first; task < first + S_BATCH_TASKS && task <= tasks; task++)
            changes [count++] = s_step ("task.succeeded", task, seq++, DROVER_TASK_SUCCEEDED);
        assert_int_equal (drover_store_apply (backend, changes, count, text, sizeof text), 0);
        s_batch_free (changes, count);
    }
    free (changes);
    //  As the store prunes a full history: 1,000 rows a call, keeping all
    //  but the oldest 20,000 final tasks
    int64_t deleted, total = 0, calls = 0, longest = 0;
    start = zclock_usecs ();
    do {
        int64_t call = zclock_usecs ();
        deleted = drover_store_prune (backend, tasks - 20000, UINT64_MAX, UINT64_MAX,
                                        (uint64_t) zclock_time (), 1000, text, sizeof text);
        assert_true (deleted >= 0);
        call = zclock_usecs () - call;
        longest = call > longest? call: longest;
        total += deleted;
        calls++;
    } while (deleted > 0);
    spent = zclock_usecs () - start;
    printf ("prune, full history: %" PRId64 " rows (the oldest 20,000 tasks, their events) in"
            " %" PRId64 " calls of at most 1,000, %.1f msec a call, longest %.1f msec\n",
            total, calls, spent / 1e3 / (double) calls, longest / 1e3);
    total = calls = longest = 0;
    start = zclock_usecs ();
    do {
        int64_t call = zclock_usecs ();
        deleted = drover_store_prune (backend, 1, UINT64_MAX, 1, (uint64_t) zclock_time (), 10000,
                                        text, sizeof text);
        assert_true (deleted >= 0);
        call = zclock_usecs () - call;
        longest = call > longest? call: longest;
        total += deleted;
        calls++;
    } while (deleted > 0);
    spent = zclock_usecs () - start;
    printf ("prune: %" PRId64 " rows (all tasks but the newest, events but the last) in %" PRId64 " calls"
            " of at most 10,000, %.2f s, longest call %.1f msec\n", total, calls, spent / 1e6,
            longest / 1e3);
    drover_store_destroy (&backend);
    zstr_free (&dir);
}

int
main (int argc, char *argv [])
{
    if (argc > 1)
        s_load_tasks = strtoull (argv [1], NULL, 10);
    snprintf (s_top, sizeof s_top, "/var/tmp/drover-backend-bench-XXXXXX");
    assert (mkdtemp (s_top));
    printf ("SQLite %s, state in %s\n", sqlite3_libversion (), s_top);
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_apply),
        cmocka_unit_test (test_events_as_rows),
        cmocka_unit_test (test_load_replay_prune),
    };
    int failed = cmocka_run_group_tests (tests, NULL, NULL);
    char *command = zsys_sprintf ("rm -rf '%s'", s_top);
    if (system (command) != 0)
        failed = 1;
    zstr_free (&command);
    return failed;
}
