/*  =========================================================================
    test_drover_fleet - the scheduler's view of the workers as one frame:
    a round trip, an empty fleet, frames that do not decode, and label
    matching byte for byte
    =========================================================================
*/

#include "testutil.h"
#include "drover_fleet.h"

//  Every field of every worker comes back, in the order added
static void
test_round_trip (void **state)
{
    drover_fleet_t *fleet = drover_fleet_new ();
    drover_fleet_worker_t alpha = {
        "alpha", 8, 16ULL << 30, 3, 5ULL << 30, "gpu=a100\nzone=eu", DROVER_FLEET_USABLE, 2
    };
    drover_fleet_worker_t beta = {
        "beta", 4, 0, 0, 0, NULL, DROVER_FLEET_DRAINING, 0
    };
    drover_fleet_worker_t gamma = {
        "gamma", 1, 1, UINT32_MAX, UINT64_MAX, "", DROVER_FLEET_LOW_DISK, 7
    };
    drover_fleet_add (fleet, &alpha);
    drover_fleet_add (fleet, &beta);
    drover_fleet_add (fleet, &gamma);
    zframe_t *frame = drover_fleet_encode (fleet);
    drover_fleet_destroy (&fleet);
    assert_null (fleet);
    drover_fleet_destroy (&fleet);          //  harmless twice

    drover_fleet_t *copy = drover_fleet_decode (frame);
    zframe_destroy (&frame);
    assert_non_null (copy);
    size_t count;
    const drover_fleet_worker_t *workers = drover_fleet_workers (copy, &count);
    assert_int_equal (count, 3);
    assert_string_equal (workers [0].id, "alpha");
    assert_int_equal (workers [0].procs, 8);
    assert_int_equal (workers [0].mem, 16ULL << 30);
    assert_int_equal (workers [0].procs_used, 3);
    assert_int_equal (workers [0].mem_used, 5ULL << 30);
    assert_string_equal (workers [0].labels, "gpu=a100\nzone=eu");
    assert_int_equal (workers [0].state, DROVER_FLEET_USABLE);
    assert_int_equal (workers [0].tasks, 2);
    assert_string_equal (workers [1].id, "beta");
    assert_string_equal (workers [1].labels, "");      //  NULL travels as none
    assert_int_equal (workers [1].state, DROVER_FLEET_DRAINING);
    assert_string_equal (workers [2].id, "gamma");
    assert_int_equal (workers [2].procs_used, UINT32_MAX);
    assert_true (workers [2].mem_used == UINT64_MAX);
    assert_int_equal (workers [2].state, DROVER_FLEET_LOW_DISK);
    assert_int_equal (workers [2].tasks, 7);
    drover_fleet_destroy (&copy);
}

//  An empty fleet is a frame of its count alone and decodes to no workers
static void
test_empty (void **state)
{
    drover_fleet_t *fleet = drover_fleet_new ();
    zframe_t *frame = drover_fleet_encode (fleet);
    assert_int_equal (zframe_size (frame), 4);
    drover_fleet_t *copy = drover_fleet_decode (frame);
    assert_non_null (copy);
    size_t count = 99;
    drover_fleet_workers (copy, &count);
    assert_int_equal (count, 0);
    drover_fleet_destroy (&copy);
    drover_fleet_destroy (&fleet);
    zframe_destroy (&frame);
}

//  A frame cut anywhere, one with a byte too many, one whose state is out
//  of range, and an empty frame all decode to NULL
static void
test_bad_frames (void **state)
{
    drover_fleet_t *fleet = drover_fleet_new ();
    drover_fleet_worker_t alpha = { "alpha", 2, 0, 0, 0, "k=v", DROVER_FLEET_HELD, 0 };
    drover_fleet_add (fleet, &alpha);
    zframe_t *frame = drover_fleet_encode (fleet);
    drover_fleet_destroy (&fleet);
    size_t size = zframe_size (frame);
    for (size_t cut = 0; cut < size; cut++) {
        zframe_t *truncated = zframe_new (zframe_data (frame), cut);
        assert_null (drover_fleet_decode (truncated));
        zframe_destroy (&truncated);
    }
    byte longer [256];
    assert_true (size + 1 <= sizeof longer);
    memcpy (longer, zframe_data (frame), size);
    longer [size] = 0;
    zframe_t *extra = zframe_new (longer, size + 1);
    assert_null (drover_fleet_decode (extra));
    zframe_destroy (&extra);
    //  The state is the third uint32 of the first worker, after the count
    uint32_t bad_state = 9;
    memcpy (longer + 4 + 8, &bad_state, 4);
    zframe_t *stateless = zframe_new (longer, size);
    assert_null (drover_fleet_decode (stateless));
    zframe_destroy (&stateless);
    zframe_destroy (&frame);
}

//  Labels match as whole lines byte for byte, in any order; none required
//  fits any worker
static void
test_has_labels (void **state)
{
    drover_fleet_worker_t worker = {
        "alpha", 1, 0, 0, 0, "gpu=a100\nzone=eu\nssd=", DROVER_FLEET_USABLE, 0
    };
    assert_true (drover_fleet_has_labels (&worker, NULL));
    assert_true (drover_fleet_has_labels (&worker, ""));
    assert_true (drover_fleet_has_labels (&worker, "gpu=a100"));
    assert_true (drover_fleet_has_labels (&worker, "zone=eu\ngpu=a100"));
    assert_true (drover_fleet_has_labels (&worker, "ssd="));
    assert_true (drover_fleet_has_labels (&worker, "zone=eu\n\nzone=eu\n"));
    assert_false (drover_fleet_has_labels (&worker, "gpu=A100"));
    assert_false (drover_fleet_has_labels (&worker, "gpu=a10"));
    assert_false (drover_fleet_has_labels (&worker, "gpu"));
    assert_false (drover_fleet_has_labels (&worker, "ssd"));
    assert_false (drover_fleet_has_labels (&worker, "zone=eu\nrack=1"));
    assert_false (drover_fleet_has_labels (&worker, "a100\nzone"));
    drover_fleet_worker_t bare = { "beta", 1, 0, 0, 0, "", DROVER_FLEET_USABLE, 0 };
    assert_true (drover_fleet_has_labels (&bare, ""));
    assert_false (drover_fleet_has_labels (&bare, "gpu=a100"));
    bare.labels = NULL;
    assert_true (drover_fleet_has_labels (&bare, NULL));
    assert_false (drover_fleet_has_labels (&bare, "k=v"));
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_round_trip),
        cmocka_unit_test (test_empty),
        cmocka_unit_test (test_bad_frames),
        cmocka_unit_test (test_has_labels),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
