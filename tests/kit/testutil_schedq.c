/*  =========================================================================
    testutil_schedq - the schedq actor's tests' fixtures
    (see the header)
    =========================================================================
*/

#include "testutil_schedq.h"

//  The test's end of the actor's link
zsock_t *testutil_schedq_link = NULL;

//  Expect exactly these placements next on the link, in this order, one
//  ASSIGN record each
void
testutil_schedq_expect_assign (zactor_t *actor, size_t count, const uint64_t *tasks,
                               const char **workers)
{
    for (size_t index = 0; index < count; index++) {
        zmsg_t *msg = testutil_expect_link (testutil_schedq_link, "ASSIGN", 2000);
        assert_int_equal (zmsg_size (msg), 2);
        char *task = zmsg_popstr (msg);
        assert_int_equal (strtoull (task, NULL, 10), tasks [index]);
        zstr_free (&task);
        testutil_pop_check (msg, workers [index]);
        zmsg_destroy (&msg);
    }
}

//  Expect one ASSIGN: task on worker
void
testutil_schedq_expect_one (zactor_t *actor, uint64_t task, const char *worker)
{
    testutil_schedq_expect_assign (actor, 1, &task, &worker);
}

//  Say UP for a worker
void
testutil_schedq_up (zactor_t *actor, const char *worker, const char *route, uint32_t procs,
                    uint64_t mem, const char *labels)
{
    zframe_t *frame = zframe_new (route, strlen (route));
    zframe_t *running = zframe_new_empty ();
    zsock_send (actor, "ssf848sf4s", "UP", worker, frame, (uint64_t) 1, procs, mem, labels, running,
                (uint32_t) DROVER_MSG_LEVEL, DROVER_RELEASE);
    zframe_destroy (&running);
    zframe_destroy (&frame);
}

//  Say QUEUE for a request
void
testutil_schedq_queue (zactor_t *actor, uint64_t task, int priority, uint32_t procs, uint64_t mem,
                       const char *labels)
{
    testutil_say_queue (testutil_schedq_link, task, priority, procs, mem, labels);
}

//  Start most tests: worker alpha up with procs, task 1 queued and placed
//  on it
void
testutil_schedq_alpha_runs_task_1 (zactor_t *actor, uint32_t procs)
{
    testutil_schedq_up (actor, "alpha", "r-alpha", procs, 0, "");
    testutil_schedq_queue (actor, 1, 0, 1, 0, "");
    testutil_schedq_expect_one (actor, 1, "alpha");
}

//  Send WORKER ADMIN with a reason (NULL: none) and flags, and expect its
//  reply code; returns the reply's text (caller frees)
char *
testutil_schedq_admin_with (zactor_t *actor, const char *worker, int admin, const char *reason,
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
void
testutil_schedq_admin (zactor_t *actor, const char *worker, int admin, uint32_t seq, int code)
{
    free (testutil_schedq_admin_with (actor, worker, admin, NULL, 0, seq, code));
}

//  Find a worker's row in a WORKER TABLE, or fail
drover_worker_row_t *
testutil_schedq_row (drover_msg_t *table, const char *worker)
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
drover_msg_t *
testutil_schedq_list_only (zactor_t *actor, uint32_t seq)
{
    drover_msg_t *request = drover_msg_new (DROVER_MSG_WORKER_LIST);
    request->seq = seq;
    testutil_hand (actor, "client", request);
    drover_msg_t *table = testutil_expect_send (actor, "client", "");
    assert_int_equal (table->id, DROVER_MSG_WORKER_TABLE);
    assert_int_equal (table->seq, seq);
    zmsg_t *said = testutil_link_recv (testutil_schedq_link, 0);
    if (said)
        print_error ("schedq said %s on the link before a WORKER TABLE\n",
                     zframe_strdup (zmsg_first (said)));
    assert_null (said);
    return table;
}

//  Assert the actor says nothing more about what it was told so far: two
//  WORKER LISTs in a row, each answered before anything else (a pass runs
//  after each batch, so a placement would come before the second answer)
void
testutil_schedq_quiet (zactor_t *actor)
{
    drover_msg_t *table = testutil_schedq_list_only (actor, 9001);
    drover_msg_destroy (&table);
    table = testutil_schedq_list_only (actor, 9002);
    drover_msg_destroy (&table);
}

//  cmocka's setup: start a schedq actor (its state) with a new link,
//  configured to shelve up to 100 requests and lend no worker
int
testutil_schedq_setup (void **state)
{
    char endpoint [64];
    static int count = 0;
    snprintf (endpoint, sizeof endpoint, "inproc://test-schedq-link-%d", ++count);
    zactor_t *actor = zactor_new (drover_schedq_actor, endpoint);
    assert_non_null (actor);
    testutil_schedq_link = zsock_new (ZMQ_PAIR);
    assert_int_equal (zsock_connect (testutil_schedq_link, "%s", endpoint), 0);
    zsock_send (actor, "s444", "CONFIGURE", 100, 0, 0);
    *state = actor;
    return 0;
}

//  cmocka's teardown: stop the actor and close the link
int
testutil_schedq_teardown (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    testutil_actor_destroy (&actor);
    zsock_destroy (&testutil_schedq_link);
    return 0;
}

//  Return the procs WORKER TABLE says a worker uses
uint32_t
testutil_schedq_procs_used (zactor_t *actor, const char *worker)
{
    drover_msg_t *table = testutil_schedq_list_only (actor, 77);
    uint32_t used = UINT32_MAX;
    for (uint32_t row = 0; row < table->nrows; row++)
        if (streq (table->worker_rows [row].id, worker))
            used = table->worker_rows [row].procs_used;
    drover_msg_destroy (&table);
    assert_true (used != UINT32_MAX);
    return used;
}
