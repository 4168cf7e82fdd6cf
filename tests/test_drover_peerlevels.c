/*  =========================================================================
    test_drover_peerlevels - the protocol level of each peer connection,
    and what the broker sends each (a plain class: no sockets)
    =========================================================================
*/

#include "testutil_wire.h"
#include "drover_peerlevels.h"

//  A route of the 5-byte kind libzmq makes: 0, then a counter
static const byte *
s_route (uint32_t counter, byte *buffer)
{
    buffer [0] = 0;
    memcpy (buffer + 1, &counter, 4);
    return buffer;
}

//  Decode a frame into a new message, asserting it decodes
static drover_msg_t *
s_decoded (zframe_t *frame)
{
    drover_msg_t *msg = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (msg, zframe_data (frame), zframe_size (frame)), 0);
    return msg;
}

//  Tell the table that route sent msg as a peer of level would encode it
static void
s_heard (drover_peerlevels_t *levels, const byte *route, drover_msg_t *msg, int level)
{
    zframe_t *frame = drover_msg_encode_level (msg, level);
    assert_non_null (frame);
    drover_msg_t *decoded = s_decoded (frame);
    drover_peerlevels_heard (levels, route, 5, decoded);
    drover_msg_destroy (&decoded);
    zframe_destroy (&frame);
}

//  A connection nothing showed a level for is of level 1; a HELLO sets
//  the level it declares; a later level's id or fields raise a client's
static void
test_levels_said_and_shown (void **state)
{
    drover_peerlevels_t *levels = drover_peerlevels_new (16);
    byte a [5], b [5], c [5];
    s_route (1, a);
    s_route (2, b);
    s_route (3, c);
    assert_int_equal (drover_peerlevels_level (levels, a, 5), 1);

    drover_msg_t *hello = testutil_played_msg ("w1", 2, DROVER_MSG_WORKER_HELLO, 0, 0);
    s_heard (levels, a, hello, DROVER_MSG_LEVEL);
    assert_int_equal (drover_peerlevels_level (levels, a, 5), DROVER_MSG_LEVEL);
    assert_int_equal (drover_peerlevels_size (levels), 1);
    //  The same connection says HELLO of level 1: down it goes
    s_heard (levels, a, hello, 1);
    assert_int_equal (drover_peerlevels_level (levels, a, 5), 1);
    assert_int_equal (drover_peerlevels_size (levels), 0);

    //  A worker of the releases between 0.1 and 0.2: a state id in HELLO
    //  (which shows level 2, test_drover_msg_levels), no level. It stays of level
    //  1: its WELCOME must not carry a level, which it would refuse
    zframe_t *frame = drover_msg_encode (hello);
    drover_msg_t *decoded = s_decoded (frame);
    zframe_destroy (&frame);
    decoded->level = 0;                     //  as decoded from its seven fields
    decoded->implied = 2;
    drover_peerlevels_heard (levels, a, 5, decoded);
    assert_int_equal (drover_peerlevels_level (levels, a, 5), 1);
    drover_msg_destroy (&decoded);
    drover_msg_destroy (&hello);

    //  A client: CLIENT HELLO sets its level; a SUBMIT with a key (a field
    //  level 1 lacks) raises a connection that said nothing
    drover_msg_t *client = drover_msg_new (DROVER_MSG_CLIENT_HELLO);
    s_heard (levels, b, client, DROVER_MSG_LEVEL);
    assert_int_equal (drover_peerlevels_level (levels, b, 5), DROVER_MSG_LEVEL);
    drover_msg_destroy (&client);
    drover_msg_t *submit = testutil_submit_msg ("true", 0, 1, 0);
    s_heard (levels, c, submit, DROVER_MSG_LEVEL);
    assert_int_equal (drover_peerlevels_level (levels, c, 5), 1);     //  no key: level 1's
    submit->key = strdup ("batch-7");
    s_heard (levels, c, submit, DROVER_MSG_LEVEL);
    assert_int_equal (drover_peerlevels_level (levels, c, 5), 2);
    //  ... and a message of level 1 does not lower it
    drover_msg_destroy (&submit);
    submit = testutil_submit_msg ("true", 0, 1, 0);
    s_heard (levels, c, submit, 1);
    assert_int_equal (drover_peerlevels_level (levels, c, 5), 2);
    drover_msg_destroy (&submit);
    drover_peerlevels_destroy (&levels);
    drover_peerlevels_destroy (&levels);            //  harmless twice
}

//  What goes out: as it is to this level, re-encoded to level 1, not at
//  all when level 1 has no such message, a REDIRECT as ERROR 300
static void
test_fitted_to_each_peer (void **state)
{
    drover_peerlevels_t *levels = drover_peerlevels_new (16);
    byte old [5], new [5];
    s_route (10, old);
    s_route (11, new);
    drover_msg_t *client = drover_msg_new (DROVER_MSG_CLIENT_HELLO);
    s_heard (levels, new, client, DROVER_MSG_LEVEL);
    drover_msg_destroy (&client);

    drover_msg_t *welcome = drover_msg_new (DROVER_MSG_WORKER_WELCOME);
    welcome->heartbeat = 500;
    strcpy (welcome->state_id, "0123456789abcdef0123456789abcdef");
    zframe_t *frame = drover_msg_encode (welcome);
    zframe_t *same = frame;
    assert_int_equal (drover_peerlevels_fit (levels, new, 5, &frame), 0);
    assert_ptr_equal (frame, same);                 //  untouched: the common case
    assert_int_equal (drover_peerlevels_fit (levels, old, 5, &frame), 0);
    assert_int_equal (zframe_data (frame) [0], 0x95);   //  [DRV, 1, id, seq, heartbeat]
    zframe_destroy (&frame);
    drover_msg_destroy (&welcome);
    assert_int_equal (drover_peerlevels_fitted (levels), 1);

    drover_msg_t *gather = drover_msg_new (DROVER_MSG_WORKER_GATHER);
    frame = drover_msg_encode (gather);
    assert_int_equal (drover_peerlevels_fit (levels, old, 5, &frame), -1);
    assert_null (frame);
    assert_int_equal (drover_peerlevels_unsent (levels), 1);
    drover_msg_destroy (&gather);

    drover_msg_t *redirect = drover_msg_new (DROVER_MSG_REDIRECT);
    redirect->seq = 12;
    strcpy (redirect->leader, "tcp://10.0.0.2:5555");
    strcpy (redirect->leader_name, "b2");
    frame = drover_msg_encode (redirect);
    assert_int_equal (drover_peerlevels_fit (levels, old, 5, &frame), 0);
    drover_msg_t *told = s_decoded (frame);
    assert_int_equal (told->id, DROVER_MSG_ERROR);
    assert_int_equal (told->code, DROVER_CODE_RETRY);
    assert_int_equal (told->seq, 12);
    assert_non_null (strstr (told->reason, "b2 at tcp://10.0.0.2:5555"));
    drover_msg_destroy (&told);
    zframe_destroy (&frame);
    drover_msg_destroy (&redirect);
    drover_peerlevels_destroy (&levels);
}

//  Past its size the table forgets its oldest routes (they speak level 1
//  again), and the cache in front of it forgets them too
static void
test_oldest_forgotten_past_size (void **state)
{
    drover_peerlevels_t *levels = drover_peerlevels_new (3);
    byte route [5];
    drover_msg_t *client = drover_msg_new (DROVER_MSG_CLIENT_HELLO);
    for (uint32_t counter = 1; counter <= 4; counter++) {
        s_heard (levels, s_route (counter, route), client, DROVER_MSG_LEVEL);
        assert_int_equal (drover_peerlevels_level (levels, route, 5), DROVER_MSG_LEVEL);
    }
    drover_msg_destroy (&client);
    assert_int_equal (drover_peerlevels_size (levels), 3);
    assert_int_equal (drover_peerlevels_level (levels, s_route (1, route), 5), 1);
    assert_int_equal (drover_peerlevels_level (levels, s_route (2, route), 5), DROVER_MSG_LEVEL);
    assert_int_equal (drover_peerlevels_level (levels, s_route (4, route), 5), DROVER_MSG_LEVEL);
    //  A long route (set by hand on a peer's socket) works the same
    byte long_route [32];
    memset (long_route, 'r', sizeof long_route);
    client = drover_msg_new (DROVER_MSG_CLIENT_HELLO);
    zframe_t *frame = drover_msg_encode (client);
    drover_msg_t *decoded = s_decoded (frame);
    drover_peerlevels_heard (levels, long_route, sizeof long_route, decoded);
    assert_int_equal (drover_peerlevels_level (levels, long_route, sizeof long_route),
                      DROVER_MSG_LEVEL);
    drover_msg_destroy (&decoded);
    zframe_destroy (&frame);
    drover_msg_destroy (&client);
    drover_peerlevels_destroy (&levels);
}

//  CLIENT WELCOME: this broker's level, release and name, the seq echoed
static void
test_welcome_says_our_level (void **state)
{
    drover_msg_t *hello = drover_msg_new (DROVER_MSG_CLIENT_HELLO);
    hello->seq = 77;
    drover_msg_t *welcome = drover_peerlevels_welcome (hello, "b1");
    assert_int_equal (welcome->id, DROVER_MSG_CLIENT_WELCOME);
    assert_int_equal (welcome->seq, 77);
    assert_int_equal (welcome->level, DROVER_MSG_LEVEL);
    assert_string_equal (welcome->release, DROVER_RELEASE);
    assert_string_equal (welcome->leader_name, "b1");
    drover_msg_destroy (&welcome);
    welcome = drover_peerlevels_welcome (hello, "not a name");
    assert_string_equal (welcome->leader_name, "");
    drover_msg_destroy (&welcome);
    drover_msg_destroy (&hello);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_levels_said_and_shown),
        cmocka_unit_test (test_fitted_to_each_peer),
        cmocka_unit_test (test_oldest_forgotten_past_size),
        cmocka_unit_test (test_welcome_says_our_level),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
