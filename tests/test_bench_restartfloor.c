/*  =========================================================================
    test_bench_restartfloor - the restart phase's load floor runs on a
    real broker's state, every time

    The floor opens the state file twice at once, its check's connection
    and its read's, as the broker's restart checks beside its load. SQLite
    answers BUSY ("database is locked") to one while the other rebuilds
    the WAL index; without a busy timeout the floor failed, and with it
    the restart phase (once in CI, under ASan).
    Here a broker queues tasks and stops cleanly, and the floor runs on
    its state 5,000 times: each run reads every task, every time
    (before the busy timeout, a run failed once in 30 to 700 here).
    =========================================================================
*/

#include "testutil_cluster.h"
#include "testutil_proc.h"
#include "testutil_wire.h"
#include "drover_benchmark.h"
#include <signal.h>

#define S_TASKS     500             //  tasks the broker queues
#define S_ROUNDS    5000            //  runs of the floor on its state

//  The load floor finds every queued task on a cleanly stopped broker's
//  state, run after run
static void
test_load_floor_runs_beside_its_check (void **state)
{
    (void) state;
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    zsock_t *client = testutil_dealer (cluster);
    for (int index = 0; index < S_TASKS; index++)
        assert_true (testutil_submit (client, testutil_submit_msg ("true", 0, 1, 0)) > 0);
    zsock_destroy (&client);
    //  A clean stop: SQLite checkpoints the WAL and removes it on close,
    //  so each floor's two connections find the file as a restart does
    kill (cluster->broker, SIGTERM);
    assert_true (testutil_wait_exit (cluster->broker, 10000) != -1);
    cluster->broker = 0;
    char dir [128];
    snprintf (dir, sizeof dir, "%s/state", cluster->logdir);
    for (int round = 0; round < S_ROUNDS; round++) {
        long long rows = 0;
        int64_t usecs = drover_benchmark_load_floor (dir, S_TASKS, &rows);
        if (usecs < 0)
            fail_msg ("the load floor failed in round %d of %d", round + 1, S_ROUNDS);
        assert_int_equal (rows, S_TASKS);
    }
    testutil_cluster_destroy (&cluster);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_load_floor_runs_beside_its_check),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
