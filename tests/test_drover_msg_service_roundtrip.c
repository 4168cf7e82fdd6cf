/*  =========================================================================
    test_drover_msg_service_roundtrip - the services' and plans'
    messages on the wire (WORKER GATHER, WORKER RUNS, SERVICE ADMIN,
    SERVICE LIST, SERVICE TABLE, PLAN, PLAN RESULT, and TASK SUBMIT's
    affinity, service and slot): they round-trip at every limit, their
    layout is pinned, a message past a limit is not encoded, and the
    service names are checked. test_drover_msg_service_hostile has what a
    hostile peer sends in their place; test_drover_msg_roundtrip
    round-trips them with every other message, test_drover_msg_hostile
    mutates them.
    =========================================================================
*/

#include "testcodec.h"
#include "drover_client_wire.h"

//  Term statistics with every value set (salt makes two differ)
static void
s_fill_stats (drover_service_stats_t *stats, uint32_t salt)
{
    *stats = (drover_service_stats_t) { .term = 41 + salt, .at = 1795498700000ull + salt,
        .duration = 17, .complete = 1, .workers = 3, .answered = 3, .services = 2,
        .lost = 1, .under = 0, .ok = 1, .over = 0, .wanted = 6, .running = 4, .pending = 1,
        .started = salt, .stopped = 2, .moved = 3 };
    for (int bucket = 0; bucket < DROVER_HISTOGRAM_BUCKETS; bucket++)
        stats->restarts [bucket] = (uint32_t) bucket * 10 + salt;
}

//  A SERVICE TABLE with nservices services and nreplicas replicas
static drover_msg_t *
s_table (uint32_t nservices, uint32_t nreplicas)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_SERVICE_TABLE);
    msg->seq = 9;
    s_fill_stats (&msg->stats_now, 0);
    msg->nservices = nservices;
    msg->service_rows = nservices?
        (drover_service_row_t *) zmalloc (nservices * sizeof (drover_service_row_t)): NULL;
    for (uint32_t index = 0; index < nservices; index++) {
        drover_service_row_t *row = &msg->service_rows [index];
        snprintf (row->name, sizeof row->name, "svc-%u", index);
        row->replicas = index % 5;
        row->procs = 1;
        row->mem = index * 1000ull;
        row->restart_delay = 1000;
        row->running = index % 4;
        row->state = (uint8_t) (index % (DROVER_SERVICE_STATE_MAX + 1));
        row->created = 1795498600000ull + index;
        strcpy (row->summary, "sleep 3600");
    }
    msg->nreplicas = nreplicas;
    msg->replica_rows = nreplicas?
        (drover_replica_row_t *) zmalloc (nreplicas * sizeof (drover_replica_row_t)): NULL;
    for (uint32_t index = 0; index < nreplicas; index++) {
        drover_replica_row_t *row = &msg->replica_rows [index];
        strcpy (row->service, "svc-0");
        row->slot = index;
        row->task = 100 + index;
        row->attempt = 1;
        snprintf (row->worker, sizeof row->worker, "w%u", index % 7);
        row->state = (uint8_t) (index % (DROVER_REPLICA_STATE_MAX + 1));
        row->since = 1795498600000ull + index;
    }
    return msg;
}

//  A PLAN RESULT with count changes
static drover_msg_t *
s_result (uint32_t count)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_PLAN_RESULT);
    s_fill_stats (&msg->stats_now, 1);
    s_fill_stats (&msg->stats_after, 2);
    msg->nchanges = count;
    msg->changes = count? (drover_planchange_t *) zmalloc (count * sizeof (drover_planchange_t))
                        : NULL;
    for (uint32_t index = 0; index < count; index++) {
        drover_planchange_t *change = &msg->changes [index];
        change->kind = (uint8_t) (index % (DROVER_CHANGE_KIND_MAX + 1));
        strcpy (change->service, "web");
        change->slot = index;
        change->task = index;
        strcpy (change->from, "w1");
        strcpy (change->to, "w2");
    }
    return msg;
}

//  Pack a raw TASK SUBMIT's first 11 fields (up to its body)
static void
s_raw_submit (testcodec_raw_t *raw, size_t nfields)
{
    testcodec_raw_begin (raw, DROVER_MSG_TASK_SUBMIT, nfields);
    msgpack_pack_int (&raw->pk, 0);
    msgpack_pack_uint32 (&raw->pk, 1);
    msgpack_pack_uint64 (&raw->pk, 0);
    msgpack_pack_array (&raw->pk, 0);
    msgpack_pack_uint32 (&raw->pk, 0);
    msgpack_pack_uint32 (&raw->pk, 0);
    msgpack_pack_uint32 (&raw->pk, 0);
    msgpack_pack_bin_with_body (&raw->pk, "\x94\x91\xa4true\x90\xc0\xc0", 10);
}

//  ---------------------------------------------------------------------

//  SERVICE TABLE and PLAN RESULT round-trip at their limits: 10000 rows
//  of each kind, names of 64 bytes, whys of 256, summaries of 80, 16
//  labels, the largest numbers
static void
test_tables_roundtrip_at_limits (void **state)
{
    drover_msg_t *msg = s_table (DROVER_ROWS_MAX, DROVER_ROWS_MAX);
    memset (msg->stats_now.why, 'w', DROVER_REASON_MAX);
    msg->stats_now.term = msg->stats_now.at = UINT64_MAX;
    msg->stats_now.moved = UINT32_MAX;
    msg->stats_now.restarts [DROVER_HISTOGRAM_BUCKETS - 1] = UINT32_MAX;
    drover_service_row_t *row = &msg->service_rows [DROVER_ROWS_MAX - 1];
    memset (row->name, '~', DROVER_ID_MAX);
    memset (row->summary, 's', DROVER_SUMMARY_MAX);
    memset (row->why, 'y', DROVER_REASON_MAX);
    for (int index = 0; index < DROVER_LABELS_MAX; index++)
        row->labels [index] = zsys_sprintf ("k%d=%0120d", index, index);
    row->nlabels = DROVER_LABELS_MAX;
    row->replicas = row->procs = row->restarts = row->restart_delay = UINT32_MAX;
    row->mem = row->created = UINT64_MAX;
    drover_replica_row_t *replica = &msg->replica_rows [DROVER_ROWS_MAX - 1];
    memset (replica->service, '!', DROVER_ID_MAX);
    memset (replica->worker, 'w', DROVER_ID_MAX);
    memset (replica->why, 'r', DROVER_REASON_MAX);
    replica->task = replica->since = UINT64_MAX;
    replica->slot = replica->attempt = replica->restarts = UINT32_MAX;
    drover_msg_t *copy = testcodec_roundtrip (msg);
    assert_int_equal (copy->nservices, DROVER_ROWS_MAX);
    assert_int_equal (copy->nreplicas, DROVER_ROWS_MAX);
    testcodec_assert_same_services (msg, copy);
    drover_msg_destroy (&copy);
    drover_msg_destroy (&msg);

    //  An empty table: the statistics of no term yet
    msg = drover_msg_new (DROVER_MSG_SERVICE_TABLE);
    copy = testcodec_roundtrip (msg);
    assert_int_equal (copy->nservices, 0);
    assert_null (copy->service_rows);
    assert_null (copy->replica_rows);
    assert_true (copy->stats_now.term == 0);
    drover_msg_destroy (&copy);
    drover_msg_destroy (&msg);

    msg = s_result (DROVER_ROWS_MAX);
    drover_planchange_t *change = &msg->changes [DROVER_ROWS_MAX - 1];
    memset (change->service, 's', DROVER_ID_MAX);
    memset (change->from, 'f', DROVER_ID_MAX);
    memset (change->to, 't', DROVER_ID_MAX);
    memset (change->why, 'y', DROVER_REASON_MAX);
    change->task = UINT64_MAX;
    change->slot = UINT32_MAX;
    msg->changes [0].service [0] = msg->changes [0].from [0] = msg->changes [0].to [0] = 0;
    copy = testcodec_roundtrip (msg);
    assert_int_equal (copy->nchanges, DROVER_ROWS_MAX);
    testcodec_assert_same_services (msg, copy);
    drover_msg_destroy (&copy);
    drover_msg_destroy (&msg);
}

//  The requests round-trip: WORKER GATHER (the seq alone), WORKER RUNS
//  with 4096 attempts, SERVICE ADMIN and PLAN with every action, SERVICE
//  LIST of one and of all
static void
test_requests_roundtrip (void **state)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_WORKER_GATHER);
    msg->seq = UINT32_MAX;
    drover_msg_t *copy = testcodec_roundtrip (msg);
    assert_int_equal (copy->id, DROVER_MSG_WORKER_GATHER);
    assert_int_equal (copy->seq, UINT32_MAX);
    drover_msg_destroy (&copy);
    drover_msg_destroy (&msg);

    msg = drover_msg_new (DROVER_MSG_WORKER_RUNS);
    msg->seq = 12;
    memset (msg->worker, 'w', DROVER_ID_MAX);
    msg->nrunning = DROVER_RUNNING_MAX;
    msg->running = (drover_taskref_t *) zmalloc (DROVER_RUNNING_MAX * sizeof (drover_taskref_t));
    for (uint32_t index = 0; index < DROVER_RUNNING_MAX; index++)
        msg->running [index] = (drover_taskref_t) { UINT64_MAX - index, index + 1 };
    copy = testcodec_roundtrip (msg);
    assert_int_equal (copy->seq, 12);
    assert_string_equal (copy->worker, msg->worker);
    assert_int_equal (copy->nrunning, DROVER_RUNNING_MAX);
    for (uint32_t index = 0; index < DROVER_RUNNING_MAX; index++) {
        assert_true (copy->running [index].task == msg->running [index].task);
        assert_int_equal (copy->running [index].attempt, msg->running [index].attempt);
    }
    drover_msg_destroy (&copy);
    msg->nrunning = 0;
    copy = testcodec_roundtrip (msg);               //  and none is fine
    assert_int_equal (copy->nrunning, 0);
    assert_null (copy->running);
    drover_msg_destroy (&copy);
    drover_msg_destroy (&msg);

    for (int action = 0; action <= DROVER_SERVICE_ACTION_MAX; action++) {
        msg = drover_msg_new (DROVER_MSG_SERVICE_ADMIN);
        msg->action = (uint8_t) action;
        memset (msg->service, 'n', DROVER_ID_MAX);
        msg->count = UINT32_MAX;
        msg->procs = 3;
        msg->mem = UINT64_MAX;
        msg->delay = 60000;
        for (int index = 0; index < DROVER_LABELS_MAX; index++) {
            char label [16];
            snprintf (label, sizeof label, "k%d=v", index);
            assert_int_equal (drover_msg_add_label (msg, label), 0);
        }
        if (action == DROVER_SERVICE_CREATE)
            drover_msg_set_body (msg, (const byte *) "\x94\x91\xa4true\x90\xc0\xc0", 10);
        copy = testcodec_roundtrip (msg);
        assert_int_equal (copy->action, action);
        assert_string_equal (copy->service, msg->service);
        assert_int_equal (copy->count, UINT32_MAX);
        assert_int_equal (copy->procs, 3);
        assert_true (copy->mem == UINT64_MAX);
        assert_int_equal (copy->delay, 60000);
        assert_int_equal (copy->nlabels, DROVER_LABELS_MAX);
        assert_string_equal (copy->labels [15], "k15=v");
        assert_int_equal (copy->body_size, action == DROVER_SERVICE_CREATE? 10: 0);
        drover_msg_destroy (&copy);
        drover_msg_destroy (&msg);
    }

    const char *names [] = { "web", "" };
    for (int index = 0; index < 2; index++) {
        msg = drover_msg_new (DROVER_MSG_SERVICE_LIST);
        strcpy (msg->service, names [index]);
        copy = testcodec_roundtrip (msg);
        assert_string_equal (copy->service, names [index]);
        drover_msg_destroy (&copy);
        drover_msg_destroy (&msg);
    }

    //  PLAN: a drain's and a hold's target is the worker, a scale's the
    //  service, a term's nothing at all
    for (int action = 0; action <= DROVER_PLAN_ACTION_MAX; action++) {
        msg = drover_msg_new (DROVER_MSG_PLAN);
        msg->action = (uint8_t) action;
        if (action == DROVER_PLAN_SCALE) {
            strcpy (msg->service, "web");
            msg->count = 7;
        }
        else
        if (action != DROVER_PLAN_TERM)
            strcpy (msg->worker, "w2");
        copy = testcodec_roundtrip (msg);
        assert_int_equal (copy->action, action);
        assert_string_equal (copy->service, action == DROVER_PLAN_SCALE? "web": "");
        assert_string_equal (copy->worker,
                             action == DROVER_PLAN_SCALE || action == DROVER_PLAN_TERM? "": "w2");
        assert_int_equal (copy->count, action == DROVER_PLAN_SCALE? 7: 0);
        drover_msg_destroy (&copy);
        drover_msg_destroy (&msg);
    }
}

//  TASK SUBMIT's fields 13..15 are optional: a SUBMIT with none is the
//  9-field one older brokers know; with an affinity and no key, the key
//  goes as nil; a replica's SUBMIT of slot 0 leaves the slot out
static void
test_submit_optional_fields (void **state)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    msg->seq = 2;
    msg->procs = 1;
    drover_msg_set_body (msg, (const byte *) "\x94\x91\xa4true\x90\xc0\xc0", 10);
    zframe_t *frame = drover_msg_encode (msg);
    assert_int_equal (zframe_data (frame) [0], 0x90 + 12);     //  header + 8 fields
    zframe_destroy (&frame);

    //  Affinity, no key: [..., body, nil, "tenant-7"]
    assert_int_equal (drover_submit_set_affinity (drover_submit_of (msg), "tenant-7"), 0);
    frame = drover_msg_encode (msg);
    byte *data = zframe_data (frame);
    size_t size = zframe_size (frame);
    assert_int_equal (data [0], 0x90 + 14);
    const byte tail [] = { 0xc0, 0xa8, 't', 'e', 'n', 'a', 'n', 't', '-', '7' };
    assert_memory_equal (data + size - sizeof tail, tail, sizeof tail);
    zframe_destroy (&frame);
    drover_msg_t *copy = testcodec_roundtrip (msg);
    assert_null (copy->key);
    assert_string_equal (copy->affinity, "tenant-7");
    assert_string_equal (copy->service, "");
    drover_msg_destroy (&copy);

    //  A replica of slot 0: key and affinity nil, the service, no slot
    assert_int_equal (drover_submit_set_affinity (drover_submit_of (msg), NULL), 0);
    assert_null (msg->affinity);
    strcpy (msg->service, "web");
    frame = drover_msg_encode (msg);
    assert_int_equal (zframe_data (frame) [0], 0x90 + 15);
    zframe_destroy (&frame);
    copy = testcodec_roundtrip (msg);
    assert_null (copy->key);
    assert_null (copy->affinity);
    assert_string_equal (copy->service, "web");
    assert_int_equal (copy->slot, 0);
    drover_msg_destroy (&copy);
    msg->slot = 9;
    msg->key = strdup ("k");
    copy = testcodec_roundtrip (msg);
    assert_string_equal (copy->key, "k");
    assert_int_equal (copy->slot, 9);
    drover_msg_destroy (&copy);

    //  Bad affinity keys are refused by the setter and by the encoder
    char long_key [DROVER_KEY_MAX + 2];
    memset (long_key, 'a', sizeof long_key);
    long_key [DROVER_KEY_MAX + 1] = 0;
    assert_int_equal (drover_submit_set_affinity (drover_submit_of (msg), long_key), -1);
    assert_int_equal (drover_submit_set_affinity (drover_submit_of (msg), ""), -1);
    assert_int_equal (drover_submit_set_affinity (drover_submit_of (msg), "tab\there"), -1);
    long_key [DROVER_KEY_MAX] = 0;
    assert_int_equal (drover_submit_set_affinity (drover_submit_of (msg), long_key), 0);
    copy = testcodec_roundtrip (msg);
    assert_string_equal (copy->affinity, long_key);
    drover_msg_destroy (&copy);
    free (msg->affinity);
    msg->affinity = strdup ("caf\xc3\xa9");
    testcodec_assert_not_encoded (msg, "an affinity of UTF-8");
    free (msg->affinity);
    msg->affinity = strdup ("ok");
    strcpy (msg->service, "w b");
    testcodec_assert_not_encoded (msg, "a service with a space");
    drover_msg_destroy (&msg);

    //  What a peer sends: nil key and affinity before a service; a slot
    //  alone; an affinity that is no key, a number, too long; a slot past
    //  uint32; one field too many
    testcodec_raw_t raw;
    s_raw_submit (&raw, 12);
    msgpack_pack_nil (&raw.pk);
    msgpack_pack_nil (&raw.pk);
    testcodec_raw_str (&raw, "web", 3);
    msgpack_pack_uint32 (&raw.pk, 2);
    msg = testcodec_raw_accepted (&raw);
    assert_null (msg->key);
    assert_null (msg->affinity);
    assert_string_equal (msg->service, "web");
    assert_int_equal (msg->slot, 2);
    drover_msg_destroy (&msg);
    s_raw_submit (&raw, 10);
    testcodec_raw_str (&raw, "key", 3);
    testcodec_raw_str (&raw, "aff", 3);
    msg = testcodec_raw_accepted (&raw);
    assert_string_equal (msg->key, "key");
    assert_string_equal (msg->affinity, "aff");
    drover_msg_destroy (&msg);
    s_raw_submit (&raw, 10);
    msgpack_pack_nil (&raw.pk);
    testcodec_raw_str (&raw, "", 0);
    testcodec_assert_raw_refused (&raw, "affinity: out of range", 64);
    s_raw_submit (&raw, 10);
    msgpack_pack_nil (&raw.pk);
    testcodec_raw_str (&raw, "a\x01", 2);
    testcodec_assert_raw_refused (&raw, "affinity: not 1..128 bytes of printable ASCII", 64);
    s_raw_submit (&raw, 10);
    msgpack_pack_nil (&raw.pk);
    msgpack_pack_uint8 (&raw.pk, 7);
    testcodec_assert_raw_refused (&raw, "affinity: wrong type", 64);
    s_raw_submit (&raw, 10);
    msgpack_pack_nil (&raw.pk);
    testcodec_raw_str (&raw, long_key, DROVER_KEY_MAX + 1);
    testcodec_assert_raw_refused (&raw, "affinity: out of range", 64);
    s_raw_submit (&raw, 12);
    msgpack_pack_nil (&raw.pk);
    msgpack_pack_nil (&raw.pk);
    testcodec_raw_str (&raw, "we b", 4);
    msgpack_pack_uint32 (&raw.pk, 2);
    testcodec_assert_raw_refused (&raw, "service: not a valid service name", 64);
    s_raw_submit (&raw, 12);
    msgpack_pack_nil (&raw.pk);
    msgpack_pack_nil (&raw.pk);
    testcodec_raw_str (&raw, "web", 3);
    msgpack_pack_int64 (&raw.pk, -1);
    testcodec_assert_raw_refused (&raw, "slot: out of range", 64);
    s_raw_submit (&raw, 20);                    //  past level 4's 19
    for (int index = 0; index < 12; index++)
        msgpack_pack_nil (&raw.pk);
    testcodec_assert_raw_refused (&raw, "wrong number of fields", 64);
}

//  The wire layout of the new messages is what PROTOCOL.md §7.31-7.37
//  shows, byte for byte
static void
test_wire_layout_is_pinned (void **state)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_WORKER_GATHER);
    msg->seq = 17;
    const byte gather [] = { 0x94, 0xa3, 'D', 'R', 'V', 0x01, 0x1f, 0x11 };
    testcodec_assert_encodes_to (msg, gather, sizeof gather);
    drover_msg_destroy (&msg);

    msg = drover_msg_new (DROVER_MSG_WORKER_RUNS);
    msg->seq = 17;
    strcpy (msg->worker, "w1");
    msg->nrunning = 1;
    msg->running = (drover_taskref_t *) zmalloc (sizeof (drover_taskref_t));
    msg->running [0] = (drover_taskref_t) { 42, 1 };
    const byte runs [] = { 0x96, 0xa3, 'D', 'R', 'V', 0x01, 0x20, 0x11,
                           0xa2, 'w', '1', 0x91, 0x92, 0x2a, 0x01 };
    testcodec_assert_encodes_to (msg, runs, sizeof runs);
    drover_msg_destroy (&msg);

    msg = drover_msg_new (DROVER_MSG_SERVICE_ADMIN);
    msg->seq = 4;
    msg->action = DROVER_SERVICE_SCALE;
    strcpy (msg->service, "web");
    msg->count = 6;
    const byte scale [] = { 0x9c, 0xa3, 'D', 'R', 'V', 0x01, 0x21, 0x04,
                            0x01, 0xa3, 'w', 'e', 'b', 0x06, 0x00, 0x00, 0x90, 0x00,
                            0xc4, 0x00 };
    testcodec_assert_encodes_to (msg, scale, sizeof scale);
    drover_msg_destroy (&msg);

    msg = drover_msg_new (DROVER_MSG_PLAN);
    msg->seq = 5;
    msg->action = DROVER_PLAN_DRAIN;
    strcpy (msg->worker, "w2");
    const byte plan [] = { 0x97, 0xa3, 'D', 'R', 'V', 0x01, 0x24, 0x05,
                           0x00, 0xa2, 'w', '2', 0x00 };
    testcodec_assert_encodes_to (msg, plan, sizeof plan);
    drover_msg_destroy (&msg);

    msg = drover_msg_new (DROVER_MSG_SERVICE_LIST);
    msg->seq = 6;
    const byte list [] = { 0x95, 0xa3, 'D', 'R', 'V', 0x01, 0x22, 0x06, 0xa0 };
    testcodec_assert_encodes_to (msg, list, sizeof list);
    drover_msg_destroy (&msg);

    //  A PLAN RESULT of no term yet and one change
    msg = drover_msg_new (DROVER_MSG_PLAN_RESULT);
    msg->seq = 5;
    msg->nchanges = 1;
    msg->changes = (drover_planchange_t *) zmalloc (sizeof (drover_planchange_t));
    msg->changes [0] = (drover_planchange_t) { .kind = DROVER_CHANGE_FINISH, .task = 7,
                                               .from = "w2" };
    //  Level 7's statistics: 24 elements (best, not best, the ranks, capped,
    //  rebalanced after the restarts)
    byte result [8 + 2 * 43 + 10] = { 0x97, 0xa3, 'D', 'R', 'V', 0x01, 0x25, 0x05 };
    const byte stats [43] = { 0xdc, 0x00, 0x18, 0, 0, 0, 0, 0xa0, 0, 0, 0, 0, 0, 0, 0,
                              0, 0, 0, 0, 0, 0, 0x98, 0, 0, 0, 0, 0, 0, 0, 0,
                              0, 0, 0x98, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
    memcpy (result + 8, stats, 43);
    memcpy (result + 51, stats, 43);
    const byte change [10] = { 0x91, 0x97, 0x03, 0xa0, 0x00, 0x07, 0xa2, 'w', '2', 0xa0 };
    memcpy (result + 94, change, 10);
    zframe_t *frame = drover_msg_encode (msg);
    assert_int_equal (zframe_size (frame), sizeof result + 1);     //  and the why, ""
    assert_memory_equal (zframe_data (frame), result, sizeof result);
    assert_int_equal (zframe_data (frame) [sizeof result], 0xa0);
    zframe_destroy (&frame);
    drover_msg_destroy (&msg);
}

//  A message past a limit is not encoded: more rows than DROVER_ROWS_MAX,
//  states, kinds, actions out of range, bad ids and labels, texts without
//  their NUL, complete past 1, a request without its service
static void
test_past_limits_are_not_encoded (void **state)
{
    drover_msg_t *msg = s_table (DROVER_ROWS_MAX + 1, 0);
    testcodec_assert_not_encoded (msg, "10001 services");
    drover_msg_destroy (&msg);
    msg = s_table (0, DROVER_ROWS_MAX + 1);
    testcodec_assert_not_encoded (msg, "10001 replicas");
    drover_msg_destroy (&msg);
    msg = s_result (DROVER_ROWS_MAX + 1);
    testcodec_assert_not_encoded (msg, "10001 changes");
    drover_msg_destroy (&msg);

    msg = s_table (1, 1);
    msg->stats_now.complete = 2;
    testcodec_assert_not_encoded (msg, "complete 2");
    msg->stats_now.complete = 1;
    memset (msg->stats_now.why, 'w', sizeof msg->stats_now.why);
    testcodec_assert_not_encoded (msg, "a stats why of 257 bytes");
    msg->stats_now.why [0] = 0;
    drover_service_row_t *row = &msg->service_rows [0];
    row->state = DROVER_SERVICE_STATE_MAX + 1;
    testcodec_assert_not_encoded (msg, "service state 5");
    row->state = 0;
    row->name [0] = 0;
    testcodec_assert_not_encoded (msg, "a service without a name");
    strcpy (row->name, "a b");
    testcodec_assert_not_encoded (msg, "a service name with a space");
    strcpy (row->name, "ok");
    row->labels [0] = strdup ("novalue");
    row->nlabels = 1;
    testcodec_assert_not_encoded (msg, "a label without =");
    row->nlabels = DROVER_LABELS_MAX + 1;
    testcodec_assert_not_encoded (msg, "17 labels");
    row->nlabels = 0;
    memset (row->summary, 's', sizeof row->summary);
    testcodec_assert_not_encoded (msg, "a summary of 81 bytes");
    row->summary [0] = 0;
    memset (row->why, 'y', sizeof row->why);
    testcodec_assert_not_encoded (msg, "a row why of 257 bytes");
    row->why [0] = 0;
    drover_replica_row_t *replica = &msg->replica_rows [0];
    replica->state = DROVER_REPLICA_STATE_MAX + 1;
    testcodec_assert_not_encoded (msg, "replica state 4");
    replica->state = 0;
    replica->service [0] = 0;
    testcodec_assert_not_encoded (msg, "a replica without its service");
    strcpy (replica->service, "ok");
    strcpy (replica->worker, "w\x80");
    testcodec_assert_not_encoded (msg, "a worker of a byte past ASCII");
    replica->worker [0] = 0;
    memset (replica->why, 'y', sizeof replica->why);
    testcodec_assert_not_encoded (msg, "a replica why of 257 bytes");
    replica->why [0] = 0;
    zframe_t *frame = drover_msg_encode (msg);
    assert_non_null (frame);                //  and put right, it goes
    zframe_destroy (&frame);
    drover_msg_destroy (&msg);

    msg = s_result (1);
    msg->changes [0].kind = DROVER_CHANGE_KIND_MAX + 1;
    testcodec_assert_not_encoded (msg, "kind 5");
    msg->changes [0].kind = 0;
    strcpy (msg->changes [0].to, "w 1");
    testcodec_assert_not_encoded (msg, "a to with a space");
    strcpy (msg->changes [0].to, "");
    memset (msg->changes [0].from, 'f', sizeof msg->changes [0].from);
    testcodec_assert_not_encoded (msg, "a from of 65 bytes");
    msg->changes [0].from [0] = 0;
    msg->stats_after.complete = 9;
    testcodec_assert_not_encoded (msg, "after's complete 9");
    msg->stats_after.complete = 0;
    frame = drover_msg_encode (msg);
    assert_non_null (frame);
    zframe_destroy (&frame);
    drover_msg_destroy (&msg);

    msg = drover_msg_new (DROVER_MSG_SERVICE_ADMIN);
    strcpy (msg->service, "web");
    msg->action = DROVER_SERVICE_ACTION_MAX + 1;
    testcodec_assert_not_encoded (msg, "service action 3");
    msg->action = DROVER_SERVICE_DELETE;
    msg->service [0] = 0;
    testcodec_assert_not_encoded (msg, "no service");
    drover_msg_destroy (&msg);

    msg = drover_msg_new (DROVER_MSG_PLAN);
    msg->action = DROVER_PLAN_ACTION_MAX + 1;
    testcodec_assert_not_encoded (msg, "plan action 4");
    msg->action = DROVER_PLAN_HOLD;
    strcpy (msg->worker, "a b");
    testcodec_assert_not_encoded (msg, "a target with a space");
    drover_msg_destroy (&msg);

    msg = drover_msg_new (DROVER_MSG_WORKER_RUNS);
    testcodec_assert_not_encoded (msg, "no worker");
    strcpy (msg->worker, "w1");
    msg->nrunning = DROVER_RUNNING_MAX + 1;
    msg->running = (drover_taskref_t *) zmalloc (msg->nrunning * sizeof (drover_taskref_t));
    testcodec_assert_not_encoded (msg, "4097 attempts");
    drover_msg_destroy (&msg);
}

//  The names of the services' values, and the new message names
static void
test_service_names (void **state)
{
    assert_string_equal (drover_msg_name (DROVER_MSG_WORKER_GATHER), "WORKER GATHER");
    assert_string_equal (drover_msg_name (DROVER_MSG_WORKER_RUNS), "WORKER RUNS");
    assert_string_equal (drover_msg_name (DROVER_MSG_SERVICE_ADMIN), "SERVICE ADMIN");
    assert_string_equal (drover_msg_name (DROVER_MSG_SERVICE_LIST), "SERVICE LIST");
    assert_string_equal (drover_msg_name (DROVER_MSG_SERVICE_TABLE), "SERVICE TABLE");
    assert_string_equal (drover_msg_name (DROVER_MSG_PLAN), "PLAN");
    assert_string_equal (drover_msg_name (DROVER_MSG_PLAN_RESULT), "PLAN RESULT");
    assert_string_equal (drover_msg_name (DROVER_MSG_ID_MAX + 1), "INVALID");
    assert_string_equal (drover_service_action_name (DROVER_SERVICE_SCALE), "scale");
    assert_string_equal (drover_service_action_name (3), "invalid");
    assert_string_equal (drover_plan_action_name (DROVER_PLAN_TERM), "term");
    assert_string_equal (drover_plan_action_name (-1), "invalid");
    assert_string_equal (drover_service_state_name (DROVER_SERVICE_CRASHING), "crashing");
    assert_string_equal (drover_service_state_name (5), "invalid");
    assert_string_equal (drover_replica_state_name (DROVER_REPLICA_WAITING), "waiting");
    assert_string_equal (drover_replica_state_name (4), "invalid");
    assert_string_equal (drover_change_kind_name (DROVER_CHANGE_REQUEUE), "requeue");
    assert_string_equal (drover_change_kind_name (5), "invalid");
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_tables_roundtrip_at_limits),
        cmocka_unit_test (test_requests_roundtrip),
        cmocka_unit_test (test_submit_optional_fields),
        cmocka_unit_test (test_wire_layout_is_pinned),
        cmocka_unit_test (test_past_limits_are_not_encoded),
        cmocka_unit_test (test_service_names),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
