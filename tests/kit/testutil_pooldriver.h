/*  =========================================================================
    testutil_pooldriver - a real broker whose elastic pool runs the command
    driver tests/pool/test-driver.sh (it starts real `drover worker`
    processes, or fails on cue), and what a test watches of it: the
    driver's calls, cues to it, the instances' workers, events and admin
    settings, with a deadline on every wait
    =========================================================================
*/

#ifndef TESTUTIL_POOLDRIVER_H_INCLUDED
#define TESTUTIL_POOLDRIVER_H_INCLUDED

#include "testutil.h"
#include "testutil_cluster.h"
#include "testutil_wire.h"
#include <sys/types.h>

//  One broker with a command-driven pool
typedef struct {
    testutil_cluster_t *cluster;    //  the broker
    zsock_t *dealer;                //  the test's client
    zsock_t *sub;                   //  every event
    char dir [64];                  //  the driver's directory (DROVER_TEST_DIR)
    char config [128];              //  the broker's config file
    const char *flags [3];          //  --config FILE
    int metrics;                    //  the port its metrics are served on
} testutil_pooldriver_t;

//  Start a broker whose pool has one type "one" (1 proc, 1G, 0.1) and the
//  settings given (ZPL lines under pool, indented four spaces), its
//  driver's directory a fresh /tmp/drover-pool-NAME-XXXXXX
testutil_pooldriver_t *
    testutil_pooldriver_new (const char *name, const char *settings);

//  Stop the broker, then every worker the driver started (instances
//  outlive the broker by design, some stopped by a test), and remove
//  what is left
void
    testutil_pooldriver_destroy (testutil_pooldriver_t **self_p);

//  Write text into the driver's directory's file name (a cue, or an
//  instance's file), atomically; NULL removes it
void
    testutil_pooldriver_cue (testutil_pooldriver_t *self, const char *name, const char *text);

//  How many calls of the driver so far start with prefix ("create ",
//  "list", "destroy NAME")
int
    testutil_pooldriver_calls (testutil_pooldriver_t *self, const char *prefix);

//  When (msec since the epoch, by the script's clock) the nth call (from
//  1) starting with prefix was made; 0 if not (yet)
uint64_t
    testutil_pooldriver_call_time (testutil_pooldriver_t *self, const char *prefix, int nth);

//  Wait until the driver had count calls starting with prefix; false on
//  timeout (msec)
bool
    testutil_pooldriver_await_calls (testutil_pooldriver_t *self, const char *prefix, int count,
                                     int timeout);

//  The pid of an instance's worker (the script's instances/NAME.pid), 0 if none
pid_t
    testutil_pooldriver_worker_pid (testutil_pooldriver_t *self, const char *name);

//  Wait until the broker lists worker id registered (health OK) with the
//  admin setting admin (DROVER_ADMIN_*); false on timeout
bool
    testutil_pooldriver_await_admin (testutil_pooldriver_t *self, const char *id, int admin,
                                     int timeout);

//  Wait for the next event of topic, about any instance, whose reason
//  holds text ("" any); false on timeout
bool
    testutil_pooldriver_await_event (testutil_pooldriver_t *self, const char *topic,
                                     const char *text, drover_event_t *event, int timeout);

#endif
