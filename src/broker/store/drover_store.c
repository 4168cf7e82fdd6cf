/*  =========================================================================
    drover_store - where the store keeps the broker's state: the public
    functions, each dispatching through its backend's table of functions,
    and the memory backend

    The table keeps what all backends share out of them: the meta (state
    id, next_task, next_seq) lives here and is moved on past each batch
    before the backend stores it, so every backend counts ids the same
    way. The SQLite backend is drover_sqlite.c, the PostgreSQL backend
    drover_postgres.c; the memory backend keeps nothing and is only its
    table below.
    =========================================================================
*/

#include "drover_store.h"
#include "drover_sqlite.h"
#include "drover_postgres.h"

//  What one backend does: each function gets the backend's own handle
typedef struct {
    const char *name;               //  "sqlite", "postgresql", "memory"
    void (*destroy) (void **handle_p);
    int (*apply) (void *handle, drover_change_t **changes, size_t count,
                  const drover_store_meta_t *meta, char *error, size_t error_size);
    int64_t (*load) (void *handle, size_t max_final, drover_store_task_fn *fn, void *arg,
                     char *error, size_t error_size);
    int64_t (*replay) (void *handle, uint64_t since, size_t max, drover_store_event_fn *fn,
                       void *arg, char *error, size_t error_size);
    int (*read_task) (void *handle, uint64_t id, drover_change_t **change_p,
                      char *error, size_t error_size);
    int64_t (*prune) (void *handle, uint64_t keep_count, uint64_t keep_age,
                      uint64_t keep_events, uint64_t now, size_t max_rows,
                      char *error, size_t error_size);
    int (*save_admin) (void *handle, const drover_store_admin_t *admin,
                       char *error, size_t error_size);
    int64_t (*load_admin) (void *handle, drover_store_admin_fn *fn, void *arg,
                           char *error, size_t error_size);
    int (*save_service) (void *handle, const char *name, const byte *def, size_t size,
                         char *error, size_t error_size);
    int64_t (*load_services) (void *handle, drover_store_service_fn *fn, void *arg,
                              char *error, size_t error_size);
    int (*save_share) (void *handle, const drover_store_share_t *share,
                       char *error, size_t error_size);
    int64_t (*load_shares) (void *handle, drover_store_share_fn *fn, void *arg,
                            char *error, size_t error_size);
    bool (*fenced) (void *handle);  //  NULL: never fenced
} s_backend_ops_t;

struct _drover_store_t {
    const s_backend_ops_t *ops;     //  the backend's functions
    void *handle;                   //  the backend's own state (NULL for memory)
    drover_store_meta_t meta;     //  state id, next_task, next_seq
};

//  The SQLite backend's table: each function passes on to drover_sqlite_*

static void
s_sqlite_destroy (void **handle_p)
{
    drover_sqlite_t *sqlite = (drover_sqlite_t *) *handle_p;
    drover_sqlite_destroy (&sqlite);
    *handle_p = NULL;
}

static int
s_sqlite_apply (void *handle, drover_change_t **changes, size_t count,
                const drover_store_meta_t *meta, char *error, size_t error_size)
{
    return drover_sqlite_apply ((drover_sqlite_t *) handle, changes, count, meta,
                                error, error_size);
}

static int64_t
s_sqlite_load (void *handle, size_t max_final, drover_store_task_fn *fn, void *arg,
               char *error, size_t error_size)
{
    return drover_sqlite_load ((drover_sqlite_t *) handle, max_final, fn, arg,
                               error, error_size);
}

static int64_t
s_sqlite_replay (void *handle, uint64_t since, size_t max, drover_store_event_fn *fn,
                 void *arg, char *error, size_t error_size)
{
    return drover_sqlite_replay ((drover_sqlite_t *) handle, since, max, fn, arg,
                                 error, error_size);
}

static int
s_sqlite_read_task (void *handle, uint64_t id, drover_change_t **change_p,
                    char *error, size_t error_size)
{
    return drover_sqlite_read_task ((drover_sqlite_t *) handle, id, change_p, error, error_size);
}

static int64_t
s_sqlite_prune (void *handle, uint64_t keep_count, uint64_t keep_age, uint64_t keep_events,
                uint64_t now, size_t max_rows, char *error, size_t error_size)
{
    return drover_sqlite_prune ((drover_sqlite_t *) handle, keep_count, keep_age,
                                keep_events, now, max_rows, error, error_size);
}

static int
s_sqlite_save_admin (void *handle, const drover_store_admin_t *admin,
                     char *error, size_t error_size)
{
    return drover_sqlite_save_admin ((drover_sqlite_t *) handle, admin, error, error_size);
}

static int64_t
s_sqlite_load_admin (void *handle, drover_store_admin_fn *fn, void *arg,
                     char *error, size_t error_size)
{
    return drover_sqlite_load_admin ((drover_sqlite_t *) handle, fn, arg, error, error_size);
}

static int
s_sqlite_save_service (void *handle, const char *name, const byte *def, size_t size,
                       char *error, size_t error_size)
{
    return drover_sqlite_save_service ((drover_sqlite_t *) handle, name, def, size,
                                       error, error_size);
}

static int64_t
s_sqlite_load_services (void *handle, drover_store_service_fn *fn, void *arg,
                        char *error, size_t error_size)
{
    return drover_sqlite_load_services ((drover_sqlite_t *) handle, fn, arg, error, error_size);
}

static int
s_sqlite_save_share (void *handle, const drover_store_share_t *share,
                     char *error, size_t error_size)
{
    return drover_sqlite_save_share ((drover_sqlite_t *) handle, share, error, error_size);
}

static int64_t
s_sqlite_load_shares (void *handle, drover_store_share_fn *fn, void *arg,
                      char *error, size_t error_size)
{
    return drover_sqlite_load_shares ((drover_sqlite_t *) handle, fn, arg, error, error_size);
}

static const s_backend_ops_t
s_sqlite_ops = {
    "sqlite", s_sqlite_destroy, s_sqlite_apply, s_sqlite_load, s_sqlite_replay,
    s_sqlite_read_task, s_sqlite_prune,
    s_sqlite_save_admin, s_sqlite_load_admin, s_sqlite_save_service, s_sqlite_load_services,
    s_sqlite_save_share, s_sqlite_load_shares, NULL
};

//  The PostgreSQL backend's table: each function passes on to
//  drover_postgres_*

static void
s_postgres_destroy (void **handle_p)
{
    drover_postgres_t *postgres = (drover_postgres_t *) *handle_p;
    drover_postgres_destroy (&postgres);
    *handle_p = NULL;
}

static int
s_postgres_apply (void *handle, drover_change_t **changes, size_t count,
                  const drover_store_meta_t *meta, char *error, size_t error_size)
{
    return drover_postgres_apply ((drover_postgres_t *) handle, changes, count, meta,
                                  error, error_size);
}

static int64_t
s_postgres_load (void *handle, size_t max_final, drover_store_task_fn *fn, void *arg,
                 char *error, size_t error_size)
{
    return drover_postgres_load ((drover_postgres_t *) handle, max_final, fn, arg,
                                 error, error_size);
}

static int64_t
s_postgres_replay (void *handle, uint64_t since, size_t max, drover_store_event_fn *fn,
                   void *arg, char *error, size_t error_size)
{
    return drover_postgres_replay ((drover_postgres_t *) handle, since, max, fn, arg,
                                   error, error_size);
}

static int
s_postgres_read_task (void *handle, uint64_t id, drover_change_t **change_p,
                      char *error, size_t error_size)
{
    return drover_postgres_read_task ((drover_postgres_t *) handle, id, change_p,
                                      error, error_size);
}

static int64_t
s_postgres_prune (void *handle, uint64_t keep_count, uint64_t keep_age, uint64_t keep_events,
                  uint64_t now, size_t max_rows, char *error, size_t error_size)
{
    return drover_postgres_prune ((drover_postgres_t *) handle, keep_count, keep_age,
                                  keep_events, now, max_rows, error, error_size);
}

static int
s_postgres_save_admin (void *handle, const drover_store_admin_t *admin,
                       char *error, size_t error_size)
{
    return drover_postgres_save_admin ((drover_postgres_t *) handle, admin, error, error_size);
}

static int64_t
s_postgres_load_admin (void *handle, drover_store_admin_fn *fn, void *arg,
                       char *error, size_t error_size)
{
    return drover_postgres_load_admin ((drover_postgres_t *) handle, fn, arg,
                                       error, error_size);
}

static int
s_postgres_save_service (void *handle, const char *name, const byte *def, size_t size,
                         char *error, size_t error_size)
{
    return drover_postgres_save_service ((drover_postgres_t *) handle, name, def, size,
                                         error, error_size);
}

static int64_t
s_postgres_load_services (void *handle, drover_store_service_fn *fn, void *arg,
                          char *error, size_t error_size)
{
    return drover_postgres_load_services ((drover_postgres_t *) handle, fn, arg,
                                          error, error_size);
}

static int
s_postgres_save_share (void *handle, const drover_store_share_t *share,
                       char *error, size_t error_size)
{
    return drover_postgres_save_share ((drover_postgres_t *) handle, share, error, error_size);
}

static int64_t
s_postgres_load_shares (void *handle, drover_store_share_fn *fn, void *arg,
                        char *error, size_t error_size)
{
    return drover_postgres_load_shares ((drover_postgres_t *) handle, fn, arg,
                                        error, error_size);
}

static bool
s_postgres_fenced (void *handle)
{
    return drover_postgres_fenced ((drover_postgres_t *) handle);
}

static const s_backend_ops_t
s_postgres_ops = {
    "postgresql", s_postgres_destroy, s_postgres_apply, s_postgres_load, s_postgres_replay,
    s_postgres_read_task, s_postgres_prune, s_postgres_save_admin, s_postgres_load_admin,
    s_postgres_save_service, s_postgres_load_services, s_postgres_save_share,
    s_postgres_load_shares, s_postgres_fenced
};

//  The memory backend's table: it keeps nothing

static void
s_memory_destroy (void **handle_p)
{
    *handle_p = NULL;
}

static int
s_memory_apply (void *handle, drover_change_t **changes, size_t count,
                const drover_store_meta_t *meta, char *error, size_t error_size)
{
    return 0;
}

static int64_t
s_memory_load (void *handle, size_t max_final, drover_store_task_fn *fn, void *arg,
               char *error, size_t error_size)
{
    return 0;
}

static int64_t
s_memory_replay (void *handle, uint64_t since, size_t max, drover_store_event_fn *fn,
                 void *arg, char *error, size_t error_size)
{
    return 0;
}

static int
s_memory_read_task (void *handle, uint64_t id, drover_change_t **change_p,
                    char *error, size_t error_size)
{
    return 0;
}

static int64_t
s_memory_prune (void *handle, uint64_t keep_count, uint64_t keep_age, uint64_t keep_events,
                uint64_t now, size_t max_rows, char *error, size_t error_size)
{
    return 0;
}

static int
s_memory_save_admin (void *handle, const drover_store_admin_t *admin,
                     char *error, size_t error_size)
{
    return 0;
}

static int64_t
s_memory_load_admin (void *handle, drover_store_admin_fn *fn, void *arg,
                     char *error, size_t error_size)
{
    return 0;
}

static int
s_memory_save_service (void *handle, const char *name, const byte *def, size_t size,
                       char *error, size_t error_size)
{
    return 0;
}

static int64_t
s_memory_load_services (void *handle, drover_store_service_fn *fn, void *arg,
                        char *error, size_t error_size)
{
    return 0;
}

static int
s_memory_save_share (void *handle, const drover_store_share_t *share,
                     char *error, size_t error_size)
{
    return 0;
}

static int64_t
s_memory_load_shares (void *handle, drover_store_share_fn *fn, void *arg,
                      char *error, size_t error_size)
{
    return 0;
}

static const s_backend_ops_t
s_memory_ops = {
    "memory", s_memory_destroy, s_memory_apply, s_memory_load, s_memory_replay,
    s_memory_read_task, s_memory_prune,
    s_memory_save_admin, s_memory_load_admin, s_memory_save_service, s_memory_load_services,
    s_memory_save_share, s_memory_load_shares, NULL
};

//  Open the SQLite backend on dir
drover_store_t *
drover_store_open_sqlite (const char *dir, char **error_p)
{
    assert (dir && error_p);
    drover_store_meta_t meta;
    drover_sqlite_t *sqlite = drover_sqlite_open (dir, &meta, error_p);
    if (!sqlite)
        return NULL;
    drover_store_t *self = (drover_store_t *) zmalloc (sizeof (drover_store_t));
    self->ops = &s_sqlite_ops;
    self->handle = sqlite;
    self->meta = meta;
    return self;
}

//  Open the PostgreSQL backend on conninfo, claiming the state for fence
drover_store_t *
drover_store_open_postgres (const char *conninfo, uint64_t fence, char **error_p)
{
    assert (conninfo && error_p);
    drover_store_meta_t meta;
    drover_postgres_t *postgres = drover_postgres_open (conninfo, fence, &meta, error_p);
    if (!postgres)
        return NULL;
    drover_store_t *self = (drover_store_t *) zmalloc (sizeof (drover_store_t));
    self->ops = &s_postgres_ops;
    self->handle = postgres;
    self->meta = meta;
    return self;
}

//  Return true if text names a PostgreSQL state
bool
drover_store_is_postgres (const char *text)
{
    return text && (strncmp (text, "postgresql://", 13) == 0
                ||  strncmp (text, "postgres://", 11) == 0);
}

//  Tell whether format is ours by name and newer by number
bool
drover_store_format_newer (const char *format, const char *ours)
{
    assert (format && ours);
    const char *space = strrchr (ours, ' ');
    assert (space);             //  our own markers are "NAME N"
    size_t prefix = (size_t) (space + 1 - ours);
    if (strncmp (format, ours, prefix) != 0)
        return false;
    const char *digits = format + prefix;
    size_t count = strspn (digits, "0123456789");
    if (count == 0 || digits [count])
        return false;
    while (*digits == '0' && count > 1) {
        digits++;
        count--;
    }
    const char *number = ours + prefix;
    size_t length = strlen (number);
    return count > length || (count == length && strcmp (digits, number) > 0);
}

//  Return state fit for a log: a URI's password replaced by "***"
char *
drover_store_printable (const char *state)
{
    assert (state);
    const char *scheme = drover_store_is_postgres (state)? strstr (state, "://"): NULL;
    if (!scheme)
        return strdup (state);
    //  postgresql://user:password@host...: the user info ends at the last
    //  '@' before the path
    const char *authority = scheme + 3;
    size_t length = strcspn (authority, "/?");
    const char *at = NULL;
    for (const char *next = authority; next < authority + length; next++)
        if (*next == '@')
            at = next;
    const char *colon = at? memchr (authority, ':', (size_t) (at - authority)): NULL;
    if (!colon)
        return strdup (state);
    return zsys_sprintf ("%.*s***%s", (int) (colon + 1 - state), state, at);
}

//  Open the memory backend: keeps nothing, so it names no state (no state
//  id: WELCOME and ACCEPTED leave it out, PROTOCOL.md §6.5)
drover_store_t *
drover_store_open_memory (void)
{
    drover_store_t *self = (drover_store_t *) zmalloc (sizeof (drover_store_t));
    self->ops = &s_memory_ops;
    self->meta.next_task = 1;
    self->meta.next_seq = 1;
    return self;
}

//  Close the backend; harmless on NULL
void
drover_store_destroy (drover_store_t **self_p)
{
    assert (self_p);
    drover_store_t *self = *self_p;
    if (!self)
        return;
    self->ops->destroy (&self->handle);
    free (self);
    *self_p = NULL;
}

//  Return the backend's name: "sqlite", "postgresql" or "memory"
const char *
drover_store_name (drover_store_t *self)
{
    assert (self);
    return self->ops->name;
}

//  True if this backend was refused by fencing: its owner must stop serving
bool
drover_store_fenced (drover_store_t *self)
{
    assert (self);
    return self->ops->fenced && self->ops->fenced (self->handle);
}

//  Start an online copy of the state into path: the SQLite backend's
//  own; the others say what to do instead
drover_sqlbackup_t *
drover_store_backup (drover_store_t *self, const char *path, int *code_p,
                     char *error, size_t error_size)
{
    assert (self && path && code_p && error);
    if (streq (self->ops->name, "sqlite"))
        return drover_sqlite_backup ((drover_sqlite_t *) self->handle, path, code_p,
                                     error, error_size);
    if (streq (self->ops->name, "postgresql")) {
        *code_p = 503;
        snprintf (error, error_size, "the state is in PostgreSQL: back it up with pg_dump "
                  "(docs/operating.md)");
    }
    else {
        *code_p = 415;
        snprintf (error, error_size, "the broker keeps no state (durability off): nothing "
                  "to back up");
    }
    return NULL;
}

//  Return what the backend keeps besides tasks and events
const drover_store_meta_t *
drover_store_meta (drover_store_t *self)
{
    assert (self);
    return &self->meta;
}

//  Apply one batch in one transaction; meta moves on past the batch only
//  once the backend has kept it
int
drover_store_apply (drover_store_t *self, drover_change_t **changes, size_t count,
                      char *error, size_t error_size)
{
    assert (self && (changes || !count) && error && error_size);
    if (count == 0)
        return 0;
    drover_store_meta_t meta = self->meta;
    for (size_t index = 0; index < count; index++) {
        drover_change_t *change = changes [index];
        assert (change->seq > 0);
        if (change->task >= meta.next_task)
            meta.next_task = change->task + 1;
        if (change->seq >= meta.next_seq)
            meta.next_seq = change->seq + 1;
    }
    if (self->ops->apply (self->handle, changes, count, &meta, error, error_size))
        return -1;
    self->meta = meta;
    return 0;
}

//  Plain QUEUED tasks as records from the next loads, where SQLite keeps them
void
drover_store_set_records (drover_store_t *self, bool records)
{
    assert (self);
    if (self->ops == &s_sqlite_ops)
        drover_sqlite_set_records ((drover_sqlite_t *) self->handle, records);
}

//  Load every kept task that is not final, and the newest max_final final ones
int64_t
drover_store_load (drover_store_t *self, size_t max_final, drover_store_task_fn *fn,
                     void *arg, char *error, size_t error_size)
{
    assert (self && fn && error && error_size);
    return self->ops->load (self->handle, max_final, fn, arg, error, error_size);
}

//  Hand fn the kept events with seq > since, in order, at most max of them
int64_t
drover_store_replay (drover_store_t *self, uint64_t since, size_t max,
                       drover_store_event_fn *fn, void *arg, char *error, size_t error_size)
{
    assert (self && fn && error && error_size);
    return self->ops->replay (self->handle, since, max, fn, arg, error, error_size);
}

//  Read one kept task by id
int
drover_store_read_task (drover_store_t *self, uint64_t id, drover_change_t **change_p,
                          char *error, size_t error_size)
{
    assert (self && change_p && error && error_size);
    *change_p = NULL;
    return self->ops->read_task (self->handle, id, change_p, error, error_size);
}

//  Delete old final tasks and old events, at most max_rows at a time
int64_t
drover_store_prune (drover_store_t *self, uint64_t keep_count, uint64_t keep_age,
                      uint64_t keep_events, uint64_t now, size_t max_rows,
                      char *error, size_t error_size)
{
    assert (self && error && error_size);
    return self->ops->prune (self->handle, keep_count, keep_age, keep_events, now, max_rows,
                             error, error_size);
}

//  Keep an operator's setting of a worker at once
int
drover_store_save_admin (drover_store_t *self, const drover_store_admin_t *admin,
                           char *error, size_t error_size)
{
    assert (self && admin && admin->worker && error && error_size);
    return self->ops->save_admin (self->handle, admin, error, error_size);
}

//  Hand fn every kept setting
int64_t
drover_store_load_admin (drover_store_t *self, drover_store_admin_fn *fn, void *arg,
                           char *error, size_t error_size)
{
    assert (self && fn && error && error_size);
    return self->ops->load_admin (self->handle, fn, arg, error, error_size);
}

//  Keep a service's definition at once (size 0: forget it)
int
drover_store_save_service (drover_store_t *self, const char *name, const byte *def,
                             size_t size, char *error, size_t error_size)
{
    assert (self && name && (def || !size) && error && error_size);
    return self->ops->save_service (self->handle, name, def, size, error, error_size);
}

//  Hand fn every kept service
int64_t
drover_store_load_services (drover_store_t *self, drover_store_service_fn *fn, void *arg,
                              char *error, size_t error_size)
{
    assert (self && fn && error && error_size);
    return self->ops->load_services (self->handle, fn, arg, error, error_size);
}

//  Keep a share at once (weight 0: forget it)
int
drover_store_save_share (drover_store_t *self, const drover_store_share_t *share,
                           char *error, size_t error_size)
{
    assert (self && share && share->name && error && error_size);
    return self->ops->save_share (self->handle, share, error, error_size);
}

//  Hand fn every kept share
int64_t
drover_store_load_shares (drover_store_t *self, drover_store_share_fn *fn, void *arg,
                            char *error, size_t error_size)
{
    assert (self && fn && error && error_size);
    return self->ops->load_shares (self->handle, fn, arg, error, error_size);
}
