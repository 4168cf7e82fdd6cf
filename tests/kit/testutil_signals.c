/*  =========================================================================
    testutil_signals - waiting on the broker's replies, not on its log
    (see the header)
    =========================================================================
*/

#include "testutil_signals.h"

//  Ask WORKER LIST on dealer and copy worker's row's state and since into
//  *state (-1: no row) and *since; asserts the broker answers
static void
s_worker_row (zsock_t *dealer, const char *worker, int *state, uint64_t *since)
{
    drover_msg_t *request = drover_msg_new (DROVER_MSG_WORKER_LIST);
    drover_msg_t *reply = testutil_request (dealer, &request, 2000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_WORKER_TABLE);
    *state = -1;
    *since = 0;
    for (uint32_t row = 0; row < reply->nrows; row++)
        if (streq (reply->worker_rows [row].id, worker)) {
            *state = reply->worker_rows [row].state;
            *since = reply->worker_rows [row].since;
        }
    drover_msg_destroy (&reply);
}

int
testutil_worker_state (zsock_t *dealer, const char *worker)
{
    int state;
    uint64_t since;
    s_worker_row (dealer, worker, &state, &since);
    return state;
}

uint64_t
testutil_worker_since (zsock_t *dealer, const char *worker)
{
    int state;
    uint64_t since;
    s_worker_row (dealer, worker, &state, &since);
    return since;
}

//  Wait until worker's row says state, registered or gone after since
static bool
s_await_row (zsock_t *dealer, const char *worker, int wanted, uint64_t after, int timeout)
{
    int64_t deadline = zclock_mono () + timeout;
    while (true) {
        int state;
        uint64_t since;
        s_worker_row (dealer, worker, &state, &since);
        if (state == wanted && since > after)
            return true;
        if (zclock_mono () >= deadline)
            return false;
        zclock_sleep (50);      //  paces the questions; the deadline bounds the wait
    }
}

bool
testutil_await_worker_state (zsock_t *dealer, const char *worker, int state, int timeout)
{
    return s_await_row (dealer, worker, state, 0, timeout);
}

bool
testutil_await_worker_up_since (zsock_t *dealer, const char *worker, uint64_t since,
                                int timeout)
{
    return s_await_row (dealer, worker, DROVER_WORKER_UP, since, timeout);
}
