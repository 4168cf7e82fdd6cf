/*  =========================================================================
    drover_store_actor - the store actor: keeps the broker's state through a
    backend, numbers and publishes events

    The backend (src/broker/store/drover_store.h: SQLite in the state directory,
    PostgreSQL when state-dir is a postgresql:// URI, or memory with
    durability off) decides how things are kept; this actor
    does the I/O around it. At start it opens the state and says OPENED,
    then hands assign every task it kept (RESTORE, one record each), says
    the kept settings, services and shares (ADMIN, SERVICE, SHARE), then
    STATE and LOADED, and from then on keeps what it is told:

    - every change assign says (CHANGE: a task's event and its state after
      it) and every other actor's EVENT gets the next sequence number and
      waits in the turn's batch;
    - at the end of a turn the batch is applied in one transaction (group
      commit: one per turn, never one per task; with durability batch, at
      most every commit-every msec), and only then are its events
      published (PUBLISH) and the replies held for it (REPLY: TASK
      ACCEPTED, TASK DONE, the OK to a RESULT, with durability full) sent
      on to their peers (SEND). A reply said after a change is never sent
      before that change is committed. While tasks run, what comes in
      the S_GROUP_WAIT after a commit would only wait for the next one:
      the pipe is left unread to then, so a busy broker wakes the store
      once a group commit, not once a batch it says.
    - a batch the backend could not keep (disk full, I/O error) stays
      pending, with its replies, and is tried again after a pause, so
      nothing is acknowledged that was not saved and nothing is lost once
      the cause goes; but the tasks submitted in it are dropped from it
      (UNSAVED to assign, which forgets them) and their TASK ACCEPTED
      becomes ERROR 507: a submit is answered at once, not held for as
      long as the disk stays full;
    - final tasks past the history settings are deleted a bounded batch
      at a time, between turns.
    - a task assign no longer holds (past keep-finished) is read back from
      the history when a client waits on it or shows it (RECALL): once
      every change said before is committed, each one kept and final goes
      to assign as a RESTORE, then RECALLED.
    - an admin's STATE BACKUP copies the SQLite state into a file of its
      own (drover_sqlbackup), S_BACKUP_PAGES pages a turn between the
      turn's commit and its next wait, so commits go on meanwhile (each
      one written into the copy as well); progress is published as
      state.backup events, the end as state.backup.done or .failed, and
      the admin answered BACKUP DONE or ERROR. One backup at a time.
    - a PostgreSQL state is opened with the leader's fencing token: once
      a write is refused because a newer leader holds the state, the
      store says FENCED (once) and every later batch is refused like a
      failed one (backing off as above) until the broker stops it.

    What it hears and says, and how: actors/ACTORS.md, "store" and "How
    actors talk".
    =========================================================================
*/

#include "drover_store_actor.h"
#include "drover_store.h"
#include "drover_actor.h"
#include "drover_metrics.h"
#include "drover_config.h"
#include "drover_slab.h"

//  Restored tasks said per BATCH while loading
#define S_RESTORE_BATCH     1024
//  Restored tasks said and not yet restored by assign, at most: the records
//  in flight are freed in assign's thread, so a store running ahead would
//  hold every task twice at the peak of a restart
#define S_RESTORE_AHEAD     (8 * S_RESTORE_BATCH)
//  Restored tasks between two progress lines in the log
#define S_RESTORE_PROGRESS  100000
//  msec between two tries of a batch the backend refused, at first and at most
#define S_RETRY_MIN         50
#define S_RETRY_MAX         2000
//  msec a batch nobody waits on (no reply held for it, no recall: a task
//  offered or started, an event) may wait for one that somebody does,
//  with durability full: the offers and starts of a busy broker ride
//  on the commit of the next result or submit instead of one fsync each
#define S_DEFER_MAX         10
//  msec after a commit within which, with durability full, a batch that
//  replies wait on waits for the next commit while other tasks run: the
//  results of a busy broker share an fsync. A broker with nothing else
//  running (one client's round trip), or that last committed longer ago,
//  commits at once.
#define S_GROUP_WAIT        4
//  msec between two prunes of the history while nothing is left to prune
#define S_PRUNE_EVERY       1000
//  rows one prune deletes at most: a turn stays short
#define S_PRUNE_ROWS        1000
//  tasks remembered as unsaved, so that an ACCEPTED assign said before it
//  heard UNSAVED is refused too
#define S_UNSAVED_MAX       4096
//  pages a backup copies in one turn (1 MiB of 4 KiB pages: a few msec)
#define S_BACKUP_PAGES      256
//  msec between two progress events of a backup
#define S_BACKUP_PROGRESS   2000

typedef struct {
    zsock_t *pipe;              //  commands from the broker main
    drover_outbox_t *outbox;    //  what this turn says: PUBLISH, STATE...
    drover_outbox_t *held;      //  replies held until the pending batch is committed
    drover_poller_t *poller;    //  the pipe
    drover_store_t *backend;  //  where the state is kept
    int durability;             //  drover_durability_t
    uint32_t commit_every;      //  msec between commits with durability batch
    drover_store_actor_args_t args;   //  the settings we were started with (strings not kept)
    drover_change_t **pending;  //  changes numbered, not yet committed, in seq order
    size_t npending;            //  changes in pending
    size_t pending_max;         //  room in pending
    uint64_t next_seq;          //  sequence number of the next change
    int64_t committed_at;       //  msec (mono) of the last commit
    int64_t pending_since;      //  msec (mono) the oldest pending change was kept
    drover_slab_t *inflight;    //  tasks assigned or running, as the changes said: their ids
    int64_t retry_at;           //  msec (mono) before which a refused batch is not tried
    int retry_wait;             //  msec of the current pause after a refusal
    int64_t prune_at;           //  msec (mono) of the next prune
    uint64_t commits;           //  batches committed
    uint64_t changes;           //  changes committed
    uint64_t refusals;          //  batches the backend refused
    uint64_t restored;          //  tasks handed to assign while loading
    uint64_t restored_heard;    //  of those, the ones assign said it restored (RESTORED)
    uint64_t unsaved [S_UNSAVED_MAX];   //  tasks whose submit could not be saved, a ring
    size_t nunsaved;            //  ids ever put in unsaved
    char error [DROVER_STORE_ERROR_MAX];  //  why the last batch was refused
    bool service_unsaved;       //  the last KEEPSERVICE failed: its OK becomes ERROR 507
    char service_error [DROVER_STORE_ERROR_MAX];  //  why it failed
    bool fenced;                //  FENCED said: a newer leader holds the state
    zlist_t *recalls;           //  RECALL commands (zmsg_t: ref, ids) to answer once
                                //  nothing is pending, in order (owned)
    drover_sqlbackup_t *backup; //  the STATE BACKUP in progress, or NULL
    zframe_t *backup_route;     //  the route of the admin who asked for it
    uint32_t backup_seq;        //  its request's seq
    int64_t backup_started;     //  msec (mono) it was asked for
    int64_t backup_told;        //  msec (mono) of its last progress event
    uint64_t backups_ok;        //  backups made since the broker started
    uint64_t backups_failed;    //  backups that failed once started
    uint64_t backup_last;       //  seconds since the epoch of the last one made, 0 if none
    drover_actor_flags_t flags; //  EVENTS, VERBOSE, $TERM
} self_t;

//  Return the durability named by text ("full", "batch", "off"), or -1
int
drover_durability_parse (const char *text)
{
    return !text? -1:
           streq (text, "full")? DROVER_DURABILITY_FULL:
           streq (text, "batch")? DROVER_DURABILITY_BATCH:
           streq (text, "off")? DROVER_DURABILITY_OFF: -1;
}

//  Create the actor's state and open the backend; NULL with *error_p set
//  if the state cannot be opened
static self_t *
s_self_new (zsock_t *pipe, const drover_store_actor_args_t *args, char **error_p)
{
    drover_store_t *backend = args->durability == DROVER_DURABILITY_OFF
                              ? drover_store_open_memory ()
                              : drover_store_is_postgres (args->state_dir)
                              ? drover_store_open_postgres (args->state_dir, args->fence,
                                                              error_p)
                              : drover_store_open_sqlite (args->state_dir, error_p);
    if (!backend)
        return NULL;
    self_t *self = (self_t *) zmalloc (sizeof (self_t));
    self->pipe = pipe;
    self->outbox = drover_outbox_new ();
    self->held = drover_outbox_new ();
    self->recalls = zlist_new ();
    //  A set of ids, no allocation per entry: every task passes through it
    self->inflight = drover_slab_new (sizeof (uint64_t));
    self->poller = drover_poller_new ();
    drover_poller_add (self->poller, pipe);
    self->backend = backend;
    self->args = *args;
    self->args.state_dir = NULL;
    self->durability = args->durability;
    self->commit_every = args->commit_every;
    self->next_seq = drover_store_meta (backend)->next_seq;
    self->committed_at = zclock_mono ();
    self->prune_at = self->committed_at + S_PRUNE_EVERY;
    self->retry_wait = S_RETRY_MIN;
    return self;
}

static void s_commit (self_t *self, int64_t now);

//  Destroy the actor's state: a batch left waiting (S_DEFER_MAX) is
//  committed; what could not be is lost (as a crash would lose it), but
//  said so
static void
s_self_destroy (self_t **self_p)
{
    self_t *self = *self_p;
    if (!self)
        return;
    if (self->npending && !self->fenced && zclock_mono () >= self->retry_at
    &&  self->durability == DROVER_DURABILITY_FULL)
        s_commit (self, INT64_MAX);     //  due whatever it waits for
    if (self->npending)
        zsys_warning ("store: stopping with changes=%zu not committed", self->npending);
    zsys_info ("store: stopping commits=%" PRIu64 " changes=%" PRIu64 " refused=%" PRIu64,
               self->commits, self->changes, self->refusals);
    if (self->backup)
        zsys_warning ("store: stopping, backup path=%s abandoned (its part removed)",
                      drover_sqlbackup_path (self->backup));
    drover_sqlbackup_destroy (&self->backup);
    zframe_destroy (&self->backup_route);
    for (size_t index = 0; index < self->npending; index++)
        drover_change_destroy (&self->pending [index]);
    free (self->pending);
    zmsg_t *recall;
    while ((recall = (zmsg_t *) zlist_pop (self->recalls)))
        zmsg_destroy (&recall);
    zlist_destroy (&self->recalls);
    drover_slab_destroy (&self->inflight);
    drover_store_destroy (&self->backend);
    drover_poller_destroy (&self->poller);
    drover_outbox_destroy (&self->held);
    drover_outbox_destroy (&self->outbox);
    free (self);
    *self_p = NULL;
}


//  ---------------------------------------------------------------------
//  Loading

static void
    s_handle_command (void *arg, zmsg_t *msg);
static void
    s_handle_record (void *arg, drover_record_t *record);

//  Hand one kept task to assign (the backend's load calls this); while
//  S_RESTORE_AHEAD tasks wait for assign, wait for its RESTORED
static int
s_restore_one (void *arg, drover_change_t **change_p)
{
    self_t *self = (self_t *) arg;
    drover_outbox_say_change (self->outbox, DROVER_RECORD_RESTORE, change_p);
    if (++self->restored % S_RESTORE_PROGRESS == 0)
        zsys_info ("store: loading, tasks=%" PRIu64 " so far", self->restored);
    if (drover_outbox_size (self->outbox) >= S_RESTORE_BATCH
    &&  drover_outbox_flush (self->outbox, self->pipe) == -1)
        return -1;              //  the context is ending
    while (self->restored - self->restored_heard >= S_RESTORE_AHEAD && !self->flags.stopping)
        if (drover_outbox_receive (self->pipe, 0, s_handle_command, s_handle_record, self) == -1)
            return -1;          //  the context is ending
    return self->flags.stopping? -1: 0;
}

//  Say one kept setting of a worker to schedq (the backend's load_admin
//  calls this)
static int
s_restore_admin (void *arg, const drover_store_admin_t *admin)
{
    self_t *self = (self_t *) arg;
    drover_outbox_say (self->outbox, "ss44s8", "ADMIN", admin->worker, admin->admin,
                       admin->flags, admin->reason, admin->since);
    return 0;
}

//  Say one kept service's definition to the reconciler (the backend's
//  load_services calls this)
static int
s_restore_service (void *arg, const char *name, const byte *def, size_t size)
{
    self_t *self = (self_t *) arg;
    zframe_t *frame = zframe_new (def, size);
    drover_outbox_say (self->outbox, "sf", "SERVICE", frame);
    zframe_destroy (&frame);
    return 0;
}

//  Say one kept share to schedq (the backend's load_shares calls this):
//  members "-" for an owner's (NULL: not an account)
static int
s_restore_share (void *arg, const drover_store_share_t *share)
{
    self_t *self = (self_t *) arg;
    drover_outbox_say (self->outbox, "ss4ss", "SHARE", share->name, share->weight,
                       share->members? share->members: "-", share->quota);
    return 0;
}

//  Hand every kept task to assign, then say STATE and LOADED. Returns 0
//  (also when told to stop meanwhile: nothing more is said), or -1 if the
//  state cannot be read (the broker must not start).
static int
s_load (self_t *self, char **error_p)
{
    int64_t started = zclock_mono ();
    char error [DROVER_STORE_ERROR_MAX];
    drover_store_set_records (self->backend, true);     //  assign takes records
    int64_t restored = drover_store_load (self->backend, self->args.keep_finished,
                                            s_restore_one, self, error, sizeof error);
    if (self->flags.stopping)
        return 0;
    if (restored < 0) {
        *error_p = strdup (error);
        return -1;
    }
    int64_t admins = drover_store_load_admin (self->backend, s_restore_admin, self,
                                                error, sizeof error);
    if (admins < 0) {
        *error_p = strdup (error);
        return -1;
    }
    if (admins > 0)
        zsys_notice ("store: loaded worker settings=%" PRId64, admins);
    int64_t services = drover_store_load_services (self->backend, s_restore_service, self,
                                                     error, sizeof error);
    if (services < 0) {
        *error_p = strdup (error);
        return -1;
    }
    if (services > 0)
        zsys_notice ("store: loaded services=%" PRId64, services);
    int64_t shares = drover_store_load_shares (self->backend, s_restore_share, self,
                                               error, sizeof error);
    if (shares < 0) {
        *error_p = strdup (error);
        return -1;
    }
    if (shares > 0)
        zsys_notice ("store: loaded shares=%" PRId64, shares);
    const drover_store_meta_t *meta = drover_store_meta (self->backend);
    drover_outbox_say (self->outbox, "ss", "STATE", meta->state);
    drover_outbox_say (self->outbox, "s88", "LOADED", meta->next_task, (uint64_t) restored);
    drover_outbox_flush (self->outbox, self->pipe);
    zsys_notice ("store: loaded backend=%s state=%s tasks=%" PRId64 " next_task=%" PRIu64
                 " next_seq=%" PRIu64 " msec=%" PRId64, drover_store_name (self->backend),
                 *meta->state? meta->state: "none", restored, meta->next_task, meta->next_seq,
                 zclock_mono () - started);
    return 0;
}


//  ---------------------------------------------------------------------
//  Keeping

//  Number a change and add it to the pending batch; it is ours from now on
static void
s_keep (self_t *self, drover_change_t **change_p)
{
    drover_change_t *change = *change_p;
    *change_p = NULL;
    change->seq = self->next_seq++;
    if (self->npending == 0)
        self->pending_since = zclock_mono ();
    if (change->task) {
        if (change->state == DROVER_TASK_ASSIGNED || change->state == DROVER_TASK_RUNNING)
            drover_slab_insert (self->inflight, change->task);     //  0 if held: kept
        else {
            uint32_t held = drover_slab_find (self->inflight, change->task);
            if (held)
                drover_slab_delete (self->inflight, held);
        }
    }
    if (self->npending == self->pending_max) {
        self->pending_max = self->pending_max? self->pending_max * 2: 1024;
        self->pending = (drover_change_t **) realloc (self->pending,
                                                      self->pending_max * sizeof (drover_change_t *));
        assert (self->pending);
    }
    self->pending [self->npending++] = change;
}

//  EVENT topic body from another actor: kept like a task's change
static void
s_handle_event (self_t *self, zmsg_t *msg)
{
    char topic [32];
    drover_actor_pop_text (msg, topic, sizeof topic);
    zframe_t *body = zmsg_pop (msg);
    assert (body);              //  an actor that says less is our bug
    drover_event_t event;
    int rc = drover_event_decode (&event, zframe_data (body), zframe_size (body));
    assert (rc == 0);           //  our own encoding
    zframe_destroy (&body);
    drover_change_t *change = drover_change_new (topic, event.task);
    change->time = event.time;
    change->attempt = event.attempt;
    snprintf (change->worker, sizeof change->worker, "%s", event.worker);
    snprintf (change->reason, sizeof change->reason, "%s", event.reason);
    s_keep (self, &change);
}

//  Say PUBLISH topic body owner for a committed change
static void
s_publish (self_t *self, const drover_change_t *change)
{
    drover_event_t event;
    drover_change_event (change, &event);
    zframe_t *body = drover_event_encode (&event);
    zmsg_t *command = zmsg_new ();
    zmsg_addstr (command, "PUBLISH");
    zmsg_addstr (command, change->topic);
    zmsg_append (command, &body);
    zmsg_addstr (command, change->owner);
    drover_outbox_add (self->outbox, &command);
}

//  After a write failed: if fencing refused it, say FENCED, once
static void
s_check_fenced (self_t *self, const char *error)
{
    if (self->fenced || !drover_store_fenced (self->backend))
        return;
    self->fenced = true;
    zsys_error ("store: %s: this broker must stop serving", error);
    drover_outbox_say (self->outbox, "ss", "FENCED", error);
}

//  Return when the pending batch is due (msec, mono): with durability
//  batch commit-every after the last commit; with full at once if a
//  recall waits on it, or a reply does and no other task runs, else
//  S_GROUP_WAIT after the last commit if a reply waits, else S_DEFER_MAX
//  after its oldest change
static int64_t
s_commit_at (self_t *self)
{
    if (self->durability == DROVER_DURABILITY_BATCH)
        return self->committed_at + self->commit_every;
    if (zlist_size (self->recalls) || self->backup)
        return 0;
    if (drover_outbox_size (self->held))
        return drover_slab_size (self->inflight)? self->committed_at + S_GROUP_WAIT: 0;
    return self->pending_since + S_DEFER_MAX;
}

//  Return until when the pipe may be left unread (msec, mono), or 0. With
//  durability full and at least two tasks running, whatever comes before
//  S_GROUP_WAIT after the last commit would wait for that commit anyway:
//  a reply waits for its group, a change nobody waits on longer. Left
//  unread, it wakes neither this thread nor the main (whose send finds
//  nobody to wake): the store sleeps to the commit and reads it all then,
//  once a group, not once a batch. Not while a recall, a backup or a
//  refused batch waits. Only if every task running ended meanwhile would
//  the store have committed sooner, at once: then the last replies of a
//  burst wait at most S_GROUP_WAIT, as a group's do. A lone round trip,
//  or two, never waits.
static int64_t
s_hold_until (self_t *self, int64_t now)
{
    if (self->durability != DROVER_DURABILITY_FULL || drover_slab_size (self->inflight) < 2
    ||  zlist_size (self->recalls) || self->backup || self->retry_at > now)
        return 0;
    int64_t until = self->committed_at + S_GROUP_WAIT;
    if (self->npending && s_commit_at (self) < until)
        until = s_commit_at (self);
    return until > now? until: 0;
}

//  Tell whether the pending batch is to be committed now
static bool
s_commit_due (self_t *self, int64_t now)
{
    if (self->npending == 0 || now < self->retry_at)
        return false;
    return now >= s_commit_at (self);
}

//  Tell whether a task's submit could not be saved
static bool
s_unsaved (self_t *self, uint64_t task)
{
    size_t held = self->nunsaved < S_UNSAVED_MAX? self->nunsaved: S_UNSAVED_MAX;
    for (size_t index = 0; index < held; index++)
        if (self->unsaved [index] == task)
            return true;
    return false;
}

//  A held reply: if it is the TASK ACCEPTED of a submit that could not be
//  saved, answer ERROR 507 instead (drover_outbox_each calls this)
static void
s_refuse_unsaved (void *arg, drover_record_t *record)
{
    self_t *self = (self_t *) arg;
    uint32_t seq;
    if (!record->payload
    ||  drover_msg_peek (zframe_data (record->payload), zframe_size (record->payload), &seq)
        != DROVER_MSG_TASK_ACCEPTED)
        return;
    drover_msg_t *accepted = drover_msg_new (0);
    int rc = drover_msg_decode (accepted, zframe_data (record->payload),
                                zframe_size (record->payload));
    if (rc == 0 && s_unsaved (self, accepted->task)) {
        drover_msg_t *refusal = drover_msg_new (DROVER_MSG_ERROR);
        refusal->seq = seq;
        refusal->code = DROVER_CODE_NOT_SAVED;
        char *reason = zsys_sprintf ("not saved, not accepted: %s; retry later", self->error);
        drover_msg_set_reason (refusal, reason);
        zstr_free (&reason);
        zframe_t *payload = drover_msg_encode (refusal);
        if (payload) {
            zframe_destroy (&record->payload);
            record->payload = payload;
        }
        drover_msg_destroy (&refusal);
    }
    drover_msg_destroy (&accepted);
}

//  A batch was refused: drop from it the tasks submitted in it (assign
//  forgets them: UNSAVED) and refuse their submits 507; what else it holds
//  (results, events) stays pending, tried again
static void
s_unsave (self_t *self)
{
    size_t kept = 0, dropped = 0;
    size_t first = self->nunsaved;
    for (size_t index = 0; index < self->npending; index++) {
        drover_change_t *change = self->pending [index];
        if (change->submit) {
            self->unsaved [self->nunsaved++ % S_UNSAVED_MAX] = change->task;
            drover_outbox_say (self->outbox, "s8", "UNSAVED", change->task);
        }
    }
    if (self->nunsaved == first)
        return;
    for (size_t index = 0; index < self->npending; index++) {
        drover_change_t *change = self->pending [index];
        if (change->task && s_unsaved (self, change->task)) {
            drover_change_destroy (&self->pending [index]);
            dropped++;
        }
        else
            self->pending [kept++] = change;
    }
    self->npending = kept;
    drover_outbox_each (self->held, s_refuse_unsaved, self);
    zsys_warning ("store: submits=%zu refused 507 and forgotten, changes=%zu dropped",
                  self->nunsaved - first, dropped);
}

//  Commit the pending batch if it is due; then publish its events and send
//  the replies held for it. A refused batch stays pending, with its replies,
//  but for its submits (s_unsave).
static void
s_commit (self_t *self, int64_t now)
{
    if (!s_commit_due (self, now))
        return;
    char *error = self->error;
    if (drover_store_apply (self->backend, self->pending, self->npending,
                              error, sizeof self->error) == -1) {
        self->refusals++;
        zsys_error ("store: batch of changes=%zu not saved, trying again in %d msec: %s",
                    self->npending, self->retry_wait, error);
        s_unsave (self);
        s_check_fenced (self, error);
        self->retry_at = now + self->retry_wait;
        self->retry_wait = self->retry_wait * 2 < S_RETRY_MAX? self->retry_wait * 2: S_RETRY_MAX;
        return;
    }
    if (self->retry_wait > S_RETRY_MIN)
        zsys_notice ("store: saving again, batch of changes=%zu committed", self->npending);
    self->retry_wait = S_RETRY_MIN;
    self->committed_at = now;
    self->commits++;
    self->changes += self->npending;
    for (size_t index = 0; index < self->npending; index++) {
        if (!self->flags.silent)
            s_publish (self, self->pending [index]);
        drover_change_destroy (&self->pending [index]);
    }
    self->npending = 0;
}

//  The reconciler's OK to a SERVICE ADMIN whose definition could not be
//  kept (said right after its KEEPSERVICE): ERROR 507 instead
static void
s_refuse_service (self_t *self, drover_record_t *record)
{
    uint32_t seq = 0;
    self->service_unsaved = false;
    if (!record->payload
    ||  drover_msg_peek (zframe_data (record->payload), zframe_size (record->payload), &seq)
        != DROVER_MSG_OK)
        return;
    drover_msg_t *error = drover_msg_new (DROVER_MSG_ERROR);
    error->seq = seq;
    error->code = DROVER_CODE_NOT_SAVED;
    char *reason = zsys_sprintf ("not saved: %s", self->service_error);
    drover_msg_set_reason (error, reason);
    zstr_free (&reason);
    zframe_t *payload = drover_msg_encode (error);
    drover_msg_destroy (&error);
    if (payload) {
        zframe_destroy (&record->payload);
        record->payload = payload;
    }
}

//  REPLY: send it on after the commit that ends this turn, which holds
//  every change said before it (and those said after it in the same
//  batch: a request's reply may come before the changes it caused)
static void
s_handle_reply (self_t *self, drover_record_t *record)
{
    if (self->nunsaved)
        s_refuse_unsaved (self, record);    //  said before assign heard UNSAVED
    if (self->service_unsaved)
        s_refuse_service (self, record);
    drover_outbox_move (self->held, record, DROVER_RECORD_SEND);
}

//  Delete old history, a bounded batch at a time
static void
s_prune (self_t *self, int64_t now)
{
    if (now < self->prune_at || self->durability == DROVER_DURABILITY_OFF)
        return;
    char error [DROVER_STORE_ERROR_MAX];
    int64_t deleted = drover_store_prune (self->backend, self->args.history_count,
                                            (uint64_t) self->args.history_age * 1000,
                                            self->args.history_events,
                                            (uint64_t) zclock_time (), S_PRUNE_ROWS,
                                            error, sizeof error);
    if (deleted < 0) {
        zsys_warning ("store: history not pruned: %s", error);
        s_check_fenced (self, error);
    }
    else
    if (deleted && self->flags.verbose)
        zsys_debug ("store: pruned rows=%" PRId64, deleted);
    //  More left: go on next turn, else look again later
    self->prune_at = deleted >= S_PRUNE_ROWS? now: now + S_PRUNE_EVERY;
}


//  ---------------------------------------------------------------------
//  Handling commands

//  The answer a KEEPADMIN or KEEPSHARE carries (route, seq, text): OK text
//  once what is pending is committed, or ERROR 507 naming why the setting
//  was not kept
static void
s_answer_admin (self_t *self, zmsg_t *msg, const char *error)
{
    zframe_t *route = zmsg_pop (msg);
    uint32_t seq = (uint32_t) drover_actor_pop_number (msg);
    char *text = drover_actor_pop_string (msg);
    assert (route && text);     //  schedq says them
    if (error) {
        char *reason = zsys_sprintf ("not saved: %s", error);
        drover_actor_answer_to (self->held, DROVER_RECORD_SEND, "store", zframe_data (route),
                                zframe_size (route), seq, DROVER_CODE_NOT_SAVED, reason, "");
        zstr_free (&reason);
    }
    else
        drover_actor_answer_to (self->held, DROVER_RECORD_SEND, "store", zframe_data (route),
                                zframe_size (route), seq, DROVER_CODE_OK, text, "");
    zstr_free (&text);
    zframe_destroy (&route);
}

//  KEEPADMIN: keep an operator's setting of a worker at once; if it cannot
//  be kept, schedq still holds it until the broker stops. The OK to the
//  request that changed it may ride along: answered once kept, or refused
static void
s_keep_admin (self_t *self, zmsg_t *msg)
{
    char *worker = drover_actor_pop_string (msg);
    int admin = (int) drover_actor_pop_number (msg);
    uint32_t flags = (uint32_t) drover_actor_pop_number (msg);
    char *reason = drover_actor_pop_string (msg);
    uint64_t since = drover_actor_pop_number (msg);
    drover_store_admin_t row = {
        .worker = worker, .admin = admin, .flags = flags, .reason = reason, .since = since
    };
    char error [DROVER_STORE_ERROR_MAX];
    bool kept = drover_store_save_admin (self->backend, &row, error, sizeof error) == 0;
    if (!kept) {
        zsys_error ("store: worker=%s setting not kept: %s", worker, error);
        s_check_fenced (self, error);
    }
    if (zmsg_size (msg))
        s_answer_admin (self, msg, kept? NULL: error);
    zstr_free (&reason);
    zstr_free (&worker);
}

//  KEEPSHARE: keep a share at once (weight 0: forget it; members "-": an
//  owner's, not an account's); if it cannot be kept, schedq still holds it
//  until the broker stops. The OK to the SHARE ADMIN may ride along, as on
//  KEEPADMIN: answered once kept, or refused 507
static void
s_keep_share (self_t *self, zmsg_t *msg)
{
    char *name = drover_actor_pop_string (msg);
    uint32_t weight = (uint32_t) drover_actor_pop_number (msg);
    char *members = drover_actor_pop_string (msg);
    char *quota = drover_actor_pop_string (msg);
    assert (name && members && quota);     //  schedq says them
    drover_store_share_t row = {
        .name = name, .weight = weight, .members = streq (members, "-")? NULL: members,
        .quota = quota
    };
    char error [DROVER_STORE_ERROR_MAX];
    bool kept = drover_store_save_share (self->backend, &row, error, sizeof error) == 0;
    if (!kept) {
        zsys_error ("store: share=%s not kept: %s", name, error);
        s_check_fenced (self, error);
    }
    if (zmsg_size (msg))
        s_answer_admin (self, msg, kept? NULL: error);
    zstr_free (&quota);
    zstr_free (&members);
    zstr_free (&name);
}

//  KEEPSERVICE: keep a service's definition at once (an empty one: forget
//  it); if it cannot be kept, the reconciler still holds it until the
//  broker stops, and the OK it says next (REPLY, in the same batch) is
//  answered ERROR 507 instead
static void
s_keep_service (self_t *self, zmsg_t *msg)
{
    char *name = drover_actor_pop_string (msg);
    zframe_t *def = zmsg_pop (msg);
    assert (def);               //  the reconciler says it
    self->service_unsaved = drover_store_save_service (self->backend, name, zframe_data (def),
                                                         zframe_size (def), self->service_error,
                                                         sizeof self->service_error) != 0;
    if (self->service_unsaved) {
        zsys_error ("store: service=%s definition not kept: %s", name, self->service_error);
        s_check_fenced (self, self->service_error);
    }
    zframe_destroy (&def);
    zstr_free (&name);
}

//  METRICS round: the online backups made and failed, and when the last
//  one was made
static void
s_handle_metrics (self_t *self, uint64_t round)
{
    drover_metrics_t *metrics = drover_metrics_new ();
    drover_metrics_set (metrics, DROVER_METRIC_BACKUPS_OK, self->backups_ok);
    drover_metrics_set (metrics, DROVER_METRIC_BACKUPS_FAILED, self->backups_failed);
    if (self->backup_last)
        drover_metrics_set (metrics, DROVER_METRIC_BACKUP_LAST, self->backup_last);
    drover_metrics_say (metrics, self->outbox, round);
    drover_metrics_destroy (&metrics);
}

//  Handle one control command (drover_outbox_receive calls this)
static void
s_handle_command (void *arg, zmsg_t *msg)
{
    self_t *self = (self_t *) arg;
    char command [16];
    drover_actor_pop_text (msg, command, sizeof command);
    if (self->flags.verbose)
        zsys_debug ("store: command=%s", command);
    if (streq (command, "EVENT"))
        s_handle_event (self, msg);
    else
    if (streq (command, "RESTORED"))
        self->restored_heard += drover_actor_pop_number (msg);
    else
    if (streq (command, "KEEPADMIN"))
        s_keep_admin (self, msg);
    else
    if (streq (command, "KEEPSERVICE"))
        s_keep_service (self, msg);
    else
    if (streq (command, "KEEPSHARE"))
        s_keep_share (self, msg);
    else
    if (streq (command, "RECALL"))
        zlist_append (self->recalls, zmsg_dup (msg));
    else
    if (streq (command, "METRICS"))
        s_handle_metrics (self, drover_actor_pop_number (msg));
    else
    if (!drover_actor_handle_common (&self->flags, command, msg)) {
        zsys_error ("store: unknown pipe command=%s", command);
        assert (false);         //  the vocabulary is in ACTORS.md
    }
}

//  Answer every RECALL, once nothing said before it waits to be committed:
//  say each of its tasks the history keeps, final, as a RESTORE record
//  (assign puts it back for the request), then RECALLED ref. A task the
//  history no longer keeps is left out: assign says it EXPIRED.
static void
s_answer_recalls (self_t *self)
{
    zmsg_t *recall;
    while (self->npending == 0 && (recall = (zmsg_t *) zlist_pop (self->recalls))) {
        uint64_t ref = drover_actor_pop_number (recall);
        zframe_t *ids = zmsg_pop (recall);
        assert (ids);               //  assign says them
        size_t count = zframe_size (ids) / sizeof (uint64_t);
        for (size_t index = 0; index < count; index++) {
            uint64_t id;
            memcpy (&id, zframe_data (ids) + index * sizeof id, sizeof id);
            drover_change_t *change = NULL;
            char error [DROVER_STORE_ERROR_MAX];
            int found = drover_store_read_task (self->backend, id, &change, error,
                                                  sizeof error);
            if (found < 0)
                zsys_warning ("store: task=%" PRIu64 " not read back: %s", id, error);
            if (found > 0 && drover_change_final (change)) {
                drover_outbox_say_change (self->outbox, DROVER_RECORD_RESTORE, &change);
            }
            drover_change_destroy (&change);
        }
        drover_outbox_say (self->outbox, "s8", "RECALLED", ref);
        zframe_destroy (&ids);
        zmsg_destroy (&recall);
    }
}

//  Add one kept event to an EVENT LIST (the backend's replay calls this)
static int
s_list_event (void *arg, const drover_event_t *event)
{
    drover_msg_t *list = (drover_msg_t *) arg;
    list->events [list->nevents++] = *event;
    return 0;
}

//  EVENT REPLAY since limit: a page of the kept events after since
static void
s_handle_replay (self_t *self, const byte *route, size_t route_size, drover_msg_t *replay)
{
    if (self->durability == DROVER_DURABILITY_OFF) {
        drover_actor_reply_to (self->outbox, "store", route, route_size, replay->seq,
                               DROVER_CODE_UNEXPECTED,
                               "this broker keeps no events (durability off)", "");
        return;
    }
    size_t limit = replay->limit && replay->limit < DROVER_REPLAY_MAX? replay->limit
                                                                      : DROVER_REPLAY_MAX;
    drover_msg_t *list = drover_msg_new (DROVER_MSG_EVENT_LIST);
    list->seq = replay->seq;
    list->events = (drover_event_t *) zmalloc (limit * sizeof (drover_event_t));
    char error [DROVER_STORE_ERROR_MAX];
    //  What is committed, not what waits in this turn's batch: those are
    //  published once committed, and come live
    list->last = drover_store_meta (self->backend)->next_seq - 1;
    if (drover_store_replay (self->backend, replay->since, limit, s_list_event, list,
                               error, sizeof error) < 0) {
        zsys_warning ("store: cannot replay events: %s", error);
        drover_actor_reply_to (self->outbox, "store", route, route_size, replay->seq,
                               DROVER_CODE_INTERNAL, error, "");
    }
    else {
        list->more = list->nevents == limit
                  && list->events [list->nevents - 1].seq < list->last;
        drover_actor_send_to (self->outbox, "store", route, route_size, list, "");
    }
    drover_msg_destroy (&list);
}

//  ---------------------------------------------------------------------
//  Backups

//  Keep an event of the store's own (task 0), published once committed
static void
s_store_event (self_t *self, const char *topic, const char *reason)
{
    drover_change_t *change = drover_change_new (topic, 0);
    change->time = (uint64_t) zclock_time ();
    size_t length = strnlen (reason, sizeof change->reason - 1);   //  cut to fit
    memcpy (change->reason, reason, length);
    change->reason [length] = 0;
    s_keep (self, &change);
}


//  STATE BACKUP path from an admin: start the copy, or refuse it (one
//  runs already, the path is not fit, the backend copies nothing)
static void
s_handle_backup (self_t *self, const byte *route, size_t route_size, drover_msg_t *request)
{
    if (self->backup) {
        char *reason = zsys_sprintf ("a backup is already running (to %s)",
                                     drover_sqlbackup_path (self->backup));
        drover_actor_reply_to (self->outbox, "store", route, route_size, request->seq,
                               DROVER_CODE_CONFLICT, reason, "");
        zstr_free (&reason);
        return;
    }
    char error [DROVER_STORE_ERROR_MAX];
    int code = DROVER_CODE_INTERNAL;
    self->backup = drover_store_backup (self->backend, request->path, &code, error,
                                        sizeof error);
    if (!self->backup) {
        zsys_warning ("store: backup path=%s refused: %s", request->path, error);
        drover_actor_reply_to (self->outbox, "store", route, route_size, request->seq, code,
                               error, "");
        if (code >= 500) {
            self->backups_failed++;
            s_store_event (self, "state.backup.failed", error);
        }
        return;
    }
    self->backup_route = zframe_new (route, route_size);
    self->backup_seq = request->seq;
    self->backup_started = zclock_mono ();
    self->backup_told = self->backup_started;
    zsys_notice ("store: backup path=%s started", request->path);
    char *reason = zsys_sprintf ("started: to %s", request->path);
    s_store_event (self, "state.backup", reason);
    zstr_free (&reason);
}

//  The backup ended (done: in place; else error says why): answer the
//  admin, say it in the log and the events, forget it
static void
s_backup_ended (self_t *self, bool done, const char *error, int64_t now)
{
    drover_sqlbackup_t *backup = self->backup;
    const char *path = drover_sqlbackup_path (backup);
    int64_t msec = now - self->backup_started;
    if (done) {
        self->backups_ok++;
        self->backup_last = (uint64_t) (zclock_time () / 1000);
        uint64_t pages = drover_sqlbackup_copied (backup);
        uint64_t bytes = drover_sqlbackup_bytes (backup);
        char size [32];
        drover_config_print_size (bytes, size, sizeof size);
        zsys_notice ("store: backup path=%s done pages=%" PRIu64 " bytes=%" PRIu64
                     " msec=%" PRId64, path, pages, bytes, msec);
        char *reason = zsys_sprintf ("%" PRIu64 " pages (%s) to %s in %.1f s", pages, size,
                                     path, (double) msec / 1000);
        s_store_event (self, "state.backup.done", reason);
        zstr_free (&reason);
        drover_msg_t *reply = drover_msg_new (DROVER_MSG_BACKUP_DONE);
        reply->seq = self->backup_seq;
        reply->path = strdup (path);
        reply->pages = pages;
        reply->bytes = bytes;
        reply->duration = (uint32_t) (msec < UINT32_MAX? msec: UINT32_MAX);
        drover_actor_send_to (self->outbox, "store", zframe_data (self->backup_route),
                              zframe_size (self->backup_route), reply, "");
        drover_msg_destroy (&reply);
    }
    else {
        self->backups_failed++;
        zsys_error ("store: backup path=%s failed after msec=%" PRId64 ", its part removed:"
                    " %s", path, msec, error);
        s_store_event (self, "state.backup.failed", error);
        drover_actor_reply_to (self->outbox, "store", zframe_data (self->backup_route),
                               zframe_size (self->backup_route), self->backup_seq,
                               DROVER_CODE_NOT_SAVED, error, "");
    }
    drover_sqlbackup_destroy (&self->backup);
    zframe_destroy (&self->backup_route);
}

//  Copy the next pages of the backup in progress, if any; every
//  S_BACKUP_PROGRESS msec say how far it is
static void
s_backup_step (self_t *self, int64_t now)
{
    if (!self->backup)
        return;
    char error [DROVER_STORE_ERROR_MAX];
    int rc = drover_sqlbackup_step (self->backup, S_BACKUP_PAGES, error, sizeof error);
    if (rc != 0) {
        s_backup_ended (self, rc == 1, error, zclock_mono ());
        return;
    }
    if (now - self->backup_told < S_BACKUP_PROGRESS)
        return;
    self->backup_told = now;
    uint64_t copied = drover_sqlbackup_copied (self->backup);
    uint64_t total = drover_sqlbackup_total (self->backup);
    char *reason = zsys_sprintf ("%" PRIu64 "%% (%" PRIu64 " of %" PRIu64 " pages) to %s",
                                 total? copied * 100 / total: 0, copied, total,
                                 drover_sqlbackup_path (self->backup));
    zsys_info ("store: backup %s", reason);
    s_store_event (self, "state.backup", reason);
    zstr_free (&reason);
}

//  Handle one record: CHANGE and REPLY from assign, MSG from a client
static void
s_handle_record (void *arg, drover_record_t *record)
{
    self_t *self = (self_t *) arg;
    if (self->flags.verbose)
        zsys_debug ("store: command=%s", drover_record_word (record));
    if (record->kind == DROVER_RECORD_CHANGE)
        s_keep (self, &record->change);
    else
    if (record->kind == DROVER_RECORD_REPLY)
        s_handle_reply (self, record);
    else
    if (record->kind == DROVER_RECORD_MSG && record->msg->id == DROVER_MSG_EVENT_REPLAY)
        s_handle_replay (self, drover_record_route (record), record->route_size, record->msg);
    else
    if (record->kind == DROVER_RECORD_MSG && record->msg->id == DROVER_MSG_STATE_BACKUP)
        s_handle_backup (self, drover_record_route (record), record->route_size, record->msg);
    else {
        zsys_error ("store: unexpected record=%s", drover_record_word (record));
        assert (false);         //  the vocabulary is in ACTORS.md
    }
}

//  Return when the loop must turn again without input (msec, mono), or -1
static int64_t
s_deadline (self_t *self)
{
    if (self->backup)
        return 0;               //  a backup copies on each turn: no wait
    int64_t deadline = self->durability == DROVER_DURABILITY_OFF? -1: self->prune_at;
    if (self->npending) {
        int64_t commit = s_commit_at (self);
        if (self->retry_at > commit)
            commit = self->retry_at;
        if (deadline == -1 || commit < deadline)
            deadline = commit;
    }
    return deadline;
}

//  Handle a command while the state could not be opened: only the
//  commands every actor accepts ($TERM ends the wait); others are dropped
static void
s_handle_closed (void *arg, zmsg_t *msg)
{
    char command [16];
    drover_actor_pop_text (msg, command, sizeof command);
    drover_actor_handle_common ((drover_actor_flags_t *) arg, command, msg);
}

//  Run the store actor; args is a drover_store_actor_args_t
void
drover_store_actor (zsock_t *pipe, void *args)
{
    drover_actor_name_thread ("store");
    char *error = NULL;
    self_t *self = s_self_new (pipe, (const drover_store_actor_args_t *) args, &error);
    zsock_signal (pipe, 0);                     //  zactor_new returns only after this
    if (!self) {
        zsock_send (pipe, "s4s", "OPENED", 0, error);
        zstr_free (&error);
        //  Wait for $TERM: the broker stops
        drover_actor_flags_t flags = { .stopping = false };
        while (!flags.stopping
        &&  drover_outbox_receive (pipe, 0, s_handle_closed, NULL, &flags) != -1)
            ;
        return;
    }
    zsock_send (pipe, "s4s", "OPENED", 1, drover_store_name (self->backend));
    if (s_load (self, &error) == -1) {
        zsys_error ("store: %s", error);
        drover_outbox_say (self->outbox, "ss", "FATAL", error);
        drover_outbox_flush (self->outbox, self->pipe);
        zstr_free (&error);
    }
    while (!self->flags.stopping) {
        int64_t now = zclock_mono ();
        s_commit (self, now);
        s_answer_recalls (self);
        s_prune (self, now);
        s_backup_step (self, now);
        drover_actor_flush (self->poller, DROVER_PIPE_AT, self->outbox, self->pipe);
        if (self->npending == 0)
            drover_actor_flush (self->poller, DROVER_PIPE_AT, self->held, self->pipe);
        now = zclock_mono ();
        int wait = drover_actor_poll_timeout (s_deadline (self), now);
        if (drover_actor_wait (self->poller, wait, s_hold_until (self, now)) == -1)
            break;              //  interrupted
        if (drover_actor_read (self->poller, self->pipe, NULL, s_handle_command,
                              s_handle_record, self) == -1)
            break;              //  the context is ending
    }
    s_self_destroy (&self);
}
