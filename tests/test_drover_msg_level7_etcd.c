/*  =========================================================================
    test_drover_msg_level7_etcd - QUEUE TABLE's strategy "rr" (level 7):
    a level-7 peer gets "rr", a level-6 peer exactly the old layout with
    the nearest value it knows, "spread"; other strategies go as they are
    =========================================================================
*/

#include "testutil.h"
#include "drover_msg.h"

//  A QUEUE TABLE with strategy and one queue
static drover_msg_t *
s_table (const char *strategy)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_QUEUE_TABLE);
    msg->seq = 4;
    snprintf (msg->strategy, sizeof msg->strategy, "%s", strategy);
    msg->nqueues = 1;
    msg->queue_rows = (drover_queue_row_t *) zmalloc (sizeof (drover_queue_row_t));
    strcpy (msg->queue_rows [0].name, "gpu");
    strcpy (msg->queue_rows [0].owner, "b2");
    strcpy (msg->queue_rows [0].owner_endpoint, "tcp://10.0.0.2:6001");
    msg->queue_rows [0].token = 42;
    msg->queue_rows [0].endpoints = strdup ("tcp://10.0.0.1:6001,tcp://10.0.0.2:6001");
    return msg;
}

//  Encode msg at level and decode it again: the strategy the peer reads
static void
s_round_trip (drover_msg_t *msg, int level, char *strategy, size_t size, size_t *bytes_p)
{
    zframe_t *frame = drover_msg_encode_level (msg, level);
    assert_non_null (frame);
    *bytes_p = zframe_size (frame);
    drover_msg_t *copy = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (copy, zframe_data (frame), zframe_size (frame)), 0);
    assert_int_equal (copy->id, DROVER_MSG_QUEUE_TABLE);
    assert_int_equal (copy->nqueues, 1);
    assert_string_equal (copy->queue_rows [0].owner, "b2");
    assert_int_equal (copy->queue_rows [0].token, 42);
    snprintf (strategy, size, "%s", copy->strategy);
    drover_msg_destroy (&copy);
    zframe_destroy (&frame);
}

//  rr at 7, spread at 6, byte for byte a spread table at 6
static void
test_rr_by_level (void **state)
{
    (void) state;
    char strategy [32];
    size_t rr7, rr6, spread6;
    drover_msg_t *msg = s_table ("rr");
    s_round_trip (msg, 7, strategy, sizeof strategy, &rr7);
    assert_string_equal (strategy, "rr");
    s_round_trip (msg, 6, strategy, sizeof strategy, &rr6);
    assert_string_equal (strategy, "spread");
    zframe_t *old = drover_msg_encode_level (msg, 6);
    drover_msg_t *spread = s_table ("spread");
    zframe_t *plain = drover_msg_encode_level (spread, 6);
    assert_true (zframe_eq (old, plain));           //  exactly the old layout
    s_round_trip (spread, 6, strategy, sizeof strategy, &spread6);
    assert_int_equal (rr6, spread6);
    assert_int_equal (rr7 + 4, rr6);                //  "rr" is 4 bytes shorter
    zframe_destroy (&old);
    zframe_destroy (&plain);
    drover_msg_destroy (&spread);
    drover_msg_destroy (&msg);
}

//  The older strategies go unchanged at every level
static void
test_others_unchanged (void **state)
{
    (void) state;
    const char *strategies [] = { "leader", "spread", "" };
    for (int index = 0; index < 3; index++) {
        drover_msg_t *msg = s_table (strategies [index]);
        for (int level = 6; level <= 7; level++) {
            char strategy [32];
            size_t bytes;
            s_round_trip (msg, level, strategy, sizeof strategy, &bytes);
            assert_string_equal (strategy, strategies [index]);
        }
        drover_msg_destroy (&msg);
    }
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_rr_by_level),
        cmocka_unit_test (test_others_unchanged),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
