/*  =========================================================================
    testutil_clientbroker - a broker faked for the client API's tests
    (test_drover_client_requests, _wait, _cli)

    The fake broker is an actor that binds a real ROUTER on
    tcp://127.0.0.1:* and answers each request with a behaviour function
    the test picks. Its counters belong to the actor thread while it runs;
    the test reads them only after zactor_destroy has joined it.
    =========================================================================
*/

#ifndef TESTUTIL_CLIENTBROKER_H_INCLUDED
#define TESTUTIL_CLIENTBROKER_H_INCLUDED

#include "testutil.h"
#include "drover_client_wire.h"

//  The fake broker's state id
#define TESTUTIL_CLIENTBROKER_STATE_ID  "5f4c2ff9a1b2c3d4e5f60718293a4b5c"

typedef struct _testutil_clientbroker_t testutil_clientbroker_t;

//  How the fake broker answers one decoded request from route
typedef void (testutil_clientbroker_fn) (testutil_clientbroker_t *fake, zframe_t *route,
                                         drover_msg_t *msg);

struct _testutil_clientbroker_t {
    testutil_clientbroker_fn *behave;   //  the test's behaviour
    zsock_t *router;            //  the fake broker's socket, actor thread only
    int requests [DROVER_MSG_ID_MAX + 1];   //  requests received per message id
    size_t wait_ids;            //  task ids received in all TASK WAITs
    uint32_t last_seq;          //  seq of the last request
    int hellos;                 //  CLIENT HELLOs heard (answered, not recorded)
    int level;                  //  the level its CLIENT WELCOME says: 0 this codec's, -1
                                //  none sent (a broker before levels); set after start
    uint32_t last_flags;        //  flags of the last TASK SUBMIT
    int32_t last_priority;      //  priority of the last TASK SUBMIT
    char last_argv0 [64];       //  argv [0] of the last TASK SUBMIT's body
    char last_worker [DROVER_ID_MAX + 1];   //  worker of the last WORKER ADMIN
    uint8_t last_admin;         //  admin of the last WORKER ADMIN
    zlistx_t *held;             //  requests held back for a later answer
    char last_key [DROVER_KEY_MAX + 1];     //  key of the last TASK SUBMIT, "" if none
    char last_state_id [DROVER_STATE_ID_SIZE + 1];  //  state id of the last TASK WAIT
    uint32_t seqs [64];         //  SUBMITs received per seq (seq < 64)
};

//  Start a fake broker with a behaviour; fills endpoint
zactor_t *
    testutil_clientbroker_start (testutil_clientbroker_t *fake, testutil_clientbroker_fn *behave,
                                 char *endpoint);

//  Send msg to route on the fake's ROUTER (destroys msg)
void
    testutil_clientbroker_send (testutil_clientbroker_t *fake, zframe_t *route,
                                drover_msg_t **msg_p);

//  Reply with a message of id echoing the request's seq
void
    testutil_clientbroker_reply (testutil_clientbroker_t *fake, zframe_t *route,
                                 drover_msg_t *request, int id);

//  Reply TASK ACCEPTED for task, echoing the submit's seq
void
    testutil_clientbroker_accept (testutil_clientbroker_t *fake, zframe_t *route,
                                  drover_msg_t *submit, uint64_t task);

//  Reply ERROR code reason
void
    testutil_clientbroker_error (testutil_clientbroker_t *fake, zframe_t *route,
                                 drover_msg_t *request, int code, const char *reason);

//  Send a TASK DONE for task: SUCCEEDED with "out-<task>\n" on stdout
void
    testutil_clientbroker_done (testutil_clientbroker_t *fake, zframe_t *route, uint64_t task,
                                uint32_t seq);

//  Behaviour: accept every submit (task = 1000 + seq), refuse every 100th
//  with 301
void
    testutil_clientbroker_accept_all (testutil_clientbroker_t *fake, zframe_t *route,
                                      drover_msg_t *msg);

//  Behaviour: refuse every submit with 301
void
    testutil_clientbroker_refuse_all (testutil_clientbroker_t *fake, zframe_t *route,
                                      drover_msg_t *msg);

//  Behaviour: WAIT: OK, then each id's TASK DONE twice, plus one for a task
//  nobody asked for
void
    testutil_clientbroker_done_twice (testutil_clientbroker_t *fake, zframe_t *route,
                                      drover_msg_t *msg);

//  Behaviour: the admin requests, each answered as the protocol says
void
    testutil_clientbroker_admin (testutil_clientbroker_t *fake, zframe_t *route,
                                 drover_msg_t *msg);

#endif
