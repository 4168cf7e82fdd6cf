/*  =========================================================================
    test_heartbeat_repace - a worker registered when the fleet was small is
    told the fleet's interval again as it grows or shrinks (level 8), so
    the broker hears about health/heartbeat-rate heartbeats a second
    whatever order its workers came in; counted at the wire:
    - played workers (health/heartbeat 100 ms, heartbeat-rate 10/s: the
      fleet's interval is 100 ms a worker): the first of three, told
      100 ms, heartbeats and gets an unasked WELCOME (seq 0) of 300 ms;
      a level-7 worker told 200 ms gets nothing (it could not read it);
      once the others leave, the first gets 100 ms back;
    - a real agent registered first takes the new interval (its log says
      so), `drover workers --json` shows it, and it is not declared LOST.
    =========================================================================
*/

#include "testutil_cluster.h"
#include "testutil_peer.h"

//  Send a played worker's HEARTBEAT at level
static void
s_heartbeat (zsock_t *worker, const char *id, int level)
{
    drover_msg_t *heartbeat = testutil_played_msg (id, 2, DROVER_MSG_WORKER_HEARTBEAT, 0, 0);
    testutil_peer_send_at (worker, &heartbeat, level);
}

//  Say a played worker's GOODBYE at level
static void
s_goodbye (zsock_t *worker, const char *id, int level)
{
    drover_msg_t *goodbye = testutil_played_msg (id, 2, DROVER_MSG_WORKER_GOODBYE, 0, 0);
    testutil_peer_send_at (worker, &goodbye, level);
}

//  Register a played worker of level and return its DEALER; asserts the
//  interval its WELCOME told
static zsock_t *
s_register (testutil_cluster_t *cluster, const char *id, int level, uint32_t heartbeat)
{
    drover_msg_t *welcome = NULL;
    zsock_t *worker = testutil_peer_worker (cluster->endpoint, id, level, "", &welcome);
    assert_int_equal (welcome->heartbeat, heartbeat);
    drover_msg_destroy (&welcome);
    return worker;
}

//  A broker whose fleet interval is 100 ms a worker, metrics on port
static testutil_cluster_t *
s_cluster (int metrics_port)
{
    char address [64];
    snprintf (address, sizeof address, "127.0.0.1:%d", metrics_port);
    const char *flags [] = { "--set", "health/heartbeat=100", "--set", "health/heartbeat-rate=10",
                             "--set", "health/lost-after=60000", "--set",
                             "health/stats-period=100", "--metrics", address, NULL };
    return testutil_cluster_new (flags);
}

//  Played workers: the first is told the grown fleet's interval, then the
//  shrunk one's; a level-7 worker is told nothing
static void
test_played_workers_repaced (void **state)
{
    (void) state;
    int metrics = testutil_free_port ();
    testutil_cluster_t *cluster = s_cluster (metrics);
    zsock_t *first = s_register (cluster, "first", DROVER_MSG_LEVEL, 100);
    zsock_t *elder = s_register (cluster, "elder", 7, 200);
    zsock_t *third = s_register (cluster, "third", DROVER_MSG_LEVEL, 300);

    //  The level-7 worker, told 200 where the fleet now says 300, is
    //  heard and left alone
    s_heartbeat (elder, "elder", 7);
    assert_true (testutil_await_metric (metrics, "drover_heartbeats_total", 1, true, 10000));
    assert_int_equal (testutil_metric (metrics, "drover_workers_repaced_total"), 0);

    //  The first, told 100, is told 300 in answer to its heartbeat
    s_heartbeat (first, "first", DROVER_MSG_LEVEL);
    drover_msg_t *welcome = testutil_peer_expect_at (first, DROVER_MSG_WORKER_WELCOME,
                                                     DROVER_MSG_LEVEL);
    assert_int_equal (welcome->seq, 0);
    assert_int_equal (welcome->heartbeat, 300);
    drover_msg_destroy (&welcome);
    assert_true (testutil_await_metric (metrics, "drover_workers_repaced_total", 1, true, 10000));
    //  Told once: its next heartbeat changes nothing
    s_heartbeat (first, "first", DROVER_MSG_LEVEL);
    assert_true (testutil_await_metric (metrics, "drover_heartbeats_total", 3, true, 10000));
    assert_int_equal (testutil_metric (metrics, "drover_workers_repaced_total"), 1);

    //  The others leave: alone, it is told 100 again
    s_goodbye (elder, "elder", 7);
    s_goodbye (third, "third", DROVER_MSG_LEVEL);
    assert_true (testutil_await_metric (metrics, "drover_workers{health=\"ok\"}", 1, true,
                                        10000));
    s_heartbeat (first, "first", DROVER_MSG_LEVEL);
    welcome = testutil_peer_expect_at (first, DROVER_MSG_WORKER_WELCOME, DROVER_MSG_LEVEL);
    assert_int_equal (welcome->seq, 0);
    assert_int_equal (welcome->heartbeat, 100);
    drover_msg_destroy (&welcome);
    assert_true (testutil_await_metric (metrics, "drover_workers_repaced_total", 2, true, 10000));

    zsock_destroy (&first);
    zsock_destroy (&elder);
    zsock_destroy (&third);
    testutil_cluster_destroy (&cluster);
}

//  A real agent registered first takes the grown fleet's interval and
//  stays registered
static void
test_agent_takes_new_interval (void **state)
{
    (void) state;
    int metrics = testutil_free_port ();
    testutil_cluster_t *cluster = s_cluster (metrics);
    testutil_cluster_add_worker (cluster, 0, "agent", 1, NULL);
    const char *log = testutil_cluster_log (cluster, "agent");
    assert_true (testutil_await_line (log, "heartbeat=100", 10000));
    zsock_t *second = s_register (cluster, "second", DROVER_MSG_LEVEL, 200);
    zsock_t *third = s_register (cluster, "third", DROVER_MSG_LEVEL, 300);
    //  It heartbeats every 100 ms: its next one brings the fleet's 300
    assert_true (testutil_await_line (log, "worker: heartbeat every 300 ms, not 100", 10000));
    const char *args [] = { "workers", "--json", NULL };
    testutil_cli_t *run = (testutil_cli_t *) zmalloc (sizeof (testutil_cli_t));
    testutil_cli (cluster->endpoint, args, run);
    testutil_cli_expect (run, 0, run->out, "\"id\":\"agent\"");
    testutil_assert_json (run->out);
    const char *agent = strstr (run->out, "\"id\":\"agent\"");
    const char *next = strstr (agent + 1, "{\"id\":");
    const char *interval = strstr (agent, "\"heartbeat_ms\":300");
    assert_true (interval && (!next || interval < next));
    free (run);
    //  Heard at its new pace: never LOST
    assert_true (testutil_await_metric (metrics, "drover_workers_repaced_total", 1, false, 10000));
    assert_int_equal (testutil_metric (metrics, "drover_workers_lost_total"), 0);
    zsock_destroy (&second);
    zsock_destroy (&third);
    testutil_cluster_destroy (&cluster);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_played_workers_repaced),
        cmocka_unit_test (test_agent_takes_new_interval),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
