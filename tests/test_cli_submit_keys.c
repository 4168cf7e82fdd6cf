/*  =========================================================================
    test_cli_submit_keys - submit keys through the real `drover` binary and
    a real broker: `drover submit --file F` sends a key per line, so the
    same file submitted twice gives the same ids (a batch cut short by a
    broker crash can be run again without running anything twice);
    `--submit-key K` does it for one task; `--no-submit-keys` and another
    --submit-key make new tasks. Without workers, every task stays queued:
    nothing expires.

    `--key FILE` after submit is the CURVE key pair, as everywhere else; an
    old script's `submit --key K` (K no key file) is refused naming
    --submit-key.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_keys.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include <sys/stat.h>
#include <sys/wait.h>

//  Run `drover --broker ENDPOINT submit ARGS...`, its stdout into output;
//  asserts that it exits 0
static void
s_submit (testutil_cluster_t *cluster, const char *const args [], char *output, size_t size)
{
    const char *argv [24] = { DROVER_BIN, "--broker", cluster->endpoint, "submit" };
    int argc = 4;
    for (int index = 0; args [index] && argc < 23; index++)
        argv [argc++] = args [index];
    argv [argc] = NULL;
    int status = testutil_run_output (argv, output, size, 20000);
    if (!(status != -1 && WIFEXITED (status) && WEXITSTATUS (status) == 0))
        fail_msg ("drover submit %s failed: status %d, output: %s", args [0], status, output);
}

//  Submit `true` with one submit key twice: the broker must give both the
//  same id, and a third submit with another key a new one
static void
s_expect_broker_honours_keys (testutil_cluster_t *cluster)
{
    char first [64], second [64], other [64];
    const char *args [] = { "--submit-key", "probe", "--", "true", NULL };
    s_submit (cluster, args, first, sizeof first);
    s_submit (cluster, args, second, sizeof second);
    assert_true (strtoull (first, NULL, 10) > 0);
    if (!streq (first, second))
        fail_msg ("the broker gave the submit key \"probe\" two ids (%llu, %llu)",
                  strtoull (first, NULL, 10), strtoull (second, NULL, 10));
    const char *another [] = { "--submit-key", "probe-2", "--", "true", NULL };
    s_submit (cluster, another, other, sizeof other);
    assert_true (strtoull (other, NULL, 10) > strtoull (first, NULL, 10));
}

//  Write lines to path
static void
s_write_file (const char *path, const char *text)
{
    FILE *file = fopen (path, "w");
    assert_non_null (file);
    fputs (text, file);
    fclose (file);
}

//  --submit-key refuses what the protocol would; --no-submit-keys (and
//  its old spelling --no-keys) goes with --file only
static void
test_bad_keys_refused (void **state)
{
    const char *const refused [][8] = {
        { DROVER_BIN, "submit", "--submit-key", "", "--", "true", NULL },
        { DROVER_BIN, "submit", "--submit-key", "tab\there", "--", "true", NULL },
        { DROVER_BIN, "submit", "--no-submit-keys", "--", "true", NULL },
        { DROVER_BIN, "submit", "--no-keys", "--", "true", NULL },
        { DROVER_BIN, "submit", "--file", "x", "--submit-key", "k", "--no-submit-keys", NULL },
    };
    for (size_t index = 0; index < sizeof refused / sizeof refused [0]; index++) {
        char output [256];
        int status = testutil_run_output (refused [index], output, sizeof output, 10000);
        assert_true (status != -1 && WIFEXITED (status));
        assert_int_equal (WEXITSTATUS (status), 2);
        assert_string_equal (output, "");
    }
}

//  The same --file twice: the same ids, in the same order; --no-submit-keys,
//  or another --submit-key, or the same lines in another file: new ids
static void
test_same_file_twice_same_ids (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    s_expect_broker_honours_keys (cluster);
    char path [64], other [64];
    snprintf (path, sizeof path, "/tmp/test-cli-keys-%d.txt", (int) getpid ());
    snprintf (other, sizeof other, "/tmp/test-cli-keys-%d-other.txt", (int) getpid ());
    const char *lines = "echo one\n# a comment\necho two\n\necho one\necho three\n";
    s_write_file (path, lines);
    s_write_file (other, lines);

    char first [256], second [256], fresh [256], salted [256], moved [256];
    const char *args [] = { "--file", path, NULL };
    s_submit (cluster, args, first, sizeof first);
    s_submit (cluster, args, second, sizeof second);
    assert_string_equal (first, second);
    //  Four commands, four tasks: the repeated "echo one" is another line
    uint64_t ids [4];
    char *cursor = first;
    for (int index = 0; index < 4; index++) {
        ids [index] = strtoull (cursor, &cursor, 10);
        assert_true (ids [index] > 0);
        for (int earlier = 0; earlier < index; earlier++)
            assert_true (ids [earlier] != ids [index]);
    }
    const char *no_keys [] = { "--file", path, "--no-submit-keys", NULL };
    s_submit (cluster, no_keys, fresh, sizeof fresh);
    assert_true (strtoull (fresh, NULL, 10) > ids [3]);
    const char *salt [] = { "--file", path, "--submit-key", "run-2", NULL };
    s_submit (cluster, salt, salted, sizeof salted);
    assert_true (strtoull (salted, NULL, 10) > strtoull (fresh, NULL, 10));
    s_submit (cluster, salt, second, sizeof second);
    assert_string_equal (salted, second);
    const char *elsewhere [] = { "--file", other, NULL };
    s_submit (cluster, elsewhere, moved, sizeof moved);
    assert_string_not_equal (moved, first);
    unlink (path);
    unlink (other);
    testutil_cluster_destroy (&cluster);
}

//  `submit --key K` where K is no key file (an idempotency key, as before
//  --submit-key): a usage error naming --submit-key, nothing submitted
static void
test_old_submit_key_spelling_refused (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    const char *old [] = { "submit", "--key", "nightly-2026-12-01", "--", "true", NULL };
    testutil_cli_t *run = (testutil_cli_t *) zmalloc (sizeof (testutil_cli_t));
    testutil_cli (cluster->endpoint, old, run);
    testutil_cli_expect (run, 2, run->err, "the submit key is now --submit-key");
    testutil_cli_expect (run, 2, run->err, "--key is your CURVE key pair");
    assert_string_equal (run->out, "");
    zsock_t *dealer = testutil_dealer (cluster);
    assert_int_equal (testutil_task_count (dealer, 5000), 0);
    zsock_destroy (&dealer);
    free (run);
    testutil_cluster_destroy (&cluster);
}

//  Copy the public half of a key pair into the broker's keys/role/ directory
static void
s_admit (const char *pair, const char *keys, const char *role, const char *name)
{
    char *text = testutil_slurp (pair);
    assert_non_null (text);
    char path [256];
    snprintf (path, sizeof path, "%s/%s", keys, role);
    mkdir (path, 0700);
    snprintf (path, sizeof path, "%s/%s/%s.key", keys, role, name);
    FILE *file = fopen (path, "w");
    assert_non_null (file);
    fputs (text, file);
    fclose (file);
    free (text);
}

//  `submit --key FILE` is the CURVE key pair, as before every other
//  command: against a CURVE broker it submits, and --submit-key beside it
//  is the task's key
static void
test_key_after_submit_is_the_key_pair (void **state)
{
    char dir [64], keys [96], broker [128], alice [128];
    snprintf (dir, sizeof dir, "/tmp/drover-submit-pair-%d", (int) getpid ());
    testutil_remove_tree (dir);
    testutil_keygen (dir, "broker");
    testutil_keygen (dir, "alice");
    snprintf (keys, sizeof keys, "%s/keys", dir);
    assert_int_equal (mkdir (keys, 0700), 0);
    snprintf (broker, sizeof broker, "%s/broker.key", dir);
    snprintf (alice, sizeof alice, "%s/alice.key", dir);
    s_admit (alice, keys, "clients", "alice");
    const char *flags [] = { "--key", broker, "--keys", keys, NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);

    const char *args [] = { "submit", "--key", alice, "--server-key", broker,
                            "--submit-key", "pair-1", "--", "true", NULL };
    testutil_cli_t *run = (testutil_cli_t *) zmalloc (sizeof (testutil_cli_t));
    testutil_cli (cluster->endpoint, args, run);
    testutil_cli_expect (run, 0, run->err, "");
    uint64_t first = strtoull (run->out, NULL, 10);
    assert_true (first > 0);
    //  The key pair given as NAME.key_secret works too
    char secret [160];
    snprintf (secret, sizeof secret, "%s_secret", alice);
    args [2] = secret;
    testutil_cli (cluster->endpoint, args, run);
    testutil_cli_expect (run, 0, run->err, "");
    assert_int_equal (strtoull (run->out, NULL, 10), first);
    //  A key pair whose secret is open to others is refused as a key pair
    assert_int_equal (chmod (secret, 0644), 0);
    testutil_cli (cluster->endpoint, args, run);
    testutil_cli_expect (run, 2, run->err, "readable by its owner only");
    free (run);
    testutil_cluster_destroy (&cluster);
    testutil_remove_tree (dir);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_bad_keys_refused),
        cmocka_unit_test (test_same_file_twice_same_ids),
        cmocka_unit_test (test_old_submit_key_spelling_refused),
        cmocka_unit_test (test_key_after_submit_is_the_key_pair),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
