/*  =========================================================================
    drover_schedq_actor - the schedq actor: the queue, the workers and placements

    Keeps the scheduling queue (src/broker/sched/drover_schedq.c), which
    decides, and does the I/O around it: requests come from assign on the
    link, worker changes from the main on the pipe; after each turn that
    read some, one scheduling pass runs and its placements go out to assign
    on the link as ASSIGN records in one batch. It is also the worker
    registry that WORKER LIST reads and that WORKER ADMIN steers. What an
    operator said of a worker (hold, drain, a reason) is kept by worker id
    (src/broker/sched/drover_adminbook.c): it outlives the worker's
    registration, may be said before the worker joins, and goes to the
    store to outlive the broker. A draining worker stays connected and
    idle, unless the drain asked it to exit: then, with nothing assigned,
    it is told WORKER LEAVE, once. A worker that went stays listed a while,
    LOST or LEFT (src/broker/workers/drover_gone.c).

    In order: the state; draining; workers; requests from assign; clients'
    requests (WORKER ADMIN, WORKER LIST, TASK EXPLAIN and TABLE), the
    fleet and the settings the store kept; the elastic pool (POOLTYPES,
    RETIRE, POOLADMIN, LOAD); the loop. What it hears and says, and how:
    actors/ACTORS.md, "schedq" and "How actors talk".
    =========================================================================
*/

#include "drover_schedq_actor.h"
#include "drover_adminwait.h"
#include "drover_msg.h"
#include "drover_schedq.h"
#include "drover_explain.h"
#include "drover_actor.h"
#include "drover_metrics.h"
#include "drover_defaults.h"
#include "drover_gone.h"
#include "drover_adminbook.h"
#include "drover_loadreport.h"
#include "drover_affinity.h"
#include "drover_why.h"
#include "drover_shareboard.h"
#include "drover_devicelist.h"

//  Settings until CONFIGURE says otherwise: the broker's defaults
#define S_MAX_SHELVE    DROVER_DEFAULT_MAX_SHELVE
#define S_MIN_DISK_FREE ((uint64_t) DROVER_DEFAULT_MIN_DISK_FREE << 20)     //  bytes
#define S_MAX_LEASES    DROVER_DEFAULT_MAX_LEASES
#define S_KEEP_GONE     DROVER_DEFAULT_KEEP_GONE
#define S_MAX_GONE      DROVER_DEFAULT_MAX_GONE
//  Worker ids an operator's settings are kept for, at most
#define S_MAX_ADMIN     DROVER_ROWS_MAX
//  Encoded bytes a WORKER TABLE row takes besides its id and labels, at most
#define S_ROW_OVERHEAD  160
//  Demand shapes of affinity requests told the pool, at most
#define S_AFFINITY_SHAPES   100
//  Least msec between two LOADs to the pool
#define S_LOAD_EVERY    100
//  Msec the pipe and link are left unread after a turn while leases are
//  out and nothing waits (s_may_hold): 1 to 2 msec, the clock counting msec
#define S_HOLD_WHILE_LENT   2

//  What the actor keeps about a worker besides what the queue keeps
typedef struct {
    zframe_t *route;            //  routing id of the worker's latest HELLO
    char *labels;               //  its labels as UP said them, "k=v" joined by "\n"
    bool leave_sent;            //  WORKER LEAVE said since it began draining
    uint64_t since;             //  when it registered, msec since the epoch
    uint16_t level;             //  the protocol level its HELLO said (PROTOCOL.md §12)
    char release [DROVER_RELEASE_MAX + 1];  //  the release its HELLO said, "" unknown
    uint64_t last_task;         //  the last task placed on it, 0 none (for the pool)
    bool retired;               //  the pool retired it: no new work, not in the admin book
    bool retired_said;          //  RETIRED said since
    uint32_t heartbeat;         //  msec between heartbeats its WELCOME told, 0 unknown
    uint64_t lost_after;        //  msec of silence before health says LOST, 0 unknown
} s_worker_t;

typedef struct {
    zsock_t *pipe;              //  commands from the broker main
    drover_outbox_t *outbox;    //  what this turn says, flushed as one BATCH
    zsock_t *link;              //  PAIR straight to assign (ACTORS.md, "The link")
    drover_outbox_t *to_assign; //  what this turn says on the link: ASSIGN, LEASE, REVOKE
    drover_poller_t *poller;    //  the pipe (and the link)
    drover_schedq_t *sched;      //  requests and workers; decides placements
    zhashx_t *workers;          //  worker id -> s_worker_t (owned)
    zhashx_t *unsettled;        //  worker id -> UPs with running attempts heard less
                                //  SETTLEDs heard (intptr_t, never 0: deleted then)
    drover_gone_t *gone;        //  workers that went, listed a while
    drover_adminbook_t *book;   //  an operator's settings, by worker id
    drover_adminwait_t *admin_waits;    //  OKs held until a held worker's lease is back
    bool keep_admin;            //  the store keeps them: say KEEPADMIN (and KEEPSHARE)
    drover_shareboard_t *shares;    //  the share settings in force (accounts, weights, quotas)
    bool quotas_due;            //  they changed: say QUOTAS to assign after this turn
    bool preemption;            //  sched/preemption: stop preemptible tasks to make room
    uint32_t preempt_max;       //  sched/preempt-max: victims per pass, at most
    drover_affinity_t *affinity;    //  requests placed by an affinity key, before each pass
    drover_poolconfig_t *pool;  //  the elastic pool's settings, or NULL: no LOAD
    bool load_due;              //  something changed since the last LOAD
    bool load_now;              //  a worker came or went: LOAD without waiting
    int64_t load_at;            //  when the last LOAD was said, msec monotonic
    drover_actor_flags_t flags; //  EVENTS, VERBOSE, $TERM heard
} self_t;


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
    self->shares = drover_shareboard_new (drover_schedq_fairshare (self->sched));
    self->preempt_max = 4;
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
    drover_shareboard_destroy (&self->shares);
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
static void
s_keep_admin (self_t *self, const char *id)
{
    const drover_adminbook_entry_t *entry = drover_adminbook_lookup (self->book, id);
    if (self->keep_admin)
        drover_outbox_say (self->outbox, "ss44s8", "KEEPADMIN", id,
                       entry? entry->admin: DROVER_ADMIN_RUN, entry? entry->flags: 0,
                       entry? entry->reason: "", entry? entry->since: (uint64_t) 0);
}

//  Say the OK (text) to a WORKER ADMIN from route, seq. When the store
//  keeps settings, the OK rides on a KEEPADMIN of the worker's setting
//  now, and the store sends it once that is kept (ERROR 507 if it cannot
//  be): an acknowledged hold or resume survives a crash or a failover.
//  A drover_adminwait_fn too (arg is self).
static void
s_answer_admin (void *arg, const char *id, zframe_t *route, uint32_t seq, const char *text)
{
    self_t *self = (self_t *) arg;
    if (!self->keep_admin) {
        drover_actor_reply (self->outbox, "schedq", route, seq, DROVER_CODE_OK, text);
        return;
    }
    const drover_adminbook_entry_t *entry = drover_adminbook_lookup (self->book, id);
    drover_outbox_say (self->outbox, "ss44s8f4s", "KEEPADMIN", id,
                       entry? entry->admin: DROVER_ADMIN_RUN, entry? entry->flags: 0,
                       entry? entry->reason: "", entry? entry->since: (uint64_t) 0,
                       route, seq, text);
}

//  Tell a worker drained with --exit and with nothing assigned to leave,
//  once (a drain without it keeps the worker connected and idle)
static void
s_check_drained (self_t *self, const char *id)
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
    s_keep_admin (self, id);
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
    char *devices = zmsg_size (msg)? drover_actor_pop_string (msg): NULL;
    //  Its heartbeat interval and lost span, for WORKER LIST (0: not said)
    uint32_t heartbeat = zmsg_size (msg)? (uint32_t) drover_actor_pop_number (msg): 0;
    uint64_t lost_after = zmsg_size (msg)? drover_actor_pop_number (msg): 0;
    //  The offers its WELCOME let it hold beyond its free procs (0: none)
    uint32_t ahead = zmsg_size (msg)? (uint32_t) drover_actor_pop_number (msg): 0;
    int rc = drover_schedq_add_worker (self->sched, worker, procs, mem, labels);
    drover_schedq_set_ahead (self->sched, worker, ahead);
    if (drover_schedq_set_devices (self->sched, worker, devices))
        zsys_warning ("schedq: worker=%s devices \"%s\" not a device list: none counted",
                      worker, devices);
    zstr_free (&devices);
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
    entry->heartbeat = heartbeat;
    entry->lost_after = lost_after;
    snprintf (entry->release, sizeof entry->release, "%s", release);
    zstr_free (&release);
    zstr_free (&entry->labels);
    entry->labels = labels;
    labels = NULL;
    if (self->flags.verbose)
        zsys_debug ("schedq: worker=%s %s procs=%u mem=%" PRIu64, worker,
                    rc? "updated": "added", procs, mem);
    s_check_drained (self, worker);
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
    //  owner(s) devices(s) flags(4) at the end, from assign of level 4
    char *owner = zmsg_size (msg)? drover_actor_pop_string (msg): NULL;
    char *devices = zmsg_size (msg)? drover_actor_pop_string (msg): NULL;
    uint32_t flags = zmsg_size (msg)? (uint32_t) drover_actor_pop_number (msg): 0;
    drover_schedq_tenant_t tenant = { owner, devices, flags };
    if (drover_schedq_place_as (self->sched, worker, task, procs, mem, labels, &tenant)
    &&  self->flags.verbose)
        zsys_debug ("schedq: PLACED task=%" PRIu64 " worker=%s ignored", task, worker);
    zstr_free (&owner);
    zstr_free (&devices);
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
    drover_adminwait_answer (self->admin_waits, worker, s_answer_admin, self);
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

//  STATS: keep the last stats for WORKER TABLE, and the heartbeat
//  interval and lost span when health says them again
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
    if (zmsg_size (msg) >= 2) {
        uint32_t heartbeat = (uint32_t) drover_actor_pop_number (msg);
        uint64_t lost_after = drover_actor_pop_number (msg);
        s_worker_t *entry = (s_worker_t *) zhashx_lookup (self->workers, worker);
        if (entry) {
            entry->heartbeat = heartbeat;
            entry->lost_after = lost_after;
        }
    }
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
        s_check_drained (self, holder);
    }
}

//  Fill whose a QUEUE's or TAKE's task is and what else it asks
static void
s_tenant (const drover_record_t *record, drover_schedq_tenant_t *tenant)
{
    tenant->owner = record->owner;
    tenant->devices = drover_record_devices (record);
    tenant->flags = record->flags;
}

//  QUEUE: a request to place
static void
s_queue (self_t *self, const drover_record_t *record)
{
    s_end_old_attempt (self, record->task);
    drover_schedq_tenant_t tenant;
    s_tenant (record, &tenant);
    if (drover_schedq_push_as (self->sched, record->task, record->priority, record->procs,
                               record->mem, drover_record_labels (record), &tenant))
        zsys_warning ("schedq: task=%" PRIu64 " not queued (procs=%u, devices \"%s\", or "
                      "queued already)", record->task, record->procs,
                      tenant.devices? tenant.devices: "");
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
    //  owner(s) devices(s) flags(4) at the end, from assign of level 4
    char *owner = zmsg_size (msg)? drover_actor_pop_string (msg): NULL;
    char *devices = zmsg_size (msg)? drover_actor_pop_string (msg): NULL;
    uint32_t flags = zmsg_size (msg)? (uint32_t) drover_actor_pop_number (msg): 0;
    drover_schedq_tenant_t tenant = { owner, devices, flags };
    s_end_old_attempt (self, task);
    if (drover_affinity_add_as (self->affinity, task, priority, procs, mem, labels, key,
                                &tenant, zclock_mono ()))
        zsys_warning ("schedq: task=%" PRIu64 " not queued (procs=%u, key=\"%s\")",
                      task, procs, key);
    zstr_free (&owner);
    zstr_free (&devices);
    zstr_free (&key);
    zstr_free (&labels);
}

//  TAKE: assign placed a task on a lease's worker itself
static void
s_take (self_t *self, const drover_record_t *record)
{
    s_end_old_attempt (self, record->task);
    drover_schedq_tenant_t tenant;
    s_tenant (record, &tenant);
    if (drover_schedq_take_as (self->sched, record->lease, record->task, record->procs,
                               record->mem, drover_record_labels (record), &tenant)) {
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
        drover_adminwait_answer (self->admin_waits, holder, s_answer_admin, self);
        s_check_drained (self, holder);
    }
}

//  FREE: the task's attempt ended; give back its capacity. One its worker
//  gave back unstarted (returned: an offer held ahead) keeps that worker
//  from holding more ahead until a running task there ends
static void
s_handle_free (self_t *self, uint64_t task, bool returned)
{
    const char *holder = returned? drover_schedq_give_back (self->sched, task)
                                 : drover_schedq_free (self->sched, task);
    if (holder)
        drover_affinity_room_changed (self->affinity);
    if (holder)
        s_check_drained (self, holder);
}


//  ---------------------------------------------------------------------
//  Clients' requests, the fleet, the settings the store kept


//  The event topic for an admin setting
static const char *
s_admin_topic (int admin)
{
    return admin == DROVER_ADMIN_HOLD? "worker.hold":
           admin == DROVER_ADMIN_DRAIN? "worker.drain": "worker.resume";
}

//  The text an admin reply says: the setting, and whether it waits for the
//  worker to join
static void
s_admin_text (char *text, size_t size, int admin, bool connected)
{
    snprintf (text, size, "%s%s", drover_admin_name (admin),
              connected? "": " (not connected: kept for when it joins)");
}

//  WORKER ADMIN: hold, drain or resume a worker, with the operator's reason
//  and flags; kept by worker id, whether or not it is connected now (an
//  operator may hold a machine before it joins)
static void
s_handle_admin (self_t *self, zframe_t *route, drover_msg_t *request)
{
    drover_schedq_view_t view;
    if (request->admin > DROVER_ADMIN_MAX) {
        drover_actor_reply (self->outbox, "schedq", route, request->seq, DROVER_CODE_BAD_REQUEST,
                           "admin must be 0..2");
        return;
    }
    const char *id = request->worker;
    bool connected = drover_schedq_lookup (self->sched, id, &view) == 0;
    const drover_adminbook_entry_t *entry = drover_adminbook_lookup (self->book, id);
    int before = entry? entry->admin: connected? view.admin: DROVER_ADMIN_RUN;
    if (!connected && !entry && request->admin == DROVER_ADMIN_RUN) {
        drover_actor_reply (self->outbox, "schedq", route, request->seq, DROVER_CODE_NOT_FOUND,
                           "unknown worker");
        return;                 //  nothing to resume
    }
    const char *reason = request->reason? request->reason: "";
    uint32_t flags = request->admin == DROVER_ADMIN_DRAIN? request->flags & DROVER_ADMIN_EXIT: 0;
    bool same = entry && entry->admin == request->admin && entry->flags == flags
             && streq (entry->reason, reason);
    if (!same
    &&  drover_adminbook_set (self->book, id, request->admin, flags, reason,
                              entry && entry->admin == request->admin? entry->since
                                                                     : (uint64_t) zclock_time ())) {
        drover_actor_reply (self->outbox, "schedq", route, request->seq, DROVER_CODE_TOO_MANY,
                           "too many workers held or drained");
        return;
    }
    if (connected)
        drover_schedq_set_admin (self->sched, id, request->admin);
    char text [80];
    s_admin_text (text, sizeof text, request->admin, connected);
    bool changed = !same && !(before == request->admin && request->admin == DROVER_ADMIN_RUN);
    bool said = changed && (before != request->admin || (flags & DROVER_ADMIN_EXIT));
    //  A worker lent to assign takes nothing new once assign has read the
    //  lease's REVOKE (said at this turn's pass): the OK waits for RETURN
    bool waits = connected && view.lease && request->admin != DROVER_ADMIN_RUN;
    if (waits) {
        drover_adminwait_add (self->admin_waits, id, route, request->seq, text);
        if (changed)
            s_keep_admin (self, id);
    }
    else                        //  kept with its OK (or kept again: harmless)
        s_answer_admin (self, id, route, request->seq, text);
    if (said) {
        zsys_notice ("schedq: worker=%s admin=%s reason=\"%s\"", id,
                     drover_admin_name (request->admin), reason);
        if (!self->flags.silent)
            drover_actor_event (self->outbox, s_admin_topic (request->admin), 0, 0, id, reason);
    }
    if (!said)
        return;                 //  no change, or only the reason: kept, nothing else
    s_worker_t *worker = (s_worker_t *) zhashx_lookup (self->workers, id);
    if (worker && request->admin == DROVER_ADMIN_DRAIN)
        worker->leave_sent = false;
    s_check_drained (self, id);
}

//  ADMIN from the store at start: a setting it kept
static void
s_handle_kept_admin (self_t *self, zmsg_t *msg)
{
    char *worker = drover_actor_pop_string (msg);
    int admin = (int) drover_actor_pop_number (msg);
    uint32_t flags = (uint32_t) drover_actor_pop_number (msg);
    char *reason = drover_actor_pop_string (msg);
    uint64_t since = drover_actor_pop_number (msg);
    if (drover_adminbook_set (self->book, worker, admin, flags, reason, since) == 0) {
        drover_schedq_set_admin (self->sched, worker, admin);    //  -1 unless connected
        zsys_info ("schedq: worker=%s admin=%s reason=\"%s\" kept", worker,
                   drover_admin_name (admin), reason);
    }
    zstr_free (&reason);
    zstr_free (&worker);
}

//  Order rows by worker id
static int
s_row_compare (const void *a, const void *b)
{
    return strcmp (((const drover_worker_row_t *) a)->id, ((const drover_worker_row_t *) b)->id);
}

//  Copy a text into a row, NULL for none; returns its length
static size_t
s_row_text (char **field, const char *text)
{
    if (!text || !*text)
        return 0;
    *field = strdup (text);
    assert (*field);
    return strlen (text);
}

//  Fill a row's admin elements from what an operator said of the worker;
//  returns their encoded size, about
static size_t
s_fill_admin (self_t *self, drover_worker_row_t *row)
{
    const drover_adminbook_entry_t *entry = drover_adminbook_lookup (self->book, row->id);
    if (!entry)
        return 0;
    row->admin = (uint8_t) entry->admin;
    row->admin_since = entry->since;
    return s_row_text (&row->admin_reason, entry->reason);
}

//  Fill one WORKER TABLE row from a gone worker; returns its encoded size,
//  about
static size_t
s_fill_gone_row (self_t *self, drover_worker_row_t *row, const drover_gone_row_t *gone)
{
    size_t size = S_ROW_OVERHEAD + strlen (gone->id);
    snprintf (row->id, sizeof row->id, "%s", gone->id);
    row->health = DROVER_HEALTH_LOST;
    row->state = (uint8_t) gone->state;
    row->since = gone->since;
    row->procs = gone->procs;
    row->mem = gone->mem;
    size += s_row_text (&row->why, gone->why);
    size += s_fill_admin (self, row);
    //  Labels, "k=v" joined by "\n"
    const char *label = gone->labels;
    while (*label && row->nlabels < DROVER_LABELS_MAX) {
        const char *end = strchr (label, '\n');
        size_t length = end? (size_t) (end - label): strlen (label);
        row->labels [row->nlabels] = strndup (label, length);
        assert (row->labels [row->nlabels]);
        row->nlabels++;
        size += length + 3;
        label += length + (end? 1: 0);
    }
    return size;
}

//  Fill one WORKER TABLE row from a worker; returns its encoded size, about
static size_t
s_fill_row (self_t *self, drover_worker_row_t *row, drover_schedq_view_t *view)
{
    size_t size = S_ROW_OVERHEAD + strlen (view->id);
    snprintf (row->id, sizeof row->id, "%s", view->id);
    row->health = view->probation? DROVER_HEALTH_PROBATION:
                  view->disk_low? DROVER_HEALTH_LOW_DISK: DROVER_HEALTH_OK;
    row->admin = (uint8_t) view->admin;
    row->procs = view->procs;
    row->procs_used = view->procs_used;
    row->mem = view->mem;
    row->mem_used = view->mem_used;
    row->stats = view->stats;
    row->reserved = view->reserved;
    row->state = DROVER_WORKER_UP;
    row->tasks = (uint32_t) view->tasks;
    row->probation_until = view->probation_until;
    s_worker_t *worker = (s_worker_t *) zhashx_lookup (self->workers, view->id);
    row->since = worker? worker->since: 0;
    row->level = worker? worker->level: 0;
    row->heartbeat = worker? worker->heartbeat: 0;
    row->lost_after = worker? worker->lost_after: 0;
    row->ahead = view->ahead;
    row->held = (uint32_t) view->held;
    if (worker)
        snprintf (row->release, sizeof row->release, "%s", worker->release);
    size += s_fill_admin (self, row);
    row->admin = (uint8_t) view->admin;     //  what it does now
    for (size_t index = 0; index < view->nlabels && index < DROVER_LABELS_MAX; index++) {
        row->labels [row->nlabels++] = strdup (view->labels [index]);
        assert (row->labels [row->nlabels - 1]);
        size += strlen (view->labels [index]) + 3;
    }
    if (view->ndevices) {
        //  Its devices, and how many of each its tasks hold
        drover_device_t used [DROVER_DEVICES_MAX];
        size_t nused = 0;
        for (size_t index = 0; index < view->ndevices && index < DROVER_DEVICES_MAX; index++)
            if (view->devices_used [index]) {
                used [nused] = view->devices [index];
                used [nused++].count = view->devices_used [index];
            }
        char text [DROVER_DEVICELIST_TEXT_MAX];
        size += s_row_text (&row->devices, drover_devicelist_format (
            view->devices, view->ndevices < DROVER_DEVICES_MAX? view->ndevices: DROVER_DEVICES_MAX,
            text));
        size += s_row_text (&row->devices_used, drover_devicelist_format (used, nused, text));
    }
    return size;
}

//  Drop rows past keep, freeing what they own
static void
s_cut_rows (drover_msg_t *table, uint32_t keep)
{
    for (uint32_t index = keep; index < table->nrows; index++) {
        drover_worker_row_t *row = &table->worker_rows [index];
        for (uint32_t label = 0; label < row->nlabels; label++)
            zstr_free (&row->labels [label]);
        row->nlabels = 0;
        zstr_free (&row->why);
        zstr_free (&row->admin_reason);
        zstr_free (&row->devices);
        zstr_free (&row->devices_used);
    }
    table->nrows = keep;
}

//  WORKER LIST: one row per known worker, then one per worker that went
//  and is still listed, as many as fit
static void
s_handle_list (self_t *self, zframe_t *route, drover_msg_t *request)
{
    drover_gone_expire (self->gone, (uint64_t) zclock_time ());
    size_t count = drover_schedq_workers (self->sched) + drover_gone_size (self->gone);
    if (count > DROVER_ROWS_MAX)
        count = DROVER_ROWS_MAX;
    drover_msg_t *table = drover_msg_new (DROVER_MSG_WORKER_TABLE);
    table->seq = request->seq;
    table->worker_rows = (drover_worker_row_t *) zmalloc ((count? count: 1) * sizeof (drover_worker_row_t));
    size_t budget = DROVER_MSG_MAX - 1024;
    size_t used = 0;
    for (const char *id = drover_schedq_first (self->sched);
         id && table->nrows < count; id = drover_schedq_next (self->sched)) {
        drover_schedq_view_t view;
        drover_schedq_lookup (self->sched, id, &view);
        used += s_fill_row (self, &table->worker_rows [table->nrows++], &view);
        if (used > budget) {
            s_cut_rows (table, table->nrows - 1);
            break;              //  the rest would not fit in one message
        }
    }
    const drover_gone_row_t *gone = drover_gone_first (self->gone);
    for (; gone && table->nrows < count && used <= budget; gone = drover_gone_next (self->gone)) {
        used += s_fill_gone_row (self, &table->worker_rows [table->nrows++], gone);
        if (used > budget)
            s_cut_rows (table, table->nrows - 1);
    }
    qsort (table->worker_rows, table->nrows, sizeof (drover_worker_row_t), s_row_compare);
    zframe_t *payload = drover_msg_encode (table);
    while (!payload && table->nrows > 0) {
        s_cut_rows (table, table->nrows / 2);   //  our estimate was short: halve
        payload = drover_msg_encode (table);
    }
    if (payload)
        drover_outbox_say_send (self->outbox, zframe_data (route), zframe_size (route), &payload,
                                "");
    else
        zsys_error ("schedq: cannot encode WORKER TABLE");
    drover_msg_destroy (&table);
}

//  Encode a reply and say SEND to a client
static void
s_send (self_t *self, zframe_t *route, drover_msg_t *reply)
{
    zframe_t *payload = drover_msg_encode (reply);
    if (payload)
        drover_outbox_say_send (self->outbox, zframe_data (route), zframe_size (route), &payload,
                                "");
    else
        zsys_error ("schedq: cannot encode %s", drover_msg_name (reply->id));
}

//  Say why an affinity request waits: for its first worker (until when,
//  msec since the epoch; 0 past its wait: for the first in order with
//  room). Returns 1 item, or -1 if the task is not one.
static int
s_explain_affinity (self_t *self, uint64_t task, drover_why_t *whys)
{
    int64_t left;
    char worker [DROVER_ID_MAX + 1];
    if (drover_affinity_explain (self->affinity, self->sched, task, zclock_mono (), worker,
                                 sizeof worker, &left))
        return -1;
    memset (&whys [0], 0, sizeof whys [0]);
    whys [0].code = DROVER_WHY_AFFINITY;
    whys [0].count = worker [0]? 1: 0;
    whys [0].a = left? (uint64_t) (zclock_time () + left): 0;
    if (worker [0]) {
        snprintf (whys [0].names [0], sizeof whys [0].names [0], "%s", worker);
        whys [0].nnames = 1;
    }
    return 1;
}

//  FLEET: say every connected worker as the reconciler sees it: what it
//  offers, what is taken, its labels, whether it takes new work
static void
s_handle_fleet (self_t *self)
{
    drover_fleet_t *fleet = drover_schedq_fleet (self->sched);
    zframe_t *frame = drover_fleet_encode (fleet);
    drover_outbox_say (self->outbox, "sf", "FLEET", frame);
    zframe_destroy (&frame);
    drover_fleet_destroy (&fleet);
}

//  TASK EXPLAIN of a task assign holds as queued: why it waits, what would
//  unblock it (one look at every worker and request, paid only here)
static void
s_handle_explain (self_t *self, zframe_t *route, drover_msg_t *request)
{
    drover_msg_t *reply = drover_msg_new (DROVER_MSG_TASK_EXPLANATION);
    reply->seq = request->seq;
    reply->task = request->task;
    reply->state = DROVER_TASK_QUEUED;
    reply->whys = (drover_why_t *) zmalloc (DROVER_WHYS_MAX * sizeof (drover_why_t));
    int count = s_explain_affinity (self, request->task, reply->whys);
    if (count < 0)
        count = drover_explain_task (self->sched, request->task, reply->whys);
    const char *worker = drover_schedq_assigned (self->sched, request->task);
    if (count >= 0)
        reply->nwhys = (uint32_t) count;
    else
    if (worker) {
        //  Placed since assign looked: its ASSIGN is on the way
        reply->state = DROVER_TASK_ASSIGNED;
        snprintf (reply->worker, sizeof reply->worker, "%s", worker);
    }
    if (count >= 0 || worker)
        s_send (self, route, reply);
    else
        drover_actor_reply (self->outbox, "schedq", route, request->seq, DROVER_CODE_CONFLICT,
                           "no longer queued: ask again");
    drover_msg_destroy (&reply);
}

//  TASK TABLE assign made, with queued rows: say why each waits, send it
static void
s_handle_table (self_t *self, zframe_t *route, drover_msg_t *table)
{
    drover_explain_annotate (self->sched, table->task_rows, table->nrows);
    for (uint32_t index = 0; drover_affinity_size (self->affinity) && index < table->nrows;
         index++) {
        drover_task_row_t *row = &table->task_rows [index];
        drover_why_t why;
        if (row->state == DROVER_TASK_QUEUED && s_explain_affinity (self, row->task, &why) == 1)
            drover_why_short (&why, 1, row->reason, sizeof row->reason);
    }
    s_send (self, route, table);
}

//  ---------------------------------------------------------------------
//  Shares: accounts, weights, quotas (drover_shareboard)

//  The shares in force changed: what waits at a quota is looked at again,
//  and assign hears QUOTAS after this turn
static void
s_shares_changed (self_t *self)
{
    drover_schedq_shares_changed (self->sched);
    self->quotas_due = true;
}

//  Say QUOTAS to assign if the shares in force changed: the accounts and
//  quotas as share/accounts and share/quotas say them
static void
s_say_quotas (self_t *self)
{
    if (!self->quotas_due)
        return;
    drover_outbox_say (self->to_assign, "sss", "QUOTAS", drover_shareboard_accounts (self->shares),
                       drover_shareboard_quotas (self->shares));
    self->quotas_due = false;
}

//  Answer a SHARE ADMIN: OK, or, when the store keeps state, KEEPSHARE of
//  what the admin says of name now (weight 0: dropped; members "-": none
//  given, an owner's) with the OK to send once kept
static void
s_answer_share (self_t *self, const char *name, bool dropped, zframe_t *route, uint32_t seq,
                const char *text)
{
    if (!self->keep_admin) {
        drover_actor_reply (self->outbox, "schedq", route, seq, DROVER_CODE_OK, text);
        return;
    }
    uint32_t weight = 0;
    const char *members = NULL, *quota = "";
    if (!dropped && drover_shareboard_entry (self->shares, name, &weight, &members, &quota)
    &&  weight == 0)
        weight = drover_shareboard_weight (self->shares, name);
    if (!members)
        members = "-";
    drover_outbox_say (self->outbox, "ss4ssf4s", "KEEPSHARE", name, weight, members, quota,
                       route, seq, text);
}

//  SHARE ADMIN: set or drop what an admin says of an account or owner
static void
s_handle_share_admin (self_t *self, zframe_t *route, drover_msg_t *request)
{
    const char *name = request->owner;
    char text [DROVER_ID_MAX + 32];
    if (request->action == DROVER_SHARE_DROP) {
        if (drover_shareboard_drop (self->shares, name)) {
            drover_actor_reply (self->outbox, "schedq", route, request->seq,
                               DROVER_CODE_NOT_FOUND, "no share set for that name");
            return;
        }
        snprintf (text, sizeof text, "share %s dropped", name);
        s_answer_share (self, name, true, route, request->seq, text);
    }
    else
    if (request->action == DROVER_SHARE_SET) {
        char *quota = drover_shareboard_quota_text (request);
        char *error = NULL;
        int rc = drover_shareboard_set (self->shares, name, request->weight, request->members,
                                        quota, &error);
        free (quota);
        if (rc) {
            drover_actor_reply (self->outbox, "schedq", route, request->seq,
                               DROVER_CODE_BAD_REQUEST, error);
            zstr_free (&error);
            return;
        }
        snprintf (text, sizeof text, "share %s set", name);
        s_answer_share (self, name, false, route, request->seq, text);
    }
    else {
        drover_actor_reply (self->outbox, "schedq", route, request->seq, DROVER_CODE_BAD_REQUEST,
                           "action must be 0 (set) or 1 (drop)");
        return;
    }
    zsys_notice ("schedq: %s", text);
    s_shares_changed (self);
}

//  SHARE from the store at start: what an admin said of a name, kept
static void
s_handle_kept_share (self_t *self, zmsg_t *msg)
{
    char *name = drover_actor_pop_string (msg);
    uint32_t weight = (uint32_t) drover_actor_pop_number (msg);
    char *members = drover_actor_pop_string (msg);
    char *quota = drover_actor_pop_string (msg);
    char *error = NULL;
    if (drover_shareboard_set (self->shares, name, weight, streq (members, "-")? NULL: members,
                               quota, &error)) {
        zsys_warning ("schedq: kept share of %s refused: %s", name, error);
        zstr_free (&error);
    }
    else
        s_shares_changed (self);
    zstr_free (&quota);
    zstr_free (&members);
    zstr_free (&name);
}

//  SHARE LIST: each account and its owners, their weights, shares, usage,
//  waiting tasks and quotas
static void
s_handle_share_list (self_t *self, zframe_t *route, drover_msg_t *request)
{
    drover_msg_t *table = drover_msg_new (DROVER_MSG_SHARE_TABLE);
    table->seq = request->seq;
    drover_share_row_t *rows = drover_shareboard_rows (self->shares, DROVER_ROWS_MAX,
                                                       &table->nshares);
    //  Waiting: in the queue for room or their turn, not held by a quota
    drover_fairshare_t *fairshare = drover_schedq_fairshare (self->sched);
    drover_share_row_t *account = NULL;
    for (uint32_t index = 0; index < table->nshares; index++) {
        drover_share_row_t *row = &rows [index];
        if (row->kind == 0) {
            account = row;
            account->waiting = 0;
            continue;
        }
        uint32_t owner = drover_fairshare_owner (fairshare, row->name);
        size_t held = owner? drover_schedq_quota_held_of (self->sched, owner): 0;
        row->waiting = row->queued > held? row->queued - held: 0;
        if (account)
            account->waiting += row->waiting;
    }
    //  An account with nothing running or queued has no fair share now
    for (uint32_t index = 0; index < table->nshares; index++)
        if (rows [index].kind == 0 && rows [index].procs == 0 && rows [index].queued == 0
        &&  !*rows [index].devices)
            rows [index].fair = 0;
    table->share_rows = rows;
    s_send (self, route, table);
    //  Ours to free, whether or not the message would free them
    drover_shareboard_rows_destroy (&rows, table->nshares);
    table->share_rows = NULL;
    table->nshares = 0;
    drover_msg_destroy (&table);
}

//  MSG: a wire message the main handed us, or assign on the link
static void
s_handle_wire (self_t *self, zframe_t *route, drover_msg_t *wire)
{
    if (wire->id == DROVER_MSG_WORKER_ADMIN)
        s_handle_admin (self, route, wire);
    else
    if (wire->id == DROVER_MSG_WORKER_LIST)
        s_handle_list (self, route, wire);
    else
    if (wire->id == DROVER_MSG_TASK_EXPLAIN)
        s_handle_explain (self, route, wire);
    else
    if (wire->id == DROVER_MSG_TASK_TABLE)
        s_handle_table (self, route, wire);
    else
    if (wire->id == DROVER_MSG_SHARE_ADMIN)
        s_handle_share_admin (self, route, wire);
    else
    if (wire->id == DROVER_MSG_SHARE_LIST)
        s_handle_share_list (self, route, wire);
    else {
        //  The main routes by id: anything else reaching us is its bug
        zsys_error ("schedq: %s is not ours", drover_msg_name (wire->id));
        drover_actor_reply (self->outbox, "schedq", route, wire->seq, DROVER_CODE_UNEXPECTED,
                           "not a worker admin message");
    }
}


//  ---------------------------------------------------------------------
//  The elastic pool


//  POOLTYPES config: the pool's settings (ours now): LOAD from now on, and
//  explain with its types
static void
s_handle_pooltypes (self_t *self, zmsg_t *msg)
{
    zframe_t *frame = zmsg_pop (msg);
    assert (frame && zframe_size (frame) == sizeof (void *));
    drover_poolconfig_t *pool;
    memcpy (&pool, zframe_data (frame), sizeof pool);
    zframe_destroy (&frame);
    drover_schedq_set_pooltypes (self->sched, NULL, 0);
    drover_poolconfig_destroy (&self->pool);
    self->pool = pool;
    drover_schedq_set_pooltypes (self->sched, pool->types, pool->ntypes);
    self->load_now = true;
}

//  RETIRE worker: the pool takes it away: no new work, RETIRED once idle
//  (at once if it has no task, or is not here)
static void
s_handle_retire (self_t *self, zmsg_t *msg)
{
    char *id = drover_actor_pop_string (msg);
    s_worker_t *worker = (s_worker_t *) zhashx_lookup (self->workers, id);
    if (worker) {
        worker->retired = true;
        worker->retired_said = false;
        drover_schedq_set_admin (self->sched, id, DROVER_ADMIN_DRAIN);
        s_check_drained (self, id);
    }
    else
        drover_outbox_say (self->outbox, "ss", "RETIRED", id);
    if (self->flags.verbose)
        zsys_debug ("schedq: worker=%s retired by the pool", id);
    zstr_free (&id);
}

//  POOLADMIN worker admin reason: the pool keeps an instance's idle
//  behaviour as the admin book entry of its worker id
static void
s_handle_pooladmin (self_t *self, zmsg_t *msg)
{
    char *id = drover_actor_pop_string (msg);
    int admin = (int) drover_actor_pop_number (msg);
    char *reason = drover_actor_pop_string (msg);
    const drover_adminbook_entry_t *entry = drover_adminbook_lookup (self->book, id);
    s_worker_t *worker = (s_worker_t *) zhashx_lookup (self->workers, id);
    bool same = entry? entry->admin == admin && streq (entry->reason, reason)
                     : admin == DROVER_ADMIN_RUN;
    if (!same
    &&  drover_adminbook_set (self->book, id, admin, 0, reason,
                              entry && entry->admin == admin? entry->since
                                                            : (uint64_t) zclock_time ()))
        zsys_warning ("schedq: worker=%s admin=%s from the pool not kept: the book is full",
                      id, drover_admin_name (admin));
    else
    if (!same) {
        zsys_info ("schedq: worker=%s admin=%s reason=\"%s\"", id, drover_admin_name (admin),
                   reason);
        s_keep_admin (self, id);
    }
    //  A retired worker stays without new work whatever its behaviour
    if (!worker || !worker->retired)
        drover_schedq_set_admin (self->sched, id, admin);    //  -1 unless connected
    zstr_free (&reason);
    zstr_free (&id);
}

//  Tell the pool one demand shape
static void
s_add_demand (uint32_t procs, uint64_t mem, const char *labels, const char *devices,
              uint32_t count, void *arg)
{
    drover_loadreport_add_demand ((drover_loadreport_t *) arg, procs, mem, labels, devices,
                                  count);
}

//  Say LOAD: the demand shapes waiting and every worker's load (one look
//  at each shape and each worker)
static void
s_say_load (self_t *self, int64_t now)
{
    drover_loadreport_t *report = drover_loadreport_new ();
    drover_schedq_each_demand (self->sched, s_add_demand, report);
    //  Affinity requests wait too: the pool must see them
    drover_affinity_each_demand (self->affinity, S_AFFINITY_SHAPES, s_add_demand, report);
    for (const char *id = drover_schedq_first (self->sched); id;
         id = drover_schedq_next (self->sched)) {
        drover_schedq_view_t view;
        drover_schedq_lookup (self->sched, id, &view);
        s_worker_t *worker = (s_worker_t *) zhashx_lookup (self->workers, id);
        drover_loadreport_add_worker (report, id, view.tasks, view.procs_used, view.mem_used,
                                      worker? worker->last_task: 0);
    }
    zframe_t *frame = drover_loadreport_encode (report);
    drover_outbox_say (self->outbox, "sf", "LOAD", frame);
    zframe_destroy (&frame);
    drover_loadreport_destroy (&report);
    self->load_at = now;
    self->load_due = self->load_now = false;
}

//  After a turn: say LOAD if something changed and the last was long
//  enough ago (or a worker came or went). Returns the poll timeout until
//  a LOAD held back is due, or -1.
static int
s_check_load (self_t *self, bool changed, int64_t now)
{
    if (!self->pool)
        return -1;
    if (changed)
        self->load_due = true;
    if (!self->load_due && !self->load_now)
        return -1;
    if (self->load_now || now - self->load_at >= S_LOAD_EVERY) {
        s_say_load (self, now);
        return -1;
    }
    return (int) (self->load_at + S_LOAD_EVERY - now);
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

//  Say PREEMPT for a task a pass stops to make room for another
static void
s_on_preempt (uint64_t task, const char *worker, uint64_t for_task, void *arg)
{
    self_t *self = (self_t *) arg;
    drover_outbox_say (self->to_assign, "s8s8", "PREEMPT", task, worker, for_task);
    zsys_info ("schedq: task=%" PRIu64 " on worker=%s preempted for task=%" PRIu64, task, worker,
               for_task);
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
        s_worker_t *worker = (s_worker_t *) zhashx_lookup (self->workers, id);
        counts [worker && worker->level > 1? DROVER_METRIC_WORKERS_LEVEL_2
                                           : DROVER_METRIC_WORKERS_LEVEL_1]++;
        counts [DROVER_METRIC_PROCS] += view.procs;
        counts [DROVER_METRIC_PROCS_USED] += view.procs_used;
        counts [DROVER_METRIC_MEMORY] += view.mem;
        counts [DROVER_METRIC_MEMORY_USED] += view.mem_used;
        counts [DROVER_METRIC_OFFERS_HELD] += view.held;
        for (size_t index = 0; index < view.ndevices; index++) {
            bool gpu = streq (view.devices [index].name, "gpu");
            counts [gpu? DROVER_METRIC_DEVICES_GPU: DROVER_METRIC_DEVICES_OTHER]
                += view.devices [index].count;
            counts [gpu? DROVER_METRIC_DEVICES_USED_GPU: DROVER_METRIC_DEVICES_USED_OTHER]
                += view.devices_used [index];
        }
    }
    counts [DROVER_METRIC_SHARE_OWNERS] = drover_fairshare_owners (drover_schedq_fairshare (self->sched));
    counts [DROVER_METRIC_QUOTA_HELD] = drover_schedq_quota_held (self->sched);
    drover_metrics_t *metrics = drover_metrics_new ();
    for (int id = DROVER_METRIC_WORKERS_OK; id <= DROVER_METRIC_OFFERS_HELD; id++)
        if (id != DROVER_METRIC_WORKERS_LOST)       //  health's
            drover_metrics_set (metrics, (drover_metric_t) id, counts [id]);
    drover_metrics_say (metrics, self->outbox, round);
    drover_metrics_destroy (&metrics);
}

//  CONFIGURE's share settings: share/accounts, share/weights, share/quotas
//  (checked at broker start: a refusal here is a bug, logged)
static void
s_configure_shares (self_t *self, zmsg_t *msg)
{
    char *accounts = drover_actor_pop_string (msg);
    char *weights = drover_actor_pop_string (msg);
    char *quotas = drover_actor_pop_string (msg);
    char *error = NULL;
    if (drover_shareboard_configure (self->shares, accounts, weights, quotas, &error)) {
        zsys_error ("schedq: share settings refused: %s", error);
        zstr_free (&error);
    }
    else
        s_shares_changed (self);
    zstr_free (&accounts);
    zstr_free (&weights);
    zstr_free (&quotas);
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
        s_handle_fleet (self);
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
        s_handle_kept_admin (self, msg);
    else
    if (streq (command, "SHARE"))
        s_handle_kept_share (self, msg);
    else
    if (streq (command, "POOLTYPES"))
        s_handle_pooltypes (self, msg);
    else
    if (streq (command, "RETIRE"))
        s_handle_retire (self, msg);
    else
    if (streq (command, "POOLADMIN"))
        s_handle_pooladmin (self, msg);
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
        if (zmsg_size (msg) >= 3) {
            s_configure_shares (self, msg);
            self->quotas_due = true;    //  once after it, whatever the shares are
        }
        if (zmsg_size (msg) >= 2) {
            self->preemption = drover_actor_pop_number (msg) != 0;
            self->preempt_max = (uint32_t) drover_actor_pop_number (msg);
            drover_schedq_set_preemption (self->sched, self->preemption? self->preempt_max: 0,
                                          s_on_preempt, self);
        }
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
        s_queue (self, record);
    else
    if (record->kind == DROVER_RECORD_TAKE)
        s_take (self, record);
    else
    if (record->kind == DROVER_RECORD_FREE)
        s_handle_free (self, record->task,
                       (record->flags & DROVER_RECORD_FREE_RETURNED) != 0);
    else
    if (record->kind == DROVER_RECORD_MSG) {
        zframe_t *route = zframe_new (drover_record_route (record), record->route_size);
        s_handle_wire (self, route, record->msg);
        zframe_destroy (&route);
    }
    else {
        zsys_error ("schedq: unexpected record=%s", drover_record_word (record));
        assert (false);         //  the vocabulary is in ACTORS.md
    }
}

//  Start loading the index slot of the task of a record a few ahead (the
//  outbox calls this): each a cache miss with a million tasks queued
static void
s_handle_ahead (void *arg, const drover_record_t *record)
{
    self_t *self = (self_t *) arg;
    if (record->kind == DROVER_RECORD_QUEUE || record->kind == DROVER_RECORD_TAKE
    ||  record->kind == DROVER_RECORD_FREE)
        drover_schedq_prefetch (self->sched, record->task);
}

//  The actor; args is the inproc endpoint (a string) to bind for the link
//  to assign (actors/ACTORS.md, "The link")
void
drover_schedq_actor (zsock_t *pipe, void *args)
{
    drover_actor_name_thread ("schedq");
    self_t *self = s_self_new (pipe, (const char *) args);
    zsock_signal (pipe, 0);
    int wait = -1;              //  until a LOAD held back is due, or input
    int64_t held_until = 0;     //  msec monotonic the sockets stay unread until
    while (!self->flags.stopping) {
        if (drover_actor_wait (self->poller, wait, held_until) == -1)
            break;              //  interrupted
        int read = drover_actor_read_ahead (self->poller, self->pipe, self->link,
                                           s_handle_command, s_handle_record, s_handle_ahead,
                                           self);
        if (read == -1)
            break;              //  the context is ending
        //  One pass per turn: placements see every command read (or an
        //  affinity request's wait for its first worker ended)
        int64_t due = drover_affinity_deadline (self->affinity);
        if ((read || (due != -1 && zclock_mono () >= due)) && !self->flags.stopping)
            s_schedule (self);
        wait = s_check_load (self, read > 0, zclock_mono ());
        due = drover_affinity_deadline (self->affinity);
        if (due != -1) {
            int until = (int) (due > zclock_mono ()? due - zclock_mono (): 0);
            wait = wait == -1 || until < wait? until: wait;
        }
        s_say_quotas (self);
        //  The link first: an ASSIGN is on the way to an offer
        drover_actor_flush (self->poller, DROVER_LINK_AT, self->to_assign, self->link);
        drover_actor_flush (self->poller, DROVER_PIPE_AT, self->outbox, self->pipe);
        held_until = read > 0 && s_may_hold (self)? zclock_mono () + S_HOLD_WHILE_LENT: 0;
    }
    s_self_destroy (&self);
}
