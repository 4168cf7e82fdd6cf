/*  =========================================================================
    test_drover_refusals - which refusals reach the broker's log: the first
    of each subject, then one every DROVER_REFUSALS_EVERY with the count
    held back, and no more than DROVER_REFUSALS_BURST lines a second
    =========================================================================
*/

#include "testutil.h"
#include "drover_refusals.h"

//  The first refusal of a subject is logged, the next ones within EVERY
//  are held back, and the line after EVERY says how many were
static void
test_one_subject_repeats_counted (void **state)
{
    drover_refusals_t *refusals = drover_refusals_new ();
    uint64_t held = 99;
    assert_true (drover_refusals_due (refusals, "key=a", 1000, &held));
    assert_int_equal (held, 0);
    for (int64_t now = 1100; now < 1000 + DROVER_REFUSALS_EVERY; now += 100)
        assert_false (drover_refusals_due (refusals, "key=a", now, &held));
    assert_true (drover_refusals_due (refusals, "key=a", 1000 + DROVER_REFUSALS_EVERY, &held));
    assert_int_equal (held, (DROVER_REFUSALS_EVERY - 100) / 100);
    assert_int_equal (drover_refusals_count (refusals), DROVER_REFUSALS_EVERY / 100 + 1);
    //  Another subject is its own
    assert_true (drover_refusals_due (refusals, "key=b", 1000 + DROVER_REFUSALS_EVERY, &held));
    assert_int_equal (held, 0);
    drover_refusals_destroy (&refusals);
    drover_refusals_destroy (&refusals);
}

//  Many subjects at once: BURST lines a second, the rest counted and told
//  by the next line
static void
test_burst_limited (void **state)
{
    drover_refusals_t *refusals = drover_refusals_new ();
    uint64_t held = 0;
    int logged = 0;
    for (int index = 0; index < 100; index++) {
        char subject [32];
        snprintf (subject, sizeof subject, "address=10.0.0.%d", index);
        logged += drover_refusals_due (refusals, subject, 5000 + index, &held);
    }
    assert_int_equal (logged, DROVER_REFUSALS_BURST);
    assert_true (drover_refusals_due (refusals, "address=10.0.1.1", 6000, &held));
    assert_int_equal (held, 100 - DROVER_REFUSALS_BURST);
    drover_refusals_destroy (&refusals);
}

//  Past KEPT subjects a new one is still logged (within the burst): the
//  table forgets the old ones rather than hold every subject
static void
test_subjects_bounded (void **state)
{
    drover_refusals_t *refusals = drover_refusals_new ();
    uint64_t held = 0;
    int64_t now = 0;
    for (int index = 0; index < DROVER_REFUSALS_KEPT + 10; index++) {
        char subject [32];
        snprintf (subject, sizeof subject, "key=%d", index);
        now += 1000 / DROVER_REFUSALS_BURST + 1;
        assert_true (drover_refusals_due (refusals, subject, now, &held));
    }
    //  and one logged more than EVERY ago is news again
    assert_true (drover_refusals_due (refusals, "key=0", now + 1000, &held));
    drover_refusals_destroy (&refusals);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_one_subject_repeats_counted),
        cmocka_unit_test (test_burst_limited),
        cmocka_unit_test (test_subjects_bounded),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
