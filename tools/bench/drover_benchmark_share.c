/*  =========================================================================
    drover_benchmark_share - `drover bench` phase (r): fair share

    First the scheduling queue alone (drover_schedbench, in this process):
    the cost of one assignment on a full cluster with one owner, then with
    --share-owners owners sharing --share-queued queued requests, both in
    the same run, and their ratio; then the same through the whole broker
    (phase (e)'s simulated workers), one owner and then many.

    Then a real broker (share/weights=low=1,high=3) and two real `drover
    worker` agents of two procs each. Owners low and high each queue
    enough 0.1 s tasks to keep all four procs busy for the whole window,
    low first (arrival alone would give low everything), before the agents
    start. For --share-window msec the results come back (NOTIFY); the
    procs each owner held are the workers' own run times (TASK DONE's
    duration, ending when it arrives), clipped to the first half of the
    window, while both wait. Half way, owner late (weight 1) submits: the
    msec from its first submit to the start of its first task.
    =========================================================================
*/

#include "drover_cli.h"
#include "drover_benchmark.h"
#include "drover_schedbench.h"

#define S_OWNERS        3           //  low, high, late
#define S_TASK_MSEC     100         //  each task's run time
#define S_AGENTS        2           //  agents started
#define S_AGENT_PROCS   2           //  procs each offers

static const char *s_names [S_OWNERS] = { "low", "high", "late" };

//  What the results tell, per task id (ids of a fresh broker start at 1)
typedef struct {
    uint8_t *owner_of;          //  by task id: owner index + 1, 0 not ours
    size_t ids;                 //  entries in owner_of
    int64_t window_from;        //  usec mono: the agents are there
    int64_t window_half;        //  usec mono: the end of the two owners' window
    int64_t late_submitted;     //  usec mono: the late owner's first submit
    double held [S_OWNERS];     //  usec of procs held in the first half, per owner
    int64_t late_first_start;   //  usec mono: the late owner's first task started, 0 none
    uint64_t results;           //  TASK DONEs
    uint64_t failed;            //  of them, not SUCCEEDED
} s_share_t;

//  The client's done handler: count the task's run time for its owner
static void
s_on_done (const drover_result_t *result, void *arg)
{
    s_share_t *self = (s_share_t *) arg;
    self->results++;
    if (drover_result_state (result) != DROVER_TASK_SUCCEEDED)
        self->failed++;
    uint64_t task = drover_result_task (result);
    int owner = task < self->ids? self->owner_of [task] - 1: -1;
    if (owner < 0)
        return;
    int64_t end = zclock_usecs ();
    int64_t start = end - (int64_t) drover_result_duration (result) * 1000;
    if (owner == 2) {
        if (!self->late_first_start || start < self->late_first_start)
            self->late_first_start = start;
        return;
    }
    int64_t from = start > self->window_from? start: self->window_from;
    int64_t until = end < self->window_half? end: self->window_half;
    if (until > from)
        self->held [owner] += (double) (until - from);
}

//  Submit count tasks of owner, noting their ids. Returns 0, or -1.
static int
s_submit (drover_client_t *client, s_share_t *share, int owner, long long count)
{
    char script [64];
    snprintf (script, sizeof script, "sleep %.3f", S_TASK_MSEC / 1000.0);
    const char *argv [] = { "sh", "-c", script };
    drover_submit_t *submit = drover_submit_new (3, argv);
    drover_submit_set_notify (submit, true);
    int rc = drover_submit_set_owner (submit, s_names [owner]);
    for (long long index = 0; rc == 0 && index < count; index++) {
        uint64_t task = 0;
        if (drover_client_submit (client, submit, &task) || task >= share->ids)
            rc = drover_cli_error (client, "share");
        else
            share->owner_of [task] = (uint8_t) (owner + 1);
    }
    drover_submit_destroy (&submit);
    return rc? -1: 0;
}

//  The cost of an assignment with one owner and with many, same run
static int
s_cost (drover_benchmark_t *self)
{
    uint32_t queued = (uint32_t) self->opts.share_queued;
    uint32_t owners = (uint32_t) self->opts.share_owners;
    uint32_t rounds = queued < 20000? queued: 20000;
    drover_schedbench_t one, many;
    if (drover_schedbench_run (1, queued, rounds, &one)
    ||  drover_schedbench_run (owners, queued, rounds, &many)) {
        fprintf (stderr, "drover bench: share: --share-queued must be at least --share-owners\n");
        return -1;
    }
    drover_benchmark_figure (self, "share_assign_us_1", one.usec, "usec");
    drover_benchmark_figure (self, "share_assign_us_many", many.usec, "usec");
    drover_benchmark_figure (self, "share_cost_ratio", one.usec > 0? many.usec / one.usec: 0, "x");
    drover_benchmark_figure (self, "share_spread_many", many.spread, "x");
    //  The same through the whole broker, simulated workers, same run
    if (drover_benchmark_assign_cost_owners (self, queued, 1, "share_broker_us_1")
    ||  drover_benchmark_assign_cost_owners (self, queued, owners, "share_broker_us_many"))
        return -1;
    double broker_one = self->figures [self->nfigures - 2].value;
    double broker_many = self->figures [self->nfigures - 1].value;
    drover_benchmark_figure (self, "share_broker_ratio",
                             broker_one > 0? broker_many / broker_one: 0, "x");
    return 0;
}

//  Two owners 1:3 on real agents, a third arriving half way
static int
s_split (drover_benchmark_t *self)
{
    static const char *settings [] = { "share/weights=low=1,high=3,late=1", NULL };
    if (drover_benchmark_broker_start (self, settings))
        return -1;
    int64_t window = self->opts.share_window * 1000;
    //  Enough for each owner to keep every proc busy for the whole window
    long long each = (long long) (S_AGENTS * S_AGENT_PROCS) * (window / 1000 / S_TASK_MSEC) + 8;
    s_share_t share = { 0 };
    share.ids = (size_t) (3 * each + 16);
    share.owner_of = (uint8_t *) zmalloc (share.ids);
    drover_client_t *client = drover_client_new (self->endpoint);
    drover_client_set_timeout (client, 10000);
    if (self->server_key)
        drover_client_set_keys (client, self->client_key, self->server_key);
    drover_client_set_done_handler (client, s_on_done, &share);
    int rc = s_submit (client, &share, 0, each);
    if (rc == 0)
        rc = s_submit (client, &share, 1, each);
    pid_t agents [S_AGENTS] = { 0 };
    for (int index = 0; rc == 0 && index < S_AGENTS; index++) {
        char id [32], procs [16];
        snprintf (id, sizeof id, "bench-share-%d", index + 1);
        snprintf (procs, sizeof procs, "%d", S_AGENT_PROCS);
        char *argv [] = { "drover", "worker", "--broker", self->endpoint, "--procs", procs,
                          "--id", id, NULL };
        agents [index] = drover_benchmark_spawn (self, argv);
        rc = agents [index] == -1? -1: 0;
    }
    if (rc == 0)
        rc = drover_benchmark_await_workers (self, client, S_AGENTS);
    share.window_from = zclock_usecs ();
    share.window_half = share.window_from + window / 2;
    bool late_sent = false;
    while (rc == 0 && zclock_usecs () < share.window_from + window && !zsys_interrupted) {
        if (!late_sent && zclock_usecs () >= share.window_half) {
            share.late_submitted = zclock_usecs ();
            rc = s_submit (client, &share, 2, each / 4);
            late_sent = true;
        }
        if (rc == 0 && drover_client_poll (client, 100) < 0)
            rc = drover_cli_error (client, "share");
        drover_benchmark_progress (self, "share", (zclock_usecs () - share.window_from) / 1000,
                                   self->opts.share_window, false);
    }
    drover_client_destroy (&client);
    for (int index = 0; index < S_AGENTS; index++)
        drover_benchmark_reap (agents [index]);
    drover_benchmark_broker_stop (self);
    double total = share.held [0] + share.held [1];
    if (rc == 0 && (share.failed || total <= 0 || !share.late_first_start)) {
        fprintf (stderr, "drover bench: share: %" PRIu64 " of %" PRIu64 " tasks failed, %s\n",
                 share.failed, share.results,
                 share.late_first_start? "both owners ran": "an owner never ran");
        rc = -1;
    }
    if (rc == 0) {
        drover_benchmark_figure (self, "share_low_pct", 100 * share.held [0] / total, "%");
        drover_benchmark_figure (self, "share_high_pct", 100 * share.held [1] / total, "%");
        drover_benchmark_figure (self, "share_late_first_ms",
                                 (share.late_first_start - share.late_submitted) / 1000.0, "msec");
    }
    free (share.owner_of);
    return rc;
}

//  (r) the cost of fair share, and the split it gives
int
drover_benchmark_phase_share (drover_benchmark_t *self)
{
    if (s_cost (self))
        return -1;
    return s_split (self);
}
