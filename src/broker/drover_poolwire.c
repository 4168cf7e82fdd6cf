/*  =========================================================================
    drover_poolwire - the elastic pool on the wire: POOL TABLE from a pool,
    POOL ADMIN applied to one, and the answers when there is no pool

    Answering without a pool; building a table from a pool and applying
    an admin to one come with the pool's class (drover_pool.c).
    =========================================================================
*/

#include "drover_poolwire.h"

//  The wire's behaviours are the pool's idle behaviours, by number
_Static_assert (DROVER_POOLADMIN_RUN == (int) DROVER_IDLE_RUN
             && DROVER_POOLADMIN_HOLD == (int) DROVER_IDLE_HOLD
             && DROVER_POOLADMIN_DRAIN == (int) DROVER_IDLE_DRAIN,
                "POOL ADMIN actions are numbered as idle behaviours");
_Static_assert (DROVER_POOL_STATE_MAX == (int) DROVER_INSTANCE_SHUTDOWN,
                "POOL TABLE states are numbered as instance states");

//  Return the reply to a POOL ADMIN, given its code and reason
drover_msg_t *
drover_poolwire_reply (const drover_msg_t *request, int code, const char *reason)
{
    assert (request);
    drover_msg_t *reply = drover_msg_new (code == DROVER_CODE_OK? DROVER_MSG_OK: DROVER_MSG_ERROR);
    reply->seq = request->seq;
    reply->code = (uint16_t) code;
    drover_msg_set_reason (reply, reason);
    return reply;
}

//  Return the reply to request from a broker without a pool
drover_msg_t *
drover_poolwire_none (const drover_msg_t *request)
{
    assert (request);
    if (request->id == DROVER_MSG_POOL_LIST) {
        drover_msg_t *table = drover_msg_new (DROVER_MSG_POOL_TABLE);
        table->seq = request->seq;
        return table;           //  enabled 0, no rows
    }
    if (request->id == DROVER_MSG_POOL_ADMIN)
        return drover_poolwire_reply (request, DROVER_CODE_UNAVAILABLE, "no pool configured");
    char *reason = zsys_sprintf ("%s is not a message the broker accepts",
                                 drover_msg_name (request->id));
    drover_msg_t *reply = drover_poolwire_reply (request, DROVER_CODE_UNEXPECTED, reason);
    zstr_free (&reason);
    return reply;
}
