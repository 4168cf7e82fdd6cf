/*  =========================================================================
    test_drover_shareboard - the share settings in force: the broker's
    settings, an admin's entries on top, the texts assign reads, what the
    fair-share table is given and undone, and SHARE TABLE rows
    =========================================================================
*/

#include "testutil.h"
#include "drover_shareboard.h"

//  Return an owner's standing
static drover_fairshare_standing_t
s_standing (drover_fairshare_t *fairshare, const char *owner)
{
    drover_fairshare_standing_t standing;
    assert_int_equal (drover_fairshare_standing (fairshare, drover_fairshare_owner (fairshare, owner),
                                                 &standing), 0);
    return standing;
}

//  Settings give the table accounts, weights and quotas; bad ones are
//  refused naming the setting
static void
test_settings (void **state)
{
    (void) state;
    drover_fairshare_t *fairshare = drover_fairshare_new ();
    drover_shareboard_t *board = drover_shareboard_new (fairshare);
    char *error = NULL;
    assert_int_equal (drover_shareboard_configure (board, "team-a:alice,bob;team-b:carol",
                                                   "team-a=3", "team-a:procs=4;carol:queued=10",
                                                   &error), 0);
    assert_string_equal (drover_shareboard_accounts (board), "team-a:alice,bob;team-b:carol");
    assert_string_equal (drover_shareboard_quotas (board), "team-a:procs=4;carol:queued=10");
    drover_fairshare_standing_t standing = s_standing (fairshare, "bob");
    assert_string_equal (standing.account, "team-a");
    assert_int_equal (standing.account_weight, 3);
    assert_int_equal (drover_shareboard_configure (board, "team-a:alice;team-b:alice", NULL, NULL,
                                                   &error), -1);
    assert_non_null (strstr (error, "share/accounts"));
    zstr_free (&error);
    //  Unchanged by the refusal
    assert_string_equal (drover_shareboard_accounts (board), "team-a:alice,bob;team-b:carol");
    drover_shareboard_destroy (&board);
    drover_fairshare_destroy (&fairshare);
}

//  An admin's entry wins over the settings, and dropping it undoes it
static void
test_admin_over_settings (void **state)
{
    (void) state;
    drover_fairshare_t *fairshare = drover_fairshare_new ();
    drover_shareboard_t *board = drover_shareboard_new (fairshare);
    char *error = NULL;
    assert_int_equal (drover_shareboard_configure (board, "team-a:alice,bob", NULL, NULL, &error), 0);
    //  A new account takes bob from team-a
    assert_int_equal (drover_shareboard_set (board, "team-b", 2, "bob,dave", "procs=8,gpu=1",
                                             &error), 0);
    assert_string_equal (drover_shareboard_accounts (board), "team-a:alice;team-b:bob,dave");
    assert_string_equal (drover_shareboard_quotas (board), "team-b:procs=8,gpu=1");
    assert_string_equal (s_standing (fairshare, "bob").account, "team-b");
    assert_int_equal (s_standing (fairshare, "bob").account_weight, 2);
    uint32_t weight;
    const char *members, *quota;
    assert_true (drover_shareboard_entry (board, "team-b", &weight, &members, &quota));
    assert_int_equal (weight, 2);
    assert_string_equal (members, "bob,dave");
    assert_string_equal (quota, "procs=8,gpu=1");
    assert_true (drover_shareboard_set (board, "frank", 2, NULL, NULL, &error) == 0);
    assert_true (drover_shareboard_entry (board, "frank", &weight, &members, &quota));
    assert_null (members);
    assert_int_equal (drover_shareboard_drop (board, "frank"), 0);
    //  Weight only: members and quota kept
    assert_int_equal (drover_shareboard_set (board, "team-b", 5, NULL, NULL, &error), 0);
    assert_int_equal (s_standing (fairshare, "dave").account_weight, 5);
    assert_int_equal (drover_shareboard_weight (board, "team-b"), 5);
    assert_int_equal (drover_shareboard_weight (board, "nobody"), 1);
    assert_string_equal (drover_shareboard_quotas (board), "team-b:procs=8,gpu=1");
    //  An owner's weight
    assert_int_equal (drover_shareboard_set (board, "erin", 4, NULL, NULL, &error), 0);
    assert_int_equal (s_standing (fairshare, "erin").owner_weight, 4);
    //  Not a name: refused, nothing kept
    assert_int_equal (drover_shareboard_set (board, "", 4, NULL, NULL, &error), -1);
    zstr_free (&error);
    //  Dropping: bob back in team-a, erin's weight 1, the quota gone
    assert_int_equal (drover_shareboard_drop (board, "team-b"), 0);
    assert_int_equal (drover_shareboard_drop (board, "team-b"), -1);
    assert_int_equal (drover_shareboard_drop (board, "erin"), 0);
    assert_string_equal (s_standing (fairshare, "bob").account, "team-a");
    assert_int_equal (s_standing (fairshare, "erin").owner_weight, 1);
    assert_string_equal (drover_shareboard_quotas (board), "");
    assert_false (drover_fairshare_has_quotas (fairshare));
    assert_int_equal (drover_fairshare_verify (fairshare), 0);
    drover_shareboard_destroy (&board);
    drover_fairshare_destroy (&fairshare);
}

//  A SHARE ADMIN's quota fields as text
static void
test_quota_text (void **state)
{
    (void) state;
    drover_msg_t *admin = drover_msg_new (DROVER_MSG_SHARE_ADMIN);
    char *text = drover_shareboard_quota_text (admin);
    assert_string_equal (text, "");
    zstr_free (&text);
    admin->quota_procs = 8;
    admin->quota_mem = 1ULL << 30;
    admin->quota_queued = 100;
    admin->ndevices = 1;
    snprintf (admin->devices [0].name, sizeof admin->devices [0].name, "gpu");
    admin->devices [0].count = 2;
    text = drover_shareboard_quota_text (admin);
    assert_string_equal (text, "procs=8,mem=1073741824,gpu=2,queued=100");
    zstr_free (&text);
    drover_msg_destroy (&admin);
}

//  Rows: each account, then its owners, with usage and quotas
static void
test_rows (void **state)
{
    (void) state;
    drover_fairshare_t *fairshare = drover_fairshare_new ();
    drover_shareboard_t *board = drover_shareboard_new (fairshare);
    char *error = NULL;
    assert_int_equal (drover_shareboard_configure (board, "team-a:alice,bob", NULL,
                                                   "alice:procs=3", &error), 0);
    drover_fairshare_set_capacity (fairshare, 10, 0);
    drover_fairshare_set_device_capacity (fairshare, "gpu", 4);
    drover_fairshare_device_t gpu = { "gpu", 1 };
    drover_fairshare_use_t use = { 2, 0, &gpu, 1 };
    drover_fairshare_place (fairshare, drover_fairshare_owner (fairshare, "alice"), &use);
    drover_fairshare_place (fairshare, drover_fairshare_owner (fairshare, "bob"), &use);
    drover_fairshare_owner (fairshare, "carol");
    uint32_t count;
    drover_share_row_t *rows = drover_shareboard_rows (board, 100, &count);
    assert_int_equal (count, 5);    //  carol, carol; team-a, alice, bob
    assert_string_equal (rows [0].name, "carol");
    assert_int_equal (rows [0].kind, 0);
    assert_string_equal (rows [1].name, "carol");
    assert_int_equal (rows [1].kind, 1);
    assert_string_equal (rows [2].name, "team-a");
    assert_int_equal (rows [2].procs, 4);
    assert_int_equal (rows [2].share, 500);
    assert_string_equal (rows [2].resource, "gpu");
    assert_string_equal (rows [2].devices, "gpu=2");       //  its owners' summed
    assert_string_equal (rows [1].devices, "");
    assert_string_equal (rows [3].devices, "gpu=1");
    assert_string_equal (rows [3].name, "alice");
    assert_string_equal (rows [3].account, "team-a");
    assert_string_equal (rows [3].quota, "procs=3");
    assert_string_equal (rows [4].name, "bob");
    assert_string_equal (rows [4].resource, "gpu");
    assert_string_equal (rows [4].devices, "gpu=1");
    drover_shareboard_rows_destroy (&rows, count);
    //  No room for an account and one of its owners: it is left out
    rows = drover_shareboard_rows (board, 3, &count);
    assert_int_equal (count, 2);
    drover_shareboard_rows_destroy (&rows, count);
    drover_shareboard_destroy (&board);
    drover_fairshare_destroy (&fairshare);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_settings),
        cmocka_unit_test (test_admin_over_settings),
        cmocka_unit_test (test_quota_text),
        cmocka_unit_test (test_rows),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
