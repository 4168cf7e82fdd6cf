/*  =========================================================================
    test_drover_msg_level7_service - what protocol level 7 added to the
    services' messages (PROTOCOL.md §7.33-7.37): SERVICE ADMIN's optional
    max-per-worker, a SERVICE TABLE service row's max-per-worker, and the
    placement figures at the end of the term statistics (SERVICE TABLE,
    PLAN RESULT). A peer of level 6 gets exactly the old layouts.
    =========================================================================
*/

#include "testcodec.h"

//  The array sizes of an encoded message: its fields (less the header of
//  4), its first service row's elements, its statistics' elements
typedef struct {
    uint32_t fields;            //  fields after the header
    uint32_t row;               //  SERVICE TABLE: elements of row 0, 0 none
    uint32_t stats;             //  SERVICE TABLE, PLAN RESULT: elements of the stats
    uint32_t after;             //  PLAN RESULT: elements of the stats after
} s_shape_t;

//  Read the shape of an encoded frame
static s_shape_t
s_shape (zframe_t *frame, int id)
{
    s_shape_t shape = { 0 };
    msgpack_unpacked unpacked;
    msgpack_unpacked_init (&unpacked);
    assert_int_equal (msgpack_unpack_next (&unpacked, (const char *) zframe_data (frame),
                                           zframe_size (frame), NULL), MSGPACK_UNPACK_SUCCESS);
    const msgpack_object *message = &unpacked.data;
    assert_int_equal (message->type, MSGPACK_OBJECT_ARRAY);
    shape.fields = message->via.array.size - 4;
    if (id == DROVER_MSG_SERVICE_TABLE || id == DROVER_MSG_PLAN_RESULT)
        shape.stats = message->via.array.ptr [4].via.array.size;
    if (id == DROVER_MSG_PLAN_RESULT)
        shape.after = message->via.array.ptr [5].via.array.size;
    if (id == DROVER_MSG_SERVICE_TABLE) {
        const msgpack_object *rows = &message->via.array.ptr [5];
        if (rows->via.array.size)
            shape.row = rows->via.array.ptr [0].via.array.size;
    }
    msgpack_unpacked_destroy (&unpacked);
    return shape;
}

//  Fill level 7's placement figures
static void
s_figures (drover_service_stats_t *stats)
{
    stats->term = 9;
    stats->complete = 1;
    stats->running = 4;
    stats->best = 3;
    stats->not_best = 1;
    stats->ranks [0] = 3;
    stats->ranks [2] = 1;
    stats->capped = 1;
    stats->rebalanced = 2;
}

//  A SERVICE TABLE with one service of max-per-worker 1
static drover_msg_t *
s_table (void)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_SERVICE_TABLE);
    msg->seq = 3;
    s_figures (&msg->stats_now);
    msg->nservices = 1;
    msg->service_rows = (drover_service_row_t *) zmalloc (sizeof (drover_service_row_t));
    drover_service_row_t *row = &msg->service_rows [0];
    strcpy (row->name, "web");
    row->replicas = 4;
    row->procs = 1;
    row->running = 3;
    row->state = DROVER_SERVICE_UNDER;
    row->max_per_worker = 1;
    strcpy (row->why, "slot 3 waits: max-per-worker 1: 3 eligible workers hold at most 3");
    return msg;
}

//  SERVICE TABLE: level 7 sends a row of 14 and statistics of 24, read
//  back whole; level 6 (and drover_msg_fit for a level-6 peer) the old 13
//  and 19, which read back without the new values
static void
test_service_table_levels (void **state)
{
    drover_msg_t *msg = s_table ();
    zframe_t *frame = drover_msg_encode (msg);
    assert_non_null (frame);
    s_shape_t shape = s_shape (frame, DROVER_MSG_SERVICE_TABLE);
    assert_int_equal (shape.row, 14);
    assert_int_equal (shape.stats, 24);
    drover_msg_t *copy = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (copy, zframe_data (frame), zframe_size (frame)), 0);
    assert_int_equal (copy->service_rows [0].max_per_worker, 1);
    assert_int_equal (copy->stats_now.best, 3);
    assert_int_equal (copy->stats_now.not_best, 1);
    assert_int_equal (copy->stats_now.ranks [2], 1);
    assert_int_equal (copy->stats_now.capped, 1);
    assert_int_equal (copy->stats_now.rebalanced, 2);
    drover_msg_destroy (&copy);

    //  To a level-6 peer: exactly the old layout
    zframe_t *old = drover_msg_encode_level (msg, 6);
    assert_non_null (old);
    shape = s_shape (old, DROVER_MSG_SERVICE_TABLE);
    assert_int_equal (shape.row, 13);
    assert_int_equal (shape.stats, 19);
    copy = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (copy, zframe_data (old), zframe_size (old)), 0);
    assert_string_equal (copy->service_rows [0].name, "web");
    assert_int_equal (copy->service_rows [0].max_per_worker, 0);
    assert_int_equal (copy->stats_now.term, 9);
    assert_int_equal (copy->stats_now.best, 0);
    assert_int_equal (copy->stats_now.capped, 0);
    drover_msg_destroy (&copy);
    zframe_destroy (&old);

    //  The main fits what it sends to the peer's level
    zframe_t *fitted = drover_msg_encode (msg);
    zframe_t *original = fitted;
    assert_int_equal (drover_msg_fit (&fitted, 7), 0);
    assert_ptr_equal (fitted, original);
    assert_int_equal (drover_msg_fit (&fitted, 6), 0);
    assert_ptr_not_equal (fitted, original);
    shape = s_shape (fitted, DROVER_MSG_SERVICE_TABLE);
    assert_int_equal (shape.row, 13);
    assert_int_equal (shape.stats, 19);
    zframe_destroy (&fitted);
    zframe_destroy (&frame);
    drover_msg_destroy (&msg);
}

//  PLAN RESULT: both statistics grow at level 7 only
static void
test_plan_result_levels (void **state)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_PLAN_RESULT);
    s_figures (&msg->stats_now);
    s_figures (&msg->stats_after);
    msg->stats_after.not_best = 0;
    zframe_t *frame = drover_msg_encode (msg);
    s_shape_t shape = s_shape (frame, DROVER_MSG_PLAN_RESULT);
    assert_int_equal (shape.stats, 24);
    assert_int_equal (shape.after, 24);
    zframe_t *old = drover_msg_encode_level (msg, 6);
    shape = s_shape (old, DROVER_MSG_PLAN_RESULT);
    assert_int_equal (shape.stats, 19);
    assert_int_equal (shape.after, 19);
    drover_msg_t *copy = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (copy, zframe_data (frame), zframe_size (frame)), 0);
    assert_int_equal (copy->stats_after.rebalanced, 2);
    assert_int_equal (copy->stats_now.not_best, 1);
    drover_msg_destroy (&copy);
    zframe_destroy (&old);
    zframe_destroy (&frame);
    drover_msg_destroy (&msg);
}

//  SERVICE ADMIN create: max-per-worker is an optional field at its end,
//  sent only with a value; a message carrying it shows level 7 (a level-6
//  broker, which has one field fewer, refuses it); without it the message
//  is as level 6 sent it
static void
test_service_admin_field (void **state)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_SERVICE_ADMIN);
    msg->action = DROVER_SERVICE_CREATE;
    strcpy (msg->service, "web");
    msg->count = 4;
    msg->procs = 1;
    zframe_t *plain = drover_msg_encode (msg);
    assert_int_equal (s_shape (plain, DROVER_MSG_SERVICE_ADMIN).fields, 8);
    drover_msg_t *copy = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (copy, zframe_data (plain), zframe_size (plain)), 0);
    assert_true (drover_msg_level (copy) < 7);
    assert_int_equal (copy->max_per_worker, 0);
    drover_msg_destroy (&copy);

    msg->max_per_worker = 1;
    zframe_t *capped = drover_msg_encode (msg);
    assert_int_equal (s_shape (capped, DROVER_MSG_SERVICE_ADMIN).fields, 9);
    copy = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (copy, zframe_data (capped), zframe_size (capped)), 0);
    assert_int_equal (copy->max_per_worker, 1);
    assert_int_equal (drover_msg_level (copy), 7);
    drover_msg_destroy (&copy);
    //  Encoded for a level-6 peer, the field is left out
    zframe_t *old = drover_msg_encode_level (msg, 6);
    assert_int_equal (s_shape (old, DROVER_MSG_SERVICE_ADMIN).fields, 8);
    zframe_destroy (&old);
    zframe_destroy (&capped);
    zframe_destroy (&plain);
    drover_msg_destroy (&msg);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_service_table_levels),
        cmocka_unit_test (test_plan_result_levels),
        cmocka_unit_test (test_service_admin_field),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
