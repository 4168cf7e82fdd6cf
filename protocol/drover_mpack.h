/*  =========================================================================
    drover_mpack - msgpack helpers the three codecs share (internal)

    Not part of the API: only the codecs in protocol/ include this. Wire messages
    (drover_msg), the exec body (drover_exec) and events (drover_event)
    pack with msgpack-c through a writer that can first only count (so an
    encoding costs one allocation of exactly its size), and read with a
    bounds-checked cursor instead of msgpack_unpack (five bytes can make
    that allocate gigabytes). The cursor first walks a whole value without
    reading it (every length and count against the bytes left, nesting,
    ext types), then the codec reads it field by field; each read checks
    type, range and NUL bytes, and an array's count against the fewest
    bytes its elements can take, before anything is allocated for it.

    A failed read records the first error as static text. Which text
    depends on the part being read: each codec numbers its parts (fields)
    and gives the cursor its table of texts, indexed by those numbers.
    =========================================================================
*/

#ifndef DROVER_MPACK_H_INCLUDED
#define DROVER_MPACK_H_INCLUDED

#include "drover_limits.h"
#include <czmq.h>
#include <msgpack.h>

//  What to say when a part is wrong, by part
typedef struct {
    const char *type;               //  not the msgpack type the part has
    const char *range;              //  value, length or count past its limits
    const char *nul;                //  a NUL byte inside a string
    const char *invalid;            //  content refused (bad id, label, env entry)
} drover_mpack_errors_t;

#define DROVER_MPACK_ERRORS(name, invalid) { \
    name ": wrong type", name ": out of range", name ": contains NUL", name ": " invalid }

#define DROVER_MPACK_TRAILING   "trailing bytes after the message"


//  ---------------------------------------------------------------------
//  Allocation and validity

//  Allocate or abort, as CZMQ does; no zeroing for bytes we overwrite
void *
    drover_mpack_malloc (size_t size);

//  Copy length bytes into a new NUL-terminated string
char *
    drover_mpack_strndup (const char *text, size_t length);

//  Copy size bytes into a new buffer, or NULL if there are none
byte *
    drover_mpack_memdup (const byte *data, size_t size);

//  True if length bytes are a worker id: 1..64 of 0x21..0x7e
bool
    drover_mpack_id_valid (const char *id, size_t length);


//  ---------------------------------------------------------------------
//  Packing: a writer that counts, or that writes into a buffer sized by
//  the count

typedef struct {
    byte *data;                     //  where to write, or NULL to only count
    size_t size;                    //  bytes written or counted so far
    size_t limit;                   //  bytes available at data
    bool overflow;                  //  a write did not fit (our own bug)
} drover_mpack_writer_t;

//  msgpack-c write callback (data is a drover_mpack_writer_t): count the
//  bytes, and copy them if writing
int
    drover_mpack_writer_write (void *data, const char *buffer, size_t length);

//  Packs one value of a codec; -1 if it breaks a limit
typedef int (drover_mpack_pack_fn) (msgpack_packer *pk, const void *value);

//  Measure what pack writes for value, checking every limit: returns the
//  size, or 0 if it cannot be packed or takes more than max bytes
size_t
    drover_mpack_measure (drover_mpack_pack_fn *pack, const void *value, size_t max);

//  Pack value into data, which holds exactly the size measured
void
    drover_mpack_write (drover_mpack_pack_fn *pack, const void *value, byte *data, size_t size);

//  Pack a string of known length
void
    drover_mpack_pack_str (msgpack_packer *pk, const char *text, size_t length);

//  Pack bytes as bin (NULL packs an empty bin)
void
    drover_mpack_pack_bin (msgpack_packer *pk, const byte *data, size_t size);

//  Pack a string of at most max bytes (NULL packs ""), owned or in a fixed
//  array of max + 1; -1 if longer
int
    drover_mpack_pack_text (msgpack_packer *pk, const char *text, size_t max);

//  Pack an id held in a fixed array of DROVER_ID_MAX + 1; "" too if
//  optional; -1 if it is not an id
int
    drover_mpack_pack_id (msgpack_packer *pk, const char *id, bool optional);


//  ---------------------------------------------------------------------
//  Reading: a bounds-checked cursor over the bytes

typedef struct {
    const byte *ptr;                //  next byte to read
    const byte *end;                //  one past the last byte
    const char *error;              //  first thing found wrong, static text
    const drover_mpack_errors_t *errors;    //  the codec's error texts, by part
    bool lenient;                   //  enums: any uint8 is taken, unknown values kept
                                    //  (what a newer sender may say, PROTOCOL.md §12)
    bool too_large;                 //  that was a str, bin or array longer than its
                                    //  range allows (not a fixed size): ERROR 413
} drover_mpack_cursor_t;

//  A cursor over size bytes at data (NULL reads as empty), saying what is
//  wrong with the texts in errors
static inline drover_mpack_cursor_t
drover_mpack_cursor (const byte *data, size_t size, const drover_mpack_errors_t *errors)
{
    drover_mpack_cursor_t cursor = { data, data? data + size: data, NULL, errors, false, false };
    return cursor;
}

//  Record the first error; always returns false
bool
    drover_mpack_fail (drover_mpack_cursor_t *cursor, const char *error);

//  Check that the cursor holds one well-formed msgpack value nested at
//  most depth_max deep; leaves the cursor after it (see drover_mpack.c)
bool
    drover_mpack_walk (drover_mpack_cursor_t *cursor, int depth_max);

//  Skip the elements of a record past the known ones, a later version's
//  (fields in all): each a well-formed value nested within the depth
//  limit from the record's depth
bool
    drover_mpack_skip_rest (drover_mpack_cursor_t *cursor, uint32_t fields, uint32_t known,
                            int depth);

//  Read any msgpack integer: *negative says if it is below zero, *bits
//  holds the value (two's complement if negative)
bool
    drover_mpack_read_integer (drover_mpack_cursor_t *cursor,
                               const drover_mpack_errors_t *errors,
                               bool *negative, uint64_t *bits);

//  Read an unsigned integer of at most max
bool
    drover_mpack_read_uint (drover_mpack_cursor_t *cursor, int part, uint64_t max,
                            uint64_t *value);

//  Read a uint64
bool
    drover_mpack_read_u64 (drover_mpack_cursor_t *cursor, int part, uint64_t *value);

//  Read a uint32
bool
    drover_mpack_read_u32 (drover_mpack_cursor_t *cursor, int part, uint32_t *value);

//  Read a uint8 (an enum) of at most max; on a lenient cursor, any uint8
bool
    drover_mpack_read_u8 (drover_mpack_cursor_t *cursor, int part, uint8_t max, uint8_t *value);

//  Read a signed 32-bit integer
bool
    drover_mpack_read_i32 (drover_mpack_cursor_t *cursor, int part, int32_t *value);

//  Read a float: float 32, float 64 or any integer; finite and >= 0
bool
    drover_mpack_read_float (drover_mpack_cursor_t *cursor, int part, double *value);

//  Read a str of min..max bytes without a NUL, returned in place (not
//  terminated)
bool
    drover_mpack_read_str (drover_mpack_cursor_t *cursor, int part, size_t min, size_t max,
                           const char **text, size_t *length);

//  Read a bin of at most max bytes, returned in place
bool
    drover_mpack_read_bin (drover_mpack_cursor_t *cursor, int part, size_t max,
                           const byte **data, size_t *size_p);

//  Read an array header of min..max elements, each at least each bytes
//  long on the wire: a count the bytes left cannot hold is refused here,
//  before anything is allocated for it
bool
    drover_mpack_read_array (drover_mpack_cursor_t *cursor, int part, size_t min, size_t max,
                             size_t each, uint32_t *count);

//  Read a map header; every pair takes at least two bytes
bool
    drover_mpack_read_map (drover_mpack_cursor_t *cursor, int part, uint32_t *count);

//  Consume a nil if one is next
bool
    drover_mpack_read_nil (drover_mpack_cursor_t *cursor);

//  Read a worker id into a fixed array of DROVER_ID_MAX + 1; empty
//  allowed if optional
bool
    drover_mpack_read_id (drover_mpack_cursor_t *cursor, int part, bool optional, char *id);

//  Read a string of 0..max bytes into a fixed array of max + 1 bytes
bool
    drover_mpack_read_fixed (drover_mpack_cursor_t *cursor, int part, size_t max, char *text);

#endif
