/*  =========================================================================
    drover_sqlbackup - an online copy of the SQLite state into a file of
    its own, a bounded number of pages at a time (see the header)

    SQLite's backup API (sqlite3_backup_init, _step, _finish) copies pages
    from the source connection into a destination connection on the part
    file. The destination is a plain rollback-journal database: its commit
    at the last step syncs it; we sync it again once closed, link it to
    its name (link refuses a name that exists, where rename would replace
    it) and sync the directory, so the name appears only over a whole
    file that survives a power cut.
    =========================================================================
*/

#include "drover_sqlbackup.h"

struct _drover_sqlbackup_t {
    sqlite3 *dest;                  //  the connection on the part file
    sqlite3_backup *backup;         //  the copy in progress, NULL once finished
    char *path;                     //  the file asked for
    char *part;                     //  path.part, written first
    uint64_t copied;                //  pages copied so far
    uint64_t total;                 //  pages of the source, at the last step
    uint64_t bytes;                 //  the file's size once done
    bool done;                      //  in place at path
};

//  Write "backup: cannot write PATH: WHY" for errno
static void
s_cannot_write (const char *path, int error_number, char *error, size_t error_size)
{
    snprintf (error, error_size, "backup: cannot write %s: %s", path, strerror (error_number));
}

//  Start copying source into path
drover_sqlbackup_t *
drover_sqlbackup_new (sqlite3 *source, const char *path, int *code_p,
                      char *error, size_t error_size)
{
    assert (source && path && code_p && error);
    *code_p = 400;
    if (path [0] != '/') {
        snprintf (error, error_size, "backup: %s is not an absolute path (the broker writes "
                  "the file on its own host)", path);
        return NULL;
    }
    struct stat info;
    if (lstat (path, &info) == 0) {
        snprintf (error, error_size, "backup: %s exists: the broker does not overwrite a "
                  "file; remove it or name another", path);
        return NULL;
    }
    char *part = zsys_sprintf ("%s.part", path);
    int fd = open (part, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd == -1) {
        if (errno == EEXIST)
            snprintf (error, error_size, "backup: %s exists (another backup writes it, or "
                      "one that was stopped left it): remove it", part);
        else
            s_cannot_write (path, errno, error, error_size);
        zstr_free (&part);
        return NULL;
    }
    close (fd);
    drover_sqlbackup_t *self = (drover_sqlbackup_t *) zmalloc (sizeof (drover_sqlbackup_t));
    self->path = strdup (path);
    self->part = part;
    int rc = sqlite3_open_v2 (part, &self->dest, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                              NULL);
    if (rc == SQLITE_OK)
        self->backup = sqlite3_backup_init (self->dest, "main", source, "main");
    if (!self->backup) {
        *code_p = 500;
        snprintf (error, error_size, "backup: %s: %s", part,
                  self->dest? sqlite3_errmsg (self->dest): sqlite3_errstr (rc));
        drover_sqlbackup_destroy (&self);
        return NULL;
    }
    return self;
}

//  Destroy the copy; one not done leaves no part behind
void
drover_sqlbackup_destroy (drover_sqlbackup_t **self_p)
{
    assert (self_p);
    drover_sqlbackup_t *self = *self_p;
    if (!self)
        return;
    if (self->backup)
        sqlite3_backup_finish (self->backup);
    if (self->dest)
        sqlite3_close (self->dest);
    if (!self->done && self->part) {
        unlink (self->part);
        char *journal = zsys_sprintf ("%s-journal", self->part);
        unlink (journal);       //  if the last commit stopped half way
        zstr_free (&journal);
    }
    zstr_free (&self->part);
    zstr_free (&self->path);
    free (self);
    *self_p = NULL;
}

//  Sync a file (or a directory) by name; 0 or -1 with errno
static int
s_sync (const char *name, bool directory)
{
    int fd = open (name, (directory? O_RDONLY | O_DIRECTORY: O_RDWR) | O_CLOEXEC);
    if (fd == -1)
        return -1;
    int rc = fsync (fd);
    int saved = errno;
    close (fd);
    errno = saved;
    return rc;
}

//  The copy is whole in the part file: close it, sync it, give it its
//  name and sync the directory. Returns 0, or -1 with error set.
static int
s_put_in_place (drover_sqlbackup_t *self, char *error, size_t error_size)
{
    int rc = sqlite3_close (self->dest);
    if (rc != SQLITE_OK) {
        snprintf (error, error_size, "backup: %s: %s", self->part, sqlite3_errmsg (self->dest));
        return -1;
    }
    self->dest = NULL;
    struct stat info;
    if (s_sync (self->part, false) || stat (self->part, &info)) {
        s_cannot_write (self->path, errno, error, error_size);
        return -1;
    }
    if (link (self->part, self->path)) {
        if (errno == EEXIST)
            snprintf (error, error_size, "backup: %s appeared while it was copied: the "
                      "broker does not overwrite it", self->path);
        else
            s_cannot_write (self->path, errno, error, error_size);
        return -1;
    }
    unlink (self->part);
    self->done = true;          //  in place: not removed from here on
    self->bytes = (uint64_t) info.st_size;
    char *directory = strdup (self->path);
    char *slash = strrchr (directory, '/');
    if (slash == directory)
        slash [1] = 0;          //  a file in /
    else
        *slash = 0;
    if (s_sync (directory, true))
        zsys_warning ("store: backup directory=%s not synced: %s", directory, strerror (errno));
    free (directory);
    return 0;
}

//  Copy up to pages more pages
int
drover_sqlbackup_step (drover_sqlbackup_t *self, int pages, char *error, size_t error_size)
{
    assert (self);
    assert (!self->done && self->backup);
    int rc = sqlite3_backup_step (self->backup, pages);
    int remaining = sqlite3_backup_remaining (self->backup);
    int total = sqlite3_backup_pagecount (self->backup);
    self->total = (uint64_t) (total > 0? total: 0);
    self->copied = self->total - (uint64_t) (remaining > 0 && remaining <= total? remaining: 0);
    if (rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
        return 0;               //  more to copy (or the source busy: next time)
    if (rc != SQLITE_DONE) {
        snprintf (error, error_size, "backup: writing %s: %s", self->part,
                  sqlite3_errstr (rc));
        sqlite3_backup_finish (self->backup);
        self->backup = NULL;
        return -1;              //  destroy removes the part
    }
    self->copied = self->total;
    rc = sqlite3_backup_finish (self->backup);
    self->backup = NULL;
    if (rc != SQLITE_OK) {
        snprintf (error, error_size, "backup: writing %s: %s", self->part, sqlite3_errstr (rc));
        return -1;
    }
    return s_put_in_place (self, error, error_size) == 0? 1: -1;
}

//  Return the pages copied so far
uint64_t
drover_sqlbackup_copied (drover_sqlbackup_t *self)
{
    assert (self);
    return self->copied;
}

//  Return the pages of the source
uint64_t
drover_sqlbackup_total (drover_sqlbackup_t *self)
{
    assert (self);
    return self->total;
}

//  Return the file's size once done
uint64_t
drover_sqlbackup_bytes (drover_sqlbackup_t *self)
{
    assert (self);
    return self->bytes;
}

//  Return the file's name
const char *
drover_sqlbackup_path (drover_sqlbackup_t *self)
{
    assert (self);
    return self->path;
}
