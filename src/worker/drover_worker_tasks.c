/*  =========================================================================
    drover_worker_tasks - the offers the worker runs and their results:
    a TASK OFFER acknowledged and started (in a child process, or through
    the in-process handler), results kept in sending order until the
    broker answers them and sent again after each WELCOME, the broker's
    replies to them, and the attempts of a broker state gone by; and the
    dispatch of each message from the broker (drover_worker_handle_message)

    Results are kept in sending order, each under its own seq, until the
    broker answers that seq; the answers mostly come in order, so finding
    one is a look at the head of the list.
    =========================================================================
*/

#include "drover_worker_internal.h"

//  Send a result we keep, if we may talk to the broker now
static void
s_send_result (drover_worker_t *self, drover_msg_t *result, int64_t now)
{
    if (!self->registered)
        return;                 //  sent again after WELCOME
    drover_worker_send (self, result);
    drover_worker_expect_reply (self, now);
}

//  Keep a finished attempt's result until acknowledged, and send it
static void
s_result_add (drover_worker_t *self, drover_msg_t *result, int64_t now)
{
    result->id = DROVER_MSG_TASK_RESULT;
    result->seq = drover_worker_next_seq (self);
    strcpy (result->worker, self->id);
    zlistx_add_end (self->pending, result);
    if (result->outcome == DROVER_OUTCOME_MACHINE_FAILED)
        zsys_warning ("worker: cannot start task=%" PRIu64 " attempt=%u: %s (the broker "
                      "puts this worker on probation)", result->task, result->attempt,
                      result->reason? result->reason: "");
    else
    if (self->verbose || result->outcome != DROVER_OUTCOME_EXITED)
        zsys_info ("worker: finished task=%" PRIu64 " attempt=%u outcome=%s exit=%d signal=%d duration=%u%s%s",
                   result->task, result->attempt, drover_outcome_name (result->outcome),
                   result->exit_code, result->signal, result->duration,
                   result->reason? " reason=": "", result->reason? result->reason: "");
    s_send_result (self, result, now);
}

//  Find the pending result sent under seq; NULL if none
static void *
s_pending_find (drover_worker_t *self, uint32_t seq)
{
    drover_msg_t *result = (drover_msg_t *) zlistx_first (self->pending);
    while (result) {
        if (result->seq == seq)
            return zlistx_cursor (self->pending);
        result = (drover_msg_t *) zlistx_next (self->pending);
    }
    return NULL;
}

//  Say TASK STARTED: the offer is taken
static void
s_send_started (drover_worker_t *self, uint64_t task, uint32_t attempt)
{
    drover_msg_t *started = self->started_msg;     //  owns nothing: no reset needed
    started->seq = drover_worker_next_seq (self);
    strcpy (started->worker, self->id);
    started->task = task;
    started->attempt = attempt;
    drover_worker_send (self, started);
    drover_worker_started_t *slot = &self->started [started->seq % DROVER_WORKER_STARTED_RING];
    slot->seq = started->seq;
    slot->task = task;
    slot->attempt = attempt;
}

//  Run an offer through the in-process handler; its result is ready at once
static void
s_run_handler (drover_worker_t *self, drover_msg_t *offer, int64_t now)
{
    drover_msg_t *result = drover_msg_new (DROVER_MSG_TASK_RESULT);
    result->task = offer->task;
    result->attempt = offer->attempt;
    drover_job_t job = { offer->task, offer->attempt, self->exec, result };
    int rc = self->handler (self->handler_arg, &job);
    if (rc != 0) {
        result->outcome = DROVER_OUTCOME_SPAWN_FAILED;
        if (!result->reason)
            drover_msg_set_reason (result, "handler failed");
    }
    result->task = offer->task;         //  whatever the handler did to them
    result->attempt = offer->attempt;
    int64_t duration = zclock_mono () - now;
    result->duration = duration > 0? (uint32_t) duration: 0;
    s_result_add (self, result, now);
}

//  Key of an attempt in procs_of
static void
s_attempt_key (char *key, size_t size, uint64_t task, uint32_t attempt)
{
    snprintf (key, size, "%" PRIu64 "/%u", task, attempt);
}

//  TASK OFFER: acknowledge at once, then start the attempt. An attempt
//  that ends here and now (a bad body, the in-process handler) is
//  acknowledged by its RESULT alone (PROTOCOL.md 7.7): one message less
//  for us and for the broker.
static void
s_handle_offer (drover_worker_t *self, drover_msg_t *offer, int64_t now)
{
    if (self->runner && drover_runner_running (self->runner, offer->task, offer->attempt)) {
        s_send_started (self, offer->task, offer->attempt);
        return;                 //  a repeated offer: it runs already
    }
    const char *error = NULL;
    int rc = drover_exec_decode (self->exec, offer->body, offer->body_size, &error);
    self->tasks_run++;
    if (rc != 0) {
        zsys_warning ("worker: bad offer body task=%" PRIu64 " attempt=%u: %s",
                      offer->task, offer->attempt, error? error: "malformed");
        drover_msg_t *result = drover_msg_new (DROVER_MSG_TASK_RESULT);
        result->task = offer->task;
        result->attempt = offer->attempt;
        result->outcome = DROVER_OUTCOME_SPAWN_FAILED;
        result->exit_code = -1;         //  no process: no status
        char reason [DROVER_REASON_MAX];
        snprintf (reason, sizeof reason, "bad body: %s", error? error: "malformed");
        drover_msg_set_reason (result, reason);
        s_result_add (self, result, now);
        return;
    }
    if (self->handler) {
        s_run_handler (self, offer, now);
        return;
    }
    s_send_started (self, offer->task, offer->attempt);
    uint32_t procs = offer->procs? offer->procs: 1;
    if (self->procs_used + procs > self->procs)
        zsys_warning ("worker: offer past free procs task=%" PRIu64 " procs=%u used=%u offered=%u",
                      offer->task, procs, self->procs_used, self->procs);
    if (self->verbose)
        zsys_info ("worker: starting task=%" PRIu64 " attempt=%u timeout=%u argv0=%s",
                   offer->task, offer->attempt, offer->timeout,
                   self->exec->argc? self->exec->argv [0]: "");
    if (drover_runner_start (self->runner, offer->task, offer->attempt, self->exec,
                             offer->timeout, now) == 0) {
        char key [48];
        s_attempt_key (key, sizeof key, offer->task, offer->attempt);
        zhashx_update (self->procs_of, key, (void *) (uintptr_t) procs);
        self->procs_used += procs;
    }
}

//  Collect what the runner finished: give back procs, keep and send results
//  (but drop those of attempts that belong to a broker state gone by)
void
drover_worker_collect_results (drover_worker_t *self, int64_t now)
{
    if (!self->runner)
        return;
    drover_msg_t *result;
    while ((result = drover_runner_next_result (self->runner))) {
        char key [48];
        s_attempt_key (key, sizeof key, result->task, result->attempt);
        uintptr_t procs = (uintptr_t) zhashx_lookup (self->procs_of, key);
        if (procs) {
            self->procs_used -= (uint32_t) procs;
            zhashx_delete (self->procs_of, key);
        }
        if (zhashx_lookup (self->orphans, key)) {
            zhashx_delete (self->orphans, key);
            drover_msg_destroy (&result);
        }
        else
            s_result_add (self, result, now);
    }
}

//  The broker's state is not the one our attempts came from (a wiped
//  state directory): its task ids name other tasks. Kill every attempt we
//  run and forget every result not yet acknowledged, so that none of
//  them is taken for a task of the new state (PROTOCOL.md §6.5).
static void
s_drop_old_state (drover_worker_t *self, const char *state_id, int64_t now)
{
    size_t running = self->runner? drover_runner_size (self->runner): 0;
    zsys_warning ("worker: broker state changed from %s to %s: killing running=%zu, "
                  "dropping unacked=%zu (they belong to the old state)", self->state_id,
                  state_id, running, zlistx_size (self->pending));
    if (running) {
        drover_taskref_t *refs = (drover_taskref_t *) zmalloc (running * sizeof (drover_taskref_t));
        size_t count = drover_runner_list (self->runner, refs, running);
        for (size_t index = 0; index < count; index++) {
            char key [48];
            s_attempt_key (key, sizeof key, refs [index].task, refs [index].attempt);
            zhashx_update (self->orphans, key, (void *) 1);
            drover_runner_cancel (self->runner, refs [index].task, refs [index].attempt, now);
        }
        free (refs);
    }
    zlistx_purge (self->pending);
    self->resend_at = 0;
}

//  WORKER WELCOME: registered; send again every result not yet acknowledged
static void
s_handle_welcome (drover_worker_t *self, drover_msg_t *welcome, int64_t now)
{
    if (*welcome->state_id && *self->state_id && strcmp (welcome->state_id, self->state_id))
        s_drop_old_state (self, welcome->state_id, now);
    if (*welcome->state_id)
        strcpy (self->state_id, welcome->state_id);
    self->heartbeat = welcome->heartbeat? welcome->heartbeat: DROVER_WORKER_HEARTBEAT;
    self->registered = true;
    self->registrations++;
    self->backoff = DROVER_WORKER_BACKOFF_MIN;
    drover_endpoints_served (self->endpoints);
    self->next_heartbeat = now + self->heartbeat;
    char waited [48] = "";      //  after "no broker answers": for how long
    if (self->unanswered_since)
        snprintf (waited, sizeof waited, " waited=%" PRId64 "s",
                  (now - self->unanswered_since) / 1000);
    zsys_notice ("worker: registered broker=%s level=%d id=%s epoch=%" PRIu64 " heartbeat=%u "
                 "running=%zu unacked=%zu%s", self->endpoint,
                 self->level > 1 && welcome->level? welcome->level: 1, self->id, self->epoch,
                 self->heartbeat,
                 self->runner? drover_runner_size (self->runner): 0,
                 zlistx_size (self->pending), waited);
    drover_worker_resend_results (self, now);
}


//  --------------------------------------------------------------------------
//  Send every result not yet acknowledged again, if registered

void
drover_worker_resend_results (drover_worker_t *self, int64_t now)
{
    self->resend_at = 0;
    drover_msg_t *result = (drover_msg_t *) zlistx_first (self->pending);
    while (result) {
        s_send_result (self, result, now);
        result = (drover_msg_t *) zlistx_next (self->pending);
    }
}

//  ERROR 409 / 404 to a TASK STARTED: that attempt is not current, stop it as
//  on TASK KILL. Returns true if the reply was about a STARTED.
static bool
s_started_refused (drover_worker_t *self, drover_msg_t *reply, int64_t now)
{
    drover_worker_started_t *slot = &self->started [reply->seq % DROVER_WORKER_STARTED_RING];
    if (reply->seq == 0 || slot->seq != reply->seq)
        return false;
    slot->seq = 0;
    if (reply->code != DROVER_CODE_STALE && reply->code != DROVER_CODE_NOT_FOUND)
        return false;
    if (self->runner && drover_runner_cancel (self->runner, slot->task, slot->attempt, now) == 0)
        zsys_info ("worker: stopping task=%" PRIu64 " attempt=%u: broker says code=%u",
                   slot->task, slot->attempt, reply->code);
    return true;
}

//  OK or ERROR: an answer to a result, to our HELLO, or a demand to register
static void
s_handle_reply (drover_worker_t *self, drover_msg_t *reply, int64_t now)
{
    if (reply->id == DROVER_MSG_ERROR && reply->code == DROVER_CODE_NOT_REGISTERED) {
        //  Unknown to the broker (it restarted, or lost us): HELLO once, not per 401
        if (self->registered || now - self->hello_at >= self->heartbeat) {
            zsys_notice ("worker: broker does not know us, registering again id=%s", self->id);
            drover_worker_send_hello (self, now);
        }
        return;
    }
    void *handle = s_pending_find (self, reply->seq);
    if (handle) {
        drover_msg_t *result = (drover_msg_t *) zlistx_handle_item (handle);
        if (reply->id == DROVER_MSG_OK)
            self->results_acked++;
        else
        if (reply->code == DROVER_CODE_STALE || reply->code == DROVER_CODE_NOT_FOUND) {
            self->results_stale++;
            zsys_info ("worker: result refused task=%" PRIu64 " attempt=%u code=%u (no longer current)",
                       result->task, result->attempt, reply->code);
        }
        else
        if ((reply->code >= 300 && reply->code < 400) || reply->code == DROVER_CODE_NOT_SAVED) {
            //  Retry later: kept, sent again after a heartbeat interval (or
            //  after registering again, whichever comes first)
            if (!self->resend_at)
                self->resend_at = now + self->heartbeat;
            return;
        }
        else
            zsys_warning ("worker: result dropped task=%" PRIu64 " attempt=%u code=%u reason=\"%s\"",
                          result->task, result->attempt, reply->code,
                          reply->reason? reply->reason: "");
        zlistx_delete (self->pending, handle);
    }
    else
    if (reply->id == DROVER_MSG_ERROR && s_started_refused (self, reply, now))
        ;                       //  the attempt is not ours to run: stopped
    else
    if (reply->id == DROVER_MSG_ERROR && reply->seq == self->hello_seq
    &&  (reply->code == DROVER_CODE_ID_IN_USE || reply->code == DROVER_CODE_FORBIDDEN)) {
        //  Another agent runs with our id (423), or our key may not
        //  register this id (403: a client's key, ids pinned to others,
        //  the id another key's, the key revoked): trying again would only
        //  make two agents take turns, or be refused the same way; stop,
        //  and say why
        zstr_free (&self->refused);
        self->refused = zsys_sprintf ("broker refused id=%s: %s", self->id,
                                      reply->reason? reply->reason: "worker id in use");
        zsys_error ("worker: %s", self->refused);
        self->stopping = true;
    }
    else
    if (reply->id == DROVER_MSG_ERROR && reply->seq == self->hello_seq
    &&  reply->code == DROVER_CODE_BAD_REQUEST && self->level > 1) {
        //  A broker of level 1 takes no HELLO of a later level: speak its
        //  level on this connection (no state id, level or release)
        zsys_notice ("worker: broker=%s refused our HELLO of level %d (\"%s\"): registering "
                     "as level 1, the protocol of drover 0.1", self->endpoint, self->level,
                     reply->reason? reply->reason: "");
        self->level = 1;
        drover_worker_send_hello (self, now);
    }
    else
    if (reply->id == DROVER_MSG_ERROR && reply->seq == self->hello_seq) {
        zsys_warning ("worker: broker refused HELLO code=%u reason=\"%s\", next try in %u ms",
                      reply->code, reply->reason? reply->reason: "", self->backoff);
        drover_worker_disconnect (self, now);
    }
    else
    if (reply->id == DROVER_MSG_ERROR)
        zsys_warning ("worker: broker error code=%u seq=%u reason=\"%s\"",
                      reply->code, reply->seq, reply->reason? reply->reason: "");
}


//  --------------------------------------------------------------------------
//  Act on one decoded message from the broker

void
drover_worker_handle_message (drover_worker_t *self, drover_msg_t *msg, int64_t now)
{
    if (self->verbose)
        zsys_debug ("worker: recv %s seq=%u task=%" PRIu64 " attempt=%u code=%u",
                    drover_msg_name (msg->id), msg->seq, msg->task, msg->attempt, msg->code);
    switch (msg->id) {
        case DROVER_MSG_WORKER_WELCOME:
            s_handle_welcome (self, msg, now);
            break;
        case DROVER_MSG_OK:
        case DROVER_MSG_ERROR:
            s_handle_reply (self, msg, now);
            break;
        case DROVER_MSG_TASK_OFFER:
            s_handle_offer (self, msg, now);
            break;
        case DROVER_MSG_TASK_KILL:
            if (self->runner
            &&  drover_runner_cancel (self->runner, msg->task, msg->attempt, now) == 0)
                zsys_info ("worker: killing task=%" PRIu64 " attempt=%u", msg->task, msg->attempt);
            else
            if (self->verbose)
                zsys_debug ("worker: kill of an attempt not running task=%" PRIu64 " attempt=%u",
                            msg->task, msg->attempt);
            break;
        case DROVER_MSG_WORKER_GATHER:
            drover_worker_send_runs (self, msg->seq);
            break;
        case DROVER_MSG_REDIRECT:
            drover_worker_handle_redirect (self, msg, now);
            break;
        case DROVER_MSG_WORKER_LEAVE:
            if (!self->leaving)
                zsys_notice ("worker: asked to leave id=%s running=%zu", self->id,
                             self->runner? drover_runner_size (self->runner): 0);
            self->leaving = true;
            break;
        default:
            zsys_warning ("worker: unexpected %s from broker, dropped", drover_msg_name (msg->id));
    }
}
