/*  =========================================================================
    test_drover_reconciler - the reconciler's decisions with a fake clock
    and a simulated cluster (the test plays schedq's fleet, the workers'
    gather answers and assign carrying out starts and stops): one test per
    rule of drover_reconciler.h, and the cases (3 workers, 4
    replicas: 2/1/1; a worker lost; a worker joining; a silent worker; a
    plan drain equal to the term that follows the drain)
    =========================================================================
*/

#include "testutil.h"
#include "drover_reconciler.h"
#include "drover_rendezvous.h"

#define S_WORKERS_MAX   8
#define S_TASKS_MAX     512

//  A simulated cluster around one reconciler
typedef struct {
    drover_reconciler_t *rec;        //  the class under test
    uint64_t now;                   //  the fake clock, msec
    uint64_t term;                  //  terms so far
    uint64_t next_task;             //  the next task id assign would give
    char names [S_WORKERS_MAX][16]; //  worker ids
    uint32_t procs [S_WORKERS_MAX]; //  procs each offers
    char labels [S_WORKERS_MAX][32];    //  labels each has
    drover_fleet_state_t states [S_WORKERS_MAX];    //  each one's state
    bool in_fleet [S_WORKERS_MAX];  //  connected
    size_t nworkers;                //  workers known
    struct {
        uint64_t task;              //  task id
        char service [32];          //  its service
        uint32_t slot;              //  its slot
        int worker;                 //  index of its worker
        bool alive;                 //  runs there
    } tasks [S_TASKS_MAX];          //  replica tasks started
    size_t ntasks;                  //  entries used
    uint64_t batch [4];             //  batch tasks worker 0 runs (not replicas)
    size_t nbatch;                  //  entries used
} s_sim_t;

//  The settings the tests use: quick restarts, a low cap
static drover_serviceconfig_t
s_config (void)
{
    drover_serviceconfig_t config = {
        .term = 10000, .gather_timeout = 2000, .restart_delay = 1000,
        .max_restart_delay = 5000, .stable_after = 60000, .crash_warn = 3,
        .max_stop_percent = 50, .max_services = 4, .max_replicas = 100
    };
    return config;
}

//  Start a simulation with count workers w1.. of 8 procs each
static s_sim_t *
s_sim_new (size_t count)
{
    s_sim_t *sim = (s_sim_t *) zmalloc (sizeof (s_sim_t));
    drover_serviceconfig_t config = s_config ();
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
static void
s_sim_destroy (s_sim_t **sim_p)
{
    drover_reconciler_destroy (&(*sim_p)->rec);
    assert_null ((*sim_p)->rec);
    free (*sim_p);
    *sim_p = NULL;
}

//  Add a worker to the simulation; returns its index
static int
s_sim_join (s_sim_t *sim, const char *name)
{
    size_t index = sim->nworkers++;
    snprintf (sim->names [index], sizeof sim->names [index], "%s", name);
    sim->procs [index] = 8;
    sim->in_fleet [index] = true;
    return (int) index;
}

//  Index of a worker by name, -1 unknown
static int
s_worker (s_sim_t *sim, const char *name)
{
    for (size_t index = 0; index < sim->nworkers; index++)
        if (streq (sim->names [index], name))
            return (int) index;
    return -1;
}

//  Tell the reconciler the fleet: each connected worker, what runs there
static void
s_sim_fleet (s_sim_t *sim)
{
    drover_fleet_worker_t workers [S_WORKERS_MAX];
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
static void
s_define (s_sim_t *sim, const char *name, uint32_t replicas, const char *label)
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
static int
s_report (s_sim_t *sim, size_t index, drover_task_state_t state, drover_end_t end,
          const char *why)
{
    drover_replica_report_t report = {
        sim->tasks [index].task, sim->tasks [index].service, sim->tasks [index].slot,
        sim->names [sim->tasks [index].worker], 1, state, end, why
    };
    return drover_reconciler_replica (sim->rec, &report, sim->now);
}

//  Start a replica task as assign would: ASSIGNED, then RUNNING
static size_t
s_start_task (s_sim_t *sim, const char *service, uint32_t slot, const char *worker)
{
    size_t index = sim->ntasks++;
    assert_true (index < S_TASKS_MAX);
    sim->tasks [index].task = sim->next_task++;
    snprintf (sim->tasks [index].service, sizeof sim->tasks [index].service, "%s", service);
    sim->tasks [index].slot = slot;
    sim->tasks [index].worker = s_worker (sim, worker);
    assert_true (sim->tasks [index].worker >= 0);
    sim->tasks [index].alive = true;
    s_report (sim, index, DROVER_TASK_ASSIGNED, DROVER_END_NONE, "");
    s_report (sim, index, DROVER_TASK_RUNNING, DROVER_END_NONE, "");
    return index;
}

//  Index of a task in the simulation
static size_t
s_task (s_sim_t *sim, uint64_t task)
{
    for (size_t index = 0; index < sim->ntasks; index++)
        if (sim->tasks [index].task == task)
            return index;
    fail_msg ("no task %" PRIu64, task);
    return 0;
}

//  End a task (its worker no longer runs it) and report it
static int
s_end_task (s_sim_t *sim, size_t index, drover_task_state_t state, drover_end_t end,
            const char *why)
{
    sim->tasks [index].alive = false;
    return s_report (sim, index, state, end, why);
}

//  Commit a change set and carry it out as assign would: starts (and
//  moves' starts) run on their worker, stops end CANCELLED
static void
s_sim_apply (s_sim_t *sim, drover_changeset_t *set)
{
    drover_reconciler_commit (sim->rec, set, sim->now);
    for (size_t index = 0; index < set->count; index++) {
        drover_planchange_t *change = &set->changes [index];
        if (change->kind == DROVER_CHANGE_START || change->kind == DROVER_CHANGE_MOVE)
            s_start_task (sim, change->service, change->slot, change->to);
        else
        if (change->kind == DROVER_CHANGE_STOP) {
            size_t task = s_task (sim, change->task);
            if (sim->tasks [task].alive)
                s_end_task (sim, task, DROVER_TASK_CANCELLED, DROVER_END_CANCELLED, "stopped");
        }
    }
}

//  Run a gather: every connected worker but silent (NULL none) answers
//  with what it runs
static void
s_sim_gather (s_sim_t *sim, const char *silent)
{
    s_sim_fleet (sim);
    drover_reconciler_gather_begin (sim->rec, ++sim->term, sim->now);
    for (size_t worker = 0; worker < sim->nworkers; worker++) {
        if (!sim->in_fleet [worker] || (silent && streq (silent, sim->names [worker])))
            continue;
        drover_taskref_t refs [S_TASKS_MAX + 4];
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
static void
s_sim_term (s_sim_t *sim, const char *silent, drover_changeset_t *set)
{
    sim->now += 10000;
    s_sim_gather (sim, silent);
    sim->now += 5;
    drover_reconciler_what_t what = { .kind = DROVER_RECONCILER_TERM };
    drover_reconciler_compute (sim->rec, &what, sim->now, set);
}

//  Compute a pass on a fresh fleet
static void
s_sim_pass (s_sim_t *sim, drover_changeset_t *set)
{
    s_sim_fleet (sim);
    drover_reconciler_what_t what = { .kind = DROVER_RECONCILER_PASS };
    drover_reconciler_compute (sim->rec, &what, sim->now, set);
}

//  Run terms, carrying each out, until one changes nothing; returns the
//  terms it took
static int
s_sim_settle (s_sim_t *sim)
{
    drover_changeset_t set = { 0 };
    for (int terms = 1; terms <= 10; terms++) {
        s_sim_term (sim, NULL, &set);
        if (set.count == 0) {
            drover_reconciler_commit (sim->rec, &set, sim->now);
            drover_changeset_reset (&set);
            return terms;
        }
        s_sim_apply (sim, &set);
    }
    fail_msg ("the cluster did not settle in 10 terms");
    return 0;
}

//  Count the replicas of service alive on each worker
static void
s_counts (s_sim_t *sim, const char *service, uint32_t *counts)
{
    memset (counts, 0, S_WORKERS_MAX * sizeof (uint32_t));
    for (size_t index = 0; index < sim->ntasks; index++)
        if (sim->tasks [index].alive && streq (sim->tasks [index].service, service))
            counts [sim->tasks [index].worker]++;
}

//  Count the changes of a kind in a set
static size_t
s_changes (const drover_changeset_t *set, drover_change_kind_t kind)
{
    size_t count = 0;
    for (size_t index = 0; index < set->count; index++)
        count += set->changes [index].kind == kind;
    return count;
}

//  Order counts, largest first (qsort's comparator)
static int
s_compare_counts (const void *one, const void *two)
{
    uint32_t a = *(const uint32_t *) one, b = *(const uint32_t *) two;
    return a > b? -1: a < b? 1: 0;
}

//  The spread: 3 workers and a service of 4 replicas: 2/1/1, in
//  one term; the statistics say 4 started and the service just right
static void
test_spread_2_1_1 (void **state)
{
    s_sim_t *sim = s_sim_new (3);
    s_define (sim, "web", 4, NULL);
    drover_changeset_t set = { 0 };
    s_sim_term (sim, NULL, &set);
    assert_int_equal (set.kind, DROVER_RECONCILER_TERM);
    assert_int_equal (set.count, 4);
    assert_int_equal (s_changes (&set, DROVER_CHANGE_START), 4);
    assert_int_equal (set.before.lost, 1);
    assert_int_equal (set.before.running, 0);
    assert_int_equal (set.after.started, 4);
    assert_int_equal (set.after.running, 4);
    assert_int_equal (set.after.ok, 1);
    assert_int_equal (set.after.term, 1);
    assert_int_equal (set.after.complete, 1);
    s_sim_apply (sim, &set);
    assert_true (drover_reconciler_stats (sim->rec)->term == 1);
    assert_int_equal (drover_reconciler_stats (sim->rec)->started, 4);
    uint32_t counts [S_WORKERS_MAX];
    s_counts (sim, "web", counts);
    qsort (counts, 3, sizeof counts [0], s_compare_counts);
    assert_int_equal (counts [0], 2);
    assert_int_equal (counts [1], 1);
    assert_int_equal (counts [2], 1);
    assert_int_equal (s_sim_settle (sim), 1);       //  nothing more to do
    drover_changeset_reset (&set);
    s_sim_destroy (&sim);
}

//  A slot goes to the first worker in the rendezvous order of
//  "SERVICE/SLOT" that could hold it: labels, room, taking new work
static void
test_rendezvous_placement (void **state)
{
    s_sim_t *sim = s_sim_new (5);
    s_define (sim, "db", 1, NULL);
    const char *ids [5] = { "w1", "w2", "w3", "w4", "w5" };
    size_t order [5];
    drover_rendezvous_order ("db/0", 4, ids, NULL, 5, order);
    drover_changeset_t set = { 0 };
    s_sim_pass (sim, &set);
    assert_int_equal (set.count, 1);
    assert_string_equal (set.changes [0].to, ids [order [0]]);
    assert_string_equal (set.changes [0].service, "db");
    assert_int_equal (set.changes [0].slot, 0);
    //  Its first worker full, held or without the label: the next in order
    sim->procs [order [0]] = 0;
    s_sim_pass (sim, &set);
    assert_string_equal (set.changes [0].to, ids [order [1]]);
    sim->procs [order [0]] = 8;
    sim->states [order [0]] = DROVER_FLEET_HELD;
    s_sim_pass (sim, &set);
    assert_string_equal (set.changes [0].to, ids [order [1]]);
    sim->states [order [0]] = DROVER_FLEET_USABLE;
    drover_reconciler_undefine (sim->rec, "db", sim->now);
    s_define (sim, "db", 1, "ssd=yes");
    snprintf (sim->labels [order [2]], sizeof sim->labels [0], "zone=eu\nssd=yes");
    s_sim_pass (sim, &set);
    assert_int_equal (set.count, 1);
    assert_string_equal (set.changes [0].to, ids [order [2]]);
    //  Nobody with the label: the slot waits, and says so
    sim->labels [order [2]][0] = 0;
    s_sim_pass (sim, &set);
    assert_int_equal (set.count, 0);
    drover_service_row_t *rows;
    drover_replica_row_t *replicas;
    size_t nrows, nreplicas;
    assert_int_equal (drover_reconciler_rows (sim->rec, "db", sim->now, &rows, &nrows,
                                             &replicas, &nreplicas), 1);
    assert_int_equal (rows [0].state, DROVER_SERVICE_LOST);
    assert_non_null (strstr (rows [0].why, "waits"));
    assert_int_equal (nreplicas, 1);
    assert_int_equal (replicas [0].state, DROVER_REPLICA_WAITING);
    assert_string_equal (replicas [0].why, "no worker has room");
    drover_reconciler_rows_free (&rows, nrows, &replicas);
    assert_null (rows);
    drover_changeset_reset (&set);
    s_sim_destroy (&sim);
}

//  Starts committed but not reported yet take room: a worker of 1 proc
//  gets one replica, the next goes elsewhere
static void
test_pending_starts_take_room (void **state)
{
    s_sim_t *sim = s_sim_new (2);
    sim->procs [0] = sim->procs [1] = 1;
    s_define (sim, "a", 1, NULL);
    drover_changeset_t set = { 0 };
    s_sim_pass (sim, &set);
    assert_int_equal (set.count, 1);
    drover_reconciler_commit (sim->rec, &set, sim->now);     //  no REPLICA yet
    char first [DROVER_ID_MAX + 1];
    snprintf (first, sizeof first, "%s", set.changes [0].to);
    s_define (sim, "b", 1, NULL);
    s_sim_pass (sim, &set);
    assert_int_equal (set.count, 1);                        //  a's start holds its slot
    assert_string_equal (set.changes [0].service, "b");
    assert_string_not_equal (set.changes [0].to, first);
    //  A start never reported is forgotten after term + gather-timeout
    drover_reconciler_commit (sim->rec, &set, sim->now);
    sim->now += 12001;
    drover_reconciler_commit (sim->rec, &(drover_changeset_t) { 0 }, sim->now);
    s_sim_pass (sim, &set);
    assert_int_equal (set.count, 2);
    drover_changeset_reset (&set);
    s_sim_destroy (&sim);
}

//  A worker gone from the fleet: its replicas start elsewhere in one
//  computation, nothing else moves
static void
test_worker_lost (void **state)
{
    s_sim_t *sim = s_sim_new (3);
    s_define (sim, "web", 4, NULL);
    s_sim_settle (sim);
    uint32_t counts [S_WORKERS_MAX];
    s_counts (sim, "web", counts);
    int lost = counts [0] == 2? 0: counts [1] == 2? 1: 2;
    sim->in_fleet [lost] = false;
    drover_changeset_t set = { 0 };
    s_sim_pass (sim, &set);
    assert_int_equal (set.count, 2);
    assert_int_equal (s_changes (&set, DROVER_CHANGE_START), 2);
    for (size_t index = 0; index < set.count; index++) {
        assert_string_not_equal (set.changes [index].to, sim->names [lost]);
        assert_string_equal (set.changes [index].why, "worker lost");
    }
    assert_int_equal (set.before.running, 2);
    assert_int_equal (set.before.under, 1);
    assert_int_equal (set.after.running, 4);
    s_sim_apply (sim, &set);
    //  assign ends the lost worker's tasks: no restart, no backoff
    for (size_t index = 0; index < sim->ntasks; index++)
        if (sim->tasks [index].alive && sim->tasks [index].worker == lost)
            s_end_task (sim, index, DROVER_TASK_FAILED, DROVER_END_LOST, "worker lost");
    s_counts (sim, "web", counts);
    assert_int_equal (counts [0] + counts [1] + counts [2], 4);
    assert_int_equal (counts [lost], 0);
    assert_true (counts [0] <= 2 && counts [1] <= 2 && counts [2] <= 2);
    s_sim_term (sim, NULL, &set);
    assert_int_equal (set.count, 0);
    assert_int_equal (set.after.running, 4);
    drover_changeset_reset (&set);
    s_sim_destroy (&sim);
}

//  A worker joining takes only what the spread needs: 4 replicas on 3
//  workers then 4: one move, to it; 3 replicas on 3 then 4: none
static void
test_worker_joins (void **state)
{
    s_sim_t *sim = s_sim_new (3);
    s_define (sim, "web", 4, NULL);
    s_define (sim, "api", 3, NULL);
    s_sim_settle (sim);
    int joined = s_sim_join (sim, "w4");
    drover_changeset_t set = { 0 };
    s_sim_term (sim, NULL, &set);
    assert_int_equal (set.count, 1);
    assert_int_equal (set.changes [0].kind, DROVER_CHANGE_MOVE);
    assert_string_equal (set.changes [0].service, "web");
    assert_string_equal (set.changes [0].to, "w4");
    assert_string_equal (set.changes [0].why, "spread");
    assert_int_equal (set.after.moved, 1);
    uint32_t counts [S_WORKERS_MAX];
    s_counts (sim, "web", counts);
    assert_int_equal (counts [s_worker (sim, set.changes [0].from)], 2);
    s_sim_apply (sim, &set);
    //  The next term stops the replica moved away, once the new one runs
    s_sim_term (sim, NULL, &set);
    assert_int_equal (set.count, 1);
    assert_int_equal (set.changes [0].kind, DROVER_CHANGE_STOP);
    assert_string_equal (set.changes [0].why, "moved");
    s_sim_apply (sim, &set);
    s_counts (sim, "web", counts);
    for (int worker = 0; worker <= joined; worker++)
        assert_int_equal (counts [worker], 1);
    s_counts (sim, "api", counts);
    assert_int_equal (counts [joined], 0);          //  api was even: it stays
    assert_int_equal (s_sim_settle (sim), 1);
    drover_changeset_reset (&set);
    s_sim_destroy (&sim);
}

//  A draining worker's replicas move: started first elsewhere, stopped
//  once the new one runs; a held worker keeps its replicas
static void
test_drain_and_hold (void **state)
{
    s_sim_t *sim = s_sim_new (3);
    s_define (sim, "web", 4, NULL);
    s_sim_settle (sim);
    sim->states [1] = DROVER_FLEET_HELD;
    drover_changeset_t set = { 0 };
    s_sim_term (sim, NULL, &set);
    assert_int_equal (set.count, 0);
    uint32_t counts [S_WORKERS_MAX];
    s_counts (sim, "web", counts);
    uint32_t on_w1 = counts [0];
    sim->states [1] = DROVER_FLEET_USABLE;
    sim->states [0] = DROVER_FLEET_DRAINING;
    s_sim_term (sim, NULL, &set);
    assert_int_equal (set.count, on_w1);
    assert_int_equal (s_changes (&set, DROVER_CHANGE_MOVE), on_w1);
    for (size_t index = 0; index < set.count; index++) {
        assert_string_equal (set.changes [index].from, "w1");
        assert_string_not_equal (set.changes [index].to, "w1");
        assert_string_equal (set.changes [index].why, "worker draining");
        assert_true (set.changes [index].task > 0);
    }
    s_sim_apply (sim, &set);
    s_counts (sim, "web", counts);
    assert_int_equal (counts [0], on_w1);           //  still running there
    s_sim_term (sim, NULL, &set);
    assert_int_equal (s_changes (&set, DROVER_CHANGE_STOP), on_w1);
    assert_int_equal (set.count, on_w1);
    s_sim_apply (sim, &set);
    s_counts (sim, "web", counts);
    assert_int_equal (counts [0], 0);
    assert_int_equal (counts [1] + counts [2], 4);
    drover_changeset_reset (&set);
    s_sim_destroy (&sim);
}

//  Scale down stops the highest slots, in a pass too; delete stops all,
//  and the service is gone once they end
static void
test_scale_down_and_delete (void **state)
{
    s_sim_t *sim = s_sim_new (3);
    s_define (sim, "web", 5, NULL);
    s_sim_settle (sim);
    assert_int_equal (drover_reconciler_scale (sim->rec, "web", 2, sim->now), 0);
    drover_changeset_t set = { 0 };
    s_sim_pass (sim, &set);
    assert_int_equal (set.count, 3);
    for (size_t index = 0; index < set.count; index++) {
        assert_int_equal (set.changes [index].kind, DROVER_CHANGE_STOP);
        assert_true (set.changes [index].slot >= 2);
        assert_string_equal (set.changes [index].why, "scaled down");
    }
    assert_int_equal (set.after.running, 2);
    assert_int_equal (set.after.wanted, 2);
    assert_int_equal (set.before.over, 1);
    assert_int_equal (set.after.ok, 1);
    s_sim_apply (sim, &set);
    s_sim_pass (sim, &set);
    assert_int_equal (set.count, 0);
    assert_int_equal (drover_reconciler_undefine (sim->rec, "web", sim->now), 0);
    assert_false (drover_reconciler_has (sim->rec, "web"));
    assert_int_equal (drover_reconciler_services (sim->rec), 0);
    s_sim_pass (sim, &set);
    assert_int_equal (set.count, 2);
    assert_string_equal (set.changes [0].why, "service deleted");
    s_sim_apply (sim, &set);
    s_sim_pass (sim, &set);
    assert_int_equal (set.count, 0);
    assert_int_equal (drover_reconciler_undefine (sim->rec, "web", sim->now), -1);
    //  A replica of a service nobody defines (restored) is stopped
    s_start_task (sim, "ghost", 0, "w2");
    s_sim_pass (sim, &set);
    assert_int_equal (set.count, 1);
    assert_string_equal (set.changes [0].why, "service deleted");
    assert_false (drover_reconciler_has (sim->rec, "ghost"));
    drover_changeset_reset (&set);
    s_sim_destroy (&sim);
}

//  A second replica of a slot is stopped by a term once one runs; a
//  pass leaves it
static void
test_duplicate (void **state)
{
    s_sim_t *sim = s_sim_new (3);
    s_define (sim, "web", 2, NULL);
    s_sim_settle (sim);
    size_t extra = s_start_task (sim, "web", 1, "w3");
    drover_changeset_t set = { 0 };
    s_sim_pass (sim, &set);
    assert_int_equal (set.count, 0);
    assert_int_equal (set.before.over, 1);
    s_sim_term (sim, NULL, &set);
    assert_int_equal (set.count, 1);
    assert_int_equal (set.changes [0].kind, DROVER_CHANGE_STOP);
    assert_int_equal (set.changes [0].slot, 1);
    assert_string_equal (set.changes [0].why, "duplicate");
    assert_true (set.changes [0].task == sim->tasks [extra].task);  //  the newer one
    drover_changeset_reset (&set);
    s_sim_destroy (&sim);
}

//  A running replica its worker does not list is stopped and replaced
static void
test_not_running_on_worker (void **state)
{
    s_sim_t *sim = s_sim_new (3);
    s_define (sim, "web", 4, NULL);
    s_sim_settle (sim);
    size_t vanished = 0;
    sim->tasks [vanished].alive = false;        //  gone, unreported
    drover_changeset_t set = { 0 };
    s_sim_term (sim, NULL, &set);
    assert_int_equal (set.count, 2);
    assert_int_equal (set.changes [0].kind, DROVER_CHANGE_STOP);
    assert_string_equal (set.changes [0].why, "not running on its worker");
    assert_true (set.changes [0].task == sim->tasks [vanished].task);
    assert_int_equal (set.changes [1].kind, DROVER_CHANGE_START);
    assert_int_equal (set.changes [1].slot, sim->tasks [vanished].slot);
    assert_int_equal (set.after.complete, 1);
    drover_changeset_reset (&set);
    s_sim_destroy (&sim);
}

//  The silent worker: no removals that term, the statistics say
//  which worker did not answer; starts still happen
static void
test_silent_worker (void **state)
{
    s_sim_t *sim = s_sim_new (3);
    s_define (sim, "web", 3, NULL);
    s_sim_settle (sim);
    s_start_task (sim, "web", 0, "w3");          //  a duplicate a term would stop
    sim->tasks [1].alive = false;               //  and one gone
    drover_reconciler_scale (sim->rec, "web", 4, sim->now);
    drover_changeset_t set = { 0 };
    s_sim_term (sim, "w2", &set);
    assert_int_equal (set.after.complete, 0);
    assert_string_equal (set.after.why, "incomplete: w2 did not answer");
    assert_int_equal (set.after.workers, 3);
    assert_int_equal (set.after.answered, 2);
    assert_int_equal (s_changes (&set, DROVER_CHANGE_STOP), 0);
    assert_int_equal (s_changes (&set, DROVER_CHANGE_MOVE), 0);
    assert_int_equal (s_changes (&set, DROVER_CHANGE_START), 1);    //  slot 3
    s_sim_apply (sim, &set);
    assert_int_equal (drover_reconciler_stats (sim->rec)->complete, 0);
    assert_string_equal (drover_reconciler_stats (sim->rec)->why,
                         "incomplete: w2 did not answer");
    //  Everyone answers: the duplicate and the one gone are dealt with
    s_sim_term (sim, NULL, &set);
    assert_int_equal (set.after.complete, 1);
    assert_string_equal (set.after.why, "");
    assert_int_equal (s_changes (&set, DROVER_CHANGE_STOP), 2);
    drover_changeset_reset (&set);
    s_sim_destroy (&sim);
}

//  keep-balance's sanity: removals past max-stop-percent of the running
//  replicas are not made, and the statistics say why
static void
test_max_stop_percent (void **state)
{
    s_sim_t *sim = s_sim_new (3);
    s_define (sim, "web", 4, NULL);
    s_sim_settle (sim);
    for (size_t index = 0; index < 3; index++)
        sim->tasks [index].alive = false;      //  3 of 4 vanish: implausible
    drover_changeset_t set = { 0 };
    s_sim_term (sim, NULL, &set);
    assert_int_equal (set.count, 0);
    assert_int_equal (set.after.complete, 0);
    assert_string_equal (set.after.why,
                         "implausible: would stop 3 of 4 running replicas (over 50%)");
    //  Two of four is within 50%: stopped and replaced
    sim->tasks [2].alive = true;
    s_sim_term (sim, NULL, &set);
    assert_int_equal (set.after.complete, 1);
    assert_int_equal (s_changes (&set, DROVER_CHANGE_STOP), 2);
    assert_int_equal (s_changes (&set, DROVER_CHANGE_START), 2);
    drover_changeset_reset (&set);
    s_sim_destroy (&sim);
}

//  A replica that ends restarts after the restart delay, doubling with
//  each quick exit up to the cap; crash-warn quick exits in a row make the
//  service CRASHING; a long run ends the streak; a lost worker no backoff
static void
test_restart_backoff (void **state)
{
    s_sim_t *sim = s_sim_new (2);
    s_define (sim, "job", 1, NULL);
    s_sim_settle (sim);
    uint64_t expected [6] = { 1000, 2000, 4000, 5000, 5000, 5000 };
    drover_changeset_t set = { 0 };
    for (int exit = 0; exit < 6; exit++) {
        size_t task = sim->ntasks - 1;
        assert_true (sim->tasks [task].alive);
        sim->now += 10;
        int crashing = s_end_task (sim, task, DROVER_TASK_FAILED, DROVER_END_FAILED,
                                   "exited 1");
        assert_int_equal (crashing, exit == 2);
        uint64_t ended = sim->now;
        s_sim_pass (sim, &set);
        assert_int_equal (set.count, 0);
        assert_true (set.next == ended + expected [exit]);
        drover_service_row_t *rows;
        drover_replica_row_t *replicas;
        size_t nrows, nreplicas;
        drover_reconciler_rows (sim->rec, "job", sim->now, &rows, &nrows, &replicas, &nreplicas);
        assert_int_equal (rows [0].state, exit >= 2? DROVER_SERVICE_CRASHING:
                                                    DROVER_SERVICE_LOST);
        assert_int_equal (rows [0].restarts, exit + 1);
        assert_int_equal (replicas [0].state, DROVER_REPLICA_WAITING);
        assert_non_null (strstr (replicas [0].why, "exited 1"));
        assert_int_equal (replicas [0].restarts, exit + 1);
        drover_reconciler_rows_free (&rows, nrows, &replicas);
        sim->now = set.next - 1;
        s_sim_pass (sim, &set);
        assert_int_equal (set.count, 0);
        sim->now++;
        s_sim_pass (sim, &set);
        assert_int_equal (set.count, 1);
        assert_string_equal (set.changes [0].why, "restart");
        s_sim_apply (sim, &set);
    }
    //  A run past stable-after ends the streak: the next exit waits 1 s
    sim->now += 60000;
    size_t task = sim->ntasks - 1;
    assert_int_equal (s_end_task (sim, task, DROVER_TASK_SUCCEEDED, DROVER_END_SUCCEEDED,
                                  "exited 0"), 0);
    s_sim_pass (sim, &set);
    assert_true (set.next == sim->now + 1000);
    sim->now = set.next;
    s_sim_pass (sim, &set);
    s_sim_apply (sim, &set);
    //  Its worker lost: restarted at once
    task = sim->ntasks - 1;
    s_end_task (sim, task, DROVER_TASK_FAILED, DROVER_END_LOST, "worker lost");
    s_sim_pass (sim, &set);
    assert_int_equal (set.count, 1);
    //  Stopped by the reconciler: no restart
    s_sim_apply (sim, &set);
    drover_reconciler_scale (sim->rec, "job", 0, sim->now);
    s_sim_pass (sim, &set);
    assert_int_equal (set.count, 1);
    s_sim_apply (sim, &set);
    drover_reconciler_scale (sim->rec, "job", 1, sim->now);
    s_sim_pass (sim, &set);
    assert_int_equal (set.count, 1);
    assert_int_equal (set.next, 0);
    drover_changeset_reset (&set);
    s_sim_destroy (&sim);
}

//  Compare the replica changes (not FINISH) of two sets
static void
s_assert_same_changes (const drover_changeset_t *plan, const drover_changeset_t *term)
{
    size_t compared = 0;
    for (size_t index = 0; index < plan->count; index++) {
        const drover_planchange_t *change = &plan->changes [index];
        if (change->kind == DROVER_CHANGE_FINISH)
            continue;
        assert_true (compared < term->count);
        const drover_planchange_t *done = &term->changes [compared++];
        assert_int_equal (change->kind, done->kind);
        assert_string_equal (change->service, done->service);
        assert_int_equal (change->slot, done->slot);
        assert_true (change->task == done->task);
        assert_string_equal (change->from, done->from);
        assert_string_equal (change->to, done->to);
        assert_string_equal (change->why, done->why);
    }
    assert_int_equal (compared, term->count - s_changes (term, DROVER_CHANGE_FINISH));
}

//  The plan: a plan drain of W equals the change set of the term
//  computed once W drains; it lists W's batch tasks as left to finish,
//  and changes nothing
static void
test_plan_drain_equals_term (void **state)
{
    s_sim_t *sim = s_sim_new (4);
    s_define (sim, "web", 6, NULL);
    s_define (sim, "api", 3, NULL);
    s_sim_settle (sim);
    sim->batch [sim->nbatch++] = 7;             //  w1 runs a batch task too
    s_sim_gather (sim, NULL);
    drover_reconciler_what_t what = { .kind = DROVER_RECONCILER_PLAN, .action = DROVER_PLAN_DRAIN,
                                     .worker = "w1" };
    drover_changeset_t plan = { 0 }, again = { 0 }, term = { 0 };
    drover_reconciler_compute (sim->rec, &what, sim->now, &plan);
    assert_int_equal (plan.kind, DROVER_RECONCILER_PLAN);
    assert_true (s_changes (&plan, DROVER_CHANGE_MOVE) > 0);
    assert_int_equal (s_changes (&plan, DROVER_CHANGE_FINISH), 1);
    const drover_planchange_t *finish = &plan.changes [plan.count - 1];
    assert_int_equal (finish->kind, DROVER_CHANGE_FINISH);
    assert_true (finish->task == 7);
    assert_string_equal (finish->from, "w1");
    assert_int_equal (plan.before.running, 9);
    assert_int_equal (plan.after.running, 9);
    assert_int_equal (plan.after.moved, s_changes (&plan, DROVER_CHANGE_MOVE));
    //  Computing again gives the same: nothing changed
    drover_reconciler_compute (sim->rec, &what, sim->now, &again);
    s_assert_same_changes (&plan, &again);
    assert_int_equal (plan.count, again.count);
    //  Now drain it: the term does what the plan said
    sim->states [0] = DROVER_FLEET_DRAINING;
    s_sim_term (sim, NULL, &term);
    s_assert_same_changes (&plan, &term);
    assert_int_equal (s_changes (&term, DROVER_CHANGE_FINISH), 0);
    drover_changeset_reset (&plan);
    drover_changeset_reset (&again);
    drover_changeset_reset (&term);
    s_sim_destroy (&sim);
}

//  Plans of a scale and a hold: starts or stops predicted, nothing done;
//  a hold moves nothing
static void
test_plan_scale_and_hold (void **state)
{
    s_sim_t *sim = s_sim_new (3);
    s_define (sim, "web", 4, NULL);
    s_sim_settle (sim);
    drover_reconciler_what_t scale = { .kind = DROVER_RECONCILER_PLAN, .action = DROVER_PLAN_SCALE,
                                      .service = "web", .count = 7 };
    drover_changeset_t plan = { 0 };
    drover_reconciler_compute (sim->rec, &scale, sim->now, &plan);
    assert_int_equal (s_changes (&plan, DROVER_CHANGE_START), 3);
    assert_int_equal (plan.before.wanted, 4);
    assert_int_equal (plan.after.wanted, 7);
    assert_int_equal (plan.after.running, 7);
    scale.count = 1;
    drover_reconciler_compute (sim->rec, &scale, sim->now, &plan);
    assert_int_equal (s_changes (&plan, DROVER_CHANGE_STOP), 3);
    assert_int_equal (plan.after.running, 1);
    drover_reconciler_what_t hold = { .kind = DROVER_RECONCILER_PLAN, .action = DROVER_PLAN_HOLD,
                                     .worker = "w2" };
    drover_reconciler_compute (sim->rec, &hold, sim->now, &plan);
    assert_int_equal (plan.count, 0);
    drover_reconciler_what_t next = { .kind = DROVER_RECONCILER_PLAN, .action = DROVER_PLAN_TERM };
    drover_reconciler_compute (sim->rec, &next, sim->now, &plan);
    assert_int_equal (plan.count, 0);
    assert_int_equal (plan.after.ok, 1);
    drover_changeset_t set = { 0 };
    s_sim_pass (sim, &set);
    assert_int_equal (set.count, 0);                //  the plans changed nothing
    drover_changeset_reset (&plan);
    drover_changeset_reset (&set);
    s_sim_destroy (&sim);
}

//  Definitions: limits, replace, unknown names; statistics: lost, under,
//  ok, over and the restarts histogram
static void
test_definitions_and_stats (void **state)
{
    s_sim_t *sim = s_sim_new (2);
    drover_service_row_t def;
    memset (&def, 0, sizeof def);
    snprintf (def.name, sizeof def.name, "big");
    def.replicas = 101;                         //  past max-replicas 100
    assert_int_equal (drover_reconciler_define (sim->rec, &def, sim->now), -1);
    def.replicas = 2;
    def.procs = 0;                              //  taken as 1
    snprintf (def.summary, sizeof def.summary, "sleep 100");
    assert_int_equal (drover_reconciler_define (sim->rec, &def, sim->now), 0);
    def.replicas = 3;
    assert_int_equal (drover_reconciler_define (sim->rec, &def, sim->now + 5), 1);
    assert_int_equal (drover_reconciler_scale (sim->rec, "big", 101, sim->now), -1);
    assert_int_equal (drover_reconciler_scale (sim->rec, "nope", 1, sim->now), -1);
    s_define (sim, "b", 1, NULL);
    s_define (sim, "c", 1, NULL);
    s_define (sim, "d", 0, NULL);
    snprintf (def.name, sizeof def.name, "e");
    assert_int_equal (drover_reconciler_define (sim->rec, &def, sim->now), -1);  //  5th
    assert_int_equal (drover_reconciler_services (sim->rec), 4);
    s_sim_settle (sim);
    //  big: 3 running, then one ends (under); b: lost (no room); c: over
    sim->procs [0] = sim->procs [1] = 0;
    size_t task = 0;
    while (!streq (sim->tasks [task].service, "b"))
        task++;
    s_end_task (sim, task, DROVER_TASK_FAILED, DROVER_END_FAILED, "exited 2");
    task = 0;
    while (!streq (sim->tasks [task].service, "big"))
        task++;
    s_end_task (sim, task, DROVER_TASK_FAILED, DROVER_END_FAILED, "exited 3");
    s_start_task (sim, "c", 0, "w1");
    sim->now += 100000;
    drover_changeset_t set = { 0 };
    s_sim_term (sim, NULL, &set);
    assert_int_equal (set.count, 1);            //  c's duplicate
    assert_int_equal (set.before.services, 4);
    assert_int_equal (set.before.wanted, 5);
    assert_int_equal (set.before.running, 4);
    assert_int_equal (set.before.lost, 1);
    assert_int_equal (set.before.under, 1);
    assert_int_equal (set.before.over, 1);
    assert_int_equal (set.before.ok, 1);        //  d: 0 of 0
    assert_int_equal (set.before.restarts [0], 3);
    assert_int_equal (set.before.restarts [1], 2);
    assert_int_equal (set.after.over, 0);
    assert_int_equal (set.after.ok, 2);
    drover_reconciler_commit (sim->rec, &set, sim->now);
    assert_true (drover_reconciler_stats (sim->rec)->term == set.after.term);
    assert_true (drover_reconciler_stats (sim->rec)->at == sim->now);
    assert_int_equal (drover_reconciler_stats (sim->rec)->duration, 5);
    drover_service_row_t *rows;
    drover_replica_row_t *replicas;
    size_t nrows, nreplicas;
    assert_int_equal (drover_reconciler_rows (sim->rec, "", sim->now, &rows, &nrows,
                                             &replicas, &nreplicas), 4);
    assert_null (replicas);
    assert_string_equal (rows [0].name, "b");
    assert_string_equal (rows [1].name, "big");
    assert_string_equal (rows [1].summary, "sleep 100");
    assert_int_equal (rows [1].procs, 1);
    assert_int_equal (rows [1].state, DROVER_SERVICE_UNDER);
    assert_int_equal (rows [1].running, 2);
    assert_int_equal (rows [1].created, 1000000);
    drover_reconciler_rows_free (&rows, nrows, &replicas);
    assert_int_equal (drover_reconciler_rows (sim->rec, "zz", sim->now, &rows, &nrows,
                                             &replicas, &nreplicas), -1);
    drover_changeset_reset (&set);
    s_sim_destroy (&sim);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_spread_2_1_1),
        cmocka_unit_test (test_rendezvous_placement),
        cmocka_unit_test (test_pending_starts_take_room),
        cmocka_unit_test (test_worker_lost),
        cmocka_unit_test (test_worker_joins),
        cmocka_unit_test (test_drain_and_hold),
        cmocka_unit_test (test_scale_down_and_delete),
        cmocka_unit_test (test_duplicate),
        cmocka_unit_test (test_not_running_on_worker),
        cmocka_unit_test (test_silent_worker),
        cmocka_unit_test (test_max_stop_percent),
        cmocka_unit_test (test_restart_backoff),
        cmocka_unit_test (test_plan_drain_equals_term),
        cmocka_unit_test (test_plan_scale_and_hold),
        cmocka_unit_test (test_definitions_and_stats),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
