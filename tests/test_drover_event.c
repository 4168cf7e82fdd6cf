/*  =========================================================================
    test_drover_event - the event codec: an event round-trips and prints
    as one whole JSON line whatever its strings hold; keys come in any
    order, unknown ones are skipped; and a body that is cut, lacks a
    topic, repeats a key, has a wrong type or is random bytes is refused
    with -2 and the event zeroed (run under ASan+UBSan).
    =========================================================================
*/

#include "testcodec.h"

static void
test_event_roundtrip_and_json (void **state)
{
    drover_event_t event = { .time = 1732262400000ull, .task = 42, .attempt = 1,
                             .seq = 1ull << 40 };
    strcpy (event.topic, "task.succeeded");
    strcpy (event.worker, "node-7");
    strcpy (event.reason, "said \"hi\"\\\n\t\x01 caf\xc3\xa9 \xff end \x7f");
    zframe_t *frame = drover_event_encode (&event);
    assert_non_null (frame);
    drover_event_t copy;
    assert_int_equal (drover_event_decode (&copy, zframe_data (frame), zframe_size (frame)), 0);
    assert_true (copy.time == event.time);
    assert_true (copy.seq == event.seq);
    assert_string_equal (copy.topic, event.topic);
    assert_true (copy.task == event.task);
    assert_int_equal (copy.attempt, event.attempt);
    assert_string_equal (copy.worker, event.worker);
    assert_string_equal (copy.reason, event.reason);
    //  Every prefix is refused
    for (size_t size = 0; size < zframe_size (frame); size++)
        assert_int_equal (drover_event_decode (&copy, zframe_data (frame), size), -2);
    zframe_destroy (&frame);

    char *json = drover_event_json (&event);
    assert_string_equal (json,
        "{\"time\":\"2024-11-22T08:00:00.000Z\",\"topic\":\"task.succeeded\",\"task\":42,\"attempt\":1,"
        "\"worker\":\"node-7\",\"reason\":\"said \\\"hi\\\"\\\\\\n\\t\\u0001 caf\xc3\xa9 "
        "\\ufffd end \\u007f\",\"seq\":1099511627776}");
    zstr_free (&json);

    //  A full reason of 3-byte escapes still fits; overlong UTF-8 is replaced
    memset (event.reason, 0x01, DROVER_REASON_MAX);
    event.reason [DROVER_REASON_MAX] = 0;
    json = drover_event_json (&event);
    assert_non_null (strstr (json, "\\u0001\",\"seq\":1099511627776}"));
    zstr_free (&json);
    strcpy (event.reason, "\xc0\xaf \xed\xa0\x80 \xf4\x90\x80\x80 \xe2\x82");
    json = drover_event_json (&event);
    assert_non_null (strstr (json, "\"reason\":\"\\ufffd\\ufffd \\ufffd\\ufffd\\ufffd "
                                   "\\ufffd\\ufffd\\ufffd\\ufffd \\ufffd\\ufffd\","
                                   "\"seq\":1099511627776}"));
    zstr_free (&json);

    //  Keys in any order, unknown keys skipped, missing ones zero
    testcodec_raw_t raw;
    testcodec_raw_init (&raw);
    msgpack_pack_map (&raw.pk, 3);
    testcodec_raw_str (&raw, "future", 6);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 0);
    testcodec_raw_str (&raw, "topic", 5);
    testcodec_raw_str (&raw, "worker.up", 9);
    testcodec_raw_str (&raw, "worker", 6);
    testcodec_raw_str (&raw, "w1", 2);
    assert_int_equal (drover_event_decode (&copy, RAW_DATA (raw), RAW_SIZE (raw)), 0);
    assert_string_equal (copy.topic, "worker.up");
    assert_string_equal (copy.worker, "w1");
    assert_true (copy.time == 0 && copy.task == 0 && copy.attempt == 0 && copy.seq == 0);
    assert_string_equal (copy.reason, "");
    testcodec_raw_destroy (&raw);

    //  Refused: no topic, a repeated key, a bad topic, a wrong type, not a
    //  map; the event is zeroed on failure
    struct { const char *bytes; size_t size; } refused [] = {
        { "\x81\xa4" "task" "\x01", 7 },
        { "\x82\xa5" "topic" "\xa3" "a.b" "\xa5" "topic" "\xa3" "a.c", 21 },
        { "\x81\xa5" "topic" "\xa9" "has space", 17 },
        { "\x82\xa5" "topic" "\xa3" "a.b" "\xa4" "task" "\xff", 17 },   //  task -1
        { "\x82\xa5" "topic" "\xa3" "a.b" "\xa3" "seq" "\xff", 16 },     //  seq -1
        { "\x82\xa5" "topic" "\xa3" "a.b" "\xa3" "seq" "\xa1" "1", 17 }, //  seq a str
        { "\x83\xa5" "topic" "\xa3" "a.b" "\xa3" "seq" "\x01" "\xa3" "seq" "\x02", 21 },
        { "\x91\x01", 2 },
        { "\xdf\xff\xff\xff\xff", 5 },
    };
    for (size_t index = 0; index < sizeof refused / sizeof refused [0]; index++) {
        strcpy (copy.topic, "stale");
        assert_int_equal (drover_event_decode (&copy, (const byte *) refused [index].bytes,
                                               refused [index].size), -2);
        assert_string_equal (copy.topic, "");
    }
}

//  drover_event_json once formatted '{"time":N,"topic":' into a 32-byte
//  buffer and appended the untruncated length: a time of 15 digits or
//  more (any uint64 a broken publisher sends) printed a cut line and read
//  past the buffer (found by the event fuzzer; ASan aborts on it). The
//  time is an ISO 8601 date now: a year of up to 9 digits, never cut.
static void
test_event_json_long_time (void **state)
{
    drover_event_t event = { .time = UINT64_MAX, .task = UINT64_MAX, .attempt = UINT32_MAX };
    strcpy (event.topic, "task.succeeded");
    const char *trailer = "Z\",\"topic\":\"task.succeeded\",\"task\":18446744073709551615,"
                          "\"attempt\":4294967295,\"worker\":\"\",\"reason\":\"\",\"seq\":0}";
    for (uint64_t time = 100000000000000ull; ; time = time * 10 + 7) {
        event.time = time;
        char *json = drover_event_json (&event);
        assert_memory_equal (json, "{\"time\":\"", 9);
        size_t length = strlen (json);
        assert_true (length > strlen (trailer));
        assert_string_equal (json + length - strlen (trailer), trailer);
        char milliseconds [8];
        snprintf (milliseconds, sizeof milliseconds, ".%03d", (int) (time % 1000));
        assert_memory_equal (json + length - strlen (trailer) - 4, milliseconds, 4);
        zstr_free (&json);
        if (time > UINT64_MAX / 10)
            break;
    }
    //  The first of those, a date of five digits
    event.time = 100000000000000ull;
    char *json = drover_event_json (&event);
    assert_non_null (strstr (json, "{\"time\":\"5138-11-16T09:46:40.000Z\",\"topic\":"));
    zstr_free (&json);
    event.time = UINT64_MAX;
    json = drover_event_json (&event);
    assert_non_null (strstr (json, ".615Z\",\"topic\":"));
    zstr_free (&json);
}

//  Random bytes (the same buffers test_drover_msg_hostile decodes): accepted, or
//  refused
static void
test_event_random_bytes (void **state)
{
    drover_event_t event;
    testcodec_seed (42);
    for (int count = 0; count < 100000; count++) {
        size_t size;
        byte *data = testcodec_random_bytes (count, &size);
        int rc = drover_event_decode (&event, data, size);
        assert_true (rc == 0 || rc == -2);
        free (data);
    }
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_event_roundtrip_and_json),
        cmocka_unit_test (test_event_json_long_time),
        cmocka_unit_test (test_event_random_bytes),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
