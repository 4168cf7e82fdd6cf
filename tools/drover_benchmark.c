/*  =========================================================================
    drover_benchmark - `drover bench`: how fast drover moves work and
    what it costs to run, on this machine, over loopback

    Each phase starts a fresh broker as a child process (this executable,
    `broker`, on two free 127.0.0.1 ports), measures one thing and stops
    the broker with SIGTERM, reaping it, whatever happened:
    (a) noop      in-process no-op workers (drover_worker_actor threads), a
                  client keeping a window of tasks outstanding: tasks/s end
                  to end, every result collected;
    (b) rtt       one task outstanding, submit -> TASK DONE: percentiles, usec;
    (c) submit    acknowledged submits, no workers: tasks/s;
    (d) memory    broker VmRSS idle, then with N queued tasks carrying a
                  100-byte command and no workers: bytes per queued task.
    One line per figure, `name value unit`, or one JSON object (--json);
    progress goes to stderr. First cut for issue 3: phases (e)-(g) and the
    side-by-side with gearmand are not here yet.
    =========================================================================
*/

#include "drover_cli.h"
#include "drover_worker.h"
#include "drover_benchmark.h"
#include <sys/prctl.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#define S_FIGURES_MAX   16          //  figures one run prints at most
#define S_COMMAND_SIZE  100         //  bytes of the queued tasks' command line

//  Sizes and switches, all from flags
typedef struct {
    long long tasks;            //  (a) tasks run end to end
    long long workers;          //  (a), (b) in-process workers
    long long procs;            //  (a), (b) offers each worker may hold at once
    long long window;           //  (a) tasks outstanding at most
    long long rtt;              //  (b) round trips timed
    long long submits;          //  (c) acknowledged submits
    long long queued;           //  (d) tasks queued for the memory figure
    bool json;                  //  one JSON object instead of lines
    bool verbose;               //  let the broker log to stderr
} s_opts_t;

//  One measured figure
typedef struct {
    const char *name;           //  e.g. "noop_throughput", static
    double value;               //  in unit
    const char *unit;           //  e.g. "tasks/s", static
} s_figure_t;

//  The run: options, the broker of the current phase, what was measured
typedef struct {
    s_opts_t opts;              //  sizes and switches
    pid_t broker;               //  broker child of the current phase, or 0
    char endpoint [64];         //  its ROUTER, tcp://127.0.0.1:port
    char events [64];           //  its PUB, tcp://127.0.0.1:port
    s_figure_t figures [S_FIGURES_MAX];     //  measured so far
    size_t nfigures;            //  entries used in figures
    int64_t progress_at;        //  msec mono of the last progress line
} s_bench_t;


//  ---------------------------------------------------------------------
//  The broker child

//  Ask the kernel for a free TCP port on 127.0.0.1; 0 on failure. The port
//  is closed again before the broker binds it: a small race we accept.
static int
s_free_port (void)
{
    int fd = socket (AF_INET, SOCK_STREAM, 0);
    if (fd == -1)
        return 0;
    struct sockaddr_in address = { .sin_family = AF_INET };
    address.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    int port = 0;
    if (bind (fd, (struct sockaddr *) &address, sizeof address) == 0
    &&  getsockname (fd, (struct sockaddr *) &address, &length) == 0)
        port = ntohs (address.sin_port);
    close (fd);
    return port;
}

//  Start a broker child and wait until it answers. Returns 0, or -1.
static int
s_broker_start (s_bench_t *self)
{
    assert (self->broker == 0);
    int port = s_free_port ();
    int events_port = s_free_port ();
    if (!port || !events_port || port == events_port) {
        fprintf (stderr, "drover bench: no free port on 127.0.0.1\n");
        return -1;
    }
    snprintf (self->endpoint, sizeof self->endpoint, "tcp://127.0.0.1:%d", port);
    snprintf (self->events, sizeof self->events, "tcp://127.0.0.1:%d", events_port);
    char *argv [] = { "drover", "broker", "--endpoint", self->endpoint,
                      "--events", self->events, NULL };
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
        execv ("/proc/self/exe", argv);
        _exit (127);
    }
    self->broker = pid;

    //  Ready when it answers a worker list; ZeroMQ retries the connect
    drover_client_t *client = drover_client_new (self->endpoint);
    assert (client);
    drover_client_set_timeout (client, 500);
    int64_t deadline = zclock_mono () + 10000;
    int rc = -1;
    while (zclock_mono () < deadline && !zsys_interrupted) {
        drover_msg_t *table = drover_client_workers (client);
        if (table) {
            drover_msg_destroy (&table);
            rc = 0;
            break;
        }
        if (waitpid (pid, NULL, WNOHANG) == pid) {
            self->broker = 0;       //  reaped: it exited by itself
            break;
        }
    }
    drover_client_destroy (&client);
    if (rc)
        fprintf (stderr, "drover bench: the broker on %s did not start\n", self->endpoint);
    return rc;
}

//  Stop the broker with SIGTERM (SIGKILL after 5 s) and reap it
static void
s_broker_stop (s_bench_t *self)
{
    if (!self->broker)
        return;
    kill (self->broker, SIGTERM);
    int64_t deadline = zclock_mono () + 5000;
    while (waitpid (self->broker, NULL, WNOHANG) == 0) {
        if (zclock_mono () >= deadline) {
            kill (self->broker, SIGKILL);
            waitpid (self->broker, NULL, 0);
            break;
        }
        zclock_sleep (10);          //  polling a child's exit, not settling
    }
    self->broker = 0;
}

//  Return the broker's VmRSS in bytes, or 0 if unreadable
static uint64_t
s_broker_rss (s_bench_t *self)
{
    char path [64];
    snprintf (path, sizeof path, "/proc/%d/status", (int) self->broker);
    FILE *file = fopen (path, "r");
    if (!file)
        return 0;
    char line [256];
    uint64_t kib = 0;
    while (fgets (line, sizeof line, file))
        if (sscanf (line, "VmRSS: %" SCNu64, &kib) == 1)
            break;
    fclose (file);
    return kib * 1024;
}


//  ---------------------------------------------------------------------
//  Figures and progress

//  Record a figure; printed at once unless the output is JSON
static void
s_figure (s_bench_t *self, const char *name, double value, const char *unit)
{
    assert (self->nfigures < S_FIGURES_MAX);
    self->figures [self->nfigures++] = (s_figure_t) { name, value, unit };
    if (!self->opts.json) {
        printf ("%-24s %14.1f %s\n", name, value, unit);
        fflush (stdout);
    }
}

//  Print every figure as one JSON object: name -> value, and units
static void
s_print_json (s_bench_t *self)
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
static void
s_progress (s_bench_t *self, const char *phase, long long done, long long total, bool force)
{
    int64_t now = zclock_mono ();
    if (!force && now - self->progress_at < 1000)
        return;
    self->progress_at = now;
    fprintf (stderr, "drover bench: %s %lld/%lld\n", phase, done, total);
}


//  ---------------------------------------------------------------------
//  Shared by the phases

//  What the async-submit and done handlers fill in
typedef struct {
    uint64_t *ids;              //  task id by tag (slot in the current batch)
    uint64_t refused;           //  submits answered with an ERROR
    uint64_t succeeded;         //  TASK DONEs with state SUCCEEDED
    uint64_t finished;          //  TASK DONEs of any state
} s_tally_t;

//  Ack handler: keep the task id under its tag, count refusals
static void
s_on_ack (uint32_t seq, uintptr_t tag, uint64_t task, int code, const char *reason, void *arg)
{
    s_tally_t *tally = (s_tally_t *) arg;
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
s_on_done (const drover_msg_t *done, void *arg)
{
    s_tally_t *tally = (s_tally_t *) arg;
    tally->finished++;
    if (done->state == DROVER_TASK_SUCCEEDED)
        tally->succeeded++;
}

//  Connect a bench client to the current broker
static drover_client_t *
s_client (s_bench_t *self, s_tally_t *tally)
{
    drover_client_t *client = drover_client_new (self->endpoint);
    assert (client);
    drover_client_set_timeout (client, 10000);
    drover_client_set_ack_handler (client, s_on_ack, tally);
    return client;
}

//  The no-op handler: the result (exit 0) is already filled in
static int
s_noop (void *arg, const drover_exec_t *exec, drover_msg_t *result)
{
    return 0;
}

//  The in-process workers of a phase
typedef struct {
    drover_worker_t **workers;  //  owned, count entries
    zactor_t **actors;          //  owned, each runs its worker's loop
    size_t count;               //  workers started
} s_crew_t;

//  Stop and free the workers: actors before the workers they borrow
static void
s_crew_stop (s_crew_t *crew)
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
//  Returns 0, or -1 (what started is in crew, for s_crew_stop).
static int
s_crew_start (s_bench_t *self, s_crew_t *crew, drover_client_t *client)
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
        drover_worker_set_handler (worker, s_noop, NULL);
        crew->workers [index] = worker;
        crew->actors [index] = zactor_new (drover_worker_actor, worker);
        crew->count++;
        if (!crew->actors [index])
            return -1;
    }
    int64_t deadline = zclock_mono () + 10000;
    while (zclock_mono () < deadline && !zsys_interrupted) {
        drover_msg_t *table = drover_client_workers (client);
        size_t listed = table? table->nrows: 0;
        drover_msg_destroy (&table);
        if (listed >= count)
            return 0;
        zclock_sleep (20);          //  polling the broker's table, not settling
    }
    fprintf (stderr, "drover bench: the workers did not register\n");
    return -1;
}

//  Build the TASK SUBMIT every phase sends: argv "true", or a command line
//  of exactly S_COMMAND_SIZE bytes when padded
static drover_msg_t *
s_submit_msg (bool padded, uint32_t flags)
{
    char pad [S_COMMAND_SIZE];
    memset (pad, 'x', sizeof pad);
    pad [S_COMMAND_SIZE - 5 - 1] = 0;       //  "true" + space + pad = 100 bytes
    const char *argv [] = { "true", pad };
    drover_msg_t *submit = drover_client_submit_msg (padded? 2: 1, argv);
    assert (submit);
    submit->flags = flags;
    return submit;
}


//  ---------------------------------------------------------------------
//  (a) no-op throughput

//  Submit up to count tasks asynchronously, tag = slot in ids; 0 or -1
static int
s_submit_batch (drover_client_t *client, drover_msg_t *submit, size_t count)
{
    for (size_t slot = 0; slot < count; slot++)
        if (drover_client_submit_async (client, submit, slot) == 0)
            return -1;
    return drover_client_flush (client);
}

//  Run opts.tasks no-op tasks through opts.workers workers, a window of
//  tasks outstanding, in two half-window batches: the next batch goes out
//  while the previous one's results come back. Returns 0, or -1.
static int
s_phase_noop (s_bench_t *self)
{
    s_tally_t tally = { 0 };
    drover_client_t *client = s_client (self, &tally);
    s_crew_t crew = { 0 };
    size_t batch = (size_t) (self->opts.window / 2 > 0? self->opts.window / 2: 1);
    uint64_t *ids [2] = { zmalloc (batch * sizeof (uint64_t)), zmalloc (batch * sizeof (uint64_t)) };
    drover_msg_t *submit = s_submit_msg (false, DROVER_SUBMIT_NOTIFY);
    int rc = s_crew_start (self, &crew, client);
    if (rc == 0)
        rc = drover_client_set_window (client, (uint32_t) batch);

    long long total = self->opts.tasks;
    long long sent = 0;
    size_t previous = 0;            //  tasks in the batch waited on next
    int current = 0;                //  which ids array takes the next batch
    int64_t started = zclock_usecs ();
    while (rc == 0 && (sent < total || previous)) {
        size_t count = (size_t) (total - sent < (long long) batch? total - sent: (long long) batch);
        tally.ids = ids [current];
        if (count && s_submit_batch (client, submit, count)) {
            rc = drover_cli_error (client, "bench: noop submit");
            break;
        }
        sent += count;
        if (previous
        &&  drover_client_wait (client, ids [1 - current], previous, s_on_done, NULL, &tally)) {
            rc = drover_cli_error (client, "bench: noop wait");
            break;
        }
        previous = count;
        current = 1 - current;
        s_progress (self, "noop", (long long) tally.finished, total, false);
    }
    int64_t elapsed = zclock_usecs () - started;
    if (rc == 0 && (tally.refused || tally.succeeded != (uint64_t) total)) {
        fprintf (stderr, "drover bench: noop: %" PRIu64 " of %lld tasks succeeded, %" PRIu64
                 " refused\n", tally.succeeded, total, tally.refused);
        rc = -1;
    }
    if (rc == 0)
        s_figure (self, "noop_throughput", total * 1e6 / (elapsed > 0? elapsed: 1), "tasks/s");
    drover_msg_destroy (&submit);
    drover_client_destroy (&client);
    s_crew_stop (&crew);
    free (ids [0]);
    free (ids [1]);
    return rc;
}


//  ---------------------------------------------------------------------
//  (b) round trip of one task

//  Order usec samples
static int
s_compare_samples (const void *left, const void *right)
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
s_phase_rtt (s_bench_t *self)
{
    s_tally_t tally = { 0 };
    drover_client_t *client = s_client (self, &tally);
    s_crew_t crew = { 0 };
    size_t count = (size_t) self->opts.rtt;
    int64_t *samples = (int64_t *) zmalloc (count * sizeof (int64_t));
    drover_msg_t *submit = s_submit_msg (false, DROVER_SUBMIT_NOTIFY);
    int rc = s_crew_start (self, &crew, client);
    for (size_t index = 0; rc == 0 && index < count; index++) {
        int64_t started = zclock_usecs ();
        uint64_t task = 0;
        if (drover_client_submit (client, submit, &task)
        ||  drover_client_wait (client, &task, 1, s_on_done, NULL, &tally)) {
            rc = drover_cli_error (client, "bench: rtt");
            break;
        }
        samples [index] = zclock_usecs () - started;
        s_progress (self, "rtt", (long long) index + 1, (long long) count, false);
    }
    if (rc == 0 && tally.succeeded != count) {
        fprintf (stderr, "drover bench: rtt: %" PRIu64 " of %zu tasks succeeded\n",
                 tally.succeeded, count);
        rc = -1;
    }
    if (rc == 0) {
        qsort (samples, count, sizeof (int64_t), s_compare_samples);
        s_figure (self, "rtt_p50", s_quantile (samples, count, 0.50), "us");
        s_figure (self, "rtt_p90", s_quantile (samples, count, 0.90), "us");
        s_figure (self, "rtt_p99", s_quantile (samples, count, 0.99), "us");
        s_figure (self, "rtt_p999", s_quantile (samples, count, 0.999), "us");
    }
    drover_msg_destroy (&submit);
    drover_client_destroy (&client);
    s_crew_stop (&crew);
    free (samples);
    return rc;
}


//  ---------------------------------------------------------------------
//  (c) acknowledged submits and (d) memory of queued tasks

//  Submit count tasks with a full window, no workers: every one must be
//  accepted. Returns the usec it took, or -1.
static int64_t
s_submit_many (s_bench_t *self, drover_client_t *client, s_tally_t *tally,
               drover_msg_t *submit, long long count, const char *phase)
{
    int64_t started = zclock_usecs ();
    for (long long index = 0; index < count; index++) {
        if (drover_client_submit_async (client, submit, 0) == 0) {
            drover_cli_error (client, phase);
            return -1;
        }
        if ((index & 1023) == 0)
            s_progress (self, phase, index, count, false);
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
s_phase_submit (s_bench_t *self)
{
    s_tally_t tally = { 0 };
    drover_client_t *client = s_client (self, &tally);
    drover_msg_t *submit = s_submit_msg (false, 0);
    int rc = drover_client_set_window (client, (uint32_t) self->opts.window);
    int64_t elapsed = rc? -1: s_submit_many (self, client, &tally, submit,
                                             self->opts.submits, "submit");
    if (elapsed >= 0)
        s_figure (self, "submit_rate", self->opts.submits * 1e6 / (elapsed > 0? elapsed: 1),
                  "tasks/s");
    drover_msg_destroy (&submit);
    drover_client_destroy (&client);
    return elapsed >= 0? 0: -1;
}

//  Measure the broker's RSS idle, then with opts.queued tasks queued
static int
s_phase_memory (s_bench_t *self)
{
    s_tally_t tally = { 0 };
    drover_client_t *client = s_client (self, &tally);
    drover_msg_t *submit = s_submit_msg (true, 0);
    uint64_t idle = s_broker_rss (self);
    int rc = drover_client_set_window (client, (uint32_t) self->opts.window);
    int64_t elapsed = rc? -1: s_submit_many (self, client, &tally, submit,
                                             self->opts.queued, "queue");
    uint64_t loaded = elapsed >= 0? s_broker_rss (self): 0;
    if (elapsed >= 0 && idle && loaded) {
        s_figure (self, "broker_rss_idle", idle / 1048576.0, "MiB");
        s_figure (self, "broker_rss_queued", loaded / 1048576.0, "MiB");
        s_figure (self, "bytes_per_queued_task",
                  ((double) loaded - (double) idle) / self->opts.queued, "bytes");
    }
    else
    if (elapsed >= 0) {
        fprintf (stderr, "drover bench: cannot read the broker's VmRSS\n");
        elapsed = -1;
    }
    drover_msg_destroy (&submit);
    drover_client_destroy (&client);
    return elapsed >= 0? 0: -1;
}


//  ---------------------------------------------------------------------
//  Flags and the main

//  Print the bench's usage
static void
s_usage (FILE *stream)
{
    fprintf (stream,
        "usage: drover bench [--quick] [--json] [--tasks N] [--workers N] [--procs N]\n"
        "                    [--window N] [--rtt N] [--submits N] [--queued N] [-v]\n"
        "\n"
        "Starts a broker on 127.0.0.1 (a fresh one per phase) and prints one line per\n"
        "figure, `name value unit`:\n"
        "  noop_throughput        no-op tasks/s end to end, in-process workers (--tasks 100000,\n"
        "                         --workers 2, --procs 100 offers each, --window 1000)\n"
        "  rtt_p50 .. rtt_p999    submit -> result of one task at a time, usec (--rtt 10000)\n"
        "  submit_rate            acknowledged submits/s, no workers (--submits 100000)\n"
        "  broker_rss_idle/queued broker VmRSS, MiB, idle and with --queued 1000000 tasks of\n"
        "  bytes_per_queued_task  a 100-byte command; the difference per task\n"
        "  --quick    tiny sizes, for tests      --json   one JSON object instead of lines\n"
        "  -v         let the broker log to stderr\n");
}

//  Parse the flags into opts. Returns 0, DROVER_CLI_HELP, or an exit status.
static int
s_parse (int argc, char **argv, s_opts_t *opts)
{
    static struct option options [] = {
        { "tasks",   required_argument, NULL, 't' },
        { "workers", required_argument, NULL, 'w' },
        { "procs",   required_argument, NULL, 'p' },
        { "window",  required_argument, NULL, 'W' },
        { "rtt",     required_argument, NULL, 'r' },
        { "submits", required_argument, NULL, 's' },
        { "queued",  required_argument, NULL, 'q' },
        { "quick",   no_argument,       NULL, 'Q' },
        { "json",    no_argument,       NULL, 'j' },
        { "verbose", no_argument,       NULL, 'v' },
        { "help",    no_argument,       NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    *opts = (s_opts_t) { .tasks = 100000, .workers = 2, .procs = 100, .window = 1000,
                         .rtt = 10000, .submits = 100000, .queued = 1000000 };
    //  Sizes given explicitly win over --quick, whatever the order
    s_opts_t given = { 0 };
    bool quick = false;
    optind = 1;
    opterr = 0;
    int option, which = 0;
    while ((option = getopt_long (argc, argv, ":vh", options, &which)) != -1) {
        long long *target = NULL, max = 100000000;
        switch (option) {
            case 't': target = &given.tasks; break;
            case 'w': target = &given.workers; max = 1000; break;
            case 'p': target = &given.procs; max = 100000; break;
            case 'W': target = &given.window; max = DROVER_CLIENT_WINDOW_MAX; break;
            case 'r': target = &given.rtt; break;
            case 's': target = &given.submits; break;
            case 'q': target = &given.queued; break;
            case 'Q': quick = true; continue;
            case 'j': opts->json = true; continue;
            case 'v': opts->verbose = true; continue;
            case 'h': s_usage (stdout); return DROVER_CLI_HELP;
            case ':':
                return drover_cli_usage_error ("bench", "option '%s' needs a value",
                                               argv [optind - 1]);
            default:
                return drover_cli_usage_error ("bench", "unknown option '%s' (see drover "
                                               "bench --help)", argv [optind - 1]);
        }
        char flag [32];
        snprintf (flag, sizeof flag, "--%s", options [which].name);
        if (drover_cli_parse_int ("bench", flag, optarg, 1, max, target))
            return DROVER_EXIT_USAGE;
    }
    if (optind < argc)
        return drover_cli_usage_error ("bench", "unexpected argument '%s'", argv [optind]);
    if (quick)
        *opts = (s_opts_t) { .tasks = 2000, .workers = 2, .procs = 100, .window = 200,
                             .rtt = 200, .submits = 2000, .queued = 20000,
                             .json = opts->json, .verbose = opts->verbose };
    long long *fields [] = { &opts->tasks, &opts->workers, &opts->procs, &opts->window,
                             &opts->rtt, &opts->submits, &opts->queued };
    long long *givens [] = { &given.tasks, &given.workers, &given.procs, &given.window,
                             &given.rtt, &given.submits, &given.queued };
    for (size_t index = 0; index < sizeof fields / sizeof fields [0]; index++)
        if (*givens [index])
            *fields [index] = *givens [index];
    return 0;
}

//  Run each phase on a fresh broker, stopped and reaped whatever happens
int
drover_benchmark_main (int argc, char **argv)
{
    s_bench_t bench = { .nfigures = 0 };
    int rc = s_parse (argc, argv, &bench.opts);
    if (rc == DROVER_CLI_HELP)
        return DROVER_EXIT_OK;
    if (rc)
        return rc;
    zsys_set_logstream (stderr);    //  the workers' log lines must not mix with figures
    static const struct {
        const char *name;                       //  for progress and errors
        int (*run) (s_bench_t *self);           //  measures, records figures
    } phases [] = {
        { "noop", s_phase_noop },
        { "rtt", s_phase_rtt },
        { "submit", s_phase_submit },
        { "memory", s_phase_memory },
    };
    for (size_t index = 0; rc == 0 && index < sizeof phases / sizeof phases [0]; index++) {
        fprintf (stderr, "drover bench: phase %s\n", phases [index].name);
        rc = s_broker_start (&bench);
        if (rc == 0)
            rc = phases [index].run (&bench);
        s_broker_stop (&bench);
        if (zsys_interrupted)
            rc = -1;
        if (rc)
            fprintf (stderr, "drover bench: phase %s failed\n", phases [index].name);
    }
    if (rc == 0 && bench.opts.json)
        s_print_json (&bench);
    if (zsys_interrupted)
        return DROVER_EXIT_INTERRUPTED;
    return rc? DROVER_EXIT_FAILED: DROVER_EXIT_OK;
}
