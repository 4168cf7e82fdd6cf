/*  =========================================================================
    test_preemption - a preemption end to end, on a real broker and a real
    worker over loopback, through the real `drover` CLI: with
    sched/preemption on and one proc, alice's preemptible task runs; bob's
    task of a higher priority stops it. The victim's process is gone before
    bob's task starts (bob's task looks), the victim is queued again with
    its retries untouched and an attempt that says "preempted", and it runs
    again to success once bob's is done. With preemption off (the
    default), bob's task waits instead.
    =========================================================================
*/

#include "testutil_cluster.h"

//  Run the CLI with args, fail unless it exits with status and holds needle
static void
s_cli (testutil_cluster_t *cluster, const char *const args [], int status, const char *needle,
       testutil_cli_t *run)
{
    testutil_cli (cluster->endpoint, args, run);
    testutil_cli_expect (run, status, status? run->err: run->out, needle);
}

//  Wait until `drover show ID --json` holds needle; fail after timeout
static void
s_await_show (testutil_cluster_t *cluster, const char *id, const char *needle,
              testutil_cli_t *run)
{
    const char *show [] = { "show", id, "--json", NULL };
    int64_t deadline = zclock_mono () + 30000;
    do {
        testutil_cli (cluster->endpoint, show, run);
        if (strstr (run->out, needle))
            return;
        zclock_sleep (50);      //  each turn is a real round trip to the broker
    } while (zclock_mono () < deadline);
    fail_msg ("task %s never showed %s: %s", id, needle, run->out);
}

//  Submit args and return the id printed
static void
s_submit (testutil_cluster_t *cluster, const char *const args [], char *id, size_t size,
          testutil_cli_t *run)
{
    s_cli (cluster, args, 0, "", run);
    snprintf (id, size, "%llu", strtoull (run->out, NULL, 10));
    assert_true (strtoull (id, NULL, 10) > 0);
}

//  Preemption on: the victim is stopped, requeued, rerun
static void
test_preempted_and_requeued (void **state)
{
    char dir [64];
    snprintf (dir, sizeof dir, "/tmp/drover-preempt-%d", (int) getpid ());
    testutil_remove_tree (dir);
    assert_int_equal (zsys_dir_create ("%s", dir), 0);
    const char *flags [] = { "--set", "sched/preemption=on", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    testutil_cluster_add_worker (cluster, 0, "w1", 1, NULL);
    testutil_cli_t *run = (testutil_cli_t *) zmalloc (sizeof (testutil_cli_t));
    //  The victim: the first run records its pid and sleeps; the second
    //  finds the mark and succeeds
    char victim_script [512], bob_script [512];
    snprintf (victim_script, sizeof victim_script,
              "if [ -e %s/mark ]; then exit 0; fi; touch %s/mark; echo $$ > %s/pid; exec sleep 60",
              dir, dir, dir);
    const char *victim_args [] = { "submit", "--owner", "alice", "--preemptible",
                                   "--", "sh", "-c", victim_script, NULL };
    char victim [32];
    s_submit (cluster, victim_args, victim, sizeof victim, run);
    s_await_show (cluster, victim, "\"state\":\"running\"", run);
    assert_non_null (strstr (run->out, "\"preemptible\":true"));
    //  bob's task says whether the victim's process still lives
    snprintf (bob_script, sizeof bob_script,
              "while [ ! -s %s/pid ]; do sleep 0.01; done;"
              " if kill -0 $(cat %s/pid) 2>/dev/null; then echo alive; else echo gone; fi",
              dir, dir);
    const char *bob_args [] = { "submit", "--owner", "bob", "--priority", "-5", "--wait",
                                "--", "sh", "-c", bob_script, NULL };
    s_cli (cluster, bob_args, 0, "gone", run);
    //  The victim runs again to success, its retries untouched
    s_await_show (cluster, victim, "\"state\":\"succeeded\"", run);
    assert_non_null (strstr (run->out, "preempted"));
    assert_non_null (strstr (run->out, "\"attempt\":2"));
    assert_non_null (strstr (run->out, "\"retries_left\":0"));
    free (run);
    testutil_cluster_destroy (&cluster);
    testutil_remove_tree (dir);
}

//  Preemption off (the default): the preemptible task is left alone and the
//  higher priority waits, explained (offers held ahead off, or the busy
//  worker would hold it, ASSIGNED, until it gave it back)
static void
test_off_by_default (void **state)
{
    const char *flags [] = { "--set", "assign/offer-ahead=0", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    testutil_cluster_add_worker (cluster, 0, "w1", 1, NULL);
    testutil_cli_t *run = (testutil_cli_t *) zmalloc (sizeof (testutil_cli_t));
    const char *victim_args [] = { "submit", "--owner", "alice", "--preemptible",
                                   "--", "sleep", "60", NULL };
    char victim [32], waiter [32];
    s_submit (cluster, victim_args, victim, sizeof victim, run);
    s_await_show (cluster, victim, "\"state\":\"running\"", run);
    const char *waiter_args [] = { "submit", "--owner", "bob", "--priority", "-5",
                                   "--", "true", NULL };
    s_submit (cluster, waiter_args, waiter, sizeof waiter, run);
    const char *explain [] = { "explain", waiter, NULL };
    s_cli (cluster, explain, 0, "QUEUED", run);
    s_cli (cluster, (const char *[]) { "show", victim, "--json", NULL }, 0,
           "\"state\":\"running\"", run);
    assert_null (strstr (run->out, "preempted"));
    free (run);
    testutil_cluster_destroy (&cluster);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_preempted_and_requeued),
        cmocka_unit_test (test_off_by_default),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
