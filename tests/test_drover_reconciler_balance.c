/*  =========================================================================
    test_drover_reconciler_balance - the orchestrator's and keep-balance's
    rows in the reconciler, with a fake clock and a simulated cluster
    (testutil_sim): at most N replicas per worker (and the waiting slot
    explained), no new replicas on a worker the term's gather did not
    hear, bounded rebalancing toward the rendezvous order (about 1/(N+1)
    of the replicas move when a worker joins), and the placement figures
    (best, not best, rank histogram) of each term
    =========================================================================
*/

#include "testutil_sim.h"
#include "drover_rendezvous.h"

//  Replace the simulation's reconciler with one that rebalances moves
//  per term (and takes up to 1000 replicas)
static void
s_rebalancing (testutil_sim_t *sim, uint32_t moves)
{
    drover_reconciler_destroy (&sim->rec);
    drover_serviceconfig_t config = testutil_sim_config ();
    config.max_replicas = 1000;
    config.rebalance_moves = moves;
    sim->rec = drover_reconciler_new (&config);
    for (size_t index = 0; index < TESTUTIL_SIM_WORKERS; index++)
        sim->procs [index] = 64;
}

//  Define a service of replicas of 1 proc with max-per-worker cap
static void
s_define (testutil_sim_t *sim, const char *name, uint32_t replicas, uint32_t cap)
{
    drover_service_row_t def;
    memset (&def, 0, sizeof def);
    snprintf (def.name, sizeof def.name, "%s", name);
    def.replicas = replicas;
    def.procs = 1;
    def.max_per_worker = cap;
    assert_int_equal (drover_reconciler_define (sim->rec, &def, sim->now), 0);
}

//  Hand the simulation's replicas to a new reconciler that rebalances
//  moves per term (as a broker restarted with another setting): the
//  service defined again, each replica alive reported again
static void
s_restart (testutil_sim_t *sim, uint32_t moves, const char *name, uint32_t replicas)
{
    drover_reconciler_destroy (&sim->rec);
    drover_serviceconfig_t config = testutil_sim_config ();
    config.max_replicas = 1000;
    config.rebalance_moves = moves;
    sim->rec = drover_reconciler_new (&config);
    drover_service_row_t def;
    memset (&def, 0, sizeof def);
    snprintf (def.name, sizeof def.name, "%s", name);
    def.replicas = replicas;
    def.procs = 1;
    assert_int_equal (drover_reconciler_define (sim->rec, &def, sim->now), 0);
    for (size_t index = 0; index < sim->ntasks; index++)
        if (sim->tasks [index].alive) {
            testutil_sim_report (sim, index, DROVER_TASK_ASSIGNED, DROVER_END_NONE, "");
            testutil_sim_report (sim, index, DROVER_TASK_RUNNING, DROVER_END_NONE, "");
        }
}

//  Count the moves of a set whose why is why
static size_t
s_moves (const drover_changeset_t *set, const char *why)
{
    size_t count = 0;
    for (size_t index = 0; index < set->count; index++)
        count += set->changes [index].kind == DROVER_CHANGE_MOVE
              && streq (set->changes [index].why, why);
    return count;
}

//  Run terms until one changes nothing (at most limit), carrying each
//  out; add the moves made to *moves_p. Returns the terms it took.
static int
s_settle (testutil_sim_t *sim, int limit, size_t *moves_p)
{
    drover_changeset_t set = { 0 };
    for (int terms = 1; terms <= limit; terms++) {
        testutil_sim_term (sim, NULL, &set);
        if (moves_p)
            *moves_p += testutil_sim_changes (&set, DROVER_CHANGE_MOVE);
        //  A move starts first: its old replica is never stopped in the
        //  same term
        for (size_t index = 0; index < set.count; index++)
            if (set.changes [index].kind == DROVER_CHANGE_MOVE)
                for (size_t other = 0; other < set.count; other++)
                    assert_false (set.changes [other].kind == DROVER_CHANGE_STOP
                               && set.changes [other].task == set.changes [index].task);
        if (set.count == 0) {
            drover_reconciler_commit (sim->rec, &set, sim->now);
            drover_changeset_reset (&set);
            return terms;
        }
        testutil_sim_apply (sim, &set);
    }
    fail_msg ("the cluster did not settle in %d terms", limit);
    return 0;
}

//  --max-per-worker 1 over 3 workers and 4 replicas: three placed, one
//  per worker; the fourth waits, counted as capped in the term's
//  statistics, and its rows say why
static void
test_max_per_worker_one (void **state)
{
    testutil_sim_t *sim = testutil_sim_new (3);
    s_define (sim, "web", 4, 1);
    drover_changeset_t set = { 0 };
    testutil_sim_term (sim, NULL, &set);
    assert_int_equal (testutil_sim_changes (&set, DROVER_CHANGE_START), 3);
    assert_int_equal (set.after.capped, 1);
    assert_int_equal (set.after.under, 1);
    testutil_sim_apply (sim, &set);
    drover_changeset_reset (&set);
    assert_int_equal (drover_reconciler_stats (sim->rec)->capped, 1);
    assert_int_equal (testutil_sim_settle (sim), 1);        //  nothing more: it waits
    assert_int_equal (drover_reconciler_stats (sim->rec)->capped, 1);
    uint32_t counts [TESTUTIL_SIM_WORKERS];
    testutil_sim_counts (sim, "web", counts);
    for (int worker = 0; worker < 3; worker++)
        assert_int_equal (counts [worker], 1);

    drover_service_row_t *services;
    drover_replica_row_t *replicas;
    size_t nservices, nreplicas;
    assert_int_equal (drover_reconciler_rows (sim->rec, "web", sim->now, &services, &nservices,
                                             &replicas, &nreplicas), 1);
    assert_int_equal (services [0].max_per_worker, 1);
    assert_int_equal (services [0].state, DROVER_SERVICE_UNDER);
    assert_non_null (strstr (services [0].why, "max-per-worker 1: 3 eligible workers"));
    size_t waiting = 0;
    for (size_t index = 0; index < nreplicas; index++)
        if (replicas [index].state == DROVER_REPLICA_WAITING) {
            waiting++;
            assert_non_null (strstr (replicas [index].why, "max-per-worker 1"));
        }
    assert_int_equal (waiting, 1);
    drover_reconciler_rows_free (&services, nservices, &replicas);

    //  A fourth worker joins: the waiting slot goes there, nothing capped
    testutil_sim_join (sim, "w4");
    testutil_sim_term (sim, NULL, &set);
    assert_int_equal (testutil_sim_changes (&set, DROVER_CHANGE_START), 1);
    assert_string_equal (set.changes [0].to, "w4");
    assert_int_equal (set.after.capped, 0);
    testutil_sim_apply (sim, &set);
    drover_changeset_reset (&set);
    testutil_sim_destroy (&sim);
}

//  Unlimited (0) is today's behaviour: 4 replicas on 3 workers, 2/1/1;
//  a cap of 2 allows that too; spread and plans keep within the cap
static void
test_max_per_worker_spread_and_plans (void **state)
{
    testutil_sim_t *sim = testutil_sim_new (3);
    s_define (sim, "open", 4, 0);
    s_define (sim, "two", 5, 2);
    testutil_sim_settle (sim);
    uint32_t counts [TESTUTIL_SIM_WORKERS];
    testutil_sim_counts (sim, "open", counts);
    assert_int_equal (counts [0] + counts [1] + counts [2], 4);
    testutil_sim_counts (sim, "two", counts);
    assert_int_equal (counts [0] + counts [1] + counts [2], 5);
    for (int worker = 0; worker < 3; worker++)
        assert_true (counts [worker] <= 2);
    //  A plan to drain the worker holding one of "two": nowhere to go
    //  within the cap (the others hold 2): no move of it, counted capped
    int single = counts [0] == 1? 0: counts [1] == 1? 1: 2;
    drover_reconciler_what_t what = { .kind = DROVER_RECONCILER_PLAN,
                                      .action = DROVER_PLAN_DRAIN,
                                      .worker = sim->names [single] };
    drover_changeset_t set = { 0 };
    drover_reconciler_compute (sim->rec, &what, sim->now, &set);
    for (size_t index = 0; index < set.count; index++)
        if (set.changes [index].kind == DROVER_CHANGE_MOVE)
            assert_string_not_equal (set.changes [index].service, "two");
    assert_int_equal (set.after.capped, 1);
    drover_changeset_reset (&set);
    testutil_sim_destroy (&sim);
}

//  A worker that did not answer the term's gather gets no new replica in
//  that term, nor in the passes until the next term; once it answers it
//  takes them again
static void
test_silent_worker_gets_no_new_replicas (void **state)
{
    testutil_sim_t *sim = testutil_sim_new (3);
    const char *ids [3] = { "w1", "w2", "w3" };
    size_t order [3];
    drover_rendezvous_order ("db/0", 4, ids, NULL, 3, order);
    const char *best = ids [order [0]], *second = ids [order [1]];
    s_define (sim, "db", 1, 0);
    drover_changeset_t set = { 0 };
    testutil_sim_term (sim, best, &set);
    assert_int_equal (set.after.complete, 0);
    assert_int_equal (testutil_sim_changes (&set, DROVER_CHANGE_START), 1);
    assert_string_equal (set.changes [0].to, second);
    testutil_sim_apply (sim, &set);
    //  A pass before the next term: still not on the silent one
    drover_reconciler_what_t pass = { .kind = DROVER_RECONCILER_PASS };
    drover_service_row_t def;
    memset (&def, 0, sizeof def);
    snprintf (def.name, sizeof def.name, "db2");
    def.replicas = 3;
    def.procs = 1;
    assert_int_equal (drover_reconciler_define (sim->rec, &def, sim->now), 0);
    testutil_sim_fleet (sim);
    drover_reconciler_compute (sim->rec, &pass, sim->now, &set);
    assert_int_equal (testutil_sim_changes (&set, DROVER_CHANGE_START), 3);
    for (size_t index = 0; index < set.count; index++)
        assert_string_not_equal (set.changes [index].to, best);
    testutil_sim_apply (sim, &set);
    //  The next term hears it: new replicas may go there again
    assert_int_equal (drover_reconciler_scale (sim->rec, "db2", 6, sim->now), 0);
    testutil_sim_term (sim, NULL, &set);
    size_t there = 0;
    for (size_t index = 0; index < set.count; index++)
        there += set.changes [index].kind == DROVER_CHANGE_START
              && streq (set.changes [index].to, best);
    assert_true (there > 0);
    drover_changeset_reset (&set);
    testutil_sim_destroy (&sim);
}

//  Rebalancing after a join: of R replicas on N workers, about R/(N+1)
//  move to the worker that joined (spread and rebalance together), each
//  started there first, and the replicas end nearer their best position
static void
test_rebalance_after_join (void **state)
{
    const uint32_t replicas = 140;
    const size_t workers = 6;
    testutil_sim_t *sim = testutil_sim_new (workers);
    s_rebalancing (sim, 10);
    s_define (sim, "web", replicas, 0);
    s_settle (sim, 60, NULL);
    uint32_t not_best_before = drover_reconciler_stats (sim->rec)->not_best;
    assert_int_equal (drover_reconciler_stats (sim->rec)->best
                    + drover_reconciler_stats (sim->rec)->not_best, replicas);

    sim->procs [testutil_sim_join (sim, "w7")] = 64;
    size_t moves = 0;
    s_settle (sim, 60, &moves);
    double expected = (double) replicas / (double) (workers + 1);
    printf ("rebalance: %u replicas on %zu workers, one joins: %zu moved (1/(N+1) = %.1f),"
            " not best %u -> %u\n", replicas, workers, moves, expected, not_best_before,
            drover_reconciler_stats (sim->rec)->not_best);
    assert_true (moves >= expected * 0.75);
    assert_true (moves <= expected * 1.5);
    uint32_t counts [TESTUTIL_SIM_WORKERS];
    testutil_sim_counts (sim, "web", counts);
    assert_true (counts [workers] >= replicas / (workers + 1) - 1);
    uint32_t total = 0;
    for (size_t worker = 0; worker <= workers; worker++) {
        total += counts [worker];
        assert_true (counts [worker] <= replicas / (workers + 1) + 1);    //  spread kept
    }
    assert_int_equal (total, replicas);
    testutil_sim_destroy (&sim);
}

//  At most service/rebalance-moves per term, each to a better-ranked
//  worker holding fewer; 0 turns it off. After a join with rebalancing off
//  (spread alone moved what it needed, whatever their rank), a broker
//  with rebalancing on pulls replicas toward their best, a few a term,
//  until none can go nearer; a plan of a term shows those moves first
static void
test_rebalance_is_bounded (void **state)
{
    for (uint32_t limit = 0; limit <= 2; limit += 2) {
        testutil_sim_t *sim = testutil_sim_new (4);
        s_rebalancing (sim, 0);
        s_define (sim, "web", 62, 0);
        s_settle (sim, 60, NULL);
        sim->procs [testutil_sim_join (sim, "w5")] = 64;
        s_settle (sim, 60, NULL);
        uint32_t not_best = drover_reconciler_stats (sim->rec)->not_best;
        assert_true (not_best > 0);
        s_restart (sim, limit, "web", 62);

        //  The plan of a term: what the next term would move, nothing done
        testutil_sim_gather (sim, NULL);
        sim->now += 5;
        drover_reconciler_what_t plan = { .kind = DROVER_RECONCILER_PLAN,
                                          .action = DROVER_PLAN_TERM };
        drover_changeset_t set = { 0 };
        drover_reconciler_compute (sim->rec, &plan, sim->now, &set);
        assert_int_equal (s_moves (&set, "rebalance"), limit);
        assert_int_equal (set.after.rebalanced, limit);
        assert_int_equal (set.before.not_best, not_best);
        if (limit)
            assert_true (set.after.not_best < set.before.not_best);
        assert_int_equal (drover_reconciler_stats (sim->rec)->term, 0);   //  nothing done

        size_t rebalanced = 0;
        int quiet = 0;
        for (int term = 0; term < 60 && quiet < 3; term++) {
            testutil_sim_term (sim, NULL, &set);
            size_t moves = s_moves (&set, "rebalance");
            assert_true (moves <= limit);
            assert_int_equal (set.after.rebalanced, moves);
            assert_int_equal (s_moves (&set, "spread"), 0);
            rebalanced += moves;
            quiet = set.count? 0: quiet + 1;
            testutil_sim_apply (sim, &set);
        }
        assert_int_equal (quiet, 3);            //  it ends
        drover_changeset_reset (&set);
        const drover_service_stats_t *stats = drover_reconciler_stats (sim->rec);
        assert_int_equal (stats->best + stats->not_best, 62);
        uint32_t ranked = 0;
        for (int bucket = 0; bucket < DROVER_HISTOGRAM_BUCKETS; bucket++)
            ranked += stats->ranks [bucket];
        assert_int_equal (ranked, 62);
        assert_int_equal (stats->ranks [0], stats->best);
        if (limit == 0) {
            assert_int_equal (rebalanced, 0);
            assert_int_equal (stats->not_best, not_best);
        }
        else {
            assert_true (rebalanced > limit);   //  over several terms
            assert_true (stats->not_best < not_best);
        }
        uint32_t counts [TESTUTIL_SIM_WORKERS];
        testutil_sim_counts (sim, "web", counts);
        for (int worker = 0; worker < 5; worker++)
            assert_true (counts [worker] == 12 || counts [worker] == 13);  //  spread kept
        testutil_sim_destroy (&sim);
    }
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_max_per_worker_one),
        cmocka_unit_test (test_max_per_worker_spread_and_plans),
        cmocka_unit_test (test_silent_worker_gets_no_new_replicas),
        cmocka_unit_test (test_rebalance_after_join),
        cmocka_unit_test (test_rebalance_is_bounded),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
