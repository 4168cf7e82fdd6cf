/*  =========================================================================
    drover_keyring - the public keys the broker knows, and each one's roles
    =========================================================================
*/

#include "drover_keyring.h"
#include "drover_keys.h"
#include <dirent.h>
#include <sys/stat.h>
#include <errno.h>

//  The role subdirectories, and what a key in each may do
static const struct {
    const char *name;           //  subdirectory of the keys directory
    uint8_t roles;              //  DROVER_ROLE_* bits it gives
} s_subdirs [] = {
    { "admins",  DROVER_ROLE_ADMIN | DROVER_ROLE_CLIENT },
    { "clients", DROVER_ROLE_CLIENT },
    { "workers", DROVER_ROLE_WORKER },
};
#define S_SUBDIRS   (sizeof s_subdirs / sizeof s_subdirs [0])

//  What a subdirectory looked like at the last scan
typedef struct {
    bool exists;                //  it was there
    ino_t inode;                //  its inode
    struct timespec modified;   //  its modification time
} s_seen_t;

struct _drover_keyring_t {
    char *directory;            //  the keys directory
    zhashx_t *keys;             //  Z85 public key -> drover_keyring_entry_t, owned
    s_seen_t seen [S_SUBDIRS];  //  each role subdirectory at the last scan
    int64_t scanned;            //  when the last full scan was, msec (mono)
    zlistx_t *revoked;          //  names the last refresh found gone, owned
    size_t unsafe;              //  key files the last scan refused outright
    bool quiet;                 //  say nothing of the files skipped (another
                                //  keyring over the directory says it)
};

//  Destroy an entry (the hash's destructor)
static void
s_entry_destroy (drover_keyring_entry_t **entry_p)
{
    if (*entry_p) {
        free ((*entry_p)->worker_ids);
        free (*entry_p);
        *entry_p = NULL;
    }
}

//  Create a keyring over a directory
drover_keyring_t *
drover_keyring_new (const char *directory)
{
    assert (directory);
    drover_keyring_t *self = (drover_keyring_t *) zmalloc (sizeof (drover_keyring_t));
    self->directory = strdup (directory);
    self->keys = zhashx_new ();
    zhashx_set_destructor (self->keys, (zhashx_destructor_fn *) s_entry_destroy);
    self->revoked = zlistx_new ();
    zlistx_set_destructor (self->revoked, (zlistx_destructor_fn *) zstr_free);
    zlistx_set_duplicator (self->revoked, (zlistx_duplicator_fn *) strdup);
    return self;
}

//  Destroy a keyring
void
drover_keyring_destroy (drover_keyring_t **self_p)
{
    assert (self_p);
    drover_keyring_t *self = *self_p;
    if (self) {
        zhashx_destroy (&self->keys);
        zlistx_destroy (&self->revoked);
        free (self->directory);
        free (self);
        *self_p = NULL;
    }
}

//  Tell whether a file name is a key's name plus ".key" (a public key
//  file), and copy the name out
static bool
s_key_name (const char *filename, char *name)
{
    size_t length = strlen (filename);
    if (length <= 4 || length - 4 > DROVER_ID_MAX || !streq (filename + length - 4, ".key"))
        return false;
    for (size_t index = 0; index < length - 4; index++)
        if (filename [index] <= ' ' || filename [index] > '~')
            return false;
    memcpy (name, filename, length - 4);
    name [length - 4] = 0;
    return true;
}

//  Bytes czmq's zauth (the broker's ZAP handler before drover_zap) writes
//  for a key's metadata at its handshake: it has a buffer of 512 and does
//  not check (czmq 4.2.1), so a key whose metadata is larger would
//  overflow it
static size_t
s_metadata_size (zcert_t *cert)
{
    size_t size = 0;
    zlist_t *names = zcert_meta_keys (cert);
    for (const char *name = (const char *) zlist_first (names); name;
         name = (const char *) zlist_next (names)) {
        const char *value = zcert_meta (cert, name);
        size += 1 + strlen (name) + 4 + (value? strlen (value): 0);
    }
    zlist_destroy (&names);
    return size;
}

//  Add one key file to KEYS with ROLES, or warn why not. Returns -1 for a
//  key file that must not be in the directory at all, else 0.
static int
s_add_key (zhashx_t *keys, const char *path, const char *name, uint8_t roles, bool quiet)
{
    char *error = NULL;
    zcert_t *cert = drover_keys_load_public (path, &error);
    if (!cert) {
        if (!quiet)
            zsys_warning ("keyring: skipped %s", error);
        zstr_free (&error);
        return 0;
    }
    size_t metadata = s_metadata_size (cert);
    if (metadata > DROVER_KEYRING_METADATA_MAX) {
        if (!quiet)
            zsys_error ("keyring: %s: its metadata takes %zu bytes, past %d: czmq's zauth would "
                        "overflow at its handshake; shorten worker-ids and remove the file at "
                        "once", path, metadata, DROVER_KEYRING_METADATA_MAX);
        zcert_destroy (&cert);
        return -1;
    }
    const char *key = zcert_public_txt (cert);
    drover_keyring_entry_t *entry = (drover_keyring_entry_t *) zhashx_lookup (keys, key);
    if (entry) {
        if (!streq (entry->name, name) && !quiet)
            zsys_warning ("keyring: %s holds the key of '%s': it keeps that name", path,
                          entry->name);
        entry->roles |= roles;
    }
    else {
        //  Two keys under one name would be two owners of the same tasks
        for (entry = (drover_keyring_entry_t *) zhashx_first (keys); entry;
             entry = (drover_keyring_entry_t *) zhashx_next (keys))
            if (streq (entry->name, name))
                break;
        if (entry) {
            if (!quiet)
                zsys_warning ("keyring: skipped %s: another key is already named '%s'", path,
                              name);
        }
        else {
            entry = (drover_keyring_entry_t *) zmalloc (sizeof (drover_keyring_entry_t));
            snprintf (entry->name, sizeof entry->name, "%s", name);
            entry->roles = roles;
            const char *ids = zcert_meta (cert, "worker-ids");
            entry->worker_ids = ids && *ids? strdup (ids): NULL;
            zhashx_insert (keys, key, entry);
        }
    }
    zcert_destroy (&cert);
    return 0;
}

//  Read one role subdirectory's key files into KEYS; counts those that
//  must not be there in self->unsafe
static void
s_scan_subdir (drover_keyring_t *self, zhashx_t *keys, size_t subdir)
{
    char *path = zsys_sprintf ("%s/%s", self->directory, s_subdirs [subdir].name);
    DIR *handle = opendir (path);
    if (handle) {
        struct dirent *dirent;
        while ((dirent = readdir (handle))) {
            char name [DROVER_ID_MAX + 1];
            if (!s_key_name (dirent->d_name, name))
                continue;
            char *file = zsys_sprintf ("%s/%s", path, dirent->d_name);
            if (s_add_key (keys, file, name, s_subdirs [subdir].roles, self->quiet))
                self->unsafe++;
            zstr_free (&file);
        }
        closedir (handle);
    }
    zstr_free (&path);
}

//  Look at each role subdirectory; true if one changed since the last scan
static bool
s_subdirs_changed (drover_keyring_t *self)
{
    bool changed = false;
    for (size_t subdir = 0; subdir < S_SUBDIRS; subdir++) {
        char *path = zsys_sprintf ("%s/%s", self->directory, s_subdirs [subdir].name);
        struct stat status;
        s_seen_t now = { false, 0, { 0, 0 } };
        if (stat (path, &status) == 0 && S_ISDIR (status.st_mode)) {
            now.exists = true;
            now.inode = status.st_ino;
            now.modified = status.st_mtim;
        }
        s_seen_t *seen = &self->seen [subdir];
        if (now.exists != seen->exists || now.inode != seen->inode
        ||  now.modified.tv_sec != seen->modified.tv_sec
        ||  now.modified.tv_nsec != seen->modified.tv_nsec)
            changed = true;
        *seen = now;
        zstr_free (&path);
    }
    return changed;
}

//  Read every key again; list the names whose key is gone
static void
s_scan (drover_keyring_t *self, int64_t now)
{
    zhashx_t *keys = zhashx_new ();
    zhashx_set_destructor (keys, (zhashx_destructor_fn *) s_entry_destroy);
    self->unsafe = 0;
    for (size_t subdir = 0; subdir < S_SUBDIRS; subdir++)
        s_scan_subdir (self, keys, subdir);
    zlistx_purge (self->revoked);
    for (drover_keyring_entry_t *entry = (drover_keyring_entry_t *) zhashx_first (self->keys);
         entry; entry = (drover_keyring_entry_t *) zhashx_next (self->keys))
        if (!zhashx_lookup (keys, zhashx_cursor (self->keys)))
            zlistx_add_end (self->revoked, entry->name);
    zhashx_destroy (&self->keys);
    self->keys = keys;
    self->scanned = now;
}

//  Say nothing of the key files skipped
void
drover_keyring_set_quiet (drover_keyring_t *self)
{
    assert (self);
    self->quiet = true;
}

//  Read the keys for the first time
int
drover_keyring_load (drover_keyring_t *self, char **error_p)
{
    assert (self);
    struct stat status;
    errno = 0;
    if (stat (self->directory, &status) == -1 || !S_ISDIR (status.st_mode)) {
        *error_p = zsys_sprintf ("security/keys: %s: %s", self->directory,
                                 errno? strerror (errno): "not a directory");
        return -1;
    }
    s_subdirs_changed (self);
    bool any = false;
    for (size_t subdir = 0; subdir < S_SUBDIRS; subdir++)
        any |= self->seen [subdir].exists;
    if (!any) {
        *error_p = zsys_sprintf ("security/keys: %s has none of the role subdirectories "
                                 "workers/, clients/, admins/: no key could connect",
                                 self->directory);
        return -1;
    }
    s_scan (self, zclock_mono ());
    zlistx_purge (self->revoked);
    if (self->unsafe) {
        *error_p = zsys_sprintf ("security/keys: %s: %zu key file(s) with too much metadata "
                                 "(see the log): remove or shorten them", self->directory,
                                 self->unsafe);
        return -1;
    }
    return 0;
}

//  Rescan if something changed or the last scan is old
size_t
drover_keyring_refresh (drover_keyring_t *self, int64_t now)
{
    assert (self);
    bool changed = s_subdirs_changed (self);
    if (changed || now - self->scanned >= DROVER_KEYRING_RESCAN)
        s_scan (self, now);
    else
        zlistx_purge (self->revoked);
    return zlistx_size (self->revoked);
}

//  The names the last refresh found gone
const char *
drover_keyring_revoked (drover_keyring_t *self, size_t index)
{
    assert (self);
    const char *name = (const char *) zlistx_first (self->revoked);
    for (size_t at = 0; name && at < index; at++)
        name = (const char *) zlistx_next (self->revoked);
    return name;
}

//  Find a key by its Z85 text
const drover_keyring_entry_t *
drover_keyring_lookup (drover_keyring_t *self, const char *key)
{
    assert (self);
    return key? (const drover_keyring_entry_t *) zhashx_lookup (self->keys, key): NULL;
}

//  Tell whether an entry may register as a worker id
bool
drover_keyring_allows_worker (const drover_keyring_entry_t *entry, const char *id)
{
    if (!entry->worker_ids)
        return true;
    size_t length = strlen (id);
    for (const char *at = entry->worker_ids; *at; ) {
        const char *comma = strchr (at, ',');
        size_t size = comma? (size_t) (comma - at): strlen (at);
        if (size == length && memcmp (at, id, length) == 0)
            return true;
        at += size + (comma? 1: 0);
    }
    return false;
}

//  Keys known
size_t
drover_keyring_size (drover_keyring_t *self)
{
    assert (self);
    return zhashx_size (self->keys);
}
