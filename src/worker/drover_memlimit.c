/*  =========================================================================
    drover_memlimit - bounds the memory of each task through whichever
    memory controller the host has, and tells whether the OOM killer
    killed in it

    Each limit made is kept in a table by number: the fd of the file that
    counts its OOM kills (v2 memory.events, v1 memory.oom_control) and of
    v1 memory.failcnt, read when the task ended. v1 directories are the
    memlimit's own: removed when the task ended (what is left in them is
    killed first: v1 membership is inherited by every process the task
    starts), and stale ones of dead workers are swept at start.
    =========================================================================
*/

#ifndef _GNU_SOURCE
#   define _GNU_SOURCE
#endif
#include "drover_memlimit.h"
#include "drover_cgfile.h"
#include "drover_cgleaf.h"
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <unistd.h>
#include <sys/stat.h>

#define S_TIDY_RETRY    50          //  msec between tries to remove a busy v1 directory

//  One task's limit
typedef struct {
    uint32_t number;                //  its number, > 0
    int events_fd;                  //  v2 memory.events or v1 memory.oom_control, or -1
    int failcnt_fd;                 //  v1 memory.failcnt, or -1
    bool busy;                      //  v1: released, its directory not removed yet
} s_limit_t;

struct _drover_memlimit_t {
    int controller;                 //  drover_memlimit_controller_t
    bool soft;                      //  soft limits (memory.high, soft_limit_in_bytes)
    char *v1_dir;                   //  v1: the directory of the tasks' directories, owned
    uint32_t last_limit;            //  number of the last limit made
    zhashx_t *limits;               //  number -> s_limit_t *, owned
    size_t nbusy;                   //  released limits whose directory is still there
    int64_t next_tidy;              //  msec of the next removal retry, -1 if none
};

static int s_find_v2 (drover_memlimit_t *self, const char *v2_dir, char *why, size_t size);
static int s_find_v1 (drover_memlimit_t *self, char *why, size_t size);
static void s_limit_destroy (void **item_p);

//  The limits table's keys are numbers stored in the pointer itself
static size_t
s_key_hash (const void *key)
{
    return (size_t) (uintptr_t) key * 2654435761U;
}

//  Compare two of those keys
static int
s_key_compare (const void *one, const void *two)
{
    return (uintptr_t) one < (uintptr_t) two? -1: (uintptr_t) one > (uintptr_t) two? 1: 0;
}


//  --------------------------------------------------------------------------
//  Create a memlimit in mode "hard", "soft" or "off", finding the host's
//  memory controller

drover_memlimit_t *
drover_memlimit_new (const char *mode, const char *v2_dir)
{
    if (!mode || !*mode)
        mode = "hard";
    if (!drover_memlimit_mode_valid (mode))
        return NULL;
    drover_memlimit_t *self = (drover_memlimit_t *) zmalloc (sizeof (drover_memlimit_t));
    self->soft = streq (mode, "soft");
    self->next_tidy = -1;
    self->limits = zhashx_new ();
    zhashx_set_destructor (self->limits, s_limit_destroy);
    zhashx_set_key_destructor (self->limits, NULL);
    zhashx_set_key_duplicator (self->limits, NULL);
    zhashx_set_key_comparator (self->limits, s_key_compare);
    zhashx_set_key_hasher (self->limits, s_key_hash);
    if (streq (mode, "off")) {
        zsys_notice ("memlimit: off: tasks' --mem is a reservation only");
        return self;
    }
    char why_v2 [PATH_MAX + 128] = "", why_v1 [PATH_MAX + 128] = "";
    if (s_find_v2 (self, v2_dir, why_v2, sizeof why_v2) == 0)
        zsys_notice ("memlimit: a task's --mem is its %s in its cgroup v2 under %s",
                     self->soft? "memory.high": "memory.max", v2_dir);
    else
    if (s_find_v1 (self, why_v1, sizeof why_v1) == 0)
        zsys_notice ("memlimit: a task's --mem is its %s in its cgroup v1 under %s "
                     "(cgroup v2: %s)", self->soft? "memory.soft_limit_in_bytes":
                     "memory.limit_in_bytes", self->v1_dir, why_v2);
    else
        zsys_warning ("memlimit: no memory controller, tasks run unbounded "
                      "(cgroup v2: %s; cgroup v1: %s)", why_v2, why_v1);
    return self;
}


//  A number as the table's key
static void *
s_key (uint32_t number)
{
    return (void *) (uintptr_t) number;
}


//  cgroup v2: the memory controller in the worker's cgroup (the parent of
//  v2_dir), enabled for v2_dir and for the task cgroups under it.
//  0, or -1 with why filled.
static int
s_find_v2 (drover_memlimit_t *self, const char *v2_dir, char *why, size_t size)
{
    if (!v2_dir) {
        snprintf (why, size, "tasks have no cgroup v2 of their own");
        return -1;
    }
    char own [PATH_MAX];
    snprintf (own, sizeof own, "%s", v2_dir);
    char *slash = strrchr (own, '/');
    if (!slash || slash == own) {
        snprintf (why, size, "%s has no parent", v2_dir);
        return -1;
    }
    *slash = 0;
    char path [PATH_MAX + 32];
    snprintf (path, sizeof path, "%s/cgroup.controllers", own);
    char *controllers = drover_cgfile_read (path);
    bool has = drover_cgfile_lists (controllers, "memory", " \n");
    free (controllers);
    if (!has) {
        snprintf (why, size, "no memory controller in %s/cgroup.controllers", own);
        return -1;
    }
    //  A cgroup with processes (the worker's own, unless the root) refuses:
    //  the worker steps down into a leaf first (a systemd unit's cgroup)
    bool moved = false;
    if (drover_cgleaf_enable (own, "memory", &moved, why, size))
        return -1;
    if (moved)
        zsys_notice ("memlimit: moved the worker into %s/%s: cgroup v2 gives controllers to "
                     "the children of a cgroup only while it holds no process", own,
                     DROVER_CGLEAF_NAME);
    if (drover_cgfile_write (v2_dir, "cgroup.subtree_control", "+memory") == -1) {
        snprintf (why, size, "cannot enable memory in %s/cgroup.subtree_control: %s",
                  v2_dir, strerror (errno));
        return -1;
    }
    self->controller = DROVER_MEMLIMIT_V2;
    return 0;
}

//  Remove the task directories of a v1 directory and itself; true if gone
static bool
s_v1_remove (const char *dir)
{
    DIR *handle = opendir (dir);
    if (!handle)
        return errno == ENOENT;
    struct dirent *entry;
    while ((entry = readdir (handle)))
        if (entry->d_type == DT_DIR && entry->d_name [0] == 't')
            unlinkat (dirfd (handle), entry->d_name, AT_REMOVEDIR);
    closedir (handle);
    return rmdir (dir) == 0 || errno == ENOENT;
}

//  Remove the empty directories that workers now dead left in base
static void
s_v1_sweep_stale (const char *base)
{
    DIR *handle = opendir (base);
    if (!handle)
        return;
    struct dirent *entry;
    while ((entry = readdir (handle))) {
        int pid;
        if (entry->d_type != DT_DIR || sscanf (entry->d_name, "drover-%d-", &pid) != 1
        ||  pid <= 0 || kill (pid, 0) == 0 || errno != ESRCH)
            continue;
        char dir [PATH_MAX];
        if (snprintf (dir, sizeof dir, "%s/%s", base, entry->d_name) < (int) sizeof dir)
            s_v1_remove (dir);
    }
    closedir (handle);
}

//  cgroup v1: the memory hierarchy's mount (a "cgroup" mount with the
//  memory option) and our cgroup in it (the "memory" line of
//  /proc/self/cgroup); a directory of ours made there. 0, or -1 with why.
static int
s_find_v1 (drover_memlimit_t *self, char *why, size_t size)
{
    char *mounts = drover_cgfile_read ("/proc/self/mounts");
    char mount [PATH_MAX] = "";
    for (char *line = mounts; line && *line; ) {
        char *end = strchr (line, '\n');
        if (end)
            *end = 0;
        char point [PATH_MAX], type [64], options [1024];
        if (sscanf (line, "%*s %4095s %63s %1023s", point, type, options) == 3
        &&  streq (type, "cgroup") && drover_cgfile_lists (options, "memory", ",")) {
            snprintf (mount, sizeof mount, "%s", point);
            break;
        }
        line = end? end + 1: NULL;
    }
    free (mounts);
    if (!*mount) {
        snprintf (why, size, "no cgroup mount with the memory controller");
        return -1;
    }
    char *cgroups = drover_cgfile_read ("/proc/self/cgroup");
    char own [PATH_MAX] = "";
    for (char *line = cgroups; line && *line; ) {
        char *end = strchr (line, '\n');
        if (end)
            *end = 0;
        char *names = strchr (line, ':');
        char *path = names? strchr (names + 1, ':'): NULL;
        if (path) {
            *path++ = 0;
            if (drover_cgfile_lists (names + 1, "memory", ",") && *path == '/') {
                snprintf (own, sizeof own, "%s%s", mount, streq (path, "/")? "": path);
                break;
            }
        }
        line = end? end + 1: NULL;
    }
    free (cgroups);
    //  In a cgroup namespace (or a bind mount of our own cgroup) the mount
    //  is our cgroup
    struct stat info;
    if (!*own || stat (own, &info) == -1)
        snprintf (own, sizeof own, "%s", mount);
    s_v1_sweep_stale (own);
    static uint32_t made_before = 0;    //  memlimits of this process so far
    char dir [PATH_MAX];
    if (snprintf (dir, sizeof dir, "%s/drover-%d-%u", own, (int) getpid (), ++made_before)
        >= (int) sizeof dir) {
        snprintf (why, size, "path too long under %s", own);
        return -1;
    }
    if (mkdir (dir, 0755) == -1 && errno != EEXIST) {
        snprintf (why, size, "cannot make %s: %s", dir, strerror (errno));
        return -1;
    }
    self->v1_dir = strdup (dir);
    self->controller = DROVER_MEMLIMIT_V1;
    return 0;
}


//  Free a limit's fds
static void
s_limit_destroy (void **item_p)
{
    s_limit_t *limit = (s_limit_t *) *item_p;
    if (!limit)
        return;
    if (limit->events_fd >= 0)
        close (limit->events_fd);
    if (limit->failcnt_fd >= 0)
        close (limit->failcnt_fd);
    free (limit);
    *item_p = NULL;
}


//  --------------------------------------------------------------------------
//  Destroy: kill what is left in the v1 directories and remove them

void
drover_memlimit_destroy (drover_memlimit_t **self_p)
{
    assert (self_p);
    drover_memlimit_t *self = *self_p;
    if (!self)
        return;
    zlistx_t *numbers = zhashx_keys (self->limits);
    for (void *key = zlistx_first (numbers); key; key = zlistx_next (numbers))
        drover_memlimit_release (self, (uint32_t) (uintptr_t) key);
    zlistx_destroy (&numbers);
    //  Killed processes leave their cgroup as the kernel sees them out
    int64_t deadline = zclock_mono () + 2000;
    while (self->nbusy && zclock_mono () < deadline) {
        drover_memlimit_tidy (self, self->next_tidy);
        if (self->nbusy)
            zclock_sleep (5);
    }
    if (self->v1_dir)
        s_v1_remove (self->v1_dir);
    zhashx_destroy (&self->limits);
    free (self->v1_dir);
    free (self);
    *self_p = NULL;
}


//  --------------------------------------------------------------------------
//  Return the controller it uses

int
drover_memlimit_controller (drover_memlimit_t *self)
{
    assert (self);
    return self->controller;
}


//  --------------------------------------------------------------------------
//  Return the name of a controller

const char *
drover_memlimit_controller_name (int controller)
{
    return controller == DROVER_MEMLIMIT_V2? "cgroup v2"
         : controller == DROVER_MEMLIMIT_V1? "cgroup v1": "none";
}


//  --------------------------------------------------------------------------
//  Return true if mode is "hard", "soft" or "off"

bool
drover_memlimit_mode_valid (const char *mode)
{
    return mode && (streq (mode, "hard") || streq (mode, "soft") || streq (mode, "off"));
}


//  Path of a v1 task directory, or of a file in it (file NULL: the directory)
static void
s_v1_path (drover_memlimit_t *self, uint32_t number, const char *file,
           char *path, size_t size)
{
    if (file)
        snprintf (path, size, "%s/t%u/%s", self->v1_dir, number, file);
    else
        snprintf (path, size, "%s/t%u", self->v1_dir, number);
}

//  Write a limit into a file opened at dir_fd (v2) or by path (v1); 0 or -1
static int
s_write_at (int dir_fd, const char *path, uint64_t bytes)
{
    int fd = dir_fd >= 0? openat (dir_fd, path, O_WRONLY | O_CLOEXEC)
                        : open (path, O_WRONLY | O_CLOEXEC);
    if (fd == -1)
        return -1;
    char text [32];
    int size = snprintf (text, sizeof text, "%" PRIu64, bytes);
    int rc = write (fd, text, (size_t) size) == size? 0: -1;
    int error = errno;
    close (fd);
    errno = error;
    return rc;
}


//  --------------------------------------------------------------------------
//  Before a task starts: bound it to bytes. Returns 0 (limit in *limit_p,
//  0 for none; a v1 cgroup.procs to join in *join_fd_p, or -1), or -1.

int
drover_memlimit_prepare (drover_memlimit_t *self, uint64_t bytes, int v2_fd,
                         uint32_t *limit_p, int *join_fd_p)
{
    assert (self);
    assert (limit_p);
    assert (join_fd_p);
    *limit_p = 0;
    *join_fd_p = -1;
    if (bytes == 0 || self->controller == DROVER_MEMLIMIT_NONE
    || (self->controller == DROVER_MEMLIMIT_V2 && v2_fd < 0))
        return 0;
    if (++self->last_limit == 0)
        self->last_limit = 1;
    s_limit_t *limit = (s_limit_t *) zmalloc (sizeof (s_limit_t));
    limit->number = self->last_limit;
    limit->events_fd = -1;
    limit->failcnt_fd = -1;
    int error = 0;
    if (self->controller == DROVER_MEMLIMIT_V2) {
        if (s_write_at (v2_fd, self->soft? "memory.high": "memory.max", bytes) == -1
        || (limit->events_fd = openat (v2_fd, "memory.events", O_RDONLY | O_CLOEXEC)) == -1)
            error = errno;
    }
    else {
        char path [PATH_MAX];
        s_v1_path (self, limit->number, NULL, path, sizeof path);
        if (mkdir (path, 0755) == -1 && errno != EEXIST)
            error = errno;
        if (!error) {
            s_v1_path (self, limit->number, self->soft? "memory.soft_limit_in_bytes":
                       "memory.limit_in_bytes", path, sizeof path);
            if (s_write_at (-1, path, bytes) == -1)
                error = errno;
        }
        if (!error) {
            s_v1_path (self, limit->number, "memory.oom_control", path, sizeof path);
            limit->events_fd = open (path, O_RDONLY | O_CLOEXEC);
            s_v1_path (self, limit->number, "memory.failcnt", path, sizeof path);
            limit->failcnt_fd = open (path, O_RDONLY | O_CLOEXEC);
            s_v1_path (self, limit->number, "cgroup.procs", path, sizeof path);
            *join_fd_p = open (path, O_WRONLY | O_CLOEXEC);
            if (*join_fd_p == -1)
                error = errno;
        }
        if (error) {
            s_v1_path (self, limit->number, NULL, path, sizeof path);
            rmdir (path);
        }
    }
    if (error) {
        void *item = limit;
        s_limit_destroy (&item);
        errno = error;
        return -1;
    }
    zhashx_insert (self->limits, s_key (limit->number), limit);
    *limit_p = limit->number;
    return 0;
}


//  Read the number after "name " in the text an fd holds; -1 if absent
static int64_t
s_read_count (int fd, const char *name)
{
    if (fd < 0)
        return -1;
    char text [1024];
    ssize_t size = pread (fd, text, sizeof text - 1, 0);
    if (size <= 0)
        return -1;
    text [size] = 0;
    size_t length = strlen (name);
    for (char *line = text; line && *line; ) {
        if (name [0] == 0)
            return strtoll (line, NULL, 10);
        if (strncmp (line, name, length) == 0 && line [length] == ' ')
            return strtoll (line + length + 1, NULL, 10);
        line = strchr (line, '\n');
        if (line)
            line++;
    }
    return -1;
}


//  --------------------------------------------------------------------------
//  Return true if the OOM killer killed a process of the task

bool
drover_memlimit_oom (drover_memlimit_t *self, uint32_t limit_nbr, bool killed)
{
    assert (self);
    if (limit_nbr == 0)
        return false;               //  no limit
    s_limit_t *limit = (s_limit_t *) zhashx_lookup (self->limits, s_key (limit_nbr));
    if (!limit)
        return false;
    int64_t kills = s_read_count (limit->events_fd, "oom_kill");
    if (kills >= 0)
        return kills > 0;
    //  v1 before Linux 4.13: the limit was hit, and the task died by SIGKILL
    return killed && s_read_count (limit->failcnt_fd, "") > 0;
}


//  SIGKILL each process listed in a cgroup.procs
static void
s_kill_listed (const char *path)
{
    char *text = drover_cgfile_read (path);
    for (char *cursor = text; cursor && *cursor; ) {
        char *end;
        long pid = strtol (cursor, &end, 10);
        if (end == cursor)
            break;
        if (pid > 0)
            kill ((pid_t) pid, SIGKILL);
        cursor = end;
    }
    free (text);
}


//  --------------------------------------------------------------------------
//  The task ended: kill what is left in its v1 directory and remove it

void
drover_memlimit_release (drover_memlimit_t *self, uint32_t limit_nbr)
{
    assert (self);
    if (limit_nbr == 0)
        return;                     //  no limit
    s_limit_t *limit = (s_limit_t *) zhashx_lookup (self->limits, s_key (limit_nbr));
    if (!limit || limit->busy)
        return;
    if (self->controller != DROVER_MEMLIMIT_V1) {
        zhashx_delete (self->limits, s_key (limit_nbr));
        return;                     //  drover_confine removes the v2 cgroup
    }
    char path [PATH_MAX];
    s_v1_path (self, limit_nbr, NULL, path, sizeof path);
    if (rmdir (path) == 0 || errno != EBUSY) {
        zhashx_delete (self->limits, s_key (limit_nbr));
        return;
    }
    //  Something the task started lives on: it dies with the task
    s_v1_path (self, limit_nbr, "cgroup.procs", path, sizeof path);
    s_kill_listed (path);
    limit->busy = true;
    self->nbusy++;
    if (self->next_tidy == -1)
        self->next_tidy = zclock_mono () + S_TIDY_RETRY;
}


//  --------------------------------------------------------------------------
//  Retry removing busy v1 directories; returns the next retry or -1

int64_t
drover_memlimit_tidy (drover_memlimit_t *self, int64_t now)
{
    assert (self);
    if (self->next_tidy == -1 || now < self->next_tidy)
        return self->next_tidy;
    zlistx_t *numbers = zhashx_keys (self->limits);
    for (void *key = zlistx_first (numbers); key; key = zlistx_next (numbers)) {
        uint32_t number = (uint32_t) (uintptr_t) key;
        s_limit_t *limit = (s_limit_t *) zhashx_lookup (self->limits, key);
        if (!limit->busy)
            continue;
        char path [PATH_MAX];
        s_v1_path (self, number, NULL, path, sizeof path);
        if (rmdir (path) == 0 || errno != EBUSY) {
            zhashx_delete (self->limits, key);
            self->nbusy--;
        }
        else {
            s_v1_path (self, number, "cgroup.procs", path, sizeof path);
            s_kill_listed (path);
        }
    }
    zlistx_destroy (&numbers);
    self->next_tidy = self->nbusy? now + S_TIDY_RETRY: -1;
    return self->next_tidy;
}


//  --------------------------------------------------------------------------
//  Return the msec of the next removal retry, or -1

int64_t
drover_memlimit_next_tidy (drover_memlimit_t *self)
{
    assert (self);
    return self->next_tidy;
}
