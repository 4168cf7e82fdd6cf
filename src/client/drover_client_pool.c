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
    drover_msg_t *reply = drover_client_request_expect (self, request, DROVER_MSG_POOL_TABLE);
    drover_msg_destroy (&request);
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
    char *answer = drover_client_request_text (self, request);
    drover_msg_destroy (&request);
    return answer;
}
