/*  =========================================================================
    zmq_forwarder - a bare ZeroMQ forwarder measured the way `drover bench
    --phases noop,rtt` measures drover, for tools/bench/sidebyside.sh: the floor
    the same machine puts under any broker on ZeroMQ. Not part of the
    drover executable; libzmq only.

    usage: zmq_forwarder [--tasks N] [--rtt N] [--workers N] [--window N]
                         [--credit N] [--phases noop,rtt]

    Each phase starts a fresh broker as a child process (this executable,
    `broker`, on two 127.0.0.1 ports it picks and reports on its stdout)
    and stops it with SIGTERM, reaping it, whatever happened. The broker
    only forwards: a ROUTER for clients, a ROUTER for workers; each task
    goes to a worker with credit (a worker says how many tasks it takes at
    once, as a drover worker offers its procs), each result back to its
    client. It reads the clients' socket only while some worker has credit:
    no queue of its own. In this process, --workers threads (a DEALER each)
    answer every task at once, and a client DEALER:
    (a) noop  --tasks tasks, --window outstanding in two half-window
              batches (the next goes out while the previous one's results
              come back), every result checked: noop_throughput, tasks/s;
    (b) rtt   --rtt tasks one at a time, send -> result: rtt_p50 .. rtt_p999,
              usec.
    One line per figure, `name value unit`, as drover bench prints them.
    Every message is one frame after the routing ids, as in drover: a task
    is its id (uint64) and its argv ("true"), a result the id and an exit
    status (int32). Unlike drover, the client gets no acknowledgement of a
    task, only its result.
    =========================================================================
*/

#define _GNU_SOURCE
#include <zmq.h>
#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define S_ARGV          "true"      //  every task's command line, as drover bench's
#define S_TASK_SIZE     (8 + sizeof S_ARGV - 1)     //  bytes: id + argv
#define S_RESULT_SIZE   (8 + 4)     //  bytes: id + exit status
#define S_QUERY         'W'         //  a client's "how many workers?" (one byte)
#define S_ID_MAX        255         //  bytes of a ZeroMQ routing id at most
#define S_TIMEOUT       10000       //  msec a client or worker waits for the next message
#define S_DRAIN         256         //  messages read from one socket in one turn at most
#define S_STOP_CHECK    100         //  msec the broker sleeps at most before looking for SIGTERM

//  Monotonic clock, usec
static int64_t
s_usecs (void)
{
    struct timespec now;
    clock_gettime (CLOCK_MONOTONIC, &now);
    return (int64_t) now.tv_sec * 1000000 + now.tv_nsec / 1000;
}

//  Put and get little-endian integers in message bodies
static void
s_put_u64 (uint8_t *where, uint64_t value)
{
    for (int index = 0; index < 8; index++)
        where [index] = (uint8_t) (value >> (8 * index));
}

static uint64_t
s_get_u64 (const uint8_t *where)
{
    uint64_t value = 0;
    for (int index = 0; index < 8; index++)
        value |= (uint64_t) where [index] << (8 * index);
    return value;
}


//  ---------------------------------------------------------------------
//  The broker child

//  One task a worker can take now: its routing id
typedef struct {
    uint8_t size;               //  bytes of id
    uint8_t id [S_ID_MAX];      //  the worker's routing id on the workers' ROUTER
} s_credit_t;

typedef struct {
    void *clients;              //  ROUTER: tasks in, results out
    void *workers;              //  ROUTER: credit and results in, tasks out
    s_credit_t *credits;        //  ring of the workers' free slots, one entry each
    size_t capacity;            //  entries the ring holds
    size_t head;                //  next entry taken
    size_t count;               //  entries in the ring
    uint32_t nworkers;          //  workers that said hello (sent their credit)
} s_broker_t;

static volatile sig_atomic_t s_stopping = 0;    //  SIGTERM or SIGINT seen

//  Note the signal; zmq_poll then returns EINTR
static void
s_on_signal (int signal)
{
    s_stopping = 1;
}

//  Add one slot of the worker with routing id to the ring, growing it
static void
s_credit_push (s_broker_t *self, const void *id, size_t size)
{
    if (self->count == self->capacity) {
        size_t capacity = self->capacity? self->capacity * 2: 256;
        s_credit_t *credits = (s_credit_t *) malloc (capacity * sizeof (s_credit_t));
        assert (credits);
        for (size_t index = 0; index < self->count; index++)
            credits [index] = self->credits [(self->head + index) % self->capacity];
        free (self->credits);
        self->credits = credits;
        self->capacity = capacity;
        self->head = 0;
    }
    s_credit_t *credit = &self->credits [(self->head + self->count++) % self->capacity];
    credit->size = (uint8_t) size;
    memcpy (credit->id, id, size);
}

//  Receive one frame into msg; false if none is waiting (or the context ended)
static bool
s_recv (void *socket, zmq_msg_t *msg)
{
    return zmq_msg_recv (msg, socket, ZMQ_DONTWAIT) != -1;
}

//  A client's message: a task goes to the worker at the ring's head with
//  its client's id before it; a query is answered with the worker count
static void
s_broker_client (s_broker_t *self, zmq_msg_t *client, zmq_msg_t *body)
{
    if (zmq_msg_size (body) == 1 && *(uint8_t *) zmq_msg_data (body) == S_QUERY) {
        uint8_t reply [5] = { S_QUERY };
        memcpy (reply + 1, &self->nworkers, 4);
        zmq_msg_send (client, self->clients, ZMQ_SNDMORE);
        zmq_send (self->clients, reply, sizeof reply, 0);
        return;
    }
    assert (self->count > 0);       //  we read clients only with credit
    s_credit_t *credit = &self->credits [self->head];
    self->head = (self->head + 1) % self->capacity;
    self->count--;
    zmq_send (self->workers, credit->id, credit->size, ZMQ_SNDMORE);
    zmq_msg_send (client, self->workers, ZMQ_SNDMORE);
    zmq_msg_send (body, self->workers, 0);
}

//  A worker's message: [credit uint32] when it starts, [client][result]
//  when a task is done: the result goes back, the slot to the ring
static void
s_broker_worker (s_broker_t *self, zmq_msg_t *worker, zmq_msg_t *first)
{
    if (!zmq_msg_more (first)) {
        if (zmq_msg_size (first) == 4) {
            uint32_t credit;
            memcpy (&credit, zmq_msg_data (first), 4);
            for (uint32_t slot = 0; slot < credit; slot++)
                s_credit_push (self, zmq_msg_data (worker), zmq_msg_size (worker));
            self->nworkers++;
        }
        return;
    }
    zmq_msg_t body;
    zmq_msg_init (&body);
    if (zmq_msg_recv (&body, self->workers, 0) != -1) {
        s_credit_push (self, zmq_msg_data (worker), zmq_msg_size (worker));
        zmq_msg_send (first, self->clients, ZMQ_SNDMORE);
        zmq_msg_send (&body, self->clients, 0);
    }
    zmq_msg_close (&body);
}

//  Read up to S_DRAIN messages from one of the broker's sockets
static void
s_broker_drain (s_broker_t *self, void *socket)
{
    zmq_msg_t peer, first;
    zmq_msg_init (&peer);
    zmq_msg_init (&first);
    for (int turn = 0; turn < S_DRAIN; turn++) {
        if (socket == self->clients && self->count == 0)
            break;                  //  no worker can take a task: leave it queued in ZeroMQ
        if (!s_recv (socket, &peer))
            break;
        if (!zmq_msg_more (&peer) || zmq_msg_recv (&first, socket, 0) == -1)
            continue;
        if (socket == self->clients)
            s_broker_client (self, &peer, &first);
        else
            s_broker_worker (self, &peer, &first);
    }
    zmq_msg_close (&first);
    zmq_msg_close (&peer);
}

//  Bind a ROUTER to a free 127.0.0.1 port; print its endpoint on stdout
static void *
s_broker_bind (void *context)
{
    void *router = zmq_socket (context, ZMQ_ROUTER);
    int zero = 0;
    zmq_setsockopt (router, ZMQ_SNDHWM, &zero, sizeof zero);    //  credit and windows bound it
    zmq_setsockopt (router, ZMQ_RCVHWM, &zero, sizeof zero);
    zmq_setsockopt (router, ZMQ_LINGER, &zero, sizeof zero);
    if (zmq_bind (router, "tcp://127.0.0.1:*")) {
        fprintf (stderr, "zmq_forwarder: broker: bind: %s\n", zmq_strerror (errno));
        exit (1);
    }
    char endpoint [256];
    size_t size = sizeof endpoint;
    zmq_getsockopt (router, ZMQ_LAST_ENDPOINT, endpoint, &size);
    printf ("%s\n", endpoint);
    return router;
}

//  The broker: forward until SIGTERM
static int
s_broker_main (void)
{
    struct sigaction action = { .sa_handler = s_on_signal };
    sigaction (SIGTERM, &action, NULL);
    sigaction (SIGINT, &action, NULL);
    void *context = zmq_ctx_new ();
    s_broker_t self = { .nworkers = 0 };
    self.clients = s_broker_bind (context);
    self.workers = s_broker_bind (context);
    fflush (stdout);
    while (!s_stopping) {
        zmq_pollitem_t items [] = {
            { self.workers, 0, ZMQ_POLLIN, 0 },
            { self.clients, 0, ZMQ_POLLIN, 0 }
        };
        //  Clients only while a worker has credit: the rest waits in ZeroMQ.
        //  A signal that comes between two of zmq_poll's own polls does not
        //  interrupt it: we look at s_stopping every S_STOP_CHECK msec.
        if (zmq_poll (items, self.count? 2: 1, S_STOP_CHECK) == -1)
            break;                  //  interrupted: stopping
        if (items [0].revents & ZMQ_POLLIN)
            s_broker_drain (&self, self.workers);
        if (items [1].revents & ZMQ_POLLIN)
            s_broker_drain (&self, self.clients);
    }
    zmq_close (self.clients);
    zmq_close (self.workers);
    zmq_ctx_term (context);
    free (self.credits);
    return 0;
}

//  Start the broker child, on CPU cpu alone if it is not -1; read its two
//  endpoints (clients, workers) from its stdout. Returns its pid, or -1.
static pid_t
s_broker_start (char *clients, char *workers, size_t size, int cpu)
{
    int fds [2];
    if (pipe (fds))
        return -1;
    fflush (stdout);
    fflush (stderr);
    pid_t pid = fork ();
    if (pid == -1) {
        close (fds [0]);
        close (fds [1]);
        return -1;
    }
    if (pid == 0) {
        prctl (PR_SET_PDEATHSIG, SIGTERM);      //  never outlive the bench
        if (cpu >= 0) {
            cpu_set_t set;
            CPU_ZERO (&set);
            CPU_SET (cpu, &set);
            if (sched_setaffinity (0, sizeof set, &set)) {
                fprintf (stderr, "zmq_forwarder: cannot run the broker on CPU %d: %s\n",
                         cpu, strerror (errno));
                _exit (127);
            }
        }
        dup2 (fds [1], STDOUT_FILENO);
        close (fds [0]);
        close (fds [1]);
        execl ("/proc/self/exe", "zmq_forwarder", "broker", (char *) NULL);
        _exit (127);
    }
    close (fds [1]);
    char text [2 * 256 + 2] = "";
    size_t used = 0;
    int64_t deadline = s_usecs () + 10 * 1000000;
    while (used < sizeof text - 1 && strchr (text, '\n') == strrchr (text, '\n')) {
        struct pollfd item = { .fd = fds [0], .events = POLLIN };
        int left = (int) ((deadline - s_usecs ()) / 1000);
        if (left <= 0 || poll (&item, 1, left) <= 0)
            break;
        ssize_t got = read (fds [0], text + used, sizeof text - 1 - used);
        if (got <= 0)
            break;
        used += (size_t) got;
        text [used] = 0;
    }
    close (fds [0]);
    if (sscanf (text, "%255s %255s", clients, workers) != 2 || size < 256) {
        fprintf (stderr, "zmq_forwarder: the broker did not start\n");
        kill (pid, SIGKILL);
        waitpid (pid, NULL, 0);
        return -1;
    }
    return pid;
}

//  Stop the broker with SIGTERM (SIGKILL after 5 s) and reap it
static void
s_broker_stop (pid_t pid)
{
    if (pid <= 0)
        return;
    kill (pid, SIGTERM);
    int64_t deadline = s_usecs () + 5 * 1000000;
    while (waitpid (pid, NULL, WNOHANG) == 0) {
        if (s_usecs () >= deadline) {
            kill (pid, SIGKILL);
            waitpid (pid, NULL, 0);
            break;
        }
        usleep (10000);             //  polling a child's exit, not settling
    }
}


//  ---------------------------------------------------------------------
//  The workers: threads of the bench process

typedef struct {
    void *context;              //  the bench's, shut down to stop us
    const char *endpoint;       //  the broker's workers' ROUTER
    uint32_t credit;            //  tasks we take at once
} s_worker_args_t;

//  Say our credit, then answer each task at once with exit status 0,
//  until the context is shut down
static void *
s_worker (void *args_)
{
    s_worker_args_t *args = (s_worker_args_t *) args_;
    void *dealer = zmq_socket (args->context, ZMQ_DEALER);
    int zero = 0;
    zmq_setsockopt (dealer, ZMQ_LINGER, &zero, sizeof zero);
    if (!dealer || zmq_connect (dealer, args->endpoint)) {
        zmq_close (dealer);
        return NULL;
    }
    zmq_send (dealer, &args->credit, 4, 0);
    zmq_msg_t client;
    zmq_msg_init (&client);
    while (zmq_msg_recv (&client, dealer, 0) != -1) {
        uint8_t task [64];
        int size = zmq_recv (dealer, task, sizeof task, 0);
        if (size == -1)
            break;                  //  context shut down
        if (size < 8)
            continue;               //  not a task
        uint8_t result [S_RESULT_SIZE] = { 0 };
        memcpy (result, task, 8);   //  the task id; exit status 0
        if (zmq_msg_send (&client, dealer, ZMQ_SNDMORE) == -1
        ||  zmq_send (dealer, result, sizeof result, 0) == -1)
            break;
    }
    zmq_msg_close (&client);
    zmq_close (dealer);
    return NULL;
}


//  ---------------------------------------------------------------------
//  The client and the phases

typedef struct {
    long long tasks;            //  --tasks: no-op tasks timed
    long long rtt;              //  --rtt: round trips timed
    long long workers;          //  --workers: in-process worker threads
    long long window;           //  --window: tasks outstanding
    long long credit;           //  --credit: tasks each worker takes at once
    bool phase_noop;            //  --phases has noop
    bool phase_rtt;             //  --phases has rtt
    long long broker_cpu;       //  --broker-cpu: the one CPU of the broker child, -1 any
} s_opts_t;

typedef struct {
    s_opts_t *opts;             //  sizes
    pid_t broker;               //  the broker child, 0 when none
    void *context;              //  ours: client and workers
    void *client;               //  DEALER to the broker's clients' ROUTER
    pthread_t *threads;         //  the workers, nthreads of them
    s_worker_args_t worker;     //  what every worker thread gets
    size_t nthreads;            //  worker threads started
    char clients [256];         //  the broker's clients' endpoint
    char workers [256];         //  the broker's workers' endpoint
} s_bench_t;

//  Print one figure as drover bench does
static void
s_figure (const char *name, double value, const char *unit)
{
    printf ("%-24s %14.1f %s\n", name, value, unit);
    fflush (stdout);
}

//  Send task id; 0 or -1
static int
s_send_task (s_bench_t *self, uint64_t id)
{
    uint8_t task [S_TASK_SIZE];
    s_put_u64 (task, id);
    memcpy (task + 8, S_ARGV, sizeof S_ARGV - 1);
    return zmq_send (self->client, task, sizeof task, 0) == -1? -1: 0;
}

//  Receive one result: its task id, -1 on timeout or a failed task
static int64_t
s_recv_result (s_bench_t *self)
{
    uint8_t result [S_RESULT_SIZE];
    int size = zmq_recv (self->client, result, sizeof result, 0);
    if (size != (int) sizeof result) {
        fprintf (stderr, "zmq_forwarder: %s\n", size == -1? "no result in time": "bad result");
        return -1;
    }
    int32_t status;
    memcpy (&status, result + 8, 4);
    return status == 0? (int64_t) (s_get_u64 (result) & INT64_MAX): -1;
}

//  Start a broker, the workers and the client; wait until the broker has
//  heard every worker. Returns 0 or -1 (what started is in self).
static int
s_bench_start (s_bench_t *self)
{
    self->broker = s_broker_start (self->clients, self->workers, sizeof self->clients,
                                   (int) self->opts->broker_cpu);
    if (self->broker == -1)
        return -1;
    self->context = zmq_ctx_new ();
    self->client = zmq_socket (self->context, ZMQ_DEALER);
    int zero = 0, timeout = S_TIMEOUT, many = 1000000;
    zmq_setsockopt (self->client, ZMQ_LINGER, &zero, sizeof zero);
    zmq_setsockopt (self->client, ZMQ_SNDHWM, &zero, sizeof zero);     //  the window bounds it
    zmq_setsockopt (self->client, ZMQ_RCVHWM, &many, sizeof many);
    zmq_setsockopt (self->client, ZMQ_RCVTIMEO, &timeout, sizeof timeout);
    if (zmq_connect (self->client, self->clients))
        return -1;
    self->worker = (s_worker_args_t) { self->context, self->workers, (uint32_t) self->opts->credit };
    self->threads = (pthread_t *) calloc ((size_t) self->opts->workers, sizeof (pthread_t));
    assert (self->threads);
    for (long long index = 0; index < self->opts->workers; index++) {
        if (pthread_create (&self->threads [index], NULL, s_worker, &self->worker))
            return -1;
        self->nthreads++;
    }
    //  The broker reads our query once a worker has credit; ask until all have
    int64_t deadline = s_usecs () + S_TIMEOUT * 1000LL;
    while (s_usecs () < deadline) {
        uint8_t query = S_QUERY, reply [5];
        if (zmq_send (self->client, &query, 1, 0) == -1
        ||  zmq_recv (self->client, reply, sizeof reply, 0) != (int) sizeof reply)
            break;
        uint32_t heard;
        memcpy (&heard, reply + 1, 4);
        if (heard >= (uint32_t) self->opts->workers)
            return 0;
        usleep (20000);             //  polling the broker's count, not settling
    }
    fprintf (stderr, "zmq_forwarder: the workers did not register\n");
    return -1;
}

//  Stop the workers, the client and the broker, whatever started
static void
s_bench_stop (s_bench_t *self)
{
    if (self->context) {
        zmq_ctx_shutdown (self->context);   //  the workers' calls return ETERM
        for (size_t index = 0; index < self->nthreads; index++)
            pthread_join (self->threads [index], NULL);
        zmq_close (self->client);
        zmq_ctx_term (self->context);
    }
    free (self->threads);
    s_broker_stop (self->broker);
    s_opts_t *opts = self->opts;
    memset (self, 0, sizeof *self);
    self->opts = opts;
}

//  (a) opts.tasks tasks, a window outstanding in two half-window batches:
//  the next batch goes out, then the previous one's results are awaited,
//  as drover_benchmark_run_tasks does. Returns 0 or -1.
static int
s_phase_noop (s_bench_t *self)
{
    long long count = self->opts->tasks;
    uint64_t batch = (uint64_t) (self->opts->window / 2 > 0? self->opts->window / 2: 1);
    uint64_t done [2] = { 0, 0 };   //  results in by batch parity (task id / batch)
    uint64_t sent = 0, received = 0;
    uint64_t previous = 0;          //  tasks in the batch waited on next
    int current = 0;                //  parity of the next batch
    int64_t started = s_usecs ();
    while (sent < (uint64_t) count || previous) {
        uint64_t size = (uint64_t) count - sent < batch? (uint64_t) count - sent: batch;
        done [current] = 0;         //  its earlier batch was awaited in full
        for (uint64_t index = 0; index < size; index++)
            if (s_send_task (self, sent + index))
                return -1;
        sent += size;
        while (previous && done [1 - current] < previous) {
            int64_t id = s_recv_result (self);
            if (id < 0 || (uint64_t) id >= sent)
                return -1;
            done [(id / batch) & 1]++;
            received++;
        }
        previous = size;
        current = 1 - current;
    }
    int64_t elapsed = s_usecs () - started;
    if (received != (uint64_t) count) {
        fprintf (stderr, "zmq_forwarder: noop: %" PRIu64 " of %lld results\n", received, count);
        return -1;
    }
    s_figure ("noop_throughput", count * 1e6 / (elapsed > 0? elapsed: 1), "tasks/s");
    return 0;
}

//  Order usec samples
static int
s_compare_samples (const void *left, const void *right)
{
    int64_t a = *(const int64_t *) left, b = *(const int64_t *) right;
    return (a > b) - (a < b);
}

//  The sample at quantile q of sorted samples (nearest rank, as drover bench)
static double
s_quantile (const int64_t *sorted, size_t count, double q)
{
    size_t rank = (size_t) ceil (q * count);
    return (double) sorted [rank > 0? rank - 1: 0];
}

//  (b) opts.rtt tasks one at a time, send -> result. Returns 0 or -1.
static int
s_phase_rtt (s_bench_t *self)
{
    size_t count = (size_t) self->opts->rtt;
    int64_t *samples = (int64_t *) calloc (count, sizeof (int64_t));
    assert (samples);
    int rc = 0;
    for (size_t index = 0; rc == 0 && index < count; index++) {
        int64_t started = s_usecs ();
        if (s_send_task (self, index) || s_recv_result (self) != (int64_t) index)
            rc = -1;
        samples [index] = s_usecs () - started;
    }
    if (rc == 0) {
        qsort (samples, count, sizeof (int64_t), s_compare_samples);
        s_figure ("rtt_p50", s_quantile (samples, count, 0.50), "us");
        s_figure ("rtt_p90", s_quantile (samples, count, 0.90), "us");
        s_figure ("rtt_p99", s_quantile (samples, count, 0.99), "us");
        s_figure ("rtt_p999", s_quantile (samples, count, 0.999), "us");
    }
    else
        fprintf (stderr, "zmq_forwarder: rtt: a round trip failed\n");
    free (samples);
    return rc;
}


//  ---------------------------------------------------------------------
//  Flags and the main

//  Print the usage
static void
s_usage (FILE *stream)
{
    fprintf (stream,
        "usage: zmq_forwarder [--tasks N] [--rtt N] [--workers N] [--window N]\n"
        "                     [--credit N] [--phases noop,rtt] [--broker-cpu N]\n"
        "\n"
        "A bare ZeroMQ forwarder (a broker process that only forwards) measured as\n"
        "`drover bench --phases noop,rtt` measures drover; one line per figure.\n"
        "  --tasks N    noop_throughput: no-op tasks timed (100000)\n"
        "  --rtt N      rtt_p50 .. rtt_p999: round trips timed, usec (10000)\n"
        "  --workers N  in-process worker threads (2)\n"
        "  --window N   tasks outstanding, sent in two half-window batches (1000)\n"
        "  --credit N   tasks each worker takes at once (100, as drover's --procs)\n"
        "  --phases L   noop, rtt or noop,rtt (both)\n"
        "  --broker-cpu N  run the broker process on CPU N alone (default: any CPU)\n");
}

//  Parse a positive size no larger than max; false if it is not one
static bool
s_parse_size (const char *flag, const char *text, long long max, long long *value)
{
    char *end = NULL;
    errno = 0;
    long long parsed = strtoll (text, &end, 10);
    if (errno || !end || *end || end == text || parsed < 1 || parsed > max) {
        fprintf (stderr, "zmq_forwarder: %s: '%s' is not a size from 1 to %lld\n",
                 flag, text, max);
        return false;
    }
    *value = parsed;
    return true;
}

//  Parse a CPU number (0 to CPU_SETSIZE - 1); false if it is not one
static bool
s_parse_cpu (const char *text, long long *cpu)
{
    char *end = NULL;
    errno = 0;
    long long parsed = strtoll (text, &end, 10);
    if (errno || !end || *end || end == text || parsed < 0 || parsed >= CPU_SETSIZE) {
        fprintf (stderr, "zmq_forwarder: --broker-cpu: '%s' is not a CPU number from 0 to %d\n",
                 text, CPU_SETSIZE - 1);
        return false;
    }
    *cpu = parsed;
    return true;
}

//  Parse the flags into opts; returns 0, 1 for --help, or 2 (usage error)
static int
s_parse (int argc, char **argv, s_opts_t *opts)
{
    static const struct option options [] = {
        { "tasks",   required_argument, NULL, 't' },
        { "rtt",     required_argument, NULL, 'r' },
        { "workers", required_argument, NULL, 'w' },
        { "window",  required_argument, NULL, 'W' },
        { "credit",  required_argument, NULL, 'c' },
        { "phases",  required_argument, NULL, 'p' },
        { "broker-cpu", required_argument, NULL, 'b' },
        { "help",    no_argument,       NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    *opts = (s_opts_t) { 100000, 10000, 2, 1000, 100, true, true, -1 };
    int option;
    opterr = 0;
    while ((option = getopt_long (argc, argv, ":h", options, NULL)) != -1) {
        bool ok = true;
        switch (option) {
            case 't': ok = s_parse_size ("--tasks", optarg, 100000000, &opts->tasks); break;
            case 'r': ok = s_parse_size ("--rtt", optarg, 100000000, &opts->rtt); break;
            case 'w': ok = s_parse_size ("--workers", optarg, 1000, &opts->workers); break;
            case 'W': ok = s_parse_size ("--window", optarg, 1000000, &opts->window); break;
            case 'c': ok = s_parse_size ("--credit", optarg, 100000, &opts->credit); break;
            case 'b': ok = s_parse_cpu (optarg, &opts->broker_cpu); break;
            case 'p':
                opts->phase_noop = strcmp (optarg, "rtt") != 0;
                opts->phase_rtt = strcmp (optarg, "noop") != 0;
                ok = strcmp (optarg, "noop") == 0 || strcmp (optarg, "rtt") == 0
                  || strcmp (optarg, "noop,rtt") == 0;
                if (!ok)
                    fprintf (stderr, "zmq_forwarder: --phases: '%s' is not noop, rtt or "
                             "noop,rtt\n", optarg);
                break;
            case 'h': s_usage (stdout); return 1;
            default:
                fprintf (stderr, "zmq_forwarder: bad or incomplete option '%s' (see --help)\n",
                         argv [optind - 1]);
                return 2;
        }
        if (!ok)
            return 2;
    }
    if (optind < argc) {
        fprintf (stderr, "zmq_forwarder: unexpected argument '%s'\n", argv [optind]);
        return 2;
    }
    return 0;
}

int
main (int argc, char **argv)
{
    if (argc == 2 && strcmp (argv [1], "broker") == 0)
        return s_broker_main ();
    s_opts_t opts;
    int rc = s_parse (argc, argv, &opts);
    if (rc)
        return rc == 1? 0: 2;
    signal (SIGPIPE, SIG_IGN);
    static const struct {
        const char *name;                       //  for progress and errors
        int (*run) (s_bench_t *self);           //  measures, prints figures
    } phases [] = { { "noop", s_phase_noop }, { "rtt", s_phase_rtt } };
    bool wanted [] = { opts.phase_noop, opts.phase_rtt };
    for (size_t index = 0; rc == 0 && index < 2; index++) {
        if (!wanted [index])
            continue;
        fprintf (stderr, "zmq_forwarder: phase %s\n", phases [index].name);
        s_bench_t bench = { .opts = &opts };
        rc = s_bench_start (&bench);
        if (rc == 0)
            rc = phases [index].run (&bench);
        s_bench_stop (&bench);
        if (rc)
            fprintf (stderr, "zmq_forwarder: phase %s failed\n", phases [index].name);
    }
    return rc? 1: 0;
}
