/*  =========================================================================
    drover_sqlite_write - the SQLite backend's writes: a batch applied in
    one transaction, old tasks and events pruned, an operator's setting or
    a service's definition kept in a transaction of its own

    apply merges the changes of one task within the batch into one write
    (an INSERT if its submit is in the batch, else one UPDATE), and writes
    the events as blobs of up to S_EVENTS_ROW packed events each, one row
    per blob, packed by drover_eventpack (see drover_sqlite.c for why).
    =========================================================================
*/

#include "drover_sqlite_internal.h"
#include "drover_eventpack.h"

//  Bind a text that may be NULL or empty (stored as NULL)
static void
s_bind_text (sqlite3_stmt *stmt, int column, const char *text)
{
    if (text && *text)
        sqlite3_bind_text (stmt, column, text, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null (stmt, column);
}

//  Bind bytes that may be none (stored as NULL)
static void
s_bind_blob (sqlite3_stmt *stmt, int column, const byte *data, size_t size)
{
    if (data && size)
        sqlite3_bind_blob64 (stmt, column, data, size, SQLITE_STATIC);
    else
        sqlite3_bind_null (stmt, column);
}

//  Bind a task's state after its last change (?3-?7) and, final, when it
//  ended with its result (?10, ?19-?26)
static void
s_bind_state (sqlite3_stmt *stmt, drover_change_t *last, drover_change_t *done)
{
    sqlite3_bind_int64 (stmt, 1, (sqlite3_int64) last->task);
    sqlite3_bind_int (stmt, 3, last->state);
    sqlite3_bind_int64 (stmt, 4, last->attempt);
    sqlite3_bind_text (stmt, 5, last->worker, -1, SQLITE_STATIC);
    sqlite3_bind_int64 (stmt, 6, last->retries_left);
    sqlite3_bind_int (stmt, 7, last->lost);
    sqlite3_bind_int64 (stmt, 28, last->offered_at);
    sqlite3_bind_int64 (stmt, 29, last->started_at);
    s_bind_blob (stmt, 31, last->history, last->history_size);
    bool final = drover_change_final (last);
    sqlite3_int64 ended = last->ended_at? last->ended_at: (sqlite3_int64) last->time;
    sqlite3_bind_int64 (stmt, 10, final? ended: 0);
    if (done && done->done) {
        drover_msg_t *result = done->done;
        sqlite3_bind_int (stmt, 19, result->end);
        sqlite3_bind_int (stmt, 20, result->exit_code);
        sqlite3_bind_int (stmt, 21, result->signal);
        sqlite3_bind_int64 (stmt, 22, result->duration);
        sqlite3_bind_int64 (stmt, 23, result->truncated);
        s_bind_text (stmt, 24, result->reason);
        s_bind_blob (stmt, 25, result->out, result->out_size);
        s_bind_blob (stmt, 26, result->err, result->err_size);
        if (result->outcome <= DROVER_OUTCOME_MAX)
            sqlite3_bind_int (stmt, 30, result->outcome);
        else
            sqlite3_bind_null (stmt, 30);
    }
    else {
        for (int column = 19; column <= 26; column++)
            sqlite3_bind_null (stmt, column);
        sqlite3_bind_null (stmt, 30);
    }
}

//  Bind a new task's submit (?2, ?8, ?9, ?11-?18)
static void
s_bind_submit (sqlite3_stmt *stmt, drover_change_t *change)
{
    drover_msg_t *submit = change->submit;
    s_bind_text (stmt, 2, submit->key);
    sqlite3_bind_int64 (stmt, 8, (sqlite3_int64) change->seq);
    sqlite3_bind_int64 (stmt, 9, change->queued_at? change->queued_at: (sqlite3_int64) change->time);
    sqlite3_bind_int (stmt, 11, submit->priority);
    sqlite3_bind_int64 (stmt, 12, submit->procs);
    sqlite3_bind_int64 (stmt, 13, (sqlite3_int64) submit->mem);
    sqlite3_bind_int64 (stmt, 14, submit->timeout);
    sqlite3_bind_int64 (stmt, 15, submit->retries);
    sqlite3_bind_int64 (stmt, 16, submit->flags);
    if (submit->nlabels) {
        char labels [DROVER_LABELS_MAX * (DROVER_LABEL_MAX + 1)];
        size_t size = 0;
        for (uint32_t index = 0; index < submit->nlabels && index < DROVER_LABELS_MAX; index++) {
            int length = snprintf (labels + size, sizeof labels - size, "%s%s",
                                   index? "\n": "", submit->labels [index]);
            size += (size_t) length;
            if (size >= sizeof labels)
                size = sizeof labels - 1;
        }
        sqlite3_bind_text (stmt, 17, labels, (int) size, SQLITE_TRANSIENT);
    }
    else
        sqlite3_bind_null (stmt, 17);
    s_bind_blob (stmt, 18, submit->body, submit->body_size);
    sqlite3_bind_text (stmt, 27, submit->principal, -1, SQLITE_STATIC);
    s_bind_text (stmt, 32, submit->service [0]? submit->service: NULL);
    sqlite3_bind_int64 (stmt, 33, submit->slot);
    s_bind_text (stmt, 34, submit->affinity);
}

//  Write each task of the batch once: an INSERT for a task submitted in
//  it, else one UPDATE (with the result if it ended). Counts the tasks
//  that became final in *finals. Returns the SQLite result of the first
//  write that failed, or SQLITE_DONE.
static int
s_write_tasks (drover_sqlite_t *self, drover_change_t **changes, size_t ntasks,
               uint64_t *finals)
{
    int rc = SQLITE_DONE;
    for (size_t index = 0; index < ntasks && rc == SQLITE_DONE; index++) {
        const drover_sqlbatch_task_t *slot = drover_sqlbatch_at (self->tasks, index);
        drover_change_t *last = changes [slot->last];
        drover_change_t *done = slot->done >= 0? changes [slot->done]: NULL;
        sqlite3_stmt *stmt;
        if (slot->submit >= 0) {
            stmt = self->stmt [S_INSERT_TASK];
            s_bind_submit (stmt, changes [slot->submit]);
        }
        else
        if (done || drover_change_final (last))
            stmt = self->stmt [S_UPDATE_FINAL];
        else
            stmt = self->stmt [S_UPDATE_STATE];
        s_bind_state (stmt, last, done);
        rc = drover_sqlite_run (stmt);
        if (rc == SQLITE_DONE && drover_change_final (last))
            *finals += (uint64_t) sqlite3_changes (self->db);
    }
    return rc;
}

//  Write the batch's events, S_EVENTS_ROW to a row. Returns the SQLite
//  result of the first write that failed, or SQLITE_DONE.
static int
s_write_events (drover_sqlite_t *self, drover_change_t **changes, size_t count)
{
    int rc = SQLITE_DONE;
    sqlite3_stmt *stmt = self->stmt [S_INSERT_EVENTS];
    for (size_t start = 0; start < count && rc == SQLITE_DONE; start += S_EVENTS_ROW) {
        size_t run = count - start < S_EVENTS_ROW? count - start: S_EVENTS_ROW;
        size_t size = drover_eventpack_pack (self->pack, changes + start, run);
        sqlite3_bind_int64 (stmt, 1, (sqlite3_int64) changes [start]->seq);
        sqlite3_bind_int64 (stmt, 2, (sqlite3_int64) changes [start + run - 1]->seq);
        sqlite3_bind_int64 (stmt, 3, (sqlite3_int64) run);
        sqlite3_bind_blob64 (stmt, 4, self->pack, size, SQLITE_STATIC);
        rc = drover_sqlite_run (stmt);
    }
    return rc;
}

//  Store one meta value (a number)
static int
s_write_meta (drover_sqlite_t *self, const char *name, uint64_t value)
{
    char text [24];
    snprintf (text, sizeof text, "%" PRIu64, value);
    sqlite3_stmt *stmt = self->stmt [S_SET_META];
    sqlite3_bind_text (stmt, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_text (stmt, 2, text, -1, SQLITE_TRANSIENT);
    return drover_sqlite_run (stmt);
}

//  End a transaction that failed: roll back what SQLite has not already
//  rolled back, and write the error text
static void
s_abort (drover_sqlite_t *self, int rc, char *error, size_t error_size)
{
    drover_sqlite_set_error (error, error_size, self->path, self->db, rc);
    if (!sqlite3_get_autocommit (self->db)) {
        int rollback = drover_sqlite_run (self->stmt [S_ROLLBACK]);
        if (rollback != SQLITE_DONE)
            zsys_error ("store: file=%s rollback failed: %s", self->path,
                        sqlite3_errmsg (self->db));
    }
}

//  Apply one batch in one transaction
int
drover_sqlite_apply (drover_sqlite_t *self, drover_change_t **changes, size_t count,
                     const drover_store_meta_t *meta, char *error, size_t error_size)
{
    assert (self && (changes || !count) && meta && error);
    for (size_t index = 1; index < count; index++)
        assert (changes [index]->seq > changes [index - 1]->seq);
    int rc = drover_sqlite_run (self->stmt [S_BEGIN]);
    if (rc != SQLITE_DONE) {
        s_abort (self, rc, error, error_size);
        return -1;
    }
    size_t ntasks = drover_sqlbatch_group (self->tasks, changes, count);
    uint64_t finals = 0;
    rc = s_write_tasks (self, changes, ntasks, &finals);
    if (rc == SQLITE_DONE)
        rc = s_write_events (self, changes, count);
    if (rc == SQLITE_DONE)
        rc = s_write_meta (self, "next_task", meta->next_task);
    if (rc == SQLITE_DONE)
        rc = s_write_meta (self, "next_seq", meta->next_seq);
    if (rc == SQLITE_DONE)
        rc = drover_sqlite_run (self->stmt [S_COMMIT]);
    if (rc != SQLITE_DONE) {
        s_abort (self, rc, error, error_size);
        return -1;
    }
    self->finals += finals;
    return 0;
}

//  Delete up to max_rows final tasks: first the oldest past the newest
//  keep_count (self->finals says how many, so no scan counts them), then
//  those that ended before now - keep_age. Returns the SQLite result,
//  *deleted the rows.
static int
s_prune_tasks (drover_sqlite_t *self, uint64_t keep_count, uint64_t keep_age, uint64_t now,
               size_t max_rows, int64_t *deleted)
{
    *deleted = 0;
    uint64_t past = self->finals > keep_count? self->finals - keep_count: 0;
    int rc = SQLITE_DONE;
    if (past > 0 && max_rows > 0) {
        sqlite3_stmt *stmt = self->stmt [S_PRUNE_OLDEST];
        sqlite3_bind_int64 (stmt, 1, (sqlite3_int64) (past < max_rows? past: max_rows));
        rc = drover_sqlite_run (stmt);
        if (rc == SQLITE_DONE)
            *deleted += sqlite3_changes (self->db);
    }
    if (rc == SQLITE_DONE && keep_age < now && (size_t) *deleted < max_rows) {
        sqlite3_stmt *stmt = self->stmt [S_PRUNE_AGED];
        sqlite3_bind_int64 (stmt, 1, (sqlite3_int64) (now - keep_age));
        sqlite3_bind_int64 (stmt, 2, (sqlite3_int64) (max_rows - (size_t) *deleted));
        rc = drover_sqlite_run (stmt);
        if (rc == SQLITE_DONE)
            *deleted += sqlite3_changes (self->db);
    }
    return rc;
}

//  Delete up to max_rows events rows older than every kept task's first
//  event or past the newest keep_events; returns the SQLite result,
//  *deleted the rows
static int
s_prune_events (drover_sqlite_t *self, uint64_t keep_events, size_t max_rows,
                int64_t *deleted)
{
    *deleted = 0;
    sqlite3_int64 task_cut, last_seq;
    int rc = drover_sqlite_query_int (self->stmt [S_FIRST_TASK_SEQ], 0, &task_cut);
    if (rc == SQLITE_DONE)
        rc = drover_sqlite_query_int (self->stmt [S_LAST_SEQ], 0, &last_seq);
    if (rc != SQLITE_DONE || max_rows == 0)
        return rc;
    sqlite3_int64 cut = task_cut;
    if (keep_events <= (uint64_t) last_seq
    &&  last_seq - (sqlite3_int64) keep_events + 1 > cut)
        cut = last_seq - (sqlite3_int64) keep_events + 1;
    if (cut <= 0)
        return rc;
    sqlite3_stmt *stmt = self->stmt [S_PRUNE_EVENTS];
    sqlite3_bind_int64 (stmt, 1, cut);
    sqlite3_bind_int64 (stmt, 2, (sqlite3_int64) max_rows);
    rc = drover_sqlite_run (stmt);
    if (rc == SQLITE_DONE)
        *deleted = sqlite3_changes (self->db);
    return rc;
}

//  Delete old tasks and events, at most max_rows rows, in one transaction
int64_t
drover_sqlite_prune (drover_sqlite_t *self, uint64_t keep_count, uint64_t keep_age,
                     uint64_t keep_events, uint64_t now, size_t max_rows,
                     char *error, size_t error_size)
{
    assert (self && error);
    int64_t tasks = 0, events = 0;
    int rc = drover_sqlite_run (self->stmt [S_BEGIN]);
    if (rc == SQLITE_DONE)
        rc = s_prune_tasks (self, keep_count, keep_age, now, max_rows, &tasks);
    if (rc == SQLITE_DONE)
        rc = s_prune_events (self, keep_events, max_rows - (size_t) tasks, &events);
    if (rc == SQLITE_DONE)
        rc = drover_sqlite_run (self->stmt [S_COMMIT]);
    if (rc != SQLITE_DONE) {
        s_abort (self, rc, error, error_size);
        return -1;
    }
    self->finals -= (uint64_t) tasks < self->finals? (uint64_t) tasks: self->finals;
    return tasks + events;
}

//  Finalize a write of one statement in its own transaction: 0 if it ran
//  to the end, else -1 with the error set
static int
s_finish_write (drover_sqlite_t *self, sqlite3_stmt *stmt, int rc, char *error,
                size_t error_size)
{
    sqlite3_finalize (stmt);
    if (rc != SQLITE_DONE) {
        drover_sqlite_set_error (error, error_size, self->path, self->db, rc);
        return -1;
    }
    return 0;
}

//  Keep an operator's setting of a worker, in its own transaction
int
drover_sqlite_save_admin (drover_sqlite_t *self, const drover_store_admin_t *admin,
                          char *error, size_t error_size)
{
    assert (self && admin && error);
    bool forget = admin->admin == DROVER_ADMIN_RUN;
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2 (self->db, forget
                                 ? "DELETE FROM worker_admin WHERE worker = ?1"
                                 : "INSERT OR REPLACE INTO worker_admin VALUES (?1, ?2, ?3, ?4, ?5)",
                                 -1, &stmt, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text (stmt, 1, admin->worker, -1, SQLITE_STATIC);
        if (!forget) {
            sqlite3_bind_int (stmt, 2, admin->admin);
            sqlite3_bind_int64 (stmt, 3, admin->flags);
            sqlite3_bind_text (stmt, 4, admin->reason? admin->reason: "", -1, SQLITE_STATIC);
            sqlite3_bind_int64 (stmt, 5, (sqlite3_int64) admin->since);
        }
        rc = drover_sqlite_run (stmt);      //  autocommit: one durable transaction
    }
    return s_finish_write (self, stmt, rc, error, error_size);
}

//  Keep a service's definition, in its own transaction; size 0 forgets it
int
drover_sqlite_save_service (drover_sqlite_t *self, const char *name, const byte *def,
                            size_t size, char *error, size_t error_size)
{
    assert (self && name && error);
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2 (self->db, size == 0
                                 ? "DELETE FROM services WHERE name = ?1"
                                 : "INSERT OR REPLACE INTO services VALUES (?1, ?2)",
                                 -1, &stmt, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text (stmt, 1, name, -1, SQLITE_STATIC);
        if (size)
            sqlite3_bind_blob (stmt, 2, def, (int) size, SQLITE_STATIC);
        rc = drover_sqlite_run (stmt);      //  autocommit: one durable transaction
    }
    return s_finish_write (self, stmt, rc, error, error_size);
}
