/*  =========================================================================
    test_services_balance - the orchestrator's and keep-balance's rows
    through real processes: a broker and `drover worker` agents on
    loopback, replicas that are real `sleep` processes, the CLI as a user
    runs it. `--max-per-worker 1` over 3 workers and 4 replicas: three run,
    one on each worker, and the fourth stays unplaced and explained (show,
    stats, JSON, metrics); rebalancing after a join moves about 1/(N+1) of
    the replicas, each started on its new worker before it is stopped on
    its old one, and the terms then settle
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"

#define S_WAIT          20000       //  msec any one wait here may take at most
#define S_SLOTS         32          //  slots a view keeps

//  The broker's settings: short terms, rebalancing on
static const char *s_flags [] = {
    "--set", "service/term=1000",
    "--set", "service/gather-timeout=500",
    "--set", "service/rebalance-moves=10",
    "--set", "health/heartbeat=200",
    "--set", "health/lost-after=3000",
    NULL
};

//  What a service runs, replica by replica, and the last term
typedef struct {
    int running;                //  replicas running
    int pending;                //  started, not running yet
    int waiting;                //  slots waiting
    int stopping;               //  replicas told to stop
    uint64_t task [S_SLOTS];    //  running task by slot, 0 none
    char worker [S_SLOTS][DROVER_ID_MAX + 1];   //  its worker by slot
    char waits [DROVER_REASON_MAX + 1];     //  why the (last) waiting slot waits
    char why [DROVER_REASON_MAX + 1];       //  the service row's why
    uint32_t max_per_worker;    //  the service row's
    drover_service_stats_t stats;   //  the last term's
} s_view_t;

//  Read a service's view off its table
static void
s_view (zsock_t *dealer, const char *name, s_view_t *view)
{
    memset (view, 0, sizeof *view);
    drover_msg_t *request = drover_msg_new (DROVER_MSG_SERVICE_LIST);
    snprintf (request->service, sizeof request->service, "%s", name);
    drover_msg_t *table = testutil_request (dealer, &request, 5000);
    assert_non_null (table);
    assert_int_equal (table->id, DROVER_MSG_SERVICE_TABLE);
    for (uint32_t index = 0; index < table->nreplicas; index++) {
        const drover_replica_row_t *row = &table->replica_rows [index];
        if (row->slot >= S_SLOTS)
            continue;
        if (row->state == DROVER_REPLICA_RUNNING) {
            view->running++;
            view->task [row->slot] = row->task;
            snprintf (view->worker [row->slot], DROVER_ID_MAX + 1, "%s", row->worker);
        }
        else
        if (row->state == DROVER_REPLICA_PENDING)
            view->pending++;
        else
        if (row->state == DROVER_REPLICA_STOPPING)
            view->stopping++;
        else
        if (row->state == DROVER_REPLICA_WAITING) {
            view->waiting++;
            snprintf (view->waits, sizeof view->waits, "%s", row->why);
        }
    }
    if (table->nservices) {
        snprintf (view->why, sizeof view->why, "%s", table->service_rows [0].why);
        view->max_per_worker = table->service_rows [0].max_per_worker;
    }
    view->stats = table->stats_now;
    drover_msg_destroy (&table);
}

//  Wait until a service runs count replicas, nothing pending or stopping,
//  in a term after term (its statistics of a settled view)
static bool
s_await_settled (zsock_t *dealer, const char *name, int count, uint64_t term, s_view_t *view)
{
    int64_t deadline = zclock_mono () + S_WAIT;
    while (zclock_mono () < deadline) {
        s_view (dealer, name, view);
        if (view->running == count && view->pending == 0 && view->stopping == 0
        &&  view->stats.term > term)
            return true;
        zclock_sleep (50);      //  paces the questions; the deadline bounds the wait
    }
    return false;
}

//  Count a view's running replicas on worker
static int
s_on (const s_view_t *view, const char *worker)
{
    int count = 0;
    for (int slot = 0; slot < S_SLOTS; slot++)
        count += view->task [slot] && streq (view->worker [slot], worker);
    return count;
}

//  Close the dealer, stop the cluster and remove its logs
static void
s_finish (testutil_cluster_t **cluster_p, zsock_t **dealer_p)
{
    zsock_destroy (dealer_p);
    char logdir [64];
    snprintf (logdir, sizeof logdir, "%s", (*cluster_p)->logdir);
    testutil_cluster_destroy (cluster_p);
    testutil_remove_tree (logdir);
}

//  `drover service create web --replicas 4 --max-per-worker 1` over 3
//  workers: one replica on each, the fourth waits and every view says why
static void
test_max_per_worker_over_three_workers (void **state)
{
    int metrics = testutil_free_port ();
    char address [32];
    snprintf (address, sizeof address, "127.0.0.1:%d", metrics);
    const char *flags [32];
    size_t count = 0;
    for (; s_flags [count]; count++)
        flags [count] = s_flags [count];
    flags [count++] = "--metrics";
    flags [count++] = address;
    flags [count] = NULL;
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    testutil_cluster_add_worker (cluster, 0, "w1", 4, NULL);
    testutil_cluster_add_worker (cluster, 1, "w2", 4, NULL);
    testutil_cluster_add_worker (cluster, 2, "w3", 4, NULL);
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 3, S_WAIT));
    testutil_cli_t run;
    testutil_cli (cluster->endpoint, (const char *[]) { "service", "create", "web",
                  "--replicas", "4", "--max-per-worker", "1", "--", "sleep", "600", NULL },
                  &run);
    testutil_cli_expect (&run, 0, run.out, "service web: created, 4 replicas");
    s_view_t view;
    assert_true (s_await_settled (dealer, "web", 3, 0, &view));
    assert_int_equal (s_on (&view, "w1"), 1);
    assert_int_equal (s_on (&view, "w2"), 1);
    assert_int_equal (s_on (&view, "w3"), 1);
    assert_int_equal (view.waiting, 1);
    assert_int_equal (view.max_per_worker, 1);
    assert_int_equal (view.stats.capped, 1);
    printf ("waiting slot: %s\nservice: %s\n", view.waits, view.why);
    assert_non_null (strstr (view.waits, "max-per-worker 1: 3 eligible workers"));
    assert_non_null (strstr (view.why, "max-per-worker 1"));

    //  As a user sees it
    testutil_cli (cluster->endpoint, (const char *[]) { "service", "show", "web", NULL }, &run);
    testutil_cli_expect (&run, 0, run.out, "at most 1 per worker");
    testutil_cli_expect (&run, 0, run.out, "waiting");
    testutil_cli_expect (&run, 0, run.out, "max-per-worker 1: 3 eligible workers hold at most 3");
    testutil_cli (cluster->endpoint, (const char *[]) { "service", "stats", NULL }, &run);
    testutil_cli_expect (&run, 0, run.out, "capped:   1 replica not placed: max-per-worker");
    testutil_cli (cluster->endpoint, (const char *[]) { "service", "stats", "--json", NULL },
                  &run);
    testutil_assert_json (run.out);
    testutil_cli_expect (&run, 0, run.out, "\"capped\":1");
    testutil_cli_expect (&run, 0, run.out, "\"best\":");
    testutil_cli (cluster->endpoint, (const char *[]) { "service", "show", "web", "--json",
                  NULL }, &run);
    testutil_assert_json (run.out);
    testutil_cli_expect (&run, 0, run.out, "\"max_per_worker\":1");
    assert_true (testutil_await_metric (metrics, "drover_service_replicas_capped", 1, true,
                                        S_WAIT));
    long long best = testutil_metric (metrics,
                                      "drover_service_replica_position{position=\"best\"}");
    long long not_best = testutil_metric (metrics,
                                          "drover_service_replica_position{position=\"not_best\"}");
    assert_int_equal (best + not_best, 3);
    assert_true (testutil_metric (metrics, "drover_service_replica_rank{rank=\"0\"}") == best);

    //  A fourth worker: the waiting replica goes there, nothing capped
    testutil_cluster_add_worker (cluster, 3, "w4", 4, NULL);
    assert_true (s_await_settled (dealer, "web", 4, view.stats.term, &view));
    assert_int_equal (s_on (&view, "w4"), 1);
    int64_t deadline = zclock_mono () + S_WAIT;
    while (view.stats.capped && zclock_mono () < deadline)
        assert_true (s_await_settled (dealer, "web", 4, view.stats.term, &view));
    assert_int_equal (view.stats.capped, 0);
    s_finish (&cluster, &dealer);
}

//  12 replicas on 3 workers; a fourth joins: about 1/(N+1) of the
//  replicas (12/4 = 3) move there, each started before its old one stops,
//  the others keep their tasks, and the next terms move nothing
static void
test_rebalance_after_join (void **state)
{
    const int replicas = 12;
    testutil_cluster_t *cluster = testutil_cluster_new (s_flags);
    testutil_cluster_add_worker (cluster, 0, "w1", 8, NULL);
    testutil_cluster_add_worker (cluster, 1, "w2", 8, NULL);
    testutil_cluster_add_worker (cluster, 2, "w3", 8, NULL);
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 3, S_WAIT));
    testutil_cli_t run;
    testutil_cli (cluster->endpoint, (const char *[]) { "service", "create", "web",
                  "--replicas", "12", "--", "sleep", "600", NULL }, &run);
    testutil_cli_expect (&run, 0, run.out, "created");
    s_view_t before;
    assert_true (s_await_settled (dealer, "web", replicas, 0, &before));
    //  Two quiet terms: settled before the join
    s_view_t quiet;
    assert_true (s_await_settled (dealer, "web", replicas, before.stats.term + 1, &quiet));
    before = quiet;

    zsock_t *sub = testutil_cluster_sub (cluster, dealer, "", "w1");
    testutil_cluster_add_worker (cluster, 3, "w4", 8, NULL);
    s_view_t after;
    int64_t deadline = zclock_mono () + S_WAIT;
    do
        assert_true (s_await_settled (dealer, "web", replicas, before.stats.term, &after));
    while (s_on (&after, "w4") < replicas / 4 && zclock_mono () < deadline);
    //  and two more terms change nothing
    s_view_t later;
    assert_true (s_await_settled (dealer, "web", replicas, after.stats.term + 1, &later));
    int moved = 0;
    for (int slot = 0; slot < replicas; slot++) {
        moved += later.task [slot] != before.task [slot];
        if (later.task [slot] != before.task [slot])
            printf ("slot %d: task %" PRIu64 " on %s -> task %" PRIu64 " on %s\n", slot,
                    before.task [slot], before.worker [slot], later.task [slot],
                    later.worker [slot]);
    }
    printf ("rebalance: %d replicas on 3 workers, a fourth joins: %d moved, 1/(N+1) = %d;"
            " counts %d/%d/%d/%d; best %u, not best %u\n", replicas, moved, replicas / 4,
            s_on (&later, "w1"), s_on (&later, "w2"), s_on (&later, "w3"),
            s_on (&later, "w4"), later.stats.best, later.stats.not_best);
    assert_int_equal (s_on (&later, "w4"), replicas / 4);
    assert_true (moved >= replicas / 4 && moved <= replicas / 4 + 2);
    assert_int_equal (later.stats.best + later.stats.not_best, (uint32_t) replicas);
    s_view_t last;
    assert_true (s_await_settled (dealer, "web", replicas, later.stats.term + 1, &last));
    for (int slot = 0; slot < replicas; slot++)
        assert_true (last.task [slot] == later.task [slot]);

    //  Each move was started first: its service.moved came before the
    //  service.stopped of the replica it replaced
    int moves = 0, stops_after_moves = 0;
    drover_event_t event;
    while (testutil_next_event (sub, &event, 200)) {
        if (streq (event.topic, "service.moved"))
            moves++;
        else
        if (streq (event.topic, "service.stopped") && strstr (event.reason, ": moved"))
            stops_after_moves += moves > stops_after_moves;
    }
    assert_int_equal (moves, moved);
    assert_int_equal (stops_after_moves, moved);
    zsock_destroy (&sub);
    s_finish (&cluster, &dealer);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_max_per_worker_over_three_workers),
        cmocka_unit_test (test_rebalance_after_join),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
