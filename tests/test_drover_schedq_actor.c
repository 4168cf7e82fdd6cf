/*  =========================================================================
    test_drover_schedq - the schedq actor through its pipe and its link
    (the test plays the main and assign): a pass's ASSIGNs
    in order, constraints, hold / drain / resume with LEAVE,
    probation, workers lost, WORKER LIST and WORKER ADMIN
    =========================================================================
*/

#include "testutil_actor.h"
#include "drover_schedq_actor.h"
#include "drover_loadreport.h"
#include "drover_config.h"

//  The test's end of the actor's link: it plays assign there (QUEUE,
//  TAKE, DEQUEUE, FREE, PROBATION, RETURN in, ASSIGN, LEASE, REVOKE out),
//  and the main on the pipe
static zsock_t *s_link = NULL;

//  Expect exactly these placements next on the link, in this order, one
//  ASSIGN record each
static void
s_expect_assign (zactor_t *actor, size_t count, const uint64_t *tasks, const char **workers)
{
    for (size_t index = 0; index < count; index++) {
        zmsg_t *msg = testutil_expect_link (s_link, "ASSIGN", 2000);
        assert_int_equal (zmsg_size (msg), 2);
        char *task = zmsg_popstr (msg);
        assert_int_equal (strtoull (task, NULL, 10), tasks [index]);
        zstr_free (&task);
        testutil_pop_check (msg, workers [index]);
        zmsg_destroy (&msg);
    }
}

//  Expect one ASSIGN: task on worker
static void
s_expect_one (zactor_t *actor, uint64_t task, const char *worker)
{
    s_expect_assign (actor, 1, &task, &worker);
}

//  Say UP for a worker
static void
s_up (zactor_t *actor, const char *worker, const char *route, uint32_t procs, uint64_t mem,
      const char *labels)
{
    zframe_t *frame = zframe_new (route, strlen (route));
    zframe_t *running = zframe_new_empty ();
    zsock_send (actor, "ssf848sf4s", "UP", worker, frame, (uint64_t) 1, procs, mem, labels, running,
                (uint32_t) DROVER_MSG_LEVEL, DROVER_RELEASE);
    zframe_destroy (&running);
    zframe_destroy (&frame);
}

//  Say QUEUE for a request
static void
s_queue (zactor_t *actor, uint64_t task, int priority, uint32_t procs, uint64_t mem,
         const char *labels)
{
    testutil_say_queue (s_link, task, priority, procs, mem, labels);
}

//  Start most tests: worker alpha up with procs, task 1 queued and placed
//  on it
static void
s_alpha_runs_task_1 (zactor_t *actor, uint32_t procs)
{
    s_up (actor, "alpha", "r-alpha", procs, 0, "");
    s_queue (actor, 1, 0, 1, 0, "");
    s_expect_one (actor, 1, "alpha");
}

//  Send WORKER ADMIN with a reason (NULL: none) and flags, and expect its
//  reply code; returns the reply's text (caller frees)
static char *
s_admin_with (zactor_t *actor, const char *worker, int admin, const char *reason,
              uint32_t flags, uint32_t seq, int code)
{
    drover_msg_t *request = drover_msg_new (DROVER_MSG_WORKER_ADMIN);
    snprintf (request->worker, sizeof request->worker, "%s", worker);
    request->admin = (uint8_t) admin;
    request->seq = seq;
    request->flags = flags;
    if (reason)
        drover_msg_set_reason (request, reason);
    testutil_hand (actor, "client", request);
    drover_msg_t *reply = testutil_expect_send (actor, "client", "");
    assert_int_equal (reply->id, code == DROVER_CODE_OK? DROVER_MSG_OK: DROVER_MSG_ERROR);
    assert_int_equal (reply->code, code);
    assert_int_equal (reply->seq, seq);
    char *text = strdup (reply->reason? reply->reason: "");
    drover_msg_destroy (&reply);
    return text;
}

//  Send WORKER ADMIN and expect its reply code (and the event if changed)
static void
s_admin (zactor_t *actor, const char *worker, int admin, uint32_t seq, int code)
{
    free (s_admin_with (actor, worker, admin, NULL, 0, seq, code));
}

//  Find a worker's row in a WORKER TABLE, or fail
static drover_worker_row_t *
s_row (drover_msg_t *table, const char *worker)
{
    for (uint32_t index = 0; index < table->nrows; index++)
        if (streq (table->worker_rows [index].id, worker))
            return &table->worker_rows [index];
    fail_msg ("no row for %s", worker);
    return NULL;
}

//  Ask for WORKER LIST and return the table; everything said before it,
//  on the pipe or the link, must be nothing at all (schedq sends what a
//  turn says on the link before what it says on the pipe)
static drover_msg_t *
s_list_only (zactor_t *actor, uint32_t seq)
{
    drover_msg_t *request = drover_msg_new (DROVER_MSG_WORKER_LIST);
    request->seq = seq;
    testutil_hand (actor, "client", request);
    drover_msg_t *table = testutil_expect_send (actor, "client", "");
    assert_int_equal (table->id, DROVER_MSG_WORKER_TABLE);
    assert_int_equal (table->seq, seq);
    zmsg_t *said = testutil_link_recv (s_link, 0);
    if (said)
        print_error ("schedq said %s on the link before a WORKER TABLE\n",
                     zframe_strdup (zmsg_first (said)));
    assert_null (said);
    return table;
}

//  Assert the actor says nothing more about what it was told so far: two
//  WORKER LISTs in a row, each answered before anything else (a pass runs
//  after each batch, so a placement would come before the second answer)
static void
s_quiet (zactor_t *actor)
{
    drover_msg_t *table = s_list_only (actor, 9001);
    drover_msg_destroy (&table);
    table = s_list_only (actor, 9002);
    drover_msg_destroy (&table);
}

static int
s_setup (void **state)
{
    char endpoint [64];
    static int count = 0;
    snprintf (endpoint, sizeof endpoint, "inproc://test-schedq-link-%d", ++count);
    zactor_t *actor = zactor_new (drover_schedq_actor, endpoint);
    assert_non_null (actor);
    s_link = zsock_new (ZMQ_PAIR);
    assert_int_equal (zsock_connect (s_link, "%s", endpoint), 0);
    zsock_send (actor, "s444", "CONFIGURE", 100, 0, 0);
    *state = actor;
    return 0;
}

static int
s_teardown (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    testutil_actor_destroy (&actor);
    zsock_destroy (&s_link);
    return 0;
}

//  A pass's placements come out in priority order; hold takes no new
//  work, resume does
static void
test_pass_places_in_priority_order (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    s_up (actor, "alpha", "r-alpha", 2, 0, "");
    s_admin (actor, "alpha", DROVER_ADMIN_HOLD, 1, DROVER_CODE_OK);
    testutil_expect_event (actor, "worker.hold", "alpha", "");
    s_queue (actor, 1, 0, 1, 0, "");
    s_queue (actor, 2, 5, 1, 0, "");
    s_queue (actor, 3, -1, 1, 0, "");
    s_quiet (actor);                                    //  held: nothing placed
    s_admin (actor, "alpha", DROVER_ADMIN_RUN, 2, DROVER_CODE_OK);
    testutil_expect_event (actor, "worker.resume", "alpha", "");
    uint64_t first [] = { 3, 1 };
    const char *alphas [] = { "alpha", "alpha" };
    s_expect_assign (actor, 2, first, alphas);
    testutil_say_free (s_link, (uint64_t) 3);
    s_expect_one (actor, 2, "alpha");
    s_quiet (actor);
}

//  Requests wait for workers with the labels and memory they need
static void
test_constraints (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    s_queue (actor, 1, 0, 1, 0, "gpu=yes");
    s_queue (actor, 2, 0, 1, 0, "");
    s_queue (actor, 3, 0, 1, 0, "gpu=no");
    s_queue (actor, 4, 0, 1, 1000, "");
    s_up (actor, "gpu", "r-gpu", 4, 100, "gpu=yes\nzone=a");
    uint64_t first [] = { 1, 2 };
    const char *gpus [] = { "gpu", "gpu" };
    s_expect_assign (actor, 2, first, gpus);
    s_up (actor, "big", "r-big", 1, 5000, "gpu=no");
    s_expect_one (actor, 3, "big");
    testutil_say_free (s_link, (uint64_t) 3);
    s_expect_one (actor, 4, "big");
}

//  A dequeued request is never placed; a freed slot goes to the next one
static void
test_dequeue_and_free (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    s_alpha_runs_task_1 (actor, 1);
    s_queue (actor, 2, 0, 1, 0, "");
    s_queue (actor, 3, 0, 1, 0, "");
    zsock_send (s_link, "s8", "DEQUEUE", (uint64_t) 2);
    zsock_send (s_link, "s8", "DEQUEUE", (uint64_t) 99);     //  not queued: no-op
    testutil_say_free (s_link, (uint64_t) 1);
    s_expect_one (actor, 3, "alpha");
    s_quiet (actor);
}

//  A task queued again while still assigned (its FREE not yet seen) gives
//  back the old placement first
static void
test_requeue_while_assigned (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    s_alpha_runs_task_1 (actor, 1);
    s_queue (actor, 1, 0, 1, 0, "");
    s_expect_one (actor, 1, "alpha");
    drover_msg_t *table = s_list_only (actor, 7);
    assert_int_equal (table->nrows, 1);
    assert_int_equal (table->worker_rows [0].procs_used, 1);
    drover_msg_destroy (&table);
}

//  A task requeued after its worker was lost runs before the tasks that
//  arrived after it (its id is its arrival), not behind them
static void
test_requeued_task_keeps_its_place (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    s_alpha_runs_task_1 (actor, 1);
    s_queue (actor, 2, 0, 1, 0, "");
    s_queue (actor, 3, 0, 1, 0, "");
    zsock_send (actor, "sss", "LOST", "alpha", "silent");
    //  assign requeues it once it has heard the LOST, which the main sent
    //  schedq first: schedq has dropped alpha before the QUEUE comes
    drover_msg_t *table = s_list_only (actor, 5);
    assert_int_equal (table->nrows, 1);                 //  listed as gone, with no work
    assert_int_equal (table->worker_rows [0].state, DROVER_WORKER_LOST);
    drover_msg_destroy (&table);
    s_queue (actor, 1, 0, 1, 0, "");
    //  The link and the pipe are not ordered between them: let schedq read
    //  the QUEUE (a turn that answers on the pipe is followed by one that
    //  polls every socket) before beta comes
    s_quiet (actor);
    s_up (actor, "beta", "r-beta", 1, 0, "");
    s_expect_one (actor, 1, "beta");
    testutil_say_free (s_link, (uint64_t) 1);
    s_expect_one (actor, 2, "beta");
}

//  Requests no worker can hold, at the highest priority and
//  far more than max-shelve (100 here), keep nothing else from running: a
//  request behind them is placed in the first pass; a worker that can
//  hold them wakes them
static void
test_unplaceable_requests_starve_nothing (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    s_up (actor, "alpha", "r-alpha", 1, 0, "");
    for (uint64_t task = 1; task <= 1000; task++)
        s_queue (actor, task, -100, 1, 0, "pool=nowhere");
    s_queue (actor, 5000, 100, 1, 0, "");
    s_expect_one (actor, 5000, "alpha");
    s_up (actor, "nowhere", "r-nowhere", 1, 0, "pool=nowhere");
    s_expect_one (actor, 1, "nowhere");
}

//  No priority inversion, through the pipe: a priority-0 four-proc
//  request reserves the 4-proc worker busy with priority-5 one-proc
//  tasks (WORKER TABLE shows it), no small one takes the procs it frees,
//  and it is placed as soon as all 4 are free
static void
test_wide_task_reserves_its_worker (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    s_up (actor, "w", "r-w", 4, 0, "");
    //  In one batch, as assign says them in one turn: said apart, a pass
    //  could run between them and place them in more than one ASSIGN
    drover_outbox_t *queues = drover_outbox_new ();
    for (uint64_t task = 1; task <= 8; task++)
        drover_outbox_say_queue (queues, task, 5, 1, 0, NULL);
    testutil_say_batch (s_link, &queues);
    uint64_t smalls [] = { 1, 2, 3, 4 };
    const char *ws [] = { "w", "w", "w", "w" };
    s_expect_assign (actor, 4, smalls, ws);
    s_queue (actor, 100, 0, 4, 0, "");
    for (uint64_t task = 1; task <= 3; task++) {
        testutil_say_free (s_link, task);
        //  The first answer may come before the pass, the second after it
        drover_msg_t *table = s_list_only (actor, (uint32_t) task);     //  nothing placed
        drover_msg_destroy (&table);
        table = s_list_only (actor, (uint32_t) task);
        assert_int_equal (table->nrows, 1);
        assert_true (table->worker_rows [0].reserved == 100);
        drover_msg_destroy (&table);
    }
    testutil_say_free (s_link, (uint64_t) 4);
    s_expect_one (actor, 100, "w");
    drover_msg_t *table = s_list_only (actor, 9);
    assert_true (table->worker_rows [0].reserved == 0);
    assert_int_equal (table->worker_rows [0].procs_used, 4);
    drover_msg_destroy (&table);
}

//  Resuming a worker neither connected nor set: 404; a bad setting: 400
static void
test_admin_errors (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    s_admin (actor, "ghost", DROVER_ADMIN_RUN, 41, DROVER_CODE_NOT_FOUND);
    s_up (actor, "alpha", "r-alpha", 1, 0, "");
    s_admin (actor, "alpha", 7, 42, DROVER_CODE_BAD_REQUEST);
    s_admin (actor, "alpha", DROVER_ADMIN_RUN, 43, DROVER_CODE_OK);     //  no change: no event
    s_quiet (actor);
}

//  Draining with exit: nothing new; LEAVE once the last task is freed, and
//  only once; an idle worker told to drain with exit is told to leave at once
static void
test_drain_then_leave (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    s_alpha_runs_task_1 (actor, 2);
    free (s_admin_with (actor, "alpha", DROVER_ADMIN_DRAIN, NULL, DROVER_ADMIN_EXIT, 1,
                        DROVER_CODE_OK));
    testutil_expect_event (actor, "worker.drain", "alpha", "");
    s_queue (actor, 2, 0, 1, 0, "");
    s_quiet (actor);                                    //  no LEAVE, no placement
    testutil_say_free (s_link, (uint64_t) 1);
    drover_msg_t *leave = testutil_expect_send (actor, "r-alpha", "alpha");
    assert_int_equal (leave->id, DROVER_MSG_WORKER_LEAVE);
    drover_msg_destroy (&leave);
    testutil_say_free (s_link, (uint64_t) 1);
    s_admin (actor, "alpha", DROVER_ADMIN_DRAIN, 2, DROVER_CODE_OK);
    s_quiet (actor);                                    //  LEAVE only once

    s_up (actor, "beta", "r-beta", 1, 0, "");
    s_expect_one (actor, 2, "beta");
    s_up (actor, "gamma", "r-gamma", 1, 0, "");
    free (s_admin_with (actor, "gamma", DROVER_ADMIN_DRAIN, NULL, DROVER_ADMIN_EXIT, 3,
                        DROVER_CODE_OK));
    testutil_expect_event (actor, "worker.drain", "gamma", "");
    leave = testutil_expect_send (actor, "r-gamma", "gamma");
    assert_int_equal (leave->id, DROVER_MSG_WORKER_LEAVE);
    drover_msg_destroy (&leave);
    s_quiet (actor);
}

//  A worker on probation takes nothing until cleared, and shows as PROBATION
static void
test_probation (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    s_up (actor, "alpha", "r-alpha", 1, 0, "");
    zsock_send (actor, "sss", "PROBATION", "alpha", "send refused");
    zsock_send (actor, "sss", "PROBATION", "ghost", "send refused");    //  unknown: ignored
    s_queue (actor, 1, 0, 1, 0, "");
    drover_msg_t *table = s_list_only (actor, 1);
    assert_int_equal (table->nrows, 1);
    assert_int_equal (table->worker_rows [0].health, DROVER_HEALTH_PROBATION);
    drover_msg_destroy (&table);
    s_quiet (actor);
    zsock_send (actor, "sss", "CLEARED", "alpha", "timeout");
    s_expect_one (actor, 1, "alpha");
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

static uint32_t
    s_procs_used (zactor_t *actor, const char *worker);

//  A worker that registers again reporting attempts it runs (after a
//  restart of the broker) takes nothing until assign has counted them
//  (PLACED) and said SETTLED: a request that waits is not placed past its
//  procs meanwhile. A SETTLED read before its UP counts too.
static void
test_registered_again_counts_running_first (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    s_queue (actor, 5, 0, 1, 0, "");
    s_up_running (actor, "alpha", "r-alpha", 2, 2);
    s_quiet (actor);                                    //  not before assign says
    zsock_send (s_link, "s8s48s", "PLACED", (uint64_t) 1, "alpha", 1, (uint64_t) 0, "");
    zsock_send (s_link, "s8s48s", "PLACED", (uint64_t) 2, "alpha", 1, (uint64_t) 0, "");
    zsock_send (s_link, "ss", "SETTLED", "alpha");
    s_quiet (actor);                                    //  full: 2 of 2 procs
    assert_int_equal (s_procs_used (actor, "alpha"), 2);
    testutil_say_free (s_link, 1);
    s_expect_one (actor, 5, "alpha");

    zsock_send (s_link, "ss", "SETTLED", "beta");       //  read before beta's UP
    s_quiet (actor);
    s_queue (actor, 6, 0, 1, 0, "");
    s_up_running (actor, "beta", "r-beta", 2, 1);
    s_expect_one (actor, 6, "beta");
}

//  A lost worker is dropped with its placements; its requests wait for
//  another worker
static void
test_lost_worker (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    s_alpha_runs_task_1 (actor, 1);
    zsock_send (actor, "sss", "LOST", "alpha", "silent");
    zsock_send (actor, "sss", "LOST", "ghost", "silent");              //  unknown: ignored
    s_queue (actor, 2, 0, 1, 0, "");
    drover_msg_t *table = s_list_only (actor, 1);
    assert_int_equal (table->nrows, 1);                 //  listed as gone: takes nothing
    assert_string_equal (table->worker_rows [0].id, "alpha");
    assert_int_equal (table->worker_rows [0].state, DROVER_WORKER_LOST);
    assert_int_equal (table->worker_rows [0].procs_used, 0);
    drover_msg_destroy (&table);
    s_quiet (actor);
    s_up (actor, "beta", "r-beta", 1, 0, "");
    s_expect_one (actor, 2, "beta");
}

//  A worker that went stays listed: LOST with why and since, or LEFT on a
//  GOODBYE ("drained, left" after a drain with exit); one that comes back
//  replaces its row; max-gone bounds them, oldest out first
static void
test_gone_workers_listed (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    int64_t before = zclock_time ();
    s_up (actor, "alpha", "r-alpha", 4, 1024, "zone=a");
    s_up (actor, "beta", "r-beta", 2, 0, "");
    s_up (actor, "gamma", "r-gamma", 1, 0, "");
    zsock_send (actor, "sss", "LOST", "alpha", "silent");
    zsock_send (actor, "sss", "LOST", "beta", "left");
    free (s_admin_with (actor, "gamma", DROVER_ADMIN_DRAIN, "retire", DROVER_ADMIN_EXIT, 1,
                        DROVER_CODE_OK));
    testutil_expect_event (actor, "worker.drain", "gamma", "retire");
    drover_msg_t *leave = testutil_expect_send (actor, "r-gamma", "gamma");
    assert_int_equal (leave->id, DROVER_MSG_WORKER_LEAVE);
    drover_msg_destroy (&leave);
    zsock_send (actor, "sss", "LOST", "gamma", "left");
    drover_msg_t *table = s_list_only (actor, 2);
    assert_int_equal (table->nrows, 3);
    drover_worker_row_t *row = s_row (table, "alpha");
    assert_int_equal (row->state, DROVER_WORKER_LOST);
    assert_int_equal (row->health, DROVER_HEALTH_LOST);
    assert_string_equal (row->why, "silent");
    assert_true ((int64_t) row->since >= before && (int64_t) row->since <= zclock_time ());
    assert_int_equal (row->procs, 4);
    assert_int_equal (row->mem, 1024);
    assert_int_equal (row->nlabels, 1);
    assert_string_equal (row->labels [0], "zone=a");
    row = s_row (table, "beta");
    assert_int_equal (row->state, DROVER_WORKER_LEFT);
    assert_string_equal (row->why, "left");
    row = s_row (table, "gamma");
    assert_int_equal (row->state, DROVER_WORKER_LEFT);
    assert_string_equal (row->why, "drained, left");
    assert_int_equal (row->admin, DROVER_ADMIN_DRAIN);     //  what the operator said stays
    assert_string_equal (row->admin_reason, "retire");
    drover_msg_destroy (&table);
    //  alpha comes back: one row, up
    s_up (actor, "alpha", "r-alpha2", 4, 1024, "zone=a");
    table = s_list_only (actor, 3);
    assert_int_equal (table->nrows, 3);
    row = s_row (table, "alpha");
    assert_int_equal (row->state, DROVER_WORKER_UP);
    assert_int_equal (row->health, DROVER_HEALTH_OK);
    assert_null (row->why);
    assert_true ((int64_t) row->since >= before);
    drover_msg_destroy (&table);
    //  At most one gone row: the oldest (beta) goes
    zsock_send (actor, "s444444", "CONFIGURE", 100, 0, 0, 3600000, 1);
    table = s_list_only (actor, 4);
    assert_int_equal (table->nrows, 2);
    s_row (table, "alpha");
    s_row (table, "gamma");
    drover_msg_destroy (&table);
    //  keep-gone 0: none is listed
    zsock_send (actor, "s444444", "CONFIGURE", 100, 0, 0, 0, 10);
    table = s_list_only (actor, 5);
    assert_int_equal (table->nrows, 1);
    s_row (table, "alpha");
    drover_msg_destroy (&table);
    s_quiet (actor);
}

//  Drain without exit keeps the worker connected and idle: no LEAVE, no
//  new work; resume gives it work again
static void
test_drain_stays_connected (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    s_alpha_runs_task_1 (actor, 2);
    free (s_admin_with (actor, "alpha", DROVER_ADMIN_DRAIN, "disk swap", 0, 1, DROVER_CODE_OK));
    testutil_expect_event (actor, "worker.drain", "alpha", "disk swap");
    s_queue (actor, 2, 0, 1, 0, "");
    testutil_say_free (s_link, (uint64_t) 1);
    s_quiet (actor);                                    //  no LEAVE, no placement
    drover_msg_t *table = s_list_only (actor, 2);
    drover_worker_row_t *row = s_row (table, "alpha");
    assert_int_equal (row->state, DROVER_WORKER_UP);
    assert_int_equal (row->admin, DROVER_ADMIN_DRAIN);
    assert_int_equal (row->tasks, 0);
    assert_string_equal (row->admin_reason, "disk swap");
    assert_true (row->admin_since > 0);
    drover_msg_destroy (&table);
    s_admin (actor, "alpha", DROVER_ADMIN_RUN, 3, DROVER_CODE_OK);
    testutil_expect_event (actor, "worker.resume", "alpha", "");
    s_expect_one (actor, 2, "alpha");
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
    s_up (actor, "alpha", "r-alpha", 1, 0, "");
    free (s_admin_with (actor, "alpha", DROVER_ADMIN_HOLD, "disk swap", 0, 1, DROVER_CODE_OK));
    testutil_expect_event (actor, "worker.hold", "alpha", "disk swap");
    zmsg_t *keep = testutil_expect (actor, "KEEPADMIN", 2000);
    testutil_pop_check (keep, "alpha");
    testutil_pop_check (keep, "1");                     //  HOLD
    testutil_pop_check (keep, "0");
    testutil_pop_check (keep, "disk swap");
    zmsg_destroy (&keep);
    zsock_send (actor, "sss", "LOST", "alpha", "restarted");
    s_up (actor, "alpha", "r-alpha2", 1, 0, "");
    s_queue (actor, 1, 0, 1, 0, "");
    drover_msg_t *table = s_list_only (actor, 2);
    drover_worker_row_t *row = s_row (table, "alpha");
    assert_int_equal (row->state, DROVER_WORKER_UP);
    assert_int_equal (row->admin, DROVER_ADMIN_HOLD);
    assert_string_equal (row->admin_reason, "disk swap");
    drover_msg_destroy (&table);
    s_quiet (actor);                                    //  held: task 1 waits
    //  Held before it joins: it joins held
    char *text = s_admin_with (actor, "beta", DROVER_ADMIN_HOLD, "not yet", 0, 3, DROVER_CODE_OK);
    assert_string_equal (text, "HOLD (not connected: kept for when it joins)");
    free (text);
    testutil_expect_event (actor, "worker.hold", "beta", "not yet");
    zmsg_destroy (&(zmsg_t *) { testutil_expect (actor, "KEEPADMIN", 2000) });
    s_up (actor, "beta", "r-beta", 1, 0, "");
    s_quiet (actor);
    //  A setting the store kept, said at start, holds its worker when it joins
    zsock_send (actor, "ss44s8", "ADMIN", "gamma", DROVER_ADMIN_DRAIN, 0, "rack move",
                (uint64_t) 1700000000000);
    s_up (actor, "gamma", "r-gamma", 1, 0, "");
    s_quiet (actor);
    table = s_list_only (actor, 4);
    row = s_row (table, "gamma");
    assert_int_equal (row->admin, DROVER_ADMIN_DRAIN);
    assert_string_equal (row->admin_reason, "rack move");
    assert_int_equal (row->admin_since, 1700000000000);
    drover_msg_destroy (&table);
    //  Resume: the store forgets it (admin RUN)
    s_admin (actor, "alpha", DROVER_ADMIN_RUN, 5, DROVER_CODE_OK);
    testutil_expect_event (actor, "worker.resume", "alpha", "");
    keep = testutil_expect (actor, "KEEPADMIN", 2000);
    testutil_pop_check (keep, "alpha");
    testutil_pop_check (keep, "0");
    zmsg_destroy (&keep);
    s_expect_one (actor, 1, "alpha");
}

//  A worker's probation end, as probation says it, is in its row
static void
test_probation_until_listed (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    s_up (actor, "alpha", "r-alpha", 1, 0, "");
    zsock_send (actor, "sss8", "PROBATION", "alpha", "send refused", (uint64_t) 1700000030000);
    drover_msg_t *table = s_list_only (actor, 1);
    assert_int_equal (table->worker_rows [0].health, DROVER_HEALTH_PROBATION);
    assert_int_equal (table->worker_rows [0].probation_until, 1700000030000);
    drover_msg_destroy (&table);
    zsock_send (actor, "sss", "CLEARED", "alpha", "timeout");
    table = s_list_only (actor, 2);
    assert_int_equal (table->worker_rows [0].health, DROVER_HEALTH_OK);
    assert_int_equal (table->worker_rows [0].probation_until, 0);
    drover_msg_destroy (&table);
}

//  WORKER TABLE: a row per worker, sorted by id, with use, labels and stats
static void
test_worker_list (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    s_up (actor, "zeta", "r-zeta", 8, 0, "");
    s_up (actor, "alpha", "r-alpha", 2, 100, "x=1\ny=2");
    drover_stats_t stats = { .load = { 0.5, 0.25, 0.125 }, .mem_total = 4096, .running = 1 };
    zframe_t *frame = zframe_new (&stats, sizeof stats);
    zsock_send (actor, "ssf", "STATS", "alpha", frame);
    zframe_destroy (&frame);
    zsock_send (actor, "s", "VERBOSE");
    s_queue (actor, 1, 0, 1, 60, "x=1");
    s_expect_one (actor, 1, "alpha");
    s_admin (actor, "zeta", DROVER_ADMIN_HOLD, 5, DROVER_CODE_OK);
    testutil_expect_event (actor, "worker.hold", "zeta", "");
    drover_msg_t *table = s_list_only (actor, 77);
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

//  Many requests at once: every one placed exactly once
static void
test_many_requests (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    s_up (actor, "alpha", "r-alpha", 600, 0, "");
    s_up (actor, "beta", "r-beta", 600, 0, "");
    const uint64_t total = 1000;
    for (uint64_t task = 1; task <= total; task++)
        s_queue (actor, task, (int) (task % 3), 1, 0, "");
    bool seen [1001] = { false };
    uint64_t placed = 0;
    while (placed < total) {
        zmsg_t *msg = testutil_expect_link (s_link, "ASSIGN", 2000);
        while (zmsg_size (msg) >= 2) {
            char *task = zmsg_popstr (msg);
            char *worker = zmsg_popstr (msg);
            uint64_t id = strtoull (task, NULL, 10);
            assert_true (id >= 1 && id <= total);
            assert_false (seen [id]);
            seen [id] = true;
            assert_true (streq (worker, "alpha") || streq (worker, "beta"));
            placed++;
            zstr_free (&task);
            zstr_free (&worker);
        }
        assert_int_equal (zmsg_size (msg), 0);
        zmsg_destroy (&msg);
    }
    s_quiet (actor);
}

//  ---------------------------------------------------------------------
//  Leases (ACTORS.md, "Leases")

//  Start the actor lending up to two idle workers to assign
static int
s_setup_leases (void **state)
{
    s_setup (state);
    zsock_send ((zactor_t *) *state, "s444", "CONFIGURE", 100, 0, 2);
    return 0;
}

//  Expect LEASE of a worker's procs on the link; returns the lease id
static uint64_t
s_expect_lease (const char *worker, const char *procs, const char *labels)
{
    zmsg_t *msg = testutil_expect_link (s_link, "LEASE", 2000);
    char *id = zmsg_popstr (msg);
    uint64_t lease = strtoull (id, NULL, 10);
    assert_true (lease > 0);
    zstr_free (&id);
    testutil_pop_check (msg, worker);
    testutil_pop_check (msg, procs);
    zframe_t *mem = zmsg_pop (msg);
    zframe_destroy (&mem);
    testutil_pop_check (msg, labels);
    zmsg_destroy (&msg);
    return lease;
}

//  Expect REVOKE of a lease on the link
static void
s_expect_revoke (uint64_t lease)
{
    zmsg_t *msg = testutil_expect_link (s_link, "REVOKE", 2000);
    char *id = zmsg_popstr (msg);
    assert_int_equal (strtoull (id, NULL, 10), lease);
    zstr_free (&id);
    zmsg_destroy (&msg);
}

//  Return the procs WORKER TABLE says a worker uses
static uint32_t
s_procs_used (zactor_t *actor, const char *worker)
{
    drover_msg_t *table = s_list_only (actor, 77);
    uint32_t used = UINT32_MAX;
    for (uint32_t row = 0; row < table->nrows; row++)
        if (streq (table->worker_rows [row].id, worker))
            used = table->worker_rows [row].procs_used;
    drover_msg_destroy (&table);
    assert_true (used != UINT32_MAX);
    return used;
}

//  An idle worker is lent to assign; a task taken from the lease is
//  assigned there; a request that waits gets the lease revoked, and is
//  placed once it comes back; what is free is lent again
static void
test_lease_lent_taken_revoked (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    s_up (actor, "alpha", "r-alpha", 4, 1000, "zone=a");
    uint64_t lease = s_expect_lease ("alpha", "4", "zone=a");
    drover_outbox_t *outbox = drover_outbox_new ();
    drover_outbox_say_take (outbox, lease, 1, 2, 100, "zone=a");
    testutil_say_batch (s_link, &outbox);
    s_queue (actor, 2, 0, 1, 0, "");
    s_expect_revoke (lease);                            //  the TAKE was read before
    assert_int_equal (s_procs_used (actor, "alpha"), 2);    //  lent is not used
    s_quiet (actor);                                    //  held until RETURN
    zsock_send (s_link, "s8", "RETURN", lease);
    uint64_t tasks [] = { 2 };
    const char *alphas [] = { "alpha" };
    s_expect_assign (actor, 1, tasks, alphas);
    uint64_t again = s_expect_lease ("alpha", "1", "zone=a");
    assert_true (again != lease);
    assert_int_equal (s_procs_used (actor, "alpha"), 3);
    zsock_send (s_link, "s8", "RETURN", lease);         //  twice: ignored
    s_quiet (actor);
}

//  While a lease is out and nothing waits, schedq leaves its sockets unread
//  for a millisecond or more after each turn, so that TAKE and FREE for
//  leased tasks do not wake it for each task: two WORKER LISTs in a row
//  take at least that. A request that waits ends it: the lease is revoked
//  and its RETURN read.
static void
test_held_while_lent (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    s_up (actor, "alpha", "r-alpha", 4, 1000, "");
    uint64_t lease = s_expect_lease ("alpha", "4", "");
    for (int round = 0; round < 3; round++) {
        int64_t asked = zclock_usecs ();
        drover_msg_t *table = s_list_only (actor, 1);      //  its turn ends in a hold
        drover_msg_destroy (&table);
        table = s_list_only (actor, 2);                     //  read once the hold is over
        drover_msg_destroy (&table);
        int64_t took = zclock_usecs () - asked;
        if (took < 1000)
            fail_msg ("two WORKER LISTs answered in %" PRId64 " usec while a lease is out", took);
    }
    s_queue (actor, 1, 0, 8, 0, "");        //  fits nowhere: it waits, the lease is revoked
    s_expect_revoke (lease);
    zsock_send (s_link, "s8", "RETURN", lease);
    assert_int_equal (s_procs_used (actor, "alpha"), 0);    //  the RETURN was read
    s_quiet (actor);
}

//  Send WORKER ADMIN without waiting for its answer
static void
s_admin_send (zactor_t *actor, const char *worker, int admin, uint32_t flags, uint32_t seq)
{
    drover_msg_t *request = drover_msg_new (DROVER_MSG_WORKER_ADMIN);
    snprintf (request->worker, sizeof request->worker, "%s", worker);
    request->admin = (uint8_t) admin;
    request->seq = seq;
    request->flags = flags;
    testutil_hand (actor, "client", request);
}

//  Expect the OK to the WORKER ADMIN with seq
static void
s_expect_admin_ok (zactor_t *actor, uint32_t seq)
{
    drover_msg_t *reply = testutil_expect_send (actor, "client", "");
    assert_int_equal (reply->id, DROVER_MSG_OK);
    assert_int_equal (reply->seq, seq);
    drover_msg_destroy (&reply);
}

//  A lent worker that is drained gets its lease revoked; the drain is
//  answered once the lease is back, and the worker told to leave once its
//  task is done too
static void
test_lease_revoked_on_drain (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    s_up (actor, "alpha", "r-alpha", 2, 0, "");
    uint64_t lease = s_expect_lease ("alpha", "2", "");
    drover_outbox_t *outbox = drover_outbox_new ();
    drover_outbox_say_take (outbox, lease, 1, 1, 0, "");
    testutil_say_batch (s_link, &outbox);
    s_admin_send (actor, "alpha", DROVER_ADMIN_DRAIN, DROVER_ADMIN_EXIT, 1);
    testutil_expect_event (actor, "worker.drain", "alpha", "");
    s_expect_revoke (lease);
    testutil_say_free (s_link, (uint64_t) 1);
    s_quiet (actor);                                    //  the lease is still out: no OK
    zsock_send (s_link, "s8", "RETURN", lease);
    s_expect_admin_ok (actor, 1);
    drover_msg_t *leave = testutil_expect_send (actor, "r-alpha", "alpha");
    assert_int_equal (leave->id, DROVER_MSG_WORKER_LEAVE);
    drover_msg_destroy (&leave);
    s_quiet (actor);
}

//  A hold of a lent worker is answered only once assign gave the lease
//  back: assign may place on the lease until it reads the REVOKE, and an
//  earlier OK would let the operator's next submit land there. A hold of
//  a worker lent nothing is answered at once; one lost meanwhile too.
static void
test_hold_answered_once_lease_is_back (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    s_up (actor, "alpha", "r-alpha", 2, 0, "");
    uint64_t lease = s_expect_lease ("alpha", "2", "");
    s_admin_send (actor, "alpha", DROVER_ADMIN_HOLD, 0, 5);
    testutil_expect_event (actor, "worker.hold", "alpha", "");
    s_expect_revoke (lease);
    s_quiet (actor);                                    //  no OK while the lease is out
    zsock_send (s_link, "s8", "RETURN", lease);
    s_expect_admin_ok (actor, 5);
    s_quiet (actor);                                    //  held: nothing lent again
    s_admin (actor, "alpha", DROVER_ADMIN_HOLD, 6, DROVER_CODE_OK);     //  no lease: at once

    s_up (actor, "beta", "r-beta", 2, 0, "");
    uint64_t beta_lease = s_expect_lease ("beta", "2", "");
    s_admin_send (actor, "beta", DROVER_ADMIN_DRAIN, 0, 7);
    testutil_expect_event (actor, "worker.drain", "beta", "");
    s_expect_revoke (beta_lease);
    s_quiet (actor);
    zsock_send (actor, "sss", "LOST", "beta", "silent");
    s_expect_admin_ok (actor, 7);                       //  its lease went with it
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

    s_up (actor, "POOL-x-1", "r-1", 2, 0, "");
    report = s_expect_load (actor, 0, 1);
    drover_loadreport_destroy (&report);
    s_queue (actor, 1, 0, 2, 0, "");
    s_expect_one (actor, 1, "POOL-x-1");
    s_queue (actor, 2, 0, 2, 0, "");
    s_queue (actor, 3, 0, 2, 0, "");
    s_queue (actor, 4, 0, 1, 1 << 20, "gpu=1");
    report = s_expect_load (actor, 2, 1);
    size_t count;
    const drover_pooldemand_t *demand = drover_loadreport_demand (report, &count);
    const drover_pooldemand_t *twos = demand [0].procs == 2? &demand [0]: &demand [1];
    const drover_pooldemand_t *gpus = demand [0].procs == 2? &demand [1]: &demand [0];
    assert_int_equal (twos->count, 2);
    assert_string_equal (twos->labels, "");
    assert_int_equal (gpus->count, 1);
    assert_true (gpus->mem == 1 << 20);
    assert_string_equal (gpus->labels, "gpu=1");
    const drover_poolload_t *load = drover_loadreport_workers (report, &count);
    assert_string_equal (load [0].id, "POOL-x-1");
    assert_int_equal (load [0].tasks, 1);
    assert_int_equal (load [0].procs_used, 2);
    assert_true (load [0].last_task == 1);
    drover_loadreport_destroy (&report);

    //  Retired while it runs task 1: RETIRED once that ends, and task 2
    //  does not go there
    zsock_send (actor, "ss", "RETIRE", "POOL-x-1");
    testutil_say_free (s_link, 1);
    zmsg_destroy (&(zmsg_t *) { s_expect_past_load (actor, "RETIRED") });
    assert_null (testutil_link_recv (s_link, 0));
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
    s_up (actor, "POOL-x-2", "r-2", 2, 0, "");
    assert_null (testutil_link_recv (s_link, 300));     //  held: tasks 2, 3 stay queued
    zsock_send (actor, "ss4s", "POOLADMIN", "POOL-x-2", DROVER_ADMIN_RUN, "pool: run");
    s_expect_one (actor, 2, "POOL-x-2");
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_pass_places_in_priority_order, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_pool_load_retire_and_admin, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_constraints, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_dequeue_and_free, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_requeue_while_assigned, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_requeued_task_keeps_its_place, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_unplaceable_requests_starve_nothing, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_wide_task_reserves_its_worker, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_admin_errors, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_drain_then_leave, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_probation, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_lost_worker, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_registered_again_counts_running_first, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_gone_workers_listed, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_drain_stays_connected, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_admin_kept_by_worker_id, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_probation_until_listed, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_worker_list, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_many_requests, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_lease_lent_taken_revoked, s_setup_leases, s_teardown),
        cmocka_unit_test_setup_teardown (test_lease_revoked_on_drain, s_setup_leases, s_teardown),
        cmocka_unit_test_setup_teardown (test_hold_answered_once_lease_is_back, s_setup_leases,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_held_while_lent, s_setup_leases, s_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
