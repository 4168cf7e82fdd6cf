/*  =========================================================================
    test_drover_postgres - the PostgreSQL backend on a real server started
    by the test (tests/pg_server.sh, on loopback, a free port): a round
    trip through a reopen, a batch of many changes, settings and services,
    pruning, fencing between two leaders, a server stopped under a write,
    a failed batch that keeps nothing, bad URIs, the store's FENCED, and a
    real broker killed and started again on the database. Each test gets a
    database of its own. Without PostgreSQL installed the test fails and
    says to install it.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include "testutil_backend.h"
#include "drover_store_actor.h"
#include "drover_actor.h"
#include "drover_pgconn.h"
#include <libpq-fe.h>

//  The server this binary runs its tests on
typedef struct {
    char dir [64];                  //  the server's directory (tests/pg_server.sh)
    int port;                       //  its port on 127.0.0.1
    char uri [256];                 //  the database drover
    char db_uri [128];              //  this test's own database
    int databases;                  //  databases made so far: tests started
    int passed;                     //  tests that reached their end
} s_server_t;

static s_server_t s_server;

//  Run tests/pg_server.sh with words; its stdout into output. Returns its
//  wait status.
static int
s_script (const char *command, const char *port, char *output, size_t size)
{
    const char *argv [] = { "/bin/sh", DROVER_SOURCE_DIR "/tests/pg_server.sh", command,
                            s_server.dir, port, NULL };
    return testutil_run_output (argv, output, size, 60000);
}

//  Start the server once for every test
static int
s_group_setup (void **state)
{
    snprintf (s_server.dir, sizeof s_server.dir, "/tmp/drover-pgtest-XXXXXX");
    assert_non_null (mkdtemp (s_server.dir));
    s_server.port = testutil_free_port ();
    char port [16], output [256];
    snprintf (port, sizeof port, "%d", s_server.port);
    int status = s_script ("start", port, output, sizeof output);
    if (status != 0)
        fail_msg ("tests/pg_server.sh could not start PostgreSQL (status %d; see its message "
                  "above; install it: apt-get install postgresql libpq-dev)", status);
    output [strcspn (output, "\n")] = 0;
    snprintf (s_server.uri, sizeof s_server.uri, "%s", output);
    assert_non_null (strstr (s_server.uri, "postgresql://"));
    return 0;
}

//  Stop the server; its directory (data, server.log) is kept if a test failed
static int
s_group_teardown (void **state)
{
    char output [256];
    if (s_server.passed == s_server.databases)
        s_script ("stop", NULL, output, sizeof output);
    else {
        s_script ("halt", NULL, output, sizeof output);
        fprintf (stderr, "test_drover_postgres: a test failed: the server's data and log are "
                 "kept in %s\n", s_server.dir);
    }
    return 0;
}

//  A test reached its end (the server is removed only if all did)
static void
s_passed (void)
{
    s_server.passed++;
}

//  Run one SQL command on the database at uri; asserts it succeeds
static void
s_sql (const char *uri, const char *sql)
{
    PGconn *conn = PQconnectdb (uri);
    assert_int_equal (PQstatus (conn), CONNECTION_OK);
    PGresult *result = PQexec (conn, sql);
    if (PQresultStatus (result) != PGRES_COMMAND_OK && PQresultStatus (result) != PGRES_TUPLES_OK)
        fail_msg ("%s: %s", sql, PQerrorMessage (conn));
    PQclear (result);
    PQfinish (conn);
}

//  A fresh database for each test
static int
s_setup (void **state)
{
    char sql [64];
    s_server.databases++;
    snprintf (sql, sizeof sql, "CREATE DATABASE t%d", s_server.databases);
    s_sql (s_server.uri, sql);
    snprintf (s_server.db_uri, sizeof s_server.db_uri, "postgresql://drover@127.0.0.1:%d/t%d",
              s_server.port, s_server.databases);
    return 0;
}

//  Open the test's database with fence; asserts it opens
static drover_store_t *
s_open (uint64_t fence)
{
    char *error = NULL;
    drover_store_t *backend = drover_store_open_postgres (s_server.db_uri, fence, &error);
    if (!backend)
        fail_msg ("open: %s", error);
    assert_null (error);
    return backend;
}

//  What was applied comes back after a reopen: queued tasks, a running one
//  with its attempt and worker, final ones with their outputs, keys;
//  changes to one task merged within a batch and across batches; the
//  events in order; ids and seqs go on from where they were
static void
test_round_trip (void **state)
{
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_t *backend = s_open (0);
    assert_string_equal (drover_store_name (backend), "postgresql");
    assert_false (drover_store_fenced (backend));
    const drover_store_meta_t *meta = drover_store_meta (backend);
    char state_id [DROVER_STATE_ID_SIZE + 1];
    snprintf (state_id, sizeof state_id, "%s", meta->state);
    assert_int_equal (strspn (state_id, "0123456789abcdef"), 32);
    assert_int_equal (meta->next_task, 1);
    assert_int_equal (meta->next_seq, 1);

    drover_change_t *batch1 [9];
    testutil_round_trip_batch (batch1, true);
    if (testutil_apply (backend, batch1, 9, text))
        fail_msg ("apply: %s", text);
    drover_change_t *batch2 [] = {
        testutil_queued_owned (4, 10, NULL),
        testutil_attempt ("task.assigned", 1, 11, DROVER_TASK_ASSIGNED, 1, "w2"),
        testutil_final (2, 12, DROVER_TASK_FAILED, DROVER_END_FAILED, 2, "bye"),
        //  A final task is final: a later change is an event only
        testutil_attempt ("task.running", 3, 13, DROVER_TASK_RUNNING, 2, "w9"),
    };
    batch2 [2]->lost = 1;
    batch2 [2]->time = 2000;
    batch2 [2]->retries_left = 0;
    assert_int_equal (testutil_apply (backend, batch2, 4, text), 0);
    assert_int_equal (meta->next_task, 5);
    assert_int_equal (meta->next_seq, 14);
    drover_store_destroy (&backend);
    assert_null (backend);

    backend = s_open (0);
    meta = drover_store_meta (backend);
    assert_string_equal (meta->state, state_id);
    assert_int_equal (meta->next_task, 5);
    assert_int_equal (meta->next_seq, 14);
    testutil_loaded_t loaded = { { NULL }, 0 };
    assert_int_equal (testutil_load (backend, 10, &loaded), 4);
    drover_change_t *task1 = loaded.changes [0], *task2 = loaded.changes [1],
                    *task3 = loaded.changes [2], *task4 = loaded.changes [3];
    testutil_assert_submit_owned (task1, 1, "key-1");
    assert_int_equal (task1->state, DROVER_TASK_ASSIGNED);
    assert_string_equal (task1->worker, "w2");
    assert_int_equal (task1->offered_at, 600);
    assert_int_equal (task1->started_at, 700);
    assert_null (task1->done);
    testutil_assert_submit_owned (task2, 2, NULL);
    assert_int_equal (task2->state, DROVER_TASK_FAILED);
    assert_int_equal (task2->attempt, 2);
    assert_int_equal (task2->lost, 1);
    assert_int_equal (task2->retries_left, 0);
    assert_int_equal (task2->ended_at, 2000);
    testutil_assert_failed_result (task2, "bye");
    testutil_assert_submit_owned (task3, 3, "key-3");
    assert_int_equal (task3->state, DROVER_TASK_SUCCEEDED);
    assert_string_equal (task3->worker, "w1");
    assert_memory_equal (task3->done->out, "hello", 5);
    testutil_assert_submit_owned (task4, 4, NULL);
    assert_int_equal (task4->state, DROVER_TASK_QUEUED);
    assert_string_equal (task4->worker, "");
    testutil_loaded_free (&loaded);
    //  Only the newest final one (task 2 ended last) with max_final 1
    assert_int_equal (testutil_load (backend, 1, &loaded), 3);
    assert_int_equal (loaded.changes [1]->task, 2);
    testutil_loaded_free (&loaded);
    assert_int_equal (testutil_load (backend, 0, &loaded), 2);
    testutil_loaded_free (&loaded);
    //  One task read back by id, as load makes it; 0 for one not kept
    drover_change_t *read = NULL;
    assert_int_equal (drover_store_read_task (backend, 3, &read, text, sizeof text), 1);
    assert_int_equal (read->state, DROVER_TASK_SUCCEEDED);
    assert_memory_equal (read->done->out, "hello", 5);
    drover_change_destroy (&read);
    assert_int_equal (drover_store_read_task (backend, 99, &read, text, sizeof text), 0);
    assert_null (read);

    testutil_replayed_t replayed = { .count = 0 };
    assert_int_equal (drover_store_replay (backend, 0, 100, testutil_take_event, &replayed,
                                             text, sizeof text), 13);
    for (size_t index = 0; index < 13; index++)
        assert_int_equal (replayed.events [index].seq, index + 1);
    assert_string_equal (replayed.events [0].topic, "worker.up");
    assert_string_equal (replayed.events [0].reason, "procs=4");
    assert_string_equal (replayed.events [11].topic, "task.failed");
    assert_int_equal (replayed.events [8].time, 1000);
    replayed.count = 0;
    assert_int_equal (drover_store_replay (backend, 7, 3, testutil_take_event, &replayed,
                                             text, sizeof text), 3);
    assert_int_equal (replayed.events [0].seq, 8);
    assert_int_equal (replayed.events [2].seq, 10);
    replayed.count = 0;
    assert_int_equal (drover_store_replay (backend, 13, 100, testutil_take_event, &replayed,
                                             text, sizeof text), 0);
    drover_store_destroy (&backend);
    s_passed ();
}

//  One batch of many changes (5000 tasks submitted, 2000 of them then
//  running, 1000 of those done: 5 events rows) is kept whole
static void
test_many_changes (void **state)
{
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_t *backend = s_open (0);
    size_t count = 8000, at = 0;
    drover_change_t **batch = (drover_change_t **) zmalloc (count * sizeof (drover_change_t *));
    uint64_t seq = 1;
    for (uint64_t task = 1; task <= 5000; task++)
        batch [at++] = testutil_queued_owned (task, seq++, NULL);
    for (uint64_t task = 1; task <= 2000; task++)
        batch [at++] = testutil_attempt ("task.running", task, seq++, DROVER_TASK_RUNNING, 1, "w1");
    for (uint64_t task = 1; task <= 1000; task++)
        batch [at++] = testutil_final (task, seq++, DROVER_TASK_SUCCEEDED, DROVER_END_SUCCEEDED, 1,
                                       "ok");
    assert_int_equal (at, count);
    int rc = testutil_apply (backend, batch, count, text);
    free (batch);
    if (rc)
        fail_msg ("apply: %s", text);
    drover_store_destroy (&backend);

    backend = s_open (0);
    assert_int_equal (drover_store_meta (backend)->next_task, 5001);
    assert_int_equal (drover_store_meta (backend)->next_seq, 8001);
    testutil_loaded_t loaded = { { NULL }, 0 };
    assert_int_equal (testutil_load (backend, 100000, &loaded), 5000);
    assert_int_equal (loaded.changes [0]->state, DROVER_TASK_SUCCEEDED);
    testutil_loaded_free (&loaded);
    assert_int_equal (testutil_load (backend, 10, &loaded), 4010);
    testutil_loaded_free (&loaded);
    testutil_replayed_t replayed = { .count = 0 };
    assert_int_equal (drover_store_replay (backend, 7990, 100, testutil_take_event, &replayed,
                                             text, sizeof text), 10);
    assert_int_equal (replayed.events [9].seq, 8000);
    drover_store_destroy (&backend);
    s_passed ();
}

//  Settings and services are kept at once, replaced, forgotten, loaded in
//  order after a reopen
static void
test_admin_and_services (void **state)
{
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_t *backend = s_open (0);
    drover_store_admin_t held = { .worker = "node-b", .admin = DROVER_ADMIN_HOLD,
                                    .reason = "disk swap", .since = 1000 };
    drover_store_admin_t drained = { .worker = "node-a", .admin = DROVER_ADMIN_DRAIN,
                                       .reason = "", .since = 2000 };
    drover_store_admin_t gone = { .worker = "node-c", .admin = DROVER_ADMIN_HOLD,
                                    .reason = "x", .since = 3 };
    assert_int_equal (drover_store_save_admin (backend, &held, text, sizeof text), 0);
    assert_int_equal (drover_store_save_admin (backend, &drained, text, sizeof text), 0);
    assert_int_equal (drover_store_save_admin (backend, &gone, text, sizeof text), 0);
    gone.admin = DROVER_ADMIN_RUN;
    assert_int_equal (drover_store_save_admin (backend, &gone, text, sizeof text), 0);
    held.reason = "disk swap, then fsck";
    assert_int_equal (drover_store_save_admin (backend, &held, text, sizeof text), 0);
    assert_int_equal (drover_store_save_service (backend, "web", (byte *) "def-1", 5,
                                                   text, sizeof text), 0);
    assert_int_equal (drover_store_save_service (backend, "db", (byte *) "def-2", 5,
                                                   text, sizeof text), 0);
    assert_int_equal (drover_store_save_service (backend, "web", (byte *) "def-3", 5,
                                                   text, sizeof text), 0);
    assert_int_equal (drover_store_save_service (backend, "old", (byte *) "x", 1,
                                                   text, sizeof text), 0);
    assert_int_equal (drover_store_save_service (backend, "old", NULL, 0, text, sizeof text),
                      0);
    drover_store_destroy (&backend);

    backend = s_open (0);
    testutil_admins_t admins = { .count = 0 };
    assert_int_equal (drover_store_load_admin (backend, testutil_take_admin, &admins, text,
                                                 sizeof text), 2);
    assert_string_equal (admins.worker [0], "node-a");
    assert_int_equal (admins.admin [0], DROVER_ADMIN_DRAIN);
    assert_string_equal (admins.reason [0], "");
    assert_string_equal (admins.worker [1], "node-b");
    assert_string_equal (admins.reason [1], "disk swap, then fsck");
    testutil_services_t services = { .count = 0 };
    assert_int_equal (drover_store_load_services (backend, testutil_take_service, &services, text,
                                                    sizeof text), 2);
    assert_string_equal (services.name [0], "db");
    assert_string_equal (services.def [0], "def-2");
    assert_string_equal (services.name [1], "web");
    assert_string_equal (services.def [1], "def-3");
    drover_store_destroy (&backend);
    s_passed ();
}

//  Pruning by count, by age and by events, in bounded steps, as sqlite's
static void
test_prune_bounded (void **state)
{
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_t *backend = s_open (0);
    for (uint64_t task = 1; task <= 110; task++)
        testutil_apply_task (backend, task, task <= 100, 1000 + task);
    int64_t total;
    assert_int_equal (testutil_prune_all (backend, 50, UINT64_MAX, UINT64_MAX, 5000, 10, &total),
                      10);
    assert_int_equal (total, 100);
    testutil_loaded_t loaded = { { NULL }, 0 };
    assert_int_equal (testutil_load (backend, 1000, &loaded), 60);
    assert_int_equal (loaded.changes [0]->task, 51);
    testutil_loaded_free (&loaded);
    assert_int_equal (testutil_prune_all (backend, UINT64_MAX, 1000, UINT64_MAX, 2071, 7, &total),
                      6);
    assert_int_equal (total, 40);
    assert_int_equal (testutil_prune_all (backend, UINT64_MAX, UINT64_MAX, 5, 2071, 100, &total),
                      1);
    assert_int_equal (total, 35);
    testutil_replayed_t replayed = { .count = 0 };
    assert_int_equal (drover_store_replay (backend, 0, 256, testutil_take_event, &replayed,
                                             text, sizeof text), 5);
    assert_int_equal (replayed.events [0].seq, 106);
    //  Queued tasks stay whatever the bounds
    assert_int_equal (testutil_prune_all (backend, 1, 1, 1, 1000000, 100, &total), 1);
    assert_int_equal (testutil_load (backend, 1000, &loaded), 10);
    assert_int_equal (loaded.changes [0]->task, 101);
    testutil_loaded_free (&loaded);
    drover_store_destroy (&backend);
    s_passed ();
}

//  Two leaders on one database: open(5), then open(7) claims the state;
//  the first's writes are refused "fenced", nothing of them kept, and it
//  stays fenced; open(3) after is refused at open; the second goes on
static void
test_fencing (void **state)
{
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_t *old = s_open (5);
    drover_change_t *first [] = { testutil_queued_owned (1, 1, "one") };
    assert_int_equal (testutil_apply (old, first, 1, text), 0);

    drover_store_t *new = s_open (7);
    assert_int_equal (drover_store_meta (new)->next_task, 2);
    assert_false (drover_store_fenced (old));
    drover_change_t *late [] = {
        testutil_queued_owned (2, 2, NULL),
        testutil_attempt ("task.assigned", 1, 3, DROVER_TASK_ASSIGNED, 1, "w1"),
    };
    assert_int_equal (testutil_apply (old, late, 2, text), -1);
    assert_string_equal (text, "fenced: the state is held by a newer leader (token 7 > fence 5)");
    assert_true (drover_store_fenced (old));
    drover_store_admin_t held = { .worker = "node-b", .admin = DROVER_ADMIN_HOLD,
                                    .reason = "", .since = 1 };
    text [0] = 0;
    assert_int_equal (drover_store_save_admin (old, &held, text, sizeof text), -1);
    assert_non_null (strstr (text, "fenced: "));
    assert_int_equal (drover_store_save_service (old, "web", (byte *) "d", 1, text,
                                                   sizeof text), -1);
    assert_int_equal (drover_store_prune (old, 0, 0, 0, 1, 10, text, sizeof text), -1);
    assert_true (drover_store_fenced (old));
    drover_store_destroy (&old);

    //  The new leader writes; what the old one tried is nowhere
    drover_change_t *next [] = { testutil_queued_owned (2, 2, "two") };
    assert_int_equal (testutil_apply (new, next, 1, text), 0);
    assert_false (drover_store_fenced (new));
    testutil_loaded_t loaded = { { NULL }, 0 };
    assert_int_equal (testutil_load (new, 10, &loaded), 2);
    assert_int_equal (loaded.changes [0]->state, DROVER_TASK_QUEUED);
    assert_string_equal (loaded.changes [1]->submit->key, "two");
    testutil_loaded_free (&loaded);
    testutil_admins_t admins = { .count = 0 };
    assert_int_equal (drover_store_load_admin (new, testutil_take_admin, &admins, text,
                                                 sizeof text), 0);

    //  An older token is refused at open; the same token again is not
    char *error = NULL;
    drover_store_t *older = drover_store_open_postgres (s_server.db_uri, 3, &error);
    assert_null (older);
    assert_non_null (error);
    assert_string_equal (error, "fenced: the state is held by a newer leader (token 7 > fence 3)");
    zstr_free (&error);
    drover_store_t *again = s_open (7);
    drover_store_destroy (&again);
    drover_store_destroy (&new);
    s_passed ();
}

//  A batch that fails midway (a key already kept) keeps nothing: no task,
//  no event, meta unchanged; a batch tried again after it is kept once
static void
test_failed_batch_keeps_nothing (void **state)
{
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_t *backend = s_open (0);
    drover_change_t *first [] = { testutil_queued_owned (1, 1, "same") };
    assert_int_equal (testutil_apply (backend, first, 1, text), 0);
    drover_change_t *bad [] = {
        testutil_queued_owned (2, 2, NULL),
        testutil_attempt ("task.assigned", 1, 3, DROVER_TASK_ASSIGNED, 1, "w1"),
        testutil_queued_owned (3, 4, "same"),
    };
    assert_int_equal (testutil_apply (backend, bad, 3, text), -1);
    assert_non_null (strstr (text, "postgresql 127.0.0.1:"));
    assert_non_null (strstr (text, "duplicate key"));
    assert_false (drover_store_fenced (backend));
    assert_int_equal (drover_store_meta (backend)->next_task, 2);
    //  The same batch twice (its commit's answer lost): kept once
    drover_change_t *good [] = { testutil_queued_owned (2, 2, NULL) };
    assert_int_equal (testutil_apply (backend, good, 1, text), 0);
    drover_change_t *again [] = { testutil_queued_owned (2, 2, NULL) };
    assert_int_equal (testutil_apply (backend, again, 1, text), 0);
    drover_store_destroy (&backend);

    backend = s_open (0);
    assert_int_equal (drover_store_meta (backend)->next_seq, 3);
    testutil_loaded_t loaded = { { NULL }, 0 };
    assert_int_equal (testutil_load (backend, 10, &loaded), 2);
    assert_int_equal (loaded.changes [0]->state, DROVER_TASK_QUEUED);
    testutil_loaded_free (&loaded);
    testutil_replayed_t replayed = { .count = 0 };
    assert_int_equal (drover_store_replay (backend, 0, 100, testutil_take_event, &replayed,
                                             text, sizeof text), 2);
    drover_store_destroy (&backend);
    s_passed ();
}

//  The server stops under a writer: the write fails with a text naming
//  the server, nothing of it kept; once the server is back, the next
//  write connects again and goes through
static void
test_server_stopped (void **state)
{
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_t *backend = s_open (4);
    drover_change_t *first [] = { testutil_queued_owned (1, 1, NULL) };
    assert_int_equal (testutil_apply (backend, first, 1, text), 0);
    char output [256], port [16];
    snprintf (port, sizeof port, "%d", s_server.port);
    assert_int_equal (s_script ("halt", NULL, output, sizeof output), 0);
    drover_change_t *lost [] = {
        testutil_queued_owned (2, 2, NULL), testutil_queued_owned (3, 3, NULL)
    };
    assert_int_equal (testutil_apply (backend, lost, 2, text), -1);
    assert_non_null (strstr (text, "postgresql 127.0.0.1:"));
    assert_false (drover_store_fenced (backend));
    //  Still down: refused again, at once
    drover_change_t *refused [] = { testutil_queued_owned (2, 2, NULL) };
    assert_int_equal (testutil_apply (backend, refused, 1, text), -1);
    assert_non_null (strstr (text, "cannot connect"));
    assert_int_equal (s_script ("start", port, output, sizeof output), 0);
    drover_change_t *later [] = { testutil_queued_owned (4, 4, NULL) };
    if (testutil_apply (backend, later, 1, text))
        fail_msg ("apply after the restart: %s", text);
    drover_store_destroy (&backend);

    backend = s_open (4);
    testutil_loaded_t loaded = { { NULL }, 0 };
    assert_int_equal (testutil_load (backend, 10, &loaded), 2);
    assert_int_equal (loaded.changes [0]->task, 1);
    assert_int_equal (loaded.changes [1]->task, 4);
    testutil_loaded_free (&loaded);
    drover_store_destroy (&backend);
    s_passed ();
}

//  A bad URI, a server that is not there, a database that holds another
//  program's tables: each refused with a clear text, no password shown
static void
test_bad_conninfo (void **state)
{
    char *error = NULL;
    assert_null (drover_store_open_postgres ("postgresql://x:secret@[bad", 0, &error));
    assert_non_null (error);
    assert_non_null (strstr (error, "invalid PostgreSQL URI"));
    assert_null (strstr (error, "secret"));
    zstr_free (&error);
    char uri [128];
    snprintf (uri, sizeof uri, "postgresql://drover:secret@127.0.0.1:%d/drover",
              testutil_free_port ());
    assert_null (drover_store_open_postgres (uri, 0, &error));
    assert_non_null (error);
    assert_non_null (strstr (error, "cannot connect"));
    assert_non_null (strstr (error, "postgresql 127.0.0.1:"));
    assert_null (strstr (error, "secret"));
    zstr_free (&error);
    snprintf (uri, sizeof uri, "postgresql://drover@127.0.0.1:%d/nosuchdb", s_server.port);
    assert_null (drover_store_open_postgres (uri, 0, &error));
    assert_non_null (strstr (error, "nosuchdb"));
    zstr_free (&error);
    //  Another program's drover_meta
    s_sql (s_server.db_uri, "CREATE TABLE drover_meta (name text PRIMARY KEY, value text)");
    s_sql (s_server.db_uri, "INSERT INTO drover_meta VALUES ('format', 'something else')");
    assert_null (drover_store_open_postgres (s_server.db_uri, 0, &error));
    assert_non_null (strstr (error, "not a drover state"));
    zstr_free (&error);

    testutil_assert_and_free (drover_store_printable ("postgresql://u:pw@h:5/db?x=1"),
                              "postgresql://u:***@h:5/db?x=1");
    testutil_assert_and_free (drover_store_printable ("postgres://u:p@w@h/db"),
                              "postgres://u:***@h/db");
    testutil_assert_and_free (drover_store_printable ("postgresql://u@h/db"),
                              "postgresql://u@h/db");
    testutil_assert_and_free (drover_store_printable ("postgresql://h:5/db@x"),
                              "postgresql://h:5/db@x");
    testutil_assert_and_free (drover_store_printable ("/var/lib/a:b@c"), "/var/lib/a:b@c");
    assert_true (drover_store_is_postgres ("postgresql://a/b"));
    assert_true (drover_store_is_postgres ("postgres://a/b"));
    assert_false (drover_store_is_postgres ("/var/lib/drover"));
    assert_false (drover_store_is_postgres (NULL));
    drover_store_t *memory = drover_store_open_memory ();
    assert_false (drover_store_fenced (memory));
    drover_store_destroy (&memory);
    s_passed ();
}

//  What the store actor said, by command word
typedef struct {
    bool loaded;                    //  LOADED heard
    int fenced;                     //  FENCED heard, times
    char why [DROVER_STORE_ERROR_MAX];    //  FENCED's text
} s_heard_t;

static void
s_hear (void *arg, zmsg_t *msg)
{
    s_heard_t *heard = (s_heard_t *) arg;
    char *word = zmsg_popstr (msg);
    if (streq (word, "LOADED"))
        heard->loaded = true;
    else
    if (streq (word, "FENCED")) {
        heard->fenced++;
        char *why = zmsg_popstr (msg);
        snprintf (heard->why, sizeof heard->why, "%s", why? why: "");
        zstr_free (&why);
    }
    zstr_free (&word);
}

//  Read what the store says for up to timeout msec, or until until is true
static void
s_listen (zactor_t *store, s_heard_t *heard, int timeout, bool *until)
{
    int64_t deadline = zclock_mono () + timeout;
    zpoller_t *poller = zpoller_new (store, NULL);
    while (!*until && zclock_mono () < deadline)
        if (zpoller_wait (poller, (int) (deadline - zclock_mono ())))
            drover_outbox_receive (zactor_sock (store), 0, s_hear, NULL, heard);
    zpoller_destroy (&poller);
}

//  Say KEEPADMIN worker HOLD to the store, as schedq does
static void
s_keep_admin (zactor_t *store, const char *worker)
{
    zmsg_t *msg = zmsg_new ();
    zmsg_addstr (msg, "KEEPADMIN");
    zmsg_addstr (msg, worker);
    zmsg_addstrf (msg, "%d", DROVER_ADMIN_HOLD);
    zmsg_addstr (msg, "0");
    zmsg_addstr (msg, "held");
    zmsg_addstr (msg, "1000");
    zmsg_send (&msg, store);
}

//  The store on a PostgreSQL URI with a fencing token: it opens the
//  postgresql backend; once a newer leader claims the state, its next
//  write is refused and it says FENCED once, with the text, however many
//  writes fail after; a store with an older token does not open
static void
test_store_says_fenced (void **state)
{
    drover_store_actor_args_t args = {
        .state_dir = s_server.db_uri, .fence = 10, .durability = DROVER_DURABILITY_FULL,
        .keep_finished = 100, .history_count = 1000, .history_age = 3600,
        .history_events = 1000
    };
    zactor_t *store = zactor_new (drover_store_actor, &args);
    char *word = NULL, *text = NULL;
    uint32_t opened = 0;
    assert_int_equal (zsock_recv (store, "s4s", &word, &opened, &text), 0);
    assert_string_equal (word, "OPENED");
    assert_int_equal (opened, 1);
    assert_string_equal (text, "postgresql");
    zstr_free (&word);
    zstr_free (&text);
    s_heard_t heard = { .loaded = false };
    s_listen (store, &heard, 5000, &heard.loaded);
    assert_true (heard.loaded);
    s_keep_admin (store, "node-a");             //  kept: not fenced yet
    //  Seen kept by a reader (fence 0 claims nothing) before the claim
    drover_store_t *reader = s_open (0);
    char text_error [DROVER_STORE_ERROR_MAX];
    testutil_admins_t admins = { .count = 0 };
    int64_t deadline = zclock_mono () + 5000;
    while (admins.count == 0 && zclock_mono () < deadline) {
        assert_true (drover_store_load_admin (reader, testutil_take_admin, &admins, text_error,
                                                sizeof text_error) >= 0);
        bool never = false;
        if (admins.count == 0)
            s_listen (store, &heard, 20, &never);   //  20 msec on the store's pipe
    }
    assert_int_equal (admins.count, 1);
    drover_store_destroy (&reader);

    drover_store_t *newer = s_open (11);
    s_keep_admin (store, "node-b");
    s_keep_admin (store, "node-c");
    bool fenced = false;
    deadline = zclock_mono () + 5000;
    while (!fenced && zclock_mono () < deadline) {
        s_listen (store, &heard, 100, &fenced);
        fenced = heard.fenced > 0;
    }
    assert_int_equal (heard.fenced, 1);
    assert_string_equal (heard.why,
                         "fenced: the state is held by a newer leader (token 11 > fence 10)");
    s_keep_admin (store, "node-d");
    bool never = false;
    s_listen (store, &heard, 300, &never);
    assert_int_equal (heard.fenced, 1);     //  said once
    zactor_destroy (&store);

    admins.count = 0;
    assert_int_equal (drover_store_load_admin (newer, testutil_take_admin, &admins, text_error,
                                                 sizeof text_error), 1);
    assert_string_equal (admins.worker [0], "node-a");
    drover_store_destroy (&newer);

    store = zactor_new (drover_store_actor, &args);
    assert_int_equal (zsock_recv (store, "s4s", &word, &opened, &text), 0);
    assert_int_equal (opened, 0);
    assert_non_null (strstr (text, "fenced: "));
    zstr_free (&word);
    zstr_free (&text);
    zactor_destroy (&store);
    s_passed ();
}

//  A real broker on a PostgreSQL state (durability full), killed with
//  SIGKILL and started again on the same database, loses nothing it
//  acknowledged: the queued tasks come back with their ids and state id,
//  ids go on past them, and a worker that comes later runs each once
static void
test_broker_restart_on_postgres (void **state)
{
    const char *flags [] = { "--state-dir", s_server.db_uri, NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    assert_true (testutil_await_line (testutil_cluster_log (cluster, "broker"),
                                      "backend=postgresql", 1000));
    zsock_t *client = testutil_dealer (cluster);
    enum { S_TASKS = 50 };
    uint64_t ids [S_TASKS + 1];
    for (int index = 0; index < S_TASKS; index++)
        ids [index] = testutil_submit (client, testutil_submit_msg ("true", 0, 1, 0));

    testutil_cluster_kill_restart (cluster, flags);
    zsock_destroy (&client);
    client = testutil_dealer (cluster);
    drover_msg_t *list = drover_msg_new (DROVER_MSG_TASK_LIST);
    list->state = 255;
    list->limit = 10;
    drover_msg_t *table = testutil_request (client, &list, 10000);
    assert_non_null (table);
    assert_int_equal (table->id, DROVER_MSG_TASK_TABLE);
    assert_int_equal (table->counts [DROVER_TASK_QUEUED], S_TASKS);
    drover_msg_destroy (&table);
    ids [S_TASKS] = testutil_submit (client, testutil_submit_msg ("true", 0, 1, 0));
    assert_true (ids [S_TASKS] > ids [S_TASKS - 1]);

    drover_msg_t *wait = testutil_wait_msg (ids, S_TASKS + 1);
    drover_msg_t *ok = testutil_request (client, &wait, 10000);
    assert_non_null (ok);
    assert_int_equal (ok->code, 200);
    drover_msg_destroy (&ok);
    testutil_cluster_add_worker (cluster, 0, "w-pg", 4, NULL);
    testutil_expect_all_succeeded (client, ids, S_TASKS + 1, 60000);
    zsock_destroy (&client);
    testutil_cluster_destroy (&cluster);

    //  What the database holds: every task, final
    drover_store_t *backend = s_open (0);
    testutil_loaded_t loaded = { { NULL }, 0 };
    assert_int_equal (testutil_load (backend, 1000, &loaded), S_TASKS + 1);
    for (size_t index = 0; index < loaded.count; index++)
        assert_int_equal (loaded.changes [index]->state, DROVER_TASK_SUCCEEDED);
    testutil_loaded_free (&loaded);
    drover_store_destroy (&backend);
    s_passed ();
}

//  A leader stopped while it sent a transaction holds the fence row's lock
//  (here: a connection that locked it and says nothing more): the server
//  ends that transaction within 2 s, so the next leader's claim goes
//  through without waiting for the stopped one to wake, and the stopped
//  one's later write is refused
static void
test_stalled_leader_does_not_block_claim (void **state)
{
    drover_store_t *old = s_open (5);
    char *error = NULL;
    char text [DROVER_STORE_ERROR_MAX];
    drover_pgconn_t *stalled = drover_pgconn_new (s_server.db_uri, &error);
    assert_non_null (stalled);
    assert_int_equal (drover_pgconn_begin (stalled, text, sizeof text), 0);
    drover_pgconn_send_sql (stalled, "BEGIN", NULL, false);
    drover_pgconn_send_sql (stalled, "SELECT drover_fence_check (5)", NULL, false);
    assert_int_equal (drover_pgconn_sync (stalled, text, sizeof text), 0);

    int64_t started = zclock_mono ();
    drover_store_t *new = s_open (6);
    int64_t waited = zclock_mono () - started;
    assert_true (waited < 5000);
    drover_change_t *late [] = { testutil_queued_owned (1, 1, NULL) };
    assert_int_equal (testutil_apply (old, late, 1, text), -1);
    assert_true (drover_store_fenced (old));
    //  The stalled connection was ended by the server
    assert_int_equal (drover_pgconn_begin (stalled, text, sizeof text), 0);
    drover_pgconn_send_sql (stalled, "SELECT 1", NULL, false);
    drover_pgconn_sync (stalled, text, sizeof text);
    drover_pgconn_destroy (&stalled);
    drover_store_destroy (&new);
    drover_store_destroy (&old);
    s_passed ();
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup (test_round_trip, s_setup),
        cmocka_unit_test_setup (test_many_changes, s_setup),
        cmocka_unit_test_setup (test_admin_and_services, s_setup),
        cmocka_unit_test_setup (test_prune_bounded, s_setup),
        cmocka_unit_test_setup (test_fencing, s_setup),
        cmocka_unit_test_setup (test_failed_batch_keeps_nothing, s_setup),
        cmocka_unit_test_setup (test_server_stopped, s_setup),
        cmocka_unit_test_setup (test_bad_conninfo, s_setup),
        cmocka_unit_test_setup (test_store_says_fenced, s_setup),
        cmocka_unit_test_setup (test_broker_restart_on_postgres, s_setup),
        cmocka_unit_test_setup (test_stalled_leader_does_not_block_claim, s_setup),
    };
    return cmocka_run_group_tests (tests, s_group_setup, s_group_teardown);
}
