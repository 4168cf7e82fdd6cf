/*  =========================================================================
    drover_msg_fields_pack - packing a message by the message table
    (internal): the header, then each field of its schema in wire order,
    optional fields at the end left out while they have no value

    Each field's limits and content are checked on the way out: a message
    past them is not encoded (-1). The records of the pool's, services' and
    queues' messages are packed by drover_msg_pool.c, drover_msg_service.c
    and drover_msg_queues.c.
    =========================================================================
*/

#include "drover_msg.h"
#include "drover_msg_fields_internal.h"
#include "drover_msg_pool.h"
#include "drover_msg_service.h"
#include "drover_msg_queues.h"

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
        || (field == F_SUBMIT_SLOT && self->slot == 0);
}

//  Return how many of fields [count] self goes out with: its optional
//  fields at the end are left out, from the last back, while they have no
//  value (a level and a release always have one)
static size_t
s_nfields_sent (const drover_msg_t *self, const uint8_t *fields, size_t count)
{
    while (count > 0 && drover_msg_fields_optional (fields [count - 1])
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
//  elements, without outcome, owner and reason); -1 if a row breaks a limit
static int
s_pack_task_rows (msgpack_packer *pk, const drover_msg_t *self, int level)
{
    if (self->nrows > DROVER_ROWS_MAX || (self->nrows && !self->task_rows))
        return -1;
    msgpack_pack_array (pk, self->nrows);
    for (uint32_t index = 0; index < self->nrows; index++) {
        const drover_task_row_t *row = &self->task_rows [index];
        if (row->state >= DROVER_TASK_STATES || !drover_end_fits (row->state, row->end))
            return -1;
        size_t reason = strnlen (row->reason, DROVER_ROW_REASON_MAX + 1);
        if (reason > DROVER_ROW_REASON_MAX)
            return -1;
        if (level < 2)
            msgpack_pack_array (pk, 7);
        else
            msgpack_pack_array (pk, reason? 10: 9);     //  the reason only when there is one
        msgpack_pack_uint64 (pk, row->task);
        msgpack_pack_uint8 (pk, row->state);
        if (level >= 2)
            msgpack_pack_uint8 (pk, row->end);
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
        if (reason)
            drover_mpack_pack_str (pk, row->reason, reason);
    }
    return 0;
}

//  Pack the items of a TASK EXPLANATION; -1 if one breaks a limit
static int
s_pack_whys (msgpack_packer *pk, const drover_msg_t *self)
{
    if (self->nwhys > DROVER_WHYS_MAX || (self->nwhys && !self->whys))
        return -1;
    msgpack_pack_array (pk, self->nwhys);
    for (uint32_t index = 0; index < self->nwhys; index++) {
        const drover_why_t *why = &self->whys [index];
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
        msgpack_pack_array (pk, level < 2? 9: S_WORKER_ROW_KNOWN);
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

//  Pack the info of a TASK INFO, its encoded map as a bin; -1 if it has
//  none or breaks a limit
static int
s_pack_info (msgpack_packer *pk, const drover_msg_t *self)
{
    size_t size;
    byte *data = self->info? drover_taskinfo_encode (self->info, &size): NULL;
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
    if (!drover_msg_fields_key_valid (key, strnlen (key, DROVER_KEY_MAX + 1)))
        return -1;
    drover_mpack_pack_str (pk, key, strlen (key));
    return 0;
}

//  Pack one field of self as a peer of level knows it; -1 if it breaks a
//  limit
static int
s_pack_field (msgpack_packer *pk, const drover_msg_t *self, int field, int level)
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
        case F_LABELS:
        case F_LIST_LABELS: return drover_msg_fields_pack_labels (pk, self->labels, self->nlabels);
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
        case F_INFO:        return s_pack_info (pk, self);
        case F_WHYS:        return s_pack_whys (pk, self);
        case F_POOL_SUMMARY: return drover_msg_pool_pack_summary (pk, self);
        case F_POOL_ROWS:   return drover_msg_pool_pack_rows (pk, self);
        case F_POOL_ACTION:
            if (self->admin > DROVER_POOLADMIN_MAX)
                return -1;
            return msgpack_pack_uint8 (pk, self->admin), 0;
        case F_INSTANCE:    return drover_mpack_pack_id (pk, self->worker, false);
        case F_STATE_ID:
            if (!drover_msg_fields_state_id_valid (self->state_id,
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
        case F_SERVICE_STATS: return drover_msg_service_pack_stats (pk, &self->stats_now);
        case F_STATS_AFTER: return drover_msg_service_pack_stats (pk, &self->stats_after);
        case F_SERVICE_ROWS: return drover_msg_service_pack_services (pk, self);
        case F_REPLICA_ROWS: return drover_msg_service_pack_replicas (pk, self);
        case F_CHANGES:     return drover_msg_service_pack_changes (pk, self);
        case F_LEADER:      return drover_mpack_pack_text (pk, self->leader, DROVER_ENDPOINT_MAX);
        case F_STRATEGY:    return drover_msg_queues_pack_strategy (pk, self);
        case F_QUEUE_ROWS:  return drover_msg_queues_pack_rows (pk, self);
        case F_LEADER_NAME: return drover_mpack_pack_text (pk, self->leader_name, DROVER_ID_MAX);
        case F_TASK_ROWS:   return s_pack_task_rows (pk, self, level);
        case F_WORKER_ROWS: return s_pack_worker_rows (pk, self, level);
        case F_OUTCOME:
            if (self->outcome > DROVER_OUTCOME_MAX)
                return -1;
            //  Level 1 has no MACHINE_FAILED: the nearest is SPAWN_FAILED
            if (level < 2 && self->outcome == DROVER_OUTCOME_MACHINE_FAILED)
                return msgpack_pack_uint8 (pk, DROVER_OUTCOME_SPAWN_FAILED), 0;
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
    uint8_t fields [S_FIELDS_MAX];
    size_t nfields = drover_msg_fields_at (self->id, leveled->level, fields);
    nfields = s_nfields_sent (self, fields, nfields);
    msgpack_pack_array (pk, 4 + nfields);
    drover_mpack_pack_str (pk, DROVER_MSG_SIGNATURE, 3);
    msgpack_pack_uint8 (pk, DROVER_MSG_VERSION);
    msgpack_pack_uint8 (pk, (uint8_t) self->id);
    msgpack_pack_uint32 (pk, self->seq);
    for (size_t index = 0; index < nfields; index++)
        if (s_pack_field (pk, self, fields [index], leveled->level))
            return -1;
    return 0;
}

//  Pack a whole message (a drover_msg_t) at this codec's level; -1 if it
//  has no valid id or a field breaks a limit
int
drover_msg_fields_pack (msgpack_packer *pk, const void *value)
{
    drover_msg_fields_leveled_t leveled = { (const drover_msg_t *) value, DROVER_MSG_LEVEL };
    return drover_msg_fields_pack_at (pk, &leveled);
}
