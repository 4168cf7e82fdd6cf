/*  =========================================================================
    drover_outbox - commands said during one turn of a loop, sent as one
    BATCH message

    A batch travels as a zero-copy libzmq message whose data is the batch
    itself: inproc moves the pointer, and libzmq calls s_batch_free when
    the message is closed, received or not. The receiver takes each
    command out before that, so the free function only ever frees what
    nobody read.
    =========================================================================
*/

#include "drover_outbox.h"
#include "drover_msg.h"

#define S_ALLOC_MIN     16          //  commands an outbox makes room for at first

//  One command in a batch: a czmq message, or a record
typedef struct {
    zmsg_t *command;            //  the command, owned until taken; NULL: record
    drover_record_t record;     //  the command, if a record (what it holds owned)
} s_entry_t;

//  The batch a BATCH hands off: commands in the order they were said
typedef struct {
    size_t count;               //  commands in the batch
    size_t next;                //  first command not yet taken by a receiver
    s_entry_t entries [];       //  the commands
} s_batch_t;

struct _drover_outbox_t {
    s_batch_t *batch;           //  commands said since the last flush, or NULL
    size_t alloc;               //  command slots in batch
};


//  --------------------------------------------------------------------------
//  Create an empty outbox

drover_outbox_t *
drover_outbox_new (void)
{
    drover_outbox_t *self = (drover_outbox_t *) zmalloc (sizeof (drover_outbox_t));
    return self;
}

//  Destroy the commands of a batch nobody took, and what a MSG among them
//  hands off (actors/ACTORS.md), then the batch
static void
s_batch_destroy (s_batch_t *batch)
{
    for (size_t index = batch->next; index < batch->count; index++) {
        zmsg_t *command = batch->entries [index].command;
        if (!command) {
            drover_msg_destroy (&batch->entries [index].record.msg);
            zframe_destroy (&batch->entries [index].record.payload);
            continue;
        }
        zframe_t *word = zmsg_first (command);
        if (word && zframe_streq (word, "MSG")) {
            zmsg_next (command);                //  the route
            zframe_t *pointer = zmsg_next (command);
            drover_msg_t *msg = NULL;
            if (pointer && zframe_size (pointer) == sizeof msg) {
                memcpy (&msg, zframe_data (pointer), sizeof msg);
                drover_msg_destroy (&msg);
            }
        }
        zmsg_destroy (&command);
    }
    free (batch);
}

//  libzmq's free function for a sent batch: called when its message is
//  closed, whether or not a receiver took the commands
static void
s_batch_free (void *data, void *hint)
{
    s_batch_destroy ((s_batch_t *) data);
}


//  --------------------------------------------------------------------------
//  Destroy the outbox and any commands not yet flushed

void
drover_outbox_destroy (drover_outbox_t **self_p)
{
    assert (self_p);
    drover_outbox_t *self = *self_p;
    if (!self)
        return;
    if (self->batch)
        s_batch_destroy (self->batch);
    free (self);
    *self_p = NULL;
}


//  Make room for one more command and return its entry, counted
static s_entry_t *
s_next_entry (drover_outbox_t *self)
{
    if (!self->batch || self->batch->count == self->alloc) {
        size_t count = self->batch? self->batch->count: 0;
        self->alloc = self->alloc? self->alloc * 2: S_ALLOC_MIN;
        self->batch = (s_batch_t *) realloc (self->batch, sizeof (s_batch_t)
                                             + self->alloc * sizeof (s_entry_t));
        assert (self->batch);
        self->batch->count = count;
        self->batch->next = 0;
    }
    return &self->batch->entries [self->batch->count++];
}

//  --------------------------------------------------------------------------
//  Add a command; the outbox owns it from now on

void
drover_outbox_add (drover_outbox_t *self, zmsg_t **command_p)
{
    assert (self && command_p && *command_p);
    s_next_entry (self)->command = *command_p;
    *command_p = NULL;
}


//  Add a number frame in decimal, as zsock_send writes one (a '-' before
//  the magnitude if negative), without printf and its allocations: QUEUE,
//  FREE and ASSIGN carry numbers for every task
static void
s_add_number (zmsg_t *command, uint64_t magnitude, bool negative)
{
    char text [24];
    char *start = text + sizeof text;
    do {
        *--start = (char) ('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude);
    if (negative)
        *--start = '-';
    zmsg_addmem (command, start, (size_t) (text + sizeof text - start));
}

//  Add a signed number frame in decimal
static void
s_add_signed (zmsg_t *command, int64_t value)
{
    s_add_number (command, value < 0? -(uint64_t) value: (uint64_t) value, value < 0);
}

//  --------------------------------------------------------------------------
//  Add a command built from a picture, as zsock_send builds one

void
drover_outbox_say (drover_outbox_t *self, const char *picture, ...)
{
    assert (self && picture);
    zmsg_t *command = zmsg_new ();
    va_list args;
    va_start (args, picture);
    for (; *picture; picture++) {
        if (*picture == 's') {
            const char *text = va_arg (args, const char *);
            zmsg_addstr (command, text? text: "");
        }
        else
        if (*picture == 'i')
            s_add_signed (command, va_arg (args, int));
        else
        if (*picture == '4')
            s_add_number (command, va_arg (args, uint32_t), false);
        else
        if (*picture == '8')
            s_add_number (command, va_arg (args, uint64_t), false);
        else
        if (*picture == 'f') {
            zframe_t *frame = va_arg (args, zframe_t *);
            zmsg_append (command, frame? &(zframe_t *) { zframe_dup (frame) }
                                       : &(zframe_t *) { zframe_new_empty () });
        }
        else
        if (*picture == 'b') {
            const void *data = va_arg (args, const void *);
            size_t size = va_arg (args, size_t);
            zmsg_addmem (command, data, size);
        }
        else
        if (*picture == 'p') {
            void *pointer = va_arg (args, void *);
            zmsg_addmem (command, &pointer, sizeof pointer);
        }
        else {
            zsys_error ("outbox: bad picture element '%c'", *picture);
            assert (false);     //  our own bug
        }
    }
    va_end (args);
    drover_outbox_add (self, &command);
}


//  --------------------------------------------------------------------------
//  Return the command word of a record

const char *
drover_record_word (const drover_record_t *record)
{
    assert (record);
    return record->kind == DROVER_RECORD_MSG? "MSG":
           record->kind == DROVER_RECORD_SEND? "SEND":
           record->kind == DROVER_RECORD_QUEUE? "QUEUE": "FREE";
}


//  Add a record of kind, holding nothing yet, and return it to be filled
static drover_record_t *
s_next_record (drover_outbox_t *self, drover_record_kind_t kind)
{
    s_entry_t *entry = s_next_entry (self);
    entry->command = NULL;
    entry->record.kind = kind;
    entry->record.msg = NULL;
    entry->record.payload = NULL;
    return &entry->record;
}

//  --------------------------------------------------------------------------
//  Say MSG route msg

void
drover_outbox_say_msg (drover_outbox_t *self, const byte *route, size_t route_size,
                       drover_msg_t **msg_p)
{
    assert (self && route && msg_p && *msg_p);
    if (route_size > DROVER_RECORD_ROUTE_MAX) {
        drover_outbox_say (self, "sbp", "MSG", route, route_size, *msg_p);
        *msg_p = NULL;
        return;
    }
    drover_record_t *record = s_next_record (self, DROVER_RECORD_MSG);
    record->route_size = route_size;
    memcpy (record->route, route, route_size);
    record->msg = *msg_p;
    *msg_p = NULL;
}


//  --------------------------------------------------------------------------
//  Say SEND route payload worker

void
drover_outbox_say_send (drover_outbox_t *self, const byte *route, size_t route_size,
                        zframe_t **payload_p, const char *worker)
{
    assert (self && route && payload_p && *payload_p && worker);
    if (route_size > DROVER_RECORD_ROUTE_MAX || strlen (worker) > DROVER_ID_MAX) {
        zmsg_t *command = zmsg_new ();
        zmsg_addstr (command, "SEND");
        zmsg_addmem (command, route, route_size);
        zmsg_append (command, payload_p);
        zmsg_addstr (command, worker);
        drover_outbox_add (self, &command);
        return;
    }
    drover_record_t *record = s_next_record (self, DROVER_RECORD_SEND);
    record->route_size = route_size;
    memcpy (record->route, route, route_size);
    record->payload = *payload_p;
    *payload_p = NULL;
    strcpy (record->worker, worker);
}


//  --------------------------------------------------------------------------
//  Say QUEUE task priority procs mem labels

void
drover_outbox_say_queue (drover_outbox_t *self, uint64_t task, int32_t priority,
                         uint32_t procs, uint64_t mem, const char *labels)
{
    assert (self);
    if (!labels)
        labels = "";
    if (strlen (labels) > DROVER_RECORD_LABELS_MAX) {
        drover_outbox_say (self, "s8i48s", "QUEUE", task, priority, procs, mem, labels);
        return;
    }
    drover_record_t *record = s_next_record (self, DROVER_RECORD_QUEUE);
    record->task = task;
    record->priority = priority;
    record->procs = procs;
    record->mem = mem;
    strcpy (record->labels, labels);
}


//  --------------------------------------------------------------------------
//  Say FREE task

void
drover_outbox_say_free (drover_outbox_t *self, uint64_t task)
{
    assert (self);
    s_next_record (self, DROVER_RECORD_FREE)->task = task;
}


//  --------------------------------------------------------------------------
//  Return the number of commands not yet flushed

size_t
drover_outbox_size (drover_outbox_t *self)
{
    assert (self);
    return self->batch? self->batch->count: 0;
}


//  --------------------------------------------------------------------------
//  Send every command added since the last flush as one BATCH on sock

int
drover_outbox_flush (drover_outbox_t *self, zsock_t *sock)
{
    assert (self && sock);
    s_batch_t *batch = self->batch;
    if (!batch || batch->count == 0)
        return 0;
    self->batch = NULL;
    self->alloc = 0;
    void *handle = zsock_resolve (sock);
    zmq_msg_t part;
    size_t size = sizeof (s_batch_t) + batch->count * sizeof (zmsg_t *);
    int rc = zmq_msg_init_data (&part, batch, size, s_batch_free, NULL);
    assert (rc == 0);
    if (zmq_send (handle, "BATCH", 5, ZMQ_SNDMORE) == -1
    ||  zmq_msg_send (&part, handle, 0) == -1) {
        zmq_msg_close (&part);  //  frees the batch
        return -1;
    }
    return 0;
}


//  Turn a record into the czmq message its command is, taking what it holds
static zmsg_t *
s_record_to_command (drover_record_t *record)
{
    zmsg_t *command = zmsg_new ();
    if (record->kind == DROVER_RECORD_MSG) {
        zmsg_addstr (command, "MSG");
        zmsg_addmem (command, record->route, record->route_size);
        zmsg_addmem (command, &record->msg, sizeof record->msg);
        record->msg = NULL;
    }
    else
    if (record->kind == DROVER_RECORD_SEND) {
        zmsg_addstr (command, "SEND");
        zmsg_addmem (command, record->route, record->route_size);
        zmsg_append (command, &record->payload);
        zmsg_addstr (command, record->worker);
    }
    else
    if (record->kind == DROVER_RECORD_QUEUE) {
        zmsg_addstr (command, "QUEUE");
        s_add_number (command, record->task, false);
        s_add_signed (command, record->priority);
        s_add_number (command, record->procs, false);
        s_add_number (command, record->mem, false);
        zmsg_addstr (command, record->labels);
    }
    else {
        assert (record->kind == DROVER_RECORD_FREE);
        zmsg_addstr (command, "FREE");
        s_add_number (command, record->task, false);
    }
    return command;
}

//  Hand one record to record_handler, or as a message to handler if there
//  is none; destroy what neither took
static void
s_take_record (drover_record_t *record, drover_outbox_fn *handler,
               drover_outbox_record_fn *record_handler, void *arg)
{
    if (record_handler)
        record_handler (arg, record);
    else {
        zmsg_t *command = s_record_to_command (record);
        handler (arg, command);
        zmsg_destroy (&command);
    }
    drover_msg_destroy (&record->msg);
    zframe_destroy (&record->payload);
}


//  --------------------------------------------------------------------------
//  Receive one message and hand over its commands, records as they are

int
drover_outbox_receive_records (zsock_t *sock, int flags, drover_outbox_fn *handler,
                               drover_outbox_record_fn *record_handler, void *arg)
{
    assert (sock && handler);
    void *handle = zsock_resolve (sock);
    zmq_msg_t first;
    zmq_msg_init (&first);
    if (zmq_msg_recv (&first, handle, flags) == -1) {
        zmq_msg_close (&first);
        return -1;
    }
    bool more = zmq_msg_more (&first);
    if (more && zmq_msg_size (&first) == 5 && memcmp (zmq_msg_data (&first), "BATCH", 5) == 0) {
        zmq_msg_t part;
        zmq_msg_init (&part);
        int rc = zmq_msg_recv (&part, handle, 0);
        zmq_msg_close (&first);
        if (rc == -1) {
            zmq_msg_close (&part);
            return -1;          //  interrupted
        }
        assert (!zmq_msg_more (&part));     //  a BATCH is two frames: our own format
        s_batch_t *batch = (s_batch_t *) zmq_msg_data (&part);
        int handled = 0;
        while (batch->next < batch->count) {
            s_entry_t *entry = &batch->entries [batch->next++];
            if (entry->command) {
                handler (arg, entry->command);
                zmsg_destroy (&entry->command);
            }
            else
                s_take_record (&entry->record, handler, record_handler, arg);
            handled++;
        }
        zmq_msg_close (&part);  //  frees the batch, now empty
        return handled;
    }
    //  A plain command: the rest of its frames, as zmsg_recv would read them
    zmsg_t *command = zmsg_new ();
    zmsg_addmem (command, zmq_msg_data (&first), zmq_msg_size (&first));
    zmq_msg_close (&first);
    while (more) {
        zframe_t *frame = zframe_recv (sock);
        if (!frame)
            break;              //  interrupted: hand over what came
        more = zframe_more (frame);
        zmsg_append (command, &frame);
    }
    handler (arg, command);
    zmsg_destroy (&command);
    return 1;
}


//  --------------------------------------------------------------------------
//  Receive one message and hand over its commands

int
drover_outbox_receive (zsock_t *sock, int flags, drover_outbox_fn *handler, void *arg)
{
    return drover_outbox_receive_records (sock, flags, handler, NULL, arg);
}
