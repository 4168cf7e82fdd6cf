/*  =========================================================================
    drover_benchmark_workflow - `drover bench`'s phases about tasks that
    wait for other tasks, and arrays (each measurement on a fresh broker
    with the default settings unless said, its in-process no-op workers
    counting every run):

    (n) fanout    a root task, an array of N no-op elements each after the
                  root (AFTER_OK), a final task after the array's id: N + 2
                  tasks/s from the first submit to the final task's end;
                  beside it, the same N + 2 tasks without dependencies as
                  plain windowed submits (the noop phase's way) and as one
                  plain array, each on a fresh broker, and the graph's rate
                  as a percentage of each;
    (o) chain     M tasks each after the previous one, all submitted before
                  any worker is there (every link but the first waiting),
                  then the workers started: tasks/s and msec per link from
                  the workers' start to the last link's end;
    (p) array     one array of a million elements in one request, no
                  workers: time to TASK ACCEPTED, the broker's RSS before
                  and after (once it has answered a listing), bytes per
                  element; then the array cancelled by its id and waited on
                  until it ends CANCELLED (or, with --array-run, every
                  element run to its end instead);
    (q) graph-restart  C chains of L tasks (durability full) submitted with
                  NOTIFY, run until half have ended (their TASK DONEs
                  counted), the broker killed with SIGKILL and started again
                  on its state: msec to its first answer; then each task
                  not yet ended waited on: every task must end exactly once
                  at the wire, SUCCEEDED; runs at the workers past one are
                  counted (execution is at least once).

    Every result is checked: the tasks the workers ran (exactly the tasks
    submitted, for n-p), the outcome of the last task or the group waited
    on, and the broker's counts at the end (nothing left queued or
    running, nothing failed or cancelled but what was cancelled).
    =========================================================================
*/

#include "drover_cli.h"
#include "drover_benchmark.h"

//  The settings of a broker whose state must survive a kill -9
static const char *s_full [] = { "broker/durability=full", NULL };

#define S_STALL_MSEC    60000       //  msec without a TASK DONE before (q) gives up


//  ---------------------------------------------------------------------
//  The tasks a phase watches: runs at the workers, TASK DONEs at the wire

typedef struct {
    uint64_t *ids;              //  the task ids watched, sorted, or NULL (count runs only)
    size_t count;               //  entries in ids
    uint32_t *runs;             //  per watched task: offers run (workers' threads: atomic)
    uint32_t *ends;             //  per watched task: TASK DONEs (the client's thread)
    uint64_t *order;            //  per watched task: its first run's place among all runs,
                                //  from 1 (atomic)
    uint64_t run_total;         //  offers run, any task (atomic)
    uint64_t first_task;        //  the task run first (atomic)
    uint64_t last_task;         //  the task run last (atomic)
    uint64_t strangers;         //  offers run of tasks not watched (atomic)
    uint64_t ended;             //  TASK DONEs of watched tasks
    uint64_t unsucceeded;       //  of them, not SUCCEEDED
    uint64_t hold_after;        //  while held: runs past this many wait (atomic)
    int held;                   //  1: hold runs past hold_after (atomic)
} s_watch_t;

//  Order task ids, for qsort and bsearch
static int
s_compare_id (const void *left, const void *right)
{
    uint64_t a = *(const uint64_t *) left, b = *(const uint64_t *) right;
    return (a > b) - (a < b);
}

//  Return the index of task among the watched ids, or -1
static long
s_watch_index (const s_watch_t *watch, uint64_t task)
{
    if (!watch->ids)
        return -1;
    const uint64_t *found = (const uint64_t *) bsearch (&task, watch->ids, watch->count,
                                                        sizeof (uint64_t), s_compare_id);
    return found? (long) (found - watch->ids): -1;
}

//  The workers' handler (their threads): count the run, succeed at once
static int
s_on_run (void *arg, drover_job_t *job)
{
    s_watch_t *watch = (s_watch_t *) arg;
    //  Held half way (graph-restart): the graph cannot run to its end
    //  before the broker is killed, however fast the machine
    while (__atomic_load_n (&watch->held, __ATOMIC_SEQ_CST)
    &&     __atomic_load_n (&watch->run_total, __ATOMIC_SEQ_CST) >= watch->hold_after)
        zclock_sleep (1);
    uint64_t task = drover_job_task (job);
    uint64_t order = __atomic_add_fetch (&watch->run_total, 1, __ATOMIC_SEQ_CST);
    if (order == 1)
        __atomic_store_n (&watch->first_task, task, __ATOMIC_SEQ_CST);
    __atomic_store_n (&watch->last_task, task, __ATOMIC_SEQ_CST);
    long index = s_watch_index (watch, task);
    if (index >= 0) {
        __atomic_add_fetch (&watch->runs [index], 1, __ATOMIC_RELAXED);
        uint64_t unset = 0;
        __atomic_compare_exchange_n (&watch->order [index], &unset, order, false,
                                     __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    }
    else
    if (watch->ids)
        __atomic_add_fetch (&watch->strangers, 1, __ATOMIC_RELAXED);
    return 0;
}

//  The client's done handler and wait callback: count a watched task's end
static void
s_on_end (const drover_result_t *result, void *arg)
{
    s_watch_t *watch = (s_watch_t *) arg;
    long index = s_watch_index (watch, drover_result_task (result));
    if (index < 0)
        return;
    watch->ends [index]++;
    watch->ended++;
    if (drover_result_state (result) != DROVER_TASK_SUCCEEDED)
        watch->unsucceeded++;
}

//  Watch count tasks (ids copied and sorted). Returns 0, or -1 if an id is
//  0 or given twice (said why).
static int
s_watch_ids (s_watch_t *watch, const uint64_t *ids, size_t count, const char *phase)
{
    watch->ids = (uint64_t *) zmalloc (count * sizeof (uint64_t));
    memcpy (watch->ids, ids, count * sizeof (uint64_t));
    qsort (watch->ids, count, sizeof (uint64_t), s_compare_id);
    watch->count = count;
    watch->runs = (uint32_t *) zmalloc (count * sizeof (uint32_t));
    watch->ends = (uint32_t *) zmalloc (count * sizeof (uint32_t));
    watch->order = (uint64_t *) zmalloc (count * sizeof (uint64_t));
    for (size_t index = 0; index < count; index++)
        if (watch->ids [index] == 0 || (index && watch->ids [index] == watch->ids [index - 1])) {
            fprintf (stderr, "drover bench: %s: task id %" PRIu64 " accepted twice or 0\n",
                     phase, watch->ids [index]);
            return -1;
        }
    return 0;
}

//  Check that watched task child first ran after its parent first ran (a
//  necessary sign that it waited for it). Returns 0, or -1 (said why).
static int
s_check_after (s_watch_t *watch, uint64_t child, uint64_t parent, const char *phase)
{
    long child_at = s_watch_index (watch, child), parent_at = s_watch_index (watch, parent);
    assert (child_at >= 0 && parent_at >= 0);
    uint64_t child_order = __atomic_load_n (&watch->order [child_at], __ATOMIC_SEQ_CST);
    uint64_t parent_order = __atomic_load_n (&watch->order [parent_at], __ATOMIC_SEQ_CST);
    if (parent_order && child_order > parent_order)
        return 0;
    fprintf (stderr, "drover bench: %s: task %" PRIu64 " ran %s, its parent %" PRIu64 " %s\n",
             phase, child, child_order? "before": "never", parent,
             parent_order? "after": "never");
    return -1;
}

//  Free what a watch holds
static void
s_watch_reset (s_watch_t *watch)
{
    free (watch->ids);
    free (watch->runs);
    free (watch->ends);
    free (watch->order);
    memset (watch, 0, sizeof *watch);
}


//  ---------------------------------------------------------------------
//  A measurement: a fresh broker, a client, workers counting their runs

typedef struct {
    drover_benchmark_tally_t tally;     //  the client's acks
    drover_client_t *client;    //  owned
    drover_benchmark_crew_t crew;       //  the workers, once started
    s_watch_t watch;            //  what they ran, what ended
} s_session_t;

//  Start a broker with settings and connect a client. Returns 0, or -1.
static int
s_session_start (drover_benchmark_t *self, s_session_t *session, const char **settings)
{
    memset (session, 0, sizeof *session);
    if (drover_benchmark_broker_start (self, settings))
        return -1;
    session->client = drover_benchmark_client (self, &session->tally);
    return 0;
}

//  Start the workers, each run counted in session->watch. Returns 0, or -1.
static int
s_session_crew (drover_benchmark_t *self, s_session_t *session)
{
    session->crew.handler = s_on_run;
    session->crew.arg = &session->watch;
    return drover_benchmark_crew_start (self, &session->crew, session->client);
}

//  Stop the workers, the client and the broker; free the watch
static void
s_session_stop (drover_benchmark_t *self, s_session_t *session)
{
    drover_benchmark_crew_stop (&session->crew);
    drover_client_destroy (&session->client);
    drover_benchmark_broker_stop (self);
    s_watch_reset (&session->watch);
}

//  Build a no-op submit, after parent (AFTER_OK) unless 0, an array of
//  count elements unless 0. Returns it (the caller destroys it), or NULL
//  (said why).
static drover_submit_t *
s_submit_new (uint64_t parent, uint32_t count, bool notify, const char *phase)
{
    drover_submit_t *submit = drover_benchmark_submit_new (false,
                                                           notify? DROVER_SUBMIT_NOTIFY: 0);
    if ((parent && drover_submit_add_after (submit, DROVER_AFTER_OK, parent))
    ||  (count && drover_submit_set_array (submit, 0, 1, count, 0))) {
        fprintf (stderr, "drover bench: %s: the client refused the submit's after or array\n",
                 phase);
        drover_submit_destroy (&submit);
    }
    return submit;
}

//  Submit one no-op task (see s_submit_new) and wait for its id. Returns 0
//  with *task_p set, or -1 (said why).
static int
s_submit_one (drover_client_t *client, uint64_t parent, uint32_t count, uint64_t *task_p,
              const char *phase)
{
    drover_submit_t *submit = s_submit_new (parent, count, false, phase);
    int rc = submit? 0: -1;
    if (rc == 0 && drover_client_submit (client, submit, task_p)) {
        drover_cli_error (client, phase);
        rc = -1;
    }
    drover_submit_destroy (&submit);
    return rc;
}

//  Wait callback: keep the state of the one task waited on
static void
s_on_state (const drover_result_t *result, void *arg)
{
    *(int *) arg = drover_result_state (result);
}

//  Wait for task (a task, or an array's id) to end; it must end in state
//  expected. Returns 0, or -1 (said why).
static int
s_await_state (drover_client_t *client, uint64_t task, int expected, const char *phase)
{
    int state = -1;
    if (drover_client_wait (client, &task, 1, s_on_state, NULL, &state)) {
        drover_cli_error (client, phase);
        return -1;
    }
    if (state != expected) {
        fprintf (stderr, "drover bench: %s: task %" PRIu64 " ended in state %d, not %d\n",
                 phase, task, state, expected);
        return -1;
    }
    return 0;
}

//  Check that the workers ran exactly tasks offers. Returns 0, or -1.
static int
s_check_runs (s_session_t *session, long long tasks, const char *phase)
{
    uint64_t runs = __atomic_load_n (&session->watch.run_total, __ATOMIC_RELAXED);
    if (runs == (uint64_t) tasks)
        return 0;
    fprintf (stderr, "drover bench: %s: the workers ran %" PRIu64 " tasks, not %lld\n",
             phase, runs, tasks);
    return -1;
}

//  Check the broker's counts at the end of a measurement: nothing queued,
//  assigned or running, nothing failed, nothing cancelled unless allowed.
//  Returns 0, or -1 (said why).
static int
s_check_counts (drover_client_t *client, bool cancelled_allowed, const char *phase)
{
    drover_tasks_t *tasks = drover_client_tasks (client, 255, 0);
    if (!tasks) {
        drover_cli_error (client, phase);
        return -1;
    }
    uint64_t live = drover_tasks_count (tasks, DROVER_TASK_QUEUED)
                  + drover_tasks_count (tasks, DROVER_TASK_ASSIGNED)
                  + drover_tasks_count (tasks, DROVER_TASK_RUNNING);
    uint64_t failed = drover_tasks_count (tasks, DROVER_TASK_FAILED);
    uint64_t cancelled = drover_tasks_count (tasks, DROVER_TASK_CANCELLED);
    drover_tasks_destroy (&tasks);
    if (live || failed || (cancelled && !cancelled_allowed)) {
        fprintf (stderr, "drover bench: %s: the broker holds %" PRIu64 " tasks not ended, %"
                 PRIu64 " failed, %" PRIu64 " cancelled\n", phase, live, failed, cancelled);
        return -1;
    }
    return 0;
}

//  The usec of one measurement on session, or -1 (said why)
typedef int64_t (s_measure_fn) (drover_benchmark_t *self, s_session_t *session,
                                const char *phase);

//  Run measure on a fresh broker (default settings), then check that the
//  workers ran exactly tasks offers and the broker holds nothing unended
//  or failed. Returns tasks/s, or -1.
static double
s_rate_on_broker (drover_benchmark_t *self, s_measure_fn *measure, long long tasks,
                  const char *phase)
{
    fprintf (stderr, "drover bench: %s\n", phase);
    s_session_t session;
    int64_t elapsed = -1;
    if (s_session_start (self, &session, NULL) == 0)
        elapsed = measure (self, &session, phase);
    if (elapsed >= 0
    &&  (s_check_runs (&session, tasks, phase) || s_check_counts (session.client, false, phase)))
        elapsed = -1;
    s_session_stop (self, &session);
    return elapsed < 0? -1: tasks * 1e6 / (elapsed > 0? elapsed: 1);
}


//  ---------------------------------------------------------------------
//  (n) fan-out / fan-in beside the same tasks without dependencies

//  The N + 2 tasks as plain NOTIFY submits, a window outstanding (the
//  noop phase's way)
static int64_t
s_fanout_plain (drover_benchmark_t *self, s_session_t *session, const char *phase)
{
    if (s_session_crew (self, session))
        return -1;
    drover_submit_t *submit = drover_benchmark_submit_new (false, DROVER_SUBMIT_NOTIFY);
    int64_t elapsed = drover_benchmark_run_tasks (self, session->client, &session->tally, submit,
                                                  self->opts.fanout + 2, phase);
    drover_submit_destroy (&submit);
    return elapsed;
}

//  The N + 2 tasks as one array, no dependencies, its id waited on
static int64_t
s_fanout_array (drover_benchmark_t *self, s_session_t *session, const char *phase)
{
    if (s_session_crew (self, session))
        return -1;
    uint64_t array = 0;
    int64_t started = zclock_usecs ();
    if (s_submit_one (session->client, 0, (uint32_t) self->opts.fanout + 2, &array, phase)
    ||  s_await_state (session->client, array, DROVER_TASK_SUCCEEDED, phase))
        return -1;
    return zclock_usecs () - started;
}

//  The graph: a root, an array of N elements after it, a final task after
//  the array; timed from the first submit to the final task's end, then
//  the root and the array checked SUCCEEDED too
static int64_t
s_fanout_graph (drover_benchmark_t *self, s_session_t *session, const char *phase)
{
    if (s_session_crew (self, session))
        return -1;
    drover_client_t *client = session->client;
    uint64_t root = 0, array = 0, final = 0;
    int64_t started = zclock_usecs ();
    if (s_submit_one (client, 0, 0, &root, phase)
    ||  s_submit_one (client, root, (uint32_t) self->opts.fanout, &array, phase)
    ||  s_submit_one (client, array, 0, &final, phase)
    ||  s_await_state (client, final, DROVER_TASK_SUCCEEDED, phase))
        return -1;
    int64_t elapsed = zclock_usecs () - started;
    if (s_await_state (client, root, DROVER_TASK_SUCCEEDED, phase)
    ||  s_await_state (client, array, DROVER_TASK_SUCCEEDED, phase))
        return -1;
    //  The root ran before any element, the final task after them all
    uint64_t first = __atomic_load_n (&session->watch.first_task, __ATOMIC_SEQ_CST);
    uint64_t last = __atomic_load_n (&session->watch.last_task, __ATOMIC_SEQ_CST);
    if (first != root || last != final) {
        fprintf (stderr, "drover bench: %s: task %" PRIu64 " ran first, %" PRIu64 " last, not "
                 "the root %" PRIu64 " and the final task %" PRIu64 "\n", phase, first, last,
                 root, final);
        return -1;
    }
    return elapsed;
}

//  (n) the fan-out graph's rate beside the same tasks without dependencies
int
drover_benchmark_phase_fanout (drover_benchmark_t *self)
{
    long long tasks = self->opts.fanout + 2;
    double plain = s_rate_on_broker (self, s_fanout_plain, tasks, "fanout: plain submits");
    if (plain <= 0)
        return -1;
    drover_benchmark_figure (self, "fanout_plain_rate", plain, "tasks/s");
    double array = s_rate_on_broker (self, s_fanout_array, tasks, "fanout: plain array");
    if (array <= 0)
        return -1;
    drover_benchmark_figure (self, "fanout_array_rate", array, "tasks/s");
    double graph = s_rate_on_broker (self, s_fanout_graph, tasks, "fanout: graph");
    if (graph <= 0)
        return -1;
    drover_benchmark_figure (self, "fanout_rate", graph, "tasks/s");
    drover_benchmark_figure (self, "fanout_vs_plain_pct", 100 * graph / plain, "%");
    drover_benchmark_figure (self, "fanout_vs_array_pct", 100 * graph / array, "%");
    return 0;
}


//  ---------------------------------------------------------------------
//  (o) a chain

//  Submit the chain, no workers yet (chain_submit_rate), then time the
//  workers' start to the last link's end
static int64_t
s_chain (drover_benchmark_t *self, s_session_t *session, const char *phase)
{
    size_t count = (size_t) self->opts.chain;
    uint64_t *ids = (uint64_t *) zmalloc (count * sizeof (uint64_t));
    int rc = 0;
    int64_t started = zclock_usecs ();
    for (size_t index = 0; rc == 0 && index < count; index++) {
        rc = s_submit_one (session->client, index? ids [index - 1]: 0, 0, &ids [index], phase);
        drover_benchmark_progress (self, "chain: submit", (long long) index + 1,
                                   (long long) count, false);
    }
    int64_t submitted = zclock_usecs () - started;
    if (rc == 0)
        drover_benchmark_figure (self, "chain_submit_rate",
                                 count * 1e6 / (submitted > 0? submitted: 1), "tasks/s");
    if (rc == 0)
        rc = s_watch_ids (&session->watch, ids, count, phase);
    started = zclock_usecs ();
    if (rc == 0
    &&  (s_session_crew (self, session)
    ||   s_await_state (session->client, ids [count - 1], DROVER_TASK_SUCCEEDED, phase)))
        rc = -1;
    int64_t elapsed = zclock_usecs () - started;
    //  Each link ran after the one before it
    for (size_t index = 1; rc == 0 && index < count; index++)
        rc = s_check_after (&session->watch, ids [index], ids [index - 1], phase);
    free (ids);
    return rc? -1: elapsed;
}

//  (o) a chain's rate and msec per link
int
drover_benchmark_phase_chain (drover_benchmark_t *self)
{
    double rate = s_rate_on_broker (self, s_chain, self->opts.chain, "chain");
    if (rate <= 0)
        return -1;
    drover_benchmark_figure (self, "chain_rate", rate, "tasks/s");
    drover_benchmark_figure (self, "chain_link_ms", 1000 / rate, "msec");
    return 0;
}


//  ---------------------------------------------------------------------
//  (p) an array of a million elements in one request

//  Return the broker's VmRSS once it has answered a task listing (all it
//  was sent before is handled), or 0 (said why)
static uint64_t
s_settled_rss (drover_benchmark_t *self, drover_client_t *client, const char *phase)
{
    drover_tasks_t *tasks = drover_client_tasks (client, DROVER_TASK_QUEUED, 0);
    if (!tasks) {
        drover_cli_error (client, phase);
        return 0;
    }
    drover_tasks_destroy (&tasks);
    uint64_t rss = drover_benchmark_broker_rss (self);
    if (!rss)
        fprintf (stderr, "drover bench: %s: cannot read the broker's VmRSS\n", phase);
    return rss;
}

//  Run the accepted array's elements to its end: array_run_rate. Returns
//  0, or -1.
static int
s_array_run (drover_benchmark_t *self, s_session_t *session, uint64_t array)
{
    long long count = self->opts.array_elements;
    int64_t started = zclock_usecs ();
    if (s_session_crew (self, session)
    ||  s_await_state (session->client, array, DROVER_TASK_SUCCEEDED, "array: run")
    ||  s_check_runs (session, count, "array: run")
    ||  s_check_counts (session->client, false, "array: run"))
        return -1;
    int64_t elapsed = zclock_usecs () - started;
    drover_benchmark_figure (self, "array_run_rate", count * 1e6 / (elapsed > 0? elapsed: 1),
                             "tasks/s");
    return 0;
}

//  Cancel the array by its id and wait until it ends CANCELLED:
//  array_cancel_ms. Returns 0, or -1.
static int
s_array_cancel (drover_benchmark_t *self, s_session_t *session, uint64_t array)
{
    int64_t started = zclock_usecs ();
    if (drover_client_cancel (session->client, array)) {
        drover_cli_error (session->client, "array: cancel");
        return -1;
    }
    if (s_await_state (session->client, array, DROVER_TASK_CANCELLED, "array: cancel")
    ||  s_check_counts (session->client, true, "array: cancel"))
        return -1;
    drover_benchmark_figure (self, "array_cancel_ms", (zclock_usecs () - started) / 1000.0,
                             "msec");
    return 0;
}

//  (p) one array accepted in one request: time, memory per element; then
//  cancelled (or run, with --array-run)
int
drover_benchmark_phase_array (drover_benchmark_t *self)
{
    long long count = self->opts.array_elements;
    s_session_t session;
    int rc = s_session_start (self, &session, NULL);
    uint64_t before = rc? 0: s_settled_rss (self, session.client, "array");
    uint64_t array = 0;
    int64_t started = zclock_usecs ();
    if (before == 0 || s_submit_one (session.client, 0, (uint32_t) count, &array, "array"))
        rc = -1;
    int64_t accepted = zclock_usecs () - started;
    uint64_t after = rc? 0: s_settled_rss (self, session.client, "array");
    if (after == 0)
        rc = -1;
    if (rc == 0) {
        drover_benchmark_figure (self, "array_accept_ms", accepted / 1000.0, "msec");
        drover_benchmark_figure (self, "array_rss_before", before / 1048576.0, "MiB");
        drover_benchmark_figure (self, "array_rss_after", after / 1048576.0, "MiB");
        drover_benchmark_figure (self, "array_bytes_per_element",
                                 ((double) after - (double) before) / count, "bytes");
        rc = self->opts.array_run? s_array_run (self, &session, array)
                                 : s_array_cancel (self, &session, array);
    }
    s_session_stop (self, &session);
    return rc;
}


//  ---------------------------------------------------------------------
//  (q) a graph's broker killed half way and restarted

//  Submit C chains of L NOTIFY tasks, link j of every chain in round j
//  (each after link j - 1 of its chain), a window outstanding; ids [j * C +
//  c] is link j of chain c. Returns 0, or -1 (said why).
static int
s_graph_submit (drover_benchmark_t *self, s_session_t *session, uint64_t *ids)
{
    size_t chains = (size_t) self->opts.graph_chains;
    size_t length = (size_t) self->opts.graph_length;
    const char *phase = "graph-restart: submit";
    drover_client_t *client = session->client;
    if (drover_client_set_window (client, (uint32_t) self->opts.window))
        return -1;
    int rc = 0;
    for (size_t round = 0; rc == 0 && round < length; round++) {
        session->tally.ids = ids + round * chains;
        for (size_t chain = 0; rc == 0 && chain < chains; chain++) {
            uint64_t parent = round? ids [(round - 1) * chains + chain]: 0;
            drover_submit_t *submit = s_submit_new (parent, 0, true, phase);
            if (!submit)
                rc = -1;
            else
            if (drover_client_submit_async (client, submit, chain) == 0) {
                drover_cli_error (client, phase);
                rc = -1;
            }
            drover_submit_destroy (&submit);
        }
        if (rc == 0 && drover_client_flush (client)) {
            drover_cli_error (client, phase);
            rc = -1;
        }
        if (rc == 0 && session->tally.refused) {
            fprintf (stderr, "drover bench: %s: %" PRIu64 " submits refused\n", phase,
                     session->tally.refused);
            rc = -1;
        }
        drover_benchmark_progress (self, phase, (long long) ((round + 1) * chains),
                                   (long long) (length * chains), false);
    }
    session->tally.ids = NULL;
    return rc;
}

//  Take TASK DONEs until at least half the watched tasks have ended.
//  Returns 0, or -1 (interrupted, the client failed, or no TASK DONE for
//  S_STALL_MSEC).
static int
s_graph_half (drover_benchmark_t *self, s_session_t *session)
{
    s_watch_t *watch = &session->watch;
    uint64_t seen = watch->ended;
    int64_t moved_at = zclock_mono ();
    while (watch->ended < watch->count / 2) {
        if (drover_client_poll (session->client, 100) < 0) {
            drover_cli_error (session->client, "graph-restart: run");
            return -1;
        }
        if (watch->ended != seen) {
            seen = watch->ended;
            moved_at = zclock_mono ();
        }
        if (zclock_mono () - moved_at > S_STALL_MSEC) {
            fprintf (stderr, "drover bench: graph-restart: no task ended for %d s, %" PRIu64
                     " of %zu ended\n", S_STALL_MSEC / 1000, watch->ended, watch->count);
            return -1;
        }
        drover_benchmark_progress (self, "graph-restart: run", (long long) watch->ended,
                                   (long long) watch->count, false);
    }
    return 0;
}

//  Wait for every watched task not ended yet. Returns 0, or -1.
static int
s_graph_rest (s_session_t *session)
{
    s_watch_t *watch = &session->watch;
    uint64_t *rest = (uint64_t *) zmalloc ((watch->count + 1) * sizeof (uint64_t));
    size_t count = 0;
    for (size_t index = 0; index < watch->count; index++)
        if (watch->ends [index] == 0)
            rest [count++] = watch->ids [index];
    int rc = drover_client_wait (session->client, rest, count, s_on_end, NULL, watch);
    if (rc)
        drover_cli_error (session->client, "graph-restart: wait");
    free (rest);
    return rc? -1: 0;
}

//  Check that every watched task ended once, SUCCEEDED, and ran at least
//  once; returns the runs past one (reruns), or -1 (said why)
static long long
s_graph_check (s_session_t *session)
{
    s_watch_t *watch = &session->watch;
    long long reruns = 0, never_run = 0, not_once = 0;
    for (size_t index = 0; index < watch->count; index++) {
        uint32_t runs = __atomic_load_n (&watch->runs [index], __ATOMIC_RELAXED);
        never_run += runs == 0;
        reruns += runs > 1? runs - 1: 0;
        if (watch->ends [index] != 1 && not_once++ < 5)
            fprintf (stderr, "drover bench: graph-restart: task %" PRIu64 " ended %u times\n",
                     watch->ids [index], watch->ends [index]);
    }
    uint64_t strangers = __atomic_load_n (&watch->strangers, __ATOMIC_RELAXED);
    if (not_once || never_run || strangers || watch->unsucceeded) {
        fprintf (stderr, "drover bench: graph-restart: of %zu tasks, %lld did not end exactly "
                 "once, %lld never ran, %" PRIu64 " did not succeed; %" PRIu64 " unknown tasks "
                 "ran\n", watch->count, not_once, never_run, watch->unsucceeded, strangers);
        return -1;
    }
    return reruns;
}

//  Check that each link of every chain first ran after the link before it.
//  Returns 0, or -1 (said why).
static int
s_graph_order (drover_benchmark_t *self, s_session_t *session, const uint64_t *ids)
{
    size_t chains = (size_t) self->opts.graph_chains;
    size_t total = chains * (size_t) self->opts.graph_length;
    for (size_t index = chains; index < total; index++)
        if (s_check_after (&session->watch, ids [index], ids [index - chains], "graph-restart"))
            return -1;
    return 0;
}

//  (q) a C x L graph run half way, the broker killed and restarted: time
//  to serving, every task ended once
int
drover_benchmark_phase_graph_restart (drover_benchmark_t *self)
{
    size_t total = (size_t) (self->opts.graph_chains * self->opts.graph_length);
    uint64_t *ids = (uint64_t *) zmalloc (total * sizeof (uint64_t));
    s_session_t session;
    int rc = s_session_start (self, &session, s_full);
    if (rc == 0)
        rc = s_graph_submit (self, &session, ids);
    if (rc == 0)
        rc = s_watch_ids (&session.watch, ids, total, "graph-restart");
    //  No worker yet: no task has ended; from here on each TASK DONE is counted.
    //  The workers run half the graph, then wait until the broker is back.
    if (rc == 0) {
        session.watch.hold_after = total / 2;
        __atomic_store_n (&session.watch.held, 1, __ATOMIC_SEQ_CST);
        drover_client_set_done_handler (session.client, s_on_end, &session.watch);
        rc = s_session_crew (self, &session);
    }
    if (rc == 0)
        rc = s_graph_half (self, &session);
    uint64_t at_kill = session.watch.ended;
    int64_t restart = -1;
    if (rc == 0) {
        drover_benchmark_broker_kill (self);
        fprintf (stderr, "drover bench: graph-restart: killed with %" PRIu64 " of %zu tasks "
                 "ended; starting again\n", at_kill, total);
        restart = drover_benchmark_broker_restart (self, "graph-restart: seconds loading");
        if (restart < 0)
            rc = -1;
    }
    __atomic_store_n (&session.watch.held, 0, __ATOMIC_SEQ_CST);
    if (rc == 0)
        rc = s_graph_rest (&session);
    long long reruns = rc? -1: s_graph_check (&session);
    if (rc == 0 && (reruns < 0 || s_graph_order (self, &session, ids)
                ||  s_check_counts (session.client, false, "graph-restart")))
        rc = -1;
    if (rc == 0) {
        drover_benchmark_figure (self, "graph_restart_ms", restart / 1000.0, "msec");
        drover_benchmark_figure (self, "graph_restart_ended_at_kill", (double) at_kill, "tasks");
        drover_benchmark_figure (self, "graph_restart_ended", (double) session.watch.ended,
                                 "tasks");
        drover_benchmark_figure (self, "graph_restart_reruns", (double) reruns, "tasks");
    }
    s_session_stop (self, &session);
    free (ids);
    return rc;
}
