/*  =========================================================================
    test_drover_standby - a standby on a real ROUTER: a raw DEALER gets a
    REDIRECT with its seq for every message it sends, the leader it was
    set to; malformed input gets the broker's ERROR, statuses and
    garbage get nothing, and nothing crashes; QUEUES gets the queue table
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "drover_standby.h"

typedef struct {
    zsock_t *router;            //  the standby's socket, bound on loopback
    zsock_t *dealer;            //  the peer the test plays
    drover_standby_t *standby;
} s_fixture_t;

static int
s_setup (void **state)
{
    s_fixture_t *fixture = (s_fixture_t *) zmalloc (sizeof (s_fixture_t));
    fixture->router = zsock_new (ZMQ_ROUTER);
    assert_non_null (fixture->router);
    //  No drops at a high-water mark: a batch of answers (1024) is more
    //  than libzmq's default 1000, and a slow I/O thread would lose some
    zsock_set_sndhwm (fixture->router, 0);
    int port = zsock_bind (fixture->router, "tcp://127.0.0.1:*");
    assert_true (port > 0);
    fixture->dealer = zsock_new (ZMQ_DEALER);
    zsock_set_rcvhwm (fixture->dealer, 0);
    assert_int_equal (zsock_connect (fixture->dealer, "tcp://127.0.0.1:%d", port), 0);
    fixture->standby = drover_standby_new (fixture->router, NULL);
    *state = fixture;
    return 0;
}

static int
s_teardown (void **state)
{
    s_fixture_t *fixture = (s_fixture_t *) *state;
    drover_standby_destroy (&fixture->standby);
    drover_standby_destroy (&fixture->standby);     //  harmless twice
    zsock_destroy (&fixture->dealer);
    zsock_destroy (&fixture->router);
    free (fixture);
    return 0;
}

//  Let the standby answer what comes within timeout msec (until it has
//  read something, or the time is up)
static void
s_serve (s_fixture_t *fixture, int timeout)
{
    zpoller_t *poller = zpoller_new (fixture->router, NULL);
    if (zpoller_wait (poller, timeout) == fixture->router)
        drover_standby_handle (fixture->standby);
    zpoller_destroy (&poller);
}

//  Let the standby answer what comes, round after round, until an answer
//  reaches the dealer or timeout msec pass; the answer, or NULL (what was
//  sent just before may come in a round of its own)
static drover_msg_t *
s_answer_within (s_fixture_t *fixture, int timeout)
{
    int64_t deadline = zclock_mono () + timeout;
    do {
        s_serve (fixture, 50);
        drover_msg_t *reply = testutil_recv_msg (fixture->dealer, 20);
        if (reply)
            return reply;
    } while (zclock_mono () < deadline);
    return NULL;
}

//  Send msg (destroyed), let the standby answer, and return its answer
//  (NULL if none within timeout)
static drover_msg_t *
s_exchange (s_fixture_t *fixture, drover_msg_t **msg_p, int timeout)
{
    testutil_send (fixture->dealer, msg_p);
    return s_answer_within (fixture, timeout);
}

//  Every message of a peer, worker or client, gets REDIRECT with its seq
static void
test_every_request_redirected (void **state)
{
    s_fixture_t *fixture = (s_fixture_t *) *state;
    drover_standby_set_leader (fixture->standby, "b2", "tcp://10.0.0.2:5555");
    int ids [] = { DROVER_MSG_WORKER_HELLO, DROVER_MSG_TASK_SUBMIT, DROVER_MSG_TASK_RESULT,
                   DROVER_MSG_TASK_LIST, DROVER_MSG_WORKER_HEARTBEAT, DROVER_MSG_WORKER_GOODBYE,
                   DROVER_MSG_TASK_WAIT };
    for (size_t index = 0; index < sizeof ids / sizeof ids [0]; index++) {
        drover_msg_t *msg = testutil_played_msg ("w1", 2, ids [index], 7, 1);
        if (ids [index] == DROVER_MSG_TASK_SUBMIT) {
            drover_msg_destroy (&msg);
            msg = testutil_submit_msg ("true", 0, 1, 0);
        }
        if (ids [index] == DROVER_MSG_TASK_WAIT) {
            msg->ntasks = 1;
            msg->tasks = (uint64_t *) zmalloc (sizeof (uint64_t));
            msg->tasks [0] = 7;
        }
        //  A heartbeat or goodbye is numbered too (PROTOCOL.md §5)
        uint32_t seq = 100 + (uint32_t) index;
        msg->seq = seq;
        drover_msg_t *reply = s_exchange (fixture, &msg, 2000);
        if (!reply)
            fail_msg ("no answer to %s", drover_msg_name (ids [index]));
        assert_int_equal (reply->id, DROVER_MSG_REDIRECT);
        assert_int_equal (reply->seq, seq);
        assert_string_equal (reply->leader, "tcp://10.0.0.2:5555");
        assert_string_equal (reply->leader_name, "b2");
        drover_msg_destroy (&reply);
    }
    assert_int_equal (drover_standby_redirects (fixture->standby), sizeof ids / sizeof ids [0]);
    assert_int_equal (drover_standby_malformed (fixture->standby), 0);
}

//  Say our level as a client does (CLIENT HELLO): a standby answers it
//  itself, and REDIRECTs this connection from then on
static void
s_say_level (s_fixture_t *fixture)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_CLIENT_HELLO);
    msg->seq = 2;
    drover_msg_t *reply = s_exchange (fixture, &msg, 2000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_CLIENT_WELCOME);
    assert_int_equal (reply->seq, 2);
    assert_int_equal (reply->level, DROVER_MSG_LEVEL);
    drover_msg_destroy (&reply);
}

//  A peer of level 1 knows no REDIRECT: it is told ERROR 300 (retry),
//  with the leader in the reason, and never a message it would drop
static void
test_level_1_peer_told_to_retry (void **state)
{
    s_fixture_t *fixture = (s_fixture_t *) *state;
    drover_standby_set_leader (fixture->standby, "b2", "tcp://10.0.0.2:5555");
    drover_msg_t *msg = testutil_submit_msg ("true", 0, 1, 0);
    msg->seq = 9;
    zframe_t *frame = drover_msg_encode_level (msg, 1);
    drover_msg_destroy (&msg);
    assert_int_equal (zframe_send (&frame, fixture->dealer, 0), 0);
    s_serve (fixture, 2000);
    drover_msg_t *reply = testutil_recv_msg (fixture->dealer, 2000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_ERROR);
    assert_int_equal (reply->code, DROVER_CODE_RETRY);
    assert_int_equal (reply->seq, 9);
    assert_non_null (strstr (reply->reason, "b2 at tcp://10.0.0.2:5555"));
    drover_msg_destroy (&reply);
    assert_int_equal (drover_standby_redirects (fixture->standby), 1);
}

//  No leader known (or one that does not fit the wire): REDIRECT says ""
static void
test_no_leader_known (void **state)
{
    s_fixture_t *fixture = (s_fixture_t *) *state;
    s_say_level (fixture);
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_WORKER_LIST);
    msg->seq = 3;
    drover_msg_t *reply = s_exchange (fixture, &msg, 2000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_REDIRECT);
    assert_int_equal (reply->seq, 3);
    assert_string_equal (reply->leader, "");
    assert_string_equal (reply->leader_name, "");
    drover_msg_destroy (&reply);

    //  Set, then unset with NULL; an endpoint past 256 bytes is unknown
    drover_standby_set_leader (fixture->standby, "b1", "tcp://127.0.0.1:1");
    drover_standby_set_leader (fixture->standby, NULL, NULL);
    char long_endpoint [DROVER_ENDPOINT_MAX + 2];
    memset (long_endpoint, 'e', sizeof long_endpoint - 1);
    long_endpoint [sizeof long_endpoint - 1] = 0;
    drover_standby_set_leader (fixture->standby, "b1", long_endpoint);
    msg = drover_msg_new (DROVER_MSG_WORKER_LIST);
    msg->seq = 4;
    reply = s_exchange (fixture, &msg, 2000);
    assert_non_null (reply);
    assert_int_equal (reply->seq, 4);
    assert_string_equal (reply->leader, "");
    assert_string_equal (reply->leader_name, "b1");
    drover_msg_destroy (&reply);

    //  The leader changes: the next REDIRECT names the new one
    zsock_t *leader = zsock_new (ZMQ_ROUTER);
    int port = zsock_bind (leader, "tcp://127.0.0.1:*");
    assert_true (port > 0);
    char endpoint [64];
    snprintf (endpoint, sizeof endpoint, "tcp://127.0.0.1:%d", port);
    drover_standby_set_leader (fixture->standby, "b3", endpoint);
    msg = drover_msg_new (DROVER_MSG_WORKER_LIST);
    msg->seq = 5;
    reply = s_exchange (fixture, &msg, 2000);
    assert_non_null (reply);
    assert_string_equal (reply->leader, endpoint);
    assert_string_equal (reply->leader_name, "b3");
    drover_msg_destroy (&reply);
    zsock_destroy (&leader);
}

//  Ask the standby until its REDIRECT names leader ("" none), within
//  timeout msec; the last answer's leader goes into said
static bool
s_await_named (s_fixture_t *fixture, const char *leader, char *said, size_t size, int timeout)
{
    int64_t deadline = zclock_mono () + timeout;
    for (uint32_t seq = 100; zclock_mono () < deadline; seq++) {
        drover_msg_t *msg = drover_msg_new (DROVER_MSG_TASK_LIST);
        msg->seq = seq;
        drover_msg_t *reply = s_exchange (fixture, &msg, 2000);
        assert_non_null (reply);
        assert_int_equal (reply->id, DROVER_MSG_REDIRECT);
        snprintf (said, size, "%s", reply->leader);
        drover_msg_destroy (&reply);
        if (streq (said, leader))
            return true;
    }
    return false;
}

//  A leader whose endpoint refuses connections (its process killed: the
//  election still names it until its lease ends) is not named: peers
//  would go there for nothing. Once something listens there again it is
//  named again.
static void
test_dead_leader_not_named (void **state)
{
    s_fixture_t *fixture = (s_fixture_t *) *state;
    int port = testutil_free_port ();
    char endpoint [64], said [DROVER_ENDPOINT_MAX + 1];
    snprintf (endpoint, sizeof endpoint, "tcp://127.0.0.1:%d", port);
    drover_standby_set_leader (fixture->standby, "b1", endpoint);
    s_say_level (fixture);
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_TASK_LIST);
    msg->seq = 9;
    drover_msg_t *reply = s_exchange (fixture, &msg, 2000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_REDIRECT);
    assert_string_equal (reply->leader, "");        //  before: the dead one
    assert_string_equal (reply->leader_name, "");
    drover_msg_destroy (&reply);
    //  It comes back (a leader that was restarting): named again
    zsock_t *leader = zsock_new (ZMQ_ROUTER);
    assert_int_equal (zsock_bind (leader, "%s", endpoint), port);
    assert_true (s_await_named (fixture, endpoint, said, sizeof said, 5000));
    zsock_destroy (&leader);
    //  Unreachable (no answer: a dead machine, a firewall) says nothing:
    //  it is named (the lease decides)
    drover_standby_set_leader (fixture->standby, "b2", "tcp://10.255.255.1:5555");
    assert_true (s_await_named (fixture, "tcp://10.255.255.1:5555", said, sizeof said, 2000));
}

//  Send raw bytes as one frame (or two, with a second), let the standby
//  answer, and return its answer within timeout (NULL if none)
static drover_msg_t *
s_exchange_raw (s_fixture_t *fixture, const byte *data, size_t size, bool second, int timeout)
{
    zframe_t *frame = zframe_new (data, size);
    zframe_send (&frame, fixture->dealer, second? ZFRAME_MORE: 0);
    if (second) {
        frame = zframe_new ("x", 1);
        zframe_send (&frame, fixture->dealer, 0);
    }
    return s_answer_within (fixture, timeout);
}

//  Malformed input: the broker's ERROR with the seq when the header can be
//  read; nothing for garbage or a status; the standby carries on
static void
test_malformed_input (void **state)
{
    s_fixture_t *fixture = (s_fixture_t *) *state;
    drover_standby_set_leader (fixture->standby, "b2", "tcp://10.0.0.2:5555");

    //  A HELLO cut short: ERROR 400 with its seq
    drover_msg_t *msg = testutil_played_msg ("w1", 2, DROVER_MSG_WORKER_HELLO, 0, 0);
    msg->seq = 41;
    zframe_t *frame = drover_msg_encode (msg);
    drover_msg_destroy (&msg);
    drover_msg_t *reply = s_exchange_raw (fixture, zframe_data (frame), zframe_size (frame) - 1,
                                          false, 2000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_ERROR);
    assert_int_equal (reply->code, DROVER_CODE_BAD_REQUEST);
    assert_int_equal (reply->seq, 41);
    drover_msg_destroy (&reply);

    //  Two frames: ERROR 400 with the first frame's seq
    reply = s_exchange_raw (fixture, zframe_data (frame), zframe_size (frame), true, 2000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_ERROR);
    assert_int_equal (reply->code, DROVER_CODE_BAD_REQUEST);
    assert_int_equal (reply->seq, 41);
    drover_msg_destroy (&reply);

    //  Another version: ERROR 426
    byte *data = zframe_data (frame);
    assert_int_equal (data [5], 1);            //  array, "DRV", then version 1
    data [5] = 2;
    reply = s_exchange_raw (fixture, data, zframe_size (frame), false, 2000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_ERROR);
    assert_int_equal (reply->code, DROVER_CODE_BAD_VERSION);
    drover_msg_destroy (&reply);
    zframe_destroy (&frame);

    //  Garbage, an empty frame, and statuses (OK, ERROR, REDIRECT): no answer
    byte garbage [] = { 0xc1, 0xff, 0x00, 0x13, 0x37 };
    assert_null (s_exchange_raw (fixture, garbage, sizeof garbage, false, 300));
    assert_null (s_exchange_raw (fixture, garbage, 0, false, 300));
    int statuses [] = { DROVER_MSG_OK, DROVER_MSG_ERROR, DROVER_MSG_REDIRECT };
    for (size_t index = 0; index < 3; index++) {
        msg = drover_msg_new (statuses [index]);
        msg->seq = 8;
        msg->code = statuses [index] == DROVER_MSG_OK? 200: 400;
        assert_null (s_exchange (fixture, &msg, 300));
    }
    assert_int_equal (drover_standby_malformed (fixture->standby), 5);
    assert_int_equal (drover_standby_redirects (fixture->standby), 0);

    //  A field past its limit (a WORKER ADMIN reason of 257 bytes): 413;
    //  a wrong signature whose seq reads: 400 with that seq (PROTOCOL.md
    //  §5); an element 3 that is no seq: no answer, so the next answer is
    //  the TASK LIST's below
    byte admin [15 + DROVER_REASON_MAX + 1];
    memcpy (admin, "\x97\xa3" "DRV\x01\x13\x2b\xa2" "w1\x01\xda\x01\x01", 15);
    memset (admin + 15, 'r', DROVER_REASON_MAX + 1);
    reply = s_exchange_raw (fixture, admin, sizeof admin, false, 2000);
    assert_non_null (reply);
    assert_int_equal (reply->code, DROVER_CODE_TOO_LARGE);
    assert_int_equal (reply->seq, 43);
    drover_msg_destroy (&reply);
    reply = s_exchange_raw (fixture, (const byte *) "\x95\xa3" "DRX\x01\x0e\x2c\x01", 9,
                            false, 2000);
    assert_non_null (reply);
    assert_int_equal (reply->code, DROVER_CODE_BAD_REQUEST);
    assert_int_equal (reply->seq, 44);
    drover_msg_destroy (&reply);
    frame = zframe_new ("\x95\xa3" "DRV\x01\x0e\xc0\x01", 9);
    zframe_send (&frame, fixture->dealer, 0);

    //  ... and it still answers
    msg = drover_msg_new (DROVER_MSG_TASK_LIST);
    msg->seq = 42;
    reply = s_exchange (fixture, &msg, 2000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_REDIRECT);
    assert_int_equal (reply->seq, 42);
    drover_msg_destroy (&reply);
}

//  Many at once: every one answered, a batch per handle call at most
static void
test_burst_answered (void **state)
{
    s_fixture_t *fixture = (s_fixture_t *) *state;
    drover_standby_set_leader (fixture->standby, "b2", "tcp://10.0.0.2:5555");
    s_say_level (fixture);
    int count = 3000;
    for (int index = 1; index <= count; index++) {
        drover_msg_t *msg = drover_msg_new (DROVER_MSG_TASK_LIST);
        msg->seq = (uint32_t) index;
        testutil_send (fixture->dealer, &msg);
    }
    int answered = 0;
    int64_t deadline = zclock_mono () + 10000;
    while (answered < count && zclock_mono () < deadline) {
        s_serve (fixture, 100);
        //  Read every answer of that batch before the next: a peer that
        //  lets more than its queues hold pile up loses the excess (HWM)
        drover_msg_t *reply;
        while ((uint64_t) answered < drover_standby_redirects (fixture->standby)
        &&     (reply = testutil_recv_msg (fixture->dealer, 1000))) {
            answered++;
            assert_int_equal (reply->seq, answered);    //  in order, one each
            drover_msg_destroy (&reply);
        }
    }
    assert_int_equal (answered, count);
    assert_int_equal (drover_standby_redirects (fixture->standby), count);
}

//  QUEUES is answered, not redirected: an empty table before any is set,
//  then a copy of the table set (the caller's may change or go after)
static void
test_queues_answered (void **state)
{
    s_fixture_t *fixture = (s_fixture_t *) *state;
    drover_standby_set_leader (fixture->standby, "b2", "tcp://10.0.0.2:5555");
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_QUEUES);
    msg->seq = 41;
    drover_msg_t *reply = s_exchange (fixture, &msg, 2000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_QUEUE_TABLE);
    assert_int_equal (reply->seq, 41);
    assert_string_equal (reply->strategy, "");
    assert_int_equal (reply->nqueues, 0);
    drover_msg_destroy (&reply);

    drover_queuetable_t *table = drover_queuetable_new ("spread");
    drover_queuetable_put (table, "gpu", "b2", "tcp://10.0.0.2:6002", 18,
                           "tcp://10.0.0.1:6002,tcp://10.0.0.2:6002");
    drover_queuetable_put (table, "batch", "b1", "tcp://10.0.0.1:6001", 17,
                           "tcp://10.0.0.1:6001");
    drover_standby_set_queues (fixture->standby, table);
    drover_queuetable_destroy (&table);         //  the standby kept a copy
    msg = drover_msg_new (DROVER_MSG_QUEUES);
    msg->seq = 42;
    reply = s_exchange (fixture, &msg, 2000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_QUEUE_TABLE);
    assert_int_equal (reply->seq, 42);
    assert_string_equal (reply->strategy, "spread");
    assert_int_equal (reply->nqueues, 2);
    assert_string_equal (reply->queue_rows [0].name, "batch");
    assert_string_equal (reply->queue_rows [1].name, "gpu");
    assert_string_equal (reply->queue_rows [1].owner, "b2");
    assert_string_equal (reply->queue_rows [1].owner_endpoint, "tcp://10.0.0.2:6002");
    assert_true (reply->queue_rows [1].token == 18);
    assert_string_equal (reply->queue_rows [1].endpoints,
                         "tcp://10.0.0.1:6002,tcp://10.0.0.2:6002");
    drover_msg_destroy (&reply);
    //  Everything else is still redirected, and QUEUES is not counted as one
    msg = drover_msg_new (DROVER_MSG_TASK_LIST);
    msg->seq = 43;
    reply = s_exchange (fixture, &msg, 2000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_REDIRECT);
    drover_msg_destroy (&reply);
    assert_int_equal (drover_standby_redirects (fixture->standby), 1);
    //  A QUEUES with a field is malformed: ERROR 400, as the broker says
    msg = drover_msg_new (DROVER_MSG_QUEUES);
    zframe_t *frame = drover_msg_encode (msg);
    drover_msg_destroy (&msg);
    zframe_t *bad = zframe_new (NULL, zframe_size (frame) + 1);
    memcpy (zframe_data (bad), zframe_data (frame), zframe_size (frame));
    zframe_data (bad) [0]++;                    //  one more element in the array...
    zframe_data (bad) [zframe_size (frame)] = 0xc0;     //  ...a nil
    zframe_destroy (&frame);
    zframe_send (&bad, fixture->dealer, 0);
    s_serve (fixture, 2000);
    reply = testutil_recv_msg (fixture->dealer, 2000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_ERROR);
    assert_int_equal (reply->code, DROVER_CODE_BAD_REQUEST);
    drover_msg_destroy (&reply);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_every_request_redirected, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_level_1_peer_told_to_retry, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_no_leader_known, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_dead_leader_not_named, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_malformed_input, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_burst_answered, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_queues_answered, s_setup, s_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
