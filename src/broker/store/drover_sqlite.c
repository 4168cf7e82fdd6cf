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

    The file reads top-down in three sections: the file itself (its
    schema and statements, open: made, checked, upgraded; close), the
    writes, and the reads.
    =========================================================================
*/

#include "drover_sqlite.h"
#include "drover_sqlbatch.h"
#include "drover_eventpack.h"
#include "drover_sqlbackup.h"
#include "drover_taskrecord.h"
#include <sqlite3.h>
#include <pthread.h>
#include <sys/prctl.h>

#define S_EVENTS_ROW    1024                //  events packed in one events row, at most
#define S_WHAT_TO_DO    "move it away to start with an empty state, or restore a backup"

//  The statements, by index in s_sql, prepared once.
//  Task writes share one parameter numbering: ?1 id, ?2 key, ?3-?7
//  state, attempt, worker, retries_left, lost, ?8 seq, ?9 submitted, ?10
//  ended, ?11-?18 the submit, ?19-?26 the result, ?27 the owner, ?28
//  offered, ?29 started, ?30 last_outcome, ?31 history, ?32-?34 the
//  submit's service, slot and affinity, ?35-?39 the submit's after list,
//  begin, retry delays and array, ?40-?43 waits, due, grp, made, ?44
//  the submit's devices, ?45 the attempt's device indices (assigned), ?46
//  the fresh task's packed fields (fresh).
typedef enum {
    S_BEGIN, S_COMMIT, S_ROLLBACK, S_INSERT_TASK, S_UPDATE_STATE, S_UPDATE_FINAL,
    S_INSERT_EVENTS, S_SET_META, S_LOAD_CUT, S_LOAD_FINAL, S_LOAD_FRESH, S_LOAD_LIVE, S_REPLAY,
    S_COUNT_FINAL,
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
    int upgrade;                    //  the file's format to upgrade (1 to 6), 0 if current
    bool records;                   //  loads hand plain QUEUED tasks as records
    pthread_t checker;              //  the thread checking the file (s_check_start)
    bool checking;                  //  checker runs or is not joined yet
    sqlite3 *check_db;              //  its connection, closed after db (see s_check_start)
    char *check_error;              //  what the check found wrong, or NULL
};

#define S_FORMAT        "drover-state 7"    //  meta 'format': what this code reads and writes
#define S_FORMAT_6      "drover-state 6"    //  the format before fresh tasks' packed fields:
                                            //  upgraded at open
#define S_FORMAT_5      "drover-state 5"    //  the format before sharing a cluster (counted
                                            //  devices): upgraded at open
#define S_FORMAT_4      "drover-state 4"    //  the format before workflows (dependencies,
                                            //  arrays, begin, retry backoff): upgraded at open
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
//  The shares SHARE ADMIN set, by name, likewise: members NULL for an
//  owner (not an account), quota the sharespec quota text ("" none)
#define S_SHARES_SCHEMA "CREATE TABLE IF NOT EXISTS shares (name TEXT PRIMARY KEY," \
                        " weight INTEGER NOT NULL, members TEXT, quota TEXT NOT NULL)" \
                        " WITHOUT ROWID"
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
//  The columns format 5 adds: the submit's after list (packed by
//  drover_sqlbatch, NULL none), begin, retry delays and array (packed,
//  NULL none); what the task waits for now (drover_waits_t), until when
//  (due), its group and, for an array's own id, the elements made
#define S_COLUMNS_5 \
    "\"after\" BLOB, \"begin\" INTEGER NOT NULL DEFAULT 0," \
    " retry_delay INTEGER NOT NULL DEFAULT 0, retry_max_delay INTEGER NOT NULL DEFAULT 0," \
    " \"array\" BLOB, waits INTEGER NOT NULL DEFAULT 0, due INTEGER NOT NULL DEFAULT 0," \
    " grp INTEGER NOT NULL DEFAULT 0, made INTEGER NOT NULL DEFAULT 0"
//  The columns format 6 adds: the submit's devices (canonical device list
//  text, drover_devicelist_format; NULL none) and the device indices its
//  current (or last) attempt was given (NULL none)
#define S_COLUMNS_6     "devices TEXT, assigned TEXT"
//  The column format 7 adds: a fresh task's small submit fields packed
//  (drover_sqlbatch_fresh_pack), for a row that is a plain QUEUED task no
//  update has touched since its insert; NULL for any other (every update
//  sets it NULL). Load reads a fresh row by its id, key, submitted, body,
//  owner and this alone: SQLite's cost is per column read, and a million
//  queued tasks read 6 columns rather than 44. The submit's columns are
//  written as before, so a row reads alike without it. A new state has it
//  next to the id, and the owner after it (SQLite walks a row's header up
//  to the last column read), an upgraded one last. A plain command's
//  packed fields (one byte, DROVER_SQLBATCH_FRESH_PLAIN) are kept as the
//  integer 1, which SQLite keeps in no byte at all: a row a byte longer
//  than it was rather than two (a million 100-byte commands fit 24 to a
//  page either way, not 23).
#define S_COLUMNS_7     "fresh BLOB"
#define S_ADD_COLUMNS_7 "ALTER TABLE tasks ADD COLUMN fresh BLOB;"
#define S_ADD_COLUMNS_6 \
    "ALTER TABLE tasks ADD COLUMN devices TEXT; ALTER TABLE tasks ADD COLUMN assigned TEXT;"
#define S_ADD_COLUMNS_5 \
    "ALTER TABLE tasks ADD COLUMN \"after\" BLOB;" \
    " ALTER TABLE tasks ADD COLUMN \"begin\" INTEGER NOT NULL DEFAULT 0;" \
    " ALTER TABLE tasks ADD COLUMN retry_delay INTEGER NOT NULL DEFAULT 0;" \
    " ALTER TABLE tasks ADD COLUMN retry_max_delay INTEGER NOT NULL DEFAULT 0;" \
    " ALTER TABLE tasks ADD COLUMN \"array\" BLOB;" \
    " ALTER TABLE tasks ADD COLUMN waits INTEGER NOT NULL DEFAULT 0;" \
    " ALTER TABLE tasks ADD COLUMN due INTEGER NOT NULL DEFAULT 0;" \
    " ALTER TABLE tasks ADD COLUMN grp INTEGER NOT NULL DEFAULT 0;" \
    " ALTER TABLE tasks ADD COLUMN made INTEGER NOT NULL DEFAULT 0;"
#define S_ADD_COLUMNS_4 \
    "ALTER TABLE tasks ADD COLUMN service TEXT;" \
    " ALTER TABLE tasks ADD COLUMN slot INTEGER NOT NULL DEFAULT 0;" \
    " ALTER TABLE tasks ADD COLUMN affinity TEXT;"
#define S_ADD_COLUMNS_3 \
    "ALTER TABLE tasks ADD COLUMN offered INTEGER NOT NULL DEFAULT 0;" \
    " ALTER TABLE tasks ADD COLUMN started INTEGER NOT NULL DEFAULT 0;" \
    " ALTER TABLE tasks ADD COLUMN last_outcome INTEGER;" \
    " ALTER TABLE tasks ADD COLUMN history BLOB;"

//  What a state of format N (1 to 6) gains to become format N + 1; a file
//  is upgraded by every step from its format on, in one transaction, no
//  row rewritten: each new column's default is what a task of the older
//  format had
static const char *
s_upgrade_steps [] = {
    //  Tasks kept before owners existed belong to nobody ("")
    [1] = "ALTER TABLE tasks ADD COLUMN owner TEXT NOT NULL DEFAULT '';",
    //  Before times and attempts they have no offer, start or past attempts
    [2] = S_ADD_COLUMNS_3,
    //  Before services and affinity keys they had neither
    [3] = S_ADD_COLUMNS_4,
    //  Before workflows they wait for nothing and belong to no group
    [4] = S_ADD_COLUMNS_5,
    //  Before counted devices they ask for none and were given none
    [5] = S_ADD_COLUMNS_6,
    //  Before format 7 they have no packed fields: load reads them by
    //  their columns, as before
    [6] = S_ADD_COLUMNS_7
};
#define S_UPGRADE_FROM_MAX  6

//  The schema of a new state
static const char *
s_schema =
    "CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;"
    "CREATE TABLE tasks ("
    "  id INTEGER PRIMARY KEY, " S_COLUMNS_7 ", owner TEXT NOT NULL DEFAULT '', key TEXT,"
    "  state INTEGER NOT NULL, attempt INTEGER NOT NULL,"
    "  worker TEXT NOT NULL, retries_left INTEGER NOT NULL, lost INTEGER NOT NULL,"
    "  seq INTEGER NOT NULL, submitted INTEGER NOT NULL, ended INTEGER NOT NULL,"
    "  priority INTEGER, procs INTEGER, mem INTEGER, timeout INTEGER, retries INTEGER,"
    "  flags INTEGER, labels TEXT, body BLOB,"
    "  outcome INTEGER, exit_code INTEGER, signal INTEGER, duration INTEGER,"
    "  truncated INTEGER, reason TEXT, out BLOB, err BLOB,"
    "  " S_COLUMNS_3 ", " S_COLUMNS_4 ", " S_COLUMNS_5 ", " S_COLUMNS_6 ");"
    "CREATE UNIQUE INDEX tasks_key ON tasks (key) WHERE key IS NOT NULL;"
    "CREATE INDEX tasks_final ON tasks (ended, id) WHERE " S_FINAL ";"
    "CREATE TABLE events (first_seq INTEGER PRIMARY KEY, last_seq INTEGER NOT NULL,"
    "  count INTEGER NOT NULL, data BLOB NOT NULL);";

//  The task columns as load reads them, in this order
#define S_TASK_COLUMNS  DROVER_SQLBATCH_TASK_COLUMNS

//  The statements' SQL, by drover_sqlite_statement_t (the enum
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
                          " service, slot, affinity, \"after\", \"begin\", retry_delay,"
                          " retry_max_delay, \"array\", waits, due, grp, made, devices,"
                          " assigned, fresh) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9,"
                          " ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22,"
                          " ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35,"
                          " ?36, ?37, ?38, ?39, ?40, ?41, ?42, ?43, ?44, ?45, ?46)",
    //  A final task is final: a later change does not touch its row
    [S_UPDATE_STATE]    = "UPDATE tasks SET state = ?3, attempt = ?4, worker = ?5,"
                          " retries_left = ?6, lost = ?7, offered = ?28, started = ?29,"
                          " history = ?31, waits = ?40, due = ?41, grp = ?42, made = ?43,"
                          " assigned = ?45, fresh = NULL WHERE id = ?1 AND NOT (" S_FINAL ")",
    [S_UPDATE_FINAL]    = "UPDATE tasks SET state = ?3, attempt = ?4, worker = ?5,"
                          " retries_left = ?6, lost = ?7, ended = ?10, outcome = ?19,"
                          " exit_code = ?20, signal = ?21, duration = ?22, truncated = ?23,"
                          " reason = ?24, out = ?25, err = ?26, offered = ?28, started = ?29,"
                          " last_outcome = ?30, history = ?31, waits = ?40, due = ?41,"
                          " grp = ?42, made = ?43, assigned = ?45, fresh = NULL"
                          " WHERE id = ?1 AND NOT (" S_FINAL ")",
    [S_INSERT_EVENTS]   = "INSERT INTO events (first_seq, last_seq, count, data)"
                          " VALUES (?1, ?2, ?3, ?4)",
    [S_SET_META]        = "UPDATE meta SET value = ?2 WHERE name = ?1",
    //  The oldest final task load keeps: the max_final'th newest
    [S_LOAD_CUT]        = "SELECT ended, id FROM tasks WHERE " S_FINAL
                          " ORDER BY ended DESC, id DESC LIMIT 1 OFFSET ?1",
    //  The final tasks kept, found by their index (ANALYZE never ran: the
    //  planner would scan the table), then those not final, each by id
    [S_LOAD_FINAL]      = "SELECT " S_TASK_COLUMNS " FROM tasks INDEXED BY tasks_final"
                          " WHERE " S_FINAL " AND (ended, id) >= (?1, ?2) ORDER BY id",
    [S_LOAD_FRESH]      = DROVER_SQLITE_LOAD_FRESH,
    [S_LOAD_LIVE]       = DROVER_SQLITE_LOAD_LIVE,
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
    s_quick_check (sqlite3 *db, const char *path, char **error_p);
static int
    s_check_start (drover_sqlite_t *self, char **error_p);
static int
    s_upgrade (drover_sqlite_t *self);
static void
    s_set_error (char *error, size_t error_size, const char *path, sqlite3 *db, int rc);
static int
    s_run (sqlite3_stmt *stmt);
static int
    s_query_int (sqlite3_stmt *stmt, sqlite3_int64 def, sqlite3_int64 *value);

//  =========================================================================
//  The file: made, checked, upgraded, opened and closed
//  =========================================================================

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
        s_set_error (error, sizeof error, path, self->db, rc);
        *error_p = strdup (error);
        drover_sqlite_destroy (&self);
        return NULL;
    }
    //  A file to upgrade is checked before it is written; any other while
    //  it loads (s_check_start)
    if (s_read_meta (self, meta, error_p)
    || (self->upgrade && s_quick_check (self->db, self->path, error_p))) {
        drover_sqlite_destroy (&self);
        return NULL;
    }
    if (self->upgrade)
        rc = s_upgrade (self);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec (self->db, S_ADMIN_SCHEMA, NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec (self->db, S_SERVICES_SCHEMA, NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec (self->db, S_SHARES_SCHEMA, NULL, NULL, NULL);
    for (int index = 0; index < S_STATEMENTS && rc == SQLITE_OK; index++)
        rc = sqlite3_prepare_v3 (self->db, s_sql [index], -1, SQLITE_PREPARE_PERSISTENT,
                                 &self->stmt [index], NULL);
    sqlite3_int64 finals = 0;
    if (rc == SQLITE_OK) {
        rc = s_query_int (self->stmt [S_COUNT_FINAL], 0, &finals);
        rc = rc == SQLITE_DONE? SQLITE_OK: rc;
    }
    if (rc != SQLITE_OK) {
        s_set_error (error, sizeof error, path, self->db, rc);
        *error_p = strdup (error);
        drover_sqlite_destroy (&self);
        return NULL;
    }
    self->finals = (uint64_t) finals;
    if (!self->upgrade && s_check_start (self, error_p)) {
        drover_sqlite_destroy (&self);
        return NULL;
    }
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
    if (self->checking)
        pthread_join (self->checker, NULL);
    for (int index = 0; index < S_STATEMENTS; index++)
        sqlite3_finalize (self->stmt [index]);
    if (self->db && sqlite3_close (self->db) != SQLITE_OK)
        zsys_error ("store: file=%s close failed: %s", self->path, sqlite3_errmsg (self->db));
    //  Only now: closing it drops the locks db holds on the file (see
    //  s_check_start)
    sqlite3_close (self->check_db);
    zstr_free (&self->check_error);
    zstr_free (&self->path);
    drover_sqlbatch_destroy (&self->tasks);
    free (self->pack);
    free (self);
    *self_p = NULL;
}

//  Write the error text for a failed SQLite call on path: its message,
//  and what to do when the file is damaged
static void
s_set_error (char *error, size_t error_size, const char *path, sqlite3 *db, int rc)
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
        s_set_error (error, sizeof error, init, db, rc);
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
            s_set_error (error, sizeof error, self->path, self->db, rc);
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
                            streq (value, S_FORMAT_3)? 3: streq (value, S_FORMAT_4)? 4:
                            streq (value, S_FORMAT_5)? 5: streq (value, S_FORMAT_6)? 6: 0;
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
        s_set_error (error, sizeof error, self->path, self->db, rc);
        *error_p = strdup (error);
    }
    else
    if (!format && format_seen && drover_store_format_newer (format_seen, S_FORMAT))
        *error_p = zsys_sprintf ("%s: state is '%s', newer than this broker's '" S_FORMAT
                                 "': upgrade the broker, or restore a backup of this"
                                 " release's format", self->path, format_seen);
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
//  values) through db: a damaged page anywhere stops the start, not a
//  later write. Reads every page once, about 0.5 s for a million queued
//  tasks here. Returns 0 or -1 with *error_p.
static int
s_quick_check (sqlite3 *db, const char *path, char **error_p)
{
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2 (db, "PRAGMA quick_check (1)", -1, &stmt, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step (stmt);
    if (rc == SQLITE_ROW) {
        const char *result = (const char *) sqlite3_column_text (stmt, 0);
        if (!result || !streq (result, "ok"))
            *error_p = zsys_sprintf ("%s: damaged drover state (%s): " S_WHAT_TO_DO,
                                     path, result? result: "quick_check failed");
    }
    else {
        char error [DROVER_STORE_ERROR_MAX];
        s_set_error (error, sizeof error, path, db, rc);
        *error_p = strdup (error);
    }
    sqlite3_finalize (stmt);
    return *error_p? -1: 0;
}

//  The checker thread: quick_check on its own connection, the result in
//  check_error
static void *
s_check_run (void *arg)
{
    drover_sqlite_t *self = (drover_sqlite_t *) arg;
    prctl (PR_SET_NAME, "store-check");
    char *error = NULL;
    s_quick_check (self->check_db, self->path, &error);
    sqlite3_db_release_memory (self->check_db);     //  it stays open until db closes
    self->check_error = error;
    return NULL;
}

//  Check the file while load reads it, on a second connection in a thread
//  of its own: the start waits for the longer of the two rather than
//  their sum. It reads pages as load does, not mapped: a mapped file's
//  pages would count in the broker's RSS (1.4x its peak for a million
//  tasks). Nothing is written before the check is joined (s_checked):
//  not a batch, a prune nor a setting, so nothing is acknowledged from a
//  damaged file, and load fails with the check's error. db holds the
//  file's exclusive lock and its WAL index in its own memory, so this
//  connection takes no lock ("unix-none") and reads the WAL itself, in
//  exclusive mode, read-only: it sees what db sees while nothing is
//  written. Closing its file would drop db's POSIX locks (they are the
//  process's): it is closed after db, whatever happens. Without that VFS,
//  or a thread, the check runs here and now, as before. Returns 0, or -1
//  with *error_p if that check found the file damaged.
static int
s_check_start (drover_sqlite_t *self, char **error_p)
{
    int rc = sqlite3_vfs_find ("unix-none")
           ? sqlite3_open_v2 (self->path, &self->check_db,
                              SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, "unix-none")
           : SQLITE_ERROR;
    if (rc == SQLITE_OK) {
        sqlite3_db_config (self->check_db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
        rc = sqlite3_exec (self->check_db, "PRAGMA locking_mode = EXCLUSIVE", NULL, NULL, NULL);
    }
    if (rc == SQLITE_OK && pthread_create (&self->checker, NULL, s_check_run, self) == 0) {
        self->checking = true;
        return 0;
    }
    return s_quick_check (self->db, self->path, error_p);
}

//  Upgrade the file from its format (self->upgrade) to this one: every
//  step's columns added and the format set, in one transaction. Returns
//  SQLite's result.
static int
s_upgrade (drover_sqlite_t *self)
{
    assert (self->upgrade >= 1 && self->upgrade <= S_UPGRADE_FROM_MAX);
    char sql [4096] = "BEGIN; ";
    for (int format = self->upgrade; format <= S_UPGRADE_FROM_MAX; format++) {
        strcat (sql, s_upgrade_steps [format]);
        strcat (sql, " ");
    }
    static const char set_format [] =
        "UPDATE meta SET value = '" S_FORMAT "' WHERE name = 'format'; COMMIT";
    assert (strlen (sql) + sizeof set_format <= sizeof sql);
    strcat (sql, set_format);
    return sqlite3_exec (self->db, sql, NULL, NULL, NULL);
}

//  Wait for the check of the file: 0 if it passed, else -1 with error set
//  to what it found. Every write asks this first.
static int
s_checked (drover_sqlite_t *self, char *error, size_t error_size)
{
    if (self->checking) {
        pthread_join (self->checker, NULL);
        self->checking = false;
    }
    if (self->check_error) {
        snprintf (error, error_size, "%s", self->check_error);
        return -1;
    }
    return 0;
}

//  Run a statement that returns no row and reset it. Returns the SQLite
//  result code (SQLITE_DONE on success).
static int
s_run (sqlite3_stmt *stmt)
{
    int rc = sqlite3_step (stmt);
    sqlite3_reset (stmt);
    return rc;
}

//  Read one integer from a one-row query; def if no row or NULL. Returns
//  the SQLite result (SQLITE_DONE on success).
static int
s_query_int (sqlite3_stmt *stmt, sqlite3_int64 def, sqlite3_int64 *value)
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

//  =========================================================================
//  Writes: a batch applied in one transaction, old tasks and events
//  pruned, an operator's setting or a service's definition kept in a
//  transaction of its own
//
//  apply merges the changes of one task within the batch into one write
//  (an INSERT if its submit is in the batch, else one UPDATE), and writes
//  the events as blobs of up to S_EVENTS_ROW packed events each, one row
//  per blob, packed by drover_eventpack (see the top of this file for why).
//  =========================================================================

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

//  Bind a task's state after its last change (?1, ?3-?7, ?28, ?29, ?31,
//  ?40-?43, ?45) and, final, when it ended with its result (?10, ?19-?26, ?30)
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
    sqlite3_bind_int (stmt, 40, last->waits);
    sqlite3_bind_int64 (stmt, 41, last->due_at);
    sqlite3_bind_int64 (stmt, 42, (sqlite3_int64) last->group);
    sqlite3_bind_int64 (stmt, 43, last->made);
    s_bind_text (stmt, 45, last->assigned);
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

//  Bind a new task's submit (?2, ?8, ?9, ?11-?18, ?27, ?32-?39, ?44): a
//  submit without workflow fields or devices binds NULLs and zeros,
//  nothing packed. The owner is the change's (assign's), else the
//  submit's principal.
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
        size_t size = drover_sqlbatch_labels_join (submit, labels, sizeof labels);
        sqlite3_bind_text (stmt, 17, labels, (int) size, SQLITE_TRANSIENT);
    }
    else
        sqlite3_bind_null (stmt, 17);
    s_bind_blob (stmt, 18, submit->body, submit->body_size);
    sqlite3_bind_text (stmt, 27, *change->owner? change->owner: submit->principal, -1,
                       SQLITE_STATIC);
    s_bind_text (stmt, 32, submit->service [0]? submit->service: NULL);
    sqlite3_bind_int64 (stmt, 33, submit->slot);
    s_bind_text (stmt, 34, submit->affinity);
    if (submit->nafter && submit->after) {
        byte after [DROVER_SQLBATCH_AFTER_MAX];
        size_t size = drover_sqlbatch_after_pack (submit, after);
        sqlite3_bind_blob64 (stmt, 35, after, size, SQLITE_TRANSIENT);
    }
    else
        sqlite3_bind_null (stmt, 35);
    sqlite3_bind_int64 (stmt, 36, (sqlite3_int64) submit->begin);
    sqlite3_bind_int64 (stmt, 37, submit->retry_delay);
    sqlite3_bind_int64 (stmt, 38, submit->retry_max_delay);
    byte array [DROVER_SQLBATCH_ARRAY_SIZE];
    size_t size = drover_sqlbatch_array_pack (submit, array);
    if (size)
        sqlite3_bind_blob (stmt, 39, array, (int) size, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null (stmt, 39);
    char devices [DROVER_DEVICELIST_TEXT_MAX];
    drover_devicelist_format (submit->devices, submit->ndevices, devices);
    if (*devices)
        sqlite3_bind_text (stmt, 44, devices, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null (stmt, 44);
}

//  Tell whether a task the batch inserts is fresh: a plain QUEUED task as
//  its submit made it (no attempt, its retries all left, waiting for
//  nothing, in no group; no workflow, array, service, affinity, begin nor
//  retry delay), which load reads by its packed fields (S_LOAD_FRESH)
static bool
s_fresh (const drover_msg_t *submit, const drover_change_t *last)
{
    return last->state == DROVER_TASK_QUEUED && last->attempt == 0 && last->lost == 0
        && !*last->worker && last->offered_at == 0 && last->started_at == 0
        && !last->history && last->waits == 0 && last->due_at == 0 && last->group == 0
        && last->made == 0 && !(last->assigned && *last->assigned)
        && last->retries_left == submit->retries
        && !submit->service [0] && !(submit->affinity && *submit->affinity)
        && !(submit->nafter && submit->after) && submit->array.count == 0
        && submit->begin == 0 && submit->retry_delay == 0;
}

//  Bind a task's packed fields (?46) if the insert makes it fresh, else NULL
static void
s_bind_fresh (sqlite3_stmt *stmt, drover_change_t *change, drover_change_t *last)
{
    drover_msg_t *submit = change->submit;
    if (s_fresh (submit, last)) {
        byte fresh [DROVER_SQLBATCH_FRESH_MAX];
        size_t size = drover_sqlbatch_fresh_pack (submit, fresh);
        if (size == 1 && fresh [0] == DROVER_SQLBATCH_FRESH_PLAIN)
            sqlite3_bind_int (stmt, 46, 1);     //  0 bytes in the row (see S_COLUMNS_7)
        else
            sqlite3_bind_blob (stmt, 46, fresh, (int) size, SQLITE_TRANSIENT);
    }
    else
        sqlite3_bind_null (stmt, 46);
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
            s_bind_fresh (stmt, changes [slot->submit], last);
        }
        else
        if (done || drover_change_final (last))
            stmt = self->stmt [S_UPDATE_FINAL];
        else
            stmt = self->stmt [S_UPDATE_STATE];
        s_bind_state (stmt, last, done);
        rc = s_run (stmt);
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
        rc = s_run (stmt);
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
    return s_run (stmt);
}

//  End a transaction that failed: roll back what SQLite has not already
//  rolled back, and write the error text
static void
s_abort (drover_sqlite_t *self, int rc, char *error, size_t error_size)
{
    s_set_error (error, error_size, self->path, self->db, rc);
    if (!sqlite3_get_autocommit (self->db)) {
        int rollback = s_run (self->stmt [S_ROLLBACK]);
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
    if (s_checked (self, error, error_size))
        return -1;
    int rc = s_run (self->stmt [S_BEGIN]);
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
        rc = s_run (self->stmt [S_COMMIT]);
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
        rc = s_run (stmt);
        if (rc == SQLITE_DONE)
            *deleted += sqlite3_changes (self->db);
    }
    if (rc == SQLITE_DONE && keep_age < now && (size_t) *deleted < max_rows) {
        sqlite3_stmt *stmt = self->stmt [S_PRUNE_AGED];
        sqlite3_bind_int64 (stmt, 1, (sqlite3_int64) (now - keep_age));
        sqlite3_bind_int64 (stmt, 2, (sqlite3_int64) (max_rows - (size_t) *deleted));
        rc = s_run (stmt);
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
    int rc = s_query_int (self->stmt [S_FIRST_TASK_SEQ], 0, &task_cut);
    if (rc == SQLITE_DONE)
        rc = s_query_int (self->stmt [S_LAST_SEQ], 0, &last_seq);
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
    rc = s_run (stmt);
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
    if (s_checked (self, error, error_size))
        return -1;
    int64_t tasks = 0, events = 0;
    int rc = s_run (self->stmt [S_BEGIN]);
    if (rc == SQLITE_DONE)
        rc = s_prune_tasks (self, keep_count, keep_age, now, max_rows, &tasks);
    if (rc == SQLITE_DONE)
        rc = s_prune_events (self, keep_events, max_rows - (size_t) tasks, &events);
    if (rc == SQLITE_DONE)
        rc = s_run (self->stmt [S_COMMIT]);
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
        s_set_error (error, error_size, self->path, self->db, rc);
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
    if (s_checked (self, error, error_size))
        return -1;
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
        rc = s_run (stmt);      //  autocommit: one durable transaction
    }
    return s_finish_write (self, stmt, rc, error, error_size);
}

//  Keep a service's definition, in its own transaction; size 0 forgets it
int
drover_sqlite_save_service (drover_sqlite_t *self, const char *name, const byte *def,
                            size_t size, char *error, size_t error_size)
{
    assert (self && name && error);
    if (s_checked (self, error, error_size))
        return -1;
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2 (self->db, size == 0
                                 ? "DELETE FROM services WHERE name = ?1"
                                 : "INSERT OR REPLACE INTO services VALUES (?1, ?2)",
                                 -1, &stmt, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text (stmt, 1, name, -1, SQLITE_STATIC);
        if (size)
            sqlite3_bind_blob (stmt, 2, def, (int) size, SQLITE_STATIC);
        rc = s_run (stmt);      //  autocommit: one durable transaction
    }
    return s_finish_write (self, stmt, rc, error, error_size);
}

//  Keep a share, in its own transaction; weight 0 forgets it
int
drover_sqlite_save_share (drover_sqlite_t *self, const drover_store_share_t *share,
                          char *error, size_t error_size)
{
    assert (self && share && error);
    if (s_checked (self, error, error_size))
        return -1;
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2 (self->db, share->weight == 0
                                 ? "DELETE FROM shares WHERE name = ?1"
                                 : "INSERT OR REPLACE INTO shares VALUES (?1, ?2, ?3, ?4)",
                                 -1, &stmt, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text (stmt, 1, share->name, -1, SQLITE_STATIC);
        if (share->weight) {
            sqlite3_bind_int64 (stmt, 2, share->weight);
            if (share->members)
                sqlite3_bind_text (stmt, 3, share->members, -1, SQLITE_STATIC);
            else
                sqlite3_bind_null (stmt, 3);
            sqlite3_bind_text (stmt, 4, share->quota? share->quota: "", -1, SQLITE_STATIC);
        }
        rc = s_run (stmt);      //  autocommit: one durable transaction
    }
    return s_finish_write (self, stmt, rc, error, error_size);
}

//  =========================================================================
//  Reads: the tasks loaded at start, the events replayed, the settings
//  and services read back. A row that breaks a limit is refused as a
//  damaged state, not read past.
//  =========================================================================

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

//  Copy text (NULL: "") into a buffer of size bytes, cut to fit: a million
//  rows make snprintf's formatting worth avoiding
static void
s_copy_text (char *buffer, size_t size, const char *text)
{
    size_t length = text? strnlen (text, size - 1): 0;
    memcpy (buffer, text? text: "", length);
    buffer [length] = 0;
}

//  The topic of a change that puts back a kept task
#define S_RESTORED      "task.restored"
_Static_assert (sizeof S_RESTORED <= sizeof ((drover_change_t *) 0)->topic, "topic too long");

//  Tell whether a row is a plain QUEUED task: no workflow, array, service,
//  affinity, begin, retry delay nor devices assigned, which its record
//  alone can put back
static bool
s_plain (sqlite3_stmt *stmt)
{
    const char *service = (const char *) sqlite3_column_text (stmt, 30);
    const char *affinity = (const char *) sqlite3_column_text (stmt, 32);
    const char *assigned = (const char *) sqlite3_column_text (stmt, 43);
    return sqlite3_column_int (stmt, 2) == DROVER_TASK_QUEUED
        && (!service || !*service) && (!affinity || !*affinity) && (!assigned || !*assigned)
        && sqlite3_column_bytes (stmt, 33) == 0 && sqlite3_column_bytes (stmt, 37) == 0
        && sqlite3_column_int64 (stmt, 34) == 0 && sqlite3_column_int64 (stmt, 35) == 0;
}

//  Empty scratch after a record was made through it: its borrowed key and
//  body dropped, its labels freed, its devices none
static void
s_scratch_empty (drover_msg_t *scratch)
{
    scratch->key = NULL;
    scratch->body = NULL;
    scratch->body_size = 0;
    for (uint32_t index = 0; index < scratch->nlabels; index++)
        zstr_free (&scratch->labels [index]);
    scratch->nlabels = 0;
    scratch->ndevices = 0;
}

//  Make a plain task's record from its row, through scratch (a TASK SUBMIT
//  reused row after row, left empty: a million rows made no 3 KB message
//  each); NULL if its devices are not understood (the file is damaged)
static drover_taskrecord_t *
s_record (sqlite3_stmt *stmt, uint64_t id, drover_msg_t *scratch)
{
    scratch->key = (char *) sqlite3_column_text (stmt, 1);      //  borrowed: copied
    scratch->priority = sqlite3_column_int (stmt, 9);
    scratch->procs = (uint32_t) sqlite3_column_int64 (stmt, 10);
    scratch->mem = (uint64_t) sqlite3_column_int64 (stmt, 11);
    scratch->timeout = (uint32_t) sqlite3_column_int64 (stmt, 12);
    scratch->retries = (uint32_t) sqlite3_column_int64 (stmt, 13);
    scratch->flags = (uint32_t) sqlite3_column_int64 (stmt, 14);
    drover_sqlbatch_labels_split (scratch, (const char *) sqlite3_column_text (stmt, 15));
    scratch->body = (byte *) sqlite3_column_blob (stmt, 16);   //  borrowed: copied
    scratch->body_size = (size_t) sqlite3_column_bytes (stmt, 16);
    drover_taskrecord_t *record = NULL;
    if (drover_sqlbatch_devices_unpack (scratch, (const char *) sqlite3_column_text (stmt, 42))
        == 0)
        record = drover_taskrecord_new (id, scratch);
    s_scratch_empty (scratch);
    return record;
}

//  Make a change (task.restored) from a row of S_LOAD_FINAL or S_LOAD_LIVE; NULL if the row
//  breaks a limit (the file is damaged). With scratch, a plain QUEUED task
//  comes as its record (s_record) rather than a TASK SUBMIT.
static drover_change_t *
s_restored (sqlite3_stmt *stmt, drover_msg_t *scratch)
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
    ||  sqlite3_column_bytes (stmt, 29) > DROVER_MSG_MAX
    ||  sqlite3_column_int (stmt, 38) < 0 || sqlite3_column_int (stmt, 38) > DROVER_WAITS_MAX
    ||  sqlite3_column_bytes (stmt, 43) > DROVER_MSG_MAX)
        return NULL;
    //  As drover_change_new would, without its formatting and clock, a
    //  million times over: the time is the row's (queued_at)
    drover_change_t *change = (drover_change_t *) zmalloc (sizeof (drover_change_t));
    memcpy (change->topic, S_RESTORED, sizeof S_RESTORED);
    change->task = id;
    change->state = (uint8_t) state;
    change->attempt = (uint32_t) sqlite3_column_int64 (stmt, 3);
    if (worker)
        s_copy_text (change->worker, sizeof change->worker, worker);
    change->retries_left = (uint32_t) sqlite3_column_int64 (stmt, 5);
    change->lost = (uint16_t) sqlite3_column_int (stmt, 6);
    change->time = (uint64_t) sqlite3_column_int64 (stmt, 7);
    change->queued_at = sqlite3_column_int64 (stmt, 7);
    change->ended_at = sqlite3_column_int64 (stmt, 8);
    change->offered_at = sqlite3_column_int64 (stmt, 26);
    change->started_at = sqlite3_column_int64 (stmt, 27);
    change->history = s_column_blob (stmt, 29, &change->history_size);
    if (scratch && s_plain (stmt)) {
        const char *owner = (const char *) sqlite3_column_text (stmt, 25);
        s_copy_text (change->owner, sizeof change->owner, owner);
        change->waits = (uint8_t) sqlite3_column_int (stmt, 38);
        change->due_at = sqlite3_column_int64 (stmt, 39);
        change->group = (uint64_t) sqlite3_column_int64 (stmt, 40);
        change->made = (uint32_t) sqlite3_column_int64 (stmt, 41);
        change->record = s_record (stmt, id, scratch);
        if (!change->record)
            drover_change_destroy (&change);
        return change;
    }

    drover_msg_t *submit = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    submit->task = id;
    submit->key = key? strdup (key): NULL;
    submit->priority = sqlite3_column_int (stmt, 9);
    submit->procs = (uint32_t) sqlite3_column_int64 (stmt, 10);
    submit->mem = (uint64_t) sqlite3_column_int64 (stmt, 11);
    submit->timeout = (uint32_t) sqlite3_column_int64 (stmt, 12);
    submit->retries = (uint32_t) sqlite3_column_int64 (stmt, 13);
    submit->flags = (uint32_t) sqlite3_column_int64 (stmt, 14);
    drover_sqlbatch_labels_split (submit, labels);
    submit->body = s_column_blob (stmt, 16, &submit->body_size);
    const char *owner = (const char *) sqlite3_column_text (stmt, 25);
    s_copy_text (submit->principal, sizeof submit->principal, owner);
    s_copy_text (change->owner, sizeof change->owner, owner);
    const char *service = (const char *) sqlite3_column_text (stmt, 30);
    s_copy_text (submit->service, sizeof submit->service, service);
    submit->slot = (uint32_t) sqlite3_column_int64 (stmt, 31);
    const char *affinity = (const char *) sqlite3_column_text (stmt, 32);
    submit->affinity = affinity && *affinity? strdup (affinity): NULL;
    change->submit = submit;
    submit->begin = (uint64_t) sqlite3_column_int64 (stmt, 34);
    submit->retry_delay = (uint32_t) sqlite3_column_int64 (stmt, 35);
    submit->retry_max_delay = (uint32_t) sqlite3_column_int64 (stmt, 36);
    change->waits = (uint8_t) sqlite3_column_int (stmt, 38);
    change->due_at = sqlite3_column_int64 (stmt, 39);
    change->group = (uint64_t) sqlite3_column_int64 (stmt, 40);
    change->made = (uint32_t) sqlite3_column_int64 (stmt, 41);
    const byte *after = (const byte *) sqlite3_column_blob (stmt, 33);
    size_t after_size = (size_t) sqlite3_column_bytes (stmt, 33);
    const byte *array = (const byte *) sqlite3_column_blob (stmt, 37);
    size_t array_size = (size_t) sqlite3_column_bytes (stmt, 37);
    const char *assigned = (const char *) sqlite3_column_text (stmt, 43);
    change->assigned = assigned && *assigned? strdup (assigned): NULL;
    if (drover_sqlbatch_after_unpack (submit, after, after_size)
    ||  drover_sqlbatch_array_unpack (submit, array, array_size)
    ||  drover_sqlbatch_devices_unpack (submit, (const char *) sqlite3_column_text (stmt, 42))) {
        drover_change_destroy (&change);
        return NULL;
    }

    if (drover_change_final (change)) {
        drover_msg_t *done = drover_msg_new (DROVER_MSG_TASK_DONE);
        done->task = id;
        done->state = (uint8_t) state;
        done->attempt = change->attempt;
        s_copy_text (done->worker, sizeof done->worker, change->worker);
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

//  Make a change (task.restored) from a row of S_LOAD_FRESH (id, key,
//  submitted, body, fresh, owner): a plain QUEUED task as its insert wrote it (no
//  attempt, its retries all left, waiting for nothing, in no group). NULL
//  if the row breaks a limit (the file is damaged). With scratch, it comes
//  as its record, else with a TASK SUBMIT.
static drover_change_t *
s_restored_fresh (sqlite3_stmt *stmt, drover_msg_t *scratch)
{
    uint64_t id = (uint64_t) sqlite3_column_int64 (stmt, 0);
    const char *key = (const char *) sqlite3_column_text (stmt, 1);
    const byte *body = (const byte *) sqlite3_column_blob (stmt, 3);
    size_t body_size = (size_t) sqlite3_column_bytes (stmt, 3);
    const byte *fresh = (const byte *) sqlite3_column_blob (stmt, 4);
    size_t fresh_size = (size_t) sqlite3_column_bytes (stmt, 4);
    static const byte plain [] = { DROVER_SQLBATCH_FRESH_PLAIN };
    int type = sqlite3_column_type (stmt, 4);
    if (type == SQLITE_INTEGER && sqlite3_column_int64 (stmt, 4) == 1) {
        fresh = plain;
        fresh_size = sizeof plain;
    }
    else
    if (type != SQLITE_BLOB)
        return NULL;            //  not what an insert writes
    const char *owner = (const char *) sqlite3_column_text (stmt, 5);
    if (id == 0 || (key && strlen (key) > DROVER_KEY_MAX) || body_size > DROVER_BODY_MAX)
        return NULL;
    drover_msg_t *submit = scratch? scratch: drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    if (drover_sqlbatch_fresh_unpack (submit, fresh, fresh_size)) {
        if (!scratch)
            drover_msg_destroy (&submit);
        return NULL;
    }
    //  As s_restored would, from what the insert wrote
    drover_change_t *change = (drover_change_t *) zmalloc (sizeof (drover_change_t));
    memcpy (change->topic, S_RESTORED, sizeof S_RESTORED);
    change->task = id;
    change->state = DROVER_TASK_QUEUED;
    change->retries_left = submit->retries;
    change->time = (uint64_t) sqlite3_column_int64 (stmt, 2);
    change->queued_at = sqlite3_column_int64 (stmt, 2);
    s_copy_text (change->owner, sizeof change->owner, owner);
    if (scratch) {
        scratch->key = (char *) key;                //  borrowed: copied
        scratch->body = (byte *) body;              //  borrowed: copied
        scratch->body_size = body_size;
        change->record = drover_taskrecord_new (id, scratch);
        s_scratch_empty (scratch);
        return change;
    }
    submit->task = id;
    submit->key = key? strdup (key): NULL;
    submit->body = s_column_blob (stmt, 3, &submit->body_size);
    s_copy_text (submit->principal, sizeof submit->principal, owner);
    change->submit = submit;
    return change;
}

//  One statement whose rows load merges with the others' by id
typedef struct {
    sqlite3_stmt *stmt;         //  bound and reset by the caller; NULL: none
    drover_change_t *(*make) (sqlite3_stmt *stmt, drover_msg_t *scratch);
                                //  what makes a change of its row
    int rc;                     //  its last step's result
    int64_t id;                 //  the id of the row at hand (SQLITE_ROW)
} s_source_t;

//  Step a source to its next row
static void
s_source_step (s_source_t *source)
{
    source->rc = source->stmt? sqlite3_step (source->stmt): SQLITE_DONE;
    if (source->rc == SQLITE_ROW)
        source->id = sqlite3_column_int64 (source->stmt, 0);
}

//  Look for the live rows between the ids low and high (both excluded),
//  if there can be any: the live source's range query, bound and stepped
static void
s_live_range (s_source_t *live, int64_t low, int64_t high)
{
    if (high - low < 2)
        return;                 //  no id between: nothing to look for
    sqlite3_reset (live->stmt);
    sqlite3_bind_int64 (live->stmt, 1, low);
    sqlite3_bind_int64 (live->stmt, 2, high);
    s_source_step (live);
}

//  Hand fn every row of the load statements merged by id (each in id
//  order, none with a row of another): final, fresh, then live, whose
//  range query looks for rows only in the gaps between fresh rows, so
//  that the table is not scanned twice when most tasks are fresh. Past
//  DROVER_SQLITE_GAPS_MAX gaps (a seek each) it reads the rest of the table in one
//  range. Returns the rows handed, or -1 with error set (a row out of
//  bounds, or SQLite's error); stops early, not an error, when fn says
//  so. scratch: see s_restored.
static int64_t
s_load_rows (drover_sqlite_t *self, s_source_t *sources, size_t nsources,
             drover_msg_t *scratch, drover_store_task_fn *fn, void *arg, char *error,
             size_t error_size)
{
    assert (nsources == 3);
    s_source_t *fresh = &sources [1], *live = &sources [2];
    s_source_step (&sources [0]);
    s_source_step (fresh);
    live->rc = SQLITE_DONE;
    s_live_range (live, 0, fresh->rc == SQLITE_ROW? fresh->id: INT64_MAX);
    size_t gaps = 0;
    bool scanning = false;      //  live reads the rest of the table in one range
    int64_t loaded = 0;
    while (true) {
        //  The lowest id of the rows at hand goes first
        s_source_t *next = NULL;
        for (size_t index = 0; index < nsources; index++)
            if (sources [index].rc == SQLITE_ROW && (!next || sources [index].id < next->id))
                next = &sources [index];
        if (!next)
            break;
        drover_change_t *change = next->make (next->stmt, scratch);
        if (!change) {
            snprintf (error, error_size, "%s: damaged drover state (task %lld out of"
                      " bounds): " S_WHAT_TO_DO, self->path, (long long) next->id);
            return -1;
        }
        int stop = fn (arg, &change);
        drover_change_destroy (&change);
        loaded++;
        if (stop)
            return loaded;
        int64_t low = next->id;
        s_source_step (next);
        if (next == fresh && !scanning && live->rc == SQLITE_DONE) {
            //  Every live row before low was handed: look past it
            int64_t high = fresh->rc == SQLITE_ROW? fresh->id: INT64_MAX;
            if (high - low > 1 && ++gaps >= DROVER_SQLITE_GAPS_MAX && high < INT64_MAX) {
                high = INT64_MAX;
                scanning = true;
            }
            s_live_range (live, low, high);
        }
    }
    for (size_t index = 0; index < nsources; index++)
        if (sources [index].rc != SQLITE_DONE) {
            s_set_error (error, error_size, self->path, self->db, sources [index].rc);
            return -1;
        }
    return loaded;
}

//  Plain QUEUED tasks come as records from the next loads
void
drover_sqlite_set_records (drover_sqlite_t *self, bool records)
{
    assert (self);
    self->records = records;
}

//  Load the kept tasks: the newest max_final final ones (by when they
//  ended), then those not final, each oldest id first
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
    //  Final and live rows merged by id: a task comes after its parents
    //  and its group (lower ids), whatever their states
    int64_t loaded = -1;
    if (rc == SQLITE_DONE) {
        sqlite3_stmt *final = max_final > 0? self->stmt [S_LOAD_FINAL]: NULL;
        if (final) {
            sqlite3_bind_int64 (final, 1, cut_ended);
            sqlite3_bind_int64 (final, 2, cut_id);
        }
        s_source_t sources [] = {
            { .stmt = final, .make = s_restored },
            { .stmt = self->stmt [S_LOAD_FRESH], .make = s_restored_fresh },
            { .stmt = self->stmt [S_LOAD_LIVE], .make = s_restored }
        };
        drover_msg_t *scratch = self->records? drover_msg_new (DROVER_MSG_TASK_SUBMIT): NULL;
        loaded = s_load_rows (self, sources, sizeof sources / sizeof sources [0], scratch, fn,
                              arg, error, error_size);
        drover_msg_destroy (&scratch);
        if (final)
            sqlite3_reset (final);
        sqlite3_reset (self->stmt [S_LOAD_FRESH]);
        sqlite3_reset (self->stmt [S_LOAD_LIVE]);
    }
    else
        s_set_error (error, error_size, self->path, self->db, rc);
    //  Nothing loaded from a file its check found damaged; the check's
    //  error says why, rather than what load met of the damage
    if (s_checked (self, error, error_size))
        return -1;
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
        *change_p = s_restored (stmt, NULL);
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
        s_set_error (error, error_size, self->path, self->db, rc);
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
        s_set_error (error, error_size, self->path, self->db, rc);
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
        s_set_error (error, error_size, self->path, self->db, rc);
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
        s_set_error (error, error_size, self->path, self->db, rc);
        return -1;
    }
    return count;
}

//  Hand fn every kept share, in name order
int64_t
drover_sqlite_load_shares (drover_sqlite_t *self, drover_store_share_fn *fn, void *arg,
                           char *error, size_t error_size)
{
    assert (self && fn && error);
    sqlite3_stmt *stmt = NULL;
    int64_t count = 0;
    int rc = sqlite3_prepare_v2 (self->db, "SELECT name, weight, members, quota FROM shares"
                                 " ORDER BY name", -1, &stmt, NULL);
    while (rc == SQLITE_OK || rc == SQLITE_ROW) {
        rc = sqlite3_step (stmt);
        if (rc != SQLITE_ROW)
            break;
        const char *name = (const char *) sqlite3_column_text (stmt, 0);
        sqlite3_int64 weight = sqlite3_column_int64 (stmt, 1);
        const char *quota = (const char *) sqlite3_column_text (stmt, 3);
        if (!name || !drover_id_valid (name) || weight < 1 || weight > UINT32_MAX || !quota)
            continue;           //  not one we wrote: skipped
        drover_store_share_t share = {
            .name = name, .weight = (uint32_t) weight,
            .members = (const char *) sqlite3_column_text (stmt, 2), .quota = quota
        };
        count++;
        if (fn (arg, &share))
            break;
    }
    sqlite3_finalize (stmt);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
        s_set_error (error, error_size, self->path, self->db, rc);
        return -1;
    }
    return count;
}

//  Start an online copy of the state into path: read through our own
//  connection, which the exclusive lock leaves the only one, so that
//  SQLite writes each later commit into the copy too
drover_sqlbackup_t *
drover_sqlite_backup (drover_sqlite_t *self, const char *path, int *code_p,
                      char *error, size_t error_size)
{
    assert (self);
    if (s_checked (self, error, error_size)) {
        *code_p = 500;          //  the file, not the request
        return NULL;
    }
    return drover_sqlbackup_new (self->db, path, code_p, error, error_size);
}
