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

//  The batch a BATCH hands off: commands in the order they were said
typedef struct {
    size_t count;               //  commands in the batch
    size_t next;                //  first command not yet taken by a receiver
    zmsg_t *commands [];        //  owned until taken
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
        zmsg_t *command = batch->commands [index];
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


//  --------------------------------------------------------------------------
//  Add a command; the outbox owns it from now on

void
drover_outbox_add (drover_outbox_t *self, zmsg_t **command_p)
{
    assert (self && command_p && *command_p);
    if (!self->batch || self->batch->count == self->alloc) {
        size_t count = self->batch? self->batch->count: 0;
        self->alloc = self->alloc? self->alloc * 2: S_ALLOC_MIN;
        self->batch = (s_batch_t *) realloc (self->batch, sizeof (s_batch_t)
                                             + self->alloc * sizeof (zmsg_t *));
        assert (self->batch);
        self->batch->count = count;
        self->batch->next = 0;
    }
    self->batch->commands [self->batch->count++] = *command_p;
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
        if (*picture == 'i') {
            int value = va_arg (args, int);
            s_add_number (command, value < 0? -(uint64_t) (int64_t) value: (uint64_t) value,
                          value < 0);
        }
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


//  --------------------------------------------------------------------------
//  Receive one message and hand each command in it to handler

int
drover_outbox_receive (zsock_t *sock, int flags, drover_outbox_fn *handler, void *arg)
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
            zmsg_t *command = batch->commands [batch->next++];
            handler (arg, command);
            zmsg_destroy (&command);
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
