/*  =========================================================================
    test_drover_probation - the probation set with a fake clock: entering,
    leaving by timeout or by success, timer reset on repeated failure
    =========================================================================
*/

#include "testutil.h"
#include "drover_probation.h"

static int
s_setup (void **state)
{
    *state = drover_probation_new (30000);
    return 0;
}

static int
s_teardown (void **state)
{
    drover_probation_t *set = (drover_probation_t *) *state;
    drover_probation_destroy (&set);
    assert_null (set);
    drover_probation_destroy (&set);      //  harmless twice
    return 0;
}

//  A failure puts an OK worker on probation until failure + timeout, not before
static void
test_enter_then_leave_by_timeout (void **state)
{
    drover_probation_t *set = (drover_probation_t *) *state;
    assert_int_equal (drover_probation_next_deadline (set), -1);
    assert_null (drover_probation_expire (set, 1000000));
    assert_int_equal (drover_probation_failure (set, "alpha", "send refused", 1000),
                      DROVER_PROBATION_ENTERED);
    assert_true (drover_probation_contains (set, "alpha"));
    assert_string_equal (drover_probation_reason (set, "alpha"), "send refused");
    assert_int_equal (drover_probation_next_deadline (set), 31000);
    assert_null (drover_probation_expire (set, 30999));
    assert_true (drover_probation_contains (set, "alpha"));
    testutil_assert_and_free (drover_probation_expire (set, 31000), "alpha");
    assert_false (drover_probation_contains (set, "alpha"));
    assert_null (drover_probation_expire (set, 99999));
    assert_int_equal (drover_probation_size (set), 0);
    assert_int_equal (drover_probation_next_deadline (set), -1);
}

//  A success releases a on probation worker at once; one that is OK stays OK
static void
test_leave_by_success (void **state)
{
    drover_probation_t *set = (drover_probation_t *) *state;
    assert_false (drover_probation_success (set, "alpha"));
    drover_probation_failure (set, "alpha", "offer not acknowledged", 0);
    drover_probation_failure (set, "beta", "send refused", 10);
    assert_true (drover_probation_success (set, "alpha"));
    assert_false (drover_probation_contains (set, "alpha"));
    assert_false (drover_probation_success (set, "alpha"));
    assert_int_equal (drover_probation_next_deadline (set), 30010);
    assert_int_equal (drover_probation_size (set), 1);
}

//  A failure while on probation restarts the timer and keeps the worker on probation
static void
test_repeated_failure_resets_timer (void **state)
{
    drover_probation_t *set = (drover_probation_t *) *state;
    drover_probation_failure (set, "alpha", "send refused", 0);
    drover_probation_failure (set, "beta", "send refused", 5000);
    assert_int_equal (drover_probation_next_deadline (set), 30000);
    assert_int_equal (drover_probation_failure (set, "alpha", "again", 20000),
                      DROVER_PROBATION_RESET);
    assert_string_equal (drover_probation_reason (set, "alpha"), "again");
    assert_int_equal (drover_probation_size (set), 2);
    //  beta is now first to go; alpha not at its old deadline
    assert_int_equal (drover_probation_next_deadline (set), 35000);
    assert_null (drover_probation_expire (set, 30000));
    testutil_assert_and_free (drover_probation_expire (set, 35000), "beta");
    assert_null (drover_probation_expire (set, 49999));
    testutil_assert_and_free (drover_probation_expire (set, 50000), "alpha");
}

//  Forgetting a lost worker drops it; several due come out one at a time
static void
test_forget_and_expire_in_order (void **state)
{
    drover_probation_t *set = (drover_probation_t *) *state;
    drover_probation_set_timeout (set, 100);
    char id [16];
    for (int index = 0; index < 50; index++) {
        snprintf (id, sizeof id, "w%02d", (index * 7) % 50);
        drover_probation_failure (set, id, "x", 1000 + (index * 7) % 50);
    }
    assert_true (drover_probation_forget (set, "w10"));
    assert_false (drover_probation_forget (set, "w10"));
    assert_int_equal (drover_probation_size (set), 49);
    int released = 0;
    int64_t previous = -1;
    char *next;
    while ((next = drover_probation_expire (set, 5000))) {
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
