/*  =========================================================================
    drover_actor - what every actor of the broker uses: the shared part of
    its vocabulary, and the turns of its loop

    Not a class: plain functions, and two small plain values (drover_once_t,
    drover_turns_t), that every actor calls around its own state: the one
    loop every actor turns through (actors/ACTORS.md, "How actors talk"):
        reading     a control command's frames (numbers, strings); the
                    pipe, then the link, without blocking (drover_actor_read)
        saying      SEND route payload worker (an encoded wire message), an
                    OK or ERROR reply, EVENT topic body; into the actor's
                    outbox (drover_outbox), sent as one BATCH at the end of
                    its turn (drover_actor_flush)
        hearing     EVENTS, VERBOSE and $TERM, which every actor accepts,
                    into the flags it keeps (drover_actor_handle_common)
        turns       a poll timeout from the next deadline; holding the pipe
                    unread while news may wait (drover_actor_wait); noticing
                    a stall of the loop itself (drover_turns_stall); saying
                    a thing once per worker per turn (drover_once_t)
    Where one logs, it takes the actor's short name, which starts the line.
    Each sender has a byte-route form (`_to`) for a route held as bytes.
    =========================================================================
*/

#ifndef DROVER_ACTOR_H_INCLUDED
#define DROVER_ACTOR_H_INCLUDED

#include <czmq.h>
#include "drover_msg.h"
#include "drover_outbox.h"
#include "drover_poller.h"

#ifdef __cplusplus
extern "C" {
#endif

//  Name the calling thread after its actor (e.g. "schedq"), as `top -H`
//  and perf show it
void
    drover_actor_name_thread (const char *name);

//  Read a decimal number (as zsock_send writes 4, 8 and i; a leading '-'
//  negates, so cast to a signed type to read an i) from size bytes
uint64_t
    drover_actor_number (const void *data, size_t size);

//  Pop a decimal number frame; asserts it is there (the sender is our code)
uint64_t
    drover_actor_pop_number (zmsg_t *msg);

//  Pop a string frame; asserts it is there. Caller frees with zstr_free.
char *
    drover_actor_pop_string (zmsg_t *msg);

//  Pop a string frame into buffer, cut to fit; asserts it is there
void
    drover_actor_pop_text (zmsg_t *msg, char *buffer, size_t buffer_size);

//  What every actor keeps from the commands all actors accept (ACTORS.md:
//  "Commands every actor accepts"). A plain value inside the actor's self.
typedef struct {
    bool silent;                //  EVENTS 0: nobody listens to events, say none
    bool verbose;               //  VERBOSE: log each command
    bool stopping;              //  $TERM seen: leave the loop
} drover_actor_flags_t;

//  Handle command if it is one every actor accepts (EVENTS on(4), VERBOSE,
//  $TERM), popping its frames from msg into flags, and return true; return
//  false, touching nothing, for any other command (the actor's own, or a
//  bug the actor logs and asserts on)
bool
    drover_actor_handle_common (drover_actor_flags_t *flags, const char *command, zmsg_t *msg);

//  Encode msg and say SEND route payload worker; worker is the worker id
//  when the peer is a worker, "" otherwise. If our own message breaks a
//  protocol limit, log it (as actor) and say nothing.
void
    drover_actor_send_to (drover_outbox_t *outbox, const char *actor, const byte *route,
                         size_t route_size, drover_msg_t *msg, const char *worker);

//  drover_actor_send_to said as SEND or REPLY (kind): a REPLY waits in the
//  store until what was said before it is committed
void
    drover_actor_say_to (drover_outbox_t *outbox, drover_record_kind_t kind, const char *actor,
                        const byte *route, size_t route_size, drover_msg_t *msg,
                        const char *worker);

//  drover_actor_reply_to said as SEND or REPLY (kind)
void
    drover_actor_answer_to (drover_outbox_t *outbox, drover_record_kind_t kind,
                            const char *actor, const byte *route, size_t route_size,
                            uint32_t seq, int code, const char *reason, const char *worker);

//  drover_actor_send_to with the route as a frame
void
    drover_actor_send (drover_outbox_t *outbox, const char *actor, zframe_t *route,
                      drover_msg_t *msg, const char *worker);

//  Answer a request with OK (code 2xx) or ERROR, with code and reason
//  ("ok" / "refused" if NULL or empty), echoing its seq
void
    drover_actor_reply_to (drover_outbox_t *outbox, const char *actor, const byte *route,
                          size_t route_size, uint32_t seq, int code, const char *reason,
                          const char *worker);

//  drover_actor_reply_to with the route as a frame, to a peer that is not a worker
void
    drover_actor_reply (drover_outbox_t *outbox, const char *actor, zframe_t *route, uint32_t seq,
                       int code, const char *reason);

//  Build an event stamped now and say EVENT topic body; task and attempt
//  0, worker and reason "" when they do not apply
void
    drover_actor_event (drover_outbox_t *outbox, const char *topic, uint64_t task, uint32_t attempt,
                       const char *worker, const char *reason);

//  Worker ids already told something during this turn of a loop, so a
//  turn says it once per worker however many tasks caused it (SUCCESS to
//  probation, HEARD to health). A plain value; reset at the end of a turn.
#define DROVER_ONCE_MAX     16
typedef struct {
    size_t count;                                       //  ids held
    char ids [DROVER_ONCE_MAX][DROVER_ID_MAX + 1];      //  told this turn
} drover_once_t;

//  Copy text (NULL: "") into a field of size bytes, cut to fit: what
//  snprintf (field, size, "%s", text) does, without printf's machinery,
//  for the fields actors fill for every task
void
    drover_actor_copy_text (char *field, size_t size, const char *text);

//  Return true the first time this turn worker is seen, and remember it;
//  always true once the set is full (saying twice is harmless, only slower)
bool
    drover_once_first (drover_once_t *self, const char *worker);

//  Forget one worker, so the next drover_once_first for it is true again
void
    drover_once_forget (drover_once_t *self, const char *worker);

//  Forget every worker: a new turn
void
    drover_once_reset (drover_once_t *self);

//  Turn an actor's next deadline (msec monotonic, -1 for none) into a
//  zpoller_wait timeout: -1 waits for input only, 0 means already due
int
    drover_actor_poll_timeout (int64_t deadline, int64_t now);

//  When a loop last turned, to notice that the loop itself did not run for
//  a while (the process was stopped, starved or swapped out): deadlines
//  about others (a worker's silence, an offer's ack) are then extended by
//  that time, which was the broker's pause, not their silence. A loop that
//  watches for its own stalls sleeps at most DROVER_TURN_MAX msec at once,
//  so a gap between two turns past twice that cannot be sleep. A plain value.
#define DROVER_TURN_MAX     250         //  msec such a loop sleeps at most
typedef struct {
    int64_t turn_at;            //  msec (mono) of the last turn; 0 before the first
} drover_turns_t;

//  Note a turn of the loop at now. Returns the stall to forgive, msec: the
//  whole time since the previous turn, if more than 2 * DROVER_TURN_MAX;
//  else 0 (also on the first turn)
int64_t
    drover_turns_stall (drover_turns_t *self, int64_t now);

//  Bound a poll timeout (-1: none) by DROVER_TURN_MAX, for a loop that
//  watches for its own stalls while it has deadlines to keep
int
    drover_turns_wait (int wait);

//  News that may wait (a heartbeat or HEARD: "alive"; a SUCCESS: "may
//  leave probation") is held by the actor that hears it, not by whoever
//  sends it: after a turn that read its pipe, health and probation leave
//  the pipe unread for a while (at most DROVER_HOLD_MAX msec). What comes
//  meanwhile waits in the pipe and wakes nobody, since an inproc pipe
//  signals its reader only after the reader found it empty; the next turn
//  reads it all, in the order it was said. Their own deadlines still fall
//  due on time: a deadline ends the hold.
#define DROVER_HOLD_MAX     100         //  msec an actor holds its pipe at most

//  Wait as drover_poller_wait does, up to msec (-1: no limit), except that
//  before held_until (msec monotonic) the sockets are left unread: sleep
//  until held_until or msec, whichever comes first, then look at them
//  without waiting. Returns 0, or -1 if interrupted.
int
    drover_actor_wait (drover_poller_t *poller, int msec, int64_t held_until);

//  Where an actor's poller watches its sockets: the pipe first, then the
//  link between schedq and assign, if any (ACTORS.md: the pipe is read first)
#define DROVER_PIPE_AT      0
#define DROVER_LINK_AT      1
//  Most messages an actor reads from one socket in one turn of its loop
#define DROVER_PIPE_BATCHES 64

//  Read up to max messages (a BATCH or a plain command each) from sock,
//  watched by poller at index, without blocking: handler gets each command
//  (record_handler each record, if not NULL); a read that finds none marks
//  the socket drained; ahead, if not NULL, sees each record a few entries
//  early (drover_outbox_receive_ahead). Returns the messages read, or -1 if
//  the context is ending.
int
    drover_actor_drain (drover_poller_t *poller, size_t index, zsock_t *sock, int max,
                       drover_outbox_fn *handler, drover_outbox_record_fn *record_handler,
                       drover_outbox_ahead_fn *ahead, void *arg);

//  Read what waits on an actor's sockets without blocking: the pipe, then
//  the link if not NULL (watched by poller at DROVER_PIPE_AT and
//  DROVER_LINK_AT), at most DROVER_PIPE_BATCHES messages from each (a
//  BATCH or a plain command each), calling handler once per command (or
//  record_handler per record, if not NULL); a read that finds none marks
//  its socket drained. Returns the messages read, or -1 if the context is
//  ending.
int
    drover_actor_read (drover_poller_t *poller, zsock_t *pipe, zsock_t *link,
                      drover_outbox_fn *handler, drover_outbox_record_fn *record_handler,
                      void *arg);

//  drover_actor_read, ahead (if not NULL) seeing each record a few entries
//  before record_handler does, to start loading what it will read
int
    drover_actor_read_ahead (drover_poller_t *poller, zsock_t *pipe, zsock_t *link,
                            drover_outbox_fn *handler,
                            drover_outbox_record_fn *record_handler,
                            drover_outbox_ahead_fn *ahead, void *arg);

//  Flush outbox as one BATCH on sock (watched by poller at index); a send
//  may take in the socket's pending commands, so the poller reads it again
void
    drover_actor_flush (drover_poller_t *poller, size_t index, drover_outbox_t *outbox,
                       zsock_t *sock);

//  Give the memory freed so far, in every thread, back to the system: after
//  a burst whose records were made in one thread and freed in another (a
//  restart's restore). With jemalloc, its freed pages are purged in every
//  arena (an idle thread's arena keeps them until it allocates again); with
//  glibc malloc, every arena is trimmed.
void
    drover_actor_give_back_memory (void);

#ifdef __cplusplus
}
#endif

#endif
