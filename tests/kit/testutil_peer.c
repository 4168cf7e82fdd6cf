/*  =========================================================================
    testutil_peer - peers of an older protocol level, played at the wire
    =========================================================================
*/

#include "testutil_peer.h"
#include "drover_devicelist.h"

//  Encode msg at level and send it on sock (destroys msg)
void
testutil_peer_send_at (zsock_t *sock, drover_msg_t **msg_p, int level)
{
    zframe_t *frame = drover_msg_encode_level (*msg_p, level);
    assert_non_null (frame);
    assert_int_equal (zframe_send (&frame, sock, 0), 0);
    drover_msg_destroy (msg_p);
}

//  Receive the next frame on sock that decodes as a message of id,
//  skipping others, as it came
zframe_t *
testutil_peer_expect_frame (zsock_t *sock, int id)
{
    int64_t deadline = zclock_mono () + TESTUTIL_PEER_WAIT;
    drover_msg_t *msg = drover_msg_new (0);
    while (zclock_mono () < deadline) {
        zsock_set_rcvtimeo (sock, (int) (deadline - zclock_mono ()));
        zframe_t *frame = zframe_recv (sock);
        if (frame && drover_msg_decode (msg, zframe_data (frame), zframe_size (frame)) == 0
        &&  msg->id == id) {
            drover_msg_destroy (&msg);
            return frame;
        }
        zframe_destroy (&frame);
    }
    drover_msg_destroy (&msg);
    fail_msg ("no message %d within %d msec", id, TESTUTIL_PEER_WAIT);
    return NULL;
}

//  Receive the next message on sock of id, decoded, that a peer of level
//  could read
drover_msg_t *
testutil_peer_expect_at (zsock_t *sock, int id, int level)
{
    int64_t deadline = zclock_mono () + TESTUTIL_PEER_WAIT;
    while (zclock_mono () < deadline) {
        drover_msg_t *msg = testutil_recv_msg (sock, (int) (deadline - zclock_mono ()));
        if (msg && msg->id == id) {
            assert_true (msg->implied <= level);
            return msg;
        }
        drover_msg_destroy (&msg);
    }
    fail_msg ("no message %d within %d msec", id, TESTUTIL_PEER_WAIT);
    return NULL;
}

//  Register a played worker of level at endpoint; returns its DEALER
zsock_t *
testutil_peer_worker (const char *endpoint, const char *id, int level, const char *devices,
                      drover_msg_t **welcome_p)
{
    zsock_t *worker = zsock_new_dealer (endpoint);
    assert_non_null (worker);
    drover_msg_t *hello = testutil_played_msg (id, 2, DROVER_MSG_WORKER_HELLO, 0, 0);
    hello->level = (uint16_t) level;
    int count = drover_devicelist_parse (devices, hello->devices, NULL);
    assert_true (count >= 0);
    hello->ndevices = (uint32_t) count;
    testutil_peer_send_at (worker, &hello, level);
    drover_msg_t *welcome = testutil_peer_expect_at (worker, DROVER_MSG_WORKER_WELCOME, level);
    if (welcome_p)
        *welcome_p = welcome;
    else
        drover_msg_destroy (&welcome);
    return worker;
}

//  A client of level at endpoint; returns its DEALER
zsock_t *
testutil_peer_client (const char *endpoint, int level)
{
    zsock_t *client = zsock_new_dealer (endpoint);
    assert_non_null (client);
    drover_msg_t *hello = drover_msg_new (DROVER_MSG_CLIENT_HELLO);
    hello->level = (uint16_t) level;
    testutil_peer_send_at (client, &hello, level);
    drover_msg_t *welcome = testutil_peer_expect_at (client, DROVER_MSG_CLIENT_WELCOME, level);
    drover_msg_destroy (&welcome);
    return client;
}
