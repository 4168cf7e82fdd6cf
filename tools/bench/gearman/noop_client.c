/*  =========================================================================
    noop_client - measures gearmand the way `drover bench` measures drover,
    for tools/bench/sidebyside.sh. Not part of the drover executable.

    usage: noop_client HOST PORT TASKS BATCH RTT
    (a) noop_throughput: TASKS no-op tasks, BATCH at a time per
        gearman_client_run_tasks, tasks/s, every result checked;
    (b) rtt_p50 .. rtt_p999: RTT tasks one at a time (gearman_client_do),
        usec. One line per figure, `name value unit`, as drover bench.
    =========================================================================
*/

#include <libgearman/gearman.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

//  Monotonic clock, usec
static int64_t
s_usecs (void)
{
    struct timespec now;
    clock_gettime (CLOCK_MONOTONIC, &now);
    return (int64_t) now.tv_sec * 1000000 + now.tv_nsec / 1000;
}

//  Run count no-op tasks in one gearman_client_run_tasks; 0 if each succeeded
static int
s_batch (gearman_client_st *client, gearman_task_st **tasks, long count)
{
    int rc = 0;
    for (long index = 0; index < count; index++) {
        gearman_return_t ret;
        tasks [index] = gearman_client_add_task (client, NULL, NULL, "noop", NULL, NULL, 0, &ret);
        if (!tasks [index] || ret != GEARMAN_SUCCESS)
            rc = -1;
    }
    if (rc == 0 && gearman_client_run_tasks (client) != GEARMAN_SUCCESS)
        rc = -1;
    for (long index = 0; rc == 0 && index < count; index++)
        if (gearman_task_return (tasks [index]) != GEARMAN_SUCCESS)
            rc = -1;
    gearman_client_task_free_all (client);
    return rc;
}

//  Order usec samples
static int
s_compare (const void *left, const void *right)
{
    int64_t a = *(const int64_t *) left, b = *(const int64_t *) right;
    return (a > b) - (a < b);
}

//  The sample at quantile q of sorted samples (nearest rank, as drover bench)
static double
s_quantile (const int64_t *sorted, long count, double q)
{
    long rank = (long) ceil (q * count);
    return (double) sorted [rank > 0? rank - 1: 0];
}

int
main (int argc, char **argv)
{
    if (argc != 6) {
        fprintf (stderr, "usage: noop_client HOST PORT TASKS BATCH RTT\n");
        return 2;
    }
    long total = atol (argv [3]), batch = atol (argv [4]), rtt = atol (argv [5]);
    if (total < 1 || batch < 1 || rtt < 1) {
        fprintf (stderr, "noop_client: TASKS, BATCH and RTT must be positive\n");
        return 2;
    }
    gearman_client_st *client = gearman_client_create (NULL);
    if (!client
    ||  gearman_client_add_server (client, argv [1], (in_port_t) atoi (argv [2])) != GEARMAN_SUCCESS) {
        fprintf (stderr, "noop_client: %s\n", client? gearman_client_error (client): "no memory");
        return 1;
    }
    gearman_client_set_timeout (client, 30000);
    gearman_task_st **tasks = calloc ((size_t) batch, sizeof (gearman_task_st *));
    int64_t *samples = calloc ((size_t) rtt, sizeof (int64_t));
    if (!tasks || !samples)
        return 1;

    //  Warm up: the workers connect while this runs
    if (s_batch (client, tasks, batch)) {
        fprintf (stderr, "noop_client: warm-up: %s\n", gearman_client_error (client));
        return 1;
    }
    int64_t started = s_usecs ();
    for (long done = 0; done < total; done += batch) {
        long count = total - done < batch? total - done: batch;
        if (s_batch (client, tasks, count)) {
            fprintf (stderr, "noop_client: noop: %s\n", gearman_client_error (client));
            return 1;
        }
    }
    int64_t elapsed = s_usecs () - started;
    printf ("%-24s %14.1f %s\n", "noop_throughput", total * 1e6 / (elapsed > 0? elapsed: 1),
            "tasks/s");
    fflush (stdout);

    for (long index = 0; index < rtt; index++) {
        int64_t sent = s_usecs ();
        size_t size = 0;
        gearman_return_t ret;
        void *result = gearman_client_do (client, "noop", NULL, NULL, 0, &size, &ret);
        free (result);
        if (ret != GEARMAN_SUCCESS) {
            fprintf (stderr, "noop_client: rtt: %s\n", gearman_client_error (client));
            return 1;
        }
        samples [index] = s_usecs () - sent;
    }
    qsort (samples, (size_t) rtt, sizeof (int64_t), s_compare);
    printf ("%-24s %14.1f %s\n", "rtt_p50", s_quantile (samples, rtt, 0.50), "us");
    printf ("%-24s %14.1f %s\n", "rtt_p90", s_quantile (samples, rtt, 0.90), "us");
    printf ("%-24s %14.1f %s\n", "rtt_p99", s_quantile (samples, rtt, 0.99), "us");
    printf ("%-24s %14.1f %s\n", "rtt_p999", s_quantile (samples, rtt, 0.999), "us");
    free (samples);
    free (tasks);
    gearman_client_free (client);
    return 0;
}
