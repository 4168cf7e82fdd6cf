/*  =========================================================================
    drover_assign_actor_requests - the assign actor's part for requests from
    clients and reports from workers

    Each MSG the main routes to assign: TASK SUBMIT, LIST, EXPLAIN, SHOW,
    CANCEL and WAIT from clients (the owner checked first), TASK STARTED
    and RESULT from workers (fenced by the worker's registration, HEARD
    said to health). The table decides and the answer is said here, before
    drover_assign_actor_carry_out says what the request caused. Reports the table
    refuses are counted and warned about, at a limited rate. Part of the
    actor: it runs in assign's thread, on its state.
    =========================================================================
*/

#include "drover_assign_actor_internal.h"
#include "drover_store_actor.h"

typedef drover_assign_actor_self_t self_t;

//  TASK SUBMIT: the id, or why not
static void
s_handle_submit (self_t *self, const byte *route, size_t route_size, drover_msg_t *msg)
{
    uint64_t task;
    const char *reason;
    int code = msg->service [0]? DROVER_CODE_BAD_REQUEST
             : drover_assign_submit (self->table, msg, route, route_size, &task, &reason);
    if (msg->service [0])
        reason = "service and slot are the broker's own: use SERVICE ADMIN";
    if (code != DROVER_CODE_OK) {
        drover_actor_reply_to (self->outbox, "assign", route, route_size, msg->seq, code, reason, "");
        return;
    }
    msg->task = task;           //  so its first change carries it (s_publish)
    self->submitted++;
    if (drover_assign_state (self->table, task) == DROVER_TASK_QUEUED)
        drover_tasktags_add (self->tags, task, msg);    //  its affinity key, if any
    drover_msg_t reply;
    memset (&reply, 0, sizeof reply);
    reply.id = DROVER_MSG_TASK_ACCEPTED;
    reply.seq = msg->seq;
    reply.task = task;
    strcpy (reply.state_id, self->state_id);
    drover_actor_say_to (self->outbox, self->acks, "assign", route, route_size, &reply, "");
}

//  TASK LIST: counts and rows; rows of queued tasks go by schedq, which
//  says why each waits and sends the table
static void
s_handle_list (self_t *self, const byte *route, size_t route_size, drover_msg_t *msg)
{
    drover_msg_t *reply = drover_msg_new (DROVER_MSG_TASK_TABLE);
    reply->seq = msg->seq;
    //  Counts of every task for all; rows of its own tasks for a non-admin
    const char *owner = msg->roles & DROVER_ROLE_ADMIN? NULL: msg->principal;
    drover_assign_list (self->table, msg->state, msg->limit, owner, msg->labels, msg->nlabels,
                           reply);
    bool queued = false;
    for (uint32_t index = 0; index < reply->nrows && !queued; index++)
        queued = reply->task_rows [index].state == DROVER_TASK_QUEUED;
    if (queued)
        drover_outbox_say_msg (self->to_schedq, route, route_size, &reply);
    else {
        drover_actor_send_to (self->outbox, "assign", route, route_size, reply, "");
        drover_msg_destroy (&reply);
    }
}

//  TASK EXPLAIN of a task the sender may see: a queued task's goes on to
//  schedq, which knows why it waits and answers; any other's state,
//  worker and attempt are answered here
static void
s_handle_explain (self_t *self, const byte *route, size_t route_size, drover_msg_t *msg)
{
    int state = drover_assign_state (self->table, msg->task);
    if (state == DROVER_TASK_UNKNOWN) {
        drover_actor_reply_to (self->outbox, "assign", route, route_size, msg->seq,
                               DROVER_CODE_NOT_FOUND, "unknown task", "");
        return;
    }
    drover_msg_t *reply = drover_msg_new (state == DROVER_TASK_QUEUED?
                                          DROVER_MSG_TASK_EXPLAIN: DROVER_MSG_TASK_EXPLANATION);
    reply->seq = msg->seq;
    reply->task = msg->task;
    if (state == DROVER_TASK_QUEUED)
        //  After the task's QUEUE on the link: schedq holds it, or placed it
        drover_outbox_say_msg (self->to_schedq, route, route_size, &reply);
    else {
        reply->state = (uint8_t) state;
        reply->attempt = drover_assign_attempt (self->table, msg->task);
        snprintf (reply->worker, sizeof reply->worker, "%s",
                  drover_assign_worker (self->table, msg->task));
        drover_actor_send_to (self->outbox, "assign", route, route_size, reply, "");
        drover_msg_destroy (&reply);
    }
}

//  TASK SHOW (its owner checked): everything about the task, or 404
static void
s_handle_show (self_t *self, const byte *route, size_t route_size, drover_msg_t *msg)
{
    const char *reason;
    drover_taskinfo_t *info;
    int code = drover_assign_show (self->table, msg->task, &info, &reason);
    if (code != DROVER_CODE_OK) {
        drover_actor_reply_to (self->outbox, "assign", route, route_size, msg->seq, code, reason, "");
        return;
    }
    drover_msg_t *reply = drover_msg_new (DROVER_MSG_TASK_INFO);
    reply->seq = msg->seq;
    reply->task = msg->task;
    reply->info = info;
    drover_actor_send_to (self->outbox, "assign", route, route_size, reply, "");
    drover_msg_destroy (&reply);
}

//  Warn about a report the table refused (stale attempt, unknown task, or
//  not from the worker's registration)
static void
s_warn_refused (self_t *self, drover_msg_t *msg, int code, const char *reason)
{
    self->stale++;
    self->refused [code == DROVER_CODE_STALE? 0: code == DROVER_CODE_NOT_FOUND? 1: 2]++;
    if (drover_assign_actor_may_warn (self))
        zsys_warning ("assign: %s %s task=%" PRIu64 " attempt=%u worker=%s: %s",
                      code == DROVER_CODE_STALE? "stale":
                      code == DROVER_CODE_NOT_REGISTERED? "unregistered": "unknown",
                      drover_msg_name (msg->id), msg->task, msg->attempt, msg->worker, reason);
}

static void
    s_handle_report (self_t *self, const byte *route, size_t route_size, drover_msg_t *msg);

//  MSG: a request from a client or a report from a worker
void
drover_assign_actor_handle_request (self_t *self, const byte *route, size_t route_size, drover_msg_t *msg)
{
    const char *reason = NULL;
    int code;
    if (msg->id == DROVER_MSG_TASK_SUBMIT)
        s_handle_submit (self, route, route_size, msg);
    else
    if (msg->id == DROVER_MSG_TASK_LIST)
        s_handle_list (self, route, route_size, msg);
    else
    if (((msg->id == DROVER_MSG_TASK_CANCEL || msg->id == DROVER_MSG_TASK_SHOW
          || msg->id == DROVER_MSG_TASK_EXPLAIN)
         && drover_assign_check_owner (self->table, msg, &msg->task, 1, &reason) != 200)
    ||  (msg->id == DROVER_MSG_TASK_WAIT
         && drover_assign_check_owner (self->table, msg, msg->tasks, msg->ntasks, &reason) != 200))
        drover_actor_reply_to (self->outbox, "assign", route, route_size, msg->seq,
                               DROVER_CODE_FORBIDDEN, reason, "");
    else
    if (msg->id == DROVER_MSG_TASK_SHOW)
        s_handle_show (self, route, route_size, msg);
    else
    if (msg->id == DROVER_MSG_TASK_EXPLAIN)
        s_handle_explain (self, route, route_size, msg);
    else
    if (msg->id == DROVER_MSG_TASK_CANCEL) {
        code = drover_assign_cancel (self->table, msg->task, &reason);
        drover_actor_answer_to (self->outbox, code == DROVER_CODE_OK? self->acks: DROVER_RECORD_SEND,
                                "assign", route, route_size, msg->seq, code, reason, "");
    }
    else
    if (msg->id == DROVER_MSG_TASK_WAIT && msg->state_id [0]
    &&  strcmp (msg->state_id, self->state_id)) {
        char text [DROVER_REASON_MAX + 1];
        snprintf (text, sizeof text, "broker state changed (was %s, now %s): tasks submitted "
                  "before are unknown to it", msg->state_id, self->state_id);
        drover_actor_reply_to (self->outbox, "assign", route, route_size, msg->seq,
                               DROVER_CODE_STATE_CHANGED, text, "");
    }
    else
    if (msg->id == DROVER_MSG_TASK_WAIT) {
        code = drover_assign_wait (self->table, msg->tasks, msg->ntasks, msg->seq,
                                      route, route_size, &reason);
        drover_actor_reply_to (self->outbox, "assign", route, route_size, msg->seq, code, reason, "");
    }
    else
    if ((msg->id == DROVER_MSG_TASK_STARTED || msg->id == DROVER_MSG_TASK_RESULT)
    &&  drover_assign_fence (self->table, msg->worker, route, route_size, &reason)
        != DROVER_CODE_OK) {
        //  Not from the worker's registration: "" so that a refused send
        //  of this answer does not put the worker the report named on probation
        s_warn_refused (self, msg, DROVER_CODE_NOT_REGISTERED, reason);
        drover_actor_reply_to (self->outbox, "assign", route, route_size, msg->seq,
                              DROVER_CODE_NOT_REGISTERED, reason, "");
    }
    else
    if (msg->id == DROVER_MSG_TASK_STARTED || msg->id == DROVER_MSG_TASK_RESULT) {
        //  From the worker's registration: health counts it as life (told
        //  once per worker a turn, however many reports)
        if (drover_once_first (&self->heard, msg->worker))
            drover_outbox_say (self->outbox, "ssb", "HEARD", msg->worker, route, route_size);
        s_handle_report (self, route, route_size, msg);
    }
    else
        drover_actor_reply_to (self->outbox, "assign", route, route_size, msg->seq,
                              DROVER_CODE_UNEXPECTED, "not a message the task table handles", "");
    drover_assign_actor_carry_out (self);
}


//  ---------------------------------------------------------------------
//  Tasks evicted from the table, read back from the durable history

//  Requests parked at once, at most: past it, an evicted task is said
//  EXPIRED as without history
#define S_PARKED_MAX    1024

//  Destroy a parked request
void
drover_assign_actor_parked_destroy (void **item_p)
{
    drover_assign_actor_parked_t *parked = (drover_assign_actor_parked_t *) *item_p;
    if (!parked)
        return;
    drover_msg_destroy (&parked->msg);
    free (parked);
    *item_p = NULL;
}

//  A TASK WAIT or SHOW that names tasks evicted from the table (their
//  result dropped past keep-finished): with durable history, ask the store
//  to read them back (RECALL) and park the request until it has
bool
drover_assign_actor_recall (self_t *self, const byte *route, size_t route_size, drover_msg_t **msg_p)
{
    drover_msg_t *msg = *msg_p;
    if ((msg->id != DROVER_MSG_TASK_WAIT && msg->id != DROVER_MSG_TASK_SHOW)
    ||  self->durability == DROVER_DURABILITY_OFF || zlistx_size (self->parked) >= S_PARKED_MAX)
        return false;
    bool show = msg->id == DROVER_MSG_TASK_SHOW;
    const uint64_t *ids = show? &msg->task: msg->tasks;
    size_t count = show? 1: msg->ntasks;
    uint64_t *evicted = NULL;
    size_t nevicted = 0;
    for (size_t index = 0; ids && index < count; index++)
        if (drover_assign_evicted (self->table, ids [index])) {
            if (!evicted)
                evicted = (uint64_t *) malloc ((count - index) * sizeof (uint64_t));
            assert (evicted);
            evicted [nevicted++] = ids [index];
        }
    if (nevicted == 0)
        return false;
    drover_assign_actor_parked_t *parked = (drover_assign_actor_parked_t *)
        zmalloc (sizeof (drover_assign_actor_parked_t));
    parked->ref = ++self->recalls;
    memcpy (parked->route, route, route_size);
    parked->route_size = route_size;
    parked->msg = msg;
    *msg_p = NULL;
    zlistx_add_end (self->parked, parked);
    drover_outbox_say (self->outbox, "s8b", "RECALL", parked->ref, evicted,
                       nevicted * sizeof (uint64_t));
    free (evicted);
    return true;
}

//  RECALLED ref: what the history keeps of the tasks is back in the table
//  (RESTOREs said before); handle the parked request as if it came now (an
//  owner's check sees the tasks' owners; a task the history no longer keeps
//  is EXPIRED, as before), then those tasks are finished tasks like any
//  other. The store answers RECALLs in the order they were said.
void
drover_assign_actor_recalled (self_t *self, uint64_t ref)
{
    drover_assign_actor_parked_t *parked = (drover_assign_actor_parked_t *) zlistx_first (self->parked);
    if (!parked || parked->ref != ref) {
        zsys_error ("assign: RECALLED ref=%" PRIu64 " out of order", ref);
        assert (false);         //  the store answers in order: our bug
        return;
    }
    drover_assign_actor_handle_request (self, parked->route, parked->route_size, parked->msg);
    drover_assign_recalled (self->table, self->recall_restored);
    self->recall_restored = 0;
    zlistx_delete (self->parked, zlistx_cursor (self->parked));
}

//  TASK STARTED or RESULT from the worker's registration
static void
s_handle_report (self_t *self, const byte *route, size_t route_size, drover_msg_t *msg)
{
    const char *reason = NULL;
    int code;
    if (msg->id == DROVER_MSG_TASK_STARTED) {
        code = drover_assign_started (self->table, msg->worker, msg->task, msg->attempt, &reason);
        if (code != DROVER_CODE_OK) {
            s_warn_refused (self, msg, code, reason);
            drover_actor_reply_to (self->outbox, "assign", route, route_size, msg->seq, code, reason,
                                  msg->worker);
        }
    }
    else
    if (msg->id == DROVER_MSG_TASK_RESULT) {
        code = drover_assign_result (self->table, msg, &reason);
        if (code != DROVER_CODE_OK)
            s_warn_refused (self, msg, code, reason);
        drover_actor_answer_to (self->outbox, code == DROVER_CODE_OK? self->acks: DROVER_RECORD_SEND,
                                "assign", route, route_size, msg->seq, code, reason, msg->worker);
    }
}
