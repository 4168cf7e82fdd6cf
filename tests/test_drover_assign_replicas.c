/*  =========================================================================
    test_drover_assign_replicas - the task table's replicas, with a fake clock

    A replica is started on its worker without the queue (created, offered,
    said PLACED), ends FAILED at once if its worker is not up, and is never
    requeued: where a batch task would run again (its worker lost, an offer
    not acknowledged, a machine failure, the restart grace over) it ends
    FAILED, end LOST, with the reason.
    =========================================================================
*/

#include "testutil_wire.h"
#include "testutil_class.h"
#include "drover_assign.h"

#define S_ALPHA         (const byte *) "\x00\x03" "alpha", 7

//  Find the event with a topic about a task, or NULL
static drover_action_t *
s_event (testutil_actions_t *actions, const char *topic, uint64_t task)
{
    for (int index = 0; index < actions->count; index++) {
        drover_action_t *action = &actions->items [index];
        if (action->type == DROVER_ACTION_EVENT && streq (action->topic, topic)
        &&  action->task == task)
            return action;
    }
    return NULL;
}

//  The reconciler's submit of replica slot of service "web"
static drover_msg_t *
s_replica_msg (uint32_t slot)
{
    drover_msg_t *msg = testutil_submit_msg ("sleep 100", 0, 2, DROVER_SUBMIT_NOTIFY);
    msg->mem = 1 << 20;
    msg->retries = 3;           //  the table asks none, whatever it says
    strcpy (msg->service, "web");
    msg->slot = slot;
    return msg;
}

//  Start a replica on alpha (up) and check what that says; returns its id
static uint64_t
s_start_on_alpha (drover_assign_t *table, uint32_t slot)
{
    drover_msg_t *msg = s_replica_msg (slot);
    uint64_t task = 0;
    const char *reason = NULL;
    assert_int_equal (drover_assign_start (table, msg, "alpha", 1000, &task, &reason), 200);
    drover_msg_destroy (&msg);
    assert_true (task > 0);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_non_null (s_event (actions, "task.queued", task));
    assert_null (testutil_find_action (actions, DROVER_ACTION_QUEUE, task, 0));
    drover_action_t *offer = testutil_find_action (actions, DROVER_ACTION_OFFER, task, 0);
    assert_non_null (offer);
    assert_int_equal (offer->attempt, 1);
    assert_string_equal (offer->worker, "alpha");
    assert_non_null (s_event (actions, "task.assigned", task));
    drover_action_t *placed = testutil_find_action (actions, DROVER_ACTION_PLACED, task, 0);
    assert_non_null (placed);
    assert_string_equal (placed->worker, "alpha");
    assert_int_equal (placed->procs, 2);
    assert_int_equal (placed->mem, 1 << 20);
    assert_int_equal (drover_assign_state (table, task), DROVER_TASK_ASSIGNED);
    return task;
}

//  Expect the task's end: FAILED, end LOST, with reason, and no requeue
static void
s_expect_lost (drover_assign_t *table, uint64_t task, const char *reason)
{
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_null (testutil_find_action (actions, DROVER_ACTION_QUEUE, task, 0));
    assert_null (s_event (actions, "task.requeued", task));
    drover_action_t *failed = s_event (actions, "task.failed", task);
    assert_non_null (failed);
    assert_int_equal (failed->end, DROVER_END_LOST);
    assert_string_equal (failed->reason, reason);
    assert_int_equal (drover_assign_state (table, task), DROVER_TASK_FAILED);
}

//  Started on an up worker: offered at once, attempt 1, PLACED; no retries
//  and no waiter whatever the submit asked; it runs and ends as any task
static void
test_start_places_at_once (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    drover_assign_worker_up (table, "alpha", S_ALPHA, NULL, 0);
    uint64_t task = s_start_on_alpha (table, 0);
    const char *reason;
    assert_int_equal (drover_assign_started (table, "alpha", task, 1, &reason), 200);
    assert_non_null (s_event (testutil_take_actions (table), "task.running", task));
    //  It exits 1: no retry, FAILED at once, and nobody is told DONE
    drover_msg_t *result = drover_msg_new (DROVER_MSG_TASK_RESULT);
    strcpy (result->worker, "alpha");
    result->task = task;
    result->attempt = 1;
    result->outcome = DROVER_OUTCOME_EXITED;
    result->exit_code = 1;
    assert_int_equal (drover_assign_result (table, result, &reason), 200);
    drover_msg_destroy (&result);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_non_null (s_event (actions, "task.failed", task));
    assert_null (testutil_find_action (actions, DROVER_ACTION_DONE, task, 0));
    assert_null (testutil_find_action (actions, DROVER_ACTION_QUEUE, task, 0));
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_FREE, task, 0));
    drover_assign_destroy (&table);
}

//  A worker that is not up: the task exists and ends FAILED at once
static void
test_start_on_worker_not_up (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    drover_msg_t *msg = s_replica_msg (1);
    uint64_t task = 0;
    const char *reason = NULL;
    assert_int_equal (drover_assign_start (table, msg, "ghost", 1000, &task, &reason), 200);
    drover_msg_destroy (&msg);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_non_null (s_event (actions, "task.queued", task));
    assert_null (testutil_find_action (actions, DROVER_ACTION_OFFER, task, 0));
    assert_null (testutil_find_action (actions, DROVER_ACTION_PLACED, task, 0));
    drover_action_t *failed = s_event (actions, "task.failed", task);
    assert_non_null (failed);
    assert_string_equal (failed->reason, "worker not up");
    assert_int_equal (drover_assign_state (table, task), DROVER_TASK_FAILED);
    //  A submit without a service, or a bad one, is refused
    msg = testutil_submit_msg ("true", 0, 1, 0);
    assert_int_equal (drover_assign_start (table, msg, "ghost", 1000, &task, &reason), 400);
    strcpy (msg->service, "web");
    msg->procs = 0;
    assert_int_equal (drover_assign_start (table, msg, "ghost", 1000, &task, &reason), 400);
    drover_msg_destroy (&msg);
    drover_assign_destroy (&table);
}

//  Its worker lost, its offer unacknowledged, or its worker back without
//  it: a replica ends FAILED (LOST), never queued again
static void
test_replica_never_requeued (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    drover_assign_configure (table, 100, 5, 1000, 1000);     //  lost-retries 5
    drover_assign_worker_up (table, "alpha", S_ALPHA, NULL, 0);
    uint64_t task = s_start_on_alpha (table, 0);
    drover_assign_worker_lost (table, "alpha", "silent");
    s_expect_lost (table, task, "worker lost: silent");

    drover_assign_worker_up (table, "alpha", S_ALPHA, NULL, 0);
    task = s_start_on_alpha (table, 1);
    assert_int_equal (drover_assign_expire (table, 1100), -1);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_FAILURE, task, 0));
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_FREE, task, 0));
    assert_null (testutil_find_action (actions, DROVER_ACTION_QUEUE, task, 0));
    drover_action_t *failed = s_event (actions, "task.failed", task);
    assert_non_null (failed);
    assert_int_equal (failed->end, DROVER_END_LOST);
    assert_string_equal (failed->reason, "ack timeout");

    task = s_start_on_alpha (table, 2);
    //  Registered again without it (offered, never taken): still not requeued
    drover_assign_worker_up (table, "alpha", S_ALPHA, NULL, 0);
    s_expect_lost (table, task, "offer not received before the worker registered again");

    //  A batch task beside it is still requeued
    drover_msg_t *msg = testutil_submit_msg ("true", 0, 1, 0);
    uint64_t batch;
    const char *reason;
    assert_int_equal (drover_assign_submit (table, msg, S_ALPHA, &batch, &reason), 200);
    drover_msg_destroy (&msg);
    testutil_take_actions (table);
    drover_assign_assign (table, batch, "alpha", 2000);
    testutil_take_actions (table);
    drover_assign_worker_lost (table, "alpha", "silent");
    actions = testutil_take_actions (table);
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_QUEUE, batch, 0));
    drover_assign_destroy (&table);
}

//  A stop of a running replica kills it; its result ends it CANCELLED
static void
test_stop_cancels (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    drover_assign_worker_up (table, "alpha", S_ALPHA, NULL, 0);
    uint64_t task = s_start_on_alpha (table, 0);
    const char *reason;
    assert_int_equal (drover_assign_cancel (table, task, &reason), 200);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_KILL, task, 0));
    //  Lost meanwhile: CANCELLED, not LOST
    drover_assign_worker_lost (table, "alpha", "silent");
    actions = testutil_take_actions (table);
    assert_non_null (s_event (actions, "task.cancelled", task));
    assert_int_equal (drover_assign_state (table, task), DROVER_TASK_CANCELLED);
    drover_assign_destroy (&table);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_start_places_at_once),
        cmocka_unit_test (test_start_on_worker_not_up),
        cmocka_unit_test (test_replica_never_requeued),
        cmocka_unit_test (test_stop_cancels),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
