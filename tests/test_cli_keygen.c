/*  =========================================================================
    test_cli_keygen - `drover keygen` through the real binary: the two files
    and their modes (whatever the umask), what they hold (the pair loads
    with drover_keys, the metadata names the key and its worker ids), that
    an existing key is never overwritten without --force (and --force leaves
    no wider secret behind), the --json object, and names refused.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_keys.h"
#include "drover_keys.h"
#include <sys/stat.h>
#include <sys/wait.h>

//  Run `drover keygen ARGS...`, its stdout into output; returns the exit
//  status (-1 if it did not exit)
static int
s_keygen (const char *const args [], char *output, size_t size)
{
    const char *argv [16] = { DROVER_BIN, "keygen" };
    int argc = 2;
    for (int index = 0; args [index] && argc < 15; index++)
        argv [argc++] = args [index];
    argv [argc] = NULL;
    int status = testutil_run_output (argv, output, size, 10000);
    return status != -1 && WIFEXITED (status)? WEXITSTATUS (status): -1;
}

//  A fresh directory for one test
static void
s_fresh_dir (char *dir, size_t size)
{
    snprintf (dir, size, "/tmp/drover-keygen-%d", (int) getpid ());
    testutil_remove_tree (dir);
}

//  Return a file's permission bits
static unsigned
s_mode (const char *path)
{
    struct stat status;
    assert_int_equal (stat (path, &status), 0);
    return (unsigned) (status.st_mode & 07777);
}

//  The two files, 0644 and 0600 even under a umask of 0; the pair loads,
//  its metadata names it, and the public key printed is the file's
static void
test_keygen_writes_a_pair_with_modes (void **state)
{
    char dir [64];
    s_fresh_dir (dir, sizeof dir);
    char sub [96];
    snprintf (sub, sizeof sub, "%s/keys", dir);
    mode_t umask_was = umask (0);           //  the child inherits it
    char output [1024];
    const char *args [] = { "alice", "--dir", sub, NULL };
    int status = s_keygen (args, output, sizeof output);
    umask (umask_was);
    assert_int_equal (status, 0);

    char public_path [128], secret_path [128];
    snprintf (public_path, sizeof public_path, "%s/alice.key", sub);
    snprintf (secret_path, sizeof secret_path, "%s/alice.key_secret", sub);
    assert_int_equal (s_mode (public_path), 0644);
    assert_int_equal (s_mode (secret_path), 0600);
    assert_int_equal (s_mode (sub), 0700);

    char *error = NULL;
    zcert_t *pair = drover_keys_load_pair (public_path, &error);
    if (!pair)
        fail_msg ("the pair does not load: %s", error);
    zcert_t *public_key = drover_keys_load_public (public_path, &error);
    assert_non_null (public_key);
    assert_string_equal (zcert_public_txt (pair), zcert_public_txt (public_key));
    assert_string_equal (zcert_meta (public_key, "name"), "alice");
    assert_null (zcert_meta (public_key, "worker-ids"));
    //  What it printed names both files and the public key
    assert_non_null (strstr (output, public_path));
    assert_non_null (strstr (output, secret_path));
    assert_non_null (strstr (output, zcert_public_txt (pair)));
    //  The public file holds no secret
    char *text = testutil_slurp (public_path);
    assert_null (strstr (text, "secret-key"));
    free (text);
    zcert_destroy (&pair);
    zcert_destroy (&public_key);
    testutil_remove_tree (dir);
}

//  --worker-ids goes into the public file's metadata; the helper the
//  other tests use writes a loadable pair
static void
test_keygen_worker_ids_in_metadata (void **state)
{
    char dir [64];
    s_fresh_dir (dir, sizeof dir);
    testutil_keygen_worker (dir, "w", "w-1,w-2");
    testutil_keygen (dir, "plain");
    char path [128];
    snprintf (path, sizeof path, "%s/w.key", dir);
    char *error = NULL;
    zcert_t *cert = drover_keys_load_public (path, &error);
    assert_non_null (cert);
    assert_string_equal (zcert_meta (cert, "worker-ids"), "w-1,w-2");
    assert_string_equal (zcert_meta (cert, "name"), "w");
    zcert_destroy (&cert);
    snprintf (path, sizeof path, "%s/plain.key_secret", dir);
    cert = drover_keys_load_pair (path, &error);
    assert_non_null (cert);
    zcert_destroy (&cert);
    testutil_remove_tree (dir);
}

//  A second keygen of a name refuses (status 1) and changes nothing;
//  --force makes a new pair, its secret 0600 even where the old one was
//  left readable by everyone
static void
test_keygen_refuses_overwrite_unless_forced (void **state)
{
    char dir [64];
    s_fresh_dir (dir, sizeof dir);
    testutil_keygen (dir, "bob");
    char public_path [128], secret_path [128];
    snprintf (public_path, sizeof public_path, "%s/bob.key", dir);
    snprintf (secret_path, sizeof secret_path, "%s/bob.key_secret", dir);
    char *before = testutil_slurp (secret_path);
    assert_non_null (before);

    char output [1024];
    const char *again [] = { "bob", "--dir", dir, NULL };
    assert_int_equal (s_keygen (again, output, sizeof output), 1);
    char *after = testutil_slurp (secret_path);
    assert_string_equal (before, after);
    free (after);
    //  Only the public file there: still refused
    char moved [160];
    snprintf (moved, sizeof moved, "%s.away", secret_path);
    assert_int_equal (rename (secret_path, moved), 0);
    assert_int_equal (s_keygen (again, output, sizeof output), 1);
    assert_int_equal (access (secret_path, F_OK), -1);
    assert_int_equal (rename (moved, secret_path), 0);

    assert_int_equal (chmod (secret_path, 0666), 0);
    const char *forced [] = { "bob", "--dir", dir, "--force", NULL };
    assert_int_equal (s_keygen (forced, output, sizeof output), 0);
    assert_int_equal (s_mode (secret_path), 0600);
    assert_int_equal (s_mode (public_path), 0644);
    after = testutil_slurp (secret_path);
    assert_string_not_equal (before, after);
    free (after);
    free (before);
    testutil_remove_tree (dir);
}

//  --json prints one object with the files, the public key and the ids
static void
test_keygen_json (void **state)
{
    char dir [64];
    s_fresh_dir (dir, sizeof dir);
    char output [2048];
    const char *args [] = { "carol", "--dir", dir, "--worker-ids", "a,b", "--json", NULL };
    assert_int_equal (s_keygen (args, output, sizeof output), 0);
    size_t length = strlen (output);
    assert_true (length > 2 && output [0] == '{' && output [length - 2] == '}'
                 && output [length - 1] == '\n');
    assert_ptr_equal (strchr (output, '\n'), output + length - 1);     //  one line
    char path [128];
    snprintf (path, sizeof path, "%s/carol.key", dir);
    char *error = NULL;
    zcert_t *cert = drover_keys_load_public (path, &error);
    assert_non_null (cert);
    char expected [256];
    snprintf (expected, sizeof expected, "\"public_key\": \"%s\"", zcert_public_txt (cert));
    //  Z85 may hold no '"' or '\\': the key appears as is
    assert_non_null (strstr (output, expected));
    snprintf (expected, sizeof expected, "\"public_key_file\": \"%s\"", path);
    assert_non_null (strstr (output, expected));
    snprintf (expected, sizeof expected, "\"secret_key_file\": \"%s_secret\"", path);
    assert_non_null (strstr (output, expected));
    assert_non_null (strstr (output, "\"name\": \"carol\""));
    assert_non_null (strstr (output, "\"worker_ids\": [\"a\", \"b\"]"));
    zcert_destroy (&cert);
    testutil_remove_tree (dir);
}

//  Names and ids that are refused (status 2, nothing written)
static void
test_keygen_refuses_bad_names (void **state)
{
    char dir [64];
    s_fresh_dir (dir, sizeof dir);
    char output [1024];
    char long_name [80];
    memset (long_name, 'x', 65);
    long_name [65] = 0;
    const char *names [] = { "a/b", "", ".hidden", long_name, "tab\there" };
    for (size_t index = 0; index < sizeof names / sizeof names [0]; index++) {
        const char *args [] = { names [index], "--dir", dir, NULL };
        assert_int_equal (s_keygen (args, output, sizeof output), 2);
    }
    const char *ids [] = { "a,,b", ",a", "a,", "has space" };
    for (size_t index = 0; index < sizeof ids / sizeof ids [0]; index++) {
        const char *args [] = { "ok", "--dir", dir, "--worker-ids", ids [index], NULL };
        assert_int_equal (s_keygen (args, output, sizeof output), 2);
    }
    const char *none [] = { "--dir", dir, NULL };
    assert_int_equal (s_keygen (none, output, sizeof output), 2);
    assert_int_equal (access (dir, F_OK), -1);      //  nothing made
    memset (long_name, 'x', 64);
    long_name [64] = 0;
    const char *longest [] = { long_name, "--dir", dir, NULL };
    assert_int_equal (s_keygen (longest, output, sizeof output), 0);
    testutil_remove_tree (dir);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_keygen_writes_a_pair_with_modes),
        cmocka_unit_test (test_keygen_worker_ids_in_metadata),
        cmocka_unit_test (test_keygen_refuses_overwrite_unless_forced),
        cmocka_unit_test (test_keygen_json),
        cmocka_unit_test (test_keygen_refuses_bad_names),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
