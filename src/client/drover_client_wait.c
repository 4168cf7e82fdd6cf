/*  =========================================================================
    drover_client_wait - waiting for tasks' TASK DONEs (see drover_client.h)

    A TASK DONE goes to the wait in progress if it asks for that task,
    else, when it is a submit's notify (seq 0), to the done handler, or is
    kept for a later wait if there is none. A wait sends TASK WAIT for
    every task still pending, again after a silence that doubles each time
    (up to DROVER_CLIENT_RESEND_MAX), and gives up when the broker says
    nothing for the timeout. When the client moves to another broker
    (PROTOCOL.md §17) the WAITs go there as soon as the move's delay has
    passed, and that broker gets the whole timeout.
    =========================================================================
*/

#include "drover_client_internal.h"

//  Progress callbacks at most this often, msec
#define S_PROGRESS_EVERY    100
#define S_QUIET_EVERY       1000    //  msec: progress is told this often while nothing comes

//  Keep a notify's TASK DONE that came before anyone waited for it, if
//  there is room; a wait that asks later will get it again from the broker
static void
s_keep_done (drover_client_t *self)
{
    size_t bytes = self->inbox->out_size + self->inbox->err_size;
    if (zlistx_size (self->kept) >= DROVER_CLIENT_KEPT_MAX
    ||  self->kept_bytes + bytes > DROVER_CLIENT_KEPT_BYTES) {
        self->kept_dropped++;
        return;
    }
    zlistx_add_end (self->kept, self->inbox);
    self->kept_bytes += bytes;
    self->inbox = drover_msg_new (0);
}

//  Hand one TASK DONE to the wait if it is pending there. Returns true if
//  the wait knows the task (delivered now or before).
static bool
s_wait_take (drover_client_t *self, const drover_msg_t *done)
{
    drover_client_waiting_t *wait = self->wait;
    int rc = drover_waitset_deliver (wait->tasks, done->task);
    if (rc == -1)
        return false;
    if (rc == 1) {
        wait->progressed = true;
        if (wait->on_done) {
            self->in_handler = true;
            wait->on_done (drover_result_of (done), wait->arg);
            self->in_handler = false;
        }
    }
    return true;            //  delivered now, or a duplicate delivered before
}

//  A TASK DONE arrived
void
drover_client_dispatch_done (drover_client_t *self)
{
    drover_msg_t *done = self->inbox;
    if (self->wait && s_wait_take (self, done))
        return;
    if (done->seq == 0 && self->done_handler) {
        self->in_handler = true;
        self->done_handler (drover_result_of (done), self->done_arg);
        self->in_handler = false;
    }
    else
    if (done->seq == 0)
        s_keep_done (self);     //  a notify: someone may wait for it later
    else
        self->dropped++;        //  for an earlier wait, already answered
}

//  Send WAIT for every task still pending, in chunks of DROVER_WAIT_MAX.
//  Returns 0 or -1 with the error set.
static int
s_send_waits (drover_client_t *self, drover_client_waiting_t *wait)
{
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_WAIT);
    size_t chunk = drover_waitset_total (wait->tasks) - drover_waitset_delivered (wait->tasks);
    if (chunk > DROVER_WAIT_MAX)
        chunk = DROVER_WAIT_MAX;
    request->tasks = (uint64_t *) zmalloc (sizeof (uint64_t) * (chunk? chunk: 1));
    strcpy (request->state_id, self->state_id);     //  412 if the broker's is another
    int rc = 0;
    size_t cursor = 0;
    while (rc == 0) {
        request->ntasks = (uint32_t) drover_waitset_pending (wait->tasks, &cursor,
                                                             request->tasks, chunk);
        if (request->ntasks == 0)
            break;
        request->seq = drover_client_next_seq (self);
        drover_waitset_sent (wait->tasks, request->seq);
        rc = drover_client_send_msg (self, request);
    }
    drover_msg_destroy (&request);
    return rc;
}

//  Hand over the kept TASK DONEs the wait asks for
static void
s_take_kept (drover_client_t *self, drover_client_waiting_t *wait)
{
    drover_msg_t *done = (drover_msg_t *) zlistx_first (self->kept);
    while (done) {
        if (s_wait_take (self, done)) {
            self->kept_bytes -= done->out_size + done->err_size;
            zlistx_delete (self->kept, zlistx_cursor (self->kept));    //  cursor moves back
        }
        done = (drover_msg_t *) zlistx_next (self->kept);
    }
}

//  Wait until each task has its TASK DONE
int
drover_client_wait (drover_client_t *self, const uint64_t *tasks, size_t count,
                    drover_client_done_fn *on_done, drover_client_progress_fn *on_progress,
                    void *arg)
{
    assert (self);
    assert (!self->wait && !self->in_handler);     //  not re-entrant from a handler
    drover_client_waiting_t wait = { .on_done = on_done, .arg = arg };
    wait.tasks = drover_waitset_new (tasks, count);
    size_t total = drover_waitset_total (wait.tasks);
    self->wait = &wait;
    if (on_progress)
        on_progress (0, total, arg);
    s_take_kept (self, &wait);

    int rc = 0;
    int interval = self->resend;            //  re-send after this much silence
    int64_t now = zclock_mono ();
    int64_t next_resend = now;              //  send the first WAIT at once
    int64_t unanswered_since = 0;           //  a WAIT went out and nothing came back
    int64_t next_progress = now + S_PROGRESS_EVERY;
    int64_t next_quiet = now + S_QUIET_EVERY;   //  told on_progress, if nothing came
    size_t shown = 0;                       //  delivered, as last told on_progress
    uint64_t moves = self->moves;           //  the client's moves when WAITs last went
    int patience = self->timeout;           //  msec of silence we bear: more while moving
    int64_t broker_since = now;             //  we moved, or last heard the broker
    while (drover_waitset_delivered (wait.tasks) < total) {
        size_t delivered = drover_waitset_delivered (wait.tasks);
        now = zclock_mono ();
        if (self->moves != moves && !self->resend_due) {
            moves = self->moves;            //  another broker: WAIT there now
            interval = self->resend;
            next_resend = now;
            patience = self->timeout + DROVER_CLIENT_FAILOVER;
            broker_since = now;
        }
        if (unanswered_since && now - broker_since >= self->timeout
        &&  drover_client_move_on_silence (self, unanswered_since)) {
            broker_since = now;             //  a silent broker: the next one
            continue;
        }
        if (wait.progressed) {
            wait.progressed = false;
            interval = self->resend;
            next_resend = now + interval;
        }
        if (on_progress && ((delivered != shown && now >= next_progress) || now >= next_quiet)) {
            on_progress (delivered, total, arg);
            shown = delivered;
            next_progress = now + S_PROGRESS_EVERY;
            next_quiet = now + S_QUIET_EVERY;
        }
        if (now >= next_resend) {
            if (s_send_waits (self, &wait)) {
                rc = -1;
                break;
            }
            if (!unanswered_since)
                unanswered_since = now;
            next_resend = now + interval;
            interval = interval * 2 > DROVER_CLIENT_RESEND_MAX? DROVER_CLIENT_RESEND_MAX
                     : interval * 2;
        }
        if (unanswered_since && now - unanswered_since >= patience) {
            drover_client_set_timeout_error (self);
            rc = -1;
            break;
        }
        int64_t until = next_resend;
        if (unanswered_since && unanswered_since + patience < until)
            until = unanswered_since + patience;
        if (on_progress && delivered != shown && next_progress < until)
            until = next_progress;
        if (on_progress && next_quiet < until)
            until = next_quiet;
        uint64_t received = self->received;
        if (drover_client_receive (self, drover_client_msec_left (until)) == -1) {
            rc = -1;                        //  interrupted, or refused: error set
            break;
        }
        if (self->received != received) {
            unanswered_since = 0;           //  the broker is there
            patience = self->timeout;
            broker_since = zclock_mono ();
        }
        if (wait.failed) {
            rc = -1;
            break;
        }
    }
    if (on_progress && drover_waitset_delivered (wait.tasks) != shown)
        on_progress (drover_waitset_delivered (wait.tasks), total, arg);
    self->wait = NULL;
    drover_waitset_destroy (&wait.tasks);
    return rc;
}
