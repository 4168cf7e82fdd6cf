/*  =========================================================================
    drover_event - the event codec: what the broker publishes (PROTOCOL.md
    §14, "The event stream")

    The body is a msgpack map {time, topic, task, attempt, worker, reason,
    seq},
    packed in one pass into a buffer on the stack sized for the largest
    event. Decoding walks the whole body first (structure, depth, trailing
    bytes), then reads the pairs: keys in any order, an unknown key's value
    skipped, a repeated known key refused, topic required. The JSON form
    escapes what JSON needs and replaces bytes that are not UTF-8, so a
    line is always one whole, valid object whatever a publisher sent.
    =========================================================================
*/

#include "drover_event.h"
#include "drover_mpack.h"

//  The parts of an event, for error texts
typedef enum {
    P_EVENT, P_KEY, P_TIME, P_TOPIC, P_TASK, P_ATTEMPT, P_WORKER, P_REASON, P_SEQ, P_COUNT
} s_part_t;

static const drover_mpack_errors_t
s_errors [P_COUNT] = {
    [P_EVENT]       = DROVER_MPACK_ERRORS ("event", "invalid"),
    [P_KEY]         = DROVER_MPACK_ERRORS ("event key", "repeated"),
    [P_TIME]        = DROVER_MPACK_ERRORS ("time", "invalid"),
    [P_TOPIC]       = DROVER_MPACK_ERRORS ("topic", "not a valid topic"),
    [P_TASK]        = DROVER_MPACK_ERRORS ("task", "invalid"),
    [P_ATTEMPT]     = DROVER_MPACK_ERRORS ("attempt", "invalid"),
    [P_WORKER]      = DROVER_MPACK_ERRORS ("worker", "not a valid worker id"),
    [P_REASON]      = DROVER_MPACK_ERRORS ("reason", "invalid"),
    [P_SEQ]         = DROVER_MPACK_ERRORS ("seq", "invalid"),
};

//  The known keys, in the order they are packed and printed
#define S_KEYS  7
static const char *
s_keys [S_KEYS] = { "time", "topic", "task", "attempt", "worker", "reason", "seq" };

//  Encode an event body into a new frame (never NULL). Strings are cut to
//  their limits; the receiver checks the rest.
zframe_t *
drover_event_encode (const drover_event_t *event)
{
    assert (event);
    size_t topic = strnlen (event->topic, sizeof event->topic - 1);
    size_t worker = strnlen (event->worker, DROVER_ID_MAX);
    size_t reason = strnlen (event->reason, DROVER_REASON_MAX);
    //  At most: map, 7 keys of < 8 bytes, 4 integers of 9, 3 strings
    byte buffer [1 + S_KEYS * 8 + 4 * 9 + 3 * 3 + sizeof event->topic + DROVER_ID_MAX
                 + DROVER_REASON_MAX];
    drover_mpack_writer_t writer = { buffer, 0, sizeof buffer, false };
    msgpack_packer pk;
    msgpack_packer_init (&pk, &writer, drover_mpack_writer_write);
    msgpack_pack_map (&pk, S_KEYS);
    drover_mpack_pack_str (&pk, "time", 4);
    msgpack_pack_uint64 (&pk, event->time);
    drover_mpack_pack_str (&pk, "topic", 5);
    drover_mpack_pack_str (&pk, event->topic, topic);
    drover_mpack_pack_str (&pk, "task", 4);
    msgpack_pack_uint64 (&pk, event->task);
    drover_mpack_pack_str (&pk, "attempt", 7);
    msgpack_pack_uint32 (&pk, event->attempt);
    drover_mpack_pack_str (&pk, "worker", 6);
    drover_mpack_pack_str (&pk, event->worker, worker);
    drover_mpack_pack_str (&pk, "reason", 6);
    drover_mpack_pack_str (&pk, event->reason, reason);
    drover_mpack_pack_str (&pk, "seq", 3);
    msgpack_pack_uint64 (&pk, event->seq);
    assert (!writer.overflow);
    return zframe_new (buffer, writer.size);
}

//  True if length bytes are an event topic: 1..31 of 0x21..0x7e
static bool
s_topic_valid (const char *topic, size_t length)
{
    return length < sizeof (((drover_event_t *) 0)->topic)
        && drover_mpack_id_valid (topic, length);
}

//  Read one known key's value into event
static bool
s_event_read_value (drover_mpack_cursor_t *cursor, drover_event_t *event, int key)
{
    const char *text;
    size_t length;
    switch (key) {
        case 0: return drover_mpack_read_u64 (cursor, P_TIME, &event->time);
        case 1:
            if (!drover_mpack_read_str (cursor, P_TOPIC, 1, sizeof event->topic - 1,
                                        &text, &length))
                return false;
            if (!s_topic_valid (text, length))
                return drover_mpack_fail (cursor, s_errors [P_TOPIC].invalid);
            memcpy (event->topic, text, length);
            event->topic [length] = 0;
            return true;
        case 2: return drover_mpack_read_u64 (cursor, P_TASK, &event->task);
        case 3: return drover_mpack_read_u32 (cursor, P_ATTEMPT, &event->attempt);
        case 4: return drover_mpack_read_id (cursor, P_WORKER, true, event->worker);
        case 5:
            if (!drover_mpack_read_str (cursor, P_REASON, 0, DROVER_REASON_MAX, &text, &length))
                return false;
            memcpy (event->reason, text, length);
            event->reason [length] = 0;
            return true;
        case 6: return drover_mpack_read_u64 (cursor, P_SEQ, &event->seq);
    }
    return drover_mpack_fail (cursor, "internal: unknown event key");
}

//  Decode an event body. Returns 0 or -2 if malformed (event then zeroed).
int
drover_event_decode (drover_event_t *event, const byte *data, size_t size)
{
    assert (event);
    memset (event, 0, sizeof *event);
    drover_mpack_cursor_t cursor = drover_mpack_cursor (data, size, s_errors);
    uint32_t count;
    unsigned seen = 0;
    if (!data || size == 0 || size > DROVER_MSG_MAX)
        drover_mpack_fail (&cursor, "event: empty or too large");
    else
    if (drover_mpack_walk (&cursor, DROVER_DEPTH_MAX) && cursor.ptr != cursor.end)
        drover_mpack_fail (&cursor, DROVER_MPACK_TRAILING);
    if (!cursor.error) {
        cursor.ptr = data;
        if (drover_mpack_read_map (&cursor, P_EVENT, &count))
            for (uint32_t pair = 0; pair < count; pair++) {
                const char *key;
                size_t length;
                if (!drover_mpack_read_str (&cursor, P_KEY, 0, UINT32_MAX, &key, &length))
                    break;
                int known = -1;
                for (int index = 0; index < S_KEYS && known < 0; index++)
                    if (strlen (s_keys [index]) == length
                    &&  memcmp (s_keys [index], key, length) == 0)
                        known = index;
                if (known < 0) {
                    //  Unknown key: skip its value (its structure was checked)
                    if (!drover_mpack_walk (&cursor, DROVER_DEPTH_MAX))
                        break;
                    continue;
                }
                if (seen & (1u << known)) {
                    drover_mpack_fail (&cursor, s_errors [P_KEY].invalid);
                    break;
                }
                seen |= 1u << known;
                if (!s_event_read_value (&cursor, event, known))
                    break;
            }
        if (!cursor.error && !(seen & 2))
            drover_mpack_fail (&cursor, "event: no topic");
    }
    if (!cursor.error)
        return 0;
    memset (event, 0, sizeof *event);
    return -2;
}

//  Growable text for JSON, bounded by the event's own limits
typedef struct {
    char *data;                     //  text so far, NUL-terminated
    size_t size;                    //  bytes used, without the NUL
    size_t capacity;                //  bytes allocated
} s_text_t;

//  Append length bytes
static void
s_text_append (s_text_t *text, const char *data, size_t length)
{
    if (text->size + length + 1 > text->capacity) {
        while (text->size + length + 1 > text->capacity)
            text->capacity *= 2;
        text->data = (char *) realloc (text->data, text->capacity);
        assert (text->data);
    }
    memcpy (text->data + text->size, data, length);
    text->size += length;
    text->data [text->size] = 0;
}

//  Append a number in decimal. The buffer holds any uint64 (20 digits), so
//  nothing is cut: the text appended is exactly what was formatted.
static void
s_text_append_uint (s_text_t *text, uint64_t value)
{
    char number [24];
    int length = snprintf (number, sizeof number, "%" PRIu64, value);
    assert (length > 0 && (size_t) length < sizeof number);
    s_text_append (text, number, (size_t) length);
}

//  Append msec since the epoch as an ISO 8601 UTC time in quotes, with
//  milliseconds: "2026-11-24T05:15:00.123Z". Any uint64 has a date (its
//  year has up to 9 digits), and the buffer holds the longest, so nothing
//  is cut.
static void
s_text_append_time (s_text_t *text, uint64_t msec)
{
    char stamp [64];
    time_t seconds = (time_t) (msec / 1000);
    struct tm utc;
    int length;
    if (gmtime_r (&seconds, &utc))
        length = snprintf (stamp, sizeof stamp, "\"%04lld-%02d-%02dT%02d:%02d:%02d.%03dZ\"",
                           (long long) utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                           utc.tm_hour, utc.tm_min, utc.tm_sec, (int) (msec % 1000));
    else
        length = snprintf (stamp, sizeof stamp, "\"%" PRIu64 "\"", msec);
    assert (length > 0 && (size_t) length < sizeof stamp);
    s_text_append (text, stamp, (size_t) length);
}

//  Length of the valid UTF-8 character at data (0 if it is not one)
static size_t
s_utf8_length (const byte *data, size_t left)
{
    byte lead = data [0];
    size_t length;
    uint32_t point;
    if (lead < 0x80)
        return 1;
    if (lead >= 0xc2 && lead <= 0xdf) {
        length = 2;
        point = lead & 0x1f;
    }
    else
    if (lead >= 0xe0 && lead <= 0xef) {
        length = 3;
        point = lead & 0x0f;
    }
    else
    if (lead >= 0xf0 && lead <= 0xf4) {
        length = 4;
        point = lead & 0x07;
    }
    else
        return 0;
    if (length > left)
        return 0;
    for (size_t index = 1; index < length; index++) {
        if ((data [index] & 0xc0) != 0x80)
            return 0;
        point = (point << 6) | (data [index] & 0x3f);
    }
    if ((length == 3 && point < 0x800)              //  overlong
    ||  (length == 4 && point < 0x10000)            //  overlong
    ||  (point >= 0xd800 && point <= 0xdfff)        //  surrogate
    ||  point > 0x10ffff)
        return 0;
    return length;
}

//  Append a JSON string: quotes, escapes, U+FFFD for bytes that are not UTF-8
static void
s_text_append_json (s_text_t *text, const char *string, size_t length)
{
    s_text_append (text, "\"", 1);
    const byte *data = (const byte *) string;
    size_t index = 0;
    while (index < length) {
        byte ch = data [index];
        char escape [8];
        if (ch == '"' || ch == '\\') {
            escape [0] = '\\';
            escape [1] = (char) ch;
            s_text_append (text, escape, 2);
            index++;
        }
        else
        if (ch < 0x20 || ch == 0x7f) {
            const char *named = ch == '\n'? "\\n": ch == '\r'? "\\r": ch == '\t'? "\\t"
                              : ch == '\b'? "\\b": ch == '\f'? "\\f": NULL;
            if (named)
                s_text_append (text, named, 2);
            else {
                snprintf (escape, sizeof escape, "\\u%04x", ch);
                s_text_append (text, escape, 6);
            }
            index++;
        }
        else {
            size_t run = s_utf8_length (data + index, length - index);
            if (run)
                s_text_append (text, string + index, run);
            else
                s_text_append (text, "\\ufffd", 6);
            index += run? run: 1;
        }
    }
    s_text_append (text, "\"", 1);
}

//  Format an event as one JSON line (no newline); caller frees with zstr_free
char *
drover_event_json (const drover_event_t *event)
{
    assert (event);
    s_text_t text = { (char *) drover_mpack_malloc (256), 0, 256 };
    text.data [0] = 0;
    s_text_append (&text, "{\"time\":", 8);
    s_text_append_time (&text, event->time);
    s_text_append (&text, ",\"topic\":", 9);
    s_text_append_json (&text, event->topic, strnlen (event->topic, sizeof event->topic));
    s_text_append (&text, ",\"task\":", 8);
    s_text_append_uint (&text, event->task);
    s_text_append (&text, ",\"attempt\":", 11);
    s_text_append_uint (&text, event->attempt);
    s_text_append (&text, ",\"worker\":", 10);
    s_text_append_json (&text, event->worker, strnlen (event->worker, sizeof event->worker));
    s_text_append (&text, ",\"reason\":", 10);
    s_text_append_json (&text, event->reason, strnlen (event->reason, sizeof event->reason));
    s_text_append (&text, ",\"seq\":", 7);
    s_text_append_uint (&text, event->seq);
    s_text_append (&text, "}", 1);
    return text.data;
}
