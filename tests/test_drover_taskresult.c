/*  =========================================================================
    test_drover_taskresult - a finished task's result: made with no
    process status or taken from a TASK RESULT, its end, its failure text
    =========================================================================
*/

#include "testutil.h"
#include "drover_taskresult.h"

//  A result the broker makes itself has no process status and no outputs
static void
test_new_without_status (void **state)
{
    drover_taskresult_t *result = drover_taskresult_new (NULL, "");
    assert_non_null (result);
    assert_string_equal (result->worker, "");
    assert_int_equal (result->exit_code, -1);
    assert_null (result->reason);
    assert_int_equal (drover_taskresult_bytes (result), 0);
    drover_taskresult_destroy (&result);
    assert_null (result);
    drover_taskresult_destroy (&result);    //  harmless twice

    result = drover_taskresult_new ("w1", "cancelled while queued");
    assert_string_equal (result->worker, "w1");
    assert_string_equal (result->reason, "cancelled while queued");
    drover_taskresult_destroy (&result);
}

//  Taking a TASK RESULT moves its outputs: the message holds none after
static void
test_take_moves_outputs (void **state)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_TASK_RESULT);
    msg->outcome = DROVER_OUTCOME_EXITED;
    msg->exit_code = 3;
    msg->duration = 42;
    drover_msg_set_output (msg, (const byte *) "hello", 5, (const byte *) "e", 1);
    drover_taskresult_t *result = drover_taskresult_take (msg, "w1", "exit 3");
    assert_null (msg->out);
    assert_null (msg->err);
    assert_int_equal (msg->out_size + msg->err_size, 0);
    assert_int_equal (result->exit_code, 3);
    assert_int_equal (result->duration, 42);
    assert_int_equal (result->out_size, 5);
    assert_memory_equal (result->out, "hello", 5);
    assert_int_equal (drover_taskresult_bytes (result), 6);
    assert_string_equal (result->reason, "exit 3");
    drover_msg_destroy (&msg);
    drover_taskresult_destroy (&result);
}

//  The end follows the state and the last outcome, unless already set to
//  one that fits the state
static void
test_end_of (void **state)
{
    drover_taskresult_t *result = drover_taskresult_new ("w1", NULL);
    assert_int_equal (drover_taskresult_end_of (result, DROVER_TASK_SUCCEEDED), DROVER_END_SUCCEEDED);
    assert_int_equal (drover_taskresult_end_of (result, DROVER_TASK_CANCELLED), DROVER_END_CANCELLED);
    result->outcome = DROVER_OUTCOME_EXITED;
    assert_int_equal (drover_taskresult_end_of (result, DROVER_TASK_FAILED), DROVER_END_FAILED);
    result->outcome = DROVER_OUTCOME_TIMEDOUT;
    assert_int_equal (drover_taskresult_end_of (result, DROVER_TASK_FAILED), DROVER_END_TIMED_OUT);
    result->outcome = DROVER_OUTCOME_SPAWN_FAILED;
    assert_int_equal (drover_taskresult_end_of (result, DROVER_TASK_FAILED), DROVER_END_SPAWN_FAILED);
    result->end = DROVER_END_POISON;
    assert_int_equal (drover_taskresult_end_of (result, DROVER_TASK_FAILED), DROVER_END_POISON);
    drover_taskresult_destroy (&result);
}

//  A failure without a reason is told by its outcome
static void
test_describe (void **state)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_TASK_RESULT);
    char text [64];
    msg->outcome = DROVER_OUTCOME_EXITED;
    msg->exit_code = 2;
    drover_taskresult_describe (msg, text, sizeof text);
    assert_string_equal (text, "exit 2");
    msg->outcome = DROVER_OUTCOME_SIGNALLED;
    msg->signal = 9;
    drover_taskresult_describe (msg, text, sizeof text);
    assert_string_equal (text, "signal 9");
    msg->outcome = DROVER_OUTCOME_TIMEDOUT;
    drover_taskresult_describe (msg, text, sizeof text);
    assert_string_equal (text, "timed out");
    msg->outcome = DROVER_OUTCOME_CANCELLED;
    drover_taskresult_describe (msg, text, sizeof text);
    assert_string_equal (text, "killed");
    msg->outcome = DROVER_OUTCOME_SPAWN_FAILED;
    drover_taskresult_describe (msg, text, sizeof text);
    assert_string_equal (text, "could not start");
    drover_msg_destroy (&msg);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_new_without_status),
        cmocka_unit_test (test_take_moves_outputs),
        cmocka_unit_test (test_end_of),
        cmocka_unit_test (test_describe),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
