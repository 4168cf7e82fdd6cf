/*  =========================================================================
    test_ha_failover - two brokers electing a leader through a real etcd,
    their state in a real PostgreSQL: `kill -9` the leader while a client
    submits flat out, and nothing acknowledged is lost

    Two workers are given both brokers' endpoints. Long tasks run on them
    when the leader dies; short ones are submitted flat out, before and
    after. The test speaks the protocol on raw DEALERs and counts at the
    wire: every task the old or the new leader acknowledged (ACCEPTED) gets
    exactly one TASK DONE from the new leader, SUCCEEDED, with its own
    marker; the new leader accepts a task within 5 s of the kill; the
    workers re-register by themselves; the long tasks keep the attempt they
    had (adopted, not run again: each was started once, per the workers'
    logs).
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_ha.h"
#include <inttypes.h>
#include <signal.h>
#include <sys/wait.h>

#define S_LONG          6       //  tasks running across the failover
#define S_BEFORE        60      //  short tasks acknowledged before the kill
#define S_AFTER         60      //  short tasks acknowledged by the new leader
#define S_TASKS         (S_LONG + S_BEFORE + S_AFTER)
#define S_FAILOVER_MAX  5000    //  msec from the kill to the new leader's first ACCEPTED
#define S_LEASE_TTL     2000    //  msec, ha/lease-ttl

typedef struct {
    uint64_t id;                //  task id from ACCEPTED, 0 until then
    uint32_t attempt;           //  the long ones: attempt while running before the kill
    int dones;                  //  TASK DONEs heard for it
} s_task_t;

typedef struct {
    testutil_ha_t *ha;
    s_task_t tasks [S_TASKS];   //  by submit index
    int leader;                 //  index of the broker leading now
} s_test_t;

//  The script of task index: long ones sleep across the failover; each
//  prints its own marker
static drover_msg_t *
s_submit_msg (int index)
{
    char script [96];
    snprintf (script, sizeof script, "sleep %s; echo ha %d", index < S_LONG? "6": "0.05", index);
    drover_msg_t *submit = testutil_submit_msg (script, 0, 1, 0);
    submit->seq = (uint32_t) index + 1;
    submit->retries = 0;
    return submit;
}

//  Submit task index on dealer and wait for its ACCEPTED; false if the
//  broker did not accept it within timeout (a REDIRECT, no answer)
static bool
s_submit (s_test_t *self, zsock_t *dealer, int index, int timeout)
{
    drover_msg_t *submit = s_submit_msg (index);
    drover_msg_t *reply = testutil_request (dealer, &submit, timeout);
    bool accepted = reply && reply->id == DROVER_MSG_TASK_ACCEPTED;
    if (accepted)
        self->tasks [index].id = reply->task;
    drover_msg_destroy (&reply);
    return accepted;
}

//  Wait until every long task runs; note each one's attempt
static void
s_await_long_running (s_test_t *self, zsock_t *dealer)
{
    for (int index = 0; index < S_LONG; index++) {
        char worker [DROVER_ID_MAX + 1];
        assert_true (testutil_wait_running (dealer, self->tasks [index].id, worker, 15000));
    }
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_LIST);
    request->limit = DROVER_ROWS_MAX;
    request->state = 255;
    drover_msg_t *table = testutil_request (dealer, &request, 5000);
    assert_non_null (table);
    for (int index = 0; index < S_LONG; index++)
        for (uint32_t row = 0; row < table->nrows; row++)
            if (table->task_rows [row].task == self->tasks [index].id)
                self->tasks [index].attempt = table->task_rows [row].attempt;
    drover_msg_destroy (&table);
    for (int index = 0; index < S_LONG; index++)
        assert_true (self->tasks [index].attempt >= 1);
}

//  Wait on every acknowledged task at the new leader: exactly one DONE
//  each, SUCCEEDED, its own marker; the long ones on the attempt they had
static void
s_check_dones (s_test_t *self, zsock_t *dealer)
{
    drover_msg_t *wait = drover_msg_new (DROVER_MSG_TASK_WAIT);
    wait->seq = 5000;
    wait->tasks = (uint64_t *) zmalloc (sizeof (uint64_t) * S_TASKS);
    for (int index = 0; index < S_TASKS; index++)
        wait->tasks [wait->ntasks++] = self->tasks [index].id;
    testutil_send (dealer, &wait);
    int dones = 0;
    int64_t deadline = zclock_mono () + 60000;
    while (dones < S_TASKS && zclock_mono () < deadline) {
        drover_msg_t *msg = testutil_recv_msg (dealer, 1000);
        if (!msg || msg->id != DROVER_MSG_TASK_DONE) {
            drover_msg_destroy (&msg);
            continue;           //  the WAIT's OK, or nothing yet
        }
        int index = -1;
        for (int at = 0; at < S_TASKS; at++)
            if (self->tasks [at].id == msg->task)
                index = at;
        assert_true (index >= 0);
        char expected [32];
        snprintf (expected, sizeof expected, "ha %d\n", index);
        if (msg->state != DROVER_TASK_SUCCEEDED || msg->out_size != strlen (expected)
        ||  memcmp (msg->out, expected, msg->out_size))
            fail_msg ("task %" PRIu64 " (index %d) ended %s attempt %u, printed '%.*s'",
                      msg->task, index, drover_task_state_name (msg->state), msg->attempt,
                      (int) msg->out_size, msg->out? (char *) msg->out: "");
        if (index < S_LONG && msg->attempt != self->tasks [index].attempt)
            fail_msg ("long task %" PRIu64 " ran again: attempt %u, it had %u before the kill",
                      msg->task, msg->attempt, self->tasks [index].attempt);
        self->tasks [index].dones++;
        if (self->tasks [index].dones > 1)
            fail_msg ("task %" PRIu64 " got %d TASK DONEs", msg->task, self->tasks [index].dones);
        dones++;
        drover_msg_destroy (&msg);
    }
    if (dones < S_TASKS)
        fail_msg ("%d of %d acknowledged tasks got no TASK DONE from the new leader",
                  S_TASKS - dones, S_TASKS);
    drover_msg_t *late = testutil_recv_msg (dealer, 500);
    if (late && late->id == DROVER_MSG_TASK_DONE)
        fail_msg ("a second TASK DONE for task %" PRIu64, late->task);
    drover_msg_destroy (&late);
}

//  Each long task was started once over both workers' logs
static void
s_check_started_once (s_test_t *self)
{
    for (int index = 0; index < S_LONG; index++) {
        char needle [64];
        snprintf (needle, sizeof needle, "starting task=%" PRIu64 " ", self->tasks [index].id);
        int starts = testutil_count_lines_with (testutil_ha_log (self->ha, "w1"), needle)
                   + testutil_count_lines_with (testutil_ha_log (self->ha, "w2"), needle);
        if (starts != 1)
            fail_msg ("long task %" PRIu64 " was started %d times", self->tasks [index].id,
                      starts);
    }
}

//  The leader is killed under load: nothing acknowledged is lost or doubled
static void
test_failover_loses_nothing (void **state)
{
    (void) state;
    s_test_t *self = (s_test_t *) zmalloc (sizeof (s_test_t));
    self->ha = testutil_ha_new (2, S_LEASE_TTL, NULL);
    self->leader = testutil_ha_leader (self->ha, 5000);
    assert_true (self->leader >= 0);
    int standby = 1 - self->leader;
    testutil_ha_add_worker (self->ha, 0, "w1", 4);
    testutil_ha_add_worker (self->ha, 1, "w2", 4);
    zsock_t *dealer = testutil_ha_dealer (self->ha, self->leader);
    assert_true (testutil_wait_workers (dealer, 2, 15000));

    for (int index = 0; index < S_LONG; index++)
        assert_true (s_submit (self, dealer, index, 5000));
    s_await_long_running (self, dealer);
    for (int index = S_LONG; index < S_LONG + S_BEFORE; index++)
        assert_true (s_submit (self, dealer, index, 5000));
    zsock_destroy (&dealer);

    //  kill -9 the leader; submit to the other until it accepts
    pid_t old = self->ha->brokers [self->leader];
    assert_int_equal (kill (old, SIGKILL), 0);
    int64_t killed_at = zclock_mono ();
    assert_true (testutil_await_gone (old, 5000));
    waitpid (old, NULL, 0);
    self->ha->brokers [self->leader] = 0;
    dealer = testutil_ha_dealer (self->ha, standby);
    int first = S_LONG + S_BEFORE;
    while (!s_submit (self, dealer, first, 100)) {
        zsock_destroy (&dealer);    //  a fresh connection: no answer left queued
        dealer = testutil_ha_dealer (self->ha, standby);
        assert_true (zclock_mono () - killed_at < 30000);
        zclock_sleep (20);      //  paces the retries while it stands by
    }
    int64_t failover = zclock_mono () - killed_at;
    print_message ("ha: failover %" PRId64 " msec (kill -9 of the leader to the new leader's "
                   "first ACCEPTED; lease-ttl %d)\n", failover, S_LEASE_TTL);
    if (failover > S_FAILOVER_MAX)
        fail_msg ("the standby took %" PRId64 " msec to serve, more than %d", failover,
                  S_FAILOVER_MAX);
    for (int index = first + 1; index < S_TASKS; index++)
        assert_true (s_submit (self, dealer, index, 5000));

    assert_true (testutil_wait_workers (dealer, 2, 15000));    //  they came by themselves
    s_check_dones (self, dealer);
    s_check_started_once (self);
    zsock_destroy (&dealer);
    testutil_ha_destroy (&self->ha);
    free (self);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_failover_loses_nothing),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
