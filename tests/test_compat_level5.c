/*  =========================================================================
    test_compat_level5 - peers of the release before level 6 (protocol
    level 5) keep working against this broker, which speaks level 6:
    - a level-5 client's WORKER LIST is answered with rows of 19 elements,
      or 21 for a worker with devices, as a level-5 broker sent them, and
      they read back with today's decoder (no heartbeat, no lost-after);
    - a level-6 client on the same broker gets rows of 23, with each
      worker's heartbeat interval and the silence that makes it LOST;
    - a level-5 worker registers and is told its heartbeat in WELCOME.
    Requests are encoded at level 5 as a peer of that release would.
    =========================================================================
*/

#include "testutil_cluster.h"
#include "testutil_peer.h"
#include <msgpack.h>

//  Broker flags: lost-after long enough that played workers, which never
//  heartbeat, stay registered through the test
static const char *s_flags [] = { "--set", "health/lost-after=60000", NULL };

//  Ask WORKER LIST at level; return the WORKER TABLE's frame as it came
static zframe_t *
s_list_at (zsock_t *client, int level)
{
    drover_msg_t *list = drover_msg_new (DROVER_MSG_WORKER_LIST);
    list->seq = 9;
    testutil_peer_send_at (client, &list, level);
    return testutil_peer_expect_frame (client, DROVER_MSG_WORKER_TABLE);
}

//  The number of elements of the row of worker id in a WORKER TABLE frame
static uint32_t
s_row_size (zframe_t *frame, const char *id)
{
    msgpack_unpacked unpacked;
    msgpack_unpacked_init (&unpacked);
    assert_int_equal (msgpack_unpack_next (&unpacked, (const char *) zframe_data (frame),
                                           zframe_size (frame), NULL), MSGPACK_UNPACK_SUCCESS);
    const msgpack_object *rows = &unpacked.data.via.array.ptr [4];
    uint32_t size = 0;
    for (uint32_t index = 0; index < rows->via.array.size; index++) {
        const msgpack_object *row = &rows->via.array.ptr [index];
        const msgpack_object *name = &row->via.array.ptr [0];
        if (name->via.str.size == strlen (id)
        &&  memcmp (name->via.str.ptr, id, name->via.str.size) == 0)
            size = row->via.array.size;
    }
    msgpack_unpacked_destroy (&unpacked);
    return size;
}

//  The decoded row of worker id in a table (asserts it is there)
static const drover_worker_row_t *
s_row (drover_msg_t *table, const char *id)
{
    for (uint32_t index = 0; index < table->nrows; index++)
        if (streq (table->worker_rows [index].id, id))
            return &table->worker_rows [index];
    fail_msg ("no row for %s", id);
    return NULL;
}

//  A level-5 client gets level-5 rows, a level-6 client level-6 rows
static void
test_worker_rows_by_level (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (s_flags);
    drover_msg_t *welcome;
    zsock_t *elder = testutil_peer_worker (cluster->endpoint, "elder", 5, "", &welcome);
    assert_int_equal (welcome->heartbeat, 1000);    //  a small fleet: the setting
    assert_int_equal (welcome->level, DROVER_MSG_LEVEL);
    drover_msg_destroy (&welcome);
    zsock_t *gpu = testutil_peer_worker (cluster->endpoint, "gpu", 5, "gpu=2", NULL);
    zsock_t *young = testutil_peer_worker (cluster->endpoint, "young", DROVER_MSG_LEVEL, "", NULL);
    zsock_t *old_client = testutil_peer_client (cluster->endpoint, 5);
    zsock_t *new_client = testutil_peer_client (cluster->endpoint, DROVER_MSG_LEVEL);

    //  Level 5: 19 elements, 21 with devices; read back without heartbeat
    zframe_t *frame = s_list_at (old_client, 5);
    assert_int_equal (s_row_size (frame, "elder"), 19);
    assert_int_equal (s_row_size (frame, "gpu"), 21);
    assert_int_equal (s_row_size (frame, "young"), 19);
    drover_msg_t *table = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (table, zframe_data (frame), zframe_size (frame)), 0);
    assert_int_equal (table->nrows, 3);
    assert_true (table->implied <= 5);
    const drover_worker_row_t *row = s_row (table, "gpu");
    assert_string_equal (row->devices, "gpu=2");
    assert_int_equal (row->level, 5);
    assert_int_equal (row->heartbeat, 0);
    assert_true (row->lost_after == 0);
    assert_int_equal (s_row (table, "young")->level, DROVER_MSG_LEVEL);
    zframe_destroy (&frame);

    //  Level 6 to 8: 23 elements, each with its interval and lost span;
    //  level 9: 25, the offers held ahead after them
    frame = s_list_at (new_client, DROVER_MSG_LEVEL);
    assert_int_equal (s_row_size (frame, "elder"), 25);
    zframe_destroy (&frame);
    zsock_t *level_eight = testutil_peer_client (cluster->endpoint, 8);
    frame = s_list_at (level_eight, 8);
    zsock_destroy (&level_eight);
    assert_int_equal (s_row_size (frame, "elder"), 23);
    assert_int_equal (s_row_size (frame, "gpu"), 23);
    assert_int_equal (drover_msg_decode (table, zframe_data (frame), zframe_size (frame)), 0);
    for (uint32_t index = 0; index < table->nrows; index++) {
        assert_int_equal (table->worker_rows [index].heartbeat, 1000);
        assert_true (table->worker_rows [index].lost_after == 60000);
    }
    assert_string_equal (s_row (table, "gpu")->devices, "gpu=2");
    assert_null (s_row (table, "elder")->devices);
    zframe_destroy (&frame);
    drover_msg_destroy (&table);

    zsock_destroy (&old_client);
    zsock_destroy (&new_client);
    zsock_destroy (&elder);
    zsock_destroy (&gpu);
    zsock_destroy (&young);
    testutil_cluster_destroy (&cluster);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_worker_rows_by_level),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
