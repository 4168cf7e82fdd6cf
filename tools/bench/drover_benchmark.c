/*  =========================================================================
    drover_benchmark - `drover bench`: how fast drover moves work and
    what it costs to run, on this machine, over loopback

    Each phase starts a fresh broker as a child process (this executable,
    `broker`, on two free 127.0.0.1 ports: drover_benchmark_broker.c),
    measures one thing and stops the broker with SIGTERM, reaping it,
    whatever happened:
    (a) noop      in-process no-op workers (drover_worker_actor threads), a
                  client keeping a window of tasks outstanding: tasks/s end
                  to end, every result collected;
    (b) rtt       one task outstanding, submit -> TASK DONE: percentiles, usec;
    (c) submit    acknowledged submits, no workers: tasks/s;
    (d) memory    broker VmRSS idle, then with N queued tasks carrying a
                  100-byte command and no workers: bytes per queued task.
    (e) queue     scheduling cost by queue length, simulated workers
    (e) workers   scheduling cost by connected workers   (drover_benchmark_sim.c)
    (f) shell     `true` on real agents vs the bare fork/exec rate
                  (drover_benchmark_shell.c)
    (g) heartbeat the broker's CPU with many workers heartbeating
                  (drover_benchmark_sim.c)
    (h) durable   acknowledged submits and no-op throughput with
                  durability full beside off
    (i) restart   restart time with many tasks queued, memory and bytes
                  on disk                               (drover_benchmark_durable.c)
    (j) curve     no-op throughput and round trip with CURVE on beside off
                                                        (drover_benchmark_curve.c)
    (k) pool      the elastic pool's decision cost, and its first task on
                  an empty local pool                   (drover_benchmark_pool.c)
    (l) services  the reconciler's term cost by workers and replicas, and
                  rendezvous stability             (drover_benchmark_services.c)
    (m) failover  two brokers on etcd and PostgreSQL, the leader killed:
                  msec until the other accepts, tasks lost (drover_benchmark_failover.c)
    (n) fanout    1 -> N -> 1 no-op graph beside the same tasks without
                  dependencies
    (o) chain     a chain of no-op tasks, each after the previous one
    (p) array     one array of a million elements: time to accept, memory
    (q) graph-restart  a graph's broker killed half way, restarted: time to
                  serving, every task ended once (drover_benchmark_workflow.c)
    (s) agents    real agent processes registered with one broker: false
                  LOST, broker CPU and RSS, the agents' memory
    (t) reconnect the same, the broker killed and restarted: time until all
                  are registered again, CPU by slices (drover_benchmark_agents.c)
    (u) fleet     10,000 simulated workers at the interval the broker tells
                  them: its CPU, RSS, false LOST       (drover_benchmark_sim.c)
    --phases picks some; (e)-(u) start their brokers themselves; the
    command line is in drover_benchmark_flags.c. One line
    per figure, `name value unit`, or one JSON object (--json); progress
    goes to stderr.
    =========================================================================
*/

#include "drover_cli.h"
#include "drover_worker.h"
#include "drover_benchmark.h"
#include "drover_log.h"
#include <sys/resource.h>
#include <stddef.h>

#define S_COMMAND_SIZE  100         //  bytes of the queued tasks' command line


//  ---------------------------------------------------------------------
//  Figures and progress

//  Record a figure; printed at once unless the output is JSON
void
drover_benchmark_figure (drover_benchmark_t *self, const char *name, double value,
                         const char *unit)
{
    assert (self->nfigures < DROVER_BENCHMARK_FIGURES_MAX);
    drover_benchmark_figure_t *figure = &self->figures [self->nfigures++];
    snprintf (figure->name, sizeof figure->name, "%s", name);
    figure->value = value;
    figure->unit = unit;
    if (!self->opts.json) {
        printf ("%-24s %14.1f %s\n", name, value, unit);
        fflush (stdout);
    }
}

//  Print every figure as one JSON object: name -> value, and units
static void
s_print_json (drover_benchmark_t *self)
{
    printf ("{");
    for (size_t index = 0; index < self->nfigures; index++)
        printf ("%s\"%s\": %.3f", index? ", ": "", self->figures [index].name,
                self->figures [index].value);
    printf ("%s\"units\": {", self->nfigures? ", ": "");
    for (size_t index = 0; index < self->nfigures; index++)
        printf ("%s\"%s\": \"%s\"", index? ", ": "", self->figures [index].name,
                self->figures [index].unit);
    printf ("}}\n");
    fflush (stdout);
}

//  Say how far a long phase got, once a second at most (or when forced)
void
drover_benchmark_progress (drover_benchmark_t *self, const char *phase, long long done,
                           long long total, bool force)
{
    int64_t now = zclock_mono ();
    if (!force && now - self->progress_at < 1000)
        return;
    self->progress_at = now;
    fprintf (stderr, "drover bench: %s %lld/%lld\n", phase, done, total);
}


//  ---------------------------------------------------------------------
//  Shared by the phases

//  Ack handler: keep the task id under its tag, count refusals
static void
s_on_ack (uint32_t seq, uintptr_t tag, uint64_t task, int code, const char *reason, void *arg)
{
    drover_benchmark_tally_t *tally = (drover_benchmark_tally_t *) arg;
    if (code != 200 || task == 0) {
        if (tally->refused++ == 0)
            fprintf (stderr, "drover bench: submit refused: %d %s\n", code, reason? reason: "");
        return;
    }
    if (tally->ids)
        tally->ids [tag] = task;
}

//  Done handler: count results
static void
s_on_done (const drover_result_t *result, void *arg)
{
    drover_benchmark_tally_t *tally = (drover_benchmark_tally_t *) arg;
    tally->finished++;
    if (drover_result_state (result) == DROVER_TASK_SUCCEEDED)
        tally->succeeded++;
}

//  Connect a bench client to the current broker
drover_client_t *
drover_benchmark_client (drover_benchmark_t *self, drover_benchmark_tally_t *tally)
{
    drover_client_t *client = drover_client_new (self->endpoint);
    assert (client);
    if (self->server_key && drover_client_set_keys (client, self->client_key, self->server_key))
        fprintf (stderr, "drover bench: cannot use the client key %s\n", self->client_key);
    drover_client_set_timeout (client, 10000);
    drover_client_set_ack_handler (client, s_on_ack, tally);
    return client;
}

//  Wait until the broker lists at least count workers. Returns 0, or -1.
int
drover_benchmark_await_workers (drover_benchmark_t *self, drover_client_t *client,
                                size_t count)
{
    int64_t deadline = zclock_mono () + 10000;
    while (zclock_mono () < deadline && !zsys_interrupted) {
        drover_workers_t *workers = drover_client_workers (client);
        size_t listed = workers? drover_workers_size (workers): 0;
        drover_workers_destroy (&workers);
        if (listed >= count)
            return 0;
        zclock_sleep (20);          //  polling the broker's table, not settling
    }
    fprintf (stderr, "drover bench: the workers did not register\n");
    return -1;
}

//  The no-op handler: the result (exit 0) is already filled in
static int
s_noop (void *arg, drover_job_t *job)
{
    return 0;
}

//  Stop and free the workers: actors before the workers they borrow
void
drover_benchmark_crew_stop (drover_benchmark_crew_t *crew)
{
    for (size_t index = 0; index < crew->count; index++) {
        zactor_destroy (&crew->actors [index]);
        drover_worker_destroy (&crew->workers [index]);
    }
    free (crew->actors);
    free (crew->workers);
    memset (crew, 0, sizeof *crew);
}

//  Start the no-op workers and wait until the broker lists them all.
//  Returns 0, or -1 (what started is in crew, for drover_benchmark_crew_stop).
int
drover_benchmark_crew_start (drover_benchmark_t *self, drover_benchmark_crew_t *crew,
                             drover_client_t *client)
{
    size_t count = (size_t) self->opts.workers;
    crew->workers = (drover_worker_t **) zmalloc (count * sizeof (drover_worker_t *));
    crew->actors = (zactor_t **) zmalloc (count * sizeof (zactor_t *));
    for (size_t index = 0; index < count; index++) {
        char id [32];
        snprintf (id, sizeof id, "bench-%zu", index + 1);
        drover_worker_t *worker = drover_worker_new (self->endpoint, id,
                                                     (uint32_t) self->opts.procs, 1ULL << 40);
        if (!worker)
            return -1;
        drover_worker_set_handler (worker, crew->handler? crew->handler: s_noop, crew->arg);
        char *error = NULL;
        if (self->server_key
        &&  drover_worker_set_keys (worker, self->worker_key, self->server_key, &error)) {
            fprintf (stderr, "drover bench: %s\n", error? error: "cannot use the worker key");
            zstr_free (&error);
            drover_worker_destroy (&worker);
            return -1;
        }
        crew->workers [index] = worker;
        crew->actors [index] = zactor_new (drover_worker_actor, worker);
        crew->count++;
        if (!crew->actors [index])
            return -1;
    }
    return drover_benchmark_await_workers (self, client, count);
}

//  Build the TASK SUBMIT every phase sends: argv "true", or a command line
//  of exactly S_COMMAND_SIZE bytes when padded
drover_submit_t *
drover_benchmark_submit_new (bool padded, uint32_t flags)
{
    char pad [S_COMMAND_SIZE];
    memset (pad, 'x', sizeof pad);
    pad [S_COMMAND_SIZE - 5 - 1] = 0;       //  "true" + space + pad = 100 bytes
    const char *argv [] = { "true", pad };
    drover_submit_t *submit = drover_submit_new (padded? 2: 1, argv);
    assert (submit);
    drover_submit_set_notify (submit, (flags & DROVER_SUBMIT_NOTIFY) != 0);
    return submit;
}


//  ---------------------------------------------------------------------
//  (a) no-op throughput

//  Submit up to count tasks asynchronously, tag = slot in ids; 0 or -1
static int
s_submit_batch (drover_client_t *client, drover_submit_t *submit, size_t count)
{
    for (size_t slot = 0; slot < count; slot++)
        if (drover_client_submit_async (client, submit, slot) == 0)
            return -1;
    return drover_client_flush (client);
}

//  Run count NOTIFY tasks on the broker's workers, a window of tasks
//  outstanding, in two half-window batches: the next batch goes out while
//  the previous one's results come back. Returns the usec it took, or -1.
int64_t
drover_benchmark_run_tasks (drover_benchmark_t *self, drover_client_t *client,
                            drover_benchmark_tally_t *tally, drover_submit_t *submit,
                            long long count, const char *phase)
{
    size_t batch = (size_t) (self->opts.window / 2 > 0? self->opts.window / 2: 1);
    uint64_t *ids [2] = { zmalloc (batch * sizeof (uint64_t)), zmalloc (batch * sizeof (uint64_t)) };
    int rc = drover_client_set_window (client, (uint32_t) batch);
    long long sent = 0;
    size_t previous = 0;            //  tasks in the batch waited on next
    int current = 0;                //  which ids array takes the next batch
    uint64_t succeeded = tally->succeeded;
    int64_t started = zclock_usecs ();
    while (rc == 0 && (sent < count || previous)) {
        size_t size = (size_t) (count - sent < (long long) batch? count - sent: (long long) batch);
        tally->ids = ids [current];
        if (size && s_submit_batch (client, submit, size)) {
            rc = drover_cli_error (client, phase);
            break;
        }
        sent += size;
        if (previous
        &&  drover_client_wait (client, ids [1 - current], previous, s_on_done, NULL, tally)) {
            rc = drover_cli_error (client, phase);
            break;
        }
        previous = size;
        current = 1 - current;
        drover_benchmark_progress (self, phase, (long long) tally->finished, count, false);
    }
    int64_t elapsed = zclock_usecs () - started;
    tally->ids = NULL;
    free (ids [0]);
    free (ids [1]);
    succeeded = tally->succeeded - succeeded;
    if (rc == 0 && (tally->refused || succeeded != (uint64_t) count)) {
        fprintf (stderr, "drover bench: %s: %" PRIu64 " of %lld tasks succeeded, %" PRIu64
                 " refused\n", phase, succeeded, count, tally->refused);
        rc = -1;
    }
    return rc? -1: elapsed;
}

//  Run opts.tasks no-op tasks end to end on the current broker, through
//  opts.workers in-process workers. Returns tasks/s, or -1.
double
drover_benchmark_noop_rate (drover_benchmark_t *self, const char *phase)
{
    drover_benchmark_tally_t tally = { 0 };
    drover_client_t *client = drover_benchmark_client (self, &tally);
    drover_benchmark_crew_t crew = { 0 };
    drover_submit_t *submit = drover_benchmark_submit_new (false, DROVER_SUBMIT_NOTIFY);
    int64_t elapsed = -1;
    if (drover_benchmark_crew_start (self, &crew, client) == 0)
        elapsed = drover_benchmark_run_tasks (self, client, &tally, submit, self->opts.tasks,
                                              phase);
    drover_submit_destroy (&submit);
    drover_client_destroy (&client);
    drover_benchmark_crew_stop (&crew);
    return elapsed < 0? -1: self->opts.tasks * 1e6 / (elapsed > 0? elapsed: 1);
}

//  Run opts.tasks no-op tasks through opts.workers in-process workers
static int
s_phase_noop (drover_benchmark_t *self)
{
    double rate = drover_benchmark_noop_rate (self, "noop");
    if (rate >= 0)
        drover_benchmark_figure (self, "noop_throughput", rate, "tasks/s");
    return rate >= 0? 0: -1;
}


//  ---------------------------------------------------------------------
//  (b) round trip of one task

//  Order usec samples
int
drover_benchmark_compare_usec (const void *left, const void *right)
{
    int64_t a = *(const int64_t *) left, b = *(const int64_t *) right;
    return (a > b) - (a < b);
}

//  The sample at quantile q of sorted samples (nearest rank)
static double
s_quantile (const int64_t *sorted, size_t count, double q)
{
    size_t rank = (size_t) ceil (q * count);
    return (double) sorted [rank > 0? rank - 1: 0];
}

//  Time opts.rtt tasks one at a time, submit to TASK DONE. Returns 0, or -1.
static int
s_phase_rtt (drover_benchmark_t *self)
{
    drover_benchmark_tally_t tally = { 0 };
    drover_client_t *client = drover_benchmark_client (self, &tally);
    drover_benchmark_crew_t crew = { 0 };
    size_t count = (size_t) self->opts.rtt;
    int64_t *samples = (int64_t *) zmalloc (count * sizeof (int64_t));
    drover_submit_t *submit = drover_benchmark_submit_new (false, DROVER_SUBMIT_NOTIFY);
    int rc = drover_benchmark_crew_start (self, &crew, client);
    for (size_t index = 0; rc == 0 && index < count; index++) {
        int64_t started = zclock_usecs ();
        uint64_t task = 0;
        if (drover_client_submit (client, submit, &task)
        ||  drover_client_wait (client, &task, 1, s_on_done, NULL, &tally)) {
            rc = drover_cli_error (client, "bench: rtt");
            break;
        }
        samples [index] = zclock_usecs () - started;
        drover_benchmark_progress (self, "rtt", (long long) index + 1, (long long) count, false);
    }
    if (rc == 0 && tally.succeeded != count) {
        fprintf (stderr, "drover bench: rtt: %" PRIu64 " of %zu tasks succeeded\n",
                 tally.succeeded, count);
        rc = -1;
    }
    if (rc == 0) {
        qsort (samples, count, sizeof (int64_t), drover_benchmark_compare_usec);
        drover_benchmark_figure (self, "rtt_p50", s_quantile (samples, count, 0.50), "us");
        drover_benchmark_figure (self, "rtt_p90", s_quantile (samples, count, 0.90), "us");
        drover_benchmark_figure (self, "rtt_p99", s_quantile (samples, count, 0.99), "us");
        drover_benchmark_figure (self, "rtt_p999", s_quantile (samples, count, 0.999), "us");
    }
    drover_submit_destroy (&submit);
    drover_client_destroy (&client);
    drover_benchmark_crew_stop (&crew);
    free (samples);
    return rc;
}


//  ---------------------------------------------------------------------
//  (c) acknowledged submits and (d) memory of queued tasks

//  Submit count tasks with a full window, no workers: every one must be
//  accepted. Returns the usec it took, or -1.
int64_t
drover_benchmark_submit_many (drover_benchmark_t *self, drover_client_t *client,
                              drover_benchmark_tally_t *tally, drover_submit_t *submit,
                              long long count, const char *phase)
{
    int64_t started = zclock_usecs ();
    for (long long index = 0; index < count; index++) {
        if (drover_client_submit_async (client, submit, 0) == 0) {
            drover_cli_error (client, phase);
            return -1;
        }
        if ((index & 1023) == 0)
            drover_benchmark_progress (self, phase, index, count, false);
    }
    if (drover_client_flush (client)) {
        drover_cli_error (client, phase);
        return -1;
    }
    int64_t elapsed = zclock_usecs () - started;
    if (tally->refused) {
        fprintf (stderr, "drover bench: %s: %" PRIu64 " submits refused\n", phase, tally->refused);
        return -1;
    }
    return elapsed;
}

//  Measure opts.submits acknowledged submits with no workers
static int
s_phase_submit (drover_benchmark_t *self)
{
    drover_benchmark_tally_t tally = { 0 };
    drover_client_t *client = drover_benchmark_client (self, &tally);
    drover_submit_t *submit = drover_benchmark_submit_new (false, 0);
    int rc = drover_client_set_window (client, (uint32_t) self->opts.window);
    int64_t elapsed = rc? -1: drover_benchmark_submit_many (self, client, &tally, submit,
                                             self->opts.submits, "submit");
    if (elapsed >= 0)
        drover_benchmark_figure (self, "submit_rate", self->opts.submits * 1e6 / (elapsed > 0? elapsed: 1),
                  "tasks/s");
    drover_submit_destroy (&submit);
    drover_client_destroy (&client);
    return elapsed >= 0? 0: -1;
}

//  Read the broker's RSS until it has stopped falling: the pages the last
//  submits freed (message buffers, batches) go back to the kernel about a
//  second later (drover_allocator's background thread). Polls every 100
//  msec; returns the reading once none fell by more than 64 KiB for 2 s,
//  or the last one at a 15 s deadline; 0 if the RSS cannot be read.
static uint64_t
s_settled_rss (drover_benchmark_t *self, uint64_t first)
{
    uint64_t rss = first;
    uint64_t lowest = first;
    int64_t deadline = zclock_mono () + 15000;
    int64_t fell_at = zclock_mono ();
    while (rss && zclock_mono () - fell_at < 2000 && zclock_mono () < deadline) {
        zclock_sleep (100);
        rss = drover_benchmark_broker_rss (self);
        if (rss + 65536 < lowest) {
            lowest = rss;
            fell_at = zclock_mono ();
        }
    }
    return rss;
}

//  Measure the broker's RSS idle, then with opts.queued tasks queued: at
//  the last acknowledgement (broker_rss_acked), then once it has stopped
//  falling (broker_rss_queued, which bytes_per_queued_task counts)
static int
s_phase_memory (drover_benchmark_t *self)
{
    drover_benchmark_tally_t tally = { 0 };
    drover_client_t *client = drover_benchmark_client (self, &tally);
    drover_submit_t *submit = drover_benchmark_submit_new (true, 0);
    uint64_t idle = drover_benchmark_broker_rss (self);
    int rc = drover_client_set_window (client, (uint32_t) self->opts.window);
    int64_t elapsed = rc? -1: drover_benchmark_submit_many (self, client, &tally, submit,
                                             self->opts.queued, "queue");
    uint64_t acked = elapsed >= 0? drover_benchmark_broker_rss (self): 0;
    uint64_t loaded = acked? s_settled_rss (self, acked): 0;
    if (elapsed >= 0 && idle && loaded) {
        drover_benchmark_figure (self, "broker_rss_idle", idle / 1048576.0, "MiB");
        drover_benchmark_figure (self, "broker_rss_acked", acked / 1048576.0, "MiB");
        drover_benchmark_figure (self, "broker_rss_queued", loaded / 1048576.0, "MiB");
        drover_benchmark_figure (self, "bytes_per_queued_task",
                  ((double) loaded - (double) idle) / self->opts.queued, "bytes");
    }
    else
    if (elapsed >= 0) {
        fprintf (stderr, "drover bench: cannot read the broker's VmRSS\n");
        elapsed = -1;
    }
    drover_submit_destroy (&submit);
    drover_client_destroy (&client);
    return elapsed >= 0? 0: -1;
}


//  ---------------------------------------------------------------------
//  The main (the flags: drover_benchmark_flags.c)

//  The phases, in the order they run; a phase's bit in opts.phases is
//  1 << its index. Brokered phases get a fresh broker from the main; the
//  others start what they need themselves.
static const struct {
    const char *name;                           //  for --phases, progress and errors
    int (*run) (drover_benchmark_t *self);      //  measures, records figures
    bool brokered;                              //  the main starts and stops a broker
} s_phases [] = {
    { "noop",      s_phase_noop,                     true },
    { "rtt",       s_phase_rtt,                      true },
    { "submit",    s_phase_submit,                   true },
    { "memory",    s_phase_memory,                   true },
    { "queue",     drover_benchmark_phase_queue,     false },
    { "workers",   drover_benchmark_phase_workers,   false },
    { "shell",     drover_benchmark_phase_shell,     false },
    { "heartbeat", drover_benchmark_phase_heartbeat, false },
    { "durable",   drover_benchmark_phase_durable,   false },
    { "restart",   drover_benchmark_phase_restart,   false },
    { "curve",     drover_benchmark_phase_curve,     false },
    { "pool",      drover_benchmark_phase_pool,      false },
    { "services",  drover_benchmark_phase_services,  false },
    { "fanout",    drover_benchmark_phase_fanout,    false },
    { "chain",     drover_benchmark_phase_chain,     false },
    { "array",     drover_benchmark_phase_array,     false },
    { "graph-restart", drover_benchmark_phase_graph_restart, false },
    { "share",     drover_benchmark_phase_share,     false },
    { "failover",  drover_benchmark_phase_failover,  false },
    { "agents",    drover_benchmark_phase_agents,    false },
    { "reconnect", drover_benchmark_phase_reconnect, false },
    { "fleet",     drover_benchmark_phase_fleet,     false },
};
#define S_PHASES (sizeof s_phases / sizeof s_phases [0])

//  Let this process open the sockets and files of a thousand simulated
//  workers (and the broker child inherit the limit): soft to hard
static void
s_raise_limits (drover_benchmark_opts_t *opts)
{
    struct rlimit limit;
    if (getrlimit (RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        if (setrlimit (RLIMIT_NOFILE, &limit))
            fprintf (stderr, "drover bench: cannot raise the open files limit: %s\n",
                     strerror (errno));
    }
    long long most = opts->hb_workers;
    for (size_t index = 0; index < opts->nworker_counts; index++)
        if (opts->worker_counts [index] > most)
            most = opts->worker_counts [index];
    //  Before any socket exists: CZMQ refuses the change afterwards
    zsys_set_max_sockets ((size_t) most + 1024);
}

//  Run each phase asked for, stopping brokers whatever happens
int
drover_benchmark_main (int argc, char **argv)
{
    drover_benchmark_t bench = { .nfigures = 0 };
    const char *names [S_PHASES];
    for (size_t index = 0; index < S_PHASES; index++)
        names [index] = s_phases [index].name;
    int rc = drover_benchmark_parse (argc, argv, names, S_PHASES, &bench.opts);
    if (rc == DROVER_CLI_HELP)
        return DROVER_EXIT_OK;
    if (rc)
        return rc;
    s_raise_limits (&bench.opts);
    drover_log_init (STDERR_FILENO);    //  the workers' log lines must not mix with figures
    for (size_t index = 0; rc == 0 && index < S_PHASES; index++) {
        if (!(bench.opts.phases & (1u << index)))
            continue;
        fprintf (stderr, "drover bench: phase %s\n", s_phases [index].name);
        if (s_phases [index].brokered)
            rc = drover_benchmark_broker_start (&bench, NULL);
        if (rc == 0)
            rc = s_phases [index].run (&bench);
        drover_benchmark_broker_stop (&bench);
        if (zsys_interrupted)
            rc = -1;
        if (rc)
            fprintf (stderr, "drover bench: phase %s failed\n", s_phases [index].name);
    }
    if (rc == 0 && bench.opts.json)
        s_print_json (&bench);
    if (zsys_interrupted)
        return DROVER_EXIT_INTERRUPTED;
    return rc? DROVER_EXIT_FAILED: DROVER_EXIT_OK;
}
