/*  =========================================================================
    drover_ha - one broker of several: a leader elected through etcd, the
    others standing by

    The process binds its sockets once and keeps them. The elector actor
    (actors/drover_elector_actor.c) campaigns in etcd; while another broker
    leads, the standby (drover_standby) answers every peer with a REDIRECT
    naming it. When the elector says LEADER, the broker's actors start and
    load the state from the shared database, held with the election's
    revision as fencing token; when it says DEPOSED, or the store says
    FENCED (a newer leader wrote), the actors stop and the broker stands by
    again. Events broker.leader and broker.standby mark each change.
    =========================================================================
*/

#ifndef DROVER_HA_H_INCLUDED
#define DROVER_HA_H_INCLUDED

#include "drover_config.h"
#include "drover_reload.h"

#ifdef __cplusplus
extern "C" {
#endif

//  Run the broker as one of several (ha/etcd set) until interrupted.
//  Returns the exit status: 0, or 1 if its sockets cannot be bound.
int
    drover_ha_main (drover_config_t *config, bool verbose, drover_reload_t *reload);

//  The backoff after a failed start (the leader's, or a named queue's
//  cell's), msec: min (ha/start-backoff-min) after the first failure
//  (backoff 0), then doubling, to max (ha/start-backoff-max) at most
int
    drover_ha_next_backoff (int backoff, uint32_t min, uint32_t max);

//  Check the HA timers that go in pairs (ha/retry-min <= ha/retry-max,
//  ha/start-backoff-min <= ha/start-backoff-max, ha/safety-check >=
//  ha/check-max): 0, or -1 and *error_p (ours, if error_p is not NULL)
//  naming both keys
int
    drover_ha_check_timers (const drover_config_t *config, char **error_p);

#ifdef __cplusplus
}
#endif

#endif
