/*  =========================================================================
    test_drover_assign_times - the task table stamps each task with wall-clock
    times (submitted, its attempt started, ended), with a fake clock

    The plain class, driven directly: the clock is a variable the test
    moves, so every time is exact. The times go out with every action
    about a task (what the store keeps and the metrics count).
    =========================================================================
*/

#include "testutil_class.h"
#include "testutil_wire.h"
#include "testutil_assign.h"
#include "drover_assign.h"

//  Assert a task's times
static void
s_assert_times (drover_assign_t *table, uint64_t task, int64_t queued, int64_t started,
                int64_t ended)
{
    int64_t times [3] = { -1, -1, -1 };
    assert_int_equal (drover_assign_times (table, task, &times [0], &times [1], &times [2]), 0);
    assert_int_equal (times [0], queued);
    assert_int_equal (times [1], started);
    assert_int_equal (times [2], ended);
}

//  Submitted, offered, STARTED, RESULT: queued, started and ended are the
//  clock at each, and the final event carries them
static void
test_times_of_a_task_that_ran (void **state)
{
    int64_t now = 1700000000000;
    drover_assign_t *table = testutil_fake_table (&now);
    uint64_t task = testutil_table_submit (table, 0);
    s_assert_times (table, task, 1700000000000, 0, 0);
    now += 1500;
    drover_assign_assign (table, task, "alpha", 0);
    testutil_take_actions (table);
    s_assert_times (table, task, 1700000000000, 0, 0);
    now += 200;
    const char *reason;
    assert_int_equal (drover_assign_started (table, "alpha", task, 1, &reason), 200);
    testutil_take_actions (table);
    s_assert_times (table, task, 1700000000000, 1700000001700, 0);
    now += 3000;
    testutil_table_result (table, task, "alpha", 1, DROVER_OUTCOME_EXITED, 0, 0, NULL);
    testutil_actions_t *actions = testutil_take_actions (table);
    s_assert_times (table, task, 1700000000000, 1700000001700, 1700000004700);
    bool seen = false;
    for (int index = 0; index < actions->count; index++) {
        drover_action_t *action = &actions->items [index];
        if (action->type == DROVER_ACTION_EVENT && streq (action->topic, "task.succeeded")) {
            assert_int_equal (action->queued_at, 1700000000000);
            assert_int_equal (action->started_at, 1700000001700);
            assert_int_equal (action->ended_at, 1700000004700);
            seen = true;
        }
    }
    assert_true (seen);
    drover_assign_destroy (&table);
}

//  A RESULT with no STARTED before it: started is the RESULT's time
static void
test_started_is_the_result_without_started (void **state)
{
    int64_t now = 5000;
    drover_assign_t *table = testutil_fake_table (&now);
    uint64_t task = testutil_table_submit (table, 0);
    now = 6000;
    drover_assign_assign (table, task, "alpha", 0);
    testutil_take_actions (table);
    now = 9000;
    testutil_table_result (table, task, "alpha", 1, DROVER_OUTCOME_EXITED, 0, 0, NULL);
    testutil_take_actions (table);
    s_assert_times (table, task, 5000, 9000, 9000);
    drover_assign_destroy (&table);
}

//  A RESULT with no STARTED (a level-7 worker holds STARTED back a few
//  msec): started is its run time before the RESULT, never before the
//  offer
static void
test_started_is_the_run_time_before_the_result (void **state)
{
    int64_t now = 5000;
    drover_assign_t *table = testutil_fake_table (&now);
    uint64_t ran = testutil_table_submit (table, 0);
    uint64_t late = testutil_table_submit (table, 0);
    now = 6000;
    drover_assign_assign (table, ran, "alpha", 0);
    drover_assign_assign (table, late, "alpha", 0);
    testutil_take_actions (table);
    now = 9000;
    const char *reason;
    drover_msg_t *msg = testutil_result_msg ("alpha", ran, 1, DROVER_OUTCOME_EXITED, 0);
    msg->duration = 2000;
    assert_int_equal (drover_assign_result (table, msg, &reason), 200);
    drover_msg_destroy (&msg);
    //  A duration longer than since the offer (clocks apart): the offer's time
    msg = testutil_result_msg ("alpha", late, 1, DROVER_OUTCOME_EXITED, 0);
    msg->duration = 5000;
    assert_int_equal (drover_assign_result (table, msg, &reason), 200);
    drover_msg_destroy (&msg);
    testutil_actions_t *actions = testutil_take_actions (table);
    //  No task.running (an event and a write a task); the final event has
    //  the start its run time says
    assert_null (testutil_find_event (actions, "task.running", ran));
    const drover_action_t *ended = testutil_find_event (actions, "task.succeeded", ran);
    assert_non_null (ended);
    assert_int_equal (ended->started_at, 7000);
    s_assert_times (table, ran, 5000, 7000, 9000);
    s_assert_times (table, late, 5000, 6000, 9000);
    drover_assign_destroy (&table);
}

//  A STARTED held back a few msec (level 7): the RESULT's run time dates
//  the start sooner than the STARTED did, never before the offer
static void
test_started_held_back_is_dated_by_the_run_time (void **state)
{
    int64_t now = 5000;
    drover_assign_t *table = testutil_fake_table (&now);
    uint64_t task = testutil_table_submit (table, 0);
    now = 6000;
    drover_assign_assign (table, task, "alpha", 0);
    now = 6010;
    const char *reason;
    assert_int_equal (drover_assign_started (table, "alpha", task, 1, &reason), 200);
    testutil_take_actions (table);
    s_assert_times (table, task, 5000, 6010, 0);
    now = 9000;
    drover_msg_t *msg = testutil_result_msg ("alpha", task, 1, DROVER_OUTCOME_EXITED, 0);
    msg->duration = 2995;
    assert_int_equal (drover_assign_result (table, msg, &reason), 200);
    drover_msg_destroy (&msg);
    testutil_take_actions (table);
    s_assert_times (table, task, 5000, 6005, 9000);
    drover_assign_destroy (&table);
}

//  A retry: started is the current attempt's, not the first one's; a
//  lost worker's attempt does not count either
static void
test_started_is_the_current_attempts (void **state)
{
    int64_t now = 1000;
    drover_assign_t *table = testutil_fake_table (&now);
    uint64_t task = testutil_table_submit (table, 1);
    now = 2000;
    drover_assign_assign (table, task, "alpha", 0);
    const char *reason;
    assert_int_equal (drover_assign_started (table, "alpha", task, 1, &reason), 200);
    now = 3000;
    testutil_table_result (table, task, "alpha", 1, DROVER_OUTCOME_EXITED, 1, 0, NULL);  //  retried
    testutil_take_actions (table);
    s_assert_times (table, task, 1000, 0, 0);
    now = 4000;
    drover_assign_assign (table, task, "beta", 0);
    assert_int_equal (drover_assign_started (table, "beta", task, 2, &reason), 200);
    now = 5000;
    drover_assign_worker_lost (table, "beta", "heartbeats stopped");
    testutil_take_actions (table);
    assert_int_equal (drover_assign_state (table, task), DROVER_TASK_QUEUED);
    s_assert_times (table, task, 1000, 0, 0);
    now = 6000;
    drover_assign_assign (table, task, "alpha", 0);
    now = 6500;
    assert_int_equal (drover_assign_started (table, "alpha", task, 3, &reason), 200);
    now = 8000;
    testutil_table_result (table, task, "alpha", 3, DROVER_OUTCOME_EXITED, 0, 0, NULL);
    testutil_take_actions (table);
    s_assert_times (table, task, 1000, 6500, 8000);
    drover_assign_destroy (&table);
}

//  Cancelled while queued: never started, ended at the cancel
static void
test_cancelled_while_queued_never_started (void **state)
{
    int64_t now = 100;
    drover_assign_t *table = testutil_fake_table (&now);
    uint64_t task = testutil_table_submit (table, 0);
    now = 700;
    const char *reason;
    assert_int_equal (drover_assign_cancel (table, task, &reason), 200);
    testutil_take_actions (table);
    s_assert_times (table, task, 100, 0, 700);
    int64_t unused;
    assert_int_equal (drover_assign_times (table, 999, &unused, &unused, &unused), -1);
    drover_assign_destroy (&table);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_times_of_a_task_that_ran),
        cmocka_unit_test (test_started_is_the_result_without_started),
        cmocka_unit_test (test_started_is_the_run_time_before_the_result),
        cmocka_unit_test (test_started_held_back_is_dated_by_the_run_time),
        cmocka_unit_test (test_started_is_the_current_attempts),
        cmocka_unit_test (test_cancelled_while_queued_never_started),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
