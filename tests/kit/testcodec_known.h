/*  =========================================================================
    testcodec_known - what a decoded wire message holds that this version
    of the codec does not know, for the codec's test and its fuzz target
    (tests/fuzz/fuzz_msg.c, which links nothing but libdrover)

    A message the broker sends is read from a newer broker too: enum
    values past the last this version knows are kept as they came
    (PROTOCOL.md §12). Such a message decodes but does not encode again,
    so "what decodes, encodes" holds for every other message only.
    =========================================================================
*/

#ifndef TESTCODEC_KNOWN_H_INCLUDED
#define TESTCODEC_KNOWN_H_INCLUDED

#include "drover_msg.h"

//  True if a decoded message holds a value this version does not know: an
//  enum or flag past its last value, kept as it came in a message the
//  broker sends (PROTOCOL.md §12). Such a message is read, but not sent on.
static inline bool
testcodec_holds_unknown_value (const drover_msg_t *msg)
{
    bool unknown = msg->outcome > DROVER_OUTCOME_MAX || msg->end > DROVER_END_MAX
                || (msg->id != DROVER_MSG_TASK_LIST && msg->state >= DROVER_TASK_STATES)
                || msg->more > 1
                || msg->pool.enabled > 1 || msg->pool.probing > 1
                || msg->stats_now.complete > 1
                || msg->stats_after.complete > 1;
    for (uint32_t index = 0; msg->task_rows && index < msg->nrows; index++)
        unknown |= msg->task_rows [index].state >= DROVER_TASK_STATES
                || msg->task_rows [index].end > DROVER_END_MAX
                || msg->task_rows [index].waits > DROVER_WAITS_MAX;
    for (uint32_t index = 0; msg->worker_rows && index < msg->nrows; index++)
        unknown |= msg->worker_rows [index].health > DROVER_HEALTH_MAX
                || msg->worker_rows [index].admin > DROVER_ADMIN_MAX
                || msg->worker_rows [index].state > DROVER_WORKER_STATE_MAX;
    for (uint32_t index = 0; msg->pool_rows && index < msg->nrows; index++)
        unknown |= msg->pool_rows [index].state > DROVER_POOL_STATE_MAX
                || msg->pool_rows [index].behaviour > DROVER_POOLADMIN_DRAIN
                || msg->pool_rows [index].probe > DROVER_POOL_PROBE_MAX;
    for (uint32_t index = 0; index < msg->nwhys; index++)
        unknown |= msg->whys [index].code > DROVER_WHY_MAX;
    for (uint32_t index = 0; index < msg->nservices; index++)
        unknown |= msg->service_rows [index].state > DROVER_SERVICE_STATE_MAX;
    for (uint32_t index = 0; index < msg->nreplicas; index++)
        unknown |= msg->replica_rows [index].state > DROVER_REPLICA_STATE_MAX;
    for (uint32_t index = 0; index < msg->nshares; index++)
        unknown |= msg->share_rows [index].kind > 1;
    for (uint32_t index = 0; index < msg->nchanges; index++)
        unknown |= msg->changes [index].kind > DROVER_CHANGE_KIND_MAX;
    return unknown;
}

//  True if the broker sends messages of this id: their receivers keep the
//  values they do not know (the HELLOs, though lenient, are not among them)
static inline bool
testcodec_from_broker (int id)
{
    int ids [] = { DROVER_MSG_WORKER_WELCOME, DROVER_MSG_WORKER_LEAVE, DROVER_MSG_TASK_OFFER,
                   DROVER_MSG_TASK_KILL, DROVER_MSG_TASK_ACCEPTED, DROVER_MSG_TASK_DONE,
                   DROVER_MSG_TASK_TABLE, DROVER_MSG_WORKER_TABLE, DROVER_MSG_OK,
                   DROVER_MSG_ERROR, DROVER_MSG_EVENT_LIST, DROVER_MSG_TASK_EXPLANATION,
                   DROVER_MSG_TASK_INFO, DROVER_MSG_POOL_TABLE, DROVER_MSG_WORKER_GATHER,
                   DROVER_MSG_SERVICE_TABLE, DROVER_MSG_PLAN_RESULT, DROVER_MSG_REDIRECT,
                   DROVER_MSG_QUEUE_TABLE, DROVER_MSG_CLIENT_WELCOME,
                   DROVER_MSG_WORKFLOW_ACCEPTED, DROVER_MSG_SHARE_TABLE,
                   DROVER_MSG_BACKUP_DONE };
    for (size_t index = 0; index < sizeof ids / sizeof ids [0]; index++)
        if (ids [index] == id)
            return true;
    return false;
}

#endif
