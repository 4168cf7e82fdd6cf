/*  =========================================================================
    test_cli_workers - what an operator sees of workers, through the real
    drover CLI against a real broker and real worker agents: workers lost
    (kill -9) and left (GOODBYE) stay listed with why and since, and status
    counts them; a hold and its reason survive the worker's reconnect and
    the broker's restart; drain keeps the worker connected and idle until
    resume, or makes it leave with --exit; status counts busy workers and
    leaves held ones out of the capacity
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include <sys/wait.h>

//  Broker flags: quick heartbeats, so that a worker killed is lost soon
static const char *s_flags [] = { "--set", "health/heartbeat=200", "--set",
                                  "health/lost-after=1000", NULL };

//  Run `drover ARGS... --broker ENDPOINT`, expect exit status 0, return
//  its output (caller frees)
static char *
s_cli (testutil_cluster_t *cluster, const char *const args [])
{
    char log [] = "/tmp/drover-cli-workers-XXXXXX";
    int fd = mkstemp (log);
    assert_true (fd >= 0);
    close (fd);
    const char *argv [16] = { DROVER_BIN };
    int argc = 1;
    for (int index = 0; args [index] && argc < 13; index++)
        argv [argc++] = args [index];
    argv [argc++] = "--broker";
    argv [argc++] = cluster->endpoint;
    argv [argc] = NULL;
    pid_t pid = testutil_spawn (argv, log);
    int status = testutil_wait_exit (pid, 10000);
    if (status == -1)
        testutil_stop (pid, 100);
    char *output = testutil_slurp (log);
    assert_non_null (output);
    unlink (log);
    if (!(status != -1 && WIFEXITED (status) && WEXITSTATUS (status) == 0))
        fail_msg ("drover %s failed: %s", args [0], output);
    return output;
}

//  Assert text holds needle, showing the text if not
static void
s_expect_in (const char *text, const char *needle)
{
    if (!strstr (text, needle))
        fail_msg ("no '%s' in:\n%s", needle, text);
}

//  The line of `drover workers` about worker (a copy; caller frees)
static char *
s_worker_line (const char *table, const char *worker)
{
    for (const char *line = table; line && *line; line = strchr (line, '\n')) {
        if (*line == '\n')
            line++;
        size_t length = strlen (worker);
        if (strncmp (line, worker, length) == 0 && line [length] == ' ') {
            const char *end = strchr (line, '\n');
            return strndup (line, end? (size_t) (end - line): strlen (line));
        }
    }
    fail_msg ("no line for %s in:\n%s", worker, table);
    return NULL;
}

//  Assert text holds each needle of a NULL-terminated va_list
static void
s_expect_each (const char *text, va_list needles)
{
    for (const char *needle = va_arg (needles, const char *); needle;
         needle = va_arg (needles, const char *))
        s_expect_in (text, needle);
}

//  Run `drover ARGS...` (s_cli) and assert its output holds each needle
//  (the list NULL-terminated)
static void
s_cli_says (testutil_cluster_t *cluster, const char *const args [], ...)
{
    char *text = s_cli (cluster, args);
    va_list needles;
    va_start (needles, args);
    s_expect_each (text, needles);
    va_end (needles);
    free (text);
}

//  Assert `drover workers` lists worker on a line holding each needle (the
//  list NULL-terminated)
static void
s_worker_says (testutil_cluster_t *cluster, const char *worker, ...)
{
    const char *workers [] = { "workers", NULL };
    char *table = s_cli (cluster, workers);
    char *line = s_worker_line (table, worker);
    va_list needles;
    va_start (needles, worker);
    s_expect_each (line, needles);
    va_end (needles);
    free (line);
    free (table);
}

//  Wait for the event topic about worker on sub; fail if it does not come
static void
s_await (zsock_t *sub, const char *topic, const char *worker, const char *reason)
{
    drover_event_t event;
    if (!testutil_await_event (sub, topic, worker, &event, 15000))
        fail_msg ("no %s for %s", topic, worker);
    if (reason)
        assert_string_equal (event.reason, reason);
}

//  kill -9 a worker: LOST, with why (silent) and since; GOODBYE (SIGTERM):
//  LEFT; status counts both; a worker that comes back replaces its row
static void
test_lost_and_left_stay_listed (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (s_flags);
    testutil_cluster_add_worker (cluster, 0, "alpha", 1, NULL);
    testutil_cluster_add_worker (cluster, 1, "beta", 1, NULL);
    testutil_cluster_add_worker (cluster, 2, "gamma", 1, NULL);
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 3, 10000));
    zsock_t *sub = testutil_cluster_sub (cluster, dealer, "worker.", "gamma");
    int64_t before = zclock_time ();

    kill (cluster->workers [0], SIGKILL);
    assert_true (testutil_wait_exit (cluster->workers [0], 5000) != -1);
    cluster->workers [0] = 0;
    s_await (sub, "worker.lost", "alpha", "silent");
    s_worker_says (cluster, "alpha", " lost ", "silent", NULL);
    const char *json [] = { "workers", "--json", NULL };
    char *table = s_cli (cluster, json);
    s_expect_in (table, "{\"id\":\"alpha\",\"state\":\"lost\",\"since\":\"20");
    s_expect_in (table, "\"why\":\"silent\"");
    //  A gone row has no heartbeat; one up has the one it was told (200,
    //  and lost after 1000 msec of silence: s_flags)
    s_expect_in (table, "\"heartbeat_ms\":0,\"lost_after_ms\":0,\"ahead\":0,\"held\":0}");
    s_expect_in (table, "\"heartbeat_ms\":200,\"lost_after_ms\":1000,\"ahead\":1,\"held\":0}");
    drover_msg_t *list = drover_msg_new (DROVER_MSG_WORKER_LIST);
    drover_msg_t *rows = testutil_request (dealer, &list, 5000);
    assert_non_null (rows);
    bool found = false;
    for (uint32_t index = 0; index < rows->nrows; index++) {
        drover_worker_row_t *row = &rows->worker_rows [index];
        if (!streq (row->id, "alpha"))
            continue;
        found = true;
        assert_int_equal (row->state, DROVER_WORKER_LOST);
        assert_true ((int64_t) row->since >= before && (int64_t) row->since <= zclock_time ());
    }
    assert_true (found);
    drover_msg_destroy (&rows);
    free (table);
    const char *status [] = { "status", NULL };
    s_cli_says (cluster, status, "workers: 2 up (0 busy, 2 idle;", "), 1 lost, 0 left", NULL);

    //  GOODBYE: left
    kill (cluster->workers [1], SIGTERM);
    assert_true (testutil_wait_exit (cluster->workers [1], 5000) != -1);
    cluster->workers [1] = 0;
    s_await (sub, "worker.lost", "beta", "left");
    s_worker_says (cluster, "beta", " left ", NULL);
    const char *status_json [] = { "status", "--json", NULL };
    s_cli_says (cluster, status_json, "\"up\":1,", "\"lost\":1,\"left\":1}", NULL);

    //  alpha comes back: one row for it, up
    testutil_cluster_add_worker (cluster, 0, "alpha", 1, NULL);
    s_await (sub, "worker.up", "alpha", NULL);
    const char *workers [] = { "workers", NULL };
    table = s_cli (cluster, workers);
    char *line = s_worker_line (table, "alpha");
    s_expect_in (line, " up ");
    free (line);
    assert_null (strstr (strstr (table, "alpha") + 1, "alpha"));
    free (table);
    zsock_destroy (&sub);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  Start a broker (s_flags) with worker alpha (1 proc) up: a dealer to it
//  in *dealer_p, a SUB to worker events in *sub_p
static testutil_cluster_t *
s_cluster_with_alpha (zsock_t **dealer_p, zsock_t **sub_p)
{
    testutil_cluster_t *cluster = testutil_cluster_new (s_flags);
    testutil_cluster_add_worker (cluster, 0, "alpha", 1, NULL);
    *dealer_p = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (*dealer_p, 1, 10000));
    *sub_p = testutil_cluster_sub (cluster, *dealer_p, "worker.", "nobody");
    return cluster;
}

//  A hold with a reason holds across the worker's restart (a new epoch)
//  and the broker's (durability on); a worker not connected can be held
static void
test_hold_reason_survives_reconnect_and_restart (void **state)
{
    zsock_t *dealer, *sub;
    testutil_cluster_t *cluster = s_cluster_with_alpha (&dealer, &sub);
    const char *hold [] = { "hold", "alpha", "--reason", "disk swap", NULL };
    s_cli_says (cluster, hold, "alpha: held", NULL);
    s_await (sub, "worker.hold", "alpha", "disk swap");
    const char *early [] = { "hold", "gamma", "-r", "not racked yet", NULL };
    s_cli_says (cluster, early, "gamma: held (not connected: kept for when it joins)", NULL);

    //  The worker restarts once lost: a new epoch, a new registration
    kill (cluster->workers [0], SIGKILL);
    assert_true (testutil_wait_exit (cluster->workers [0], 5000) != -1);
    s_await (sub, "worker.lost", "alpha", "silent");
    testutil_cluster_add_worker (cluster, 0, "alpha", 1, NULL);
    s_await (sub, "worker.up", "alpha", NULL);
    uint64_t task = testutil_submit (dealer, testutil_submit_msg ("true", 0, 1, 0));
    s_worker_says (cluster, "alpha", " up ", " hold ", "held: disk swap", NULL);

    //  The broker restarts on its state: still held, with the reason
    testutil_cluster_kill_restart (cluster, s_flags);
    zsock_destroy (&sub);
    zsock_destroy (&dealer);
    dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 1, 15000));
    const char *json [] = { "workers", "--json", NULL };
    char *table = s_cli (cluster, json);
    s_expect_in (table, "{\"id\":\"alpha\",\"state\":\"up\"");
    s_expect_in (table, "\"admin\":\"hold\",\"admin_reason\":\"disk swap\"");
    free (table);
    //  Held: the task waits; resumed, it runs there
    const char *tasks [] = { "status", NULL };
    s_cli_says (cluster, tasks, "1 queued", NULL);
    const char *resume [] = { "resume", "alpha", NULL };
    s_cli_says (cluster, resume, "alpha: resumed", NULL);
    char worker [DROVER_ID_MAX + 1];
    drover_msg_t *wait = drover_msg_new (DROVER_MSG_TASK_WAIT);
    wait->ntasks = 1;
    wait->tasks = (uint64_t *) zmalloc (sizeof (uint64_t));
    wait->tasks [0] = task;
    drover_msg_t *ok = testutil_request (dealer, &wait, 5000);
    drover_msg_destroy (&ok);
    drover_msg_t *done = testutil_expect_done (dealer, task, DROVER_TASK_SUCCEEDED, 15000);
    snprintf (worker, sizeof worker, "%s", done->worker);
    assert_string_equal (worker, "alpha");
    drover_msg_destroy (&done);
    //  The early hold was kept too
    drover_msg_t *list = drover_msg_new (DROVER_MSG_WORKER_ADMIN);
    strcpy (list->worker, "gamma");
    list->admin = DROVER_ADMIN_RUN;
    drover_msg_t *reply = testutil_request (dealer, &list, 5000);
    assert_int_equal (reply->id, DROVER_MSG_OK);        //  404 if it had been forgotten
    drover_msg_destroy (&reply);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  Drain keeps the worker connected and idle (a task waits), resume gives
//  it work again; drain --exit makes it leave, listed as left
static void
test_drain_without_and_with_exit (void **state)
{
    zsock_t *dealer, *sub;
    testutil_cluster_t *cluster = s_cluster_with_alpha (&dealer, &sub);
    const char *drain [] = { "drain", "alpha", "--reason", "maintenance", NULL };
    s_cli_says (cluster, drain, "alpha: draining", NULL);
    s_await (sub, "worker.drain", "alpha", "maintenance");
    uint64_t task = testutil_submit (dealer, testutil_submit_msg ("true", 0, 1,
                                                                 DROVER_SUBMIT_NOTIFY));
    //  Before, a drained idle worker was told to leave at once
    assert_int_equal (testutil_wait_exit (cluster->workers [0], 2000), -1);
    s_worker_says (cluster, "alpha", " up ", " drained ", "drain: maintenance", NULL);
    const char *status [] = { "status", NULL };
    s_cli_says (cluster, status, "1 draining",
                "procs:   0/0 in use, and 0 on held or draining workers", "1 queued", NULL);
    const char *resume [] = { "resume", "alpha", NULL };
    free (s_cli (cluster, resume));
    drover_msg_t *done = testutil_expect_done (dealer, task, DROVER_TASK_SUCCEEDED, 15000);
    assert_string_equal (done->worker, "alpha");
    drover_msg_destroy (&done);

    const char *leave [] = { "drain", "alpha", "--exit", NULL };
    s_cli_says (cluster, leave, "alpha: draining, then leaving", NULL);
    int exit_status = testutil_wait_exit (cluster->workers [0], 10000);
    assert_true (exit_status != -1 && WIFEXITED (exit_status) && WEXITSTATUS (exit_status) == 0);
    cluster->workers [0] = 0;
    s_await (sub, "worker.lost", "alpha", "left");
    s_worker_says (cluster, "alpha", " left ", "drained, left", NULL);
    zsock_destroy (&sub);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  status on a known cluster: busy workers (running something), not the
//  admin state; procs capacity without the held worker; what runs on a
//  held worker said apart
static void
test_status_numbers (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (s_flags);
    testutil_cluster_add_worker (cluster, 0, "a", 2, NULL);
    testutil_cluster_add_worker (cluster, 1, "b", 2, NULL);
    testutil_cluster_add_worker (cluster, 2, "c", 3, NULL);
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 3, 10000));
    //  c runs a 3-proc task, then is held; a 1-proc task runs on a or b
    uint64_t wide = testutil_submit (dealer, testutil_submit_msg ("sleep 30", 0, 3, 0));
    char worker [DROVER_ID_MAX + 1];
    assert_true (testutil_wait_running (dealer, wide, worker, 10000));
    assert_string_equal (worker, "c");
    assert_int_equal (testutil_admin_with (dealer, "c", DROVER_ADMIN_HOLD, "fan noise", 0),
                      DROVER_CODE_OK);
    uint64_t small = testutil_submit (dealer, testutil_submit_msg ("sleep 30", 0, 1, 0));
    assert_true (testutil_wait_running (dealer, small, worker, 10000));
    assert_true (streq (worker, "a") || streq (worker, "b"));
    const char *status [] = { "status", NULL };
    s_cli_says (cluster, status,
                "workers: 3 up (2 busy, 1 idle; 0 on probation, 0 low on disk, 1 held, "
                "0 draining), 0 lost, 0 left",
                "procs:   1/4 in use, and 3 on held or draining workers", "2 running", NULL);
    const char *json [] = { "status", "--json", NULL };
    s_cli_says (cluster, json,
                "\"workers\":{\"total\":3,\"up\":3,\"busy\":2,\"idle\":1,\"probation\":0,"
                "\"low_disk\":0,\"held\":1,\"draining\":0,\"lost\":0,\"left\":0}",
                "\"procs\":{\"used\":1,\"total\":4,\"used_held_or_draining\":3}",
                "\"running\":2", "\"services\":{\"total\":0,", NULL);
    //  workers: RUNNING is the broker's count, as PROCS
    s_worker_says (cluster, "c", " 3/3 ", "held: fan noise", NULL);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  A small fleet on the defaults: each worker was told 1000 msec and is
//  lost after 5000 msec of silence; drover workers --json and drover show
//  worker say so, show worker --json is the same object, an unknown id
//  fails
static void
test_heartbeat_shown (void **state)
{
    const char *defaults [] = { NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (defaults);
    testutil_cluster_add_worker (cluster, 0, "alpha", 1, NULL);
    testutil_cluster_add_worker (cluster, 1, "beta", 1, NULL);
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 2, 10000));
    const char *json [] = { "workers", "--json", NULL };
    char *table = s_cli (cluster, json);
    const char *alpha = strstr (table, "{\"id\":\"alpha\"");
    const char *beta = strstr (table, "{\"id\":\"beta\"");
    assert_non_null (alpha);
    assert_non_null (beta);
    char *row = strndup (alpha, (size_t) (beta - alpha));
    s_expect_in (row, "\"heartbeat_ms\":1000,\"lost_after_ms\":5000,\"ahead\":1,\"held\":0}");
    s_expect_in (beta, "\"heartbeat_ms\":1000,\"lost_after_ms\":5000,\"ahead\":1,\"held\":0}");
    free (row);
    free (table);
    const char *show [] = { "show", "worker", "alpha", NULL };
    s_cli_says (cluster, show, "worker:       alpha\n", "state:        up\n",
                "heartbeat:    1000 ms\n", "lost after:   5000 ms of silence\n", NULL);
    const char *show_json [] = { "show", "--json", "worker", "beta", NULL };
    s_cli_says (cluster, show_json, "{\"id\":\"beta\",\"state\":\"up\"",
                "\"heartbeat_ms\":1000,\"lost_after_ms\":5000,\"ahead\":1,\"held\":0}\n", NULL);
    //  No such worker: exit status 1, saying so
    char log [] = "/tmp/drover-cli-workers-XXXXXX";
    int fd = mkstemp (log);
    assert_true (fd >= 0);
    close (fd);
    const char *argv [] = { DROVER_BIN, "show", "worker", "nobody", "--broker",
                            cluster->endpoint, NULL };
    pid_t pid = testutil_spawn (argv, log);
    int status = testutil_wait_exit (pid, 10000);
    char *output = testutil_slurp (log);
    unlink (log);
    assert_true (status != -1 && WIFEXITED (status) && WEXITSTATUS (status) == 1);
    s_expect_in (output, "no worker nobody is listed");
    free (output);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_lost_and_left_stay_listed),
        cmocka_unit_test (test_hold_reason_survives_reconnect_and_restart),
        cmocka_unit_test (test_drain_without_and_with_exit),
        cmocka_unit_test (test_status_numbers),
        cmocka_unit_test (test_heartbeat_shown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
