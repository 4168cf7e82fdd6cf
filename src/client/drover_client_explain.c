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
    drover_msg_t *reply = drover_client_request (self, request);
    drover_msg_destroy (&request);
    if (reply && reply->id != DROVER_MSG_TASK_EXPLANATION) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_PROTOCOL, "broker answered %s to %s",
                                 drover_msg_name (reply->id),
                                 drover_msg_name (DROVER_MSG_TASK_EXPLAIN));
        drover_msg_destroy (&reply);
    }
    return reply;
}
