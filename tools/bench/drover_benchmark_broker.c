/*  =========================================================================
    drover_benchmark_broker - `drover bench`: the broker child of a phase

    Each phase starts a fresh broker as a child process (this executable,
    `broker`, on two free 127.0.0.1 ports and a state directory of its
    own), waits until it answers, and stops it with SIGTERM, reaping it,
    whatever happened; (i) restart kills it and starts it again on the same
    state. Also here: any other child of this executable (the agents of
    (f) shell, the brokers of (m) failover), and reading a child's memory
    from /proc.
    =========================================================================
*/

#define _GNU_SOURCE                 //  nftw
#include "drover_cli.h"
#include "drover_benchmark.h"
#include "drover_loopport.h"
#include <sys/resource.h>
#include <sys/prctl.h>
#include <ftw.h>
#include <dirent.h>
#include <sys/wait.h>

#define S_SETTINGS_MAX  8           //  --set settings a broker child gets at most

//  A free TCP port on 127.0.0.1, outside the ephemeral range so that no
//  outgoing connection takes it while its broker restarts
//  (drover_loopport); 0 on failure. The port is closed again before the
//  broker binds it: a small race with other listeners we accept.
int
drover_benchmark_free_port (void)
{
    return drover_loopport_free ();
}

//  Start program as a child with argv, its standard streams on /dev/null
//  (stderr too unless -v); it dies with us
pid_t
drover_benchmark_spawn_program (drover_benchmark_t *self, const char *program, char **argv)
{
    fflush (stdout);
    fflush (stderr);
    pid_t pid = fork ();
    if (pid == -1) {
        fprintf (stderr, "drover bench: fork: %s\n", strerror (errno));
        return -1;
    }
    if (pid == 0) {
        prctl (PR_SET_PDEATHSIG, SIGTERM);      //  never outlive the bench
        int null = open ("/dev/null", O_RDWR);
        if (null != -1) {
            dup2 (null, STDIN_FILENO);
            dup2 (null, STDOUT_FILENO);
            if (!self->opts.verbose)
                dup2 (null, STDERR_FILENO);
        }
        execv (program, argv);
        _exit (127);
    }
    return pid;
}

//  Start this executable as a child with argv; it dies with us
pid_t
drover_benchmark_spawn (drover_benchmark_t *self, char **argv)
{
    return drover_benchmark_spawn_program (self, "/proc/self/exe", argv);
}

//  Stop a child with SIGTERM (SIGKILL after 5 s) and reap it
void
drover_benchmark_reap (pid_t pid)
{
    if (pid <= 0)
        return;
    kill (pid, SIGTERM);
    int64_t deadline = zclock_mono () + 5000;
    while (waitpid (pid, NULL, WNOHANG) == 0) {
        if (zclock_mono () >= deadline) {
            kill (pid, SIGKILL);
            waitpid (pid, NULL, 0);
            break;
        }
        zclock_sleep (10);          //  polling a child's exit, not settling
    }
}

//  Start the broker child on self's ports and state directory, with the
//  phase's settings (self->settings) and the operator's after them.
//  Returns its pid, or -1.
static pid_t
s_broker_exec (drover_benchmark_t *self)
{
    char *argv [10 + 2 * (S_SETTINGS_MAX + DROVER_BENCHMARK_SETS_MAX)] = {
        "drover", "broker", "--endpoint", self->endpoint, "--events", self->events,
        "--state-dir", self->state_dir };
    size_t argc = 8;
    for (size_t index = 0; self->settings && self->settings [index]; index++) {
        assert (index < S_SETTINGS_MAX);
        argv [argc++] = "--set";
        argv [argc++] = (char *) self->settings [index];
    }
    //  The operator's come last: they win over the phase's
    for (size_t index = 0; self->opts.sets [index]; index++) {
        argv [argc++] = "--set";
        argv [argc++] = (char *) self->opts.sets [index];
    }
    argv [argc] = NULL;
    return drover_benchmark_spawn (self, argv);
}

//  Wait until the broker child answers a worker list, until deadline (msec
//  mono); a progress line each second for phase, if not NULL. Returns 0,
//  or -1 (it exited, or did not answer in time).
static int
s_broker_await (drover_benchmark_t *self, int64_t deadline, const char *phase)
{
    //  ZeroMQ retries the connect; a broker still loading its state reads
    //  no peer, so a request waits in its queue until it serves
    drover_client_t *client = drover_client_new (self->endpoint);
    assert (client);
    if (self->server_key)
        drover_client_set_keys (client, self->client_key, self->server_key);
    drover_client_set_timeout (client, 500);
    int64_t started = zclock_mono ();
    int rc = -1;
    while (zclock_mono () < deadline && !zsys_interrupted) {
        drover_workers_t *workers = drover_client_workers (client);
        if (workers) {
            drover_workers_destroy (&workers);
            rc = 0;
            break;
        }
        if (waitpid (self->broker, NULL, WNOHANG) == self->broker) {
            self->broker = 0;       //  reaped: it exited by itself
            break;
        }
        if (phase)
            drover_benchmark_progress (self, phase, (zclock_mono () - started) / 1000,
                                       (deadline - started) / 1000, false);
    }
    drover_client_destroy (&client);
    if (rc)
        fprintf (stderr, "drover bench: the broker on %s did not start\n", self->endpoint);
    return rc;
}

//  Start a broker child with --set settings and wait until it answers.
//  Returns 0, or -1.
int
drover_benchmark_broker_start (drover_benchmark_t *self, const char **settings)
{
    assert (self->broker == 0);
    int port = drover_benchmark_free_port ();
    int events_port = drover_benchmark_free_port ();
    if (!port || !events_port || port == events_port) {
        fprintf (stderr, "drover bench: no free port on 127.0.0.1\n");
        return -1;
    }
    snprintf (self->endpoint, sizeof self->endpoint, "tcp://127.0.0.1:%d", port);
    snprintf (self->events, sizeof self->events, "tcp://127.0.0.1:%d", events_port);
    //  A fresh state each time: a benchmark never resumes another's tasks
    snprintf (self->state_dir, sizeof self->state_dir, "/tmp/drover-bench-XXXXXX");
    if (!mkdtemp (self->state_dir)) {
        fprintf (stderr, "drover bench: cannot make a state directory: %s\n", strerror (errno));
        self->state_dir [0] = 0;
        return -1;
    }
    self->settings = settings;
    pid_t pid = s_broker_exec (self);
    if (pid == -1)
        return -1;
    self->broker = pid;
    return s_broker_await (self, zclock_mono () + 10000, NULL);
}

//  Kill the broker child with SIGKILL and reap it; its state stays
void
drover_benchmark_broker_kill (drover_benchmark_t *self)
{
    if (self->broker <= 0)
        return;
    kill (self->broker, SIGKILL);
    waitpid (self->broker, NULL, 0);
    self->broker = 0;
}

//  Start the broker again on the same ports, state and settings, and wait
//  until it answers. Returns the usec from its start to its first answer,
//  or -1.
int64_t
drover_benchmark_broker_restart (drover_benchmark_t *self, const char *phase)
{
    assert (self->broker == 0 && self->state_dir [0]);
    int64_t started = zclock_usecs ();
    pid_t pid = s_broker_exec (self);
    if (pid == -1)
        return -1;
    self->broker = pid;
    if (s_broker_await (self, zclock_mono () + DROVER_BENCHMARK_RESTART_MAX, phase))
        return -1;
    return zclock_usecs () - started;
}

//  Remove one entry of a state directory, the directory itself last
//  (nftw's callback, depth first); errors are ignored
static int
s_remove_entry (const char *path, const struct stat *info, int flag, struct FTW *walk)
{
    (void) info, (void) flag, (void) walk;
    remove (path);
    return 0;
}

//  Remove a broker's state directory with everything in it (the pool's
//  sub-directory too)
static void
s_remove_state_dir (const char *path)
{
    nftw (path, s_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

//  Stop the broker with SIGTERM (SIGKILL after 5 s), reap it and remove
//  its state
void
drover_benchmark_broker_stop (drover_benchmark_t *self)
{
    drover_benchmark_reap (self->broker);
    self->broker = 0;
    if (self->state_dir [0])
        s_remove_state_dir (self->state_dir);
    self->state_dir [0] = 0;
    self->settings = NULL;
}

//  Return a field of the broker's /proc status in bytes (format: its
//  sscanf pattern, e.g. "VmRSS: %" SCNu64), or 0 if unreadable
static uint64_t
s_broker_status (drover_benchmark_t *self, const char *format)
{
    char path [64];
    snprintf (path, sizeof path, "/proc/%d/status", (int) self->broker);
    FILE *file = fopen (path, "r");
    if (!file)
        return 0;
    char line [256];
    uint64_t kib = 0;
    while (fgets (line, sizeof line, file))
        if (sscanf (line, format, &kib) == 1)
            break;
    fclose (file);
    return kib * 1024;
}

//  Return the broker's VmRSS in bytes, or 0 if unreadable
uint64_t
drover_benchmark_broker_rss (drover_benchmark_t *self)
{
    return s_broker_status (self, "VmRSS: %" SCNu64);
}

//  Return the broker's peak VmRSS (VmHWM) in bytes, or 0 if unreadable
uint64_t
drover_benchmark_broker_peak (drover_benchmark_t *self)
{
    return s_broker_status (self, "VmHWM: %" SCNu64);
}

//  What one thread's /proc file adds to a sum over a process's threads:
//  read from stream, added to *total; true if the file said it
typedef bool (s_thread_fn) (FILE *stream, int64_t *total);

//  Sum fn over the threads of pid, each given its /proc/PID/task/TID/name
//  file. Returns the sum, or -1 if no thread's file said it.
static int64_t
s_sum_threads (pid_t pid, const char *name, s_thread_fn *fn)
{
    char path [64];
    snprintf (path, sizeof path, "/proc/%d/task", (int) pid);
    DIR *tasks = opendir (path);
    int64_t total = 0;
    bool found = false;
    struct dirent *entry;
    while (tasks && (entry = readdir (tasks))) {
        if (entry->d_name [0] == '.')
            continue;
        char file [400];
        snprintf (file, sizeof file, "%s/%s/%s", path, entry->d_name, name);
        FILE *stream = fopen (file, "r");
        if (stream && fn (stream, &total))
            found = true;
        if (stream)
            fclose (stream);
    }
    if (tasks)
        closedir (tasks);
    return found? total: -1;
}

//  A thread's run time, nsec: the first number of its schedstat
static bool
s_add_runtime (FILE *stream, int64_t *total)
{
    unsigned long long runtime;
    if (fscanf (stream, "%llu", &runtime) != 1)
        return false;
    *total += (int64_t) runtime;
    return true;
}

//  A thread's context switches, voluntary and not, from its status
static bool
s_add_switches (FILE *stream, int64_t *total)
{
    char line [256];
    bool found = false;
    while (fgets (line, sizeof line, stream)) {
        long long count;
        if (sscanf (line, "voluntary_ctxt_switches: %lld", &count) == 1
        ||  sscanf (line, "nonvoluntary_ctxt_switches: %lld", &count) == 1) {
            *total += count;
            found = true;
        }
    }
    return found;
}

//  Return the CPU time a process has used, nsec: the sum over its threads
//  of /proc/PID/task/TID/schedstat (nanosecond resolution), or from
//  /proc/PID/stat's utime + stime (clock ticks) if schedstat is missing.
//  -1 if the process cannot be read.
int64_t
drover_benchmark_cpu_nsec (pid_t pid)
{
    int64_t total = s_sum_threads (pid, "schedstat", s_add_runtime);
    return total != -1? total: drover_benchmark_stat_cpu_nsec (pid);
}

//  Return the context switches a process's threads have made so far
//  (voluntary and not, summed over /proc/PID/task/TID/status: the
//  process's own status counts its first thread only), or -1
int64_t
drover_benchmark_switches (pid_t pid)
{
    return s_sum_threads (pid, "status", s_add_switches);
}

//  Return the CPU usec this process and the children it has reaped have
//  used so far
int64_t
drover_benchmark_own_cpu_usecs (void)
{
    int64_t total = 0;
    int whos [] = { RUSAGE_SELF, RUSAGE_CHILDREN };
    for (size_t index = 0; index < 2; index++) {
        struct rusage usage;
        getrusage (whos [index], &usage);
        total += (int64_t) usage.ru_utime.tv_sec * 1000000 + usage.ru_utime.tv_usec
               + (int64_t) usage.ru_stime.tv_sec * 1000000 + usage.ru_stime.tv_usec;
    }
    return total;
}

//  Return the CPU time a process has used, nsec, from /proc/PID/stat's
//  utime + stime (clock ticks: 10 msec here), which count its threads that
//  have exited too; -1 if the process cannot be read
int64_t
drover_benchmark_stat_cpu_nsec (pid_t pid)
{
    char path [64];
    snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
    FILE *stream = fopen (path, "r");
    if (!stream)
        return -1;
    char line [1024];
    char *read = fgets (line, sizeof line, stream);
    fclose (stream);
    char *after = read? strrchr (line, ')'): NULL;     //  the name may hold spaces
    unsigned long long utime, stime;
    if (!after || sscanf (after + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
                          &utime, &stime) != 2)
        return -1;
    return (int64_t) ((utime + stime) * (1000000000.0 / sysconf (_SC_CLK_TCK)));
}
