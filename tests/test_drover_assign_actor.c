/*  =========================================================================
    test_drover_assign_actor - the assign actor, through its pipe and its link

    Plays the broker main on the pipe: hands the actor decoded messages
    (MSG records in a BATCH, as the main does), UP and LOST; and schedq on
    the link: ASSIGN in, QUEUE, DEQUEUE, FREE and PROBATION out. Reads back,
    in order on each, what the actor says: SEND payloads are decoded with the codec and checked
    field by field. Timing is the table's business (test_drover_assign);
    here only the ack timeout is waited for, on a poller with a deadline.
    =========================================================================
*/

#include "testutil_wire.h"
#include "testutil_actor.h"
#include "testutil_assignactor.h"
#include "drover_assign_actor.h"
#include "drover_store_actor.h"
#include "drover_actor.h"
#include "drover_change.h"

//  ---------------------------------------------------------------------

//  SUBMIT → ACCEPTED, QUEUE; ASSIGN → OFFER; STARTED; RESULT → OK, FREE,
//  DONE to the submitter; LIST shows it
static void
test_life_cycle (void **state)
{
    zactor_t *actor = testutil_assignactor_new (5000);
    uint64_t task = testutil_assignactor_submit (actor, 7, DROVER_SUBMIT_NOTIFY);
    assert_int_equal (task, 1);
    testutil_assignactor_up (actor, "alpha", TESTUTIL_ROUTE_ALPHA, NULL, 0);
    drover_msg_t *table = testutil_assignactor_list_queued (actor, 255, 10);
    assert_int_equal (table->counts [DROVER_TASK_QUEUED], 1);
    assert_int_equal (table->nrows, 1);
    drover_msg_destroy (&table);

    //  Why it waits: schedq knows
    drover_msg_t *explain = drover_msg_new (DROVER_MSG_TASK_EXPLAIN);
    explain->seq = 97;
    explain->task = task;
    testutil_assignactor_hand (actor, TESTUTIL_ROUTE_CLIENT, explain);
    drover_msg_t *handed = testutil_assignactor_expect_handed (TESTUTIL_ROUTE_CLIENT,
                                                               DROVER_MSG_TASK_EXPLAIN);
    assert_int_equal (handed->seq, 97);
    assert_int_equal (handed->task, task);
    drover_msg_destroy (&handed);

    testutil_assignactor_assign (actor, task, "alpha", TESTUTIL_ROUTE_ALPHA, 1);
    testutil_assignactor_hand (actor, TESTUTIL_ROUTE_ALPHA,
                               testutil_assignactor_report (DROVER_MSG_TASK_STARTED, "alpha",
                                                            task, 1, 3));
    testutil_assignactor_expect_heard (actor, "alpha", TESTUTIL_ROUTE_ALPHA);
    testutil_assignactor_expect_event (actor, "task.running", task, 1);
    testutil_assignactor_expect_frames (actor, "SUCCESS", "alpha", NULL);

    //  Running: assign says its state, worker and attempt itself; an
    //  unknown task is 404
    explain = drover_msg_new (DROVER_MSG_TASK_EXPLAIN);
    explain->seq = 96;
    explain->task = task;
    testutil_assignactor_hand (actor, TESTUTIL_ROUTE_CLIENT, explain);
    drover_msg_t *told = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_CLIENT, "",
                                                           DROVER_MSG_TASK_EXPLANATION);
    assert_int_equal (told->seq, 96);
    assert_int_equal (told->state, DROVER_TASK_RUNNING);
    assert_int_equal (told->attempt, 1);
    assert_string_equal (told->worker, "alpha");
    assert_int_equal (told->nwhys, 0);
    drover_msg_destroy (&told);
    explain = drover_msg_new (DROVER_MSG_TASK_EXPLAIN);
    explain->seq = 95;
    explain->task = 4242;
    testutil_assignactor_hand (actor, TESTUTIL_ROUTE_CLIENT, explain);
    told = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_CLIENT, "", DROVER_MSG_ERROR);
    assert_int_equal (told->code, DROVER_CODE_NOT_FOUND);
    drover_msg_destroy (&told);

    drover_msg_t *result = testutil_assignactor_report (DROVER_MSG_TASK_RESULT, "alpha", task, 1,
                                                        4);
    result->outcome = DROVER_OUTCOME_EXITED;
    result->duration = 12;
    drover_msg_set_output (result, (const byte *) "hi\n", 3, NULL, 0);
    testutil_assignactor_hand (actor, TESTUTIL_ROUTE_ALPHA, result);
    testutil_assignactor_expect_heard (actor, "alpha", TESTUTIL_ROUTE_ALPHA);
    drover_msg_t *reply = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_ALPHA, "alpha",
                                                            DROVER_MSG_OK);
    assert_int_equal (reply->seq, 4);
    assert_int_equal (reply->code, 200);
    drover_msg_destroy (&reply);
    testutil_assignactor_expect_frames (actor, "FREE", "1", NULL);
    testutil_assignactor_expect_frames (actor, "SUCCESS", "alpha", NULL);
    testutil_assignactor_expect_event (actor, "task.succeeded", task, 1);
    drover_msg_t *done = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_CLIENT, "",
                                                           DROVER_MSG_TASK_DONE);
    assert_int_equal (done->task, task);
    assert_int_equal (done->seq, 0);
    assert_int_equal (done->state, DROVER_TASK_SUCCEEDED);
    assert_int_equal (done->attempt, 1);
    assert_string_equal (done->worker, "alpha");
    assert_int_equal (done->duration, 12);
    assert_int_equal (done->out_size, 3);
    assert_memory_equal (done->out, "hi\n", 3);
    drover_msg_destroy (&done);

    table = testutil_assignactor_list (actor, 255, 10);
    assert_int_equal (table->counts [DROVER_TASK_SUCCEEDED], 1);
    assert_int_equal (table->counts [DROVER_TASK_QUEUED], 0);
    assert_int_equal (table->nrows, 1);
    assert_int_equal (table->task_rows [0].task, task);
    assert_string_equal (table->task_rows [0].worker, "alpha");
    assert_string_equal (table->task_rows [0].summary, "sh -c echo hi");
    drover_msg_destroy (&table);
    testutil_assignactor_destroy (&actor);
}

//  With durability full every change goes to the store, the new task's
//  with its submit and the final one with its result, and what
//  acknowledges a change (ACCEPTED, the OK to a RESULT, TASK DONE) is said
//  as REPLY, which the store holds until the change is committed; ACCEPTED
//  carries the broker's state id
static void
test_durable_acknowledgements (void **state)
{
    zactor_t *actor = testutil_assignactor_new (5000);
    zsock_send (actor, "s44444444", "CONFIGURE", 5000, 5, 1000, 1000, 1u << 30, 1u << 28,
                DROVER_DURABILITY_FULL, 5000);
    zsock_send (actor, "ss", "STATE", "0123456789abcdef0123456789abcdef");
    zsock_send (actor, "s88", "LOADED", (uint64_t) 40, (uint64_t) 0);
    testutil_assignactor_hand (actor, TESTUTIL_ROUTE_CLIENT,
                               testutil_assignactor_submit_msg (7, DROVER_SUBMIT_NOTIFY));
    drover_msg_t *accepted = testutil_assignactor_expect_said (actor, "REPLY",
                                                               TESTUTIL_ROUTE_CLIENT, "",
                                            DROVER_MSG_TASK_ACCEPTED);
    uint64_t task = accepted->task;
    assert_int_equal (task, 40);                    //  ids go on from the store's
    assert_string_equal (accepted->state_id, "0123456789abcdef0123456789abcdef");
    drover_msg_destroy (&accepted);
    zmsg_t *change = testutil_assignactor_expect_change (actor, "task.queued", task, 0);
    testutil_pop_check (change, "");                //  worker
    testutil_pop_check (change, "");                //  reason
    testutil_pop_check (change, "0");               //  QUEUED
    testutil_pop_check (change, "submit");          //  the new task's fields, to keep
    testutil_pop_check (change, "");
    zmsg_destroy (&change);
    testutil_assignactor_expect_frames (actor, "QUEUE", "40", "3", "2", "4096", "", NULL);
    testutil_assignactor_up (actor, "alpha", TESTUTIL_ROUTE_ALPHA, NULL, 0);
    testutil_assignactor_assign (actor, task, "alpha", TESTUTIL_ROUTE_ALPHA,
                                 1);    //  an offer is not an acknowledgement

    drover_msg_t *result = testutil_assignactor_report (DROVER_MSG_TASK_RESULT, "alpha", task, 1,
                                                        4);
    result->outcome = DROVER_OUTCOME_EXITED;
    testutil_assignactor_hand (actor, TESTUTIL_ROUTE_ALPHA, result);
    testutil_assignactor_expect_heard (actor, "alpha", TESTUTIL_ROUTE_ALPHA);
    drover_msg_t *ok = testutil_assignactor_expect_said (actor, "REPLY", TESTUTIL_ROUTE_ALPHA,
                                                         "alpha", DROVER_MSG_OK);
    drover_msg_destroy (&ok);
    testutil_assignactor_expect_frames (actor, "FREE", "40", NULL);
    testutil_assignactor_expect_frames (actor, "SUCCESS", "alpha", NULL);
    change = testutil_assignactor_expect_change (actor, "task.succeeded", task, 1);
    testutil_pop_check (change, "alpha");
    testutil_pop_check (change, "");
    testutil_pop_check (change, "3");               //  SUCCEEDED
    testutil_pop_check (change, "");
    testutil_pop_check (change, "done");            //  its result, to keep
    zmsg_destroy (&change);
    drover_msg_t *done = testutil_assignactor_expect_said (actor, "REPLY", TESTUTIL_ROUTE_CLIENT,
                                                           "", DROVER_MSG_TASK_DONE);
    assert_int_equal (done->task, task);
    drover_msg_destroy (&done);
    //  A WAIT naming another state id is refused 412
    drover_msg_t *wait = drover_msg_new (DROVER_MSG_TASK_WAIT);
    wait->seq = 9;
    wait->ntasks = 1;
    wait->tasks = (uint64_t *) malloc (sizeof (uint64_t));
    wait->tasks [0] = task;
    strcpy (wait->state_id, "ffffffffffffffffffffffffffffffff");
    testutil_assignactor_hand (actor, TESTUTIL_ROUTE_CLIENT, wait);
    drover_msg_t *refused = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_CLIENT, "",
                                                              DROVER_MSG_ERROR);
    assert_int_equal (refused->code, 412);
    drover_msg_destroy (&refused);
    testutil_assignactor_destroy (&actor);
}

//  A WAIT from principal (client role) for task
static drover_msg_t *
s_wait_as (uint64_t task, uint32_t seq, const char *principal)
{
    drover_msg_t *wait = drover_msg_new (DROVER_MSG_TASK_WAIT);
    wait->seq = seq;
    wait->ntasks = 1;
    wait->tasks = (uint64_t *) malloc (sizeof (uint64_t));
    wait->tasks [0] = task;
    strcpy (wait->principal, principal);
    wait->roles = DROVER_ROLE_CLIENT;
    return wait;
}

//  Expect RECALL ref ids: ask the store for exactly task; returns ref
static uint64_t
s_expect_recall (zactor_t *actor, uint64_t task)
{
    zmsg_t *recall = testutil_expect (actor, "RECALL", 3000);
    char *ref = zmsg_popstr (recall);
    zframe_t *ids = zmsg_pop (recall);
    assert_int_equal (zframe_size (ids), sizeof (uint64_t));
    assert_memory_equal (zframe_data (ids), &task, sizeof task);
    uint64_t number = strtoull (ref, NULL, 10);
    zstr_free (&ref);
    zframe_destroy (&ids);
    zmsg_destroy (&recall);
    return number;
}

//  Answer a RECALL as the store does: the kept task (SUCCEEDED, alice's,
//  out "hi"), then RECALLED ref
static void
s_recalled (zactor_t *actor, uint64_t task, uint64_t ref)
{
    drover_change_t *change = drover_change_new ("task.restored", task);
    change->state = DROVER_TASK_SUCCEEDED;
    change->attempt = 1;
    strcpy (change->worker, "alpha");
    change->submit = testutil_assignactor_submit_msg (0, 0);
    change->submit->task = task;
    strcpy (change->submit->principal, "alice");
    drover_msg_t *done = drover_msg_new (DROVER_MSG_TASK_DONE);
    done->task = task;
    done->state = DROVER_TASK_SUCCEEDED;
    done->end = DROVER_END_SUCCEEDED;
    done->outcome = DROVER_OUTCOME_EXITED;
    drover_msg_set_output (done, (const byte *) "hi", 2, NULL, 0);
    change->done = done;
    drover_outbox_t *outbox = drover_outbox_new ();
    drover_outbox_say_change (outbox, DROVER_RECORD_RESTORE, &change);
    drover_outbox_say (outbox, "s8", "RECALLED", ref);
    testutil_say_batch (zactor_sock (actor), &outbox);
}

//  With durable history a WAIT on a task evicted from the table (past
//  keep-finished) is not answered EXPIRED at once: assign asks the store
//  to read it back (RECALL), and answers once it has (RECALLED), as if
//  the task were held: its owner checked, its DONE from its result
static void
test_evicted_task_recalled (void **state)
{
    zactor_t *actor = testutil_assignactor_new (5000);
    zsock_send (actor, "s44444444", "CONFIGURE", 5000, 5, 1000, 0, 1u << 30, 1u << 28,
                DROVER_DURABILITY_FULL, 5000);             //  keep-finished 0
    zsock_send (actor, "s88", "LOADED", (uint64_t) 10, (uint64_t) 0);
    //  bob waits on alice's task 3: refused once the task is back
    testutil_assignactor_hand (actor, TESTUTIL_ROUTE_CLIENT, s_wait_as (3, 7, "bob"));
    s_recalled (actor, 3, s_expect_recall (actor, 3));
    drover_msg_t *reply = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_CLIENT, "",
                                                            DROVER_MSG_ERROR);
    assert_int_equal (reply->code, DROVER_CODE_FORBIDDEN);
    assert_int_equal (reply->seq, 7);
    drover_msg_destroy (&reply);
    //  alice's: OK, then its DONE from the history; kept past keep-finished
    //  0 until answered, dropped after (read back again for the next WAIT)
    testutil_assignactor_hand (actor, TESTUTIL_ROUTE_CLIENT, s_wait_as (3, 8, "alice"));
    s_recalled (actor, 3, s_expect_recall (actor, 3));
    reply = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_CLIENT, "", DROVER_MSG_OK);
    assert_int_equal (reply->seq, 8);
    drover_msg_destroy (&reply);
    drover_msg_t *done = testutil_assignactor_expect_said (actor, "REPLY", TESTUTIL_ROUTE_CLIENT,
                                                           "", DROVER_MSG_TASK_DONE);
    assert_int_equal (done->seq, 8);
    assert_int_equal (done->state, DROVER_TASK_SUCCEEDED);
    assert_int_equal (done->out_size, 2);
    assert_memory_equal (done->out, "hi", 2);
    drover_msg_destroy (&done);
    //  A task the history no longer keeps: EXPIRED, as without history
    testutil_assignactor_hand (actor, TESTUTIL_ROUTE_CLIENT, s_wait_as (4, 9, "alice"));
    uint64_t ref = s_expect_recall (actor, 4);
    zsock_send (actor, "s8", "RECALLED", ref);
    reply = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_CLIENT, "", DROVER_MSG_OK);
    drover_msg_destroy (&reply);
    done = testutil_assignactor_expect_said (actor, "REPLY", TESTUTIL_ROUTE_CLIENT, "",
                                             DROVER_MSG_TASK_DONE);
    assert_int_equal (done->end, DROVER_END_EXPIRED);
    drover_msg_destroy (&done);
    //  An id never given is not asked for
    testutil_assignactor_hand (actor, TESTUTIL_ROUTE_CLIENT, s_wait_as (12, 10, "alice"));
    reply = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_CLIENT, "", DROVER_MSG_OK);
    drover_msg_destroy (&reply);
    testutil_assignactor_destroy (&actor);
}

//  A report from the worker's registration tells health HEARD worker
//  route, once per worker a turn however many reports the turn reads
//  (health holds what only says "alive"; the main invents nothing)
static void
test_heard_once_a_turn (void **state)
{
    zactor_t *actor = testutil_assignactor_new (5000);
    testutil_assignactor_up (actor, "alpha", TESTUTIL_ROUTE_ALPHA, NULL, 0);
    uint64_t first = testutil_assignactor_submit (actor, 1, 0);
    uint64_t second = testutil_assignactor_submit (actor, 2, 0);
    testutil_assignactor_assign (actor, first, "alpha", TESTUTIL_ROUTE_ALPHA, 1);
    testutil_assignactor_assign (actor, second, "alpha", TESTUTIL_ROUTE_ALPHA, 1);
    //  Both acks in one BATCH, as the main sends what one turn read
    drover_outbox_t *outbox = drover_outbox_new ();
    drover_msg_t *started = testutil_assignactor_report (DROVER_MSG_TASK_STARTED, "alpha", first,
                                                         1, 3);
    drover_outbox_say_msg (outbox, TESTUTIL_ROUTE_ALPHA, &started);
    started = testutil_assignactor_report (DROVER_MSG_TASK_STARTED, "alpha", second, 1, 4);
    drover_outbox_say_msg (outbox, TESTUTIL_ROUTE_ALPHA, &started);
    assert_int_equal (drover_outbox_flush (outbox, zactor_sock (actor)), 0);
    drover_outbox_destroy (&outbox);
    testutil_assignactor_expect_heard (actor, "alpha", TESTUTIL_ROUTE_ALPHA);
    testutil_assignactor_expect_event (actor, "task.running", first, 1);
    testutil_assignactor_expect_frames (actor, "SUCCESS", "alpha", NULL);
    testutil_assignactor_expect_event (actor, "task.running", second, 1);
    //  A later turn tells it again
    drover_msg_t *result = testutil_assignactor_report (DROVER_MSG_TASK_RESULT, "alpha", first,
                                                        1, 5);
    result->outcome = DROVER_OUTCOME_EXITED;
    testutil_assignactor_hand (actor, TESTUTIL_ROUTE_ALPHA, result);
    testutil_assignactor_expect_heard (actor, "alpha", TESTUTIL_ROUTE_ALPHA);
    drover_msg_t *reply = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_ALPHA, "alpha",
                                                            DROVER_MSG_OK);
    drover_msg_destroy (&reply);
    testutil_assignactor_expect_frames (actor, "FREE", "1", NULL);
    testutil_assignactor_expect_frames (actor, "SUCCESS", "alpha", NULL);
    testutil_assignactor_expect_event (actor, "task.succeeded", first, 1);
    testutil_assignactor_destroy (&actor);
}

//  LOST, then the old attempt reports: ERROR 409 to it, nothing to the
//  client; the new attempt's result is the one the client sees; the old
//  worker coming back is told to kill its attempt
static void
test_stale_result_after_lost_worker (void **state)
{
    zactor_t *actor = testutil_assignactor_new (5000);
    testutil_assignactor_up (actor, "alpha", TESTUTIL_ROUTE_ALPHA, NULL, 0);
    testutil_assignactor_up (actor, "beta", TESTUTIL_ROUTE_BETA, NULL, 0);
    uint64_t task = testutil_assignactor_submit (actor, 1, DROVER_SUBMIT_NOTIFY);
    testutil_assignactor_assign (actor, task, "alpha", TESTUTIL_ROUTE_ALPHA, 1);
    testutil_assignactor_hand (actor, TESTUTIL_ROUTE_ALPHA,
                               testutil_assignactor_report (DROVER_MSG_TASK_STARTED, "alpha",
                                                            task, 1, 1));
    testutil_assignactor_expect_heard (actor, "alpha", TESTUTIL_ROUTE_ALPHA);
    testutil_assignactor_expect_event (actor, "task.running", task, 1);
    testutil_assignactor_expect_frames (actor, "SUCCESS", "alpha", NULL);

    zsock_send (actor, "sss", "LOST", "alpha", "no heartbeat");
    testutil_assignactor_expect_event (actor, "task.requeued", task, 1);
    testutil_assignactor_expect_frames (actor, "QUEUE", "1", "3", "2", "4096", "", NULL);
    testutil_assignactor_assign (actor, task, "beta", TESTUTIL_ROUTE_BETA, 2);

    drover_msg_t *late = testutil_assignactor_report (DROVER_MSG_TASK_RESULT, "alpha", task, 1, 8);
    late->outcome = DROVER_OUTCOME_EXITED;
    testutil_assignactor_hand (actor, TESTUTIL_ROUTE_ALPHA, late);
    //  alpha is no longer registered: 401, so that it says HELLO again
    drover_msg_t *reply = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_ALPHA, "",
                                                            DROVER_MSG_ERROR);
    assert_int_equal (reply->code, DROVER_CODE_NOT_REGISTERED);
    assert_int_equal (reply->seq, 8);
    drover_msg_destroy (&reply);
    drover_msg_t *table = testutil_assignactor_list (actor, DROVER_TASK_ASSIGNED, 10);
    assert_int_equal (table->nrows, 1);
    assert_string_equal (table->task_rows [0].worker, "beta");
    assert_int_equal (table->task_rows [0].attempt, 2);
    drover_msg_destroy (&table);

    drover_msg_t *result = testutil_assignactor_report (DROVER_MSG_TASK_RESULT, "beta", task, 2, 1);
    result->outcome = DROVER_OUTCOME_EXITED;
    testutil_assignactor_hand (actor, TESTUTIL_ROUTE_BETA, result);
    testutil_assignactor_expect_heard (actor, "beta", TESTUTIL_ROUTE_BETA);
    reply = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_BETA, "beta", DROVER_MSG_OK);
    drover_msg_destroy (&reply);
    testutil_assignactor_expect_frames (actor, "FREE", "1", NULL);
    testutil_assignactor_expect_frames (actor, "SUCCESS", "beta", NULL);
    testutil_assignactor_expect_event (actor, "task.succeeded", task, 2);
    drover_msg_t *done = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_CLIENT, "",
                                                           DROVER_MSG_TASK_DONE);
    assert_int_equal (done->attempt, 2);
    assert_string_equal (done->worker, "beta");
    drover_msg_destroy (&done);

    //  alpha re-registers, still listing its old attempt: KILL it
    drover_taskref_t running [] = { { task, 1 } };
    testutil_assignactor_up (actor, "alpha", TESTUTIL_ROUTE_ALPHA, running, 1);
    drover_msg_t *kill = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_ALPHA, "alpha",
                                                           DROVER_MSG_TASK_KILL);
    assert_int_equal (kill->task, task);
    assert_int_equal (kill->attempt, 1);
    drover_msg_destroy (&kill);
    //  The killed attempt holds alpha's procs: schedq hears SETTLED (the
    //  link is flushed before the pipe) only once its RESULT came, refused
    assert_null (testutil_link_recv (testutil_assignactor_link, 0));
    drover_msg_t *killed = testutil_assignactor_report (DROVER_MSG_TASK_RESULT, "alpha", task, 1,
                                                        9);
    killed->outcome = DROVER_OUTCOME_CANCELLED;
    testutil_assignactor_hand (actor, TESTUTIL_ROUTE_ALPHA, killed);
    testutil_assignactor_expect_heard (actor, "alpha", TESTUTIL_ROUTE_ALPHA);
    reply = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_ALPHA, "alpha",
                                              DROVER_MSG_ERROR);
    assert_int_equal (reply->code, DROVER_CODE_STALE);
    drover_msg_destroy (&reply);
    testutil_assignactor_expect_frames (actor, "SETTLED", "alpha", NULL);
    //  A repeat of a recorded result is stale too; an unknown task is 404
    result = testutil_assignactor_report (DROVER_MSG_TASK_RESULT, "beta", task, 2, 2);
    testutil_assignactor_hand (actor, TESTUTIL_ROUTE_BETA, result);
    testutil_assignactor_expect_heard (actor, "beta", TESTUTIL_ROUTE_BETA);
    reply = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_BETA, "beta", DROVER_MSG_ERROR);
    assert_int_equal (reply->code, DROVER_CODE_STALE);
    drover_msg_destroy (&reply);
    testutil_assignactor_hand (actor, TESTUTIL_ROUTE_BETA,
                               testutil_assignactor_report (DROVER_MSG_TASK_STARTED, "beta",
                                                            424242, 1, 5));
    testutil_assignactor_expect_heard (actor, "beta", TESTUTIL_ROUTE_BETA);
    reply = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_BETA, "beta", DROVER_MSG_ERROR);
    assert_int_equal (reply->code, DROVER_CODE_NOT_FOUND);
    drover_msg_destroy (&reply);
    //  A report naming a registered worker from another connection: 401
    testutil_assignactor_hand (actor, TESTUTIL_ROUTE_CLIENT,
                               testutil_assignactor_report (DROVER_MSG_TASK_STARTED, "beta",
                                                            424242, 1, 6));
    reply = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_CLIENT, "", DROVER_MSG_ERROR);
    assert_int_equal (reply->code, DROVER_CODE_NOT_REGISTERED);
    drover_msg_destroy (&reply);
    table = testutil_assignactor_list (actor, 255, 0);
    assert_int_equal (table->counts [DROVER_TASK_SUCCEEDED], 1);
    drover_msg_destroy (&table);
    testutil_assignactor_destroy (&actor);
}

//  An offer nobody acknowledges: the actor's own timer requeues it
static void
test_ack_timeout (void **state)
{
    zactor_t *actor = testutil_assignactor_new (50);
    testutil_assignactor_up (actor, "alpha", TESTUTIL_ROUTE_ALPHA, NULL, 0);
    uint64_t task = testutil_assignactor_submit (actor, 1, 0);
    testutil_assignactor_assign (actor, task, "alpha", TESTUTIL_ROUTE_ALPHA, 1);
    drover_msg_t *kill = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_ALPHA, "alpha",
                                                           DROVER_MSG_TASK_KILL);
    assert_int_equal (kill->attempt, 1);
    drover_msg_destroy (&kill);
    testutil_assignactor_expect_frames (actor, "FAILURE", "alpha", "ack timeout", NULL);
    //  schedq puts alpha on probation before it hears the QUEUE: both come
    //  on the link, in that order
    testutil_assignactor_expect_frames (actor, "PROBATION", "alpha", "ack timeout", NULL);
    testutil_assignactor_expect_frames (actor, "FREE", "1", NULL);
    testutil_assignactor_expect_event (actor, "task.requeued", task, 1);
    testutil_assignactor_expect_frames (actor, "QUEUE", "1", "3", "2", "4096", "", NULL);
    //  The late ack is stale
    testutil_assignactor_hand (actor, TESTUTIL_ROUTE_ALPHA,
                               testutil_assignactor_report (DROVER_MSG_TASK_STARTED, "alpha",
                                                            task, 1, 6));
    testutil_assignactor_expect_heard (actor, "alpha", TESTUTIL_ROUTE_ALPHA);
    drover_msg_t *reply = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_ALPHA, "alpha",
                                                            DROVER_MSG_ERROR);
    assert_int_equal (reply->code, DROVER_CODE_STALE);
    assert_int_equal (reply->seq, 6);
    drover_msg_destroy (&reply);
    testutil_assignactor_destroy (&actor);
}

//  CANCEL, WAIT and bad requests are answered with the right codes, the
//  reply first and what it caused after
static void
test_requests (void **state)
{
    zactor_t *actor = testutil_assignactor_new (5000);
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_CANCEL);
    request->task = 31337;
    request->seq = 2;
    testutil_assignactor_hand (actor, TESTUTIL_ROUTE_CLIENT, request);
    drover_msg_t *reply = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_CLIENT, "",
                                                            DROVER_MSG_ERROR);
    assert_int_equal (reply->code, DROVER_CODE_NOT_FOUND);
    assert_int_equal (reply->seq, 2);
    drover_msg_destroy (&reply);

    uint64_t task = testutil_assignactor_submit (actor, 3, 0);
    request = drover_msg_new (DROVER_MSG_TASK_WAIT);
    request->seq = 4;
    request->ntasks = 2;
    request->tasks = (uint64_t *) zmalloc (2 * sizeof (uint64_t));
    request->tasks [0] = task;
    request->tasks [1] = 777;
    testutil_assignactor_hand (actor, TESTUTIL_ROUTE_CLIENT, request);
    reply = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_CLIENT, "", DROVER_MSG_OK);
    assert_int_equal (reply->seq, 4);
    drover_msg_destroy (&reply);
    drover_msg_t *done = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_CLIENT, "",
                                                           DROVER_MSG_TASK_DONE);
    assert_int_equal (done->task, 777);
    assert_int_equal (done->state, DROVER_TASK_UNKNOWN);
    assert_int_equal (done->seq, 4);
    drover_msg_destroy (&done);

    request = drover_msg_new (DROVER_MSG_TASK_CANCEL);
    request->task = task;
    request->seq = 5;
    testutil_assignactor_hand (actor, TESTUTIL_ROUTE_CLIENT, request);
    reply = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_CLIENT, "", DROVER_MSG_OK);
    assert_int_equal (reply->seq, 5);
    assert_string_equal (reply->reason, "cancelled");
    drover_msg_destroy (&reply);
    testutil_assignactor_expect_frames (actor, "DEQUEUE", "1", NULL);
    testutil_assignactor_expect_event (actor, "task.cancelled", task, 0);
    done = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_CLIENT, "",
                                             DROVER_MSG_TASK_DONE);
    assert_int_equal (done->task, task);
    assert_int_equal (done->state, DROVER_TASK_CANCELLED);
    assert_int_equal (done->seq, 4);
    drover_msg_destroy (&done);

    request = drover_msg_new (DROVER_MSG_TASK_CANCEL);
    request->task = task;
    request->seq = 6;
    testutil_assignactor_hand (actor, TESTUTIL_ROUTE_CLIENT, request);
    reply = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_CLIENT, "", DROVER_MSG_ERROR);
    assert_int_equal (reply->code, DROVER_CODE_CONFLICT);
    drover_msg_destroy (&reply);

    request = testutil_assignactor_submit_msg (7, 0);
    request->procs = 0;
    testutil_assignactor_hand (actor, TESTUTIL_ROUTE_CLIENT, request);
    reply = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_CLIENT, "", DROVER_MSG_ERROR);
    assert_int_equal (reply->code, DROVER_CODE_BAD_REQUEST);
    assert_int_equal (reply->seq, 7);
    drover_msg_destroy (&reply);

    //  Something that is not the task table's business
    testutil_assignactor_hand (actor, TESTUTIL_ROUTE_CLIENT,
                               drover_msg_new (DROVER_MSG_WORKER_LIST));
    reply = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_CLIENT, "", DROVER_MSG_ERROR);
    assert_int_equal (reply->code, DROVER_CODE_UNEXPECTED);
    drover_msg_destroy (&reply);

    //  An ASSIGN of the cancelled task only gives the capacity back
    testutil_say_assign (testutil_assignactor_link, task, "nobody");
    testutil_assignactor_expect_frames (actor, "FREE", "1", NULL);
    zstr_send (actor, "VERBOSE");
    drover_msg_t *table = testutil_assignactor_list (actor, 255, 10);
    assert_int_equal (table->counts [DROVER_TASK_CANCELLED], 1);
    drover_msg_destroy (&table);
    testutil_assignactor_destroy (&actor);
}

//  Past max-queued a submit is refused 301; nothing else is said
static void
test_queue_full (void **state)
{
    zactor_t *actor = testutil_assignactor_new (5000);
    zsock_send (actor, "s44444444", "CONFIGURE", 5000, 5, 2, 10, 1u << 30, 1u << 28,
                DROVER_DURABILITY_OFF, 5000);
    testutil_assignactor_submit (actor, 1, 0);
    testutil_assignactor_submit (actor, 2, 0);
    testutil_assignactor_hand (actor, TESTUTIL_ROUTE_CLIENT, testutil_assignactor_submit_msg (3,
                                                                                              0));
    drover_msg_t *reply = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_CLIENT, "",
                                                            DROVER_MSG_ERROR);
    assert_int_equal (reply->code, DROVER_CODE_QUEUE_FULL);
    assert_int_equal (reply->seq, 3);
    drover_msg_destroy (&reply);
    drover_msg_t *table = testutil_assignactor_list (actor, 255, 0);
    assert_int_equal (table->counts [DROVER_TASK_QUEUED], 2);
    drover_msg_destroy (&table);
    testutil_assignactor_destroy (&actor);
}

//  ---------------------------------------------------------------------
//  Leases (ACTORS.md, "Leases")

//  Lend a worker's capacity as schedq does, and wait until the actor holds
//  it: a second lease revoked at once comes back after the first is read
static void
s_lend (uint64_t lease, const char *worker, uint32_t procs)
{
    zsock_send (testutil_assignactor_link, "s8s48s", "LEASE", lease, worker, procs,
                (uint64_t) 1 << 30, "");
    zsock_send (testutil_assignactor_link, "s8s48s", "LEASE", (uint64_t) 999, worker, procs,
                (uint64_t) 1, "");
    zsock_send (testutil_assignactor_link, "s8", "REVOKE", (uint64_t) 999);
    zmsg_t *back = testutil_expect_link (testutil_assignactor_link, "RETURN", 3000);
    testutil_pop_check (back, "999");
    zmsg_destroy (&back);
}

//  Submit a task and expect it placed from a lease: TAKE on the link, no
//  QUEUE, and the offer at once; returns the task id
static uint64_t
s_submit_on_lease (zactor_t *actor, uint32_t seq, const char *lease, const char *worker,
                   const byte *route, size_t route_size)
{
    testutil_assignactor_hand (actor, TESTUTIL_ROUTE_CLIENT,
                               testutil_assignactor_submit_msg (seq, 0));
    drover_msg_t *reply = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_CLIENT, "",
                                                            DROVER_MSG_TASK_ACCEPTED);
    uint64_t task = reply->task;
    drover_msg_destroy (&reply);
    testutil_assignactor_expect_event (actor, "task.queued", task, 0);
    char id [24];
    snprintf (id, sizeof id, "%" PRIu64, task);
    testutil_assignactor_expect_frames (actor, "TAKE", lease, id, "2", "4096", "", NULL);
    drover_msg_t *offer = testutil_assignactor_expect_send (actor, route, route_size, worker,
                                                            DROVER_MSG_TASK_OFFER);
    assert_int_equal (offer->task, task);
    assert_int_equal (offer->attempt, 1);
    drover_msg_destroy (&offer);
    testutil_assignactor_expect_event (actor, "task.assigned", task, 1);
    return task;
}

//  With a lease that holds it, a submitted task is offered at once and
//  schedq hears TAKE instead of QUEUE; a used-up lease is returned, and
//  the next task goes to the queue
static void
test_lease_places_without_the_queue (void **state)
{
    zactor_t *actor = testutil_assignactor_new (5000);
    testutil_assignactor_up (actor, "alpha", TESTUTIL_ROUTE_ALPHA, NULL, 0);
    s_lend (5, "alpha", 4);
    s_submit_on_lease (actor, 1, "5", "alpha", TESTUTIL_ROUTE_ALPHA);
    s_submit_on_lease (actor, 2, "5", "alpha", TESTUTIL_ROUTE_ALPHA);
    testutil_assignactor_expect_frames (actor, "RETURN", "5", NULL);       //  4 procs, 2 tasks of 2
    uint64_t task = testutil_assignactor_submit (actor, 3, 0);
    assert_int_equal (task, 3);
    testutil_assignactor_destroy (&actor);
}

//  A lease on a worker the table has not heard UP of yet is kept but not
//  used; REVOKE and LOST give leases back, each once
static void
test_lease_returned_on_revoke_and_lost (void **state)
{
    zactor_t *actor = testutil_assignactor_new (5000);
    s_lend (1, "alpha", 4);
    testutil_assignactor_submit (actor, 1,
                                 0);                             //  alpha is not up: QUEUE
    testutil_assignactor_up (actor, "alpha", TESTUTIL_ROUTE_ALPHA, NULL, 0);
    testutil_assignactor_up (actor, "beta", TESTUTIL_ROUTE_BETA, NULL, 0);
    s_lend (2, "beta", 4);
    zsock_send (testutil_assignactor_link, "s8", "REVOKE", (uint64_t) 1);
    testutil_assignactor_expect_frames (actor, "RETURN", "1", NULL);
    zsock_send (testutil_assignactor_link, "s8", "REVOKE",
                (uint64_t) 1);  //  returned already: nothing
    zsock_send (actor, "sss", "LOST", "beta", "left");
    testutil_assignactor_expect_frames (actor, "RETURN", "2", NULL);
    testutil_assignactor_submit (actor, 2, 0);                             //  no lease left: QUEUE
    testutil_assignactor_destroy (&actor);
}

//  A machine failure returns the worker's lease before the requeue, which
//  takes another worker's lease, never the failed worker back
static void
test_machine_failure_returns_lease_first (void **state)
{
    zactor_t *actor = testutil_assignactor_new (50);
    testutil_assignactor_up (actor, "alpha", TESTUTIL_ROUTE_ALPHA, NULL, 0);
    s_lend (1, "alpha", 8);
    uint64_t task = s_submit_on_lease (actor, 1, "1", "alpha", TESTUTIL_ROUTE_ALPHA);
    testutil_assignactor_up (actor, "beta", TESTUTIL_ROUTE_BETA, NULL, 0);
    s_lend (2, "beta", 4);
    drover_msg_t *kill = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_ALPHA, "alpha",
                                                           DROVER_MSG_TASK_KILL);
    drover_msg_destroy (&kill);
    testutil_assignactor_expect_frames (actor, "FAILURE", "alpha", "ack timeout", NULL);
    testutil_assignactor_expect_frames (actor, "RETURN", "1", NULL);
    testutil_assignactor_expect_frames (actor, "PROBATION", "alpha", "ack timeout", NULL);
    testutil_assignactor_expect_frames (actor, "FREE", "1", NULL);
    testutil_assignactor_expect_event (actor, "task.requeued", task, 1);
    char id [24];
    snprintf (id, sizeof id, "%" PRIu64, task);
    testutil_assignactor_expect_frames (actor, "TAKE", "2", id, "2", "4096", "", NULL);
    drover_msg_t *offer = testutil_assignactor_expect_send (actor, TESTUTIL_ROUTE_BETA, "beta",
                                                            DROVER_MSG_TASK_OFFER);
    assert_int_equal (offer->attempt, 2);
    drover_msg_destroy (&offer);
    testutil_assignactor_destroy (&actor);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_life_cycle),
        cmocka_unit_test (test_durable_acknowledgements),
        cmocka_unit_test (test_evicted_task_recalled),
        cmocka_unit_test (test_heard_once_a_turn),
        cmocka_unit_test (test_stale_result_after_lost_worker),
        cmocka_unit_test (test_ack_timeout),
        cmocka_unit_test (test_requests),
        cmocka_unit_test (test_queue_full),
        cmocka_unit_test (test_lease_places_without_the_queue),
        cmocka_unit_test (test_lease_returned_on_revoke_and_lost),
        cmocka_unit_test (test_machine_failure_returns_lease_first),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
