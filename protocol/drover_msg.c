/*  =========================================================================
    drover_msg - the drover wire protocol codec (see PROTOCOL.md)

    Every message is one msgpack array: "DRV", version, id, seq, then the
    message's fields in the order the message table lists them
    (drover_msg_fields.c, which packs and reads each field). This file
    holds the message itself: its lifecycle and setters, encoding, decoding
    and peeking at one frame, the socket helpers, and the names of the
    protocol's values.

    Encoding packs with msgpack-c twice: once into a counting writer
    (which also checks every limit), once straight into the frame, so a
    message costs exactly one allocation of exactly its size.

    Decoding never uses msgpack_unpack (five bytes can make it allocate
    gigabytes). A hand-written cursor (drover_mpack) first checks the
    signature and the version, then walks the whole structure without
    reading any value: every count and length against the bytes that
    remain, nesting depth, ext types, trailing bytes. Only then does it
    read the fields against the table, checking types, ranges and limits,
    and allocate the owned copies. Nothing here asserts on input.
    =========================================================================
*/

#include "drover_msg.h"
#include "drover_msg_fields.h"
#include "drover_msg_share.h"

//  ---------------------------------------------------------------------
//  Message lifecycle

static void
    s_free_owned (drover_msg_t *self);

//  Create an empty message with the given id; never returns NULL
drover_msg_t *
drover_msg_new (int id)
{
    drover_msg_t *self = (drover_msg_t *) zmalloc (sizeof (drover_msg_t));
    self->id = id;
    return self;
}

//  Destroy a message and everything it owns; harmless on NULL
void
drover_msg_destroy (drover_msg_t **self_p)
{
    assert (self_p);
    if (*self_p) {
        s_free_owned (*self_p);     //  not zeroed: 3 KB written for nothing
        free (*self_p);
        *self_p = NULL;
    }
}

//  Free what the message owns and zero it, keeping nothing; ready for decode
void
drover_msg_reset (drover_msg_t *self)
{
    assert (self);
    s_free_owned (self);
    memset (self, 0, sizeof (drover_msg_t));
}

//  Free what the message owns, leaving its pointers as they were: reset
//  zeroes them after, destroy frees the message itself
static void
s_free_owned (drover_msg_t *self)
{
    for (int index = 0; index < DROVER_LABELS_MAX; index++)
        free (self->labels [index]);
    free (self->body);
    free (self->running);
    free (self->out);
    free (self->err);
    free (self->reason);
    free (self->key);
    free (self->tasks);
    free (self->events);
    drover_taskinfo_destroy (&self->info);
    free (self->whys);
    free (self->pool_rows);
    free (self->affinity);
    free (self->assigned);
    free (self->members);
    free (self->path);
    if (self->share_rows) {
        for (uint32_t index = 0; index < self->nshares; index++)
            drover_msg_share_row_free (&self->share_rows [index]);
        free (self->share_rows);
    }
    free (self->after);
    for (uint32_t index = 0; index < self->nsteps; index++) {
        if (self->step_names)
            free (self->step_names [index]);
        if (self->steps)
            drover_msg_destroy (&self->steps [index]);
    }
    free (self->step_names);
    free (self->steps);
    if (self->service_rows) {
        for (uint32_t index = 0; index < self->nservices; index++)
            for (int label = 0; label < DROVER_LABELS_MAX; label++)
                free (self->service_rows [index].labels [label]);
        free (self->service_rows);
    }
    free (self->replica_rows);
    free (self->changes);
    if (self->queue_rows) {
        for (uint32_t index = 0; index < self->nqueues; index++)
            free (self->queue_rows [index].endpoints);
        free (self->queue_rows);
    }
    if (self->task_rows) {
        for (uint32_t index = 0; index < self->nrows; index++)
            free (self->task_rows [index].summary);
        free (self->task_rows);
    }
    if (self->worker_rows) {
        for (uint32_t index = 0; index < self->nrows; index++) {
            for (int label = 0; label < DROVER_LABELS_MAX; label++)
                free (self->worker_rows [index].labels [label]);
            free (self->worker_rows [index].why);
            free (self->worker_rows [index].admin_reason);
            free (self->worker_rows [index].devices);
            free (self->worker_rows [index].devices_used);
        }
        free (self->worker_rows);
    }
}

//  Encode a message into a new frame; NULL if a field breaks a limit
zframe_t *
drover_msg_encode (drover_msg_t *self)
{
    assert (self);
    size_t size = drover_mpack_measure (drover_msg_fields_pack, self, DROVER_MSG_MAX);
    if (size == 0)
        return NULL;            //  a field breaks a limit, or no such id
    zframe_t *frame = zframe_new (NULL, size);
    assert (frame);
    drover_mpack_write (drover_msg_fields_pack, self, zframe_data (frame), size);
    return frame;
}

//  Encode a message as a peer of level knows it: only the fields and
//  values of that level. NULL if the id is newer than level, or a field
//  breaks a limit.
zframe_t *
drover_msg_encode_level (drover_msg_t *self, int level)
{
    assert (self);
    if (level >= DROVER_MSG_LEVEL)
        return drover_msg_encode (self);
    drover_msg_fields_leveled_t leveled = { self, level < 1? 1: level, false };
    size_t size = drover_mpack_measure (drover_msg_fields_pack_at, &leveled, DROVER_MSG_MAX);
    if (size == 0)
        return NULL;            //  newer than level, or a field breaks a limit
    zframe_t *frame = zframe_new (NULL, size);
    assert (frame);
    drover_mpack_write (drover_msg_fields_pack_at, &leveled, zframe_data (frame), size);
    return frame;
}

//  Return the level a decoded message shows its sender speaks: the level
//  it declares, or failing that the lowest that has its id and fields
int
drover_msg_level (const drover_msg_t *self)
{
    assert (self);
    bool declares = self->id == DROVER_MSG_WORKER_HELLO || self->id == DROVER_MSG_CLIENT_HELLO
                 || self->id == DROVER_MSG_WORKER_WELCOME
                 || self->id == DROVER_MSG_CLIENT_WELCOME;
    int level = declares && self->level? self->level: 1;
    return level > self->implied? level: self->implied;
}

//  True if a level after level changed a field or a value of message id
//  (PROTOCOL.md §12.2), so a peer of level must have it re-encoded: levels
//  2..4 changed many messages, level 5 only added messages, level 6 only
//  appended two elements to a WORKER TABLE row, level 7 a field to WORKER
//  WELCOME, elements to the statistics (SERVICE TABLE, PLAN RESULT), to a
//  SERVICE TABLE service row and to POOL TABLE's summary and rows, and a
//  strategy value (rr) to QUEUE TABLE. A peer of level 4..6 takes every
//  other message as it is, not re-encoded.
static bool
s_layout_changed_since (int id, int level)
{
    if (level < 4)
        return true;
    if (level < 7 && (id == DROVER_MSG_SERVICE_TABLE || id == DROVER_MSG_PLAN_RESULT
                      || id == DROVER_MSG_WORKER_WELCOME || id == DROVER_MSG_POOL_TABLE
                      || id == DROVER_MSG_QUEUE_TABLE))
        return true;            //  level 7 appended to them
    if (level < 9 && (id == DROVER_MSG_WORKER_HELLO || id == DROVER_MSG_WORKER_WELCOME
                      || id == DROVER_MSG_TASK_RESULT))
        return true;            //  level 9: offers held ahead, and given back
    return level < 9 && id == DROVER_MSG_WORKER_TABLE;     //  level 6, then 9 appended
}

//  Fit an encoded message to a peer of level: as it is when that peer
//  knows all of it, else re-encoded with that level's fields and values.
//  Returns 0, or -1 (payload unchanged) when no peer of that level knows
//  the message or it does not decode.
int
drover_msg_fit (zframe_t **payload_p, int level)
{
    assert (payload_p && *payload_p);
    if (level >= DROVER_MSG_LEVEL)
        return 0;               //  the common case: the peer knows all we say
    uint32_t seq;
    int id = drover_msg_peek (zframe_data (*payload_p), zframe_size (*payload_p), &seq);
    if (drover_msg_id_level (id) > level || id == 0)
        return -1;
    if (!s_layout_changed_since (id, level))
        return 0;               //  later levels did not change it: as it is
    drover_msg_t *msg = drover_msg_new (0);
    zframe_t *fitted = NULL;
    if (drover_msg_decode (msg, zframe_data (*payload_p), zframe_size (*payload_p)) == 0)
        fitted = drover_msg_encode_level (msg, level);
    drover_msg_destroy (&msg);
    if (!fitted)
        return -1;
    zframe_destroy (payload_p);
    *payload_p = fitted;
    return 0;
}

//  Read and drop the frames after one whose more flag is set; returns more
bool
drover_msg_drop_more (void *handle, bool more)
{
    assert (handle);
    bool dropped = more;
    while (more) {              //  read the rest of the message and drop it
        zmq_msg_t extra;
        zmq_msg_init (&extra);
        more = zmq_msg_recv (&extra, handle, 0) != -1 && zmq_msg_more (&extra);
        zmq_msg_close (&extra);
    }
    return dropped;
}

//  Say this codec's level on a client's DEALER (CLIENT HELLO, seq 0, its
//  answer not awaited). Returns 0, or -1 if the socket refused it.
int
drover_msg_say_level (zsock_t *dealer)
{
    assert (dealer);
    drover_msg_t *hello = drover_msg_new (DROVER_MSG_CLIENT_HELLO);
    zframe_t *frame = drover_msg_encode (hello);
    assert (frame);             //  a level and a release always fit
    drover_msg_destroy (&hello);
    int rc = zframe_send (&frame, dealer, ZFRAME_DONTWAIT);
    zframe_destroy (&frame);
    return rc;
}

//  Decode bytes into self (reset first, unless fresh: zero as made), a
//  WORKFLOW SUBMIT's step if step.
//  Returns 0, or -2 if malformed, with self->error saying why. On failure
//  self holds nothing but id and seq (as drover_msg_peek reads them: 0 when
//  they cannot be read), error, bad_version and too_large.
static int
s_decode (drover_msg_t *self, const byte *data, size_t size, bool step, bool fresh)
{
    assert (self);
    if (!fresh)
        drover_msg_reset (self);
    drover_mpack_cursor_t cursor = drover_msg_fields_cursor (data, size);
    bool too_large = false;     //  a field longer than its type allows
    if (!data || size == 0)
        drover_mpack_fail (&cursor, "empty message");
    else
    if (size > DROVER_MSG_MAX) {
        drover_mpack_fail (&cursor, "message too large");
        too_large = true;
    }
    else {
        int64_t count = drover_msg_fields_read_header (&cursor, self);
        cursor.too_large = false;   //  the header's faults are not sizes
        if (count >= 0) {
            //  Structure first: nothing is allocated from bytes that lie
            drover_mpack_cursor_t walker = drover_msg_fields_cursor (data, size);
            if (!drover_mpack_walk (&walker, DROVER_DEPTH_MAX))
                drover_mpack_fail (&cursor, walker.error);
            else
            if (walker.ptr != walker.end)
                drover_mpack_fail (&cursor, DROVER_MPACK_TRAILING);
            else {
                drover_msg_fields_read (&cursor, self, (size_t) count, step);
                too_large = cursor.too_large;
            }
        }
    }
    if (!cursor.error)
        return 0;
    bool bad_version = self->bad_version;
    drover_msg_reset (self);
    uint32_t seq;
    int id = drover_msg_peek (data, size, &seq);
    self->id = id > 0? id: 0;
    self->seq = seq;
    self->bad_version = bad_version;
    self->too_large = too_large;
    self->error = cursor.error;
    return -2;
}

//  Decode bytes into self (reset first). Returns 0, or -2 if malformed,
//  with self->error saying why. On failure self holds nothing but id and
//  seq (as drover_msg_peek reads them: 0 when they cannot be read), error,
//  bad_version and too_large.
int
drover_msg_decode (drover_msg_t *self, const byte *data, size_t size)
{
    return s_decode (self, data, size, false, false);
}

//  Decode bytes into a new message; never returns NULL. Its error is NULL
//  if it decoded; else it holds what a failed drover_msg_decode leaves.
//  Made zero by its allocation, it is not reset again: the broker's main
//  makes one for every message a peer sends.
drover_msg_t *
drover_msg_decode_new (const byte *data, size_t size)
{
    drover_msg_t *self = drover_msg_new (0);
    s_decode (self, data, size, false, true);
    return self;
}

//  Decode the bytes of a WORKFLOW SUBMIT's step: only a TASK SUBMIT, whose
//  after entries may name steps. Returns 0, or -2 with self->error set.
int
drover_msg_decode_step (drover_msg_t *self, const byte *data, size_t size)
{
    return s_decode (self, data, size, true, false);
}

//  Read only the header of an encoded message, as every version lays it
//  out (PROTOCOL.md §5): an array of at least 4 elements, elements 0..2
//  any well-formed values, element 3 the seq, a uint32. Returns the id
//  (element 2 if it is a known message id, else 0) and sets *seq_p; or
//  returns -1 and sets *seq_p to 0 if the seq cannot be read. What follows
//  the seq is not looked at.
int
drover_msg_peek (const byte *data, size_t size, uint32_t *seq_p)
{
    assert (seq_p);
    *seq_p = 0;
    drover_mpack_cursor_t cursor = drover_msg_fields_cursor (data, size);
    uint32_t count;
    if (!drover_mpack_read_array (&cursor, 0, 4, UINT32_MAX, 1, &count)
    ||  !drover_mpack_skip_rest (&cursor, 2, 0, 1))
        return -1;              //  not an array of 4, or elements 0..1 broken
    drover_mpack_cursor_t element = cursor;
    uint64_t id;
    bool negative;
    if (!drover_mpack_read_integer (&element, cursor.errors, &negative, &id) || negative)
        id = 0;
    uint64_t seq;
    if (!drover_mpack_skip_rest (&cursor, 1, 0, 1)
    ||  !drover_mpack_read_uint (&cursor, 0, UINT32_MAX, &seq))
        return -1;
    *seq_p = (uint32_t) seq;
    return id >= 1 && id <= DROVER_MSG_ID_MAX? (int) id: 0;
}

//  Receive one frame from a DEALER and decode it. Returns 0, -1 if
//  interrupted, -2 if malformed (including a message of several frames,
//  which is read to its end and refused).
int
drover_msg_recv (drover_msg_t *self, zsock_t *input)
{
    assert (self);
    assert (input);
    void *handle = zsock_resolve (input);
    zmq_msg_t frame;
    zmq_msg_init (&frame);
    if (zmq_msg_recv (&frame, handle, 0) == -1) {
        zmq_msg_close (&frame);
        return -1;              //  interrupted, or the context is ending
    }
    bool several = zmq_msg_more (&frame);
    int rc = drover_msg_decode (self, (const byte *) zmq_msg_data (&frame), zmq_msg_size (&frame));
    zmq_msg_close (&frame);
    drover_msg_drop_more (handle, several);
    if (several) {
        drover_msg_reset (self);
        self->error = "more than one frame";
        rc = -2;
    }
    return rc;
}

//  Encode and send a message on a DEALER socket. Returns 0 or -1 (a limit
//  broken, or the socket refused it).
int
drover_msg_send (drover_msg_t *self, zsock_t *output)
{
    assert (self);
    assert (output);
    size_t size = drover_mpack_measure (drover_msg_fields_pack, self, DROVER_MSG_MAX);
    if (size == 0)
        return -1;
    zmq_msg_t frame;
    if (zmq_msg_init_size (&frame, size))
        return -1;
    drover_mpack_write (drover_msg_fields_pack, self, (byte *) zmq_msg_data (&frame), size);
    if (zmq_msg_send (&frame, zsock_resolve (output), 0) == -1) {
        zmq_msg_close (&frame);
        return -1;
    }
    return 0;
}


//  ---------------------------------------------------------------------
//  Setters

//  Add a "key=value" label, copying it. Returns 0, or -1 if full or invalid.
int
drover_msg_add_label (drover_msg_t *self, const char *label)
{
    assert (self);
    if (self->nlabels >= DROVER_LABELS_MAX || !drover_label_valid (label))
        return -1;
    self->labels [self->nlabels++] = strdup (label);
    assert (self->labels [self->nlabels - 1]);
    return 0;
}

//  Set the reason text (copied, truncated to DROVER_REASON_MAX bytes, and
//  back to a UTF-8 character boundary if that cut one)
void
drover_msg_set_reason (drover_msg_t *self, const char *reason)
{
    assert (self);
    free (self->reason);
    self->reason = NULL;
    if (!reason)
        return;
    size_t length = strnlen (reason, DROVER_REASON_MAX + 1);
    if (length > DROVER_REASON_MAX) {
        length = DROVER_REASON_MAX;
        while (length > 0 && ((byte) reason [length] & 0xc0) == 0x80)
            length--;           //  reason [length] continues a character: cut before it
    }
    self->reason = drover_mpack_strndup (reason, length);
}

//  Set the body bytes (copied)
void
drover_msg_set_body (drover_msg_t *self, const byte *body, size_t size)
{
    assert (self);
    byte *copy = drover_mpack_memdup (body, size);
    free (self->body);
    self->body = copy;
    self->body_size = copy? size: 0;
}

//  Set the captured stdout / stderr bytes (copied)
void
drover_msg_set_output (drover_msg_t *self,
                       const byte *out, size_t out_size,
                       const byte *err, size_t err_size)
{
    assert (self);
    byte *out_copy = drover_mpack_memdup (out, out_size);
    byte *err_copy = drover_mpack_memdup (err, err_size);
    free (self->out);
    free (self->err);
    self->out = out_copy;
    self->out_size = out_copy? out_size: 0;
    self->err = err_copy;
    self->err_size = err_copy? err_size: 0;
}


//  ---------------------------------------------------------------------
//  Names and validity

//  Return the printable name of a message id, e.g. "TASK SUBMIT"
const char *
drover_msg_name (int id)
{
    static const char *names [DROVER_MSG_ID_MAX + 1] = {
        "INVALID", "WORKER HELLO", "WORKER HEARTBEAT", "WORKER GOODBYE", "WORKER WELCOME",
        "WORKER LEAVE", "TASK OFFER", "TASK STARTED", "TASK RESULT", "TASK KILL",
        "TASK SUBMIT", "TASK ACCEPTED", "TASK WAIT", "TASK DONE", "TASK CANCEL",
        "TASK LIST", "TASK TABLE", "WORKER LIST", "WORKER TABLE", "WORKER ADMIN",
        "OK", "ERROR", "EVENT REPLAY", "EVENT LIST", "TASK EXPLAIN", "TASK EXPLANATION",
        [DROVER_MSG_TASK_SHOW] = "TASK SHOW", [DROVER_MSG_TASK_INFO] = "TASK INFO",
        [DROVER_MSG_POOL_LIST] = "POOL LIST", [DROVER_MSG_POOL_TABLE] = "POOL TABLE",
        [DROVER_MSG_POOL_ADMIN] = "POOL ADMIN", [DROVER_MSG_WORKER_GATHER] = "WORKER GATHER",
        [DROVER_MSG_WORKER_RUNS] = "WORKER RUNS", [DROVER_MSG_SERVICE_ADMIN] = "SERVICE ADMIN",
        [DROVER_MSG_SERVICE_LIST] = "SERVICE LIST", [DROVER_MSG_SERVICE_TABLE] = "SERVICE TABLE",
        [DROVER_MSG_PLAN] = "PLAN", [DROVER_MSG_PLAN_RESULT] = "PLAN RESULT",
        [DROVER_MSG_REDIRECT] = "REDIRECT", [DROVER_MSG_QUEUES] = "QUEUES",
        [DROVER_MSG_QUEUE_TABLE] = "QUEUE TABLE", [DROVER_MSG_CLIENT_HELLO] = "CLIENT HELLO",
        [DROVER_MSG_CLIENT_WELCOME] = "CLIENT WELCOME",
        [DROVER_MSG_WORKFLOW_SUBMIT] = "WORKFLOW SUBMIT",
        [DROVER_MSG_WORKFLOW_ACCEPTED] = "WORKFLOW ACCEPTED",
        [DROVER_MSG_SHARE_ADMIN] = "SHARE ADMIN", [DROVER_MSG_SHARE_LIST] = "SHARE LIST",
        [DROVER_MSG_SHARE_TABLE] = "SHARE TABLE", [DROVER_MSG_STATE_BACKUP] = "STATE BACKUP",
        [DROVER_MSG_BACKUP_DONE] = "BACKUP DONE"
    };
    return id >= 1 && id <= DROVER_MSG_ID_MAX && names [id]? names [id]: "INVALID";
}

//  Return the printable name of a task state, e.g. "SUCCEEDED"
const char *
drover_task_state_name (int state)
{
    static const char *names [DROVER_TASK_STATES] = {
        "QUEUED", "ASSIGNED", "RUNNING", "SUCCEEDED", "FAILED", "CANCELLED", "UNKNOWN"
    };
    return state >= 0 && state < DROVER_TASK_STATES? names [state]: "INVALID";
}

//  Return the printable name of a worker health
const char *
drover_worker_health_name (int health)
{
    static const char *names [DROVER_HEALTH_MAX + 1] = { "OK", "PROBATION", "LOST", "LOW_DISK" };
    return health >= 0 && health <= DROVER_HEALTH_MAX? names [health]: "INVALID";
}

//  Return the printable name of a worker admin setting
const char *
drover_admin_name (int admin)
{
    static const char *names [DROVER_ADMIN_MAX + 1] = { "RUN", "HOLD", "DRAIN" };
    return admin >= 0 && admin <= DROVER_ADMIN_MAX? names [admin]: "INVALID";
}

//  Return the printable name of whether a worker is here or went
const char *
drover_worker_state_name (int state)
{
    static const char *names [DROVER_WORKER_STATE_MAX + 1] = { "UP", "LOST", "LEFT" };
    return state >= 0 && state <= DROVER_WORKER_STATE_MAX? names [state]: "INVALID";
}

//  Return the printable name of an attempt's outcome
const char *
drover_outcome_name (int outcome)
{
    static const char *names [DROVER_OUTCOME_MAX + 1] = {
        "EXITED", "SIGNALLED", "TIMEDOUT", "CANCELLED", "SPAWN_FAILED", "MACHINE_FAILED",
        "OOM", "RETURNED"
    };
    return outcome >= 0 && outcome <= DROVER_OUTCOME_MAX? names [outcome]: "INVALID";
}

//  Return the name of a POOL ADMIN action
const char *
drover_pooladmin_name (int action)
{
    static const char *names [DROVER_POOLADMIN_MAX + 1] = { "run", "hold", "drain", "destroy" };
    return action >= 0 && action <= DROVER_POOLADMIN_MAX? names [action]: "invalid";
}

//  Return the name of a pool instance's state
const char *
drover_pool_state_name (int state)
{
    static const char *names [DROVER_POOL_STATE_MAX + 1] = {
        "unknown", "booting", "idle", "running", "shutdown"
    };
    return state >= 0 && state <= DROVER_POOL_STATE_MAX? names [state]: "invalid";
}

//  Parse a POOL ADMIN action's name. Returns 0 and sets *action_p, or -1.
int
drover_pooladmin_parse (const char *name, int *action_p)
{
    assert (action_p);
    for (int action = 0; name && action <= DROVER_POOLADMIN_MAX; action++)
        if (streq (name, drover_pooladmin_name (action))) {
            *action_p = action;
            return 0;
        }
    return -1;
}

//  Return the printable name of how a task ended
const char *
drover_end_name (int end)
{
    static const char *names [DROVER_END_MAX + 1] = {
        "NONE", "SUCCEEDED", "FAILED", "TIMED_OUT", "CANCELLED", "SPAWN_FAILED", "LOST",
        "POISON", "EXPIRED", "UNKNOWN", "DEPENDENCY", "OOM"
    };
    return end >= 0 && end <= DROVER_END_MAX? names [end]: "INVALID";
}

//  Return the printable name of an after kind ("after", "after-any",
//  "after-fail"), with or without DROVER_AFTER_STEP; "?" past them
const char *
drover_after_kind_name (int kind)
{
    static const char *names [DROVER_AFTER_KIND_MAX + 1] = { "after", "after-any", "after-fail" };
    if (kind >= 0 && (kind & DROVER_AFTER_STEP))
        kind &= ~DROVER_AFTER_STEP;
    return kind >= 0 && kind <= DROVER_AFTER_KIND_MAX? names [kind]: "?";
}

//  Return the printable name of why a queued task waits ("" it does not,
//  "after", "begin", "retry", "array", "group"); "?" past them
const char *
drover_waits_name (int waits)
{
    static const char *names [DROVER_WAITS_MAX + 1] = {
        "", "after", "begin", "retry", "array", "group"
    };
    return waits >= 0 && waits <= DROVER_WAITS_MAX? names [waits]: "?";
}

//  Tell whether an end goes with a task state
bool
drover_end_fits (int state, int end)
{
    switch (state) {
        case DROVER_TASK_QUEUED:
        case DROVER_TASK_ASSIGNED:
        case DROVER_TASK_RUNNING:   return end == DROVER_END_NONE;
        case DROVER_TASK_SUCCEEDED: return end == DROVER_END_SUCCEEDED;
        case DROVER_TASK_CANCELLED: return end == DROVER_END_CANCELLED
                                        || end == DROVER_END_DEPENDENCY;
        case DROVER_TASK_FAILED:    return end == DROVER_END_FAILED || end == DROVER_END_TIMED_OUT
                                        || end == DROVER_END_SPAWN_FAILED || end == DROVER_END_LOST
                                        || end == DROVER_END_POISON || end == DROVER_END_OOM;
        case DROVER_TASK_UNKNOWN:   return end == DROVER_END_EXPIRED || end == DROVER_END_UNKNOWN;
    }
    return false;
}

//  Check that a worker id is printable ASCII without spaces, 1..64 bytes
bool
drover_id_valid (const char *id)
{
    return id && drover_mpack_id_valid (id, strnlen (id, DROVER_ID_MAX + 1));
}
