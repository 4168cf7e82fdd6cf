/*  =========================================================================
    test_failover - lost workers: their tasks run again elsewhere, and the
    client still sees exactly one result per task

    Real broker and worker processes on loopback. lost-after is short (1 s)
    so the tests take seconds, not minutes.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include <signal.h>
#include <sys/wait.h>

#define S_SLOW_TASKS 3

static int s_metrics_port;      //  where the broker of the test serves its metrics

//  Start a broker with a fast lost-after, one worker "alpha" running
//  S_SLOW_TASKS slow tasks, then a second worker "beta"; fills tasks [];
//  its metrics on s_metrics_port
static testutil_cluster_t *
s_alpha_busy_then_beta (zsock_t **dealer_p, uint64_t *tasks, const char *script)
{
    char metrics [64];
    s_metrics_port = testutil_free_port ();
    snprintf (metrics, sizeof metrics, "127.0.0.1:%d", s_metrics_port);
    const char *flags [] = { "--set", "health/heartbeat=200",
                             "--set", "health/lost-after=1000", "--metrics", metrics, NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    testutil_cluster_add_worker (cluster, 0, "alpha", S_SLOW_TASKS, NULL);
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 1, 10000));
    for (int index = 0; index < S_SLOW_TASKS; index++)
        tasks [index] = testutil_submit (dealer,
            testutil_submit_msg (script, 0, 1, DROVER_SUBMIT_NOTIFY));
    for (int index = 0; index < S_SLOW_TASKS; index++) {
        char worker [DROVER_ID_MAX + 1] = "";
        assert_true (testutil_wait_running (dealer, tasks [index], worker, 10000));
        assert_string_equal (worker, "alpha");
    }
    testutil_cluster_add_worker (cluster, 1, "beta", S_SLOW_TASKS, NULL);
    assert_true (testutil_wait_workers (dealer, 2, 10000));
    *dealer_p = dealer;
    return cluster;
}

//  Every task finished once, on beta, in its second attempt
static void
s_expect_rerun_on_beta (zsock_t *dealer, const uint64_t *tasks)
{
    drover_msg_t *done [S_SLOW_TASKS] = { NULL };
    assert_true (testutil_collect (dealer, tasks, done, S_SLOW_TASKS, 20000));
    for (int index = 0; index < S_SLOW_TASKS; index++) {
        assert_int_equal (done [index]->state, DROVER_TASK_SUCCEEDED);
        assert_string_equal (done [index]->worker, "beta");
        assert_int_equal (done [index]->attempt, 2);
        drover_msg_destroy (&done [index]);
    }
}

//  True while pid runs: neither gone nor a zombie waiting to be reaped.
//  (/proc files report size 0, so this reads the state field directly.)
static bool
s_process_alive (pid_t pid)
{
    char path [64];
    snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
    FILE *file = fopen (path, "r");
    if (!file)
        return false;
    char state = 'Z';
    if (fscanf (file, "%*d (%*[^)]) %c", &state) != 1)
        state = 'Z';
    fclose (file);
    return state != 'Z' && state != 'X';
}

//  kill -9 of a worker mid-task: its tasks' processes die with it, and the
//  tasks run again on the other worker
static void
test_killed_worker_tasks_rerun_elsewhere (void **state)
{
    zsock_t *dealer;
    uint64_t tasks [S_SLOW_TASKS];
    char script [256];
    char pids_path [64];
    snprintf (pids_path, sizeof pids_path, "/tmp/drover-pids-%d", (int) getpid ());
    unlink (pids_path);
    //  The first attempts (alpha's) would sleep 30 s if nothing killed
    //  them; the reruns on beta sleep 1 s
    snprintf (script, sizeof script,
              "echo $$ >> %s; sleep $(( $(wc -l < %s) <= %d ? 30 : 1 )); echo ran",
              pids_path, pids_path, S_SLOW_TASKS);
    testutil_cluster_t *cluster = s_alpha_busy_then_beta (&dealer, tasks, script);

    //  alpha's attempts have written their pids before it is killed
    pid_t pids [S_SLOW_TASKS] = { 0 };
    int64_t deadline = zclock_mono () + 5000;
    int found = 0;
    while (found < S_SLOW_TASKS && zclock_mono () < deadline) {
        char *text = testutil_slurp (pids_path);
        found = 0;
        for (char *line = text? strtok (text, "\n"): NULL; line && found < S_SLOW_TASKS;
             line = strtok (NULL, "\n"))
            pids [found++] = (pid_t) atoi (line);
        free (text);
        if (found < S_SLOW_TASKS)
            zclock_sleep (20);  //  paces reading the file; the deadline bounds the wait
    }
    assert_int_equal (found, S_SLOW_TASKS);
    kill (cluster->workers [0], SIGKILL);
    waitpid (cluster->workers [0], NULL, 0);
    cluster->workers [0] = 0;
    for (int index = 0; index < S_SLOW_TASKS; index++) {
        deadline = zclock_mono () + 2000;
        while (s_process_alive (pids [index]) && zclock_mono () < deadline)
            zclock_sleep (10);  //  paces the check; the deadline bounds the wait
        assert_false (s_process_alive (pids [index]));
    }
    s_expect_rerun_on_beta (dealer, tasks);
    unlink (pids_path);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  SIGSTOP past lost-after, then SIGCONT: the tasks ran again on beta; the
//  old attempts' late results were answered STALE; one result per task;
//  alpha registers again and is usable
static void
test_stopped_worker_late_results_are_stale (void **state)
{
    zsock_t *dealer;
    uint64_t tasks [S_SLOW_TASKS];
    testutil_cluster_t *cluster = s_alpha_busy_then_beta (&dealer, tasks, "sleep 1.5; echo ran");
    kill (cluster->workers [0], SIGSTOP);
    s_expect_rerun_on_beta (dealer, tasks);
    //  alpha's children finished while it was stopped: it reports them now
    kill (cluster->workers [0], SIGCONT);
    assert_true (testutil_await_metric (s_metrics_port, "drover_reports_refused_total{code=\"409\"}",
                                        S_SLOW_TASKS, false, 10000));
    assert_true (testutil_wait_workers (dealer, 2, 10000));

    //  alpha serves again (beta held), and the only TASK DONE that arrives
    //  is the new task's: testutil_collect fails on any stray result
    drover_msg_t *hold = drover_msg_new (DROVER_MSG_WORKER_ADMIN);
    strcpy (hold->worker, "beta");
    hold->admin = DROVER_ADMIN_HOLD;
    drover_msg_t *reply = testutil_request (dealer, &hold, 5000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_OK);
    drover_msg_destroy (&reply);
    uint64_t again = testutil_submit (dealer, testutil_submit_msg ("echo back", 0, 1, DROVER_SUBMIT_NOTIFY));
    drover_msg_t *done = testutil_expect_done (dealer, again, DROVER_TASK_SUCCEEDED, 10000);
    assert_string_equal (done->worker, "alpha");
    drover_msg_destroy (&done);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_killed_worker_tasks_rerun_elsewhere),
        cmocka_unit_test (test_stopped_worker_late_results_are_stale),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
