/*  =========================================================================
    drover_outbox - commands said during one turn of a loop, sent as one
    BATCH message

    An actor (or the broker main) says many small commands per turn: a
    reply, an event, a QUEUE, a FREE... Sent one by one, each would be its
    own inproc message and could wake the reader on its own (an eventfd
    write, a poll, a context switch). The outbox collects them and flush
    sends them all at the end of the turn as one message, BATCH batch(p),
    whose one frame is the batch itself, handed off: the receiver owns it.

    Every command is still a czmq message whose first frame is its command
    word (actors/ACTORS.md), so handlers read frames as before. A batch
    that is never received (its reader stopped first) frees its commands
    when libzmq drops it, including the drover_msg_t a MSG command hands
    off, so nothing leaks at shutdown.
    =========================================================================
*/

#ifndef DROVER_OUTBOX_H_INCLUDED
#define DROVER_OUTBOX_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_outbox_t drover_outbox_t;

//  What a receiver does with one command: its first frame is the command
//  word; the handler may pop frames but does not own the message
typedef void (drover_outbox_fn) (void *arg, zmsg_t *command);

//  Create an empty outbox
drover_outbox_t *
    drover_outbox_new (void);

//  Destroy the outbox and any commands not yet flushed
void
    drover_outbox_destroy (drover_outbox_t **self_p);

//  Add a command; the outbox owns it from now on (*command_p is NULL)
void
    drover_outbox_add (drover_outbox_t *self, zmsg_t **command_p);

//  Add a command built from a picture, as zsock_send builds one: s string,
//  4 uint32, 8 uint64, i int (numbers in decimal), f frame (copied; NULL
//  sends an empty frame), b bytes + size, p pointer
void
    drover_outbox_say (drover_outbox_t *self, const char *picture, ...);

//  Return the number of commands not yet flushed
size_t
    drover_outbox_size (drover_outbox_t *self);

//  Send every command added since the last flush as one BATCH on sock;
//  nothing if there are none. Returns 0, or -1 if the send failed (the
//  commands are then freed).
int
    drover_outbox_flush (drover_outbox_t *self, zsock_t *sock);

//  Receive one message from sock (waiting unless flags has ZMQ_DONTWAIT)
//  and call handler once per command in it: each command of a BATCH in
//  order, or the message itself if it is a plain command (as a test or
//  zactor_destroy sends). Returns the number of commands handled, or -1
//  if nothing was received.
int
    drover_outbox_receive (zsock_t *sock, int flags, drover_outbox_fn *handler, void *arg);

#ifdef __cplusplus
}
#endif

#endif
