/*  =========================================================================
    test_drover_schedq_actor_share - the schedq actor shared by owners:
    QUEUE records' owners in fair order, the devices UP says, the share
    settings of CONFIGURE and QUOTAS to assign, SHARE ADMIN with and
    without the store keeping it, the store's SHARE at start
    =========================================================================
*/

#include "testutil_schedq.h"

//  Say QUEUE for a request of an owner, with devices (NULL none)
static void
s_queue_as (uint64_t task, const char *owner, const char *devices)
{
    drover_outbox_t *outbox = drover_outbox_new ();
    drover_tenancy_t tenancy = { owner, devices, 0 };
    drover_outbox_say_queue (outbox, task, 0, 1, 0, "", &tenancy);
    testutil_say_batch (testutil_schedq_link, &outbox);
}

//  Say UP for a worker with devices
static void
s_up_with (zactor_t *actor, const char *worker, uint32_t procs, const char *devices)
{
    zframe_t *frame = zframe_new (worker, strlen (worker));
    zframe_t *running = zframe_new_empty ();
    zsock_send (actor, "ssf848sf4ss", "UP", worker, frame, (uint64_t) 1, procs, (uint64_t) 0, "",
                running, (uint32_t) DROVER_MSG_LEVEL, DROVER_RELEASE, devices);
    zframe_destroy (&running);
    zframe_destroy (&frame);
}

//  Expect QUOTAS on the link with these texts
static void
s_expect_quotas (const char *accounts, const char *quotas)
{
    zmsg_t *msg = testutil_expect_link (testutil_schedq_link, "QUOTAS", 2000);
    testutil_pop_check (msg, accounts);
    testutil_pop_check (msg, quotas);
    zmsg_destroy (&msg);
}

//  Send SHARE ADMIN set of a name; returns the message to fill more first
static drover_msg_t *
s_share_admin (int action, const char *name, uint32_t seq)
{
    drover_msg_t *request = drover_msg_new (DROVER_MSG_SHARE_ADMIN);
    request->action = (uint8_t) action;
    snprintf (request->owner, sizeof request->owner, "%s", name);
    request->seq = seq;
    return request;
}

//  Two owners queue in turn, alice first with all her tasks: the worker
//  goes half to each, whatever the arrival order
static void
test_owners_in_fair_order (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    testutil_schedq_up (actor, "alpha", "r-alpha", 4, 0, "");
    for (uint64_t task = 1; task <= 4; task++)
        s_queue_as (task, "alice", NULL);
    uint64_t alice [] = { 1, 2, 3, 4 };
    const char *workers [] = { "alpha", "alpha", "alpha", "alpha" };
    testutil_schedq_expect_assign (actor, 4, alice, workers);
    for (uint64_t task = 11; task <= 14; task++)
        s_queue_as (task, "bob", NULL);
    for (uint64_t task = 5; task <= 8; task++)
        s_queue_as (task, "alice", NULL);
    //  As alice's end, bob's run until they hold half
    testutil_say_free (testutil_schedq_link, 1);
    testutil_schedq_expect_one (actor, 11, "alpha");
    testutil_say_free (testutil_schedq_link, 2);
    testutil_schedq_expect_one (actor, 12, "alpha");
    testutil_say_free (testutil_schedq_link, 3);
    testutil_schedq_expect_one (actor, 5, "alpha");     //  2 and 2: alice's name first
    testutil_schedq_quiet (actor);
}

//  UP's devices: a task asking a gpu goes only where one is free
static void
test_devices_from_up (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    s_up_with (actor, "plain", 8, "");
    s_up_with (actor, "gpus", 4, "gpu=1");
    s_queue_as (1, "alice", "gpu=1");
    testutil_schedq_expect_one (actor, 1, "gpus");
    s_queue_as (2, "alice", "gpu=1");
    testutil_schedq_quiet (actor);
    testutil_say_free (testutil_schedq_link, 1);
    testutil_schedq_expect_one (actor, 2, "gpus");
}

//  CONFIGURE's share settings: QUOTAS once after it; a quota holds an
//  owner's requests
static void
test_configure_shares_and_quota (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    zsock_send (actor, "s4444444sss44", "CONFIGURE", 100, 0, 0, 3600000, 10, 0, 2000,
                "team:alice,bob", "team=2", "alice:procs=1", 1, 4);
    s_expect_quotas ("team:alice,bob", "alice:procs=1");
    testutil_schedq_up (actor, "alpha", "r-alpha", 4, 0, "");
    s_queue_as (1, "alice", NULL);
    s_queue_as (2, "alice", NULL);
    testutil_schedq_expect_one (actor, 1, "alpha");
    testutil_schedq_quiet (actor);      //  2 waits at alice's quota
    testutil_say_free (testutil_schedq_link, 1);
    testutil_schedq_expect_one (actor, 2, "alpha");
}

//  SHARE ADMIN without a store: OK, QUOTAS, and drop; unknown drop 404;
//  a bad change 400
static void
test_share_admin (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    drover_msg_t *request = s_share_admin (DROVER_SHARE_SET, "team-a", 7);
    request->weight = 3;
    request->members = strdup ("alice,bob");
    request->quota_procs = 8;
    testutil_hand (actor, "client", request);
    s_expect_quotas ("team-a:alice,bob", "team-a:procs=8");
    drover_msg_t *reply = testutil_expect_send (actor, "client", "");
    assert_int_equal (reply->id, DROVER_MSG_OK);
    assert_int_equal (reply->seq, 7);
    assert_string_equal (reply->reason, "share team-a set");
    drover_msg_destroy (&reply);
    //  alice in a second account: refused, naming the setting
    request = s_share_admin (DROVER_SHARE_SET, "team-b", 8);
    request->members = strdup ("alice");
    testutil_hand (actor, "client", request);
    reply = testutil_expect_send (actor, "client", "");
    assert_int_equal (reply->code, DROVER_CODE_BAD_REQUEST);
    assert_non_null (strstr (reply->reason, "alice"));
    drover_msg_destroy (&reply);
    request = s_share_admin (DROVER_SHARE_DROP, "team-a", 9);
    testutil_hand (actor, "client", request);
    s_expect_quotas ("", "");
    reply = testutil_expect_send (actor, "client", "");
    assert_int_equal (reply->id, DROVER_MSG_OK);
    drover_msg_destroy (&reply);
    request = s_share_admin (DROVER_SHARE_DROP, "team-a", 10);
    testutil_hand (actor, "client", request);
    reply = testutil_expect_send (actor, "client", "");
    assert_int_equal (reply->code, DROVER_CODE_NOT_FOUND);
    drover_msg_destroy (&reply);
}

//  With the store keeping state, the OK rides on KEEPSHARE; the store's
//  SHARE at start sets a share again
static void
test_keepshare_and_kept (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    zsock_send (actor, "s444444", "CONFIGURE", 100, 0, 0, 3600000, 10, 1);
    zsock_send (actor, "ss4ss", "SHARE", "carol", 5, "-", "queued=10");
    s_expect_quotas ("", "carol:queued=10");
    drover_msg_t *request = s_share_admin (DROVER_SHARE_SET, "dave", 12);
    request->quota_queued = 3;
    testutil_hand (actor, "client", request);
    zmsg_t *keep = testutil_expect (actor, "KEEPSHARE", 2000);
    testutil_pop_check (keep, "dave");
    char *weight = zmsg_popstr (keep);
    assert_string_equal (weight, "1");  //  the weight in force: none given
    zstr_free (&weight);
    testutil_pop_check (keep, "-");
    testutil_pop_check (keep, "queued=3");
    zframe_t *route = zmsg_pop (keep);
    assert_non_null (route);
    zframe_destroy (&route);
    testutil_pop_check (keep, "12");
    testutil_pop_check (keep, "share dave set");
    zmsg_destroy (&keep);
    s_expect_quotas ("", "carol:queued=10;dave:queued=3");
    request = s_share_admin (DROVER_SHARE_DROP, "carol", 13);
    testutil_hand (actor, "client", request);
    keep = testutil_expect (actor, "KEEPSHARE", 2000);
    testutil_pop_check (keep, "carol");
    testutil_pop_check (keep, "0");     //  dropped: the store deletes it
    zmsg_destroy (&keep);
}

//  SHARE LIST: each account, then its owners; WORKER TABLE: devices
static void
test_share_table_and_devices_listed (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    s_up_with (actor, "gpus", 4, "gpu=2");
    s_queue_as (1, "alice", "gpu=1");
    testutil_schedq_expect_one (actor, 1, "gpus");
    drover_msg_t *table = testutil_schedq_list_only (actor, 3);
    drover_worker_row_t *row = testutil_schedq_row (table, "gpus");
    assert_string_equal (row->devices, "gpu=2");
    assert_string_equal (row->devices_used, "gpu=1");
    drover_msg_destroy (&table);
    drover_msg_t *request = drover_msg_new (DROVER_MSG_SHARE_LIST);
    request->seq = 4;
    testutil_hand (actor, "client", request);
    drover_msg_t *reply = testutil_expect_send (actor, "client", "");
    assert_int_equal (reply->id, DROVER_MSG_SHARE_TABLE);
    assert_int_equal (reply->seq, 4);
    //  nobody's ("-", known from the start) and alice: an account row and
    //  an owner row each
    bool found = false;
    for (uint32_t index = 0; index < reply->nshares; index++) {
        const drover_share_row_t *share = &reply->share_rows [index];
        if (share->kind == 1 && streq (share->name, "alice")) {
            assert_int_equal (share->procs, 1);
            assert_int_equal (share->share, 500);      //  one gpu of two
            assert_string_equal (share->resource, "gpu");
            assert_string_equal (share->account, "alice");
            assert_string_equal (share->devices, "gpu=1");
            found = true;
        }
        if (share->kind == 0 && streq (share->name, "alice"))
            assert_int_equal (share->fair, 1000);       //  the only account with work
        if (share->kind == 0 && streq (share->name, "-"))
            assert_int_equal (share->fair, 0);          //  nothing running or queued
    }
    assert_true (found);
    drover_msg_destroy (&reply);
}

//  With sched/preemption on, a task of higher priority has the newest
//  preemptible task of another account stopped: PREEMPT on the link
static void
test_preempt_said (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    zsock_send (actor, "s4444444sss44", "CONFIGURE", 100, 0, 0, 3600000, 10, 0, 2000,
                "", "", "", 1, 4);
    s_expect_quotas ("", "");
    testutil_schedq_up (actor, "alpha", "r-alpha", 2, 0, "");
    drover_outbox_t *outbox = drover_outbox_new ();
    drover_tenancy_t bob = { "bob", NULL, DROVER_SUBMIT_PREEMPTIBLE };
    drover_outbox_say_queue (outbox, 1, 5, 1, 0, "", &bob);
    drover_outbox_say_queue (outbox, 2, 5, 1, 0, "", &bob);
    testutil_say_batch (testutil_schedq_link, &outbox);
    uint64_t tasks [] = { 1, 2 };
    const char *workers [] = { "alpha", "alpha" };
    testutil_schedq_expect_assign (actor, 2, tasks, workers);
    outbox = drover_outbox_new ();
    drover_tenancy_t alice = { "alice", NULL, 0 };
    drover_outbox_say_queue (outbox, 9, 0, 1, 0, "", &alice);
    testutil_say_batch (testutil_schedq_link, &outbox);
    zmsg_t *msg = testutil_expect_link (testutil_schedq_link, "PREEMPT", 2000);
    testutil_pop_check (msg, "2");
    testutil_pop_check (msg, "alpha");
    testutil_pop_check (msg, "9");
    zmsg_destroy (&msg);
    testutil_say_free (testutil_schedq_link, 2);
    testutil_schedq_expect_one (actor, 9, "alpha");
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_owners_in_fair_order, testutil_schedq_setup, testutil_schedq_teardown),
        cmocka_unit_test_setup_teardown (test_devices_from_up, testutil_schedq_setup, testutil_schedq_teardown),
        cmocka_unit_test_setup_teardown (test_configure_shares_and_quota, testutil_schedq_setup, testutil_schedq_teardown),
        cmocka_unit_test_setup_teardown (test_share_admin, testutil_schedq_setup, testutil_schedq_teardown),
        cmocka_unit_test_setup_teardown (test_keepshare_and_kept, testutil_schedq_setup, testutil_schedq_teardown),
        cmocka_unit_test_setup_teardown (test_share_table_and_devices_listed, testutil_schedq_setup, testutil_schedq_teardown),
        cmocka_unit_test_setup_teardown (test_preempt_said, testutil_schedq_setup, testutil_schedq_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
