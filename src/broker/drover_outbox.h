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
#include "drover_msg.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_outbox_t drover_outbox_t;

//  The commands said for every task (MSG, SEND, QUEUE, FREE) travel as
//  records inside the BATCH, not as czmq messages: no zmsg_t, no frame per
//  field, no list node per frame, each made in one thread and freed in
//  another. A receiver that reads no records gets each as the czmq message
//  its command is (actors/ACTORS.md), so the vocabulary stays one. What
//  does not fit a record (a longer route or labels) is said as a message.
typedef enum {
    DROVER_RECORD_MSG = 1,      //  MSG route msg: a decoded message handed off
    DROVER_RECORD_SEND,         //  SEND route payload worker
    DROVER_RECORD_QUEUE,        //  QUEUE task priority procs mem labels
    DROVER_RECORD_FREE          //  FREE task
} drover_record_kind_t;

#define DROVER_RECORD_ROUTE_MAX     32      //  route bytes a record holds
#define DROVER_RECORD_LABELS_MAX    64      //  label bytes a record holds

typedef struct {
    drover_record_kind_t kind;  //  which command, and so which fields
    size_t route_size;          //  MSG, SEND: bytes in route
    byte route [DROVER_RECORD_ROUTE_MAX];   //  MSG, SEND: the peer's routing id
    drover_msg_t *msg;          //  MSG: the message, owned until a handler takes it
    zframe_t *payload;          //  SEND: the encoded message, owned likewise
    char worker [DROVER_ID_MAX + 1];        //  SEND: worker id, or "" for a client
    uint64_t task;              //  QUEUE, FREE: task id
    int32_t priority;           //  QUEUE
    uint32_t procs;             //  QUEUE
    uint64_t mem;               //  QUEUE: bytes
    char labels [DROVER_RECORD_LABELS_MAX + 1];     //  QUEUE: "k=v" joined by "\n"
} drover_record_t;

//  What a receiver does with one command: its first frame is the command
//  word; the handler may pop frames but does not own the message
typedef void (drover_outbox_fn) (void *arg, zmsg_t *command);

//  What a receiver that reads records does with one: it takes msg and
//  payload by setting them NULL; what it leaves there is destroyed after
typedef void (drover_outbox_record_fn) (void *arg, drover_record_t *record);

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

//  Return the command word of a record: "MSG", "SEND", "QUEUE" or "FREE"
const char *
    drover_record_word (const drover_record_t *record);

//  Say MSG route msg; the outbox owns the message from now on (*msg_p is NULL)
void
    drover_outbox_say_msg (drover_outbox_t *self, const byte *route, size_t route_size,
                           drover_msg_t **msg_p);

//  Say SEND route payload worker; the outbox owns the payload from now on
//  (*payload_p is NULL); worker is "" for a client
void
    drover_outbox_say_send (drover_outbox_t *self, const byte *route, size_t route_size,
                            zframe_t **payload_p, const char *worker);

//  Say QUEUE task priority procs mem labels (labels: NULL or "" for none)
void
    drover_outbox_say_queue (drover_outbox_t *self, uint64_t task, int32_t priority,
                             uint32_t procs, uint64_t mem, const char *labels);

//  Say FREE task
void
    drover_outbox_say_free (drover_outbox_t *self, uint64_t task);

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

//  drover_outbox_receive, with records given to record_handler as they are
//  (if not NULL) rather than to handler as messages
int
    drover_outbox_receive_records (zsock_t *sock, int flags, drover_outbox_fn *handler,
                                   drover_outbox_record_fn *record_handler, void *arg);

#ifdef __cplusplus
}
#endif

#endif
