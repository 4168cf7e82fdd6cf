/*  =========================================================================
    drover_zeroed - a large array of zeros, its pages written at once

    An open-addressing index reads a slot before it writes it. On memory
    fresh from the kernel, that first read maps the shared zero page, and
    the write that follows replaces it, which flushes the TLB of every CPU
    running one of the process's threads: for a million tasks, thousands
    of such flushes in the broker's start. Writing the zeros first maps
    each page once, for writing. Header only: one small inline function.
    =========================================================================
*/

#ifndef DROVER_ZEROED_H_INCLUDED
#define DROVER_ZEROED_H_INCLUDED

#include <czmq.h>

//  Allocate size bytes of zeros, each page written now (explicit_bzero:
//  the compiler may not fold it into calloc, which would skip the write)
static inline void *
drover_zeroed_new (size_t size)
{
    void *memory = malloc (size);
    assert (memory);
    explicit_bzero (memory, size);
    return memory;
}

#endif
