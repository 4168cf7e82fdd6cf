/*  =========================================================================
    drover_probation - the probation actor: puts on probation the workers whose sends fail

    A transport failure (a send refused, an offer not acknowledged in time)
    puts an OK worker on probation; while on probation, another failure restarts
    its timer. A success, or probation-timeout msec without a failure,
    clears it. The probation set (src/broker/drover_probationset.c) decides; its next
    release deadline is the poll timeout.

    In:   CONFIGURE timeout(4)
          FAILURE worker(s) reason(s)
          UNSENT worker(s)              the main's send to the worker was refused
          SUCCESS worker(s)             may come many times: held, see the loop
          LOST worker(s) reason(s)      forget the worker
          UP worker(s) ...              a new registration starts off probation
          METRICS round(8)              answered COUNTS round values(f)
          EVENTS on(4) | VERBOSE | $TERM
    Out:  PROBATION worker(s) reason(s) until(8)   until: when it is due to end, msec
                                since the epoch; said again (no event) when a
                                failure moves it on
          CLEARED worker(s) why(s)      why: "timeout", "success" or "registered"
          EVENT topic(s) body(f)        worker.probation, worker.cleared
          COUNTS round(8) values(f)     probations (drover_metricset)
    =========================================================================
*/

#include "drover_probation.h"
#include "drover_msg.h"
#include "drover_probationset.h"
#include "drover_actor.h"
#include "drover_metricset.h"
#include "drover_defaults.h"

//  Probation timeout until CONFIGURE says otherwise, msec: the broker's default
#define S_TIMEOUT       DROVER_DEFAULT_PROBATION_TIMEOUT

typedef struct {
    zsock_t *pipe;              //  commands from the broker main
    drover_outbox_t *outbox;    //  what this turn says, flushed as one BATCH
    drover_poller_t *poller;    //  the pipe
    drover_probationset_t *set;   //  workers on probation, by release deadline
    uint32_t timeout;           //  probation-timeout, msec
    int hold;                   //  msec the pipe is left unread after a read (news may wait)
    int64_t held_until;         //  msec (mono) until which it is left unread
    drover_actor_flags_t flags; //  EVENTS, VERBOSE, $TERM heard
    uint64_t probations;        //  times a worker was put on probation, ever (METRICS)
} self_t;


//  Create the actor's state
static self_t *
s_self_new (zsock_t *pipe)
{
    self_t *self = (self_t *) zmalloc (sizeof (self_t));
    self->outbox = drover_outbox_new ();
    self->pipe = pipe;
    self->poller = drover_poller_new ();
    drover_poller_add (self->poller, pipe);
    self->set = drover_probationset_new (S_TIMEOUT);
    self->timeout = S_TIMEOUT;
    self->hold = DROVER_HOLD_MAX;
    return self;
}

//  Destroy the actor's state
static void
s_self_destroy (self_t **self_p)
{
    self_t *self = *self_p;
    if (!self)
        return;
    drover_probationset_destroy (&self->set);
    drover_poller_destroy (&self->poller);
    drover_outbox_destroy (&self->outbox);
    free (self);
    *self_p = NULL;
}

//  Say a worker is cleared, and why
static void
s_cleared (self_t *self, const char *worker, const char *why)
{
    zsys_notice ("probation: worker=%s state=OK why=%s", worker, why);
    drover_outbox_say (self->outbox, "sss", "CLEARED", worker, why);
    if (!self->flags.silent)
        drover_actor_event (self->outbox, "worker.cleared", 0, 0, worker, why);
}

//  FAILURE: put the worker on probation, or restart its timer; either way
//  schedq hears when it is due to end now (wall clock, for people)
static void
s_handle_failure (self_t *self, const char *worker, const char *reason)
{
    uint64_t until = (uint64_t) zclock_time () + self->timeout;
    if (drover_probationset_failure (self->set, worker, reason, zclock_mono ())
    ==  DROVER_PROBATIONSET_ENTERED) {
        self->probations++;
        zsys_notice ("probation: worker=%s state=PROBATION reason=\"%s\"", worker, reason);
        drover_outbox_say (self->outbox, "sss8", "PROBATION", worker, reason, until);
        if (!self->flags.silent)
            drover_actor_event (self->outbox, "worker.probation", 0, 0, worker, reason);
    }
    else {
        drover_outbox_say (self->outbox, "sss8", "PROBATION", worker, reason, until);
        if (self->flags.verbose)
            zsys_debug ("probation: worker=%s failed again, timer restarted reason=\"%s\"",
                        worker, reason);
    }
}

//  Handle one command from the pipe (drover_outbox_receive calls this)
static void
s_handle_command (void *arg, zmsg_t *msg)
{
    self_t *self = (self_t *) arg;
    char *command = zmsg_popstr (msg);
    assert (command);
    if (self->flags.verbose)
        zsys_debug ("probation: command=%s", command);
    if (streq (command, "FAILURE")) {
        char *worker = drover_actor_pop_string (msg);
        char *reason = drover_actor_pop_string (msg);
        s_handle_failure (self, worker, reason);
        zstr_free (&reason);
        zstr_free (&worker);
    }
    else
    if (streq (command, "UNSENT")) {
        char *worker = drover_actor_pop_string (msg);
        s_handle_failure (self, worker, "send refused");
        zstr_free (&worker);
    }
    else
    if (streq (command, "SUCCESS")) {
        char *worker = drover_actor_pop_string (msg);
        if (drover_probationset_success (self->set, worker))
            s_cleared (self, worker, "success");
        zstr_free (&worker);
    }
    else
    if (streq (command, "LOST")) {
        char *worker = drover_actor_pop_string (msg);
        if (drover_probationset_forget (self->set, worker) && self->flags.verbose)
            zsys_debug ("probation: forgot lost worker=%s", worker);
        zstr_free (&worker);
    }
    else
    if (streq (command, "UP")) {
        //  A failure can arrive after LOST and put on probation a worker nobody has;
        //  when it registers again it starts clean, and schedq hears so
        char *worker = drover_actor_pop_string (msg);
        if (drover_probationset_forget (self->set, worker))
            s_cleared (self, worker, "registered");
        zstr_free (&worker);
    }
    else
    if (streq (command, "METRICS")) {
        drover_metricset_t *counts = drover_metricset_new ();
        drover_metricset_set (counts, DROVER_METRIC_PROBATIONS, self->probations);
        drover_metricset_say (counts, self->outbox, drover_actor_pop_number (msg));
        drover_metricset_destroy (&counts);
    }
    else
    if (streq (command, "CONFIGURE")) {
        uint32_t timeout = (uint32_t) drover_actor_pop_number (msg);
        drover_probationset_set_timeout (self->set, timeout);
        self->timeout = timeout;
        //  A SUCCESS only says "may leave probation": it may wait a little
        self->hold = timeout / 8 < DROVER_HOLD_MAX? (int) timeout / 8: DROVER_HOLD_MAX;
    }
    else
    if (!drover_actor_handle_common (&self->flags, command, msg)) {
        zsys_error ("probation: invalid command=%s", command);
        assert (false);
    }
    zstr_free (&command);
}

//  Clear every worker whose probation has run out
static void
s_release_due (self_t *self, int64_t now)
{
    char *worker;
    while ((worker = drover_probationset_expire (self->set, now))) {
        s_cleared (self, worker, "timeout");
        zstr_free (&worker);
    }
}

//  The actor
void
drover_probation_actor (zsock_t *pipe, void *args)
{
    self_t *self = s_self_new (pipe);
    zsock_signal (pipe, 0);
    while (!self->flags.stopping) {
        int64_t deadline = drover_probationset_next_deadline (self->set);
        int wait = drover_actor_poll_timeout (deadline, zclock_mono ());
        if (drover_actor_wait (self->poller, wait, self->held_until) == -1)
            break;              //  interrupted
        int read = drover_actor_read (self->poller, self->pipe, NULL, s_handle_command, NULL,
                                     self);
        if (read == -1)
            break;              //  the context is ending
        int64_t now = zclock_mono ();
        //  SUCCESS comes from assign once per worker per turn of assign's:
        //  what comes next waits in the pipe a moment and is read in one
        //  turn, in order (a SUCCESS after a FAILURE still clears), unless
        //  the pipe still holds more than a turn reads
        if (read > 0 && !drover_poller_readable (self->poller, DROVER_PIPE_AT))
            self->held_until = now + self->hold;
        if (!self->flags.stopping)
            s_release_due (self, now);
        drover_actor_flush (self->poller, DROVER_PIPE_AT, self->outbox, self->pipe);
    }
    s_self_destroy (&self);
}
