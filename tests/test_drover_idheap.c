/*  =========================================================================
    test_drover_idheap - a heap of pool handles: order, removal from the
    middle, reorder after a key change, records that move as the pool grows
    =========================================================================
*/

#include "testutil.h"
#include "drover_idheap.h"

//  A record with a sort key and its heap index
typedef struct {
    uint64_t key;               //  the pool's key
    int32_t rank;               //  sort key, lower first
    uint32_t index;             //  index in the heap
} s_item_t;

//  Order by rank, then by key
static bool
s_less (const void *a, const void *b)
{
    const s_item_t *one = (const s_item_t *) a;
    const s_item_t *two = (const s_item_t *) b;
    if (one->rank != two->rank)
        return one->rank < two->rank;
    return one->key < two->key;
}

//  Add a record with a rank to pool and heap; returns its handle
static uint32_t
s_add (drover_slab_t *pool, drover_idheap_t *heap, uint64_t key, int32_t rank)
{
    uint32_t handle = drover_slab_insert (pool, key);
    assert_true (handle > 0);
    ((s_item_t *) drover_slab_get (pool, handle))->rank = rank;
    drover_idheap_push (heap, handle);
    return handle;
}

//  Pop everything; the ranks come out in order
static void
test_order_and_removal (void **state)
{
    drover_slab_t *pool = drover_slab_new (sizeof (s_item_t));
    drover_idheap_t *heap = drover_idheap_new (pool, s_less, offsetof (s_item_t, index));
    assert_int_equal (drover_idheap_top (heap), 0);
    //  Enough records that the pool moves them while the heap holds them
    const int total = 5000;
    for (int index = 0; index < total; index++)
        s_add (pool, heap, (uint64_t) index + 1, (index * 7919) % 1000);
    assert_int_equal (drover_idheap_size (heap), total);
    //  Remove some from the middle; their index says they are nowhere
    for (uint64_t key = 10; key <= (uint64_t) total; key += 10) {
        uint32_t handle = drover_slab_find (pool, key);
        drover_idheap_remove (heap, handle);
        assert_int_equal (((s_item_t *) drover_slab_get (pool, handle))->index,
                          DROVER_IDHEAP_NOWHERE);
        drover_slab_delete (pool, handle);
    }
    //  Move one to the front
    uint32_t moved = drover_slab_find (pool, 4321);
    ((s_item_t *) drover_slab_get (pool, moved))->rank = -5;
    drover_idheap_fix (heap, moved);
    assert_int_equal (drover_idheap_top (heap), moved);
    s_item_t last = { 0, INT32_MIN, 0 };
    size_t popped = 0;
    uint32_t handle;
    while ((handle = drover_idheap_top (heap))) {
        s_item_t *item = (s_item_t *) drover_slab_get (pool, handle);
        assert_true (s_less (&last, item));
        assert_int_equal (item->key % 10 == 0, false);
        last = *item;
        drover_idheap_remove (heap, handle);
        drover_slab_delete (pool, handle);
        popped++;
    }
    assert_int_equal (popped, total - total / 10);
    assert_int_equal (drover_idheap_size (heap), 0);
    drover_idheap_destroy (&heap);
    assert_null (heap);
    drover_idheap_destroy (&heap);      //  harmless twice
    drover_slab_destroy (&pool);
}

//  Every handle is reachable by index, once
static void
test_at (void **state)
{
    drover_slab_t *pool = drover_slab_new (sizeof (s_item_t));
    drover_idheap_t *heap = drover_idheap_new (pool, s_less, offsetof (s_item_t, index));
    uint64_t sum = 0;
    for (uint64_t key = 1; key <= 100; key++)
        s_add (pool, heap, key, (int32_t) (100 - key));
    for (size_t index = 0; index < drover_idheap_size (heap); index++)
        sum += ((s_item_t *) drover_slab_get (pool, drover_idheap_at (heap, index)))->key;
    assert_int_equal (sum, 5050);
    assert_int_equal (((s_item_t *) drover_slab_get (pool, drover_idheap_top (heap)))->key, 100);
    drover_idheap_destroy (&heap);
    drover_slab_destroy (&pool);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_order_and_removal),
        cmocka_unit_test (test_at),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
