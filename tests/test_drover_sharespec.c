/*  =========================================================================
    test_drover_sharespec - the share settings: what parses, what is
    refused and with which message, and a spec applied to a table
    =========================================================================
*/

#include "testutil.h"
#include "drover_sharespec.h"

//  Accounts, weights and quotas parse, spaces and empty entries aside
static void
test_parse (void **state)
{
    char *error = NULL;
    drover_sharespec_t *spec = drover_sharespec_new (
        " team-a : alice, bob ;team-b:carol;; empty: ", "team-a=3, alice=2,team-b=1",
        "team-a:procs=40,mem=64G,gpu=4,queued=1000; alice:procs=8", &error);
    assert_null (error);
    assert_non_null (spec);
    assert_int_equal (drover_sharespec_accounts (spec), 3);
    uint32_t weight;
    const char **members;
    size_t nmembers;
    assert_string_equal (drover_sharespec_account (spec, 0, &weight, &members, &nmembers),
                         "team-a");
    assert_int_equal (weight, 3);
    assert_int_equal (nmembers, 2);
    assert_string_equal (members [0], "alice");
    assert_string_equal (members [1], "bob");
    assert_string_equal (drover_sharespec_account (spec, 2, &weight, NULL, &nmembers), "empty");
    assert_int_equal (weight, 1);
    assert_int_equal (nmembers, 0);
    assert_int_equal (drover_sharespec_weight (spec, "alice"), 2);
    assert_int_equal (drover_sharespec_weight (spec, "dave"), 0);
    const drover_fairshare_quota_t *quota = drover_sharespec_quota (spec, "team-a");
    assert_non_null (quota);
    assert_int_equal (quota->procs, 40);
    assert_int_equal (quota->mem, 64ULL << 30);
    assert_int_equal (quota->queued, 1000);
    assert_int_equal (quota->ndevices, 1);
    assert_string_equal (quota->devices [0].name, "gpu");
    assert_int_equal (quota->devices [0].count, 4);
    assert_null (drover_sharespec_quota (spec, "bob"));
    drover_sharespec_destroy (&spec);
    drover_sharespec_destroy (&spec);       //  harmless twice
    //  Nothing said: an empty spec
    spec = drover_sharespec_new (NULL, "", "  ", &error);
    assert_non_null (spec);
    assert_int_equal (drover_sharespec_accounts (spec), 0);
    drover_sharespec_destroy (&spec);
}

//  Assert that the settings are refused with this message
static void
s_refused (const char *accounts, const char *weights, const char *quotas, const char *message)
{
    char *error = NULL;
    drover_sharespec_t *spec = drover_sharespec_new (accounts, weights, quotas, &error);
    assert_null (spec);
    testutil_assert_and_free (error, message);
}

//  Each mistake is refused with a message naming the setting and the entry
static void
test_refused (void **state)
{
    s_refused ("team-a alice", NULL, NULL,
               "share/accounts: \"team-a alice\" has no ':' between the account and its owners "
               "(write ACCOUNT:OWNER,OWNER;ACCOUNT:OWNER)");
    s_refused ("team a:alice", NULL, NULL,
               "share/accounts: account \"team a\" is not a name (1 to 64 printable "
               "characters, no spaces)");
    s_refused ("team-a:alice;team-a:bob", NULL, NULL,
               "share/accounts: account team-a is given twice");
    s_refused ("team-a:alice,bob;team-b:bob", NULL, NULL,
               "share/accounts: owner bob is in team-a and in team-b (an owner is in one "
               "account at most)");
    s_refused ("team-a:alice,alice", NULL, NULL,
               "share/accounts: owner alice is listed twice in team-a");
    s_refused ("team-a:alice,,bob", NULL, NULL,
               "share/accounts: account team-a has an empty owner name");
    s_refused (NULL, "team-a:3", NULL,
               "share/weights: \"team-a:3\" has no '=' (write NAME=WEIGHT,NAME=WEIGHT)");
    s_refused (NULL, "team-a=0", NULL,
               "share/weights: the weight of team-a, \"0\", is not a whole number from 1 to "
               "1000000");
    s_refused (NULL, "team-a=2x", NULL,
               "share/weights: the weight of team-a, \"2x\", is not a whole number from 1 to "
               "1000000");
    s_refused (NULL, "alice=1,alice=2", NULL, "share/weights: alice is given a weight twice");
    s_refused (NULL, NULL, "alice=3",
               "share/quotas: \"alice=3\" has no ':' between the name and its limits "
               "(write NAME:procs=N,mem=SIZE;NAME:queued=N)");
    s_refused (NULL, NULL, "alice:procs",
               "share/quotas: alice: \"procs\" has no '=' (write procs=N, mem=SIZE, queued=N "
               "or DEVICE=N)");
    s_refused (NULL, NULL, "alice:mem=lots",
               "share/quotas: alice: mem \"lots\" is not a size (512M, 64G)");
    s_refused (NULL, NULL, "alice:procs=0",
               "share/quotas: alice: procs \"0\" is not a whole number from 1 to 4294967295 "
               "(leave it out for no limit)");
    s_refused (NULL, NULL, "alice:procs=1,",
               "share/quotas: alice has an empty limit");
    s_refused (NULL, NULL, "alice:procs=1;alice:mem=1G",
               "share/quotas: alice is given quotas twice");
    s_refused (NULL, NULL, "alice:a=1,b=1,c=1,d=1,e=1,f=1,g=1,h=1,i=1",
               "share/quotas: alice: more than 8 devices");
}

//  A spec applied: accounts with members and weights, owner weights, quotas
static void
test_apply (void **state)
{
    char *error = NULL;
    drover_sharespec_t *spec = drover_sharespec_new ("team-a:alice,bob", "team-a=3,carol=2",
                                                   "team-a:procs=10;carol:queued=2", &error);
    assert_non_null (spec);
    drover_fairshare_t *share = drover_fairshare_new ();
    drover_fairshare_set_capacity (share, 100, 0);
    assert_int_equal (drover_sharespec_apply (spec, share), 0);
    uint32_t bob = drover_fairshare_owner (share, "bob");
    uint32_t carol = drover_fairshare_owner (share, "carol");
    drover_fairshare_standing_t standing;
    assert_int_equal (drover_fairshare_standing (share, bob, &standing), 0);
    assert_string_equal (standing.account, "team-a");
    assert_int_equal (standing.account_weight, 3);
    assert_int_equal (drover_fairshare_standing (share, carol, &standing), 0);
    assert_true (standing.solo);
    assert_int_equal (standing.account_weight, 2);
    drover_fairshare_use_t use = { .procs = 11 };
    drover_fairshare_refusal_t refusal;
    assert_int_equal (drover_fairshare_check (share, bob, &use, &refusal), -1);
    assert_string_equal (refusal.who, "team-a");
    assert_int_equal (drover_fairshare_may_queue (share, carol, 3, &refusal), -1);
    assert_string_equal (refusal.who, "carol");
    assert_int_equal (drover_fairshare_verify (share), 0);
    drover_fairshare_destroy (&share);
    drover_sharespec_destroy (&spec);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_parse),
        cmocka_unit_test (test_refused),
        cmocka_unit_test (test_apply),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
