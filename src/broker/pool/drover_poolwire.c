/*  =========================================================================
    drover_poolwire - the elastic pool on the wire: POOL TABLE from a pool,
    POOL ADMIN applied to one, and the answers when there is no pool

    The table is built from drover_pool_each and drover_pool_counts, in one
    pass: rows are cut at DROVER_ROWS_MAX, and before the encoded table
    would pass DROVER_MSG_MAX (each row's size is bounded from its strings),
    as the broker cuts a WORKER TABLE. Whatever the pool holds that the
    wire refuses (a name that is not an id, a price not finite, a why too
    long) is made to fit here, so a table always encodes.
    =========================================================================
*/

#include "drover_poolwire.h"

//  The wire's behaviours are the pool's idle behaviours, by number
_Static_assert (DROVER_POOLADMIN_RUN == (int) DROVER_IDLE_RUN
             && DROVER_POOLADMIN_HOLD == (int) DROVER_IDLE_HOLD
             && DROVER_POOLADMIN_DRAIN == (int) DROVER_IDLE_DRAIN,
                "POOL ADMIN actions are numbered as idle behaviours");
_Static_assert (DROVER_POOL_STATE_MAX == (int) DROVER_INSTANCE_SHUTDOWN,
                "POOL TABLE states are numbered as instance states");
_Static_assert (DROVER_POOL_PROBE_MAX == (int) DROVER_PROBE_FAILED,
                "POOL TABLE probe states are numbered as the pool's");

//  Encoded bytes a row takes besides its strings, at most: array header,
//  three string headers, a float 64, three uint8, six uint64, four uint32
#define S_ROW_FIXED     (1 + 3 * 3 + 9 + 3 * 2 + 6 * 9 + 4 * 5)
//  Encoded bytes of the header and the summary, at most
#define S_TABLE_FIXED   (16 + 1 + 2 + (3 + DROVER_ID_MAX) + 2 * 5 + 2 * 9 + 9 + 5 + 5 + 2)

//  What building a table carries from row to row
typedef struct {
    drover_msg_t *table;            //  the POOL TABLE being filled
    uint32_t capacity;              //  rows allocated in table->pool_rows
    int64_t wall_offset;            //  wall msec minus the pool's msec
    size_t bytes;                   //  encoded size so far, at most
    uint32_t cut;                   //  instances left out (past a limit)
} s_build_t;

//  Turn the pool's msec into wall msec since the epoch; 0 (never) stays 0
static uint64_t
s_wall (uint64_t msec, int64_t wall_offset)
{
    if (msec == 0 || msec > INT64_MAX)
        return msec == 0? 0: (uint64_t) INT64_MAX;
    int64_t wall = (int64_t) msec + wall_offset;
    return wall > 0? (uint64_t) wall: 1;
}

//  A price the wire takes: finite and not negative, else 0
static double
s_price (double price)
{
    return isfinite (price) && price >= 0? price: 0;
}

//  Copy a name into a fixed array of DROVER_ID_MAX + 1 if it is an id,
//  else leave it ""
static void
s_copy_name (char *name, const char *from)
{
    if (from && drover_id_valid (from))
        strcpy (name, from);
}

//  Copy text into why (DROVER_REASON_MAX + 1), cut at a character's start
static size_t
s_copy_why (char *why, const char *text)
{
    size_t length = text? strnlen (text, DROVER_REASON_MAX + 1): 0;
    if (length > DROVER_REASON_MAX) {
        length = DROVER_REASON_MAX;
        while (length > 0 && ((byte) text [length] & 0xc0) == 0x80)
            length--;           //  text [length] continues a character: cut before it
    }
    memcpy (why, text, length);
    why [length] = 0;
    return length;
}

//  Add one instance to the table, unless a limit says to cut it
static void
s_add_row (const drover_instance_view_t *view, void *arg)
{
    s_build_t *build = (s_build_t *) arg;
    drover_msg_t *table = build->table;
    if (!view->id || !drover_id_valid (view->id) || table->nrows >= build->capacity) {
        build->cut++;           //  not an id: no client could name it
        return;
    }
    drover_pool_row_t *row = &table->pool_rows [table->nrows];
    memset (row, 0, sizeof *row);
    strcpy (row->id, view->id);
    s_copy_name (row->type, view->type);
    size_t why = s_copy_why (row->why, view->why);
    size_t bytes = S_ROW_FIXED + strlen (row->id) + strlen (row->type) + why;
    if (build->bytes + bytes > DROVER_MSG_MAX) {
        build->cut++;
        return;
    }
    build->bytes += bytes;
    row->price = s_price (view->price);
    row->state = view->state <= DROVER_INSTANCE_SHUTDOWN? (uint8_t) view->state: 0;
    row->behaviour = view->behaviour <= DROVER_IDLE_DRAIN? (uint8_t) view->behaviour: 0;
    row->created = s_wall (view->created, build->wall_offset);
    row->since = s_wall (view->since, build->wall_offset);
    row->last_busy = s_wall (view->last_busy, build->wall_offset);
    row->last_task = view->last_task;
    row->tasks = view->tasks;
    row->procs = view->procs;
    row->procs_used = view->procs_used;
    row->mem = view->mem;
    row->mem_used = view->mem_used;
    row->probe = view->probe <= DROVER_PROBE_FAILED? (uint8_t) view->probe: 0;
    row->probes = view->probes;
    table->nrows++;
}

//  Return a POOL TABLE answering request with pool's summary and instances
drover_msg_t *
drover_poolwire_table (drover_pool_t *pool, const drover_poolconfig_t *config,
                       const drover_msg_t *request, int64_t wall_offset)
{
    assert (pool);
    assert (config);
    assert (request);
    drover_msg_t *table = drover_msg_new (DROVER_MSG_POOL_TABLE);
    table->seq = request->seq;
    drover_poolcounts_t counts;
    drover_pool_counts (pool, &counts);
    drover_pool_summary_t *summary = &table->pool;
    summary->enabled = 1;
    s_copy_name (summary->driver, config->driver);
    for (int state = 0; state < DROVER_INSTANCE_SHUTDOWN; state++)
        summary->live += counts.instances [state];
    summary->max_instances = config->max_instances;
    summary->price = s_price (counts.price);
    summary->max_price = s_price (config->max_price);
    if (counts.quota_backoff)
        summary->backoff_until = s_wall (counts.quota_until, wall_offset);
    summary->failures = counts.failures;
    summary->probing = drover_pool_probing (pool)? 1: 0;

    size_t size = drover_pool_size (pool);
    s_build_t build = { table, size < DROVER_ROWS_MAX? (uint32_t) size: DROVER_ROWS_MAX,
                        wall_offset, S_TABLE_FIXED, 0 };
    if (build.capacity)
        table->pool_rows = (drover_pool_row_t *) zmalloc (build.capacity
                                                          * sizeof (drover_pool_row_t));
    drover_pool_each (pool, s_add_row, &build);
    if (build.cut)
        zsys_warning ("poolwire: table cut rows=%u cut=%u", table->nrows, build.cut);
    return table;
}

//  Apply a POOL ADMIN to pool at now; returns the reply's code and sets
//  *reason_p
int
drover_poolwire_admin (drover_pool_t *pool, const drover_msg_t *request, uint64_t now,
                       char **reason_p)
{
    assert (pool);
    assert (request);
    assert (reason_p);
    if (request->id != DROVER_MSG_POOL_ADMIN) {
        *reason_p = zsys_sprintf ("%s is not a POOL ADMIN", drover_msg_name (request->id));
        return DROVER_CODE_BAD_REQUEST;
    }
    const char *id = request->worker;
    int action = request->admin;
    if (action > DROVER_POOLADMIN_MAX) {
        *reason_p = zsys_sprintf ("no pool action %d (run, hold, drain, destroy)", action);
        return DROVER_CODE_BAD_REQUEST;
    }
    drover_instance_view_t view;
    if (!drover_pool_lookup (pool, id, &view)) {
        *reason_p = zsys_sprintf ("no instance %s in the pool", id);
        return DROVER_CODE_NOT_FOUND;
    }
    if (view.state == DROVER_INSTANCE_SHUTDOWN) {
        *reason_p = zsys_sprintf ("%s is shutting down", id);
        return DROVER_CODE_CONFLICT;
    }
    int rc = action == DROVER_POOLADMIN_DESTROY
           ? drover_pool_kill (pool, id, now)
           : drover_pool_set_behaviour (pool, id, (drover_idle_behaviour_t) action, now);
    if (rc) {                   //  looked up just now: the pool refused it in its state
        *reason_p = zsys_sprintf ("%s: cannot %s it now", id, drover_pooladmin_name (action));
        return DROVER_CODE_CONFLICT;
    }
    *reason_p = strdup (action == DROVER_POOLADMIN_DESTROY? "destroying"
                                                          : drover_pooladmin_name (action));
    assert (*reason_p);
    return DROVER_CODE_OK;
}

//  Return the reply to a POOL ADMIN, given its code and reason
drover_msg_t *
drover_poolwire_reply (const drover_msg_t *request, int code, const char *reason)
{
    assert (request);
    drover_msg_t *reply = drover_msg_new (code == DROVER_CODE_OK? DROVER_MSG_OK: DROVER_MSG_ERROR);
    reply->seq = request->seq;
    reply->code = (uint16_t) code;
    drover_msg_set_reason (reply, reason);
    return reply;
}

//  Return the reply to request from a broker without a pool
drover_msg_t *
drover_poolwire_none (const drover_msg_t *request)
{
    assert (request);
    if (request->id == DROVER_MSG_POOL_LIST) {
        drover_msg_t *table = drover_msg_new (DROVER_MSG_POOL_TABLE);
        table->seq = request->seq;
        return table;           //  enabled 0, no rows
    }
    if (request->id == DROVER_MSG_POOL_ADMIN)
        return drover_poolwire_reply (request, DROVER_CODE_UNAVAILABLE, "no pool configured");
    char *reason = zsys_sprintf ("%s is not a message the broker accepts",
                                 drover_msg_name (request->id));
    drover_msg_t *reply = drover_poolwire_reply (request, DROVER_CODE_UNEXPECTED, reason);
    zstr_free (&reason);
    return reply;
}
