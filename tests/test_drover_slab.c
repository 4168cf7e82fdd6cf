/*  =========================================================================
    test_drover_slab - records by uint64 key: insert, find, delete,
    handle reuse, growth and the shrink of a drained pool
    =========================================================================
*/

#include "testutil.h"
#include "drover_slab.h"

//  A record as a user of the pool lays it out
typedef struct {
    uint64_t key;               //  the pool's key
    uint32_t value;             //  caller data
    uint32_t spare;             //  padding to 16 bytes
} s_item_t;

//  Insert, find and refuse a held key; new records are zeroed
static void
test_insert_find (void **state)
{
    drover_slab_t *pool = drover_slab_new (sizeof (s_item_t));
    assert_non_null (pool);
    assert_int_equal (drover_slab_record_size (pool), sizeof (s_item_t));
    uint32_t handle = drover_slab_insert (pool, 42);
    assert_true (handle > 0);
    s_item_t *item = (s_item_t *) drover_slab_get (pool, handle);
    assert_int_equal (item->key, 42);
    assert_int_equal (item->value, 0);
    item->value = 7;
    assert_int_equal (drover_slab_insert (pool, 42), 0);         //  held already
    assert_int_equal (drover_slab_find (pool, 42), handle);
    assert_int_equal (drover_slab_find (pool, 43), 0);
    assert_int_equal (drover_slab_find (pool, 0), 0);
    assert_ptr_equal ((byte *) drover_slab_base (pool) + handle * sizeof (s_item_t), item);
    assert_int_equal (drover_slab_size (pool), 1);
    drover_slab_delete (pool, handle);
    assert_int_equal (drover_slab_find (pool, 42), 0);
    assert_int_equal (drover_slab_size (pool), 0);
    //  A deleted handle is reused, and its record zeroed again
    uint32_t again = drover_slab_insert (pool, 99);
    assert_int_equal (again, handle);
    assert_int_equal (((s_item_t *) drover_slab_get (pool, again))->value, 0);
    drover_slab_destroy (&pool);
    assert_null (pool);
    drover_slab_destroy (&pool);      //  harmless twice
}

//  Many keys, sequential and scattered, with deletes in between: every
//  held key is found with its own data, no deleted key is
static void
test_many_keys (void **state)
{
    drover_slab_t *pool = drover_slab_new (sizeof (s_item_t));
    const uint32_t total = 100000;
    //  Sequential ids, and ids far apart that share their low bits
    for (uint32_t index = 1; index <= total; index++) {
        uint64_t key = index % 2? index: (uint64_t) index << 32;
        uint32_t handle = drover_slab_insert (pool, key);
        assert_true (handle > 0);
        ((s_item_t *) drover_slab_get (pool, handle))->value = index;
    }
    assert_int_equal (drover_slab_size (pool), total);
    //  Delete every third one
    for (uint32_t index = 3; index <= total; index += 3) {
        uint64_t key = index % 2? index: (uint64_t) index << 32;
        uint32_t handle = drover_slab_find (pool, key);
        assert_true (handle > 0);
        drover_slab_delete (pool, handle);
    }
    for (uint32_t index = 1; index <= total; index++) {
        uint64_t key = index % 2? index: (uint64_t) index << 32;
        uint32_t handle = drover_slab_find (pool, key);
        if (index % 3 == 0)
            assert_int_equal (handle, 0);
        else {
            assert_true (handle > 0);
            assert_int_equal (((s_item_t *) drover_slab_get (pool, handle))->value, index);
        }
    }
    assert_int_equal (drover_slab_size (pool), total - total / 3);
    drover_slab_destroy (&pool);
}

//  A pool emptied after growing gives its memory back and works on
static void
test_drained_pool_shrinks (void **state)
{
    drover_slab_t *pool = drover_slab_new (sizeof (s_item_t));
    size_t empty = drover_slab_footprint (pool);
    for (uint64_t key = 1; key <= 10000; key++)
        assert_true (drover_slab_insert (pool, key) > 0);
    assert_true (drover_slab_footprint (pool) > 10000 * sizeof (s_item_t));
    for (uint64_t key = 1; key <= 10000; key++)
        drover_slab_delete (pool, drover_slab_find (pool, key));
    assert_int_equal (drover_slab_size (pool), 0);
    assert_int_equal (drover_slab_footprint (pool), empty);
    uint32_t handle = drover_slab_insert (pool, 5);
    assert_int_equal (drover_slab_find (pool, 5), handle);
    drover_slab_destroy (&pool);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_insert_find),
        cmocka_unit_test (test_many_keys),
        cmocka_unit_test (test_drained_pool_shrinks),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
