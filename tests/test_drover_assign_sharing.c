/*  =========================================================================
    test_drover_assign_sharing - the task table's part in sharing a cluster:
    whose a task is (the key's name with CURVE, else the name the client
    gives), queued quotas refused at submit with the figures and counted
    back as tasks leave QUEUED, device demands and the preemptible flag
    passed to schedq and to the worker, a preemption that requeues without
    using a retry, and an OOM kill's end. The plain class is driven
    directly, as testutil_assign says.
    =========================================================================
*/

#include "testutil_assign.h"
#include "drover_queuequota.h"
#include "drover_devicelist.h"

//  Submit msg and return the status code, setting *task_p and *reason_p
static int
s_submit (drover_assign_t *table, drover_msg_t *msg, uint64_t *task_p, const char **reason_p)
{
    *task_p = 0;
    return drover_assign_submit (table, msg, TESTUTIL_CLIENT_ROUTE, task_p, reason_p);
}

//  A submit by owner (no CURVE), with devices text and flags
static drover_msg_t *
s_submit_msg (const char *owner, const char *devices, uint32_t flags)
{
    drover_msg_t *msg = testutil_assign_submit_msg ("echo hi", 1, 0, flags);
    snprintf (msg->owner, sizeof msg->owner, "%s", owner);
    int count = drover_devicelist_parse (devices, msg->devices, NULL);
    assert_true (count >= 0);
    msg->ndevices = (uint32_t) count;
    return msg;
}

//  The owner is the key's name with CURVE (a name given is ignored), else
//  the name given; QUEUE carries the owner, devices and preemptible
static void
test_owner_and_demand (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    drover_msg_t *msg = s_submit_msg ("alice", "gpu=2", DROVER_SUBMIT_PREEMPTIBLE);
    uint64_t plain;
    const char *reason;
    assert_int_equal (s_submit (table, msg, &plain, &reason), 200);
    drover_msg_destroy (&msg);
    assert_string_equal (drover_assign_owner (table, plain), "alice");
    msg = s_submit_msg ("alice", "", 0);
    snprintf (msg->principal, sizeof msg->principal, "carol");
    uint64_t keyed;
    assert_int_equal (s_submit (table, msg, &keyed, &reason), 200);
    drover_msg_destroy (&msg);
    assert_string_equal (drover_assign_owner (table, keyed), "carol");
    testutil_actions_t *actions = testutil_take_actions (table);
    drover_action_t *queue = testutil_find_action (actions, DROVER_ACTION_QUEUE, plain, 0);
    assert_non_null (queue);
    assert_string_equal (queue->devices, "gpu=2");
    assert_int_equal (queue->flags, DROVER_SUBMIT_PREEMPTIBLE);
    queue = testutil_find_action (actions, DROVER_ACTION_QUEUE, keyed, 0);
    assert_string_equal (queue->devices, "");
    assert_int_equal (queue->flags, 0);
    //  The worker is offered the devices, and says which it gave
    testutil_assign_up (table, "alpha", TESTUTIL_ALPHA_ROUTE);
    drover_assign_assign (table, plain, "alpha", 0);
    actions = testutil_take_actions (table);
    drover_action_t *offer = testutil_find_action (actions, DROVER_ACTION_OFFER, plain, 0);
    assert_non_null (offer);
    assert_string_equal (offer->devices, "gpu=2");
    drover_assign_set_assigned (table, plain, "gpu=1,3");
    assert_string_equal (drover_assign_assigned (table, plain), "gpu=1,3");
    assert_string_equal (drover_assign_assigned (table, keyed), "");
    drover_assign_destroy (&table);
}

//  A submit past the queued quota is refused with the figures; the count
//  goes down as tasks leave QUEUED, and an account's quota holds its
//  members together
static void
test_queued_quota (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    char *error = NULL;
    assert_int_equal (drover_assign_set_quotas (table, "team:bob,dan", "alice:queued=2;team:queued=3",
                                                &error), 0);
    uint64_t first, second, refused;
    const char *reason;
    drover_msg_t *msg = s_submit_msg ("alice", "", 0);
    assert_int_equal (s_submit (table, msg, &first, &reason), 200);
    assert_int_equal (s_submit (table, msg, &second, &reason), 200);
    assert_int_equal (s_submit (table, msg, &refused, &reason), DROVER_CODE_QUEUE_FULL);
    assert_string_equal (reason, "quota: alice has 2 tasks queued, at most 2");
    assert_int_equal (refused, 0);
    //  Another owner is not held by alice's quota
    drover_msg_t *other = s_submit_msg ("erin", "", 0);
    uint64_t erin;
    assert_int_equal (s_submit (table, other, &erin, &reason), 200);
    drover_msg_destroy (&other);
    //  One of alice's starts: room for one more
    testutil_take_actions (table);
    testutil_assign_up (table, "alpha", TESTUTIL_ALPHA_ROUTE);
    testutil_assign_offer (table, first, "alpha", 0, 1);
    assert_int_equal (s_submit (table, msg, &refused, &reason), 200);
    assert_int_equal (s_submit (table, msg, &refused, &reason), DROVER_CODE_QUEUE_FULL);
    drover_msg_destroy (&msg);
    //  The account's members share its quota
    msg = s_submit_msg ("bob", "", 0);
    uint64_t task;
    assert_int_equal (s_submit (table, msg, &task, &reason), 200);
    assert_int_equal (s_submit (table, msg, &task, &reason), 200);
    drover_msg_destroy (&msg);
    msg = s_submit_msg ("dan", "", 0);
    assert_int_equal (s_submit (table, msg, &task, &reason), 200);
    assert_int_equal (s_submit (table, msg, &task, &reason), DROVER_CODE_QUEUE_FULL);
    assert_string_equal (reason, "quota: account team has 3 tasks queued, at most 3");
    //  New settings without quotas: nothing is refused, counts kept
    assert_int_equal (drover_assign_set_quotas (table, "", "", &error), 0);
    assert_int_equal (s_submit (table, msg, &task, &reason), 200);
    //  Bad settings are refused and the quotas in force stay
    assert_int_equal (drover_assign_set_quotas (table, "team:", "alice:queued=x", &error), -1);
    assert_non_null (error);
    zstr_free (&error);
    drover_msg_destroy (&msg);
    drover_assign_destroy (&table);
}

//  A preempted attempt is requeued at its place: no retry used, the
//  attempt's reason "preempted"; a task not preemptible is not stopped
static void
test_preempt_requeues (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    testutil_assign_up (table, "alpha", TESTUTIL_ALPHA_ROUTE);
    drover_msg_t *msg = s_submit_msg ("alice", "", DROVER_SUBMIT_PREEMPTIBLE);
    uint64_t victim, keeper;
    const char *reason;
    assert_int_equal (s_submit (table, msg, &victim, &reason), 200);
    drover_msg_destroy (&msg);
    msg = s_submit_msg ("alice", "", 0);
    assert_int_equal (s_submit (table, msg, &keeper, &reason), 200);
    drover_msg_destroy (&msg);
    testutil_take_actions (table);
    testutil_assign_offer (table, victim, "alpha", 0, 1);
    testutil_assign_start (table, victim, "alpha", 1);
    testutil_assign_offer (table, keeper, "alpha", 0, 1);
    assert_int_equal (drover_assign_preempt (table, keeper, "alpha", 99), -1);
    assert_int_equal (drover_assign_preempt (table, victim, "beta", 99), -1);
    assert_int_equal (drover_assign_preempt (table, victim, "alpha", 99), 0);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_KILL, victim, 0));
    drover_action_t *event = testutil_find_event (actions, "task.preempted", victim);
    assert_non_null (event);
    assert_string_equal (event->reason, "preempted for task 99");
    assert_int_equal (drover_assign_preempt (table, victim, "alpha", 99), -1);  //  once
    //  Killed: back in the queue, retries untouched
    assert_int_equal (testutil_assign_result (table, victim, "alpha", 1, DROVER_OUTCOME_CANCELLED,
                                              -1, ""), 200);
    actions = testutil_take_actions (table);
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_FREE, victim, 0));
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_QUEUE, victim, 0));
    event = testutil_find_event (actions, "task.requeued", victim);
    assert_non_null (event);
    assert_string_equal (event->reason, "preempted");
    assert_int_equal (testutil_count_actions (actions, DROVER_ACTION_SUCCESS), 0);
    assert_int_equal (testutil_count_actions (actions, DROVER_ACTION_FAILURE), 0);
    assert_int_equal (drover_assign_state (table, victim), DROVER_TASK_QUEUED);
    drover_taskinfo_t *info = NULL;
    assert_int_equal (drover_assign_show (table, victim, &info, &reason), 200);
    assert_int_equal (info->retries_left, 0);
    assert_true (info->nattempts >= 1);
    assert_string_equal (info->attempts [0].reason, "preempted");
    drover_taskinfo_destroy (&info);
    //  Runs again as attempt 2 and succeeds
    testutil_assign_offer (table, victim, "alpha", 0, 2);
    testutil_assign_result (table, victim, "alpha", 2, DROVER_OUTCOME_EXITED, 0, "");
    assert_int_equal (drover_assign_state (table, victim), DROVER_TASK_SUCCEEDED);
    drover_assign_destroy (&table);
}

//  An attempt the OOM killer ended: FAILED, end OOM
static void
test_oom_end (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    testutil_assign_up (table, "alpha", TESTUTIL_ALPHA_ROUTE);
    uint64_t task = testutil_assign_submit (table, 0, DROVER_SUBMIT_NOTIFY);
    testutil_take_actions (table);
    testutil_assign_offer (table, task, "alpha", 0, 1);
    testutil_assign_result (table, task, "alpha", 1, DROVER_OUTCOME_OOM, -1, "");
    testutil_actions_t *actions = testutil_take_actions (table);
    drover_action_t *done = testutil_find_action (actions, DROVER_ACTION_DONE, task, 0);
    assert_non_null (done);
    assert_int_equal (done->state, DROVER_TASK_FAILED);
    assert_int_equal (done->end, DROVER_END_OOM);
    drover_assign_destroy (&table);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_owner_and_demand),
        cmocka_unit_test (test_queued_quota),
        cmocka_unit_test (test_preempt_requeues),
        cmocka_unit_test (test_oom_end),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
