/*  =========================================================================
    test_ha_workflows - tasks that wait for others, and an array under its
    limit, across a failover: two brokers electing a leader through a real
    etcd, their state in a real PostgreSQL, the leader killed with
    `kill -9` mid-graph. The new leader loads what waits for what from the
    state; every task ends once (counted at the wire), each link of a chain
    after its parent, each array element with its own index.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_ha.h"
#include <signal.h>
#include <sys/wait.h>

#define S_LEASE_TTL     2000    //  msec, ha/lease-ttl
#define S_LINKS         6       //  tasks in the chain
#define S_ELEMENTS      6       //  the array's elements

//  Submit msg (destroyed) on dealer; the id, asserting it was accepted
static uint64_t
s_submit (zsock_t *dealer, drover_msg_t *msg)
{
    drover_msg_t *reply = testutil_request (dealer, &msg, 5000);
    assert_non_null (reply);
    if (reply->id != DROVER_MSG_TASK_ACCEPTED)
        fail_msg ("submit refused: %u %s", reply->code, reply->reason? reply->reason: "");
    uint64_t task = reply->task;
    drover_msg_destroy (&reply);
    return task;
}

//  Tell whether a file exists
static bool
s_exists (const char *dir, const char *name)
{
    char path [512];
    snprintf (path, sizeof path, "%s/%s", dir, name);
    return access (path, F_OK) == 0;
}

//  The leader is killed while a chain and an array run: the new leader
//  finishes them, in order, each task once
static void
test_graph_across_failover (void **state)
{
    (void) state;
    testutil_ha_t *ha = testutil_ha_new (2, S_LEASE_TTL, NULL);
    int old = testutil_ha_leader (ha, 5000);
    assert_true (old >= 0);
    testutil_ha_add_worker (ha, 0, "w1", 4);
    zsock_t *dealer = testutil_ha_dealer (ha, old);
    assert_true (testutil_wait_workers (dealer, 1, 15000));
    uint64_t tasks [S_LINKS + 1];
    for (int link = 0; link < S_LINKS; link++) {
        //  Each link fails (exit 9) if it runs before its parent ended
        char script [512];
        if (link)
            snprintf (script, sizeof script,
                      "test -e %s/link%d || exit 9; sleep 0.5; touch %s/link%d",
                      ha->dir, link - 1, ha->dir, link);
        else
            snprintf (script, sizeof script, "sleep 0.5; touch %s/link0", ha->dir);
        drover_msg_t *msg = testutil_submit_msg (script, 0, 1, 0);
        if (link) {
            msg->after = (drover_after_t *) zmalloc (sizeof (drover_after_t));
            msg->after [0] = (drover_after_t) { DROVER_AFTER_OK, tasks [link - 1] };
            msg->nafter = 1;
        }
        tasks [link] = s_submit (dealer, msg);
    }
    char script [512];
    snprintf (script, sizeof script, "sleep 0.3; touch %s/element.$DROVER_ARRAY_INDEX", ha->dir);
    drover_msg_t *msg = testutil_submit_msg (script, 0, 1, 0);
    msg->array = (drover_array_spec_t) { 10, 1, S_ELEMENTS, 2 };
    tasks [S_LINKS] = s_submit (dealer, msg);
    //  Mid-graph: the second link ended (its TASK DONE), not the last
    drover_msg_t *first = testutil_wait_msg (&tasks [1], 1);
    first->seq = 400;
    testutil_send (dealer, &first);
    drover_msg_t *done = NULL;
    int64_t deadline = zclock_mono () + 20000;
    while (!done && zclock_mono () < deadline) {
        drover_msg_t *msg = testutil_recv_msg (dealer, 1000);
        if (msg && msg->id == DROVER_MSG_TASK_DONE && msg->task == tasks [1])
            done = msg;
        else
            drover_msg_destroy (&msg);
    }
    assert_non_null (done);
    assert_int_equal (done->state, DROVER_TASK_SUCCEEDED);
    drover_msg_destroy (&done);
    assert_true (s_exists (ha->dir, "link1"));
    assert_false (s_exists (ha->dir, "link5"));
    zsock_destroy (&dealer);
    assert_int_equal (kill (ha->brokers [old], SIGKILL), 0);
    waitpid (ha->brokers [old], NULL, 0);
    ha->brokers [old] = 0;
    int leader = -1;
    deadline = zclock_mono () + 20000;
    while (leader < 0 && zclock_mono () < deadline) {
        int now = testutil_ha_leader (ha, 500);
        leader = now >= 0 && now != old? now: -1;
    }
    assert_int_equal (leader, 1 - old);
    dealer = testutil_ha_dealer (ha, leader);
    drover_msg_t *wait = testutil_wait_msg (tasks, S_LINKS + 1);
    wait->seq = 500;
    testutil_send (dealer, &wait);
    int dones [S_LINKS + 1] = { 0 };
    int ended = 0;
    deadline = zclock_mono () + 40000;
    while (ended < S_LINKS + 1 && zclock_mono () < deadline) {
        drover_msg_t *done = testutil_recv_msg (dealer, 1000);
        if (done && done->id == DROVER_MSG_TASK_DONE)
            for (int index = 0; index <= S_LINKS; index++)
                if (tasks [index] == done->task) {
                    if (dones [index]++ == 0)
                        ended++;
                    if (done->state != DROVER_TASK_SUCCEEDED)
                        fail_msg ("task %" PRIu64 " ended %d: %s", done->task, done->state,
                                  done->reason? done->reason: "");
                }
        drover_msg_destroy (&done);
    }
    assert_int_equal (ended, S_LINKS + 1);
    for (int index = 0; index <= S_LINKS; index++)
        assert_int_equal (dones [index], 1);
    for (int element = 0; element < S_ELEMENTS; element++) {
        char name [32];
        snprintf (name, sizeof name, "element.%d", 10 + element);
        assert_true (s_exists (ha->dir, name));
    }
    zsock_destroy (&dealer);
    testutil_ha_destroy (&ha);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_graph_across_failover),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
