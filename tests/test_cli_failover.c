/*  =========================================================================
    test_cli_failover - what an operator sees of several brokers through
    the real `drover` commands, across a `kill -9` of the leader

    With a real etcd and PostgreSQL (testutil_ha): `drover events` given
    the list of brokers hears the stream of whichever leads and follows
    the leader across the failover, every numbered event printed once, in
    order, none missed (with and without --since); `drover submit` run as
    the new leader takes over does not warn that no worker is connected
    while the workers are reconnecting; a standby stops naming a leader
    whose process is gone, and a worker sent back to where it is does not
    log "moving from X to X"; `drover status` names the leader.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_ha.h"
#include <signal.h>
#include <sys/wait.h>

#define S_LEASE_TTL     2000    //  msec, ha/lease-ttl

//  Start `drover ARGS...` in the background, its stdout and stderr in the
//  log name of the cluster's directory; returns its pid
static pid_t
s_spawn (testutil_ha_t *ha, const char *name, const char *const args [])
{
    const char *argv [24] = { DROVER_BIN };
    int argc = 1;
    for (int index = 0; args [index] && argc < 23; index++)
        argv [argc++] = args [index];
    argv [argc] = NULL;
    pid_t pid = testutil_spawn (argv, testutil_ha_log (ha, name));
    assert_true (pid > 0);
    return pid;
}

//  Kill the leader with SIGKILL and wait until the other broker serves;
//  returns its index
static int
s_kill_leader (testutil_ha_t *ha, int leader)
{
    pid_t old = ha->brokers [leader];
    assert_int_equal (kill (old, SIGKILL), 0);
    assert_true (testutil_await_gone (old, 5000));
    waitpid (old, NULL, 0);
    ha->brokers [leader] = 0;
    int now = testutil_ha_leader (ha, 30000);
    assert_true (now >= 0 && now != leader);
    return now;
}

//  Submit count tasks of `true` on dealer and wait until each succeeded;
//  returns the last one's id
static uint64_t
s_run_tasks (zsock_t *dealer, int count)
{
    uint64_t tasks [8];
    assert_true (count <= 8);
    for (int index = 0; index < count; index++)
        tasks [index] = testutil_submit (dealer, testutil_submit_msg ("true", 0, 1,
                                                                      DROVER_SUBMIT_NOTIFY));
    testutil_expect_all_succeeded (dealer, tasks, count, 15000);
    return tasks [count - 1];
}

//  The line of a task's task.succeeded event
static const char *
s_succeeded (uint64_t task)
{
    static char needle [96];
    snprintf (needle, sizeof needle, "\"topic\":\"task.succeeded\",\"task\":%llu,",
              (unsigned long long) task);
    return needle;
}

//  Check an events log: its numbered events go up by one from the first
//  to the last (none missed, none twice), the first at most first_seq
//  (0: any); return the last seq
static uint64_t
s_check_seqs (testutil_ha_t *ha, const char *name, uint64_t first_seq)
{
    char *text = testutil_slurp (testutil_ha_log (ha, name));
    assert_non_null (text);
    uint64_t first = 0, previous = 0;
    for (char *line = strtok (text, "\n"); line; line = strtok (NULL, "\n")) {
        char *seq = strstr (line, "\"seq\":");
        if (*line != '{' || !seq)
            continue;           //  a message on stderr
        uint64_t value = strtoull (seq + 6, NULL, 10);
        if (value == 0)
            continue;           //  broker.leader, broker.standby
        if (previous && value != previous + 1)
            fail_msg ("%s: seq %llu after %llu (a gap or a duplicate) in:\n%s", name,
                      (unsigned long long) value, (unsigned long long) previous,
                      testutil_slurp (testutil_ha_log (ha, name)));
        if (!first)
            first = value;
        previous = value;
    }
    free (text);
    if (first_seq && first > first_seq)
        fail_msg ("%s starts at seq %llu, after %llu", name, (unsigned long long) first,
                  (unsigned long long) first_seq);
    return previous;
}

//  `drover events` given both brokers hears the leader's stream, and after
//  a kill -9 of the leader the new one's, every numbered event once and
//  in order, with and without --since; what it printed is what the state
//  keeps. Before: it took no list (nor --broker at all) and heard nothing.
static void
test_events_follow_the_leader (void **state)
{
    (void) state;
    testutil_ha_t *ha = testutil_ha_new (2, S_LEASE_TTL, NULL);
    int leader = testutil_ha_leader (ha, 5000);
    assert_true (leader >= 0);
    testutil_ha_add_worker (ha, 0, "w1", 2);
    zsock_t *dealer = testutil_ha_dealer (ha, leader);
    assert_true (testutil_wait_workers (dealer, 1, 15000));
    const char *live [] = { "--broker-timeout", "3", "events", "--broker", ha->endpoint_list,
                            NULL };
    const char *since [] = { "--broker-timeout", "3", "events", "--broker", ha->endpoint_list,
                             "--since", "0", NULL };
    pid_t live_pid = s_spawn (ha, "events-live", live);
    pid_t since_pid = s_spawn (ha, "events-since", since);
    //  Until both hear the stream (a subscription takes a moment)
    int64_t deadline = zclock_mono () + 15000;
    uint64_t task = 0;
    do
        task = s_run_tasks (dealer, 1);
    while (!(testutil_await_line (testutil_ha_log (ha, "events-live"), s_succeeded (task), 300)
          && testutil_await_line (testutil_ha_log (ha, "events-since"), s_succeeded (task), 300))
        && zclock_mono () < deadline);
    task = s_run_tasks (dealer, 3);
    zsock_destroy (&dealer);

    leader = s_kill_leader (ha, leader);
    dealer = testutil_ha_dealer (ha, leader);
    assert_true (testutil_wait_workers (dealer, 1, 15000));
    task = s_run_tasks (dealer, 3);
    bool live_heard = testutil_await_line (testutil_ha_log (ha, "events-live"),
                                           s_succeeded (task), 15000);
    bool since_heard = testutil_await_line (testutil_ha_log (ha, "events-since"),
                                            s_succeeded (task), 15000);
    bool running = waitpid (live_pid, NULL, WNOHANG) == 0 && waitpid (since_pid, NULL, WNOHANG) == 0;
    testutil_stop (live_pid, 2000);
    testutil_stop (since_pid, 2000);
    if (!live_heard || !since_heard || !running)
        fail_msg ("after the failover the events were not heard; live:\n%s\nsince:\n%s",
                  testutil_slurp (testutil_ha_log (ha, "events-live")),
                  testutil_slurp (testutil_ha_log (ha, "events-since")));
    //  The new leader keeps the events of both: each printed once, in order
    drover_msg_t *replay = drover_msg_new (DROVER_MSG_EVENT_REPLAY);
    replay->seq = 99;
    replay->limit = 1;
    drover_msg_t *list = testutil_request (dealer, &replay, 5000);
    assert_non_null (list);
    assert_int_equal (list->id, DROVER_MSG_EVENT_LIST);
    uint64_t oldest = list->nevents? list->events [0].seq: 0;
    uint64_t last = list->last;
    drover_msg_destroy (&list);
    assert_true (oldest > 0);
    uint64_t live_last = s_check_seqs (ha, "events-live", 0);
    uint64_t since_last = s_check_seqs (ha, "events-since", oldest);
    assert_true (live_last <= last && since_last <= last);
    print_message ("events: followed the leader; kept %llu..%llu, printed up to %llu and %llu\n",
                   (unsigned long long) oldest, (unsigned long long) last,
                   (unsigned long long) live_last, (unsigned long long) since_last);
    zsock_destroy (&dealer);
    testutil_ha_destroy (&ha);
}

//  Wait until the broker at dealer holds count tasks queued; false on
//  timeout
static bool
s_await_queued (zsock_t *dealer, uint64_t count, int timeout)
{
    int64_t deadline = zclock_mono () + timeout;
    while (zclock_mono () < deadline) {
        drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_LIST);
        request->state = 255;
        request->limit = 0;
        drover_msg_t *table = testutil_request (dealer, &request, 1000);
        bool there = table && table->id == DROVER_MSG_TASK_TABLE
                  && table->counts [DROVER_TASK_QUEUED] >= count;
        drover_msg_destroy (&table);
        if (there)
            return true;
    }
    return false;
}

//  Wait for a background command to exit; its exit status, failing the
//  test (with its log) if it did not exit 0 in time
static void
s_expect_exit_0 (testutil_ha_t *ha, pid_t pid, const char *name)
{
    int status = testutil_wait_exit (pid, 20000);
    if (status == -1)
        testutil_stop (pid, 1000);
    if (status == -1 || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
        fail_msg ("drover %s ended with status 0x%x:\n%s", name, status,
                  testutil_slurp (testutil_ha_log (ha, name)));
}

//  A submit as the new leader takes over, while its workers are still
//  on their way: no warning that no worker is connected, for a task that
//  runs a moment later. The warning still comes when none could ever run
//  it. (An earlier client said "no worker is connected" at once.)
static void
test_submit_does_not_warn_while_workers_come (void **state)
{
    (void) state;
    testutil_ha_t *ha = testutil_ha_new (2, S_LEASE_TTL, NULL);
    int leader = testutil_ha_leader (ha, 5000);
    assert_true (leader >= 0);
    leader = s_kill_leader (ha, leader);
    zsock_t *dealer = testutil_ha_dealer (ha, leader);
    const char *submit [] = { "submit", "--broker", ha->endpoint_list, "--wait", "--", "true",
                              NULL };
    pid_t pid = s_spawn (ha, "submit", submit);
    //  Accepted, and no worker yet: one comes (as the workers of the old
    //  leader do once they find the new one)
    assert_true (s_await_queued (dealer, 1, 15000));
    const char *worker [] = { "worker", "--broker", ha->endpoints [leader], "--id", "w1",
                              "--procs", "1", "--workdir", ha->dir, NULL };
    ha->workers [0] = s_spawn (ha, "w1", worker);
    s_expect_exit_0 (ha, pid, "submit");
    char *output = testutil_slurp (testutil_ha_log (ha, "submit"));
    if (strstr (output, "cannot run on any connected worker"))
        fail_msg ("submit warned while the worker came:\n%s", output);
    free (output);

    //  A task no worker could ever run (a label none has): still said
    const char *labelled [] = { "submit", "--broker", ha->endpoint_list, "--label", "zone=none",
                                "--", "true", NULL };
    pid = s_spawn (ha, "labelled", labelled);
    s_expect_exit_0 (ha, pid, "labelled");
    assert_true (testutil_await_line (testutil_ha_log (ha, "labelled"),
                                      "cannot run on any connected worker: no worker has label "
                                      "zone=none", 0));
    zsock_destroy (&dealer);
    testutil_ha_destroy (&ha);
}

//  The leader killed: its standby stops naming it once its endpoint
//  refuses connections, well before the lease ends (before: it named the
//  dead leader until it was elected itself); a worker that finds itself
//  sent back to where it is says so once, and does not log "moving from
//  X to X" at every REDIRECT
static void
test_standby_stops_naming_a_dead_leader (void **state)
{
    (void) state;
    testutil_ha_t *ha = testutil_ha_new (2, 4000, NULL);
    int leader = testutil_ha_leader (ha, 5000);
    assert_true (leader >= 0);
    int standby = 1 - leader;
    testutil_ha_add_worker (ha, 0, "w1", 1);
    zsock_t *dealer = testutil_ha_dealer (ha, leader);
    assert_true (testutil_wait_workers (dealer, 1, 15000));
    zsock_destroy (&dealer);

    pid_t old = ha->brokers [leader];
    assert_int_equal (kill (old, SIGKILL), 0);
    assert_true (testutil_await_gone (old, 5000));
    waitpid (old, NULL, 0);
    ha->brokers [leader] = 0;
    //  Ask the standby until it serves: what do its REDIRECTs name?
    dealer = testutil_ha_dealer (ha, standby);
    int named_dead = 0, named_none = 0, named_dead_after = 0;
    bool serves = false;
    int64_t deadline = zclock_mono () + 30000;
    for (uint32_t seq = 1; !serves && zclock_mono () < deadline; seq++) {
        drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_LIST);
        request->seq = seq;
        request->state = 255;
        request->limit = 0;
        drover_msg_t *reply = testutil_request (dealer, &request, 2000);
        assert_non_null (reply);
        if (reply->id == DROVER_MSG_REDIRECT) {
            bool dead = streq (reply->leader, ha->endpoints [leader]);
            named_dead += dead;
            named_none += !*reply->leader;
            named_dead_after += dead && named_none;
        }
        else
            serves = true;
        drover_msg_destroy (&reply);
        zclock_sleep (20);      //  paces the questions while it stands by
    }
    print_message ("standby: %d REDIRECTs named the dead leader, %d none, then it served\n",
                   named_dead, named_none);
    assert_true (serves);
    assert_true (named_none > 0);       //  before the fix: 0
    assert_int_equal (named_dead_after, 0);
    assert_true (testutil_wait_workers (dealer, 1, 15000));
    //  The worker was sent back where it was: said at most once a failover
    char needle [160];
    snprintf (needle, sizeof needle, "moving from broker=%s to broker=%s ",
              ha->endpoints [standby], ha->endpoints [standby]);
    const char *log = testutil_ha_log (ha, "w1");
    if (testutil_count_lines_with (log, needle))
        fail_msg ("the worker logged '%s':\n%s", needle, testutil_slurp (log));
    assert_true (testutil_count_lines_with (log, "asking it again") <= 2);
    zsock_destroy (&dealer);
    testutil_ha_destroy (&ha);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_events_follow_the_leader),
        cmocka_unit_test (test_submit_does_not_warn_while_workers_come),
        cmocka_unit_test (test_standby_stops_naming_a_dead_leader),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
