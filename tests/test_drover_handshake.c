/*  =========================================================================
    test_drover_handshake - what a plain connection's handshake monitor
    takes for a refusal: a CURVE-only broker, every time and at once (its
    close can beat its greeting), a listener that closes every connection
    during the handshake; and what it does not: one close, then a broker
    that answers
    =========================================================================
*/

#include "testutil.h"
#include "drover_handshake.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

//  How long a refusal may take to be said (ZeroMQ's reconnects at 100 ms,
//  doubling, give a close three tries within 700 ms)
#define S_SAID_WITHIN   2000

//  A plain DEALER that reconnects as the client's does, watched
typedef struct {
    zsock_t *dealer;
    drover_handshake_t *handshake;
} s_peer_t;

//  Watch a new plain DEALER and connect it to port on loopback
static s_peer_t
s_peer_new (int port)
{
    s_peer_t peer;
    peer.dealer = zsock_new (ZMQ_DEALER);
    assert_non_null (peer.dealer);
    zsock_set_linger (peer.dealer, 0);
    zsock_set_reconnect_ivl (peer.dealer, 100);
    zsock_set_reconnect_ivl_max (peer.dealer, 2000);
    peer.handshake = drover_handshake_new (peer.dealer, false);
    assert_int_equal (zsock_connect (peer.dealer, "tcp://127.0.0.1:%d", port), 0);
    return peer;
}

//  Stop watching and drop the DEALER
static void
s_peer_destroy (s_peer_t *peer)
{
    drover_handshake_destroy (&peer->handshake);
    zsock_destroy (&peer->dealer);
}

//  Wait up to msec for the monitor's verdict; listener, if not -1, has each
//  connection it accepts closed at once, counted in closed_p. Returns 1
//  (a handshake succeeded), -1 (refused) or 0 (nothing by then).
static int
s_await_outcome (s_peer_t *peer, int msec, int listener, int *closed_p)
{
    int64_t deadline = zclock_mono () + msec;
    while (zclock_mono () < deadline) {
        if (listener != -1) {
            int accepted;
            while ((accepted = accept (listener, NULL, NULL)) != -1) {
                close (accepted);
                (*closed_p)++;
            }
        }
        zsock_t *monitor = drover_handshake_sock (peer->handshake);
        zmq_pollitem_t items [] = { { zsock_resolve (monitor), 0, ZMQ_POLLIN, 0 },
                                    { NULL, listener, ZMQ_POLLIN, 0 } };
        zmq_poll (items, listener == -1? 1: 2, 100);
        int outcome = drover_handshake_read (peer->handshake);
        if (outcome)
            return outcome;
    }
    return 0;
}

//  A non-blocking TCP listener on a free loopback port; sets *port_p
static int
s_listener_new (int *port_p)
{
    int listener = socket (AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    assert_true (listener >= 0);
    int on = 1;
    assert_int_equal (setsockopt (listener, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on), 0);
    struct sockaddr_in address = { .sin_family = AF_INET };
    address.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    assert_int_equal (bind (listener, (struct sockaddr *) &address, sizeof address), 0);
    assert_int_equal (listen (listener, 16), 0);
    socklen_t length = sizeof address;
    assert_int_equal (getsockname (listener, (struct sockaddr *) &address, &length), 0);
    *port_p = ntohs (address.sin_port);
    return listener;
}

//  A plain connection to a CURVE-only broker is refused, each time, well
//  within the limit: whether the broker's greeting or its close comes first
static void
test_curve_only_broker_refuses_at_once (void **state)
{
    zcert_t *cert = zcert_new ();
    zsock_t *router = zsock_new (ZMQ_ROUTER);
    zcert_apply (cert, router);
    zsock_set_curve_server (router, 1);
    int port = zsock_bind (router, "tcp://127.0.0.1:*");
    assert_true (port > 0);
    for (int round = 0; round < 20; round++) {
        s_peer_t peer = s_peer_new (port);
        int64_t started = zclock_mono ();
        int outcome = s_await_outcome (&peer, 3 * S_SAID_WITHIN, -1, NULL);
        int64_t elapsed = zclock_mono () - started;
        const char *reason = drover_handshake_reason (peer.handshake);
        if (outcome != -1 || elapsed >= S_SAID_WITHIN
        ||  !strstr (reason, "the broker refused this connection"))
            fail_msg ("round %d: outcome %d in %lld msec: \"%s\"", round, outcome,
                      (long long) elapsed, reason);
        s_peer_destroy (&peer);
    }
    zsock_destroy (&router);
    zcert_destroy (&cert);
}

//  A listener that closes every connection during the handshake refuses
//  us: said after a few tries, not never
static void
test_closed_every_time_is_a_refusal (void **state)
{
    int port = 0;
    int listener = s_listener_new (&port);
    s_peer_t peer = s_peer_new (port);
    int closed = 0;
    int64_t started = zclock_mono ();
    int outcome = s_await_outcome (&peer, 3 * S_SAID_WITHIN, listener, &closed);
    int64_t elapsed = zclock_mono () - started;
    const char *reason = drover_handshake_reason (peer.handshake);
    if (outcome != -1 || elapsed >= S_SAID_WITHIN
    ||  !strstr (reason, "the connection closed during the handshake"))
        fail_msg ("outcome %d in %lld msec after %d closes: \"%s\"", outcome,
                  (long long) elapsed, closed, reason);
    assert_true (closed >= 2);
    assert_int_equal (drover_handshake_refusals (peer.handshake), 1);
    s_peer_destroy (&peer);
    close (listener);
}

//  One close during the handshake (a broker going away), then a broker
//  that answers: no refusal, the connection comes up
static void
test_one_close_then_a_broker_is_no_refusal (void **state)
{
    int port = 0;
    int listener = s_listener_new (&port);
    s_peer_t peer = s_peer_new (port);
    //  Take the first connection and close it
    int closed = 0;
    int64_t deadline = zclock_mono () + S_SAID_WITHIN;
    while (closed == 0 && zclock_mono () < deadline) {
        zmq_pollitem_t item = { NULL, listener, ZMQ_POLLIN, 0 };
        zmq_poll (&item, 1, 100);
        int accepted = accept (listener, NULL, NULL);
        if (accepted != -1) {
            close (accepted);
            closed++;
        }
    }
    assert_int_equal (closed, 1);
    close (listener);
    //  A plain broker takes the port; the next try reaches it
    zsock_t *router = zsock_new (ZMQ_ROUTER);
    assert_int_equal (zsock_bind (router, "tcp://127.0.0.1:%d", port), port);
    int outcome = s_await_outcome (&peer, 3 * S_SAID_WITHIN, -1, NULL);
    assert_int_equal (outcome, 1);
    assert_int_equal (drover_handshake_refusals (peer.handshake), 0);
    assert_true (drover_handshake_up (peer.handshake));
    s_peer_destroy (&peer);
    zsock_destroy (&router);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_curve_only_broker_refuses_at_once),
        cmocka_unit_test (test_closed_every_time_is_a_refusal),
        cmocka_unit_test (test_one_close_then_a_broker_is_no_refusal),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
