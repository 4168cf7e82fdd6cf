/*  =========================================================================
    test_drover_health - the liveness table with a fake clock: a worker
    is lost after lost-after of silence and not a moment before
    =========================================================================
*/

#include "testutil.h"
#include "drover_health.h"
#include "drover_actor.h"

static int
s_setup (void **state)
{
    *state = drover_health_new (5000);
    return 0;
}

static int
s_teardown (void **state)
{
    drover_health_t *liveness = (drover_health_t *) *state;
    drover_health_destroy (&liveness);
    assert_null (liveness);
    drover_health_destroy (&liveness);    //  harmless twice
    return 0;
}

//  Lost after silence, not before
static void
test_lost_after_silence_not_before (void **state)
{
    drover_health_t *liveness = (drover_health_t *) *state;
    assert_int_equal (drover_health_next_deadline (liveness), -1);
    drover_health_observe (liveness, "alpha", 1000);
    assert_true (drover_health_contains (liveness, "alpha"));
    assert_int_equal (drover_health_next_deadline (liveness), 6000);
    assert_null (drover_health_expire (liveness, 5999));
    testutil_assert_and_free (drover_health_expire (liveness, 6000), "alpha");
    assert_false (drover_health_contains (liveness, "alpha"));
    assert_int_equal (drover_health_size (liveness), 0);
}

//  Hearing from a worker pushes its deadline back and reorders the table
static void
test_heard_workers_stay (void **state)
{
    drover_health_t *liveness = (drover_health_t *) *state;
    drover_health_observe (liveness, "alpha", 0);
    drover_health_observe (liveness, "beta", 1000);
    drover_health_observe (liveness, "gamma", 2000);
    drover_health_observe (liveness, "alpha", 4000);     //  alpha heartbeats
    assert_int_equal (drover_health_last_heard (liveness, "alpha"), 4000);
    assert_int_equal (drover_health_next_deadline (liveness), 6000);
    assert_null (drover_health_expire (liveness, 5999));
    testutil_assert_and_free (drover_health_expire (liveness, 7500), "beta");
    testutil_assert_and_free (drover_health_expire (liveness, 7500), "gamma");
    assert_null (drover_health_expire (liveness, 7500));     //  alpha until 9000
    assert_int_equal (drover_health_next_deadline (liveness), 9000);
    assert_true (drover_health_contains (liveness, "alpha"));
}

//  A forgotten worker is never reported lost; the clock never goes back
static void
test_forget_and_clock_order (void **state)
{
    drover_health_t *liveness = (drover_health_t *) *state;
    drover_health_observe (liveness, "alpha", 1000);
    drover_health_observe (liveness, "beta", 3000);
    assert_true (drover_health_forget (liveness, "alpha"));
    assert_false (drover_health_forget (liveness, "alpha"));
    assert_int_equal (drover_health_last_heard (liveness, "alpha"), -1);
    drover_health_observe (liveness, "gamma", 2000);     //  earlier than beta's
    assert_int_equal (drover_health_last_heard (liveness, "gamma"), 3000);
    drover_health_set_lost_after (liveness, 100);
    testutil_assert_and_free (drover_health_expire (liveness, 3100), "beta");
    testutil_assert_and_free (drover_health_expire (liveness, 3100), "gamma");
    assert_null (drover_health_expire (liveness, 1000000));
}

//  The interval told: the floor up to rate workers, then workers x 1000 /
//  rate in whole floors, 256 floors at most; rate 0 never scales
static void
test_interval_for_fleet (void **state)
{
    (void) state;
    assert_int_equal (drover_health_interval (1000, 1000, 1), 1000);
    assert_int_equal (drover_health_interval (1000, 1000, 1000), 1000);
    assert_int_equal (drover_health_interval (1000, 1000, 1001), 2000);
    assert_int_equal (drover_health_interval (1000, 1000, 10000), 10000);
    assert_int_equal (drover_health_interval (1000, 1000, 9999), 10000);
    assert_int_equal (drover_health_interval (1000, 0, 10000), 1000);
    assert_int_equal (drover_health_interval (200, 5000, 10000), 2000);
    assert_int_equal (drover_health_interval (50, 1, 1000000), 50 * 256);
    assert_int_equal (drover_health_grace (0, 1000, 5000), 6000);
    assert_int_equal (drover_health_grace (0, 20000, 5000), 10000);
    assert_int_equal (drover_health_grace (1, 1000, 5000), 1);
}

//  A registered worker is told the fleet's interval again only when the
//  two are half again or more apart, either way
static void
test_repace_when_far_apart (void **state)
{
    (void) state;
    assert_false (drover_health_repace_due (1000, 1000));
    assert_true (drover_health_repace_due (1000, 2000));      //  the fleet doubled
    assert_true (drover_health_repace_due (2000, 3000));      //  exactly half again
    assert_false (drover_health_repace_due (3000, 4000));     //  a third: left as it is
    assert_false (drover_health_repace_due (4000, 3000));
    assert_true (drover_health_repace_due (10000, 1000));     //  the fleet shrank
    assert_true (drover_health_repace_due (3000, 2000));
}

//  A worker told a longer interval is lost after as many lost-afters
static void
test_scaled_workers_lost_later (void **state)
{
    drover_health_t *liveness = (drover_health_t *) *state;
    drover_health_observe_scaled (liveness, "slow", 0, 10);     //  50 s
    drover_health_observe (liveness, "fast", 1000);             //  5 s
    drover_health_observe_scaled (liveness, "mid", 2000, 2);    //  10 s
    assert_int_equal (drover_health_scale (liveness, "slow"), 10);
    assert_int_equal (drover_health_scale (liveness, "fast"), 1);
    assert_int_equal (drover_health_scale (liveness, "none"), 0);
    assert_int_equal (drover_health_next_deadline (liveness), 6000);
    testutil_assert_and_free (drover_health_expire (liveness, 6000), "fast");
    assert_int_equal (drover_health_next_deadline (liveness), 12000);
    drover_health_observe (liveness, "mid", 11000);             //  keeps its scale
    assert_int_equal (drover_health_scale (liveness, "mid"), 2);
    assert_int_equal (drover_health_next_deadline (liveness), 21000);
    assert_null (drover_health_expire (liveness, 20999));
    testutil_assert_and_free (drover_health_expire (liveness, 21000), "mid");
    assert_null (drover_health_expire (liveness, 49999));
    drover_health_shift (liveness, 1000);                      //  a stall moves it too
    assert_null (drover_health_expire (liveness, 50999));
    testutil_assert_and_free (drover_health_expire (liveness, 51000), "slow");
    assert_int_equal (drover_health_size (liveness), 0);
    //  A new HELLO may move a worker to another scale
    drover_health_observe_scaled (liveness, "alpha", 60000, 3);
    drover_health_observe_scaled (liveness, "alpha", 61000, 1);
    assert_int_equal (drover_health_next_deadline (liveness), 66000);
    assert_true (drover_health_forget (liveness, "alpha"));
    assert_int_equal (drover_health_next_deadline (liveness), -1);
}

//  A stall of the broker itself (its loop did not turn for 3 s, with
//  lost-after 5 s): noticed at the first turn after it, and every worker's
//  silence then counts from before it, so a worker heard 4 s before the
//  end of the stall is not lost for it (it used to be: its heartbeats
//  were waiting unread), while the real silence still ends in LOST
static void
test_broker_stall_is_not_silence (void **state)
{
    drover_health_t *liveness = (drover_health_t *) *state;
    drover_turns_t turns = { 0 };
    assert_int_equal (drover_turns_stall (&turns, 1000), 0);       //  first turn
    drover_health_observe (liveness, "alpha", 1000);
    drover_health_observe (liveness, "beta", 2000);
    //  Turns every DROVER_TURN_MAX are sleep, not a stall
    int64_t now = 1000;
    while (now < 3000)
        assert_int_equal (drover_turns_stall (&turns, now += DROVER_TURN_MAX), 0);
    assert_int_equal (drover_turns_wait (-1), DROVER_TURN_MAX);
    assert_int_equal (drover_turns_wait (10000), DROVER_TURN_MAX);
    assert_int_equal (drover_turns_wait (7), 7);

    //  Stopped from 3000 to 6000: alpha's deadline (6000) passed meanwhile
    now = 6000;
    int64_t stall = drover_turns_stall (&turns, now);
    assert_int_equal (stall, 3000);
    drover_health_shift (liveness, stall);
    assert_int_equal (drover_health_last_heard (liveness, "alpha"), 4000);
    assert_int_equal (drover_health_last_heard (liveness, "beta"), 5000);
    assert_null (drover_health_expire (liveness, now));
    assert_int_equal (drover_health_next_deadline (liveness), 9000);
    //  beta's beats were waiting: heard now; alpha stays silent, and is lost
    drover_health_observe (liveness, "beta", now + 10);
    assert_int_equal (drover_turns_stall (&turns, now + 10), 0);
    testutil_assert_and_free (drover_health_expire (liveness, 9000), "alpha");
    assert_null (drover_health_expire (liveness, 9000));
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_lost_after_silence_not_before, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_heard_workers_stay, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_forget_and_clock_order, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_broker_stall_is_not_silence, s_setup, s_teardown),
        cmocka_unit_test (test_interval_for_fleet),
        cmocka_unit_test (test_repace_when_far_apart),
        cmocka_unit_test_setup_teardown (test_scaled_workers_lost_later, s_setup, s_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
