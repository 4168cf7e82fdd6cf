/*  =========================================================================
    noop_worker - a gearmand worker that answers function "noop" at once
    with an empty result: the counterpart of drover bench's no-op workers,
    for tools/bench/sidebyside.sh. Not part of the drover executable.

    usage: noop_worker HOST PORT
    Runs until killed.
    =========================================================================
*/

#include <libgearman/gearman.h>
#include <stdio.h>
#include <stdlib.h>

//  The no-op function: no result bytes, success
static void *
s_noop (gearman_job_st *job, void *context, size_t *result_size, gearman_return_t *ret_ptr)
{
    *result_size = 0;
    *ret_ptr = GEARMAN_SUCCESS;
    return NULL;
}

int
main (int argc, char **argv)
{
    if (argc != 3) {
        fprintf (stderr, "usage: noop_worker HOST PORT\n");
        return 2;
    }
    gearman_worker_st *worker = gearman_worker_create (NULL);
    if (!worker
    ||  gearman_worker_add_server (worker, argv [1], (in_port_t) atoi (argv [2])) != GEARMAN_SUCCESS
    ||  gearman_worker_add_function (worker, "noop", 0, s_noop, NULL) != GEARMAN_SUCCESS) {
        fprintf (stderr, "noop_worker: %s\n", worker? gearman_worker_error (worker): "no memory");
        return 1;
    }
    while (true) {
        gearman_return_t rc = gearman_worker_work (worker);
        if (rc != GEARMAN_SUCCESS) {
            fprintf (stderr, "noop_worker: %s\n", gearman_worker_error (worker));
            break;
        }
    }
    gearman_worker_free (worker);
    return 1;
}
