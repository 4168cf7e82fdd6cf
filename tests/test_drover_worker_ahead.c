/*  =========================================================================
    test_drover_worker_ahead - a worker of one proc that holds one offer
    ahead (protocol level 9): the offer that comes past its free procs
    waits, with no STARTED, until the running task's RESULT, then starts;
    held too long (a quarter of the WELCOME's ack-timeout) it goes back as
    RESULT RETURNED, as it does at once on LEAVE; killed it ends CANCELLED
    at once, and a new HELLO drops it without listing it. A WELCOME of
    level 8 grants nothing: the worker runs past its procs, as before
    level 9.

    The broker is played by the test (testutil_fakebroker): a ROUTER on
    loopback, the worker's real sockets, real child processes. Messages
    are read at the wire; a held offer's script leaves a file if it ever
    runs.
    =========================================================================
*/

#include "testutil_fakebroker.h"
#include <unistd.h>

//  The WELCOME's ack-timeouts: a long one (an offer is held 5 s at most),
//  and a short one (given back after 50 ms)
#define S_ACK_LONG      20000
#define S_ACK_SHORT     200

//  A played broker, and its worker of one proc that holds one offer ahead
static testutil_fakebroker_t *
s_broker_new (void)
{
    testutil_fakebroker_t *broker = testutil_fakebroker_new ();
    drover_worker_destroy (&broker->worker);    //  the kit's worker has 3 procs
    broker->worker = drover_worker_new (broker->endpoint, "w-test", 1, 1ULL << 30);
    assert_non_null (broker->worker);
    drover_worker_set_heartbeat (broker->worker, 100);
    drover_worker_set_grace (broker->worker, 300);
    drover_worker_set_ahead (broker->worker, 1);
    return broker;
}

//  Answer the worker's HELLO with a WELCOME as a broker of level would
//  encode it, granting ahead and telling ack_timeout
static void
s_welcome (testutil_fakebroker_t *broker, drover_msg_t *hello, int level, uint32_t ahead,
           uint32_t ack_timeout)
{
    drover_msg_t *welcome = drover_msg_new (DROVER_MSG_WORKER_WELCOME);
    welcome->seq = hello->seq;
    welcome->heartbeat = 100;
    welcome->level = (uint16_t) level;
    welcome->ahead = ahead;
    welcome->ack_timeout = ack_timeout;
    zframe_t *frame = drover_msg_encode_level (welcome, level);
    assert_non_null (frame);
    zmsg_t *out = zmsg_new ();
    zframe_t *route = zframe_dup (broker->route);
    zmsg_append (out, &route);
    zmsg_append (out, &frame);
    assert_int_equal (zmsg_send (&out, broker->router), 0);
    drover_msg_destroy (&welcome);
}

//  Expect the worker's HELLO, which says it holds one offer ahead and
//  lists running attempts (the task of the first, if any); return it
static drover_msg_t *
s_expect_hello (testutil_fakebroker_t *broker, uint32_t running, uint64_t task)
{
    drover_msg_t *hello = testutil_fakebroker_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    assert_int_equal (hello->procs, 1);
    assert_int_equal (hello->ahead, 1);
    assert_int_equal (hello->nrunning, running);
    if (running)
        assert_true (hello->running [0].task == task);
    return hello;
}

//  Start the worker and register it with a WELCOME of level, granting
//  ahead, telling ack_timeout
static void
s_register (testutil_fakebroker_t *broker, int level, uint32_t ahead, uint32_t ack_timeout)
{
    testutil_fakebroker_start (broker);
    drover_msg_t *hello = s_expect_hello (broker, 0, 0);
    s_welcome (broker, hello, level, ahead, ack_timeout);
    drover_msg_destroy (&hello);
}

//  Receive the next message other than a heartbeat within timeout msec
static drover_msg_t *
s_recv (testutil_fakebroker_t *broker, int timeout)
{
    int64_t end = zclock_mono () + timeout;
    while (zclock_mono () < end) {
        drover_msg_t *msg = testutil_fakebroker_recv (broker, (int) (end - zclock_mono ()));
        if (!msg || msg->id != DROVER_MSG_WORKER_HEARTBEAT)
            return msg;
        drover_msg_destroy (&msg);
    }
    return NULL;
}

//  Expect the next message (not a heartbeat) to be the RESULT of task
//  with outcome, and answer it OK
static void
s_expect_outcome (testutil_fakebroker_t *broker, uint64_t task, int outcome)
{
    drover_msg_t *result = s_recv (broker, 5000);
    assert_non_null (result);
    if (result->id != DROVER_MSG_TASK_RESULT || result->task != task)
        fail_msg ("expected the RESULT of task %" PRIu64 ", got %s of task %" PRIu64, task,
                  drover_msg_name (result->id), result->task);
    assert_int_equal (result->outcome, outcome);
    testutil_fakebroker_answer (broker, &result, DROVER_CODE_OK);
}

//  Send TASK KILL of task's first attempt
static void
s_kill (testutil_fakebroker_t *broker, uint64_t task)
{
    drover_msg_t *kill = drover_msg_new (DROVER_MSG_TASK_KILL);
    kill->task = task;
    kill->attempt = 1;
    testutil_fakebroker_send (broker, &kill);
}

//  A script that leaves a file in a new directory (dir, mkdtemp's) if it
//  ever runs
static void
s_marker_script (char *dir, char *script, size_t size)
{
    strcpy (dir, "/tmp/drover-ahead-XXXXXX");
    assert_non_null (mkdtemp (dir));
    snprintf (script, size, "touch %s/ran", dir);
}

//  True if the marker script in dir ran; removes the directory
static bool
s_marker_ran (const char *dir)
{
    char path [64];
    snprintf (path, sizeof path, "%s/ran", dir);
    bool ran = access (path, F_OK) == 0;
    unlink (path);
    rmdir (dir);
    return ran;
}

//  End the worker with LEAVE: nothing else comes first (no STARTED or
//  RESULT of an offer given back or dropped). Check the offers started,
//  the results acknowledged, and that nothing is held at the end.
static void
s_leave (testutil_fakebroker_t *broker, uint64_t started, uint64_t acked)
{
    uint64_t tasks, results;
    testutil_fakebroker_leave (broker, &tasks, &results);
    assert_true (tasks == started);
    assert_true (results == acked);
    assert_int_equal (drover_worker_held (broker->worker), 0);
}

//  Expect the next message (not a heartbeat), within timeout msec, to be
//  the RESULT that ends held offer task without a process: outcome, first
//  attempt, no status, no signal, no run time, a reason holding needle.
//  Returns it, for the caller to check more and answer.
static drover_msg_t *
s_expect_held_end (testutil_fakebroker_t *broker, uint64_t task, int outcome,
                   const char *needle, int timeout)
{
    drover_msg_t *result = s_recv (broker, timeout);
    assert_non_null (result);
    assert_int_equal (result->id, DROVER_MSG_TASK_RESULT);
    assert_true (result->task == task);
    assert_int_equal (result->attempt, 1);
    assert_int_equal (result->outcome, outcome);
    assert_int_equal (result->exit_code, -1);
    assert_int_equal (result->signal, 0);
    assert_int_equal (result->duration, 0);
    assert_non_null (result->reason);
    assert_non_null (strstr (result->reason, needle));
    return result;
}

//  Kill the running task 1, expect its RESULT, LEAVE with one offer
//  started and acked results acknowledged, and check the held offer's
//  marker script in dir never ran
static void
s_kill_first_and_leave (testutil_fakebroker_t *broker, const char *dir, uint64_t acked)
{
    s_kill (broker, 1);
    s_expect_outcome (broker, 1, DROVER_OUTCOME_CANCELLED);
    s_leave (broker, 1, acked);
    assert_false (s_marker_ran (dir));
}

//  One proc, one offer ahead: the second offer is held (nothing said of
//  it) until the first task's RESULT, then starts and runs
static void
test_held_offer_starts_when_a_proc_frees (void **state)
{
    testutil_fakebroker_t *broker = s_broker_new ();
    s_register (broker, DROVER_MSG_LEVEL, 1, S_ACK_LONG);
    testutil_fakebroker_offer (broker, 1, 1, "sleep 0.3", 0);
    testutil_fakebroker_offer (broker, 2, 1, "sleep 0.2", 0);
    testutil_fakebroker_expect_started (broker, 1, 1);
    s_expect_outcome (broker, 1, DROVER_OUTCOME_EXITED);   //  and nothing of task 2 before
    testutil_fakebroker_expect_started (broker, 2, 1);
    s_expect_outcome (broker, 2, DROVER_OUTCOME_EXITED);
    s_leave (broker, 2, 2);
    testutil_fakebroker_destroy (&broker);
}

//  An offer held behind a long task for a quarter of the ack-timeout goes
//  back: RESULT RETURNED, no process, no status; it never runs, even once
//  the proc frees
static void
test_held_offer_given_back_after_a_quarter_ack_timeout (void **state)
{
    char dir [64], script [128];
    s_marker_script (dir, script, sizeof script);
    testutil_fakebroker_t *broker = s_broker_new ();
    s_register (broker, DROVER_MSG_LEVEL, 1, S_ACK_SHORT);
    testutil_fakebroker_offer_started (broker, 1, 1, "sleep 10", 0);
    int64_t offered = zclock_mono ();
    testutil_fakebroker_offer (broker, 2, 1, script, 0);
    drover_msg_t *result = s_expect_held_end (broker, 2, DROVER_OUTCOME_RETURNED,
                                              "held ahead behind running tasks for ", 5000);
    int64_t held = zclock_mono () - offered;
    assert_non_null (strstr (result->reason, " ms: given back"));
    assert_true (held >= S_ACK_SHORT / 4);
    assert_true (held < 5000);
    testutil_fakebroker_answer (broker, &result, DROVER_CODE_OK);
    s_kill_first_and_leave (broker, dir, 2);
    testutil_fakebroker_destroy (&broker);
}

//  KILL of a held offer: RESULT CANCELLED at once, no process; a repeated
//  offer of it before was ignored
static void
test_kill_of_held_offer_cancels_at_once (void **state)
{
    char dir [64], script [128];
    s_marker_script (dir, script, sizeof script);
    testutil_fakebroker_t *broker = s_broker_new ();
    s_register (broker, DROVER_MSG_LEVEL, 1, S_ACK_LONG);
    testutil_fakebroker_offer_started (broker, 1, 1, "sleep 10", 0);
    testutil_fakebroker_offer (broker, 2, 1, script, 0);
    testutil_fakebroker_offer (broker, 2, 1, script, 0);
    int64_t killed = zclock_mono ();
    s_kill (broker, 2);
    drover_msg_t *result = s_expect_held_end (broker, 2, DROVER_OUTCOME_CANCELLED,
                                              "", 5000);
    assert_true (zclock_mono () - killed < S_ACK_LONG / 4);     //  not the give-back
    assert_string_equal (result->reason, "killed while held ahead, before it started");
    testutil_fakebroker_answer (broker, &result, DROVER_CODE_OK);
    s_kill_first_and_leave (broker, dir, 2);
    testutil_fakebroker_destroy (&broker);
}

//  A new HELLO (the broker forgot us: 401) lists the running task, not
//  the held offer, which is dropped: it never starts, and no RESULT of it
static void
test_held_offer_dropped_on_hello_again (void **state)
{
    char dir [64], script [128];
    s_marker_script (dir, script, sizeof script);
    testutil_fakebroker_t *broker = s_broker_new ();
    s_register (broker, DROVER_MSG_LEVEL, 1, S_ACK_LONG);
    testutil_fakebroker_offer_started (broker, 1, 1, "sleep 10", 0);
    testutil_fakebroker_offer (broker, 2, 1, script, 0);
    drover_msg_t *unknown = drover_msg_new (DROVER_MSG_ERROR);
    unknown->code = DROVER_CODE_NOT_REGISTERED;
    drover_msg_set_reason (unknown, "who are you");
    testutil_fakebroker_send (broker, &unknown);
    drover_msg_t *hello = s_expect_hello (broker, 1, 1);
    s_welcome (broker, hello, DROVER_MSG_LEVEL, 1, S_ACK_LONG);
    drover_msg_destroy (&hello);
    s_kill_first_and_leave (broker, dir, 1);
    testutil_fakebroker_destroy (&broker);
}

//  LEAVE gives a held offer back at once (RETURNED), lets the running task
//  finish, then says GOODBYE; the held one never runs
static void
test_held_offer_given_back_on_leave (void **state)
{
    char dir [64], script [128];
    s_marker_script (dir, script, sizeof script);
    testutil_fakebroker_t *broker = s_broker_new ();
    s_register (broker, DROVER_MSG_LEVEL, 1, S_ACK_LONG);
    testutil_fakebroker_offer_started (broker, 1, 1, "sleep 0.5", 0);
    testutil_fakebroker_offer (broker, 2, 1, script, 0);
    drover_msg_t *leave = drover_msg_new (DROVER_MSG_WORKER_LEAVE);
    testutil_fakebroker_send (broker, &leave);
    drover_msg_t *result = s_expect_held_end (broker, 2, DROVER_OUTCOME_RETURNED,
                                              "the worker is leaving: given back", 5000);
    testutil_fakebroker_answer (broker, &result, DROVER_CODE_OK);
    s_expect_outcome (broker, 1, DROVER_OUTCOME_EXITED);
    drover_msg_t *goodbye = testutil_fakebroker_expect (broker, DROVER_MSG_WORKER_GOODBYE, 5000);
    drover_msg_destroy (&goodbye);
    zmsg_t *done = testutil_recv (zactor_sock (broker->actor), 5000);
    assert_non_null (done);
    zmsg_destroy (&done);
    assert_true (drover_worker_tasks_run (broker->worker) == 1);
    assert_true (drover_worker_results_acked (broker->worker) == 2);
    assert_int_equal (drover_worker_held (broker->worker), 0);
    assert_false (s_marker_ran (dir));
    testutil_fakebroker_destroy (&broker);
}

//  A broker of level 8 grants nothing (its WELCOME has no ahead): the
//  worker holds nothing and runs the second offer past its one proc
static void
test_level8_welcome_holds_nothing (void **state)
{
    testutil_fakebroker_t *broker = s_broker_new ();
    s_register (broker, 8, 1, S_ACK_LONG);
    testutil_fakebroker_offer (broker, 1, 1, "sleep 0.3", 0);
    testutil_fakebroker_offer (broker, 2, 1, "sleep 0.3", 0);
    testutil_fakebroker_expect_started (broker, 1, 1);
    testutil_fakebroker_expect_started (broker, 2, 1);     //  before any RESULT
    drover_msg_t *first = testutil_fakebroker_expect (broker, DROVER_MSG_TASK_RESULT, 5000);
    drover_msg_t *second = testutil_fakebroker_expect (broker, DROVER_MSG_TASK_RESULT, 5000);
    assert_true (first->task + second->task == 3);
    assert_int_equal (first->outcome, DROVER_OUTCOME_EXITED);
    assert_int_equal (second->outcome, DROVER_OUTCOME_EXITED);
    testutil_fakebroker_answer (broker, &first, DROVER_CODE_OK);
    testutil_fakebroker_answer (broker, &second, DROVER_CODE_OK);
    s_leave (broker, 2, 2);
    testutil_fakebroker_destroy (&broker);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_held_offer_starts_when_a_proc_frees),
        cmocka_unit_test (test_held_offer_given_back_after_a_quarter_ack_timeout),
        cmocka_unit_test (test_kill_of_held_offer_cancels_at_once),
        cmocka_unit_test (test_held_offer_dropped_on_hello_again),
        cmocka_unit_test (test_held_offer_given_back_on_leave),
        cmocka_unit_test (test_level8_welcome_holds_nothing),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
