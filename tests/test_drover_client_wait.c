/*  =========================================================================
    test_drover_client_wait - the client API's waits for results against a
    fake broker (testutil_clientbroker): each result once, in chunks, sent
    again, refused, a notify's TASK DONE kept or given to the done handler,
    a broker whose state changed
    =========================================================================
*/

#include "testutil_clientbroker.h"

//  ---------------------------------------------------------------------
//  Behaviours

//  WAIT: the first goes unanswered; later ones get OK and the TASK DONEs
static void
s_ignore_first_wait (testutil_clientbroker_t *fake, zframe_t *route, drover_msg_t *msg)
{
    if (msg->id != DROVER_MSG_TASK_WAIT || fake->requests [DROVER_MSG_TASK_WAIT] == 1)
        return;
    testutil_clientbroker_reply (fake, route, msg, DROVER_MSG_OK);
    for (uint32_t index = 0; index < msg->ntasks; index++)
        testutil_clientbroker_done (fake, route, msg->tasks [index], msg->seq);
}

//  WAIT: refused as a bad request
static void
s_refuse_wait (testutil_clientbroker_t *fake, zframe_t *route, drover_msg_t *msg)
{
    if (msg->id == DROVER_MSG_TASK_WAIT)
        testutil_clientbroker_error (fake, route, msg, DROVER_CODE_BAD_REQUEST, "no task ids");
}

//  SUBMIT with notify: ACCEPTED (task 77) then at once its TASK DONE (seq 0);
//  WAIT: OK only, so a wait must use the TASK DONE it kept
static void
s_notify (testutil_clientbroker_t *fake, zframe_t *route, drover_msg_t *msg)
{
    if (msg->id == DROVER_MSG_TASK_SUBMIT) {
        testutil_clientbroker_accept (fake, route, msg, 77);
        if (msg->flags & DROVER_SUBMIT_NOTIFY)
            testutil_clientbroker_done (fake, route, 77, 0);
    }
    else
    if (msg->id == DROVER_MSG_TASK_WAIT)
        testutil_clientbroker_reply (fake, route, msg, DROVER_MSG_OK);
}

//  SUBMIT: ACCEPTED (task 1000 + seq) and, with notify, at once its TASK
//  DONE (seq 0); WAIT: OK and a TASK DONE in state UNKNOWN for each task
static void
s_notify_each (testutil_clientbroker_t *fake, zframe_t *route, drover_msg_t *msg)
{
    if (msg->id == DROVER_MSG_TASK_SUBMIT) {
        testutil_clientbroker_accept (fake, route, msg, 1000 + msg->seq);
        if (msg->flags & DROVER_SUBMIT_NOTIFY)
            testutil_clientbroker_done (fake, route, 1000 + msg->seq, 0);
    }
    else
    if (msg->id == DROVER_MSG_TASK_WAIT) {
        testutil_clientbroker_reply (fake, route, msg, DROVER_MSG_OK);
        for (uint32_t index = 0; index < msg->ntasks; index++) {
            drover_msg_t *done = drover_msg_new (DROVER_MSG_TASK_DONE);
            done->seq = msg->seq;
            done->task = msg->tasks [index];
            done->state = DROVER_TASK_UNKNOWN;
            done->end = DROVER_END_UNKNOWN;
            testutil_clientbroker_send (fake, route, &done);
        }
    }
}

//  SUBMIT: ACCEPTED (task 1000 + seq) with the state id; WAIT naming it:
//  412, as a broker whose state is another would say
static void
s_state_changed (testutil_clientbroker_t *fake, zframe_t *route, drover_msg_t *msg)
{
    if (msg->id == DROVER_MSG_TASK_SUBMIT) {
        drover_msg_t *reply = drover_msg_new (DROVER_MSG_TASK_ACCEPTED);
        reply->seq = msg->seq;
        reply->task = 1000 + msg->seq;
        strcpy (reply->state_id, TESTUTIL_CLIENTBROKER_STATE_ID);
        testutil_clientbroker_send (fake, route, &reply);
    }
    else
    if (msg->id == DROVER_MSG_TASK_WAIT && streq (msg->state_id, TESTUTIL_CLIENTBROKER_STATE_ID))
        testutil_clientbroker_error (fake, route, msg, DROVER_CODE_STATE_CHANGED,
                                     "state id is not ours");
}

//  ---------------------------------------------------------------------
//  Tests

//  Count deliveries per task (tasks 1..N)
typedef struct {
    int count [32];             //  deliveries per task id below 32
    int other;                  //  deliveries of any other id
    bool bad_output;            //  stdout was not "out-<task>\n"
    size_t last_done;           //  last progress: done
    size_t last_total;          //  last progress: total
    int progress_calls;         //  progress callbacks
    size_t big;                 //  deliveries in the large test
} s_done_t;

//  Count one delivery; check its output
static void
s_on_done (const drover_result_t *result, void *arg)
{
    const drover_msg_t *done = drover_result_msg (result);
    s_done_t *record = (s_done_t *) arg;
    char expected [64];
    snprintf (expected, sizeof expected, "out-%llu\n", (unsigned long long) done->task);
    if (done->out_size != strlen (expected) || memcmp (done->out, expected, done->out_size))
        record->bad_output = true;
    if (done->task < 32)
        record->count [done->task]++;
    else
        record->other++;
}

//  Keep the last progress report
static void
s_on_progress (size_t done, size_t total, void *arg)
{
    s_done_t *record = (s_done_t *) arg;
    record->last_done = done;
    record->last_total = total;
    record->progress_calls++;
}

//  Each result delivered exactly once, though the broker sends each twice
static void
test_wait_delivers_each_once (void **state)
{
    testutil_clientbroker_t fake;
    char endpoint [64];
    zactor_t *actor = testutil_clientbroker_start (&fake, testutil_clientbroker_done_twice,
                                                   endpoint);
    drover_client_t *client = drover_client_new (endpoint);
    uint64_t ids [] = { 1, 2, 3, 2 };       //  a repeated id counts once
    s_done_t record;
    memset (&record, 0, sizeof record);
    assert_int_equal (drover_client_wait (client, ids, 4, s_on_done, s_on_progress, &record), 0);
    assert_int_equal (record.count [1], 1);
    assert_int_equal (record.count [2], 1);
    assert_int_equal (record.count [3], 1);
    assert_int_equal (record.other, 0);
    assert_false (record.bad_output);
    assert_int_equal (record.last_done, 3);
    assert_int_equal (record.last_total, 3);
    assert_true (record.progress_calls >= 2);

    //  The late duplicates are not kept for, or delivered to, a later wait
    memset (&record, 0, sizeof record);
    uint64_t again [] = { 3 };
    assert_int_equal (drover_client_wait (client, again, 1, s_on_done, NULL, &record), 0);
    assert_int_equal (record.count [3], 1);
    assert_int_equal (record.count [1] + record.count [2] + record.other, 0);
    drover_client_destroy (&client);
    zactor_destroy (&actor);
    //  The second wait may be answered by the duplicate already queued for
    //  task 3, and its own WAIT dropped by the linger-0 destroy before the
    //  fake counts it: only the first WAIT is certain to arrive
    assert_true (fake.requests [DROVER_MSG_TASK_WAIT] >= 1);
    assert_true (fake.requests [DROVER_MSG_TASK_WAIT] <= 2);
}

//  More ids than one WAIT may carry go in several WAITs
static void
test_wait_many_ids_in_chunks (void **state)
{
    testutil_clientbroker_t fake;
    char endpoint [64];
    zactor_t *actor = testutil_clientbroker_start (&fake, s_ignore_first_wait, endpoint);
    drover_client_t *client = drover_client_new (endpoint);
    drover_client_set_resend (client, 200);
    size_t count = DROVER_WAIT_MAX * 2 + 5;
    uint64_t *ids = (uint64_t *) zmalloc (sizeof (uint64_t) * count);
    for (size_t index = 0; index < count; index++)
        ids [index] = 100 + index;
    s_done_t record;
    memset (&record, 0, sizeof record);
    assert_int_equal (drover_client_wait (client, ids, count, s_on_done, s_on_progress, &record), 0);
    assert_int_equal (record.other, count);
    assert_false (record.bad_output);
    assert_int_equal (record.last_done, count);
    drover_client_destroy (&client);
    zactor_destroy (&actor);
    //  Three WAITs, the first chunk ignored, then at least its re-send
    assert_true (fake.requests [DROVER_MSG_TASK_WAIT] >= 4);
    assert_true (fake.wait_ids >= count + DROVER_WAIT_MAX);
    free (ids);
}

//  The first WAIT goes unanswered: the wait sends it again and completes
static void
test_wait_resends_unanswered (void **state)
{
    testutil_clientbroker_t fake;
    char endpoint [64];
    zactor_t *actor = testutil_clientbroker_start (&fake, s_ignore_first_wait, endpoint);
    drover_client_t *client = drover_client_new (endpoint);
    drover_client_set_resend (client, 100);
    drover_client_set_timeout (client, 3000);
    uint64_t ids [] = { 4, 5 };
    s_done_t record;
    memset (&record, 0, sizeof record);
    int64_t started = zclock_mono ();
    assert_int_equal (drover_client_wait (client, ids, 2, s_on_done, NULL, &record), 0);
    assert_true (zclock_mono () - started < 3000);
    assert_int_equal (record.count [4], 1);
    assert_int_equal (record.count [5], 1);
    drover_client_destroy (&client);
    zactor_destroy (&actor);
    //  The fake answers only the second WAIT, so the wait ended after it
    //  counted at least two (a slow machine may let a third go out)
    assert_true (fake.requests [DROVER_MSG_TASK_WAIT] >= 2);
}

//  A WAIT the broker refuses ends the wait with its code
static void
test_wait_refused (void **state)
{
    testutil_clientbroker_t fake;
    char endpoint [64];
    zactor_t *actor = testutil_clientbroker_start (&fake, s_refuse_wait, endpoint);
    drover_client_t *client = drover_client_new (endpoint);
    uint64_t ids [] = { 4 };
    assert_int_equal (drover_client_wait (client, ids, 1, NULL, NULL, NULL), -1);
    assert_int_equal (drover_client_error_code (client), DROVER_CODE_BAD_REQUEST);
    assert_string_equal (drover_client_error_text (client), "no task ids");
    drover_client_destroy (&client);
    zactor_destroy (&actor);
}

//  A notify's TASK DONE that came with the submit is given to the next wait
static void
test_notify_done_kept_for_wait (void **state)
{
    testutil_clientbroker_t fake;
    char endpoint [64];
    zactor_t *actor = testutil_clientbroker_start (&fake, s_notify, endpoint);
    drover_client_t *client = drover_client_new (endpoint);
    const char *argv [] = { "true" };
    drover_submit_t *submit = drover_submit_new (1, argv);
    drover_submit_set_notify (submit, true);
    uint64_t task = 0;
    assert_int_equal (drover_client_submit (client, submit, &task), 0);
    assert_int_equal (task, 77);
    //  A sync request after it makes sure the TASK DONE has come in
    assert_int_equal (drover_client_submit (client, submit, &task), 0);
    s_done_t record;
    memset (&record, 0, sizeof record);
    drover_client_set_timeout (client, 500);
    assert_int_equal (drover_client_wait (client, &task, 1, s_on_done, NULL, &record), 0);
    assert_int_equal (record.other, 1);
    assert_false (record.bad_output);
    drover_submit_destroy (&submit);
    drover_client_destroy (&client);
    zactor_destroy (&actor);
}

#define S_NOTIFIED  20000       //  tasks kept in flight through the done handler
#define S_INFLIGHT  1000        //  at most this many without their TASK DONE

//  What the done handler saw
typedef struct {
    int *count;                 //  deliveries per task, by task - 1001
    size_t done;                //  deliveries in all
    bool bad;                   //  a task id out of range, or wrong output
} s_notified_t;

//  Keep the state of the one TASK DONE a wait delivered
static void
s_on_state (const drover_result_t *result, void *arg)
{
    const drover_msg_t *done = drover_result_msg (result);
    *(int *) arg = done->state;
}

//  Count one NOTIFY TASK DONE
static void
s_on_notified (const drover_result_t *result, void *arg)
{
    const drover_msg_t *done = drover_result_msg (result);
    s_notified_t *notified = (s_notified_t *) arg;
    char expected [64];
    snprintf (expected, sizeof expected, "out-%llu\n", (unsigned long long) done->task);
    if (done->task < 1001 || done->task > 1000 + S_NOTIFIED
    ||  done->out_size != strlen (expected) || memcmp (done->out, expected, done->out_size)) {
        notified->bad = true;
        return;
    }
    notified->count [done->task - 1001]++;
    notified->done++;
}

//  A window of notify submits kept full through the done handler alone:
//  each TASK DONE comes to it exactly once, read in bursts, nothing lost,
//  no TASK WAIT sent, and none kept back for a later wait
static void
test_done_handler_keeps_a_window (void **state)
{
    testutil_clientbroker_t fake;
    char endpoint [64];
    zactor_t *actor = testutil_clientbroker_start (&fake, s_notify_each, endpoint);
    drover_client_t *client = drover_client_new (endpoint);
    s_notified_t notified = { (int *) zmalloc (sizeof (int) * S_NOTIFIED), 0, false };
    drover_client_set_done_handler (client, s_on_notified, &notified);
    assert_int_equal (drover_client_set_window (client, S_INFLIGHT), 0);
    const char *argv [] = { "true" };
    drover_submit_t *submit = drover_submit_new (1, argv);
    drover_submit_set_notify (submit, true);
    size_t sent = 0;
    int64_t deadline = zclock_mono () + 30000;
    while (notified.done < S_NOTIFIED && zclock_mono () < deadline) {
        while (sent < S_NOTIFIED && sent - notified.done < S_INFLIGHT) {
            assert_true (drover_client_submit_async (client, submit, sent) > 0);
            sent++;
        }
        assert_true (drover_client_poll (client, 1000) >= 0);
    }
    assert_int_equal (drover_client_flush (client), 0);
    assert_false (notified.bad);
    assert_int_equal (notified.done, S_NOTIFIED);
    for (int index = 0; index < S_NOTIFIED; index++)
        assert_int_equal (notified.count [index], 1);
    //  Given to the handler, not kept: a wait for one gets the broker's
    //  answer to its WAIT (UNKNOWN here), not the SUCCEEDED the handler had
    uint64_t task = 1001;
    int seen = -1;
    assert_int_equal (drover_client_wait (client, &task, 1, s_on_state, NULL, &seen), 0);
    assert_int_equal (seen, DROVER_TASK_UNKNOWN);
    assert_int_equal (notified.done, S_NOTIFIED);
    drover_submit_destroy (&submit);
    drover_client_destroy (&client);
    zactor_destroy (&actor);
    assert_int_equal (fake.requests [DROVER_MSG_TASK_SUBMIT], S_NOTIFIED);
    assert_int_equal (fake.requests [DROVER_MSG_TASK_WAIT], 1);     //  the last wait's
    free (notified.count);
}

//  WAIT names the state id of the last TASK ACCEPTED; a broker with
//  another state answers 412, and the wait fails saying so
static void
test_wait_state_changed_fails_clearly (void **state)
{
    testutil_clientbroker_t fake;
    char endpoint [64];
    zactor_t *actor = testutil_clientbroker_start (&fake, s_state_changed, endpoint);
    drover_client_t *client = drover_client_new (endpoint);
    const char *argv [] = { "true" };
    drover_submit_t *submit = drover_submit_new (1, argv);
    uint64_t task = 0;
    assert_int_equal (drover_client_submit (client, submit, &task), 0);
    assert_int_equal (drover_client_wait (client, &task, 1, NULL, NULL, NULL), -1);
    assert_int_equal (drover_client_error_code (client), DROVER_CODE_STATE_CHANGED);
    assert_non_null (strstr (drover_client_error_text (client),
                             "broker state changed: tasks submitted before are unknown to it"));
    assert_string_equal (drover_client_code_name (DROVER_CODE_STATE_CHANGED),
                         "broker state changed");
    drover_submit_destroy (&submit);
    drover_client_destroy (&client);
    zactor_destroy (&actor);
    assert_string_equal (fake.last_state_id, TESTUTIL_CLIENTBROKER_STATE_ID);
}

//  Run every test
int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_wait_delivers_each_once),
        cmocka_unit_test (test_wait_many_ids_in_chunks),
        cmocka_unit_test (test_wait_resends_unanswered),
        cmocka_unit_test (test_wait_refused),
        cmocka_unit_test (test_done_handler_keeps_a_window),
        cmocka_unit_test (test_notify_done_kept_for_wait),
        cmocka_unit_test (test_wait_state_changed_fails_clearly),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
