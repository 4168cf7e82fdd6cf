/*  =========================================================================
    testutil_poolplan - an elastic pool driven with a fake clock, and what
    it said: the actions its plans held and what it told, as strings
    (test_drover_pool_create, _lifecycle)
    =========================================================================
*/

#ifndef TESTUTIL_POOLPLAN_H_INCLUDED
#define TESTUTIL_POOLPLAN_H_INCLUDED

#include "testutil_pool.h"
#include "drover_pool.h"

//  A gibibyte
#define TESTUTIL_GIB ((uint64_t) 1 << 30)

//  A pool with what it said
typedef struct {
    drover_poolconfig_t config;     //  its settings
    drover_pool_t *pool;            //  the pool under test
    zlistx_t *actions;              //  strings, what the last plans said
    zlistx_t *notes;                //  strings, what it told
    const char *busy;               //  a worker testutil_poolplan_demand reports running a
                                    //  task, or NULL
} testutil_poolplan_t;

//  Settings with Arvados' defaults and three types
int
    testutil_poolplan_setup (void **state);

//  Destroy the pool and what it said
int
    testutil_poolplan_teardown (void **state);

//  Make the pool from the fixture's settings (tests change them first)
drover_pool_t *
    testutil_poolplan_pool (testutil_poolplan_t *fx);

//  Plan at now, keeping only what this plan says; returns how many actions
size_t
    testutil_poolplan_plan (testutil_poolplan_t *fx, uint64_t now);

//  Count the actions of the last plan starting with prefix
size_t
    testutil_poolplan_said (testutil_poolplan_t *fx, const char *prefix);

//  Count the notes containing text
size_t
    testutil_poolplan_told (testutil_poolplan_t *fx, const char *text);

//  Plan at now and assert it says exactly one action starting with prefix
void
    testutil_poolplan_plan_says (testutil_poolplan_t *fx, uint64_t now, const char *prefix);

//  The first plan lists; an empty list lets creates go
void
    testutil_poolplan_start (testutil_poolplan_t *fx, uint64_t now);

//  Set demand of one shape, no workers
void
    testutil_poolplan_demand (testutil_poolplan_t *fx, uint32_t procs, uint64_t mem,
                              const char *labels, uint32_t count,
              uint64_t now);

//  Report one worker's load, no demand
void
    testutil_poolplan_worker_load (testutil_poolplan_t *fx, const char *id, uint32_t tasks,
                                   uint64_t now);

//  Return an instance's state
int
    testutil_poolplan_state (testutil_poolplan_t *fx, const char *id);

//  Create P-1 and bring it up, idle
void
    testutil_poolplan_one_up (testutil_poolplan_t *fx, uint64_t now);

//  Make the pool, start it and bring P-1 up (testutil_poolplan_one_up), all at 0
void
    testutil_poolplan_pool_one_up (testutil_poolplan_t *fx);

//  Make the pool, start it, demand count small tasks (2 procs, 1 GiB) and
//  plan, all at 0
void
    testutil_poolplan_pool_demanding (testutil_poolplan_t *fx, uint32_t count);

//  A LIST planned at plan_at answers at listed_at without P-1 (destroyed):
//  P-1 is gone, and the pool tells so
void
    testutil_poolplan_listed_without_p1 (testutil_poolplan_t *fx, uint64_t plan_at,
                                         uint64_t listed_at);

#endif
