/*  =========================================================================
    test_drover_msg_backup - the wire codec of backups (protocol level 5,
    PROTOCOL.md §7.48, §7.49, §12): STATE BACKUP and BACKUP DONE go back
    as they were and show level 5; no peer of level 4 or less is sent
    them, while every older message still goes to a level-4 peer as it
    is; what a decoder refuses.
    =========================================================================
*/

#include "testcodec_msg.h"

#define S_PATH      "/var/backups/drover/state.db"

//  Both messages round-trip, are named, are of level 5, and are not
//  encoded for (nor fitted to) a peer of level 4
static void
test_backup_messages (void **state)
{
    int ids [] = { DROVER_MSG_STATE_BACKUP, DROVER_MSG_BACKUP_DONE };
    const char *names [] = { "STATE BACKUP", "BACKUP DONE" };
    drover_msg_t *copy = drover_msg_new (0);
    for (int index = 0; index < 2; index++) {
        assert_int_equal (drover_msg_id_level (ids [index]), 5);
        assert_string_equal (drover_msg_name (ids [index]), names [index]);
        drover_msg_t *msg = testcodec_filled (ids [index]);
        testcodec_assert_roundtrip (msg, copy);
        assert_int_equal (drover_msg_level (copy), 5);
        for (int level = 1; level <= 4; level++)
            assert_null (drover_msg_encode_level (msg, level));
        zframe_t *frame = drover_msg_encode (msg);
        assert_int_equal (drover_msg_fit (&frame, 4), -1);
        assert_int_equal (drover_msg_fit (&frame, 5), 0);
        zframe_destroy (&frame);
        drover_msg_destroy (&msg);
    }
    drover_msg_t *done = testcodec_filled (DROVER_MSG_BACKUP_DONE);
    testcodec_assert_roundtrip (done, copy);
    assert_string_equal (copy->path, "/var/backups/drover/state-2026-12-06.db");
    assert_true (copy->pages == 1280 && copy->bytes == UINT64_MAX);
    assert_int_equal (copy->duration, 312);
    drover_msg_destroy (&done);
    drover_msg_destroy (&copy);
}

//  Level 5 only added messages: a level-4 peer is sent every older
//  message as it is (the same frame, not re-encoded), and a level-3 peer
//  still gets its own shapes. (WORKER TABLE's rows grew at level 6: the
//  level tests check how a level-4 or level-5 peer gets them, and WORKER
//  WELCOME's ack-timeout, level 7's.)
static void
test_level_four_peer_unchanged (void **state)
{
    for (int id = 1; id <= DROVER_MSG_SHARE_TABLE; id++) {
        if (id == DROVER_MSG_WORKER_TABLE || id == DROVER_MSG_WORKER_WELCOME
        ||  id == DROVER_MSG_SERVICE_TABLE || id == DROVER_MSG_PLAN_RESULT
        ||  id == DROVER_MSG_POOL_TABLE || id == DROVER_MSG_QUEUE_TABLE
        ||  id == DROVER_MSG_WORKER_HELLO || id == DROVER_MSG_TASK_RESULT)
            continue;           //  grew at level 6, 7 (test_drover_msg_level7_*), 9
                                //  (test_drover_msg_levels: test_ahead_of_level_nine)
        drover_msg_t *msg = testcodec_filled (id);
        zframe_t *frame = drover_msg_encode (msg);
        assert_non_null (frame);
        zframe_t *sent = frame;
        zframe_t *old = drover_msg_encode_level (msg, 4);
        assert_non_null (old);
        assert_true (zframe_eq (old, frame));
        assert_int_equal (drover_msg_fit (&frame, 4), 0);
        assert_ptr_equal (frame, sent);
        zframe_destroy (&old);
        zframe_destroy (&frame);
        drover_msg_destroy (&msg);
    }
    //  A SUBMIT with an owner is still cut for level 3
    drover_msg_t *submit = testcodec_filled (DROVER_MSG_TASK_SUBMIT);
    zframe_t *frame = drover_msg_encode (submit);
    zframe_t *sent = frame;
    assert_int_equal (drover_msg_fit (&frame, 3), 0);
    assert_ptr_not_equal (frame, sent);
    zframe_destroy (&frame);
    drover_msg_destroy (&submit);
}

//  What is not encoded: no path, an empty one, one past 4096 bytes
static void
test_not_encoded (void **state)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_STATE_BACKUP);
    testcodec_assert_not_encoded (msg, "no path");
    msg->path = strdup ("");
    testcodec_assert_not_encoded (msg, "an empty path");
    zstr_free (&msg->path);
    msg->path = (char *) zmalloc (DROVER_PATH_MAX + 2);
    memset (msg->path, 'a', DROVER_PATH_MAX + 1);
    msg->path [0] = '/';
    testcodec_assert_not_encoded (msg, "a path of 4097 bytes");
    msg->path [DROVER_PATH_MAX] = 0;
    drover_msg_t *copy = testcodec_roundtrip (msg);
    assert_int_equal (strlen (copy->path), DROVER_PATH_MAX);
    drover_msg_destroy (&copy);
    drover_msg_destroy (&msg);
}

//  What a decoder refuses: a path empty, too long, with a NUL, not a
//  str; a STATE BACKUP of more fields (a request stays strict), while a
//  BACKUP DONE of more is read (a reply is lenient, PROTOCOL.md §12.3)
static void
test_hostile (void **state)
{
    testcodec_raw_t raw;
    testcodec_raw_begin (&raw, DROVER_MSG_STATE_BACKUP, 1);
    testcodec_raw_str (&raw, S_PATH, strlen (S_PATH));
    drover_msg_t *msg = testcodec_raw_accepted (&raw);
    assert_string_equal (msg->path, S_PATH);
    drover_msg_destroy (&msg);

    testcodec_raw_begin (&raw, DROVER_MSG_STATE_BACKUP, 1);
    testcodec_raw_str (&raw, "", 0);
    testcodec_assert_raw_refused (&raw, "path", 64);
    testcodec_raw_begin (&raw, DROVER_MSG_STATE_BACKUP, 1);
    testcodec_raw_str (&raw, "/tmp/a\0b", 8);
    testcodec_assert_raw_refused (&raw, "path: contains NUL", 64);
    testcodec_raw_begin (&raw, DROVER_MSG_STATE_BACKUP, 1);
    msgpack_pack_uint32 (&raw.pk, 7);
    testcodec_assert_raw_refused (&raw, "path: wrong type", 64);
    char *long_path = (char *) zmalloc (DROVER_PATH_MAX + 1);
    memset (long_path, 'a', DROVER_PATH_MAX + 1);
    testcodec_raw_begin (&raw, DROVER_MSG_STATE_BACKUP, 1);
    testcodec_raw_str (&raw, long_path, DROVER_PATH_MAX + 1);
    drover_msg_t *copy = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (copy, RAW_DATA (raw), RAW_SIZE (raw)), -2);
    assert_true (copy->too_large);
    testcodec_raw_destroy (&raw);
    free (long_path);
    testcodec_raw_begin (&raw, DROVER_MSG_STATE_BACKUP, 0);
    testcodec_assert_raw_refused (&raw, "wrong number of fields", 64);
    testcodec_raw_begin (&raw, DROVER_MSG_STATE_BACKUP, 2);
    testcodec_raw_str (&raw, S_PATH, strlen (S_PATH));
    msgpack_pack_nil (&raw.pk);
    testcodec_assert_raw_refused (&raw, "wrong number of fields", 64);

    //  BACKUP DONE from a later broker: fields past its 4 are passed over
    testcodec_raw_begin (&raw, DROVER_MSG_BACKUP_DONE, 6);
    testcodec_raw_str (&raw, S_PATH, strlen (S_PATH));
    msgpack_pack_uint64 (&raw.pk, 10);
    msgpack_pack_uint64 (&raw.pk, 40960);
    msgpack_pack_uint32 (&raw.pk, 5);
    testcodec_raw_later_elements (&raw);
    msg = testcodec_raw_accepted (&raw);
    assert_true (msg->pages == 10 && msg->bytes == 40960 && msg->duration == 5);
    drover_msg_destroy (&msg);
    testcodec_raw_begin (&raw, DROVER_MSG_BACKUP_DONE, 4);
    testcodec_raw_str (&raw, S_PATH, strlen (S_PATH));
    msgpack_pack_int32 (&raw.pk, -1);
    msgpack_pack_uint64 (&raw.pk, 40960);
    msgpack_pack_uint32 (&raw.pk, 5);
    testcodec_assert_raw_refused (&raw, "pages", 64);
    testcodec_raw_begin (&raw, DROVER_MSG_BACKUP_DONE, 3);
    testcodec_raw_str (&raw, S_PATH, strlen (S_PATH));
    msgpack_pack_uint64 (&raw.pk, 10);
    msgpack_pack_uint64 (&raw.pk, 40960);
    testcodec_assert_raw_refused (&raw, "wrong number of fields", 64);
    drover_msg_destroy (&copy);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_backup_messages),
        cmocka_unit_test (test_level_four_peer_unchanged),
        cmocka_unit_test (test_not_encoded),
        cmocka_unit_test (test_hostile),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
