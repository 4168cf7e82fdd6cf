/*  =========================================================================
    test_peer_burst - one peer's burst of expensive messages does not hold
    up everyone else: through a real broker, a flooder pipelines max-size
    SUBMITs while a second client times the round trip of a cheap request
    =========================================================================
*/

#include "testutil_wire.h"
#include "testutil_cluster.h"

//  How long the victim measures, msec
#define S_MEASURE       3000
//  Most round trips the victim keeps
#define S_SAMPLES       100000

//  A TASK SUBMIT as large as a body may be: `cat >/dev/null` with stdin
static zframe_t *
s_big_submit (void)
{
    byte *input = (byte *) malloc (DROVER_INPUT_MAX);
    assert (input);
    memset (input, 'x', DROVER_INPUT_MAX);
    drover_exec_t *exec = drover_exec_new ();
    const char *argv [] = { "sh", "-c", "cat >/dev/null" };
    drover_exec_set_argv (exec, 3, argv);
    drover_exec_set_input (exec, input, DROVER_INPUT_MAX);
    //  The rest of the body in environment variables, up to its limit
    char *value = (char *) malloc (60001);
    assert (value);
    memset (value, 'y', 60000);
    value [60000] = 0;
    for (int index = 0; index < 15; index++) {
        char *entry = zsys_sprintf ("FILL%d=%s", index, value);
        int rc = drover_exec_add_env (exec, entry);
        assert (rc == 0);
        zstr_free (&entry);
    }
    size_t body_size;
    byte *body = drover_exec_encode (exec, &body_size);
    assert (body);
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    msg->procs = 1;
    drover_msg_set_body (msg, body, body_size);
    zframe_t *frame = drover_msg_encode (msg);
    assert (frame);
    drover_msg_destroy (&msg);
    free (body);
    free (value);
    free (input);
    drover_exec_destroy (&exec);
    return frame;
}

//  The flooder: pipelines big SUBMITs as fast as the broker takes them,
//  dropping the replies, until told $TERM
static void
s_flooder (zsock_t *pipe, void *args)
{
    zsock_t *dealer = zsock_new_dealer ((const char *) args);
    assert (dealer);
    zsock_set_sndtimeo (dealer, 10);
    zframe_t *frame = s_big_submit ();
    zsock_signal (pipe, 0);
    zpoller_t *poller = zpoller_new (pipe, NULL);
    uint64_t sent = 0;
    while (!zpoller_wait (poller, 0)) {
        zframe_t *copy = zframe_dup (frame);
        if (zframe_send (&copy, dealer, 0) == 0)
            sent++;
        zframe_destroy (&copy);
        zmsg_t *reply;
        while ((reply = zmsg_recv_nowait (dealer)))
            zmsg_destroy (&reply);
    }
    zpoller_destroy (&poller);
    zframe_destroy (&frame);
    zsock_destroy (&dealer);
    fprintf (stderr, "flooder: sent %" PRIu64 " submits\n", sent);
    zsock_signal (pipe, 0);
}

//  Compare two round trips
static int
s_compare (const void *left, const void *right)
{
    int64_t a = *(const int64_t *) left, b = *(const int64_t *) right;
    return a < b? -1: a > b;
}

//  While one peer floods max-size SUBMITs, another's WORKER LIST still
//  comes back within a bounded time
static void
test_burst_does_not_delay_others (void **state)
{
    //  A small byte bound: most of the flood is refused, still decoded
    const char *flags [] = { "--set", "assign/max-queued-bytes=33554432", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    zsock_t *victim = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (victim, 0, 5000));
    zactor_t *flooder = zactor_new (s_flooder, cluster->endpoint);
    int64_t *rtts = (int64_t *) malloc (S_SAMPLES * sizeof (int64_t));
    assert_non_null (rtts);
    int count = 0;
    int64_t end = zclock_mono () + S_MEASURE;
    while (zclock_mono () < end && count < S_SAMPLES) {
        drover_msg_t *request = drover_msg_new (DROVER_MSG_WORKER_LIST);
        int64_t sent = zclock_usecs ();
        drover_msg_t *reply = testutil_request (victim, &request, 60000);  //  the figure, not a timeout
        assert_non_null (reply);
        assert_int_equal (reply->id, DROVER_MSG_WORKER_TABLE);
        drover_msg_destroy (&reply);
        rtts [count++] = zclock_usecs () - sent;
    }
    zactor_destroy (&flooder);
    qsort (rtts, count, sizeof (int64_t), s_compare);
    int64_t p50 = rtts [count / 2], p99 = rtts [count * 99 / 100], max = rtts [count - 1];
    fprintf (stderr, "victim: %d round trips, p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
             count, p50 / 1000.0, p99 / 1000.0, max / 1000.0);
    free (rtts);
    zsock_destroy (&victim);
    testutil_cluster_destroy (&cluster);    //  first: a failed assert skips it
    //  Before the fix, under the same flood: 13 round trips in 3 s, one of
    //  them 53 s (a turn read up to 1024 messages of 2 MiB). Generous
    //  bounds: the machine running the suite may be busy
    assert_true (count >= 20);
    assert_true (p99 < 1000 * 1000);    //  usec
    assert_true (max < 5000 * 1000);
}

//  Run every test
int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_burst_does_not_delay_others),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
