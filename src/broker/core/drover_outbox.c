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

//  Free what a record holds and no handler took
static void
s_record_clear (drover_record_t *record)
{
    drover_msg_destroy (&record->msg);
    zframe_destroy (&record->payload);
    drover_change_destroy (&record->change);
    free (record->long_route);
    record->long_route = NULL;
    zstr_free (&record->long_labels);
    zstr_free (&record->devices);
}

//  Destroy the commands of a batch nobody took, and what a MSG among them
//  hands off (actors/ACTORS.md), then the batch
static void
s_batch_destroy (s_batch_t *batch)
{
    for (size_t index = batch->next; index < batch->count; index++) {
        if (batch->entries [index].command)
            zmsg_destroy (&batch->entries [index].command);
        else
            s_record_clear (&batch->entries [index].record);
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
           record->kind == DROVER_RECORD_QUEUE? "QUEUE":
           record->kind == DROVER_RECORD_TAKE? "TAKE":
           record->kind == DROVER_RECORD_ASSIGN? "ASSIGN":
           record->kind == DROVER_RECORD_CHANGE? "CHANGE":
           record->kind == DROVER_RECORD_REPLY? "REPLY":
           record->kind == DROVER_RECORD_RESTORE? "RESTORE": "FREE";
}


//  --------------------------------------------------------------------------
//  Return a MSG or SEND record's route

const byte *
drover_record_route (const drover_record_t *record)
{
    assert (record);
    return record->long_route? record->long_route: record->route;
}


//  --------------------------------------------------------------------------
//  Return a QUEUE or TAKE record's labels

const char *
drover_record_labels (const drover_record_t *record)
{
    assert (record);
    return record->long_labels? record->long_labels: record->labels;
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
    entry->record.change = NULL;
    entry->record.long_route = NULL;
    entry->record.long_labels = NULL;
    entry->record.devices = NULL;
    entry->record.owner [0] = 0;
    entry->record.flags = 0;
    return &entry->record;
}

//  Copy a route into a record: inside it if short, else in memory it owns
static void
s_set_route (drover_record_t *record, const byte *route, size_t route_size)
{
    assert (route_size >= 1 && route_size <= 255);     //  a ROUTER routing id
    record->route_size = route_size;
    if (route_size <= DROVER_RECORD_ROUTE_MAX)
        memcpy (record->route, route, route_size);
    else {
        record->long_route = (byte *) malloc (route_size);
        assert (record->long_route);
        memcpy (record->long_route, route, route_size);
    }
}

//  --------------------------------------------------------------------------
//  Say MSG route msg

void
drover_outbox_say_msg (drover_outbox_t *self, const byte *route, size_t route_size,
                       drover_msg_t **msg_p)
{
    assert (self && route && msg_p && *msg_p);
    drover_record_t *record = s_next_record (self, DROVER_RECORD_MSG);
    s_set_route (record, route, route_size);
    record->msg = *msg_p;
    *msg_p = NULL;
}


//  --------------------------------------------------------------------------
//  Say SEND route payload worker

void
drover_outbox_say_send (drover_outbox_t *self, const byte *route, size_t route_size,
                        zframe_t **payload_p, const char *worker)
{
    drover_outbox_say_reply (self, DROVER_RECORD_SEND, route, route_size, payload_p, worker);
}


//  --------------------------------------------------------------------------
//  Say SEND or REPLY route payload worker

void
drover_outbox_say_reply (drover_outbox_t *self, drover_record_kind_t kind,
                         const byte *route, size_t route_size, zframe_t **payload_p,
                         const char *worker)
{
    assert (self && route && payload_p && *payload_p && worker);
    assert (kind == DROVER_RECORD_SEND || kind == DROVER_RECORD_REPLY);
    assert (strlen (worker) <= DROVER_ID_MAX);     //  ids are checked on HELLO
    drover_record_t *record = s_next_record (self, kind);
    s_set_route (record, route, route_size);
    record->payload = *payload_p;
    *payload_p = NULL;
    strcpy (record->worker, worker);
}


//  --------------------------------------------------------------------------
//  Say CHANGE or RESTORE change

void
drover_outbox_say_change (drover_outbox_t *self, drover_record_kind_t kind,
                          drover_change_t **change_p)
{
    assert (self && change_p && *change_p);
    assert (kind == DROVER_RECORD_CHANGE || kind == DROVER_RECORD_RESTORE);
    drover_record_t *record = s_next_record (self, kind);
    record->change = *change_p;
    record->task = record->change->task;
    *change_p = NULL;
}


//  --------------------------------------------------------------------------
//  Move a record into the outbox, as kind

void
drover_outbox_move (drover_outbox_t *self, drover_record_t *record, drover_record_kind_t kind)
{
    assert (self && record);
    assert (kind >= DROVER_RECORD_MSG && kind < DROVER_RECORD_KINDS);
    drover_record_t *moved = s_next_record (self, kind);
    *moved = *record;
    moved->kind = kind;
    record->msg = NULL;
    record->payload = NULL;
    record->change = NULL;
    record->long_route = NULL;
    record->long_labels = NULL;
    record->devices = NULL;
}


//  Fill a QUEUE or TAKE record's demand: the labels inside it if short,
//  else in memory it owns
static void
s_set_demand (drover_record_t *record, uint64_t task, uint32_t procs, uint64_t mem,
              const char *labels)
{
    if (!labels)
        labels = "";
    record->task = task;
    record->procs = procs;
    record->mem = mem;
    if (strlen (labels) <= DROVER_RECORD_LABELS_MAX)
        strcpy (record->labels, labels);
    else {
        record->labels [0] = 0;
        record->long_labels = strdup (labels);
        assert (record->long_labels);
    }
}

//  Fill a QUEUE or TAKE record's owner, devices (in memory it owns) and
//  flags
static void
s_set_tenancy (drover_record_t *record, const drover_tenancy_t *tenancy)
{
    if (!tenancy)
        return;
    if (tenancy->owner) {
        assert (strlen (tenancy->owner) <= DROVER_ID_MAX);
        strcpy (record->owner, tenancy->owner);
    }
    if (tenancy->devices && *tenancy->devices) {
        record->devices = strdup (tenancy->devices);
        assert (record->devices);
    }
    record->flags = tenancy->flags;
}

//  Return a QUEUE or TAKE record's device demand
const char *
drover_record_devices (const drover_record_t *record)
{
    return record->devices? record->devices: "";
}

//  --------------------------------------------------------------------------
//  Say QUEUE task priority procs mem labels tenancy

void
drover_outbox_say_queue (drover_outbox_t *self, uint64_t task, int32_t priority,
                         uint32_t procs, uint64_t mem, const char *labels,
                         const drover_tenancy_t *tenancy)
{
    assert (self);
    drover_record_t *record = s_next_record (self, DROVER_RECORD_QUEUE);
    s_set_demand (record, task, procs, mem, labels);
    s_set_tenancy (record, tenancy);
    record->priority = priority;
}


//  --------------------------------------------------------------------------
//  Say TAKE lease task procs mem labels

void
drover_outbox_say_take (drover_outbox_t *self, uint64_t lease, uint64_t task, uint32_t procs,
                        uint64_t mem, const char *labels, const drover_tenancy_t *tenancy)
{
    assert (self);
    drover_record_t *record = s_next_record (self, DROVER_RECORD_TAKE);
    s_set_demand (record, task, procs, mem, labels);
    s_set_tenancy (record, tenancy);
    record->lease = lease;
}


//  --------------------------------------------------------------------------
//  Say ASSIGN task worker

void
drover_outbox_say_assign (drover_outbox_t *self, uint64_t task, const char *worker)
{
    assert (self && worker);
    assert (strlen (worker) <= DROVER_ID_MAX);     //  ids are checked on HELLO
    drover_record_t *record = s_next_record (self, DROVER_RECORD_ASSIGN);
    record->task = task;
    strcpy (record->worker, worker);
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
//  Say FREE task for an offer given back unstarted

void
drover_outbox_say_given_back (drover_outbox_t *self, uint64_t task)
{
    assert (self);
    drover_record_t *record = s_next_record (self, DROVER_RECORD_FREE);
    record->task = task;
    record->flags = DROVER_RECORD_FREE_RETURNED;
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
//  Call fn for each record not yet flushed

void
drover_outbox_each (drover_outbox_t *self, drover_outbox_record_fn *fn, void *arg)
{
    assert (self && fn);
    for (size_t index = 0; self->batch && index < self->batch->count; index++)
        if (!self->batch->entries [index].command)
            fn (arg, &self->batch->entries [index].record);
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


//  --------------------------------------------------------------------------
//  Receive one message and hand over its commands: control commands to
//  handler, records to record_handler

int
drover_outbox_receive (zsock_t *sock, int flags, drover_outbox_fn *handler,
                       drover_outbox_record_fn *record_handler, void *arg)
{
    return drover_outbox_receive_ahead (sock, flags, handler, record_handler, NULL, arg);
}

//  Receive one message, each record of a batch shown to ahead first,
//  DROVER_OUTBOX_AHEAD entries before it is handed over
int
drover_outbox_receive_ahead (zsock_t *sock, int flags, drover_outbox_fn *handler,
                             drover_outbox_record_fn *record_handler,
                             drover_outbox_ahead_fn *ahead, void *arg)
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
        for (size_t index = 0; ahead && index < DROVER_OUTBOX_AHEAD && index < batch->count;
             index++)
            if (!batch->entries [index].command)
                ahead (arg, &batch->entries [index].record);
        while (batch->next < batch->count) {
            size_t later = batch->next + DROVER_OUTBOX_AHEAD;
            if (ahead && later < batch->count && !batch->entries [later].command)
                ahead (arg, &batch->entries [later].record);
            s_entry_t *entry = &batch->entries [batch->next++];
            if (entry->command) {
                handler (arg, entry->command);
                zmsg_destroy (&entry->command);
            }
            else {
                assert (record_handler);    //  a record to who hears none: our bug
                if (record_handler)
                    record_handler (arg, &entry->record);
                s_record_clear (&entry->record);
            }
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

