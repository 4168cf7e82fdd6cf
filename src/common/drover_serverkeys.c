/*  =========================================================================
    drover_serverkeys - the brokers' public keys a peer trusts, and which
    one each broker endpoint gets (see the header)
    =========================================================================
*/

#include "drover_serverkeys.h"
#include "drover_keys.h"
#include <dirent.h>
#include <sys/stat.h>
#include <errno.h>

//  Endpoints a REDIRECT taught a key, remembered at most (leaders come and
//  go; the list's own are few)
#define S_LEARNED_MAX   256

struct _drover_serverkeys_t {
    zhashx_t *keys;             //  name -> Z85 public key, owned
    zhashx_t *paired;           //  endpoint -> name, as the list says, owned
    zhashx_t *learned;          //  endpoint -> name, as a REDIRECT said, owned
};


//  A string table that owns its values
static zhashx_t *
s_table_new (void)
{
    zhashx_t *table = zhashx_new ();
    zhashx_set_destructor (table, (zhashx_destructor_fn *) zstr_free);
    zhashx_set_duplicator (table, (zhashx_duplicator_fn *) strdup);
    return table;
}

//  Create an empty set
drover_serverkeys_t *
drover_serverkeys_new (void)
{
    drover_serverkeys_t *self = (drover_serverkeys_t *) zmalloc (sizeof (drover_serverkeys_t));
    self->keys = s_table_new ();
    self->paired = s_table_new ();
    self->learned = s_table_new ();
    return self;
}

//  Destroy
void
drover_serverkeys_destroy (drover_serverkeys_t **self_p)
{
    assert (self_p);
    drover_serverkeys_t *self = *self_p;
    if (!self)
        return;
    zhashx_destroy (&self->keys);
    zhashx_destroy (&self->paired);
    zhashx_destroy (&self->learned);
    free (self);
    *self_p = NULL;
}

//  The name of a key file: its file name less ".key"
static void
s_key_name (const char *path, char *name, size_t size)
{
    const char *slash = strrchr (path, '/');
    snprintf (name, size, "%s", slash? slash + 1: path);
    size_t length = strlen (name);
    if (length > 4 && streq (name + length - 4, ".key"))
        name [length - 4] = 0;
}

//  Trust one key file under its name
static int
s_add_file (drover_serverkeys_t *self, const char *path, char **error_p)
{
    zcert_t *cert = drover_keys_load_public (path, error_p);
    if (!cert)
        return -1;
    char name [256];
    s_key_name (path, name, sizeof name);
    const char *known = (const char *) zhashx_lookup (self->keys, name);
    int rc = 0;
    if (known && !streq (known, zcert_public_txt (cert))) {
        *error_p = zsys_sprintf ("%s: another broker key is already named '%s' (a key's name is "
                                 "its file's name less .key)", path, name);
        rc = -1;
    }
    else
        zhashx_update (self->keys, name, (void *) zcert_public_txt (cert));
    zcert_destroy (&cert);
    return rc;
}

//  Trust every NAME.key of a directory
static int
s_add_directory (drover_serverkeys_t *self, const char *path, char **error_p)
{
    DIR *handle = opendir (path);
    if (!handle) {
        *error_p = zsys_sprintf ("%s: %s", path, strerror (errno));
        return -1;
    }
    size_t added = 0;
    int rc = 0;
    struct dirent *entry;
    while (rc == 0 && (entry = readdir (handle))) {
        size_t length = strlen (entry->d_name);
        if (entry->d_name [0] == '.' || length <= 4 || !streq (entry->d_name + length - 4, ".key"))
            continue;
        char *file = zsys_sprintf ("%s/%s", path, entry->d_name);
        struct stat status;
        if (stat (file, &status) == 0 && S_ISREG (status.st_mode)) {
            rc = s_add_file (self, file, error_p);
            added += rc == 0;
        }
        zstr_free (&file);
    }
    closedir (handle);
    if (rc == 0 && added == 0) {
        *error_p = zsys_sprintf ("%s: holds no broker public key (NAME.key)", path);
        rc = -1;
    }
    return rc;
}

//  Trust a key file, or every key file of a directory
int
drover_serverkeys_add (drover_serverkeys_t *self, const char *path, char **error_p)
{
    assert (self);
    assert (path);
    struct stat status;
    if (stat (path, &status) == 0 && S_ISDIR (status.st_mode))
        return s_add_directory (self, path, error_p);
    return s_add_file (self, path, error_p);
}

//  Trust the keys of a comma-separated list
int
drover_serverkeys_add_list (drover_serverkeys_t *self, const char *list, char **error_p)
{
    assert (self);
    assert (list);
    char *copy = strdup (list);
    assert (copy);
    int rc = 0;
    for (char *item = copy, *next; rc == 0 && item; item = next) {
        next = strchr (item, ',');
        if (next)
            *next++ = 0;
        if (*item)
            rc = drover_serverkeys_add (self, item, error_p);
    }
    free (copy);
    return rc;
}

//  Return how many keys are trusted
size_t
drover_serverkeys_size (drover_serverkeys_t *self)
{
    assert (self);
    return zhashx_size (self->keys);
}

//  The trusted keys' names, comma-separated, for a message (caller frees)
static char *
s_names (drover_serverkeys_t *self)
{
    zlistx_t *names = zhashx_keys (self->keys);
    zlistx_set_comparator (names, (zlistx_comparator_fn *) strcmp);
    zlistx_sort (names);
    char *text = strdup ("");
    for (const char *name = (const char *) zlistx_first (names); name;
         name = (const char *) zlistx_next (names)) {
        char *longer = zsys_sprintf ("%s%s%s", text, *text? ", ": "", name);
        free (text);
        text = longer;
    }
    zlistx_destroy (&names);
    return text;
}

//  Give the broker at endpoint a key
int
drover_serverkeys_pair (drover_serverkeys_t *self, const char *endpoint, const char *key,
                        char **error_p)
{
    assert (self);
    assert (endpoint && key);
    char name [256];
    if (strchr (key, '/')) {
        if (s_add_file (self, key, error_p))
            return -1;
        s_key_name (key, name, sizeof name);
    }
    else {
        snprintf (name, sizeof name, "%s", key);
        if (!zhashx_lookup (self->keys, name)) {
            char *names = s_names (self);
            *error_p = zsys_sprintf ("%s=%s: no broker key named '%s' is trusted (%s%s; give "
                                     "its file with --server-key, or the path: %s=FILE)",
                                     endpoint, key, key, *names? "trusted: ": "none trusted",
                                     names, endpoint);
            zstr_free (&names);
            return -1;
        }
    }
    zhashx_update (self->paired, endpoint, name);
    return 0;
}

//  Pair each endpoint of a list with the key it names; each must have one
int
drover_serverkeys_pair_list (drover_serverkeys_t *self, drover_endpoints_t *list,
                             char **error_p)
{
    assert (self);
    assert (list);
    size_t size = drover_endpoints_size (list);
    for (size_t index = 0; index < size; index++) {
        const char *key = drover_endpoints_item_key (list, index);
        if (key && drover_serverkeys_pair (self, drover_endpoints_item (list, index), key,
                                           error_p))
            return -1;
    }
    for (size_t index = 0; index < size; index++) {
        const char *endpoint = drover_endpoints_item (list, index);
        if (drover_serverkeys_for (self, endpoint))
            continue;
        char *names = s_names (self);
        if (*names)
            *error_p = zsys_sprintf ("%s: which broker key is this broker's? %zu are trusted "
                                     "(%s): name it in the list of brokers, %s=NAME",
                                     endpoint, drover_serverkeys_size (self), names, endpoint);
        else
            *error_p = zsys_sprintf ("%s: no broker public key is given (--server-key FILE, "
                                     "or %s=FILE in the list of brokers)", endpoint, endpoint);
        zstr_free (&names);
        return -1;
    }
    return 0;
}

//  A REDIRECT named broker name at endpoint
void
drover_serverkeys_learn (drover_serverkeys_t *self, const char *endpoint, const char *name)
{
    assert (self);
    if (!endpoint || !*endpoint || !name || !*name || !zhashx_lookup (self->keys, name))
        return;
    if (zhashx_size (self->learned) >= S_LEARNED_MAX)
        zhashx_purge (self->learned);
    zhashx_update (self->learned, endpoint, (void *) name);
}

//  Return the name of the key of the broker at endpoint
const char *
drover_serverkeys_name_for (drover_serverkeys_t *self, const char *endpoint)
{
    assert (self);
    const char *name = (const char *) zhashx_lookup (self->paired, endpoint);
    if (!name)
        name = (const char *) zhashx_lookup (self->learned, endpoint);
    if (!name && zhashx_size (self->keys) == 1) {
        zhashx_first (self->keys);
        name = (const char *) zhashx_cursor (self->keys);
    }
    return name;
}

//  Return the public key of the broker at endpoint
const char *
drover_serverkeys_for (drover_serverkeys_t *self, const char *endpoint)
{
    assert (self);
    const char *name = drover_serverkeys_name_for (self, endpoint);
    return name? (const char *) zhashx_lookup (self->keys, name): NULL;
}
