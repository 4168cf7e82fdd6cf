/*  =========================================================================
    submit_wait - submit one shell command to a drover broker, wait for
    its result and print it

    An example of the client API (include/drover/drover_client.h), built
    against the installed library alone:

        cc submit_wait.c -o submit_wait $(pkg-config --cflags --libs drover)
        ./submit_wait 'uname -a'
        ./submit_wait --broker tcp://hub:5555 'make -C /src test'

    It connects to the broker (--broker, else $DROVER_BROKER, else
    tcp://127.0.0.1:5555), submits `sh -c COMMAND` as one task, waits for
    the task to end, prints what the command wrote to stdout and stderr,
    and exits with the command's exit status: 0 when it succeeded, 1 when
    it failed some other way (killed, timed out, cancelled, the broker
    unreachable), 2 for bad arguments.
    =========================================================================
*/

#include <drover/drover.h>
#include <stdio.h>
#include <string.h>

//  What the wait hands us: the task's result (ours, a copy)
typedef struct {
    drover_result_t *result;    //  the task's result, NULL until it ends
} waited_t;

//  Called once when the task ends: keep a copy of its result (the one
//  given is borrowed)
static void
s_on_done (const drover_result_t *result, void *arg)
{
    waited_t *waited = (waited_t *) arg;
    waited->result = drover_result_dup (result);
}

int
main (int argc, char *argv [])
{
    const char *endpoint = NULL;            //  NULL: $DROVER_BROKER, else the default
    int argn = 1;
    if (argn + 1 < argc && strcmp (argv [argn], "--broker") == 0) {
        endpoint = argv [argn + 1];
        argn += 2;
    }
    if (argn + 1 != argc) {
        fprintf (stderr, "usage: submit_wait [--broker ENDPOINT] 'SHELL COMMAND'\n");
        return 2;
    }
    drover_client_t *client = drover_client_new (endpoint);
    if (!client) {
        fprintf (stderr, "submit_wait: bad broker endpoint\n");
        return 2;
    }
    //  The task runs `sh -c COMMAND` on a worker
    const char *task_argv [] = { "sh", "-c", argv [argn] };
    drover_submit_t *submit = drover_submit_new (3, task_argv);
    uint64_t task = 0;
    int rc = 1;
    if (!submit)
        fprintf (stderr, "submit_wait: the command is too long\n");
    else
    if (drover_client_submit (client, submit, &task) == 0) {
        printf ("task %llu submitted\n", (unsigned long long) task);
        waited_t waited = { NULL };
        if (drover_client_wait (client, &task, 1, s_on_done, NULL, &waited) == 0
        &&  waited.result) {
            drover_result_t *result = waited.result;
            if (drover_result_out_size (result))
                fwrite (drover_result_out (result), 1, drover_result_out_size (result), stdout);
            if (drover_result_err_size (result))
                fwrite (drover_result_err (result), 1, drover_result_err_size (result), stderr);
            printf ("task %llu %s, exit %d\n", (unsigned long long) task,
                    drover_task_state_name (drover_result_state (result)),
                    drover_result_exit_code (result));
            if (drover_result_state (result) == DROVER_TASK_SUCCEEDED)
                rc = 0;
            else
                rc = drover_result_exit_code (result) > 0? drover_result_exit_code (result): 1;
            drover_result_destroy (&waited.result);
        }
        else
            fprintf (stderr, "submit_wait: wait: %s\n", drover_client_error_text (client));
    }
    else
        fprintf (stderr, "submit_wait: submit: %s\n", drover_client_error_text (client));
    drover_submit_destroy (&submit);
    drover_client_destroy (&client);
    return rc;
}
