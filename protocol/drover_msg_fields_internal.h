/*  =========================================================================
    drover_msg_fields_internal - what the message table's own files share:
    drover_msg_fields.c (the schema and the rules on field values),
    drover_msg_fields_pack.c (packing) and drover_msg_fields_read.c
    (reading); not for anyone else
    =========================================================================
*/

#ifndef DROVER_MSG_FIELDS_INTERNAL_H_INCLUDED
#define DROVER_MSG_FIELDS_INTERNAL_H_INCLUDED

#include "drover_msg_fields.h"

//  The fields of the messages, in drover_msg_fields_schema, then the parts
//  of the header and of records that are not fields, for error texts
typedef enum {
    F_END = 0,
    //  Fields of messages, in drover_msg_fields_schema
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
    //  Parts that are not message fields, for error texts
    P_HEADER, P_SIGNATURE, P_VERSION, P_ID, P_SEQ, P_RUNNING_ITEM, P_ROW, P_HEALTH,
    P_PROCS_USED, P_MEM_USED, P_SUMMARY, P_OWNER, P_ROW_STATE, P_ROW_END, P_RESERVED,
    P_WORKER_STATE, P_WORKER_SINCE, P_WHY, P_ADMIN_SINCE, P_PROBATION_UNTIL, P_TASKS,
    P_ROW_REASON, P_WORKER_LEVEL, P_WORKER_RELEASE, P_WHY_ITEM, P_WHY_CODE, P_WHY_TEXT, P_WHY_NAMES, P_COUNT
} s_field_t;

#define S_FIELDS_MAX    12          //  most fields in one message (DONE, SUBMIT)

#define S_TASK_ROW_KNOWN    10      //  elements of a TASK TABLE row this version reads;
                                    //  a row may have 8 or more (later versions': skipped)
#define S_WORKER_ROW_KNOWN  19      //  elements of a WORKER TABLE row this version reads;
                                    //  a row may have 10 (before the optional ones) and
                                    //  more (later versions': skipped)

//  The fields of each message, in wire order, ending with F_END
extern const uint8_t
    drover_msg_fields_schema [DROVER_MSG_ID_MAX + 1][S_FIELDS_MAX + 1];

//  Return how many fields a message id has, its optional last one included
size_t
    drover_msg_fields_nfields (int id);

//  True for a field that may be left out (at a message's end)
bool
    drover_msg_fields_optional (int field);

//  Return the protocol level that brought a field into the messages that
//  have it (PROTOCOL.md §12): 1, or a later level
int
    drover_msg_fields_since (int field);

//  Write the fields a peer of level knows of message id, in wire order,
//  into fields [S_FIELDS_MAX]; returns how many
size_t
    drover_msg_fields_at (int id, int level, uint8_t *fields);


//  True if length bytes are a state id: exactly 32 hex digits, or none
bool
    drover_msg_fields_state_id_valid (const char *text, size_t length);

//  True if length bytes are a submit key: 1..128 bytes of printable ASCII
bool
    drover_msg_fields_key_valid (const char *text, size_t length);

//  True if length bytes are a "key=value" label (see drover_label_valid)
bool
    drover_msg_fields_label_valid (const char *label, size_t length);

#endif
