/*  =========================================================================
    drover_benchmark_agents - `drover bench` phases with a fleet of real
    agents on loopback: (s) agents and (t) reconnect

    A fleet is --agents processes of the agent, each `--procs 1` with an
    id of its own, children of this executable: `drover-worker` when it
    lies beside this executable (the lean agent the package's unit runs),
    else `drover worker`. They register with one broker child; the phases
    wait until the broker lists them all (polling its worker list, with a
    deadline), never for a fixed time.

    (s) agents: the fleet registered, the broker is watched for
    --agents-window msec: its CPU (from /proc, all its threads), its RSS,
    the workers it declared LOST (drover_workers_lost_total from its
    metrics: no agent dies here, so every one is false), and the agents'
    memory, each agent with its children (its drover-guard, once it has
    one): RSS and Pss, in all and per agent.

    (t) reconnect: the fleet registered, the broker is killed with SIGKILL
    and started again on its state directory and ports: msec from the kill
    until it answers and until it lists every agent again, its CPU in
    100 ms slices from its answer until then (the largest slice and the
    mean: a storm pins a core), then --reconnect-window msec more, and the
    workers the restarted broker declared LOST over it all.
    =========================================================================
*/

#include "drover_cli.h"
#include "drover_benchmark.h"
#include <dirent.h>
#include <limits.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#define S_LEAN_NAME         "drover-worker" //  the lean agent, beside this executable
#define S_REGISTER_BASE     30000           //  msec the fleet may take to register, plus
#define S_REGISTER_PER      60              //  msec per agent
#define S_REGISTER_POLL     200             //  msec between worker counts while waiting
#define S_SLICE             100             //  msec per CPU slice after a restart
#define S_METRICS_WAIT      5000            //  msec a metrics answer may take
#define S_STOP_WAIT         10000           //  msec agents get to leave after SIGTERM
#define S_FDS_SPARE         256             //  descriptors the broker needs besides agents'
#define S_MIB               (1024.0 * 1024.0)

//  The agents of a phase
typedef struct {
    pid_t *pids;                //  count entries, 0 for one not started or reaped
    size_t count;               //  agents started
    char program [PATH_MAX];    //  the executable they run
    bool lean;                  //  program is drover-worker (else `drover worker`)
} s_fleet_t;

//  What the fleet's processes hold, KiB
typedef struct {
    uint64_t rss;               //  the agents' VmRSS
    uint64_t pss;               //  the agents' Pss
    uint64_t child_rss;         //  their children's (guards') VmRSS
    uint64_t child_pss;         //  their children's Pss
    size_t counted;             //  agents read
    size_t children;            //  children read
} s_memory_t;


//  ---------------------------------------------------------------------
//  Reading /proc

//  Return the KiB of key ("VmRSS:", "Pss:") in /proc/PID/file, or 0
static uint64_t
s_proc_kib (pid_t pid, const char *file, const char *key)
{
    char path [64];
    snprintf (path, sizeof path, "/proc/%d/%s", (int) pid, file);
    FILE *stream = fopen (path, "r");
    if (!stream)
        return 0;
    char line [256];
    uint64_t kib = 0;
    size_t length = strlen (key);
    while (fgets (line, sizeof line, stream))
        if (strncmp (line, key, length) == 0) {
            kib = strtoull (line + length, NULL, 10);
            break;
        }
    fclose (stream);
    return kib;
}

//  Add one process's RSS and Pss, and its children's, to memory
static void
s_memory_add (s_memory_t *memory, pid_t pid)
{
    uint64_t rss = s_proc_kib (pid, "status", "VmRSS:");
    if (rss == 0)
        return;                 //  gone
    memory->rss += rss;
    memory->pss += s_proc_kib (pid, "smaps_rollup", "Pss:");
    memory->counted++;
    char path [96];
    snprintf (path, sizeof path, "/proc/%d/task/%d/children", (int) pid, (int) pid);
    FILE *stream = fopen (path, "r");
    int child;
    while (stream && fscanf (stream, "%d", &child) == 1) {
        memory->child_rss += s_proc_kib ((pid_t) child, "status", "VmRSS:");
        memory->child_pss += s_proc_kib ((pid_t) child, "smaps_rollup", "Pss:");
        memory->children++;
    }
    if (stream)
        fclose (stream);
}

//  Return one series' value from the broker's metrics at 127.0.0.1:port
//  (the whole name with labels, as written), or -1 if absent or unread
static double
s_metric (int port, const char *series)
{
    int fd = socket (AF_INET, SOCK_STREAM, 0);
    if (fd == -1)
        return -1;
    struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = htons (port) };
    address.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    const char *request = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    if (connect (fd, (struct sockaddr *) &address, sizeof address)
    ||  send (fd, request, strlen (request), MSG_NOSIGNAL) != (ssize_t) strlen (request)) {
        close (fd);
        return -1;
    }
    size_t size = 1 << 16, used = 0;
    char *text = (char *) zmalloc (size);
    int64_t deadline = zclock_mono () + S_METRICS_WAIT;
    while (true) {
        struct pollfd item = { .fd = fd, .events = POLLIN };
        int64_t left = deadline - zclock_mono ();
        if (left <= 0 || poll (&item, 1, (int) left) != 1)
            break;
        if (used + 1 >= size) {
            size *= 2;
            text = (char *) realloc (text, size);
            assert (text);
        }
        ssize_t got = recv (fd, text + used, size - used - 1, 0);
        if (got <= 0)
            break;              //  the whole answer came
        used += (size_t) got;
        text [used] = 0;
    }
    close (fd);
    char needle [256];
    snprintf (needle, sizeof needle, "\n%s ", series);
    const char *at = strncmp (text, "HTTP/1.1 200", 12) == 0? strstr (text, needle): NULL;
    double value = at? strtod (at + strlen (needle), NULL): -1;
    free (text);
    return value;
}


//  ---------------------------------------------------------------------
//  The fleet

//  Choose the agents' executable: drover-worker beside this one, else
//  this one's `worker`
static void
s_fleet_program (s_fleet_t *fleet)
{
    char self [PATH_MAX];
    ssize_t length = readlink ("/proc/self/exe", self, sizeof self - 1);
    if (length > 0) {
        self [length] = 0;
        char *slash = strrchr (self, '/');
        if (slash)
            *slash = 0;
        int size = snprintf (fleet->program, sizeof fleet->program, "%.*s/%s",
                             (int) (sizeof fleet->program - sizeof S_LEAN_NAME - 1), self,
                             S_LEAN_NAME);
        if (size > 0 && access (fleet->program, X_OK) == 0) {
            fleet->lean = true;
            return;
        }
    }
    snprintf (fleet->program, sizeof fleet->program, "/proc/self/exe");
    fleet->lean = false;
}

//  Start one agent with id; it dies with us. Returns its pid, or -1.
static pid_t
s_agent_start (drover_benchmark_t *self, s_fleet_t *fleet, const char *id)
{
    char *lean [] = { S_LEAN_NAME, "--broker", self->endpoint, "--procs", "1", "--id",
                      (char *) id, NULL };
    char *fat [] = { "drover", "worker", "--broker", self->endpoint, "--procs", "1", "--id",
                     (char *) id, NULL };
    return drover_benchmark_spawn_program (self, fleet->program, fleet->lean? lean: fat);
}

//  Start count agents on the current broker. Returns 0, or -1 (those
//  started are in fleet, for s_fleet_stop).
static int
s_fleet_start (drover_benchmark_t *self, s_fleet_t *fleet, size_t count, const char *phase)
{
    s_fleet_program (fleet);
    fleet->pids = (pid_t *) zmalloc (count * sizeof (pid_t));
    fflush (stdout);
    fflush (stderr);
    for (size_t index = 0; index < count && !zsys_interrupted; index++) {
        char id [48];
        snprintf (id, sizeof id, "bench-agent-%zu", index + 1);
        pid_t pid = s_agent_start (self, fleet, id);
        if (pid == -1)
            return -1;
        fleet->pids [fleet->count++] = pid;
        drover_benchmark_progress (self, phase, (long long) index + 1, (long long) count,
                                   false);
    }
    return fleet->count == count? 0: -1;
}

//  Count the agents that exited by themselves (and reap them)
static size_t
s_fleet_exited (s_fleet_t *fleet)
{
    size_t exited = 0;
    for (size_t index = 0; index < fleet->count; index++)
        if (fleet->pids [index] > 0
        &&  waitpid (fleet->pids [index], NULL, WNOHANG) == fleet->pids [index]) {
            fleet->pids [index] = 0;
            exited++;
        }
    return exited;
}

//  Stop every agent: SIGTERM to all, SIGKILL to those still there after
//  S_STOP_WAIT; reap them and free the fleet
static void
s_fleet_stop (s_fleet_t *fleet)
{
    for (size_t index = 0; index < fleet->count; index++)
        if (fleet->pids [index] > 0)
            kill (fleet->pids [index], SIGTERM);
    int64_t deadline = zclock_mono () + S_STOP_WAIT;
    size_t left = fleet->count;
    while (left > 0) {
        left = 0;
        for (size_t index = 0; index < fleet->count; index++) {
            pid_t pid = fleet->pids [index];
            if (pid <= 0)
                continue;
            if (waitpid (pid, NULL, WNOHANG) == pid)
                fleet->pids [index] = 0;
            else
            if (zclock_mono () >= deadline) {
                kill (pid, SIGKILL);
                waitpid (pid, NULL, 0);
                fleet->pids [index] = 0;
            }
            else
                left++;
        }
        if (left)
            zclock_sleep (20);      //  polling children's exits, not settling
    }
    free (fleet->pids);
    fleet->pids = NULL;
    fleet->count = 0;
}

//  Read the fleet's memory
static void
s_fleet_memory (s_fleet_t *fleet, s_memory_t *memory)
{
    memset (memory, 0, sizeof *memory);
    for (size_t index = 0; index < fleet->count; index++)
        if (fleet->pids [index] > 0)
            s_memory_add (memory, fleet->pids [index]);
}


//  ---------------------------------------------------------------------
//  The broker

//  A client of the current broker for counting workers
static drover_client_t *
s_client_new (drover_benchmark_t *self)
{
    drover_client_t *client = drover_client_new (self->endpoint);
    assert (client);
    drover_client_set_timeout (client, 5000);
    return client;
}

//  Return how many workers the broker lists now, or -1 if it did not answer
static long long
s_registered (drover_client_t *client)
{
    drover_workers_t *workers = drover_client_workers (client);
    if (!workers)
        return -1;
    long long count = (long long) drover_workers_size (workers);
    drover_workers_destroy (&workers);
    return count;
}

//  True if the broker child is still running
static bool
s_broker_alive (drover_benchmark_t *self)
{
    if (self->broker <= 0)
        return false;
    if (waitpid (self->broker, NULL, WNOHANG) == self->broker) {
        self->broker = 0;       //  reaped: it died by itself
        fprintf (stderr, "drover bench: the broker exited\n");
        return false;
    }
    return true;
}

//  Wait until the broker lists count workers, until deadline (msec mono).
//  Returns 0 or -1 (said why).
static int
s_await_registered (drover_benchmark_t *self, drover_client_t *client, size_t count,
                    int64_t deadline, const char *phase)
{
    long long seen = 0;
    while (!zsys_interrupted && s_broker_alive (self)) {
        seen = s_registered (client);
        if (seen >= (long long) count)
            return 0;
        drover_benchmark_progress (self, phase, seen < 0? 0: seen, (long long) count, false);
        if (zclock_mono () >= deadline)
            break;
        zclock_sleep (S_REGISTER_POLL);     //  polling the broker's table, not settling
    }
    fprintf (stderr, "drover bench: %s: %lld of %zu agents registered\n", phase, seen, count);
    return -1;
}

//  Start a broker with its metrics on a free port (*port_p) and the fleet,
//  and wait until every agent is registered. Returns the msec from the
//  first agent's start to the last registration, or -1.
static int64_t
s_fleet_up (drover_benchmark_t *self, s_fleet_t *fleet, drover_client_t **client_p,
            const char **settings, char *metrics, size_t size, int *port_p, const char *phase)
{
    size_t count = (size_t) self->opts.agents;
    struct rlimit limit;
    if (getrlimit (RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < count + S_FDS_SPARE) {
        fprintf (stderr, "drover bench: %s: the open files limit (%llu) is too low for %zu "
                 "agents: raise it (ulimit -n)\n", phase, (unsigned long long) limit.rlim_cur,
                 count);
        return -1;
    }
    *port_p = drover_benchmark_free_port ();
    if (!*port_p)
        return -1;
    snprintf (metrics, size, "broker/metrics=127.0.0.1:%d", *port_p);
    settings [0] = metrics;
    settings [1] = NULL;
    if (drover_benchmark_broker_start (self, settings))
        return -1;
    int64_t started = zclock_mono ();
    if (s_fleet_start (self, fleet, count, phase))
        return -1;
    *client_p = s_client_new (self);
    int64_t deadline = started + S_REGISTER_BASE + S_REGISTER_PER * (int64_t) count;
    if (s_await_registered (self, *client_p, count, deadline, phase))
        return -1;
    int64_t elapsed = zclock_mono () - started;
    fprintf (stderr, "drover bench: %s: %zu %s agents registered in %" PRId64 " ms\n", phase,
             count, fleet->lean? "drover-worker": "drover worker", elapsed);
    return elapsed;
}


//  ---------------------------------------------------------------------
//  (s) agents

//  (s) the fleet registered, the broker watched for opts.agents_window
int
drover_benchmark_phase_agents (drover_benchmark_t *self)
{
    s_fleet_t fleet = { .count = 0 };
    drover_client_t *client = NULL;
    const char *settings [2];
    char metrics [64];
    int port;
    int64_t registered_ms = s_fleet_up (self, &fleet, &client, settings, metrics,
                                        sizeof metrics, &port, "agents");
    int rc = registered_ms < 0? -1: 0;
    int64_t cpu_start = rc? -1: drover_benchmark_cpu_nsec (self->broker);
    int64_t started = zclock_mono ();
    int64_t deadline = started + self->opts.agents_window;
    while (rc == 0 && zclock_mono () < deadline && !zsys_interrupted) {
        if (!s_broker_alive (self))
            rc = -1;
        int64_t left = deadline - zclock_mono ();
        zclock_sleep ((int) (left < 1000? (left > 0? left: 0): 1000));  //  the window itself
        drover_benchmark_progress (self, "agents msec", zclock_mono () - started,
                                   self->opts.agents_window, false);
    }
    int64_t cpu_end = rc? -1: drover_benchmark_cpu_nsec (self->broker);
    int64_t elapsed = zclock_mono () - started;
    if (rc == 0 && (cpu_start < 0 || cpu_end < 0)) {
        fprintf (stderr, "drover bench: agents: cannot read the broker's CPU time\n");
        rc = -1;
    }
    double lost = rc? -1: s_metric (port, "drover_workers_lost_total");
    long long listed = rc? -1: s_registered (client);
    if (rc == 0 && (lost < 0 || listed < 0)) {
        fprintf (stderr, "drover bench: agents: the broker's metrics or worker list did not "
                 "answer\n");
        rc = -1;
    }
    if (rc == 0) {
        s_memory_t memory;
        s_fleet_memory (&fleet, &memory);
        size_t agents = memory.counted? memory.counted: 1;
        drover_benchmark_figure (self, "agents", (double) fleet.count, "procs");
        drover_benchmark_figure (self, "agents_lean", fleet.lean? 1: 0, "bool");
        drover_benchmark_figure (self, "agents_registered_ms", (double) registered_ms, "ms");
        drover_benchmark_figure (self, "agents_listed_end", (double) listed, "workers");
        drover_benchmark_figure (self, "agents_exited", (double) s_fleet_exited (&fleet),
                                 "procs");
        drover_benchmark_figure (self, "agents_lost", lost, "workers");
        drover_benchmark_figure (self, "agents_window_ms", (double) elapsed, "ms");
        drover_benchmark_figure (self, "agents_broker_cpu_pct",
                                 (cpu_end - cpu_start) / 1e6 / (double) elapsed * 100, "%");
        drover_benchmark_figure (self, "agents_broker_rss",
                                 drover_benchmark_broker_rss (self) / S_MIB, "MiB");
        drover_benchmark_figure (self, "agent_rss_mean", memory.rss / 1024.0 / agents, "MiB");
        drover_benchmark_figure (self, "agent_pss_mean", memory.pss / 1024.0 / agents, "MiB");
        drover_benchmark_figure (self, "agents_rss_total",
                                 (memory.rss + memory.child_rss) / 1024.0, "MiB");
        drover_benchmark_figure (self, "agents_pss_total",
                                 (memory.pss + memory.child_pss) / 1024.0, "MiB");
        drover_benchmark_figure (self, "agents_children", (double) memory.children, "procs");
    }
    drover_client_destroy (&client);
    s_fleet_stop (&fleet);
    drover_benchmark_broker_stop (self);
    return rc;
}


//  ---------------------------------------------------------------------
//  (t) reconnect

//  CPU slices of the broker: each S_SLICE msec, % of one core
typedef struct {
    int64_t cpu;                //  nsec at the last sample
    int64_t at;                 //  msec mono of the last sample
    double max;                 //  the largest slice so far, %
    double sum_nsec;            //  nsec over the slices so far
    int64_t sum_msec;           //  msec over the slices so far
} s_slices_t;

//  Begin slicing now
static int
s_slices_start (s_slices_t *slices, pid_t broker)
{
    memset (slices, 0, sizeof *slices);
    slices->cpu = drover_benchmark_cpu_nsec (broker);
    slices->at = zclock_mono ();
    return slices->cpu < 0? -1: 0;
}

//  Wait until the current slice ends, then take it. Returns 0, or -1 if
//  the broker cannot be read.
static int
s_slices_take (s_slices_t *slices, pid_t broker)
{
    int64_t left = slices->at + S_SLICE - zclock_mono ();
    if (left > 0)
        zclock_sleep ((int) left);          //  the slice itself
    int64_t cpu = drover_benchmark_cpu_nsec (broker);
    int64_t now = zclock_mono ();
    if (cpu < 0)
        return -1;
    int64_t msec = now - slices->at;
    double pct = msec > 0? (cpu - slices->cpu) / 1e4 / (double) msec: 0;
    if (pct > slices->max)
        slices->max = pct;
    slices->sum_nsec += (double) (cpu - slices->cpu);
    slices->sum_msec += msec;
    slices->cpu = cpu;
    slices->at = now;
    return 0;
}

//  The mean of the slices so far, % of one core
static double
s_slices_mean (s_slices_t *slices)
{
    return slices->sum_msec > 0? slices->sum_nsec / 1e4 / (double) slices->sum_msec: 0;
}

//  After the restart: take slices until the broker lists count workers
//  again (*done_at_p: msec mono then). Returns 0, or -1.
static int
s_reconnect_storm (drover_benchmark_t *self, drover_client_t *client, s_slices_t *slices,
                   size_t count, int64_t deadline, int64_t *done_at_p)
{
    long long seen = 0;
    while (!zsys_interrupted && s_broker_alive (self)) {
        seen = s_registered (client);
        if (seen >= (long long) count) {
            *done_at_p = zclock_mono ();
            return s_slices_take (slices, self->broker);
        }
        if (zclock_mono () >= deadline)
            break;
        if (s_slices_take (slices, self->broker))
            return -1;
        drover_benchmark_progress (self, "reconnect", seen < 0? 0: seen, (long long) count,
                                   false);
    }
    fprintf (stderr, "drover bench: reconnect: %lld of %zu agents registered again\n", seen,
             count);
    return -1;
}

//  (t) the fleet registered, the broker killed and restarted on its state:
//  until every agent is registered again, the broker's CPU by slices, and
//  the workers it declares LOST
int
drover_benchmark_phase_reconnect (drover_benchmark_t *self)
{
    s_fleet_t fleet = { .count = 0 };
    drover_client_t *client = NULL;
    const char *settings [2];
    char metrics [64];
    int port;
    size_t count = (size_t) self->opts.agents;
    int rc = s_fleet_up (self, &fleet, &client, settings, metrics, sizeof metrics, &port,
                         "reconnect") < 0? -1: 0;
    drover_client_destroy (&client);
    int64_t killed = zclock_mono ();
    if (rc == 0)
        drover_benchmark_broker_kill (self);
    int64_t answer_usec = rc? -1: drover_benchmark_broker_restart (self, "reconnect");
    if (answer_usec < 0)
        rc = -1;
    int64_t answered = zclock_mono ();
    s_slices_t storm = { 0 }, after = { 0 };
    int64_t done_at = 0;
    if (rc == 0) {
        client = s_client_new (self);
        rc = s_slices_start (&storm, self->broker);
    }
    if (rc == 0)
        rc = s_reconnect_storm (self, client, &storm, count,
                                killed + S_REGISTER_BASE + S_REGISTER_PER * (int64_t) count,
                                &done_at);
    //  The aftermath: lost-after and more pass with every agent registered
    if (rc == 0)
        rc = s_slices_start (&after, self->broker);
    int64_t deadline = zclock_mono () + self->opts.reconnect_window;
    while (rc == 0 && zclock_mono () < deadline && !zsys_interrupted) {
        if (!s_broker_alive (self) || s_slices_take (&after, self->broker))
            rc = -1;
        drover_benchmark_progress (self, "reconnect msec", zclock_mono () - done_at,
                                   self->opts.reconnect_window, false);
    }
    double lost = rc? -1: s_metric (port, "drover_workers_lost_total");
    long long listed = rc? -1: s_registered (client);
    if (rc == 0 && (lost < 0 || listed < 0)) {
        fprintf (stderr, "drover bench: reconnect: the broker's metrics or worker list did "
                 "not answer\n");
        rc = -1;
    }
    if (rc == 0) {
        drover_benchmark_figure (self, "reconnect_agents", (double) count, "procs");
        drover_benchmark_figure (self, "reconnect_answer_ms", answer_usec / 1000.0, "ms");
        drover_benchmark_figure (self, "reconnect_ms", (double) (done_at - killed), "ms");
        drover_benchmark_figure (self, "reconnect_after_answer_ms", (double) (done_at - answered),
                                 "ms");
        drover_benchmark_figure (self, "reconnect_cpu_max_pct",
                                 storm.max > after.max? storm.max: after.max, "%");
        drover_benchmark_figure (self, "reconnect_cpu_mean_pct", s_slices_mean (&storm), "%");
        drover_benchmark_figure (self, "reconnect_window_cpu_pct", s_slices_mean (&after), "%");
        drover_benchmark_figure (self, "reconnect_lost", lost, "workers");
        drover_benchmark_figure (self, "reconnect_listed_end", (double) listed, "workers");
        drover_benchmark_figure (self, "reconnect_exited", (double) s_fleet_exited (&fleet),
                                 "procs");
    }
    drover_client_destroy (&client);
    s_fleet_stop (&fleet);
    drover_benchmark_broker_stop (self);
    return rc;
}
