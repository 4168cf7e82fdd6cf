/*  =========================================================================
    drover_allocator - the broker's settings for its memory allocator (see
    the header)
    =========================================================================
*/

#include "drover_allocator.h"

//  jemalloc's control call, if the executable was linked with jemalloc;
//  NULL with glibc malloc (as in drover_actor.c)
extern int mallctl (const char *name, void *old, size_t *old_size, void *new_value,
                    size_t new_size) __attribute__ ((weak));

//  Set one ssize_t setting; true if jemalloc took it
static bool
s_set_msec (const char *name, ssize_t value)
{
    return mallctl (name, NULL, NULL, &value, sizeof value) == 0;
}

//  Decay settings for the arenas to come, then for each one made so far
//  (an arena not yet made refuses, and takes the defaults when made), then
//  the background thread that applies them while threads are idle
bool
drover_allocator_tune_broker (void)
{
    if (!mallctl)
        return false;
    bool taken = s_set_msec ("arenas.dirty_decay_ms", DROVER_ALLOCATOR_DECAY_MSEC)
              && s_set_msec ("arenas.muzzy_decay_ms", 0);
    unsigned narenas = 0;
    size_t size = sizeof narenas;
    if (mallctl ("arenas.narenas", &narenas, &size, NULL, 0))
        narenas = 0;
    for (unsigned arena = 0; arena < narenas; arena++) {
        char name [64];
        snprintf (name, sizeof name, "arena.%u.dirty_decay_ms", arena);
        if (s_set_msec (name, DROVER_ALLOCATOR_DECAY_MSEC)) {
            snprintf (name, sizeof name, "arena.%u.muzzy_decay_ms", arena);
            s_set_msec (name, 0);
        }
    }
    bool on = true;
    taken = taken && mallctl ("background_thread", NULL, NULL, &on, sizeof on) == 0;
    if (!taken)
        zsys_warning ("broker: jemalloc did not take its decay settings");
    return taken;
}
