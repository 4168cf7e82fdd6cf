/*  =========================================================================
    test_drover_assign_lifecycle - the task table's decisions along
    a task's life, with a fake clock: SUBMIT to DONE step by step, retries
    until it fails, how DONE says the task ended, results past the output
    budget, and stale results of a lost worker fenced by attempt.
    The plain class is driven directly, as testutil_assign says.
    =========================================================================
*/

#include "testutil_assign.h"

//  SUBMIT, ASSIGN, STARTED, RESULT: every step says what it should
static void
test_life_cycle (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    drover_msg_t *msg = testutil_assign_submit_msg ("echo hi", 2, 0, DROVER_SUBMIT_NOTIFY);
    drover_msg_add_label (msg, "os=linux");
    drover_msg_add_label (msg, "gpu=yes");
    uint64_t task = 0;
    const char *reason;
    assert_int_equal (drover_assign_submit (table, msg, TESTUTIL_CLIENT_ROUTE, &task, &reason),
                      200);
    assert_int_equal (task, 1);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_non_null (testutil_find_event (actions, "task.queued", task));
    drover_action_t *queue = testutil_find_action (actions, DROVER_ACTION_QUEUE, task, 0);
    assert_non_null (queue);
    assert_int_equal (queue->priority, 3);
    assert_int_equal (queue->procs, 2);
    assert_int_equal (queue->mem, 1 << 20);
    assert_string_equal (queue->labels, "os=linux\ngpu=yes");
    assert_int_equal (drover_assign_state (table, task), DROVER_TASK_QUEUED);
    assert_int_equal (drover_assign_attempt (table, task), 0);

    testutil_assign_up (table, "alpha", TESTUTIL_ALPHA_ROUTE);
    drover_assign_assign (table, task, "alpha", 1000);
    actions = testutil_take_actions (table);
    drover_action_t *offer = testutil_find_action (actions, DROVER_ACTION_OFFER, task, 0);
    assert_non_null (offer);
    assert_int_equal (offer->attempt, 1);
    assert_int_equal (offer->route_size, 7);
    assert_memory_equal (offer->route, "\x00\x03" "alpha", 7);
    assert_int_equal (offer->procs, 2);
    assert_int_equal (offer->timeout, 60000);
    assert_int_equal (offer->body_size, msg->body_size);
    assert_memory_equal (offer->body, msg->body, msg->body_size);
    assert_non_null (testutil_find_event (actions, "task.assigned", task));
    assert_int_equal (drover_assign_state (table, task), DROVER_TASK_ASSIGNED);
    assert_string_equal (drover_assign_worker (table, task), "alpha");
    drover_msg_destroy (&msg);

    //  An ack from another worker, or for another attempt, is stale
    assert_int_equal (drover_assign_started (table, "beta", task, 1, &reason), 409);
    assert_int_equal (drover_assign_started (table, "alpha", task, 2, &reason), 409);
    assert_non_null (strstr (reason, "stale"));
    assert_int_equal (drover_assign_started (table, "alpha", 99, 1, &reason), 404);
    assert_int_equal (testutil_take_actions (table)->count, 0);

    assert_int_equal (drover_assign_started (table, "alpha", task, 1, &reason), 200);
    actions = testutil_take_actions (table);
    assert_non_null (testutil_find_event (actions, "task.running", task));
    drover_action_t *success = testutil_find_action (actions, DROVER_ACTION_SUCCESS, 0, 0);
    assert_non_null (success);
    assert_string_equal (success->worker, "alpha");
    assert_int_equal (drover_assign_state (table, task), DROVER_TASK_RUNNING);
    //  A repeated ack changes nothing
    assert_int_equal (drover_assign_started (table, "alpha", task, 1, &reason), 200);
    assert_int_equal (testutil_take_actions (table)->count, 0);
    //  The ack deadline is gone once acknowledged
    assert_int_equal (drover_assign_expire (table, 1000000), -1);
    assert_int_equal (testutil_take_actions (table)->count, 0);

    drover_msg_t *result = drover_msg_new (DROVER_MSG_TASK_RESULT);
    strcpy (result->worker, "alpha");
    result->task = task;
    result->attempt = 1;
    result->outcome = DROVER_OUTCOME_EXITED;
    result->duration = 17;
    result->truncated = DROVER_TRUNC_STDERR;
    drover_msg_set_output (result, (const byte *) "hi\n", 3, (const byte *) "warn", 4);
    assert_int_equal (drover_assign_result (table, result, &reason), 200);
    assert_null (result->out);          //  taken by the table
    drover_msg_destroy (&result);
    actions = testutil_take_actions (table);
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_FREE, task, 0));
    assert_int_equal (testutil_count_actions (actions, DROVER_ACTION_SUCCESS), 1);
    assert_non_null (testutil_find_event (actions, "task.succeeded", task));
    assert_int_equal (testutil_count_actions (actions, DROVER_ACTION_DONE), 1);
    drover_action_t *done = testutil_find_action (actions, DROVER_ACTION_DONE, task, 0);
    assert_int_equal (done->state, DROVER_TASK_SUCCEEDED);
    assert_int_equal (done->attempt, 1);
    assert_int_equal (done->seq, 0);
    assert_string_equal (done->worker, "alpha");
    assert_int_equal (done->duration, 17);
    assert_int_equal (done->truncated, DROVER_TRUNC_STDERR);
    assert_int_equal (done->out_size, 3);
    assert_memory_equal (done->out, "hi\n", 3);
    assert_int_equal (done->err_size, 4);
    assert_int_equal (done->route_size, 8);
    assert_memory_equal (done->route, "\x00\x01" "client", 8);
    assert_int_equal (drover_assign_state (table, task), DROVER_TASK_SUCCEEDED);

    //  Once final: a second result is stale, a cancel conflicts, a wait
    //  is answered at once with the kept result
    assert_int_equal (testutil_assign_result (table, task, "alpha", 1, DROVER_OUTCOME_EXITED, 0,
                                              "again"), 409);
    assert_int_equal (testutil_take_actions (table)->count, 0);
    assert_int_equal (drover_assign_cancel (table, task, &reason), 410);
    assert_string_equal (reason, "already SUCCEEDED");
    assert_int_equal (drover_assign_wait (table, &task, 1, 55, TESTUTIL_OTHER_ROUTE, &reason), 200);
    actions = testutil_take_actions (table);
    assert_int_equal (actions->count, 1);
    done = testutil_find_action (actions, DROVER_ACTION_DONE, task, 0);
    assert_int_equal (done->seq, 55);
    assert_int_equal (done->out_size, 3);
    assert_memory_equal (done->route, "\x00\x02" "other", 7);
    assert_int_equal (drover_assign_count (table, DROVER_TASK_SUCCEEDED), 1);
    assert_int_equal (drover_assign_size (table), 1);
    drover_assign_destroy (&table);
    drover_assign_destroy (&table);
}

//  exit 1 with retries 2: runs three times, then FAILED with one result
static void
test_retries_then_failed (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    testutil_assign_up (table, "alpha", TESTUTIL_ALPHA_ROUTE);
    uint64_t task = testutil_assign_submit (table, 2, DROVER_SUBMIT_NOTIFY);
    testutil_take_actions (table);
    int dones = 0;
    for (uint32_t attempt = 1; attempt <= 3; attempt++) {
        testutil_assign_offer (table, task, "alpha", 0, attempt);
        testutil_assign_start (table, task, "alpha", attempt);
        assert_int_equal (testutil_assign_result (table, task, "alpha", attempt,
                                                  DROVER_OUTCOME_EXITED, 1, "x"), 200);
        testutil_actions_t *actions = testutil_take_actions (table);
        assert_non_null (testutil_find_action (actions, DROVER_ACTION_FREE, task, 0));
        dones += testutil_count_actions (actions, DROVER_ACTION_DONE);
        if (attempt < 3) {
            drover_action_t *requeued = testutil_find_event (actions, "task.requeued", task);
            assert_non_null (requeued);
            assert_string_equal (requeued->reason, "exit 1");
            assert_non_null (testutil_find_action (actions, DROVER_ACTION_QUEUE, task, 0));
            assert_int_equal (drover_assign_state (table, task), DROVER_TASK_QUEUED);
        }
        else {
            assert_non_null (testutil_find_event (actions, "task.failed", task));
            drover_action_t *done = testutil_find_action (actions, DROVER_ACTION_DONE, task, 0);
            assert_int_equal (done->state, DROVER_TASK_FAILED);
            assert_int_equal (done->attempt, 3);
            assert_int_equal (done->exit_code, 1);
            assert_int_equal (testutil_count_actions (actions, DROVER_ACTION_QUEUE), 0);
        }
    }
    assert_int_equal (dones, 1);
    assert_int_equal (drover_assign_state (table, task), DROVER_TASK_FAILED);

    //  A signal, a timeout and a failed spawn are the task's own failures too
    uint64_t other = testutil_assign_submit (table, 0, 0);
    testutil_assign_offer (table, other, "alpha", 0, 1);
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_TASK_RESULT);
    strcpy (msg->worker, "alpha");
    msg->task = other;
    msg->attempt = 1;
    msg->outcome = DROVER_OUTCOME_TIMEDOUT;
    const char *reason;
    assert_int_equal (drover_assign_result (table, msg, &reason), 200);
    drover_msg_destroy (&msg);
    testutil_actions_t *actions = testutil_take_actions (table);
    drover_action_t *failed = testutil_find_event (actions, "task.failed", other);
    assert_non_null (failed);
    assert_string_equal (failed->reason, "timed out");
    drover_assign_destroy (&table);
}

//  Run one attempt of a new task on alpha to a RESULT of outcome (with a
//  signal and a reason as a worker from the spec may send) and return its
//  TASK DONE's end
static int
s_end_after (drover_assign_t *table, int outcome, int exit_code, int signal,
             const char *reason_text, int state)
{
    uint64_t task = testutil_assign_submit (table, 0, DROVER_SUBMIT_NOTIFY);
    testutil_take_actions (table);
    testutil_assign_offer (table, task, "alpha", 0, 1);
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_TASK_RESULT);
    strcpy (msg->worker, "alpha");
    msg->task = task;
    msg->attempt = 1;
    msg->outcome = (uint8_t) outcome;
    msg->exit_code = exit_code;
    msg->signal = signal;
    drover_msg_set_reason (msg, reason_text);
    const char *reason;
    assert_int_equal (drover_assign_result (table, msg, &reason), 200);
    drover_msg_destroy (&msg);
    drover_action_t *done = testutil_find_action (testutil_take_actions (table), DROVER_ACTION_DONE, task, 0);
    assert_non_null (done);
    assert_int_equal (done->state, state);
    assert_true (drover_end_fits (done->state, done->end));
    return done->end;
}

//  TASK DONE once said only SUCCEEDED / FAILED / CANCELLED: a timeout
//  killed by SIGKILL looked like any signal, and clients read the reason's
//  words. Its end says how the task ended, whatever the reason's text.
static void
test_done_says_how_the_task_ended (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    drover_assign_configure (table, 5000, 0, 1000, 1000);
    testutil_assign_up (table, "alpha", TESTUTIL_ALPHA_ROUTE);
    assert_int_equal (s_end_after (table, DROVER_OUTCOME_EXITED, 0, 0, "", DROVER_TASK_SUCCEEDED),
                      DROVER_END_SUCCEEDED);
    assert_int_equal (s_end_after (table, DROVER_OUTCOME_EXITED, 3, 0, "timed out waiting for db",
                                   DROVER_TASK_FAILED), DROVER_END_FAILED);
    assert_int_equal (s_end_after (table, DROVER_OUTCOME_SIGNALLED, -1, 9, "", DROVER_TASK_FAILED),
                      DROVER_END_FAILED);
    assert_int_equal (s_end_after (table, DROVER_OUTCOME_TIMEDOUT, -1, 9, "killed after 500 ms",
                                   DROVER_TASK_FAILED), DROVER_END_TIMED_OUT);
    assert_int_equal (s_end_after (table, DROVER_OUTCOME_SPAWN_FAILED, -1, 0, "no such file",
                                   DROVER_TASK_FAILED), DROVER_END_SPAWN_FAILED);

    //  Cancelled while queued, and while running (the worker says CANCELLED)
    const char *reason;
    uint64_t queued = testutil_assign_submit (table, 0, DROVER_SUBMIT_NOTIFY);
    testutil_take_actions (table);
    assert_int_equal (drover_assign_cancel (table, queued, &reason), 200);
    drover_action_t *done = testutil_find_action (testutil_take_actions (table), DROVER_ACTION_DONE, queued, 0);
    assert_int_equal (done->end, DROVER_END_CANCELLED);
    assert_int_equal (done->exit_code, -1);     //  nothing ran: no status
    assert_int_equal (done->signal, 0);
    uint64_t running = testutil_assign_submit (table, 0, DROVER_SUBMIT_NOTIFY);
    testutil_take_actions (table);
    testutil_assign_offer (table, running, "alpha", 0, 1);
    assert_int_equal (drover_assign_cancel (table, running, &reason), 200);
    testutil_take_actions (table);
    assert_int_equal (testutil_assign_result (table, running, "alpha", 1, DROVER_OUTCOME_CANCELLED,
                                              -1, NULL), 200);
    done = testutil_find_action (testutil_take_actions (table), DROVER_ACTION_DONE, running, 0);
    assert_int_equal (done->state, DROVER_TASK_CANCELLED);
    assert_int_equal (done->end, DROVER_END_CANCELLED);

    //  lost-retries 0: one lost worker ends it LOST, with the loss as reason
    uint64_t lost = testutil_assign_submit (table, 0, DROVER_SUBMIT_NOTIFY);
    testutil_take_actions (table);
    testutil_assign_offer (table, lost, "alpha", 0, 1);
    drover_assign_worker_lost (table, "alpha", "no heartbeat");
    done = testutil_find_action (testutil_take_actions (table), DROVER_ACTION_DONE, lost, 0);
    assert_int_equal (done->state, DROVER_TASK_FAILED);
    assert_int_equal (done->end, DROVER_END_LOST);
    assert_string_equal (done->reason, "worker lost: no heartbeat");
    assert_int_equal (done->exit_code, -1);

    //  An id never given out: UNKNOWN
    uint64_t never = 1000;
    assert_int_equal (drover_assign_wait (table, &never, 1, 9, TESTUTIL_CLIENT_ROUTE, &reason),
                      200);
    done = testutil_find_action (testutil_take_actions (table), DROVER_ACTION_DONE, never, 0);
    assert_int_equal (done->state, DROVER_TASK_UNKNOWN);
    assert_int_equal (done->end, DROVER_END_UNKNOWN);
    assert_int_equal (done->exit_code, -1);

    //  TASK LIST rows carry the end too, NONE while a task is live
    uint64_t live = testutil_assign_submit (table, 0, 0);
    testutil_take_actions (table);
    drover_msg_t *list = drover_msg_new (DROVER_MSG_TASK_TABLE);
    drover_assign_list (table, 255, 100, NULL, NULL, 0, list);
    assert_int_equal (list->nrows, 9);
    int ends [] = { DROVER_END_NONE, DROVER_END_LOST, DROVER_END_CANCELLED,
                    DROVER_END_CANCELLED, DROVER_END_SPAWN_FAILED, DROVER_END_TIMED_OUT,
                    DROVER_END_FAILED, DROVER_END_FAILED, DROVER_END_SUCCEEDED };
    for (uint32_t row = 0; row < list->nrows; row++)
        assert_int_equal (list->task_rows [row].end, ends [row]);
    assert_true (list->task_rows [0].task == live);
    zframe_t *frame = drover_msg_encode (list);     //  every pair fits its state
    assert_non_null (frame);
    zframe_destroy (&frame);
    drover_msg_destroy (&list);
    drover_assign_destroy (&table);
}

//  Finished results past the output budget vanished, and a WAIT on them
//  then said UNKNOWN like an id never given out, which drover wait counted
//  as failed. They are reported EXPIRED: ids are never reused and grow,
//  so an id below the next one that is no longer held existed and ended.
static void
test_results_past_the_output_budget_expire (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    //  A finished task holds its output and its body (18 bytes here): 40
    //  bytes hold one of the tasks below, not two
    drover_assign_set_max_kept_bytes (table, 40);
    testutil_assign_up (table, "alpha", TESTUTIL_ALPHA_ROUTE);
    uint64_t tasks [3];
    for (int index = 0; index < 3; index++) {
        tasks [index] = testutil_assign_submit (table, 0, 0);
        testutil_take_actions (table);
        testutil_assign_offer (table, tasks [index], "alpha", 0, 1);
        //  6 bytes of output each (5 + 1 of stderr)
        assert_int_equal (testutil_assign_result (table, tasks [index], "alpha", 1,
                                                  DROVER_OUTCOME_EXITED, 0, "hello"), 200);
        testutil_take_actions (table);
    }
    //  The next call drops the oldest results until the rest fit
    const char *reason;
    uint64_t ids [] = { tasks [0], tasks [1], tasks [2], tasks [2] + 1, 0 };
    assert_int_equal (drover_assign_wait (table, ids, 5, 4, TESTUTIL_CLIENT_ROUTE, &reason), 200);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_int_equal (testutil_count_actions (actions, DROVER_ACTION_DONE), 5);
    int states [] = { DROVER_TASK_UNKNOWN, DROVER_TASK_UNKNOWN, DROVER_TASK_SUCCEEDED,
                      DROVER_TASK_UNKNOWN, DROVER_TASK_UNKNOWN };
    int ends [] = { DROVER_END_EXPIRED, DROVER_END_EXPIRED, DROVER_END_SUCCEEDED,
                    DROVER_END_UNKNOWN, DROVER_END_UNKNOWN };
    for (int index = 0; index < 5; index++) {
        drover_action_t *done = testutil_find_action (actions, DROVER_ACTION_DONE, 0, index);
        assert_true (done->task == ids [index]);
        assert_int_equal (done->state, states [index]);
        assert_int_equal (done->end, ends [index]);
    }
    assert_int_equal (drover_assign_size (table), 1);
    //  A CANCEL of an expired task is a conflict (it ended), not "unknown"
    assert_int_equal (drover_assign_cancel (table, tasks [0], &reason), 410);
    assert_non_null (strstr (reason, "expired"));
    assert_int_equal (drover_assign_cancel (table, tasks [2] + 1, &reason), 404);
    drover_assign_destroy (&table);
}

//  The SIGSTOP case: alpha is lost, the task reruns on beta, then alpha
//  comes back and reports its old attempt. The old result is STALE, the
//  client sees exactly one result, and alpha is told to kill the attempt.
static void
test_stale_results_after_lost_worker (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    testutil_assign_up (table, "alpha", TESTUTIL_ALPHA_ROUTE);
    testutil_assign_up (table, "beta", TESTUTIL_BETA_ROUTE);
    uint64_t first = testutil_assign_submit (table, 0, DROVER_SUBMIT_NOTIFY);
    uint64_t second = testutil_assign_submit (table, 0, DROVER_SUBMIT_NOTIFY);
    testutil_take_actions (table);
    testutil_assign_offer (table, first, "alpha", 0, 1);
    testutil_assign_start (table, first, "alpha", 1);
    testutil_assign_offer (table, second, "alpha", 0, 1);
    testutil_assign_start (table, second, "alpha", 1);
    drover_assign_worker_lost (table, "alpha", "no heartbeat");
    testutil_take_actions (table);
    testutil_assign_offer (table, first, "beta", 0, 2);
    testutil_assign_start (table, first, "beta", 2);
    testutil_assign_offer (table, second, "beta", 0, 2);
    testutil_assign_start (table, second, "beta", 2);

    int dones = 0;
    //  alpha's late result for the first task arrives before beta's
    assert_int_equal (testutil_assign_result (table, first, "alpha", 1, DROVER_OUTCOME_EXITED, 0,
                                              "old"), 409);
    assert_int_equal (testutil_take_actions (table)->count, 0);
    assert_int_equal (testutil_assign_result (table, first, "beta", 2, DROVER_OUTCOME_EXITED, 0,
                                              "new"), 200);
    testutil_actions_t *actions = testutil_take_actions (table);
    dones += testutil_count_actions (actions, DROVER_ACTION_DONE);
    drover_action_t *done = testutil_find_action (actions, DROVER_ACTION_DONE, first, 0);
    assert_int_equal (done->attempt, 2);
    assert_string_equal (done->worker, "beta");
    assert_memory_equal (done->out, "new", 3);
    //  beta finishes the second first; alpha's report comes after
    assert_int_equal (testutil_assign_result (table, second, "beta", 2, DROVER_OUTCOME_EXITED, 0,
                                              "new"), 200);
    dones += testutil_count_actions (testutil_take_actions (table), DROVER_ACTION_DONE);
    //  alpha re-registers saying it still runs both old attempts
    drover_taskref_t running [] = { { first, 1 }, { second, 1 } };
    drover_assign_worker_up (table, "alpha", TESTUTIL_ALPHA_ROUTE, running, 2);
    actions = testutil_take_actions (table);
    assert_int_equal (testutil_count_actions (actions, DROVER_ACTION_KILL), 2);
    drover_action_t *kill = testutil_find_action (actions, DROVER_ACTION_KILL, second, 0);
    assert_int_equal (kill->attempt, 1);
    assert_memory_equal (kill->route, "\x00\x03" "alpha", 7);
    assert_int_equal (testutil_assign_result (table, second, "alpha", 1, DROVER_OUTCOME_EXITED, 0,
                                              "old"), 409);
    assert_int_equal (testutil_take_actions (table)->count, 0);
    assert_int_equal (dones, 2);
    assert_int_equal (drover_assign_count (table, DROVER_TASK_SUCCEEDED), 2);

    //  Results for tasks never assigned, or unknown, are refused
    uint64_t queued = testutil_assign_submit (table, 0, 0);
    testutil_take_actions (table);
    assert_int_equal (testutil_assign_result (table, queued, "alpha", 1, DROVER_OUTCOME_EXITED, 0,
                                              NULL), 409);
    assert_int_equal (testutil_assign_result (table, 424242, "ghost", 1, DROVER_OUTCOME_EXITED, 0,
                                              NULL), 404);
    assert_int_equal (testutil_take_actions (table)->count, 0);
    drover_assign_destroy (&table);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_life_cycle),
        cmocka_unit_test (test_retries_then_failed),
        cmocka_unit_test (test_done_says_how_the_task_ended),
        cmocka_unit_test (test_results_past_the_output_budget_expire),
        cmocka_unit_test (test_stale_results_after_lost_worker),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
