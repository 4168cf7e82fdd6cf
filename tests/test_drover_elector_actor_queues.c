/*  =========================================================================
    test_drover_elector_actor_queues - the elector actor's named queues,
    two electors against a real etcd started by the test
    (tests/etcd_server.sh): both hear the same owners and tokens (spread
    two and two, or all on the leader), the survivor takes a $TERMed one's
    queues, and an owner whose etcd is paused says so before its deadline
    =========================================================================
*/

#include "testutil_elector.h"

//  True if elector last said of each queue: owners [q] owns it, at its
//  endpoint for it, and the members (names, in order) are its endpoints
static bool
s_queues_are (testutil_elector_t *elector, const char *const *owners, const char *const *members,
              size_t member_count)
{
    for (size_t queue = 0; queue < TESTUTIL_ELECTOR_QUEUES; queue++) {
        testutil_elector_queue_t *said = &elector->queues [queue];
        const char *name = testutil_elector_queue_names [queue];
        char endpoint [64];
        testutil_elector_queue_endpoint (endpoint, sizeof endpoint, owners [queue], name);
        if (strneq (said->owner, owners [queue]) || strneq (said->owner_at, endpoint)
        ||  said->token == 0)
            return false;
        char endpoints [160] = "";
        for (size_t member = 0; member < member_count; member++) {
            testutil_elector_queue_endpoint (endpoint, sizeof endpoint, members [member], name);
            size_t length = strlen (endpoints);
            snprintf (endpoints + length, sizeof endpoints - length, "%s%s",
                      member? ",": "", endpoint);
        }
        if (strneq (said->endpoints, endpoints))
            return false;
    }
    return true;
}

//  True if each of count electors says s_queues_are (owners, members), all
//  with the same tokens: the placement has settled and all have heard it
//  (an earlier placement may be agreed on for a moment: the leader places
//  before the other's membership key is there)
static bool
s_queues_settled (testutil_elector_t *electors, size_t count, const char *const *owners,
                  const char *const *members, size_t member_count)
{
    for (size_t index = 0; index < count; index++)
        if (!s_queues_are (&electors [index], owners, members, member_count))
            return false;
    for (size_t queue = 0; queue < TESTUTIL_ELECTOR_QUEUES; queue++)
        for (size_t index = 1; index < count; index++)
            if (electors [index].queues [queue].token != electors [0].queues [queue].token)
                return false;
    return true;
}

//  Who owns a b c d under spread with brokers b1 and b2, by the real hash
//  (test_drover_placement checks the same split): two each
static const char *s_spread_owners [TESTUTIL_ELECTOR_QUEUES] = { "b1", "b1", "b2", "b2" };
static const char *s_both [] = { "b1", "b2" };

//  Two electors offering a b c d, spread: both hear QUEUE for all four with
//  the same owners and tokens, two owned by each; then nothing changes
//  while both renew, and PEERS says no queue lines
static void
test_queues_spread_two_and_two (void **state)
{
    (void) state;
    testutil_elector_t electors [2];
    testutil_elector_start_queues (&electors [0], "b1", "/t11", "spread");
    testutil_elector_start_queues (&electors [1], "b2", "/t11", "spread");
    TESTUTIL_ELECTOR_AWAIT (electors, 2, s_queues_settled (electors, 2, s_spread_owners, s_both,
                                                           2), 10000);
    uint64_t tokens [TESTUTIL_ELECTOR_QUEUES];
    for (size_t queue = 0; queue < TESTUTIL_ELECTOR_QUEUES; queue++) {
        tokens [queue] = electors [0].queues [queue].token;
        assert_true (tokens [queue] > 0);
    }
    //  No QUEUE (nor anything else) while nothing changes: no write again.
    //  The keys' revisions in etcd after that time say so too, whether or
    //  not an elector had read a write yet; then each elector's barrier
    assert_int_equal (testutil_elector_expect_quiet (electors, 2, TESTUTIL_ELECTOR_TTL), 2);
    drover_etcd_t *etcd = drover_etcd_new (testutil_elector_etcd->url, 2000, NULL);
    zlistx_t *keys = drover_etcd_range (etcd, "/t11/queues/", false, 0);
    assert_non_null (keys);
    assert_int_equal (zlistx_size (keys), TESTUTIL_ELECTOR_QUEUES);
    for (drover_etcd_kv_t *kv = (drover_etcd_kv_t *) zlistx_first (keys); kv;
         kv = (drover_etcd_kv_t *) zlistx_next (keys)) {
        size_t queue = 0;
        while (queue < TESTUTIL_ELECTOR_QUEUES && !streq (kv->key + strlen ("/t11/queues/"),
                                                          testutil_elector_queue_names [queue]))
            queue++;
        assert_true (queue < TESTUTIL_ELECTOR_QUEUES);
        if ((uint64_t) kv->mod_revision != tokens [queue])
            fail_msg ("queue %s was written again (revision %" PRId64 ", token %" PRIu64 ")",
                      testutil_elector_queue_names [queue], kv->mod_revision, tokens [queue]);
    }
    zlistx_destroy (&keys);
    drover_etcd_destroy (&etcd);
    assert_true (s_queues_settled (electors, 2, s_spread_owners, s_both, 2));
    for (size_t queue = 0; queue < TESTUTIL_ELECTOR_QUEUES; queue++)
        assert_true (electors [0].queues [queue].token == tokens [queue]);

    zstr_send (electors [0].actor, "PEERS");
    zmsg_t *peers = testutil_recv (zactor_sock (electors [0].actor), 2000);
    assert_non_null (peers);
    testutil_assert_and_free (zmsg_popstr (peers), "PEERS");
    testutil_assert_and_free (zmsg_popstr (peers), "2");
    for (int index = 0; index < 2; index++) {
        testutil_assert_and_free (zmsg_popstr (peers), electors [index].name);
        testutil_assert_and_free (zmsg_popstr (peers), electors [index].advertise);
        char *leader = zmsg_popstr (peers);
        assert_non_null (leader);
        zstr_free (&leader);
    }
    zmsg_destroy (&peers);
    testutil_elector_stop_all (electors, 2);
}

//  $TERM the leader: the other's QUEUEs name it owner of all four, the two
//  that moved with higher tokens (the two it had keep theirs: their keys
//  are not written again), and list only its endpoints
static void
test_queues_move_when_the_leader_goes (void **state)
{
    (void) state;
    testutil_elector_t electors [2];
    testutil_elector_start_queues (&electors [0], "b1", "/t12", "spread");
    testutil_elector_start_queues (&electors [1], "b2", "/t12", "spread");
    testutil_elector_t *leader = testutil_elector_await_one_leads (electors, 5000);
    testutil_elector_t *other = leader == &electors [0]? &electors [1]: &electors [0];
    TESTUTIL_ELECTOR_AWAIT (electors, 2, s_queues_settled (electors, 2, s_spread_owners, s_both,
                                                           2), 10000);
    testutil_elector_queue_t before [TESTUTIL_ELECTOR_QUEUES];
    memcpy (before, other->queues, sizeof before);
    zactor_destroy (&leader->actor);
    leader->leader = false;
    const char *owners [TESTUTIL_ELECTOR_QUEUES] =
        { other->name, other->name, other->name, other->name };
    const char *members [] = { other->name };
    TESTUTIL_ELECTOR_AWAIT (other, 1, other->leader && s_queues_are (other, owners, members, 1),
                            5000);
    int moved = 0;
    for (size_t queue = 0; queue < TESTUTIL_ELECTOR_QUEUES; queue++) {
        if (streq (before [queue].owner, leader->name)) {
            assert_true (other->queues [queue].token > before [queue].token);
            moved++;
        }
        else
            assert_true (other->queues [queue].token == before [queue].token);
    }
    assert_int_equal (moved, 2);
    testutil_elector_stop_all (electors, 2);
}

//  Strategy leader: every queue on the leader, as both hear it
static void
test_queues_all_on_the_leader (void **state)
{
    (void) state;
    testutil_elector_t electors [2];
    testutil_elector_start_queues (&electors [0], "b1", "/t13", "leader");
    testutil_elector_start_queues (&electors [1], "b2", "/t13", NULL);     //  NULL: leader
    testutil_elector_t *leader = testutil_elector_await_one_leads (electors, 5000);
    const char *owners [TESTUTIL_ELECTOR_QUEUES] =
        { leader->name, leader->name, leader->name, leader->name };
    TESTUTIL_ELECTOR_AWAIT (electors, 2, s_queues_settled (electors, 2, owners, s_both, 2), 10000);
    testutil_elector_stop_all (electors, 2);
}

//  True if each elector has said no owner of the queues it owned (before)
static bool
s_owners_released (testutil_elector_t *electors, const testutil_elector_queue_t *before)
{
    for (size_t queue = 0; queue < TESTUTIL_ELECTOR_QUEUES; queue++) {
        testutil_elector_t *owner =
            streq (before [queue].owner, "b1")? &electors [0]: &electors [1];
        if (owner->queues [queue].released == 0)
            return false;
    }
    return true;
}

//  etcd paused: each owner says QUEUE Q "" "" 0 for its queues before its
//  session's deadline (so before its lease could expire), the leader
//  before its DEPOSED; after resume, the owners are said again
static void
test_queues_released_when_etcd_pauses (void **state)
{
    (void) state;
    testutil_elector_t electors [2];
    testutil_elector_start_queues (&electors [0], "b1", "/t14", "spread");
    testutil_elector_start_queues (&electors [1], "b2", "/t14", "spread");
    testutil_elector_t *leader = testutil_elector_await_one_leads (electors, 5000);
    TESTUTIL_ELECTOR_AWAIT (electors, 2, s_queues_settled (electors, 2, s_spread_owners, s_both,
                                                           2), 10000);
    testutil_elector_queue_t before [TESTUTIL_ELECTOR_QUEUES];
    memcpy (before, electors [0].queues, sizeof before);
    int64_t paused_at = zclock_mono ();
    testutil_etcd_signal (testutil_elector_etcd, "pause");
    TESTUTIL_ELECTOR_AWAIT (electors, 2, s_owners_released (electors,
                                                            before) && leader->deposed == 1,
                            TESTUTIL_ELECTOR_TTL * 2);
    for (size_t queue = 0; queue < TESTUTIL_ELECTOR_QUEUES; queue++) {
        testutil_elector_t *owner =
            streq (before [queue].owner, "b1")? &electors [0]: &electors [1];
        testutil_elector_queue_t *said = &owner->queues [queue];
        int64_t after = said->released_at - paused_at;
        printf ("elector: %s released queue %s %" PRId64 " ms after etcd was paused\n",
                owner->name, testutil_elector_queue_names [queue], after);
        assert_true (after < TESTUTIL_ELECTOR_TTL);
        assert_true (after >= TESTUTIL_ELECTOR_TTL - TESTUTIL_ELECTOR_TTL / 4
                              - TESTUTIL_ELECTOR_TTL / 3 - 100);
        assert_string_equal (said->owner_at, "");
        assert_true (said->token == 0);
        if (owner == leader)
            assert_true (said->released_seq < leader->deposed_seq);     //  queues first
    }
    testutil_etcd_signal (testutil_elector_etcd, "resume");
    TESTUTIL_ELECTOR_AWAIT (electors, 2, s_queues_settled (electors, 2, s_spread_owners, s_both, 2),
                            TESTUTIL_ELECTOR_TTL * 5);
    testutil_elector_stop_all (electors, 2);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_queues_spread_two_and_two),
        cmocka_unit_test (test_queues_move_when_the_leader_goes),
        cmocka_unit_test (test_queues_all_on_the_leader),
        cmocka_unit_test (test_queues_released_when_etcd_pauses),
    };
    int failed = cmocka_run_group_tests (tests, testutil_elector_group_setup, NULL);
    testutil_etcd_stop (&testutil_elector_etcd, failed != 0);
    return failed;
}
