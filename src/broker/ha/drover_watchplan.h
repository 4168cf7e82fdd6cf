/*  =========================================================================
    drover_watchplan - when the elector reads etcd: watching, or polling
    because the watch is down

    The elector (actors/drover_elector_actor.c) watches PREFIX/ with etcd's
    watch API (src/broker/ha/drover_etcdwatch.c) and reads its keys again
    each time the watch says something changed. This class decides, from
    what the watch did and a time, how long until the next read: the slow
    safety poll (ha/safety-check) while the watch is up, the fast poll
    (min(ttl/4, ha/check-max)) while it is down or not yet created, and when
    to open the watch again after a break (from ha/retry-min, doubling to
    ha/retry-max). It also says when a break or a recovery is news, so the
    log says each once. A plain class, no I/O, time passed in.
    =========================================================================
*/

#ifndef DROVER_WATCHPLAN_H_INCLUDED
#define DROVER_WATCHPLAN_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_watchplan_t drover_watchplan_t;

//  The watch's states
#define DROVER_WATCHPLAN_OFF        0   //  not watching (ha/watch off): always poll
#define DROVER_WATCHPLAN_OPENING    1   //  a watch asked for, not yet created: poll
#define DROVER_WATCHPLAN_UP         2   //  created: the safety poll only
#define DROVER_WATCHPLAN_DOWN       3   //  broken: poll, and open again at reopen_at

//  Create a plan: poll every poll msec while the watch is not up, every
//  safety msec while it is; reopen a broken watch after retry_min msec,
//  doubling to retry_max. enabled false: never watch, always poll.
drover_watchplan_t *
    drover_watchplan_new (bool enabled, uint32_t poll, uint32_t safety, uint32_t retry_min,
                          uint32_t retry_max);

//  Destroy the plan; harmless on NULL
void
    drover_watchplan_destroy (drover_watchplan_t **self_p);

//  The state, DROVER_WATCHPLAN_...
int
    drover_watchplan_state (drover_watchplan_t *self);

//  A watch was asked for at now
void
    drover_watchplan_opening (drover_watchplan_t *self, int64_t now);

//  etcd created the watch at now. Returns true if this ends a break (the
//  caller logs the recovery once)
bool
    drover_watchplan_up (drover_watchplan_t *self, int64_t now);

//  The watch broke at now (its connection ended, etcd cancelled it, or a
//  call to etcd failed so its silence proves nothing). Returns true if this
//  is news (it was opening or up: the caller logs the break once); the
//  next open is due after the backoff, which doubles with each break
//  that comes before the watch was up again.
bool
    drover_watchplan_broken (drover_watchplan_t *self, int64_t now);

//  True if a watch should be opened at now (off, opening and up: false)
bool
    drover_watchplan_open_due (drover_watchplan_t *self, int64_t now);

//  When the next open is due (msec mono), -1 if none is
int64_t
    drover_watchplan_open_at (drover_watchplan_t *self);

//  msec from one read of the keys to the next, for the state now
uint32_t
    drover_watchplan_interval (drover_watchplan_t *self);

#ifdef __cplusplus
}
#endif

#endif
