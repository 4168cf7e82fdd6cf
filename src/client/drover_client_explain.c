/*  =========================================================================
    drover_client_explain - asking the broker why a task waits
    =========================================================================
*/

#include "drover_client_internal.h"

//  Ask why a task waits
drover_msg_t *
drover_client_explain (drover_client_t *self, uint64_t task)
{
    assert (self);
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_EXPLAIN);
    request->task = task;
    drover_msg_t *reply = drover_client_request_expect (self, request,
                                                        DROVER_MSG_TASK_EXPLANATION);
    drover_msg_destroy (&request);
    return reply;
}
