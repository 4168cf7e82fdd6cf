/*  =========================================================================
    test_drover_taskrecord - one task as the task table holds it: a submit
    checked and packed with its body and labels, its bytes, its TASK TABLE
    row (through the whole table: test_drover_assign)
    =========================================================================
*/

#include "testutil_wire.h"
#include "drover_taskrecord.h"
#include "drover_taskworker.h"
#include "drover_assign.h"

//  A TASK SUBMIT running `sh -c script`, with every field set
static drover_msg_t *
s_submit_msg (const char *script)
{
    drover_msg_t *msg = testutil_submit_msg (script, -1, 2, 0);
    msg->mem = 1 << 20;
    msg->timeout = 500;
    msg->retries = 3;
    return msg;
}

//  A submit is packed whole: fields, body, labels joined by "\n"
static void
test_submit_is_packed_with_body_and_labels (void **state)
{
    drover_msg_t *msg = s_submit_msg ("echo hi");
    assert_int_equal (drover_msg_add_label (msg, "os=linux"), 0);
    assert_int_equal (drover_msg_add_label (msg, "gpu=yes"), 0);
    char buffer [96];
    const char *reason = NULL;
    assert_int_equal (drover_taskrecord_check (msg, buffer, sizeof buffer, &reason),
                      DROVER_CODE_OK);
    assert_int_equal (drover_taskrecord_labels_size (msg), strlen ("os=linux\ngpu=yes") + 1);

    drover_taskrecord_t *task = drover_taskrecord_new (7, msg);
    assert_int_equal (task->id, 7);
    assert_int_equal (task->state, DROVER_TASK_QUEUED);
    assert_int_equal (task->procs, 2);
    assert_int_equal (drover_taskrecord_mem (task), 1 << 20);
    assert_int_equal (task->priority, -1);
    assert_int_equal (drover_taskrecord_timeout (task), 500);
    assert_int_equal (drover_taskrecord_retries (task), 3);
    assert_int_equal (drover_taskrecord_retries_left (task), 3);
    assert_int_equal (drover_taskrecord_attempt (task), 0);
    assert_null (drover_taskrecord_on (task));
    assert_null (task->run);    //  a queued task carries no attempt
    //  Made on first need, with the retries asked left
    drover_taskrun_t *run = drover_taskrecord_run (task);
    assert_non_null (run);
    assert_ptr_equal (drover_taskrecord_run (task), run);
    assert_int_equal (run->retries_left, 3);
    assert_int_equal (run->attempt, 0);
    assert_int_equal (task->body_size, msg->body_size);
    assert_memory_equal (drover_taskrecord_body (task), msg->body, msg->body_size);
    assert_string_equal (drover_taskrecord_labels (task), "os=linux\ngpu=yes");
    //  mem, timeout and retries, set, are kept in data, but not counted
    assert_true (task->has_extra);
    assert_int_equal (drover_taskrecord_bytes (task),
                      msg->body_size + strlen ("os=linux\ngpu=yes") + 1);
    assert_false (drover_taskrecord_final (task));
    assert_string_equal (drover_taskrecord_worker (task), "");
    drover_taskrecord_destroy (&task);
    drover_taskrecord_destroy (&task);      //  harmless twice
    assert_null (task);

    //  No labels: "" and the body alone
    msg->nlabels = 0;
    zstr_free (&msg->labels [0]);
    zstr_free (&msg->labels [1]);
    task = drover_taskrecord_new (8, msg);
    assert_string_equal (drover_taskrecord_labels (task), "");
    assert_int_equal (drover_taskrecord_bytes (task), msg->body_size);
    drover_taskrecord_clear_retries (task);
    assert_int_equal (drover_taskrecord_retries (task), 0);
    assert_int_equal (drover_taskrecord_timeout (task), 500);
    drover_taskrecord_destroy (&task);

    //  No mem, timeout nor retries: the body alone, and they read 0
    msg->mem = 0;
    msg->timeout = 0;
    msg->retries = 0;
    task = drover_taskrecord_new (9, msg);
    assert_false (task->has_extra);
    assert_int_equal (drover_taskrecord_mem (task), 0);
    assert_int_equal (drover_taskrecord_timeout (task), 0);
    assert_int_equal (drover_taskrecord_retries (task), 0);
    assert_memory_equal (drover_taskrecord_body (task), msg->body, msg->body_size);
    assert_int_equal (drover_taskrecord_bytes (task), msg->body_size);
    drover_taskrecord_destroy (&task);
    drover_msg_destroy (&msg);
}

//  A submit that breaks a rule is refused with the code and reason it breaks
static void
test_bad_submit_is_refused (void **state)
{
    char buffer [96];
    const char *reason = NULL;
    drover_msg_t *msg = s_submit_msg ("true");
    msg->procs = 0;
    assert_int_equal (drover_taskrecord_check (msg, buffer, sizeof buffer, &reason),
                      DROVER_CODE_BAD_REQUEST);
    assert_string_equal (reason, "procs must be at least 1");
    msg->procs = 1;
    msg->labels [msg->nlabels++] = strdup ("no equals sign");
    assert_int_equal (drover_taskrecord_check (msg, buffer, sizeof buffer, &reason),
                      DROVER_CODE_BAD_REQUEST);
    assert_string_equal (reason, "a label is not key=value");
    drover_msg_destroy (&msg);

    msg = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    msg->procs = 1;
    assert_int_equal (drover_taskrecord_check (msg, buffer, sizeof buffer, &reason),
                      DROVER_CODE_BAD_REQUEST);
    assert_string_equal (reason, "no body: nothing to run");
    drover_msg_set_body (msg, (const byte *) "\xc0", 1);
    assert_int_equal (drover_taskrecord_check (msg, buffer, sizeof buffer, &reason),
                      DROVER_CODE_BAD_REQUEST);
    assert_ptr_equal (reason, buffer);          //  composed: "bad body: ..."
    assert_memory_equal (reason, "bad body: ", 10);
    drover_msg_destroy (&msg);
}

//  A row says the task as TASK TABLE shows it: the worker of the current
//  attempt, and argv cut to a printable summary
static void
test_row_says_worker_and_summary (void **state)
{
    drover_msg_t *msg = s_submit_msg ("printf 'a\tb'");
    drover_taskrecord_t *task = drover_taskrecord_new (3, msg);
    drover_taskworker_t *worker = drover_taskworker_new ("alpha");
    drover_taskrecord_run (task)->attempt = 1;
    task->state = DROVER_TASK_ASSIGNED;
    drover_taskworker_attach (worker, task);
    drover_exec_t *exec = drover_exec_new ();
    drover_task_row_t row = { 0 };
    drover_taskrecord_row (task, exec, &row);
    assert_int_equal (row.task, 3);
    assert_int_equal (row.state, DROVER_TASK_ASSIGNED);
    assert_int_equal (row.end, DROVER_END_NONE);
    assert_int_equal (row.attempt, 1);
    assert_int_equal (row.procs, 2);
    assert_int_equal (row.priority, -1);
    assert_string_equal (row.worker, "alpha");
    assert_string_equal (row.summary, "sh -c printf 'a?b'");
    zstr_free (&row.summary);

    //  Once final, the worker of the last attempt, from the result
    drover_taskworker_detach (worker, task);
    task->state = DROVER_TASK_FAILED;
    task->result = drover_taskresult_new ("alpha", "gone");
    task->result->end = DROVER_END_LOST;
    assert_true (drover_taskrecord_final (task));
    drover_taskrecord_row (task, exec, &row);
    assert_string_equal (row.worker, "alpha");
    assert_int_equal (row.end, DROVER_END_LOST);
    zstr_free (&row.summary);

    drover_exec_destroy (&exec);
    drover_taskworker_destroy (&worker);
    drover_taskrecord_destroy (&task);          //  and its result
    drover_msg_destroy (&msg);
}

//  Run every test
int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_submit_is_packed_with_body_and_labels),
        cmocka_unit_test (test_bad_submit_is_refused),
        cmocka_unit_test (test_row_says_worker_and_summary),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
