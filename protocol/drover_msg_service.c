/*  =========================================================================
    drover_msg_service - the records of the services' and plans' messages:
    the term statistics, SERVICE TABLE's service and replica rows, PLAN
    RESULT's changes (internal; PROTOCOL.md §7.31-7.37)

    Statistics are a record of 19 elements (the last the restarts
    histogram, an array of exactly 8 counts), 24 at level 7 (best, not
    best, the rank histogram of 8, capped, rebalanced), a service row a
    record of 13, 14 at level 7 (max per worker), a replica row one of 9,
    a change one of 7. A peer of level 6 or older gets the old layouts. Each record may grow at
    its end in a later version: a reader takes the elements it knows and
    skips the rest (each a well-formed value, the message was walked
    before). Every number is range-checked, every string against its limit
    and content, on the way out (such a table is not encoded) and on the
    way in (it is refused). Rows are refused before they are allocated
    unless the bytes left hold their count at the smallest size a row can
    take.

    Errors name the part that is wrong: while reading, the cursor says its
    errors with this file's table, then the message table's again. The
    names of the services' values (states, kinds, actions) are here too.
    =========================================================================
*/

#include "drover_msg_service.h"
#include "drover_msg_fields.h"

//  The parts of the records, for error texts
typedef enum {
    P_STATS, P_TERM, P_AT, P_DURATION, P_COMPLETE, P_STATS_WHY, P_WORKERS, P_ANSWERED,
    P_SERVICES_COUNT, P_LOST, P_UNDER, P_OK, P_OVER, P_WANTED, P_RUNNING, P_PENDING,
    P_STARTED, P_STOPPED, P_MOVED, P_RESTARTS, P_BEST, P_NOT_BEST, P_RANKS, P_CAPPED,
    P_REBALANCED, P_MAX_PER_WORKER,
    P_SERVICES, P_SERVICE_ROW, P_NAME, P_REPLICAS, P_PROCS, P_MEM, P_LABELS, P_DELAY,
    P_ROW_RUNNING, P_ROW_PENDING, P_ROW_RESTARTS, P_STATE, P_CREATED, P_SUMMARY, P_WHY,
    P_REPLICA_ROWS, P_REPLICA_ROW, P_SERVICE, P_SLOT, P_TASK, P_ATTEMPT, P_WORKER,
    P_REPLICA_STATE, P_SINCE, P_SLOT_RESTARTS,
    P_CHANGES, P_CHANGE, P_KIND, P_FROM, P_TO,
    P_COUNT
} s_part_t;

static const drover_mpack_errors_t
s_errors [P_COUNT] = {
    [P_STATS]       = DROVER_MPACK_ERRORS ("stats", "invalid"),
    [P_TERM]        = DROVER_MPACK_ERRORS ("term", "invalid"),
    [P_AT]          = DROVER_MPACK_ERRORS ("at", "invalid"),
    [P_DURATION]    = DROVER_MPACK_ERRORS ("duration", "invalid"),
    [P_COMPLETE]    = DROVER_MPACK_ERRORS ("complete", "invalid"),
    [P_STATS_WHY]   = DROVER_MPACK_ERRORS ("stats why", "invalid"),
    [P_WORKERS]     = DROVER_MPACK_ERRORS ("workers", "invalid"),
    [P_ANSWERED]    = DROVER_MPACK_ERRORS ("answered", "invalid"),
    [P_SERVICES_COUNT] = DROVER_MPACK_ERRORS ("services count", "invalid"),
    [P_LOST]        = DROVER_MPACK_ERRORS ("lost", "invalid"),
    [P_UNDER]       = DROVER_MPACK_ERRORS ("under", "invalid"),
    [P_OK]          = DROVER_MPACK_ERRORS ("ok", "invalid"),
    [P_OVER]        = DROVER_MPACK_ERRORS ("over", "invalid"),
    [P_WANTED]      = DROVER_MPACK_ERRORS ("wanted", "invalid"),
    [P_RUNNING]     = DROVER_MPACK_ERRORS ("running", "invalid"),
    [P_PENDING]     = DROVER_MPACK_ERRORS ("pending", "invalid"),
    [P_STARTED]     = DROVER_MPACK_ERRORS ("started", "invalid"),
    [P_STOPPED]     = DROVER_MPACK_ERRORS ("stopped", "invalid"),
    [P_MOVED]       = DROVER_MPACK_ERRORS ("moved", "invalid"),
    [P_RESTARTS]    = DROVER_MPACK_ERRORS ("restarts histogram", "invalid"),
    [P_BEST]        = DROVER_MPACK_ERRORS ("best", "invalid"),
    [P_NOT_BEST]    = DROVER_MPACK_ERRORS ("not best", "invalid"),
    [P_RANKS]       = DROVER_MPACK_ERRORS ("ranks histogram", "invalid"),
    [P_CAPPED]      = DROVER_MPACK_ERRORS ("capped", "invalid"),
    [P_REBALANCED]  = DROVER_MPACK_ERRORS ("rebalanced", "invalid"),
    [P_MAX_PER_WORKER] = DROVER_MPACK_ERRORS ("max per worker", "invalid"),
    [P_SERVICES]    = DROVER_MPACK_ERRORS ("services", "invalid"),
    [P_SERVICE_ROW] = DROVER_MPACK_ERRORS ("service row", "invalid"),
    [P_NAME]        = DROVER_MPACK_ERRORS ("name", "not a valid service name"),
    [P_REPLICAS]    = DROVER_MPACK_ERRORS ("replicas", "invalid"),
    [P_PROCS]       = DROVER_MPACK_ERRORS ("procs", "invalid"),
    [P_MEM]         = DROVER_MPACK_ERRORS ("mem", "invalid"),
    [P_LABELS]      = DROVER_MPACK_ERRORS ("labels", "not key=value"),
    [P_DELAY]       = DROVER_MPACK_ERRORS ("restart_delay", "invalid"),
    [P_ROW_RUNNING] = DROVER_MPACK_ERRORS ("row running", "invalid"),
    [P_ROW_PENDING] = DROVER_MPACK_ERRORS ("row pending", "invalid"),
    [P_ROW_RESTARTS] = DROVER_MPACK_ERRORS ("row restarts", "invalid"),
    [P_STATE]       = DROVER_MPACK_ERRORS ("service state", "invalid"),
    [P_CREATED]     = DROVER_MPACK_ERRORS ("created", "invalid"),
    [P_SUMMARY]     = DROVER_MPACK_ERRORS ("summary", "invalid"),
    [P_WHY]         = DROVER_MPACK_ERRORS ("why", "invalid"),
    [P_REPLICA_ROWS] = DROVER_MPACK_ERRORS ("replicas rows", "invalid"),
    [P_REPLICA_ROW] = DROVER_MPACK_ERRORS ("replica row", "invalid"),
    [P_SERVICE]     = DROVER_MPACK_ERRORS ("service", "not a valid service name"),
    [P_SLOT]        = DROVER_MPACK_ERRORS ("slot", "invalid"),
    [P_TASK]        = DROVER_MPACK_ERRORS ("task", "invalid"),
    [P_ATTEMPT]     = DROVER_MPACK_ERRORS ("attempt", "invalid"),
    [P_WORKER]      = DROVER_MPACK_ERRORS ("worker", "not a valid worker id"),
    [P_REPLICA_STATE] = DROVER_MPACK_ERRORS ("replica state", "invalid"),
    [P_SINCE]       = DROVER_MPACK_ERRORS ("since", "invalid"),
    [P_SLOT_RESTARTS] = DROVER_MPACK_ERRORS ("replica restarts", "invalid"),
    [P_CHANGES]     = DROVER_MPACK_ERRORS ("changes", "invalid"),
    [P_CHANGE]      = DROVER_MPACK_ERRORS ("change", "invalid"),
    [P_KIND]        = DROVER_MPACK_ERRORS ("kind", "invalid"),
    [P_FROM]        = DROVER_MPACK_ERRORS ("from", "not a valid worker id"),
    [P_TO]          = DROVER_MPACK_ERRORS ("to", "not a valid worker id"),
};

#define S_STATS_OLD         19      //  elements of the statistics up to level 6
#define S_STATS_KNOWN       24      //  elements of the statistics this version reads
#define S_SERVICE_OLD       13      //  elements of a service row up to level 6
#define S_SERVICE_KNOWN     14      //  elements of a service row this version reads
#define S_SERVICE_MIN       15      //  fewest wire bytes of a service row: header +
                                    //  1-byte name (2) + 8 fixints + empty labels
                                    //  + empty summary and why
#define S_REPLICA_KNOWN     9       //  elements of a replica row this version reads
#define S_REPLICA_MIN       11      //  header + 1-byte service (2) + 6 fixints + empty
                                    //  worker and why
#define S_CHANGE_KNOWN      7       //  elements of a change this version reads
#define S_CHANGE_MIN        8       //  header + 3 fixints + 4 empty strs


//  ---------------------------------------------------------------------
//  Packing

//  Pack a term's statistics; -1 if they break a limit
int
drover_msg_service_pack_stats (msgpack_packer *pk, const drover_service_stats_t *stats,
                               int level)
{
    if (stats->complete > 1)
        return -1;
    msgpack_pack_array (pk, level >= 7? S_STATS_KNOWN: S_STATS_OLD);
    msgpack_pack_uint64 (pk, stats->term);
    msgpack_pack_uint64 (pk, stats->at);
    msgpack_pack_uint32 (pk, stats->duration);
    msgpack_pack_uint8 (pk, stats->complete);
    if (drover_mpack_pack_text (pk, stats->why, DROVER_REASON_MAX))
        return -1;
    const uint32_t counts [] = {
        stats->workers, stats->answered, stats->services, stats->lost, stats->under,
        stats->ok, stats->over, stats->wanted, stats->running, stats->pending,
        stats->started, stats->stopped, stats->moved
    };
    for (size_t index = 0; index < sizeof counts / sizeof counts [0]; index++)
        msgpack_pack_uint32 (pk, counts [index]);
    msgpack_pack_array (pk, DROVER_HISTOGRAM_BUCKETS);
    for (int bucket = 0; bucket < DROVER_HISTOGRAM_BUCKETS; bucket++)
        msgpack_pack_uint32 (pk, stats->restarts [bucket]);
    if (level < 7)
        return 0;
    msgpack_pack_uint32 (pk, stats->best);
    msgpack_pack_uint32 (pk, stats->not_best);
    msgpack_pack_array (pk, DROVER_HISTOGRAM_BUCKETS);
    for (int bucket = 0; bucket < DROVER_HISTOGRAM_BUCKETS; bucket++)
        msgpack_pack_uint32 (pk, stats->ranks [bucket]);
    msgpack_pack_uint32 (pk, stats->capped);
    msgpack_pack_uint32 (pk, stats->rebalanced);
    return 0;
}

//  Pack SERVICE TABLE's service rows; -1 if one breaks a limit
int
drover_msg_service_pack_services (msgpack_packer *pk, const drover_msg_t *self, int level)
{
    if (self->nservices > DROVER_ROWS_MAX || (self->nservices && !self->service_rows))
        return -1;
    msgpack_pack_array (pk, self->nservices);
    for (uint32_t index = 0; index < self->nservices; index++) {
        const drover_service_row_t *row = &self->service_rows [index];
        if (row->state > DROVER_SERVICE_STATE_MAX)
            return -1;
        msgpack_pack_array (pk, level >= 7? S_SERVICE_KNOWN: S_SERVICE_OLD);
        if (drover_mpack_pack_id (pk, row->name, false))
            return -1;
        msgpack_pack_uint32 (pk, row->replicas);
        msgpack_pack_uint32 (pk, row->procs);
        msgpack_pack_uint64 (pk, row->mem);
        if (drover_msg_fields_pack_labels (pk, row->labels, row->nlabels))
            return -1;
        msgpack_pack_uint32 (pk, row->restart_delay);
        msgpack_pack_uint32 (pk, row->running);
        msgpack_pack_uint32 (pk, row->pending);
        msgpack_pack_uint32 (pk, row->restarts);
        msgpack_pack_uint8 (pk, row->state);
        msgpack_pack_uint64 (pk, row->created);
        if (drover_mpack_pack_text (pk, row->summary, DROVER_SUMMARY_MAX)
        ||  drover_mpack_pack_text (pk, row->why, DROVER_REASON_MAX))
            return -1;
        if (level >= 7)
            msgpack_pack_uint32 (pk, row->max_per_worker);
    }
    return 0;
}

//  Pack SERVICE TABLE's replica rows; -1 if one breaks a limit
int
drover_msg_service_pack_replicas (msgpack_packer *pk, const drover_msg_t *self)
{
    if (self->nreplicas > DROVER_ROWS_MAX || (self->nreplicas && !self->replica_rows))
        return -1;
    msgpack_pack_array (pk, self->nreplicas);
    for (uint32_t index = 0; index < self->nreplicas; index++) {
        const drover_replica_row_t *row = &self->replica_rows [index];
        if (row->state > DROVER_REPLICA_STATE_MAX)
            return -1;
        msgpack_pack_array (pk, S_REPLICA_KNOWN);
        if (drover_mpack_pack_id (pk, row->service, false))
            return -1;
        msgpack_pack_uint32 (pk, row->slot);
        msgpack_pack_uint64 (pk, row->task);
        msgpack_pack_uint32 (pk, row->attempt);
        if (drover_mpack_pack_id (pk, row->worker, true))
            return -1;
        msgpack_pack_uint8 (pk, row->state);
        msgpack_pack_uint64 (pk, row->since);
        msgpack_pack_uint32 (pk, row->restarts);
        if (drover_mpack_pack_text (pk, row->why, DROVER_REASON_MAX))
            return -1;
    }
    return 0;
}

//  Pack PLAN RESULT's changes; -1 if one breaks a limit
int
drover_msg_service_pack_changes (msgpack_packer *pk, const drover_msg_t *self)
{
    if (self->nchanges > DROVER_ROWS_MAX || (self->nchanges && !self->changes))
        return -1;
    msgpack_pack_array (pk, self->nchanges);
    for (uint32_t index = 0; index < self->nchanges; index++) {
        const drover_planchange_t *change = &self->changes [index];
        if (change->kind > DROVER_CHANGE_KIND_MAX)
            return -1;
        msgpack_pack_array (pk, S_CHANGE_KNOWN);
        msgpack_pack_uint8 (pk, change->kind);
        if (drover_mpack_pack_id (pk, change->service, true))
            return -1;
        msgpack_pack_uint32 (pk, change->slot);
        msgpack_pack_uint64 (pk, change->task);
        if (drover_mpack_pack_id (pk, change->from, true)
        ||  drover_mpack_pack_id (pk, change->to, true)
        ||  drover_mpack_pack_text (pk, change->why, DROVER_REASON_MAX))
            return -1;
    }
    return 0;
}


//  ---------------------------------------------------------------------
//  Reading

//  Read the statistics, with this file's error texts
static bool
s_read_stats (drover_mpack_cursor_t *cursor, drover_service_stats_t *stats)
{
    uint32_t fields, buckets;
    if (!drover_mpack_read_array (cursor, P_STATS, S_STATS_OLD, UINT32_MAX, 1, &fields)
    ||  !drover_mpack_read_u64 (cursor, P_TERM, &stats->term)
    ||  !drover_mpack_read_u64 (cursor, P_AT, &stats->at)
    ||  !drover_mpack_read_u32 (cursor, P_DURATION, &stats->duration)
    ||  !drover_mpack_read_u8 (cursor, P_COMPLETE, 1, &stats->complete)
    ||  !drover_mpack_read_fixed (cursor, P_STATS_WHY, DROVER_REASON_MAX, stats->why))
        return false;
    uint32_t *counts [] = {
        &stats->workers, &stats->answered, &stats->services, &stats->lost, &stats->under,
        &stats->ok, &stats->over, &stats->wanted, &stats->running, &stats->pending,
        &stats->started, &stats->stopped, &stats->moved
    };
    for (size_t index = 0; index < sizeof counts / sizeof counts [0]; index++)
        if (!drover_mpack_read_u32 (cursor, P_WORKERS + (int) index, counts [index]))
            return false;
    if (!drover_mpack_read_array (cursor, P_RESTARTS, DROVER_HISTOGRAM_BUCKETS,
                                  DROVER_HISTOGRAM_BUCKETS, 1, &buckets))
        return false;
    for (int bucket = 0; bucket < DROVER_HISTOGRAM_BUCKETS; bucket++)
        if (!drover_mpack_read_u32 (cursor, P_RESTARTS, &stats->restarts [bucket]))
            return false;
    if (fields < S_STATS_KNOWN)             //  a peer of level 6 or older
        return drover_mpack_skip_rest (cursor, fields, S_STATS_OLD, 2);
    if (!drover_mpack_read_u32 (cursor, P_BEST, &stats->best)
    ||  !drover_mpack_read_u32 (cursor, P_NOT_BEST, &stats->not_best)
    ||  !drover_mpack_read_array (cursor, P_RANKS, DROVER_HISTOGRAM_BUCKETS,
                                  DROVER_HISTOGRAM_BUCKETS, 1, &buckets))
        return false;
    for (int bucket = 0; bucket < DROVER_HISTOGRAM_BUCKETS; bucket++)
        if (!drover_mpack_read_u32 (cursor, P_RANKS, &stats->ranks [bucket]))
            return false;
    if (!drover_mpack_read_u32 (cursor, P_CAPPED, &stats->capped)
    ||  !drover_mpack_read_u32 (cursor, P_REBALANCED, &stats->rebalanced))
        return false;
    return drover_mpack_skip_rest (cursor, fields, S_STATS_KNOWN, 2);
}

//  Read a term's statistics into stats
bool
drover_msg_service_read_stats (drover_mpack_cursor_t *cursor, drover_service_stats_t *stats)
{
    const drover_mpack_errors_t *errors = cursor->errors;
    cursor->errors = s_errors;
    bool ok = s_read_stats (cursor, stats);
    cursor->errors = errors;
    return ok;
}

//  Read one service row
static bool
s_read_service (drover_mpack_cursor_t *cursor, drover_service_row_t *row)
{
    uint32_t fields;
    return drover_mpack_read_array (cursor, P_SERVICE_ROW, S_SERVICE_OLD, UINT32_MAX, 1,
                                    &fields)
        && drover_mpack_read_id (cursor, P_NAME, false, row->name)
        && drover_mpack_read_u32 (cursor, P_REPLICAS, &row->replicas)
        && drover_mpack_read_u32 (cursor, P_PROCS, &row->procs)
        && drover_mpack_read_u64 (cursor, P_MEM, &row->mem)
        && drover_msg_fields_read_labels (cursor, P_LABELS, row->labels, &row->nlabels)
        && drover_mpack_read_u32 (cursor, P_DELAY, &row->restart_delay)
        && drover_mpack_read_u32 (cursor, P_ROW_RUNNING, &row->running)
        && drover_mpack_read_u32 (cursor, P_ROW_PENDING, &row->pending)
        && drover_mpack_read_u32 (cursor, P_ROW_RESTARTS, &row->restarts)
        && drover_mpack_read_u8 (cursor, P_STATE, DROVER_SERVICE_STATE_MAX, &row->state)
        && drover_mpack_read_u64 (cursor, P_CREATED, &row->created)
        && drover_mpack_read_fixed (cursor, P_SUMMARY, DROVER_SUMMARY_MAX, row->summary)
        && drover_mpack_read_fixed (cursor, P_WHY, DROVER_REASON_MAX, row->why)
        && (fields < S_SERVICE_KNOWN       //  level 7: max per worker
            || drover_mpack_read_u32 (cursor, P_MAX_PER_WORKER, &row->max_per_worker))
        && drover_mpack_skip_rest (cursor, fields, fields < S_SERVICE_KNOWN? S_SERVICE_OLD
                                                                           : S_SERVICE_KNOWN, 3);
}

//  Read the service rows, with this file's error texts
static bool
s_read_services (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    uint32_t count;
    if (!drover_mpack_read_array (cursor, P_SERVICES, 0, DROVER_ROWS_MAX, S_SERVICE_MIN, &count))
        return false;
    if (count == 0)
        return true;
    self->service_rows = (drover_service_row_t *) zmalloc (count * sizeof (drover_service_row_t));
    self->nservices = count;
    for (uint32_t index = 0; index < count; index++)
        if (!s_read_service (cursor, &self->service_rows [index]))
            return false;
    return true;
}

//  Read SERVICE TABLE's service rows into self->service_rows
bool
drover_msg_service_read_services (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    const drover_mpack_errors_t *errors = cursor->errors;
    cursor->errors = s_errors;
    bool ok = s_read_services (cursor, self);
    cursor->errors = errors;
    return ok;
}

//  Read one replica row
static bool
s_read_replica (drover_mpack_cursor_t *cursor, drover_replica_row_t *row)
{
    uint32_t fields;
    return drover_mpack_read_array (cursor, P_REPLICA_ROW, S_REPLICA_KNOWN, UINT32_MAX, 1,
                                    &fields)
        && drover_mpack_read_id (cursor, P_SERVICE, false, row->service)
        && drover_mpack_read_u32 (cursor, P_SLOT, &row->slot)
        && drover_mpack_read_u64 (cursor, P_TASK, &row->task)
        && drover_mpack_read_u32 (cursor, P_ATTEMPT, &row->attempt)
        && drover_mpack_read_id (cursor, P_WORKER, true, row->worker)
        && drover_mpack_read_u8 (cursor, P_REPLICA_STATE, DROVER_REPLICA_STATE_MAX, &row->state)
        && drover_mpack_read_u64 (cursor, P_SINCE, &row->since)
        && drover_mpack_read_u32 (cursor, P_SLOT_RESTARTS, &row->restarts)
        && drover_mpack_read_fixed (cursor, P_WHY, DROVER_REASON_MAX, row->why)
        && drover_mpack_skip_rest (cursor, fields, S_REPLICA_KNOWN, 3);
}

//  Read the replica rows, with this file's error texts
static bool
s_read_replicas (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    uint32_t count;
    if (!drover_mpack_read_array (cursor, P_REPLICA_ROWS, 0, DROVER_ROWS_MAX, S_REPLICA_MIN,
                                  &count))
        return false;
    if (count == 0)
        return true;
    self->replica_rows = (drover_replica_row_t *) zmalloc (count * sizeof (drover_replica_row_t));
    self->nreplicas = count;
    for (uint32_t index = 0; index < count; index++)
        if (!s_read_replica (cursor, &self->replica_rows [index]))
            return false;
    return true;
}

//  Read SERVICE TABLE's replica rows into self->replica_rows
bool
drover_msg_service_read_replicas (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    const drover_mpack_errors_t *errors = cursor->errors;
    cursor->errors = s_errors;
    bool ok = s_read_replicas (cursor, self);
    cursor->errors = errors;
    return ok;
}

//  Read one change
static bool
s_read_change (drover_mpack_cursor_t *cursor, drover_planchange_t *change)
{
    uint32_t fields;
    return drover_mpack_read_array (cursor, P_CHANGE, S_CHANGE_KNOWN, UINT32_MAX, 1, &fields)
        && drover_mpack_read_u8 (cursor, P_KIND, DROVER_CHANGE_KIND_MAX, &change->kind)
        && drover_mpack_read_id (cursor, P_SERVICE, true, change->service)
        && drover_mpack_read_u32 (cursor, P_SLOT, &change->slot)
        && drover_mpack_read_u64 (cursor, P_TASK, &change->task)
        && drover_mpack_read_id (cursor, P_FROM, true, change->from)
        && drover_mpack_read_id (cursor, P_TO, true, change->to)
        && drover_mpack_read_fixed (cursor, P_WHY, DROVER_REASON_MAX, change->why)
        && drover_mpack_skip_rest (cursor, fields, S_CHANGE_KNOWN, 3);
}

//  Read the changes, with this file's error texts
static bool
s_read_changes (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    uint32_t count;
    if (!drover_mpack_read_array (cursor, P_CHANGES, 0, DROVER_ROWS_MAX, S_CHANGE_MIN, &count))
        return false;
    if (count == 0)
        return true;
    self->changes = (drover_planchange_t *) zmalloc (count * sizeof (drover_planchange_t));
    self->nchanges = count;
    for (uint32_t index = 0; index < count; index++)
        if (!s_read_change (cursor, &self->changes [index]))
            return false;
    return true;
}

//  Read PLAN RESULT's changes into self->changes
bool
drover_msg_service_read_changes (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    const drover_mpack_errors_t *errors = cursor->errors;
    cursor->errors = s_errors;
    bool ok = s_read_changes (cursor, self);
    cursor->errors = errors;
    return ok;
}


//  ---------------------------------------------------------------------
//  Names

//  Return the name of a SERVICE ADMIN action ("create", "scale", "delete")
const char *
drover_service_action_name (int action)
{
    static const char *names [DROVER_SERVICE_ACTION_MAX + 1] = { "create", "scale", "delete" };
    return action >= 0 && action <= DROVER_SERVICE_ACTION_MAX? names [action]: "invalid";
}

//  Return the name of a PLAN action ("drain", "hold", "scale", "term")
const char *
drover_plan_action_name (int action)
{
    static const char *names [DROVER_PLAN_ACTION_MAX + 1] = { "drain", "hold", "scale", "term" };
    return action >= 0 && action <= DROVER_PLAN_ACTION_MAX? names [action]: "invalid";
}

//  Return the name of a service's state ("ok", "under", "over", "lost",
//  "crashing")
const char *
drover_service_state_name (int state)
{
    static const char *names [DROVER_SERVICE_STATE_MAX + 1] = {
        "ok", "under", "over", "lost", "crashing"
    };
    return state >= 0 && state <= DROVER_SERVICE_STATE_MAX? names [state]: "invalid";
}

//  Return the name of a replica's state ("pending", "running", "stopping",
//  "waiting")
const char *
drover_replica_state_name (int state)
{
    static const char *names [DROVER_REPLICA_STATE_MAX + 1] = {
        "pending", "running", "stopping", "waiting"
    };
    return state >= 0 && state <= DROVER_REPLICA_STATE_MAX? names [state]: "invalid";
}

//  Return the name of a change's kind ("start", "stop", "move", "finish",
//  "requeue")
const char *
drover_change_kind_name (int kind)
{
    static const char *names [DROVER_CHANGE_KIND_MAX + 1] = {
        "start", "stop", "move", "finish", "requeue"
    };
    return kind >= 0 && kind <= DROVER_CHANGE_KIND_MAX? names [kind]: "invalid";
}
