/*  =========================================================================
    drover_client_pool - listing the broker's elastic pool, and holding,
    draining, running or destroying one of its instances
    =========================================================================
*/

#include "drover_client_internal.h"

//  Ask for the pool's table
drover_msg_t *
drover_client_pool (drover_client_t *self)
{
    assert (self);
    drover_msg_t *request = drover_msg_new (DROVER_MSG_POOL_LIST);
    drover_msg_t *reply = drover_client_request (self, request);
    drover_msg_destroy (&request);
    if (reply && reply->id != DROVER_MSG_POOL_TABLE) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_PROTOCOL, "broker answered %s to %s",
                                 drover_msg_name (reply->id),
                                 drover_msg_name (DROVER_MSG_POOL_LIST));
        drover_msg_destroy (&reply);
    }
    return reply;
}

//  Ask the pool to hold, drain, run or destroy an instance
char *
drover_client_pool_admin (drover_client_t *self, const char *instance, int action)
{
    assert (self);
    assert (instance);
    if (!drover_id_valid (instance)) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID,
                     "'%.64s' is not an instance id (printable, no spaces, 1..64 bytes)",
                     instance);
        return NULL;
    }
    if (action < 0 || action > DROVER_POOLADMIN_MAX) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID, "no pool action %d", action);
        return NULL;
    }
    drover_msg_t *request = drover_msg_new (DROVER_MSG_POOL_ADMIN);
    strcpy (request->worker, instance);
    request->admin = (uint8_t) action;
    drover_msg_t *reply = drover_client_request (self, request);
    char *answer = NULL;
    if (reply && reply->id != DROVER_MSG_OK)
        drover_client_set_error (self, DROVER_CLIENT_ERR_PROTOCOL, "broker answered %s to %s",
                                 drover_msg_name (reply->id), drover_msg_name (request->id));
    else
    if (reply) {
        answer = strdup (reply->reason? reply->reason: "");
        assert (answer);
    }
    drover_msg_destroy (&reply);
    drover_msg_destroy (&request);
    return answer;
}
