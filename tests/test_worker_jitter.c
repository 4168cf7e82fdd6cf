/*  =========================================================================
    test_worker_jitter - a worker the broker forgot says HELLO again after
    a random delay, not at once (PROTOCOL.md §9, Jitter)

    Real broker and worker processes on loopback. The worker is stopped
    (SIGSTOP) past lost-after, so the broker declares it LOST; resumed, its
    next heartbeat is answered 401, and it registers again after a delay
    it logs, within min(heartbeat, 5000) msec.
    =========================================================================
*/

#include "testutil.h"
#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include "testutil_signals.h"
#include <signal.h>

#define S_WAIT_MAX      10000   //  msec any one step may take at most

//  Return the delay the worker's log said for its re-HELLO after a 401, or -1
static long
s_logged_delay (const char *log)
{
    char *text = testutil_slurp (log);
    assert_non_null (text);
    const char *needle = "broker does not know us, registering again in ";
    char *found = strstr (text, needle);
    long delay = found? strtol (found + strlen (needle), NULL, 10): -1;
    free (text);
    return delay;
}

//  Forgotten, the worker waits a random delay, within the heartbeat, and
//  is registered again
static void
test_rehello_after_401_is_jittered (void **state)
{
    (void) state;
    const char *flags [] = { "--set", "health/lost-after=1000",
                             "--set", "health/heartbeat=1000", "--set", "health/grace=1", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    zsock_t *client = testutil_dealer (cluster);
    testutil_cluster_add_worker (cluster, 0, "w-jitter", 1, NULL);
    assert_true (testutil_wait_workers (client, 1, S_WAIT_MAX));
    assert_int_equal (kill (cluster->workers [0], SIGSTOP), 0);
    assert_true (testutil_await_worker_state (client, "w-jitter", DROVER_WORKER_LOST,
                                              S_WAIT_MAX));
    uint64_t lost = testutil_worker_since (client, "w-jitter");
    assert_int_equal (kill (cluster->workers [0], SIGCONT), 0);
    assert_true (testutil_await_worker_up_since (client, "w-jitter", lost, S_WAIT_MAX));
    const char *log = testutil_cluster_log (cluster, "w-jitter");
    assert_true (testutil_await_line (log, "registering again in", S_WAIT_MAX));
    long delay = s_logged_delay (log);
    print_message ("re-HELLO after the 401 waited %ld msec\n", delay);
    assert_true (delay >= 0 && delay <= 1000);
    zsock_destroy (&client);
    testutil_cluster_destroy (&cluster);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_rehello_after_401_is_jittered),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
