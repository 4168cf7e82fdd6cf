/*  =========================================================================
    testutil_peer - peers of an older protocol level, played at the wire
    (the compatibility tests, test_compat_level*): requests encoded at that
    level on a DEALER, as a client or worker of that release would send
    them, and each answer waited for with a deadline, as it came or
    decoded
    =========================================================================
*/

#ifndef TESTUTIL_PEER_H_INCLUDED
#define TESTUTIL_PEER_H_INCLUDED

#include "testutil_wire.h"

//  msec any one answer may take
#define TESTUTIL_PEER_WAIT      10000

//  Encode msg at level and send it on sock (destroys msg)
void
    testutil_peer_send_at (zsock_t *sock, drover_msg_t **msg_p, int level);

//  Receive the next frame on sock that decodes as a message of id,
//  skipping others, as it came; fails if none comes in time
zframe_t *
    testutil_peer_expect_frame (zsock_t *sock, int id);

//  Receive the next message on sock of id, skipping others, decoded;
//  asserts it comes and that a peer of level could read it (it shows no
//  higher level)
drover_msg_t *
    testutil_peer_expect_at (zsock_t *sock, int id, int level);

//  Register a played worker of level (devices "" none) at endpoint;
//  returns its DEALER, and its WELCOME in *welcome_p if welcome_p
zsock_t *
    testutil_peer_worker (const char *endpoint, const char *id, int level, const char *devices,
                          drover_msg_t **welcome_p);

//  A client of level at endpoint: its CLIENT HELLO sent, the broker's
//  CLIENT WELCOME taken; returns its DEALER
zsock_t *
    testutil_peer_client (const char *endpoint, int level);

#endif
