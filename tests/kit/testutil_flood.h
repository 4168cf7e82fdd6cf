/*  =========================================================================
    testutil_flood - a CURVE broker under floods (test_security_flood_
    preauth and _authed): the keys of a test and the broker started on
    them, a worker's registration and the broker's task count timed over
    its own connections, garbage of three kinds over plain TCP, and the
    noise: an actor that keeps handshakes with unknown keys or no CURVE
    and plain garbage connections in flight, in a ZeroMQ context of its
    own, counting what the broker let through (nothing, it asserts).
    =========================================================================
*/

#ifndef TESTUTIL_FLOOD_H_INCLUDED
#define TESTUTIL_FLOOD_H_INCLUDED

#include "testutil_proc.h"
#include "testutil_keys.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"

//  msec a connection has to finish its handshake (security/handshake)
#define TESTUTIL_FLOOD_HANDSHAKE    1000
//  Most handshakes the noise keeps in flight at once
#define TESTUTIL_NOISE_MAX          128

//  The keys of one test and its broker
typedef struct {
    char dir [64];              //  temp directory: broker.key, keys/
    char broker_key [128];      //  the broker's key pair file
    char keys [128];            //  the keys directory (--keys)
    zcert_t *broker;            //  the broker's pair
    zcert_t *worker;            //  workers/node.key
    zcert_t *client;            //  clients/alice.key
    zcert_t *admin;             //  admins/ops.key
    testutil_cluster_t *cluster;    //  the broker, started on these keys
} testutil_flood_t;

//  The noise's settings and what it counted (see testutil_noise_new)
typedef struct _testutil_noise_t testutil_noise_t;

//  Make the keys and start a CURVE broker on them with more flags
//  (NULL-terminated)
testutil_flood_t *
    testutil_flood_new (const char *settings []);

//  Stop the broker and remove the keys
void
    testutil_flood_destroy (testutil_flood_t **self_p);

//  A DEALER to the broker speaking CURVE with a key pair
zsock_t *
    testutil_flood_dealer (testutil_flood_t *self, zcert_t *pair);

//  A worker's key registers worker id on a new connection: HELLO answered
//  WELCOME. Returns the msec it took.
int64_t
    testutil_flood_register (testutil_flood_t *self, const char *id);

//  Tasks the broker holds in any state, asked with the admin's key
uint64_t
    testutil_flood_task_count (testutil_flood_t *self);

//  The next number of a small xorshift generator: garbage, not secrets
uint32_t
    testutil_flood_random (uint32_t *state);

//  Garbage of one of three kinds into buffer (size at least 512); returns
//  its length. 0: random bytes that do not start like ZMTP 2 or 3 (a
//  ZMTP 1.0 peer, which a broker with ZAP refuses); 1: ZMTP's signature
//  then noise; 2: a whole ZMTP 3.0 greeting asking for CURVE, then a HELLO
//  command of the right name and the wrong size and contents
size_t
    testutil_flood_garbage (byte *buffer, int kind, uint32_t *state);

//  A plain TCP connection to the broker's ROUTER, non-blocking once made
int
    testutil_tcp_connect (int port);

//  Read what a plain connection has; true once the broker closed it (end
//  of file, or reset: it may close with our garbage unread)
bool
    testutil_tcp_drained_closed (int fd);

//  Make the noise's settings for a fixture's broker: start it with
//  testutil_noise_start, end it with zactor_destroy, check and free it with
//  testutil_noise_check_free
testutil_noise_t *
    testutil_noise_new (testutil_flood_t *fixture, int curve_slots, int null_slots,
                        int raw_slots);

//  Start the noise and wait until the broker has refused 300 of
//  its handshakes
zactor_t *
    testutil_noise_start (testutil_noise_t *noise);

//  Say what the noise did, check the broker let none of it through, free
void
    testutil_noise_check_free (testutil_noise_t **self_p, uint64_t at_least);

//  Raise our descriptor limit to the hard one: this test holds a thousand
//  plain connections and the noise's sockets; the broker, our child,
//  inherits it (and raises its own the same way, drover_connwatch)
void
    testutil_raise_fd_limit (int needed);

#endif
