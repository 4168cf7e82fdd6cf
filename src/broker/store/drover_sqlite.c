/*  =========================================================================
    drover_sqlite - the SQLite backend of drover_store: the broker's
    state in <dir>/state.db

    The file is made under another name (state.db.init) and renamed once
    its schema and meta are committed, so a state.db that exists is always
    a whole drover state: an empty, short or unreadable one is refused,
    never started over. It is opened in WAL mode with synchronous=FULL (a
    commit returns once fsync'd) and locking_mode=EXCLUSIVE (no shared
    memory file; a second broker on the same directory is refused).

    apply writes one transaction per batch with statements prepared once:
    the changes of one task within the batch are merged into one write
    (an INSERT if its submit is in the batch, else one UPDATE), and the
    events go as blobs of up to 1024 packed events each, one row per blob
    (one row per event costs about as much again as the whole task writes;
    see tests/test_drover_store_bench.c), packed by drover_eventpack.

    This file has the file itself: its schema and statements, open (made,
    checked, upgraded) and close. The writes are in drover_sqlite_write.c,
    the reads in drover_sqlite_read.c; drover_sqlite_internal.h is what
    the three share.
    =========================================================================
*/

#include "drover_sqlite_internal.h"
#include "drover_eventpack.h"

#define S_FORMAT        "drover-state 4"    //  meta 'format': what this code reads and writes
#define S_FORMAT_3      "drover-state 3"    //  the format before services' replicas and
                                            //  affinity keys: upgraded at open
#define S_FORMAT_2      "drover-state 2"    //  the format before task times and attempts:
                                            //  upgraded at open
#define S_FORMAT_1      "drover-state 1"    //  the format before task owners: upgraded at open
//  An operator's settings per worker id: a table of its own, made when
//  missing, so the format does not change for it (a file without it opens)
#define S_ADMIN_SCHEMA  "CREATE TABLE IF NOT EXISTS worker_admin (worker TEXT PRIMARY KEY," \
                        " admin INTEGER NOT NULL, flags INTEGER NOT NULL," \
                        " reason TEXT NOT NULL, since INTEGER NOT NULL) WITHOUT ROWID"
//  The reconciler's services by name, likewise: each definition is an
//  encoded SERVICE ADMIN create, opaque here
#define S_SERVICES_SCHEMA   "CREATE TABLE IF NOT EXISTS services (name TEXT PRIMARY KEY," \
                            " def BLOB NOT NULL) WITHOUT ROWID"
#define S_FILE          "state.db"          //  the state's file in its directory
#define S_FINAL         "state >= 3"        //  SQL: a final task (SUCCEEDED, FAILED, CANCELLED)

//  The columns format 3 adds: the current (or last) attempt's offer and
//  start, the last attempt's RESULT outcome (NULL: none came), the past
//  attempts (drover_taskhistory_encode, NULL: none)
#define S_COLUMNS_3 \
    "offered INTEGER NOT NULL DEFAULT 0, started INTEGER NOT NULL DEFAULT 0," \
    " last_outcome INTEGER, history BLOB"
//  The columns format 4 adds: a replica's service (NULL: not one) and
//  slot, a task's affinity key (NULL: none), as its TASK SUBMIT said them
#define S_COLUMNS_4 \
    "service TEXT, slot INTEGER NOT NULL DEFAULT 0, affinity TEXT"
#define S_ADD_COLUMNS_4 \
    "ALTER TABLE tasks ADD COLUMN service TEXT;" \
    " ALTER TABLE tasks ADD COLUMN slot INTEGER NOT NULL DEFAULT 0;" \
    " ALTER TABLE tasks ADD COLUMN affinity TEXT;"
#define S_ADD_COLUMNS_3 \
    "ALTER TABLE tasks ADD COLUMN offered INTEGER NOT NULL DEFAULT 0;" \
    " ALTER TABLE tasks ADD COLUMN started INTEGER NOT NULL DEFAULT 0;" \
    " ALTER TABLE tasks ADD COLUMN last_outcome INTEGER;" \
    " ALTER TABLE tasks ADD COLUMN history BLOB;"

//  The schema of a new state
static const char *
s_schema =
    "CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;"
    "CREATE TABLE tasks ("
    "  id INTEGER PRIMARY KEY, key TEXT, state INTEGER NOT NULL, attempt INTEGER NOT NULL,"
    "  worker TEXT NOT NULL, retries_left INTEGER NOT NULL, lost INTEGER NOT NULL,"
    "  seq INTEGER NOT NULL, submitted INTEGER NOT NULL, ended INTEGER NOT NULL,"
    "  priority INTEGER, procs INTEGER, mem INTEGER, timeout INTEGER, retries INTEGER,"
    "  flags INTEGER, labels TEXT, body BLOB,"
    "  outcome INTEGER, exit_code INTEGER, signal INTEGER, duration INTEGER,"
    "  truncated INTEGER, reason TEXT, out BLOB, err BLOB, owner TEXT NOT NULL DEFAULT '',"
    "  " S_COLUMNS_3 ", " S_COLUMNS_4 ");"
    "CREATE UNIQUE INDEX tasks_key ON tasks (key) WHERE key IS NOT NULL;"
    "CREATE INDEX tasks_final ON tasks (ended, id) WHERE " S_FINAL ";"
    "CREATE TABLE events (first_seq INTEGER PRIMARY KEY, last_seq INTEGER NOT NULL,"
    "  count INTEGER NOT NULL, data BLOB NOT NULL);";

//  The task columns as load reads them, in this order
#define S_TASK_COLUMNS \
    "id, key, state, attempt, worker, retries_left, lost, submitted, ended," \
    " priority, procs, mem, timeout, retries, flags, labels, body," \
    " outcome, exit_code, signal, duration, truncated, reason, out, err, owner," \
    " offered, started, last_outcome, history, service, slot, affinity"

//  The statements' SQL, by drover_sqlite_statement_t (drover_sqlite_internal.h
//  says the parameters that task writes share)
static const char *
s_sql [S_STATEMENTS] = {
    [S_BEGIN]           = "BEGIN IMMEDIATE",
    [S_COMMIT]          = "COMMIT",
    [S_ROLLBACK]        = "ROLLBACK",
    [S_INSERT_TASK]     = "INSERT INTO tasks (id, key, state, attempt, worker, retries_left,"
                          " lost, seq, submitted, ended, priority, procs, mem, timeout, retries,"
                          " flags, labels, body, outcome, exit_code, signal, duration, truncated,"
                          " reason, out, err, owner, offered, started, last_outcome, history,"
                          " service, slot, affinity)"
                          " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9,"
                          " ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22,"
                          " ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34)",
    //  A final task is final: a later change does not touch its row
    [S_UPDATE_STATE]    = "UPDATE tasks SET state = ?3, attempt = ?4, worker = ?5,"
                          " retries_left = ?6, lost = ?7, offered = ?28, started = ?29,"
                          " history = ?31 WHERE id = ?1 AND NOT (" S_FINAL ")",
    [S_UPDATE_FINAL]    = "UPDATE tasks SET state = ?3, attempt = ?4, worker = ?5,"
                          " retries_left = ?6, lost = ?7, ended = ?10, outcome = ?19,"
                          " exit_code = ?20, signal = ?21, duration = ?22, truncated = ?23,"
                          " reason = ?24, out = ?25, err = ?26, offered = ?28, started = ?29,"
                          " last_outcome = ?30, history = ?31"
                          " WHERE id = ?1 AND NOT (" S_FINAL ")",
    [S_INSERT_EVENTS]   = "INSERT INTO events (first_seq, last_seq, count, data)"
                          " VALUES (?1, ?2, ?3, ?4)",
    [S_SET_META]        = "UPDATE meta SET value = ?2 WHERE name = ?1",
    //  The oldest final task load keeps: the max_final'th newest
    [S_LOAD_CUT]        = "SELECT ended, id FROM tasks WHERE " S_FINAL
                          " ORDER BY ended DESC, id DESC LIMIT 1 OFFSET ?1",
    [S_LOAD]            = "SELECT " S_TASK_COLUMNS " FROM tasks"
                          " WHERE NOT (" S_FINAL ") OR (ended, id) >= (?1, ?2) ORDER BY id",
    [S_READ_TASK]       = "SELECT " S_TASK_COLUMNS " FROM tasks WHERE id = ?1",
    //  From the events row holding since + 1 (or the first) on
    [S_REPLAY]          = "SELECT first_seq, count, data FROM events WHERE first_seq >="
                          " coalesce ((SELECT max (first_seq) FROM events"
                          " WHERE first_seq <= ?1), 0) ORDER BY first_seq",
    [S_COUNT_FINAL]     = "SELECT count (*) FROM tasks WHERE " S_FINAL,
    //  The ?1 final tasks that ended first; those that ended before ?1
    [S_PRUNE_OLDEST]    = "DELETE FROM tasks WHERE id IN (SELECT id FROM tasks WHERE " S_FINAL
                          " ORDER BY ended, id LIMIT ?1)",
    [S_PRUNE_AGED]      = "DELETE FROM tasks WHERE id IN (SELECT id FROM tasks WHERE " S_FINAL
                          " AND ended < ?1 ORDER BY ended, id LIMIT ?2)",
    //  Task ids and their first events' seqs grow together: the oldest
    //  kept task's first event is the lowest id's
    [S_FIRST_TASK_SEQ]  = "SELECT seq FROM tasks ORDER BY id LIMIT 1",
    [S_LAST_SEQ]        = "SELECT max (last_seq) FROM events",
    [S_PRUNE_EVENTS]    = "DELETE FROM events WHERE first_seq IN (SELECT first_seq FROM events"
                          " WHERE first_seq < ?1 AND last_seq < ?1 ORDER BY first_seq LIMIT ?2)",
};

static int
    s_create (const char *path, char **error_p);
static int
    s_check_header (const char *path, char **error_p);
static int
    s_read_meta (drover_sqlite_t *self, drover_store_meta_t *meta, char **error_p);
static int
    s_quick_check (drover_sqlite_t *self, char **error_p);

//  Make dir with mode 0700 if it is missing. Returns 0 or -1 with *error_p.
static int
s_make_dir (const char *dir, char **error_p)
{
    struct stat info;
    if (stat (dir, &info) == 0) {
        if (S_ISDIR (info.st_mode))
            return 0;
        *error_p = zsys_sprintf ("state directory %s: not a directory", dir);
        return -1;
    }
    if (errno == ENOENT && mkdir (dir, 0700) == 0)
        return 0;
    *error_p = zsys_sprintf ("state directory %s: %s", dir, strerror (errno));
    return -1;
}

//  Open the SQLite backend on dir
drover_sqlite_t *
drover_sqlite_open (const char *dir, drover_store_meta_t *meta, char **error_p)
{
    assert (dir && meta && error_p);
    *error_p = NULL;
    if (s_make_dir (dir, error_p))
        return NULL;
    char *path = zsys_sprintf ("%s/%s", dir, S_FILE);
    struct stat info;
    if (stat (path, &info) != 0) {
        if (errno != ENOENT || s_create (path, error_p)) {
            if (!*error_p)
                *error_p = zsys_sprintf ("%s: %s", path, strerror (errno));
            zstr_free (&path);
            return NULL;
        }
    }
    else
    if (s_check_header (path, error_p)) {
        zstr_free (&path);
        return NULL;
    }
    drover_sqlite_t *self = (drover_sqlite_t *) zmalloc (sizeof (drover_sqlite_t));
    self->tasks = drover_sqlbatch_new ();
    self->path = path;
    self->pack = (byte *) zmalloc (S_EVENTS_ROW * DROVER_EVENTPACK_MAX);
    char error [DROVER_STORE_ERROR_MAX];
    int rc = sqlite3_open_v2 (path, &self->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec (self->db, "PRAGMA locking_mode = EXCLUSIVE;"
                           "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;"
                           "PRAGMA cache_size = -16384; PRAGMA wal_autocheckpoint = 4096",
                           NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        drover_sqlite_set_error (error, sizeof error, path, self->db, rc);
        *error_p = strdup (error);
        drover_sqlite_destroy (&self);
        return NULL;
    }
    if (s_read_meta (self, meta, error_p) || s_quick_check (self, error_p)) {
        drover_sqlite_destroy (&self);
        return NULL;
    }
    if (self->upgrade == 1)
        //  Tasks kept before owners existed belong to nobody (""); before
        //  times and attempts, they have no offer, start or past attempts
        rc = sqlite3_exec (self->db, "BEGIN; ALTER TABLE tasks ADD COLUMN owner TEXT NOT NULL"
                           " DEFAULT ''; " S_ADD_COLUMNS_3 S_ADD_COLUMNS_4 " UPDATE meta SET"
                           " value = '" S_FORMAT "' WHERE name = 'format'; COMMIT",
                           NULL, NULL, NULL);
    else
    if (self->upgrade == 2)
        rc = sqlite3_exec (self->db, "BEGIN; " S_ADD_COLUMNS_3 S_ADD_COLUMNS_4 " UPDATE meta"
                           " SET value = '" S_FORMAT "' WHERE name = 'format'; COMMIT",
                           NULL, NULL, NULL);
    else
    if (self->upgrade == 3)
        //  Tasks kept before services and affinity keys had neither
        rc = sqlite3_exec (self->db, "BEGIN; " S_ADD_COLUMNS_4 " UPDATE meta SET value = '"
                           S_FORMAT "' WHERE name = 'format'; COMMIT", NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec (self->db, S_ADMIN_SCHEMA, NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec (self->db, S_SERVICES_SCHEMA, NULL, NULL, NULL);
    for (int index = 0; index < S_STATEMENTS && rc == SQLITE_OK; index++)
        rc = sqlite3_prepare_v3 (self->db, s_sql [index], -1, SQLITE_PREPARE_PERSISTENT,
                                 &self->stmt [index], NULL);
    sqlite3_int64 finals = 0;
    if (rc == SQLITE_OK) {
        rc = drover_sqlite_query_int (self->stmt [S_COUNT_FINAL], 0, &finals);
        rc = rc == SQLITE_DONE? SQLITE_OK: rc;
    }
    if (rc != SQLITE_OK) {
        drover_sqlite_set_error (error, sizeof error, path, self->db, rc);
        *error_p = strdup (error);
        drover_sqlite_destroy (&self);
        return NULL;
    }
    self->finals = (uint64_t) finals;
    return self;
}

//  Close the file; harmless on NULL
void
drover_sqlite_destroy (drover_sqlite_t **self_p)
{
    assert (self_p);
    drover_sqlite_t *self = *self_p;
    if (!self)
        return;
    for (int index = 0; index < S_STATEMENTS; index++)
        sqlite3_finalize (self->stmt [index]);
    if (self->db && sqlite3_close (self->db) != SQLITE_OK)
        zsys_error ("store: file=%s close failed: %s", self->path, sqlite3_errmsg (self->db));
    zstr_free (&self->path);
    drover_sqlbatch_destroy (&self->tasks);
    free (self->pack);
    free (self);
    *self_p = NULL;
}

//  Write the error text for a failed SQLite call on path: its message,
//  and what to do when the file is damaged
void
drover_sqlite_set_error (char *error, size_t error_size, const char *path, sqlite3 *db, int rc)
{
    const char *text = db? sqlite3_errmsg (db): sqlite3_errstr (rc);
    int primary = rc & 0xff;
    if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB)
        snprintf (error, error_size, "%s: %s: " S_WHAT_TO_DO, path, text);
    else
    if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
        snprintf (error, error_size, "%s: %s (is another broker using this state directory?)",
                  path, text);
    else
        snprintf (error, error_size, "%s: %s", path, text);
}

//  Make a new state at path: schema and meta committed in path.init,
//  then renamed to path and the directory synced, so that path never
//  names a state half made. Returns 0 or -1 with *error_p.
static int
s_create (const char *path, char **error_p)
{
    char *init = zsys_sprintf ("%s.init", path);
    const char *suffixes [] = { "", "-wal", "-shm", "-journal" };
    for (size_t index = 0; index < sizeof suffixes / sizeof suffixes [0]; index++) {
        char *name = zsys_sprintf ("%s%s", init, suffixes [index]);
        unlink (name);                  //  a creation cut off before: start it again
        zstr_free (&name);
    }
    char state [DROVER_STATE_ID_SIZE + 1];
    zuuid_t *uuid = zuuid_new ();
    snprintf (state, sizeof state, "%s", zuuid_str (uuid));
    zuuid_destroy (&uuid);
    for (char *digit = state; *digit; digit++)
        *digit = (char) tolower (*digit);
    char *sql = zsys_sprintf (
        "PRAGMA page_size = 4096; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;"
        "BEGIN; %s INSERT INTO meta VALUES ('format', '" S_FORMAT "'), ('state', '%s'),"
        " ('next_task', '1'), ('next_seq', '1'); COMMIT;", s_schema, state);
    sqlite3 *db = NULL;
    char error [DROVER_STORE_ERROR_MAX];
    int rc = sqlite3_open_v2 (init, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec (db, sql, NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        drover_sqlite_set_error (error, sizeof error, init, db, rc);
    if (sqlite3_close (db) != SQLITE_OK && rc == SQLITE_OK) {
        rc = SQLITE_ERROR;
        snprintf (error, sizeof error, "%s: close failed", init);
    }
    zstr_free (&sql);
    if (rc == SQLITE_OK && rename (init, path) != 0) {
        rc = SQLITE_ERROR;
        snprintf (error, sizeof error, "%s: %s", path, strerror (errno));
    }
    zstr_free (&init);
    if (rc != SQLITE_OK) {
        *error_p = strdup (error);
        return -1;
    }
    //  The rename is durable once the directory is synced
    char *dir = strdup (path);
    char *slash = strrchr (dir, '/');
    if (slash)
        *slash = 0;
    int fd = open (dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0 || fsync (fd) != 0)
        *error_p = zsys_sprintf ("state directory %s: %s", dir, strerror (errno));
    if (fd >= 0)
        close (fd);
    zstr_free (&dir);
    return *error_p? -1: 0;
}

//  Refuse a file that SQLite would take for an empty database (nothing
//  in it) or that is shorter than its header says: a truncated state.
//  While a WAL file is there the header may be ahead of the file (a
//  checkpoint cut off), and SQLite recovers from the WAL.
static int
s_check_header (const char *path, char **error_p)
{
    byte header [100];
    int fd = open (path, O_RDONLY);
    if (fd < 0) {
        *error_p = zsys_sprintf ("%s: %s", path, strerror (errno));
        return -1;
    }
    struct stat info;
    ssize_t size = fstat (fd, &info) == 0? read (fd, header, sizeof header): -1;
    close (fd);
    if (size < 0) {
        *error_p = zsys_sprintf ("%s: %s", path, strerror (errno));
        return -1;
    }
    if (size < (ssize_t) sizeof header || memcmp (header, "SQLite format 3", 16) != 0) {
        *error_p = zsys_sprintf ("%s: not a drover state (%s): " S_WHAT_TO_DO, path,
                                 size < (ssize_t) sizeof header? "empty or truncated file":
                                 "not an SQLite file");
        return -1;
    }
    uint64_t page_size = (uint64_t) header [16] << 8 | header [17];
    if (page_size == 1)
        page_size = 65536;
    uint64_t pages = (uint64_t) header [28] << 24 | header [29] << 16 | header [30] << 8
                   | header [31];
    bool pages_valid = memcmp (header + 24, header + 92, 4) == 0;
    char *wal = zsys_sprintf ("%s-wal", path);
    struct stat wal_info;
    bool has_wal = stat (wal, &wal_info) == 0 && wal_info.st_size > 0;
    zstr_free (&wal);
    if (pages_valid && !has_wal && (uint64_t) info.st_size < pages * page_size) {
        *error_p = zsys_sprintf ("%s: truncated (%jd bytes, its header says %ju): "
                                 S_WHAT_TO_DO, path, (intmax_t) info.st_size,
                                 (uintmax_t) (pages * page_size));
        return -1;
    }
    return 0;
}

//  Read meta: the format marker, the state id, next_task and next_seq.
//  Returns 0 or -1 with *error_p (the file is another schema, another
//  format, or damaged).
static int
s_read_meta (drover_sqlite_t *self, drover_store_meta_t *meta, char **error_p)
{
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2 (self->db, "SELECT name, value FROM meta", -1, &stmt, NULL);
    if (rc != SQLITE_OK) {
        int primary = rc & 0xff;
        if (primary == SQLITE_ERROR)    //  no such table: another program's database
            *error_p = zsys_sprintf ("%s: not a drover state (%s): " S_WHAT_TO_DO,
                                     self->path, sqlite3_errmsg (self->db));
        else {
            char error [DROVER_STORE_ERROR_MAX];
            drover_sqlite_set_error (error, sizeof error, self->path, self->db, rc);
            *error_p = strdup (error);
        }
        return -1;
    }
    memset (meta, 0, sizeof *meta);
    bool format = false, state = false, next_task = false, next_seq = false;
    char *format_seen = NULL;
    while ((rc = sqlite3_step (stmt)) == SQLITE_ROW) {
        const char *name = (const char *) sqlite3_column_text (stmt, 0);
        const char *value = (const char *) sqlite3_column_text (stmt, 1);
        if (!name || !value)
            continue;
        if (streq (name, "format")) {
            self->upgrade = streq (value, S_FORMAT_1)? 1: streq (value, S_FORMAT_2)? 2:
                            streq (value, S_FORMAT_3)? 3: 0;
            format = streq (value, S_FORMAT) || self->upgrade;
            zstr_free (&format_seen);
            format_seen = strdup (value);
        }
        else
        if (streq (name, "state") && strlen (value) == DROVER_STATE_ID_SIZE
        &&  strspn (value, "0123456789abcdef") == DROVER_STATE_ID_SIZE) {
            memcpy (meta->state, value, DROVER_STATE_ID_SIZE + 1);
            state = true;
        }
        else
        if (streq (name, "next_task")) {
            meta->next_task = strtoull (value, NULL, 10);
            next_task = meta->next_task > 0;
        }
        else
        if (streq (name, "next_seq")) {
            meta->next_seq = strtoull (value, NULL, 10);
            next_seq = meta->next_seq > 0;
        }
    }
    if (rc != SQLITE_DONE) {
        char error [DROVER_STORE_ERROR_MAX];
        drover_sqlite_set_error (error, sizeof error, self->path, self->db, rc);
        *error_p = strdup (error);
    }
    else
    if (!format)
        *error_p = zsys_sprintf ("%s: not a drover state (format %s%s%s, this broker reads '"
                                 S_FORMAT "'): " S_WHAT_TO_DO, self->path,
                                 format_seen? "'": "", format_seen? format_seen: "missing",
                                 format_seen? "'": "");
    else
    if (!state || !next_task || !next_seq)
        *error_p = zsys_sprintf ("%s: damaged drover state (meta: %s missing or invalid): "
                                 S_WHAT_TO_DO, self->path, !state? "state":
                                 !next_task? "next_task": "next_seq");
    zstr_free (&format_seen);
    sqlite3_finalize (stmt);
    return *error_p? -1: 0;
}

//  Check the whole file's structure (every table and index, not the
//  values): a damaged page anywhere stops the start, not a later write.
//  Reads every page once, about 0.5 s for a million queued tasks here,
//  and leaves them in the OS cache for load. Returns 0 or -1 with *error_p.
static int
s_quick_check (drover_sqlite_t *self, char **error_p)
{
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2 (self->db, "PRAGMA quick_check (1)", -1, &stmt, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step (stmt);
    if (rc == SQLITE_ROW) {
        const char *result = (const char *) sqlite3_column_text (stmt, 0);
        if (!result || !streq (result, "ok"))
            *error_p = zsys_sprintf ("%s: damaged drover state (%s): " S_WHAT_TO_DO,
                                     self->path, result? result: "quick_check failed");
    }
    else {
        char error [DROVER_STORE_ERROR_MAX];
        drover_sqlite_set_error (error, sizeof error, self->path, self->db, rc);
        *error_p = strdup (error);
    }
    sqlite3_finalize (stmt);
    return *error_p? -1: 0;
}

//  Run a statement that returns no row and reset it. Returns the SQLite
//  result code (SQLITE_DONE on success).
int
drover_sqlite_run (sqlite3_stmt *stmt)
{
    int rc = sqlite3_step (stmt);
    sqlite3_reset (stmt);
    return rc;
}

//  Read one integer from a one-row query; def if no row or NULL. Returns
//  the SQLite result (SQLITE_DONE on success).
int
drover_sqlite_query_int (sqlite3_stmt *stmt, sqlite3_int64 def, sqlite3_int64 *value)
{
    *value = def;
    int rc = sqlite3_step (stmt);
    if (rc == SQLITE_ROW) {
        if (sqlite3_column_type (stmt, 0) != SQLITE_NULL)
            *value = sqlite3_column_int64 (stmt, 0);
        rc = SQLITE_DONE;
    }
    sqlite3_reset (stmt);
    return rc;
}
