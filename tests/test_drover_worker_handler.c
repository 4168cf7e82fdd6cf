/*  =========================================================================
    test_drover_worker_handler - the worker API with an in-process
    handler instead of child processes: many offers at once, a bad offer
    body, and a real broker taking a RESULT that comes without STARTED.
    Every wait is on a message with a deadline.
    =========================================================================
*/

#include "testutil_fakebroker.h"
#include "testutil_cluster.h"

//  The in-process handler: what it returns is the result
static int
s_echo_handler (void *arg, drover_job_t *job)
{
    int *calls = (int *) arg;
    (*calls)++;
    assert_int_equal (drover_job_attempt (job), 1);
    assert_null (drover_job_argv (job, drover_job_argc (job)));
    const char *text = drover_job_argv (job, drover_job_argc (job) - 1);
    drover_job_set_output (job, (const byte *) text, strlen (text), NULL, 0);
    drover_job_set_exit_code (job, drover_job_argc (job));
    if (streq (text, "fail"))
        return -1;
    return 0;
}

#define S_HANDLED 1000

//  Many offers at once through the handler: the worker reads them in
//  bursts, and each gets exactly one RESULT and no STARTED (the RESULT,
//  sent at once, is the acknowledgement)
static void
test_handler (void **state)
{
    testutil_fakebroker_t *broker = testutil_fakebroker_new ();
    int calls = 0;
    drover_worker_set_handler (broker->worker, s_echo_handler, &calls);
    //  We answer a thousand results one by one: more than the 300 msec of
    //  silence that 100 msec heartbeats allow the worker on a busy machine
    testutil_fakebroker_register_beating (broker, 1000);
    for (int index = 0; index < S_HANDLED; index++) {
        char script [32];
        snprintf (script, sizeof script, "%d", index);
        testutil_fakebroker_offer (broker, 1000 + index, 1, script, 0);
    }
    int started = 0, results = 0;
    bool *seen = (bool *) zmalloc (S_HANDLED * sizeof (bool));
    while (results < S_HANDLED) {
        drover_msg_t *msg = testutil_fakebroker_recv (broker, 5000);
        assert_non_null (msg);
        if (msg->id == DROVER_MSG_TASK_STARTED)
            started++;
        else
        if (msg->id == DROVER_MSG_TASK_RESULT) {
            assert_true (msg->task >= 1000 && msg->task < 1000 + S_HANDLED);
            assert_false (seen [msg->task - 1000]);
            seen [msg->task - 1000] = true;
            char expect [32];
            snprintf (expect, sizeof expect, "%d", (int) (msg->task - 1000));
            assert_int_equal (msg->outcome, DROVER_OUTCOME_EXITED);
            assert_int_equal (msg->exit_code, 3);
            assert_int_equal (msg->out_size, strlen (expect));
            assert_memory_equal (msg->out, expect, strlen (expect));
            testutil_fakebroker_reply (broker, msg, DROVER_CODE_OK);
            results++;
        }
        drover_msg_destroy (&msg);
    }
    free (seen);
    assert_int_equal (started, 0);
    //  A handler that fails reports SPAWN_FAILED, also without STARTED
    testutil_fakebroker_offer (broker, 1, 1, "fail", 0);
    drover_msg_t *result = testutil_fakebroker_expect (broker, DROVER_MSG_TASK_RESULT, 5000);
    assert_int_equal (result->outcome, DROVER_OUTCOME_SPAWN_FAILED);
    assert_non_null (result->reason);
    testutil_fakebroker_answer (broker, &result, DROVER_CODE_OK);

    uint64_t tasks, acked;
    testutil_fakebroker_leave (broker, &tasks, &acked);
    assert_true (tasks == S_HANDLED + 1);
    assert_true (acked == S_HANDLED + 1);
    testutil_fakebroker_destroy (&broker);
    assert_int_equal (calls, S_HANDLED + 1);
}

//  A bad offer body is answered at once with a SPAWN_FAILED RESULT (no
//  STARTED: the RESULT acknowledges the offer), not a crash
static void
test_bad_body (void **state)
{
    testutil_fakebroker_t *broker = testutil_fakebroker_new ();
    testutil_fakebroker_register (broker);
    drover_msg_t *offer = drover_msg_new (DROVER_MSG_TASK_OFFER);
    offer->task = 3;
    offer->attempt = 1;
    drover_msg_set_body (offer, (const byte *) "\xc1garbage", 8);
    testutil_fakebroker_send (broker, &offer);
    drover_msg_t *result = testutil_fakebroker_expect_result (broker, 3);
    assert_int_equal (result->attempt, 1);
    assert_int_equal (result->outcome, DROVER_OUTCOME_SPAWN_FAILED);
    assert_int_equal (result->exit_code, -1);       //  nothing ran: no status
    assert_non_null (result->reason);
    drover_msg_destroy (&result);
    testutil_fakebroker_destroy (&broker);
}

//  The handler that answers "done" on stdout
static int
s_done_handler (void *arg, drover_job_t *job)
{
    drover_job_set_output (job, (const byte *) "done", 4, NULL, 0);
    return 0;
}

#define S_REAL_TASKS 50

//  A real broker takes a RESULT that comes without TASK STARTED as the
//  acknowledgement of its offer: every task succeeds on its first attempt,
//  every result is answered OK (none stale), and a drain ends the worker
static void
test_real_broker_takes_result_without_started (void **state)
{
    const char *flags [] = { "--set", "assign/ack-timeout=200", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    drover_worker_t *worker = drover_worker_new (cluster->endpoint, "w-inproc", 8, 1ULL << 30);
    assert_non_null (worker);
    drover_worker_set_handler (worker, s_done_handler, NULL);
    zactor_t *actor = zactor_new (drover_worker_actor, worker);
    assert_non_null (actor);
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 1, 5000));

    //  Submit, then WAIT for them all: each gets one TASK DONE
    uint64_t tasks [S_REAL_TASKS];
    for (int index = 0; index < S_REAL_TASKS; index++)
        tasks [index] = testutil_submit (dealer, testutil_submit_msg ("true", 0, 1, 0));
    drover_msg_t *wait = testutil_wait_msg (tasks, S_REAL_TASKS);
    wait->seq = 9999;
    testutil_send (dealer, &wait);
    bool seen [S_REAL_TASKS] = { false };
    int done = 0;
    int64_t deadline = zclock_mono () + 10000;
    while (done < S_REAL_TASKS && zclock_mono () < deadline) {
        drover_msg_t *msg = testutil_recv_msg (dealer, (int) (deadline - zclock_mono ()));
        if (!msg)
            break;
        if (msg->id == DROVER_MSG_OK && msg->seq == 9999) {
            drover_msg_destroy (&msg);
            continue;           //  the WAIT's OK, before or among the DONEs
        }
        assert_int_equal (msg->id, DROVER_MSG_TASK_DONE);
        int index = 0;
        while (index < S_REAL_TASKS && tasks [index] != msg->task)
            index++;
        assert_true (index < S_REAL_TASKS);
        assert_false (seen [index]);
        seen [index] = true;
        done++;
        assert_int_equal (msg->state, DROVER_TASK_SUCCEEDED);
        assert_int_equal (msg->attempt, 1);         //  never offered twice
        assert_string_equal (msg->worker, "w-inproc");
        assert_int_equal (msg->out_size, 4);
        assert_memory_equal (msg->out, "done", 4);
        drover_msg_destroy (&msg);
    }
    assert_int_equal (done, S_REAL_TASKS);
    //  Drain with exit: the broker says LEAVE once idle; the worker leaves
    //  only with every result acknowledged
    drover_msg_t *admin = drover_msg_new (DROVER_MSG_WORKER_ADMIN);
    strcpy (admin->worker, "w-inproc");
    admin->admin = DROVER_ADMIN_DRAIN;
    admin->flags = DROVER_ADMIN_EXIT;
    drover_msg_t *reply = testutil_request (dealer, &admin, 5000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_OK);
    drover_msg_destroy (&reply);
    zmsg_t *said = testutil_recv (zactor_sock (actor), 5000);
    assert_non_null (said);
    char *word = zmsg_popstr (said);
    assert_string_equal (word, "DONE");
    zstr_free (&word);
    zmsg_destroy (&said);
    uint64_t run, acked;
    assert_int_equal (zstr_send (actor, "COUNTERS"), 0);
    assert_int_equal (zsock_recv (actor, "88", &run, &acked), 0);
    assert_true (run == S_REAL_TASKS);
    assert_true (acked == S_REAL_TASKS);
    zactor_destroy (&actor);
    assert_true (drover_worker_results_stale (worker) == 0);
    drover_worker_destroy (&worker);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_handler),
        cmocka_unit_test (test_bad_body),
        cmocka_unit_test (test_real_broker_takes_result_without_started),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
