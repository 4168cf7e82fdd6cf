/*  =========================================================================
    test_drover_probation_actor - the probation actor through its pipe: enter on
    a failure, clear on success or after the timeout, reset on repeated
    failure, forget on LOST
    =========================================================================
*/

#include "testutil_actor.h"
#include "drover_probation_actor.h"

//  The probation timeout the actor was configured with, msec
static uint32_t s_timeout = 60000;

//  Configure the actor's probation timeout
static void
s_configure (zactor_t *actor, uint32_t timeout)
{
    zsock_send (actor, "s4", "CONFIGURE", timeout);
    s_timeout = timeout;
}

//  Expect PROBATION worker reason until, without its event; until (msec
//  since the epoch) is timeout from about now
static void
s_expect_probation_only (zactor_t *actor, const char *worker, const char *reason,
                         uint32_t timeout)
{
    int64_t before = zclock_time ();
    zmsg_t *msg = testutil_expect (actor, "PROBATION", 2000);
    testutil_pop_check (msg, worker);
    testutil_pop_check (msg, reason);
    char *until = zmsg_popstr (msg);
    assert_non_null (until);
    int64_t value = (int64_t) strtoull (until, NULL, 10);
    assert_true (value >= before - 2000 + (int64_t) timeout);
    assert_true (value <= zclock_time () + (int64_t) timeout);
    zstr_free (&until);
    zmsg_destroy (&msg);
}

//  Expect PROBATION worker reason until and its event
static void
s_expect_probation (zactor_t *actor, const char *worker, const char *reason)
{
    s_expect_probation_only (actor, worker, reason, s_timeout);
    testutil_expect_event (actor, "worker.probation", worker, reason);
}

//  Expect CLEARED worker why within timeout, and its event
static void
s_expect_cleared (zactor_t *actor, const char *worker, const char *why, int timeout)
{
    zmsg_t *msg = testutil_expect (actor, "CLEARED", timeout);
    testutil_pop_check (msg, worker);
    testutil_pop_check (msg, why);
    zmsg_destroy (&msg);
    testutil_expect_event (actor, "worker.cleared", worker, why);
}

static int
s_setup (void **state)
{
    zactor_t *actor = zactor_new (drover_probation_actor, NULL);
    assert_non_null (actor);
    s_configure (actor, 60000);
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

//  Failure while OK enters; failure while on probation says PROBATION again
//  with its new end, without an event; a success clears; a success while OK
//  says nothing
static void
test_enter_and_clear_by_success (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    zsock_send (actor, "sss", "FAILURE", "alpha", "send refused");
    s_expect_probation (actor, "alpha", "send refused");
    zsock_send (actor, "sss", "FAILURE", "alpha", "offer not acknowledged");
    s_expect_probation_only (actor, "alpha", "offer not acknowledged", s_timeout);
    zsock_send (actor, "ss", "SUCCESS", "alpha");
    s_expect_cleared (actor, "alpha", "success", 2000);     //  nothing came before it
    zsock_send (actor, "ss", "SUCCESS", "alpha");
    zsock_send (actor, "sss", "FAILURE", "beta", "send refused");
    s_expect_probation (actor, "beta", "send refused");     //  nothing came before it
}

//  UNSENT worker (the main's send to it was refused) is a failure "send
//  refused"; a SUCCESS after it, in the same read, still clears it: the
//  actor hears both, in order, whatever it holds back
static void
test_unsent_is_a_failure (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    zsock_send (actor, "ss", "UNSENT", "alpha");
    s_expect_probation (actor, "alpha", "send refused");
    drover_outbox_t *outbox = drover_outbox_new ();
    drover_outbox_say (outbox, "ss", "SUCCESS", "beta");
    drover_outbox_say (outbox, "ss", "UNSENT", "beta");
    drover_outbox_say (outbox, "ss", "SUCCESS", "beta");
    assert_int_equal (drover_outbox_flush (outbox, zactor_sock (actor)), 0);
    drover_outbox_destroy (&outbox);
    s_expect_probation (actor, "beta", "send refused");
    s_expect_cleared (actor, "beta", "success", 2000);
}

//  Probation runs out after the timeout, not before
static void
test_clear_by_timeout (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    s_configure (actor, 300);
    int64_t start = zclock_mono ();
    zsock_send (actor, "sss", "FAILURE", "alpha", "send refused");
    s_expect_probation (actor, "alpha", "send refused");
    s_expect_cleared (actor, "alpha", "timeout", 3000);
    assert_true (zclock_mono () - start >= 300);
}

//  A failure while on probation restarts the timer
static void
test_repeated_failure_resets_timer (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    s_configure (actor, 600);
    zsock_send (actor, "sss", "FAILURE", "alpha", "send refused");
    s_expect_probation (actor, "alpha", "send refused");
    assert_null (testutil_actor_recv (actor, 300));   //  still on probation
    int64_t again = zclock_mono ();
    zsock_send (actor, "sss", "FAILURE", "alpha", "send refused again");
    s_expect_probation_only (actor, "alpha", "send refused again", 600);     //  moved on
    s_expect_cleared (actor, "alpha", "timeout", 3000);
    assert_true (zclock_mono () - again >= 550);              //  600 from the second failure
}

//  A lost worker is forgotten: no CLEARED for it, ever
static void
test_lost_forgets (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    s_configure (actor, 200);
    zsock_send (actor, "sss", "FAILURE", "alpha", "send refused");
    s_expect_probation (actor, "alpha", "send refused");
    zsock_send (actor, "sss", "LOST", "alpha", "silent");
    zsock_send (actor, "ss", "SUCCESS", "alpha");
    zsock_send (actor, "sss", "FAILURE", "beta", "send refused");
    s_expect_probation (actor, "beta", "send refused");
    s_expect_cleared (actor, "beta", "timeout", 3000);        //  and not alpha
    zsock_send (actor, "s", "VERBOSE");
    zsock_send (actor, "sss", "FAILURE", "alpha", "send refused");
    s_expect_probation (actor, "alpha", "send refused");      //  OK again after LOST
}

//  A failure that arrives after LOST puts a worker on probation nobody has; when it
//  registers again it must start off probation, and schedq must hear CLEARED
static void
test_failure_after_lost_is_cleared_on_registration (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    zsock_send (actor, "sss", "LOST", "alpha", "silent");
    zsock_send (actor, "sss", "FAILURE", "alpha", "offer not acknowledged");
    s_expect_probation (actor, "alpha", "offer not acknowledged");
    zframe_t *route = zframe_new ("r1", 2);
    zframe_t *running = zframe_new_empty ();
    zsock_send (actor, "ssf848sf", "UP", "alpha", route, (uint64_t) 2, 4, (uint64_t) 0, "", running);
    s_expect_cleared (actor, "alpha", "registered", 2000);
    zsock_send (actor, "ssf848sf", "UP", "beta", route, (uint64_t) 1, 4, (uint64_t) 0, "", running);
    zsock_send (actor, "sss", "FAILURE", "alpha", "send refused");
    s_expect_probation (actor, "alpha", "send refused");    //  nothing said for beta
    zframe_destroy (&running);
    zframe_destroy (&route);
}

//  Say UP for worker from route
static void
s_up (zactor_t *actor, const char *worker, const char *route)
{
    zframe_t *frame = zframe_new (route, strlen (route));
    zframe_t *running = zframe_new_empty ();
    zsock_send (actor, "ssf848sf", "UP", worker, frame, (uint64_t) 1, 4, (uint64_t) 0, "",
                running);
    zframe_destroy (&running);
    zframe_destroy (&frame);
}

//  Say UNSENT worker route: a send on route was refused
static void
s_unsent (zactor_t *actor, const char *worker, const char *route)
{
    zframe_t *frame = zframe_new (route, strlen (route));
    zsock_send (actor, "ssf", "UNSENT", worker, frame);
    zframe_destroy (&frame);
}

//  A send refused on a connection the worker's newer registration replaced
//  is not its failure; one on its current registration is
static void
test_unsent_on_replaced_connection_forgiven (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    s_up (actor, "alpha", "r-old");
    s_up (actor, "alpha", "r-new");
    s_unsent (actor, "alpha", "r-old");
    s_up (actor, "beta", "r-beta");
    s_unsent (actor, "beta", "r-beta");
    s_expect_probation (actor, "beta", "send refused");    //  nothing for alpha before
    s_unsent (actor, "alpha", "r-new");
    s_expect_probation (actor, "alpha", "send refused");
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_enter_and_clear_by_success, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_unsent_is_a_failure, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_unsent_on_replaced_connection_forgiven, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_clear_by_timeout, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_repeated_failure_resets_timer, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_lost_forgets, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_failure_after_lost_is_cleared_on_registration,
                                         s_setup, s_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
