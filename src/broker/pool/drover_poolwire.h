/*  =========================================================================
    drover_poolwire - the elastic pool on the wire: POOL TABLE from a pool,
    POOL ADMIN applied to one, and the answers when there is no pool

    The pool actor holds the drover_pool_t and calls the two first: it
    decodes nothing of these messages itself. The pool's times are the
    caller's monotonic msec; the table carries wall-clock msec since the
    epoch, so the caller gives the offset wall minus monotonic (e.g.
    zclock_time () - zclock_mono ()). A time of 0 ("never") stays 0.

    drover_poolwire_none answers a POOL LIST or POOL ADMIN when the broker
    has no pool: the broker's main calls it for them when no pool actor
    owns them (the routing table says S_SELF), and a pool actor may call it
    when it runs without a pool.
    =========================================================================
*/

#ifndef DROVER_POOLWIRE_H_INCLUDED
#define DROVER_POOLWIRE_H_INCLUDED

#include <czmq.h>
#include "drover_msg.h"
#include "drover_pool.h"

#ifdef __cplusplus
extern "C" {
#endif

//  Return a POOL TABLE answering request (its seq echoed) with pool's
//  summary and instances, oldest first, at most DROVER_ROWS_MAX of them;
//  config gives the driver and the bounds the summary shows (max-instances,
//  max-price); wall_offset is wall msec minus the pool's msec. The caller
//  destroys it.
drover_msg_t *
    drover_poolwire_table (drover_pool_t *pool, const drover_poolconfig_t *config,
                           const drover_msg_t *request, int64_t wall_offset);

//  Apply a POOL ADMIN to pool at now (the pool's msec): hold, drain or run
//  set the instance's idle behaviour, destroy kills it. Returns the status
//  code of the reply: DROVER_CODE_OK (200), DROVER_CODE_NOT_FOUND (404) no
//  such instance, DROVER_CODE_CONFLICT (410) it is shutting down,
//  DROVER_CODE_BAD_REQUEST (400) not a POOL ADMIN or no such action; and
//  sets *reason_p to the reply's reason (the caller frees it).
int
    drover_poolwire_admin (drover_pool_t *pool, const drover_msg_t *request, uint64_t now,
                           char **reason_p);

//  Return the reply to request (its seq echoed) from a broker without a
//  pool: a POOL TABLE with enabled 0 and no rows for a POOL LIST, ERROR
//  503 "no pool configured" for a POOL ADMIN, ERROR 415 for anything else.
//  The caller destroys it.
drover_msg_t *
    drover_poolwire_none (const drover_msg_t *request);

//  Return the reply to a POOL ADMIN, given the code and reason
//  drover_poolwire_admin returned: OK or ERROR, seq echoed. The caller
//  destroys it.
drover_msg_t *
    drover_poolwire_reply (const drover_msg_t *request, int code, const char *reason);

#ifdef __cplusplus
}
#endif

#endif
