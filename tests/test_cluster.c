/*  =========================================================================
    test_cluster - a real broker and real worker agents on loopback

    Each test starts `drover broker` and `drover worker` processes, talks
    to the broker over TCP with the codec, and counts every TASK DONE it
    receives itself, so that a duplicate result would be seen.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include <signal.h>
#include <sys/wait.h>

#define S_TASKS     1000

//  Start a broker with two workers and wait until both are registered
static testutil_cluster_t *
s_two_workers (zsock_t **dealer_p)
{
    const char *flags [] = { "--set", "health/heartbeat=200", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    testutil_cluster_add_worker (cluster, 0, "alpha", 4, NULL);
    testutil_cluster_add_worker (cluster, 1, "beta", 3, NULL);
    *dealer_p = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (*dealer_p, 2, 10000));
    return cluster;
}

//  Collect and check that every task succeeded on the given worker
static void
s_expect_all_on (zsock_t *dealer, const uint64_t *tasks, int count, const char *worker)
{
    drover_msg_t *done [32] = { NULL };
    assert_true (count <= 32);
    assert_true (testutil_collect (dealer, tasks, done, count, 15000));
    for (int index = 0; index < count; index++) {
        assert_int_equal (done [index]->state, DROVER_TASK_SUCCEEDED);
        assert_string_equal (done [index]->worker, worker);
        drover_msg_destroy (&done [index]);
    }
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

//  1000 tasks of mixed priority and procs, pipelined: each accepted once,
//  each finished once with its own output
static void
test_thousand_tasks_each_result_once (void **state)
{
    zsock_t *dealer;
    testutil_cluster_t *cluster = s_two_workers (&dealer);
    zsock_set_sndhwm (dealer, 0);
    for (int index = 0; index < S_TASKS; index++) {
        char script [64];
        snprintf (script, sizeof script, "echo task-%d", index);
        drover_msg_t *submit = testutil_submit_msg (script, index % 5, 1 + (index % 3 == 0),
                                                    DROVER_SUBMIT_NOTIFY);
        submit->seq = index + 1;
        testutil_send (dealer, &submit);
    }
    uint64_t *task_of = (uint64_t *) zmalloc (sizeof (uint64_t) * S_TASKS);
    int *done_count = (int *) zmalloc (sizeof (int) * S_TASKS);
    zhashx_t *index_of = zhashx_new ();     //  task id as text -> index + 1
    int accepted = 0, done = 0;
    int64_t deadline = zclock_mono () + 120000;
    while (done < S_TASKS && zclock_mono () < deadline) {
        drover_msg_t *msg = testutil_recv_msg (dealer, 5000);
        if (!msg)
            continue;
        if (msg->id == DROVER_MSG_TASK_ACCEPTED) {
            assert_true (msg->seq >= 1 && msg->seq <= S_TASKS);
            assert_int_equal (task_of [msg->seq - 1], 0);
            task_of [msg->seq - 1] = msg->task;
            char key [24];
            snprintf (key, sizeof key, "%" PRIu64, msg->task);
            zhashx_insert (index_of, key, (void *) (uintptr_t) msg->seq);
            accepted++;
        }
        else {
            assert_int_equal (msg->id, DROVER_MSG_TASK_DONE);
            char key [24];
            snprintf (key, sizeof key, "%" PRIu64, msg->task);
            uintptr_t seq = (uintptr_t) zhashx_lookup (index_of, key);
            assert_true (seq >= 1);
            assert_int_equal (msg->state, DROVER_TASK_SUCCEEDED);
            char expected [64];
            snprintf (expected, sizeof expected, "task-%d\n", (int) seq - 1);
            assert_int_equal (msg->out_size, strlen (expected));
            assert_memory_equal (msg->out, expected, msg->out_size);
            done_count [seq - 1]++;
            done++;
        }
        drover_msg_destroy (&msg);
    }
    assert_int_equal (accepted, S_TASKS);
    assert_int_equal (done, S_TASKS);
    for (int index = 0; index < S_TASKS; index++)
        assert_int_equal (done_count [index], 1);

    //  No late duplicate: the table's reply comes after anything assign said
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_LIST);
    request->limit = 0;
    request->state = 255;
    drover_msg_t *reply = testutil_request (dealer, &request, 5000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_TASK_TABLE);
    assert_int_equal (reply->counts [DROVER_TASK_SUCCEEDED], S_TASKS);
    assert_int_equal (reply->counts [DROVER_TASK_FAILED], 0);
    drover_msg_destroy (&reply);
    drover_msg_t *extra = testutil_recv_msg (dealer, 0);
    assert_null (extra);

    zhashx_destroy (&index_of);
    free (done_count);
    free (task_of);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  A queued task leaves the queue; a running one is killed; both end
//  CANCELLED (nothing held ahead, so the second stays queued: a held one's
//  cancel is test_offers_ahead's)
static void
test_cancel_queued_and_running (void **state)
{
    const char *flags [] = { "--set", "health/heartbeat=200", "--set", "assign/offer-ahead=0",
                             NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    testutil_cluster_add_worker (cluster, 0, "solo", 1, NULL);
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 1, 10000));

    uint64_t running = testutil_submit (dealer, testutil_submit_msg ("sleep 30", 0, 1, DROVER_SUBMIT_NOTIFY));
    char worker [DROVER_ID_MAX + 1] = "";
    assert_true (testutil_wait_running (dealer, running, worker, 10000));
    assert_string_equal (worker, "solo");
    uint64_t queued = testutil_submit (dealer, testutil_submit_msg ("echo never", 0, 1, DROVER_SUBMIT_NOTIFY));

    assert_int_equal (s_cancel (dealer, queued), DROVER_CODE_OK);
    drover_msg_t *done = testutil_expect_done (dealer, queued, DROVER_TASK_CANCELLED, 5000);
    assert_int_equal (done->attempt, 0);
    drover_msg_destroy (&done);

    int64_t started = zclock_mono ();
    assert_int_equal (s_cancel (dealer, running), DROVER_CODE_OK);
    done = testutil_expect_done (dealer, running, DROVER_TASK_CANCELLED, 15000);
    assert_true (zclock_mono () - started < 15000);
    drover_msg_destroy (&done);

    assert_int_equal (s_cancel (dealer, running), DROVER_CODE_CONFLICT);
    assert_int_equal (s_cancel (dealer, 987654321), DROVER_CODE_NOT_FOUND);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  A task past its timeout is killed and FAILED; a failing task is retried
//  as many times as asked, then FAILED with its own exit status
static void
test_timeout_and_retries (void **state)
{
    zsock_t *dealer;
    testutil_cluster_t *cluster = s_two_workers (&dealer);
    drover_msg_t *submit = testutil_submit_msg ("sleep 30", 0, 1, DROVER_SUBMIT_NOTIFY);
    submit->timeout = 500;
    uint64_t slow = testutil_submit (dealer, submit);
    drover_msg_t *done = testutil_expect_done (dealer, slow, DROVER_TASK_FAILED, 15000);
    assert_int_equal (done->end, DROVER_END_TIMED_OUT);
    assert_int_equal (done->attempt, 1);
    drover_msg_destroy (&done);

    submit = testutil_submit_msg ("echo attempt >&2; exit 3", 0, 1, DROVER_SUBMIT_NOTIFY);
    submit->retries = 2;
    uint64_t failing = testutil_submit (dealer, submit);
    done = testutil_expect_done (dealer, failing, DROVER_TASK_FAILED, 15000);
    assert_int_equal (done->attempt, 3);
    assert_int_equal (done->end, DROVER_END_FAILED);
    assert_int_equal (done->exit_code, 3);
    assert_int_equal (done->err_size, strlen ("attempt\n"));
    drover_msg_destroy (&done);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  Finished results past an undocumented 256 MiB of output vanished, and
//  drover wait then counted them as failed ("unknown task"). The budget is
//  the setting assign/keep-finished-bytes; past it the oldest results are dropped
//  and, with no durable history to read them back from (durability off: see
//  test_cli_show for one that has it), drover wait reports them expired,
//  never failed.
static void
test_results_past_keep_finished_bytes_expire (void **state)
{
    const char *flags [] = { "--set", "health/heartbeat=200", "--set", "assign/keep-finished-bytes=100",
                             "--durability", "off", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    testutil_cluster_add_worker (cluster, 0, "alpha", 1, NULL);
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 1, 10000));
    //  60 bytes of stdout each: the budget holds one result, not two
    char ids [3][24];
    for (int index = 0; index < 3; index++) {
        drover_msg_t *submit = testutil_submit_msg ("printf %060d 0", 0, 1, DROVER_SUBMIT_NOTIFY);
        uint64_t task = testutil_submit (dealer, submit);
        drover_msg_t *done = testutil_wait_done (dealer, task, 15000);
        assert_non_null (done);
        assert_int_equal (done->end, DROVER_END_SUCCEEDED);
        assert_int_equal (done->out_size, 60);
        drover_msg_destroy (&done);
        snprintf (ids [index], sizeof ids [index], "%llu", (unsigned long long) task);
    }
    const char *argv [] = { DROVER_BIN, "wait", "--broker", cluster->endpoint,
                            ids [0], ids [1], ids [2], NULL };
    const char *log = testutil_cluster_log (cluster, "wait");
    pid_t pid = testutil_spawn (argv, log);
    int status = testutil_wait_exit (pid, 10000);
    if (status == -1)
        testutil_stop (pid, 100);
    char *output = testutil_slurp (log);
    assert_non_null (output);
    if (!strstr (output, "3 tasks: 1 succeeded, 0 failed, 0 cancelled, 2 expired"))
        fail_msg ("drover wait said: %s", output);
    assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 1);
    free (output);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  A held worker takes nothing new; one drained with exit takes nothing and
//  leaves. A worker not connected may be held (kept for when it joins), and
//  resumed; resuming what has no setting and is not connected is refused.
static void
test_hold_and_drain (void **state)
{
    zsock_t *dealer;
    testutil_cluster_t *cluster = s_two_workers (&dealer);
    assert_int_equal (testutil_admin (dealer, "nobody", DROVER_ADMIN_HOLD), DROVER_CODE_OK);
    assert_int_equal (testutil_admin (dealer, "nobody", DROVER_ADMIN_RUN), DROVER_CODE_OK);
    assert_int_equal (testutil_admin (dealer, "nobody", DROVER_ADMIN_RUN), DROVER_CODE_NOT_FOUND);
    assert_int_equal (testutil_admin (dealer, "alpha", DROVER_ADMIN_HOLD), DROVER_CODE_OK);
    uint64_t tasks [20];
    for (int index = 0; index < 20; index++)
        tasks [index] = testutil_submit (dealer, testutil_submit_msg ("true", 0, 1, DROVER_SUBMIT_NOTIFY));
    s_expect_all_on (dealer, tasks, 20, "beta");
    assert_int_equal (testutil_admin (dealer, "alpha", DROVER_ADMIN_RUN), DROVER_CODE_OK);
    assert_int_equal (testutil_admin_with (dealer, "beta", DROVER_ADMIN_DRAIN, "retire",
                                           DROVER_ADMIN_EXIT), DROVER_CODE_OK);
    int status = testutil_wait_exit (cluster->workers [1], 10000);
    assert_true (status != -1 && WIFEXITED (status) && WEXITSTATUS (status) == 0);
    cluster->workers [1] = 0;
    for (int index = 0; index < 5; index++)
        tasks [index] = testutil_submit (dealer, testutil_submit_msg ("true", 0, 1, DROVER_SUBMIT_NOTIFY));
    s_expect_all_on (dealer, tasks, 5, "alpha");
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  Every state change of a task is published, in order, on the PUB socket
//  (the task runs past the 5 ms a worker may hold its STARTED back: a
//  shorter one goes from task.assigned to its end)
static void
test_events_follow_a_task (void **state)
{
    zsock_t *dealer;
    testutil_cluster_t *cluster = s_two_workers (&dealer);
    zsock_t *sub = testutil_cluster_sub (cluster, dealer, "", "alpha");
    drover_event_t event;
    while (testutil_next_event (sub, &event, 200))
        ;                       //  drain what the pokes published
    uint64_t task = testutil_submit (dealer, testutil_submit_msg ("sleep 0.2", 0, 1,
                                                                  DROVER_SUBMIT_NOTIFY));
    const char *expected [] = { "task.queued", "task.assigned", "task.running", "task.succeeded" };
    int seen = 0;
    while (seen < 4 && testutil_next_event (sub, &event, 5000)) {
        if (event.task != task)
            continue;
        assert_string_equal (event.topic, expected [seen]);
        assert_true (event.time > 0);
        if (seen > 0)
            assert_int_equal (event.attempt, 1);
        seen++;
    }
    assert_int_equal (seen, 4);
    drover_msg_t *done = testutil_wait_done (dealer, task, 5000);
    assert_non_null (done);
    drover_msg_destroy (&done);
    zsock_destroy (&sub);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  Run `drover COMMAND --broker endpoint FLAG`; return what it printed
//  (caller frees); asserts it exits 0
static char *
s_cli (testutil_cluster_t *cluster, const char *command, const char *flag)
{
    char log [] = "/tmp/drover-cluster-cli-XXXXXX";
    int fd = mkstemp (log);
    assert_true (fd >= 0);
    close (fd);
    const char *argv [] = { DROVER_BIN, command, "--broker", cluster->endpoint, flag, NULL };
    pid_t pid = testutil_spawn (argv, log);
    int status = testutil_wait_exit (pid, 10000);
    assert_true (status != -1 && WIFEXITED (status) && WEXITSTATUS (status) == 0);
    char *output = testutil_slurp (log);
    assert_non_null (output);
    unlink (log);
    return output;
}

//  No priority inversion, through real processes: a 4-proc worker busy
//  with priority-5 one-proc tasks; a priority-0 four-proc task reserves it (`drover
//  workers` and `drover tasks` show it) and runs as soon as the 4 tasks
//  running end, before any other small one
static void
test_wide_task_is_not_overtaken (void **state)
{
    //  Nothing held ahead: a small task already held on the worker when the
    //  wide one comes would start before it (one a worker at most,
    //  docs/placement.md)
    const char *flags [] = { "--set", "health/heartbeat=200", "--set", "assign/offer-ahead=0",
                             NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    testutil_cluster_add_worker (cluster, 0, "w", 4, NULL);
    zsock_t *dealer = testutil_dealer (cluster);
    zsock_t *asker = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (asker, 1, 10000));
    //  The first four end 0.5 s apart, so the wide one waits on a reservation
    uint64_t smalls [12];
    for (int index = 0; index < 12; index++) {
        char script [32];
        snprintf (script, sizeof script, "sleep %.1f", 0.5 * (1 + index % 4));
        smalls [index] = testutil_submit (dealer, testutil_submit_msg (script, 5, 1,
                                                                      DROVER_SUBMIT_NOTIFY));
    }
    char worker [DROVER_ID_MAX + 1];
    assert_true (testutil_wait_running (asker, smalls [3], worker, 10000));
    uint64_t wide = testutil_submit (dealer, testutil_submit_msg ("echo wide", 0, 4,
                                                                 DROVER_SUBMIT_NOTIFY));
    assert_true (testutil_wait_reserved (asker, "w", wide, 10000));
    char *workers = s_cli (cluster, "workers", "--json");
    char expected [64];
    snprintf (expected, sizeof expected, "\"reserved\":%" PRIu64 ",", wide);
    if (!strstr (workers, expected))
        fail_msg ("no %s in: %s", expected, workers);
    free (workers);
    char *tasks = s_cli (cluster, "tasks", "--state=queued");
    if (!strstr (tasks, "w (reserved)"))
        fail_msg ("no 'w (reserved)' in: %s", tasks);
    free (tasks);
    //  Only the four running before it end before it
    int smalls_before = 0;
    int64_t deadline = zclock_mono () + 30000;
    while (zclock_mono () < deadline) {
        drover_msg_t *done = testutil_recv_msg (dealer, 5000);
        if (!done)
            continue;
        assert_int_equal (done->id, DROVER_MSG_TASK_DONE);
        bool is_wide = done->task == wide;
        if (is_wide)
            assert_int_equal (done->state, DROVER_TASK_SUCCEEDED);
        drover_msg_destroy (&done);
        if (is_wide)
            break;
        smalls_before++;
    }
    assert_int_equal (smalls_before, 4);
    assert_true (testutil_wait_reserved (asker, "w", 0, 5000));
    zsock_destroy (&asker);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_thousand_tasks_each_result_once),
        cmocka_unit_test (test_cancel_queued_and_running),
        cmocka_unit_test (test_timeout_and_retries),
        cmocka_unit_test (test_results_past_keep_finished_bytes_expire),
        cmocka_unit_test (test_hold_and_drain),
        cmocka_unit_test (test_events_follow_a_task),
        cmocka_unit_test (test_wide_task_is_not_overtaken),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
