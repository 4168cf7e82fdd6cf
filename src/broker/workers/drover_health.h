/*  =========================================================================
    drover_health - when each worker was last heard from, and which have
    been silent for lost-after

    Every worker shares one lost-after, so the worker heard longest ago is
    always the next to be lost: a list in heard order, where hearing from a
    worker moves it to the end in O(1), gives the next deadline at its head.
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

//  Create an empty table; a worker silent for lost_after msec is lost
drover_health_t *
    drover_health_new (uint32_t lost_after);

//  Destroy the table; harmless on NULL
void
    drover_health_destroy (drover_health_t **self_p);

//  Change lost-after, msec (applies to every worker from now on)
void
    drover_health_set_lost_after (drover_health_t *self, uint32_t lost_after);

//  Note that worker id was heard from at now (adding it if new). now must
//  not go backwards; an earlier now counts as the latest seen.
void
    drover_health_observe (drover_health_t *self, const char *id, int64_t now);

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
