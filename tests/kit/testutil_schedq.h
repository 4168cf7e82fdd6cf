/*  =========================================================================
    testutil_schedq - the schedq actor's tests' fixtures (test_drover_
    schedq_actor_placement, _workers, _leases): the test plays the main on
    the actor's pipe and assign on its link, and these say UP, QUEUE,
    WORKER ADMIN and WORKER LIST and expect the ASSIGNs that follow
    =========================================================================
*/

#ifndef TESTUTIL_SCHEDQ_H_INCLUDED
#define TESTUTIL_SCHEDQ_H_INCLUDED

#include "testutil_actor.h"
#include "drover_schedq_actor.h"
#include "drover_loadreport.h"
#include "drover_config.h"

//  The test's end of the actor's link: it plays assign there (QUEUE,
//  TAKE, DEQUEUE, FREE, PROBATION, RETURN in, ASSIGN, LEASE, REVOKE out),
//  and the main on the pipe; testutil_schedq_setup opens it
extern zsock_t *testutil_schedq_link;

//  Expect exactly these placements next on the link, in this order, one
//  ASSIGN record each
void
    testutil_schedq_expect_assign (zactor_t *actor, size_t count, const uint64_t *tasks,
                                   const char **workers);

//  Expect one ASSIGN: task on worker
void
    testutil_schedq_expect_one (zactor_t *actor, uint64_t task, const char *worker);

//  Say UP for a worker
void
    testutil_schedq_up (zactor_t *actor, const char *worker, const char *route, uint32_t procs,
                        uint64_t mem, const char *labels);

//  Say QUEUE for a request
void
    testutil_schedq_queue (zactor_t *actor, uint64_t task, int priority, uint32_t procs,
                           uint64_t mem, const char *labels);

//  Start most tests: worker alpha up with procs, task 1 queued and placed
//  on it
void
    testutil_schedq_alpha_runs_task_1 (zactor_t *actor, uint32_t procs);

//  Send WORKER ADMIN with a reason (NULL: none) and flags, and expect its
//  reply code; returns the reply's text (caller frees)
char *
    testutil_schedq_admin_with (zactor_t *actor, const char *worker, int admin, const char *reason,
                                uint32_t flags, uint32_t seq, int code);

//  Send WORKER ADMIN and expect its reply code (and the event if changed)
void
    testutil_schedq_admin (zactor_t *actor, const char *worker, int admin, uint32_t seq,
                           int code);

//  Find a worker's row in a WORKER TABLE, or fail
drover_worker_row_t *
    testutil_schedq_row (drover_msg_t *table, const char *worker);

//  Ask for WORKER LIST and return the table; everything said before it,
//  on the pipe or the link, must be nothing at all (schedq sends what a
//  turn says on the link before what it says on the pipe)
drover_msg_t *
    testutil_schedq_list_only (zactor_t *actor, uint32_t seq);

//  Assert the actor says nothing more about what it was told so far: two
//  WORKER LISTs in a row, each answered before anything else (a pass runs
//  after each batch, so a placement would come before the second answer)
void
    testutil_schedq_quiet (zactor_t *actor);

//  cmocka's setup: start a schedq actor (its state) with a new link,
//  configured to shelve up to 100 requests and lend no worker
int
    testutil_schedq_setup (void **state);

//  cmocka's teardown: stop the actor and close the link
int
    testutil_schedq_teardown (void **state);

//  Return the procs WORKER TABLE says a worker uses
uint32_t
    testutil_schedq_procs_used (zactor_t *actor, const char *worker);

#endif
