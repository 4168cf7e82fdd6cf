/*  =========================================================================
    drover_msg_queues - the fields of QUEUE TABLE: the strategy and the
    named queues' rows (internal; PROTOCOL.md §7.39-7.40)

    QUEUE TABLE is [strategy, queues]: each queue a record of 5 elements
    [name, owner, owner_endpoint, token, endpoints], endpoints an array of
    str. A record may grow at its end in a later version: a reader takes
    the elements it knows and skips the rest. The rows come in name order,
    each name once, which the reader checks as it goes (no name twice
    without a search). In C a row's endpoints are one comma-separated
    string, as the elector says them and as a peer takes a list of brokers
    (PROTOCOL.md §17): on the wire each is a str of its own, so an
    endpoint may hold no comma. Rows are refused before they are allocated
    unless the bytes left hold their count at the smallest size a row can
    take; a row's endpoints are measured before their copy is allocated.

    Errors name the part that is wrong: while reading, the cursor says its
    errors with this file's table, then the message table's again.
    =========================================================================
*/

#include "drover_msg_queues.h"

//  The parts of a QUEUE TABLE, for error texts
typedef enum {
    P_STRATEGY, P_ROWS, P_ORDER, P_ROW, P_NAME, P_OWNER, P_OWNER_ENDPOINT, P_TOKEN,
    P_ENDPOINTS, P_ENDPOINT, P_COUNT
} s_part_t;

static const drover_mpack_errors_t
s_errors [P_COUNT] = {
    [P_STRATEGY]    = DROVER_MPACK_ERRORS ("strategy", "not a valid strategy name"),
    [P_ROWS]        = DROVER_MPACK_ERRORS ("queues", "invalid"),
    [P_ORDER]       = DROVER_MPACK_ERRORS ("queues", "not in name order, or a name twice"),
    [P_ROW]         = DROVER_MPACK_ERRORS ("queue", "invalid"),
    [P_NAME]        = DROVER_MPACK_ERRORS ("queue name", "not 1..64 bytes of [A-Za-z0-9._-]"),
    [P_OWNER]       = DROVER_MPACK_ERRORS ("queue owner", "not a valid broker name"),
    [P_OWNER_ENDPOINT] = DROVER_MPACK_ERRORS ("queue owner_endpoint", "not an endpoint"),
    [P_TOKEN]       = DROVER_MPACK_ERRORS ("queue token", "invalid"),
    [P_ENDPOINTS]   = DROVER_MPACK_ERRORS ("queue endpoints", "invalid"),
    [P_ENDPOINT]    = DROVER_MPACK_ERRORS ("queue endpoint", "not an endpoint"),
};

#define S_ROW_KNOWN         5       //  elements of a row this version reads
#define S_ROW_MIN           7       //  fewest wire bytes of a row: header + 1-byte name (2)
                                    //  + two empty strs + fixint token + empty array
#define S_ENDPOINT_MIN      2       //  fewest wire bytes of an endpoint: header + 1 byte

//  True if length bytes are a strategy's name: 0..16 bytes of printable
//  ASCII without spaces ("" for none)
static bool
s_strategy_valid (const char *text, size_t length)
{
    if (length > DROVER_STRATEGY_MAX)
        return false;
    for (size_t index = 0; index < length; index++)
        if ((byte) text [index] < 0x21 || (byte) text [index] > 0x7e)
            return false;
    return true;
}

//  True if length bytes are a queue name: 1..64 of [A-Za-z0-9._-]
static bool
s_name_valid (const char *text, size_t length)
{
    if (length < 1 || length > DROVER_QUEUE_NAME_MAX)
        return false;
    for (size_t index = 0; index < length; index++) {
        char ch = text [index];         //  ASCII only, whatever the locale
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')
           || ch == '_' || ch == '.' || ch == '-'))
            return false;
    }
    return true;
}

//  True if length bytes are an endpoint of a row: 1..256 of printable
//  ASCII, no space, no comma
static bool
s_endpoint_valid (const char *text, size_t length)
{
    if (length < 1 || length > DROVER_ENDPOINT_MAX)
        return false;
    for (size_t index = 0; index < length; index++)
        if ((byte) text [index] < 0x21 || (byte) text [index] > 0x7e || text [index] == ',')
            return false;
    return true;
}

//  Check that a queue name is 1..64 bytes of [A-Za-z0-9._-]
bool
drover_queue_name_valid (const char *name)
{
    return name && s_name_valid (name, strnlen (name, DROVER_QUEUE_NAME_MAX + 1));
}

//  Check that an endpoint can be one of a QUEUE TABLE row's
bool
drover_queue_endpoint_valid (const char *endpoint)
{
    return endpoint
        && s_endpoint_valid (endpoint, strnlen (endpoint, DROVER_ENDPOINT_MAX + 1));
}

//  Pack QUEUE TABLE's strategy as a peer of level knows it; -1 if it is
//  not one
int
drover_msg_queues_pack_strategy (msgpack_packer *pk, const drover_msg_t *self, int level)
{
    size_t length = strnlen (self->strategy, DROVER_STRATEGY_MAX + 1);
    if (!s_strategy_valid (self->strategy, length))
        return -1;
    if (level < 7 && streq (self->strategy, "rr")) {
        drover_mpack_pack_str (pk, "spread", 6);    //  level 7 brought rr
        return 0;
    }
    drover_mpack_pack_str (pk, self->strategy, length);
    return 0;
}

//  Pack a row's endpoints, a comma-separated list (NULL or "": none), as
//  an array of str; -1 if an item is not an endpoint or there are too many
static int
s_pack_endpoints (msgpack_packer *pk, const char *endpoints)
{
    uint32_t count = 0;
    if (endpoints && *endpoints) {
        count = 1;
        for (const char *cursor = endpoints; *cursor; cursor++)
            count += *cursor == ',';
    }
    if (count > DROVER_QUEUE_ENDPOINTS_MAX)
        return -1;
    msgpack_pack_array (pk, count);
    const char *start = endpoints;
    for (uint32_t index = 0; index < count; index++) {
        const char *end = strchr (start, ',');
        size_t length = end? (size_t) (end - start): strlen (start);
        if (!s_endpoint_valid (start, length))
            return -1;
        drover_mpack_pack_str (pk, start, length);
        start += length + 1;
    }
    return 0;
}

//  Pack QUEUE TABLE's rows; -1 if one breaks a limit or they are not in
//  name order
int
drover_msg_queues_pack_rows (msgpack_packer *pk, const drover_msg_t *self)
{
    if (self->nqueues > DROVER_QUEUES_MAX || (self->nqueues && !self->queue_rows))
        return -1;
    msgpack_pack_array (pk, self->nqueues);
    for (uint32_t index = 0; index < self->nqueues; index++) {
        const drover_queue_row_t *row = &self->queue_rows [index];
        size_t name = strnlen (row->name, DROVER_QUEUE_NAME_MAX + 1);
        size_t owner = strnlen (row->owner, DROVER_ID_MAX + 1);
        size_t endpoint = strnlen (row->owner_endpoint, DROVER_ENDPOINT_MAX + 1);
        if (!s_name_valid (row->name, name)
        ||  (index > 0 && strcmp (self->queue_rows [index - 1].name, row->name) >= 0)
        ||  (owner && !drover_mpack_id_valid (row->owner, owner))
        ||  (endpoint && !s_endpoint_valid (row->owner_endpoint, endpoint)))
            return -1;
        msgpack_pack_array (pk, S_ROW_KNOWN);
        drover_mpack_pack_str (pk, row->name, name);
        drover_mpack_pack_str (pk, row->owner, owner);
        drover_mpack_pack_str (pk, row->owner_endpoint, endpoint);
        msgpack_pack_uint64 (pk, row->token);
        if (s_pack_endpoints (pk, row->endpoints))
            return -1;
    }
    return 0;
}

//  Read the strategy, with this file's error texts
static bool
s_read_strategy (drover_mpack_cursor_t *cursor, char *strategy)
{
    const char *text;
    size_t length;
    if (!drover_mpack_read_str (cursor, P_STRATEGY, 0, DROVER_STRATEGY_MAX, &text, &length))
        return false;
    if (!s_strategy_valid (text, length))
        return drover_mpack_fail (cursor, s_errors [P_STRATEGY].invalid);
    memcpy (strategy, text, length);
    strategy [length] = 0;
    return true;
}

//  Read QUEUE TABLE's strategy into self->strategy
bool
drover_msg_queues_read_strategy (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    const drover_mpack_errors_t *errors = cursor->errors;
    cursor->errors = s_errors;
    bool ok = s_read_strategy (cursor, self->strategy);
    cursor->errors = errors;
    return ok;
}

//  Read a str of 0..max bytes into a fixed array of max + 1, checked by
//  valid unless empty
static bool
s_read_checked (drover_mpack_cursor_t *cursor, int part, size_t max,
                bool (*valid) (const char *, size_t), char *out)
{
    if (!drover_mpack_read_fixed (cursor, part, max, out))
        return false;
    if (*out && !valid (out, strlen (out)))
        return drover_mpack_fail (cursor, s_errors [part].invalid);
    return true;
}

//  Read a row's endpoints into one new comma-separated string: a first
//  pass checks each and measures them, a second copies
static bool
s_read_endpoints (drover_mpack_cursor_t *cursor, char **endpoints_p)
{
    uint32_t count;
    if (!drover_mpack_read_array (cursor, P_ENDPOINTS, 0, DROVER_QUEUE_ENDPOINTS_MAX,
                                  S_ENDPOINT_MIN, &count))
        return false;
    drover_mpack_cursor_t start = *cursor;
    size_t total = 1;
    const char *text;
    size_t length;
    for (uint32_t index = 0; index < count; index++) {
        if (!drover_mpack_read_str (cursor, P_ENDPOINT, 1, DROVER_ENDPOINT_MAX, &text, &length))
            return false;
        if (!s_endpoint_valid (text, length))
            return drover_mpack_fail (cursor, s_errors [P_ENDPOINT].invalid);
        total += length + 1;
    }
    char *endpoints = (char *) drover_mpack_malloc (total);
    size_t used = 0;
    for (uint32_t index = 0; index < count; index++) {
        drover_mpack_read_str (&start, P_ENDPOINT, 1, DROVER_ENDPOINT_MAX, &text, &length);
        if (index)
            endpoints [used++] = ',';
        memcpy (endpoints + used, text, length);
        used += length;
    }
    endpoints [used] = 0;
    *endpoints_p = endpoints;
    return true;
}

//  Read one row, with this file's error texts
static bool
s_read_row (drover_mpack_cursor_t *cursor, drover_queue_row_t *row)
{
    uint32_t fields;
    const char *name;
    size_t length;
    if (!drover_mpack_read_array (cursor, P_ROW, S_ROW_KNOWN, UINT32_MAX, 1, &fields)
    ||  !drover_mpack_read_str (cursor, P_NAME, 1, DROVER_QUEUE_NAME_MAX, &name, &length))
        return false;
    if (!s_name_valid (name, length))
        return drover_mpack_fail (cursor, s_errors [P_NAME].invalid);
    memcpy (row->name, name, length);
    row->name [length] = 0;
    return s_read_checked (cursor, P_OWNER, DROVER_ID_MAX, drover_mpack_id_valid, row->owner)
        && s_read_checked (cursor, P_OWNER_ENDPOINT, DROVER_ENDPOINT_MAX, s_endpoint_valid,
                         row->owner_endpoint)
        && drover_mpack_read_u64 (cursor, P_TOKEN, &row->token)
        && s_read_endpoints (cursor, &row->endpoints)
        && drover_mpack_skip_rest (cursor, fields, S_ROW_KNOWN, 3);
}

//  Read the rows, with this file's error texts
static bool
s_read_rows (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    uint32_t count;
    if (!drover_mpack_read_array (cursor, P_ROWS, 0, DROVER_QUEUES_MAX, S_ROW_MIN, &count))
        return false;
    if (count == 0)
        return true;
    self->queue_rows = (drover_queue_row_t *) zmalloc (count * sizeof (drover_queue_row_t));
    self->nqueues = count;
    for (uint32_t index = 0; index < count; index++) {
        if (!s_read_row (cursor, &self->queue_rows [index]))
            return false;
        if (index > 0 && strcmp (self->queue_rows [index - 1].name,
                                 self->queue_rows [index].name) >= 0)
            return drover_mpack_fail (cursor, s_errors [P_ORDER].invalid);
    }
    return true;
}

//  Read QUEUE TABLE's rows into self->queue_rows (the strategy read before)
bool
drover_msg_queues_read_rows (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    const drover_mpack_errors_t *errors = cursor->errors;
    cursor->errors = s_errors;
    bool ok = s_read_rows (cursor, self);
    cursor->errors = errors;
    return ok;
}
