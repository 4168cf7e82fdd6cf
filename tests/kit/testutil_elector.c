/*  =========================================================================
    testutil_elector - the elector actor's tests' fixtures
    (see the header)
    =========================================================================
*/

#include "testutil_elector.h"

//  The etcd every test of a group uses (each test has its own prefix)
testutil_etcd_t *testutil_elector_etcd = NULL;

//  The named queues the queue tests offer
const char *testutil_elector_queue_names [TESTUTIL_ELECTOR_QUEUES] = { "a", "b", "c", "d" };

//  Messages read from all electors so far: the order they were said in
int testutil_elector_seq = 0;

//  Start etcd for the group
int
testutil_elector_group_setup (void **state)
{
    (void) state;
    testutil_elector_etcd = testutil_etcd_start ();
    return 0;
}

//  Start an elector named name, reached at advertise, with key prefix
//  prefix, offering queues ("Q EP" lines, or NULL) placed by strategy
void
testutil_elector_start_full (testutil_elector_t *elector, const char *name, const char *advertise,
                             const char *prefix, const char *etcd, const char *queues,
                             const char *strategy)
{
    memset (elector, 0, sizeof *elector);
    snprintf (elector->name, sizeof elector->name, "%s", name);
    snprintf (elector->advertise, sizeof elector->advertise, "%s", advertise);
    drover_elector_actor_args_t args = {
        .etcd = etcd, .prefix = prefix, .name = name, .advertise = elector->advertise,
        .ttl = TESTUTIL_ELECTOR_TTL, .verbose = false, .queues = queues, .strategy = strategy
    };
    elector->actor = zactor_new (drover_elector_actor, &args);
    assert_non_null (elector->actor);
}

//  Start an elector named name, reached at advertise, with key prefix prefix
void
testutil_elector_start_at (testutil_elector_t *elector, const char *name, const char *advertise,
                           const char *prefix, const char *etcd)
{
    testutil_elector_start_full (elector, name, advertise, prefix, etcd, NULL, NULL);
}

//  The endpoint broker name serves queue on, in the queue tests
void
testutil_elector_queue_endpoint (char *endpoint, size_t size, const char *name, const char *queue)
{
    snprintf (endpoint, size, "tcp://%s-%s:1", name, queue);
}

//  Start an elector named name offering the queues a b c d, placed by strategy
void
testutil_elector_start_queues (testutil_elector_t *elector, const char *name, const char *prefix,
                               const char *strategy)
{
    char queues [256] = "";
    for (size_t index = 0; index < TESTUTIL_ELECTOR_QUEUES; index++) {
        char endpoint [64];
        testutil_elector_queue_endpoint (endpoint, sizeof endpoint, name,
                                         testutil_elector_queue_names [index]);
        size_t length = strlen (queues);
        snprintf (queues + length, sizeof queues - length, "%s%s %s", index? "\n": "",
                  testutil_elector_queue_names [index], endpoint);
    }
    char advertise [64];
    snprintf (advertise, sizeof advertise, "tcp://127.0.0.1:%d", testutil_free_port ());
    testutil_elector_start_full (elector, name, advertise, prefix, testutil_elector_etcd->url,
                                 queues, strategy);
}

//  Note a QUEUE name owner owner_endpoint token endpoints
void
testutil_elector_note_queue (testutil_elector_t *elector, zmsg_t *msg)
{
    char *name = zmsg_popstr (msg);
    char *owner = zmsg_popstr (msg);
    char *owner_at = zmsg_popstr (msg);
    char *token = zmsg_popstr (msg);
    char *endpoints = zmsg_popstr (msg);
    assert_non_null (endpoints);
    assert_int_equal (zmsg_size (msg), 0);
    testutil_elector_queue_t *queue = NULL;
    for (size_t index = 0; index < TESTUTIL_ELECTOR_QUEUES; index++)
        if (streq (name, testutil_elector_queue_names [index]))
            queue = &elector->queues [index];
    if (!queue)
        fail_msg ("%s says QUEUE of unknown %s", elector->name, name);
    //  No owner means no endpoint and token 0; an owner has a token
    assert_true (*owner? *owner_at && strneq (token, "0"): !*owner_at && streq (token, "0"));
    if (!*owner && streq (queue->owner, elector->name)) {
        queue->released++;
        queue->released_at = zclock_mono ();
        queue->released_seq = testutil_elector_seq;
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
void
testutil_elector_start (testutil_elector_t *elector, const char *name, const char *prefix,
                        const char *etcd)
{
    char advertise [64];
    snprintf (advertise, sizeof advertise, "tcp://127.0.0.1:%d", testutil_free_port ());
    testutil_elector_start_at (elector, name, advertise, prefix, etcd);
}

//  Note one message an elector said; a LEADER while another leads fails
void
testutil_elector_note (testutil_elector_t *electors, size_t count, testutil_elector_t *elector,
                       zmsg_t *msg)
{
    char *command = zmsg_popstr (msg);
    assert_non_null (command);
    testutil_elector_seq++;
    if (streq (command, "QUEUE"))
        testutil_elector_note_queue (elector, msg);
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
        elector->deposed_seq = testutil_elector_seq;
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
void
testutil_elector_drain_others (testutil_elector_t *electors, size_t count,
                               testutil_elector_t *except)
{
    for (size_t index = 0; index < count; index++) {
        if (&electors [index] == except)
            continue;
        zmsg_t *msg;
        while ((msg = testutil_recv (zactor_sock (electors [index].actor), 0))) {
            testutil_elector_note (electors, count, &electors [index], msg);
            zmsg_destroy (&msg);
        }
    }
}

//  Read one message from any elector within timeout msec; false if none.
//  Before a message from one, what the others said earlier is read, so a
//  LEADER is judged after any DEPOSED said before it.
bool
testutil_elector_pump (testutil_elector_t *electors, size_t count, int timeout)
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
        testutil_elector_drain_others (electors, count, &electors [index]);
        testutil_elector_note (electors, count, &electors [index], msg);
        zmsg_destroy (&msg);
        return true;
    }
    return false;
}

//  The barrier of one elector's pipe: PEERS is answered in order, after
//  everything it said before. Ask it, note each message before the answer
//  (testutil_elector_note), and return the answer's count of peers (its first field
//  after the word; "0" when etcd did not answer); *said_p: the messages
//  noted before it
int
testutil_elector_barrier (testutil_elector_t *electors, size_t count, testutil_elector_t *elector,
                          int *said_p)
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
        testutil_elector_note (electors, count, elector, msg);
        zmsg_destroy (&msg);
        (*said_p)++;
    }
}

//  Nothing is said for msec (it would fail at once), nor up to each
//  elector's barrier after: what was due in that time, from a renewal or
//  a read of etcd, had been said by then. Returns the peers the last
//  elector's PEERS answer lists (its look at etcd after that time)
int
testutil_elector_expect_quiet (testutil_elector_t *electors, size_t count, int msec)
{
    if (testutil_elector_pump (electors, count, msec))
        fail_msg ("an elector said something within %d msec", msec);
    int peers = 0;
    for (size_t index = 0; index < count; index++) {
        int said = 0;
        peers = testutil_elector_barrier (electors, count, &electors [index], &said);
        if (said)
            fail_msg ("%s said %d messages before the barrier", electors [index].name, said);
    }
    return peers;
}

//  Stop the electors that are still running
void
testutil_elector_stop_all (testutil_elector_t *electors, size_t count)
{
    for (size_t index = 0; index < count; index++)
        zactor_destroy (&electors [index].actor);
}

//  Which of two electors leads (asserts exactly one does)
testutil_elector_t *
testutil_elector_the_leader (testutil_elector_t *electors)
{
    assert_true (electors [0].leader != electors [1].leader);
    return electors [0].leader? &electors [0]: &electors [1];
}

//  Wait until one of two leads and the other follows it
testutil_elector_t *
testutil_elector_await_one_leads (testutil_elector_t *electors, int timeout)
{
    TESTUTIL_ELECTOR_AWAIT (electors, 2,
                            (electors [0].leader && streq (electors [1].following,
                                                           electors [0].name))
                         || (electors [1].leader && streq (electors [0].following,
                                                           electors [1].name)),
                            timeout);
    testutil_elector_t *leader = testutil_elector_the_leader (electors);
    testutil_elector_t *follower = leader == &electors [0]? &electors [1]: &electors [0];
    assert_string_equal (follower->following_at, leader->advertise);
    return leader;
}
