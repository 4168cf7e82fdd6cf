/*  =========================================================================
    testutil_assign - the task table's tests' fixtures
    (test_drover_assign_lifecycle, _workers, _clients): counting and
    finding the actions it decides, and driving it through SUBMIT, an
    offer, STARTED, RESULT and a worker's UP, asserting each step
    =========================================================================
*/

#include "testutil_assign.h"

//  Count the actions of a type
int
testutil_count_actions (testutil_actions_t *actions, int type)
{
    int count = 0;
    for (int index = 0; index < actions->count; index++)
        count += actions->items [index].type == type;
    return count;
}

//  Find the event with a topic about a task, or NULL
drover_action_t *
testutil_find_event (testutil_actions_t *actions, const char *topic, uint64_t task)
{
    for (int index = 0; index < actions->count; index++) {
        drover_action_t *action = &actions->items [index];
        if (action->type == DROVER_ACTION_EVENT && streq (action->topic, topic) && action->task == task)
            return action;
    }
    return NULL;
}

//  Build a TASK SUBMIT running argv "sh -c script" (priority 3, 1 MiB,
//  a minute at most)
drover_msg_t *
testutil_assign_submit_msg (const char *script, int procs, uint32_t retries, uint32_t flags)
{
    drover_msg_t *msg = testutil_submit_msg (script, 3, procs, flags);
    msg->retries = retries;
    msg->mem = 1 << 20;
    msg->timeout = 60000;
    return msg;
}

//  Submit a task from the client and return its id
uint64_t
testutil_assign_submit (drover_assign_t *table, uint32_t retries, uint32_t flags)
{
    drover_msg_t *msg = testutil_assign_submit_msg ("echo hi", 1, retries, flags);
    uint64_t task = 0;
    const char *reason = NULL;
    assert_int_equal (drover_assign_submit (table, msg, TESTUTIL_CLIENT_ROUTE, &task, &reason),
                      200);
    assert_true (task > 0);
    drover_msg_destroy (&msg);
    return task;
}

//  Assign a task to a worker and check the offer it makes
void
testutil_assign_offer (drover_assign_t *table, uint64_t task, const char *worker, int64_t now,
                       uint32_t attempt)
{
    drover_assign_assign (table, task, worker, now);
    testutil_actions_t *actions = testutil_take_actions (table);
    drover_action_t *offer = testutil_find_action (actions, DROVER_ACTION_OFFER, task, 0);
    assert_non_null (offer);
    assert_int_equal (offer->attempt, attempt);
    assert_string_equal (offer->worker, worker);
    assert_non_null (testutil_find_event (actions, "task.assigned", task));
    assert_int_equal (drover_assign_state (table, task), DROVER_TASK_ASSIGNED);
}

//  Acknowledge an attempt
void
testutil_assign_start (drover_assign_t *table, uint64_t task, const char *worker, uint32_t attempt)
{
    const char *reason;
    assert_int_equal (drover_assign_started (table, worker, task, attempt, &reason), 200);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_non_null (testutil_find_event (actions, "task.running", task));
    assert_int_equal (drover_assign_state (table, task), DROVER_TASK_RUNNING);
}

//  Report a result from a worker; returns the status code
int
testutil_assign_result (drover_assign_t *table, uint64_t task, const char *worker, uint32_t attempt,
                        int outcome, int exit_code, const char *out)
{
    drover_msg_t *msg = testutil_result_msg (worker, task, attempt, outcome, exit_code);
    msg->duration = 42;
    if (out)
        drover_msg_set_output (msg, (const byte *) out, strlen (out), (const byte *) "e", 1);
    const char *reason;
    int code = drover_assign_result (table, msg, &reason);
    drover_msg_destroy (&msg);
    return code;
}

//  Register a worker with nothing running
void
testutil_assign_up (drover_assign_t *table, const char *worker, const byte *route, size_t size)
{
    drover_assign_worker_up (table, worker, route, size, NULL, 0);
    assert_int_equal (testutil_take_actions (table)->count, 0);
}
