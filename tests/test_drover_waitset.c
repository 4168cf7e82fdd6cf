/*  =========================================================================
    test_drover_waitset - the tasks one client wait waits for

    The set as drover_client_wait uses it: repeated ids counted once, each
    task delivered once (then a duplicate), unknown tasks refused, the
    pending ones handed out in chunks, and the seq range of its WAITs,
    also across the wrap of the seq.
    =========================================================================
*/

#include "testutil.h"
#include "drover_waitset.h"

//  Repeated ids count once; delivering says new, duplicate or unknown
static void
test_deliver (void **state)
{
    uint64_t tasks [] = { 7, 42, 7, 1000000007ULL, 42 };
    drover_waitset_t *set = drover_waitset_new (tasks, 5);
    assert_int_equal (drover_waitset_total (set), 3);
    assert_int_equal (drover_waitset_delivered (set), 0);
    assert_int_equal (drover_waitset_deliver (set, 42), 1);
    assert_int_equal (drover_waitset_deliver (set, 42), 0);     //  a duplicate
    assert_int_equal (drover_waitset_deliver (set, 43), -1);    //  not ours
    assert_int_equal (drover_waitset_delivered (set), 1);
    assert_int_equal (drover_waitset_deliver (set, 7), 1);
    assert_int_equal (drover_waitset_deliver (set, 1000000007ULL), 1);
    assert_int_equal (drover_waitset_delivered (set), 3);
    drover_waitset_destroy (&set);
    assert_null (set);
    drover_waitset_destroy (&set);      //  harmless twice
}

//  Pending tasks come out in chunks, each once, delivered ones left out
static void
test_pending_chunks (void **state)
{
    size_t count = 1000;
    uint64_t *tasks = (uint64_t *) zmalloc (count * sizeof (uint64_t));
    for (size_t index = 0; index < count; index++)
        tasks [index] = index + 1;
    drover_waitset_t *set = drover_waitset_new (tasks, count);
    for (size_t index = 0; index < count; index += 2)
        assert_int_equal (drover_waitset_deliver (set, tasks [index]), 1);

    byte *seen = (byte *) zmalloc (count + 1);
    uint64_t chunk [64];
    size_t cursor = 0;
    size_t total = 0;
    size_t got;
    while ((got = drover_waitset_pending (set, &cursor, chunk, 64))) {
        assert_true (got <= 64);
        for (size_t index = 0; index < got; index++) {
            assert_true (chunk [index] >= 1 && chunk [index] <= count);
            assert_int_equal (chunk [index] % 2, 0);    //  odd ids were delivered
            assert_false (seen [chunk [index]]);
            seen [chunk [index]] = 1;
        }
        total += got;
    }
    assert_int_equal (total, count / 2);
    assert_int_equal (drover_waitset_pending (set, &cursor, chunk, 64), 0);
    free (seen);
    free (tasks);
    drover_waitset_destroy (&set);
}

//  An empty wait has nothing pending and owns no seq
static void
test_empty (void **state)
{
    drover_waitset_t *set = drover_waitset_new (NULL, 0);
    assert_int_equal (drover_waitset_total (set), 0);
    uint64_t chunk [4];
    size_t cursor = 0;
    assert_int_equal (drover_waitset_pending (set, &cursor, chunk, 4), 0);
    assert_false (drover_waitset_owns (set, 1));
    drover_waitset_destroy (&set);
}

//  The set owns the seqs of its WAITs, from the first to the last sent,
//  and none before any was sent
static void
test_owns_seq_range (void **state)
{
    uint64_t tasks [] = { 1 };
    drover_waitset_t *set = drover_waitset_new (tasks, 1);
    assert_false (drover_waitset_owns (set, 10));
    drover_waitset_sent (set, 10);
    drover_waitset_sent (set, 11);
    drover_waitset_sent (set, 12);
    assert_false (drover_waitset_owns (set, 9));
    assert_true (drover_waitset_owns (set, 10));
    assert_true (drover_waitset_owns (set, 12));
    assert_false (drover_waitset_owns (set, 13));
    drover_waitset_destroy (&set);

    //  Across the wrap: UINT32_MAX, then 1 (seq 0 is never used)
    set = drover_waitset_new (tasks, 1);
    drover_waitset_sent (set, UINT32_MAX - 1);
    drover_waitset_sent (set, UINT32_MAX);
    drover_waitset_sent (set, 1);
    assert_true (drover_waitset_owns (set, UINT32_MAX - 1));
    assert_true (drover_waitset_owns (set, UINT32_MAX));
    assert_true (drover_waitset_owns (set, 1));
    assert_false (drover_waitset_owns (set, 2));
    assert_false (drover_waitset_owns (set, UINT32_MAX - 2));
    drover_waitset_destroy (&set);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_deliver),
        cmocka_unit_test (test_pending_chunks),
        cmocka_unit_test (test_empty),
        cmocka_unit_test (test_owns_seq_range),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
