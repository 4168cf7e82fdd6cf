/*  =========================================================================
    test_drover_client_requests - the client API's requests against a fake
    broker (testutil_clientbroker): a submit's reply or error, timeouts,
    pipelined submits, a keyed submit sent again, the admin requests and
    listings, a late reply, the endpoint
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_clientbroker.h"

//  ---------------------------------------------------------------------
//  Behaviours

//  WORKER LIST: hold the first back; answer it late, just before the second,
//  with a table of one row (the second gets two rows)
static void
s_late_reply (testutil_clientbroker_t *fake, zframe_t *route, drover_msg_t *msg)
{
    if (msg->id != DROVER_MSG_WORKER_LIST)
        return;
    if (fake->requests [DROVER_MSG_WORKER_LIST] == 1) {
        fake->last_flags = msg->seq;            //  remember the first seq
        return;
    }
    for (uint32_t rows = 1; rows <= 2; rows++) {
        drover_msg_t *reply = drover_msg_new (DROVER_MSG_WORKER_TABLE);
        reply->seq = rows == 1? fake->last_flags: msg->seq;
        reply->nrows = rows;
        reply->worker_rows = (drover_worker_row_t *) zmalloc (rows * sizeof (drover_worker_row_t));
        for (uint32_t row = 0; row < rows; row++)
            snprintf (reply->worker_rows [row].id, DROVER_ID_MAX + 1, "w%u", row);
        testutil_clientbroker_send (fake, route, &reply);
    }
}


//  ---------------------------------------------------------------------
//  Tests

//  submit returns the id from ACCEPTED; the body carries argv and flags
static void
test_submit_returns_id (void **state)
{
    testutil_clientbroker_t fake;
    char endpoint [64];
    zactor_t *actor = testutil_clientbroker_start (&fake, testutil_clientbroker_accept_all,
                                                   endpoint);
    drover_client_t *client = drover_client_new (endpoint);
    assert_non_null (client);
    assert_string_equal (drover_client_endpoint (client), endpoint);

    const char *argv [] = { "echo", "hello" };
    drover_submit_t *submit = drover_submit_new (2, argv);
    assert_non_null (submit);
    drover_submit_msg (submit)->priority = -3;
    drover_submit_set_notify (submit, true);
    uint64_t task = 0;
    assert_int_equal (drover_client_submit (client, submit, &task), 0);
    assert_int_equal (task, 1000 + drover_submit_msg (submit)->seq);
    assert_int_equal (drover_client_submit (client, submit, &task), 0);
    assert_int_equal (task, 1000 + drover_submit_msg (submit)->seq);
    assert_int_equal (drover_client_error_code (client), 0);
    drover_submit_destroy (&submit);
    drover_client_destroy (&client);
    assert_null (client);
    drover_client_destroy (&client);        //  harmless twice

    zactor_destroy (&actor);
    assert_int_equal (fake.requests [DROVER_MSG_TASK_SUBMIT], 2);
    assert_int_equal (fake.last_priority, -3);
    assert_int_equal (fake.last_flags, DROVER_SUBMIT_NOTIFY);
    assert_string_equal (fake.last_argv0, "echo");
}

//  An ERROR reply surfaces its code and text
static void
test_error_reply_surfaces (void **state)
{
    testutil_clientbroker_t fake;
    char endpoint [64];
    zactor_t *actor = testutil_clientbroker_start (&fake, testutil_clientbroker_refuse_all,
                                                   endpoint);
    drover_client_t *client = drover_client_new (endpoint);
    const char *argv [] = { "true" };
    drover_submit_t *submit = drover_submit_new (1, argv);
    uint64_t task = 12345;
    assert_int_equal (drover_client_submit (client, submit, &task), -1);
    assert_int_equal (task, 12345);
    assert_int_equal (drover_client_error_code (client), DROVER_CODE_QUEUE_FULL);
    assert_string_equal (drover_client_error_text (client), "2000000 tasks not final");
    assert_string_equal (drover_client_code_name (DROVER_CODE_QUEUE_FULL), "queue full");
    drover_submit_destroy (&submit);
    drover_client_destroy (&client);
    zactor_destroy (&actor);
}

//  Nobody listening: every kind of request fails after the timeout
static void
test_unreachable_broker_times_out (void **state)
{
    char endpoint [64];
    sprintf (endpoint, "tcp://127.0.0.1:%d", testutil_free_port ());
    drover_client_t *client = drover_client_new (endpoint);
    assert_non_null (client);
    drover_client_set_timeout (client, 300);
    assert_int_equal (drover_client_timeout (client), 300);

    const char *argv [] = { "true" };
    drover_submit_t *submit = drover_submit_new (1, argv);
    int64_t started = zclock_mono ();
    uint64_t task;
    assert_int_equal (drover_client_submit (client, submit, &task), -1);
    int64_t elapsed = zclock_mono () - started;
    assert_true (elapsed >= 290 && elapsed < 3000);
    assert_int_equal (drover_client_error_code (client), DROVER_CLIENT_ERR_TIMEOUT);
    assert_non_null (strstr (drover_client_error_text (client), endpoint));

    started = zclock_mono ();
    assert_null (drover_client_workers (client));
    assert_int_equal (drover_client_error_code (client), DROVER_CLIENT_ERR_TIMEOUT);
    uint64_t ids [] = { 1, 2 };
    drover_client_set_resend (client, 100);
    assert_int_equal (drover_client_wait (client, ids, 2, NULL, NULL, NULL), -1);
    assert_int_equal (drover_client_error_code (client), DROVER_CLIENT_ERR_TIMEOUT);
    assert_true (drover_client_submit_async (client, submit, 1) > 0);
    assert_int_equal (drover_client_flush (client), -1);
    assert_int_equal (drover_client_outstanding (client), 1);
    assert_true (zclock_mono () - started < 5000);
    drover_submit_destroy (&submit);
    drover_client_destroy (&client);
}

//  Count async replies by tag
typedef struct {
    int *acks;                  //  replies per tag
    int accepted;               //  ACCEPTED replies
    int refused;                //  ERROR replies
    bool bad_task;              //  an ACCEPTED whose task was not 1000 + seq
} s_acks_t;

//  Count one async reply; check an accepted id against its seq
static void
s_on_ack (uint32_t seq, uintptr_t tag, uint64_t task, int code, const char *reason, void *arg)
{
    s_acks_t *acks = (s_acks_t *) arg;
    acks->acks [tag]++;
    if (code == DROVER_CODE_OK) {
        acks->accepted++;
        if (task != 1000 + (uint64_t) seq)
            acks->bad_task = true;
    }
    else
    if (code == DROVER_CODE_QUEUE_FULL && reason && strstr (reason, "queue full"))
        acks->refused++;
}

//  Pipelined submits: every one answered exactly once, errors included
static void
test_pipelined_submits_all_acknowledged (void **state)
{
    testutil_clientbroker_t fake;
    char endpoint [64];
    zactor_t *actor = testutil_clientbroker_start (&fake, testutil_clientbroker_accept_all,
                                                   endpoint);
    drover_client_t *client = drover_client_new (endpoint);
    const int total = 20000;
    s_acks_t acks = { (int *) zmalloc (sizeof (int) * total), 0, 0, false };
    drover_client_set_ack_handler (client, s_on_ack, &acks);
    assert_int_equal (drover_client_set_window (client, 64), 0);
    const char *argv [] = { "true" };
    drover_submit_t *submit = drover_submit_new (1, argv);
    for (int index = 0; index < total; index++) {
        assert_true (drover_client_submit_async (client, submit, (uintptr_t) index) > 0);
        assert_true (drover_client_outstanding (client) <= 64);
        if (index == 10)
            assert_int_equal (drover_client_set_window (client, 128), -1);
    }
    assert_int_equal (drover_client_flush (client), 0);
    assert_int_equal (drover_client_outstanding (client), 0);
    assert_int_equal (drover_client_poll (client, 0), 0);
    assert_int_equal (acks.accepted + acks.refused, total);
    assert_int_equal (acks.refused, total / 100);
    assert_false (acks.bad_task);
    for (int index = 0; index < total; index++)
        assert_int_equal (acks.acks [index], 1);

    //  A synchronous request between async ones still gets its own reply
    assert_true (drover_client_submit_async (client, submit, 0) > 0);
    uint64_t task;
    int rc = drover_client_submit (client, submit, &task);
    if (rc == 0)
        assert_int_equal (task, 1000 + drover_submit_msg (submit)->seq);
    else
        assert_int_equal (drover_client_error_code (client), DROVER_CODE_QUEUE_FULL);
    assert_int_equal (drover_client_flush (client), 0);
    assert_int_equal (acks.acks [0], 2);

    drover_submit_destroy (&submit);
    drover_client_destroy (&client);
    zactor_destroy (&actor);
    assert_int_equal (fake.requests [DROVER_MSG_TASK_SUBMIT], total + 2);
    free (acks.acks);
}


//  SUBMIT: the first copy of each seq goes unanswered (as if the broker
//  died before saving it), a copy sent again is ACCEPTED (task 500 + seq,
//  with the state id)
static void
s_ignore_first_copy (testutil_clientbroker_t *fake, zframe_t *route, drover_msg_t *msg)
{
    if (msg->id != DROVER_MSG_TASK_SUBMIT || msg->seq >= 64 || fake->seqs [msg->seq] < 2)
        return;
    drover_msg_t *reply = drover_msg_new (DROVER_MSG_TASK_ACCEPTED);
    reply->seq = msg->seq;
    reply->task = 500 + msg->seq;
    strcpy (reply->state_id, TESTUTIL_CLIENTBROKER_STATE_ID);
    testutil_clientbroker_send (fake, route, &reply);
}

//  A keyed submit the broker does not answer goes again, same seq and
//  key, after the resend interval, sync and async; one without a key is
//  never sent twice (it would be a second task). Before, the client gave
//  up at the timeout, and a submit lost with a broker's crash was lost.
static void
test_keyed_submit_sent_again_after_silence (void **state)
{
    testutil_clientbroker_t fake;
    char endpoint [64];
    zactor_t *actor = testutil_clientbroker_start (&fake, s_ignore_first_copy, endpoint);
    drover_client_t *client = drover_client_new (endpoint);
    drover_client_set_resend (client, 150);
    drover_client_set_timeout (client, 3000);
    const char *argv [] = { "true" };
    drover_submit_t *submit = drover_submit_new (1, argv);
    assert_int_equal (drover_submit_set_key (submit, ""), -1);
    assert_int_equal (drover_submit_set_key (submit, "tab\there"), -1);
    assert_null (drover_submit_msg (submit)->key);
    assert_int_equal (drover_submit_set_key (submit, "batch:1"), 0);
    assert_string_equal (drover_client_state_id (client), "");
    uint64_t task = 0;
    assert_int_equal (drover_client_submit (client, submit, &task), 0);
    assert_true (task == 500 + drover_submit_msg (submit)->seq);
    uint32_t sync_seq = drover_submit_msg (submit)->seq;
    assert_string_equal (drover_client_state_id (client), TESTUTIL_CLIENTBROKER_STATE_ID);

    s_acks_t acks = { (int *) zmalloc (sizeof (int) * 4), 0, 0, false };
    drover_client_set_ack_handler (client, s_on_ack, &acks);
    uint32_t async_seq [3];
    for (int index = 0; index < 3; index++) {
        char key [16];
        snprintf (key, sizeof key, "batch:%d", index + 2);
        assert_int_equal (drover_submit_set_key (submit, key), 0);
        async_seq [index] = drover_client_submit_async (client, submit, (uintptr_t) index);
        assert_true (async_seq [index] > 0);
    }
    assert_int_equal (drover_client_flush (client), 0);
    for (int index = 0; index < 3; index++)
        assert_int_equal (acks.acks [index], 1);

    //  Without a key: sent once, then the timeout
    assert_int_equal (drover_submit_set_key (submit, NULL), 0);
    drover_client_set_timeout (client, 600);
    assert_int_equal (drover_client_submit (client, submit, &task), -1);
    assert_int_equal (drover_client_error_code (client), DROVER_CLIENT_ERR_TIMEOUT);
    uint32_t bare_seq = drover_submit_msg (submit)->seq;
    drover_submit_destroy (&submit);
    drover_client_destroy (&client);
    zactor_destroy (&actor);
    assert_true (fake.seqs [sync_seq] >= 2);
    for (int index = 0; index < 3; index++)
        assert_true (fake.seqs [async_seq [index]] >= 2);
    assert_int_equal (fake.seqs [bare_seq], 1);
    assert_string_equal (fake.last_key, "");
    free (acks.acks);
}

//  cancel, admin, workers and tasks: request and reply round trips
static void
test_admin_round_trips (void **state)
{
    testutil_clientbroker_t fake;
    char endpoint [64];
    zactor_t *actor = testutil_clientbroker_start (&fake, testutil_clientbroker_admin, endpoint);
    drover_client_t *client = drover_client_new (endpoint);

    assert_int_equal (drover_client_cancel (client, 7), 0);
    assert_int_equal (drover_client_cancel (client, 8), -1);
    assert_int_equal (drover_client_error_code (client), DROVER_CODE_NOT_FOUND);
    assert_string_equal (drover_client_error_text (client), "no such task");

    assert_int_equal (drover_client_admin (client, "alpha", DROVER_ADMIN_DRAIN), 0);
    assert_int_equal (drover_client_admin (client, "gamma", DROVER_ADMIN_HOLD), -1);
    assert_int_equal (drover_client_error_code (client), DROVER_CODE_NOT_FOUND);
    assert_int_equal (drover_client_admin (client, "has space", DROVER_ADMIN_HOLD), -1);
    assert_int_equal (drover_client_error_code (client), DROVER_CLIENT_ERR_INVALID);

    //  The listings: the API's own rows, made from the wire's tables
    drover_workers_t *workers = drover_client_workers (client);
    assert_non_null (workers);
    assert_int_equal (drover_workers_size (workers), 2);
    assert_string_equal (drover_workers_row (workers, 0)->id, "alpha");
    assert_int_equal (drover_workers_row (workers, 0)->procs, 4);
    assert_int_equal (drover_workers_row (workers, 1)->admin, DROVER_ADMIN_HOLD);
    assert_string_equal (drover_workers_row (workers, 1)->why, "");
    assert_null (drover_workers_row (workers, 2));
    drover_workers_destroy (&workers);
    drover_workers_destroy (&workers);

    drover_tasks_t *tasks = drover_client_tasks (client, DROVER_TASK_RUNNING, 33);
    assert_non_null (tasks);
    assert_int_equal (drover_tasks_count (tasks, DROVER_TASK_QUEUED), 5);
    assert_int_equal (drover_tasks_count (tasks, DROVER_TASK_RUNNING), 33);
    assert_int_equal (drover_tasks_count (tasks, DROVER_TASK_STATES), 0);
    assert_int_equal (drover_tasks_size (tasks), 2);
    assert_int_equal (drover_tasks_row (tasks, 0)->state, DROVER_TASK_RUNNING);
    assert_int_equal (drover_tasks_row (tasks, 0)->end, DROVER_END_NONE);
    assert_string_equal (drover_tasks_row (tasks, 0)->summary, "sh -c true");
    assert_int_equal (drover_tasks_row (tasks, 1)->end, DROVER_END_TIMED_OUT);
    assert_null (drover_tasks_row (tasks, 2));
    drover_tasks_destroy (&tasks);

    drover_client_destroy (&client);
    zactor_destroy (&actor);
    assert_int_equal (fake.requests [DROVER_MSG_TASK_CANCEL], 2);
    assert_int_equal (fake.requests [DROVER_MSG_WORKER_ADMIN], 2);
    assert_string_equal (fake.last_worker, "gamma");
    assert_int_equal (fake.last_admin, DROVER_ADMIN_HOLD);
    //  Its level said once on its one connection, before the first request
    assert_int_equal (fake.hellos, 1);
}

//  A reply that comes after its request timed out is not taken for the
//  answer to the next request
static void
test_late_reply_not_mistaken (void **state)
{
    testutil_clientbroker_t fake;
    char endpoint [64];
    zactor_t *actor = testutil_clientbroker_start (&fake, s_late_reply, endpoint);
    drover_client_t *client = drover_client_new (endpoint);
    drover_client_set_timeout (client, 200);
    assert_null (drover_client_workers (client));
    assert_int_equal (drover_client_error_code (client), DROVER_CLIENT_ERR_TIMEOUT);
    drover_client_set_timeout (client, 5000);
    drover_workers_t *workers = drover_client_workers (client);
    assert_non_null (workers);
    assert_int_equal (drover_workers_size (workers), 2);
    drover_workers_destroy (&workers);
    drover_client_destroy (&client);
    zactor_destroy (&actor);
}

//  The endpoint comes from DROVER_BROKER unless given; nonsense is refused
static void
test_endpoint_from_environment (void **state)
{
    setenv ("DROVER_BROKER", "tcp://127.0.0.1:5999", 1);
    drover_client_t *client = drover_client_new (NULL);
    assert_non_null (client);
    assert_string_equal (drover_client_endpoint (client), "tcp://127.0.0.1:5999");
    drover_client_destroy (&client);
    unsetenv ("DROVER_BROKER");
    client = drover_client_new (NULL);
    assert_string_equal (drover_client_endpoint (client), DROVER_CLIENT_ENDPOINT);
    drover_client_destroy (&client);
    assert_null (drover_client_new ("nonsense"));
}


//  Run every test
int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_submit_returns_id),
        cmocka_unit_test (test_error_reply_surfaces),
        cmocka_unit_test (test_unreachable_broker_times_out),
        cmocka_unit_test (test_pipelined_submits_all_acknowledged),
        cmocka_unit_test (test_admin_round_trips),
        cmocka_unit_test (test_late_reply_not_mistaken),
        cmocka_unit_test (test_endpoint_from_environment),
        cmocka_unit_test (test_keyed_submit_sent_again_after_silence),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
