/*  =========================================================================
    test_drover_conns - connections against the descriptor limit, with a
    fake clock: silent ones cut, evicted for newcomers, a reserve kept for
    members, a cap per address, closes nobody reported
    =========================================================================
*/

#include "testutil.h"
#include "drover_conns.h"

//  Rules with limit places, reserve of them for members, a spare of 8,
//  per_address strangers from one address (0 any), a grace of 1000 and a
//  told delay of 100; silent connections cut after 1000 from time 0
static drover_conns_t *
s_conns_new (size_t limit, size_t reserve, size_t per_address)
{
    drover_conns_rules_t rules = { .fd_limit = 128, .limit = limit, .reserve = reserve,
                                   .spare = 8, .per_address = per_address, .grace = 1000,
                                   .told = 100 };
    drover_conns_t *conns = drover_conns_new (&rules);
    drover_conns_set_silent (conns, 1000, 0);
    return conns;
}

//  Accept fd from 127.0.0.1 at now; returns its class
static drover_conn_class_t
s_accept (drover_conns_t *conns, int fd, int64_t now)
{
    return drover_conns_accepted (conns, fd, "127.0.0.1", 40000 + fd, false, now);
}

//  A message on fd from the peer whose routing id is fd's own (any, for a
//  fresh connection)
static const char *
s_admit (drover_conns_t *conns, int fd, bool member, int64_t now)
{
    return drover_conns_admit (conns, fd, (uint64_t) fd, member, now);
}

//  A connection that says nothing valid is cut after the silent time; one
//  that spoke stays, and so does a listener that never speaks
static void
test_silent_is_cut_after_the_silent_time (void **state)
{
    drover_conns_t *conns = s_conns_new (8, 1, 0);
    assert_int_equal (s_accept (conns, 10, 0), DROVER_CONN_SILENT);
    assert_int_equal (s_accept (conns, 11, 10), DROVER_CONN_SILENT);
    assert_int_equal (drover_conns_accepted (conns, 12, "127.0.0.1", 1, true, 20),
                      DROVER_CONN_CLIENT);
    assert_null (s_admit (conns, 11, false, 500));
    assert_int_equal (drover_conns_class (conns, 11), DROVER_CONN_CLIENT);
    assert_int_equal (drover_conns_deadline (conns), 1000);
    assert_int_equal (drover_conns_next_cut (conns, 999), -1);
    assert_int_equal (drover_conns_next_cut (conns, 1000), 10);
    assert_int_equal (drover_conns_class (conns, 10), DROVER_CONN_CUT);
    assert_int_equal (drover_conns_next_cut (conns, 60000), -1);
    assert_int_equal (drover_conns_deadline (conns), -1);
    assert_int_equal (drover_conns_gone (conns, DROVER_CONNS_SILENT), 1);
    assert_int_equal (drover_conns_count (conns), 3);   //  until libzmq closes it
    drover_conns_closed (conns, 10);
    assert_int_equal (drover_conns_count (conns), 2);
    assert_int_equal (drover_conns_class_count (conns, DROVER_CONN_CLIENT), 2);
    assert_int_equal (drover_conns_accepted_total (conns), 3);
    drover_conns_destroy (&conns);
    drover_conns_destroy (&conns);
    assert_null (conns);
}

//  With no place left for strangers, a newcomer takes the place of the
//  oldest silent one, which is cut at once
static void
test_newcomer_evicts_the_oldest_silent (void **state)
{
    drover_conns_t *conns = s_conns_new (3, 1, 0);
    assert_int_equal (s_accept (conns, 10, 0), DROVER_CONN_SILENT);
    assert_int_equal (s_accept (conns, 11, 5), DROVER_CONN_SILENT);
    assert_int_equal (s_accept (conns, 12, 7), DROVER_CONN_SILENT);
    assert_int_equal (drover_conns_class (conns, 10), DROVER_CONN_EXCESS);
    assert_int_equal (drover_conns_deadline (conns), 7);
    assert_int_equal (drover_conns_next_cut (conns, 7), 10);
    assert_int_equal (drover_conns_gone (conns, DROVER_CONNS_EVICTED), 1);
    //  One that spoke is never evicted: the next one goes
    assert_null (s_admit (conns, 12, false, 8));
    assert_int_equal (s_accept (conns, 13, 9), DROVER_CONN_SILENT);
    assert_int_equal (drover_conns_class (conns, 11), DROVER_CONN_EXCESS);
    assert_int_equal (drover_conns_class (conns, 12), DROVER_CONN_CLIENT);
    assert_int_equal (drover_conns_next_cut (conns, 9), 11);
    drover_conns_destroy (&conns);
}

//  Strangers never take the reserve: a newcomer then is on trial and
//  stays only as a member; past the limit it is excess, even a member
static void
test_reserve_is_kept_for_members (void **state)
{
    drover_conns_t *conns = s_conns_new (3, 1, 0);
    assert_int_equal (s_accept (conns, 10, 0), DROVER_CONN_SILENT);
    assert_int_equal (s_accept (conns, 11, 0), DROVER_CONN_SILENT);
    assert_null (s_admit (conns, 10, false, 1));
    assert_null (s_admit (conns, 11, false, 1));
    assert_true (drover_conns_full (conns));
    //  A client on trial is refused, and cut once told
    assert_int_equal (s_accept (conns, 12, 10), DROVER_CONN_TRIAL);
    assert_int_equal (drover_conns_deadline (conns), 1010);     //  the grace
    const char *reason = s_admit (conns, 12, false, 20);
    assert_non_null (reason);
    assert_non_null (strstr (reason, "too many connections"));
    assert_non_null (strstr (reason, "registered workers"));
    assert_int_equal (drover_conns_deadline (conns), 120);
    assert_non_null (s_admit (conns, 12, false, 50));   //  told once: still 120
    assert_int_equal (drover_conns_deadline (conns), 120);
    //  Past the limit: excess, refused even as a member
    assert_int_equal (s_accept (conns, 13, 30), DROVER_CONN_EXCESS);
    reason = s_admit (conns, 13, true, 40);
    assert_non_null (reason);
    assert_non_null (strstr (reason, "serves 3"));
    assert_int_equal (drover_conns_next_cut (conns, 120), 12);
    assert_int_equal (drover_conns_next_cut (conns, 140), 13);
    assert_int_equal (drover_conns_gone (conns, DROVER_CONNS_REFUSED), 2);
    drover_conns_closed (conns, 12);
    drover_conns_closed (conns, 13);
    //  A worker on trial registers: it is a member and stays
    assert_int_equal (s_accept (conns, 12, 200), DROVER_CONN_TRIAL);
    assert_null (s_admit (conns, 12, true, 210));
    assert_int_equal (drover_conns_class (conns, 12), DROVER_CONN_MEMBER);
    assert_int_equal (drover_conns_next_cut (conns, 5000), -1);
    //  A stranger that leaves frees a stranger's place: a trial takes it
    assert_int_equal (s_accept (conns, 13, 300), DROVER_CONN_EXCESS);
    drover_conns_closed (conns, 10);
    assert_null (s_admit (conns, 13, false, 310));
    assert_int_equal (drover_conns_class (conns, 13), DROVER_CONN_CLIENT);
    drover_conns_destroy (&conns);
}

//  A member leaves room for strangers: members count only against the limit
static void
test_members_leave_strangers_their_places (void **state)
{
    drover_conns_t *conns = s_conns_new (4, 1, 0);
    assert_int_equal (s_accept (conns, 10, 0), DROVER_CONN_SILENT);
    assert_null (s_admit (conns, 10, true, 1));
    for (int fd = 11; fd < 14; fd++) {
        assert_int_equal (s_accept (conns, fd, 2), DROVER_CONN_SILENT);
        assert_null (s_admit (conns, fd, false, 3));
    }
    assert_int_equal (drover_conns_class_count (conns, DROVER_CONN_MEMBER), 1);
    assert_int_equal (drover_conns_class_count (conns, DROVER_CONN_CLIENT), 3);
    assert_int_equal (s_accept (conns, 14, 4), DROVER_CONN_EXCESS);
    drover_conns_destroy (&conns);
}

//  Past half the spare, excess connections are cut at once
static void
test_spare_running_out_cuts_at_once (void **state)
{
    drover_conns_rules_t rules = { .fd_limit = 128, .limit = 1, .spare = 4, .grace = 1000,
                                   .told = 100 };
    drover_conns_t *conns = drover_conns_new (&rules);
    assert_int_equal (s_accept (conns, 5, 0), DROVER_CONN_SILENT);
    assert_int_equal (s_accept (conns, 6, 0), DROVER_CONN_EXCESS);
    assert_int_equal (s_accept (conns, 7, 0), DROVER_CONN_EXCESS);
    assert_int_equal (drover_conns_next_cut (conns, 0), -1);
    assert_int_equal (s_accept (conns, 8, 0), DROVER_CONN_EXCESS);
    assert_int_equal (drover_conns_next_cut (conns, 0), 8);
    for (int fd = 9; fd < 40; fd++)
        assert_int_equal (s_accept (conns, fd, 0), DROVER_CONN_EXCESS);
    assert_int_equal (drover_conns_count (conns), 35);
    assert_int_equal (drover_conns_next_cut (conns, 0), 9);
    drover_conns_destroy (&conns);
}

//  At most per_address strangers from one address: the next from there
//  is on trial (and hears why), while other addresses still get places;
//  a member from there does not count
static void
test_cap_per_address (void **state)
{
    drover_conns_t *conns = s_conns_new (10, 1, 2);
    assert_int_equal (drover_conns_accepted (conns, 10, "10.0.0.1", 1, false, 0),
                      DROVER_CONN_SILENT);
    assert_int_equal (drover_conns_accepted (conns, 11, "10.0.0.1", 2, false, 0),
                      DROVER_CONN_SILENT);
    assert_int_equal (drover_conns_accepted (conns, 12, "10.0.0.1", 3, false, 0),
                      DROVER_CONN_TRIAL);
    assert_int_equal (drover_conns_class (conns, 10), DROVER_CONN_SILENT);    //  none evicted
    assert_int_equal (drover_conns_accepted (conns, 13, "10.0.0.2", 1, false, 0),
                      DROVER_CONN_SILENT);
    const char *reason = s_admit (conns, 12, false, 1);
    assert_non_null (reason);
    assert_non_null (strstr (reason, "from 10.0.0.1"));
    assert_null (s_admit (conns, 10, true, 2));
    assert_int_equal (drover_conns_accepted (conns, 14, "10.0.0.1", 4, false, 3),
                      DROVER_CONN_SILENT);
    int port;
    assert_string_equal (drover_conns_address (conns, 14, &port), "10.0.0.1");
    assert_int_equal (port, 4);
    drover_conns_destroy (&conns);
}

//  Is a connection still there (for the audit): not fd 10
static bool
s_not_ten (int fd, const char *address, int port, void *arg)
{
    (*(int *) arg)++;
    return fd != 10;
}

//  A close nobody reported: found by an audit, or when its descriptor is
//  accepted again; either way it is counted once and its place is free
static void
test_unreported_close (void **state)
{
    drover_conns_t *conns = s_conns_new (2, 0, 0);
    assert_int_equal (s_accept (conns, 10, 0), DROVER_CONN_SILENT);
    assert_null (s_admit (conns, 10, false, 0));
    assert_int_equal (s_accept (conns, 11, 0), DROVER_CONN_SILENT);
    assert_null (s_admit (conns, 11, false, 0));
    assert_true (drover_conns_full (conns));
    int checked = 0;
    assert_int_equal (drover_conns_audit (conns, s_not_ten, &checked), 1);
    assert_int_equal (checked, 2);
    assert_int_equal (drover_conns_count (conns), 1);
    assert_false (drover_conns_full (conns));
    assert_int_equal (s_accept (conns, 11, 5), DROVER_CONN_SILENT);
    assert_int_equal (drover_conns_count (conns), 1);
    assert_int_equal (drover_conns_gone (conns, DROVER_CONNS_LOST), 2);
    //  Closes of unknown descriptors, and those out of range, change nothing
    drover_conns_closed (conns, 4);
    drover_conns_closed (conns, 9999);
    assert_int_equal (s_accept (conns, 9999, 5), DROVER_CONN_NONE);
    assert_int_equal (drover_conns_count (conns), 1);
    assert_null (s_admit (conns, 77, false, 5));    //  unknown: not ours to refuse
    drover_conns_destroy (&conns);
}

//  A message from another peer than the one a descriptor's connection
//  first heard (a late one from a connection gone) is served and changes
//  nothing: that connection stays silent and is cut in time
static void
test_another_route_changes_nothing (void **state)
{
    drover_conns_t *conns = s_conns_new (8, 1, 0);
    assert_int_equal (s_accept (conns, 10, 0), DROVER_CONN_SILENT);
    assert_true (drover_conns_same (conns, 10, 77));
    assert_false (drover_conns_same (conns, 11, 77));          //  none there
    assert_null (drover_conns_admit (conns, 10, 77, false, 1));
    assert_true (drover_conns_same (conns, 10, 77));
    assert_false (drover_conns_same (conns, 10, 78));
    assert_int_equal (s_accept (conns, 10, 2), DROVER_CONN_SILENT);    //  a new one there
    assert_true (drover_conns_same (conns, 10, 78));
    assert_null (drover_conns_admit (conns, 10, 78, false, 3));
    assert_null (drover_conns_admit (conns, 10, 77, true, 4));   //  the one gone: no member
    assert_int_equal (drover_conns_class (conns, 10), DROVER_CONN_CLIENT);
    drover_conns_destroy (&conns);
}

//  A broker standing by cuts nobody for silence and evicts nobody; once it
//  serves, the silent ones have the whole silent time from then
static void
test_silence_waits_for_serving (void **state)
{
    drover_conns_t *conns = s_conns_new (3, 1, 0);
    drover_conns_set_silent (conns, 0, 0);
    assert_int_equal (s_accept (conns, 10, 0), DROVER_CONN_SILENT);
    assert_int_equal (s_accept (conns, 11, 0), DROVER_CONN_SILENT);
    assert_int_equal (s_accept (conns, 12, 0), DROVER_CONN_TRIAL);
    assert_int_equal (drover_conns_next_cut (conns, 900), -1);
    assert_int_equal (drover_conns_next_cut (conns, 1000), 12);    //  the trial's grace
    assert_int_equal (drover_conns_deadline (conns), -1);
    drover_conns_set_silent (conns, 1000, 5000);
    assert_int_equal (drover_conns_deadline (conns), 6000);
    assert_int_equal (drover_conns_next_cut (conns, 6000), 10);
    assert_int_equal (drover_conns_next_cut (conns, 6000), 11);
    drover_conns_destroy (&conns);
}

//  Run every test
int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_silent_is_cut_after_the_silent_time),
        cmocka_unit_test (test_newcomer_evicts_the_oldest_silent),
        cmocka_unit_test (test_reserve_is_kept_for_members),
        cmocka_unit_test (test_members_leave_strangers_their_places),
        cmocka_unit_test (test_spare_running_out_cuts_at_once),
        cmocka_unit_test (test_cap_per_address),
        cmocka_unit_test (test_unreported_close),
        cmocka_unit_test (test_another_route_changes_nothing),
        cmocka_unit_test (test_silence_waits_for_serving),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
