/*  =========================================================================
    testutil_runner - the process runner's tests' fixtures
    (see the header)
    =========================================================================
*/

#include "testutil_runner.h"
#include <sys/wait.h>

//  Drive the runner until a result is ready or timeout msec pass; NULL on timeout
drover_msg_t *
testutil_runner_wait_result (drover_runner_t *runner, int timeout)
{
    int64_t end = zclock_mono () + timeout;
    while (true) {
        drover_msg_t *result = drover_runner_next_result (runner);
        if (result)
            return result;
        int64_t now = zclock_mono ();
        if (now >= end)
            return NULL;
        int64_t wait = end - now;
        int64_t due = drover_runner_next_deadline (runner);
        if (due != -1 && due - now < wait)
            wait = due > now? due - now: 0;
        size_t max = drover_runner_items (runner);
        zmq_pollitem_t *items = (zmq_pollitem_t *) calloc (max + 1, sizeof (zmq_pollitem_t));
        size_t count = drover_runner_fill (runner, items, max);
        zmq_poll (items, (int) count, (long) wait);
        drover_runner_process (runner, items, count, zclock_mono ());
        free (items);
    }
}

//  Build an exec running sh -c script
drover_exec_t *
testutil_runner_shell (const char *script)
{
    drover_exec_t *exec = drover_exec_new ();
    const char *argv [] = { "sh", "-c", script };
    assert_int_equal (drover_exec_set_argv (exec, 3, argv), 0);
    return exec;
}

//  Run script to the end (within 10 s) and return its result
drover_msg_t *
testutil_runner_run (drover_runner_t *runner, drover_exec_t **exec_p, uint32_t timeout)
{
    assert_int_equal (drover_runner_start (runner, 1, 1, *exec_p, timeout, zclock_mono ()), 0);
    drover_exec_destroy (exec_p);
    drover_msg_t *result = testutil_runner_wait_result (runner, 10000);
    assert_non_null (result);
    assert_int_equal (result->id, DROVER_MSG_TASK_RESULT);
    assert_int_equal (drover_runner_size (runner), 0);
    return result;
}

//  Run sh -c script to the end (within 10 s) and return its result
drover_msg_t *
testutil_runner_run_shell (drover_runner_t *runner, const char *script, uint32_t timeout)
{
    drover_exec_t *exec = testutil_runner_shell (script);
    return testutil_runner_run (runner, &exec, timeout);
}

//  Drive the runner until a result comes (within 10 s) and check its
//  outcome; the caller checks the rest and destroys it
drover_msg_t *
testutil_runner_wait_outcome (drover_runner_t *runner, int outcome)
{
    drover_msg_t *result = testutil_runner_wait_result (runner, 10000);
    assert_non_null (result);
    assert_int_equal (result->outcome, outcome);
    return result;
}

//  Check that a result's stdout is exactly text
void
testutil_runner_assert_out (drover_msg_t *result, const char *text)
{
    assert_int_equal (result->out_size, strlen (text));
    assert_memory_equal (result->out, text, strlen (text));
}

//  cmocka's setup: a new runner (its state)
int
testutil_runner_setup (void **state)
{
    *state = drover_runner_new ();
    return 0;
}

//  cmocka's teardown: destroy the runner (twice: harmless) and reap the
//  orphans left to us, the subreaper
int
testutil_runner_teardown (void **state)
{
    drover_runner_t *runner = (drover_runner_t *) *state;
    drover_runner_destroy (&runner);
    assert_null (runner);
    drover_runner_destroy (&runner);     //  harmless twice
    while (waitpid (-1, NULL, WNOHANG) > 0)
        ;                               //  orphans left to us, the subreaper
    return 0;
}
