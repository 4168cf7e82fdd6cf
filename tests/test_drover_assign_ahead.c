/*  =========================================================================
    test_drover_assign_ahead - the task table and offers held ahead
    (protocol level 9): a RESULT RETURNED, an offer the worker held beyond
    its free procs and gave back unstarted, puts the task back at its place
    with no retry used, no probation and no credit, and tells schedq FREE
    marked given back; a cancel said while it was held ends it instead.
    The plain class is driven directly, as testutil_assign says.
    =========================================================================
*/

#include "testutil_assign.h"

//  Submit a task of retries on a table with one worker, alpha, and offer
//  it there as attempt 1; returns its id
static uint64_t
s_offered (drover_assign_t *table, uint32_t retries)
{
    testutil_assign_up (table, "alpha", TESTUTIL_ALPHA_ROUTE);
    uint64_t task = testutil_assign_submit (table, retries, DROVER_SUBMIT_NOTIFY);
    testutil_take_actions (table);
    testutil_assign_offer (table, task, "alpha", 0, 1);
    return task;
}

//  A given-back offer is queued again as it was: attempt kept with the
//  reason, retries untouched, then run as the next attempt
static void
test_returned_requeues (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    uint64_t task = s_offered (table, 1);
    assert_int_equal (testutil_assign_result (table, task, "alpha", 1, DROVER_OUTCOME_RETURNED,
                                              -1, ""), 200);
    testutil_actions_t *actions = testutil_take_actions (table);
    drover_action_t *free_action = testutil_find_action (actions, DROVER_ACTION_FREE, task, 0);
    assert_non_null (free_action);
    assert_int_equal (free_action->flags & DROVER_FREE_RETURNED, DROVER_FREE_RETURNED);
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_QUEUE, task, 0));
    assert_null (testutil_find_action (actions, DROVER_ACTION_DONE, task, 0));
    assert_int_equal (testutil_count_actions (actions, DROVER_ACTION_SUCCESS), 0);
    assert_int_equal (testutil_count_actions (actions, DROVER_ACTION_FAILURE), 0);
    drover_action_t *event = testutil_find_event (actions, "task.requeued", task);
    assert_non_null (event);
    assert_string_equal (event->reason, "returned: held ahead on alpha behind its running tasks");
    assert_int_equal (drover_assign_state (table, task), DROVER_TASK_QUEUED);
    drover_taskinfo_t *info = NULL;
    const char *reason;
    assert_int_equal (drover_assign_show (table, task, &info, &reason), 200);
    assert_int_equal (info->retries_left, 1);
    assert_true (info->nattempts >= 1);
    assert_string_equal (info->attempts [0].reason,
                         "returned: held ahead on alpha behind its running tasks");
    drover_taskinfo_destroy (&info);
    //  A repeat of the RETURNED is stale now
    assert_int_equal (testutil_assign_result (table, task, "alpha", 1, DROVER_OUTCOME_RETURNED,
                                              -1, ""), DROVER_CODE_STALE);
    //  Runs as attempt 2 and succeeds
    testutil_assign_offer (table, task, "alpha", 0, 2);
    testutil_assign_result (table, task, "alpha", 2, DROVER_OUTCOME_EXITED, 0, "");
    assert_int_equal (drover_assign_state (table, task), DROVER_TASK_SUCCEEDED);
    //  A plain FREE carries no flag
    actions = testutil_take_actions (table);
    free_action = testutil_find_action (actions, DROVER_ACTION_FREE, task, 0);
    assert_non_null (free_action);
    assert_int_equal (free_action->flags & DROVER_FREE_RETURNED, 0);
    drover_assign_destroy (&table);
}

//  Cancelled while held: the RETURNED that crossed the KILL ends it
//  CANCELLED rather than queueing it again
static void
test_returned_after_cancel_ends_it (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    uint64_t task = s_offered (table, 0);
    const char *reason;
    assert_int_equal (drover_assign_cancel (table, task, &reason), 200);
    testutil_take_actions (table);
    assert_int_equal (testutil_assign_result (table, task, "alpha", 1, DROVER_OUTCOME_RETURNED,
                                              -1, ""), 200);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_null (testutil_find_action (actions, DROVER_ACTION_QUEUE, task, 0));
    drover_action_t *done = testutil_find_action (actions, DROVER_ACTION_DONE, task, 0);
    assert_non_null (done);
    assert_int_equal (done->state, DROVER_TASK_CANCELLED);
    assert_int_equal (drover_assign_state (table, task), DROVER_TASK_CANCELLED);
    drover_assign_destroy (&table);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_returned_requeues),
        cmocka_unit_test (test_returned_after_cancel_ends_it),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
