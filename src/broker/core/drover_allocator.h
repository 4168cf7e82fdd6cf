/*  =========================================================================
    drover_allocator - the broker's settings for its memory allocator

    A broker runs for months and works in bursts: a restart restores a
    million tasks, a client submits a batch, then the actors sit idle. With
    jemalloc (CMakeLists.txt: DROVER_JEMALLOC), memory freed after a burst
    is returned to the system only when the thread that freed it allocates
    again, and then over ten seconds; an idle actor's arena keeps it
    resident for good. The broker therefore asks jemalloc, once at start,
    for a background thread that returns freed pages while the actors are
    idle, after about a second, and with MADV_DONTNEED (the pages leave the
    RSS, which an operator and a cgroup's memory limit see) rather than
    MADV_FREE (the pages stay counted until the kernel is short of memory).
    With glibc malloc it does nothing. No threads of its own, no I/O.
    =========================================================================
*/

#ifndef DROVER_ALLOCATOR_H_INCLUDED
#define DROVER_ALLOCATOR_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

//  Msec after which the broker's freed pages go back to the system
#define DROVER_ALLOCATOR_DECAY_MSEC  1000

//  Set the allocator up for a long-running broker: freed pages returned by
//  a background thread after DROVER_ALLOCATOR_DECAY_MSEC, in every arena.
//  Call once, early, before the actors start. Returns true if jemalloc
//  took the settings, false with another allocator (or if it refused).
bool
    drover_allocator_tune_broker (void);

#ifdef __cplusplus
}
#endif

#endif
