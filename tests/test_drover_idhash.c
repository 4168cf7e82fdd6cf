/*  =========================================================================
    test_drover_idhash - items by uint64 id: insert, lookup, delete with
    backward shift, growth, and a scan of the slots
    =========================================================================
*/

#include "testutil.h"
#include "drover_idhash.h"

//  An item as a user of the hash lays it out
typedef struct {
    uint64_t id;                //  the hash's key
    uint32_t value;             //  caller data
} s_item_t;

//  Insert, find, delete; the hash never frees its items
static void
test_insert_lookup_delete (void **state)
{
    drover_idhash_t *hash = drover_idhash_new ();
    assert_non_null (hash);
    s_item_t one = { 1, 10 }, two = { 2, 20 };
    assert_null (drover_idhash_lookup (hash, 1));
    drover_idhash_insert (hash, &one);
    drover_idhash_insert (hash, &two);
    assert_int_equal (drover_idhash_size (hash), 2);
    assert_ptr_equal (drover_idhash_lookup (hash, 1), &one);
    assert_ptr_equal (drover_idhash_lookup (hash, 2), &two);
    assert_null (drover_idhash_lookup (hash, 3));
    drover_idhash_delete (hash, &one);
    assert_null (drover_idhash_lookup (hash, 1));
    assert_ptr_equal (drover_idhash_lookup (hash, 2), &two);
    assert_int_equal (drover_idhash_size (hash), 1);
    drover_idhash_destroy (&hash);
    assert_null (hash);
    drover_idhash_destroy (&hash);      //  harmless twice
}

//  Many ids grow the slots; deleting every other one leaves the rest
//  reachable (backward shift keeps the runs whole); a scan sees each once
static void
test_many_ids (void **state)
{
    enum { COUNT = 20000 };
    s_item_t *items = (s_item_t *) calloc (COUNT, sizeof (s_item_t));
    drover_idhash_t *hash = drover_idhash_new ();
    size_t slots = drover_idhash_slots (hash);
    for (uint32_t index = 0; index < COUNT; index++) {
        items [index].id = index + 1;
        items [index].value = index;
        drover_idhash_insert (hash, &items [index]);
    }
    assert_true (drover_idhash_slots (hash) > slots);
    assert_true (drover_idhash_size (hash) * 10 <= drover_idhash_slots (hash) * 7);
    for (uint32_t index = 0; index < COUNT; index += 2)
        drover_idhash_delete (hash, &items [index]);
    assert_int_equal (drover_idhash_size (hash), COUNT / 2);
    for (uint32_t index = 0; index < COUNT; index++) {
        s_item_t *item = (s_item_t *) drover_idhash_lookup (hash, index + 1);
        if (index % 2)
            assert_ptr_equal (item, &items [index]);
        else
            assert_null (item);
    }
    size_t seen = 0;
    uint64_t sum = 0;
    for (size_t slot = 0; slot < drover_idhash_slots (hash); slot++) {
        s_item_t *item = (s_item_t *) drover_idhash_slot (hash, slot);
        if (item) {
            seen++;
            sum += item->id;
        }
    }
    assert_int_equal (seen, COUNT / 2);
    assert_int_equal (sum, (uint64_t) (COUNT / 2) * (COUNT / 2 + 1));     //  2 + 4 + ... + COUNT
    drover_idhash_destroy (&hash);
    free (items);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_insert_lookup_delete),
        cmocka_unit_test (test_many_ids),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
