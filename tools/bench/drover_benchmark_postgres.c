/*  =========================================================================
    drover_benchmark_postgres - the PostgreSQL server the durable phase
    measures the postgresql backend on (`drover bench --postgres URI|auto`)

    With a URI, the bench uses that database: it makes a schema of its own
    for each broker (drover_bench_PID_N, the broker's tables put there by
    the URI's search_path option) and drops it after, so a run neither
    reads nor leaves anything. With "auto", it starts a server for the run
    on a free loopback port with tests/pg_server.sh (or the script named by
    $DROVER_PG_SERVER) and stops it at the end.
    =========================================================================
*/

#include "drover_cli.h"
#include "drover_benchmark.h"
#include <libpq-fe.h>

#ifndef DROVER_PG_SERVER_SCRIPT
#   define DROVER_PG_SERVER_SCRIPT "tests/pg_server.sh"
#endif

//  Return the script that starts a server
static const char *
s_script (void)
{
    const char *script = getenv ("DROVER_PG_SERVER");
    return script && *script? script: DROVER_PG_SERVER_SCRIPT;
}

//  The server's notices ("drop cascades to...") are not figures
static void
s_ignore_notice (void *arg, const char *message)
{
}

//  Run one SQL command on the run's database. Returns 0, or -1 (said why).
static int
s_sql (drover_benchmark_t *self, const char *sql)
{
    PGconn *conn = PQconnectdb (self->pg_uri);
    int rc = -1;
    if (PQstatus (conn) == CONNECTION_OK) {
        PQsetNoticeProcessor (conn, s_ignore_notice, NULL);
        PGresult *result = PQexec (conn, sql);
        if (PQresultStatus (result) == PGRES_COMMAND_OK)
            rc = 0;
        PQclear (result);
    }
    if (rc)
        fprintf (stderr, "drover bench: postgresql: %s: %s", sql, PQerrorMessage (conn));
    PQfinish (conn);
    return rc;
}

//  Reach the server of --postgres, starting one with "auto"
int
drover_benchmark_pg_open (drover_benchmark_t *self)
{
    assert (self->opts.postgres);
    if (!streq (self->opts.postgres, "auto")) {
        snprintf (self->pg_uri, sizeof self->pg_uri, "%s", self->opts.postgres);
        return 0;
    }
    snprintf (self->pg_dir, sizeof self->pg_dir, "/tmp/drover-bench-pg-XXXXXX");
    if (!mkdtemp (self->pg_dir)) {
        fprintf (stderr, "drover bench: cannot make a directory: %s\n", strerror (errno));
        self->pg_dir [0] = 0;
        return -1;
    }
    int port = drover_benchmark_free_port ();
    char *command = zsys_sprintf ("/bin/sh '%s' start '%s' %d", s_script (), self->pg_dir,
                                  port);
    FILE *output = popen (command, "r");
    zstr_free (&command);
    if (!output || !fgets (self->pg_uri, sizeof self->pg_uri, output))
        self->pg_uri [0] = 0;
    int status = output? pclose (output): -1;
    self->pg_uri [strcspn (self->pg_uri, "\n")] = 0;
    if (status != 0 || !self->pg_uri [0]) {
        fprintf (stderr, "drover bench: --postgres auto: %s could not start PostgreSQL "
                 "(install it: apt-get install postgresql)\n", s_script ());
        return -1;
    }
    return 0;
}

//  Make a fresh schema for the next broker and return its state URI
char *
drover_benchmark_pg_fresh (drover_benchmark_t *self)
{
    snprintf (self->pg_schema, sizeof self->pg_schema, "drover_bench_%d_%d", (int) getpid (),
              ++self->pg_schemas);
    char *sql = zsys_sprintf ("CREATE SCHEMA %s", self->pg_schema);
    int rc = s_sql (self, sql);
    zstr_free (&sql);
    if (rc) {
        self->pg_schema [0] = 0;
        return NULL;
    }
    return zsys_sprintf ("%s%soptions=-csearch_path%%3D%s", self->pg_uri,
                         strchr (self->pg_uri, '?')? "&": "?", self->pg_schema);
}

//  Drop the current broker's schema
void
drover_benchmark_pg_drop (drover_benchmark_t *self)
{
    if (!self->pg_schema [0])
        return;
    char *sql = zsys_sprintf ("DROP SCHEMA %s CASCADE", self->pg_schema);
    s_sql (self, sql);
    zstr_free (&sql);
    self->pg_schema [0] = 0;
}

//  Stop the server started for the run
void
drover_benchmark_pg_close (drover_benchmark_t *self)
{
    if (!self->pg_dir [0])
        return;
    char *command = zsys_sprintf ("/bin/sh '%s' stop '%s'", s_script (), self->pg_dir);
    if (system (command) != 0)
        fprintf (stderr, "drover bench: could not stop the PostgreSQL server in %s\n",
                 self->pg_dir);
    zstr_free (&command);
    self->pg_dir [0] = 0;
}
