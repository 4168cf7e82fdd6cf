/*  =========================================================================
    test_cli_services_live - `drover service` and `drover plan` through the
    real CLI against a real broker and two real workers: a service created
    gets its replicas running (show, list and stats say so), a plan of a
    drain names the moves of the replicas on that worker and changes
    nothing, a scale down leaves one replica, a delete stops it and the
    service is then unknown (404); a submit with an affinity key runs
    =========================================================================
*/

#include "testutil.h"
#include <sys/wait.h>

//  What one run of the CLI did
typedef struct {
    int status;                 //  exit status, 128 + signal, or -1 if it had to be stopped
    char out [65536];           //  its stdout
    char err [8192];            //  its stderr
} s_run_t;

//  Run `drover --broker ENDPOINT --broker-timeout 10 ARGS...` into run
static void
s_cli (testutil_cluster_t *cluster, const char *const args [], s_run_t *run)
{
    const char *argv [32] = { DROVER_BIN, "--broker", cluster->endpoint, "--broker-timeout",
                              "10" };
    int argc = 5;
    for (int index = 0; args [index] && argc < 31; index++)
        argv [argc++] = args [index];
    argv [argc] = NULL;
    int status = testutil_run_cli (argv, run->out, sizeof run->out, run->err, sizeof run->err,
                                   20000);
    run->status = status == -1? -1: WIFEXITED (status)? WEXITSTATUS (status)
                                   : 128 + WTERMSIG (status);
}

//  Assert a run exited with status and its stream holds needle
static void
s_expect (const s_run_t *run, int status, const char *stream, const char *needle)
{
    if (run->status != status || !strstr (stream, needle))
        fail_msg ("expected status %d and '%s'; got status %d\nstdout:\n%s\nstderr:\n%s",
                  status, needle, run->status, run->out, run->err);
}

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
                 s_run_t *run)
{
    const char *show [] = { "service", "show", name, "--json", NULL };
    int64_t deadline = zclock_mono () + timeout;
    while (true) {
        s_cli (cluster, show, run);
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
    s_run_t *run = (s_run_t *) zmalloc (sizeof (s_run_t));

    const char *create [] = { "service", "create", "web", "--replicas", "3", "--", "sleep",
                              "600", NULL };
    s_cli (cluster, create, run);
    s_expect (run, 0, run->out, "service web: created, 3 replicas");
    s_cli (cluster, create, run);
    s_expect (run, 1, run->err, "(410)");
    s_await_running (cluster, "web", 3, 20000, run);
    s_expect (run, 0, run->out, "\"command\":\"sleep 600\"");
    //  Which worker has the most replicas: the drain to plan
    const char *busiest = s_count (run->out, "\"worker\":\"w1\"")
                        >= s_count (run->out, "\"worker\":\"w2\"")? "w1": "w2";
    int on_busiest = s_count (run->out, streq (busiest, "w1")? "\"worker\":\"w1\""
                                                             : "\"worker\":\"w2\"");
    assert_true (on_busiest >= 2);

    const char *list [] = { "service", "list", NULL };
    s_cli (cluster, list, run);
    s_expect (run, 0, run->out, "web ");
    s_expect (run, 0, run->out, "sleep 600");
    //  The statistics are the last term's: once one ran with the service
    const char *stats [] = { "service", "stats", "--json", NULL };
    int64_t deadline = zclock_mono () + 10000;
    do {
        s_cli (cluster, stats, run);
        if (strstr (run->out, "\"services\":1") && strstr (run->out, "\"running\":3"))
            break;
        zclock_sleep (200);         //  the next term comes within service/term, 500 msec
    } while (zclock_mono () < deadline);
    s_expect (run, 0, run->out, "\"wanted\":3");
    s_expect (run, 0, run->out, "\"running\":3");
    s_expect (run, 0, run->out, "\"complete\":true");
    s_expect (run, 0, run->out, "\"answered\":2");
    //  drover status counts it, text and JSON
    const char *status [] = { "status", NULL };
    s_cli (cluster, status, run);
    s_expect (run, 0, run->out, "services: 1 (1 ok, 0 under, 0 over, 0 lost, 0 crashing); "
                                "replicas 3 of 3 running, 0 pending");
    const char *status_json [] = { "status", "--json", NULL };
    s_cli (cluster, status_json, run);
    s_expect (run, 0, run->out, "\"services\":{\"total\":1,\"ok\":1,\"under\":0,\"over\":0,"
                                "\"lost\":0,\"crashing\":0,\"replicas_wanted\":3,"
                                "\"replicas_running\":3,\"replicas_pending\":0}");

    //  A plan of a drain moves the busiest worker's replicas, and changes nothing
    const char *plan [] = { "plan", "drain", busiest, "--json", NULL };
    s_cli (cluster, plan, run);
    s_expect (run, 0, run->out, "\"action\":\"drain\"");
    char from [32];
    snprintf (from, sizeof from, "\"from\":\"%s\"", busiest);
    if (s_count (run->out, "\"kind\":\"move\"") != on_busiest
    ||  s_count (run->out, from) < on_busiest)
        fail_msg ("plan drain %s: not %d moves from it:\n%s", busiest, on_busiest, run->out);
    const char *plan_text [] = { "plan", "drain", busiest, NULL };
    s_cli (cluster, plan_text, run);
    s_expect (run, 0, run->out, "move ");
    s_expect (run, 0, run->out, "BEFORE");
    s_await_running (cluster, "web", 3, 5000, run);
    assert_int_equal (s_count (run->out, streq (busiest, "w1")? "\"worker\":\"w1\""
                                                              : "\"worker\":\"w2\""),
                      on_busiest);

    //  Scale down to one, then delete
    const char *scale [] = { "service", "scale", "web", "1", NULL };
    s_cli (cluster, scale, run);
    s_expect (run, 0, run->out, "scaled to 1 replica");
    s_await_running (cluster, "web", 1, 20000, run);
    const char *delete [] = { "service", "delete", "web", NULL };
    s_cli (cluster, delete, run);
    s_expect (run, 0, run->out, "deleted");
    const char *show [] = { "service", "show", "web", NULL };
    s_cli (cluster, show, run);
    s_expect (run, 1, run->err, "(404)");
    const char *unknown [] = { "service", "scale", "nope", "2", NULL };
    s_cli (cluster, unknown, run);
    s_expect (run, 1, run->err, "(404)");

    //  A batch task with an affinity key runs
    const char *submit [] = { "submit", "--affinity", "dataset-7", "--wait", "--", "true",
                              NULL };
    s_cli (cluster, submit, run);
    s_expect (run, 0, run->err, "submitted");

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
