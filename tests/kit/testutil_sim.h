/*  =========================================================================
    testutil_sim - a simulated cluster around one reconciler, for the
    reconciler's tests (test_drover_reconciler_placement, _stops, _plans):
    a fake clock; the test plays schedq's fleet, the workers' gather
    answers and assign carrying out starts and stops, and runs terms
    until the reconciler settles
    =========================================================================
*/

#ifndef TESTUTIL_SIM_H_INCLUDED
#define TESTUTIL_SIM_H_INCLUDED

#include "testutil.h"
#include "drover_reconciler.h"

#define TESTUTIL_SIM_WORKERS     8
#define TESTUTIL_SIM_TASKS       512

//  A simulated cluster around one reconciler
typedef struct {
    drover_reconciler_t *rec;        //  the class under test
    uint64_t now;                   //  the fake clock, msec
    uint64_t term;                  //  terms so far
    uint64_t next_task;             //  the next task id assign would give
    char names [TESTUTIL_SIM_WORKERS][24]; //  worker ids ("w" and a size_t)
    uint32_t procs [TESTUTIL_SIM_WORKERS]; //  procs each offers
    char labels [TESTUTIL_SIM_WORKERS][32]; //  labels each has
    drover_fleet_state_t states [TESTUTIL_SIM_WORKERS]; //  each one's state
    bool in_fleet [TESTUTIL_SIM_WORKERS]; //  connected
    size_t nworkers;                //  workers known
    struct {
        uint64_t task;              //  task id
        char service [32];          //  its service
        uint32_t slot;              //  its slot
        int worker;                 //  index of its worker
        bool alive;                 //  runs there
    } tasks [TESTUTIL_SIM_TASKS];   //  replica tasks started
    size_t ntasks;                  //  entries used
    uint64_t batch [4];             //  batch tasks worker 0 runs (not replicas)
    size_t nbatch;                  //  entries used
} testutil_sim_t;

//  The settings the tests use: quick restarts, a low cap
drover_serviceconfig_t
    testutil_sim_config (void);

//  Start a simulation with count workers w1.. of 8 procs each
testutil_sim_t *
    testutil_sim_new (size_t count);

//  End a simulation
void
    testutil_sim_destroy (testutil_sim_t **sim_p);

//  Add a worker to the simulation; returns its index
int
    testutil_sim_join (testutil_sim_t *sim, const char *name);

//  Index of a worker by name, -1 unknown
int
    testutil_sim_worker (testutil_sim_t *sim, const char *name);

//  Tell the reconciler the fleet: each connected worker, what runs there
void
    testutil_sim_fleet (testutil_sim_t *sim);

//  Define a service of replicas (1 proc each, labels "" none)
void
    testutil_sim_define (testutil_sim_t *sim, const char *name, uint32_t replicas,
                         const char *label);

//  Report a replica task's state as assign would
int
    testutil_sim_report (testutil_sim_t *sim, size_t index, drover_task_state_t state,
                         drover_end_t end,
                         const char *why);

//  Start a replica task as assign would: ASSIGNED, then RUNNING
size_t
    testutil_sim_start_task (testutil_sim_t *sim, const char *service, uint32_t slot,
                             const char *worker);

//  Index of a task in the simulation
size_t
    testutil_sim_task (testutil_sim_t *sim, uint64_t task);

//  End a task (its worker no longer runs it) and report it
int
    testutil_sim_end_task (testutil_sim_t *sim, size_t index, drover_task_state_t state,
                           drover_end_t end,
                           const char *why);

//  Commit a change set and carry it out as assign would: starts (and
//  moves' starts) run on their worker, stops end CANCELLED
void
    testutil_sim_apply (testutil_sim_t *sim, drover_changeset_t *set);

//  Run a gather: every connected worker but silent (NULL none) answers
//  with what it runs
void
    testutil_sim_gather (testutil_sim_t *sim, const char *silent);

//  Compute a term (a gather first: silent does not answer)
void
    testutil_sim_term (testutil_sim_t *sim, const char *silent, drover_changeset_t *set);

//  Compute a pass on a fresh fleet
void
    testutil_sim_pass (testutil_sim_t *sim, drover_changeset_t *set);

//  Run terms, carrying each out, until one changes nothing; returns the
//  terms it took
int
    testutil_sim_settle (testutil_sim_t *sim);

//  Count the replicas of service alive on each worker
void
    testutil_sim_counts (testutil_sim_t *sim, const char *service, uint32_t *counts);

//  Count the changes of a kind in a set
size_t
    testutil_sim_changes (const drover_changeset_t *set, drover_change_kind_t kind);

//  Order counts, largest first (qsort's comparator)
int
    testutil_sim_compare_counts (const void *one, const void *two);

#endif
