/*  =========================================================================
    testutil_class - the broker's classes driven in-process, without their actors (see the header)
    =========================================================================
*/

#include "testutil_class.h"
#include "testutil_wire.h"
#include "drover_taskrecord.h"

//  Take every pending action of a task table
testutil_actions_t *
testutil_take_actions (drover_assign_t *table)
{
    static testutil_actions_t actions;
    actions.count = 0;
    const drover_action_t *action;
    while ((action = drover_assign_next_action (table))) {
        assert_true (actions.count < TESTUTIL_MAX_ACTIONS);
        actions.items [actions.count++] = *action;
    }
    return &actions;
}

//  Find the nth action of a type about a task (task 0: any), or NULL
drover_action_t *
testutil_find_action (testutil_actions_t *actions, int type, uint64_t task, int nth)
{
    for (int index = 0; index < actions->count; index++) {
        drover_action_t *action = &actions->items [index];
        if (action->type == type && (task == 0 || action->task == task) && nth-- == 0)
            return action;
    }
    return NULL;
}

//  Note one SEND or REPLY record as a decoded message (drover_outbox_each
//  calls this)
static void
s_read_send (void *arg, drover_record_t *record)
{
    testutil_sends_t *sends = (testutil_sends_t *) arg;
    assert_true (record->kind == DROVER_RECORD_SEND || record->kind == DROVER_RECORD_REPLY);
    assert_true (sends->count < TESTUTIL_MAX_SENDS);
    drover_msg_t *msg = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (msg, zframe_data (record->payload),
                                         zframe_size (record->payload)), 0);
    snprintf (sends->workers [sends->count], DROVER_ID_MAX + 1, "%s", record->worker);
    sends->msgs [sends->count++] = msg;
}

//  Read every record the outbox holds into sends, decoded
void
testutil_read_sends (drover_outbox_t *outbox, testutil_sends_t *sends)
{
    assert_int_equal (sends->count, 0);
    drover_outbox_each (outbox, s_read_send, sends);
}

//  Destroy the messages sends holds
void
testutil_sends_reset (testutil_sends_t *sends)
{
    for (size_t index = 0; index < sends->count; index++)
        drover_msg_destroy (&sends->msgs [index]);
    sends->count = 0;
}

//  Make a task record as a submit would
struct _drover_taskrecord_t *
testutil_taskrecord (uint64_t id, int priority, int procs, uint64_t mem)
{
    drover_msg_t *msg = testutil_submit_msg ("true", priority, procs, 0);
    msg->mem = mem;
    drover_taskrecord_t *task = drover_taskrecord_new (id, msg);
    drover_msg_destroy (&msg);
    return task;
}

//  The fake wall clock: msec since the epoch, read from *arg
static int64_t
s_fake_clock (void *arg)
{
    return *(int64_t *) arg;
}

//  A task table on a fake wall clock reading *now, alpha and beta up
drover_assign_t *
testutil_fake_table (int64_t *now)
{
    drover_assign_t *table = drover_assign_new ();
    drover_assign_set_clock (table, s_fake_clock, now);
    drover_assign_worker_up (table, "alpha", TESTUTIL_ALPHA_ROUTE, NULL, 0);
    drover_assign_worker_up (table, "beta", TESTUTIL_BETA_ROUTE, NULL, 0);
    testutil_take_actions (table);
    return table;
}

//  Submit "true" with retries; returns its id
uint64_t
testutil_table_submit (drover_assign_t *table, uint32_t retries)
{
    drover_msg_t *msg = testutil_submit_msg ("true", 0, 1, 0);
    msg->retries = retries;
    uint64_t task = 0;
    const char *reason;
    assert_int_equal (drover_assign_submit (table, msg, TESTUTIL_CLIENT_ROUTE, &task,
                                               &reason), 200);
    drover_msg_destroy (&msg);
    testutil_take_actions (table);
    return task;
}

//  Report a result; asserts it is accepted
void
testutil_table_result (drover_assign_t *table, uint64_t task, const char *worker,
                       uint32_t attempt, int outcome, int exit_code, int signal,
                       const char *reason)
{
    drover_msg_t *msg = testutil_result_msg (worker, task, attempt, outcome, exit_code);
    msg->signal = signal;
    if (reason)
        drover_msg_set_reason (msg, reason);
    const char *text;
    assert_int_equal (drover_assign_result (table, msg, &text), 200);
    drover_msg_destroy (&msg);
}
