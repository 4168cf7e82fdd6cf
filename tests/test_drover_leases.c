/*  =========================================================================
    test_drover_leases - the leases assign holds: which one holds a task,
    taking from them, ending them one by one and by worker
    =========================================================================
*/

#include "testutil.h"
#include "drover_leases.h"

//  The lease with the most procs left that holds the task is picked; one
//  too small, short of memory or without a label is not
static void
test_find_picks_most_procs_that_hold (void **state)
{
    drover_leases_t *leases = drover_leases_new ();
    assert_int_equal (drover_leases_add (leases, 1, "small", 2, 1000, ""), 0);
    assert_int_equal (drover_leases_add (leases, 2, "big", 8, 100, NULL), 0);
    assert_int_equal (drover_leases_add (leases, 3, "gpu", 4, 1000, "gpu=1\nzone=a"), 0);
    assert_int_equal (drover_leases_add (leases, 3, "again", 4, 1000, ""), -1);
    assert_int_equal (drover_leases_add (leases, 0, "zero", 4, 1000, ""), -1);
    assert_int_equal (drover_leases_size (leases), 3);

    const char *worker = NULL;
    assert_int_equal (drover_leases_find (leases, 1, 0, "", &worker), 2);
    assert_string_equal (worker, "big");
    //  big has too little memory
    assert_int_equal (drover_leases_find (leases, 1, 500, NULL, &worker), 3);
    assert_string_equal (worker, "gpu");
    //  only gpu carries the labels, in any order
    assert_int_equal (drover_leases_find (leases, 1, 0, "zone=a\ngpu=1", &worker), 3);
    assert_int_equal (drover_leases_find (leases, 1, 0, "gpu=2", &worker), 0);
    assert_int_equal (drover_leases_find (leases, 1, 0, "gpu", &worker), 0);
    //  no lease holds 9 procs
    assert_int_equal (drover_leases_find (leases, 9, 0, "", &worker), 0);
    drover_leases_destroy (&leases);
    assert_null (leases);
}

//  Taking counts down what a lease holds; more than it holds is refused
static void
test_take_counts_down (void **state)
{
    drover_leases_t *leases = drover_leases_new ();
    drover_leases_add (leases, 7, "w", 3, 300, "");
    assert_int_equal (drover_leases_take (leases, 7, 2, 100), 1);
    assert_int_equal (drover_leases_take (leases, 7, 2, 0), -1);       //  1 proc left
    assert_int_equal (drover_leases_take (leases, 7, 1, 201), -1);     //  200 bytes left
    assert_int_equal (drover_leases_take (leases, 8, 1, 0), -1);       //  no such lease
    assert_int_equal (drover_leases_find (leases, 2, 0, "", NULL), 0);
    assert_int_equal (drover_leases_find (leases, 1, 200, "", NULL), 7);
    assert_int_equal (drover_leases_take (leases, 7, 1, 200), 0);
    assert_int_equal (drover_leases_end (leases, 7), 0);
    assert_int_equal (drover_leases_end (leases, 7), -1);
    assert_int_equal (drover_leases_size (leases), 0);
    drover_leases_destroy (&leases);
}

//  Sum the ids of the leases ended
static void
s_sum (uint64_t lease, void *arg)
{
    uint64_t *sum = (uint64_t *) arg;
    *sum += lease;
}

//  Ending a worker's leases ends each of its own and no other
static void
test_end_worker_ends_its_own (void **state)
{
    drover_leases_t *leases = drover_leases_new ();
    drover_leases_add (leases, 1, "a", 1, 0, "");
    drover_leases_add (leases, 2, "b", 1, 0, "");
    drover_leases_add (leases, 4, "a", 1, 0, "");
    uint64_t sum = 0;
    assert_int_equal (drover_leases_end_worker (leases, "a", s_sum, &sum), 2);
    assert_int_equal (sum, 5);
    assert_int_equal (drover_leases_size (leases), 1);
    const char *worker = NULL;
    assert_int_equal (drover_leases_find (leases, 1, 0, "", &worker), 2);
    assert_string_equal (worker, "b");
    assert_int_equal (drover_leases_end_worker (leases, "a", NULL, NULL), 0);
    drover_leases_destroy (&leases);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_find_picks_most_procs_that_hold),
        cmocka_unit_test (test_take_counts_down),
        cmocka_unit_test (test_end_worker_ends_its_own),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
