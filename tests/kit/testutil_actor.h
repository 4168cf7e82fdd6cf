/*  =========================================================================
    testutil_actor - playing the broker main to one actor over its pipe (and the
    other actor at the end of its link): handing it wire messages and
    records in BATCHes, reading what it says one command at a time
    =========================================================================
*/

#ifndef TESTUTIL_ACTOR_H_INCLUDED
#define TESTUTIL_ACTOR_H_INCLUDED

#include "testutil.h"
#include "drover_msg.h"
#include "drover_outbox.h"

//  Destroy an actor whose commands the tests read (testutil_expect...),
//  forgetting those still pending, so that a later actor made at the same
//  address is not served this one's leftovers
void
    testutil_actor_destroy (zactor_t **actor_p);

//  Receive the actor's next command within timeout msec, one at a time
//  out of the BATCHes it says (drover_outbox); NULL on timeout
zmsg_t *
    testutil_actor_recv (zactor_t *actor, int timeout);

//  Receive the actor's next command within timeout msec and check its
//  command word; returns the rest of the message (caller destroys)
zmsg_t *
    testutil_expect (zactor_t *actor, const char *command, int timeout);

//  Pop a string frame and check it
void
    testutil_pop_check (zmsg_t *msg, const char *expected);

//  Assert that msg's frames, read as text, are exactly the strings in args
//  (NULL-terminated), then destroy it
void
    testutil_assert_frames (zmsg_t **msg_p, va_list args);

//  Expect SEND to route for worker ("" for a client) within 2 s; return
//  its decoded payload (caller destroys)
drover_msg_t *
    testutil_expect_send (zactor_t *actor, const char *route, const char *worker);

//  Expect EVENT topic within 2 s, its body about worker with reason
//  (reason NULL: not checked)
void
    testutil_expect_event (zactor_t *actor, const char *topic, const char *worker,
                           const char *reason);

//  Hand the actor a wire message from route, as the record MSG in a
//  BATCH, as the main does; the actor owns msg now
void
    testutil_hand (zactor_t *actor, const char *route, drover_msg_t *msg);

//  testutil_hand with a route of route_size bytes
void
    testutil_hand_bytes (zactor_t *actor, const byte *route, size_t route_size,
                         drover_msg_t *msg);

//  Say the record QUEUE on a link to schedq in a BATCH, as assign does
void
    testutil_say_queue (zsock_t *link, uint64_t task, int32_t priority, uint32_t procs,
                        uint64_t mem, const char *labels);

//  Send what an outbox holds to an actor (or a link) as one BATCH, as the
//  main and the actors do at the end of a turn, and destroy the outbox:
//  commands said in one turn are read in one turn
void
    testutil_say_batch (void *to, drover_outbox_t **outbox_p);

//  Say the record FREE on a link to schedq in a BATCH, as assign does
void
    testutil_say_free (zsock_t *link, uint64_t task);

//  Say the record ASSIGN on a link to assign in a BATCH, as schedq does
void
    testutil_say_assign (zsock_t *link, uint64_t task, const char *worker);

//  Receive the next command said on a link (assign and schedq trade
//  QUEUE, FREE, ASSIGN... on it: ACTORS.md) within timeout msec and check
//  its command word; returns the rest of it (caller destroys)
zmsg_t *
    testutil_expect_link (zsock_t *link, const char *command, int timeout);

//  Receive the next command said on a link within timeout msec (0: only
//  what is there already); NULL if none (caller destroys)
zmsg_t *
    testutil_link_recv (zsock_t *link, int timeout);

//  Bind a PAIR on a fresh inproc endpoint, written to endpoint, for an
//  actor to connect its link to (the test plays the other actor)
zsock_t *
    testutil_link_bind (char *endpoint, size_t size);

#endif
