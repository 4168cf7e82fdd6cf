/*  =========================================================================
    test_drover_worker_attempts - the worker API running attempts for a
    broker played by the test (testutil_fakebroker), as real child
    processes: OFFER, STARTED and RESULT, results sent again until
    answered, KILL, a refused start, LEAVE and $TERM. Every wait is on a
    message with a deadline.
    =========================================================================
*/

#include "testutil_fakebroker.h"
#include <signal.h>

//  OFFER -> STARTED -> RESULT with the child's output; OK acknowledges it
static void
test_offer_started_result (void **state)
{
    testutil_fakebroker_t *broker =
        testutil_fakebroker_running (42, 1, "echo hello; echo oops >&2; exit 3");
    drover_msg_t *result = testutil_fakebroker_expect (broker, DROVER_MSG_TASK_RESULT, 5000);
    assert_string_equal (result->worker, "w-test");
    assert_true (result->task == 42);
    assert_int_equal (result->attempt, 1);
    assert_int_equal (result->outcome, DROVER_OUTCOME_EXITED);
    assert_int_equal (result->exit_code, 3);
    assert_int_equal (result->out_size, 6);
    assert_memory_equal (result->out, "hello\n", 6);
    assert_int_equal (result->err_size, 5);
    assert_int_equal (result->truncated, 0);
    assert_true (result->seq != 0);
    testutil_fakebroker_answer (broker, &result, DROVER_CODE_OK);

    //  A stale answer drops a result too: it is not sent again
    testutil_fakebroker_offer_started (broker, 43, 2, "exit 0", 0);
    result = testutil_fakebroker_expect (broker, DROVER_MSG_TASK_RESULT, 5000);
    testutil_fakebroker_answer (broker, &result, DROVER_CODE_STALE);

    //  A timeout is enforced by the worker
    testutil_fakebroker_offer_started (broker, 44, 1, "sleep 30", 100);
    result = testutil_fakebroker_expect (broker, DROVER_MSG_TASK_RESULT, 5000);
    assert_int_equal (result->outcome, DROVER_OUTCOME_TIMEDOUT);
    testutil_fakebroker_answer (broker, &result, DROVER_CODE_OK);

    uint64_t tasks, acked;
    testutil_fakebroker_leave (broker, &tasks, &acked);
    assert_true (tasks == 3);
    assert_true (acked == 2);
    testutil_fakebroker_destroy (&broker);
    assert_null (broker);
}

//  An unacknowledged result is sent again after ERROR 401 and a new
//  HELLO / WELCOME, under the same seq
static void
test_result_resent_after_401 (void **state)
{
    testutil_fakebroker_t *broker = testutil_fakebroker_running (7, 3, "echo once");
    drover_msg_t *result = testutil_fakebroker_expect (broker, DROVER_MSG_TASK_RESULT, 5000);
    uint32_t seq = result->seq;
    testutil_fakebroker_answer (broker, &result, DROVER_CODE_NOT_REGISTERED);

    drover_msg_t *hello = testutil_fakebroker_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    assert_string_equal (hello->worker, "w-test");
    assert_int_equal (hello->nrunning, 1);      //  it finished, its result unacknowledged
    assert_true (hello->running [0].task == 7);
    assert_int_equal (hello->running [0].attempt, 3);
    drover_msg_destroy (&hello);
    testutil_fakebroker_welcome (broker, 100);
    result = testutil_fakebroker_expect_result (broker, 7);
    assert_int_equal (result->attempt, 3);
    assert_int_equal (result->seq, seq);
    assert_int_equal (result->out_size, 5);
    assert_memory_equal (result->out, "once\n", 5);
    testutil_fakebroker_answer (broker, &result, DROVER_CODE_OK);

    uint64_t tasks, acked;
    testutil_fakebroker_leave (broker, &tasks, &acked);
    assert_true (acked == 1);
    testutil_fakebroker_destroy (&broker);
}

//  ERROR 507 to a RESULT: the broker could not save it. The worker keeps
//  it and sends it again (same seq) after a heartbeat interval, without
//  registering again; it used to drop it
static void
test_result_resent_after_507 (void **state)
{
    testutil_fakebroker_t *broker = testutil_fakebroker_running (5, 1, "echo kept");
    drover_msg_t *result = testutil_fakebroker_expect (broker, DROVER_MSG_TASK_RESULT, 5000);
    uint32_t seq = result->seq;
    testutil_fakebroker_answer (broker, &result, DROVER_CODE_NOT_SAVED);
    result = testutil_fakebroker_expect_result (broker, 5);
    assert_int_equal (result->seq, seq);
    testutil_fakebroker_answer (broker, &result, DROVER_CODE_OK);
    testutil_fakebroker_leave_acked_one (broker, 1);
    testutil_fakebroker_destroy (&broker);
}

//  ERROR 409 to TASK STARTED: the attempt is not current; the worker stops it
static void
test_started_refused_stops_attempt (void **state)
{
    testutil_fakebroker_t *broker = testutil_fakebroker_new ();
    testutil_fakebroker_register (broker);
    testutil_fakebroker_offer (broker, 31, 1, "sleep 30", 0);
    drover_msg_t *started = testutil_fakebroker_expect (broker, DROVER_MSG_TASK_STARTED, 5000);
    testutil_fakebroker_answer (broker, &started, DROVER_CODE_STALE);
    drover_msg_t *result = testutil_fakebroker_expect_result (broker, 31);
    assert_int_equal (result->outcome, DROVER_OUTCOME_CANCELLED);
    testutil_fakebroker_answer (broker, &result, DROVER_CODE_STALE);
    testutil_fakebroker_destroy (&broker);
}

//  A result the broker never answers: after 3 heartbeats of silence the
//  worker reconnects, says HELLO, and sends the result again
static void
test_unanswered_result_resent_after_reconnect (void **state)
{
    testutil_fakebroker_t *broker = testutil_fakebroker_running (12, 1, "echo again");
    drover_msg_t *result = testutil_fakebroker_expect (broker, DROVER_MSG_TASK_RESULT, 5000);
    uint32_t seq = result->seq;
    drover_msg_destroy (&result);
    zframe_t *first = zframe_dup (broker->route);
    drover_msg_t *hello = testutil_fakebroker_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    assert_false (zframe_eq (first, broker->route));    //  a new socket
    zframe_destroy (&first);
    drover_msg_destroy (&hello);
    testutil_fakebroker_welcome (broker, 100);
    result = testutil_fakebroker_expect_result (broker, 12);
    assert_int_equal (result->seq, seq);
    testutil_fakebroker_answer (broker, &result, DROVER_CODE_OK);
    testutil_fakebroker_leave_acked_one (broker, 2);
    assert_true (drover_worker_results_stale (broker->worker) == 0);
    testutil_fakebroker_destroy (&broker);
}

//  KILL ends a running attempt with outcome CANCELLED
static void
test_kill_cancels (void **state)
{
    testutil_fakebroker_t *broker = testutil_fakebroker_running (5, 1, "sleep 30");
    drover_msg_t *kill = drover_msg_new (DROVER_MSG_TASK_KILL);
    kill->task = 5;
    kill->attempt = 1;
    testutil_fakebroker_send (broker, &kill);
    drover_msg_t *result = testutil_fakebroker_expect_result (broker, 5);
    assert_int_equal (result->outcome, DROVER_OUTCOME_CANCELLED);
    assert_int_equal (result->signal, SIGTERM);
    testutil_fakebroker_answer (broker, &result, DROVER_CODE_OK);
    testutil_fakebroker_destroy (&broker);
}

//  LEAVE: the running task finishes and is acknowledged first, then
//  GOODBYE, then the loop ends (the actor says DONE)
static void
test_leave_goodbye (void **state)
{
    testutil_fakebroker_t *broker = testutil_fakebroker_running (9, 1, "sleep 0.2; echo done");
    drover_msg_t *leave = drover_msg_new (DROVER_MSG_WORKER_LEAVE);
    testutil_fakebroker_send (broker, &leave);
    drover_msg_t *result = testutil_fakebroker_expect (broker, DROVER_MSG_TASK_RESULT, 5000);
    assert_int_equal (result->outcome, DROVER_OUTCOME_EXITED);
    assert_int_equal (result->out_size, 5);
    testutil_fakebroker_answer (broker, &result, DROVER_CODE_OK);
    uint64_t tasks, acked;
    testutil_fakebroker_leave (broker, &tasks, &acked);           //  a second LEAVE is harmless
    assert_true (tasks == 1);
    assert_true (acked == 1);
    testutil_fakebroker_destroy (&broker);
}

//  $TERM while a task runs: the child is killed, GOODBYE is said
static void
test_stop_kills_and_says_goodbye (void **state)
{
    testutil_fakebroker_t *broker = testutil_fakebroker_running (21, 1, "trap '' TERM; sleep 30");
    int64_t started = zclock_mono ();
    zactor_destroy (&broker->actor);
    assert_true (zclock_mono () - started < 3000);      //  grace is 300 ms
    drover_msg_t *goodbye = testutil_fakebroker_expect (broker, DROVER_MSG_WORKER_GOODBYE, 5000);
    drover_msg_destroy (&goodbye);
    testutil_fakebroker_destroy (&broker);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_offer_started_result),
        cmocka_unit_test (test_result_resent_after_401),
        cmocka_unit_test (test_result_resent_after_507),
        cmocka_unit_test (test_kill_cancels),
        cmocka_unit_test (test_started_refused_stops_attempt),
        cmocka_unit_test (test_unanswered_result_resent_after_reconnect),
        cmocka_unit_test (test_leave_goodbye),
        cmocka_unit_test (test_stop_kills_and_says_goodbye),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
