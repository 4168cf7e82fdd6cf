/*  =========================================================================
    test_drover_sqlite_fresh - format 7 of the store's SQLite state: a
    fresh task (plain, QUEUED, untouched since its insert) loaded by its
    packed fields, as a TASK SUBMIT and as a record, equal to what was
    submitted; an update making it stale; fresh and other tasks merged by
    id through the gaps between fresh ids; a damaged packed column
    refused; and a state of format 6 with tasks of each kind upgraded at
    open (one column added) and loaded equal to before
    =========================================================================
*/

#include "testutil_statedir.h"
#include "testutil_backend.h"
#include "drover_taskrecord.h"
#include "drover_devicelist.h"
#include <sqlite3.h>

//  Describe a loaded change, every field load sets, as one line (ours)
static char *
s_describe (const drover_change_t *change)
{
    const drover_msg_t *submit = change->submit;
    assert_non_null (submit);
    char labels [DROVER_LABELS_MAX * (DROVER_LABEL_MAX + 1)] = "";
    size_t length = 0;
    for (uint32_t index = 0; index < submit->nlabels; index++)
        length += (size_t) snprintf (labels + length, sizeof labels - length, "%s;",
                                     submit->labels [index]);
    uint64_t body_sum = 0;
    for (size_t index = 0; index < submit->body_size; index++)
        body_sum = body_sum * 31 + submit->body [index];
    uint64_t after_sum = 0;
    for (uint32_t index = 0; index < submit->nafter; index++)
        after_sum = after_sum * 31 + submit->after [index].task + submit->after [index].kind;
    char devices [DROVER_DEVICELIST_TEXT_MAX];
    drover_devicelist_format (submit->devices, submit->ndevices, devices);
    const drover_msg_t *done = change->done;
    return zsys_sprintf (
        "task=%" PRIu64 " state=%d attempt=%u worker=%s retries_left=%u lost=%u"
        " queued=%" PRId64 " offered=%" PRId64 " started=%" PRId64 " ended=%" PRId64
        " waits=%d due=%" PRId64 " group=%" PRIu64 " made=%u owner=%s assigned=%s"
        " history=%zu | key=%s priority=%d procs=%u mem=%" PRIu64 " timeout=%u retries=%u"
        " flags=%u labels=%s body=%zu/%" PRIu64 " principal=%s service=%s slot=%u"
        " affinity=%s after=%u/%" PRIu64 " begin=%" PRIu64 " delay=%u/%u array=%u/%u/%u/%u"
        " devices=%s | done=%d end=%d exit=%d out=%zu reason=%s",
        change->task, change->state, change->attempt, change->worker, change->retries_left,
        change->lost, change->queued_at, change->offered_at, change->started_at,
        change->ended_at, change->waits, change->due_at, change->group, change->made,
        change->owner, change->assigned? change->assigned: "-", change->history_size,
        submit->key? submit->key: "-", submit->priority, submit->procs, submit->mem,
        submit->timeout, submit->retries, submit->flags, labels, submit->body_size, body_sum,
        submit->principal, submit->service, submit->slot,
        submit->affinity? submit->affinity: "-", submit->nafter, after_sum, submit->begin,
        submit->retry_delay, submit->retry_max_delay, submit->array.first, submit->array.step,
        submit->array.count, submit->array.limit, devices, done? done->state: -1,
        done? done->end: -1, done? done->exit_code: -1, done? done->out_size: 0,
        done && done->reason? done->reason: "-");
}

//  Load every task (and up to 10 final ones) and describe each, in order
static void
s_load_described (drover_store_t *backend, char **lines, size_t *count)
{
    testutil_loaded_t loaded = { .count = 0 };
    *count = (size_t) testutil_load (backend, 10, &loaded);
    for (size_t index = 0; index < *count; index++)
        lines [index] = s_describe (loaded.changes [index]);
    testutil_loaded_free (&loaded);
}

//  A fresh task with every small field set, and one with none
static drover_change_t *
s_fresh_full (uint64_t task, uint64_t seq)
{
    drover_change_t *change = testutil_queued (task, seq, "k-full");
    drover_msg_t *submit = change->submit;
    submit->priority = -2000000000;
    submit->procs = 300000;
    submit->mem = 1ull << 40;
    submit->flags |= DROVER_SUBMIT_PREEMPTIBLE;
    assert_int_equal (drover_devicelist_parse ("gpu=2,fpga=1", submit->devices, NULL), 2);
    submit->ndevices = 2;
    snprintf (change->owner, sizeof change->owner, "carol");
    change->queued_at = 1796000000123;
    return change;
}

static drover_change_t *
s_fresh_bare (uint64_t task, uint64_t seq)
{
    drover_change_t *change = testutil_change ("task.queued", task, seq, DROVER_TASK_QUEUED);
    change->retries_left = 0;
    drover_msg_t *submit = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    submit->procs = 1;
    drover_msg_set_body (submit, (const byte *) "x", 1);
    change->submit = submit;
    return change;
}

//  Fresh tasks come back as submitted: as TASK SUBMITs, and as records
static void
test_fresh_round_trip (void **state)
{
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_t *backend = testutil_statedir_open (dirs);
    drover_change_t *batch [] = { s_fresh_full (1, 1), s_fresh_bare (2, 2),
                                  testutil_queued (3, 3, NULL) };
    assert_int_equal (testutil_apply (backend, batch, 3, text), 0);
    drover_store_destroy (&backend);
    assert_int_equal (testutil_statedir_query_int (dirs->file,
                      "SELECT count (*) FROM tasks"
                      " WHERE fresh IS NOT NULL"), 3);
    assert_int_equal (testutil_statedir_query_int (dirs->file,
                      "SELECT length (fresh) FROM tasks"
                      " WHERE id = 1"), 47);
    //  A plain command's one byte is kept as the integer 1
    assert_int_equal (testutil_statedir_query_int (dirs->file,
                      "SELECT fresh FROM tasks WHERE id = 2"), 1);
    assert_int_equal (testutil_statedir_query_int (dirs->file,
                      "SELECT typeof (fresh) = 'integer' FROM tasks"
                      " WHERE id = 2"), 1);

    backend = testutil_statedir_open (dirs);
    testutil_loaded_t loaded = { .count = 0 };
    assert_int_equal (testutil_load (backend, 10, &loaded), 3);
    drover_change_t *full = loaded.changes [0];
    assert_int_equal (full->task, 1);
    assert_int_equal (full->state, DROVER_TASK_QUEUED);
    assert_int_equal (full->retries_left, 2);
    assert_int_equal (full->queued_at, 1796000000123);
    assert_string_equal (full->owner, "carol");
    drover_msg_t *submit = full->submit;
    assert_string_equal (submit->key, "k-full");
    assert_string_equal (submit->principal, "carol");
    assert_int_equal (submit->priority, -2000000000);
    assert_int_equal (submit->procs, 300000);
    assert_int_equal (submit->mem, 1ull << 40);
    assert_int_equal (submit->timeout, 60000);
    assert_int_equal (submit->retries, 2);
    assert_int_equal (submit->flags, DROVER_SUBMIT_NOTIFY | DROVER_SUBMIT_PREEMPTIBLE);
    assert_int_equal (submit->nlabels, 2);
    assert_string_equal (submit->labels [0], "gpu=no");
    assert_string_equal (submit->labels [1], "zone=b");
    assert_int_equal (submit->ndevices, 2);
    assert_string_equal (submit->devices [0].name, "fpga");
    assert_int_equal (submit->body_size, 100);
    assert_int_equal (submit->body [7], 8);
    drover_change_t *bare = loaded.changes [1];
    assert_int_equal (bare->submit->procs, 1);
    assert_int_equal (bare->submit->priority, 0);
    assert_int_equal (bare->submit->nlabels, 0);
    assert_null (bare->submit->key);
    assert_string_equal (bare->owner, "");
    testutil_assert_submit (loaded.changes [2], 3, NULL);
    testutil_loaded_free (&loaded);

    //  As records, the same fields
    drover_store_set_records (backend, true);
    assert_int_equal (testutil_load (backend, 10, &loaded), 3);
    drover_taskrecord_t *record = loaded.changes [0]->record;
    assert_non_null (record);
    assert_null (loaded.changes [0]->submit);
    assert_int_equal (record->id, 1);
    assert_int_equal (record->priority, -2000000000);
    assert_int_equal (record->procs, 300000);
    assert_int_equal (drover_taskrecord_mem (record), 1ull << 40);
    assert_int_equal (drover_taskrecord_timeout (record), 60000);
    assert_int_equal (drover_taskrecord_retries (record), 2);
    assert_true (record->preemptible);
    assert_string_equal (drover_taskrecord_key (record), "k-full");
    assert_string_equal (drover_taskrecord_labels (record), "gpu=no\nzone=b");
    assert_string_equal (drover_taskrecord_devices (record), "fpga=1,gpu=2");
    assert_int_equal (record->body_size, 100);
    assert_string_equal (loaded.changes [0]->owner, "carol");
    assert_int_equal (loaded.changes [1]->record->procs, 1);
    testutil_loaded_free (&loaded);
    drover_store_destroy (&backend);
}

//  A task an update touched is no longer fresh, and one whose submit and
//  first attempt share a batch never was: both load by their columns
static void
test_update_makes_stale (void **state)
{
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_t *backend = testutil_statedir_open (dirs);
    drover_change_t *first [] = {
        testutil_queued (1, 1, NULL), testutil_queued (2, 2, NULL),
        testutil_attempt ("task.assigned", 2, 3, DROVER_TASK_ASSIGNED, 1, "w1")
    };
    assert_int_equal (testutil_apply (backend, first, 3, text), 0);
    drover_store_destroy (&backend);
    assert_int_equal (testutil_statedir_query_int (dirs->file,
                      "SELECT count (*) FROM tasks"
                      " WHERE fresh IS NOT NULL"), 1);
    backend = testutil_statedir_open (dirs);
    drover_change_t *second [] = {
        testutil_attempt ("task.assigned", 1, 4, DROVER_TASK_ASSIGNED, 1, "w2")
    };
    assert_int_equal (testutil_apply (backend, second, 1, text), 0);
    drover_store_destroy (&backend);
    assert_int_equal (testutil_statedir_query_int (dirs->file,
                      "SELECT count (*) FROM tasks"
                      " WHERE fresh IS NOT NULL"), 0);
    backend = testutil_statedir_open (dirs);
    //  Back to QUEUED (its worker lost): still read by its columns
    drover_change_t *third [] = {
        testutil_change ("task.requeued", 1, 5, DROVER_TASK_QUEUED)
    };
    third [0]->attempt = 1;
    third [0]->lost = 1;
    assert_int_equal (testutil_apply (backend, third, 1, text), 0);
    drover_store_destroy (&backend);

    backend = testutil_statedir_open (dirs);
    testutil_loaded_t loaded = { .count = 0 };
    assert_int_equal (testutil_load (backend, 10, &loaded), 2);
    assert_int_equal (loaded.changes [0]->state, DROVER_TASK_QUEUED);
    assert_int_equal (loaded.changes [0]->attempt, 1);
    assert_int_equal (loaded.changes [0]->lost, 1);
    testutil_assert_submit (loaded.changes [0], 1, NULL);
    assert_int_equal (loaded.changes [1]->state, DROVER_TASK_ASSIGNED);
    assert_string_equal (loaded.changes [1]->worker, "w1");
    testutil_loaded_free (&loaded);
    drover_store_destroy (&backend);
}

//  Fresh tasks, others and final ones interleaved by id all load, in id
//  order: the others are found in the gaps between fresh ids, before the
//  first, after the last
static void
test_gaps_merged (void **state)
{
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_t *backend = testutil_statedir_open (dirs);
    //  1 running, 2-3 fresh, 4 final, 5 workflow, 6 fresh, 7-8 running, 9
    //  fresh, 10 a replica
    uint64_t seq = 1;
    for (uint64_t task = 1; task <= 10; task++) {
        drover_change_t *change = task == 5? testutil_queued_workflow (task, seq++)
                                : task == 10? testutil_queued_owned (task, seq++, NULL)
                                : testutil_queued (task, seq++, NULL);
        assert_int_equal (testutil_apply (backend, &change, 1, text), 0);
    }
    uint64_t running [] = { 1, 7, 8 };
    for (size_t index = 0; index < 3; index++) {
        drover_change_t *change = testutil_attempt ("task.running", running [index], seq++,
                                                    DROVER_TASK_RUNNING, 1, "w1");
        assert_int_equal (testutil_apply (backend, &change, 1, text), 0);
    }
    drover_change_t *final = testutil_final (4, seq++, DROVER_TASK_SUCCEEDED, DROVER_END_SUCCEEDED,
                                             1, "done");
    assert_int_equal (testutil_apply (backend, &final, 1, text), 0);
    drover_store_destroy (&backend);
    assert_int_equal (testutil_statedir_query_int (dirs->file,
                      "SELECT count (*) FROM tasks"
                      " WHERE fresh IS NOT NULL"), 4);

    int states [] = { DROVER_TASK_RUNNING, DROVER_TASK_QUEUED, DROVER_TASK_QUEUED,
                      DROVER_TASK_SUCCEEDED, DROVER_TASK_QUEUED, DROVER_TASK_QUEUED,
                      DROVER_TASK_RUNNING, DROVER_TASK_RUNNING, DROVER_TASK_QUEUED,
                      DROVER_TASK_QUEUED };
    backend = testutil_statedir_open (dirs);
    for (int records = 0; records < 2; records++) {
        drover_store_set_records (backend, records);
        testutil_loaded_t loaded = { .count = 0 };
        assert_int_equal (testutil_load (backend, 10, &loaded), 10);
        for (uint64_t index = 0; index < 10; index++) {
            assert_int_equal (loaded.changes [index]->task, index + 1);
            assert_int_equal (loaded.changes [index]->state, states [index]);
        }
        testutil_assert_workflow_submit (loaded.changes [4]);
        assert_string_equal (loaded.changes [9]->submit->service, "web");
        testutil_loaded_free (&loaded);
        //  Without the final ones kept
        assert_int_equal (testutil_load (backend, 0, &loaded), 9);
        testutil_loaded_free (&loaded);
    }
    drover_store_destroy (&backend);
}

//  A packed column that is not one is a damaged state: load refuses it
static void
test_damaged_fresh_refused (void **state)
{
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
    const char *damages [] = {
        "UPDATE tasks SET fresh = x'00' WHERE id = 1",             //  cut short
        "UPDATE tasks SET fresh = x'' WHERE id = 1",
        "UPDATE tasks SET fresh = x'800002' WHERE id = 1",         //  bytes past its end
        "UPDATE tasks SET fresh = x'00000200' WHERE id = 1",       //  a byte past its end
        "UPDATE tasks SET fresh = x'000002ffffffffffff' WHERE id = 1",
        "UPDATE tasks SET fresh = x'4000026f776e6572' WHERE id = 1",   //  unknown flag
        "UPDATE tasks SET fresh = x'20000267707500' WHERE id = 1",     //  devices "gpu"
        "UPDATE tasks SET fresh = x'000080808080808001' WHERE id = 1", //  procs too large
        "UPDATE tasks SET fresh = 2 WHERE id = 1",                 //  an integer not 1
        "UPDATE tasks SET fresh = 'x' WHERE id = 1",               //  text
    };
    testutil_statedir_make (dirs, 2);
    for (size_t index = 0; index < sizeof damages / sizeof damages [0]; index++) {
        testutil_statedir_sql_file (dirs->file, damages [index]);
        testutil_statedir_assert_refused (dirs);
    }
    //  Mended (read by its columns), it loads again
    testutil_statedir_sql_file (dirs->file, "UPDATE tasks SET fresh = NULL WHERE id = 1");
    drover_store_t *backend = testutil_statedir_open (dirs);
    testutil_loaded_t loaded = { .count = 0 };
    assert_int_equal (testutil_load (backend, 10, &loaded), 2);
    testutil_assert_submit (loaded.changes [0], 1, NULL);
    testutil_assert_submit (loaded.changes [1], 2, NULL);
    testutil_loaded_free (&loaded);
    drover_store_destroy (&backend);
}

//  Tasks of each kind: plain queued (1, and 2 keyed), running (3),
//  final (4), a workflow's (5), a service's replica (6), with devices (7)
static void
s_apply_kinds (drover_store_t *backend)
{
    char text [DROVER_STORE_ERROR_MAX];
    drover_change_t *submitted [] = {
        testutil_queued (1, 1, NULL), testutil_queued (2, 2, "key-2"),
        testutil_queued (3, 3, NULL), testutil_queued (4, 4, NULL),
        testutil_queued_workflow (5, 5), testutil_queued_owned (6, 6, NULL),
        s_fresh_full (7, 7)
    };
    for (size_t index = 0; index < 7; index++) {
        submitted [index]->time = 1000 + index;         //  the same in every state made
        submitted [index]->queued_at = 1000 + (int64_t) index;
    }
    assert_int_equal (testutil_apply (backend, submitted, 7, text), 0);
    drover_change_t *later [] = {
        testutil_attempt ("task.running", 3, 8, DROVER_TASK_RUNNING, 1, "w1"),
        testutil_final (4, 9, DROVER_TASK_FAILED, DROVER_END_FAILED, 1, "oops")
    };
    later [0]->time = 2000;
    later [1]->time = 2001;
    later [1]->ended_at = 2001;
    assert_int_equal (testutil_apply (backend, later, 2, text), 0);
}

//  A state of format 6 (no fresh column; its rows as format 6 wrote
//  them) is upgraded at open by one added column: every task loads as
//  before, new ones are fresh, and the file says format 7
static void
test_format_6_upgraded (void **state)
{
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
    drover_store_t *backend = testutil_statedir_open (dirs);
    s_apply_kinds (backend);
    drover_store_destroy (&backend);
    //  What format 6 read: every row by its columns
    testutil_statedir_sql_file (dirs->file, TESTUTIL_DROP_COLUMNS_7
                                "UPDATE meta SET value = 'drover-state 6'"
                                " WHERE name = 'format'");
    char *before [16];
    size_t before_count = 0;
    backend = testutil_statedir_open (dirs);
    drover_store_destroy (&backend);
    testutil_assert_and_free (testutil_statedir_format (dirs->file), "drover-state 7");
    assert_int_equal (testutil_statedir_query_int (dirs->file,
                      "SELECT count (*) FROM tasks"
                      " WHERE fresh IS NOT NULL"), 0);
    //  The same tasks made fresh, as format 7 writes them, load the same
    testutil_statedir_t fresh_dirs;
    memcpy (&fresh_dirs, dirs, sizeof fresh_dirs);
    snprintf (fresh_dirs.dir, sizeof fresh_dirs.dir, "%s/fresh", dirs->top);
    snprintf (fresh_dirs.file, sizeof fresh_dirs.file, "%s/state.db", fresh_dirs.dir);
    backend = testutil_statedir_open (&fresh_dirs);
    s_apply_kinds (backend);
    s_load_described (backend, before, &before_count);
    drover_store_destroy (&backend);
    assert_int_equal (before_count, 7);
    assert_int_equal (testutil_statedir_query_int (fresh_dirs.file,
                      "SELECT count (*) FROM tasks"
                      " WHERE fresh IS NOT NULL"), 3);

    backend = testutil_statedir_open (dirs);
    char *after [16];
    size_t after_count = 0;
    s_load_described (backend, after, &after_count);
    assert_int_equal (after_count, before_count);
    for (size_t index = 0; index < after_count; index++) {
        assert_string_equal (after [index], before [index]);
        zstr_free (&after [index]);
        zstr_free (&before [index]);
    }
    //  A task submitted after the upgrade is fresh, and loads with the rest
    char text [DROVER_STORE_ERROR_MAX];
    drover_change_t *more [] = { testutil_queued (8, 10, NULL) };
    assert_int_equal (testutil_apply (backend, more, 1, text), 0);
    drover_store_destroy (&backend);
    assert_int_equal (testutil_statedir_query_int (dirs->file,
                      "SELECT count (*) FROM tasks"
                      " WHERE fresh IS NOT NULL"), 1);
    backend = testutil_statedir_open (dirs);
    testutil_loaded_t loaded = { .count = 0 };
    assert_int_equal (testutil_load (backend, 10, &loaded), 8);
    testutil_assert_submit (loaded.changes [7], 8, NULL);
    testutil_loaded_free (&loaded);
    drover_store_destroy (&backend);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_fresh_round_trip, testutil_statedir_setup,
                                         testutil_statedir_teardown),
        cmocka_unit_test_setup_teardown (test_update_makes_stale, testutil_statedir_setup,
                                         testutil_statedir_teardown),
        cmocka_unit_test_setup_teardown (test_gaps_merged, testutil_statedir_setup,
                                         testutil_statedir_teardown),
        cmocka_unit_test_setup_teardown (test_damaged_fresh_refused, testutil_statedir_setup,
                                         testutil_statedir_teardown),
        cmocka_unit_test_setup_teardown (test_format_6_upgraded, testutil_statedir_setup,
                                         testutil_statedir_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
