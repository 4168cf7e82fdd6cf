/*  =========================================================================
    drover_sqlite_read - the SQLite backend's reads: the tasks loaded at
    start, the events replayed, the settings and services read back. A
    row that breaks a limit is refused as a damaged state, not read past.
    =========================================================================
*/

#include "drover_sqlite_internal.h"
#include "drover_eventpack.h"

//  Copy a column's bytes into a new buffer (NULL if none)
static byte *
s_column_blob (sqlite3_stmt *stmt, int column, size_t *size)
{
    *size = (size_t) sqlite3_column_bytes (stmt, column);
    const void *data = sqlite3_column_blob (stmt, column);
    if (!data || !*size) {
        *size = 0;
        return NULL;
    }
    byte *copy = (byte *) malloc (*size);
    assert (copy);
    memcpy (copy, data, *size);
    return copy;
}

//  Make a change (task.restored) from a row of S_LOAD; NULL if the row
//  breaks a limit (the file is damaged)
static drover_change_t *
s_restored (sqlite3_stmt *stmt)
{
    uint64_t id = (uint64_t) sqlite3_column_int64 (stmt, 0);
    const char *key = (const char *) sqlite3_column_text (stmt, 1);
    int state = sqlite3_column_int (stmt, 2);
    const char *worker = (const char *) sqlite3_column_text (stmt, 4);
    const char *labels = (const char *) sqlite3_column_text (stmt, 15);
    if (id == 0 || state < DROVER_TASK_QUEUED || state > DROVER_TASK_CANCELLED
    || (key && strlen (key) > DROVER_KEY_MAX)
    || (worker && strlen (worker) > DROVER_ID_MAX)
    ||  sqlite3_column_bytes (stmt, 16) > DROVER_BODY_MAX
    ||  sqlite3_column_bytes (stmt, 23) > DROVER_OUTPUT_MAX
    ||  sqlite3_column_bytes (stmt, 24) > DROVER_OUTPUT_MAX
    ||  sqlite3_column_bytes (stmt, 29) > DROVER_MSG_MAX)
        return NULL;
    drover_change_t *change = drover_change_new ("task.restored", id);
    change->state = (uint8_t) state;
    change->attempt = (uint32_t) sqlite3_column_int64 (stmt, 3);
    if (worker)
        snprintf (change->worker, sizeof change->worker, "%s", worker);
    change->retries_left = (uint32_t) sqlite3_column_int64 (stmt, 5);
    change->lost = (uint16_t) sqlite3_column_int (stmt, 6);
    change->time = (uint64_t) sqlite3_column_int64 (stmt, 7);
    change->queued_at = sqlite3_column_int64 (stmt, 7);
    change->ended_at = sqlite3_column_int64 (stmt, 8);
    change->offered_at = sqlite3_column_int64 (stmt, 26);
    change->started_at = sqlite3_column_int64 (stmt, 27);
    change->history = s_column_blob (stmt, 29, &change->history_size);

    drover_msg_t *submit = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    submit->task = id;
    submit->key = key? strdup (key): NULL;
    submit->priority = sqlite3_column_int (stmt, 9);
    submit->procs = (uint32_t) sqlite3_column_int64 (stmt, 10);
    submit->mem = (uint64_t) sqlite3_column_int64 (stmt, 11);
    submit->timeout = (uint32_t) sqlite3_column_int64 (stmt, 12);
    submit->retries = (uint32_t) sqlite3_column_int64 (stmt, 13);
    submit->flags = (uint32_t) sqlite3_column_int64 (stmt, 14);
    while (labels && *labels && submit->nlabels < DROVER_LABELS_MAX) {
        size_t length = strcspn (labels, "\n");
        submit->labels [submit->nlabels++] = strndup (labels, length);
        labels += length + (labels [length] == '\n');
    }
    submit->body = s_column_blob (stmt, 16, &submit->body_size);
    const char *owner = (const char *) sqlite3_column_text (stmt, 25);
    snprintf (submit->principal, sizeof submit->principal, "%s", owner? owner: "");
    const char *service = (const char *) sqlite3_column_text (stmt, 30);
    snprintf (submit->service, sizeof submit->service, "%s", service? service: "");
    submit->slot = (uint32_t) sqlite3_column_int64 (stmt, 31);
    const char *affinity = (const char *) sqlite3_column_text (stmt, 32);
    submit->affinity = affinity && *affinity? strdup (affinity): NULL;
    change->submit = submit;

    if (drover_change_final (change)) {
        drover_msg_t *done = drover_msg_new (DROVER_MSG_TASK_DONE);
        done->task = id;
        done->state = (uint8_t) state;
        done->attempt = change->attempt;
        snprintf (done->worker, sizeof done->worker, "%s", change->worker);
        done->end = (uint8_t) sqlite3_column_int (stmt, 17);
        done->exit_code = sqlite3_column_int (stmt, 18);
        done->signal = sqlite3_column_int (stmt, 19);
        done->duration = (uint32_t) sqlite3_column_int64 (stmt, 20);
        done->truncated = (uint32_t) sqlite3_column_int64 (stmt, 21);
        const char *reason = (const char *) sqlite3_column_text (stmt, 22);
        if (reason)
            drover_msg_set_reason (done, reason);
        done->out = s_column_blob (stmt, 23, &done->out_size);
        done->err = s_column_blob (stmt, 24, &done->err_size);
        done->outcome = sqlite3_column_type (stmt, 28) == SQLITE_NULL? DROVER_ATTEMPT_NO_RESULT
                      : (uint8_t) sqlite3_column_int (stmt, 28);
        change->done = done;
    }
    return change;
}

//  Load the kept tasks: those not final, and the newest max_final final
//  ones (by when they ended), oldest id first
int64_t
drover_sqlite_load (drover_sqlite_t *self, size_t max_final, drover_store_task_fn *fn,
                    void *arg, char *error, size_t error_size)
{
    assert (self && fn && error);
    //  The oldest final task to keep, as (ended, id); none if max_final is 0
    sqlite3_int64 cut_ended = INT64_MAX, cut_id = INT64_MAX;
    sqlite3_stmt *stmt = self->stmt [S_LOAD_CUT];
    int rc = SQLITE_DONE;
    if (max_final > 0) {
        sqlite3_bind_int64 (stmt, 1, (sqlite3_int64) max_final - 1);
        rc = sqlite3_step (stmt);
        if (rc == SQLITE_ROW) {
            cut_ended = sqlite3_column_int64 (stmt, 0);
            cut_id = sqlite3_column_int64 (stmt, 1);
            rc = SQLITE_DONE;
        }
        else
        if (rc == SQLITE_DONE)
            cut_ended = cut_id = -1;    //  fewer than max_final: all of them
        sqlite3_reset (stmt);
    }
    int64_t loaded = 0;
    if (rc == SQLITE_DONE) {
        stmt = self->stmt [S_LOAD];
        sqlite3_bind_int64 (stmt, 1, cut_ended);
        sqlite3_bind_int64 (stmt, 2, cut_id);
        while ((rc = sqlite3_step (stmt)) == SQLITE_ROW) {
            drover_change_t *change = s_restored (stmt);
            if (!change) {
                snprintf (error, error_size, "%s: damaged drover state (task %lld out of"
                          " bounds): " S_WHAT_TO_DO, self->path, sqlite3_column_int64 (stmt, 0));
                sqlite3_reset (stmt);
                return -1;
            }
            int stop = fn (arg, &change);
            drover_change_destroy (&change);
            loaded++;
            if (stop) {
                rc = SQLITE_DONE;
                break;
            }
        }
        sqlite3_reset (stmt);
    }
    if (rc != SQLITE_DONE) {
        drover_sqlite_set_error (error, error_size, self->path, self->db, rc);
        return -1;
    }
    return loaded;
}

//  Read one kept task by id: 1 and *change_p, 0 if not kept, or -1
int
drover_sqlite_read_task (drover_sqlite_t *self, uint64_t id, drover_change_t **change_p,
                         char *error, size_t error_size)
{
    assert (self && change_p && error);
    sqlite3_stmt *stmt = self->stmt [S_READ_TASK];
    sqlite3_bind_int64 (stmt, 1, (sqlite3_int64) (id > INT64_MAX? INT64_MAX: id));
    int rc = sqlite3_step (stmt);
    int found = 0;
    if (rc == SQLITE_ROW) {
        *change_p = s_restored (stmt);
        if (*change_p)
            found = 1;
        else {
            snprintf (error, error_size, "%s: damaged drover state (task %" PRIu64 " out of"
                      " bounds): " S_WHAT_TO_DO, self->path, id);
            found = -1;
        }
    }
    else
    if (rc != SQLITE_DONE) {
        drover_sqlite_set_error (error, error_size, self->path, self->db, rc);
        found = -1;
    }
    sqlite3_reset (stmt);
    return found;
}

//  Hand fn the kept events with seq > since, in order, at most max
int64_t
drover_sqlite_replay (drover_sqlite_t *self, uint64_t since, size_t max,
                      drover_store_event_fn *fn, void *arg, char *error, size_t error_size)
{
    assert (self && fn && error);
    sqlite3_stmt *stmt = self->stmt [S_REPLAY];
    sqlite3_bind_int64 (stmt, 1, (sqlite3_int64) (since > INT64_MAX? INT64_MAX: since));
    int64_t handed = 0;
    int rc = SQLITE_DONE;
    while ((size_t) handed < max && (rc = sqlite3_step (stmt)) == SQLITE_ROW) {
        uint64_t first_seq = (uint64_t) sqlite3_column_int64 (stmt, 0);
        int64_t count = sqlite3_column_int64 (stmt, 1);
        const byte *data = (const byte *) sqlite3_column_blob (stmt, 2);
        size_t size = (size_t) sqlite3_column_bytes (stmt, 2);
        int status = drover_eventpack_unpack (data, size, first_seq, count, since, max, fn, arg,
                                              &handed);
        if (status < 0) {
            snprintf (error, error_size, "%s: damaged drover state (events from seq %" PRIu64
                      "): " S_WHAT_TO_DO, self->path, first_seq);
            sqlite3_reset (stmt);
            return -1;
        }
        if (status > 0)
            break;
    }
    if ((size_t) handed < max && rc != SQLITE_DONE && rc != SQLITE_ROW) {
        drover_sqlite_set_error (error, error_size, self->path, self->db, rc);
        sqlite3_reset (stmt);
        return -1;
    }
    sqlite3_reset (stmt);
    return handed;
}

//  Hand fn every kept setting, in worker id order
int64_t
drover_sqlite_load_admin (drover_sqlite_t *self, drover_store_admin_fn *fn, void *arg,
                          char *error, size_t error_size)
{
    assert (self && fn && error);
    sqlite3_stmt *stmt = NULL;
    int64_t count = 0;
    int rc = sqlite3_prepare_v2 (self->db, "SELECT worker, admin, flags, reason, since"
                                 " FROM worker_admin ORDER BY worker", -1, &stmt, NULL);
    while (rc == SQLITE_OK || rc == SQLITE_ROW) {
        rc = sqlite3_step (stmt);
        if (rc != SQLITE_ROW)
            break;
        const char *worker = (const char *) sqlite3_column_text (stmt, 0);
        const char *reason = (const char *) sqlite3_column_text (stmt, 3);
        int admin = sqlite3_column_int (stmt, 1);
        if (!worker || !drover_id_valid (worker) || admin < DROVER_ADMIN_RUN
        ||  admin > DROVER_ADMIN_MAX)
            continue;           //  not one we wrote: skipped
        drover_store_admin_t row = {
            .worker = worker, .admin = admin,
            .flags = (uint32_t) sqlite3_column_int64 (stmt, 2),
            .reason = reason? reason: "",
            .since = (uint64_t) sqlite3_column_int64 (stmt, 4)
        };
        count++;
        if (fn (arg, &row))
            break;
    }
    sqlite3_finalize (stmt);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
        drover_sqlite_set_error (error, error_size, self->path, self->db, rc);
        return -1;
    }
    return count;
}

//  Hand fn every kept service, in name order
int64_t
drover_sqlite_load_services (drover_sqlite_t *self, drover_store_service_fn *fn, void *arg,
                             char *error, size_t error_size)
{
    assert (self && fn && error);
    sqlite3_stmt *stmt = NULL;
    int64_t count = 0;
    int rc = sqlite3_prepare_v2 (self->db, "SELECT name, def FROM services ORDER BY name",
                                 -1, &stmt, NULL);
    while (rc == SQLITE_OK || rc == SQLITE_ROW) {
        rc = sqlite3_step (stmt);
        if (rc != SQLITE_ROW)
            break;
        const char *name = (const char *) sqlite3_column_text (stmt, 0);
        const byte *def = (const byte *) sqlite3_column_blob (stmt, 1);
        int size = sqlite3_column_bytes (stmt, 1);
        if (!name || !drover_id_valid (name) || !def || size <= 0)
            continue;           //  not one we wrote: skipped
        count++;
        if (fn (arg, name, def, (size_t) size))
            break;
    }
    sqlite3_finalize (stmt);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
        drover_sqlite_set_error (error, error_size, self->path, self->db, rc);
        return -1;
    }
    return count;
}
