/*  =========================================================================
    testutil_pgfresh - a real PostgreSQL server and a fresh database per test
    =========================================================================
*/

#include "testutil_pgfresh.h"
#include "testutil_servers.h"
#include "testutil_proc.h"
#include <libpq-fe.h>

//  Start the server for a test binary
void
testutil_pgfresh_start (testutil_pgfresh_t *self, const char *name, const char *prefix)
{
    memset (self, 0, sizeof *self);
    snprintf (self->name, sizeof self->name, "%s", name);
    snprintf (self->prefix, sizeof self->prefix, "%s", prefix);
    snprintf (self->dir, sizeof self->dir, "/tmp/drover-pg%s-XXXXXX", prefix);
    assert_non_null (mkdtemp (self->dir));
    int port;
    testutil_server_start ("pg_server.sh", self->dir, &port, 1, self->uri, sizeof self->uri);
    assert_non_null (strstr (self->uri, "postgresql://"));
}

//  Stop the server, keeping its directory if a test failed
void
testutil_pgfresh_stop (testutil_pgfresh_t *self)
{
    bool passed = self->passed == self->databases;
    const char *args [] = { passed? "stop": "halt", self->dir, NULL };
    testutil_server_script ("pg_server.sh", args, NULL, 0);
    if (!passed)
        fprintf (stderr, "%s: a test failed: the server's data and log are kept in %s\n",
                 self->name, self->dir);
}

//  Run one SQL command; its first value as an integer
int64_t
testutil_pgfresh_sql (const char *uri, const char *sql)
{
    PGconn *conn = PQconnectdb (uri);
    assert_int_equal (PQstatus (conn), CONNECTION_OK);
    PGresult *result = PQexec (conn, sql);
    if (PQresultStatus (result) != PGRES_COMMAND_OK && PQresultStatus (result) != PGRES_TUPLES_OK)
        fail_msg ("%s: %s", sql, PQerrorMessage (conn));
    int64_t value = PQresultStatus (result) == PGRES_TUPLES_OK && PQntuples (result) > 0
                  ? strtoll (PQgetvalue (result, 0, 0), NULL, 10): 0;
    PQclear (result);
    PQfinish (conn);
    return value;
}

//  A fresh database for the next test
void
testutil_pgfresh_database (testutil_pgfresh_t *self)
{
    char sql [64];
    self->databases++;
    snprintf (sql, sizeof sql, "CREATE DATABASE %s%d", self->prefix, self->databases);
    testutil_pgfresh_sql (self->uri, sql);
    snprintf (self->db_uri, sizeof self->db_uri, "%s", self->uri);
    char *slash = strrchr (self->db_uri, '/');
    assert_non_null (slash);
    snprintf (slash + 1, sizeof self->db_uri - (size_t) (slash + 1 - self->db_uri), "%s%d",
              self->prefix, self->databases);
}

//  Open the test's database
drover_store_t *
testutil_pgfresh_open (testutil_pgfresh_t *self)
{
    char *error = NULL;
    drover_store_t *backend = drover_store_open_postgres (self->db_uri, 0, &error);
    if (!backend)
        fail_msg ("open: %s", error);
    return backend;
}

//  The format marker of the test's database
char *
testutil_pgfresh_format (testutil_pgfresh_t *self)
{
    PGconn *conn = PQconnectdb (self->db_uri);
    assert_int_equal (PQstatus (conn), CONNECTION_OK);
    PGresult *result = PQexec (conn, "SELECT value FROM drover_meta WHERE name = 'format'");
    assert_int_equal (PQresultStatus (result), PGRES_TUPLES_OK);
    assert_int_equal (PQntuples (result), 1);
    char *format = strdup (PQgetvalue (result, 0, 0));
    PQclear (result);
    PQfinish (conn);
    return format;
}
