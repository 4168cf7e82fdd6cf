/*  =========================================================================
    drover_sqlite - the SQLite backend of drover_store (internal: only
    drover_store.c calls it; the functions mean what drover_store.h
    says of the same names)

    One file, <dir>/state.db, in WAL mode with synchronous=FULL and an
    exclusive lock (one broker per state directory). Tables: meta (format
    marker, state id, next_task, next_seq), tasks (one row per task: the
    submit, the state, the result) and events (one row per run of up to
    1024 events of one batch, packed in a blob: see drover_sqlite.c) and
    worker_admin (an operator's setting per worker id), services (a
    definition per name) and shares (SHARE ADMIN's settings per account or
    owner), each created when missing: a file made before it opens as it
    was.
    =========================================================================
*/

#ifndef DROVER_SQLITE_H_INCLUDED
#define DROVER_SQLITE_H_INCLUDED

#include "drover_store.h"

//  The columns load reads for a task not final, in the order and at the
//  positions of DROVER_SQLBATCH_TASK_COLUMNS, with a literal NULL for each
//  column only a final task uses (its result): SQLite decodes a column
//  read, not a literal, and a million rows pay for every one
#define DROVER_SQLITE_LIVE_COLUMNS \
    "id, key, state, attempt, worker, retries_left, lost, submitted, ended," \
    " priority, procs, mem, timeout, retries, flags, labels, body," \
    " NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, owner," \
    " offered, started, NULL, history, service, slot, affinity," \
    " \"after\", \"begin\", retry_delay, retry_max_delay, \"array\", waits, due, grp, made," \
    " devices, assigned"

//  The two queries load reads the tasks not final with (besides those
//  final it keeps, by their index), merged by id: the fresh ones (plain
//  QUEUED tasks no update touched since their insert) by their id, key,
//  submit time, body, packed small fields and owner; the others by every column
//  they use, with ids between ?1 and ?2 (both excluded): load looks for
//  them only between fresh ids (drover_sqlite.c, s_load_rows). The
//  bench's floor reads the same.
#define DROVER_SQLITE_LOAD_FRESH \
    "SELECT id, key, submitted, body, fresh, owner FROM tasks WHERE fresh IS NOT NULL" \
    " ORDER BY id"
#define DROVER_SQLITE_LOAD_LIVE \
    "SELECT " DROVER_SQLITE_LIVE_COLUMNS " FROM tasks" \
    " WHERE id > ?1 AND id < ?2 AND fresh IS NULL AND NOT (state >= 3) ORDER BY id"
//  Gaps between fresh ids load looks for other live rows in, a range query
//  each, before it reads the rest of the table in one
#define DROVER_SQLITE_GAPS_MAX  4096

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_sqlite_t drover_sqlite_t;

//  Open (or create) the state in dir and read its meta into *meta. Returns
//  NULL with *error_p set (naming the file and what to do) on failure.
drover_sqlite_t *
    drover_sqlite_open (const char *dir, drover_store_meta_t *meta, char **error_p);

//  Close the file; harmless on NULL
void
    drover_sqlite_destroy (drover_sqlite_t **self_p);

//  Apply one batch in one transaction and store meta (already moved on
//  past the batch by the caller) with it. Returns 0 once durable, or -1
//  with error set and nothing kept.
int
    drover_sqlite_apply (drover_sqlite_t *self, drover_change_t **changes, size_t count,
                         const drover_store_meta_t *meta, char *error, size_t error_size);

//  Hand plain QUEUED tasks to the next loads as records made here (a
//  change's record, see drover_change.h) rather than as TASK SUBMITs
void
    drover_sqlite_set_records (drover_sqlite_t *self, bool records);

//  Load the kept tasks (see drover_store_load)
int64_t
    drover_sqlite_load (drover_sqlite_t *self, size_t max_final, drover_store_task_fn *fn,
                        void *arg, char *error, size_t error_size);

//  Read one kept task by id (see drover_store_read_task)
int
    drover_sqlite_read_task (drover_sqlite_t *self, uint64_t id, drover_change_t **change_p,
                             char *error, size_t error_size);

//  Replay the kept events after since (see drover_store_replay)
int64_t
    drover_sqlite_replay (drover_sqlite_t *self, uint64_t since, size_t max,
                          drover_store_event_fn *fn, void *arg,
                          char *error, size_t error_size);

//  Delete old tasks and events (see drover_store_prune)
int64_t
    drover_sqlite_prune (drover_sqlite_t *self, uint64_t keep_count, uint64_t keep_age,
                         uint64_t keep_events, uint64_t now, size_t max_rows,
                         char *error, size_t error_size);

//  Keep an operator's setting of a worker (see drover_store_save_admin)
int
    drover_sqlite_save_admin (drover_sqlite_t *self, const drover_store_admin_t *admin,
                              char *error, size_t error_size);

//  Hand fn every kept setting (see drover_store_load_admin)
int64_t
    drover_sqlite_load_admin (drover_sqlite_t *self, drover_store_admin_fn *fn, void *arg,
                              char *error, size_t error_size);

//  Keep a service's definition (see drover_store_save_service)
int
    drover_sqlite_save_service (drover_sqlite_t *self, const char *name, const byte *def,
                                size_t size, char *error, size_t error_size);

//  Hand fn every kept service (see drover_store_load_services)
int64_t
    drover_sqlite_load_services (drover_sqlite_t *self, drover_store_service_fn *fn,
                                 void *arg, char *error, size_t error_size);

//  Keep a share (see drover_store_save_share)
int
    drover_sqlite_save_share (drover_sqlite_t *self, const drover_store_share_t *share,
                        char *error, size_t error_size);

//  Hand fn every kept share (see drover_store_load_shares)
int64_t
    drover_sqlite_load_shares (drover_sqlite_t *self, drover_store_share_fn *fn, void *arg,
                         char *error, size_t error_size);

//  Start an online copy of the state into path (see drover_store_backup)
drover_sqlbackup_t *
    drover_sqlite_backup (drover_sqlite_t *self, const char *path, int *code_p,
                          char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
