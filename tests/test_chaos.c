/*  =========================================================================
    test_chaos - workers SIGKILLed and restarted at random during a batch,
    every result counted at the wire: each task ends exactly once

    A real broker and four real `drover worker` agents on loopback run a
    batch of real `sh -c` tasks that sleep a random little and print their
    own marker and the agent that ran them. Meanwhile the test SIGKILLs a
    random agent every few hundred msec (at most two are down at once) and
    starts it again, same id, once the broker has declared it LOST; or it
    SIGSTOPs the agent a little past lost-after, so that it is declared
    LOST while its tasks still run, and comes back with results of attempts
    that were run again meanwhile (they must be fenced as stale); the
    strikes stop for the last S_CALM_TAIL tasks, which then finish. The
    test speaks the protocol itself on raw DEALERs, not through the client
    library (which would hide a duplicate): every task is submitted with
    NOTIFY on one connection and waited on from another, and must get
    exactly one TASK DONE on each, SUCCEEDED, with its own marker printed
    by the agent the DONE names, for the attempt the task table calls its
    last. Kills must have requeued some tasks, or the test proved nothing.

    The chaos schedule (kill times, victims, task sleeps) comes from a
    seeded PRNG; the seed is printed, and DROVER_CHAOS_SEED=N replays it.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include <inttypes.h>
#include <signal.h>
#include <sys/wait.h>

#define S_TASKS         400     //  tasks in the batch
#define S_WORKERS       4       //  agents, 2 procs each
#define S_DOWN_MAX      2       //  agents killed and not yet back, at most
#define S_WAIT_BATCH    50      //  task ids per TASK WAIT
#define S_LOST_AFTER    700     //  msec of silence before the broker says LOST
#define S_RUN_MAX       120000  //  msec the whole batch may take, then it failed
#define S_STALL_MAX     20000   //  msec without a new DONE while some are missing: a stall
#define S_LOST_MAX      10000   //  msec a killed agent may wait for its LOST
#define S_CALM_TAIL     20      //  tasks left without both DONEs when the strikes stop

//  What the test has seen of one task
typedef struct {
    uint64_t id;                //  task id (ACCEPTED), 0 until then
    uint32_t wait_seq;          //  seq of the TASK WAIT naming it, 0 until sent
    int notified;               //  TASK DONEs with seq 0 on the submitter
    int waited;                 //  TASK DONEs with the WAIT's seq on the waiter
    uint32_t attempt;           //  attempt of the first DONE
    char worker [DROVER_ID_MAX + 1];    //  worker of the first DONE
} s_task_t;

//  One agent's slot in the cluster
typedef struct {
    char id [16];               //  worker id, kept across restarts
    bool down;                  //  killed, not yet started again
    int64_t killed_at;          //  msec monotonic of the kill
    int64_t resume_at;          //  msec monotonic of its SIGCONT if stopped, else 0
    bool registered;            //  worker.up heard since the last worker.lost
    int lives;                  //  incarnations started
} s_slot_t;

typedef struct {
    uint64_t seed;              //  what the PRNG started from
    uint64_t rng;               //  PRNG state (splitmix64)
    testutil_cluster_t *cluster;    //  broker and agents
    zsock_t *submitter;         //  DEALER: SUBMIT with NOTIFY, hears ACCEPTED and DONE
    zsock_t *waiter;            //  DEALER: TASK WAIT, hears OK and DONE
    zsock_t *sub;               //  SUB: worker.* and task.requeued events
    s_task_t tasks [S_TASKS];   //  by submit index (SUBMIT seq - 1)
    zhashx_t *index_of;         //  task id as text -> index + 1
    s_slot_t slots [S_WORKERS]; //  by cluster slot
    int accepted;               //  ACCEPTED seen
    int waits_sent;             //  ids named in TASK WAITs so far
    int waits_ok;               //  TASK WAITs answered OK
    int done;                   //  tasks with both DONEs in
    int64_t progress_at;        //  msec monotonic of the last DONE
    int kills;                  //  SIGKILLs sent
    int pauses;                 //  SIGSTOPs sent
    int restarts;               //  agents started again
    int lost_events;            //  worker.lost heard
    int requeued_events;        //  task.requeued heard
} s_chaos_t;

//  Next number of the chaos schedule (splitmix64)
static uint64_t
s_rand (s_chaos_t *self)
{
    uint64_t z = (self->rng += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

//  The seed: DROVER_CHAOS_SEED if set (to replay a run), else fresh
static uint64_t
s_seed (void)
{
    const char *text = getenv ("DROVER_CHAOS_SEED");
    if (text && *text)
        return strtoull (text, NULL, 0);
    return (uint64_t) zclock_time () * 1000003ULL ^ (uint64_t) getpid ();
}

//  Fail the test, saying the seed that replays it
static void
s_fail (s_chaos_t *self, const char *what)
{
    fprintf (stderr, "chaos: FAILED seed=%" PRIu64 " (DROVER_CHAOS_SEED=%" PRIu64 " replays)"
             " kills=%d restarts=%d pauses=%d: %s\n", self->seed, self->seed, self->kills,
             self->restarts, self->pauses, what);
    fail_msg ("%s", what);
}

//  Start the agent of a slot (again), telling its tasks who it is
static void
s_start_agent (s_chaos_t *self, int slot)
{
    const char *flags [] = { "--workdir", self->cluster->logdir, "--pass-env", "CHAOS_WORKER",
                             NULL };
    setenv ("CHAOS_WORKER", self->slots [slot].id, 1);
    testutil_cluster_add_worker (self->cluster, slot, self->slots [slot].id, 2, flags);
    unsetenv ("CHAOS_WORKER");
    self->slots [slot].down = false;
    self->slots [slot].registered = false;
    self->slots [slot].lives++;
}

//  Pipeline every SUBMIT, with NOTIFY; seq = index + 1. Each task sleeps a
//  little, then prints its marker and the agent it ran on
static void
s_submit_all (s_chaos_t *self)
{
    for (int index = 0; index < S_TASKS; index++) {
        char script [128];
        //  Most are short; one in twelve runs long enough to be still running
        //  its next attempt when a stopped agent comes back with the last
        int msec = (int) (s_rand (self) % 12 == 0? 500 + s_rand (self) % 1000: s_rand (self) % 150);
        snprintf (script, sizeof script, "sleep %d.%03d; echo \"chaos %d on $CHAOS_WORKER\"",
                  msec / 1000, msec % 1000, index);
        drover_msg_t *submit = testutil_submit_msg (script, (int) (s_rand (self) % 3), 1,
                                                    DROVER_SUBMIT_NOTIFY);
        submit->retries = 0;    //  a task's own failure is a defect here
        submit->seq = index + 1;
        testutil_send (self->submitter, &submit);
    }
}

//  Wait from the waiter for the accepted ids not yet waited on
static void
s_send_wait (s_chaos_t *self)
{
    int count = self->accepted - self->waits_sent;
    drover_msg_t *wait = drover_msg_new (DROVER_MSG_TASK_WAIT);
    wait->seq = 1000 + self->waits_sent;        //  never a SUBMIT's seq
    wait->tasks = (uint64_t *) zmalloc (sizeof (uint64_t) * count);
    for (int index = 0; index < S_TASKS && (int) wait->ntasks < count; index++)
        if (self->tasks [index].id && !self->tasks [index].wait_seq) {
            self->tasks [index].wait_seq = wait->seq;
            wait->tasks [wait->ntasks++] = self->tasks [index].id;
        }
    assert_int_equal (wait->ntasks, count);
    self->waits_sent += count;
    testutil_send (self->waiter, &wait);
}

//  Return the task a DONE is about, failing on one we never submitted
static s_task_t *
s_task_of (s_chaos_t *self, drover_msg_t *done)
{
    char key [24];
    snprintf (key, sizeof key, "%" PRIu64, done->task);
    uintptr_t index = (uintptr_t) zhashx_lookup (self->index_of, key);
    if (index == 0) {
        char what [128];
        snprintf (what, sizeof what, "TASK DONE for task %" PRIu64 " we never had accepted",
                  done->task);
        s_fail (self, what);
    }
    return &self->tasks [index - 1];
}

//  Check one TASK DONE: the task's first on this channel, SUCCEEDED, with
//  its own marker printed by the worker it names, the same on both channels
static void
s_check_done (s_chaos_t *self, s_task_t *task, drover_msg_t *done, int *count, const char *via)
{
    int index = (int) (task - self->tasks);
    char what [512], expected [96];
    snprintf (expected, sizeof expected, "chaos %d on %s\n", index, done->worker);
    (*count)++;
    if (*count > 1)
        snprintf (what, sizeof what, "task %" PRIu64 " (index %d) got %d TASK DONEs via %s, "
                  "this one attempt %u on %s", task->id, index, *count, via, done->attempt,
                  done->worker);
    else
    if (done->state != DROVER_TASK_SUCCEEDED || done->end != DROVER_END_SUCCEEDED)
        snprintf (what, sizeof what, "task %" PRIu64 " (index %d) ended %s/%s via %s: attempt %u "
                  "on '%s', reason '%s'", task->id, index, drover_task_state_name (done->state),
                  drover_end_name (done->end), via, done->attempt, done->worker,
                  done->reason? done->reason: "");
    else
    if (done->out_size != strlen (expected) || memcmp (done->out, expected, done->out_size))
        snprintf (what, sizeof what, "task %" PRIu64 " (index %d) attempt %u on %s via %s "
                  "printed '%.*s', not its own marker '%s'", task->id, index, done->attempt,
                  done->worker, via, (int) done->out_size, (char *) done->out, expected);
    else
    if (task->attempt && (task->attempt != done->attempt || strneq (task->worker, done->worker)))
        snprintf (what, sizeof what, "task %" PRIu64 " (index %d): DONE via %s says attempt %u on "
                  "%s, the other said attempt %u on %s", task->id, index, via, done->attempt,
                  done->worker, task->attempt, task->worker);
    else {
        if (!task->attempt) {
            task->attempt = done->attempt;
            snprintf (task->worker, sizeof task->worker, "%s", done->worker);
        }
        else
            self->done++;       //  both channels in
        self->progress_at = zclock_mono ();
        return;
    }
    s_fail (self, what);
}

//  What the submitter hears: ACCEPTED, then the NOTIFY DONE (seq 0)
static void
s_submitter_input (s_chaos_t *self)
{
    drover_msg_t *msg = testutil_recv_msg (self->submitter, 0);
    if (!msg)
        return;
    if (msg->id == DROVER_MSG_TASK_ACCEPTED && msg->seq >= 1 && msg->seq <= S_TASKS
    &&  self->tasks [msg->seq - 1].id == 0) {
        self->tasks [msg->seq - 1].id = msg->task;
        char key [24];
        snprintf (key, sizeof key, "%" PRIu64, msg->task);
        assert_int_equal (zhashx_insert (self->index_of, key, (void *) (uintptr_t) msg->seq), 0);
        if (++self->accepted % S_WAIT_BATCH == 0 || self->accepted == S_TASKS)
            s_send_wait (self);
    }
    else
    if (msg->id == DROVER_MSG_TASK_DONE && msg->seq == 0) {
        s_task_t *task = s_task_of (self, msg);
        s_check_done (self, task, msg, &task->notified, "NOTIFY");
    }
    else {
        char what [160];
        snprintf (what, sizeof what, "submitter got %s seq=%u code=%u reason '%s'",
                  drover_msg_name (msg->id), msg->seq, msg->code, msg->reason? msg->reason: "");
        s_fail (self, what);
    }
    drover_msg_destroy (&msg);
}

//  What the waiter hears: OK to each WAIT, and a DONE with its seq per task
static void
s_waiter_input (s_chaos_t *self)
{
    drover_msg_t *msg = testutil_recv_msg (self->waiter, 0);
    if (!msg)
        return;
    if (msg->id == DROVER_MSG_OK && msg->seq >= 1000)
        self->waits_ok++;
    else
    if (msg->id == DROVER_MSG_TASK_DONE && msg->seq == s_task_of (self, msg)->wait_seq) {
        s_task_t *task = s_task_of (self, msg);
        s_check_done (self, task, msg, &task->waited, "WAIT");
    }
    else {
        char what [160];
        snprintf (what, sizeof what, "waiter got %s seq=%u task=%" PRIu64 " code=%u reason '%s'",
                  drover_msg_name (msg->id), msg->seq, msg->task, msg->code,
                  msg->reason? msg->reason: "");
        s_fail (self, what);
    }
    drover_msg_destroy (&msg);
}

//  An event: a killed agent declared LOST is started again
static void
s_event_input (s_chaos_t *self)
{
    drover_event_t event;
    if (!testutil_next_event (self->sub, &event, 0))
        return;
    if (streq (event.topic, "task.requeued"))
        self->requeued_events++;
    else
    if (streq (event.topic, "worker.up") || streq (event.topic, "worker.lost")) {
        bool up = streq (event.topic, "worker.up");
        self->lost_events += !up;
        for (int slot = 0; slot < S_WORKERS; slot++) {
            s_slot_t *agent = &self->slots [slot];
            if (streq (agent->id, event.worker))
                agent->registered = up;
            if (agent->down && !up && streq (agent->id, event.worker)) {
                s_start_agent (self, slot);
                self->restarts++;
            }
        }
    }
}

//  The chaos: SIGKILL one running agent at random (or, one time in three,
//  SIGSTOP it a little past lost-after: LOST, it comes back while the long
//  tasks it ran run again elsewhere), unless enough are down or stopped. Only
//  a registered agent is struck, so a killed one is sure to be said LOST
static void
s_strike (s_chaos_t *self, int64_t now)
{
    int up [S_WORKERS], ups = 0;
    for (int slot = 0; slot < S_WORKERS; slot++)
        if (!self->slots [slot].down && !self->slots [slot].resume_at
        &&  self->slots [slot].registered)
            up [ups++] = slot;
    if (ups == 0 || S_WORKERS - ups >= S_DOWN_MAX)
        return;
    int slot = up [s_rand (self) % ups];
    pid_t pid = self->cluster->workers [slot];
    if (s_rand (self) % 3 == 0) {
        assert_int_equal (kill (pid, SIGSTOP), 0);
        self->slots [slot].resume_at = now + S_LOST_AFTER + 100 + (int64_t) (s_rand (self) % 800);
        self->pauses++;
        return;
    }
    assert_int_equal (kill (pid, SIGKILL), 0);
    int status = testutil_wait_exit (pid, 5000);
    assert_true (status != -1 && WIFSIGNALED (status));
    self->cluster->workers [slot] = 0;
    self->slots [slot].down = true;
    self->slots [slot].killed_at = zclock_mono ();
    self->kills++;
}

//  SIGCONT the stopped agents whose pause is over; return the msec to the
//  next such resume, or to limit if sooner
static int64_t
s_resume_due (s_chaos_t *self, int64_t now, int64_t limit)
{
    for (int slot = 0; slot < S_WORKERS; slot++) {
        s_slot_t *agent = &self->slots [slot];
        if (agent->resume_at && agent->resume_at <= now) {
            assert_int_equal (kill (self->cluster->workers [slot], SIGCONT), 0);
            agent->resume_at = 0;
        }
        if (agent->resume_at && agent->resume_at < limit)
            limit = agent->resume_at;
    }
    return limit;
}

//  Agents the test did not kill must not have ended, and a killed one
//  must be declared LOST in good time
static void
s_check_agents (s_chaos_t *self, int64_t now)
{
    for (int slot = 0; slot < S_WORKERS; slot++) {
        char what [256];
        int status;
        s_slot_t *agent = &self->slots [slot];
        if (agent->down && now - agent->killed_at > S_LOST_MAX) {
            snprintf (what, sizeof what, "agent %s killed %" PRId64 " msec ago was never "
                      "declared LOST", agent->id, now - agent->killed_at);
            s_fail (self, what);
        }
        if (!agent->down && waitpid (self->cluster->workers [slot], &status, WNOHANG) > 0) {
            self->cluster->workers [slot] = 0;
            snprintf (what, sizeof what, "agent %s (life %d) exited by itself, status 0x%x: "
                      "see %s", agent->id, agent->lives, status,
                      testutil_cluster_log (self->cluster, agent->id));
            s_fail (self, what);
        }
    }
}

//  Say which tasks are still missing a DONE, and where the broker has them
//  (a task whose attempt keeps climbing is rerun, not lost), then fail
static void
s_fail_missing (s_chaos_t *self, int64_t now)
{
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_LIST);
    request->limit = DROVER_ROWS_MAX;
    request->state = 255;
    drover_msg_t *table = testutil_request (self->waiter, &request, 5000);
    int missing = 0;
    for (int index = 0; index < S_TASKS; index++) {
        s_task_t *task = &self->tasks [index];
        if ((task->notified != 1 || task->waited != 1) && missing++ < 20) {
            fprintf (stderr, "chaos: task %" PRIu64 " (index %d) notified=%d waited=%d",
                     task->id, index, task->notified, task->waited);
            for (uint32_t row = 0; table && row < table->nrows; row++)
                if (table->task_rows [row].task == task->id)
                    fprintf (stderr, ", table: %s attempt %u on '%s'",
                             drover_task_state_name (table->task_rows [row].state),
                             table->task_rows [row].attempt, table->task_rows [row].worker);
            fprintf (stderr, "\n");
        }
    }
    drover_msg_destroy (&table);
    char what [160];
    snprintf (what, sizeof what, "%d of %d tasks lack a DONE, none came for %" PRId64 " msec "
              "(accepted=%d, waits ok=%d)", missing, S_TASKS, now - self->progress_at,
              self->accepted, self->waits_ok);
    s_fail (self, what);
}

//  After the batch, the task table is the barrier: any late duplicate DONE
//  went out before its reply. Each task's last attempt is the one reported.
static void
s_check_table (s_chaos_t *self, zsock_t *dealer, bool rows)
{
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_LIST);
    request->limit = rows? DROVER_ROWS_MAX: 0;
    request->state = 255;
    drover_msg_t *table = testutil_request (dealer, &request, 10000);
    assert_non_null (table);
    assert_int_equal (table->id, DROVER_MSG_TASK_TABLE);
    assert_int_equal (table->counts [DROVER_TASK_SUCCEEDED], S_TASKS);
    for (uint32_t row = 0; rows && row < table->nrows; row++) {
        drover_task_row_t *entry = &table->task_rows [row];
        char key [24], what [256];
        snprintf (key, sizeof key, "%" PRIu64, entry->task);
        uintptr_t index = (uintptr_t) zhashx_lookup (self->index_of, key);
        assert_true (index > 0);
        s_task_t *task = &self->tasks [index - 1];
        if (entry->attempt != task->attempt || strneq (entry->worker, task->worker)) {
            snprintf (what, sizeof what, "task %" PRIu64 ": DONE said attempt %u on %s, the "
                      "table says attempt %u on %s", task->id, task->attempt, task->worker,
                      entry->attempt, entry->worker);
            s_fail (self, what);
        }
    }
    drover_msg_destroy (&table);
    drover_msg_t *late = testutil_recv_msg (dealer, 0);
    if (late) {
        char what [128];
        snprintf (what, sizeof what, "a late %s for task %" PRIu64 " after the batch",
                  drover_msg_name (late->id), late->task);
        s_fail (self, what);
    }
}

//  The batch under chaos: exactly one DONE per task per channel, all
//  SUCCEEDED with their own marker, and the kills did requeue tasks
static void
test_chaos_each_task_done_once (void **state)
{
    s_chaos_t *self = (s_chaos_t *) zmalloc (sizeof (s_chaos_t));
    self->seed = s_seed ();
    self->rng = self->seed;
    print_message ("chaos: seed=%" PRIu64 " (DROVER_CHAOS_SEED=%" PRIu64 " replays)\n",
                   self->seed, self->seed);
    self->index_of = zhashx_new ();
    char lost_after [48];
    snprintf (lost_after, sizeof lost_after, "health/lost-after=%d", S_LOST_AFTER);
    const char *flags [] = { "--set", "health/heartbeat=100", "--set", lost_after,
                             "--set", "assign/lost-retries=1000", NULL };
    self->cluster = testutil_cluster_new (flags);
    for (int slot = 0; slot < S_WORKERS; slot++) {
        snprintf (self->slots [slot].id, sizeof self->slots [slot].id, "chaos-%d", slot);
        s_start_agent (self, slot);
    }
    self->submitter = testutil_dealer (self->cluster);
    self->waiter = testutil_dealer (self->cluster);
    zsock_set_sndhwm (self->submitter, 0);
    self->sub = zsock_new_sub (self->cluster->events, "worker.");
    assert_non_null (self->sub);
    zsock_set_subscribe (self->sub, "task.requeued");
    assert_true (testutil_wait_workers (self->waiter, S_WORKERS, 10000));
    for (int slot = 0; slot < S_WORKERS; slot++)
        self->slots [slot].registered = true;
    assert_true (testutil_await_subscription (self->sub, self->waiter, self->slots [0].id));
    drover_event_t event;
    while (testutil_next_event (self->sub, &event, 0))
        ;                       //  the hold and resume that proved it

    int64_t started = zclock_mono ();
    self->progress_at = started;
    s_submit_all (self);
    zpoller_t *poller = zpoller_new (self->submitter, self->waiter, self->sub, NULL);
    int64_t next_strike = started + 200 + (int64_t) (s_rand (self) % 400);
    while (self->done < S_TASKS) {
        int64_t now = zclock_mono ();
        if (now - started > S_RUN_MAX || now - self->progress_at > S_STALL_MAX)
            s_fail_missing (self, now);
        //  The strikes stop for the last few tasks: a strike every 100-400 msec
        //  over four agents can cut a lone 1.5 s task down a dozen times in a
        //  row, and the stall check would take that bad luck for a lost task
        if (now >= next_strike) {
            if (S_TASKS - self->done > S_CALM_TAIL)
                s_strike (self, now);
            next_strike = now + 100 + (int64_t) (s_rand (self) % 300);
        }
        int64_t wake = s_resume_due (self, now, next_strike);
        s_check_agents (self, now);
        void *which = zpoller_wait (poller, (int) (wake - now));
        if (which == self->submitter)
            s_submitter_input (self);
        else
        if (which == self->waiter)
            s_waiter_input (self);
        else
        if (which == self->sub)
            s_event_input (self);
    }
    int64_t took = zclock_mono () - started;
    zpoller_destroy (&poller);
    s_check_table (self, self->waiter, true);
    s_check_table (self, self->submitter, false);

    int rerun = 0;
    for (int index = 0; index < S_TASKS; index++)
        rerun += self->tasks [index].attempt > 1;
    int stale = 0;
    for (int slot = 0; slot < S_WORKERS; slot++)
        stale += testutil_count_lines_with (testutil_cluster_log (self->cluster,
                                            self->slots [slot].id), "no longer current");
    print_message ("chaos: %d tasks in %" PRId64 " msec, %d kills, %d restarts, %d pauses, "
                   "%d worker.lost, %d task.requeued, %d tasks ended on attempt > 1, "
                   "%d stale results refused\n", S_TASKS, took, self->kills, self->restarts,
                   self->pauses, self->lost_events, self->requeued_events, rerun, stale);
    if (self->kills < 5 || rerun == 0 || self->requeued_events == 0)
        s_fail (self, "the chaos requeued nothing: the run proved nothing");

    zsock_destroy (&self->sub);
    zsock_destroy (&self->waiter);
    zsock_destroy (&self->submitter);
    for (int slot = 0; slot < S_WORKERS; slot++)
        assert_true (self->slots [slot].down || self->cluster->workers [slot] > 0);
    testutil_cluster_destroy (&self->cluster);
    zhashx_destroy (&self->index_of);
    free (self);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_chaos_each_task_done_once),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
