/*  =========================================================================
    test_drover_elector - the elector actor through its pipe, two of them
    against a real etcd started by the test (tests/etcd_server.sh): one
    leads and the other follows it; $TERM, RESIGN, a revoked lease and a
    paused etcd hand the lead over, and never are two leaders at once.
    Named queues: both hear the same owners and tokens (spread two and
    two, or all on the leader), the survivor takes a $TERMed one's queues,
    and an owner whose etcd is paused says so before its deadline
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_servers.h"
#include "drover_elector_actor.h"
#include "drover_etcd.h"

//  The lease TTL the electors are started with, msec (etcd's least is 2 s)
#define S_TTL       2000

//  The etcd every test of this file uses (each test has its own prefix)
static testutil_etcd_t *s_etcd = NULL;

//  The named queues the queue tests offer
#define S_QUEUES    4
static const char *s_queue_names [S_QUEUES] = { "a", "b", "c", "d" };

//  What an elector last said of one named queue
typedef struct {
    char owner [16];            //  its owner, "" for none
    char owner_at [64];         //  the owner's endpoint for it
    uint64_t token;             //  its token
    char endpoints [160];       //  every member's endpoint for it
    int said;                   //  QUEUEs said of it
    int released;               //  QUEUEs naming no owner after one naming this elector
    int64_t released_at;        //  msec (mono) the last such was read
    int released_seq;           //  its place among every message read (s_seq)
} s_queue_t;

//  Messages read from all electors so far: the order they were said in
static int s_seq = 0;

//  One elector under test and what it said
typedef struct {
    zactor_t *actor;            //  the elector
    char name [16];             //  its broker name
    char advertise [64];        //  its endpoint
    bool leader;                //  said LEADER, no DEPOSED since
    bool revoked;               //  its lease was revoked behind its back: it does not
                                //  know until its next renewal or read, so another
                                //  may lead before its DEPOSED (fencing's case)
    uint64_t token;             //  the token of its last LEADER
    int leaders;                //  LEADERs said
    int deposed;                //  DEPOSEDs said
    int64_t deposed_at;         //  msec (mono) its last DEPOSED was read
    char reason [128];          //  the reason of its last DEPOSED
    char following [64];        //  the name of its last FOLLOW
    char following_at [64];     //  the endpoint of its last FOLLOW
    int follows;                //  FOLLOWs said
    int deposed_seq;            //  its last DEPOSED's place among every message read
    s_queue_t queues [S_QUEUES];    //  what it said of each named queue
} s_elector_t;

//  Start etcd for the group
static int
s_group_setup (void **state)
{
    (void) state;
    s_etcd = testutil_etcd_start ();
    return 0;
}

//  Start an elector named name, reached at advertise, with key prefix
//  prefix, offering queues ("Q EP" lines, or NULL) placed by strategy
static void
s_start_full (s_elector_t *elector, const char *name, const char *advertise,
              const char *prefix, const char *etcd, const char *queues, const char *strategy)
{
    memset (elector, 0, sizeof *elector);
    snprintf (elector->name, sizeof elector->name, "%s", name);
    snprintf (elector->advertise, sizeof elector->advertise, "%s", advertise);
    drover_elector_actor_args_t args = {
        .etcd = etcd, .prefix = prefix, .name = name, .advertise = elector->advertise,
        .ttl = S_TTL, .verbose = false, .queues = queues, .strategy = strategy
    };
    elector->actor = zactor_new (drover_elector_actor, &args);
    assert_non_null (elector->actor);
}

//  Start an elector named name, reached at advertise, with key prefix prefix
static void
s_start_at (s_elector_t *elector, const char *name, const char *advertise, const char *prefix,
            const char *etcd)
{
    s_start_full (elector, name, advertise, prefix, etcd, NULL, NULL);
}

//  The endpoint broker name serves queue on, in the queue tests
static void
s_queue_endpoint (char *endpoint, size_t size, const char *name, const char *queue)
{
    snprintf (endpoint, size, "tcp://%s-%s:1", name, queue);
}

//  Start an elector named name offering the queues a b c d, placed by strategy
static void
s_start_queues (s_elector_t *elector, const char *name, const char *prefix,
                const char *strategy)
{
    char queues [256] = "";
    for (size_t index = 0; index < S_QUEUES; index++) {
        char endpoint [64];
        s_queue_endpoint (endpoint, sizeof endpoint, name, s_queue_names [index]);
        size_t length = strlen (queues);
        snprintf (queues + length, sizeof queues - length, "%s%s %s", index? "\n": "",
                  s_queue_names [index], endpoint);
    }
    char advertise [64];
    snprintf (advertise, sizeof advertise, "tcp://127.0.0.1:%d", testutil_free_port ());
    s_start_full (elector, name, advertise, prefix, s_etcd->url, queues, strategy);
}

//  Note a QUEUE name owner owner_endpoint token endpoints
static void
s_note_queue (s_elector_t *elector, zmsg_t *msg)
{
    char *name = zmsg_popstr (msg);
    char *owner = zmsg_popstr (msg);
    char *owner_at = zmsg_popstr (msg);
    char *token = zmsg_popstr (msg);
    char *endpoints = zmsg_popstr (msg);
    assert_non_null (endpoints);
    assert_int_equal (zmsg_size (msg), 0);
    s_queue_t *queue = NULL;
    for (size_t index = 0; index < S_QUEUES; index++)
        if (streq (name, s_queue_names [index]))
            queue = &elector->queues [index];
    if (!queue)
        fail_msg ("%s says QUEUE of unknown %s", elector->name, name);
    //  No owner means no endpoint and token 0; an owner has a token
    assert_true (*owner? *owner_at && strneq (token, "0"): !*owner_at && streq (token, "0"));
    if (!*owner && streq (queue->owner, elector->name)) {
        queue->released++;
        queue->released_at = zclock_mono ();
        queue->released_seq = s_seq;
    }
    snprintf (queue->owner, sizeof queue->owner, "%s", owner);
    snprintf (queue->owner_at, sizeof queue->owner_at, "%s", owner_at);
    queue->token = strtoull (token, NULL, 10);
    snprintf (queue->endpoints, sizeof queue->endpoints, "%s", endpoints);
    queue->said++;
    zstr_free (&name);
    zstr_free (&owner);
    zstr_free (&owner_at);
    zstr_free (&token);
    zstr_free (&endpoints);
}

//  Start an elector named name with key prefix prefix, on a port of its own
static void
s_start (s_elector_t *elector, const char *name, const char *prefix, const char *etcd)
{
    char advertise [64];
    snprintf (advertise, sizeof advertise, "tcp://127.0.0.1:%d", testutil_free_port ());
    s_start_at (elector, name, advertise, prefix, etcd);
}

//  Note one message an elector said; a LEADER while another leads fails
static void
s_note (s_elector_t *electors, size_t count, s_elector_t *elector, zmsg_t *msg)
{
    char *command = zmsg_popstr (msg);
    assert_non_null (command);
    s_seq++;
    if (streq (command, "QUEUE"))
        s_note_queue (elector, msg);
    else
    if (streq (command, "LEADER")) {
        char *token = zmsg_popstr (msg);
        assert_non_null (token);
        for (size_t index = 0; index < count; index++)
            if (&electors [index] != elector && electors [index].leader
            &&  !electors [index].revoked)
                fail_msg ("%s says LEADER while %s leads", elector->name, electors [index].name);
        assert_false (elector->leader);         //  said once per win
        elector->leader = true;
        elector->token = strtoull (token, NULL, 10);
        assert_true (elector->token > 0);
        elector->leaders++;
        zstr_free (&token);
    }
    else
    if (streq (command, "DEPOSED")) {
        char *reason = zmsg_popstr (msg);
        assert_non_null (reason);
        assert_true (elector->leader);          //  only a leader is deposed
        elector->leader = false;
        elector->deposed++;
        elector->deposed_at = zclock_mono ();
        elector->deposed_seq = s_seq;
        snprintf (elector->reason, sizeof elector->reason, "%s", reason);
        zstr_free (&reason);
    }
    else
    if (streq (command, "FOLLOW")) {
        char *name = zmsg_popstr (msg);
        char *endpoint = zmsg_popstr (msg);
        assert_non_null (endpoint);
        assert_false (elector->leader);         //  a leader follows nobody
        snprintf (elector->following, sizeof elector->following, "%s", name);
        snprintf (elector->following_at, sizeof elector->following_at, "%s", endpoint);
        elector->follows++;
        zstr_free (&name);
        zstr_free (&endpoint);
    }
    else
        fail_msg ("unexpected %s from %s", command, elector->name);
    zstr_free (&command);
}

//  Read what waits from every elector but except, without waiting
static void
s_drain_others (s_elector_t *electors, size_t count, s_elector_t *except)
{
    for (size_t index = 0; index < count; index++) {
        if (&electors [index] == except)
            continue;
        zmsg_t *msg;
        while ((msg = testutil_recv (zactor_sock (electors [index].actor), 0))) {
            s_note (electors, count, &electors [index], msg);
            zmsg_destroy (&msg);
        }
    }
}

//  Read one message from any elector within timeout msec; false if none.
//  Before a message from one, what the others said earlier is read, so a
//  LEADER is judged after any DEPOSED said before it.
static bool
s_pump (s_elector_t *electors, size_t count, int timeout)
{
    zpoller_t *poller = zpoller_new (NULL);
    for (size_t index = 0; index < count; index++)
        zpoller_add (poller, electors [index].actor);
    void *which = zpoller_wait (poller, timeout);
    zpoller_destroy (&poller);
    for (size_t index = 0; index < count && which; index++) {
        if (which != electors [index].actor)
            continue;
        zmsg_t *msg = zmsg_recv (which);
        assert_non_null (msg);
        s_drain_others (electors, count, &electors [index]);
        s_note (electors, count, &electors [index], msg);
        zmsg_destroy (&msg);
        return true;
    }
    return false;
}

//  Read from the electors until condition holds, failing after timeout msec
#define S_AWAIT(electors, count, condition, timeout) do { \
    int64_t s_deadline = zclock_mono () + (timeout); \
    while (!(condition)) { \
        int64_t s_left = s_deadline - zclock_mono (); \
        if (s_left <= 0 || !s_pump ((electors), (count), (int) s_left)) \
            fail_msg ("timed out waiting for: %s", #condition); \
    } \
} while (0)

//  The barrier of one elector's pipe: PEERS is answered in order, after
//  everything it said before. Ask it, note each message before the answer
//  (s_note), and return the answer's count of peers (its first field
//  after the word; "0" when etcd did not answer); *said_p: the messages
//  noted before it
static int
s_barrier (s_elector_t *electors, size_t count, s_elector_t *elector, int *said_p)
{
    zstr_send (elector->actor, "PEERS");
    *said_p = 0;
    int64_t deadline = zclock_mono () + 5000;
    while (true) {
        int left = (int) (deadline - zclock_mono ());
        zmsg_t *msg = left > 0? testutil_recv (zactor_sock (elector->actor), left): NULL;
        if (!msg)
            fail_msg ("%s did not answer PEERS within 5 s", elector->name);
        char *word = zframe_strdup (zmsg_first (msg));
        bool peers = streq (word, "PEERS");
        zstr_free (&word);
        if (peers) {
            char *first = zmsg_popstr (msg);
            zstr_free (&first);
            char *number = zmsg_popstr (msg);
            int peers_count = number? atoi (number): -1;
            zstr_free (&number);
            zmsg_destroy (&msg);
            return peers_count;
        }
        s_note (electors, count, elector, msg);
        zmsg_destroy (&msg);
        (*said_p)++;
    }
}

//  Nothing is said for msec (it would fail at once), nor up to each
//  elector's barrier after: what was due in that time, from a renewal or
//  a read of etcd, had been said by then. Returns the peers the last
//  elector's PEERS answer lists (its look at etcd after that time)
static int
s_expect_quiet (s_elector_t *electors, size_t count, int msec)
{
    if (s_pump (electors, count, msec))
        fail_msg ("an elector said something within %d msec", msec);
    int peers = 0;
    for (size_t index = 0; index < count; index++) {
        int said = 0;
        peers = s_barrier (electors, count, &electors [index], &said);
        if (said)
            fail_msg ("%s said %d messages before the barrier", electors [index].name, said);
    }
    return peers;
}

//  Stop the electors that are still running
static void
s_stop_all (s_elector_t *electors, size_t count)
{
    for (size_t index = 0; index < count; index++)
        zactor_destroy (&electors [index].actor);
}

//  Which of two electors leads (asserts exactly one does)
static s_elector_t *
s_the_leader (s_elector_t *electors)
{
    assert_true (electors [0].leader != electors [1].leader);
    return electors [0].leader? &electors [0]: &electors [1];
}

//  Wait until one of two leads and the other follows it
static s_elector_t *
s_await_one_leads (s_elector_t *electors, int timeout)
{
    S_AWAIT (electors, 2,
             (electors [0].leader && streq (electors [1].following, electors [0].name))
          || (electors [1].leader && streq (electors [0].following, electors [1].name)),
             timeout);
    s_elector_t *leader = s_the_leader (electors);
    s_elector_t *follower = leader == &electors [0]? &electors [1]: &electors [0];
    assert_string_equal (follower->following_at, leader->advertise);
    return leader;
}

//  Two electors (one given a dead etcd first in its list): exactly one
//  leads, the other follows it; PEERS lists both
static void
test_one_leads_the_other_follows (void **state)
{
    (void) state;
    s_elector_t electors [2];
    s_start (&electors [0], "b1", "/t1", s_etcd->url);
    //  Same prefix ('/' trimmed); a list whose first endpoint is dead
    char endpoints [160];
    snprintf (endpoints, sizeof endpoints, "http://127.0.0.1:%d,%s", testutil_free_port (),
              s_etcd->url);
    s_start (&electors [1], "b2", "/t1/", endpoints);
    s_elector_t *leader = s_await_one_leads (electors, 5000);
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
    assert_int_equal (s_expect_quiet (electors, 2, S_TTL * 2), 2);
    assert_int_equal (electors [0].deposed + electors [1].deposed, 0);
    assert_int_equal (electors [0].leaders + electors [1].leaders, 1);
    s_stop_all (electors, 2);
}

//  $TERM the leader: the other leads within a second, with a higher token
static void
test_term_hands_over_at_once (void **state)
{
    (void) state;
    s_elector_t electors [2];
    s_start (&electors [0], "b1", "/t2", s_etcd->url);
    s_start (&electors [1], "b2", "/t2", s_etcd->url);
    s_elector_t *leader = s_await_one_leads (electors, 5000);
    s_elector_t *follower = leader == &electors [0]? &electors [1]: &electors [0];
    uint64_t token = leader->token;
    int64_t stopped_at = zclock_mono ();
    zactor_destroy (&leader->actor);
    leader->leader = false;                 //  it stopped, so leads no more
    S_AWAIT (follower, 1, follower->leader, 1000);
    int64_t took = zclock_mono () - stopped_at;
    assert_true (follower->token > token);
    printf ("elector: $TERM of the leader to LEADER of the other: %" PRId64 " ms\n", took);
    s_stop_all (electors, 2);
}

//  RESIGN: the leader steps down at once and follows the other; it
//  campaigns again only after CAMPAIGN (and then leads when the other goes)
static void
test_resign_and_campaign (void **state)
{
    (void) state;
    s_elector_t electors [2];
    s_start (&electors [0], "b1", "/t3", s_etcd->url);
    s_start (&electors [1], "b2", "/t3", s_etcd->url);
    s_elector_t *leader = s_await_one_leads (electors, 5000);
    s_elector_t *other = leader == &electors [0]? &electors [1]: &electors [0];
    zstr_send (leader->actor, "RESIGN");
    leader->leader = false;                 //  the main knows: no DEPOSED is said
    S_AWAIT (electors, 2, other->leader && streq (leader->following, other->name), 2000);
    assert_int_equal (leader->deposed, 0);

    //  Not campaigning: when the leader goes, nobody leads
    zstr_send (other->actor, "PEERS");
    zmsg_t *peers = testutil_recv (zactor_sock (other->actor), 2000);
    testutil_assert_and_free (zmsg_popstr (peers), "PEERS");
    testutil_assert_and_free (zmsg_popstr (peers), "1");    //  the resigned one left
    zmsg_destroy (&peers);
    zactor_destroy (&other->actor);
    other->leader = false;
    S_AWAIT (leader, 1, streq (leader->following, ""), 2000);
    assert_false (leader->leader);

    zstr_send (leader->actor, "CAMPAIGN");
    S_AWAIT (leader, 1, leader->leader, 2000);
    s_stop_all (electors, 2);
}

//  Revoke the leader's lease behind its back (as `etcdctl lease revoke`
//  does): it is DEPOSED, the other leads, and it campaigns and follows
static void
test_revoked_lease_deposes (void **state)
{
    (void) state;
    s_elector_t electors [2];
    s_start (&electors [0], "b1", "/t4", s_etcd->url);
    s_start (&electors [1], "b2", "/t4", s_etcd->url);
    s_elector_t *leader = s_await_one_leads (electors, 5000);
    s_elector_t *other = leader == &electors [0]? &electors [1]: &electors [0];

    //  The leader's candidacy is the first: its key names the lease
    drover_etcd_t *etcd = drover_etcd_new (s_etcd->url, 2000, NULL);
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

    S_AWAIT (electors, 2, leader->deposed == 1, S_TTL);
    assert_true (leader->deposed_at - revoked_at < S_TTL / 2);
    S_AWAIT (electors, 2, other->leader && streq (leader->following, other->name), 3000);
    s_stop_all (electors, 2);
}

//  etcd paused: the leader cannot renew and says DEPOSED before its lease
//  could have run out; nobody leads meanwhile; after resume one leads again
static void
test_paused_etcd_deposes_in_time (void **state)
{
    (void) state;
    s_elector_t electors [2];
    s_start (&electors [0], "b1", "/t5", s_etcd->url);
    s_start (&electors [1], "b2", "/t5", s_etcd->url);
    s_elector_t *leader = s_await_one_leads (electors, 5000);
    //  Let a few renewals go through, then pause: the last renewal was
    //  answered before the pause
    assert_int_equal (s_expect_quiet (electors, 2, S_TTL), 2);
    int64_t paused_at = zclock_mono ();
    testutil_etcd_signal (s_etcd, "pause");
    S_AWAIT (electors, 2, leader->deposed == 1, S_TTL * 2);
    int64_t after = leader->deposed_at - paused_at;
    printf ("elector: DEPOSED %" PRId64 " ms after etcd was paused (%s)\n", after,
            leader->reason);
    assert_true (after < S_TTL);                    //  before the lease could expire
    assert_true (after >= S_TTL - S_TTL / 4 - S_TTL / 3 - 100);     //  not before the deadline
    assert_string_equal (leader->reason, "lease not renewed in time");
    assert_false (electors [0].leader || electors [1].leader);
    testutil_etcd_signal (s_etcd, "resume");
    S_AWAIT (electors, 2,
             (electors [0].leader && streq (electors [1].following, "b1"))
          || (electors [1].leader && streq (electors [0].following, "b2")), S_TTL * 4);
    s_stop_all (electors, 2);
}

//  Endpoints that are no URL: the elector says so in its log, leads nobody,
//  answers PEERS 0 and stops on $TERM; an etcd that is not there likewise
static void
test_bad_or_dead_etcd (void **state)
{
    (void) state;
    s_elector_t electors [2];
    s_start (&electors [0], "b1", "/t6", "not-a-url");
    char dead [64];
    snprintf (dead, sizeof dead, "http://127.0.0.1:%d", testutil_free_port ());
    s_start (&electors [1], "b2", "/t6", dead);
    for (int index = 0; index < 2; index++) {
        zstr_send (electors [index].actor, "PEERS");
        zmsg_t *peers = testutil_recv (zactor_sock (electors [index].actor), 2000);
        assert_non_null (peers);
        testutil_assert_and_free (zmsg_popstr (peers), "PEERS");
        testutil_assert_and_free (zmsg_popstr (peers), "0");
        zmsg_destroy (&peers);
    }
    assert_int_equal (s_expect_quiet (electors, 2, 500), 0);
    int64_t before = zclock_mono ();
    s_stop_all (electors, 2);
    assert_true (zclock_mono () - before < S_TTL / 4 + 500);
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
    drover_etcd_t *etcd = drover_etcd_new (s_etcd->url, 2000, NULL);
    int64_t lease = s_ghost_candidacy (etcd, "/t7", "ghost", "tcp://127.0.0.1:1", S_TTL / 1000);
    s_elector_t electors [1];
    s_start (&electors [0], "b1", "/t7", s_etcd->url);
    S_AWAIT (electors, 1, streq (electors [0].following, "ghost"), 2000);
    assert_string_equal (electors [0].following_at, "tcp://127.0.0.1:1");
    //  Its last renewal; from now on it is dead
    int64_t renewed_at = zclock_mono ();
    assert_true (drover_etcd_keepalive (etcd, lease) > 0);
    drover_etcd_destroy (&etcd);
    S_AWAIT (electors, 1, electors [0].leader, S_TTL + 2000);
    int64_t took = zclock_mono () - renewed_at;
    printf ("elector: last renewal of a dead leader (TTL %d ms) to LEADER of the standby:"
            " %" PRId64 " ms\n", S_TTL, took);
    assert_true (took >= S_TTL - 100);
    assert_true (took < S_TTL + 1500);
    s_stop_all (electors, 1);
}

//  A broker killed and started again finds its earlier run's candidacy
//  first: it revokes that lease and leads at once, without following
//  itself or waiting for the lease to expire
static void
test_restart_revokes_its_earlier_run (void **state)
{
    (void) state;
    drover_etcd_t *etcd = drover_etcd_new (s_etcd->url, 2000, NULL);
    char advertise [64];
    snprintf (advertise, sizeof advertise, "tcp://127.0.0.1:%d", testutil_free_port ());
    int64_t lease = s_ghost_candidacy (etcd, "/t8", "b1", advertise, 60);
    s_elector_t electors [1];
    int64_t started_at = zclock_mono ();
    s_start_at (&electors [0], "b1", advertise, "/t8", s_etcd->url);
    S_AWAIT (electors, 1, electors [0].leader, 2000);
    assert_true (zclock_mono () - started_at < 1000);
    assert_int_equal (electors [0].follows, 0);         //  never followed itself
    assert_int_equal (drover_etcd_keepalive (etcd, lease), DROVER_ETCD_GONE);
    drover_etcd_destroy (&etcd);
    s_stop_all (electors, 1);
}

//  Another broker given our name at another endpoint is not an earlier run:
//  its lease is not revoked (the two would take the lead from each other
//  over and over); the newcomer follows it and leads only once it is gone
static void
test_same_name_elsewhere_stands_aside (void **state)
{
    (void) state;
    drover_etcd_t *etcd = drover_etcd_new (s_etcd->url, 2000, NULL);
    int64_t lease = s_ghost_candidacy (etcd, "/t10", "b1", "tcp://127.0.0.1:1", 60);
    s_elector_t electors [1];
    s_start (&electors [0], "b1", "/t10", s_etcd->url);
    S_AWAIT (electors, 1, electors [0].follows >= 1, 2000);
    assert_string_equal (electors [0].following, "b1");
    assert_string_equal (electors [0].following_at, "tcp://127.0.0.1:1");
    //  A TTL and more later it has tried again, and still stands aside
    int64_t until = zclock_mono () + S_TTL + 500;
    while (zclock_mono () < until)
        s_pump (electors, 1, (int) (until - zclock_mono ()));
    int said = 0;
    s_barrier (electors, 1, &electors [0], &said);     //  all it said by then, noted
    assert_int_equal (electors [0].leaders, 0);
    assert_true (drover_etcd_keepalive (etcd, lease) > 0);      //  never revoked
    assert_int_equal (drover_etcd_revoke (etcd, lease), 1);
    S_AWAIT (electors, 1, electors [0].leader, S_TTL + 2000);
    drover_etcd_destroy (&etcd);
    s_stop_all (electors, 1);
}

//  A first candidacy that is not "name\nendpoint" names no leader: the
//  standby says FOLLOW "" "" (and does not lead), until it goes
static void
test_malformed_candidacy_names_nobody (void **state)
{
    (void) state;
    drover_etcd_t *etcd = drover_etcd_new (s_etcd->url, 2000, NULL);
    int64_t lease;
    assert_int_equal (drover_etcd_grant (etcd, 60, &lease, NULL), 0);
    assert_int_equal (drover_etcd_put (etcd, "/t9/election/0", "garbage", 7, lease), 0);
    s_elector_t electors [1];
    s_start (&electors [0], "b1", "/t9", s_etcd->url);
    S_AWAIT (electors, 1, electors [0].follows == 1, 2000);
    assert_string_equal (electors [0].following, "");
    assert_string_equal (electors [0].following_at, "");
    assert_false (electors [0].leader);
    assert_int_equal (drover_etcd_revoke (etcd, lease), 1);
    S_AWAIT (electors, 1, electors [0].leader, 2000);
    drover_etcd_destroy (&etcd);
    s_stop_all (electors, 1);
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
    s_elector_t electors [1];
    s_start (&electors [0], "a/b", "/t10", s_etcd->url);
    zstr_send (electors [0].actor, "PEERS");
    zmsg_t *peers = testutil_recv (zactor_sock (electors [0].actor), 2000);
    testutil_assert_and_free (zmsg_popstr (peers), "PEERS");
    testutil_assert_and_free (zmsg_popstr (peers), "0");
    zmsg_destroy (&peers);
    assert_int_equal (s_expect_quiet (electors, 1, 500), 0);
    s_stop_all (electors, 1);
}

//  True if elector last said of each queue: owners [q] owns it, at its
//  endpoint for it, and the members (names, in order) are its endpoints
static bool
s_queues_are (s_elector_t *elector, const char *const *owners, const char *const *members,
              size_t member_count)
{
    for (size_t queue = 0; queue < S_QUEUES; queue++) {
        s_queue_t *said = &elector->queues [queue];
        const char *name = s_queue_names [queue];
        char endpoint [64];
        s_queue_endpoint (endpoint, sizeof endpoint, owners [queue], name);
        if (strneq (said->owner, owners [queue]) || strneq (said->owner_at, endpoint)
        ||  said->token == 0)
            return false;
        char endpoints [160] = "";
        for (size_t member = 0; member < member_count; member++) {
            s_queue_endpoint (endpoint, sizeof endpoint, members [member], name);
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
s_queues_settled (s_elector_t *electors, size_t count, const char *const *owners,
                  const char *const *members, size_t member_count)
{
    for (size_t index = 0; index < count; index++)
        if (!s_queues_are (&electors [index], owners, members, member_count))
            return false;
    for (size_t queue = 0; queue < S_QUEUES; queue++)
        for (size_t index = 1; index < count; index++)
            if (electors [index].queues [queue].token != electors [0].queues [queue].token)
                return false;
    return true;
}

//  Who owns a b c d under spread with brokers b1 and b2, by the real hash
//  (test_drover_placement checks the same split): two each
static const char *s_spread_owners [S_QUEUES] = { "b1", "b1", "b2", "b2" };
static const char *s_both [] = { "b1", "b2" };

//  Two electors offering a b c d, spread: both hear QUEUE for all four with
//  the same owners and tokens, two owned by each; then nothing changes
//  while both renew, and PEERS says no queue lines
static void
test_queues_spread_two_and_two (void **state)
{
    (void) state;
    s_elector_t electors [2];
    s_start_queues (&electors [0], "b1", "/t11", "spread");
    s_start_queues (&electors [1], "b2", "/t11", "spread");
    S_AWAIT (electors, 2, s_queues_settled (electors, 2, s_spread_owners, s_both, 2), 10000);
    uint64_t tokens [S_QUEUES];
    for (size_t queue = 0; queue < S_QUEUES; queue++) {
        tokens [queue] = electors [0].queues [queue].token;
        assert_true (tokens [queue] > 0);
    }
    //  No QUEUE (nor anything else) while nothing changes: no write again.
    //  The keys' revisions in etcd after that time say so too, whether or
    //  not an elector had read a write yet; then each elector's barrier
    assert_int_equal (s_expect_quiet (electors, 2, S_TTL), 2);
    drover_etcd_t *etcd = drover_etcd_new (s_etcd->url, 2000, NULL);
    zlistx_t *keys = drover_etcd_range (etcd, "/t11/queues/", false, 0);
    assert_non_null (keys);
    assert_int_equal (zlistx_size (keys), S_QUEUES);
    for (drover_etcd_kv_t *kv = (drover_etcd_kv_t *) zlistx_first (keys); kv;
         kv = (drover_etcd_kv_t *) zlistx_next (keys)) {
        size_t queue = 0;
        while (queue < S_QUEUES && !streq (kv->key + strlen ("/t11/queues/"),
                                           s_queue_names [queue]))
            queue++;
        assert_true (queue < S_QUEUES);
        if ((uint64_t) kv->mod_revision != tokens [queue])
            fail_msg ("queue %s was written again (revision %" PRId64 ", token %" PRIu64 ")",
                      s_queue_names [queue], kv->mod_revision, tokens [queue]);
    }
    zlistx_destroy (&keys);
    drover_etcd_destroy (&etcd);
    assert_true (s_queues_settled (electors, 2, s_spread_owners, s_both, 2));
    for (size_t queue = 0; queue < S_QUEUES; queue++)
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
    s_stop_all (electors, 2);
}

//  $TERM the leader: the other's QUEUEs name it owner of all four, the two
//  that moved with higher tokens (the two it had keep theirs: their keys
//  are not written again), and list only its endpoints
static void
test_queues_move_when_the_leader_goes (void **state)
{
    (void) state;
    s_elector_t electors [2];
    s_start_queues (&electors [0], "b1", "/t12", "spread");
    s_start_queues (&electors [1], "b2", "/t12", "spread");
    s_elector_t *leader = s_await_one_leads (electors, 5000);
    s_elector_t *other = leader == &electors [0]? &electors [1]: &electors [0];
    S_AWAIT (electors, 2, s_queues_settled (electors, 2, s_spread_owners, s_both, 2), 10000);
    s_queue_t before [S_QUEUES];
    memcpy (before, other->queues, sizeof before);
    zactor_destroy (&leader->actor);
    leader->leader = false;
    const char *owners [S_QUEUES] = { other->name, other->name, other->name, other->name };
    const char *members [] = { other->name };
    S_AWAIT (other, 1, other->leader && s_queues_are (other, owners, members, 1), 5000);
    int moved = 0;
    for (size_t queue = 0; queue < S_QUEUES; queue++) {
        if (streq (before [queue].owner, leader->name)) {
            assert_true (other->queues [queue].token > before [queue].token);
            moved++;
        }
        else
            assert_true (other->queues [queue].token == before [queue].token);
    }
    assert_int_equal (moved, 2);
    s_stop_all (electors, 2);
}

//  Strategy leader: every queue on the leader, as both hear it
static void
test_queues_all_on_the_leader (void **state)
{
    (void) state;
    s_elector_t electors [2];
    s_start_queues (&electors [0], "b1", "/t13", "leader");
    s_start_queues (&electors [1], "b2", "/t13", NULL);     //  NULL: leader
    s_elector_t *leader = s_await_one_leads (electors, 5000);
    const char *owners [S_QUEUES] = { leader->name, leader->name, leader->name, leader->name };
    S_AWAIT (electors, 2, s_queues_settled (electors, 2, owners, s_both, 2), 10000);
    s_stop_all (electors, 2);
}

//  True if each elector has said no owner of the queues it owned (before)
static bool
s_owners_released (s_elector_t *electors, const s_queue_t *before)
{
    for (size_t queue = 0; queue < S_QUEUES; queue++) {
        s_elector_t *owner = streq (before [queue].owner, "b1")? &electors [0]: &electors [1];
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
    s_elector_t electors [2];
    s_start_queues (&electors [0], "b1", "/t14", "spread");
    s_start_queues (&electors [1], "b2", "/t14", "spread");
    s_elector_t *leader = s_await_one_leads (electors, 5000);
    S_AWAIT (electors, 2, s_queues_settled (electors, 2, s_spread_owners, s_both, 2), 10000);
    s_queue_t before [S_QUEUES];
    memcpy (before, electors [0].queues, sizeof before);
    int64_t paused_at = zclock_mono ();
    testutil_etcd_signal (s_etcd, "pause");
    S_AWAIT (electors, 2, s_owners_released (electors, before) && leader->deposed == 1,
             S_TTL * 2);
    for (size_t queue = 0; queue < S_QUEUES; queue++) {
        s_elector_t *owner = streq (before [queue].owner, "b1")? &electors [0]: &electors [1];
        s_queue_t *said = &owner->queues [queue];
        int64_t after = said->released_at - paused_at;
        printf ("elector: %s released queue %s %" PRId64 " ms after etcd was paused\n",
                owner->name, s_queue_names [queue], after);
        assert_true (after < S_TTL);
        assert_true (after >= S_TTL - S_TTL / 4 - S_TTL / 3 - 100);
        assert_string_equal (said->owner_at, "");
        assert_true (said->token == 0);
        if (owner == leader)
            assert_true (said->released_seq < leader->deposed_seq);     //  queues first
    }
    testutil_etcd_signal (s_etcd, "resume");
    S_AWAIT (electors, 2, s_queues_settled (electors, 2, s_spread_owners, s_both, 2),
             S_TTL * 5);
    s_stop_all (electors, 2);
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
        cmocka_unit_test (test_queues_spread_two_and_two),
        cmocka_unit_test (test_queues_move_when_the_leader_goes),
        cmocka_unit_test (test_queues_all_on_the_leader),
        cmocka_unit_test (test_queues_released_when_etcd_pauses),
    };
    int failed = cmocka_run_group_tests (tests, s_group_setup, NULL);
    testutil_etcd_stop (&s_etcd, failed != 0);
    return failed;
}
