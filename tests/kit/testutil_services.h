/*  =========================================================================
    testutil_services - services through a real broker, as a test watches
    them: a service's table read into a view (its replicas by slot and the
    last term's statistics), waits on that view with a deadline, and the
    end of a services test
    =========================================================================
*/

#ifndef TESTUTIL_SERVICES_H_INCLUDED
#define TESTUTIL_SERVICES_H_INCLUDED

#include "testutil.h"
#include "testutil_cluster.h"

#define TESTUTIL_SERVICES_SLOTS  32     //  slots a view keeps

//  What a service runs, replica by replica, and the last term
typedef struct {
    int running;                //  replicas running
    int pending;                //  started, not running yet
    int waiting;                //  slots waiting
    int stopping;               //  replicas told to stop
    uint64_t task [TESTUTIL_SERVICES_SLOTS];    //  running task by slot, 0 none
    char worker [TESTUTIL_SERVICES_SLOTS][DROVER_ID_MAX + 1];   //  its worker by slot, "" none
    char waits [DROVER_REASON_MAX + 1];     //  why the (last) waiting slot waits
    char why [DROVER_REASON_MAX + 1];       //  the service row's why
    uint32_t max_per_worker;    //  the service row's
    drover_service_stats_t stats;   //  the last term's (term, complete, why, moved...)
} testutil_services_view_t;

//  Start a broker with extra flags and workers w1..wN of procs each, a
//  dealer to it in *dealer_p; asserts every worker registered in time
//  (msec)
testutil_cluster_t *
    testutil_services_cluster (const char *flags [], int workers, int procs,
                               zsock_t **dealer_p, int timeout);

//  Ask for one service's table (with its replicas), or every service's
//  (name NULL or ""); asserts a SERVICE TABLE came
drover_msg_t *
    testutil_services_table (zsock_t *dealer, const char *name);

//  Read a service's view off its table
void
    testutil_services_view (zsock_t *dealer, const char *name, testutil_services_view_t *view);

//  Count a view's running replicas on worker
int
    testutil_services_on (const testutil_services_view_t *view, const char *worker);

//  Wait until a service runs exactly count replicas, none pending; false
//  on timeout (msec)
bool
    testutil_services_await_running (zsock_t *dealer, const char *name, int count,
                                     testutil_services_view_t *view, int timeout);

//  Wait until the broker has ended a term numbered above term; false on
//  timeout
bool
    testutil_services_await_term (zsock_t *dealer, const char *name, uint64_t term,
                                  testutil_services_view_t *view, int timeout);

//  Wait until a service runs count replicas, nothing pending or stopping,
//  in a term after term (its statistics of a settled view); false on
//  timeout
bool
    testutil_services_await_settled (zsock_t *dealer, const char *name, int count,
                                     uint64_t term, testutil_services_view_t *view,
                                     int timeout);

//  Close the test's dealer, stop its cluster and remove the cluster's logs
void
    testutil_services_finish (testutil_cluster_t **cluster_p, zsock_t **dealer_p);

#endif
