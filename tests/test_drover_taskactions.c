/*  =========================================================================
    test_drover_taskactions - what the task table says, worded from the
    task it is about, handed out in order, and kept until all are taken
    =========================================================================
*/

#include "testutil_class.h"
#include "testutil_wire.h"
#include "drover_taskactions.h"

//  Actions come out in the order decided; the list starts over only once
//  every one was taken
static void
test_actions_are_handed_out_in_order (void **state)
{
    drover_taskactions_t *actions = drover_taskactions_new ();
    assert_true (drover_taskactions_reset (actions));
    assert_null (drover_taskactions_next (actions));
    drover_taskrecord_t *task = testutil_taskrecord (9, 5, 2, 4096);
    for (int index = 0; index < 100; index++)   //  past the first allocation
        drover_taskactions_event (actions, task, "task.queued", index % 2? "odd": NULL);
    drover_taskactions_queue (actions, task);
    const drover_action_t *action = drover_taskactions_next (actions);
    assert_int_equal (action->type, DROVER_ACTION_EVENT);
    assert_int_equal (action->task, 9);
    assert_string_equal (action->topic, "task.queued");
    assert_string_equal (action->reason, "");
    assert_false (drover_taskactions_reset (actions));  //  99 more held: kept
    for (int index = 1; index < 100; index++) {
        action = drover_taskactions_next (actions);
        assert_string_equal (action->reason, index % 2? "odd": "");
    }
    action = drover_taskactions_next (actions);
    assert_int_equal (action->type, DROVER_ACTION_QUEUE);
    assert_int_equal (action->priority, 5);
    assert_int_equal (action->procs, 2);
    assert_int_equal (action->mem, 4096);
    assert_string_equal (action->labels, "");
    assert_null (drover_taskactions_next (actions));
    assert_true (drover_taskactions_reset (actions));
    assert_null (drover_taskactions_next (actions));
    drover_taskrecord_destroy (&task);
    drover_taskactions_destroy (&actions);
    drover_taskactions_destroy (&actions);      //  harmless twice
    assert_null (actions);
}

//  An offer and a kill go to the worker's route, naming it; tell names
//  whom it is told
static void
test_offer_and_kill_go_to_the_worker (void **state)
{
    drover_taskactions_t *actions = drover_taskactions_new ();
    drover_taskworker_t *worker = drover_taskworker_new ("alpha");
    drover_taskworker_set_route (worker, (const byte *) "\x00\x03" "alpha", 7);
    drover_msg_t *msg = testutil_submit_msg ("true", 5, 2, 0);
    msg->mem = 4096;
    msg->timeout = 1000;
    drover_taskrecord_t *task = drover_taskrecord_new (4, msg);
    drover_msg_destroy (&msg);
    drover_taskrecord_run (task)->attempt = 2;
    drover_taskworker_attach (worker, task);
    drover_taskactions_offer (actions, task);
    drover_taskactions_kill (actions, worker, 3, 1);
    drover_taskactions_tell (actions, DROVER_ACTION_FREE, task, "beta", "why");
    const drover_action_t *offer = drover_taskactions_next (actions);
    assert_int_equal (offer->type, DROVER_ACTION_OFFER);
    assert_int_equal (offer->task, 4);
    assert_int_equal (offer->attempt, 2);
    assert_string_equal (offer->worker, "alpha");
    assert_int_equal (offer->route_size, 7);
    assert_memory_equal (offer->route, "\x00\x03" "alpha", 7);
    assert_int_equal (offer->timeout, 1000);
    const drover_action_t *kill = drover_taskactions_next (actions);
    assert_int_equal (kill->type, DROVER_ACTION_KILL);
    assert_int_equal (kill->task, 3);
    assert_int_equal (kill->attempt, 1);
    assert_string_equal (kill->worker, "alpha");
    assert_memory_equal (kill->route, "\x00\x03" "alpha", 7);
    const drover_action_t *told = drover_taskactions_next (actions);
    assert_string_equal (told->worker, "beta");
    assert_string_equal (told->reason, "why");
    drover_taskworker_detach (worker, task);
    drover_taskrecord_destroy (&task);
    drover_taskworker_destroy (&worker);
    drover_taskactions_destroy (&actions);
}

//  TASK DONE for a task not held says UNKNOWN, ended EXPIRED if its id
//  was given out; for a final task it says its result
static void
test_done_says_the_result_or_why_not (void **state)
{
    drover_taskactions_t *actions = drover_taskactions_new ();
    drover_taskactions_done (actions, NULL, 5, true, (const byte *) "\x00\x01" "c", 3, 11);
    drover_taskactions_done (actions, NULL, 99, false, (const byte *) "\x00\x01" "c", 3, 12);
    drover_taskrecord_t *task = testutil_taskrecord (6, 5, 2, 4096);
    task->state = DROVER_TASK_FAILED;
    task->result = drover_taskresult_new ("alpha", "poison: lost 3 workers");
    task->result->end = DROVER_END_POISON;
    drover_taskactions_done (actions, task, 6, false, (const byte *) "\x00\x01" "c", 3, 13);

    const drover_action_t *done = drover_taskactions_next (actions);
    assert_int_equal (done->type, DROVER_ACTION_DONE);
    assert_int_equal (done->task, 5);
    assert_int_equal (done->seq, 11);
    assert_int_equal (done->state, DROVER_TASK_UNKNOWN);
    assert_int_equal (done->end, DROVER_END_EXPIRED);
    assert_int_equal (done->exit_code, -1);
    assert_memory_equal (done->route, "\x00\x01" "c", 3);
    done = drover_taskactions_next (actions);
    assert_int_equal (done->end, DROVER_END_UNKNOWN);
    done = drover_taskactions_next (actions);
    assert_int_equal (done->state, DROVER_TASK_FAILED);
    assert_int_equal (done->end, DROVER_END_POISON);
    assert_int_equal (done->exit_code, -1);
    assert_string_equal (done->worker, "alpha");
    assert_string_equal (done->reason, "poison: lost 3 workers");
    drover_taskrecord_destroy (&task);
    drover_taskactions_destroy (&actions);
}

//  Run every test
int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_actions_are_handed_out_in_order),
        cmocka_unit_test (test_offer_and_kill_go_to_the_worker),
        cmocka_unit_test (test_done_says_the_result_or_why_not),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
