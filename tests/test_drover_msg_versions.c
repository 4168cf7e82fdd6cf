/*  =========================================================================
    test_drover_msg_versions - what peers of other versions send the
    wire codec: an older peer's message without the optional last fields
    decodes, to "" and NULL; fields, rows' elements and enum values of a
    newer broker past those this version knows are read over or kept as
    they came, and not sent on.
    =========================================================================
*/

#include "testcodec_msg.h"

//  The optional last fields (state id, submit key, a TASK LIST's labels)
//  are left out when they have no value, and a message without them (as an
//  older peer sends it) still decodes, to "" and NULL. In HELLO and WELCOME
//  a level (and a release) always follows the state id, so there an empty
//  one goes as ""; their level-1 form has none of the three.
static void
test_optional_fields_of_older_peers (void **state)
{
    int ids [] = { DROVER_MSG_WORKER_HELLO, DROVER_MSG_WORKER_WELCOME, DROVER_MSG_TASK_SUBMIT,
                   DROVER_MSG_TASK_ACCEPTED, DROVER_MSG_TASK_WAIT, DROVER_MSG_TASK_LIST };
    drover_msg_t *copy = drover_msg_new (0);
    for (size_t index = 0; index < sizeof ids / sizeof ids [0]; index++) {
        drover_msg_t *msg = testcodec_filled (ids [index]);
        testcodec_as_level_two (msg);       //  test_drover_msg_workflow has level 3's
        if (ids [index] == DROVER_MSG_TASK_SUBMIT) {
            zstr_free (&msg->affinity);     //  key last: test_drover_msg_service_roundtrip has the
            msg->service [0] = 0;           //  fields after it
            msg->slot = 0;
        }
        size_t with_size, without_size;
        byte *with = testcodec_encode (msg, &with_size);
        msg->state_id [0] = 0;
        free (msg->key);
        msg->key = NULL;
        if (ids [index] == DROVER_MSG_TASK_LIST) {
            assert_int_equal (msg->nlabels, 2);
            for (uint32_t label = 0; label < msg->nlabels; label++)
                zstr_free (&msg->labels [label]);
            msg->nlabels = 0;
        }
        byte *without = testcodec_encode (msg, &without_size);
        bool followed = ids [index] == DROVER_MSG_WORKER_HELLO
                     || ids [index] == DROVER_MSG_WORKER_WELCOME;
        if (followed) {
            //  As many elements, the 32 hex digits (str 8) now an empty fixstr
            assert_int_equal (with [0], without [0]);
            assert_int_equal (without_size, with_size - 2 - DROVER_STATE_ID_SIZE + 1);
        }
        else {
            //  One element fewer in the array header, and the field's bytes gone
            assert_int_equal (with [0] - 1, without [0]);
            assert_true (without_size < with_size);
            assert_memory_equal (with + 1, without + 1, without_size - 1);
        }
        assert_int_equal (drover_msg_decode (copy, without, without_size), 0);
        assert_string_equal (copy->state_id, "");
        assert_null (copy->key);
        testcodec_assert_same (msg, copy);
        if (followed) {
            //  The level-1 form: no state id, level or release at all
            zframe_t *frame = drover_msg_encode_level (msg, 1);
            assert_non_null (frame);
            assert_int_equal (zframe_data (frame) [0],
                              0x90 + 4 + (ids [index] == DROVER_MSG_WORKER_HELLO? 6: 1));
            assert_int_equal (drover_msg_decode (copy, zframe_data (frame),
                                                 zframe_size (frame)), 0);
            assert_string_equal (copy->state_id, "");
            assert_int_equal (copy->level, 0);
            assert_string_equal (copy->release, "");
            assert_int_equal (drover_msg_level (copy), 1);
            zframe_destroy (&frame);
        }
        free (with);
        free (without);
        drover_msg_destroy (&msg);
    }
    //  An empty state id sent explicitly reads as none too
    testcodec_raw_t raw;
    testcodec_raw_begin_seq (&raw, DROVER_MSG_TASK_ACCEPTED, 2, 4);
    msgpack_pack_uint8 (&raw.pk, 9);
    testcodec_raw_str (&raw, "", 0);
    assert_int_equal (drover_msg_decode (copy, RAW_DATA (raw), RAW_SIZE (raw)), 0);
    assert_true (copy->task == 9);
    assert_string_equal (copy->state_id, "");
    testcodec_raw_destroy (&raw);
    //  A field past them in ACCEPTED (the broker's: a newer one's field) is
    //  passed over; in WAIT (a request) it is refused; two too few are
    //  refused either way
    testcodec_raw_begin_seq (&raw, DROVER_MSG_TASK_ACCEPTED, 3, 4);
    msgpack_pack_uint8 (&raw.pk, 9);
    testcodec_raw_str (&raw, "", 0);
    testcodec_raw_str (&raw, "", 0);
    assert_int_equal (drover_msg_decode (copy, RAW_DATA (raw), RAW_SIZE (raw)), 0);
    assert_true (copy->task == 9);
    assert_string_equal (copy->state_id, "");
    testcodec_raw_destroy (&raw);
    testcodec_raw_begin_seq (&raw, DROVER_MSG_TASK_WAIT, 3, 4);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_uint8 (&raw.pk, 9);
    testcodec_raw_str (&raw, "", 0);
    testcodec_raw_str (&raw, "", 0);
    testcodec_assert_raw_says (&raw, "wrong number of fields");
    testcodec_raw_begin_seq (&raw, DROVER_MSG_TASK_ACCEPTED, 0, 4);
    testcodec_assert_raw_says (&raw, "wrong number of fields");
    //  A message whose last field is not optional still needs all of them
    testcodec_raw_begin_seq (&raw, DROVER_MSG_TASK_KILL, 1, 4);
    msgpack_pack_uint8 (&raw.pk, 9);
    testcodec_assert_raw_says (&raw, "wrong number of fields");
    drover_msg_destroy (&copy);
}

//  Pack the first 10 elements of a WORKER TABLE row (the row of brokers
//  before the optional ones)
static void
s_raw_row_start (testcodec_raw_t *raw, uint32_t elements, const char *id)
{
    msgpack_pack_array (&raw->pk, elements);
    testcodec_raw_str (raw, id, strlen (id));
    msgpack_pack_uint8 (&raw->pk, DROVER_HEALTH_LOST);
    msgpack_pack_uint8 (&raw->pk, DROVER_ADMIN_HOLD);
    msgpack_pack_uint32 (&raw->pk, 4);
    msgpack_pack_uint32 (&raw->pk, 1);
    msgpack_pack_uint64 (&raw->pk, 1024);
    msgpack_pack_uint64 (&raw->pk, 0);
    msgpack_pack_array (&raw->pk, 0);
    msgpack_pack_array (&raw->pk, 8);           //  stats: 3 loads, 4 sizes, running
    for (int index = 0; index < 8; index++)
        msgpack_pack_uint8 (&raw->pk, 0);
    msgpack_pack_uint64 (&raw->pk, 0);
}

//  A TASK TABLE row with elements past the 13 this version knows (a later
//  broker's) reads what it knows and skips the rest: it was refused as
//  "row: invalid", so every client failed to list tasks of a newer broker
static void
test_task_rows_of_a_later_version_are_read (void **state)
{
    drover_msg_t *copy = drover_msg_new (0);
    testcodec_raw_t raw;
    testcodec_raw_begin_seq (&raw, DROVER_MSG_TASK_TABLE, 2, 9);
    msgpack_pack_array (&raw.pk, DROVER_TASK_STATES);
    for (int index = 0; index < DROVER_TASK_STATES; index++)
        msgpack_pack_uint8 (&raw.pk, index == DROVER_TASK_QUEUED);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 16);
    msgpack_pack_uint64 (&raw.pk, 42);
    msgpack_pack_uint8 (&raw.pk, DROVER_TASK_QUEUED);
    msgpack_pack_uint8 (&raw.pk, 0);
    msgpack_pack_int32 (&raw.pk, 3);
    msgpack_pack_uint32 (&raw.pk, 2);
    msgpack_pack_uint32 (&raw.pk, 0);
    testcodec_raw_str (&raw, "", 0);
    testcodec_raw_str (&raw, "echo hi", 7);
    testcodec_raw_str (&raw, "ann", 3);
    testcodec_raw_str (&raw, "behind 2", 8);
    msgpack_pack_uint8 (&raw.pk, DROVER_WAITS_BEGIN);
    msgpack_pack_uint8 (&raw.pk, 40);           //  group
    msgpack_pack_uint8 (&raw.pk, 0);            //  parents
    msgpack_pack_array (&raw.pk, 2);            //  later versions': skipped
    msgpack_pack_uint8 (&raw.pk, 1);
    testcodec_raw_str (&raw, "x", 1);
    msgpack_pack_uint64 (&raw.pk, 7);
    testcodec_raw_str (&raw, "later", 5);
    assert_int_equal (drover_msg_decode (copy, RAW_DATA (raw), RAW_SIZE (raw)), 0);
    testcodec_raw_destroy (&raw);
    assert_int_equal (copy->nrows, 1);
    assert_true (copy->task_rows [0].task == 42);
    assert_int_equal (copy->task_rows [0].procs, 2);
    assert_string_equal (copy->task_rows [0].summary, "echo hi");
    assert_string_equal (copy->task_rows [0].owner, "ann");
    assert_string_equal (copy->task_rows [0].reason, "behind 2");
    assert_int_equal (copy->task_rows [0].waits, DROVER_WAITS_BEGIN);
    assert_true (copy->task_rows [0].group == 40);
    assert_int_equal (copy->task_rows [0].parents, 0);
    drover_msg_destroy (&copy);
}

//  WORKER TABLE rows: one of 10 elements (a broker before the optional
//  ones) reads with them absent; one with elements past those this version
//  knows reads what it knows and skips the rest; WORKER ADMIN without its
//  reason and flags (an older client) reads as none, with a reason only
//  too, and one field past them is refused
static void
test_optional_elements_of_worker_rows_and_admin (void **state)
{
    drover_msg_t *copy = drover_msg_new (0);
    testcodec_raw_t raw;
    testcodec_raw_begin_seq (&raw, DROVER_MSG_WORKER_TABLE, 1, 3);
    msgpack_pack_array (&raw.pk, 2);
    s_raw_row_start (&raw, 10, "old");
    s_raw_row_start (&raw, 27, "new");
    msgpack_pack_uint8 (&raw.pk, DROVER_WORKER_LOST);
    msgpack_pack_uint64 (&raw.pk, 1700000000000ull);
    testcodec_raw_str (&raw, "silent", 6);
    testcodec_raw_str (&raw, "disk swap", 9);
    msgpack_pack_uint64 (&raw.pk, 1600000000000ull);
    msgpack_pack_uint64 (&raw.pk, 0);
    msgpack_pack_uint32 (&raw.pk, 0);
    msgpack_pack_uint8 (&raw.pk, 2);            //  level
    testcodec_raw_str (&raw, "0.2.0", 5);       //  release
    testcodec_raw_str (&raw, "gpu=2", 5);       //  devices (level 4)
    testcodec_raw_str (&raw, "", 0);            //  devices_used
    msgpack_pack_uint16 (&raw.pk, 2000);        //  heartbeat (level 6)
    msgpack_pack_uint32 (&raw.pk, 30000);       //  lost_after
    msgpack_pack_uint8 (&raw.pk, 2);            //  ahead (level 9)
    msgpack_pack_uint8 (&raw.pk, 1);            //  held
    msgpack_pack_array (&raw.pk, 2);            //  a later version's: skipped
    msgpack_pack_uint8 (&raw.pk, 1);
    testcodec_raw_str (&raw, "x", 1);
    testcodec_raw_str (&raw, "later", 5);
    assert_int_equal (drover_msg_decode (copy, RAW_DATA (raw), RAW_SIZE (raw)), 0);
    testcodec_raw_destroy (&raw);
    assert_int_equal (copy->nrows, 2);
    drover_worker_row_t *row = &copy->worker_rows [0];
    assert_string_equal (row->id, "old");
    assert_int_equal (row->state, DROVER_WORKER_UP);
    assert_true (row->since == 0);
    assert_null (row->why);
    assert_null (row->admin_reason);
    row = &copy->worker_rows [1];
    assert_string_equal (row->id, "new");
    assert_int_equal (row->procs, 4);
    assert_int_equal (row->state, DROVER_WORKER_LOST);
    assert_true (row->since == 1700000000000ull);
    assert_string_equal (row->why, "silent");
    assert_string_equal (row->admin_reason, "disk swap");
    assert_true (row->admin_since == 1600000000000ull);
    assert_string_equal (row->devices, "gpu=2");
    assert_null (row->devices_used);
    assert_int_equal (row->heartbeat, 2000);
    assert_true (row->lost_after == 30000);
    assert_int_equal (row->ahead, 2);
    assert_int_equal (row->held, 1);
    assert_int_equal (copy->worker_rows [0].heartbeat, 0);     //  a row of 10: unknown
    assert_int_equal (copy->worker_rows [0].ahead, 0);
    assert_true (copy->worker_rows [0].lost_after == 0);
    drover_msg_reset (copy);
    //  A worker state past LEFT (a newer broker's) is kept as it came; one
    //  that is not an integer is still refused
    testcodec_raw_begin_seq (&raw, DROVER_MSG_WORKER_TABLE, 1, 3);
    msgpack_pack_array (&raw.pk, 1);
    s_raw_row_start (&raw, 11, "new");
    msgpack_pack_uint8 (&raw.pk, DROVER_WORKER_STATE_MAX + 1);
    assert_int_equal (drover_msg_decode (copy, RAW_DATA (raw), RAW_SIZE (raw)), 0);
    testcodec_raw_destroy (&raw);
    assert_int_equal (copy->nrows, 1);
    assert_string_equal (copy->worker_rows [0].id, "new");
    assert_int_equal (copy->worker_rows [0].state, DROVER_WORKER_STATE_MAX + 1);
    drover_msg_reset (copy);
    testcodec_raw_begin_seq (&raw, DROVER_MSG_WORKER_TABLE, 1, 3);
    msgpack_pack_array (&raw.pk, 1);
    s_raw_row_start (&raw, 11, "bad");
    msgpack_pack_int8 (&raw.pk, -1);
    testcodec_assert_raw_says (&raw, "state: out of range");

    //  WORKER ADMIN of an older client: worker and admin only
    testcodec_raw_begin_seq (&raw, DROVER_MSG_WORKER_ADMIN, 2, 5);
    testcodec_raw_str (&raw, "w1", 2);
    msgpack_pack_uint8 (&raw.pk, DROVER_ADMIN_HOLD);
    assert_int_equal (drover_msg_decode (copy, RAW_DATA (raw), RAW_SIZE (raw)), 0);
    testcodec_raw_destroy (&raw);
    assert_string_equal (copy->worker, "w1");
    assert_null (copy->reason);
    assert_int_equal (copy->flags, 0);
    drover_msg_reset (copy);
    //  A reason without flags: the encoder leaves the flags out
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_WORKER_ADMIN);
    strcpy (msg->worker, "w1");
    msg->admin = DROVER_ADMIN_HOLD;
    size_t size;
    byte *data = testcodec_encode (msg, &size);
    assert_int_equal (data [0], 0x96);                      //  4 + worker, admin
    free (data);
    drover_msg_set_reason (msg, "disk swap");
    data = testcodec_encode (msg, &size);
    assert_int_equal (data [0], 0x97);                      //  and the reason
    assert_int_equal (drover_msg_decode (copy, data, size), 0);
    assert_string_equal (copy->reason, "disk swap");
    assert_int_equal (copy->flags, 0);
    free (data);
    drover_msg_reset (copy);
    drover_msg_destroy (&msg);
    //  One field past them is refused
    testcodec_raw_begin_seq (&raw, DROVER_MSG_WORKER_ADMIN, 5, 5);
    testcodec_raw_str (&raw, "w1", 2);
    msgpack_pack_uint8 (&raw.pk, DROVER_ADMIN_HOLD);
    testcodec_raw_str (&raw, "", 0);
    msgpack_pack_uint8 (&raw.pk, 0);
    msgpack_pack_uint8 (&raw.pk, 0);
    testcodec_assert_raw_says (&raw, "wrong number of fields");
    //  and so is one too few
    testcodec_raw_begin_seq (&raw, DROVER_MSG_WORKER_ADMIN, 1, 5);
    testcodec_raw_str (&raw, "w1", 2);
    testcodec_assert_raw_says (&raw, "wrong number of fields");
    drover_msg_destroy (&copy);
}

//  Pack 8 stats into raw, the loads 0.5, 1 and 2, then n extra elements
static void
s_raw_stats (testcodec_raw_t *raw, int extra)
{
    msgpack_pack_array (&raw->pk, 8 + extra);
    msgpack_pack_double (&raw->pk, 0.5);
    msgpack_pack_double (&raw->pk, 1);
    msgpack_pack_double (&raw->pk, 2);
    for (int index = 0; index < 5; index++)
        msgpack_pack_uint32 (&raw->pk, 100 + index);
    for (int index = 0; index < extra; index++)
        msgpack_pack_uint8 (&raw->pk, 9);
}

//  Pack what a later level may append to a row (at depth 3): an array
//  [1, "x"] and a nil
static void
s_raw_row_later (testcodec_raw_t *raw)
{
    msgpack_pack_array (&raw->pk, 2);
    msgpack_pack_uint8 (&raw->pk, 1);
    testcodec_raw_str (raw, "x", 1);
    msgpack_pack_nil (&raw->pk);
}

//  What the broker sends, a receiver reads from a newer broker too: it
//  passes over fields and record elements past those it knows, and keeps
//  enum values past the last it knows as they came (and will not send
//  them on); a known state with a known outcome that does not go with it
//  is still refused
static void
test_lenient_to_a_newer_broker (void **state)
{
    drover_msg_t *copy = drover_msg_new (0);
    testcodec_raw_t raw;
    //  TASK DONE with a field past its 12, then with a state and an
    //  outcome this version does not know, at either level's layout
    testcodec_raw_done (&raw, 2, DROVER_TASK_SUCCEEDED, DROVER_END_SUCCEEDED, 1);
    testcodec_raw_into (&raw, copy);
    assert_true (copy->task == 5);
    assert_int_equal (copy->state, DROVER_TASK_SUCCEEDED);
    assert_int_equal (copy->end, DROVER_END_SUCCEEDED);
    assert_int_equal (copy->attempt, 2);
    assert_string_equal (copy->worker, "w7");
    assert_true (copy->exit_code == 1 && copy->signal == 2);
    assert_true (copy->truncated == 3 && copy->duration == 4);
    assert_int_equal (copy->out_size, 3);
    assert_memory_equal (copy->out, "out", 3);
    assert_null (copy->err);
    assert_string_equal (copy->reason, "exit 1");
    assert_int_equal (copy->implied, DROVER_MSG_LEVEL);
    testcodec_raw_done (&raw, 2, 9, 200, 2);
    testcodec_raw_into (&raw, copy);
    assert_int_equal (copy->state, 9);
    assert_int_equal (copy->end, 200);
    assert_string_equal (copy->reason, "exit 1");
    assert_null (drover_msg_encode (copy));         //  not sent on
    testcodec_raw_done (&raw, 2, DROVER_TASK_SUCCEEDED, DROVER_END_MAX + 1, 0);
    testcodec_raw_into (&raw, copy);
    assert_int_equal (copy->state, DROVER_TASK_SUCCEEDED);
    assert_int_equal (copy->end, DROVER_END_MAX + 1);
    testcodec_raw_done (&raw, 2, 9, DROVER_END_SUCCEEDED, 0);
    testcodec_raw_into (&raw, copy);
    assert_int_equal (copy->state, 9);
    assert_int_equal (copy->end, DROVER_END_SUCCEEDED);
    testcodec_raw_done (&raw, 1, 9, 0, 0);
    testcodec_raw_into (&raw, copy);
    assert_int_equal (copy->state, 9);
    assert_int_equal (copy->end, DROVER_END_NONE);  //  nothing to derive it from
    testcodec_raw_done (&raw, 2, DROVER_TASK_SUCCEEDED, DROVER_END_TIMED_OUT, 1);
    testcodec_assert_raw_says (&raw, "outcome: does not go with the state");
    testcodec_raw_done (&raw, 2, DROVER_TASK_SUCCEEDED, 256, 0);
    testcodec_assert_raw_says (&raw, "outcome: out of range");      //  past a uint8

    //  TASK TABLE with a field past its 2; a row with a state and an
    //  outcome and a wait unknown and elements past its 13; a level-1 row
    //  with an unknown state
    testcodec_raw_begin_seq (&raw, DROVER_MSG_TASK_TABLE, 3, 9);
    msgpack_pack_array (&raw.pk, DROVER_TASK_STATES);
    for (int index = 0; index < DROVER_TASK_STATES; index++)
        msgpack_pack_uint8 (&raw.pk, (uint8_t) index);
    msgpack_pack_array (&raw.pk, 2);
    msgpack_pack_array (&raw.pk, 15);
    msgpack_pack_uint8 (&raw.pk, 42);
    msgpack_pack_uint8 (&raw.pk, 12);               //  state
    msgpack_pack_uint8 (&raw.pk, 99);               //  outcome
    msgpack_pack_int8 (&raw.pk, -3);
    msgpack_pack_uint8 (&raw.pk, 2);
    msgpack_pack_uint8 (&raw.pk, 1);
    testcodec_raw_str (&raw, "w1", 2);
    testcodec_raw_str (&raw, "sleep 1", 7);
    testcodec_raw_str (&raw, "ann", 3);
    testcodec_raw_str (&raw, "later", 5);
    msgpack_pack_uint8 (&raw.pk, 200);              //  waits
    msgpack_pack_uint8 (&raw.pk, 7);                //  group
    msgpack_pack_uint8 (&raw.pk, 1);                //  parents
    s_raw_row_later (&raw);
    msgpack_pack_array (&raw.pk, 7);
    msgpack_pack_uint8 (&raw.pk, 43);
    msgpack_pack_uint8 (&raw.pk, 13);
    for (int index = 0; index < 3; index++)
        msgpack_pack_uint8 (&raw.pk, 1);
    testcodec_raw_str (&raw, "", 0);
    testcodec_raw_str (&raw, "true", 4);
    msgpack_pack_nil (&raw.pk);                     //  a later field
    testcodec_raw_into (&raw, copy);
    assert_true (copy->counts [3] == 3);
    assert_int_equal (copy->nrows, 2);
    drover_task_row_t *task_row = &copy->task_rows [0];
    assert_true (task_row->task == 42);
    assert_int_equal (task_row->state, 12);
    assert_int_equal (task_row->end, 99);
    assert_int_equal (task_row->priority, -3);
    assert_int_equal (task_row->procs, 2);
    assert_string_equal (task_row->worker, "w1");
    assert_string_equal (task_row->summary, "sleep 1");
    assert_string_equal (task_row->owner, "ann");
    assert_string_equal (task_row->reason, "later");
    assert_int_equal (task_row->waits, 200);
    assert_true (task_row->group == 7);
    assert_int_equal (task_row->parents, 1);
    task_row = &copy->task_rows [1];
    assert_true (task_row->task == 43);
    assert_int_equal (task_row->state, 13);
    assert_int_equal (task_row->end, DROVER_END_NONE);
    assert_string_equal (task_row->summary, "true");
    assert_null (drover_msg_encode (copy));

    //  WORKER TABLE with a field past its 1, and a row with a health, an
    //  admin and a state unknown and elements past its 25
    testcodec_raw_begin_seq (&raw, DROVER_MSG_WORKER_TABLE, 2, 3);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 27);
    testcodec_raw_str (&raw, "w9", 2);
    msgpack_pack_uint8 (&raw.pk, 9);                //  health
    msgpack_pack_uint8 (&raw.pk, 7);                //  admin
    msgpack_pack_uint8 (&raw.pk, 4);
    msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_uint16 (&raw.pk, 1024);
    msgpack_pack_uint8 (&raw.pk, 0);
    msgpack_pack_array (&raw.pk, 1);
    testcodec_raw_str (&raw, "gpu=a", 5);
    s_raw_stats (&raw, 1);                          //  stats grow too
    msgpack_pack_uint8 (&raw.pk, 5);                //  reserved
    msgpack_pack_uint8 (&raw.pk, 6);                //  state
    msgpack_pack_uint64 (&raw.pk, 1700000000000ull);
    testcodec_raw_str (&raw, "x", 1);
    testcodec_raw_str (&raw, "", 0);
    msgpack_pack_uint8 (&raw.pk, 0);
    msgpack_pack_uint8 (&raw.pk, 0);
    msgpack_pack_uint8 (&raw.pk, 3);                //  tasks
    msgpack_pack_uint8 (&raw.pk, 3);                //  level
    testcodec_raw_str (&raw, "0.3.0", 5);           //  release
    testcodec_raw_str (&raw, "", 0);                //  devices (level 4)
    testcodec_raw_str (&raw, "gpu=1", 5);           //  devices_used
    msgpack_pack_uint16 (&raw.pk, 4000);            //  heartbeat (level 6)
    msgpack_pack_uint32 (&raw.pk, 60000);           //  lost_after
    msgpack_pack_uint8 (&raw.pk, 1);                //  ahead (level 9)
    msgpack_pack_uint8 (&raw.pk, 1);                //  held
    s_raw_row_later (&raw);
    testcodec_raw_str (&raw, "later", 5);           //  a later field
    testcodec_raw_into (&raw, copy);
    assert_int_equal (copy->nrows, 1);
    drover_worker_row_t *worker_row = &copy->worker_rows [0];
    assert_string_equal (worker_row->id, "w9");
    assert_int_equal (worker_row->health, 9);
    assert_int_equal (worker_row->admin, 7);
    assert_int_equal (worker_row->state, 6);
    assert_int_equal (worker_row->level, 3);
    assert_string_equal (worker_row->release, "0.3.0");
    assert_true (worker_row->mem == 1024 && worker_row->reserved == 5);
    assert_int_equal (worker_row->nlabels, 1);
    assert_string_equal (worker_row->labels [0], "gpu=a");
    assert_true (worker_row->stats.load [0] == 0.5 && worker_row->stats.running == 104);
    assert_string_equal (worker_row->why, "x");
    assert_int_equal (worker_row->tasks, 3);
    assert_int_equal (worker_row->heartbeat, 4000);
    assert_true (worker_row->lost_after == 60000);
    assert_int_equal (worker_row->held, 1);
    assert_null (drover_msg_encode (copy));

    //  Records grow at their end in every message: a HEARTBEAT's stats of
    //  9, a HELLO's running pair of 3, an explanation item of 7 (with a
    //  code this version does not know)
    testcodec_raw_begin_seq (&raw, DROVER_MSG_WORKER_HEARTBEAT, 3, 1);
    testcodec_raw_str (&raw, "w1", 2);
    msgpack_pack_uint8 (&raw.pk, 1);
    s_raw_stats (&raw, 1);
    testcodec_raw_into (&raw, copy);
    assert_true (copy->stats.load [0] == 0.5 && copy->stats.load [2] == 2);
    assert_true (copy->stats.mem_used == 100 && copy->stats.disk_total == 103);
    assert_int_equal (copy->stats.running, 104);
    //  ... whose 9th is nested as deep as a message may go (message >
    //  stats > [ > [): it was refused as "nesting deeper than the limit",
    //  the stats' elements walked as if a level deeper than they are
    testcodec_raw_begin_seq (&raw, DROVER_MSG_WORKER_HEARTBEAT, 3, 1);
    testcodec_raw_str (&raw, "w1", 2);
    msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 9);
    for (int index = 0; index < 8; index++)
        msgpack_pack_uint8 (&raw.pk, (uint8_t) index);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_uint8 (&raw.pk, 9);
    testcodec_raw_into (&raw, copy);
    assert_true (copy->stats.load [1] == 1);
    assert_int_equal (copy->stats.running, 7);
    testcodec_raw_begin_seq (&raw, DROVER_MSG_WORKER_HEARTBEAT, 3, 1);
    testcodec_raw_str (&raw, "w1", 2);
    msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 7);
    for (int index = 0; index < 7; index++)
        msgpack_pack_uint8 (&raw.pk, 0);
    testcodec_assert_raw_says (&raw, "stats");
    testcodec_raw_begin_seq (&raw, DROVER_MSG_WORKER_HELLO, 6, 1);
    testcodec_raw_str (&raw, "w1", 2);
    for (int index = 0; index < 3; index++)
        msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 0);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 3);
    msgpack_pack_uint8 (&raw.pk, 77);
    msgpack_pack_uint8 (&raw.pk, 2);
    testcodec_raw_str (&raw, "later", 5);
    testcodec_raw_into (&raw, copy);
    assert_int_equal (copy->nrunning, 1);
    assert_true (copy->running [0].task == 77 && copy->running [0].attempt == 2);
    testcodec_raw_begin_seq (&raw, DROVER_MSG_TASK_EXPLANATION, 5, 1);
    msgpack_pack_uint8 (&raw.pk, 12);
    msgpack_pack_uint8 (&raw.pk, DROVER_TASK_QUEUED);
    msgpack_pack_uint8 (&raw.pk, 0);
    testcodec_raw_str (&raw, "", 0);
    msgpack_pack_array (&raw.pk, 2);
    for (int item = 0; item < 2; item++) {
        msgpack_pack_array (&raw.pk, 7);
        msgpack_pack_uint8 (&raw.pk, item? 200: DROVER_WHY_LABEL);
        msgpack_pack_uint8 (&raw.pk, 2);
        msgpack_pack_uint8 (&raw.pk, 0);
        msgpack_pack_uint8 (&raw.pk, 0);
        testcodec_raw_str (&raw, "zone=c", 6);
        msgpack_pack_array (&raw.pk, 1);
        testcodec_raw_str (&raw, "w1", 2);
        testcodec_raw_str (&raw, "later", 5);
    }
    testcodec_raw_into (&raw, copy);
    assert_int_equal (copy->nwhys, 2);
    assert_int_equal (copy->whys [0].code, DROVER_WHY_LABEL);
    assert_int_equal (copy->whys [1].code, 200);
    assert_string_equal (copy->whys [1].text, "zone=c");
    assert_string_equal (copy->whys [1].names [0], "w1");

    //  Requests stay strict: a SUBMIT of its 19 fields is read, with one
    //  more it is refused; so is a HEARTBEAT with one past its 3, and a
    //  worker's RESULT with an outcome past the last (a lenient message
    //  read before changes nothing)
    for (int extra = 0; extra < 2; extra++) {
        testcodec_raw_begin_seq (&raw, DROVER_MSG_TASK_SUBMIT, 19 + extra, 1);
        for (int index = 0; index < 3; index++)
            msgpack_pack_uint8 (&raw.pk, 1);
        msgpack_pack_array (&raw.pk, 0);
        for (int index = 0; index < 3; index++)
            msgpack_pack_uint8 (&raw.pk, 0);
        msgpack_pack_bin_with_body (&raw.pk, "\x94\x91\xa4true\x90\xc0\xc0", 10);
        testcodec_raw_str (&raw, "k", 1);
        testcodec_raw_str (&raw, "a", 1);
        testcodec_raw_str (&raw, "web", 3);
        msgpack_pack_uint8 (&raw.pk, 2);
        msgpack_pack_array (&raw.pk, 1);            //  after task 3
        msgpack_pack_array (&raw.pk, 2);
        msgpack_pack_uint8 (&raw.pk, DROVER_AFTER_ANY);
        msgpack_pack_uint8 (&raw.pk, 3);
        for (int index = 0; index < 3; index++)     //  begin, retry delays
            msgpack_pack_uint8 (&raw.pk, (uint8_t) (index + 1));
        msgpack_pack_array (&raw.pk, 4);            //  array: 0, 2, 4
        for (int index = 0; index < 4; index++)
            msgpack_pack_uint8 (&raw.pk, (uint8_t) (index == 1? 2: index == 2? 3: 0));
        testcodec_raw_str (&raw, "ann", 3);         //  owner (level 4)
        msgpack_pack_array (&raw.pk, 0);            //  devices
        if (extra) {
            msgpack_pack_nil (&raw.pk);
            testcodec_assert_raw_says (&raw, "wrong number of fields");
        }
        else {
            testcodec_raw_into (&raw, copy);
            assert_string_equal (copy->key, "k");
            assert_int_equal (copy->slot, 2);
            assert_int_equal (copy->nafter, 1);
            assert_true (copy->after [0].task == 3);
            assert_true (copy->begin == 1 && copy->retry_max_delay == 3);
            assert_int_equal (copy->array.count, 3);
            assert_string_equal (copy->owner, "ann");
            assert_int_equal (drover_msg_level (copy), 4);
        }
    }
    testcodec_raw_begin_seq (&raw, DROVER_MSG_WORKER_HEARTBEAT, 4, 1);
    testcodec_raw_str (&raw, "w1", 2);
    msgpack_pack_uint8 (&raw.pk, 1);
    s_raw_stats (&raw, 0);
    msgpack_pack_nil (&raw.pk);
    testcodec_assert_raw_says (&raw, "wrong number of fields");
    testcodec_raw_done (&raw, 2, 9, 200, 0);
    testcodec_raw_into (&raw, copy);
    testcodec_raw_begin_seq (&raw, DROVER_MSG_TASK_RESULT, 11, 1);
    testcodec_raw_str (&raw, "w1", 2);
    msgpack_pack_uint8 (&raw.pk, 5);
    msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_uint8 (&raw.pk, DROVER_OUTCOME_MAX + 1);
    for (int index = 0; index < 4; index++)
        msgpack_pack_uint8 (&raw.pk, 0);
    msgpack_pack_bin (&raw.pk, 0);
    msgpack_pack_bin (&raw.pk, 0);
    testcodec_raw_str (&raw, "", 0);
    testcodec_assert_raw_says (&raw, "outcome: out of range");
    drover_msg_destroy (&copy);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_optional_fields_of_older_peers),
        cmocka_unit_test (test_optional_elements_of_worker_rows_and_admin),
        cmocka_unit_test (test_task_rows_of_a_later_version_are_read),
        cmocka_unit_test (test_lenient_to_a_newer_broker),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
