/*  =========================================================================
    drover_mpack - msgpack helpers the three codecs share (internal)

    What wire messages (drover_msg, drover_msg_fields), the exec body
    (drover_exec) and events (drover_event) all need, written once: the
    allocation helpers, the counting writer and its two passes (measure,
    then write into a buffer of exactly that size), and the bounds-checked
    cursor with its readers and the structure walk. See drover_mpack.h.
    Nothing here asserts on input.
    =========================================================================
*/

#include "drover_mpack.h"
#include <math.h>


//  ---------------------------------------------------------------------
//  Allocation and validity

//  Allocate or abort, as CZMQ does; no zeroing for bytes we overwrite
void *
drover_mpack_malloc (size_t size)
{
    void *data = malloc (size? size: 1);
    if (!data) {
        fprintf (stderr, "drover_mpack: out of memory (%zu bytes)\n", size);
        abort ();
    }
    return data;
}

//  Copy length bytes into a new NUL-terminated string
char *
drover_mpack_strndup (const char *text, size_t length)
{
    char *copy = (char *) drover_mpack_malloc (length + 1);
    memcpy (copy, text, length);
    copy [length] = 0;
    return copy;
}

//  Copy size bytes into a new buffer, or NULL if there are none
byte *
drover_mpack_memdup (const byte *data, size_t size)
{
    if (!data || size == 0)
        return NULL;
    byte *copy = (byte *) drover_mpack_malloc (size);
    memcpy (copy, data, size);
    return copy;
}

//  True if length bytes are a worker id: 1..64 of 0x21..0x7e
bool
drover_mpack_id_valid (const char *id, size_t length)
{
    if (length < 1 || length > DROVER_ID_MAX)
        return false;
    for (size_t index = 0; index < length; index++)
        if ((byte) id [index] < 0x21 || (byte) id [index] > 0x7e)
            return false;
    return true;
}


//  ---------------------------------------------------------------------
//  Packing: a writer that counts, or that writes into a buffer sized by
//  the count

//  msgpack-c write callback: count the bytes, and copy them if writing
int
drover_mpack_writer_write (void *data, const char *buffer, size_t length)
{
    drover_mpack_writer_t *writer = (drover_mpack_writer_t *) data;
    if (writer->data) {
        if (length > writer->limit - writer->size) {
            writer->overflow = true;
            return -1;
        }
        memcpy (writer->data + writer->size, buffer, length);
    }
    writer->size += length;
    return 0;
}

//  Measure what pack writes for value, checking every limit: returns the
//  size, or 0 if it cannot be packed or takes more than max bytes
size_t
drover_mpack_measure (drover_mpack_pack_fn *pack, const void *value, size_t max)
{
    drover_mpack_writer_t counter = { NULL, 0, 0, false };
    msgpack_packer packer;
    msgpack_packer_init (&packer, &counter, drover_mpack_writer_write);
    if (pack (&packer, value) || counter.size > max)
        return 0;
    return counter.size;
}

//  Pack value into data, which holds exactly the size measured
void
drover_mpack_write (drover_mpack_pack_fn *pack, const void *value, byte *data, size_t size)
{
    drover_mpack_writer_t writer = { data, 0, size, false };
    msgpack_packer packer;
    msgpack_packer_init (&packer, &writer, drover_mpack_writer_write);
    int rc = pack (&packer, value);
    assert (rc == 0 && !writer.overflow && writer.size == size);
    (void) rc;
}

//  Pack a string of known length
void
drover_mpack_pack_str (msgpack_packer *pk, const char *text, size_t length)
{
    msgpack_pack_str (pk, length);
    if (length)
        msgpack_pack_str_body (pk, text, length);
}

//  Pack bytes as bin (NULL packs an empty bin)
void
drover_mpack_pack_bin (msgpack_packer *pk, const byte *data, size_t size)
{
    msgpack_pack_bin (pk, data? size: 0);
    if (data && size)
        msgpack_pack_bin_body (pk, data, size);
}

//  Pack an owned string of at most max bytes (NULL packs ""); -1 if longer
int
drover_mpack_pack_text (msgpack_packer *pk, const char *text, size_t max)
{
    size_t length = text? strnlen (text, max + 1): 0;
    if (length > max)
        return -1;
    drover_mpack_pack_str (pk, text, length);
    return 0;
}

//  Pack an id held in a fixed array; "" too if optional
int
drover_mpack_pack_id (msgpack_packer *pk, const char *id, bool optional)
{
    size_t length = strnlen (id, DROVER_ID_MAX + 1);
    if (!(optional && length == 0) && !drover_mpack_id_valid (id, length))
        return -1;
    drover_mpack_pack_str (pk, id, length);
    return 0;
}


//  ---------------------------------------------------------------------
//  Reading: a bounds-checked cursor over the bytes

#define S_TRUNCATED     "truncated: a length or count runs past the end"
#define S_TOO_DEEP      "nesting deeper than the limit"
#define S_BAD_BYTE      "ext types and byte 0xc1 are not allowed"

//  Record the first error; always returns false
bool
drover_mpack_fail (drover_mpack_cursor_t *cursor, const char *error)
{
    if (!cursor->error)
        cursor->error = error;
    return false;
}

//  Record that a length or count of a part is past its limits: too large
//  when past the top of a range (not a fixed size) and the first error
static bool
s_out_of_range (drover_mpack_cursor_t *cursor, int part, uint64_t size, size_t min, size_t max)
{
    if (!cursor->error && size > max && max > min)
        cursor->too_large = true;
    return drover_mpack_fail (cursor, cursor->errors [part].range);
}

//  Bytes left to read
static inline size_t
s_left (const drover_mpack_cursor_t *cursor)
{
    return (size_t) (cursor->end - cursor->ptr);
}

//  Read an unsigned big-endian number of width bytes
static bool
s_read_be (drover_mpack_cursor_t *cursor, int width, uint64_t *value)
{
    if (s_left (cursor) < (size_t) width)
        return drover_mpack_fail (cursor, S_TRUNCATED);
    uint64_t result = 0;
    for (int index = 0; index < width; index++)
        result = (result << 8) | cursor->ptr [index];
    cursor->ptr += width;
    *value = result;
    return true;
}

//  Read any msgpack integer: *negative says if it is below zero, *bits
//  holds the value (two's complement if negative)
bool
drover_mpack_read_integer (drover_mpack_cursor_t *cursor, const drover_mpack_errors_t *errors,
                           bool *negative, uint64_t *bits)
{
    if (cursor->ptr >= cursor->end)
        return drover_mpack_fail (cursor, S_TRUNCATED);
    byte marker = *cursor->ptr;
    if (marker <= 0x7f || marker >= 0xe0) {
        cursor->ptr++;
        *negative = marker >= 0xe0;
        *bits = (uint64_t) (int64_t) (int8_t) marker;
        return true;
    }
    if (marker < 0xcc || marker > 0xd3)
        return drover_mpack_fail (cursor, errors->type);
    int width = 1 << ((marker - 0xcc) & 3);
    bool is_signed = marker >= 0xd0;
    cursor->ptr++;
    uint64_t value;
    if (!s_read_be (cursor, width, &value))
        return false;
    if (is_signed) {
        int64_t signed_value = width == 1? (int8_t) value
                             : width == 2? (int16_t) value
                             : width == 4? (int32_t) value
                             : (int64_t) value;
        *negative = signed_value < 0;
        *bits = (uint64_t) signed_value;
    }
    else {
        *negative = false;
        *bits = value;
    }
    return true;
}

//  Read an unsigned integer of at most max
bool
drover_mpack_read_uint (drover_mpack_cursor_t *cursor, int part, uint64_t max, uint64_t *value)
{
    bool negative;
    if (!drover_mpack_read_integer (cursor, &cursor->errors [part], &negative, value))
        return false;
    if (negative || *value > max)
        return drover_mpack_fail (cursor, cursor->errors [part].range);
    return true;
}

//  Read a uint64 field
bool
drover_mpack_read_u64 (drover_mpack_cursor_t *cursor, int part, uint64_t *value)
{
    return drover_mpack_read_uint (cursor, part, UINT64_MAX, value);
}

//  Read a uint32 field
bool
drover_mpack_read_u32 (drover_mpack_cursor_t *cursor, int part, uint32_t *value)
{
    uint64_t wide;
    if (!drover_mpack_read_uint (cursor, part, UINT32_MAX, &wide))
        return false;
    *value = (uint32_t) wide;
    return true;
}

//  Read a uint8 field (an enum) of at most max
bool
drover_mpack_read_u8 (drover_mpack_cursor_t *cursor, int part, uint8_t max, uint8_t *value)
{
    uint64_t wide;
    if (cursor->lenient)
        max = UINT8_MAX;        //  a value this version does not know is kept, not refused
    if (!drover_mpack_read_uint (cursor, part, max, &wide))
        return false;
    *value = (uint8_t) wide;
    return true;
}

//  Read a signed 32-bit integer
bool
drover_mpack_read_i32 (drover_mpack_cursor_t *cursor, int part, int32_t *value)
{
    bool negative;
    uint64_t bits;
    if (!drover_mpack_read_integer (cursor, &cursor->errors [part], &negative, &bits))
        return false;
    if (negative? (int64_t) bits < INT32_MIN: bits > INT32_MAX)
        return drover_mpack_fail (cursor, cursor->errors [part].range);
    *value = (int32_t) (int64_t) bits;
    return true;
}

//  Read a float: float 32, float 64 or any integer; finite and >= 0
bool
drover_mpack_read_float (drover_mpack_cursor_t *cursor, int part, double *value)
{
    if (cursor->ptr >= cursor->end)
        return drover_mpack_fail (cursor, S_TRUNCATED);
    byte marker = *cursor->ptr;
    if (marker == 0xca || marker == 0xcb) {
        cursor->ptr++;
        uint64_t bits;
        if (!s_read_be (cursor, marker == 0xca? 4: 8, &bits))
            return false;
        if (marker == 0xca) {
            uint32_t narrow = (uint32_t) bits;
            float single;
            memcpy (&single, &narrow, sizeof single);
            *value = single;
        }
        else
            memcpy (value, &bits, sizeof *value);
    }
    else {
        bool negative;
        uint64_t bits;
        if (!drover_mpack_read_integer (cursor, &cursor->errors [part], &negative, &bits))
            return false;
        *value = negative? (double) (int64_t) bits: (double) bits;
    }
    if (!isfinite (*value) || *value < 0)
        return drover_mpack_fail (cursor, cursor->errors [part].range);
    return true;
}

//  Read a str header and body of min..max bytes without a NUL; the body
//  is returned in place (not terminated)
bool
drover_mpack_read_str (drover_mpack_cursor_t *cursor, int part, size_t min, size_t max,
                       const char **text, size_t *length)
{
    if (cursor->ptr >= cursor->end)
        return drover_mpack_fail (cursor, S_TRUNCATED);
    byte marker = *cursor->ptr++;
    uint64_t size;
    if (marker >= 0xa0 && marker <= 0xbf)
        size = marker & 0x1f;
    else
    if (marker >= 0xd9 && marker <= 0xdb) {
        if (!s_read_be (cursor, 1 << (marker - 0xd9), &size))
            return false;
    }
    else
        return drover_mpack_fail (cursor, cursor->errors [part].type);
    if (size > s_left (cursor))
        return drover_mpack_fail (cursor, S_TRUNCATED);
    if (size < min || size > max)
        return s_out_of_range (cursor, part, size, min, max);
    if (memchr (cursor->ptr, 0, size))
        return drover_mpack_fail (cursor, cursor->errors [part].nul);
    *text = (const char *) cursor->ptr;
    *length = size;
    cursor->ptr += size;
    return true;
}

//  Read a bin of at most max bytes, returned in place
bool
drover_mpack_read_bin (drover_mpack_cursor_t *cursor, int part, size_t max,
                       const byte **data, size_t *size_p)
{
    if (cursor->ptr >= cursor->end)
        return drover_mpack_fail (cursor, S_TRUNCATED);
    byte marker = *cursor->ptr++;
    uint64_t size;
    if (marker < 0xc4 || marker > 0xc6)
        return drover_mpack_fail (cursor, cursor->errors [part].type);
    if (!s_read_be (cursor, 1 << (marker - 0xc4), &size))
        return false;
    if (size > s_left (cursor))
        return drover_mpack_fail (cursor, S_TRUNCATED);
    if (size > max)
        return s_out_of_range (cursor, part, size, 0, max);
    *data = cursor->ptr;
    *size_p = size;
    cursor->ptr += size;
    return true;
}

//  Read the count of a container whose short form is fix..fix+15 and whose
//  16- and 32-bit forms are wide and wide+1; a count the bytes left cannot
//  hold at each bytes an element is refused
static bool
s_read_count (drover_mpack_cursor_t *cursor, int part, byte fix, byte wide, size_t each,
              uint64_t *size)
{
    if (cursor->ptr >= cursor->end)
        return drover_mpack_fail (cursor, S_TRUNCATED);
    byte marker = *cursor->ptr++;
    if (marker >= fix && marker <= fix + 0x0f)
        *size = marker & 0x0f;
    else
    if (marker == wide || marker == wide + 1) {
        if (!s_read_be (cursor, marker == wide? 2: 4, size))
            return false;
    }
    else
        return drover_mpack_fail (cursor, cursor->errors [part].type);
    if (*size > s_left (cursor) / each)
        return drover_mpack_fail (cursor, S_TRUNCATED);
    return true;
}

//  Read an array header of min..max elements, each at least each bytes
//  long on the wire: a count the bytes left cannot hold is refused here,
//  before anything is allocated for it
bool
drover_mpack_read_array (drover_mpack_cursor_t *cursor, int part, size_t min, size_t max,
                         size_t each, uint32_t *count)
{
    uint64_t size;
    if (!s_read_count (cursor, part, 0x90, 0xdc, each, &size))
        return false;
    if (size < min || size > max)
        return s_out_of_range (cursor, part, size, min, max);
    *count = (uint32_t) size;
    return true;
}

//  Read a map header; every pair takes at least two bytes
bool
drover_mpack_read_map (drover_mpack_cursor_t *cursor, int part, uint32_t *count)
{
    uint64_t size;
    if (!s_read_count (cursor, part, 0x80, 0xde, 2, &size))
        return false;
    *count = (uint32_t) size;
    return true;
}

//  Consume a nil if one is next
bool
drover_mpack_read_nil (drover_mpack_cursor_t *cursor)
{
    if (cursor->ptr < cursor->end && *cursor->ptr == 0xc0) {
        cursor->ptr++;
        return true;
    }
    return false;
}

//  Check that the cursor holds one well-formed msgpack value nested at
//  most depth_max deep, every length and count within the bytes that
//  remain, no ext types; leaves the cursor after it. Reads no value,
//  allocates nothing, and takes time linear in the bytes (every element
//  consumes at least one byte).
bool
drover_mpack_walk (drover_mpack_cursor_t *cursor, int depth_max)
{
    assert (depth_max >= 1 && depth_max <= DROVER_DEPTH_MAX);
    uint64_t pending [DROVER_DEPTH_MAX + 1];   //  elements left to read per level
    int level = 0;
    pending [0] = 1;
    while (true) {
        if (pending [level] == 0) {
            if (level == 0)
                return true;
            level--;
            continue;
        }
        pending [level]--;
        if (cursor->ptr >= cursor->end)
            return drover_mpack_fail (cursor, S_TRUNCATED);
        byte marker = *cursor->ptr++;
        uint64_t skip = 0;              //  payload bytes of a scalar
        uint64_t items = 0;             //  elements of a container
        bool container = false;
        if (marker <= 0x7f || marker >= 0xe0 || marker == 0xc0 || marker == 0xc2 || marker == 0xc3)
            ;                           //  the marker is the whole value
        else
        if (marker <= 0x8f) {
            container = true;
            items = 2 * (marker & 0x0f);
        }
        else
        if (marker <= 0x9f) {
            container = true;
            items = marker & 0x0f;
        }
        else
        if (marker <= 0xbf)
            skip = marker & 0x1f;
        else {
            bool ok = true;
            switch (marker) {
                case 0xc4: case 0xd9: ok = s_read_be (cursor, 1, &skip); break;
                case 0xc5: case 0xda: ok = s_read_be (cursor, 2, &skip); break;
                case 0xc6: case 0xdb: ok = s_read_be (cursor, 4, &skip); break;
                case 0xca: skip = 4; break;
                case 0xcb: skip = 8; break;
                case 0xcc: case 0xd0: skip = 1; break;
                case 0xcd: case 0xd1: skip = 2; break;
                case 0xce: case 0xd2: skip = 4; break;
                case 0xcf: case 0xd3: skip = 8; break;
                case 0xdc: container = true; ok = s_read_be (cursor, 2, &items); break;
                case 0xdd: container = true; ok = s_read_be (cursor, 4, &items); break;
                case 0xde: container = true; ok = s_read_be (cursor, 2, &items); items *= 2; break;
                case 0xdf: container = true; ok = s_read_be (cursor, 4, &items); items *= 2; break;
                default:
                    return drover_mpack_fail (cursor, S_BAD_BYTE);
            }
            if (!ok)
                return false;
        }
        if (container) {
            if (level + 1 > depth_max)
                return drover_mpack_fail (cursor, S_TOO_DEEP);
            if (items > s_left (cursor))
                return drover_mpack_fail (cursor, S_TRUNCATED);
            pending [++level] = items;
        }
        else {
            if (skip > s_left (cursor))
                return drover_mpack_fail (cursor, S_TRUNCATED);
            cursor->ptr += skip;
        }
    }
}

//  Read a worker id into a fixed array; empty allowed if optional
bool
drover_mpack_read_id (drover_mpack_cursor_t *cursor, int part, bool optional, char *id)
{
    const char *text;
    size_t length;
    if (!drover_mpack_read_str (cursor, part, optional? 0: 1, DROVER_ID_MAX, &text, &length))
        return false;
    if (length && !drover_mpack_id_valid (text, length))
        return drover_mpack_fail (cursor, cursor->errors [part].invalid);
    memcpy (id, text, length);
    id [length] = 0;
    return true;
}

//  Read a string of 0..max bytes into a fixed array of max + 1 bytes
bool
drover_mpack_read_fixed (drover_mpack_cursor_t *cursor, int part, size_t max, char *text)
{
    const char *data;
    size_t length;
    if (!drover_mpack_read_str (cursor, part, 0, max, &data, &length))
        return false;
    memcpy (text, data, length);
    text [length] = 0;
    return true;
}


//  --------------------------------------------------------------------------
//  Skip the elements of a record past the known ones

bool
drover_mpack_skip_rest (drover_mpack_cursor_t *cursor, uint32_t fields, uint32_t known,
                        int depth)
{
    for (uint32_t index = known; index < fields; index++)
        if (!drover_mpack_walk (cursor, DROVER_DEPTH_MAX - depth))
            return false;
    return true;
}
