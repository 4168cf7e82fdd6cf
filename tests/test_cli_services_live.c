/*  =========================================================================
    test_cli_services_live - `drover service` and `drover plan` through the
    real CLI against a real broker and two real workers: a service created
    gets its replicas running (show, list and stats say so), a plan of a
    drain names the moves of the replicas on that worker and changes
    nothing, a scale down leaves one replica, a delete stops it and the
    service is then unknown (404); a submit with an affinity key runs
    =========================================================================
*/

#include "testutil_wire.h"
#include "testutil_cluster.h"
#include <sys/wait.h>

//  Count the times needle occurs in text
static int
s_count (const char *text, const char *needle)
{
    int count = 0;
    for (const char *at = strstr (text, needle); at; at = strstr (at + 1, needle))
        count++;
    return count;
}

//  Ask `service show NAME --json` until its replicas running are count
//  (and no other replica is listed), within timeout msec; the last run is
//  left in run
static void
s_await_running (testutil_cluster_t *cluster, const char *name, int count, int timeout,
                 testutil_cli_t *run)
{
    const char *show [] = { "service", "show", name, "--json", NULL };
    int64_t deadline = zclock_mono () + timeout;
    while (true) {
        testutil_cli (cluster->endpoint, show, run);
        const char *replicas = strstr (run->out, "\"replicas\":[");
        if (run->status == 0 && replicas
        &&  s_count (replicas, "\"state\":\"running\"") == count
        &&  s_count (replicas, "\"slot\":") == count)
            return;
        if (zclock_mono () > deadline)
            fail_msg ("service %s: not %d replicas running within %d msec:\n%s%s", name, count,
                      timeout, run->out, run->err);
        zclock_sleep (200);         //  the next term (service/term: 500 msec) may change it
    }
}

//  A service of 3 replicas on two workers, from create to delete
static void
test_service_lifecycle (void **state)
{
    const char *flags [] = { "--set", "service/term=500", "--set", "service/gather-timeout=400",
                             "--set", "service/restart-delay=100", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    testutil_cluster_add_worker (cluster, 0, "w1", 4, NULL);
    testutil_cluster_add_worker (cluster, 1, "w2", 4, NULL);
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 2, 10000));
    testutil_cli_t *run = (testutil_cli_t *) zmalloc (sizeof (testutil_cli_t));

    const char *create [] = { "service", "create", "web", "--replicas", "3", "--", "sleep",
                              "600", NULL };
    testutil_cli (cluster->endpoint, create, run);
    testutil_cli_expect (run, 0, run->out, "service web: created, 3 replicas");
    testutil_cli (cluster->endpoint, create, run);
    testutil_cli_expect (run, 1, run->err, "(410)");
    s_await_running (cluster, "web", 3, 20000, run);
    testutil_cli_expect (run, 0, run->out, "\"command\":\"sleep 600\"");
    //  Which worker has the most replicas: the drain to plan
    const char *busiest = s_count (run->out, "\"worker\":\"w1\"")
                        >= s_count (run->out, "\"worker\":\"w2\"")? "w1": "w2";
    int on_busiest = s_count (run->out, streq (busiest, "w1")? "\"worker\":\"w1\""
                                                             : "\"worker\":\"w2\"");
    assert_true (on_busiest >= 2);

    const char *list [] = { "service", "list", NULL };
    testutil_cli (cluster->endpoint, list, run);
    testutil_cli_expect (run, 0, run->out, "web ");
    testutil_cli_expect (run, 0, run->out, "sleep 600");
    //  The statistics are the last term's: once one ran with the service
    const char *stats [] = { "service", "stats", "--json", NULL };
    int64_t deadline = zclock_mono () + 10000;
    do {
        testutil_cli (cluster->endpoint, stats, run);
        if (strstr (run->out, "\"services\":1") && strstr (run->out, "\"running\":3"))
            break;
        zclock_sleep (200);         //  the next term comes within service/term, 500 msec
    } while (zclock_mono () < deadline);
    testutil_cli_expect (run, 0, run->out, "\"wanted\":3");
    testutil_cli_expect (run, 0, run->out, "\"running\":3");
    testutil_cli_expect (run, 0, run->out, "\"complete\":true");
    testutil_cli_expect (run, 0, run->out, "\"answered\":2");
    //  drover status counts it, text and JSON
    const char *status [] = { "status", NULL };
    testutil_cli (cluster->endpoint, status, run);
    testutil_cli_expect (run, 0, run->out,
                         "services: 1 (1 ok, 0 under, 0 over, 0 lost, 0 crashing); "
                         "replicas 3 of 3 running, 0 pending");
    const char *status_json [] = { "status", "--json", NULL };
    testutil_cli (cluster->endpoint, status_json, run);
    testutil_cli_expect (run, 0, run->out,
                         "\"services\":{\"total\":1,\"ok\":1,\"under\":0,\"over\":0,"
                         "\"lost\":0,\"crashing\":0,\"replicas_wanted\":3,"
                         "\"replicas_running\":3,\"replicas_pending\":0}");

    //  A plan of a drain moves the busiest worker's replicas, and changes nothing
    const char *plan [] = { "plan", "drain", busiest, "--json", NULL };
    testutil_cli (cluster->endpoint, plan, run);
    testutil_cli_expect (run, 0, run->out, "\"action\":\"drain\"");
    char from [32];
    snprintf (from, sizeof from, "\"from\":\"%s\"", busiest);
    if (s_count (run->out, "\"kind\":\"move\"") != on_busiest
    ||  s_count (run->out, from) < on_busiest)
        fail_msg ("plan drain %s: not %d moves from it:\n%s", busiest, on_busiest, run->out);
    const char *plan_text [] = { "plan", "drain", busiest, NULL };
    testutil_cli (cluster->endpoint, plan_text, run);
    testutil_cli_expect (run, 0, run->out, "move ");
    testutil_cli_expect (run, 0, run->out, "BEFORE");
    s_await_running (cluster, "web", 3, 5000, run);
    assert_int_equal (s_count (run->out, streq (busiest, "w1")? "\"worker\":\"w1\""
                                                              : "\"worker\":\"w2\""),
                      on_busiest);

    //  Scale down to one, then delete
    const char *scale [] = { "service", "scale", "web", "1", NULL };
    testutil_cli (cluster->endpoint, scale, run);
    testutil_cli_expect (run, 0, run->out, "scaled to 1 replica");
    s_await_running (cluster, "web", 1, 20000, run);
    const char *delete [] = { "service", "delete", "web", NULL };
    testutil_cli (cluster->endpoint, delete, run);
    testutil_cli_expect (run, 0, run->out, "deleted");
    const char *show [] = { "service", "show", "web", NULL };
    testutil_cli (cluster->endpoint, show, run);
    testutil_cli_expect (run, 1, run->err, "(404)");
    const char *unknown [] = { "service", "scale", "nope", "2", NULL };
    testutil_cli (cluster->endpoint, unknown, run);
    testutil_cli_expect (run, 1, run->err, "(404)");

    //  A batch task with an affinity key runs
    const char *submit [] = { "submit", "--affinity", "dataset-7", "--wait", "--", "true",
                              NULL };
    testutil_cli (cluster->endpoint, submit, run);
    testutil_cli_expect (run, 0, run->err, "submitted");

    free (run);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_service_lifecycle),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
