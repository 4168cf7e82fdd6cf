/*  =========================================================================
    drover_msg_pool - the fields of the elastic pool's messages: POOL TABLE's
    summary and rows (internal; PROTOCOL.md §7.28-7.30)

    POOL TABLE is [summary, rows]: the summary a record of 8 elements, each
    row a record of 15; to a level-7 peer the summary has 9 (probing) and
    each row 17 (probe, probes). Both may grow at their end: a
    reader takes the elements it knows and skips the rest (each a
    well-formed value, the message was walked before). Every number is
    range-checked, every string against its limit and content, and a price
    must be finite and not negative, on the way out (such a table is not
    encoded) and on the way in (it is refused). Rows are refused before
    they are allocated unless the bytes left hold their count at the
    smallest size a row can take.

    Errors name the part that is wrong: while reading, the cursor says its
    errors with this file's table, then the message table's again.
    =========================================================================
*/

#include "drover_msg_pool.h"

//  The parts of a POOL TABLE, for error texts
typedef enum {
    P_SUMMARY, P_ENABLED, P_DRIVER, P_LIVE, P_MAX_INSTANCES, P_PRICE, P_MAX_PRICE, P_BACKOFF,
    P_FAILURES, P_ROWS, P_ROW, P_ID, P_TYPE, P_ROW_PRICE, P_STATE, P_BEHAVIOUR, P_CREATED,
    P_SINCE, P_LAST_BUSY, P_LAST_TASK, P_TASKS, P_PROCS, P_PROCS_USED, P_MEM, P_MEM_USED,
    P_WHY, P_PROBING, P_PROBE, P_PROBES, P_COUNT
} s_part_t;

static const drover_mpack_errors_t
s_errors [P_COUNT] = {
    [P_SUMMARY]     = DROVER_MPACK_ERRORS ("summary", "invalid"),
    [P_ENABLED]     = DROVER_MPACK_ERRORS ("enabled", "invalid"),
    [P_DRIVER]      = DROVER_MPACK_ERRORS ("driver", "not a valid name"),
    [P_LIVE]        = DROVER_MPACK_ERRORS ("live", "invalid"),
    [P_MAX_INSTANCES] = DROVER_MPACK_ERRORS ("max_instances", "invalid"),
    [P_PRICE]       = DROVER_MPACK_ERRORS ("price", "invalid"),
    [P_MAX_PRICE]   = DROVER_MPACK_ERRORS ("max_price", "invalid"),
    [P_BACKOFF]     = DROVER_MPACK_ERRORS ("backoff_until", "invalid"),
    [P_FAILURES]    = DROVER_MPACK_ERRORS ("failures", "invalid"),
    [P_ROWS]        = DROVER_MPACK_ERRORS ("rows", "a table without a pool has no rows"),
    [P_ROW]         = DROVER_MPACK_ERRORS ("row", "invalid"),
    [P_ID]          = DROVER_MPACK_ERRORS ("instance", "not a valid instance id"),
    [P_TYPE]        = DROVER_MPACK_ERRORS ("type", "not a valid type name"),
    [P_ROW_PRICE]   = DROVER_MPACK_ERRORS ("row price", "invalid"),
    [P_STATE]       = DROVER_MPACK_ERRORS ("state", "invalid"),
    [P_BEHAVIOUR]   = DROVER_MPACK_ERRORS ("behaviour", "invalid"),
    [P_CREATED]     = DROVER_MPACK_ERRORS ("created", "invalid"),
    [P_SINCE]       = DROVER_MPACK_ERRORS ("since", "invalid"),
    [P_LAST_BUSY]   = DROVER_MPACK_ERRORS ("last_busy", "invalid"),
    [P_LAST_TASK]   = DROVER_MPACK_ERRORS ("last_task", "invalid"),
    [P_TASKS]       = DROVER_MPACK_ERRORS ("tasks", "invalid"),
    [P_PROCS]       = DROVER_MPACK_ERRORS ("procs", "invalid"),
    [P_PROCS_USED]  = DROVER_MPACK_ERRORS ("procs_used", "invalid"),
    [P_MEM]         = DROVER_MPACK_ERRORS ("mem", "invalid"),
    [P_MEM_USED]    = DROVER_MPACK_ERRORS ("mem_used", "invalid"),
    [P_WHY]         = DROVER_MPACK_ERRORS ("why", "invalid"),
    [P_PROBING]     = DROVER_MPACK_ERRORS ("probing", "invalid"),
    [P_PROBE]       = DROVER_MPACK_ERRORS ("probe", "invalid"),
    [P_PROBES]      = DROVER_MPACK_ERRORS ("probes", "invalid"),
};

#define S_SUMMARY_LEVEL6    8       //  elements of the summary a level-6 peer knows
#define S_SUMMARY_KNOWN     9       //  elements of the summary this version reads
#define S_ROW_LEVEL6        15      //  elements of a row a level-6 peer knows
#define S_ROW_KNOWN         17      //  elements of a row this version reads
#define S_ROW_MIN           17      //  fewest wire bytes of a row: header + 2-byte id +
                                    //  empty type + 12 fixints + empty why

//  True if a price can go on the wire: finite and not negative
static bool
s_price_valid (double price)
{
    return isfinite (price) && price >= 0;
}

//  Pack a name held in a fixed array of DROVER_ID_MAX + 1: "" or an id
static int
s_pack_name (msgpack_packer *pk, const char *name)
{
    size_t length = strnlen (name, DROVER_ID_MAX + 1);
    if (length && !drover_mpack_id_valid (name, length))
        return -1;
    drover_mpack_pack_str (pk, name, length);
    return 0;
}

//  Pack POOL TABLE's summary (self->pool); -1 if it breaks a limit
int
drover_msg_pool_pack_summary (msgpack_packer *pk, const drover_msg_t *self, int level)
{
    const drover_pool_summary_t *pool = &self->pool;
    if (pool->enabled > 1 || pool->probing > 1 || !s_price_valid (pool->price)
    ||  !s_price_valid (pool->max_price))
        return -1;
    msgpack_pack_array (pk, level >= 7? S_SUMMARY_KNOWN: S_SUMMARY_LEVEL6);
    msgpack_pack_uint8 (pk, pool->enabled);
    if (s_pack_name (pk, pool->driver))
        return -1;
    msgpack_pack_uint32 (pk, pool->live);
    msgpack_pack_uint32 (pk, pool->max_instances);
    msgpack_pack_double (pk, pool->price);
    msgpack_pack_double (pk, pool->max_price);
    msgpack_pack_uint64 (pk, pool->backoff_until);
    msgpack_pack_uint32 (pk, pool->failures);
    if (level >= 7)
        msgpack_pack_uint8 (pk, pool->probing);
    return 0;
}

//  Pack POOL TABLE's rows; -1 if one breaks a limit, or if there are rows
//  and the summary says no pool
int
drover_msg_pool_pack_rows (msgpack_packer *pk, const drover_msg_t *self, int level)
{
    if (self->nrows > DROVER_ROWS_MAX || (self->nrows && !self->pool_rows)
    ||  (self->nrows && !self->pool.enabled))
        return -1;
    msgpack_pack_array (pk, self->nrows);
    for (uint32_t index = 0; index < self->nrows; index++) {
        const drover_pool_row_t *row = &self->pool_rows [index];
        size_t id = strnlen (row->id, DROVER_ID_MAX + 1);
        size_t why = strnlen (row->why, DROVER_REASON_MAX + 1);
        if (!drover_mpack_id_valid (row->id, id) || !s_price_valid (row->price)
        ||  row->state > DROVER_POOL_STATE_MAX || row->behaviour > DROVER_POOLADMIN_DRAIN
        ||  why > DROVER_REASON_MAX || row->probe > DROVER_POOL_PROBE_MAX)
            return -1;
        msgpack_pack_array (pk, level >= 7? S_ROW_KNOWN: S_ROW_LEVEL6);
        drover_mpack_pack_str (pk, row->id, id);
        if (s_pack_name (pk, row->type))
            return -1;
        msgpack_pack_double (pk, row->price);
        msgpack_pack_uint8 (pk, row->state);
        msgpack_pack_uint8 (pk, row->behaviour);
        msgpack_pack_uint64 (pk, row->created);
        msgpack_pack_uint64 (pk, row->since);
        msgpack_pack_uint64 (pk, row->last_busy);
        msgpack_pack_uint64 (pk, row->last_task);
        msgpack_pack_uint32 (pk, row->tasks);
        msgpack_pack_uint32 (pk, row->procs);
        msgpack_pack_uint32 (pk, row->procs_used);
        msgpack_pack_uint64 (pk, row->mem);
        msgpack_pack_uint64 (pk, row->mem_used);
        drover_mpack_pack_str (pk, row->why, why);
        if (level >= 7) {           //  its boot probe (level 7)
            msgpack_pack_uint8 (pk, row->probe);
            msgpack_pack_uint32 (pk, row->probes);
        }
    }
    return 0;
}

//  Read the summary, with this file's error texts
static bool
s_read_summary (drover_mpack_cursor_t *cursor, drover_pool_summary_t *pool)
{
    uint32_t fields;
    return drover_mpack_read_array (cursor, P_SUMMARY, S_SUMMARY_LEVEL6, UINT32_MAX, 1, &fields)
        && drover_mpack_read_u8 (cursor, P_ENABLED, 1, &pool->enabled)
        && drover_mpack_read_id (cursor, P_DRIVER, true, pool->driver)
        && drover_mpack_read_u32 (cursor, P_LIVE, &pool->live)
        && drover_mpack_read_u32 (cursor, P_MAX_INSTANCES, &pool->max_instances)
        && drover_mpack_read_float (cursor, P_PRICE, &pool->price)
        && drover_mpack_read_float (cursor, P_MAX_PRICE, &pool->max_price)
        && drover_mpack_read_u64 (cursor, P_BACKOFF, &pool->backoff_until)
        && drover_mpack_read_u32 (cursor, P_FAILURES, &pool->failures)
        && (fields <= 8 || drover_mpack_read_u8 (cursor, P_PROBING, 1, &pool->probing))
        && drover_mpack_skip_rest (cursor, fields, S_SUMMARY_KNOWN, 2);
}

//  Read POOL TABLE's summary into self->pool
bool
drover_msg_pool_read_summary (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    const drover_mpack_errors_t *errors = cursor->errors;
    cursor->errors = s_errors;
    bool ok = s_read_summary (cursor, &self->pool);
    cursor->errors = errors;
    return ok;
}

//  Read one row, with this file's error texts
static bool
s_read_row (drover_mpack_cursor_t *cursor, drover_pool_row_t *row)
{
    uint32_t fields;
    const char *why;
    size_t length;
    if (!drover_mpack_read_array (cursor, P_ROW, S_ROW_LEVEL6, UINT32_MAX, 1, &fields)
    ||  !drover_mpack_read_id (cursor, P_ID, false, row->id)
    ||  !drover_mpack_read_id (cursor, P_TYPE, true, row->type)
    ||  !drover_mpack_read_float (cursor, P_ROW_PRICE, &row->price)
    ||  !drover_mpack_read_u8 (cursor, P_STATE, DROVER_POOL_STATE_MAX, &row->state)
    ||  !drover_mpack_read_u8 (cursor, P_BEHAVIOUR, DROVER_POOLADMIN_DRAIN, &row->behaviour)
    ||  !drover_mpack_read_u64 (cursor, P_CREATED, &row->created)
    ||  !drover_mpack_read_u64 (cursor, P_SINCE, &row->since)
    ||  !drover_mpack_read_u64 (cursor, P_LAST_BUSY, &row->last_busy)
    ||  !drover_mpack_read_u64 (cursor, P_LAST_TASK, &row->last_task)
    ||  !drover_mpack_read_u32 (cursor, P_TASKS, &row->tasks)
    ||  !drover_mpack_read_u32 (cursor, P_PROCS, &row->procs)
    ||  !drover_mpack_read_u32 (cursor, P_PROCS_USED, &row->procs_used)
    ||  !drover_mpack_read_u64 (cursor, P_MEM, &row->mem)
    ||  !drover_mpack_read_u64 (cursor, P_MEM_USED, &row->mem_used)
    ||  !drover_mpack_read_str (cursor, P_WHY, 0, DROVER_REASON_MAX, &why, &length))
        return false;
    memcpy (row->why, why, length);
    row->why [length] = 0;
    //  Its boot probe (level 7)
    if (fields > 15 && !drover_mpack_read_u8 (cursor, P_PROBE, DROVER_POOL_PROBE_MAX, &row->probe))
        return false;
    if (fields > 16 && !drover_mpack_read_u32 (cursor, P_PROBES, &row->probes))
        return false;
    return drover_mpack_skip_rest (cursor, fields, S_ROW_KNOWN, 3);
}

//  Read the rows, with this file's error texts
static bool
s_read_rows (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    uint32_t count;
    if (!drover_mpack_read_array (cursor, P_ROWS, 0, DROVER_ROWS_MAX, S_ROW_MIN, &count))
        return false;
    if (count == 0)
        return true;
    if (!self->pool.enabled)
        return drover_mpack_fail (cursor, s_errors [P_ROWS].invalid);
    self->pool_rows = (drover_pool_row_t *) zmalloc (count * sizeof (drover_pool_row_t));
    self->nrows = count;
    for (uint32_t index = 0; index < count; index++)
        if (!s_read_row (cursor, &self->pool_rows [index]))
            return false;
    return true;
}

//  Read POOL TABLE's rows into self->pool_rows (the summary read before)
bool
drover_msg_pool_read_rows (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    const drover_mpack_errors_t *errors = cursor->errors;
    cursor->errors = s_errors;
    bool ok = s_read_rows (cursor, self);
    cursor->errors = errors;
    return ok;
}
