/*  =========================================================================
    test_drover_keyring - the broker's public keys: roles by subdirectory,
    pinned worker ids, refusals at load, revocation on refresh
    =========================================================================
*/

#include "testutil_proc.h"
#include "drover_keyring.h"

//  A keys directory made for one test
typedef struct {
    char root [64];             //  the keys directory
} s_keys_t;

//  Make a keys directory with the given role subdirectories (NULL-ended)
static void
s_keys_make (s_keys_t *keys, const char *subdir, ...)
{
    snprintf (keys->root, sizeof keys->root, "/tmp/drover-keyring-XXXXXX");
    assert_non_null (mkdtemp (keys->root));
    va_list args;
    va_start (args, subdir);
    for (; subdir; subdir = va_arg (args, const char *)) {
        char *path = zsys_sprintf ("%s/%s", keys->root, subdir);
        assert_int_equal (mkdir (path, 0755), 0);
        zstr_free (&path);
    }
    va_end (args);
}

//  Write a new public key file SUBDIR/NAME.key; returns its Z85 text
//  (caller frees). WORKER_IDS, if not NULL, pins the ids it may use.
static char *
s_key_write (s_keys_t *keys, const char *subdir, const char *name, const char *worker_ids)
{
    zcert_t *cert = zcert_new ();
    if (worker_ids)
        zcert_set_meta (cert, "worker-ids", "%s", worker_ids);
    char *path = zsys_sprintf ("%s/%s/%s.key", keys->root, subdir, name);
    assert_int_equal (zcert_save_public (cert, path), 0);
    char *text = strdup (zcert_public_txt (cert));
    zstr_free (&path);
    zcert_destroy (&cert);
    return text;
}

//  Copy an existing key into another subdirectory under another name
static void
s_key_copy (s_keys_t *keys, const char *from, const char *to)
{
    char *command = zsys_sprintf ("cp %s/%s %s/%s", keys->root, from, keys->root, to);
    assert_int_equal (system (command), 0);
    zstr_free (&command);
}

//  Each subdirectory gives its roles; admins are clients too; a key in
//  two subdirectories has both; an unknown key has none
static void
test_roles_by_subdirectory (void **state)
{
    s_keys_t keys;
    s_keys_make (&keys, "workers", "clients", "admins", NULL);
    char *worker = s_key_write (&keys, "workers", "node-1", NULL);
    char *client = s_key_write (&keys, "clients", "alice", NULL);
    char *admin = s_key_write (&keys, "admins", "root-op", NULL);
    char *both = s_key_write (&keys, "workers", "dual", NULL);
    s_key_copy (&keys, "workers/dual.key", "clients/dual.key");
    drover_keyring_t *keyring = drover_keyring_new (keys.root);
    char *error = NULL;
    assert_int_equal (drover_keyring_load (keyring, &error), 0);
    assert_int_equal (drover_keyring_size (keyring), 4);

    const drover_keyring_entry_t *entry = drover_keyring_lookup (keyring, worker);
    assert_non_null (entry);
    assert_string_equal (entry->name, "node-1");
    assert_int_equal (entry->roles, DROVER_ROLE_WORKER);
    entry = drover_keyring_lookup (keyring, client);
    assert_string_equal (entry->name, "alice");
    assert_int_equal (entry->roles, DROVER_ROLE_CLIENT);
    entry = drover_keyring_lookup (keyring, admin);
    assert_int_equal (entry->roles, DROVER_ROLE_ADMIN | DROVER_ROLE_CLIENT);
    entry = drover_keyring_lookup (keyring, both);
    assert_int_equal (entry->roles, DROVER_ROLE_WORKER | DROVER_ROLE_CLIENT);
    zcert_t *stranger = zcert_new ();
    assert_null (drover_keyring_lookup (keyring, zcert_public_txt (stranger)));
    assert_null (drover_keyring_lookup (keyring, NULL));
    zcert_destroy (&stranger);

    drover_keyring_destroy (&keyring);
    drover_keyring_destroy (&keyring);      //  harmless twice
    testutil_remove_tree (keys.root);
    zstr_free (&worker);
    zstr_free (&client);
    zstr_free (&admin);
    zstr_free (&both);
}

//  A worker key's metadata pins the ids it may register as
static void
test_pinned_worker_ids (void **state)
{
    s_keys_t keys;
    s_keys_make (&keys, "workers", NULL);
    char *pinned = s_key_write (&keys, "workers", "rack-a", "a-1,a-2");
    char *free_key = s_key_write (&keys, "workers", "rack-b", NULL);
    drover_keyring_t *keyring = drover_keyring_new (keys.root);
    char *error = NULL;
    assert_int_equal (drover_keyring_load (keyring, &error), 0);
    const drover_keyring_entry_t *entry = drover_keyring_lookup (keyring, pinned);
    assert_true (drover_keyring_allows_worker (entry, "a-1"));
    assert_true (drover_keyring_allows_worker (entry, "a-2"));
    assert_false (drover_keyring_allows_worker (entry, "a-"));
    assert_false (drover_keyring_allows_worker (entry, "a-12"));
    assert_false (drover_keyring_allows_worker (entry, "b-1"));
    entry = drover_keyring_lookup (keyring, free_key);
    assert_true (drover_keyring_allows_worker (entry, "anything"));
    drover_keyring_destroy (&keyring);
    testutil_remove_tree (keys.root);
    zstr_free (&pinned);
    zstr_free (&free_key);
}

//  A missing directory, or one with no role subdirectory, is refused with
//  a message naming it; junk files and secret files are not keys
static void
test_load_refusals_and_junk (void **state)
{
    char *error = NULL;
    drover_keyring_t *keyring = drover_keyring_new ("/nonexistent/keys");
    assert_int_equal (drover_keyring_load (keyring, &error), -1);
    assert_non_null (strstr (error, "/nonexistent/keys"));
    zstr_free (&error);
    drover_keyring_destroy (&keyring);

    s_keys_t keys;
    s_keys_make (&keys, "other", NULL);
    keyring = drover_keyring_new (keys.root);
    assert_int_equal (drover_keyring_load (keyring, &error), -1);
    assert_non_null (strstr (error, "workers/, clients/, admins/"));
    zstr_free (&error);
    drover_keyring_destroy (&keyring);
    testutil_remove_tree (keys.root);

    s_keys_make (&keys, "clients", "admins-not", NULL);
    char *path = zsys_sprintf ("%s/clients/junk.key", keys.root);
    FILE *file = fopen (path, "w");
    fputs ("not a key\n", file);
    fclose (file);
    zstr_free (&path);
    zcert_t *cert = zcert_new ();
    path = zsys_sprintf ("%s/clients/pair.key_secret", keys.root);
    assert_int_equal (zcert_save_secret (cert, path), 0);  //  a secret file: not a key
    zstr_free (&path);
    zcert_destroy (&cert);
    char *alice = s_key_write (&keys, "clients", "alice", NULL);
    char *impostor = s_key_write (&keys, "admins-not", "x", NULL);  //  not a role dir
    keyring = drover_keyring_new (keys.root);
    assert_int_equal (drover_keyring_load (keyring, &error), 0);
    assert_int_equal (drover_keyring_size (keyring), 1);
    assert_non_null (drover_keyring_lookup (keyring, alice));
    assert_null (drover_keyring_lookup (keyring, impostor));
    drover_keyring_destroy (&keyring);

    //  Metadata zauth would overflow on stops the start
    char ids [600] = "";
    for (int index = 0; index < 60; index++)
        strcat (ids, index? ",node-0000": "node-0000");
    char *long_ids = s_key_write (&keys, "clients", "long", ids);
    keyring = drover_keyring_new (keys.root);
    assert_int_equal (drover_keyring_load (keyring, &error), -1);
    assert_non_null (strstr (error, "too much metadata"));
    zstr_free (&error);
    drover_keyring_destroy (&keyring);
    testutil_remove_tree (keys.root);
    zstr_free (&alice);
    zstr_free (&impostor);
    zstr_free (&long_ids);
}

//  Removing a key file revokes it at the next refresh, which names it;
//  adding one is seen at once; nothing changed, nothing revoked
static void
test_refresh_revokes_removed_keys (void **state)
{
    s_keys_t keys;
    s_keys_make (&keys, "clients", "workers", NULL);
    char *alice = s_key_write (&keys, "clients", "alice", NULL);
    char *bob = s_key_write (&keys, "clients", "bob", NULL);
    drover_keyring_t *keyring = drover_keyring_new (keys.root);
    char *error = NULL;
    assert_int_equal (drover_keyring_load (keyring, &error), 0);
    int64_t now = zclock_mono ();
    assert_int_equal (drover_keyring_refresh (keyring, now), 0);

    char *path = zsys_sprintf ("%s/clients/alice.key", keys.root);
    assert_int_equal (unlink (path), 0);
    zstr_free (&path);
    assert_int_equal (drover_keyring_refresh (keyring, now), 1);
    assert_string_equal (drover_keyring_revoked (keyring, 0), "alice");
    assert_null (drover_keyring_revoked (keyring, 1));
    assert_null (drover_keyring_lookup (keyring, alice));
    assert_non_null (drover_keyring_lookup (keyring, bob));
    assert_int_equal (drover_keyring_refresh (keyring, now), 0);
    assert_null (drover_keyring_revoked (keyring, 0));

    char *carol = s_key_write (&keys, "workers", "carol", NULL);
    assert_int_equal (drover_keyring_refresh (keyring, now), 0);
    assert_non_null (drover_keyring_lookup (keyring, carol));

    //  A file rewritten in place (no directory change) is seen at the
    //  next full rescan
    path = zsys_sprintf ("%s/clients/bob.key", keys.root);
    zcert_t *other = zcert_new ();
    assert_int_equal (zcert_save_public (other, path), 0);
    zstr_free (&path);
    assert_int_equal (drover_keyring_refresh (keyring, now + DROVER_KEYRING_RESCAN), 1);
    assert_string_equal (drover_keyring_revoked (keyring, 0), "bob");
    assert_null (drover_keyring_lookup (keyring, bob));
    assert_non_null (drover_keyring_lookup (keyring, zcert_public_txt (other)));
    zcert_destroy (&other);

    drover_keyring_destroy (&keyring);
    testutil_remove_tree (keys.root);
    zstr_free (&alice);
    zstr_free (&bob);
    zstr_free (&carol);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_roles_by_subdirectory),
        cmocka_unit_test (test_pinned_worker_ids),
        cmocka_unit_test (test_load_refusals_and_junk),
        cmocka_unit_test (test_refresh_revokes_removed_keys),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
