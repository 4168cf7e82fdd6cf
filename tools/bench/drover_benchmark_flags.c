/*  =========================================================================
    drover_benchmark_flags - `drover bench`'s command line: the size flags
    with their defaults and --quick values, the list flags, --phases,
    --set, and the usage
    =========================================================================
*/

#include "drover_cli.h"
#include "drover_benchmark.h"
#include "drover_config.h"
#include "drover_defaults.h"
#include <stddef.h>
#include <getopt.h>

//  The size flags: where each lives, its largest value, its default and
//  its --quick value
#define S_AT(field) offsetof (drover_benchmark_opts_t, field)
static const struct {
    const char *flag;           //  long option name
    size_t offset;              //  long long field in the options
    long long max;              //  largest value accepted
    long long normal;           //  default
    long long quick;            //  with --quick
} s_sizes [] = {
    { "tasks",        S_AT (tasks),        100000000, 100000,  2000 },
    { "workers",      S_AT (workers),      1000,      2,       2 },
    { "procs",        S_AT (procs),        100000,    100,     100 },
    { "window",       S_AT (window),       DROVER_CLIENT_WINDOW_MAX, 1000, 200 },
    { "rtt",          S_AT (rtt),          100000000, 10000,   200 },
    { "submits",      S_AT (submits),      100000000, 100000,  2000 },
    { "queued",       S_AT (queued),       100000000, 1000000, 20000 },
    { "assigns",      S_AT (assigns),      100000000, 5000,    200 },
    { "slots",        S_AT (slots),        1000000,   1000,    20 },
    { "assign-queue", S_AT (assign_queue), 100000000, 10000,   500 },
    { "shell-tasks",  S_AT (shell_tasks),  100000000, 2000,    50 },
    { "shell-agents", S_AT (shell_agents), 64,        2,       2 },
    { "shell-procs",  S_AT (shell_procs),  64,        2,       2 },
    { "spawners",     S_AT (spawners),     4096,      0,       0 },
    { "hb-workers",   S_AT (hb_workers),   5000,      1000,    20 },
    { "hb-interval",  S_AT (hb_interval),  60000,     1000,    1000 },
    { "hb-window",    S_AT (hb_window),    3600000,   10000,   1000 },
    { "fleet-workers", S_AT (fleet_workers), 60000,   10000,   200 },
    { "fleet-window", S_AT (fleet_window), 3600000,   300000,  3000 },
    { "restart-tasks", S_AT (restart_tasks), 100000000, 1000000, 10000 },
    { "pool-msec",    S_AT (pool_msec),    600000,    500,     50 },
    { "pool-rounds",  S_AT (pool_rounds),  100,       5,       1 },
    { "services-msec", S_AT (services_msec), 600000,  500,     50 },
    { "failover-rounds", S_AT (failover_rounds), 1000, 10,     3 },
    { "fanout",       S_AT (fanout),       5000000,   100000,  200 },
    { "chain",        S_AT (chain),        1000000,   10000,   50 },
    { "array-elements", S_AT (array_elements), 10000000, 1000000, 10000 },
    { "graph-chains", S_AT (graph_chains), 100000,    1000,    10 },
    { "graph-length", S_AT (graph_length), 10000,     100,     10 },
    { "share-owners", S_AT (share_owners), 100000,    1000,    100 },
    { "share-queued", S_AT (share_queued), 10000000,  100000,  5000 },
    { "share-window", S_AT (share_window), 3600000,   60000,   6000 },
    { "agents",       S_AT (agents),       10000,     1000,    20 },
    { "agents-window", S_AT (agents_window), 3600000, 120000,  3000 },
    { "reconnect-window", S_AT (reconnect_window), 3600000, 30000, 2000 },
};
#define S_SIZES (sizeof s_sizes / sizeof s_sizes [0])

//  The list flags' defaults and --quick values
static const long long s_queue_sizes [] = { 1000, 100000, 1000000 };
static const long long s_queue_sizes_quick [] = { 100, 2000 };
static const long long s_worker_counts [] = { 10, 100, 1000 };
static const long long s_worker_counts_quick [] = { 2, 20 };

//  Option values: the size flags from S_OPT_SIZE on, by index
enum { S_OPT_SIZE = 2000, S_OPT_PHASES = 1000, S_OPT_QUEUE_SIZES, S_OPT_WORKER_COUNTS, S_OPT_QUICK, S_OPT_JSON,
       S_OPT_SET, S_OPT_POSTGRES, S_OPT_ETCD, S_OPT_LEASE_TTL, S_OPT_ARRAY_RUN };

//  Check a --set SECTION/KEY=VALUE as the broker would, and keep it for
//  every broker started. Returns 0, or -1 (said why).
static int
s_parse_set (const char *assignment, drover_benchmark_opts_t *opts)
{
    size_t count = 0;
    while (opts->sets [count])
        count++;
    if (count == DROVER_BENCHMARK_SETS_MAX) {
        drover_cli_usage_error ("bench", "--set %s: at most %d settings", assignment,
                                DROVER_BENCHMARK_SETS_MAX);
        return -1;
    }
    drover_config_t *config = drover_config_new ();
    char *error = NULL;
    int rc = drover_config_set_assignment (config, assignment, &error);
    if (rc)
        drover_cli_usage_error ("bench", "--set %s", error);
    zstr_free (&error);
    drover_config_destroy (&config);
    if (rc == 0)
        opts->sets [count] = assignment;
    return rc? -1: 0;
}

//  Print the bench's usage
static void
s_usage (FILE *stream)
{
    fprintf (stream,
        "usage: drover bench [--quick] [--json] [--phases LIST] [-v] [--SIZE N]...\n"
        "                    [--set SECTION/KEY=VALUE]... [--postgres URI|auto]\n"
        "                    [--etcd URL|auto] [--lease-ttl MSEC] [--array-run]\n"
        "\n"
        "Starts brokers on 127.0.0.1 (a fresh one per measurement) and prints one line\n"
        "per figure, `name value unit`. Phases (--phases, comma-separated; default all):\n"
        "  noop       noop_throughput: no-op tasks/s end to end, in-process workers\n"
        "             (--tasks 100000, --workers 2, --procs 100 offers each, --window 1000)\n"
        "  rtt        rtt_p50 .. rtt_p999: submit -> result of one task at a time, usec\n"
        "             (--rtt 10000)\n"
        "  submit     submit_rate: acknowledged submits/s, no workers (--submits 100000)\n"
        "  memory     broker_rss_idle, broker_rss_acked, broker_rss_queued (MiB),\n"
        "             bytes_per_queued_task: with --queued 1000000 tasks of a 100-byte\n"
        "             command; acked is read at the last acknowledgement, queued (and\n"
        "             bytes_per_queued_task) once the RSS has stopped falling (polled:\n"
        "             no drop over 64 KiB for 2 s, at most 15 s), as freed pages go back\n"
        "             to the kernel about a second late\n"
        "  queue      assign_us_q<N>: usec per assignment (offer + result) with N tasks\n"
        "             queued, N from --queue-sizes 1000,100000,1000000; simulated workers\n"
        "             (10) holding --slots 1000 offers in all; --assigns 5000 timed\n"
        "  workers    assign_us_w<W>: the same with W simulated workers connected, W from\n"
        "             --worker-counts 10,100,1000, --assign-queue 10000 tasks queued: 10\n"
        "             busy workers hold the slots, the other W-10 are idle (the tasks ask\n"
        "             for a label only the busy ones have)\n"
        "  shell      shell_throughput: `true` tasks/s on --shell-agents 2 `drover worker`\n"
        "             processes of --shell-procs 2 (--shell-tasks 2000); spawn_rate: bare\n"
        "             posix_spawn+wait of true from --spawners threads (default: agents x\n"
        "             procs, the same concurrency); shell_vs_spawn_pct: the first of the second;\n"
        "             spawn_cpu_per_proc, shell_cpu_per_task (usec, children included) and\n"
        "             spawn_vs_shell_cpu_pct: the CPU each costs, less disturbed by load;\n"
        "             message_cpu, inproc_hop_cpu (usec): libzmq alone carrying one message\n"
        "             over loopback TCP, over inproc; shell_floor_cpu_pct: the CPU ratio if a\n"
        "             task cost its bare spawn and its two messages (offer, result) only;\n"
        "             shell_cpu_above_floor (usec): what a task costs above that;\n"
        "             shell_broker_switches_per_task, shell_agent_switches_per_task: the\n"
        "             context switches (a thread sleeping or woken) a task costs each;\n"
        "             spawn_idle_pct, shell_idle_pct: the machine's CPU time left idle\n"
        "             during each (all CPUs, from /proc/stat); zmq_floor_throughput,\n"
        "             zmq_floor_vs_spawn_pct, zmq_floor_cpu_per_task: the same tasks through\n"
        "             a bare ZeroMQ dealer to agent threads that spawn them (libzmq and\n"
        "             pidfds only: no cgroup, no pipes, no store), the same agents and procs;\n"
        "             zmq_hop_floor_*: the same with the design's 4 inproc hops between a\n"
        "             result and the next task; zmq_full_floor_*: with those hops, each\n"
        "             task's stdout and stderr on pipes and each result committed to SQLite\n"
        "             (WAL, synchronous FULL, 4 msec groups); shell_vs_hop_floor_pct,\n"
        "             shell_vs_full_floor_pct: the shell rate as a share of each floor's\n"
        "  heartbeat  heartbeat_cpu_pct: the broker's CPU, %% of one core, with --hb-workers\n"
        "             1000 simulated workers heartbeating every --hb-interval 1000 msec,\n"
        "             over --hb-window 10000 msec\n"
        "  fleet      fleet_cpu_pct, fleet_lost, fleet_broker_rss, fleet_interval_*_ms: the\n"
        "             broker's CPU (%% of one core), workers it declared LOST and its RSS\n"
        "             with --fleet-workers 10000 simulated workers (from processes of their\n"
        "             own) heartbeating at the interval the broker told each, over\n"
        "             --fleet-window 300000 msec (3000 with --quick)\n"
        "  durable    durable_submit_rate, durable_submit_rate_off: acknowledged submits/s\n"
        "             (--submits, no workers) with broker/durability full (each TASK ACCEPTED\n"
        "             sent once its task is committed and fsync'd), then off (memory only);\n"
        "             noop_throughput_full, noop_throughput_off: the noop phase on each;\n"
        "             noop_full_vs_off_pct: the first, %% of the second (a fresh broker each);\n"
        "             with --postgres, durable_submit_rate_pg and noop_rate_pg: the same with\n"
        "             durability full on the postgresql backend, and each %% of SQLite's\n"
        "             (submit_pg_vs_sqlite_pct, noop_pg_vs_sqlite_pct)\n"
        "  restart    restart_ms: --restart-tasks 1000000 tasks of a 100-byte command queued\n"
        "             (durability full, no workers), the broker killed with SIGKILL and started\n"
        "             again on its state directory: msec from its start to its first answer\n"
        "             (it reads no peer before its state is loaded); restart_read_floor_ms (the\n"
        "             same rows and columns read from the same file with SQLite alone, by\n"
        "             the same queries), restart_vs_floor (x); restart_read_wide_ms (every\n"
        "             column of those rows by one query, as before state format 7);\n"
        "             restart_check_floor_ms (SQLite's quick_check of the same file alone,\n"
        "             which the broker runs beside its load before it writes anything),\n"
        "             restart_vs_checked_floor (x: of the longer of the read and the check);\n"
        "             restart_load_floor_ms: the least a restart of this design does, run\n"
        "             with SQLite and libzmq alone (the check beside the read, each row into\n"
        "             a record, the records by id on an assign thread, their ids queued on a\n"
        "             schedq thread, two inproc hops a batch), restart_load_floor_vs_read\n"
        "             and restart_vs_load_floor (x);\n"
        "             restart_cpu_ms (the CPU the broker used, all threads, from its start\n"
        "             to its first answer: less disturbed by load); restart_tasks_restored;\n"
        "             broker_rss_before_kill, broker_rss_restarted (MiB);\n"
        "             state_bytes_per_task_wal: the state directory's files (state.db, its\n"
        "             WAL and index) per task right after the kill; state_bytes_per_task:\n"
        "             the same after a clean stop (SQLite checkpoints the WAL on close)\n"
        "  curve      noop_throughput_curve, noop_throughput_plain: the noop phase with CURVE\n"
        "             on every connection (keys made in a temporary directory) and without,\n"
        "             durability off, a fresh broker each; noop_curve_vs_plain_pct;\n"
        "             rtt_p50_curve, rtt_p50_plain, rtt_p99_curve, rtt_p99_plain (usec)\n"
        "  pool       pool_plan_us_i<I>_t<T>: usec per decision pass of the elastic pool\n"
        "             (its class alone, no broker, the pool full) with I registered\n"
        "             instances and T tasks waiting in 10 shapes, for I,T = 100,10000\n"
        "             100,100000 and 1000,100000; each size timed for --pool-msec 500;\n"
        "             pool_first_task_ms: a broker with the local driver and an empty pool\n"
        "             (min-instances 0), one task submitted: msec until it has run on the\n"
        "             instance started for it, the median of --pool-rounds 5 (the pool empty\n"
        "             again before each)\n"
        "  services   services_term_us_w<W>_r<R>: usec per steady term of the reconciler\n"
        "             (its class alone, no broker: gather, delta, placement, commit) with W\n"
        "             workers and R replicas all running, for W,R = 100,1000 and\n"
        "             1000,10000; services_first_us_w<W>_r<R>: the first placement of all R;\n"
        "             the _ns_replica_ figures per replica; each timed for --services-msec\n"
        "             500; rendezvous_moved_remove_pct / _add_pct: of 1,000 keys over 10\n"
        "             workers, the percent that move when one leaves / an eleventh joins\n"
        "  failover   only with --postgres and --etcd (else skipped): two `drover broker`\n"
        "             processes electing a leader through etcd, their state in a fresh\n"
        "             schema of the database, one `drover worker` given both; the leader\n"
        "             accepts 20 tasks and is killed with SIGKILL; the other is sent a\n"
        "             submit (again after each REDIRECT) until it accepts one: msec from\n"
        "             the kill, over --failover-rounds 10 rounds (3 with --quick):\n"
        "             failover_median_ms, failover_min_ms, failover_max_ms; failover_lost:\n"
        "             acknowledged tasks the new leader never ended (must be 0);\n"
        "             failover_lease_ttl_ms: the brokers' --lease-ttl (default 4000)\n"
        "  fanout     fanout_rate: a root task, an array of --fanout 100000 elements each\n"
        "             after it, a final task after the array: (N + 2) tasks/s from the first\n"
        "             submit to the final task's end; fanout_plain_rate: the same N + 2\n"
        "             tasks as plain windowed submits (the noop phase's way), and\n"
        "             fanout_array_rate: as one plain array (its id waited on), no\n"
        "             dependencies, each on a fresh broker (--workers, --procs);\n"
        "             fanout_vs_plain_pct, fanout_vs_array_pct: the first, %% of each\n"
        "  chain      chain_rate: --chain 10000 tasks each after the previous one, all\n"
        "             submitted first (chain_submit_rate), then the workers started: tasks/s\n"
        "             to the last one's end; chain_link_ms: msec per link\n"
        "  array      one array of --array-elements 1000000 no-op elements, no workers:\n"
        "             array_accept_ms (to TASK ACCEPTED), array_rss_before / _after (MiB),\n"
        "             array_bytes_per_element; then array_cancel_ms: the array cancelled\n"
        "             by its id until it ended; with --array-run, array_run_rate instead:\n"
        "             the workers run every element, tasks/s to the array's end\n"
        "  graph-restart  --graph-chains 1000 chains of --graph-length 100 no-op tasks\n"
        "             (durability full), run until half have ended, the broker killed with\n"
        "             SIGKILL and started again: graph_restart_ms to its first answer;\n"
        "             then run to the end, every TASK DONE counted: graph_restart_ended\n"
        "             (each task once, SUCCEEDED), graph_restart_ended_at_kill,\n"
        "             graph_restart_reruns (runs past one at the workers: at least once)\n"
        "  share      fair share: share_assign_us_1 and share_assign_us_many, the\n"
        "             scheduling queue's cost of an assignment with one owner and with\n"
        "             --share-owners 1000, --share-queued 100000 requests queued, and\n"
        "             share_cost_ratio; the same through the whole broker (as queue does it):\n"
        "             share_broker_us_1, share_broker_us_many, share_broker_ratio;\n"
        "             then two owners of weights 1 and 3 keep two real\n"
        "             agents' 4 procs busy with 0.1 s tasks for --share-window 60000 msec:\n"
        "             share_low_pct / share_high_pct, the procs each held (the workers'\n"
        "             run times) while both waited (fair: 25 / 75); a third owner arrives\n"
        "             half way: share_late_first_ms, from its submit to its first task's\n"
        "             start (one task duration: 100)\n"
        "  agents     --agents 1000 real agents (drover-worker beside drover, else `drover\n"
        "             worker`; agents_lean says which), --procs 1 each, on one broker: when\n"
        "             all are registered, watched for --agents-window 120000 msec:\n"
        "             agents_lost (drover_workers_lost_total: all false), agents_broker_cpu_pct,\n"
        "             agents_broker_rss (MiB), agents_rss_total and agents_pss_total (MiB, with\n"
        "             their guards), agent_rss_mean and agent_pss_mean (MiB, the agent alone),\n"
        "             agents_registered_ms\n"
        "  reconnect  the same fleet registered, the broker killed with SIGKILL and started\n"
        "             again on its state: reconnect_answer_ms, reconnect_ms (from the kill\n"
        "             until it lists every agent again); reconnect_cpu_max_pct and\n"
        "             reconnect_cpu_mean_pct, its CPU in 100 ms slices from its answer until\n"
        "             then; after --reconnect-window 30000 msec more, reconnect_lost (workers\n"
        "             the restarted broker declared LOST) and reconnect_window_cpu_pct\n"
        "  --array-run  the array phase runs its elements rather than cancelling them\n"
        "  --quick    tiny sizes, for tests (sizes given explicitly still win)\n"
        "  --json     one JSON object instead of lines\n"
        "  --postgres URI|auto  also measure the durable phase on PostgreSQL, and keep\n"
        "             the failover phase's state there: URI a database where the bench\n"
        "             may make (and drops) a schema per broker (per round);\n"
        "             auto starts a server for the run on loopback (tests/pg_server.sh, or\n"
        "             $DROVER_PG_SERVER; Debian's postgresql package)\n"
        "  --etcd URL|auto  the etcd of the failover phase: auto starts one for the run\n"
        "             on loopback (tests/etcd_server.sh, or $DROVER_ETCD_SERVER; Debian's\n"
        "             etcd-server package)\n"
        "  --lease-ttl MSEC  the failover phase's brokers' etcd session TTL (2000..600000)\n"
        "  --set SECTION/KEY=VALUE  a broker setting for every broker started (up to 4;\n"
        "             after the phase's own, so it wins), e.g. schedq/max-leases=0\n"
        "  -v         let the broker and agents log to stderr\n");
}

//  Parse a comma-separated list of phase names (one of names each) into
//  bits. Returns 0 or -1.
static int
s_parse_phases (const char *text, const char *const *names, size_t nphases, unsigned *phases_p)
{
    unsigned phases = 0;
    char *copy = strdup (text);
    char *saved = NULL;
    int rc = 0;
    for (char *name = strtok_r (copy, ",", &saved); name; name = strtok_r (NULL, ",", &saved)) {
        size_t index;
        for (index = 0; index < nphases; index++)
            if (streq (names [index], name))
                break;
        if (index == nphases) {
            rc = drover_cli_usage_error ("bench", "--phases: unknown phase '%s'", name);
            break;
        }
        phases |= 1u << index;
    }
    free (copy);
    if (rc == 0 && phases == 0)
        rc = drover_cli_usage_error ("bench", "--phases: no phase named");
    *phases_p = phases;
    return rc? -1: 0;
}

//  Parse a comma-separated list of sizes (1..max each). Returns 0 or -1.
static int
s_parse_list (const char *flag, const char *text, long long max, long long *list, size_t *count_p)
{
    size_t count = 0;
    char *copy = strdup (text);
    char *saved = NULL;
    int rc = 0;
    for (char *item = strtok_r (copy, ",", &saved); item; item = strtok_r (NULL, ",", &saved)) {
        if (count == DROVER_BENCHMARK_LIST_MAX) {
            rc = drover_cli_usage_error ("bench", "%s: at most %d entries", flag,
                                         DROVER_BENCHMARK_LIST_MAX);
            break;
        }
        if (drover_cli_parse_int ("bench", flag, item, 1, max, &list [count])) {
            rc = DROVER_EXIT_USAGE;
            break;
        }
        count++;
    }
    free (copy);
    if (rc == 0 && count == 0)
        rc = drover_cli_usage_error ("bench", "%s: empty list", flag);
    *count_p = count;
    return rc? -1: 0;
}

//  Parse the flags into opts
int
drover_benchmark_parse (int argc, char **argv, const char *const *names, size_t nphases,
                        drover_benchmark_opts_t *opts)
{
    struct option others [] = {
        { "phases",        required_argument, NULL, S_OPT_PHASES },
        { "queue-sizes",   required_argument, NULL, S_OPT_QUEUE_SIZES },
        { "worker-counts", required_argument, NULL, S_OPT_WORKER_COUNTS },
        { "quick",         no_argument,       NULL, S_OPT_QUICK },
        { "json",          no_argument,       NULL, S_OPT_JSON },
        { "set",           required_argument, NULL, S_OPT_SET },
        { "postgres",      required_argument, NULL, S_OPT_POSTGRES },
        { "etcd",          required_argument, NULL, S_OPT_ETCD },
        { "lease-ttl",     required_argument, NULL, S_OPT_LEASE_TTL },
        { "array-run",     no_argument,       NULL, S_OPT_ARRAY_RUN },
        { "verbose",       no_argument,       NULL, 'v' },
        { "help",          no_argument,       NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    struct option options [S_SIZES + sizeof others / sizeof others [0]];
    for (size_t index = 0; index < S_SIZES; index++)
        options [index] = (struct option) { s_sizes [index].flag, required_argument, NULL,
                                            S_OPT_SIZE + (int) index };
    memcpy (options + S_SIZES, others, sizeof others);

    memset (opts, 0, sizeof *opts);
    opts->phases = (1u << nphases) - 1;
    opts->lease_ttl = DROVER_DEFAULT_HA_LEASE_TTL;     //  the broker's own
    //  Sizes given explicitly win over --quick, whatever the order
    long long given [S_SIZES] = { 0 };
    long long queue_sizes [DROVER_BENCHMARK_LIST_MAX], worker_counts [DROVER_BENCHMARK_LIST_MAX];
    size_t nqueue_sizes = 0, nworker_counts = 0;
    bool quick = false;
    optind = 1;
    opterr = 0;
    int option;
    while ((option = getopt_long (argc, argv, ":vh", options, NULL)) != -1) {
        if (option >= S_OPT_SIZE && option < S_OPT_SIZE + (int) S_SIZES) {
            size_t which = (size_t) (option - S_OPT_SIZE);
            char flag [32];
            snprintf (flag, sizeof flag, "--%s", s_sizes [which].flag);
            if (drover_cli_parse_int ("bench", flag, optarg, 1, s_sizes [which].max,
                                      &given [which]))
                return DROVER_EXIT_USAGE;
            continue;
        }
        switch (option) {
            case S_OPT_PHASES:
                if (s_parse_phases (optarg, names, nphases, &opts->phases))
                    return DROVER_EXIT_USAGE;
                break;
            case S_OPT_QUEUE_SIZES:
                if (s_parse_list ("--queue-sizes", optarg, 100000000, queue_sizes, &nqueue_sizes))
                    return DROVER_EXIT_USAGE;
                break;
            case S_OPT_WORKER_COUNTS:
                if (s_parse_list ("--worker-counts", optarg, 5000, worker_counts, &nworker_counts))
                    return DROVER_EXIT_USAGE;
                break;
            case S_OPT_QUICK: quick = true; break;
            case S_OPT_JSON: opts->json = true; break;
            case S_OPT_ARRAY_RUN: opts->array_run = true; break;
            case S_OPT_SET:
                if (s_parse_set (optarg, opts))
                    return DROVER_EXIT_USAGE;
                break;
            case S_OPT_POSTGRES:
                if (!streq (optarg, "auto") && strncmp (optarg, "postgresql://", 13) != 0
                &&  strncmp (optarg, "postgres://", 11) != 0)
                    return drover_cli_usage_error ("bench", "--postgres %s: expected a "
                                                   "postgresql:// URI or auto", optarg);
                opts->postgres = optarg;
                break;
            case S_OPT_ETCD:
                if (!streq (optarg, "auto") && strncmp (optarg, "http://", 7) != 0
                &&  strncmp (optarg, "https://", 8) != 0)
                    return drover_cli_usage_error ("bench", "--etcd %s: expected an "
                                                   "http:// URL or auto", optarg);
                opts->etcd = optarg;
                break;
            case S_OPT_LEASE_TTL:
                if (drover_cli_parse_int ("bench", "--lease-ttl", optarg, 2000, 600000,
                                          &opts->lease_ttl))
                    return DROVER_EXIT_USAGE;
                break;
            case 'v': opts->verbose = true; break;
            case 'h': s_usage (stdout); return DROVER_CLI_HELP;
            case ':':
                return drover_cli_usage_error ("bench", "option '%s' needs a value",
                                               argv [optind - 1]);
            default:
                return drover_cli_usage_error ("bench", "unknown option '%s' (see drover "
                                               "bench --help)", argv [optind - 1]);
        }
    }
    if (optind < argc)
        return drover_cli_usage_error ("bench", "unexpected argument '%s'", argv [optind]);
    for (size_t index = 0; index < S_SIZES; index++) {
        long long *field = (long long *) ((char *) opts + s_sizes [index].offset);
        *field = given [index]? given [index]: quick? s_sizes [index].quick: s_sizes [index].normal;
    }
    const long long *sizes = quick? s_queue_sizes_quick: s_queue_sizes;
    size_t nsizes = quick? sizeof s_queue_sizes_quick / sizeof (long long)
                         : sizeof s_queue_sizes / sizeof (long long);
    if (nqueue_sizes)
        sizes = queue_sizes, nsizes = nqueue_sizes;
    memcpy (opts->queue_sizes, sizes, nsizes * sizeof (long long));
    opts->nqueue_sizes = nsizes;
    const long long *counts = quick? s_worker_counts_quick: s_worker_counts;
    size_t ncounts = quick? sizeof s_worker_counts_quick / sizeof (long long)
                          : sizeof s_worker_counts / sizeof (long long);
    if (nworker_counts)
        counts = worker_counts, ncounts = nworker_counts;
    memcpy (opts->worker_counts, counts, ncounts * sizeof (long long));
    opts->nworker_counts = ncounts;
    return 0;
}
