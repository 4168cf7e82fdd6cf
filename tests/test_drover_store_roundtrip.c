/*  =========================================================================
    test_drover_store_roundtrip - the store's backends on real files: what
    was applied comes back through a reopen (tasks, keys, events, one task
    read by id, workers' settings, services), ids that survive it, a failed
    batch that keeps nothing, pruning in bounded steps, and the memory
    backend
    =========================================================================
*/

#include "testutil_statedir.h"
#include "testutil_backend.h"
#include <sqlite3.h>

//  What was applied comes back after a reopen: queued tasks, a running
//  one with its attempt and worker, final ones with their outputs, keys;
//  changes to one task merged within a batch and across batches; the
//  events in order
static void
test_round_trip (void **state)
{
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
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

    backend = testutil_statedir_open (dirs);
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
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
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
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_t *backend = testutil_statedir_open (dirs);
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
    backend = testutil_statedir_open (dirs);
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
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
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

//  An operator's settings per worker id round trip: saved at once, replaced,
//  forgotten on RUN, loaded in id order after a reopen; the memory backend
//  keeps none
static void
test_admin_round_trip (void **state)
{
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_t *backend = testutil_statedir_open (dirs);
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

    backend = testutil_statedir_open (dirs);
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
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_t *backend = testutil_statedir_open (dirs);
    drover_store_destroy (&backend);
    //  A state made before services were kept: no services table
    testutil_statedir_sql_file (dirs->file, "DROP TABLE services");

    backend = testutil_statedir_open (dirs);
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

    backend = testutil_statedir_open (dirs);
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

//  Pruning deletes final tasks by count and by age, then the events older
//  than every kept task and past keep_events, max_rows at a time; tasks
//  not final are never deleted
static void
test_prune_bounded (void **state)
{
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_t *backend = testutil_statedir_open (dirs);
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
        cmocka_unit_test_setup_teardown (test_round_trip, testutil_statedir_setup,
                                         testutil_statedir_teardown),
        cmocka_unit_test_setup_teardown (test_read_task, testutil_statedir_setup,
                                         testutil_statedir_teardown),
        cmocka_unit_test_setup_teardown (test_admin_round_trip, testutil_statedir_setup,
                                         testutil_statedir_teardown),
        cmocka_unit_test_setup_teardown (test_services_round_trip, testutil_statedir_setup,
                                         testutil_statedir_teardown),
        cmocka_unit_test_setup_teardown (test_ids_survive_reopen, testutil_statedir_setup,
                                         testutil_statedir_teardown),
        cmocka_unit_test_setup_teardown (test_failed_batch_keeps_nothing, testutil_statedir_setup,
                                         testutil_statedir_teardown),
        cmocka_unit_test (test_memory_backend),
        cmocka_unit_test_setup_teardown (test_prune_bounded, testutil_statedir_setup,
                                         testutil_statedir_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
