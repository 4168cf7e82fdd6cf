/*  =========================================================================
    drover_assign - the assign actor: the I/O around the task table

    The task table (src/drover_tasktable.c) decides; this actor reads its
    commands from the pipe, calls the table with zclock_mono () as `now`,
    answers the peer that asked, then carries out the actions the table
    decided, in order. The reply to a request always goes out before what
    the request caused (a client sees OK to its CANCEL before the TASK DONE
    it brings). The only timer is the table's oldest ack deadline, which is
    the poll timeout.

    In:   CONFIGURE ack-timeout(4) lost-retries(4) max-queued(4) keep-finished(4)
          MSG route(f) msg(p)        TASK SUBMIT, WAIT, CANCEL, LIST, STARTED, RESULT
          ASSIGN [task(8) worker(s)]...
          UP worker(s) route(f) epoch(8) procs(4) mem(8) labels(s) running(f)
          LOST worker(s) reason(s)
          VERBOSE | $TERM
    Out:  QUEUE task(8) priority(i) procs(4) mem(8) labels(s) | DEQUEUE task(8)
          FREE task(8) | SUCCESS worker(s) | FAILURE worker(s) reason(s)
          SEND route(f) payload(f) worker(s) | EVENT topic(s) body(f)
    =========================================================================
*/

#include "drover_assign.h"
#include "drover_msg.h"
#include "drover_tasktable.h"

//  Most messages handled from the pipe before the ack deadlines are checked
#define S_BATCH             256
//  Most warnings about stale or unknown reports logged per second
#define S_WARNINGS_PER_SEC  20

typedef struct {
    zsock_t *pipe;              //  commands from the broker main
    zpoller_t *poller;          //  the pipe
    drover_tasktable_t *table;  //  every task; decides everything
    uint64_t stale;             //  reports answered STALE or NOT FOUND
    uint64_t suppressed;        //  warnings held back by the rate limit
    int64_t warned_at;          //  start of the current warning second, msec
    int warnings;               //  warnings logged in that second
    bool stopping;              //  $TERM seen
    bool verbose;               //  log each command and each task's end
} self_t;

//  Create the actor's state
static self_t *
s_self_new (zsock_t *pipe)
{
    self_t *self = (self_t *) zmalloc (sizeof (self_t));
    self->pipe = pipe;
    self->poller = zpoller_new (pipe, NULL);
    assert (self->poller);
    self->table = drover_tasktable_new ();
    return self;
}

//  Destroy the actor's state
static void
s_self_destroy (self_t **self_p)
{
    self_t *self = *self_p;
    if (!self)
        return;
    if (self->stale)
        zsys_info ("assign: stopping stale_reports=%" PRIu64, self->stale);
    drover_tasktable_destroy (&self->table);
    zpoller_destroy (&self->poller);
    free (self);
    *self_p = NULL;
}


//  ---------------------------------------------------------------------
//  Frames of a pipe command

//  Pop a decimal number (as zsock_send writes 4, 8 and i); 0 if missing
static uint64_t
s_pop_number (zmsg_t *msg)
{
    zframe_t *frame = zmsg_pop (msg);
    assert (frame);             //  the main or a peer actor said too little: our bug
    char text [24];
    size_t size = zframe_size (frame) < sizeof text - 1? zframe_size (frame): sizeof text - 1;
    memcpy (text, zframe_data (frame), size);
    text [size] = 0;
    zframe_destroy (&frame);
    return strtoull (text, NULL, 10);
}

//  Pop a string into buffer (cut to fit)
static void
s_pop_text (zmsg_t *msg, char *buffer, size_t buffer_size)
{
    zframe_t *frame = zmsg_pop (msg);
    assert (frame);
    size_t size = zframe_size (frame) < buffer_size - 1? zframe_size (frame): buffer_size - 1;
    memcpy (buffer, zframe_data (frame), size);
    buffer [size] = 0;
    zframe_destroy (&frame);
}


//  ---------------------------------------------------------------------
//  Saying things

//  Send an encoded message to a peer through the main; worker is the
//  worker id when the peer is a worker, "" otherwise
static void
s_send (self_t *self, const byte *route, size_t route_size, drover_msg_t *msg, const char *worker)
{
    zframe_t *payload = drover_msg_encode (msg);
    if (!payload) {
        //  Our own message broke a protocol limit: say so, send nothing
        zsys_error ("assign: cannot encode %s task=%" PRIu64, drover_msg_name (msg->id), msg->task);
        return;
    }
    zmsg_t *command = zmsg_new ();
    zmsg_addstr (command, "SEND");
    zmsg_addmem (command, route, route_size);
    zmsg_append (command, &payload);
    zmsg_addstr (command, worker);
    zmsg_send (&command, self->pipe);
}

//  Answer a request with OK or ERROR (code, reason), echoing its seq
static void
s_reply_status (self_t *self, zframe_t *route, drover_msg_t *request, int code,
                const char *reason, const char *worker)
{
    drover_msg_t reply;
    memset (&reply, 0, sizeof reply);
    reply.id = code == DROVER_CODE_OK? DROVER_MSG_OK: DROVER_MSG_ERROR;
    reply.seq = request->seq;
    reply.code = (uint16_t) code;
    reply.reason = (char *) (reason && *reason? reason: code == DROVER_CODE_OK? "ok": "refused");
    s_send (self, zframe_data (route), zframe_size (route), &reply, worker);
}

//  Publish an event about a task
static void
s_publish (self_t *self, const drover_action_t *action)
{
    drover_event_t event;
    memset (&event, 0, sizeof event);
    event.time = (uint64_t) zclock_time ();
    snprintf (event.topic, sizeof event.topic, "%s", action->topic);
    event.task = action->task;
    event.attempt = action->attempt;
    snprintf (event.worker, sizeof event.worker, "%s", action->worker);
    snprintf (event.reason, sizeof event.reason, "%s", action->reason);
    zframe_t *body = drover_event_encode (&event);
    zmsg_t *command = zmsg_new ();
    zmsg_addstr (command, "EVENT");
    zmsg_addstr (command, action->topic);
    zmsg_append (command, &body);
    zmsg_send (&command, self->pipe);

    //  One line per final state would be too much at 100k tasks/s
    if (streq (action->topic, "task.failed"))
        zsys_info ("assign: task=%" PRIu64 " state=FAILED attempt=%u worker=%s reason=\"%s\"",
                   action->task, action->attempt, action->worker, action->reason);
    else
    if (self->verbose)
        zsys_debug ("assign: %s task=%" PRIu64 " attempt=%u worker=%s reason=\"%s\"",
                    action->topic, action->task, action->attempt, action->worker, action->reason);
}

//  Send a TASK OFFER, TASK KILL or TASK DONE the table decided
static void
s_send_action (self_t *self, const drover_action_t *action)
{
    drover_msg_t msg;
    memset (&msg, 0, sizeof msg);
    msg.task = action->task;
    msg.attempt = action->attempt;
    strcpy (msg.worker, action->worker);
    if (action->type == DROVER_ACTION_OFFER) {
        msg.id = DROVER_MSG_TASK_OFFER;
        msg.priority = action->priority;
        msg.procs = action->procs;
        msg.mem = action->mem;
        msg.timeout = action->timeout;
        msg.body = (byte *) action->body;           //  borrowed, never freed here
        msg.body_size = action->body_size;
        s_send (self, action->route, action->route_size, &msg, action->worker);
    }
    else
    if (action->type == DROVER_ACTION_KILL) {
        msg.id = DROVER_MSG_TASK_KILL;
        s_send (self, action->route, action->route_size, &msg, action->worker);
    }
    else {
        msg.id = DROVER_MSG_TASK_DONE;
        msg.seq = action->seq;
        msg.state = action->state;
        msg.outcome = action->outcome;
        msg.exit_code = action->exit_code;
        msg.signal = action->signal;
        msg.truncated = action->truncated;
        msg.duration = action->duration;
        msg.out = (byte *) action->out;             //  borrowed
        msg.out_size = action->out_size;
        msg.err = (byte *) action->err;             //  borrowed
        msg.err_size = action->err_size;
        msg.reason = action->reason [0]? (char *) action->reason: NULL;
        s_send (self, action->route, action->route_size, &msg, "");
    }
}

//  Carry out everything the table decided, in order
static void
s_carry_out (self_t *self)
{
    const drover_action_t *action;
    while ((action = drover_tasktable_next_action (self->table))) {
        switch (action->type) {
            case DROVER_ACTION_QUEUE:
                zsock_send (self->pipe, "s8i48s", "QUEUE", action->task, action->priority,
                            action->procs, action->mem, action->labels);
                break;
            case DROVER_ACTION_DEQUEUE:
                zsock_send (self->pipe, "s8", "DEQUEUE", action->task);
                break;
            case DROVER_ACTION_FREE:
                zsock_send (self->pipe, "s8", "FREE", action->task);
                break;
            case DROVER_ACTION_SUCCESS:
                zsock_send (self->pipe, "ss", "SUCCESS", action->worker);
                break;
            case DROVER_ACTION_FAILURE:
                zsys_warning ("assign: worker=%s failure reason=\"%s\" task=%" PRIu64,
                              action->worker, action->reason, action->task);
                zsock_send (self->pipe, "sss", "FAILURE", action->worker, action->reason);
                break;
            case DROVER_ACTION_EVENT:
                s_publish (self, action);
                break;
            default:
                s_send_action (self, action);
        }
    }
}

//  Warn about a report the table refused, at most S_WARNINGS_PER_SEC a second
static void
s_warn_refused (self_t *self, drover_msg_t *msg, int code, const char *reason)
{
    self->stale++;
    int64_t now = zclock_mono ();
    if (now - self->warned_at >= 1000) {
        if (self->suppressed)
            zsys_warning ("assign: %" PRIu64 " more stale or unknown reports not logged",
                          self->suppressed);
        self->warned_at = now;
        self->warnings = 0;
        self->suppressed = 0;
    }
    if (self->warnings >= S_WARNINGS_PER_SEC) {
        self->suppressed++;
        return;
    }
    self->warnings++;
    zsys_warning ("assign: %s %s task=%" PRIu64 " attempt=%u worker=%s: %s",
                  code == DROVER_CODE_STALE? "stale": "unknown",
                  drover_msg_name (msg->id), msg->task, msg->attempt, msg->worker, reason);
}


//  ---------------------------------------------------------------------
//  Handling commands

//  TASK SUBMIT: the id, or why not
static void
s_handle_submit (self_t *self, zframe_t *route, drover_msg_t *msg)
{
    uint64_t task;
    const char *reason;
    int code = drover_tasktable_submit (self->table, msg, zframe_data (route), zframe_size (route),
                                        &task, &reason);
    if (code != DROVER_CODE_OK) {
        s_reply_status (self, route, msg, code, reason, "");
        return;
    }
    drover_msg_t reply;
    memset (&reply, 0, sizeof reply);
    reply.id = DROVER_MSG_TASK_ACCEPTED;
    reply.seq = msg->seq;
    reply.task = task;
    s_send (self, zframe_data (route), zframe_size (route), &reply, "");
}

//  TASK LIST: counts and rows
static void
s_handle_list (self_t *self, zframe_t *route, drover_msg_t *msg)
{
    drover_msg_t *reply = drover_msg_new (DROVER_MSG_TASK_TABLE);
    reply->seq = msg->seq;
    drover_tasktable_list (self->table, msg->state, msg->limit, reply);
    s_send (self, zframe_data (route), zframe_size (route), reply, "");
    drover_msg_destroy (&reply);
}

//  MSG: a request from a client or a report from a worker; we own msg
static void
s_handle_request (self_t *self, zframe_t *route, drover_msg_t *msg)
{
    const char *reason = NULL;
    int code;
    if (msg->id == DROVER_MSG_TASK_SUBMIT)
        s_handle_submit (self, route, msg);
    else
    if (msg->id == DROVER_MSG_TASK_LIST)
        s_handle_list (self, route, msg);
    else
    if (msg->id == DROVER_MSG_TASK_CANCEL) {
        code = drover_tasktable_cancel (self->table, msg->task, &reason);
        s_reply_status (self, route, msg, code, reason, "");
    }
    else
    if (msg->id == DROVER_MSG_TASK_WAIT) {
        code = drover_tasktable_wait (self->table, msg->tasks, msg->ntasks, msg->seq,
                                      zframe_data (route), zframe_size (route), &reason);
        s_reply_status (self, route, msg, code, reason, "");
    }
    else
    if (msg->id == DROVER_MSG_TASK_STARTED) {
        code = drover_tasktable_started (self->table, msg->worker, msg->task, msg->attempt, &reason);
        if (code != DROVER_CODE_OK) {
            s_warn_refused (self, msg, code, reason);
            s_reply_status (self, route, msg, code, reason, msg->worker);
        }
    }
    else
    if (msg->id == DROVER_MSG_TASK_RESULT) {
        code = drover_tasktable_result (self->table, msg, &reason);
        if (code != DROVER_CODE_OK)
            s_warn_refused (self, msg, code, reason);
        s_reply_status (self, route, msg, code, reason, msg->worker);
    }
    else
        s_reply_status (self, route, msg, DROVER_CODE_UNEXPECTED,
                        "not a message the task table handles", "");
    s_carry_out (self);
}

//  ASSIGN: offer each placed task, or give back what can no longer run
static void
s_handle_assign (self_t *self, zmsg_t *msg)
{
    int64_t now = zclock_mono ();
    while (zmsg_size (msg) >= 2) {
        uint64_t task = s_pop_number (msg);
        char worker [DROVER_ID_MAX + 1];
        s_pop_text (msg, worker, sizeof worker);
        drover_tasktable_assign (self->table, task, worker, now);
        s_carry_out (self);
    }
}

//  UP: the worker's route and the attempts it says it runs
static void
s_handle_up (self_t *self, zmsg_t *msg)
{
    char worker [DROVER_ID_MAX + 1];
    s_pop_text (msg, worker, sizeof worker);
    zframe_t *route = zmsg_pop (msg);
    for (int skip = 0; skip < 4; skip++) {          //  epoch, procs, mem, labels
        zframe_t *frame = zmsg_pop (msg);
        zframe_destroy (&frame);
    }
    zframe_t *running = zmsg_pop (msg);
    assert (route && running);
    //  Copied so the refs are aligned, whatever the frame's storage
    size_t count = zframe_size (running) / sizeof (drover_taskref_t);
    drover_taskref_t *refs = NULL;
    if (count) {
        refs = (drover_taskref_t *) malloc (count * sizeof (drover_taskref_t));
        assert (refs);
        memcpy (refs, zframe_data (running), count * sizeof (drover_taskref_t));
    }
    drover_tasktable_worker_up (self->table, worker, zframe_data (route), zframe_size (route),
                                refs, count);
    s_carry_out (self);
    free (refs);
    zframe_destroy (&running);
    zframe_destroy (&route);
}

//  One command from the pipe
static void
s_handle_pipe (self_t *self)
{
    zmsg_t *msg = zmsg_recv (self->pipe);
    if (!msg) {
        self->stopping = true;  //  interrupted
        return;
    }
    char *command = zmsg_popstr (msg);
    assert (command);
    if (self->verbose)
        zsys_debug ("assign: command=%s", command);
    if (streq (command, "MSG")) {
        zframe_t *route = zmsg_pop (msg);
        zframe_t *pointer = zmsg_pop (msg);
        assert (route && pointer && zframe_size (pointer) == sizeof (void *));
        drover_msg_t *request;
        memcpy (&request, zframe_data (pointer), sizeof (void *));
        s_handle_request (self, route, request);
        drover_msg_destroy (&request);
        zframe_destroy (&pointer);
        zframe_destroy (&route);
    }
    else
    if (streq (command, "ASSIGN"))
        s_handle_assign (self, msg);
    else
    if (streq (command, "UP"))
        s_handle_up (self, msg);
    else
    if (streq (command, "LOST")) {
        char worker [DROVER_ID_MAX + 1], reason [DROVER_REASON_MAX + 1];
        s_pop_text (msg, worker, sizeof worker);
        s_pop_text (msg, reason, sizeof reason);
        drover_tasktable_worker_lost (self->table, worker, reason);
        s_carry_out (self);
    }
    else
    if (streq (command, "CONFIGURE")) {
        uint32_t ack_timeout = (uint32_t) s_pop_number (msg);
        uint32_t lost_retries = (uint32_t) s_pop_number (msg);
        uint32_t max_queued = (uint32_t) s_pop_number (msg);
        uint32_t keep_finished = (uint32_t) s_pop_number (msg);
        drover_tasktable_configure (self->table, ack_timeout, lost_retries, max_queued, keep_finished);
    }
    else
    if (streq (command, "VERBOSE"))
        self->verbose = true;
    else
    if (streq (command, "$TERM"))
        self->stopping = true;
    else {
        zsys_error ("assign: unknown pipe command=%s", command);
        assert (false);         //  the vocabulary is in ACTORS.md
    }
    zstr_free (&command);
    zmsg_destroy (&msg);
}

//  Run the assign actor
void
drover_assign_actor (zsock_t *pipe, void *args)
{
    self_t *self = s_self_new (pipe);
    zsock_signal (pipe, 0);                     //  zactor_new returns only after this
    while (!self->stopping) {
        int64_t now = zclock_mono ();
        int64_t deadline = drover_tasktable_expire (self->table, now);
        s_carry_out (self);
        int timeout = deadline < 0? -1: deadline > now? (int) (deadline - now): 0;
        void *which = zpoller_wait (self->poller, timeout);
        if (which == self->pipe) {
            //  Drain a batch without polling again: the pipe is the hot path
            for (int count = 0; count < S_BATCH && !self->stopping; count++) {
                if (count && !(zsock_events (self->pipe) & ZMQ_POLLIN))
                    break;
                s_handle_pipe (self);
            }
        }
        else
        if (zpoller_terminated (self->poller))
            break;
    }
    s_self_destroy (&self);
}
