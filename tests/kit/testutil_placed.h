/*  =========================================================================
    testutil_placed - the scheduling queue's tests' fixtures (test_drover_
    schedq_order, _fit, _workers, _scale): the class driven without its
    actor, each pass's placements recorded in order, and what a worker's
    view says of its procs and its reservation
    =========================================================================
*/

#ifndef TESTUTIL_PLACED_H_INCLUDED
#define TESTUTIL_PLACED_H_INCLUDED

#include "testutil.h"
#include "drover_schedq.h"

//  What one or more passes placed, in order
typedef struct {
    size_t count;               //  placements recorded
    uint64_t tasks [4096];      //  task of each placement
    char workers [4096][DROVER_ID_MAX + 1];     //  worker of each placement
} testutil_placed_t;

//  Record a placement
void
    testutil_placed_record (uint64_t task, const char *worker, void *arg);

//  Run one pass into placed, returning how many it placed
int
    testutil_placed_run (drover_schedq_t *sched, testutil_placed_t *placed);

//  Return the procs used on a worker
uint32_t
    testutil_placed_used (drover_schedq_t *sched, const char *id);

//  Return the task a worker is reserved for, 0 if none
uint64_t
    testutil_placed_reserved (drover_schedq_t *sched, const char *id);

//  cmocka's setup: a scheduling queue (its state) shelving up to 1000
//  requests a pass
int
    testutil_placed_setup (void **state);

//  cmocka's teardown: destroy the queue (twice: harmless)
int
    testutil_placed_teardown (void **state);

#endif
