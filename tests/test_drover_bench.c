/*  =========================================================================
    test_drover_bench - the probation set with a fake clock: entering,
    leaving by timeout or by success, timer reset on repeated failure
    =========================================================================
*/

#include "testutil.h"
#include "drover_bench.h"

static int
s_setup (void **state)
{
    *state = drover_bench_new (30000);
    return 0;
}

static int
s_teardown (void **state)
{
    drover_bench_t *bench = (drover_bench_t *) *state;
    drover_bench_destroy (&bench);
    assert_null (bench);
    drover_bench_destroy (&bench);      //  harmless twice
    return 0;
}

//  A failure benches an OK worker until failure + timeout, not before
static void
test_enter_then_leave_by_timeout (void **state)
{
    drover_bench_t *bench = (drover_bench_t *) *state;
    assert_int_equal (drover_bench_next_deadline (bench), -1);
    assert_null (drover_bench_expire (bench, 1000000));
    assert_int_equal (drover_bench_failure (bench, "alpha", "send refused", 1000),
                      DROVER_BENCH_ENTERED);
    assert_true (drover_bench_contains (bench, "alpha"));
    assert_string_equal (drover_bench_reason (bench, "alpha"), "send refused");
    assert_int_equal (drover_bench_next_deadline (bench), 31000);
    assert_null (drover_bench_expire (bench, 30999));
    assert_true (drover_bench_contains (bench, "alpha"));
    char *id = drover_bench_expire (bench, 31000);
    assert_non_null (id);
    assert_string_equal (id, "alpha");
    zstr_free (&id);
    assert_false (drover_bench_contains (bench, "alpha"));
    assert_null (drover_bench_expire (bench, 99999));
    assert_int_equal (drover_bench_size (bench), 0);
    assert_int_equal (drover_bench_next_deadline (bench), -1);
}

//  A success releases a benched worker at once; one that is OK stays OK
static void
test_leave_by_success (void **state)
{
    drover_bench_t *bench = (drover_bench_t *) *state;
    assert_false (drover_bench_success (bench, "alpha"));
    drover_bench_failure (bench, "alpha", "offer not acknowledged", 0);
    drover_bench_failure (bench, "beta", "send refused", 10);
    assert_true (drover_bench_success (bench, "alpha"));
    assert_false (drover_bench_contains (bench, "alpha"));
    assert_false (drover_bench_success (bench, "alpha"));
    assert_int_equal (drover_bench_next_deadline (bench), 30010);
    assert_int_equal (drover_bench_size (bench), 1);
}

//  A failure while benched restarts the timer and keeps the worker benched
static void
test_repeated_failure_resets_timer (void **state)
{
    drover_bench_t *bench = (drover_bench_t *) *state;
    drover_bench_failure (bench, "alpha", "send refused", 0);
    drover_bench_failure (bench, "beta", "send refused", 5000);
    assert_int_equal (drover_bench_next_deadline (bench), 30000);
    assert_int_equal (drover_bench_failure (bench, "alpha", "again", 20000), DROVER_BENCH_RESET);
    assert_string_equal (drover_bench_reason (bench, "alpha"), "again");
    assert_int_equal (drover_bench_size (bench), 2);
    //  beta is now first to go; alpha not at its old deadline
    assert_int_equal (drover_bench_next_deadline (bench), 35000);
    assert_null (drover_bench_expire (bench, 30000));
    char *id = drover_bench_expire (bench, 35000);
    assert_string_equal (id, "beta");
    zstr_free (&id);
    assert_null (drover_bench_expire (bench, 49999));
    id = drover_bench_expire (bench, 50000);
    assert_string_equal (id, "alpha");
    zstr_free (&id);
}

//  Forgetting a lost worker drops it; several due come out one at a time
static void
test_forget_and_expire_in_order (void **state)
{
    drover_bench_t *bench = (drover_bench_t *) *state;
    drover_bench_set_timeout (bench, 100);
    char id [16];
    for (int index = 0; index < 50; index++) {
        snprintf (id, sizeof id, "w%02d", (index * 7) % 50);
        drover_bench_failure (bench, id, "x", 1000 + (index * 7) % 50);
    }
    assert_true (drover_bench_forget (bench, "w10"));
    assert_false (drover_bench_forget (bench, "w10"));
    assert_int_equal (drover_bench_size (bench), 49);
    int released = 0;
    int64_t previous = -1;
    char *next;
    while ((next = drover_bench_expire (bench, 5000))) {
        int number = atoi (next + 1);
        assert_true (number > previous);       //  earliest deadline first
        assert_int_not_equal (number, 10);
        previous = number;
        released++;
        zstr_free (&next);
    }
    assert_int_equal (released, 49);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_enter_then_leave_by_timeout, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_leave_by_success, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_repeated_failure_resets_timer, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_forget_and_expire_in_order, s_setup, s_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
