/*  =========================================================================
    drover_benchmark_failover - `drover bench` phase (m): failover of two
    brokers electing a leader through etcd, their state in PostgreSQL

    Needs --postgres (URI, or auto: a server started for the run) and
    --etcd (URL, or auto: a single-member etcd started for the run on free
    loopback ports with tests/etcd_server.sh, or the script named by
    $DROVER_ETCD_SERVER); without both the phase says it is skipped.

    Each of --failover-rounds rounds starts two `drover broker` children
    (b1, b2: --etcd, --state in a fresh schema of the database, an etcd
    prefix of their own, --lease-ttl) and one `drover worker` given both
    endpoints; waits until one leads (answers a TASK LIST with a TASK
    TABLE, not a REDIRECT); has it accept S_TASKS short tasks; kills it
    with SIGKILL; and from that instant submits to the other, again after
    each REDIRECT, until it answers TASK ACCEPTED: that interval is the
    round's failover time. Then it waits (TASK WAIT) at the new leader on
    every task either leader acknowledged: one that gets no TASK DONE, or
    a DONE saying the broker does not know it, is lost. Every process and
    the round's schema are gone before the next round; the servers started
    for the run are stopped at the end, whatever happened.

    Figures: failover_median_ms, failover_min_ms, failover_max_ms,
    failover_lost (acknowledged tasks lost over all rounds: must be 0),
    failover_lease_ttl_ms (the brokers' etcd session TTL, which the
    failover time follows).
    =========================================================================
*/

#include "drover_cli.h"
#include "drover_benchmark.h"
#include <sys/wait.h>

#ifndef DROVER_ETCD_SERVER_SCRIPT
#   define DROVER_ETCD_SERVER_SCRIPT "tests/etcd_server.sh"
#endif

#define S_BROKERS       2           //  brokers each round
#define S_TASKS         20          //  tasks the leader acknowledges before its kill
#define S_PROCS         "4"         //  procs the worker offers
#define S_LEAD_MAX      30000       //  msec the brokers of a round may take to elect one
#define S_REPLY_MAX     5000        //  msec for an answer from a serving broker
#define S_FAILOVER_MAX  120000      //  msec after the kill before the round gives up
#define S_WAIT_MAX      60000       //  msec the new leader has to end every task
#define S_POLL_MSEC     200         //  msec each receive waits, between interrupt checks
#define S_RETRY_MSEC    10          //  msec between submits to a standby

//  The phase: the etcd server, the round under way, what was measured
typedef struct {
    drover_benchmark_t *bench;  //  the run (options, the PostgreSQL database)
    char etcd [128];            //  etcd's client URL
    char etcd_dir [64];         //  the etcd started for the run (auto), or ""
    char lease_ttl [16];        //  msec, the brokers' --lease-ttl, as text
    uint32_t seq;               //  the last request's seq
    //  The round under way
    char endpoints [S_BROKERS][64];     //  each broker's ROUTER, tcp://127.0.0.1:port
    char events [S_BROKERS][64];        //  each broker's PUB
    char endpoint_list [S_BROKERS * 64];    //  both ROUTERs, comma-separated
    pid_t brokers [S_BROKERS];  //  broker children, 0 once reaped
    pid_t worker;               //  the worker child, or 0
    uint64_t tasks [S_TASKS + 1];   //  ids acknowledged by either leader
    size_t ntasks;              //  entries in tasks
    char state_id [DROVER_STATE_ID_SIZE + 1];   //  from the first ACCEPTED
    size_t redirects;           //  answers from the standby before it served
    //  Over all rounds
    int64_t *samples;           //  usec from the kill to the first ACCEPTED, by round
    long long lost;             //  acknowledged tasks lost
} s_failover_t;


//  ---------------------------------------------------------------------
//  The etcd server

//  Return the script that starts an etcd server
static const char *
s_etcd_script (void)
{
    const char *script = getenv ("DROVER_ETCD_SERVER");
    return script && *script? script: DROVER_ETCD_SERVER_SCRIPT;
}

//  Reach the etcd of --etcd, starting one for the run with "auto".
//  Returns 0, or -1 (said why).
static int
s_etcd_open (s_failover_t *self)
{
    const char *etcd = self->bench->opts.etcd;
    if (!streq (etcd, "auto")) {
        snprintf (self->etcd, sizeof self->etcd, "%s", etcd);
        return 0;
    }
    snprintf (self->etcd_dir, sizeof self->etcd_dir, "/tmp/drover-bench-etcd-XXXXXX");
    if (!mkdtemp (self->etcd_dir)) {
        fprintf (stderr, "drover bench: cannot make a directory: %s\n", strerror (errno));
        self->etcd_dir [0] = 0;
        return -1;
    }
    int client_port = drover_benchmark_free_port ();
    int peer_port = drover_benchmark_free_port ();
    char *command = zsys_sprintf ("/bin/sh '%s' start '%s' %d %d", s_etcd_script (),
                                  self->etcd_dir, client_port, peer_port);
    FILE *output = client_port && peer_port && client_port != peer_port?
                   popen (command, "r"): NULL;
    zstr_free (&command);
    if (!output || !fgets (self->etcd, sizeof self->etcd, output))
        self->etcd [0] = 0;
    int status = output? pclose (output): -1;
    self->etcd [strcspn (self->etcd, "\n")] = 0;
    if (status != 0 || !self->etcd [0]) {
        fprintf (stderr, "drover bench: --etcd auto: %s could not start etcd (install it: "
                 "apt-get install etcd-server etcd-client)\n", s_etcd_script ());
        return -1;
    }
    return 0;
}

//  Stop the etcd started for the run, if any, and remove its directory
static void
s_etcd_close (s_failover_t *self)
{
    if (!self->etcd_dir [0])
        return;
    char *command = zsys_sprintf ("/bin/sh '%s' stop '%s'", s_etcd_script (), self->etcd_dir);
    if (system (command) != 0)
        fprintf (stderr, "drover bench: could not stop the etcd server in %s\n",
                 self->etcd_dir);
    zstr_free (&command);
    self->etcd_dir [0] = 0;
}


//  ---------------------------------------------------------------------
//  Talking to one broker on a raw DEALER: the bench must see REDIRECTs,
//  which the client library follows by itself

//  A DEALER connected to broker index, receives timing out after
//  S_POLL_MSEC
static zsock_t *
s_dealer (s_failover_t *self, int index)
{
    zsock_t *dealer = zsock_new_dealer (self->endpoints [index]);
    assert (dealer);
    zsock_set_linger (dealer, 0);
    zsock_set_rcvtimeo (dealer, S_POLL_MSEC);
    drover_msg_say_level (dealer);      //  so that a standby says REDIRECT (§12.2)
    return dealer;
}

//  Send msg with a fresh seq and return the answer carrying it, waiting
//  up to timeout msec (other messages are dropped); NULL if none came
static drover_msg_t *
s_request (s_failover_t *self, zsock_t *dealer, drover_msg_t *msg, int timeout)
{
    msg->seq = ++self->seq;
    if (drover_msg_send (msg, dealer))
        return NULL;
    int64_t deadline = zclock_mono () + timeout;
    drover_msg_t *reply = drover_msg_new (0);
    while (zclock_mono () < deadline && !zsys_interrupted) {
        int rc = drover_msg_recv (reply, dealer);
        if (rc == 0 && reply->seq == msg->seq)
            return reply;
    }
    drover_msg_destroy (&reply);
    return NULL;
}

//  The TASK SUBMIT of every round: a short sleep, so that tasks are still
//  queued and running when the leader dies
static drover_msg_t *
s_submit_msg (void)
{
    const char *argv [] = { "sleep", "0.2" };
    drover_msg_t *submit = drover_submit_msg (drover_submit_new (2, argv));
    assert (submit);
    return submit;
}

//  Keep the task id and state id of an ACCEPTED
static void
s_acknowledged (s_failover_t *self, drover_msg_t *accepted)
{
    assert (self->ntasks < S_TASKS + 1);
    self->tasks [self->ntasks++] = accepted->task;
    if (!self->state_id [0])
        snprintf (self->state_id, sizeof self->state_id, "%s", accepted->state_id);
}


//  ---------------------------------------------------------------------
//  One round

//  Start broker index of the round: --etcd, --state, its name, the lease
//  TTL and the round's etcd prefix, then the operator's --set settings.
//  Returns 0, or -1.
static int
s_broker_start (s_failover_t *self, int index, const char *state, const char *prefix)
{
    char name [16];
    snprintf (name, sizeof name, "b%d", index + 1);
    char *argv [20 + 2 * DROVER_BENCHMARK_SETS_MAX] = {
        "drover", "broker", "--endpoint", self->endpoints [index],
        "--events", self->events [index], "--state", (char *) state, "--etcd", self->etcd,
        "--name", name, "--lease-ttl", self->lease_ttl, "--set", (char *) prefix };
    size_t argc = 16;
    for (size_t set = 0; self->bench->opts.sets [set]; set++) {
        argv [argc++] = "--set";
        argv [argc++] = (char *) self->bench->opts.sets [set];
    }
    argv [argc] = NULL;
    self->brokers [index] = drover_benchmark_spawn (self->bench, argv);
    if (self->brokers [index] == -1) {
        self->brokers [index] = 0;
        return -1;
    }
    return 0;
}

//  Pick the round's ports and start both brokers and the worker on the
//  state URI. Returns 0, or -1 (what started is in self).
static int
s_round_start (s_failover_t *self, int round, const char *state)
{
    self->endpoint_list [0] = 0;
    for (int index = 0; index < S_BROKERS; index++) {
        int port = drover_benchmark_free_port ();
        int events_port = drover_benchmark_free_port ();
        if (!port || !events_port || port == events_port) {
            fprintf (stderr, "drover bench: no free port on 127.0.0.1\n");
            return -1;
        }
        snprintf (self->endpoints [index], sizeof self->endpoints [index],
                  "tcp://127.0.0.1:%d", port);
        snprintf (self->events [index], sizeof self->events [index], "tcp://127.0.0.1:%d",
                  events_port);
        size_t used = strlen (self->endpoint_list);
        snprintf (self->endpoint_list + used, sizeof self->endpoint_list - used, "%s%s",
                  index? ",": "", self->endpoints [index]);
    }
    //  A prefix per round: no round sees an earlier one's brokers in etcd
    char prefix [96];
    snprintf (prefix, sizeof prefix, "ha/prefix=/drover-bench-%d-%d", (int) getpid (), round);
    for (int index = 0; index < S_BROKERS; index++)
        if (s_broker_start (self, index, state, prefix))
            return -1;
    char *argv [] = { "drover", "worker", "--broker", self->endpoint_list, "--procs", S_PROCS,
                      "--id", "bench-failover", NULL };
    self->worker = drover_benchmark_spawn (self->bench, argv);
    if (self->worker == -1) {
        self->worker = 0;
        return -1;
    }
    return 0;
}

//  Stop the round's worker and brokers, whatever state they are in
static void
s_round_stop (s_failover_t *self)
{
    drover_benchmark_reap (self->worker);
    self->worker = 0;
    for (int index = 0; index < S_BROKERS; index++) {
        drover_benchmark_reap (self->brokers [index]);
        self->brokers [index] = 0;
    }
}

//  True if broker index answers a TASK LIST itself (a TASK TABLE, not a
//  REDIRECT) within timeout msec
static bool
s_serves (s_failover_t *self, int index, int timeout)
{
    zsock_t *dealer = s_dealer (self, index);
    drover_msg_t *list = drover_msg_new (DROVER_MSG_TASK_LIST);
    drover_msg_t *reply = s_request (self, dealer, list, timeout);
    bool serves = reply && reply->id == DROVER_MSG_TASK_TABLE;
    drover_msg_destroy (&reply);
    drover_msg_destroy (&list);
    zsock_destroy (&dealer);
    return serves;
}

//  Return the index of the broker that leads, waiting up to S_LEAD_MAX
//  msec, or -1 (said why)
static int
s_await_leader (s_failover_t *self)
{
    int64_t deadline = zclock_mono () + S_LEAD_MAX;
    while (zclock_mono () < deadline && !zsys_interrupted) {
        for (int index = 0; index < S_BROKERS; index++) {
            if (waitpid (self->brokers [index], NULL, WNOHANG) == self->brokers [index]) {
                self->brokers [index] = 0;      //  reaped: it exited by itself
                fprintf (stderr, "drover bench: failover: broker b%d exited at start "
                         "(-v shows its log)\n", index + 1);
                return -1;
            }
            if (s_serves (self, index, S_POLL_MSEC))
                return index;
        }
    }
    fprintf (stderr, "drover bench: failover: no broker led within %d msec\n", S_LEAD_MAX);
    return -1;
}

//  Wait until the leader lists the worker, then have it accept S_TASKS
//  tasks. Returns 0, or -1 (said why).
static int
s_load_leader (s_failover_t *self, int leader)
{
    zsock_t *dealer = s_dealer (self, leader);
    int64_t deadline = zclock_mono () + S_LEAD_MAX;
    size_t workers = 0;
    while (!workers && zclock_mono () < deadline && !zsys_interrupted) {
        drover_msg_t *list = drover_msg_new (DROVER_MSG_WORKER_LIST);
        drover_msg_t *table = s_request (self, dealer, list, S_REPLY_MAX);
        workers = table && table->id == DROVER_MSG_WORKER_TABLE? table->nrows: 0;
        drover_msg_destroy (&table);
        drover_msg_destroy (&list);
        if (!workers)
            zclock_sleep (20);      //  polling the broker's table, not settling
    }
    drover_msg_t *submit = s_submit_msg ();
    while (workers && self->ntasks < S_TASKS) {
        drover_msg_t *reply = s_request (self, dealer, submit, S_REPLY_MAX);
        if (!reply || reply->id != DROVER_MSG_TASK_ACCEPTED) {
            drover_msg_destroy (&reply);
            break;
        }
        s_acknowledged (self, reply);
        drover_msg_destroy (&reply);
    }
    drover_msg_destroy (&submit);
    zsock_destroy (&dealer);
    if (!workers)
        fprintf (stderr, "drover bench: failover: the worker did not register\n");
    else
    if (self->ntasks < S_TASKS)
        fprintf (stderr, "drover bench: failover: the leader accepted %zu of %d tasks\n",
                 self->ntasks, S_TASKS);
    return self->ntasks == S_TASKS? 0: -1;
}

//  Kill the leader with SIGKILL, then submit to the standby (again after
//  each REDIRECT; one submit outstanding at a time) until it accepts one.
//  Returns the usec from the kill to that ACCEPTED, or -1 (said why).
static int64_t
s_fail_over (s_failover_t *self, int leader)
{
    int standby = 1 - leader;
    zsock_t *dealer = s_dealer (self, standby);
    drover_msg_t *submit = s_submit_msg ();
    int64_t killed_at = zclock_usecs ();
    kill (self->brokers [leader], SIGKILL);
    waitpid (self->brokers [leader], NULL, 0);
    self->brokers [leader] = 0;
    int64_t deadline = zclock_mono () + S_FAILOVER_MAX;
    int64_t elapsed = -1;
    self->redirects = 0;
    submit->seq = ++self->seq;
    int rc = drover_msg_send (submit, dealer);
    drover_msg_t *reply = drover_msg_new (0);
    while (rc == 0 && zclock_mono () < deadline && !zsys_interrupted) {
        //  Nothing within S_POLL_MSEC: a standby taking over reads no
        //  peer before it has loaded the state; the submit stays queued
        if (drover_msg_recv (reply, dealer) || reply->seq != submit->seq)
            continue;
        if (reply->id == DROVER_MSG_TASK_ACCEPTED) {
            elapsed = zclock_usecs () - killed_at;
            s_acknowledged (self, reply);
            break;
        }
        self->redirects++;          //  REDIRECT (or an ERROR while it takes over)
        zclock_sleep (S_RETRY_MSEC);    //  paces the submits while it stands by
        submit->seq = ++self->seq;
        rc = drover_msg_send (submit, dealer);
    }
    drover_msg_destroy (&reply);
    drover_msg_destroy (&submit);
    zsock_destroy (&dealer);
    if (elapsed < 0 && !zsys_interrupted)
        fprintf (stderr, "drover bench: failover: b%d accepted no task within %d msec of the "
                 "kill\n", standby + 1, S_FAILOVER_MAX);
    return elapsed;
}

//  Wait at the new leader on every acknowledged task; return how many got
//  no TASK DONE, or one saying the broker does not know them (all of
//  them if it refused the wait)
static long long
s_count_lost (s_failover_t *self, int leader)
{
    bool done [S_TASKS + 1] = { false };
    size_t dones = 0;
    zsock_t *dealer = s_dealer (self, leader);
    drover_msg_t *wait = drover_msg_new (DROVER_MSG_TASK_WAIT);
    wait->tasks = (uint64_t *) zmalloc (sizeof (uint64_t) * self->ntasks);
    memcpy (wait->tasks, self->tasks, sizeof (uint64_t) * self->ntasks);
    wait->ntasks = (uint32_t) self->ntasks;
    snprintf (wait->state_id, sizeof wait->state_id, "%s", self->state_id);
    wait->seq = ++self->seq;
    bool refused = drover_msg_send (wait, dealer) != 0;
    drover_msg_t *msg = drover_msg_new (0);
    int64_t deadline = zclock_mono () + S_WAIT_MAX;
    while (!refused && dones < self->ntasks && zclock_mono () < deadline && !zsys_interrupted) {
        if (drover_msg_recv (msg, dealer) || msg->seq != wait->seq)
            continue;
        if (msg->id == DROVER_MSG_ERROR) {
            fprintf (stderr, "drover bench: failover: the new leader refused the TASK WAIT: "
                     "%u %s\n", msg->code, msg->reason? msg->reason: "");
            refused = true;
        }
        for (size_t index = 0; msg->id == DROVER_MSG_TASK_DONE && index < self->ntasks; index++)
            if (self->tasks [index] == msg->task && !done [index]) {
                done [index] = msg->state != DROVER_TASK_UNKNOWN;
                dones++;
            }
    }
    long long lost = 0;
    for (size_t index = 0; index < self->ntasks && !zsys_interrupted; index++)
        if (!done [index]) {
            fprintf (stderr, "drover bench: failover: task %" PRIu64 " acknowledged, then "
                     "lost\n", self->tasks [index]);
            lost++;
        }
    drover_msg_destroy (&msg);
    drover_msg_destroy (&wait);
    zsock_destroy (&dealer);
    return lost;
}

//  Run one round on a fresh schema, stopping everything after. Returns the
//  failover time in usec (adding the round's lost tasks to self->lost),
//  or -1.
static int64_t
s_round (s_failover_t *self, int round)
{
    self->ntasks = 0;
    self->state_id [0] = 0;
    char *state = drover_benchmark_pg_fresh (self->bench);
    if (!state)
        return -1;
    int64_t elapsed = -1;
    int leader = s_round_start (self, round, state) == 0? s_await_leader (self): -1;
    if (leader >= 0 && s_load_leader (self, leader) == 0)
        elapsed = s_fail_over (self, leader);
    if (elapsed >= 0)
        self->lost += s_count_lost (self, 1 - leader);
    s_round_stop (self);
    drover_benchmark_pg_drop (self->bench);
    zstr_free (&state);
    return elapsed;
}


//  ---------------------------------------------------------------------
//  The phase

//  The median of count sorted samples
static double
s_median (const int64_t *sorted, size_t count)
{
    return count % 2? sorted [count / 2]: (sorted [count / 2 - 1] + sorted [count / 2]) / 2.0;
}

//  (m) failover time and tasks lost over opts.failover_rounds rounds
int
drover_benchmark_phase_failover (drover_benchmark_t *bench)
{
    if (!bench->opts.postgres || !bench->opts.etcd) {
        fprintf (stderr, "drover bench: failover: skipped (it needs --postgres URI|auto and "
                 "--etcd URL|auto)\n");
        return 0;
    }
    //  SIGINT and SIGTERM caught (CZMQ's handler) before any server
    //  starts, so that an interrupted run still stops what it started
    zsys_init ();
    s_failover_t self = { .bench = bench };
    size_t rounds = (size_t) bench->opts.failover_rounds;
    snprintf (self.lease_ttl, sizeof self.lease_ttl, "%lld", bench->opts.lease_ttl);
    self.samples = (int64_t *) zmalloc (rounds * sizeof (int64_t));
    int rc = drover_benchmark_pg_open (bench) || s_etcd_open (&self)? -1: 0;
    for (size_t round = 0; rc == 0 && round < rounds; round++) {
        self.samples [round] = s_round (&self, (int) round + 1);
        if (self.samples [round] < 0 || zsys_interrupted)
            rc = -1;
        else
            fprintf (stderr, "drover bench: failover round %zu/%zu: %.0f ms (%zu redirects "
                     "before, %zu tasks acknowledged)\n", round + 1, rounds,
                     self.samples [round] / 1000.0, self.redirects, self.ntasks);
    }
    s_etcd_close (&self);
    drover_benchmark_pg_close (bench);
    if (rc == 0) {
        qsort (self.samples, rounds, sizeof (int64_t), drover_benchmark_compare_usec);
        drover_benchmark_figure (bench, "failover_median_ms",
                                 s_median (self.samples, rounds) / 1000, "msec");
        drover_benchmark_figure (bench, "failover_min_ms", self.samples [0] / 1000.0, "msec");
        drover_benchmark_figure (bench, "failover_max_ms", self.samples [rounds - 1] / 1000.0,
                                 "msec");
        drover_benchmark_figure (bench, "failover_lost", (double) self.lost, "tasks");
        drover_benchmark_figure (bench, "failover_lease_ttl_ms", (double) bench->opts.lease_ttl,
                                 "msec");
    }
    if (rc == 0 && self.lost) {
        fprintf (stderr, "drover bench: failover: %lld acknowledged tasks lost\n", self.lost);
        rc = -1;
    }
    free (self.samples);
    return rc;
}
