/*  =========================================================================
    test_drover_msg_roundtrip - the wire codec's round trips: every
    message round-trips field by field (decoded into a made message or a
    new one), at its limits too; the layout on
    the wire is pinned, integers of any width are read, a TASK DONE's
    outcome goes with its state, peek reads only the header; the setters,
    names, the socket helpers and REDIRECT's fields. The refusals of what
    a hostile peer sends are in test_drover_msg_hostile, other versions'
    messages in test_drover_msg_versions and protocol levels in
    test_drover_msg_levels; the exec body and events have their own tests
    (test_drover_exec, test_drover_event).
    =========================================================================
*/

#include "testcodec_msg.h"

//  ---------------------------------------------------------------------
//  Round trips

static void
test_roundtrip_every_message (void **state)
{
    for (int id = 1; id <= DROVER_MSG_ID_MAX; id++) {
        drover_msg_t *msg = testcodec_filled (id);
        size_t size;
        byte *data = testcodec_encode (msg, &size);
        drover_msg_t *copy = drover_msg_new (0);
        int rc = drover_msg_decode (copy, data, size);
        if (rc)
            fail_msg ("%s does not decode: %s", drover_msg_name (id), copy->error);
        assert_null (copy->error);
        testcodec_assert_same (msg, copy);
        //  Decoding again into a used message replaces what it held
        assert_int_equal (drover_msg_decode (copy, data, size), 0);
        testcodec_assert_same (msg, copy);
        free (data);
        drover_msg_destroy (&msg);
        drover_msg_destroy (&copy);
    }
}

//  A message decoded new holds what decoding into a made one holds; a
//  malformed one says why, with its id and seq, like drover_msg_decode
static void
test_decode_new (void **state)
{
    for (int id = 1; id <= DROVER_MSG_ID_MAX; id++) {
        drover_msg_t *msg = testcodec_filled (id);
        size_t size;
        byte *data = testcodec_encode (msg, &size);
        drover_msg_t *copy = drover_msg_decode_new (data, size);
        assert_non_null (copy);
        if (copy->error)
            fail_msg ("%s does not decode new: %s", drover_msg_name (id), copy->error);
        testcodec_assert_same (msg, copy);
        drover_msg_destroy (&copy);
        //  Cut short: malformed, and it says why, keeping id and seq
        copy = drover_msg_decode_new (data, size - 1);
        assert_non_null (copy->error);
        drover_msg_t *old = drover_msg_new (0);
        assert_int_equal (drover_msg_decode (old, data, size - 1), -2);
        assert_string_equal (copy->error, old->error);
        assert_int_equal (copy->id, old->id);
        assert_int_equal (copy->seq, old->seq);
        assert_int_equal (copy->too_large, old->too_large);
        assert_int_equal (copy->bad_version, old->bad_version);
        drover_msg_destroy (&old);
        drover_msg_destroy (&copy);
        free (data);
        drover_msg_destroy (&msg);
    }
    drover_msg_t *empty = drover_msg_decode_new (NULL, 0);
    assert_string_equal (empty->error, "empty message");
    drover_msg_destroy (&empty);
}

//  Every limit at its maximum still round-trips
static void
test_roundtrip_at_limits (void **state)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_WORKER_HELLO);
    memset (msg->worker, 'w', DROVER_ID_MAX);
    for (int index = 0; index < DROVER_LABELS_MAX; index++) {
        char label [DROVER_LABEL_MAX + 1];
        memset (label, 'v', DROVER_LABEL_MAX);
        label [DROVER_LABEL_MAX] = 0;
        memset (label, 'k', 62);                //  key of 63 bytes, value to 128
        snprintf (label + 62, 3, "%c=", 'a' + index);
        label [64] = 'v';
        assert_int_equal (drover_msg_add_label (msg, label), 0);
    }
    assert_int_equal (drover_msg_add_label (msg, "one=too-many"), -1);
    msg->nrunning = DROVER_RUNNING_MAX;
    msg->running = (drover_taskref_t *) zmalloc (DROVER_RUNNING_MAX * sizeof (drover_taskref_t));
    for (int index = 0; index < DROVER_RUNNING_MAX; index++)
        msg->running [index] = (drover_taskref_t) { UINT64_MAX - index, UINT32_MAX - index };
    drover_msg_t *copy = drover_msg_new (0);
    testcodec_assert_roundtrip (msg, copy);
    drover_msg_destroy (&msg);

    msg = drover_msg_new (DROVER_MSG_TASK_RESULT);
    strcpy (msg->worker, "w");
    byte *big = (byte *) malloc (DROVER_OUTPUT_MAX);
    for (size_t index = 0; index < DROVER_OUTPUT_MAX; index++)
        big [index] = (byte) testcodec_random ();
    drover_msg_set_output (msg, big, DROVER_OUTPUT_MAX, big, DROVER_OUTPUT_MAX);
    char reason [DROVER_REASON_MAX + 1];
    memset (reason, 'r', DROVER_REASON_MAX);
    reason [DROVER_REASON_MAX] = 0;
    drover_msg_set_reason (msg, reason);
    msg->exit_code = INT32_MAX;
    msg->signal = INT32_MIN;
    testcodec_assert_roundtrip (msg, copy);
    free (big);
    drover_msg_destroy (&msg);

    msg = drover_msg_new (DROVER_MSG_TASK_WAIT);
    msg->ntasks = DROVER_WAIT_MAX;
    msg->tasks = (uint64_t *) zmalloc (DROVER_WAIT_MAX * sizeof (uint64_t));
    for (int index = 0; index < DROVER_WAIT_MAX; index++)
        msg->tasks [index] = (uint64_t) index << (index % 64);
    testcodec_assert_roundtrip (msg, copy);
    drover_msg_destroy (&msg);
    drover_msg_destroy (&copy);
}

//  The header bytes are pinned: signature as fixstr, then version and id
//  as single bytes (tests and tools patch them in place)
static void
test_wire_layout_is_pinned (void **state)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_TASK_LIST);
    msg->seq = 7;
    size_t size;
    byte *data = testcodec_encode (msg, &size);
    const byte expected [] = { 0x96, 0xa3, 'D', 'R', 'V', 0x01, 0x0f, 0x07, 0x00, 0x00 };
    assert_int_equal (size, sizeof expected);
    assert_memory_equal (data, expected, sizeof expected);
    free (data);
    //  The two examples of PROTOCOL.md, section 4.2
    msg->limit = 100;
    msg->state = 255;
    data = testcodec_encode (msg, &size);
    const byte list [] = { 0x96, 0xa3, 'D', 'R', 'V', 0x01, 0x0f, 0x07, 0x64, 0xcc, 0xff };
    assert_int_equal (size, sizeof list);
    assert_memory_equal (data, list, sizeof list);
    free (data);
    drover_msg_destroy (&msg);
    msg = drover_msg_new (DROVER_MSG_ERROR);
    msg->seq = 8;
    msg->code = DROVER_CODE_NOT_FOUND;
    drover_msg_set_reason (msg, "unknown task");
    data = testcodec_encode (msg, &size);
    const byte error [] = { 0x96, 0xa3, 'D', 'R', 'V', 0x01, 0x15, 0x08, 0xcd, 0x01, 0x94,
                            0xac, 'u', 'n', 'k', 'n', 'o', 'w', 'n', ' ', 't', 'a', 's', 'k' };
    assert_int_equal (size, sizeof error);
    assert_memory_equal (data, error, sizeof error);
    free (data);
    drover_msg_destroy (&msg);
}

//  Any msgpack integer width is accepted, in range
static void
test_any_integer_width (void **state)
{
    //  TASK OFFER with every integer in an unusual width
    const byte offer [] = {
        0x9b, 0xa3, 'D', 'R', 'V',
        0xcf, 0, 0, 0, 0, 0, 0, 0, 1,           //  version 1 as uint64
        0xd3, 0, 0, 0, 0, 0, 0, 0, 6,           //  id 6 as int64
        0xd0, 0x05,                             //  seq 5 as int8
        0xcd, 0x00, 0x2a,                       //  task 42 as uint16
        0xd2, 0, 0, 0, 3,                       //  attempt 3 as int32
        0xd1, 0xff, 0xfe,                       //  priority -2 as int16
        0xe0,                                   //  procs: negative fixint: refused below
        0xcc, 0x10,                             //  mem 16 as uint8
        0xce, 0, 0, 0x03, 0xe8,                 //  timeout 1000 as uint32
        0xc4, 0x00                              //  empty body as bin 8
    };
    byte data [sizeof offer];
    memcpy (data, offer, sizeof offer);
    testcodec_assert_refused (data, sizeof data, "procs: out of range");
    data [36] = 0x04;                           //  procs 4 as positive fixint
    drover_msg_t *msg = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (msg, data, sizeof data), 0);
    assert_int_equal (msg->id, DROVER_MSG_TASK_OFFER);
    assert_int_equal (msg->seq, 5);
    assert_true (msg->task == 42);
    assert_int_equal (msg->attempt, 3);
    assert_int_equal (msg->priority, -2);
    assert_int_equal (msg->procs, 4);
    assert_true (msg->mem == 16);
    assert_int_equal (msg->timeout, 1000);
    assert_null (msg->body);
    assert_int_equal (msg->body_size, 0);

    //  Out of range for the field's width
    data [28] = 0xce;                           //  attempt as uint32 0x80000003: fits
    assert_int_equal (drover_msg_decode (msg, data, sizeof data), 0);
    data [29] = 0x80;
    assert_int_equal (drover_msg_decode (msg, data, sizeof data), 0);
    assert_int_equal (msg->attempt, 0x80000003u);
    data [28] = 0xd2;                           //  as int32 it is negative: refused
    testcodec_assert_refused (data, sizeof data, "attempt: out of range");
    drover_msg_destroy (&msg);

    //  int32 and uint32 fields refuse values past their range
    testcodec_raw_t raw;
    for (int round = 0; round < 3; round++) {
        testcodec_raw_begin_seq (&raw, DROVER_MSG_TASK_SUBMIT, 8, 1);
        msgpack_pack_int64 (&raw.pk, round == 0? (int64_t) INT32_MIN - 1
                                   : round == 1? (int64_t) INT32_MAX + 1: 0);
        msgpack_pack_uint64 (&raw.pk, round == 2? (uint64_t) UINT32_MAX + 1: 1);
        msgpack_pack_uint8 (&raw.pk, 0);        //  mem
        msgpack_pack_array (&raw.pk, 0);        //  labels
        for (int index = 0; index < 3; index++)
            msgpack_pack_uint8 (&raw.pk, 0);    //  timeout, retries, flags
        msgpack_pack_bin (&raw.pk, 0);
        testcodec_assert_raw_says (&raw, round < 2? "priority: out of range"
                                                  : "procs: out of range");
    }
}

//  TASK DONE once carried no outcome: a client told a timeout from a signal
//  by the reason's words. Its outcome (and a TASK TABLE row's) goes with
//  its state, both ways: an encoder refuses a pair the spec does not list,
//  and a decoder refuses a known state with a known outcome that does not
//  fit as malformed. An outcome past the ones this version knows (a newer
//  broker's) is kept as it came: there is nothing to check it by.
static void
test_done_outcome_goes_with_its_state (void **state)
{
    int fitting = 0;
    for (int task_state = 0; task_state < DROVER_TASK_STATES; task_state++)
        for (int end = 0; end <= DROVER_END_MAX + 1; end++) {
            bool fits = drover_end_fits (task_state, end);
            fitting += fits;
            drover_msg_t *done = drover_msg_new (DROVER_MSG_TASK_DONE);
            done->task = 5;
            done->state = (uint8_t) task_state;
            done->end = (uint8_t) end;
            zframe_t *frame = drover_msg_encode (done);
            assert_int_equal (frame != NULL, fits);
            drover_msg_t *copy = drover_msg_new (0);
            if (frame) {
                assert_int_equal (drover_msg_decode (copy, zframe_data (frame),
                                                     zframe_size (frame)), 0);
                assert_int_equal (copy->end, end);
            }
            zframe_destroy (&frame);
            //  The same pair, hand-packed: a decoder refuses what does not fit
            testcodec_raw_t raw;
            testcodec_raw_begin_seq (&raw, DROVER_MSG_TASK_DONE, 12, 3);
            msgpack_pack_uint8 (&raw.pk, 5);
            msgpack_pack_uint8 (&raw.pk, (uint8_t) task_state);
            msgpack_pack_uint8 (&raw.pk, (uint8_t) end);
            msgpack_pack_uint8 (&raw.pk, 0);            //  attempt
            testcodec_raw_str (&raw, "", 0);                    //  worker
            for (int field = 0; field < 4; field++)     //  exit_code .. duration
                msgpack_pack_uint8 (&raw.pk, 0);
            msgpack_pack_bin (&raw.pk, 0);              //  out
            msgpack_pack_bin (&raw.pk, 0);              //  err
            testcodec_raw_str (&raw, "", 0);                    //  reason
            if (fits || end > DROVER_END_MAX) {
                assert_int_equal (drover_msg_decode (copy, RAW_DATA (raw), RAW_SIZE (raw)), 0);
                assert_int_equal (copy->state, task_state);
                assert_int_equal (copy->end, end);
            }
            else
                testcodec_assert_refused (RAW_DATA (raw), RAW_SIZE (raw),
                                          "outcome: does not go with the state");
            testcodec_raw_destroy (&raw);
            drover_msg_destroy (&copy);
            drover_msg_destroy (&done);
        }
    assert_int_equal (fitting, 3 + 1 + 2 + 6 + 2);     //  CANCELLED: and DEPENDENCY;
                                                        //  FAILED: and OOM
    char name [32];
    snprintf (name, sizeof name, "%s", drover_end_name (DROVER_END_TIMED_OUT));
    assert_string_equal (name, "TIMED_OUT");
    assert_string_equal (drover_end_name (DROVER_END_MAX + 1), "INVALID");
}

//  drover_msg_peek reads the id and seq of any header, whatever follows:
//  the broker echoes that seq when it refuses a message it does not decode
static void
test_peek_reads_only_the_header (void **state)
{
    for (int id = 1; id <= DROVER_MSG_ID_MAX; id++) {
        drover_msg_t *msg = testcodec_filled (id);
        size_t size;
        byte *data = testcodec_encode (msg, &size);
        uint32_t seq = 1;
        assert_int_equal (drover_msg_peek (data, size, &seq), id);
        assert_int_equal (seq, msg->seq);
        //  A broken tail does not matter (past the 12-byte header of
        //  seq 0xfffffffe); a cut header does
        if (size > 12)
            data [size - 1] = 0xc1;
        assert_int_equal (drover_msg_peek (data, size, &seq), id);
        assert_int_equal (seq, msg->seq);
        assert_int_equal (drover_msg_peek (data, 3, &seq), -1);
        assert_int_equal (seq, 0);
        free (data);
        drover_msg_destroy (&msg);
    }
    //  Another version: the seq still reads; garbage and NULL cannot be read
    uint32_t seq;
    testcodec_raw_t raw;
    testcodec_raw_init (&raw);
    msgpack_pack_array (&raw.pk, 9);
    testcodec_raw_str (&raw, "DRV", 3);
    msgpack_pack_uint8 (&raw.pk, 2);
    msgpack_pack_uint8 (&raw.pk, DROVER_MSG_TASK_LIST);
    msgpack_pack_uint32 (&raw.pk, 123456);
    assert_int_equal (drover_msg_peek (RAW_DATA (raw), RAW_SIZE (raw), &seq), DROVER_MSG_TASK_LIST);
    assert_int_equal (seq, 123456);
    testcodec_raw_destroy (&raw);
    assert_int_equal (drover_msg_peek ((const byte *) "hello", 5, &seq), -1);
    assert_int_equal (seq, 0);
    assert_int_equal (drover_msg_peek (NULL, 0, &seq), -1);
    assert_int_equal (seq, 0);
}

//  ---------------------------------------------------------------------
//  Setters, names, validity, and the socket helpers

static void
test_setters_and_names (void **state)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_ERROR);
    //  Reason cut at 256 bytes, and back to a UTF-8 boundary
    char reason [400];
    memset (reason, 'a', sizeof reason);
    reason [sizeof reason - 1] = 0;
    drover_msg_set_reason (msg, reason);
    assert_int_equal (strlen (msg->reason), DROVER_REASON_MAX);
    memcpy (reason + 255, "\xc3\xa9", 2);      //  "é" straddles the cut
    drover_msg_set_reason (msg, reason);
    assert_int_equal (strlen (msg->reason), 255);
    drover_msg_set_reason (msg, NULL);
    assert_null (msg->reason);
    drover_msg_set_body (msg, (const byte *) "abc", 3);
    drover_msg_set_body (msg, (const byte *) "de", 2);
    assert_int_equal (msg->body_size, 2);
    assert_memory_equal (msg->body, "de", 2);
    drover_msg_set_body (msg, NULL, 0);
    assert_null (msg->body);
    drover_msg_set_output (msg, (const byte *) "o", 1, NULL, 5);
    assert_int_equal (msg->out_size, 1);
    assert_null (msg->err);
    assert_int_equal (msg->err_size, 0);
    drover_msg_reset (msg);
    assert_int_equal (msg->id, 0);
    assert_null (msg->out);
    drover_msg_destroy (&msg);
    drover_msg_destroy (&msg);                  //  harmless twice

    assert_string_equal (drover_msg_name (DROVER_MSG_TASK_SUBMIT), "TASK SUBMIT");
    assert_string_equal (drover_msg_name (DROVER_MSG_ERROR), "ERROR");
    assert_string_equal (drover_msg_name (0), "INVALID");
    assert_string_equal (drover_msg_name (99), "INVALID");
    assert_string_equal (drover_task_state_name (DROVER_TASK_SUCCEEDED), "SUCCEEDED");
    assert_string_equal (drover_task_state_name (-1), "INVALID");
    assert_string_equal (drover_worker_health_name (DROVER_HEALTH_PROBATION), "PROBATION");
    assert_string_equal (drover_admin_name (DROVER_ADMIN_DRAIN), "DRAIN");
    assert_string_equal (drover_outcome_name (DROVER_OUTCOME_TIMEDOUT), "TIMEDOUT");
    assert_string_equal (drover_outcome_name (DROVER_OUTCOME_MAX + 1), "INVALID");

    assert_true (drover_id_valid ("node-1.example.com"));
    assert_true (drover_id_valid ("x"));
    assert_false (drover_id_valid (""));
    assert_false (drover_id_valid (NULL));
    assert_false (drover_id_valid ("a b"));
    assert_false (drover_id_valid ("tab\there"));
    assert_false (drover_id_valid ("caf\xc3\xa9"));
    char id [DROVER_ID_MAX + 2];
    memset (id, 'i', sizeof id);
    id [DROVER_ID_MAX] = 0;
    assert_true (drover_id_valid (id));
    id [DROVER_ID_MAX] = 'i';
    id [DROVER_ID_MAX + 1] = 0;
    assert_false (drover_id_valid (id));

    assert_true (drover_label_valid ("gpu=a100"));
    assert_true (drover_label_valid ("os.family_x-1=linux 6.1"));
    assert_true (drover_label_valid ("empty="));
    assert_false (drover_label_valid ("=value"));
    assert_false (drover_label_valid ("novalue"));
    assert_false (drover_label_valid ("sp ace=x"));
    assert_false (drover_label_valid ("k=line\nbreak"));
    assert_false (drover_label_valid (NULL));
    char label [80];
    memset (label, 'k', sizeof label);
    strcpy (label + 63, "=v");
    assert_true (drover_label_valid (label));
    memset (label, 'k', sizeof label);
    strcpy (label + 64, "=v");                  //  key of 64 bytes
    assert_false (drover_label_valid (label));
}

static void
test_send_and_recv (void **state)
{
    zsock_t *server = zsock_new_dealer ("@inproc://test-drover-msg");
    zsock_t *client = zsock_new_dealer (">inproc://test-drover-msg");
    assert_non_null (server);
    assert_non_null (client);
    drover_msg_t *msg = testcodec_filled (DROVER_MSG_TASK_RESULT);
    assert_int_equal (drover_msg_send (msg, client), 0);
    drover_msg_t *got = drover_msg_new (0);
    assert_int_equal (drover_msg_recv (got, server), 0);
    testcodec_assert_same (msg, got);

    //  Two frames: refused, and the next message is read whole
    zstr_sendm (client, "one");
    zstr_send (client, "two");
    assert_int_equal (drover_msg_send (msg, client), 0);
    assert_int_equal (drover_msg_recv (got, server), -2);
    assert_string_equal (got->error, "more than one frame");
    assert_int_equal (drover_msg_recv (got, server), 0);
    testcodec_assert_same (msg, got);

    //  A message that cannot be encoded is not sent
    msg->outcome = DROVER_OUTCOME_MAX + 1;
    assert_int_equal (drover_msg_send (msg, client), -1);
    zstr_send (client, "garbage");
    assert_int_equal (drover_msg_recv (got, server), -2);
    assert_non_null (got->error);
    drover_msg_destroy (&got);
    drover_msg_destroy (&msg);
    zsock_destroy (&client);
    zsock_destroy (&server);
}

//  REDIRECT: the leader's endpoint and name at their limits, empty (no
//  leader known), and every way they can be wrong
static void
test_redirect_fields (void **state)
{
    //  At the limits, and empty: both decode as sent
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_REDIRECT);
    drover_msg_t *copy = drover_msg_new (0);
    msg->seq = 9;
    memset (msg->leader, 'e', DROVER_ENDPOINT_MAX);
    memset (msg->leader_name, 'n', DROVER_ID_MAX);
    testcodec_assert_roundtrip (msg, copy);
    msg->leader [0] = 0;
    msg->leader_name [0] = 0;
    msg->seq = 0;                       //  the answer to a HEARTBEAT
    testcodec_assert_roundtrip (msg, copy);
    assert_string_equal (copy->leader, "");
    assert_string_equal (copy->leader_name, "");
    drover_msg_destroy (&msg);
    drover_msg_destroy (&copy);
    assert_string_equal (drover_msg_name (DROVER_MSG_REDIRECT), "REDIRECT");

    //  Refused on the way in: too long, not a string, missing
    char long_text [DROVER_ENDPOINT_MAX + 1];
    memset (long_text, 'x', sizeof long_text);
    testcodec_raw_t raw;
    testcodec_raw_begin_seq (&raw, DROVER_MSG_REDIRECT, 2, 5);
    testcodec_raw_str (&raw, long_text, DROVER_ENDPOINT_MAX + 1);
    testcodec_raw_str (&raw, "b2", 2);
    testcodec_assert_raw_says (&raw, "leader");
    testcodec_raw_begin_seq (&raw, DROVER_MSG_REDIRECT, 2, 5);
    testcodec_raw_str (&raw, "tcp://a:1", 9);
    testcodec_raw_str (&raw, long_text, DROVER_ID_MAX + 1);
    testcodec_assert_raw_says (&raw, "leader_name");
    testcodec_raw_begin_seq (&raw, DROVER_MSG_REDIRECT, 2, 5);
    testcodec_raw_str (&raw, "tcp://a\0:1", 10);
    testcodec_raw_str (&raw, "b2", 2);
    testcodec_assert_raw_says (&raw, "leader");
    testcodec_raw_begin_seq (&raw, DROVER_MSG_REDIRECT, 2, 5);
    msgpack_pack_bin_with_body (&raw.pk, "tcp://a:1", 9);
    testcodec_raw_str (&raw, "b2", 2);
    testcodec_assert_raw_says (&raw, "leader");
    testcodec_raw_begin_seq (&raw, DROVER_MSG_REDIRECT, 2, 5);
    testcodec_raw_str (&raw, "tcp://a:1", 9);
    msgpack_pack_nil (&raw.pk);
    testcodec_assert_raw_says (&raw, "leader_name");
    testcodec_raw_begin_seq (&raw, DROVER_MSG_REDIRECT, 1, 5);
    testcodec_raw_str (&raw, "tcp://a:1", 9);
    testcodec_assert_raw_says (&raw, "wrong number of fields");
    //  One field past them (a newer broker's) is passed over
    testcodec_raw_begin_seq (&raw, DROVER_MSG_REDIRECT, 3, 5);
    testcodec_raw_str (&raw, "tcp://a:1", 9);
    testcodec_raw_str (&raw, "b2", 2);
    testcodec_raw_str (&raw, "b3", 2);
    copy = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (copy, RAW_DATA (raw), RAW_SIZE (raw)), 0);
    assert_int_equal (copy->seq, 5);
    assert_string_equal (copy->leader, "tcp://a:1");
    assert_string_equal (copy->leader_name, "b2");
    drover_msg_destroy (&copy);
    testcodec_raw_destroy (&raw);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_roundtrip_every_message),
        cmocka_unit_test (test_decode_new),
        cmocka_unit_test (test_roundtrip_at_limits),
        cmocka_unit_test (test_wire_layout_is_pinned),
        cmocka_unit_test (test_any_integer_width),
        cmocka_unit_test (test_peek_reads_only_the_header),
        cmocka_unit_test (test_done_outcome_goes_with_its_state),
        cmocka_unit_test (test_setters_and_names),
        cmocka_unit_test (test_send_and_recv),
        cmocka_unit_test (test_redirect_fields),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
