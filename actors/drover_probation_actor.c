/*  =========================================================================
    drover_probation_actor - the probation actor: puts on probation the workers whose sends fail

    A transport failure (a send refused, an offer not acknowledged in time)
    puts an OK worker on probation; while on probation, another failure restarts
    its timer. A success, or probation-timeout msec without a failure,
    clears it. The probation set (src/broker/workers/drover_probation.c) decides; its next
    release deadline is the poll timeout.

    A send refused is the worker's failure only if it went to the worker's
    current registration: one on a connection that a newer HELLO has
    replaced is not (the route of each worker's last UP is kept), nor one
    refused soon after a stall of the broker (stopped, starved): its peers
    gave up on it meanwhile and connect again, and what it then sends on
    their old connections fails through no fault of theirs. The actor
    notices its own stalls as health and assign do (ACTORS.md, "A pause of
    the broker"), and forgives refused sends for as long again as the stall
    lasted (at least a second, at most probation-timeout).

    What it hears and says, and how: actors/ACTORS.md, "probation" and "How
    actors talk".
    =========================================================================
*/

#include "drover_probation_actor.h"
#include "drover_msg.h"
#include "drover_probation.h"
#include "drover_actor.h"
#include "drover_metrics.h"
#include "drover_defaults.h"

//  Probation timeout until CONFIGURE says otherwise, msec: the broker's default
#define S_TIMEOUT       DROVER_DEFAULT_PROBATION_TIMEOUT

//  Least msec refused sends are forgiven after a stall of the broker
#define S_STALL_GRACE   1000

typedef struct {
    zsock_t *pipe;              //  commands from the broker main
    drover_outbox_t *outbox;    //  what this turn says, flushed as one BATCH
    drover_poller_t *poller;    //  the pipe
    drover_probation_t *set;   //  workers on probation, by release deadline
    uint32_t timeout;           //  probation-timeout, msec
    int hold;                   //  msec the pipe is left unread after a read (news may wait)
    int64_t held_until;         //  msec (mono) until which it is left unread
    drover_actor_flags_t flags; //  EVENTS, VERBOSE, $TERM heard
    uint64_t probations;        //  times a worker was put on probation, ever (METRICS)
    zhashx_t *routes;           //  worker id -> zframe_t route of its last UP (owned)
    drover_turns_t turns;       //  when the loop last turned, to notice our own stalls
    int64_t forgive_until;      //  msec (mono): sends refused before then follow a stall
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
    self->set = drover_probation_new (S_TIMEOUT);
    self->routes = zhashx_new ();
    zhashx_set_destructor (self->routes, (zhashx_destructor_fn *) zframe_destroy);
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
    drover_probation_destroy (&self->set);
    zhashx_destroy (&self->routes);
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
    if (drover_probation_failure (self->set, worker, reason, zclock_mono ())
    ==  DROVER_PROBATION_ENTERED) {
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

//  UNSENT worker [route]: a send refused is a failure of the worker, unless
//  it went to a connection its newer registration replaced, or the broker
//  itself just stalled (its peers gave up on it and connect again)
static void
s_handle_unsent (self_t *self, zmsg_t *msg)
{
    char *worker = drover_actor_pop_string (msg);
    zframe_t *route = zmsg_pop (msg);
    zframe_t *current = (zframe_t *) zhashx_lookup (self->routes, worker);
    const char *why = NULL;
    if (route && current && !zframe_eq (route, current))
        why = "its connection was replaced since";
    else
    if (zclock_mono () < self->forgive_until)
        why = "the broker stalled just before";
    if (why) {
        if (self->flags.verbose)
            zsys_debug ("probation: worker=%s send refused, not a failure: %s", worker, why);
    }
    else
        s_handle_failure (self, worker, "send refused");
    zframe_destroy (&route);
    zstr_free (&worker);
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
    if (streq (command, "UNSENT"))
        s_handle_unsent (self, msg);
    else
    if (streq (command, "SUCCESS")) {
        char *worker = drover_actor_pop_string (msg);
        if (drover_probation_success (self->set, worker))
            s_cleared (self, worker, "success");
        zstr_free (&worker);
    }
    else
    if (streq (command, "LOST")) {
        char *worker = drover_actor_pop_string (msg);
        if (drover_probation_forget (self->set, worker) && self->flags.verbose)
            zsys_debug ("probation: forgot lost worker=%s", worker);
        zhashx_delete (self->routes, worker);
        zstr_free (&worker);
    }
    else
    if (streq (command, "UP")) {
        //  A failure can arrive after LOST and put on probation a worker nobody has;
        //  when it registers again it starts clean, and schedq hears so
        char *worker = drover_actor_pop_string (msg);
        if (drover_probation_forget (self->set, worker))
            s_cleared (self, worker, "registered");
        zframe_t *route = zmsg_pop (msg);
        assert (route);             //  health said it wrong: our bug
        zhashx_update (self->routes, worker, route);
        zstr_free (&worker);
    }
    else
    if (streq (command, "METRICS")) {
        drover_metrics_t *counts = drover_metrics_new ();
        drover_metrics_set (counts, DROVER_METRIC_PROBATIONS, self->probations);
        drover_metrics_say (counts, self->outbox, drover_actor_pop_number (msg));
        drover_metrics_destroy (&counts);
    }
    else
    if (streq (command, "CONFIGURE")) {
        uint32_t timeout = (uint32_t) drover_actor_pop_number (msg);
        drover_probation_set_timeout (self->set, timeout);
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
    while ((worker = drover_probation_expire (self->set, now))) {
        s_cleared (self, worker, "timeout");
        zstr_free (&worker);
    }
}

//  A pause of the broker is not the workers' fault: if this loop did not
//  run for a while (the process was stopped or starved), peers that waited
//  for an answer gave up and connect again, and sends on their old
//  connections fail until their new registrations are read. Those are
//  forgiven for as long again as the stall lasted (at least S_STALL_GRACE,
//  at most probation-timeout).
static void
s_forgive_stall (self_t *self)
{
    int64_t now = zclock_mono ();
    int64_t stall = drover_turns_stall (&self->turns, now);
    if (!stall)
        return;
    int64_t grace = stall < S_STALL_GRACE? S_STALL_GRACE: stall;
    if (grace > self->timeout)
        grace = self->timeout;
    if (self->forgive_until < now + grace)
        self->forgive_until = now + grace;
    zsys_warning ("probation: broker stalled for %" PRId64 " msec: sends refused in the next %"
                  PRId64 " msec put no worker on probation", stall, grace);
}

//  The actor
void
drover_probation_actor (zsock_t *pipe, void *args)
{
    drover_actor_name_thread ("probation");
    self_t *self = s_self_new (pipe);
    zsock_signal (pipe, 0);
    while (!self->flags.stopping) {
        int64_t deadline = drover_probation_next_deadline (self->set);
        int wait = drover_actor_poll_timeout (deadline, zclock_mono ());
        //  While workers are known, wake often enough to tell a stall of
        //  our own from sleep; an idle sleep is no stall
        if (zhashx_size (self->routes))
            wait = drover_turns_wait (wait);
        else
            self->turns.turn_at = 0;
        if (drover_actor_wait (self->poller, wait, self->held_until) == -1)
            break;              //  interrupted
        s_forgive_stall (self);
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
