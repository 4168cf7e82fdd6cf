/*  =========================================================================
    test_drover_placement - the placement strategies: "leader" puts every
    queue on the leader (else the first by name that offers it), "spread"
    by rendezvous score; a member's going moves only its queues, its return
    only the ones it wins; 1,000 queues over 10 members lose a tenth
    =========================================================================
*/

#include "testutil.h"
#include "drover_placement.h"
#include "drover_rendezvous.h"

//  The endpoint a test member serves queue on: "MEMBER:QUEUE"
static void
s_offer (drover_placement_t *placement, const char *member, const char *queue)
{
    char endpoint [64];
    snprintf (endpoint, sizeof endpoint, "%s:%s", member, queue);
    drover_placement_offer (placement, member, queue, endpoint);
}

//  Assert queue's owner and its endpoint
static void
s_assert_owner (drover_placement_t *placement, const char *queue, const char *member)
{
    const char *owner = drover_placement_owner (placement, queue);
    assert_non_null (owner);
    if (strneq (owner, member))
        fail_msg ("queue %s: owner %s, not %s", queue, owner, member);
    char endpoint [64];
    snprintf (endpoint, sizeof endpoint, "%s:%s", member, queue);
    assert_string_equal (drover_placement_owner_endpoint (placement, queue), endpoint);
}

//  Strategies: the valid ones, the default, and a bad one refused
static void
test_strategies (void **state)
{
    (void) state;
    assert_null (drover_placement_new ("nearest"));
    assert_false (drover_placement_strategy_valid ("Leader"));
    drover_placement_t *placement = drover_placement_new (NULL);
    assert_non_null (placement);
    assert_string_equal (drover_placement_strategy (placement), "leader");
    drover_placement_destroy (&placement);
    placement = drover_placement_new ("");
    assert_string_equal (drover_placement_strategy (placement), "leader");
    drover_placement_destroy (&placement);
    placement = drover_placement_new ("spread");
    assert_string_equal (drover_placement_strategy (placement), "spread");
    assert_int_equal (drover_placement_size (placement), 0);
    assert_null (drover_placement_owner (placement, "a"));
    char *endpoints = drover_placement_endpoints (placement, "a");
    testutil_assert_and_free (endpoints, "");
    drover_placement_destroy (&placement);
    drover_placement_destroy (&placement);          //  harmless twice
}

//  "leader": the leader's when it offers the queue, else the first member
//  by name that does; endpoints list every offer in member-name order
static void
test_leader_strategy (void **state)
{
    (void) state;
    drover_placement_t *placement = drover_placement_new ("leader");
    drover_placement_set_leader (placement, "m2");
    s_offer (placement, "m3", "a");
    s_offer (placement, "m2", "a");
    s_offer (placement, "m1", "a");
    s_offer (placement, "m3", "b");
    s_offer (placement, "m1", "b");
    s_offer (placement, "m3", "c");
    assert_int_equal (drover_placement_size (placement), 3);
    assert_string_equal (drover_placement_queue (placement, 0), "a");
    assert_string_equal (drover_placement_queue (placement, 1), "b");
    assert_string_equal (drover_placement_queue (placement, 2), "c");
    s_assert_owner (placement, "a", "m2");
    s_assert_owner (placement, "b", "m1");
    s_assert_owner (placement, "c", "m3");
    testutil_assert_and_free (drover_placement_endpoints (placement, "a"), "m1:a,m2:a,m3:a");
    testutil_assert_and_free (drover_placement_endpoints (placement, "b"), "m1:b,m3:b");

    //  A second offer of a pair replaces the first
    drover_placement_offer (placement, "m2", "a", "elsewhere");
    assert_string_equal (drover_placement_owner_endpoint (placement, "a"), "elsewhere");
    s_offer (placement, "m2", "a");

    //  Another leader; the leader gone: the first by name
    drover_placement_set_leader (placement, "m3");
    s_assert_owner (placement, "a", "m3");
    s_assert_owner (placement, "b", "m3");
    drover_placement_remove (placement, "m3");
    s_assert_owner (placement, "a", "m1");
    s_assert_owner (placement, "b", "m1");
    assert_null (drover_placement_owner (placement, "c"));     //  nobody offers c now
    assert_int_equal (drover_placement_size (placement), 2);
    assert_string_equal (drover_placement_queue (placement, 1), "b");
    drover_placement_destroy (&placement);
}

//  Owner of each of count queues named q0, q1, ... (ours: free each)
static char **
s_owners (drover_placement_t *placement, size_t count)
{
    char **owners = (char **) calloc (count, sizeof (char *));
    assert_non_null (owners);
    for (size_t index = 0; index < count; index++) {
        char queue [16];
        snprintf (queue, sizeof queue, "q%zu", index);
        const char *owner = drover_placement_owner (placement, queue);
        assert_non_null (owner);
        owners [index] = strdup (owner);
    }
    return owners;
}

//  Free what s_owners returned
static void
s_owners_free (char **owners, size_t count)
{
    for (size_t index = 0; index < count; index++)
        free (owners [index]);
    free (owners);
}

//  "spread": the highest rendezvous score owns each queue; with brokers b1
//  and b2 (the elector test's names), queues a b c d split two and two (by
//  the real hash: a, b to b1; c, d to b2); the leader plays no part
static void
test_spread_two_brokers (void **state)
{
    (void) state;
    drover_placement_t *placement = drover_placement_new ("spread");
    drover_placement_set_leader (placement, "b2");
    const char *queues [] = { "a", "b", "c", "d" };
    for (size_t index = 0; index < 4; index++) {
        s_offer (placement, "b1", queues [index]);
        s_offer (placement, "b2", queues [index]);
    }
    int owned_by_b1 = 0;
    for (size_t index = 0; index < 4; index++) {
        const char *queue = queues [index];
        uint64_t hash = drover_rendezvous_hash (queue, strlen (queue));
        uint64_t b1 = drover_rendezvous_score (hash, drover_rendezvous_hash ("b1", 2));
        uint64_t b2 = drover_rendezvous_score (hash, drover_rendezvous_hash ("b2", 2));
        s_assert_owner (placement, queue, b1 > b2? "b1": "b2");
        owned_by_b1 += streq (drover_placement_owner (placement, queue), "b1");
    }
    assert_int_equal (owned_by_b1, 2);
    s_assert_owner (placement, "a", "b1");
    s_assert_owner (placement, "b", "b1");
    s_assert_owner (placement, "c", "b2");
    s_assert_owner (placement, "d", "b2");
    drover_placement_destroy (&placement);
}

//  "spread": a member's going moves exactly its queues (to the others), its
//  return moves back exactly the ones it wins, which are the ones it had
static void
test_spread_remove_and_return (void **state)
{
    (void) state;
    size_t count = 40;
    const char *members [] = { "m1", "m2", "m3", "m4" };
    drover_placement_t *placement = drover_placement_new ("spread");
    for (size_t index = 0; index < count; index++) {
        char queue [16];
        snprintf (queue, sizeof queue, "q%zu", index);
        for (size_t member = 0; member < 4; member++)
            s_offer (placement, members [member], queue);
    }
    char **before = s_owners (placement, count);
    drover_placement_remove (placement, "m3");
    char **without = s_owners (placement, count);
    size_t moved = 0;
    for (size_t index = 0; index < count; index++) {
        if (streq (before [index], "m3")) {
            assert_string_not_equal (without [index], "m3");
            moved++;
        }
        else
            assert_string_equal (without [index], before [index]);
    }
    assert_true (moved > 0);                //  m3 owned some: the test can see a move
    for (size_t index = 0; index < count; index++) {
        char queue [16];
        snprintf (queue, sizeof queue, "q%zu", index);
        s_offer (placement, "m3", queue);
    }
    char **back = s_owners (placement, count);
    for (size_t index = 0; index < count; index++)
        assert_string_equal (back [index], before [index]);
    s_owners_free (before, count);
    s_owners_free (without, count);
    s_owners_free (back, count);
    drover_placement_destroy (&placement);
}

//  1,000 queues over 10 members: each owns about a tenth; removing one
//  moves exactly the queues it owned (about 1/10), no other
static void
test_spread_thousand_queues (void **state)
{
    (void) state;
    size_t count = 1000;
    drover_placement_t *placement = drover_placement_new ("spread");
    for (size_t index = 0; index < count; index++) {
        char queue [16];
        snprintf (queue, sizeof queue, "q%zu", index);
        for (int member = 0; member < 10; member++) {
            char name [16];
            snprintf (name, sizeof name, "broker-%d", member);
            s_offer (placement, name, queue);
        }
    }
    assert_int_equal (drover_placement_size (placement), count);
    char **before = s_owners (placement, count);
    drover_placement_remove (placement, "broker-7");
    char **after = s_owners (placement, count);
    size_t moved = 0, owned = 0;
    for (size_t index = 0; index < count; index++) {
        bool was_its = streq (before [index], "broker-7");
        owned += was_its;
        if (strneq (before [index], after [index])) {
            assert_true (was_its);          //  only its queues move
            moved++;
        }
        assert_string_not_equal (after [index], "broker-7");
    }
    assert_int_equal (moved, owned);
    printf ("placement: 1000 queues over 10 members, one removed: %zu moved\n", moved);
    assert_true (moved >= 50 && moved <= 150);          //  about a tenth
    s_owners_free (before, count);
    s_owners_free (after, count);
    drover_placement_destroy (&placement);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_strategies),
        cmocka_unit_test (test_leader_strategy),
        cmocka_unit_test (test_spread_two_brokers),
        cmocka_unit_test (test_spread_remove_and_return),
        cmocka_unit_test (test_spread_thousand_queues),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
