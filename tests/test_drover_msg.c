/*  =========================================================================
    test_drover_msg - the wire codec: every message round-trips field by
    field; and everything a hostile peer can send (truncations, oversized
    fields, wrong types, bad versions and signatures, deep nesting,
    trailing bytes, NUL bytes, random bytes and mutations of valid
    messages) is refused with -2 and a reason, without a crash, a leak or
    an allocation past the message's own size (run under ASan+UBSan).
    The exec body and events have their own tests (test_drover_exec,
    test_drover_event).
    =========================================================================
*/

#include "testcodec.h"
#include "testcodec_known.h"

//  ---------------------------------------------------------------------
//  Helpers: filled messages, field-by-field comparison

//  Fill a stats record with distinct values
static void
s_fill_stats (drover_stats_t *stats, int salt)
{
    stats->load [0] = 0.5 + salt;
    stats->load [1] = 1.25;
    stats->load [2] = 3e9;
    stats->mem_used = 1ull << 33;
    stats->mem_total = UINT64_MAX;
    stats->disk_used = 12345 + salt;
    stats->disk_total = 1ull << 40;
    stats->running = 7;
}

//  Fill a term's statistics with distinct values
static void
s_fill_service_stats (drover_service_stats_t *stats, int salt)
{
    stats->term = 1000 + salt;
    stats->at = 1795498700000ull + salt;
    stats->duration = 12;
    stats->complete = 1;
    stats->workers = 3;
    stats->answered = 3;
    stats->services = 2;
    stats->lost = 0;
    stats->under = 1;
    stats->ok = 1;
    stats->over = 0;
    stats->wanted = 5;
    stats->running = 4;
    stats->pending = 1;
    stats->started = salt;
    stats->stopped = 2;
    stats->moved = 1;
    for (int bucket = 0; bucket < DROVER_HISTOGRAM_BUCKETS; bucket++)
        stats->restarts [bucket] = bucket == 7? UINT32_MAX: (uint32_t) (bucket * 3 + salt);
}

//  Return a message of this id with every field it carries set
static drover_taskinfo_t *
s_filled_info (void)
{
    drover_taskinfo_t *info = drover_taskinfo_new ();
    info->task = 12345;
    info->state = DROVER_TASK_FAILED;
    info->end = DROVER_END_TIMED_OUT;
    info->reason = strdup ("timed out after 60000 ms");
    info->outcome = DROVER_OUTCOME_TIMEDOUT;
    info->exit_code = -1;
    info->signal = 15;
    info->duration = 60001;
    info->truncated = DROVER_TRUNC_STDERR;
    info->out_size = 5;
    info->err_size = 1 << 20;
    strcpy (info->owner, "alice");
    info->priority = -7;
    info->procs = 4;
    info->mem = 1ull << 33;
    info->timeout = 60000;
    info->retries = 3;
    info->retries_left = 1;
    info->lost = 1;
    info->nlabels = 1;
    info->labels = (char **) zmalloc (sizeof (char *));
    info->labels [0] = strdup ("zone=b");
    info->argc = 3;
    info->argv = (char **) zmalloc (3 * sizeof (char *));
    info->argv [0] = strdup ("sh");
    info->argv [1] = strdup ("-c");
    info->argv [2] = strdup ("sleep 100 # caf\xc3\xa9 \xff");
    info->cwd = strdup ("/srv");
    info->nenv = 1;
    info->env = (char **) zmalloc (sizeof (char *));
    info->env [0] = strdup ("TOKEN");
    info->input_size = 17;
    info->key = strdup ("batch:1");
    info->queued_at = 1795498670990;
    info->started_at = 1795498671036;
    info->ended_at = 1795498731039;
    info->attempt = 3;
    strcpy (info->worker, "node-2");
    info->nattempts = 2;
    info->attempts = (drover_attempt_t *) zmalloc (2 * sizeof (drover_attempt_t));
    info->attempts [0] = (drover_attempt_t) { .attempt = 2, .worker = "node-1",
        .offered_at = 1795498671000, .ended_at = 1795498672000,
        .outcome = DROVER_ATTEMPT_NO_RESULT, .requeued = true, .exit_code = -1,
        .reason = "worker lost: heartbeats stopped" };
    info->attempts [1] = (drover_attempt_t) { .attempt = 3, .worker = "node-2",
        .offered_at = 1795498671030, .started_at = 1795498671036,
        .ended_at = 1795498731039, .outcome = DROVER_OUTCOME_TIMEDOUT, .exit_code = -1,
        .signal = 15, .reason = "timed out" };
    info->dropped = 1;
    return info;
}

static drover_msg_t *
s_filled (int id)
{
    drover_msg_t *msg = drover_msg_new (id);
    msg->seq = 0xfffffffe;
    switch (id) {
        case DROVER_MSG_WORKER_HELLO:
            strcpy (msg->worker, "node-7.example.com");
            msg->epoch = UINT64_MAX - 1;
            msg->procs = 64;
            msg->mem = 1ull << 37;
            assert_int_equal (drover_msg_add_label (msg, "gpu=a100"), 0);
            assert_int_equal (drover_msg_add_label (msg, "zone=eu-west.1 b"), 0);
            msg->nrunning = 3;
            msg->running = (drover_taskref_t *) zmalloc (3 * sizeof (drover_taskref_t));
            for (int index = 0; index < 3; index++) {
                msg->running [index].task = 1000000000000ull + index;
                msg->running [index].attempt = index + 1;
            }
            strcpy (msg->state_id, "0123456789abcdef0123456789ABCDEF");
            msg->level = DROVER_MSG_LEVEL;
            strcpy (msg->release, "0.2.0-rc.1+worker");
            break;
        case DROVER_MSG_WORKER_HEARTBEAT:
            strcpy (msg->worker, "w1");
            msg->epoch = 42;
            s_fill_stats (&msg->stats, 0);
            break;
        case DROVER_MSG_WORKER_GOODBYE:
            strcpy (msg->worker, "w1");
            msg->epoch = 43;
            break;
        case DROVER_MSG_WORKER_WELCOME:
            msg->heartbeat = 1000;
            strcpy (msg->state_id, "ffffffffffffffffffffffffffffffff");
            msg->level = DROVER_MSG_LEVEL;
            break;
        case DROVER_MSG_WORKER_LEAVE:
        case DROVER_MSG_WORKER_LIST:
            break;
        case DROVER_MSG_TASK_OFFER:
            msg->task = 77;
            msg->attempt = 2;
            msg->priority = -5;
            msg->procs = 4;
            msg->mem = 1 << 30;
            msg->timeout = 60000;
            drover_msg_set_body (msg, (const byte *) "\x94\x91\xa4true\x90\xc0\xc0", 10);
            break;
        case DROVER_MSG_TASK_STARTED:
            strcpy (msg->worker, "w2");
            msg->task = 78;
            msg->attempt = 1;
            break;
        case DROVER_MSG_TASK_RESULT:
        case DROVER_MSG_TASK_DONE:
            strcpy (msg->worker, "w3");
            msg->task = 79;
            msg->attempt = 3;
            if (id == DROVER_MSG_TASK_RESULT)
                msg->outcome = DROVER_OUTCOME_SIGNALLED;
            else {
                msg->state = DROVER_TASK_FAILED;
                msg->end = DROVER_END_TIMED_OUT;
            }
            msg->exit_code = -1;
            msg->signal = 9;
            msg->truncated = DROVER_TRUNC_STDOUT | DROVER_TRUNC_STDERR;
            msg->duration = 123456;
            drover_msg_set_output (msg, (const byte *) "out\0put", 7, (const byte *) "err\n", 4);
            drover_msg_set_reason (msg, "killed by signal 9 — façade");
            break;
        case DROVER_MSG_TASK_KILL:
            msg->task = 80;
            msg->attempt = 4;
            break;
        case DROVER_MSG_TASK_SUBMIT:
            msg->priority = INT32_MIN;
            msg->procs = 2;
            msg->mem = 5000;
            assert_int_equal (drover_msg_add_label (msg, "os=linux"), 0);
            msg->timeout = 1;
            msg->retries = 3;
            msg->flags = DROVER_SUBMIT_NOTIFY;
            drover_msg_set_body (msg, (const byte *) "\x94\x91\xa4true\x90\xc0\xc0", 10);
            msg->key = strdup ("batch.txt:17 ~!@#$%^&*()_+{}|:\"<>? `-=[]\\;',./");
            msg->affinity = strdup ("dataset=/data/x 1");
            strcpy (msg->service, "web");
            msg->slot = 3;
            break;
        case DROVER_MSG_TASK_ACCEPTED:
        case DROVER_MSG_TASK_CANCEL:
            msg->task = UINT64_MAX;
            if (id == DROVER_MSG_TASK_ACCEPTED)
                strcpy (msg->state_id, "00000000000000000000000000000001");
            break;
        case DROVER_MSG_TASK_WAIT:
            msg->ntasks = 4;
            msg->tasks = (uint64_t *) zmalloc (4 * sizeof (uint64_t));
            msg->tasks [0] = 1;
            msg->tasks [1] = 300;
            msg->tasks [2] = 70000;
            msg->tasks [3] = UINT64_MAX;
            strcpy (msg->state_id, "a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0");
            break;
        case DROVER_MSG_TASK_LIST:
            msg->limit = 100;
            msg->state = 255;
            drover_msg_add_label (msg, "zone=a");
            drover_msg_add_label (msg, "gpu=");
            break;
        case DROVER_MSG_TASK_TABLE:
            for (int index = 0; index < DROVER_TASK_STATES; index++)
                msg->counts [index] = index * 1000ull;
            msg->nrows = 3;
            msg->task_rows = (drover_task_row_t *) zmalloc (3 * sizeof (drover_task_row_t));
            msg->task_rows [0].task = 9;
            msg->task_rows [0].state = DROVER_TASK_RUNNING;
            msg->task_rows [0].priority = -1;
            msg->task_rows [0].procs = 3;
            msg->task_rows [0].attempt = 1;
            strcpy (msg->task_rows [0].worker, "w9");
            msg->task_rows [0].summary = strdup ("sh -c echo hi");
            strcpy (msg->task_rows [0].owner, "alice");
            msg->task_rows [1].task = 10;
            msg->task_rows [1].state = DROVER_TASK_FAILED;
            msg->task_rows [1].end = DROVER_END_POISON;
            msg->task_rows [1].summary = strdup ("");
            msg->task_rows [2].task = 11;
            msg->task_rows [2].state = DROVER_TASK_QUEUED;
            msg->task_rows [2].summary = strdup ("true");
            strcpy (msg->task_rows [2].reason, "no label zone=c");
            break;
        case DROVER_MSG_WORKER_TABLE:
            msg->nrows = 2;
            msg->worker_rows = (drover_worker_row_t *) zmalloc (2 * sizeof (drover_worker_row_t));
            for (int index = 0; index < 2; index++) {
                drover_worker_row_t *row = &msg->worker_rows [index];
                snprintf (row->id, sizeof row->id, "worker-%d", index);
                row->health = index? DROVER_HEALTH_PROBATION: DROVER_HEALTH_LOST;
                row->admin = DROVER_ADMIN_DRAIN;
                row->procs = 8;
                row->procs_used = 3;
                row->mem = 1ull << 34;
                row->mem_used = 1ull << 20;
                row->nlabels = index + 1;
                for (int label = 0; label <= index; label++)
                    row->labels [label] = strdup (label? "rack=r2": "gpu=");
                s_fill_stats (&row->stats, index);
                row->reserved = index? 0: 1ull << 40;
                row->state = index? DROVER_WORKER_UP: DROVER_WORKER_LEFT;
                row->since = 1700000000123ull + index;
                row->why = index? NULL: strdup ("drained, left");
                row->admin_reason = strdup ("disk swap");
                row->admin_since = 1700000000000ull;
                row->probation_until = index? 1700000030000ull: 0;
                row->tasks = index? 2: 0;
            }
            break;
        case DROVER_MSG_WORKER_ADMIN:
            strcpy (msg->worker, "w4");
            msg->admin = DROVER_ADMIN_DRAIN;
            drover_msg_set_reason (msg, "disk swap");
            msg->flags = DROVER_ADMIN_EXIT;
            break;
        case DROVER_MSG_OK:
            msg->code = DROVER_CODE_OK;
            drover_msg_set_reason (msg, "kill sent");
            break;
        case DROVER_MSG_ERROR:
            msg->code = DROVER_CODE_STALE;
            drover_msg_set_reason (msg, "stale: attempt 2 is not current");
            break;
        case DROVER_MSG_EVENT_REPLAY:
            msg->since = UINT64_MAX - 1;
            msg->limit = DROVER_REPLAY_MAX;
            break;
        case DROVER_MSG_EVENT_LIST:
            msg->nevents = 2;
            msg->events = (drover_event_t *) zmalloc (2 * sizeof (drover_event_t));
            msg->events [0] = (drover_event_t) { .seq = 41, .time = 1732262400000ull,
                                                 .topic = "task.queued", .task = 9 };
            msg->events [1] = (drover_event_t) { .seq = 42, .time = 1732262400001ull,
                                                 .topic = "task.running", .task = 9, .attempt = 1,
                                                 .worker = "w9", .reason = "caf\xc3\xa9" };
            msg->last = 1ull << 40;
            msg->more = 1;
            break;
        case DROVER_MSG_TASK_SHOW:
            msg->task = 12345;
            break;
        case DROVER_MSG_TASK_INFO:
            msg->task = 12345;
            msg->info = s_filled_info ();
            break;
        case DROVER_MSG_TASK_EXPLAIN:
            msg->task = 1ull << 33;
            break;
        case DROVER_MSG_TASK_EXPLANATION:
            msg->task = 12;
            msg->state = DROVER_TASK_QUEUED;
            msg->nwhys = 3;
            msg->whys = (drover_why_t *) zmalloc (3 * sizeof (drover_why_t));
            msg->whys [0] = (drover_why_t) { .code = DROVER_WHY_AHEAD, .count = 3, .a = 2 };
            msg->whys [1] = (drover_why_t) { .code = DROVER_WHY_LABEL, .count = 9,
                                             .text = "zone=c", .nnames = 2,
                                             .names = { "w1", "w2" } };
            msg->whys [2] = (drover_why_t) { .code = DROVER_WHY_NEVER_MEM, .a = 1ull << 34,
                                             .b = UINT64_MAX };
            break;
        case DROVER_MSG_POOL_LIST:
            break;
        case DROVER_MSG_POOL_TABLE:
            msg->pool = (drover_pool_summary_t) { .enabled = 1, .driver = "command", .live = 2,
                .max_instances = 3, .price = 1.3, .max_price = 2.5,
                .backoff_until = 1795498700000ull, .failures = 4 };
            msg->nrows = 2;
            msg->pool_rows = (drover_pool_row_t *) zmalloc (2 * sizeof (drover_pool_row_t));
            msg->pool_rows [0] = (drover_pool_row_t) { .id = "POOL-kx3f-1", .type = "small",
                .price = 0.1, .state = 3, .behaviour = DROVER_POOLADMIN_HOLD,
                .created = 1795498670990ull, .since = 1795498671036ull,
                .last_busy = 1795498731039ull, .last_task = 1ull << 40, .tasks = 2, .procs = 2,
                .procs_used = 2, .mem = 4ull << 30, .mem_used = 1ull << 30, .why = "" };
            msg->pool_rows [1] = (drover_pool_row_t) { .id = "POOL-kx3f-2", .type = "big.gpu",
                .price = 1.2, .state = DROVER_POOL_STATE_MAX, .behaviour = DROVER_POOLADMIN_DRAIN,
                .created = 1, .since = UINT64_MAX, .procs = 16, .mem = UINT64_MAX,
                .why = "idle timeout \xe2\x80\x94 caf\xc3\xa9" };
            break;
        case DROVER_MSG_POOL_ADMIN:
            strcpy (msg->worker, "POOL-kx3f-1");
            msg->admin = DROVER_POOLADMIN_DESTROY;
            break;
        case DROVER_MSG_WORKER_GATHER:
            msg->seq = 12;
            break;
        case DROVER_MSG_WORKER_RUNS:
            strcpy (msg->worker, "w5");
            msg->nrunning = 2;
            msg->running = (drover_taskref_t *) zmalloc (2 * sizeof (drover_taskref_t));
            msg->running [0] = (drover_taskref_t) { 1ull << 40, 1 };
            msg->running [1] = (drover_taskref_t) { 7, UINT32_MAX };
            break;
        case DROVER_MSG_SERVICE_ADMIN:
            msg->action = DROVER_SERVICE_CREATE;
            strcpy (msg->service, "web");
            msg->count = 4;
            msg->procs = 2;
            msg->mem = 1ull << 33;
            assert_int_equal (drover_msg_add_label (msg, "zone=a"), 0);
            msg->delay = 2500;
            drover_msg_set_body (msg, (const byte *) "\x94\x91\xa4true\x90\xc0\xc0", 10);
            break;
        case DROVER_MSG_SERVICE_LIST:
            strcpy (msg->service, "web");
            break;
        case DROVER_MSG_SERVICE_TABLE:
            s_fill_service_stats (&msg->stats_now, 1);
            msg->nservices = 2;
            msg->service_rows = (drover_service_row_t *) zmalloc (2 * sizeof (drover_service_row_t));
            msg->service_rows [0] = (drover_service_row_t) { .name = "web", .replicas = 4,
                .procs = 1, .mem = 1ull << 30, .nlabels = 2, .restart_delay = 1000,
                .running = 3, .pending = 1, .restarts = 7, .state = DROVER_SERVICE_UNDER,
                .created = 1795498670000ull, .summary = "python -m http.server",
                .why = "slot 2: no worker has room" };
            msg->service_rows [0].labels [0] = strdup ("zone=a");
            msg->service_rows [0].labels [1] = strdup ("gpu=");
            msg->service_rows [1] = (drover_service_row_t) { .name = "idle", .procs = 1,
                .state = DROVER_SERVICE_CRASHING };
            msg->nreplicas = 2;
            msg->replica_rows = (drover_replica_row_t *) zmalloc (2 * sizeof (drover_replica_row_t));
            msg->replica_rows [0] = (drover_replica_row_t) { .service = "web", .slot = 0,
                .task = 1ull << 35, .attempt = 1, .worker = "w1", .state = DROVER_REPLICA_RUNNING,
                .since = 1795498671000ull, .restarts = 2, .why = "" };
            msg->replica_rows [1] = (drover_replica_row_t) { .service = "web", .slot = 3,
                .state = DROVER_REPLICA_WAITING, .since = UINT64_MAX, .restarts = UINT32_MAX,
                .why = "backoff 4s \xe2\x80\x94 caf\xc3\xa9" };
            break;
        case DROVER_MSG_PLAN:
            msg->action = DROVER_PLAN_DRAIN;
            strcpy (msg->worker, "w2");
            msg->count = 0;
            break;
        case DROVER_MSG_PLAN_RESULT:
            s_fill_service_stats (&msg->stats_now, 2);
            s_fill_service_stats (&msg->stats_after, 3);
            msg->stats_after.complete = 0;
            strcpy (msg->stats_after.why, "incomplete: w3 did not answer");
            msg->nchanges = 3;
            msg->changes = (drover_planchange_t *) zmalloc (3 * sizeof (drover_planchange_t));
            msg->changes [0] = (drover_planchange_t) { .kind = DROVER_CHANGE_MOVE,
                .service = "web", .slot = 1, .task = 99, .from = "w2", .to = "w3",
                .why = "worker draining" };
            msg->changes [1] = (drover_planchange_t) { .kind = DROVER_CHANGE_FINISH,
                .task = UINT64_MAX, .from = "w2" };
            msg->changes [2] = (drover_planchange_t) { .kind = DROVER_CHANGE_START,
                .service = "web", .slot = UINT32_MAX, .to = "w1", .why = "scaled up" };
            break;
        case DROVER_MSG_REDIRECT:
            strcpy (msg->leader, "tcp://10.0.0.2:5555");
            strcpy (msg->leader_name, "b2");
            break;
        case DROVER_MSG_QUEUES:
            break;
        case DROVER_MSG_QUEUE_TABLE:
            strcpy (msg->strategy, "spread");
            msg->nqueues = 2;
            msg->queue_rows = (drover_queue_row_t *) zmalloc (2 * sizeof (drover_queue_row_t));
            msg->queue_rows [0] = (drover_queue_row_t) { .name = "batch", .owner = "b1",
                .owner_endpoint = "tcp://10.0.0.1:6001", .token = 1ull << 40,
                .endpoints = strdup ("tcp://10.0.0.1:6001,tcp://10.0.0.2:6001") };
            msg->queue_rows [1] = (drover_queue_row_t) { .name = "gpu.A_1-x",
                .endpoints = strdup ("") };
            break;
        case DROVER_MSG_CLIENT_HELLO:
            msg->level = UINT16_MAX;        //  a level far ahead: carried as it is
            strcpy (msg->release, "9.9.9 caf\xc3\xa9");
            break;
        case DROVER_MSG_CLIENT_WELCOME:
            msg->level = DROVER_MSG_LEVEL;
            strcpy (msg->release, DROVER_RELEASE);
            break;
        default:
            //  An id reserved for a message not defined yet: no fields
            if (streq (drover_msg_name (id), "INVALID"))
                break;
            fail_msg ("no filled message for id %d", id);
    }
    return msg;
}

//  Assert that two byte ranges are the same (NULL and empty are the same)
static void
s_assert_bytes (const byte *a, size_t a_size, const byte *b, size_t b_size)
{
    assert_int_equal (a? a_size: 0, b? b_size: 0);
    if (a && a_size)
        assert_memory_equal (a, b, a_size);
}

//  Assert that two optional strings are the same (NULL and "" are the same)
static void
s_assert_text (const char *a, const char *b)
{
    assert_string_equal (a? a: "", b? b: "");
}

static void
s_assert_stats (const drover_stats_t *a, const drover_stats_t *b)
{
    for (int index = 0; index < 3; index++)
        assert_true (a->load [index] == b->load [index]);
    assert_true (a->mem_used == b->mem_used);
    assert_true (a->mem_total == b->mem_total);
    assert_true (a->disk_used == b->disk_used);
    assert_true (a->disk_total == b->disk_total);
    assert_int_equal (a->running, b->running);
}

//  Assert that two messages hold the same POOL TABLE, field by field
static void
s_assert_pool (const drover_msg_t *a, const drover_msg_t *b)
{
    assert_int_equal (a->pool.enabled, b->pool.enabled);
    assert_string_equal (a->pool.driver, b->pool.driver);
    assert_int_equal (a->pool.live, b->pool.live);
    assert_int_equal (a->pool.max_instances, b->pool.max_instances);
    assert_true (a->pool.price == b->pool.price);
    assert_true (a->pool.max_price == b->pool.max_price);
    assert_true (a->pool.backoff_until == b->pool.backoff_until);
    assert_int_equal (a->pool.failures, b->pool.failures);
    assert_int_equal (a->pool_rows == NULL, b->pool_rows == NULL);
    for (uint32_t index = 0; a->pool_rows && index < a->nrows; index++) {
        const drover_pool_row_t *x = &a->pool_rows [index], *y = &b->pool_rows [index];
        assert_string_equal (x->id, y->id);
        assert_string_equal (x->type, y->type);
        assert_true (x->price == y->price);
        assert_int_equal (x->state, y->state);
        assert_int_equal (x->behaviour, y->behaviour);
        assert_true (x->created == y->created && x->since == y->since);
        assert_true (x->last_busy == y->last_busy && x->last_task == y->last_task);
        assert_int_equal (x->tasks, y->tasks);
        assert_int_equal (x->procs, y->procs);
        assert_int_equal (x->procs_used, y->procs_used);
        assert_true (x->mem == y->mem && x->mem_used == y->mem_used);
        assert_string_equal (x->why, y->why);
    }
}

//  The level a message goes out with: its own, or DROVER_MSG_LEVEL for one
//  that carries a level and has none set (0 packs the codec's level)
static int
s_level_sent (const drover_msg_t *msg)
{
    bool carries = msg->id == DROVER_MSG_WORKER_HELLO || msg->id == DROVER_MSG_WORKER_WELCOME
                || msg->id == DROVER_MSG_CLIENT_HELLO || msg->id == DROVER_MSG_CLIENT_WELCOME;
    return carries && msg->level == 0? DROVER_MSG_LEVEL: msg->level;
}

//  The release a message goes out with: its own, or DROVER_RELEASE for one
//  that carries a release and has none set
static const char *
s_release_sent (const drover_msg_t *msg)
{
    bool carries = msg->id == DROVER_MSG_WORKER_HELLO || msg->id == DROVER_MSG_CLIENT_HELLO
                || msg->id == DROVER_MSG_CLIENT_WELCOME;
    return carries && msg->release [0] == 0? DROVER_RELEASE: msg->release;
}

//  Assert that two messages hold the same values, field by field
static void
s_assert_same (const drover_msg_t *a, const drover_msg_t *b)
{
    assert_int_equal (a->id, b->id);
    assert_int_equal (a->seq, b->seq);
    assert_int_equal (s_level_sent (a), s_level_sent (b));
    assert_string_equal (s_release_sent (a), s_release_sent (b));
    //  A task info: the same encoding, byte for byte
    assert_int_equal (a->info != NULL, b->info != NULL);
    if (a->info) {
        size_t a_size, b_size;
        byte *a_data = drover_taskinfo_encode (a->info, &a_size);
        byte *b_data = drover_taskinfo_encode (b->info, &b_size);
        assert_non_null (a_data);
        assert_non_null (b_data);
        assert_int_equal (a_size, b_size);
        assert_memory_equal (a_data, b_data, a_size);
        free (a_data);
        free (b_data);
    }
    assert_string_equal (a->worker, b->worker);
    assert_true (a->epoch == b->epoch);
    assert_string_equal (a->leader, b->leader);
    assert_string_equal (a->leader_name, b->leader_name);
    assert_string_equal (a->state_id, b->state_id);
    assert_int_equal (a->key == NULL, b->key == NULL);
    if (a->key)
        assert_string_equal (a->key, b->key);
    assert_true (a->task == b->task);
    assert_int_equal (a->attempt, b->attempt);
    assert_int_equal (a->priority, b->priority);
    assert_int_equal (a->procs, b->procs);
    assert_true (a->mem == b->mem);
    assert_int_equal (a->nlabels, b->nlabels);
    for (uint32_t index = 0; index < a->nlabels; index++)
        assert_string_equal (a->labels [index], b->labels [index]);
    assert_int_equal (a->timeout, b->timeout);
    assert_int_equal (a->retries, b->retries);
    assert_int_equal (a->flags, b->flags);
    s_assert_bytes (a->body, a->body_size, b->body, b->body_size);
    s_assert_stats (&a->stats, &b->stats);
    assert_int_equal (a->nrunning, b->nrunning);
    for (uint32_t index = 0; index < a->nrunning; index++) {
        assert_true (a->running [index].task == b->running [index].task);
        assert_int_equal (a->running [index].attempt, b->running [index].attempt);
    }
    assert_int_equal (a->heartbeat, b->heartbeat);
    assert_int_equal (a->outcome, b->outcome);
    assert_int_equal (a->state, b->state);
    assert_int_equal (a->end, b->end);
    assert_int_equal (a->admin, b->admin);
    assert_int_equal (a->exit_code, b->exit_code);
    assert_int_equal (a->signal, b->signal);
    assert_int_equal (a->truncated, b->truncated);
    assert_int_equal (a->duration, b->duration);
    s_assert_bytes (a->out, a->out_size, b->out, b->out_size);
    s_assert_bytes (a->err, a->err_size, b->err, b->err_size);
    assert_int_equal (a->code, b->code);
    s_assert_text (a->reason, b->reason);
    assert_int_equal (a->limit, b->limit);
    assert_int_equal (a->ntasks, b->ntasks);
    for (uint32_t index = 0; index < a->ntasks; index++)
        assert_true (a->tasks [index] == b->tasks [index]);
    for (int index = 0; index < DROVER_TASK_STATES; index++)
        assert_true (a->counts [index] == b->counts [index]);
    assert_true (a->since == b->since);
    assert_true (a->last == b->last);
    assert_int_equal (a->more, b->more);
    assert_int_equal (a->nevents, b->nevents);
    for (uint32_t index = 0; index < a->nevents; index++) {
        const drover_event_t *x = &a->events [index], *y = &b->events [index];
        assert_true (x->seq == y->seq && x->time == y->time && x->task == y->task);
        assert_int_equal (x->attempt, y->attempt);
        assert_string_equal (x->topic, y->topic);
        assert_string_equal (x->worker, y->worker);
        assert_string_equal (x->reason, y->reason);
    }
    assert_int_equal (a->nrows, b->nrows);
    assert_int_equal (a->task_rows == NULL, b->task_rows == NULL);
    assert_int_equal (a->worker_rows == NULL, b->worker_rows == NULL);
    for (uint32_t index = 0; a->task_rows && index < a->nrows; index++) {
        const drover_task_row_t *x = &a->task_rows [index], *y = &b->task_rows [index];
        assert_true (x->task == y->task);
        assert_int_equal (x->state, y->state);
        assert_int_equal (x->end, y->end);
        assert_int_equal (x->priority, y->priority);
        assert_int_equal (x->procs, y->procs);
        assert_int_equal (x->attempt, y->attempt);
        assert_string_equal (x->worker, y->worker);
        s_assert_text (x->summary, y->summary);
        assert_string_equal (x->owner, y->owner);
        assert_string_equal (x->reason, y->reason);
    }
    assert_int_equal (a->nwhys, b->nwhys);
    s_assert_pool (a, b);
    testcodec_assert_same_services (a, b);
    testcodec_assert_same_queues (a, b);
    for (uint32_t index = 0; index < a->nwhys; index++)
        assert_memory_equal (&a->whys [index], &b->whys [index], sizeof (drover_why_t));
    for (uint32_t index = 0; a->worker_rows && index < a->nrows; index++) {
        const drover_worker_row_t *x = &a->worker_rows [index], *y = &b->worker_rows [index];
        assert_string_equal (x->id, y->id);
        assert_int_equal (x->health, y->health);
        assert_int_equal (x->admin, y->admin);
        assert_int_equal (x->procs, y->procs);
        assert_int_equal (x->procs_used, y->procs_used);
        assert_true (x->mem == y->mem);
        assert_true (x->mem_used == y->mem_used);
        assert_int_equal (x->nlabels, y->nlabels);
        for (uint32_t label = 0; label < x->nlabels; label++)
            assert_string_equal (x->labels [label], y->labels [label]);
        s_assert_stats (&x->stats, &y->stats);
        assert_true (x->reserved == y->reserved);
        assert_int_equal (x->state, y->state);
        assert_true (x->since == y->since);
        s_assert_text (x->why, y->why);
        s_assert_text (x->admin_reason, y->admin_reason);
        assert_true (x->admin_since == y->admin_since);
        assert_true (x->probation_until == y->probation_until);
        assert_int_equal (x->tasks, y->tasks);
    }
}

//  Encode a message into a fresh byte buffer (asserting it encodes)
static byte *
s_encode (drover_msg_t *msg, size_t *size_p)
{
    zframe_t *frame = drover_msg_encode (msg);
    assert_non_null (frame);
    *size_p = zframe_size (frame);
    byte *data = (byte *) malloc (*size_p);
    memcpy (data, zframe_data (frame), *size_p);
    zframe_destroy (&frame);
    return data;
}

//  Encode msg, decode it into copy (which may hold an earlier message) and
//  assert the two are the same
static void
s_assert_roundtrip (drover_msg_t *msg, drover_msg_t *copy)
{
    size_t size;
    byte *data = s_encode (msg, &size);
    assert_int_equal (drover_msg_decode (copy, data, size), 0);
    s_assert_same (msg, copy);
    free (data);
}

//  Decode bytes expecting a refusal; returns the error text
static const char *
s_refused (const byte *data, size_t size)
{
    drover_msg_t *msg = drover_msg_new (0);
    int rc = drover_msg_decode (msg, data, size);
    if (rc != -2)
        fail_msg ("decode accepted %zu bytes it should refuse (id %d)", size, msg->id);
    assert_non_null (msg->error);
    const char *error = msg->error;         //  static text: outlives msg
    drover_msg_destroy (&msg);
    return error;
}

//  Assert that decoding refuses the bytes with an error containing text
static void
s_assert_refused (const byte *data, size_t size, const char *text)
{
    const char *error = s_refused (data, size);
    if (!strstr (error, text))
        fail_msg ("error \"%s\" does not mention \"%s\"", error, text);
}

//  Start a raw message of id with nfields fields after the header
static void
s_raw_begin (testcodec_raw_t *raw, int id, size_t nfields, uint32_t seq)
{
    testcodec_raw_init (raw);
    msgpack_pack_array (&raw->pk, 4 + nfields);
    msgpack_pack_str_with_body (&raw->pk, "DRV", 3);
    msgpack_pack_uint8 (&raw->pk, 1);
    msgpack_pack_int (&raw->pk, id);
    msgpack_pack_uint32 (&raw->pk, seq);
}

//  Assert that decoding refuses the raw message with an error containing
//  text, then free it
static void
s_assert_raw_refused (testcodec_raw_t *raw, const char *text)
{
    s_assert_refused (RAW_DATA (*raw), RAW_SIZE (*raw), text);
    testcodec_raw_destroy (raw);
}

//  ---------------------------------------------------------------------
//  Round trips

static void
test_roundtrip_every_message (void **state)
{
    for (int id = 1; id <= DROVER_MSG_ID_MAX; id++) {
        drover_msg_t *msg = s_filled (id);
        size_t size;
        byte *data = s_encode (msg, &size);
        drover_msg_t *copy = drover_msg_new (0);
        int rc = drover_msg_decode (copy, data, size);
        if (rc)
            fail_msg ("%s does not decode: %s", drover_msg_name (id), copy->error);
        assert_null (copy->error);
        s_assert_same (msg, copy);
        //  Decoding again into a used message replaces what it held
        assert_int_equal (drover_msg_decode (copy, data, size), 0);
        s_assert_same (msg, copy);
        free (data);
        drover_msg_destroy (&msg);
        drover_msg_destroy (&copy);
    }
}

//  Every limit at its maximum still round-trips
static void
test_roundtrip_at_limits (void **state)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_WORKER_HELLO);
    memset (msg->worker, 'w', DROVER_ID_MAX);
    for (int index = 0; index < DROVER_LABELS_MAX; index++) {
        char label [DROVER_LABEL_MAX + 1];
        memset (label, 'v', DROVER_LABEL_MAX);
        label [DROVER_LABEL_MAX] = 0;
        memset (label, 'k', 62);                //  key of 63 bytes, value to 128
        snprintf (label + 62, 3, "%c=", 'a' + index);
        label [64] = 'v';
        assert_int_equal (drover_msg_add_label (msg, label), 0);
    }
    assert_int_equal (drover_msg_add_label (msg, "one=too-many"), -1);
    msg->nrunning = DROVER_RUNNING_MAX;
    msg->running = (drover_taskref_t *) zmalloc (DROVER_RUNNING_MAX * sizeof (drover_taskref_t));
    for (int index = 0; index < DROVER_RUNNING_MAX; index++)
        msg->running [index] = (drover_taskref_t) { UINT64_MAX - index, UINT32_MAX - index };
    drover_msg_t *copy = drover_msg_new (0);
    s_assert_roundtrip (msg, copy);
    drover_msg_destroy (&msg);

    msg = drover_msg_new (DROVER_MSG_TASK_RESULT);
    strcpy (msg->worker, "w");
    byte *big = (byte *) malloc (DROVER_OUTPUT_MAX);
    for (size_t index = 0; index < DROVER_OUTPUT_MAX; index++)
        big [index] = (byte) testcodec_random ();
    drover_msg_set_output (msg, big, DROVER_OUTPUT_MAX, big, DROVER_OUTPUT_MAX);
    char reason [DROVER_REASON_MAX + 1];
    memset (reason, 'r', DROVER_REASON_MAX);
    reason [DROVER_REASON_MAX] = 0;
    drover_msg_set_reason (msg, reason);
    msg->exit_code = INT32_MAX;
    msg->signal = INT32_MIN;
    s_assert_roundtrip (msg, copy);
    free (big);
    drover_msg_destroy (&msg);

    msg = drover_msg_new (DROVER_MSG_TASK_WAIT);
    msg->ntasks = DROVER_WAIT_MAX;
    msg->tasks = (uint64_t *) zmalloc (DROVER_WAIT_MAX * sizeof (uint64_t));
    for (int index = 0; index < DROVER_WAIT_MAX; index++)
        msg->tasks [index] = (uint64_t) index << (index % 64);
    s_assert_roundtrip (msg, copy);
    drover_msg_destroy (&msg);
    drover_msg_destroy (&copy);
}

//  The header bytes are pinned: signature as fixstr, then version and id
//  as single bytes (tests and tools patch them in place)
static void
test_wire_layout_is_pinned (void **state)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_TASK_LIST);
    msg->seq = 7;
    size_t size;
    byte *data = s_encode (msg, &size);
    const byte expected [] = { 0x96, 0xa3, 'D', 'R', 'V', 0x01, 0x0f, 0x07, 0x00, 0x00 };
    assert_int_equal (size, sizeof expected);
    assert_memory_equal (data, expected, sizeof expected);
    free (data);
    //  The two examples of PROTOCOL.md, section 4.2
    msg->limit = 100;
    msg->state = 255;
    data = s_encode (msg, &size);
    const byte list [] = { 0x96, 0xa3, 'D', 'R', 'V', 0x01, 0x0f, 0x07, 0x64, 0xcc, 0xff };
    assert_int_equal (size, sizeof list);
    assert_memory_equal (data, list, sizeof list);
    free (data);
    drover_msg_destroy (&msg);
    msg = drover_msg_new (DROVER_MSG_ERROR);
    msg->seq = 8;
    msg->code = DROVER_CODE_NOT_FOUND;
    drover_msg_set_reason (msg, "unknown task");
    data = s_encode (msg, &size);
    const byte error [] = { 0x96, 0xa3, 'D', 'R', 'V', 0x01, 0x15, 0x08, 0xcd, 0x01, 0x94,
                            0xac, 'u', 'n', 'k', 'n', 'o', 'w', 'n', ' ', 't', 'a', 's', 'k' };
    assert_int_equal (size, sizeof error);
    assert_memory_equal (data, error, sizeof error);
    free (data);
    drover_msg_destroy (&msg);
}

//  Any msgpack integer width is accepted, in range
static void
test_any_integer_width (void **state)
{
    //  TASK OFFER with every integer in an unusual width
    const byte offer [] = {
        0x9b, 0xa3, 'D', 'R', 'V',
        0xcf, 0, 0, 0, 0, 0, 0, 0, 1,           //  version 1 as uint64
        0xd3, 0, 0, 0, 0, 0, 0, 0, 6,           //  id 6 as int64
        0xd0, 0x05,                             //  seq 5 as int8
        0xcd, 0x00, 0x2a,                       //  task 42 as uint16
        0xd2, 0, 0, 0, 3,                       //  attempt 3 as int32
        0xd1, 0xff, 0xfe,                       //  priority -2 as int16
        0xe0,                                   //  procs: negative fixint: refused below
        0xcc, 0x10,                             //  mem 16 as uint8
        0xce, 0, 0, 0x03, 0xe8,                 //  timeout 1000 as uint32
        0xc4, 0x00                              //  empty body as bin 8
    };
    byte data [sizeof offer];
    memcpy (data, offer, sizeof offer);
    s_assert_refused (data, sizeof data, "procs: out of range");
    data [36] = 0x04;                           //  procs 4 as positive fixint
    drover_msg_t *msg = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (msg, data, sizeof data), 0);
    assert_int_equal (msg->id, DROVER_MSG_TASK_OFFER);
    assert_int_equal (msg->seq, 5);
    assert_true (msg->task == 42);
    assert_int_equal (msg->attempt, 3);
    assert_int_equal (msg->priority, -2);
    assert_int_equal (msg->procs, 4);
    assert_true (msg->mem == 16);
    assert_int_equal (msg->timeout, 1000);
    assert_null (msg->body);
    assert_int_equal (msg->body_size, 0);

    //  Out of range for the field's width
    data [28] = 0xce;                           //  attempt as uint32 0x80000003: fits
    assert_int_equal (drover_msg_decode (msg, data, sizeof data), 0);
    data [29] = 0x80;
    assert_int_equal (drover_msg_decode (msg, data, sizeof data), 0);
    assert_int_equal (msg->attempt, 0x80000003u);
    data [28] = 0xd2;                           //  as int32 it is negative: refused
    s_assert_refused (data, sizeof data, "attempt: out of range");
    drover_msg_destroy (&msg);

    //  int32 and uint32 fields refuse values past their range
    testcodec_raw_t raw;
    for (int round = 0; round < 3; round++) {
        s_raw_begin (&raw, DROVER_MSG_TASK_SUBMIT, 8, 1);
        msgpack_pack_int64 (&raw.pk, round == 0? (int64_t) INT32_MIN - 1
                                   : round == 1? (int64_t) INT32_MAX + 1: 0);
        msgpack_pack_uint64 (&raw.pk, round == 2? (uint64_t) UINT32_MAX + 1: 1);
        msgpack_pack_uint8 (&raw.pk, 0);        //  mem
        msgpack_pack_array (&raw.pk, 0);        //  labels
        for (int index = 0; index < 3; index++)
            msgpack_pack_uint8 (&raw.pk, 0);    //  timeout, retries, flags
        msgpack_pack_bin (&raw.pk, 0);
        s_assert_raw_refused (&raw, round < 2? "priority: out of range": "procs: out of range");
    }
}

//  TASK DONE once carried no outcome: a client told a timeout from a signal
//  by the reason's words. Its outcome (and a TASK TABLE row's) goes with
//  its state, both ways: an encoder refuses a pair the spec does not list,
//  and a decoder refuses a known state with a known outcome that does not
//  fit as malformed. An outcome past the ones this version knows (a newer
//  broker's) is kept as it came: there is nothing to check it by.
static void
test_done_outcome_goes_with_its_state (void **state)
{
    int fitting = 0;
    for (int task_state = 0; task_state < DROVER_TASK_STATES; task_state++)
        for (int end = 0; end <= DROVER_END_MAX + 1; end++) {
            bool fits = drover_end_fits (task_state, end);
            fitting += fits;
            drover_msg_t *done = drover_msg_new (DROVER_MSG_TASK_DONE);
            done->task = 5;
            done->state = (uint8_t) task_state;
            done->end = (uint8_t) end;
            zframe_t *frame = drover_msg_encode (done);
            assert_int_equal (frame != NULL, fits);
            drover_msg_t *copy = drover_msg_new (0);
            if (frame) {
                assert_int_equal (drover_msg_decode (copy, zframe_data (frame),
                                                     zframe_size (frame)), 0);
                assert_int_equal (copy->end, end);
            }
            zframe_destroy (&frame);
            //  The same pair, hand-packed: a decoder refuses what does not fit
            testcodec_raw_t raw;
            s_raw_begin (&raw, DROVER_MSG_TASK_DONE, 12, 3);
            msgpack_pack_uint8 (&raw.pk, 5);
            msgpack_pack_uint8 (&raw.pk, (uint8_t) task_state);
            msgpack_pack_uint8 (&raw.pk, (uint8_t) end);
            msgpack_pack_uint8 (&raw.pk, 0);            //  attempt
            testcodec_raw_str (&raw, "", 0);                    //  worker
            for (int field = 0; field < 4; field++)     //  exit_code .. duration
                msgpack_pack_uint8 (&raw.pk, 0);
            msgpack_pack_bin (&raw.pk, 0);              //  out
            msgpack_pack_bin (&raw.pk, 0);              //  err
            testcodec_raw_str (&raw, "", 0);                    //  reason
            if (fits || end > DROVER_END_MAX) {
                assert_int_equal (drover_msg_decode (copy, RAW_DATA (raw), RAW_SIZE (raw)), 0);
                assert_int_equal (copy->state, task_state);
                assert_int_equal (copy->end, end);
            }
            else
                s_assert_refused (RAW_DATA (raw), RAW_SIZE (raw),
                                  "outcome: does not go with the state");
            testcodec_raw_destroy (&raw);
            drover_msg_destroy (&copy);
            drover_msg_destroy (&done);
        }
    assert_int_equal (fitting, 3 + 1 + 1 + 5 + 2);
    char name [32];
    snprintf (name, sizeof name, "%s", drover_end_name (DROVER_END_TIMED_OUT));
    assert_string_equal (name, "TIMED_OUT");
    assert_string_equal (drover_end_name (DROVER_END_MAX + 1), "INVALID");
}

//  drover_msg_peek reads the id and seq of any header, whatever follows:
//  the broker echoes that seq when it refuses a message it does not decode
static void
test_peek_reads_only_the_header (void **state)
{
    for (int id = 1; id <= DROVER_MSG_ID_MAX; id++) {
        drover_msg_t *msg = s_filled (id);
        size_t size;
        byte *data = s_encode (msg, &size);
        uint32_t seq = 1;
        assert_int_equal (drover_msg_peek (data, size, &seq), id);
        assert_int_equal (seq, msg->seq);
        //  A broken tail does not matter (past the 12-byte header of
        //  seq 0xfffffffe); a cut header does
        if (size > 12)
            data [size - 1] = 0xc1;
        assert_int_equal (drover_msg_peek (data, size, &seq), id);
        assert_int_equal (seq, msg->seq);
        assert_int_equal (drover_msg_peek (data, 3, &seq), -1);
        assert_int_equal (seq, 0);
        free (data);
        drover_msg_destroy (&msg);
    }
    //  Another version: the seq still reads; garbage and NULL cannot be read
    uint32_t seq;
    testcodec_raw_t raw;
    testcodec_raw_init (&raw);
    msgpack_pack_array (&raw.pk, 9);
    testcodec_raw_str (&raw, "DRV", 3);
    msgpack_pack_uint8 (&raw.pk, 2);
    msgpack_pack_uint8 (&raw.pk, DROVER_MSG_TASK_LIST);
    msgpack_pack_uint32 (&raw.pk, 123456);
    assert_int_equal (drover_msg_peek (RAW_DATA (raw), RAW_SIZE (raw), &seq), DROVER_MSG_TASK_LIST);
    assert_int_equal (seq, 123456);
    testcodec_raw_destroy (&raw);
    assert_int_equal (drover_msg_peek ((const byte *) "hello", 5, &seq), -1);
    assert_int_equal (seq, 0);
    assert_int_equal (drover_msg_peek (NULL, 0, &seq), -1);
    assert_int_equal (seq, 0);
}

//  Decode raw bytes expecting a refusal, and return the largest single
//  allocation the attempt made
static size_t
s_refused_costs (const byte *data, size_t size)
{
    drover_msg_t *msg = drover_msg_new (0);
    testcodec_alloc_largest = 0;
    int rc = drover_msg_decode (msg, data, size);
    size_t largest = testcodec_alloc_largest;
    assert_int_equal (rc, -2);
    drover_msg_destroy (&msg);
    return largest;
}

//  A TASK TABLE or WORKER TABLE once allocated count x sizeof (row), 96
//  and 296 bytes, after checking only that count <= bytes left: a 10 KB
//  table of 10000 one-byte "rows" cost a 2.96 MB calloc before its first
//  row was refused. Each array is now refused unless the bytes left can
//  hold count elements of their smallest encoding, before allocating.
static void
test_rows_claimed_past_bytes_are_refused_unallocated (void **state)
{
    testcodec_raw_t raw;
    //  TASK TABLE: counts, then 10000 nils where rows should be
    s_raw_begin (&raw, DROVER_MSG_TASK_TABLE, 2, 5);
    msgpack_pack_array (&raw.pk, DROVER_TASK_STATES);
    for (int index = 0; index < DROVER_TASK_STATES; index++)
        msgpack_pack_uint8 (&raw.pk, 0);
    msgpack_pack_array (&raw.pk, DROVER_ROWS_MAX);
    for (int index = 0; index < DROVER_ROWS_MAX; index++)
        msgpack_pack_nil (&raw.pk);
    size_t largest = s_refused_costs (RAW_DATA (raw), RAW_SIZE (raw));
    if (largest > RAW_SIZE (raw))
        fail_msg ("TASK TABLE of %zu bytes allocated %zu bytes at once", RAW_SIZE (raw), largest);
    testcodec_raw_destroy (&raw);

    //  WORKER TABLE: 10000 nils
    s_raw_begin (&raw, DROVER_MSG_WORKER_TABLE, 1, 6);
    msgpack_pack_array (&raw.pk, DROVER_ROWS_MAX);
    for (int index = 0; index < DROVER_ROWS_MAX; index++)
        msgpack_pack_nil (&raw.pk);
    largest = s_refused_costs (RAW_DATA (raw), RAW_SIZE (raw));
    if (largest > RAW_SIZE (raw))
        fail_msg ("WORKER TABLE of %zu bytes allocated %zu bytes at once", RAW_SIZE (raw), largest);
    testcodec_raw_destroy (&raw);

    //  WORKER TABLE: rows that are each 18 bytes, shorter than the smallest
    //  worker row, claimed as 500: refused as truncated, not allocated
    s_raw_begin (&raw, DROVER_MSG_WORKER_TABLE, 1, 7);
    msgpack_pack_array (&raw.pk, 500);
    for (int index = 0; index < 500; index++) {
        msgpack_pack_array (&raw.pk, 15);
        testcodec_raw_str (&raw, "ab", 2);
        for (int field = 1; field < 15; field++)
            msgpack_pack_uint8 (&raw.pk, 0);
    }
    largest = s_refused_costs (RAW_DATA (raw), RAW_SIZE (raw));
    if (largest > RAW_SIZE (raw))
        fail_msg ("WORKER TABLE of %zu bytes allocated %zu bytes at once", RAW_SIZE (raw), largest);
    testcodec_raw_destroy (&raw);

    //  HELLO: 4096 nils where running [task, attempt] pairs should be
    s_raw_begin (&raw, DROVER_MSG_WORKER_HELLO, 6, 8);
    testcodec_raw_str (&raw, "w1", 2);
    msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_uint8 (&raw.pk, 0);
    msgpack_pack_array (&raw.pk, 0);
    msgpack_pack_array (&raw.pk, DROVER_RUNNING_MAX);
    for (int index = 0; index < DROVER_RUNNING_MAX; index++)
        msgpack_pack_nil (&raw.pk);
    largest = s_refused_costs (RAW_DATA (raw), RAW_SIZE (raw));
    if (largest > RAW_SIZE (raw))
        fail_msg ("HELLO of %zu bytes allocated %zu bytes at once", RAW_SIZE (raw), largest);
    testcodec_raw_destroy (&raw);

    //  A real table still decodes, and costs at most its rows' structs
    drover_msg_t *msg = s_filled (DROVER_MSG_WORKER_TABLE);
    size_t size;
    byte *data = s_encode (msg, &size);
    drover_msg_t *copy = drover_msg_new (0);
    testcodec_alloc_largest = 0;
    assert_int_equal (drover_msg_decode (copy, data, size), 0);
    assert_true (testcodec_alloc_largest <= 2 * sizeof (drover_worker_row_t));
    s_assert_same (msg, copy);
    drover_msg_destroy (&copy);
    drover_msg_destroy (&msg);
    free (data);
}


//  The optional last fields (state id, submit key, a TASK LIST's labels)
//  are left out when they have no value, and a message without them (as an
//  older peer sends it) still decodes, to "" and NULL. In HELLO and WELCOME
//  a level (and a release) always follows the state id, so there an empty
//  one goes as ""; their level-1 form has none of the three.
static void
test_optional_fields_of_older_peers (void **state)
{
    int ids [] = { DROVER_MSG_WORKER_HELLO, DROVER_MSG_WORKER_WELCOME, DROVER_MSG_TASK_SUBMIT,
                   DROVER_MSG_TASK_ACCEPTED, DROVER_MSG_TASK_WAIT, DROVER_MSG_TASK_LIST };
    drover_msg_t *copy = drover_msg_new (0);
    for (size_t index = 0; index < sizeof ids / sizeof ids [0]; index++) {
        drover_msg_t *msg = s_filled (ids [index]);
        if (ids [index] == DROVER_MSG_TASK_SUBMIT) {
            zstr_free (&msg->affinity);     //  key last: test_drover_msg_service has the
            msg->service [0] = 0;           //  fields after it
            msg->slot = 0;
        }
        size_t with_size, without_size;
        byte *with = s_encode (msg, &with_size);
        msg->state_id [0] = 0;
        free (msg->key);
        msg->key = NULL;
        if (ids [index] == DROVER_MSG_TASK_LIST) {
            assert_int_equal (msg->nlabels, 2);
            for (uint32_t label = 0; label < msg->nlabels; label++)
                zstr_free (&msg->labels [label]);
            msg->nlabels = 0;
        }
        byte *without = s_encode (msg, &without_size);
        bool followed = ids [index] == DROVER_MSG_WORKER_HELLO
                     || ids [index] == DROVER_MSG_WORKER_WELCOME;
        if (followed) {
            //  As many elements, the 32 hex digits (str 8) now an empty fixstr
            assert_int_equal (with [0], without [0]);
            assert_int_equal (without_size, with_size - 2 - DROVER_STATE_ID_SIZE + 1);
        }
        else {
            //  One element fewer in the array header, and the field's bytes gone
            assert_int_equal (with [0] - 1, without [0]);
            assert_true (without_size < with_size);
            assert_memory_equal (with + 1, without + 1, without_size - 1);
        }
        assert_int_equal (drover_msg_decode (copy, without, without_size), 0);
        assert_string_equal (copy->state_id, "");
        assert_null (copy->key);
        s_assert_same (msg, copy);
        if (followed) {
            //  The level-1 form: no state id, level or release at all
            zframe_t *frame = drover_msg_encode_level (msg, 1);
            assert_non_null (frame);
            assert_int_equal (zframe_data (frame) [0],
                              0x90 + 4 + (ids [index] == DROVER_MSG_WORKER_HELLO? 6: 1));
            assert_int_equal (drover_msg_decode (copy, zframe_data (frame),
                                                 zframe_size (frame)), 0);
            assert_string_equal (copy->state_id, "");
            assert_int_equal (copy->level, 0);
            assert_string_equal (copy->release, "");
            assert_int_equal (drover_msg_level (copy), 1);
            zframe_destroy (&frame);
        }
        free (with);
        free (without);
        drover_msg_destroy (&msg);
    }
    //  An empty state id sent explicitly reads as none too
    testcodec_raw_t raw;
    s_raw_begin (&raw, DROVER_MSG_TASK_ACCEPTED, 2, 4);
    msgpack_pack_uint8 (&raw.pk, 9);
    testcodec_raw_str (&raw, "", 0);
    assert_int_equal (drover_msg_decode (copy, RAW_DATA (raw), RAW_SIZE (raw)), 0);
    assert_true (copy->task == 9);
    assert_string_equal (copy->state_id, "");
    testcodec_raw_destroy (&raw);
    //  A field past them in ACCEPTED (the broker's: a newer one's field) is
    //  passed over; in WAIT (a request) it is refused; two too few are
    //  refused either way
    s_raw_begin (&raw, DROVER_MSG_TASK_ACCEPTED, 3, 4);
    msgpack_pack_uint8 (&raw.pk, 9);
    testcodec_raw_str (&raw, "", 0);
    testcodec_raw_str (&raw, "", 0);
    assert_int_equal (drover_msg_decode (copy, RAW_DATA (raw), RAW_SIZE (raw)), 0);
    assert_true (copy->task == 9);
    assert_string_equal (copy->state_id, "");
    testcodec_raw_destroy (&raw);
    s_raw_begin (&raw, DROVER_MSG_TASK_WAIT, 3, 4);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_uint8 (&raw.pk, 9);
    testcodec_raw_str (&raw, "", 0);
    testcodec_raw_str (&raw, "", 0);
    s_assert_raw_refused (&raw, "wrong number of fields");
    s_raw_begin (&raw, DROVER_MSG_TASK_ACCEPTED, 0, 4);
    s_assert_raw_refused (&raw, "wrong number of fields");
    //  A message whose last field is not optional still needs all of them
    s_raw_begin (&raw, DROVER_MSG_TASK_KILL, 1, 4);
    msgpack_pack_uint8 (&raw.pk, 9);
    s_assert_raw_refused (&raw, "wrong number of fields");
    drover_msg_destroy (&copy);
}

//  Pack the first 10 elements of a WORKER TABLE row (the row of brokers
//  before the optional ones)
static void
s_raw_row_start (testcodec_raw_t *raw, uint32_t elements, const char *id)
{
    msgpack_pack_array (&raw->pk, elements);
    testcodec_raw_str (raw, id, strlen (id));
    msgpack_pack_uint8 (&raw->pk, DROVER_HEALTH_LOST);
    msgpack_pack_uint8 (&raw->pk, DROVER_ADMIN_HOLD);
    msgpack_pack_uint32 (&raw->pk, 4);
    msgpack_pack_uint32 (&raw->pk, 1);
    msgpack_pack_uint64 (&raw->pk, 1024);
    msgpack_pack_uint64 (&raw->pk, 0);
    msgpack_pack_array (&raw->pk, 0);
    msgpack_pack_array (&raw->pk, 8);           //  stats: 3 loads, 4 sizes, running
    for (int index = 0; index < 8; index++)
        msgpack_pack_uint8 (&raw->pk, 0);
    msgpack_pack_uint64 (&raw->pk, 0);
}

//  A TASK TABLE row with elements past the 10 this version knows (a later
//  broker's) reads what it knows and skips the rest: it was refused as
//  "row: invalid", so every client failed to list tasks of a newer broker
static void
test_task_rows_of_a_later_version_are_read (void **state)
{
    drover_msg_t *copy = drover_msg_new (0);
    testcodec_raw_t raw;
    s_raw_begin (&raw, DROVER_MSG_TASK_TABLE, 2, 9);
    msgpack_pack_array (&raw.pk, DROVER_TASK_STATES);
    for (int index = 0; index < DROVER_TASK_STATES; index++)
        msgpack_pack_uint8 (&raw.pk, index == DROVER_TASK_QUEUED);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 13);
    msgpack_pack_uint64 (&raw.pk, 42);
    msgpack_pack_uint8 (&raw.pk, DROVER_TASK_QUEUED);
    msgpack_pack_uint8 (&raw.pk, 0);
    msgpack_pack_int32 (&raw.pk, 3);
    msgpack_pack_uint32 (&raw.pk, 2);
    msgpack_pack_uint32 (&raw.pk, 0);
    testcodec_raw_str (&raw, "", 0);
    testcodec_raw_str (&raw, "echo hi", 7);
    testcodec_raw_str (&raw, "ann", 3);
    testcodec_raw_str (&raw, "behind 2", 8);
    msgpack_pack_array (&raw.pk, 2);            //  later versions': skipped
    msgpack_pack_uint8 (&raw.pk, 1);
    testcodec_raw_str (&raw, "x", 1);
    msgpack_pack_uint64 (&raw.pk, 7);
    testcodec_raw_str (&raw, "later", 5);
    assert_int_equal (drover_msg_decode (copy, RAW_DATA (raw), RAW_SIZE (raw)), 0);
    testcodec_raw_destroy (&raw);
    assert_int_equal (copy->nrows, 1);
    assert_true (copy->task_rows [0].task == 42);
    assert_int_equal (copy->task_rows [0].procs, 2);
    assert_string_equal (copy->task_rows [0].summary, "echo hi");
    assert_string_equal (copy->task_rows [0].owner, "ann");
    assert_string_equal (copy->task_rows [0].reason, "behind 2");
    drover_msg_destroy (&copy);
}

//  WORKER TABLE rows: one of 10 elements (a broker before the optional
//  ones) reads with them absent; one with elements past those this version
//  knows reads what it knows and skips the rest; WORKER ADMIN without its
//  reason and flags (an older client) reads as none, with a reason only
//  too, and one field past them is refused
static void
test_optional_elements_of_worker_rows_and_admin (void **state)
{
    drover_msg_t *copy = drover_msg_new (0);
    testcodec_raw_t raw;
    s_raw_begin (&raw, DROVER_MSG_WORKER_TABLE, 1, 3);
    msgpack_pack_array (&raw.pk, 2);
    s_raw_row_start (&raw, 10, "old");
    s_raw_row_start (&raw, 21, "new");
    msgpack_pack_uint8 (&raw.pk, DROVER_WORKER_LOST);
    msgpack_pack_uint64 (&raw.pk, 1700000000000ull);
    testcodec_raw_str (&raw, "silent", 6);
    testcodec_raw_str (&raw, "disk swap", 9);
    msgpack_pack_uint64 (&raw.pk, 1600000000000ull);
    msgpack_pack_uint64 (&raw.pk, 0);
    msgpack_pack_uint32 (&raw.pk, 0);
    msgpack_pack_uint8 (&raw.pk, 2);            //  level
    testcodec_raw_str (&raw, "0.2.0", 5);       //  release
    msgpack_pack_array (&raw.pk, 2);            //  a later version's: skipped
    msgpack_pack_uint8 (&raw.pk, 1);
    testcodec_raw_str (&raw, "x", 1);
    testcodec_raw_str (&raw, "later", 5);
    assert_int_equal (drover_msg_decode (copy, RAW_DATA (raw), RAW_SIZE (raw)), 0);
    testcodec_raw_destroy (&raw);
    assert_int_equal (copy->nrows, 2);
    drover_worker_row_t *row = &copy->worker_rows [0];
    assert_string_equal (row->id, "old");
    assert_int_equal (row->state, DROVER_WORKER_UP);
    assert_true (row->since == 0);
    assert_null (row->why);
    assert_null (row->admin_reason);
    row = &copy->worker_rows [1];
    assert_string_equal (row->id, "new");
    assert_int_equal (row->procs, 4);
    assert_int_equal (row->state, DROVER_WORKER_LOST);
    assert_true (row->since == 1700000000000ull);
    assert_string_equal (row->why, "silent");
    assert_string_equal (row->admin_reason, "disk swap");
    assert_true (row->admin_since == 1600000000000ull);
    drover_msg_reset (copy);
    //  A worker state past LEFT (a newer broker's) is kept as it came; one
    //  that is not an integer is still refused
    s_raw_begin (&raw, DROVER_MSG_WORKER_TABLE, 1, 3);
    msgpack_pack_array (&raw.pk, 1);
    s_raw_row_start (&raw, 11, "new");
    msgpack_pack_uint8 (&raw.pk, DROVER_WORKER_STATE_MAX + 1);
    assert_int_equal (drover_msg_decode (copy, RAW_DATA (raw), RAW_SIZE (raw)), 0);
    testcodec_raw_destroy (&raw);
    assert_int_equal (copy->nrows, 1);
    assert_string_equal (copy->worker_rows [0].id, "new");
    assert_int_equal (copy->worker_rows [0].state, DROVER_WORKER_STATE_MAX + 1);
    drover_msg_reset (copy);
    s_raw_begin (&raw, DROVER_MSG_WORKER_TABLE, 1, 3);
    msgpack_pack_array (&raw.pk, 1);
    s_raw_row_start (&raw, 11, "bad");
    msgpack_pack_int8 (&raw.pk, -1);
    s_assert_raw_refused (&raw, "state: out of range");

    //  WORKER ADMIN of an older client: worker and admin only
    s_raw_begin (&raw, DROVER_MSG_WORKER_ADMIN, 2, 5);
    testcodec_raw_str (&raw, "w1", 2);
    msgpack_pack_uint8 (&raw.pk, DROVER_ADMIN_HOLD);
    assert_int_equal (drover_msg_decode (copy, RAW_DATA (raw), RAW_SIZE (raw)), 0);
    testcodec_raw_destroy (&raw);
    assert_string_equal (copy->worker, "w1");
    assert_null (copy->reason);
    assert_int_equal (copy->flags, 0);
    drover_msg_reset (copy);
    //  A reason without flags: the encoder leaves the flags out
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_WORKER_ADMIN);
    strcpy (msg->worker, "w1");
    msg->admin = DROVER_ADMIN_HOLD;
    size_t size;
    byte *data = s_encode (msg, &size);
    assert_int_equal (data [0], 0x96);                      //  4 + worker, admin
    free (data);
    drover_msg_set_reason (msg, "disk swap");
    data = s_encode (msg, &size);
    assert_int_equal (data [0], 0x97);                      //  and the reason
    assert_int_equal (drover_msg_decode (copy, data, size), 0);
    assert_string_equal (copy->reason, "disk swap");
    assert_int_equal (copy->flags, 0);
    free (data);
    drover_msg_reset (copy);
    drover_msg_destroy (&msg);
    //  One field past them is refused
    s_raw_begin (&raw, DROVER_MSG_WORKER_ADMIN, 5, 5);
    testcodec_raw_str (&raw, "w1", 2);
    msgpack_pack_uint8 (&raw.pk, DROVER_ADMIN_HOLD);
    testcodec_raw_str (&raw, "", 0);
    msgpack_pack_uint8 (&raw.pk, 0);
    msgpack_pack_uint8 (&raw.pk, 0);
    s_assert_raw_refused (&raw, "wrong number of fields");
    //  and so is one too few
    s_raw_begin (&raw, DROVER_MSG_WORKER_ADMIN, 1, 5);
    testcodec_raw_str (&raw, "w1", 2);
    s_assert_raw_refused (&raw, "wrong number of fields");
    drover_msg_destroy (&copy);
}

//  Raw TASK SUBMIT of a valid task with this key, of length bytes
static void
s_raw_submit_with_key (testcodec_raw_t *raw, const char *key, size_t length)
{
    s_raw_begin (raw, DROVER_MSG_TASK_SUBMIT, 9, 1);
    msgpack_pack_int (&raw->pk, 0);
    msgpack_pack_int (&raw->pk, 1);
    msgpack_pack_int (&raw->pk, 0);
    msgpack_pack_array (&raw->pk, 0);
    msgpack_pack_int (&raw->pk, 0);
    msgpack_pack_int (&raw->pk, 0);
    msgpack_pack_int (&raw->pk, 0);
    msgpack_pack_bin_with_body (&raw->pk, "\x94\x91\xa4true\x90\xc0\xc0", 10);
    testcodec_raw_str (raw, key, length);
}

//  Raw TASK WAIT for task 1 naming this state id, of length bytes
static void
s_raw_wait_with_state_id (testcodec_raw_t *raw, const char *state_id, size_t length)
{
    s_raw_begin (raw, DROVER_MSG_TASK_WAIT, 2, 1);
    msgpack_pack_array (&raw->pk, 1);
    msgpack_pack_uint8 (&raw->pk, 1);
    testcodec_raw_str (raw, state_id, length);
}

//  A submit key is 1..128 bytes of printable ASCII and a state id 32 hex
//  digits (or ""): anything else is malformed on the wire, and the encoder
//  will not send it
static void
test_malformed_keys_and_state_ids (void **state)
{
    testcodec_raw_t raw;
    char text [DROVER_KEY_MAX + 2];
    memset (text, 'k', sizeof text);
    //  The limits themselves are fine
    drover_msg_t *copy = drover_msg_new (0);
    s_raw_submit_with_key (&raw, text, DROVER_KEY_MAX);
    assert_int_equal (drover_msg_decode (copy, RAW_DATA (raw), RAW_SIZE (raw)), 0);
    assert_int_equal (strlen (copy->key), DROVER_KEY_MAX);
    testcodec_raw_destroy (&raw);
    s_raw_submit_with_key (&raw, " ", 1);
    assert_int_equal (drover_msg_decode (copy, RAW_DATA (raw), RAW_SIZE (raw)), 0);
    assert_string_equal (copy->key, " ");
    testcodec_raw_destroy (&raw);

    s_raw_submit_with_key (&raw, "", 0);
    s_assert_raw_refused (&raw, "key: out of range");
    s_raw_submit_with_key (&raw, text, DROVER_KEY_MAX + 1);
    s_assert_raw_refused (&raw, "key: out of range");
    const char *bad_keys [] = { "tab\there", "new\nline", "del\x7f", "caf\xc3\xa9", "\x1f",
                                "\x80" };
    for (size_t index = 0; index < sizeof bad_keys / sizeof bad_keys [0]; index++) {
        s_raw_submit_with_key (&raw, bad_keys [index], strlen (bad_keys [index]));
        s_assert_raw_refused (&raw, "key: not 1..128 bytes of printable ASCII");
    }
    s_raw_submit_with_key (&raw, "nul\0byte", 8);
    s_assert_raw_refused (&raw, "key");
    //  A key of another type
    s_raw_begin (&raw, DROVER_MSG_TASK_SUBMIT, 9, 1);
    for (int index = 0; index < 7; index++)
        msgpack_pack_int (&raw.pk, index == 1);
    msgpack_pack_bin_with_body (&raw.pk, "\x94\x91\xa4true\x90\xc0\xc0", 10);
    msgpack_pack_bin_with_body (&raw.pk, "key", 3);
    s_assert_raw_refused (&raw, "wrong type");

    const char *bad_ids [] = { "0123456789abcdef0123456789abcde", "0123456789abcdef0123456789abcdef0",
                               "0123456789abcdef0123456789abcdeg", "0123456789abcdef 123456789abcdef",
                               "-123456789abcdef0123456789abcdef" };
    for (size_t index = 0; index < sizeof bad_ids / sizeof bad_ids [0]; index++) {
        s_raw_wait_with_state_id (&raw, bad_ids [index], strlen (bad_ids [index]));
        s_assert_raw_refused (&raw, "state_id");
    }

    //  The encoder refuses what the decoder would
    drover_msg_t *msg = s_filled (DROVER_MSG_TASK_SUBMIT);
    for (size_t index = 0; index < sizeof bad_keys / sizeof bad_keys [0]; index++) {
        free (msg->key);
        msg->key = strdup (bad_keys [index]);
        assert_null (drover_msg_encode (msg));
    }
    free (msg->key);
    msg->key = strdup ("");
    assert_null (drover_msg_encode (msg));
    free (msg->key);
    msg->key = (char *) zmalloc (DROVER_KEY_MAX + 2);
    memset (msg->key, 'k', DROVER_KEY_MAX + 1);
    assert_null (drover_msg_encode (msg));
    msg->key [DROVER_KEY_MAX] = 0;
    s_assert_roundtrip (msg, copy);
    drover_msg_destroy (&msg);
    msg = s_filled (DROVER_MSG_WORKER_WELCOME);
    for (size_t index = 0; index < sizeof bad_ids / sizeof bad_ids [0]; index++) {
        snprintf (msg->state_id, sizeof msg->state_id, "%s", bad_ids [index]);
        if (strlen (bad_ids [index]) <= DROVER_STATE_ID_SIZE)
            assert_null (drover_msg_encode (msg));
    }
    drover_msg_destroy (&msg);
    drover_msg_destroy (&copy);
}

//  EVENT LIST: each entry is one event body in a bin, checked as events
//  are; a count the bytes cannot hold is refused before allocating; more
//  is 0 or 1; past DROVER_REPLAY_MAX events the encoder refuses
static void
test_event_list_refusals (void **state)
{
    testcodec_raw_t raw;
    //  A body that is not an event (no topic), and one that is not a bin
    s_raw_begin (&raw, DROVER_MSG_EVENT_LIST, 3, 1);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_bin_with_body (&raw.pk, "\x81\xa4task\x01", 7);
    msgpack_pack_uint8 (&raw.pk, 0);
    msgpack_pack_uint8 (&raw.pk, 0);
    s_assert_raw_refused (&raw, "events: not an event body");
    s_raw_begin (&raw, DROVER_MSG_EVENT_LIST, 3, 1);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_map (&raw.pk, 1);
    testcodec_raw_str (&raw, "topic", 5);
    testcodec_raw_str (&raw, "x", 1);
    msgpack_pack_uint8 (&raw.pk, 0);
    msgpack_pack_uint8 (&raw.pk, 0);
    s_assert_raw_refused (&raw, "events: wrong type");
    //  more is a flag: a value past 1 (the broker's, a newer one's) is kept
    //  as it came, as any uint8 of a message the broker sends; a negative
    //  one is refused
    s_raw_begin (&raw, DROVER_MSG_EVENT_LIST, 3, 1);
    msgpack_pack_array (&raw.pk, 0);
    msgpack_pack_uint8 (&raw.pk, 0);
    msgpack_pack_uint8 (&raw.pk, 2);
    drover_msg_t *list = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (list, RAW_DATA (raw), RAW_SIZE (raw)), 0);
    assert_int_equal (list->more, 2);
    assert_int_equal (list->nevents, 0);
    drover_msg_destroy (&list);
    testcodec_raw_destroy (&raw);
    s_raw_begin (&raw, DROVER_MSG_EVENT_LIST, 3, 1);
    msgpack_pack_array (&raw.pk, 0);
    msgpack_pack_uint8 (&raw.pk, 0);
    msgpack_pack_int8 (&raw.pk, -1);
    s_assert_raw_refused (&raw, "more");
    //  1000 events claimed, each a 1-byte nil: refused unallocated
    s_raw_begin (&raw, DROVER_MSG_EVENT_LIST, 3, 1);
    msgpack_pack_array (&raw.pk, DROVER_REPLAY_MAX);
    for (int index = 0; index < DROVER_REPLAY_MAX; index++)
        msgpack_pack_nil (&raw.pk);
    msgpack_pack_uint8 (&raw.pk, 0);
    msgpack_pack_uint8 (&raw.pk, 0);
    size_t largest = s_refused_costs (RAW_DATA (raw), RAW_SIZE (raw));
    if (largest > RAW_SIZE (raw))
        fail_msg ("EVENT LIST of %zu bytes allocated %zu bytes at once", RAW_SIZE (raw), largest);
    testcodec_raw_destroy (&raw);
    //  The most events round-trip; one more does not encode
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_EVENT_LIST);
    msg->events = (drover_event_t *) zmalloc ((DROVER_REPLAY_MAX + 1) * sizeof (drover_event_t));
    for (int index = 0; index <= DROVER_REPLAY_MAX; index++) {
        msg->events [index] = (drover_event_t) { .seq = index + 1, .topic = "worker.up",
                                                 .worker = "w" };
        memset (msg->events [index].reason, 'r', DROVER_REASON_MAX);
    }
    msg->nevents = DROVER_REPLAY_MAX;
    drover_msg_t *copy = drover_msg_new (0);
    s_assert_roundtrip (msg, copy);
    msg->nevents = DROVER_REPLAY_MAX + 1;
    assert_null (drover_msg_encode (msg));
    drover_msg_destroy (&copy);
    drover_msg_destroy (&msg);
}

//  ---------------------------------------------------------------------
//  Refusals

//  Every prefix of every valid message is refused
static void
test_truncated_at_every_length (void **state)
{
    for (int id = 1; id <= DROVER_MSG_ID_MAX; id++) {
        drover_msg_t *msg = s_filled (id);
        size_t size;
        byte *data = s_encode (msg, &size);
        for (size_t length = 0; length < size; length++) {
            //  Copy into an exact-size buffer so ASan sees any over-read
            byte *prefix = (byte *) malloc (length? length: 1);
            memcpy (prefix, data, length);
            s_refused (length? prefix: NULL, length);
            free (prefix);
        }
        free (data);
        drover_msg_destroy (&msg);
    }
}

static void
test_oversized_fields (void **state)
{
    testcodec_raw_t raw;
    char text [DROVER_STRING_MAX + 2];
    memset (text, 'x', sizeof text);

    //  Worker id of 65 bytes: the encoder refuses it, and so does the decoder
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_WORKER_GOODBYE);
    memset (msg->worker, 'x', sizeof msg->worker);
    assert_null (drover_msg_encode (msg));
    msg->worker [0] = 0;
    assert_null (drover_msg_encode (msg));      //  and an empty one
    drover_msg_destroy (&msg);
    s_raw_begin (&raw, DROVER_MSG_WORKER_GOODBYE, 2, 1);
    testcodec_raw_str (&raw, text, DROVER_ID_MAX + 1);
    msgpack_pack_uint8 (&raw.pk, 1);
    s_assert_raw_refused (&raw, "worker: out of range");

    //  17 labels
    s_raw_begin (&raw, DROVER_MSG_TASK_SUBMIT, 8, 1);
    msgpack_pack_int (&raw.pk, 0);
    msgpack_pack_int (&raw.pk, 1);
    msgpack_pack_int (&raw.pk, 0);
    msgpack_pack_array (&raw.pk, DROVER_LABELS_MAX + 1);
    for (int index = 0; index <= DROVER_LABELS_MAX; index++)
        testcodec_raw_str (&raw, "a=b", 3);
    for (int index = 0; index < 3; index++)
        msgpack_pack_int (&raw.pk, 0);
    msgpack_pack_bin (&raw.pk, 0);
    s_assert_raw_refused (&raw, "labels: out of range");

    //  A label past 128 bytes
    msg = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    char label [DROVER_LABEL_MAX + 2];
    memset (label, 'v', sizeof label);
    label [0] = 'k';
    label [1] = '=';
    label [DROVER_LABEL_MAX + 1] = 0;
    assert_int_equal (drover_msg_add_label (msg, label), -1);
    label [DROVER_LABEL_MAX] = 0;
    assert_int_equal (drover_msg_add_label (msg, label), 0);
    drover_msg_destroy (&msg);

    //  Reason past 256 bytes: the encoder refuses, so does the decoder
    msg = drover_msg_new (DROVER_MSG_ERROR);
    msg->reason = strndup (text, DROVER_REASON_MAX + 1);
    assert_null (drover_msg_encode (msg));
    drover_msg_destroy (&msg);
    s_raw_begin (&raw, DROVER_MSG_ERROR, 2, 1);
    msgpack_pack_uint16 (&raw.pk, 400);
    testcodec_raw_str (&raw, text, DROVER_REASON_MAX + 1);
    s_assert_raw_refused (&raw, "reason: out of range");

    //  Output past 1 MiB
    byte *big = (byte *) zmalloc (DROVER_BODY_MAX + 1);
    msg = drover_msg_new (DROVER_MSG_TASK_RESULT);
    strcpy (msg->worker, "w");
    drover_msg_set_output (msg, big, DROVER_OUTPUT_MAX + 1, NULL, 0);
    assert_null (drover_msg_encode (msg));
    drover_msg_destroy (&msg);
    s_raw_begin (&raw, DROVER_MSG_TASK_RESULT, 11, 1);
    testcodec_raw_str (&raw, "w", 1);
    for (int index = 0; index < 7; index++)
        msgpack_pack_int (&raw.pk, 0);
    msgpack_pack_bin_with_body (&raw.pk, big, DROVER_OUTPUT_MAX + 1);
    msgpack_pack_bin (&raw.pk, 0);
    testcodec_raw_str (&raw, "", 0);
    s_assert_raw_refused (&raw, "out: out of range");

    //  Body past 2 MiB
    s_raw_begin (&raw, DROVER_MSG_TASK_OFFER, 7, 1);
    for (int index = 0; index < 6; index++)
        msgpack_pack_int (&raw.pk, 1);
    msgpack_pack_bin_with_body (&raw.pk, big, DROVER_BODY_MAX + 1);
    s_assert_raw_refused (&raw, "body: out of range");
    free (big);

    //  An array claiming 2^32-1 elements in 5 bytes, alone and as a field
    s_assert_refused ((const byte *) "\xdd\xff\xff\xff\xff", 5, "truncated");
    s_raw_begin (&raw, DROVER_MSG_TASK_WAIT, 1, 1);
    msgpack_sbuffer_write (&raw.buffer, "\xdd\xff\xff\xff\xff", 5);
    s_assert_raw_refused (&raw, "truncated");
    //  ... and a str and a bin claiming 4 GiB
    s_raw_begin (&raw, DROVER_MSG_ERROR, 2, 1);
    msgpack_pack_uint16 (&raw.pk, 400);
    msgpack_sbuffer_write (&raw.buffer, "\xdb\xff\xff\xff\xff", 5);
    s_assert_raw_refused (&raw, "truncated");
    s_assert_refused ((const byte *) "\xc6\xff\xff\xff\xff", 5, "message: wrong type");
    s_raw_begin (&raw, DROVER_MSG_TASK_OFFER, 7, 1);
    for (int index = 0; index < 6; index++)
        msgpack_pack_int (&raw.pk, 1);
    msgpack_sbuffer_write (&raw.buffer, "\xc6\xff\xff\xff\xff", 5);
    s_assert_raw_refused (&raw, "truncated");

    //  A TASK WAIT past its limit, and a message past DROVER_MSG_MAX
    s_raw_begin (&raw, DROVER_MSG_TASK_WAIT, 1, 1);
    msgpack_pack_array (&raw.pk, DROVER_WAIT_MAX + 1);
    for (int index = 0; index <= DROVER_WAIT_MAX; index++)
        msgpack_pack_int (&raw.pk, index);
    s_assert_raw_refused (&raw, "tasks: out of range");
    byte *huge = (byte *) zmalloc (DROVER_MSG_MAX + 1);
    s_assert_refused (huge, DROVER_MSG_MAX + 1, "too large");
    free (huge);

    //  The encoder refuses the same things
    msg = drover_msg_new (DROVER_MSG_TASK_WAIT);
    msg->ntasks = DROVER_WAIT_MAX + 1;
    msg->tasks = (uint64_t *) zmalloc (msg->ntasks * sizeof (uint64_t));
    assert_null (drover_msg_encode (msg));
    drover_msg_destroy (&msg);
    msg = drover_msg_new (DROVER_MSG_TASK_LIST);
    msg->state = DROVER_TASK_STATES;
    assert_null (drover_msg_encode (msg));
    msg->state = 255;
    zframe_t *frame = drover_msg_encode (msg);
    assert_non_null (frame);
    zframe_destroy (&frame);
    msg->id = 0;
    assert_null (drover_msg_encode (msg));
    msg->id = DROVER_MSG_ID_MAX + 1;
    assert_null (drover_msg_encode (msg));
    drover_msg_destroy (&msg);
}

//  Replace node `target` (pre-order) of a msgpack object with a value of
//  a type no field in that position accepts; counts nodes in *index
static void
s_pack_with_wrong_type (msgpack_packer *pk, const msgpack_object *object, int target, int *index)
{
    if ((*index)++ == target) {
        switch (object->type) {
            case MSGPACK_OBJECT_POSITIVE_INTEGER:
            case MSGPACK_OBJECT_NEGATIVE_INTEGER:
            case MSGPACK_OBJECT_FLOAT32:
            case MSGPACK_OBJECT_FLOAT64:
            case MSGPACK_OBJECT_BIN:
            case MSGPACK_OBJECT_NIL:
                msgpack_pack_str_with_body (pk, "x", 1);
                break;
            case MSGPACK_OBJECT_STR:
            case MSGPACK_OBJECT_ARRAY:
            case MSGPACK_OBJECT_MAP:
                msgpack_pack_true (pk);
                break;
            default:
                fail_msg ("unexpected object type %d", object->type);
        }
        //  Still count the replaced node's children, so indexes stay stable
        if (object->type == MSGPACK_OBJECT_ARRAY)
            for (uint32_t item = 0; item < object->via.array.size; item++) {
                msgpack_sbuffer sink;
                msgpack_sbuffer_init (&sink);
                msgpack_packer discard;
                msgpack_packer_init (&discard, &sink, msgpack_sbuffer_write);
                s_pack_with_wrong_type (&discard, &object->via.array.ptr [item], -1, index);
                msgpack_sbuffer_destroy (&sink);
            }
        return;
    }
    if (object->type == MSGPACK_OBJECT_ARRAY) {
        msgpack_pack_array (pk, object->via.array.size);
        for (uint32_t item = 0; item < object->via.array.size; item++)
            s_pack_with_wrong_type (pk, &object->via.array.ptr [item], target, index);
    }
    else
        msgpack_pack_object (pk, *object);
}

//  Every element of every message, at every depth, given a wrong type
static void
test_wrong_type_everywhere (void **state)
{
    int tried = 0;
    for (int id = 1; id <= DROVER_MSG_ID_MAX; id++) {
        drover_msg_t *msg = s_filled (id);
        size_t size;
        byte *data = s_encode (msg, &size);
        //  msgpack_unpack is fine here: these are our own bytes
        msgpack_unpacked unpacked;
        msgpack_unpacked_init (&unpacked);
        size_t offset = 0;
        assert_int_equal (msgpack_unpack_next (&unpacked, (const char *) data, size, &offset),
                          MSGPACK_UNPACK_SUCCESS);
        int nodes = 0;
        testcodec_raw_t raw;
        testcodec_raw_init (&raw);
        s_pack_with_wrong_type (&raw.pk, &unpacked.data, -1, &nodes);
        assert_int_equal (RAW_SIZE (raw), size);            //  identity when nothing replaced
        assert_memory_equal (RAW_DATA (raw), data, size);
        testcodec_raw_destroy (&raw);
        for (int target = 0; target < nodes; target++) {
            testcodec_raw_init (&raw);
            int index = 0;
            s_pack_with_wrong_type (&raw.pk, &unpacked.data, target, &index);
            const char *error = s_refused (RAW_DATA (raw), RAW_SIZE (raw));
            //  Header nodes give their own errors; fields say "wrong type",
            //  except that a table whose row became a one-byte scalar may
            //  be too short for its row count (rows have a minimum size),
            //  and so may a TASK LIST whose labels, its last field, lost
            //  one to a one-byte scalar (labels have a minimum size too)
            bool table = id == DROVER_MSG_TASK_TABLE || id == DROVER_MSG_WORKER_TABLE
                      || id == DROVER_MSG_TASK_LIST;
            if (target > 4 && !strstr (error, "wrong type")
            &&  !(table && strstr (error, "runs past the end")))
                fail_msg ("%s node %d: error \"%s\"", drover_msg_name (id), target, error);
            testcodec_raw_destroy (&raw);
            tried++;
        }
        msgpack_unpacked_destroy (&unpacked);
        free (data);
        drover_msg_destroy (&msg);
    }
    assert_true (tried > 150);
}

static void
test_version_signature_and_id (void **state)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_TASK_CANCEL);
    msg->seq = 31337;
    msg->task = 5;
    size_t size;
    byte *data = s_encode (msg, &size);
    drover_msg_destroy (&msg);
    assert_int_equal (data [5], 1);             //  version byte, after fixstr "DRV"

    //  Unknown version: -2, "unknown version", bad_version, seq still read
    msg = drover_msg_new (0);
    for (int version = 0; version < 256; version++) {
        if (version == 1)
            continue;
        data [5] = (byte) version;
        assert_int_equal (drover_msg_decode (msg, data, size), -2);
        assert_non_null (msg->error);
        if (version < 0x80 || version >= 0xe0) {    //  one-byte integers, negative too
            assert_string_equal (msg->error, "unknown version");
            assert_true (msg->bad_version);
            assert_int_equal (msg->seq, 31337);
            assert_int_equal (msg->id, DROVER_MSG_TASK_CANCEL);
        }
    }
    //  A version that is not an integer is malformed, not unknown
    data [5] = 0xc0;
    assert_int_equal (drover_msg_decode (msg, data, size), -2);
    assert_false (msg->bad_version);
    assert_string_equal (msg->error, "version: wrong type");
    data [5] = 1;
    assert_int_equal (drover_msg_decode (msg, data, size), 0);
    assert_false (msg->bad_version);
    //  A later version may change everything after the header: still 426
    testcodec_raw_t raw;
    testcodec_raw_init (&raw);
    msgpack_pack_array (&raw.pk, 5);
    testcodec_raw_str (&raw, "DRV", 3);
    msgpack_pack_uint8 (&raw.pk, 2);
    msgpack_pack_uint8 (&raw.pk, 99);
    msgpack_pack_uint8 (&raw.pk, 9);
    msgpack_pack_array (&raw.pk, 1);            //  deeper than v1 allows
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 0);
    assert_int_equal (drover_msg_decode (msg, RAW_DATA (raw), RAW_SIZE (raw)), -2);
    assert_true (msg->bad_version);
    assert_int_equal (msg->seq, 9);
    testcodec_raw_destroy (&raw);

    //  Wrong signatures: not bad_version
    const char *signatures [] = { "DRX", "DR", "DRVV", "drv", "" };
    for (size_t index = 0; index < sizeof signatures / sizeof signatures [0]; index++) {
        testcodec_raw_init (&raw);
        msgpack_pack_array (&raw.pk, 5);
        testcodec_raw_str (&raw, signatures [index], strlen (signatures [index]));
        msgpack_pack_uint8 (&raw.pk, 1);
        msgpack_pack_uint8 (&raw.pk, DROVER_MSG_TASK_CANCEL);
        msgpack_pack_uint8 (&raw.pk, 1);
        msgpack_pack_uint8 (&raw.pk, 1);
        assert_int_equal (drover_msg_decode (msg, RAW_DATA (raw), RAW_SIZE (raw)), -2);
        assert_string_equal (msg->error, "message: wrong signature");
        assert_false (msg->bad_version);
        testcodec_raw_destroy (&raw);
    }
    s_assert_refused ((const byte *) "\x95\xc0\x01\x0e\x01\x01", 6, "wrong signature");
    s_assert_refused ((const byte *) "\x95\xc4\x03" "DRV\x01\x0e\x01\x01", 9, "wrong signature");
    s_assert_refused ((const byte *) "\x80", 1, "message: wrong type");   //  a map
    s_assert_refused ((const byte *) "\x90", 1, "wrong signature");       //  empty array
    s_assert_refused ((const byte *) "\x92\xa3" "DRV\x01", 6, "header incomplete");

    //  Unknown message ids, with the seq still read for the reply
    uint64_t ids [] = { 0, DROVER_MSG_ID_MAX + 1, 99, 255, 1ull << 32, UINT64_MAX };
    for (size_t index = 0; index < sizeof ids / sizeof ids [0]; index++) {
        testcodec_raw_init (&raw);
        msgpack_pack_array (&raw.pk, 5);
        testcodec_raw_str (&raw, "DRV", 3);
        msgpack_pack_uint8 (&raw.pk, 1);
        msgpack_pack_uint64 (&raw.pk, ids [index]);
        msgpack_pack_uint8 (&raw.pk, 77);
        msgpack_pack_uint8 (&raw.pk, 1);
        assert_int_equal (drover_msg_decode (msg, RAW_DATA (raw), RAW_SIZE (raw)), -2);
        assert_non_null (strstr (msg->error, "message id"));
        assert_int_equal (msg->id, 0);
        if (ids [index] <= UINT32_MAX)
            assert_int_equal (msg->seq, 77);
        testcodec_raw_destroy (&raw);
    }
    //  Right id, wrong number of fields
    s_raw_begin (&raw, DROVER_MSG_TASK_CANCEL, 2, 3);
    msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_uint8 (&raw.pk, 1);
    assert_int_equal (drover_msg_decode (msg, RAW_DATA (raw), RAW_SIZE (raw)), -2);
    assert_non_null (strstr (msg->error, "wrong number of fields"));
    assert_int_equal (msg->id, DROVER_MSG_TASK_CANCEL);   //  kept for the broker's reply
    assert_int_equal (msg->seq, 3);
    testcodec_raw_destroy (&raw);
    drover_msg_destroy (&msg);
    free (data);
}

static void
test_depth_trailing_and_nul (void **state)
{
    //  Labels nested past depth 4: message > labels > [ > [ > [
    testcodec_raw_t raw;
    s_raw_begin (&raw, DROVER_MSG_WORKER_HELLO, 6, 1);
    testcodec_raw_str (&raw, "w", 1);
    for (int index = 0; index < 3; index++)
        msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 0);
    msgpack_pack_array (&raw.pk, 0);
    s_assert_raw_refused (&raw, "nesting");
    //  Depth 4 is the limit: a worker table row's labels are at 4
    drover_msg_t *msg = s_filled (DROVER_MSG_WORKER_TABLE);
    zframe_t *frame = drover_msg_encode (msg);
    assert_non_null (frame);
    assert_int_equal (drover_msg_decode (msg, zframe_data (frame), zframe_size (frame)), 0);
    zframe_destroy (&frame);
    drover_msg_destroy (&msg);
    //  A thousand nested arrays: refused at depth 5, no recursion
    byte deep [1000];
    memset (deep, 0x91, sizeof deep);
    s_assert_refused (deep, sizeof deep, "wrong signature");
    s_raw_begin (&raw, DROVER_MSG_TASK_WAIT, 1, 1);
    msgpack_sbuffer_write (&raw.buffer, (const char *) deep, sizeof deep);
    s_assert_raw_refused (&raw, "nesting");

    //  Trailing bytes after a valid message
    msg = s_filled (DROVER_MSG_TASK_KILL);
    size_t size;
    byte *data = s_encode (msg, &size);
    byte *longer = (byte *) malloc (size + 1);
    memcpy (longer, data, size);
    longer [size] = 0xc0;
    s_assert_refused (longer, size + 1, "trailing");
    free (longer);
    free (data);
    drover_msg_destroy (&msg);

    //  NUL inside strings: reason, worker id, label
    s_raw_begin (&raw, DROVER_MSG_OK, 2, 1);
    msgpack_pack_uint8 (&raw.pk, 200);
    testcodec_raw_str (&raw, "a\0b", 3);
    s_assert_raw_refused (&raw, "reason: contains NUL");
    s_raw_begin (&raw, DROVER_MSG_WORKER_GOODBYE, 2, 1);
    testcodec_raw_str (&raw, "w\0", 2);
    msgpack_pack_uint8 (&raw.pk, 1);
    s_assert_raw_refused (&raw, "worker: contains NUL");
    s_raw_begin (&raw, DROVER_MSG_WORKER_ADMIN, 2, 1);
    testcodec_raw_str (&raw, "has space", 9);
    msgpack_pack_uint8 (&raw.pk, 1);
    s_assert_raw_refused (&raw, "worker: not a valid worker id");
    s_raw_begin (&raw, DROVER_MSG_TASK_SUBMIT, 8, 1);
    for (int index = 0; index < 3; index++)
        msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 1);
    testcodec_raw_str (&raw, "k=v\0", 4);
    for (int index = 0; index < 3; index++)
        msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_bin (&raw.pk, 0);
    s_assert_raw_refused (&raw, "labels: contains NUL");

    //  Enums out of range
    s_raw_begin (&raw, DROVER_MSG_WORKER_ADMIN, 2, 1);
    testcodec_raw_str (&raw, "w", 1);
    msgpack_pack_uint8 (&raw.pk, DROVER_ADMIN_MAX + 1);
    s_assert_raw_refused (&raw, "admin: out of range");
    s_raw_begin (&raw, DROVER_MSG_TASK_LIST, 2, 1);
    msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_uint8 (&raw.pk, DROVER_TASK_STATES);
    s_assert_raw_refused (&raw, "state: out of range");
    //  Ext types and 0xc1 anywhere
    s_raw_begin (&raw, DROVER_MSG_TASK_CANCEL, 1, 1);
    msgpack_sbuffer_write (&raw.buffer, "\xd4\x01\x02", 3);
    s_assert_raw_refused (&raw, "ext");
    s_raw_begin (&raw, DROVER_MSG_TASK_CANCEL, 1, 1);
    msgpack_sbuffer_write (&raw.buffer, "\xc1", 1);
    s_assert_raw_refused (&raw, "0xc1");
    //  Loads that are not finite or are negative
    msg = s_filled (DROVER_MSG_WORKER_HEARTBEAT);
    data = s_encode (msg, &size);
    drover_msg_destroy (&msg);
    byte *load = NULL;
    for (size_t index = 0; index + 9 <= size && !load; index++)
        if (data [index] == 0xcb)
            load = data + index;                //  the first load, as float 64
    assert_non_null (load);
    const byte bad_loads [][8] = {
        { 0x7f, 0xf8, 0, 0, 0, 0, 0, 0 },       //  NaN
        { 0x7f, 0xf0, 0, 0, 0, 0, 0, 0 },       //  +inf
        { 0xbf, 0xf0, 0, 0, 0, 0, 0, 0 },       //  -1.0
    };
    for (int index = 0; index < 3; index++) {
        memcpy (load + 1, bad_loads [index], 8);
        s_assert_refused (data, size, "stats: out of range");
    }
    free (data);
    //  ... and the encoder writes 0 for them rather than failing a heartbeat
    msg = s_filled (DROVER_MSG_WORKER_HEARTBEAT);
    msg->stats.load [0] = NAN;
    msg->stats.load [1] = -INFINITY;
    data = s_encode (msg, &size);
    assert_int_equal (drover_msg_decode (msg, data, size), 0);
    assert_true (msg->stats.load [0] == 0 && msg->stats.load [1] == 0);
    free (data);
    drover_msg_destroy (&msg);
}

//  Whatever decode accepts must encode again and decode to the same, but
//  for a message from the broker that holds a value this version does not
//  know: the encoder refuses to send that on
static void
s_check_accepted (drover_msg_t *msg)
{
    zframe_t *frame = drover_msg_encode (msg);
    if (!frame && testcodec_from_broker (msg->id) && testcodec_holds_unknown_value (msg))
        return;
    if (!frame)
        fail_msg ("%s decoded but does not encode", drover_msg_name (msg->id));
    drover_msg_t *again = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (again, zframe_data (frame), zframe_size (frame)), 0);
    s_assert_same (msg, again);
    drover_msg_destroy (&again);
    zframe_destroy (&frame);
}

static void
test_random_bytes (void **state)
{
    drover_msg_t *msg = drover_msg_new (0);
    testcodec_seed (42);
    int accepted = 0;
    for (int count = 0; count < 100000; count++) {
        size_t size;
        byte *data = testcodec_random_bytes (count, &size);
        int rc = drover_msg_decode (msg, data, size);
        assert_true (rc == 0 || rc == -2);
        if (rc == 0) {
            accepted++;
            s_check_accepted (msg);
        }
        else
            assert_non_null (msg->error);
        free (data);
    }
    //  LEAVE and WORKER LIST have no fields: random tails make some valid
    print_message ("random: %d of 100000 buffers decoded as valid messages\n", accepted);
    drover_msg_destroy (&msg);
}

//  Flip, zero and randomise every byte of every valid message
static void
test_mutations_of_valid_messages (void **state)
{
    testcodec_seed (7);
    drover_msg_t *decoded = drover_msg_new (0);
    int accepted = 0, refused = 0;
    for (int id = 1; id <= DROVER_MSG_ID_MAX; id++) {
        drover_msg_t *msg = s_filled (id);
        size_t size;
        byte *data = s_encode (msg, &size);
        byte *mutant = (byte *) malloc (size);
        for (size_t index = 0; index < size; index++) {
            byte values [] = { (byte) ~data [index], 0x00, 0xff, 0x7f, 0x80, 0xc1, 0xdd,
                               (byte) (data [index] + 1), (byte) (data [index] - 1),
                               (byte) testcodec_random () };
            for (size_t value = 0; value < sizeof values; value++) {
                if (values [value] == data [index])
                    continue;
                memcpy (mutant, data, size);
                mutant [index] = values [value];
                int rc = drover_msg_decode (decoded, mutant, size);
                if (rc == 0) {
                    accepted++;
                    s_check_accepted (decoded);
                }
                else {
                    assert_int_equal (rc, -2);
                    assert_non_null (decoded->error);
                    refused++;
                }
            }
        }
        free (mutant);
        free (data);
        drover_msg_destroy (&msg);
    }
    print_message ("mutations: %d accepted (still valid), %d refused\n", accepted, refused);
    assert_true (refused > 0);
    drover_msg_destroy (&decoded);
}


//  ---------------------------------------------------------------------
//  Setters, names, validity, and the socket helpers

static void
test_setters_and_names (void **state)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_ERROR);
    //  Reason cut at 256 bytes, and back to a UTF-8 boundary
    char reason [400];
    memset (reason, 'a', sizeof reason);
    reason [sizeof reason - 1] = 0;
    drover_msg_set_reason (msg, reason);
    assert_int_equal (strlen (msg->reason), DROVER_REASON_MAX);
    memcpy (reason + 255, "\xc3\xa9", 2);      //  "é" straddles the cut
    drover_msg_set_reason (msg, reason);
    assert_int_equal (strlen (msg->reason), 255);
    drover_msg_set_reason (msg, NULL);
    assert_null (msg->reason);
    drover_msg_set_body (msg, (const byte *) "abc", 3);
    drover_msg_set_body (msg, (const byte *) "de", 2);
    assert_int_equal (msg->body_size, 2);
    assert_memory_equal (msg->body, "de", 2);
    drover_msg_set_body (msg, NULL, 0);
    assert_null (msg->body);
    drover_msg_set_output (msg, (const byte *) "o", 1, NULL, 5);
    assert_int_equal (msg->out_size, 1);
    assert_null (msg->err);
    assert_int_equal (msg->err_size, 0);
    drover_msg_reset (msg);
    assert_int_equal (msg->id, 0);
    assert_null (msg->out);
    drover_msg_destroy (&msg);
    drover_msg_destroy (&msg);                  //  harmless twice

    assert_string_equal (drover_msg_name (DROVER_MSG_TASK_SUBMIT), "TASK SUBMIT");
    assert_string_equal (drover_msg_name (DROVER_MSG_ERROR), "ERROR");
    assert_string_equal (drover_msg_name (0), "INVALID");
    assert_string_equal (drover_msg_name (99), "INVALID");
    assert_string_equal (drover_task_state_name (DROVER_TASK_SUCCEEDED), "SUCCEEDED");
    assert_string_equal (drover_task_state_name (-1), "INVALID");
    assert_string_equal (drover_worker_health_name (DROVER_HEALTH_PROBATION), "PROBATION");
    assert_string_equal (drover_admin_name (DROVER_ADMIN_DRAIN), "DRAIN");
    assert_string_equal (drover_outcome_name (DROVER_OUTCOME_TIMEDOUT), "TIMEDOUT");
    assert_string_equal (drover_outcome_name (DROVER_OUTCOME_MAX + 1), "INVALID");

    assert_true (drover_id_valid ("node-1.example.com"));
    assert_true (drover_id_valid ("x"));
    assert_false (drover_id_valid (""));
    assert_false (drover_id_valid (NULL));
    assert_false (drover_id_valid ("a b"));
    assert_false (drover_id_valid ("tab\there"));
    assert_false (drover_id_valid ("caf\xc3\xa9"));
    char id [DROVER_ID_MAX + 2];
    memset (id, 'i', sizeof id);
    id [DROVER_ID_MAX] = 0;
    assert_true (drover_id_valid (id));
    id [DROVER_ID_MAX] = 'i';
    id [DROVER_ID_MAX + 1] = 0;
    assert_false (drover_id_valid (id));

    assert_true (drover_label_valid ("gpu=a100"));
    assert_true (drover_label_valid ("os.family_x-1=linux 6.1"));
    assert_true (drover_label_valid ("empty="));
    assert_false (drover_label_valid ("=value"));
    assert_false (drover_label_valid ("novalue"));
    assert_false (drover_label_valid ("sp ace=x"));
    assert_false (drover_label_valid ("k=line\nbreak"));
    assert_false (drover_label_valid (NULL));
    char label [80];
    memset (label, 'k', sizeof label);
    strcpy (label + 63, "=v");
    assert_true (drover_label_valid (label));
    memset (label, 'k', sizeof label);
    strcpy (label + 64, "=v");                  //  key of 64 bytes
    assert_false (drover_label_valid (label));
}

static void
test_send_and_recv (void **state)
{
    zsock_t *server = zsock_new_dealer ("@inproc://test-drover-msg");
    zsock_t *client = zsock_new_dealer (">inproc://test-drover-msg");
    assert_non_null (server);
    assert_non_null (client);
    drover_msg_t *msg = s_filled (DROVER_MSG_TASK_RESULT);
    assert_int_equal (drover_msg_send (msg, client), 0);
    drover_msg_t *got = drover_msg_new (0);
    assert_int_equal (drover_msg_recv (got, server), 0);
    s_assert_same (msg, got);

    //  Two frames: refused, and the next message is read whole
    zstr_sendm (client, "one");
    zstr_send (client, "two");
    assert_int_equal (drover_msg_send (msg, client), 0);
    assert_int_equal (drover_msg_recv (got, server), -2);
    assert_string_equal (got->error, "more than one frame");
    assert_int_equal (drover_msg_recv (got, server), 0);
    s_assert_same (msg, got);

    //  A message that cannot be encoded is not sent
    msg->outcome = DROVER_OUTCOME_MAX + 1;
    assert_int_equal (drover_msg_send (msg, client), -1);
    zstr_send (client, "garbage");
    assert_int_equal (drover_msg_recv (got, server), -2);
    assert_non_null (got->error);
    drover_msg_destroy (&got);
    drover_msg_destroy (&msg);
    zsock_destroy (&client);
    zsock_destroy (&server);
}

//  REDIRECT: the leader's endpoint and name at their limits, empty (no
//  leader known), and every way they can be wrong
static void
test_redirect_fields (void **state)
{
    //  At the limits, and empty: both decode as sent
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_REDIRECT);
    drover_msg_t *copy = drover_msg_new (0);
    msg->seq = 9;
    memset (msg->leader, 'e', DROVER_ENDPOINT_MAX);
    memset (msg->leader_name, 'n', DROVER_ID_MAX);
    s_assert_roundtrip (msg, copy);
    msg->leader [0] = 0;
    msg->leader_name [0] = 0;
    msg->seq = 0;                       //  the answer to a HEARTBEAT
    s_assert_roundtrip (msg, copy);
    assert_string_equal (copy->leader, "");
    assert_string_equal (copy->leader_name, "");
    drover_msg_destroy (&msg);
    drover_msg_destroy (&copy);
    assert_string_equal (drover_msg_name (DROVER_MSG_REDIRECT), "REDIRECT");

    //  Refused on the way in: too long, not a string, missing
    char long_text [DROVER_ENDPOINT_MAX + 1];
    memset (long_text, 'x', sizeof long_text);
    testcodec_raw_t raw;
    s_raw_begin (&raw, DROVER_MSG_REDIRECT, 2, 5);
    testcodec_raw_str (&raw, long_text, DROVER_ENDPOINT_MAX + 1);
    testcodec_raw_str (&raw, "b2", 2);
    s_assert_raw_refused (&raw, "leader");
    s_raw_begin (&raw, DROVER_MSG_REDIRECT, 2, 5);
    testcodec_raw_str (&raw, "tcp://a:1", 9);
    testcodec_raw_str (&raw, long_text, DROVER_ID_MAX + 1);
    s_assert_raw_refused (&raw, "leader_name");
    s_raw_begin (&raw, DROVER_MSG_REDIRECT, 2, 5);
    testcodec_raw_str (&raw, "tcp://a\0:1", 10);
    testcodec_raw_str (&raw, "b2", 2);
    s_assert_raw_refused (&raw, "leader");
    s_raw_begin (&raw, DROVER_MSG_REDIRECT, 2, 5);
    msgpack_pack_bin_with_body (&raw.pk, "tcp://a:1", 9);
    testcodec_raw_str (&raw, "b2", 2);
    s_assert_raw_refused (&raw, "leader");
    s_raw_begin (&raw, DROVER_MSG_REDIRECT, 2, 5);
    testcodec_raw_str (&raw, "tcp://a:1", 9);
    msgpack_pack_nil (&raw.pk);
    s_assert_raw_refused (&raw, "leader_name");
    s_raw_begin (&raw, DROVER_MSG_REDIRECT, 1, 5);
    testcodec_raw_str (&raw, "tcp://a:1", 9);
    s_assert_raw_refused (&raw, "wrong number of fields");
    //  One field past them (a newer broker's) is passed over
    s_raw_begin (&raw, DROVER_MSG_REDIRECT, 3, 5);
    testcodec_raw_str (&raw, "tcp://a:1", 9);
    testcodec_raw_str (&raw, "b2", 2);
    testcodec_raw_str (&raw, "b3", 2);
    copy = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (copy, RAW_DATA (raw), RAW_SIZE (raw)), 0);
    assert_int_equal (copy->seq, 5);
    assert_string_equal (copy->leader, "tcp://a:1");
    assert_string_equal (copy->leader_name, "b2");
    drover_msg_destroy (&copy);
    testcodec_raw_destroy (&raw);
}

//  ---------------------------------------------------------------------
//  Protocol levels (PROTOCOL.md §12): a peer of level 1 speaks the protocol
//  as PROTOCOL.md stood at commit 4fe0aee (2026-11-23), and takes exactly
//  the field counts of that spec

//  The fields of each message of level 1, as that spec lists them
static const int
s_level_one_fields [DROVER_MSG_ERROR + 1] = {
    [DROVER_MSG_WORKER_HELLO]   = 6,    [DROVER_MSG_WORKER_HEARTBEAT] = 3,
    [DROVER_MSG_WORKER_GOODBYE] = 2,    [DROVER_MSG_WORKER_WELCOME]   = 1,
    [DROVER_MSG_WORKER_LEAVE]   = 0,    [DROVER_MSG_TASK_OFFER]       = 7,
    [DROVER_MSG_TASK_STARTED]   = 3,    [DROVER_MSG_TASK_RESULT]      = 11,
    [DROVER_MSG_TASK_KILL]      = 2,    [DROVER_MSG_TASK_SUBMIT]      = 8,
    [DROVER_MSG_TASK_ACCEPTED]  = 1,    [DROVER_MSG_TASK_WAIT]        = 1,
    [DROVER_MSG_TASK_DONE]      = 11,   [DROVER_MSG_TASK_CANCEL]      = 1,
    [DROVER_MSG_TASK_LIST]      = 2,    [DROVER_MSG_TASK_TABLE]       = 2,
    [DROVER_MSG_WORKER_LIST]    = 0,    [DROVER_MSG_WORKER_TABLE]     = 1,
    [DROVER_MSG_WORKER_ADMIN]   = 2,    [DROVER_MSG_OK]               = 2,
    [DROVER_MSG_ERROR]          = 2
};
#define S_L1_STATS          8       //  HEARTBEAT's and a worker row's stats
#define S_L1_PAIR           2       //  HELLO's running [task, attempt]
#define S_L1_COUNTS         7       //  TASK TABLE's counts, one per state
#define S_L1_TASK_ROW       7       //  [task, state, priority, procs, attempt, worker, summary]
#define S_L1_WORKER_ROW     9       //  [worker, health, admin, procs, procs_used, mem,
                                    //   mem_used, labels, stats]

//  Assert that object is a positive integer of at most max; returns it
static uint64_t
s_uint_at_most (const msgpack_object *object, uint64_t max)
{
    assert_true (object->type == MSGPACK_OBJECT_POSITIVE_INTEGER);
    if (object->via.u64 > max)
        fail_msg ("%" PRIu64 " is past %" PRIu64 ", the most level 1 knows",
                  object->via.u64, max);
    return object->via.u64;
}

//  Assert that object is an array of exactly count elements; returns them
static const msgpack_object *
s_array_of (const msgpack_object *object, uint32_t count)
{
    assert_true (object->type == MSGPACK_OBJECT_ARRAY);
    if (object->via.array.size != count)
        fail_msg ("an array of %u where level 1 has %u", object->via.array.size, count);
    return object->via.array.ptr;
}

//  Assert that object is an array of at most max elements; returns them
static const msgpack_object *
s_array_upto (const msgpack_object *object, uint32_t max)
{
    assert_true (object->type == MSGPACK_OBJECT_ARRAY);
    assert_true (object->via.array.size <= max);
    return object->via.array.ptr;
}

//  Assert that bytes are a message as strict a peer of level 1 takes it:
//  exactly 4 + the fields of its id, its records of the sizes that spec
//  gave them, its enum values in that spec's ranges. Returns the id.
static int
s_assert_level_one_shape (const byte *data, size_t size)
{
    msgpack_unpacked unpacked;
    msgpack_unpacked_init (&unpacked);
    size_t offset = 0;
    assert_int_equal (msgpack_unpack_next (&unpacked, (const char *) data, size, &offset),
                      MSGPACK_UNPACK_SUCCESS);
    assert_int_equal (offset, size);
    const msgpack_object *message = &unpacked.data;
    assert_true (message->type == MSGPACK_OBJECT_ARRAY && message->via.array.size >= 4);
    const msgpack_object *header = message->via.array.ptr;
    assert_int_equal (s_uint_at_most (&header [1], 1), 1);
    int id = (int) s_uint_at_most (&header [2], DROVER_MSG_ERROR);
    assert_true (id >= 1);
    const msgpack_object *field = s_array_of (message, 4 + s_level_one_fields [id]) + 4;
    if (id == DROVER_MSG_WORKER_HELLO) {
        s_array_upto (&field [4], DROVER_LABELS_MAX);
        const msgpack_object *pairs = s_array_upto (&field [5], DROVER_RUNNING_MAX);
        for (uint32_t index = 0; index < field [5].via.array.size; index++)
            s_array_of (&pairs [index], S_L1_PAIR);
    }
    else
    if (id == DROVER_MSG_WORKER_HEARTBEAT)
        s_array_of (&field [2], S_L1_STATS);
    else
    if (id == DROVER_MSG_TASK_RESULT)
        s_uint_at_most (&field [3], 4);                     //  outcome 0..4
    else
    if (id == DROVER_MSG_TASK_DONE)
        s_uint_at_most (&field [1], 6);                     //  state 0..6
    else
    if (id == DROVER_MSG_TASK_LIST) {
        uint64_t list_state = s_uint_at_most (&field [1], 255);
        assert_true (list_state <= 6 || list_state == 255);
    }
    else
    if (id == DROVER_MSG_TASK_TABLE) {
        s_array_of (&field [0], S_L1_COUNTS);
        const msgpack_object *rows = s_array_upto (&field [1], DROVER_ROWS_MAX);
        for (uint32_t index = 0; index < field [1].via.array.size; index++)
            s_uint_at_most (&s_array_of (&rows [index], S_L1_TASK_ROW) [1], 6);
    }
    else
    if (id == DROVER_MSG_WORKER_TABLE) {
        const msgpack_object *rows = s_array_upto (&field [0], DROVER_ROWS_MAX);
        for (uint32_t index = 0; index < field [0].via.array.size; index++) {
            const msgpack_object *row = s_array_of (&rows [index], S_L1_WORKER_ROW);
            s_uint_at_most (&row [1], 2);                   //  health 0..2
            s_uint_at_most (&row [2], 2);                   //  admin 0..2
            s_array_upto (&row [7], DROVER_LABELS_MAX);
            s_array_of (&row [8], S_L1_STATS);
        }
    }
    else
    if (id == DROVER_MSG_WORKER_ADMIN)
        s_uint_at_most (&field [1], 2);                     //  admin 0..2
    msgpack_unpacked_destroy (&unpacked);
    return id;
}

//  Every message of level 1, encoded for a peer of level 1, has exactly
//  the shape that spec gave it; no later message can be encoded for it;
//  at this codec's level (or past it) encode_level is encode
static void
test_level_one_has_the_old_shapes (void **state)
{
    for (int id = 1; id <= DROVER_MSG_ID_MAX; id++) {
        drover_msg_t *msg = s_filled (id);
        assert_int_equal (drover_msg_id_level (id), id <= DROVER_MSG_ERROR? 1: 2);
        zframe_t *frame = drover_msg_encode_level (msg, 1);
        if (id > DROVER_MSG_ERROR) {
            assert_null (frame);
            assert_null (drover_msg_encode_level (msg, 0));    //  below 1 is 1
        }
        else {
            if (!frame)
                fail_msg ("%s does not encode at level 1", drover_msg_name (id));
            assert_int_equal (s_assert_level_one_shape (zframe_data (frame),
                                                        zframe_size (frame)), id);
            zframe_destroy (&frame);
        }
        zframe_t *now = drover_msg_encode (msg);
        for (int level = DROVER_MSG_LEVEL; level <= DROVER_MSG_LEVEL + 1; level++) {
            frame = drover_msg_encode_level (msg, level);
            assert_non_null (frame);
            assert_true (zframe_eq (frame, now));
            zframe_destroy (&frame);
        }
        zframe_destroy (&now);
        drover_msg_destroy (&msg);
    }
    assert_int_equal (drover_msg_id_level (0), 0);
    assert_int_equal (drover_msg_id_level (-1), 0);
    assert_int_equal (drover_msg_id_level (DROVER_MSG_ID_MAX + 1), 0);
    assert_int_equal (drover_msg_id_level (DROVER_MSG_CLIENT_HELLO), 2);

    //  The level-2 fields empty or full, the shape stays: a HELLO with no
    //  level or release set, a SUBMIT with all its later fields
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_WORKER_HELLO);
    strcpy (msg->worker, "w1");
    zframe_t *frame = drover_msg_encode_level (msg, 1);
    assert_int_equal (s_assert_level_one_shape (zframe_data (frame), zframe_size (frame)),
                      DROVER_MSG_WORKER_HELLO);
    zframe_destroy (&frame);
    drover_msg_destroy (&msg);
    msg = s_filled (DROVER_MSG_TASK_SUBMIT);
    assert_non_null (msg->key);
    frame = drover_msg_encode_level (msg, 1);
    assert_int_equal (s_assert_level_one_shape (zframe_data (frame), zframe_size (frame)),
                      DROVER_MSG_TASK_SUBMIT);
    zframe_destroy (&frame);
    drover_msg_destroy (&msg);
}

//  How a task in state ended, as far as a message of level 1 (which has
//  no outcome) lets a reader know
static uint8_t
s_end_of_level_one (uint8_t task_state)
{
    return task_state == DROVER_TASK_SUCCEEDED? DROVER_END_SUCCEEDED
         : task_state == DROVER_TASK_FAILED?    DROVER_END_FAILED
         : task_state == DROVER_TASK_CANCELLED? DROVER_END_CANCELLED
         : task_state == DROVER_TASK_UNKNOWN?   DROVER_END_UNKNOWN: DROVER_END_NONE;
}

//  Make msg what it reads as once sent at level 1: without what level 1
//  lacks (state id, the submit's later fields, a list's labels, an admin's
//  reason and flags, level and release, rows' later elements), with the
//  outcomes a reader derives, and LOW_DISK as PROBATION
static void
s_as_level_one (drover_msg_t *msg)
{
    msg->state_id [0] = 0;
    zstr_free (&msg->key);
    zstr_free (&msg->affinity);
    msg->service [0] = 0;
    msg->slot = 0;
    msg->level = 0;
    msg->release [0] = 0;
    if (msg->id == DROVER_MSG_TASK_LIST) {
        for (uint32_t label = 0; label < msg->nlabels; label++)
            zstr_free (&msg->labels [label]);
        msg->nlabels = 0;
    }
    if (msg->id == DROVER_MSG_WORKER_ADMIN) {
        zstr_free (&msg->reason);
        msg->flags = 0;
    }
    if (msg->id == DROVER_MSG_TASK_DONE)
        msg->end = s_end_of_level_one (msg->state);
    for (uint32_t index = 0; msg->task_rows && index < msg->nrows; index++) {
        drover_task_row_t *row = &msg->task_rows [index];
        row->end = s_end_of_level_one (row->state);
        row->owner [0] = 0;
        row->reason [0] = 0;
    }
    for (uint32_t index = 0; msg->worker_rows && index < msg->nrows; index++) {
        drover_worker_row_t *row = &msg->worker_rows [index];
        if (row->health == DROVER_HEALTH_LOW_DISK)
            row->health = DROVER_HEALTH_PROBATION;
        row->reserved = 0;
        row->state = DROVER_WORKER_UP;
        row->since = 0;
        zstr_free (&row->why);
        zstr_free (&row->admin_reason);
        row->admin_since = 0;
        row->probation_until = 0;
        row->tasks = 0;
    }
}

//  A message encoded for a peer of level 1 reads, with today's decoder, as
//  the same values but for what level 1 lacks; its outcome is derived from
//  its state; it says level 1
static void
test_level_one_reads_back (void **state)
{
    drover_msg_t *copy = drover_msg_new (0);
    for (int id = 1; id <= DROVER_MSG_ERROR; id++) {
        drover_msg_t *msg = s_filled (id);
        zframe_t *frame = drover_msg_encode_level (msg, 1);
        assert_non_null (frame);
        if (drover_msg_decode (copy, zframe_data (frame), zframe_size (frame)))
            fail_msg ("%s of level 1 does not decode: %s", drover_msg_name (id), copy->error);
        assert_int_equal (copy->implied, 1);
        assert_int_equal (drover_msg_level (copy), 1);
        assert_int_equal (copy->level, 0);
        assert_string_equal (copy->release, "");
        s_as_level_one (msg);
        s_assert_same (msg, copy);
        zframe_destroy (&frame);
        drover_msg_destroy (&msg);
    }
    //  Each state's outcome as level 1 leaves it, in TASK DONE and in a
    //  TASK TABLE row; the level-2 form keeps the outcome as it was
    const uint8_t pairs [][2] = {
        { DROVER_TASK_SUCCEEDED, DROVER_END_SUCCEEDED }, { DROVER_TASK_FAILED, DROVER_END_FAILED },
        { DROVER_TASK_FAILED, DROVER_END_TIMED_OUT }, { DROVER_TASK_FAILED, DROVER_END_SPAWN_FAILED },
        { DROVER_TASK_FAILED, DROVER_END_LOST }, { DROVER_TASK_FAILED, DROVER_END_POISON },
        { DROVER_TASK_CANCELLED, DROVER_END_CANCELLED }, { DROVER_TASK_UNKNOWN, DROVER_END_EXPIRED },
        { DROVER_TASK_UNKNOWN, DROVER_END_UNKNOWN }, { DROVER_TASK_QUEUED, DROVER_END_NONE },
        { DROVER_TASK_RUNNING, DROVER_END_NONE }
    };
    const uint8_t derived [] = { DROVER_END_SUCCEEDED, DROVER_END_FAILED, DROVER_END_FAILED,
                                 DROVER_END_FAILED, DROVER_END_FAILED, DROVER_END_FAILED,
                                 DROVER_END_CANCELLED, DROVER_END_UNKNOWN, DROVER_END_UNKNOWN,
                                 DROVER_END_NONE, DROVER_END_NONE };
    for (size_t index = 0; index < sizeof derived; index++) {
        drover_msg_t *done = drover_msg_new (DROVER_MSG_TASK_DONE);
        done->task = 5;
        done->state = pairs [index][0];
        done->end = pairs [index][1];
        drover_msg_t *table = drover_msg_new (DROVER_MSG_TASK_TABLE);
        table->nrows = 1;
        table->task_rows = (drover_task_row_t *) zmalloc (sizeof (drover_task_row_t));
        table->task_rows [0] = (drover_task_row_t) { .task = 6, .state = pairs [index][0],
                                                     .end = pairs [index][1],
                                                     .summary = strdup ("true") };
        for (int level = 1; level <= DROVER_MSG_LEVEL; level++) {
            uint8_t expected = level == 1? derived [index]: pairs [index][1];
            zframe_t *frame = drover_msg_encode_level (done, level);
            assert_int_equal (drover_msg_decode (copy, zframe_data (frame),
                                                 zframe_size (frame)), 0);
            assert_int_equal (copy->state, pairs [index][0]);
            assert_int_equal (copy->end, expected);
            assert_int_equal (copy->implied, level);
            zframe_destroy (&frame);
            frame = drover_msg_encode_level (table, level);
            assert_int_equal (drover_msg_decode (copy, zframe_data (frame),
                                                 zframe_size (frame)), 0);
            assert_int_equal (copy->task_rows [0].state, pairs [index][0]);
            assert_int_equal (copy->task_rows [0].end, expected);
            zframe_destroy (&frame);
        }
        drover_msg_destroy (&done);
        drover_msg_destroy (&table);
    }
    drover_msg_destroy (&copy);
}

//  drover_msg_fit: a frame for a peer of this level (or a later one) is
//  left as it is, the same frame; for a peer of level 1 it becomes the
//  level-1 encoding, and a message level 1 does not have (GATHER,
//  REDIRECT, ...) or one that does not decode is refused, left as it was
static void
test_fit_to_a_peer_level (void **state)
{
    for (int id = 1; id <= DROVER_MSG_ID_MAX; id++) {
        drover_msg_t *msg = s_filled (id);
        zframe_t *frame = drover_msg_encode (msg);
        zframe_t *original = frame;
        zframe_t *expected = zframe_dup (frame);
        assert_int_equal (drover_msg_fit (&frame, DROVER_MSG_LEVEL), 0);
        assert_ptr_equal (frame, original);
        assert_int_equal (drover_msg_fit (&frame, DROVER_MSG_LEVEL + 1), 0);
        assert_ptr_equal (frame, original);
        assert_true (zframe_eq (frame, expected));
        int rc = drover_msg_fit (&frame, 1);
        if (id <= DROVER_MSG_ERROR) {
            assert_int_equal (rc, 0);
            zframe_t *level_one = drover_msg_encode_level (msg, 1);
            assert_true (zframe_eq (frame, level_one));
            s_assert_level_one_shape (zframe_data (frame), zframe_size (frame));
            //  Fitting it again changes nothing
            assert_int_equal (drover_msg_fit (&frame, 1), 0);
            assert_true (zframe_eq (frame, level_one));
            zframe_destroy (&level_one);
        }
        else {
            assert_int_equal (rc, -1);
            assert_ptr_equal (frame, original);
            assert_true (zframe_eq (frame, expected));
        }
        zframe_destroy (&frame);
        zframe_destroy (&expected);
        drover_msg_destroy (&msg);
    }
    //  Named: the two a broker sends to every worker and every client
    int newer [] = { DROVER_MSG_WORKER_GATHER, DROVER_MSG_REDIRECT };
    for (size_t index = 0; index < 2; index++) {
        drover_msg_t *msg = s_filled (newer [index]);
        zframe_t *frame = drover_msg_encode (msg);
        zframe_t *original = frame;
        assert_int_equal (drover_msg_fit (&frame, 1), -1);
        assert_ptr_equal (frame, original);
        zframe_destroy (&frame);
        drover_msg_destroy (&msg);
    }
    //  A frame that does not decode (a TASK DONE cut short, bytes that are
    //  no message) is refused and left as it was
    drover_msg_t *msg = s_filled (DROVER_MSG_TASK_DONE);
    zframe_t *whole = drover_msg_encode (msg);
    zframe_t *frame = zframe_new (zframe_data (whole), zframe_size (whole) - 1);
    zframe_t *original = frame;
    assert_int_equal (drover_msg_fit (&frame, 1), -1);
    assert_ptr_equal (frame, original);
    assert_int_equal (zframe_size (frame), zframe_size (whole) - 1);
    zframe_destroy (&frame);
    frame = zframe_new ("garbage", 7);
    original = frame;
    assert_int_equal (drover_msg_fit (&frame, 1), -1);
    assert_ptr_equal (frame, original);
    zframe_destroy (&frame);
    zframe_destroy (&whole);
    drover_msg_destroy (&msg);
}

//  Raw WORKER HELLO of w1 with nfields fields: the 6 of level 1, then a
//  state id "", the level, a release, and fields past those
static void
s_raw_hello (testcodec_raw_t *raw, size_t nfields, uint64_t level)
{
    s_raw_begin (raw, DROVER_MSG_WORKER_HELLO, nfields, 1);
    testcodec_raw_str (raw, "w1", 2);
    msgpack_pack_uint8 (&raw->pk, 1);               //  epoch
    msgpack_pack_uint8 (&raw->pk, 2);               //  procs
    msgpack_pack_uint8 (&raw->pk, 0);               //  mem
    msgpack_pack_array (&raw->pk, 0);               //  labels
    msgpack_pack_array (&raw->pk, 0);               //  running
    if (nfields > 6)
        testcodec_raw_str (raw, "", 0);             //  state id
    if (nfields > 7)
        msgpack_pack_uint64 (&raw->pk, level);
    if (nfields > 8)
        testcodec_raw_str (raw, "0.9.0", 5);
    for (size_t field = 9; field < nfields; field += 2)
        testcodec_raw_later_elements (raw);         //  two at a time
}

//  Raw TASK DONE of task 5 in task_state, by worker w7, with its outcome
//  end after the state at level 2 (12 fields) and without it at level 1
//  (11), then extra fields past them, each a map {"k": []}
static void
s_raw_done (testcodec_raw_t *raw, int level, int task_state, int end, int extra)
{
    s_raw_begin (raw, DROVER_MSG_TASK_DONE, (level < 2? 11: 12) + extra, 3);
    msgpack_pack_uint8 (&raw->pk, 5);
    msgpack_pack_int (&raw->pk, task_state);
    if (level >= 2)
        msgpack_pack_int (&raw->pk, end);
    msgpack_pack_uint8 (&raw->pk, 2);               //  attempt
    testcodec_raw_str (raw, "w7", 2);
    for (int field = 0; field < 4; field++)         //  exit_code .. duration
        msgpack_pack_uint8 (&raw->pk, (uint8_t) (field + 1));
    msgpack_pack_bin_with_body (&raw->pk, "out", 3);
    msgpack_pack_bin (&raw->pk, 0);
    testcodec_raw_str (raw, "exit 1", 6);
    for (int field = 0; field < extra; field++) {
        msgpack_pack_map (&raw->pk, 1);
        testcodec_raw_str (raw, "k", 1);
        msgpack_pack_array (&raw->pk, 0);
    }
}

//  Decode raw (then freed) into msg, asserting it decodes
static void
s_raw_into (testcodec_raw_t *raw, drover_msg_t *msg)
{
    if (drover_msg_decode (msg, RAW_DATA (*raw), RAW_SIZE (*raw)))
        fail_msg ("refused: %s", msg->error);
    testcodec_raw_destroy (raw);
}

//  The level a message shows its sender speaks: the one a HELLO, CLIENT
//  HELLO, WELCOME or CLIENT WELCOME declares, else (and at least) the
//  lowest level whose peers could send its id with that many fields
static void
test_level_a_message_shows (void **state)
{
    drover_msg_t *copy = drover_msg_new (0);
    testcodec_raw_t raw;
    //  HELLO: of level 1; with a state id (level 2's); declaring 2; declaring
    //  1 with level 2's fields; declaring a later level, with its release
    //  and fields past those this version knows
    s_raw_hello (&raw, 6, 0);
    s_raw_into (&raw, copy);
    assert_int_equal (copy->implied, 1);
    assert_int_equal (copy->level, 0);
    assert_int_equal (drover_msg_level (copy), 1);
    s_raw_hello (&raw, 7, 0);
    s_raw_into (&raw, copy);
    assert_int_equal (copy->implied, 2);
    assert_int_equal (drover_msg_level (copy), 2);
    s_raw_hello (&raw, 8, 2);
    s_raw_into (&raw, copy);
    assert_int_equal (copy->level, 2);
    assert_int_equal (drover_msg_level (copy), 2);
    s_raw_hello (&raw, 8, 1);
    s_raw_into (&raw, copy);
    assert_int_equal (copy->level, 1);
    assert_int_equal (drover_msg_level (copy), 2);
    s_raw_hello (&raw, 11, 5);
    s_raw_into (&raw, copy);
    assert_string_equal (copy->worker, "w1");
    assert_int_equal (copy->procs, 2);
    assert_int_equal (copy->level, 5);
    assert_string_equal (copy->release, "0.9.0");
    assert_int_equal (copy->implied, DROVER_MSG_LEVEL);
    assert_int_equal (drover_msg_level (copy), 5);
    //  A level is a uint16
    s_raw_hello (&raw, 8, UINT16_MAX + 1);
    s_assert_raw_refused (&raw, "level: out of range");

    //  WELCOME: of level 1, with a state id only, declaring its level
    s_raw_begin (&raw, DROVER_MSG_WORKER_WELCOME, 1, 2);
    msgpack_pack_uint16 (&raw.pk, 1000);
    s_raw_into (&raw, copy);
    assert_int_equal (copy->heartbeat, 1000);
    assert_int_equal (drover_msg_level (copy), 1);
    s_raw_begin (&raw, DROVER_MSG_WORKER_WELCOME, 2, 2);
    msgpack_pack_uint16 (&raw.pk, 1000);
    testcodec_raw_str (&raw, "", 0);
    s_raw_into (&raw, copy);
    assert_int_equal (drover_msg_level (copy), 2);
    s_raw_begin (&raw, DROVER_MSG_WORKER_WELCOME, 3, 2);
    msgpack_pack_uint16 (&raw.pk, 1000);
    testcodec_raw_str (&raw, "", 0);
    msgpack_pack_uint8 (&raw.pk, 3);
    s_raw_into (&raw, copy);
    assert_int_equal (drover_msg_level (copy), 3);

    //  SUBMIT without a key is level 1's, with one level 2's
    drover_msg_t *msg = s_filled (DROVER_MSG_TASK_SUBMIT);
    zstr_free (&msg->affinity);
    msg->service [0] = 0;
    msg->slot = 0;
    for (int with_key = 0; with_key < 2; with_key++) {
        if (!with_key)
            zstr_free (&msg->key);
        else
            msg->key = strdup ("k1");
        zframe_t *frame = drover_msg_encode (msg);
        assert_int_equal (zframe_data (frame) [0], 0x90 + 4 + 8 + with_key);
        assert_int_equal (drover_msg_decode (copy, zframe_data (frame), zframe_size (frame)), 0);
        assert_int_equal (copy->implied, 1 + with_key);
        assert_int_equal (drover_msg_level (copy), 1 + with_key);
        zframe_destroy (&frame);
    }
    //  A level set on a message that does not declare one is not its level
    copy->level = 7;
    assert_int_equal (drover_msg_level (copy), 2);
    drover_msg_destroy (&msg);

    //  TASK DONE of 15 elements is level 1's, of 16 level 2's
    s_raw_done (&raw, 1, DROVER_TASK_FAILED, 0, 0);
    assert_int_equal (RAW_DATA (raw) [0], 0x90 + 15);
    s_raw_into (&raw, copy);
    assert_int_equal (copy->implied, 1);
    assert_int_equal (drover_msg_level (copy), 1);
    assert_int_equal (copy->end, DROVER_END_FAILED);
    assert_int_equal (copy->attempt, 2);
    assert_string_equal (copy->worker, "w7");
    assert_string_equal (copy->reason, "exit 1");
    s_raw_done (&raw, 2, DROVER_TASK_FAILED, DROVER_END_LOST, 0);
    assert_int_equal (RAW_DATA (raw) [0], 0xdc);   //  array 16 of 16
    assert_int_equal (RAW_DATA (raw) [2], 16);
    s_raw_into (&raw, copy);
    assert_int_equal (copy->implied, 2);
    assert_int_equal (drover_msg_level (copy), 2);
    assert_int_equal (copy->end, DROVER_END_LOST);
    assert_int_equal (copy->attempt, 2);

    //  Messages of ids past 21 are level 2's, whatever they hold; a CLIENT
    //  HELLO or WELCOME says its own level, or at least that
    int later [] = { DROVER_MSG_EVENT_REPLAY, DROVER_MSG_WORKER_GATHER, DROVER_MSG_REDIRECT,
                     DROVER_MSG_QUEUES, DROVER_MSG_QUEUE_TABLE, DROVER_MSG_CLIENT_WELCOME };
    for (size_t index = 0; index < sizeof later / sizeof later [0]; index++) {
        msg = s_filled (later [index]);
        drover_msg_t *read = testcodec_roundtrip (msg);
        assert_int_equal (read->implied, 2);
        assert_int_equal (drover_msg_level (read), 2);
        drover_msg_destroy (&read);
        drover_msg_destroy (&msg);
    }
    s_raw_begin (&raw, DROVER_MSG_CLIENT_HELLO, 0, 1);
    s_raw_into (&raw, copy);
    assert_int_equal (copy->level, 0);
    assert_int_equal (drover_msg_level (copy), 2);
    s_raw_begin (&raw, DROVER_MSG_CLIENT_HELLO, 1, 1);
    msgpack_pack_uint8 (&raw.pk, 4);
    s_raw_into (&raw, copy);
    assert_int_equal (drover_msg_level (copy), 4);
    assert_string_equal (copy->release, "");
    msg = s_filled (DROVER_MSG_CLIENT_HELLO);
    drover_msg_t *read = testcodec_roundtrip (msg);
    assert_int_equal (drover_msg_level (read), UINT16_MAX);
    assert_string_equal (read->release, msg->release);
    drover_msg_destroy (&read);
    drover_msg_destroy (&msg);
    //  A CLIENT HELLO with nothing set says this codec's level and release
    msg = drover_msg_new (DROVER_MSG_CLIENT_HELLO);
    read = testcodec_roundtrip (msg);
    assert_int_equal (read->level, DROVER_MSG_LEVEL);
    assert_string_equal (read->release, DROVER_RELEASE);
    drover_msg_destroy (&read);
    drover_msg_destroy (&msg);
    drover_msg_destroy (&copy);
}

//  Pack 8 stats into raw, the loads 0.5, 1 and 2, then n extra elements
static void
s_raw_stats (testcodec_raw_t *raw, int extra)
{
    msgpack_pack_array (&raw->pk, 8 + extra);
    msgpack_pack_double (&raw->pk, 0.5);
    msgpack_pack_double (&raw->pk, 1);
    msgpack_pack_double (&raw->pk, 2);
    for (int index = 0; index < 5; index++)
        msgpack_pack_uint32 (&raw->pk, 100 + index);
    for (int index = 0; index < extra; index++)
        msgpack_pack_uint8 (&raw->pk, 9);
}

//  Pack what a later level may append to a row (at depth 3): an array
//  [1, "x"] and a nil
static void
s_raw_row_later (testcodec_raw_t *raw)
{
    msgpack_pack_array (&raw->pk, 2);
    msgpack_pack_uint8 (&raw->pk, 1);
    testcodec_raw_str (raw, "x", 1);
    msgpack_pack_nil (&raw->pk);
}

//  What the broker sends, a receiver reads from a newer broker too: it
//  passes over fields and record elements past those it knows, and keeps
//  enum values past the last it knows as they came (and will not send
//  them on); a known state with a known outcome that does not go with it
//  is still refused
static void
test_lenient_to_a_newer_broker (void **state)
{
    drover_msg_t *copy = drover_msg_new (0);
    testcodec_raw_t raw;
    //  TASK DONE with a field past its 12, then with a state and an
    //  outcome this version does not know, at either level's layout
    s_raw_done (&raw, 2, DROVER_TASK_SUCCEEDED, DROVER_END_SUCCEEDED, 1);
    s_raw_into (&raw, copy);
    assert_true (copy->task == 5);
    assert_int_equal (copy->state, DROVER_TASK_SUCCEEDED);
    assert_int_equal (copy->end, DROVER_END_SUCCEEDED);
    assert_int_equal (copy->attempt, 2);
    assert_string_equal (copy->worker, "w7");
    assert_true (copy->exit_code == 1 && copy->signal == 2);
    assert_true (copy->truncated == 3 && copy->duration == 4);
    assert_int_equal (copy->out_size, 3);
    assert_memory_equal (copy->out, "out", 3);
    assert_null (copy->err);
    assert_string_equal (copy->reason, "exit 1");
    assert_int_equal (copy->implied, DROVER_MSG_LEVEL);
    s_raw_done (&raw, 2, 9, 200, 2);
    s_raw_into (&raw, copy);
    assert_int_equal (copy->state, 9);
    assert_int_equal (copy->end, 200);
    assert_string_equal (copy->reason, "exit 1");
    assert_null (drover_msg_encode (copy));         //  not sent on
    s_raw_done (&raw, 2, DROVER_TASK_SUCCEEDED, DROVER_END_MAX + 1, 0);
    s_raw_into (&raw, copy);
    assert_int_equal (copy->state, DROVER_TASK_SUCCEEDED);
    assert_int_equal (copy->end, DROVER_END_MAX + 1);
    s_raw_done (&raw, 2, 9, DROVER_END_SUCCEEDED, 0);
    s_raw_into (&raw, copy);
    assert_int_equal (copy->state, 9);
    assert_int_equal (copy->end, DROVER_END_SUCCEEDED);
    s_raw_done (&raw, 1, 9, 0, 0);
    s_raw_into (&raw, copy);
    assert_int_equal (copy->state, 9);
    assert_int_equal (copy->end, DROVER_END_NONE);  //  nothing to derive it from
    s_raw_done (&raw, 2, DROVER_TASK_SUCCEEDED, DROVER_END_TIMED_OUT, 1);
    s_assert_raw_refused (&raw, "outcome: does not go with the state");
    s_raw_done (&raw, 2, DROVER_TASK_SUCCEEDED, 256, 0);
    s_assert_raw_refused (&raw, "outcome: out of range");      //  past a uint8

    //  TASK TABLE with a field past its 2; a row with a state and an
    //  outcome unknown and elements past its 10; a level-1 row with an
    //  unknown state
    s_raw_begin (&raw, DROVER_MSG_TASK_TABLE, 3, 9);
    msgpack_pack_array (&raw.pk, DROVER_TASK_STATES);
    for (int index = 0; index < DROVER_TASK_STATES; index++)
        msgpack_pack_uint8 (&raw.pk, (uint8_t) index);
    msgpack_pack_array (&raw.pk, 2);
    msgpack_pack_array (&raw.pk, 12);
    msgpack_pack_uint8 (&raw.pk, 42);
    msgpack_pack_uint8 (&raw.pk, 12);               //  state
    msgpack_pack_uint8 (&raw.pk, 99);               //  outcome
    msgpack_pack_int8 (&raw.pk, -3);
    msgpack_pack_uint8 (&raw.pk, 2);
    msgpack_pack_uint8 (&raw.pk, 1);
    testcodec_raw_str (&raw, "w1", 2);
    testcodec_raw_str (&raw, "sleep 1", 7);
    testcodec_raw_str (&raw, "ann", 3);
    testcodec_raw_str (&raw, "later", 5);
    s_raw_row_later (&raw);
    msgpack_pack_array (&raw.pk, 7);
    msgpack_pack_uint8 (&raw.pk, 43);
    msgpack_pack_uint8 (&raw.pk, 13);
    for (int index = 0; index < 3; index++)
        msgpack_pack_uint8 (&raw.pk, 1);
    testcodec_raw_str (&raw, "", 0);
    testcodec_raw_str (&raw, "true", 4);
    msgpack_pack_nil (&raw.pk);                     //  a later field
    s_raw_into (&raw, copy);
    assert_true (copy->counts [3] == 3);
    assert_int_equal (copy->nrows, 2);
    drover_task_row_t *task_row = &copy->task_rows [0];
    assert_true (task_row->task == 42);
    assert_int_equal (task_row->state, 12);
    assert_int_equal (task_row->end, 99);
    assert_int_equal (task_row->priority, -3);
    assert_int_equal (task_row->procs, 2);
    assert_string_equal (task_row->worker, "w1");
    assert_string_equal (task_row->summary, "sleep 1");
    assert_string_equal (task_row->owner, "ann");
    assert_string_equal (task_row->reason, "later");
    task_row = &copy->task_rows [1];
    assert_true (task_row->task == 43);
    assert_int_equal (task_row->state, 13);
    assert_int_equal (task_row->end, DROVER_END_NONE);
    assert_string_equal (task_row->summary, "true");
    assert_null (drover_msg_encode (copy));

    //  WORKER TABLE with a field past its 1, and a row with a health, an
    //  admin and a state unknown and elements past its 19
    s_raw_begin (&raw, DROVER_MSG_WORKER_TABLE, 2, 3);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 21);
    testcodec_raw_str (&raw, "w9", 2);
    msgpack_pack_uint8 (&raw.pk, 9);                //  health
    msgpack_pack_uint8 (&raw.pk, 7);                //  admin
    msgpack_pack_uint8 (&raw.pk, 4);
    msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_uint16 (&raw.pk, 1024);
    msgpack_pack_uint8 (&raw.pk, 0);
    msgpack_pack_array (&raw.pk, 1);
    testcodec_raw_str (&raw, "gpu=a", 5);
    s_raw_stats (&raw, 1);                          //  stats grow too
    msgpack_pack_uint8 (&raw.pk, 5);                //  reserved
    msgpack_pack_uint8 (&raw.pk, 6);                //  state
    msgpack_pack_uint64 (&raw.pk, 1700000000000ull);
    testcodec_raw_str (&raw, "x", 1);
    testcodec_raw_str (&raw, "", 0);
    msgpack_pack_uint8 (&raw.pk, 0);
    msgpack_pack_uint8 (&raw.pk, 0);
    msgpack_pack_uint8 (&raw.pk, 3);                //  tasks
    msgpack_pack_uint8 (&raw.pk, 3);                //  level
    testcodec_raw_str (&raw, "0.3.0", 5);           //  release
    s_raw_row_later (&raw);
    testcodec_raw_str (&raw, "later", 5);           //  a later field
    s_raw_into (&raw, copy);
    assert_int_equal (copy->nrows, 1);
    drover_worker_row_t *worker_row = &copy->worker_rows [0];
    assert_string_equal (worker_row->id, "w9");
    assert_int_equal (worker_row->health, 9);
    assert_int_equal (worker_row->admin, 7);
    assert_int_equal (worker_row->state, 6);
    assert_int_equal (worker_row->level, 3);
    assert_string_equal (worker_row->release, "0.3.0");
    assert_true (worker_row->mem == 1024 && worker_row->reserved == 5);
    assert_int_equal (worker_row->nlabels, 1);
    assert_string_equal (worker_row->labels [0], "gpu=a");
    assert_true (worker_row->stats.load [0] == 0.5 && worker_row->stats.running == 104);
    assert_string_equal (worker_row->why, "x");
    assert_int_equal (worker_row->tasks, 3);
    assert_null (drover_msg_encode (copy));

    //  Records grow at their end in every message: a HEARTBEAT's stats of
    //  9, a HELLO's running pair of 3, an explanation item of 7 (with a
    //  code this version does not know)
    s_raw_begin (&raw, DROVER_MSG_WORKER_HEARTBEAT, 3, 1);
    testcodec_raw_str (&raw, "w1", 2);
    msgpack_pack_uint8 (&raw.pk, 1);
    s_raw_stats (&raw, 1);
    s_raw_into (&raw, copy);
    assert_true (copy->stats.load [0] == 0.5 && copy->stats.load [2] == 2);
    assert_true (copy->stats.mem_used == 100 && copy->stats.disk_total == 103);
    assert_int_equal (copy->stats.running, 104);
    //  ... whose 9th is nested as deep as a message may go (message >
    //  stats > [ > [): it was refused as "nesting deeper than the limit",
    //  the stats' elements walked as if a level deeper than they are
    s_raw_begin (&raw, DROVER_MSG_WORKER_HEARTBEAT, 3, 1);
    testcodec_raw_str (&raw, "w1", 2);
    msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 9);
    for (int index = 0; index < 8; index++)
        msgpack_pack_uint8 (&raw.pk, (uint8_t) index);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_uint8 (&raw.pk, 9);
    s_raw_into (&raw, copy);
    assert_true (copy->stats.load [1] == 1);
    assert_int_equal (copy->stats.running, 7);
    s_raw_begin (&raw, DROVER_MSG_WORKER_HEARTBEAT, 3, 1);
    testcodec_raw_str (&raw, "w1", 2);
    msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 7);
    for (int index = 0; index < 7; index++)
        msgpack_pack_uint8 (&raw.pk, 0);
    s_assert_raw_refused (&raw, "stats");
    s_raw_begin (&raw, DROVER_MSG_WORKER_HELLO, 6, 1);
    testcodec_raw_str (&raw, "w1", 2);
    for (int index = 0; index < 3; index++)
        msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 0);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 3);
    msgpack_pack_uint8 (&raw.pk, 77);
    msgpack_pack_uint8 (&raw.pk, 2);
    testcodec_raw_str (&raw, "later", 5);
    s_raw_into (&raw, copy);
    assert_int_equal (copy->nrunning, 1);
    assert_true (copy->running [0].task == 77 && copy->running [0].attempt == 2);
    s_raw_begin (&raw, DROVER_MSG_TASK_EXPLANATION, 5, 1);
    msgpack_pack_uint8 (&raw.pk, 12);
    msgpack_pack_uint8 (&raw.pk, DROVER_TASK_QUEUED);
    msgpack_pack_uint8 (&raw.pk, 0);
    testcodec_raw_str (&raw, "", 0);
    msgpack_pack_array (&raw.pk, 2);
    for (int item = 0; item < 2; item++) {
        msgpack_pack_array (&raw.pk, 7);
        msgpack_pack_uint8 (&raw.pk, item? 200: DROVER_WHY_LABEL);
        msgpack_pack_uint8 (&raw.pk, 2);
        msgpack_pack_uint8 (&raw.pk, 0);
        msgpack_pack_uint8 (&raw.pk, 0);
        testcodec_raw_str (&raw, "zone=c", 6);
        msgpack_pack_array (&raw.pk, 1);
        testcodec_raw_str (&raw, "w1", 2);
        testcodec_raw_str (&raw, "later", 5);
    }
    s_raw_into (&raw, copy);
    assert_int_equal (copy->nwhys, 2);
    assert_int_equal (copy->whys [0].code, DROVER_WHY_LABEL);
    assert_int_equal (copy->whys [1].code, 200);
    assert_string_equal (copy->whys [1].text, "zone=c");
    assert_string_equal (copy->whys [1].names [0], "w1");

    //  Requests stay strict: a SUBMIT of its 12 fields is read, with one
    //  more it is refused; so is a HEARTBEAT with one past its 3, and a
    //  worker's RESULT with an outcome past the last (a lenient message
    //  read before changes nothing)
    for (int extra = 0; extra < 2; extra++) {
        s_raw_begin (&raw, DROVER_MSG_TASK_SUBMIT, 12 + extra, 1);
        for (int index = 0; index < 3; index++)
            msgpack_pack_uint8 (&raw.pk, 1);
        msgpack_pack_array (&raw.pk, 0);
        for (int index = 0; index < 3; index++)
            msgpack_pack_uint8 (&raw.pk, 0);
        msgpack_pack_bin_with_body (&raw.pk, "\x94\x91\xa4true\x90\xc0\xc0", 10);
        testcodec_raw_str (&raw, "k", 1);
        testcodec_raw_str (&raw, "a", 1);
        testcodec_raw_str (&raw, "web", 3);
        msgpack_pack_uint8 (&raw.pk, 2);
        if (extra) {
            msgpack_pack_nil (&raw.pk);
            s_assert_raw_refused (&raw, "wrong number of fields");
        }
        else {
            s_raw_into (&raw, copy);
            assert_string_equal (copy->key, "k");
            assert_int_equal (copy->slot, 2);
        }
    }
    s_raw_begin (&raw, DROVER_MSG_WORKER_HEARTBEAT, 4, 1);
    testcodec_raw_str (&raw, "w1", 2);
    msgpack_pack_uint8 (&raw.pk, 1);
    s_raw_stats (&raw, 0);
    msgpack_pack_nil (&raw.pk);
    s_assert_raw_refused (&raw, "wrong number of fields");
    s_raw_done (&raw, 2, 9, 200, 0);
    s_raw_into (&raw, copy);
    s_raw_begin (&raw, DROVER_MSG_TASK_RESULT, 11, 1);
    testcodec_raw_str (&raw, "w1", 2);
    msgpack_pack_uint8 (&raw.pk, 5);
    msgpack_pack_uint8 (&raw.pk, 1);
    msgpack_pack_uint8 (&raw.pk, DROVER_OUTCOME_MAX + 1);
    for (int index = 0; index < 4; index++)
        msgpack_pack_uint8 (&raw.pk, 0);
    msgpack_pack_bin (&raw.pk, 0);
    msgpack_pack_bin (&raw.pk, 0);
    testcodec_raw_str (&raw, "", 0);
    s_assert_raw_refused (&raw, "outcome: out of range");
    drover_msg_destroy (&copy);
}

//  LOW_DISK came with level 2: a peer of level 1 sees such a worker on
//  PROBATION (it takes no new work either), in a table encoded for it or
//  fitted to it; the other healths go as they are
static void
test_low_disk_is_probation_at_level_one (void **state)
{
    drover_msg_t *msg = s_filled (DROVER_MSG_WORKER_TABLE);
    drover_msg_t *copy = drover_msg_new (0);
    for (int health = 0; health <= DROVER_HEALTH_MAX; health++) {
        msg->worker_rows [0].health = (uint8_t) health;
        uint8_t seen = health == DROVER_HEALTH_LOW_DISK? DROVER_HEALTH_PROBATION: (uint8_t) health;
        zframe_t *frame = drover_msg_encode_level (msg, 1);
        s_assert_level_one_shape (zframe_data (frame), zframe_size (frame));
        assert_int_equal (drover_msg_decode (copy, zframe_data (frame), zframe_size (frame)), 0);
        assert_int_equal (copy->worker_rows [0].health, seen);
        assert_int_equal (copy->worker_rows [1].health, DROVER_HEALTH_PROBATION);
        zframe_destroy (&frame);
        frame = drover_msg_encode (msg);
        assert_int_equal (drover_msg_decode (copy, zframe_data (frame), zframe_size (frame)), 0);
        assert_int_equal (copy->worker_rows [0].health, health);
        assert_int_equal (drover_msg_fit (&frame, 1), 0);
        assert_int_equal (drover_msg_decode (copy, zframe_data (frame), zframe_size (frame)), 0);
        assert_int_equal (copy->worker_rows [0].health, seen);
        zframe_destroy (&frame);
    }
    drover_msg_destroy (&copy);
    drover_msg_destroy (&msg);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_roundtrip_every_message),
        cmocka_unit_test (test_roundtrip_at_limits),
        cmocka_unit_test (test_wire_layout_is_pinned),
        cmocka_unit_test (test_any_integer_width),
        cmocka_unit_test (test_rows_claimed_past_bytes_are_refused_unallocated),
        cmocka_unit_test (test_peek_reads_only_the_header),
        cmocka_unit_test (test_done_outcome_goes_with_its_state),
        cmocka_unit_test (test_truncated_at_every_length),
        cmocka_unit_test (test_oversized_fields),
        cmocka_unit_test (test_optional_fields_of_older_peers),
        cmocka_unit_test (test_optional_elements_of_worker_rows_and_admin),
        cmocka_unit_test (test_task_rows_of_a_later_version_are_read),
        cmocka_unit_test (test_event_list_refusals),
        cmocka_unit_test (test_malformed_keys_and_state_ids),
        cmocka_unit_test (test_wrong_type_everywhere),
        cmocka_unit_test (test_version_signature_and_id),
        cmocka_unit_test (test_depth_trailing_and_nul),
        cmocka_unit_test (test_random_bytes),
        cmocka_unit_test (test_mutations_of_valid_messages),
        cmocka_unit_test (test_setters_and_names),
        cmocka_unit_test (test_send_and_recv),
        cmocka_unit_test (test_redirect_fields),
        cmocka_unit_test (test_level_one_has_the_old_shapes),
        cmocka_unit_test (test_level_one_reads_back),
        cmocka_unit_test (test_fit_to_a_peer_level),
        cmocka_unit_test (test_level_a_message_shows),
        cmocka_unit_test (test_lenient_to_a_newer_broker),
        cmocka_unit_test (test_low_disk_is_probation_at_level_one),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
