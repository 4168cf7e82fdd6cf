/*  =========================================================================
    drover_worker_uplink - the worker's link to its broker

    The DEALER to the broker and what keeps it honest: connecting and
    saying HELLO, heartbeats, noticing a broker that stopped answering,
    dropping the socket and connecting again after a backoff, and reading
    what the broker sends (each message is then acted on by
    drover_worker_handle_message, in drover_worker_tasks.c).

    Registration is a small state machine over the socket:
      connected, HELLO sent  --WELCOME-->  registered (heartbeats flow)
      registered             --ERROR 401-->  HELLO sent again
      a reply due and none for 3 heartbeats  -->  socket dropped, connect
                                                   again after the backoff,
                                                   and a WARNING
      registered, its connection down  -->  not registered: nothing sent
      ZeroMQ connected the socket again by itself  -->  socket dropped,
                                  connect again after the backoff: HELLO
                                  first, results after WELCOME
    A broker registers a worker by its connection: on a new one it knows
    nobody, and a RESULT there would be refused (401) and sent again after
    the HELLO that follows. So nothing but HELLO goes on a connection the
    worker has not registered on: before each send the monitor's news is
    taken; while the connection is down nothing is sent, and a socket that
    connected again is dropped with whatever it still queued. (A socket
    whose connection is down is kept meanwhile: with several brokers, the
    worker moves only once it is down for DEAD_AFTER.)
    A reply is due while HELLO is unanswered or a result is unacknowledged;
    heartbeats and TASK STARTED get no reply, so an idle worker on a dead
    TCP link learns of it from the kernel (its heartbeats go unacknowledged
    for 3 heartbeats: TCP_USER_TIMEOUT; libzmq reconnects) and then from
    the 401 its next heartbeat earns from the broker.

    With several brokers (PROTOCOL.md §17) the worker talks to one at a
    time and moves, with drover_endpoints deciding where: to the leader a
    REDIRECT names, or to the next of its list when its broker is gone
    (the DEALER's connection down for DEAD_AFTER: the monitor sees a
    killed broker's connection close at once) or silent (a reply due for
    3 heartbeats). A move is a new DEALER and a HELLO, exactly as after a
    broker restart: the running list, then the kept RESULTs after WELCOME.

    Each system call costs about a microsecond here, more than handling a
    message, so a turn spends as few as it can: one wait (epoll_wait), then up to a
    batch of messages read with ZMQ_DONTWAIT until the DEALER is empty.
    The poller's rules for ZMQ_FDs are kept here: a read that says EAGAIN
    marks the DEALER drained, every send marks it sent, and the DEALER
    leaves its slot when it is dropped and takes it back when created
    again on a reconnect.
    =========================================================================
*/

#include "drover_worker_internal.h"
#include "drover_stats.h"

#define S_SILENT_BEATS      3       //  heartbeats without a due reply: reconnect
#define S_BACKOFF_MAX       5000    //  msec between reconnects at most
#define S_WARN_EVERY        60000   //  msec between "no broker answers" warnings at most, once at S_BACKOFF_MAX
#define S_RECV_BATCH        256     //  messages read per turn at most
#define S_HWM               100000  //  messages queued on the DEALER
#define S_WAKE_MAX          1000    //  msec the loop sleeps at most


//  --------------------------------------------------------------------------
//  Return the next request number: 1, 2, ... 2^32-1, then 1 again (0 is "none")

uint32_t
drover_worker_next_seq (drover_worker_t *self)
{
    if (++self->seq == 0)
        self->seq = 1;
    return self->seq;
}

//  Return the msec of silence after which a due reply counts as lost
static int64_t
s_silence (drover_worker_t *self)
{
    return (int64_t) self->heartbeat * S_SILENT_BEATS;
}


//  --------------------------------------------------------------------------
//  Note that we sent something that the broker answers

void
drover_worker_expect_reply (drover_worker_t *self, int64_t now)
{
    if (!self->expect_since)
        self->expect_since = now;
}


//  --------------------------------------------------------------------------
//  Encode and send a message without blocking. Returns 0, or -1 if it
//  could not be encoded or queued (peer gone, queue full).

static bool
    s_connection_replaced (drover_worker_t *self, int64_t now);

int
drover_worker_send (drover_worker_t *self, drover_msg_t *msg)
{
    if (!self->dealer)
        return -1;
    //  (A GOODBYE goes as it can: the worker is leaving, its socket with it)
    if (msg->id != DROVER_MSG_WORKER_HELLO && msg->id != DROVER_MSG_WORKER_GOODBYE
    &&  s_connection_replaced (self, zclock_mono ()))
        return -1;              //  not registered there: a result is kept for after WELCOME
    if (self->verbose)
        zsys_debug ("worker: send %s seq=%u task=%" PRIu64 " attempt=%u",
                    drover_msg_name (msg->id), msg->seq, msg->task, msg->attempt);
    zframe_t *frame = drover_msg_encode_level (msg, self->level);
    if (!frame) {
        zsys_error ("worker: cannot encode %s task=%" PRIu64 ": a field is past its limit",
                    drover_msg_name (msg->id), msg->task);
        return -1;
    }
    int rc = zframe_send (&frame, self->dealer, ZFRAME_DONTWAIT);
    zframe_destroy (&frame);
    drover_poller_sent (self->poller, DROVER_WORKER_DEALER_AT);    //  it may have taken in the read signal
    if (rc == -1 && self->verbose)
        zsys_debug ("worker: send %s refused: %s", drover_msg_name (msg->id),
                    zmq_strerror (zmq_errno ()));
    return rc;
}


//  --------------------------------------------------------------------------
//  List in msg's running the attempts we have: those still running and
//  those whose result is not yet acknowledged (HELLO and RUNS list the same)

static void
s_list_attempts (drover_worker_t *self, drover_msg_t *msg)
{
    size_t running = self->runner? drover_runner_size (self->runner): 0;
    size_t listed = running + zlistx_size (self->pending);
    if (listed > DROVER_RUNNING_MAX)
        listed = DROVER_RUNNING_MAX;
    if (listed == 0)
        return;
    msg->running = (drover_taskref_t *) zmalloc (listed * sizeof (drover_taskref_t));
    size_t count = running? drover_runner_list (self->runner, msg->running, listed): 0;
    drover_msg_t *result = (drover_msg_t *) zlistx_first (self->pending);
    for (; result && count < listed; count++) {
        msg->running [count].task = result->task;
        msg->running [count].attempt = result->attempt;
        result = (drover_msg_t *) zlistx_next (self->pending);
    }
    msg->nrunning = (uint32_t) count;
}


//  --------------------------------------------------------------------------
//  Answer the reconciler's WORKER GATHER of seq with WORKER RUNS: the
//  attempts we have, listed as in HELLO. Nothing answers it, so nothing
//  is awaited (PROTOCOL.md §7.31).

void
drover_worker_send_runs (drover_worker_t *self, uint32_t seq)
{
    drover_msg_t *runs = drover_msg_new (DROVER_MSG_WORKER_RUNS);
    runs->seq = seq;
    strcpy (runs->worker, self->id);
    s_list_attempts (self, runs);
    if (self->verbose)
        zsys_debug ("worker: gather seq=%u: %u attempts", seq, runs->nrunning);
    drover_worker_send (self, runs);
    drover_msg_destroy (&runs);
}


//  --------------------------------------------------------------------------
//  Say WORKER HELLO with what we offer, the attempts still running and
//  those whose result is not yet acknowledged: the broker must not count
//  an attempt whose result is on its way as lost (it would run the task
//  again), so both are "running" for it (PROTOCOL.md §9)

void
drover_worker_send_hello (drover_worker_t *self, int64_t now)
{
    drover_msg_t *hello = drover_msg_new (DROVER_MSG_WORKER_HELLO);
    hello->seq = self->hello_seq = drover_worker_next_seq (self);
    strcpy (hello->worker, self->id);
    hello->epoch = self->epoch;
    hello->procs = self->procs;
    hello->mem = self->mem;
    for (uint32_t index = 0; index < self->nlabels; index++)
        drover_msg_add_label (hello, self->labels [index]);
    s_list_attempts (self, hello);
    strcpy (hello->state_id, self->state_id);
    self->registered = false;
    self->hello_at = now;
    drover_worker_send (self, hello);
    drover_worker_expect_reply (self, now);
    drover_msg_destroy (&hello);
}


//  True if the worker may move between brokers: it has several, or was
//  sent by a REDIRECT to one not in its list. A worker with one broker
//  stays, and reconnects there, as it always did.
static bool
s_may_move (drover_worker_t *self)
{
    return drover_endpoints_size (self->endpoints) > 1
        || drover_endpoints_moves (self->endpoints) > 0;
}

//  --------------------------------------------------------------------------
//  Create the DEALER, connect it and say HELLO. Returns 0, or -1 if the
//  endpoint is not usable.

int
drover_worker_connect (drover_worker_t *self, int64_t now)
{
    assert (!self->dealer);
    const char *server_key = self->pair
                           ? drover_serverkeys_for (self->serverkeys, self->endpoint): NULL;
    if (self->pair && !server_key) {
        //  A leader a REDIRECT named, of no key we hold (the list's have one)
        zsys_error ("worker: cannot connect broker=%s: no key of it is trusted (give it as "
                    "%s=KEY in the list of brokers, or name its key file after the broker)",
                    self->endpoint, self->endpoint);
        return -1;
    }
    self->level = DROVER_MSG_LEVEL;     //  a new connection: say ours first
    self->dealer = zsock_new (ZMQ_DEALER);
    assert (self->dealer);
    zsock_set_maxmsgsize (self->dealer, DROVER_MSG_MAX);
    zsock_set_sndhwm (self->dealer, S_HWM);
    zsock_set_rcvhwm (self->dealer, S_HWM);
    zsock_set_linger (self->dealer, 0);
    //  A vanished broker is noticed by the kernel, at no cost to the broker
    //  (a ZMTP PING every heartbeat would wake its I/O thread once a second
    //  for every worker): heartbeats left unacknowledged for silence close
    //  the connection (TCP_USER_TIMEOUT), keepalives probe an idle one, and
    //  libzmq reconnects
    int silence = (int) s_silence (self);
    zsock_set_tcp_maxrt (self->dealer, silence);
    zsock_set_tcp_keepalive (self->dealer, 1);
    zsock_set_tcp_keepalive_idle (self->dealer, silence / 1000 > 1? silence / 1000: 1);
    zsock_set_tcp_keepalive_intvl (self->dealer, 1);
    zsock_set_tcp_keepalive_cnt (self->dealer, S_SILENT_BEATS);
    zsock_set_reconnect_ivl (self->dealer, 100);
    zsock_set_reconnect_ivl_max (self->dealer, S_BACKOFF_MAX);
    if (s_may_move (self)) {
        //  With several brokers a stopped leader (SIGSTOP, a paused VM)
        //  must be left too: its kernel still acknowledges our heartbeats,
        //  its process answers nothing, so ask the peer itself (ZMTP PING,
        //  answered by its I/O thread) and drop the connection after the
        //  silence: the move follows (PROTOCOL.md §17)
        zsock_set_heartbeat_ivl (self->dealer, (int) self->heartbeat);
        zsock_set_heartbeat_timeout (self->dealer, silence);
    }
    if (self->pair) {
        zcert_apply (self->pair, self->dealer);
        zsock_set_curve_serverkey (self->dealer, server_key);
    }
    self->handshake = drover_handshake_new (self->dealer, self->pair != NULL);
    if (zsock_connect (self->dealer, "%s", self->endpoint) == -1) {
        zsys_error ("worker: cannot connect broker=%s: %s", self->endpoint,
                    zmq_strerror (zmq_errno ()));
        drover_handshake_destroy (&self->handshake);
        zsock_destroy (&self->dealer);
        return -1;
    }
    drover_poller_set (self->poller, DROVER_WORKER_DEALER_AT, self->dealer);
    drover_poller_set (self->poller, DROVER_WORKER_MONITOR_AT,
                       drover_handshake_sock (self->handshake));
    self->reconnect_at = 0;
    self->expect_since = 0;
    drover_worker_send_hello (self, now);
    return 0;
}


//  --------------------------------------------------------------------------
//  Drop the DEALER and connect again after the backoff

void
drover_worker_disconnect (drover_worker_t *self, int64_t now)
{
    drover_poller_set (self->poller, DROVER_WORKER_DEALER_AT, NULL);
    drover_poller_set (self->poller, DROVER_WORKER_MONITOR_AT, NULL);
    drover_handshake_destroy (&self->handshake);
    zsock_set_linger (self->dealer, 0);
    zsock_destroy (&self->dealer);
    self->registered = false;
    self->expect_since = 0;
    self->hello_again_at = 0;
    self->reconnect_at = now + self->backoff;
    self->backoff = self->backoff * 2 > S_BACKOFF_MAX? S_BACKOFF_MAX: self->backoff * 2;
}

//  Talk to the endpoints' current broker from now on, after delay msec:
//  drop the DEALER (nothing queued for the old broker goes anywhere) and
//  connect anew, which says HELLO
static void
s_move (drover_worker_t *self, int delay, const char *why, int64_t now)
{
    uint32_t backoff = self->backoff;
    if (self->dealer)
        drover_worker_disconnect (self, now);
    self->backoff = backoff;        //  the move's delay replaces the reconnect backoff
    self->reconnect_at = now + delay;
    const char *next = drover_endpoints_current (self->endpoints);
    zsys_notice ("worker: moving from broker=%s to broker=%s id=%s in %d ms: %s",
                 self->endpoint, next, self->id, delay, why);
    free (self->endpoint);
    self->endpoint = strdup (next);
    assert (self->endpoint);
}

//  REDIRECT from a broker that does not serve. When it leaves us nowhere
//  else to go (it names a leader found gone lately, or none, and no other
//  broker of the list is alive), we are not moving: the same connection
//  says HELLO again after the delay, and that is said once, not at each
//  REDIRECT until the election is over.
void
drover_worker_handle_redirect (drover_worker_t *self, drover_msg_t *redirect, int64_t now)
{
    if (self->serverkeys)       //  the leader's key, by its name, if we trust one
        drover_serverkeys_learn (self->serverkeys, redirect->leader, redirect->leader_name);
    int delay = drover_endpoints_redirected (self->endpoints, redirect->leader, now);
    char why [DROVER_ENDPOINT_MAX + DROVER_ID_MAX + 64];
    if (*redirect->leader)
        snprintf (why, sizeof why, "redirected to leader %s at %s", redirect->leader_name,
                  redirect->leader);
    else
        snprintf (why, sizeof why, "redirected, no leader known");
    if (self->dealer && streq (drover_endpoints_current (self->endpoints), self->endpoint)) {
        if (self->stay_said_in != self->registrations + 1
        ||  strneq (self->stayed_for, redirect->leader)) {
            zsys_notice ("worker: broker=%s id=%s %s, no other broker to try; asking it "
                         "again until it names a leader that answers", self->endpoint, self->id,
                         why);
            snprintf (self->stayed_for, sizeof self->stayed_for, "%s", redirect->leader);
            self->stay_said_in = self->registrations + 1;
        }
        self->hello_again_at = now + (delay > 0? delay: 1);
        return;
    }
    s_move (self, delay, why, now);
}

//  Take what the DEALER's handshake monitor said
void
drover_worker_handle_handshake (drover_worker_t *self, int64_t now)
{
    int outcome = drover_handshake_read (self->handshake);
    drover_poller_drained (self->poller, DROVER_WORKER_MONITOR_AT);
    if (outcome == 1 && *self->refused_said) {
        zsys_notice ("worker: broker=%s accepted this key id=%s (after %" PRIu64 " refusals)",
                     self->endpoint, self->id, self->refusals);
        self->refused_said [0] = 0;
    }
    if (outcome != -1) {
        s_connection_replaced (self, now);
        return;
    }
    self->refusals++;
    //  Said when it is news, else once a minute: ZeroMQ gives up a refused
    //  connection, and we connect again at the backoff's pace
    const char *reason = drover_handshake_reason (self->handshake);
    if (!streq (reason, self->refused_said) || now - self->refused_said_at >= S_WARN_EVERY) {
        zsys_error ("worker: broker=%s id=%s: %s; trying again every %u msec at most",
                    self->endpoint, self->id, reason, S_BACKOFF_MAX);
        snprintf (self->refused_said, sizeof self->refused_said, "%s", reason);
        self->refused_said_at = now;
    }
    drover_worker_disconnect (self, now);
}

//  Tell whether the connection this DEALER said HELLO on is gone, taking
//  the monitor's news. While it is down we are not registered: nothing but
//  HELLO may go out (the broker would know nobody on the next connection).
//  Once ZeroMQ has connected again by itself, what waited in the socket
//  would reach the broker before any HELLO: drop the socket with it and
//  connect again after the backoff; the new socket says HELLO first.
static bool
s_connection_replaced (drover_worker_t *self, int64_t now)
{
    drover_handshake_up (self->handshake);
    uint64_t connects = drover_handshake_connects (self->handshake);
    if (connects > 1) {
        zsys_notice ("worker: connected to broker=%s again id=%s unacked=%zu: registering "
                     "again in %u ms", self->endpoint, self->id, zlistx_size (self->pending),
                     self->backoff);
        drover_worker_disconnect (self, now);
        return true;
    }
    if (connects == 0 || !drover_handshake_down_since (self->handshake))
        return false;           //  not connected yet, or up on its first connection
    if (self->registered)
        zsys_notice ("worker: connection to broker=%s lost id=%s unacked=%zu: registering "
                     "again once it is back", self->endpoint, self->id,
                     zlistx_size (self->pending));
    self->registered = false;
    return true;
}

//  A due reply did not come: say so at WARNING before we drop the
//  connection, about a broker we had that stopped answering, or none
//  answering at all (not started, or a wrong --broker); the latter each
//  time the backoff grows, then once a minute, so the log is not flooded
static void
s_warn_unanswered (drover_worker_t *self, int64_t now)
{
    uint32_t backoff = self->backoff;
    if (!self->unanswered_since)
        self->unanswered_since = self->expect_since? self->expect_since: now;
    self->unanswered++;
    if (self->registered) {
        zsys_warning ("worker: broker at %s stopped answering id=%s unacked=%zu, next try in %u ms",
                      self->endpoint, self->id, zlistx_size (self->pending), backoff);
        self->warned_retry = backoff;
        self->warned_at = now;
    }
    else
    if (backoff > self->warned_retry || now - self->warned_at >= S_WARN_EVERY) {
        zsys_warning ("worker: no broker answers at %s id=%s tries=%u, trying for %.1f s,"
                      " next try in %u ms", self->endpoint, self->id, self->unanswered,
                      (now - self->unanswered_since) / 1000.0, backoff);
        self->warned_retry = backoff;
        self->warned_at = now;
    }
}


//  --------------------------------------------------------------------------
//  Read what the broker sent, up to a batch, without blocking; an EAGAIN
//  marks the DEALER drained (its ZMQ_FD will signal what comes next)

void
drover_worker_handle_dealer (drover_worker_t *self, int64_t now)
{
    void *handle = zsock_resolve (self->dealer);
    for (int count = 0; count < S_RECV_BATCH && self->dealer; count++) {
        zmq_msg_t frame;
        zmq_msg_init (&frame);
        if (zmq_msg_recv (&frame, handle, ZMQ_DONTWAIT) == -1) {
            zmq_msg_close (&frame);
            if (zmq_errno () == EAGAIN)
                drover_poller_drained (self->poller, DROVER_WORKER_DEALER_AT);
            else
            if (zmq_errno () == ETERM)
                self->stopping = true;      //  the context is going away
            break;
        }
        bool more = zmq_msg_more (&frame);
        int rc = drover_msg_decode (self->in, (const byte *) zmq_msg_data (&frame),
                                    zmq_msg_size (&frame));
        zmq_msg_close (&frame);
        while (more) {          //  every message is one frame: drop the rest
            zmq_msg_init (&frame);
            if (zmq_msg_recv (&frame, handle, ZMQ_DONTWAIT) == -1)
                more = false;
            else
                more = zmq_msg_more (&frame);
            zmq_msg_close (&frame);
            rc = -2;
        }
        //  Anything from the broker, even garbage, shows it is there
        self->expect_since = 0;
        if (rc != 0) {
            if (self->malformed++ % 100 == 0)
                zsys_warning ("worker: malformed message from broker (%" PRIu64 " so far): %s",
                              self->malformed, self->in->error? self->in->error: "multipart");
        }
        else
            drover_worker_handle_message (self, self->in, now);
        self->unanswered_since = 0;
        self->unanswered = 0;
        self->warned_retry = 0;
        if (self->dealer && (!self->registered || zlistx_size (self->pending)))
            drover_worker_expect_reply (self, now);
    }
}

//  Send a heartbeat with fresh stats
static void
s_send_heartbeat (drover_worker_t *self)
{
    drover_msg_t *heartbeat = drover_msg_new (DROVER_MSG_WORKER_HEARTBEAT);
    heartbeat->seq = drover_worker_next_seq (self);
    strcpy (heartbeat->worker, self->id);
    heartbeat->epoch = self->epoch;
    drover_stats_read (&heartbeat->stats, self->workdir);
    heartbeat->stats.running = self->runner? (uint32_t) drover_runner_size (self->runner): 0;
    drover_worker_send (self, heartbeat);
    drover_msg_destroy (&heartbeat);
}


//  --------------------------------------------------------------------------
//  Say GOODBYE

void
drover_worker_send_goodbye (drover_worker_t *self)
{
    drover_msg_t *goodbye = drover_msg_new (DROVER_MSG_WORKER_GOODBYE);
    goodbye->seq = drover_worker_next_seq (self);
    strcpy (goodbye->worker, self->id);
    goodbye->epoch = self->epoch;
    drover_worker_send (self, goodbye);
    drover_msg_destroy (&goodbye);
}


//  --------------------------------------------------------------------------
//  Timers: reconnect, silence, heartbeat, results to send again, and
//  leaving once idle

void
drover_worker_tick (drover_worker_t *self, int64_t now)
{
    if (!self->dealer) {
        if (now >= self->reconnect_at && drover_worker_connect (self, now) == -1) {
            if (drover_endpoints_moves (self->endpoints) > 0)
                //  A leader a REDIRECT named that ZeroMQ cannot use: the list
                s_move (self, drover_endpoints_failed (self->endpoints, now),
                        "cannot connect there", now);
            else
                self->stopping = true;
        }
        return;
    }
    int64_t down = drover_handshake_down_since (self->handshake);
    if (down && now - down >= DROVER_ENDPOINTS_DEAD_AFTER && s_may_move (self)) {
        int delay = drover_endpoints_failed (self->endpoints, now);
        char why [64];
        snprintf (why, sizeof why, "its connection is down for %" PRId64 " ms", now - down);
        s_move (self, delay, why, now);
        return;
    }
    if (self->expect_since && now - self->expect_since >= s_silence (self)) {
        s_warn_unanswered (self, now);
        if (s_may_move (self))
            s_move (self, drover_endpoints_failed (self->endpoints, now), "no answer", now);
        else
            drover_worker_disconnect (self, now);
        return;
    }
    if (self->hello_again_at && now >= self->hello_again_at) {
        self->hello_again_at = 0;
        drover_worker_send_hello (self, now);
    }
    if (self->registered && now >= self->next_heartbeat) {
        s_send_heartbeat (self);
        self->next_heartbeat = now + self->heartbeat;
    }
    if (self->resend_at && now >= self->resend_at && self->registered)
        drover_worker_resend_results (self, now);
    if (self->leaving && self->registered
    &&  (!self->runner || drover_runner_size (self->runner) == 0)
    &&  zlistx_size (self->pending) == 0) {
        zsys_notice ("worker: leaving id=%s tasks=%" PRIu64 " acked=%" PRIu64,
                     self->id, self->tasks_run, self->results_acked);
        drover_worker_send_goodbye (self);
        self->stopping = true;
    }
}


//  --------------------------------------------------------------------------
//  Return the msec until the loop has something to do

long
drover_worker_wait_msec (drover_worker_t *self, int64_t now)
{
    int64_t next = now + S_WAKE_MAX;
    if (!self->dealer && self->reconnect_at < next)
        next = self->reconnect_at;
    if (self->dealer && self->registered && self->next_heartbeat < next)
        next = self->next_heartbeat;
    if (self->dealer && self->expect_since && self->expect_since + s_silence (self) < next)
        next = self->expect_since + s_silence (self);
    if (self->dealer && self->hello_again_at && self->hello_again_at < next)
        next = self->hello_again_at;
    int64_t down = self->dealer? drover_handshake_down_since (self->handshake): 0;
    if (down && s_may_move (self) && down + DROVER_ENDPOINTS_DEAD_AFTER < next)
        next = down + DROVER_ENDPOINTS_DEAD_AFTER;
    if (self->dealer && self->registered && self->resend_at && self->resend_at < next)
        next = self->resend_at;
    int64_t due = self->runner? drover_runner_next_deadline (self->runner): -1;
    if (due != -1 && due < next)
        next = due;
    return next > now? (long) (next - now): 0;
}
