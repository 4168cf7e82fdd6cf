/*  =========================================================================
    test_drover_store_actor_shares - the store actor keeps the shares
    schedq says (KEEPSHARE, as SHARE ADMIN set them) on a real SQLite file
    in a fresh directory, and says them back at start (SHARE, before
    STATE and LOADED); the OK a KEEPSHARE carries is sent once kept, and
    one the file system refuses is answered ERROR 507 and not kept.
    The test plays the broker main and schedq, as actors/ACTORS.md lists
    what the store hears and says.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_actor.h"
#include "drover_store_actor.h"
#include <signal.h>
#include <sys/resource.h>

//  The route a client's reply goes to
#define S_CLIENT        "admin-1"

//  One test's state directory and the store on it
typedef struct {
    char top [64];              //  the fresh directory, removed after
    char dir [80];              //  the state directory in it
    zactor_t *store;            //  the actor, or NULL
} s_test_t;

//  The file size limit before a test lowered it (restored at teardown)
static struct rlimit s_fsize;

static int
s_setup (void **state)
{
    s_test_t *test = (s_test_t *) zmalloc (sizeof (s_test_t));
    snprintf (test->top, sizeof test->top, "/tmp/drover-store-shares-XXXXXX");
    assert_non_null (mkdtemp (test->top));
    snprintf (test->dir, sizeof test->dir, "%s/state", test->top);
    assert_int_equal (getrlimit (RLIMIT_FSIZE, &s_fsize), 0);
    *state = test;
    return 0;
}

static int
s_teardown (void **state)
{
    s_test_t *test = (s_test_t *) *state;
    setrlimit (RLIMIT_FSIZE, &s_fsize);     //  whatever a failed test left
    testutil_actor_destroy (&test->store);
    testutil_remove_tree (test->top);
    free (test);
    return 0;
}

//  (Re)start the store on the test's directory, durability full; asserts
//  it says OPENED 1 sqlite first
static void
s_start (s_test_t *test)
{
    testutil_actor_destroy (&test->store);
    drover_store_actor_args_t args = {
        .state_dir = test->dir, .durability = DROVER_DURABILITY_FULL, .commit_every = 150,
        .keep_finished = 100, .history_count = 1000, .history_age = 3600,
        .history_events = 100000
    };
    test->store = zactor_new (drover_store_actor, &args);
    assert_non_null (test->store);
    zmsg_t *msg = testutil_expect (test->store, "OPENED", 5000);
    testutil_pop_check (msg, "1");
    testutil_pop_check (msg, "sqlite");
    zmsg_destroy (&msg);
}

//  Expect STATE then LOADED 1 0 (no tasks), with nothing between
static void
s_expect_loaded (s_test_t *test)
{
    zmsg_t *msg = testutil_expect (test->store, "STATE", 5000);
    zmsg_destroy (&msg);
    msg = testutil_expect (test->store, "LOADED", 5000);
    testutil_pop_check (msg, "1");
    testutil_pop_check (msg, "0");
    zmsg_destroy (&msg);
}

//  Say KEEPSHARE name weight members quota, as schedq does
static void
s_keep_share (zactor_t *store, const char *name, uint32_t weight, const char *members,
              const char *quota)
{
    zsock_send (store, "ss4ss", "KEEPSHARE", name, weight, members, quota);
}

//  Say KEEPSHARE carrying the OK to the admin's request seq
static void
s_keep_share_answering (zactor_t *store, const char *name, uint32_t weight, uint32_t seq)
{
    zframe_t *route = zframe_new (S_CLIENT, strlen (S_CLIENT));
    zsock_send (store, "ss4ssf4s", "KEEPSHARE", name, weight, "alice,bob", "procs=8", route,
                seq, "share set");
    zframe_destroy (&route);
}

//  Expect SHARE name weight members quota
static void
s_expect_share (zactor_t *store, const char *name, const char *weight, const char *members,
                const char *quota)
{
    zmsg_t *msg = testutil_expect (store, "SHARE", 5000);
    testutil_pop_check (msg, name);
    testutil_pop_check (msg, weight);
    testutil_pop_check (msg, members);
    testutil_pop_check (msg, quota);
    assert_int_equal (zmsg_size (msg), 0);
    zmsg_destroy (&msg);
}

//  Lower the process's file size limit to 0: every write to a regular file
//  is refused (EFBIG), as on a full file system; SIGXFSZ is ignored
static void
s_refuse_writes (void)
{
    signal (SIGXFSZ, SIG_IGN);
    struct rlimit limit = { .rlim_cur = 0, .rlim_max = s_fsize.rlim_max };
    assert_int_equal (setrlimit (RLIMIT_FSIZE, &limit), 0);
}

//  Shares kept come back at the next start, in name order, before STATE:
//  an account's members, an owner's "-", a quota or none; a share said
//  again replaces the one kept, and weight 0 drops it
static void
test_shares_kept_across_restart (void **state)
{
    s_test_t *test = (s_test_t *) *state;
    s_start (test);
    s_expect_loaded (test);
    s_keep_share (test->store, "team-b", 1, "carol", "");
    s_keep_share (test->store, "team-a", 3, "alice,bob", "procs=8,mem=1G,gpu=2,queued=10");
    s_keep_share (test->store, "dave", 2, "-", "queued=5");
    s_keep_share (test->store, "empty", 4, "", "");
    s_start (test);
    s_expect_share (test->store, "dave", "2", "-", "queued=5");
    s_expect_share (test->store, "empty", "4", "", "");
    s_expect_share (test->store, "team-a", "3", "alice,bob", "procs=8,mem=1G,gpu=2,queued=10");
    s_expect_share (test->store, "team-b", "1", "carol", "");
    s_expect_loaded (test);

    s_keep_share (test->store, "team-a", 0, "-", "");
    s_keep_share (test->store, "dave", 5, "-", "");
    s_keep_share (test->store, "empty", 0, "-", "");
    s_start (test);
    s_expect_share (test->store, "dave", "5", "-", "");
    s_expect_share (test->store, "team-b", "1", "carol", "");
    s_expect_loaded (test);
}

//  The OK a KEEPSHARE carries is sent once the share is kept; one the file
//  system refuses is answered ERROR 507 saying why, and is not there after
//  a restart
static void
test_share_answered_once_kept (void **state)
{
    s_test_t *test = (s_test_t *) *state;
    s_start (test);
    s_expect_loaded (test);
    s_keep_share_answering (test->store, "team-a", 3, 7);
    drover_msg_t *reply = testutil_expect_send (test->store, S_CLIENT, "");
    assert_int_equal (reply->id, DROVER_MSG_OK);
    assert_int_equal (reply->seq, 7);
    assert_string_equal (reply->reason, "share set");
    drover_msg_destroy (&reply);

    s_refuse_writes ();
    s_keep_share_answering (test->store, "team-b", 2, 8);
    reply = testutil_expect_send (test->store, S_CLIENT, "");
    assert_int_equal (setrlimit (RLIMIT_FSIZE, &s_fsize), 0);
    assert_int_equal (reply->id, DROVER_MSG_ERROR);
    assert_int_equal (reply->code, DROVER_CODE_NOT_SAVED);
    assert_int_equal (reply->seq, 8);
    assert_non_null (strstr (reply->reason, "not saved: "));
    drover_msg_destroy (&reply);

    //  A drop refused likewise leaves the share kept
    s_refuse_writes ();
    s_keep_share_answering (test->store, "team-a", 0, 9);
    reply = testutil_expect_send (test->store, S_CLIENT, "");
    assert_int_equal (setrlimit (RLIMIT_FSIZE, &s_fsize), 0);
    assert_int_equal (reply->code, DROVER_CODE_NOT_SAVED);
    drover_msg_destroy (&reply);

    s_start (test);
    s_expect_share (test->store, "team-a", "3", "alice,bob", "procs=8");
    s_expect_loaded (test);                 //  and not team-b
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_shares_kept_across_restart, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_share_answered_once_kept, s_setup, s_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
