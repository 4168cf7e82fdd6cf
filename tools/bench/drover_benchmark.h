/*  =========================================================================
    drover_benchmark - `drover bench`: throughput, latency, scheduling cost,
    shell tasks, heartbeat load and memory of a broker started for the
    purpose on loopback

    The first part declares the subcommand's entry point. The second is
    shared by the bench's own files only (tools/bench/drover_benchmark*.c): the
    run's options and figures, the broker child, and the phases that live
    in their own files.
    =========================================================================
*/

#ifndef DROVER_BENCHMARK_H_INCLUDED
#define DROVER_BENCHMARK_H_INCLUDED

#include <czmq.h>
#include <spawn.h>
#include "drover_client_wire.h"
#include "drover_worker.h"

#ifdef __cplusplus
extern "C" {
#endif

//  Run the benchmark: argv [0] is "bench". Returns an exit status
//  (0 ok, 1 a phase failed, 2 bad flags).
int
    drover_benchmark_main (int argc, char **argv);


//  ---------------------------------------------------------------------
//  Shared by tools/bench/drover_benchmark*.c only

#define DROVER_BENCHMARK_FIGURES_MAX    192     //  figures one run prints at most
#define DROVER_BENCHMARK_LIST_MAX       8       //  entries in a list flag
#define DROVER_BENCHMARK_SETS_MAX       4       //  --set settings for every broker, at most
#define DROVER_BENCHMARK_RESTART_MAX    600000  //  msec a restarted broker may take to load

//  Sizes and switches, all from flags
typedef struct {
    long long tasks;            //  (a) tasks run end to end
    long long workers;          //  (a), (b) in-process workers
    long long procs;            //  (a), (b) offers each worker may hold at once
    long long window;           //  (a) tasks outstanding at most; submit window
    long long rtt;              //  (b) round trips timed
    long long submits;          //  (c) acknowledged submits
    long long queued;           //  (d) tasks queued for the memory figure
    long long assigns;          //  (e) assignments timed per size
    long long slots;            //  (e) offers the simulated workers hold at once, in all
    long long assign_queue;     //  (e) tasks queued while the number of workers varies
    long long shell_tasks;      //  (f) `true` tasks run by the agents
    long long shell_agents;     //  (f) `drover worker` processes
    long long shell_procs;      //  (f) procs each agent offers
    long long spawners;         //  (f) concurrent spawners of the bare fork/exec rate
    long long hb_workers;       //  (g) simulated workers heartbeating
    long long hb_interval;      //  (g) msec between heartbeats
    long long hb_window;        //  (g) msec over which the broker's CPU is measured
    long long fleet_workers;    //  (s) simulated workers at the broker's interval
    long long fleet_window;     //  (s) msec over which CPU and LOST are measured
    long long restart_tasks;    //  (i) tasks queued before the broker is killed
    long long pool_msec;        //  (k) msec each size of the pool's plan is timed
    long long pool_rounds;      //  (k) first tasks timed on an empty local pool
    long long services_msec;    //  (l) msec each size of the reconciler's term is timed
    long long failover_rounds;  //  (m) leaders killed, one per round
    long long lease_ttl;        //  (m) msec, the brokers' etcd session TTL (--lease-ttl)
    long long fanout;           //  (n) array elements between the root and the final task
    long long chain;            //  (o) tasks in the chain
    long long array_elements;   //  (p) elements of the array accepted in one request
    long long graph_chains;     //  (q) chains of the graph restarted half way
    long long graph_length;     //  (q) tasks in each of its chains
    long long share_owners;     //  (r) owners sharing the scheduling queue
    long long share_queued;     //  (r) requests queued while the cost is timed
    long long share_window;     //  (r) msec two owners keep the agents full
    long long agents;           //  (s), (t) real agent processes, --procs 1 each
    long long agents_window;    //  (s) msec the registered fleet is watched
    long long reconnect_window; //  (t) msec watched after every agent registered again
    long long queue_sizes [DROVER_BENCHMARK_LIST_MAX];     //  (e) queue lengths
    size_t nqueue_sizes;        //  entries in queue_sizes
    long long worker_counts [DROVER_BENCHMARK_LIST_MAX];   //  (e) simulated workers
    size_t nworker_counts;      //  entries in worker_counts
    unsigned phases;            //  bit per phase to run (index in the phase table)
    const char *sets [DROVER_BENCHMARK_SETS_MAX + 1];  //  --set SECTION/KEY=VALUE for every
                                //  broker started (borrowed from argv), NULL-ended
    const char *postgres;       //  (h) --postgres: a PostgreSQL URI, "auto" (a server
                                //  started for the run), or NULL (SQLite only)
    const char *etcd;           //  (m) --etcd: an etcd URL, "auto" (a server started
                                //  for the run), or NULL (no failover phase)
    bool array_run;             //  (p) run the array to its end instead of cancelling it
    bool json;                  //  one JSON object instead of lines
    bool verbose;               //  let the broker and agents log to stderr
} drover_benchmark_opts_t;

//  One measured figure
typedef struct {
    char name [40];             //  e.g. "noop_throughput"
    double value;               //  in unit
    const char *unit;           //  e.g. "tasks/s", static
} drover_benchmark_figure_t;

//  The run: options, the broker of the current phase, what was measured
typedef struct {
    drover_benchmark_opts_t opts;   //  sizes and switches
    pid_t broker;               //  broker child of the current phase, or 0
    char endpoint [64];         //  its ROUTER, tcp://127.0.0.1:port
    char events [64];           //  its PUB, tcp://127.0.0.1:port
    char state_dir [64];        //  its state directory, made fresh for each start, or ""
    const char **settings;      //  its --set settings from the phase (borrowed), or NULL
    drover_benchmark_figure_t figures [DROVER_BENCHMARK_FIGURES_MAX];  //  measured so far
    size_t nfigures;            //  entries used in figures
    int64_t progress_at;        //  msec mono of the last progress line
    const char *client_key;     //  with CURVE: the clients' key pair file, else NULL
    const char *worker_key;     //  with CURVE: the workers' key pair file, else NULL
    const char *server_key;     //  with CURVE: the broker's public key file, else NULL
    char pg_uri [256];          //  (h) the PostgreSQL database, or "" before it is known
    char pg_dir [64];           //  (h) the server started for the run (auto), or ""
    char pg_schema [64];        //  (h) the current broker's fresh schema, or ""
    int pg_schemas;             //  (h) schemas made so far
} drover_benchmark_t;

//  What the async-submit and done handlers fill in
typedef struct {
    uint64_t *ids;              //  task id by tag (slot in the current batch), or NULL
    uint64_t refused;           //  submits answered with an ERROR
    uint64_t succeeded;         //  TASK DONEs with state SUCCEEDED
    uint64_t finished;          //  TASK DONEs of any state
} drover_benchmark_tally_t;

//  Parse bench's flags into opts; names are the phases' (nphases of them),
//  in the order of their bits. Returns 0, DROVER_CLI_HELP, or an exit status
//  (the error said).
int
    drover_benchmark_parse (int argc, char **argv, const char *const *names, size_t nphases,
                            drover_benchmark_opts_t *opts);

//  Return a TCP port on 127.0.0.1 that was free a moment ago, or 0
int
    drover_benchmark_free_port (void);

//  Reach the PostgreSQL server of --postgres: with "auto", start one for
//  the run (tests/pg_server.sh, or $DROVER_PG_SERVER). Returns 0, or -1
//  (said why).
int
    drover_benchmark_pg_open (drover_benchmark_t *self);

//  Make a fresh schema for the next broker: returns the state URI that
//  puts its tables there (ours: free it), or NULL (said why)
char *
    drover_benchmark_pg_fresh (drover_benchmark_t *self);

//  Drop the current broker's schema, if any
void
    drover_benchmark_pg_drop (drover_benchmark_t *self);

//  Stop the server started for the run, if any
void
    drover_benchmark_pg_close (drover_benchmark_t *self);

//  The children (tools/bench/drover_benchmark_broker.c): start a broker child on
//  two free loopback ports, with `--set` settings (NULL-terminated
//  "section/key=value" list, or NULL) and after them the operator's
//  (opts.sets, which so win), and wait until it answers. Returns 0, or -1.
int
    drover_benchmark_broker_start (drover_benchmark_t *self, const char **settings);

//  Stop the broker child (SIGTERM, SIGKILL after 5 s), reap it and remove
//  its state directory
void
    drover_benchmark_broker_stop (drover_benchmark_t *self);

//  Kill the broker child with SIGKILL and reap it; its state directory stays
void
    drover_benchmark_broker_kill (drover_benchmark_t *self);

//  Start the killed broker again on the same ports, state directory and
//  settings, and wait until it answers (a progress line each second for
//  phase, if not NULL). Returns the usec from its start to its first
//  answer, or -1.
int64_t
    drover_benchmark_broker_restart (drover_benchmark_t *self, const char *phase);

//  Return the broker child's VmRSS in bytes, or 0 if unreadable
uint64_t
    drover_benchmark_broker_rss (drover_benchmark_t *self);

//  Return the broker child's peak VmRSS (VmHWM) in bytes, or 0 if unreadable
uint64_t
    drover_benchmark_broker_peak (drover_benchmark_t *self);

//  Start this executable as a child with argv (argv [0] is ignored), its
//  stdout to /dev/null and stderr too unless verbose; it dies with us.
//  Returns its pid, or -1.
pid_t
    drover_benchmark_spawn (drover_benchmark_t *self, char **argv);

//  Start program as a child with argv, its standard streams on /dev/null
//  (stderr too unless -v); it dies with us. Returns its pid, or -1.
pid_t
    drover_benchmark_spawn_program (drover_benchmark_t *self, const char *program,
                                    char **argv);

//  Stop a child with SIGTERM (SIGKILL after 5 s) and reap it
void
    drover_benchmark_reap (pid_t pid);

//  Return the CPU time a process has used (all its threads), nsec; -1 if
//  it cannot be read
int64_t
    drover_benchmark_cpu_nsec (pid_t pid);

//  Return the context switches a process's threads have made so far (each
//  a sleep and a wake-up, or a preemption), or -1 if it cannot be read
int64_t
    drover_benchmark_switches (pid_t pid);

//  Return the CPU time a process has used, nsec, by /proc/PID/stat (clock
//  ticks), which counts threads that have exited too; -1 if unreadable
int64_t
    drover_benchmark_stat_cpu_nsec (pid_t pid);

//  Return the CPU usec this process and the children it has reaped have
//  used so far
int64_t
    drover_benchmark_own_cpu_usecs (void);

//  Record a figure; printed at once unless the output is JSON
void
    drover_benchmark_figure (drover_benchmark_t *self, const char *name, double value,
                             const char *unit);

//  Say how far a long phase got, once a second at most (or when forced)
void
    drover_benchmark_progress (drover_benchmark_t *self, const char *phase, long long done,
                               long long total, bool force);

//  The in-process no-op workers of a phase
typedef struct {
    drover_worker_t **workers;  //  owned, count entries
    zactor_t **actors;          //  owned, each runs its worker's loop
    size_t count;               //  workers started
    drover_worker_handler_fn *handler;  //  runs each offer (in the workers' threads),
                                //  or NULL: a no-op that succeeds
    void *arg;                  //  the handler's argument
} drover_benchmark_crew_t;

//  Start opts.workers in-process workers of opts.procs offers each, running
//  crew->handler (set before, or NULL: no-op), and wait until the broker
//  lists them all. Returns 0, or -1 (what started is in crew, for
//  drover_benchmark_crew_stop).
int
    drover_benchmark_crew_start (drover_benchmark_t *self, drover_benchmark_crew_t *crew,
                                 drover_client_t *client);

//  Stop and free the workers
void
    drover_benchmark_crew_stop (drover_benchmark_crew_t *crew);

//  Connect a bench client to the current broker, acks counted in tally
drover_client_t *
    drover_benchmark_client (drover_benchmark_t *self, drover_benchmark_tally_t *tally);

//  Build a submit of argv "true", or of a 100-byte command line if
//  padded, with flags. The caller destroys it.
drover_submit_t *
    drover_benchmark_submit_new (bool padded, uint32_t flags);

//  Queue count tasks through client with its window, no workers needed:
//  every one must be accepted. Returns the usec it took, or -1.
int64_t
    drover_benchmark_submit_many (drover_benchmark_t *self, drover_client_t *client,
                                  drover_benchmark_tally_t *tally, drover_submit_t *submit,
                                  long long count, const char *phase);

//  Run count NOTIFY tasks to the end with a window of them outstanding,
//  on whatever workers the broker has. Returns the usec it took, or -1.
int64_t
    drover_benchmark_run_tasks (drover_benchmark_t *self, drover_client_t *client,
                                drover_benchmark_tally_t *tally, drover_submit_t *submit,
                                long long count, const char *phase);

//  Run opts.tasks no-op tasks end to end on the current broker, through
//  opts.workers in-process workers. Returns tasks/s, or -1.
double
    drover_benchmark_noop_rate (drover_benchmark_t *self, const char *phase);

//  Order usec samples, for qsort
int
    drover_benchmark_compare_usec (const void *left, const void *right);

//  Wait until the broker lists at least count workers (10 s at most).
//  Returns 0, or -1.
int
    drover_benchmark_await_workers (drover_benchmark_t *self, drover_client_t *client,
                                    size_t count);

//  (e) scheduling cost by queue length: assign_us_q<size> per size
int
    drover_benchmark_phase_queue (drover_benchmark_t *self);

//  (e) scheduling cost by connected workers: assign_us_w<count> per count
int
    drover_benchmark_phase_workers (drover_benchmark_t *self);

//  (g) the broker's CPU with many workers heartbeating: heartbeat_cpu_pct
int
    drover_benchmark_phase_heartbeat (drover_benchmark_t *self);

//  (s) the broker's CPU, RSS and false LOST with ten thousand simulated
//  workers at the interval it tells them: fleet_cpu_pct, fleet_lost, ...
int
    drover_benchmark_phase_fleet (drover_benchmark_t *self);

//  (h) durable acknowledged submits and no-op throughput, durability full
//  beside off (drover_benchmark_durable.c)
int
    drover_benchmark_phase_durable (drover_benchmark_t *self);

//  (j) no-op throughput and round trip with CURVE on, beside off
//  (drover_benchmark_curve.c)
int
    drover_benchmark_phase_curve (drover_benchmark_t *self);

//  (i) restart time with opts.restart_tasks queued, memory and bytes on disk
int
    drover_benchmark_phase_restart (drover_benchmark_t *self);

//  The restart's floors on the state in dir, with SQLite alone
//  (drover_benchmark_restartfloor.c). The read of the rows and columns a
//  broker loads (or, wide, of every column), usec or -1, *rows_p the rows
int64_t
    drover_benchmark_read_floor (const char *dir, bool wide, long long *rows_p);

//  SQLite's quick_check of the file, as the broker runs it; usec or -1
int64_t
    drover_benchmark_check_floor (const char *dir);

//  The least a restart of this design does, run for real: the check
//  beside the read, each row into a record, the records by id on an
//  assign thread, their ids queued on a schedq thread, two inproc hops a
//  batch; usec to both done or -1, *rows_p the rows queued
int64_t
    drover_benchmark_load_floor (const char *dir, long long expected, long long *rows_p);

//  (f) `true` run by real agents, against the bare fork/exec rate
int
    drover_benchmark_phase_shell (drover_benchmark_t *self);

//  CPU usec libzmq alone spends on one small message one way between two
//  contexts over loopback TCP, over bounces round trips; -1 on failure
//  (drover_benchmark_msgfloor.c)
double
    drover_benchmark_tcp_message_cpu (long long bounces);

//  The same for one message between two threads over inproc
double
    drover_benchmark_inproc_hop_cpu (long long bounces);

//  Set actions to start a child with stdin, stdout and stderr on
//  /dev/null (drover_benchmark_spawnfloor.c)
void
    drover_benchmark_null_stdio (posix_spawn_file_actions_t *actions);

//  What the floor of the shell phase does besides spawning each task and
//  carrying its two messages (drover_benchmark_spawnfloor.c)
typedef struct {
    size_t hops;                //  inproc hops a result crosses before the next task
                                //  goes out: 0, or 2 to 16
    bool capture;               //  each task's stdout and stderr on pipes read to their end
    bool store;                 //  each result committed to SQLite, in groups
} drover_benchmark_floor_t;

//  tasks `true` tasks through a bare ZeroMQ dealer and agents agent
//  threads running procs at once, as floor says: tasks/s, and the CPU per
//  task in *cpu_per_task (usec); -1 on failure
double
    drover_benchmark_spawn_floor (size_t agents, size_t procs, long long tasks,
                                  const drover_benchmark_floor_t *floor,
                                  double *cpu_per_task);

//  (k) the elastic pool's decision cost (drover_benchmark_pool.c)
int
    drover_benchmark_phase_pool (drover_benchmark_t *self);

//  (l) the reconciler's term cost and rendezvous stability
//  (drover_benchmark_services.c)
int
    drover_benchmark_phase_services (drover_benchmark_t *self);

//  (n) a fan-out/fan-in graph's no-op rate beside the same tasks without
//  dependencies (drover_benchmark_workflow.c)
int
    drover_benchmark_phase_fanout (drover_benchmark_t *self);

//  (o) a chain's no-op rate and msec per link (drover_benchmark_workflow.c)
int
    drover_benchmark_phase_chain (drover_benchmark_t *self);

//  (p) an array accepted in one request: time, broker memory per element
//  (drover_benchmark_workflow.c)
int
    drover_benchmark_phase_array (drover_benchmark_t *self);

//  (q) a graph's broker killed half way and restarted: time to serving,
//  every task ended once (drover_benchmark_workflow.c)
int
    drover_benchmark_phase_graph_restart (drover_benchmark_t *self);

//  (r) usec per assignment through the whole broker with queued tasks
//  spread over owners (drover_benchmark_sim.c): figure name. 0 or -1.
int
    drover_benchmark_assign_cost_owners (drover_benchmark_t *self, long long queued,
                                         uint32_t owners, const char *name);

//  (r) fair share: the cost of an assignment among many owners, and two
//  owners' split of real agents' procs (drover_benchmark_share.c)
int
    drover_benchmark_phase_share (drover_benchmark_t *self);

//  (m) failover time of two brokers on etcd and PostgreSQL, and tasks lost
//  (drover_benchmark_failover.c); skipped without --postgres and --etcd
int
    drover_benchmark_phase_failover (drover_benchmark_t *self);

//  (s) a fleet of real agents registered with one broker: false LOST,
//  broker CPU and RSS, the agents' memory (drover_benchmark_agents.c)
int
    drover_benchmark_phase_agents (drover_benchmark_t *self);

//  (t) the same fleet, its broker killed and restarted: time until every
//  agent is registered again, CPU by slices, LOST (drover_benchmark_agents.c)
int
    drover_benchmark_phase_reconnect (drover_benchmark_t *self);

#ifdef __cplusplus
}
#endif

#endif
