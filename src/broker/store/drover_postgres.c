/*  =========================================================================
    drover_postgres - the PostgreSQL backend of drover_store: the
    broker's state in a database, for brokers on several machines

    Open makes the tables if missing (under an advisory lock: two brokers
    starting at once do not race), claims the state for the fencing token
    (raising the fence row's token to ours, refused if it holds a higher
    one), then reads the meta in the same transaction, so a new leader
    sees every commit of the old one: the old one's later writes are all
    refused, since each write transaction first calls drover_fence_check
    ($1), which locks the fence row and raises SQLSTATE DR001 if the
    token there is not ours. A fence of 0 claims nothing and checks
    nothing (one broker on its own).

    apply sends its whole transaction in one round (libpq pipeline mode:
    no round trip per statement): the changes of one task within the batch
    merged into one write, the events packed by drover_eventpack, 1024 to
    a row, as the SQLite backend does. Inserts ignore a row already there
    (ON CONFLICT DO NOTHING), so a batch tried again after a commit whose
    answer was lost is not refused for ever. Durability is the server's:
    a commit returns once the server says it is durable (synchronous_commit,
    on by default; with a synchronous standby, once it has it too).

    Strings are kept as bytea: the server's encoding never refuses a key
    or a reason a peer sent.

    The file reads top-down in three sections: open and the fence, the
    writes, and the reads.
    =========================================================================
*/

#include "drover_postgres.h"
#include "drover_pgconn.h"
#include "drover_sqlbatch.h"
#include "drover_eventpack.h"

//  The prepared statements, by index in s_statements
typedef enum {
    S_INSERT_TASK, S_UPDATE_STATE, S_UPDATE_FINAL, S_INSERT_EVENTS, S_SET_META,
    S_FENCE_CHECK, S_LOAD_CUT, S_LOAD, S_REPLAY, S_PRUNE_OLDEST, S_PRUNE_AGED,
    S_FIRST_TASK_SEQ, S_LAST_SEQ, S_PRUNE_EVENTS, S_SAVE_ADMIN, S_FORGET_ADMIN,
    S_LOAD_ADMIN, S_SAVE_SERVICE, S_FORGET_SERVICE, S_LOAD_SERVICES, S_READ_TASK,
    S_SAVE_SHARE, S_FORGET_SHARE, S_LOAD_SHARES, S_STATEMENTS
} drover_postgres_statement_t;

//  One kind of task write's rows, by column (1..45; see S_TASK_COLUMNS)
typedef struct {
    drover_pgarray_t columns [46];  //  one array a column, [0] unused
} drover_postgres_rows_t;

struct _drover_postgres_t {
    drover_pgconn_t *conn;          //  the connection
    uint64_t fence;                 //  our fencing token, 0: none
    bool fenced;                    //  a write was refused by fencing
    char fenced_error [DROVER_STORE_ERROR_MAX];   //  its text, said to every later write
    drover_sqlbatch_t *tasks;      //  the batch's changes by task
    byte *pack;                     //  buffer for packing one events row
    drover_postgres_rows_t rows [3];    //  a batch's inserts, updates, final updates
    uint64_t finals;                //  final tasks kept: prune by count needs no scan
};

#define S_FORMAT_NUMBER "3"                     //  this code's format number
#define S_FORMAT        "drover-postgres " S_FORMAT_NUMBER  //  drover_meta 'format'
#define S_FORMAT_NAME   "drover-postgres "      //  every format's marker starts so
#define S_FORMAT_2      "drover-postgres 2"     //  the format before counted devices:
                                                //  upgraded at open
#define S_FORMAT_1      "drover-postgres 1"     //  the format before workflows: upgraded
                                                //  at open (through 2)
#define S_EVENTS_ROW    1024                    //  events packed in one row, at most
#define S_FINAL         "state >= 3"            //  SQL: a final task
#define S_FENCED_STATE  "DR001"                 //  SQLSTATE of a write refused by fencing
#define S_NEWER_STATE   "DR002"                 //  SQLSTATE of a state newer than ours
#define S_LOCK_KEY      "7306244174930108486"   //  advisory lock held while making tables
#define S_LOAD_PAGE     4096                    //  tasks one load query reads, at most

//  The tables, the fence row and the fence check, each one statement
static const char *
s_schema [] = {
    "SELECT pg_advisory_xact_lock (" S_LOCK_KEY ")",
    "CREATE TABLE IF NOT EXISTS drover_meta (name text PRIMARY KEY, value text NOT NULL)",
    //  A state a newer broker wrote is refused before anything of it is
    //  touched (its tables, indexes and fence function are that broker's):
    //  the exception ends the transaction, nothing made or replaced
    "DO $$ DECLARE seen text; BEGIN"
    " SELECT value INTO seen FROM drover_meta WHERE name = 'format';"
    " IF seen ~ '^" S_FORMAT_NAME "[0-9]+$' AND substr (seen, length ('" S_FORMAT_NAME "') + 1)"
    "::numeric > " S_FORMAT_NUMBER " THEN RAISE EXCEPTION USING ERRCODE = '" S_NEWER_STATE "',"
    " MESSAGE = format ('state in PostgreSQL is ''%s'', newer than this broker''s ''" S_FORMAT
    "'': upgrade the broker', seen); END IF; END $$",
    "CREATE TABLE IF NOT EXISTS drover_fence (id integer PRIMARY KEY CHECK (id = 1),"
    " token bigint NOT NULL)",
    "INSERT INTO drover_fence VALUES (1, 0) ON CONFLICT DO NOTHING",
    "CREATE TABLE IF NOT EXISTS drover_tasks ("
    " id bigint PRIMARY KEY, key bytea, state bigint NOT NULL, attempt bigint NOT NULL,"
    " worker bytea NOT NULL, retries_left bigint NOT NULL, lost bigint NOT NULL,"
    " seq bigint NOT NULL, submitted bigint NOT NULL, ended bigint NOT NULL,"
    " priority bigint, procs bigint, mem bigint, timeout bigint, retries bigint,"
    " flags bigint, labels bytea, body bytea,"
    " outcome bigint, exit_code bigint, signal bigint, duration bigint,"
    " truncated bigint, reason bytea, out bytea, err bytea, owner bytea NOT NULL,"
    " offered bigint NOT NULL DEFAULT 0, started bigint NOT NULL DEFAULT 0,"
    " last_outcome bigint, history bytea, service bytea, slot bigint NOT NULL DEFAULT 0,"
    " affinity bytea, \"after\" bytea, \"begin\" bigint NOT NULL DEFAULT 0,"
    " retry_delay bigint NOT NULL DEFAULT 0, retry_max_delay bigint NOT NULL DEFAULT 0,"
    " \"array\" bytea, waits bigint NOT NULL DEFAULT 0, due bigint NOT NULL DEFAULT 0,"
    " grp bigint NOT NULL DEFAULT 0, made bigint NOT NULL DEFAULT 0, devices bytea,"
    " assigned bytea)",
    //  A state of format 1 takes the columns of workflows (as the table
    //  above has them), still under the lock: its tasks wait for nothing
    //  and belong to no group. A state of another format is left as it is
    //  (and refused once its meta is read).
    "DO $$ BEGIN IF EXISTS (SELECT 1 FROM drover_meta WHERE name = 'format'"
    " AND value = '" S_FORMAT_1 "') THEN ALTER TABLE drover_tasks"
    " ADD COLUMN IF NOT EXISTS \"after\" bytea,"
    " ADD COLUMN IF NOT EXISTS \"begin\" bigint NOT NULL DEFAULT 0,"
    " ADD COLUMN IF NOT EXISTS retry_delay bigint NOT NULL DEFAULT 0,"
    " ADD COLUMN IF NOT EXISTS retry_max_delay bigint NOT NULL DEFAULT 0,"
    " ADD COLUMN IF NOT EXISTS \"array\" bytea,"
    " ADD COLUMN IF NOT EXISTS waits bigint NOT NULL DEFAULT 0,"
    " ADD COLUMN IF NOT EXISTS due bigint NOT NULL DEFAULT 0,"
    " ADD COLUMN IF NOT EXISTS grp bigint NOT NULL DEFAULT 0,"
    " ADD COLUMN IF NOT EXISTS made bigint NOT NULL DEFAULT 0;"
    " UPDATE drover_meta SET value = '" S_FORMAT_2 "' WHERE name = 'format'; END IF; END $$",
    //  Then a state of format 2 (or 1, just upgraded) takes the columns of
    //  counted devices: its tasks ask for none and were given none
    "DO $$ BEGIN IF EXISTS (SELECT 1 FROM drover_meta WHERE name = 'format'"
    " AND value = '" S_FORMAT_2 "') THEN ALTER TABLE drover_tasks"
    " ADD COLUMN IF NOT EXISTS devices bytea, ADD COLUMN IF NOT EXISTS assigned bytea;"
    " UPDATE drover_meta SET value = '" S_FORMAT "' WHERE name = 'format'; END IF; END $$",
    "CREATE UNIQUE INDEX IF NOT EXISTS drover_tasks_key ON drover_tasks (key)"
    " WHERE key IS NOT NULL",
    "CREATE INDEX IF NOT EXISTS drover_tasks_final ON drover_tasks (ended, id)"
    " WHERE " S_FINAL,
    "CREATE TABLE IF NOT EXISTS drover_events (first_seq bigint PRIMARY KEY,"
    " last_seq bigint NOT NULL, count bigint NOT NULL, data bytea NOT NULL)",
    "CREATE TABLE IF NOT EXISTS drover_worker_admin (worker bytea PRIMARY KEY,"
    " admin bigint NOT NULL, flags bigint NOT NULL, reason bytea NOT NULL,"
    " since bigint NOT NULL)",
    "CREATE TABLE IF NOT EXISTS drover_services (name bytea PRIMARY KEY, def bytea NOT NULL)",
    //  The shares SHARE ADMIN set: members NULL for an owner (not an
    //  account), quota the sharespec quota text ('' none)
    "CREATE TABLE IF NOT EXISTS drover_shares (name bytea PRIMARY KEY, weight bigint NOT NULL,"
    " members bytea, quota bytea NOT NULL)",
    "CREATE OR REPLACE FUNCTION drover_fence_check (ours bigint) RETURNS void"
    " LANGUAGE plpgsql AS $$ DECLARE held bigint; BEGIN"
    " SELECT token INTO held FROM drover_fence WHERE id = 1 FOR UPDATE;"
    " IF held IS DISTINCT FROM ours THEN RAISE EXCEPTION USING ERRCODE = '" S_FENCED_STATE "',"
    " MESSAGE = format ('fenced: the state is held by a newer leader (token %s > fence %s)',"
    " held, ours); END IF; END $$",
};

//  The task columns as load reads them, in this order
#define S_TASK_COLUMNS  DROVER_SQLBATCH_TASK_COLUMNS

//  Task writes go as columns: each parameter an array holding one column
//  of the batch's rows (drover_pgarray_t), unnested by the statement, so a
//  batch writes its tasks in three statements, not one per task. Columns
//  are numbered: 1 id, 2 key, 3-7 state, attempt, worker, retries_left,
//  lost, 8 seq, 9 submitted, 10 ended, 11-18 the submit, 19-26 the
//  result, 27 the owner, 28 offered, 29 started, 30 last_outcome, 31
//  history, 32-34 service, slot, affinity, 35-39 after, begin,
//  retry_delay, retry_max_delay, array, 40-43 waits, due, grp, made,
//  44 devices (the submit's), 45 assigned (the attempt's device indices)
#define S_INT8          20          //  element types
#define S_BYTEA         17
#define S_INT8_ARRAY    1016        //  parameter types
#define S_BYTEA_ARRAY   1001
#define S_TASK_COLUMNS_MAX  45
static const Oid
s_column_types [S_TASK_COLUMNS_MAX + 1] = {
    0, S_INT8, S_BYTEA, S_INT8, S_INT8, S_BYTEA, S_INT8, S_INT8, S_INT8, S_INT8, S_INT8,
    S_INT8, S_INT8, S_INT8, S_INT8, S_INT8, S_INT8, S_BYTEA, S_BYTEA,
    S_INT8, S_INT8, S_INT8, S_INT8, S_INT8, S_BYTEA, S_BYTEA, S_BYTEA, S_BYTEA,
    S_INT8, S_INT8, S_INT8, S_BYTEA, S_BYTEA, S_INT8, S_BYTEA,
    S_BYTEA, S_INT8, S_INT8, S_INT8, S_BYTEA, S_INT8, S_INT8, S_INT8, S_INT8, S_BYTEA, S_BYTEA
};

//  Each task write's columns, in its parameters' order ($1, $2...), and
//  the parameters' types
static const int
s_insert_columns [] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
                        20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36,
                        37, 38, 39, 40, 41, 42, 43, 44, 45 };
static const int
s_state_columns [] = { 1, 3, 4, 5, 6, 7, 28, 29, 31, 40, 41, 42, 43, 45 };
static const int
s_final_columns [] = { 1, 3, 4, 5, 6, 7, 10, 19, 20, 21, 22, 23, 24, 25, 26, 28, 29, 30, 31,
                       40, 41, 42, 43, 45 };
#define S_COUNT(array)  (sizeof array / sizeof array [0])
#define I8  S_INT8_ARRAY
#define BA  S_BYTEA_ARRAY
static const Oid
s_insert_types [] = { I8, BA, I8, I8, BA, I8, I8, I8, I8, I8, I8, I8, I8, I8, I8, I8, BA, BA,
                      I8, I8, I8, I8, I8, BA, BA, BA, BA, I8, I8, I8, BA, BA, I8, BA,
                      BA, I8, I8, I8, BA, I8, I8, I8, I8, BA, BA };
static const Oid
s_state_types [] = { I8, I8, I8, BA, I8, I8, I8, I8, BA, I8, I8, I8, I8, BA };
static const Oid
s_final_types [] = { I8, I8, I8, BA, I8, I8, I8, I8, I8, I8, I8, I8, BA, BA, BA, I8, I8, I8, BA,
                     I8, I8, I8, I8, BA };
#undef I8
#undef BA

static const drover_pgconn_statement_t
s_statements [S_STATEMENTS] = {
    [S_INSERT_TASK]     = { "INSERT INTO drover_tasks (id, key, state, attempt, worker,"
                            " retries_left, lost, seq, submitted, ended, priority, procs, mem,"
                            " timeout, retries, flags, labels, body, outcome, exit_code, signal,"
                            " duration, truncated, reason, out, err, owner, offered, started,"
                            " last_outcome, history, service, slot, affinity, \"after\","
                            " \"begin\", retry_delay, retry_max_delay, \"array\", waits, due,"
                            " grp, made, devices, assigned) SELECT * FROM"
                            " unnest ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13,"
                            " $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26,"
                            " $27, $28, $29, $30, $31, $32, $33, $34, $35, $36, $37, $38, $39,"
                            " $40, $41, $42, $43, $44, $45)"
                            " ON CONFLICT (id) DO NOTHING",
                            (int) S_COUNT (s_insert_types), s_insert_types },
    //  A final task is final: a later change does not touch its row
    [S_UPDATE_STATE]    = { "UPDATE drover_tasks t SET state = u.state, attempt = u.attempt,"
                            " worker = u.worker, retries_left = u.retries_left, lost = u.lost,"
                            " offered = u.offered, started = u.started, history = u.history,"
                            " waits = u.waits, due = u.due, grp = u.grp, made = u.made,"
                            " assigned = u.assigned"
                            " FROM unnest ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12,"
                            " $13, $14) AS u (id, state, attempt, worker, retries_left, lost,"
                            " offered, started, history, waits, due, grp, made, assigned)"
                            " WHERE t.id = u.id AND NOT (t.state >= 3)",
                            (int) S_COUNT (s_state_types), s_state_types },
    [S_UPDATE_FINAL]    = { "UPDATE drover_tasks t SET state = u.state, attempt = u.attempt,"
                            " worker = u.worker, retries_left = u.retries_left, lost = u.lost,"
                            " ended = u.ended, outcome = u.outcome, exit_code = u.exit_code,"
                            " signal = u.signal, duration = u.duration, truncated = u.truncated,"
                            " reason = u.reason, out = u.out, err = u.err, offered = u.offered,"
                            " started = u.started, last_outcome = u.last_outcome,"
                            " history = u.history, waits = u.waits, due = u.due, grp = u.grp,"
                            " made = u.made, assigned = u.assigned FROM unnest ($1, $2, $3, $4,"
                            " $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18,"
                            " $19, $20, $21, $22, $23, $24) AS u (id, state, attempt, worker,"
                            " retries_left, lost, ended, outcome, exit_code, signal, duration,"
                            " truncated, reason, out, err, offered, started, last_outcome,"
                            " history, waits, due, grp, made, assigned)"
                            " WHERE t.id = u.id AND NOT (t.state >= 3)",
                            (int) S_COUNT (s_final_types), s_final_types },
    [S_INSERT_EVENTS]   = { "INSERT INTO drover_events (first_seq, last_seq, count, data)"
                            " VALUES ($1::bigint, $2::bigint, $3::bigint, $4::bytea)"
                            " ON CONFLICT (first_seq) DO NOTHING", 0, NULL },
    [S_SET_META]        = { "UPDATE drover_meta SET value = $2::text WHERE name = $1::text", 0, NULL },
    [S_FENCE_CHECK]     = { "SELECT drover_fence_check ($1::bigint)", 0, NULL },
    //  The oldest final task load keeps: the max_final'th newest
    [S_LOAD_CUT]        = { "SELECT ended, id FROM drover_tasks WHERE " S_FINAL
                            " ORDER BY ended DESC, id DESC LIMIT 1 OFFSET $1::bigint", 0, NULL },
    //  A page of the tasks to load, after id $3
    [S_LOAD]            = { "SELECT " S_TASK_COLUMNS " FROM drover_tasks WHERE id > $3::bigint"
                            " AND (NOT (" S_FINAL ") OR (ended, id) >= ($1::bigint, $2::bigint))"
                            " ORDER BY id LIMIT $4::bigint", 0, NULL },
    //  From the events row holding since + 1 (or the first) on
    [S_REPLAY]          = { "SELECT first_seq, count, data FROM drover_events WHERE first_seq >="
                            " coalesce ((SELECT max (first_seq) FROM drover_events"
                            " WHERE first_seq <= $1::bigint), 0) ORDER BY first_seq"
                            " LIMIT $2::bigint", 0, NULL },
    [S_PRUNE_OLDEST]    = { "DELETE FROM drover_tasks WHERE id IN (SELECT id FROM drover_tasks"
                            " WHERE " S_FINAL " ORDER BY ended, id LIMIT $1::bigint)", 0, NULL },
    [S_PRUNE_AGED]      = { "DELETE FROM drover_tasks WHERE id IN (SELECT id FROM drover_tasks"
                            " WHERE " S_FINAL " AND ended < $1::bigint ORDER BY ended, id"
                            " LIMIT $2::bigint)", 0, NULL },
    [S_FIRST_TASK_SEQ]  = { "SELECT seq FROM drover_tasks ORDER BY id LIMIT 1", 0, NULL },
    [S_LAST_SEQ]        = { "SELECT max (last_seq) FROM drover_events", 0, NULL },
    [S_PRUNE_EVENTS]    = { "DELETE FROM drover_events WHERE first_seq IN (SELECT first_seq"
                            " FROM drover_events WHERE first_seq < $1::bigint"
                            " AND last_seq < $1::bigint ORDER BY first_seq LIMIT $2::bigint)", 0, NULL },
    [S_SAVE_ADMIN]      = { "INSERT INTO drover_worker_admin VALUES ($1::bytea, $2::bigint,"
                            " $3::bigint, $4::bytea, $5::bigint) ON CONFLICT (worker) DO UPDATE"
                            " SET admin = excluded.admin, flags = excluded.flags,"
                            " reason = excluded.reason, since = excluded.since", 0, NULL },
    [S_FORGET_ADMIN]    = { "DELETE FROM drover_worker_admin WHERE worker = $1::bytea", 0, NULL },
    [S_LOAD_ADMIN]      = { "SELECT worker, admin, flags, reason, since FROM drover_worker_admin"
                            " ORDER BY worker", 0, NULL },
    [S_SAVE_SERVICE]    = { "INSERT INTO drover_services VALUES ($1::bytea, $2::bytea)"
                            " ON CONFLICT (name) DO UPDATE SET def = excluded.def", 0, NULL },
    [S_FORGET_SERVICE]  = { "DELETE FROM drover_services WHERE name = $1::bytea", 0, NULL },
    [S_LOAD_SERVICES]   = { "SELECT name, def FROM drover_services ORDER BY name", 0, NULL },
    [S_READ_TASK]       = { "SELECT " S_TASK_COLUMNS " FROM drover_tasks WHERE id = $1::bigint",
                            0, NULL },
    [S_SAVE_SHARE]      = { "INSERT INTO drover_shares VALUES ($1::bytea, $2::bigint, $3::bytea,"
                            " $4::bytea) ON CONFLICT (name) DO UPDATE"
                            " SET weight = excluded.weight,"
                            " members = excluded.members, quota = excluded.quota", 0, NULL },
    [S_FORGET_SHARE]    = { "DELETE FROM drover_shares WHERE name = $1::bytea", 0, NULL },
    [S_LOAD_SHARES]     = { "SELECT name, weight, members, quota FROM drover_shares"
                            " ORDER BY name", 0, NULL },
};

//  =========================================================================
//  Open and the fence: connect, make the tables, claim the state
//  =========================================================================

static int
    s_open_state (drover_postgres_t *self, drover_store_meta_t *meta, char **error_p);

//  Connect, make the tables, claim the state and read its meta
drover_postgres_t *
drover_postgres_open (const char *conninfo, uint64_t fence, drover_store_meta_t *meta,
                      char **error_p)
{
    assert (conninfo && meta && error_p);
    *error_p = NULL;
    drover_pgconn_t *conn = drover_pgconn_new (conninfo, error_p);
    if (!conn)
        return NULL;
    drover_postgres_t *self = (drover_postgres_t *) zmalloc (sizeof (drover_postgres_t));
    self->tasks = drover_sqlbatch_new ();
    self->conn = conn;
    self->fence = fence;
    self->pack = (byte *) zmalloc (S_EVENTS_ROW * DROVER_EVENTPACK_MAX);
    if (s_open_state (self, meta, error_p)) {
        drover_postgres_destroy (&self);
        return NULL;
    }
    return self;
}

//  Close the connection; harmless on NULL
void
drover_postgres_destroy (drover_postgres_t **self_p)
{
    assert (self_p);
    drover_postgres_t *self = *self_p;
    if (!self)
        return;
    drover_pgconn_destroy (&self->conn);
    for (int kind = 0; kind < 3; kind++)
        for (int column = 0; column <= S_TASK_COLUMNS_MAX; column++)
            drover_pgarray_free (&self->rows [kind].columns [column]);
    drover_sqlbatch_destroy (&self->tasks);
    free (self->pack);
    free (self);
    *self_p = NULL;
}

//  True once a write was refused by fencing
bool
drover_postgres_fenced (drover_postgres_t *self)
{
    assert (self);
    return self->fenced;
}

//  Make a new state id: 32 lowercase hex digits
static void
s_new_state_id (char *state, size_t size)
{
    zuuid_t *uuid = zuuid_new ();
    snprintf (state, size, "%s", zuuid_str (uuid));
    zuuid_destroy (&uuid);
    for (char *digit = state; *digit; digit++)
        *digit = (char) tolower (*digit);
}


//  Read the meta rows of result into *meta. Returns 0 or -1 with *error_p.
static int
s_read_meta (drover_postgres_t *self, PGresult *result, drover_store_meta_t *meta,
             char **error_p)
{
    memset (meta, 0, sizeof *meta);
    const char *format = NULL;
    bool state = false;
    for (int row = 0; result && row < PQntuples (result); row++) {
        const char *name = PQgetvalue (result, row, 0);
        const char *value = PQgetvalue (result, row, 1);
        if (streq (name, "format"))
            format = value;
        else
        if (streq (name, "state") && strlen (value) == DROVER_STATE_ID_SIZE
        &&  strspn (value, "0123456789abcdef") == DROVER_STATE_ID_SIZE) {
            memcpy (meta->state, value, DROVER_STATE_ID_SIZE + 1);
            state = true;
        }
        else
        if (streq (name, "next_task"))
            meta->next_task = strtoull (value, NULL, 10);
        else
        if (streq (name, "next_seq"))
            meta->next_seq = strtoull (value, NULL, 10);
    }
    const char *server = drover_pgconn_name (self->conn);
    if (format && drover_store_format_newer (format, S_FORMAT))
        *error_p = zsys_sprintf ("%s: state in PostgreSQL is '%s', newer than this broker's '"
                                 S_FORMAT "': upgrade the broker", server, format);
    else
    if (!format || !streq (format, S_FORMAT))
        *error_p = zsys_sprintf ("%s: not a drover state (format %s, this broker reads '"
                                 S_FORMAT "'): use another database", server,
                                 format? format: "missing");
    else
    if (!state || !meta->next_task || !meta->next_seq)
        *error_p = zsys_sprintf ("%s: damaged drover state (meta: %s missing or invalid)",
                                 server, !state? "state": !meta->next_task? "next_task":
                                 "next_seq");
    return *error_p? -1: 0;
}

//  Make the tables if missing, then, in one transaction, claim the state
//  for our token and read the meta and the count of final tasks
static int
s_open_state (drover_postgres_t *self, drover_store_meta_t *meta, char **error_p)
{
    char error [DROVER_STORE_ERROR_MAX];
    char state [DROVER_STATE_ID_SIZE + 1];
    s_new_state_id (state, sizeof state);
    char *init_meta = zsys_sprintf ("INSERT INTO drover_meta VALUES ('format', '" S_FORMAT "'),"
                                    " ('state', '%s'), ('next_task', '1'), ('next_seq', '1')"
                                    " ON CONFLICT DO NOTHING", state);
    int rc = drover_pgconn_begin (self->conn, error, sizeof error);
    if (rc == 0) {
        drover_pgconn_send_sql (self->conn, "BEGIN", NULL, false);
        for (size_t index = 0; index < sizeof s_schema / sizeof s_schema [0]; index++)
            drover_pgconn_send_sql (self->conn, s_schema [index], NULL, false);
        drover_pgconn_send_sql (self->conn, init_meta, NULL, false);
        drover_pgconn_send_sql (self->conn, "COMMIT", NULL, false);
        rc = drover_pgconn_sync (self->conn, error, sizeof error);
    }
    zstr_free (&init_meta);
    if (rc == 0) {
        drover_pgconn_set_statements (self->conn, s_statements, S_STATEMENTS);
        rc = drover_pgconn_begin (self->conn, error, sizeof error);
    }
    if (rc) {
        *error_p = strdup (error);
        return -1;
    }
    drover_pgparams_t params = { .count = 0 };
    drover_pgparams_int (&params, 1, (int64_t) self->fence);
    drover_pgconn_send_sql (self->conn, "BEGIN", NULL, false);
    drover_pgconn_send_sql (self->conn, self->fence
                            ? "UPDATE drover_fence SET token = $1::bigint WHERE id = 1"
                              " AND token <= $1::bigint"
                            : "SELECT 1", self->fence? &params: NULL, false);
    drover_pgconn_send_sql (self->conn, "SELECT token FROM drover_fence WHERE id = 1", NULL,
                            true);
    drover_pgconn_send_sql (self->conn, "SELECT name, value FROM drover_meta", NULL, true);
    drover_pgconn_send_sql (self->conn, "SELECT count (*) FROM drover_tasks WHERE " S_FINAL,
                            NULL, true);
    drover_pgconn_send_sql (self->conn, "COMMIT", NULL, false);
    if (drover_pgconn_sync (self->conn, error, sizeof error)) {
        *error_p = strdup (error);
        return -1;
    }
    int64_t held = drover_pgconn_int (drover_pgconn_result (self->conn, 2), 0, 0, 0);
    if (self->fence && drover_pgconn_changed (self->conn, 1) != 1) {
        *error_p = zsys_sprintf ("fenced: the state is held by a newer leader (token %" PRId64
                                 " > fence %" PRIu64 ")", held, self->fence);
        return -1;
    }
    if (s_read_meta (self, drover_pgconn_result (self->conn, 3), meta, error_p))
        return -1;
    self->finals = (uint64_t) drover_pgconn_int (drover_pgconn_result (self->conn, 4), 0, 0, 0);
    return 0;
}

//  Start a write transaction: BEGIN, then the fence check if we have a
//  token. Returns 0, or -1 with error set (fenced before: at once).
static int
s_begin_write (drover_postgres_t *self, char *error, size_t error_size)
{
    if (self->fenced) {
        snprintf (error, error_size, "%s", self->fenced_error);
        return -1;
    }
    if (drover_pgconn_begin (self->conn, error, error_size))
        return -1;
    drover_pgconn_send_sql (self->conn, "BEGIN", NULL, false);
    if (self->fence) {
        drover_pgparams_t params = { .count = 0 };
        drover_pgparams_int (&params, 1, (int64_t) self->fence);
        drover_pgconn_send (self->conn, S_FENCE_CHECK, &params, false);
    }
    return 0;
}

//  End a round of writes: sync, and if fencing refused it, remember that
//  for good. Returns 0, or -1 with error set.
static int
s_end_write (drover_postgres_t *self, char *error, size_t error_size)
{
    if (drover_pgconn_sync (self->conn, error, error_size) == 0)
        return 0;
    if (streq (drover_pgconn_sqlstate (self->conn), S_FENCED_STATE)) {
        self->fenced = true;
        snprintf (self->fenced_error, sizeof self->fenced_error, "%s", error);
    }
    return -1;
}

//  =========================================================================
//  Writes: a batch sent in one round, old tasks and events pruned, an
//  operator's setting or a service's definition kept
//  =========================================================================

//  The columns of one kind of task write (a drover_postgres_rows_t) as
//  the binders fill them: by column number
#define S_INT(rows, column, value)  drover_pgarray_int (&(rows)->columns [column], value)

//  Add a text kept as bytea: NULL if none or empty
static void
s_text_or_null (drover_postgres_rows_t *rows, int column, const char *text)
{
    drover_pgarray_bytes (&rows->columns [column], text && *text? text: NULL,
                          text? strlen (text): 0);
}

//  Add bytes: NULL if none
static void
s_blob_or_null (drover_postgres_rows_t *rows, int column, const byte *data, size_t size)
{
    drover_pgarray_bytes (&rows->columns [column], data && size? data: NULL, size);
}

//  Add a task's state after its last change (1, 3-7, 28, 29, 31, 40-43,
//  45) and, final, when it ended with its result (10, 19-26, 30)
static void
s_bind_state (drover_postgres_rows_t *rows, drover_change_t *last, drover_change_t *done)
{
    S_INT (rows, 1, (int64_t) last->task);
    S_INT (rows, 3, last->state);
    S_INT (rows, 4, last->attempt);
    drover_pgarray_bytes (&rows->columns [5], last->worker, strlen (last->worker));
    S_INT (rows, 6, last->retries_left);
    S_INT (rows, 7, last->lost);
    S_INT (rows, 28, last->offered_at);
    S_INT (rows, 29, last->started_at);
    s_blob_or_null (rows, 31, last->history, last->history_size);
    S_INT (rows, 40, last->waits);
    S_INT (rows, 41, last->due_at);
    S_INT (rows, 42, (int64_t) last->group);
    S_INT (rows, 43, last->made);
    s_text_or_null (rows, 45, last->assigned);
    int64_t ended = last->ended_at? last->ended_at: (int64_t) last->time;
    S_INT (rows, 10, drover_change_final (last)? ended: 0);
    drover_msg_t *result = done? done->done: NULL;
    if (result) {
        S_INT (rows, 19, result->end);
        S_INT (rows, 20, result->exit_code);
        S_INT (rows, 21, result->signal);
        S_INT (rows, 22, result->duration);
        S_INT (rows, 23, result->truncated);
        s_text_or_null (rows, 24, result->reason);
        s_blob_or_null (rows, 25, result->out, result->out_size);
        s_blob_or_null (rows, 26, result->err, result->err_size);
    }
    else
        for (int column = 19; column <= 26; column++)
            drover_pgarray_bytes (&rows->columns [column], NULL, 0);
    if (result && result->outcome <= DROVER_OUTCOME_MAX)
        S_INT (rows, 30, result->outcome);
    else
        drover_pgarray_bytes (&rows->columns [30], NULL, 0);
}

//  Add a new task's submit (2, 8, 9, 11-18, 27, 32-39, 44): a submit
//  without workflow fields or devices adds NULLs and zeros, nothing
//  packed. The owner is the change's (assign's), else the submit's
//  principal.
static void
s_bind_submit (drover_postgres_rows_t *rows, drover_change_t *change)
{
    drover_msg_t *submit = change->submit;
    s_text_or_null (rows, 2, submit->key);
    S_INT (rows, 8, (int64_t) change->seq);
    S_INT (rows, 9, change->queued_at? change->queued_at: (int64_t) change->time);
    S_INT (rows, 11, submit->priority);
    S_INT (rows, 12, submit->procs);
    S_INT (rows, 13, (int64_t) submit->mem);
    S_INT (rows, 14, submit->timeout);
    S_INT (rows, 15, submit->retries);
    S_INT (rows, 16, submit->flags);
    char labels [DROVER_LABELS_MAX * (DROVER_LABEL_MAX + 1)];
    size_t size = drover_sqlbatch_labels_join (submit, labels, sizeof labels);
    s_blob_or_null (rows, 17, (byte *) labels, size);
    s_blob_or_null (rows, 18, submit->body, submit->body_size);
    const char *owner = *change->owner? change->owner: submit->principal;
    drover_pgarray_bytes (&rows->columns [27], owner, strlen (owner));
    s_text_or_null (rows, 32, submit->service);
    S_INT (rows, 33, submit->slot);
    s_text_or_null (rows, 34, submit->affinity);
    if (submit->nafter && submit->after) {
        byte after [DROVER_SQLBATCH_AFTER_MAX];
        size_t packed = drover_sqlbatch_after_pack (submit, after);
        s_blob_or_null (rows, 35, after, packed);
    }
    else
        drover_pgarray_bytes (&rows->columns [35], NULL, 0);
    S_INT (rows, 36, (int64_t) submit->begin);
    S_INT (rows, 37, submit->retry_delay);
    S_INT (rows, 38, submit->retry_max_delay);
    byte array [DROVER_SQLBATCH_ARRAY_SIZE];
    s_blob_or_null (rows, 39, array, drover_sqlbatch_array_pack (submit, array));
    char devices [DROVER_DEVICELIST_TEXT_MAX];
    s_text_or_null (rows, 44, drover_devicelist_format (submit->devices, submit->ndevices,
                                                        devices));
}

//  Send one kind of task write for the rows gathered, if any: its columns
//  as array parameters. Returns the index of the statement sent in the
//  round, or -1 if none was.
static int64_t
s_send_rows (drover_postgres_t *self, int statement, drover_postgres_rows_t *rows,
             const int *columns, size_t ncolumns)
{
    if (rows->columns [1].count == 0)
        return -1;
    drover_pgparams_t params = { .count = 0 };
    for (size_t index = 0; index < ncolumns; index++) {
        int column = columns [index];
        assert (rows->columns [column].count == rows->columns [1].count);
        drover_pgparams_array (&params, (int) index + 1, &rows->columns [column],
                               s_column_types [column]);
    }
    drover_pgconn_send (self->conn, statement, &params, false);
    return (int64_t) drover_pgconn_sent (self->conn) - 1;
}

//  Send the batch's task writes: the tasks submitted in it inserted, the
//  others updated (with their result if they ended), each kind in one
//  statement. *final_at is the index of the statement updating tasks that
//  ended (-1 none); *final_inserts the tasks inserted already final.
static void
s_send_tasks (drover_postgres_t *self, drover_change_t **changes, size_t ntasks,
              int64_t *final_at, uint64_t *final_inserts)
{
    drover_postgres_rows_t *inserts = &self->rows [0], *states = &self->rows [1],
                           *finals = &self->rows [2];
    for (int kind = 0; kind < 3; kind++)
        for (int column = 1; column <= S_TASK_COLUMNS_MAX; column++)
            drover_pgarray_clear (&self->rows [kind].columns [column]);
    *final_inserts = 0;
    for (size_t index = 0; index < ntasks; index++) {
        const drover_sqlbatch_task_t *slot = drover_sqlbatch_at (self->tasks, index);
        drover_change_t *last = changes [slot->last];
        drover_change_t *done = slot->done >= 0? changes [slot->done]: NULL;
        drover_postgres_rows_t *rows = states;
        if (slot->submit >= 0) {
            rows = inserts;
            s_bind_submit (rows, changes [slot->submit]);
            *final_inserts += drover_change_final (last);
        }
        else
        if (done || drover_change_final (last))
            rows = finals;
        s_bind_state (rows, last, done);
    }
    s_send_rows (self, S_INSERT_TASK, inserts, s_insert_columns, S_COUNT (s_insert_columns));
    s_send_rows (self, S_UPDATE_STATE, states, s_state_columns, S_COUNT (s_state_columns));
    *final_at = s_send_rows (self, S_UPDATE_FINAL, finals, s_final_columns,
                             S_COUNT (s_final_columns));
}

//  Send the batch's events, S_EVENTS_ROW to a row
static void
s_send_events (drover_postgres_t *self, drover_change_t **changes, size_t count)
{
    for (size_t start = 0; start < count; start += S_EVENTS_ROW) {
        size_t run = count - start < S_EVENTS_ROW? count - start: S_EVENTS_ROW;
        size_t size = drover_eventpack_pack (self->pack, changes + start, run);
        drover_pgparams_t params = { .count = 0 };
        drover_pgparams_int (&params, 1, (int64_t) changes [start]->seq);
        drover_pgparams_int (&params, 2, (int64_t) changes [start + run - 1]->seq);
        drover_pgparams_int (&params, 3, (int64_t) run);
        drover_pgparams_bytes (&params, 4, self->pack, size);
        drover_pgconn_send (self->conn, S_INSERT_EVENTS, &params, false);
    }
}

//  Send one meta value (a number)
static void
s_send_meta (drover_postgres_t *self, const char *name, uint64_t value)
{
    drover_pgparams_t params = { .count = 0 };
    drover_pgparams_text (&params, 1, name);
    drover_pgparams_int (&params, 2, (int64_t) value);
    drover_pgconn_send (self->conn, S_SET_META, &params, false);
}

//  Apply one batch in one transaction, sent in one round
int
drover_postgres_apply (drover_postgres_t *self, drover_change_t **changes, size_t count,
                       const drover_store_meta_t *meta, char *error, size_t error_size)
{
    assert (self && (changes || !count) && meta && error);
    for (size_t index = 1; index < count; index++)
        assert (changes [index]->seq > changes [index - 1]->seq);
    if (s_begin_write (self, error, error_size))
        return -1;
    size_t ntasks = drover_sqlbatch_group (self->tasks, changes, count);
    int64_t final_at;
    uint64_t final_inserts;
    s_send_tasks (self, changes, ntasks, &final_at, &final_inserts);
    s_send_events (self, changes, count);
    s_send_meta (self, "next_task", meta->next_task);
    s_send_meta (self, "next_seq", meta->next_seq);
    drover_pgconn_send_sql (self->conn, "COMMIT", NULL, false);
    int rc = s_end_write (self, error, error_size);
    if (rc == 0)
        self->finals += final_inserts + (final_at >= 0
                      ? (uint64_t) drover_pgconn_changed (self->conn, (size_t) final_at): 0);
    return rc;
}

//  Delete old tasks and events, at most max_rows rows, in one transaction
//  of three rounds: old final tasks; then, knowing what is left, old events
int64_t
drover_postgres_prune (drover_postgres_t *self, uint64_t keep_count, uint64_t keep_age,
                       uint64_t keep_events, uint64_t now, size_t max_rows,
                       char *error, size_t error_size)
{
    assert (self && error);
    if (s_begin_write (self, error, error_size))
        return -1;
    uint64_t past = self->finals > keep_count? self->finals - keep_count: 0;
    drover_pgparams_t params = { .count = 0 };
    drover_pgparams_int (&params, 1, (int64_t) (past < max_rows? past: max_rows));
    bool oldest = past && max_rows;
    if (oldest)
        drover_pgconn_send (self->conn, S_PRUNE_OLDEST, &params, false);
    size_t last = drover_pgconn_sent (self->conn) - 1;
    if (s_end_write (self, error, error_size))
        return -1;
    int64_t tasks = oldest? drover_pgconn_changed (self->conn, last): 0;
    //  Still in the transaction: the next rounds need no BEGIN
    drover_pgconn_begin (self->conn, error, error_size);
    bool aged = keep_age < now && (size_t) tasks < max_rows;
    params = (drover_pgparams_t) { .count = 0 };
    drover_pgparams_int (&params, 1, (int64_t) (aged? now - keep_age: 0));
    drover_pgparams_int (&params, 2, (int64_t) (max_rows - (size_t) tasks));
    if (aged)
        drover_pgconn_send (self->conn, S_PRUNE_AGED, &params, false);
    drover_pgconn_send (self->conn, S_FIRST_TASK_SEQ, NULL, true);
    drover_pgconn_send (self->conn, S_LAST_SEQ, NULL, true);
    if (s_end_write (self, error, error_size))
        return -1;
    tasks += aged? drover_pgconn_changed (self->conn, 0): 0;
    int64_t task_cut = drover_pgconn_int (drover_pgconn_result (self->conn, aged? 1: 0), 0, 0, 0);
    int64_t last_seq = drover_pgconn_int (drover_pgconn_result (self->conn, aged? 2: 1), 0, 0, 0);
    int64_t cut = task_cut;
    if (keep_events <= (uint64_t) last_seq && last_seq - (int64_t) keep_events + 1 > cut)
        cut = last_seq - (int64_t) keep_events + 1;
    size_t events_max = max_rows - (size_t) tasks;
    drover_pgconn_begin (self->conn, error, error_size);
    if (cut > 0 && events_max > 0) {
        params = (drover_pgparams_t) { .count = 0 };
        drover_pgparams_int (&params, 1, cut);
        drover_pgparams_int (&params, 2, (int64_t) events_max);
        drover_pgconn_send (self->conn, S_PRUNE_EVENTS, &params, false);
    }
    drover_pgconn_send_sql (self->conn, "COMMIT", NULL, false);
    if (s_end_write (self, error, error_size))
        return -1;
    int64_t events = cut > 0 && events_max > 0? drover_pgconn_changed (self->conn, 0): 0;
    self->finals -= (uint64_t) tasks < self->finals? (uint64_t) tasks: self->finals;
    return tasks + events;
}

//  Keep an operator's setting of a worker, in its own transaction
int
drover_postgres_save_admin (drover_postgres_t *self, const drover_store_admin_t *admin,
                            char *error, size_t error_size)
{
    assert (self && admin && error);
    if (s_begin_write (self, error, error_size))
        return -1;
    drover_pgparams_t params = { .count = 0 };
    drover_pgparams_bytes (&params, 1, admin->worker, strlen (admin->worker));
    if (admin->admin == DROVER_ADMIN_RUN)
        drover_pgconn_send (self->conn, S_FORGET_ADMIN, &params, false);
    else {
        const char *reason = admin->reason? admin->reason: "";
        drover_pgparams_int (&params, 2, admin->admin);
        drover_pgparams_int (&params, 3, admin->flags);
        drover_pgparams_bytes (&params, 4, reason, strlen (reason));
        drover_pgparams_int (&params, 5, (int64_t) admin->since);
        drover_pgconn_send (self->conn, S_SAVE_ADMIN, &params, false);
    }
    drover_pgconn_send_sql (self->conn, "COMMIT", NULL, false);
    return s_end_write (self, error, error_size);
}

//  Keep a service's definition, in its own transaction; size 0 forgets it
int
drover_postgres_save_service (drover_postgres_t *self, const char *name, const byte *def,
                              size_t size, char *error, size_t error_size)
{
    assert (self && name && error);
    if (s_begin_write (self, error, error_size))
        return -1;
    drover_pgparams_t params = { .count = 0 };
    drover_pgparams_bytes (&params, 1, name, strlen (name));
    if (size)
        drover_pgparams_bytes (&params, 2, def, size);
    drover_pgconn_send (self->conn, size? S_SAVE_SERVICE: S_FORGET_SERVICE, &params, false);
    drover_pgconn_send_sql (self->conn, "COMMIT", NULL, false);
    return s_end_write (self, error, error_size);
}

//  Keep a share, in its own transaction; weight 0 forgets it
int
drover_postgres_save_share (drover_postgres_t *self, const drover_store_share_t *share,
                            char *error, size_t error_size)
{
    assert (self && share && error);
    if (s_begin_write (self, error, error_size))
        return -1;
    drover_pgparams_t params = { .count = 0 };
    drover_pgparams_bytes (&params, 1, share->name, strlen (share->name));
    if (share->weight) {
        const char *quota = share->quota? share->quota: "";
        drover_pgparams_int (&params, 2, share->weight);
        if (share->members)
            drover_pgparams_bytes (&params, 3, share->members, strlen (share->members));
        else
            drover_pgparams_null (&params, 3);
        drover_pgparams_bytes (&params, 4, quota, strlen (quota));
    }
    drover_pgconn_send (self->conn, share->weight? S_SAVE_SHARE: S_FORGET_SHARE, &params,
                        false);
    drover_pgconn_send_sql (self->conn, "COMMIT", NULL, false);
    return s_end_write (self, error, error_size);
}

//  =========================================================================
//  Reads: the tasks loaded at start (a page at a time, so a large state
//  is never all in the client's memory at once), the events replayed,
//  the settings and services read back. Rows are read in binary:
//  integers as big-endian bytes, strings as the bytea they are kept in
//  (libpq ends each value with a NUL). A row that breaks a limit is
//  refused, not read past.
//  =========================================================================

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
    ||  PQgetlength (result, row, 29) > DROVER_MSG_MAX
    ||  s_column_int (result, row, 38) < 0
    ||  s_column_int (result, row, 38) > DROVER_WAITS_MAX
    ||  PQgetlength (result, row, 43) > DROVER_MSG_MAX)
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
    drover_sqlbatch_labels_split (submit, labels);
    submit->body = s_column_blob (result, row, 16, &submit->body_size);
    const char *owner = s_column_text (result, row, 25);
    snprintf (submit->principal, sizeof submit->principal, "%s", owner? owner: "");
    snprintf (change->owner, sizeof change->owner, "%s", owner? owner: "");
    const char *service = s_column_text (result, row, 30);
    snprintf (submit->service, sizeof submit->service, "%s", service? service: "");
    submit->slot = (uint32_t) s_column_int (result, row, 31);
    const char *affinity = s_column_text (result, row, 32);
    submit->affinity = affinity && *affinity? strdup (affinity): NULL;
    change->submit = submit;
    submit->begin = (uint64_t) s_column_int (result, row, 34);
    submit->retry_delay = (uint32_t) s_column_int (result, row, 35);
    submit->retry_max_delay = (uint32_t) s_column_int (result, row, 36);
    change->waits = (uint8_t) s_column_int (result, row, 38);
    change->due_at = s_column_int (result, row, 39);
    change->group = (uint64_t) s_column_int (result, row, 40);
    change->made = (uint32_t) s_column_int (result, row, 41);
    const char *assigned = s_column_text (result, row, 43);
    change->assigned = assigned && *assigned? strdup (assigned): NULL;
    if (drover_sqlbatch_after_unpack (submit, (const byte *) PQgetvalue (result, row, 33),
                                      (size_t) PQgetlength (result, row, 33))
    ||  drover_sqlbatch_array_unpack (submit, (const byte *) PQgetvalue (result, row, 37),
                                      (size_t) PQgetlength (result, row, 37))
    ||  drover_sqlbatch_devices_unpack (submit, s_column_text (result, row, 42))) {
        drover_change_destroy (&change);
        return NULL;
    }

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

//  Hand fn every kept share, in name order
int64_t
drover_postgres_load_shares (drover_postgres_t *self, drover_store_share_fn *fn, void *arg,
                             char *error, size_t error_size)
{
    assert (self && fn && error);
    if (s_query (self, S_LOAD_SHARES, NULL, error, error_size))
        return -1;
    PGresult *result = drover_pgconn_result (self->conn, 0);
    int64_t count = 0;
    for (int row = 0; result && row < PQntuples (result); row++) {
        const char *name = PQgetvalue (result, row, 0);
        int64_t weight = s_column_int (result, row, 1);
        if (!drover_id_valid (name) || weight < 1 || weight > UINT32_MAX)
            continue;           //  not one we wrote: skipped
        drover_store_share_t share = {
            .name = name, .weight = (uint32_t) weight,
            .members = s_column_text (result, row, 2), .quota = PQgetvalue (result, row, 3)
        };
        count++;
        if (fn (arg, &share))
            break;
    }
    return count;
}
