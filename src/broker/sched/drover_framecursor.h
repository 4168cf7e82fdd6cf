/*  =========================================================================
    drover_framecursor - writing and reading the native-layout frames sched
    hands the pool and the reconciler in-process (drover_fleet,
    drover_loadreport)

    A cursor is a byte pointer moved along a frame: numbers go as their
    native bytes, strings as a uint32 length and their bytes, no NUL.
    Reads are unaligned (memcpy) and check the frame's end. Such frames
    never leave the process. Plain functions: no state, no I/O.
    =========================================================================
*/

#ifndef DROVER_FRAMECURSOR_H_INCLUDED
#define DROVER_FRAMECURSOR_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

//  Append size bytes at a cursor, moving it (the frame has room: our sums)
void
    drover_framecursor_put (byte **cursor_p, const void *data, size_t size);

//  Append a string as its length (4) and its bytes
void
    drover_framecursor_put_string (byte **cursor_p, const char *text);

//  Take size bytes from a cursor if the frame holds them before end.
//  Returns false (cursor unmoved) if not.
bool
    drover_framecursor_get (const byte **cursor_p, const byte *end, void *data, size_t size);

//  Take a string (its length, its bytes) from a cursor as a fresh copy
//  (caller frees), or NULL if the frame ends first
char *
    drover_framecursor_get_string (const byte **cursor_p, const byte *end);

#ifdef __cplusplus
}
#endif

#endif
