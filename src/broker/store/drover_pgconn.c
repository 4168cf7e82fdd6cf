/*  =========================================================================
    drover_pgconn - one connection to a PostgreSQL server, exchanging
    rounds of pipelined statements, never waiting on a silent server for
    longer than DROVER_PGCONN_IDLE msec

    The connection stays in pipeline mode and non-blocking: a send only
    queues the statement in libpq's buffer, flushed as the socket takes it
    (reading what the server answers meanwhile, so that neither side
    blocks on a full socket); sync sends the sync point and reads each
    statement's results in order, a NULL from PQgetResult between two
    statements, PGRES_PIPELINE_SYNC at the end. Results are all asked in
    binary, so integers come as big-endian bytes.
    =========================================================================
*/

#include "drover_pgconn.h"
#include <poll.h>

//  What one statement of a round left
typedef struct {
    bool keep;                      //  its result is kept
    PGresult *result;               //  kept result, or NULL
    int64_t changed;                //  rows it changed (PQcmdTuples)
} s_sent_t;

struct _drover_pgconn_t {
    PGconn *conn;                   //  the connection, NULL while broken
    char *conninfo;                 //  the URI, to connect again
    char name [160];                //  "postgresql HOST:PORT/DB", for texts
    const drover_pgconn_statement_t *statements;    //  prepared on each connection
    size_t nstatements;             //  in statements
    bool prepared;                  //  statements prepared on this connection
    s_sent_t *sent;                 //  this round's statements, in order
    size_t nsent;                   //  in sent
    size_t sent_max;                //  room in sent
    bool failed;                    //  a send failed this round (connection lost)
    char sqlstate [6];              //  the last round's first failure's, or ""
};

#define S_ARRAY_HEADER  20              //  bytes of a one-dimension array's header
#define S_STALLED_TRANSACTION   "2000"  //  msec the server lets our transaction wait on us

//  Make room for more bytes in the array
static void
s_array_room (drover_pgarray_t *self, size_t more)
{
    if (self->size + more <= self->max)
        return;
    size_t max = self->max? self->max: 4096;
    while (max < self->size + more)
        max *= 2;
    self->data = (byte *) realloc (self->data, max);
    assert (self->data);
    self->max = max;
}

//  Append a 32-bit big-endian number
static void
s_array_put32 (drover_pgarray_t *self, uint32_t value)
{
    s_array_room (self, 4);
    byte *at = self->data + self->size;
    at [0] = (byte) (value >> 24);
    at [1] = (byte) (value >> 16);
    at [2] = (byte) (value >> 8);
    at [3] = (byte) value;
    self->size += 4;
}

//  Empty the array (its buffer kept)
void
drover_pgarray_clear (drover_pgarray_t *self)
{
    assert (self);
    s_array_room (self, S_ARRAY_HEADER);
    self->size = S_ARRAY_HEADER;        //  written by drover_pgparams_array
    self->count = 0;
    self->nulls = false;
}

//  Add an int8 element
void
drover_pgarray_int (drover_pgarray_t *self, int64_t value)
{
    assert (self && self->size >= S_ARRAY_HEADER);
    s_array_put32 (self, 8);
    s_array_put32 (self, (uint32_t) ((uint64_t) value >> 32));
    s_array_put32 (self, (uint32_t) value);
    self->count++;
}

//  Add a bytea element (data NULL: a NULL element)
void
drover_pgarray_bytes (drover_pgarray_t *self, const void *data, size_t size)
{
    assert (self && self->size >= S_ARRAY_HEADER);
    if (!data) {
        s_array_put32 (self, 0xFFFFFFFF);   //  length -1: NULL
        self->nulls = true;
    }
    else {
        s_array_put32 (self, (uint32_t) size);
        s_array_room (self, size);
        if (size)
            memcpy (self->data + self->size, data, size);
        self->size += size;
    }
    self->count++;
}

//  Free the array's buffer
void
drover_pgarray_free (drover_pgarray_t *self)
{
    assert (self);
    free (self->data);
    memset (self, 0, sizeof *self);
}

//  Set parameter number to array, its header written now
void
drover_pgparams_array (drover_pgparams_t *self, int number, drover_pgarray_t *array, Oid elem)
{
    assert (array->size >= S_ARRAY_HEADER);
    size_t size = array->size;
    array->size = 0;
    s_array_put32 (array, 1);               //  dimensions
    s_array_put32 (array, array->nulls);    //  has NULLs
    s_array_put32 (array, elem);            //  element type
    s_array_put32 (array, array->count);    //  elements
    s_array_put32 (array, 1);               //  lower bound
    array->size = size;
    drover_pgparams_bytes (self, number, array->data, array->size);
}

//  Set parameter number to an integer
void
drover_pgparams_int (drover_pgparams_t *self, int number, int64_t value)
{
    assert (number >= 1 && number <= DROVER_PGCONN_PARAMS);
    snprintf (self->numbers [number], sizeof self->numbers [number], "%" PRId64, value);
    self->values [number] = self->numbers [number];
    self->lengths [number] = 0;
    self->formats [number] = 0;
    if (number > self->count)
        self->count = number;
}

//  Set parameter number to bytes (NULL: SQL NULL)
void
drover_pgparams_bytes (drover_pgparams_t *self, int number, const void *data, size_t size)
{
    assert (number >= 1 && number <= DROVER_PGCONN_PARAMS);
    self->values [number] = data? (const char *) data: "";
    if (!data)
        self->values [number] = NULL;
    self->lengths [number] = (int) size;
    self->formats [number] = 1;
    if (number > self->count)
        self->count = number;
}

//  Set parameter number to a text (NULL: SQL NULL)
void
drover_pgparams_text (drover_pgparams_t *self, int number, const char *text)
{
    assert (number >= 1 && number <= DROVER_PGCONN_PARAMS);
    self->values [number] = text;
    self->lengths [number] = 0;
    self->formats [number] = 0;
    if (number > self->count)
        self->count = number;
}

//  Set parameter number to SQL NULL
void
drover_pgparams_null (drover_pgparams_t *self, int number)
{
    drover_pgparams_text (self, number, NULL);
}

//  Name the server of conninfo for texts, without its password; -1 if
//  conninfo does not parse (*error_p says why)
static int
s_name (drover_pgconn_t *self, const char *conninfo, char **error_p)
{
    char *parse_error = NULL;
    PQconninfoOption *options = PQconninfoParse (conninfo, &parse_error);
    if (!options) {
        //  libpq quotes the URI, password and all: only its reason is said
        char reason [256];
        snprintf (reason, sizeof reason, "%s", parse_error? parse_error: "out of memory");
        char *quoted = strstr (reason, ": \"");
        if (quoted)
            *quoted = 0;
        reason [strcspn (reason, "\n")] = 0;
        *error_p = zsys_sprintf ("invalid PostgreSQL URI: %s", reason);
        PQfreemem (parse_error);
        return -1;
    }
    const char *host = "localhost", *port = "5432", *dbname = NULL, *user = NULL;
    for (PQconninfoOption *option = options; option->keyword; option++) {
        if (!option->val || !*option->val)
            continue;
        if (streq (option->keyword, "host"))
            host = option->val;
        else
        if (streq (option->keyword, "port"))
            port = option->val;
        else
        if (streq (option->keyword, "dbname"))
            dbname = option->val;
        else
        if (streq (option->keyword, "user"))
            user = option->val;
    }
    snprintf (self->name, sizeof self->name, "postgresql %s:%s/%s", host, port,
              dbname? dbname: user? user: "");
    PQconninfoFree (options);
    return 0;
}

//  Write the connection's error into error, naming the server
static void
s_conn_error (drover_pgconn_t *self, const char *what, char *error, size_t error_size)
{
    const char *text = self->conn? PQerrorMessage (self->conn): "not connected";
    size_t length = strlen (text);
    while (length && (text [length - 1] == '\n' || text [length - 1] == ' '))
        length--;
    snprintf (error, error_size, "%s: %s: %.*s", self->name, what, (int) length, text);
}

//  Drop the connection: the next round connects again
static void
s_drop (drover_pgconn_t *self)
{
    if (self->conn)
        PQfinish (self->conn);
    self->conn = NULL;
}

static int
    s_round_end (drover_pgconn_t *self, char *error, size_t error_size);
static void
    s_clear (drover_pgconn_t *self);
static int
    s_flush (drover_pgconn_t *self);
static void
    s_count_sent (drover_pgconn_t *self, bool keep);

//  The server's notices ("relation already exists, skipping") are not
//  for the operator
static void
s_ignore_notice (void *arg, const char *message)
{
}

//  Connect. Returns 0, or -1 with error set.
static int
s_connect (drover_pgconn_t *self, char *error, size_t error_size)
{
    //  The URI's own settings, given last, win over these defaults
    const char *keywords [] = { "connect_timeout", "application_name", "keepalives_idle",
                                "keepalives_interval", "keepalives_count", "dbname", NULL };
    const char *values [] = { "5", "drover", "5", "2", "3", self->conninfo, NULL };
    self->conn = PQconnectdbParams (keywords, values, 1);
    if (!self->conn || PQstatus (self->conn) != CONNECTION_OK) {
        s_conn_error (self, "cannot connect", error, error_size);
        s_drop (self);
        return -1;
    }
    PQsetNoticeProcessor (self->conn, s_ignore_notice, NULL);
    if (PQsetnonblocking (self->conn, 1) || !PQenterPipelineMode (self->conn)) {
        s_conn_error (self, "cannot enter pipeline mode", error, error_size);
        s_drop (self);
        return -1;
    }
    //  A transaction is sent whole, so ours never waits on us: one that
    //  does is a broker stopped (SIGSTOP, a frozen VM) in the middle of
    //  sending it, holding the fence row's lock. The server ends it, so
    //  that the next leader's claim does not wait for that broker to wake.
    s_clear (self);
    drover_pgconn_send_sql (self, "SET idle_in_transaction_session_timeout = "
                            S_STALLED_TRANSACTION, NULL, false);
    if (s_round_end (self, error, error_size)) {
        s_drop (self);
        return -1;
    }
    self->prepared = false;
    return 0;
}

//  Prepare the statements on this connection, in a round of their own.
//  Returns 0, or -1 with error set.
static int
s_prepare (drover_pgconn_t *self, char *error, size_t error_size)
{
    s_clear (self);
    for (size_t index = 0; index < self->nstatements; index++) {
        char name [24];
        snprintf (name, sizeof name, "s%zu", index);
        const drover_pgconn_statement_t *statement = &self->statements [index];
        if (!self->failed && (!PQsendPrepare (self->conn, name, statement->sql,
                                              statement->nparams, statement->types)
                              || s_flush (self)))
            self->failed = true;
        s_count_sent (self, false);
    }
    if (s_round_end (self, error, error_size)) {
        s_drop (self);
        return -1;
    }
    self->prepared = true;
    return 0;
}

//  Connect to conninfo
drover_pgconn_t *
drover_pgconn_new (const char *conninfo, char **error_p)
{
    assert (conninfo && error_p);
    *error_p = NULL;
    drover_pgconn_t *self = (drover_pgconn_t *) zmalloc (sizeof (drover_pgconn_t));
    if (s_name (self, conninfo, error_p)) {
        free (self);
        return NULL;
    }
    self->conninfo = strdup (conninfo);
    char error [512];
    if (s_connect (self, error, sizeof error)) {
        *error_p = strdup (error);
        drover_pgconn_destroy (&self);
        return NULL;
    }
    return self;
}

//  Free the last round's kept results
static void
s_clear (drover_pgconn_t *self)
{
    for (size_t index = 0; index < self->nsent; index++)
        if (self->sent [index].result)
            PQclear (self->sent [index].result);
    self->nsent = 0;
    self->failed = false;
}

//  Close the connection; harmless on NULL
void
drover_pgconn_destroy (drover_pgconn_t **self_p)
{
    assert (self_p);
    drover_pgconn_t *self = *self_p;
    if (!self)
        return;
    s_clear (self);
    s_drop (self);
    free (self->sent);
    zstr_free (&self->conninfo);
    free (self);
    *self_p = NULL;
}

//  Return the server's name for texts
const char *
drover_pgconn_name (drover_pgconn_t *self)
{
    assert (self);
    return self->name;
}

//  Start a round, connecting again if the connection broke
int
drover_pgconn_begin (drover_pgconn_t *self, char *error, size_t error_size)
{
    assert (self);
    s_clear (self);
    self->sqlstate [0] = 0;
    if (self->conn && PQstatus (self->conn) != CONNECTION_OK)
        s_drop (self);
    if (!self->conn && s_connect (self, error, error_size))
        return -1;
    if (!self->prepared && self->nstatements && s_prepare (self, error, error_size))
        return -1;
    s_clear (self);
    return 0;
}

//  Prepare statements at the next round's start and on every connection
void
drover_pgconn_set_statements (drover_pgconn_t *self,
                              const drover_pgconn_statement_t *statements, size_t count)
{
    assert (self);
    self->statements = statements;
    self->nstatements = count;
    self->prepared = false;
}

//  Wait until the socket is ready for events (POLLIN, POLLOUT), at most
//  DROVER_PGCONN_IDLE msec. Returns the events ready, or 0 on timeout.
static int
s_wait (drover_pgconn_t *self, short events)
{
    struct pollfd item = { PQsocket (self->conn), events, 0 };
    int rc;
    do
        rc = poll (&item, 1, DROVER_PGCONN_IDLE);
    while (rc < 0 && errno == EINTR);
    return rc > 0? (item.revents? item.revents: events): 0;
}

//  Flush what is queued; while the socket takes no more, read what the
//  server says (it may be waiting for us to). Returns 0, or -1 if the
//  connection failed or the server went silent.
static int
s_flush (drover_pgconn_t *self)
{
    int rc;
    while ((rc = PQflush (self->conn)) == 1) {
        int ready = s_wait (self, POLLIN | POLLOUT);
        if (!ready)
            return -1;
        if ((ready & POLLIN) && !PQconsumeInput (self->conn))
            return -1;
    }
    return rc;
}

//  Count one statement sent this round
static void
s_count_sent (drover_pgconn_t *self, bool keep)
{
    if (self->nsent == self->sent_max) {
        self->sent_max = self->sent_max? 2 * self->sent_max: 256;
        self->sent = (s_sent_t *) realloc (self->sent, self->sent_max * sizeof (s_sent_t));
        assert (self->sent);
    }
    self->sent [self->nsent++] = (s_sent_t) { keep, NULL, 0 };
}

//  Send prepared statement number, its parameters (or NULL)
void
drover_pgconn_send (drover_pgconn_t *self, int statement, const drover_pgparams_t *params,
                    bool keep)
{
    assert (self && statement >= 0 && (size_t) statement < self->nstatements);
    char name [24];
    snprintf (name, sizeof name, "s%d", statement);
    if (!self->failed && self->conn) {
        int count = params? params->count: 0;
        if (!PQsendQueryPrepared (self->conn, name, count, params? params->values + 1: NULL,
                                  params? params->lengths + 1: NULL,
                                  params? params->formats + 1: NULL, 1)
        ||  s_flush (self))
            self->failed = true;
    }
    s_count_sent (self, keep);
}

//  Send a statement given as SQL (NULL: only count one sent by the caller)
void
drover_pgconn_send_sql (drover_pgconn_t *self, const char *sql,
                        const drover_pgparams_t *params, bool keep)
{
    assert (self);
    if (sql && !self->failed && self->conn) {
        int count = params? params->count: 0;
        if (!PQsendQueryParams (self->conn, sql, count, NULL,
                                params? params->values + 1: NULL,
                                params? params->lengths + 1: NULL,
                                params? params->formats + 1: NULL, 1)
        ||  s_flush (self))
            self->failed = true;
    }
    s_count_sent (self, keep);
}

//  Return the next result, waiting while the server has not sent it; NULL
//  between two statements' results. Sets *silent if the server went silent.
static PGresult *
s_next_result (drover_pgconn_t *self, bool *silent)
{
    while (PQisBusy (self->conn)) {
        if (!s_wait (self, POLLIN)) {
            *silent = true;
            return NULL;
        }
        if (!PQconsumeInput (self->conn))
            break;              //  PQgetResult says why
    }
    return PQgetResult (self->conn);
}

//  Keep the first failure of the round: its SQLSTATE and its text
static void
s_failure (drover_pgconn_t *self, PGresult *result, char *error, size_t error_size)
{
    if (self->sqlstate [0])
        return;
    const char *state = PQresultErrorField (result, PG_DIAG_SQLSTATE);
    snprintf (self->sqlstate, sizeof self->sqlstate, "%s", state? state: "XX000");
    const char *text = PQresultErrorField (result, PG_DIAG_MESSAGE_PRIMARY);
    if (streq (self->sqlstate, "DR001") && text)
        snprintf (error, error_size, "%s", text);   //  "fenced: ..."
    else
        snprintf (error, error_size, "%s: %s", self->name,
                  text? text: PQresultErrorMessage (result));
}

//  Sync and read every result of the round. Returns 0, or -1 with error
//  set (the connection is dropped if it failed or the server is silent).
static int
s_round_end (drover_pgconn_t *self, char *error, size_t error_size)
{
    bool silent = false, synced = false;
    if (!self->failed && (!PQpipelineSync (self->conn) || s_flush (self)))
        self->failed = true;
    size_t index = 0;
    while (!self->failed && !silent) {
        PGresult *result = s_next_result (self, &silent);
        if (!result) {
            if (silent || PQstatus (self->conn) != CONNECTION_OK)
                break;
            index++;            //  the next statement's results
            continue;
        }
        ExecStatusType status = PQresultStatus (result);
        if (status == PGRES_PIPELINE_SYNC) {
            PQclear (result);
            synced = true;
            break;
        }
        if (status == PGRES_FATAL_ERROR)
            s_failure (self, result, error, error_size);
        s_sent_t *sent = index < self->nsent? &self->sent [index]: NULL;
        if (sent && (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK))
            sent->changed = strtoll (PQcmdTuples (result), NULL, 10);
        if (sent && sent->keep && status == PGRES_TUPLES_OK && !sent->result)
            sent->result = result;
        else
            PQclear (result);
    }
    if (!synced) {
        if (silent)
            snprintf (error, error_size, "%s: no answer for %d msec (is the server up?)",
                      self->name, DROVER_PGCONN_IDLE);
        else
            s_conn_error (self, "connection lost", error, error_size);
        snprintf (self->sqlstate, sizeof self->sqlstate, "08006");
        s_drop (self);
        return -1;
    }
    return self->sqlstate [0]? -1: 0;
}

//  End the round: read every result; if one failed, the transaction it
//  was in is rolled back (a round that succeeds may leave one open for
//  the next round)
int
drover_pgconn_sync (drover_pgconn_t *self, char *error, size_t error_size)
{
    assert (self && error);
    if (!self->conn) {
        snprintf (error, error_size, "%s: not connected", self->name);
        return -1;
    }
    int rc = s_round_end (self, error, error_size);
    if (rc && self->conn && PQtransactionStatus (self->conn) != PQTRANS_IDLE) {
        char ignored [256];
        char sqlstate [6];
        memcpy (sqlstate, self->sqlstate, sizeof sqlstate);
        s_clear (self);         //  the round failed: nothing of it is read
        if (PQsendQueryParams (self->conn, "ROLLBACK", 0, NULL, NULL, NULL, NULL, 1)) {
            s_count_sent (self, false);
            s_round_end (self, ignored, sizeof ignored);
        }
        else
            s_drop (self);
        s_clear (self);
        memcpy (self->sqlstate, sqlstate, sizeof sqlstate);
    }
    return rc;
}

//  Return the SQLSTATE of the last round's first failure
const char *
drover_pgconn_sqlstate (drover_pgconn_t *self)
{
    assert (self);
    return self->sqlstate;
}

//  Return the kept result of the index'th statement sent in the last round
PGresult *
drover_pgconn_result (drover_pgconn_t *self, size_t index)
{
    assert (self);
    return index < self->nsent? self->sent [index].result: NULL;
}

//  Return the rows the index'th statement of the last round changed
int64_t
drover_pgconn_changed (drover_pgconn_t *self, size_t index)
{
    assert (self);
    return index < self->nsent? self->sent [index].changed: 0;
}

//  Return the number of statements sent in this round so far
size_t
drover_pgconn_sent (drover_pgconn_t *self)
{
    assert (self);
    return self->nsent;
}

//  Read a binary result's integer at row, column; def if NULL
int64_t
drover_pgconn_int (PGresult *result, int row, int column, int64_t def)
{
    if (!result || row >= PQntuples (result) || PQgetisnull (result, row, column))
        return def;
    const byte *data = (const byte *) PQgetvalue (result, row, column);
    int length = PQgetlength (result, row, column);
    uint64_t value = 0;
    for (int index = 0; index < length && index < 8; index++)
        value = value << 8 | data [index];
    if (length == 2)
        return (int16_t) value;
    if (length == 4)
        return (int32_t) value;
    return (int64_t) value;
}
