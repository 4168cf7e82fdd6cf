/*  =========================================================================
    drover_msg_fields - the message table: what each wire message holds, in
    which order, and how each field is packed and read (internal)

    Every message is one msgpack array: "DRV", version, id, seq, then the
    message's fields in the order s_schema lists them. Packing and reading
    both walk that one table, so the two cannot disagree on an order; each
    field's limits are checked on the way out (a message past them is not
    encoded) and on the way in (it is refused). drover_msg.c does the rest
    of the codec: the message's lifecycle, the two packing passes, the
    structure walk before any field is read, and the socket helpers.

    The file reads top-down in three sections: the table and the rules
    both sides apply (which fields may be left out, and what a valid
    state id, submit key and label are), packing, and reading.
    =========================================================================
*/

#include "drover_msg_fields.h"
#include "drover_msg.h"
#include "drover_msg_pool.h"
#include "drover_msg_service.h"
#include "drover_msg_queues.h"
#include "drover_msg_workflow.h"
#include "drover_msg_share.h"

//  The fields of the messages, in s_schema, then the parts
//  of the header and of records that are not fields, for error texts
typedef enum {
    F_END = 0,
    //  Fields of messages, in s_schema
    F_WORKER, F_WORKER_OPT, F_EPOCH, F_TASK, F_ATTEMPT, F_PRIORITY, F_PROCS, F_MEM,
    F_LABELS, F_RUNNING, F_STATS, F_HEARTBEAT, F_TIMEOUT, F_RETRIES, F_FLAGS, F_BODY,
    F_OUTCOME, F_STATE, F_TASK_END, F_LIST_STATE, F_ADMIN, F_EXIT_CODE, F_SIGNAL, F_TRUNCATED,
    F_DURATION, F_OUT, F_ERR, F_REASON, F_CODE, F_LIMIT, F_TASKS, F_COUNTS, F_TASK_ROWS,
    F_WORKER_ROWS, F_STATE_ID, F_KEY, F_SINCE, F_EVENTS, F_LAST, F_MORE,
    F_LIST_LABELS, F_INFO, F_ADMIN_REASON, F_ADMIN_FLAGS, F_WHYS,
    F_POOL_SUMMARY, F_POOL_ROWS, F_POOL_ACTION, F_INSTANCE,     //  drover_msg_pool.c
    F_AFFINITY, F_SUBMIT_SERVICE, F_SUBMIT_SLOT, F_SERVICE_ACTION, F_SERVICE,
    F_SERVICE_OPT, F_REPLICA_COUNT, F_DELAY, F_PLAN_ACTION, F_TARGET, F_PLAN_COUNT,
    F_SERVICE_STATS, F_STATS_AFTER, F_SERVICE_ROWS, F_REPLICA_ROWS, F_CHANGES,
                                                                //  drover_msg_service.c
    F_LEADER, F_LEADER_NAME,
    F_STRATEGY, F_QUEUE_ROWS,                                   //  drover_msg_queues.c
    F_LEVEL, F_RELEASE,                                         //  protocol levels
    F_AFTER, F_BEGIN, F_RETRY_DELAY, F_RETRY_MAX_DELAY, F_ARRAY, F_LIST_GROUP,
    F_WORKFLOW_NAME, F_STEPS, F_STEP_TASKS,                     //  workflows (level 3),
                                                                //  drover_msg_workflow.c
    F_OWNER, F_DEVICES, F_ASSIGNED, F_SHARE_ACTION, F_SHARE_NAME, F_WEIGHT, F_MEMBERS,
    F_QUOTA_PROCS, F_QUOTA_MEM, F_QUOTA_QUEUED, F_SHARE_ROWS,   //  sharing (level 4),
                                                                //  drover_msg_share.c
    F_PATH, F_PAGES, F_BYTES,                                   //  backups (level 5)
    F_ACK_TIMEOUT,                                              //  level 7
    F_MAX_PER_WORKER,                                           //  services (level 7)
    F_AHEAD,                                                    //  offers held ahead (level 9)
    //  Parts that are not message fields, for error texts
    P_HEADER, P_SIGNATURE, P_VERSION, P_ID, P_SEQ, P_RUNNING_ITEM, P_ROW, P_HEALTH,
    P_PROCS_USED, P_MEM_USED, P_SUMMARY, P_OWNER, P_ROW_STATE, P_ROW_END, P_RESERVED,
    P_WORKER_STATE, P_WORKER_SINCE, P_WHY, P_ADMIN_SINCE, P_PROBATION_UNTIL, P_TASKS,
    P_ROW_REASON, P_WORKER_LEVEL, P_WORKER_RELEASE, P_WHY_ITEM, P_WHY_CODE, P_WHY_TEXT, P_WHY_NAMES,
    P_ROW_WAITS, P_ROW_GROUP, P_ROW_PARENTS, P_STEP_SUBMIT, P_LOST_AFTER, P_HELD, P_COUNT
} s_field_t;

#define S_FIELDS_MAX    19          //  most fields in one message (SUBMIT)

#define S_TASK_ROW_KNOWN    13      //  elements of a TASK TABLE row this version reads;
                                    //  a row may have 8 or more (later versions': skipped)
#define S_TASK_ROW_LEVEL2   10      //  the most elements of a row a level-2 peer knows
#define S_WORKER_ROW_KNOWN  25      //  elements of a WORKER TABLE row this version reads;
                                    //  a row may have 10 (before the optional ones) and
                                    //  more (later versions': skipped); level 9 sends all
                                    //  25, 6 to 8 23, 4 and 5 19 or 21 (devices), 2 and 3 19

//  True for a field that may be left out (at a message's end)
static bool
    s_optional (int field);

//  Return the protocol level that brought a field into the messages that
//  have it (PROTOCOL.md §12): 1, or a later level
static int
    s_since (int field);

//  Write the fields a peer of level knows of message id, in wire order,
//  into fields [S_FIELDS_MAX]; returns how many
static size_t
    s_fields_at (int id, int level, uint8_t *fields);


//  True if length bytes are a state id: exactly 32 hex digits, or none
static bool
    s_state_id_valid (const char *text, size_t length);

//  True if length bytes are a submit key: 1..128 bytes of printable ASCII
static bool
    s_key_valid (const char *text, size_t length);

//  True if length bytes are a "key=value" label (see drover_label_valid)
static bool
    s_label_valid (const char *label, size_t length);

//  =========================================================================
//  The table, and the rules on field values
//  =========================================================================

//  The fields of each message, in wire order, ending with F_END
static const uint8_t
s_schema [DROVER_MSG_ID_MAX + 1][S_FIELDS_MAX + 1] = {
    [DROVER_MSG_WORKER_HELLO]     = { F_WORKER, F_EPOCH, F_PROCS, F_MEM, F_LABELS, F_RUNNING,
                                      F_STATE_ID, F_LEVEL, F_RELEASE, F_DEVICES, F_AHEAD },
    [DROVER_MSG_WORKER_HEARTBEAT] = { F_WORKER, F_EPOCH, F_STATS },
    [DROVER_MSG_WORKER_GOODBYE]   = { F_WORKER, F_EPOCH },
    [DROVER_MSG_WORKER_WELCOME]   = { F_HEARTBEAT, F_STATE_ID, F_LEVEL, F_ACK_TIMEOUT,
                                      F_AHEAD },
    [DROVER_MSG_WORKER_LEAVE]     = { F_END },
    [DROVER_MSG_TASK_OFFER]       = { F_TASK, F_ATTEMPT, F_PRIORITY, F_PROCS, F_MEM, F_TIMEOUT,
                                      F_BODY, F_DEVICES },
    [DROVER_MSG_TASK_STARTED]     = { F_WORKER, F_TASK, F_ATTEMPT, F_ASSIGNED },
    [DROVER_MSG_TASK_RESULT]      = { F_WORKER, F_TASK, F_ATTEMPT, F_OUTCOME, F_EXIT_CODE,
                                      F_SIGNAL, F_TRUNCATED, F_DURATION, F_OUT, F_ERR,
                                      F_REASON },
    [DROVER_MSG_TASK_KILL]        = { F_TASK, F_ATTEMPT },
    [DROVER_MSG_TASK_SUBMIT]      = { F_PRIORITY, F_PROCS, F_MEM, F_LABELS, F_TIMEOUT,
                                      F_RETRIES, F_FLAGS, F_BODY, F_KEY, F_AFFINITY,
                                      F_SUBMIT_SERVICE, F_SUBMIT_SLOT, F_AFTER, F_BEGIN,
                                      F_RETRY_DELAY, F_RETRY_MAX_DELAY, F_ARRAY, F_OWNER,
                                      F_DEVICES },
    [DROVER_MSG_TASK_ACCEPTED]    = { F_TASK, F_STATE_ID },
    [DROVER_MSG_TASK_WAIT]        = { F_TASKS, F_STATE_ID },
    [DROVER_MSG_TASK_DONE]        = { F_TASK, F_STATE, F_TASK_END, F_ATTEMPT, F_WORKER_OPT,
                                      F_EXIT_CODE, F_SIGNAL, F_TRUNCATED, F_DURATION, F_OUT,
                                      F_ERR, F_REASON },
    [DROVER_MSG_TASK_CANCEL]      = { F_TASK },
    [DROVER_MSG_TASK_LIST]        = { F_LIMIT, F_LIST_STATE, F_LIST_LABELS, F_LIST_GROUP },
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
                                      F_MEM, F_LABELS, F_DELAY, F_BODY, F_MAX_PER_WORKER },
    [DROVER_MSG_SERVICE_LIST]     = { F_SERVICE_OPT },
    [DROVER_MSG_SERVICE_TABLE]    = { F_SERVICE_STATS, F_SERVICE_ROWS, F_REPLICA_ROWS },
    [DROVER_MSG_PLAN]             = { F_PLAN_ACTION, F_TARGET, F_PLAN_COUNT },
    [DROVER_MSG_PLAN_RESULT]      = { F_SERVICE_STATS, F_STATS_AFTER, F_CHANGES },
    [DROVER_MSG_REDIRECT]         = { F_LEADER, F_LEADER_NAME },
    [DROVER_MSG_QUEUES]           = { F_END },
    [DROVER_MSG_QUEUE_TABLE]      = { F_STRATEGY, F_QUEUE_ROWS },
    [DROVER_MSG_CLIENT_HELLO]     = { F_LEVEL, F_RELEASE },
    [DROVER_MSG_CLIENT_WELCOME]   = { F_LEVEL, F_RELEASE, F_LEADER_NAME },
    [DROVER_MSG_WORKFLOW_SUBMIT]  = { F_WORKFLOW_NAME, F_STEPS },
    [DROVER_MSG_WORKFLOW_ACCEPTED] = { F_TASK, F_STEP_TASKS, F_STATE_ID },
    [DROVER_MSG_SHARE_ADMIN]      = { F_SHARE_ACTION, F_SHARE_NAME, F_WEIGHT, F_MEMBERS,
                                      F_QUOTA_PROCS, F_QUOTA_MEM, F_QUOTA_QUEUED, F_DEVICES },
    [DROVER_MSG_SHARE_LIST]       = { F_END },
    [DROVER_MSG_SHARE_TABLE]      = { F_SHARE_ROWS },
    [DROVER_MSG_STATE_BACKUP]     = { F_PATH },
    [DROVER_MSG_BACKUP_DONE]      = { F_PATH, F_PAGES, F_BYTES, F_DURATION },
};

//  True for a field that may be left out: always at a message's end, sent
//  only when it (or a field after it) has a value, so that peers older than
//  it still understand the message, and it still decodes when they leave it
//  out
static bool
s_optional (int field)
{
    return field == F_STATE_ID || field == F_KEY || field == F_LIST_LABELS
        || field == F_ADMIN_REASON || field == F_ADMIN_FLAGS || field == F_AFFINITY
        || field == F_SUBMIT_SERVICE || field == F_SUBMIT_SLOT
        || field == F_LEVEL || field == F_RELEASE
        || field == F_AFTER || field == F_BEGIN || field == F_RETRY_DELAY
        || field == F_RETRY_MAX_DELAY || field == F_ARRAY || field == F_LIST_GROUP
        || field == F_OWNER || field == F_DEVICES || field == F_ASSIGNED
        || field == F_ACK_TIMEOUT
        || field == F_MAX_PER_WORKER || field == F_AHEAD;
}

//  Return the protocol level that brought a field into the messages of
//  level 1 that have it: what a peer of level 1 (PROTOCOL.md as of
//  2026-11-23) neither sends nor takes, and the fields levels 3 and 4
//  added to them. The messages of later levels (drover_msg_id_level) came
//  whole with theirs.
static int
s_since (int field)
{
    switch (field) {
        case F_AHEAD:           //  HELLO, WELCOME: offers held ahead
            return 9;
        case F_ACK_TIMEOUT:     //  WELCOME: STARTED may wait a little
        case F_MAX_PER_WORKER:  //  SERVICE ADMIN: the orchestrator's one per node
            return 7;
        case F_OWNER:           //  SUBMIT: sharing a cluster
        case F_DEVICES:         //  SUBMIT, HELLO, OFFER
        case F_ASSIGNED:        //  STARTED
            return 4;
        case F_AFTER:           //  SUBMIT: workflows
        case F_BEGIN:
        case F_RETRY_DELAY:
        case F_RETRY_MAX_DELAY:
        case F_ARRAY:
        case F_LIST_GROUP:      //  TASK LIST
            return 3;
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
static size_t
s_fields_at (int id, int level, uint8_t *fields)
{
    //  Every message and every field is of this codec's level or older:
    //  the whole row, as it is (the path of every message sent and read)
    const uint8_t *schema = s_schema [id];
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
        if (s_since (schema [index]) <= level)
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
    return id <= DROVER_MSG_ERROR? 1: id <= DROVER_MSG_CLIENT_WELCOME? 2:
           id <= DROVER_MSG_WORKFLOW_ACCEPTED? 3: id <= DROVER_MSG_SHARE_TABLE? 4: 5;
}

//  True if length bytes are a state id: exactly 32 hex digits, or none
static bool
s_state_id_valid (const char *text, size_t length)
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
static bool
s_key_valid (const char *text, size_t length)
{
    if (length < 1 || length > DROVER_KEY_MAX)
        return false;
    for (size_t index = 0; index < length; index++)
        if ((byte) text [index] < 0x20 || (byte) text [index] > 0x7e)
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

//  Check that a label is "key=value": key [A-Za-z0-9_.-]{1,63}, value printable
bool
drover_label_valid (const char *label)
{
    return label && s_label_valid (label, strnlen (label, DROVER_LABEL_MAX + 1));
}

//  =========================================================================
//  Packing a message by the message table: the header, then each field
//  of its schema in wire order, optional fields at the end left out while
//  they have no value
//
//  Each field's limits and content are checked on the way out: a message
//  past them is not encoded (-1). The records of the pool's, services' and
//  queues' messages are packed by drover_msg_pool.c, drover_msg_service.c
//  and drover_msg_queues.c.
//  =========================================================================

//  True if an optional field of self has no value (it may be left out)
static bool
s_field_empty (const drover_msg_t *self, int field)
{
    return (field == F_STATE_ID && self->state_id [0] == 0)
        || (field == F_KEY && self->key == NULL)
        || (field == F_ADMIN_REASON && (self->reason == NULL || self->reason [0] == 0))
        || (field == F_ADMIN_FLAGS && self->flags == 0)
        || (field == F_LIST_LABELS && self->nlabels == 0)
        || (field == F_AFFINITY && self->affinity == NULL)
        || (field == F_SUBMIT_SERVICE && self->service [0] == 0)
        || (field == F_SUBMIT_SLOT && self->slot == 0)
        || (field == F_AFTER && self->nafter == 0)
        || (field == F_BEGIN && self->begin == 0)
        || (field == F_RETRY_DELAY && self->retry_delay == 0)
        || (field == F_RETRY_MAX_DELAY && self->retry_max_delay == 0)
        || (field == F_ARRAY && self->array.count == 0)
        || (field == F_LIST_GROUP && self->group == 0)
        || (field == F_OWNER && self->owner [0] == 0)
        || (field == F_DEVICES && self->ndevices == 0)
        || (field == F_ASSIGNED && (self->assigned == NULL || self->assigned [0] == 0))
        || (field == F_ACK_TIMEOUT && self->ack_timeout == 0)
        || (field == F_MAX_PER_WORKER && self->max_per_worker == 0)
        || (field == F_AHEAD && self->ahead == 0);
}

//  Return how many of fields [count] self goes out with: its optional
//  fields at the end are left out, from the last back, while they have no
//  value (a level and a release always have one)
static size_t
s_nfields_sent (const drover_msg_t *self, const uint8_t *fields, size_t count)
{
    while (count > 0 && s_optional (fields [count - 1])
    &&     s_field_empty (self, fields [count - 1]))
        count--;
    return count;
}

//  Return a worker's health as a peer of level knows it: level 1 has no
//  LOW_DISK, and the nearest it has (no new work) is PROBATION
static uint8_t
s_health_at (uint8_t health, int level)
{
    return level < 2 && health == DROVER_HEALTH_LOW_DISK? DROVER_HEALTH_PROBATION: health;
}

//  Return how a task ended as a peer of level knows it: level 2 has no
//  DEPENDENCY, and the nearest it has is CANCELLED (the state it goes
//  with); level 3 has no OOM, and the nearest it has is FAILED
static uint8_t
s_end_at (uint8_t end, int level)
{
    if (level < 4 && end == DROVER_END_OOM)
        return DROVER_END_FAILED;
    return level < 3 && end == DROVER_END_DEPENDENCY? DROVER_END_CANCELLED: end;
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
int
drover_msg_fields_pack_labels (msgpack_packer *pk, char *const *labels, uint32_t nlabels)
{
    if (nlabels > DROVER_LABELS_MAX)
        return -1;
    msgpack_pack_array (pk, nlabels);
    for (uint32_t index = 0; index < nlabels; index++) {
        if (!drover_label_valid (labels [index]))
            return -1;
        drover_mpack_pack_str (pk, labels [index], strlen (labels [index]));
    }
    return 0;
}

//  Pack bytes of at most max (NULL with a size is a caller's mistake: -1)
static int
s_pack_bytes (msgpack_packer *pk, const byte *data, size_t size, size_t max)
{
    if (size > max || (!data && size))
        return -1;
    drover_mpack_pack_bin (pk, data, size);
    return 0;
}

//  Pack the TASK TABLE rows as a peer of level knows them (level 1: 7
//  elements, without outcome, owner and reason; level 2: 9 or 10, without
//  waits, group and parents, and DEPENDENCY as CANCELLED); -1 if a row
//  breaks a limit
static int
s_pack_task_rows (msgpack_packer *pk, const drover_msg_t *self, int level)
{
    if (self->nrows > DROVER_ROWS_MAX || (self->nrows && !self->task_rows))
        return -1;
    msgpack_pack_array (pk, self->nrows);
    for (uint32_t index = 0; index < self->nrows; index++) {
        const drover_task_row_t *row = &self->task_rows [index];
        if (row->state >= DROVER_TASK_STATES || !drover_end_fits (row->state, row->end)
        ||  row->waits > DROVER_WAITS_MAX)
            return -1;
        size_t reason = strnlen (row->reason, DROVER_ROW_REASON_MAX + 1);
        if (reason > DROVER_ROW_REASON_MAX)
            return -1;
        //  The elements of level 3 only when one has a value
        bool later = level >= 3 && (row->waits || row->group || row->parents);
        if (level < 2)
            msgpack_pack_array (pk, 7);
        else
        if (later)
            msgpack_pack_array (pk, S_TASK_ROW_KNOWN);
        else
            msgpack_pack_array (pk, reason? S_TASK_ROW_LEVEL2: 9);  //  the reason only when
                                                                    //  there is one
        msgpack_pack_uint64 (pk, row->task);
        msgpack_pack_uint8 (pk, row->state);
        if (level >= 2)
            msgpack_pack_uint8 (pk, s_end_at (row->end, level));
        msgpack_pack_int32 (pk, row->priority);
        msgpack_pack_uint32 (pk, row->procs);
        msgpack_pack_uint32 (pk, row->attempt);
        if (drover_mpack_pack_id (pk, row->worker, true)
        ||  drover_mpack_pack_text (pk, row->summary, DROVER_SUMMARY_MAX))
            return -1;
        if (level < 2)
            continue;
        if (drover_mpack_pack_id (pk, row->owner, true))
            return -1;
        if (reason || later)
            drover_mpack_pack_str (pk, row->reason, reason);
        if (later) {
            msgpack_pack_uint8 (pk, row->waits);
            msgpack_pack_uint64 (pk, row->group);
            msgpack_pack_uint32 (pk, row->parents);
        }
    }
    return 0;
}

//  True if a peer of level knows an explanation item's code: level 2 has
//  none of the codes of waiting tasks (60 on)
static bool
s_why_known (const drover_why_t *why, int level)
{
    return level >= 3 || why->code < DROVER_WHY_PARENT;
}

//  Pack the items of a TASK EXPLANATION that a peer of level knows; -1 if
//  one breaks a limit
static int
s_pack_whys (msgpack_packer *pk, const drover_msg_t *self, int level)
{
    if (self->nwhys > DROVER_WHYS_MAX || (self->nwhys && !self->whys))
        return -1;
    uint32_t known = 0;
    for (uint32_t index = 0; index < self->nwhys; index++)
        known += s_why_known (&self->whys [index], level);
    msgpack_pack_array (pk, known);
    for (uint32_t index = 0; index < self->nwhys; index++) {
        const drover_why_t *why = &self->whys [index];
        if (!s_why_known (why, level))
            continue;
        size_t text = strnlen (why->text, DROVER_LABEL_MAX + 1);
        if (why->code == 0 || text > DROVER_LABEL_MAX
        ||  why->nnames > DROVER_WHY_NAMES_MAX)
            return -1;
        msgpack_pack_array (pk, 6);
        msgpack_pack_uint8 (pk, why->code);
        msgpack_pack_uint32 (pk, why->count);
        msgpack_pack_uint64 (pk, why->a);
        msgpack_pack_uint64 (pk, why->b);
        drover_mpack_pack_str (pk, why->text, text);
        msgpack_pack_array (pk, why->nnames);
        for (uint32_t name = 0; name < why->nnames; name++)
            if (drover_mpack_pack_id (pk, why->names [name], false))
                return -1;
    }
    return 0;
}

//  Pack the WORKER TABLE rows as a peer of level knows them (level 1: 9
//  elements, health 0..2); -1 if a row breaks a limit
static int
s_pack_worker_rows (msgpack_packer *pk, const drover_msg_t *self, int level)
{
    if (self->nrows > DROVER_ROWS_MAX || (self->nrows && !self->worker_rows))
        return -1;
    msgpack_pack_array (pk, self->nrows);
    for (uint32_t index = 0; index < self->nrows; index++) {
        const drover_worker_row_t *row = &self->worker_rows [index];
        if (row->health > DROVER_HEALTH_MAX || row->admin > DROVER_ADMIN_MAX
        ||  row->state > DROVER_WORKER_STATE_MAX)
            return -1;
        //  The device texts of level 4 only when the worker has devices,
        //  or (level 6) before the heartbeat and lost-after after them
        bool devices = level >= 6 || (level >= 4 && ((row->devices && row->devices [0])
                                   || (row->devices_used && row->devices_used [0])));
        msgpack_pack_array (pk, level < 2? 9: level >= 9? S_WORKER_ROW_KNOWN: level >= 6? 23:
                                devices? 21: 19);
        if (drover_mpack_pack_id (pk, row->id, false))
            return -1;
        msgpack_pack_uint8 (pk, s_health_at (row->health, level));
        msgpack_pack_uint8 (pk, row->admin);
        msgpack_pack_uint32 (pk, row->procs);
        msgpack_pack_uint32 (pk, row->procs_used);
        msgpack_pack_uint64 (pk, row->mem);
        msgpack_pack_uint64 (pk, row->mem_used);
        if (drover_msg_fields_pack_labels (pk, row->labels, row->nlabels))
            return -1;
        s_pack_stats (pk, &row->stats);
        if (level < 2)
            continue;
        msgpack_pack_uint64 (pk, row->reserved);
        msgpack_pack_uint8 (pk, row->state);
        msgpack_pack_uint64 (pk, row->since);
        if (drover_mpack_pack_text (pk, row->why, DROVER_REASON_MAX)
        ||  drover_mpack_pack_text (pk, row->admin_reason, DROVER_REASON_MAX))
            return -1;
        msgpack_pack_uint64 (pk, row->admin_since);
        msgpack_pack_uint64 (pk, row->probation_until);
        msgpack_pack_uint32 (pk, row->tasks);
        msgpack_pack_uint16 (pk, row->level);
        if (drover_mpack_pack_text (pk, row->release, DROVER_RELEASE_MAX))
            return -1;
        if (devices
        &&  (drover_msg_share_pack_devicelist (pk, row->devices)
        ||   drover_msg_share_pack_devicelist (pk, row->devices_used)))
            return -1;
        if (level >= 6) {
            msgpack_pack_uint32 (pk, row->heartbeat);
            msgpack_pack_uint64 (pk, row->lost_after);
        }
        if (level >= 9) {
            if (row->ahead > DROVER_AHEAD_MAX || row->held > DROVER_AHEAD_MAX)
                return -1;
            msgpack_pack_uint32 (pk, row->ahead);
            msgpack_pack_uint32 (pk, row->held);
        }
    }
    return 0;
}

//  Pack the events of an EVENT LIST, each its encoded body as a bin; -1
//  if past the limit
static int
s_pack_events (msgpack_packer *pk, const drover_msg_t *self)
{
    if (self->nevents > DROVER_REPLAY_MAX || (self->nevents && !self->events))
        return -1;
    msgpack_pack_array (pk, self->nevents);
    for (uint32_t index = 0; index < self->nevents; index++) {
        zframe_t *body = drover_event_encode (&self->events [index]);
        if (zframe_size (body) > DROVER_EVENT_MAX) {
            zframe_destroy (&body);
            return -1;
        }
        drover_mpack_pack_bin (pk, zframe_data (body), zframe_size (body));
        zframe_destroy (&body);
    }
    return 0;
}

//  Pack the info of a TASK INFO as a peer of level knows it (end
//  DEPENDENCY as CANCELLED below level 3; the keys it does not know it
//  skips), its encoded map as a bin; -1 if it has none or breaks a limit
static int
s_pack_info (msgpack_packer *pk, const drover_msg_t *self, int level)
{
    size_t size;
    drover_taskinfo_t fitted;       //  a shallow copy: encoding only reads it
    const drover_taskinfo_t *info = self->info;
    if (info && info->end != s_end_at (info->end, level)) {
        fitted = *info;
        fitted.end = s_end_at (info->end, level);
        info = &fitted;
    }
    byte *data = info? drover_taskinfo_encode (info, &size): NULL;
    if (!data)
        return -1;
    drover_mpack_pack_bin (pk, data, size);
    free (data);
    return 0;
}

//  Pack a submit or affinity key: a key, or nil for none (sent only when a
//  field after it has a value, PROTOCOL.md §7.10); -1 if not a key
static int
s_pack_key (msgpack_packer *pk, const char *key)
{
    if (!key)
        return msgpack_pack_nil (pk), 0;
    if (!s_key_valid (key, strnlen (key, DROVER_KEY_MAX + 1)))
        return -1;
    drover_mpack_pack_str (pk, key, strlen (key));
    return 0;
}

//  Pack a workflow's name (in reason): 1..64 bytes; -1 if none or longer
static int
s_pack_workflow_name (msgpack_packer *pk, const drover_msg_t *self)
{
    size_t length = self->reason? strnlen (self->reason, DROVER_ID_MAX + 1): 0;
    if (length < 1 || length > DROVER_ID_MAX)
        return -1;
    drover_mpack_pack_str (pk, self->reason, length);
    return 0;
}

//  Pack a backup's file name: 1..DROVER_PATH_MAX bytes, no NUL (a C
//  string); -1 if none
static int
s_pack_path (msgpack_packer *pk, const char *path)
{
    size_t length = path? strnlen (path, DROVER_PATH_MAX + 1): 0;
    if (length < 1 || length > DROVER_PATH_MAX)
        return -1;
    drover_mpack_pack_str (pk, path, length);
    return 0;
}

//  Pack one field of self as a peer of level knows it (step: self is a
//  WORKFLOW SUBMIT's step); -1 if it breaks a limit
static int
s_pack_field (msgpack_packer *pk, const drover_msg_t *self, int field, int level, bool step)
{
    switch (field) {
        case F_LEVEL:       return msgpack_pack_uint16 (pk, self->level? self->level
                                                                      : DROVER_MSG_LEVEL), 0;
        case F_RELEASE:     return drover_mpack_pack_text (pk, self->release [0]? self->release
                                                                             : DROVER_RELEASE,
                                                           DROVER_RELEASE_MAX);
        case F_WORKER:      return drover_mpack_pack_id (pk, self->worker, false);
        case F_WORKER_OPT:  return drover_mpack_pack_id (pk, self->worker, true);
        case F_EPOCH:       return msgpack_pack_uint64 (pk, self->epoch), 0;
        case F_TASK:        return msgpack_pack_uint64 (pk, self->task), 0;
        case F_ATTEMPT:     return msgpack_pack_uint32 (pk, self->attempt), 0;
        case F_PRIORITY:    return msgpack_pack_int32 (pk, self->priority), 0;
        case F_PROCS:       return msgpack_pack_uint32 (pk, self->procs), 0;
        case F_MEM:         return msgpack_pack_uint64 (pk, self->mem), 0;
        case F_LABELS:      return drover_msg_fields_pack_labels (pk, self->labels, self->nlabels);
        case F_LIST_LABELS:     //  none: nil, before a group (an empty filter is malformed)
            if (self->nlabels == 0)
                return msgpack_pack_nil (pk), 0;
            return drover_msg_fields_pack_labels (pk, self->labels, self->nlabels);
        case F_AFTER:       return drover_msg_workflow_pack_after (pk, self, step);
        case F_BEGIN:       return msgpack_pack_uint64 (pk, self->begin), 0;
        case F_RETRY_DELAY: return msgpack_pack_uint32 (pk, self->retry_delay), 0;
        case F_RETRY_MAX_DELAY: return msgpack_pack_uint32 (pk, self->retry_max_delay), 0;
        case F_ARRAY:       return drover_msg_workflow_pack_array (pk, self);
        case F_LIST_GROUP:  return msgpack_pack_uint64 (pk, self->group), 0;
        case F_WORKFLOW_NAME: return s_pack_workflow_name (pk, self);
        case F_STEPS:       return drover_msg_workflow_pack_steps (pk, self);
        case F_STEP_TASKS:  return drover_msg_workflow_pack_step_tasks (pk, self);
        case F_STATS:       return s_pack_stats (pk, &self->stats), 0;
        case F_HEARTBEAT:   return msgpack_pack_uint32 (pk, self->heartbeat), 0;
        case F_TIMEOUT:     return msgpack_pack_uint32 (pk, self->timeout), 0;
        case F_RETRIES:     return msgpack_pack_uint32 (pk, self->retries), 0;
        case F_FLAGS:           //  before level 4 no PREEMPTIBLE: cleared
            return msgpack_pack_uint32 (pk, level < 4? self->flags & ~DROVER_SUBMIT_PREEMPTIBLE
                                                     : self->flags), 0;
        case F_BODY:        return s_pack_bytes (pk, self->body, self->body_size, DROVER_BODY_MAX);
        case F_EXIT_CODE:   return msgpack_pack_int32 (pk, self->exit_code), 0;
        case F_SIGNAL:      return msgpack_pack_int32 (pk, self->signal), 0;
        case F_TRUNCATED:   return msgpack_pack_uint32 (pk, self->truncated), 0;
        case F_DURATION:    return msgpack_pack_uint32 (pk, self->duration), 0;
        case F_OUT:         return s_pack_bytes (pk, self->out, self->out_size, DROVER_OUTPUT_MAX);
        case F_ERR:         return s_pack_bytes (pk, self->err, self->err_size, DROVER_OUTPUT_MAX);
        case F_REASON:
        case F_ADMIN_REASON: return drover_mpack_pack_text (pk, self->reason, DROVER_REASON_MAX);
        case F_ADMIN_FLAGS: return msgpack_pack_uint32 (pk, self->flags), 0;
        case F_CODE:        return msgpack_pack_uint16 (pk, self->code), 0;
        case F_LIMIT:       return msgpack_pack_uint32 (pk, self->limit), 0;
        case F_SINCE:       return msgpack_pack_uint64 (pk, self->since), 0;
        case F_LAST:        return msgpack_pack_uint64 (pk, self->last), 0;
        case F_MORE:
            if (self->more > 1)
                return -1;
            return msgpack_pack_uint8 (pk, self->more), 0;
        case F_EVENTS:      return s_pack_events (pk, self);
        case F_INFO:        return s_pack_info (pk, self, level);
        case F_WHYS:        return s_pack_whys (pk, self, level);
        case F_POOL_SUMMARY: return drover_msg_pool_pack_summary (pk, self, level);
        case F_POOL_ROWS:   return drover_msg_pool_pack_rows (pk, self, level);
        case F_POOL_ACTION:
            if (self->admin > DROVER_POOLADMIN_MAX)
                return -1;
            return msgpack_pack_uint8 (pk, self->admin), 0;
        case F_INSTANCE:    return drover_mpack_pack_id (pk, self->worker, false);
        case F_STATE_ID:
            if (!s_state_id_valid (self->state_id,
                                   strnlen (self->state_id,
                                                            DROVER_STATE_ID_SIZE + 1)))
                return -1;
            drover_mpack_pack_str (pk, self->state_id, strlen (self->state_id));
            return 0;
        case F_KEY:         return s_pack_key (pk, self->key);
        case F_AFFINITY:    return s_pack_key (pk, self->affinity);
        case F_SUBMIT_SERVICE:
        case F_SERVICE_OPT: return drover_mpack_pack_id (pk, self->service, true);
        case F_SERVICE:     return drover_mpack_pack_id (pk, self->service, false);
        case F_SUBMIT_SLOT: return msgpack_pack_uint32 (pk, self->slot), 0;
        case F_SERVICE_ACTION:
            if (self->action > DROVER_SERVICE_ACTION_MAX)
                return -1;
            return msgpack_pack_uint8 (pk, self->action), 0;
        case F_PLAN_ACTION:
            if (self->action > DROVER_PLAN_ACTION_MAX)
                return -1;
            return msgpack_pack_uint8 (pk, self->action), 0;
        case F_TARGET:
            return drover_mpack_pack_id (pk, self->action == DROVER_PLAN_SCALE? self->service: self->worker,
                              true);
        case F_REPLICA_COUNT:
        case F_PLAN_COUNT:  return msgpack_pack_uint32 (pk, self->count), 0;
        case F_DELAY:       return msgpack_pack_uint32 (pk, self->delay), 0;
        case F_SERVICE_STATS: return drover_msg_service_pack_stats (pk, &self->stats_now, level);
        case F_STATS_AFTER: return drover_msg_service_pack_stats (pk, &self->stats_after, level);
        case F_SERVICE_ROWS: return drover_msg_service_pack_services (pk, self, level);
        case F_MAX_PER_WORKER: return msgpack_pack_uint32 (pk, self->max_per_worker), 0;
        case F_REPLICA_ROWS: return drover_msg_service_pack_replicas (pk, self);
        case F_CHANGES:     return drover_msg_service_pack_changes (pk, self);
        case F_LEADER:      return drover_mpack_pack_text (pk, self->leader, DROVER_ENDPOINT_MAX);
        case F_STRATEGY:    return drover_msg_queues_pack_strategy (pk, self, level);
        case F_QUEUE_ROWS:  return drover_msg_queues_pack_rows (pk, self);
        case F_LEADER_NAME: return drover_mpack_pack_text (pk, self->leader_name, DROVER_ID_MAX);
        case F_TASK_ROWS:   return s_pack_task_rows (pk, self, level);
        case F_OWNER:
        case F_SHARE_NAME:  return drover_mpack_pack_id (pk, self->owner, field == F_OWNER);
        case F_DEVICES:     return drover_msg_share_pack_devices (pk, self);
        case F_ASSIGNED:    return drover_msg_share_pack_assigned (pk, self);
        case F_SHARE_ACTION:
            if (self->action > DROVER_SHARE_ACTION_MAX)
                return -1;
            return msgpack_pack_uint8 (pk, self->action), 0;
        case F_WEIGHT:
            if (self->weight > DROVER_WEIGHT_MAX)
                return -1;
            return msgpack_pack_uint32 (pk, self->weight), 0;
        case F_MEMBERS:     return drover_msg_share_pack_members (pk, self);
        case F_QUOTA_PROCS: return msgpack_pack_uint32 (pk, self->quota_procs), 0;
        case F_QUOTA_MEM:   return msgpack_pack_uint64 (pk, self->quota_mem), 0;
        case F_QUOTA_QUEUED: return msgpack_pack_uint32 (pk, self->quota_queued), 0;
        case F_SHARE_ROWS:  return drover_msg_share_pack_rows (pk, self);
        case F_PATH:        return s_pack_path (pk, self->path);
        case F_PAGES:       return msgpack_pack_uint64 (pk, self->pages), 0;
        case F_ACK_TIMEOUT: return msgpack_pack_uint32 (pk, self->ack_timeout), 0;
        case F_AHEAD:
            if (self->ahead > DROVER_AHEAD_MAX)
                return -1;
            return msgpack_pack_uint32 (pk, self->ahead), 0;
        case F_BYTES:       return msgpack_pack_uint64 (pk, self->bytes), 0;
        case F_WORKER_ROWS: return s_pack_worker_rows (pk, self, level);
        case F_OUTCOME: {
            if (self->outcome > DROVER_OUTCOME_MAX)
                return -1;
            uint8_t outcome = self->outcome;
            //  Before level 9 nothing is held ahead, so nothing given back:
            //  the nearest is an attempt that never ran, not the task's fault
            if (level < 9 && outcome == DROVER_OUTCOME_RETURNED)
                outcome = DROVER_OUTCOME_MACHINE_FAILED;
            //  Level 1 has no MACHINE_FAILED: the nearest is SPAWN_FAILED
            if (level < 2 && outcome == DROVER_OUTCOME_MACHINE_FAILED)
                outcome = DROVER_OUTCOME_SPAWN_FAILED;
            //  Before level 4 no OOM: the OOM killer's SIGKILL is what it was
            if (level < 4 && outcome == DROVER_OUTCOME_OOM)
                outcome = DROVER_OUTCOME_SIGNALLED;
            return msgpack_pack_uint8 (pk, outcome), 0;
        }
        case F_STATE:
            if (self->state >= DROVER_TASK_STATES)
                return -1;
            return msgpack_pack_uint8 (pk, self->state), 0;
        case F_TASK_END:
            if (!drover_end_fits (self->state, self->end))
                return -1;
            return msgpack_pack_uint8 (pk, s_end_at (self->end, level)), 0;
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

//  Pack a drover_msg_fields_leveled_t: the header, then the fields and
//  values its level knows; -1 if the id is newer or a field breaks a limit
int
drover_msg_fields_pack_at (msgpack_packer *pk, const void *value)
{
    const drover_msg_fields_leveled_t *leveled = (const drover_msg_fields_leveled_t *) value;
    const drover_msg_t *self = leveled->msg;
    int id_level = drover_msg_id_level (self->id);
    if (id_level == 0 || id_level > leveled->level)
        return -1;              //  no such id, or one a peer of that level does not know
    if (leveled->step && self->id != DROVER_MSG_TASK_SUBMIT)
        return -1;              //  a step is a TASK SUBMIT, nothing else
    uint8_t fields [S_FIELDS_MAX];
    size_t nfields = s_fields_at (self->id, leveled->level, fields);
    nfields = s_nfields_sent (self, fields, nfields);
    msgpack_pack_array (pk, 4 + nfields);
    drover_mpack_pack_str (pk, DROVER_MSG_SIGNATURE, 3);
    msgpack_pack_uint8 (pk, DROVER_MSG_VERSION);
    msgpack_pack_uint8 (pk, (uint8_t) self->id);
    msgpack_pack_uint32 (pk, self->seq);
    for (size_t index = 0; index < nfields; index++)
        if (s_pack_field (pk, self, fields [index], leveled->level, leveled->step))
            return -1;
    return 0;
}

//  Pack a whole message (a drover_msg_t) at this codec's level; -1 if it
//  has no valid id or a field breaks a limit
int
drover_msg_fields_pack (msgpack_packer *pk, const void *value)
{
    drover_msg_fields_leveled_t leveled = { (const drover_msg_t *) value, DROVER_MSG_LEVEL,
                                            false };
    return drover_msg_fields_pack_at (pk, &leveled);
}

//  =========================================================================
//  Reading a message by the message table: the header, then each field
//  of its schema, and the error texts that name what is wrong
//
//  Reading a field checks its type, range and content, and only then
//  copies what must be kept: each copy is bounded by the bytes it came
//  from (times the size of a C struct for rows and ids, and an array is
//  refused before it is allocated unless the bytes left hold its count at
//  the smallest size of one element). Nothing here asserts on input.
//  =========================================================================

//  What to say when a field or part of the header is wrong, by field
static const drover_mpack_errors_t
s_errors [P_COUNT] = {
    [F_END]         = DROVER_MPACK_ERRORS ("message", "invalid"),
    [F_WORKER]      = DROVER_MPACK_ERRORS ("worker", "not a valid worker id"),
    [F_WORKER_OPT]  = DROVER_MPACK_ERRORS ("worker", "not a valid worker id"),
    [F_EPOCH]       = DROVER_MPACK_ERRORS ("epoch", "invalid"),
    [F_TASK]        = DROVER_MPACK_ERRORS ("task", "invalid"),
    [F_ATTEMPT]     = DROVER_MPACK_ERRORS ("attempt", "invalid"),
    [F_PRIORITY]    = DROVER_MPACK_ERRORS ("priority", "invalid"),
    [F_PROCS]       = DROVER_MPACK_ERRORS ("procs", "invalid"),
    [F_MEM]         = DROVER_MPACK_ERRORS ("mem", "invalid"),
    [F_LABELS]      = DROVER_MPACK_ERRORS ("labels", "not key=value"),
    [F_RUNNING]     = DROVER_MPACK_ERRORS ("running", "invalid"),
    [F_STATS]       = DROVER_MPACK_ERRORS ("stats", "invalid"),
    [F_HEARTBEAT]   = DROVER_MPACK_ERRORS ("heartbeat", "invalid"),
    [F_TIMEOUT]     = DROVER_MPACK_ERRORS ("timeout", "invalid"),
    [F_RETRIES]     = DROVER_MPACK_ERRORS ("retries", "invalid"),
    [F_FLAGS]       = DROVER_MPACK_ERRORS ("flags", "invalid"),
    [F_BODY]        = DROVER_MPACK_ERRORS ("body", "invalid"),
    [F_OUTCOME]     = DROVER_MPACK_ERRORS ("outcome", "invalid"),
    [F_STATE]       = DROVER_MPACK_ERRORS ("state", "invalid"),
    [F_TASK_END]    = DROVER_MPACK_ERRORS ("outcome", "does not go with the state"),
    [F_LIST_STATE]  = DROVER_MPACK_ERRORS ("state", "invalid"),
    [F_ADMIN]       = DROVER_MPACK_ERRORS ("admin", "invalid"),
    [F_EXIT_CODE]   = DROVER_MPACK_ERRORS ("exit_code", "invalid"),
    [F_SIGNAL]      = DROVER_MPACK_ERRORS ("signal", "invalid"),
    [F_TRUNCATED]   = DROVER_MPACK_ERRORS ("truncated", "invalid"),
    [F_DURATION]    = DROVER_MPACK_ERRORS ("duration", "invalid"),
    [F_OUT]         = DROVER_MPACK_ERRORS ("out", "invalid"),
    [F_ERR]         = DROVER_MPACK_ERRORS ("err", "invalid"),
    [F_REASON]      = DROVER_MPACK_ERRORS ("reason", "invalid"),
    [F_CODE]        = DROVER_MPACK_ERRORS ("code", "invalid"),
    [F_LIMIT]       = DROVER_MPACK_ERRORS ("limit", "invalid"),
    [F_TASKS]       = DROVER_MPACK_ERRORS ("tasks", "invalid"),
    [F_COUNTS]      = DROVER_MPACK_ERRORS ("counts", "invalid"),
    [F_TASK_ROWS]   = DROVER_MPACK_ERRORS ("rows", "invalid"),
    [F_WORKER_ROWS] = DROVER_MPACK_ERRORS ("rows", "invalid"),
    [F_STATE_ID]    = DROVER_MPACK_ERRORS ("state_id", "not 32 hex digits"),
    [F_KEY]         = DROVER_MPACK_ERRORS ("key", "not 1..128 bytes of printable ASCII"),
    [F_SINCE]       = DROVER_MPACK_ERRORS ("since", "invalid"),
    [F_EVENTS]      = DROVER_MPACK_ERRORS ("events", "not an event body"),
    [F_LAST]        = DROVER_MPACK_ERRORS ("last", "invalid"),
    [F_MORE]        = DROVER_MPACK_ERRORS ("more", "invalid"),
    [F_LIST_LABELS] = DROVER_MPACK_ERRORS ("labels", "not key=value"),
    [F_INFO]        = DROVER_MPACK_ERRORS ("info", "not a task info"),
    [F_ADMIN_REASON] = DROVER_MPACK_ERRORS ("reason", "invalid"),
    [F_ADMIN_FLAGS] = DROVER_MPACK_ERRORS ("flags", "invalid"),
    [F_WHYS]        = DROVER_MPACK_ERRORS ("items", "invalid"),
    [F_POOL_SUMMARY] = DROVER_MPACK_ERRORS ("summary", "invalid"),
    [F_POOL_ROWS]   = DROVER_MPACK_ERRORS ("rows", "invalid"),
    [F_POOL_ACTION] = DROVER_MPACK_ERRORS ("action", "invalid"),
    [F_INSTANCE]    = DROVER_MPACK_ERRORS ("instance", "not a valid instance id"),
    [F_AFFINITY]    = DROVER_MPACK_ERRORS ("affinity", "not 1..128 bytes of printable ASCII"),
    [F_SUBMIT_SERVICE] = DROVER_MPACK_ERRORS ("service", "not a valid service name"),
    [F_SUBMIT_SLOT] = DROVER_MPACK_ERRORS ("slot", "invalid"),
    [F_SERVICE_ACTION] = DROVER_MPACK_ERRORS ("action", "invalid"),
    [F_SERVICE]     = DROVER_MPACK_ERRORS ("service", "not a valid service name"),
    [F_SERVICE_OPT] = DROVER_MPACK_ERRORS ("service", "not a valid service name"),
    [F_REPLICA_COUNT] = DROVER_MPACK_ERRORS ("count", "invalid"),
    [F_DELAY]       = DROVER_MPACK_ERRORS ("delay", "invalid"),
    [F_PLAN_ACTION] = DROVER_MPACK_ERRORS ("action", "invalid"),
    [F_TARGET]      = DROVER_MPACK_ERRORS ("target", "not a valid worker or service name"),
    [F_PLAN_COUNT]  = DROVER_MPACK_ERRORS ("count", "invalid"),
    [F_SERVICE_STATS] = DROVER_MPACK_ERRORS ("stats", "invalid"),
    [F_STATS_AFTER] = DROVER_MPACK_ERRORS ("after", "invalid"),
    [F_SERVICE_ROWS] = DROVER_MPACK_ERRORS ("services", "invalid"),
    [F_REPLICA_ROWS] = DROVER_MPACK_ERRORS ("replicas", "invalid"),
    [F_CHANGES]     = DROVER_MPACK_ERRORS ("changes", "invalid"),
    [F_LEADER]      = DROVER_MPACK_ERRORS ("leader", "invalid"),
    [F_LEADER_NAME] = DROVER_MPACK_ERRORS ("leader_name", "invalid"),
    [F_STRATEGY]    = DROVER_MPACK_ERRORS ("strategy", "not a valid strategy name"),
    [F_QUEUE_ROWS]  = DROVER_MPACK_ERRORS ("queues", "invalid"),
    [F_LEVEL]       = DROVER_MPACK_ERRORS ("level", "invalid"),
    [F_RELEASE]     = DROVER_MPACK_ERRORS ("release", "invalid"),
    [F_AFTER]       = DROVER_MPACK_ERRORS ("after", "invalid"),
    [F_BEGIN]       = DROVER_MPACK_ERRORS ("begin", "invalid"),
    [F_RETRY_DELAY] = DROVER_MPACK_ERRORS ("retry_delay", "invalid"),
    [F_RETRY_MAX_DELAY] = DROVER_MPACK_ERRORS ("retry_max_delay", "invalid"),
    [F_ARRAY]       = DROVER_MPACK_ERRORS ("array", "invalid"),
    [F_LIST_GROUP]  = DROVER_MPACK_ERRORS ("group", "invalid"),
    [F_WORKFLOW_NAME] = DROVER_MPACK_ERRORS ("name", "invalid"),
    [F_STEPS]       = DROVER_MPACK_ERRORS ("steps", "invalid"),
    [F_STEP_TASKS]  = DROVER_MPACK_ERRORS ("tasks", "invalid"),
    [F_OWNER]       = DROVER_MPACK_ERRORS ("owner", "not a valid id"),
    [F_DEVICES]     = DROVER_MPACK_ERRORS ("devices", "invalid"),
    [F_ASSIGNED]    = DROVER_MPACK_ERRORS ("assigned", "invalid"),
    [F_SHARE_ACTION] = DROVER_MPACK_ERRORS ("action", "invalid"),
    [F_SHARE_NAME]  = DROVER_MPACK_ERRORS ("name", "not a valid id"),
    [F_WEIGHT]      = DROVER_MPACK_ERRORS ("weight", "invalid"),
    [F_MEMBERS]     = DROVER_MPACK_ERRORS ("members", "invalid"),
    [F_QUOTA_PROCS] = DROVER_MPACK_ERRORS ("quota_procs", "invalid"),
    [F_QUOTA_MEM]   = DROVER_MPACK_ERRORS ("quota_mem", "invalid"),
    [F_QUOTA_QUEUED] = DROVER_MPACK_ERRORS ("quota_queued", "invalid"),
    [F_SHARE_ROWS]  = DROVER_MPACK_ERRORS ("shares", "invalid"),
    [F_PATH]        = DROVER_MPACK_ERRORS ("path", "invalid"),
    [F_PAGES]       = DROVER_MPACK_ERRORS ("pages", "invalid"),
    [F_BYTES]       = DROVER_MPACK_ERRORS ("bytes", "invalid"),
    [F_ACK_TIMEOUT] = DROVER_MPACK_ERRORS ("ack_timeout", "invalid"),
    [F_AHEAD]       = DROVER_MPACK_ERRORS ("ahead", "invalid"),
    [F_MAX_PER_WORKER] = DROVER_MPACK_ERRORS ("max_per_worker", "invalid"),
    [P_HEADER]      = DROVER_MPACK_ERRORS ("message", "invalid"),
    [P_SIGNATURE]   = DROVER_MPACK_ERRORS ("message", "wrong signature"),
    [P_VERSION]     = DROVER_MPACK_ERRORS ("version", "unknown version"),
    [P_ID]          = DROVER_MPACK_ERRORS ("message id", "unknown message id"),
    [P_SEQ]         = DROVER_MPACK_ERRORS ("seq", "invalid"),
    [P_RUNNING_ITEM] = DROVER_MPACK_ERRORS ("running entry", "invalid"),
    [P_ROW]         = DROVER_MPACK_ERRORS ("row", "invalid"),
    [P_HEALTH]      = DROVER_MPACK_ERRORS ("health", "invalid"),
    [P_PROCS_USED]  = DROVER_MPACK_ERRORS ("procs_used", "invalid"),
    [P_MEM_USED]    = DROVER_MPACK_ERRORS ("mem_used", "invalid"),
    [P_SUMMARY]     = DROVER_MPACK_ERRORS ("summary", "invalid"),
    [P_OWNER]       = DROVER_MPACK_ERRORS ("owner", "not a valid key name"),
    [P_ROW_STATE]   = DROVER_MPACK_ERRORS ("state", "invalid"),
    [P_ROW_END]     = DROVER_MPACK_ERRORS ("outcome", "does not go with the state"),
    [P_RESERVED]    = DROVER_MPACK_ERRORS ("reserved", "invalid"),
    [P_WORKER_STATE] = DROVER_MPACK_ERRORS ("state", "invalid"),
    [P_WORKER_SINCE] = DROVER_MPACK_ERRORS ("since", "invalid"),
    [P_WHY]         = DROVER_MPACK_ERRORS ("why", "invalid"),
    [P_ADMIN_SINCE] = DROVER_MPACK_ERRORS ("admin_since", "invalid"),
    [P_PROBATION_UNTIL] = DROVER_MPACK_ERRORS ("probation_until", "invalid"),
    [P_TASKS]       = DROVER_MPACK_ERRORS ("tasks", "invalid"),
    [P_ROW_REASON]  = DROVER_MPACK_ERRORS ("reason", "invalid"),
    [P_WORKER_LEVEL] = DROVER_MPACK_ERRORS ("level", "invalid"),
    [P_WORKER_RELEASE] = DROVER_MPACK_ERRORS ("release", "invalid"),
    [P_WHY_ITEM]    = DROVER_MPACK_ERRORS ("item", "invalid"),
    [P_WHY_CODE]    = DROVER_MPACK_ERRORS ("item code", "invalid"),
    [P_WHY_TEXT]    = DROVER_MPACK_ERRORS ("item text", "invalid"),
    [P_WHY_NAMES]   = DROVER_MPACK_ERRORS ("item names", "invalid"),
    [P_ROW_WAITS]   = DROVER_MPACK_ERRORS ("waits", "invalid"),
    [P_ROW_GROUP]   = DROVER_MPACK_ERRORS ("group", "invalid"),
    [P_ROW_PARENTS] = DROVER_MPACK_ERRORS ("parents", "invalid"),
    [P_STEP_SUBMIT] = DROVER_MPACK_ERRORS ("step submit", "not a TASK SUBMIT"),
    [P_LOST_AFTER]  = DROVER_MPACK_ERRORS ("lost_after", "invalid"),
    [P_HELD]        = DROVER_MPACK_ERRORS ("held", "invalid"),
};

//  The fewest wire bytes one element of an array can take: an array whose
//  count times this is more than the bytes left is refused before its
//  elements are allocated (PROTOCOL.md, "Limits")
#define S_LABEL_MIN         4       //  str header + "k=v"
#define S_TASKREF_MIN       3       //  [task, attempt]: header + 2 fixints
#define S_TASK_ROW_MIN      9       //  header + 6 fixints + 2 empty strs
#define S_WORKER_ROW_MIN    20      //  header + 1-byte id (2) + 6 fixints
                                    //  + empty labels (1) + stats (9) + reserved (1)
#define S_EVENT_MIN         11      //  bin header (2) + {"topic": "x"} (9)
#define S_WHY_MIN           7       //  header + 4 fixints + empty str + empty array

//  Read a string of at most max bytes into a new copy; "" gives NULL
static bool
s_read_text (drover_mpack_cursor_t *cursor, int field, size_t max, char **text_p)
{
    const char *text;
    size_t length;
    if (!drover_mpack_read_str (cursor, field, 0, max, &text, &length))
        return false;
    *text_p = length? drover_mpack_strndup (text, length): NULL;
    return true;
}

//  Read a bin of at most max bytes into a new copy; empty gives NULL
static bool
s_read_bytes (drover_mpack_cursor_t *cursor, int field, size_t max, byte **data_p, size_t *size_p)
{
    const byte *data;
    size_t size;
    if (!drover_mpack_read_bin (cursor, field, max, &data, &size))
        return false;
    *data_p = drover_mpack_memdup (data, size);
    *size_p = size;
    return true;
}

//  Read a labels array, part of a message or record, into labels [] (empty
//  on entry), counting as it goes
bool
drover_msg_fields_read_labels (drover_mpack_cursor_t *cursor, int part, char **labels,
                               uint32_t *nlabels)
{
    uint32_t count;
    if (!drover_mpack_read_array (cursor, part, 0, DROVER_LABELS_MAX, S_LABEL_MIN, &count))
        return false;
    for (uint32_t index = 0; index < count; index++) {
        const char *text;
        size_t length;
        if (!drover_mpack_read_str (cursor, part, 3, DROVER_LABEL_MAX, &text, &length))
            return false;
        if (!s_label_valid (text, length))
            return drover_mpack_fail (cursor, cursor->errors [part].invalid);
        labels [index] = drover_mpack_strndup (text, length);
        *nlabels = index + 1;
    }
    return true;
}

//  Read the stats record (8 elements, or more from a later level), itself
//  at depth: a HEARTBEAT's 2, a worker row's 4
static bool
s_read_stats (drover_mpack_cursor_t *cursor, drover_stats_t *stats, int depth)
{
    uint32_t count;
    if (!drover_mpack_read_array (cursor, F_STATS, 8, UINT32_MAX, 1, &count))
        return false;
    return drover_mpack_read_float (cursor, F_STATS, &stats->load [0])
        && drover_mpack_read_float (cursor, F_STATS, &stats->load [1])
        && drover_mpack_read_float (cursor, F_STATS, &stats->load [2])
        && drover_mpack_read_u64 (cursor, F_STATS, &stats->mem_used)
        && drover_mpack_read_u64 (cursor, F_STATS, &stats->mem_total)
        && drover_mpack_read_u64 (cursor, F_STATS, &stats->disk_used)
        && drover_mpack_read_u64 (cursor, F_STATS, &stats->disk_total)
        && drover_mpack_read_u32 (cursor, F_STATS, &stats->running)
        //  (a worker row's stats sit at the deepest place: what follows in
        //  them is a scalar, which the walk of the whole message checked)
        && drover_mpack_skip_rest (cursor, count, 8,
                                   depth < DROVER_DEPTH_MAX? depth: DROVER_DEPTH_MAX - 1);
}

//  Read the running attempts of a HELLO
static bool
s_read_running (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    uint32_t count, pair;
    if (!drover_mpack_read_array (cursor, F_RUNNING, 0, DROVER_RUNNING_MAX, S_TASKREF_MIN, &count))
        return false;
    if (count == 0)
        return true;
    self->running = (drover_taskref_t *) drover_mpack_malloc (count * sizeof (drover_taskref_t));
    self->nrunning = count;
    for (uint32_t index = 0; index < count; index++)
        if (!drover_mpack_read_array (cursor, P_RUNNING_ITEM, 2, UINT32_MAX, 1, &pair)
        ||  !drover_mpack_read_u64 (cursor, F_TASK, &self->running [index].task)
        ||  !drover_mpack_read_u32 (cursor, F_ATTEMPT, &self->running [index].attempt)
        ||  !drover_mpack_skip_rest (cursor, pair, 2, 3))
            return false;
    return true;
}

//  Read the task ids of a WAIT
static bool
s_read_tasks (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    uint32_t count;
    if (!drover_mpack_read_array (cursor, F_TASKS, 0, DROVER_WAIT_MAX, 1, &count))
        return false;
    if (count == 0)
        return true;
    self->tasks = (uint64_t *) drover_mpack_malloc (count * sizeof (uint64_t));
    self->ntasks = count;
    for (uint32_t index = 0; index < count; index++)
        if (!drover_mpack_read_u64 (cursor, F_TASKS, &self->tasks [index]))
            return false;
    return true;
}

//  Read the per-state counts of a TASK TABLE
static bool
s_read_counts (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    uint32_t count;
    if (!drover_mpack_read_array (cursor, F_COUNTS, DROVER_TASK_STATES, DROVER_TASK_STATES, 1,
                                  &count))
        return false;
    for (int index = 0; index < DROVER_TASK_STATES; index++)
        if (!drover_mpack_read_u64 (cursor, F_COUNTS, &self->counts [index]))
            return false;
    return true;
}

//  Read how a task ended, which must go with its state (read before it)
static bool
s_read_end (drover_mpack_cursor_t *cursor, int field, uint8_t state, uint8_t *end)
{
    if (!drover_mpack_read_u8 (cursor, field, DROVER_END_MAX, end))
        return false;
    if (state >= DROVER_TASK_STATES || *end > DROVER_END_MAX)
        return true;            //  a newer sender's value (lenient): nothing to check it by
    if (!drover_end_fits (state, *end))
        return drover_mpack_fail (cursor, s_errors [field].invalid);
    return true;
}

//  Return how a task in state ended, as far as a peer of level 1 (which
//  sends no outcome) lets us know: the one outcome each final state has
//  by default, NONE while it runs
static uint8_t
s_end_of_state (uint8_t state)
{
    switch (state) {
        case DROVER_TASK_SUCCEEDED: return DROVER_END_SUCCEEDED;
        case DROVER_TASK_FAILED:    return DROVER_END_FAILED;
        case DROVER_TASK_CANCELLED: return DROVER_END_CANCELLED;
        case DROVER_TASK_UNKNOWN:   return DROVER_END_UNKNOWN;
    }
    return DROVER_END_NONE;
}

//  Read the rows of a TASK TABLE
static bool
s_read_task_rows (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    uint32_t count, fields;
    if (!drover_mpack_read_array (cursor, F_TASK_ROWS, 0, DROVER_ROWS_MAX, S_TASK_ROW_MIN, &count))
        return false;
    if (count == 0)
        return true;
    self->task_rows = (drover_task_row_t *) zmalloc (count * sizeof (drover_task_row_t));
    self->nrows = count;
    for (uint32_t index = 0; index < count; index++) {
        drover_task_row_t *row = &self->task_rows [index];
        const char *summary;
        size_t length;
        //  A row of 7 is level 1's: no outcome (derived), owner or reason
        if (!drover_mpack_read_array (cursor, P_ROW, 7, UINT32_MAX, 1, &fields)
        ||  !drover_mpack_read_u64 (cursor, F_TASK, &row->task)
        ||  !drover_mpack_read_u8 (cursor, P_ROW_STATE, DROVER_TASK_STATES - 1, &row->state))
            return false;
        if (fields == 7)
            row->end = s_end_of_state (row->state);
        else
        if (!s_read_end (cursor, P_ROW_END, row->state, &row->end))
            return false;
        if (!drover_mpack_read_i32 (cursor, F_PRIORITY, &row->priority)
        ||  !drover_mpack_read_u32 (cursor, F_PROCS, &row->procs)
        ||  !drover_mpack_read_u32 (cursor, F_ATTEMPT, &row->attempt)
        ||  !drover_mpack_read_id (cursor, F_WORKER_OPT, true, row->worker)
        ||  !drover_mpack_read_str (cursor, P_SUMMARY, 0, DROVER_SUMMARY_MAX, &summary, &length))
            return false;
        row->summary = drover_mpack_strndup (summary, length);     //  never NULL, for printing
        //  The owner came with version 1's security (§16): a row of 8 has none
        if (fields >= 9 && !drover_mpack_read_id (cursor, P_OWNER, true, row->owner))
            return false;
        //  Why a queued task waits came with explain (§7.16): a row of 9 has none
        if (fields >= 10) {
            if (!drover_mpack_read_str (cursor, P_ROW_REASON, 0, DROVER_ROW_REASON_MAX,
                                        &summary, &length))
                return false;
            memcpy (row->reason, summary, length);
            row->reason [length] = 0;
        }
        //  Why it waits, its group and parents came with workflows (level 3)
        if (fields > 10
        &&  !drover_mpack_read_u8 (cursor, P_ROW_WAITS, DROVER_WAITS_MAX, &row->waits))
            return false;
        if (fields > 11 && !drover_mpack_read_u64 (cursor, P_ROW_GROUP, &row->group))
            return false;
        if (fields > 12 && !drover_mpack_read_u32 (cursor, P_ROW_PARENTS, &row->parents))
            return false;
        if (!drover_mpack_skip_rest (cursor, fields, S_TASK_ROW_KNOWN, 3))
            return false;
    }
    return true;
}

//  Read the items of a TASK EXPLANATION
static bool
s_read_whys (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    uint32_t count, fields, names;
    if (!drover_mpack_read_array (cursor, F_WHYS, 0, DROVER_WHYS_MAX, S_WHY_MIN, &count))
        return false;
    if (count == 0)
        return true;
    self->whys = (drover_why_t *) zmalloc (count * sizeof (drover_why_t));
    self->nwhys = count;
    for (uint32_t index = 0; index < count; index++) {
        drover_why_t *why = &self->whys [index];
        const char *text;
        size_t length;
        if (!drover_mpack_read_array (cursor, P_WHY_ITEM, 6, UINT32_MAX, 1, &fields)
        ||  !drover_mpack_read_u8 (cursor, P_WHY_CODE, UINT8_MAX, &why->code)   //  any: §7.25
        ||  !drover_mpack_read_u32 (cursor, P_WHY_ITEM, &why->count)
        ||  !drover_mpack_read_u64 (cursor, P_WHY_ITEM, &why->a)
        ||  !drover_mpack_read_u64 (cursor, P_WHY_ITEM, &why->b)
        ||  !drover_mpack_read_str (cursor, P_WHY_TEXT, 0, DROVER_LABEL_MAX, &text, &length)
        ||  !drover_mpack_read_array (cursor, P_WHY_NAMES, 0, DROVER_WHY_NAMES_MAX, 2, &names))
            return false;
        if (why->code == 0)
            return drover_mpack_fail (cursor, s_errors [P_WHY_CODE].range);
        memcpy (why->text, text, length);
        why->text [length] = 0;
        for (uint32_t name = 0; name < names; name++)
            if (!drover_mpack_read_id (cursor, P_WHY_NAMES, false, why->names [name]))
                return false;
        why->nnames = names;
        if (!drover_mpack_skip_rest (cursor, fields, 6, 3))
            return false;
    }
    return true;
}

//  Read the optional trailing elements of a WORKER TABLE row of fields
//  elements (PROTOCOL.md §7.18): as many as it has of those this version
//  knows, then skip those of later versions
static bool
s_read_worker_row_tail (drover_mpack_cursor_t *cursor, drover_worker_row_t *row,
                        uint32_t fields)
{
    if (fields > 10
    &&  !drover_mpack_read_u8 (cursor, P_WORKER_STATE, DROVER_WORKER_STATE_MAX, &row->state))
        return false;
    if (fields > 11 && !drover_mpack_read_u64 (cursor, P_WORKER_SINCE, &row->since))
        return false;
    if (fields > 12 && !s_read_text (cursor, P_WHY, DROVER_REASON_MAX, &row->why))
        return false;
    if (fields > 13 && !s_read_text (cursor, F_ADMIN_REASON, DROVER_REASON_MAX,
                                     &row->admin_reason))
        return false;
    if (fields > 14 && !drover_mpack_read_u64 (cursor, P_ADMIN_SINCE, &row->admin_since))
        return false;
    if (fields > 15 && !drover_mpack_read_u64 (cursor, P_PROBATION_UNTIL, &row->probation_until))
        return false;
    if (fields > 16 && !drover_mpack_read_u32 (cursor, P_TASKS, &row->tasks))
        return false;
    uint64_t level;
    if (fields > 17) {
        if (!drover_mpack_read_uint (cursor, P_WORKER_LEVEL, UINT16_MAX, &level))
            return false;
        row->level = (uint16_t) level;
    }
    if (fields > 18 && !drover_mpack_read_fixed (cursor, P_WORKER_RELEASE, DROVER_RELEASE_MAX,
                                                 row->release))
        return false;
    //  The worker's devices, and those its tasks hold (level 4)
    if (fields > 19 && !drover_msg_share_read_devicelist (cursor, &row->devices))
        return false;
    if (fields > 20 && !drover_msg_share_read_devicelist (cursor, &row->devices_used))
        return false;
    //  Its heartbeat interval and the silence that makes it LOST (level 6)
    if (fields > 21 && !drover_mpack_read_u32 (cursor, F_HEARTBEAT, &row->heartbeat))
        return false;
    if (fields > 22 && !drover_mpack_read_u64 (cursor, P_LOST_AFTER, &row->lost_after))
        return false;
    //  The offers it may hold ahead, and holds now (level 9)
    uint64_t count;
    if (fields > 23) {
        if (!drover_mpack_read_uint (cursor, F_AHEAD, DROVER_AHEAD_MAX, &count))
            return false;
        row->ahead = (uint32_t) count;
    }
    if (fields > 24) {
        if (!drover_mpack_read_uint (cursor, P_HELD, DROVER_AHEAD_MAX, &count))
            return false;
        row->held = (uint32_t) count;
    }
    return drover_mpack_skip_rest (cursor, fields, S_WORKER_ROW_KNOWN, 3);
}

//  Read the rows of a WORKER TABLE
static bool
s_read_worker_rows (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    uint32_t count, fields;
    if (!drover_mpack_read_array (cursor, F_WORKER_ROWS, 0, DROVER_ROWS_MAX, S_WORKER_ROW_MIN,
                                  &count))
        return false;
    if (count == 0)
        return true;
    self->worker_rows = (drover_worker_row_t *) zmalloc (count * sizeof (drover_worker_row_t));
    self->nrows = count;
    for (uint32_t index = 0; index < count; index++) {
        drover_worker_row_t *row = &self->worker_rows [index];
        //  A row of 9 is level 1's: nothing after the stats
        if (!drover_mpack_read_array (cursor, P_ROW, 9, UINT32_MAX, 1, &fields)
        ||  !drover_mpack_read_id (cursor, F_WORKER, false, row->id)
        ||  !drover_mpack_read_u8 (cursor, P_HEALTH, DROVER_HEALTH_MAX, &row->health)
        ||  !drover_mpack_read_u8 (cursor, F_ADMIN, DROVER_ADMIN_MAX, &row->admin)
        ||  !drover_mpack_read_u32 (cursor, F_PROCS, &row->procs)
        ||  !drover_mpack_read_u32 (cursor, P_PROCS_USED, &row->procs_used)
        ||  !drover_mpack_read_u64 (cursor, F_MEM, &row->mem)
        ||  !drover_mpack_read_u64 (cursor, P_MEM_USED, &row->mem_used)
        ||  !drover_msg_fields_read_labels (cursor, F_LABELS, row->labels, &row->nlabels)
        ||  !s_read_stats (cursor, &row->stats, 4))
            return false;
        if (fields > 9
        &&  (!drover_mpack_read_u64 (cursor, P_RESERVED, &row->reserved)
        ||   !s_read_worker_row_tail (cursor, row, fields)))
            return false;
    }
    return true;
}

//  Read the state of a TASK LIST: a task state or 255 for all
static bool
s_read_list_state (drover_mpack_cursor_t *cursor, uint8_t *state)
{
    if (!drover_mpack_read_u8 (cursor, F_LIST_STATE, 255, state))
        return false;
    if (*state >= DROVER_TASK_STATES && *state != 255)
        return drover_mpack_fail (cursor, s_errors [F_LIST_STATE].range);
    return true;
}

//  Read a state id into self->state_id: 32 hex digits, or "" for none
static bool
s_read_state_id (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    const char *text;
    size_t length;
    if (!drover_mpack_read_str (cursor, F_STATE_ID, 0, DROVER_STATE_ID_SIZE, &text, &length))
        return false;
    if (!s_state_id_valid (text, length))
        return drover_mpack_fail (cursor, s_errors [F_STATE_ID].invalid);
    memcpy (self->state_id, text, length);
    self->state_id [length] = 0;
    return true;
}

//  Read a submit or affinity key into a new copy: 1..128 bytes of
//  printable ASCII, or nil for none (NULL)
static bool
s_read_key (drover_mpack_cursor_t *cursor, int field, char **key_p)
{
    const char *text;
    size_t length;
    if (drover_mpack_read_nil (cursor))
        return true;
    if (!drover_mpack_read_str (cursor, field, 1, DROVER_KEY_MAX, &text, &length))
        return false;
    if (!s_key_valid (text, length))
        return drover_mpack_fail (cursor, s_errors [field].invalid);
    free (*key_p);
    *key_p = drover_mpack_strndup (text, length);
    return true;
}

//  Read a PLAN's target, the action read before: the service of a scale,
//  else the worker (a drain's or hold's; a term's is ignored)
static bool
s_read_target (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    char *target = self->action == DROVER_PLAN_SCALE? self->service: self->worker;
    return drover_mpack_read_id (cursor, F_TARGET, true, target);
}

//  Read the events of an EVENT LIST: each a bin holding one event body
static bool
s_read_events (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    uint32_t count;
    if (!drover_mpack_read_array (cursor, F_EVENTS, 0, DROVER_REPLAY_MAX, S_EVENT_MIN, &count))
        return false;
    if (count == 0)
        return true;
    self->events = (drover_event_t *) zmalloc (count * sizeof (drover_event_t));
    self->nevents = count;
    for (uint32_t index = 0; index < count; index++) {
        const byte *data;
        size_t size;
        if (!drover_mpack_read_bin (cursor, F_EVENTS, DROVER_EVENT_MAX, &data, &size))
            return false;
        if (drover_event_decode (&self->events [index], data, size))
            return drover_mpack_fail (cursor, s_errors [F_EVENTS].invalid);
    }
    return true;
}

//  Read the info of a TASK INFO: a bin holding one encoded task info
static bool
s_read_info (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    const byte *data;
    size_t size;
    const char *error;
    if (!drover_mpack_read_bin (cursor, F_INFO, DROVER_MSG_MAX, &data, &size))
        return false;
    drover_taskinfo_destroy (&self->info);
    self->info = drover_taskinfo_decode (data, size, &error);
    if (!self->info)
        return drover_mpack_fail (cursor, s_errors [F_INFO].invalid);
    return true;
}

//  Read a workflow's name into self->reason: 1..64 bytes
static bool
s_read_workflow_name (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    const char *text;
    size_t length;
    if (!drover_mpack_read_str (cursor, F_WORKFLOW_NAME, 1, DROVER_ID_MAX, &text, &length))
        return false;
    self->reason = drover_mpack_strndup (text, length);
    return true;
}

//  Read a backup's file name: 1..DROVER_PATH_MAX bytes (no NUL)
static bool
s_read_path (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    const char *text;
    size_t length;
    if (!drover_mpack_read_str (cursor, F_PATH, 1, DROVER_PATH_MAX, &text, &length))
        return false;           //  (a str with a NUL in it is refused there)
    self->path = drover_mpack_strndup (text, length);
    return true;
}

//  Read one field into self
static bool
s_read_field (drover_mpack_cursor_t *cursor, drover_msg_t *self, int field)
{
    uint64_t code;
    switch (field) {
        case F_WORKER:      return drover_mpack_read_id (cursor, field, false, self->worker);
        case F_WORKER_OPT:  return drover_mpack_read_id (cursor, field, true, self->worker);
        case F_EPOCH:       return drover_mpack_read_u64 (cursor, field, &self->epoch);
        case F_TASK:        return drover_mpack_read_u64 (cursor, field, &self->task);
        case F_ATTEMPT:     return drover_mpack_read_u32 (cursor, field, &self->attempt);
        case F_PRIORITY:    return drover_mpack_read_i32 (cursor, field, &self->priority);
        case F_PROCS:       return drover_mpack_read_u32 (cursor, field, &self->procs);
        case F_MEM:         return drover_mpack_read_u64 (cursor, field, &self->mem);
        case F_LABELS:      return drover_msg_fields_read_labels (cursor, F_LABELS, self->labels, &self->nlabels);
        case F_LIST_LABELS:     //  nil: none (before a group); a filter has 1..16
            if (drover_mpack_read_nil (cursor))
                return true;
            return drover_msg_fields_read_labels (cursor, F_LABELS, self->labels, &self->nlabels)
                && (self->nlabels > 0
                    || drover_mpack_fail (cursor, s_errors [F_LABELS].range));
        case F_AFTER:       return drover_msg_workflow_read_after (cursor, self);
        case F_BEGIN:       return drover_mpack_read_u64 (cursor, field, &self->begin);
        case F_RETRY_DELAY: return drover_mpack_read_u32 (cursor, field, &self->retry_delay);
        case F_RETRY_MAX_DELAY: return drover_mpack_read_u32 (cursor, field,
                                                              &self->retry_max_delay);
        case F_ARRAY:       return drover_msg_workflow_read_array (cursor, self);
        case F_LIST_GROUP:  return drover_mpack_read_u64 (cursor, field, &self->group);
        case F_WORKFLOW_NAME: return s_read_workflow_name (cursor, self);
        case F_STEPS:       return drover_msg_workflow_read_steps (cursor, self);
        case F_STEP_TASKS:  return drover_msg_workflow_read_step_tasks (cursor, self);
        case F_RUNNING:     return s_read_running (cursor, self);
        case F_STATS:       return s_read_stats (cursor, &self->stats, 2);
        case F_HEARTBEAT:   return drover_mpack_read_u32 (cursor, field, &self->heartbeat);
        case F_TIMEOUT:     return drover_mpack_read_u32 (cursor, field, &self->timeout);
        case F_RETRIES:     return drover_mpack_read_u32 (cursor, field, &self->retries);
        case F_FLAGS:       return drover_mpack_read_u32 (cursor, field, &self->flags);
        case F_BODY:        return s_read_bytes (cursor, field, DROVER_BODY_MAX,
                                                 &self->body, &self->body_size);
        case F_OUTCOME:     return drover_mpack_read_u8 (cursor, field, DROVER_OUTCOME_MAX,
                                                         &self->outcome);
        case F_STATE:       return drover_mpack_read_u8 (cursor, field, DROVER_TASK_STATES - 1,
                                                         &self->state);
        case F_TASK_END:    return s_read_end (cursor, field, self->state, &self->end);
        case F_LIST_STATE:  return s_read_list_state (cursor, &self->state);
        case F_ADMIN:       return drover_mpack_read_u8 (cursor, field, DROVER_ADMIN_MAX,
                                                         &self->admin);
        case F_EXIT_CODE:   return drover_mpack_read_i32 (cursor, field, &self->exit_code);
        case F_SIGNAL:      return drover_mpack_read_i32 (cursor, field, &self->signal);
        case F_TRUNCATED:   return drover_mpack_read_u32 (cursor, field, &self->truncated);
        case F_DURATION:    return drover_mpack_read_u32 (cursor, field, &self->duration);
        case F_OUT:         return s_read_bytes (cursor, field, DROVER_OUTPUT_MAX,
                                                 &self->out, &self->out_size);
        case F_ERR:         return s_read_bytes (cursor, field, DROVER_OUTPUT_MAX,
                                                 &self->err, &self->err_size);
        case F_REASON:
        case F_ADMIN_REASON: return s_read_text (cursor, field, DROVER_REASON_MAX, &self->reason);
        case F_ADMIN_FLAGS: return drover_mpack_read_u32 (cursor, field, &self->flags);
        case F_CODE:
            if (!drover_mpack_read_uint (cursor, field, UINT16_MAX, &code))
                return false;
            self->code = (uint16_t) code;
            return true;
        case F_LIMIT:       return drover_mpack_read_u32 (cursor, field, &self->limit);
        case F_TASKS:       return s_read_tasks (cursor, self);
        case F_COUNTS:      return s_read_counts (cursor, self);
        case F_TASK_ROWS:   return s_read_task_rows (cursor, self);
        case F_WORKER_ROWS: return s_read_worker_rows (cursor, self);
        case F_STATE_ID:    return s_read_state_id (cursor, self);
        case F_SINCE:       return drover_mpack_read_u64 (cursor, field, &self->since);
        case F_LAST:        return drover_mpack_read_u64 (cursor, field, &self->last);
        case F_MORE:        return drover_mpack_read_u8 (cursor, field, 1, &self->more);
        case F_EVENTS:      return s_read_events (cursor, self);
        case F_INFO:        return s_read_info (cursor, self);
        case F_WHYS:        return s_read_whys (cursor, self);
        case F_POOL_SUMMARY: return drover_msg_pool_read_summary (cursor, self);
        case F_POOL_ROWS:   return drover_msg_pool_read_rows (cursor, self);
        case F_POOL_ACTION: return drover_mpack_read_u8 (cursor, field, DROVER_POOLADMIN_MAX,
                                                         &self->admin);
        case F_INSTANCE:    return drover_mpack_read_id (cursor, field, false, self->worker);
        case F_KEY:         return s_read_key (cursor, field, &self->key);
        case F_AFFINITY:    return s_read_key (cursor, field, &self->affinity);
        case F_SUBMIT_SERVICE:
        case F_SERVICE_OPT: return drover_mpack_read_id (cursor, field, true, self->service);
        case F_SERVICE:     return drover_mpack_read_id (cursor, field, false, self->service);
        case F_SUBMIT_SLOT: return drover_mpack_read_u32 (cursor, field, &self->slot);
        case F_SERVICE_ACTION: return drover_mpack_read_u8 (cursor, field,
                                                            DROVER_SERVICE_ACTION_MAX,
                                                            &self->action);
        case F_PLAN_ACTION: return drover_mpack_read_u8 (cursor, field, DROVER_PLAN_ACTION_MAX,
                                                         &self->action);
        case F_TARGET:      return s_read_target (cursor, self);
        case F_REPLICA_COUNT:
        case F_PLAN_COUNT:  return drover_mpack_read_u32 (cursor, field, &self->count);
        case F_DELAY:       return drover_mpack_read_u32 (cursor, field, &self->delay);
        case F_SERVICE_STATS: return drover_msg_service_read_stats (cursor, &self->stats_now);
        case F_STATS_AFTER: return drover_msg_service_read_stats (cursor, &self->stats_after);
        case F_SERVICE_ROWS: return drover_msg_service_read_services (cursor, self);
        case F_REPLICA_ROWS: return drover_msg_service_read_replicas (cursor, self);
        case F_CHANGES:     return drover_msg_service_read_changes (cursor, self);
        case F_LEADER:      return drover_mpack_read_fixed (cursor, field, DROVER_ENDPOINT_MAX,
                                                 self->leader);
        case F_LEADER_NAME: return drover_mpack_read_fixed (cursor, field, DROVER_ID_MAX,
                                                 self->leader_name);
        case F_STRATEGY:    return drover_msg_queues_read_strategy (cursor, self);
        case F_QUEUE_ROWS:  return drover_msg_queues_read_rows (cursor, self);
        case F_LEVEL:
            if (!drover_mpack_read_uint (cursor, field, UINT16_MAX, &code))
                return false;
            self->level = (uint16_t) code;
            return true;
        case F_RELEASE:     return drover_mpack_read_fixed (cursor, field, DROVER_RELEASE_MAX,
                                                            self->release);
        case F_OWNER:       return drover_mpack_read_id (cursor, field, true, self->owner);
        case F_SHARE_NAME:  return drover_mpack_read_id (cursor, field, false, self->owner);
        case F_DEVICES:     return drover_msg_share_read_devices (cursor, self);
        case F_ASSIGNED:    return drover_msg_share_read_assigned (cursor, self);
        case F_SHARE_ACTION: return drover_mpack_read_u8 (cursor, field, DROVER_SHARE_ACTION_MAX,
                                                          &self->action);
        case F_WEIGHT:
            if (!drover_mpack_read_uint (cursor, field, DROVER_WEIGHT_MAX, &code))
                return false;
            self->weight = (uint32_t) code;
            return true;
        case F_MEMBERS:     return drover_msg_share_read_members (cursor, self);
        case F_QUOTA_PROCS: return drover_mpack_read_u32 (cursor, field, &self->quota_procs);
        case F_QUOTA_MEM:   return drover_mpack_read_u64 (cursor, field, &self->quota_mem);
        case F_QUOTA_QUEUED: return drover_mpack_read_u32 (cursor, field, &self->quota_queued);
        case F_SHARE_ROWS:  return drover_msg_share_read_rows (cursor, self);
        case F_PATH:        return s_read_path (cursor, self);
        case F_PAGES:       return drover_mpack_read_u64 (cursor, field, &self->pages);
        case F_BYTES:       return drover_mpack_read_u64 (cursor, field, &self->bytes);
        case F_ACK_TIMEOUT: return drover_mpack_read_u32 (cursor, field, &self->ack_timeout);
        case F_MAX_PER_WORKER: return drover_mpack_read_u32 (cursor, field, &self->max_per_worker);
        case F_AHEAD:
            if (drover_mpack_read_u32 (cursor, field, &self->ahead))
                return -1;
            return self->ahead > DROVER_AHEAD_MAX? drover_mpack_fail (cursor, "ahead: out of range"): 0;
    }
    return drover_mpack_fail (cursor, "internal: unknown field");
}

//  Read the header: array, signature, version, id and seq, setting what
//  it can in self even when the message is refused (the broker echoes the
//  seq of a refused request). Returns the array's element count, or -1.
int64_t
drover_msg_fields_read_header (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    uint32_t count;
    const char *signature;
    size_t length;
    uint64_t version, id;
    bool negative;
    if (!drover_mpack_read_array (cursor, P_HEADER, 0, UINT32_MAX, 1, &count))
        return -1;
    if (count < 1
    ||  !drover_mpack_read_str (cursor, P_SIGNATURE, 0, 255, &signature, &length)
    ||  length != 3 || memcmp (signature, DROVER_MSG_SIGNATURE, 3)) {
        cursor->error = s_errors [P_SIGNATURE].invalid;
        return -1;
    }
    if (count < 2) {
        cursor->error = "message: header incomplete";
        return -1;
    }
    if (!drover_mpack_read_integer (cursor, &s_errors [P_VERSION], &negative, &version))
        return -1;              //  not even an integer: malformed, not a version
    bool known = !negative && version == DROVER_MSG_VERSION;
    if (count >= 4
    &&  drover_mpack_read_uint (cursor, P_ID, UINT32_MAX, &id)
    &&  drover_mpack_read_u32 (cursor, P_SEQ, &self->seq))
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

//  True if a receiver passes over what it does not know in a message of
//  this id (PROTOCOL.md §12): everything the broker sends, and the HELLOs
//  that open a dialogue (a newer peer says them before it knows the
//  broker's level). The broker refuses the other requests of a newer
//  level: it never guesses at what it was asked.
static bool
s_lenient (int id)
{
    return id == DROVER_MSG_WORKER_HELLO || id == DROVER_MSG_CLIENT_HELLO
        || id == DROVER_MSG_WORKER_WELCOME || id == DROVER_MSG_WORKER_LEAVE
        || id == DROVER_MSG_TASK_OFFER || id == DROVER_MSG_TASK_KILL
        || id == DROVER_MSG_TASK_ACCEPTED || id == DROVER_MSG_TASK_DONE
        || id == DROVER_MSG_TASK_TABLE || id == DROVER_MSG_WORKER_TABLE
        || id == DROVER_MSG_OK || id == DROVER_MSG_ERROR
        || id == DROVER_MSG_EVENT_LIST || id == DROVER_MSG_TASK_EXPLANATION
        || id == DROVER_MSG_TASK_INFO || id == DROVER_MSG_POOL_TABLE
        || id == DROVER_MSG_WORKER_GATHER || id == DROVER_MSG_SERVICE_TABLE
        || id == DROVER_MSG_PLAN_RESULT || id == DROVER_MSG_REDIRECT
        || id == DROVER_MSG_QUEUE_TABLE || id == DROVER_MSG_CLIENT_WELCOME
        || id == DROVER_MSG_WORKFLOW_ACCEPTED || id == DROVER_MSG_SHARE_TABLE
        || id == DROVER_MSG_BACKUP_DONE;
}

//  Return how many of fields [count] a message must have: all but the
//  optional ones at its end
static size_t
s_required (const uint8_t *fields, size_t count)
{
    while (count > 0 && s_optional (fields [count - 1]))
        count--;
    return count;
}

//  Read the fields of self->id, the header read: the array holds count
//  elements in all. The layout is that of the newest level whose required
//  fields count fits (a message of level 1 lacks fields a later level put
//  before others, as TASK DONE's outcome); step: a WORKFLOW SUBMIT's step,
//  a TASK SUBMIT whose after entries may name steps. Returns false at the
//  first field that is wrong, or if count fits no level, with
//  cursor->error saying why; sets self->implied.
bool
drover_msg_fields_read (drover_mpack_cursor_t *cursor, drover_msg_t *self, size_t count,
                        bool step)
{
    if (step && self->id != DROVER_MSG_TASK_SUBMIT)
        return drover_mpack_fail (cursor, s_errors [P_STEP_SUBMIT].invalid);
    bool lenient = s_lenient (self->id);
    cursor->lenient = lenient && self->id != DROVER_MSG_WORKER_HELLO
                   && self->id != DROVER_MSG_CLIENT_HELLO;     //  their values: strict
    size_t have = count - 4;
    uint8_t fields [S_FIELDS_MAX];
    int id_level = drover_msg_id_level (self->id);
    for (int level = DROVER_MSG_LEVEL; level >= id_level; level--) {
        size_t nfields = s_fields_at (self->id, level, fields);
        if (have < s_required (fields, nfields))
            continue;           //  too few for this level: an older one's?
        if (have > nfields && !lenient)
            break;              //  a newer level's request: refused
        size_t read = have < nfields? have: nfields;
        for (size_t index = 0; index < read; index++)
            if (!s_read_field (cursor, self, fields [index]))
                return false;
        if (self->id == DROVER_MSG_TASK_DONE && level < 2)
            self->end = s_end_of_state (self->state);
        if (self->id == DROVER_MSG_TASK_SUBMIT
        &&  !drover_msg_workflow_check_after (cursor, self, step))
            return false;
        //  The lowest level whose peers could have sent this much
        self->implied = (uint16_t) id_level;
        while (self->implied < DROVER_MSG_LEVEL
        &&     have > s_fields_at (self->id, self->implied, fields))
            self->implied++;
        return drover_mpack_skip_rest (cursor, (uint32_t) have, (uint32_t) read, 1);
    }
    return drover_mpack_fail (cursor, "message: wrong number of fields");
}

//  A cursor over size bytes at data that names message fields in its errors
drover_mpack_cursor_t
drover_msg_fields_cursor (const byte *data, size_t size)
{
    return drover_mpack_cursor (data, size, s_errors);
}
