/*  =========================================================================
    testcodec_msg - what the wire codec's tests share
    (test_drover_msg_roundtrip, _hostile, _levels, _versions): a message
    of every id with every field set, the field-by-field comparison of two
    messages, encoding to bytes, and raw messages and the checks of their
    refusal.
    =========================================================================
*/

#include "testcodec_msg.h"

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
    //  Workflows (level 3)
    info->waits = DROVER_WAITS_RETRY;
    info->begin = 1795498600000;
    info->due = 1795498800000;
    info->retry_delay = 10000;
    info->retry_max_delay = 60000;
    info->group = 12000;
    info->index = 345;
    info->nparents = 2;
    info->parents = (drover_parent_t *) zmalloc (2 * sizeof (drover_parent_t));
    info->parents [0] = (drover_parent_t) { DROVER_AFTER_OK, 11999, DROVER_TASK_SUCCEEDED };
    info->parents [1] = (drover_parent_t) { DROVER_AFTER_FAIL, UINT64_MAX, DROVER_TASK_UNKNOWN };
    info->nchildren = 1;
    info->children = (uint64_t *) zmalloc (sizeof (uint64_t));
    info->children [0] = 12346;
    info->children_total = 70;
    info->members = 1000;
    info->limit = 50;
    info->array_first = 1;
    info->array_step = 2;
    for (int state = 0; state < DROVER_TASK_STATES; state++)
        info->member_counts [state] = state == 6? UINT64_MAX: (uint64_t) state * 7;
    return info;
}

drover_msg_t *
testcodec_filled (int id)
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
            msg->nafter = 3;
            msg->after = (drover_after_t *) zmalloc (3 * sizeof (drover_after_t));
            msg->after [0] = (drover_after_t) { DROVER_AFTER_OK, 12 };
            msg->after [1] = (drover_after_t) { DROVER_AFTER_ANY, UINT64_MAX };
            msg->after [2] = (drover_after_t) { DROVER_AFTER_FAIL, 1 };
            msg->begin = 1795498600000;
            msg->retry_delay = 10000;
            msg->retry_max_delay = UINT32_MAX;
            msg->array = (drover_array_spec_t) { .first = 1, .step = 3, .count = 1000,
                                                 .limit = 50 };
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
            msg->group = 1ull << 40;
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
            msg->task_rows [2].waits = DROVER_WAITS_AFTER;
            msg->task_rows [2].group = 7;
            msg->task_rows [2].parents = 2;
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
                row->heartbeat = index? 4000: 0;        //  level 6; 0: a gone row's
                row->lost_after = index? 60000: 0;
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
        case DROVER_MSG_WORKFLOW_SUBMIT:
            drover_msg_set_reason (msg, "nightly caf\xc3\xa9");
            msg->nsteps = 3;
            msg->step_names = (char **) zmalloc (3 * sizeof (char *));
            msg->steps = (drover_msg_t **) zmalloc (3 * sizeof (drover_msg_t *));
            for (uint32_t index = 0; index < 3; index++) {
                msg->step_names [index] = strdup (index == 0? "fetch": index == 1? "frames"
                                                                      : "merge.all");
                msg->steps [index] = testcodec_filled (DROVER_MSG_TASK_SUBMIT);
                msg->steps [index]->seq = 0;
                msg->steps [index]->service [0] = 0;
                msg->steps [index]->slot = 0;
            }
            //  fetch waits for an existing task; frames is an array after fetch;
            //  merge waits for both steps, and cleans up on a failure of task 5
            msg->steps [0]->nafter = 1;
            msg->steps [0]->array.count = 0;
            msg->steps [0]->array.first = msg->steps [0]->array.step = 0;
            msg->steps [0]->array.limit = 0;
            msg->steps [1]->after [0] = (drover_after_t) { DROVER_AFTER_OK | DROVER_AFTER_STEP, 1 };
            msg->steps [1]->nafter = 1;
            msg->steps [2]->after [0] = (drover_after_t) { DROVER_AFTER_OK | DROVER_AFTER_STEP, 2 };
            msg->steps [2]->after [1] = (drover_after_t) { DROVER_AFTER_ANY | DROVER_AFTER_STEP, 1 };
            msg->steps [2]->after [2] = (drover_after_t) { DROVER_AFTER_FAIL, 5 };
            msg->steps [2]->array = (drover_array_spec_t) { 0 };
            break;
        case DROVER_MSG_WORKFLOW_ACCEPTED:
            msg->task = 40;
            msg->ntasks = 3;
            msg->tasks = (uint64_t *) zmalloc (3 * sizeof (uint64_t));
            msg->tasks [0] = 41;
            msg->tasks [1] = 43;
            msg->tasks [2] = UINT64_MAX;
            strcpy (msg->state_id, "0123456789abcdef0123456789abcdef");
            break;
        case DROVER_MSG_SHARE_ADMIN:
            msg->action = DROVER_SHARE_SET;
            strcpy (msg->owner, "team-a");
            msg->weight = 3;
            msg->members = strdup ("alice,bob.smith");
            msg->quota_procs = 64;
            msg->quota_mem = 1ull << 40;
            msg->quota_queued = UINT32_MAX;
            msg->ndevices = 2;
            msg->devices [0] = (drover_device_t) { "fpga", 1 };
            msg->devices [1] = (drover_device_t) { "gpu", 1000000 };
            break;
        case DROVER_MSG_SHARE_LIST:
            break;
        case DROVER_MSG_SHARE_TABLE:
            msg->nshares = 2;
            msg->share_rows = (drover_share_row_t *) zmalloc (2 * sizeof (drover_share_row_t));
            msg->share_rows [0] = (drover_share_row_t) { .name = "team-a", .kind = 0,
                .weight = 3, .share = 600, .resource = "gpu", .fair = 750, .procs = 12,
                .mem = 1ull << 33, .waiting = 40, .queued = UINT64_MAX };
            msg->share_rows [0].devices = strdup ("gpu=2");
            msg->share_rows [0].quota = strdup ("procs=8,mem=16G,gpu=2,queued=1000");
            msg->share_rows [1] = (drover_share_row_t) { .name = "alice", .account = "team-a",
                .kind = 1, .weight = 1, .share = 0 };
            break;
        case DROVER_MSG_STATE_BACKUP:
            msg->path = strdup ("/var/backups/drover/state-2026-12-06.db");
            break;
        case DROVER_MSG_BACKUP_DONE:
            msg->path = strdup ("/var/backups/drover/state-2026-12-06.db");
            msg->pages = 1280;
            msg->bytes = UINT64_MAX;
            msg->duration = 312;
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

//  Assert that two messages hold the same fields of workflows (level 3),
//  their steps too
static void
s_assert_workflow (const drover_msg_t *a, const drover_msg_t *b)
{
    assert_int_equal (a->nafter, b->nafter);
    for (uint32_t index = 0; index < a->nafter; index++) {
        assert_int_equal (a->after [index].kind, b->after [index].kind);
        assert_true (a->after [index].task == b->after [index].task);
    }
    assert_true (a->begin == b->begin);
    assert_int_equal (a->retry_delay, b->retry_delay);
    assert_int_equal (a->retry_max_delay, b->retry_max_delay);
    assert_memory_equal (&a->array, &b->array, sizeof (drover_array_spec_t));
    assert_true (a->group == b->group);
    assert_int_equal (a->nsteps, b->nsteps);
    for (uint32_t index = 0; index < a->nsteps; index++) {
        assert_string_equal (a->step_names [index], b->step_names [index]);
        testcodec_assert_same (a->steps [index], b->steps [index]);
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

//  Assert that two messages hold the same fields of sharing (level 4)
static void
s_assert_share (const drover_msg_t *a, const drover_msg_t *b)
{
    assert_string_equal (a->owner, b->owner);
    assert_int_equal (a->ndevices, b->ndevices);
    for (uint32_t index = 0; index < a->ndevices; index++) {
        assert_string_equal (a->devices [index].name, b->devices [index].name);
        assert_int_equal (a->devices [index].count, b->devices [index].count);
    }
    s_assert_text (a->assigned, b->assigned);
    assert_int_equal (a->action, b->action);
    assert_int_equal (a->weight, b->weight);
    assert_int_equal (a->members == NULL, b->members == NULL);
    s_assert_text (a->members, b->members);
    assert_int_equal (a->quota_procs, b->quota_procs);
    assert_true (a->quota_mem == b->quota_mem);
    assert_int_equal (a->quota_queued, b->quota_queued);
    s_assert_text (a->path, b->path);
    assert_true (a->pages == b->pages && a->bytes == b->bytes);
    assert_int_equal (a->nshares, b->nshares);
    for (uint32_t index = 0; index < a->nshares; index++) {
        const drover_share_row_t *x = &a->share_rows [index], *y = &b->share_rows [index];
        assert_string_equal (x->name, y->name);
        assert_string_equal (x->account, y->account);
        assert_int_equal (x->kind, y->kind);
        assert_int_equal (x->weight, y->weight);
        assert_int_equal (x->share, y->share);
        assert_string_equal (x->resource, y->resource);
        assert_int_equal (x->fair, y->fair);
        assert_int_equal (x->procs, y->procs);
        assert_true (x->mem == y->mem);
        s_assert_text (x->devices, y->devices);
        assert_true (x->waiting == y->waiting && x->queued == y->queued);
        s_assert_text (x->quota, y->quota);
    }
}

//  Assert that two messages hold the same values, field by field
void
testcodec_assert_same (const drover_msg_t *a, const drover_msg_t *b)
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
        assert_int_equal (x->waits, y->waits);
        assert_true (x->group == y->group);
        assert_int_equal (x->parents, y->parents);
    }
    assert_int_equal (a->nwhys, b->nwhys);
    s_assert_workflow (a, b);
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
        s_assert_text (x->devices, y->devices);
        s_assert_text (x->devices_used, y->devices_used);
        assert_int_equal (x->heartbeat, y->heartbeat);
        assert_true (x->lost_after == y->lost_after);
        assert_int_equal (x->ahead, y->ahead);
        assert_int_equal (x->held, y->held);
    }
    s_assert_share (a, b);
}

//  Encode a message into a fresh byte buffer (asserting it encodes)
byte *
testcodec_encode (drover_msg_t *msg, size_t *size_p)
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
void
testcodec_assert_roundtrip (drover_msg_t *msg, drover_msg_t *copy)
{
    size_t size;
    byte *data = testcodec_encode (msg, &size);
    assert_int_equal (drover_msg_decode (copy, data, size), 0);
    testcodec_assert_same (msg, copy);
    free (data);
}

//  Decode bytes expecting a refusal; returns the error text
const char *
testcodec_refused (const byte *data, size_t size)
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
void
testcodec_assert_refused (const byte *data, size_t size, const char *text)
{
    const char *error = testcodec_refused (data, size);
    if (!strstr (error, text))
        fail_msg ("error \"%s\" does not mention \"%s\"", error, text);
}

//  Start a raw message of id with nfields fields after the header
void
testcodec_raw_begin_seq (testcodec_raw_t *raw, int id, size_t nfields, uint32_t seq)
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
void
testcodec_assert_raw_says (testcodec_raw_t *raw, const char *text)
{
    testcodec_assert_refused (RAW_DATA (*raw), RAW_SIZE (*raw), text);
    testcodec_raw_destroy (raw);
}

//  Raw TASK DONE of task 5 in task_state, by worker w7, with its outcome
//  end after the state at level 2 (12 fields) and without it at level 1
//  (11), then extra fields past them, each a map {"k": []}
void
testcodec_raw_done (testcodec_raw_t *raw, int level, int task_state, int end, int extra)
{
    testcodec_raw_begin_seq (raw, DROVER_MSG_TASK_DONE, (level < 2? 11: 12) + extra, 3);
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

//  Make msg what it reads as once sent at level 2
void
testcodec_as_level_two (drover_msg_t *msg)
{
    zstr_free ((char **) &msg->after);
    msg->nafter = 0;
    msg->begin = 0;
    msg->retry_delay = 0;
    msg->retry_max_delay = 0;
    msg->array = (drover_array_spec_t) { 0 };
    msg->group = 0;
    if (msg->end == DROVER_END_DEPENDENCY)
        msg->end = DROVER_END_CANCELLED;
    for (uint32_t index = 0; msg->task_rows && index < msg->nrows; index++) {
        drover_task_row_t *row = &msg->task_rows [index];
        row->waits = 0;
        row->group = 0;
        row->parents = 0;
        if (row->end == DROVER_END_DEPENDENCY)
            row->end = DROVER_END_CANCELLED;
    }
    for (uint32_t index = 0; msg->worker_rows && index < msg->nrows; index++) {
        msg->worker_rows [index].heartbeat = 0;     //  level 6's
        msg->worker_rows [index].lost_after = 0;
    }
    uint32_t kept = 0;
    for (uint32_t index = 0; index < msg->nwhys; index++)
        if (msg->whys [index].code < DROVER_WHY_PARENT)
            msg->whys [kept++] = msg->whys [index];
    msg->nwhys = kept;
    if (msg->info && msg->info->end == DROVER_END_DEPENDENCY)
        msg->info->end = DROVER_END_CANCELLED;
}

//  Decode raw (then freed) into msg, asserting it decodes
void
testcodec_raw_into (testcodec_raw_t *raw, drover_msg_t *msg)
{
    if (drover_msg_decode (msg, RAW_DATA (*raw), RAW_SIZE (*raw)))
        fail_msg ("refused: %s", msg->error);
    testcodec_raw_destroy (raw);
}
