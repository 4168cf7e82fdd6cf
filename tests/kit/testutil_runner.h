/*  =========================================================================
    testutil_runner - the process runner's tests' fixtures (test_drover_
    runner_results, _stop): they drive the runner the way the worker loop
    does (fill the poll items, zmq_poll until the next deadline, process)
    until a result comes, bounded by a deadline, and run `sh -c` scripts
    through it to the end
    =========================================================================
*/

#ifndef TESTUTIL_RUNNER_H_INCLUDED
#define TESTUTIL_RUNNER_H_INCLUDED

#include "testutil.h"
#include "drover_runner.h"

//  Drive the runner until a result is ready or timeout msec pass; NULL on timeout
drover_msg_t *
    testutil_runner_wait_result (drover_runner_t *runner, int timeout);

//  Build an exec running sh -c script
drover_exec_t *
    testutil_runner_shell (const char *script);

//  Run script to the end (within 10 s) and return its result
drover_msg_t *
    testutil_runner_run (drover_runner_t *runner, drover_exec_t **exec_p, uint32_t timeout);

//  Run sh -c script to the end (within 10 s) and return its result
drover_msg_t *
    testutil_runner_run_shell (drover_runner_t *runner, const char *script, uint32_t timeout);

//  Drive the runner until a result comes (within 10 s) and check its
//  outcome; the caller checks the rest and destroys it
drover_msg_t *
    testutil_runner_wait_outcome (drover_runner_t *runner, int outcome);

//  Check that a result's stdout is exactly text
void
    testutil_runner_assert_out (drover_msg_t *result, const char *text);

//  cmocka's setup: a new runner (its state)
int
    testutil_runner_setup (void **state);

//  cmocka's teardown: destroy the runner (twice: harmless) and reap the
//  orphans left to us, the subreaper
int
    testutil_runner_teardown (void **state);

#endif
