/*  =========================================================================
    testutil_services - services through a real broker (see the header)
    =========================================================================
*/

#include "testutil_services.h"
#include "testutil_proc.h"
#include "testutil_wire.h"

//  Start a broker and workers w1..wN of procs each
testutil_cluster_t *
testutil_services_cluster (const char *flags [], int workers, int procs, zsock_t **dealer_p,
                           int timeout)
{
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    for (int index = 0; index < workers; index++) {
        char id [16];
        snprintf (id, sizeof id, "w%d", index + 1);
        testutil_cluster_add_worker (cluster, index, id, procs, NULL);
    }
    *dealer_p = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (*dealer_p, workers, timeout));
    return cluster;
}

//  Ask for one service's table, or every service's
drover_msg_t *
testutil_services_table (zsock_t *dealer, const char *name)
{
    drover_msg_t *request = drover_msg_new (DROVER_MSG_SERVICE_LIST);
    snprintf (request->service, sizeof request->service, "%s", name? name: "");
    drover_msg_t *reply = testutil_request (dealer, &request, 5000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_SERVICE_TABLE);
    return reply;
}

//  Count one replica row in a view
static void
s_view_row (testutil_services_view_t *view, const drover_replica_row_t *row)
{
    if (row->slot >= TESTUTIL_SERVICES_SLOTS)
        return;
    if (row->state == DROVER_REPLICA_RUNNING) {
        view->running++;
        view->task [row->slot] = row->task;
        snprintf (view->worker [row->slot], DROVER_ID_MAX + 1, "%s", row->worker);
    }
    else
    if (row->state == DROVER_REPLICA_PENDING)
        view->pending++;
    else
    if (row->state == DROVER_REPLICA_STOPPING)
        view->stopping++;
    else
    if (row->state == DROVER_REPLICA_WAITING) {
        view->waiting++;
        snprintf (view->waits, sizeof view->waits, "%s", row->why);
    }
}

//  Read a service's view off its table
void
testutil_services_view (zsock_t *dealer, const char *name, testutil_services_view_t *view)
{
    memset (view, 0, sizeof *view);
    drover_msg_t *table = testutil_services_table (dealer, name);
    for (uint32_t index = 0; index < table->nreplicas; index++)
        s_view_row (view, &table->replica_rows [index]);
    if (table->nservices) {
        snprintf (view->why, sizeof view->why, "%s", table->service_rows [0].why);
        view->max_per_worker = table->service_rows [0].max_per_worker;
    }
    view->stats = table->stats_now;
    drover_msg_destroy (&table);
}

//  Count a view's running replicas on worker
int
testutil_services_on (const testutil_services_view_t *view, const char *worker)
{
    int count = 0;
    for (int slot = 0; slot < TESTUTIL_SERVICES_SLOTS; slot++)
        count += view->task [slot] && streq (view->worker [slot], worker);
    return count;
}

//  What a view must show (s_await)
typedef enum {
    S_RUNNING,                  //  count running, none pending
    S_TERM,                     //  a term above term
    S_SETTLED                   //  both, and nothing stopping
} s_wanted_t;

//  Ask for a service's view until it shows what is wanted; false on timeout
static bool
s_await (zsock_t *dealer, const char *name, s_wanted_t wanted, int count, uint64_t term,
         testutil_services_view_t *view, int timeout)
{
    int64_t deadline = zclock_mono () + timeout;
    while (zclock_mono () < deadline) {
        testutil_services_view (dealer, name, view);
        bool running = view->running == count && view->pending == 0;
        bool later = view->stats.term > term;
        if ((wanted == S_RUNNING && running) || (wanted == S_TERM && later)
        ||  (wanted == S_SETTLED && running && later && view->stopping == 0))
            return true;
        zclock_sleep (50);      //  paces the questions; the deadline bounds the wait
    }
    return false;
}

//  Wait until a service runs exactly count replicas, none pending
bool
testutil_services_await_running (zsock_t *dealer, const char *name, int count,
                                 testutil_services_view_t *view, int timeout)
{
    return s_await (dealer, name, S_RUNNING, count, 0, view, timeout);
}

//  Wait until the broker has ended a term numbered above term
bool
testutil_services_await_term (zsock_t *dealer, const char *name, uint64_t term,
                              testutil_services_view_t *view, int timeout)
{
    return s_await (dealer, name, S_TERM, 0, term, view, timeout);
}

//  Wait until a service runs count replicas, settled, in a term after term
bool
testutil_services_await_settled (zsock_t *dealer, const char *name, int count, uint64_t term,
                                 testutil_services_view_t *view, int timeout)
{
    return s_await (dealer, name, S_SETTLED, count, term, view, timeout);
}

//  Close the dealer, stop the cluster and remove its logs
void
testutil_services_finish (testutil_cluster_t **cluster_p, zsock_t **dealer_p)
{
    zsock_destroy (dealer_p);
    char logdir [64];
    snprintf (logdir, sizeof logdir, "%s", (*cluster_p)->logdir);
    testutil_cluster_destroy (cluster_p);
    testutil_remove_tree (logdir);
}
