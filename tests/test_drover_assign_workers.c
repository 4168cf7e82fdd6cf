/*  =========================================================================
    test_drover_assign_workers - the task table's decisions when
    workers fail or come back, with a fake clock: a lost worker's tasks
    requeued then poison, offers not acknowledged in time, a stall moving
    the deadlines, a worker giving an assignment back, and an UP whose
    running list reconciles what the table thought it ran.
    The plain class is driven directly, as testutil_assign says.
    =========================================================================
*/

#include "testutil_assign.h"

//  A lost worker's tasks go back to the queue with the attempt raised at
//  their next assignment; past lost-retries the task is poison
static void
test_lost_requeues_then_poison (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    drover_assign_configure (table, 5000, 2, 1000, 1000);
    const char *workers [] = { "w1", "w2", "w3" };
    for (int index = 0; index < 3; index++)
        testutil_assign_up (table, workers [index], TESTUTIL_ALPHA_ROUTE);
    uint64_t task = testutil_assign_submit (table, 0, DROVER_SUBMIT_NOTIFY);
    uint64_t bystander = testutil_assign_submit (table, 0, 0);
    testutil_take_actions (table);
    testutil_assign_offer (table, bystander, "w3", 0, 1);
    for (uint32_t attempt = 1; attempt <= 3; attempt++) {
        testutil_assign_offer (table, task, workers [attempt - 1], 0, attempt);
        if (attempt == 2)
            testutil_assign_start (table, task, workers [attempt - 1], attempt);
        drover_assign_worker_lost (table, workers [attempt - 1], "no heartbeat");
        testutil_actions_t *actions = testutil_take_actions (table);
        assert_int_equal (testutil_count_actions (actions, DROVER_ACTION_FREE), 0);   //  schedq drops it
        if (attempt < 3) {
            drover_action_t *requeued = testutil_find_event (actions, "task.requeued", task);
            assert_non_null (requeued);
            assert_string_equal (requeued->reason, "worker lost: no heartbeat");
            assert_string_equal (requeued->worker, workers [attempt - 1]);
            assert_non_null (testutil_find_action (actions, DROVER_ACTION_QUEUE, task, 0));
            assert_int_equal (testutil_count_actions (actions, DROVER_ACTION_DONE), 0);
            assert_int_equal (drover_assign_state (table, task), DROVER_TASK_QUEUED);
            assert_int_equal (drover_assign_attempt (table, task), attempt);
            testutil_assign_up (table, workers [attempt - 1], TESTUTIL_ALPHA_ROUTE);
        }
        else {
            drover_action_t *done = testutil_find_action (actions, DROVER_ACTION_DONE, task, 0);
            assert_non_null (done);
            assert_int_equal (done->state, DROVER_TASK_FAILED);
            assert_string_equal (done->reason, "poison: lost 3 workers");
            assert_int_equal (done->end, DROVER_END_POISON);
            assert_int_equal (done->attempt, 3);
            //  The bystander on w3 was requeued with it
            assert_non_null (testutil_find_event (actions, "task.requeued", bystander));
        }
    }
    assert_int_equal (drover_assign_state (table, task), DROVER_TASK_FAILED);
    assert_int_equal (drover_assign_state (table, bystander), DROVER_TASK_QUEUED);
    //  A lost worker is forgotten: what schedq assigns to it is given back
    drover_assign_assign (table, bystander, "w3", 0);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_FREE, bystander, 0));
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_QUEUE, bystander, 0));
    assert_null (testutil_find_action (actions, DROVER_ACTION_OFFER, 0, 0));
    //  Losses do not use the task's own retries: with retries 0 it still ran
    //  a third time above. LOST of an unknown worker is harmless.
    drover_assign_worker_lost (table, "nobody", "left");
    assert_int_equal (testutil_take_actions (table)->count, 0);
    drover_assign_destroy (&table);
}

//  An offer not acknowledged in time: probation hears of it, the task is
//  queued again without using its retries, a late ack is stale
static void
test_ack_timeout_requeues_without_retries (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    drover_assign_configure (table, 100, 5, 1000, 1000);
    testutil_assign_up (table, "alpha", TESTUTIL_ALPHA_ROUTE);
    testutil_assign_up (table, "beta", TESTUTIL_BETA_ROUTE);
    uint64_t task = testutil_assign_submit (table, 1, DROVER_SUBMIT_NOTIFY);
    uint64_t quick = testutil_assign_submit (table, 0, 0);
    testutil_take_actions (table);
    assert_int_equal (drover_assign_expire (table, 0), -1);
    testutil_assign_offer (table, task, "alpha", 1000, 1);
    testutil_assign_offer (table, quick, "beta", 1010, 1);
    assert_int_equal (drover_assign_expire (table, 1050), 1100);
    assert_int_equal (testutil_take_actions (table)->count, 0);
    //  quick is acknowledged: its deadline no longer counts
    testutil_assign_start (table, quick, "beta", 1);

    assert_int_equal (drover_assign_expire (table, 1100), -1);
    testutil_actions_t *actions = testutil_take_actions (table);
    drover_action_t *failure = testutil_find_action (actions, DROVER_ACTION_FAILURE, 0, 0);
    assert_non_null (failure);
    assert_string_equal (failure->worker, "alpha");
    assert_string_equal (failure->reason, "ack timeout");
    drover_action_t *kill = testutil_find_action (actions, DROVER_ACTION_KILL, task, 0);
    assert_non_null (kill);
    assert_int_equal (kill->attempt, 1);
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_FREE, task, 0));
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_QUEUE, task, 0));
    assert_non_null (testutil_find_event (actions, "task.requeued", task));
    assert_int_equal (testutil_count_actions (actions, DROVER_ACTION_DONE), 0);
    assert_int_equal (drover_assign_state (table, task), DROVER_TASK_QUEUED);
    assert_int_equal (drover_assign_state (table, quick), DROVER_TASK_RUNNING);

    const char *reason;
    assert_int_equal (drover_assign_started (table, "alpha", task, 1, &reason), 409);
    assert_int_equal (testutil_assign_result (table, task, "alpha", 1, DROVER_OUTCOME_EXITED, 0,
                                              NULL), 409);
    assert_int_equal (testutil_take_actions (table)->count, 0);

    //  retries 1 is still whole: one own failure requeues, the second fails
    testutil_assign_offer (table, task, "beta", 2000, 2);
    testutil_assign_start (table, task, "beta", 2);
    assert_int_equal (testutil_assign_result (table, task, "beta", 2, DROVER_OUTCOME_EXITED, 1,
                                              NULL), 200);
    assert_non_null (testutil_find_event (testutil_take_actions (table), "task.requeued", task));
    testutil_assign_offer (table, task, "beta", 3000, 3);
    testutil_assign_start (table, task, "beta", 3);
    assert_int_equal (testutil_assign_result (table, task, "beta", 3, DROVER_OUTCOME_EXITED, 1,
                                              NULL), 200);
    actions = testutil_take_actions (table);
    drover_action_t *done = testutil_find_action (actions, DROVER_ACTION_DONE, task, 0);
    assert_non_null (done);
    assert_int_equal (done->state, DROVER_TASK_FAILED);
    assert_int_equal (done->attempt, 3);
    assert_int_equal (drover_assign_expire (table, 100000), -1);
    drover_assign_destroy (&table);
}

//  Find the index of the first action of a type about a task, or -1
static int
s_index (testutil_actions_t *actions, int type, uint64_t task)
{
    for (int index = 0; index < actions->count; index++)
        if (actions->items [index].type == type && actions->items [index].task == task)
            return index;
    return -1;
}

//  An unacknowledged offer is the machine's failure: with lost-retries 0
//  the task is offered again and again (it used to end FAILED as poison
//  at the first ack timeout, never having run), and each time the machine
//  is on probation before the task is queued again, so schedq cannot place the
//  task back on it
static void
test_ack_timeouts_are_not_poison (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    drover_assign_configure (table, 100, 0, 1000, 1000);
    testutil_assign_up (table, "alpha", TESTUTIL_ALPHA_ROUTE);
    uint64_t task = testutil_assign_submit (table, 0, DROVER_SUBMIT_NOTIFY);
    testutil_take_actions (table);
    for (uint32_t attempt = 1; attempt <= 3; attempt++) {
        int64_t now = attempt * 1000;
        testutil_assign_offer (table, task, "alpha", now, attempt);
        assert_int_equal (drover_assign_expire (table, now + 100), -1);
        testutil_actions_t *actions = testutil_take_actions (table);
        int failure = s_index (actions, DROVER_ACTION_FAILURE, task);
        int queue = s_index (actions, DROVER_ACTION_QUEUE, task);
        assert_true (failure >= 0);
        assert_true (queue > failure);
        assert_string_equal (actions->items [failure].worker, "alpha");
        assert_int_equal (testutil_count_actions (actions, DROVER_ACTION_DONE), 0);
        assert_int_equal (drover_assign_state (table, task), DROVER_TASK_QUEUED);
    }
    //  Once it runs, it succeeds at its fourth attempt
    testutil_assign_offer (table, task, "alpha", 9000, 4);
    testutil_assign_start (table, task, "alpha", 4);
    assert_int_equal (testutil_assign_result (table, task, "alpha", 4, DROVER_OUTCOME_EXITED, 0,
                                              NULL), 200);
    assert_int_equal (drover_assign_state (table, task), DROVER_TASK_SUCCEEDED);
    drover_assign_destroy (&table);
}

//  A stall of the broker itself moves ack deadlines on by as much: an ack
//  that waited unread through it is not missing
static void
test_stall_moves_ack_deadlines (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    drover_assign_configure (table, 1000, 5, 1000, 1000);
    testutil_assign_up (table, "alpha", TESTUTIL_ALPHA_ROUTE);
    uint64_t first = testutil_assign_submit (table, 0, 0);
    uint64_t second = testutil_assign_submit (table, 0, 0);
    testutil_take_actions (table);
    testutil_assign_offer (table, first, "alpha", 1000, 1);
    testutil_assign_offer (table, second, "alpha", 1500, 1);
    assert_int_equal (drover_assign_expire (table, 1600), 2000);
    //  Stopped from 1600 to 4600
    assert_int_equal (drover_assign_shift (table, 3000), 2);
    assert_int_equal (drover_assign_expire (table, 4600), 5000);
    assert_int_equal (testutil_take_actions (table)->count, 0);
    testutil_assign_start (table, first, "alpha", 1);             //  read after the stall
    assert_int_equal (drover_assign_expire (table, 4700), 5500);
    assert_int_equal (drover_assign_state (table, first), DROVER_TASK_RUNNING);
    //  second is still never acknowledged: it expires, later
    assert_int_equal (drover_assign_expire (table, 5500), -1);
    assert_non_null (testutil_find_action (testutil_take_actions (table), DROVER_ACTION_FAILURE, second, 0));
    drover_assign_destroy (&table);
}

//  ASSIGN of what can no longer run gives the capacity back
static void
test_assign_gives_back (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    uint64_t task = testutil_assign_submit (table, 0, 0);
    testutil_take_actions (table);
    //  Unknown worker: capacity back, and the task placed again
    drover_assign_assign (table, task, "stranger", 0);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_int_equal (actions->count, 2);
    assert_int_equal (actions->items [0].type, DROVER_ACTION_FREE);
    assert_int_equal (actions->items [1].type, DROVER_ACTION_QUEUE);
    assert_int_equal (drover_assign_state (table, task), DROVER_TASK_QUEUED);
    //  Unknown task: capacity back only
    testutil_assign_up (table, "alpha", TESTUTIL_ALPHA_ROUTE);
    drover_assign_assign (table, 31337, "alpha", 0);
    actions = testutil_take_actions (table);
    assert_int_equal (actions->count, 1);
    assert_int_equal (actions->items [0].type, DROVER_ACTION_FREE);
    assert_int_equal (actions->items [0].task, 31337);
    //  Already assigned (a duplicate placement): capacity back only
    testutil_assign_offer (table, task, "alpha", 0, 1);
    drover_assign_assign (table, task, "alpha", 0);
    actions = testutil_take_actions (table);
    assert_int_equal (actions->count, 1);
    assert_int_equal (actions->items [0].type, DROVER_ACTION_FREE);
    assert_int_equal (drover_assign_attempt (table, task), 1);
    drover_assign_destroy (&table);
}

//  UP of a worker we think runs tasks: adopt current attempts, kill
//  others, and requeue what it no longer runs
static void
test_up_reconciles_running_list (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    testutil_assign_up (table, "alpha", TESTUTIL_ALPHA_ROUTE);
    uint64_t running = testutil_assign_submit (table, 0, 0);
    uint64_t assigned = testutil_assign_submit (table, 0, 0);
    uint64_t vanished = testutil_assign_submit (table, 0, DROVER_SUBMIT_NOTIFY);
    testutil_take_actions (table);
    testutil_assign_offer (table, running, "alpha", 0, 1);
    testutil_assign_start (table, running, "alpha", 1);
    testutil_assign_offer (table, assigned, "alpha", 0, 1);
    testutil_assign_offer (table, vanished, "alpha", 0, 1);
    testutil_assign_start (table, vanished, "alpha", 1);

    drover_taskref_t list [] = {
        { running, 1 }, { assigned, 1 }, { 5555, 1 }, { vanished, 7 }
    };
    drover_assign_worker_up (table, "alpha", TESTUTIL_BETA_ROUTE, list, 4);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_int_equal (drover_assign_state (table, running), DROVER_TASK_RUNNING);
    assert_int_equal (drover_assign_state (table, assigned), DROVER_TASK_RUNNING);
    assert_non_null (testutil_find_event (actions, "task.running", assigned));
    assert_int_equal (testutil_count_actions (actions, DROVER_ACTION_KILL), 2);
    drover_action_t *kill = testutil_find_action (actions, DROVER_ACTION_KILL, 5555, 0);
    assert_non_null (kill);
    assert_memory_equal (kill->route, "\x00\x04" "beta", 6);     //  the new route
    kill = testutil_find_action (actions, DROVER_ACTION_KILL, vanished, 0);
    assert_int_equal (kill->attempt, 7);
    assert_int_equal (drover_assign_state (table, vanished), DROVER_TASK_QUEUED);
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_FREE, vanished, 0));
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_QUEUE, vanished, 0));
    assert_int_equal (testutil_count_actions (actions, DROVER_ACTION_DONE), 0);
    //  The killed attempts still hold the worker: schedq is not told SETTLED
    assert_int_equal (testutil_count_actions (actions, DROVER_ACTION_SETTLED), 0);
    //  The adopted attempts still finish normally on the new route
    assert_int_equal (testutil_assign_result (table, assigned, "alpha", 1, DROVER_OUTCOME_EXITED,
                                              0, NULL), 200);
    actions = testutil_take_actions (table);
    assert_non_null (testutil_find_event (actions, "task.succeeded", assigned));
    assert_int_equal (testutil_count_actions (actions, DROVER_ACTION_SETTLED), 0);
    //  Once the killed attempts have sent their RESULT (refused), SETTLED
    assert_int_equal (testutil_assign_result (table, 5555, "alpha", 1, DROVER_OUTCOME_CANCELLED,
                                              143, NULL), 404);
    assert_int_equal (testutil_count_actions (testutil_take_actions (table),
                                              DROVER_ACTION_SETTLED), 0);
    assert_int_equal (testutil_assign_result (table, vanished, "alpha", 7,
                                              DROVER_OUTCOME_CANCELLED, 143, NULL),
                      409);
    actions = testutil_take_actions (table);
    assert_int_equal (actions->count, 1);
    drover_action_t *settled = testutil_find_action (actions, DROVER_ACTION_SETTLED, 0, 0);
    assert_non_null (settled);
    assert_string_equal (settled->worker, "alpha");
    //  A second UP with the same list adopts again: only its SETTLED
    drover_taskref_t again [] = { { running, 1 } };
    drover_assign_worker_up (table, "alpha", TESTUTIL_BETA_ROUTE, again, 1);
    actions = testutil_take_actions (table);
    assert_int_equal (actions->count, 1);
    assert_int_equal (testutil_count_actions (actions, DROVER_ACTION_SETTLED), 1);
    //  An UP whose killed attempt never reports is settled by the next UP,
    //  or by LOST: schedq hears one SETTLED for every UP that listed any
    drover_taskref_t stale [] = { { 6666, 1 } };
    drover_assign_worker_up (table, "alpha", TESTUTIL_BETA_ROUTE, stale, 1);
    assert_int_equal (testutil_count_actions (testutil_take_actions (table),
                                              DROVER_ACTION_SETTLED), 0);
    drover_assign_worker_up (table, "alpha", TESTUTIL_BETA_ROUTE, stale, 1);
    assert_int_equal (testutil_count_actions (testutil_take_actions (table),
                                              DROVER_ACTION_SETTLED), 1);
    drover_assign_worker_lost (table, "alpha", "silent");
    assert_int_equal (testutil_count_actions (testutil_take_actions (table),
                                              DROVER_ACTION_SETTLED), 1);
    drover_assign_destroy (&table);
}

//  UP of a worker that does not list an attempt still ASSIGNED: the offer
//  never reached it (it went to a connection the worker had left), nothing
//  ran, so the task is queued again without a loss, even with lost-retries
//  0; a RUNNING attempt it does not list is a loss
static void
test_up_requeues_unreceived_offer_without_loss (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    drover_assign_configure (table, 5000, 0, 1000, 1000);
    testutil_assign_up (table, "alpha", TESTUTIL_ALPHA_ROUTE);
    uint64_t offered = testutil_assign_submit (table, 0, 0);
    uint64_t running = testutil_assign_submit (table, 0, 0);
    testutil_take_actions (table);
    testutil_assign_offer (table, offered, "alpha", 0, 1);
    testutil_assign_offer (table, running, "alpha", 0, 1);
    testutil_assign_start (table, running, "alpha", 1);
    drover_assign_worker_up (table, "alpha", TESTUTIL_BETA_ROUTE, NULL, 0);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_int_equal (drover_assign_state (table, offered), DROVER_TASK_QUEUED);
    assert_non_null (testutil_find_event (actions, "task.requeued", offered));
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_QUEUE, offered, 0));
    assert_int_equal (drover_assign_state (table, running), DROVER_TASK_FAILED);
    assert_int_equal (testutil_count_actions (actions, DROVER_ACTION_SETTLED), 0);     //  it listed none
    drover_assign_destroy (&table);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_lost_requeues_then_poison),
        cmocka_unit_test (test_ack_timeout_requeues_without_retries),
        cmocka_unit_test (test_ack_timeouts_are_not_poison),
        cmocka_unit_test (test_stall_moves_ack_deadlines),
        cmocka_unit_test (test_assign_gives_back),
        cmocka_unit_test (test_up_reconciles_running_list),
        cmocka_unit_test (test_up_requeues_unreceived_offer_without_loss),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
