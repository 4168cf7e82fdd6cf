/*  =========================================================================
    test_drover_metrics - a snapshot of the broker's numbers written for
    Prometheus (the exposition text, exact) and for the log; histograms;
    label values escaped; answers packed, merged, and refused when broken
    =========================================================================
*/

#include "testutil.h"
#include "drover_metrics.h"

//  A known snapshot is written exactly: HELP and TYPE once per family,
//  only the series set, histograms cumulated in seconds, the info series
static void
test_exposition_exact (void **state)
{
    drover_metrics_t *set = drover_metrics_new ();
    drover_metrics_set (set, DROVER_METRIC_WORKERS_OK, 3);
    drover_metrics_set (set, DROVER_METRIC_WORKERS_PROBATION, 1);
    drover_metrics_set (set, DROVER_METRIC_SUBMITTED, 12);
    drover_metrics_set (set, DROVER_METRIC_ENDED_TIMED_OUT, 2);
    drover_metrics_set (set, DROVER_METRIC_MEMORY_USED, 1073741824);
    drover_histogram_t run;
    memset (&run, 0, sizeof run);
    drover_histogram_observe (&run, 3);         //  <= 0.005 s
    drover_histogram_observe (&run, 1500);      //  <= 2.5 s
    drover_histogram_observe (&run, 7200000);   //  past the last bound: +Inf only
    drover_metrics_set_histogram (set, DROVER_HISTOGRAM_RUN, &run);
    drover_metrics_set_info (set, "0.1.0", "tcp://127.0.0.1:5555");
    char *text = drover_metrics_exposition (set);
    const char *expected =
        "# HELP drover_workers Workers by health (lost: declared lost and not registered again since)\n"
        "# TYPE drover_workers gauge\n"
        "drover_workers{health=\"ok\"} 3\n"
        "drover_workers{health=\"probation\"} 1\n"
        "# HELP drover_memory_used_bytes Memory taken by tasks assigned to connected workers\n"
        "# TYPE drover_memory_used_bytes gauge\n"
        "drover_memory_used_bytes 1073741824\n"
        "# HELP drover_tasks_submitted_total Tasks accepted\n"
        "# TYPE drover_tasks_submitted_total counter\n"
        "drover_tasks_submitted_total 12\n"
        "# HELP drover_tasks_ended_total Tasks that reached a final state, by how they ended\n"
        "# TYPE drover_tasks_ended_total counter\n"
        "drover_tasks_ended_total{end=\"timed_out\"} 2\n"
        "# HELP drover_task_run_seconds Time a task's last attempt ran, from its start on a worker to the task's end\n"
        "# TYPE drover_task_run_seconds histogram\n"
        "drover_task_run_seconds_bucket{le=\"0.005\"} 1\n"
        "drover_task_run_seconds_bucket{le=\"0.01\"} 1\n"
        "drover_task_run_seconds_bucket{le=\"0.025\"} 1\n"
        "drover_task_run_seconds_bucket{le=\"0.05\"} 1\n"
        "drover_task_run_seconds_bucket{le=\"0.1\"} 1\n"
        "drover_task_run_seconds_bucket{le=\"0.25\"} 1\n"
        "drover_task_run_seconds_bucket{le=\"0.5\"} 1\n"
        "drover_task_run_seconds_bucket{le=\"1\"} 1\n"
        "drover_task_run_seconds_bucket{le=\"2.5\"} 2\n"
        "drover_task_run_seconds_bucket{le=\"5\"} 2\n"
        "drover_task_run_seconds_bucket{le=\"10\"} 2\n"
        "drover_task_run_seconds_bucket{le=\"30\"} 2\n"
        "drover_task_run_seconds_bucket{le=\"60\"} 2\n"
        "drover_task_run_seconds_bucket{le=\"300\"} 2\n"
        "drover_task_run_seconds_bucket{le=\"900\"} 2\n"
        "drover_task_run_seconds_bucket{le=\"3600\"} 2\n"
        "drover_task_run_seconds_bucket{le=\"+Inf\"} 3\n"
        "drover_task_run_seconds_sum 7201.503\n"
        "drover_task_run_seconds_count 3\n"
        "# HELP drover_broker_info The broker's version and ROUTER endpoint\n"
        "# TYPE drover_broker_info gauge\n"
        "drover_broker_info{version=\"0.1.0\",endpoint=\"tcp://127.0.0.1:5555\"} 1\n";
    assert_string_equal (text, expected);
    zstr_free (&text);

    //  Nothing set: nothing written, not even a HELP
    drover_metrics_reset (set);
    drover_metrics_set_info (set, "0.1.0", "x");
    text = drover_metrics_exposition (set);
    assert_null (strstr (text, "drover_workers"));
    assert_null (strstr (text, "_seconds"));
    zstr_free (&text);
    drover_metrics_destroy (&set);
    assert_null (set);
    drover_metrics_destroy (&set);            //  harmless twice
}

//  A label value holding a backslash, a double quote or a newline is
//  escaped as the format says; nothing else is touched
static void
test_label_values_escaped (void **state)
{
    char *escaped = drover_metrics_escape ("a\\b\"c\nd e=f,g}");
    assert_string_equal (escaped, "a\\\\b\\\"c\\nd e=f,g}");
    zstr_free (&escaped);
    escaped = drover_metrics_escape ("");
    assert_string_equal (escaped, "");
    zstr_free (&escaped);

    drover_metrics_t *set = drover_metrics_new ();
    drover_metrics_set_info (set, "1\"2", "ipc:///tmp/a\\b\nc");
    char *text = drover_metrics_exposition (set);
    assert_non_null (strstr (text, "drover_broker_info{version=\"1\\\"2\","
                                   "endpoint=\"ipc:///tmp/a\\\\b\\nc\"} 1\n"));
    zstr_free (&text);
    drover_metrics_destroy (&set);
}

//  An actor's answer, packed, merges into the round's snapshot: what it
//  set, over what others set; a frame that is not one is refused
static void
test_pack_and_merge (void **state)
{
    drover_metrics_t *round = drover_metrics_new ();
    drover_metrics_set (round, DROVER_METRIC_PROBATIONS, 4);
    drover_metrics_t *answer = drover_metrics_new ();
    drover_metrics_set (answer, DROVER_METRIC_TASKS_QUEUED, 7);
    drover_metrics_set (answer, DROVER_METRIC_TASKS_RUNNING, 0);
    drover_histogram_t wait;
    memset (&wait, 0, sizeof wait);
    drover_histogram_observe (&wait, -5);       //  a clock step back counts as 0
    drover_metrics_set_histogram (answer, DROVER_HISTOGRAM_QUEUE_WAIT, &wait);
    zframe_t *packed = drover_metrics_pack (answer);
    assert_int_equal (drover_metrics_merge (round, packed), 0);
    zframe_destroy (&packed);
    assert_int_equal (drover_metrics_get (round, DROVER_METRIC_PROBATIONS), 4);
    assert_int_equal (drover_metrics_get (round, DROVER_METRIC_TASKS_QUEUED), 7);
    assert_true (drover_metrics_has (round, DROVER_METRIC_TASKS_RUNNING));
    assert_false (drover_metrics_has (round, DROVER_METRIC_TASKS_ASSIGNED));
    char *text = drover_metrics_exposition (round);
    assert_non_null (strstr (text, "drover_task_queue_wait_seconds_bucket{le=\"0.005\"} 1\n"));
    assert_non_null (strstr (text, "drover_task_queue_wait_seconds_sum 0\n"));
    assert_null (strstr (text, "drover_task_run_seconds"));
    zstr_free (&text);

    zframe_t *broken = zframe_new ("nope", 4);
    assert_int_equal (drover_metrics_merge (round, broken), -1);
    zframe_destroy (&broken);
    assert_int_equal (drover_metrics_merge (round, NULL), -1);
    drover_metrics_destroy (&answer);
    drover_metrics_destroy (&round);
}

//  The status line: pending, running (assigned and running), workers,
//  probation, lost...; "?" for what no actor answered
static void
test_status_line (void **state)
{
    drover_metrics_t *set = drover_metrics_new ();
    drover_metrics_set (set, DROVER_METRIC_TASKS_QUEUED, 5);
    drover_metrics_set (set, DROVER_METRIC_TASKS_ASSIGNED, 1);
    drover_metrics_set (set, DROVER_METRIC_TASKS_RUNNING, 2);
    drover_metrics_set (set, DROVER_METRIC_WORKERS_OK, 2);
    drover_metrics_set (set, DROVER_METRIC_WORKERS_PROBATION, 1);
    drover_metrics_set (set, DROVER_METRIC_WORKERS_LOW_DISK, 0);
    drover_metrics_set (set, DROVER_METRIC_WORKERS_LOST, 4);
    drover_metrics_set (set, DROVER_METRIC_ADMIN_HOLD, 1);
    drover_metrics_set (set, DROVER_METRIC_ADMIN_DRAIN, 0);
    drover_metrics_set (set, DROVER_METRIC_PROCS, 12);
    char *line = drover_metrics_status (set);
    assert_string_equal (line, "pending=5 running=3 workers=3 probation=1 low_disk=0 lost=4 "
                               "held=1 draining=0 procs_used=? procs=12");
    zstr_free (&line);
    drover_metrics_destroy (&set);
}

//  The error codes the main answers map to their series, others to none
//  The pool's gauges: instances by state, the price per hour written as
//  units from its thousandths
static void
test_pool_gauges (void **state)
{
    drover_metrics_t *set = drover_metrics_new ();
    drover_metrics_set (set, DROVER_METRIC_POOL_IDLE, 2);
    drover_metrics_set (set, DROVER_METRIC_POOL_BOOTING, 1);
    drover_metrics_set (set, DROVER_METRIC_POOL_PRICE, 1250);
    drover_metrics_set (set, DROVER_METRIC_POOL_CREATES, 4);
    char *text = drover_metrics_exposition (set);
    assert_non_null (strstr (text, "# TYPE drover_pool_instances gauge\n"));
    assert_non_null (strstr (text, "drover_pool_instances{state=\"booting\"} 1\n"));
    assert_non_null (strstr (text, "drover_pool_instances{state=\"idle\"} 2\n"));
    assert_non_null (strstr (text, "drover_pool_price_per_hour 1.25\n"));
    assert_non_null (strstr (text, "# TYPE drover_pool_creates_total counter\n"));
    assert_non_null (strstr (text, "drover_pool_creates_total 4\n"));
    zstr_free (&text);
    drover_metrics_destroy (&set);
}

static void
test_bad_codes (void **state)
{
    assert_int_equal (drover_metrics_bad_code (400), DROVER_METRIC_BAD_400);
    assert_int_equal (drover_metrics_bad_code (415), DROVER_METRIC_BAD_415);
    assert_int_equal (drover_metrics_bad_code (426), DROVER_METRIC_BAD_426);
    assert_int_equal (drover_metrics_bad_code (302), DROVER_METRIC_BAD_302);
    assert_int_equal (drover_metrics_bad_code (200), -1);
    assert_int_equal (drover_metrics_bad_code (409), -1);
}

//  The reconciler's series: services by state, replicas, counters, the
//  last term's length in seconds, and the restarts written as a histogram
//  with log-scale bounds (0, 1, 3 ... 63, +Inf), its sum and count
static void
test_service_series_exact (void **state)
{
    drover_metrics_t *set = drover_metrics_new ();
    drover_metrics_set (set, DROVER_METRIC_SERVICES_OK, 2);
    drover_metrics_set (set, DROVER_METRIC_SERVICES_CRASHING, 1);
    drover_metrics_set (set, DROVER_METRIC_SERVICE_REPLICAS_WANTED, 7);
    drover_metrics_set (set, DROVER_METRIC_SERVICE_MOVED, 3);
    drover_metrics_set (set, DROVER_METRIC_SERVICE_TERM_SECONDS, 1250);
    drover_metrics_set (set, DROVER_METRIC_SERVICE_RESTARTS_0, 5);        //  0 restarts
    drover_metrics_set (set, DROVER_METRIC_SERVICE_RESTARTS_0 + 2, 1);    //  2-3
    drover_metrics_set (set, DROVER_METRIC_SERVICE_RESTARTS_LAST, 1);     //  64 or more
    drover_metrics_set (set, DROVER_METRIC_SERVICE_RESTARTS_SUM, 70);
    char *text = drover_metrics_exposition (set);
    const char *expected =
        "# HELP drover_services Services by state (lost: none of its replicas runs; crashing: its replicas keep exiting quickly)\n"
        "# TYPE drover_services gauge\n"
        "drover_services{state=\"ok\"} 2\n"
        "drover_services{state=\"crashing\"} 1\n"
        "# HELP drover_service_replicas Replicas of services: wanted (over all services), running, pending (started, not running yet)\n"
        "# TYPE drover_service_replicas gauge\n"
        "drover_service_replicas{state=\"wanted\"} 7\n"
        "# HELP drover_service_replicas_moved_total Replicas the reconciler moved to another worker (a drain, spread)\n"
        "# TYPE drover_service_replicas_moved_total counter\n"
        "drover_service_replicas_moved_total 3\n"
        "# HELP drover_service_term_seconds How long the last term took, gather included\n"
        "# TYPE drover_service_term_seconds gauge\n"
        "drover_service_term_seconds 1.25\n"
        "# HELP drover_service_replica_restarts Replica slots of services by how many times each restarted, at the last term\n"
        "# TYPE drover_service_replica_restarts histogram\n"
        "drover_service_replica_restarts_bucket{le=\"0\"} 5\n"
        "drover_service_replica_restarts_bucket{le=\"1\"} 5\n"
        "drover_service_replica_restarts_bucket{le=\"3\"} 6\n"
        "drover_service_replica_restarts_bucket{le=\"7\"} 6\n"
        "drover_service_replica_restarts_bucket{le=\"15\"} 6\n"
        "drover_service_replica_restarts_bucket{le=\"31\"} 6\n"
        "drover_service_replica_restarts_bucket{le=\"63\"} 6\n"
        "drover_service_replica_restarts_bucket{le=\"+Inf\"} 7\n"
        "drover_service_replica_restarts_sum 70\n"
        "drover_service_replica_restarts_count 7\n";
    assert_string_equal (text, expected);
    zstr_free (&text);
    drover_metrics_destroy (&set);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_exposition_exact),
        cmocka_unit_test (test_service_series_exact),
        cmocka_unit_test (test_label_values_escaped),
        cmocka_unit_test (test_pack_and_merge),
        cmocka_unit_test (test_status_line),
        cmocka_unit_test (test_bad_codes),
        cmocka_unit_test (test_pool_gauges),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
