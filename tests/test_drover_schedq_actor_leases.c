/*  =========================================================================
    test_drover_schedq_actor_leases - the schedq actor's leases
    (ACTORS.md, "Leases") through its pipe and its link (the test plays
    the main and assign): idle workers lent to assign, taken and revoked,
    held while lent, revoked on a drain, and a hold answered once the
    lease is back.
    =========================================================================
*/

#include "testutil_schedq.h"

//  Start the actor lending up to two idle workers to assign
static int
s_setup_leases (void **state)
{
    testutil_schedq_setup (state);
    zsock_send ((zactor_t *) *state, "s444", "CONFIGURE", 100, 0, 2);
    return 0;
}

//  Expect LEASE of a worker's procs on the link; returns the lease id
static uint64_t
s_expect_lease (const char *worker, const char *procs, const char *labels)
{
    zmsg_t *msg = testutil_expect_link (testutil_schedq_link, "LEASE", 2000);
    char *id = zmsg_popstr (msg);
    uint64_t lease = strtoull (id, NULL, 10);
    assert_true (lease > 0);
    zstr_free (&id);
    testutil_pop_check (msg, worker);
    testutil_pop_check (msg, procs);
    zframe_t *mem = zmsg_pop (msg);
    zframe_destroy (&mem);
    testutil_pop_check (msg, labels);
    zmsg_destroy (&msg);
    return lease;
}

//  Expect REVOKE of a lease on the link
static void
s_expect_revoke (uint64_t lease)
{
    zmsg_t *msg = testutil_expect_link (testutil_schedq_link, "REVOKE", 2000);
    char *id = zmsg_popstr (msg);
    assert_int_equal (strtoull (id, NULL, 10), lease);
    zstr_free (&id);
    zmsg_destroy (&msg);
}

//  An idle worker is lent to assign; a task taken from the lease is
//  assigned there; a request that waits gets the lease revoked, and is
//  placed once it comes back; what is free is lent again
static void
test_lease_lent_taken_revoked (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    testutil_schedq_up (actor, "alpha", "r-alpha", 4, 1000, "zone=a");
    uint64_t lease = s_expect_lease ("alpha", "4", "zone=a");
    drover_outbox_t *outbox = drover_outbox_new ();
    drover_outbox_say_take (outbox, lease, 1, 2, 100, "zone=a", NULL);
    testutil_say_batch (testutil_schedq_link, &outbox);
    testutil_schedq_queue (actor, 2, 0, 1, 0, "");
    s_expect_revoke (lease);                            //  the TAKE was read before
    assert_int_equal (testutil_schedq_procs_used (actor, "alpha"), 2);    //  lent is not used
    testutil_schedq_quiet (actor);                                    //  held until RETURN
    zsock_send (testutil_schedq_link, "s8", "RETURN", lease);
    uint64_t tasks [] = { 2 };
    const char *alphas [] = { "alpha" };
    testutil_schedq_expect_assign (actor, 1, tasks, alphas);
    uint64_t again = s_expect_lease ("alpha", "1", "zone=a");
    assert_true (again != lease);
    assert_int_equal (testutil_schedq_procs_used (actor, "alpha"), 3);
    zsock_send (testutil_schedq_link, "s8", "RETURN", lease);         //  twice: ignored
    testutil_schedq_quiet (actor);
}

//  While a lease is out and nothing waits, schedq leaves its sockets unread
//  for a millisecond or more after each turn, so that TAKE and FREE for
//  leased tasks do not wake it for each task: two WORKER LISTs in a row
//  take at least that. A request that waits ends it: the lease is revoked
//  and its RETURN read.
static void
test_held_while_lent (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    testutil_schedq_up (actor, "alpha", "r-alpha", 4, 1000, "");
    uint64_t lease = s_expect_lease ("alpha", "4", "");
    for (int round = 0; round < 3; round++) {
        int64_t asked = zclock_usecs ();
        drover_msg_t *table = testutil_schedq_list_only (actor, 1);      //  its turn ends in a hold
        drover_msg_destroy (&table);
        table = testutil_schedq_list_only (actor, 2);                     //  read once the hold is over
        drover_msg_destroy (&table);
        int64_t took = zclock_usecs () - asked;
        if (took < 1000)
            fail_msg ("two WORKER LISTs answered in %" PRId64 " usec while a lease is out", took);
    }
    testutil_schedq_queue (actor, 1, 0, 8, 0, "");        //  fits nowhere: it waits, the lease is revoked
    s_expect_revoke (lease);
    zsock_send (testutil_schedq_link, "s8", "RETURN", lease);
    assert_int_equal (testutil_schedq_procs_used (actor, "alpha"), 0);    //  the RETURN was read
    testutil_schedq_quiet (actor);
}

//  Send WORKER ADMIN without waiting for its answer
static void
s_admin_send (zactor_t *actor, const char *worker, int admin, uint32_t flags, uint32_t seq)
{
    drover_msg_t *request = drover_msg_new (DROVER_MSG_WORKER_ADMIN);
    snprintf (request->worker, sizeof request->worker, "%s", worker);
    request->admin = (uint8_t) admin;
    request->seq = seq;
    request->flags = flags;
    testutil_hand (actor, "client", request);
}

//  Expect the OK to the WORKER ADMIN with seq
static void
s_expect_admin_ok (zactor_t *actor, uint32_t seq)
{
    drover_msg_t *reply = testutil_expect_send (actor, "client", "");
    assert_int_equal (reply->id, DROVER_MSG_OK);
    assert_int_equal (reply->seq, seq);
    drover_msg_destroy (&reply);
}

//  A lent worker that is drained gets its lease revoked; the drain is
//  answered once the lease is back, and the worker told to leave once its
//  task is done too
static void
test_lease_revoked_on_drain (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    testutil_schedq_up (actor, "alpha", "r-alpha", 2, 0, "");
    uint64_t lease = s_expect_lease ("alpha", "2", "");
    drover_outbox_t *outbox = drover_outbox_new ();
    drover_outbox_say_take (outbox, lease, 1, 1, 0, "", NULL);
    testutil_say_batch (testutil_schedq_link, &outbox);
    s_admin_send (actor, "alpha", DROVER_ADMIN_DRAIN, DROVER_ADMIN_EXIT, 1);
    testutil_expect_event (actor, "worker.drain", "alpha", "");
    s_expect_revoke (lease);
    testutil_say_free (testutil_schedq_link, (uint64_t) 1);
    testutil_schedq_quiet (actor);                                    //  the lease is still out: no OK
    zsock_send (testutil_schedq_link, "s8", "RETURN", lease);
    s_expect_admin_ok (actor, 1);
    drover_msg_t *leave = testutil_expect_send (actor, "r-alpha", "alpha");
    assert_int_equal (leave->id, DROVER_MSG_WORKER_LEAVE);
    drover_msg_destroy (&leave);
    testutil_schedq_quiet (actor);
}

//  A hold of a lent worker is answered only once assign gave the lease
//  back: assign may place on the lease until it reads the REVOKE, and an
//  earlier OK would let the operator's next submit land there. A hold of
//  a worker lent nothing is answered at once; one lost meanwhile too.
static void
test_hold_answered_once_lease_is_back (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    testutil_schedq_up (actor, "alpha", "r-alpha", 2, 0, "");
    uint64_t lease = s_expect_lease ("alpha", "2", "");
    s_admin_send (actor, "alpha", DROVER_ADMIN_HOLD, 0, 5);
    testutil_expect_event (actor, "worker.hold", "alpha", "");
    s_expect_revoke (lease);
    testutil_schedq_quiet (actor);                                    //  no OK while the lease is out
    zsock_send (testutil_schedq_link, "s8", "RETURN", lease);
    s_expect_admin_ok (actor, 5);
    testutil_schedq_quiet (actor);                                    //  held: nothing lent again
    testutil_schedq_admin (actor, "alpha", DROVER_ADMIN_HOLD, 6, DROVER_CODE_OK);     //  no lease: at once

    testutil_schedq_up (actor, "beta", "r-beta", 2, 0, "");
    uint64_t beta_lease = s_expect_lease ("beta", "2", "");
    s_admin_send (actor, "beta", DROVER_ADMIN_DRAIN, 0, 7);
    testutil_expect_event (actor, "worker.drain", "beta", "");
    s_expect_revoke (beta_lease);
    testutil_schedq_quiet (actor);
    zsock_send (actor, "sss", "LOST", "beta", "silent");
    s_expect_admin_ok (actor, 7);                       //  its lease went with it
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_lease_lent_taken_revoked, s_setup_leases,
                                         testutil_schedq_teardown),
        cmocka_unit_test_setup_teardown (test_lease_revoked_on_drain, s_setup_leases,
                                         testutil_schedq_teardown),
        cmocka_unit_test_setup_teardown (test_hold_answered_once_lease_is_back, s_setup_leases,
                                         testutil_schedq_teardown),
        cmocka_unit_test_setup_teardown (test_held_while_lent, s_setup_leases,
                                         testutil_schedq_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
