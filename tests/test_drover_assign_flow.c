/*  =========================================================================
    test_drover_assign_flow - the task table's decisions for tasks that
    wait before the queue, with a fake clock: each dependency kind, a
    cascade down a chain of 10,000, begin times, retries spaced by their
    backoff, arrays under their limit, workflows checked whole, and why a
    held task waits. The plain class is driven directly, as testutil_assign
    says.
    =========================================================================
*/

#include "testutil_assign.h"

//  The fake wall clock, msec since the epoch
static int64_t s_clock = 1700000000000;

//  Read the fake clock (drover_assign_clock_fn)
static int64_t
s_fake_clock (void *arg)
{
    (void) arg;
    return s_clock;
}

//  A table on the fake clock, with worker alpha up
static drover_assign_t *
s_table (void)
{
    drover_assign_t *table = drover_assign_new ();
    drover_assign_set_clock (table, s_fake_clock, NULL);
    testutil_assign_up (table, "alpha", TESTUTIL_ALPHA_ROUTE);
    return table;
}

//  Submit msg (destroyed) and return its id; expect code
static uint64_t
s_submit (drover_assign_t *table, drover_msg_t *msg, int code)
{
    uint64_t task = 0;
    const char *reason;
    assert_int_equal (drover_assign_submit (table, msg, TESTUTIL_CLIENT_ROUTE, &task, &reason),
                      code);
    drover_msg_destroy (&msg);
    return task;
}

//  A submit of "true" that waits for parent with kind
static drover_msg_t *
s_after (int kind, uint64_t parent)
{
    drover_msg_t *msg = testutil_assign_submit_msg ("true", 1, 0, 0);
    msg->after = (drover_after_t *) zmalloc (sizeof (drover_after_t));
    msg->after [0] = (drover_after_t) { (uint8_t) kind, parent };
    msg->nafter = 1;
    return msg;
}

//  Run a queued task on alpha to its end with exit code (0 succeeds);
//  returns the actions that end decided
static testutil_actions_t *
s_run (drover_assign_t *table, uint64_t task, int exit_code)
{
    uint32_t attempt = drover_assign_attempt (table, task) + 1;
    testutil_assign_offer (table, task, "alpha", 1000, attempt);
    testutil_assign_start (table, task, "alpha", attempt);
    assert_int_equal (testutil_assign_result (table, task, "alpha", attempt,
                                              DROVER_OUTCOME_EXITED, exit_code, NULL), 200);
    return testutil_take_actions (table);
}

//  True if the actions queue task (a QUEUE to schedq)
static bool
s_queued (testutil_actions_t *actions, uint64_t task)
{
    return testutil_find_action (actions, DROVER_ACTION_QUEUE, task, 0) != NULL;
}

//  The end of a final task, as its TASK INFO says it
static int
s_end_of (drover_assign_t *table, uint64_t task)
{
    drover_taskinfo_t *info;
    const char *reason;
    assert_int_equal (drover_assign_show (table, task, &info, &reason), 200);
    int end = info->end;
    drover_taskinfo_destroy (&info);
    return end;
}

//  after: held until its parent succeeds, then queued (task.released);
//  after-any: released by a failure too; after-fail: released by a
//  failure, cancelled (DEPENDENCY) by a success; after on a failure:
//  cancelled, and its own child in turn
static void
test_each_kind (void **state)
{
    (void) state;
    drover_assign_t *table = s_table ();
    uint64_t good = testutil_assign_submit (table, 0, 0);
    uint64_t bad = testutil_assign_submit (table, 0, 0);
    testutil_take_actions (table);
    uint64_t ok = s_submit (table, s_after (DROVER_AFTER_OK, good), 200);
    uint64_t any = s_submit (table, s_after (DROVER_AFTER_ANY, bad), 200);
    uint64_t fail = s_submit (table, s_after (DROVER_AFTER_FAIL, bad), 200);
    uint64_t unneeded = s_submit (table, s_after (DROVER_AFTER_FAIL, good), 200);
    uint64_t doomed = s_submit (table, s_after (DROVER_AFTER_OK, bad), 200);
    uint64_t grandchild = s_submit (table, s_after (DROVER_AFTER_OK, doomed), 200);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_int_equal (testutil_count_actions (actions, DROVER_ACTION_QUEUE), 0);
    drover_action_t *waiting = testutil_find_event (actions, "task.waiting", ok);
    assert_non_null (waiting);
    char text [32];
    snprintf (text, sizeof text, "after %" PRIu64, good);
    assert_string_equal (waiting->reason, text);
    assert_int_equal (drover_assign_held (table, DROVER_WAITS_AFTER), 6);

    actions = s_run (table, good, 0);
    assert_true (s_queued (actions, ok));
    assert_non_null (testutil_find_event (actions, "task.released", ok));
    assert_non_null (testutil_find_event (actions, "task.cancelled", unneeded));
    assert_int_equal (s_end_of (table, unneeded), DROVER_END_DEPENDENCY);

    actions = s_run (table, bad, 1);
    assert_true (s_queued (actions, any));
    assert_true (s_queued (actions, fail));
    assert_false (s_queued (actions, doomed));
    assert_int_equal (drover_assign_state (table, doomed), DROVER_TASK_CANCELLED);
    assert_int_equal (drover_assign_state (table, grandchild), DROVER_TASK_CANCELLED);
    assert_int_equal (s_end_of (table, grandchild), DROVER_END_DEPENDENCY);
    drover_action_t *cancelled = testutil_find_event (actions, "task.cancelled", doomed);
    assert_non_null (cancelled);
    char expected [64];
    snprintf (expected, sizeof expected, "dependency: task %" PRIu64 " FAILED", bad);
    assert_string_equal (cancelled->reason, expected);
    assert_int_equal (drover_assign_held (table, DROVER_WAITS_AFTER), 0);
    drover_assign_destroy (&table);
}

//  A parent that ended before the child came releases or dooms it at
//  submit; an unknown parent is refused, and so is a step outside a
//  workflow
static void
test_parent_ended_before (void **state)
{
    (void) state;
    drover_assign_t *table = s_table ();
    uint64_t parent = testutil_assign_submit (table, 0, 0);
    testutil_take_actions (table);
    s_run (table, parent, 0);
    uint64_t child = s_submit (table, s_after (DROVER_AFTER_OK, parent), 200);
    assert_true (s_queued (testutil_take_actions (table), child));
    uint64_t other = s_submit (table, s_after (DROVER_AFTER_FAIL, parent), 200);
    assert_int_equal (drover_assign_state (table, other), DROVER_TASK_CANCELLED);
    s_submit (table, s_after (DROVER_AFTER_OK, 999), DROVER_CODE_NOT_FOUND);
    s_submit (table, s_after (DROVER_AFTER_OK | DROVER_AFTER_STEP, 1), DROVER_CODE_BAD_REQUEST);
    drover_assign_destroy (&table);
}

//  A chain of 10,000, each after the one before: the head's failure
//  cancels all of it in one call, without recursion; the actions say one
//  task.cancelled per link
static void
test_chain_cascade (void **state)
{
    (void) state;
    enum { S_CHAIN = 10000 };
    drover_assign_t *table = s_table ();
    uint64_t head = testutil_assign_submit (table, 0, 0);
    uint64_t last = head;
    for (int link = 0; link < S_CHAIN; link++) {
        last = s_submit (table, s_after (DROVER_AFTER_OK, last), 200);
        while (drover_assign_next_action (table))
            ;
    }
    assert_int_equal (drover_assign_held (table, DROVER_WAITS_AFTER), S_CHAIN);
    testutil_assign_offer (table, head, "alpha", 1000, 1);
    testutil_assign_start (table, head, "alpha", 1);
    assert_int_equal (testutil_assign_result (table, head, "alpha", 1, DROVER_OUTCOME_EXITED, 2,
                                              NULL), 200);
    size_t cancelled = 0;
    const drover_action_t *action;
    while ((action = drover_assign_next_action (table)))
        if (action->type == DROVER_ACTION_EVENT && streq (action->topic, "task.cancelled"))
            cancelled++;
    assert_int_equal (cancelled, S_CHAIN);
    assert_int_equal (drover_assign_state (table, last), DROVER_TASK_CANCELLED);
    assert_int_equal (drover_assign_held (table, DROVER_WAITS_AFTER), 0);
    drover_assign_destroy (&table);
}

//  A begin time holds the task until the clock reaches it; explain says
//  when; expire releases it then, not before
static void
test_begin_time (void **state)
{
    (void) state;
    drover_assign_t *table = s_table ();
    drover_msg_t *msg = testutil_assign_submit_msg ("true", 1, 0, 0);
    msg->begin = (uint64_t) s_clock + 60000;
    uint64_t task = s_submit (table, msg, 200);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_false (s_queued (actions, task));
    assert_non_null (testutil_find_event (actions, "task.waiting", task));
    drover_msg_t *reply = drover_msg_new (DROVER_MSG_TASK_EXPLANATION);
    assert_true (drover_assign_explain_held (table, task, reply));
    assert_int_equal (reply->nwhys, 1);
    assert_int_equal (reply->whys [0].code, DROVER_WHY_BEGIN);
    assert_int_equal (reply->whys [0].a, (uint64_t) s_clock + 60000);
    drover_msg_destroy (&reply);
    //  The next deadline is the begin time, on the monotonic clock given
    assert_int_equal (drover_assign_expire (table, 5000), 5000 + 60000);
    s_clock += 59999;
    drover_assign_expire (table, 5000);
    assert_false (s_queued (testutil_take_actions (table), task));
    s_clock += 1;
    drover_assign_expire (table, 5000);
    actions = testutil_take_actions (table);
    assert_true (s_queued (actions, task));
    assert_non_null (testutil_find_event (actions, "task.released", task));
    assert_int_equal (drover_assign_held (table, DROVER_WAITS_BEGIN), 0);
    drover_assign_destroy (&table);
}

//  Retries with a delay wait their backoff (doubling, within the jitter)
//  before each attempt; the last failure ends the task FAILED
static void
test_retry_backoff (void **state)
{
    (void) state;
    drover_assign_t *table = s_table ();
    drover_msg_t *msg = testutil_assign_submit_msg ("false", 1, 3, 0);
    msg->retry_delay = 10000;
    msg->retry_max_delay = 25000;
    uint64_t task = s_submit (table, msg, 200);
    testutil_take_actions (table);
    uint32_t waits [] = { 10000, 20000, 25000 };
    for (int retry = 0; retry < 3; retry++) {
        testutil_actions_t *actions = s_run (table, task, 1);
        assert_false (s_queued (actions, task));
        drover_action_t *retrying = testutil_find_event (actions, "task.retrying", task);
        assert_non_null (retrying);
        int64_t due;
        uint8_t waits_now;
        uint64_t group;
        uint32_t made;
        drover_assign_flow_fields (table, task, &waits_now, &due, &group, &made);
        assert_int_equal (waits_now, DROVER_WAITS_RETRY);
        assert_true (due - s_clock >= waits [retry] * 8 / 10);
        assert_true (due - s_clock <= waits [retry] * 12 / 10);
        s_clock = due - 1;
        drover_assign_expire (table, 0);
        assert_false (s_queued (testutil_take_actions (table), task));
        s_clock = due;
        drover_assign_expire (table, 0);
        assert_true (s_queued (testutil_take_actions (table), task));
    }
    s_run (table, task, 1);
    assert_int_equal (drover_assign_state (table, task), DROVER_TASK_FAILED);
    drover_assign_destroy (&table);
}

//  An array of 10 with limit 3: its own id first, 3 elements made and
//  queued, one more each time one ends; the array ends once all have,
//  FAILED if one failed. Its elements' commands carry their index.
static void
test_array_limit (void **state)
{
    (void) state;
    drover_assign_t *table = s_table ();
    drover_msg_t *msg = testutil_assign_submit_msg ("true", 1, 0, 0);
    msg->array = (drover_array_spec_t) { 100, 10, 10, 3 };
    uint64_t array = s_submit (table, msg, 200);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_int_equal (testutil_count_actions (actions, DROVER_ACTION_QUEUE), 3);
    assert_true (s_queued (actions, array + 1));
    assert_true (s_queued (actions, array + 3));
    assert_int_equal (drover_assign_held (table, DROVER_WAITS_ARRAY), 7);
    //  Element 4 is not made yet: shown as waiting for its array
    drover_taskinfo_t *info;
    const char *reason;
    assert_int_equal (drover_assign_show (table, array + 4, &info, &reason), 200);
    assert_int_equal (info->waits, DROVER_WAITS_ARRAY);
    assert_int_equal (info->group, array);
    assert_int_equal (info->index, 130);
    drover_taskinfo_destroy (&info);
    drover_msg_t *reply = drover_msg_new (DROVER_MSG_TASK_EXPLANATION);
    assert_true (drover_assign_explain_held (table, array, reply));
    assert_int_equal (reply->whys [0].code, DROVER_WHY_GROUP);
    assert_int_equal (reply->whys [1].code, DROVER_WHY_ARRAY_LIMIT);
    assert_int_equal (reply->whys [1].b, 3);
    drover_msg_destroy (&reply);
    //  Its element's command has DROVER_ARRAY_ID and DROVER_ARRAY_INDEX
    assert_int_equal (drover_assign_show (table, array + 2, &info, &reason), 200);
    bool named = false;
    for (uint32_t index = 0; index < info->nenv; index++)
        named |= streq (info->env [index], "DROVER_ARRAY_INDEX");
    assert_true (named);
    assert_int_equal (info->index, 110);
    assert_int_equal (info->array_first, 100);          //  its array's: index 0 reads so
    assert_int_equal (info->array_step, 10);
    drover_taskinfo_destroy (&info);
    int ran = 0;
    for (uint64_t element = array + 1; element <= array + 10; element++) {
        actions = s_run (table, element, element == array + 5? 1: 0);
        ran++;
        if (element + 3 <= array + 10)
            assert_true (s_queued (actions, element + 3));
    }
    assert_int_equal (ran, 10);
    assert_int_equal (drover_assign_state (table, array), DROVER_TASK_FAILED);
    assert_int_equal (drover_assign_held (table, DROVER_WAITS_ARRAY), 0);
    assert_int_equal (drover_assign_held (table, DROVER_WAITS_GROUP), 0);
    drover_assign_destroy (&table);
}

//  Cancelling an array cancels what is queued and makes nothing more; a
//  child after the array is cancelled in turn
static void
test_array_cancel (void **state)
{
    (void) state;
    drover_assign_t *table = s_table ();
    drover_msg_t *msg = testutil_assign_submit_msg ("true", 1, 0, 0);
    msg->array = (drover_array_spec_t) { 0, 1, 1000, 0 };
    uint64_t array = s_submit (table, msg, 200);
    uint64_t child = s_submit (table, s_after (DROVER_AFTER_OK, array), 200);
    size_t queued = 0;
    const drover_action_t *action;
    while ((action = drover_assign_next_action (table)))
        queued += action->type == DROVER_ACTION_QUEUE;
    assert_int_equal (queued, 1000);        //  without a limit: all of them, within the window
    const char *reason;
    assert_int_equal (drover_assign_cancel (table, array, &reason), 200);
    assert_int_equal (drover_assign_state (table, array), DROVER_TASK_CANCELLED);
    assert_int_equal (drover_assign_state (table, array + 1), DROVER_TASK_CANCELLED);
    assert_int_equal (drover_assign_state (table, child), DROVER_TASK_CANCELLED);
    assert_int_equal (drover_assign_held (table, DROVER_WAITS_ARRAY), 0);
    drover_assign_destroy (&table);
}

//  A wait for an element not made yet gets its TASK DONE when the element
//  is made and ends, or, if the array is cancelled first, CANCELLED then
static void
test_wait_for_unmade_element (void **state)
{
    (void) state;
    drover_assign_t *table = s_table ();
    drover_msg_t *msg = testutil_assign_submit_msg ("true", 1, 0, 0);
    msg->array = (drover_array_spec_t) { 0, 1, 10, 2 };
    uint64_t array = s_submit (table, msg, 200);
    testutil_take_actions (table);
    const char *reason;
    uint64_t unmade = array + 8;
    assert_false (drover_assign_evicted (table, unmade));      //  not to be read back
    assert_int_equal (drover_assign_wait (table, &unmade, 1, 9, TESTUTIL_CLIENT_ROUTE, &reason),
                      200);
    assert_null (testutil_find_action (testutil_take_actions (table), DROVER_ACTION_DONE,
                                       unmade, 0));
    assert_int_equal (drover_assign_cancel (table, unmade, &reason), DROVER_CODE_CONFLICT);
    assert_int_equal (drover_assign_cancel (table, array, &reason), 200);
    drover_action_t *done = testutil_find_action (testutil_take_actions (table),
                                                  DROVER_ACTION_DONE, unmade, 0);
    assert_non_null (done);
    assert_int_equal (done->state, DROVER_TASK_CANCELLED);
    assert_int_equal (done->seq, 9);
    drover_assign_destroy (&table);
}

//  Build a workflow of named steps; after [i] names step after [i] (from
//  1, 0 none) for step i + 1
static drover_msg_t *
s_workflow (const char **names, const uint32_t *after, uint32_t count)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_WORKFLOW_SUBMIT);
    drover_msg_set_reason (msg, "pipeline");
    msg->nsteps = count;
    msg->step_names = (char **) zmalloc (count * sizeof (char *));
    msg->steps = (drover_msg_t **) zmalloc (count * sizeof (drover_msg_t *));
    for (uint32_t step = 0; step < count; step++) {
        msg->step_names [step] = strdup (names [step]);
        msg->steps [step] = after [step]
                          ? s_after (DROVER_AFTER_OK | DROVER_AFTER_STEP, after [step])
                          : testutil_assign_submit_msg ("true", 1, 0, 0);
    }
    return msg;
}

//  A workflow is accepted whole, parents numbered first (a step may name
//  one written below it); it ends once its steps have; a cycle is refused
//  naming its steps, and nothing is accepted
static void
test_workflow_whole (void **state)
{
    (void) state;
    drover_assign_t *table = s_table ();
    const char *names [] = { "merge", "fetch", "transform" };
    uint32_t after [] = { 3, 0, 2 };
    drover_msg_t *msg = s_workflow (names, after, 3);
    uint64_t workflow, ids [3];
    const char *reason;
    assert_int_equal (drover_assign_submit_workflow (table, msg, &workflow, ids, &reason), 200);
    drover_msg_destroy (&msg);
    assert_true (ids [1] < ids [2] && ids [2] < ids [0]);
    assert_true (workflow < ids [1]);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_true (s_queued (actions, ids [1]));
    assert_false (s_queued (actions, ids [2]));
    s_run (table, ids [1], 0);
    s_run (table, ids [2], 0);
    assert_int_equal (drover_assign_state (table, workflow), DROVER_TASK_QUEUED);
    s_run (table, ids [0], 0);
    assert_int_equal (drover_assign_state (table, workflow), DROVER_TASK_SUCCEEDED);

    uint32_t cycle [] = { 3, 1, 2 };
    msg = s_workflow (names, cycle, 3);
    size_t before = drover_assign_size (table);
    assert_int_equal (drover_assign_submit_workflow (table, msg, &workflow, ids, &reason),
                      DROVER_CODE_BAD_REQUEST);
    assert_string_equal (reason, "a cycle joins steps merge fetch transform");
    assert_int_equal (drover_assign_size (table), before);
    drover_msg_destroy (&msg);
    uint32_t unknown [] = { 0, 7, 0 };
    msg = s_workflow (names, unknown, 3);
    assert_int_equal (drover_assign_submit_workflow (table, msg, &workflow, ids, &reason),
                      DROVER_CODE_BAD_REQUEST);
    assert_non_null (strstr (reason, "step 2 (fetch)"));
    drover_msg_destroy (&msg);
    drover_assign_destroy (&table);
}

//  A clean-up step after-fail that was not needed does not fail its
//  workflow: it ends SUCCEEDED when every other step did
static void
test_workflow_cleanup_skipped (void **state)
{
    (void) state;
    drover_assign_t *table = s_table ();
    const char *names [] = { "work", "cleanup" };
    uint32_t after [] = { 0, 1 };
    drover_msg_t *msg = s_workflow (names, after, 2);
    msg->steps [1]->after [0].kind = DROVER_AFTER_FAIL | DROVER_AFTER_STEP;
    uint64_t workflow, ids [2];
    const char *reason;
    assert_int_equal (drover_assign_submit_workflow (table, msg, &workflow, ids, &reason), 200);
    drover_msg_destroy (&msg);
    testutil_take_actions (table);
    s_run (table, ids [0], 0);
    assert_int_equal (drover_assign_state (table, ids [1]), DROVER_TASK_CANCELLED);
    assert_int_equal (drover_assign_state (table, workflow), DROVER_TASK_SUCCEEDED);
    drover_assign_destroy (&table);
}

//  Explain names the parents a task still waits for, with their states
static void
test_explain_parents (void **state)
{
    (void) state;
    drover_assign_t *table = s_table ();
    uint64_t first = testutil_assign_submit (table, 0, 0);
    uint64_t second = testutil_assign_submit (table, 0, 0);
    testutil_take_actions (table);
    testutil_assign_offer (table, first, "alpha", 1000, 1);
    testutil_assign_start (table, first, "alpha", 1);
    drover_msg_t *msg = s_after (DROVER_AFTER_OK, first);
    msg->after = (drover_after_t *) realloc (msg->after, 2 * sizeof (drover_after_t));
    msg->after [1] = (drover_after_t) { DROVER_AFTER_ANY, second };
    msg->nafter = 2;
    uint64_t child = s_submit (table, msg, 200);
    drover_msg_t *reply = drover_msg_new (DROVER_MSG_TASK_EXPLANATION);
    assert_true (drover_assign_explain_held (table, child, reply));
    assert_int_equal (reply->nwhys, 2);
    assert_int_equal (reply->whys [0].code, DROVER_WHY_PARENT);
    assert_int_equal (reply->whys [0].a, first);
    assert_int_equal (reply->whys [0].b, DROVER_TASK_RUNNING);
    assert_int_equal (reply->whys [0].count, 2);
    assert_int_equal (reply->whys [1].a, second);
    assert_int_equal (reply->whys [1].b, DROVER_TASK_QUEUED);
    drover_msg_destroy (&reply);
    reply = drover_msg_new (DROVER_MSG_TASK_EXPLANATION);
    assert_false (drover_assign_explain_held (table, first, reply));     //  it runs
    drover_msg_destroy (&reply);
    drover_assign_destroy (&table);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_each_kind),
        cmocka_unit_test (test_parent_ended_before),
        cmocka_unit_test (test_chain_cascade),
        cmocka_unit_test (test_begin_time),
        cmocka_unit_test (test_retry_backoff),
        cmocka_unit_test (test_array_limit),
        cmocka_unit_test (test_array_cancel),
        cmocka_unit_test (test_wait_for_unmade_element),
        cmocka_unit_test (test_workflow_whole),
        cmocka_unit_test (test_workflow_cleanup_skipped),
        cmocka_unit_test (test_explain_parents),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
