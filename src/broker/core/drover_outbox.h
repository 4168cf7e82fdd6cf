/*  =========================================================================
    drover_outbox - commands said during one turn of a loop, sent as one
    BATCH message

    An actor (or the broker main) says many small commands per turn: a
    reply, an event, a QUEUE, a FREE... Sent one by one, each would be its
    own inproc message and could wake the reader on its own (an eventfd
    write, a poll, a context switch). The outbox collects them and flush
    sends them all at the end of the turn as one message, BATCH batch(p),
    whose one frame is the batch itself, handed off: the receiver owns it.

    A command in a batch is one of two forms, never both: the per-task
    commands (MSG, SEND, QUEUE, FREE) are records, fixed-size entries with
    the command's fields; every other command (a control command: UP,
    LOST, CONFIGURE, EVENTS...) is a czmq message whose first frame is
    its command word (actors/ACTORS.md). A batch that is never received
    (its reader stopped first) frees its commands when libzmq drops it,
    including the drover_msg_t a MSG hands off, so nothing leaks at
    shutdown.
    =========================================================================
*/

#ifndef DROVER_OUTBOX_H_INCLUDED
#define DROVER_OUTBOX_H_INCLUDED

#include <czmq.h>
#include "drover_msg.h"
#include "drover_change.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_outbox_t drover_outbox_t;

//  The commands said for every task (MSG, SEND, QUEUE, TAKE, ASSIGN, FREE) travel only
//  as records inside a BATCH, never as czmq messages: no zmsg_t, no frame
//  per field, no list node per frame, each made in one thread and freed
//  in another. A record holds any legal route (1..255 bytes) and any
//  labels: the usual short ones inside it, a longer one in memory of its
//  own that the record owns (drover_record_route, drover_record_labels).
typedef enum {
    DROVER_RECORD_MSG = 1,      //  MSG route msg: a decoded message handed off
    DROVER_RECORD_SEND,         //  SEND route payload worker
    DROVER_RECORD_QUEUE,        //  QUEUE task priority procs mem labels
    DROVER_RECORD_FREE,         //  FREE task
    DROVER_RECORD_TAKE,         //  TAKE lease task procs mem labels
    DROVER_RECORD_ASSIGN,       //  ASSIGN task worker: one placement of a pass
    DROVER_RECORD_CHANGE,       //  CHANGE change: a task's change, for the store to keep
    DROVER_RECORD_REPLY,        //  REPLY route payload worker: a SEND the store holds
                                //  until what was said before it is committed
    DROVER_RECORD_RESTORE,      //  RESTORE change: a task the store kept, for assign
    DROVER_RECORD_KINDS         //  one past the last kind
} drover_record_kind_t;
#define DROVER_RECORD_FREE_RETURNED 1   //  FREE flags: an offer held ahead, given back unstarted

#define DROVER_RECORD_ROUTE_MAX     32      //  route bytes held inside a record
#define DROVER_RECORD_LABELS_MAX    64      //  label bytes held inside a record

typedef struct {
    drover_record_kind_t kind;  //  which command, and so which fields
    size_t route_size;          //  MSG, SEND, REPLY: bytes in the route, 1..255
    byte route [DROVER_RECORD_ROUTE_MAX];   //  MSG, SEND, REPLY: the peer's routing id, if short
    byte *long_route;           //  MSG, SEND, REPLY: the routing id if longer (owned), else NULL
    drover_msg_t *msg;          //  MSG: the message, owned until a handler takes it
    zframe_t *payload;          //  SEND, REPLY: the encoded message, owned likewise
    drover_change_t *change;    //  CHANGE, RESTORE: the change, owned likewise
    char worker [DROVER_ID_MAX + 1];        //  SEND, REPLY: worker id, or "" for a client;
                                            //  ASSIGN: worker id
    uint64_t task;              //  QUEUE, TAKE, ASSIGN, FREE, CHANGE, RESTORE: task id
    int32_t priority;           //  QUEUE
    uint32_t procs;             //  QUEUE, TAKE
    uint64_t mem;               //  QUEUE, TAKE: bytes
    char labels [DROVER_RECORD_LABELS_MAX + 1];     //  QUEUE, TAKE: "k=v" joined by "\n", if short
    char *long_labels;          //  QUEUE, TAKE: the labels if longer (owned), else NULL
    uint64_t lease;             //  TAKE: the lease the task is taken from
    char owner [DROVER_ID_MAX + 1];     //  QUEUE, TAKE: the task's owner, "" none
    char *devices;              //  QUEUE, TAKE: its device demand "gpu=2,fpga=1"
                                //  (drover_devicelist; owned), NULL none
    uint32_t flags;             //  QUEUE, TAKE: its DROVER_SUBMIT_* flags (PREEMPTIBLE)
} drover_record_t;

//  Whose a request is and what it may share besides procs, memory and
//  labels: what QUEUE and TAKE carry for fair share, quotas, devices and
//  preemption. NULL, or NULL / "" fields: none.
typedef struct {
    const char *owner;          //  the task's owner (its key's name, or the name its
                                //  client gave), or NULL / ""
    const char *devices;        //  its device demand, canonical (drover_devicelist), or
                                //  NULL / ""
    uint32_t flags;             //  DROVER_SUBMIT_* flags
} drover_tenancy_t;

//  Return a MSG or SEND record's route (route_size bytes)
const byte *
    drover_record_route (const drover_record_t *record);

//  Return a QUEUE or TAKE record's labels ("" for none)
const char *
    drover_record_labels (const drover_record_t *record);

//  What a receiver does with a control command: its first frame is the
//  command word; the handler may pop frames but does not own the message
typedef void (drover_outbox_fn) (void *arg, zmsg_t *command);

//  What a receiver does with a record: it takes msg, payload and change
//  by setting them NULL; what it leaves there is destroyed after
typedef void (drover_outbox_record_fn) (void *arg, drover_record_t *record);

//  What a receiver may do with a record DROVER_OUTBOX_AHEAD entries after
//  the one it is handed: start loading what it will read to handle it
//  (__builtin_prefetch), so that the cache misses of a batch overlap. It
//  must change nothing.
typedef void (drover_outbox_ahead_fn) (void *arg, const drover_record_t *record);
#define DROVER_OUTBOX_AHEAD     8

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

//  Return the command word of a record: "MSG", "SEND", "QUEUE", "TAKE",
//  "ASSIGN", "FREE", "CHANGE", "REPLY" or "RESTORE"
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

//  Say SEND or REPLY (kind) route payload worker, as drover_outbox_say_send
void
    drover_outbox_say_reply (drover_outbox_t *self, drover_record_kind_t kind,
                             const byte *route, size_t route_size, zframe_t **payload_p,
                             const char *worker);

//  Say CHANGE or RESTORE (kind) change; the outbox owns the change from now
//  on (*change_p is NULL)
void
    drover_outbox_say_change (drover_outbox_t *self, drover_record_kind_t kind,
                              drover_change_t **change_p);

//  Move a record (as a receiver was handed it) into the outbox, kind
//  changed to kind (e.g. a REPLY said again as SEND): the outbox owns what
//  it held from now on, and the record holds nothing
void
    drover_outbox_move (drover_outbox_t *self, drover_record_t *record,
                        drover_record_kind_t kind);

//  Say QUEUE task priority procs mem labels tenancy (labels: NULL or ""
//  for none; tenancy: NULL for none)
void
    drover_outbox_say_queue (drover_outbox_t *self, uint64_t task, int32_t priority,
                             uint32_t procs, uint64_t mem, const char *labels,
                             const drover_tenancy_t *tenancy);

//  Say TAKE lease task procs mem labels tenancy: the task is placed on the
//  lease's worker, out of what the lease holds (labels: NULL or "" for
//  none; tenancy: NULL for none)
void
    drover_outbox_say_take (drover_outbox_t *self, uint64_t lease, uint64_t task,
                            uint32_t procs, uint64_t mem, const char *labels,
                            const drover_tenancy_t *tenancy);

//  Return a QUEUE or TAKE record's device demand ("" for none)
const char *
    drover_record_devices (const drover_record_t *record);

//  Say ASSIGN task worker: a pass placed the task on the worker
void
    drover_outbox_say_assign (drover_outbox_t *self, uint64_t task, const char *worker);

//  Say FREE task
void
    drover_outbox_say_free (drover_outbox_t *self, uint64_t task);

//  Say FREE task for an attempt the worker held ahead and gave back
//  unstarted (RESULT RETURNED, level 9): flags DROVER_RECORD_FREE_RETURNED
void
    drover_outbox_say_given_back (drover_outbox_t *self, uint64_t task);

//  Call fn for each record not yet flushed, in order (it may change what
//  the record holds, taking and replacing its payload)
void
    drover_outbox_each (drover_outbox_t *self, drover_outbox_record_fn *fn, void *arg);

//  Return the number of commands not yet flushed
size_t
    drover_outbox_size (drover_outbox_t *self);

//  Send every command added since the last flush as one BATCH on sock;
//  nothing if there are none. Returns 0, or -1 if the send failed (the
//  commands are then freed).
int
    drover_outbox_flush (drover_outbox_t *self, zsock_t *sock);

//  Receive one message from sock (waiting unless flags has ZMQ_DONTWAIT)
//  and hand over each command in it, in order: a control command to
//  handler, a record to record_handler (NULL for a receiver that hears
//  no per-task command). A plain control command outside
//  a batch ($TERM from zactor_destroy; a unit test's CONFIGURE) goes to
//  handler too. Returns the number of commands handled, or -1 if nothing
//  was received.
int
    drover_outbox_receive (zsock_t *sock, int flags, drover_outbox_fn *handler,
                           drover_outbox_record_fn *record_handler, void *arg);

//  drover_outbox_receive, also calling ahead (if not NULL) for each record
//  of a batch DROVER_OUTBOX_AHEAD entries before it is handed over
int
    drover_outbox_receive_ahead (zsock_t *sock, int flags, drover_outbox_fn *handler,
                                 drover_outbox_record_fn *record_handler,
                                 drover_outbox_ahead_fn *ahead, void *arg);

#ifdef __cplusplus
}
#endif

#endif
