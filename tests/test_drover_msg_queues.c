/*  =========================================================================
    test_drover_msg_queues - the named queues' messages on the wire
    (QUEUES, QUEUE TABLE): they round-trip at every limit, a table past a
    limit is not encoded, and whatever a hostile peer sends in their place
    (rows past the limit or past the bytes, names, owners and endpoints
    that are not, rows out of order or twice, records too short, strings
    too long, wrong types) is refused with a reason naming the part,
    before anything is allocated for it. Records longer than this
    version's are read, the extra elements skipped.
    test_drover_msg_roundtrip round-trips both with every other message,
    test_drover_msg_hostile mutates them.
    =========================================================================
*/

#include "testcodec.h"

#define A   "tcp://10.0.0.1:6001"
#define B   "tcp://10.0.0.2:6001"

//  A QUEUE TABLE with count queues named q00000.., each with endpoints
static drover_msg_t *
s_table (uint32_t count, const char *endpoints)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_QUEUE_TABLE);
    msg->seq = 9;
    strcpy (msg->strategy, "spread");
    msg->nqueues = count;
    msg->queue_rows = count? (drover_queue_row_t *) zmalloc (count * sizeof (drover_queue_row_t))
                           : NULL;
    for (uint32_t index = 0; index < count; index++) {
        drover_queue_row_t *row = &msg->queue_rows [index];
        snprintf (row->name, sizeof row->name, "q%05u", index);
        strcpy (row->owner, index % 2? "b2": "b1");
        strcpy (row->owner_endpoint, index % 2? B: A);
        row->token = 100 + index;
        row->endpoints = strdup (endpoints);
    }
    return msg;
}


//  Assert that two QUEUE TABLEs hold the same
static void
s_assert_same (const drover_msg_t *a, const drover_msg_t *b)
{
    assert_int_equal (b->id, DROVER_MSG_QUEUE_TABLE);
    assert_int_equal (a->seq, b->seq);
    testcodec_assert_same_queues (a, b);
}



//  Pack a str
static void
s_str (testcodec_raw_t *raw, const char *text)
{
    testcodec_raw_str (raw, text, strlen (text));
}



//  QUEUES has no field; QUEUE TABLE round-trips empty, full and at every
//  limit
static void
test_roundtrip_limits (void **state)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_QUEUES);
    msg->seq = 3;
    drover_msg_t *copy = testcodec_roundtrip (msg);
    assert_int_equal (copy->id, DROVER_MSG_QUEUES);
    assert_int_equal (copy->seq, 3);
    assert_string_equal (drover_msg_name (DROVER_MSG_QUEUES), "QUEUES");
    assert_string_equal (drover_msg_name (DROVER_MSG_QUEUE_TABLE), "QUEUE TABLE");
    drover_msg_destroy (&copy);
    drover_msg_destroy (&msg);

    //  Empty: a broker without named queues
    msg = drover_msg_new (DROVER_MSG_QUEUE_TABLE);
    copy = testcodec_roundtrip (msg);
    s_assert_same (msg, copy);
    assert_null (copy->queue_rows);
    drover_msg_destroy (&copy);
    drover_msg_destroy (&msg);

    //  The most queues, a NULL endpoints sent as none
    msg = s_table (DROVER_QUEUES_MAX, A "," B);
    zstr_free (&msg->queue_rows [7].endpoints);
    copy = testcodec_roundtrip (msg);
    s_assert_same (msg, copy);
    assert_string_equal (copy->queue_rows [7].endpoints, "");
    drover_msg_destroy (&copy);
    drover_msg_destroy (&msg);

    //  The longest texts and the most endpoints, each the longest
    msg = s_table (1, "");
    memset (msg->strategy, 's', DROVER_STRATEGY_MAX);
    memset (msg->queue_rows [0].name, 'n', DROVER_QUEUE_NAME_MAX);
    memset (msg->queue_rows [0].owner, '~', DROVER_ID_MAX);
    memset (msg->queue_rows [0].owner_endpoint, 'e', DROVER_ENDPOINT_MAX);
    msg->queue_rows [0].token = UINT64_MAX;
    char endpoint [DROVER_ENDPOINT_MAX + 1];
    char *list = strdup ("");
    for (int index = 0; index < DROVER_QUEUE_ENDPOINTS_MAX; index++) {
        memset (endpoint, 'a' + index % 26, DROVER_ENDPOINT_MAX);
        endpoint [DROVER_ENDPOINT_MAX] = 0;
        char *longer = zsys_sprintf ("%s%s%s", list, index? ",": "", endpoint);
        zstr_free (&list);
        list = longer;
    }
    zstr_free (&msg->queue_rows [0].endpoints);
    msg->queue_rows [0].endpoints = list;
    copy = testcodec_roundtrip (msg);
    s_assert_same (msg, copy);
    drover_msg_destroy (&copy);
    drover_msg_destroy (&msg);
}

//  A table past a limit, or that the wire cannot say, is not encoded
static void
test_not_encoded (void **state)
{
    drover_msg_t *msg = s_table (DROVER_QUEUES_MAX + 1, A);
    testcodec_assert_not_encoded (msg, "too many queues");
    drover_msg_destroy (&msg);

    msg = s_table (2, A);
    strcpy (msg->queue_rows [1].name, msg->queue_rows [0].name);
    testcodec_assert_not_encoded (msg, "a name twice");
    strcpy (msg->queue_rows [0].name, "z");
    testcodec_assert_not_encoded (msg, "names out of order");
    strcpy (msg->queue_rows [0].name, "");
    testcodec_assert_not_encoded (msg, "an empty name");
    strcpy (msg->queue_rows [0].name, "a/b");
    testcodec_assert_not_encoded (msg, "a name with a slash");
    strcpy (msg->queue_rows [0].name, "a");
    strcpy (msg->queue_rows [0].owner, "b 1");
    testcodec_assert_not_encoded (msg, "an owner with a space");
    strcpy (msg->queue_rows [0].owner, "b1");
    strcpy (msg->queue_rows [0].owner_endpoint, A "," B);
    testcodec_assert_not_encoded (msg, "an owner endpoint with a comma");
    strcpy (msg->queue_rows [0].owner_endpoint, A);
    const char *bad_lists [] = { A ",", "," A, A ",," B, A " ," B, "tcp://a b:1" };
    for (size_t index = 0; index < sizeof bad_lists / sizeof bad_lists [0]; index++) {
        zstr_free (&msg->queue_rows [0].endpoints);
        msg->queue_rows [0].endpoints = strdup (bad_lists [index]);
        testcodec_assert_not_encoded (msg, bad_lists [index]);
    }
    zstr_free (&msg->queue_rows [0].endpoints);
    char *list = strdup (A);
    for (int index = 0; index < DROVER_QUEUE_ENDPOINTS_MAX; index++) {
        char *longer = zsys_sprintf ("%s,tcp://h%d:1", list, index);
        zstr_free (&list);
        list = longer;
    }
    msg->queue_rows [0].endpoints = list;
    testcodec_assert_not_encoded (msg, "65 endpoints");
    zstr_free (&msg->queue_rows [0].endpoints);
    msg->queue_rows [0].endpoints = strdup (A);
    strcpy (msg->strategy, "two words");
    testcodec_assert_not_encoded (msg, "a strategy with a space");
    strcpy (msg->strategy, "leader");
    zframe_t *frame = drover_msg_encode (msg);      //  every fault put right: it goes
    assert_non_null (frame);
    zframe_destroy (&frame);
    drover_msg_destroy (&msg);
}

//  Fields a raw row may get wrong, and how
typedef enum {
    BAD_NONE, BAD_ROW_SHORT, BAD_ROW_NOT_ARRAY, BAD_NAME_EMPTY, BAD_NAME_CHAR, BAD_NAME_LONG,
    BAD_NAME_BIN, BAD_OWNER_SPACE, BAD_OWNER_LONG, BAD_OWNER_NIL, BAD_ENDPOINT_COMMA,
    BAD_ENDPOINT_LONG, BAD_TOKEN_NEGATIVE, BAD_TOKEN_STR, BAD_ENDPOINTS_STR,
    BAD_ENDPOINT_EMPTY, BAD_ENDPOINT_SPACE, BAD_ENDPOINT_NUL, BAD_ENDPOINTS_MANY,
    BAD_ENDPOINTS_PAST_BYTES, EXTRA_ELEMENTS
} s_bad_t;

//  Pack one raw row called name, with what bad says wrong
static void
s_raw_row (testcodec_raw_t *raw, const char *name, s_bad_t bad)
{
    char long_text [DROVER_ENDPOINT_MAX + 1];
    memset (long_text, 'x', sizeof long_text);
    if (bad == BAD_ROW_NOT_ARRAY) {
        msgpack_pack_map (&raw->pk, 0);
        return;
    }
    msgpack_pack_array (&raw->pk, bad == BAD_ROW_SHORT? 4: bad == EXTRA_ELEMENTS? 7: 5);
    switch (bad) {
        case BAD_NAME_EMPTY:    s_str (raw, ""); break;
        case BAD_NAME_CHAR:     s_str (raw, "a:b"); break;
        case BAD_NAME_LONG:     testcodec_raw_str (raw, long_text, DROVER_QUEUE_NAME_MAX + 1);
                                break;
        case BAD_NAME_BIN:      msgpack_pack_bin_with_body (&raw->pk, name, strlen (name));
                                break;
        default:                s_str (raw, name);
    }
    switch (bad) {
        case BAD_OWNER_SPACE:   s_str (raw, "b 1"); break;
        case BAD_OWNER_LONG:    testcodec_raw_str (raw, long_text, DROVER_ID_MAX + 1); break;
        case BAD_OWNER_NIL:     msgpack_pack_nil (&raw->pk); break;
        default:                s_str (raw, "b1");
    }
    switch (bad) {
        case BAD_ENDPOINT_COMMA: s_str (raw, A "," B); break;
        case BAD_ENDPOINT_LONG: testcodec_raw_str (raw, long_text, DROVER_ENDPOINT_MAX + 1);
                                break;
        default:                s_str (raw, A);
    }
    switch (bad) {
        case BAD_TOKEN_NEGATIVE: msgpack_pack_int (&raw->pk, -1); break;
        case BAD_TOKEN_STR:     s_str (raw, "7"); break;
        default:                msgpack_pack_uint64 (&raw->pk, 7);
    }
    if (bad == BAD_ROW_SHORT)
        return;
    switch (bad) {
        case BAD_ENDPOINTS_STR: s_str (raw, A); break;
        case BAD_ENDPOINT_EMPTY:
            msgpack_pack_array (&raw->pk, 2);
            s_str (raw, A);
            s_str (raw, "");
            break;
        case BAD_ENDPOINT_SPACE:
            msgpack_pack_array (&raw->pk, 1);
            s_str (raw, "tcp://a b:1");
            break;
        case BAD_ENDPOINT_NUL:
            msgpack_pack_array (&raw->pk, 1);
            testcodec_raw_str (raw, "tcp://a\0:1", 10);
            break;
        case BAD_ENDPOINTS_MANY:
            msgpack_pack_array (&raw->pk, DROVER_QUEUE_ENDPOINTS_MAX + 1);
            for (int index = 0; index <= DROVER_QUEUE_ENDPOINTS_MAX; index++)
                s_str (raw, A);
            break;
        case BAD_ENDPOINTS_PAST_BYTES:
            msgpack_pack_array (&raw->pk, 60);      //  and 1 of them: the walk refuses it
            s_str (raw, A);
            break;
        default:
            msgpack_pack_array (&raw->pk, 2);
            s_str (raw, A);
            s_str (raw, B);
    }
    if (bad == EXTRA_ELEMENTS) {                //  a later version's: skipped
        msgpack_pack_map (&raw->pk, 1);     //  at depth 4, as deep as may be
        s_str (raw, "k");
        msgpack_pack_uint8 (&raw->pk, 1);
        msgpack_pack_nil (&raw->pk);
    }
}

//  A raw QUEUE TABLE of rows "a", then one with what bad says wrong
static void
s_raw_table (testcodec_raw_t *raw, s_bad_t bad)
{
    testcodec_raw_begin (raw, DROVER_MSG_QUEUE_TABLE, 2);
    s_str (raw, "spread");
    msgpack_pack_array (&raw->pk, 2);
    s_raw_row (raw, "a", BAD_NONE);
    s_raw_row (raw, "b", bad);
}

//  Every way a row can be wrong is refused, naming the part
static void
test_rows_refused (void **state)
{
    struct {
        s_bad_t bad;
        const char *error;
    } cases [] = {
        { BAD_ROW_SHORT, "queue: out of range" },
        { BAD_ROW_NOT_ARRAY, "queue: wrong type" },
        { BAD_NAME_EMPTY, "queue name: out of range" },
        { BAD_NAME_CHAR, "queue name: not 1..64" },
        { BAD_NAME_LONG, "queue name: out of range" },
        { BAD_NAME_BIN, "queue name: wrong type" },
        { BAD_OWNER_SPACE, "queue owner: not a valid broker name" },
        { BAD_OWNER_LONG, "queue owner: out of range" },
        { BAD_OWNER_NIL, "queue owner: wrong type" },
        { BAD_ENDPOINT_COMMA, "queue owner_endpoint: not an endpoint" },
        { BAD_ENDPOINT_LONG, "queue owner_endpoint: out of range" },
        { BAD_TOKEN_NEGATIVE, "queue token" },
        { BAD_TOKEN_STR, "queue token: wrong type" },
        { BAD_ENDPOINTS_STR, "queue endpoints: wrong type" },
        { BAD_ENDPOINT_EMPTY, "queue endpoint: out of range" },
        { BAD_ENDPOINT_SPACE, "queue endpoint: not an endpoint" },
        { BAD_ENDPOINT_NUL, "queue endpoint: contains NUL" },
        { BAD_ENDPOINTS_MANY, "queue endpoints: out of range" },
        { BAD_ENDPOINTS_PAST_BYTES, "" },
    };
    for (size_t index = 0; index < sizeof cases / sizeof cases [0]; index++) {
        testcodec_raw_t raw;
        s_raw_table (&raw, cases [index].bad);
        testcodec_assert_raw_refused (&raw, cases [index].error, 64);
    }
    //  A row of a later version: its extra elements are skipped
    testcodec_raw_t raw;
    s_raw_table (&raw, EXTRA_ELEMENTS);
    drover_msg_t *msg = testcodec_raw_accepted (&raw);
    assert_int_equal (msg->nqueues, 2);
    assert_string_equal (msg->queue_rows [1].name, "b");
    assert_string_equal (msg->queue_rows [1].endpoints, A "," B);
    assert_true (msg->queue_rows [1].token == 7);
    drover_msg_destroy (&msg);
}

//  The table itself: order, count, strategy, field count (a field past
//  those known, as from a newer broker, is read)
static void
test_table_refused (void **state)
{
    testcodec_raw_t raw;
    //  Out of order, and a name twice
    testcodec_raw_begin (&raw, DROVER_MSG_QUEUE_TABLE, 2);
    s_str (&raw, "spread");
    msgpack_pack_array (&raw.pk, 2);
    s_raw_row (&raw, "b", BAD_NONE);
    s_raw_row (&raw, "a", BAD_NONE);
    testcodec_assert_raw_refused (&raw, "queues: not in name order, or a name twice", 64);
    testcodec_raw_begin (&raw, DROVER_MSG_QUEUE_TABLE, 2);
    s_str (&raw, "spread");
    msgpack_pack_array (&raw.pk, 2);
    s_raw_row (&raw, "a", BAD_NONE);
    s_raw_row (&raw, "a", BAD_NONE);
    testcodec_assert_raw_refused (&raw, "queues: not in name order", 64);
    //  More rows than the limit, and more than the bytes can hold
    testcodec_raw_begin (&raw, DROVER_MSG_QUEUE_TABLE, 2);
    s_str (&raw, "spread");
    msgpack_pack_array (&raw.pk, DROVER_QUEUES_MAX + 1);
    for (int index = 0; index <= DROVER_QUEUES_MAX; index++) {
        char name [16];
        snprintf (name, sizeof name, "q%05d", index);
        s_raw_row (&raw, name, BAD_NONE);
    }
    testcodec_assert_raw_refused (&raw, "queues: out of range", 64);
    testcodec_raw_begin (&raw, DROVER_MSG_QUEUE_TABLE, 2);
    s_str (&raw, "spread");
    msgpack_pack_array (&raw.pk, 1000);
    for (int index = 0; index < 100; index++)
        msgpack_pack_nil (&raw.pk);
    testcodec_assert_raw_refused (&raw, "", 64);
    //  The strategy: too long, a space, not a str
    testcodec_raw_begin (&raw, DROVER_MSG_QUEUE_TABLE, 2);
    s_str (&raw, "a-strategy-of-17b");
    msgpack_pack_array (&raw.pk, 0);
    testcodec_assert_raw_refused (&raw, "strategy: out of range", 64);
    testcodec_raw_begin (&raw, DROVER_MSG_QUEUE_TABLE, 2);
    s_str (&raw, "two words");
    msgpack_pack_array (&raw.pk, 0);
    testcodec_assert_raw_refused (&raw, "strategy: not a valid strategy name", 64);
    testcodec_raw_begin (&raw, DROVER_MSG_QUEUE_TABLE, 2);
    msgpack_pack_nil (&raw.pk);
    msgpack_pack_array (&raw.pk, 0);
    testcodec_assert_raw_refused (&raw, "strategy: wrong type", 64);
    //  Rows not an array; a field missing
    testcodec_raw_begin (&raw, DROVER_MSG_QUEUE_TABLE, 2);
    s_str (&raw, "");
    msgpack_pack_map (&raw.pk, 0);
    testcodec_assert_raw_refused (&raw, "queues: wrong type", 64);
    testcodec_raw_begin (&raw, DROVER_MSG_QUEUE_TABLE, 1);
    s_str (&raw, "");
    testcodec_assert_raw_refused (&raw, "wrong number of fields", 64);
    //  One field too many (a newer broker's) is passed over
    testcodec_raw_begin (&raw, DROVER_MSG_QUEUE_TABLE, 3);
    s_str (&raw, "spread");
    msgpack_pack_array (&raw.pk, 1);
    s_raw_row (&raw, "a", BAD_NONE);
    msgpack_pack_nil (&raw.pk);
    drover_msg_t *later = testcodec_raw_accepted (&raw);
    assert_string_equal (later->strategy, "spread");
    assert_int_equal (later->nqueues, 1);
    assert_string_equal (later->queue_rows [0].name, "a");
    drover_msg_destroy (&later);
    //  QUEUES takes no field
    testcodec_raw_begin (&raw, DROVER_MSG_QUEUES, 1);
    s_str (&raw, "batch");
    testcodec_assert_raw_refused (&raw, "wrong number of fields", 64);
    //  An empty table from a broker without queues is fine
    testcodec_raw_begin (&raw, DROVER_MSG_QUEUE_TABLE, 2);
    s_str (&raw, "");
    msgpack_pack_array (&raw.pk, 0);
    drover_msg_t *msg = testcodec_raw_accepted (&raw);
    assert_int_equal (msg->nqueues, 0);
    drover_msg_destroy (&msg);
}

//  Every prefix of a full table is refused, and so is every single byte
//  changed into a value that breaks it, without leaks or crashes
static void
test_truncated_and_flipped (void **state)
{
    drover_msg_t *msg = s_table (3, A "," B);
    zframe_t *frame = drover_msg_encode (msg);
    assert_non_null (frame);
    const byte *data = zframe_data (frame);
    size_t size = zframe_size (frame);
    drover_msg_t *copy = drover_msg_new (0);
    for (size_t length = 0; length < size; length++)
        assert_int_equal (drover_msg_decode (copy, data, length), -2);
    byte *mutated = (byte *) malloc (size);
    testcodec_seed (40);
    for (size_t index = 4; index < size; index++)
        for (int round = 0; round < 4; round++) {
            memcpy (mutated, data, size);
            mutated [index] = (byte) testcodec_random ();
            int rc = drover_msg_decode (copy, mutated, size);
            assert_true (rc == 0 || rc == -2);
        }
    free (mutated);
    drover_msg_destroy (&copy);
    zframe_destroy (&frame);
    drover_msg_destroy (&msg);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_roundtrip_limits),
        cmocka_unit_test (test_not_encoded),
        cmocka_unit_test (test_rows_refused),
        cmocka_unit_test (test_table_refused),
        cmocka_unit_test (test_truncated_and_flipped),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
