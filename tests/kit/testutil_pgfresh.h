/*  =========================================================================
    testutil_pgfresh - a real PostgreSQL server for one test binary
    (tests/pg_server.sh, on loopback, a free port) and a fresh database
    for each of its tests, for the backend's tests that read the state
    with SQL of their own
    =========================================================================
*/

#ifndef TESTUTIL_PGFRESH_H_INCLUDED
#define TESTUTIL_PGFRESH_H_INCLUDED

#include "testutil.h"
#include "drover_store.h"

//  The server one test binary runs its tests on
typedef struct {
    char dir [64];                  //  the server's directory (tests/pg_server.sh)
    char uri [256];                 //  the database drover
    char db_uri [256];              //  this test's own database
    char name [64];                 //  the test binary's name, for messages
    char prefix [8];                //  its databases' names start so
    int databases;                  //  databases made so far: tests started
    int passed;                     //  tests that reached their end
} testutil_pgfresh_t;

//  Start the server for a test binary (name, e.g. "test_drover_postgres_x";
//  its databases are named prefix1, prefix2...); asserts it starts
void
    testutil_pgfresh_start (testutil_pgfresh_t *self, const char *name, const char *prefix);

//  Stop the server; its directory (data, server.log) is kept, and said, if
//  a test did not reach its end (passed below databases)
void
    testutil_pgfresh_stop (testutil_pgfresh_t *self);

//  Make a fresh database for the next test: db_uri names it
void
    testutil_pgfresh_database (testutil_pgfresh_t *self);

//  Run one SQL command on the database at uri; asserts it succeeds and
//  returns its first value as an integer (0 if it returns no row)
int64_t
    testutil_pgfresh_sql (const char *uri, const char *sql);

//  Open the test's database as a store backend; asserts it opens
drover_store_t *
    testutil_pgfresh_open (testutil_pgfresh_t *self);

//  Return the format marker of the test's database (caller frees)
char *
    testutil_pgfresh_format (testutil_pgfresh_t *self);

#endif
