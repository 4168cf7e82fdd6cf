/*  =========================================================================
    test_drover_serverkeys - which broker key each endpoint gets: the one
    its list item names, the one named as the broker a REDIRECT named,
    the only one; and the lists and files refused, saying why
    =========================================================================
*/

#include "testutil_proc.h"
#include "drover_serverkeys.h"
#include <sys/stat.h>

typedef struct {
    char dir [64];              //  temp directory: brokers/b1.key, b2.key, other/b1.key
    char brokers [96];          //  the directory of both brokers' keys
    zcert_t *b1;                //  broker b1's pair
    zcert_t *b2;                //  broker b2's pair
    zcert_t *impostor;          //  other/b1.key: another key named b1
} s_keys_t;

//  Save a public key at dir/sub/name.key
static zcert_t *
s_save (s_keys_t *self, const char *sub, const char *name)
{
    char *path = zsys_sprintf ("%s/%s", self->dir, sub);
    mkdir (path, 0755);
    zstr_free (&path);
    zcert_t *cert = zcert_new ();
    path = zsys_sprintf ("%s/%s/%s.key", self->dir, sub, name);
    assert_int_equal (zcert_save_public (cert, path), 0);
    zstr_free (&path);
    return cert;
}

static int
s_setup (void **state)
{
    s_keys_t *self = (s_keys_t *) zmalloc (sizeof (s_keys_t));
    snprintf (self->dir, sizeof self->dir, "/tmp/drover-serverkeys-XXXXXX");
    assert_non_null (mkdtemp (self->dir));
    snprintf (self->brokers, sizeof self->brokers, "%s/brokers", self->dir);
    self->b1 = s_save (self, "brokers", "b1");
    self->b2 = s_save (self, "brokers", "b2");
    self->impostor = s_save (self, "other", "b1");
    char *junk = zsys_sprintf ("%s/brokers/notes.txt", self->dir);
    FILE *file = fopen (junk, "w");
    assert_non_null (file);
    fputs ("not a key\n", file);
    fclose (file);
    zstr_free (&junk);
    char *empty = zsys_sprintf ("%s/empty", self->dir);
    assert_int_equal (mkdir (empty, 0755), 0);
    zstr_free (&empty);
    *state = self;
    return 0;
}

static int
s_teardown (void **state)
{
    s_keys_t *self = (s_keys_t *) *state;
    zcert_destroy (&self->b1);
    zcert_destroy (&self->b2);
    zcert_destroy (&self->impostor);
    testutil_remove_tree (self->dir);
    free (self);
    return 0;
}

#define A "tcp://10.0.0.1:5555"
#define B "tcp://10.0.0.2:5555"
#define C "tcp://10.0.0.3:5555"

//  One key trusted: every broker gets it (one pair shared by all)
static void
test_one_key_for_all (void **state)
{
    s_keys_t *self = (s_keys_t *) *state;
    drover_serverkeys_t *keys = drover_serverkeys_new ();
    char *error = NULL;
    char *path = zsys_sprintf ("%s/b1.key", self->brokers);
    assert_int_equal (drover_serverkeys_add (keys, path, &error), 0);
    zstr_free (&path);
    drover_endpoints_t *list = drover_endpoints_new (A "," B);
    assert_int_equal (drover_serverkeys_pair_list (keys, list, &error), 0);
    assert_string_equal (drover_serverkeys_for (keys, A), zcert_public_txt (self->b1));
    assert_string_equal (drover_serverkeys_for (keys, C), zcert_public_txt (self->b1));
    assert_string_equal (drover_serverkeys_name_for (keys, B), "b1");
    drover_endpoints_destroy (&list);
    drover_serverkeys_destroy (&keys);
    drover_serverkeys_destroy (&keys);
}

//  A directory of keys, each endpoint naming its own; a leader a REDIRECT
//  names gets the key of the broker's name
static void
test_keys_by_name (void **state)
{
    s_keys_t *self = (s_keys_t *) *state;
    drover_serverkeys_t *keys = drover_serverkeys_new ();
    char *error = NULL;
    assert_int_equal (drover_serverkeys_add_list (keys, self->brokers, &error), 0);
    assert_int_equal (drover_serverkeys_size (keys), 2);
    drover_endpoints_t *list = drover_endpoints_new (" " A " = b1 , " B "=b2");
    assert_int_equal (drover_endpoints_size (list), 2);
    assert_string_equal (drover_endpoints_item (list, 0), A);
    assert_string_equal (drover_endpoints_item_key (list, 1), "b2");
    assert_int_equal (drover_serverkeys_pair_list (keys, list, &error), 0);
    assert_string_equal (drover_serverkeys_for (keys, A), zcert_public_txt (self->b1));
    assert_string_equal (drover_serverkeys_for (keys, B), zcert_public_txt (self->b2));
    assert_null (drover_serverkeys_for (keys, C));
    drover_serverkeys_learn (keys, C, "b2");
    assert_string_equal (drover_serverkeys_for (keys, C), zcert_public_txt (self->b2));
    //  A REDIRECT does not override the list, nor teach a key not trusted
    drover_serverkeys_learn (keys, A, "b2");
    assert_string_equal (drover_serverkeys_for (keys, A), zcert_public_txt (self->b1));
    drover_serverkeys_learn (keys, "tcp://10.0.0.4:5555", "b9");
    assert_null (drover_serverkeys_for (keys, "tcp://10.0.0.4:5555"));
    drover_endpoints_destroy (&list);
    drover_serverkeys_destroy (&keys);
}

//  A list item may give the key file itself
static void
test_key_file_in_list (void **state)
{
    s_keys_t *self = (s_keys_t *) *state;
    drover_serverkeys_t *keys = drover_serverkeys_new ();
    char *error = NULL;
    char *text = zsys_sprintf (A "=%s/b1.key," B "=%s/b2.key", self->brokers, self->brokers);
    drover_endpoints_t *list = drover_endpoints_new (text);
    zstr_free (&text);
    assert_int_equal (drover_serverkeys_pair_list (keys, list, &error), 0);
    assert_string_equal (drover_serverkeys_for (keys, B), zcert_public_txt (self->b2));
    assert_int_equal (drover_serverkeys_size (keys), 2);
    drover_endpoints_destroy (&list);
    drover_serverkeys_destroy (&keys);
}

//  Refused, saying why: several keys and an endpoint naming none, a name
//  not trusted, a directory without keys, two keys of one name
static void
test_refused_lists_and_files (void **state)
{
    s_keys_t *self = (s_keys_t *) *state;
    drover_serverkeys_t *keys = drover_serverkeys_new ();
    char *error = NULL;
    assert_int_equal (drover_serverkeys_add (keys, self->brokers, &error), 0);
    drover_endpoints_t *list = drover_endpoints_new (A "=b1," B);
    assert_int_equal (drover_serverkeys_pair_list (keys, list, &error), -1);
    assert_non_null (strstr (error, B ": which broker key is this broker's? 2 are trusted "
                                    "(b1, b2)"));
    zstr_free (&error);
    drover_endpoints_destroy (&list);
    list = drover_endpoints_new (A "=b3");
    assert_int_equal (drover_serverkeys_pair_list (keys, list, &error), -1);
    assert_non_null (strstr (error, "no broker key named 'b3' is trusted (trusted: b1, b2"));
    zstr_free (&error);
    drover_endpoints_destroy (&list);

    char *empty = zsys_sprintf ("%s/empty", self->dir);
    assert_int_equal (drover_serverkeys_add (keys, empty, &error), -1);
    assert_non_null (strstr (error, "holds no broker public key"));
    zstr_free (&error);
    zstr_free (&empty);
    char *impostor = zsys_sprintf ("%s/other/b1.key", self->dir);
    assert_int_equal (drover_serverkeys_add (keys, impostor, &error), -1);
    assert_non_null (strstr (error, "another broker key is already named 'b1'"));
    zstr_free (&error);
    zstr_free (&impostor);
    assert_int_equal (drover_serverkeys_add (keys, "/nonexistent/b1.key", &error), -1);
    zstr_free (&error);
    drover_serverkeys_destroy (&keys);

    //  No key at all
    keys = drover_serverkeys_new ();
    list = drover_endpoints_new (A);
    assert_int_equal (drover_serverkeys_pair_list (keys, list, &error), -1);
    assert_non_null (strstr (error, "no broker public key is given"));
    zstr_free (&error);
    drover_endpoints_destroy (&list);
    drover_serverkeys_destroy (&keys);
}

//  Only what follows an endpoint's scheme is split: a key needs "://" before
static void
test_endpoint_split (void **state)
{
    (void) state;
    drover_endpoints_t *list = drover_endpoints_new ("tcp://a:1=, ipc:///tmp/x=y,inproc://z");
    assert_int_equal (drover_endpoints_size (list), 3);
    assert_string_equal (drover_endpoints_item (list, 0), "tcp://a:1=");
    assert_null (drover_endpoints_item_key (list, 0));
    assert_string_equal (drover_endpoints_item (list, 1), "ipc:///tmp/x");
    assert_string_equal (drover_endpoints_item_key (list, 1), "y");
    assert_null (drover_endpoints_item_key (list, 2));
    drover_endpoints_destroy (&list);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_one_key_for_all),
        cmocka_unit_test (test_keys_by_name),
        cmocka_unit_test (test_key_file_in_list),
        cmocka_unit_test (test_refused_lists_and_files),
        cmocka_unit_test (test_endpoint_split),
    };
    return cmocka_run_group_tests (tests, s_setup, s_teardown);
}
