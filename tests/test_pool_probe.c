/*  =========================================================================
    test_pool_probe - Arvados' worker pool rows through a real broker and
    the command driver (tests/pool/test-driver.sh starts real `drover
    worker` processes): an instance whose worker registers but whose boot
    probe fails gets no work, is shown so (`drover pool`, events), and is
    destroyed at the probe timeout, the event saying why; once probes
    pass, the task runs. A batch cancelled while its instances boot has
    them destroyed at once, the events saying why.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include "testutil_pooldriver.h"

//  Return the POOL TABLE row of instance id (copied into row); false if none
static bool
s_pool_row (testutil_pooldriver_t *self, const char *id, drover_pool_row_t *row, uint8_t *probing)
{
    drover_msg_t *list = drover_msg_new (DROVER_MSG_POOL_LIST);
    drover_msg_t *table = testutil_request (self->dealer, &list, 5000);
    assert_non_null (table);
    assert_int_equal (table->id, DROVER_MSG_POOL_TABLE);
    bool found = false;
    for (uint32_t index = 0; index < table->nrows && !found; index++)
        if (streq (table->pool_rows [index].id, id)) {
            *row = table->pool_rows [index];
            found = true;
        }
    *probing = table->pool.probing;
    drover_msg_destroy (&table);
    return found;
}

//  Send a TASK CANCEL and return the reply's code
static int
s_cancel (zsock_t *dealer, uint64_t task)
{
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_CANCEL);
    request->task = task;
    drover_msg_t *reply = testutil_request (dealer, &request, 5000);
    assert_non_null (reply);
    int code = reply->code;
    drover_msg_destroy (&reply);
    return code;
}


//  A worker that registers but whose probe fails: held (no work), shown
//  as failing, destroyed at the probe timeout with the reason; with the
//  probe passing again, the next instance runs the task
static void
test_failing_probe_destroys_the_instance (void **state)
{
    testutil_pooldriver_t *pool =
        testutil_pooldriver_new ("probe", "    probe = on\n    probe-interval = 200\n"
                                          "    probe-timeout = 3000\n    max-instances = 1\n");
    testutil_pooldriver_cue (pool, "probe.cue", "fail disk not mounted\n");
    uint64_t task = testutil_submit (pool->dealer,
                                     testutil_submit_msg ("true", 0, 1, DROVER_SUBMIT_NOTIFY));
    drover_event_t event;
    assert_true (testutil_pooldriver_await_event (pool, "pool.booting", "", &event, 20000));
    char instance [DROVER_ID_MAX + 1];
    snprintf (instance, sizeof instance, "%s", event.worker);
    //  Its worker registered and is held by the pool: no work for it
    assert_true (testutil_pooldriver_await_admin (pool, instance, DROVER_ADMIN_HOLD, 20000));
    assert_true (testutil_pooldriver_await_event (pool, "pool.probe",
                                                  "probe failed: disk not mounted", &event, 20000));
    assert_string_equal (event.worker, instance);
    //  `drover pool` shows it booting, its probe failed
    drover_pool_row_t row;
    uint8_t probing;
    assert_true (s_pool_row (pool, instance, &row, &probing));
    assert_int_equal (probing, 1);
    assert_int_equal (row.state, 1);                        //  booting
    assert_int_equal (row.probe, DROVER_POOL_PROBE_MAX);    //  failed
    assert_true (row.probes >= 1);
    const char *args [] = { "pool", "--json", NULL };
    testutil_cli_t *run = (testutil_cli_t *) zmalloc (sizeof (testutil_cli_t));
    testutil_cli (pool->cluster->endpoint, args, run);
    testutil_cli_expect (run, 0, run->out, "\"probing\":true");
    testutil_cli_expect (run, 0, run->out, "\"probe\":\"failed\"");
    const char *text [] = { "pool", NULL };
    testutil_cli (pool->cluster->endpoint, text, run);
    testutil_cli_expect (run, 0, run->out, "probe failed: disk not mounted");
    testutil_cli_expect (run, 0, run->out, "boot probes on");
    //  Destroyed at the probe timeout, the event saying why
    assert_true (testutil_pooldriver_await_event (pool, "pool.shutdown", "probe timeout", &event,
                                                  20000));
    assert_string_equal (event.worker, instance);
    assert_non_null (strstr (event.reason, "probe failed: disk not mounted"));
    char destroy [DROVER_ID_MAX + 16];
    snprintf (destroy, sizeof destroy, "destroy %s", instance);
    assert_true (testutil_pooldriver_await_calls (pool, destroy, 1, 10000));
    assert_true (testutil_pooldriver_calls (pool, "probe ") >= 2);  //  probed again, rate-limited
    assert_true (testutil_metric (pool->metrics, "drover_pool_probe_failures_total") >= 2);
    assert_true (testutil_metric (pool->metrics, "drover_pool_probes_total") >= 2);
    //  The task never ran on it: probes passing, the next instance runs it
    testutil_pooldriver_cue (pool, "probe.cue", NULL);
    drover_msg_t *done = testutil_expect_done (pool->dealer, task, DROVER_TASK_SUCCEEDED, 30000);
    assert_string_not_equal (done->worker, instance);
    drover_msg_destroy (&done);
    assert_true (testutil_pooldriver_await_event (pool, "pool.up", "probe passed", &event, 10000));
    free (run);
    testutil_pooldriver_destroy (&pool);
}

//  A batch cancelled while its instances boot (their workers never
//  register): each booting instance is destroyed at once, not at the boot
//  timeout, the event saying why
static void
test_cancelled_batch_destroys_its_boots (void **state)
{
    testutil_pooldriver_t *pool =
        testutil_pooldriver_new ("probe", "    max-instances = 3\n    boot-timeout = 600000\n");
    testutil_pooldriver_cue (pool, "create.cue", "noworker\n");
    uint64_t tasks [3];
    for (int index = 0; index < 3; index++)
        tasks [index] = testutil_submit (pool->dealer,
            testutil_submit_msg ("sleep 600", 0, 1, DROVER_SUBMIT_NOTIFY));
    assert_true (testutil_pooldriver_await_calls (pool, "create ", 3, 20000));
    //  Two cancelled: two instances go, one stays for the task left
    assert_int_equal (s_cancel (pool->dealer, tasks [0]), DROVER_CODE_OK);
    assert_int_equal (s_cancel (pool->dealer, tasks [1]), DROVER_CODE_OK);
    drover_event_t event;
    for (int index = 0; index < 2; index++) {
        assert_true (testutil_pooldriver_await_event (pool, "pool.shutdown", "surplus", &event,
                                                      20000));
        assert_non_null (strstr (event.reason, "the tasks it was created for are gone"));
    }
    assert_true (testutil_pooldriver_await_calls (pool, "destroy ", 2, 10000));
    //  The last cancelled: the last one goes too
    assert_int_equal (s_cancel (pool->dealer, tasks [2]), DROVER_CODE_OK);
    assert_true (testutil_pooldriver_await_event (pool, "pool.shutdown", "surplus", &event, 20000));
    assert_true (testutil_pooldriver_await_calls (pool, "destroy ", 3, 10000));
    assert_int_equal (testutil_pooldriver_calls (pool, "create "), 3);
    assert_int_equal (testutil_metric (pool->metrics, "drover_pool_surplus_destroys_total"), 3);
    assert_int_equal (testutil_metric (pool->metrics, "drover_pool_probes_total"), 0);
    testutil_pooldriver_destroy (&pool);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_failing_probe_destroys_the_instance),
        cmocka_unit_test (test_cancelled_batch_destroys_its_boots),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
