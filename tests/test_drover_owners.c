/*  =========================================================================
    test_drover_owners - the names tasks belong to, and what the task table
    lets each sender do with them: act on its own tasks, list its own rows
    =========================================================================
*/

#include "testutil_wire.h"
#include "testutil_class.h"
#include "drover_owners.h"
#include "drover_assign.h"

#define S_CLIENT    (const byte *) "client", 6

//  Each name is kept once; "" is index 0
static void
test_names_kept_once (void **state)
{
    drover_owners_t *owners = drover_owners_new ();
    assert_int_equal (drover_owners_index (owners, ""), 0);
    uint16_t alice = drover_owners_index (owners, "alice");
    uint16_t bob = drover_owners_index (owners, "bob");
    assert_true (alice > 0 && bob > 0 && alice != bob);
    assert_int_equal (drover_owners_index (owners, "alice"), alice);
    assert_string_equal (drover_owners_name (owners, alice), "alice");
    assert_string_equal (drover_owners_name (owners, 0), "");
    assert_string_equal (drover_owners_name (owners, 999), "");
    for (int index = 0; index < 100; index++) {
        char name [16];
        snprintf (name, sizeof name, "key-%d", index);
        assert_string_equal (drover_owners_name (owners, drover_owners_index (owners, name)),
                             name);
    }
    assert_int_equal (drover_owners_size (owners), 103);
    assert_string_equal (drover_owners_name (owners, bob), "bob");
    drover_owners_destroy (&owners);
    drover_owners_destroy (&owners);
}

//  Submit a task as principal
static uint64_t
s_submit_as (drover_assign_t *table, const char *principal)
{
    drover_msg_t *msg = testutil_submit_msg ("echo hi", 0, 1, 0);
    snprintf (msg->principal, sizeof msg->principal, "%s", principal);
    uint64_t task = 0;
    const char *reason = NULL;
    assert_int_equal (drover_assign_submit (table, msg, S_CLIENT, &task, &reason), 200);
    drover_msg_destroy (&msg);
    testutil_take_actions (table);
    return task;
}

//  A request as principal with roles
static drover_msg_t *
s_request (int id, const char *principal, uint8_t roles)
{
    drover_msg_t *msg = drover_msg_new (id);
    snprintf (msg->principal, sizeof msg->principal, "%s", principal);
    msg->roles = roles;
    return msg;
}

//  A client acts on its own tasks only; an admin on any; unknown ids are
//  left to the request; TASK LIST shows a client its own rows and every
//  count, an admin every row, each row with its owner
static void
test_owner_checks_and_listing (void **state)
{
    drover_assign_t *table = drover_assign_new ();
    uint64_t alices = s_submit_as (table, "alice");
    uint64_t bobs = s_submit_as (table, "bob");
    uint64_t also_alices = s_submit_as (table, "alice");

    drover_msg_t *bob = s_request (DROVER_MSG_TASK_CANCEL, "bob", DROVER_ROLE_CLIENT);
    drover_msg_t *alice = s_request (DROVER_MSG_TASK_CANCEL, "alice", DROVER_ROLE_CLIENT);
    drover_msg_t *admin = s_request (DROVER_MSG_TASK_CANCEL, "ops",
                                     DROVER_ROLE_CLIENT | DROVER_ROLE_ADMIN);
    const char *reason = NULL;
    assert_int_equal (drover_assign_check_owner (table, bob, &alices, 1, &reason), 403);
    assert_non_null (strstr (reason, "belongs to another key"));
    assert_int_equal (drover_assign_check_owner (table, bob, &bobs, 1, &reason), 200);
    assert_int_equal (drover_assign_check_owner (table, alice, &alices, 1, &reason), 200);
    assert_int_equal (drover_assign_check_owner (table, admin, &alices, 1, &reason), 200);
    uint64_t mixed [] = { alices, 9999, bobs };
    assert_int_equal (drover_assign_check_owner (table, alice, mixed, 3, &reason), 403);
    assert_int_equal (drover_assign_check_owner (table, alice, mixed, 2, &reason), 200);

    drover_msg_t *reply = drover_msg_new (DROVER_MSG_TASK_TABLE);
    drover_assign_list (table, 255, 100, "alice", NULL, 0, reply);
    assert_int_equal (reply->counts [DROVER_TASK_QUEUED], 3);
    assert_int_equal (reply->nrows, 2);
    assert_int_equal (reply->task_rows [0].task, also_alices);
    assert_int_equal (reply->task_rows [1].task, alices);
    assert_string_equal (reply->task_rows [0].owner, "alice");
    drover_msg_destroy (&reply);
    reply = drover_msg_new (DROVER_MSG_TASK_TABLE);
    drover_assign_list (table, 255, 100, "carol", NULL, 0, reply);
    assert_int_equal (reply->counts [DROVER_TASK_QUEUED], 3);
    assert_int_equal (reply->nrows, 0);
    drover_msg_destroy (&reply);
    reply = drover_msg_new (DROVER_MSG_TASK_TABLE);
    drover_assign_list (table, 255, 100, NULL, NULL, 0, reply);
    assert_int_equal (reply->nrows, 3);
    assert_string_equal (reply->task_rows [1].owner, "bob");
    drover_msg_destroy (&reply);

    drover_msg_destroy (&bob);
    drover_msg_destroy (&alice);
    drover_msg_destroy (&admin);
    drover_assign_destroy (&table);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_names_kept_once),
        cmocka_unit_test (test_owner_checks_and_listing),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
