/*  =========================================================================
    drover_schedq_actor - the schedq actor: the queue, the workers and placements

    Keeps the scheduling queue (src/broker/sched/drover_schedq.c), which decides, and
    does the I/O around it: requests come from assign on the link, worker
    changes from the main on the pipe; after each turn that read some, one
    scheduling pass runs and its placements go out to assign on the link as
    ASSIGN records in one batch. It is also the worker
    registry that WORKER LIST reads and that WORKER ADMIN steers. What an
    operator said of a worker (hold, drain, a reason) is kept by worker id
    (src/broker/sched/drover_adminbook.c): it outlives the worker's registration,
    may be said before the worker joins, and goes to the store to outlive
    the broker. A draining worker stays connected and idle, unless the
    drain asked it to exit: then, with nothing assigned, it is told WORKER
    LEAVE, once. A worker that went stays listed a while, LOST or LEFT
    (src/broker/workers/drover_gone.c). Clients' requests (WORKER ADMIN, WORKER
    LIST, TASK EXPLAIN and TABLE) are answered in drover_schedq_actor_requests.c,
    the elastic pool's commands in drover_schedq_actor_pool.c; the three share
    drover_schedq_actor_internal.h.

    In:   CONFIGURE max-shelve(4) min-disk-free(4) max-leases(4) keep-gone(4) max-gone(4)
                    keep-admin(4)   (the last three optional; keep-admin 1: the store
                                    keeps settings, say KEEPADMIN)
          ADMIN worker(s) admin(4) flags(4) reason(s) since(8)   (from the store at
                                    start: a setting it kept)
          QUEUE task(8) priority(i) procs(4) mem(8) labels(s)   (on the link)
          TAKE lease(8) task(8) procs(4) mem(8) labels(s)       (on the link)
          DEQUEUE task(8) | FREE task(8) | RETURN lease(8)      (on the link)
          PLACED task(8) worker(s) procs(4) mem(8) labels(s)    (on the link: an
                                    attempt adopted after a restart runs there)
          SETTLED worker(s)         (on the link) assign has counted the attempts
                                    an UP listed: the worker may take work
          UP worker(s) route(f) epoch(8) procs(4) mem(8) labels(s) running(f)
          LOST worker(s) reason(s)
          PROBATION worker(s) reason(s) [until(8)] | CLEARED worker(s) why(s)
                                        (PROBATION also from assign, on the link,
                                        without until)
          STATS worker(s) stats(f)
          MSG route(f) msg(p)       WORKER ADMIN, WORKER LIST; we own msg; on the
                                    link TASK EXPLAIN (a queued task's) and TASK
                                    TABLE (its queued rows to annotate) from assign
          METRICS round(8)          answered COUNTS round values(f)
          POOLTYPES config(p)       the elastic pool's settings (a heap
                                    drover_poolconfig_t: we own it): say LOAD,
                                    and explain with its instance types
          RETIRE worker(s)          from the pool: no new work for it (not kept
                                    in the admin book); say RETIRED once it has
                                    no task (at once if it has none)
          POOLADMIN worker(s) admin(4) reason(s)    from the pool: the admin
                                    book entry for the id, as WORKER ADMIN sets it
          EVENTS on(4) | VERBOSE | $TERM
    Out:  ASSIGN task(8) worker(s)   one record per placement, a pass's in one
                                BATCH (on the link)
          REVOKE lease(8)       (on the link) give the lease back
          LEASE lease(8) worker(s) procs(4) mem(8) labels(s)   (on the link) while
                                nothing waits, an idle worker's capacity lent
          SEND route(f) payload(f) worker(s)    OK, ERROR, WORKER TABLE, WORKER LEAVE,
                                TASK EXPLANATION, TASK TABLE
          EVENT topic(s) body(f)        worker.hold, worker.drain, worker.resume
                                        (reason: the operator's)
          KEEPADMIN worker(s) admin(4) flags(4) reason(s) since(8)   to the store: a
                                    setting changed (admin RUN: forget it)
          COUNTS round(8) values(f)     workers by health and admin state, procs
                                        and memory (drover_metrics)
          LOAD report(f)        to the pool (only with POOLTYPES): the demand
                                shapes waiting and each worker's load
                                (drover_loadreport), after a turn that changed
                                something, at most every 100 ms (at once when a
                                worker came or went)
          RETIRED worker(s)     to the pool: a retired worker has no task
    =========================================================================
*/

#include "drover_schedq_actor_internal.h"

typedef drover_schedq_actor_self_t self_t;
typedef drover_schedq_actor_worker_t s_worker_t;

//  Free a worker's extras; the hash map's destructor
static void
s_worker_destroy (void **item_p)
{
    s_worker_t *worker = (s_worker_t *) *item_p;
    if (worker) {
        zframe_destroy (&worker->route);
        zstr_free (&worker->labels);
        free (worker);
        *item_p = NULL;
    }
}

//  Create the actor's state; link is the endpoint to bind for assign
static self_t *
s_self_new (zsock_t *pipe, const char *link)
{
    assert (link);              //  the link is the only way to assign
    self_t *self = (self_t *) zmalloc (sizeof (self_t));
    self->outbox = drover_outbox_new ();
    self->pipe = pipe;
    self->link = zsock_new (ZMQ_PAIR);
    assert (self->link);
    int rc = zsock_bind (self->link, "%s", link);
    assert (rc == 0);
    self->to_assign = drover_outbox_new ();
    self->poller = drover_poller_new ();
    drover_poller_add (self->poller, pipe);
    drover_poller_add (self->poller, self->link);
    self->sched = drover_schedq_new (S_MAX_SHELVE);
    drover_schedq_set_min_disk_free (self->sched, S_MIN_DISK_FREE);
    drover_schedq_set_max_leases (self->sched, S_MAX_LEASES);
    self->workers = zhashx_new ();
    zhashx_set_destructor (self->workers, s_worker_destroy);
    self->unsettled = zhashx_new ();
    self->gone = drover_gone_new (S_KEEP_GONE, S_MAX_GONE);
    self->book = drover_adminbook_new (S_MAX_ADMIN);
    self->admin_waits = drover_adminwait_new ();
    self->affinity = drover_affinity_new (DROVER_DEFAULT_AFFINITY_WAIT);
    return self;
}

//  Destroy the actor's state
static void
s_self_destroy (self_t **self_p)
{
    self_t *self = *self_p;
    if (!self)
        return;
    zhashx_destroy (&self->workers);
    zhashx_destroy (&self->unsettled);
    drover_gone_destroy (&self->gone);
    drover_adminbook_destroy (&self->book);
    drover_adminwait_destroy (&self->admin_waits);
    drover_affinity_destroy (&self->affinity);
    drover_schedq_destroy (&self->sched);
    drover_poolconfig_destroy (&self->pool);
    drover_poller_destroy (&self->poller);
    drover_outbox_destroy (&self->to_assign);
    drover_outbox_destroy (&self->outbox);
    zsock_destroy (&self->link);
    free (self);
    *self_p = NULL;
}


//  ---------------------------------------------------------------------
//  Draining

//  Say to the store what an operator's setting of a worker is now, to keep
void
drover_schedq_actor_keep_admin (self_t *self, const char *id)
{
    const drover_adminbook_entry_t *entry = drover_adminbook_lookup (self->book, id);
    if (self->keep_admin)
        drover_outbox_say (self->outbox, "ss44s8", "KEEPADMIN", id,
                       entry? entry->admin: DROVER_ADMIN_RUN, entry? entry->flags: 0,
                       entry? entry->reason: "", entry? entry->since: (uint64_t) 0);
}

//  Tell a worker drained with --exit and with nothing assigned to leave,
//  once (a drain without it keeps the worker connected and idle)
void
drover_schedq_actor_check_drained (self_t *self, const char *id)
{
    drover_schedq_view_t view;
    s_worker_t *worker = (s_worker_t *) zhashx_lookup (self->workers, id);
    if (worker && worker->retired && !worker->retired_said
    &&  drover_schedq_lookup (self->sched, id, &view) == 0 && view.tasks == 0 && !view.lease) {
        //  Retired by the pool, and idle: it may be destroyed
        drover_outbox_say (self->outbox, "ss", "RETIRED", id);
        worker->retired_said = true;
    }
    const drover_adminbook_entry_t *entry = drover_adminbook_lookup (self->book, id);
    if (!worker || worker->leave_sent || !entry || !(entry->flags & DROVER_ADMIN_EXIT)
    ||  drover_schedq_lookup (self->sched, id, &view) || view.admin != DROVER_ADMIN_DRAIN
    ||  view.tasks > 0 || view.lease)
        return;                 //  not draining to exit, or not done yet
    drover_msg_t *leave = drover_msg_new (DROVER_MSG_WORKER_LEAVE);
    snprintf (leave->worker, sizeof leave->worker, "%s", id);
    drover_actor_send (self->outbox, "schedq", worker->route, leave, id);
    drover_msg_destroy (&leave);
    worker->leave_sent = true;
    zsys_notice ("schedq: worker=%s drained, told to leave", id);
    //  Asked once: if it comes back, it stays drained, connected and idle
    drover_adminbook_clear_flags (self->book, id, DROVER_ADMIN_EXIT);
    drover_schedq_actor_keep_admin (self, id);
}


//  ---------------------------------------------------------------------
//  Workers

//  Count an UP that listed running attempts (delta 1) or assign's SETTLED
//  for one (delta -1), and hold the worker from new work while any UP is
//  not settled. The two come by different ways (the pipe, the link) and a
//  SETTLED may be read first: the count goes below zero until its UP.
static void
s_settle (self_t *self, const char *worker, intptr_t delta)
{
    intptr_t count = (intptr_t) zhashx_lookup (self->unsettled, worker) + delta;
    if (count)
        zhashx_update (self->unsettled, worker, (void *) count);
    else
        zhashx_delete (self->unsettled, worker);
    drover_schedq_set_settling (self->sched, worker, count > 0);
}

//  UP: add the worker, or update it if known (a reconnect keeps its tasks)
static void
s_handle_up (self_t *self, zmsg_t *msg)
{
    char *worker = drover_actor_pop_string (msg);
    zframe_t *route = zmsg_pop (msg);
    assert (route);
    drover_actor_pop_number (msg);   //  epoch: health fences incarnations
    uint32_t procs = (uint32_t) drover_actor_pop_number (msg);
    uint64_t mem = drover_actor_pop_number (msg);
    char *labels = drover_actor_pop_string (msg);
    //  running: assign reconciles it, says PLACED for what it adopts (after
    //  a restart) and FREE for what is gone, then SETTLED: until then the
    //  worker takes nothing, or a pass would place past its procs
    zframe_t *running = zmsg_pop (msg);
    bool listed = running && zframe_size (running) >= sizeof (drover_taskref_t);
    zframe_destroy (&running);
    uint16_t level = (uint16_t) drover_actor_pop_number (msg);
    char *release = drover_actor_pop_string (msg);
    int rc = drover_schedq_add_worker (self->sched, worker, procs, mem, labels);
    s_settle (self, worker, listed? 1: 0);
    s_worker_t *entry = (s_worker_t *) zhashx_lookup (self->workers, worker);
    if (!entry) {
        entry = (s_worker_t *) zmalloc (sizeof (s_worker_t));
        entry->since = (uint64_t) zclock_time ();
        zhashx_insert (self->workers, worker, entry);
    }
    drover_gone_remove (self->gone, worker);     //  back: its gone row goes
    //  What an operator said of it holds whatever its registrations
    const drover_adminbook_entry_t *admin = drover_adminbook_lookup (self->book, worker);
    if (admin)
        drover_schedq_set_admin (self->sched, worker, admin->admin);
    if (entry->retired)
        drover_schedq_set_admin (self->sched, worker, DROVER_ADMIN_DRAIN);
    self->load_now = true;
    zframe_destroy (&entry->route);
    entry->route = route;
    entry->level = level;
    snprintf (entry->release, sizeof entry->release, "%s", release);
    zstr_free (&release);
    zstr_free (&entry->labels);
    entry->labels = labels;
    labels = NULL;
    if (self->flags.verbose)
        zsys_debug ("schedq: worker=%s %s procs=%u mem=%" PRIu64, worker,
                    rc? "updated": "added", procs, mem);
    drover_schedq_actor_check_drained (self, worker);
    zstr_free (&labels);
    zstr_free (&worker);
}

//  PLACED task worker procs mem labels: an attempt a restarted broker
//  adopted runs there; count what it uses (a worker gone meanwhile: its
//  LOST comes, assign requeues the task)
static void
s_handle_placed (self_t *self, zmsg_t *msg)
{
    uint64_t task = drover_actor_pop_number (msg);
    char worker [DROVER_ID_MAX + 1];
    drover_actor_pop_text (msg, worker, sizeof worker);
    uint32_t procs = (uint32_t) drover_actor_pop_number (msg);
    uint64_t mem = drover_actor_pop_number (msg);
    char *labels = drover_actor_pop_string (msg);
    if (drover_schedq_place (self->sched, worker, task, procs, mem, labels) && self->flags.verbose)
        zsys_debug ("schedq: PLACED task=%" PRIu64 " worker=%s ignored", task, worker);
    zstr_free (&labels);
}

//  LOST: drop the worker (assign requeues what it had), and list it a while
//  as LOST, or LEFT if it said GOODBYE
static void
s_handle_lost (self_t *self, zmsg_t *msg)
{
    char *worker = drover_actor_pop_string (msg);
    char *reason = drover_actor_pop_string (msg);
    drover_schedq_view_t view;
    s_worker_t *entry = (s_worker_t *) zhashx_lookup (self->workers, worker);
    if (drover_schedq_lookup (self->sched, worker, &view) == 0) {
        bool left = streq (reason, "left");
        drover_gone_add (self->gone, worker, left? DROVER_WORKER_LEFT: DROVER_WORKER_LOST,
                         left && entry && entry->leave_sent? "drained, left": reason,
                         (uint64_t) zclock_time (), view.procs, view.mem,
                         entry && entry->labels? entry->labels: "");
    }
    zstr_free (&reason);
    //  Its lease went with it: an OK that waited for it is due
    drover_adminwait_answer (self->admin_waits, worker, self->outbox, "schedq");
    int had = drover_schedq_remove_worker (self->sched, worker, NULL, NULL);
    zhashx_delete (self->workers, worker);
    self->load_now = true;
    if (self->flags.verbose && had >= 0)
        zsys_debug ("schedq: worker=%s removed with tasks=%d", worker, had);
    zstr_free (&worker);
}

//  PROBATION / CLEARED: take no new work, or take it again. A PROBATION
//  from the probation actor says until when (msec since the epoch); one
//  from assign, on the link, does not: what is known stays
static void
s_handle_probation (self_t *self, zmsg_t *msg, bool probation)
{
    char *worker = drover_actor_pop_string (msg);
    if (drover_schedq_set_probation (self->sched, worker, probation) && self->flags.verbose)
        zsys_debug ("schedq: probation change for unknown worker=%s", worker);
    if (probation && zmsg_size (msg) >= 2) {
        char *reason = drover_actor_pop_string (msg);
        zstr_free (&reason);
        drover_schedq_set_probation_until (self->sched, worker, drover_actor_pop_number (msg));
    }
    zstr_free (&worker);
}

//  STATS: keep the last stats for WORKER TABLE
static void
s_handle_stats (self_t *self, zmsg_t *msg)
{
    char *worker = drover_actor_pop_string (msg);
    zframe_t *frame = zmsg_pop (msg);
    assert (frame);
    drover_stats_t stats;
    if (zframe_size (frame) == sizeof stats) {
        memcpy (&stats, zframe_data (frame), sizeof stats);
        drover_schedq_set_stats (self->sched, worker, &stats);
    }
    zframe_destroy (&frame);
    zstr_free (&worker);
}


//  ---------------------------------------------------------------------
//  Requests from assign

//  A new attempt of a task is coming before the old one's FREE: the old
//  one is over, give back what it held
static void
s_end_old_attempt (self_t *self, uint64_t task)
{
    const char *holder = drover_schedq_assigned (self->sched, task);
    if (holder) {
        zsys_warning ("schedq: task=%" PRIu64 " placed again while assigned to worker=%s, "
                      "freeing", task, holder);
        holder = drover_schedq_free (self->sched, task);
        drover_schedq_actor_check_drained (self, holder);
    }
}

//  QUEUE: a request to place
static void
s_queue (self_t *self, uint64_t task, int32_t priority, uint32_t procs, uint64_t mem,
         const char *labels)
{
    s_end_old_attempt (self, task);
    if (drover_schedq_push (self->sched, task, priority, procs, mem, labels))
        zsys_warning ("schedq: task=%" PRIu64 " not queued (procs=%u, or queued already)",
                      task, procs);
}

//  AFFINITY task priority procs mem labels key: a request placed by its
//  affinity key, before each pass (drover_affinity), not by the queue
static void
s_handle_affinity (self_t *self, zmsg_t *msg)
{
    uint64_t task = drover_actor_pop_number (msg);
    int32_t priority = (int32_t) drover_actor_pop_number (msg);
    uint32_t procs = (uint32_t) drover_actor_pop_number (msg);
    uint64_t mem = drover_actor_pop_number (msg);
    char *labels = drover_actor_pop_string (msg);
    char *key = drover_actor_pop_string (msg);
    s_end_old_attempt (self, task);
    if (drover_affinity_add (self->affinity, task, priority, procs, mem, labels, key,
                             zclock_mono ()))
        zsys_warning ("schedq: task=%" PRIu64 " not queued (procs=%u, key=\"%s\")",
                      task, procs, key);
    zstr_free (&key);
    zstr_free (&labels);
}

//  TAKE: assign placed a task on a lease's worker itself
static void
s_take (self_t *self, const drover_record_t *record)
{
    s_end_old_attempt (self, record->task);
    if (drover_schedq_take (self->sched, record->lease, record->task, record->procs, record->mem,
                           drover_record_labels (record))) {
        //  Its worker went: assign hears LOST too, and places the task again
        if (self->flags.verbose)
            zsys_debug ("schedq: task=%" PRIu64 " taken from gone lease=%" PRIu64,
                        record->task, record->lease);
        return;
    }
    const char *holder = drover_schedq_assigned (self->sched, record->task);
    s_worker_t *entry = holder? (s_worker_t *) zhashx_lookup (self->workers, holder): NULL;
    if (entry)
        entry->last_task = record->task;
}

//  RETURN: assign gives a lease back; what it still holds is free again
static void
s_handle_return (self_t *self, uint64_t lease)
{
    drover_affinity_room_changed (self->affinity);
    const char *holder = drover_schedq_return (self->sched, lease);
    if (holder) {
        drover_adminwait_answer (self->admin_waits, holder, self->outbox, "schedq");
        drover_schedq_actor_check_drained (self, holder);
    }
}

//  FREE: the task's attempt ended; give back its capacity
static void
s_handle_free (self_t *self, uint64_t task)
{
    const char *holder = drover_schedq_free (self->sched, task);
    if (holder)
        drover_affinity_room_changed (self->affinity);
    if (holder)
        drover_schedq_actor_check_drained (self, holder);
}


//  ---------------------------------------------------------------------
//  The loop

//  Say ASSIGN for one placement of the pass
static void
s_on_assign (uint64_t task, const char *worker, void *arg)
{
    self_t *self = (self_t *) arg;
    drover_outbox_say_assign (self->to_assign, task, worker);
    s_worker_t *entry = (s_worker_t *) zhashx_lookup (self->workers, worker);
    if (entry)
        entry->last_task = task;
}

//  Say REVOKE for a lease
static void
s_on_revoke (const drover_schedq_lease_t *lease, void *arg)
{
    self_t *self = (self_t *) arg;
    drover_outbox_say (self->to_assign, "s8", "REVOKE", lease->id);
}

//  Say LEASE for a lease made
static void
s_on_lend (const drover_schedq_lease_t *lease, void *arg)
{
    self_t *self = (self_t *) arg;
    s_worker_t *worker = (s_worker_t *) zhashx_lookup (self->workers, lease->worker);
    drover_outbox_say (self->to_assign, "s8s48s", "LEASE", lease->id, lease->worker,
                       lease->procs, lease->mem, worker && worker->labels? worker->labels: "");
}

//  Tell whether the sockets may stay unread a moment after this turn: while
//  leases are out, nothing waits (a request would have revoked them), so
//  what comes is mostly TAKE and FREE for tasks assign placed on its leases,
//  news that may wait. Anything else (a QUEUE no lease could hold, a
//  WORKER LIST) waits S_HOLD_WHILE_LENT msec at most. Held, schedq wakes
//  once every millisecond or two at most, not twice for every task, and
//  the main's sends to it wake nobody (ACTORS.md, "News that may wait").
static bool
s_may_hold (self_t *self)
{
    return drover_schedq_leases (self->sched) > 0 && drover_schedq_size (self->sched) == 0
        && drover_affinity_size (self->affinity) == 0;
}

//  Run one scheduling pass and say its placements (in this turn's batch);
//  then revoke the leases that must come back, and lend what is idle
static void
s_schedule (self_t *self)
{
    //  Affinity requests first: their worker, before a pass fills it
    drover_affinity_run (self->affinity, self->sched, zclock_mono (), s_on_assign, self);
    drover_schedq_set_waiting (self->sched, drover_affinity_size (self->affinity) > 0);
    int placed = drover_schedq_run (self->sched, s_on_assign, self);
    if (placed > 0 && self->flags.verbose)
        zsys_debug ("schedq: pass placed=%d queued=%zu", placed, drover_schedq_size (self->sched));
    drover_schedq_revoke (self->sched, s_on_revoke, self);
    drover_schedq_lend (self->sched, s_on_lend, self);
}

//  METRICS round: the workers by health and admin state, their capacity
//  and what is used of it (one look at each worker: said at most every
//  100 ms, by the metrics actor)
static void
s_handle_metrics (self_t *self, uint64_t round)
{
    uint64_t counts [DROVER_METRICS] = { 0 };
    for (const char *id = drover_schedq_first (self->sched); id;
         id = drover_schedq_next (self->sched)) {
        drover_schedq_view_t view;
        drover_schedq_lookup (self->sched, id, &view);
        counts [view.probation? DROVER_METRIC_WORKERS_PROBATION:
                view.disk_low? DROVER_METRIC_WORKERS_LOW_DISK: DROVER_METRIC_WORKERS_OK]++;
        counts [view.admin == DROVER_ADMIN_HOLD? DROVER_METRIC_ADMIN_HOLD:
                view.admin == DROVER_ADMIN_DRAIN? DROVER_METRIC_ADMIN_DRAIN:
                                                  DROVER_METRIC_ADMIN_RUN]++;
        drover_schedq_actor_worker_t *worker = (drover_schedq_actor_worker_t *) zhashx_lookup (self->workers, id);
        counts [worker && worker->level > 1? DROVER_METRIC_WORKERS_LEVEL_2
                                           : DROVER_METRIC_WORKERS_LEVEL_1]++;
        counts [DROVER_METRIC_PROCS] += view.procs;
        counts [DROVER_METRIC_PROCS_USED] += view.procs_used;
        counts [DROVER_METRIC_MEMORY] += view.mem;
        counts [DROVER_METRIC_MEMORY_USED] += view.mem_used;
    }
    drover_metrics_t *metrics = drover_metrics_new ();
    for (int id = DROVER_METRIC_WORKERS_OK; id <= DROVER_METRIC_MEMORY_USED; id++)
        if (id != DROVER_METRIC_WORKERS_LOST)       //  health's
            drover_metrics_set (metrics, (drover_metric_t) id, counts [id]);
    drover_metrics_say (metrics, self->outbox, round);
    drover_metrics_destroy (&metrics);
}

//  Handle one control command from the pipe or the link (drover_outbox_receive
//  calls this)
static void
s_handle_command (void *arg, zmsg_t *msg)
{
    self_t *self = (self_t *) arg;
    char *command = zmsg_popstr (msg);
    assert (command);
    if (self->flags.verbose)
        zsys_debug ("schedq: command=%s", command);
    if (streq (command, "DEQUEUE")) {
        uint64_t task = drover_actor_pop_number (msg);
        if (drover_schedq_remove (self->sched, task))
            drover_affinity_remove (self->affinity, task);
    }
    else
    if (streq (command, "FLEET"))
        drover_schedq_actor_handle_fleet (self);
    else
    if (streq (command, "RETURN"))
        s_handle_return (self, drover_actor_pop_number (msg));
    else
    if (streq (command, "PLACED"))
        s_handle_placed (self, msg);
    else
    if (streq (command, "SETTLED")) {
        char *worker = drover_actor_pop_string (msg);
        s_settle (self, worker, -1);
        zstr_free (&worker);
    }
    else
    if (streq (command, "AFFINITY"))
        s_handle_affinity (self, msg);
    else
    if (streq (command, "STATS"))
        s_handle_stats (self, msg);
    else
    if (streq (command, "UP"))
        s_handle_up (self, msg);
    else
    if (streq (command, "LOST"))
        s_handle_lost (self, msg);
    else
    if (streq (command, "PROBATION"))
        s_handle_probation (self, msg, true);
    else
    if (streq (command, "CLEARED"))
        s_handle_probation (self, msg, false);
    else
    if (streq (command, "METRICS"))
        s_handle_metrics (self, drover_actor_pop_number (msg));
    else
    if (streq (command, "ADMIN"))
        drover_schedq_actor_handle_kept_admin (self, msg);
    else
    if (streq (command, "POOLTYPES"))
        drover_schedq_actor_handle_pooltypes (self, msg);
    else
    if (streq (command, "RETIRE"))
        drover_schedq_actor_handle_retire (self, msg);
    else
    if (streq (command, "POOLADMIN"))
        drover_schedq_actor_handle_pooladmin (self, msg);
    else
    if (streq (command, "CONFIGURE")) {
        drover_schedq_set_max_shelve (self->sched, (uint32_t) drover_actor_pop_number (msg));
        uint64_t min_disk_free = drover_actor_pop_number (msg);     //  MiB
        drover_schedq_set_min_disk_free (self->sched, min_disk_free << 20);
        drover_schedq_set_max_leases (self->sched, (uint32_t) drover_actor_pop_number (msg));
        if (zmsg_size (msg) >= 2) {
            uint64_t keep = drover_actor_pop_number (msg);
            drover_gone_set_limits (self->gone, keep, (size_t) drover_actor_pop_number (msg));
        }
        if (zmsg_size (msg) >= 1)
            self->keep_admin = drover_actor_pop_number (msg) != 0;
        if (zmsg_size (msg) >= 1)
            drover_affinity_set_wait (self->affinity, (uint32_t) drover_actor_pop_number (msg));
    }
    else
    if (!drover_actor_handle_common (&self->flags, command, msg)) {
        zsys_error ("schedq: invalid command=%s", command);
        assert (false);
    }
    //  Who takes new work may have changed: affinity requests look again
    if (streq (command, "UP") || streq (command, "LOST") || streq (command, "PROBATION")
    ||  streq (command, "SETTLED")
    ||  streq (command, "CLEARED") || streq (command, "ADMIN") || streq (command, "RETIRE")
    ||  streq (command, "POOLADMIN") || streq (command, "STATS"))
        drover_affinity_workers_changed (self->affinity);
    zstr_free (&command);
}

//  Handle one record (drover_actor_read calls this): QUEUE, TAKE and FREE
//  from assign, said for every task, and MSG from the main
static void
s_handle_record (void *arg, drover_record_t *record)
{
    self_t *self = (self_t *) arg;
    if (self->flags.verbose)
        zsys_debug ("schedq: command=%s", drover_record_word (record));
    if (record->kind == DROVER_RECORD_QUEUE)
        s_queue (self, record->task, record->priority, record->procs, record->mem,
                 drover_record_labels (record));
    else
    if (record->kind == DROVER_RECORD_TAKE)
        s_take (self, record);
    else
    if (record->kind == DROVER_RECORD_FREE)
        s_handle_free (self, record->task);
    else
    if (record->kind == DROVER_RECORD_MSG) {
        zframe_t *route = zframe_new (drover_record_route (record), record->route_size);
        drover_schedq_actor_handle_wire (self, route, record->msg);
        zframe_destroy (&route);
    }
    else {
        zsys_error ("schedq: unexpected record=%s", drover_record_word (record));
        assert (false);         //  the vocabulary is in ACTORS.md
    }
}

//  The actor; args is the inproc endpoint (a string) to bind for the link
//  to assign (actors/ACTORS.md, "The link")
void
drover_schedq_actor (zsock_t *pipe, void *args)
{
    self_t *self = s_self_new (pipe, (const char *) args);
    zsock_signal (pipe, 0);
    int wait = -1;              //  until a LOAD held back is due, or input
    int64_t held_until = 0;     //  msec monotonic the sockets stay unread until
    while (!self->flags.stopping) {
        if (drover_actor_wait (self->poller, wait, held_until) == -1)
            break;              //  interrupted
        int read = drover_actor_read (self->poller, self->pipe, self->link, s_handle_command,
                                     s_handle_record, self);
        if (read == -1)
            break;              //  the context is ending
        //  One pass per turn: placements see every command read (or an
        //  affinity request's wait for its first worker ended)
        int64_t due = drover_affinity_deadline (self->affinity);
        if ((read || (due != -1 && zclock_mono () >= due)) && !self->flags.stopping)
            s_schedule (self);
        wait = drover_schedq_actor_check_load (self, read > 0, zclock_mono ());
        due = drover_affinity_deadline (self->affinity);
        if (due != -1) {
            int until = (int) (due > zclock_mono ()? due - zclock_mono (): 0);
            wait = wait == -1 || until < wait? until: wait;
        }
        //  The link first: an ASSIGN is on the way to an offer
        drover_actor_flush (self->poller, DROVER_LINK_AT, self->to_assign, self->link);
        drover_actor_flush (self->poller, DROVER_PIPE_AT, self->outbox, self->pipe);
        held_until = read > 0 && s_may_hold (self)? zclock_mono () + S_HOLD_WHILE_LENT: 0;
    }
    s_self_destroy (&self);
}
