/*  =========================================================================
    test_drover_msg_hostile - everything a hostile peer can send the
    wire codec (truncations, oversized fields, wrong types, bad versions
    and signatures, deep nesting, trailing bytes, NUL bytes, malformed keys
    and state ids, rows claimed past the bytes, random bytes and mutations
    of valid messages) is refused with -2 and a reason, without a crash, a
    leak or an allocation past the message's own size (run under
    ASan+UBSan).
    =========================================================================
*/

#include "testcodec_msg.h"
#include "testcodec_known.h"

//  ---------------------------------------------------------------------
//  Refusals

//  Decode raw bytes expecting a refusal, and return the largest single
//  allocation the attempt made
static size_t
s_refused_costs (const byte *data, size_t size)
{
    drover_msg_t *msg = drover_msg_new (0);
    testcodec_alloc_largest = 0;
    int rc = drover_msg_decode (msg, data, size);
    size_t largest = testcodec_alloc_largest;
    assert_int_equal (rc, -2);
    drover_msg_destroy (&msg);
    return largest;
}

//  A TASK TABLE or WORKER TABLE once allocated count x sizeof (row), 96
//  and 296 bytes, after checking only that count <= bytes left: a 10 KB
//  table of 10000 one-byte "rows" cost a 2.96 MB calloc before its first
//  row was refused. Each array is now refused unless the bytes left can
//  hold count elements of their smallest encoding, before allocating.
static void
test_rows_claimed_past_bytes_are_refused_unallocated (void **state)
{
    testcodec_raw_t raw;
    //  TASK TABLE: counts, then 10000 nils where rows should be
    testcodec_raw_begin_seq (&raw, DROVER_MSG_TASK_TABLE, 2, 5);
    msgpack_pack_array (&raw.pk, DROVER_TASK_STATES);
    for (int index = 0; index < DROVER_TASK_STATES; index++)
        msgpack_pack_uint8 (&raw.pk, 0);
    msgpack_pack_array (&raw.pk, DROVER_ROWS_MAX);
    for (int index = 0; index < DROVER_ROWS_MAX; index++)
        msgpack_pack_nil (&raw.pk);
    size_t largest = s_refused_costs (RAW_DATA (raw), RAW_SIZE (raw));
    if (largest > RAW_SIZE (raw))
        fail_msg ("TASK TABLE of %zu bytes allocated %zu bytes at once", RAW_SIZE (raw), largest);
    testcodec_raw_destroy (&raw);

    //  WORKER TABLE: 10000 nils
    testcodec_raw_begin_seq (&raw, DROVER_MSG_WORKER_TABLE, 1, 6);
    msgpack_pack_array (&raw.pk, DROVER_ROWS_MAX);
    for (int index = 0; index < DROVER_ROWS_MAX; index++)
        msgpack_pack_nil (&raw.pk);
    largest = s_refused_costs (RAW_DATA (raw), RAW_SIZE (raw));
    if (largest > RAW_SIZE (raw))
        fail_msg ("WORKER TABLE of %zu bytes allocated %zu bytes at once", RAW_SIZE (raw), largest);
    testcodec_raw_destroy (&raw);

    //  WORKER TABLE: rows that are each 18 bytes, shorter than the smallest
    //  worker row, claimed as 500: refused as truncated, not allocated
    testcodec_raw_begin_seq (&raw, DROVER_MSG_WORKER_TABLE, 1, 7);
    msgpack_pack_array (&raw.pk, 500);
    for (int index = 0; index < 500; index++) {
        msgpack_pack_array (&raw.pk, 15);
        testcodec_raw_str (&raw, "ab", 2);
        for (int field = 1; field < 15; field++)
            msgpack_pack_uint8 (&raw.pk, 0);
    }
    largest = s_refused_costs (RAW_DATA (raw), RAW_SIZE (raw));
    if (largest > RAW_SIZE (raw))
        fail_msg ("WORKER TABLE of %zu bytes allocated %zu bytes at once", RAW_SIZE (raw), largest);
    testcodec_raw_destroy (&raw);

    //  HELLO: 4096 nils where running [task, attempt] pairs should be
    testcodec_raw_begin_seq (&raw, DROVER_MSG_WORKER_HELLO, 6, 8);
    testcodec_raw_str (&raw, "w1", 2);
    msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_uint8 (&raw.pk, 0);
    msgpack_pack_array (&raw.pk, 0);
    msgpack_pack_array (&raw.pk, DROVER_RUNNING_MAX);
    for (int index = 0; index < DROVER_RUNNING_MAX; index++)
        msgpack_pack_nil (&raw.pk);
    largest = s_refused_costs (RAW_DATA (raw), RAW_SIZE (raw));
    if (largest > RAW_SIZE (raw))
        fail_msg ("HELLO of %zu bytes allocated %zu bytes at once", RAW_SIZE (raw), largest);
    testcodec_raw_destroy (&raw);

    //  A real table still decodes, and costs at most its rows' structs
    drover_msg_t *msg = testcodec_filled (DROVER_MSG_WORKER_TABLE);
    size_t size;
    byte *data = testcodec_encode (msg, &size);
    drover_msg_t *copy = drover_msg_new (0);
    testcodec_alloc_largest = 0;
    assert_int_equal (drover_msg_decode (copy, data, size), 0);
    assert_true (testcodec_alloc_largest <= 2 * sizeof (drover_worker_row_t));
    testcodec_assert_same (msg, copy);
    drover_msg_destroy (&copy);
    drover_msg_destroy (&msg);
    free (data);
}

//  Raw TASK SUBMIT of a valid task with this key, of length bytes
static void
s_raw_submit_with_key (testcodec_raw_t *raw, const char *key, size_t length)
{
    testcodec_raw_begin_seq (raw, DROVER_MSG_TASK_SUBMIT, 9, 1);
    msgpack_pack_int (&raw->pk, 0);
    msgpack_pack_int (&raw->pk, 1);
    msgpack_pack_int (&raw->pk, 0);
    msgpack_pack_array (&raw->pk, 0);
    msgpack_pack_int (&raw->pk, 0);
    msgpack_pack_int (&raw->pk, 0);
    msgpack_pack_int (&raw->pk, 0);
    msgpack_pack_bin_with_body (&raw->pk, "\x94\x91\xa4true\x90\xc0\xc0", 10);
    testcodec_raw_str (raw, key, length);
}

//  Raw TASK WAIT for task 1 naming this state id, of length bytes
static void
s_raw_wait_with_state_id (testcodec_raw_t *raw, const char *state_id, size_t length)
{
    testcodec_raw_begin_seq (raw, DROVER_MSG_TASK_WAIT, 2, 1);
    msgpack_pack_array (&raw->pk, 1);
    msgpack_pack_uint8 (&raw->pk, 1);
    testcodec_raw_str (raw, state_id, length);
}

//  A submit key is 1..128 bytes of printable ASCII and a state id 32 hex
//  digits (or ""): anything else is malformed on the wire, and the encoder
//  will not send it
static void
test_malformed_keys_and_state_ids (void **state)
{
    testcodec_raw_t raw;
    char text [DROVER_KEY_MAX + 2];
    memset (text, 'k', sizeof text);
    //  The limits themselves are fine
    drover_msg_t *copy = drover_msg_new (0);
    s_raw_submit_with_key (&raw, text, DROVER_KEY_MAX);
    assert_int_equal (drover_msg_decode (copy, RAW_DATA (raw), RAW_SIZE (raw)), 0);
    assert_int_equal (strlen (copy->key), DROVER_KEY_MAX);
    testcodec_raw_destroy (&raw);
    s_raw_submit_with_key (&raw, " ", 1);
    assert_int_equal (drover_msg_decode (copy, RAW_DATA (raw), RAW_SIZE (raw)), 0);
    assert_string_equal (copy->key, " ");
    testcodec_raw_destroy (&raw);

    s_raw_submit_with_key (&raw, "", 0);
    testcodec_assert_raw_says (&raw, "key: out of range");
    s_raw_submit_with_key (&raw, text, DROVER_KEY_MAX + 1);
    testcodec_assert_raw_says (&raw, "key: out of range");
    const char *bad_keys [] = { "tab\there", "new\nline", "del\x7f", "caf\xc3\xa9", "\x1f",
                                "\x80" };
    for (size_t index = 0; index < sizeof bad_keys / sizeof bad_keys [0]; index++) {
        s_raw_submit_with_key (&raw, bad_keys [index], strlen (bad_keys [index]));
        testcodec_assert_raw_says (&raw, "key: not 1..128 bytes of printable ASCII");
    }
    s_raw_submit_with_key (&raw, "nul\0byte", 8);
    testcodec_assert_raw_says (&raw, "key");
    //  A key of another type
    testcodec_raw_begin_seq (&raw, DROVER_MSG_TASK_SUBMIT, 9, 1);
    for (int index = 0; index < 7; index++)
        msgpack_pack_int (&raw.pk, index == 1);
    msgpack_pack_bin_with_body (&raw.pk, "\x94\x91\xa4true\x90\xc0\xc0", 10);
    msgpack_pack_bin_with_body (&raw.pk, "key", 3);
    testcodec_assert_raw_says (&raw, "wrong type");

    const char *bad_ids [] = { "0123456789abcdef0123456789abcde", "0123456789abcdef0123456789abcdef0",
                               "0123456789abcdef0123456789abcdeg", "0123456789abcdef 123456789abcdef",
                               "-123456789abcdef0123456789abcdef" };
    for (size_t index = 0; index < sizeof bad_ids / sizeof bad_ids [0]; index++) {
        s_raw_wait_with_state_id (&raw, bad_ids [index], strlen (bad_ids [index]));
        testcodec_assert_raw_says (&raw, "state_id");
    }

    //  The encoder refuses what the decoder would
    drover_msg_t *msg = testcodec_filled (DROVER_MSG_TASK_SUBMIT);
    for (size_t index = 0; index < sizeof bad_keys / sizeof bad_keys [0]; index++) {
        free (msg->key);
        msg->key = strdup (bad_keys [index]);
        assert_null (drover_msg_encode (msg));
    }
    free (msg->key);
    msg->key = strdup ("");
    assert_null (drover_msg_encode (msg));
    free (msg->key);
    msg->key = (char *) zmalloc (DROVER_KEY_MAX + 2);
    memset (msg->key, 'k', DROVER_KEY_MAX + 1);
    assert_null (drover_msg_encode (msg));
    msg->key [DROVER_KEY_MAX] = 0;
    testcodec_assert_roundtrip (msg, copy);
    drover_msg_destroy (&msg);
    msg = testcodec_filled (DROVER_MSG_WORKER_WELCOME);
    for (size_t index = 0; index < sizeof bad_ids / sizeof bad_ids [0]; index++) {
        snprintf (msg->state_id, sizeof msg->state_id, "%s", bad_ids [index]);
        if (strlen (bad_ids [index]) <= DROVER_STATE_ID_SIZE)
            assert_null (drover_msg_encode (msg));
    }
    drover_msg_destroy (&msg);
    drover_msg_destroy (&copy);
}

//  EVENT LIST: each entry is one event body in a bin, checked as events
//  are; a count the bytes cannot hold is refused before allocating; more
//  is 0 or 1; past DROVER_REPLAY_MAX events the encoder refuses
static void
test_event_list_refusals (void **state)
{
    testcodec_raw_t raw;
    //  A body that is not an event (no topic), and one that is not a bin
    testcodec_raw_begin_seq (&raw, DROVER_MSG_EVENT_LIST, 3, 1);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_bin_with_body (&raw.pk, "\x81\xa4task\x01", 7);
    msgpack_pack_uint8 (&raw.pk, 0);
    msgpack_pack_uint8 (&raw.pk, 0);
    testcodec_assert_raw_says (&raw, "events: not an event body");
    testcodec_raw_begin_seq (&raw, DROVER_MSG_EVENT_LIST, 3, 1);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_map (&raw.pk, 1);
    testcodec_raw_str (&raw, "topic", 5);
    testcodec_raw_str (&raw, "x", 1);
    msgpack_pack_uint8 (&raw.pk, 0);
    msgpack_pack_uint8 (&raw.pk, 0);
    testcodec_assert_raw_says (&raw, "events: wrong type");
    //  more is a flag: a value past 1 (the broker's, a newer one's) is kept
    //  as it came, as any uint8 of a message the broker sends; a negative
    //  one is refused
    testcodec_raw_begin_seq (&raw, DROVER_MSG_EVENT_LIST, 3, 1);
    msgpack_pack_array (&raw.pk, 0);
    msgpack_pack_uint8 (&raw.pk, 0);
    msgpack_pack_uint8 (&raw.pk, 2);
    drover_msg_t *list = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (list, RAW_DATA (raw), RAW_SIZE (raw)), 0);
    assert_int_equal (list->more, 2);
    assert_int_equal (list->nevents, 0);
    drover_msg_destroy (&list);
    testcodec_raw_destroy (&raw);
    testcodec_raw_begin_seq (&raw, DROVER_MSG_EVENT_LIST, 3, 1);
    msgpack_pack_array (&raw.pk, 0);
    msgpack_pack_uint8 (&raw.pk, 0);
    msgpack_pack_int8 (&raw.pk, -1);
    testcodec_assert_raw_says (&raw, "more");
    //  1000 events claimed, each a 1-byte nil: refused unallocated
    testcodec_raw_begin_seq (&raw, DROVER_MSG_EVENT_LIST, 3, 1);
    msgpack_pack_array (&raw.pk, DROVER_REPLAY_MAX);
    for (int index = 0; index < DROVER_REPLAY_MAX; index++)
        msgpack_pack_nil (&raw.pk);
    msgpack_pack_uint8 (&raw.pk, 0);
    msgpack_pack_uint8 (&raw.pk, 0);
    size_t largest = s_refused_costs (RAW_DATA (raw), RAW_SIZE (raw));
    if (largest > RAW_SIZE (raw))
        fail_msg ("EVENT LIST of %zu bytes allocated %zu bytes at once", RAW_SIZE (raw), largest);
    testcodec_raw_destroy (&raw);
    //  The most events round-trip; one more does not encode
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_EVENT_LIST);
    msg->events = (drover_event_t *) zmalloc ((DROVER_REPLAY_MAX + 1) * sizeof (drover_event_t));
    for (int index = 0; index <= DROVER_REPLAY_MAX; index++) {
        msg->events [index] = (drover_event_t) { .seq = index + 1, .topic = "worker.up",
                                                 .worker = "w" };
        memset (msg->events [index].reason, 'r', DROVER_REASON_MAX);
    }
    msg->nevents = DROVER_REPLAY_MAX;
    drover_msg_t *copy = drover_msg_new (0);
    testcodec_assert_roundtrip (msg, copy);
    msg->nevents = DROVER_REPLAY_MAX + 1;
    assert_null (drover_msg_encode (msg));
    drover_msg_destroy (&copy);
    drover_msg_destroy (&msg);
}

//  Every prefix of every valid message is refused
static void
test_truncated_at_every_length (void **state)
{
    for (int id = 1; id <= DROVER_MSG_ID_MAX; id++) {
        drover_msg_t *msg = testcodec_filled (id);
        size_t size;
        byte *data = testcodec_encode (msg, &size);
        for (size_t length = 0; length < size; length++) {
            //  Copy into an exact-size buffer so ASan sees any over-read
            byte *prefix = (byte *) malloc (length? length: 1);
            memcpy (prefix, data, length);
            testcodec_refused (length? prefix: NULL, length);
            free (prefix);
        }
        free (data);
        drover_msg_destroy (&msg);
    }
}

static void
test_oversized_fields (void **state)
{
    testcodec_raw_t raw;
    char text [DROVER_STRING_MAX + 2];
    memset (text, 'x', sizeof text);

    //  Worker id of 65 bytes: the encoder refuses it, and so does the decoder
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_WORKER_GOODBYE);
    memset (msg->worker, 'x', sizeof msg->worker);
    assert_null (drover_msg_encode (msg));
    msg->worker [0] = 0;
    assert_null (drover_msg_encode (msg));      //  and an empty one
    drover_msg_destroy (&msg);
    testcodec_raw_begin_seq (&raw, DROVER_MSG_WORKER_GOODBYE, 2, 1);
    testcodec_raw_str (&raw, text, DROVER_ID_MAX + 1);
    msgpack_pack_uint8 (&raw.pk, 1);
    testcodec_assert_raw_says (&raw, "worker: out of range");

    //  17 labels
    testcodec_raw_begin_seq (&raw, DROVER_MSG_TASK_SUBMIT, 8, 1);
    msgpack_pack_int (&raw.pk, 0);
    msgpack_pack_int (&raw.pk, 1);
    msgpack_pack_int (&raw.pk, 0);
    msgpack_pack_array (&raw.pk, DROVER_LABELS_MAX + 1);
    for (int index = 0; index <= DROVER_LABELS_MAX; index++)
        testcodec_raw_str (&raw, "a=b", 3);
    for (int index = 0; index < 3; index++)
        msgpack_pack_int (&raw.pk, 0);
    msgpack_pack_bin (&raw.pk, 0);
    testcodec_assert_raw_says (&raw, "labels: out of range");

    //  A label past 128 bytes
    msg = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    char label [DROVER_LABEL_MAX + 2];
    memset (label, 'v', sizeof label);
    label [0] = 'k';
    label [1] = '=';
    label [DROVER_LABEL_MAX + 1] = 0;
    assert_int_equal (drover_msg_add_label (msg, label), -1);
    label [DROVER_LABEL_MAX] = 0;
    assert_int_equal (drover_msg_add_label (msg, label), 0);
    drover_msg_destroy (&msg);

    //  Reason past 256 bytes: the encoder refuses, so does the decoder
    msg = drover_msg_new (DROVER_MSG_ERROR);
    msg->reason = strndup (text, DROVER_REASON_MAX + 1);
    assert_null (drover_msg_encode (msg));
    drover_msg_destroy (&msg);
    testcodec_raw_begin_seq (&raw, DROVER_MSG_ERROR, 2, 1);
    msgpack_pack_uint16 (&raw.pk, 400);
    testcodec_raw_str (&raw, text, DROVER_REASON_MAX + 1);
    testcodec_assert_raw_says (&raw, "reason: out of range");

    //  Output past 1 MiB
    byte *big = (byte *) zmalloc (DROVER_BODY_MAX + 1);
    msg = drover_msg_new (DROVER_MSG_TASK_RESULT);
    strcpy (msg->worker, "w");
    drover_msg_set_output (msg, big, DROVER_OUTPUT_MAX + 1, NULL, 0);
    assert_null (drover_msg_encode (msg));
    drover_msg_destroy (&msg);
    testcodec_raw_begin_seq (&raw, DROVER_MSG_TASK_RESULT, 11, 1);
    testcodec_raw_str (&raw, "w", 1);
    for (int index = 0; index < 7; index++)
        msgpack_pack_int (&raw.pk, 0);
    msgpack_pack_bin_with_body (&raw.pk, big, DROVER_OUTPUT_MAX + 1);
    msgpack_pack_bin (&raw.pk, 0);
    testcodec_raw_str (&raw, "", 0);
    testcodec_assert_raw_says (&raw, "out: out of range");

    //  Body past 2 MiB
    testcodec_raw_begin_seq (&raw, DROVER_MSG_TASK_OFFER, 7, 1);
    for (int index = 0; index < 6; index++)
        msgpack_pack_int (&raw.pk, 1);
    msgpack_pack_bin_with_body (&raw.pk, big, DROVER_BODY_MAX + 1);
    testcodec_assert_raw_says (&raw, "body: out of range");
    free (big);

    //  An array claiming 2^32-1 elements in 5 bytes, alone and as a field
    testcodec_assert_refused ((const byte *) "\xdd\xff\xff\xff\xff", 5, "truncated");
    testcodec_raw_begin_seq (&raw, DROVER_MSG_TASK_WAIT, 1, 1);
    msgpack_sbuffer_write (&raw.buffer, "\xdd\xff\xff\xff\xff", 5);
    testcodec_assert_raw_says (&raw, "truncated");
    //  ... and a str and a bin claiming 4 GiB
    testcodec_raw_begin_seq (&raw, DROVER_MSG_ERROR, 2, 1);
    msgpack_pack_uint16 (&raw.pk, 400);
    msgpack_sbuffer_write (&raw.buffer, "\xdb\xff\xff\xff\xff", 5);
    testcodec_assert_raw_says (&raw, "truncated");
    testcodec_assert_refused ((const byte *) "\xc6\xff\xff\xff\xff", 5, "message: wrong type");
    testcodec_raw_begin_seq (&raw, DROVER_MSG_TASK_OFFER, 7, 1);
    for (int index = 0; index < 6; index++)
        msgpack_pack_int (&raw.pk, 1);
    msgpack_sbuffer_write (&raw.buffer, "\xc6\xff\xff\xff\xff", 5);
    testcodec_assert_raw_says (&raw, "truncated");

    //  A TASK WAIT past its limit, and a message past DROVER_MSG_MAX
    testcodec_raw_begin_seq (&raw, DROVER_MSG_TASK_WAIT, 1, 1);
    msgpack_pack_array (&raw.pk, DROVER_WAIT_MAX + 1);
    for (int index = 0; index <= DROVER_WAIT_MAX; index++)
        msgpack_pack_int (&raw.pk, index);
    testcodec_assert_raw_says (&raw, "tasks: out of range");
    byte *huge = (byte *) zmalloc (DROVER_MSG_MAX + 1);
    testcodec_assert_refused (huge, DROVER_MSG_MAX + 1, "too large");
    free (huge);

    //  The encoder refuses the same things
    msg = drover_msg_new (DROVER_MSG_TASK_WAIT);
    msg->ntasks = DROVER_WAIT_MAX + 1;
    msg->tasks = (uint64_t *) zmalloc (msg->ntasks * sizeof (uint64_t));
    assert_null (drover_msg_encode (msg));
    drover_msg_destroy (&msg);
    msg = drover_msg_new (DROVER_MSG_TASK_LIST);
    msg->state = DROVER_TASK_STATES;
    assert_null (drover_msg_encode (msg));
    msg->state = 255;
    zframe_t *frame = drover_msg_encode (msg);
    assert_non_null (frame);
    zframe_destroy (&frame);
    msg->id = 0;
    assert_null (drover_msg_encode (msg));
    msg->id = DROVER_MSG_ID_MAX + 1;
    assert_null (drover_msg_encode (msg));
    drover_msg_destroy (&msg);
}

//  Replace node `target` (pre-order) of a msgpack object with a value of
//  a type no field in that position accepts; counts nodes in *index
static void
s_pack_with_wrong_type (msgpack_packer *pk, const msgpack_object *object, int target, int *index)
{
    if ((*index)++ == target) {
        switch (object->type) {
            case MSGPACK_OBJECT_POSITIVE_INTEGER:
            case MSGPACK_OBJECT_NEGATIVE_INTEGER:
            case MSGPACK_OBJECT_FLOAT32:
            case MSGPACK_OBJECT_FLOAT64:
            case MSGPACK_OBJECT_BIN:
            case MSGPACK_OBJECT_NIL:
                msgpack_pack_str_with_body (pk, "x", 1);
                break;
            case MSGPACK_OBJECT_STR:
            case MSGPACK_OBJECT_ARRAY:
            case MSGPACK_OBJECT_MAP:
                msgpack_pack_true (pk);
                break;
            default:
                fail_msg ("unexpected object type %d", object->type);
        }
        //  Still count the replaced node's children, so indexes stay stable
        if (object->type == MSGPACK_OBJECT_ARRAY)
            for (uint32_t item = 0; item < object->via.array.size; item++) {
                msgpack_sbuffer sink;
                msgpack_sbuffer_init (&sink);
                msgpack_packer discard;
                msgpack_packer_init (&discard, &sink, msgpack_sbuffer_write);
                s_pack_with_wrong_type (&discard, &object->via.array.ptr [item], -1, index);
                msgpack_sbuffer_destroy (&sink);
            }
        return;
    }
    if (object->type == MSGPACK_OBJECT_ARRAY) {
        msgpack_pack_array (pk, object->via.array.size);
        for (uint32_t item = 0; item < object->via.array.size; item++)
            s_pack_with_wrong_type (pk, &object->via.array.ptr [item], target, index);
    }
    else
        msgpack_pack_object (pk, *object);
}

//  Every element of every message, at every depth, given a wrong type
static void
test_wrong_type_everywhere (void **state)
{
    int tried = 0;
    for (int id = 1; id <= DROVER_MSG_ID_MAX; id++) {
        drover_msg_t *msg = testcodec_filled (id);
        size_t size;
        byte *data = testcodec_encode (msg, &size);
        //  msgpack_unpack is fine here: these are our own bytes
        msgpack_unpacked unpacked;
        msgpack_unpacked_init (&unpacked);
        size_t offset = 0;
        assert_int_equal (msgpack_unpack_next (&unpacked, (const char *) data, size, &offset),
                          MSGPACK_UNPACK_SUCCESS);
        int nodes = 0;
        testcodec_raw_t raw;
        testcodec_raw_init (&raw);
        s_pack_with_wrong_type (&raw.pk, &unpacked.data, -1, &nodes);
        assert_int_equal (RAW_SIZE (raw), size);            //  identity when nothing replaced
        assert_memory_equal (RAW_DATA (raw), data, size);
        testcodec_raw_destroy (&raw);
        for (int target = 0; target < nodes; target++) {
            testcodec_raw_init (&raw);
            int index = 0;
            s_pack_with_wrong_type (&raw.pk, &unpacked.data, target, &index);
            const char *error = testcodec_refused (RAW_DATA (raw), RAW_SIZE (raw));
            //  Header nodes give their own errors; fields say "wrong type",
            //  except that a table whose row became a one-byte scalar may
            //  be too short for its row count (rows have a minimum size),
            //  and so may a TASK LIST whose labels, its last field, lost
            //  one to a one-byte scalar (labels have a minimum size too)
            bool table = id == DROVER_MSG_TASK_TABLE || id == DROVER_MSG_WORKER_TABLE
                      || id == DROVER_MSG_TASK_LIST || id == DROVER_MSG_SHARE_TABLE;
            if (target > 4 && !strstr (error, "wrong type")
            &&  !(table && strstr (error, "runs past the end")))
                fail_msg ("%s node %d: error \"%s\"", drover_msg_name (id), target, error);
            testcodec_raw_destroy (&raw);
            tried++;
        }
        msgpack_unpacked_destroy (&unpacked);
        free (data);
        drover_msg_destroy (&msg);
    }
    assert_true (tried > 150);
}

static void
test_version_signature_and_id (void **state)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_TASK_CANCEL);
    msg->seq = 31337;
    msg->task = 5;
    size_t size;
    byte *data = testcodec_encode (msg, &size);
    drover_msg_destroy (&msg);
    assert_int_equal (data [5], 1);             //  version byte, after fixstr "DRV"

    //  Unknown version: -2, "unknown version", bad_version, seq still read
    msg = drover_msg_new (0);
    for (int version = 0; version < 256; version++) {
        if (version == 1)
            continue;
        data [5] = (byte) version;
        assert_int_equal (drover_msg_decode (msg, data, size), -2);
        assert_non_null (msg->error);
        if (version < 0x80 || version >= 0xe0) {    //  one-byte integers, negative too
            assert_string_equal (msg->error, "unknown version");
            assert_true (msg->bad_version);
            assert_int_equal (msg->seq, 31337);
            assert_int_equal (msg->id, DROVER_MSG_TASK_CANCEL);
        }
    }
    //  A version that is not an integer is malformed, not unknown
    data [5] = 0xc0;
    assert_int_equal (drover_msg_decode (msg, data, size), -2);
    assert_false (msg->bad_version);
    assert_string_equal (msg->error, "version: wrong type");
    data [5] = 1;
    assert_int_equal (drover_msg_decode (msg, data, size), 0);
    assert_false (msg->bad_version);
    //  A later version may change everything after the header: still 426
    testcodec_raw_t raw;
    testcodec_raw_init (&raw);
    msgpack_pack_array (&raw.pk, 5);
    testcodec_raw_str (&raw, "DRV", 3);
    msgpack_pack_uint8 (&raw.pk, 2);
    msgpack_pack_uint8 (&raw.pk, 99);
    msgpack_pack_uint8 (&raw.pk, 9);
    msgpack_pack_array (&raw.pk, 1);            //  deeper than v1 allows
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 0);
    assert_int_equal (drover_msg_decode (msg, RAW_DATA (raw), RAW_SIZE (raw)), -2);
    assert_true (msg->bad_version);
    assert_int_equal (msg->seq, 9);
    testcodec_raw_destroy (&raw);

    //  Wrong signatures: not bad_version
    const char *signatures [] = { "DRX", "DR", "DRVV", "drv", "" };
    for (size_t index = 0; index < sizeof signatures / sizeof signatures [0]; index++) {
        testcodec_raw_init (&raw);
        msgpack_pack_array (&raw.pk, 5);
        testcodec_raw_str (&raw, signatures [index], strlen (signatures [index]));
        msgpack_pack_uint8 (&raw.pk, 1);
        msgpack_pack_uint8 (&raw.pk, DROVER_MSG_TASK_CANCEL);
        msgpack_pack_uint8 (&raw.pk, 1);
        msgpack_pack_uint8 (&raw.pk, 1);
        assert_int_equal (drover_msg_decode (msg, RAW_DATA (raw), RAW_SIZE (raw)), -2);
        assert_string_equal (msg->error, "message: wrong signature");
        assert_false (msg->bad_version);
        testcodec_raw_destroy (&raw);
    }
    testcodec_assert_refused ((const byte *) "\x95\xc0\x01\x0e\x01\x01", 6, "wrong signature");
    testcodec_assert_refused ((const byte *) "\x95\xc4\x03" "DRV\x01\x0e\x01\x01", 9,
                              "wrong signature");
    testcodec_assert_refused ((const byte *) "\x80", 1, "message: wrong type");   //  a map
    testcodec_assert_refused ((const byte *) "\x90", 1, "wrong signature");       //  empty array
    testcodec_assert_refused ((const byte *) "\x92\xa3" "DRV\x01", 6, "header incomplete");

    //  Unknown message ids, with the seq still read for the reply
    uint64_t ids [] = { 0, DROVER_MSG_ID_MAX + 1, 99, 255, 1ull << 32, UINT64_MAX };
    for (size_t index = 0; index < sizeof ids / sizeof ids [0]; index++) {
        testcodec_raw_init (&raw);
        msgpack_pack_array (&raw.pk, 5);
        testcodec_raw_str (&raw, "DRV", 3);
        msgpack_pack_uint8 (&raw.pk, 1);
        msgpack_pack_uint64 (&raw.pk, ids [index]);
        msgpack_pack_uint8 (&raw.pk, 77);
        msgpack_pack_uint8 (&raw.pk, 1);
        assert_int_equal (drover_msg_decode (msg, RAW_DATA (raw), RAW_SIZE (raw)), -2);
        assert_non_null (strstr (msg->error, "message id"));
        assert_int_equal (msg->id, 0);
        if (ids [index] <= UINT32_MAX)
            assert_int_equal (msg->seq, 77);
        testcodec_raw_destroy (&raw);
    }
    //  Right id, wrong number of fields
    testcodec_raw_begin_seq (&raw, DROVER_MSG_TASK_CANCEL, 2, 3);
    msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_uint8 (&raw.pk, 1);
    assert_int_equal (drover_msg_decode (msg, RAW_DATA (raw), RAW_SIZE (raw)), -2);
    assert_non_null (strstr (msg->error, "wrong number of fields"));
    assert_int_equal (msg->id, DROVER_MSG_TASK_CANCEL);   //  kept for the broker's reply
    assert_int_equal (msg->seq, 3);
    testcodec_raw_destroy (&raw);
    drover_msg_destroy (&msg);
    free (data);
}

static void
test_depth_trailing_and_nul (void **state)
{
    //  Labels nested past depth 4: message > labels > [ > [ > [
    testcodec_raw_t raw;
    testcodec_raw_begin_seq (&raw, DROVER_MSG_WORKER_HELLO, 6, 1);
    testcodec_raw_str (&raw, "w", 1);
    for (int index = 0; index < 3; index++)
        msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 0);
    msgpack_pack_array (&raw.pk, 0);
    testcodec_assert_raw_says (&raw, "nesting");
    //  Depth 4 is the limit: a worker table row's labels are at 4
    drover_msg_t *msg = testcodec_filled (DROVER_MSG_WORKER_TABLE);
    zframe_t *frame = drover_msg_encode (msg);
    assert_non_null (frame);
    assert_int_equal (drover_msg_decode (msg, zframe_data (frame), zframe_size (frame)), 0);
    zframe_destroy (&frame);
    drover_msg_destroy (&msg);
    //  A thousand nested arrays: refused at depth 5, no recursion
    byte deep [1000];
    memset (deep, 0x91, sizeof deep);
    testcodec_assert_refused (deep, sizeof deep, "wrong signature");
    testcodec_raw_begin_seq (&raw, DROVER_MSG_TASK_WAIT, 1, 1);
    msgpack_sbuffer_write (&raw.buffer, (const char *) deep, sizeof deep);
    testcodec_assert_raw_says (&raw, "nesting");

    //  Trailing bytes after a valid message
    msg = testcodec_filled (DROVER_MSG_TASK_KILL);
    size_t size;
    byte *data = testcodec_encode (msg, &size);
    byte *longer = (byte *) malloc (size + 1);
    memcpy (longer, data, size);
    longer [size] = 0xc0;
    testcodec_assert_refused (longer, size + 1, "trailing");
    free (longer);
    free (data);
    drover_msg_destroy (&msg);

    //  NUL inside strings: reason, worker id, label
    testcodec_raw_begin_seq (&raw, DROVER_MSG_OK, 2, 1);
    msgpack_pack_uint8 (&raw.pk, 200);
    testcodec_raw_str (&raw, "a\0b", 3);
    testcodec_assert_raw_says (&raw, "reason: contains NUL");
    testcodec_raw_begin_seq (&raw, DROVER_MSG_WORKER_GOODBYE, 2, 1);
    testcodec_raw_str (&raw, "w\0", 2);
    msgpack_pack_uint8 (&raw.pk, 1);
    testcodec_assert_raw_says (&raw, "worker: contains NUL");
    testcodec_raw_begin_seq (&raw, DROVER_MSG_WORKER_ADMIN, 2, 1);
    testcodec_raw_str (&raw, "has space", 9);
    msgpack_pack_uint8 (&raw.pk, 1);
    testcodec_assert_raw_says (&raw, "worker: not a valid worker id");
    testcodec_raw_begin_seq (&raw, DROVER_MSG_TASK_SUBMIT, 8, 1);
    for (int index = 0; index < 3; index++)
        msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 1);
    testcodec_raw_str (&raw, "k=v\0", 4);
    for (int index = 0; index < 3; index++)
        msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_bin (&raw.pk, 0);
    testcodec_assert_raw_says (&raw, "labels: contains NUL");

    //  Enums out of range
    testcodec_raw_begin_seq (&raw, DROVER_MSG_WORKER_ADMIN, 2, 1);
    testcodec_raw_str (&raw, "w", 1);
    msgpack_pack_uint8 (&raw.pk, DROVER_ADMIN_MAX + 1);
    testcodec_assert_raw_says (&raw, "admin: out of range");
    testcodec_raw_begin_seq (&raw, DROVER_MSG_TASK_LIST, 2, 1);
    msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_uint8 (&raw.pk, DROVER_TASK_STATES);
    testcodec_assert_raw_says (&raw, "state: out of range");
    //  Ext types and 0xc1 anywhere
    testcodec_raw_begin_seq (&raw, DROVER_MSG_TASK_CANCEL, 1, 1);
    msgpack_sbuffer_write (&raw.buffer, "\xd4\x01\x02", 3);
    testcodec_assert_raw_says (&raw, "ext");
    testcodec_raw_begin_seq (&raw, DROVER_MSG_TASK_CANCEL, 1, 1);
    msgpack_sbuffer_write (&raw.buffer, "\xc1", 1);
    testcodec_assert_raw_says (&raw, "0xc1");
    //  Loads that are not finite or are negative
    msg = testcodec_filled (DROVER_MSG_WORKER_HEARTBEAT);
    data = testcodec_encode (msg, &size);
    drover_msg_destroy (&msg);
    byte *load = NULL;
    for (size_t index = 0; index + 9 <= size && !load; index++)
        if (data [index] == 0xcb)
            load = data + index;                //  the first load, as float 64
    assert_non_null (load);
    const byte bad_loads [][8] = {
        { 0x7f, 0xf8, 0, 0, 0, 0, 0, 0 },       //  NaN
        { 0x7f, 0xf0, 0, 0, 0, 0, 0, 0 },       //  +inf
        { 0xbf, 0xf0, 0, 0, 0, 0, 0, 0 },       //  -1.0
    };
    for (int index = 0; index < 3; index++) {
        memcpy (load + 1, bad_loads [index], 8);
        testcodec_assert_refused (data, size, "stats: out of range");
    }
    free (data);
    //  ... and the encoder writes 0 for them rather than failing a heartbeat
    msg = testcodec_filled (DROVER_MSG_WORKER_HEARTBEAT);
    msg->stats.load [0] = NAN;
    msg->stats.load [1] = -INFINITY;
    data = testcodec_encode (msg, &size);
    assert_int_equal (drover_msg_decode (msg, data, size), 0);
    assert_true (msg->stats.load [0] == 0 && msg->stats.load [1] == 0);
    free (data);
    drover_msg_destroy (&msg);
}

//  Whatever decode accepts must encode again and decode to the same, but
//  for a message from the broker that holds a value this version does not
//  know: the encoder refuses to send that on
static void
s_check_accepted (drover_msg_t *msg)
{
    zframe_t *frame = drover_msg_encode (msg);
    if (!frame && testcodec_from_broker (msg->id) && testcodec_holds_unknown_value (msg))
        return;
    if (!frame)
        fail_msg ("%s decoded but does not encode", drover_msg_name (msg->id));
    drover_msg_t *again = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (again, zframe_data (frame), zframe_size (frame)), 0);
    testcodec_assert_same (msg, again);
    drover_msg_destroy (&again);
    zframe_destroy (&frame);
}

static void
test_random_bytes (void **state)
{
    drover_msg_t *msg = drover_msg_new (0);
    testcodec_seed (42);
    int accepted = 0;
    for (int count = 0; count < 100000; count++) {
        size_t size;
        byte *data = testcodec_random_bytes (count, &size);
        int rc = drover_msg_decode (msg, data, size);
        assert_true (rc == 0 || rc == -2);
        if (rc == 0) {
            accepted++;
            s_check_accepted (msg);
        }
        else
            assert_non_null (msg->error);
        free (data);
    }
    //  LEAVE and WORKER LIST have no fields: random tails make some valid
    print_message ("random: %d of 100000 buffers decoded as valid messages\n", accepted);
    drover_msg_destroy (&msg);
}

//  Flip, zero and randomise every byte of every valid message
static void
test_mutations_of_valid_messages (void **state)
{
    testcodec_seed (7);
    drover_msg_t *decoded = drover_msg_new (0);
    int accepted = 0, refused = 0;
    for (int id = 1; id <= DROVER_MSG_ID_MAX; id++) {
        drover_msg_t *msg = testcodec_filled (id);
        size_t size;
        byte *data = testcodec_encode (msg, &size);
        byte *mutant = (byte *) malloc (size);
        for (size_t index = 0; index < size; index++) {
            byte values [] = { (byte) ~data [index], 0x00, 0xff, 0x7f, 0x80, 0xc1, 0xdd,
                               (byte) (data [index] + 1), (byte) (data [index] - 1),
                               (byte) testcodec_random () };
            for (size_t value = 0; value < sizeof values; value++) {
                if (values [value] == data [index])
                    continue;
                memcpy (mutant, data, size);
                mutant [index] = values [value];
                int rc = drover_msg_decode (decoded, mutant, size);
                if (rc == 0) {
                    accepted++;
                    s_check_accepted (decoded);
                }
                else {
                    assert_int_equal (rc, -2);
                    assert_non_null (decoded->error);
                    refused++;
                }
            }
        }
        free (mutant);
        free (data);
        drover_msg_destroy (&msg);
    }
    print_message ("mutations: %d accepted (still valid), %d refused\n", accepted, refused);
    assert_true (refused > 0);
    drover_msg_destroy (&decoded);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_rows_claimed_past_bytes_are_refused_unallocated),
        cmocka_unit_test (test_truncated_at_every_length),
        cmocka_unit_test (test_oversized_fields),
        cmocka_unit_test (test_event_list_refusals),
        cmocka_unit_test (test_malformed_keys_and_state_ids),
        cmocka_unit_test (test_wrong_type_everywhere),
        cmocka_unit_test (test_version_signature_and_id),
        cmocka_unit_test (test_depth_trailing_and_nul),
        cmocka_unit_test (test_random_bytes),
        cmocka_unit_test (test_mutations_of_valid_messages),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
