/*  =========================================================================
    test_drover_msg_service_hostile - what a hostile peer sends
    in place of the services' and plans' messages (rows past the limit or
    past the bytes, states, kinds and actions out of range, bad ids and
    labels, strings too long, records too short, a histogram of the wrong
    size) is refused with a reason naming the part, before anything is
    allocated for it. Records longer than this version's are read, the
    extra elements skipped (a later version may append).
    =========================================================================
*/

#include "testcodec.h"

//  What a raw record may get wrong, and how
typedef enum {
    BAD_NONE, BAD_STATS_SHORT, BAD_COMPLETE, BAD_STATS_WHY_LONG, BAD_COUNT_BIG,
    BAD_BUCKETS_FEW, BAD_BUCKETS_MANY, BAD_BUCKET_NEGATIVE, BAD_NAME_EMPTY, BAD_NAME_SPACE,
    BAD_NAME_LONG, BAD_LABEL, BAD_LABELS_MANY, BAD_SERVICE_STATE, BAD_SUMMARY_LONG,
    BAD_WHY_NUL, BAD_SERVICE_SHORT, BAD_REPLICA_SERVICE, BAD_WORKER, BAD_REPLICA_STATE,
    BAD_REPLICA_SHORT, BAD_SLOT_BIG, BAD_KIND, BAD_FROM, BAD_TO, BAD_CHANGE_SHORT,
    BAD_CHANGE_WHY_LONG, BAD_DEEP, EXTRA_ELEMENTS, UNKNOWN_VALUES
} s_bad_t;

//  An enum or flag as bad says: negative (refused) when it is the fault,
//  past its last value (a newer broker's, kept as it came) for
//  UNKNOWN_VALUES, else value
static int
s_enum_value (s_bad_t bad, s_bad_t fault, int value, int last)
{
    return bad == fault? -1: bad == UNKNOWN_VALUES? last + 1: value;
}

//  Pack raw statistics with what bad says wrong
static void
s_raw_stats (testcodec_raw_t *raw, s_bad_t bad)
{
    char long_why [DROVER_REASON_MAX + 2];
    memset (long_why, 'y', sizeof long_why);
    bool extra = bad == EXTRA_ELEMENTS;
    msgpack_pack_array (&raw->pk, bad == BAD_STATS_SHORT? 18: extra? 21: 19);
    msgpack_pack_uint64 (&raw->pk, 5);
    msgpack_pack_uint64 (&raw->pk, 1795498700000ull);
    msgpack_pack_uint32 (&raw->pk, 12);
    msgpack_pack_int (&raw->pk, s_enum_value (bad, BAD_COMPLETE, 0, 1));
    if (bad == BAD_STATS_WHY_LONG)
        testcodec_raw_str (raw, long_why, DROVER_REASON_MAX + 1);
    else
        testcodec_raw_str (raw, "incomplete: w3 did not answer", 29);
    for (int index = 0; index < 13; index++)
        if (bad == BAD_COUNT_BIG && index == 5)
            msgpack_pack_uint64 (&raw->pk, 1ull << 32);
        else
            msgpack_pack_uint32 (&raw->pk, (uint32_t) index);
    if (bad != BAD_STATS_SHORT) {
        int buckets = bad == BAD_BUCKETS_FEW? 7: bad == BAD_BUCKETS_MANY? 9: 8;
        msgpack_pack_array (&raw->pk, buckets);
        for (int bucket = 0; bucket < buckets; bucket++)
            if (bad == BAD_BUCKET_NEGATIVE && bucket == 3)
                msgpack_pack_int (&raw->pk, -1);
            else
                msgpack_pack_uint32 (&raw->pk, (uint32_t) bucket);
    }
    if (extra)
        testcodec_raw_later_elements (raw);     //  a later version's: skipped
}

//  Pack a raw service row with what bad says wrong
static void
s_raw_service (testcodec_raw_t *raw, s_bad_t bad)
{
    char long_id [DROVER_ID_MAX + 2], long_summary [DROVER_SUMMARY_MAX + 2];
    memset (long_id, 'x', sizeof long_id);
    memset (long_summary, 's', sizeof long_summary);
    bool extra = bad == EXTRA_ELEMENTS || bad == BAD_DEEP;
    msgpack_pack_array (&raw->pk, bad == BAD_SERVICE_SHORT? 12: extra? 15: 13);
    if (bad == BAD_NAME_EMPTY)
        testcodec_raw_str (raw, "", 0);
    else
    if (bad == BAD_NAME_SPACE)
        testcodec_raw_str (raw, "w eb", 4);
    else
    if (bad == BAD_NAME_LONG)
        testcodec_raw_str (raw, long_id, DROVER_ID_MAX + 1);
    else
        testcodec_raw_str (raw, "web", 3);
    msgpack_pack_uint32 (&raw->pk, 4);
    msgpack_pack_uint32 (&raw->pk, 2);
    msgpack_pack_uint64 (&raw->pk, 1ull << 30);
    int labels = bad == BAD_LABELS_MANY? DROVER_LABELS_MAX + 1: 2;
    msgpack_pack_array (&raw->pk, labels);
    for (int index = 0; index < labels; index++)
        if (bad == BAD_LABEL && index == 1)
            testcodec_raw_str (raw, "=nokey", 6);
        else
            testcodec_raw_str (raw, "zone=a", 6);
    msgpack_pack_uint32 (&raw->pk, 1000);
    msgpack_pack_uint32 (&raw->pk, 3);
    msgpack_pack_uint32 (&raw->pk, 1);
    msgpack_pack_uint32 (&raw->pk, 9);
    msgpack_pack_int (&raw->pk, s_enum_value (bad, BAD_SERVICE_STATE, 1,
                                              DROVER_SERVICE_STATE_MAX));
    msgpack_pack_uint64 (&raw->pk, 1795498600000ull);
    if (bad == BAD_SUMMARY_LONG)
        testcodec_raw_str (raw, long_summary, DROVER_SUMMARY_MAX + 1);
    else
        testcodec_raw_str (raw, "sleep 3600", 10);
    if (bad == BAD_WHY_NUL)
        testcodec_raw_str (raw, "a\0b", 3);
    else
    if (bad != BAD_SERVICE_SHORT)
        testcodec_raw_str (raw, "slot 3: no worker has room", 26);
    if (extra)
        msgpack_pack_uint32 (&raw->pk, 2);      //  level 7: max per worker
    if (bad == BAD_DEEP) {                      //  depth 5: message, services, row, [[ ]]
        msgpack_pack_array (&raw->pk, 1);
        msgpack_pack_array (&raw->pk, 0);
    }
    else
    if (extra)
        msgpack_pack_array (&raw->pk, 0);       //  a later version's: skipped
}

//  Pack a raw replica row with what bad says wrong
static void
s_raw_replica (testcodec_raw_t *raw, s_bad_t bad)
{
    bool extra = bad == EXTRA_ELEMENTS;
    msgpack_pack_array (&raw->pk, bad == BAD_REPLICA_SHORT? 8: extra? 10: 9);
    if (bad == BAD_REPLICA_SERVICE)
        testcodec_raw_str (raw, "", 0);
    else
        testcodec_raw_str (raw, "web", 3);
    if (bad == BAD_SLOT_BIG)
        msgpack_pack_uint64 (&raw->pk, 1ull << 32);
    else
        msgpack_pack_uint32 (&raw->pk, 3);
    msgpack_pack_uint64 (&raw->pk, 1ull << 40);
    msgpack_pack_uint32 (&raw->pk, 2);
    testcodec_raw_str (raw, bad == BAD_WORKER? "w\x7f": "w1", 2);
    msgpack_pack_int (&raw->pk, s_enum_value (bad, BAD_REPLICA_STATE, 1,
                                              DROVER_REPLICA_STATE_MAX));
    msgpack_pack_uint64 (&raw->pk, 1795498600000ull);
    msgpack_pack_uint32 (&raw->pk, 4);
    if (bad != BAD_REPLICA_SHORT)
        testcodec_raw_str (raw, "exited 1", 8);
    if (extra)
        msgpack_pack_nil (&raw->pk);            //  a later version's: skipped
}

//  Pack a raw change with what bad says wrong
static void
s_raw_change (testcodec_raw_t *raw, s_bad_t bad)
{
    char long_why [DROVER_REASON_MAX + 2];
    memset (long_why, 'y', sizeof long_why);
    bool extra = bad == EXTRA_ELEMENTS;
    msgpack_pack_array (&raw->pk, bad == BAD_CHANGE_SHORT? 6: extra? 8: 7);
    msgpack_pack_int (&raw->pk, s_enum_value (bad, BAD_KIND, DROVER_CHANGE_MOVE,
                                              DROVER_CHANGE_KIND_MAX));
    testcodec_raw_str (raw, "web", 3);
    msgpack_pack_uint32 (&raw->pk, 1);
    msgpack_pack_uint64 (&raw->pk, 99);
    testcodec_raw_str (raw, bad == BAD_FROM? "w 2": "w2", bad == BAD_FROM? 3: 2);
    testcodec_raw_str (raw, bad == BAD_TO? "w\t3": "w3", bad == BAD_TO? 3: 2);
    if (bad == BAD_CHANGE_WHY_LONG)
        testcodec_raw_str (raw, long_why, DROVER_REASON_MAX + 1);
    else
    if (bad != BAD_CHANGE_SHORT)
        testcodec_raw_str (raw, "worker draining", 15);
    if (extra)
        msgpack_pack_uint64 (&raw->pk, UINT64_MAX);     //  a later version's: skipped
}

//  Pack a raw SERVICE TABLE of one service and one replica with what bad
//  says wrong
static void
s_raw_table (testcodec_raw_t *raw, s_bad_t bad)
{
    testcodec_raw_begin (raw, DROVER_MSG_SERVICE_TABLE, 3);
    s_raw_stats (raw, bad);
    msgpack_pack_array (&raw->pk, 1);
    s_raw_service (raw, bad);
    msgpack_pack_array (&raw->pk, 1);
    s_raw_replica (raw, bad);
}

//  Pack a raw PLAN RESULT of one change with what bad says wrong
static void
s_raw_result (testcodec_raw_t *raw, s_bad_t bad)
{
    testcodec_raw_begin (raw, DROVER_MSG_PLAN_RESULT, 3);
    s_raw_stats (raw, BAD_NONE);
    s_raw_stats (raw, bad);
    msgpack_pack_array (&raw->pk, 1);
    s_raw_change (raw, bad);
}

//  A fault to pack into a raw message, and the error its refusal must name
typedef struct {
    s_bad_t bad;
    const char *error;
} s_refusal_t;

//  Pack each case's fault with pack and assert the message is refused,
//  naming its error, with nothing allocated past 64 times its size
static void
s_assert_refusals (void (*pack) (testcodec_raw_t *raw, s_bad_t bad), const s_refusal_t *cases,
                   size_t count)
{
    testcodec_raw_t raw;
    for (size_t index = 0; index < count; index++) {
        pack (&raw, cases [index].bad);
        testcodec_assert_raw_refused (&raw, cases [index].error, 64);
    }
}

//  Start a raw message of one kind of rows (0: a SERVICE TABLE's services,
//  1: its replicas, 2: a PLAN RESULT's changes) up to those rows' array
static void
s_raw_rows_begin (testcodec_raw_t *raw, int kind)
{
    testcodec_raw_begin (raw, kind == 2? DROVER_MSG_PLAN_RESULT: DROVER_MSG_SERVICE_TABLE, 3);
    s_raw_stats (raw, BAD_NONE);
    if (kind == 1)
        msgpack_pack_array (&raw->pk, 0);
    if (kind == 2)
        s_raw_stats (raw, BAD_NONE);
}

//  What a hostile peer sends for a table or a plan's result is refused,
//  naming what is wrong, with nothing allocated past a bound of the
//  message's size
static void
test_hostile_tables_are_refused (void **state)
{
    static const s_refusal_t table_cases [] = {
        { BAD_STATS_SHORT,      "stats: out of range" },
        { BAD_COMPLETE,         "complete: out of range" },
        { BAD_STATS_WHY_LONG,   "stats why: out of range" },
        { BAD_COUNT_BIG,        "ok: out of range" },
        { BAD_BUCKETS_FEW,      "restarts histogram: out of range" },
        { BAD_BUCKETS_MANY,     "restarts histogram: out of range" },
        { BAD_BUCKET_NEGATIVE,  "restarts histogram: out of range" },
        { BAD_NAME_EMPTY,       "name: out of range" },
        { BAD_NAME_SPACE,       "name: not a valid service name" },
        { BAD_NAME_LONG,        "name: out of range" },
        { BAD_LABEL,            "labels: not key=value" },
        { BAD_LABELS_MANY,      "labels: out of range" },
        { BAD_SERVICE_STATE,    "service state: out of range" },
        { BAD_SUMMARY_LONG,     "summary: out of range" },
        { BAD_WHY_NUL,          "why: contains NUL" },
        { BAD_SERVICE_SHORT,    "service row: out of range" },
        { BAD_REPLICA_SERVICE,  "service: out of range" },
        { BAD_WORKER,           "worker: not a valid worker id" },
        { BAD_REPLICA_STATE,    "replica state: out of range" },
        { BAD_REPLICA_SHORT,    "replica row: out of range" },
        { BAD_SLOT_BIG,         "slot: out of range" },
        { BAD_DEEP,             "nesting deeper than the limit" },
    };
    s_assert_refusals (s_raw_table, table_cases, sizeof table_cases / sizeof table_cases [0]);
    static const s_refusal_t result_cases [] = {
        { BAD_STATS_SHORT,      "stats: out of range" },
        { BAD_BUCKETS_MANY,     "restarts histogram: out of range" },
        { BAD_KIND,             "kind: out of range" },
        { BAD_FROM,             "from: not a valid worker id" },
        { BAD_TO,               "to: not a valid worker id" },
        { BAD_CHANGE_SHORT,     "change: out of range" },
        { BAD_CHANGE_WHY_LONG,  "why: out of range" },
    };
    s_assert_refusals (s_raw_result, result_cases,
                       sizeof result_cases / sizeof result_cases [0]);

    //  The same bytes, put right, decode: each case above failed on its one fault
    testcodec_raw_t raw;
    s_raw_table (&raw, BAD_NONE);
    drover_msg_t *msg = testcodec_raw_accepted (&raw);
    assert_int_equal (msg->nservices, 1);
    assert_int_equal (msg->nreplicas, 1);
    assert_string_equal (msg->stats_now.why, "incomplete: w3 did not answer");
    assert_int_equal (msg->stats_now.moved, 12);
    assert_int_equal (msg->stats_now.restarts [7], 7);
    assert_int_equal (msg->service_rows [0].nlabels, 2);
    assert_string_equal (msg->service_rows [0].why, "slot 3: no worker has room");
    assert_string_equal (msg->replica_rows [0].why, "exited 1");
    drover_msg_destroy (&msg);
    s_raw_result (&raw, BAD_NONE);
    msg = testcodec_raw_accepted (&raw);
    assert_int_equal (msg->nchanges, 1);
    assert_int_equal (msg->changes [0].kind, DROVER_CHANGE_MOVE);
    assert_string_equal (msg->changes [0].to, "w3");
    drover_msg_destroy (&msg);

    //  More rows than DROVER_ROWS_MAX (all there), of each kind
    for (int kind = 0; kind < 3; kind++) {
        s_raw_rows_begin (&raw, kind);
        msgpack_pack_array (&raw.pk, DROVER_ROWS_MAX + 1);
        for (int index = 0; index < DROVER_ROWS_MAX + 1; index++)
            if (kind == 0)
                s_raw_service (&raw, BAD_NONE);
            else
            if (kind == 1)
                s_raw_replica (&raw, BAD_NONE);
            else
                s_raw_change (&raw, BAD_NONE);
        if (kind == 0)
            msgpack_pack_array (&raw.pk, 0);
        testcodec_assert_raw_refused (&raw, kind == 0? "services: out of range"
                                  : kind == 1? "replicas rows: out of range"
                                  : "changes: out of range", 64);
    }

    //  10000 rows claimed, nils where they should be: refused unallocated
    for (int kind = 0; kind < 3; kind++) {
        s_raw_rows_begin (&raw, kind);
        msgpack_pack_array (&raw.pk, DROVER_ROWS_MAX);
        for (int index = 0; index < DROVER_ROWS_MAX; index++)
            msgpack_pack_nil (&raw.pk);
        if (kind == 0)
            msgpack_pack_array (&raw.pk, 0);
        testcodec_assert_raw_refused (&raw, "truncated", 64);
    }

    //  As many smallest rows as the bytes hold, each with a fault at its
    //  end: allocated at most the bound, then refused
    testcodec_raw_begin (&raw, DROVER_MSG_PLAN_RESULT, 3);
    s_raw_stats (&raw, BAD_NONE);
    s_raw_stats (&raw, BAD_NONE);
    msgpack_pack_array (&raw.pk, DROVER_ROWS_MAX);
    for (int index = 0; index < DROVER_ROWS_MAX; index++) {
        msgpack_pack_array (&raw.pk, 7);
        for (int element = 0; element < 7; element++)
            if (element == 0 || element == 2 || element == 3)
                msgpack_pack_int (&raw.pk, index == DROVER_ROWS_MAX - 1 && element == 0? -1: 0);
            else
                testcodec_raw_str (&raw, "", 0);
    }
    testcodec_assert_raw_refused (&raw, "kind: out of range", 64);

    //  Statistics that are not a record; rows that are not an array; a
    //  table without its replicas
    testcodec_raw_begin (&raw, DROVER_MSG_SERVICE_TABLE, 3);
    msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 0);
    msgpack_pack_array (&raw.pk, 0);
    testcodec_assert_raw_refused (&raw, "stats: wrong type", 64);
    testcodec_raw_begin (&raw, DROVER_MSG_SERVICE_TABLE, 3);
    s_raw_stats (&raw, BAD_NONE);
    msgpack_pack_nil (&raw.pk);
    msgpack_pack_array (&raw.pk, 0);
    testcodec_assert_raw_refused (&raw, "services: wrong type", 64);
    testcodec_raw_begin (&raw, DROVER_MSG_SERVICE_TABLE, 2);
    s_raw_stats (&raw, BAD_NONE);
    msgpack_pack_array (&raw.pk, 0);
    testcodec_assert_raw_refused (&raw, "wrong number of fields", 64);
    testcodec_raw_begin (&raw, DROVER_MSG_PLAN_RESULT, 3);
    s_raw_stats (&raw, BAD_NONE);
    s_raw_stats (&raw, BAD_NONE);
    msgpack_pack_map (&raw.pk, 0);
    testcodec_assert_raw_refused (&raw, "changes: wrong type", 64);
}

//  What a hostile peer sends for a request is refused, naming what is
//  wrong
static void
test_hostile_requests_are_refused (void **state)
{
    testcodec_raw_t raw;
    //  SERVICE ADMIN: an action past delete, negative, a string; no
    //  service, one with a space; a label that is no label; a field short
    const int64_t actions [] = { DROVER_SERVICE_ACTION_MAX + 1, -1, 256 };
    for (size_t index = 0; index < 4; index++) {
        testcodec_raw_begin (&raw, DROVER_MSG_SERVICE_ADMIN, 8);
        if (index < 3)
            msgpack_pack_int64 (&raw.pk, actions [index]);
        else
            testcodec_raw_str (&raw, "create", 6);
        testcodec_raw_str (&raw, "web", 3);
        for (int field = 0; field < 3; field++)
            msgpack_pack_uint8 (&raw.pk, 1);
        msgpack_pack_array (&raw.pk, 0);
        msgpack_pack_uint8 (&raw.pk, 0);
        msgpack_pack_bin (&raw.pk, 0);
        testcodec_assert_raw_refused (&raw, index < 3? "action: out of range": "action: wrong type", 64);
    }
    const char *services [] = { "", "w eb" };
    const char *errors [] = { "service: out of range", "service: not a valid service name" };
    for (size_t index = 0; index < 2; index++) {
        testcodec_raw_begin (&raw, DROVER_MSG_SERVICE_ADMIN, 8);
        msgpack_pack_uint8 (&raw.pk, DROVER_SERVICE_DELETE);
        testcodec_raw_str (&raw, services [index], strlen (services [index]));
        for (int field = 0; field < 3; field++)
            msgpack_pack_uint8 (&raw.pk, 1);
        msgpack_pack_array (&raw.pk, 0);
        msgpack_pack_uint8 (&raw.pk, 0);
        msgpack_pack_bin (&raw.pk, 0);
        testcodec_assert_raw_refused (&raw, errors [index], 64);
    }
    testcodec_raw_begin (&raw, DROVER_MSG_SERVICE_ADMIN, 8);
    msgpack_pack_uint8 (&raw.pk, DROVER_SERVICE_CREATE);
    testcodec_raw_str (&raw, "web", 3);
    for (int field = 0; field < 3; field++)
        msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 1);
    testcodec_raw_str (&raw, "k v", 3);
    msgpack_pack_uint8 (&raw.pk, 0);
    msgpack_pack_bin (&raw.pk, 0);
    testcodec_assert_raw_refused (&raw, "labels: not key=value", 64);
    testcodec_raw_begin (&raw, DROVER_MSG_SERVICE_ADMIN, 7);
    msgpack_pack_uint8 (&raw.pk, DROVER_SERVICE_SCALE);
    testcodec_raw_str (&raw, "web", 3);
    for (int field = 0; field < 3; field++)
        msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 0);
    msgpack_pack_uint8 (&raw.pk, 0);
    testcodec_assert_raw_refused (&raw, "wrong number of fields", 64);

    //  SERVICE LIST: a name with a space, a number, none at all
    testcodec_raw_begin (&raw, DROVER_MSG_SERVICE_LIST, 1);
    testcodec_raw_str (&raw, "w eb", 4);
    testcodec_assert_raw_refused (&raw, "service: not a valid service name", 64);
    testcodec_raw_begin (&raw, DROVER_MSG_SERVICE_LIST, 1);
    msgpack_pack_uint8 (&raw.pk, 1);
    testcodec_assert_raw_refused (&raw, "service: wrong type", 64);
    testcodec_raw_begin (&raw, DROVER_MSG_SERVICE_LIST, 0);
    testcodec_assert_raw_refused (&raw, "wrong number of fields", 64);

    //  PLAN: an action past term; a target with a space; a count past uint32
    testcodec_raw_begin (&raw, DROVER_MSG_PLAN, 3);
    msgpack_pack_uint8 (&raw.pk, DROVER_PLAN_ACTION_MAX + 1);
    testcodec_raw_str (&raw, "w1", 2);
    msgpack_pack_uint8 (&raw.pk, 0);
    testcodec_assert_raw_refused (&raw, "action: out of range", 64);
    for (int action = 0; action <= DROVER_PLAN_ACTION_MAX; action++) {
        testcodec_raw_begin (&raw, DROVER_MSG_PLAN, 3);
        msgpack_pack_uint8 (&raw.pk, (uint8_t) action);
        testcodec_raw_str (&raw, "w 1", 3);
        msgpack_pack_uint8 (&raw.pk, 0);
        testcodec_assert_raw_refused (&raw, "target: not a valid worker or service name", 64);
    }
    testcodec_raw_begin (&raw, DROVER_MSG_PLAN, 3);
    msgpack_pack_uint8 (&raw.pk, DROVER_PLAN_SCALE);
    testcodec_raw_str (&raw, "web", 3);
    msgpack_pack_uint64 (&raw.pk, 1ull << 32);
    testcodec_assert_raw_refused (&raw, "count: out of range", 64);

    //  WORKER GATHER (the broker's) with a field a newer broker added: read,
    //  the field passed over
    testcodec_raw_begin (&raw, DROVER_MSG_WORKER_GATHER, 1);
    msgpack_pack_uint8 (&raw.pk, 1);
    drover_msg_t *gather = testcodec_raw_accepted (&raw);
    assert_int_equal (gather->id, DROVER_MSG_WORKER_GATHER);
    assert_int_equal (gather->seq, TESTCODEC_SEQ);
    drover_msg_destroy (&gather);

    //  WORKER RUNS with a field past its 2; without a worker, with 4097
    //  attempts, with a count the bytes cannot hold
    testcodec_raw_begin (&raw, DROVER_MSG_WORKER_RUNS, 3);
    testcodec_raw_str (&raw, "w1", 2);
    msgpack_pack_array (&raw.pk, 0);
    msgpack_pack_uint8 (&raw.pk, 1);
    testcodec_assert_raw_refused (&raw, "wrong number of fields", 64);
    testcodec_raw_begin (&raw, DROVER_MSG_WORKER_RUNS, 2);
    testcodec_raw_str (&raw, "", 0);
    msgpack_pack_array (&raw.pk, 0);
    testcodec_assert_raw_refused (&raw, "worker: out of range", 64);
    testcodec_raw_begin (&raw, DROVER_MSG_WORKER_RUNS, 2);
    testcodec_raw_str (&raw, "w1", 2);
    msgpack_pack_array (&raw.pk, DROVER_RUNNING_MAX + 1);
    for (int index = 0; index <= DROVER_RUNNING_MAX; index++) {
        msgpack_pack_array (&raw.pk, 2);
        msgpack_pack_uint8 (&raw.pk, 1);
        msgpack_pack_uint8 (&raw.pk, 1);
    }
    testcodec_assert_raw_refused (&raw, "running: out of range", 64);
    //  A pair of three (records grow at their end): the third passed
    //  over; a pair of one is refused
    testcodec_raw_begin (&raw, DROVER_MSG_WORKER_RUNS, 2);
    testcodec_raw_str (&raw, "w1", 2);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 3);
    for (int index = 0; index < 3; index++)
        msgpack_pack_uint8 (&raw.pk, (uint8_t) (index + 7));
    drover_msg_t *runs = testcodec_raw_accepted (&raw);
    assert_int_equal (runs->nrunning, 1);
    assert_true (runs->running [0].task == 7 && runs->running [0].attempt == 8);
    drover_msg_destroy (&runs);
    testcodec_raw_begin (&raw, DROVER_MSG_WORKER_RUNS, 2);
    testcodec_raw_str (&raw, "w1", 2);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_fix_uint64 (&raw.pk, 7);       //  wide: as many bytes as a pair
    testcodec_assert_raw_refused (&raw, "running entry: out of range", 64);
    testcodec_raw_begin (&raw, DROVER_MSG_WORKER_RUNS, 2);
    testcodec_raw_str (&raw, "w1", 2);
    msgpack_pack_array (&raw.pk, DROVER_RUNNING_MAX);
    for (int index = 0; index < DROVER_RUNNING_MAX; index++)
        msgpack_pack_nil (&raw.pk);
    testcodec_assert_raw_refused (&raw, "truncated", 64);
}

//  Statistics and rows longer than this version's (a later version's) are
//  read: the elements known, the rest skipped
static void
test_longer_records_are_read (void **state)
{
    testcodec_raw_t raw;
    s_raw_table (&raw, EXTRA_ELEMENTS);
    drover_msg_t *msg = testcodec_raw_accepted (&raw);
    assert_true (msg->stats_now.term == 5);
    assert_int_equal (msg->stats_now.restarts [7], 7);
    assert_int_equal (msg->nservices, 1);
    assert_string_equal (msg->service_rows [0].name, "web");
    assert_string_equal (msg->service_rows [0].why, "slot 3: no worker has room");
    assert_int_equal (msg->service_rows [0].max_per_worker, 2);
    assert_int_equal (msg->nreplicas, 1);
    assert_int_equal (msg->replica_rows [0].restarts, 4);
    assert_string_equal (msg->replica_rows [0].why, "exited 1");
    drover_msg_destroy (&msg);
    s_raw_result (&raw, EXTRA_ELEMENTS);
    msg = testcodec_raw_accepted (&raw);
    assert_int_equal (msg->nchanges, 1);
    assert_string_equal (msg->changes [0].why, "worker draining");
    assert_int_equal (msg->stats_after.complete, 0);
    drover_msg_destroy (&msg);

    //  Values past the last this version knows (a newer broker's) are kept
    //  as they came, and not sent on
    s_raw_table (&raw, UNKNOWN_VALUES);
    msg = testcodec_raw_accepted (&raw);
    assert_int_equal (msg->stats_now.complete, 2);
    assert_int_equal (msg->service_rows [0].state, DROVER_SERVICE_STATE_MAX + 1);
    assert_string_equal (msg->service_rows [0].name, "web");
    assert_int_equal (msg->replica_rows [0].state, DROVER_REPLICA_STATE_MAX + 1);
    assert_string_equal (msg->replica_rows [0].why, "exited 1");
    testcodec_assert_not_encoded (msg, "values it does not know");
    drover_msg_destroy (&msg);
    s_raw_result (&raw, UNKNOWN_VALUES);
    msg = testcodec_raw_accepted (&raw);
    assert_int_equal (msg->changes [0].kind, DROVER_CHANGE_KIND_MAX + 1);
    assert_string_equal (msg->changes [0].why, "worker draining");
    testcodec_assert_not_encoded (msg, "values it does not know");
    drover_msg_destroy (&msg);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_hostile_tables_are_refused),
        cmocka_unit_test (test_hostile_requests_are_refused),
        cmocka_unit_test (test_longer_records_are_read),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
