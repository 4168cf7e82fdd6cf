/*  =========================================================================
    test_conn_silent - a real broker (no CURVE) closes connections that
    say nothing valid within broker/silent-timeout; those that spoke stay
    and are served, as do event subscribers
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"

//  Connections that never speak, and those that speak only garbage
#define S_SILENT        20
#define S_GARBAGE       2
//  The silent timeout the broker is given, msec
#define S_TIMEOUT       1000

//  Connect a DEALER to the cluster's broker that never connects again
//  once the broker closes it
static zsock_t *
s_dealer_once (testutil_cluster_t *cluster)
{
    zsock_t *dealer = zsock_new (ZMQ_DEALER);
    assert_non_null (dealer);
    zsock_set_linger (dealer, 0);
    zsock_set_reconnect_ivl (dealer, -1);
    assert_int_equal (zsock_connect (dealer, "%s", cluster->endpoint), 0);
    return dealer;
}

//  Silent connections, and connections that sent only garbage, are closed
//  once the silent timeout has passed since they came, not before; a
//  client that spoke, and an event subscriber, are not
static void
test_silent_connections_are_closed (void **state)
{
    int metrics = testutil_free_port ();
    char address [64];
    snprintf (address, sizeof address, "127.0.0.1:%d", metrics);
    char timeout [64];
    snprintf (timeout, sizeof timeout, "broker/silent-timeout=%d", S_TIMEOUT);
    const char *flags [] = { "--metrics", address, "--set", timeout, NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);

    zsock_t *client = testutil_dealer (cluster);
    drover_msg_t *request = drover_msg_new (DROVER_MSG_WORKER_LIST);
    drover_msg_t *reply = testutil_request (client, &request, 5000);
    assert_non_null (reply);
    drover_msg_destroy (&reply);
    zsock_t *subscriber = zsock_new_sub (cluster->events, "");
    assert_non_null (subscriber);

    int64_t started = zclock_mono ();
    zsock_t *silent [S_SILENT + S_GARBAGE];
    for (int index = 0; index < S_SILENT + S_GARBAGE; index++)
        silent [index] = s_dealer_once (cluster);
    for (int index = S_SILENT; index < S_SILENT + S_GARBAGE; index++)
        zstr_send (silent [index], "not a drover message");
    assert_true (testutil_await_metric (metrics, "drover_connections{class=\"silent\"}",
                                        S_SILENT + S_GARBAGE, true, 5000));
    assert_true (testutil_await_metric (metrics,
                                        "drover_connections_closed_total{reason=\"silent\"}",
                                        S_SILENT + S_GARBAGE, true, 5000 + S_TIMEOUT));
    int64_t took = zclock_mono () - started;
    fprintf (stderr, "silent connections closed after %d msec\n", (int) took);
    assert_true (took >= S_TIMEOUT);
    assert_int_equal (testutil_metric (metrics, "drover_connections{class=\"silent\"}"), 0);
    assert_int_equal (testutil_metric (metrics, "drover_connections{class=\"client\"}"), 2);

    //  The client that spoke is still served
    request = drover_msg_new (DROVER_MSG_WORKER_LIST);
    reply = testutil_request (client, &request, 5000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_WORKER_TABLE);
    drover_msg_destroy (&reply);
    for (int index = 0; index < S_SILENT + S_GARBAGE; index++)
        zsock_destroy (&silent [index]);
    zsock_destroy (&subscriber);
    zsock_destroy (&client);
    testutil_cluster_destroy (&cluster);
}

//  Run every test
int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_silent_connections_are_closed),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
