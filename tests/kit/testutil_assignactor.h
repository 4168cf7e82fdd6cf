/*  =========================================================================
    testutil_assignactor - playing the main and schedq to the assign actor
    (test_drover_assign_actor): the test plays the main on the actor's pipe
    (MSG records in a BATCH, UP, LOST) and schedq on its link (ASSIGN in;
    QUEUE, DEQUEUE, FREE, PROBATION out), and reads back in order on each
    what the actor says; SEND payloads are decoded with the codec
    =========================================================================
*/

#ifndef TESTUTIL_ASSIGNACTOR_H_INCLUDED
#define TESTUTIL_ASSIGNACTOR_H_INCLUDED

#include "testutil.h"
#include "drover_msg.h"

//  Routing ids of a client and of two workers, alpha and beta
#define TESTUTIL_ROUTE_CLIENT   (const byte *) "\x00\x01" "client", 8
#define TESTUTIL_ROUTE_ALPHA    (const byte *) "\x00\x03" "alpha", 7
#define TESTUTIL_ROUTE_BETA     (const byte *) "\x00\x04" "beta", 6

//  The test's end of the actor's link: it plays schedq there (ACTORS.md,
//  "The link"), as it plays the main on the pipe
extern zsock_t *testutil_assignactor_link;

//  Start the actor, its link bound by the test, with an ack timeout (msec)
zactor_t *
    testutil_assignactor_new (uint32_t ack_timeout);

//  Stop the actor and close the link
void
    testutil_assignactor_destroy (zactor_t **actor_p);

//  Hand a message to the actor, as the main does; the actor owns it now
void
    testutil_assignactor_hand (zactor_t *actor, const byte *route, size_t route_size,
                               drover_msg_t *msg);

//  Expect a command whose frames, read as text, are the given strings
//  (NULL-terminated list)
void
    testutil_assignactor_expect_frames (zactor_t *actor, const char *command, ...);

//  Expect a SEND to route for worker (or "" for a client); return the
//  decoded payload (caller destroys)
drover_msg_t *
    testutil_assignactor_expect_send (zactor_t *actor, const byte *route, size_t route_size,
                                      const char *worker, int id);

//  Expect a SEND or a REPLY (word) to route for worker; return the decoded
//  payload (caller destroys)
drover_msg_t *
    testutil_assignactor_expect_said (zactor_t *actor, const char *word, const byte *route,
                                      size_t route_size, const char *worker, int id);

//  Expect HEARD worker route: a report came from the worker's registration
void
    testutil_assignactor_expect_heard (zactor_t *actor, const char *worker, const byte *route,
                                       size_t route_size);

//  Expect the CHANGE (the event, for the store) about a task with this
//  topic and attempt; returns the rest: worker reason state submit done
zmsg_t *
    testutil_assignactor_expect_change (zactor_t *actor, const char *topic, uint64_t task,
                                        uint32_t attempt);

//  Expect the CHANGE about a task with this topic and attempt
void
    testutil_assignactor_expect_event (zactor_t *actor, const char *topic, uint64_t task,
                                       uint32_t attempt);

//  A TASK SUBMIT of "sh -c echo hi"
drover_msg_t *
    testutil_assignactor_submit_msg (uint32_t seq, uint32_t flags);

//  Submit a task and read what that says; returns the task id
uint64_t
    testutil_assignactor_submit (zactor_t *actor, uint32_t seq, uint32_t flags);

//  Say UP for a worker with a running list
void
    testutil_assignactor_up (zactor_t *actor, const char *worker, const byte *route,
                             size_t route_size, const drover_taskref_t *running, size_t count);

//  Say ASSIGN of one task to a worker and check the offer
void
    testutil_assignactor_assign (zactor_t *actor, uint64_t task, const char *worker,
                                 const byte *route, size_t route_size, uint32_t attempt);

//  A TASK STARTED or RESULT from a worker
drover_msg_t *
    testutil_assignactor_report (int id, const char *worker, uint64_t task, uint32_t attempt,
                                 uint32_t seq);

//  Ask for the task table: its reply must be the next thing said, so
//  nothing was said in between
drover_msg_t *
    testutil_assignactor_list (zactor_t *actor, uint8_t state, uint32_t limit);

//  Expect assign to hand a message on to schedq on the link (MSG route
//  msg) for the client; return it decoded (caller destroys)
drover_msg_t *
    testutil_assignactor_expect_handed (const byte *from, size_t from_size, int id);

//  Ask for the task table while a task is queued: assign hands it to
//  schedq, which says why each queued task waits and sends it
drover_msg_t *
    testutil_assignactor_list_queued (zactor_t *actor, uint8_t state, uint32_t limit);

#endif
