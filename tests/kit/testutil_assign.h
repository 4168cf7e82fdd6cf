/*  =========================================================================
    testutil_assign - the task table's tests' fixtures (test_drover_assign_
    lifecycle, _workers, _clients): counting and finding the actions it
    decides, and driving it through SUBMIT, an offer, STARTED, RESULT and a
    worker's UP, asserting each step. Its client and workers are routed as
    testutil_class's TESTUTIL_CLIENT_ROUTE, _ALPHA_ROUTE and _BETA_ROUTE.

    Every test drives the plain class directly and checks the actions it
    decides (what would be said to schedq, probation, workers, waiters and
    the event stream), so that the reliability contract is checked without
    threads, sockets or sleeps: one result per task, fenced by attempt.
    =========================================================================
*/

#ifndef TESTUTIL_ASSIGN_H_INCLUDED
#define TESTUTIL_ASSIGN_H_INCLUDED

#include "testutil_class.h"
#include "testutil_wire.h"

//  The route of a second client
#define TESTUTIL_OTHER_ROUTE    (const byte *) "\x00\x02" "other", 7

//  Count the actions of a type
int
    testutil_count_actions (testutil_actions_t *actions, int type);

//  Find the event with a topic about a task, or NULL
drover_action_t *
    testutil_find_event (testutil_actions_t *actions, const char *topic, uint64_t task);

//  Build a TASK SUBMIT running argv "sh -c script" (priority 3, 1 MiB,
//  a minute at most), ours
drover_msg_t *
    testutil_assign_submit_msg (const char *script, int procs, uint32_t retries, uint32_t flags);

//  Submit a task from the client and return its id
uint64_t
    testutil_assign_submit (drover_assign_t *table, uint32_t retries, uint32_t flags);

//  Assign a task to a worker and check the offer it makes
void
    testutil_assign_offer (drover_assign_t *table, uint64_t task, const char *worker, int64_t now,
                           uint32_t attempt);

//  Acknowledge an attempt
void
    testutil_assign_start (drover_assign_t *table, uint64_t task, const char *worker,
                           uint32_t attempt);

//  Report a result from a worker; returns the status code
int
    testutil_assign_result (drover_assign_t *table, uint64_t task, const char *worker,
                            uint32_t attempt, int outcome, int exit_code, const char *out);

//  Register a worker with nothing running
void
    testutil_assign_up (drover_assign_t *table, const char *worker, const byte *route, size_t size);

#endif
