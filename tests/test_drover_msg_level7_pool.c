/*  =========================================================================
    test_drover_msg_level7_pool - POOL TABLE's level-7 elements (the
    summary's probing, each row's probe and probes) go only to level-7
    peers: encoded for a level-6 peer, a table is byte for byte the old
    layout (a summary of 8 elements, rows of 15); for a level-7 peer it
    has 9 and 17, and both decode (PROTOCOL.md §7.30, §12.4)
    =========================================================================
*/

#include "testcodec.h"

//  A POOL TABLE of one instance whose probe failed twice
static drover_msg_t *
s_table (void)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_POOL_TABLE);
    msg->seq = TESTCODEC_SEQ;
    msg->pool = (drover_pool_summary_t) { .enabled = 1, .driver = "command", .live = 1,
        .max_instances = 4, .price = 0.5, .max_price = 0, .backoff_until = 0,
        .failures = 0, .probing = 1 };
    msg->nrows = 1;
    msg->pool_rows = (drover_pool_row_t *) zmalloc (sizeof (drover_pool_row_t));
    drover_pool_row_t *row = &msg->pool_rows [0];
    strcpy (row->id, "POOL-kx3f-1");
    strcpy (row->type, "small");
    row->price = 0.5;
    row->state = 1;                 //  booting: registered, its probe not passed
    row->behaviour = 0;
    row->created = 1795498670000ull;
    row->since = 1795498671000ull;
    row->procs = 2;
    row->mem = 4ull << 30;
    strcpy (row->why, "probe failed: disk not mounted");
    row->probe = 3;                 //  failed
    row->probes = 2;
    return msg;
}

//  Pack the table by hand, as a peer of level (6 or 7) knows it
static void
s_expected (testcodec_raw_t *raw, int level)
{
    testcodec_raw_begin (raw, DROVER_MSG_POOL_TABLE, 2);
    msgpack_packer *pk = &raw->pk;
    msgpack_pack_array (pk, level >= 7? 9: 8);
    msgpack_pack_uint8 (pk, 1);
    msgpack_pack_str_with_body (pk, "command", 7);
    msgpack_pack_uint32 (pk, 1);
    msgpack_pack_uint32 (pk, 4);
    msgpack_pack_double (pk, 0.5);
    msgpack_pack_double (pk, 0);
    msgpack_pack_uint64 (pk, 0);
    msgpack_pack_uint32 (pk, 0);
    if (level >= 7)
        msgpack_pack_uint8 (pk, 1);
    msgpack_pack_array (pk, 1);
    msgpack_pack_array (pk, level >= 7? 17: 15);
    msgpack_pack_str_with_body (pk, "POOL-kx3f-1", 11);
    msgpack_pack_str_with_body (pk, "small", 5);
    msgpack_pack_double (pk, 0.5);
    msgpack_pack_uint8 (pk, 1);
    msgpack_pack_uint8 (pk, 0);
    msgpack_pack_uint64 (pk, 1795498670000ull);
    msgpack_pack_uint64 (pk, 1795498671000ull);
    msgpack_pack_uint64 (pk, 0);
    msgpack_pack_uint64 (pk, 0);
    msgpack_pack_uint32 (pk, 0);
    msgpack_pack_uint32 (pk, 2);
    msgpack_pack_uint32 (pk, 0);
    msgpack_pack_uint64 (pk, 4ull << 30);
    msgpack_pack_uint64 (pk, 0);
    msgpack_pack_str_with_body (pk, "probe failed: disk not mounted", 30);
    if (level >= 7) {
        msgpack_pack_uint8 (pk, 3);
        msgpack_pack_uint32 (pk, 2);
    }
}

//  Encode at level and compare with the layout packed by hand; decode it
static drover_msg_t *
s_check_level (int level)
{
    drover_msg_t *msg = s_table ();
    zframe_t *frame = drover_msg_encode_level (msg, level);
    assert_non_null (frame);
    testcodec_raw_t raw;
    s_expected (&raw, level);
    assert_int_equal (zframe_size (frame), RAW_SIZE (raw));
    assert_memory_equal (zframe_data (frame), RAW_DATA (raw), RAW_SIZE (raw));
    testcodec_raw_destroy (&raw);
    drover_msg_t *again = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (again, zframe_data (frame), zframe_size (frame)), 0);
    zframe_destroy (&frame);
    drover_msg_destroy (&msg);
    return again;
}

//  A level-6 peer gets exactly the old layout, without the probe
static void
test_level6_gets_the_old_layout (void **state)
{
    drover_msg_t *msg = s_check_level (6);
    assert_int_equal (msg->nrows, 1);
    assert_string_equal (msg->pool_rows [0].why, "probe failed: disk not mounted");
    assert_int_equal (msg->pool.probing, 0);
    assert_int_equal (msg->pool_rows [0].probe, 0);
    assert_int_equal (msg->pool_rows [0].probes, 0);
    drover_msg_destroy (&msg);
}

//  A level-7 peer gets the probe: the summary's probing, the row's probe
//  and probes
static void
test_level7_gets_the_probe (void **state)
{
    drover_msg_t *msg = s_check_level (7);
    assert_int_equal (msg->pool.probing, 1);
    assert_int_equal (msg->pool_rows [0].probe, 3);
    assert_int_equal (msg->pool_rows [0].probes, 2);
    drover_msg_destroy (&msg);
    //  This version's own encoding is level 7's
    msg = s_table ();
    zframe_t *frame = drover_msg_encode (msg);
    zframe_t *seven = drover_msg_encode_level (msg, 7);
    assert_non_null (frame);
    assert_true (zframe_eq (frame, seven));
    zframe_destroy (&frame);
    zframe_destroy (&seven);
    drover_msg_destroy (&msg);
}

//  A table encoded at level 7 is fitted to a level-6 (and level-4) peer:
//  re-encoded in the old layout, not sent as it is
static void
test_fit_reencodes_for_older_peers (void **state)
{
    for (int level = 4; level <= 6; level++) {
        drover_msg_t *msg = s_table ();
        zframe_t *frame = drover_msg_encode (msg);
        zframe_t *old = drover_msg_encode_level (msg, level);
        assert_non_null (old);
        assert_false (zframe_eq (old, frame));
        assert_int_equal (drover_msg_fit (&frame, level), 0);
        assert_true (zframe_eq (old, frame));
        zframe_destroy (&old);
        zframe_destroy (&frame);
        drover_msg_destroy (&msg);
    }
}

//  A probe state past the last is not encoded (for any level)
static void
test_probe_past_the_last_is_not_encoded (void **state)
{
    drover_msg_t *msg = s_table ();
    msg->pool_rows [0].probe = DROVER_POOL_PROBE_MAX + 1;
    assert_null (drover_msg_encode (msg));
    msg->pool_rows [0].probe = 0;
    msg->pool.probing = 2;
    assert_null (drover_msg_encode (msg));
    drover_msg_destroy (&msg);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_level6_gets_the_old_layout),
        cmocka_unit_test (test_level7_gets_the_probe),
        cmocka_unit_test (test_fit_reencodes_for_older_peers),
        cmocka_unit_test (test_probe_past_the_last_is_not_encoded),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
