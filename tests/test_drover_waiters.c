/*  =========================================================================
    test_drover_waiters - who waits for which task: a repeated WAIT keeps
    one waiter, notify and WAIT are separate, the bounds per task and in
    all, and routes given back on release
    =========================================================================
*/

#include "testutil.h"
#include "drover_waiters.h"

//  A repeated WAIT from one route updates its seq; a notify (seq 0) from
//  the same route is a waiter of its own
static void
test_repeated_wait_keeps_one (void **state)
{
    drover_waiters_t *waiters = drover_waiters_new (100);
    drover_waiter_t first = { 0, 0 };
    drover_waitlist_t *more = NULL;
    const byte route [] = { 0, 'c', '1' };
    assert_int_equal (drover_waiters_add (waiters, &first, &more, route, sizeof route, 5), 0);
    assert_int_not_equal (first.route, 0);
    assert_int_equal (first.seq, 5);
    assert_null (more);
    assert_int_equal (drover_waiters_add (waiters, &first, &more, route, sizeof route, 6), 1);
    assert_int_equal (first.seq, 6);
    assert_int_equal (drover_waiters_size (waiters), 1);
    assert_int_equal (drover_waiters_add (waiters, &first, &more, route, sizeof route, 0), 0);
    assert_int_equal (drover_waitlist_size (more), 1);
    assert_int_equal (drover_waitlist_at (more, 0).seq, 0);
    assert_int_equal (drover_waiters_size (waiters), 2);

    size_t size;
    const byte *back = drover_waiters_route (waiters, first, &size);
    assert_int_equal (size, sizeof route);
    assert_memory_equal (back, route, sizeof route);
    drover_waiters_release (waiters, first);
    drover_waiters_release (waiters, drover_waitlist_at (more, 0));
    assert_int_equal (drover_waiters_size (waiters), 0);
    drover_waitlist_destroy (&more);
    assert_null (more);
    drover_waitlist_destroy (&more);    //  harmless twice
    drover_waiters_destroy (&waiters);
    assert_null (waiters);
    drover_waiters_destroy (&waiters);
}

//  At most DROVER_WAITERS_PER_TASK on one task, and max in all
static void
test_bounds (void **state)
{
    drover_waiters_t *waiters = drover_waiters_new (1000);
    drover_waiter_t first = { 0, 0 };
    drover_waitlist_t *more = NULL;
    for (int index = 0; index < DROVER_WAITERS_PER_TASK + 1; index++) {
        byte route [] = { 0, 'c', (byte) index };
        assert_int_equal (drover_waiters_add (waiters, &first, &more, route, sizeof route, 1),
                          index < DROVER_WAITERS_PER_TASK? 0: -1);
    }
    assert_int_equal (drover_waitlist_size (more), DROVER_WAITERS_PER_TASK - 1);
    assert_int_equal (drover_waiters_size (waiters), DROVER_WAITERS_PER_TASK);
    assert_false (drover_waiters_full (waiters));

    //  The bound in all: another task cannot take one past it
    drover_waiters_set_max (waiters, DROVER_WAITERS_PER_TASK);
    assert_true (drover_waiters_full (waiters));
    drover_waiter_t other = { 0, 0 };
    drover_waitlist_t *other_more = NULL;
    const byte route [] = { 0, 'z' };
    assert_int_equal (drover_waiters_add (waiters, &other, &other_more, route, sizeof route, 1), -1);
    assert_int_equal (other.route, 0);

    drover_waiters_release (waiters, first);
    for (uint32_t index = 0; index < drover_waitlist_size (more); index++)
        drover_waiters_release (waiters, drover_waitlist_at (more, index));
    assert_int_equal (drover_waiters_size (waiters), 0);
    drover_waitlist_destroy (&more);
    drover_waiters_destroy (&waiters);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_repeated_wait_keeps_one),
        cmocka_unit_test (test_bounds),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
