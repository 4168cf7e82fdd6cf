/*  =========================================================================
    test_drover_assign_restore - the task table after a restart, and what it
    tells the store: restored tasks, ids that go on, the restart grace,
    adoption, submit keys, and the state each change carries

    The plain class, driven directly (as test_drover_assign does), with
    changes built the way the store's backend loads them.
    =========================================================================
*/

#include "testutil_wire.h"
#include "testutil_class.h"
#include "drover_assign.h"
#include "drover_taskrecord.h"

#define S_CLIENT        (const byte *) "\x00\x01" "client", 8
#define S_ALPHA         (const byte *) "\x00\x03" "alpha", 7
//  A kept task as the backend loads it: state, attempt, worker, budgets
static drover_change_t *
s_kept (uint64_t task, int state, uint32_t attempt, const char *worker)
{
    drover_change_t *change = drover_change_new ("task.restored", task);
    change->state = (uint8_t) state;
    change->attempt = attempt;
    snprintf (change->worker, sizeof change->worker, "%s", worker);
    change->retries_left = 2;
    change->lost = 1;
    change->submit = testutil_submit_msg ("echo kept", 0, 2, 0);
    change->submit->mem = 1 << 20;
    return change;
}

//  Restore one kept task; asserts the table takes it
static void
s_restore (drover_assign_t *table, drover_change_t *change)
{
    assert_int_equal (drover_assign_restore (table, change), 0);
    drover_change_destroy (&change);
}

//  A plain queued task the store hands as its record (no TASK SUBMIT) is
//  taken as it is, with its owner, budgets and times, and queued again; one
//  waiting for its retry time waits again
static void
test_restore_record (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    drover_msg_t *msg = testutil_submit_msg ("echo kept", 3, 2, 0);
    msg->retries = 4;
    drover_change_t *change = drover_change_new ("task.restored", 6);
    change->state = DROVER_TASK_QUEUED;
    change->retries_left = 2;
    change->queued_at = 1700000000000;
    snprintf (change->owner, sizeof change->owner, "%s", "carol");
    change->record = drover_taskrecord_new (6, msg);
    assert_int_equal (drover_assign_restore (table, change), 0);
    assert_null (change->record);           //  the table's now
    drover_change_destroy (&change);
    drover_change_t *waiting = drover_change_new ("task.restored", 7);
    waiting->state = DROVER_TASK_QUEUED;
    waiting->waits = DROVER_WAITS_RETRY;
    waiting->due_at = 4000000000000;        //  far ahead
    waiting->record = drover_taskrecord_new (7, msg);
    assert_int_equal (drover_assign_restore (table, waiting), 0);
    drover_change_destroy (&waiting);
    //  A record of another id is refused
    drover_change_t *wrong = drover_change_new ("task.restored", 8);
    wrong->state = DROVER_TASK_QUEUED;
    wrong->record = drover_taskrecord_new (9, msg);
    assert_int_equal (drover_assign_restore (table, wrong), -1);
    drover_change_destroy (&wrong);
    drover_msg_destroy (&msg);

    testutil_actions_t *actions = testutil_take_actions (table);
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_QUEUE, 6, 0));
    assert_null (testutil_find_action (actions, DROVER_ACTION_QUEUE, 7, 0));
    assert_int_equal (drover_assign_state (table, 6), DROVER_TASK_QUEUED);
    assert_int_equal (drover_assign_state (table, 7), DROVER_TASK_QUEUED);
    drover_taskinfo_t *info = NULL;
    const char *reason = NULL;
    assert_int_equal (drover_assign_show (table, 6, &info, &reason), 200);
    assert_string_equal (info->owner, "carol");
    assert_int_equal (info->priority, 3);
    assert_int_equal (info->procs, 2);
    assert_int_equal (info->retries, 4);
    assert_int_equal (info->retries_left, 2);
    assert_int_equal (info->queued_at, 1700000000000);
    drover_taskinfo_destroy (&info);
    drover_assign_destroy (&table);
}

//  A queued task is queued again, a final one answers WAIT with its kept
//  result, and ids go on from the store's next id: none is given twice
static void
test_restore_queued_and_final (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    s_restore (table, s_kept (5, DROVER_TASK_QUEUED, 0, ""));
    drover_change_t *final = s_kept (3, DROVER_TASK_SUCCEEDED, 1, "alpha");
    final->done = drover_msg_new (DROVER_MSG_TASK_DONE);
    final->done->end = DROVER_END_SUCCEEDED;
    final->done->duration = 42;
    drover_msg_set_output (final->done, (const byte *) "out", 3, NULL, 0);
    s_restore (table, final);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_QUEUE, 5, 0));
    assert_null (testutil_find_action (actions, DROVER_ACTION_EVENT, 0, 0));     //  the store has it all
    assert_int_equal (drover_assign_state (table, 5), DROVER_TASK_QUEUED);
    assert_int_equal (drover_assign_state (table, 3), DROVER_TASK_SUCCEEDED);
    //  The same id twice is refused
    drover_change_t *again = s_kept (5, DROVER_TASK_QUEUED, 0, "");
    assert_int_equal (drover_assign_restore (table, again), -1);
    drover_change_destroy (&again);

    drover_assign_loaded (table, 40);
    drover_msg_t *msg = testutil_submit_msg ("echo new", 0, 1, 0);
    uint64_t task = 0;
    const char *reason;
    assert_int_equal (drover_assign_submit (table, msg, S_CLIENT, &task, &reason), 200);
    assert_int_equal (task, 40);
    drover_msg_destroy (&msg);
    testutil_take_actions (table);

    uint64_t ids [] = { 3 };
    assert_int_equal (drover_assign_wait (table, ids, 1, 9, S_CLIENT, &reason), 200);
    drover_action_t *done = testutil_find_action (testutil_take_actions (table), DROVER_ACTION_DONE, 3, 0);
    assert_non_null (done);
    assert_int_equal (done->state, DROVER_TASK_SUCCEEDED);
    assert_int_equal (done->end, DROVER_END_SUCCEEDED);
    assert_int_equal (done->out_size, 3);
    assert_memory_equal (done->out, "out", 3);
    drover_assign_destroy (&table);
}

//  A running attempt waits for its worker: nothing is offered meanwhile;
//  its UP listing the attempt adopts it (schedq is told it runs there) and
//  its result counts
static void
test_restore_running_adopted (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    s_restore (table, s_kept (7, DROVER_TASK_RUNNING, 2, "alpha"));
    drover_assign_loaded (table, 8);
    assert_null (testutil_find_action (testutil_take_actions (table), DROVER_ACTION_QUEUE, 7, 0));
    assert_false (drover_assign_has_worker (table, "alpha"));    //  not up until its UP
    const char *reason;
    assert_int_equal (drover_assign_fence (table, "alpha", S_ALPHA, &reason), 401);

    drover_taskref_t running [] = { { 7, 2 } };
    drover_assign_worker_up (table, "alpha", S_ALPHA, running, 1);
    testutil_actions_t *actions = testutil_take_actions (table);
    drover_action_t *placed = testutil_find_action (actions, DROVER_ACTION_PLACED, 7, 0);
    assert_non_null (placed);
    assert_string_equal (placed->worker, "alpha");
    assert_int_equal (placed->mem, 1 << 20);
    assert_null (testutil_find_action (actions, DROVER_ACTION_KILL, 0, 0));
    assert_null (testutil_find_action (actions, DROVER_ACTION_QUEUE, 7, 0));
    assert_int_equal (drover_assign_state (table, 7), DROVER_TASK_RUNNING);
    assert_int_equal (drover_assign_attempt (table, 7), 2);

    drover_msg_t *result = drover_msg_new (DROVER_MSG_TASK_RESULT);
    strcpy (result->worker, "alpha");
    result->task = 7;
    result->attempt = 2;
    assert_int_equal (drover_assign_result (table, result, &reason), 200);
    drover_msg_destroy (&result);
    drover_action_t *event = testutil_find_action (testutil_take_actions (table), DROVER_ACTION_EVENT, 7, 0);
    assert_non_null (event);
    assert_string_equal (event->topic, "task.succeeded");
    assert_int_equal (event->state, DROVER_TASK_SUCCEEDED);
    assert_int_equal (event->end, DROVER_END_SUCCEEDED);
    //  The grace ends with nothing left to requeue
    assert_int_equal (drover_assign_end_grace (table), 0);
    drover_assign_destroy (&table);
}

//  An attempt whose worker does not come back by the end of the grace runs
//  again, attempt+1 when placed, its retries and lost-retries untouched
static void
test_grace_requeues_unreported (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    s_restore (table, s_kept (8, DROVER_TASK_ASSIGNED, 1, "gone"));
    drover_assign_loaded (table, 9);
    testutil_take_actions (table);
    assert_int_equal (drover_assign_end_grace (table), 1);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_QUEUE, 8, 0));
    drover_action_t *event = testutil_find_action (actions, DROVER_ACTION_EVENT, 8, 0);
    assert_non_null (event);
    assert_string_equal (event->topic, "task.requeued");
    assert_int_equal (event->state, DROVER_TASK_QUEUED);
    assert_int_equal (event->retries_left, 2);
    assert_int_equal (event->lost, 1);
    //  A late UP of that worker: it lists the attempt, which is no longer current
    drover_taskref_t running [] = { { 8, 1 } };
    drover_assign_worker_up (table, "gone", S_ALPHA, running, 1);
    assert_non_null (testutil_find_action (testutil_take_actions (table), DROVER_ACTION_KILL, 8, 0));
    drover_assign_assign (table, 8, "gone", 0);
    assert_int_equal (drover_assign_attempt (table, 8), 2);
    drover_assign_destroy (&table);
}

//  A submit key names one task: the same key again returns the same id and
//  queues nothing; another key is another task
static void
test_submit_key (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    const char *reason;
    uint64_t ids [3];
    const char *keys [3] = { "batch-1:line-1", "batch-1:line-1", "batch-1:line-2" };
    for (int index = 0; index < 3; index++) {
        drover_msg_t *msg = testutil_submit_msg ("echo keyed", 0, 1, 0);
        msg->key = strdup (keys [index]);
        assert_int_equal (drover_assign_submit (table, msg, S_CLIENT, &ids [index], &reason),
                          200);
        drover_msg_destroy (&msg);
        testutil_actions_t *actions = testutil_take_actions (table);
        if (index == 1)
            assert_null (testutil_find_action (actions, DROVER_ACTION_QUEUE, 0, 0));
        else
            assert_non_null (testutil_find_action (actions, DROVER_ACTION_QUEUE, ids [index], 0));
    }
    assert_int_equal (ids [0], ids [1]);
    assert_true (ids [2] != ids [0]);
    assert_int_equal (drover_assign_size (table), 2);
    //  A restored task keeps its key
    drover_change_t *kept = s_kept (30, DROVER_TASK_QUEUED, 0, "");
    kept->submit->key = strdup ("batch-0:line-9");
    s_restore (table, kept);
    drover_msg_t *msg = testutil_submit_msg ("echo keyed", 0, 1, 0);
    msg->key = strdup ("batch-0:line-9");
    uint64_t task;
    assert_int_equal (drover_assign_submit (table, msg, S_CLIENT, &task, &reason), 200);
    assert_int_equal (task, 30);
    drover_msg_destroy (&msg);
    drover_assign_destroy (&table);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_restore_queued_and_final),
        cmocka_unit_test (test_restore_record),
        cmocka_unit_test (test_restore_running_adopted),
        cmocka_unit_test (test_grace_requeues_unreported),
        cmocka_unit_test (test_submit_key),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
