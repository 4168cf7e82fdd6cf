/*  =========================================================================
    testcodec_msg - what the wire codec's tests share (test_drover_msg_
    roundtrip, _hostile, _levels, _versions): a message of every id with
    every field set, the field-by-field comparison of two messages,
    encoding to bytes, and raw messages and the checks of their refusal.
    Linked, with testcodec.c, into the tests that include it.
    =========================================================================
*/

#ifndef TESTCODEC_MSG_H_INCLUDED
#define TESTCODEC_MSG_H_INCLUDED

#include "testcodec.h"

//  Return a message of this id with every field it carries set, ours
drover_msg_t *
    testcodec_filled (int id);

//  Assert that two messages hold the same values, field by field
void
    testcodec_assert_same (const drover_msg_t *a, const drover_msg_t *b);

//  Encode a message into a fresh byte buffer (asserting it encodes), ours
byte *
    testcodec_encode (drover_msg_t *msg, size_t *size_p);

//  Encode msg, decode it into copy (which may hold an earlier message) and
//  assert the two are the same
void
    testcodec_assert_roundtrip (drover_msg_t *msg, drover_msg_t *copy);

//  Decode bytes expecting a refusal; returns the error text (static)
const char *
    testcodec_refused (const byte *data, size_t size);

//  Assert that decoding refuses the bytes with an error containing text
void
    testcodec_assert_refused (const byte *data, size_t size, const char *text);

//  Start a raw message of id with nfields fields after the header and
//  this seq
void
    testcodec_raw_begin_seq (testcodec_raw_t *raw, int id, size_t nfields, uint32_t seq);

//  Assert that decoding refuses the raw message with an error containing
//  text, then free it
void
    testcodec_assert_raw_says (testcodec_raw_t *raw, const char *text);

//  Raw TASK DONE of task 5 in task_state, by worker w7, with its outcome
//  end after the state at level 2 (12 fields) and without it at level 1
//  (11), then extra fields past them, each a map {"k": []}
void
    testcodec_raw_done (testcodec_raw_t *raw, int level, int task_state, int end, int extra);

//  Make msg what it reads as once sent at level 2: without what level 2
//  lacks (the submit's after, begin, retry delays and array, a list's
//  group, rows' waits, group and parents, explanation items of codes 60
//  on), with end DEPENDENCY as CANCELLED
void
    testcodec_as_level_two (drover_msg_t *msg);

//  Decode raw (then freed) into msg, asserting it decodes
void
    testcodec_raw_into (testcodec_raw_t *raw, drover_msg_t *msg);

#endif
