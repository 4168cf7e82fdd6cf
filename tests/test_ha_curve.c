/*  =========================================================================
    test_ha_curve - two brokers with CURVE, each with a key pair of its own,
    electing a leader through a real etcd, their state in a real
    PostgreSQL: `kill -9` the leader while a task runs, and the task ends
    once, through the other broker

    Each broker binds every address (a wildcard) and advertises tcp://127.0.0.1:PORT
    (--advertise). The worker trusts a directory of the brokers' public
    keys and names each broker's in its list (`ENDPOINT=b1,ENDPOINT=b2`).
    `drover status` asks each broker with its own key, given flag by flag;
    `drover events` hears the leader's stream before and after the kill.
    The client (the library, drover_client_set_server_keys) is given only
    the standby's endpoint, paired with its key: the standby redirects it
    to the leader, whose key it takes by the leader's name (b1.key for
    broker b1); it submits there, then waits across the kill. No handshake
    of the worker is refused: no key is tried on a broker it is not for.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include "testutil_ha.h"
#include "drover_client_wire.h"
#include <inttypes.h>
#include <signal.h>
#include <sys/wait.h>

#define S_LEASE_TTL     2000    //  msec, ha/lease-ttl

//  The output of the TASK DONEs the client's wait delivered
typedef struct {
    int dones;                  //  TASK DONEs delivered
    int state;                  //  the last one's state
    char out [64];              //  its stdout
} s_seen_t;

//  Note a TASK DONE the wait delivers
static void
s_on_done (const drover_result_t *result, void *arg)
{
    const drover_msg_t *done = drover_result_msg (result);
    s_seen_t *seen = (s_seen_t *) arg;
    seen->dones++;
    seen->state = done->state;
    snprintf (seen->out, sizeof seen->out, "%.*s", (int) done->out_size,
              done->out? (const char *) done->out: "");
}

//  `drover status` with the brokers' keys given flag by flag: each broker
//  is asked with its own key, and answers
static void
s_check_status (testutil_ha_t *ha, const char *client_key)
{
    char list [256], b1 [128], b2 [128];
    snprintf (list, sizeof list, "%s=b1,%s=b2", ha->endpoints [0], ha->endpoints [1]);
    snprintf (b1, sizeof b1, "%s/b1.key", ha->broker_keys);
    snprintf (b2, sizeof b2, "%s/b2.key", ha->broker_keys);
    const char *argv [] = { DROVER_BIN, "--broker", list, "--key", client_key,
                            "--server-key", b1, "--server-key", b2, "status", NULL };
    testutil_cli_t *run = (testutil_cli_t *) zmalloc (sizeof (testutil_cli_t));
    int status = testutil_run_cli (argv, run->out, sizeof run->out, run->err, sizeof run->err,
                                   20000);
    run->status = status == -1? -1: WIFEXITED (status)? WEXITSTATUS (status): 128;
    testutil_cli_expect (run, 0, run->out, "leader");
    testutil_cli_expect (run, 0, run->out, "standby (leader b");
    if (strstr (run->out, "unreachable") || strstr (run->err, "refused"))
        fail_msg ("a broker was not reached with its key:\n%s\n%s", run->out, run->err);
    free (run);
}

//  The leader dies while a task of a CURVE client runs: the worker and the
//  client find the other broker with its own key, the task ends once
static void
test_failover_with_a_key_pair_per_broker (void **state)
{
    (void) state;
    testutil_ha_t *ha = testutil_ha_new_curve (2, S_LEASE_TTL);
    int leader = testutil_ha_leader (ha, 5000);
    assert_true (leader >= 0);
    int standby = 1 - leader;
    char worker_key [160], client_key [160], admin_key [160];
    snprintf (worker_key, sizeof worker_key, "%s", testutil_ha_add_key (ha, "workers", "w1"));
    snprintf (client_key, sizeof client_key, "%s", testutil_ha_add_key (ha, "clients", "alice"));
    snprintf (admin_key, sizeof admin_key, "%s", testutil_ha_add_key (ha, "admins", "ops"));

    //  The worker: both brokers, each named with its key, the keys a directory
    char list [256];
    snprintf (list, sizeof list, "%s=b1,%s=b2", ha->endpoints [0], ha->endpoints [1]);
    const char *worker_argv [] = { DROVER_BIN, "worker", "--broker", list, "--id", "w1",
                                   "--procs", "2", "--workdir", ha->dir, "--key", worker_key,
                                   "--server-key", ha->broker_keys, "--verbose", NULL };
    ha->workers [0] = testutil_spawn (worker_argv, testutil_ha_log (ha, "w1"));
    assert_true (ha->workers [0] > 0);
    zsock_t *dealer = testutil_ha_dealer (ha, leader);
    assert_true (testutil_wait_workers (dealer, 1, 15000));
    s_check_status (ha, client_key);
    //  The event stream: every broker's publisher, each with its key, and
    //  what the leader keeps from the start (--since 0)
    const char *events_argv [] = { DROVER_BIN, "--broker", list, "--key", admin_key,
                                   "--server-key", ha->broker_keys, "events", "--since", "0",
                                   NULL };
    char events_log [160];
    snprintf (events_log, sizeof events_log, "%s", testutil_ha_log (ha, "events"));
    pid_t events = testutil_spawn (events_argv, events_log);
    assert_true (events > 0);

    //  The client: only the standby, with its key; the leader's is learned
    //  from the standby's REDIRECT, by the leader's name
    char client_list [128];
    snprintf (client_list, sizeof client_list, "%s=b%d", ha->endpoints [standby], standby + 1);
    drover_client_t *client = drover_client_new (client_list);
    assert_non_null (client);
    const char *server_keys [] = { ha->broker_keys };
    if (drover_client_set_server_keys (client, client_key, server_keys, 1))
        fail_msg ("set_server_keys: %s", drover_client_error_text (client));
    const char *script [] = { "sh", "-c", "sleep 4; echo ran-once" };
    drover_submit_t *submit = drover_submit_new (3, script);
    uint64_t task = 0;
    if (drover_client_submit (client, submit, &task))
        fail_msg ("submit: %s", drover_client_error_text (client));
    drover_submit_destroy (&submit);
    assert_string_equal (drover_client_endpoint (client), ha->endpoints [leader]);
    char worker [DROVER_ID_MAX + 1];
    assert_true (testutil_wait_running (dealer, task, worker, 15000));
    zsock_destroy (&dealer);
    if (!testutil_await_line (events_log, "task.running", 10000)) {
        char *log = testutil_slurp (events_log);
        fail_msg ("drover events heard no task.running from the leader:\n%s", log);
    }

    //  kill -9 the leader while the task runs; the client waits on
    pid_t old = ha->brokers [leader];
    assert_int_equal (kill (old, SIGKILL), 0);
    assert_true (testutil_await_gone (old, 5000));
    waitpid (old, NULL, 0);
    ha->brokers [leader] = 0;
    drover_client_set_timeout (client, 20000);
    s_seen_t seen = { 0 };
    if (drover_client_wait (client, &task, 1, s_on_done, NULL, &seen))
        fail_msg ("wait: %s", drover_client_error_text (client));
    assert_int_equal (seen.dones, 1);
    assert_int_equal (seen.state, DROVER_TASK_SUCCEEDED);
    assert_string_equal (seen.out, "ran-once\n");
    assert_string_equal (drover_client_endpoint (client), ha->endpoints [standby]);
    drover_client_destroy (&client);
    //  ... and the new leader's events are heard, with its key
    if (!testutil_await_line (events_log, "task.succeeded", 15000)) {
        char *log = testutil_slurp (events_log);
        fail_msg ("drover events heard no task.succeeded from the new leader:\n%s", log);
    }
    testutil_stop (events, 5000);
    assert_int_equal (testutil_count_lines_with (events_log, "refused"), 0);

    //  Started once (adopted by the new leader, not run again); the worker
    //  registered with the new leader, and no handshake of its was refused
    //  (no key was tried on a broker it is not for)
    char needle [64];
    snprintf (needle, sizeof needle, "starting task=%" PRIu64 " ", task);
    assert_int_equal (testutil_count_lines_with (testutil_ha_log (ha, "w1"), needle), 1);
    dealer = testutil_ha_dealer (ha, standby);
    assert_true (testutil_wait_workers (dealer, 1, 15000));
    zsock_destroy (&dealer);
    if (testutil_count_lines_with (testutil_ha_log (ha, "w1"), "refused this key")) {
        char *log = testutil_slurp (testutil_ha_log (ha, "w1"));
        fail_msg ("the worker's handshake was refused; its log:\n%s", log? log: "");
    }
    testutil_ha_destroy (&ha);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_failover_with_a_key_pair_per_broker),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
