/*  =========================================================================
    test_offers_ahead - offers held ahead (protocol level 9) on a real
    broker and real `drover worker` agents on loopback

    With assign/offer-ahead=1 (the agent holds one offer ahead by default,
    the broker grants none unless told), a worker of one proc that runs a task is sent the next one as
    well: it stays ASSIGNED there, unstarted, and starts the moment the
    first ends, while a third waits QUEUED. A held offer behind a long task
    is given back (RETURNED) after a quarter of the ack-timeout and runs on
    another worker; the broker counts it. Results are counted at the wire:
    each task ends exactly once. Off by default, nothing is held.
    =========================================================================
*/

#include "testutil_wire.h"
#include "testutil_cluster.h"
#include <unistd.h>

#define S_WAIT_MAX      15000   //  msec any one step may take at most

//  True if TASK LIST of tasks in state lists task (on worker, if not NULL)
static bool
s_listed (zsock_t *dealer, uint64_t task, int state, const char *worker)
{
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_LIST);
    request->limit = DROVER_ROWS_MAX;
    request->state = (uint8_t) state;
    drover_msg_t *reply = testutil_request (dealer, &request, 5000);
    assert_non_null (reply);
    bool listed = false;
    for (uint32_t row = 0; row < reply->nrows; row++)
        if (reply->task_rows [row].task == task && reply->task_rows [row].state == state
        &&  (!worker || streq (reply->task_rows [row].worker, worker)))
            listed = true;
    drover_msg_destroy (&reply);
    return listed;
}

//  Submit a shell script of priority 0 and one proc, told when it ends
static uint64_t
s_submit (zsock_t *dealer, const char *script)
{
    return testutil_submit (dealer, testutil_submit_msg (script, 0, 1, DROVER_SUBMIT_NOTIFY));
}

//  One proc, three tasks: the first runs, the second is held on the same
//  worker (ASSIGNED, not started), the third waits QUEUED; all three end
//  once each, in order
static void
test_second_task_held_then_started (void **state)
{
    const char *flags [] = { "--set", "assign/offer-ahead=1", "--set", "assign/ack-timeout=60000",
                             NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    testutil_cluster_add_worker (cluster, 0, "alpha", 1, NULL);
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 1, S_WAIT_MAX));
    char gate [256];
    snprintf (gate, sizeof gate, "%s/gate", cluster->logdir);
    char script [512];
    snprintf (script, sizeof script, "while [ ! -e %s ]; do sleep 0.05; done; echo first", gate);
    uint64_t tasks [3];
    tasks [0] = s_submit (dealer, script);
    char worker [DROVER_ID_MAX + 1] = "";
    assert_true (testutil_wait_running (dealer, tasks [0], worker, S_WAIT_MAX));
    tasks [1] = s_submit (dealer, "echo second");
    tasks [2] = s_submit (dealer, "echo third");
    //  Held there, not started: no STARTED came for it
    assert_true (testutil_cluster_await_log (cluster, "broker", "ahead=1", 1000));
    int64_t deadline = zclock_mono () + S_WAIT_MAX;
    while (!s_listed (dealer, tasks [1], DROVER_TASK_ASSIGNED, "alpha") && zclock_mono () < deadline)
        zclock_sleep (20);          //  polling TASK LIST, with a deadline
    assert_true (s_listed (dealer, tasks [1], DROVER_TASK_ASSIGNED, "alpha"));
    assert_true (s_listed (dealer, tasks [2], DROVER_TASK_QUEUED, NULL));
    assert_true (s_listed (dealer, tasks [0], DROVER_TASK_RUNNING, "alpha"));
    //  What an operator reads of it
    char task_text [32];
    snprintf (task_text, sizeof task_text, "%" PRIu64, tasks [1]);
    const char *args [] = { "explain", task_text, NULL };
    testutil_cli_t *run = (testutil_cli_t *) zmalloc (sizeof (testutil_cli_t));
    testutil_cli (cluster->endpoint, args, run);
    testutil_cli_expect (run, 0, run->out, "ASSIGNED on alpha, attempt 1");
    testutil_cli_expect (run, 0, run->out, "offered: not started yet");
    free (run);
    //  The first ends: the held one starts there, then the third
    FILE *file = fopen (gate, "w");
    assert_non_null (file);
    fclose (file);
    drover_msg_t *done [3] = { NULL };
    assert_true (testutil_collect (dealer, tasks, done, 3, S_WAIT_MAX));
    const char *outputs [] = { "first\n", "second\n", "third\n" };
    for (int index = 0; index < 3; index++) {
        assert_int_equal (done [index]->state, DROVER_TASK_SUCCEEDED);
        assert_string_equal (done [index]->worker, "alpha");
        assert_int_equal (done [index]->attempt, 1);
        assert_int_equal (done [index]->out_size, strlen (outputs [index]));
        assert_memory_equal (done [index]->out, outputs [index], strlen (outputs [index]));
        drover_msg_destroy (&done [index]);
    }
    //  Nothing more arrives: each ended once
    drover_msg_t *extra = testutil_recv_msg (dealer, 300);
    assert_null (extra);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  A held offer behind a long task goes back after a quarter of the
//  ack-timeout, is queued again (no retry used) and runs on a worker that
//  comes; the broker counts it, and the event says why
static void
test_held_offer_given_back (void **state)
{
    int metrics = testutil_free_port ();
    char address [64];
    snprintf (address, sizeof address, "127.0.0.1:%d", metrics);
    const char *flags [] = { "--metrics", address, "--set", "assign/offer-ahead=1",
                             "--set", "assign/ack-timeout=800", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    testutil_cluster_add_worker (cluster, 0, "alpha", 1, NULL);
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 1, S_WAIT_MAX));
    zsock_t *sub = testutil_cluster_sub (cluster, dealer, "", "alpha");
    char gate [256];
    snprintf (gate, sizeof gate, "%s/gate", cluster->logdir);
    char script [512];
    snprintf (script, sizeof script, "while [ ! -e %s ]; do sleep 0.05; done; echo long", gate);
    uint64_t tasks [2];
    tasks [0] = s_submit (dealer, script);
    char worker [DROVER_ID_MAX + 1] = "";
    assert_true (testutil_wait_running (dealer, tasks [0], worker, S_WAIT_MAX));
    tasks [1] = s_submit (dealer, "echo short");
    drover_event_t event;
    assert_true (testutil_await_event (sub, "task.requeued", "alpha", &event, S_WAIT_MAX));
    assert_non_null (strstr (event.reason, "returned: held ahead on alpha"));
    assert_true (testutil_await_metric (metrics, "drover_offers_returned_total", 1, false,
                                        S_WAIT_MAX));
    //  Not sent to alpha again while its task runs: it waits for a worker
    assert_true (s_listed (dealer, tasks [1], DROVER_TASK_QUEUED, NULL));
    testutil_cluster_add_worker (cluster, 1, "beta", 1, NULL);
    drover_msg_t *done = testutil_expect_done (dealer, tasks [1], DROVER_TASK_SUCCEEDED,
                                               S_WAIT_MAX);
    assert_string_equal (done->worker, "beta");
    assert_int_equal (done->attempt, 2);
    drover_msg_destroy (&done);
    assert_true (s_listed (dealer, tasks [0], DROVER_TASK_RUNNING, "alpha"));
    FILE *file = fopen (gate, "w");
    assert_non_null (file);
    fclose (file);
    done = testutil_expect_done (dealer, tasks [0], DROVER_TASK_SUCCEEDED, S_WAIT_MAX);
    assert_int_equal (done->attempt, 1);
    drover_msg_destroy (&done);
    zsock_destroy (&sub);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  A held task cancelled ends CANCELLED at once, its process never run;
//  the running one is untouched
static void
test_held_task_cancelled (void **state)
{
    const char *flags [] = { "--set", "assign/offer-ahead=1", "--set", "assign/ack-timeout=60000",
                             NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    testutil_cluster_add_worker (cluster, 0, "alpha", 1, NULL);
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 1, S_WAIT_MAX));
    char gate [256], mark [256];
    snprintf (gate, sizeof gate, "%s/gate", cluster->logdir);
    snprintf (mark, sizeof mark, "%s/held-ran", cluster->logdir);
    char script [512];
    snprintf (script, sizeof script, "while [ ! -e %s ]; do sleep 0.05; done", gate);
    uint64_t running = s_submit (dealer, script);
    char worker [DROVER_ID_MAX + 1] = "";
    assert_true (testutil_wait_running (dealer, running, worker, S_WAIT_MAX));
    snprintf (script, sizeof script, "touch %s", mark);
    uint64_t held = s_submit (dealer, script);
    int64_t deadline = zclock_mono () + S_WAIT_MAX;
    while (!s_listed (dealer, held, DROVER_TASK_ASSIGNED, "alpha") && zclock_mono () < deadline)
        zclock_sleep (20);          //  polling TASK LIST, with a deadline
    assert_true (s_listed (dealer, held, DROVER_TASK_ASSIGNED, "alpha"));
    drover_msg_t *cancel = drover_msg_new (DROVER_MSG_TASK_CANCEL);
    cancel->task = held;
    drover_msg_t *reply = testutil_request (dealer, &cancel, 5000);
    assert_non_null (reply);
    assert_int_equal (reply->code, DROVER_CODE_OK);
    drover_msg_destroy (&reply);
    drover_msg_t *done = testutil_expect_done (dealer, held, DROVER_TASK_CANCELLED, S_WAIT_MAX);
    assert_int_equal (done->attempt, 1);
    drover_msg_destroy (&done);
    assert_true (s_listed (dealer, running, DROVER_TASK_RUNNING, "alpha"));
    FILE *file = fopen (gate, "w");
    assert_non_null (file);
    fclose (file);
    done = testutil_expect_done (dealer, running, DROVER_TASK_SUCCEEDED, S_WAIT_MAX);
    drover_msg_destroy (&done);
    assert_int_equal (access (mark, F_OK), -1);     //  the held one never ran
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  Off by default (assign/offer-ahead 0): nothing is held, the second
//  task waits QUEUED
static void
test_off_by_default (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    testutil_cluster_add_worker (cluster, 0, "alpha", 1, NULL);
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 1, S_WAIT_MAX));
    char gate [256];
    snprintf (gate, sizeof gate, "%s/gate", cluster->logdir);
    char script [512];
    snprintf (script, sizeof script, "while [ ! -e %s ]; do sleep 0.05; done", gate);
    uint64_t tasks [2];
    tasks [0] = s_submit (dealer, script);
    char worker [DROVER_ID_MAX + 1] = "";
    assert_true (testutil_wait_running (dealer, tasks [0], worker, S_WAIT_MAX));
    assert_true (testutil_cluster_await_log (cluster, "broker", "worker=alpha state=UP", 1000));
    assert_true (testutil_cluster_await_log (cluster, "broker", "ahead=0", 1000));
    tasks [1] = s_submit (dealer, "true");
    assert_true (s_listed (dealer, tasks [1], DROVER_TASK_QUEUED, NULL));
    assert_false (s_listed (dealer, tasks [1], DROVER_TASK_ASSIGNED, NULL));
    FILE *file = fopen (gate, "w");
    assert_non_null (file);
    fclose (file);
    drover_msg_t *done [2] = { NULL };
    assert_true (testutil_collect (dealer, tasks, done, 2, S_WAIT_MAX));
    for (int index = 0; index < 2; index++) {
        assert_int_equal (done [index]->state, DROVER_TASK_SUCCEEDED);
        drover_msg_destroy (&done [index]);
    }
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_second_task_held_then_started),
        cmocka_unit_test (test_held_offer_given_back),
        cmocka_unit_test (test_held_task_cancelled),
        cmocka_unit_test (test_off_by_default),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
