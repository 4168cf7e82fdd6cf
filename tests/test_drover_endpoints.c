/*  =========================================================================
    test_drover_endpoints - a peer's list of brokers with a fake clock:
    parsing, following REDIRECT, moving on when a broker is gone, not going
    back to a dead one for a while, backing off once a round found no
    leader
    =========================================================================
*/

#include "testutil.h"
#include "drover_endpoints.h"

#define A   "tcp://127.0.0.1:7001"
#define B   "tcp://127.0.0.1:7002"
#define C   "tcp://127.0.0.1:7003"

//  Items are trimmed; empty ones and repeats dropped; nothing is NULL
static void
test_parse (void **state)
{
    drover_endpoints_t *endpoints = drover_endpoints_new (" " A " ,," B "," A ", ");
    assert_non_null (endpoints);
    assert_int_equal (drover_endpoints_size (endpoints), 2);
    assert_string_equal (drover_endpoints_current (endpoints), A);
    assert_string_equal (drover_endpoints_item (endpoints, 0), A);
    assert_string_equal (drover_endpoints_item (endpoints, 1), B);
    assert_null (drover_endpoints_item (endpoints, 2));
    assert_int_equal (drover_endpoints_moves (endpoints), 0);
    drover_endpoints_destroy (&endpoints);
    drover_endpoints_destroy (&endpoints);          //  harmless twice
    endpoints = drover_endpoints_new (A);
    assert_int_equal (drover_endpoints_size (endpoints), 1);
    drover_endpoints_destroy (&endpoints);
    assert_null (drover_endpoints_new (NULL));
    assert_null (drover_endpoints_new (""));
    assert_null (drover_endpoints_new (" , ,"));
}

//  REDIRECT naming a leader: go there at once, in the list or not; the
//  leader's own list position counts for what comes next
static void
test_follow_leader (void **state)
{
    drover_endpoints_t *endpoints = drover_endpoints_new (A "," B "," C);
    assert_int_equal (drover_endpoints_redirected (endpoints, C, 1000), 0);
    assert_string_equal (drover_endpoints_current (endpoints), C);
    drover_endpoints_served (endpoints);
    //  C is gone: the next of the list after C is A
    assert_int_equal (drover_endpoints_failed (endpoints, 2000), 0);
    assert_string_equal (drover_endpoints_current (endpoints), A);
    //  A leader outside the list
    assert_int_equal (drover_endpoints_redirected (endpoints, "tcp://10.0.0.9:5555", 2100), 0);
    assert_string_equal (drover_endpoints_current (endpoints), "tcp://10.0.0.9:5555");
    assert_int_equal (drover_endpoints_moves (endpoints), 3);
    drover_endpoints_destroy (&endpoints);
}

//  REDIRECT without a leader, or naming the broker itself: the next of
//  the list; the standby is alive, so it is not marked dead
static void
test_no_leader_next (void **state)
{
    drover_endpoints_t *endpoints = drover_endpoints_new (A "," B);
    assert_int_equal (drover_endpoints_redirected (endpoints, "", 1000), 0);
    assert_string_equal (drover_endpoints_current (endpoints), B);
    assert_true (drover_endpoints_redirected (endpoints, B, 1010) > 0);  //  round done
    assert_string_equal (drover_endpoints_current (endpoints), A);
    assert_true (drover_endpoints_redirected (endpoints, NULL, 1020) > 0);
    assert_string_equal (drover_endpoints_current (endpoints), B);
    drover_endpoints_destroy (&endpoints);
}

//  The failover: leader A killed, standby B still names A until its
//  election ends. The peer does not go back to A while A is dead lately:
//  it asks B again, backing off, and A only after DEAD_MEMORY
static void
test_dead_leader_not_revisited (void **state)
{
    drover_endpoints_t *endpoints = drover_endpoints_new (A "," B);
    drover_endpoints_served (endpoints);
    //  A's connection down for DEAD_AFTER: on to B, at once
    assert_int_equal (drover_endpoints_failed (endpoints, 10000), 0);
    assert_string_equal (drover_endpoints_current (endpoints), B);
    //  B: "the leader is A". Stay on B, asking again after a backoff
    //  that doubles to its cap
    int delays [] = { DROVER_ENDPOINTS_BACKOFF_MIN, DROVER_ENDPOINTS_BACKOFF_MIN * 2,
                      DROVER_ENDPOINTS_BACKOFF_MIN * 4, DROVER_ENDPOINTS_BACKOFF_MAX,
                      DROVER_ENDPOINTS_BACKOFF_MAX };
    int64_t now = 10100;
    for (size_t index = 0; index < sizeof delays / sizeof delays [0]; index++) {
        assert_int_equal (drover_endpoints_redirected (endpoints, A, now), delays [index]);
        assert_string_equal (drover_endpoints_current (endpoints), B);
        now += delays [index];
    }
    //  Past DEAD_MEMORY, A may have come back: it is tried again
    now = 10000 + DROVER_ENDPOINTS_DEAD_MEMORY;
    drover_endpoints_redirected (endpoints, A, now);
    assert_string_equal (drover_endpoints_current (endpoints), A);
    //  B now leads: the backoff is forgotten
    drover_endpoints_failed (endpoints, now + 1000);
    assert_string_equal (drover_endpoints_current (endpoints), B);
    drover_endpoints_served (endpoints);
    assert_int_equal (drover_endpoints_failed (endpoints, now + 2000), 0);
    assert_string_equal (drover_endpoints_current (endpoints), A);
    drover_endpoints_destroy (&endpoints);
}

//  Every broker gone: round robin, with a backoff once the list went round
static void
test_all_gone_back_off (void **state)
{
    drover_endpoints_t *endpoints = drover_endpoints_new (A "," B "," C);
    assert_int_equal (drover_endpoints_failed (endpoints, 1000), 0);
    assert_string_equal (drover_endpoints_current (endpoints), B);
    assert_int_equal (drover_endpoints_failed (endpoints, 2000), 0);
    assert_string_equal (drover_endpoints_current (endpoints), C);
    //  The round is done: A, B and C all dead lately; go on, slower
    assert_int_equal (drover_endpoints_failed (endpoints, 3000), DROVER_ENDPOINTS_BACKOFF_MIN);
    assert_string_equal (drover_endpoints_current (endpoints), A);
    assert_int_equal (drover_endpoints_failed (endpoints, 4000),
                      DROVER_ENDPOINTS_BACKOFF_MIN * 2);
    assert_string_equal (drover_endpoints_current (endpoints), B);
    //  One list item: it stays, slower each time
    drover_endpoints_destroy (&endpoints);
    endpoints = drover_endpoints_new (A);
    assert_int_equal (drover_endpoints_failed (endpoints, 1000), DROVER_ENDPOINTS_BACKOFF_MIN);
    assert_string_equal (drover_endpoints_current (endpoints), A);
    assert_int_equal (drover_endpoints_redirected (endpoints, "", 1100),
                      DROVER_ENDPOINTS_BACKOFF_MIN * 2);
    assert_string_equal (drover_endpoints_current (endpoints), A);
    drover_endpoints_destroy (&endpoints);
}

//  Two standbys naming each other: followed a few times, then slower
static void
test_redirect_loop_slows (void **state)
{
    drover_endpoints_t *endpoints = drover_endpoints_new (A "," B);
    int free_hops = 0;
    int64_t now = 1000;
    while (true) {
        const char *other = streq (drover_endpoints_current (endpoints), A)? B: A;
        int delay = drover_endpoints_redirected (endpoints, other, now++);
        if (delay > 0)
            break;
        free_hops++;
        assert_true (free_hops < 100);
    }
    assert_int_equal (free_hops, 2 * 2 + 2);
    drover_endpoints_destroy (&endpoints);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_parse),
        cmocka_unit_test (test_follow_leader),
        cmocka_unit_test (test_no_leader_next),
        cmocka_unit_test (test_dead_leader_not_revisited),
        cmocka_unit_test (test_all_gone_back_off),
        cmocka_unit_test (test_redirect_loop_slows),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
