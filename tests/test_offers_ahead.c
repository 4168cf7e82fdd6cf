/*  =========================================================================
    test_offers_ahead - offers held ahead (protocol level 9) on a real
    broker and real `drover worker` agents on loopback

    By default (the agent holds one offer ahead, the broker grants one), a
    worker of one proc that runs a task is sent the next one as well: it
    stays ASSIGNED there, unstarted, and starts the moment the first ends,
    while a third waits QUEUED. A held offer behind a long task is given
    back (RETURNED) after a quarter of the ack-timeout and runs on another
    worker; the broker counts it. Results are counted at the wire: each
    task ends exactly once. With assign/offer-ahead=0, nothing is held.
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

//  A cluster whose one worker, alpha, of one proc, runs a task that waits
//  for a gate file: so every task submitted after it finds alpha busy
typedef struct {
    testutil_cluster_t *cluster;
    zsock_t *dealer;
    zsock_t *sub;               //  the broker's events, all of them
    char gate [256];            //  the file whose creation ends the gated task
    uint64_t gated;             //  the gated task (it prints "gated")
} s_busy_t;

//  Start a busy cluster with the broker's extra flags (NULL-terminated)
static void
s_busy_start (s_busy_t *self, const char *flags [])
{
    self->cluster = testutil_cluster_new (flags);
    testutil_cluster_add_worker (self->cluster, 0, "alpha", 1, NULL);
    self->dealer = testutil_dealer (self->cluster);
    assert_true (testutil_wait_workers (self->dealer, 1, S_WAIT_MAX));
    snprintf (self->gate, sizeof self->gate, "%s/gate", self->cluster->logdir);
    char script [512];
    snprintf (script, sizeof script, "while [ ! -e %s ]; do sleep 0.05; done; echo gated",
              self->gate);
    self->gated = s_submit (self->dealer, script);
    char worker [DROVER_ID_MAX + 1] = "";
    assert_true (testutil_wait_running (self->dealer, self->gated, worker, S_WAIT_MAX));
    assert_string_equal (worker, "alpha");
    self->sub = testutil_cluster_sub (self->cluster, self->dealer, "", "alpha");
}

//  Let the gated task end
static void
s_busy_open_gate (s_busy_t *self)
{
    FILE *file = fopen (self->gate, "w");
    assert_non_null (file);
    fclose (file);
}

//  Stop the cluster
static void
s_busy_stop (s_busy_t *self)
{
    zsock_destroy (&self->sub);
    zsock_destroy (&self->dealer);
    testutil_cluster_destroy (&self->cluster);
}

//  Wait for the event that task went to alpha, then assert TASK LIST has
//  it ASSIGNED there (held: not started)
static void
s_await_held (s_busy_t *self, uint64_t task)
{
    int64_t deadline = zclock_mono () + S_WAIT_MAX;
    drover_event_t event = { 0 };
    while (event.task != task && zclock_mono () < deadline)
        if (!testutil_await_event (self->sub, "task.assigned", "alpha", &event,
                                   (int) (deadline - zclock_mono ())))
            break;
    assert_int_equal (event.task, task);
    assert_true (s_listed (self->dealer, task, DROVER_TASK_ASSIGNED, "alpha"));
}

//  One proc, three tasks: the first runs, the second is held on the same
//  worker (ASSIGNED, not started), the third waits QUEUED; all three end
//  once each, in order
static void
test_second_task_held_then_started (void **state)
{
    const char *flags [] = { "--set", "assign/ack-timeout=60000", NULL };   //  ahead: the default
    s_busy_t busy;
    s_busy_start (&busy, flags);
    uint64_t tasks [3] = { busy.gated };
    tasks [1] = s_submit (busy.dealer, "echo second");
    tasks [2] = s_submit (busy.dealer, "echo third");
    //  Held there, not started: no STARTED came for it
    assert_true (testutil_cluster_await_log (busy.cluster, "broker", "ahead=1", 1000));
    s_await_held (&busy, tasks [1]);
    assert_true (s_listed (busy.dealer, tasks [2], DROVER_TASK_QUEUED, NULL));
    assert_true (s_listed (busy.dealer, tasks [0], DROVER_TASK_RUNNING, "alpha"));
    //  What an operator reads of it
    char task_text [32];
    snprintf (task_text, sizeof task_text, "%" PRIu64, tasks [1]);
    const char *args [] = { "explain", task_text, NULL };
    testutil_cli_t *run = (testutil_cli_t *) zmalloc (sizeof (testutil_cli_t));
    testutil_cli (busy.cluster->endpoint, args, run);
    testutil_cli_expect (run, 0, run->out, "ASSIGNED on alpha, attempt 1");
    testutil_cli_expect (run, 0, run->out, "offered: not started yet");
    const char *workers [] = { "workers", "--json", NULL };
    testutil_cli (busy.cluster->endpoint, workers, run);
    testutil_cli_expect (run, 0, run->out, "\"tasks\":2,");
    testutil_cli_expect (run, 0, run->out, "\"ahead\":1,\"held\":1}");
    const char *table [] = { "workers", NULL };
    testutil_cli (busy.cluster->endpoint, table, run);
    testutil_cli_expect (run, 0, run->out, " 1+1 ");
    const char *show [] = { "show", "worker", "alpha", NULL };
    testutil_cli (busy.cluster->endpoint, show, run);
    testutil_cli_expect (run, 0, run->out, "held ahead:   1 (of 1 ");
    free (run);
    //  The first ends: the held one starts there, then the third
    s_busy_open_gate (&busy);
    drover_msg_t *done [3] = { NULL };
    assert_true (testutil_collect (busy.dealer, tasks, done, 3, S_WAIT_MAX));
    const char *outputs [] = { "gated\n", "second\n", "third\n" };
    for (int index = 0; index < 3; index++) {
        assert_int_equal (done [index]->state, DROVER_TASK_SUCCEEDED);
        assert_string_equal (done [index]->worker, "alpha");
        assert_int_equal (done [index]->attempt, 1);
        assert_int_equal (done [index]->out_size, strlen (outputs [index]));
        assert_memory_equal (done [index]->out, outputs [index], strlen (outputs [index]));
        drover_msg_destroy (&done [index]);
    }
    //  Nothing more arrives: each ended once
    drover_msg_t *extra = testutil_recv_msg (busy.dealer, 300);
    assert_null (extra);
    s_busy_stop (&busy);
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
    s_busy_t busy;
    s_busy_start (&busy, flags);
    uint64_t given = s_submit (busy.dealer, "echo short");
    assert_true (testutil_await_metric (metrics, "drover_offers_held", 1, false, S_WAIT_MAX));
    drover_event_t event;
    assert_true (testutil_await_event (busy.sub, "task.requeued", "alpha", &event, S_WAIT_MAX));
    assert_non_null (strstr (event.reason, "returned: held ahead on alpha"));
    assert_true (testutil_await_metric (metrics, "drover_offers_returned_total", 1, false,
                                        S_WAIT_MAX));
    assert_true (testutil_await_metric (metrics, "drover_offers_held", 0, true, S_WAIT_MAX));
    //  Not sent to alpha again while its task runs: it waits for a worker
    assert_true (s_listed (busy.dealer, given, DROVER_TASK_QUEUED, NULL));
    testutil_cluster_add_worker (busy.cluster, 1, "beta", 1, NULL);
    drover_msg_t *done = testutil_expect_done (busy.dealer, given, DROVER_TASK_SUCCEEDED,
                                               S_WAIT_MAX);
    assert_string_equal (done->worker, "beta");
    assert_int_equal (done->attempt, 2);
    drover_msg_destroy (&done);
    assert_true (s_listed (busy.dealer, busy.gated, DROVER_TASK_RUNNING, "alpha"));
    s_busy_open_gate (&busy);
    done = testutil_expect_done (busy.dealer, busy.gated, DROVER_TASK_SUCCEEDED, S_WAIT_MAX);
    assert_int_equal (done->attempt, 1);
    drover_msg_destroy (&done);
    s_busy_stop (&busy);
}

//  A held task cancelled ends CANCELLED at once, its process never run;
//  the running one is untouched
static void
test_held_task_cancelled (void **state)
{
    const char *flags [] = { "--set", "assign/offer-ahead=1", "--set", "assign/ack-timeout=60000",
                             NULL };
    s_busy_t busy;
    s_busy_start (&busy, flags);
    char mark [256], script [512];
    snprintf (mark, sizeof mark, "%s/held-ran", busy.cluster->logdir);
    snprintf (script, sizeof script, "touch %s", mark);
    uint64_t held = s_submit (busy.dealer, script);
    s_await_held (&busy, held);
    drover_msg_t *cancel = drover_msg_new (DROVER_MSG_TASK_CANCEL);
    cancel->task = held;
    drover_msg_t *reply = testutil_request (busy.dealer, &cancel, 5000);
    assert_non_null (reply);
    assert_int_equal (reply->code, DROVER_CODE_OK);
    drover_msg_destroy (&reply);
    drover_msg_t *done = testutil_expect_done (busy.dealer, held, DROVER_TASK_CANCELLED,
                                               S_WAIT_MAX);
    assert_int_equal (done->attempt, 1);
    drover_msg_destroy (&done);
    assert_true (s_listed (busy.dealer, busy.gated, DROVER_TASK_RUNNING, "alpha"));
    s_busy_open_gate (&busy);
    done = testutil_expect_done (busy.dealer, busy.gated, DROVER_TASK_SUCCEEDED, S_WAIT_MAX);
    drover_msg_destroy (&done);
    assert_int_equal (access (mark, F_OK), -1);     //  the held one never ran
    s_busy_stop (&busy);
}

//  Off (assign/offer-ahead 0): nothing is held, the second task waits
//  QUEUED
static void
test_off_at_zero (void **state)
{
    const char *flags [] = { "--set", "assign/offer-ahead=0", NULL };
    s_busy_t busy;
    s_busy_start (&busy, flags);
    assert_true (testutil_cluster_await_log (busy.cluster, "broker", "worker=alpha state=UP", 1000));
    assert_true (testutil_cluster_await_log (busy.cluster, "broker", "ahead=0", 1000));
    uint64_t tasks [2] = { busy.gated };
    tasks [1] = s_submit (busy.dealer, "true");
    assert_true (s_listed (busy.dealer, tasks [1], DROVER_TASK_QUEUED, NULL));
    assert_false (s_listed (busy.dealer, tasks [1], DROVER_TASK_ASSIGNED, NULL));
    testutil_cli_t *run = (testutil_cli_t *) zmalloc (sizeof (testutil_cli_t));
    const char *show [] = { "show", "worker", "alpha", NULL };
    testutil_cli (busy.cluster->endpoint, show, run);
    testutil_cli_expect (run, 0, run->out, "held ahead:   -");
    free (run);
    s_busy_open_gate (&busy);
    drover_msg_t *done [2] = { NULL };
    assert_true (testutil_collect (busy.dealer, tasks, done, 2, S_WAIT_MAX));
    for (int index = 0; index < 2; index++) {
        assert_int_equal (done [index]->state, DROVER_TASK_SUCCEEDED);
        drover_msg_destroy (&done [index]);
    }
    s_busy_stop (&busy);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_second_task_held_then_started),
        cmocka_unit_test (test_held_offer_given_back),
        cmocka_unit_test (test_held_task_cancelled),
        cmocka_unit_test (test_off_at_zero),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
