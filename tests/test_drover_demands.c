/*  =========================================================================
    test_drover_demands - interned demands (sharing, the cache, release
    with the last reference), label parsing and matching, and the index
    from label to the workers that carry it
    =========================================================================
*/

#include "testutil.h"
#include "drover_demands.h"

//  Alike demands share one record; it goes with its last reference
static void
test_demands_shared (void **state)
{
    drover_demands_t *demands = drover_demands_new ();
    assert_non_null (demands);
    drover_demand_t *one = drover_demands_ref (demands, 0, NULL);
    drover_demand_t *two = drover_demands_ref (demands, 0, "");
    assert_ptr_equal (one, two);                    //  NULL and "" are the same
    assert_int_equal (one->nlabels, 0);
    assert_int_equal (one->mem, 0);
    drover_demand_t *gpu = drover_demands_ref (demands, 1024, "gpu=1\n\nzone=a");
    assert_ptr_not_equal (gpu, one);
    assert_int_equal (gpu->mem, 1024);
    assert_int_equal (gpu->nlabels, 2);            //  the empty line is skipped
    assert_string_equal (gpu->labels [0], "gpu=1");
    assert_string_equal (gpu->labels [1], "zone=a");
    assert_int_not_equal (gpu->serial, one->serial);
    //  Not the cached one any more, but found again by its key
    assert_ptr_equal (drover_demands_ref (demands, 0, NULL), one);
    assert_ptr_equal (drover_demands_ref (demands, 1024, "gpu=1\n\nzone=a"), gpu);
    //  Same labels, other memory: another demand
    drover_demand_t *more = drover_demands_ref (demands, 2048, "gpu=1\n\nzone=a");
    assert_ptr_not_equal (more, gpu);
    assert_int_equal (drover_demands_size (demands), 3);
    //  Drop every reference to one (three taken): the demand of nothing
    //  but procs is kept for its owner (nobody's, 0) for good
    for (int count = 0; count < 3; count++)
        drover_demands_unref (demands, one);
    assert_int_equal (drover_demands_size (demands), 3);
    assert_ptr_equal (drover_demands_ref (demands, 0, NULL), one);
    drover_demands_unref (demands, one);
    drover_demands_unref (demands, gpu);
    drover_demands_unref (demands, gpu);
    assert_int_equal (drover_demands_size (demands), 2);
    drover_demands_unref (demands, more);
    assert_int_equal (drover_demands_size (demands), 2);   //  the cache's and the owner's
    drover_demands_destroy (&demands);
    assert_null (demands);
    drover_demands_destroy (&demands);              //  harmless twice
}

//  A worker matches a demand when it carries every label required
static void
test_labels_match (void **state)
{
    drover_demands_t *demands = drover_demands_new ();
    char *text;
    char **labels;
    size_t nlabels;
    drover_labels_parse ("gpu=1\nzone=a\nrack=3", &text, &labels, &nlabels);
    assert_int_equal (nlabels, 3);
    drover_demand_t *none = drover_demands_ref (demands, 0, NULL);
    drover_demand_t *subset = drover_demands_ref (demands, 0, "zone=a\ngpu=1");
    drover_demand_t *other = drover_demands_ref (demands, 0, "gpu=1\nzone=b");
    assert_true (drover_labels_match (labels, nlabels, none));
    assert_true (drover_labels_match (labels, nlabels, subset));
    assert_false (drover_labels_match (labels, nlabels, other));
    assert_false (drover_labels_match (NULL, 0, subset));
    free (labels);
    free (text);
    //  Nothing to parse: both left NULL
    drover_labels_parse ("\n\n", &text, &labels, &nlabels);
    assert_null (text);
    assert_null (labels);
    assert_int_equal (nlabels, 0);
    drover_demands_destroy (&demands);
}

//  The rarest label's holders come back; a label nobody carries, none
static void
test_label_index (void **state)
{
    drover_demands_t *demands = drover_demands_new ();
    char *pool_a [] = { "pool=a", "gpu=1" };
    char *pool_b [] = { "pool=a" };
    drover_demands_index (demands, pool_a, 2, 1);
    drover_demands_index (demands, pool_b, 1, 2);
    drover_demands_index (demands, pool_b, 1, 3);
    drover_demand_t *gpu = drover_demands_ref (demands, 0, "pool=a\ngpu=1");
    size_t count;
    const uint32_t *holders = drover_demands_rarest (demands, gpu, &count);
    assert_int_equal (count, 1);                    //  gpu=1: rarer than pool=a
    assert_int_equal (holders [0], 1);
    drover_demand_t *pool = drover_demands_ref (demands, 0, "pool=a");
    holders = drover_demands_rarest (demands, pool, &count);
    assert_int_equal (count, 3);
    drover_demand_t *nobody = drover_demands_ref (demands, 0, "pool=a\ngpu=2");
    assert_null (drover_demands_rarest (demands, nobody, &count));
    assert_int_equal (count, 0);
    drover_demand_t *none = drover_demands_ref (demands, 0, NULL);
    assert_null (drover_demands_rarest (demands, none, &count));
    assert_int_equal (count, 0);
    //  The only gpu worker leaves: its label finds nobody
    drover_demands_unindex (demands, pool_a, 2, 1);
    assert_null (drover_demands_rarest (demands, gpu, &count));
    holders = drover_demands_rarest (demands, pool, &count);
    assert_int_equal (count, 2);
    assert_true ((holders [0] == 2 && holders [1] == 3) || (holders [0] == 3 && holders [1] == 2));
    drover_demands_destroy (&demands);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_demands_shared),
        cmocka_unit_test (test_labels_match),
        cmocka_unit_test (test_label_index),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
