/*  =========================================================================
    testutil_backend - what the backend tests share (see the header)
    =========================================================================
*/

#include "testutil_backend.h"
#include "drover_devicelist.h"

//  A change about task with seq and state after it (2 retries left)
drover_change_t *
testutil_change (const char *topic, uint64_t task, uint64_t seq, int state)
{
    drover_change_t *change = drover_change_new (topic, task);
    change->seq = seq;
    change->state = (uint8_t) state;
    change->retries_left = 2;
    return change;
}

//  A task.queued change with its submit: key (or NULL), a body, labels,
//  principal, service slot and affinity, queued at 500
drover_change_t *
testutil_queued (uint64_t task, uint64_t seq, const char *key)
{
    drover_change_t *change = testutil_change ("task.queued", task, seq, DROVER_TASK_QUEUED);
    drover_msg_t *submit = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    submit->priority = -3;
    submit->procs = 2;
    submit->mem = 5ull << 30;
    submit->timeout = 60000;
    submit->retries = 2;
    submit->flags = DROVER_SUBMIT_NOTIFY;
    submit->key = key? strdup (key): NULL;
    assert_int_equal (drover_msg_add_label (submit, "gpu=no"), 0);
    assert_int_equal (drover_msg_add_label (submit, "zone=b"), 0);
    char body [100];
    for (size_t index = 0; index < sizeof body; index++)
        body [index] = (char) (task + index);
    drover_msg_set_body (submit, (byte *) body, sizeof body);
    change->submit = submit;
    return change;
}

//  testutil_queued, with what format 4 keeps too: owned by alice, slot 3
//  of service web, affinity cache-7, queued at 500
drover_change_t *
testutil_queued_owned (uint64_t task, uint64_t seq, const char *key)
{
    drover_change_t *change = testutil_queued (task, seq, key);
    drover_msg_t *submit = change->submit;
    snprintf (submit->principal, sizeof submit->principal, "alice");
    snprintf (submit->service, sizeof submit->service, "web");
    submit->slot = 3;
    submit->affinity = strdup ("cache-7");
    change->queued_at = 500;
    return change;
}

//  A change to attempt on worker, offered at 600 and started at 700
drover_change_t *
testutil_attempt (const char *topic, uint64_t task, uint64_t seq, int state, uint32_t attempt,
                  const char *worker)
{
    drover_change_t *change = testutil_change (topic, task, seq, state);
    change->attempt = attempt;
    change->offered_at = 600;
    change->started_at = 700;
    snprintf (change->worker, sizeof change->worker, "%s", worker);
    return change;
}

//  A final change (attempt on w1) with its result: out on stdout, "oops"
//  on stderr
drover_change_t *
testutil_final (uint64_t task, uint64_t seq, int state, int end, uint32_t attempt,
                const char *out)
{
    drover_change_t *change = testutil_attempt (state == DROVER_TASK_SUCCEEDED?
                                                "task.succeeded": "task.failed",
                                                task, seq, state, attempt, "w1");
    drover_msg_t *done = drover_msg_new (DROVER_MSG_TASK_DONE);
    done->task = task;
    done->state = (uint8_t) state;
    done->end = (uint8_t) end;
    done->exit_code = state == DROVER_TASK_SUCCEEDED? 0: 3;
    done->duration = 1234;
    done->truncated = DROVER_TRUNC_STDERR;
    drover_msg_set_output (done, (byte *) out, strlen (out), (byte *) "oops", 4);
    drover_msg_set_reason (done, "exited 3");
    change->done = done;
    return change;
}

//  The first batch of a round trip
void
testutil_round_trip_batch (drover_change_t *batch [9], bool owned)
{
    batch [0] = testutil_change ("worker.up", 0, 1, 0);
    const char *keys [3] = { "key-1", NULL, "key-3" };
    for (uint64_t task = 1; task <= 3; task++)
        batch [task] = owned? testutil_queued_owned (task, task + 1, keys [task - 1])
                            : testutil_queued (task, task + 1, keys [task - 1]);
    batch [4] = testutil_attempt ("task.assigned", 2, 5, DROVER_TASK_ASSIGNED, 1, "w1");
    batch [5] = testutil_attempt ("task.assigned", 3, 6, DROVER_TASK_ASSIGNED, 1, "w1");
    batch [6] = testutil_attempt ("task.running", 2, 7, DROVER_TASK_RUNNING, 1, "w1");
    batch [7] = testutil_attempt ("task.running", 3, 8, DROVER_TASK_RUNNING, 1, "w1");
    batch [8] = testutil_final (3, 9, DROVER_TASK_SUCCEEDED, DROVER_END_SUCCEEDED, 1, "hello");
    snprintf (batch [0]->worker, sizeof batch [0]->worker, "w1");
    snprintf (batch [0]->reason, sizeof batch [0]->reason, "procs=4");
    batch [8]->time = 1000;
}

//  Check a loaded change's result is the FAILED one testutil_final made
void
testutil_assert_failed_result (const drover_change_t *change, const char *out)
{
    assert_non_null (change->done);
    assert_int_equal (change->done->end, DROVER_END_FAILED);
    assert_int_equal (change->done->exit_code, 3);
    assert_int_equal (change->done->duration, 1234);
    assert_int_equal (change->done->truncated, DROVER_TRUNC_STDERR);
    assert_int_equal (change->done->out_size, strlen (out));
    assert_memory_equal (change->done->out, out, strlen (out));
    assert_int_equal (change->done->err_size, 4);
    assert_memory_equal (change->done->err, "oops", 4);
    assert_string_equal (change->done->reason, "exited 3");
}

//  Apply changes (count of them) and destroy them; returns apply's result
int
testutil_apply (drover_store_t *backend, drover_change_t **changes, size_t count, char *error)
{
    int rc = drover_store_apply (backend, changes, count, error, DROVER_STORE_ERROR_MAX);
    for (size_t index = 0; index < count; index++)
        drover_change_destroy (&changes [index]);
    return rc;
}

//  Apply task as one batch: queued, or final at time ended if final
void
testutil_apply_task (drover_store_t *backend, uint64_t task, bool final, uint64_t ended)
{
    char text [DROVER_STORE_ERROR_MAX];
    drover_change_t *change = testutil_queued (task, task, NULL);
    if (final) {
        change->state = DROVER_TASK_SUCCEEDED;
        change->time = ended;
        change->done = drover_msg_new (DROVER_MSG_TASK_DONE);
    }
    drover_change_t *batch [] = { change };
    assert_int_equal (testutil_apply (backend, batch, 1, text), 0);
}

//  Prune all there is with max_rows a call; returns the calls that
//  deleted something
int
testutil_prune_all (drover_store_t *backend, uint64_t keep_count, uint64_t keep_age,
                    uint64_t keep_events, uint64_t now, size_t max_rows, int64_t *total)
{
    char text [DROVER_STORE_ERROR_MAX];
    int calls = 0;
    *total = 0;
    int64_t deleted;
    while ((deleted = drover_store_prune (backend, keep_count, keep_age, keep_events, now,
                                            max_rows, text, sizeof text)) > 0) {
        assert_true (deleted <= (int64_t) max_rows);
        *total += deleted;
        calls++;
        assert_true (calls < 1000);
    }
    if (deleted < 0)
        fail_msg ("prune: %s", text);
    assert_int_equal (deleted, 0);
    return calls;
}

//  Check a loaded task's submit against what testutil_queued made
void
testutil_assert_submit (drover_change_t *change, uint64_t task, const char *key)
{
    assert_string_equal (change->topic, "task.restored");
    assert_int_equal (change->task, task);
    drover_msg_t *submit = change->submit;
    assert_non_null (submit);
    assert_int_equal (submit->id, DROVER_MSG_TASK_SUBMIT);
    assert_int_equal (submit->priority, -3);
    assert_int_equal (submit->procs, 2);
    assert_int_equal (submit->mem, 5ull << 30);
    assert_int_equal (submit->timeout, 60000);
    assert_int_equal (submit->retries, 2);
    assert_int_equal (submit->flags, DROVER_SUBMIT_NOTIFY);
    if (key)
        assert_string_equal (submit->key, key);
    else
        assert_null (submit->key);
    assert_int_equal (submit->nlabels, 2);
    assert_string_equal (submit->labels [0], "gpu=no");
    assert_string_equal (submit->labels [1], "zone=b");
    assert_int_equal (submit->body_size, 100);
    for (size_t index = 0; index < 100; index++)
        assert_int_equal (submit->body [index], (byte) (task + index));
}

//  Check a loaded task's submit against what testutil_queued_owned made
void
testutil_assert_submit_owned (drover_change_t *change, uint64_t task, const char *key)
{
    testutil_assert_submit (change, task, key);
    drover_msg_t *submit = change->submit;
    assert_string_equal (submit->principal, "alice");
    assert_string_equal (submit->service, "web");
    assert_int_equal (submit->slot, 3);
    assert_string_equal (submit->affinity, "cache-7");
    assert_int_equal (change->queued_at, 500);
}

//  Keep one loaded task (load calls this with a testutil_loaded_t)
int
testutil_take_task (void *arg, drover_change_t **change_p)
{
    testutil_loaded_t *loaded = (testutil_loaded_t *) arg;
    if (loaded->count < TESTUTIL_LOADED_MAX) {
        loaded->changes [loaded->count] = *change_p;
        *change_p = NULL;
    }
    loaded->count++;
    return 0;
}

//  Destroy what was loaded and start counting again
void
testutil_loaded_free (testutil_loaded_t *loaded)
{
    for (size_t index = 0; index < loaded->count && index < TESTUTIL_LOADED_MAX; index++)
        drover_change_destroy (&loaded->changes [index]);
    loaded->count = 0;
}

//  Load every kept task into loaded (failing the test with load's text
//  if it fails); returns the count
int64_t
testutil_load (drover_store_t *backend, size_t max_final, testutil_loaded_t *loaded)
{
    char text [DROVER_STORE_ERROR_MAX];
    int64_t count = drover_store_load (backend, max_final, testutil_take_task, loaded, text,
                                         sizeof text);
    if (count < 0)
        fail_msg ("load: %s", text);
    return count;
}

//  Copy one replayed event (replay calls this with a testutil_replayed_t)
int
testutil_take_event (void *arg, const drover_event_t *event)
{
    testutil_replayed_t *replayed = (testutil_replayed_t *) arg;
    assert_true (replayed->count < 256);
    replayed->events [replayed->count++] = *event;
    return 0;
}

//  Copy one kept setting (load_admin calls this with a testutil_admins_t)
int
testutil_take_admin (void *arg, const drover_store_admin_t *admin)
{
    testutil_admins_t *admins = (testutil_admins_t *) arg;
    assert_true (admins->count < 4);
    size_t at = admins->count++;
    snprintf (admins->worker [at], sizeof admins->worker [at], "%s", admin->worker);
    admins->admin [at] = admin->admin;
    admins->flags [at] = admin->flags;
    snprintf (admins->reason [at], sizeof admins->reason [at], "%s", admin->reason);
    admins->since [at] = admin->since;
    return 0;
}

//  Copy one kept service (load_services calls this with a testutil_services_t)
int
testutil_take_service (void *arg, const char *name, const byte *def, size_t size)
{
    testutil_services_t *services = (testutil_services_t *) arg;
    assert_true (services->count < 4);
    assert_true (size < sizeof services->def [0]);
    size_t at = services->count++;
    snprintf (services->name [at], sizeof services->name [at], "%s", name);
    memcpy (services->def [at], def, size);
    services->def [at][size] = 0;
    return 0;
}

//  The after list testutil_queued_workflow gives: one entry of each kind,
//  ids that show the byte order, the last naming a workflow's step
static const drover_after_t
s_workflow_after [3] = {
    { DROVER_AFTER_OK, 12 },
    { DROVER_AFTER_ANY, 0x0102030405060708ull },
    { DROVER_AFTER_FAIL | DROVER_AFTER_STEP, 3 },
};

//  testutil_queued, with the workflow fields format 5 keeps
drover_change_t *
testutil_queued_workflow (uint64_t task, uint64_t seq)
{
    drover_change_t *change = testutil_queued (task, seq, NULL);
    drover_msg_t *submit = change->submit;
    submit->after = (drover_after_t *) zmalloc (sizeof s_workflow_after);
    memcpy (submit->after, s_workflow_after, sizeof s_workflow_after);
    submit->nafter = 3;
    submit->begin = 1796000000000;
    submit->retry_delay = 10000;
    submit->retry_max_delay = 600000;
    submit->array = (drover_array_spec_t) { .first = 5, .step = 3, .count = 1000000,
                                            .limit = 50 };
    change->waits = DROVER_WAITS_AFTER;
    change->due_at = 1796000000000;
    change->group = 90;
    change->made = 7;
    return change;
}

//  Check a loaded task's submit has testutil_queued_workflow's fields
void
testutil_assert_workflow_submit (const drover_change_t *change)
{
    drover_msg_t *submit = change->submit;
    assert_non_null (submit);
    assert_int_equal (submit->nafter, 3);
    assert_non_null (submit->after);
    for (size_t index = 0; index < 3; index++) {
        assert_int_equal (submit->after [index].kind, s_workflow_after [index].kind);
        assert_int_equal (submit->after [index].task, s_workflow_after [index].task);
    }
    assert_int_equal (submit->begin, 1796000000000);
    assert_int_equal (submit->retry_delay, 10000);
    assert_int_equal (submit->retry_max_delay, 600000);
    assert_int_equal (submit->array.first, 5);
    assert_int_equal (submit->array.step, 3);
    assert_int_equal (submit->array.count, 1000000);
    assert_int_equal (submit->array.limit, 50);
}

//  Apply the workflow round trip in two batches
void
testutil_workflow_apply (drover_store_t *backend, uint64_t first, uint64_t seq)
{
    char text [DROVER_STORE_ERROR_MAX];
    drover_change_t *submitted [] = {
        testutil_queued_workflow (first, seq),
        testutil_queued (first + 1, seq + 1, NULL),
        testutil_queued_workflow (first + 2, seq + 2)
    };
    if (testutil_apply (backend, submitted, 3, text))
        fail_msg ("apply: %s", text);
    drover_change_t *released = testutil_change ("task.released", first, seq + 3,
                                                 DROVER_TASK_QUEUED);
    released->group = 90;
    released->made = 9;
    drover_change_t *waiting = testutil_change ("task.waiting", first + 1, seq + 4,
                                                DROVER_TASK_QUEUED);
    waiting->waits = DROVER_WAITS_RETRY;
    waiting->due_at = 1796000005000;
    drover_change_t *failed = testutil_final (first + 2, seq + 5, DROVER_TASK_FAILED,
                                              DROVER_END_FAILED, 1, "x");
    failed->group = 90;
    failed->made = 11;
    drover_change_t *fourth = testutil_change ("task.released", first + 3, seq + 7,
                                               DROVER_TASK_QUEUED);
    fourth->group = 90;
    fourth->made = 3;
    drover_change_t *later [] = {
        released, waiting, failed, testutil_queued_workflow (first + 3, seq + 6), fourth
    };
    if (testutil_apply (backend, later, 5, text))
        fail_msg ("apply: %s", text);
}

//  Find task in loaded; fails the test if it is not there
static drover_change_t *
s_loaded_task (testutil_loaded_t *loaded, uint64_t task)
{
    for (size_t index = 0; index < loaded->count && index < TESTUTIL_LOADED_MAX; index++)
        if (loaded->changes [index]->task == task)
            return loaded->changes [index];
    fail_msg ("task %" PRIu64 " not loaded", task);
    return NULL;
}

//  Check the tasks testutil_workflow_apply applied came back
void
testutil_workflow_assert_loaded (testutil_loaded_t *loaded, uint64_t first)
{
    //  Released: its submit's fields kept, its wait over
    drover_change_t *change = s_loaded_task (loaded, first);
    testutil_assert_submit (change, first, NULL);
    testutil_assert_workflow_submit (change);
    assert_int_equal (change->waits, DROVER_WAITS_NONE);
    assert_int_equal (change->due_at, 0);
    assert_int_equal (change->group, 90);
    assert_int_equal (change->made, 9);

    //  No workflow fields: none come back; then waiting for a retry
    change = s_loaded_task (loaded, first + 1);
    testutil_assert_submit (change, first + 1, NULL);
    assert_int_equal (change->submit->nafter, 0);
    assert_null (change->submit->after);
    assert_int_equal (change->submit->begin, 0);
    assert_int_equal (change->submit->retry_delay, 0);
    assert_int_equal (change->submit->retry_max_delay, 0);
    assert_int_equal (change->submit->array.count, 0);
    assert_int_equal (change->waits, DROVER_WAITS_RETRY);
    assert_int_equal (change->due_at, 1796000005000);
    assert_int_equal (change->group, 0);
    assert_int_equal (change->made, 0);

    //  Final: the last change's fields, with its result
    change = s_loaded_task (loaded, first + 2);
    assert_int_equal (change->state, DROVER_TASK_FAILED);
    testutil_assert_failed_result (change, "x");
    testutil_assert_workflow_submit (change);
    assert_int_equal (change->waits, DROVER_WAITS_NONE);
    assert_int_equal (change->due_at, 0);
    assert_int_equal (change->group, 90);
    assert_int_equal (change->made, 11);

    //  Submitted and released in one batch: one INSERT of the last state
    change = s_loaded_task (loaded, first + 3);
    testutil_assert_workflow_submit (change);
    assert_int_equal (change->waits, DROVER_WAITS_NONE);
    assert_int_equal (change->due_at, 0);
    assert_int_equal (change->made, 3);
}

//  Apply the sharing round trip in two batches
void
testutil_sharing_apply (drover_store_t *backend, uint64_t first, uint64_t seq)
{
    char text [DROVER_STORE_ERROR_MAX];
    drover_change_t *asking = testutil_queued (first, seq, NULL);
    asking->submit->flags |= DROVER_SUBMIT_PREEMPTIBLE;
    assert_int_equal (drover_devicelist_parse ("gpu=2,fpga=1", asking->submit->devices, NULL),
                      2);
    asking->submit->ndevices = 2;
    snprintf (asking->owner, sizeof asking->owner, "bob");
    drover_change_t *started = testutil_attempt ("task.running", first + 1, seq + 2,
                                                 DROVER_TASK_RUNNING, 1, "w1");
    started->assigned = strdup ("gpu=1");
    drover_change_t *submitted [] = {
        asking, testutil_queued (first + 1, seq + 1, NULL), started,
        testutil_queued (first + 2, seq + 3, NULL)
    };
    if (testutil_apply (backend, submitted, 4, text))
        fail_msg ("apply: %s", text);
    drover_change_t *running = testutil_attempt ("task.running", first, seq + 4,
                                                 DROVER_TASK_RUNNING, 1, "w2");
    running->assigned = strdup ("gpu=0,2;fpga=4");
    drover_change_t *failed = testutil_final (first + 1, seq + 5, DROVER_TASK_FAILED,
                                              DROVER_END_OOM, 1, "x");
    failed->assigned = strdup ("gpu=1");
    drover_change_t *later [] = { running, failed };
    if (testutil_apply (backend, later, 2, text))
        fail_msg ("apply: %s", text);
}

//  Check the tasks testutil_sharing_apply applied came back
void
testutil_sharing_assert_loaded (testutil_loaded_t *loaded, uint64_t first)
{
    //  Its devices (sorted by name), its flags, owner and indices
    drover_change_t *change = s_loaded_task (loaded, first);
    assert_int_equal (change->state, DROVER_TASK_RUNNING);
    assert_int_equal (change->submit->ndevices, 2);
    assert_string_equal (change->submit->devices [0].name, "fpga");
    assert_int_equal (change->submit->devices [0].count, 1);
    assert_string_equal (change->submit->devices [1].name, "gpu");
    assert_int_equal (change->submit->devices [1].count, 2);
    assert_int_equal (change->submit->flags, DROVER_SUBMIT_NOTIFY | DROVER_SUBMIT_PREEMPTIBLE);
    assert_string_equal (change->submit->principal, "bob");
    assert_string_equal (change->owner, "bob");
    assert_non_null (change->assigned);
    assert_string_equal (change->assigned, "gpu=0,2;fpga=4");

    //  No devices asked; the indices of its attempt kept once it ended
    change = s_loaded_task (loaded, first + 1);
    assert_int_equal (change->state, DROVER_TASK_FAILED);
    assert_int_equal (change->done->end, DROVER_END_OOM);
    assert_int_equal (change->submit->ndevices, 0);
    assert_int_equal (change->submit->flags, DROVER_SUBMIT_NOTIFY);
    assert_non_null (change->assigned);
    assert_string_equal (change->assigned, "gpu=1");

    //  Neither
    change = s_loaded_task (loaded, first + 2);
    assert_int_equal (change->state, DROVER_TASK_QUEUED);
    assert_int_equal (change->submit->ndevices, 0);
    assert_null (change->assigned);
    assert_string_equal (change->submit->principal, "");
}
