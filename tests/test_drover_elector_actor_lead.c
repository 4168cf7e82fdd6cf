/*  =========================================================================
    test_drover_elector_actor_lead - the elector actor through its pipe,
    two of them against a real etcd started by the test
    (tests/etcd_server.sh): one leads and the other follows it; $TERM,
    RESIGN, a revoked lease and a paused etcd hand the lead over, and never
    are two leaders at once; a dead leader, an earlier run, the same name
    elsewhere, a malformed candidacy and bad arguments
    =========================================================================
*/

#include "testutil_elector.h"

//  Two electors (one given a dead etcd first in its list): exactly one
//  leads, the other follows it; PEERS lists both
static void
test_one_leads_the_other_follows (void **state)
{
    (void) state;
    testutil_elector_t electors [2];
    testutil_elector_start (&electors [0], "b1", "/t1", testutil_elector_etcd->url);
    //  Same prefix ('/' trimmed); a list whose first endpoint is dead
    char endpoints [160];
    snprintf (endpoints, sizeof endpoints, "http://127.0.0.1:%d,%s", testutil_free_port (),
              testutil_elector_etcd->url);
    testutil_elector_start (&electors [1], "b2", "/t1/", endpoints);
    testutil_elector_t *leader = testutil_elector_await_one_leads (electors, 5000);
    assert_int_equal (leader->leaders, 1);

    zstr_send (leader->actor, "PEERS");
    zmsg_t *peers = testutil_recv (zactor_sock (leader->actor), 2000);
    assert_non_null (peers);
    testutil_assert_and_free (zmsg_popstr (peers), "PEERS");
    testutil_assert_and_free (zmsg_popstr (peers), "2");
    for (int index = 0; index < 2; index++) {       //  by key: b1, then b2
        testutil_assert_and_free (zmsg_popstr (peers), electors [index].name);
        testutil_assert_and_free (zmsg_popstr (peers), electors [index].advertise);
        testutil_assert_and_free (zmsg_popstr (peers),
                                  electors [index].leader? "1": "0");
    }
    assert_int_equal (zmsg_size (peers), 0);
    zmsg_destroy (&peers);

    //  Nothing changes while both renew: nothing is said at all, and after
    //  twice the TTL etcd still holds both (their leases were renewed)
    assert_int_equal (testutil_elector_expect_quiet (electors, 2, TESTUTIL_ELECTOR_TTL * 2), 2);
    assert_int_equal (electors [0].deposed + electors [1].deposed, 0);
    assert_int_equal (electors [0].leaders + electors [1].leaders, 1);
    testutil_elector_stop_all (electors, 2);
}

//  $TERM the leader: the other leads within a second, with a higher token
static void
test_term_hands_over_at_once (void **state)
{
    (void) state;
    testutil_elector_t electors [2];
    testutil_elector_start (&electors [0], "b1", "/t2", testutil_elector_etcd->url);
    testutil_elector_start (&electors [1], "b2", "/t2", testutil_elector_etcd->url);
    testutil_elector_t *leader = testutil_elector_await_one_leads (electors, 5000);
    testutil_elector_t *follower = leader == &electors [0]? &electors [1]: &electors [0];
    uint64_t token = leader->token;
    int64_t stopped_at = zclock_mono ();
    zactor_destroy (&leader->actor);
    leader->leader = false;                 //  it stopped, so leads no more
    TESTUTIL_ELECTOR_AWAIT (follower, 1, follower->leader, 1000);
    int64_t took = zclock_mono () - stopped_at;
    assert_true (follower->token > token);
    printf ("elector: $TERM of the leader to LEADER of the other: %" PRId64 " ms\n", took);
    testutil_elector_stop_all (electors, 2);
}

//  RESIGN: the leader steps down at once and follows the other; it
//  campaigns again only after CAMPAIGN (and then leads when the other goes)
static void
test_resign_and_campaign (void **state)
{
    (void) state;
    testutil_elector_t electors [2];
    testutil_elector_start (&electors [0], "b1", "/t3", testutil_elector_etcd->url);
    testutil_elector_start (&electors [1], "b2", "/t3", testutil_elector_etcd->url);
    testutil_elector_t *leader = testutil_elector_await_one_leads (electors, 5000);
    testutil_elector_t *other = leader == &electors [0]? &electors [1]: &electors [0];
    zstr_send (leader->actor, "RESIGN");
    leader->leader = false;                 //  the main knows: no DEPOSED is said
    TESTUTIL_ELECTOR_AWAIT (electors, 2, other->leader && streq (leader->following, other->name),
                            2000);
    assert_int_equal (leader->deposed, 0);

    //  Not campaigning: when the leader goes, nobody leads
    zstr_send (other->actor, "PEERS");
    zmsg_t *peers = testutil_recv (zactor_sock (other->actor), 2000);
    testutil_assert_and_free (zmsg_popstr (peers), "PEERS");
    testutil_assert_and_free (zmsg_popstr (peers), "1");    //  the resigned one left
    zmsg_destroy (&peers);
    zactor_destroy (&other->actor);
    other->leader = false;
    TESTUTIL_ELECTOR_AWAIT (leader, 1, streq (leader->following, ""), 2000);
    assert_false (leader->leader);

    zstr_send (leader->actor, "CAMPAIGN");
    TESTUTIL_ELECTOR_AWAIT (leader, 1, leader->leader, 2000);
    testutil_elector_stop_all (electors, 2);
}

//  Revoke the leader's lease behind its back (as `etcdctl lease revoke`
//  does): it is DEPOSED, the other leads, and it campaigns and follows
static void
test_revoked_lease_deposes (void **state)
{
    (void) state;
    testutil_elector_t electors [2];
    testutil_elector_start (&electors [0], "b1", "/t4", testutil_elector_etcd->url);
    testutil_elector_start (&electors [1], "b2", "/t4", testutil_elector_etcd->url);
    testutil_elector_t *leader = testutil_elector_await_one_leads (electors, 5000);
    testutil_elector_t *other = leader == &electors [0]? &electors [1]: &electors [0];

    //  The leader's candidacy is the first: its key names the lease
    drover_etcd_t *etcd = drover_etcd_new (testutil_elector_etcd->url, 2000, NULL);
    zlistx_t *candidates = drover_etcd_range (etcd, "/t4/election/", true, 0);
    assert_non_null (candidates);
    assert_int_equal (zlistx_size (candidates), 2);
    drover_etcd_kv_t *first = (drover_etcd_kv_t *) zlistx_first (candidates);
    assert_int_equal ((uint64_t) first->create_revision, leader->token);
    int64_t lease = (int64_t) strtoull (first->key + strlen ("/t4/election/"), NULL, 16);
    assert_int_equal (lease, first->lease);
    zlistx_destroy (&candidates);
    int64_t revoked_at = zclock_mono ();
    leader->revoked = true;
    assert_int_equal (drover_etcd_revoke (etcd, lease), 1);
    drover_etcd_destroy (&etcd);

    TESTUTIL_ELECTOR_AWAIT (electors, 2, leader->deposed == 1, TESTUTIL_ELECTOR_TTL);
    assert_true (leader->deposed_at - revoked_at < TESTUTIL_ELECTOR_TTL / 2);
    TESTUTIL_ELECTOR_AWAIT (electors, 2, other->leader && streq (leader->following, other->name),
                            3000);
    testutil_elector_stop_all (electors, 2);
}

//  etcd paused: the leader cannot renew and says DEPOSED before its lease
//  could have run out; nobody leads meanwhile; after resume one leads again
static void
test_paused_etcd_deposes_in_time (void **state)
{
    (void) state;
    testutil_elector_t electors [2];
    testutil_elector_start (&electors [0], "b1", "/t5", testutil_elector_etcd->url);
    testutil_elector_start (&electors [1], "b2", "/t5", testutil_elector_etcd->url);
    testutil_elector_t *leader = testutil_elector_await_one_leads (electors, 5000);
    //  Let a few renewals go through, then pause: the last renewal was
    //  answered before the pause
    assert_int_equal (testutil_elector_expect_quiet (electors, 2, TESTUTIL_ELECTOR_TTL), 2);
    int64_t paused_at = zclock_mono ();
    testutil_etcd_signal (testutil_elector_etcd, "pause");
    TESTUTIL_ELECTOR_AWAIT (electors, 2, leader->deposed == 1, TESTUTIL_ELECTOR_TTL * 2);
    int64_t after = leader->deposed_at - paused_at;
    printf ("elector: DEPOSED %" PRId64 " ms after etcd was paused (%s)\n", after,
            leader->reason);
    assert_true (after < TESTUTIL_ELECTOR_TTL);             //  before the lease could expire
    assert_true (after >= TESTUTIL_ELECTOR_TTL - TESTUTIL_ELECTOR_TTL / 4
                          - TESTUTIL_ELECTOR_TTL / 3 - 100);    //  not before the deadline
    assert_string_equal (leader->reason, "lease not renewed in time");
    assert_false (electors [0].leader || electors [1].leader);
    testutil_etcd_signal (testutil_elector_etcd, "resume");
    TESTUTIL_ELECTOR_AWAIT (electors, 2,
                            (electors [0].leader && streq (electors [1].following, "b1"))
                         || (electors [1].leader && streq (electors [0].following,
                                                           "b2")), TESTUTIL_ELECTOR_TTL * 4);
    testutil_elector_stop_all (electors, 2);
}

//  Endpoints that are no URL: the elector says so in its log, leads nobody,
//  answers PEERS 0 and stops on $TERM; an etcd that is not there likewise
static void
test_bad_or_dead_etcd (void **state)
{
    (void) state;
    testutil_elector_t electors [2];
    testutil_elector_start (&electors [0], "b1", "/t6", "not-a-url");
    char dead [64];
    snprintf (dead, sizeof dead, "http://127.0.0.1:%d", testutil_free_port ());
    testutil_elector_start (&electors [1], "b2", "/t6", dead);
    for (int index = 0; index < 2; index++) {
        zstr_send (electors [index].actor, "PEERS");
        zmsg_t *peers = testutil_recv (zactor_sock (electors [index].actor), 2000);
        assert_non_null (peers);
        testutil_assert_and_free (zmsg_popstr (peers), "PEERS");
        testutil_assert_and_free (zmsg_popstr (peers), "0");
        zmsg_destroy (&peers);
    }
    assert_int_equal (testutil_elector_expect_quiet (electors, 2, 500), 0);
    int64_t before = zclock_mono ();
    testutil_elector_stop_all (electors, 2);
    assert_true (zclock_mono () - before < TESTUTIL_ELECTOR_TTL / 4 + 500);
}

//  A candidacy written by hand with the test's own lease, as a broker
//  named name would write it: its lease, renewed once just now
static int64_t
s_ghost_candidacy (drover_etcd_t *etcd, const char *prefix, const char *name,
                   const char *endpoint, int64_t ttl)
{
    int64_t lease;
    assert_int_equal (drover_etcd_grant (etcd, ttl, &lease, NULL), 0);
    char key [128], value [128];
    snprintf (key, sizeof key, "%s/election/%" PRIx64, prefix, (uint64_t) lease);
    snprintf (value, sizeof value, "%s\n%s", name, endpoint);
    assert_int_equal (drover_etcd_put (etcd, key, value, strlen (value), lease), 0);
    snprintf (key, sizeof key, "%s/brokers/%s", prefix, name);
    assert_int_equal (drover_etcd_put (etcd, key, endpoint, strlen (endpoint), lease), 0);
    return lease;
}

//  A leader that dies without a word (kill -9: its lease is no longer
//  renewed) is replaced once etcd expires its lease: not before, and soon
//  after (etcd checks expiry every 500 ms; the standby reads every 250 ms)
static void
test_dead_leader_replaced_after_its_lease (void **state)
{
    (void) state;
    drover_etcd_t *etcd = drover_etcd_new (testutil_elector_etcd->url, 2000, NULL);
    int64_t lease =
        s_ghost_candidacy (etcd, "/t7", "ghost", "tcp://127.0.0.1:1", TESTUTIL_ELECTOR_TTL / 1000);
    testutil_elector_t electors [1];
    testutil_elector_start (&electors [0], "b1", "/t7", testutil_elector_etcd->url);
    TESTUTIL_ELECTOR_AWAIT (electors, 1, streq (electors [0].following, "ghost"), 2000);
    assert_string_equal (electors [0].following_at, "tcp://127.0.0.1:1");
    //  Its last renewal; from now on it is dead
    int64_t renewed_at = zclock_mono ();
    assert_true (drover_etcd_keepalive (etcd, lease) > 0);
    drover_etcd_destroy (&etcd);
    TESTUTIL_ELECTOR_AWAIT (electors, 1, electors [0].leader, TESTUTIL_ELECTOR_TTL + 2000);
    int64_t took = zclock_mono () - renewed_at;
    printf ("elector: last renewal of a dead leader (TTL %d ms) to LEADER of the standby:"
            " %" PRId64 " ms\n", TESTUTIL_ELECTOR_TTL, took);
    assert_true (took >= TESTUTIL_ELECTOR_TTL - 100);
    assert_true (took < TESTUTIL_ELECTOR_TTL + 1500);
    testutil_elector_stop_all (electors, 1);
}

//  A broker killed and started again finds its earlier run's candidacy
//  first: it revokes that lease and leads at once, without following
//  itself or waiting for the lease to expire
static void
test_restart_revokes_its_earlier_run (void **state)
{
    (void) state;
    drover_etcd_t *etcd = drover_etcd_new (testutil_elector_etcd->url, 2000, NULL);
    char advertise [64];
    snprintf (advertise, sizeof advertise, "tcp://127.0.0.1:%d", testutil_free_port ());
    int64_t lease = s_ghost_candidacy (etcd, "/t8", "b1", advertise, 60);
    testutil_elector_t electors [1];
    int64_t started_at = zclock_mono ();
    testutil_elector_start_at (&electors [0], "b1", advertise, "/t8", testutil_elector_etcd->url);
    TESTUTIL_ELECTOR_AWAIT (electors, 1, electors [0].leader, 2000);
    assert_true (zclock_mono () - started_at < 1000);
    assert_int_equal (electors [0].follows, 0);         //  never followed itself
    assert_int_equal (drover_etcd_keepalive (etcd, lease), DROVER_ETCD_GONE);
    drover_etcd_destroy (&etcd);
    testutil_elector_stop_all (electors, 1);
}

//  Another broker given our name at another endpoint is not an earlier run:
//  its lease is not revoked (the two would take the lead from each other
//  over and over); the newcomer follows it and leads only once it is gone
static void
test_same_name_elsewhere_stands_aside (void **state)
{
    (void) state;
    drover_etcd_t *etcd = drover_etcd_new (testutil_elector_etcd->url, 2000, NULL);
    int64_t lease = s_ghost_candidacy (etcd, "/t10", "b1", "tcp://127.0.0.1:1", 60);
    testutil_elector_t electors [1];
    testutil_elector_start (&electors [0], "b1", "/t10", testutil_elector_etcd->url);
    TESTUTIL_ELECTOR_AWAIT (electors, 1, electors [0].follows >= 1, 2000);
    assert_string_equal (electors [0].following, "b1");
    assert_string_equal (electors [0].following_at, "tcp://127.0.0.1:1");
    //  A TTL and more later it has tried again, and still stands aside
    int64_t until = zclock_mono () + TESTUTIL_ELECTOR_TTL + 500;
    while (zclock_mono () < until)
        testutil_elector_pump (electors, 1, (int) (until - zclock_mono ()));
    int said = 0;
    testutil_elector_barrier (electors, 1, &electors [0], &said);     //  all it said by then, noted
    assert_int_equal (electors [0].leaders, 0);
    assert_true (drover_etcd_keepalive (etcd, lease) > 0);      //  never revoked
    assert_int_equal (drover_etcd_revoke (etcd, lease), 1);
    TESTUTIL_ELECTOR_AWAIT (electors, 1, electors [0].leader, TESTUTIL_ELECTOR_TTL + 2000);
    drover_etcd_destroy (&etcd);
    testutil_elector_stop_all (electors, 1);
}

//  A first candidacy that is not "name\nendpoint" names no leader: the
//  standby says FOLLOW "" "" (and does not lead), until it goes
static void
test_malformed_candidacy_names_nobody (void **state)
{
    (void) state;
    drover_etcd_t *etcd = drover_etcd_new (testutil_elector_etcd->url, 2000, NULL);
    int64_t lease;
    assert_int_equal (drover_etcd_grant (etcd, 60, &lease, NULL), 0);
    assert_int_equal (drover_etcd_put (etcd, "/t9/election/0", "garbage", 7, lease), 0);
    testutil_elector_t electors [1];
    testutil_elector_start (&electors [0], "b1", "/t9", testutil_elector_etcd->url);
    TESTUTIL_ELECTOR_AWAIT (electors, 1, electors [0].follows == 1, 2000);
    assert_string_equal (electors [0].following, "");
    assert_string_equal (electors [0].following_at, "");
    assert_false (electors [0].leader);
    assert_int_equal (drover_etcd_revoke (etcd, lease), 1);
    TESTUTIL_ELECTOR_AWAIT (electors, 1, electors [0].leader, 2000);
    drover_etcd_destroy (&etcd);
    testutil_elector_stop_all (electors, 1);
}

//  Args that cannot work are refused with a message naming the fault; an
//  elector started with them campaigns not at all
static void
test_args_check (void **state)
{
    (void) state;
    drover_elector_actor_args_t good = {
        .etcd = "http://127.0.0.1:2379", .prefix = "/drover", .name = "b1",
        .advertise = "tcp://127.0.0.1:5555", .ttl = 2000
    };
    char *error = NULL;
    assert_int_equal (drover_elector_actor_args_check (&good, &error), 0);
    assert_null (error);
    char long_name [80];
    memset (long_name, 'n', sizeof long_name - 1);
    long_name [sizeof long_name - 1] = 0;
    char long_queue [80];                   //  a 65-byte queue name
    memset (long_queue, 'q', 65);
    snprintf (long_queue + 65, sizeof long_queue - 65, " tcp://x:1");
    good.queues = "a tcp://x:1\nb.c_D-9 tcp://y:2";
    good.strategy = "spread";
    assert_int_equal (drover_elector_actor_args_check (&good, &error), 0);
    good.strategy = "leader";
    assert_int_equal (drover_elector_actor_args_check (&good, &error), 0);
    assert_null (error);
    struct { const char *field, *value, *message; } bad [] = {
        { "etcd", "127.0.0.1:2379", "not an http://" },
        { "etcd", NULL, "no endpoint" },
        { "name", "", "broker name" },
        { "name", NULL, "broker name" },
        { "name", "a/b", "broker name" },
        { "name", "a\nb", "broker name" },
        { "name", long_name, "broker name" },
        { "advertise", "tcp://x\n", "advertise" },
        { "ttl", NULL, "TTL" },
        { "queues", "a", "queue line" },
        { "queues", "a ", "queue line" },
        { "queues", " tcp://x:1", "queue line" },
        { "queues", "a/b tcp://x:1", "queue line" },
        { "queues", "a tcp://x:1 y", "queue line" },
        { "queues", "a tcp://x:1,tcp://y:1", "queue line" },
        { "queues", "a tcp://x:1\x7f", "queue line" },
        { "queues", "a tcp://x:1\n\nb tcp://y:1", "queue line" },
        { "queues", "a tcp://x:1\n", "end with a newline" },
        { "queues", "a tcp://x:1\na tcp://y:1", "offered twice" },
        { "queues", long_queue, "queue line" },
        { "strategy", "nearest", "strategy" },
    };
    for (size_t index = 0; index < sizeof bad / sizeof bad [0]; index++) {
        drover_elector_actor_args_t args = good;
        if (streq (bad [index].field, "etcd"))
            args.etcd = bad [index].value;
        else
        if (streq (bad [index].field, "name"))
            args.name = bad [index].value;
        else
        if (streq (bad [index].field, "advertise"))
            args.advertise = bad [index].value;
        else
        if (streq (bad [index].field, "queues"))
            args.queues = bad [index].value;
        else
        if (streq (bad [index].field, "strategy"))
            args.strategy = bad [index].value;
        else
            args.ttl = 0;
        assert_int_equal (drover_elector_actor_args_check (&args, &error), -1);
        assert_non_null (error);
        if (!strstr (error, bad [index].message))
            fail_msg ("%s: \"%s\" does not say \"%s\"", bad [index].field, error,
                      bad [index].message);
        zstr_free (&error);
        assert_int_equal (drover_elector_actor_args_check (&args, NULL), -1);
    }
    //  Started anyway, with the group's real etcd but a bad name: no campaign
    testutil_elector_t electors [1];
    testutil_elector_start (&electors [0], "a/b", "/t10", testutil_elector_etcd->url);
    zstr_send (electors [0].actor, "PEERS");
    zmsg_t *peers = testutil_recv (zactor_sock (electors [0].actor), 2000);
    testutil_assert_and_free (zmsg_popstr (peers), "PEERS");
    testutil_assert_and_free (zmsg_popstr (peers), "0");
    zmsg_destroy (&peers);
    assert_int_equal (testutil_elector_expect_quiet (electors, 1, 500), 0);
    testutil_elector_stop_all (electors, 1);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_one_leads_the_other_follows),
        cmocka_unit_test (test_term_hands_over_at_once),
        cmocka_unit_test (test_resign_and_campaign),
        cmocka_unit_test (test_revoked_lease_deposes),
        cmocka_unit_test (test_paused_etcd_deposes_in_time),
        cmocka_unit_test (test_bad_or_dead_etcd),
        cmocka_unit_test (test_dead_leader_replaced_after_its_lease),
        cmocka_unit_test (test_restart_revokes_its_earlier_run),
        cmocka_unit_test (test_same_name_elsewhere_stands_aside),
        cmocka_unit_test (test_malformed_candidacy_names_nobody),
        cmocka_unit_test (test_args_check),
    };
    int failed = cmocka_run_group_tests (tests, testutil_elector_group_setup, NULL);
    testutil_etcd_stop (&testutil_elector_etcd, failed != 0);
    return failed;
}
