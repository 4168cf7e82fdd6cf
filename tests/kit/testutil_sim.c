/*  =========================================================================
    testutil_sim - a simulated cluster around one reconciler
    (see the header)
    =========================================================================
*/

#include "testutil_sim.h"

//  The settings the tests use: quick restarts, a low cap
drover_serviceconfig_t
testutil_sim_config (void)
{
    drover_serviceconfig_t config = {
        .term = 10000, .gather_timeout = 2000, .restart_delay = 1000,
        .max_restart_delay = 5000, .stable_after = 60000, .crash_warn = 3,
        .max_stop_percent = 50, .max_services = 4, .max_replicas = 100
    };
    return config;
}

//  Start a simulation with count workers w1.. of 8 procs each
testutil_sim_t *
testutil_sim_new (size_t count)
{
    testutil_sim_t *sim = (testutil_sim_t *) zmalloc (sizeof (testutil_sim_t));
    drover_serviceconfig_t config = testutil_sim_config ();
    sim->rec = drover_reconciler_new (&config);
    sim->now = 1000000;
    sim->next_task = 100;
    for (size_t index = 0; index < count; index++) {
        snprintf (sim->names [index], sizeof sim->names [index], "w%zu", index + 1);
        sim->procs [index] = 8;
        sim->in_fleet [index] = true;
    }
    sim->nworkers = count;
    return sim;
}

//  End a simulation
void
testutil_sim_destroy (testutil_sim_t **sim_p)
{
    drover_reconciler_destroy (&(*sim_p)->rec);
    assert_null ((*sim_p)->rec);
    free (*sim_p);
    *sim_p = NULL;
}

//  Add a worker to the simulation; returns its index
int
testutil_sim_join (testutil_sim_t *sim, const char *name)
{
    size_t index = sim->nworkers++;
    snprintf (sim->names [index], sizeof sim->names [index], "%s", name);
    sim->procs [index] = 8;
    sim->in_fleet [index] = true;
    return (int) index;
}

//  Index of a worker by name, -1 unknown
int
testutil_sim_worker (testutil_sim_t *sim, const char *name)
{
    for (size_t index = 0; index < sim->nworkers; index++)
        if (streq (sim->names [index], name))
            return (int) index;
    return -1;
}

//  Tell the reconciler the fleet: each connected worker, what runs there
void
testutil_sim_fleet (testutil_sim_t *sim)
{
    drover_fleet_worker_t workers [TESTUTIL_SIM_WORKERS];
    size_t count = 0;
    for (size_t index = 0; index < sim->nworkers; index++) {
        if (!sim->in_fleet [index])
            continue;
        uint32_t used = 0;
        for (size_t task = 0; task < sim->ntasks; task++)
            used += sim->tasks [task].alive && sim->tasks [task].worker == (int) index;
        drover_fleet_worker_t worker = {
            sim->names [index], sim->procs [index], 1ULL << 30, used, 0,
            sim->labels [index], sim->states [index], used
        };
        workers [count++] = worker;
    }
    drover_reconciler_set_fleet (sim->rec, workers, count);
}

//  Define a service of replicas (1 proc each, labels "" none)
void
testutil_sim_define (testutil_sim_t *sim, const char *name, uint32_t replicas, const char *label)
{
    drover_service_row_t def;
    memset (&def, 0, sizeof def);
    snprintf (def.name, sizeof def.name, "%s", name);
    def.replicas = replicas;
    def.procs = 1;
    char *labels [1] = { (char *) label };
    if (label) {
        def.labels [0] = labels [0];
        def.nlabels = 1;
    }
    assert_int_equal (drover_reconciler_define (sim->rec, &def, sim->now), 0);
}

//  Report a replica task's state as assign would
int
testutil_sim_report (testutil_sim_t *sim, size_t index, drover_task_state_t state, drover_end_t end,
                     const char *why)
{
    drover_replica_report_t report = {
        sim->tasks [index].task, sim->tasks [index].service, sim->tasks [index].slot,
        sim->names [sim->tasks [index].worker], 1, state, end, why
    };
    return drover_reconciler_replica (sim->rec, &report, sim->now);
}

//  Start a replica task as assign would: ASSIGNED, then RUNNING
size_t
testutil_sim_start_task (testutil_sim_t *sim, const char *service, uint32_t slot,
                         const char *worker)
{
    size_t index = sim->ntasks++;
    assert_true (index < TESTUTIL_SIM_TASKS);
    sim->tasks [index].task = sim->next_task++;
    snprintf (sim->tasks [index].service, sizeof sim->tasks [index].service, "%s", service);
    sim->tasks [index].slot = slot;
    sim->tasks [index].worker = testutil_sim_worker (sim, worker);
    assert_true (sim->tasks [index].worker >= 0);
    sim->tasks [index].alive = true;
    testutil_sim_report (sim, index, DROVER_TASK_ASSIGNED, DROVER_END_NONE, "");
    testutil_sim_report (sim, index, DROVER_TASK_RUNNING, DROVER_END_NONE, "");
    return index;
}

//  Index of a task in the simulation
size_t
testutil_sim_task (testutil_sim_t *sim, uint64_t task)
{
    for (size_t index = 0; index < sim->ntasks; index++)
        if (sim->tasks [index].task == task)
            return index;
    fail_msg ("no task %" PRIu64, task);
    return 0;
}

//  End a task (its worker no longer runs it) and report it
int
testutil_sim_end_task (testutil_sim_t *sim, size_t index, drover_task_state_t state,
                       drover_end_t end,
                       const char *why)
{
    sim->tasks [index].alive = false;
    return testutil_sim_report (sim, index, state, end, why);
}

//  Commit a change set and carry it out as assign would: starts (and
//  moves' starts) run on their worker, stops end CANCELLED
void
testutil_sim_apply (testutil_sim_t *sim, drover_changeset_t *set)
{
    drover_reconciler_commit (sim->rec, set, sim->now);
    for (size_t index = 0; index < set->count; index++) {
        drover_planchange_t *change = &set->changes [index];
        if (change->kind == DROVER_CHANGE_START || change->kind == DROVER_CHANGE_MOVE)
            testutil_sim_start_task (sim, change->service, change->slot, change->to);
        else
        if (change->kind == DROVER_CHANGE_STOP) {
            size_t task = testutil_sim_task (sim, change->task);
            if (sim->tasks [task].alive)
                testutil_sim_end_task (sim, task, DROVER_TASK_CANCELLED, DROVER_END_CANCELLED,
                                       "stopped");
        }
    }
}

//  Run a gather: every connected worker but silent (NULL none) answers
//  with what it runs
void
testutil_sim_gather (testutil_sim_t *sim, const char *silent)
{
    testutil_sim_fleet (sim);
    drover_reconciler_gather_begin (sim->rec, ++sim->term, sim->now);
    for (size_t worker = 0; worker < sim->nworkers; worker++) {
        if (!sim->in_fleet [worker] || (silent && streq (silent, sim->names [worker])))
            continue;
        drover_taskref_t refs [TESTUTIL_SIM_TASKS + 4];
        size_t count = 0;
        for (size_t index = 0; index < sim->ntasks; index++)
            if (sim->tasks [index].alive && sim->tasks [index].worker == (int) worker) {
                refs [count].task = sim->tasks [index].task;
                refs [count++].attempt = 1;
            }
        for (size_t index = 0; worker == 0 && index < sim->nbatch; index++) {
            refs [count].task = sim->batch [index];
            refs [count++].attempt = 1;
        }
        assert_int_equal (drover_reconciler_gathered (sim->rec, sim->names [worker], refs,
                                                     count), 0);
    }
}

//  Compute a term (a gather first: silent does not answer)
void
testutil_sim_term (testutil_sim_t *sim, const char *silent, drover_changeset_t *set)
{
    sim->now += 10000;
    testutil_sim_gather (sim, silent);
    sim->now += 5;
    drover_reconciler_what_t what = { .kind = DROVER_RECONCILER_TERM };
    drover_reconciler_compute (sim->rec, &what, sim->now, set);
}

//  Compute a pass on a fresh fleet
void
testutil_sim_pass (testutil_sim_t *sim, drover_changeset_t *set)
{
    testutil_sim_fleet (sim);
    drover_reconciler_what_t what = { .kind = DROVER_RECONCILER_PASS };
    drover_reconciler_compute (sim->rec, &what, sim->now, set);
}

//  Run terms, carrying each out, until one changes nothing; returns the
//  terms it took
int
testutil_sim_settle (testutil_sim_t *sim)
{
    drover_changeset_t set = { 0 };
    for (int terms = 1; terms <= 10; terms++) {
        testutil_sim_term (sim, NULL, &set);
        if (set.count == 0) {
            drover_reconciler_commit (sim->rec, &set, sim->now);
            drover_changeset_reset (&set);
            return terms;
        }
        testutil_sim_apply (sim, &set);
    }
    fail_msg ("the cluster did not settle in 10 terms");
    return 0;
}

//  Count the replicas of service alive on each worker
void
testutil_sim_counts (testutil_sim_t *sim, const char *service, uint32_t *counts)
{
    memset (counts, 0, TESTUTIL_SIM_WORKERS * sizeof (uint32_t));
    for (size_t index = 0; index < sim->ntasks; index++)
        if (sim->tasks [index].alive && streq (sim->tasks [index].service, service))
            counts [sim->tasks [index].worker]++;
}

//  Count the changes of a kind in a set
size_t
testutil_sim_changes (const drover_changeset_t *set, drover_change_kind_t kind)
{
    size_t count = 0;
    for (size_t index = 0; index < set->count; index++)
        count += set->changes [index].kind == kind;
    return count;
}

//  Order counts, largest first (qsort's comparator)
int
testutil_sim_compare_counts (const void *one, const void *two)
{
    uint32_t a = *(const uint32_t *) one, b = *(const uint32_t *) two;
    return a > b? -1: a < b? 1: 0;
}
