/*  =========================================================================
    testutil_servers - real servers a test starts, on 127.0.0.1 with ports
    from testutil_free_port: the scripts that start, pause and stop etcd
    (tests/etcd_server.sh) and PostgreSQL (tests/pg_server.sh), and one
    etcd of a test's own
    =========================================================================
*/

#ifndef TESTUTIL_SERVERS_H_INCLUDED
#define TESTUTIL_SERVERS_H_INCLUDED

#include "testutil.h"

//  Run one of the server scripts (tests/NAME.sh: etcd_server.sh,
//  pg_server.sh) with its arguments (NULL-terminated); its first stdout
//  line (a URL) goes to url (NULL: not kept). Asserts it succeeds, saying
//  to install the server if not.
void
    testutil_server_script (const char *script, const char *const args [], char *url,
                            size_t size);

//  Start one of the server scripts on free loopback ports: `SCRIPT start
//  DIR PORT...` with nports (1 or 2) ports from testutil_free_port, kept in
//  ports. A port taken by a test running beside us before the server binds
//  it makes the start fail: it is tried again on fresh ports, three times
//  in all. Its first stdout line (a URL) goes to url. Asserts it started.
void
    testutil_server_start (const char *script, const char *dir, int *ports, int nports,
                           char *url, size_t size);

//  A real etcd started by the test (tests/etcd_server.sh), on 127.0.0.1
//  with ports from testutil_free_port and its data in a fresh /tmp
//  directory
typedef struct {
    char dir [64];              //  its data and log (removed at stop, unless kept)
    char url [64];              //  http://127.0.0.1:client_port
    int client_port;            //  where clients reach it
    int peer_port;              //  its raft port (nobody joins it)
} testutil_etcd_t;

//  Start etcd and wait until it is healthy; fails the test (with the
//  script's message: install etcd-server) if it cannot
testutil_etcd_t *
    testutil_etcd_start (void);

//  Run tests/etcd_server.sh command (pause, resume) on it; asserts it succeeds
void
    testutil_etcd_signal (testutil_etcd_t *self, const char *command);

//  Stop it and free; its directory is kept (and named on stderr) if keep,
//  for a failed test, else removed. Harmless on NULL.
void
    testutil_etcd_stop (testutil_etcd_t **self_p, bool keep);

#endif
