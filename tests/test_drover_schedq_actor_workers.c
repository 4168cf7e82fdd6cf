/*  =========================================================================
    test_drover_schedq_actor_workers - the schedq actor's
    workers through its pipe and its link (the test plays the main and
    assign): hold / drain / resume with LEAVE, WORKER ADMIN and its
    errors, probation, workers registered again, lost and gone, WORKER
    LIST, and with a pool: LOAD, RETIRE and POOLADMIN.
    =========================================================================
*/

#include "testutil_schedq.h"

//  Resuming a worker neither connected nor set: 404; a bad setting: 400
static void
test_admin_errors (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    testutil_schedq_admin (actor, "ghost", DROVER_ADMIN_RUN, 41, DROVER_CODE_NOT_FOUND);
    testutil_schedq_up (actor, "alpha", "r-alpha", 1, 0, "");
    testutil_schedq_admin (actor, "alpha", 7, 42, DROVER_CODE_BAD_REQUEST);
    testutil_schedq_admin (actor, "alpha", DROVER_ADMIN_RUN, 43, DROVER_CODE_OK);     //  no change: no event
    testutil_schedq_quiet (actor);
}

//  Draining with exit: nothing new; LEAVE once the last task is freed, and
//  only once; an idle worker told to drain with exit is told to leave at once
static void
test_drain_then_leave (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    testutil_schedq_alpha_runs_task_1 (actor, 2);
    free (testutil_schedq_admin_with (actor, "alpha", DROVER_ADMIN_DRAIN, NULL, DROVER_ADMIN_EXIT,
                                      1,
                                      DROVER_CODE_OK));
    testutil_expect_event (actor, "worker.drain", "alpha", "");
    testutil_schedq_queue (actor, 2, 0, 1, 0, "");
    testutil_schedq_quiet (actor);                                    //  no LEAVE, no placement
    testutil_say_free (testutil_schedq_link, (uint64_t) 1);
    drover_msg_t *leave = testutil_expect_send (actor, "r-alpha", "alpha");
    assert_int_equal (leave->id, DROVER_MSG_WORKER_LEAVE);
    drover_msg_destroy (&leave);
    testutil_say_free (testutil_schedq_link, (uint64_t) 1);
    testutil_schedq_admin (actor, "alpha", DROVER_ADMIN_DRAIN, 2, DROVER_CODE_OK);
    testutil_schedq_quiet (actor);                                    //  LEAVE only once

    testutil_schedq_up (actor, "beta", "r-beta", 1, 0, "");
    testutil_schedq_expect_one (actor, 2, "beta");
    testutil_schedq_up (actor, "gamma", "r-gamma", 1, 0, "");
    free (testutil_schedq_admin_with (actor, "gamma", DROVER_ADMIN_DRAIN, NULL, DROVER_ADMIN_EXIT,
                                      3,
                                      DROVER_CODE_OK));
    testutil_expect_event (actor, "worker.drain", "gamma", "");
    leave = testutil_expect_send (actor, "r-gamma", "gamma");
    assert_int_equal (leave->id, DROVER_MSG_WORKER_LEAVE);
    drover_msg_destroy (&leave);
    testutil_schedq_quiet (actor);
}

//  A worker on probation takes nothing until cleared, and shows as PROBATION
static void
test_probation (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    testutil_schedq_up (actor, "alpha", "r-alpha", 1, 0, "");
    zsock_send (actor, "sss", "PROBATION", "alpha", "send refused");
    zsock_send (actor, "sss", "PROBATION", "ghost", "send refused");    //  unknown: ignored
    testutil_schedq_queue (actor, 1, 0, 1, 0, "");
    drover_msg_t *table = testutil_schedq_list_only (actor, 1);
    assert_int_equal (table->nrows, 1);
    assert_int_equal (table->worker_rows [0].health, DROVER_HEALTH_PROBATION);
    drover_msg_destroy (&table);
    testutil_schedq_quiet (actor);
    zsock_send (actor, "sss", "CLEARED", "alpha", "timeout");
    testutil_schedq_expect_one (actor, 1, "alpha");
}

//  Say UP for a worker that says it runs count attempts (tasks 1.., attempt 1)
static void
s_up_running (zactor_t *actor, const char *worker, const char *route, uint32_t procs,
              uint32_t count)
{
    drover_taskref_t refs [8];
    assert_true (count <= 8);
    for (uint32_t index = 0; index < count; index++) {
        refs [index].task = index + 1;
        refs [index].attempt = 1;
    }
    zframe_t *frame = zframe_new (route, strlen (route));
    zframe_t *running = zframe_new (refs, count * sizeof (drover_taskref_t));
    zsock_send (actor, "ssf848sf4s", "UP", worker, frame, (uint64_t) 1, procs, (uint64_t) 0, "",
                running, (uint32_t) DROVER_MSG_LEVEL, DROVER_RELEASE);
    zframe_destroy (&running);
    zframe_destroy (&frame);
}

//  A worker that registers again reporting attempts it runs (after a
//  restart of the broker) takes nothing until assign has counted them
//  (PLACED) and said SETTLED: a request that waits is not placed past its
//  procs meanwhile. A SETTLED read before its UP counts too.
static void
test_registered_again_counts_running_first (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    testutil_schedq_queue (actor, 5, 0, 1, 0, "");
    s_up_running (actor, "alpha", "r-alpha", 2, 2);
    testutil_schedq_quiet (actor);                                    //  not before assign says
    zsock_send (testutil_schedq_link, "s8s48s", "PLACED", (uint64_t) 1, "alpha", 1, (uint64_t) 0,
                "");
    zsock_send (testutil_schedq_link, "s8s48s", "PLACED", (uint64_t) 2, "alpha", 1, (uint64_t) 0,
                "");
    zsock_send (testutil_schedq_link, "ss", "SETTLED", "alpha");
    testutil_schedq_quiet (actor);                                    //  full: 2 of 2 procs
    assert_int_equal (testutil_schedq_procs_used (actor, "alpha"), 2);
    testutil_say_free (testutil_schedq_link, 1);
    testutil_schedq_expect_one (actor, 5, "alpha");

    zsock_send (testutil_schedq_link, "ss", "SETTLED", "beta");       //  read before beta's UP
    testutil_schedq_quiet (actor);
    testutil_schedq_queue (actor, 6, 0, 1, 0, "");
    s_up_running (actor, "beta", "r-beta", 2, 1);
    testutil_schedq_expect_one (actor, 6, "beta");
}

//  A lost worker is dropped with its placements; its requests wait for
//  another worker
static void
test_lost_worker (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    testutil_schedq_alpha_runs_task_1 (actor, 1);
    zsock_send (actor, "sss", "LOST", "alpha", "silent");
    zsock_send (actor, "sss", "LOST", "ghost", "silent");              //  unknown: ignored
    testutil_schedq_queue (actor, 2, 0, 1, 0, "");
    drover_msg_t *table = testutil_schedq_list_only (actor, 1);
    assert_int_equal (table->nrows, 1);                 //  listed as gone: takes nothing
    assert_string_equal (table->worker_rows [0].id, "alpha");
    assert_int_equal (table->worker_rows [0].state, DROVER_WORKER_LOST);
    assert_int_equal (table->worker_rows [0].procs_used, 0);
    drover_msg_destroy (&table);
    testutil_schedq_quiet (actor);
    testutil_schedq_up (actor, "beta", "r-beta", 1, 0, "");
    testutil_schedq_expect_one (actor, 2, "beta");
}

//  A worker that went stays listed: LOST with why and since, or LEFT on a
//  GOODBYE ("drained, left" after a drain with exit); one that comes back
//  replaces its row; max-gone bounds them, oldest out first
static void
test_gone_workers_listed (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    int64_t before = zclock_time ();
    testutil_schedq_up (actor, "alpha", "r-alpha", 4, 1024, "zone=a");
    testutil_schedq_up (actor, "beta", "r-beta", 2, 0, "");
    testutil_schedq_up (actor, "gamma", "r-gamma", 1, 0, "");
    zsock_send (actor, "sss", "LOST", "alpha", "silent");
    zsock_send (actor, "sss", "LOST", "beta", "left");
    free (testutil_schedq_admin_with (actor, "gamma", DROVER_ADMIN_DRAIN, "retire",
                                      DROVER_ADMIN_EXIT, 1,
                                      DROVER_CODE_OK));
    testutil_expect_event (actor, "worker.drain", "gamma", "retire");
    drover_msg_t *leave = testutil_expect_send (actor, "r-gamma", "gamma");
    assert_int_equal (leave->id, DROVER_MSG_WORKER_LEAVE);
    drover_msg_destroy (&leave);
    zsock_send (actor, "sss", "LOST", "gamma", "left");
    drover_msg_t *table = testutil_schedq_list_only (actor, 2);
    assert_int_equal (table->nrows, 3);
    drover_worker_row_t *row = testutil_schedq_row (table, "alpha");
    assert_int_equal (row->state, DROVER_WORKER_LOST);
    assert_int_equal (row->health, DROVER_HEALTH_LOST);
    assert_string_equal (row->why, "silent");
    assert_true ((int64_t) row->since >= before && (int64_t) row->since <= zclock_time ());
    assert_int_equal (row->procs, 4);
    assert_int_equal (row->mem, 1024);
    assert_int_equal (row->nlabels, 1);
    assert_string_equal (row->labels [0], "zone=a");
    row = testutil_schedq_row (table, "beta");
    assert_int_equal (row->state, DROVER_WORKER_LEFT);
    assert_string_equal (row->why, "left");
    row = testutil_schedq_row (table, "gamma");
    assert_int_equal (row->state, DROVER_WORKER_LEFT);
    assert_string_equal (row->why, "drained, left");
    assert_int_equal (row->admin, DROVER_ADMIN_DRAIN);     //  what the operator said stays
    assert_string_equal (row->admin_reason, "retire");
    drover_msg_destroy (&table);
    //  alpha comes back: one row, up
    testutil_schedq_up (actor, "alpha", "r-alpha2", 4, 1024, "zone=a");
    table = testutil_schedq_list_only (actor, 3);
    assert_int_equal (table->nrows, 3);
    row = testutil_schedq_row (table, "alpha");
    assert_int_equal (row->state, DROVER_WORKER_UP);
    assert_int_equal (row->health, DROVER_HEALTH_OK);
    assert_null (row->why);
    assert_true ((int64_t) row->since >= before);
    drover_msg_destroy (&table);
    //  At most one gone row: the oldest (beta) goes
    zsock_send (actor, "s444444", "CONFIGURE", 100, 0, 0, 3600000, 1, 0);
    table = testutil_schedq_list_only (actor, 4);
    assert_int_equal (table->nrows, 2);
    testutil_schedq_row (table, "alpha");
    testutil_schedq_row (table, "gamma");
    drover_msg_destroy (&table);
    //  keep-gone 0: none is listed
    zsock_send (actor, "s444444", "CONFIGURE", 100, 0, 0, 0, 10, 0);
    table = testutil_schedq_list_only (actor, 5);
    assert_int_equal (table->nrows, 1);
    testutil_schedq_row (table, "alpha");
    drover_msg_destroy (&table);
    testutil_schedq_quiet (actor);
}

//  Drain without exit keeps the worker connected and idle: no LEAVE, no
//  new work; resume gives it work again
static void
test_drain_stays_connected (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    testutil_schedq_alpha_runs_task_1 (actor, 2);
    free (testutil_schedq_admin_with (actor, "alpha", DROVER_ADMIN_DRAIN, "disk swap", 0, 1,
                                      DROVER_CODE_OK));
    testutil_expect_event (actor, "worker.drain", "alpha", "disk swap");
    testutil_schedq_queue (actor, 2, 0, 1, 0, "");
    testutil_say_free (testutil_schedq_link, (uint64_t) 1);
    testutil_schedq_quiet (actor);                                    //  no LEAVE, no placement
    drover_msg_t *table = testutil_schedq_list_only (actor, 2);
    drover_worker_row_t *row = testutil_schedq_row (table, "alpha");
    assert_int_equal (row->state, DROVER_WORKER_UP);
    assert_int_equal (row->admin, DROVER_ADMIN_DRAIN);
    assert_int_equal (row->tasks, 0);
    assert_string_equal (row->admin_reason, "disk swap");
    assert_true (row->admin_since > 0);
    drover_msg_destroy (&table);
    testutil_schedq_admin (actor, "alpha", DROVER_ADMIN_RUN, 3, DROVER_CODE_OK);
    testutil_expect_event (actor, "worker.resume", "alpha", "");
    testutil_schedq_expect_one (actor, 2, "alpha");
}

//  Send WORKER ADMIN to a schedq that keeps settings: expect KEEPADMIN
//  worker admin flags reason since carrying the OK (route seq text) for
//  the store to send once kept, then its event (topic; NULL: none);
//  returns the OK's text
static char *
s_admin_kept (zactor_t *actor, const char *worker, int admin, const char *reason, uint32_t seq,
              const char *topic)
{
    drover_msg_t *request = drover_msg_new (DROVER_MSG_WORKER_ADMIN);
    snprintf (request->worker, sizeof request->worker, "%s", worker);
    request->admin = (uint8_t) admin;
    request->seq = seq;
    if (reason)
        drover_msg_set_reason (request, reason);
    testutil_hand (actor, "client", request);
    zmsg_t *keep = testutil_expect (actor, "KEEPADMIN", 2000);
    char number [16];
    testutil_pop_check (keep, worker);
    snprintf (number, sizeof number, "%d", admin);
    testutil_pop_check (keep, number);
    testutil_pop_check (keep, "0");
    testutil_pop_check (keep, reason? reason: "");
    zframe_destroy (&(zframe_t *) { zmsg_pop (keep) });         //  since
    testutil_pop_check (keep, "client");
    snprintf (number, sizeof number, "%u", seq);
    testutil_pop_check (keep, number);
    char *text = zmsg_popstr (keep);
    assert_non_null (text);
    assert_int_equal (zmsg_size (keep), 0);
    zmsg_destroy (&keep);
    if (topic)
        testutil_expect_event (actor, topic, worker, reason? reason: "");
    return text;
}

//  An operator's setting is kept by worker id: across a loss and a new
//  registration, and for a worker that has not joined yet; the store hears
//  each change (KEEPADMIN) when it keeps state, and gives kept ones back
//  (ADMIN) at start
static void
test_admin_kept_by_worker_id (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    zsock_send (actor, "s444444", "CONFIGURE", 100, 0, 0, 3600000, 10, 1);
    testutil_schedq_up (actor, "alpha", "r-alpha", 1, 0, "");
    char *text = s_admin_kept (actor, "alpha", DROVER_ADMIN_HOLD, "disk swap", 1, "worker.hold");
    assert_string_equal (text, "HOLD");
    free (text);
    //  The same again: no event, kept again with its OK
    free (s_admin_kept (actor, "alpha", DROVER_ADMIN_HOLD, "disk swap", 2, NULL));
    zsock_send (actor, "sss", "LOST", "alpha", "restarted");
    testutil_schedq_up (actor, "alpha", "r-alpha2", 1, 0, "");
    testutil_schedq_queue (actor, 1, 0, 1, 0, "");
    drover_msg_t *table = testutil_schedq_list_only (actor, 2);
    drover_worker_row_t *row = testutil_schedq_row (table, "alpha");
    assert_int_equal (row->state, DROVER_WORKER_UP);
    assert_int_equal (row->admin, DROVER_ADMIN_HOLD);
    assert_string_equal (row->admin_reason, "disk swap");
    drover_msg_destroy (&table);
    testutil_schedq_quiet (actor);                                    //  held: task 1 waits
    //  Held before it joins: it joins held
    text = s_admin_kept (actor, "beta", DROVER_ADMIN_HOLD, "not yet", 3, "worker.hold");
    assert_string_equal (text, "HOLD (not connected: kept for when it joins)");
    free (text);
    testutil_schedq_up (actor, "beta", "r-beta", 1, 0, "");
    testutil_schedq_quiet (actor);
    //  A setting the store kept, said at start, holds its worker when it joins
    zsock_send (actor, "ss44s8", "ADMIN", "gamma", DROVER_ADMIN_DRAIN, 0, "rack move",
                (uint64_t) 1700000000000);
    testutil_schedq_up (actor, "gamma", "r-gamma", 1, 0, "");
    testutil_schedq_quiet (actor);
    table = testutil_schedq_list_only (actor, 4);
    row = testutil_schedq_row (table, "gamma");
    assert_int_equal (row->admin, DROVER_ADMIN_DRAIN);
    assert_string_equal (row->admin_reason, "rack move");
    assert_int_equal (row->admin_since, 1700000000000);
    drover_msg_destroy (&table);
    //  Resume: the store forgets it (admin RUN)
    free (s_admin_kept (actor, "alpha", DROVER_ADMIN_RUN, NULL, 5, "worker.resume"));
    testutil_schedq_expect_one (actor, 1, "alpha");
}

//  A worker's probation end, as probation says it, is in its row
static void
test_probation_until_listed (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    testutil_schedq_up (actor, "alpha", "r-alpha", 1, 0, "");
    zsock_send (actor, "sss8", "PROBATION", "alpha", "send refused", (uint64_t) 1700000030000);
    drover_msg_t *table = testutil_schedq_list_only (actor, 1);
    assert_int_equal (table->worker_rows [0].health, DROVER_HEALTH_PROBATION);
    assert_int_equal (table->worker_rows [0].probation_until, 1700000030000);
    drover_msg_destroy (&table);
    zsock_send (actor, "sss", "CLEARED", "alpha", "timeout");
    table = testutil_schedq_list_only (actor, 2);
    assert_int_equal (table->worker_rows [0].health, DROVER_HEALTH_OK);
    assert_int_equal (table->worker_rows [0].probation_until, 0);
    drover_msg_destroy (&table);
}

//  WORKER TABLE: a row per worker, sorted by id, with use, labels and stats
static void
test_worker_list (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    testutil_schedq_up (actor, "zeta", "r-zeta", 8, 0, "");
    testutil_schedq_up (actor, "alpha", "r-alpha", 2, 100, "x=1\ny=2");
    drover_stats_t stats = { .load = { 0.5, 0.25, 0.125 }, .mem_total = 4096, .running = 1 };
    zframe_t *frame = zframe_new (&stats, sizeof stats);
    zsock_send (actor, "ssf", "STATS", "alpha", frame);
    zframe_destroy (&frame);
    zsock_send (actor, "s", "VERBOSE");
    testutil_schedq_queue (actor, 1, 0, 1, 60, "x=1");
    testutil_schedq_expect_one (actor, 1, "alpha");
    testutil_schedq_admin (actor, "zeta", DROVER_ADMIN_HOLD, 5, DROVER_CODE_OK);
    testutil_expect_event (actor, "worker.hold", "zeta", "");
    drover_msg_t *table = testutil_schedq_list_only (actor, 77);
    assert_int_equal (table->nrows, 2);
    drover_worker_row_t *row = &table->worker_rows [0];
    assert_string_equal (row->id, "alpha");
    assert_int_equal (row->health, DROVER_HEALTH_OK);
    assert_int_equal (row->admin, DROVER_ADMIN_RUN);
    assert_int_equal (row->procs, 2);
    assert_int_equal (row->procs_used, 1);
    assert_int_equal (row->mem, 100);
    assert_int_equal (row->mem_used, 60);
    assert_int_equal (row->nlabels, 2);
    assert_string_equal (row->labels [0], "x=1");
    assert_string_equal (row->labels [1], "y=2");
    assert_int_equal (row->stats.mem_total, 4096);
    assert_int_equal (row->stats.running, 1);
    assert_true (row->stats.load [0] == 0.5);
    row = &table->worker_rows [1];
    assert_string_equal (row->id, "zeta");
    assert_int_equal (row->admin, DROVER_ADMIN_HOLD);
    assert_int_equal (row->procs, 8);
    assert_int_equal (row->procs_used, 0);
    drover_msg_destroy (&table);
}

//  Receive the next command but LOAD (and EVENT) within 2 s and check its word
static zmsg_t *
s_expect_past_load (zactor_t *actor, const char *command)
{
    int64_t deadline = zclock_mono () + 2000;
    while (zclock_mono () < deadline) {
        zmsg_t *msg = testutil_actor_recv (actor, (int) (deadline - zclock_mono ()));
        if (!msg)
            break;
        char *word = zmsg_popstr (msg);
        if (streq (word, command)) {
            zstr_free (&word);
            return msg;
        }
        if (!streq (word, "LOAD") && !streq (word, "EVENT"))
            fail_msg ("expected %s, got %s", command, word);
        zstr_free (&word);
        zmsg_destroy (&msg);
    }
    fail_msg ("no %s within 2 s", command);
    return NULL;
}

//  Wait for a LOAD with ndemand shapes and nworkers workers; returns it
static drover_loadreport_t *
s_expect_load (zactor_t *actor, size_t ndemand, size_t nworkers)
{
    int64_t deadline = zclock_mono () + 2000;
    while (zclock_mono () < deadline) {
        zmsg_t *msg = testutil_actor_recv (actor, (int) (deadline - zclock_mono ()));
        if (!msg)
            break;
        char *word = zmsg_popstr (msg);
        drover_loadreport_t *report = NULL;
        if (streq (word, "LOAD")) {
            zframe_t *frame = zmsg_pop (msg);
            report = drover_loadreport_decode (frame);
            assert_non_null (report);
            zframe_destroy (&frame);
            size_t shapes, workers;
            drover_loadreport_demand (report, &shapes);
            drover_loadreport_workers (report, &workers);
            if (shapes != ndemand || workers != nworkers)
                drover_loadreport_destroy (&report);
        }
        zstr_free (&word);
        zmsg_destroy (&msg);
        if (report)
            return report;
    }
    fail_msg ("no LOAD of %zu shapes and %zu workers within 2 s", ndemand, nworkers);
    return NULL;
}

//  With a pool: LOAD says the shapes waiting (counted as the queue's
//  groups) and each worker's load; RETIRE takes a worker from new work
//  and says RETIRED once it is idle; POOLADMIN keeps an instance's idle
//  behaviour in the admin book
static void
test_pool_load_retire_and_admin (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    zsock_send (actor, "s444444", "CONFIGURE", 100, 0, 0, 3600000, 10, 1);
    drover_config_t *config = drover_config_new ();
    char *error = NULL;
    assert_int_equal (drover_config_set (config, "pool/type/small/procs", "2", &error), 0);
    zsock_send (actor, "sp", "POOLTYPES", drover_poolconfig_dup (&config->pool));
    drover_config_destroy (&config);
    drover_loadreport_t *report = s_expect_load (actor, 0, 0);   //  at once
    drover_loadreport_destroy (&report);

    testutil_schedq_up (actor, "POOL-x-1", "r-1", 2, 0, "");
    report = s_expect_load (actor, 0, 1);
    drover_loadreport_destroy (&report);
    testutil_schedq_queue (actor, 1, 0, 2, 0, "");
    testutil_schedq_expect_one (actor, 1, "POOL-x-1");
    testutil_schedq_queue (actor, 2, 0, 2, 0, "");
    testutil_schedq_queue (actor, 3, 0, 2, 0, "");
    testutil_schedq_queue (actor, 4, 0, 1, 1 << 20, "gpu=1");
    //  A task asking devices: its shape says them, for the pool's types
    drover_outbox_t *outbox = drover_outbox_new ();
    drover_tenancy_t tenancy = { "alice", "gpu=2", 0 };
    drover_outbox_say_queue (outbox, 5, 0, 3, 0, NULL, &tenancy);
    testutil_say_batch (testutil_schedq_link, &outbox);
    report = s_expect_load (actor, 3, 1);
    size_t count;
    const drover_pooldemand_t *demand = drover_loadreport_demand (report, &count);
    const drover_pooldemand_t *twos = NULL, *gpus = NULL, *devices = NULL;
    for (size_t index = 0; index < count; index++)
        if (demand [index].procs == 2)
            twos = &demand [index];
        else
        if (demand [index].procs == 1)
            gpus = &demand [index];
        else
            devices = &demand [index];
    assert_non_null (twos);
    assert_non_null (gpus);
    assert_non_null (devices);
    assert_int_equal (twos->count, 2);
    assert_string_equal (twos->labels, "");
    assert_string_equal (twos->devices, "");
    assert_int_equal (gpus->count, 1);
    assert_true (gpus->mem == 1 << 20);
    assert_string_equal (gpus->labels, "gpu=1");
    assert_int_equal (devices->count, 1);
    assert_string_equal (devices->devices, "gpu=2");
    const drover_poolload_t *load = drover_loadreport_workers (report, &count);
    assert_string_equal (load [0].id, "POOL-x-1");
    assert_int_equal (load [0].tasks, 1);
    assert_int_equal (load [0].procs_used, 2);
    assert_true (load [0].last_task == 1);
    drover_loadreport_destroy (&report);

    //  Retired while it runs task 1: RETIRED once that ends, and task 2
    //  does not go there
    zsock_send (actor, "ss", "RETIRE", "POOL-x-1");
    testutil_say_free (testutil_schedq_link, 1);
    zmsg_destroy (&(zmsg_t *) { s_expect_past_load (actor, "RETIRED") });
    assert_null (testutil_link_recv (testutil_schedq_link, 0));
    //  A worker it does not have is retired at once
    zsock_send (actor, "ss", "RETIRE", "POOL-x-9");
    zmsg_t *retired = s_expect_past_load (actor, "RETIRED");
    testutil_pop_check (retired, "POOL-x-9");
    zmsg_destroy (&retired);

    //  An instance's behaviour is kept by its worker id, before it joins
    zsock_send (actor, "ss4s", "POOLADMIN", "POOL-x-2", DROVER_ADMIN_HOLD, "pool: hold");
    zmsg_t *keep = s_expect_past_load (actor, "KEEPADMIN");
    testutil_pop_check (keep, "POOL-x-2");
    testutil_pop_check (keep, "1");                     //  HOLD
    testutil_pop_check (keep, "0");
    testutil_pop_check (keep, "pool: hold");
    zmsg_destroy (&keep);
    testutil_schedq_up (actor, "POOL-x-2", "r-2", 2, 0, "");
    assert_null (testutil_link_recv (testutil_schedq_link, 300));     //  held: tasks 2, 3 stay queued
    zsock_send (actor, "ss4s", "POOLADMIN", "POOL-x-2", DROVER_ADMIN_RUN, "pool: run");
    testutil_schedq_expect_one (actor, 2, "POOL-x-2");
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_pool_load_retire_and_admin, testutil_schedq_setup,
                                         testutil_schedq_teardown),
        cmocka_unit_test_setup_teardown (test_admin_errors, testutil_schedq_setup,
                                         testutil_schedq_teardown),
        cmocka_unit_test_setup_teardown (test_drain_then_leave, testutil_schedq_setup,
                                         testutil_schedq_teardown),
        cmocka_unit_test_setup_teardown (test_probation, testutil_schedq_setup,
                                         testutil_schedq_teardown),
        cmocka_unit_test_setup_teardown (test_lost_worker, testutil_schedq_setup,
                                         testutil_schedq_teardown),
        cmocka_unit_test_setup_teardown (test_registered_again_counts_running_first,
                                         testutil_schedq_setup,
                                         testutil_schedq_teardown),
        cmocka_unit_test_setup_teardown (test_gone_workers_listed, testutil_schedq_setup,
                                         testutil_schedq_teardown),
        cmocka_unit_test_setup_teardown (test_drain_stays_connected, testutil_schedq_setup,
                                         testutil_schedq_teardown),
        cmocka_unit_test_setup_teardown (test_admin_kept_by_worker_id, testutil_schedq_setup,
                                         testutil_schedq_teardown),
        cmocka_unit_test_setup_teardown (test_probation_until_listed, testutil_schedq_setup,
                                         testutil_schedq_teardown),
        cmocka_unit_test_setup_teardown (test_worker_list, testutil_schedq_setup,
                                         testutil_schedq_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
