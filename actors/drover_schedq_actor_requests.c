/*  =========================================================================
    drover_schedq_actor_requests - the schedq actor's answers to clients: WORKER
    ADMIN (hold, drain, resume, kept by worker id), WORKER LIST (the worker
    table, with the workers that went), TASK EXPLAIN and TASK TABLE of
    queued tasks from assign, FLEET for the reconciler; and the settings the
    store kept (ADMIN at start). The actor and its loop are drover_schedq_actor.c.
    =========================================================================
*/

#include "drover_schedq_actor_internal.h"

typedef drover_schedq_actor_self_t self_t;
typedef drover_schedq_actor_worker_t s_worker_t;

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
    //  A worker lent to assign takes nothing new once assign has read the
    //  lease's REVOKE (said at this turn's pass): the OK waits for RETURN
    if (connected && view.lease && request->admin != DROVER_ADMIN_RUN)
        drover_adminwait_add (self->admin_waits, id, route, request->seq, text);
    else
        drover_actor_reply (self->outbox, "schedq", route, request->seq, DROVER_CODE_OK, text);
    if (same || (before == request->admin && request->admin == DROVER_ADMIN_RUN))
        return;                 //  no change, nothing to tell
    if (before == request->admin && !(flags & DROVER_ADMIN_EXIT)) {
        drover_schedq_actor_keep_admin (self, id);
        return;                 //  only the reason changed: kept, not an event
    }
    zsys_notice ("schedq: worker=%s admin=%s reason=\"%s\"", id,
                 drover_admin_name (request->admin), reason);
    if (!self->flags.silent)
        drover_actor_event (self->outbox, s_admin_topic (request->admin), 0, 0, id, reason);
    drover_schedq_actor_keep_admin (self, id);
    s_worker_t *worker = (s_worker_t *) zhashx_lookup (self->workers, id);
    if (worker && request->admin == DROVER_ADMIN_DRAIN)
        worker->leave_sent = false;
    drover_schedq_actor_check_drained (self, id);
}

//  ADMIN from the store at start: a setting it kept
void
drover_schedq_actor_handle_kept_admin (self_t *self, zmsg_t *msg)
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
    if (worker)
        snprintf (row->release, sizeof row->release, "%s", worker->release);
    size += s_fill_admin (self, row);
    row->admin = (uint8_t) view->admin;     //  what it does now
    for (size_t index = 0; index < view->nlabels && index < DROVER_LABELS_MAX; index++) {
        row->labels [row->nlabels++] = strdup (view->labels [index]);
        assert (row->labels [row->nlabels - 1]);
        size += strlen (view->labels [index]) + 3;
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
void
drover_schedq_actor_handle_fleet (self_t *self)
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

//  MSG: a wire message the main handed us, or assign on the link
void
drover_schedq_actor_handle_wire (self_t *self, zframe_t *route, drover_msg_t *wire)
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
    else {
        //  The main routes by id: anything else reaching us is its bug
        zsys_error ("schedq: %s is not ours", drover_msg_name (wire->id));
        drover_actor_reply (self->outbox, "schedq", route, wire->seq, DROVER_CODE_UNEXPECTED,
                           "not a worker admin message");
    }
}
