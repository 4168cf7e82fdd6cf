/*  =========================================================================
    test_drover_worker_session - the worker API's session with a broker
    played by the test (testutil_fakebroker): HELLO, WELCOME and
    heartbeats, an older broker, what HELLO lists and the state id it
    names, WORKER GATHER, and connecting again when the broker is silent
    or comes back. Every wait is on a message with a deadline.
    =========================================================================
*/

#include "testutil_fakebroker.h"
#include "drover_handshake.h"
#include <poll.h>
#include <unistd.h>

//  HELLO carries the worker's identity and resources; after WELCOME,
//  heartbeats arrive with stats
static void
test_hello_welcome_heartbeats (void **state)
{
    testutil_fakebroker_t *broker = testutil_fakebroker_new ();
    assert_int_equal (drover_worker_set_label (broker->worker, "gpu=none"), 0);
    assert_int_equal (drover_worker_set_label (broker->worker, "zone=a"), 0);
    assert_int_equal (drover_worker_set_label (broker->worker, "not a label"), -1);
    drover_worker_set_workdir (broker->worker, "/tmp");
    testutil_fakebroker_start (broker);

    drover_msg_t *hello = testutil_fakebroker_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    assert_string_equal (hello->worker, "w-test");
    assert_true (hello->epoch == drover_worker_epoch (broker->worker));
    assert_true (hello->epoch != 0);
    assert_int_equal (hello->procs, 3);
    assert_true (hello->mem == 1ULL << 30);
    assert_int_equal (hello->nlabels, 2);
    assert_string_equal (hello->labels [0], "gpu=none");
    assert_string_equal (hello->labels [1], "zone=a");
    assert_int_equal (hello->nrunning, 0);
    drover_msg_destroy (&hello);

    //  No heartbeat before WELCOME; after it, at the broker's interval
    testutil_fakebroker_welcome (broker, 50);
    for (int count = 0; count < 3; count++) {
        drover_msg_t *heartbeat =
            testutil_fakebroker_expect (broker, DROVER_MSG_WORKER_HEARTBEAT, 2000);
        assert_string_equal (heartbeat->worker, "w-test");
        assert_true (heartbeat->epoch == drover_worker_epoch (broker->worker));
        assert_true (heartbeat->stats.mem_total > 0);
        assert_true (heartbeat->stats.disk_total > 0);
        assert_int_equal (heartbeat->stats.running, 0);
        drover_msg_destroy (&heartbeat);
    }
    testutil_fakebroker_destroy (&broker);
}

//  A broker of level 1 (drover 0.1) refuses a HELLO of level 2 as
//  malformed: the worker says HELLO again as level 1 on that connection
//  (no state id, level or release), registers, and runs work
static void
test_older_broker_gets_a_level_1_hello (void **state)
{
    testutil_fakebroker_t *broker = testutil_fakebroker_new ();
    testutil_fakebroker_start (broker);
    drover_msg_t *hello = testutil_fakebroker_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    assert_int_equal (drover_msg_level (hello), DROVER_MSG_LEVEL);
    assert_string_equal (hello->release, DROVER_RELEASE);
    testutil_fakebroker_answer (broker, &hello, DROVER_CODE_BAD_REQUEST);
    hello = testutil_fakebroker_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    assert_int_equal (drover_msg_level (hello), 1);
    assert_int_equal (hello->implied, 1);       //  six fields: level 1's HELLO
    assert_int_equal (hello->level, 0);
    assert_string_equal (hello->release, "");
    drover_msg_destroy (&hello);
    //  A level-1 WELCOME (no state id, no level)
    drover_msg_t *welcome = drover_msg_new (DROVER_MSG_WORKER_WELCOME);
    welcome->seq = broker->seq = 1;
    welcome->heartbeat = 100;
    zframe_t *frame = drover_msg_encode_level (welcome, 1);
    drover_msg_destroy (&welcome);
    zframe_t *route = zframe_dup (broker->route);
    zmsg_t *out = zmsg_new ();
    zmsg_append (out, &route);
    zmsg_append (out, &frame);
    assert_int_equal (zmsg_send (&out, broker->router), 0);
    testutil_fakebroker_offer_started (broker, 7, 1, "echo old", 0);
    drover_msg_t *result = testutil_fakebroker_expect (broker, DROVER_MSG_TASK_RESULT, 5000);
    assert_true (result->task == 7);
    assert_int_equal (result->outcome, DROVER_OUTCOME_EXITED);
    assert_int_equal (result->out_size, 4);
    testutil_fakebroker_answer (broker, &result, DROVER_CODE_OK);
    testutil_fakebroker_leave_acked_one (broker, 1);
    testutil_fakebroker_destroy (&broker);
}

//  A HELLO listed only the attempts whose process still ran: one whose
//  result was not yet acknowledged was missing, so a broker that had
//  restarted (or lost the worker) requeued it while its result was on the
//  way, and the task ran twice. Such attempts are listed too.
static void
test_hello_lists_unacknowledged_results (void **state)
{
    testutil_fakebroker_t *broker = testutil_fakebroker_running (21, 2, "echo done");
    drover_msg_t *result = testutil_fakebroker_expect (broker, DROVER_MSG_TASK_RESULT, 5000);
    uint32_t seq = result->seq;
    drover_msg_destroy (&result);               //  not answered
    testutil_fakebroker_offer_started (broker, 22, 1, "sleep 30", 0);
    drover_msg_t *heartbeat =
        testutil_fakebroker_expect (broker, DROVER_MSG_WORKER_HEARTBEAT, 2000);
    testutil_fakebroker_answer (broker, &heartbeat, DROVER_CODE_NOT_REGISTERED);
    drover_msg_t *hello = testutil_fakebroker_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    assert_int_equal (hello->nrunning, 2);
    bool finished = false, running = false;
    for (uint32_t index = 0; index < hello->nrunning; index++) {
        finished |= hello->running [index].task == 21 && hello->running [index].attempt == 2;
        running |= hello->running [index].task == 22 && hello->running [index].attempt == 1;
    }
    assert_true (finished && running);
    drover_msg_destroy (&hello);
    //  Once welcome, the result goes again under its seq; acknowledged, it
    //  is no longer listed
    testutil_fakebroker_welcome (broker, 100);
    result = testutil_fakebroker_expect_result (broker, 21);
    assert_int_equal (result->seq, seq);
    testutil_fakebroker_answer (broker, &result, DROVER_CODE_OK);
    heartbeat = testutil_fakebroker_expect (broker, DROVER_MSG_WORKER_HEARTBEAT, 2000);
    testutil_fakebroker_answer (broker, &heartbeat, DROVER_CODE_NOT_REGISTERED);
    hello = testutil_fakebroker_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    assert_int_equal (hello->nrunning, 1);
    assert_true (hello->running [0].task == 22);
    drover_msg_destroy (&hello);
    testutil_fakebroker_destroy (&broker);
}

//  Send WORKER GATHER of seq and expect WORKER RUNS echoing it; returns it
static drover_msg_t *
s_gather (testutil_fakebroker_t *self, uint32_t seq)
{
    drover_msg_t *gather = drover_msg_new (DROVER_MSG_WORKER_GATHER);
    gather->seq = seq;
    testutil_fakebroker_send (self, &gather);
    drover_msg_t *runs = testutil_fakebroker_expect (self, DROVER_MSG_WORKER_RUNS, 5000);
    assert_int_equal (runs->seq, seq);
    assert_string_equal (runs->worker, "w-test");
    return runs;
}

//  The reconciler's WORKER GATHER is answered at once with WORKER RUNS,
//  its seq echoed: the attempts running and those whose result is not yet
//  acknowledged, as HELLO lists them; none at first; an acknowledged
//  result no longer
static void
test_gather_answered_with_runs (void **state)
{
    testutil_fakebroker_t *broker = testutil_fakebroker_new ();
    testutil_fakebroker_register (broker);
    drover_msg_t *runs = s_gather (broker, 1);
    assert_int_equal (runs->nrunning, 0);
    drover_msg_destroy (&runs);

    testutil_fakebroker_offer_started (broker, 31, 2, "sleep 30", 0);
    testutil_fakebroker_offer_started (broker, 32, 1, "echo done", 0);
    drover_msg_t *result = testutil_fakebroker_expect_result (broker, 32);
    runs = s_gather (broker, 0xfffffff0);
    assert_int_equal (runs->nrunning, 2);
    bool finished = false, running = false;
    for (uint32_t index = 0; index < runs->nrunning; index++) {
        finished |= runs->running [index].task == 32 && runs->running [index].attempt == 1;
        running |= runs->running [index].task == 31 && runs->running [index].attempt == 2;
    }
    assert_true (finished && running);
    drover_msg_destroy (&runs);

    testutil_fakebroker_answer (broker, &result, DROVER_CODE_OK);
    runs = s_gather (broker, 7);
    assert_int_equal (runs->nrunning, 1);
    assert_true (runs->running [0].task == 31);
    drover_msg_destroy (&runs);
    testutil_fakebroker_destroy (&broker);
}

//  HELLO names the state id of the last WELCOME: none at first
static void
test_hello_carries_last_state_id (void **state)
{
    const char *state_a = "0123456789abcdef0123456789abcdef";
    testutil_fakebroker_t *broker = testutil_fakebroker_new ();
    testutil_fakebroker_start (broker);
    drover_msg_t *hello = testutil_fakebroker_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    assert_string_equal (hello->state_id, "");
    drover_msg_destroy (&hello);
    testutil_fakebroker_welcome_state (broker, 100, state_a);
    drover_msg_t *heartbeat =
        testutil_fakebroker_expect (broker, DROVER_MSG_WORKER_HEARTBEAT, 2000);
    testutil_fakebroker_answer (broker, &heartbeat, DROVER_CODE_NOT_REGISTERED);
    hello = testutil_fakebroker_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    assert_string_equal (hello->state_id, state_a);
    drover_msg_destroy (&hello);
    //  A WELCOME without one (a broker that keeps no state) forgets nothing
    testutil_fakebroker_welcome (broker, 100);
    heartbeat = testutil_fakebroker_expect (broker, DROVER_MSG_WORKER_HEARTBEAT, 2000);
    testutil_fakebroker_answer (broker, &heartbeat, DROVER_CODE_NOT_REGISTERED);
    hello = testutil_fakebroker_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    assert_string_equal (hello->state_id, state_a);
    drover_msg_destroy (&hello);
    testutil_fakebroker_destroy (&broker);
}

//  A WELCOME with another state id than the last one: the broker's state
//  was wiped, our task ids name other tasks there. The running attempt is
//  killed and no result of the old state reaches the new broker: neither
//  the unacknowledged one nor the killed attempt's.
static void
test_state_change_kills_attempts_and_drops_results (void **state)
{
    const char *state_a = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    const char *state_b = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
    testutil_fakebroker_t *broker = testutil_fakebroker_new ();
    testutil_fakebroker_start (broker);
    drover_msg_t *hello = testutil_fakebroker_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    drover_msg_destroy (&hello);
    testutil_fakebroker_welcome_state (broker, 100, state_a);
    testutil_fakebroker_offer_started (broker, 1, 1, "echo old", 0);
    drover_msg_t *result = testutil_fakebroker_expect (broker, DROVER_MSG_TASK_RESULT, 5000);
    drover_msg_destroy (&result);               //  not answered
    testutil_fakebroker_offer_started (broker, 2, 1, "exec sleep 30", 0);
    drover_msg_t *heartbeat =
        testutil_fakebroker_expect (broker, DROVER_MSG_WORKER_HEARTBEAT, 2000);
    testutil_fakebroker_answer (broker, &heartbeat, DROVER_CODE_NOT_REGISTERED);
    hello = testutil_fakebroker_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    assert_string_equal (hello->state_id, state_a);
    assert_int_equal (hello->nrunning, 2);
    drover_msg_destroy (&hello);
    int64_t welcomed = zclock_mono ();
    testutil_fakebroker_welcome_state (broker, 100, state_b);
    //  LEAVE: the worker goes once nothing runs and nothing is kept; before
    //  its GOODBYE only heartbeats may come (testutil_fakebroker_expect fails on a RESULT)
    uint64_t tasks, acked;
    testutil_fakebroker_leave (broker, &tasks, &acked);
    assert_true (zclock_mono () - welcomed < 5000);     //  killed, not waited out
    assert_true (acked == 0);
    assert_true (drover_worker_registrations (broker->worker) == 2);
    testutil_fakebroker_destroy (&broker);
}

//  HELLO after a 401 lists the attempts still running
static void
test_rehello_lists_running (void **state)
{
    testutil_fakebroker_t *broker = testutil_fakebroker_running (11, 1, "sleep 30");
    drover_msg_t *heartbeat =
        testutil_fakebroker_expect (broker, DROVER_MSG_WORKER_HEARTBEAT, 2000);
    testutil_fakebroker_answer (broker, &heartbeat, DROVER_CODE_NOT_REGISTERED);
    drover_msg_t *hello = testutil_fakebroker_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    assert_int_equal (hello->nrunning, 1);
    assert_true (hello->running [0].task == 11);
    assert_int_equal (hello->running [0].attempt, 1);
    drover_msg_destroy (&hello);
    testutil_fakebroker_destroy (&broker);                 //  stops it: kills the child
}

//  No answer to HELLO: the worker drops its socket and connects again
//  (a new route), with the same epoch
static void
test_reconnect_when_silent (void **state)
{
    testutil_fakebroker_t *broker = testutil_fakebroker_new ();
    testutil_fakebroker_start (broker);
    drover_msg_t *hello = testutil_fakebroker_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    uint64_t epoch = hello->epoch;
    zframe_t *first = zframe_dup (broker->route);
    drover_msg_destroy (&hello);
    //  silence = 3 heartbeats of 100 ms, then a backoff of 250 ms
    hello = testutil_fakebroker_expect (broker, DROVER_MSG_WORKER_HELLO, 5000);
    assert_true (hello->epoch == epoch);
    assert_false (zframe_eq (first, broker->route));
    drover_msg_destroy (&hello);
    zframe_destroy (&first);
    testutil_fakebroker_welcome (broker, 100);
    drover_msg_t *heartbeat =
        testutil_fakebroker_expect (broker, DROVER_MSG_WORKER_HEARTBEAT, 2000);
    drover_msg_destroy (&heartbeat);
    assert_true (drover_worker_registrations (broker->worker) >= 1);
    testutil_fakebroker_destroy (&broker);
}

//  The pipes of a held handler: it says it holds on entered, and waits
//  for a byte on release
typedef struct {
    int release;                    //  read end: the test lets it go
    int entered;                    //  write end: it tells the test it holds
} s_hold_t;

//  A handler that tells the test it holds the worker's loop, and holds it
//  until the test writes a byte on the release pipe (10 s at most), then
//  succeeds
static int
s_held_handler (void *arg, drover_job_t *job)
{
    s_hold_t *hold = (s_hold_t *) arg;
    if (write (hold->entered, "h", 1) != 1)
        return -1;
    struct pollfd item = { hold->release, POLLIN, 0 };
    char byte = 0;
    bool released = poll (&item, 1, 10000) == 1 && read (item.fd, &byte, 1) == 1;
    drover_job_set_outcome (job, DROVER_OUTCOME_EXITED);
    drover_job_set_exit_code (job, released? 0: 1);
    return 0;
}

//  Bind a new ROUTER on the endpoint the last one had, once the old one's
//  port is free, watched by handshake (made before the bind)
static void
s_rebind (testutil_fakebroker_t *self, drover_handshake_t **handshake_p)
{
    zsock_destroy (&self->router);
    self->router = zsock_new (ZMQ_ROUTER);
    assert_non_null (self->router);
    zsock_set_sndhwm (self->router, 0);
    zsock_set_rcvhwm (self->router, 0);
    *handshake_p = drover_handshake_new (self->router, false);
    int64_t deadline = zclock_mono () + 5000;
    while (zsock_bind (self->router, "%s", self->endpoint) == -1) {
        assert_true (zclock_mono () < deadline);
        zclock_sleep (10);      //  paces the tries while the old listener closes
    }
}

//  The broker's end went away and came back on the same endpoint (a broker
//  restarted) while the worker was busy: ZeroMQ connects its DEALER again
//  by itself. The worker registers first on that new connection: its first
//  message there is HELLO, not the RESULT it had ready, which follows our
//  WELCOME (PROTOCOL.md §9)
static void
test_hello_first_after_reconnect (void **state)
{
    testutil_fakebroker_t *broker = testutil_fakebroker_new ();
    int held [2], entered [2];
    assert_int_equal (pipe (held), 0);
    assert_int_equal (pipe (entered), 0);
    s_hold_t hold = { held [0], entered [1] };
    drover_worker_set_handler (broker->worker, s_held_handler, &hold);
    testutil_fakebroker_register (broker);
    testutil_fakebroker_offer (broker, 41, 1, "held", 0);             //  the handler holds the loop
    //  The offer reached it before the old end goes: the loop holds now
    struct pollfd item = { entered [0], POLLIN, 0 };
    char byte = 0;
    assert_int_equal (poll (&item, 1, 5000), 1);
    assert_int_equal (read (entered [0], &byte, 1), 1);
    drover_handshake_t *handshake;
    s_rebind (broker, &handshake);
    //  The worker's DEALER connects again (ZeroMQ's I/O thread does it)
    zpoller_t *poller = zpoller_new (drover_handshake_sock (handshake), NULL);
    int64_t deadline = zclock_mono () + 5000;
    int outcome = 0;
    while (outcome != 1 && zclock_mono () < deadline)
        if (zpoller_wait (poller, (int) (deadline - zclock_mono ())))
            outcome = drover_handshake_read (handshake);
    assert_int_equal (outcome, 1);
    zpoller_destroy (&poller);
    assert_int_equal (write (held [1], "g", 1), 1);     //  the result is ready now

    drover_msg_t *first = testutil_fakebroker_recv (broker, 5000);
    assert_non_null (first);
    if (first->id != DROVER_MSG_WORKER_HELLO)
        fail_msg ("first message after the reconnect: %s", drover_msg_name (first->id));
    assert_int_equal (first->nrunning, 1);              //  it lists the result it keeps
    assert_true (first->running [0].task == 41);
    drover_msg_destroy (&first);
    testutil_fakebroker_welcome (broker, 100);
    drover_msg_t *result = testutil_fakebroker_expect_result (broker, 41);
    assert_int_equal (result->exit_code, 0);
    testutil_fakebroker_answer (broker, &result, DROVER_CODE_OK);
    testutil_fakebroker_leave_acked_one (broker, 2);
    drover_handshake_destroy (&handshake);
    testutil_fakebroker_destroy (&broker);
    close (held [0]);
    close (held [1]);
    close (entered [0]);
    close (entered [1]);
}

//  Bad arguments make no worker
static void
test_new_refuses_bad_values (void **state)
{
    assert_null (drover_worker_new ("tcp://127.0.0.1:1", "has space", 1, 1));
    assert_null (drover_worker_new ("tcp://127.0.0.1:1", "", 1, 1));
    assert_null (drover_worker_new ("tcp://127.0.0.1:1", "ok", 0, 1));
    drover_worker_t *worker = drover_worker_new ("tcp://127.0.0.1:1", "ok", 1, 1);
    assert_non_null (worker);
    assert_string_equal (drover_worker_id (worker), "ok");
    for (int index = 0; index < DROVER_LABELS_MAX; index++) {
        char label [32];
        snprintf (label, sizeof label, "k%d=v", index);
        assert_int_equal (drover_worker_set_label (worker, label), 0);
    }
    assert_int_equal (drover_worker_set_label (worker, "one=toomany"), -1);
    drover_worker_destroy (&worker);
    drover_worker_destroy (&worker);
    assert_null (worker);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_new_refuses_bad_values),
        cmocka_unit_test (test_hello_welcome_heartbeats),
        cmocka_unit_test (test_older_broker_gets_a_level_1_hello),
        cmocka_unit_test (test_rehello_lists_running),
        cmocka_unit_test (test_hello_lists_unacknowledged_results),
        cmocka_unit_test (test_hello_carries_last_state_id),
        cmocka_unit_test (test_gather_answered_with_runs),
        cmocka_unit_test (test_state_change_kills_attempts_and_drops_results),
        cmocka_unit_test (test_reconnect_when_silent),
        cmocka_unit_test (test_hello_first_after_reconnect),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
