/*  =========================================================================
    drover_msg - the drover wire protocol codec (see PROTOCOL.md)

    Every message is one msgpack array: "DRV", version, id, seq, then the
    message's fields in the order s_schema lists them. Encoding and
    decoding both walk that one table, so the two cannot disagree on an
    order. Encoding packs with msgpack-c twice: once into a counting writer
    (which also checks every limit), once straight into the frame, so a
    message costs exactly one allocation of exactly its size.

    Decoding never uses msgpack_unpack (five bytes can make it allocate
    gigabytes). A hand-written cursor first checks the signature and the
    version, then walks the whole structure without reading any value:
    every count and length against the bytes that remain, nesting depth,
    ext types, trailing bytes. Only then does it read the fields against the
    schema, checking types, ranges and limits, and allocate the owned
    copies: each is bounded by the bytes it came from (times the size of a
    C struct for rows and ids, and an array is refused before it is
    allocated unless the bytes left hold its count at the smallest size of
    one element). Nothing here asserts on input.
    =========================================================================
*/

#include "drover_msg.h"
#include <msgpack.h>
#include <math.h>

//  ---------------------------------------------------------------------
//  Fields and the schema of each message

typedef enum {
    F_END = 0,
    //  Fields of messages, in s_schema
    F_WORKER, F_WORKER_OPT, F_EPOCH, F_TASK, F_ATTEMPT, F_PRIORITY, F_PROCS, F_MEM,
    F_LABELS, F_RUNNING, F_STATS, F_HEARTBEAT, F_TIMEOUT, F_RETRIES, F_FLAGS, F_BODY,
    F_OUTCOME, F_STATE, F_TASK_END, F_LIST_STATE, F_ADMIN, F_EXIT_CODE, F_SIGNAL, F_TRUNCATED,
    F_DURATION, F_OUT, F_ERR, F_REASON, F_CODE, F_LIMIT, F_TASKS, F_COUNTS, F_TASK_ROWS,
    F_WORKER_ROWS,
    //  Parts that are not message fields, for error texts
    P_HEADER, P_SIGNATURE, P_VERSION, P_ID, P_SEQ, P_RUNNING_ITEM, P_ROW, P_HEALTH,
    P_PROCS_USED, P_MEM_USED, P_SUMMARY, P_ROW_STATE, P_ROW_END, P_BODY, P_ARGV, P_ENV,
    P_CWD, P_INPUT, P_EVENT, P_KEY, P_TIME, P_TOPIC, P_RESERVED, P_COUNT
} s_field_t;

#define S_FIELDS_MAX    12          //  most fields in one message (DONE)

//  The fields of each message, in wire order, ending with F_END
static const uint8_t
s_schema [DROVER_MSG_ID_MAX + 1][S_FIELDS_MAX + 1] = {
    [DROVER_MSG_WORKER_HELLO]     = { F_WORKER, F_EPOCH, F_PROCS, F_MEM, F_LABELS, F_RUNNING },
    [DROVER_MSG_WORKER_HEARTBEAT] = { F_WORKER, F_EPOCH, F_STATS },
    [DROVER_MSG_WORKER_GOODBYE]   = { F_WORKER, F_EPOCH },
    [DROVER_MSG_WORKER_WELCOME]   = { F_HEARTBEAT },
    [DROVER_MSG_WORKER_LEAVE]     = { F_END },
    [DROVER_MSG_TASK_OFFER]       = { F_TASK, F_ATTEMPT, F_PRIORITY, F_PROCS, F_MEM, F_TIMEOUT,
                                      F_BODY },
    [DROVER_MSG_TASK_STARTED]     = { F_WORKER, F_TASK, F_ATTEMPT },
    [DROVER_MSG_TASK_RESULT]      = { F_WORKER, F_TASK, F_ATTEMPT, F_OUTCOME, F_EXIT_CODE,
                                      F_SIGNAL, F_TRUNCATED, F_DURATION, F_OUT, F_ERR,
                                      F_REASON },
    [DROVER_MSG_TASK_KILL]        = { F_TASK, F_ATTEMPT },
    [DROVER_MSG_TASK_SUBMIT]      = { F_PRIORITY, F_PROCS, F_MEM, F_LABELS, F_TIMEOUT,
                                      F_RETRIES, F_FLAGS, F_BODY },
    [DROVER_MSG_TASK_ACCEPTED]    = { F_TASK },
    [DROVER_MSG_TASK_WAIT]        = { F_TASKS },
    [DROVER_MSG_TASK_DONE]        = { F_TASK, F_STATE, F_TASK_END, F_ATTEMPT, F_WORKER_OPT,
                                      F_EXIT_CODE, F_SIGNAL, F_TRUNCATED, F_DURATION, F_OUT,
                                      F_ERR, F_REASON },
    [DROVER_MSG_TASK_CANCEL]      = { F_TASK },
    [DROVER_MSG_TASK_LIST]        = { F_LIMIT, F_LIST_STATE },
    [DROVER_MSG_TASK_TABLE]       = { F_COUNTS, F_TASK_ROWS },
    [DROVER_MSG_WORKER_LIST]      = { F_END },
    [DROVER_MSG_WORKER_TABLE]     = { F_WORKER_ROWS },
    [DROVER_MSG_WORKER_ADMIN]     = { F_WORKER, F_ADMIN },
    [DROVER_MSG_OK]               = { F_CODE, F_REASON },
    [DROVER_MSG_ERROR]            = { F_CODE, F_REASON },
};

//  What to say when a field is wrong, by field
typedef struct {
    const char *type;               //  not the msgpack type the field has
    const char *range;              //  value, length or count past its limits
    const char *nul;                //  a NUL byte inside a string
    const char *invalid;            //  content refused (bad id, label, env entry)
} s_errors_t;

#define S_ERRORS(name, invalid) { \
    name ": wrong type", name ": out of range", name ": contains NUL", name ": " invalid }

static const s_errors_t
s_errors [P_COUNT] = {
    [F_END]         = S_ERRORS ("message", "invalid"),
    [F_WORKER]      = S_ERRORS ("worker", "not a valid worker id"),
    [F_WORKER_OPT]  = S_ERRORS ("worker", "not a valid worker id"),
    [F_EPOCH]       = S_ERRORS ("epoch", "invalid"),
    [F_TASK]        = S_ERRORS ("task", "invalid"),
    [F_ATTEMPT]     = S_ERRORS ("attempt", "invalid"),
    [F_PRIORITY]    = S_ERRORS ("priority", "invalid"),
    [F_PROCS]       = S_ERRORS ("procs", "invalid"),
    [F_MEM]         = S_ERRORS ("mem", "invalid"),
    [F_LABELS]      = S_ERRORS ("labels", "not key=value"),
    [F_RUNNING]     = S_ERRORS ("running", "invalid"),
    [F_STATS]       = S_ERRORS ("stats", "invalid"),
    [F_HEARTBEAT]   = S_ERRORS ("heartbeat", "invalid"),
    [F_TIMEOUT]     = S_ERRORS ("timeout", "invalid"),
    [F_RETRIES]     = S_ERRORS ("retries", "invalid"),
    [F_FLAGS]       = S_ERRORS ("flags", "invalid"),
    [F_BODY]        = S_ERRORS ("body", "invalid"),
    [F_OUTCOME]     = S_ERRORS ("outcome", "invalid"),
    [F_STATE]       = S_ERRORS ("state", "invalid"),
    [F_TASK_END]    = S_ERRORS ("outcome", "does not go with the state"),
    [F_LIST_STATE]  = S_ERRORS ("state", "invalid"),
    [F_ADMIN]       = S_ERRORS ("admin", "invalid"),
    [F_EXIT_CODE]   = S_ERRORS ("exit_code", "invalid"),
    [F_SIGNAL]      = S_ERRORS ("signal", "invalid"),
    [F_TRUNCATED]   = S_ERRORS ("truncated", "invalid"),
    [F_DURATION]    = S_ERRORS ("duration", "invalid"),
    [F_OUT]         = S_ERRORS ("out", "invalid"),
    [F_ERR]         = S_ERRORS ("err", "invalid"),
    [F_REASON]      = S_ERRORS ("reason", "invalid"),
    [F_CODE]        = S_ERRORS ("code", "invalid"),
    [F_LIMIT]       = S_ERRORS ("limit", "invalid"),
    [F_TASKS]       = S_ERRORS ("tasks", "invalid"),
    [F_COUNTS]      = S_ERRORS ("counts", "invalid"),
    [F_TASK_ROWS]   = S_ERRORS ("rows", "invalid"),
    [F_WORKER_ROWS] = S_ERRORS ("rows", "invalid"),
    [P_HEADER]      = S_ERRORS ("message", "invalid"),
    [P_SIGNATURE]   = S_ERRORS ("message", "wrong signature"),
    [P_VERSION]     = S_ERRORS ("version", "unknown version"),
    [P_ID]          = S_ERRORS ("message id", "unknown message id"),
    [P_SEQ]         = S_ERRORS ("seq", "invalid"),
    [P_RUNNING_ITEM] = S_ERRORS ("running entry", "invalid"),
    [P_ROW]         = S_ERRORS ("row", "invalid"),
    [P_HEALTH]      = S_ERRORS ("health", "invalid"),
    [P_PROCS_USED]  = S_ERRORS ("procs_used", "invalid"),
    [P_MEM_USED]    = S_ERRORS ("mem_used", "invalid"),
    [P_SUMMARY]     = S_ERRORS ("summary", "invalid"),
    [P_ROW_STATE]   = S_ERRORS ("state", "invalid"),
    [P_ROW_END]     = S_ERRORS ("outcome", "does not go with the state"),
    [P_BODY]        = S_ERRORS ("exec body", "invalid"),
    [P_ARGV]        = S_ERRORS ("argv", "invalid"),
    [P_ENV]         = S_ERRORS ("env", "not NAME=value"),
    [P_CWD]         = S_ERRORS ("cwd", "invalid"),
    [P_INPUT]       = S_ERRORS ("input", "invalid"),
    [P_EVENT]       = S_ERRORS ("event", "invalid"),
    [P_KEY]         = S_ERRORS ("event key", "repeated"),
    [P_TIME]        = S_ERRORS ("time", "invalid"),
    [P_TOPIC]       = S_ERRORS ("topic", "not a valid topic"),
    [P_RESERVED]    = S_ERRORS ("reserved", "invalid"),
};

//  The fewest wire bytes one element of an array can take: an array whose
//  count times this is more than the bytes left is refused before its
//  elements are allocated (PROTOCOL.md, "Limits")
#define S_LABEL_MIN         4       //  str header + "k=v"
#define S_ENV_MIN           3       //  str header + "A="
#define S_TASKREF_MIN       3       //  [task, attempt]: header + 2 fixints
#define S_TASK_ROW_MIN      9       //  header + 6 fixints + 2 empty strs
#define S_WORKER_ROW_MIN    20      //  header + 1-byte id (2) + 6 fixints
                                    //  + empty labels (1) + stats (9) + reserved (1)

#define S_TRUNCATED     "truncated: a length or count runs past the end"
#define S_TOO_DEEP      "nesting deeper than the limit"
#define S_BAD_BYTE      "ext types and byte 0xc1 are not allowed"
#define S_TRAILING      "trailing bytes after the message"

//  Return how many fields a message id has
static size_t
s_nfields (int id)
{
    size_t count = 0;
    while (count < S_FIELDS_MAX && s_schema [id][count] != F_END)
        count++;
    return count;
}


//  ---------------------------------------------------------------------
//  Small helpers

//  Allocate or abort, as CZMQ does; no zeroing for bytes we overwrite
static void *
s_malloc (size_t size)
{
    void *data = malloc (size? size: 1);
    if (!data) {
        fprintf (stderr, "drover_msg: out of memory (%zu bytes)\n", size);
        abort ();
    }
    return data;
}

//  Copy length bytes into a new NUL-terminated string
static char *
s_strndup (const char *text, size_t length)
{
    char *copy = (char *) s_malloc (length + 1);
    memcpy (copy, text, length);
    copy [length] = 0;
    return copy;
}

//  Copy size bytes into a new buffer, or NULL if there are none
static byte *
s_memdup (const byte *data, size_t size)
{
    if (!data || size == 0)
        return NULL;
    byte *copy = (byte *) s_malloc (size);
    memcpy (copy, data, size);
    return copy;
}

//  True if length bytes are a worker id: 1..64 of 0x21..0x7e
static bool
s_id_valid (const char *id, size_t length)
{
    if (length < 1 || length > DROVER_ID_MAX)
        return false;
    for (size_t index = 0; index < length; index++)
        if ((byte) id [index] < 0x21 || (byte) id [index] > 0x7e)
            return false;
    return true;
}

//  True if length bytes are a "key=value" label (see drover_label_valid)
static bool
s_label_valid (const char *label, size_t length)
{
    if (length > DROVER_LABEL_MAX)
        return false;
    size_t index = 0;
    for (; index < length && label [index] != '='; index++) {
        char ch = label [index];        //  ASCII only, whatever the locale
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')
           || ch == '_' || ch == '.' || ch == '-'))
            return false;
    }
    if (index == 0 || index > 63 || index == length)
        return false;           //  no key, key too long, or no '='
    for (index++; index < length; index++)
        if ((byte) label [index] < 0x20 || (byte) label [index] > 0x7e)
            return false;
    return true;
}

//  True if length bytes are an environment entry "NAME=value", NAME non-empty
static bool
s_env_valid (const char *entry, size_t length)
{
    const char *equals = (const char *) memchr (entry, '=', length);
    return equals && equals > entry && !memchr (entry, 0, length);
}

//  True if length bytes are an event topic: 1..31 of 0x21..0x7e
static bool
s_topic_valid (const char *topic, size_t length)
{
    return length < sizeof (((drover_event_t *) 0)->topic) && s_id_valid (topic, length);
}


//  ---------------------------------------------------------------------
//  Packing: a writer that counts, or that writes into a buffer sized by
//  the count

typedef struct {
    byte *data;                     //  where to write, or NULL to only count
    size_t size;                    //  bytes written or counted so far
    size_t limit;                   //  bytes available at data
    bool overflow;                  //  a write did not fit (our own bug)
} s_writer_t;

//  msgpack-c write callback: count the bytes, and copy them if writing
static int
s_writer_write (void *data, const char *buffer, size_t length)
{
    s_writer_t *writer = (s_writer_t *) data;
    if (writer->data) {
        if (length > writer->limit - writer->size) {
            writer->overflow = true;
            return -1;
        }
        memcpy (writer->data + writer->size, buffer, length);
    }
    writer->size += length;
    return 0;
}

//  Pack a string of known length
static void
s_pack_str (msgpack_packer *pk, const char *text, size_t length)
{
    msgpack_pack_str (pk, length);
    if (length)
        msgpack_pack_str_body (pk, text, length);
}

//  Pack bytes as bin (NULL packs an empty bin)
static void
s_pack_bin (msgpack_packer *pk, const byte *data, size_t size)
{
    msgpack_pack_bin (pk, data? size: 0);
    if (data && size)
        msgpack_pack_bin_body (pk, data, size);
}

//  Pack a load average, 0 for a value no receiver would accept
static void
s_pack_load (msgpack_packer *pk, double load)
{
    msgpack_pack_double (pk, isfinite (load) && load >= 0? load: 0.0);
}

//  Pack stats as the 8-element record. Never fails.
static void
s_pack_stats (msgpack_packer *pk, const drover_stats_t *stats)
{
    msgpack_pack_array (pk, 8);
    for (int index = 0; index < 3; index++)
        s_pack_load (pk, stats->load [index]);
    msgpack_pack_uint64 (pk, stats->mem_used);
    msgpack_pack_uint64 (pk, stats->mem_total);
    msgpack_pack_uint64 (pk, stats->disk_used);
    msgpack_pack_uint64 (pk, stats->disk_total);
    msgpack_pack_uint32 (pk, stats->running);
}

//  Pack a labels array; -1 if past the limit or a label is invalid
static int
s_pack_labels (msgpack_packer *pk, char *const *labels, uint32_t nlabels)
{
    if (nlabels > DROVER_LABELS_MAX)
        return -1;
    msgpack_pack_array (pk, nlabels);
    for (uint32_t index = 0; index < nlabels; index++) {
        if (!drover_label_valid (labels [index]))
            return -1;
        s_pack_str (pk, labels [index], strlen (labels [index]));
    }
    return 0;
}

//  Pack a worker id held in a fixed array; empty allowed if optional
static int
s_pack_id (msgpack_packer *pk, const char *id, bool optional)
{
    size_t length = strnlen (id, DROVER_ID_MAX + 1);
    if (!(optional && length == 0) && !s_id_valid (id, length))
        return -1;
    s_pack_str (pk, id, length);
    return 0;
}

//  Pack an owned string of at most max bytes (NULL packs ""); -1 if longer
static int
s_pack_text (msgpack_packer *pk, const char *text, size_t max)
{
    size_t length = text? strnlen (text, max + 1): 0;
    if (length > max)
        return -1;
    s_pack_str (pk, text, length);
    return 0;
}

//  Pack bytes of at most max (NULL with a size is a caller's mistake: -1)
static int
s_pack_bytes (msgpack_packer *pk, const byte *data, size_t size, size_t max)
{
    if (size > max || (!data && size))
        return -1;
    s_pack_bin (pk, data, size);
    return 0;
}

//  Pack the TASK TABLE rows; -1 if a row breaks a limit
static int
s_pack_task_rows (msgpack_packer *pk, const drover_msg_t *self)
{
    if (self->nrows > DROVER_ROWS_MAX || (self->nrows && !self->task_rows))
        return -1;
    msgpack_pack_array (pk, self->nrows);
    for (uint32_t index = 0; index < self->nrows; index++) {
        const drover_task_row_t *row = &self->task_rows [index];
        if (row->state >= DROVER_TASK_STATES || !drover_end_fits (row->state, row->end))
            return -1;
        msgpack_pack_array (pk, 8);
        msgpack_pack_uint64 (pk, row->task);
        msgpack_pack_uint8 (pk, row->state);
        msgpack_pack_uint8 (pk, row->end);
        msgpack_pack_int32 (pk, row->priority);
        msgpack_pack_uint32 (pk, row->procs);
        msgpack_pack_uint32 (pk, row->attempt);
        if (s_pack_id (pk, row->worker, true)
        ||  s_pack_text (pk, row->summary, DROVER_SUMMARY_MAX))
            return -1;
    }
    return 0;
}

//  Pack the WORKER TABLE rows; -1 if a row breaks a limit
static int
s_pack_worker_rows (msgpack_packer *pk, const drover_msg_t *self)
{
    if (self->nrows > DROVER_ROWS_MAX || (self->nrows && !self->worker_rows))
        return -1;
    msgpack_pack_array (pk, self->nrows);
    for (uint32_t index = 0; index < self->nrows; index++) {
        const drover_worker_row_t *row = &self->worker_rows [index];
        if (row->health > DROVER_HEALTH_MAX || row->admin > DROVER_ADMIN_MAX)
            return -1;
        msgpack_pack_array (pk, 10);
        if (s_pack_id (pk, row->id, false))
            return -1;
        msgpack_pack_uint8 (pk, row->health);
        msgpack_pack_uint8 (pk, row->admin);
        msgpack_pack_uint32 (pk, row->procs);
        msgpack_pack_uint32 (pk, row->procs_used);
        msgpack_pack_uint64 (pk, row->mem);
        msgpack_pack_uint64 (pk, row->mem_used);
        if (s_pack_labels (pk, row->labels, row->nlabels))
            return -1;
        s_pack_stats (pk, &row->stats);
        msgpack_pack_uint64 (pk, row->reserved);
    }
    return 0;
}

//  Pack one field of self; -1 if it breaks a limit
static int
s_pack_field (msgpack_packer *pk, const drover_msg_t *self, int field)
{
    switch (field) {
        case F_WORKER:      return s_pack_id (pk, self->worker, false);
        case F_WORKER_OPT:  return s_pack_id (pk, self->worker, true);
        case F_EPOCH:       return msgpack_pack_uint64 (pk, self->epoch), 0;
        case F_TASK:        return msgpack_pack_uint64 (pk, self->task), 0;
        case F_ATTEMPT:     return msgpack_pack_uint32 (pk, self->attempt), 0;
        case F_PRIORITY:    return msgpack_pack_int32 (pk, self->priority), 0;
        case F_PROCS:       return msgpack_pack_uint32 (pk, self->procs), 0;
        case F_MEM:         return msgpack_pack_uint64 (pk, self->mem), 0;
        case F_LABELS:      return s_pack_labels (pk, self->labels, self->nlabels);
        case F_STATS:       return s_pack_stats (pk, &self->stats), 0;
        case F_HEARTBEAT:   return msgpack_pack_uint32 (pk, self->heartbeat), 0;
        case F_TIMEOUT:     return msgpack_pack_uint32 (pk, self->timeout), 0;
        case F_RETRIES:     return msgpack_pack_uint32 (pk, self->retries), 0;
        case F_FLAGS:       return msgpack_pack_uint32 (pk, self->flags), 0;
        case F_BODY:        return s_pack_bytes (pk, self->body, self->body_size, DROVER_BODY_MAX);
        case F_EXIT_CODE:   return msgpack_pack_int32 (pk, self->exit_code), 0;
        case F_SIGNAL:      return msgpack_pack_int32 (pk, self->signal), 0;
        case F_TRUNCATED:   return msgpack_pack_uint32 (pk, self->truncated), 0;
        case F_DURATION:    return msgpack_pack_uint32 (pk, self->duration), 0;
        case F_OUT:         return s_pack_bytes (pk, self->out, self->out_size, DROVER_OUTPUT_MAX);
        case F_ERR:         return s_pack_bytes (pk, self->err, self->err_size, DROVER_OUTPUT_MAX);
        case F_REASON:      return s_pack_text (pk, self->reason, DROVER_REASON_MAX);
        case F_CODE:        return msgpack_pack_uint16 (pk, self->code), 0;
        case F_LIMIT:       return msgpack_pack_uint32 (pk, self->limit), 0;
        case F_TASK_ROWS:   return s_pack_task_rows (pk, self);
        case F_WORKER_ROWS: return s_pack_worker_rows (pk, self);
        case F_OUTCOME:
            if (self->outcome > DROVER_OUTCOME_MAX)
                return -1;
            return msgpack_pack_uint8 (pk, self->outcome), 0;
        case F_STATE:
            if (self->state >= DROVER_TASK_STATES)
                return -1;
            return msgpack_pack_uint8 (pk, self->state), 0;
        case F_TASK_END:
            if (!drover_end_fits (self->state, self->end))
                return -1;
            return msgpack_pack_uint8 (pk, self->end), 0;
        case F_LIST_STATE:
            if (self->state >= DROVER_TASK_STATES && self->state != 255)
                return -1;
            return msgpack_pack_uint8 (pk, self->state), 0;
        case F_ADMIN:
            if (self->admin > DROVER_ADMIN_MAX)
                return -1;
            return msgpack_pack_uint8 (pk, self->admin), 0;
        case F_RUNNING:
            if (self->nrunning > DROVER_RUNNING_MAX || (self->nrunning && !self->running))
                return -1;
            msgpack_pack_array (pk, self->nrunning);
            for (uint32_t index = 0; index < self->nrunning; index++) {
                msgpack_pack_array (pk, 2);
                msgpack_pack_uint64 (pk, self->running [index].task);
                msgpack_pack_uint32 (pk, self->running [index].attempt);
            }
            return 0;
        case F_TASKS:
            if (self->ntasks > DROVER_WAIT_MAX || (self->ntasks && !self->tasks))
                return -1;
            msgpack_pack_array (pk, self->ntasks);
            for (uint32_t index = 0; index < self->ntasks; index++)
                msgpack_pack_uint64 (pk, self->tasks [index]);
            return 0;
        case F_COUNTS:
            msgpack_pack_array (pk, DROVER_TASK_STATES);
            for (int index = 0; index < DROVER_TASK_STATES; index++)
                msgpack_pack_uint64 (pk, self->counts [index]);
            return 0;
    }
    return -1;                  //  not a field: our own bug, refuse to encode
}

//  Pack the whole message; -1 if it has no valid id or a field breaks a limit
static int
s_pack_msg (msgpack_packer *pk, const drover_msg_t *self)
{
    if (self->id < 1 || self->id > DROVER_MSG_ID_MAX)
        return -1;
    const uint8_t *fields = s_schema [self->id];
    size_t nfields = s_nfields (self->id);
    msgpack_pack_array (pk, 4 + nfields);
    s_pack_str (pk, DROVER_MSG_SIGNATURE, 3);
    msgpack_pack_uint8 (pk, DROVER_MSG_VERSION);
    msgpack_pack_uint8 (pk, (uint8_t) self->id);
    msgpack_pack_uint32 (pk, self->seq);
    for (size_t index = 0; index < nfields; index++)
        if (s_pack_field (pk, self, fields [index]))
            return -1;
    return 0;
}

//  Measure the encoded message, checking every limit. Returns its size, or
//  0 if it cannot be encoded.
static size_t
s_msg_measure (const drover_msg_t *self)
{
    s_writer_t counter = { NULL, 0, 0, false };
    msgpack_packer packer;
    msgpack_packer_init (&packer, &counter, s_writer_write);
    if (s_pack_msg (&packer, self) || counter.size > DROVER_MSG_MAX)
        return 0;
    return counter.size;
}

//  Write the encoded message into data, which holds exactly size bytes
static void
s_msg_write (const drover_msg_t *self, byte *data, size_t size)
{
    s_writer_t writer = { data, 0, size, false };
    msgpack_packer packer;
    msgpack_packer_init (&packer, &writer, s_writer_write);
    int rc = s_pack_msg (&packer, self);
    assert (rc == 0 && !writer.overflow && writer.size == size);
    (void) rc;
}


//  ---------------------------------------------------------------------
//  Reading: a bounds-checked cursor over the bytes

typedef struct {
    const byte *ptr;                //  next byte to read
    const byte *end;                //  one past the last byte
    const char *error;              //  first thing found wrong, static text
} s_cursor_t;

//  Record the first error; always returns false
static bool
s_fail (s_cursor_t *cursor, const char *error)
{
    if (!cursor->error)
        cursor->error = error;
    return false;
}

//  Bytes left to read
static inline size_t
s_left (const s_cursor_t *cursor)
{
    return (size_t) (cursor->end - cursor->ptr);
}

//  Read an unsigned big-endian number of width bytes
static bool
s_read_be (s_cursor_t *cursor, int width, uint64_t *value)
{
    if (s_left (cursor) < (size_t) width)
        return s_fail (cursor, S_TRUNCATED);
    uint64_t result = 0;
    for (int index = 0; index < width; index++)
        result = (result << 8) | cursor->ptr [index];
    cursor->ptr += width;
    *value = result;
    return true;
}

//  Read any msgpack integer: *negative says if it is below zero, *bits
//  holds the value (two's complement if negative)
static bool
s_read_integer (s_cursor_t *cursor, const s_errors_t *errors, bool *negative, uint64_t *bits)
{
    if (cursor->ptr >= cursor->end)
        return s_fail (cursor, S_TRUNCATED);
    byte marker = *cursor->ptr;
    if (marker <= 0x7f || marker >= 0xe0) {
        cursor->ptr++;
        *negative = marker >= 0xe0;
        *bits = (uint64_t) (int64_t) (int8_t) marker;
        return true;
    }
    if (marker < 0xcc || marker > 0xd3)
        return s_fail (cursor, errors->type);
    int width = 1 << ((marker - 0xcc) & 3);
    bool is_signed = marker >= 0xd0;
    cursor->ptr++;
    uint64_t value;
    if (!s_read_be (cursor, width, &value))
        return false;
    if (is_signed) {
        int64_t signed_value = width == 1? (int8_t) value
                             : width == 2? (int16_t) value
                             : width == 4? (int32_t) value
                             : (int64_t) value;
        *negative = signed_value < 0;
        *bits = (uint64_t) signed_value;
    }
    else {
        *negative = false;
        *bits = value;
    }
    return true;
}

//  Read an unsigned integer of at most max
static bool
s_read_uint (s_cursor_t *cursor, int field, uint64_t max, uint64_t *value)
{
    bool negative;
    if (!s_read_integer (cursor, &s_errors [field], &negative, value))
        return false;
    if (negative || *value > max)
        return s_fail (cursor, s_errors [field].range);
    return true;
}

//  Read a uint64 field
static bool
s_read_u64 (s_cursor_t *cursor, int field, uint64_t *value)
{
    return s_read_uint (cursor, field, UINT64_MAX, value);
}

//  Read a uint32 field
static bool
s_read_u32 (s_cursor_t *cursor, int field, uint32_t *value)
{
    uint64_t wide;
    if (!s_read_uint (cursor, field, UINT32_MAX, &wide))
        return false;
    *value = (uint32_t) wide;
    return true;
}

//  Read a uint8 field (an enum) of at most max
static bool
s_read_u8 (s_cursor_t *cursor, int field, uint8_t max, uint8_t *value)
{
    uint64_t wide;
    if (!s_read_uint (cursor, field, max, &wide))
        return false;
    *value = (uint8_t) wide;
    return true;
}

//  Read a signed 32-bit integer
static bool
s_read_i32 (s_cursor_t *cursor, int field, int32_t *value)
{
    bool negative;
    uint64_t bits;
    if (!s_read_integer (cursor, &s_errors [field], &negative, &bits))
        return false;
    if (negative? (int64_t) bits < INT32_MIN: bits > INT32_MAX)
        return s_fail (cursor, s_errors [field].range);
    *value = (int32_t) (int64_t) bits;
    return true;
}

//  Read a float: float 32, float 64 or any integer; finite and >= 0
static bool
s_read_float (s_cursor_t *cursor, int field, double *value)
{
    if (cursor->ptr >= cursor->end)
        return s_fail (cursor, S_TRUNCATED);
    byte marker = *cursor->ptr;
    if (marker == 0xca || marker == 0xcb) {
        cursor->ptr++;
        uint64_t bits;
        if (!s_read_be (cursor, marker == 0xca? 4: 8, &bits))
            return false;
        if (marker == 0xca) {
            uint32_t narrow = (uint32_t) bits;
            float single;
            memcpy (&single, &narrow, sizeof single);
            *value = single;
        }
        else
            memcpy (value, &bits, sizeof *value);
    }
    else {
        bool negative;
        uint64_t bits;
        if (!s_read_integer (cursor, &s_errors [field], &negative, &bits))
            return false;
        *value = negative? (double) (int64_t) bits: (double) bits;
    }
    if (!isfinite (*value) || *value < 0)
        return s_fail (cursor, s_errors [field].range);
    return true;
}

//  Read a str header and body of min..max bytes without a NUL; the body
//  is returned in place (not terminated)
static bool
s_read_str (s_cursor_t *cursor, int field, size_t min, size_t max,
            const char **text, size_t *length)
{
    if (cursor->ptr >= cursor->end)
        return s_fail (cursor, S_TRUNCATED);
    byte marker = *cursor->ptr++;
    uint64_t size;
    if (marker >= 0xa0 && marker <= 0xbf)
        size = marker & 0x1f;
    else
    if (marker >= 0xd9 && marker <= 0xdb) {
        if (!s_read_be (cursor, 1 << (marker - 0xd9), &size))
            return false;
    }
    else
        return s_fail (cursor, s_errors [field].type);
    if (size > s_left (cursor))
        return s_fail (cursor, S_TRUNCATED);
    if (size < min || size > max)
        return s_fail (cursor, s_errors [field].range);
    if (memchr (cursor->ptr, 0, size))
        return s_fail (cursor, s_errors [field].nul);
    *text = (const char *) cursor->ptr;
    *length = size;
    cursor->ptr += size;
    return true;
}

//  Read a bin of at most max bytes, returned in place
static bool
s_read_bin (s_cursor_t *cursor, int field, size_t max, const byte **data, size_t *size_p)
{
    if (cursor->ptr >= cursor->end)
        return s_fail (cursor, S_TRUNCATED);
    byte marker = *cursor->ptr++;
    uint64_t size;
    if (marker < 0xc4 || marker > 0xc6)
        return s_fail (cursor, s_errors [field].type);
    if (!s_read_be (cursor, 1 << (marker - 0xc4), &size))
        return false;
    if (size > s_left (cursor))
        return s_fail (cursor, S_TRUNCATED);
    if (size > max)
        return s_fail (cursor, s_errors [field].range);
    *data = cursor->ptr;
    *size_p = size;
    cursor->ptr += size;
    return true;
}

//  Read an array header of min..max elements, each at least each bytes
//  long on the wire: a count the bytes left cannot hold is refused here,
//  before anything is allocated for it
static bool
s_read_array (s_cursor_t *cursor, int field, size_t min, size_t max, size_t each,
              uint32_t *count)
{
    if (cursor->ptr >= cursor->end)
        return s_fail (cursor, S_TRUNCATED);
    byte marker = *cursor->ptr++;
    uint64_t size;
    if (marker >= 0x90 && marker <= 0x9f)
        size = marker & 0x0f;
    else
    if (marker == 0xdc || marker == 0xdd) {
        if (!s_read_be (cursor, marker == 0xdc? 2: 4, &size))
            return false;
    }
    else
        return s_fail (cursor, s_errors [field].type);
    if (size > s_left (cursor) / each)
        return s_fail (cursor, S_TRUNCATED);
    if (size < min || size > max)
        return s_fail (cursor, s_errors [field].range);
    *count = (uint32_t) size;
    return true;
}

//  Read a map header; every pair takes at least two bytes
static bool
s_read_map (s_cursor_t *cursor, int field, uint32_t *count)
{
    if (cursor->ptr >= cursor->end)
        return s_fail (cursor, S_TRUNCATED);
    byte marker = *cursor->ptr++;
    uint64_t size;
    if (marker >= 0x80 && marker <= 0x8f)
        size = marker & 0x0f;
    else
    if (marker == 0xde || marker == 0xdf) {
        if (!s_read_be (cursor, marker == 0xde? 2: 4, &size))
            return false;
    }
    else
        return s_fail (cursor, s_errors [field].type);
    if (size > s_left (cursor) / 2)
        return s_fail (cursor, S_TRUNCATED);
    *count = (uint32_t) size;
    return true;
}

//  Consume a nil if one is next
static bool
s_read_nil (s_cursor_t *cursor)
{
    if (cursor->ptr < cursor->end && *cursor->ptr == 0xc0) {
        cursor->ptr++;
        return true;
    }
    return false;
}

//  Check that the cursor holds one well-formed msgpack value nested at
//  most depth_max deep, every length and count within the bytes that
//  remain, no ext types; leaves the cursor after it. Reads no value,
//  allocates nothing, and takes time linear in the bytes (every element
//  consumes at least one byte).
static bool
s_walk (s_cursor_t *cursor, int depth_max)
{
    assert (depth_max >= 1 && depth_max <= DROVER_DEPTH_MAX);
    uint64_t pending [DROVER_DEPTH_MAX + 1];   //  elements left to read per level
    int level = 0;
    pending [0] = 1;
    while (true) {
        if (pending [level] == 0) {
            if (level == 0)
                return true;
            level--;
            continue;
        }
        pending [level]--;
        if (cursor->ptr >= cursor->end)
            return s_fail (cursor, S_TRUNCATED);
        byte marker = *cursor->ptr++;
        uint64_t skip = 0;              //  payload bytes of a scalar
        uint64_t items = 0;             //  elements of a container
        bool container = false;
        if (marker <= 0x7f || marker >= 0xe0 || marker == 0xc0 || marker == 0xc2 || marker == 0xc3)
            ;                           //  the marker is the whole value
        else
        if (marker <= 0x8f) {
            container = true;
            items = 2 * (marker & 0x0f);
        }
        else
        if (marker <= 0x9f) {
            container = true;
            items = marker & 0x0f;
        }
        else
        if (marker <= 0xbf)
            skip = marker & 0x1f;
        else {
            bool ok = true;
            switch (marker) {
                case 0xc4: case 0xd9: ok = s_read_be (cursor, 1, &skip); break;
                case 0xc5: case 0xda: ok = s_read_be (cursor, 2, &skip); break;
                case 0xc6: case 0xdb: ok = s_read_be (cursor, 4, &skip); break;
                case 0xca: skip = 4; break;
                case 0xcb: skip = 8; break;
                case 0xcc: case 0xd0: skip = 1; break;
                case 0xcd: case 0xd1: skip = 2; break;
                case 0xce: case 0xd2: skip = 4; break;
                case 0xcf: case 0xd3: skip = 8; break;
                case 0xdc: container = true; ok = s_read_be (cursor, 2, &items); break;
                case 0xdd: container = true; ok = s_read_be (cursor, 4, &items); break;
                case 0xde: container = true; ok = s_read_be (cursor, 2, &items); items *= 2; break;
                case 0xdf: container = true; ok = s_read_be (cursor, 4, &items); items *= 2; break;
                default:
                    return s_fail (cursor, S_BAD_BYTE);
            }
            if (!ok)
                return false;
        }
        if (container) {
            if (level + 1 > depth_max)
                return s_fail (cursor, S_TOO_DEEP);
            if (items > s_left (cursor))
                return s_fail (cursor, S_TRUNCATED);
            pending [++level] = items;
        }
        else {
            if (skip > s_left (cursor))
                return s_fail (cursor, S_TRUNCATED);
            cursor->ptr += skip;
        }
    }
}


//  ---------------------------------------------------------------------
//  Decoding the fields of a message

//  Read a worker id into a fixed array; empty allowed if optional
static bool
s_read_id (s_cursor_t *cursor, int field, bool optional, char *id)
{
    const char *text;
    size_t length;
    if (!s_read_str (cursor, field, optional? 0: 1, DROVER_ID_MAX, &text, &length))
        return false;
    if (length && !s_id_valid (text, length))
        return s_fail (cursor, s_errors [field].invalid);
    memcpy (id, text, length);
    id [length] = 0;
    return true;
}

//  Read a string of at most max bytes into a new copy; "" gives NULL
static bool
s_read_text (s_cursor_t *cursor, int field, size_t max, char **text_p)
{
    const char *text;
    size_t length;
    if (!s_read_str (cursor, field, 0, max, &text, &length))
        return false;
    *text_p = length? s_strndup (text, length): NULL;
    return true;
}

//  Read a bin of at most max bytes into a new copy; empty gives NULL
static bool
s_read_bytes (s_cursor_t *cursor, int field, size_t max, byte **data_p, size_t *size_p)
{
    const byte *data;
    size_t size;
    if (!s_read_bin (cursor, field, max, &data, &size))
        return false;
    *data_p = s_memdup (data, size);
    *size_p = size;
    return true;
}

//  Read a labels array into labels [] (empty on entry), counting as it goes
static bool
s_read_labels (s_cursor_t *cursor, char **labels, uint32_t *nlabels)
{
    uint32_t count;
    if (!s_read_array (cursor, F_LABELS, 0, DROVER_LABELS_MAX, S_LABEL_MIN, &count))
        return false;
    for (uint32_t index = 0; index < count; index++) {
        const char *text;
        size_t length;
        if (!s_read_str (cursor, F_LABELS, 3, DROVER_LABEL_MAX, &text, &length))
            return false;
        if (!s_label_valid (text, length))
            return s_fail (cursor, s_errors [F_LABELS].invalid);
        labels [index] = s_strndup (text, length);
        *nlabels = index + 1;
    }
    return true;
}

//  Read the 8-element stats record
static bool
s_read_stats (s_cursor_t *cursor, drover_stats_t *stats)
{
    uint32_t count;
    if (!s_read_array (cursor, F_STATS, 8, 8, 1, &count))
        return false;
    return s_read_float (cursor, F_STATS, &stats->load [0])
        && s_read_float (cursor, F_STATS, &stats->load [1])
        && s_read_float (cursor, F_STATS, &stats->load [2])
        && s_read_u64 (cursor, F_STATS, &stats->mem_used)
        && s_read_u64 (cursor, F_STATS, &stats->mem_total)
        && s_read_u64 (cursor, F_STATS, &stats->disk_used)
        && s_read_u64 (cursor, F_STATS, &stats->disk_total)
        && s_read_u32 (cursor, F_STATS, &stats->running);
}

//  Read the running attempts of a HELLO
static bool
s_read_running (s_cursor_t *cursor, drover_msg_t *self)
{
    uint32_t count, pair;
    if (!s_read_array (cursor, F_RUNNING, 0, DROVER_RUNNING_MAX, S_TASKREF_MIN, &count))
        return false;
    if (count == 0)
        return true;
    self->running = (drover_taskref_t *) s_malloc (count * sizeof (drover_taskref_t));
    self->nrunning = count;
    for (uint32_t index = 0; index < count; index++)
        if (!s_read_array (cursor, P_RUNNING_ITEM, 2, 2, 1, &pair)
        ||  !s_read_u64 (cursor, F_TASK, &self->running [index].task)
        ||  !s_read_u32 (cursor, F_ATTEMPT, &self->running [index].attempt))
            return false;
    return true;
}

//  Read the task ids of a WAIT
static bool
s_read_tasks (s_cursor_t *cursor, drover_msg_t *self)
{
    uint32_t count;
    if (!s_read_array (cursor, F_TASKS, 0, DROVER_WAIT_MAX, 1, &count))
        return false;
    if (count == 0)
        return true;
    self->tasks = (uint64_t *) s_malloc (count * sizeof (uint64_t));
    self->ntasks = count;
    for (uint32_t index = 0; index < count; index++)
        if (!s_read_u64 (cursor, F_TASKS, &self->tasks [index]))
            return false;
    return true;
}

//  Read the per-state counts of a TASK TABLE
static bool
s_read_counts (s_cursor_t *cursor, drover_msg_t *self)
{
    uint32_t count;
    if (!s_read_array (cursor, F_COUNTS, DROVER_TASK_STATES, DROVER_TASK_STATES, 1, &count))
        return false;
    for (int index = 0; index < DROVER_TASK_STATES; index++)
        if (!s_read_u64 (cursor, F_COUNTS, &self->counts [index]))
            return false;
    return true;
}

//  Read how a task ended, which must go with its state (read before it)
static bool
s_read_end (s_cursor_t *cursor, int field, uint8_t state, uint8_t *end)
{
    if (!s_read_u8 (cursor, field, DROVER_END_MAX, end))
        return false;
    if (!drover_end_fits (state, *end))
        return s_fail (cursor, s_errors [field].invalid);
    return true;
}

//  Read the rows of a TASK TABLE
static bool
s_read_task_rows (s_cursor_t *cursor, drover_msg_t *self)
{
    uint32_t count, fields;
    if (!s_read_array (cursor, F_TASK_ROWS, 0, DROVER_ROWS_MAX, S_TASK_ROW_MIN, &count))
        return false;
    if (count == 0)
        return true;
    self->task_rows = (drover_task_row_t *) zmalloc (count * sizeof (drover_task_row_t));
    self->nrows = count;
    for (uint32_t index = 0; index < count; index++) {
        drover_task_row_t *row = &self->task_rows [index];
        const char *summary;
        size_t length;
        if (!s_read_array (cursor, P_ROW, 8, 8, 1, &fields)
        ||  !s_read_u64 (cursor, F_TASK, &row->task)
        ||  !s_read_u8 (cursor, P_ROW_STATE, DROVER_TASK_STATES - 1, &row->state)
        ||  !s_read_end (cursor, P_ROW_END, row->state, &row->end)
        ||  !s_read_i32 (cursor, F_PRIORITY, &row->priority)
        ||  !s_read_u32 (cursor, F_PROCS, &row->procs)
        ||  !s_read_u32 (cursor, F_ATTEMPT, &row->attempt)
        ||  !s_read_id (cursor, F_WORKER_OPT, true, row->worker)
        ||  !s_read_str (cursor, P_SUMMARY, 0, DROVER_SUMMARY_MAX, &summary, &length))
            return false;
        row->summary = s_strndup (summary, length);     //  never NULL, for printing
    }
    return true;
}

//  Read the rows of a WORKER TABLE
static bool
s_read_worker_rows (s_cursor_t *cursor, drover_msg_t *self)
{
    uint32_t count, fields;
    if (!s_read_array (cursor, F_WORKER_ROWS, 0, DROVER_ROWS_MAX, S_WORKER_ROW_MIN, &count))
        return false;
    if (count == 0)
        return true;
    self->worker_rows = (drover_worker_row_t *) zmalloc (count * sizeof (drover_worker_row_t));
    self->nrows = count;
    for (uint32_t index = 0; index < count; index++) {
        drover_worker_row_t *row = &self->worker_rows [index];
        if (!s_read_array (cursor, P_ROW, 10, 10, 1, &fields)
        ||  !s_read_id (cursor, F_WORKER, false, row->id)
        ||  !s_read_u8 (cursor, P_HEALTH, DROVER_HEALTH_MAX, &row->health)
        ||  !s_read_u8 (cursor, F_ADMIN, DROVER_ADMIN_MAX, &row->admin)
        ||  !s_read_u32 (cursor, F_PROCS, &row->procs)
        ||  !s_read_u32 (cursor, P_PROCS_USED, &row->procs_used)
        ||  !s_read_u64 (cursor, F_MEM, &row->mem)
        ||  !s_read_u64 (cursor, P_MEM_USED, &row->mem_used)
        ||  !s_read_labels (cursor, row->labels, &row->nlabels)
        ||  !s_read_stats (cursor, &row->stats)
        ||  !s_read_u64 (cursor, P_RESERVED, &row->reserved))
            return false;
    }
    return true;
}

//  Read the state of a TASK LIST: a task state or 255 for all
static bool
s_read_list_state (s_cursor_t *cursor, uint8_t *state)
{
    if (!s_read_u8 (cursor, F_LIST_STATE, 255, state))
        return false;
    if (*state >= DROVER_TASK_STATES && *state != 255)
        return s_fail (cursor, s_errors [F_LIST_STATE].range);
    return true;
}

//  Read one field into self
static bool
s_read_field (s_cursor_t *cursor, drover_msg_t *self, int field)
{
    uint64_t code;
    switch (field) {
        case F_WORKER:      return s_read_id (cursor, field, false, self->worker);
        case F_WORKER_OPT:  return s_read_id (cursor, field, true, self->worker);
        case F_EPOCH:       return s_read_u64 (cursor, field, &self->epoch);
        case F_TASK:        return s_read_u64 (cursor, field, &self->task);
        case F_ATTEMPT:     return s_read_u32 (cursor, field, &self->attempt);
        case F_PRIORITY:    return s_read_i32 (cursor, field, &self->priority);
        case F_PROCS:       return s_read_u32 (cursor, field, &self->procs);
        case F_MEM:         return s_read_u64 (cursor, field, &self->mem);
        case F_LABELS:      return s_read_labels (cursor, self->labels, &self->nlabels);
        case F_RUNNING:     return s_read_running (cursor, self);
        case F_STATS:       return s_read_stats (cursor, &self->stats);
        case F_HEARTBEAT:   return s_read_u32 (cursor, field, &self->heartbeat);
        case F_TIMEOUT:     return s_read_u32 (cursor, field, &self->timeout);
        case F_RETRIES:     return s_read_u32 (cursor, field, &self->retries);
        case F_FLAGS:       return s_read_u32 (cursor, field, &self->flags);
        case F_BODY:        return s_read_bytes (cursor, field, DROVER_BODY_MAX,
                                                 &self->body, &self->body_size);
        case F_OUTCOME:     return s_read_u8 (cursor, field, DROVER_OUTCOME_MAX, &self->outcome);
        case F_STATE:       return s_read_u8 (cursor, field, DROVER_TASK_STATES - 1, &self->state);
        case F_TASK_END:    return s_read_end (cursor, field, self->state, &self->end);
        case F_LIST_STATE:  return s_read_list_state (cursor, &self->state);
        case F_ADMIN:       return s_read_u8 (cursor, field, DROVER_ADMIN_MAX, &self->admin);
        case F_EXIT_CODE:   return s_read_i32 (cursor, field, &self->exit_code);
        case F_SIGNAL:      return s_read_i32 (cursor, field, &self->signal);
        case F_TRUNCATED:   return s_read_u32 (cursor, field, &self->truncated);
        case F_DURATION:    return s_read_u32 (cursor, field, &self->duration);
        case F_OUT:         return s_read_bytes (cursor, field, DROVER_OUTPUT_MAX,
                                                 &self->out, &self->out_size);
        case F_ERR:         return s_read_bytes (cursor, field, DROVER_OUTPUT_MAX,
                                                 &self->err, &self->err_size);
        case F_REASON:      return s_read_text (cursor, field, DROVER_REASON_MAX, &self->reason);
        case F_CODE:
            if (!s_read_uint (cursor, field, UINT16_MAX, &code))
                return false;
            self->code = (uint16_t) code;
            return true;
        case F_LIMIT:       return s_read_u32 (cursor, field, &self->limit);
        case F_TASKS:       return s_read_tasks (cursor, self);
        case F_COUNTS:      return s_read_counts (cursor, self);
        case F_TASK_ROWS:   return s_read_task_rows (cursor, self);
        case F_WORKER_ROWS: return s_read_worker_rows (cursor, self);
    }
    return s_fail (cursor, "internal: unknown field");
}

//  Read the header: array, signature, version, id and seq, setting what
//  it can in self even when the message is refused (the broker echoes the
//  seq of a refused request). Returns the array's element count, or -1.
static int64_t
s_read_header (s_cursor_t *cursor, drover_msg_t *self)
{
    uint32_t count;
    const char *signature;
    size_t length;
    uint64_t version, id;
    bool negative;
    if (!s_read_array (cursor, P_HEADER, 0, UINT32_MAX, 1, &count))
        return -1;
    if (count < 1
    ||  !s_read_str (cursor, P_SIGNATURE, 0, 255, &signature, &length)
    ||  length != 3 || memcmp (signature, DROVER_MSG_SIGNATURE, 3)) {
        cursor->error = s_errors [P_SIGNATURE].invalid;
        return -1;
    }
    if (count < 2) {
        cursor->error = "message: header incomplete";
        return -1;
    }
    if (!s_read_integer (cursor, &s_errors [P_VERSION], &negative, &version))
        return -1;              //  not even an integer: malformed, not a version
    bool known = !negative && version == DROVER_MSG_VERSION;
    if (count >= 4
    &&  s_read_uint (cursor, P_ID, UINT32_MAX, &id)
    &&  s_read_u32 (cursor, P_SEQ, &self->seq))
        self->id = id >= 1 && id <= DROVER_MSG_ID_MAX? (int) id: 0;
    if (!known) {
        self->bad_version = true;
        cursor->error = "unknown version";
        return -1;
    }
    if (count < 4) {
        cursor->error = "message: header incomplete";
        return -1;
    }
    if (cursor->error)
        return -1;              //  id or seq had the wrong type
    if (self->id == 0) {
        cursor->error = s_errors [P_ID].invalid;
        return -1;
    }
    return count;
}


//  ---------------------------------------------------------------------
//  Message lifecycle

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
        drover_msg_reset (*self_p);
        free (*self_p);
        *self_p = NULL;
    }
}

//  Free what the message owns and zero it, keeping nothing; ready for decode
void
drover_msg_reset (drover_msg_t *self)
{
    assert (self);
    for (int index = 0; index < DROVER_LABELS_MAX; index++)
        free (self->labels [index]);
    free (self->body);
    free (self->running);
    free (self->out);
    free (self->err);
    free (self->reason);
    free (self->tasks);
    if (self->task_rows) {
        for (uint32_t index = 0; index < self->nrows; index++)
            free (self->task_rows [index].summary);
        free (self->task_rows);
    }
    if (self->worker_rows) {
        for (uint32_t index = 0; index < self->nrows; index++)
            for (int label = 0; label < DROVER_LABELS_MAX; label++)
                free (self->worker_rows [index].labels [label]);
        free (self->worker_rows);
    }
    memset (self, 0, sizeof (drover_msg_t));
}

//  Encode a message into a new frame; NULL if a field breaks a limit
zframe_t *
drover_msg_encode (drover_msg_t *self)
{
    assert (self);
    size_t size = s_msg_measure (self);
    if (size == 0)
        return NULL;            //  a field breaks a limit, or no such id
    zframe_t *frame = zframe_new (NULL, size);
    assert (frame);
    s_msg_write (self, zframe_data (frame), size);
    return frame;
}

//  Decode bytes into self (reset first). Returns 0, or -2 if malformed,
//  with self->error saying why. On failure self holds nothing but id and
//  seq (when they could be read), error and bad_version.
int
drover_msg_decode (drover_msg_t *self, const byte *data, size_t size)
{
    assert (self);
    drover_msg_reset (self);
    s_cursor_t cursor = { data, data? data + size: data, NULL };
    if (!data || size == 0)
        s_fail (&cursor, "empty message");
    else
    if (size > DROVER_MSG_MAX)
        s_fail (&cursor, "message too large");
    else {
        int64_t count = s_read_header (&cursor, self);
        if (count >= 0) {
            //  Structure first: nothing is allocated from bytes that lie
            s_cursor_t walker = { data, data + size, NULL };
            if (!s_walk (&walker, DROVER_DEPTH_MAX))
                s_fail (&cursor, walker.error);
            else
            if (walker.ptr != walker.end)
                s_fail (&cursor, S_TRAILING);
            else
            if ((size_t) count != 4 + s_nfields (self->id))
                s_fail (&cursor, "message: wrong number of fields");
            else {
                const uint8_t *fields = s_schema [self->id];
                for (size_t index = 0; fields [index] != F_END; index++)
                    if (!s_read_field (&cursor, self, fields [index]))
                        break;
            }
        }
    }
    if (!cursor.error)
        return 0;
    int id = self->id;
    uint32_t seq = self->seq;
    bool bad_version = self->bad_version;
    drover_msg_reset (self);
    self->id = id;
    self->seq = seq;
    self->bad_version = bad_version;
    self->error = cursor.error;
    return -2;
}

//  Read only the header of an encoded message: returns its id (0 if
//  unknown or unreadable) and sets *seq_p (0 if unreadable). The header's
//  layout is the same in every version (PROTOCOL.md §4), so any version
//  is read; what follows the seq is not looked at.
int
drover_msg_peek (const byte *data, size_t size, uint32_t *seq_p)
{
    assert (seq_p);
    drover_msg_t header = { 0 };
    s_cursor_t cursor = { data, data? data + size: data, NULL };
    s_read_header (&cursor, &header);
    *seq_p = header.seq;
    return header.id;
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
    bool more = several;
    while (more) {              //  read the rest of the message and drop it
        zmq_msg_t extra;
        zmq_msg_init (&extra);
        more = zmq_msg_recv (&extra, handle, 0) != -1 && zmq_msg_more (&extra);
        zmq_msg_close (&extra);
    }
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
    size_t size = s_msg_measure (self);
    if (size == 0)
        return -1;
    zmq_msg_t frame;
    if (zmq_msg_init_size (&frame, size))
        return -1;
    s_msg_write (self, (byte *) zmq_msg_data (&frame), size);
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
    self->reason = s_strndup (reason, length);
}

//  Set the body bytes (copied)
void
drover_msg_set_body (drover_msg_t *self, const byte *body, size_t size)
{
    assert (self);
    byte *copy = s_memdup (body, size);
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
    byte *out_copy = s_memdup (out, out_size);
    byte *err_copy = s_memdup (err, err_size);
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
        "OK", "ERROR"
    };
    return id >= 1 && id <= DROVER_MSG_ID_MAX? names [id]: "INVALID";
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
drover_health_name (int health)
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

//  Return the printable name of an attempt's outcome
const char *
drover_outcome_name (int outcome)
{
    static const char *names [DROVER_OUTCOME_MAX + 1] = {
        "EXITED", "SIGNALLED", "TIMEDOUT", "CANCELLED", "SPAWN_FAILED", "MACHINE_FAILED"
    };
    return outcome >= 0 && outcome <= DROVER_OUTCOME_MAX? names [outcome]: "INVALID";
}

//  Return the printable name of how a task ended
const char *
drover_end_name (int end)
{
    static const char *names [DROVER_END_MAX + 1] = {
        "NONE", "SUCCEEDED", "FAILED", "TIMED_OUT", "CANCELLED", "SPAWN_FAILED", "LOST",
        "POISON", "EXPIRED", "UNKNOWN"
    };
    return end >= 0 && end <= DROVER_END_MAX? names [end]: "INVALID";
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
        case DROVER_TASK_CANCELLED: return end == DROVER_END_CANCELLED;
        case DROVER_TASK_FAILED:    return end == DROVER_END_FAILED || end == DROVER_END_TIMED_OUT
                                        || end == DROVER_END_SPAWN_FAILED || end == DROVER_END_LOST
                                        || end == DROVER_END_POISON;
        case DROVER_TASK_UNKNOWN:   return end == DROVER_END_EXPIRED || end == DROVER_END_UNKNOWN;
    }
    return false;
}

//  Check that a worker id is printable ASCII without spaces, 1..64 bytes
bool
drover_id_valid (const char *id)
{
    return id && s_id_valid (id, strnlen (id, DROVER_ID_MAX + 1));
}

//  Check that a label is "key=value": key [A-Za-z0-9_.-]{1,63}, value printable
bool
drover_label_valid (const char *label)
{
    return label && s_label_valid (label, strnlen (label, DROVER_LABEL_MAX + 1));
}


//  ---------------------------------------------------------------------
//  The exec body: [argv, env, cwd, input]

//  Create an empty exec body; never returns NULL
drover_exec_t *
drover_exec_new (void)
{
    return (drover_exec_t *) zmalloc (sizeof (drover_exec_t));
}

//  Free what an exec body owns and zero it
static void
s_exec_empty (drover_exec_t *self)
{
    for (uint32_t index = 0; self->argv && self->argv [index]; index++)
        free (self->argv [index]);
    for (uint32_t index = 0; self->env && self->env [index]; index++)
        free (self->env [index]);
    free (self->argv);
    free (self->env);
    free (self->cwd);
    free (self->input);
    memset (self, 0, sizeof (drover_exec_t));
}

//  Destroy an exec body; harmless on NULL
void
drover_exec_destroy (drover_exec_t **self_p)
{
    assert (self_p);
    if (*self_p) {
        s_exec_empty (*self_p);
        free (*self_p);
        *self_p = NULL;
    }
}

//  Set argv (copied); argc >= 1. Returns 0, or -1 past DROVER_ARGV_MAX or
//  DROVER_STRING_MAX (argv is then unchanged).
int
drover_exec_set_argv (drover_exec_t *self, int argc, const char **argv)
{
    assert (self);
    if (argc < 1 || argc > DROVER_ARGV_MAX || !argv)
        return -1;
    for (int index = 0; index < argc; index++)
        if (!argv [index] || strnlen (argv [index], DROVER_STRING_MAX + 1) > DROVER_STRING_MAX)
            return -1;
    char **copy = (char **) s_malloc ((argc + 1) * sizeof (char *));
    for (int index = 0; index < argc; index++)
        copy [index] = s_strndup (argv [index], strlen (argv [index]));
    copy [argc] = NULL;
    for (uint32_t index = 0; self->argv && self->argv [index]; index++)
        free (self->argv [index]);
    free (self->argv);
    self->argv = copy;
    self->argc = (uint32_t) argc;
    return 0;
}

//  Slots the env array has room for with nenv entries (plus its NULL):
//  powers of two, so adding n entries costs O(n) in all
static size_t
s_env_capacity (uint32_t nenv)
{
    size_t capacity = 4;
    while (capacity < (size_t) nenv + 1)
        capacity *= 2;
    return capacity;
}

//  Add one "NAME=value" environment entry (copied). Returns 0 or -1.
int
drover_exec_add_env (drover_exec_t *self, const char *entry)
{
    assert (self);
    if (!entry || self->nenv >= DROVER_ENV_MAX)
        return -1;
    size_t length = strnlen (entry, DROVER_STRING_MAX + 1);
    if (length > DROVER_STRING_MAX || !s_env_valid (entry, length))
        return -1;
    if (!self->env || self->nenv + 2 > s_env_capacity (self->nenv)) {
        size_t capacity = s_env_capacity (self->nenv + 1);
        char **env = (char **) realloc (self->env, capacity * sizeof (char *));
        assert (env);
        self->env = env;
    }
    self->env [self->nenv++] = s_strndup (entry, length);
    self->env [self->nenv] = NULL;
    return 0;
}

//  Set the working directory (copied, NULL clears)
void
drover_exec_set_cwd (drover_exec_t *self, const char *cwd)
{
    assert (self);
    char *copy = cwd? strdup (cwd): NULL;
    free (self->cwd);
    self->cwd = copy;
}

//  Set the stdin bytes (copied, NULL clears)
void
drover_exec_set_input (drover_exec_t *self, const byte *input, size_t size)
{
    assert (self);
    byte *copy = s_memdup (input, size);
    free (self->input);
    self->input = copy;
    self->input_size = copy? size: 0;
}

//  Pack an exec body; -1 if a limit is broken
static int
s_exec_pack (msgpack_packer *pk, const drover_exec_t *self)
{
    if (self->argc < 1 || self->argc > DROVER_ARGV_MAX || !self->argv
    ||  self->nenv > DROVER_ENV_MAX || (self->nenv && !self->env)
    ||  self->input_size > DROVER_INPUT_MAX || (self->input_size && !self->input))
        return -1;
    msgpack_pack_array (pk, 4);
    msgpack_pack_array (pk, self->argc);
    for (uint32_t index = 0; index < self->argc; index++)
        if (!self->argv [index] || s_pack_text (pk, self->argv [index], DROVER_STRING_MAX))
            return -1;
    msgpack_pack_array (pk, self->nenv);
    for (uint32_t index = 0; index < self->nenv; index++) {
        const char *entry = self->env [index];
        size_t length = entry? strnlen (entry, DROVER_STRING_MAX + 1): 0;
        if (!entry || length > DROVER_STRING_MAX || !s_env_valid (entry, length))
            return -1;
        s_pack_str (pk, entry, length);
    }
    if (self->cwd && *self->cwd) {
        if (s_pack_text (pk, self->cwd, DROVER_STRING_MAX))
            return -1;
    }
    else
        msgpack_pack_nil (pk);
    if (self->input && self->input_size)
        s_pack_bin (pk, self->input, self->input_size);
    else
        msgpack_pack_nil (pk);
    return 0;
}

//  Encode into a fresh buffer the caller frees; NULL if a limit is broken
byte *
drover_exec_encode (drover_exec_t *self, size_t *size_p)
{
    assert (self);
    assert (size_p);
    s_writer_t counter = { NULL, 0, 0, false };
    msgpack_packer packer;
    msgpack_packer_init (&packer, &counter, s_writer_write);
    if (s_exec_pack (&packer, self) || counter.size > DROVER_BODY_MAX)
        return NULL;
    byte *data = (byte *) s_malloc (counter.size);
    s_writer_t writer = { data, 0, counter.size, false };
    msgpack_packer_init (&packer, &writer, s_writer_write);
    int rc = s_exec_pack (&packer, self);
    assert (rc == 0 && !writer.overflow && writer.size == counter.size);
    (void) rc;
    *size_p = counter.size;
    return data;
}

//  Read a string array (argv or env) into a new NULL-terminated array, or
//  only check it if strings_p is NULL
static bool
s_exec_read_strings (s_cursor_t *cursor, int field, size_t min, size_t max,
                     char ***strings_p, uint32_t *count_p)
{
    uint32_t count;
    if (!s_read_array (cursor, field, min, max, field == P_ENV? S_ENV_MIN: 1, &count))
        return false;
    char **strings = NULL;
    if (strings_p) {
        //  Sized as add_env grows it, so that entries can be added later
        strings = (char **) zmalloc (s_env_capacity (count) * sizeof (char *));
        *strings_p = strings;   //  owned by the exec from here, even if we fail
    }
    for (uint32_t index = 0; index < count; index++) {
        const char *text;
        size_t length;
        if (!s_read_str (cursor, field, 0, DROVER_STRING_MAX, &text, &length))
            return false;
        if (field == P_ENV && !s_env_valid (text, length))
            return s_fail (cursor, s_errors [field].invalid);
        if (strings)
            strings [index] = s_strndup (text, length);
        if (count_p)
            *count_p = index + 1;
    }
    return true;
}

//  Parse an exec body into self (empty on entry), or only check it if self
//  is NULL. Returns NULL or what was wrong.
static const char *
s_exec_parse (drover_exec_t *self, const byte *data, size_t size)
{
    s_cursor_t cursor = { data, data? data + size: data, NULL };
    if (!data || size == 0)
        return "exec body: empty";
    if (size > DROVER_BODY_MAX)
        return "exec body: too large";
    if (!s_walk (&cursor, 2))
        return cursor.error;
    if (cursor.ptr != cursor.end)
        return S_TRAILING;
    cursor.ptr = data;
    uint32_t count;
    const char *cwd;
    size_t cwd_length;
    const byte *input;
    size_t input_size;
    if (!s_read_array (&cursor, P_BODY, 4, 4, 1, &count)
    ||  !s_exec_read_strings (&cursor, P_ARGV, 1, DROVER_ARGV_MAX,
                              self? &self->argv: NULL, self? &self->argc: NULL)
    ||  !s_exec_read_strings (&cursor, P_ENV, 0, DROVER_ENV_MAX,
                              self? &self->env: NULL, self? &self->nenv: NULL))
        return cursor.error;
    if (!s_read_nil (&cursor)) {
        if (!s_read_str (&cursor, P_CWD, 1, DROVER_STRING_MAX, &cwd, &cwd_length))
            return cursor.error;
        if (self)
            self->cwd = s_strndup (cwd, cwd_length);
    }
    if (!s_read_nil (&cursor)) {
        if (!s_read_bin (&cursor, P_INPUT, DROVER_INPUT_MAX, &input, &input_size))
            return cursor.error;
        if (self) {
            self->input = s_memdup (input, input_size);
            self->input_size = self->input? input_size: 0;
        }
    }
    return NULL;
}

//  Decode a body into self (emptied first). Returns 0 or -2 with *error_p set.
int
drover_exec_decode (drover_exec_t *self, const byte *data, size_t size,
                    const char **error_p)
{
    assert (self);
    s_exec_empty (self);
    const char *error = s_exec_parse (self, data, size);
    if (error_p)
        *error_p = error;
    if (!error)
        return 0;
    s_exec_empty (self);
    return -2;
}

//  Check a body without keeping it. Returns 0 or -2 with *error_p set.
int
drover_exec_validate (const byte *data, size_t size, const char **error_p)
{
    const char *error = s_exec_parse (NULL, data, size);
    if (error_p)
        *error_p = error;
    return error? -2: 0;
}


//  ---------------------------------------------------------------------
//  Events: a map {time, topic, task, attempt, worker, reason}

//  Encode an event body into a new frame (never NULL). Strings are cut to
//  their limits; the receiver checks the rest.
zframe_t *
drover_event_encode (const drover_event_t *event)
{
    assert (event);
    size_t topic = strnlen (event->topic, sizeof event->topic - 1);
    size_t worker = strnlen (event->worker, DROVER_ID_MAX);
    size_t reason = strnlen (event->reason, DROVER_REASON_MAX);
    //  At most: map, 6 keys of < 8 bytes, 3 integers of 9, 3 strings
    byte buffer [1 + 6 * 8 + 3 * 9 + 3 * 3 + sizeof event->topic + DROVER_ID_MAX
                 + DROVER_REASON_MAX];
    s_writer_t writer = { buffer, 0, sizeof buffer, false };
    msgpack_packer pk;
    msgpack_packer_init (&pk, &writer, s_writer_write);
    msgpack_pack_map (&pk, 6);
    s_pack_str (&pk, "time", 4);
    msgpack_pack_uint64 (&pk, event->time);
    s_pack_str (&pk, "topic", 5);
    s_pack_str (&pk, event->topic, topic);
    s_pack_str (&pk, "task", 4);
    msgpack_pack_uint64 (&pk, event->task);
    s_pack_str (&pk, "attempt", 7);
    msgpack_pack_uint32 (&pk, event->attempt);
    s_pack_str (&pk, "worker", 6);
    s_pack_str (&pk, event->worker, worker);
    s_pack_str (&pk, "reason", 6);
    s_pack_str (&pk, event->reason, reason);
    assert (!writer.overflow);
    return zframe_new (buffer, writer.size);
}

//  Read one known key's value into event
static bool
s_event_read_value (s_cursor_t *cursor, drover_event_t *event, int key)
{
    const char *text;
    size_t length;
    switch (key) {
        case 0: return s_read_u64 (cursor, P_TIME, &event->time);
        case 1:
            if (!s_read_str (cursor, P_TOPIC, 1, sizeof event->topic - 1, &text, &length))
                return false;
            if (!s_topic_valid (text, length))
                return s_fail (cursor, s_errors [P_TOPIC].invalid);
            memcpy (event->topic, text, length);
            event->topic [length] = 0;
            return true;
        case 2: return s_read_u64 (cursor, F_TASK, &event->task);
        case 3: return s_read_u32 (cursor, F_ATTEMPT, &event->attempt);
        case 4: return s_read_id (cursor, F_WORKER_OPT, true, event->worker);
        case 5:
            if (!s_read_str (cursor, F_REASON, 0, DROVER_REASON_MAX, &text, &length))
                return false;
            memcpy (event->reason, text, length);
            event->reason [length] = 0;
            return true;
    }
    return s_fail (cursor, "internal: unknown event key");
}

//  Decode an event body. Returns 0 or -2 if malformed (event then zeroed).
int
drover_event_decode (drover_event_t *event, const byte *data, size_t size)
{
    static const char *keys [] = { "time", "topic", "task", "attempt", "worker", "reason" };
    assert (event);
    memset (event, 0, sizeof *event);
    s_cursor_t cursor = { data, data? data + size: data, NULL };
    uint32_t count;
    unsigned seen = 0;
    if (!data || size == 0 || size > DROVER_MSG_MAX)
        s_fail (&cursor, "event: empty or too large");
    else
    if (s_walk (&cursor, DROVER_DEPTH_MAX) && cursor.ptr != cursor.end)
        s_fail (&cursor, S_TRAILING);
    if (!cursor.error) {
        cursor.ptr = data;
        if (s_read_map (&cursor, P_EVENT, &count))
            for (uint32_t pair = 0; pair < count; pair++) {
                const char *key;
                size_t length;
                if (!s_read_str (&cursor, P_KEY, 0, UINT32_MAX, &key, &length))
                    break;
                int known = -1;
                for (int index = 0; index < 6 && known < 0; index++)
                    if (strlen (keys [index]) == length && memcmp (keys [index], key, length) == 0)
                        known = index;
                if (known < 0) {
                    //  Unknown key: skip its value (its structure was checked)
                    if (!s_walk (&cursor, DROVER_DEPTH_MAX))
                        break;
                    continue;
                }
                if (seen & (1u << known)) {
                    s_fail (&cursor, s_errors [P_KEY].invalid);
                    break;
                }
                seen |= 1u << known;
                if (!s_event_read_value (&cursor, event, known))
                    break;
            }
        if (!cursor.error && !(seen & 2))
            s_fail (&cursor, "event: no topic");
    }
    if (!cursor.error)
        return 0;
    memset (event, 0, sizeof *event);
    return -2;
}

//  Growable text for JSON, bounded by the event's own limits
typedef struct {
    char *data;                     //  text so far, NUL-terminated
    size_t size;                    //  bytes used, without the NUL
    size_t capacity;                //  bytes allocated
} s_text_t;

//  Append length bytes
static void
s_text_append (s_text_t *text, const char *data, size_t length)
{
    if (text->size + length + 1 > text->capacity) {
        while (text->size + length + 1 > text->capacity)
            text->capacity *= 2;
        text->data = (char *) realloc (text->data, text->capacity);
        assert (text->data);
    }
    memcpy (text->data + text->size, data, length);
    text->size += length;
    text->data [text->size] = 0;
}

//  Append a number in decimal. The buffer holds any uint64 (20 digits), so
//  nothing is cut: the text appended is exactly what was formatted.
static void
s_text_append_uint (s_text_t *text, uint64_t value)
{
    char number [24];
    int length = snprintf (number, sizeof number, "%" PRIu64, value);
    assert (length > 0 && (size_t) length < sizeof number);
    s_text_append (text, number, (size_t) length);
}

//  Length of the valid UTF-8 character at data (0 if it is not one)
static size_t
s_utf8_length (const byte *data, size_t left)
{
    byte lead = data [0];
    size_t length;
    uint32_t point;
    if (lead < 0x80)
        return 1;
    if (lead >= 0xc2 && lead <= 0xdf) {
        length = 2;
        point = lead & 0x1f;
    }
    else
    if (lead >= 0xe0 && lead <= 0xef) {
        length = 3;
        point = lead & 0x0f;
    }
    else
    if (lead >= 0xf0 && lead <= 0xf4) {
        length = 4;
        point = lead & 0x07;
    }
    else
        return 0;
    if (length > left)
        return 0;
    for (size_t index = 1; index < length; index++) {
        if ((data [index] & 0xc0) != 0x80)
            return 0;
        point = (point << 6) | (data [index] & 0x3f);
    }
    if ((length == 3 && point < 0x800)              //  overlong
    ||  (length == 4 && point < 0x10000)            //  overlong
    ||  (point >= 0xd800 && point <= 0xdfff)        //  surrogate
    ||  point > 0x10ffff)
        return 0;
    return length;
}

//  Append a JSON string: quotes, escapes, U+FFFD for bytes that are not UTF-8
static void
s_text_append_json (s_text_t *text, const char *string, size_t length)
{
    s_text_append (text, "\"", 1);
    const byte *data = (const byte *) string;
    size_t index = 0;
    while (index < length) {
        byte ch = data [index];
        char escape [8];
        if (ch == '"' || ch == '\\') {
            escape [0] = '\\';
            escape [1] = (char) ch;
            s_text_append (text, escape, 2);
            index++;
        }
        else
        if (ch < 0x20 || ch == 0x7f) {
            const char *named = ch == '\n'? "\\n": ch == '\r'? "\\r": ch == '\t'? "\\t"
                              : ch == '\b'? "\\b": ch == '\f'? "\\f": NULL;
            if (named)
                s_text_append (text, named, 2);
            else {
                snprintf (escape, sizeof escape, "\\u%04x", ch);
                s_text_append (text, escape, 6);
            }
            index++;
        }
        else {
            size_t run = s_utf8_length (data + index, length - index);
            if (run)
                s_text_append (text, string + index, run);
            else
                s_text_append (text, "\\ufffd", 6);
            index += run? run: 1;
        }
    }
    s_text_append (text, "\"", 1);
}

//  Format an event as one JSON line (no newline); caller frees with zstr_free
char *
drover_event_json (const drover_event_t *event)
{
    assert (event);
    s_text_t text = { (char *) s_malloc (256), 0, 256 };
    text.data [0] = 0;
    s_text_append (&text, "{\"time\":", 8);
    s_text_append_uint (&text, event->time);
    s_text_append (&text, ",\"topic\":", 9);
    s_text_append_json (&text, event->topic, strnlen (event->topic, sizeof event->topic));
    s_text_append (&text, ",\"task\":", 8);
    s_text_append_uint (&text, event->task);
    s_text_append (&text, ",\"attempt\":", 11);
    s_text_append_uint (&text, event->attempt);
    s_text_append (&text, ",\"worker\":", 10);
    s_text_append_json (&text, event->worker, strnlen (event->worker, sizeof event->worker));
    s_text_append (&text, ",\"reason\":", 10);
    s_text_append_json (&text, event->reason, strnlen (event->reason, sizeof event->reason));
    s_text_append (&text, "}", 1);
    return text.data;
}
