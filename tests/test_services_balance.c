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
#include "testutil_services.h"

#define S_WAIT          20000       //  msec any one wait here may take at most

//  The broker's settings: short terms, rebalancing on
static const char *s_flags [] = {
    "--set", "service/term=1000",
    "--set", "service/gather-timeout=500",
    "--set", "service/rebalance-moves=10",
    "--set", "health/heartbeat=200",
    "--set", "health/lost-after=3000",
    NULL
};

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
    zsock_t *dealer;
    testutil_cluster_t *cluster = testutil_services_cluster (flags, 3, 4, &dealer, S_WAIT);
    testutil_cli_t run;
    testutil_cli (cluster->endpoint, (const char *[]) { "service", "create", "web",
                  "--replicas", "4", "--max-per-worker", "1", "--", "sleep", "600", NULL },
                  &run);
    testutil_cli_expect (&run, 0, run.out, "service web: created, 4 replicas");
    testutil_services_view_t view;
    assert_true (testutil_services_await_settled (dealer, "web", 3, 0, &view, S_WAIT));
    assert_int_equal (testutil_services_on (&view, "w1"), 1);
    assert_int_equal (testutil_services_on (&view, "w2"), 1);
    assert_int_equal (testutil_services_on (&view, "w3"), 1);
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
    assert_true (testutil_services_await_settled (dealer, "web", 4, view.stats.term,
                                                  &view, S_WAIT));
    assert_int_equal (testutil_services_on (&view, "w4"), 1);
    int64_t deadline = zclock_mono () + S_WAIT;
    while (view.stats.capped && zclock_mono () < deadline)
        assert_true (testutil_services_await_settled (dealer, "web", 4, view.stats.term,
                                                      &view, S_WAIT));
    assert_int_equal (view.stats.capped, 0);
    testutil_services_finish (&cluster, &dealer);
}

//  12 replicas on 3 workers; a fourth joins: about 1/(N+1) of the
//  replicas (12/4 = 3) move there, each started before its old one stops,
//  the others keep their tasks, and the next terms move nothing
static void
test_rebalance_after_join (void **state)
{
    const int replicas = 12;
    zsock_t *dealer;
    testutil_cluster_t *cluster = testutil_services_cluster (s_flags, 3, 8, &dealer, S_WAIT);
    testutil_cli_t run;
    testutil_cli (cluster->endpoint, (const char *[]) { "service", "create", "web",
                  "--replicas", "12", "--", "sleep", "600", NULL }, &run);
    testutil_cli_expect (&run, 0, run.out, "created");
    testutil_services_view_t before;
    assert_true (testutil_services_await_settled (dealer, "web", replicas, 0, &before, S_WAIT));
    //  Two quiet terms: settled before the join
    testutil_services_view_t quiet;
    assert_true (testutil_services_await_settled (dealer, "web", replicas, before.stats.term + 1,
                                                  &quiet, S_WAIT));
    before = quiet;

    zsock_t *sub = testutil_cluster_sub (cluster, dealer, "", "w1");
    testutil_cluster_add_worker (cluster, 3, "w4", 8, NULL);
    testutil_services_view_t after;
    int64_t deadline = zclock_mono () + S_WAIT;
    do
        assert_true (testutil_services_await_settled (dealer, "web", replicas, before.stats.term,
                                                      &after, S_WAIT));
    while (testutil_services_on (&after, "w4") < replicas / 4 && zclock_mono () < deadline);
    //  and two more terms change nothing
    testutil_services_view_t later;
    assert_true (testutil_services_await_settled (dealer, "web", replicas, after.stats.term + 1,
                                                  &later, S_WAIT));
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
            testutil_services_on (&later, "w1"), testutil_services_on (&later, "w2"),
            testutil_services_on (&later, "w3"), testutil_services_on (&later, "w4"),
            later.stats.best, later.stats.not_best);
    assert_int_equal (testutil_services_on (&later, "w4"), replicas / 4);
    assert_true (moved >= replicas / 4 && moved <= replicas / 4 + 2);
    assert_int_equal (later.stats.best + later.stats.not_best, (uint32_t) replicas);
    testutil_services_view_t last;
    assert_true (testutil_services_await_settled (dealer, "web", replicas, later.stats.term + 1,
                                                  &last, S_WAIT));
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
    testutil_services_finish (&cluster, &dealer);
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
