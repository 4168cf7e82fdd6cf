/*  =========================================================================
    test_worker_max_load - `drover worker --max-load F` end to end: a real
    agent offers max(1, floor(procs * F)) procs, `drover workers --json`
    shows that many, the scheduler never runs more of its tasks at once
    (each task writes its start and end to a file, and the overlap is
    counted), and a task that asks for more procs than it offers is one no
    connected worker could run
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include <sys/wait.h>

//  Tasks run at once through the worker of 2 procs
#define S_TASKS     6

//  Assert `drover workers --json` shows worker (registered already) with
//  "procs":procs
static void
s_expect_procs (testutil_cluster_t *cluster, const char *worker, unsigned procs)
{
    char needle [128];
    snprintf (needle, sizeof needle, "{\"id\":\"%s\",", worker);
    char offered [64];
    snprintf (offered, sizeof offered, ",\"procs\":%u,\"procs_used\":", procs);
    const char *args [] = { "workers", "--json", NULL };
    testutil_cli_t *run = (testutil_cli_t *) zmalloc (sizeof (testutil_cli_t));
    testutil_cli (cluster->endpoint, args, run);
    testutil_cli_expect (run, 0, run->out, needle);
    testutil_assert_json (run->out);
    const char *row = strstr (run->out, needle);
    const char *next = strstr (row + 1, "{\"id\":");
    const char *found = strstr (row, offered);
    if (!found || (next && found > next))
        fail_msg ("%s does not offer %u procs:\n%s", worker, procs, run->out);
    free (run);
}

//  Order events by time, an end before a start at the same instant
static int
s_compare_events (const void *left, const void *right)
{
    const long long *a = (const long long *) left, *b = (const long long *) right;
    if (a [0] != b [0])
        return a [0] < b [0]? -1: 1;
    return (int) (a [1] - b [1]);
}

//  The most tasks the log at path shows running at once: lines "S NSEC"
//  and "E NSEC" (starts and ends); asserts each task logged both
static int
s_max_overlap (const char *path, int tasks)
{
    FILE *file = fopen (path, "r");
    assert_non_null (file);
    long long events [2 * S_TASKS][2];      //  time, +1 start or -1 end
    int count = 0;
    char kind;
    long long when;
    while (count < 2 * tasks && fscanf (file, " %c %lld", &kind, &when) == 2) {
        events [count][0] = when;
        events [count][1] = kind == 'S'? 1: -1;
        count++;
    }
    fclose (file);
    assert_int_equal (count, 2 * tasks);
    qsort (events, (size_t) count, sizeof events [0], s_compare_events);
    int running = 0, most = 0;
    for (int index = 0; index < count; index++) {
        running += (int) events [index][1];
        most = MAX (most, running);
    }
    assert_int_equal (running, 0);
    return most;
}

//  A worker of 5 procs at --max-load 0.5 offers 2, shown as such, and
//  runs at most 2 tasks at once; a task of 3 procs fits on no worker; a
//  worker of 3 procs at --max-load 0.1 still offers 1
static void
test_max_load_scales_procs_offered_and_run (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    const char *half [] = { "--max-load", "0.5", NULL };
    testutil_cluster_add_worker (cluster, 0, "w1", 5, half);
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 1, 10000));
    s_expect_procs (cluster, "w1", 2);

    char path [PATH_MAX];
    snprintf (path, sizeof path, "%s", testutil_cluster_log (cluster, "overlap.txt"));
    char script [2 * PATH_MAX + 160];
    snprintf (script, sizeof script, "echo S $(date +%%s%%N) >> %s; sleep 0.3; "
              "echo E $(date +%%s%%N) >> %s", path, path);
    uint64_t tasks [S_TASKS];
    for (int index = 0; index < S_TASKS; index++)
        tasks [index] = testutil_submit (dealer, testutil_submit_msg (script, 0, 1,
                                                                      DROVER_SUBMIT_NOTIFY));
    testutil_expect_all_succeeded (dealer, tasks, S_TASKS, 30000);
    int most = s_max_overlap (path, S_TASKS);
    print_message ("%d tasks of 0.3 s on 2 procs: at most %d ran at once\n", S_TASKS, most);
    assert_true (most <= 2);
    assert_int_equal (most, 2);     //  both procs were used: the check can see overlap

    //  3 procs is more than w1 offers, though its machine has 5
    const char *big [] = { "submit", "-n", "3", "--", "true", NULL };
    testutil_cli_t *run = (testutil_cli_t *) zmalloc (sizeof (testutil_cli_t));
    testutil_cli (cluster->endpoint, big, run);
    testutil_cli_expect (run, 0, run->err, "cannot run on any connected worker");

    const char *tenth [] = { "--max-load", "0.1", NULL };
    testutil_cluster_add_worker (cluster, 1, "w2", 3, tenth);
    assert_true (testutil_wait_workers (dealer, 2, 10000));
    s_expect_procs (cluster, "w2", 1);
    s_expect_procs (cluster, "w1", 2);
    free (run);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  --max-load takes a number above 0 and at most 1
static void
test_max_load_out_of_range_refused (void **state)
{
    const char *values [] = { "0", "1.5", "-1", "half", "" };
    for (size_t index = 0; index < sizeof values / sizeof values [0]; index++) {
        const char *argv [] = { DROVER_BIN, "worker", "--broker", "tcp://127.0.0.1:1",
                                "--max-load", values [index], NULL };
        char output [512], errors [512];
        int status = testutil_run_cli (argv, output, sizeof output, errors, sizeof errors,
                                       10000);
        assert_true (status != -1 && WIFEXITED (status));
        assert_int_equal (WEXITSTATUS (status), 2);
        if (!strstr (errors, "--max-load"))
            fail_msg ("--max-load '%s': said '%s'", values [index], errors);
    }
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_max_load_scales_procs_offered_and_run),
        cmocka_unit_test (test_max_load_out_of_range_refused),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
