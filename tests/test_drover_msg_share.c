/*  =========================================================================
    test_drover_msg_share - the wire codec's fields of sharing a cluster
    (protocol level 4, PROTOCOL.md §7, §12): a submit's owner, devices and
    PREEMPTIBLE flag, HELLO's and OFFER's devices, STARTED's assigned,
    end OOM, SHARE ADMIN, LIST and TABLE, a WORKER TABLE row's device
    texts; what a level-3 peer gets instead; what a decoder refuses.
    =========================================================================
*/

#include "testcodec_msg.h"

#define S_BODY      "\x94\x91\xa4true\x90\xc0\xc0"     //  ["true"], [], nil, nil

//  A TASK SUBMIT of 1 proc running true, nothing else set, ours
static drover_msg_t *
s_submit (void)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    msg->procs = 1;
    drover_msg_set_body (msg, (const byte *) S_BODY, 10);
    return msg;
}

//  Encode msg at level, decode it into copy (asserting both)
static void
s_at_level (drover_msg_t *msg, int level, drover_msg_t *copy)
{
    zframe_t *frame = drover_msg_encode_level (msg, level);
    assert_non_null (frame);
    assert_int_equal (drover_msg_decode (copy, zframe_data (frame), zframe_size (frame)), 0);
    zframe_destroy (&frame);
}

//  A submit's owner, devices and PREEMPTIBLE go back as they were and show
//  level 4; a level-3 peer gets none of them
static void
test_submit_fields (void **state)
{
    drover_msg_t *msg = s_submit ();
    drover_msg_t *copy = drover_msg_new (0);
    strcpy (msg->owner, "alice");
    testcodec_assert_roundtrip (msg, copy);
    assert_string_equal (copy->owner, "alice");
    assert_int_equal (copy->implied, 4);
    //  The owner alone: every level-3 field packs as none before it
    zframe_t *frame = drover_msg_encode (msg);
    assert_int_equal (zframe_data (frame) [0], 0xdc);
    assert_int_equal (zframe_data (frame) [2], 4 + 18);
    zframe_destroy (&frame);
    msg->ndevices = 2;
    msg->devices [0] = (drover_device_t) { "fpga", 1 };
    msg->devices [1] = (drover_device_t) { "gpu", 2 };
    msg->flags = DROVER_SUBMIT_NOTIFY | DROVER_SUBMIT_PREEMPTIBLE;
    testcodec_assert_roundtrip (msg, copy);
    assert_int_equal (copy->ndevices, 2);
    assert_int_equal (copy->devices [1].count, 2);
    assert_int_equal (copy->flags, DROVER_SUBMIT_NOTIFY | DROVER_SUBMIT_PREEMPTIBLE);
    //  Devices without an owner: owner packs ""
    msg->owner [0] = 0;
    testcodec_assert_roundtrip (msg, copy);
    assert_int_equal (drover_msg_level (copy), 4);

    //  Level 3: no owner, no devices, no PREEMPTIBLE; the other flags kept
    strcpy (msg->owner, "alice");
    s_at_level (msg, 3, copy);
    assert_string_equal (copy->owner, "");
    assert_int_equal (copy->ndevices, 0);
    assert_int_equal (copy->flags, DROVER_SUBMIT_NOTIFY);
    assert_int_equal (copy->implied, 1);
    frame = drover_msg_encode (msg);
    assert_int_equal (drover_msg_fit (&frame, 3), 0);
    assert_int_equal (zframe_data (frame) [0], 0x90 + 4 + 8);
    zframe_destroy (&frame);

    //  Not encoded: an owner that is not an id, a bad device
    strcpy (msg->owner, "al ice");
    testcodec_assert_not_encoded (msg, "owner with a space");
    strcpy (msg->owner, "alice");
    msg->devices [0].count = 0;
    testcodec_assert_not_encoded (msg, "device count 0");
    msg->devices [0].count = 1000001;
    testcodec_assert_not_encoded (msg, "device count past 1000000");
    msg->devices [0] = (drover_device_t) { "gpu", 1 };
    testcodec_assert_not_encoded (msg, "a device name twice");
    msg->devices [0] = (drover_device_t) { "GPU", 1 };
    testcodec_assert_not_encoded (msg, "a device name in capitals");
    msg->devices [0] = (drover_device_t) { "fpga", 1 };
    msg->ndevices = DROVER_DEVICES_MAX + 1;
    testcodec_assert_not_encoded (msg, "17 devices");
    drover_msg_destroy (&msg);
    drover_msg_destroy (&copy);
}

//  HELLO's and OFFER's devices, STARTED's assigned: back as they were at
//  level 4, left out at level 3
static void
test_worker_dialogue_fields (void **state)
{
    drover_msg_t *copy = drover_msg_new (0);
    drover_msg_t *hello = testcodec_filled (DROVER_MSG_WORKER_HELLO);
    hello->ndevices = 1;
    hello->devices [0] = (drover_device_t) { "gpu", 4 };
    testcodec_assert_roundtrip (hello, copy);
    assert_int_equal (copy->ndevices, 1);
    s_at_level (hello, 3, copy);
    assert_int_equal (copy->ndevices, 0);
    drover_msg_destroy (&hello);

    drover_msg_t *offer = testcodec_filled (DROVER_MSG_TASK_OFFER);
    offer->ndevices = 1;
    offer->devices [0] = (drover_device_t) { "gpu", 2 };
    testcodec_assert_roundtrip (offer, copy);
    assert_int_equal (copy->implied, 4);
    s_at_level (offer, 3, copy);
    assert_int_equal (copy->ndevices, 0);
    drover_msg_destroy (&offer);

    drover_msg_t *started = testcodec_filled (DROVER_MSG_TASK_STARTED);
    const char *good [] = { "gpu=0,2;fpga=4", "gpu=0", "a_1=123456789", "" };
    for (size_t index = 0; index < sizeof good / sizeof good [0]; index++) {
        zstr_free (&started->assigned);
        started->assigned = strdup (good [index]);
        testcodec_assert_roundtrip (started, copy);
        assert_string_equal (copy->assigned? copy->assigned: "", good [index]);
    }
    s_at_level (started, 3, copy);
    assert_null (copy->assigned);
    const char *bad [] = { "gpu", "gpu=", "gpu=0,", "gpu=0;", "gpu=0;gpu=1", "GPU=0",
                           "gpu=1234567890", "gpu=0 ", "gpu=a" };
    for (size_t index = 0; index < sizeof bad / sizeof bad [0]; index++) {
        zstr_free (&started->assigned);
        started->assigned = strdup (bad [index]);
        testcodec_assert_not_encoded (started, bad [index]);
    }
    drover_msg_destroy (&started);
    drover_msg_destroy (&copy);
}

//  End OOM goes with FAILED; a peer below level 4 is told FAILED, in TASK
//  DONE and in TASK TABLE rows
static void
test_end_oom (void **state)
{
    assert_true (drover_end_fits (DROVER_TASK_FAILED, DROVER_END_OOM));
    assert_false (drover_end_fits (DROVER_TASK_SUCCEEDED, DROVER_END_OOM));
    assert_string_equal (drover_end_name (DROVER_END_OOM), "OOM");
    assert_string_equal (drover_end_name (DROVER_END_OOM + 1), "INVALID");
    drover_msg_t *done = testcodec_filled (DROVER_MSG_TASK_DONE);
    done->end = DROVER_END_OOM;
    drover_msg_t *copy = drover_msg_new (0);
    testcodec_assert_roundtrip (done, copy);
    assert_int_equal (copy->end, DROVER_END_OOM);
    for (int level = 2; level < 4; level++) {
        s_at_level (done, level, copy);
        assert_int_equal (copy->state, DROVER_TASK_FAILED);
        assert_int_equal (copy->end, DROVER_END_FAILED);
    }
    zframe_t *frame = drover_msg_encode (done);
    assert_int_equal (drover_msg_fit (&frame, 3), 0);
    assert_int_equal (drover_msg_decode (copy, zframe_data (frame), zframe_size (frame)), 0);
    assert_int_equal (copy->end, DROVER_END_FAILED);
    zframe_destroy (&frame);
    drover_msg_destroy (&done);

    drover_msg_t *table = testcodec_filled (DROVER_MSG_TASK_TABLE);
    table->task_rows [1].end = DROVER_END_OOM;
    testcodec_assert_roundtrip (table, copy);
    s_at_level (table, 3, copy);
    assert_int_equal (copy->task_rows [1].end, DROVER_END_FAILED);
    drover_msg_destroy (&table);
    drover_msg_destroy (&copy);
}

//  SHARE ADMIN, LIST and TABLE: level 4, named, back as they were; a
//  level-3 peer is sent none of them
static void
test_share_messages (void **state)
{
    int ids [] = { DROVER_MSG_SHARE_ADMIN, DROVER_MSG_SHARE_LIST, DROVER_MSG_SHARE_TABLE };
    const char *names [] = { "SHARE ADMIN", "SHARE LIST", "SHARE TABLE" };
    drover_msg_t *copy = drover_msg_new (0);
    for (int index = 0; index < 3; index++) {
        assert_int_equal (drover_msg_id_level (ids [index]), 4);
        assert_string_equal (drover_msg_name (ids [index]), names [index]);
        drover_msg_t *msg = testcodec_filled (ids [index]);
        testcodec_assert_roundtrip (msg, copy);
        assert_int_equal (drover_msg_level (copy), 4);
        assert_null (drover_msg_encode_level (msg, 3));
        zframe_t *frame = drover_msg_encode (msg);
        assert_int_equal (drover_msg_fit (&frame, 3), -1);
        zframe_destroy (&frame);
        drover_msg_destroy (&msg);
    }
    //  SHARE ADMIN: members nil keeps them, "" clears them; no device quotas
    drover_msg_t *admin = testcodec_filled (DROVER_MSG_SHARE_ADMIN);
    zstr_free (&admin->members);
    admin->ndevices = 0;
    testcodec_assert_roundtrip (admin, copy);
    assert_null (copy->members);
    admin->members = strdup ("");
    testcodec_assert_roundtrip (admin, copy);
    assert_non_null (copy->members);
    assert_string_equal (copy->members, "");
    admin->action = DROVER_SHARE_DROP;
    testcodec_assert_roundtrip (admin, copy);
    //  Not encoded
    const char *bad [] = { "alice,alice", "alice,", ",alice", "al ice", "a,,b" };
    for (size_t index = 0; index < sizeof bad / sizeof bad [0]; index++) {
        zstr_free (&admin->members);
        admin->members = strdup (bad [index]);
        testcodec_assert_not_encoded (admin, bad [index]);
    }
    zstr_free (&admin->members);
    admin->owner [0] = 0;
    testcodec_assert_not_encoded (admin, "no name");
    strcpy (admin->owner, "team-a");
    admin->action = DROVER_SHARE_ACTION_MAX + 1;
    testcodec_assert_not_encoded (admin, "an unknown action");
    admin->action = DROVER_SHARE_SET;
    admin->weight = DROVER_WEIGHT_MAX + 1;
    testcodec_assert_not_encoded (admin, "a weight past 1000000");
    drover_msg_destroy (&admin);

    drover_msg_t *table = testcodec_filled (DROVER_MSG_SHARE_TABLE);
    table->share_rows [1].kind = 2;
    testcodec_assert_not_encoded (table, "row kind 2");
    table->share_rows [1].kind = 1;
    strcpy (table->share_rows [1].resource, "Procs");
    testcodec_assert_not_encoded (table, "resource in capitals");
    table->share_rows [1].resource [0] = 0;
    table->share_rows [1].devices = strdup ("gpu=0");
    testcodec_assert_not_encoded (table, "row devices gpu=0");
    drover_msg_destroy (&table);
    drover_msg_destroy (&copy);
}

//  A WORKER TABLE row's devices and devices_used: 21 elements at level 4
//  when the worker has some, 19 otherwise and at level 3
static void
test_worker_row_devices (void **state)
{
    drover_msg_t *msg = testcodec_filled (DROVER_MSG_WORKER_TABLE);
    drover_msg_t *copy = drover_msg_new (0);
    msg->worker_rows [1].devices = strdup ("fpga=1,gpu=4");
    msg->worker_rows [1].devices_used = strdup ("gpu=1");
    testcodec_assert_roundtrip (msg, copy);
    assert_string_equal (copy->worker_rows [1].devices, "fpga=1,gpu=4");
    assert_string_equal (copy->worker_rows [1].devices_used, "gpu=1");
    assert_null (copy->worker_rows [0].devices);
    s_at_level (msg, 3, copy);
    assert_null (copy->worker_rows [1].devices);
    assert_null (copy->worker_rows [1].devices_used);
    assert_int_equal (copy->worker_rows [1].tasks, 2);
    zstr_free (&msg->worker_rows [1].devices);
    msg->worker_rows [1].devices = strdup ("gpu=4, fpga=1");
    testcodec_assert_not_encoded (msg, "a device list with a space");
    drover_msg_destroy (&msg);
    drover_msg_destroy (&copy);
}

//  Start a raw WORKER HELLO of its 9 fields up to release, then devices
//  (packed by the caller)
static void
s_raw_hello (testcodec_raw_t *raw)
{
    testcodec_raw_begin (raw, DROVER_MSG_WORKER_HELLO, 10);
    testcodec_raw_str (raw, "w1", 2);
    msgpack_pack_uint8 (&raw->pk, 1);               //  epoch
    msgpack_pack_uint8 (&raw->pk, 4);               //  procs
    msgpack_pack_uint8 (&raw->pk, 0);               //  mem
    msgpack_pack_array (&raw->pk, 0);               //  labels
    msgpack_pack_array (&raw->pk, 0);               //  running
    testcodec_raw_str (raw, "", 0);                 //  state id
    msgpack_pack_uint8 (&raw->pk, 4);               //  level
    testcodec_raw_str (raw, "x", 1);                //  release
}

//  Pack a device entry [name, count]
static void
s_raw_device (testcodec_raw_t *raw, const char *name, uint64_t count)
{
    msgpack_pack_array (&raw->pk, 2);
    testcodec_raw_str (raw, name, strlen (name));
    msgpack_pack_uint64 (&raw->pk, count);
}

//  Hostile devices, owners, assigned and share rows: refused with a text
//  that names what is wrong, never a crash
static void
test_hostile (void **state)
{
    testcodec_raw_t raw;
    s_raw_hello (&raw);
    msgpack_pack_array (&raw.pk, 1);
    s_raw_device (&raw, "gpu", 4);
    drover_msg_t *msg = testcodec_raw_accepted (&raw);
    assert_int_equal (msg->ndevices, 1);
    assert_int_equal (msg->devices [0].count, 4);
    drover_msg_destroy (&msg);

    struct { const char *name; uint64_t count; const char *says; } cases [] = {
        { "gpu", 0, "device count: out of range" },
        { "gpu", 1000001, "device count: out of range" },
        { "gpu", 1ull << 40, "device count" },
        { "GPU", 1, "device name: not 1..32" },
        { "", 1, "runs past the end" },        //  shorter than the shortest entry
        { "g-pu", 1, "device name: not 1..32" },
        { "abcdefghijabcdefghijabcdefghijabc", 1, "device name" },
    };
    for (size_t index = 0; index < sizeof cases / sizeof cases [0]; index++) {
        s_raw_hello (&raw);
        msgpack_pack_array (&raw.pk, 1);
        s_raw_device (&raw, cases [index].name, cases [index].count);
        testcodec_assert_raw_refused (&raw, cases [index].says, 64);
    }
    s_raw_hello (&raw);
    msgpack_pack_array (&raw.pk, 2);
    s_raw_device (&raw, "gpu", 1);
    s_raw_device (&raw, "gpu", 2);
    testcodec_assert_raw_refused (&raw, "a device name is given twice", 64);
    s_raw_hello (&raw);
    msgpack_pack_array (&raw.pk, DROVER_DEVICES_MAX + 1);
    for (int index = 0; index <= DROVER_DEVICES_MAX; index++) {
        char name [8];
        snprintf (name, sizeof name, "d%d", index);
        s_raw_device (&raw, name, 1);
    }
    testcodec_assert_raw_refused (&raw, "devices: out of range", 64);
    s_raw_hello (&raw);
    msgpack_pack_array (&raw.pk, 1000000);          //  a count the bytes cannot hold
    testcodec_assert_raw_refused (&raw, "runs past the end", 64);
    s_raw_hello (&raw);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 1);                //  [name] without a count
    testcodec_raw_str (&raw, "gpu", 3);
    testcodec_assert_raw_refused (&raw, "device", 64);

    //  TASK STARTED's assigned
    testcodec_raw_begin (&raw, DROVER_MSG_TASK_STARTED, 4);
    testcodec_raw_str (&raw, "w1", 2);
    msgpack_pack_uint8 (&raw.pk, 5);
    msgpack_pack_uint8 (&raw.pk, 1);
    testcodec_raw_str (&raw, "gpu=0;gpu=1", 11);
    testcodec_assert_raw_refused (&raw, "assigned: not NAME=I,J;NAME=K", 64);

    //  SHARE ADMIN's name and members
    testcodec_raw_begin (&raw, DROVER_MSG_SHARE_ADMIN, 7);
    msgpack_pack_uint8 (&raw.pk, 0);
    testcodec_raw_str (&raw, "bad name", 8);
    for (int index = 0; index < 5; index++)
        msgpack_pack_nil (&raw.pk);
    testcodec_assert_raw_refused (&raw, "name", 64);
    testcodec_raw_begin (&raw, DROVER_MSG_SHARE_ADMIN, 7);
    msgpack_pack_uint8 (&raw.pk, 0);
    testcodec_raw_str (&raw, "team", 4);
    msgpack_pack_uint8 (&raw.pk, 1);
    testcodec_raw_str (&raw, "a,b,a", 5);
    for (int index = 0; index < 3; index++)
        msgpack_pack_uint8 (&raw.pk, 0);
    testcodec_assert_raw_refused (&raw, "members: not ids joined by commas", 64);
    testcodec_raw_begin (&raw, DROVER_MSG_SHARE_ADMIN, 7);
    msgpack_pack_uint8 (&raw.pk, 2);                //  no such action
    testcodec_raw_str (&raw, "team", 4);
    for (int index = 0; index < 5; index++)
        msgpack_pack_nil (&raw.pk);
    testcodec_assert_raw_refused (&raw, "action", 64);

    //  SHARE TABLE rows: short; a kind past 1 is a newer broker's (kept, as
    //  the broker's messages are read leniently), a resource not a str
    testcodec_raw_begin (&raw, DROVER_MSG_SHARE_TABLE, 1);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 3);
    testcodec_raw_str (&raw, "a-long-enough-name", 18);
    testcodec_raw_str (&raw, "", 0);
    msgpack_pack_uint8 (&raw.pk, 0);
    testcodec_assert_raw_refused (&raw, "share row", 64);
    testcodec_raw_begin (&raw, DROVER_MSG_SHARE_TABLE, 1);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 13);
    testcodec_raw_str (&raw, "a", 1);
    testcodec_raw_str (&raw, "", 0);
    msgpack_pack_uint8 (&raw.pk, 9);
    for (int index = 0; index < 10; index++)
        msgpack_pack_uint8 (&raw.pk, 0);
    testcodec_assert_raw_refused (&raw, "share resource: wrong type", 64);
}

//  TASK INFO's keys of level 4: sent only when set, back as they were
static void
test_taskinfo_keys (void **state)
{
    drover_taskinfo_t *info = drover_taskinfo_new ();
    info->task = 5;
    size_t bare_size;
    byte *bare = drover_taskinfo_encode (info, &bare_size);
    assert_non_null (bare);
    info->devices = strdup ("gpu=2");
    info->assigned = strdup ("gpu=0,3");
    info->preemptible = 1;
    size_t size;
    byte *data = drover_taskinfo_encode (info, &size);
    assert_true (size > bare_size);
    const char *error = NULL;
    drover_taskinfo_t *copy = drover_taskinfo_decode (data, size, &error);
    assert_non_null (copy);
    assert_string_equal (copy->devices, "gpu=2");
    assert_string_equal (copy->assigned, "gpu=0,3");
    assert_int_equal (copy->preemptible, 1);
    drover_taskinfo_destroy (&copy);
    copy = drover_taskinfo_decode (bare, bare_size, &error);
    assert_non_null (copy);
    assert_null (copy->devices);
    assert_int_equal (copy->preemptible, 0);
    drover_taskinfo_destroy (&copy);
    free (data);
    free (bare);
    drover_taskinfo_destroy (&info);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_submit_fields),
        cmocka_unit_test (test_worker_dialogue_fields),
        cmocka_unit_test (test_end_oom),
        cmocka_unit_test (test_share_messages),
        cmocka_unit_test (test_worker_row_devices),
        cmocka_unit_test (test_hostile),
        cmocka_unit_test (test_taskinfo_keys),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
