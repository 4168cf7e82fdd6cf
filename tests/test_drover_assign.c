/*  =========================================================================
    test_drover_assign - the task table's decisions, with a fake clock

    Every test drives the plain class directly and checks the actions it
    decides (what would be said to schedq, probation, workers, waiters and
    the event stream), so that the reliability contract is checked without
    threads, sockets or sleeps: one result per task, fenced by attempt.
    =========================================================================
*/

#include "testutil_wire.h"
#include "testutil_class.h"
#include "drover_assign.h"

//  Route frames of the test's peers
#define S_CLIENT        (const byte *) "\x00\x01" "client", 8
#define S_OTHER_CLIENT  (const byte *) "\x00\x02" "other", 7
#define S_ALPHA         (const byte *) "\x00\x03" "alpha", 7
#define S_BETA          (const byte *) "\x00\x04" "beta", 6

//  Count the actions of a type
static int
s_count (testutil_actions_t *actions, int type)
{
    int count = 0;
    for (int index = 0; index < actions->count; index++)
        count += actions->items [index].type == type;
    return count;
}

//  Find the event with a topic about a task, or NULL
static drover_action_t *
s_event (testutil_actions_t *actions, const char *topic, uint64_t task)
{
    for (int index = 0; index < actions->count; index++) {
        drover_action_t *action = &actions->items [index];
        if (action->type == DROVER_ACTION_EVENT && streq (action->topic, topic) && action->task == task)
            return action;
    }
    return NULL;
}

//  Build a TASK SUBMIT running argv "sh -c script" (priority 3, 1 MiB,
//  a minute at most)
static drover_msg_t *
s_submit_msg (const char *script, int procs, uint32_t retries, uint32_t flags)
{
    drover_msg_t *msg = testutil_submit_msg (script, 3, procs, flags);
    msg->retries = retries;
    msg->mem = 1 << 20;
    msg->timeout = 60000;
    return msg;
}

//  Submit a task from the client and return its id
static uint64_t
s_submit (drover_assign_t *table, uint32_t retries, uint32_t flags)
{
    drover_msg_t *msg = s_submit_msg ("echo hi", 1, retries, flags);
    uint64_t task = 0;
    const char *reason = NULL;
    assert_int_equal (drover_assign_submit (table, msg, S_CLIENT, &task, &reason), 200);
    assert_true (task > 0);
    drover_msg_destroy (&msg);
    return task;
}

//  Assign a task to a worker and check the offer it makes
static void
s_assign (drover_assign_t *table, uint64_t task, const char *worker, int64_t now,
          uint32_t attempt)
{
    drover_assign_assign (table, task, worker, now);
    testutil_actions_t *actions = testutil_take_actions (table);
    drover_action_t *offer = testutil_find_action (actions, DROVER_ACTION_OFFER, task, 0);
    assert_non_null (offer);
    assert_int_equal (offer->attempt, attempt);
    assert_string_equal (offer->worker, worker);
    assert_non_null (s_event (actions, "task.assigned", task));
    assert_int_equal (drover_assign_state (table, task), DROVER_TASK_ASSIGNED);
}

//  Acknowledge an attempt
static void
s_start (drover_assign_t *table, uint64_t task, const char *worker, uint32_t attempt)
{
    const char *reason;
    assert_int_equal (drover_assign_started (table, worker, task, attempt, &reason), 200);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_non_null (s_event (actions, "task.running", task));
    assert_int_equal (drover_assign_state (table, task), DROVER_TASK_RUNNING);
}

//  Report a result from a worker; returns the status code
static int
s_result (drover_assign_t *table, uint64_t task, const char *worker, uint32_t attempt,
          int outcome, int exit_code, const char *out)
{
    drover_msg_t *msg = testutil_result_msg (worker, task, attempt, outcome, exit_code);
    msg->duration = 42;
    if (out)
        drover_msg_set_output (msg, (const byte *) out, strlen (out), (const byte *) "e", 1);
    const char *reason;
    int code = drover_assign_result (table, msg, &reason);
    drover_msg_destroy (&msg);
    return code;
}

//  Register a worker with nothing running
static void
s_up (drover_assign_t *table, const char *worker, const byte *route, size_t size)
{
    drover_assign_worker_up (table, worker, route, size, NULL, 0);
    assert_int_equal (testutil_take_actions (table)->count, 0);
}


//  ---------------------------------------------------------------------

//  SUBMIT, ASSIGN, STARTED, RESULT: every step says what it should
static void
test_life_cycle (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    drover_msg_t *msg = s_submit_msg ("echo hi", 2, 0, DROVER_SUBMIT_NOTIFY);
    drover_msg_add_label (msg, "os=linux");
    drover_msg_add_label (msg, "gpu=yes");
    uint64_t task = 0;
    const char *reason;
    assert_int_equal (drover_assign_submit (table, msg, S_CLIENT, &task, &reason), 200);
    assert_int_equal (task, 1);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_non_null (s_event (actions, "task.queued", task));
    drover_action_t *queue = testutil_find_action (actions, DROVER_ACTION_QUEUE, task, 0);
    assert_non_null (queue);
    assert_int_equal (queue->priority, 3);
    assert_int_equal (queue->procs, 2);
    assert_int_equal (queue->mem, 1 << 20);
    assert_string_equal (queue->labels, "os=linux\ngpu=yes");
    assert_int_equal (drover_assign_state (table, task), DROVER_TASK_QUEUED);
    assert_int_equal (drover_assign_attempt (table, task), 0);

    s_up (table, "alpha", S_ALPHA);
    drover_assign_assign (table, task, "alpha", 1000);
    actions = testutil_take_actions (table);
    drover_action_t *offer = testutil_find_action (actions, DROVER_ACTION_OFFER, task, 0);
    assert_non_null (offer);
    assert_int_equal (offer->attempt, 1);
    assert_int_equal (offer->route_size, 7);
    assert_memory_equal (offer->route, "\x00\x03" "alpha", 7);
    assert_int_equal (offer->procs, 2);
    assert_int_equal (offer->timeout, 60000);
    assert_int_equal (offer->body_size, msg->body_size);
    assert_memory_equal (offer->body, msg->body, msg->body_size);
    assert_non_null (s_event (actions, "task.assigned", task));
    assert_int_equal (drover_assign_state (table, task), DROVER_TASK_ASSIGNED);
    assert_string_equal (drover_assign_worker (table, task), "alpha");
    drover_msg_destroy (&msg);

    //  An ack from another worker, or for another attempt, is stale
    assert_int_equal (drover_assign_started (table, "beta", task, 1, &reason), 409);
    assert_int_equal (drover_assign_started (table, "alpha", task, 2, &reason), 409);
    assert_non_null (strstr (reason, "stale"));
    assert_int_equal (drover_assign_started (table, "alpha", 99, 1, &reason), 404);
    assert_int_equal (testutil_take_actions (table)->count, 0);

    assert_int_equal (drover_assign_started (table, "alpha", task, 1, &reason), 200);
    actions = testutil_take_actions (table);
    assert_non_null (s_event (actions, "task.running", task));
    drover_action_t *success = testutil_find_action (actions, DROVER_ACTION_SUCCESS, 0, 0);
    assert_non_null (success);
    assert_string_equal (success->worker, "alpha");
    assert_int_equal (drover_assign_state (table, task), DROVER_TASK_RUNNING);
    //  A repeated ack changes nothing
    assert_int_equal (drover_assign_started (table, "alpha", task, 1, &reason), 200);
    assert_int_equal (testutil_take_actions (table)->count, 0);
    //  The ack deadline is gone once acknowledged
    assert_int_equal (drover_assign_expire (table, 1000000), -1);
    assert_int_equal (testutil_take_actions (table)->count, 0);

    drover_msg_t *result = drover_msg_new (DROVER_MSG_TASK_RESULT);
    strcpy (result->worker, "alpha");
    result->task = task;
    result->attempt = 1;
    result->outcome = DROVER_OUTCOME_EXITED;
    result->duration = 17;
    result->truncated = DROVER_TRUNC_STDERR;
    drover_msg_set_output (result, (const byte *) "hi\n", 3, (const byte *) "warn", 4);
    assert_int_equal (drover_assign_result (table, result, &reason), 200);
    assert_null (result->out);          //  taken by the table
    drover_msg_destroy (&result);
    actions = testutil_take_actions (table);
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_FREE, task, 0));
    assert_int_equal (s_count (actions, DROVER_ACTION_SUCCESS), 1);
    assert_non_null (s_event (actions, "task.succeeded", task));
    assert_int_equal (s_count (actions, DROVER_ACTION_DONE), 1);
    drover_action_t *done = testutil_find_action (actions, DROVER_ACTION_DONE, task, 0);
    assert_int_equal (done->state, DROVER_TASK_SUCCEEDED);
    assert_int_equal (done->attempt, 1);
    assert_int_equal (done->seq, 0);
    assert_string_equal (done->worker, "alpha");
    assert_int_equal (done->duration, 17);
    assert_int_equal (done->truncated, DROVER_TRUNC_STDERR);
    assert_int_equal (done->out_size, 3);
    assert_memory_equal (done->out, "hi\n", 3);
    assert_int_equal (done->err_size, 4);
    assert_int_equal (done->route_size, 8);
    assert_memory_equal (done->route, "\x00\x01" "client", 8);
    assert_int_equal (drover_assign_state (table, task), DROVER_TASK_SUCCEEDED);

    //  Once final: a second result is stale, a cancel conflicts, a wait
    //  is answered at once with the kept result
    assert_int_equal (s_result (table, task, "alpha", 1, DROVER_OUTCOME_EXITED, 0, "again"), 409);
    assert_int_equal (testutil_take_actions (table)->count, 0);
    assert_int_equal (drover_assign_cancel (table, task, &reason), 410);
    assert_string_equal (reason, "already SUCCEEDED");
    assert_int_equal (drover_assign_wait (table, &task, 1, 55, S_OTHER_CLIENT, &reason), 200);
    actions = testutil_take_actions (table);
    assert_int_equal (actions->count, 1);
    done = testutil_find_action (actions, DROVER_ACTION_DONE, task, 0);
    assert_int_equal (done->seq, 55);
    assert_int_equal (done->out_size, 3);
    assert_memory_equal (done->route, "\x00\x02" "other", 7);
    assert_int_equal (drover_assign_count (table, DROVER_TASK_SUCCEEDED), 1);
    assert_int_equal (drover_assign_size (table), 1);
    drover_assign_destroy (&table);
    drover_assign_destroy (&table);
}

//  exit 1 with retries 2: runs three times, then FAILED with one result
static void
test_retries_then_failed (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    s_up (table, "alpha", S_ALPHA);
    uint64_t task = s_submit (table, 2, DROVER_SUBMIT_NOTIFY);
    testutil_take_actions (table);
    int dones = 0;
    for (uint32_t attempt = 1; attempt <= 3; attempt++) {
        s_assign (table, task, "alpha", 0, attempt);
        s_start (table, task, "alpha", attempt);
        assert_int_equal (s_result (table, task, "alpha", attempt, DROVER_OUTCOME_EXITED, 1, "x"), 200);
        testutil_actions_t *actions = testutil_take_actions (table);
        assert_non_null (testutil_find_action (actions, DROVER_ACTION_FREE, task, 0));
        dones += s_count (actions, DROVER_ACTION_DONE);
        if (attempt < 3) {
            drover_action_t *requeued = s_event (actions, "task.requeued", task);
            assert_non_null (requeued);
            assert_string_equal (requeued->reason, "exit 1");
            assert_non_null (testutil_find_action (actions, DROVER_ACTION_QUEUE, task, 0));
            assert_int_equal (drover_assign_state (table, task), DROVER_TASK_QUEUED);
        }
        else {
            assert_non_null (s_event (actions, "task.failed", task));
            drover_action_t *done = testutil_find_action (actions, DROVER_ACTION_DONE, task, 0);
            assert_int_equal (done->state, DROVER_TASK_FAILED);
            assert_int_equal (done->attempt, 3);
            assert_int_equal (done->exit_code, 1);
            assert_int_equal (s_count (actions, DROVER_ACTION_QUEUE), 0);
        }
    }
    assert_int_equal (dones, 1);
    assert_int_equal (drover_assign_state (table, task), DROVER_TASK_FAILED);

    //  A signal, a timeout and a failed spawn are the task's own failures too
    uint64_t other = s_submit (table, 0, 0);
    s_assign (table, other, "alpha", 0, 1);
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_TASK_RESULT);
    strcpy (msg->worker, "alpha");
    msg->task = other;
    msg->attempt = 1;
    msg->outcome = DROVER_OUTCOME_TIMEDOUT;
    const char *reason;
    assert_int_equal (drover_assign_result (table, msg, &reason), 200);
    drover_msg_destroy (&msg);
    testutil_actions_t *actions = testutil_take_actions (table);
    drover_action_t *failed = s_event (actions, "task.failed", other);
    assert_non_null (failed);
    assert_string_equal (failed->reason, "timed out");
    drover_assign_destroy (&table);
}

//  Run one attempt of a new task on alpha to a RESULT of outcome (with a
//  signal and a reason as a worker from the spec may send) and return its
//  TASK DONE's end
static int
s_end_after (drover_assign_t *table, int outcome, int exit_code, int signal,
             const char *reason_text, int state)
{
    uint64_t task = s_submit (table, 0, DROVER_SUBMIT_NOTIFY);
    testutil_take_actions (table);
    s_assign (table, task, "alpha", 0, 1);
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_TASK_RESULT);
    strcpy (msg->worker, "alpha");
    msg->task = task;
    msg->attempt = 1;
    msg->outcome = (uint8_t) outcome;
    msg->exit_code = exit_code;
    msg->signal = signal;
    drover_msg_set_reason (msg, reason_text);
    const char *reason;
    assert_int_equal (drover_assign_result (table, msg, &reason), 200);
    drover_msg_destroy (&msg);
    drover_action_t *done = testutil_find_action (testutil_take_actions (table), DROVER_ACTION_DONE, task, 0);
    assert_non_null (done);
    assert_int_equal (done->state, state);
    assert_true (drover_end_fits (done->state, done->end));
    return done->end;
}

//  TASK DONE once said only SUCCEEDED / FAILED / CANCELLED: a timeout
//  killed by SIGKILL looked like any signal, and clients read the reason's
//  words. Its end says how the task ended, whatever the reason's text.
static void
test_done_says_how_the_task_ended (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    drover_assign_configure (table, 5000, 0, 1000, 1000);
    s_up (table, "alpha", S_ALPHA);
    assert_int_equal (s_end_after (table, DROVER_OUTCOME_EXITED, 0, 0, "", DROVER_TASK_SUCCEEDED),
                      DROVER_END_SUCCEEDED);
    assert_int_equal (s_end_after (table, DROVER_OUTCOME_EXITED, 3, 0, "timed out waiting for db",
                                   DROVER_TASK_FAILED), DROVER_END_FAILED);
    assert_int_equal (s_end_after (table, DROVER_OUTCOME_SIGNALLED, -1, 9, "", DROVER_TASK_FAILED),
                      DROVER_END_FAILED);
    assert_int_equal (s_end_after (table, DROVER_OUTCOME_TIMEDOUT, -1, 9, "killed after 500 ms",
                                   DROVER_TASK_FAILED), DROVER_END_TIMED_OUT);
    assert_int_equal (s_end_after (table, DROVER_OUTCOME_SPAWN_FAILED, -1, 0, "no such file",
                                   DROVER_TASK_FAILED), DROVER_END_SPAWN_FAILED);

    //  Cancelled while queued, and while running (the worker says CANCELLED)
    const char *reason;
    uint64_t queued = s_submit (table, 0, DROVER_SUBMIT_NOTIFY);
    testutil_take_actions (table);
    assert_int_equal (drover_assign_cancel (table, queued, &reason), 200);
    drover_action_t *done = testutil_find_action (testutil_take_actions (table), DROVER_ACTION_DONE, queued, 0);
    assert_int_equal (done->end, DROVER_END_CANCELLED);
    assert_int_equal (done->exit_code, -1);     //  nothing ran: no status
    assert_int_equal (done->signal, 0);
    uint64_t running = s_submit (table, 0, DROVER_SUBMIT_NOTIFY);
    testutil_take_actions (table);
    s_assign (table, running, "alpha", 0, 1);
    assert_int_equal (drover_assign_cancel (table, running, &reason), 200);
    testutil_take_actions (table);
    assert_int_equal (s_result (table, running, "alpha", 1, DROVER_OUTCOME_CANCELLED, -1, NULL), 200);
    done = testutil_find_action (testutil_take_actions (table), DROVER_ACTION_DONE, running, 0);
    assert_int_equal (done->state, DROVER_TASK_CANCELLED);
    assert_int_equal (done->end, DROVER_END_CANCELLED);

    //  lost-retries 0: one lost worker ends it LOST, with the loss as reason
    uint64_t lost = s_submit (table, 0, DROVER_SUBMIT_NOTIFY);
    testutil_take_actions (table);
    s_assign (table, lost, "alpha", 0, 1);
    drover_assign_worker_lost (table, "alpha", "no heartbeat");
    done = testutil_find_action (testutil_take_actions (table), DROVER_ACTION_DONE, lost, 0);
    assert_int_equal (done->state, DROVER_TASK_FAILED);
    assert_int_equal (done->end, DROVER_END_LOST);
    assert_string_equal (done->reason, "worker lost: no heartbeat");
    assert_int_equal (done->exit_code, -1);

    //  An id never given out: UNKNOWN
    uint64_t never = 1000;
    assert_int_equal (drover_assign_wait (table, &never, 1, 9, S_CLIENT, &reason), 200);
    done = testutil_find_action (testutil_take_actions (table), DROVER_ACTION_DONE, never, 0);
    assert_int_equal (done->state, DROVER_TASK_UNKNOWN);
    assert_int_equal (done->end, DROVER_END_UNKNOWN);
    assert_int_equal (done->exit_code, -1);

    //  TASK LIST rows carry the end too, NONE while a task is live
    uint64_t live = s_submit (table, 0, 0);
    testutil_take_actions (table);
    drover_msg_t *list = drover_msg_new (DROVER_MSG_TASK_TABLE);
    drover_assign_list (table, 255, 100, NULL, NULL, 0, list);
    assert_int_equal (list->nrows, 9);
    int ends [] = { DROVER_END_NONE, DROVER_END_LOST, DROVER_END_CANCELLED,
                    DROVER_END_CANCELLED, DROVER_END_SPAWN_FAILED, DROVER_END_TIMED_OUT,
                    DROVER_END_FAILED, DROVER_END_FAILED, DROVER_END_SUCCEEDED };
    for (uint32_t row = 0; row < list->nrows; row++)
        assert_int_equal (list->task_rows [row].end, ends [row]);
    assert_true (list->task_rows [0].task == live);
    zframe_t *frame = drover_msg_encode (list);     //  every pair fits its state
    assert_non_null (frame);
    zframe_destroy (&frame);
    drover_msg_destroy (&list);
    drover_assign_destroy (&table);
}

//  Finished results past the output budget vanished, and a WAIT on them
//  then said UNKNOWN like an id never given out, which drover wait counted
//  as failed. They are reported EXPIRED: ids are never reused and grow,
//  so an id below the next one that is no longer held existed and ended.
static void
test_results_past_the_output_budget_expire (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    //  A finished task holds its output and its body (18 bytes here): 40
    //  bytes hold one of the tasks below, not two
    drover_assign_set_max_kept_bytes (table, 40);
    s_up (table, "alpha", S_ALPHA);
    uint64_t tasks [3];
    for (int index = 0; index < 3; index++) {
        tasks [index] = s_submit (table, 0, 0);
        testutil_take_actions (table);
        s_assign (table, tasks [index], "alpha", 0, 1);
        //  6 bytes of output each (5 + 1 of stderr)
        assert_int_equal (s_result (table, tasks [index], "alpha", 1,
                                    DROVER_OUTCOME_EXITED, 0, "hello"), 200);
        testutil_take_actions (table);
    }
    //  The next call drops the oldest results until the rest fit
    const char *reason;
    uint64_t ids [] = { tasks [0], tasks [1], tasks [2], tasks [2] + 1, 0 };
    assert_int_equal (drover_assign_wait (table, ids, 5, 4, S_CLIENT, &reason), 200);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_int_equal (s_count (actions, DROVER_ACTION_DONE), 5);
    int states [] = { DROVER_TASK_UNKNOWN, DROVER_TASK_UNKNOWN, DROVER_TASK_SUCCEEDED,
                      DROVER_TASK_UNKNOWN, DROVER_TASK_UNKNOWN };
    int ends [] = { DROVER_END_EXPIRED, DROVER_END_EXPIRED, DROVER_END_SUCCEEDED,
                    DROVER_END_UNKNOWN, DROVER_END_UNKNOWN };
    for (int index = 0; index < 5; index++) {
        drover_action_t *done = testutil_find_action (actions, DROVER_ACTION_DONE, 0, index);
        assert_true (done->task == ids [index]);
        assert_int_equal (done->state, states [index]);
        assert_int_equal (done->end, ends [index]);
    }
    assert_int_equal (drover_assign_size (table), 1);
    //  A CANCEL of an expired task is a conflict (it ended), not "unknown"
    assert_int_equal (drover_assign_cancel (table, tasks [0], &reason), 410);
    assert_non_null (strstr (reason, "expired"));
    assert_int_equal (drover_assign_cancel (table, tasks [2] + 1, &reason), 404);
    drover_assign_destroy (&table);
}

//  A lost worker's tasks go back to the queue with the attempt raised at
//  their next assignment; past lost-retries the task is poison
static void
test_lost_requeues_then_poison (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    drover_assign_configure (table, 5000, 2, 1000, 1000);
    const char *workers [] = { "w1", "w2", "w3" };
    for (int index = 0; index < 3; index++)
        s_up (table, workers [index], S_ALPHA);
    uint64_t task = s_submit (table, 0, DROVER_SUBMIT_NOTIFY);
    uint64_t bystander = s_submit (table, 0, 0);
    testutil_take_actions (table);
    s_assign (table, bystander, "w3", 0, 1);
    for (uint32_t attempt = 1; attempt <= 3; attempt++) {
        s_assign (table, task, workers [attempt - 1], 0, attempt);
        if (attempt == 2)
            s_start (table, task, workers [attempt - 1], attempt);
        drover_assign_worker_lost (table, workers [attempt - 1], "no heartbeat");
        testutil_actions_t *actions = testutil_take_actions (table);
        assert_int_equal (s_count (actions, DROVER_ACTION_FREE), 0);   //  schedq drops it
        if (attempt < 3) {
            drover_action_t *requeued = s_event (actions, "task.requeued", task);
            assert_non_null (requeued);
            assert_string_equal (requeued->reason, "worker lost: no heartbeat");
            assert_string_equal (requeued->worker, workers [attempt - 1]);
            assert_non_null (testutil_find_action (actions, DROVER_ACTION_QUEUE, task, 0));
            assert_int_equal (s_count (actions, DROVER_ACTION_DONE), 0);
            assert_int_equal (drover_assign_state (table, task), DROVER_TASK_QUEUED);
            assert_int_equal (drover_assign_attempt (table, task), attempt);
            s_up (table, workers [attempt - 1], S_ALPHA);
        }
        else {
            drover_action_t *done = testutil_find_action (actions, DROVER_ACTION_DONE, task, 0);
            assert_non_null (done);
            assert_int_equal (done->state, DROVER_TASK_FAILED);
            assert_string_equal (done->reason, "poison: lost 3 workers");
            assert_int_equal (done->end, DROVER_END_POISON);
            assert_int_equal (done->attempt, 3);
            //  The bystander on w3 was requeued with it
            assert_non_null (s_event (actions, "task.requeued", bystander));
        }
    }
    assert_int_equal (drover_assign_state (table, task), DROVER_TASK_FAILED);
    assert_int_equal (drover_assign_state (table, bystander), DROVER_TASK_QUEUED);
    //  A lost worker is forgotten: what schedq assigns to it is given back
    drover_assign_assign (table, bystander, "w3", 0);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_FREE, bystander, 0));
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_QUEUE, bystander, 0));
    assert_null (testutil_find_action (actions, DROVER_ACTION_OFFER, 0, 0));
    //  Losses do not use the task's own retries: with retries 0 it still ran
    //  a third time above. LOST of an unknown worker is harmless.
    drover_assign_worker_lost (table, "nobody", "left");
    assert_int_equal (testutil_take_actions (table)->count, 0);
    drover_assign_destroy (&table);
}

//  The SIGSTOP case: alpha is lost, the task reruns on beta, then alpha
//  comes back and reports its old attempt. The old result is STALE, the
//  client sees exactly one result, and alpha is told to kill the attempt.
static void
test_stale_results_after_lost_worker (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    s_up (table, "alpha", S_ALPHA);
    s_up (table, "beta", S_BETA);
    uint64_t first = s_submit (table, 0, DROVER_SUBMIT_NOTIFY);
    uint64_t second = s_submit (table, 0, DROVER_SUBMIT_NOTIFY);
    testutil_take_actions (table);
    s_assign (table, first, "alpha", 0, 1);
    s_start (table, first, "alpha", 1);
    s_assign (table, second, "alpha", 0, 1);
    s_start (table, second, "alpha", 1);
    drover_assign_worker_lost (table, "alpha", "no heartbeat");
    testutil_take_actions (table);
    s_assign (table, first, "beta", 0, 2);
    s_start (table, first, "beta", 2);
    s_assign (table, second, "beta", 0, 2);
    s_start (table, second, "beta", 2);

    int dones = 0;
    //  alpha's late result for the first task arrives before beta's
    assert_int_equal (s_result (table, first, "alpha", 1, DROVER_OUTCOME_EXITED, 0, "old"), 409);
    assert_int_equal (testutil_take_actions (table)->count, 0);
    assert_int_equal (s_result (table, first, "beta", 2, DROVER_OUTCOME_EXITED, 0, "new"), 200);
    testutil_actions_t *actions = testutil_take_actions (table);
    dones += s_count (actions, DROVER_ACTION_DONE);
    drover_action_t *done = testutil_find_action (actions, DROVER_ACTION_DONE, first, 0);
    assert_int_equal (done->attempt, 2);
    assert_string_equal (done->worker, "beta");
    assert_memory_equal (done->out, "new", 3);
    //  beta finishes the second first; alpha's report comes after
    assert_int_equal (s_result (table, second, "beta", 2, DROVER_OUTCOME_EXITED, 0, "new"), 200);
    dones += s_count (testutil_take_actions (table), DROVER_ACTION_DONE);
    //  alpha re-registers saying it still runs both old attempts
    drover_taskref_t running [] = { { first, 1 }, { second, 1 } };
    drover_assign_worker_up (table, "alpha", S_ALPHA, running, 2);
    actions = testutil_take_actions (table);
    assert_int_equal (s_count (actions, DROVER_ACTION_KILL), 2);
    drover_action_t *kill = testutil_find_action (actions, DROVER_ACTION_KILL, second, 0);
    assert_int_equal (kill->attempt, 1);
    assert_memory_equal (kill->route, "\x00\x03" "alpha", 7);
    assert_int_equal (s_result (table, second, "alpha", 1, DROVER_OUTCOME_EXITED, 0, "old"), 409);
    assert_int_equal (testutil_take_actions (table)->count, 0);
    assert_int_equal (dones, 2);
    assert_int_equal (drover_assign_count (table, DROVER_TASK_SUCCEEDED), 2);

    //  Results for tasks never assigned, or unknown, are refused
    uint64_t queued = s_submit (table, 0, 0);
    testutil_take_actions (table);
    assert_int_equal (s_result (table, queued, "alpha", 1, DROVER_OUTCOME_EXITED, 0, NULL), 409);
    assert_int_equal (s_result (table, 424242, "ghost", 1, DROVER_OUTCOME_EXITED, 0, NULL), 404);
    assert_int_equal (testutil_take_actions (table)->count, 0);
    drover_assign_destroy (&table);
}

//  An offer not acknowledged in time: probation hears of it, the task is
//  queued again without using its retries, a late ack is stale
static void
test_ack_timeout_requeues_without_retries (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    drover_assign_configure (table, 100, 5, 1000, 1000);
    s_up (table, "alpha", S_ALPHA);
    s_up (table, "beta", S_BETA);
    uint64_t task = s_submit (table, 1, DROVER_SUBMIT_NOTIFY);
    uint64_t quick = s_submit (table, 0, 0);
    testutil_take_actions (table);
    assert_int_equal (drover_assign_expire (table, 0), -1);
    s_assign (table, task, "alpha", 1000, 1);
    s_assign (table, quick, "beta", 1010, 1);
    assert_int_equal (drover_assign_expire (table, 1050), 1100);
    assert_int_equal (testutil_take_actions (table)->count, 0);
    //  quick is acknowledged: its deadline no longer counts
    s_start (table, quick, "beta", 1);

    assert_int_equal (drover_assign_expire (table, 1100), -1);
    testutil_actions_t *actions = testutil_take_actions (table);
    drover_action_t *failure = testutil_find_action (actions, DROVER_ACTION_FAILURE, 0, 0);
    assert_non_null (failure);
    assert_string_equal (failure->worker, "alpha");
    assert_string_equal (failure->reason, "ack timeout");
    drover_action_t *kill = testutil_find_action (actions, DROVER_ACTION_KILL, task, 0);
    assert_non_null (kill);
    assert_int_equal (kill->attempt, 1);
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_FREE, task, 0));
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_QUEUE, task, 0));
    assert_non_null (s_event (actions, "task.requeued", task));
    assert_int_equal (s_count (actions, DROVER_ACTION_DONE), 0);
    assert_int_equal (drover_assign_state (table, task), DROVER_TASK_QUEUED);
    assert_int_equal (drover_assign_state (table, quick), DROVER_TASK_RUNNING);

    const char *reason;
    assert_int_equal (drover_assign_started (table, "alpha", task, 1, &reason), 409);
    assert_int_equal (s_result (table, task, "alpha", 1, DROVER_OUTCOME_EXITED, 0, NULL), 409);
    assert_int_equal (testutil_take_actions (table)->count, 0);

    //  retries 1 is still whole: one own failure requeues, the second fails
    s_assign (table, task, "beta", 2000, 2);
    s_start (table, task, "beta", 2);
    assert_int_equal (s_result (table, task, "beta", 2, DROVER_OUTCOME_EXITED, 1, NULL), 200);
    assert_non_null (s_event (testutil_take_actions (table), "task.requeued", task));
    s_assign (table, task, "beta", 3000, 3);
    s_start (table, task, "beta", 3);
    assert_int_equal (s_result (table, task, "beta", 3, DROVER_OUTCOME_EXITED, 1, NULL), 200);
    actions = testutil_take_actions (table);
    drover_action_t *done = testutil_find_action (actions, DROVER_ACTION_DONE, task, 0);
    assert_non_null (done);
    assert_int_equal (done->state, DROVER_TASK_FAILED);
    assert_int_equal (done->attempt, 3);
    assert_int_equal (drover_assign_expire (table, 100000), -1);
    drover_assign_destroy (&table);
}

//  Find the index of the first action of a type about a task, or -1
static int
s_index (testutil_actions_t *actions, int type, uint64_t task)
{
    for (int index = 0; index < actions->count; index++)
        if (actions->items [index].type == type && actions->items [index].task == task)
            return index;
    return -1;
}

//  An unacknowledged offer is the machine's failure: with lost-retries 0
//  the task is offered again and again (it used to end FAILED as poison
//  at the first ack timeout, never having run), and each time the machine
//  is on probation before the task is queued again, so schedq cannot place the
//  task back on it
static void
test_ack_timeouts_are_not_poison (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    drover_assign_configure (table, 100, 0, 1000, 1000);
    s_up (table, "alpha", S_ALPHA);
    uint64_t task = s_submit (table, 0, DROVER_SUBMIT_NOTIFY);
    testutil_take_actions (table);
    for (uint32_t attempt = 1; attempt <= 3; attempt++) {
        int64_t now = attempt * 1000;
        s_assign (table, task, "alpha", now, attempt);
        assert_int_equal (drover_assign_expire (table, now + 100), -1);
        testutil_actions_t *actions = testutil_take_actions (table);
        int failure = s_index (actions, DROVER_ACTION_FAILURE, task);
        int queue = s_index (actions, DROVER_ACTION_QUEUE, task);
        assert_true (failure >= 0);
        assert_true (queue > failure);
        assert_string_equal (actions->items [failure].worker, "alpha");
        assert_int_equal (s_count (actions, DROVER_ACTION_DONE), 0);
        assert_int_equal (drover_assign_state (table, task), DROVER_TASK_QUEUED);
    }
    //  Once it runs, it succeeds at its fourth attempt
    s_assign (table, task, "alpha", 9000, 4);
    s_start (table, task, "alpha", 4);
    assert_int_equal (s_result (table, task, "alpha", 4, DROVER_OUTCOME_EXITED, 0, NULL), 200);
    assert_int_equal (drover_assign_state (table, task), DROVER_TASK_SUCCEEDED);
    drover_assign_destroy (&table);
}

//  A stall of the broker itself moves ack deadlines on by as much: an ack
//  that waited unread through it is not missing
static void
test_stall_moves_ack_deadlines (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    drover_assign_configure (table, 1000, 5, 1000, 1000);
    s_up (table, "alpha", S_ALPHA);
    uint64_t first = s_submit (table, 0, 0);
    uint64_t second = s_submit (table, 0, 0);
    testutil_take_actions (table);
    s_assign (table, first, "alpha", 1000, 1);
    s_assign (table, second, "alpha", 1500, 1);
    assert_int_equal (drover_assign_expire (table, 1600), 2000);
    //  Stopped from 1600 to 4600
    assert_int_equal (drover_assign_shift (table, 3000), 2);
    assert_int_equal (drover_assign_expire (table, 4600), 5000);
    assert_int_equal (testutil_take_actions (table)->count, 0);
    s_start (table, first, "alpha", 1);             //  read after the stall
    assert_int_equal (drover_assign_expire (table, 4700), 5500);
    assert_int_equal (drover_assign_state (table, first), DROVER_TASK_RUNNING);
    //  second is still never acknowledged: it expires, later
    assert_int_equal (drover_assign_expire (table, 5500), -1);
    assert_non_null (testutil_find_action (testutil_take_actions (table), DROVER_ACTION_FAILURE, second, 0));
    drover_assign_destroy (&table);
}

//  Cancel: queued ends now; running is killed and ends with its result;
//  a second cancel conflicts; an unknown id is not found
static void
test_cancel_queued_and_running (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    s_up (table, "alpha", S_ALPHA);
    uint64_t queued = s_submit (table, 0, DROVER_SUBMIT_NOTIFY);
    uint64_t running = s_submit (table, 3, DROVER_SUBMIT_NOTIFY);
    uint64_t assigned = s_submit (table, 0, DROVER_SUBMIT_NOTIFY);
    testutil_take_actions (table);
    const char *reason;
    assert_int_equal (drover_assign_cancel (table, queued, &reason), 200);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_DEQUEUE, queued, 0));
    assert_non_null (s_event (actions, "task.cancelled", queued));
    drover_action_t *done = testutil_find_action (actions, DROVER_ACTION_DONE, queued, 0);
    assert_non_null (done);
    assert_int_equal (done->state, DROVER_TASK_CANCELLED);
    assert_int_equal (done->attempt, 0);
    assert_string_equal (done->worker, "");
    assert_int_equal (drover_assign_cancel (table, queued, &reason), 410);
    assert_string_equal (reason, "already CANCELLED");
    //  schedq may still assign it: the capacity is given back
    drover_assign_assign (table, queued, "alpha", 0);
    actions = testutil_take_actions (table);
    assert_int_equal (actions->count, 1);
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_FREE, queued, 0));

    s_assign (table, running, "alpha", 0, 1);
    s_start (table, running, "alpha", 1);
    assert_int_equal (drover_assign_cancel (table, running, &reason), 200);
    actions = testutil_take_actions (table);
    drover_action_t *kill = testutil_find_action (actions, DROVER_ACTION_KILL, running, 0);
    assert_non_null (kill);
    assert_int_equal (kill->attempt, 1);
    assert_memory_equal (kill->route, "\x00\x03" "alpha", 7);
    assert_int_equal (s_count (actions, DROVER_ACTION_DONE), 0);
    assert_int_equal (drover_assign_state (table, running), DROVER_TASK_RUNNING);
    //  Killed: CANCELLED, not retried although it has retries left
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_TASK_RESULT);
    strcpy (msg->worker, "alpha");
    msg->task = running;
    msg->attempt = 1;
    msg->outcome = DROVER_OUTCOME_CANCELLED;
    msg->signal = 15;
    assert_int_equal (drover_assign_result (table, msg, &reason), 200);
    drover_msg_destroy (&msg);
    actions = testutil_take_actions (table);
    done = testutil_find_action (actions, DROVER_ACTION_DONE, running, 0);
    assert_non_null (done);
    assert_int_equal (done->state, DROVER_TASK_CANCELLED);
    assert_int_equal (done->signal, 15);
    assert_int_equal (s_count (actions, DROVER_ACTION_QUEUE), 0);
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_FREE, running, 0));

    //  Cancelled while assigned, then the worker is lost: CANCELLED
    s_assign (table, assigned, "alpha", 0, 1);
    assert_int_equal (drover_assign_cancel (table, assigned, &reason), 200);
    testutil_take_actions (table);
    drover_assign_worker_lost (table, "alpha", "left");
    actions = testutil_take_actions (table);
    done = testutil_find_action (actions, DROVER_ACTION_DONE, assigned, 0);
    assert_non_null (done);
    assert_int_equal (done->state, DROVER_TASK_CANCELLED);
    assert_int_equal (s_count (actions, DROVER_ACTION_QUEUE), 0);

    assert_int_equal (drover_assign_cancel (table, 987654321, &reason), 404);
    assert_int_equal (drover_assign_count (table, DROVER_TASK_CANCELLED), 3);
    drover_assign_destroy (&table);
}

//  WAIT: finished and unknown ids are answered now, pending ones later;
//  one answer per client and task; waiters are bounded
static void
test_wait (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    s_up (table, "alpha", S_ALPHA);
    uint64_t finished = s_submit (table, 0, 0);
    uint64_t pending = s_submit (table, 0, 0);
    testutil_take_actions (table);
    s_assign (table, finished, "alpha", 0, 1);
    assert_int_equal (s_result (table, finished, "alpha", 1, DROVER_OUTCOME_EXITED, 0, "x"), 200);
    testutil_take_actions (table);

    uint64_t ids [] = { finished, 777, pending };
    const char *reason;
    assert_int_equal (drover_assign_wait (table, ids, 3, 9, S_CLIENT, &reason), 200);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_int_equal (s_count (actions, DROVER_ACTION_DONE), 2);
    drover_action_t *done = testutil_find_action (actions, DROVER_ACTION_DONE, finished, 0);
    assert_int_equal (done->state, DROVER_TASK_SUCCEEDED);
    assert_int_equal (done->seq, 9);
    done = testutil_find_action (actions, DROVER_ACTION_DONE, 777, 0);
    assert_int_equal (done->state, DROVER_TASK_UNKNOWN);
    assert_int_equal (done->seq, 9);
    assert_memory_equal (done->route, "\x00\x01" "client", 8);
    //  The same client asking again is answered once, with the latest seq,
    //  and the OK says so (the earlier WAIT gets no DONE for that id)
    assert_int_equal (drover_assign_wait (table, &pending, 1, 10, S_CLIENT, &reason), 200);
    assert_string_equal (reason, "1 of 1 ids already waited on: their DONE has this seq");
    assert_int_equal (drover_assign_wait (table, &pending, 1, 3, S_OTHER_CLIENT, &reason), 200);
    assert_int_equal (testutil_take_actions (table)->count, 0);
    assert_int_equal (drover_assign_wait (table, NULL, 0, 1, S_CLIENT, &reason), 400);
    //  A submit's notify and a WAIT from the same client each get a DONE
    uint64_t notified = s_submit (table, 0, DROVER_SUBMIT_NOTIFY);
    assert_int_equal (drover_assign_wait (table, &notified, 1, 21, S_CLIENT, &reason), 200);
    assert_int_equal (drover_assign_wait (table, &notified, 1, 22, S_CLIENT, &reason), 200);
    testutil_take_actions (table);
    assert_int_equal (drover_assign_cancel (table, notified, &reason), 200);
    actions = testutil_take_actions (table);
    assert_int_equal (s_count (actions, DROVER_ACTION_DONE), 2);
    assert_int_equal (testutil_find_action (actions, DROVER_ACTION_DONE, notified, 0)->seq, 0);
    assert_int_equal (testutil_find_action (actions, DROVER_ACTION_DONE, notified, 1)->seq, 22);

    s_assign (table, pending, "alpha", 0, 1);
    assert_int_equal (s_result (table, pending, "alpha", 1, DROVER_OUTCOME_EXITED, 2, NULL), 200);
    actions = testutil_take_actions (table);
    assert_int_equal (s_count (actions, DROVER_ACTION_DONE), 2);
    done = testutil_find_action (actions, DROVER_ACTION_DONE, pending, 0);
    assert_int_equal (done->seq, 10);
    assert_int_equal (done->state, DROVER_TASK_FAILED);
    assert_int_equal (done->exit_code, 2);
    done = testutil_find_action (actions, DROVER_ACTION_DONE, pending, 1);
    assert_int_equal (done->seq, 3);
    assert_memory_equal (done->route, "\x00\x02" "other", 7);

    //  At most DROVER_ASSIGN_TASK_WAITERS clients on one task
    uint64_t busy = s_submit (table, 0, 0);
    testutil_take_actions (table);
    for (int index = 0; index < DROVER_ASSIGN_TASK_WAITERS + 1; index++) {
        byte route [4] = { 0, 9, 9, (byte) index };
        int code = drover_assign_wait (table, &busy, 1, index, route, 4, &reason);
        assert_int_equal (code, index < DROVER_ASSIGN_TASK_WAITERS? 200: 302);
    }
    //  And a bound on all tasks together
    drover_assign_set_max_waiters (table, DROVER_ASSIGN_TASK_WAITERS + 1);
    uint64_t more = s_submit (table, 0, DROVER_SUBMIT_NOTIFY);
    drover_msg_t *msg = s_submit_msg ("true", 1, 0, DROVER_SUBMIT_NOTIFY);
    uint64_t refused;
    assert_int_equal (drover_assign_submit (table, msg, S_CLIENT, &refused, &reason), 302);
    drover_msg_destroy (&msg);
    assert_int_equal (drover_assign_wait (table, &more, 1, 1, S_OTHER_CLIENT, &reason), 302);
    //  Finishing frees the waiters
    assert_int_equal (drover_assign_cancel (table, busy, &reason), 200);
    assert_int_equal (s_count (testutil_take_actions (table), DROVER_ACTION_DONE), DROVER_ASSIGN_TASK_WAITERS);
    assert_int_equal (drover_assign_wait (table, &more, 1, 1, S_OTHER_CLIENT, &reason), 200);
    drover_assign_destroy (&table);
}

//  Past max-queued live tasks SUBMIT is refused; finished ones do not count
static void
test_queue_full (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    drover_assign_configure (table, 5000, 5, 3, 100);
    uint64_t tasks [3];
    for (int index = 0; index < 3; index++)
        tasks [index] = s_submit (table, 0, 0);
    drover_msg_t *msg = s_submit_msg ("true", 1, 0, 0);
    uint64_t task = 99;
    const char *reason;
    assert_int_equal (drover_assign_submit (table, msg, S_CLIENT, &task, &reason), 301);
    assert_string_equal (reason, "queue full");
    assert_int_equal (task, 0);
    assert_int_equal (drover_assign_count (table, DROVER_TASK_QUEUED), 3);
    assert_int_equal (drover_assign_cancel (table, tasks [0], &reason), 200);
    assert_int_equal (drover_assign_submit (table, msg, S_CLIENT, &task, &reason), 200);
    assert_int_equal (task, 4);
    drover_msg_destroy (&msg);
    drover_assign_destroy (&table);
}

//  Past max-queued-bytes of bodies and labels SUBMIT is refused 301,
//  however few tasks; a task that ends gives its bytes back
static void
test_queue_full_bytes (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    drover_msg_t *msg = s_submit_msg ("echo hi", 1, 0, 0);
    msg->labels [msg->nlabels++] = strdup ("gpu=a100");
    size_t task_bytes = msg->body_size + strlen ("gpu=a100") + 1;
    drover_assign_set_max_queued_bytes (table, 3 * task_bytes);
    uint64_t tasks [3];
    const char *reason;
    for (int index = 0; index < 3; index++)
        assert_int_equal (drover_assign_submit (table, msg, S_CLIENT, &tasks [index], &reason),
                          200);
    uint64_t task = 99;
    assert_int_equal (drover_assign_submit (table, msg, S_CLIENT, &task, &reason), 301);
    assert_string_equal (reason, "queue full: max-queued-bytes");
    assert_int_equal (task, 0);
    assert_int_equal (drover_assign_count (table, DROVER_TASK_QUEUED), 3);
    assert_int_equal (drover_assign_cancel (table, tasks [1], &reason), 200);
    assert_int_equal (drover_assign_submit (table, msg, S_CLIENT, &task, &reason), 200);
    assert_int_equal (task, 4);
    drover_msg_destroy (&msg);
    drover_assign_destroy (&table);
}

//  Bad submits are refused with 400 and take no id
static void
test_submit_validation (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    const char *reason;
    uint64_t task;
    drover_msg_t *msg = s_submit_msg ("true", 0, 0, 0);
    assert_int_equal (drover_assign_submit (table, msg, S_CLIENT, &task, &reason), 400);
    assert_string_equal (reason, "procs must be at least 1");
    drover_msg_destroy (&msg);
    msg = s_submit_msg ("true", 1, 0, 0);
    drover_msg_set_body (msg, (const byte *) "\x93\x01\x02\x03", 4);
    assert_int_equal (drover_assign_submit (table, msg, S_CLIENT, &task, &reason), 400);
    assert_non_null (strstr (reason, "body"));
    drover_msg_destroy (&msg);
    msg = s_submit_msg ("true", 1, 0, 0);
    msg->labels [msg->nlabels++] = strdup ("no equals sign");
    assert_int_equal (drover_assign_submit (table, msg, S_CLIENT, &task, &reason), 400);
    drover_msg_destroy (&msg);
    msg = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    msg->procs = 1;
    assert_int_equal (drover_assign_submit (table, msg, S_CLIENT, &task, &reason), 400);
    drover_msg_destroy (&msg);
    assert_int_equal (drover_assign_size (table), 0);
    assert_int_equal (testutil_take_actions (table)->count, 0);
    assert_int_equal (s_submit (table, 0, 0), 1);
    drover_assign_destroy (&table);
}

//  At most keep-finished finished tasks are kept, oldest evicted first;
//  live tasks are never evicted; output is bounded in bytes too
static void
test_keep_finished_eviction (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    drover_assign_configure (table, 5000, 5, 1000, 2);
    uint64_t live = s_submit (table, 0, 0);
    uint64_t tasks [3];
    const char *reason;
    for (int index = 0; index < 3; index++) {
        tasks [index] = s_submit (table, 0, 0);
        assert_int_equal (drover_assign_cancel (table, tasks [index], &reason), 200);
        testutil_take_actions (table);         //  nothing is evicted while actions are pending
    }
    assert_int_equal (drover_assign_wait (table, tasks, 3, 1, S_CLIENT, &reason), 200);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_int_equal (testutil_find_action (actions, DROVER_ACTION_DONE, tasks [0], 0)->state, DROVER_TASK_UNKNOWN);
    assert_int_equal (testutil_find_action (actions, DROVER_ACTION_DONE, tasks [1], 0)->state, DROVER_TASK_CANCELLED);
    assert_int_equal (testutil_find_action (actions, DROVER_ACTION_DONE, tasks [2], 0)->state, DROVER_TASK_CANCELLED);
    assert_int_equal (drover_assign_count (table, DROVER_TASK_CANCELLED), 2);
    assert_int_equal (drover_assign_state (table, live), DROVER_TASK_QUEUED);
    assert_int_equal (drover_assign_size (table), 3);

    //  The byte budget: two results of 600 bytes do not fit in 1000
    drover_assign_configure (table, 5000, 5, 1000, 100);
    drover_assign_set_max_kept_bytes (table, 1000);
    s_up (table, "alpha", S_ALPHA);
    char big [600];
    memset (big, 'x', sizeof big - 1);
    big [sizeof big - 1] = 0;
    uint64_t first = s_submit (table, 0, 0);
    uint64_t second = s_submit (table, 0, 0);
    s_assign (table, first, "alpha", 0, 1);
    s_assign (table, second, "alpha", 0, 1);
    assert_int_equal (s_result (table, first, "alpha", 1, DROVER_OUTCOME_EXITED, 0, big), 200);
    assert_int_equal (s_result (table, second, "alpha", 1, DROVER_OUTCOME_EXITED, 0, big), 200);
    testutil_take_actions (table);
    assert_int_equal (drover_assign_state (table, first), DROVER_TASK_SUCCEEDED);
    drover_assign_expire (table, 0);         //  any call evicts
    assert_int_equal (drover_assign_state (table, first), DROVER_TASK_UNKNOWN);
    assert_int_equal (drover_assign_state (table, second), DROVER_TASK_SUCCEEDED);
    assert_int_equal (drover_assign_state (table, live), DROVER_TASK_QUEUED);
    drover_assign_destroy (&table);
}

//  ASSIGN of what can no longer run gives the capacity back
static void
test_assign_gives_back (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    uint64_t task = s_submit (table, 0, 0);
    testutil_take_actions (table);
    //  Unknown worker: capacity back, and the task placed again
    drover_assign_assign (table, task, "stranger", 0);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_int_equal (actions->count, 2);
    assert_int_equal (actions->items [0].type, DROVER_ACTION_FREE);
    assert_int_equal (actions->items [1].type, DROVER_ACTION_QUEUE);
    assert_int_equal (drover_assign_state (table, task), DROVER_TASK_QUEUED);
    //  Unknown task: capacity back only
    s_up (table, "alpha", S_ALPHA);
    drover_assign_assign (table, 31337, "alpha", 0);
    actions = testutil_take_actions (table);
    assert_int_equal (actions->count, 1);
    assert_int_equal (actions->items [0].type, DROVER_ACTION_FREE);
    assert_int_equal (actions->items [0].task, 31337);
    //  Already assigned (a duplicate placement): capacity back only
    s_assign (table, task, "alpha", 0, 1);
    drover_assign_assign (table, task, "alpha", 0);
    actions = testutil_take_actions (table);
    assert_int_equal (actions->count, 1);
    assert_int_equal (actions->items [0].type, DROVER_ACTION_FREE);
    assert_int_equal (drover_assign_attempt (table, task), 1);
    drover_assign_destroy (&table);
}

//  UP of a worker we think runs tasks: adopt current attempts, kill
//  others, and requeue what it no longer runs
static void
test_up_reconciles_running_list (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    s_up (table, "alpha", S_ALPHA);
    uint64_t running = s_submit (table, 0, 0);
    uint64_t assigned = s_submit (table, 0, 0);
    uint64_t vanished = s_submit (table, 0, DROVER_SUBMIT_NOTIFY);
    testutil_take_actions (table);
    s_assign (table, running, "alpha", 0, 1);
    s_start (table, running, "alpha", 1);
    s_assign (table, assigned, "alpha", 0, 1);
    s_assign (table, vanished, "alpha", 0, 1);
    s_start (table, vanished, "alpha", 1);

    drover_taskref_t list [] = {
        { running, 1 }, { assigned, 1 }, { 5555, 1 }, { vanished, 7 }
    };
    drover_assign_worker_up (table, "alpha", S_BETA, list, 4);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_int_equal (drover_assign_state (table, running), DROVER_TASK_RUNNING);
    assert_int_equal (drover_assign_state (table, assigned), DROVER_TASK_RUNNING);
    assert_non_null (s_event (actions, "task.running", assigned));
    assert_int_equal (s_count (actions, DROVER_ACTION_KILL), 2);
    drover_action_t *kill = testutil_find_action (actions, DROVER_ACTION_KILL, 5555, 0);
    assert_non_null (kill);
    assert_memory_equal (kill->route, "\x00\x04" "beta", 6);     //  the new route
    kill = testutil_find_action (actions, DROVER_ACTION_KILL, vanished, 0);
    assert_int_equal (kill->attempt, 7);
    assert_int_equal (drover_assign_state (table, vanished), DROVER_TASK_QUEUED);
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_FREE, vanished, 0));
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_QUEUE, vanished, 0));
    assert_int_equal (s_count (actions, DROVER_ACTION_DONE), 0);
    //  The killed attempts still hold the worker: schedq is not told SETTLED
    assert_int_equal (s_count (actions, DROVER_ACTION_SETTLED), 0);
    //  The adopted attempts still finish normally on the new route
    assert_int_equal (s_result (table, assigned, "alpha", 1, DROVER_OUTCOME_EXITED, 0, NULL), 200);
    actions = testutil_take_actions (table);
    assert_non_null (s_event (actions, "task.succeeded", assigned));
    assert_int_equal (s_count (actions, DROVER_ACTION_SETTLED), 0);
    //  Once the killed attempts have sent their RESULT (refused), SETTLED
    assert_int_equal (s_result (table, 5555, "alpha", 1, DROVER_OUTCOME_CANCELLED, 143, NULL), 404);
    assert_int_equal (s_count (testutil_take_actions (table), DROVER_ACTION_SETTLED), 0);
    assert_int_equal (s_result (table, vanished, "alpha", 7, DROVER_OUTCOME_CANCELLED, 143, NULL),
                      409);
    actions = testutil_take_actions (table);
    assert_int_equal (actions->count, 1);
    drover_action_t *settled = testutil_find_action (actions, DROVER_ACTION_SETTLED, 0, 0);
    assert_non_null (settled);
    assert_string_equal (settled->worker, "alpha");
    //  A second UP with the same list adopts again: only its SETTLED
    drover_taskref_t again [] = { { running, 1 } };
    drover_assign_worker_up (table, "alpha", S_BETA, again, 1);
    actions = testutil_take_actions (table);
    assert_int_equal (actions->count, 1);
    assert_int_equal (s_count (actions, DROVER_ACTION_SETTLED), 1);
    //  An UP whose killed attempt never reports is settled by the next UP,
    //  or by LOST: schedq hears one SETTLED for every UP that listed any
    drover_taskref_t stale [] = { { 6666, 1 } };
    drover_assign_worker_up (table, "alpha", S_BETA, stale, 1);
    assert_int_equal (s_count (testutil_take_actions (table), DROVER_ACTION_SETTLED), 0);
    drover_assign_worker_up (table, "alpha", S_BETA, stale, 1);
    assert_int_equal (s_count (testutil_take_actions (table), DROVER_ACTION_SETTLED), 1);
    drover_assign_worker_lost (table, "alpha", "silent");
    assert_int_equal (s_count (testutil_take_actions (table), DROVER_ACTION_SETTLED), 1);
    drover_assign_destroy (&table);
}

//  UP of a worker that does not list an attempt still ASSIGNED: the offer
//  never reached it (it went to a connection the worker had left), nothing
//  ran, so the task is queued again without a loss, even with lost-retries
//  0; a RUNNING attempt it does not list is a loss
static void
test_up_requeues_unreceived_offer_without_loss (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    drover_assign_configure (table, 5000, 0, 1000, 1000);
    s_up (table, "alpha", S_ALPHA);
    uint64_t offered = s_submit (table, 0, 0);
    uint64_t running = s_submit (table, 0, 0);
    testutil_take_actions (table);
    s_assign (table, offered, "alpha", 0, 1);
    s_assign (table, running, "alpha", 0, 1);
    s_start (table, running, "alpha", 1);
    drover_assign_worker_up (table, "alpha", S_BETA, NULL, 0);
    testutil_actions_t *actions = testutil_take_actions (table);
    assert_int_equal (drover_assign_state (table, offered), DROVER_TASK_QUEUED);
    assert_non_null (s_event (actions, "task.requeued", offered));
    assert_non_null (testutil_find_action (actions, DROVER_ACTION_QUEUE, offered, 0));
    assert_int_equal (drover_assign_state (table, running), DROVER_TASK_FAILED);
    assert_int_equal (s_count (actions, DROVER_ACTION_SETTLED), 0);     //  it listed none
    drover_assign_destroy (&table);
}

//  TASK LIST: counts of every state, newest rows first (queued alone: in
//  run order), a filter, a summary
static void
test_list (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    s_up (table, "alpha", S_ALPHA);
    uint64_t tasks [5];
    for (int index = 0; index < 5; index++)
        tasks [index] = s_submit (table, 0, 0);
    s_assign (table, tasks [1], "alpha", 0, 1);
    s_start (table, tasks [1], "alpha", 1);
    s_assign (table, tasks [3], "alpha", 0, 1);
    s_start (table, tasks [3], "alpha", 1);
    const char *reason;
    assert_int_equal (drover_assign_cancel (table, tasks [4], &reason), 200);
    testutil_take_actions (table);

    drover_msg_t *reply = drover_msg_new (DROVER_MSG_TASK_TABLE);
    drover_assign_list (table, 255, 3, NULL, NULL, 0, reply);
    assert_int_equal (reply->counts [DROVER_TASK_QUEUED], 2);
    assert_int_equal (reply->counts [DROVER_TASK_RUNNING], 2);
    assert_int_equal (reply->counts [DROVER_TASK_CANCELLED], 1);
    assert_int_equal (reply->nrows, 3);
    assert_int_equal (reply->task_rows [0].task, tasks [4]);
    assert_int_equal (reply->task_rows [0].state, DROVER_TASK_CANCELLED);
    assert_int_equal (reply->task_rows [1].task, tasks [3]);
    assert_string_equal (reply->task_rows [1].worker, "alpha");
    assert_int_equal (reply->task_rows [1].attempt, 1);
    assert_int_equal (reply->task_rows [1].procs, 1);
    assert_int_equal (reply->task_rows [1].priority, 3);
    assert_string_equal (reply->task_rows [1].summary, "sh -c echo hi");
    assert_int_equal (reply->task_rows [2].task, tasks [2]);
    drover_msg_destroy (&reply);

    reply = drover_msg_new (DROVER_MSG_TASK_TABLE);
    drover_assign_list (table, DROVER_TASK_RUNNING, 100, NULL, NULL, 0, reply);
    assert_int_equal (reply->nrows, 2);
    assert_int_equal (reply->task_rows [0].task, tasks [3]);
    assert_int_equal (reply->task_rows [1].task, tasks [1]);
    drover_msg_destroy (&reply);

    reply = drover_msg_new (DROVER_MSG_TASK_TABLE);
    drover_assign_list (table, 255, 0, NULL, NULL, 0, reply);
    assert_int_equal (reply->nrows, 0);
    assert_int_equal (reply->counts [DROVER_TASK_QUEUED], 2);
    drover_msg_destroy (&reply);

    //  A long command is cut to the summary limit
    drover_msg_t *msg = s_submit_msg ("echo 0123456789012345678901234567890123456789"
                                      "0123456789012345678901234567890123456789", 1, 0, 0);
    uint64_t task;
    assert_int_equal (drover_assign_submit (table, msg, S_CLIENT, &task, &reason), 200);
    drover_msg_destroy (&msg);
    reply = drover_msg_new (DROVER_MSG_TASK_TABLE);
    drover_assign_list (table, DROVER_TASK_QUEUED, 3, NULL, NULL, 0, reply);
    assert_int_equal (reply->nrows, 3);
    assert_int_equal (reply->task_rows [2].task, task);
    assert_int_equal (strlen (reply->task_rows [2].summary), DROVER_ASSIGN_SUMMARY_MAX);
    drover_msg_destroy (&reply);

    //  Queued tasks alone come in the order they will run: priority (lower
    //  first), then procs (more first), then id; at most limit of them
    uint64_t urgent, wide;
    msg = testutil_submit_msg ("urgent", 0, 1, 0);
    assert_int_equal (drover_assign_submit (table, msg, S_CLIENT, &urgent, &reason), 200);
    drover_msg_destroy (&msg);
    msg = testutil_submit_msg ("wide", 3, 4, 0);
    assert_int_equal (drover_assign_submit (table, msg, S_CLIENT, &wide, &reason), 200);
    drover_msg_destroy (&msg);
    reply = drover_msg_new (DROVER_MSG_TASK_TABLE);
    drover_assign_list (table, DROVER_TASK_QUEUED, 100, NULL, NULL, 0, reply);
    uint64_t order [] = { urgent, wide, tasks [0], tasks [2], task };
    assert_int_equal (reply->nrows, 5);
    for (int index = 0; index < 5; index++)
        assert_int_equal (reply->task_rows [index].task, order [index]);
    drover_msg_destroy (&reply);
    reply = drover_msg_new (DROVER_MSG_TASK_TABLE);
    drover_assign_list (table, DROVER_TASK_QUEUED, 2, NULL, NULL, 0, reply);
    assert_int_equal (reply->nrows, 2);
    assert_int_equal (reply->task_rows [0].task, urgent);
    assert_int_equal (reply->task_rows [1].task, wide);
    drover_msg_destroy (&reply);
    drover_assign_destroy (&table);
}

//  Many tasks, finished in a scattered order and evicted: the id hash
//  keeps finding every task that is left (growth and deletion)
static void
test_many_tasks (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    drover_assign_configure (table, 5000, 5, 100000, 1000);
    s_up (table, "alpha", S_ALPHA);
    enum { COUNT = 20000 };
    for (int index = 0; index < COUNT; index++) {
        assert_int_equal (s_submit (table, 0, 0), index + 1);
        testutil_take_actions (table);
    }
    assert_int_equal (drover_assign_size (table), COUNT);
    //  Cancel every third, in a scattered order
    const char *reason;
    int cancelled = 0;
    for (int step = 0; step < COUNT; step++) {
        uint64_t id = 1 + ((uint64_t) step * 7919) % COUNT;
        if (id % 3 == 0) {
            assert_int_equal (drover_assign_cancel (table, id, &reason), 200);
            cancelled++;
            testutil_take_actions (table);
        }
    }
    drover_assign_expire (table, 0);       //  a call that evicts
    assert_int_equal (drover_assign_count (table, DROVER_TASK_CANCELLED), 1000);
    assert_int_equal (drover_assign_size (table), COUNT - cancelled + 1000);
    int found = 0;
    for (uint64_t id = 1; id <= COUNT; id++) {
        int task_state = drover_assign_state (table, id);
        if (id % 3)
            assert_int_equal (task_state, DROVER_TASK_QUEUED);
        else
            found += task_state == DROVER_TASK_CANCELLED;
    }
    assert_int_equal (found, 1000);
    drover_assign_destroy (&table);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_life_cycle),
        cmocka_unit_test (test_retries_then_failed),
        cmocka_unit_test (test_done_says_how_the_task_ended),
        cmocka_unit_test (test_results_past_the_output_budget_expire),
        cmocka_unit_test (test_lost_requeues_then_poison),
        cmocka_unit_test (test_stale_results_after_lost_worker),
        cmocka_unit_test (test_ack_timeout_requeues_without_retries),
        cmocka_unit_test (test_ack_timeouts_are_not_poison),
        cmocka_unit_test (test_stall_moves_ack_deadlines),
        cmocka_unit_test (test_cancel_queued_and_running),
        cmocka_unit_test (test_wait),
        cmocka_unit_test (test_queue_full),
        cmocka_unit_test (test_submit_validation),
        cmocka_unit_test (test_keep_finished_eviction),
        cmocka_unit_test (test_queue_full_bytes),
        cmocka_unit_test (test_assign_gives_back),
        cmocka_unit_test (test_up_reconciles_running_list),
        cmocka_unit_test (test_up_requeues_unreceived_offer_without_loss),
        cmocka_unit_test (test_list),
        cmocka_unit_test (test_many_tasks),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
