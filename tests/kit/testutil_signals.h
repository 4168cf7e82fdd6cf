/*  =========================================================================
    testutil_signals - waiting on what the broker says on the protocol (a
    worker's row in WORKER TABLE) instead of on a line of some log
    =========================================================================
*/

#ifndef TESTUTIL_SIGNALS_H_INCLUDED
#define TESTUTIL_SIGNALS_H_INCLUDED

#include "testutil_wire.h"

//  The state (drover_worker_state_t: UP, LOST, LEFT) of worker's row in
//  the broker's WORKER TABLE, asked on dealer within 2 s; -1 if it has no
//  row. Asserts the broker answers.
int
    testutil_worker_state (zsock_t *dealer, const char *worker);

//  Wait up to timeout msec until worker's row says state (asking again
//  every 50 msec, at least once); false on timeout
bool
    testutil_await_worker_state (zsock_t *dealer, const char *worker, int state, int timeout);

//  Wait up to timeout msec until worker's row says UP registered after
//  since (msec since the epoch: a registration newer than one seen
//  before); false on timeout
bool
    testutil_await_worker_up_since (zsock_t *dealer, const char *worker, uint64_t since,
                                    int timeout);

//  The msec since the epoch worker's row says it registered (or went), 0
//  if it has no row; asserts the broker answers
uint64_t
    testutil_worker_since (zsock_t *dealer, const char *worker);

#endif
