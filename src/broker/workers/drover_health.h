/*  =========================================================================
    drover_health - when each worker was last heard from, and which have
    been silent for lost-after

    Every worker shares one lost-after, times its scale: a worker told a
    heartbeat interval of N times the broker's heartbeat setting may be
    silent N times as long. Among workers of one scale the one heard
    longest ago is always the next to be lost: a list per scale in heard
    order, where hearing from a worker moves it to the end in O(1), gives
    the next deadline at one of a few heads.
    A plain class called with `now` (msec, zclock_mono): no threads, no I/O.
    =========================================================================
*/

#ifndef DROVER_HEALTH_H_INCLUDED
#define DROVER_HEALTH_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_health_t drover_health_t;

//  The longest heartbeat interval the broker tells, msec
#define DROVER_HEALTH_INTERVAL_MAX  3600000

//  Create an empty table; a worker silent for lost_after msec is lost
drover_health_t *
    drover_health_new (uint32_t lost_after);

//  Destroy the table; harmless on NULL
void
    drover_health_destroy (drover_health_t **self_p);

//  Change lost-after, msec (applies to every worker from now on)
void
    drover_health_set_lost_after (drover_health_t *self, uint32_t lost_after);

//  Return lost-after, msec (of a worker of scale 1)
uint32_t
    drover_health_lost_after (drover_health_t *self);

//  Note that worker id was heard from at now (adding it if new). now must
//  not go backwards; an earlier now counts as the latest seen.
void
    drover_health_observe (drover_health_t *self, const char *id, int64_t now);

//  Note that worker id was heard from at now, and that it is lost after
//  lost-after x scale msec of silence from now on (scale 1 or more)
void
    drover_health_observe_scaled (drover_health_t *self, const char *id, int64_t now,
                                  uint32_t scale);

//  Return a worker's scale, or 0 if it is not known
uint32_t
    drover_health_scale (drover_health_t *self, const char *id);

//  Return the heartbeat interval to tell a worker when workers are
//  registered (with it) and the broker aims at rate heartbeats a second:
//  workers x 1000 / rate msec, rounded up to a whole number of floors (the
//  heartbeat setting), floor at least, 256 floors (and
//  DROVER_HEALTH_INTERVAL_MAX) at most; rate 0: always floor
uint32_t
    drover_health_interval (uint32_t floor, uint32_t rate, size_t workers);

//  Return true if a worker told told msec between heartbeats should be
//  told fleet msec instead: the two are half again or more apart, so a
//  fleet that grows or shrinks by a few workers tells nobody again
bool
    drover_health_repace_due (uint32_t told, uint32_t fleet);

//  Return the grace after start or leadership, msec: grace if not 0, else
//  lost-after and the window over which workers jitter their reconnects,
//  min(heartbeat, DROVER_RECONNECT_JITTER_MAX)
uint32_t
    drover_health_grace (uint32_t grace, uint32_t heartbeat, uint32_t lost_after);

//  Move every worker's last-heard forward by gap msec: the caller itself
//  did not run for that long (drover_turns_stall), so it could not hear
//  them; their silence starts again from where it was
void
    drover_health_shift (drover_health_t *self, int64_t gap);

//  Forget a worker. Returns true if it was known.
bool
    drover_health_forget (drover_health_t *self, const char *id);

//  Return the time the next worker is lost if nothing is heard, or -1 if
//  no worker is known
int64_t
    drover_health_next_deadline (drover_health_t *self);

//  Take out one worker silent for lost-after at now; returns its id
//  (caller frees with zstr_free), or NULL if none. Call until NULL.
char *
    drover_health_expire (drover_health_t *self, int64_t now);

//  Return true if the worker is known
bool
    drover_health_contains (drover_health_t *self, const char *id);

//  Return when the worker was last heard from, or -1 if unknown
int64_t
    drover_health_last_heard (drover_health_t *self, const char *id);

//  Return how many workers are known
size_t
    drover_health_size (drover_health_t *self);

#ifdef __cplusplus
}
#endif

#endif
