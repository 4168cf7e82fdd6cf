/*  =========================================================================
    drover_client_move - the client moving between brokers (PROTOCOL.md
    §17): when to move (a REDIRECT, a connection down for DEAD_AFTER, a
    request unanswered for its timeout), where (drover_endpoints decides),
    and what goes again to the broker moved to once the move's delay has
    passed: the request in flight, the async submits, the WAITs, except a
    SUBMIT without a key that the broker left may have accepted, which
    fails instead.

    Part of the client (drover_client_internal.h is what its files share).
    =========================================================================
*/

#include "drover_client_internal.h"

//  True if the client may move between brokers
bool
drover_client_may_move (drover_client_t *self)
{
    return drover_endpoints_size (self->endpoints) > 1
        || drover_endpoints_moves (self->endpoints) > 0;
}

//  Note for a request in flight
void
drover_client_note_link (drover_client_t *self, bool *up_p, uint64_t *connects_p)
{
    *up_p = true;               //  one broker: never asked
    *connects_p = 0;
    if (drover_client_may_move (self) && drover_client_ensure_connected (self) == 0) {
        *up_p = drover_handshake_up (self->handshake);
        *connects_p = drover_handshake_connects (self->handshake);
        drover_poller_drained (self->poller, S_MONITOR_AT);     //  we read it empty
    }
}

//  We leave the broker we sent to: note which requests it may have taken.
//  Not one it redirected (a standby does nothing), nor one sent while the
//  connection was down and not up since (it never left us).
static void
s_note_taken (drover_client_t *self, bool redirected)
{
    bool up = false;
    uint64_t connects = 0;
    if (!redirected)
        drover_client_note_link (self, &up, &connects);
    if (self->awaited && self->awaited_sent_in == self->moves)
        self->awaited_maybe_taken = !redirected
            && (self->awaited_up || connects > self->awaited_connects);
    for (uint32_t index = 0; self->outstanding && index < self->window; index++) {
        drover_client_slot_t *slot = &self->slots [index];
        if (slot->seq && slot->sent_in == self->moves)
            slot->maybe_taken = !redirected && (slot->sent_up || connects > slot->sent_connects);
    }
}

//  Talk to the endpoints' current broker from now on: a new DEALER (what
//  was queued for the old broker is dropped; the same one when the
//  current broker is where we are), and what the old one had goes again
//  after delay msec. redirected: the broker we leave answered REDIRECT,
//  so it did nothing with what we sent it.
static void
s_move (drover_client_t *self, int delay, bool redirected, const char *why)
{
    s_note_taken (self, redirected);
    self->moves++;
    //  Told to stay where we are (nowhere else to go): the same connection
    //  asks again after the delay
    bool stay = self->dealer && streq (drover_endpoints_current (self->endpoints),
                                       self->endpoint);
    for (size_t tries = 0; !stay; tries++) {
        const char *next = drover_endpoints_current (self->endpoints);
        //  A redirect is the protocol at work, said at every command a
        //  standby answers first: only a broker left for silence is news
        if (!redirected && strneq (next, self->endpoint))
            zsys_info ("client: moving from broker=%s to broker=%s in %d ms: %s",
                       self->endpoint, next, delay, why);
        free (self->endpoint);
        self->endpoint = strdup (next);
        assert (self->endpoint);
        drover_client_disconnect (self);
        if (drover_client_connect (self) == 0)
            break;
        //  Only a leader a REDIRECT named can be unusable (the list was
        //  checked, and each of its brokers has a key): the next of the
        //  list is not
        assert (tries <= drover_endpoints_size (self->endpoints));
        why = "cannot connect there";
        if (self->pair && !drover_serverkeys_for (self->serverkeys, self->endpoint)) {
            why = "no key of that broker is trusted";
            zsys_warning ("client: broker=%s is named leader, but no key of it is trusted "
                          "(give it as %s=KEY in the list of brokers)", self->endpoint,
                          self->endpoint);
        }
        delay += drover_endpoints_failed (self->endpoints, zclock_mono ());
    }
    int64_t due = zclock_mono () + delay;
    self->resend_due = due > 0? due: 1;
}

//  A REDIRECT came: move once the batch is read (the first one decides)
void
drover_client_redirected (drover_client_t *self, drover_msg_t *redirect)
{
    if (self->move_due)
        return;
    if (self->serverkeys)       //  the leader's key, by its name, if we trust one
        drover_serverkeys_learn (self->serverkeys, redirect->leader, redirect->leader_name);
    self->move_due = true;
    self->move_delay = drover_endpoints_redirected (self->endpoints, redirect->leader,
                                                    zclock_mono ());
}

//  Move if a REDIRECT came, or if the connection has been down for
//  DEAD_AFTER and there is another broker to try
void
drover_client_move_when_due (drover_client_t *self)
{
    if (self->move_due) {
        self->move_due = false;
        s_move (self, self->move_delay, true, "redirected");
        return;
    }
    int64_t down = self->handshake? drover_handshake_down_since (self->handshake): 0;
    int64_t now = zclock_mono ();
    if (down && now - down >= DROVER_ENDPOINTS_DEAD_AFTER && drover_client_may_move (self))
        s_move (self, drover_endpoints_failed (self->endpoints, now), false,
                "connection down");
}

//  Return when the client must next act by itself (send again after a
//  move, or check a connection that is down), 0 if never
int64_t
drover_client_wake_at (drover_client_t *self)
{
    int64_t wake = self->resend_due;
    int64_t down = self->handshake? drover_handshake_down_since (self->handshake): 0;
    if (down && drover_client_may_move (self)
    &&  (!wake || down + DROVER_ENDPOINTS_DEAD_AFTER < wake))
        wake = down + DROVER_ENDPOINTS_DEAD_AFTER;
    return wake;
}

//  True if a frame holds a request that may go twice: anything but a
//  SUBMIT without a key (two tasks)
static bool
s_repeatable (zframe_t *frame)
{
    drover_msg_t *msg = drover_msg_new (0);
    bool repeatable = drover_msg_decode (msg, zframe_data (frame), zframe_size (frame)) == 0
                   && (msg->id != DROVER_MSG_TASK_SUBMIT || msg->key != NULL);
    drover_msg_destroy (&msg);
    return repeatable;
}

//  After a move, once its delay has passed: send again what the broker we
//  left had not answered. A request that may not go twice (a SUBMIT
//  without a key) fails instead, unless that broker redirected.
void
drover_client_resend_when_due (drover_client_t *self)
{
    if (!self->resend_due || zclock_mono () < self->resend_due)
        return;
    self->resend_due = 0;
    if (self->awaited && self->awaited_frame && self->awaited_sent_in < self->moves) {
        if (!self->awaited_maybe_taken || s_repeatable (self->awaited_frame)) {
            drover_client_note_link (self, &self->awaited_up, &self->awaited_connects);
            drover_client_send_again (self, self->awaited_frame);
            self->awaited_sent_in = self->moves;
        }
        else
            self->awaited_lost = true;
    }
    size_t failed = 0;
    for (uint32_t index = 0; self->outstanding && index < self->window; index++) {
        drover_client_slot_t *slot = &self->slots [index];
        if (slot->seq == 0 || slot->sent_in >= self->moves)
            continue;
        if (slot->frame && (!slot->maybe_taken || slot->keyed)) {
            drover_client_note_link (self, &slot->sent_up, &slot->sent_connects);
            drover_client_send_again (self, slot->frame);
            slot->sent_in = self->moves;
        }
        else {
            drover_client_fail_slot (self, slot, DROVER_CLIENT_ERR_TIMEOUT,
                                     "the broker went away before it answered; not sent "
                                     "again (no submit key: it may have been accepted)");
            failed++;
        }
    }
    if (failed)
        zsys_warning ("client: %zu submits without a key not sent again to broker=%s", failed,
                      self->endpoint);
}

//  The broker said nothing for a request's timeout: move on, if we may
bool
drover_client_move_on_silence (drover_client_t *self, int64_t started)
{
    int64_t now = zclock_mono ();
    if (!drover_client_may_move (self) || now - started >= DROVER_CLIENT_FAILOVER)
        return false;
    s_move (self, drover_endpoints_failed (self->endpoints, now), false, "no answer");
    return true;
}
