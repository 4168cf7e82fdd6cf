/*  =========================================================================
    drover_msg_fields - the message table: what each wire message holds, in
    which order, and how each field is packed and read (internal)

    Every message is one msgpack array: "DRV", version, id, seq, then the
    message's fields in the order drover_msg_fields_schema lists them.
    Packing (drover_msg_fields_pack.c) and reading (drover_msg_fields_read.c)
    both walk that one table, so the two cannot disagree on an order; each
    field's limits are checked on the way out (a message past them is not
    encoded) and on the way in (it is refused). This file holds the table
    and the rules both sides apply: which fields may be left out, and what
    a valid state id, submit key and label are. drover_msg.c does the rest
    of the codec: the message's lifecycle, the two packing passes, the
    structure walk before any field is read, and the socket helpers.
    =========================================================================
*/

#include "drover_msg.h"
#include "drover_msg_fields_internal.h"

//  The fields of each message, in wire order, ending with F_END
const uint8_t
drover_msg_fields_schema [DROVER_MSG_ID_MAX + 1][S_FIELDS_MAX + 1] = {
    [DROVER_MSG_WORKER_HELLO]     = { F_WORKER, F_EPOCH, F_PROCS, F_MEM, F_LABELS, F_RUNNING,
                                      F_STATE_ID, F_LEVEL, F_RELEASE },
    [DROVER_MSG_WORKER_HEARTBEAT] = { F_WORKER, F_EPOCH, F_STATS },
    [DROVER_MSG_WORKER_GOODBYE]   = { F_WORKER, F_EPOCH },
    [DROVER_MSG_WORKER_WELCOME]   = { F_HEARTBEAT, F_STATE_ID, F_LEVEL },
    [DROVER_MSG_WORKER_LEAVE]     = { F_END },
    [DROVER_MSG_TASK_OFFER]       = { F_TASK, F_ATTEMPT, F_PRIORITY, F_PROCS, F_MEM, F_TIMEOUT,
                                      F_BODY },
    [DROVER_MSG_TASK_STARTED]     = { F_WORKER, F_TASK, F_ATTEMPT },
    [DROVER_MSG_TASK_RESULT]      = { F_WORKER, F_TASK, F_ATTEMPT, F_OUTCOME, F_EXIT_CODE,
                                      F_SIGNAL, F_TRUNCATED, F_DURATION, F_OUT, F_ERR,
                                      F_REASON },
    [DROVER_MSG_TASK_KILL]        = { F_TASK, F_ATTEMPT },
    [DROVER_MSG_TASK_SUBMIT]      = { F_PRIORITY, F_PROCS, F_MEM, F_LABELS, F_TIMEOUT,
                                      F_RETRIES, F_FLAGS, F_BODY, F_KEY, F_AFFINITY,
                                      F_SUBMIT_SERVICE, F_SUBMIT_SLOT },
    [DROVER_MSG_TASK_ACCEPTED]    = { F_TASK, F_STATE_ID },
    [DROVER_MSG_TASK_WAIT]        = { F_TASKS, F_STATE_ID },
    [DROVER_MSG_TASK_DONE]        = { F_TASK, F_STATE, F_TASK_END, F_ATTEMPT, F_WORKER_OPT,
                                      F_EXIT_CODE, F_SIGNAL, F_TRUNCATED, F_DURATION, F_OUT,
                                      F_ERR, F_REASON },
    [DROVER_MSG_TASK_CANCEL]      = { F_TASK },
    [DROVER_MSG_TASK_LIST]        = { F_LIMIT, F_LIST_STATE, F_LIST_LABELS },
    [DROVER_MSG_TASK_TABLE]       = { F_COUNTS, F_TASK_ROWS },
    [DROVER_MSG_WORKER_LIST]      = { F_END },
    [DROVER_MSG_WORKER_TABLE]     = { F_WORKER_ROWS },
    [DROVER_MSG_WORKER_ADMIN]     = { F_WORKER, F_ADMIN, F_ADMIN_REASON, F_ADMIN_FLAGS },
    [DROVER_MSG_OK]               = { F_CODE, F_REASON },
    [DROVER_MSG_ERROR]            = { F_CODE, F_REASON },
    [DROVER_MSG_EVENT_REPLAY]     = { F_SINCE, F_LIMIT },
    [DROVER_MSG_EVENT_LIST]       = { F_EVENTS, F_LAST, F_MORE },
    [DROVER_MSG_TASK_SHOW]        = { F_TASK },
    [DROVER_MSG_TASK_INFO]        = { F_TASK, F_INFO },
    [DROVER_MSG_TASK_EXPLAIN]     = { F_TASK },
    [DROVER_MSG_TASK_EXPLANATION] = { F_TASK, F_STATE, F_ATTEMPT, F_WORKER_OPT, F_WHYS },
    [DROVER_MSG_POOL_LIST]        = { F_END },
    [DROVER_MSG_POOL_TABLE]       = { F_POOL_SUMMARY, F_POOL_ROWS },
    [DROVER_MSG_POOL_ADMIN]       = { F_POOL_ACTION, F_INSTANCE },
    [DROVER_MSG_WORKER_GATHER]    = { F_END },
    [DROVER_MSG_WORKER_RUNS]      = { F_WORKER, F_RUNNING },
    [DROVER_MSG_SERVICE_ADMIN]    = { F_SERVICE_ACTION, F_SERVICE, F_REPLICA_COUNT, F_PROCS,
                                      F_MEM, F_LABELS, F_DELAY, F_BODY },
    [DROVER_MSG_SERVICE_LIST]     = { F_SERVICE_OPT },
    [DROVER_MSG_SERVICE_TABLE]    = { F_SERVICE_STATS, F_SERVICE_ROWS, F_REPLICA_ROWS },
    [DROVER_MSG_PLAN]             = { F_PLAN_ACTION, F_TARGET, F_PLAN_COUNT },
    [DROVER_MSG_PLAN_RESULT]      = { F_SERVICE_STATS, F_STATS_AFTER, F_CHANGES },
    [DROVER_MSG_REDIRECT]         = { F_LEADER, F_LEADER_NAME },
    [DROVER_MSG_QUEUES]           = { F_END },
    [DROVER_MSG_QUEUE_TABLE]      = { F_STRATEGY, F_QUEUE_ROWS },
    [DROVER_MSG_CLIENT_HELLO]     = { F_LEVEL, F_RELEASE },
    [DROVER_MSG_CLIENT_WELCOME]   = { F_LEVEL, F_RELEASE, F_LEADER_NAME },
};

//  Return how many fields a message id has, its optional last one included
size_t
drover_msg_fields_nfields (int id)
{
    size_t count = 0;
    while (count < S_FIELDS_MAX && drover_msg_fields_schema [id][count] != F_END)
        count++;
    return count;
}

//  True for a field that may be left out: always at a message's end, sent
//  only when it (or a field after it) has a value, so that peers older than
//  it still understand the message, and it still decodes when they leave it
//  out
bool
drover_msg_fields_optional (int field)
{
    return field == F_STATE_ID || field == F_KEY || field == F_LIST_LABELS
        || field == F_ADMIN_REASON || field == F_ADMIN_FLAGS || field == F_AFFINITY
        || field == F_SUBMIT_SERVICE || field == F_SUBMIT_SLOT
        || field == F_LEVEL || field == F_RELEASE;
}

//  Return the protocol level that brought a field into the messages of
//  level 1 that have it: what a peer of level 1 (PROTOCOL.md as of
//  2026-11-23) neither sends nor takes. The messages of later levels
//  (drover_msg_id_level) came whole with theirs.
int
drover_msg_fields_since (int field)
{
    switch (field) {
        case F_STATE_ID:        //  HELLO, WELCOME, ACCEPTED, WAIT
        case F_TASK_END:        //  TASK DONE: how the task ended, before attempt
        case F_KEY:             //  SUBMIT
        case F_AFFINITY:
        case F_SUBMIT_SERVICE:
        case F_SUBMIT_SLOT:
        case F_LIST_LABELS:     //  TASK LIST
        case F_ADMIN_REASON:    //  WORKER ADMIN
        case F_ADMIN_FLAGS:
        case F_LEVEL:           //  HELLO, WELCOME
        case F_RELEASE:
            return 2;
    }
    return 1;
}

//  Write the fields a peer of level knows of message id, in wire order,
//  into fields [S_FIELDS_MAX]; returns how many
size_t
drover_msg_fields_at (int id, int level, uint8_t *fields)
{
    //  Every message and every field is of this codec's level or older:
    //  the whole row, as it is (the path of every message sent and read)
    const uint8_t *schema = drover_msg_fields_schema [id];
    if (level >= DROVER_MSG_LEVEL) {
        size_t count = 0;
        while (count < S_FIELDS_MAX && schema [count] != F_END) {
            fields [count] = schema [count];
            count++;
        }
        return count;
    }
    size_t count = 0;
    for (size_t index = 0; index < S_FIELDS_MAX && schema [index] != F_END; index++)
        if (drover_msg_fields_since (schema [index]) <= level)
            fields [count++] = schema [index];
    return count;
}

//  Return the level that brought a message id (1 for ids 1..21), or 0 for
//  an id that is not one
int
drover_msg_id_level (int id)
{
    if (id < 1 || id > DROVER_MSG_ID_MAX)
        return 0;
    return id <= DROVER_MSG_ERROR? 1: 2;
}

//  True if length bytes are a state id: exactly 32 hex digits, or none
bool
drover_msg_fields_state_id_valid (const char *text, size_t length)
{
    if (length != 0 && length != DROVER_STATE_ID_SIZE)
        return false;
    for (size_t index = 0; index < length; index++) {
        char ch = text [index];         //  ASCII only, whatever the locale
        if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F')))
            return false;
    }
    return true;
}

//  True if length bytes are a submit key: 1..128 bytes of printable ASCII
bool
drover_msg_fields_key_valid (const char *text, size_t length)
{
    if (length < 1 || length > DROVER_KEY_MAX)
        return false;
    for (size_t index = 0; index < length; index++)
        if ((byte) text [index] < 0x20 || (byte) text [index] > 0x7e)
            return false;
    return true;
}

//  True if length bytes are a "key=value" label (see drover_label_valid)
bool
drover_msg_fields_label_valid (const char *label, size_t length)
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

//  Check that a label is "key=value": key [A-Za-z0-9_.-]{1,63}, value printable
bool
drover_label_valid (const char *label)
{
    return label && drover_msg_fields_label_valid (label, strnlen (label, DROVER_LABEL_MAX + 1));
}
