/*  =========================================================================
    test_ha_spread - named queues spread over two brokers by rendezvous
    hashing, through a real etcd, their state in a real PostgreSQL (one
    schema a queue): each broker serves two of four queues and redirects
    the other two to their owner; `kill -9` one broker and its queues move
    to the other, the other's stay where they are, and every acknowledged
    task of every queue ends exactly once

    One worker serves each queue, given both brokers' endpoints of it.
    Each queue gets short tasks and long ones that run across the kill.
    TASK DONEs are counted at the wire on raw DEALERs.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_ha.h"
#include "drover_placement.h"
#include <inttypes.h>
#include <signal.h>
#include <sys/wait.h>

#define S_QUEUES        4
#define S_LONG          2       //  tasks a queue runs across the kill
#define S_SHORT         8       //  short tasks a queue gets before the kill
#define S_AFTER         4       //  tasks a queue gets after it
#define S_TASKS         (S_LONG + S_SHORT + S_AFTER)
#define S_LEASE_TTL     2000    //  msec, ha/lease-ttl
#define S_MOVE_MAX      10000   //  msec from the kill to every queue served again

//  Four names that rendezvous hashing places two and two on b1 and b2
//  (a, b on b1; c, d on b2: test_drover_placement)
#define S_QUEUE_NAMES   "a,b,c,d"

typedef struct {
    uint64_t id;                //  from ACCEPTED, 0 until then
    int dones;                  //  TASK DONEs heard
} s_task_t;

typedef struct {
    testutil_ha_t *ha;
    int owner [S_QUEUES];       //  broker serving each queue before the kill
    s_task_t tasks [S_QUEUES][S_TASKS];
} s_test_t;

//  Submit task index of queue on dealer; true once ACCEPTED within timeout
static bool
s_submit (s_test_t *self, zsock_t *dealer, int queue, int index, int timeout)
{
    char script [96];
    snprintf (script, sizeof script, "sleep %s; echo q%d t%d", index < S_LONG? "4": "0.05",
              queue, index);
    drover_msg_t *submit = testutil_submit_msg (script, 0, 1, 0);
    submit->seq = (uint32_t) (queue * 100 + index + 1);
    submit->retries = 0;
    drover_msg_t *reply = testutil_request (dealer, &submit, timeout);
    bool accepted = reply && reply->id == DROVER_MSG_TASK_ACCEPTED;
    if (accepted)
        self->tasks [queue][index].id = reply->task;
    drover_msg_destroy (&reply);
    return accepted;
}

//  True if the cell of queue on broker index answers REDIRECT naming the
//  owner's cell of the queue
static bool
s_redirects_to (s_test_t *self, int index, int queue, int owner)
{
    zsock_t *dealer = testutil_ha_queue_dealer (self->ha, index, queue);
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_LIST);
    request->seq = 3;
    drover_msg_t *reply = testutil_request (dealer, &request, 5000);
    char name [16];
    snprintf (name, sizeof name, "b%d", owner + 1);
    bool redirects = reply && reply->id == DROVER_MSG_REDIRECT
                  && streq (reply->leader, self->ha->queue_endpoints [owner][queue])
                  && streq (reply->leader_name, name);
    drover_msg_destroy (&reply);
    zsock_destroy (&dealer);
    return redirects;
}

//  Wait on every acknowledged task of queue at broker index's cell: one
//  SUCCEEDED TASK DONE each, with its own marker, and no second one
static void
s_check_dones (s_test_t *self, int index, int queue)
{
    zsock_t *dealer = testutil_ha_queue_dealer (self->ha, index, queue);
    drover_msg_t *wait = drover_msg_new (DROVER_MSG_TASK_WAIT);
    wait->seq = 9000;
    wait->tasks = (uint64_t *) zmalloc (sizeof (uint64_t) * S_TASKS);
    for (int at = 0; at < S_TASKS; at++)
        wait->tasks [wait->ntasks++] = self->tasks [queue][at].id;
    testutil_send (dealer, &wait);
    int dones = 0;
    int64_t deadline = zclock_mono () + 60000;
    while (dones < S_TASKS && zclock_mono () < deadline) {
        drover_msg_t *msg = testutil_recv_msg (dealer, 1000);
        if (!msg || msg->id != DROVER_MSG_TASK_DONE) {
            drover_msg_destroy (&msg);
            continue;           //  the WAIT's OK, or nothing yet
        }
        int at = 0;
        while (at < S_TASKS && self->tasks [queue][at].id != msg->task)
            at++;
        assert_true (at < S_TASKS);
        char expected [32];
        snprintf (expected, sizeof expected, "q%d t%d\n", queue, at);
        if (msg->state != DROVER_TASK_SUCCEEDED || msg->out_size != strlen (expected)
        ||  memcmp (msg->out, expected, msg->out_size))
            fail_msg ("queue %d task %" PRIu64 " ended %s, printed '%.*s'", queue, msg->task,
                      drover_task_state_name (msg->state), (int) msg->out_size,
                      msg->out? (char *) msg->out: "");
        if (++self->tasks [queue][at].dones > 1)
            fail_msg ("queue %d task %" PRIu64 " got two TASK DONEs", queue, msg->task);
        dones++;
        drover_msg_destroy (&msg);
    }
    if (dones < S_TASKS)
        fail_msg ("queue %d: %d of %d acknowledged tasks got no TASK DONE", queue,
                  S_TASKS - dones, S_TASKS);
    drover_msg_t *late = testutil_recv_msg (dealer, 300);
    if (late && late->id == DROVER_MSG_TASK_DONE)
        fail_msg ("queue %d: a second TASK DONE for task %" PRIu64, queue, late->task);
    drover_msg_destroy (&late);
    zsock_destroy (&dealer);
}

//  How many times broker name's cell of queue started serving, per its log
static int
s_cell_starts (s_test_t *self, const char *name, int queue)
{
    char needle [64];
    snprintf (needle, sizeof needle, "cell %s: serving ", self->ha->queue_names [queue]);
    return testutil_count_lines_with (testutil_ha_log (self->ha, name), needle);
}

//  Submit tasks [from, to) of queue to broker index's cell
static void
s_submit_range (s_test_t *self, int index, int queue, int from, int to)
{
    zsock_t *dealer = testutil_ha_queue_dealer (self->ha, index, queue);
    for (int at = from; at < to; at++)
        assert_true (s_submit (self, dealer, queue, at, 5000));
    zsock_destroy (&dealer);
}

//  Two brokers, four queues spread two and two; one broker killed: its
//  queues move, the others' stay, nothing acknowledged is lost or doubled
static void
test_spread_and_move (void **state)
{
    (void) state;
    s_test_t *self = (s_test_t *) zmalloc (sizeof (s_test_t));
    const char *flags [] = { "--set", "ha/strategy=spread", NULL };
    self->ha = testutil_ha_new_queues (2, S_LEASE_TTL, flags, S_QUEUE_NAMES);
    //  Where spread places each queue over b1 and b2 (the leader may place
    //  them all on itself before the other registered: wait for the spread)
    drover_placement_t *placement = drover_placement_new ("spread");
    for (int queue = 0; queue < S_QUEUES; queue++)
        for (int index = 0; index < 2; index++)
            drover_placement_offer (placement, index? "b2": "b1", self->ha->queue_names [queue],
                                    self->ha->queue_endpoints [index][queue]);
    int served [2] = { 0, 0 };
    for (int queue = 0; queue < S_QUEUES; queue++) {
        const char *owner = drover_placement_owner (placement, self->ha->queue_names [queue]);
        self->owner [queue] = streq (owner, "b1")? 0: 1;
        served [self->owner [queue]]++;
        int64_t deadline = zclock_mono () + 15000;
        while (testutil_ha_queue_owner (self->ha, queue, 5000) != self->owner [queue]
           ||  !s_redirects_to (self, 1 - self->owner [queue], queue, self->owner [queue]))
            assert_true (zclock_mono () < deadline);
    }
    drover_placement_destroy (&placement);
    assert_int_equal (served [0], 2);
    assert_int_equal (served [1], 2);

    for (int queue = 0; queue < S_QUEUES; queue++) {
        char id [16];
        snprintf (id, sizeof id, "w%d", queue + 1);
        testutil_ha_add_queue_worker (self->ha, queue, id, 2, queue);
    }
    for (int queue = 0; queue < S_QUEUES; queue++) {
        zsock_t *dealer = testutil_ha_queue_dealer (self->ha, self->owner [queue], queue);
        assert_true (testutil_wait_workers (dealer, 1, 15000));
        zsock_destroy (&dealer);
        s_submit_range (self, self->owner [queue], queue, 0, S_LONG + S_SHORT);
        dealer = testutil_ha_queue_dealer (self->ha, self->owner [queue], queue);
        for (int at = 0; at < S_LONG; at++) {
            char worker [DROVER_ID_MAX + 1];
            assert_true (testutil_wait_running (dealer, self->tasks [queue][at].id, worker,
                                                15000));
        }
        zsock_destroy (&dealer);
    }

    //  kill -9 the owner of queue 0: its two queues move to the other
    int victim = self->owner [0];
    int survivor = 1 - victim;
    char survivor_name [16];
    snprintf (survivor_name, sizeof survivor_name, "b%d", survivor + 1);
    int starts_before [S_QUEUES];
    for (int queue = 0; queue < S_QUEUES; queue++)
        starts_before [queue] = s_cell_starts (self, survivor_name, queue);
    pid_t pid = self->ha->brokers [victim];
    assert_int_equal (kill (pid, SIGKILL), 0);
    int64_t killed_at = zclock_mono ();
    assert_true (testutil_await_gone (pid, 5000));
    waitpid (pid, NULL, 0);
    self->ha->brokers [victim] = 0;
    for (int queue = 0; queue < S_QUEUES; queue++)
        assert_int_equal (testutil_ha_queue_owner (self->ha, queue, S_MOVE_MAX), survivor);
    print_message ("spread: every queue served by b%d %" PRId64 " msec after the kill\n",
                   survivor + 1, zclock_mono () - killed_at);
    //  The survivor's own queues did not move (their cells went on
    //  serving); the victim's started once each there
    for (int queue = 0; queue < S_QUEUES; queue++)
        assert_int_equal (s_cell_starts (self, survivor_name, queue),
                          starts_before [queue] + (self->owner [queue] == victim));
    for (int queue = 0; queue < S_QUEUES; queue++)
        s_submit_range (self, survivor, queue, S_LONG + S_SHORT, S_TASKS);
    for (int queue = 0; queue < S_QUEUES; queue++)
        s_check_dones (self, survivor, queue);
    //  The long tasks were adopted, not run again: each started once
    for (int queue = 0; queue < S_QUEUES; queue++)
        for (int at = 0; at < S_LONG; at++) {
            char worker [16], needle [64];
            snprintf (worker, sizeof worker, "w%d", queue + 1);
            snprintf (needle, sizeof needle, "starting task=%" PRIu64 " ",
                      self->tasks [queue][at].id);
            assert_int_equal (testutil_count_lines_with (testutil_ha_log (self->ha, worker),
                                                         needle), 1);
        }
    testutil_ha_destroy (&self->ha);
    free (self);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_spread_and_move),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
