/*  =========================================================================
    testcodec - what the codec tests share (test_drover_msg_*,
    test_drover_exec, test_drover_event)

    A deterministic PRNG and the random buffers it makes, a packer for
    hand-made (often hostile) bytes and the checks of what they decode to,
    and a watch on what the code under test allocates. The watch needs the
    linker's --wrap of malloc, calloc and realloc: CMakeLists.txt links
    testcodec.c and those options into the codec tests, and only into them.
    =========================================================================
*/

#ifndef TESTCODEC_H_INCLUDED
#define TESTCODEC_H_INCLUDED

#include "testutil.h"
#include <msgpack.h>
#include "drover_msg.h"

//  Set the PRNG's state, so a test's random values do not depend on the
//  tests run before it
void
    testcodec_seed (uint64_t seed);

//  The next value of a deterministic PRNG (xorshift64*), so failures reproduce
uint64_t
    testcodec_random (void);

//  A new buffer of 0..256 random bytes for round `round` of a random test,
//  the caller frees it. Every other one starts like a wire message (array,
//  "DRV", version 1, an id up to one past the last), to get past the header.
byte *
    testcodec_random_bytes (int round, size_t *size_p);

//  A packer into an sbuffer, for hand-made (often hostile) bytes
typedef struct {
    msgpack_sbuffer buffer;
    msgpack_packer pk;
} testcodec_raw_t;

//  Start an empty raw buffer
void
    testcodec_raw_init (testcodec_raw_t *raw);

//  Pack a str of length bytes (NULs allowed)
void
    testcodec_raw_str (testcodec_raw_t *raw, const char *text, size_t length);

//  Free the raw buffer
void
    testcodec_raw_destroy (testcodec_raw_t *raw);

#define RAW_DATA(raw)   ((const byte *) (raw).buffer.data)
#define RAW_SIZE(raw)   ((raw).buffer.size)

//  The seq testcodec_raw_begin writes, which a refusal must echo
#define TESTCODEC_SEQ   77

//  Start a raw wire message of id with nfields fields past the header
//  (array, "DRV", version 1, id, seq TESTCODEC_SEQ)
void
    testcodec_raw_begin (testcodec_raw_t *raw, int id, size_t nfields);

//  Decode raw (then freed) expecting success: the message, ours
drover_msg_t *
    testcodec_raw_accepted (testcodec_raw_t *raw);

//  Decode raw (then freed) expecting a refusal whose error contains text,
//  its seq echoed, and no single allocation past ratio times its size
void
    testcodec_assert_raw_refused (testcodec_raw_t *raw, const char *text, size_t ratio);

//  Encode msg (asserting it encodes), decode the bytes into a new message
//  (asserting it decodes) and return that, ours
drover_msg_t *
    testcodec_roundtrip (drover_msg_t *msg);

//  Assert that two messages hold the same QUEUE TABLE, field by field
void
    testcodec_assert_same_queues (const drover_msg_t *a, const drover_msg_t *b);

//  Assert that msg is not encoded (what: the field that breaks a limit)
void
    testcodec_assert_not_encoded (drover_msg_t *msg, const char *what);

//  Assert that msg encodes to exactly the bytes given
void
    testcodec_assert_encodes_to (drover_msg_t *msg, const byte *bytes, size_t size);

//  Pack what a later version may append to a record (a map, then a nil),
//  which a decoder must skip
void
    testcodec_raw_later_elements (testcodec_raw_t *raw);

//  Assert that two term statistics of the service reconciler are the same,
//  field by field (the padding of a struct is not)
void
    testcodec_assert_same_service_stats (const drover_service_stats_t *a,
                                         const drover_service_stats_t *b);

//  Assert that two messages hold the same services, replicas, changes and
//  service fields, field by field
void
    testcodec_assert_same_services (const drover_msg_t *a, const drover_msg_t *b);

//  The largest single allocation (malloc, calloc or realloc) since it was
//  last set to 0, in bytes
extern size_t testcodec_alloc_largest;

#endif
