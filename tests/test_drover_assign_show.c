/*  =========================================================================
    test_drover_assign_show - a task's attempts and everything else TASK SHOW
    says, through the task table with a fake clock

    Each attempt that ends without ending the task (a retry, a lost
    worker, an offer not acknowledged, a machine failure) is kept with its
    worker, its times and how it ended, the latest DROVER_ATTEMPTS_MAX;
    the current or last attempt comes from the task itself.
    =========================================================================
*/

#include "testutil_wire.h"
#include "testutil_class.h"
#include "drover_assign.h"

//  Offer the task to worker at *now, and its STARTED 100 msec later
static void
s_run (drover_assign_t *table, uint64_t task, const char *worker, uint32_t attempt,
       int64_t *now)
{
    drover_assign_assign (table, task, worker, 0);
    *now += 100;
    const char *reason;
    assert_int_equal (drover_assign_started (table, worker, task, attempt, &reason), 200);
    testutil_take_actions (table);
}

//  Report a result (testutil_table_result) and drop the actions it causes
static void
s_result (drover_assign_t *table, uint64_t task, const char *worker, uint32_t attempt,
          int outcome, int exit_code, int signal, const char *reason)
{
    testutil_table_result (table, task, worker, attempt, outcome, exit_code, signal, reason);
    testutil_take_actions (table);
}

//  Show a task, which must be known
static drover_taskinfo_t *
s_show (drover_assign_t *table, uint64_t task)
{
    drover_taskinfo_t *info = NULL;
    const char *reason;
    assert_int_equal (drover_assign_show (table, task, &info, &reason), 200);
    assert_non_null (info);
    return info;
}

//  A task that ran once: one attempt, from the task itself, no history;
//  its fields, its command and its environment's names (not values)
static void
test_show_one_attempt (void **state)
{
    int64_t now = 1000000;
    drover_assign_t *table = testutil_fake_table (&now);
    drover_msg_t *msg = testutil_submit_msg ("echo hi", -2, 3, 0);
    drover_exec_t *exec = drover_exec_new ();
    const char *argv [] = { "sh", "-c", "echo hi" };
    assert_int_equal (drover_exec_set_argv (exec, 3, argv), 0);
    assert_int_equal (drover_exec_add_env (exec, "TOKEN=secret-value"), 0);
    assert_int_equal (drover_exec_add_env (exec, "HOME=/home/x"), 0);
    drover_exec_set_cwd (exec, "/srv/work");
    drover_exec_set_input (exec, (const byte *) "12345", 5);
    size_t body_size;
    byte *body = drover_exec_encode (exec, &body_size);
    drover_msg_set_body (msg, body, body_size);
    free (body);
    drover_exec_destroy (&exec);
    msg->mem = 1 << 20;
    msg->timeout = 60000;
    msg->retries = 2;
    assert_int_equal (drover_msg_add_label (msg, "zone=a"), 0);
    assert_int_equal (drover_msg_add_label (msg, "gpu=no"), 0);
    uint64_t task;
    const char *reason;
    assert_int_equal (drover_assign_submit (table, msg, TESTUTIL_CLIENT_ROUTE, &task, &reason),
                      200);
    drover_msg_destroy (&msg);
    testutil_take_actions (table);

    drover_taskinfo_t *info = s_show (table, task);
    assert_int_equal (info->state, DROVER_TASK_QUEUED);
    assert_int_equal (info->nattempts, 0);
    assert_int_equal (info->attempt, 0);
    drover_taskinfo_destroy (&info);

    now += 500;
    s_run (table, task, "alpha", 1, &now);
    info = s_show (table, task);
    assert_int_equal (info->state, DROVER_TASK_RUNNING);
    assert_int_equal (info->nattempts, 1);
    assert_int_equal (info->attempts [0].offered_at, 1000500);
    assert_int_equal (info->attempts [0].started_at, 1000600);
    assert_int_equal (info->attempts [0].ended_at, 0);
    drover_taskinfo_destroy (&info);

    now += 2000;
    s_result (table, task, "alpha", 1, DROVER_OUTCOME_EXITED, 0, 0, NULL);
    info = s_show (table, task);
    assert_int_equal (info->task, task);
    assert_int_equal (info->state, DROVER_TASK_SUCCEEDED);
    assert_int_equal (info->end, DROVER_END_SUCCEEDED);
    assert_int_equal (info->exit_code, 0);
    assert_int_equal (info->priority, -2);
    assert_int_equal (info->procs, 3);
    assert_int_equal (info->mem, 1 << 20);
    assert_int_equal (info->timeout, 60000);
    assert_int_equal (info->retries, 2);
    assert_int_equal (info->retries_left, 2);
    assert_int_equal (info->nlabels, 2);
    assert_string_equal (info->labels [0], "zone=a");
    assert_string_equal (info->labels [1], "gpu=no");
    assert_int_equal (info->argc, 3);
    assert_string_equal (info->argv [2], "echo hi");
    assert_string_equal (info->cwd, "/srv/work");
    assert_int_equal (info->nenv, 2);
    assert_string_equal (info->env [0], "TOKEN");       //  names only: no value leaks
    assert_string_equal (info->env [1], "HOME");
    assert_int_equal (info->input_size, 5);
    assert_int_equal (info->queued_at, 1000000);
    assert_int_equal (info->started_at, 1000600);
    assert_int_equal (info->ended_at, 1002600);
    assert_string_equal (info->worker, "alpha");
    assert_int_equal (info->attempt, 1);
    assert_int_equal (info->nattempts, 1);
    assert_int_equal (info->dropped, 0);
    assert_int_equal (info->attempts [0].attempt, 1);
    assert_string_equal (info->attempts [0].worker, "alpha");
    assert_int_equal (info->attempts [0].ended_at, 1002600);
    assert_int_equal (info->attempts [0].outcome, DROVER_OUTCOME_EXITED);
    assert_false (info->attempts [0].requeued);
    //  It round-trips through its codec
    size_t size;
    byte *data = drover_taskinfo_encode (info, &size);
    assert_non_null (data);
    const char *error = NULL;
    drover_taskinfo_t *copy = drover_taskinfo_decode (data, size, &error);
    assert_non_null (copy);
    assert_int_equal (copy->ended_at, 1002600);
    assert_string_equal (copy->env [0], "TOKEN");
    assert_int_equal (copy->nattempts, 1);
    assert_string_equal (copy->attempts [0].worker, "alpha");
    free (data);
    drover_taskinfo_destroy (&copy);
    drover_taskinfo_destroy (&info);
    drover_assign_destroy (&table);
}

//  A retry, a lost worker, an offer not acknowledged, a machine failure:
//  each attempt is listed with its worker, times and how it ended
static void
test_each_attempt_listed (void **state)
{
    int64_t now = 1000;
    drover_assign_t *table = testutil_fake_table (&now);
    uint64_t task = testutil_table_submit (table, 1);
    //  #1 on alpha exits 3: retried
    now = 2000;
    s_run (table, task, "alpha", 1, &now);
    now = 3000;
    s_result (table, task, "alpha", 1, DROVER_OUTCOME_EXITED, 3, 0, NULL);
    //  #2 on beta: beta is lost
    now = 4000;
    s_run (table, task, "beta", 2, &now);
    now = 5000;
    drover_assign_worker_lost (table, "beta", "heartbeats stopped");
    testutil_take_actions (table);
    //  #3 on alpha: never acknowledged
    now = 6000;
    drover_assign_assign (table, task, "alpha", 6000);
    testutil_take_actions (table);
    now = 7000;
    drover_assign_expire (table, 6000 + 1000000);
    testutil_take_actions (table);
    //  #4 on alpha: the machine could not start it
    drover_assign_worker_up (table, "beta", TESTUTIL_BETA_ROUTE, NULL, 0);
    testutil_take_actions (table);
    now = 8000;
    s_run (table, task, "beta", 4, &now);
    now = 8500;
    s_result (table, task, "beta", 4, DROVER_OUTCOME_MACHINE_FAILED, -1, 0,
                           "no such user");
    //  #5 on alpha: killed by a signal, no retries left: FAILED
    now = 9000;
    s_run (table, task, "alpha", 5, &now);
    now = 9900;
    s_result (table, task, "alpha", 5, DROVER_OUTCOME_SIGNALLED, -1, 9, NULL);

    drover_taskinfo_t *info = s_show (table, task);
    assert_int_equal (info->state, DROVER_TASK_FAILED);
    assert_int_equal (info->attempt, 5);
    assert_int_equal (info->nattempts, 5);
    assert_int_equal (info->dropped, 0);
    drover_attempt_t *attempts = info->attempts;
    for (uint32_t index = 0; index < 5; index++)
        assert_int_equal (attempts [index].attempt, index + 1);
    assert_string_equal (attempts [0].worker, "alpha");
    assert_int_equal (attempts [0].offered_at, 2000);
    assert_int_equal (attempts [0].started_at, 2100);
    assert_int_equal (attempts [0].ended_at, 3000);
    assert_int_equal (attempts [0].outcome, DROVER_OUTCOME_EXITED);
    assert_int_equal (attempts [0].exit_code, 3);
    assert_true (attempts [0].requeued);
    assert_string_equal (attempts [0].reason, "exit 3");

    assert_string_equal (attempts [1].worker, "beta");
    assert_int_equal (attempts [1].started_at, 4100);
    assert_int_equal (attempts [1].ended_at, 5000);
    assert_int_equal (attempts [1].outcome, DROVER_ATTEMPT_NO_RESULT);
    assert_true (attempts [1].requeued);
    assert_string_equal (attempts [1].reason, "worker lost: heartbeats stopped");

    assert_string_equal (attempts [2].worker, "alpha");
    assert_int_equal (attempts [2].offered_at, 6000);
    assert_int_equal (attempts [2].started_at, 0);
    assert_int_equal (attempts [2].ended_at, 7000);
    assert_true (attempts [2].requeued);
    assert_string_equal (attempts [2].reason, "ack timeout");

    assert_string_equal (attempts [3].worker, "beta");
    assert_int_equal (attempts [3].outcome, DROVER_OUTCOME_MACHINE_FAILED);
    assert_true (attempts [3].requeued);
    assert_string_equal (attempts [3].reason, "machine failed: no such user");

    assert_string_equal (attempts [4].worker, "alpha");
    assert_int_equal (attempts [4].started_at, 9100);
    assert_int_equal (attempts [4].ended_at, 9900);
    assert_int_equal (attempts [4].outcome, DROVER_OUTCOME_SIGNALLED);
    assert_int_equal (attempts [4].signal, 9);
    assert_false (attempts [4].requeued);
    //  The task's own times are its last attempt's
    assert_int_equal (info->queued_at, 1000);
    assert_int_equal (info->started_at, 9100);
    assert_int_equal (info->ended_at, 9900);
    assert_int_equal (info->lost, 1);
    assert_int_equal (info->retries_left, 0);
    drover_taskinfo_destroy (&info);
    drover_assign_destroy (&table);
}

//  Past attempts are bounded: the latest DROVER_ATTEMPTS_MAX kept, and
//  how many were dropped said; a queued task lists only past ones
static void
test_history_bounded (void **state)
{
    int64_t now = 100;
    drover_assign_t *table = testutil_fake_table (&now);
    uint64_t task = testutil_table_submit (table, 20);
    for (uint32_t attempt = 1; attempt <= 12; attempt++) {
        now += 1000;
        s_run (table, task, "alpha", attempt, &now);
        s_result (table, task, "alpha", attempt, DROVER_OUTCOME_EXITED, (int) attempt,
                               0, NULL);
    }
    drover_taskinfo_t *info = s_show (table, task);
    assert_int_equal (info->state, DROVER_TASK_QUEUED);
    assert_int_equal (info->attempt, 12);
    assert_int_equal (info->nattempts, DROVER_ATTEMPTS_MAX);
    assert_int_equal (info->dropped, 12 - DROVER_ATTEMPTS_MAX);
    assert_int_equal (info->attempts [0].attempt, 12 - DROVER_ATTEMPTS_MAX + 1);
    assert_int_equal (info->attempts [0].exit_code, 12 - DROVER_ATTEMPTS_MAX + 1);
    assert_int_equal (info->attempts [DROVER_ATTEMPTS_MAX - 1].attempt, 12);
    drover_taskinfo_destroy (&info);
    //  The 13th, running: the 8 past ones and the current
    now += 1000;
    s_run (table, task, "beta", 13, &now);
    info = s_show (table, task);
    assert_int_equal (info->nattempts, DROVER_ATTEMPTS_MAX + 1);
    assert_int_equal (info->attempts [DROVER_ATTEMPTS_MAX].attempt, 13);
    assert_string_equal (info->attempts [DROVER_ATTEMPTS_MAX].worker, "beta");
    assert_int_equal (info->attempts [DROVER_ATTEMPTS_MAX].ended_at, 0);
    drover_taskinfo_destroy (&info);
    drover_assign_destroy (&table);
}

//  An id never given: 404; one whose result expired: UNKNOWN, EXPIRED; a
//  finished task's history goes with it
static void
test_unknown_and_expired (void **state)
{
    int64_t now = 100;
    drover_assign_t *table = testutil_fake_table (&now);
    drover_assign_configure (table, 30000, 2, 1000, 0);      //  keep nothing finished
    uint64_t task = testutil_table_submit (table, 1);
    s_run (table, task, "alpha", 1, &now);
    s_result (table, task, "alpha", 1, DROVER_OUTCOME_EXITED, 1, 0, NULL);
    s_run (table, task, "alpha", 2, &now);
    s_result (table, task, "alpha", 2, DROVER_OUTCOME_EXITED, 0, 0, NULL);
    drover_taskinfo_t *info = NULL;
    const char *reason;
    assert_int_equal (drover_assign_show (table, task, &info, &reason), 200);
    assert_int_equal (info->state, DROVER_TASK_UNKNOWN);
    assert_int_equal (info->end, DROVER_END_EXPIRED);
    drover_taskinfo_destroy (&info);
    assert_int_equal (drover_assign_show (table, task + 1, &info, &reason), 404);
    assert_null (info);
    drover_assign_destroy (&table);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_show_one_attempt),
        cmocka_unit_test (test_each_attempt_listed),
        cmocka_unit_test (test_history_bounded),
        cmocka_unit_test (test_unknown_and_expired),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
