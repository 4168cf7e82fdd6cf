/*  =========================================================================
    test_drover_rebalance - where a service's replicas go over a fleet,
    through the class alone (the reconciler's tests drive it whole):
    placement in rendezvous order within the even spread, max-per-worker,
    room, silent and held workers; the spread's moves with rebalancing off
    and on; keep-balance toward each slot's best worker within its moves;
    ranks, their cache and the placement figures; fits and buckets
    =========================================================================
*/

#include "testutil.h"
#include "drover_rebalance.h"
#include "drover_rendezvous.h"

#define S_WORKERS   8

//  A fleet of workers w1.. (8 procs, 8G, labels "zone=a" on even ones)
typedef struct {
    drover_fleet_worker_t workers [S_WORKERS];  //  the fleet
    char ids [S_WORKERS][8];    //  their ids
    size_t count;               //  workers in the fleet
} s_fleet_t;

//  Fill a fleet of count workers
static void
s_fleet (s_fleet_t *fleet, size_t count)
{
    memset (fleet, 0, sizeof *fleet);
    for (size_t index = 0; index < count; index++) {
        snprintf (fleet->ids [index], sizeof fleet->ids [index], "w%zu", index + 1);
        drover_fleet_worker_t *worker = &fleet->workers [index];
        worker->id = fleet->ids [index];
        worker->procs = 8;
        worker->mem = 8ull << 30;
        worker->labels = index % 2? "": "zone=a";
        worker->state = DROVER_FLEET_USABLE;
    }
    fleet->count = count;
}

//  A service of wanted replicas of 1 proc, no labels, cap max-per-worker
static drover_rebalance_service_t
s_service (uint32_t wanted, uint32_t cap)
{
    drover_rebalance_service_t service = {
        .name = "web", .procs = 1, .mem = 0, .labels = "", .max_per_worker = cap,
        .wanted = wanted
    };
    return service;
}

//  A rebalance over a fresh fleet of count workers, its computation begun
//  with moves keep-balance moves (0: rebalancing off)
static drover_rebalance_t *
s_begin (s_fleet_t *fleet, size_t count, uint32_t moves)
{
    s_fleet (fleet, count);
    drover_rebalance_t *balance = drover_rebalance_new ();
    drover_rebalance_set_fleet (balance, fleet->workers, fleet->count);
    drover_rebalance_begin (balance, moves);
    return balance;
}

//  Turn to a service "web" of wanted replicas, max-per-worker cap, with
//  as many slots; returns its description
static drover_rebalance_service_t
s_turn (drover_rebalance_t *balance, uint32_t wanted, uint32_t cap)
{
    drover_rebalance_service_t service = s_service (wanted, cap);
    drover_rebalance_service (balance, &service, wanted);
    return service;
}

//  The fleet index of a slot's best worker of the fleet's first count
static long
s_best (s_fleet_t *fleet, uint32_t slot, size_t count)
{
    char key [32];
    int length = snprintf (key, sizeof key, "web/%u", slot);
    const char *ids [S_WORKERS];
    for (size_t index = 0; index < count; index++)
        ids [index] = fleet->ids [index];
    size_t order [S_WORKERS];
    drover_rendezvous_order (key, (size_t) length, ids, NULL, count, order);
    return (long) order [0];
}

//  A fleet index that is not a slot's best, of the fleet's first count
static size_t
s_not_best (s_fleet_t *fleet, uint32_t slot, size_t count)
{
    return ((size_t) s_best (fleet, slot, count) + 1) % count;
}

//  Place wanted replicas, one per slot, on a fresh computation; counts
//  by worker into counts
static void
s_place_all (drover_rebalance_t *balance, uint32_t wanted, uint32_t cap, long *targets,
             uint32_t *counts)
{
    s_turn (balance, wanted, cap);
    drover_rebalance_even (balance);
    memset (counts, 0, S_WORKERS * sizeof (uint32_t));
    for (uint32_t slot = 0; slot < wanted; slot++) {
        targets [slot] = drover_rebalance_place (balance, slot, NULL);
        if (targets [slot] >= 0)
            counts [targets [slot]]++;
    }
}

//  4 replicas over 3 workers: 2/1/1, slot 0 on its best worker
static void
test_place_even_spread (void **state)
{
    s_fleet_t fleet;
    drover_rebalance_t *balance = s_begin (&fleet, 3, 0);
    long targets [4];
    uint32_t counts [S_WORKERS];
    s_place_all (balance, 4, 0, targets, counts);
    assert_int_equal (targets [0], s_best (&fleet, 0, 3));
    uint32_t twos = 0, ones = 0;
    for (size_t index = 0; index < 3; index++) {
        twos += counts [index] == 2;
        ones += counts [index] == 1;
    }
    assert_int_equal (twos, 1);
    assert_int_equal (ones, 2);
    drover_rebalance_destroy (&balance);
    drover_rebalance_destroy (&balance);
    assert_null (balance);
}

//  max-per-worker 1 over 3 workers: three placed, the fourth waits and
//  says it was capped; with no room at all, it waits uncapped
static void
test_place_capped_or_no_room (void **state)
{
    s_fleet_t fleet;
    drover_rebalance_t *balance = s_begin (&fleet, 3, 0);
    long targets [4];
    uint32_t counts [S_WORKERS];
    s_place_all (balance, 3, 1, targets, counts);
    for (size_t index = 0; index < 3; index++)
        assert_int_equal (counts [index], 1);
    bool capped = false;
    drover_rebalance_begin (balance, 0);
    s_turn (balance, 4, 1);
    assert_int_equal (drover_rebalance_even (balance), 3);
    for (uint32_t slot = 0; slot < 3; slot++)
        assert_true (drover_rebalance_place (balance, slot, &capped) >= 0);
    assert_int_equal (drover_rebalance_place (balance, 3, &capped), -1);
    assert_true (capped);
    //  Every worker's room taken (reserved): no place, not capped
    drover_rebalance_begin (balance, 0);
    for (size_t index = 0; index < 3; index++)
        drover_rebalance_reserve (balance, index, 8, 0);
    s_turn (balance, 1, 1);
    drover_rebalance_even (balance);
    assert_int_equal (drover_rebalance_place (balance, 0, &capped), -1);
    assert_false (capped);
    drover_rebalance_destroy (&balance);
}

//  A silent worker, a held one and one without the labels take nothing
static void
test_place_skips_silent_held_unlabelled (void **state)
{
    s_fleet_t fleet;
    drover_rebalance_t *balance = s_begin (&fleet, 4, 0);
    drover_rebalance_set_silent (balance, 0);           //  w1: zone=a, silent
    drover_rebalance_set_state (balance, 2, DROVER_FLEET_HELD); //  w3: zone=a, held
    assert_int_equal (drover_rebalance_state (balance, 2), DROVER_FLEET_HELD);
    drover_rebalance_service_t service = s_service (6, 0);
    service.labels = "zone=a";
    drover_rebalance_service (balance, &service, 6);
    assert_int_equal (drover_rebalance_even (balance), 0);
    assert_int_equal (drover_rebalance_place (balance, 0, NULL), -1);
    //  Without the labels: only w2 and w4 (not silent, not held)
    service.labels = "";
    drover_rebalance_service (balance, &service, 6);
    assert_int_equal (drover_rebalance_even (balance), 2);
    for (uint32_t slot = 0; slot < 6; slot++) {
        long target = drover_rebalance_place (balance, slot, NULL);
        assert_true (target == 1 || target == 3);
    }
    drover_rebalance_destroy (&balance);
}

//  Rebalancing off: 4 replicas all kept on w1 of 3 workers; the spread
//  moves them away, highest slots first, each from a worker holding two
//  more than the one it goes to, until no worker holds two more: 2/1/1
static void
test_spread_from_a_crowded_worker (void **state)
{
    s_fleet_t fleet;
    drover_rebalance_t *balance = s_begin (&fleet, 3, 0);
    s_turn (balance, 4, 0);
    drover_rebalance_rank_t ranks [4] = { { 0 } };
    for (uint32_t slot = 0; slot < 4; slot++)
        drover_rebalance_keep (balance, slot, 0, true, false, &ranks [slot]);
    assert_int_equal (drover_rebalance_even (balance), 3);
    size_t moved = drover_rebalance_spread (balance);
    size_t count;
    const drover_rebalance_move_t *moves = drover_rebalance_moves (balance, &count);
    assert_int_equal (count, moved);
    assert_true (moved >= 2 && moved <= 3);
    uint32_t counts [3] = { 4, 0, 0 };
    for (size_t index = 0; index < count; index++) {
        assert_int_equal (moves [index].slot, 3 - index);
        assert_int_equal (moves [index].from, 0);
        assert_true (moves [index].to > 0 && moves [index].to < 3);
        counts [0]--;
        counts [moves [index].to]++;
    }
    uint32_t most = 0, fewest = 4;
    for (size_t index = 0; index < 3; index++) {
        most = counts [index] > most? counts [index]: most;
        fewest = counts [index] < fewest? counts [index]: fewest;
    }
    assert_int_equal (most, 2);
    assert_int_equal (fewest, 1);
    //  Nothing to improve with rebalancing off
    assert_int_equal (drover_rebalance_improve (balance), 0);
    drover_rebalance_destroy (&balance);
}

//  Rebalancing on: 12 replicas held 4/4/4 by 3 workers; a fourth joins:
//  the spread makes the fewest moves, one from each worker to the new
//  one (its share, 12/4 = 3), the first those that rank it first
static void
test_spread_ranked_after_a_join (void **state)
{
    s_fleet_t fleet;
    drover_rebalance_t *balance = s_begin (&fleet, 4, 10);
    s_turn (balance, 12, 0);
    drover_rebalance_rank_t ranks [12] = { { 0 } };
    for (uint32_t slot = 0; slot < 12; slot++)
        drover_rebalance_keep (balance, slot, slot % 3, true, false, &ranks [slot]);
    drover_rebalance_even (balance);
    size_t moved = drover_rebalance_spread (balance);
    size_t count;
    const drover_rebalance_move_t *moves = drover_rebalance_moves (balance, &count);
    assert_int_equal (count, moved);
    assert_int_equal (moved, 3);
    bool from [3] = { false, false, false };
    bool best_first = true, seen_other = false;
    for (size_t index = 0; index < count; index++) {
        assert_int_equal (moves [index].to, 3);
        assert_false (from [moves [index].from]);
        from [moves [index].from] = true;
        bool best = s_best (&fleet, moves [index].slot, 4) == 3;
        best_first &= !(best && seen_other);
        seen_other |= !best;
    }
    assert_true (best_first);
    drover_rebalance_destroy (&balance);
}

//  Keep-balance: replicas off their best move there, at most the moves
//  allowed over the computation; a replica leaving, or not running, stays
static void
test_improve_toward_best_within_moves (void **state)
{
    s_fleet_t fleet;
    drover_rebalance_t *balance = s_begin (&fleet, 6, 1);
    drover_rebalance_service_t service = s_turn (balance, 1, 0);
    drover_rebalance_rank_t rank = { 0 };
    size_t worst = s_not_best (&fleet, 0, 6);
    drover_rebalance_keep (balance, 0, worst, true, false, &rank);
    drover_rebalance_even (balance);
    assert_int_equal (drover_rebalance_spread (balance), 0);
    assert_int_equal (drover_rebalance_improve (balance), 1);
    size_t count;
    const drover_rebalance_move_t *moves = drover_rebalance_moves (balance, &count);
    assert_int_equal (moves [0].from, (long) worst);
    assert_true (moves [0].to != (long) worst);
    assert_true (rank.sig != 0 && rank.rank > 0);   //  cached: it was not at its best
    //  The one move allowed is spent: another service moves nothing
    drover_rebalance_service (balance, &service, 1);
    drover_rebalance_keep (balance, 0, worst, true, false, &rank);
    drover_rebalance_even (balance);
    assert_int_equal (drover_rebalance_improve (balance), 0);
    //  A new computation: leaving or not running, it stays
    drover_rebalance_begin (balance, 5);
    drover_rebalance_service (balance, &service, 1);
    drover_rebalance_keep (balance, 0, worst, true, true, &rank);
    drover_rebalance_even (balance);
    assert_int_equal (drover_rebalance_improve (balance), 0);
    drover_rebalance_service (balance, &service, 1);
    drover_rebalance_keep (balance, 0, worst, false, false, &rank);
    drover_rebalance_even (balance);
    assert_int_equal (drover_rebalance_improve (balance), 0);
    drover_rebalance_destroy (&balance);
}

//  The placement figures: a replica at its best counts best, one off it
//  not best (its rank in the histogram); a replica moved counts where it
//  goes; the rank cache holds while the workers that could hold one stay
static void
test_figures_and_rank_cache (void **state)
{
    s_fleet_t fleet;
    drover_rebalance_t *balance = s_begin (&fleet, 5, 0);
    drover_rebalance_service_t service = s_turn (balance, 2, 0);
    drover_rebalance_rank_t ranks [2] = { { 0 } };
    drover_rebalance_keep (balance, 0, (size_t) s_best (&fleet, 0, 5), true, false, &ranks [0]);
    drover_rebalance_keep (balance, 1, s_not_best (&fleet, 1, 5), true, false, &ranks [1]);
    drover_service_stats_t before = { 0 }, after = { 0 };
    drover_rebalance_figures (balance, 2, &before, &after);
    assert_int_equal (before.best, 1);
    assert_int_equal (before.not_best, 1);
    assert_int_equal (before.ranks [0], 1);
    assert_int_equal (after.best, 1);
    assert_int_equal (after.not_best, 1);
    assert_int_equal (ranks [0].rank, 0);
    assert_true (ranks [1].rank > 0);
    uint64_t sig = ranks [0].sig;
    assert_true (sig != 0 && ranks [1].sig == sig);
    //  The same fleet again: the same signature; a worker held: another
    drover_rebalance_begin (balance, 0);
    drover_rebalance_service (balance, &service, 2);
    drover_rebalance_keep (balance, 0, (size_t) s_best (&fleet, 0, 5), true, false, &ranks [0]);
    memset (&before, 0, sizeof before);
    drover_rebalance_figures (balance, 2, &before, &after);
    assert_true (ranks [0].sig == sig);
    size_t other = s_not_best (&fleet, 0, 5);
    drover_rebalance_begin (balance, 0);
    drover_rebalance_set_state (balance, other, DROVER_FLEET_HELD);
    drover_rebalance_service (balance, &service, 2);
    drover_rebalance_keep (balance, 0, (size_t) s_best (&fleet, 0, 5), true, false, &ranks [0]);
    drover_rebalance_figures (balance, 2, &before, &after);
    assert_true (ranks [0].sig != sig);
    assert_int_equal (ranks [0].rank, 0);
    //  A slot placed this computation counts after, at its new worker's rank
    drover_rebalance_begin (balance, 0);
    drover_rebalance_service (balance, &service, 2);
    drover_rebalance_even (balance);
    assert_int_equal (drover_rebalance_place (balance, 0, NULL), s_best (&fleet, 0, 5));
    memset (&before, 0, sizeof before);
    memset (&after, 0, sizeof after);
    drover_rebalance_figures (balance, 2, &before, &after);
    assert_int_equal (before.best + before.not_best, 0);
    assert_int_equal (after.best, 1);
    drover_rebalance_destroy (&balance);
}

//  What fits, and the histogram's buckets
static void
test_fits_and_buckets (void **state)
{
    s_fleet_t fleet;
    s_fleet (&fleet, 2);
    drover_rebalance_service_t service = s_service (1, 0);
    assert_true (drover_rebalance_fits (&fleet.workers [1], DROVER_FLEET_USABLE, false, &service));
    assert_false (drover_rebalance_fits (&fleet.workers [1], DROVER_FLEET_USABLE, true, &service));
    assert_false (drover_rebalance_fits (&fleet.workers [1], DROVER_FLEET_DRAINING, false,
                                         &service));
    service.labels = "zone=a";
    assert_true (drover_rebalance_fits (&fleet.workers [0], DROVER_FLEET_USABLE, false, &service));
    assert_false (drover_rebalance_fits (&fleet.workers [1], DROVER_FLEET_USABLE, false,
                                         &service));
    service.procs = 9;
    assert_false (drover_rebalance_fits (&fleet.workers [0], DROVER_FLEET_USABLE, false,
                                         &service));
    service.procs = 1;
    service.mem = 9ull << 30;
    assert_false (drover_rebalance_fits (&fleet.workers [0], DROVER_FLEET_USABLE, false,
                                         &service));
    assert_int_equal (drover_rebalance_bucket (0), 0);
    assert_int_equal (drover_rebalance_bucket (1), 1);
    assert_int_equal (drover_rebalance_bucket (2), 2);
    assert_int_equal (drover_rebalance_bucket (3), 2);
    assert_int_equal (drover_rebalance_bucket (4), 3);
    assert_int_equal (drover_rebalance_bucket (63), 6);
    assert_int_equal (drover_rebalance_bucket (64), DROVER_HISTOGRAM_BUCKETS - 1);
    assert_int_equal (drover_rebalance_bucket (UINT32_MAX), DROVER_HISTOGRAM_BUCKETS - 1);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_place_even_spread),
        cmocka_unit_test (test_place_capped_or_no_room),
        cmocka_unit_test (test_place_skips_silent_held_unlabelled),
        cmocka_unit_test (test_spread_from_a_crowded_worker),
        cmocka_unit_test (test_spread_ranked_after_a_join),
        cmocka_unit_test (test_improve_toward_best_within_moves),
        cmocka_unit_test (test_figures_and_rank_cache),
        cmocka_unit_test (test_fits_and_buckets),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
