/*  =========================================================================
    drover_cgfile - the small files of a cgroup directory
    =========================================================================
*/

#include "drover_cgfile.h"
#include <fcntl.h>
#include <limits.h>

//  Read a small file whole into a fresh string
char *
drover_cgfile_read (const char *path)
{
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    if (fd == -1)
        return NULL;
    size_t size = 0, alloc = 4096;
    char *text = (char *) zmalloc (alloc);
    ssize_t rc;
    while ((rc = read (fd, text + size, alloc - 1 - size)) > 0 || (rc == -1 && errno == EINTR)) {
        size += rc > 0? (size_t) rc: 0;
        if (size + 1 == alloc) {
            alloc *= 2;
            text = (char *) realloc (text, alloc);
            assert (text);
        }
    }
    close (fd);
    text [size] = 0;
    return text;
}

//  Write text into dir/file in one write
int
drover_cgfile_write (const char *dir, const char *file, const char *text)
{
    char path [PATH_MAX];
    if (snprintf (path, sizeof path, "%s/%s", dir, file) >= (int) sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = open (path, O_WRONLY | O_CLOEXEC);
    if (fd == -1)
        return -1;
    ssize_t size = (ssize_t) strlen (text);
    int rc = write (fd, text, (size_t) size) == size? 0: -1;
    int error = errno;
    close (fd);
    errno = error;
    return rc;
}

//  Tell whether word is one of the entries of list, entries separated by
//  any of seps (cgroup.controllers: spaces; cgroup.procs: newlines)
bool
drover_cgfile_lists (const char *list, const char *word, const char *seps)
{
    size_t size = strlen (word);
    for (const char *cursor = list; cursor && *cursor; ) {
        size_t span = strcspn (cursor, seps);
        if (span == size && memcmp (cursor, word, size) == 0)
            return true;
        cursor += span;
        cursor += strspn (cursor, seps);
    }
    return false;
}
