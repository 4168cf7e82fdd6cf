/*  =========================================================================
    testutil_wire - the wire protocol on a socket the test holds: messages made
    as a client or a worker would make them, sent, received and decoded;
    requests and their replies; the waits a client makes on a real broker
    (workers up, a task running, its TASK DONE) and on its events
    =========================================================================
*/

#ifndef TESTUTIL_WIRE_H_INCLUDED
#define TESTUTIL_WIRE_H_INCLUDED

#include "testutil.h"
#include "drover_msg.h"
#include "drover_event.h"

//  Receive one message on sock within timeout msec; NULL on timeout
zmsg_t *
    testutil_recv (zsock_t *sock, int timeout);

//  Say this codec's protocol level on a client's dealer (CLIENT HELLO)
//  and take the broker's CLIENT WELCOME (asserted within timeout msec)
void
    testutil_say_level (zsock_t *dealer, int timeout);

//  Encode and send msg (destroys it); asserts it encodes
void
    testutil_send (zsock_t *dealer, drover_msg_t **msg_p);

//  Receive and decode one message within timeout msec; NULL on timeout.
//  Asserts that what the broker sends always decodes.
drover_msg_t *
    testutil_recv_msg (zsock_t *dealer, int timeout);

//  Receive the next message on a peer the test plays and assert its id
//  (saying which came instead); the caller destroys it
drover_msg_t *
    testutil_expect_msg (zsock_t *peer, int id, int timeout);

//  Make a message of a worker the test plays: a HELLO's fields (epoch 1,
//  procs, 1 GiB) and a report's (task, attempt, outcome EXITED); set what
//  else it needs, then testutil_send it
drover_msg_t *
    testutil_played_msg (const char *worker, uint32_t procs, int id, uint64_t task,
                         uint32_t attempt);

//  Send a request and return the reply with the same seq, skipping and
//  destroying anything else; NULL on timeout
drover_msg_t *
    testutil_request (zsock_t *dealer, drover_msg_t **msg_p, int timeout);

//  Build a TASK SUBMIT running `sh -c script`
drover_msg_t *
    testutil_submit_msg (const char *script, int priority, int procs, uint32_t flags);

//  A worker's TASK RESULT of a task's attempt, nothing else set (ours to
//  destroy)
drover_msg_t *
    testutil_result_msg (const char *worker, uint64_t task, uint32_t attempt, int outcome,
                         int exit_code);

//  Wait until the broker lists `count` workers in health OK; false on timeout
bool
    testutil_wait_workers (zsock_t *dealer, int count, int timeout);

//  Wait until a task is RUNNING (per TASK LIST); fills worker; false on timeout
bool
    testutil_wait_running (zsock_t *dealer, uint64_t task, char *worker, int timeout);

//  What a worker's row must say (testutil_wait_worker_row)
typedef bool (testutil_row_match_fn) (const drover_worker_row_t *row, void *arg);

//  Wait until WORKER LIST has a row for worker that match (called with
//  arg) accepts; false on timeout
bool
    testutil_wait_worker_row (zsock_t *dealer, const char *worker, testutil_row_match_fn *match,
                              void *arg, int timeout);

//  Wait until WORKER LIST shows worker reserved for task (0: for none);
//  false on timeout
bool
    testutil_wait_reserved (zsock_t *dealer, const char *worker, uint64_t task, int timeout);

//  How many tasks the broker holds in any state (the counts of a TASK
//  LIST), asked on dealer within timeout msec; asserts it answers
uint64_t
    testutil_task_count (zsock_t *dealer, int timeout);

//  Submit one task and return its id; asserts the broker accepts it
uint64_t
    testutil_submit (zsock_t *dealer, drover_msg_t *submit);

//  A TASK WAIT for count tasks (copied), seq 0: the caller sets the seq if
//  it must, then sends it
drover_msg_t *
    testutil_wait_msg (const uint64_t *tasks, uint32_t count);

//  Collect the TASK DONE of each of count tasks into done [] (same order),
//  asserting none arrives twice and nothing else arrives; false on timeout
bool
    testutil_collect (zsock_t *dealer, const uint64_t *tasks, drover_msg_t **done,
                      int count, int timeout);

//  Collect the TASK DONE of each of count tasks within
//  timeout msec (testutil_collect) and assert every one SUCCEEDED
void
    testutil_expect_all_succeeded (zsock_t *dealer, const uint64_t *tasks, int count,
                                   int timeout);

//  Wait for the TASK DONE of one task; NULL on timeout
drover_msg_t *
    testutil_wait_done (zsock_t *dealer, uint64_t task, int timeout);

//  Wait for the TASK DONE of one task and assert it came, in state (saying
//  how the task ended if not); the caller checks the rest and destroys it
drover_msg_t *
    testutil_expect_done (zsock_t *dealer, uint64_t task, int state, int timeout);

//  Send a WORKER ADMIN (DROVER_ADMIN_*) and return the reply's code
int
    testutil_admin (zsock_t *dealer, const char *worker, int admin);

//  Send WORKER ADMIN with the operator's reason (NULL: none) and
//  DROVER_ADMIN_* flags; return the reply's code
int
    testutil_admin_with (zsock_t *dealer, const char *worker, int admin, const char *reason,
                         uint32_t flags);

//  Receive the next event on a SUB within timeout msec; false on timeout.
//  Asserts it is two frames, its body decodes and names the same topic.
bool
    testutil_next_event (zsock_t *sub, drover_event_t *event, int timeout);

//  Wait up to timeout msec for the event topic about worker, skipping
//  others; false on timeout
bool
    testutil_await_event (zsock_t *sub, const char *topic, const char *worker,
                          drover_event_t *event, int timeout);

//  Wait until a new SUB hears the broker: a subscription takes effect some
//  time after connecting, so hold and resume worker (an admin change that
//  publishes an event) until an event arrives, 10 s at most; false if none
bool
    testutil_await_subscription (zsock_t *sub, zsock_t *dealer, const char *worker);

#endif
