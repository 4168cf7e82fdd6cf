/*  =========================================================================
    test_ha_faults - two brokers, a real etcd and a real PostgreSQL, and
    the faults a lease alone does not survive

    Pause: the leader is SIGSTOPped past its lease, the standby takes over,
    then the old leader is SIGCONTed with a submit waiting on its socket:
    that submit is never acknowledged (the old leader's write is refused by
    fencing, or it stepped down first), the old leader stands by, and every
    task the new leader acknowledged ends exactly once.

    etcd unavailable: etcd is SIGSTOPped under a serving leader. It keeps
    serving while its lease may still be valid, then steps down cleanly
    before the lease could have expired; when etcd is back one broker
    leads again. From both brokers' event streams (broker.leader,
    broker.standby) no two brokers ever led at once.

    Clean stop: the leader stopped with SIGTERM hands over at once, long
    before its lease's TTL, and what it acknowledged is the new leader's.

    Database unreachable: a broker elected that cannot load the state
    resigns and campaigns again only after a backoff.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_ha.h"
#include <inttypes.h>
#include <signal.h>
#include <sys/wait.h>

#define S_LEASE_TTL     2000    //  msec, ha/lease-ttl
#define S_TASKS         20      //  tasks the new leader acknowledges in the pause test

//  Submit `echo NAME` on dealer; return its task id, or 0 if not accepted
//  within timeout
static uint64_t
s_submit (zsock_t *dealer, uint32_t seq, int timeout)
{
    char script [32];
    snprintf (script, sizeof script, "echo t%u", seq);
    drover_msg_t *submit = testutil_submit_msg (script, 0, 1, 0);
    submit->seq = seq;
    drover_msg_t *reply = testutil_request (dealer, &submit, timeout);
    uint64_t task = reply && reply->id == DROVER_MSG_TASK_ACCEPTED? reply->task: 0;
    drover_msg_destroy (&reply);
    return task;
}

//  The broker at index other than skip that serves, within timeout; -1 none
static int
s_other_leader (testutil_ha_t *ha, int skip, int timeout)
{
    int64_t deadline = zclock_mono () + timeout;
    while (zclock_mono () < deadline) {
        int leader = testutil_ha_leader (ha, 200);
        if (leader >= 0 && leader != skip)
            return leader;
    }
    return -1;
}

//  A leader paused past its lease comes back fenced and stands by
static void
test_paused_leader_is_fenced (void **state)
{
    (void) state;
    testutil_ha_t *ha = testutil_ha_new (2, S_LEASE_TTL, NULL);
    int old = testutil_ha_leader (ha, 5000);
    assert_true (old >= 0);
    testutil_ha_add_worker (ha, 0, "w1", 4);
    zsock_t *old_dealer = testutil_ha_dealer (ha, old);
    assert_true (testutil_wait_workers (old_dealer, 1, 15000));
    //  The old leader's events, heard from before it is paused
    zsock_t *sub = zsock_new_sub (ha->events [old], "broker.");
    assert_non_null (sub);
    zsock_set_subscribe (sub, "worker.");
    assert_true (testutil_await_subscription (sub, old_dealer, "w1"));

    assert_int_equal (kill (ha->brokers [old], SIGSTOP), 0);
    int leader = s_other_leader (ha, old, 15000);
    assert_int_equal (leader, 1 - old);
    zsock_t *dealer = testutil_ha_dealer (ha, leader);
    uint64_t tasks [S_TASKS];
    for (uint32_t index = 0; index < S_TASKS; index++) {
        tasks [index] = s_submit (dealer, index + 1, 5000);
        assert_true (tasks [index] > 0);
    }
    //  A submit waits on the old leader's socket while it sleeps
    drover_msg_t *submit = testutil_submit_msg ("echo stale", 0, 1, 0);
    submit->seq = 999;
    testutil_send (old_dealer, &submit);
    char name [16];
    snprintf (name, sizeof name, "b%d", old + 1);
    assert_int_equal (kill (ha->brokers [old], SIGCONT), 0);
    drover_event_t event;
    assert_true (testutil_await_event (sub, "broker.standby", name, &event, 10000));
    zsock_destroy (&sub);
    drover_msg_t *reply = testutil_recv_msg (old_dealer, 2000);
    if (reply && reply->id == DROVER_MSG_TASK_ACCEPTED)
        fail_msg ("the deposed leader acknowledged task %" PRIu64, reply->task);
    drover_msg_destroy (&reply);
    bool fenced = testutil_count_lines_with (testutil_ha_log (ha, name), "fenced") > 0;
    print_message ("ha: the old leader stood by: %s\n", fenced? "its write was refused by "
                   "fencing": "its elector deposed it first");

    //  Every task the new leader acknowledged ends once, there
    drover_msg_t *wait = testutil_wait_msg (tasks, S_TASKS);
    wait->seq = 5000;
    testutil_send (dealer, &wait);
    int dones = 0;
    int64_t deadline = zclock_mono () + 30000;
    while (dones < S_TASKS && zclock_mono () < deadline) {
        drover_msg_t *msg = testutil_recv_msg (dealer, 1000);
        if (msg && msg->id == DROVER_MSG_TASK_DONE) {
            assert_int_equal (msg->state, DROVER_TASK_SUCCEEDED);
            dones++;
        }
        drover_msg_destroy (&msg);
    }
    assert_int_equal (dones, S_TASKS);
    drover_msg_t *late = testutil_recv_msg (dealer, 500);
    assert_true (!late || late->id != DROVER_MSG_TASK_DONE);
    drover_msg_destroy (&late);
    //  The old one answers peers with a redirect to the new one now
    assert_int_equal (s_submit (old_dealer, 1000, 2000), 0);
    zsock_destroy (&old_dealer);
    zsock_destroy (&dealer);
    testutil_ha_destroy (&ha);
}

//  What the event streams said of one broker: when it led
typedef struct {
    int64_t since;              //  wall msec it started leading, -1 if not leading
    int64_t spans [16][2];      //  [from, to] of each time it led, ended
    int nspans;
} s_leadership_t;

//  Read every broker.* event waiting on sub into leadership
static void
s_read_events (zsock_t *sub, s_leadership_t *leadership, int timeout)
{
    drover_event_t event;
    while (testutil_next_event (sub, &event, timeout)) {
        timeout = 0;
        if (streq (event.topic, "broker.leader"))
            leadership->since = (int64_t) event.time;
        else
        if (streq (event.topic, "broker.standby") && leadership->since >= 0
        &&  leadership->nspans < 16) {
            leadership->spans [leadership->nspans][0] = leadership->since;
            leadership->spans [leadership->nspans++][1] = (int64_t) event.time;
            leadership->since = -1;
        }
    }
}

//  Read broker.* events on sub into leadership until a broker.standby (the
//  broker stepped down); false if none within timeout
static bool
s_await_standby (zsock_t *sub, s_leadership_t *leadership, int timeout)
{
    int64_t deadline = zclock_mono () + timeout;
    int spans = leadership->nspans;
    while (leadership->nspans == spans && zclock_mono () < deadline)
        s_read_events (sub, leadership, (int) (deadline - zclock_mono ()));
    return leadership->nspans > spans;
}

//  etcd stops answering: the leader steps down before its lease could end,
//  serves meanwhile, and no two brokers lead at once
static void
test_etcd_unavailable (void **state)
{
    (void) state;
    testutil_ha_t *ha = testutil_ha_new (2, S_LEASE_TTL, NULL);
    int leader = testutil_ha_leader (ha, 5000);
    assert_true (leader >= 0);
    zsock_t *subs [2];
    s_leadership_t leadership [2] = { { .since = -1 }, { .since = -1 } };
    for (int index = 0; index < 2; index++) {
        subs [index] = zsock_new_sub (ha->events [index], "broker.");
        assert_non_null (subs [index]);
    }
    leadership [leader].since = zclock_time ();     //  it led before we listened
    for (int index = 0; index < 2; index++) {
        char name [16];
        snprintf (name, sizeof name, "b%d", index + 1);
        //  A standby publishes nothing until it leads: only its log says our
        //  subscription reached it
        assert_true (testutil_await_line (testutil_ha_log (ha, name), "events on", 5000));
    }

    testutil_ha_etcd_signal (ha, true);
    int64_t paused_at = zclock_mono ();
    zsock_t *dealer = testutil_ha_dealer (ha, leader);
    assert_true (s_submit (dealer, 1, 1000) > 0);   //  still serving, its lease still valid
    assert_true (s_await_standby (subs [leader], &leadership [leader], S_LEASE_TTL + 3000));
    int64_t stood_by = zclock_mono () - paused_at;
    print_message ("ha: etcd paused; the leader stood by after %" PRId64 " msec (lease-ttl %d)\n",
                   stood_by, S_LEASE_TTL);
    assert_true (stood_by <= S_LEASE_TTL);
    assert_int_equal (s_submit (dealer, 2, 1000), 0);   //  not serving any more
    zsock_destroy (&dealer);

    testutil_ha_etcd_signal (ha, false);
    assert_true (testutil_ha_leader (ha, 20000) >= 0);
    for (int index = 0; index < 2; index++)
        s_read_events (subs [index], &leadership [index], 1000);
    //  Close the open spans now, then no span of one overlaps one of the other
    for (int index = 0; index < 2; index++)
        if (leadership [index].since >= 0 && leadership [index].nspans < 16) {
            leadership [index].spans [leadership [index].nspans][0] = leadership [index].since;
            leadership [index].spans [leadership [index].nspans++][1] = zclock_time ();
        }
    assert_true (leadership [leader].nspans >= 1);
    for (int one = 0; one < leadership [0].nspans; one++)
        for (int two = 0; two < leadership [1].nspans; two++) {
            int64_t *a = leadership [0].spans [one], *b = leadership [1].spans [two];
            if (a [0] < b [1] && b [0] < a [1])
                fail_msg ("b1 led %" PRId64 "..%" PRId64 " and b2 %" PRId64 "..%" PRId64
                          " (wall msec): two leaders at once", a [0], a [1], b [0], b [1]);
        }
    for (int index = 0; index < 2; index++)
        zsock_destroy (&subs [index]);
    testutil_ha_destroy (&ha);
}

//  A leader stopped cleanly (SIGTERM) hands over at once: it keeps its
//  state, then revokes its lease, so the standby need not wait for the TTL
static void
test_clean_stop_hands_over (void **state)
{
    (void) state;
    testutil_ha_t *ha = testutil_ha_new (2, 10000, NULL);  //  a TTL far past what we wait
    int leader = testutil_ha_leader (ha, 5000);
    assert_true (leader >= 0);
    zsock_t *dealer = testutil_ha_dealer (ha, leader);
    uint64_t before = s_submit (dealer, 1, 5000);
    assert_true (before > 0);
    zsock_destroy (&dealer);
    int64_t stopped_at = zclock_mono ();
    testutil_stop (ha->brokers [leader], 10000);
    ha->brokers [leader] = 0;
    int other = 1 - leader;
    assert_int_equal (s_other_leader (ha, leader, 5000), other);
    int64_t handed = zclock_mono () - stopped_at;
    print_message ("ha: SIGTERM to the leader; the standby served %" PRId64 " msec later "
                   "(lease-ttl 10000)\n", handed);
    assert_true (handed < 5000);
    //  What the old leader acknowledged is the new one's
    dealer = testutil_ha_dealer (ha, other);
    drover_msg_t *show = drover_msg_new (DROVER_MSG_TASK_SHOW);
    show->seq = 2;
    show->task = before;
    drover_msg_t *reply = testutil_request (dealer, &show, 5000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_TASK_INFO);
    drover_msg_destroy (&reply);
    zsock_destroy (&dealer);
    testutil_ha_destroy (&ha);
}

//  A broker elected that cannot reach the database resigns and campaigns
//  again only after a backoff (1 s, then 2 s...), not again and again at
//  once (it was elected 1,600 times in 8 s before)
static void
test_unreachable_state_backs_off (void **state)
{
    (void) state;
    testutil_ha_t *ha = testutil_ha_new (1, S_LEASE_TTL, NULL);
    char endpoint [64], events [64], nowhere [96], log [160], ttl [16];
    snprintf (endpoint, sizeof endpoint, "tcp://127.0.0.1:%d", testutil_free_port ());
    snprintf (events, sizeof events, "tcp://127.0.0.1:%d", testutil_free_port ());
    snprintf (nowhere, sizeof nowhere, "postgresql://drover@127.0.0.1:%d/drover",
              testutil_free_port ());
    snprintf (log, sizeof log, "%s/b2.log", ha->dir);
    snprintf (ttl, sizeof ttl, "%d", S_LEASE_TTL);
    const char *argv [] = { DROVER_BIN, "broker", "--endpoint", endpoint, "--events", events,
                            "--state", nowhere, "--etcd", ha->etcd, "--name", "b2",
                            "--lease-ttl", ttl, NULL };
    pid_t b2 = testutil_spawn (argv, log);
    assert_true (b2 > 0);
    //  A broker that cannot load the state never leads: it publishes no
    //  broker.leader and answers only REDIRECT, so its elections and
    //  resignations show in its log alone
    assert_true (testutil_await_line (log, "ha: standing by", 10000));
    //  b1 steps aside: b2 is elected at once, and cannot serve
    testutil_stop (ha->brokers [0], 10000);
    ha->brokers [0] = 0;
    assert_true (testutil_await_line (log, "ha: cannot serve as leader", 5000));
    //  Over the next 3.5 s: tried again at 1 s and at 3 s, no more
    int64_t until = zclock_mono () + 3500;
    while (zclock_mono () < until) {
        int elected = testutil_count_lines_with (log, "ha: elected name=b2");
        if (elected > 3)
            fail_msg ("b2 was elected %d times in 3.5 s, unable to serve each time", elected);
        zclock_sleep (100);
    }
    assert_true (testutil_count_lines_with (log, "ha: elected name=b2") >= 2);
    testutil_stop (b2, 10000);
    testutil_ha_destroy (&ha);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_paused_leader_is_fenced),
        cmocka_unit_test (test_etcd_unavailable),
        cmocka_unit_test (test_clean_stop_hands_over),
        cmocka_unit_test (test_unreachable_state_backs_off),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
