/*  =========================================================================
    drover_benchmark_shell - `drover bench` phase (f): shell tasks

    `true` run as real tasks by real `drover worker` agents (children of
    this executable), tasks per second end to end; and, as the ceiling,
    the machine's bare rate of spawn (posix_spawn) + wait of `true`,
    measured by the same process with as many concurrent spawners as the
    agents run tasks at once. Both are printed, and the first as a percentage of
    the second; and the CPU each costs per task (this process and its
    reaped children: the broker, the agents, the tasks), which a loaded
    machine disturbs much less than the rates. Then the floors under
    drover's rate, run for real with the same tasks, agents and procs
    through a bare ZeroMQ dealer (drover_benchmark_spawnfloor.c).
    =========================================================================
*/

#include "drover_cli.h"
#include "drover_benchmark.h"
#include <pthread.h>
#include <spawn.h>
#include <sys/wait.h>

#define S_AGENTS_MAX    64          //  agents one phase starts at most (flag bound)
#define S_SPAWNERS_MAX  4096        //  spawner threads at most (agents x procs)
#define S_FLOOR_BOUNCES 10000       //  round trips the message floor is measured over
#define S_DESIGN_HOPS   4           //  inproc hops between a result and the next task at the
                                    //  least: main -> assign -> schedq -> assign -> main

extern char **environ;

//  One spawner thread's share of the bare rate
typedef struct {
    long long count;            //  processes to run
    long long failed;           //  that did not exit 0
} s_spawner_t;

//  Spawn `true` (looked up in PATH, as the runner does) with its stdio on
//  /dev/null and wait for it; count processes that failed. posix_spawn
//  (vfork and exec) does not copy this process's page tables, so the rate
//  is the machine's, not a function of the bench's own size.
static void *
s_spawner (void *args)
{
    s_spawner_t *self = (s_spawner_t *) args;
    char *argv [] = { "true", NULL };
    posix_spawn_file_actions_t actions;
    drover_benchmark_null_stdio (&actions);
    for (long long index = 0; index < self->count; index++) {
        pid_t pid;
        int status = 0;
        if (posix_spawnp (&pid, argv [0], &actions, NULL, argv, environ) != 0
        ||  waitpid (pid, &status, 0) != pid
        ||  !WIFEXITED (status) || WEXITSTATUS (status) != 0)
            self->failed++;
    }
    posix_spawn_file_actions_destroy (&actions);
    return NULL;
}

//  The machine's CPU time so far, all CPUs, from /proc/stat: idle (idle
//  and iowait) and in all, in clock ticks
typedef struct {
    long long idle;
    long long total;
} s_cpustat_t;

//  Read the machine's CPU time so far; both zero if /proc/stat cannot be read
static s_cpustat_t
s_cpustat (void)
{
    s_cpustat_t stat = { 0, 0 };
    FILE *file = fopen ("/proc/stat", "r");
    long long ticks [8] = { 0 };
    if (file && fscanf (file, "cpu %lld %lld %lld %lld %lld %lld %lld %lld", &ticks [0],
                        &ticks [1], &ticks [2], &ticks [3], &ticks [4], &ticks [5],
                        &ticks [6], &ticks [7]) == 8) {
        stat.idle = ticks [3] + ticks [4];
        for (size_t index = 0; index < 8; index++)
            stat.total += ticks [index];
    }
    if (file)
        fclose (file);
    return stat;
}

//  The share of the machine's CPU time left idle between two readings, %
static double
s_idle_pct (s_cpustat_t before, s_cpustat_t after)
{
    long long total = after.total - before.total;
    return total > 0? (double) (after.idle - before.idle) * 100 / (double) total: 0;
}

//  The bare spawn-and-wait rate of `true` from opts.spawners threads (by
//  default as many as the agents run tasks at once), per second; -1 if
//  any failed
static double
s_spawn_rate (drover_benchmark_t *self, double *idle_pct)
{
    long long spawners = self->opts.spawners? self->opts.spawners
                                            : self->opts.shell_agents * self->opts.shell_procs;
    size_t count = (size_t) (spawners < S_SPAWNERS_MAX? spawners: S_SPAWNERS_MAX);
    long long total = self->opts.shell_tasks;
    pthread_t *threads = (pthread_t *) zmalloc (count * sizeof (pthread_t));
    s_spawner_t *shares = (s_spawner_t *) zmalloc (count * sizeof (s_spawner_t));
    int64_t started = zclock_usecs ();
    s_cpustat_t cpu_before = s_cpustat ();
    size_t running = 0;
    for (size_t index = 0; index < count; index++) {
        long long share = total / (long long) count + ((long long) index < total % (long long) count);
        shares [index] = (s_spawner_t) { .count = share, .failed = 0 };
        if (pthread_create (&threads [index], NULL, s_spawner, &shares [index]))
            break;
        running++;
    }
    long long failed = running < count? 1: 0;
    for (size_t index = 0; index < running; index++) {
        pthread_join (threads [index], NULL);
        failed += shares [index].failed;
    }
    int64_t elapsed = zclock_usecs () - started;
    *idle_pct = s_idle_pct (cpu_before, s_cpustat ());
    free (threads);
    free (shares);
    if (failed) {
        fprintf (stderr, "drover bench: shell: %lld bare spawns of true failed\n", failed);
        return -1;
    }
    return total * 1e6 / (elapsed > 0? elapsed: 1);
}

//  What a shell run cost besides time: context switches per task (the
//  broker's, and the agents' in all), and the machine's idle CPU
typedef struct {
    double broker;
    double agents;
    double idle_pct;
} s_switches_t;

//  Run opts.shell_tasks `true` tasks on opts.shell_agents agents, each
//  offering opts.shell_procs procs; the context switches they cost in
//  switches. Returns tasks/s, or -1.
static double
s_shell_rate (drover_benchmark_t *self, s_switches_t *switches)
{
    if (drover_benchmark_broker_start (self, NULL))
        return -1;
    size_t count = (size_t) self->opts.shell_agents;
    pid_t agents [S_AGENTS_MAX] = { 0 };
    char procs [32];
    snprintf (procs, sizeof procs, "%lld", self->opts.shell_procs);
    int rc = 0;
    for (size_t index = 0; rc == 0 && index < count; index++) {
        char id [48];
        snprintf (id, sizeof id, "bench-shell-%zu", index + 1);
        char *argv [] = { "drover", "worker", "--broker", self->endpoint, "--procs", procs,
                          "--id", id, NULL };
        agents [index] = drover_benchmark_spawn (self, argv);
        if (agents [index] == -1)
            rc = -1;
    }
    drover_benchmark_tally_t tally = { 0 };
    drover_client_t *client = drover_benchmark_client (self, &tally);
    drover_submit_t *submit = drover_benchmark_submit_new (false, DROVER_SUBMIT_NOTIFY);
    if (rc == 0)
        rc = drover_benchmark_await_workers (self, client, count);
    int64_t before = drover_benchmark_switches (self->broker);
    int64_t agents_before = 0;
    for (size_t index = 0; rc == 0 && index < count; index++)
        agents_before += drover_benchmark_switches (agents [index]);
    s_cpustat_t cpu_before = s_cpustat ();
    int64_t elapsed = rc? -1: drover_benchmark_run_tasks (self, client, &tally, submit,
                                                          self->opts.shell_tasks, "shell");
    switches->idle_pct = s_idle_pct (cpu_before, s_cpustat ());
    int64_t agents_after = 0;
    for (size_t index = 0; rc == 0 && index < count; index++)
        agents_after += drover_benchmark_switches (agents [index]);
    double tasks = (double) self->opts.shell_tasks;
    switches->broker = (drover_benchmark_switches (self->broker) - before) / tasks;
    switches->agents = (agents_after - agents_before) / tasks;
    drover_submit_destroy (&submit);
    drover_client_destroy (&client);
    for (size_t index = 0; index < count; index++)
        drover_benchmark_reap (agents [index]);
    drover_benchmark_broker_stop (self);
    return elapsed < 0? -1: self->opts.shell_tasks * 1e6 / (elapsed > 0? elapsed: 1);
}

//  The floor run for real, same tasks, same agents and procs, through a
//  bare ZeroMQ dealer: with nothing between a result and the next task;
//  with the design's hops between them; and with those hops, each task's
//  output captured and each result committed to SQLite. Each against the
//  bare spawn rate, and the shell rate against the last two. 0 or -1.
static int
s_zmq_floors (drover_benchmark_t *self, double spawn, double shell)
{
    const struct {
        const char *name;               //  its figures' prefix
        const char *shell_vs;           //  the shell rate's share of it, or NULL
        drover_benchmark_floor_t floor;
    } floors [] = {
        { "zmq_floor", NULL, { 0, false, false } },
        { "zmq_hop_floor", "shell_vs_hop_floor_pct", { S_DESIGN_HOPS, false, false } },
        { "zmq_full_floor", "shell_vs_full_floor_pct", { S_DESIGN_HOPS, true, true } }
    };
    size_t agents = (size_t) self->opts.shell_agents, procs = (size_t) self->opts.shell_procs;
    for (size_t index = 0; index < sizeof floors / sizeof floors [0]; index++) {
        double cpu = 0;
        double rate = drover_benchmark_spawn_floor (agents, procs, self->opts.shell_tasks,
                                                    &floors [index].floor, &cpu);
        if (rate < 0)
            return -1;
        char name [64];
        snprintf (name, sizeof name, "%s_throughput", floors [index].name);
        drover_benchmark_figure (self, name, rate, "tasks/s");
        snprintf (name, sizeof name, "%s_vs_spawn_pct", floors [index].name);
        drover_benchmark_figure (self, name, rate / spawn * 100, "%");
        snprintf (name, sizeof name, "%s_cpu_per_task", floors [index].name);
        drover_benchmark_figure (self, name, cpu, "usec");
        if (floors [index].shell_vs)
            drover_benchmark_figure (self, floors [index].shell_vs, shell / rate * 100, "%");
    }
    return 0;
}

//  (f) shell tasks on real agents against the bare fork/exec rate
int
drover_benchmark_phase_shell (drover_benchmark_t *self)
{
    //  CPU per task as well as rates: on a machine shared with other work
    //  the rates follow its load, what each task costs much less so. The
    //  shell phase's counts the broker, the agents and their tasks (all
    //  reaped children by its end), their start and stop included.
    int64_t cpu_start = drover_benchmark_own_cpu_usecs ();
    double spawn_idle = 0;
    double spawn = s_spawn_rate (self, &spawn_idle);
    int64_t cpu_spawned = drover_benchmark_own_cpu_usecs ();
    s_switches_t switches = { 0 };
    double shell = spawn < 0? -1: s_shell_rate (self, &switches);
    int64_t cpu_shell = drover_benchmark_own_cpu_usecs ();
    if (shell < 0)
        return -1;
    drover_benchmark_figure (self, "shell_throughput", shell, "tasks/s");
    drover_benchmark_figure (self, "spawn_rate", spawn, "procs/s");
    drover_benchmark_figure (self, "shell_vs_spawn_pct", spawn > 0? shell / spawn * 100: 0, "%");
    double tasks = (double) self->opts.shell_tasks;
    double spawn_cpu = (cpu_spawned - cpu_start) / tasks;
    double shell_cpu = (cpu_shell - cpu_spawned) / tasks;
    drover_benchmark_figure (self, "spawn_cpu_per_proc", spawn_cpu, "usec");
    drover_benchmark_figure (self, "shell_cpu_per_task", shell_cpu, "usec");
    drover_benchmark_figure (self, "spawn_vs_shell_cpu_pct",
                             shell_cpu > 0? spawn_cpu / shell_cpu * 100: 0, "%");
    //  The floor: a task makes two messages at the least (its offer to an
    //  agent, its result back), whatever the broker does between them
    double message = drover_benchmark_tcp_message_cpu (S_FLOOR_BOUNCES);
    double hop = drover_benchmark_inproc_hop_cpu (S_FLOOR_BOUNCES);
    if (message < 0 || hop < 0)
        return -1;
    double floor_cpu = spawn_cpu + 2 * message;
    drover_benchmark_figure (self, "message_cpu", message, "usec");
    drover_benchmark_figure (self, "inproc_hop_cpu", hop, "usec");
    drover_benchmark_figure (self, "shell_floor_cpu_pct", spawn_cpu / floor_cpu * 100, "%");
    drover_benchmark_figure (self, "shell_cpu_above_floor", shell_cpu - floor_cpu, "usec");
    //  The hops between threads: each switch a thread sleeping or waking
    //  (the broker's four actors, its store and its routing main each in a
    //  thread of its own; the agent's main and its libzmq thread)
    drover_benchmark_figure (self, "shell_broker_switches_per_task", switches.broker, "switches");
    drover_benchmark_figure (self, "shell_agent_switches_per_task", switches.agents, "switches");
    //  The CPU the machine left idle while each ran: what a slot waiting
    //  between its result and its next offer costs when no other has work
    drover_benchmark_figure (self, "spawn_idle_pct", spawn_idle, "%");
    drover_benchmark_figure (self, "shell_idle_pct", switches.idle_pct, "%");
    return s_zmq_floors (self, spawn, shell);
}
