/*  =========================================================================
    test_drover_elector_rr - the named queues' round-robin strategy (mgmt's
    "rr"; src/broker/ha/drover_placement.c): the queues in name order dealt
    to the members in turn; a member offering fewer queues still gets its
    share of those it offers; every member holds within one of the others
    whatever the count; a member's going deals its queues to the rest;
    the same offers always give the same owners
    =========================================================================
*/

#include "testutil.h"
#include "drover_placement.h"

//  Offer queues q00..q(count-1) from member (its endpoint "MEMBER:QUEUE")
static void
s_offer_all (drover_placement_t *placement, const char *member, int count)
{
    for (int index = 0; index < count; index++) {
        char queue [16], endpoint [64];
        snprintf (queue, sizeof queue, "q%02d", index);
        snprintf (endpoint, sizeof endpoint, "%s:%s", member, queue);
        drover_placement_offer (placement, member, queue, endpoint);
    }
}

//  How many of queues q00..q(count-1) member owns
static int
s_held (drover_placement_t *placement, const char *member, int count)
{
    int held = 0;
    for (int index = 0; index < count; index++) {
        char queue [16];
        snprintf (queue, sizeof queue, "q%02d", index);
        const char *owner = drover_placement_owner (placement, queue);
        assert_non_null (owner);
        held += streq (owner, member);
    }
    return held;
}

//  Three members, six queues: b1 b2 b3 b1 b2 b3, endpoints the owner's
static void
test_dealt_in_turn (void **state)
{
    (void) state;
    assert_true (drover_placement_strategy_valid ("rr"));
    drover_placement_t *placement = drover_placement_new ("rr");
    assert_string_equal (drover_placement_strategy (placement), "rr");
    const char *members [] = { "b2", "b3", "b1" };      //  offered in any order
    for (int index = 0; index < 3; index++)
        s_offer_all (placement, members [index], 6);
    const char *expected [] = { "b1", "b2", "b3", "b1", "b2", "b3" };
    for (int index = 0; index < 6; index++) {
        char queue [16], endpoint [64];
        snprintf (queue, sizeof queue, "q%02d", index);
        assert_string_equal (drover_placement_owner (placement, queue), expected [index]);
        snprintf (endpoint, sizeof endpoint, "%s:%s", expected [index], queue);
        assert_string_equal (drover_placement_owner_endpoint (placement, queue), endpoint);
    }
    assert_null (drover_placement_owner (placement, "nobody"));
    drover_placement_destroy (&placement);
}

//  20 queues over 3: 7, 7, 6; b3 goes: 10 and 10; b3 back: 7, 7, 6 again
//  (the same offers, the same owners)
static void
test_balance_and_churn (void **state)
{
    (void) state;
    drover_placement_t *placement = drover_placement_new ("rr");
    s_offer_all (placement, "b1", 20);
    s_offer_all (placement, "b2", 20);
    s_offer_all (placement, "b3", 20);
    assert_int_equal (s_held (placement, "b1", 20), 7);
    assert_int_equal (s_held (placement, "b2", 20), 7);
    assert_int_equal (s_held (placement, "b3", 20), 6);
    char before [20][8];
    for (int index = 0; index < 20; index++) {
        char queue [16];
        snprintf (queue, sizeof queue, "q%02d", index);
        snprintf (before [index], 8, "%s", drover_placement_owner (placement, queue));
    }
    drover_placement_remove (placement, "b3");
    assert_int_equal (s_held (placement, "b1", 20), 10);
    assert_int_equal (s_held (placement, "b2", 20), 10);
    s_offer_all (placement, "b3", 20);
    for (int index = 0; index < 20; index++) {
        char queue [16];
        snprintf (queue, sizeof queue, "q%02d", index);
        assert_string_equal (drover_placement_owner (placement, queue), before [index]);
    }
    drover_placement_destroy (&placement);
}

//  A member offering only some queues: it gets its share of those, the
//  others fill the rest (b3 offers q00..q02 only: one of them is its)
static void
test_partial_offers (void **state)
{
    (void) state;
    drover_placement_t *placement = drover_placement_new ("rr");
    s_offer_all (placement, "b1", 9);
    s_offer_all (placement, "b2", 9);
    s_offer_all (placement, "b3", 3);
    int b3 = s_held (placement, "b3", 9);
    assert_true (b3 >= 1 && b3 <= 3);
    int b1 = s_held (placement, "b1", 9);
    int b2 = s_held (placement, "b2", 9);
    assert_int_equal (b1 + b2 + b3, 9);
    assert_true (abs (b1 - b2) <= 1);
    //  A queue only b3 offers is b3's
    drover_placement_offer (placement, "b3", "solo", "b3:solo");
    assert_string_equal (drover_placement_owner (placement, "solo"), "b3");
    drover_placement_destroy (&placement);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_dealt_in_turn),
        cmocka_unit_test (test_balance_and_churn),
        cmocka_unit_test (test_partial_offers),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
