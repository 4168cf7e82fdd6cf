/*  =========================================================================
    test_drover_msg_refusals - what a refusal says about the message it
    refuses: the seq it echoes (PROTOCOL.md §5: readable whenever the
    frame starts with an array of at least 4 elements whose element 3 is
    a uint32, whatever elements 0..2 hold), and whether what was wrong is
    a size past its limit (ERROR 413, §11) or anything else (400). Also
    the values a receiver takes though it does not know them: a TASK
    EXPLANATION item of a later code, shown as its number (§7.25); and a
    TASK LIST label filter, which has 1 to 16 labels (§7.15).
    =========================================================================
*/

#include "testcodec.h"
#include "drover_why.h"

//  Start a raw frame: an array of count elements; the caller packs them
static void
s_raw_array (testcodec_raw_t *raw, uint32_t count)
{
    testcodec_raw_init (raw);
    msgpack_pack_array (&raw->pk, count);
}

//  Decode raw (then freed) expecting a refusal; return it (ours)
static drover_msg_t *
s_refused (testcodec_raw_t *raw)
{
    drover_msg_t *msg = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (msg, RAW_DATA (*raw), RAW_SIZE (*raw)), -2);
    assert_non_null (msg->error);
    testcodec_raw_destroy (raw);
    return msg;
}

//  Assert peek and decode of raw (then freed) both read seq and id; a
//  peek of -1 means the seq is not readable (then seq is 0)
static void
s_assert_header (testcodec_raw_t *raw, int id, uint32_t seq)
{
    uint32_t peeked = 12345;
    assert_int_equal (drover_msg_peek (RAW_DATA (*raw), RAW_SIZE (*raw), &peeked), id);
    assert_int_equal (peeked, seq);
    drover_msg_t *msg = s_refused (raw);
    assert_int_equal (msg->seq, seq);
    assert_int_equal (msg->id, id > 0? id: 0);
    assert_false (msg->too_large);
    drover_msg_destroy (&msg);
}

//  A header's elements 0..2 may hold anything well-formed: the seq (element
//  3) is still read, and echoed. It was 0 for a wrong signature, a version
//  or an id that is not an integer, and an id past 2^32-1.
static void
test_seq_read_whatever_precedes_it (void **state)
{
    testcodec_raw_t raw;
    //  Wrong signatures: a str, a bin, nil, an integer, an array
    const char *signatures [] = { "DRX", "", "drv", "DRVV" };
    for (size_t index = 0; index < sizeof signatures / sizeof signatures [0]; index++) {
        s_raw_array (&raw, 5);
        testcodec_raw_str (&raw, signatures [index], strlen (signatures [index]));
        msgpack_pack_uint8 (&raw.pk, 1);
        msgpack_pack_uint8 (&raw.pk, DROVER_MSG_TASK_CANCEL);
        msgpack_pack_uint32 (&raw.pk, 501);
        msgpack_pack_uint8 (&raw.pk, 1);
        s_assert_header (&raw, DROVER_MSG_TASK_CANCEL, 501);
    }
    s_raw_array (&raw, 5);
    msgpack_pack_bin_with_body (&raw.pk, "DRV", 3);
    msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_uint8 (&raw.pk, DROVER_MSG_TASK_CANCEL);
    msgpack_pack_uint32 (&raw.pk, 502);
    msgpack_pack_uint8 (&raw.pk, 1);
    s_assert_header (&raw, DROVER_MSG_TASK_CANCEL, 502);
    s_raw_array (&raw, 4);
    msgpack_pack_nil (&raw.pk);
    msgpack_pack_array (&raw.pk, 1);                //  a version that is an array
    msgpack_pack_array (&raw.pk, 0);
    msgpack_pack_uint8 (&raw.pk, DROVER_MSG_WORKER_LIST);
    msgpack_pack_uint16 (&raw.pk, 503);
    s_assert_header (&raw, DROVER_MSG_WORKER_LIST, 503);

    //  The right signature, a version that is not an integer
    s_raw_array (&raw, 5);
    testcodec_raw_str (&raw, "DRV", 3);
    testcodec_raw_str (&raw, "1", 1);
    msgpack_pack_uint8 (&raw.pk, DROVER_MSG_TASK_CANCEL);
    msgpack_pack_uint32 (&raw.pk, 504);
    msgpack_pack_uint8 (&raw.pk, 1);
    s_assert_header (&raw, DROVER_MSG_TASK_CANCEL, 504);

    //  Ids that are not one: a str, nil, a float, a map, negative, past
    //  2^32-1; the seq is read, the id is 0
    for (int kind = 0; kind < 6; kind++) {
        s_raw_array (&raw, 5);
        testcodec_raw_str (&raw, "DRV", 3);
        msgpack_pack_uint8 (&raw.pk, 1);
        if (kind == 0)
            testcodec_raw_str (&raw, "15", 2);
        else
        if (kind == 1)
            msgpack_pack_nil (&raw.pk);
        else
        if (kind == 2)
            msgpack_pack_double (&raw.pk, 14.0);
        else
        if (kind == 3) {
            msgpack_pack_map (&raw.pk, 1);
            msgpack_pack_uint8 (&raw.pk, 1);
            msgpack_pack_uint8 (&raw.pk, 2);
        }
        else
        if (kind == 4)
            msgpack_pack_int8 (&raw.pk, -14);
        else
            msgpack_pack_uint64 (&raw.pk, UINT64_MAX);
        msgpack_pack_uint32 (&raw.pk, 505 + kind);
        msgpack_pack_uint8 (&raw.pk, 1);
        s_assert_header (&raw, 0, 505 + kind);
    }
    //  A seq as wide as it may be, in a uint64 encoding
    s_raw_array (&raw, 4);
    testcodec_raw_str (&raw, "DRX", 3);
    msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_uint8 (&raw.pk, DROVER_MSG_WORKER_LIST);
    msgpack_pack_uint64 (&raw.pk, UINT32_MAX);
    s_assert_header (&raw, DROVER_MSG_WORKER_LIST, UINT32_MAX);
}

//  A seq cannot be read from fewer than 4 elements, from an element 3
//  that is not a uint32, or past elements 0..2 that are not well-formed
//  (cut short, too deep, byte 0xc1): peek says -1, a refusal echoes 0
static void
test_seq_unreadable (void **state)
{
    testcodec_raw_t raw;
    s_raw_array (&raw, 3);
    testcodec_raw_str (&raw, "DRV", 3);
    msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_uint8 (&raw.pk, DROVER_MSG_WORKER_LIST);
    s_assert_header (&raw, -1, 0);
    for (int kind = 0; kind < 4; kind++) {
        s_raw_array (&raw, 5);
        testcodec_raw_str (&raw, "DRV", 3);
        msgpack_pack_uint8 (&raw.pk, 1);
        msgpack_pack_uint8 (&raw.pk, DROVER_MSG_TASK_CANCEL);
        if (kind == 0)
            testcodec_raw_str (&raw, "7", 1);
        else
        if (kind == 1)
            msgpack_pack_int8 (&raw.pk, -7);
        else
        if (kind == 2)
            msgpack_pack_uint64 (&raw.pk, (uint64_t) UINT32_MAX + 1);
        else
            msgpack_pack_nil (&raw.pk);
        msgpack_pack_uint8 (&raw.pk, 1);
        s_assert_header (&raw, -1, 0);
    }
    //  Element 0 nested past the depth limit: message > [ > [ > [ > [
    s_raw_array (&raw, 5);
    for (int level = 0; level < 4; level++)
        msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_uint8 (&raw.pk, DROVER_MSG_TASK_CANCEL);
    msgpack_pack_uint32 (&raw.pk, 9);
    msgpack_pack_uint8 (&raw.pk, 1);
    s_assert_header (&raw, -1, 0);
    //  A signature whose length runs past the frame, and byte 0xc1
    uint32_t seq = 1;
    assert_int_equal (drover_msg_peek ((const byte *) "\x94\xa4" "DRV", 5, &seq), -1);
    assert_int_equal (seq, 0);
    assert_int_equal (drover_msg_peek ((const byte *) "\x94\xc1\x01\x0e\x07", 5, &seq), -1);
    assert_int_equal (drover_msg_peek ((const byte *) "\x94\xa3" "DRV\x01\x0e\x07", 8, &seq),
                      DROVER_MSG_TASK_CANCEL);
    assert_int_equal (seq, 7);
    assert_int_equal (drover_msg_peek (NULL, 0, &seq), -1);
    assert_int_equal (seq, 0);
}

//  Refuse raw (then freed) and assert whether what was wrong is a size
//  past its limit, the error naming text and the seq echoed
static void
s_assert_too_large (testcodec_raw_t *raw, bool too_large, const char *text)
{
    drover_msg_t *msg = s_refused (raw);
    if (!strstr (msg->error, text))
        fail_msg ("error \"%s\" does not mention \"%s\"", msg->error, text);
    if (msg->too_large != too_large)
        fail_msg ("\"%s\": too_large is %d", msg->error, msg->too_large);
    assert_int_equal (msg->seq, TESTCODEC_SEQ);
    drover_msg_destroy (&msg);
}

//  Start a raw SUBMIT of nfields fields and pack those before its labels
//  (priority, procs 1, mem); the caller packs the labels, then
//  s_submit_end the rest
static void
s_submit_begin (testcodec_raw_t *raw, size_t nfields)
{
    testcodec_raw_begin (raw, DROVER_MSG_TASK_SUBMIT, nfields);
    msgpack_pack_int (&raw->pk, 0);
    msgpack_pack_int (&raw->pk, 1);
    msgpack_pack_int (&raw->pk, 0);
}

//  Pack a SUBMIT's fields after its labels: timeout, retries, flags, body
static void
s_submit_end (testcodec_raw_t *raw)
{
    for (int index = 0; index < 3; index++)
        msgpack_pack_int (&raw->pk, 0);
    msgpack_pack_bin (&raw->pk, 0);
}

//  A str, bin or array longer than its type allows is "too large" (the
//  broker answers 413, PROTOCOL.md §11); any other fault is not (400):
//  a value out of range, a string or array too short, a fixed record of
//  another size, a wrong type or field count
static void
test_too_large_is_told_apart (void **state)
{
    testcodec_raw_t raw;
    char text [DROVER_REASON_MAX + 2];
    memset (text, 'a', sizeof text);

    //  17 labels; a label of 129 bytes
    s_submit_begin (&raw, 8);
    msgpack_pack_array (&raw.pk, DROVER_LABELS_MAX + 1);
    for (int index = 0; index <= DROVER_LABELS_MAX; index++)
        testcodec_raw_str (&raw, "a=b", 3);
    s_submit_end (&raw);
    s_assert_too_large (&raw, true, "labels");
    s_submit_begin (&raw, 8);
    msgpack_pack_array (&raw.pk, 1);
    text [1] = '=';
    testcodec_raw_str (&raw, text, DROVER_LABEL_MAX + 1);
    s_submit_end (&raw);
    s_assert_too_large (&raw, true, "labels");
    text [1] = 'a';
    //  A reason of 257 bytes; a key of 129; a state id of 33
    testcodec_raw_begin (&raw, DROVER_MSG_WORKER_ADMIN, 3);
    testcodec_raw_str (&raw, "w1", 2);
    msgpack_pack_uint8 (&raw.pk, 1);
    testcodec_raw_str (&raw, text, DROVER_REASON_MAX + 1);
    s_assert_too_large (&raw, true, "reason");
    s_submit_begin (&raw, 9);
    msgpack_pack_array (&raw.pk, 0);
    s_submit_end (&raw);
    testcodec_raw_str (&raw, text, DROVER_KEY_MAX + 1);
    s_assert_too_large (&raw, true, "key");
    testcodec_raw_begin (&raw, DROVER_MSG_TASK_WAIT, 2);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_uint8 (&raw.pk, 1);
    testcodec_raw_str (&raw, text, DROVER_STATE_ID_SIZE + 1);
    s_assert_too_large (&raw, true, "state_id");
    //  A WAIT of 10001 tasks; a body past 2 MiB
    testcodec_raw_begin (&raw, DROVER_MSG_TASK_WAIT, 1);
    msgpack_pack_array (&raw.pk, DROVER_WAIT_MAX + 1);
    for (int index = 0; index <= DROVER_WAIT_MAX; index++)
        msgpack_pack_int (&raw.pk, index + 1);
    s_assert_too_large (&raw, true, "tasks");
    byte *big = (byte *) zmalloc (DROVER_BODY_MAX + 1);
    s_submit_begin (&raw, 8);
    msgpack_pack_array (&raw.pk, 0);
    for (int index = 0; index < 3; index++)
        msgpack_pack_int (&raw.pk, 0);
    msgpack_pack_bin_with_body (&raw.pk, big, DROVER_BODY_MAX + 1);
    s_assert_too_large (&raw, true, "body");
    free (big);

    //  Not sizes: procs out of range, an empty worker id, a state id of
    //  31 digits, a HEARTBEAT's stats of 9, one field too many, a wrong type
    testcodec_raw_begin (&raw, DROVER_MSG_TASK_SUBMIT, 8);
    msgpack_pack_int (&raw.pk, 0);
    msgpack_pack_int64 (&raw.pk, -1);
    msgpack_pack_int (&raw.pk, 0);
    msgpack_pack_array (&raw.pk, 0);
    s_submit_end (&raw);
    s_assert_too_large (&raw, false, "procs");
    testcodec_raw_begin (&raw, DROVER_MSG_WORKER_GOODBYE, 2);
    testcodec_raw_str (&raw, "", 0);
    msgpack_pack_uint8 (&raw.pk, 1);
    s_assert_too_large (&raw, false, "worker");
    testcodec_raw_begin (&raw, DROVER_MSG_TASK_WAIT, 2);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_uint8 (&raw.pk, 1);
    testcodec_raw_str (&raw, "0123456789abcdef0123456789abcde", 31);
    s_assert_too_large (&raw, false, "state_id");
    testcodec_raw_begin (&raw, DROVER_MSG_WORKER_HEARTBEAT, 3);
    testcodec_raw_str (&raw, "w1", 2);
    msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 7);            //  stats too short (a longer one is read:
    for (int index = 0; index < 7; index++)     //  records grow, PROTOCOL.md §12.3)
        msgpack_pack_uint8 (&raw.pk, 0);
    s_assert_too_large (&raw, false, "stats");
    testcodec_raw_begin (&raw, DROVER_MSG_TASK_CANCEL, 2);
    msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_uint8 (&raw.pk, 1);
    s_assert_too_large (&raw, false, "wrong number of fields");
    testcodec_raw_begin (&raw, DROVER_MSG_TASK_CANCEL, 1);
    testcodec_raw_str (&raw, text, DROVER_REASON_MAX + 1);
    s_assert_too_large (&raw, false, "task");
    //  A signature past any limit is a wrong signature, not a size
    s_raw_array (&raw, 4);
    testcodec_raw_str (&raw, text, DROVER_REASON_MAX + 1);
    msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_uint8 (&raw.pk, DROVER_MSG_WORKER_LIST);
    msgpack_pack_uint8 (&raw.pk, TESTCODEC_SEQ);
    s_assert_too_large (&raw, false, "signature");
    //  A message that decodes says nothing of the kind
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_WORKER_LIST);
    drover_msg_t *copy = testcodec_roundtrip (msg);
    assert_false (copy->too_large);
    drover_msg_destroy (&copy);
    drover_msg_destroy (&msg);
}

//  TASK LIST's label filter is array(1..16) of label, left out for none
//  (§7.15): an empty one is malformed, not "no filter"
static void
test_list_filter_is_never_empty (void **state)
{
    testcodec_raw_t raw;
    testcodec_raw_begin (&raw, DROVER_MSG_TASK_LIST, 3);
    msgpack_pack_uint8 (&raw.pk, 10);
    msgpack_pack_uint8 (&raw.pk, 255);
    msgpack_pack_array (&raw.pk, 0);
    s_assert_too_large (&raw, false, "labels: out of range");
    testcodec_raw_begin (&raw, DROVER_MSG_TASK_LIST, 3);
    msgpack_pack_uint8 (&raw.pk, 10);
    msgpack_pack_uint8 (&raw.pk, 255);
    msgpack_pack_array (&raw.pk, 1);
    testcodec_raw_str (&raw, "a=b", 3);
    drover_msg_t *msg = testcodec_raw_accepted (&raw);
    assert_int_equal (msg->nlabels, 1);
    drover_msg_destroy (&msg);
    testcodec_raw_begin (&raw, DROVER_MSG_TASK_LIST, 2);
    msgpack_pack_uint8 (&raw.pk, 10);
    msgpack_pack_uint8 (&raw.pk, 255);
    msg = testcodec_raw_accepted (&raw);
    assert_int_equal (msg->nlabels, 0);
    drover_msg_destroy (&msg);
}

//  A TASK EXPLANATION item with a code this version does not know (a later
//  broker's) is taken, and said as its number: "show as its number", not
//  a refusal of the whole answer (§7.25). Codes 52..255 were refused; 23, 24
//  and 65..67 are known since level 4.
static void
test_unknown_explanation_codes_shown (void **state)
{
    uint8_t codes [] = { 25, 39, 52, 68, 99, 255 };
    for (size_t index = 0; index < sizeof codes; index++) {
        testcodec_raw_t raw;
        testcodec_raw_begin (&raw, DROVER_MSG_TASK_EXPLANATION, 5);
        msgpack_pack_uint8 (&raw.pk, 9);
        msgpack_pack_uint8 (&raw.pk, DROVER_TASK_QUEUED);
        msgpack_pack_uint8 (&raw.pk, 0);
        testcodec_raw_str (&raw, "", 0);
        msgpack_pack_array (&raw.pk, 2);
        msgpack_pack_array (&raw.pk, 6);        //  its place
        msgpack_pack_uint8 (&raw.pk, DROVER_WHY_AHEAD);
        msgpack_pack_uint8 (&raw.pk, 0);
        msgpack_pack_uint8 (&raw.pk, 0);
        msgpack_pack_uint8 (&raw.pk, 0);
        testcodec_raw_str (&raw, "", 0);
        msgpack_pack_array (&raw.pk, 0);
        msgpack_pack_array (&raw.pk, 6);        //  a code of a later version
        msgpack_pack_uint8 (&raw.pk, codes [index]);
        msgpack_pack_uint8 (&raw.pk, 1);
        msgpack_pack_uint8 (&raw.pk, 2);
        msgpack_pack_uint8 (&raw.pk, 3);
        testcodec_raw_str (&raw, "new", 3);
        msgpack_pack_array (&raw.pk, 1);
        testcodec_raw_str (&raw, "w1", 2);
        drover_msg_t *msg = testcodec_raw_accepted (&raw);
        assert_int_equal (msg->nwhys, 2);
        assert_int_equal (msg->whys [1].code, codes [index]);
        char text [128], expected [32];
        snprintf (expected, sizeof expected, "reason %u", codes [index]);
        drover_why_sentence (&msg->whys [1], text, sizeof text);
        assert_string_equal (text, expected);
        drover_why_short (msg->whys, msg->nwhys, text, sizeof text);
        //  A later verdict (40 and up) is the short reason, as its number
        assert_string_equal (text, codes [index] >= DROVER_WHY_NEXT? expected: "");
        drover_msg_destroy (&msg);
    }
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_seq_read_whatever_precedes_it),
        cmocka_unit_test (test_seq_unreadable),
        cmocka_unit_test (test_too_large_is_told_apart),
        cmocka_unit_test (test_list_filter_is_never_empty),
        cmocka_unit_test (test_unknown_explanation_codes_shown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
