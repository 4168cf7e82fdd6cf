/*  =========================================================================
    test_services - services kept at their count, through real processes:
    a broker and `drover worker` agents on loopback, replicas that are real
    `sleep` processes. The tests: 4 replicas over 3 workers spread
    2/1/1; a worker killed with -9 is replaced within a term of its loss; a
    worker joining takes only the one replica even spread needs; a worker that
    does not answer the gather blocks removals and the statistics say why;
    `plan drain` says what `drain` then does; definitions and counts
    survive a broker killed and restarted; an affinity key keeps its tasks
    on one worker and falls back after the wait
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include "testutil_services.h"
#include <signal.h>

#define S_TERM          1000        //  service/term, msec
#define S_WAIT          20000       //  msec any one wait here may take at most

//  The broker's settings: short terms, a quick loss, a gather that waits
//  half a second, no rebalancing (spread alone: test_services_balance
//  has the rebalancing)
static const char *s_flags [] = {
    "--set", "service/term=1000",
    "--set", "service/rebalance-moves=0",
    "--set", "service/gather-timeout=500",
    "--set", "health/heartbeat=200",
    "--set", "health/lost-after=1500",
    "--set", "schedq/affinity-wait=1500",
    NULL
};

//  The same with a worker lost only after 6 s of silence: a stopped one
//  misses gathers long before
static const char *s_patient_flags [] = {
    "--set", "service/term=1000",
    "--set", "service/gather-timeout=500",
    "--set", "health/heartbeat=200",
    "--set", "health/lost-after=6000",
    NULL
};

//  Make a SERVICE ADMIN create of replicas running `sleep 600`
static drover_msg_t *
s_create_msg (const char *name, uint32_t replicas)
{
    drover_msg_t *msg = testutil_submit_msg ("exec sleep 600", 0, 1, 0);
    msg->id = DROVER_MSG_SERVICE_ADMIN;
    msg->action = DROVER_SERVICE_CREATE;
    snprintf (msg->service, sizeof msg->service, "%s", name);
    msg->count = replicas;
    return msg;
}

//  Send a request and return the code of its OK or ERROR reply (0: none)
static int
s_code (zsock_t *dealer, drover_msg_t *request)
{
    drover_msg_t *reply = testutil_request (dealer, &request, 5000);
    int code = reply && (reply->id == DROVER_MSG_OK || reply->id == DROVER_MSG_ERROR)?
        reply->code: 0;
    drover_msg_destroy (&reply);
    return code;
}

//  Start three workers of 4 procs and a service of 4 replicas running
static testutil_cluster_t *
s_three_workers_four_replicas (const char *flags [], zsock_t **dealer_p,
                               testutil_services_view_t *view)
{
    testutil_cluster_t *cluster = testutil_services_cluster (flags, 3, 4, dealer_p, S_WAIT);
    assert_int_equal (s_code (*dealer_p, s_create_msg ("web", 4)), DROVER_CODE_OK);
    assert_true (testutil_services_await_running (*dealer_p, "web", 4, view, S_WAIT));
    return cluster;
}

//  Wait (S_WAIT at most) for a term of web after view's whose
//  completeness is complete, each term seen into *seen and then *view;
//  false if none came
static bool
s_await_completeness (zsock_t *dealer, testutil_services_view_t *view,
                      testutil_services_view_t *seen, bool complete)
{
    int64_t deadline = zclock_mono () + S_WAIT;
    while (zclock_mono () < deadline) {
        assert_true (testutil_services_await_term (dealer, "web", view->stats.term, seen, S_WAIT));
        *view = *seen;
        if (seen->stats.complete == complete)
            return true;
    }
    return false;
}


//  4 replicas over 3 workers: 2/1/1; one killed with -9: back to 4 within
//  a term of the loss; a worker joining takes one, the one spread needs
static void
test_spread_loss_and_join (void **state)
{
    zsock_t *dealer;
    testutil_services_view_t view;
    testutil_cluster_t *cluster = s_three_workers_four_replicas (s_flags, &dealer, &view);
    int counts [3] = { testutil_services_on (&view, "w1"), testutil_services_on (&view, "w2"),
                       testutil_services_on (&view, "w3") };
    int twos = 0, ones = 0;
    for (int index = 0; index < 3; index++) {
        twos += counts [index] == 2;
        ones += counts [index] == 1;
    }
    assert_int_equal (twos, 1);
    assert_int_equal (ones, 2);

    //  kill -9 the worker with two: its replicas come back elsewhere
    int victim = counts [0] == 2? 0: counts [1] == 2? 1: 2;
    zsock_t *sub = testutil_cluster_sub (cluster, dealer, "worker.",
                                         cluster->worker_ids [(victim + 1) % 3]);
    kill (cluster->workers [victim], SIGKILL);
    assert_true (testutil_wait_exit (cluster->workers [victim], 5000) != -1);
    cluster->workers [victim] = 0;
    drover_event_t event;
    assert_true (testutil_await_event (sub, "worker.lost", cluster->worker_ids [victim],
                                       &event, S_WAIT));
    int64_t lost_at = zclock_mono ();
    assert_true (testutil_services_await_running (dealer, "web", 4, &view, S_WAIT));
    int64_t took = zclock_mono () - lost_at;
    printf ("replaced 2 replicas in %d ms after the loss (term %d ms)\n", (int) took, S_TERM);
    assert_true (took <= S_TERM + 1000);
    assert_int_equal (testutil_services_on (&view, cluster->worker_ids [victim]), 0);
    zsock_destroy (&sub);

    //  A new worker joins: 2/2/0 is not even; exactly one replica moves
    //  there (2/1/1), the other three keep their tasks
    testutil_services_view_t before = view;
    testutil_cluster_add_worker (cluster, 3, "w4", 4, NULL);
    assert_true (testutil_wait_workers (dealer, 3, S_WAIT));
    testutil_services_view_t after;
    int64_t deadline = zclock_mono () + S_WAIT;
    while (zclock_mono () < deadline) {
        assert_true (testutil_services_await_running (dealer, "web", 4, &after, S_WAIT));
        if (testutil_services_on (&after, "w4") == 1)
            break;
        zclock_sleep (50);      //  paces the questions; the deadline bounds the wait
    }
    assert_int_equal (testutil_services_on (&after, "w4"), 1);
    int kept = 0;
    for (int slot = 0; slot < 4; slot++) {
        printf ("slot %d: task %" PRIu64 " on %s, then task %" PRIu64 " on %s\n", slot,
                before.task [slot], before.worker [slot], after.task [slot],
                after.worker [slot]);
        kept += after.task [slot] == before.task [slot];
    }
    assert_int_equal (kept, 3);
    //  And stays so: two more terms move nothing
    testutil_services_view_t later;
    assert_true (testutil_services_await_term (dealer, "web", after.stats.term + 2, &later,
                                               S_WAIT));
    for (int slot = 0; slot < 4; slot++)
        assert_true (later.task [slot] == after.task [slot]);
    testutil_services_finish (&cluster, &dealer);
}

//  A worker that does not answer the gather (stopped): the term removes
//  nothing and says which worker did not answer; once it answers, the
//  terms are complete again
static void
test_silent_worker_blocks_removals (void **state)
{
    zsock_t *dealer;
    testutil_services_view_t view;
    testutil_cluster_t *cluster = s_three_workers_four_replicas (s_patient_flags, &dealer,
                                                                 &view);
    testutil_services_view_t before = view;
    kill (cluster->workers [1], SIGSTOP);
    testutil_services_view_t seen;
    bool incomplete = s_await_completeness (dealer, &view, &seen, false);
    kill (cluster->workers [1], SIGCONT);
    assert_true (incomplete);
    printf ("incomplete term: %s\n", seen.stats.why);
    assert_non_null (strstr (seen.stats.why, "w2"));
    assert_int_equal (seen.stats.stopped, 0);
    for (int slot = 0; slot < 4; slot++)
        assert_true (seen.task [slot] == 0 || seen.task [slot] == before.task [slot]);
    //  Heard again: a complete term, the same replicas
    bool complete = s_await_completeness (dealer, &view, &seen, true);
    assert_true (complete);
    assert_true (testutil_services_await_running (dealer, "web", 4, &view, S_WAIT));
    for (int slot = 0; slot < 4; slot++)
        assert_true (view.task [slot] == before.task [slot]);
    testutil_services_finish (&cluster, &dealer);
}

//  plan drain W, then drain W: the replicas go where the plan said, the
//  batch task running there finishes there, and W ends up with nothing
static void
test_plan_drain_is_what_drain_does (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (s_flags);
    const char *ssd [] = { "--label", "disk=ssd", NULL };
    testutil_cluster_add_worker (cluster, 0, "w1", 4, ssd);
    testutil_cluster_add_worker (cluster, 1, "w2", 4, NULL);
    testutil_cluster_add_worker (cluster, 2, "w3", 4, NULL);
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 3, S_WAIT));
    testutil_services_view_t view;
    assert_int_equal (s_code (dealer, s_create_msg ("web", 4)), DROVER_CODE_OK);
    assert_true (testutil_services_await_running (dealer, "web", 4, &view, S_WAIT));
    //  A batch task on w1 (its label), running
    drover_msg_t *submit = testutil_submit_msg ("sleep 6", 0, 1, DROVER_SUBMIT_NOTIFY);
    submit->labels [submit->nlabels++] = strdup ("disk=ssd");
    uint64_t batch = testutil_submit (dealer, submit);
    char where [DROVER_ID_MAX + 1];
    assert_true (testutil_wait_running (dealer, batch, where, S_WAIT));
    assert_string_equal (where, "w1");
    //  A term that has seen the batch task in its gather
    testutil_services_view_t seen;
    assert_true (testutil_services_await_term (dealer, "web", view.stats.term + 1, &seen, S_WAIT));

    drover_msg_t *plan = drover_msg_new (DROVER_MSG_PLAN);
    plan->action = DROVER_PLAN_DRAIN;
    snprintf (plan->worker, sizeof plan->worker, "w1");
    drover_msg_t *result = testutil_request (dealer, &plan, 5000);
    assert_non_null (result);
    assert_int_equal (result->id, DROVER_MSG_PLAN_RESULT);
    int on_w1 = testutil_services_on (&seen, "w1");
    int moves = 0, finishes = 0;
    uint32_t slots [16];
    char targets [16][DROVER_ID_MAX + 1];
    for (uint32_t index = 0; index < result->nchanges; index++) {
        const drover_planchange_t *change = &result->changes [index];
        printf ("plan: kind %d %s/%u task %" PRIu64 " %s -> %s (%s)\n", change->kind,
                change->service, change->slot, change->task, change->from, change->to,
                change->why);
        if (change->kind == DROVER_CHANGE_MOVE) {
            assert_string_equal (change->from, "w1");
            assert_string_not_equal (change->to, "w1");
            slots [moves] = change->slot;
            snprintf (targets [moves++], DROVER_ID_MAX + 1, "%s", change->to);
        }
        else
        if (change->kind == DROVER_CHANGE_FINISH) {
            assert_true (change->task == batch);
            finishes++;
        }
        else
            fail_msg ("a drain plan only moves replicas and leaves tasks to finish");
    }
    assert_int_equal (moves, on_w1);
    assert_int_equal (finishes, 1);
    assert_int_equal (result->stats_after.running, 4);
    drover_msg_destroy (&result);

    //  Commit: drain w1; the replicas move where the plan said
    assert_int_equal (testutil_admin (dealer, "w1", DROVER_ADMIN_DRAIN), DROVER_CODE_OK);
    int64_t deadline = zclock_mono () + S_WAIT;
    while (zclock_mono () < deadline) {
        assert_true (testutil_services_await_running (dealer, "web", 4, &view, S_WAIT));
        if (testutil_services_on (&view, "w1") == 0)
            break;
        zclock_sleep (50);      //  paces the questions; the deadline bounds the wait
    }
    assert_int_equal (testutil_services_on (&view, "w1"), 0);
    for (int move = 0; move < moves; move++)
        assert_string_equal (view.worker [slots [move]], targets [move]);
    //  The batch task finished where it ran, in its first attempt
    drover_msg_t *done = testutil_expect_done (dealer, batch, DROVER_TASK_SUCCEEDED, S_WAIT);
    drover_msg_destroy (&done);
    drover_msg_t *show = drover_msg_new (DROVER_MSG_TASK_SHOW);
    show->task = batch;
    drover_msg_t *info = testutil_request (dealer, &show, 5000);
    assert_non_null (info);
    assert_int_equal (info->id, DROVER_MSG_TASK_INFO);
    assert_int_equal (info->info->nattempts, 1);
    assert_string_equal (info->info->attempts [0].worker, "w1");
    drover_msg_destroy (&info);
    testutil_services_finish (&cluster, &dealer);
}

//  Definitions and counts survive a broker killed with -9 and restarted;
//  the replicas still running are adopted
static void
test_definitions_survive_restart (void **state)
{
    zsock_t *dealer;
    testutil_cluster_t *cluster = testutil_services_cluster (s_flags, 2, 4, &dealer, S_WAIT);
    assert_int_equal (s_code (dealer, s_create_msg ("api", 3)), DROVER_CODE_OK);
    assert_int_equal (s_code (dealer, s_create_msg ("api", 3)), DROVER_CODE_CONFLICT);
    assert_int_equal (s_code (dealer, s_create_msg ("db", 1)), DROVER_CODE_OK);
    drover_msg_t *scale = drover_msg_new (DROVER_MSG_SERVICE_ADMIN);
    scale->action = DROVER_SERVICE_SCALE;
    snprintf (scale->service, sizeof scale->service, "api");
    scale->count = 2;
    assert_int_equal (s_code (dealer, scale), DROVER_CODE_OK);
    testutil_services_view_t view, api;
    assert_true (testutil_services_await_running (dealer, "api", 2, &api, S_WAIT));
    assert_true (testutil_services_await_running (dealer, "db", 1, &view, S_WAIT));

    testutil_cluster_kill_restart (cluster, s_flags);
    zsock_destroy (&dealer);
    dealer = testutil_dealer (cluster);
    drover_msg_t *table = testutil_services_table (dealer, NULL);
    assert_int_equal (table->nservices, 2);
    for (uint32_t index = 0; index < table->nservices; index++) {
        const drover_service_row_t *row = &table->service_rows [index];
        if (streq (row->name, "api"))
            assert_int_equal (row->replicas, 2);
        else {
            assert_string_equal (row->name, "db");
            assert_int_equal (row->replicas, 1);
        }
    }
    drover_msg_destroy (&table);
    //  The replicas still running were adopted, not started again
    assert_true (testutil_services_await_running (dealer, "api", 2, &view, S_WAIT));
    for (int slot = 0; slot < 2; slot++) {
        assert_true (view.task [slot] == api.task [slot]);
        assert_string_equal (view.worker [slot], api.worker [slot]);
    }
    assert_true (testutil_services_await_running (dealer, "db", 1, &view, S_WAIT));
    //  Deleted: gone after a restart too
    drover_msg_t *drop = drover_msg_new (DROVER_MSG_SERVICE_ADMIN);
    drop->action = DROVER_SERVICE_DELETE;
    snprintf (drop->service, sizeof drop->service, "db");
    assert_int_equal (s_code (dealer, drop), DROVER_CODE_OK);
    testutil_cluster_kill_restart (cluster, s_flags);
    zsock_destroy (&dealer);
    dealer = testutil_dealer (cluster);
    table = testutil_services_table (dealer, NULL);
    assert_int_equal (table->nservices, 1);
    assert_string_equal (table->service_rows [0].name, "api");
    drover_msg_destroy (&table);
    testutil_services_finish (&cluster, &dealer);
}

//  Submit a task with an affinity key; return its id
static uint64_t
s_submit_affine (zsock_t *dealer, const char *script, const char *key)
{
    drover_msg_t *submit = testutil_submit_msg (script, 0, 1, DROVER_SUBMIT_NOTIFY);
    submit->affinity = strdup (key);
    return testutil_submit (dealer, submit);
}

//  Where a finished task's last attempt ran
static void
s_ran_on (zsock_t *dealer, uint64_t task, char *worker)
{
    drover_msg_t *show = drover_msg_new (DROVER_MSG_TASK_SHOW);
    show->task = task;
    drover_msg_t *info = testutil_request (dealer, &show, 5000);
    assert_non_null (info);
    assert_int_equal (info->id, DROVER_MSG_TASK_INFO);
    assert_true (info->info->nattempts >= 1);
    snprintf (worker, DROVER_ID_MAX + 1, "%s",
              info->info->attempts [info->info->nattempts - 1].worker);
    drover_msg_destroy (&info);
}

//  An affinity key's tasks go to one worker while it has room; with it
//  full, the next task waits there, then goes to another after the wait
static void
test_affinity_sticks_then_falls_back (void **state)
{
    zsock_t *dealer;
    testutil_cluster_t *cluster = testutil_services_cluster (s_flags, 3, 2, &dealer, S_WAIT);
    char first [DROVER_ID_MAX + 1] = "";
    for (int index = 0; index < 6; index++) {
        uint64_t task = s_submit_affine (dealer, "true", "dataset-a");
        drover_msg_t *done = testutil_expect_done (dealer, task, DROVER_TASK_SUCCEEDED,
                                                   S_WAIT);
        drover_msg_destroy (&done);
        char worker [DROVER_ID_MAX + 1];
        s_ran_on (dealer, task, worker);
        if (index == 0)
            snprintf (first, sizeof first, "%s", worker);
        assert_string_equal (worker, first);
    }
    //  Fill the first worker, then one more: it waits, then runs elsewhere
    uint64_t long_tasks [2];
    for (int index = 0; index < 2; index++) {
        long_tasks [index] = s_submit_affine (dealer, "sleep 8", "dataset-a");
        char worker [DROVER_ID_MAX + 1];
        assert_true (testutil_wait_running (dealer, long_tasks [index], worker, S_WAIT));
        assert_string_equal (worker, first);
    }
    int64_t submitted = zclock_mono ();
    uint64_t spill = s_submit_affine (dealer, "true", "dataset-a");
    drover_msg_t *done = testutil_expect_done (dealer, spill, DROVER_TASK_SUCCEEDED, S_WAIT);
    drover_msg_destroy (&done);
    int64_t waited = zclock_mono () - submitted;
    char worker [DROVER_ID_MAX + 1];
    s_ran_on (dealer, spill, worker);
    printf ("affinity: %s full, the next ran on %s after %d ms\n", first, worker, (int) waited);
    assert_string_not_equal (worker, first);
    assert_true (waited >= 1000);
    assert_true (waited < 8000);
    testutil_services_finish (&cluster, &dealer);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_spread_loss_and_join),
        cmocka_unit_test (test_silent_worker_blocks_removals),
        cmocka_unit_test (test_plan_drain_is_what_drain_does),
        cmocka_unit_test (test_definitions_survive_restart),
        cmocka_unit_test (test_affinity_sticks_then_falls_back),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
