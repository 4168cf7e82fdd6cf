/*  =========================================================================
    testcodec - what the codec tests share (see testcodec.h)
    =========================================================================
*/

#include "testcodec.h"

static uint64_t s_seed = 0x9e3779b97f4a7c15ull;

//  Set the PRNG's state
void
testcodec_seed (uint64_t seed)
{
    s_seed = seed;
}

//  The next value of a deterministic PRNG (xorshift64*)
uint64_t
testcodec_random (void)
{
    s_seed ^= s_seed >> 12;
    s_seed ^= s_seed << 25;
    s_seed ^= s_seed >> 27;
    return s_seed * 0x2545f4914f6cdd1dull;
}

//  A new buffer of 0..256 random bytes; every other one starts like a
//  wire message, to get past the header
byte *
testcodec_random_bytes (int round, size_t *size_p)
{
    size_t size = testcodec_random () % 257;
    byte *data = (byte *) malloc (size? size: 1);
    for (size_t index = 0; index < size; index++)
        data [index] = (byte) testcodec_random ();
    if (round % 2 && size > 8) {
        data [0] = 0x90 | (data [0] & 0x0f);
        memcpy (data + 1, "\xa3" "DRV\x01", 5);
        data [6] = data [6] % (DROVER_MSG_ID_MAX + 2);
    }
    *size_p = size;
    return data;
}

//  Start an empty raw buffer
void
testcodec_raw_init (testcodec_raw_t *raw)
{
    msgpack_sbuffer_init (&raw->buffer);
    msgpack_packer_init (&raw->pk, &raw->buffer, msgpack_sbuffer_write);
}

//  Pack a str of length bytes
void
testcodec_raw_str (testcodec_raw_t *raw, const char *text, size_t length)
{
    msgpack_pack_str_with_body (&raw->pk, text, length);
}

//  Free the raw buffer
void
testcodec_raw_destroy (testcodec_raw_t *raw)
{
    msgpack_sbuffer_destroy (&raw->buffer);
}

//  What the codec allocates, seen through the linker's --wrap of malloc,
//  calloc and realloc (CMakeLists.txt, the codec tests only): the largest
//  single request since testcodec_alloc_largest was last set to 0, in bytes
size_t testcodec_alloc_largest;

void *__real_malloc (size_t size);
void *__real_calloc (size_t count, size_t size);
void *__real_realloc (void *data, size_t size);
void *__wrap_malloc (size_t size);
void *__wrap_calloc (size_t count, size_t size);
void *__wrap_realloc (void *data, size_t size);

void *
__wrap_malloc (size_t size)
{
    testcodec_alloc_largest = size > testcodec_alloc_largest? size: testcodec_alloc_largest;
    return __real_malloc (size);
}

void *
__wrap_calloc (size_t count, size_t size)
{
    size_t total = count * size;
    testcodec_alloc_largest = total > testcodec_alloc_largest? total: testcodec_alloc_largest;
    return __real_calloc (count, size);
}

void *
__wrap_realloc (void *data, size_t size)
{
    testcodec_alloc_largest = size > testcodec_alloc_largest? size: testcodec_alloc_largest;
    return __real_realloc (data, size);
}

//  Start a raw wire message of id with nfields fields past the header
void
testcodec_raw_begin (testcodec_raw_t *raw, int id, size_t nfields)
{
    testcodec_raw_init (raw);
    msgpack_pack_array (&raw->pk, 4 + nfields);
    msgpack_pack_str_with_body (&raw->pk, "DRV", 3);
    msgpack_pack_uint8 (&raw->pk, 1);
    msgpack_pack_int (&raw->pk, id);
    msgpack_pack_uint32 (&raw->pk, TESTCODEC_SEQ);
}

//  Decode raw expecting success
drover_msg_t *
testcodec_raw_accepted (testcodec_raw_t *raw)
{
    drover_msg_t *msg = drover_msg_new (0);
    int rc = drover_msg_decode (msg, RAW_DATA (*raw), RAW_SIZE (*raw));
    if (rc)
        fail_msg ("decode refused: %s", msg->error);
    testcodec_raw_destroy (raw);
    return msg;
}

//  Decode raw expecting a refusal naming text, within ratio of its size
void
testcodec_assert_raw_refused (testcodec_raw_t *raw, const char *text, size_t ratio)
{
    drover_msg_t *msg = drover_msg_new (0);
    testcodec_alloc_largest = 0;
    int rc = drover_msg_decode (msg, RAW_DATA (*raw), RAW_SIZE (*raw));
    size_t largest = testcodec_alloc_largest;
    if (rc != -2)
        fail_msg ("decode accepted what it should refuse (\"%s\")", text);
    assert_non_null (msg->error);
    if (!strstr (msg->error, text))
        fail_msg ("error \"%s\" does not mention \"%s\"", msg->error, text);
    if (largest > ratio * RAW_SIZE (*raw))
        fail_msg ("refusing %zu bytes (\"%s\") allocated %zu at once", RAW_SIZE (*raw), text,
                  largest);
    assert_int_equal (msg->seq, TESTCODEC_SEQ);     //  the broker can echo it
    drover_msg_destroy (&msg);
    testcodec_raw_destroy (raw);
}

//  Assert that msg is not encoded
void
testcodec_assert_not_encoded (drover_msg_t *msg, const char *what)
{
    zframe_t *frame = drover_msg_encode (msg);
    if (frame)
        fail_msg ("encoded a %s with %s", drover_msg_name (msg->id), what);
}

//  Encode msg, decode the bytes into a new message, return that
drover_msg_t *
testcodec_roundtrip (drover_msg_t *msg)
{
    zframe_t *frame = drover_msg_encode (msg);
    if (!frame)
        fail_msg ("%s does not encode", drover_msg_name (msg->id));
    drover_msg_t *copy = drover_msg_new (0);
    int rc = drover_msg_decode (copy, zframe_data (frame), zframe_size (frame));
    if (rc)
        fail_msg ("%s does not decode: %s", drover_msg_name (msg->id), copy->error);
    zframe_destroy (&frame);
    return copy;
}

//  Assert that two messages hold the same QUEUE TABLE
void
testcodec_assert_same_queues (const drover_msg_t *a, const drover_msg_t *b)
{
    assert_string_equal (a->strategy, b->strategy);
    assert_int_equal (a->nqueues, b->nqueues);
    for (uint32_t index = 0; index < a->nqueues; index++) {
        const drover_queue_row_t *x = &a->queue_rows [index], *y = &b->queue_rows [index];
        assert_string_equal (x->name, y->name);
        assert_string_equal (x->owner, y->owner);
        assert_string_equal (x->owner_endpoint, y->owner_endpoint);
        assert_true (x->token == y->token);
        assert_string_equal (x->endpoints? x->endpoints: "", y->endpoints);
    }
}
