/*  =========================================================================
    test_pool_local_probe - the local driver's boot probe on real `drover
    worker` processes: it passes while the instance's worker runs, fails
    while it is stopped (SIGSTOP) and once it is gone, saying which; an
    unknown instance fails (a worker that ended, not yet reaped, is a zombie:
    failed too)
    =========================================================================
*/

#include "testutil_proc.h"
#include "drover_pooldriver.h"
#include <signal.h>

//  What the driver reported last
typedef struct {
    int reports;                    //  reports heard
    drover_poolaction_kind_t kind;  //  the last one's operation
    drover_poolop_result_t result;  //  what it came to
    char detail [256];              //  what it said
} s_heard_t;

//  Keep a report
static void
s_on_done (const drover_pooldone_t *done, void *arg)
{
    s_heard_t *heard = (s_heard_t *) arg;
    heard->reports++;
    heard->kind = done->kind;
    heard->result = done->result;
    snprintf (heard->detail, sizeof heard->detail, "%s", done->detail? done->detail: "");
}

//  Run one operation of the local driver (it finishes at once) and return
//  what it came to
static drover_poolop_result_t
s_probe (drover_pooldriver_t *driver, const char *name, s_heard_t *heard)
{
    int before = heard->reports;
    drover_pooldriver_probe (driver, name);
    drover_pooldriver_process (driver, NULL, 0, (uint64_t) zclock_mono (), s_on_done, heard);
    assert_int_equal (heard->reports, before + 1);
    assert_int_equal (heard->kind, DROVER_POOL_PROBE);
    return heard->result;
}

//  The pid in an instance's file (pid=N), 0 if none
static pid_t
s_pid (const char *dir, const char *name)
{
    char *path = zsys_sprintf ("%s/%s", dir, name);
    char *text = testutil_slurp (path);
    zstr_free (&path);
    char *line = text? strstr (text, "pid="): NULL;
    pid_t pid = line? atoi (line + 4): 0;
    free (text);
    return pid;
}

static void
test_local_probe_checks_the_worker (void **state)
{
    char dir [] = "/tmp/drover-pool-local-probe-XXXXXX";
    assert_non_null (mkdtemp (dir));
    drover_poolconfig_t config;
    memset (&config, 0, sizeof config);
    config.name = (char *) "drover";
    config.driver = (char *) "local";
    config.worker = (char *) DROVER_BIN;
    config.local_dir = dir;
    config.op_timeout = 10000;
    config.ntypes = 1;
    config.types [0] = (drover_pooltype_t) { "small", 1, 1ull << 30, (char *) "", 0.1, (char *) "" };
    //  No broker listens there: the worker keeps trying, alive
    char broker [64];
    snprintf (broker, sizeof broker, "tcp://127.0.0.1:%d", testutil_free_port ());
    char *error = NULL;
    drover_pooldriver_t *driver = drover_pooldriver_new (&config, broker, "", &error);
    assert_non_null (driver);
    s_heard_t heard = { 0 };
    drover_pooldriver_create (driver, &config.types [0], "POOL-t-1", DROVER_IDLE_RUN);
    drover_pooldriver_process (driver, NULL, 0, (uint64_t) zclock_mono (), s_on_done, &heard);
    assert_int_equal (heard.result, DROVER_POOLOP_OK);
    pid_t pid = s_pid (dir, "POOL-t-1");
    assert_true (pid > 0);

    //  Running: passes
    assert_int_equal (s_probe (driver, "POOL-t-1", &heard), DROVER_POOLOP_OK);
    //  Stopped: fails, saying so
    assert_int_equal (kill (pid, SIGSTOP), 0);
    int64_t until = zclock_mono () + 5000;
    while (s_probe (driver, "POOL-t-1", &heard) == DROVER_POOLOP_OK && zclock_mono () < until)
        zclock_sleep (10);          //  the stop takes effect at once, or nearly
    assert_int_equal (heard.result, DROVER_POOLOP_FAILED);
    assert_non_null (strstr (heard.detail, "stopped"));
    //  Going again: passes
    assert_int_equal (kill (pid, SIGCONT), 0);
    until = zclock_mono () + 5000;
    while (s_probe (driver, "POOL-t-1", &heard) != DROVER_POOLOP_OK && zclock_mono () < until)
        zclock_sleep (10);
    assert_int_equal (heard.result, DROVER_POOLOP_OK);
    //  Gone: fails, saying so
    assert_int_equal (kill (pid, SIGKILL), 0);
    assert_true (testutil_await_gone (pid, 5000));
    until = zclock_mono () + 5000;
    while (s_probe (driver, "POOL-t-1", &heard) == DROVER_POOLOP_OK && zclock_mono () < until)
        zclock_sleep (10);
    assert_int_equal (heard.result, DROVER_POOLOP_FAILED);
    //  (a zombie until reaped: the test polls no pidfd, as the pool actor does)
    if (!strstr (heard.detail, "gone") && !strstr (heard.detail, "a zombie")
    &&  !strstr (heard.detail, "no instance POOL-t-1"))
        fail_msg ("probe of a gone worker said: %s", heard.detail);
    //  No such instance: fails
    assert_int_equal (s_probe (driver, "POOL-t-9", &heard), DROVER_POOLOP_FAILED);
    assert_non_null (strstr (heard.detail, "no instance POOL-t-9"));

    drover_pooldriver_destroy (&driver);
    testutil_remove_tree (dir);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_local_probe_checks_the_worker),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
