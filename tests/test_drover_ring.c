/*  =========================================================================
    test_drover_ring - the FIFO of fixed-size items: order, growth with a
    wrapped head, indexed access and destroy
    =========================================================================
*/

#include "testutil.h"
#include "drover_ring.h"

//  An item as the task table lays out an ack deadline
typedef struct {
    uint64_t task;              //  task id
    uint32_t attempt;           //  attempt
    int64_t deadline;           //  msec
} s_item_t;

//  Items come out oldest first; an empty ring has no head
static void
test_fifo_order (void **state)
{
    drover_ring_t *ring = drover_ring_new (sizeof (s_item_t));
    assert_non_null (ring);
    assert_null (drover_ring_head (ring));
    assert_int_equal (drover_ring_size (ring), 0);
    for (uint64_t id = 1; id <= 3; id++) {
        s_item_t item = { id, (uint32_t) id * 10, (int64_t) id * 100 };
        drover_ring_push (ring, &item);
    }
    assert_int_equal (drover_ring_size (ring), 3);
    for (uint64_t id = 1; id <= 3; id++) {
        s_item_t *item = (s_item_t *) drover_ring_head (ring);
        assert_non_null (item);
        assert_int_equal (item->task, id);
        assert_int_equal (item->attempt, id * 10);
        assert_int_equal (item->deadline, id * 100);
        drover_ring_pop (ring);
    }
    assert_null (drover_ring_head (ring));
    drover_ring_destroy (&ring);
    assert_null (ring);
    drover_ring_destroy (&ring);        //  harmless twice
}

//  Growing while the head has wrapped keeps every item in order, and
//  drover_ring_at sees them from the oldest
static void
test_grow_wrapped (void **state)
{
    drover_ring_t *ring = drover_ring_new (sizeof (uint64_t));
    uint64_t next_in = 1, next_out = 1;
    //  Fill past the first allocation, drain most, refill to wrap and grow
    for (int round = 0; round < 5; round++) {
        for (int index = 0; index < 100; index++, next_in++)
            drover_ring_push (ring, &next_in);
        for (int index = 0; index < 70; index++, next_out++) {
            assert_int_equal (*(uint64_t *) drover_ring_head (ring), next_out);
            drover_ring_pop (ring);
        }
    }
    size_t count = drover_ring_size (ring);
    assert_int_equal (count, next_in - next_out);
    for (size_t index = 0; index < count; index++)
        assert_int_equal (*(uint64_t *) drover_ring_at (ring, index), next_out + index);
    //  Items change in place through drover_ring_at
    *(uint64_t *) drover_ring_at (ring, 0) = 7;
    assert_int_equal (*(uint64_t *) drover_ring_head (ring), 7);
    drover_ring_destroy (&ring);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_fifo_order),
        cmocka_unit_test (test_grow_wrapped),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
