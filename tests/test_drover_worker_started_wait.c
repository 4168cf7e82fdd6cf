/*  =========================================================================
    test_drover_worker_started_wait - a worker told the broker's ack-timeout
    (WELCOME, level 7) holds a process's TASK STARTED back for a few msec
    and leaves it out when the attempt's RESULT goes first; a worker not
    told it says STARTED at once (PROTOCOL.md 7.7)

    The broker is played by the test (testutil_fakebroker): a ROUTER on
    loopback, the worker's real sockets, real child processes. Messages
    are counted at the wire.
    =========================================================================
*/

#include "testutil_fakebroker.h"

//  Short attempts offered one after the other
#define S_SHORT         20
//  msec a STARTED waits when the ack-timeout allows (the worker's cap)
#define S_WAIT          5

//  Take the worker through HELLO and a WELCOME that tells ack_timeout
//  (0: says none, as a broker of level 6 or less)
static void
s_register (testutil_fakebroker_t *broker, uint32_t ack_timeout)
{
    testutil_fakebroker_start (broker);
    drover_msg_t *hello = testutil_fakebroker_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    drover_msg_destroy (&hello);
    drover_msg_t *welcome = drover_msg_new (DROVER_MSG_WORKER_WELCOME);
    welcome->heartbeat = 100;
    welcome->level = DROVER_MSG_LEVEL;
    welcome->ack_timeout = ack_timeout;
    testutil_fakebroker_send (broker, &welcome);
}

//  Offer task (sh -c script) and read until its RESULT, answered OK.
//  Returns the msec from the offer to its STARTED, or -1 if none came
//  before the RESULT.
static int64_t
s_run (testutil_fakebroker_t *broker, uint64_t task, const char *script)
{
    int64_t offered = zclock_mono ();
    testutil_fakebroker_offer (broker, task, 1, script, 0);
    int64_t started = -1;
    while (true) {
        drover_msg_t *msg = testutil_fakebroker_recv (broker, 10000);
        assert_non_null (msg);
        if (msg->id == DROVER_MSG_TASK_STARTED) {
            assert_int_equal (msg->task, task);
            assert_int_equal (started, -1);         //  once at most
            started = zclock_mono () - offered;
        }
        if (msg->id == DROVER_MSG_TASK_RESULT) {
            assert_int_equal (msg->task, task);
            assert_int_equal (msg->outcome, DROVER_OUTCOME_EXITED);
            testutil_fakebroker_answer (broker, &msg, DROVER_CODE_OK);
            return started;
        }
        drover_msg_destroy (&msg);
    }
}

//  Told an ack-timeout: a short attempt's RESULT comes alone (at least once
//  in S_SHORT, however loaded the machine), and a long one's STARTED comes
//  no sooner than S_WAIT msec after the offer, before its RESULT
static void
test_started_held_back_when_told (void **state)
{
    testutil_fakebroker_t *broker = testutil_fakebroker_new ();
    s_register (broker, 5000);
    int alone = 0;
    for (uint64_t task = 1; task <= S_SHORT; task++)
        if (s_run (broker, task, "exit 0") == -1)
            alone++;
    assert_true (alone >= 1);
    int64_t started = s_run (broker, 100, "sleep 0.3");
    assert_true (started >= S_WAIT);
    assert_true (started < 300);
    testutil_fakebroker_destroy (&broker);
}

//  Not told an ack-timeout (a broker of level 6 or less): every attempt
//  says STARTED before its RESULT
static void
test_started_at_once_when_not_told (void **state)
{
    testutil_fakebroker_t *broker = testutil_fakebroker_new ();
    s_register (broker, 0);
    for (uint64_t task = 1; task <= S_SHORT / 4; task++)
        assert_true (s_run (broker, task, "exit 0") >= 0);
    testutil_fakebroker_destroy (&broker);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_started_held_back_when_told),
        cmocka_unit_test (test_started_at_once_when_not_told),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
