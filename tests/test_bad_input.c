/*  =========================================================================
    test_bad_input - hostile and mistaken peers against a real broker

    One hostile DEALER sends garbage, wrong versions, unknown ids, oversized
    and multi-frame messages, and well-formed but unexpected requests; each
    must get the right ERROR (or, past the hard size cap, lose its
    connection), while a well-behaved client keeps being served throughout
    and, at the end, a real task still runs to completion.
    =========================================================================
*/

#include "testutil_wire.h"
#include "testutil_cluster.h"

#define S_MAX_MESSAGE   65536

typedef struct {
    testutil_cluster_t *cluster;    //  broker + one worker
    zsock_t *hostile;               //  the peer sending bad input
    zsock_t *client;                //  a well-behaved client
} s_fixture_t;

//  Start a broker with a small max-message, one worker, and two peers
static int
s_setup (void **state)
{
    s_fixture_t *self = (s_fixture_t *) zmalloc (sizeof (s_fixture_t));
    const char *flags [] = { "--set", "broker/max-message=65536",
                             "--set", "health/heartbeat=200", NULL };
    self->cluster = testutil_cluster_new (flags);
    testutil_cluster_add_worker (self->cluster, 0, "steady", 2, NULL);
    self->hostile = testutil_dealer (self->cluster);
    self->client = testutil_dealer (self->cluster);
    assert_true (testutil_wait_workers (self->client, 1, 10000));
    *state = self;
    return 0;
}

static int
s_teardown (void **state)
{
    s_fixture_t *self = (s_fixture_t *) *state;
    zsock_destroy (&self->hostile);
    zsock_destroy (&self->client);
    testutil_cluster_destroy (&self->cluster);
    free (self);
    return 0;
}

//  The well-behaved client asks for the task table and gets it promptly
static void
s_client_is_served (s_fixture_t *self)
{
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_LIST);
    request->state = 255;
    drover_msg_t *reply = testutil_request (self->client, &request, 2000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_TASK_TABLE);
    drover_msg_destroy (&reply);
}

//  Send raw bytes as one frame from the hostile peer
static void
s_send_raw (zsock_t *sock, const void *data, size_t size)
{
    zframe_t *frame = zframe_new (data, size);
    assert_int_equal (zframe_send (&frame, sock, 0), 0);
}

//  Expect an ERROR with this code on the hostile peer
static void
s_expect_error (s_fixture_t *self, int code)
{
    drover_msg_t *reply = testutil_recv_msg (self->hostile, 3000);
    assert_non_null (reply);
    if (reply->id != DROVER_MSG_ERROR || reply->code != code)
        fprintf (stderr, "expected ERROR %d, got %s %d %s\n", code,
                 drover_msg_name (reply->id), reply->code, reply->reason? reply->reason: "");
    assert_int_equal (reply->id, DROVER_MSG_ERROR);
    assert_int_equal (reply->code, code);
    assert_non_null (reply->reason);
    assert_true (strlen (reply->reason) > 0);
    drover_msg_destroy (&reply);
}

//  Encode a valid message and return its bytes as a frame
static zframe_t *
s_valid_frame (int id)
{
    drover_msg_t *msg = drover_msg_new (id);
    msg->seq = 7;
    zframe_t *frame = drover_msg_encode (msg);
    assert_non_null (frame);
    drover_msg_destroy (&msg);
    return frame;
}

//  Offset of the version byte: right after the "DRV" signature string
static size_t
s_version_offset (zframe_t *frame)
{
    const byte *data = zframe_data (frame);
    for (size_t index = 0; index + 4 < zframe_size (frame); index++)
        if (data [index] == 0xa3 && memcmp (data + index + 1, "DRV", 3) == 0)
            return index + 4;
    fail_msg ("no signature in an encoded message");
    return 0;
}

static void
test_garbage_is_answered_bad_request (void **state)
{
    s_fixture_t *self = (s_fixture_t *) *state;
    s_send_raw (self->hostile, "hello broker", 12);
    s_expect_error (self, DROVER_CODE_BAD_REQUEST);
    s_send_raw (self->hostile, "", 0);
    s_expect_error (self, DROVER_CODE_BAD_REQUEST);
    //  A msgpack array header claiming 2^32-1 elements, in 5 bytes
    s_send_raw (self->hostile, "\xdd\xff\xff\xff\xff", 5);
    s_expect_error (self, DROVER_CODE_BAD_REQUEST);
    s_client_is_served (self);

    //  Random bytes, seeded: every one answered, the client still served
    srandom (42);
    for (int count = 0; count < 500; count++) {
        byte data [128];
        size_t size = 1 + random () % sizeof data;
        for (size_t index = 0; index < size; index++)
            data [index] = (byte) random ();
        s_send_raw (self->hostile, data, size);
    }
    for (int count = 0; count < 500; count++)
        s_expect_error (self, DROVER_CODE_BAD_REQUEST);
    s_client_is_served (self);
}

static void
test_multiple_frames_are_refused (void **state)
{
    s_fixture_t *self = (s_fixture_t *) *state;
    zframe_t *frame = s_valid_frame (DROVER_MSG_TASK_LIST);
    zframe_send (&frame, self->hostile, ZFRAME_MORE);
    zstr_send (self->hostile, "extra");
    s_expect_error (self, DROVER_CODE_BAD_REQUEST);
    s_client_is_served (self);
}

static void
test_unknown_version_and_id (void **state)
{
    s_fixture_t *self = (s_fixture_t *) *state;
    zframe_t *frame = s_valid_frame (DROVER_MSG_TASK_LIST);
    size_t offset = s_version_offset (frame);
    zframe_data (frame) [offset] = 9;              //  version 9
    zframe_send (&frame, self->hostile, 0);
    s_expect_error (self, DROVER_CODE_BAD_VERSION);

    frame = s_valid_frame (DROVER_MSG_TASK_LIST);
    zframe_data (frame) [offset + 1] = 99;         //  message id 99
    zframe_send (&frame, self->hostile, 0);
    s_expect_error (self, DROVER_CODE_BAD_REQUEST);
    s_client_is_served (self);
}

static void
test_oversized_refused_then_cut_off (void **state)
{
    s_fixture_t *self = (s_fixture_t *) *state;
    byte *big = (byte *) zmalloc (S_MAX_MESSAGE * 3);
    s_send_raw (self->hostile, big, S_MAX_MESSAGE + 1);
    s_expect_error (self, DROVER_CODE_TOO_LARGE);
    s_client_is_served (self);
    //  Past the hard cap libzmq drops the connection before buffering it;
    //  the DEALER reconnects by itself and is then served as usual
    s_send_raw (self->hostile, big, S_MAX_MESSAGE * 3);
    free (big);
    s_client_is_served (self);
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_LIST);
    request->state = 255;
    drover_msg_t *reply = testutil_request (self->hostile, &request, 5000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_TASK_TABLE);
    drover_msg_destroy (&reply);
}

//  ERROR 413 and the 400 for a two-frame message came back with seq 0
//  though the seq was readable: a client that follows the spec drops a
//  reply it cannot match, and times out. Every refusal echoes the seq.
static void
test_refusals_echo_a_readable_seq (void **state)
{
    s_fixture_t *self = (s_fixture_t *) *state;
    //  Past max-message: a SUBMIT whose body alone is larger
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    msg->seq = 4113;
    msg->procs = 1;
    byte *big = (byte *) zmalloc (S_MAX_MESSAGE + 100);
    drover_msg_set_body (msg, big, S_MAX_MESSAGE + 100);
    free (big);
    zframe_t *frame = drover_msg_encode (msg);
    drover_msg_destroy (&msg);
    assert_non_null (frame);
    zframe_send (&frame, self->hostile, 0);
    drover_msg_t *reply = testutil_recv_msg (self->hostile, 3000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_ERROR);
    assert_int_equal (reply->code, DROVER_CODE_TOO_LARGE);
    assert_int_equal (reply->seq, 4113);
    drover_msg_destroy (&reply);

    //  Two frames: the first one's seq
    frame = s_valid_frame (DROVER_MSG_TASK_LIST);
    zframe_send (&frame, self->hostile, ZFRAME_MORE);
    zstr_send (self->hostile, "extra");
    reply = testutil_recv_msg (self->hostile, 3000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_ERROR);
    assert_int_equal (reply->code, DROVER_CODE_BAD_REQUEST);
    assert_int_equal (reply->seq, 7);
    drover_msg_destroy (&reply);

    //  A malformed field after a readable header, and a header without a
    //  seq: the first echoes it, the second cannot
    frame = s_valid_frame (DROVER_MSG_TASK_LIST);
    zframe_data (frame) [zframe_size (frame) - 1] = 0xc1;      //  state: never used
    zframe_send (&frame, self->hostile, 0);
    reply = testutil_recv_msg (self->hostile, 3000);
    assert_non_null (reply);
    assert_int_equal (reply->code, DROVER_CODE_BAD_REQUEST);
    assert_int_equal (reply->seq, 7);
    drover_msg_destroy (&reply);
    s_send_raw (self->hostile, "\x93\xa3" "DRV\x01\x0f", 7);
    reply = testutil_recv_msg (self->hostile, 3000);
    assert_non_null (reply);
    assert_int_equal (reply->code, DROVER_CODE_BAD_REQUEST);
    assert_int_equal (reply->seq, 0);
    drover_msg_destroy (&reply);

    //  An oversized or two-frame ERROR is still never answered: the next
    //  reply is the one to the TASK LIST sent after them
    msg = drover_msg_new (DROVER_MSG_ERROR);
    msg->seq = 66;
    msg->code = DROVER_CODE_INTERNAL;
    frame = drover_msg_encode (msg);
    drover_msg_destroy (&msg);
    zframe_send (&frame, self->hostile, ZFRAME_MORE);
    big = (byte *) zmalloc (S_MAX_MESSAGE + 1);
    memcpy (big, "\x96\xa3" "DRV\x01\x14\x43", 7);  //  an OK, seq 67, then zeros
    s_send_raw (self->hostile, big, S_MAX_MESSAGE + 1);
    free (big);
    frame = s_valid_frame (DROVER_MSG_TASK_LIST);
    zframe_send (&frame, self->hostile, 0);
    reply = testutil_recv_msg (self->hostile, 3000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_TASK_TABLE);
    assert_int_equal (reply->seq, 7);
    drover_msg_destroy (&reply);
    s_client_is_served (self);
}

//  Expect on the hostile peer an ERROR with this code and seq
static void
s_expect_error_seq (s_fixture_t *self, int code, uint32_t seq)
{
    drover_msg_t *reply = testutil_recv_msg (self->hostile, 3000);
    assert_non_null (reply);
    if (reply->id != DROVER_MSG_ERROR || reply->code != code || reply->seq != seq)
        fail_msg ("expected ERROR %d seq %u, got %s %d seq %u \"%s\"", code, seq,
                  drover_msg_name (reply->id), reply->code, reply->seq,
                  reply->reason? reply->reason: "");
    drover_msg_destroy (&reply);
}

//  What the Python peers found the broker and PROTOCOL.md disagree on.
//  A field past its limit is ERROR 413, as §11 says (it was 400). The seq
//  of a header whose elements 0..2 are wrong but whose element 3 is a
//  uint32 is echoed (§5; it was 0 for a wrong signature or an id or
//  version that is not an integer). An empty TASK LIST label filter is
//  malformed (§7.15: 1 to 16 labels; it was taken as no filter).
static void
test_spec_and_broker_agree (void **state)
{
    s_fixture_t *self = (s_fixture_t *) *state;
    //  A WORKER ADMIN whose reason is 257 bytes, seq 43
    byte admin [15 + DROVER_REASON_MAX + 1];
    memcpy (admin, "\x97\xa3" "DRV\x01\x13\x2b\xa2" "w1\x01\xda\x01\x01", 15);
    memset (admin + 15, 'r', DROVER_REASON_MAX + 1);
    s_send_raw (self->hostile, admin, sizeof admin);
    s_expect_error_seq (self, DROVER_CODE_TOO_LARGE, 43);
    //  A SUBMIT of 17 labels, seq 45
    drover_msg_t *submit = testutil_submit_msg ("true", 0, 1, 0);
    for (int index = 0; index < DROVER_LABELS_MAX; index++)
        assert_int_equal (drover_msg_add_label (submit, "a=b"), 0);
    submit->seq = 45;
    zframe_t *frame = drover_msg_encode (submit);
    drover_msg_destroy (&submit);
    const byte *data = zframe_data (frame);
    size_t size = zframe_size (frame);
    size_t labels = 0;              //  where the labels' array 16 header is
    while (labels + 2 < size && memcmp (data + labels, "\xdc\x00\x10\xa3" "a=b", 7))
        labels++;
    assert_true (labels + 2 < size);
    byte *more = (byte *) zmalloc (size + 4);
    memcpy (more, data, labels + 3);
    more [labels + 2] = DROVER_LABELS_MAX + 1;
    memcpy (more + labels + 3, "\xa3" "a=b", 4);
    memcpy (more + labels + 7, data + labels + 3, size - labels - 3);
    zframe_destroy (&frame);
    s_send_raw (self->hostile, more, size + 4);
    free (more);
    s_expect_error_seq (self, DROVER_CODE_TOO_LARGE, 45);
    //  Headers whose seq reads though elements 0..2 are wrong: a wrong
    //  signature, a version that is a str, an id that is a str, nil, or
    //  past 2^32-1 (TASK CANCEL of task 1 otherwise)
    s_send_raw (self->hostile, "\x95\xa3" "DRX\x01\x0e\x2e\x01", 9);
    s_expect_error_seq (self, DROVER_CODE_BAD_REQUEST, 46);
    s_send_raw (self->hostile, "\x95\xa3" "DRV\xa1" "1\x0e\x2f\x01", 10);
    s_expect_error_seq (self, DROVER_CODE_BAD_REQUEST, 47);
    s_send_raw (self->hostile, "\x95\xa3" "DRV\x01\xa2" "14\x30\x01", 11);
    s_expect_error_seq (self, DROVER_CODE_BAD_REQUEST, 48);
    s_send_raw (self->hostile, "\x95\xa3" "DRV\x01\xc0\x31\x01", 9);
    s_expect_error_seq (self, DROVER_CODE_BAD_REQUEST, 49);
    s_send_raw (self->hostile, "\x95\xa3" "DRV\x01\xcf\x01\x00\x00\x00\x00\x00\x00\x0e"
                               "\x32\x01", 17);
    s_expect_error_seq (self, DROVER_CODE_BAD_REQUEST, 50);
    //  An element 3 that is not a uint32: seq 0. A wrong signature whose
    //  element 2 says ERROR: a status, never answered (the next reply is
    //  the one after it)
    s_send_raw (self->hostile, "\x95\xa3" "DRV\x01\x0e\xa1" "3\x01", 10);
    s_expect_error_seq (self, DROVER_CODE_BAD_REQUEST, 0);
    s_send_raw (self->hostile, "\x96\xa3" "DRX\x01\x15\x33\xcd\x01\x90\xa0", 13);
    //  A TASK LIST with an empty label filter, seq 52
    s_send_raw (self->hostile, "\x97\xa3" "DRV\x01\x0f\x34\x0a\xcc\xff\x90", 12);
    s_expect_error_seq (self, DROVER_CODE_BAD_REQUEST, 52);
    s_client_is_served (self);
}

static void
test_well_formed_but_unexpected (void **state)
{
    s_fixture_t *self = (s_fixture_t *) *state;
    //  A message only the broker sends
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_WORKER_WELCOME);
    testutil_send (self->hostile, &msg);
    s_expect_error (self, DROVER_CODE_UNEXPECTED);
    //  A heartbeat from a worker that never said hello
    msg = drover_msg_new (DROVER_MSG_WORKER_HEARTBEAT);
    strcpy (msg->worker, "ghost");
    testutil_send (self->hostile, &msg);
    s_expect_error (self, DROVER_CODE_NOT_REGISTERED);
    //  A result for a task never assigned, from a worker never registered
    msg = drover_msg_new (DROVER_MSG_TASK_RESULT);
    strcpy (msg->worker, "ghost");
    msg->task = 424242;
    msg->attempt = 1;
    testutil_send (self->hostile, &msg);
    s_expect_error (self, DROVER_CODE_NOT_REGISTERED);
    //  Cancel and admin of things that do not exist
    msg = drover_msg_new (DROVER_MSG_TASK_CANCEL);
    msg->task = 424242;
    testutil_send (self->hostile, &msg);
    s_expect_error (self, DROVER_CODE_NOT_FOUND);
    //  (a hold or drain of a worker not connected is kept for when it
    //  joins; there is nothing to resume)
    msg = drover_msg_new (DROVER_MSG_WORKER_ADMIN);
    strcpy (msg->worker, "ghost");
    msg->admin = DROVER_ADMIN_RUN;
    testutil_send (self->hostile, &msg);
    s_expect_error (self, DROVER_CODE_NOT_FOUND);
    //  A submit demanding no procs, and one whose body is not an exec body
    msg = testutil_submit_msg ("true", 0, 0, 0);
    testutil_send (self->hostile, &msg);
    s_expect_error (self, DROVER_CODE_BAD_REQUEST);
    msg = testutil_submit_msg ("true", 0, 1, 0);
    drover_msg_set_body (msg, (const byte *) "\x93\x01\x02\x03", 4);
    testutil_send (self->hostile, &msg);
    s_expect_error (self, DROVER_CODE_BAD_REQUEST);
    //  Statuses from a peer are dropped, never answered: the next reply
    //  the hostile peer sees is the one to its next request
    msg = drover_msg_new (DROVER_MSG_ERROR);
    msg->code = 500;
    testutil_send (self->hostile, &msg);
    msg = drover_msg_new (DROVER_MSG_OK);
    testutil_send (self->hostile, &msg);
    msg = drover_msg_new (DROVER_MSG_WORKER_LIST);
    msg->seq = 99;
    testutil_send (self->hostile, &msg);
    drover_msg_t *reply = testutil_recv_msg (self->hostile, 3000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_WORKER_TABLE);
    assert_int_equal (reply->seq, 99);
    drover_msg_destroy (&reply);
    s_client_is_served (self);
}

//  A peer that names itself with a routing id longer than the broker's
//  records hold (32 bytes; ZeroMQ allows 255) is served all the same: its
//  requests and replies travel the slower way, as czmq messages
static void
test_long_routing_id_is_served (void **state)
{
    s_fixture_t *self = (s_fixture_t *) *state;
    zsock_t *named = zsock_new (ZMQ_DEALER);
    assert_non_null (named);
    char routing_id [256];
    memset (routing_id, 'r', 255);
    routing_id [255] = 0;
    zsock_set_identity (named, routing_id);
    assert_int_equal (zsock_connect (named, "%s", self->cluster->endpoint), 0);
    uint64_t task = testutil_submit (named,
        testutil_submit_msg ("echo long name", 0, 1, DROVER_SUBMIT_NOTIFY));
    drover_msg_t *done = testutil_expect_done (named, task, DROVER_TASK_SUCCEEDED, 10000);
    assert_int_equal (done->out_size, strlen ("long name\n"));
    drover_msg_destroy (&done);
    zsock_destroy (&named);
    s_client_is_served (self);
}

//  After all of the above, real work still runs end to end
static void
test_real_work_still_runs (void **state)
{
    s_fixture_t *self = (s_fixture_t *) *state;
    for (int count = 0; count < 2000; count++)
        s_send_raw (self->hostile, "\xc1", 1);     //  0xc1: never valid msgpack
    uint64_t task = testutil_submit (self->client,
        testutil_submit_msg ("echo still here", 0, 1, DROVER_SUBMIT_NOTIFY));
    drover_msg_t *done = testutil_expect_done (self->client, task, DROVER_TASK_SUCCEEDED, 10000);
    assert_int_equal (done->out_size, strlen ("still here\n"));
    drover_msg_destroy (&done);
    for (int count = 0; count < 2000; count++)
        s_expect_error (self, DROVER_CODE_BAD_REQUEST);
}

//  Past max-queued, SUBMIT is refused with "queue full" and nothing is lost
static void
test_queue_full_is_refused (void **state)
{
    const char *flags [] = { "--set", "assign/max-queued=3", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    zsock_t *client = testutil_dealer (cluster);
    for (int count = 0; count < 3; count++)
        testutil_submit (client, testutil_submit_msg ("true", 0, 1, 0));
    drover_msg_t *submit = testutil_submit_msg ("true", 0, 1, 0);
    drover_msg_t *reply = testutil_request (client, &submit, 5000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_ERROR);
    assert_int_equal (reply->code, DROVER_CODE_QUEUE_FULL);
    drover_msg_destroy (&reply);
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_LIST);
    request->state = 255;
    reply = testutil_request (client, &request, 5000);
    assert_non_null (reply);
    assert_int_equal (reply->counts [DROVER_TASK_QUEUED], 3);
    drover_msg_destroy (&reply);
    zsock_destroy (&client);
    testutil_cluster_destroy (&cluster);
}

int
main (void)
{
    const struct CMUnitTest matrix [] = {
        cmocka_unit_test (test_garbage_is_answered_bad_request),
        cmocka_unit_test (test_multiple_frames_are_refused),
        cmocka_unit_test (test_unknown_version_and_id),
        cmocka_unit_test (test_oversized_refused_then_cut_off),
        cmocka_unit_test (test_refusals_echo_a_readable_seq),
        cmocka_unit_test (test_spec_and_broker_agree),
        cmocka_unit_test (test_well_formed_but_unexpected),
        cmocka_unit_test (test_long_routing_id_is_served),
        cmocka_unit_test (test_real_work_still_runs),
    };
    const struct CMUnitTest alone [] = {
        cmocka_unit_test (test_queue_full_is_refused),
    };
    int failed = cmocka_run_group_tests (matrix, s_setup, s_teardown);
    return failed + cmocka_run_group_tests (alone, NULL, NULL);
}
