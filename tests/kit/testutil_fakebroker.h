/*  =========================================================================
    testutil_fakebroker - a broker played by the worker API's tests
    (test_drover_worker_session, _attempts, _handler): the test binds a
    ROUTER on tcp://127.0.0.1:* and speaks the protocol with the codec;
    the worker runs as a zactor (drover_worker_actor) with real sockets.
    These take it through HELLO and WELCOME, offer attempts, expect what
    it says and answer it; every wait is on a message with a deadline.
    =========================================================================
*/

#ifndef TESTUTIL_FAKEBROKER_H_INCLUDED
#define TESTUTIL_FAKEBROKER_H_INCLUDED

#include "testutil_wire.h"
#include "drover_worker.h"

//  The broker side of one test
typedef struct {
    zsock_t *router;                //  what the worker connects to
    char endpoint [64];             //  tcp://127.0.0.1:port
    drover_worker_t *worker;        //  the worker under test
    zactor_t *actor;                //  runs the worker loop
    zframe_t *route;                //  routing id of the worker's last message
    uint32_t seq;                   //  seq of our messages
} testutil_fakebroker_t;

//  Bind the ROUTER the worker connects to and make the worker under test
//  (not yet started), heartbeating every 100 msec with a grace of 300
testutil_fakebroker_t *
    testutil_fakebroker_new (void);

//  Stop the worker, destroy it and close the ROUTER
void
    testutil_fakebroker_destroy (testutil_fakebroker_t **self_p);

//  Start the worker loop in its actor
void
    testutil_fakebroker_start (testutil_fakebroker_t *self);

//  Receive and decode one message from the worker within timeout msec,
//  keeping its route; NULL on timeout
drover_msg_t *
    testutil_fakebroker_recv (testutil_fakebroker_t *self, int timeout);

//  Receive the next message other than a heartbeat, and check its id
drover_msg_t *
    testutil_fakebroker_expect (testutil_fakebroker_t *self, int id, int timeout);

//  Send a message to the worker's last route (destroys it)
void
    testutil_fakebroker_send (testutil_fakebroker_t *self, drover_msg_t **msg_p);

//  Answer the worker: WELCOME with a heartbeat interval and a broker state
//  id ("" for none)
void
    testutil_fakebroker_welcome_state (testutil_fakebroker_t *self, uint32_t heartbeat,
                                       const char *state_id);

//  Answer the worker: WELCOME with a heartbeat interval, no state id
void
    testutil_fakebroker_welcome (testutil_fakebroker_t *self, uint32_t heartbeat);

//  Start the worker and take it through HELLO / WELCOME, which names a
//  heartbeat of msec
void
    testutil_fakebroker_register_beating (testutil_fakebroker_t *self, uint32_t msec);

//  Start the worker and register it, with heartbeats every 100 msec
void
    testutil_fakebroker_register (testutil_fakebroker_t *self);

//  Answer a message with OK or ERROR code, echoing its seq
void
    testutil_fakebroker_reply (testutil_fakebroker_t *self, drover_msg_t *request, uint16_t code);

//  Answer a message with OK or ERROR code (testutil_fakebroker_reply) and
//  destroy it
void
    testutil_fakebroker_answer (testutil_fakebroker_t *self, drover_msg_t **request_p,
                                uint16_t code);

//  Offer an attempt of sh -c script
void
    testutil_fakebroker_offer (testutil_fakebroker_t *self, uint64_t task, uint32_t attempt,
                               const char *script, uint32_t timeout);

//  Expect TASK STARTED for task, attempt
void
    testutil_fakebroker_expect_started (testutil_fakebroker_t *self, uint64_t task,
                                        uint32_t attempt);

//  Offer an attempt of sh -c script and see it start
void
    testutil_fakebroker_offer_started (testutil_fakebroker_t *self, uint64_t task, uint32_t attempt,
                                       const char *script, uint32_t timeout);

//  A registered worker running attempt of task (sh -c script): its TASK
//  STARTED seen
testutil_fakebroker_t *
    testutil_fakebroker_running (uint64_t task, uint32_t attempt, const char *script);

//  Expect the TASK RESULT of task (caller answers it)
drover_msg_t *
    testutil_fakebroker_expect_result (testutil_fakebroker_t *self, uint64_t task);

//  Send LEAVE and see the loop end: GOODBYE, then DONE on the actor pipe.
//  The worker reads its socket in order, so every answer we sent before
//  has been acted on; then ask the actor for its counters.
void
    testutil_fakebroker_leave (testutil_fakebroker_t *self, uint64_t *tasks, uint64_t *acked);

//  testutil_fakebroker_leave, once one result was acked and the worker
//  registered registrations times
void
    testutil_fakebroker_leave_acked_one (testutil_fakebroker_t *self, int registrations);

#endif
