/*  =========================================================================
    bg_client - measures durable background submits on gearmand, the way
    `drover bench --phases durable` measures drover's acknowledged submits,
    for tools/bench/sidebyside.sh. Not part of the drover executable.

    usage: bg_client HOST PORT JOBS BATCH
    Run against a gearmand with a persistent queue (-q libsqlite3) and no
    worker for the function, so that every job stays queued:
    durable_submit_rate: JOBS background jobs one at a time
        (gearman_client_do_background: each returns once gearmand has
        answered JOB_CREATED, after the job is in its queue), jobs/s;
    durable_submit_batched: JOBS more, BATCH at a time
        (gearman_client_add_task_background, then gearman_client_run_tasks:
        every one acknowledged before the next batch), jobs/s.
    One line per figure, `name value unit`, as drover bench.
    =========================================================================
*/

#include <libgearman/gearman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define S_FUNCTION  "durable"       //  no worker has it: the jobs stay queued

//  Monotonic clock, usec
static int64_t
s_usecs (void)
{
    struct timespec now;
    clock_gettime (CLOCK_MONOTONIC, &now);
    return (int64_t) now.tv_sec * 1000000 + now.tv_nsec / 1000;
}

//  Submit one background job; 0 once gearmand acknowledged it
static int
s_one (gearman_client_st *client)
{
    gearman_job_handle_t handle;
    gearman_return_t ret = gearman_client_do_background (client, S_FUNCTION, NULL, "true", 4,
                                                         handle);
    return ret == GEARMAN_SUCCESS? 0: -1;
}

//  Submit count background jobs at once; 0 once each was acknowledged
static int
s_batch (gearman_client_st *client, gearman_task_st **tasks, long count)
{
    int rc = 0;
    for (long index = 0; index < count; index++) {
        gearman_return_t ret;
        tasks [index] = gearman_client_add_task_background (client, NULL, NULL, S_FUNCTION, NULL,
                                                            "true", 4, &ret);
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

int
main (int argc, char **argv)
{
    if (argc != 5) {
        fprintf (stderr, "usage: bg_client HOST PORT JOBS BATCH\n");
        return 2;
    }
    long total = atol (argv [3]), batch = atol (argv [4]);
    if (total < 1 || batch < 1) {
        fprintf (stderr, "bg_client: JOBS and BATCH must be positive\n");
        return 2;
    }
    gearman_client_st *client = gearman_client_create (NULL);
    if (!client
    ||  gearman_client_add_server (client, argv [1], (in_port_t) atoi (argv [2])) != GEARMAN_SUCCESS) {
        fprintf (stderr, "bg_client: %s\n", client? gearman_client_error (client): "no memory");
        return 1;
    }
    gearman_client_set_timeout (client, 30000);
    gearman_task_st **tasks = calloc ((size_t) batch, sizeof (gearman_task_st *));
    if (!tasks)
        return 1;
    if (s_one (client)) {           //  warm-up: connected, the queue's file open
        fprintf (stderr, "bg_client: warm-up: %s\n", gearman_client_error (client));
        return 1;
    }
    int64_t started = s_usecs ();
    for (long index = 0; index < total; index++)
        if (s_one (client)) {
            fprintf (stderr, "bg_client: background: %s\n", gearman_client_error (client));
            return 1;
        }
    int64_t elapsed = s_usecs () - started;
    printf ("%-24s %14.1f %s\n", "durable_submit_rate", total * 1e6 / (elapsed > 0? elapsed: 1),
            "tasks/s");
    fflush (stdout);

    started = s_usecs ();
    for (long done = 0; done < total; done += batch) {
        long count = total - done < batch? total - done: batch;
        if (s_batch (client, tasks, count)) {
            fprintf (stderr, "bg_client: batched: %s\n", gearman_client_error (client));
            return 1;
        }
    }
    elapsed = s_usecs () - started;
    printf ("%-24s %14.1f %s\n", "durable_submit_batched", total * 1e6 / (elapsed > 0? elapsed: 1),
            "tasks/s");
    free (tasks);
    gearman_client_free (client);
    return 0;
}
