/*  =========================================================================
    drover_benchmark_sim - `drover bench` phases with simulated workers:
    (e) scheduling cost by queue length and by connected workers, and
    (g) the broker's CPU while many workers heartbeat, and (s) while ten
    thousand do at the interval the broker chose for a fleet that size,
    from simulator processes of their own (two descriptors a worker)

    A simulated worker is one DEALER socket speaking DRV/1 by hand: WORKER
    HELLO, HEARTBEATs at the interval the WELCOME names, and for each TASK
    OFFER a TASK RESULT at once (a RESULT without STARTED acknowledges the
    offer), or, while the simulation holds, a STARTED now and the RESULT
    on release. Hundreds or thousands of them run in this one thread: an
    epoll set over each socket's ZMQ_FD, drained through ZMQ_EVENTS after
    it signals and after every send (the descriptor is edge-like: a send
    may swallow the signal of an arrival, and a pipe that was never read
    from signals nothing until it is).

    Assignment cost: queue the tasks first with no worker connected, then
    connect the workers, let them fill every slot (held), and time the
    next K offers after the release. The queue stays between N + K and N
    tasks while K assignments are timed; each assignment is an offer and
    its result, pipelined over all slots, so usec per assignment is the
    broker's cost per task (1 / throughput), not a round trip.
    =========================================================================
*/

#include "drover_cli.h"
#include "drover_benchmark.h"
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <poll.h>
#include <dirent.h>

#define S_HELLO_RETRY       3000            //  msec before an unanswered HELLO goes again
#define S_EVENTS_MAX        256             //  epoll events handled per wait
#define S_SIM_MEM           (1ULL << 40)    //  memory each simulated worker offers
#define S_QUEUE_WORKERS     10              //  simulated workers of the queue-length phase,
                                            //  and the busy ones of the workers phase
#define S_BROKER_HEARTBEAT  1000            //  health/heartbeat of a broker left at defaults
#define S_POOL_BUSY         "pool=busy"     //  label of the workers that take the work
#define S_POOL_IDLE         "pool=idle"     //  label of the idle ones
#define S_REGISTER_MSEC     30000           //  msec the workers may take to register and fill up
#define S_ASSIGN_MSEC       120000          //  msec the timed assignments may take at most

//  One simulated worker
typedef struct {
    void *sock;                 //  DEALER to the broker: a zsock_t, or a libzmq socket
                                //  of the simulation's own context
    char id [32];               //  worker id, "sim-<n>"
    uint64_t epoch;             //  incarnation, fixed for the run
    uint32_t procs;             //  offers it may hold at once
    const char *label;          //  "pool=busy" or "pool=idle", or NULL for none
    uint32_t seq;               //  last request number sent
    bool registered;            //  WELCOME seen since the last HELLO
    int64_t hello_at;           //  msec mono the last HELLO went out
    int64_t heartbeat_at;       //  msec mono the next HEARTBEAT is due
    uint32_t heartbeat;         //  msec between HEARTBEATs, from WELCOME
    drover_taskref_t *held;     //  offers STARTED whose RESULT waits for release, procs
    size_t nheld;               //  entries used in held
} s_simworker_t;

//  The simulation: every worker, one epoll set, counters
typedef struct {
    void *ctx;                  //  the libzmq context of the sockets, or NULL: CZMQ's
    int tick;                   //  msec timers are batched by (0: each when due)
    uint32_t interval_min;      //  shortest heartbeat interval a WELCOME named, msec
    uint32_t interval_max;      //  longest
    uint64_t welcomes;          //  WELCOMEs received
    s_simworker_t *workers;     //  count entries, owned
    size_t count;               //  workers simulated
    int epoll;                  //  one entry per worker's ZMQ_FD, data = index
    bool hold;                  //  STARTED now, RESULT on release
    int64_t next_timer;         //  msec mono of the earliest HELLO retry or HEARTBEAT
    uint64_t registered;        //  workers registered now
    uint64_t offers;            //  TASK OFFERs received
    uint64_t heartbeats;        //  HEARTBEATs sent
    uint64_t refusals;          //  ERROR 401s received (not registered)
    uint64_t errors;            //  other ERRORs received
    uint64_t target;            //  offers count at which target_at is taken, 0 none
    int64_t target_at;          //  usec when offers reached target, 0 not yet
    drover_msg_t *in;           //  decoded arrival, reused
    drover_msg_t *out;          //  message being sent, reused
} s_sim_t;


//  Send self->out, with the worker's id, epoch and next seq, as message id
static void
s_sim_send (s_sim_t *self, s_simworker_t *worker, int id)
{
    drover_msg_t *out = self->out;
    out->id = id;
    worker->seq = worker->seq == UINT32_MAX? 1: worker->seq + 1;
    out->seq = worker->seq;
    snprintf (out->worker, sizeof out->worker, "%s", worker->id);
    out->epoch = worker->epoch;
    zframe_t *frame = drover_msg_encode (out);
    assert (frame);                 //  we built it within every limit
    if (zframe_send (&frame, worker->sock, ZFRAME_DONTWAIT) == -1)
        zframe_destroy (&frame);    //  HWM reached: the broker is far behind; counted as lost
    drover_msg_reset (out);
}

//  Say WORKER HELLO, with nothing running
static void
s_sim_hello (s_sim_t *self, s_simworker_t *worker, int64_t now)
{
    self->out->procs = worker->procs;
    self->out->mem = S_SIM_MEM;
    if (worker->label)
        self->out->labels [self->out->nlabels++] = strdup (worker->label);
    s_sim_send (self, worker, DROVER_MSG_WORKER_HELLO);
    worker->hello_at = now;
}

//  Say TASK RESULT: exit 0, no output
static void
s_sim_result (s_sim_t *self, s_simworker_t *worker, uint64_t task, uint32_t attempt)
{
    self->out->task = task;
    self->out->attempt = attempt;
    self->out->outcome = DROVER_OUTCOME_EXITED;
    s_sim_send (self, worker, DROVER_MSG_TASK_RESULT);
}

//  Handle one message from the broker to a worker
static void
s_sim_handle (s_sim_t *self, s_simworker_t *worker, zframe_t *frame)
{
    drover_msg_t *in = self->in;
    if (drover_msg_decode (in, zframe_data (frame), zframe_size (frame)))
        return;                     //  malformed: dropped, as a worker does
    if (in->id == DROVER_MSG_WORKER_WELCOME) {
        if (!worker->registered)
            self->registered++;
        worker->registered = true;
        worker->heartbeat = in->heartbeat? in->heartbeat: 1000;
        if (self->welcomes++ == 0 || worker->heartbeat < self->interval_min)
            self->interval_min = worker->heartbeat;
        if (worker->heartbeat > self->interval_max)
            self->interval_max = worker->heartbeat;
        //  Spread the heartbeats over the interval, as independent machines would
        int64_t now = zclock_mono ();
        worker->heartbeat_at = now + randof (worker->heartbeat) + 1;
        if (worker->heartbeat_at < self->next_timer)
            self->next_timer = worker->heartbeat_at;
    }
    else
    if (in->id == DROVER_MSG_TASK_OFFER) {
        self->offers++;
        if (self->offers == self->target)
            self->target_at = zclock_usecs ();
        if (self->hold && worker->nheld < worker->procs) {
            self->out->task = in->task;
            self->out->attempt = in->attempt;
            s_sim_send (self, worker, DROVER_MSG_TASK_STARTED);
            worker->held [worker->nheld++] = (drover_taskref_t) { in->task, in->attempt };
        }
        else
            s_sim_result (self, worker, in->task, in->attempt);
    }
    else
    if (in->id == DROVER_MSG_ERROR && in->code == DROVER_CODE_NOT_REGISTERED) {
        self->refusals++;
        if (worker->registered)
            self->registered--;
        worker->registered = false;
        s_sim_hello (self, worker, zclock_mono ());
    }
    else
    if (in->id == DROVER_MSG_ERROR) {
        if (self->errors++ == 0)
            fprintf (stderr, "drover bench: worker %s got ERROR %d %s\n", worker->id,
                     in->code, in->reason? in->reason: "");
    }
    //  OK (a result recorded), KILL, LEAVE: nothing to do
}

//  Handle everything waiting on a worker's socket; after a send as well,
//  since the send may have consumed the descriptor's signal
static void
s_sim_drain (s_sim_t *self, s_simworker_t *worker)
{
    while (zsock_events (worker->sock) & ZMQ_POLLIN) {
        zframe_t *frame = zframe_recv_nowait (worker->sock);
        if (!frame)
            break;
        s_sim_handle (self, worker, frame);
        zframe_destroy (&frame);
    }
}

//  Send the HEARTBEATs and HELLO retries that are due, and find the next
static void
s_sim_timers (s_sim_t *self, int64_t now)
{
    if (now < self->next_timer)
        return;
    int64_t next = now + S_HELLO_RETRY;
    for (size_t index = 0; index < self->count; index++) {
        s_simworker_t *worker = &self->workers [index];
        int64_t due;
        if (!worker->registered) {
            if (now - worker->hello_at >= S_HELLO_RETRY) {
                s_sim_hello (self, worker, now);
                s_sim_drain (self, worker);
            }
            due = worker->hello_at + S_HELLO_RETRY;
        }
        else {
            if (now >= worker->heartbeat_at) {
                s_sim_send (self, worker, DROVER_MSG_WORKER_HEARTBEAT);
                self->heartbeats++;
                worker->heartbeat_at += worker->heartbeat;
                if (worker->heartbeat_at <= now)
                    worker->heartbeat_at = now + worker->heartbeat;
                s_sim_drain (self, worker);
            }
            due = worker->heartbeat_at;
        }
        if (due < next)
            next = due;
    }
    if (next < now + self->tick)
        next = now + self->tick;        //  thousands of workers: scanned once a tick
    self->next_timer = next;
}

//  Create count workers of procs each, connect them and say HELLO. With
//  busy > 0, only the first busy workers take the work: they advertise
//  S_POOL_BUSY, the others S_POOL_IDLE and one proc (connected, heartbeating,
//  and never matching a task that asks for S_POOL_BUSY). heartbeat is the
//  broker's interval, msec. With ctx the sockets are that libzmq
//  context's (a forked simulator's own), else CZMQ's.
static s_sim_t *
s_sim_new_in (void *ctx, size_t first, const char *endpoint, size_t count, uint32_t procs,
              bool hold, size_t busy, uint32_t heartbeat)
{
    s_sim_t *self = (s_sim_t *) zmalloc (sizeof (s_sim_t));
    self->ctx = ctx;
    self->epoll = epoll_create1 (EPOLL_CLOEXEC);
    assert (self->epoll != -1);
    self->workers = (s_simworker_t *) zmalloc (count * sizeof (s_simworker_t));
    self->hold = hold;
    self->in = drover_msg_new (0);
    self->out = drover_msg_new (0);
    int64_t now = zclock_mono ();
    uint64_t epoch = (uint64_t) zclock_time () * 1000;
    for (size_t index = 0; index < count; index++) {
        s_simworker_t *worker = &self->workers [index];
        worker->sock = ctx? zmq_socket (ctx, ZMQ_DEALER): (void *) zsock_new (ZMQ_DEALER);
        if (!worker->sock) {
            fprintf (stderr, "drover bench: no socket for simulated worker %zu: %s\n",
                     index + 1, zmq_strerror (zmq_errno ()));
            break;
        }
        self->count++;
        zsock_set_linger (worker->sock, 0);
        zsock_set_sndhwm (worker->sock, 100000);
        zsock_set_rcvhwm (worker->sock, 100000);
        zsock_set_maxmsgsize (worker->sock, DROVER_MSG_MAX);
        //  The transport as a real worker sets it (drover_worker.c): dead
        //  links left to the kernel, no ZMTP PINGs for the broker to answer
        zsock_set_tcp_maxrt (worker->sock, (int) heartbeat * 3);
        zsock_set_tcp_keepalive (worker->sock, 1);
        snprintf (worker->id, sizeof worker->id, "sim-%zu", first + index + 1);
        worker->epoch = epoch + first + index;
        worker->procs = busy && index >= busy? 1: procs;
        worker->label = !busy? NULL: index < busy? S_POOL_BUSY: S_POOL_IDLE;
        worker->held = (drover_taskref_t *) zmalloc (procs * sizeof (drover_taskref_t));
        struct epoll_event event = { .events = EPOLLIN, .data.u32 = (uint32_t) index };
        int rc = epoll_ctl (self->epoll, EPOLL_CTL_ADD, zsock_fd (worker->sock), &event);
        assert (rc == 0);
        if (zmq_connect (zsock_resolve (worker->sock), endpoint) == -1) {
            fprintf (stderr, "drover bench: cannot connect to %s\n", endpoint);
            break;
        }
        s_sim_hello (self, worker, now);
        s_sim_drain (self, worker);     //  a pipe never read from signals nothing
    }
    self->next_timer = now + S_HELLO_RETRY;
    return self;
}

//  Create count workers of CZMQ's context (s_sim_new_in)
static s_sim_t *
s_sim_new (const char *endpoint, size_t count, uint32_t procs, bool hold, size_t busy,
           uint32_t heartbeat)
{
    return s_sim_new_in (NULL, 0, endpoint, count, procs, hold, busy, heartbeat);
}

//  Destroy the simulation: sockets closed at once, nothing said
static void
s_sim_destroy (s_sim_t **self_p)
{
    s_sim_t *self = *self_p;
    if (!self)
        return;
    for (size_t index = 0; index < self->count; index++) {
        if (self->ctx)
            zmq_close (self->workers [index].sock);
        else
            zsock_destroy ((zsock_t **) &self->workers [index].sock);
        free (self->workers [index].held);
    }
    free (self->workers);
    close (self->epoll);
    drover_msg_destroy (&self->in);
    drover_msg_destroy (&self->out);
    free (self);
    *self_p = NULL;
}

//  Handle one batch of traffic, waiting for it until msec mono until at
//  most, and the timers that are due. Returns 0, or -1 if interrupted.
static int
s_sim_poll (s_sim_t *self, int64_t until)
{
    int64_t now = zclock_mono ();
    s_sim_timers (self, now);
    int64_t wake = self->next_timer < until? self->next_timer: until;
    int wait = wake > now? (int) (wake - now): 0;
    struct epoll_event events [S_EVENTS_MAX];
    int ready = epoll_wait (self->epoll, events, S_EVENTS_MAX, wait);
    if (ready == -1 && errno != EINTR)
        return -1;
    for (int index = 0; index < ready; index++)
        s_sim_drain (self, &self->workers [events [index].data.u32]);
    s_sim_timers (self, zclock_mono ());
    return zsys_interrupted? -1: 0;
}

//  Send every held RESULT and stop holding
static void
s_sim_release (s_sim_t *self)
{
    self->hold = false;
    for (size_t index = 0; index < self->count; index++) {
        s_simworker_t *worker = &self->workers [index];
        for (size_t slot = 0; slot < worker->nheld; slot++)
            s_sim_result (self, worker, worker->held [slot].task, worker->held [slot].attempt);
        worker->nheld = 0;
        s_sim_drain (self, worker);
    }
}

//  Run the simulation until every worker is registered (and, if slots is
//  not 0, has taken that many offers in all), or the deadline. Returns 0,
//  or -1 with a message.
static int
s_sim_await (drover_benchmark_t *bench, s_sim_t *self, size_t count, uint64_t slots,
             const char *phase)
{
    int64_t deadline = zclock_mono () + S_REGISTER_MSEC;
    while (self->registered < count || self->offers < slots) {
        if (zclock_mono () >= deadline || s_sim_poll (self, deadline)) {
            fprintf (stderr, "drover bench: %s: %" PRIu64 " of %zu simulated workers registered, "
                     "%" PRIu64 " of %" PRIu64 " offers\n", phase, self->registered, count,
                     self->offers, slots);
            return -1;
        }
        drover_benchmark_progress (bench, phase, (long long) self->registered,
                                   (long long) count, false);
    }
    return 0;
}


//  ---------------------------------------------------------------------
//  (e) assignment cost

//  Name a size the short way: 1000 -> "1k", 1000000 -> "1m", 1500 -> "1500"
static void
s_size_name (char *buffer, size_t size, const char *prefix, long long value)
{
    if (value % 1000000 == 0)
        snprintf (buffer, size, "%s%lldm", prefix, value / 1000000);
    else
    if (value % 1000 == 0)
        snprintf (buffer, size, "%s%lldk", prefix, value / 1000);
    else
        snprintf (buffer, size, "%s%lld", prefix, value);
}

//  Submit count tasks like submit, their owners owner-1..owner-N in turn
//  (owners <= 1: the submit's own). Returns the usec it took, or -1.
static int64_t
s_submit_spread (drover_benchmark_t *self, drover_client_t *client,
                 drover_benchmark_tally_t *tally, drover_submit_t *submit, long long count,
                 uint32_t owners, const char *phase)
{
    if (owners <= 1)
        return drover_benchmark_submit_many (self, client, tally, submit, count, phase);
    int64_t started = zclock_usecs ();
    for (long long index = 0; index < count; index++) {
        char owner [32];
        snprintf (owner, sizeof owner, "owner-%u", (uint32_t) (index % owners) + 1);
        drover_submit_set_owner (submit, owner);
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
    if (tally->refused) {
        fprintf (stderr, "drover bench: %s: %" PRIu64 " submits refused\n", phase, tally->refused);
        return -1;
    }
    return zclock_usecs () - started;
}

//  On a fresh broker: queue tasks, connect workers of procs each, let them
//  fill their slots, release, and time opts.assigns offers. With busy > 0,
//  the tasks ask for S_POOL_BUSY and only the first busy workers take them
//  (s_sim_new). Records the figure name in usec per assignment. Returns 0,
//  or -1.
static int
s_assign_cost (drover_benchmark_t *self, long long queued, size_t workers, size_t busy,
               uint32_t procs, uint32_t owners, const char *name)
{
    int rc = drover_benchmark_broker_start (self, NULL);
    drover_benchmark_tally_t tally = { 0 };
    drover_client_t *client = rc? NULL: drover_benchmark_client (self, &tally);
    drover_submit_t *submit = drover_benchmark_submit_new (false, 0);
    if (busy)
        drover_submit_add_label (submit, S_POOL_BUSY);
    uint64_t slots = (uint64_t) (busy? busy: workers) * procs;
    long long assigns = self->opts.assigns;
    if (rc == 0)
        rc = drover_client_set_window (client, (uint32_t) self->opts.window);
    if (rc == 0 && s_submit_spread (self, client, &tally, submit,
                                    queued + (long long) slots + assigns, owners, name) < 0)
        rc = -1;
    drover_submit_destroy (&submit);
    drover_client_destroy (&client);

    s_sim_t *sim = rc? NULL: s_sim_new (self->endpoint, workers, procs, true, busy,
                                             S_BROKER_HEARTBEAT);
    if (sim && sim->count < workers)
        rc = -1;
    if (rc == 0)
        rc = s_sim_await (self, sim, workers, slots, name);
    if (rc == 0) {
        sim->target = sim->offers + (uint64_t) assigns;
        int64_t started = zclock_usecs ();
        s_sim_release (sim);
        int64_t deadline = zclock_mono () + S_ASSIGN_MSEC;
        while (rc == 0 && sim->target_at == 0) {
            if (zclock_mono () >= deadline) {
                fprintf (stderr, "drover bench: %s: %" PRIu64 " of %lld assignments in %d s\n",
                         name, sim->offers + (uint64_t) assigns - sim->target, assigns,
                         S_ASSIGN_MSEC / 1000);
                rc = -1;
            }
            else
                rc = s_sim_poll (sim, deadline);
        }
        if (rc == 0)
            drover_benchmark_figure (self, name, (double) (sim->target_at - started) / assigns,
                                     "us");
    }
    s_sim_destroy (&sim);
    drover_benchmark_broker_stop (self);
    return rc;
}

//  (e) usec per assignment by queue length, S_QUEUE_WORKERS workers
int
drover_benchmark_phase_queue (drover_benchmark_t *self)
{
    uint32_t procs = (uint32_t) ((self->opts.slots + S_QUEUE_WORKERS - 1) / S_QUEUE_WORKERS);
    int rc = 0;
    for (size_t index = 0; rc == 0 && index < self->opts.nqueue_sizes; index++) {
        char name [40];
        s_size_name (name, sizeof name, "assign_us_q", self->opts.queue_sizes [index]);
        rc = s_assign_cost (self, self->opts.queue_sizes [index], S_QUEUE_WORKERS, 0, procs,
                            1, name);
    }
    return rc;
}

//  (r) usec per assignment through the whole broker with queued tasks of
//  owners owners (spread evenly), as phase (e) measures it
int
drover_benchmark_assign_cost_owners (drover_benchmark_t *self, long long queued,
                                     uint32_t owners, const char *name)
{
    uint32_t procs = (uint32_t) ((self->opts.slots + S_QUEUE_WORKERS - 1) / S_QUEUE_WORKERS);
    return s_assign_cost (self, queued, S_QUEUE_WORKERS, 0, procs, owners, name);
}

//  (e) usec per assignment by connected workers: S_QUEUE_WORKERS of them
//  (or all, if fewer) busy with the slots, the rest connected and idle
int
drover_benchmark_phase_workers (drover_benchmark_t *self)
{
    int rc = 0;
    for (size_t index = 0; rc == 0 && index < self->opts.nworker_counts; index++) {
        long long workers = self->opts.worker_counts [index];
        size_t busy = workers < S_QUEUE_WORKERS? (size_t) workers: S_QUEUE_WORKERS;
        uint32_t procs = (uint32_t) ((self->opts.slots + (long long) busy - 1) / (long long) busy);
        char name [40];
        snprintf (name, sizeof name, "assign_us_w%lld", workers);
        rc = s_assign_cost (self, self->opts.assign_queue, (size_t) workers, busy, procs, 1,
                            name);
    }
    return rc;
}


//  ---------------------------------------------------------------------
//  (g) heartbeat load

//  (g) the broker's CPU, % of one core, with opts.hb_workers workers
//  heartbeating every opts.hb_interval msec, after they all registered
int
drover_benchmark_phase_heartbeat (drover_benchmark_t *self)
{
    long long interval = self->opts.hb_interval;
    long long lost_after = interval * 5 > 5000? interval * 5: 5000;
    char heartbeat [64], lost [64];
    snprintf (heartbeat, sizeof heartbeat, "health/heartbeat=%lld", interval);
    snprintf (lost, sizeof lost, "health/lost-after=%lld", lost_after);
    //  Every worker at the interval asked for, however many there are
    const char *settings [] = { heartbeat, lost, "health/heartbeat-rate=0", NULL };
    int rc = drover_benchmark_broker_start (self, settings);
    size_t count = (size_t) self->opts.hb_workers;
    s_sim_t *sim = rc? NULL: s_sim_new (self->endpoint, count, 1, false, 0, (uint32_t) interval);
    if (sim && sim->count < count)
        rc = -1;
    if (rc == 0)
        rc = s_sim_await (self, sim, count, 0, "heartbeat");
    //  One interval for the registrations' aftermath, then the window
    int64_t settled = zclock_mono () + interval;
    while (rc == 0 && zclock_mono () < settled)
        rc = s_sim_poll (sim, settled);
    int64_t cpu_start = rc? -1: drover_benchmark_cpu_nsec (self->broker);
    int64_t started = zclock_mono ();
    uint64_t heartbeats = sim? sim->heartbeats: 0;
    uint64_t refusals = sim? sim->refusals: 0;
    int64_t deadline = started + self->opts.hb_window;
    while (rc == 0 && zclock_mono () < deadline) {
        rc = s_sim_poll (sim, deadline);
        drover_benchmark_progress (self, "heartbeat msec", zclock_mono () - started,
                                   self->opts.hb_window, false);
    }
    int64_t cpu_end = rc? -1: drover_benchmark_cpu_nsec (self->broker);
    int64_t elapsed = zclock_mono () - started;
    if (rc == 0 && (cpu_start < 0 || cpu_end < 0)) {
        fprintf (stderr, "drover bench: heartbeat: cannot read the broker's CPU time\n");
        rc = -1;
    }
    if (rc == 0 && sim->refusals > refusals)
        fprintf (stderr, "drover bench: heartbeat: %" PRIu64 " heartbeats refused as not "
                 "registered during the window\n", sim->refusals - refusals);
    if (rc == 0) {
        double seconds = elapsed / 1000.0;
        drover_benchmark_figure (self, "heartbeat_cpu_pct",
                                 (cpu_end - cpu_start) / 1e9 / seconds * 100, "%");
        drover_benchmark_figure (self, "heartbeat_rate", (sim->heartbeats - heartbeats) / seconds,
                                 "msgs/s");
    }
    s_sim_destroy (&sim);
    drover_benchmark_broker_stop (self);
    return rc;
}


//  ---------------------------------------------------------------------
//  (s) fleet: ten thousand workers at the interval the broker tells them

#define S_FLEET_PER_CHILD   4000        //  simulated workers per simulator process: each
                                        //  costs two descriptors (its socket's mailbox and
                                        //  its TCP connection), and 20000 is a usual hard limit
#define S_FLEET_REPORT      250         //  msec between a simulator's reports
#define S_FLEET_REGISTER    120000      //  msec the fleet may take to register
#define S_FLEET_TICK        10          //  msec a simulator batches its timers by

//  What a simulator process reports on its pipe, whole (< PIPE_BUF)
typedef struct {
    uint64_t registered;        //  its workers registered now
    uint64_t heartbeats;        //  HEARTBEATs sent, ever
    uint64_t refusals;          //  ERROR 401s received, ever: a worker the broker forgot
    uint64_t welcomes;          //  WELCOMEs received, ever
    uint32_t interval_min;      //  shortest interval a WELCOME named, msec
    uint32_t interval_max;      //  longest
} s_fleet_report_t;

//  A simulator process: count workers from first, in a libzmq context of
//  its own (the parent's is not usable after fork), reporting on out
//  until SIGTERM. Never returns.
static void
s_fleet_child (const char *endpoint, size_t first, size_t count, int out)
{
    prctl (PR_SET_PDEATHSIG, SIGTERM);      //  never outlive the bench
    struct rlimit limit;
    if (getrlimit (RLIMIT_NOFILE, &limit) == 0) {
        limit.rlim_cur = limit.rlim_max;
        setrlimit (RLIMIT_NOFILE, &limit);
    }
    void *ctx = zmq_ctx_new ();
    zmq_ctx_set (ctx, ZMQ_MAX_SOCKETS, (int) count + 64);
    s_sim_t *sim = s_sim_new_in (ctx, first, endpoint, count, 1, false, 0, S_BROKER_HEARTBEAT);
    sim->tick = S_FLEET_TICK;
    int64_t report_at = 0;
    while (true) {
        int64_t now = zclock_mono ();
        bool ending = s_sim_poll (sim, now + S_FLEET_REPORT) == -1;
        now = zclock_mono ();
        if (now >= report_at || ending) {
            s_fleet_report_t report = { sim->registered, sim->heartbeats, sim->refusals,
                                        sim->welcomes, sim->interval_min, sim->interval_max };
            if (write (out, &report, sizeof report) != (ssize_t) sizeof report)
                ending = true;  //  the bench is gone
            report_at = now + S_FLEET_REPORT;
        }
        if (ending)
            break;
    }
    _exit (0);                  //  the sockets die with the process
}

//  The fleet: simulator processes, their pipes and their last reports
typedef struct {
    size_t count;               //  simulator processes
    pid_t pids [16];            //  each one's pid
    int fds [16];               //  the read end of each one's pipe, -1 closed
    s_fleet_report_t last [16]; //  each one's last report
    s_fleet_report_t sum;       //  their sum (min and max over all)
} s_fleet_t;

//  Read what the simulators reported, waiting until msec mono until at
//  most for the first report; then sum them
static void
s_fleet_read (s_fleet_t *self, int64_t until)
{
    struct pollfd items [16];
    for (size_t index = 0; index < self->count; index++)
        items [index] = (struct pollfd) { .fd = self->fds [index], .events = POLLIN };
    int64_t now = zclock_mono ();
    if (poll (items, self->count, until > now? (int) (until - now): 0) > 0)
        for (size_t index = 0; index < self->count; index++) {
            if (!(items [index].revents & (POLLIN | POLLHUP)))
                continue;
            s_fleet_report_t report;
            ssize_t got;
            while ((got = read (self->fds [index], &report, sizeof report)) == sizeof report)
                self->last [index] = report;
        }
    memset (&self->sum, 0, sizeof self->sum);
    for (size_t index = 0; index < self->count; index++) {
        s_fleet_report_t *last = &self->last [index];
        self->sum.registered += last->registered;
        self->sum.heartbeats += last->heartbeats;
        self->sum.refusals += last->refusals;
        self->sum.welcomes += last->welcomes;
        if (last->welcomes && (!self->sum.interval_min || last->interval_min < self->sum.interval_min))
            self->sum.interval_min = last->interval_min;
        if (last->interval_max > self->sum.interval_max)
            self->sum.interval_max = last->interval_max;
    }
}

//  Stop the simulators and reap them
static void
s_fleet_stop (s_fleet_t *self)
{
    for (size_t index = 0; index < self->count; index++)
        kill (self->pids [index], SIGTERM);
    for (size_t index = 0; index < self->count; index++) {
        drover_benchmark_reap (self->pids [index]);
        close (self->fds [index]);
    }
    self->count = 0;
}

//  Start the simulators of count workers against endpoint. Returns 0, or -1.
static int
s_fleet_start (s_fleet_t *self, const char *endpoint, size_t count)
{
    fflush (stdout);
    fflush (stderr);
    for (size_t first = 0; first < count && self->count < 16; first += S_FLEET_PER_CHILD) {
        size_t some = count - first < S_FLEET_PER_CHILD? count - first: S_FLEET_PER_CHILD;
        int pipes [2];
        if (pipe (pipes) == -1)
            return -1;
        fcntl (pipes [0], F_SETFD, FD_CLOEXEC);
        fcntl (pipes [1], F_SETFD, FD_CLOEXEC);
        pid_t pid = fork ();
        if (pid == -1) {
            close (pipes [0]);
            close (pipes [1]);
            return -1;
        }
        if (pid == 0) {
            close (pipes [0]);
            s_fleet_child (endpoint, first, some, pipes [1]);
        }
        close (pipes [1]);
        fcntl (pipes [0], F_SETFL, O_NONBLOCK);
        self->pids [self->count] = pid;
        self->fds [self->count] = pipes [0];
        self->count++;
    }
    return self->count * S_FLEET_PER_CHILD >= count? 0: -1;
}

//  (s) the broker's CPU, % of one core, and its RSS, with opts.fleet_workers
//  simulated workers heartbeating at the interval the broker told each
//  (health/heartbeat-rate at its default), and how many it declared LOST
//  over opts.fleet_window msec (each forgotten worker's next heartbeat is
//  answered 401: none should be)
int
drover_benchmark_phase_fleet (drover_benchmark_t *self)
{
    size_t count = (size_t) self->opts.fleet_workers;
    char max_workers [64];
    snprintf (max_workers, sizeof max_workers, "health/max-workers=%zu", count + 100);
    const char *settings [] = { max_workers, NULL };
    s_fleet_t fleet = { .count = 0 };
    int rc = drover_benchmark_broker_start (self, settings);
    int64_t begun = zclock_mono ();
    if (rc == 0 && s_fleet_start (&fleet, self->endpoint, count)) {
        fprintf (stderr, "drover bench: fleet: cannot start the simulators: %s\n",
                 strerror (errno));
        rc = -1;
    }
    //  Every worker registered, then one longest interval for the aftermath
    int64_t deadline = begun + S_FLEET_REGISTER;
    while (rc == 0 && fleet.sum.registered < count) {
        if (zclock_mono () >= deadline || zsys_interrupted) {
            fprintf (stderr, "drover bench: fleet: %" PRIu64 " of %zu simulated workers "
                     "registered\n", fleet.sum.registered, count);
            rc = -1;
        }
        s_fleet_read (&fleet, zclock_mono () + S_FLEET_REPORT);
        drover_benchmark_progress (self, "fleet", (long long) fleet.sum.registered,
                                   (long long) count, false);
    }
    int64_t registered = zclock_mono () - begun;
    int64_t settled = zclock_mono () + fleet.sum.interval_max;
    while (rc == 0 && zclock_mono () < settled && !zsys_interrupted)
        s_fleet_read (&fleet, settled);
    int64_t cpu_start = rc? -1: drover_benchmark_cpu_nsec (self->broker);
    int64_t started = zclock_mono ();
    s_fleet_report_t before = fleet.sum;
    deadline = started + self->opts.fleet_window;
    while (rc == 0 && zclock_mono () < deadline) {
        if (zsys_interrupted)
            rc = -1;
        s_fleet_read (&fleet, deadline);
        drover_benchmark_progress (self, "fleet msec", zclock_mono () - started,
                                   self->opts.fleet_window, false);
    }
    int64_t cpu_end = rc? -1: drover_benchmark_cpu_nsec (self->broker);
    int64_t elapsed = zclock_mono () - started;
    uint64_t rss = rc? 0: drover_benchmark_broker_rss (self);
    //  The last reports, a quarter second late at most
    if (rc == 0)
        s_fleet_read (&fleet, zclock_mono () + S_FLEET_REPORT * 2);
    if (rc == 0 && (cpu_start < 0 || cpu_end < 0)) {
        fprintf (stderr, "drover bench: fleet: cannot read the broker's CPU time\n");
        rc = -1;
    }
    if (rc == 0) {
        double seconds = elapsed / 1000.0;
        drover_benchmark_figure (self, "fleet_workers", (double) fleet.sum.registered, "workers");
        drover_benchmark_figure (self, "fleet_register_ms", (double) registered, "ms");
        drover_benchmark_figure (self, "fleet_interval_min_ms", fleet.sum.interval_min, "ms");
        drover_benchmark_figure (self, "fleet_interval_max_ms", fleet.sum.interval_max, "ms");
        drover_benchmark_figure (self, "fleet_heartbeat_rate",
                                 (fleet.sum.heartbeats - before.heartbeats) / seconds, "msgs/s");
        drover_benchmark_figure (self, "fleet_cpu_pct",
                                 (cpu_end - cpu_start) / 1e9 / seconds * 100, "%");
        drover_benchmark_figure (self, "fleet_lost", (double) (fleet.sum.refusals - before.refusals),
                                 "workers");
        drover_benchmark_figure (self, "fleet_window_s", seconds, "s");
        drover_benchmark_figure (self, "fleet_broker_rss", rss / 1048576.0, "MiB");
    }
    s_fleet_stop (&fleet);
    drover_benchmark_broker_stop (self);
    return rc;
}
