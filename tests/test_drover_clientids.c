/*  =========================================================================
    test_drover_clientids - the route registry on its own: one entry per
    distinct route, shared by reference, freed with its last reference,
    entries reused after removal and kept intact across growth
    =========================================================================
*/

#include "testutil.h"
#include "drover_clientids.h"

static int
s_setup (void **state)
{
    *state = drover_clientids_new ();
    return *state? 0: -1;
}

static int
s_teardown (void **state)
{
    drover_clientids_t *routes = (drover_clientids_t *) *state;
    drover_clientids_destroy (&routes);
    assert_null (routes);
    drover_clientids_destroy (&routes);        //  harmless twice
    return 0;
}

//  Fill a route of size bytes that differs for each seed
static void
s_route_fill (byte *route, size_t size, uint32_t seed)
{
    for (size_t index = 0; index < size; index++)
        route [index] = (byte) ((seed >> (8 * (index % 4))) + index * 31);
}

//  One route taken twice shares one entry; another route gets its own
static void
test_same_route_shares_one_entry (void **state)
{
    drover_clientids_t *routes = (drover_clientids_t *) *state;
    byte alpha [5] = { 0, 'a', 'l', 0, 'p' };   //  binary, with zeros
    byte beta [5] = { 0, 'a', 'l', 0, 'q' };
    assert_int_equal (drover_clientids_find (routes, alpha, sizeof alpha), 0);
    assert_int_equal (drover_clientids_size (routes), 0);

    uint32_t ref = drover_clientids_ref (routes, alpha, sizeof alpha);
    assert_int_not_equal (ref, 0);
    assert_int_equal (drover_clientids_ref (routes, alpha, sizeof alpha), ref);
    assert_int_equal (drover_clientids_refs (routes, ref), 2);
    assert_int_equal (drover_clientids_find (routes, alpha, sizeof alpha), ref);
    //  A prefix is another route
    assert_int_equal (drover_clientids_find (routes, alpha, 4), 0);

    uint32_t other = drover_clientids_ref (routes, beta, sizeof beta);
    assert_int_not_equal (other, 0);
    assert_int_not_equal (other, ref);
    assert_int_equal (drover_clientids_size (routes), 2);

    size_t size;
    const byte *bytes = drover_clientids_route (routes, ref, &size);
    assert_int_equal (size, sizeof alpha);
    assert_memory_equal (bytes, alpha, sizeof alpha);
    bytes = drover_clientids_route (routes, other, &size);
    assert_int_equal (size, sizeof beta);
    assert_memory_equal (bytes, beta, sizeof beta);
}

//  The route stays until its last reference goes, then is forgotten
static void
test_removed_with_last_reference (void **state)
{
    drover_clientids_t *routes = (drover_clientids_t *) *state;
    byte route [1] = { 7 };
    uint32_t ref = drover_clientids_ref (routes, route, 1);
    drover_clientids_ref (routes, route, 1);
    drover_clientids_unref (routes, ref);
    assert_int_equal (drover_clientids_find (routes, route, 1), ref);
    assert_int_equal (drover_clientids_refs (routes, ref), 1);
    assert_int_equal (drover_clientids_size (routes), 1);
    drover_clientids_unref (routes, ref);
    assert_int_equal (drover_clientids_find (routes, route, 1), 0);
    assert_int_equal (drover_clientids_refs (routes, ref), 0);
    assert_int_equal (drover_clientids_size (routes), 0);

    //  Taken again, it is a fresh entry with one reference
    uint32_t again = drover_clientids_ref (routes, route, 1);
    assert_int_not_equal (again, 0);
    assert_int_equal (drover_clientids_refs (routes, again), 1);
    assert_int_equal (drover_clientids_size (routes), 1);
}

//  A freed entry is reused by the next new route, not left as a hole
static void
test_freed_entry_is_reused (void **state)
{
    drover_clientids_t *routes = (drover_clientids_t *) *state;
    byte first [2] = { 1, 1 }, second [2] = { 2, 2 }, third [2] = { 3, 3 };
    drover_clientids_ref (routes, first, 2);
    uint32_t middle = drover_clientids_ref (routes, second, 2);
    drover_clientids_ref (routes, third, 2);
    drover_clientids_unref (routes, middle);
    byte fourth [2] = { 4, 4 };
    assert_int_equal (drover_clientids_ref (routes, fourth, 2), middle);
    size_t size;
    const byte *bytes = drover_clientids_route (routes, middle, &size);
    assert_int_equal (size, 2);
    assert_memory_equal (bytes, fourth, 2);
    assert_int_equal (drover_clientids_find (routes, second, 2), 0);
    assert_int_equal (drover_clientids_size (routes), 3);
}

//  Many routes of every length grow the entries; each keeps its bytes and
//  its reference across growth, and removing half then adding back fills
//  the freed entries before growing again
static void
test_growth_keeps_routes_and_refs (void **state)
{
    drover_clientids_t *routes = (drover_clientids_t *) *state;
    enum { COUNT = 1000 };
    static uint32_t refs [COUNT];
    byte route [DROVER_CLIENTIDS_ROUTE_MAX];
    for (uint32_t index = 0; index < COUNT; index++) {
        size_t size = 1 + index % DROVER_CLIENTIDS_ROUTE_MAX;
        s_route_fill (route, size, index);
        refs [index] = drover_clientids_ref (routes, route, size);
        assert_int_not_equal (refs [index], 0);
    }
    assert_int_equal (drover_clientids_size (routes), COUNT);
    for (uint32_t index = 0; index < COUNT; index++) {
        size_t size = 1 + index % DROVER_CLIENTIDS_ROUTE_MAX;
        s_route_fill (route, size, index);
        assert_int_equal (drover_clientids_find (routes, route, size), refs [index]);
        size_t held;
        const byte *bytes = drover_clientids_route (routes, refs [index], &held);
        assert_int_equal (held, size);
        assert_memory_equal (bytes, route, size);
    }
    //  Drop the even ones
    uint32_t highest = 0;
    for (uint32_t index = 0; index < COUNT; index++) {
        highest = refs [index] > highest? refs [index]: highest;
        if (index % 2 == 0)
            drover_clientids_unref (routes, refs [index]);
    }
    assert_int_equal (drover_clientids_size (routes), COUNT / 2);
    for (uint32_t index = 0; index < COUNT; index += 2) {
        size_t size = 1 + index % DROVER_CLIENTIDS_ROUTE_MAX;
        s_route_fill (route, size, index);
        assert_int_equal (drover_clientids_find (routes, route, size), 0);
    }
    //  New routes take the freed entries: no reference past the highest
    for (uint32_t index = 0; index < COUNT / 2; index++) {
        s_route_fill (route, 8, COUNT + index);
        uint32_t ref = drover_clientids_ref (routes, route, 8);
        assert_true (ref >= 1 && ref <= highest);
    }
    assert_int_equal (drover_clientids_size (routes), COUNT);
    //  The odd ones survived untouched
    for (uint32_t index = 1; index < COUNT; index += 2) {
        size_t size = 1 + index % DROVER_CLIENTIDS_ROUTE_MAX;
        s_route_fill (route, size, index);
        assert_int_equal (drover_clientids_find (routes, route, size), refs [index]);
        assert_int_equal (drover_clientids_refs (routes, refs [index]), 1);
    }
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_same_route_shares_one_entry, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_removed_with_last_reference, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_freed_entry_is_reused, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_growth_keeps_routes_and_refs, s_setup, s_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
