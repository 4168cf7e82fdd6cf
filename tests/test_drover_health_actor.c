/*  =========================================================================
    test_drover_health_actor - the health actor through its pipe: registration,
    WELCOME, UP, LOST (silent, left, restarted), STATS, 401, 302 and 423
    =========================================================================
*/

#include "testutil_actor.h"
#include "drover_health_actor.h"

//  Pop a decimal number frame
static uint64_t
s_pop_number (zmsg_t *msg)
{
    char *text = zmsg_popstr (msg);
    assert_non_null (text);
    uint64_t value = strtoull (text, NULL, 10);
    zstr_free (&text);
    return value;
}

//  Expect an ERROR with code and seq to route
static void
s_expect_error (zactor_t *actor, const char *route, int code, uint32_t seq)
{
    drover_msg_t *reply = testutil_expect_send (actor, route, "");
    assert_int_equal (reply->id, DROVER_MSG_ERROR);
    assert_int_equal (reply->code, code);
    assert_int_equal (reply->seq, seq);
    assert_non_null (reply->reason);
    drover_msg_destroy (&reply);
}

//  Expect LOST worker reason, then its event
static void
s_expect_lost (zactor_t *actor, const char *worker, const char *reason)
{
    zmsg_t *msg = testutil_expect (actor, "LOST", 2000);
    testutil_pop_check (msg, worker);
    testutil_pop_check (msg, reason);
    zmsg_destroy (&msg);
    testutil_expect_event (actor, "worker.lost", worker, reason);
}

//  Say HELLO from route
static void
s_hello (zactor_t *actor, const char *route, const char *worker, uint64_t epoch,
         uint32_t procs, uint32_t seq)
{
    drover_msg_t *hello = drover_msg_new (DROVER_MSG_WORKER_HELLO);
    snprintf (hello->worker, sizeof hello->worker, "%s", worker);
    hello->epoch = epoch;
    hello->procs = procs;
    hello->seq = seq;
    testutil_hand (actor, route, hello);
}

//  Say HEARTBEAT from route
static void
s_heartbeat (zactor_t *actor, const char *route, const char *worker, uint64_t epoch,
             uint32_t running, uint32_t seq)
{
    drover_msg_t *heartbeat = drover_msg_new (DROVER_MSG_WORKER_HEARTBEAT);
    snprintf (heartbeat->worker, sizeof heartbeat->worker, "%s", worker);
    heartbeat->epoch = epoch;
    heartbeat->stats.running = running;
    heartbeat->seq = seq;
    testutil_hand (actor, route, heartbeat);
}

//  Expect the WELCOME, UP and worker.up of a registration
static void
s_expect_registered (zactor_t *actor, const char *route, const char *worker, uint64_t epoch,
                     uint32_t seq)
{
    drover_msg_t *welcome = testutil_expect_send (actor, route, worker);
    assert_int_equal (welcome->id, DROVER_MSG_WORKER_WELCOME);
    assert_int_equal (welcome->seq, seq);
    drover_msg_destroy (&welcome);
    zmsg_t *up = testutil_expect (actor, "UP", 2000);
    testutil_pop_check (up, worker);
    testutil_pop_check (up, route);
    assert_int_equal (s_pop_number (up), epoch);
    zmsg_destroy (&up);
    testutil_expect_event (actor, "worker.up", worker, "");
}

//  Say HELLO from route and expect it registered (WELCOME, UP, worker.up)
static void
s_register (zactor_t *actor, const char *route, const char *worker, uint64_t epoch,
            uint32_t procs, uint32_t seq)
{
    s_hello (actor, route, worker, epoch, procs, seq);
    s_expect_registered (actor, route, worker, epoch, seq);
}

//  Say a HEARTBEAT from route and expect it refused: 401, not registered
static void
s_heartbeat_refused (zactor_t *actor, const char *route, const char *worker, uint64_t epoch,
                     uint32_t running, uint32_t seq)
{
    s_heartbeat (actor, route, worker, epoch, running, seq);
    s_expect_error (actor, route, DROVER_CODE_NOT_REGISTERED, seq);
}

//  Expect STATS for worker with running
static void
s_expect_stats (zactor_t *actor, const char *worker, uint32_t running)
{
    zmsg_t *msg = testutil_expect (actor, "STATS", 2000);
    testutil_pop_check (msg, worker);
    zframe_t *frame = zmsg_pop (msg);
    assert_int_equal (zframe_size (frame), sizeof (drover_stats_t));
    drover_stats_t stats;
    memcpy (&stats, zframe_data (frame), sizeof stats);
    assert_int_equal (stats.running, running);
    zframe_destroy (&frame);
    zmsg_destroy (&msg);
}

static int
s_setup (void **state)
{
    zactor_t *actor = zactor_new (drover_health_actor, NULL);
    assert_non_null (actor);
    zsock_send (actor, "s44444", "CONFIGURE", 250, 60000, 3, 0, 0);
    *state = actor;
    return 0;
}

static int
s_teardown (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    testutil_actor_destroy (&actor);
    return 0;
}

//  HELLO: WELCOME with the heartbeat, then UP with everything HELLO said
static void
test_hello_welcome_up (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    drover_msg_t *hello = drover_msg_new (DROVER_MSG_WORKER_HELLO);
    strcpy (hello->worker, "alpha");
    hello->epoch = 77;
    hello->procs = 4;
    hello->mem = 1 << 20;
    hello->seq = 5;
    drover_msg_add_label (hello, "gpu=yes");
    drover_msg_add_label (hello, "zone=a");
    hello->nrunning = 1;
    hello->running = (drover_taskref_t *) zmalloc (sizeof (drover_taskref_t));
    hello->running [0].task = 42;
    hello->running [0].attempt = 3;
    testutil_hand (actor, "r1", hello);

    drover_msg_t *welcome = testutil_expect_send (actor, "r1", "alpha");
    assert_int_equal (welcome->id, DROVER_MSG_WORKER_WELCOME);
    assert_int_equal (welcome->seq, 5);
    assert_int_equal (welcome->heartbeat, 250);
    drover_msg_destroy (&welcome);
    zmsg_t *up = testutil_expect (actor, "UP", 2000);
    testutil_pop_check (up, "alpha");
    testutil_pop_check (up, "r1");
    assert_int_equal (s_pop_number (up), 77);
    assert_int_equal (s_pop_number (up), 4);
    assert_int_equal (s_pop_number (up), 1 << 20);
    testutil_pop_check (up, "gpu=yes\nzone=a");
    zframe_t *running = zmsg_pop (up);
    assert_int_equal (zframe_size (running), sizeof (drover_taskref_t));
    drover_taskref_t ref;
    memcpy (&ref, zframe_data (running), sizeof ref);
    assert_int_equal (ref.task, 42);
    assert_int_equal (ref.attempt, 3);
    zframe_destroy (&running);
    zmsg_destroy (&up);
    testutil_expect_event (actor, "worker.up", "alpha", "");

    //  Heartbeats from it carry stats on to schedq
    s_heartbeat (actor, "r1", "alpha", 77, 3, 6);
    s_expect_stats (actor, "alpha", 3);
}

//  A HELLO with a bad id or no procs is refused with 400 and registers nothing
static void
test_hello_validation (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    s_hello (actor, "r1", "has space", 1, 4, 10);
    s_expect_error (actor, "r1", DROVER_CODE_BAD_REQUEST, 10);
    s_hello (actor, "r1", "", 1, 4, 11);
    s_expect_error (actor, "r1", DROVER_CODE_BAD_REQUEST, 11);
    s_hello (actor, "r1", "alpha", 1, 0, 12);
    s_expect_error (actor, "r1", DROVER_CODE_BAD_REQUEST, 12);
    s_heartbeat_refused (actor, "r1", "alpha", 1, 0, 13);
}

//  A HEARTBEAT whose id, route or epoch is not the registered one gets 401
static void
test_heartbeat_not_registered (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    s_register (actor, "r1", "alpha", 1, 2, 1);
    s_heartbeat_refused (actor, "r1", "ghost", 1, 0, 20);
    s_heartbeat_refused (actor, "r9", "alpha", 1, 0, 21);
    s_heartbeat_refused (actor, "r1", "alpha", 2, 0, 22);
    s_heartbeat (actor, "r1", "alpha", 1, 9, 23);
    s_expect_stats (actor, "alpha", 9);
}

//  A new epoch from another route while the worker is registered is
//  another agent with the same id: 423, and the registered one stays (it
//  used to be LOST "restarted", and the two took turns forever). Once the
//  first has left, the new epoch registers. The same epoch from a new
//  route says UP again; from the same route only WELCOME
static void
test_restart_and_reconnect (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    s_register (actor, "r1", "alpha", 1, 2, 1);
    s_hello (actor, "r2", "alpha", 2, 2, 2);
    s_expect_error (actor, "r2", DROVER_CODE_ID_IN_USE, 2);
    s_heartbeat (actor, "r1", "alpha", 1, 7, 3);
    s_expect_stats (actor, "alpha", 7);                 //  still the registered one
    drover_msg_t *goodbye = drover_msg_new (DROVER_MSG_WORKER_GOODBYE);
    strcpy (goodbye->worker, "alpha");
    goodbye->epoch = 1;
    testutil_hand (actor, "r1", goodbye);
    s_expect_lost (actor, "alpha", "left");
    s_register (actor, "r2", "alpha", 2, 2, 2);
    //  Reconnected: same epoch, new routing id
    s_register (actor, "r3", "alpha", 2, 2, 3);
    s_heartbeat_refused (actor, "r2", "alpha", 2, 0, 4);       //  the old route is stale
    //  A repeated HELLO: only WELCOME, nothing said to the others
    s_hello (actor, "r3", "alpha", 2, 2, 5);
    drover_msg_t *welcome = testutil_expect_send (actor, "r3", "alpha");
    assert_int_equal (welcome->id, DROVER_MSG_WORKER_WELCOME);
    assert_int_equal (welcome->seq, 5);
    drover_msg_destroy (&welcome);
    s_heartbeat (actor, "r3", "alpha", 2, 1, 6);
    s_expect_stats (actor, "alpha", 1);
}

//  Past max-workers a new worker gets 302; a known one still registers
static void
test_max_workers (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    s_register (actor, "r1", "w1", 1, 1, 1);
    s_register (actor, "r2", "w2", 1, 1, 2);
    s_register (actor, "r3", "w3", 1, 1, 3);
    s_hello (actor, "r4", "w4", 1, 1, 4);
    s_expect_error (actor, "r4", DROVER_CODE_TOO_MANY, 4);
    s_hello (actor, "r3", "w3", 2, 1, 5);               //  a restart is not a new worker
    s_expect_lost (actor, "w3", "restarted");
    s_expect_registered (actor, "r3", "w3", 2, 5);
    //  One leaves: room for another
    drover_msg_t *goodbye = drover_msg_new (DROVER_MSG_WORKER_GOODBYE);
    strcpy (goodbye->worker, "w1");
    goodbye->epoch = 1;
    testutil_hand (actor, "r1", goodbye);
    s_expect_lost (actor, "w1", "left");
    s_register (actor, "r4", "w4", 1, 1, 6);
}

//  GOODBYE from the registered route: LOST "left"; from another, ignored
static void
test_goodbye (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    s_register (actor, "r1", "alpha", 1, 2, 1);
    drover_msg_t *goodbye = drover_msg_new (DROVER_MSG_WORKER_GOODBYE);
    strcpy (goodbye->worker, "alpha");
    goodbye->epoch = 1;
    testutil_hand (actor, "r2", goodbye);                      //  not its route
    s_heartbeat (actor, "r1", "alpha", 1, 4, 2);
    s_expect_stats (actor, "alpha", 4);                 //  still registered
    goodbye = drover_msg_new (DROVER_MSG_WORKER_GOODBYE);
    strcpy (goodbye->worker, "alpha");
    goodbye->epoch = 1;
    testutil_hand (actor, "r1", goodbye);
    s_expect_lost (actor, "alpha", "left");
    s_heartbeat_refused (actor, "r1", "alpha", 1, 0, 3);        //  forgotten
}

//  Silence for lost-after: LOST "silent", not before; HEARD from the
//  worker's route keeps it alive; a lost worker may say HELLO again
static void
test_lost_after_silence (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    zsock_send (actor, "s44444", "CONFIGURE", 100, 1000, 10, 0, 0);
    s_register (actor, "r1", "alpha", 1, 2, 1);
    //  Heard every ~200 msec for 1.4 s: more than lost-after, never lost
    zframe_t *route = zframe_new ("r1", 2);
    for (int round = 0; round < 7; round++) {
        zmsg_t *early = testutil_actor_recv (actor, 200);
        assert_null (early);
        zsock_send (actor, "ssf", "HEARD", "alpha", route);
    }
    zframe_destroy (&route);
    int64_t heard = zclock_mono ();
    s_expect_lost (actor, "alpha", "silent");
    assert_true (zclock_mono () - heard >= 900);         //  not before lost-after
    s_heartbeat_refused (actor, "r1", "alpha", 1, 0, 2);
    s_register (actor, "r1", "alpha", 1, 2, 3);            //  same epoch, forgotten: UP
}


//  Say HELLO and return the heartbeat interval its WELCOME told; expect UP
static uint32_t
s_register_interval (zactor_t *actor, const char *route, const char *worker, uint32_t seq)
{
    s_hello (actor, route, worker, 1, 1, seq);
    drover_msg_t *welcome = testutil_expect_send (actor, route, worker);
    assert_int_equal (welcome->id, DROVER_MSG_WORKER_WELCOME);
    uint32_t interval = welcome->heartbeat;
    drover_msg_destroy (&welcome);
    zmsg_t *up = testutil_expect (actor, "UP", 2000);
    zmsg_destroy (&up);
    testutil_expect_event (actor, "worker.up", worker, "");
    return interval;
}

//  The interval grows with the fleet (heartbeat 100, rate 20: 50 msec a
//  worker, in whole heartbeats), and each worker may be silent lost-after
//  times the heartbeats its interval spans
static void
test_interval_scales_with_fleet (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    zsock_send (actor, "s44444", "CONFIGURE", 100, 300, 10, 20, 0);
    uint32_t expected [] = { 100, 100, 200, 200, 300 };
    const char *names [] = { "w1", "w2", "w3", "w4", "w5" };
    int64_t start = zclock_mono ();
    for (int index = 0; index < 5; index++)
        assert_int_equal (s_register_interval (actor, names [index], names [index],
                                               (uint32_t) index + 1), expected [index]);
    //  All silent from now: w1, w2 after 300, w3, w4 after 600, w5 after 900
    for (int index = 0; index < 5; index++) {
        s_expect_lost (actor, names [index], "silent");
        int64_t waited = zclock_mono () - start;
        assert_true (waited >= (int64_t) expected [index] * 3 - 50);
    }
}

//  A worker silent in the grace after start is not lost; once the grace
//  is over it is, and the grace's end is an event
static void
test_grace_holds_lost (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    int64_t start = zclock_mono ();
    zsock_send (actor, "s44444", "CONFIGURE", 100, 300, 10, 0, 1500);
    s_register (actor, "r1", "alpha", 1, 1, 1);
    //  Silent for 4 x lost-after, inside the grace: nothing said
    assert_null (testutil_actor_recv (actor, 1200));
    testutil_expect_event (actor, "worker.grace", "", "over after 1500 msec");
    assert_true (zclock_mono () - start >= 1450);
    s_expect_lost (actor, "alpha", "silent");
    //  A worker registered after the grace is judged at once
    s_register (actor, "r2", "beta", 1, 1, 2);
    int64_t registered = zclock_mono ();
    s_expect_lost (actor, "beta", "silent");
    assert_true (zclock_mono () - registered < 1000);
}

//  Say HELLO from route, naming a state id and one running attempt
static void
s_hello_running (zactor_t *actor, const char *route, const char *worker, uint64_t epoch,
                 const char *state_id, uint64_t task, uint32_t seq)
{
    drover_msg_t *hello = drover_msg_new (DROVER_MSG_WORKER_HELLO);
    snprintf (hello->worker, sizeof hello->worker, "%s", worker);
    hello->epoch = epoch;
    hello->procs = 2;
    hello->seq = seq;
    strcpy (hello->state_id, state_id);
    hello->nrunning = 1;
    hello->running = (drover_taskref_t *) zmalloc (sizeof (drover_taskref_t));
    hello->running [0].task = task;
    hello->running [0].attempt = 1;
    testutil_hand (actor, route, hello);
}

//  Expect WELCOME carrying state_id, then UP listing running attempts
//  (0 or 1, of task), then worker.up
static void
s_expect_up_running (zactor_t *actor, const char *route, const char *worker,
                     const char *state_id, uint32_t running, uint64_t task)
{
    drover_msg_t *welcome = testutil_expect_send (actor, route, worker);
    assert_int_equal (welcome->id, DROVER_MSG_WORKER_WELCOME);
    assert_string_equal (welcome->state_id, state_id);
    drover_msg_destroy (&welcome);
    zmsg_t *up = testutil_expect (actor, "UP", 2000);
    testutil_pop_check (up, worker);
    testutil_pop_check (up, route);
    for (int field = 0; field < 4; field++) {     //  epoch, procs, mem, labels
        char *skipped = zmsg_popstr (up);
        zstr_free (&skipped);
    }
    zframe_t *frame = zmsg_pop (up);
    assert_int_equal (zframe_size (frame), running * sizeof (drover_taskref_t));
    if (running) {
        drover_taskref_t ref;
        memcpy (&ref, zframe_data (frame), sizeof ref);
        assert_true (ref.task == task);
    }
    zframe_destroy (&frame);
    zmsg_destroy (&up);
    testutil_expect_event (actor, "worker.up", worker, "");
}

//  STATE sets the state id WELCOME carries (none until it is heard). A
//  HELLO naming another state id lists attempts of another state: UP goes
//  with none of them, so assign adopts nothing (before, a wiped broker
//  adopted them as its own tasks of the same ids). A HELLO naming ours,
//  or none (a worker that never had one), keeps its list.
static void
test_hello_of_another_state_adopts_nothing (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    const char *ours = "0123456789abcdef0123456789abcdef";
    const char *theirs = "fedcba9876543210fedcba9876543210";
    zsock_send (actor, "s44444", "CONFIGURE", 250, 60000, 10, 0, 0);
    s_hello_running (actor, "r0", "early", 1, "", 5, 1);
    s_expect_up_running (actor, "r0", "early", "", 1, 5);
    zsock_send (actor, "ss", "STATE", ours);
    s_hello_running (actor, "r1", "alpha", 1, theirs, 42, 2);
    s_expect_up_running (actor, "r1", "alpha", ours, 0, 0);
    s_hello_running (actor, "r2", "beta", 1, ours, 43, 3);
    s_expect_up_running (actor, "r2", "beta", ours, 1, 43);
    s_hello_running (actor, "r3", "gamma", 1, "", 44, 4);
    s_expect_up_running (actor, "r3", "gamma", ours, 1, 44);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_hello_welcome_up, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_hello_validation, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_heartbeat_not_registered, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_restart_and_reconnect, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_max_workers, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_goodbye, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_lost_after_silence, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_interval_scales_with_fleet, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_grace_holds_lost, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_hello_of_another_state_adopts_nothing, s_setup,
                                         s_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
