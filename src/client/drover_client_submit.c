/*  =========================================================================
    drover_client_submit - submitting tasks (see drover_client.h)

    One at a time (drover_client_submit: a request and its reply), or
    many without waiting (drover_client_submit_async): async submits live
    in a ring of `window` slots indexed by seq; a send blocks while its
    slot is taken, which bounds what is outstanding, and each reply frees
    its slot and goes to the ack handler.

    A submit with a key is kept encoded until its reply, and sent again
    (same seq, same key) after each resend interval in which the broker
    said nothing: a broker that saved the first answers the same task id,
    one that never got it (it died, the connection dropped it) takes it
    now. A submit without a key is never sent twice: it would be two tasks.
    With several brokers every submit is kept encoded: one that a standby
    answered REDIRECT goes again to the leader (the standby did nothing
    with it); one whose broker went away unanswered goes again only if it
    has a key, and fails otherwise (drover_client_fail_slot).
    =========================================================================
*/

#include "drover_client_internal.h"

//  Free a slot and tell its handler how it ended
static void
s_slot_end (drover_client_t *self, drover_client_slot_t *slot, uint64_t task, int code,
            const char *reason)
{
    drover_client_slot_t taken = *slot;
    slot->seq = 0;
    zframe_destroy (&slot->frame);
    self->outstanding--;
    if (code != DROVER_CODE_OK)
        drover_client_set_error (self, code, "%s", reason);
    if (self->ack_handler) {
        self->in_handler = true;
        self->ack_handler (taken.seq, taken.tag, task, code, reason, self->ack_arg);
        self->in_handler = false;
    }
}

//  An async submit's reply arrived (ACCEPTED or ERROR)
void
drover_client_dispatch_ack (drover_client_t *self, drover_client_slot_t *slot)
{
    drover_msg_t *reply = self->inbox;
    if (reply->id == DROVER_MSG_ERROR)
        s_slot_end (self, slot, 0, reply->code, reply->reason? reply->reason: "");
    else
        s_slot_end (self, slot, reply->task, DROVER_CODE_OK, NULL);
}

//  End an async submit without a reply from a broker
void
drover_client_fail_slot (drover_client_t *self, drover_client_slot_t *slot, int code,
                         const char *reason)
{
    s_slot_end (self, slot, 0, code, reason);
}


//  Submit a task and wait for its id
int
drover_client_submit (drover_client_t *self, drover_submit_t *submit, uint64_t *task_p)
{
    assert (self);
    assert (submit);
    drover_msg_t *reply = drover_client_request (self, drover_submit_msg (submit));
    if (!reply)
        return -1;
    int rc = 0;
    if (reply->id == DROVER_MSG_TASK_ACCEPTED) {
        if (task_p)
            *task_p = reply->task;
    }
    else {
        drover_client_set_error (self, DROVER_CLIENT_ERR_PROTOCOL, "broker answered %s to TASK SUBMIT",
                     drover_msg_name (reply->id));
        rc = -1;
    }
    drover_msg_destroy (&reply);
    return rc;
}

//  Set the async reply handler
void
drover_client_set_ack_handler (drover_client_t *self, drover_client_ack_fn *handler, void *arg)
{
    assert (self);
    self->ack_handler = handler;
    self->ack_arg = arg;
}

//  Set the handler for NOTIFY TASK DONEs that no wait takes
void
drover_client_set_done_handler (drover_client_t *self, drover_client_done_fn *handler, void *arg)
{
    assert (self);
    self->done_handler = handler;
    self->done_arg = arg;
}

//  Resize the window while nothing is outstanding
int
drover_client_set_window (drover_client_t *self, uint32_t window)
{
    assert (self);
    if (self->outstanding)
        return -1;          //  slots are indexed by seq % window
    if (window < 1)
        window = 1;
    if (window > DROVER_CLIENT_WINDOW_MAX)
        window = DROVER_CLIENT_WINDOW_MAX;
    free (self->slots);
    self->slots = (drover_client_slot_t *) zmalloc (sizeof (drover_client_slot_t) * window);
    self->window = window;
    return 0;
}

//  Send again every outstanding submit that has a key: the broker did not
//  answer them for a while (it may have died before saving them, or the
//  connection dropped them); a broker that has one already answers the
//  same task id
static int
s_resend_keyed (drover_client_t *self)
{
    size_t resent = 0;
    for (uint32_t index = 0; index < self->window; index++) {
        drover_client_slot_t *slot = &self->slots [index];
        if (slot->seq && slot->frame && slot->keyed) {
            if (drover_client_send_again (self, slot->frame))
                return -1;
            resent++;
        }
    }
    if (resent)
        zsys_info ("client: broker=%s silent for %d msec, sent %zu keyed submits again",
                   self->endpoint, self->resend, resent);
    return 0;
}

//  Handle replies until the slot is free (with no slot: until nothing is
//  outstanding); keyed submits go again after each resend interval of
//  silence. Returns 0, or -1 with the error set if replies stopped coming
//  for the timeout, the broker refused our handshake, or on interrupt
static int
s_handle_replies (drover_client_t *self, drover_client_slot_t *slot)
{
    int64_t started = zclock_mono ();
    int64_t deadline = started + self->timeout;
    int64_t resend_at = started + self->resend;
    uint64_t moves = self->moves;
    while (slot? slot->seq != 0: self->outstanding > 0) {
        if (self->moves != moves) {
            moves = self->moves;                            //  another broker: time anew
            deadline = zclock_mono () + self->timeout;
        }
        uint64_t received = self->received;
        int64_t until = resend_at < deadline? resend_at: deadline;
        int rc = drover_client_receive (self, drover_client_msec_left (until));
        if (rc == -1)
            return -1;                  //  interrupted, or refused: error set
        if (self->received != received) {
            deadline = zclock_mono () + self->timeout;      //  the broker is answering
            resend_at = zclock_mono () + self->resend;
        }
        else
        if (drover_client_msec_left (deadline) == 0
        &&  !drover_client_move_on_silence (self, started)) {
            drover_client_set_timeout_error (self);
            return -1;
        }
        else
        if (drover_client_msec_left (resend_at) == 0) {
            if (s_resend_keyed (self))
                return -1;
            resend_at = zclock_mono () + self->resend;
        }
    }
    return 0;
}


//  Send a TASK SUBMIT without waiting for its reply
uint32_t
drover_client_submit_async (drover_client_t *self, drover_submit_t *submit_view, uintptr_t tag)
{
    assert (self);
    assert (submit_view);
    drover_msg_t *submit = drover_submit_msg (submit_view);
    assert (!self->in_handler);
    uint32_t seq = drover_client_next_seq (self);
    drover_client_slot_t *slot = &self->slots [seq % self->window];
    if (slot->seq && s_handle_replies (self, slot))
        return 0;
    submit->seq = seq;
    drover_client_note_link (self, &slot->sent_up, &slot->sent_connects);
    zframe_t *frame = NULL;
    if (submit->key || drover_client_may_move (self)) {
        //  Kept encoded, to go again if the broker stays silent (keyed),
        //  redirects, or goes away (keyed)
        frame = drover_msg_encode (submit);
        if (!frame) {
            drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID, "%s breaks a protocol limit",
                                     drover_msg_name (submit->id));
            return 0;
        }
        if (drover_client_send_again (self, frame)) {
            zframe_destroy (&frame);
            return 0;
        }
    }
    else
    if (drover_client_send_msg (self, submit))
        return 0;
    slot->seq = seq;
    slot->tag = tag;
    slot->frame = frame;
    slot->keyed = submit->key != NULL;
    slot->sent_in = self->moves;
    self->outstanding++;
    if ((seq & 255) == 0)
        drover_client_receive (self, 0);    //  take what has come, keeping our queue short
    return seq;
}

//  Handle async replies that have arrived
int
drover_client_poll (drover_client_t *self, int msec)
{
    assert (self);
    assert (!self->in_handler);
    if (drover_client_receive (self, msec) == -1)
        return -1;
    return (int) self->outstanding;
}

//  Wait for every async submit's reply
int
drover_client_flush (drover_client_t *self)
{
    assert (self);
    assert (!self->in_handler);
    if (s_handle_replies (self, NULL) == 0)
        return 0;
    if (self->error_code == DROVER_CLIENT_ERR_TIMEOUT)
        drover_client_set_error (self, DROVER_CLIENT_ERR_TIMEOUT,
                     "the broker at %s did not answer %zu submits within %d msec",
                     self->endpoint, self->outstanding, self->timeout);
    return -1;
}

//  Return how many async submits are outstanding
size_t
drover_client_outstanding (drover_client_t *self)
{
    assert (self);
    return self->outstanding;
}
