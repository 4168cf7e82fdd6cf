/*  =========================================================================
    testutil_cluster - a loopback cluster for one test: a real broker (and its
    workers) started as processes on free ports, DEALERs to it, its events
    and metrics, and the drover CLI run against it as a user would
    =========================================================================
*/

#ifndef TESTUTIL_CLUSTER_H_INCLUDED
#define TESTUTIL_CLUSTER_H_INCLUDED

#include "testutil.h"
#include "testutil_proc.h"
#include "testutil_wire.h"

//  A broker (and its workers) started as real processes for one test
typedef struct {
    int port;                   //  ROUTER port on 127.0.0.1
    int events_port;            //  PUB port on 127.0.0.1
    char endpoint [64];         //  tcp://127.0.0.1:port
    char events [64];           //  tcp://127.0.0.1:events_port
    char logdir [64];           //  where every process logs
    pid_t broker;               //  broker pid, or 0
    pid_t workers [8];          //  worker pids by slot, 0 if none
    char *worker_ids [8];       //  worker ids by slot
} testutil_cluster_t;

//  Start a broker with extra flags (NULL-terminated list, may be empty)
testutil_cluster_t *
    testutil_cluster_new (const char *extra_flags []);

//  Kill the broker with SIGKILL and start it again on the same ports and
//  state directory, with extra flags (NULL-terminated, may be NULL); its
//  earlier log is kept as broker-N.log
void
    testutil_cluster_kill_restart (testutil_cluster_t *self, const char *extra_flags []);

//  Start a worker in slot with id and procs, plus extra flags (NULL-terminated)
void
    testutil_cluster_add_worker (testutil_cluster_t *self, int slot, const char *id,
                                 int procs, const char *extra_flags []);

//  Stop every process (workers, then broker) and free; checks the broker
//  exits cleanly on SIGTERM
void
    testutil_cluster_destroy (testutil_cluster_t **self_p);

//  Path of a process's log file in the cluster's log directory (static buffer)
const char *
    testutil_cluster_log (testutil_cluster_t *self, const char *name);

//  Wait until a process's log (testutil_cluster_log) holds needle; false
//  after timeout msec
bool
    testutil_cluster_await_log (testutil_cluster_t *self, const char *name, const char *needle,
                                int timeout);

//  Open a DEALER to the cluster's broker that says no level (a peer of
//  level 1, answered with level 1's fields)
zsock_t *
    testutil_dealer_level_1 (testutil_cluster_t *self);

//  Open a DEALER to the cluster's broker
zsock_t *
    testutil_dealer (testutil_cluster_t *self);

//  Subscribe to the cluster's events under topic ("" for all) and wait
//  until the subscription holds (testutil_await_subscription, poking
//  worker); asserts it does. The caller destroys the SUB.
zsock_t *
    testutil_cluster_sub (testutil_cluster_t *self, zsock_t *dealer, const char *topic,
                          const char *worker);

//  What one run of the drover CLI did (testutil_cli)
typedef struct {
    int status;                 //  exit status, 128 + signal, or -1 if it had to be stopped
    char out [65536];           //  its stdout
    char err [8192];            //  its stderr
} testutil_cli_t;

//  Run `drover --broker endpoint --broker-timeout 10 ARGS...` (args
//  NULL-terminated) as a user would, into run
void
    testutil_cli (const char *endpoint, const char *const args [], testutil_cli_t *run);

//  Assert a run exited with status and its stream (run->out or run->err)
//  holds needle; if not, fail showing both streams
void
    testutil_cli_expect (const testutil_cli_t *run, int status, const char *stream,
                         const char *needle);

//  Assert text is exactly one JSON document (RFC 8259, as the CLI prints
//  it) and a newline; if not, fail showing it
void
    testutil_assert_json (const char *text);

//  The value of one series (its whole name with labels, as written) that
//  the broker's metrics at 127.0.0.1:port show now, or -1 if absent;
//  asserts the metrics answer. Each call waits for a fresh round.
long long
    testutil_metric (int port, const char *series);

//  Wait up to timeout msec until that value is at least (or, if exactly,
//  just) value; false on timeout (saying what it was)
bool
    testutil_await_metric (int port, const char *series, long long value, bool exactly,
                           int timeout);

#endif
