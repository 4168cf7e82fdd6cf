/*  =========================================================================
    drover_benchmark_spawnfloor - the shell phase's floor, run for real:
    a bare ZeroMQ dealer handing `true` to agents that spawn it

    What a broker on ZeroMQ that did nothing but hand out tasks and take
    their results back would reach with real processes, on the same
    machine, in the same run as the shell phase. A dealer (the calling
    thread) with a ROUTER on loopback TCP holds the tasks, ids only. Agent
    threads, each with a context (and so a libzmq I/O thread) of its own and
    a DEALER, as many as the shell phase starts agents, run as many tasks
    at once as its agents do and hold one more, as a drover agent holds
    an offer ahead. Each task is `true`, spawned as the bare spawners do
    (posix_spawnp, stdio on /dev/null), watched through a pidfd in the
    agent's poll, reaped, and its result (the id) sent back. Then, as the
    floor asks:
    - hops: each result crosses that many inproc hops (a ring of relay
      threads, as a result crosses the broker's actors) before the dealer
      hands that agent its next task;
    - capture: each task's stdout and stderr go to two pipes the agent
      reads to their end once the task has ended;
    - store: the dealer hands each result to a store thread, which
      commits it to a SQLite file (WAL, synchronous FULL) in groups of
      S_GROUP_WAIT msec, off the path to the next task, as drover's store
      commits results.

    Nothing of drover: libzmq, posix_spawn, pidfds and SQLite. No cgroup.
    The agents are threads of this process, which spares the
    address-space switches separate agents pay: the floor is if anything
    above what a broker of separate agents could reach.
    =========================================================================
*/

#ifndef _GNU_SOURCE
#   define _GNU_SOURCE              //  pipe2
#endif
#include "drover_cli.h"
#include "drover_benchmark.h"
#include <poll.h>
#include <pthread.h>
#include <spawn.h>
#include <sqlite3.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define S_PROCS_MAX     64          //  tasks one agent thread runs at once, at most
#define S_AGENTS_MAX    64          //  agent threads at most
#define S_HOPS_MAX      16          //  inproc hops a result crosses, at most
#define S_TIMEOUT       10000       //  msec the dealer or an agent waits for a message
#define S_CREDIT        0           //  the result id that only says "one more task"
#define S_AHEAD         1           //  tasks an agent holds beyond its free procs
#define S_GROUP_WAIT    4           //  msec between two commits of the store, at least
                                    //  (drover's store groups results the same way)
#define S_STORE         "inproc://drover-bench-floor-store"

extern char **environ;

//  One agent thread: its context, its DEALER and what it runs
typedef struct {
    void *context;                  //  its own, so its own I/O thread
    void *socket;                   //  DEALER connected to the dealer
    size_t procs;                   //  tasks it runs at once
    bool capture;                   //  each task's stdout and stderr on pipes
    long long failed;               //  spawns that failed or did not exit 0
    int rc;                         //  0, or -1 if a send or receive failed
} s_agent_t;

//  A task the agent runs: its id, its process, the pidfd watched and the
//  read ends of its output pipes
typedef struct {
    uint64_t id;
    pid_t pid;
    int pidfd;                      //  -1: the slot is free
    int output [2];                 //  stdout's and stderr's read ends, or -1
} s_slot_t;

//  Send one task id (or result id) on socket; 0 or -1
static int
s_send_id (void *socket, uint64_t id)
{
    return zmq_send (socket, &id, sizeof id, 0) == (int) sizeof id? 0: -1;
}

//  Set actions to start a child with stdin, stdout and stderr on /dev/null
void
drover_benchmark_null_stdio (posix_spawn_file_actions_t *actions)
{
    posix_spawn_file_actions_init (actions);
    posix_spawn_file_actions_addopen (actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen (actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen (actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
}

//  Read an output pipe to its end and close it
static void
s_drain (int *fd)
{
    char buffer [4096];
    if (*fd < 0)
        return;
    while (read (*fd, buffer, sizeof buffer) > 0)
        ;
    close (*fd);
    *fd = -1;
}

//  Spawn `true` for task id into slot, with stdin on /dev/null and, with
//  capture, stdout and stderr on pipes (else on /dev/null as in actions);
//  a failure counts and is sent as done
static int
s_agent_start (s_agent_t *self, s_slot_t *slot, uint64_t id,
               posix_spawn_file_actions_t *actions)
{
    char *argv [] = { "true", NULL };
    slot->id = id;
    slot->output [0] = slot->output [1] = -1;
    int pipes [2][2] = { { -1, -1 }, { -1, -1 } };
    posix_spawn_file_actions_t piped;
    bool ready = true;
    if (self->capture) {
        ready = pipe2 (pipes [0], O_CLOEXEC) == 0 && pipe2 (pipes [1], O_CLOEXEC) == 0;
        posix_spawn_file_actions_init (&piped);
        posix_spawn_file_actions_addopen (&piped, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_adddup2 (&piped, pipes [0][1], STDOUT_FILENO);
        posix_spawn_file_actions_adddup2 (&piped, pipes [1][1], STDERR_FILENO);
    }
    bool spawned = ready && posix_spawnp (&slot->pid, argv [0], self->capture? &piped: actions,
                                          NULL, argv, environ) == 0;
    if (self->capture)
        posix_spawn_file_actions_destroy (&piped);
    for (size_t stream = 0; stream < 2; stream++) {
        if (pipes [stream][1] >= 0)
            close (pipes [stream][1]);
        slot->output [stream] = pipes [stream][0];
    }
    if (spawned) {
        slot->pidfd = (int) syscall (SYS_pidfd_open, slot->pid, 0);
        if (slot->pidfd >= 0)
            return 0;
        waitpid (slot->pid, NULL, 0);
    }
    s_drain (&slot->output [0]);
    s_drain (&slot->output [1]);
    self->failed++;
    slot->pidfd = -1;
    return s_send_id (self->socket, id);
}

//  Reap the slot's process once its pidfd says it ended, read its output
//  to the end, send its result
static int
s_agent_reap (s_agent_t *self, s_slot_t *slot)
{
    int status = 0;
    if (waitpid (slot->pid, &status, 0) != slot->pid || !WIFEXITED (status)
    ||  WEXITSTATUS (status) != 0)
        self->failed++;
    s_drain (&slot->output [0]);
    s_drain (&slot->output [1]);
    close (slot->pidfd);
    slot->pidfd = -1;
    return s_send_id (self->socket, slot->id);
}

//  The agent's loop: ask for procs + S_AHEAD tasks, then run each task
//  given, starting held ones as procs free, until its context is shut
//  down (or nothing came for S_TIMEOUT)
static void *
s_agent (void *args)
{
    s_agent_t *self = (s_agent_t *) args;
    posix_spawn_file_actions_t actions;
    drover_benchmark_null_stdio (&actions);
    s_slot_t slots [S_PROCS_MAX];
    uint64_t held [S_AHEAD + S_PROCS_MAX];
    size_t nheld = 0;
    for (size_t index = 0; index < self->procs; index++)
        slots [index].pidfd = -1;
    for (size_t index = 0; index < self->procs + S_AHEAD && self->rc == 0; index++)
        self->rc = s_send_id (self->socket, S_CREDIT);
    while (self->rc == 0) {
        zmq_pollitem_t items [1 + S_PROCS_MAX] = { { self->socket, 0, ZMQ_POLLIN, 0 } };
        size_t map [S_PROCS_MAX], nitems = 1;
        for (size_t index = 0; index < self->procs; index++)
            if (slots [index].pidfd >= 0) {
                items [nitems] = (zmq_pollitem_t) { NULL, slots [index].pidfd, ZMQ_POLLIN, 0 };
                map [nitems++ - 1] = index;
            }
        if (zmq_poll (items, (int) nitems, S_TIMEOUT) <= 0)
            break;                      //  shut down, or the dealer is gone
        for (size_t item = 1; item < nitems && self->rc == 0; item++)
            if (items [item].revents & ZMQ_POLLIN)
                self->rc = s_agent_reap (self, &slots [map [item - 1]]);
        uint64_t id;
        while (self->rc == 0 && (items [0].revents & ZMQ_POLLIN)
           &&  zmq_recv (self->socket, &id, sizeof id, ZMQ_DONTWAIT) == (int) sizeof id) {
            if (nheld < self->procs + S_AHEAD)
                held [nheld++] = id;
            else
                self->rc = -1;          //  more than it asked for
        }
        for (size_t index = 0; index < self->procs && nheld && self->rc == 0; index++)
            if (slots [index].pidfd < 0) {
                uint64_t next = held [0];
                memmove (held, held + 1, --nheld * sizeof held [0]);
                self->rc = s_agent_start (self, &slots [index], next, &actions);
            }
    }
    posix_spawn_file_actions_destroy (&actions);
    return NULL;
}

//  A relay of the ring of hops: forwards what comes in to the next, until
//  its context is shut down
typedef struct {
    void *in;
    void *out;
} s_relay_t;

//  Forward in to out until the context ends
static void *
s_relay (void *args)
{
    s_relay_t *self = (s_relay_t *) args;
    zmq_proxy (self->in, self->out, NULL);
    return NULL;
}

//  The ring a result crosses: hops PAIR links, the first from the dealer,
//  the last back to it, with hops - 1 relay threads between
typedef struct {
    void *context;
    void *links [2 * S_HOPS_MAX];   //  each hop's sending end, then its receiving end
    s_relay_t relays [S_HOPS_MAX];
    pthread_t threads [S_HOPS_MAX];
    size_t hops;
    size_t started;                 //  relay threads started
} s_ring_t;

//  Make the ring; 0 or -1
static int
s_ring_start (s_ring_t *self, size_t hops)
{
    self->context = zmq_ctx_new ();
    self->hops = hops;
    for (size_t hop = 0; hop < hops; hop++) {
        char endpoint [64];
        snprintf (endpoint, sizeof endpoint, "inproc://drover-bench-ring-%zu", hop);
        self->links [2 * hop] = zmq_socket (self->context, ZMQ_PAIR);
        self->links [2 * hop + 1] = zmq_socket (self->context, ZMQ_PAIR);
        if (zmq_bind (self->links [2 * hop + 1], endpoint)
        ||  zmq_connect (self->links [2 * hop], endpoint))
            return -1;
    }
    //  Relay r takes hop r's receiving end to hop r + 1's sending end
    for (size_t relay = 0; relay + 1 < hops; relay++) {
        self->relays [relay] = (s_relay_t) { self->links [2 * relay + 1],
                                             self->links [2 * relay + 2] };
        if (pthread_create (&self->threads [relay], NULL, s_relay, &self->relays [relay]))
            return -1;
        self->started++;
    }
    return 0;
}

//  Stop the relays and close the ring
static void
s_ring_stop (s_ring_t *self)
{
    if (!self->context)
        return;
    zmq_ctx_shutdown (self->context);
    for (size_t relay = 0; relay < self->started; relay++)
        pthread_join (self->threads [relay], NULL);
    for (size_t link = 0; link < 2 * self->hops; link++)
        if (self->links [link]) {
            int linger = 0;
            zmq_setsockopt (self->links [link], ZMQ_LINGER, &linger, sizeof linger);
            zmq_close (self->links [link]);
        }
    zmq_ctx_term (self->context);
}

//  Move one message (all its frames) from one socket to another; 0 or -1
static int
s_pass (void *from, void *to)
{
    int more = 1;
    while (more) {
        zmq_msg_t frame;
        zmq_msg_init (&frame);
        if (zmq_msg_recv (&frame, from, 0) < 0) {
            zmq_msg_close (&frame);
            return -1;
        }
        more = zmq_msg_more (&frame);
        if (zmq_msg_send (&frame, to, more? ZMQ_SNDMORE: 0) < 0) {
            zmq_msg_close (&frame);
            return -1;
        }
    }
    return 0;
}

//  The store thread: its SQLite file, its end of the dealer's pipe
typedef struct {
    sqlite3 *db;
    sqlite3_stmt *insert;           //  one result's row
    void *pipe;                     //  PAIR, results from the dealer, id 0 to stop
    uint64_t commits;               //  groups committed
    int rc;                         //  0, or -1 if a statement or a receive failed
} s_store_t;

//  Run one statement of the store's; 0 or -1
static int
s_store_exec (s_store_t *self, const char *sql)
{
    return sqlite3_exec (self->db, sql, NULL, NULL, NULL) == SQLITE_OK? 0: -1;
}

//  Commit the open group and begin the next; 0 or -1
static int
s_store_commit (s_store_t *self)
{
    self->commits++;
    return s_store_exec (self, "COMMIT") || s_store_exec (self, "BEGIN")? -1: 0;
}

//  Write each result the dealer sends as a row, until id 0. As drover's
//  store holds its pipe unread while tasks run: once a result comes, it
//  sleeps until S_GROUP_WAIT after the last commit (what comes meanwhile
//  would wait for that commit anyway), then writes all that came and
//  commits them at once, waking once a group, not once a result.
static void *
s_store (void *args)
{
    s_store_t *self = (s_store_t *) args;
    int64_t committed_at = zclock_mono ();
    bool stop = false;
    self->rc = s_store_exec (self, "BEGIN");
    while (self->rc == 0 && !stop) {
        zmq_pollitem_t item = { self->pipe, 0, ZMQ_POLLIN, 0 };
        if (zmq_poll (&item, 1, S_TIMEOUT) <= 0) {
            self->rc = -1;              //  shut down, or nothing for S_TIMEOUT
            break;
        }
        int64_t hold = committed_at + S_GROUP_WAIT - zclock_mono ();
        if (hold > 0)
            zclock_sleep ((int) hold);
        size_t pending = 0;
        uint64_t id;
        while (self->rc == 0 && !stop
           &&  zmq_recv (self->pipe, &id, sizeof id, ZMQ_DONTWAIT) == (int) sizeof id) {
            if (id == 0) {
                stop = true;
                break;
            }
            sqlite3_bind_int64 (self->insert, 1, (sqlite3_int64) id);
            if (sqlite3_step (self->insert) != SQLITE_DONE)
                self->rc = -1;
            sqlite3_reset (self->insert);
            pending++;
        }
        if (self->rc == 0 && pending) {
            self->rc = s_store_commit (self);
            committed_at = zclock_mono ();
        }
    }
    return NULL;
}

//  Open the store's file in a fresh directory under /tmp (as the bench's
//  brokers keep their state), as drover's SQLite store opens its own; 0
//  or -1. dir gets the directory's path.
static int
s_store_open (s_store_t *self, char *dir, size_t dir_size)
{
    snprintf (dir, dir_size, "/tmp/drover-bench-floor-XXXXXX");
    if (!mkdtemp (dir))
        return -1;
    char path [128];
    snprintf (path, sizeof path, "%s/floor.db", dir);
    if (sqlite3_open (path, &self->db) != SQLITE_OK
    ||  s_store_exec (self, "PRAGMA page_size = 4096; PRAGMA journal_mode = WAL;"
                            "PRAGMA synchronous = FULL; PRAGMA locking_mode = EXCLUSIVE;"
                            "CREATE TABLE results (id INTEGER PRIMARY KEY, status INTEGER)")
    ||  sqlite3_prepare_v2 (self->db, "INSERT INTO results VALUES (?1, 0)", -1,
                            &self->insert, NULL) != SQLITE_OK)
        return -1;
    return 0;
}

//  Close the store's file and remove its directory
static void
s_store_close (s_store_t *self, const char *dir)
{
    sqlite3_finalize (self->insert);
    sqlite3_close (self->db);
    if (!*dir)
        return;
    const char *suffixes [] = { "", "-wal", "-shm" };
    for (size_t index = 0; index < 3; index++) {
        char path [160];
        snprintf (path, sizeof path, "%s/floor.db%s", dir, suffixes [index]);
        unlink (path);
    }
    rmdir (dir);
}

//  What the dealer keeps while it runs
typedef struct {
    void *router;
    void *store;                    //  PAIR to the store thread, or NULL
    uint64_t next;                  //  next task id to hand out, from 1
    uint64_t tasks;                 //  tasks to hand out in all
    uint64_t done;                  //  results back
} s_dealer_t;

//  Take one message an agent sent (routing id, task id) from socket: count
//  a result, hand that agent the next task if any is left; 0 or -1
static int
s_dealer_take (s_dealer_t *self, void *socket)
{
    byte routing [256];
    uint64_t id;
    int size = zmq_recv (socket, routing, sizeof routing, 0);
    if (size <= 0 || size > (int) sizeof routing
    ||  zmq_recv (socket, &id, sizeof id, 0) != (int) sizeof id)
        return -1;
    if (id != S_CREDIT) {
        self->done++;
        if (self->store && s_send_id (self->store, id))
            return -1;
    }
    if (self->next > self->tasks)
        return 0;
    if (zmq_send (self->router, routing, (size_t) size, ZMQ_SNDMORE) != size
    ||  s_send_id (self->router, self->next) != 0)
        return -1;
    self->next++;
    return 0;
}

//  Hand out tasks until every result is back; with a ring, each message
//  from an agent goes round it first. 0 or -1
static int
s_dealer_run (s_dealer_t *self, s_ring_t *ring)
{
    void *back = ring->hops? ring->links [2 * ring->hops - 1]: NULL;
    while (self->done < self->tasks) {
        zmq_pollitem_t items [2] = { { self->router, 0, ZMQ_POLLIN, 0 },
                                     { back, 0, ZMQ_POLLIN, 0 } };
        if (zmq_poll (items, back? 2: 1, S_TIMEOUT) <= 0)
            return -1;
        if ((items [0].revents & ZMQ_POLLIN)
        &&  (back? s_pass (self->router, ring->links [0]): s_dealer_take (self, self->router)))
            return -1;
        if (back && (items [1].revents & ZMQ_POLLIN) && s_dealer_take (self, back))
            return -1;
    }
    return 0;
}

//  Run tasks `true` tasks through a bare ZeroMQ dealer and agents agent
//  threads of procs each, as floor says. Returns tasks/s and sets
//  *cpu_per_task (usec, this process and its children), or -1.
double
drover_benchmark_spawn_floor (size_t agents, size_t procs, long long tasks,
                              const drover_benchmark_floor_t *floor, double *cpu_per_task)
{
    size_t hops = floor->hops;
    if (agents < 1 || agents > S_AGENTS_MAX || procs < 1 || procs > S_PROCS_MAX
    ||  hops == 1 || hops > S_HOPS_MAX || tasks < 1)
        return -1;
    void *context = zmq_ctx_new ();
    s_dealer_t dealer = { zmq_socket (context, ZMQ_ROUTER), NULL, 1, (uint64_t) tasks, 0 };
    s_ring_t ring = { 0 };
    s_store_t store = { 0 };
    char store_dir [64] = "";
    pthread_t store_thread;
    bool store_started = false;
    s_agent_t shares [S_AGENTS_MAX] = { { 0 } };
    pthread_t threads [S_AGENTS_MAX];
    size_t started = 0;
    char endpoint [256] = "";
    size_t size = sizeof endpoint;
    int linger = 0;
    zmq_setsockopt (dealer.router, ZMQ_LINGER, &linger, sizeof linger);
    int rc = zmq_bind (dealer.router, "tcp://127.0.0.1:*") == 0
          && zmq_getsockopt (dealer.router, ZMQ_LAST_ENDPOINT, endpoint, &size) == 0
          && (hops == 0 || s_ring_start (&ring, hops) == 0)? 0: -1;
    if (rc == 0 && floor->store) {
        dealer.store = zmq_socket (context, ZMQ_PAIR);
        store.pipe = zmq_socket (context, ZMQ_PAIR);
        zmq_setsockopt (dealer.store, ZMQ_LINGER, &linger, sizeof linger);
        zmq_setsockopt (store.pipe, ZMQ_LINGER, &linger, sizeof linger);
        rc = s_store_open (&store, store_dir, sizeof store_dir) == 0
          && zmq_bind (store.pipe, S_STORE) == 0 && zmq_connect (dealer.store, S_STORE) == 0
          && pthread_create (&store_thread, NULL, s_store, &store) == 0? 0: -1;
        store_started = rc == 0;
    }
    for (size_t index = 0; rc == 0 && index < agents; index++) {
        s_agent_t *agent = &shares [index];
        agent->context = zmq_ctx_new ();
        agent->socket = zmq_socket (agent->context, ZMQ_DEALER);
        agent->procs = procs;
        agent->capture = floor->capture;
        zmq_setsockopt (agent->socket, ZMQ_LINGER, &linger, sizeof linger);
        if (zmq_connect (agent->socket, endpoint)
        ||  pthread_create (&threads [index], NULL, s_agent, agent))
            rc = -1;
        else
            started++;
    }
    int64_t cpu_start = drover_benchmark_own_cpu_usecs ();
    int64_t wall_start = zclock_usecs ();
    if (rc == 0)
        rc = s_dealer_run (&dealer, &ring);
    int64_t elapsed = zclock_usecs () - wall_start;
    //  Every result is back, so every task reaped: the agents wait idle
    //  in their poll, which their contexts' shutdown ends. The store
    //  commits what it holds when told to stop.
    for (size_t index = 0; index < started; index++)
        zmq_ctx_shutdown (shares [index].context);
    long long failed = rc? 1: 0;
    for (size_t index = 0; index < started; index++) {
        pthread_join (threads [index], NULL);
        failed += shares [index].failed + (shares [index].rc? 1: 0);
    }
    if (store_started) {
        if (s_send_id (dealer.store, 0))
            zmq_ctx_shutdown (context);     //  the store's receive ends, it stops
        pthread_join (store_thread, NULL);
        failed += store.rc? 1: 0;
    }
    *cpu_per_task = (double) (drover_benchmark_own_cpu_usecs () - cpu_start) / (double) tasks;
    for (size_t index = 0; index < agents; index++)
        if (shares [index].context) {
            zmq_close (shares [index].socket);
            zmq_ctx_term (shares [index].context);
        }
    s_ring_stop (&ring);
    if (floor->store) {
        zmq_close (dealer.store);
        zmq_close (store.pipe);
        s_store_close (&store, store_dir);
    }
    zmq_close (dealer.router);
    zmq_ctx_term (context);
    if (failed) {
        fprintf (stderr, "drover bench: shell: the ZeroMQ floor failed (%lld tasks)\n", failed);
        return -1;
    }
    return tasks * 1e6 / (elapsed > 0? elapsed: 1);
}
