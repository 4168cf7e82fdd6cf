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

//  Assert that msg encodes to exactly the bytes given
void
testcodec_assert_encodes_to (drover_msg_t *msg, const byte *bytes, size_t size)
{
    zframe_t *frame = drover_msg_encode (msg);
    assert_non_null (frame);
    assert_int_equal (zframe_size (frame), size);
    assert_memory_equal (zframe_data (frame), bytes, size);
    zframe_destroy (&frame);
}

//  Pack what a later version may append to a record: a map {"k": []} and
//  a nil
void
testcodec_raw_later_elements (testcodec_raw_t *raw)
{
    msgpack_pack_map (&raw->pk, 1);
    testcodec_raw_str (raw, "k", 1);
    msgpack_pack_array (&raw->pk, 0);
    msgpack_pack_nil (&raw->pk);
}

//  Assert that two term statistics are the same, field by field
void
testcodec_assert_same_service_stats (const drover_service_stats_t *a, const drover_service_stats_t *b)
{
    assert_true (a->term == b->term && a->at == b->at);
    assert_int_equal (a->duration, b->duration);
    assert_int_equal (a->complete, b->complete);
    assert_string_equal (a->why, b->why);
    assert_int_equal (a->workers, b->workers);
    assert_int_equal (a->answered, b->answered);
    assert_int_equal (a->services, b->services);
    assert_int_equal (a->lost, b->lost);
    assert_int_equal (a->under, b->under);
    assert_int_equal (a->ok, b->ok);
    assert_int_equal (a->over, b->over);
    assert_int_equal (a->wanted, b->wanted);
    assert_int_equal (a->running, b->running);
    assert_int_equal (a->pending, b->pending);
    assert_int_equal (a->started, b->started);
    assert_int_equal (a->stopped, b->stopped);
    assert_int_equal (a->moved, b->moved);
    for (int bucket = 0; bucket < DROVER_HISTOGRAM_BUCKETS; bucket++)
        assert_int_equal (a->restarts [bucket], b->restarts [bucket]);
}

//  Assert that two messages hold the same services, replicas, changes and
//  service fields, field by field
void
testcodec_assert_same_services (const drover_msg_t *a, const drover_msg_t *b)
{
    assert_int_equal (a->action, b->action);
    assert_string_equal (a->service, b->service);
    assert_int_equal (a->slot, b->slot);
    assert_int_equal (a->count, b->count);
    assert_int_equal (a->delay, b->delay);
    assert_string_equal (a->affinity? a->affinity: "", b->affinity? b->affinity: "");
    testcodec_assert_same_service_stats (&a->stats_now, &b->stats_now);
    testcodec_assert_same_service_stats (&a->stats_after, &b->stats_after);
    assert_int_equal (a->nservices, b->nservices);
    for (uint32_t index = 0; index < a->nservices; index++) {
        const drover_service_row_t *x = &a->service_rows [index], *y = &b->service_rows [index];
        assert_string_equal (x->name, y->name);
        assert_int_equal (x->replicas, y->replicas);
        assert_int_equal (x->procs, y->procs);
        assert_true (x->mem == y->mem);
        assert_int_equal (x->nlabels, y->nlabels);
        for (uint32_t label = 0; label < x->nlabels; label++)
            assert_string_equal (x->labels [label], y->labels [label]);
        assert_int_equal (x->restart_delay, y->restart_delay);
        assert_int_equal (x->running, y->running);
        assert_int_equal (x->pending, y->pending);
        assert_int_equal (x->restarts, y->restarts);
        assert_int_equal (x->state, y->state);
        assert_true (x->created == y->created);
        assert_string_equal (x->summary, y->summary);
        assert_string_equal (x->why, y->why);
    }
    assert_int_equal (a->nreplicas, b->nreplicas);
    for (uint32_t index = 0; index < a->nreplicas; index++) {
        const drover_replica_row_t *x = &a->replica_rows [index], *y = &b->replica_rows [index];
        assert_string_equal (x->service, y->service);
        assert_int_equal (x->slot, y->slot);
        assert_true (x->task == y->task);
        assert_int_equal (x->attempt, y->attempt);
        assert_string_equal (x->worker, y->worker);
        assert_int_equal (x->state, y->state);
        assert_true (x->since == y->since);
        assert_int_equal (x->restarts, y->restarts);
        assert_string_equal (x->why, y->why);
    }
    assert_int_equal (a->nchanges, b->nchanges);
    for (uint32_t index = 0; index < a->nchanges; index++) {
        const drover_planchange_t *x = &a->changes [index], *y = &b->changes [index];
        assert_int_equal (x->kind, y->kind);
        assert_string_equal (x->service, y->service);
        assert_int_equal (x->slot, y->slot);
        assert_true (x->task == y->task);
        assert_string_equal (x->from, y->from);
        assert_string_equal (x->to, y->to);
        assert_string_equal (x->why, y->why);
    }
}

