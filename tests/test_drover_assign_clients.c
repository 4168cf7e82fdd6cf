/*  =========================================================================
    test_drover_assign_clients - the task table's answers to
    clients, with a fake clock: cancelling queued and running tasks,
    waiting, a full queue (by count and by bytes), submits refused, the
    finished tasks it keeps, listing, and many tasks.
    The plain class is driven directly, as testutil_assign says.
    =========================================================================
*/

#include "testutil_assign.h"

//  Cancel: queued ends now; running is killed and ends with its result;
//  a second cancel conflicts; an unknown id is not found
static void
test_cancel_queued_and_running (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    testutil_assign_up (table, "alpha", TESTUTIL_ALPHA_ROUTE);
    uint64_t queued = testutil_assign_submit (table, 0, DROVER_SUBMIT_NOTIFY);
    uint64_t running = testutil_assign_submit (table, 3, DROVER_SUBMIT_NOTIFY);
    uint64_t assigned = testutil_assign_submit (table, 0, DROVER_SUBMIT_NOTIFY);
    testutil_take_actions (table);
    const char *reason;
    assert_int_equal (drover_assign_cancel (table, queued, &reason), 200);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_DEQUEUE, queued, 0));
    assert_non_null (testutil_find_event (actions, "task.cancelled", queued));
    drover_action_t *done = testutil_find_action (actions, DROVER_ACTION_DONE, queued, 0);
    assert_non_null (done);
    assert_int_equal (done->state, DROVER_TASK_CANCELLED);
    assert_int_equal (done->attempt, 0);
    assert_string_equal (done->worker, "");
    assert_int_equal (drover_assign_cancel (table, queued, &reason), 410);
    assert_string_equal (reason, "already CANCELLED");
    //  schedq may still assign it: the capacity is given back
    drover_assign_assign (table, queued, "alpha", 0);
    actions = testutil_take_actions (table);
    assert_int_equal (actions->count, 1);
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_FREE, queued, 0));

    testutil_assign_offer (table, running, "alpha", 0, 1);
    testutil_assign_start (table, running, "alpha", 1);
    assert_int_equal (drover_assign_cancel (table, running, &reason), 200);
    actions = testutil_take_actions (table);
    drover_action_t *kill = testutil_find_action (actions, DROVER_ACTION_KILL, running, 0);
    assert_non_null (kill);
    assert_int_equal (kill->attempt, 1);
    assert_memory_equal (kill->route, "\x00\x03" "alpha", 7);
    assert_int_equal (testutil_count_actions (actions, DROVER_ACTION_DONE), 0);
    assert_int_equal (drover_assign_state (table, running), DROVER_TASK_RUNNING);
    //  Killed: CANCELLED, not retried although it has retries left
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_TASK_RESULT);
    strcpy (msg->worker, "alpha");
    msg->task = running;
    msg->attempt = 1;
    msg->outcome = DROVER_OUTCOME_CANCELLED;
    msg->signal = 15;
    assert_int_equal (drover_assign_result (table, msg, &reason), 200);
    drover_msg_destroy (&msg);
    actions = testutil_take_actions (table);
    done = testutil_find_action (actions, DROVER_ACTION_DONE, running, 0);
    assert_non_null (done);
    assert_int_equal (done->state, DROVER_TASK_CANCELLED);
    assert_int_equal (done->signal, 15);
    assert_int_equal (testutil_count_actions (actions, DROVER_ACTION_QUEUE), 0);
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_FREE, running, 0));

    //  Cancelled while assigned, then the worker is lost: CANCELLED
    testutil_assign_offer (table, assigned, "alpha", 0, 1);
    assert_int_equal (drover_assign_cancel (table, assigned, &reason), 200);
    testutil_take_actions (table);
    drover_assign_worker_lost (table, "alpha", "left");
    actions = testutil_take_actions (table);
    done = testutil_find_action (actions, DROVER_ACTION_DONE, assigned, 0);
    assert_non_null (done);
    assert_int_equal (done->state, DROVER_TASK_CANCELLED);
    assert_int_equal (testutil_count_actions (actions, DROVER_ACTION_QUEUE), 0);

    assert_int_equal (drover_assign_cancel (table, 987654321, &reason), 404);
    assert_int_equal (drover_assign_count (table, DROVER_TASK_CANCELLED), 3);
    drover_assign_destroy (&table);
}

//  WAIT: finished and unknown ids are answered now, pending ones later;
//  one answer per client and task; waiters are bounded
static void
test_wait (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    testutil_assign_up (table, "alpha", TESTUTIL_ALPHA_ROUTE);
    uint64_t finished = testutil_assign_submit (table, 0, 0);
    uint64_t pending = testutil_assign_submit (table, 0, 0);
    testutil_take_actions (table);
    testutil_assign_offer (table, finished, "alpha", 0, 1);
    assert_int_equal (testutil_assign_result (table, finished, "alpha", 1, DROVER_OUTCOME_EXITED,
                                              0, "x"), 200);
    testutil_take_actions (table);

    uint64_t ids [] = { finished, 777, pending };
    const char *reason;
    assert_int_equal (drover_assign_wait (table, ids, 3, 9, TESTUTIL_CLIENT_ROUTE, &reason), 200);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_int_equal (testutil_count_actions (actions, DROVER_ACTION_DONE), 2);
    drover_action_t *done = testutil_find_action (actions, DROVER_ACTION_DONE, finished, 0);
    assert_int_equal (done->state, DROVER_TASK_SUCCEEDED);
    assert_int_equal (done->seq, 9);
    done = testutil_find_action (actions, DROVER_ACTION_DONE, 777, 0);
    assert_int_equal (done->state, DROVER_TASK_UNKNOWN);
    assert_int_equal (done->seq, 9);
    assert_memory_equal (done->route, "\x00\x01" "client", 8);
    //  The same client asking again is answered once, with the latest seq,
    //  and the OK says so (the earlier WAIT gets no DONE for that id)
    assert_int_equal (drover_assign_wait (table, &pending, 1, 10, TESTUTIL_CLIENT_ROUTE, &reason),
                      200);
    assert_string_equal (reason, "1 of 1 ids already waited on: their DONE has this seq");
    assert_int_equal (drover_assign_wait (table, &pending, 1, 3, TESTUTIL_OTHER_ROUTE, &reason),
                      200);
    assert_int_equal (testutil_take_actions (table)->count, 0);
    assert_int_equal (drover_assign_wait (table, NULL, 0, 1, TESTUTIL_CLIENT_ROUTE, &reason), 400);
    //  A submit's notify and a WAIT from the same client each get a DONE
    uint64_t notified = testutil_assign_submit (table, 0, DROVER_SUBMIT_NOTIFY);
    assert_int_equal (drover_assign_wait (table, &notified, 1, 21, TESTUTIL_CLIENT_ROUTE, &reason),
                      200);
    assert_int_equal (drover_assign_wait (table, &notified, 1, 22, TESTUTIL_CLIENT_ROUTE, &reason),
                      200);
    testutil_take_actions (table);
    assert_int_equal (drover_assign_cancel (table, notified, &reason), 200);
    actions = testutil_take_actions (table);
    assert_int_equal (testutil_count_actions (actions, DROVER_ACTION_DONE), 2);
    assert_int_equal (testutil_find_action (actions, DROVER_ACTION_DONE, notified, 0)->seq, 0);
    assert_int_equal (testutil_find_action (actions, DROVER_ACTION_DONE, notified, 1)->seq, 22);

    testutil_assign_offer (table, pending, "alpha", 0, 1);
    assert_int_equal (testutil_assign_result (table, pending, "alpha", 1, DROVER_OUTCOME_EXITED, 2,
                                              NULL), 200);
    actions = testutil_take_actions (table);
    assert_int_equal (testutil_count_actions (actions, DROVER_ACTION_DONE), 2);
    done = testutil_find_action (actions, DROVER_ACTION_DONE, pending, 0);
    assert_int_equal (done->seq, 10);
    assert_int_equal (done->state, DROVER_TASK_FAILED);
    assert_int_equal (done->exit_code, 2);
    done = testutil_find_action (actions, DROVER_ACTION_DONE, pending, 1);
    assert_int_equal (done->seq, 3);
    assert_memory_equal (done->route, "\x00\x02" "other", 7);

    //  At most DROVER_ASSIGN_TASK_WAITERS clients on one task
    uint64_t busy = testutil_assign_submit (table, 0, 0);
    testutil_take_actions (table);
    for (int index = 0; index < DROVER_ASSIGN_TASK_WAITERS + 1; index++) {
        byte route [4] = { 0, 9, 9, (byte) index };
        int code = drover_assign_wait (table, &busy, 1, index, route, 4, &reason);
        assert_int_equal (code, index < DROVER_ASSIGN_TASK_WAITERS? 200: 302);
    }
    //  And a bound on all tasks together
    drover_assign_set_max_waiters (table, DROVER_ASSIGN_TASK_WAITERS + 1);
    uint64_t more = testutil_assign_submit (table, 0, DROVER_SUBMIT_NOTIFY);
    drover_msg_t *msg = testutil_assign_submit_msg ("true", 1, 0, DROVER_SUBMIT_NOTIFY);
    uint64_t refused;
    assert_int_equal (drover_assign_submit (table, msg, TESTUTIL_CLIENT_ROUTE, &refused, &reason),
                      302);
    drover_msg_destroy (&msg);
    assert_int_equal (drover_assign_wait (table, &more, 1, 1, TESTUTIL_OTHER_ROUTE, &reason), 302);
    //  Finishing frees the waiters
    assert_int_equal (drover_assign_cancel (table, busy, &reason), 200);
    assert_int_equal (testutil_count_actions (testutil_take_actions (table), DROVER_ACTION_DONE),
                      DROVER_ASSIGN_TASK_WAITERS);
    assert_int_equal (drover_assign_wait (table, &more, 1, 1, TESTUTIL_OTHER_ROUTE, &reason), 200);
    drover_assign_destroy (&table);
}

//  Past max-queued live tasks SUBMIT is refused; finished ones do not count
static void
test_queue_full (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    drover_assign_configure (table, 5000, 5, 3, 100);
    uint64_t tasks [3];
    for (int index = 0; index < 3; index++)
        tasks [index] = testutil_assign_submit (table, 0, 0);
    drover_msg_t *msg = testutil_assign_submit_msg ("true", 1, 0, 0);
    uint64_t task = 99;
    const char *reason;
    assert_int_equal (drover_assign_submit (table, msg, TESTUTIL_CLIENT_ROUTE, &task, &reason),
                      301);
    assert_string_equal (reason, "queue full");
    assert_int_equal (task, 0);
    assert_int_equal (drover_assign_count (table, DROVER_TASK_QUEUED), 3);
    assert_int_equal (drover_assign_cancel (table, tasks [0], &reason), 200);
    assert_int_equal (drover_assign_submit (table, msg, TESTUTIL_CLIENT_ROUTE, &task, &reason),
                      200);
    assert_int_equal (task, 4);
    drover_msg_destroy (&msg);
    drover_assign_destroy (&table);
}

//  Past max-queued-bytes of bodies and labels SUBMIT is refused 301,
//  however few tasks; a task that ends gives its bytes back
static void
test_queue_full_bytes (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    drover_msg_t *msg = testutil_assign_submit_msg ("echo hi", 1, 0, 0);
    msg->labels [msg->nlabels++] = strdup ("gpu=a100");
    size_t task_bytes = msg->body_size + strlen ("gpu=a100") + 1;
    drover_assign_set_max_queued_bytes (table, 3 * task_bytes);
    uint64_t tasks [3];
    const char *reason;
    for (int index = 0; index < 3; index++)
        assert_int_equal (drover_assign_submit (table, msg, TESTUTIL_CLIENT_ROUTE, &tasks [index],
                                                &reason),
                          200);
    uint64_t task = 99;
    assert_int_equal (drover_assign_submit (table, msg, TESTUTIL_CLIENT_ROUTE, &task, &reason),
                      301);
    assert_string_equal (reason, "queue full: max-queued-bytes");
    assert_int_equal (task, 0);
    assert_int_equal (drover_assign_count (table, DROVER_TASK_QUEUED), 3);
    assert_int_equal (drover_assign_cancel (table, tasks [1], &reason), 200);
    assert_int_equal (drover_assign_submit (table, msg, TESTUTIL_CLIENT_ROUTE, &task, &reason),
                      200);
    assert_int_equal (task, 4);
    drover_msg_destroy (&msg);
    drover_assign_destroy (&table);
}

//  Bad submits are refused with 400 and take no id
static void
test_submit_validation (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    const char *reason;
    uint64_t task;
    drover_msg_t *msg = testutil_assign_submit_msg ("true", 0, 0, 0);
    assert_int_equal (drover_assign_submit (table, msg, TESTUTIL_CLIENT_ROUTE, &task, &reason),
                      400);
    assert_string_equal (reason, "procs must be at least 1");
    drover_msg_destroy (&msg);
    msg = testutil_assign_submit_msg ("true", 1, 0, 0);
    drover_msg_set_body (msg, (const byte *) "\x93\x01\x02\x03", 4);
    assert_int_equal (drover_assign_submit (table, msg, TESTUTIL_CLIENT_ROUTE, &task, &reason),
                      400);
    assert_non_null (strstr (reason, "body"));
    drover_msg_destroy (&msg);
    msg = testutil_assign_submit_msg ("true", 1, 0, 0);
    msg->labels [msg->nlabels++] = strdup ("no equals sign");
    assert_int_equal (drover_assign_submit (table, msg, TESTUTIL_CLIENT_ROUTE, &task, &reason),
                      400);
    drover_msg_destroy (&msg);
    msg = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    msg->procs = 1;
    assert_int_equal (drover_assign_submit (table, msg, TESTUTIL_CLIENT_ROUTE, &task, &reason),
                      400);
    drover_msg_destroy (&msg);
    assert_int_equal (drover_assign_size (table), 0);
    assert_int_equal (testutil_take_actions (table)->count, 0);
    assert_int_equal (testutil_assign_submit (table, 0, 0), 1);
    drover_assign_destroy (&table);
}

//  At most keep-finished finished tasks are kept, oldest evicted first;
//  live tasks are never evicted; output is bounded in bytes too
static void
test_keep_finished_eviction (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    drover_assign_configure (table, 5000, 5, 1000, 2);
    uint64_t live = testutil_assign_submit (table, 0, 0);
    uint64_t tasks [3];
    const char *reason;
    for (int index = 0; index < 3; index++) {
        tasks [index] = testutil_assign_submit (table, 0, 0);
        assert_int_equal (drover_assign_cancel (table, tasks [index], &reason), 200);
        testutil_take_actions (table);         //  nothing is evicted while actions are pending
    }
    assert_int_equal (drover_assign_wait (table, tasks, 3, 1, TESTUTIL_CLIENT_ROUTE, &reason), 200);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_int_equal (testutil_find_action (actions, DROVER_ACTION_DONE, tasks [0], 0)->state, DROVER_TASK_UNKNOWN);
    assert_int_equal (testutil_find_action (actions, DROVER_ACTION_DONE, tasks [1], 0)->state, DROVER_TASK_CANCELLED);
    assert_int_equal (testutil_find_action (actions, DROVER_ACTION_DONE, tasks [2], 0)->state, DROVER_TASK_CANCELLED);
    assert_int_equal (drover_assign_count (table, DROVER_TASK_CANCELLED), 2);
    assert_int_equal (drover_assign_state (table, live), DROVER_TASK_QUEUED);
    assert_int_equal (drover_assign_size (table), 3);

    //  The byte budget: two results of 600 bytes do not fit in 1000
    drover_assign_configure (table, 5000, 5, 1000, 100);
    drover_assign_set_max_kept_bytes (table, 1000);
    testutil_assign_up (table, "alpha", TESTUTIL_ALPHA_ROUTE);
    char big [600];
    memset (big, 'x', sizeof big - 1);
    big [sizeof big - 1] = 0;
    uint64_t first = testutil_assign_submit (table, 0, 0);
    uint64_t second = testutil_assign_submit (table, 0, 0);
    testutil_assign_offer (table, first, "alpha", 0, 1);
    testutil_assign_offer (table, second, "alpha", 0, 1);
    assert_int_equal (testutil_assign_result (table, first, "alpha", 1, DROVER_OUTCOME_EXITED, 0,
                                              big), 200);
    assert_int_equal (testutil_assign_result (table, second, "alpha", 1, DROVER_OUTCOME_EXITED, 0,
                                              big), 200);
    testutil_take_actions (table);
    assert_int_equal (drover_assign_state (table, first), DROVER_TASK_SUCCEEDED);
    drover_assign_expire (table, 0);         //  any call evicts
    assert_int_equal (drover_assign_state (table, first), DROVER_TASK_UNKNOWN);
    assert_int_equal (drover_assign_state (table, second), DROVER_TASK_SUCCEEDED);
    assert_int_equal (drover_assign_state (table, live), DROVER_TASK_QUEUED);
    drover_assign_destroy (&table);
}

//  TASK LIST: counts of every state, newest rows first (queued alone: in
//  run order), a filter, a summary
static void
test_list (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    testutil_assign_up (table, "alpha", TESTUTIL_ALPHA_ROUTE);
    uint64_t tasks [5];
    for (int index = 0; index < 5; index++)
        tasks [index] = testutil_assign_submit (table, 0, 0);
    testutil_assign_offer (table, tasks [1], "alpha", 0, 1);
    testutil_assign_start (table, tasks [1], "alpha", 1);
    testutil_assign_offer (table, tasks [3], "alpha", 0, 1);
    testutil_assign_start (table, tasks [3], "alpha", 1);
    const char *reason;
    assert_int_equal (drover_assign_cancel (table, tasks [4], &reason), 200);
    testutil_take_actions (table);

    drover_msg_t *reply = drover_msg_new (DROVER_MSG_TASK_TABLE);
    drover_assign_list (table, 255, 3, NULL, NULL, 0, reply);
    assert_int_equal (reply->counts [DROVER_TASK_QUEUED], 2);
    assert_int_equal (reply->counts [DROVER_TASK_RUNNING], 2);
    assert_int_equal (reply->counts [DROVER_TASK_CANCELLED], 1);
    assert_int_equal (reply->nrows, 3);
    assert_int_equal (reply->task_rows [0].task, tasks [4]);
    assert_int_equal (reply->task_rows [0].state, DROVER_TASK_CANCELLED);
    assert_int_equal (reply->task_rows [1].task, tasks [3]);
    assert_string_equal (reply->task_rows [1].worker, "alpha");
    assert_int_equal (reply->task_rows [1].attempt, 1);
    assert_int_equal (reply->task_rows [1].procs, 1);
    assert_int_equal (reply->task_rows [1].priority, 3);
    assert_string_equal (reply->task_rows [1].summary, "sh -c echo hi");
    assert_int_equal (reply->task_rows [2].task, tasks [2]);
    drover_msg_destroy (&reply);

    reply = drover_msg_new (DROVER_MSG_TASK_TABLE);
    drover_assign_list (table, DROVER_TASK_RUNNING, 100, NULL, NULL, 0, reply);
    assert_int_equal (reply->nrows, 2);
    assert_int_equal (reply->task_rows [0].task, tasks [3]);
    assert_int_equal (reply->task_rows [1].task, tasks [1]);
    drover_msg_destroy (&reply);

    reply = drover_msg_new (DROVER_MSG_TASK_TABLE);
    drover_assign_list (table, 255, 0, NULL, NULL, 0, reply);
    assert_int_equal (reply->nrows, 0);
    assert_int_equal (reply->counts [DROVER_TASK_QUEUED], 2);
    drover_msg_destroy (&reply);

    //  A long command is cut to the summary limit
    drover_msg_t *msg = testutil_assign_submit_msg ("echo 0123456789012345678901234567890123456789"
                                                    "0123456789012345678901234567890123456789",
                                                    1, 0, 0);
    uint64_t task;
    assert_int_equal (drover_assign_submit (table, msg, TESTUTIL_CLIENT_ROUTE, &task, &reason),
                      200);
    drover_msg_destroy (&msg);
    reply = drover_msg_new (DROVER_MSG_TASK_TABLE);
    drover_assign_list (table, DROVER_TASK_QUEUED, 3, NULL, NULL, 0, reply);
    assert_int_equal (reply->nrows, 3);
    assert_int_equal (reply->task_rows [2].task, task);
    assert_int_equal (strlen (reply->task_rows [2].summary), DROVER_ASSIGN_SUMMARY_MAX);
    drover_msg_destroy (&reply);

    //  Queued tasks alone come in the order they will run: priority (lower
    //  first), then procs (more first), then id; at most limit of them
    uint64_t urgent, wide;
    msg = testutil_submit_msg ("urgent", 0, 1, 0);
    assert_int_equal (drover_assign_submit (table, msg, TESTUTIL_CLIENT_ROUTE, &urgent, &reason),
                      200);
    drover_msg_destroy (&msg);
    msg = testutil_submit_msg ("wide", 3, 4, 0);
    assert_int_equal (drover_assign_submit (table, msg, TESTUTIL_CLIENT_ROUTE, &wide, &reason),
                      200);
    drover_msg_destroy (&msg);
    reply = drover_msg_new (DROVER_MSG_TASK_TABLE);
    drover_assign_list (table, DROVER_TASK_QUEUED, 100, NULL, NULL, 0, reply);
    uint64_t order [] = { urgent, wide, tasks [0], tasks [2], task };
    assert_int_equal (reply->nrows, 5);
    for (int index = 0; index < 5; index++)
        assert_int_equal (reply->task_rows [index].task, order [index]);
    drover_msg_destroy (&reply);
    reply = drover_msg_new (DROVER_MSG_TASK_TABLE);
    drover_assign_list (table, DROVER_TASK_QUEUED, 2, NULL, NULL, 0, reply);
    assert_int_equal (reply->nrows, 2);
    assert_int_equal (reply->task_rows [0].task, urgent);
    assert_int_equal (reply->task_rows [1].task, wide);
    drover_msg_destroy (&reply);
    drover_assign_destroy (&table);
}

//  Many tasks, finished in a scattered order and evicted: the id hash
//  keeps finding every task that is left (growth and deletion)
static void
test_many_tasks (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    drover_assign_configure (table, 5000, 5, 100000, 1000);
    testutil_assign_up (table, "alpha", TESTUTIL_ALPHA_ROUTE);
    enum { COUNT = 20000 };
    for (int index = 0; index < COUNT; index++) {
        assert_int_equal (testutil_assign_submit (table, 0, 0), index + 1);
        testutil_take_actions (table);
    }
    assert_int_equal (drover_assign_size (table), COUNT);
    //  Cancel every third, in a scattered order
    const char *reason;
    int cancelled = 0;
    for (int step = 0; step < COUNT; step++) {
        uint64_t id = 1 + ((uint64_t) step * 7919) % COUNT;
        if (id % 3 == 0) {
            assert_int_equal (drover_assign_cancel (table, id, &reason), 200);
            cancelled++;
            testutil_take_actions (table);
        }
    }
    drover_assign_expire (table, 0);       //  a call that evicts
    assert_int_equal (drover_assign_count (table, DROVER_TASK_CANCELLED), 1000);
    assert_int_equal (drover_assign_size (table), COUNT - cancelled + 1000);
    int found = 0;
    for (uint64_t id = 1; id <= COUNT; id++) {
        int task_state = drover_assign_state (table, id);
        if (id % 3)
            assert_int_equal (task_state, DROVER_TASK_QUEUED);
        else
            found += task_state == DROVER_TASK_CANCELLED;
    }
    assert_int_equal (found, 1000);
    drover_assign_destroy (&table);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_cancel_queued_and_running),
        cmocka_unit_test (test_wait),
        cmocka_unit_test (test_queue_full),
        cmocka_unit_test (test_submit_validation),
        cmocka_unit_test (test_keep_finished_eviction),
        cmocka_unit_test (test_queue_full_bytes),
        cmocka_unit_test (test_list),
        cmocka_unit_test (test_many_tasks),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
