/*  =========================================================================
    fuzz_seeds - writes the fuzzers' seed corpus, made by the codec itself

    fuzz_seeds DIR writes DIR/msg (every message id, with every field it
    carries set, plus a few edge cases, and each id of level 1 as a peer
    of level 1 gets it), DIR/exec (exec bodies) and
    DIR/event (event bodies), one encoded value per file. The fuzzers
    start from these valid inputs, so they reach past the header checks at
    once. ctest runs it before the fuzzers (fixture fuzz_seeds).
    =========================================================================
*/

#include "drover_msg.h"
#include <sys/stat.h>
#include <errno.h>

//  Write size bytes as DIR/kind/name, making the directories; exits on failure
static void
s_write (const char *dir, const char *kind, const char *name, const byte *data, size_t size)
{
    char *path = zsys_sprintf ("%s/%s", dir, kind);
    if (zsys_dir_create ("%s", path)) {
        fprintf (stderr, "fuzz_seeds: cannot create %s\n", path);
        exit (1);
    }
    zstr_free (&path);
    path = zsys_sprintf ("%s/%s/%s", dir, kind, name);
    FILE *file = fopen (path, "wb");
    if (!file || fwrite (data, 1, size, file) != size || fclose (file)) {
        fprintf (stderr, "fuzz_seeds: cannot write %s: %s\n", path, strerror (errno));
        exit (1);
    }
    zstr_free (&path);
}

//  Encode msg as DIR/msg/name and destroy it
static void
s_write_msg (const char *dir, const char *name, drover_msg_t **msg_p)
{
    zframe_t *frame = drover_msg_encode (*msg_p);
    assert (frame);
    s_write (dir, "msg", name, zframe_data (frame), zframe_size (frame));
    zframe_destroy (&frame);
    drover_msg_destroy (msg_p);
}

//  An exec body running argv with one env entry, a cwd and some stdin
static byte *
s_exec_body (int argc, const char **argv, bool full, size_t *size_p)
{
    drover_exec_t *exec = drover_exec_new ();
    int rc = drover_exec_set_argv (exec, argc, argv);
    assert (rc == 0);
    if (full) {
        rc = drover_exec_add_env (exec, "LANG=C.UTF-8");
        assert (rc == 0);
        drover_exec_set_cwd (exec, "/tmp");
        drover_exec_set_input (exec, (const byte *) "line\n", 5);
    }
    byte *body = drover_exec_encode (exec, size_p);
    assert (body);
    drover_exec_destroy (&exec);
    return body;
}

//  Stats with every value set
static void
s_fill_stats (drover_stats_t *stats)
{
    stats->load [0] = 0.5;
    stats->load [1] = 1.25;
    stats->load [2] = 2;
    stats->mem_used = 1ull << 30;
    stats->mem_total = 1ull << 34;
    stats->disk_used = 1ull << 35;
    stats->disk_total = 1ull << 40;
    stats->running = 3;
}

//  A term's statistics with every value set
static void
s_fill_service_stats (drover_service_stats_t *stats, uint64_t term)
{
    *stats = (drover_service_stats_t) { .term = term, .at = 1732262400000ull + term,
        .duration = 40, .complete = 1, .workers = 3, .answered = 3, .services = 2,
        .under = 1, .ok = 1, .wanted = 6, .running = 5, .pending = 1, .started = 1,
        .stopped = 1, .moved = 1, .restarts = { 4, 1, 1, 0, 0, 0, 0, 1 } };
}

//  The services' and plans' fields of a message of id
static void
s_fill_services (drover_msg_t *msg, int id)
{
    strcpy (msg->service, "web");
    msg->count = 4;
    msg->delay = 2000;
    if (id == DROVER_MSG_TASK_SUBMIT) {
        msg->affinity = strdup ("tenant-7");
        msg->slot = 2;
    }
    if (id == DROVER_MSG_WORKER_RUNS) {
        msg->nrunning = 2;
        msg->running = (drover_taskref_t *) zmalloc (2 * sizeof (drover_taskref_t));
        msg->running [0] = (drover_taskref_t) { 40, 1 };
        msg->running [1] = (drover_taskref_t) { 41, 3 };
    }
    if (id == DROVER_MSG_PLAN)
        msg->action = DROVER_PLAN_DRAIN;
    if (id == DROVER_MSG_REDIRECT) {
        strcpy (msg->leader, "tcp://10.0.0.2:5555");
        strcpy (msg->leader_name, "b2");
    }
    if (id == DROVER_MSG_QUEUE_TABLE) {
        strcpy (msg->strategy, "spread");
        msg->nqueues = 2;
        msg->queue_rows = (drover_queue_row_t *) zmalloc (2 * sizeof (drover_queue_row_t));
        msg->queue_rows [0] = (drover_queue_row_t) { .name = "batch", .owner = "b1",
            .owner_endpoint = "tcp://10.0.0.1:6001", .token = 17,
            .endpoints = strdup ("tcp://10.0.0.1:6001,tcp://10.0.0.2:6001") };
        msg->queue_rows [1] = (drover_queue_row_t) { .name = "gpu", .owner = "b2",
            .owner_endpoint = "tcp://10.0.0.2:6002", .token = 18,
            .endpoints = strdup ("tcp://10.0.0.2:6002") };
    }
    if (id == DROVER_MSG_SERVICE_TABLE) {
        s_fill_service_stats (&msg->stats_now, 7);
        msg->nservices = 1;
        msg->service_rows = (drover_service_row_t *) zmalloc (sizeof (drover_service_row_t));
        msg->service_rows [0] = (drover_service_row_t) { .name = "web", .replicas = 4,
            .procs = 1, .mem = 1ull << 28, .restart_delay = 1000, .running = 3, .pending = 1,
            .restarts = 2, .state = DROVER_SERVICE_UNDER, .created = 1732262400000ull,
            .summary = "python3 -m http.server", .why = "slot 3: no worker has room" };
        msg->service_rows [0].nlabels = 1;
        msg->service_rows [0].labels [0] = strdup ("zone=eu");
        msg->nreplicas = 2;
        msg->replica_rows = (drover_replica_row_t *) zmalloc (2 * sizeof (drover_replica_row_t));
        msg->replica_rows [0] = (drover_replica_row_t) { .service = "web", .slot = 0,
            .task = 42, .attempt = 1, .worker = "node-1", .state = DROVER_REPLICA_RUNNING,
            .since = 1732262400100ull };
        msg->replica_rows [1] = (drover_replica_row_t) { .service = "web", .slot = 3,
            .state = DROVER_REPLICA_WAITING, .since = 1732262400200ull, .restarts = 3,
            .why = "backoff 4s" };
    }
    if (id == DROVER_MSG_PLAN_RESULT) {
        s_fill_service_stats (&msg->stats_now, 7);
        s_fill_service_stats (&msg->stats_after, 8);
        msg->nchanges = 2;
        msg->changes = (drover_planchange_t *) zmalloc (2 * sizeof (drover_planchange_t));
        msg->changes [0] = (drover_planchange_t) { .kind = DROVER_CHANGE_MOVE,
            .service = "web", .slot = 1, .task = 43, .from = "node-1", .to = "node-2",
            .why = "worker draining" };
        msg->changes [1] = (drover_planchange_t) { .kind = DROVER_CHANGE_FINISH, .task = 44,
            .from = "node-1", .why = "worker draining" };
    }
}

//  A plain submit of body, ours
static drover_msg_t *
s_step (const byte *body, size_t body_size)
{
    drover_msg_t *step = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    step->procs = 1;
    drover_msg_set_body (step, body, body_size);
    return step;
}

//  Set the fields of sharing a cluster (level 4) msg of id carries
static void
s_fill_sharing (drover_msg_t *msg, int id)
{
    if (id == DROVER_MSG_TASK_SUBMIT || id == DROVER_MSG_WORKER_HELLO
    ||  id == DROVER_MSG_TASK_OFFER || id == DROVER_MSG_SHARE_ADMIN) {
        msg->ndevices = 1;
        strcpy (msg->devices [0].name, "gpu");
        msg->devices [0].count = 2;
    }
    if (id == DROVER_MSG_TASK_SUBMIT) {
        strcpy (msg->owner, "alice");
        msg->flags |= DROVER_SUBMIT_PREEMPTIBLE;
    }
    if (id == DROVER_MSG_TASK_STARTED)
        msg->assigned = strdup ("gpu=0,2");
    if (id == DROVER_MSG_SHARE_ADMIN) {
        msg->action = DROVER_SHARE_SET;
        strcpy (msg->owner, "physics");
        msg->weight = 3;
        msg->members = strdup ("alice,bob");
        msg->quota_procs = 40;
        msg->quota_mem = 64ull << 30;
        msg->quota_queued = 1000;
    }
    if (id == DROVER_MSG_SHARE_TABLE) {
        msg->nshares = 2;
        msg->share_rows = (drover_share_row_t *) zmalloc (2 * sizeof (drover_share_row_t));
        msg->share_rows [0] = (drover_share_row_t) { .name = "physics", .kind = 0,
            .weight = 3, .share = 600, .resource = "procs", .fair = 750, .procs = 6,
            .mem = 1ull << 30, .waiting = 4, .queued = 5 };
        msg->share_rows [1] = (drover_share_row_t) { .name = "alice", .account = "physics",
            .kind = 1, .weight = 1, .share = 600, .resource = "procs", .procs = 6,
            .mem = 1ull << 30, .waiting = 4, .queued = 5 };
        for (int index = 0; index < 2; index++) {
            msg->share_rows [index].devices = strdup ("gpu=2");
            msg->share_rows [index].quota = strdup ("procs=40,queued=1000");
        }
    }
}

//  Set the fields of backups (level 5) msg of id carries
static void
s_fill_backups (drover_msg_t *msg, int id)
{
    if (id == DROVER_MSG_STATE_BACKUP || id == DROVER_MSG_BACKUP_DONE)
        msg->path = strdup ("/var/backups/drover/state.db");
    if (id == DROVER_MSG_BACKUP_DONE) {
        msg->pages = 1280;
        msg->bytes = 1280 * 4096;
        msg->duration = 312;
    }
}

//  Set the fields of workflows (level 3) msg of id carries
static void
s_fill_workflows (drover_msg_t *msg, int id, const byte *body, size_t body_size)
{
    if (id == DROVER_MSG_TASK_SUBMIT) {
        msg->nafter = 2;
        msg->after = (drover_after_t *) zmalloc (2 * sizeof (drover_after_t));
        msg->after [0] = (drover_after_t) { DROVER_AFTER_OK, 40 };
        msg->after [1] = (drover_after_t) { DROVER_AFTER_FAIL, 41 };
        msg->begin = 1732262460000ull;
        msg->retry_delay = 10000;
        msg->array = (drover_array_spec_t) { .first = 0, .step = 1, .count = 1000, .limit = 50 };
    }
    if (id == DROVER_MSG_TASK_LIST)
        msg->group = 40;
    if (id == DROVER_MSG_WORKFLOW_SUBMIT) {
        msg->nsteps = 2;
        msg->step_names = (char **) zmalloc (2 * sizeof (char *));
        msg->step_names [0] = strdup ("fetch");
        msg->step_names [1] = strdup ("merge");
        msg->steps = (drover_msg_t **) zmalloc (2 * sizeof (drover_msg_t *));
        msg->steps [0] = s_step (body, body_size);
        msg->steps [1] = s_step (body, body_size);
        msg->steps [1]->nafter = 1;
        msg->steps [1]->after = (drover_after_t *) zmalloc (sizeof (drover_after_t));
        msg->steps [1]->after [0] = (drover_after_t) { DROVER_AFTER_OK | DROVER_AFTER_STEP, 1 };
    }
    if (id == DROVER_MSG_WORKFLOW_ACCEPTED) {
        msg->ntasks = 2;
        msg->tasks = (uint64_t *) zmalloc (2 * sizeof (uint64_t));
        msg->tasks [0] = 41;
        msg->tasks [1] = 42;
    }
}

//  One message of every id, every field it carries set
static void
s_write_messages (const char *dir)
{
    const char *argv [] = { "sh", "-c", "echo hi" };
    size_t body_size;
    byte *body = s_exec_body (3, argv, true, &body_size);
    for (int id = 1; id <= DROVER_MSG_ID_MAX; id++) {
        drover_msg_t *msg = drover_msg_new (id);
        msg->seq = (uint32_t) id * 1000 + 7;
        strcpy (msg->worker, "node-1");
        msg->epoch = 1732262400000000ull;
        msg->task = 42;
        msg->attempt = 2;
        msg->priority = -3;
        msg->procs = 4;
        msg->mem = 1ull << 30;
        drover_msg_add_label (msg, "gpu=a100");
        drover_msg_add_label (msg, "zone=eu");
        msg->timeout = 60000;
        msg->retries = 2;
        msg->flags = DROVER_SUBMIT_NOTIFY;
        drover_msg_set_body (msg, body, body_size);
        s_fill_stats (&msg->stats);
        msg->heartbeat = 1000;
        msg->outcome = DROVER_OUTCOME_EXITED;
        msg->state = id == DROVER_MSG_TASK_LIST? 255: DROVER_TASK_FAILED;
        msg->end = DROVER_END_TIMED_OUT;
        msg->admin = DROVER_ADMIN_DRAIN;
        msg->exit_code = 1;
        msg->signal = 0;
        msg->truncated = DROVER_TRUNC_STDERR;
        msg->duration = 1234;
        drover_msg_set_output (msg, (const byte *) "out\n", 4, (const byte *) "err\n", 4);
        msg->code = id == DROVER_MSG_OK? DROVER_CODE_OK: DROVER_CODE_NOT_FOUND;
        drover_msg_set_reason (msg, "exit 1");
        msg->limit = 100;
        if (id == DROVER_MSG_WORKER_HELLO || id == DROVER_MSG_WORKER_WELCOME
        ||  id == DROVER_MSG_TASK_ACCEPTED || id == DROVER_MSG_TASK_WAIT)
            strcpy (msg->state_id, "5f4c2ff9a1b2c3d4e5f60718293a4b5c");
        if (id == DROVER_MSG_TASK_SUBMIT)
            msg->key = strdup ("/data/batch.txt:17");
        msg->since = 40;
        msg->last = 42;
        msg->more = 1;
        if (id == DROVER_MSG_EVENT_LIST) {
            msg->nevents = 2;
            msg->events = (drover_event_t *) zmalloc (2 * sizeof (drover_event_t));
            msg->events [0] = (drover_event_t) { .seq = 41, .time = 1732262400000ull,
                                                 .topic = "task.queued", .task = 42 };
            msg->events [1] = (drover_event_t) { .seq = 42, .time = 1732262400001ull,
                                                 .topic = "worker.lost", .worker = "node-1",
                                                 .reason = "silent" };
        }
        if (id == DROVER_MSG_WORKER_HELLO) {
            msg->nrunning = 2;
            msg->running = (drover_taskref_t *) zmalloc (2 * sizeof (drover_taskref_t));
            msg->running [0] = (drover_taskref_t) { 40, 1 };
            msg->running [1] = (drover_taskref_t) { 41, 3 };
        }
        if (id == DROVER_MSG_TASK_WAIT) {
            msg->ntasks = 3;
            msg->tasks = (uint64_t *) zmalloc (3 * sizeof (uint64_t));
            msg->tasks [0] = 1;
            msg->tasks [1] = 300;
            msg->tasks [2] = 1ull << 40;
        }
        if (id == DROVER_MSG_TASK_TABLE) {
            for (int state = 0; state < DROVER_TASK_STATES; state++)
                msg->counts [state] = state * 10;
            msg->nrows = 2;
            msg->task_rows = (drover_task_row_t *) zmalloc (2 * sizeof (drover_task_row_t));
            msg->task_rows [0] = (drover_task_row_t) {
                .task = 9, .state = DROVER_TASK_RUNNING, .priority = -1, .procs = 2,
                .attempt = 1, .worker = "node-1", .summary = strdup ("sh -c echo hi") };
            msg->task_rows [1] = (drover_task_row_t) {
                .task = 10, .state = DROVER_TASK_SUCCEEDED, .end = DROVER_END_SUCCEEDED,
                .procs = 1, .attempt = 1, .worker = "node-2", .summary = strdup ("true") };
        }
        if (id == DROVER_MSG_WORKER_TABLE) {
            msg->nrows = 2;
            msg->worker_rows = (drover_worker_row_t *) zmalloc (2 * sizeof (drover_worker_row_t));
            for (int index = 0; index < 2; index++) {
                drover_worker_row_t *row = &msg->worker_rows [index];
                snprintf (row->id, sizeof row->id, "node-%d", index + 1);
                row->health = (uint8_t) index;
                row->procs = 8;
                row->procs_used = 2;
                row->mem = 1ull << 34;
                row->nlabels = 1;
                row->labels [0] = strdup ("gpu=a100");
                s_fill_stats (&row->stats);
            }
        }
        if (id == DROVER_MSG_TASK_INFO) {
            msg->info = drover_taskinfo_new ();
            msg->info->task = 42;
            msg->info->state = DROVER_TASK_SUCCEEDED;
            msg->info->end = DROVER_END_SUCCEEDED;
            msg->info->exit_code = 0;
            msg->info->queued_at = 1732262400000;
            msg->info->started_at = 1732262400100;
            msg->info->ended_at = 1732262401100;
            msg->info->attempt = 1;
            strcpy (msg->info->worker, "node-1");
            msg->info->nattempts = 1;
            msg->info->attempts = (drover_attempt_t *) zmalloc (sizeof (drover_attempt_t));
            msg->info->attempts [0] = (drover_attempt_t) { .attempt = 1, .worker = "node-1",
                .offered_at = 1732262400050, .started_at = 1732262400100,
                .ended_at = 1732262401100, .exit_code = 0, .reason = "exit 0" };
        }
        if (id == DROVER_MSG_POOL_TABLE) {
            msg->pool = (drover_pool_summary_t) { .enabled = 1, .driver = "local", .live = 2,
                .max_instances = 3, .price = 0.2, .backoff_until = 1732262460000ull,
                .failures = 1 };
            msg->nrows = 2;
            msg->pool_rows = (drover_pool_row_t *) zmalloc (2 * sizeof (drover_pool_row_t));
            msg->pool_rows [0] = (drover_pool_row_t) { .id = "POOL-kx3f-1", .type = "small",
                .price = 0.1, .state = 3, .created = 1732262400000ull,
                .since = 1732262401000ull, .last_busy = 1732262402000ull, .last_task = 42,
                .tasks = 1, .procs = 2, .procs_used = 1, .mem = 4ull << 30 };
            msg->pool_rows [1] = (drover_pool_row_t) { .id = "POOL-kx3f-2", .type = "small",
                .price = 0.1, .state = 1, .behaviour = DROVER_POOLADMIN_HOLD,
                .created = 1732262400500ull, .since = 1732262400500ull, .procs = 2,
                .mem = 4ull << 30, .why = "created" };
        }
        if (id == DROVER_MSG_POOL_ADMIN)
            msg->admin = DROVER_POOLADMIN_DESTROY;
        s_fill_services (msg, id);
        s_fill_workflows (msg, id, body, body_size);
        s_fill_sharing (msg, id);
        s_fill_backups (msg, id);
        if (streq (drover_msg_name (id), "INVALID")) {
            drover_msg_destroy (&msg);      //  an id reserved for a message not defined yet
            continue;
        }
        char *name = zsys_sprintf ("%02d-%s", id, drover_msg_name (id));
        for (char *space = strchr (name, ' '); space; space = strchr (space, ' '))
            *space = '_';
        //  The level-1 form (PROTOCOL.md §12): TASK DONE without its
        //  outcome, rows of 7 and 9, HELLO without state id and level
        zframe_t *frame = drover_msg_encode_level (msg, 1);
        if (frame) {
            char *level_one = zsys_sprintf ("%s-level-1", name);
            s_write (dir, "msg", level_one, zframe_data (frame), zframe_size (frame));
            zstr_free (&level_one);
            zframe_destroy (&frame);
        }
        s_write_msg (dir, name, &msg);
        zstr_free (&name);
    }
    free (body);
    //  Edges: seq 0, empty lists and strings, extreme numbers
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_TASK_DONE);
    msg->task = UINT64_MAX;
    msg->state = DROVER_TASK_UNKNOWN;
    msg->end = DROVER_END_EXPIRED;
    msg->exit_code = INT32_MIN;
    s_write_msg (dir, "edge-done-unknown", &msg);
    msg = drover_msg_new (DROVER_MSG_WORKER_HELLO);
    msg->seq = UINT32_MAX;
    strcpy (msg->worker, "w");
    s_write_msg (dir, "edge-hello-bare", &msg);
    msg = drover_msg_new (DROVER_MSG_ERROR);
    msg->code = DROVER_CODE_BAD_VERSION;
    s_write_msg (dir, "edge-error-no-reason", &msg);
    //  The optional last fields: present at their limits, and left out
    msg = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    msg->procs = 1;
    msg->key = (char *) zmalloc (DROVER_KEY_MAX + 1);
    for (int index = 0; index < DROVER_KEY_MAX; index++)
        msg->key [index] = (char) (0x20 + index % 95);     //  every printable byte
    drover_msg_set_body (msg, (const byte *) "\x94\x91\xa4true\x90\xc0\xc0", 10);
    s_write_msg (dir, "edge-submit-long-key", &msg);
    msg = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    msg->procs = 1;
    drover_msg_set_body (msg, (const byte *) "\x94\x91\xa4true\x90\xc0\xc0", 10);
    s_write_msg (dir, "edge-submit-no-key", &msg);
    msg = drover_msg_new (DROVER_MSG_TASK_ACCEPTED);
    msg->task = 1;
    s_write_msg (dir, "edge-accepted-no-state-id", &msg);
    msg = drover_msg_new (DROVER_MSG_WORKER_WELCOME);
    strcpy (msg->state_id, "0123456789ABCDEF0123456789abcdef");
    s_write_msg (dir, "edge-welcome-mixed-case-state-id", &msg);
    msg = drover_msg_new (DROVER_MSG_POOL_TABLE);
    s_write_msg (dir, "edge-pool-table-no-pool", &msg);
    //  Services and plans: a key nil before an affinity, a list of all, an
    //  empty table, a plan of a scale and of the next term
    msg = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    msg->procs = 1;
    msg->affinity = strdup ("dataset=/data/x");
    drover_msg_set_body (msg, (const byte *) "\x94\x91\xa4true\x90\xc0\xc0", 10);
    s_write_msg (dir, "edge-submit-affinity-no-key", &msg);
    msg = drover_msg_new (DROVER_MSG_SERVICE_LIST);
    s_write_msg (dir, "edge-service-list-all", &msg);
    msg = drover_msg_new (DROVER_MSG_SERVICE_TABLE);
    s_write_msg (dir, "edge-service-table-empty", &msg);
    msg = drover_msg_new (DROVER_MSG_PLAN);
    msg->action = DROVER_PLAN_SCALE;
    strcpy (msg->service, "web");
    msg->count = 10000;
    s_write_msg (dir, "edge-plan-scale", &msg);
    msg = drover_msg_new (DROVER_MSG_PLAN);
    msg->action = DROVER_PLAN_TERM;
    s_write_msg (dir, "edge-plan-term", &msg);
    //  Named queues: the empty table of a lone broker, a queue no broker
    //  serves now (no owner, token 0)
    msg = drover_msg_new (DROVER_MSG_QUEUE_TABLE);
    s_write_msg (dir, "edge-queue-table-empty", &msg);
    msg = drover_msg_new (DROVER_MSG_QUEUE_TABLE);
    strcpy (msg->strategy, "leader");
    msg->nqueues = 1;
    msg->queue_rows = (drover_queue_row_t *) zmalloc (sizeof (drover_queue_row_t));
    msg->queue_rows [0] = (drover_queue_row_t) { .name = "idle.q-1", .endpoints = strdup ("") };
    s_write_msg (dir, "edge-queue-table-no-owner", &msg);
}

//  Exec bodies: minimal, full, many arguments
static void
s_write_bodies (const char *dir)
{
    const char *one [] = { "true" };
    const char *many [] = { "printf", "%s\\n", "a", "", "é", "--flag=value" };
    size_t size;
    byte *body = s_exec_body (1, one, false, &size);
    s_write (dir, "exec", "minimal", body, size);
    free (body);
    body = s_exec_body (1, one, true, &size);
    s_write (dir, "exec", "full", body, size);
    free (body);
    body = s_exec_body (6, many, true, &size);
    s_write (dir, "exec", "many-arguments", body, size);
    free (body);
}

//  Event bodies: a task event, a worker event, extremes
static void
s_write_events (const char *dir)
{
    drover_event_t events [] = {
        { .seq = 1, .time = 1732262400000ull, .topic = "task.succeeded", .task = 42,
          .attempt = 1, .worker = "node-7" },
        { .seq = 2, .time = 1732262400001ull, .topic = "worker.lost", .worker = "node-7",
          .reason = "no heartbeat for 5000 ms" },
        { .seq = UINT64_MAX, .time = UINT64_MAX, .topic = "task.failed", .task = UINT64_MAX,
          .attempt = UINT32_MAX, .worker = "w", .reason = "exit 1 \"quoted\" caf\xc3\xa9" },
        { .topic = "x" },
    };
    for (size_t index = 0; index < sizeof events / sizeof events [0]; index++) {
        zframe_t *frame = drover_event_encode (&events [index]);
        char name [16];
        snprintf (name, sizeof name, "event-%zu", index + 1);
        s_write (dir, "event", name, zframe_data (frame), zframe_size (frame));
        zframe_destroy (&frame);
    }
}

int
main (int argc, char *argv [])
{
    if (argc != 2) {
        fprintf (stderr, "usage: fuzz_seeds DIR\n");
        return 2;
    }
    s_write_messages (argv [1]);
    s_write_bodies (argv [1]);
    s_write_events (argv [1]);
    return 0;
}
