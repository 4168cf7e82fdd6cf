/*  =========================================================================
    drover_actor - what every actor of the broker uses: the shared part of
    its vocabulary, and the turns of its loop

    Control commands are read as zmsg_t frames and per-task commands as
    records (drover_outbox_receive hands them over one by one); what an
    actor says goes into its outbox, which the actor flushes once per turn
    of its loop as one BATCH.
    =========================================================================
*/

#include "drover_actor.h"
#include <ctype.h>
#include <malloc.h>
#include <sys/prctl.h>

//  jemalloc's control call, if the executable was linked with jemalloc
//  (CMakeLists.txt: DROVER_JEMALLOC); NULL with glibc malloc
extern int mallctl (const char *name, void *old, size_t *old_size, void *new_value,
                    size_t new_size) __attribute__ ((weak));
//  jemalloc's MALLCTL_ARENAS_ALL: "arena.4096.purge" purges every arena
#define S_ARENAS_ALL_PURGE  "arena.4096.purge"

//  Name the calling thread after its actor (cut to the kernel's 15
//  bytes), so that `top -H`, `ps -L`, perf and /proc/PID/task/*/comm say
//  which actor spends the time
void
drover_actor_name_thread (const char *name)
{
    char comm [16];
    snprintf (comm, sizeof comm, "%s", name);
    prctl (PR_SET_NAME, comm);
}

//  Read a decimal number from size bytes (not NUL-terminated)
uint64_t
drover_actor_number (const void *data, size_t size)
{
    const char *text = (const char *) data;
    bool negative = size > 0 && text [0] == '-';
    uint64_t value = 0;
    for (size_t index = negative? 1: 0; index < size && isdigit ((unsigned char) text [index]);
         index++)
        value = value * 10 + (uint64_t) (text [index] - '0');
    return negative? -value: value;
}

//  Pop a decimal number frame; 0 if missing (after the assert)
uint64_t
drover_actor_pop_number (zmsg_t *msg)
{
    zframe_t *frame = zmsg_pop (msg);
    assert (frame);             //  the main or a peer actor said too little: our bug
    if (!frame)
        return 0;
    uint64_t value = drover_actor_number (zframe_data (frame), zframe_size (frame));
    zframe_destroy (&frame);
    return value;
}

//  Pop a string frame (ours to free)
char *
drover_actor_pop_string (zmsg_t *msg)
{
    char *text = zmsg_popstr (msg);
    assert (text);              //  the main or a peer actor said too little: our bug
    return text;
}

//  Pop a string frame into buffer, cut to fit ("" if missing)
void
drover_actor_pop_text (zmsg_t *msg, char *buffer, size_t buffer_size)
{
    zframe_t *frame = zmsg_pop (msg);
    assert (frame);
    buffer [0] = 0;
    if (!frame)
        return;
    size_t size = zframe_size (frame) < buffer_size - 1? zframe_size (frame): buffer_size - 1;
    memcpy (buffer, zframe_data (frame), size);
    buffer [size] = 0;
    zframe_destroy (&frame);
}

//  Handle EVENTS, VERBOSE or $TERM into flags; false for any other command
bool
drover_actor_handle_common (drover_actor_flags_t *flags, const char *command, zmsg_t *msg)
{
    assert (flags);
    assert (command);
    if (streq (command, "EVENTS"))
        flags->silent = drover_actor_pop_number (msg) == 0;
    else
    if (streq (command, "VERBOSE"))
        flags->verbose = true;
    else
    if (streq (command, "$TERM"))
        flags->stopping = true;
    else
        return false;           //  the actor's own vocabulary, or our bug
    return true;
}

//  Encode msg and say SEND route payload worker
void
drover_actor_send_to (drover_outbox_t *outbox, const char *actor, const byte *route,
                     size_t route_size, drover_msg_t *msg, const char *worker)
{
    drover_actor_say_to (outbox, DROVER_RECORD_SEND, actor, route, route_size, msg, worker);
}

//  Encode msg and say SEND or REPLY (kind) route payload worker
void
drover_actor_say_to (drover_outbox_t *outbox, drover_record_kind_t kind, const char *actor,
                    const byte *route, size_t route_size, drover_msg_t *msg, const char *worker)
{
    zframe_t *payload = drover_msg_encode (msg);
    if (!payload) {
        //  Our own message broke a protocol limit: say so, send nothing
        if (msg->task)
            zsys_error ("%s: cannot encode %s task=%" PRIu64, actor,
                        drover_msg_name (msg->id), msg->task);
        else
            zsys_error ("%s: cannot encode %s", actor, drover_msg_name (msg->id));
        return;
    }
    drover_outbox_say_reply (outbox, kind, route, route_size, &payload, worker);
}

//  Encode msg and say SEND to a route held as a frame
void
drover_actor_send (drover_outbox_t *outbox, const char *actor, zframe_t *route,
                  drover_msg_t *msg, const char *worker)
{
    drover_actor_send_to (outbox, actor, zframe_data (route), zframe_size (route), msg, worker);
}

//  Answer a request with OK or ERROR (code, reason), echoing its seq; the
//  reply lives on the stack and borrows reason
void
drover_actor_reply_to (drover_outbox_t *outbox, const char *actor, const byte *route,
                      size_t route_size, uint32_t seq, int code, const char *reason,
                      const char *worker)
{
    drover_actor_answer_to (outbox, DROVER_RECORD_SEND, actor, route, route_size, seq, code,
                            reason, worker);
}

//  Answer as drover_actor_reply_to does, said as SEND or REPLY (kind)
void
drover_actor_answer_to (drover_outbox_t *outbox, drover_record_kind_t kind, const char *actor,
                        const byte *route, size_t route_size, uint32_t seq, int code,
                        const char *reason, const char *worker)
{
    bool ok = code >= 200 && code < 300;
    drover_msg_t reply;
    memset (&reply, 0, sizeof reply);
    reply.id = ok? DROVER_MSG_OK: DROVER_MSG_ERROR;
    reply.seq = seq;
    reply.code = (uint16_t) code;
    reply.reason = (char *) (reason && *reason? reason: ok? "ok": "refused");
    drover_actor_say_to (outbox, kind, actor, route, route_size, &reply, worker);
}

//  Answer a request from a route held as a frame
void
drover_actor_reply (drover_outbox_t *outbox, const char *actor, zframe_t *route, uint32_t seq,
                   int code, const char *reason)
{
    drover_actor_reply_to (outbox, actor, zframe_data (route), zframe_size (route), seq, code,
                          reason, "");
}

//  Copy text into a field of size bytes, cut to fit
void
drover_actor_copy_text (char *field, size_t size, const char *text)
{
    assert (field && size > 0);
    size_t length = text? strnlen (text, size - 1): 0;
    if (length)
        memcpy (field, text, length);
    field [length] = 0;
}

//  Build an event stamped now and say EVENT topic body
void
drover_actor_event (drover_outbox_t *outbox, const char *topic, uint64_t task, uint32_t attempt,
                   const char *worker, const char *reason)
{
    drover_event_t event;
    memset (&event, 0, sizeof event);
    event.time = (uint64_t) zclock_time ();
    drover_actor_copy_text (event.topic, sizeof event.topic, topic);
    event.task = task;
    event.attempt = attempt;
    drover_actor_copy_text (event.worker, sizeof event.worker, worker);
    drover_actor_copy_text (event.reason, sizeof event.reason, reason);
    zframe_t *body = drover_event_encode (&event);
    zmsg_t *command = zmsg_new ();
    zmsg_addstr (command, "EVENT");
    zmsg_addstr (command, topic);
    zmsg_append (command, &body);
    drover_outbox_add (outbox, &command);
}

//  Turn the next deadline into a poll timeout
int
drover_actor_poll_timeout (int64_t deadline, int64_t now)
{
    if (deadline < 0)
        return -1;              //  nothing timed: wait for input
    return deadline <= now? 0: (int) (deadline - now);
}

//  Wait for input or msec, leaving the sockets unread until held_until
int
drover_actor_wait (drover_poller_t *poller, int msec, int64_t held_until)
{
    int64_t now = zclock_mono ();
    if (held_until <= now)
        return drover_poller_wait (poller, msec);
    int64_t nap = held_until - now;
    if (msec >= 0 && msec < nap)
        nap = msec;
    if (nap > 0)
        zclock_sleep ((int) nap);   //  news waits in the pipe meanwhile
    return drover_poller_wait (poller, 0);
}

//  Note a turn; return the stall to forgive, or 0
int64_t
drover_turns_stall (drover_turns_t *self, int64_t now)
{
    int64_t gap = self->turn_at? now - self->turn_at: 0;
    self->turn_at = now;
    return gap > 2 * DROVER_TURN_MAX? gap: 0;
}

//  Bound a poll timeout by DROVER_TURN_MAX
int
drover_turns_wait (int wait)
{
    return wait < 0 || wait > DROVER_TURN_MAX? DROVER_TURN_MAX: wait;
}

//  Tell whether worker is new this turn, remembering it
bool
drover_once_first (drover_once_t *self, const char *worker)
{
    for (size_t index = 0; index < self->count; index++)
        if (streq (self->ids [index], worker))
            return false;
    if (self->count < DROVER_ONCE_MAX)
        drover_actor_copy_text (self->ids [self->count++], DROVER_ID_MAX + 1, worker);
    return true;
}

//  Forget one worker (the last id takes its place)
void
drover_once_forget (drover_once_t *self, const char *worker)
{
    for (size_t index = 0; index < self->count; index++)
        if (streq (self->ids [index], worker)) {
            self->count--;
            if (index < self->count)
                memcpy (self->ids [index], self->ids [self->count], DROVER_ID_MAX + 1);
            return;
        }
}

//  Forget every worker
void
drover_once_reset (drover_once_t *self)
{
    self->count = 0;
}


//  --------------------------------------------------------------------------
//  Read up to max messages from a watched socket without blocking

int
drover_actor_drain (drover_poller_t *poller, size_t index, zsock_t *sock, int max,
                   drover_outbox_fn *handler, drover_outbox_record_fn *record_handler,
                   drover_outbox_ahead_fn *ahead, void *arg)
{
    int count = 0;
    while (count < max && drover_poller_readable (poller, index)) {
        if (drover_outbox_receive_ahead (sock, ZMQ_DONTWAIT, handler, record_handler, ahead,
                                         arg) == -1) {
            if (zmq_errno () == ETERM)
                return -1;
            drover_poller_drained (poller, index);
            break;
        }
        count++;
    }
    return count;
}


//  --------------------------------------------------------------------------
//  Read what waits on an actor's pipe, then on its link

int
drover_actor_read (drover_poller_t *poller, zsock_t *pipe, zsock_t *link,
                  drover_outbox_fn *handler, drover_outbox_record_fn *record_handler, void *arg)
{
    return drover_actor_read_ahead (poller, pipe, link, handler, record_handler, NULL, arg);
}

//  The same, ahead seeing each record a few entries early
int
drover_actor_read_ahead (drover_poller_t *poller, zsock_t *pipe, zsock_t *link,
                        drover_outbox_fn *handler, drover_outbox_record_fn *record_handler,
                        drover_outbox_ahead_fn *ahead, void *arg)
{
    int count = drover_actor_drain (poller, DROVER_PIPE_AT, pipe, DROVER_PIPE_BATCHES, handler,
                                   record_handler, ahead, arg);
    if (count == -1 || !link)
        return count;
    int more = drover_actor_drain (poller, DROVER_LINK_AT, link, DROVER_PIPE_BATCHES, handler,
                                  record_handler, ahead, arg);
    return more == -1? -1: count + more;
}


//  --------------------------------------------------------------------------
//  Flush an outbox on a watched socket, noting the send

void
drover_actor_flush (drover_poller_t *poller, size_t index, drover_outbox_t *outbox,
                   zsock_t *sock)
{
    if (drover_outbox_size (outbox) == 0)
        return;
    drover_outbox_flush (outbox, sock);
    drover_poller_sent (poller, index);
}

//  Give the memory freed so far back to the system, in every thread's arena
void
drover_actor_give_back_memory (void)
{
    if (mallctl) {
        if (mallctl (S_ARENAS_ALL_PURGE, NULL, NULL, NULL, 0))
            zsys_warning ("actor: jemalloc did not purge its arenas");
    }
    else
        malloc_trim (0);
}
