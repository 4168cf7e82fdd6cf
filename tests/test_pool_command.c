/*  =========================================================================
    test_pool_command - the elastic pool through a real broker and the
    command driver: tests/pool/test-driver.sh creates real `drover worker`
    processes (or fails on cue), and the pool must warn after consecutive
    create failures, make no create during a quota backoff, destroy an
    instance that never registers at the boot timeout, destroy one that
    stops heartbeating (its task run again elsewhere), and after the
    broker's kill -9 and restart adopt its instances from `list`, a held
    one still held
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include "testutil_pooldriver.h"
#include <signal.h>
#include <sys/wait.h>

//  Assert text holds needle, showing the text if not
static void
s_expect_in (const char *text, const char *needle)
{
    if (!strstr (text, needle))
        fail_msg ("no '%s' in: %s", needle, text);
}

//  Submit one task of one proc running script; returns its id
static uint64_t
s_submit (testutil_pooldriver_t *self, const char *script)
{
    return testutil_submit (self->dealer, testutil_submit_msg (script, 0, 1, DROVER_SUBMIT_NOTIFY));
}


//  Creates that fail, twice in a row (warn-failures = 2), are warned of
//  on the event stream with what the driver said; once the driver
//  succeeds, the task runs
static void
test_create_failures_warned (void **state)
{
    testutil_pooldriver_t *pool =
        testutil_pooldriver_new ("command", "    warn-failures = 2\n    max-instances = 1\n");
    testutil_pooldriver_cue (pool, "create.cue", "fail no room at the inn\n");
    uint64_t task = s_submit (pool, "true");
    drover_event_t event;
    assert_true (testutil_await_event (pool->sub, "pool.warning", "", &event, 20000));
    s_expect_in (event.reason, "creates failed in a row: no room at the inn");
    assert_true (testutil_pooldriver_calls (pool, "create ") >= 2);
    testutil_pooldriver_cue (pool, "create.cue", NULL);
    drover_msg_t *done = testutil_expect_done (pool->dealer, task, DROVER_TASK_SUCCEEDED, 30000);
    drover_msg_destroy (&done);
    testutil_pooldriver_destroy (&pool);
}

//  A create that exits 10 (quota) starts a backoff: the next create comes
//  no sooner than quota-backoff after it
static void
test_quota_backoff (void **state)
{
    testutil_pooldriver_t *pool =
        testutil_pooldriver_new ("command", "    quota-backoff = 2000\n    max-instances = 1\n");
    testutil_pooldriver_cue (pool, "create.cue", "exit 10 InstanceLimitExceeded: 0 more\n");
    uint64_t task = s_submit (pool, "true");
    assert_true (testutil_pooldriver_await_calls (pool, "create ", 1, 10000));
    testutil_pooldriver_cue (pool, "create.cue", NULL);
    assert_true (testutil_pooldriver_await_calls (pool, "create ", 2, 15000));
    uint64_t first = testutil_pooldriver_call_time (pool, "create ", 1);
    uint64_t second = testutil_pooldriver_call_time (pool, "create ", 2);
    if (second - first < 2000)
        fail_msg ("a create %" PRIu64 " ms after the quota error, before the backoff's 2000",
                  second - first);
    drover_msg_t *done = testutil_expect_done (pool->dealer, task, DROVER_TASK_SUCCEEDED, 30000);
    drover_msg_destroy (&done);
    testutil_pooldriver_destroy (&pool);
}

//  An instance whose worker never registers is destroyed at the boot
//  timeout; the one created in its place runs the task
static void
test_boot_timeout (void **state)
{
    testutil_pooldriver_t *pool =
        testutil_pooldriver_new ("command", "    boot-timeout = 2000\n    max-instances = 1\n");
    testutil_pooldriver_cue (pool, "create.cue", "noworker\n");
    uint64_t task = s_submit (pool, "true");
    assert_true (testutil_pooldriver_await_calls (pool, "create ", 1, 10000));
    testutil_pooldriver_cue (pool, "create.cue", NULL);
    drover_event_t event;
    assert_true (testutil_pooldriver_await_event (pool, "pool.booting", "", &event, 10000));
    char name [DROVER_ID_MAX + 1];
    snprintf (name, sizeof name, "%s", event.worker);
    assert_true (testutil_await_event (pool->sub, "pool.shutdown", name, &event, 15000));
    s_expect_in (event.reason, "boot timeout");
    assert_true (testutil_pooldriver_await_calls (pool, "destroy ", 1, 15000));
    uint64_t created = testutil_pooldriver_call_time (pool, "create ", 1);
    uint64_t destroyed = testutil_pooldriver_call_time (pool, "destroy ", 1);
    //  The boot timeout runs from when the pool asked the create, a little
    //  before the script wrote the time of its call (the shell's start)
    if (destroyed - created < 2000 - 250)
        fail_msg ("destroyed %" PRIu64 " ms after its create, before the boot timeout's 2000",
                  destroyed - created);
    drover_msg_t *done = testutil_expect_done (pool->dealer, task, DROVER_TASK_SUCCEEDED, 30000);
    drover_msg_destroy (&done);
    assert_true (testutil_pooldriver_calls (pool, "create ") >= 2);
    testutil_pooldriver_destroy (&pool);
}

//  An instance whose worker stops heartbeating (SIGSTOP) is lost: its
//  task runs again on another instance, and it is destroyed
static void
test_silent_instance_lost (void **state)
{
    testutil_pooldriver_t *pool =
        testutil_pooldriver_new ("command", "    probe-timeout = 1000\n    max-instances = 2\n");
    uint64_t task = s_submit (pool, "sleep 2");
    char first [DROVER_ID_MAX + 1] = "";
    assert_true (testutil_wait_running (pool->dealer, task, first, 30000));
    pid_t pid = testutil_pooldriver_worker_pid (pool, first);
    assert_true (pid > 0);
    assert_int_equal (kill (pid, SIGSTOP), 0);
    drover_msg_t *done = testutil_expect_done (pool->dealer, task, DROVER_TASK_SUCCEEDED, 40000);
    if (streq (done->worker, first))
        fail_msg ("the task ended on the silent instance %s", first);
    drover_msg_destroy (&done);
    char *destroy = zsys_sprintf ("destroy %s", first);
    assert_true (testutil_pooldriver_await_calls (pool, destroy, 1, 15000));
    zstr_free (&destroy);
    kill (pid, SIGCONT);            //  its SIGTERM was waiting
    assert_true (testutil_await_gone (pid, 10000));
    testutil_pooldriver_destroy (&pool);
}

//  The barrier for a task that must wait, with the pool at the one
//  instance it holds: a task no type fits, submitted after it, is warned
//  of (broker log) once the pool has planned from a LOAD that held both;
//  the scheduler placed what it would as each task came, before that
//  LOAD, and the pool answers a POOL LIST after the plan of the turn
//  before. So the task is still QUEUED, and the pool shows instance alone:
//  nothing created (booting) nor destroyed (shutdown) for it, now or late
static void
s_expect_planned_without (testutil_pooldriver_t *self, uint64_t task, const char *instance)
{
    testutil_submit (self->dealer, testutil_submit_msg ("true", 0, 8, 0));
    const char *log = testutil_cluster_log (self->cluster, "broker");
    if (!testutil_await_line (log, "no instance type fits 8 procs", 10000))
        fail_msg ("the pool never planned from the marker task; the broker's log:\n%s",
                  testutil_slurp (log));
    for (int round = 0; round < 2; round++) {
        drover_msg_t *list = drover_msg_new (DROVER_MSG_POOL_LIST);
        list->seq = 200 + (uint32_t) round;
        drover_msg_t *table = testutil_request (self->dealer, &list, 5000);
        assert_non_null (table);
        assert_int_equal (table->id, DROVER_MSG_POOL_TABLE);
        if (table->nrows != 1 || !streq (table->pool_rows [0].id, instance)
        ||  table->pool_rows [0].state == DROVER_POOL_STATE_MAX)       //  shutdown
            fail_msg ("the pool holds %u instances (the first %s, %s), not %s alone",
                      table->nrows, table->nrows? table->pool_rows [0].id: "-",
                      table->nrows? drover_pool_state_name (table->pool_rows [0].state): "-",
                      instance);
        drover_msg_destroy (&table);
    }
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_LIST);
    request->limit = DROVER_ROWS_MAX;
    request->seq = 202;
    drover_msg_t *reply = testutil_request (self->dealer, &request, 5000);
    assert_non_null (reply);
    int state = -1;
    for (uint32_t row = 0; row < reply->nrows; row++)
        if (reply->task_rows [row].task == task)
            state = reply->task_rows [row].state;
    drover_msg_destroy (&reply);
    if (state != DROVER_TASK_QUEUED)
        fail_msg ("task %" PRIu64 " is %s, not queued", task,
                  state < 0? "not listed": drover_task_state_name (state));
}

//  After the broker's kill -9 and restart on the same state, the instance
//  is adopted from the driver's list, not created again, and one whose tag
//  says hold (tagged while the broker was down: only the list can tell)
//  is held: the scheduler keeps it off new work, and a task waits
static void
test_restart_adopts_held (void **state)
{
    testutil_pooldriver_t *pool =
        testutil_pooldriver_new ("command", "    max-instances = 1\n");
    uint64_t task = s_submit (pool, "true");
    drover_msg_t *done = testutil_expect_done (pool->dealer, task, DROVER_TASK_SUCCEEDED, 30000);
    char name [DROVER_ID_MAX + 1];
    snprintf (name, sizeof name, "%s", done->worker);
    drover_msg_destroy (&done);
    assert_int_equal (testutil_pooldriver_calls (pool, "create "), 1);

    //  Stopped, then killed: no list runs between the tag and the crash
    assert_int_equal (kill (pool->cluster->broker, SIGSTOP), 0);
    char *line = zsys_sprintf ("%s one drover-pool=drover drover-idle=hold\n", name);
    char *file = zsys_sprintf ("instances/%s", name);
    testutil_pooldriver_cue (pool, file, line);
    zstr_free (&file);
    zstr_free (&line);
    int lists = testutil_pooldriver_calls (pool, "list");
    testutil_cluster_kill_restart (pool->cluster, pool->flags);
    zsock_destroy (&pool->dealer);
    pool->dealer = testutil_dealer (pool->cluster);
    assert_true (testutil_pooldriver_await_calls (pool, "list", lists + 1, 10000));
    assert_true (testutil_pooldriver_await_admin (pool, name, DROVER_ADMIN_HOLD, 15000));
    task = s_submit (pool, "true");
    s_expect_planned_without (pool, task, name);
    assert_int_equal (testutil_pooldriver_calls (pool, "create "), 1);
    assert_int_equal (testutil_pooldriver_calls (pool, "destroy "), 0);
    testutil_pooldriver_destroy (&pool);
}

int
main (void)
{
    zsys_init ();
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_create_failures_warned),
        cmocka_unit_test (test_quota_backoff),
        cmocka_unit_test (test_boot_timeout),
        cmocka_unit_test (test_silent_instance_lost),
        cmocka_unit_test (test_restart_adopts_held),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
