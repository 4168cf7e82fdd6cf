/*  =========================================================================
    drover_sqlbackup - an online copy of the SQLite state into a file of
    its own, a bounded number of pages at a time (SQLite's backup API)

    The copy is written to FILE.part in FILE's directory and, once whole,
    synced and linked to FILE (never over a file that is there), so FILE
    is either absent or a whole state. It reads through the state's own
    connection: a commit the store makes between two steps is written into
    the copy as well (SQLite updates a backup whose source is changed
    through the connection that copies it), so the copy, once done, holds
    every commit made until then. A copy that fails, or is destroyed
    before it is done, leaves no FILE.part behind.

    A plain class: no threads; the store actor calls step between its
    turns, so commits are never held up for longer than one step.
    =========================================================================
*/

#ifndef DROVER_SQLBACKUP_H_INCLUDED
#define DROVER_SQLBACKUP_H_INCLUDED

#include <czmq.h>
#include <sqlite3.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_sqlbackup_t drover_sqlbackup_t;

//  Start copying the database of source (its "main") into path. Returns the
//  copy, or NULL with error set (a sentence for the operator, naming path)
//  and *code_p the wire status: 400 if path is not absolute, exists, or
//  cannot be written (its directory missing or not writable: the system's
//  words), 500 if SQLite refuses to start
drover_sqlbackup_t *
    drover_sqlbackup_new (sqlite3 *source, const char *path, int *code_p,
                          char *error, size_t error_size);

//  Destroy the copy: one not done is abandoned and its FILE.part removed;
//  harmless on NULL
void
    drover_sqlbackup_destroy (drover_sqlbackup_t **self_p);

//  Copy up to pages more pages. Returns 0 while there is more to copy, 1
//  once the copy is whole and in place at path, or -1 with error set (the
//  part removed: disk full, I/O error, path taken meanwhile)
int
    drover_sqlbackup_step (drover_sqlbackup_t *self, int pages, char *error,
                           size_t error_size);

//  Return the pages copied so far, and the pages of the source
uint64_t
    drover_sqlbackup_copied (drover_sqlbackup_t *self);
uint64_t
    drover_sqlbackup_total (drover_sqlbackup_t *self);

//  Return the size of the file, bytes (once done; 0 before)
uint64_t
    drover_sqlbackup_bytes (drover_sqlbackup_t *self);

//  Return the file's name, as given
const char *
    drover_sqlbackup_path (drover_sqlbackup_t *self);

#ifdef __cplusplus
}
#endif

#endif
