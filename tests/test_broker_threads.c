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
#include <dirent.h>

//  Count the threads of pid named name
static int
s_threads_named (pid_t pid, const char *name)
{
    char path [64];
    snprintf (path, sizeof path, "/proc/%d/task", (int) pid);
    DIR *tasks = opendir (path);
    assert_non_null (tasks);
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir (tasks))) {
        if (entry->d_name [0] == '.')
            continue;
        char comm_path [sizeof path + sizeof entry->d_name + 8];
        snprintf (comm_path, sizeof comm_path, "%s/%s/comm", path, entry->d_name);
        FILE *file = fopen (comm_path, "r");
        char comm [32] = "";
        if (file && fgets (comm, sizeof comm, file)) {
            comm [strcspn (comm, "\n")] = 0;
            count += streq (comm, name);
        }
        if (file)
            fclose (file);
    }
    closedir (tasks);
    return count;
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
