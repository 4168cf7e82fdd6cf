/*  =========================================================================
    test_cli_submit_keys - submit keys through the real `drover` binary and
    a real broker: `drover submit --file F` sends a key per line, so the
    same file submitted twice gives the same ids (a batch cut short by a
    broker crash can be run again without running anything twice);
    `--key K` does it for one task; `--no-keys` and another --key make new
    tasks. Without workers, every task stays queued: nothing expires.

    The keys are the broker's to honour (the task table): until it does,
    the tests that need it are skipped, saying so.
    =========================================================================
*/

#include "testutil.h"
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

//  Submit `true` with key twice; true if both got the same id (the broker
//  honours keys)
static bool
s_broker_honours_keys (testutil_cluster_t *cluster)
{
    char first [64], second [64];
    const char *args [] = { "--key", "probe", "--", "true", NULL };
    s_submit (cluster, args, first, sizeof first);
    s_submit (cluster, args, second, sizeof second);
    assert_true (strtoull (first, NULL, 10) > 0);
    if (streq (first, second))
        return true;
    print_message ("the broker gave the key \"probe\" two ids (%llu, %llu): it does not "
                   "honour submit keys yet (the task table's part of issue 10)\n",
                   strtoull (first, NULL, 10), strtoull (second, NULL, 10));
    return false;
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

//  --key refuses what the protocol would; --no-keys goes with --file only
static void
test_bad_keys_refused (void **state)
{
    const char *const refused [][8] = {
        { DROVER_BIN, "submit", "--key", "", "--", "true", NULL },
        { DROVER_BIN, "submit", "--key", "tab\there", "--", "true", NULL },
        { DROVER_BIN, "submit", "--no-keys", "--", "true", NULL },
    };
    for (size_t index = 0; index < sizeof refused / sizeof refused [0]; index++) {
        char output [256];
        int status = testutil_run_output (refused [index], output, sizeof output, 10000);
        assert_true (status != -1 && WIFEXITED (status));
        assert_int_equal (WEXITSTATUS (status), 2);
        assert_string_equal (output, "");
    }
}

//  The same --file twice: the same ids, in the same order; --no-keys, or
//  another --key, or the same lines in another file: new ids
static void
test_same_file_twice_same_ids (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    if (!s_broker_honours_keys (cluster)) {
        testutil_cluster_destroy (&cluster);
        skip ();
    }
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
    const char *no_keys [] = { "--file", path, "--no-keys", NULL };
    s_submit (cluster, no_keys, fresh, sizeof fresh);
    assert_true (strtoull (fresh, NULL, 10) > ids [3]);
    const char *salt [] = { "--file", path, "--key", "run-2", NULL };
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

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_bad_keys_refused),
        cmocka_unit_test (test_same_file_twice_same_ids),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
