/*  =========================================================================
    drover_pgconn - one connection to a PostgreSQL server for the
    PostgreSQL backend (internal: only drover_postgres.c uses it)

    Every exchange is a round: statements sent one after the other in
    libpq's pipeline mode (no round trip each), then one sync that reads
    every result. A round that holds BEGIN ... COMMIT is one transaction:
    if any statement fails, the server skips the rest and the round rolls
    the transaction back, so nothing of it is kept. The socket is never
    waited on for longer than DROVER_PGCONN_IDLE msec without progress:
    a server that hangs fails the round (and the connection is dropped)
    instead of blocking the caller. A connection that broke is made again
    at the next round's start, its statements prepared again. The server
    ends a transaction of ours left waiting on us for 2 s (a broker stopped
    while it sent one), releasing the locks it held.

    A plain class: no threads. Error texts name the server (never a
    password) and say what failed.
    =========================================================================
*/

#ifndef DROVER_PGCONN_H_INCLUDED
#define DROVER_PGCONN_H_INCLUDED

#include <czmq.h>
#include <libpq-fe.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_pgconn_t drover_pgconn_t;

#define DROVER_PGCONN_IDLE      10000   //  msec a round may wait on a silent server
#define DROVER_PGCONN_PARAMS    48      //  parameters of one statement, at most

//  A prepared statement: its SQL and, optionally, its parameters' types
//  (OIDs: 20 int8, 17 bytea, 25 text; then parameters need not all be
//  used in the SQL)
typedef struct {
    const char *sql;                    //  the statement, $1... for parameters
    int nparams;                        //  parameters in types (0: inferred)
    const Oid *types;                   //  their types, or NULL
} drover_pgconn_statement_t;

//  The parameters of one statement, numbered from 1 as in the SQL; set
//  with the functions below (values are borrowed until the send)
typedef struct {
    const char *values [DROVER_PGCONN_PARAMS + 1];  //  by number; NULL: SQL NULL
    int lengths [DROVER_PGCONN_PARAMS + 1];     //  bytes of binary values
    int formats [DROVER_PGCONN_PARAMS + 1];     //  0 text, 1 binary
    char numbers [DROVER_PGCONN_PARAMS + 1][24];    //  the text of integer values
    int count;                          //  highest number set
} drover_pgparams_t;

//  A column of rows for one parameter: a one-dimension PostgreSQL array in
//  binary format, sent as one parameter (unnest ($n) in the SQL): a
//  batch's rows go in one statement, not one statement a row
typedef struct {
    byte *data;                         //  the header (20 bytes), then the elements
    size_t size;                        //  bytes used
    size_t max;                         //  bytes allocated
    uint32_t count;                     //  elements
    bool nulls;                         //  some element is NULL
} drover_pgarray_t;

//  Empty the array (its buffer kept)
void
    drover_pgarray_clear (drover_pgarray_t *self);
//  Add an int8 element
void
    drover_pgarray_int (drover_pgarray_t *self, int64_t value);
//  Add a bytea element (data NULL: a NULL element)
void
    drover_pgarray_bytes (drover_pgarray_t *self, const void *data, size_t size);
//  Free the array's buffer
void
    drover_pgarray_free (drover_pgarray_t *self);

//  Set parameter number to array, its elements of type elem (20 int8, 17
//  bytea): the array's header is written now; borrowed until the send
void
    drover_pgparams_array (drover_pgparams_t *self, int number, drover_pgarray_t *array,
                           Oid elem);

//  Set parameter number to an integer
void
    drover_pgparams_int (drover_pgparams_t *self, int number, int64_t value);
//  Set parameter number to bytes (NULL: SQL NULL); borrowed
void
    drover_pgparams_bytes (drover_pgparams_t *self, int number, const void *data, size_t size);
//  Set parameter number to a text (NULL: SQL NULL); borrowed
void
    drover_pgparams_text (drover_pgparams_t *self, int number, const char *text);
//  Set parameter number to SQL NULL
void
    drover_pgparams_null (drover_pgparams_t *self, int number);

//  Connect to conninfo (a libpq URI). Returns NULL with *error_p set (the
//  server named, what failed) if the URI is bad or the server cannot be
//  reached.
drover_pgconn_t *
    drover_pgconn_new (const char *conninfo, char **error_p);

//  Prepare statements (borrowed: static) at the next round's start and on
//  every connection after; drover_pgconn_send names them by index
void
    drover_pgconn_set_statements (drover_pgconn_t *self,
                                  const drover_pgconn_statement_t *statements, size_t count);

//  Close the connection; harmless on NULL
void
    drover_pgconn_destroy (drover_pgconn_t **self_p);

//  Return the server's name for texts: "postgresql HOST:PORT/DB"
const char *
    drover_pgconn_name (drover_pgconn_t *self);

//  Start a round: connect again first if the connection broke. Returns 0,
//  or -1 with error set (the server cannot be reached).
int
    drover_pgconn_begin (drover_pgconn_t *self, char *error, size_t error_size);

//  Send prepared statement number (an index in the statements), its
//  parameters (or NULL), its result kept for drover_pgconn_result if keep
void
    drover_pgconn_send (drover_pgconn_t *self, int statement, const drover_pgparams_t *params,
                        bool keep);

//  Send a statement given as SQL (with parameters, or NULL), not prepared
void
    drover_pgconn_send_sql (drover_pgconn_t *self, const char *sql,
                            const drover_pgparams_t *params, bool keep);

//  End the round: read every result. Returns 0, or -1 with error set
//  (the first statement that failed; a transaction it was in rolled back).
//  A round that succeeds may leave a transaction open for the next one.
int
    drover_pgconn_sync (drover_pgconn_t *self, char *error, size_t error_size);

//  Return the SQLSTATE of the last round's first failure ("" if none)
const char *
    drover_pgconn_sqlstate (drover_pgconn_t *self);

//  Return the kept result of the index'th statement sent in the last
//  round (borrowed until the next round), or NULL
PGresult *
    drover_pgconn_result (drover_pgconn_t *self, size_t index);

//  Return the rows the index'th statement of the last round changed
int64_t
    drover_pgconn_changed (drover_pgconn_t *self, size_t index);

//  Return the number of statements sent in this round so far
size_t
    drover_pgconn_sent (drover_pgconn_t *self);

//  Read a binary result's integer (int2, int4 or int8) at row, column; def
//  if NULL
int64_t
    drover_pgconn_int (PGresult *result, int row, int column, int64_t def);

#ifdef __cplusplus
}
#endif

#endif
