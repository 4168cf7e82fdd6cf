/*  =========================================================================
    drover_postgres_read - the PostgreSQL backend's reads: the tasks
    loaded at start (a page at a time, so a large state is never all in
    the client's memory at once), the events replayed, the settings and
    services read back. Rows are read in binary: integers as big-endian
    bytes, strings as the bytea they are kept in (libpq ends each value
    with a NUL). A row that breaks a limit is refused, not read past.
    =========================================================================
*/

#include "drover_postgres_internal.h"
#include "drover_eventpack.h"

#define S_LOAD_PAGE     4096        //  tasks one load query reads, at most

//  Copy a column's bytes into a new buffer (NULL if none)
static byte *
s_column_blob (PGresult *result, int row, int column, size_t *size)
{
    *size = PQgetisnull (result, row, column)? 0: (size_t) PQgetlength (result, row, column);
    if (!*size)
        return NULL;
    byte *copy = (byte *) malloc (*size);
    assert (copy);
    memcpy (copy, PQgetvalue (result, row, column), *size);
    return copy;
}

//  A column's text (bytea, NUL-terminated by libpq), or NULL
static const char *
s_column_text (PGresult *result, int row, int column)
{
    return PQgetisnull (result, row, column)? NULL: PQgetvalue (result, row, column);
}

//  A column's integer, 0 if NULL
static int64_t
s_column_int (PGresult *result, int row, int column)
{
    return drover_pgconn_int (result, row, column, 0);
}

//  Make a change (task.restored) from a row of S_LOAD; NULL if the row
//  breaks a limit (the database was written by someone else)
static drover_change_t *
s_restored (PGresult *result, int row)
{
    uint64_t id = (uint64_t) s_column_int (result, row, 0);
    const char *key = s_column_text (result, row, 1);
    int64_t state = s_column_int (result, row, 2);
    const char *worker = s_column_text (result, row, 4);
    const char *labels = s_column_text (result, row, 15);
    if (id == 0 || state < DROVER_TASK_QUEUED || state > DROVER_TASK_CANCELLED
    || (key && strlen (key) > DROVER_KEY_MAX)
    || (worker && strlen (worker) > DROVER_ID_MAX)
    ||  PQgetlength (result, row, 16) > DROVER_BODY_MAX
    ||  PQgetlength (result, row, 23) > DROVER_OUTPUT_MAX
    ||  PQgetlength (result, row, 24) > DROVER_OUTPUT_MAX
    ||  PQgetlength (result, row, 29) > DROVER_MSG_MAX)
        return NULL;
    drover_change_t *change = drover_change_new ("task.restored", id);
    change->state = (uint8_t) state;
    change->attempt = (uint32_t) s_column_int (result, row, 3);
    if (worker)
        snprintf (change->worker, sizeof change->worker, "%s", worker);
    change->retries_left = (uint32_t) s_column_int (result, row, 5);
    change->lost = (uint16_t) s_column_int (result, row, 6);
    change->time = (uint64_t) s_column_int (result, row, 7);
    change->queued_at = s_column_int (result, row, 7);
    change->ended_at = s_column_int (result, row, 8);
    change->offered_at = s_column_int (result, row, 26);
    change->started_at = s_column_int (result, row, 27);
    change->history = s_column_blob (result, row, 29, &change->history_size);

    drover_msg_t *submit = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    submit->task = id;
    submit->key = key? strdup (key): NULL;
    submit->priority = (int32_t) s_column_int (result, row, 9);
    submit->procs = (uint32_t) s_column_int (result, row, 10);
    submit->mem = (uint64_t) s_column_int (result, row, 11);
    submit->timeout = (uint32_t) s_column_int (result, row, 12);
    submit->retries = (uint32_t) s_column_int (result, row, 13);
    submit->flags = (uint32_t) s_column_int (result, row, 14);
    while (labels && *labels && submit->nlabels < DROVER_LABELS_MAX) {
        size_t length = strcspn (labels, "\n");
        submit->labels [submit->nlabels++] = strndup (labels, length);
        labels += length + (labels [length] == '\n');
    }
    submit->body = s_column_blob (result, row, 16, &submit->body_size);
    const char *owner = s_column_text (result, row, 25);
    snprintf (submit->principal, sizeof submit->principal, "%s", owner? owner: "");
    const char *service = s_column_text (result, row, 30);
    snprintf (submit->service, sizeof submit->service, "%s", service? service: "");
    submit->slot = (uint32_t) s_column_int (result, row, 31);
    const char *affinity = s_column_text (result, row, 32);
    submit->affinity = affinity && *affinity? strdup (affinity): NULL;
    change->submit = submit;

    if (drover_change_final (change)) {
        drover_msg_t *done = drover_msg_new (DROVER_MSG_TASK_DONE);
        done->task = id;
        done->state = (uint8_t) state;
        done->attempt = change->attempt;
        snprintf (done->worker, sizeof done->worker, "%s", change->worker);
        done->end = (uint8_t) s_column_int (result, row, 17);
        done->exit_code = (int32_t) s_column_int (result, row, 18);
        done->signal = (int32_t) s_column_int (result, row, 19);
        done->duration = (uint32_t) s_column_int (result, row, 20);
        done->truncated = (uint32_t) s_column_int (result, row, 21);
        const char *reason = s_column_text (result, row, 22);
        if (reason)
            drover_msg_set_reason (done, reason);
        done->out = s_column_blob (result, row, 23, &done->out_size);
        done->err = s_column_blob (result, row, 24, &done->err_size);
        done->outcome = PQgetisnull (result, row, 28)? DROVER_ATTEMPT_NO_RESULT
                      : (uint8_t) s_column_int (result, row, 28);
        change->done = done;
    }
    return change;
}

//  Run one query (statement with params) in a round of its own; its
//  result is drover_pgconn_result (conn, 0). Returns 0 or -1 with error.
static int
s_query (drover_postgres_t *self, int statement, const drover_pgparams_t *params,
         char *error, size_t error_size)
{
    if (drover_pgconn_begin (self->conn, error, error_size))
        return -1;
    drover_pgconn_send (self->conn, statement, params, true);
    return drover_pgconn_sync (self->conn, error, error_size);
}

//  Load the kept tasks, a page at a time: those not final, and the newest
//  max_final final ones (by when they ended), oldest id first
int64_t
drover_postgres_load (drover_postgres_t *self, size_t max_final, drover_store_task_fn *fn,
                      void *arg, char *error, size_t error_size)
{
    assert (self && fn && error);
    //  The oldest final task to keep, as (ended, id); none if max_final is 0
    int64_t cut_ended = INT64_MAX, cut_id = INT64_MAX;
    if (max_final > 0) {
        drover_pgparams_t params = { .count = 0 };
        drover_pgparams_int (&params, 1, (int64_t) max_final - 1);
        if (s_query (self, S_LOAD_CUT, &params, error, error_size))
            return -1;
        PGresult *cut = drover_pgconn_result (self->conn, 0);
        if (cut && PQntuples (cut) > 0) {
            cut_ended = s_column_int (cut, 0, 0);
            cut_id = s_column_int (cut, 0, 1);
        }
        else
            cut_ended = cut_id = -1;    //  fewer than max_final: all of them
    }
    int64_t loaded = 0, after = 0;
    while (true) {
        drover_pgparams_t params = { .count = 0 };
        drover_pgparams_int (&params, 1, cut_ended);
        drover_pgparams_int (&params, 2, cut_id);
        drover_pgparams_int (&params, 3, after);
        drover_pgparams_int (&params, 4, S_LOAD_PAGE);
        if (s_query (self, S_LOAD, &params, error, error_size))
            return -1;
        PGresult *page = drover_pgconn_result (self->conn, 0);
        int rows = page? PQntuples (page): 0;
        for (int row = 0; row < rows; row++) {
            drover_change_t *change = s_restored (page, row);
            if (!change) {
                snprintf (error, error_size, "%s: damaged drover state (task %" PRId64
                          " out of bounds)", drover_pgconn_name (self->conn),
                          s_column_int (page, row, 0));
                return -1;
            }
            after = (int64_t) change->task;
            int stop = fn (arg, &change);
            drover_change_destroy (&change);
            loaded++;
            if (stop)
                return loaded;
        }
        if (rows < S_LOAD_PAGE)
            break;
    }
    return loaded;
}

//  Read one kept task by id: 1 and *change_p, 0 if not kept, or -1
int
drover_postgres_read_task (drover_postgres_t *self, uint64_t id, drover_change_t **change_p,
                           char *error, size_t error_size)
{
    assert (self && change_p && error);
    drover_pgparams_t params = { .count = 0 };
    drover_pgparams_int (&params, 1, (int64_t) (id > INT64_MAX? INT64_MAX: id));
    if (s_query (self, S_READ_TASK, &params, error, error_size))
        return -1;
    PGresult *result = drover_pgconn_result (self->conn, 0);
    if (!result || PQntuples (result) == 0)
        return 0;
    *change_p = s_restored (result, 0);
    if (!*change_p) {
        snprintf (error, error_size, "%s: damaged drover state (task %" PRIu64 " out of bounds)",
                  drover_pgconn_name (self->conn), id);
        return -1;
    }
    return 1;
}

//  Hand fn the kept events with seq > since, in order, at most max
int64_t
drover_postgres_replay (drover_postgres_t *self, uint64_t since, size_t max,
                        drover_store_event_fn *fn, void *arg, char *error, size_t error_size)
{
    assert (self && fn && error);
    drover_pgparams_t params = { .count = 0 };
    drover_pgparams_int (&params, 1, (int64_t) (since > INT64_MAX? INT64_MAX: since));
    //  Every row holds one event at least, the first perhaps none after since
    drover_pgparams_int (&params, 2, (int64_t) (max < INT32_MAX? max + 1: INT32_MAX));
    if (s_query (self, S_REPLAY, &params, error, error_size))
        return -1;
    PGresult *result = drover_pgconn_result (self->conn, 0);
    int64_t handed = 0;
    for (int row = 0; result && row < PQntuples (result) && (size_t) handed < max; row++) {
        uint64_t first_seq = (uint64_t) s_column_int (result, row, 0);
        int64_t count = s_column_int (result, row, 1);
        int status = drover_eventpack_unpack ((const byte *) PQgetvalue (result, row, 2),
                                              (size_t) PQgetlength (result, row, 2), first_seq,
                                              count, since, max, fn, arg, &handed);
        if (status < 0) {
            snprintf (error, error_size, "%s: damaged drover state (events from seq %" PRIu64
                      ")", drover_pgconn_name (self->conn), first_seq);
            return -1;
        }
        if (status > 0)
            break;
    }
    return handed;
}

//  Hand fn every kept setting, in worker id order
int64_t
drover_postgres_load_admin (drover_postgres_t *self, drover_store_admin_fn *fn, void *arg,
                            char *error, size_t error_size)
{
    assert (self && fn && error);
    if (s_query (self, S_LOAD_ADMIN, NULL, error, error_size))
        return -1;
    PGresult *result = drover_pgconn_result (self->conn, 0);
    int64_t count = 0;
    for (int row = 0; result && row < PQntuples (result); row++) {
        const char *worker = PQgetvalue (result, row, 0);
        int64_t admin = s_column_int (result, row, 1);
        if (!drover_id_valid (worker) || admin < DROVER_ADMIN_RUN || admin > DROVER_ADMIN_MAX)
            continue;           //  not one we wrote: skipped
        drover_store_admin_t setting = {
            .worker = worker, .admin = (int) admin,
            .flags = (uint32_t) s_column_int (result, row, 2),
            .reason = PQgetvalue (result, row, 3),
            .since = (uint64_t) s_column_int (result, row, 4)
        };
        count++;
        if (fn (arg, &setting))
            break;
    }
    return count;
}

//  Hand fn every kept service, in name order
int64_t
drover_postgres_load_services (drover_postgres_t *self, drover_store_service_fn *fn,
                               void *arg, char *error, size_t error_size)
{
    assert (self && fn && error);
    if (s_query (self, S_LOAD_SERVICES, NULL, error, error_size))
        return -1;
    PGresult *result = drover_pgconn_result (self->conn, 0);
    int64_t count = 0;
    for (int row = 0; result && row < PQntuples (result); row++) {
        const char *name = PQgetvalue (result, row, 0);
        int size = PQgetlength (result, row, 1);
        if (!drover_id_valid (name) || size <= 0)
            continue;           //  not one we wrote: skipped
        count++;
        if (fn (arg, name, (const byte *) PQgetvalue (result, row, 1), (size_t) size))
            break;
    }
    return count;
}
