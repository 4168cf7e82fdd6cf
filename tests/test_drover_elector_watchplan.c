/*  =========================================================================
    test_drover_elector_watchplan - the elector's watch-or-poll decision
    (src/broker/ha/drover_watchplan.c) with a fake clock: the first watch
    opens at once and polls until created; up, only the safety poll; a
    break polls again and reopens after retry_min, doubling while reopening
    fails, back to retry_min once up; each break and recovery is news once;
    off never watches
    =========================================================================
*/

#include "testutil.h"
#include "drover_watchplan.h"

//  Up to the first break: opening polls, up reads at the safety interval
static void
test_opening_then_up (void **state)
{
    (void) state;
    drover_watchplan_t *plan = drover_watchplan_new (true, 250, 5000, 20, 1000);
    int64_t now = 1000;
    assert_int_equal (drover_watchplan_state (plan), DROVER_WATCHPLAN_DOWN);
    assert_true (drover_watchplan_open_due (plan, now));        //  at once
    assert_int_equal (drover_watchplan_interval (plan), 250);   //  polling meanwhile
    drover_watchplan_opening (plan, now);
    assert_false (drover_watchplan_open_due (plan, now));
    assert_int_equal (drover_watchplan_open_at (plan), -1);
    assert_int_equal (drover_watchplan_interval (plan), 250);   //  not created yet
    assert_false (drover_watchplan_up (plan, now + 3));         //  not a recovery
    assert_int_equal (drover_watchplan_state (plan), DROVER_WATCHPLAN_UP);
    assert_int_equal (drover_watchplan_interval (plan), 5000);
    assert_false (drover_watchplan_open_due (plan, now + 100000));
    drover_watchplan_destroy (&plan);
    drover_watchplan_destroy (&plan);
    assert_null (plan);
}

//  A break: news once, polls, reopens after retry_min; reopenings that
//  fail double the wait to retry_max; up again resets it and is news once
static void
test_break_backoff_and_recovery (void **state)
{
    (void) state;
    drover_watchplan_t *plan = drover_watchplan_new (true, 250, 5000, 20, 100);
    int64_t now = 0;
    drover_watchplan_opening (plan, now);
    drover_watchplan_up (plan, now);
    now = 10000;
    assert_true (drover_watchplan_broken (plan, now));          //  news
    assert_int_equal (drover_watchplan_interval (plan), 250);   //  polling
    assert_int_equal (drover_watchplan_open_at (plan), now + 20);
    assert_false (drover_watchplan_open_due (plan, now + 19));
    assert_false (drover_watchplan_broken (plan, now + 5));     //  down already: no news
    assert_true (drover_watchplan_open_due (plan, now + 20));
    //  Reopenings that break before created: 40, 80, then 100 (the cap)
    int64_t waits [] = { 40, 80, 100, 100 };
    for (int index = 0; index < 4; index++) {
        now += 1000;
        drover_watchplan_opening (plan, now);
        assert_false (drover_watchplan_broken (plan, now));     //  still the same break
        assert_int_equal (drover_watchplan_open_at (plan) - now, index == 0? 20: waits [index - 1]);
    }
    now += 1000;
    drover_watchplan_opening (plan, now);
    assert_true (drover_watchplan_up (plan, now));              //  a recovery: news
    assert_int_equal (drover_watchplan_interval (plan), 5000);
    //  The next break starts again from retry_min, and is news again
    now += 60000;
    assert_true (drover_watchplan_broken (plan, now));
    assert_int_equal (drover_watchplan_open_at (plan), now + 20);
    drover_watchplan_destroy (&plan);
}

//  Off: never opens, always polls, nothing is news
static void
test_off_polls (void **state)
{
    (void) state;
    drover_watchplan_t *plan = drover_watchplan_new (false, 250, 5000, 20, 1000);
    assert_int_equal (drover_watchplan_state (plan), DROVER_WATCHPLAN_OFF);
    assert_false (drover_watchplan_open_due (plan, 0));
    assert_int_equal (drover_watchplan_open_at (plan), -1);
    drover_watchplan_opening (plan, 0);
    assert_false (drover_watchplan_up (plan, 0));
    assert_false (drover_watchplan_broken (plan, 0));
    assert_int_equal (drover_watchplan_state (plan), DROVER_WATCHPLAN_OFF);
    assert_int_equal (drover_watchplan_interval (plan), 250);
    drover_watchplan_destroy (&plan);
}

//  Bounds made sane: a safety interval under the poll's is the poll's
static void
test_bounds (void **state)
{
    (void) state;
    drover_watchplan_t *plan = drover_watchplan_new (true, 500, 100, 50, 10);
    drover_watchplan_opening (plan, 0);
    drover_watchplan_up (plan, 0);
    assert_int_equal (drover_watchplan_interval (plan), 500);
    drover_watchplan_broken (plan, 0);
    assert_int_equal (drover_watchplan_open_at (plan), 50);     //  max raised to min
    drover_watchplan_destroy (&plan);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_opening_then_up),
        cmocka_unit_test (test_break_backoff_and_recovery),
        cmocka_unit_test (test_off_polls),
        cmocka_unit_test (test_bounds),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
