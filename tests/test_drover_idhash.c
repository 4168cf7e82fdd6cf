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

//  Wanted by test_newest: odd ids only
static bool
s_odd (const void *item, void *arg)
{
    (*(size_t *) arg)++;
    return ((const s_item_t *) item)->id % 2 == 1;
}

//  The newest wanted items come out highest id first, at most limit
static void
test_newest (void **state)
{
    enum { COUNT = 3000 };
    s_item_t *items = (s_item_t *) calloc (COUNT, sizeof (s_item_t));
    drover_idhash_t *hash = drover_idhash_new ();
    for (uint32_t index = 0; index < COUNT; index++) {
        //  Inserted in a scrambled order, ids 1..COUNT
        items [index].id = (uint64_t) (index * 7 % COUNT) + 1;
        drover_idhash_insert (hash, &items [index]);
    }
    void *newest [10];
    size_t calls = 0;
    size_t count = drover_idhash_newest (hash, newest, 10, s_odd, &calls);
    assert_int_equal (calls, COUNT);            //  every item offered once
    assert_int_equal (count, 10);
    for (size_t index = 0; index < count; index++)
        assert_int_equal (((s_item_t *) newest [index])->id, COUNT - 1 - 2 * index);
    //  Fewer wanted than the limit: all of them, still newest first
    drover_idhash_t *small = drover_idhash_new ();
    for (uint32_t index = 0; index < 5; index++)
        drover_idhash_insert (small, &items [index]);
    count = drover_idhash_newest (small, newest, 10, s_odd, &calls);
    size_t odd = 0;
    for (uint32_t index = 0; index < 5; index++)
        odd += items [index].id % 2;
    assert_int_equal (count, odd);
    for (size_t index = 1; index < count; index++)
        assert_true (((s_item_t *) newest [index - 1])->id > ((s_item_t *) newest [index])->id);
    assert_int_equal (drover_idhash_newest (small, newest, 0, s_odd, &calls), 0);
    drover_idhash_destroy (&small);
    drover_idhash_destroy (&hash);
    free (items);
}

//  Order by value, then id (for test_first)
static int
s_by_value (const void *a, const void *b)
{
    const s_item_t *one = (const s_item_t *) a, *two = (const s_item_t *) b;
    if (one->value != two->value)
        return one->value < two->value? -1: 1;
    return one->id < two->id? -1: one->id > two->id? 1: 0;
}

//  The first wanted items in a caller's order, at most limit, in order
static void
test_first (void **state)
{
    enum { COUNT = 3000 };
    s_item_t *items = (s_item_t *) calloc (COUNT, sizeof (s_item_t));
    drover_idhash_t *hash = drover_idhash_new ();
    for (uint32_t index = 0; index < COUNT; index++) {
        items [index].id = (uint64_t) (index * 7 % COUNT) + 1;
        items [index].value = (uint32_t) (items [index].id * 13 % 101);
        drover_idhash_insert (hash, &items [index]);
    }
    void *first [50];
    size_t calls = 0;
    size_t count = drover_idhash_first (hash, first, 50, s_odd, &calls, s_by_value);
    assert_int_equal (calls, COUNT);
    assert_int_equal (count, 50);
    //  The same as sorting every odd item and taking the head
    void **all = (void **) calloc (COUNT, sizeof (void *));
    size_t odd = 0;
    for (uint32_t index = 0; index < COUNT; index++)
        if (items [index].id % 2)
            all [odd++] = &items [index];
    for (size_t index = 0; index < 50; index++) {
        size_t best = index;
        for (size_t other = index + 1; other < odd; other++)
            if (s_by_value (all [other], all [best]) < 0)
                best = other;
        void *swap = all [index];
        all [index] = all [best];
        all [best] = swap;
        assert_ptr_equal (first [index], all [index]);
    }
    assert_int_equal (drover_idhash_first (hash, first, 0, s_odd, &calls, s_by_value), 0);
    free (all);
    drover_idhash_destroy (&hash);
    free (items);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_insert_lookup_delete),
        cmocka_unit_test (test_many_ids),
        cmocka_unit_test (test_newest),
        cmocka_unit_test (test_first),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
