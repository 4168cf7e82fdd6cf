/*  =========================================================================
    test_pool_local - the elastic pool with the local driver, through real
    processes: a broker with no workers grows a pool of `drover worker`
    processes for the tasks that wait (never past max-instances), every
    task succeeds, idle instances are destroyed after the idle timeout
    and the pool ends at its minimum; a task no instance type fits is not
    started and explained so
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include "drover_event.h"

#define S_TASKS         30
#define S_MAX           3

//  The broker's pool: one type of 2 procs, 3 instances at most, none kept
static const char *s_flags [] = {
    "--set", "pool/max-instances=3",
    "--set", "pool/min-instances=0",
    "--set", "pool/idle-timeout=2000",
    "--set", "pool/type/small/procs=2",
    "--set", "pool/type/small/memory=1G",
    "--set", "pool/type/small/price=0.10",
    NULL
};

//  What the event stream told of the pool
typedef struct {
    int live;                   //  instances booting or up now
    int most;                   //  the most live at once
    int booted;                 //  pool.booting heard
    int up;                     //  pool.up heard
    int probed;                 //  of which after a passed boot probe (the local driver's)
    int shutdown_idle;          //  pool.shutdown for the idle timeout
    int shutdown_surplus;       //  pool.shutdown of a booting one no task needs any more
    int gone;                   //  pool.gone heard
} s_seen_t;

//  Count one event of the pool
static void
s_count (s_seen_t *seen, const drover_event_t *event)
{
    if (streq (event->topic, "pool.booting")) {
        seen->booted++;
        seen->live++;
        if (seen->live > seen->most)
            seen->most = seen->live;
        assert_true (seen->live <= S_MAX);
        assert_non_null (strstr (event->worker, "POOL-"));
        assert_non_null (strstr (event->reason, "small"));
    }
    else
    if (streq (event->topic, "pool.up")) {
        seen->up++;
        seen->probed += strstr (event->reason, "probe passed") != NULL;
    }
    else
    if (streq (event->topic, "pool.shutdown") && strstr (event->reason, "idle"))
        seen->shutdown_idle++;
    else
    if (streq (event->topic, "pool.shutdown") && strstr (event->reason, "surplus"))
        seen->shutdown_surplus++;
    else
    if (streq (event->topic, "pool.probe"))
        fail_msg ("a probe failed: %s %s", event->worker, event->reason);
    else
    if (streq (event->topic, "pool.gone")) {
        seen->gone++;
        seen->live--;
    }
    else
    if (streq (event->topic, "pool.warning"))
        fail_msg ("pool warned: %s %s", event->worker, event->reason);
}

static void
test_pool_grows_runs_every_task_and_shrinks_to_minimum (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (s_flags);
    zsock_t *dealer = testutil_dealer (cluster);
    zsock_t *sub = testutil_cluster_sub (cluster, dealer, "", "nobody");
    //  No worker at start
    pid_t pids [64];
    assert_int_equal (testutil_worker_pids (cluster->endpoint, pids, 64), 0);

    uint64_t tasks [S_TASKS];
    for (int index = 0; index < S_TASKS; index++)
        tasks [index] = testutil_submit (dealer, testutil_submit_msg ("sleep 0.2", 0, 1,
                                                                      DROVER_SUBMIT_NOTIFY));
    //  Watch both: the tasks end, the pool grows (never past 3) and shrinks
    s_seen_t seen = { 0 };
    int succeeded = 0;
    zpoller_t *poller = zpoller_new (dealer, sub, NULL);
    int64_t deadline = zclock_mono () + 90000;
    while (zclock_mono () < deadline
       &&  (succeeded < S_TASKS || seen.booted == 0 || seen.live > 0)) {
        void *which = zpoller_wait (poller, 1000);
        if (which == dealer) {
            drover_msg_t *msg = testutil_recv_msg (dealer, 0);
            if (!msg)
                continue;
            assert_int_equal (msg->id, DROVER_MSG_TASK_DONE);
            if (msg->state != DROVER_TASK_SUCCEEDED)
                fail_msg ("task %" PRIu64 " ended %s on %s: %s", msg->task,
                          drover_task_state_name (msg->state), msg->worker,
                          msg->reason? msg->reason: "");
            assert_non_null (strstr (msg->worker, "POOL-"));
            succeeded++;
            drover_msg_destroy (&msg);
        }
        else
        if (which == sub) {
            drover_event_t event;
            if (testutil_next_event (sub, &event, 0))
                s_count (&seen, &event);
        }
    }
    zpoller_destroy (&poller);
    if (succeeded < S_TASKS || seen.live)
        fail_msg ("after 90 s: %d of %d tasks succeeded, %d instances live (booted %d, gone %d)",
                  succeeded, S_TASKS, seen.live, seen.booted, seen.gone);
    (void) tasks;
    //  It grew to its maximum (15 instances' worth of tasks waited), never past
    assert_int_equal (seen.most, S_MAX);
    assert_true (seen.up >= seen.booted - seen.shutdown_surplus);
    //  Each one up was probed first (pool/probe auto: the local driver's check)
    assert_true (seen.up > 0);
    assert_int_equal (seen.probed, seen.up);
    //  Each instance was destroyed for being idle (or, booting when the
    //  last tasks were placed, as surplus), none for anything else
    assert_int_equal (seen.shutdown_idle + seen.shutdown_surplus, seen.booted);
    assert_int_equal (seen.gone, seen.booted);
    //  POOL LIST says the same: a pool, at its minimum, no instance left
    drover_msg_t *list = drover_msg_new (DROVER_MSG_POOL_LIST);
    list->seq = 77;
    drover_msg_t *table = testutil_request (dealer, &list, 5000);
    assert_non_null (table);
    assert_int_equal (table->id, DROVER_MSG_POOL_TABLE);
    assert_int_equal (table->pool.enabled, 1);
    assert_int_equal (table->pool.max_instances, S_MAX);
    assert_int_equal (table->nrows, 0);
    drover_msg_destroy (&table);
    //  Their worker processes ended
    size_t count = testutil_worker_pids (cluster->endpoint, pids, 64);
    for (size_t index = 0; index < count; index++)
        assert_true (testutil_await_gone (pids [index], 10000));

    zsock_destroy (&sub);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  A task no instance type fits (more procs than any): no instance is
//  started for it, and explain says so
static void
test_task_no_type_fits_is_explained_not_started (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (s_flags);
    zsock_t *dealer = testutil_dealer (cluster);
    zsock_t *sub = testutil_cluster_sub (cluster, dealer, "", "nobody");
    uint64_t task = testutil_submit (dealer, testutil_submit_msg ("true", 0, 8, 0));
    char id [32];
    snprintf (id, sizeof id, "%" PRIu64, task);
    const char *argv [] = { DROVER_BIN, "explain", "--broker", cluster->endpoint, id, NULL };
    char output [4096], errors [1024];
    int status = testutil_run_cli (argv, output, sizeof output, errors, sizeof errors, 10000);
    assert_true (WIFEXITED (status));
    if (!strstr (output, "no instance type fits"))
        fail_msg ("drover explain said: %s%s", output, errors);
    //  The pool warns of it (its plan has seen the task), and starts
    //  nothing for it while it plans again: it plans after every turn, and
    //  answers a POOL LIST before that turn's plan, so each table after the
    //  first shows what the plans before it started (the barrier: nothing)
    drover_event_t event;
    assert_true (testutil_await_event (sub, "pool.warning", "", &event, 5000));
    assert_non_null (strstr (event.reason, "no instance type fits 8 procs"));
    for (int round = 0; round < 3; round++) {
        drover_msg_t *list = drover_msg_new (DROVER_MSG_POOL_LIST);
        list->seq = 100 + (uint32_t) round;
        drover_msg_t *table = testutil_request (dealer, &list, 5000);
        assert_non_null (table);
        assert_int_equal (table->id, DROVER_MSG_POOL_TABLE);
        if (table->nrows || table->pool.live || table->pool.failures)
            fail_msg ("the pool started %u instance%s (%u live, %u failures) for a task no "
                      "type fits", table->nrows, table->nrows == 1? "": "s", table->pool.live,
                      table->pool.failures);
        drover_msg_destroy (&table);
    }
    while (testutil_next_event (sub, &event, 0))
        if (strncmp (event.topic, "pool.", 5) == 0 && !streq (event.topic, "pool.warning"))
            fail_msg ("the pool said %s %s for a task no type fits", event.topic, event.worker);
    pid_t pids [8];
    assert_int_equal (testutil_worker_pids (cluster->endpoint, pids, 8), 0);
    zsock_destroy (&sub);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  A driver that cannot be made (a local directory that cannot be
//  made) stops the broker at start, saying why
static void
test_driver_not_made_stops_broker (void **state)
{
    char log [] = "/tmp/drover-pool-start-XXXXXX";
    int fd = mkstemp (log);
    assert_true (fd >= 0);
    close (fd);
    char endpoint [64], events [64];
    snprintf (endpoint, sizeof endpoint, "tcp://127.0.0.1:%d", testutil_free_port ());
    snprintf (events, sizeof events, "tcp://127.0.0.1:%d", testutil_free_port ());
    const char *argv [] = { DROVER_BIN, "broker", "--endpoint", endpoint, "--events", events,
                            "--durability", "off", "--set", "pool/type/small/procs=2",
                            "--set", "pool/local-dir=/proc/no/such/dir", NULL };
    pid_t pid = testutil_spawn (argv, log);
    int status = testutil_wait_exit (pid, 10000);
    if (status == -1)
        testutil_stop (pid, 100);
    char *output = testutil_slurp (log);
    assert_true (status != -1 && WIFEXITED (status) && WEXITSTATUS (status) != 0);
    assert_non_null (output);
    if (!strstr (output, "cannot start: pool/driver") || !strstr (output, "/proc/no/such/dir"))
        fail_msg ("the broker said: %s", output);
    free (output);
    unlink (log);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_pool_grows_runs_every_task_and_shrinks_to_minimum),
        cmocka_unit_test (test_task_no_type_fits_is_explained_not_started),
        cmocka_unit_test (test_driver_not_made_stops_broker),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
