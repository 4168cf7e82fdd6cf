/*  =========================================================================
    test_drover_msg_pool - the elastic pool's messages on the wire (POOL
    LIST, POOL TABLE, POOL ADMIN): they round-trip at every limit, a table
    or request past a limit is not encoded, and whatever a hostile peer
    sends in their place (rows past the limit or past the bytes, bad
    prices, states, behaviours, actions, ids, strings too long, records
    too short) is refused with a reason naming the part, before anything
    is allocated for it. Records longer than this version's are read, the
    extra elements skipped (a later version may append).
    test_drover_msg_roundtrip round-trips them with every other message,
    test_drover_msg_hostile mutates them.
    =========================================================================
*/

#include "testcodec.h"

//  A POOL TABLE with count rows, every field set
static drover_msg_t *
s_table (uint32_t count)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_POOL_TABLE);
    msg->seq = 9;
    msg->pool = (drover_pool_summary_t) { .enabled = 1, .driver = "local", .live = count,
        .max_instances = 64, .price = 0.1 * count, .max_price = 0,
        .backoff_until = 0, .failures = 0 };
    msg->nrows = count;
    msg->pool_rows = count? (drover_pool_row_t *) zmalloc (count * sizeof (drover_pool_row_t))
                          : NULL;
    for (uint32_t index = 0; index < count; index++) {
        drover_pool_row_t *row = &msg->pool_rows [index];
        snprintf (row->id, sizeof row->id, "POOL-kx3f-%u", index + 1);
        strcpy (row->type, "small");
        row->price = 0.1;
        row->state = (uint8_t) (index % (DROVER_POOL_STATE_MAX + 1));
        row->behaviour = (uint8_t) (index % 3);
        row->created = 1795498670000ull + index;
        row->since = 1795498671000ull + index;
        row->procs = 2;
        row->mem = 4ull << 30;
    }
    return msg;
}





//  Fields a raw summary or row may get wrong, and how
typedef enum {
    BAD_NONE, BAD_ENABLED, BAD_DRIVER, BAD_PRICE_NEGATIVE, BAD_PRICE_NAN, BAD_PRICE_INF,
    BAD_PRICE_STR, BAD_MAX_PRICE, BAD_SUMMARY_SHORT, BAD_ID_EMPTY, BAD_ID_SPACE, BAD_ID_LONG,
    BAD_TYPE, BAD_ROW_PRICE, BAD_STATE, BAD_BEHAVIOUR, BAD_WHY_LONG, BAD_WHY_NUL,
    BAD_ROW_SHORT, BAD_TASKS, EXTRA_ELEMENTS, UNKNOWN_VALUES
} s_bad_t;

//  Pack a raw summary, enabled, with what bad says wrong
static void
s_raw_summary (testcodec_raw_t *raw, s_bad_t bad, int enabled)
{
    bool extra = bad == EXTRA_ELEMENTS;
    msgpack_pack_array (&raw->pk, bad == BAD_SUMMARY_SHORT? 7: extra? 11: 8);
    //  A negative flag is refused; one past 1 (a newer broker's) is kept
    msgpack_pack_int (&raw->pk, bad == BAD_ENABLED? -1: bad == UNKNOWN_VALUES? 2: enabled);
    testcodec_raw_str (raw, bad == BAD_DRIVER? "lo cal": "local", bad == BAD_DRIVER? 6: 5);
    msgpack_pack_uint32 (&raw->pk, 1);
    msgpack_pack_uint32 (&raw->pk, 3);
    switch (bad) {
        case BAD_PRICE_NEGATIVE:    msgpack_pack_double (&raw->pk, -0.5); break;
        case BAD_PRICE_NAN:         msgpack_pack_double (&raw->pk, NAN); break;
        case BAD_PRICE_INF:         msgpack_pack_float (&raw->pk, INFINITY); break;
        case BAD_PRICE_STR:         testcodec_raw_str (raw, "0.1", 3); break;
        default:                    msgpack_pack_float (&raw->pk, 0.25f);    //  float 32 is fine
    }
    if (bad == BAD_MAX_PRICE)
        msgpack_pack_int (&raw->pk, -1);
    else
        msgpack_pack_uint8 (&raw->pk, 2);       //  an integer is a fine float
    msgpack_pack_uint64 (&raw->pk, 1795498700000ull);
    if (bad != BAD_SUMMARY_SHORT)
        msgpack_pack_uint32 (&raw->pk, 3);
    if (extra) {
        msgpack_pack_uint8 (&raw->pk, 1);       //  probing (level 7)
        testcodec_raw_later_elements (raw);     //  a later version's: skipped
    }
}

//  Pack a raw row with what bad says wrong
static void
s_raw_row (testcodec_raw_t *raw, s_bad_t bad)
{
    char long_id [DROVER_ID_MAX + 2], long_why [DROVER_REASON_MAX + 2];
    memset (long_id, 'x', sizeof long_id);
    memset (long_why, 'y', sizeof long_why);
    bool extra = bad == EXTRA_ELEMENTS;
    msgpack_pack_array (&raw->pk, bad == BAD_ROW_SHORT? 14: extra? 18: 15);
    if (bad == BAD_ID_EMPTY)
        testcodec_raw_str (raw, "", 0);
    else
    if (bad == BAD_ID_SPACE)
        testcodec_raw_str (raw, "POOL 1", 6);
    else
    if (bad == BAD_ID_LONG)
        testcodec_raw_str (raw, long_id, DROVER_ID_MAX + 1);
    else
        testcodec_raw_str (raw, "POOL-1", 6);
    testcodec_raw_str (raw, bad == BAD_TYPE? "sm\x01ll": "small", 5);
    if (bad == BAD_ROW_PRICE)
        msgpack_pack_double (&raw->pk, -INFINITY);
    else
        msgpack_pack_double (&raw->pk, 0.1);
    //  Negative values are refused; values past the last (a newer
    //  broker's) are kept
    msgpack_pack_int (&raw->pk, bad == BAD_STATE? -1
                              : bad == UNKNOWN_VALUES? DROVER_POOL_STATE_MAX + 1: 2);
    msgpack_pack_int (&raw->pk, bad == BAD_BEHAVIOUR? -1
                              : bad == UNKNOWN_VALUES? DROVER_POOLADMIN_DESTROY: 1);
    for (int index = 0; index < 4; index++)
        msgpack_pack_uint64 (&raw->pk, 1795498700000ull + index);
    if (bad == BAD_TASKS)
        msgpack_pack_uint64 (&raw->pk, 1ull << 32);
    else
        msgpack_pack_uint32 (&raw->pk, 1);
    msgpack_pack_uint32 (&raw->pk, 2);
    msgpack_pack_uint32 (&raw->pk, 1);
    msgpack_pack_uint64 (&raw->pk, 4ull << 30);
    if (bad != BAD_ROW_SHORT)
        msgpack_pack_uint64 (&raw->pk, 1ull << 30);
    if (bad == BAD_WHY_LONG)
        testcodec_raw_str (raw, long_why, DROVER_REASON_MAX + 1);
    else
    if (bad == BAD_WHY_NUL)
        testcodec_raw_str (raw, "a\0b", 3);
    else
        testcodec_raw_str (raw, "registered", 10);
    if (extra) {
        msgpack_pack_uint8 (&raw->pk, 3);       //  probe failed (level 7)
        msgpack_pack_uint32 (&raw->pk, 4);      //  probes (level 7)
        msgpack_pack_array (&raw->pk, 0);       //  a later version's: skipped
    }
}

//  Pack a raw POOL TABLE of one row, enabled, with what bad says wrong
static void
s_raw_table (testcodec_raw_t *raw, s_bad_t bad)
{
    testcodec_raw_begin (raw, DROVER_MSG_POOL_TABLE, 2);
    s_raw_summary (raw, bad, 1);
    msgpack_pack_array (&raw->pk, 1);
    s_raw_row (raw, bad);
}

//  ---------------------------------------------------------------------

//  Every pool message round-trips, at its limits too: 10000 rows, names
//  of 64 bytes, a why of 256, the largest numbers; and a table without a
//  pool (enabled 0, no rows); every action of POOL ADMIN
static void
test_pool_messages_roundtrip_at_limits (void **state)
{
    drover_msg_t *msg = s_table (DROVER_ROWS_MAX);
    memset (msg->pool.driver, 'd', DROVER_ID_MAX);
    msg->pool.price = 1e300;
    msg->pool.backoff_until = UINT64_MAX;
    msg->pool.failures = UINT32_MAX;
    drover_pool_row_t *row = &msg->pool_rows [DROVER_ROWS_MAX - 1];
    memset (row->id, '~', DROVER_ID_MAX);
    memset (row->type, 't', DROVER_ID_MAX);
    memset (row->why, 'w', DROVER_REASON_MAX);
    row->last_task = UINT64_MAX;
    row->mem_used = UINT64_MAX;
    row->tasks = row->procs = row->procs_used = UINT32_MAX;
    drover_msg_t *copy = testcodec_roundtrip (msg);
    assert_int_equal (copy->nrows, DROVER_ROWS_MAX);
    assert_int_equal (copy->pool.enabled, 1);
    assert_string_equal (copy->pool.driver, msg->pool.driver);
    assert_true (copy->pool.price == 1e300);
    assert_true (copy->pool.backoff_until == UINT64_MAX);
    assert_int_equal (copy->pool.failures, UINT32_MAX);
    for (uint32_t index = 0; index < DROVER_ROWS_MAX; index++) {
        const drover_pool_row_t *x = &msg->pool_rows [index], *y = &copy->pool_rows [index];
        assert_string_equal (x->id, y->id);
        assert_string_equal (x->type, y->type);
        assert_string_equal (x->why, y->why);
        assert_true (x->price == y->price);
        assert_int_equal (x->state, y->state);
        assert_int_equal (x->behaviour, y->behaviour);
        assert_true (x->created == y->created && x->since == y->since);
        assert_true (x->last_task == y->last_task && x->mem_used == y->mem_used);
        assert_int_equal (x->tasks, y->tasks);
        assert_int_equal (x->procs_used, y->procs_used);
    }
    drover_msg_destroy (&copy);
    drover_msg_destroy (&msg);

    //  No pool: enabled 0, no rows, and that is all a client learns
    msg = drover_msg_new (DROVER_MSG_POOL_TABLE);
    copy = testcodec_roundtrip (msg);
    assert_int_equal (copy->pool.enabled, 0);
    assert_int_equal (copy->nrows, 0);
    assert_null (copy->pool_rows);
    drover_msg_destroy (&copy);
    drover_msg_destroy (&msg);

    //  POOL LIST: the header alone
    msg = drover_msg_new (DROVER_MSG_POOL_LIST);
    msg->seq = 5;
    copy = testcodec_roundtrip (msg);
    assert_int_equal (copy->id, DROVER_MSG_POOL_LIST);
    assert_int_equal (copy->seq, 5);
    drover_msg_destroy (&copy);
    drover_msg_destroy (&msg);

    //  POOL ADMIN: each action, an instance id of 64 bytes
    for (int action = 0; action <= DROVER_POOLADMIN_MAX; action++) {
        msg = drover_msg_new (DROVER_MSG_POOL_ADMIN);
        memset (msg->worker, '!', DROVER_ID_MAX);
        msg->admin = (uint8_t) action;
        copy = testcodec_roundtrip (msg);
        assert_int_equal (copy->admin, action);
        assert_string_equal (copy->worker, msg->worker);
        drover_msg_destroy (&copy);
        drover_msg_destroy (&msg);
    }
}

//  The wire layout of each pool message is what PROTOCOL.md §7.28-7.30
//  shows, byte for byte
static void
test_pool_wire_layout_is_pinned (void **state)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_POOL_ADMIN);
    msg->seq = 3;
    msg->admin = DROVER_POOLADMIN_DRAIN;
    strcpy (msg->worker, "P-1");
    const byte admin [] = { 0x96, 0xa3, 'D', 'R', 'V', 0x01, 0x1e, 0x03, 0x02,
                            0xa3, 'P', '-', '1' };
    testcodec_assert_encodes_to (msg, admin, sizeof admin);
    drover_msg_destroy (&msg);

    msg = drover_msg_new (DROVER_MSG_POOL_LIST);
    msg->seq = 4;
    const byte list [] = { 0x94, 0xa3, 'D', 'R', 'V', 0x01, 0x1c, 0x04 };
    testcodec_assert_encodes_to (msg, list, sizeof list);
    drover_msg_destroy (&msg);

    //  No pool: [enabled 0, "", 0, 0, 0.0, 0.0, 0, 0, probing 0 (level 7)] and
    //  no rows (a level-6 peer's layout: test_drover_msg_level7_pool)
    msg = drover_msg_new (DROVER_MSG_POOL_TABLE);
    msg->seq = 5;
    const byte none [] = { 0x96, 0xa3, 'D', 'R', 'V', 0x01, 0x1d, 0x05,
                           0x99, 0x00, 0xa0, 0x00, 0x00,
                           0xcb, 0, 0, 0, 0, 0, 0, 0, 0, 0xcb, 0, 0, 0, 0, 0, 0, 0, 0,
                           0x00, 0x00, 0x00, 0x90 };
    testcodec_assert_encodes_to (msg, none, sizeof none);
    drover_msg_destroy (&msg);
}

//  A table or request past a limit is not encoded: more rows than
//  DROVER_ROWS_MAX, a price not finite or negative, a state, behaviour or
//  action out of range, a bad id, type or driver, a why too long, rows in
//  a table that says no pool
static void
test_pool_messages_past_limits_are_not_encoded (void **state)
{
    drover_msg_t *msg = s_table (DROVER_ROWS_MAX + 1);
    testcodec_assert_not_encoded (msg, "10001 rows");
    drover_msg_destroy (&msg);

    double prices [] = { -0.01, NAN, INFINITY, -INFINITY };
    for (size_t index = 0; index < sizeof prices / sizeof prices [0]; index++) {
        msg = s_table (1);
        msg->pool.price = prices [index];
        testcodec_assert_not_encoded (msg, "a bad total price");
        msg->pool.price = 0;
        msg->pool.max_price = prices [index];
        testcodec_assert_not_encoded (msg, "a bad max price");
        msg->pool.max_price = 0;
        msg->pool_rows [0].price = prices [index];
        testcodec_assert_not_encoded (msg, "a bad row price");
        drover_msg_destroy (&msg);
    }
    msg = s_table (1);
    msg->pool_rows [0].state = DROVER_POOL_STATE_MAX + 1;
    testcodec_assert_not_encoded (msg, "state 5");
    msg->pool_rows [0].state = 0;
    msg->pool_rows [0].behaviour = DROVER_POOLADMIN_DESTROY;
    testcodec_assert_not_encoded (msg, "behaviour destroy");
    msg->pool_rows [0].behaviour = 0;
    strcpy (msg->pool_rows [0].id, "");
    testcodec_assert_not_encoded (msg, "an empty id");
    strcpy (msg->pool_rows [0].id, "a b");
    testcodec_assert_not_encoded (msg, "an id with a space");
    strcpy (msg->pool_rows [0].id, "ok");
    strcpy (msg->pool_rows [0].type, "sm all");
    testcodec_assert_not_encoded (msg, "a type with a space");
    strcpy (msg->pool_rows [0].type, "");
    memset (msg->pool_rows [0].why, 'w', sizeof msg->pool_rows [0].why);     //  no NUL
    testcodec_assert_not_encoded (msg, "a why of 257 bytes");
    msg->pool_rows [0].why [0] = 0;
    strcpy (msg->pool.driver, "lo\tcal");
    testcodec_assert_not_encoded (msg, "a driver with a tab");
    strcpy (msg->pool.driver, "local");
    msg->pool.enabled = 2;
    testcodec_assert_not_encoded (msg, "enabled 2");
    msg->pool.enabled = 0;
    testcodec_assert_not_encoded (msg, "rows but no pool");
    msg->pool.enabled = 1;
    zframe_t *frame = drover_msg_encode (msg);
    assert_non_null (frame);                //  and put right, it goes
    zframe_destroy (&frame);
    drover_msg_destroy (&msg);

    msg = drover_msg_new (DROVER_MSG_POOL_ADMIN);
    strcpy (msg->worker, "POOL-1");
    msg->admin = DROVER_POOLADMIN_MAX + 1;
    testcodec_assert_not_encoded (msg, "action 4");
    msg->admin = DROVER_POOLADMIN_HOLD;
    msg->worker [0] = 0;
    testcodec_assert_not_encoded (msg, "no instance");
    drover_msg_destroy (&msg);
}

//  What a hostile peer sends for a pool message is refused, naming what
//  is wrong, with nothing allocated past the message's size
static void
test_hostile_pool_messages_are_refused (void **state)
{
    static const struct {
        s_bad_t bad;
        const char *error;
    } cases [] = {
        { BAD_ENABLED,          "enabled: out of range" },
        { BAD_DRIVER,           "driver: not a valid name" },
        { BAD_PRICE_NEGATIVE,   "price: out of range" },
        { BAD_PRICE_NAN,        "price: out of range" },
        { BAD_PRICE_INF,        "price: out of range" },
        { BAD_PRICE_STR,        "price: wrong type" },
        { BAD_MAX_PRICE,        "max_price: out of range" },
        { BAD_SUMMARY_SHORT,    "summary: out of range" },
        { BAD_ID_EMPTY,         "instance: " },
        { BAD_ID_SPACE,         "instance: not a valid instance id" },
        { BAD_ID_LONG,          "instance: " },
        { BAD_TYPE,             "type: not a valid type name" },
        { BAD_ROW_PRICE,        "row price: out of range" },
        { BAD_WHY_LONG,         "why: out of range" },
        { BAD_WHY_NUL,          "why: contains NUL" },
        { BAD_ROW_SHORT,        "row: out of range" },
        { BAD_TASKS,            "tasks: out of range" },
    };
    testcodec_raw_t raw;
    for (size_t index = 0; index < sizeof cases / sizeof cases [0]; index++) {
        s_raw_table (&raw, cases [index].bad);
        testcodec_assert_raw_refused (&raw, cases [index].error, 32);
    }

    //  The same bytes, put right, decode: each case above failed on its one fault
    s_raw_table (&raw, BAD_NONE);
    drover_msg_t *msg = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (msg, RAW_DATA (raw), RAW_SIZE (raw)), 0);
    assert_int_equal (msg->nrows, 1);
    assert_true (msg->pool.price == 0.25);
    assert_true (msg->pool.max_price == 2.0);
    assert_string_equal (msg->pool_rows [0].why, "registered");
    testcodec_raw_destroy (&raw);
    //  A flag, a state and a behaviour past the last this version knows
    //  (a newer broker's) are kept as they came, and not sent on
    s_raw_table (&raw, UNKNOWN_VALUES);
    assert_int_equal (drover_msg_decode (msg, RAW_DATA (raw), RAW_SIZE (raw)), 0);
    assert_int_equal (msg->pool.enabled, 2);
    assert_int_equal (msg->pool_rows [0].state, DROVER_POOL_STATE_MAX + 1);
    assert_int_equal (msg->pool_rows [0].behaviour, DROVER_POOLADMIN_DESTROY);
    assert_string_equal (msg->pool_rows [0].why, "registered");
    testcodec_assert_not_encoded (msg, "values it does not know");
    drover_msg_destroy (&msg);
    testcodec_raw_destroy (&raw);

    //  Rows in a table that says there is no pool
    testcodec_raw_begin (&raw, DROVER_MSG_POOL_TABLE, 2);
    s_raw_summary (&raw, BAD_NONE, 0);
    msgpack_pack_array (&raw.pk, 1);
    s_raw_row (&raw, BAD_NONE);
    testcodec_assert_raw_refused (&raw, "a table without a pool has no rows", 32);

    //  More rows than DROVER_ROWS_MAX (all there)
    testcodec_raw_begin (&raw, DROVER_MSG_POOL_TABLE, 2);
    s_raw_summary (&raw, BAD_NONE, 1);
    msgpack_pack_array (&raw.pk, DROVER_ROWS_MAX + 1);
    for (int index = 0; index < DROVER_ROWS_MAX + 1; index++)
        s_raw_row (&raw, BAD_NONE);
    testcodec_assert_raw_refused (&raw, "rows: out of range", 32);

    //  10000 rows claimed, nils where they should be: refused unallocated
    testcodec_raw_begin (&raw, DROVER_MSG_POOL_TABLE, 2);
    s_raw_summary (&raw, BAD_NONE, 1);
    msgpack_pack_array (&raw.pk, DROVER_ROWS_MAX);
    for (int index = 0; index < DROVER_ROWS_MAX; index++)
        msgpack_pack_nil (&raw.pk);
    testcodec_assert_raw_refused (&raw, "truncated", 32);

    //  A summary that is not a record; rows that are not an array
    testcodec_raw_begin (&raw, DROVER_MSG_POOL_TABLE, 2);
    msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 0);
    testcodec_assert_raw_refused (&raw, "summary: wrong type", 32);
    testcodec_raw_begin (&raw, DROVER_MSG_POOL_TABLE, 2);
    s_raw_summary (&raw, BAD_NONE, 1);
    msgpack_pack_nil (&raw.pk);
    testcodec_assert_raw_refused (&raw, "rows: wrong type", 32);
    //  A table without its rows
    testcodec_raw_begin (&raw, DROVER_MSG_POOL_TABLE, 1);
    s_raw_summary (&raw, BAD_NONE, 1);
    testcodec_assert_raw_refused (&raw, "wrong number of fields", 32);

    //  POOL ADMIN: action past destroy, negative, a string; instance empty,
    //  with a space; a field missing; POOL LIST with a field
    const int64_t actions [] = { DROVER_POOLADMIN_MAX + 1, -1, 256 };
    for (size_t index = 0; index < 3; index++) {
        testcodec_raw_begin (&raw, DROVER_MSG_POOL_ADMIN, 2);
        msgpack_pack_int64 (&raw.pk, actions [index]);
        testcodec_raw_str (&raw, "POOL-1", 6);
        testcodec_assert_raw_refused (&raw, "action: out of range", 32);
    }
    testcodec_raw_begin (&raw, DROVER_MSG_POOL_ADMIN, 2);
    testcodec_raw_str (&raw, "hold", 4);
    testcodec_raw_str (&raw, "POOL-1", 6);
    testcodec_assert_raw_refused (&raw, "action: wrong type", 32);
    testcodec_raw_begin (&raw, DROVER_MSG_POOL_ADMIN, 2);
    msgpack_pack_uint8 (&raw.pk, 1);
    testcodec_raw_str (&raw, "", 0);
    testcodec_assert_raw_refused (&raw, "instance: ", 32);
    testcodec_raw_begin (&raw, DROVER_MSG_POOL_ADMIN, 2);
    msgpack_pack_uint8 (&raw.pk, 1);
    testcodec_raw_str (&raw, "POOL 1", 6);
    testcodec_assert_raw_refused (&raw, "instance: not a valid instance id", 32);
    testcodec_raw_begin (&raw, DROVER_MSG_POOL_ADMIN, 1);
    msgpack_pack_uint8 (&raw.pk, 1);
    testcodec_assert_raw_refused (&raw, "wrong number of fields", 32);
    testcodec_raw_begin (&raw, DROVER_MSG_POOL_LIST, 1);
    msgpack_pack_uint8 (&raw.pk, 1);
    testcodec_assert_raw_refused (&raw, "wrong number of fields", 32);
}

//  A summary and rows longer than this version's (a later version's) are
//  read: the elements known, the rest skipped
static void
test_longer_pool_records_are_read (void **state)
{
    testcodec_raw_t raw;
    s_raw_table (&raw, EXTRA_ELEMENTS);
    drover_msg_t *msg = drover_msg_new (0);
    int rc = drover_msg_decode (msg, RAW_DATA (raw), RAW_SIZE (raw));
    if (rc)
        fail_msg ("a longer record was refused: %s", msg->error);
    assert_int_equal (msg->pool.enabled, 1);
    assert_string_equal (msg->pool.driver, "local");
    assert_int_equal (msg->pool.failures, 3);
    assert_int_equal (msg->nrows, 1);
    assert_string_equal (msg->pool_rows [0].id, "POOL-1");
    assert_int_equal (msg->pool_rows [0].behaviour, DROVER_POOLADMIN_HOLD);
    assert_string_equal (msg->pool_rows [0].why, "registered");
    assert_int_equal (msg->pool.probing, 1);
    assert_int_equal (msg->pool_rows [0].probe, 3);
    assert_int_equal (msg->pool_rows [0].probes, 4);
    drover_msg_destroy (&msg);
    testcodec_raw_destroy (&raw);
}

//  The names of actions and states, and parsing an action's name
static void
test_pool_names (void **state)
{
    assert_string_equal (drover_msg_name (DROVER_MSG_POOL_LIST), "POOL LIST");
    assert_string_equal (drover_msg_name (DROVER_MSG_POOL_TABLE), "POOL TABLE");
    assert_string_equal (drover_msg_name (DROVER_MSG_POOL_ADMIN), "POOL ADMIN");
    assert_string_equal (drover_pool_state_name (0), "unknown");
    assert_string_equal (drover_pool_state_name (DROVER_POOL_STATE_MAX), "shutdown");
    assert_string_equal (drover_pool_state_name (DROVER_POOL_STATE_MAX + 1), "invalid");
    assert_string_equal (drover_pooladmin_name (DROVER_POOLADMIN_DESTROY), "destroy");
    assert_string_equal (drover_pooladmin_name (-1), "invalid");
    int action = -1;
    for (int index = 0; index <= DROVER_POOLADMIN_MAX; index++) {
        assert_int_equal (drover_pooladmin_parse (drover_pooladmin_name (index), &action), 0);
        assert_int_equal (action, index);
    }
    assert_int_equal (drover_pooladmin_parse ("resume", &action), -1);
    assert_int_equal (drover_pooladmin_parse ("HOLD", &action), -1);
    assert_int_equal (drover_pooladmin_parse (NULL, &action), -1);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_pool_messages_roundtrip_at_limits),
        cmocka_unit_test (test_pool_wire_layout_is_pinned),
        cmocka_unit_test (test_pool_messages_past_limits_are_not_encoded),
        cmocka_unit_test (test_hostile_pool_messages_are_refused),
        cmocka_unit_test (test_longer_pool_records_are_read),
        cmocka_unit_test (test_pool_names),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
