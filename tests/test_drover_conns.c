/*  =========================================================================
    test_drover_conns - connections against the descriptor limit, with a
    fake clock
    =========================================================================
*/

#include "testutil.h"
#include "drover_conns.h"

//  Past the limit a connection is excess and cut after the grace, or
//  sooner once told; a close frees its place
static void
test_excess_is_cut_after_grace (void **state)
{
    drover_conns_t *conns = drover_conns_new (128, 2, 8, 1000);
    assert_false (drover_conns_accepted (conns, 10, 0));
    assert_false (drover_conns_accepted (conns, 11, 0));
    assert_true (drover_conns_accepted (conns, 12, 0));
    assert_true (drover_conns_excess (conns, 12));
    assert_false (drover_conns_excess (conns, 10));
    assert_int_equal (drover_conns_count (conns), 3);
    assert_int_equal (drover_conns_deadline (conns), 1000);
    assert_int_equal (drover_conns_next_cut (conns, 999), -1);
    //  Told why at 50: cut 100 later
    drover_conns_cut_after (conns, 12, 50, 100);
    assert_int_equal (drover_conns_deadline (conns), 150);
    assert_int_equal (drover_conns_next_cut (conns, 150), 12);
    assert_int_equal (drover_conns_next_cut (conns, 150), -1);
    assert_int_equal (drover_conns_deadline (conns), -1);
    assert_int_equal (drover_conns_count (conns), 3);   //  until libzmq closes it
    drover_conns_closed (conns, 12);
    assert_int_equal (drover_conns_count (conns), 2);
    //  A served one leaves: the next is served
    drover_conns_closed (conns, 10);
    assert_false (drover_conns_accepted (conns, 10, 2000));
    drover_conns_destroy (&conns);
}

//  Once excess connections use half the spare, the next is cut at once
static void
test_spare_running_out_cuts_at_once (void **state)
{
    drover_conns_t *conns = drover_conns_new (128, 1, 4, 1000);
    assert_false (drover_conns_accepted (conns, 5, 0));
    assert_true (drover_conns_accepted (conns, 6, 0));
    assert_true (drover_conns_accepted (conns, 7, 0));
    assert_int_equal (drover_conns_next_cut (conns, 0), -1);
    assert_true (drover_conns_accepted (conns, 8, 0));
    assert_int_equal (drover_conns_next_cut (conns, 0), 8);
    for (int fd = 9; fd < 40; fd++)
        assert_true (drover_conns_accepted (conns, fd, 0));
    assert_int_equal (drover_conns_count (conns), 35);
    drover_conns_destroy (&conns);
}

//  An fd accepted again without its close reported is counted once;
//  closes of unknown fds and fds out of range change nothing
static void
test_unreported_close (void **state)
{
    drover_conns_t *conns = drover_conns_new (16, 4, 4, 1000);
    assert_false (drover_conns_accepted (conns, 3, 0));
    assert_false (drover_conns_accepted (conns, 3, 0));
    assert_int_equal (drover_conns_count (conns), 1);
    drover_conns_closed (conns, 4);
    drover_conns_closed (conns, 99);
    assert_false (drover_conns_accepted (conns, 99, 0));
    assert_int_equal (drover_conns_count (conns), 1);
    drover_conns_destroy (&conns);
}

//  Run every test
int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_excess_is_cut_after_grace),
        cmocka_unit_test (test_spare_running_out_cuts_at_once),
        cmocka_unit_test (test_unreported_close),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
