/*  =========================================================================
    test_broker_threads - each actor of a running broker is a thread of its
    own, named after it

    The design keeps the four actors (health, probation, schedq, assign) in
    threads of their own, beside the store, the reconciler and the metrics
    actor. Each names its thread, so that `top -H`, `ps -L` and perf say
    which actor spends the time. Read from /proc/PID/task/TID/comm of a real
    broker process.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_cluster.h"

//  A name and how many threads bear it
typedef struct {
    const char *name;
    int count;
} s_named_t;

//  Count a thread if its comm file says the name
static void
s_count_named (const char *tid, FILE *comm, void *arg)
{
    (void) tid;
    s_named_t *named = (s_named_t *) arg;
    char line [32] = "";
    if (fgets (line, sizeof line, comm)) {
        line [strcspn (line, "\n")] = 0;
        named->count += streq (line, named->name);
    }
}

//  Count the threads of pid named name
static int
s_threads_named (pid_t pid, const char *name)
{
    s_named_t named = { name, 0 };
    testutil_each_thread (pid, "comm", s_count_named, &named);
    return named.count;
}

//  Each actor runs in exactly one thread, named after it; the routing main
//  keeps the process's name
static void
test_one_named_thread_per_actor (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    const char *actors [] = { "health", "probation", "schedq", "assign", "store",
                              "reconciler", "metrics" };
    for (size_t index = 0; index < sizeof actors / sizeof actors [0]; index++) {
        int threads = s_threads_named (cluster->broker, actors [index]);
        if (threads != 1)
            fail_msg ("%d threads named %s, not 1", threads, actors [index]);
    }
    assert_int_equal (s_threads_named (cluster->broker, "drover"), 1);
    testutil_cluster_destroy (&cluster);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_one_named_thread_per_actor),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
