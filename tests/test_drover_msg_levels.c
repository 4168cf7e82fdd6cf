/*  =========================================================================
    test_drover_msg_levels - the wire codec's protocol levels
    (PROTOCOL.md §12): what goes to a peer of level 1 has that level's
    shapes and reads back, a message is fitted to a peer's level, the
    level a message shows its sender speaks, and low disk goes to a level
    1 peer as probation.
    =========================================================================
*/

#include "testcodec_msg.h"

//  ---------------------------------------------------------------------
//  Protocol levels (PROTOCOL.md §12): a peer of level 1 speaks the protocol
//  as PROTOCOL.md stood at commit 4fe0aee (2026-11-23), and takes exactly
//  the field counts of that spec

//  The fields of each message of level 1, as that spec lists them
static const int
s_level_one_fields [DROVER_MSG_ERROR + 1] = {
    [DROVER_MSG_WORKER_HELLO]   = 6,    [DROVER_MSG_WORKER_HEARTBEAT] = 3,
    [DROVER_MSG_WORKER_GOODBYE] = 2,    [DROVER_MSG_WORKER_WELCOME]   = 1,
    [DROVER_MSG_WORKER_LEAVE]   = 0,    [DROVER_MSG_TASK_OFFER]       = 7,
    [DROVER_MSG_TASK_STARTED]   = 3,    [DROVER_MSG_TASK_RESULT]      = 11,
    [DROVER_MSG_TASK_KILL]      = 2,    [DROVER_MSG_TASK_SUBMIT]      = 8,
    [DROVER_MSG_TASK_ACCEPTED]  = 1,    [DROVER_MSG_TASK_WAIT]        = 1,
    [DROVER_MSG_TASK_DONE]      = 11,   [DROVER_MSG_TASK_CANCEL]      = 1,
    [DROVER_MSG_TASK_LIST]      = 2,    [DROVER_MSG_TASK_TABLE]       = 2,
    [DROVER_MSG_WORKER_LIST]    = 0,    [DROVER_MSG_WORKER_TABLE]     = 1,
    [DROVER_MSG_WORKER_ADMIN]   = 2,    [DROVER_MSG_OK]               = 2,
    [DROVER_MSG_ERROR]          = 2
};

#define S_L1_STATS          8       //  HEARTBEAT's and a worker row's stats
#define S_L1_PAIR           2       //  HELLO's running [task, attempt]
#define S_L1_COUNTS         7       //  TASK TABLE's counts, one per state
#define S_L1_TASK_ROW       7       //  [task, state, priority, procs, attempt, worker, summary]
#define S_L1_WORKER_ROW     9       //  [worker, health, admin, procs, procs_used, mem,
                                    //   mem_used, labels, stats]

//  Assert that object is a positive integer of at most max; returns it
static uint64_t
s_uint_at_most (const msgpack_object *object, uint64_t max)
{
    assert_true (object->type == MSGPACK_OBJECT_POSITIVE_INTEGER);
    if (object->via.u64 > max)
        fail_msg ("%" PRIu64 " is past %" PRIu64 ", the most level 1 knows",
                  object->via.u64, max);
    return object->via.u64;
}

//  Assert that object is an array of exactly count elements; returns them
static const msgpack_object *
s_array_of (const msgpack_object *object, uint32_t count)
{
    assert_true (object->type == MSGPACK_OBJECT_ARRAY);
    if (object->via.array.size != count)
        fail_msg ("an array of %u where level 1 has %u", object->via.array.size, count);
    return object->via.array.ptr;
}

//  Assert that object is an array of at most max elements; returns them
static const msgpack_object *
s_array_upto (const msgpack_object *object, uint32_t max)
{
    assert_true (object->type == MSGPACK_OBJECT_ARRAY);
    assert_true (object->via.array.size <= max);
    return object->via.array.ptr;
}

//  Assert that bytes are a message as strict a peer of level 1 takes it:
//  exactly 4 + the fields of its id, its records of the sizes that spec
//  gave them, its enum values in that spec's ranges. Returns the id.
static int
s_assert_level_one_shape (const byte *data, size_t size)
{
    msgpack_unpacked unpacked;
    msgpack_unpacked_init (&unpacked);
    size_t offset = 0;
    assert_int_equal (msgpack_unpack_next (&unpacked, (const char *) data, size, &offset),
                      MSGPACK_UNPACK_SUCCESS);
    assert_int_equal (offset, size);
    const msgpack_object *message = &unpacked.data;
    assert_true (message->type == MSGPACK_OBJECT_ARRAY && message->via.array.size >= 4);
    const msgpack_object *header = message->via.array.ptr;
    assert_int_equal (s_uint_at_most (&header [1], 1), 1);
    int id = (int) s_uint_at_most (&header [2], DROVER_MSG_ERROR);
    assert_true (id >= 1);
    const msgpack_object *field = s_array_of (message, 4 + s_level_one_fields [id]) + 4;
    if (id == DROVER_MSG_WORKER_HELLO) {
        s_array_upto (&field [4], DROVER_LABELS_MAX);
        const msgpack_object *pairs = s_array_upto (&field [5], DROVER_RUNNING_MAX);
        for (uint32_t index = 0; index < field [5].via.array.size; index++)
            s_array_of (&pairs [index], S_L1_PAIR);
    }
    else
    if (id == DROVER_MSG_WORKER_HEARTBEAT)
        s_array_of (&field [2], S_L1_STATS);
    else
    if (id == DROVER_MSG_TASK_RESULT)
        s_uint_at_most (&field [3], 4);                     //  outcome 0..4
    else
    if (id == DROVER_MSG_TASK_DONE)
        s_uint_at_most (&field [1], 6);                     //  state 0..6
    else
    if (id == DROVER_MSG_TASK_LIST) {
        uint64_t list_state = s_uint_at_most (&field [1], 255);
        assert_true (list_state <= 6 || list_state == 255);
    }
    else
    if (id == DROVER_MSG_TASK_TABLE) {
        s_array_of (&field [0], S_L1_COUNTS);
        const msgpack_object *rows = s_array_upto (&field [1], DROVER_ROWS_MAX);
        for (uint32_t index = 0; index < field [1].via.array.size; index++)
            s_uint_at_most (&s_array_of (&rows [index], S_L1_TASK_ROW) [1], 6);
    }
    else
    if (id == DROVER_MSG_WORKER_TABLE) {
        const msgpack_object *rows = s_array_upto (&field [0], DROVER_ROWS_MAX);
        for (uint32_t index = 0; index < field [0].via.array.size; index++) {
            const msgpack_object *row = s_array_of (&rows [index], S_L1_WORKER_ROW);
            s_uint_at_most (&row [1], 2);                   //  health 0..2
            s_uint_at_most (&row [2], 2);                   //  admin 0..2
            s_array_upto (&row [7], DROVER_LABELS_MAX);
            s_array_of (&row [8], S_L1_STATS);
        }
    }
    else
    if (id == DROVER_MSG_WORKER_ADMIN)
        s_uint_at_most (&field [1], 2);                     //  admin 0..2
    msgpack_unpacked_destroy (&unpacked);
    return id;
}

//  Every message of level 1, encoded for a peer of level 1, has exactly
//  the shape that spec gave it; no later message can be encoded for it;
//  at this codec's level (or past it) encode_level is encode
static void
test_level_one_has_the_old_shapes (void **state)
{
    for (int id = 1; id <= DROVER_MSG_ID_MAX; id++) {
        drover_msg_t *msg = testcodec_filled (id);
        assert_int_equal (drover_msg_id_level (id), id <= DROVER_MSG_ERROR? 1
                                                  : id <= DROVER_MSG_CLIENT_WELCOME? 2
                                                  : id <= DROVER_MSG_WORKFLOW_ACCEPTED? 3
                                                  : id <= DROVER_MSG_SHARE_TABLE? 4: 5);
        zframe_t *frame = drover_msg_encode_level (msg, 1);
        if (id > DROVER_MSG_ERROR) {
            assert_null (frame);
            assert_null (drover_msg_encode_level (msg, 0));    //  below 1 is 1
        }
        else {
            if (!frame)
                fail_msg ("%s does not encode at level 1", drover_msg_name (id));
            assert_int_equal (s_assert_level_one_shape (zframe_data (frame),
                                                        zframe_size (frame)), id);
            zframe_destroy (&frame);
        }
        zframe_t *now = drover_msg_encode (msg);
        for (int level = DROVER_MSG_LEVEL; level <= DROVER_MSG_LEVEL + 1; level++) {
            frame = drover_msg_encode_level (msg, level);
            assert_non_null (frame);
            assert_true (zframe_eq (frame, now));
            zframe_destroy (&frame);
        }
        zframe_destroy (&now);
        drover_msg_destroy (&msg);
    }
    assert_int_equal (drover_msg_id_level (0), 0);
    assert_int_equal (drover_msg_id_level (-1), 0);
    assert_int_equal (drover_msg_id_level (DROVER_MSG_ID_MAX + 1), 0);
    assert_int_equal (drover_msg_id_level (DROVER_MSG_CLIENT_HELLO), 2);
    assert_int_equal (drover_msg_id_level (DROVER_MSG_WORKFLOW_SUBMIT), 3);
    assert_int_equal (drover_msg_id_level (DROVER_MSG_WORKFLOW_ACCEPTED), 3);
    assert_int_equal (drover_msg_id_level (DROVER_MSG_SHARE_ADMIN), 4);
    assert_int_equal (drover_msg_id_level (DROVER_MSG_SHARE_LIST), 4);
    assert_int_equal (drover_msg_id_level (DROVER_MSG_SHARE_TABLE), 4);
    assert_int_equal (drover_msg_id_level (DROVER_MSG_STATE_BACKUP), 5);
    assert_int_equal (drover_msg_id_level (DROVER_MSG_BACKUP_DONE), 5);

    //  The level-2 fields empty or full, the shape stays: a HELLO with no
    //  level or release set, a SUBMIT with all its later fields
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_WORKER_HELLO);
    strcpy (msg->worker, "w1");
    zframe_t *frame = drover_msg_encode_level (msg, 1);
    assert_int_equal (s_assert_level_one_shape (zframe_data (frame), zframe_size (frame)),
                      DROVER_MSG_WORKER_HELLO);
    zframe_destroy (&frame);
    drover_msg_destroy (&msg);
    msg = testcodec_filled (DROVER_MSG_TASK_SUBMIT);
    assert_non_null (msg->key);
    frame = drover_msg_encode_level (msg, 1);
    assert_int_equal (s_assert_level_one_shape (zframe_data (frame), zframe_size (frame)),
                      DROVER_MSG_TASK_SUBMIT);
    zframe_destroy (&frame);
    drover_msg_destroy (&msg);
}

//  How a task in state ended, as far as a message of level 1 (which has
//  no outcome) lets a reader know
static uint8_t
s_end_of_level_one (uint8_t task_state)
{
    return task_state == DROVER_TASK_SUCCEEDED? DROVER_END_SUCCEEDED
         : task_state == DROVER_TASK_FAILED?    DROVER_END_FAILED
         : task_state == DROVER_TASK_CANCELLED? DROVER_END_CANCELLED
         : task_state == DROVER_TASK_UNKNOWN?   DROVER_END_UNKNOWN: DROVER_END_NONE;
}

//  Make msg what it reads as once sent at level 1: without what level 1
//  lacks (state id, the submit's later fields, a list's labels, an admin's
//  reason and flags, level and release, rows' later elements), with the
//  outcomes a reader derives, and LOW_DISK as PROBATION
static void
s_as_level_one (drover_msg_t *msg)
{
    testcodec_as_level_two (msg);
    msg->state_id [0] = 0;
    zstr_free (&msg->key);
    zstr_free (&msg->affinity);
    msg->service [0] = 0;
    msg->slot = 0;
    msg->level = 0;
    msg->release [0] = 0;
    if (msg->id == DROVER_MSG_TASK_LIST) {
        for (uint32_t label = 0; label < msg->nlabels; label++)
            zstr_free (&msg->labels [label]);
        msg->nlabels = 0;
    }
    if (msg->id == DROVER_MSG_WORKER_ADMIN) {
        zstr_free (&msg->reason);
        msg->flags = 0;
    }
    if (msg->id == DROVER_MSG_TASK_DONE)
        msg->end = s_end_of_level_one (msg->state);
    for (uint32_t index = 0; msg->task_rows && index < msg->nrows; index++) {
        drover_task_row_t *row = &msg->task_rows [index];
        row->end = s_end_of_level_one (row->state);
        row->owner [0] = 0;
        row->reason [0] = 0;
    }
    for (uint32_t index = 0; msg->worker_rows && index < msg->nrows; index++) {
        drover_worker_row_t *row = &msg->worker_rows [index];
        if (row->health == DROVER_HEALTH_LOW_DISK)
            row->health = DROVER_HEALTH_PROBATION;
        row->reserved = 0;
        row->state = DROVER_WORKER_UP;
        row->since = 0;
        zstr_free (&row->why);
        zstr_free (&row->admin_reason);
        row->admin_since = 0;
        row->probation_until = 0;
        row->tasks = 0;
    }
}

//  A message encoded for a peer of level 1 reads, with today's decoder, as
//  the same values but for what level 1 lacks; its outcome is derived from
//  its state; it says level 1
static void
test_level_one_reads_back (void **state)
{
    drover_msg_t *copy = drover_msg_new (0);
    for (int id = 1; id <= DROVER_MSG_ERROR; id++) {
        drover_msg_t *msg = testcodec_filled (id);
        zframe_t *frame = drover_msg_encode_level (msg, 1);
        assert_non_null (frame);
        if (drover_msg_decode (copy, zframe_data (frame), zframe_size (frame)))
            fail_msg ("%s of level 1 does not decode: %s", drover_msg_name (id), copy->error);
        assert_int_equal (copy->implied, 1);
        assert_int_equal (drover_msg_level (copy), 1);
        assert_int_equal (copy->level, 0);
        assert_string_equal (copy->release, "");
        s_as_level_one (msg);
        testcodec_assert_same (msg, copy);
        zframe_destroy (&frame);
        drover_msg_destroy (&msg);
    }
    //  Each state's outcome as level 1 leaves it, in TASK DONE and in a
    //  TASK TABLE row; the level-2 form keeps the outcome as it was
    const uint8_t pairs [][2] = {
        { DROVER_TASK_SUCCEEDED, DROVER_END_SUCCEEDED }, { DROVER_TASK_FAILED, DROVER_END_FAILED },
        { DROVER_TASK_FAILED, DROVER_END_TIMED_OUT }, { DROVER_TASK_FAILED, DROVER_END_SPAWN_FAILED },
        { DROVER_TASK_FAILED, DROVER_END_LOST }, { DROVER_TASK_FAILED, DROVER_END_POISON },
        { DROVER_TASK_CANCELLED, DROVER_END_CANCELLED }, { DROVER_TASK_UNKNOWN, DROVER_END_EXPIRED },
        { DROVER_TASK_UNKNOWN, DROVER_END_UNKNOWN }, { DROVER_TASK_QUEUED, DROVER_END_NONE },
        { DROVER_TASK_RUNNING, DROVER_END_NONE }
    };
    const uint8_t derived [] = { DROVER_END_SUCCEEDED, DROVER_END_FAILED, DROVER_END_FAILED,
                                 DROVER_END_FAILED, DROVER_END_FAILED, DROVER_END_FAILED,
                                 DROVER_END_CANCELLED, DROVER_END_UNKNOWN, DROVER_END_UNKNOWN,
                                 DROVER_END_NONE, DROVER_END_NONE };
    for (size_t index = 0; index < sizeof derived; index++) {
        drover_msg_t *done = drover_msg_new (DROVER_MSG_TASK_DONE);
        done->task = 5;
        done->state = pairs [index][0];
        done->end = pairs [index][1];
        drover_msg_t *table = drover_msg_new (DROVER_MSG_TASK_TABLE);
        table->nrows = 1;
        table->task_rows = (drover_task_row_t *) zmalloc (sizeof (drover_task_row_t));
        table->task_rows [0] = (drover_task_row_t) { .task = 6, .state = pairs [index][0],
                                                     .end = pairs [index][1],
                                                     .summary = strdup ("true") };
        for (int level = 1; level <= DROVER_MSG_LEVEL; level++) {
            uint8_t expected = level == 1? derived [index]: pairs [index][1];
            zframe_t *frame = drover_msg_encode_level (done, level);
            assert_int_equal (drover_msg_decode (copy, zframe_data (frame),
                                                 zframe_size (frame)), 0);
            assert_int_equal (copy->state, pairs [index][0]);
            assert_int_equal (copy->end, expected);
            assert_int_equal (copy->implied, level < 2? level: 2);     //  DONE: no field
            zframe_destroy (&frame);                                    //  of level 3
            frame = drover_msg_encode_level (table, level);
            assert_int_equal (drover_msg_decode (copy, zframe_data (frame),
                                                 zframe_size (frame)), 0);
            assert_int_equal (copy->task_rows [0].state, pairs [index][0]);
            assert_int_equal (copy->task_rows [0].end, expected);
            zframe_destroy (&frame);
        }
        drover_msg_destroy (&done);
        drover_msg_destroy (&table);
    }
    drover_msg_destroy (&copy);
}

//  drover_msg_fit: a frame for a peer of this level (or a later one) is
//  left as it is, the same frame; for a peer of level 1 it becomes the
//  level-1 encoding, and a message level 1 does not have (GATHER,
//  REDIRECT, ...) or one that does not decode is refused, left as it was
static void
test_fit_to_a_peer_level (void **state)
{
    for (int id = 1; id <= DROVER_MSG_ID_MAX; id++) {
        drover_msg_t *msg = testcodec_filled (id);
        zframe_t *frame = drover_msg_encode (msg);
        zframe_t *original = frame;
        zframe_t *expected = zframe_dup (frame);
        assert_int_equal (drover_msg_fit (&frame, DROVER_MSG_LEVEL), 0);
        assert_ptr_equal (frame, original);
        assert_int_equal (drover_msg_fit (&frame, DROVER_MSG_LEVEL + 1), 0);
        assert_ptr_equal (frame, original);
        assert_true (zframe_eq (frame, expected));
        int rc = drover_msg_fit (&frame, 1);
        if (id <= DROVER_MSG_ERROR) {
            assert_int_equal (rc, 0);
            zframe_t *level_one = drover_msg_encode_level (msg, 1);
            assert_true (zframe_eq (frame, level_one));
            s_assert_level_one_shape (zframe_data (frame), zframe_size (frame));
            //  Fitting it again changes nothing
            assert_int_equal (drover_msg_fit (&frame, 1), 0);
            assert_true (zframe_eq (frame, level_one));
            zframe_destroy (&level_one);
        }
        else {
            assert_int_equal (rc, -1);
            assert_ptr_equal (frame, original);
            assert_true (zframe_eq (frame, expected));
        }
        zframe_destroy (&frame);
        zframe_destroy (&expected);
        drover_msg_destroy (&msg);
    }
    //  Named: the two a broker sends to every worker and every client
    int newer [] = { DROVER_MSG_WORKER_GATHER, DROVER_MSG_REDIRECT };
    for (size_t index = 0; index < 2; index++) {
        drover_msg_t *msg = testcodec_filled (newer [index]);
        zframe_t *frame = drover_msg_encode (msg);
        zframe_t *original = frame;
        assert_int_equal (drover_msg_fit (&frame, 1), -1);
        assert_ptr_equal (frame, original);
        zframe_destroy (&frame);
        drover_msg_destroy (&msg);
    }
    //  A frame that does not decode (a TASK DONE cut short, bytes that are
    //  no message) is refused and left as it was
    drover_msg_t *msg = testcodec_filled (DROVER_MSG_TASK_DONE);
    zframe_t *whole = drover_msg_encode (msg);
    zframe_t *frame = zframe_new (zframe_data (whole), zframe_size (whole) - 1);
    zframe_t *original = frame;
    assert_int_equal (drover_msg_fit (&frame, 1), -1);
    assert_ptr_equal (frame, original);
    assert_int_equal (zframe_size (frame), zframe_size (whole) - 1);
    zframe_destroy (&frame);
    frame = zframe_new ("garbage", 7);
    original = frame;
    assert_int_equal (drover_msg_fit (&frame, 1), -1);
    assert_ptr_equal (frame, original);
    zframe_destroy (&frame);
    zframe_destroy (&whole);
    drover_msg_destroy (&msg);
}

//  Raw WORKER HELLO of w1 with nfields fields: the 6 of level 1, then a
//  state id "", the level, a release, devices [] (level 4), and fields
//  past those
static void
s_raw_hello (testcodec_raw_t *raw, size_t nfields, uint64_t level)
{
    testcodec_raw_begin_seq (raw, DROVER_MSG_WORKER_HELLO, nfields, 1);
    testcodec_raw_str (raw, "w1", 2);
    msgpack_pack_uint8 (&raw->pk, 1);               //  epoch
    msgpack_pack_uint8 (&raw->pk, 2);               //  procs
    msgpack_pack_uint8 (&raw->pk, 0);               //  mem
    msgpack_pack_array (&raw->pk, 0);               //  labels
    msgpack_pack_array (&raw->pk, 0);               //  running
    if (nfields > 6)
        testcodec_raw_str (raw, "", 0);             //  state id
    if (nfields > 7)
        msgpack_pack_uint64 (&raw->pk, level);
    if (nfields > 8)
        testcodec_raw_str (raw, "0.9.0", 5);
    if (nfields > 9)
        msgpack_pack_array (&raw->pk, 0);           //  devices
    if (nfields > 10)
        msgpack_pack_uint8 (&raw->pk, 1);           //  ahead (level 9)
    for (size_t field = 11; field < nfields; field += 2)
        testcodec_raw_later_elements (raw);         //  two at a time
}

//  The level a message shows its sender speaks: the one a HELLO, CLIENT
//  HELLO, WELCOME or CLIENT WELCOME declares, else (and at least) the
//  lowest level whose peers could send its id with that many fields
static void
test_level_a_message_shows (void **state)
{
    drover_msg_t *copy = drover_msg_new (0);
    testcodec_raw_t raw;
    //  HELLO: of level 1; with a state id (level 2's); declaring 2; declaring
    //  1 with level 2's fields; declaring a later level, with its release
    //  and fields past those this version knows
    s_raw_hello (&raw, 6, 0);
    testcodec_raw_into (&raw, copy);
    assert_int_equal (copy->implied, 1);
    assert_int_equal (copy->level, 0);
    assert_int_equal (drover_msg_level (copy), 1);
    s_raw_hello (&raw, 7, 0);
    testcodec_raw_into (&raw, copy);
    assert_int_equal (copy->implied, 2);
    assert_int_equal (drover_msg_level (copy), 2);
    s_raw_hello (&raw, 8, 2);
    testcodec_raw_into (&raw, copy);
    assert_int_equal (copy->level, 2);
    assert_int_equal (drover_msg_level (copy), 2);
    s_raw_hello (&raw, 8, 1);
    testcodec_raw_into (&raw, copy);
    assert_int_equal (copy->level, 1);
    assert_int_equal (drover_msg_level (copy), 2);
    s_raw_hello (&raw, 13, DROVER_MSG_LEVEL + 1);
    testcodec_raw_into (&raw, copy);
    assert_string_equal (copy->worker, "w1");
    assert_int_equal (copy->procs, 2);
    assert_int_equal (copy->level, DROVER_MSG_LEVEL + 1);
    assert_string_equal (copy->release, "0.9.0");
    assert_int_equal (copy->implied, DROVER_MSG_LEVEL);
    assert_int_equal (drover_msg_level (copy), DROVER_MSG_LEVEL + 1);
    //  A level is a uint16
    s_raw_hello (&raw, 8, UINT16_MAX + 1);
    testcodec_assert_raw_says (&raw, "level: out of range");

    //  WELCOME: of level 1, with a state id only, declaring its level
    testcodec_raw_begin_seq (&raw, DROVER_MSG_WORKER_WELCOME, 1, 2);
    msgpack_pack_uint16 (&raw.pk, 1000);
    testcodec_raw_into (&raw, copy);
    assert_int_equal (copy->heartbeat, 1000);
    assert_int_equal (drover_msg_level (copy), 1);
    testcodec_raw_begin_seq (&raw, DROVER_MSG_WORKER_WELCOME, 2, 2);
    msgpack_pack_uint16 (&raw.pk, 1000);
    testcodec_raw_str (&raw, "", 0);
    testcodec_raw_into (&raw, copy);
    assert_int_equal (drover_msg_level (copy), 2);
    testcodec_raw_begin_seq (&raw, DROVER_MSG_WORKER_WELCOME, 3, 2);
    msgpack_pack_uint16 (&raw.pk, 1000);
    testcodec_raw_str (&raw, "", 0);
    msgpack_pack_uint8 (&raw.pk, 3);
    testcodec_raw_into (&raw, copy);
    assert_int_equal (drover_msg_level (copy), 3);

    //  SUBMIT without a key is level 1's, with one level 2's
    drover_msg_t *msg = testcodec_filled (DROVER_MSG_TASK_SUBMIT);
    zstr_free (&msg->affinity);
    msg->service [0] = 0;
    msg->slot = 0;
    testcodec_as_level_two (msg);
    for (int with_key = 0; with_key < 2; with_key++) {
        if (!with_key)
            zstr_free (&msg->key);
        else
            msg->key = strdup ("k1");
        zframe_t *frame = drover_msg_encode (msg);
        assert_int_equal (zframe_data (frame) [0], 0x90 + 4 + 8 + with_key);
        assert_int_equal (drover_msg_decode (copy, zframe_data (frame), zframe_size (frame)), 0);
        assert_int_equal (copy->implied, 1 + with_key);
        assert_int_equal (drover_msg_level (copy), 1 + with_key);
        zframe_destroy (&frame);
    }
    //  A level set on a message that does not declare one is not its level
    copy->level = 7;
    assert_int_equal (drover_msg_level (copy), 2);
    drover_msg_destroy (&msg);

    //  TASK DONE of 15 elements is level 1's, of 16 level 2's
    testcodec_raw_done (&raw, 1, DROVER_TASK_FAILED, 0, 0);
    assert_int_equal (RAW_DATA (raw) [0], 0x90 + 15);
    testcodec_raw_into (&raw, copy);
    assert_int_equal (copy->implied, 1);
    assert_int_equal (drover_msg_level (copy), 1);
    assert_int_equal (copy->end, DROVER_END_FAILED);
    assert_int_equal (copy->attempt, 2);
    assert_string_equal (copy->worker, "w7");
    assert_string_equal (copy->reason, "exit 1");
    testcodec_raw_done (&raw, 2, DROVER_TASK_FAILED, DROVER_END_LOST, 0);
    assert_int_equal (RAW_DATA (raw) [0], 0xdc);   //  array 16 of 16
    assert_int_equal (RAW_DATA (raw) [2], 16);
    testcodec_raw_into (&raw, copy);
    assert_int_equal (copy->implied, 2);
    assert_int_equal (drover_msg_level (copy), 2);
    assert_int_equal (copy->end, DROVER_END_LOST);
    assert_int_equal (copy->attempt, 2);

    //  Messages of ids past 21 are level 2's, whatever they hold; a CLIENT
    //  HELLO or WELCOME says its own level, or at least that
    int later [] = { DROVER_MSG_EVENT_REPLAY, DROVER_MSG_WORKER_GATHER, DROVER_MSG_REDIRECT,
                     DROVER_MSG_QUEUES, DROVER_MSG_QUEUE_TABLE, DROVER_MSG_CLIENT_WELCOME };
    for (size_t index = 0; index < sizeof later / sizeof later [0]; index++) {
        msg = testcodec_filled (later [index]);
        drover_msg_t *read = testcodec_roundtrip (msg);
        assert_int_equal (read->implied, 2);
        assert_int_equal (drover_msg_level (read), later [index] == DROVER_MSG_CLIENT_WELCOME?
                                                   DROVER_MSG_LEVEL: 2);
        drover_msg_destroy (&read);
        drover_msg_destroy (&msg);
    }
    testcodec_raw_begin_seq (&raw, DROVER_MSG_CLIENT_HELLO, 0, 1);
    testcodec_raw_into (&raw, copy);
    assert_int_equal (copy->level, 0);
    assert_int_equal (drover_msg_level (copy), 2);
    testcodec_raw_begin_seq (&raw, DROVER_MSG_CLIENT_HELLO, 1, 1);
    msgpack_pack_uint8 (&raw.pk, 4);
    testcodec_raw_into (&raw, copy);
    assert_int_equal (drover_msg_level (copy), 4);
    assert_string_equal (copy->release, "");
    msg = testcodec_filled (DROVER_MSG_CLIENT_HELLO);
    drover_msg_t *read = testcodec_roundtrip (msg);
    assert_int_equal (drover_msg_level (read), UINT16_MAX);
    assert_string_equal (read->release, msg->release);
    drover_msg_destroy (&read);
    drover_msg_destroy (&msg);
    //  A CLIENT HELLO with nothing set says this codec's level and release
    msg = drover_msg_new (DROVER_MSG_CLIENT_HELLO);
    read = testcodec_roundtrip (msg);
    assert_int_equal (read->level, DROVER_MSG_LEVEL);
    assert_string_equal (read->release, DROVER_RELEASE);
    drover_msg_destroy (&read);
    drover_msg_destroy (&msg);
    drover_msg_destroy (&copy);
}

//  LOW_DISK came with level 2: a peer of level 1 sees such a worker on
//  PROBATION (it takes no new work either), in a table encoded for it or
//  fitted to it; the other healths go as they are
static void
test_low_disk_is_probation_at_level_one (void **state)
{
    drover_msg_t *msg = testcodec_filled (DROVER_MSG_WORKER_TABLE);
    drover_msg_t *copy = drover_msg_new (0);
    for (int health = 0; health <= DROVER_HEALTH_MAX; health++) {
        msg->worker_rows [0].health = (uint8_t) health;
        uint8_t seen = health == DROVER_HEALTH_LOW_DISK? DROVER_HEALTH_PROBATION: (uint8_t) health;
        zframe_t *frame = drover_msg_encode_level (msg, 1);
        s_assert_level_one_shape (zframe_data (frame), zframe_size (frame));
        assert_int_equal (drover_msg_decode (copy, zframe_data (frame), zframe_size (frame)), 0);
        assert_int_equal (copy->worker_rows [0].health, seen);
        assert_int_equal (copy->worker_rows [1].health, DROVER_HEALTH_PROBATION);
        zframe_destroy (&frame);
        frame = drover_msg_encode (msg);
        assert_int_equal (drover_msg_decode (copy, zframe_data (frame), zframe_size (frame)), 0);
        assert_int_equal (copy->worker_rows [0].health, health);
        assert_int_equal (drover_msg_fit (&frame, 1), 0);
        assert_int_equal (drover_msg_decode (copy, zframe_data (frame), zframe_size (frame)), 0);
        assert_int_equal (copy->worker_rows [0].health, seen);
        zframe_destroy (&frame);
    }
    drover_msg_destroy (&copy);
    drover_msg_destroy (&msg);
}

//  OOM is level 4's: a peer below it is told SIGNALLED (the OOM killer's
//  SIGKILL), as level 1 is told SPAWN_FAILED for MACHINE_FAILED
static void
test_oom_is_signalled_below_level_four (void **state)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_TASK_RESULT);
    strcpy (msg->worker, "w1");
    msg->task = 7;
    msg->attempt = 1;
    msg->outcome = DROVER_OUTCOME_OOM;
    msg->signal = 9;
    msg->exit_code = 137;
    drover_msg_t *copy = drover_msg_new (0);
    for (int level = 1; level <= DROVER_MSG_LEVEL; level++) {
        zframe_t *frame = drover_msg_encode_level (msg, level);
        assert_non_null (frame);
        assert_int_equal (drover_msg_decode (copy, zframe_data (frame), zframe_size (frame)), 0);
        assert_int_equal (copy->outcome, level < 4? DROVER_OUTCOME_SIGNALLED: DROVER_OUTCOME_OOM);
        assert_int_equal (copy->signal, 9);
        zframe_destroy (&frame);
    }
    zframe_t *frame = drover_msg_encode (msg);
    assert_int_equal (drover_msg_fit (&frame, 3), 0);
    assert_int_equal (drover_msg_decode (copy, zframe_data (frame), zframe_size (frame)), 0);
    assert_int_equal (copy->outcome, DROVER_OUTCOME_SIGNALLED);
    zframe_destroy (&frame);
    assert_string_equal (drover_outcome_name (DROVER_OUTCOME_OOM), "OOM");
    assert_string_equal (drover_outcome_name (DROVER_OUTCOME_MAX + 1), "INVALID");
    drover_msg_destroy (&copy);
    drover_msg_destroy (&msg);
}

//  Count the elements of a WORKER TABLE row in an encoded frame
static uint32_t
s_row_size (zframe_t *frame, uint32_t index)
{
    msgpack_unpacked unpacked;
    msgpack_unpacked_init (&unpacked);
    assert_int_equal (msgpack_unpack_next (&unpacked, (const char *) zframe_data (frame),
                                           zframe_size (frame), NULL), MSGPACK_UNPACK_SUCCESS);
    const msgpack_object *rows = &unpacked.data.via.array.ptr [4];
    assert_int_equal (rows->type, MSGPACK_OBJECT_ARRAY);
    assert_true (rows->via.array.size > index);
    uint32_t size = rows->via.array.ptr [index].via.array.size;
    msgpack_unpacked_destroy (&unpacked);
    return size;
}

//  Level 6: a WORKER TABLE row carries the worker's heartbeat interval and
//  lost-after (23 elements, the device texts always before them); a peer
//  of level 4 or 5 is fitted rows of 19 or 21 as level 5 sent them, and
//  reads a level-6 row too (skipping what it does not know); other
//  messages go to a level-4 or level-5 peer as they are
static void
test_worker_rows_of_level_six (void **state)
{
    drover_msg_t *msg = testcodec_filled (DROVER_MSG_WORKER_TABLE);
    drover_msg_t *copy = drover_msg_new (0);
    msg->worker_rows [1].heartbeat = 1000;
    msg->worker_rows [1].lost_after = 15000;
    zframe_t *frame = drover_msg_encode_level (msg, 6);
    assert_int_equal (s_row_size (frame, 1), 23);
    assert_int_equal (drover_msg_decode (copy, zframe_data (frame), zframe_size (frame)), 0);
    assert_int_equal (copy->worker_rows [1].heartbeat, 1000);
    assert_true (copy->worker_rows [1].lost_after == 15000);
    assert_int_equal (copy->worker_rows [0].heartbeat, 0);
    assert_null (copy->worker_rows [1].devices);     //  sent as "", read as none
    for (int level = 4; level <= 5; level++) {
        //  Fitted: re-encoded in level 5's layout, without devices: 19
        zframe_t *fitted = zframe_dup (frame);
        zframe_t *original = fitted;
        assert_int_equal (drover_msg_fit (&fitted, level), 0);
        assert_ptr_not_equal (fitted, original);
        zframe_t *expected = drover_msg_encode_level (msg, level);
        assert_true (zframe_eq (fitted, expected));
        assert_int_equal (s_row_size (fitted, 1), 19);
        assert_int_equal (drover_msg_decode (copy, zframe_data (fitted),
                                             zframe_size (fitted)), 0);
        assert_int_equal (copy->worker_rows [1].heartbeat, 0);
        assert_true (copy->worker_rows [1].lost_after == 0);
        assert_int_equal (copy->worker_rows [1].tasks, 2);
        zframe_destroy (&fitted);
        zframe_destroy (&expected);
    }
    //  A worker with devices: 21 elements for level 5, 23 for level 6
    msg->worker_rows [1].devices = strdup ("gpu=4");
    zframe_t *level_five = drover_msg_encode_level (msg, 5);
    assert_int_equal (s_row_size (level_five, 1), 21);
    zframe_destroy (&level_five);
    zframe_destroy (&frame);
    frame = drover_msg_encode_level (msg, 6);
    assert_int_equal (s_row_size (frame, 1), 23);
    assert_int_equal (drover_msg_decode (copy, zframe_data (frame), zframe_size (frame)), 0);
    assert_string_equal (copy->worker_rows [1].devices, "gpu=4");
    assert_int_equal (copy->worker_rows [1].heartbeat, 1000);
    zframe_destroy (&frame);
    //  Every other message goes to a level-4 or level-5 peer as it is
    for (int id = 1; id <= DROVER_MSG_ID_MAX; id++) {
        if (id == DROVER_MSG_WORKER_TABLE || id == DROVER_MSG_WORKER_WELCOME
        ||  drover_msg_id_level (id) > 4
        ||  id == DROVER_MSG_SERVICE_TABLE || id == DROVER_MSG_PLAN_RESULT
        ||  id == DROVER_MSG_POOL_TABLE || id == DROVER_MSG_QUEUE_TABLE)
            continue;           //  level 7 appended to these (test_drover_msg_level7_*)
        if (id == DROVER_MSG_WORKER_HELLO || id == DROVER_MSG_TASK_RESULT)
            continue;           //  and level 9 to these (test_ahead_of_level_nine)
        drover_msg_t *other = testcodec_filled (id);
        zframe_t *sent = drover_msg_encode (other);
        zframe_t *original = sent;
        assert_int_equal (drover_msg_fit (&sent, 5), 0);
        assert_ptr_equal (sent, original);
        assert_int_equal (drover_msg_fit (&sent, 4), 0);
        assert_ptr_equal (sent, original);
        zframe_destroy (&sent);
        drover_msg_destroy (&other);
    }
    drover_msg_destroy (&copy);
    drover_msg_destroy (&msg);
}

//  Return the number of fields (elements after the header's 4) of frame
static size_t
s_field_count (zframe_t *frame)
{
    msgpack_unpacked unpacked;
    msgpack_unpacked_init (&unpacked);
    assert_int_equal (msgpack_unpack_next (&unpacked, (const char *) zframe_data (frame),
                                           zframe_size (frame), NULL), MSGPACK_UNPACK_SUCCESS);
    assert_int_equal (unpacked.data.type, MSGPACK_OBJECT_ARRAY);
    size_t count = unpacked.data.via.array.size - 4;
    msgpack_unpacked_destroy (&unpacked);
    return count;
}

//  Level 7: WORKER WELCOME tells the ack-timeout (field 7); a peer of level
//  4..6 is fitted the WELCOME of three fields it knows, read back without it
static void
test_welcome_of_level_seven (void **state)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_WORKER_WELCOME);
    msg->heartbeat = 2000;
    msg->level = DROVER_MSG_LEVEL;
    msg->ack_timeout = 5000;
    zframe_t *frame = drover_msg_encode (msg);
    assert_int_equal (s_field_count (frame), 4);
    drover_msg_t *copy = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (copy, zframe_data (frame), zframe_size (frame)), 0);
    assert_int_equal (copy->ack_timeout, 5000);
    for (int level = 4; level <= 6; level++) {
        zframe_t *fitted = zframe_dup (frame);
        assert_int_equal (drover_msg_fit (&fitted, level), 0);
        assert_int_equal (s_field_count (fitted), 3);
        assert_int_equal (drover_msg_decode (copy, zframe_data (fitted), zframe_size (fitted)), 0);
        assert_int_equal (copy->ack_timeout, 0);
        assert_int_equal (copy->heartbeat, 2000);
        zframe_destroy (&fitted);
    }
    //  Not said: left out, three fields at level 7 too
    msg->ack_timeout = 0;
    zframe_destroy (&frame);
    frame = drover_msg_encode (msg);
    assert_int_equal (s_field_count (frame), 3);
    zframe_destroy (&frame);
    drover_msg_destroy (&copy);
    drover_msg_destroy (&msg);
}

//  Level 9: a WORKER TABLE row ends with the offers the worker may be sent
//  ahead and those it holds (25 elements); a peer of level 6 to 8 is
//  fitted rows of 23, as level 8 sent them, and reads a row of 25 too
//  (skipping the two); more than DROVER_AHEAD_MAX of either is refused
static void
test_worker_rows_of_level_nine (void **state)
{
    drover_msg_t *msg = testcodec_filled (DROVER_MSG_WORKER_TABLE);
    drover_msg_t *copy = drover_msg_new (0);
    msg->worker_rows [1].ahead = 2;
    msg->worker_rows [1].held = 1;
    zframe_t *frame = drover_msg_encode (msg);
    assert_int_equal (s_row_size (frame, 1), 25);
    assert_int_equal (drover_msg_decode (copy, zframe_data (frame), zframe_size (frame)), 0);
    testcodec_assert_same (msg, copy);
    assert_int_equal (copy->worker_rows [1].ahead, 2);
    assert_int_equal (copy->worker_rows [1].held, 1);
    for (int level = 6; level <= 8; level++) {
        zframe_t *fitted = zframe_dup (frame);
        assert_int_equal (drover_msg_fit (&fitted, level), 0);
        assert_int_equal (s_row_size (fitted, 1), 23);
        assert_int_equal (drover_msg_decode (copy, zframe_data (fitted),
                                             zframe_size (fitted)), 0);
        assert_int_equal (copy->worker_rows [1].ahead, 0);
        assert_int_equal (copy->worker_rows [1].held, 0);
        assert_int_equal (copy->worker_rows [1].heartbeat, msg->worker_rows [1].heartbeat);
        zframe_destroy (&fitted);
    }
    zframe_destroy (&frame);
    msg->worker_rows [1].held = DROVER_AHEAD_MAX + 1;
    assert_null (drover_msg_encode (msg));
    msg->worker_rows [1].held = 0;
    msg->worker_rows [1].ahead = DROVER_AHEAD_MAX + 1;
    assert_null (drover_msg_encode (msg));
    drover_msg_destroy (&copy);
    drover_msg_destroy (&msg);
}

//  Level 9: HELLO says the offers a worker holds ahead (field 14) and
//  WELCOME how many the broker may send it so (field 8); a peer of level
//  8 is fitted each without it. A RESULT that gives a held offer back
//  (RETURNED) reaches a lower level as MACHINE_FAILED; more than
//  DROVER_AHEAD_MAX ahead is refused.
static void
test_ahead_of_level_nine (void **state)
{
    drover_msg_t *copy = drover_msg_new (0);
    drover_msg_t *hello = drover_msg_new (DROVER_MSG_WORKER_HELLO);
    snprintf (hello->worker, sizeof hello->worker, "w1");
    hello->procs = 2;
    hello->level = DROVER_MSG_LEVEL;
    snprintf (hello->release, sizeof hello->release, "0.9.0");
    hello->ahead = 1;
    zframe_t *frame = drover_msg_encode (hello);
    assert_int_equal (s_field_count (frame), 11);
    assert_int_equal (drover_msg_decode (copy, zframe_data (frame), zframe_size (frame)), 0);
    assert_int_equal (copy->ahead, 1);
    assert_int_equal (drover_msg_fit (&frame, 8), 0);
    assert_int_equal (s_field_count (frame), 9);     //  devices left out too: none
    assert_int_equal (drover_msg_decode (copy, zframe_data (frame), zframe_size (frame)), 0);
    assert_int_equal (copy->ahead, 0);
    zframe_destroy (&frame);
    hello->ahead = DROVER_AHEAD_MAX + 1;
    assert_null (drover_msg_encode (hello));
    drover_msg_destroy (&hello);

    drover_msg_t *welcome = drover_msg_new (DROVER_MSG_WORKER_WELCOME);
    welcome->heartbeat = 2000;
    welcome->level = DROVER_MSG_LEVEL;
    welcome->ack_timeout = 5000;
    welcome->ahead = 2;
    frame = drover_msg_encode (welcome);
    assert_int_equal (s_field_count (frame), 5);
    assert_int_equal (drover_msg_decode (copy, zframe_data (frame), zframe_size (frame)), 0);
    assert_int_equal (copy->ahead, 2);
    assert_int_equal (copy->ack_timeout, 5000);
    assert_int_equal (drover_msg_fit (&frame, 8), 0);
    assert_int_equal (s_field_count (frame), 4);
    assert_int_equal (drover_msg_decode (copy, zframe_data (frame), zframe_size (frame)), 0);
    assert_int_equal (copy->ahead, 0);
    assert_int_equal (copy->ack_timeout, 5000);
    zframe_destroy (&frame);
    drover_msg_destroy (&welcome);

    drover_msg_t *result = drover_msg_new (DROVER_MSG_TASK_RESULT);
    snprintf (result->worker, sizeof result->worker, "w1");
    result->task = 7;
    result->attempt = 1;
    result->outcome = DROVER_OUTCOME_RETURNED;
    result->exit_code = -1;
    for (int level = 1; level <= DROVER_MSG_LEVEL; level++) {
        frame = drover_msg_encode_level (result, level);
        assert_non_null (frame);
        assert_int_equal (drover_msg_decode (copy, zframe_data (frame), zframe_size (frame)), 0);
        int expected = level >= 9? DROVER_OUTCOME_RETURNED
                     : level >= 2? DROVER_OUTCOME_MACHINE_FAILED: DROVER_OUTCOME_SPAWN_FAILED;
        assert_int_equal (copy->outcome, expected);
        zframe_destroy (&frame);
    }
    assert_string_equal (drover_outcome_name (DROVER_OUTCOME_RETURNED), "RETURNED");
    drover_msg_destroy (&result);
    drover_msg_destroy (&copy);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_level_one_has_the_old_shapes),
        cmocka_unit_test (test_level_one_reads_back),
        cmocka_unit_test (test_fit_to_a_peer_level),
        cmocka_unit_test (test_level_a_message_shows),
        cmocka_unit_test (test_low_disk_is_probation_at_level_one),
        cmocka_unit_test (test_oom_is_signalled_below_level_four),
        cmocka_unit_test (test_worker_rows_of_level_six),
        cmocka_unit_test (test_welcome_of_level_seven),
        cmocka_unit_test (test_ahead_of_level_nine),
        cmocka_unit_test (test_worker_rows_of_level_nine),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
