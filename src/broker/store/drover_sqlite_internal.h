/*  =========================================================================
    drover_sqlite_internal - what the SQLite backend's three files share:
    drover_sqlite.c (the file: open, create, check, upgrade, close),
    drover_sqlite_write.c (apply a batch, prune, keep a setting or a
    service) and drover_sqlite_read.c (load, replay, the settings and
    services read back). Not for any other file.
    =========================================================================
*/

#ifndef DROVER_SQLITE_INTERNAL_H_INCLUDED
#define DROVER_SQLITE_INTERNAL_H_INCLUDED

#include "drover_sqlite.h"
#include "drover_sqlbatch.h"
#include <sqlite3.h>

#define S_EVENTS_ROW    1024                //  events packed in one events row, at most
#define S_WHAT_TO_DO    "move it away to start with an empty state, or restore a backup"

//  The statements, by index in drover_sqlite.c's table, prepared once.
//  Task writes share one parameter numbering: ?1 id, ?2 key, ?3-?7
//  state, attempt, worker, retries_left, lost, ?8 seq, ?9 submitted, ?10
//  ended, ?11-?18 the submit, ?19-?26 the result, ?27 the owner, ?28
//  offered, ?29 started, ?30 last_outcome, ?31 history, ?32-?34 the
//  submit's service, slot and affinity.
typedef enum {
    S_BEGIN, S_COMMIT, S_ROLLBACK, S_INSERT_TASK, S_UPDATE_STATE, S_UPDATE_FINAL,
    S_INSERT_EVENTS, S_SET_META, S_LOAD_CUT, S_LOAD, S_REPLAY, S_COUNT_FINAL,
    S_PRUNE_OLDEST, S_PRUNE_AGED, S_FIRST_TASK_SEQ, S_LAST_SEQ, S_PRUNE_EVENTS, S_READ_TASK,
    S_STATEMENTS
} drover_sqlite_statement_t;

struct _drover_sqlite_t {
    sqlite3 *db;                    //  the open state.db
    char *path;                     //  its file name, for error texts
    sqlite3_stmt *stmt [S_STATEMENTS];  //  prepared statements, drover_sqlite_statement_t
    drover_sqlbatch_t *tasks;      //  the batch's changes by task
    byte *pack;                     //  buffer for packing one events row
    uint64_t finals;                //  final tasks kept: prune by count needs no scan
    int upgrade;                    //  the file's format to upgrade (1 to 3), 0 if current
};

//  In drover_sqlite.c

//  Write the error text for a failed SQLite call on path: its message,
//  and what to do when the file is damaged
void
    drover_sqlite_set_error (char *error, size_t error_size, const char *path, sqlite3 *db,
                             int rc);

//  Run a statement that returns no row and reset it. Returns the SQLite
//  result code (SQLITE_DONE on success).
int
    drover_sqlite_run (sqlite3_stmt *stmt);

//  Read one integer from a one-row query; def if no row or NULL. Returns
//  the SQLite result (SQLITE_DONE on success).
int
    drover_sqlite_query_int (sqlite3_stmt *stmt, sqlite3_int64 def, sqlite3_int64 *value);

#endif
