/*  =========================================================================
    drover_cgfile - the small files of a cgroup directory, read whole and
    written in one write(2), as the kernel's interface files want them

    Shared by the confinement (drover_confine) and the memory limits
    (drover_memlimit). Plain functions, no state.
    =========================================================================
*/

#ifndef DROVER_CGFILE_H_INCLUDED
#define DROVER_CGFILE_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

//  Read a small file whole into a fresh string (caller frees); NULL if
//  unreadable
char *
    drover_cgfile_read (const char *path);

//  Write text into the file dir/file in one write. Returns 0, or -1 with
//  errno set (ENAMETOOLONG if the path does not fit).
int
    drover_cgfile_write (const char *dir, const char *file, const char *text);

//  Tell whether word is one of the entries of list (NULL: none), entries
//  separated by any of the characters of seps
bool
    drover_cgfile_lists (const char *list, const char *word, const char *seps);

#ifdef __cplusplus
}
#endif

#endif
