/*  =========================================================================
    test_worker_lean - `drover-worker`, the agent as an executable of its
    own: it registers with a real broker and runs a task as `drover
    worker` does, maps none of the broker's libraries, and stays small:
    its RSS (from /proc) under S_RSS_BOUND idle and while a task runs,
    and below `drover worker`'s beside it
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include <sys/wait.h>

//  RSS an idle or busy agent must stay under: the target is 8 MiB (about
//  7.8 MiB measured on Debian 12), with room for another system's
//  libraries; `drover worker` is about 15 MiB
#define S_RSS_BOUND     (10 * 1024 * 1024)

//  True if an agent's RSS is within S_RSS_BOUND; any RSS in a sanitizer
//  build, whose runtime and shadow memory dwarf the agent's own (there
//  the test checks only which libraries it maps)
static bool
s_within_bound (size_t rss)
{
#ifdef DROVER_TEST_SANITIZED
    return rss > 0;
#else
    return rss < S_RSS_BOUND;
#endif
}

//  Libraries only the broker or the CLI use: the lean agent maps none
static const char *s_not_mapped [] = { "libsqlite3", "libpq", "libcurl", "libmicrohttpd",
                                       "libncurses", "libjemalloc", NULL };

//  Fail if the process maps a library it should not
static void
s_expect_lean_maps (pid_t pid)
{
    char path [64];
    snprintf (path, sizeof path, "/proc/%d/maps", (int) pid);
    char *maps = testutil_slurp (path);
    assert_non_null (maps);
    for (size_t index = 0; s_not_mapped [index]; index++)
        if (strstr (maps, s_not_mapped [index]))
            fail_msg ("drover-worker maps %s", s_not_mapped [index]);
    free (maps);
}

//  The lean agent registers, runs a task to SUCCEEDED, and stays under
//  the bound idle and while the task runs; `drover worker` beside it is
//  larger (the bound tells them apart)
static void
test_lean_worker_runs_a_task_small (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    const char *argv [] = { DROVER_WORKER_BIN, "--broker", cluster->endpoint, "--id", "lean",
                            "--procs", "1", NULL };
    cluster->worker_ids [0] = strdup ("lean");
    cluster->workers [0] = testutil_spawn (argv, testutil_cluster_log (cluster, "lean"));
    assert_true (cluster->workers [0] > 0);
    testutil_cluster_add_worker (cluster, 1, "fat", 1, NULL);
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 2, 10000));
    pid_t lean = cluster->workers [0];
    s_expect_lean_maps (lean);
    size_t idle = testutil_rss (lean);
    size_t fat = testutil_rss (cluster->workers [1]);
    print_message ("RSS idle: drover-worker %zu KiB, drover worker %zu KiB\n",
                   idle / 1024, fat / 1024);
    assert_true (s_within_bound (idle));
#ifndef DROVER_TEST_SANITIZED
    assert_true (idle < fat);
#endif
    //  Only the lean agent takes tasks from here on
    testutil_stop (cluster->workers [1], 5000);
    cluster->workers [1] = 0;
    assert_true (testutil_wait_workers (dealer, 1, 10000));

    //  A task that says it started, then waits for the test's word
    char started [PATH_MAX], release [PATH_MAX];
    snprintf (started, sizeof started, "%s", testutil_cluster_log (cluster, "started"));
    snprintf (release, sizeof release, "%s", testutil_cluster_log (cluster, "release"));
    char script [2 * PATH_MAX + 128];
    snprintf (script, sizeof script,
              "echo started > %s; while [ ! -e %s ]; do sleep 0.05; done", started, release);
    uint64_t task = testutil_submit (dealer, testutil_submit_msg (script, 0, 1,
                                                                  DROVER_SUBMIT_NOTIFY));
    assert_true (testutil_await_line (started, "started", 10000));
    size_t busy = testutil_rss (lean);
    print_message ("RSS running a task: drover-worker %zu KiB\n", busy / 1024);
    assert_true (s_within_bound (busy));
    FILE *file = fopen (release, "w");
    assert_non_null (file);
    fclose (file);
    testutil_expect_all_succeeded (dealer, &task, 1, 10000);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  drover-worker answers --version as drover does, and refuses a bad flag
//  value as `drover worker` does (status 2, the flag named)
static void
test_lean_worker_version_and_flags (void **state)
{
    char lean [256], fat [256], errors [512];
    const char *lean_argv [] = { DROVER_WORKER_BIN, "--version", NULL };
    const char *fat_argv [] = { DROVER_BIN, "--version", NULL };
    assert_int_equal (testutil_run_cli (lean_argv, lean, sizeof lean, errors, sizeof errors,
                                        10000), 0);
    assert_int_equal (testutil_run_cli (fat_argv, fat, sizeof fat, errors, sizeof errors,
                                        10000), 0);
    assert_string_equal (lean, fat);

    const char *bad [] = { DROVER_WORKER_BIN, "--broker", "tcp://127.0.0.1:1", "--procs", "0",
                           NULL };
    int status = testutil_run_cli (bad, lean, sizeof lean, errors, sizeof errors, 10000);
    assert_true (status != -1 && WIFEXITED (status));
    assert_int_equal (WEXITSTATUS (status), 2);
    if (!strstr (errors, "--procs"))
        fail_msg ("--procs 0: said '%s'", errors);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_lean_worker_runs_a_task_small),
        cmocka_unit_test (test_lean_worker_version_and_flags),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
