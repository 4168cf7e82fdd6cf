/*  =========================================================================
    drover_confine - keeps every process a task starts together, and kills
    them all, even after the worker that started them died

    The worker's tasks live under one cgroup directory made for this
    confinement, "drover-PID-N" inside the worker's own cgroup (the `0::`
    line of /proc/self/cgroup, under the cgroup2 mount found in
    /proc/self/mounts), one "tN" directory per running task. The runner
    starts the task's child right in it (clone3 with CLONE_INTO_CGROUP).

    Task cgroups are pooled: making and removing one (mkdir, rmdir, the
    kernel's css set-up and RCU tear-down) cost a third of the worker's
    CPU per `true` task, so a task's cgroup that is empty when the task
    ended goes back to a pool, with the fds on its directory and its
    cgroup.events kept open, and the next task starts in it. A pooled
    cgroup is taken only once cgroup.events says "populated 0" (checked
    when it is given back and again when it is taken). What a task leaves
    behind is killed (cgroup.kill, its whole tree) and its cgroup is not
    reused: it waits in the leftover list, checked again every
    S_TIDY_RETRY, until it is empty, and is then removed, as are those
    whose settings a task changed (a v2 memory limit:
    drover_confine_taint) and those past S_POOL_MAX free.

    The supervisor is forked once, before the first task. Between fork and
    _exit it makes only system calls (the worker may be multi-threaded, so
    no allocation, no stdio, no locks): it reads 8-byte records (ADD or
    DEL, a process group id) from its pipe until end of file, then kills
    every process group it holds and the worker's whole cgroup, waits up
    to S_SWEEP_WAIT for the cgroup to empty, and removes its directories.
    =========================================================================
*/

#ifndef _GNU_SOURCE
#   define _GNU_SOURCE
#endif
#include "drover_confine.h"
#include "drover_cgfile.h"
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define S_SWEEP_WAIT    5000        //  msec the supervisor waits for a killed cgroup to empty
#define S_STOP_WAIT     10000       //  msec destroy waits for the supervisor
#define S_TIDY_RETRY    50          //  msec between tries to remove a busy cgroup
#define S_PIDS_INITIAL  1024        //  process groups the supervisor has room for at first
#define S_POOL_MAX      64          //  empty task cgroups kept for reuse, at most

//  What the worker tells the supervisor
typedef enum {
    S_RECORD_ADD = 1,               //  a task's process group to kill if the worker dies
    S_RECORD_DEL = 2                //  that task ended
} s_record_op_t;

//  One record on the supervisor's pipe: written whole (below PIPE_BUF, so atomic)
typedef struct {
    int32_t op;                     //  s_record_op_t
    int32_t pid;                    //  process group id
} s_record_t;

//  Where a task cgroup is
typedef enum {
    S_GROUP_NONE = 0,               //  no directory (never made, or removed)
    S_GROUP_USED,                   //  a task runs in it
    S_GROUP_FREE,                   //  empty, in the pool
    S_GROUP_DRAINING,               //  killed (so tainted), not yet empty: settled when it is
    S_GROUP_REMOVING                //  its task ended, killed: removed once empty
} s_group_state_t;

//  One task cgroup, directory "tN" for number N (its index + 1)
typedef struct {
    int state;                      //  s_group_state_t
    int dir_fd;                     //  fd on its directory, -1 if none
    int events_fd;                  //  fd on its cgroup.events, -1 if none
    bool tainted;                   //  a task changed its settings: never reused
} s_group_t;

struct _drover_confine_t {
    char *cgroup;                   //  directory of the tasks' cgroups, or NULL: process groups only
    int pipe_fd;                    //  write end of the supervisor's pipe, -1 if none
    pid_t supervisor;               //  supervisor pid, 0 if none
    int supervisor_fd;              //  its pidfd, -1 if none
    s_group_t *groups;              //  task cgroups by number - 1
    uint32_t ngroups;               //  entries in groups
    uint32_t *free;                 //  numbers of the pooled (empty) cgroups, a stack
    uint32_t nfree;                 //  entries in free
    uint32_t *leftover;             //  ended tasks' cgroups not empty yet, by number
    size_t nleftover;               //  entries in leftover
    size_t leftover_alloc;          //  room in leftover
    int64_t next_tidy;              //  msec of the next removal retry, -1 if none
};

static char *s_cgroup_make (const char *mode);
static int s_supervisor_start (drover_confine_t *self);


//  --------------------------------------------------------------------------
//  Create a confinement in mode "auto", "cgroup" or "pgroup", and start its
//  supervisor

drover_confine_t *
drover_confine_new (const char *mode)
{
    if (!mode || !*mode)
        mode = "auto";
    drover_confine_t *self = (drover_confine_t *) zmalloc (sizeof (drover_confine_t));
    self->pipe_fd = -1;
    self->supervisor_fd = -1;
    self->next_tidy = -1;
    if (!streq (mode, "pgroup"))
        self->cgroup = s_cgroup_make (mode);
    if (s_supervisor_start (self))
        zsys_warning ("confine: no supervisor (%s): tasks of a worker killed outright "
                      "may outlive it", strerror (errno));
    if (self->cgroup)
        zsys_notice ("confine: each task in its own cgroup under %s", self->cgroup);
    else
        zsys_notice ("confine: each task in its own process group");
    return self;
}


//  Find the directory of this process's cgroup v2: the cgroup2 mount point
//  plus the path on the `0::` line of /proc/self/cgroup. Fresh string, or
//  NULL (why in *why).
static char *
s_cgroup_own (const char **why)
{
    char *mounts = drover_cgfile_read ("/proc/self/mounts");
    char *cgroups = drover_cgfile_read ("/proc/self/cgroup");
    char *own = NULL;
    char mount [PATH_MAX] = "";
    for (char *line = mounts; line && *line; ) {
        char *end = strchr (line, '\n');
        if (end)
            *end = 0;
        char point [PATH_MAX], type [64];
        if (sscanf (line, "%*s %4095s %63s", point, type) == 2 && streq (type, "cgroup2")) {
            snprintf (mount, sizeof mount, "%s", point);
            break;
        }
        line = end? end + 1: NULL;
    }
    const char *path = NULL;
    for (char *line = cgroups; line && *line; ) {
        char *end = strchr (line, '\n');
        if (end)
            *end = 0;
        if (strncmp (line, "0::", 3) == 0) {
            path = line + 3;
            break;
        }
        line = end? end + 1: NULL;
    }
    if (!*mount)
        *why = "no cgroup2 mount in /proc/self/mounts";
    else
    if (!path || *path != '/')
        *why = "no cgroup v2 line in /proc/self/cgroup";
    else {
        size_t size = strlen (mount) + strlen (path) + 1;
        own = (char *) zmalloc (size);
        snprintf (own, size, "%s%s", mount, streq (path, "/")? "": path);
    }
    free (mounts);
    free (cgroups);
    return own;
}

//  Make the cgroup directory this worker's tasks go under. Returns its
//  path, or NULL (logged) when the machine does not allow it.
static char *
s_cgroup_make (const char *mode)
{
    const char *why = NULL;
    char *own = s_cgroup_own (&why);
    char *made = NULL;
    char reason [PATH_MAX + 64] = "";
    if (own) {
        static uint32_t made_before = 0;   //  confinements of this process so far
        char path [PATH_MAX];
        snprintf (path, sizeof path, "%s/drover-%d-%u", own, (int) getpid (), ++made_before);
        char kill_path [PATH_MAX + 16];
        snprintf (kill_path, sizeof kill_path, "%s/cgroup.kill", path);
        if (mkdir (path, 0755) == -1)
            snprintf (reason, sizeof reason, "cannot make %s: %s", path, strerror (errno));
        else
        if (access (kill_path, W_OK) == -1) {
            snprintf (reason, sizeof reason, "no cgroup.kill in %s (Linux 5.14 or later has it)",
                      own);
            rmdir (path);
        }
        else
            made = strdup (path);
    }
    else
        snprintf (reason, sizeof reason, "%s", why);
    if (!made) {
        if (streq (mode, "cgroup"))
            zsys_warning ("confine: no cgroup for tasks, process groups only: %s", reason);
        else
            zsys_info ("confine: no cgroup for tasks: %s", reason);
    }
    free (own);
    return made;
}


//  --------------------------------------------------------------------------
//  The supervisor's side: system calls only from fork to _exit

//  Join dir and name with a slash into path (size bytes); false if too long
static bool
s_join (char *path, size_t size, const char *dir, const char *name)
{
    size_t dir_size = strlen (dir), name_size = strlen (name);
    if (dir_size + 1 + name_size + 1 > size)
        return false;
    memcpy (path, dir, dir_size);
    path [dir_size] = '/';
    memcpy (path + dir_size + 1, name, name_size + 1);
    return true;
}

//  Wait until a cgroup has no process left, up to msec; true if empty.
//  cgroup.events says "populated 0" then, and signals each change as POLLPRI.
static bool
s_cgroup_await_empty (const char *dir, int msec)
{
    char path [PATH_MAX];
    if (!s_join (path, sizeof path, dir, "cgroup.events"))
        return false;
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    if (fd == -1)
        return true;                //  gone already
    bool empty = false;
    struct timespec start, now;
    clock_gettime (CLOCK_MONOTONIC, &start);
    while (true) {
        char text [256];
        ssize_t size = pread (fd, text, sizeof text - 1, 0);
        if (size <= 0)
            break;
        text [size] = 0;
        if (strstr (text, "populated 0")) {
            empty = true;
            break;
        }
        clock_gettime (CLOCK_MONOTONIC, &now);
        int64_t spent = (int64_t) (now.tv_sec - start.tv_sec) * 1000
                      + (now.tv_nsec - start.tv_nsec) / 1000000;
        if (spent >= msec)
            break;
        struct pollfd item = { fd, POLLPRI, 0 };
        poll (&item, 1, (int) (msec - spent));
    }
    close (fd);
    return empty;
}

//  Kill every process under a cgroup directory, wait for them to go, and
//  remove its task directories and itself
static void
s_cgroup_sweep (const char *dir)
{
    if (drover_cgfile_write (dir, "cgroup.kill", "1") == -1 && errno == ENOENT)
        return;                     //  removed already
    s_cgroup_await_empty (dir, S_SWEEP_WAIT);
    int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd == -1)
        return;
    char buffer [4096] __attribute__ ((aligned (8)));
    long size;
    while ((size = syscall (SYS_getdents64, fd, buffer, sizeof buffer)) > 0) {
        for (long offset = 0; offset < size; ) {
            struct dirent64 *entry = (struct dirent64 *) (buffer + offset);
            offset += entry->d_reclen;
            if (entry->d_type == DT_DIR && entry->d_name [0] == 't')
                unlinkat (fd, entry->d_name, AT_REMOVEDIR);
        }
    }
    close (fd);
    rmdir (dir);
}

//  The supervisor: remember process groups until the pipe closes, then
//  kill them all and sweep the cgroup. Never returns.
static void
s_supervise (int pipe_fd, const char *cgroup)
{
    prctl (PR_SET_NAME, "drover-guard");
    //  Outlive the worker: signals meant for it must not end us first
    static const int ignored [] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE,
                                    SIGUSR1, SIGUSR2, SIGALRM };
    for (size_t index = 0; index < sizeof ignored / sizeof ignored [0]; index++)
        signal (ignored [index], SIG_IGN);
    sigset_t none;
    sigemptyset (&none);
    sigprocmask (SIG_SETMASK, &none, NULL);
    //  Hold nothing of the worker's open but our pipe (its sockets, other
    //  supervisors' pipes), and no terminal input or output
    int null_fd = open ("/dev/null", O_RDWR);
    if (null_fd >= 0) {
        dup2 (null_fd, 0);
        dup2 (null_fd, 1);
    }
    if (pipe_fd > 3)
        syscall (SYS_close_range, 3U, (unsigned) pipe_fd - 1, 0U);
    syscall (SYS_close_range, (unsigned) pipe_fd + 1, ~0U, 0U);

    size_t alloc = S_PIDS_INITIAL, size = 0;
    pid_t *pids = (pid_t *) mmap (NULL, alloc * sizeof (pid_t), PROT_READ | PROT_WRITE,
                                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    s_record_t records [256];
    size_t have = 0;                //  bytes in records
    while (pids != MAP_FAILED) {
        ssize_t rc = read (pipe_fd, (char *) records + have, sizeof records - have);
        if (rc == -1 && errno == EINTR)
            continue;
        if (rc <= 0)
            break;                  //  the worker is gone (or done with us)
        have += (size_t) rc;
        size_t count = have / sizeof (s_record_t);
        for (size_t index = 0; index < count; index++) {
            if (records [index].op == S_RECORD_ADD) {
                if (size == alloc) {
                    void *grown = mremap (pids, alloc * sizeof (pid_t),
                                          alloc * 2 * sizeof (pid_t), MREMAP_MAYMOVE);
                    if (grown == MAP_FAILED)
                        continue;   //  this group goes unguarded
                    pids = (pid_t *) grown;
                    alloc *= 2;
                }
                pids [size++] = records [index].pid;
            }
            else
            for (size_t slot = size; slot-- > 0; )
                if (pids [slot] == records [index].pid) {
                    pids [slot] = pids [--size];
                    break;
                }
        }
        have -= count * sizeof (s_record_t);
        memmove (records, (char *) records + count * sizeof (s_record_t), have);
    }
    for (size_t index = 0; pids != MAP_FAILED && index < size; index++)
        kill (-pids [index], SIGKILL);
    if (cgroup)
        s_cgroup_sweep (cgroup);
    _exit (0);
}

//  Fork the supervisor with a pipe from us. Returns 0 or -1.
static int
s_supervisor_start (drover_confine_t *self)
{
    int ends [2];
    if (pipe2 (ends, O_CLOEXEC) == -1)
        return -1;
    pid_t pid = fork ();
    if (pid == -1) {
        close (ends [0]);
        close (ends [1]);
        return -1;
    }
    if (pid == 0) {
        close (ends [1]);
        s_supervise (ends [0], self->cgroup);
    }
    close (ends [0]);
    self->pipe_fd = ends [1];
    self->supervisor = pid;
    self->supervisor_fd = (int) syscall (SYS_pidfd_open, pid, 0);
    return 0;
}

//  Tell the supervisor something; a lost supervisor is only logged
static void
s_tell (drover_confine_t *self, int op, pid_t pid)
{
    if (self->pipe_fd == -1)
        return;
    s_record_t record = { op, pid };
    ssize_t rc;
    while ((rc = write (self->pipe_fd, &record, sizeof record)) == -1 && errno == EINTR)
        ;
    if (rc != (ssize_t) sizeof record) {
        zsys_warning ("confine: supervisor pid=%d unreachable (%s): tasks of a worker "
                      "killed outright may outlive it", (int) self->supervisor,
                      rc == -1? strerror (errno): "short write");
        close (self->pipe_fd);
        self->pipe_fd = -1;
    }
}


//  Close a task cgroup's fds (its directory stays)
static void
s_group_close (s_group_t *entry)
{
    if (entry->dir_fd >= 0)
        close (entry->dir_fd);
    if (entry->events_fd >= 0)
        close (entry->events_fd);
    entry->dir_fd = entry->events_fd = -1;
}


//  --------------------------------------------------------------------------
//  Destroy: the supervisor kills what is left and removes the cgroups

void
drover_confine_destroy (drover_confine_t **self_p)
{
    assert (self_p);
    drover_confine_t *self = *self_p;
    if (!self)
        return;
    if (self->pipe_fd >= 0)
        close (self->pipe_fd);      //  the supervisor's cue
    if (self->supervisor) {
        if (self->supervisor_fd >= 0) {
            struct pollfd item = { self->supervisor_fd, POLLIN, 0 };
            while (poll (&item, 1, S_STOP_WAIT) == -1 && errno == EINTR)
                ;
            close (self->supervisor_fd);
        }
        waitpid (self->supervisor, NULL, WNOHANG);
    }
    else
    if (self->cgroup)
        s_cgroup_sweep (self->cgroup);
    for (uint32_t index = 0; index < self->ngroups; index++)
        s_group_close (&self->groups [index]);
    free (self->cgroup);
    free (self->groups);
    free (self->free);
    free (self->leftover);
    free (self);
    *self_p = NULL;
}


//  --------------------------------------------------------------------------
//  Return the tasks' cgroup directory, or NULL

const char *
drover_confine_cgroup (drover_confine_t *self)
{
    assert (self);
    return self->cgroup;
}


//  --------------------------------------------------------------------------
//  Return the supervisor's pid, or 0

pid_t
drover_confine_supervisor (drover_confine_t *self)
{
    assert (self);
    return self->supervisor;
}


//  Path of a task's cgroup directory, or of a file in it (file NULL: the directory)
static void
s_group_path (drover_confine_t *self, uint32_t group, const char *file,
              char *path, size_t size)
{
    if (file)
        snprintf (path, size, "%s/t%u/%s", self->cgroup, group, file);
    else
        snprintf (path, size, "%s/t%u", self->cgroup, group);
}


//  True if a task cgroup holds no process (its cgroup.events says
//  "populated 0", which counts its descendants too); false if it does or
//  cannot be read, *gone_p then true if it was removed under us
static bool
s_group_empty_or_gone (s_group_t *entry, bool *gone_p)
{
    char text [256];
    ssize_t size = pread (entry->events_fd, text, sizeof text - 1, 0);
    if (gone_p)
        *gone_p = size == -1 && (errno == ENODEV || errno == ENOENT);
    if (size <= 0)
        return false;
    text [size] = 0;
    return strstr (text, "populated 0") != NULL;
}

//  True if a task cgroup holds no process
static bool
s_group_empty (s_group_t *entry)
{
    return s_group_empty_or_gone (entry, NULL);
}

//  Kill every process in a task cgroup (cgroup.kill). A cgroup once
//  killed is not reused: since Linux 6.14 a cgroup counts its kills
//  (kill_seq), and a child cloned into it (CLONE_INTO_CGROUP) from a
//  cgroup that saw fewer is killed at birth, as measured here on 6.18
static void
s_group_kill (drover_confine_t *self, uint32_t group)
{
    self->groups [group - 1].tainted = true;
    char dir [PATH_MAX];
    s_group_path (self, group, NULL, dir, sizeof dir);
    drover_cgfile_write (dir, "cgroup.kill", "1");
}

//  Put a cgroup in the leftover list, to be seen empty on a later tidy
static void
s_leftover_add (drover_confine_t *self, uint32_t group)
{
    if (self->nleftover == self->leftover_alloc) {
        self->leftover_alloc = self->leftover_alloc? self->leftover_alloc * 2: 16;
        self->leftover = (uint32_t *) realloc (self->leftover,
                                               self->leftover_alloc * sizeof (uint32_t));
        assert (self->leftover);
    }
    self->leftover [self->nleftover++] = group;
    if (self->next_tidy == -1)
        self->next_tidy = zclock_mono () + S_TIDY_RETRY;
}

//  Remove an empty task cgroup's directory; false if still busy (EBUSY)
static bool
s_group_remove (drover_confine_t *self, uint32_t group)
{
    s_group_t *entry = &self->groups [group - 1];
    char dir [PATH_MAX];
    s_group_path (self, group, NULL, dir, sizeof dir);
    if (rmdir (dir) == -1 && errno == EBUSY)
        return false;
    s_group_close (entry);
    entry->state = S_GROUP_NONE;
    entry->tainted = false;
    return true;
}

//  A task cgroup seen empty after its task: back to the pool, or removed
//  if tainted or the pool is full. False if it could not be removed yet.
static bool
s_group_settle (drover_confine_t *self, uint32_t group)
{
    s_group_t *entry = &self->groups [group - 1];
    if (entry->tainted || self->nfree >= S_POOL_MAX) {
        entry->state = S_GROUP_REMOVING;
        return s_group_remove (self, group);
    }
    if (!self->free)
        self->free = (uint32_t *) zmalloc (S_POOL_MAX * sizeof (uint32_t));
    entry->state = S_GROUP_FREE;
    self->free [self->nfree++] = group;
    return true;
}

//  Make a new task cgroup in a slot with no directory; its number, or 0
//  (errno set)
static uint32_t
s_group_make (drover_confine_t *self)
{
    uint32_t group = 0;
    for (uint32_t index = 0; index < self->ngroups && !group; index++)
        if (self->groups [index].state == S_GROUP_NONE)
            group = index + 1;
    if (!group) {
        self->groups = (s_group_t *) realloc (self->groups,
                                              (self->ngroups + 1) * sizeof (s_group_t));
        assert (self->groups);
        group = ++self->ngroups;
        self->groups [group - 1] = (s_group_t) { S_GROUP_NONE, -1, -1, false };
    }
    s_group_t *entry = &self->groups [group - 1];
    char path [PATH_MAX];
    s_group_path (self, group, NULL, path, sizeof path);
    if (mkdir (path, 0755) == -1)
        return 0;
    entry->dir_fd = open (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (entry->dir_fd >= 0)
        entry->events_fd = openat (entry->dir_fd, "cgroup.events", O_RDONLY | O_CLOEXEC);
    if (entry->events_fd == -1) {
        int error = errno;
        s_group_close (entry);
        rmdir (path);
        errno = error;
        return 0;
    }
    entry->state = S_GROUP_USED;
    return group;
}


//  --------------------------------------------------------------------------
//  Give a task its cgroup: an empty one from the pool, else a new one.
//  Returns an fd on its directory (the confinement's: not to be closed),
//  -1 without cgroups, -2 if none could be made (errno says why)

int
drover_confine_prepare (drover_confine_t *self, uint32_t *group_p)
{
    assert (self);
    assert (group_p);
    *group_p = 0;
    if (!self->cgroup)
        return -1;
    uint32_t group = 0;
    while (self->nfree && !group) {
        uint32_t pooled = self->free [--self->nfree];
        s_group_t *entry = &self->groups [pooled - 1];
        //  Empty when it was given back; nothing may have entered it since
        if (s_group_empty (entry)) {
            entry->state = S_GROUP_USED;
            group = pooled;
        }
        else {
            s_group_kill (self, pooled);
            entry->state = S_GROUP_DRAINING;
            s_leftover_add (self, pooled);
        }
    }
    if (!group)
        group = s_group_make (self);
    if (!group)
        return -2;
    *group_p = group;
    return self->groups [group - 1].dir_fd;
}


//  --------------------------------------------------------------------------
//  A task changed its cgroup's settings (a v2 memory limit): the cgroup
//  is removed when the task ends, not pooled

void
drover_confine_taint (drover_confine_t *self, uint32_t group)
{
    assert (self);
    if (group && group <= self->ngroups)
        self->groups [group - 1].tainted = true;
}


//  --------------------------------------------------------------------------
//  The task's first process started as pid

void
drover_confine_started (drover_confine_t *self, uint32_t group, pid_t pid, bool announced)
{
    assert (self);
    if (!group && !announced)
        s_tell (self, S_RECORD_ADD, pid);   //  with a cgroup, the supervisor kills that
}


//  --------------------------------------------------------------------------
//  The fd a task's first process announces its process group on, or -1

int
drover_confine_guard_fd (drover_confine_t *self, uint32_t group)
{
    assert (self);
    return group? -1: self->pipe_fd;
}


//  --------------------------------------------------------------------------
//  In a task's first process, before exec: its process group dies with
//  the worker (one record, below PIPE_BUF: written whole or not at all)

#if defined (__GNUC__) || defined (__clang__)
__attribute__ ((noinline, no_sanitize ("address", "undefined")))
#endif
int
drover_confine_announce (int guard_fd)
{
    s_record_t record = { S_RECORD_ADD, (int32_t) syscall (SYS_getpid) };
    ssize_t rc;
    while ((rc = write (guard_fd, &record, sizeof record)) == -1 && errno == EINTR)
        ;
    return rc == (ssize_t) sizeof record? 0: -1;
}


//  Send signum to each process listed in a task's cgroup.procs
static void
s_signal_listed (drover_confine_t *self, uint32_t group, int signum)
{
    char path [PATH_MAX];
    s_group_path (self, group, "cgroup.procs", path, sizeof path);
    char *text = drover_cgfile_read (path);
    for (char *cursor = text; cursor && *cursor; ) {
        char *end;
        long pid = strtol (cursor, &end, 10);
        if (end == cursor)
            break;
        if (pid > 0)
            kill ((pid_t) pid, signum);
        cursor = end;
    }
    free (text);
}


//  --------------------------------------------------------------------------
//  Send signum to every process of the task

void
drover_confine_signal (drover_confine_t *self, uint32_t group, pid_t pid, int signum)
{
    assert (self);
    if (pid > 0)
        kill (-pid, signum);
    if (group && signum == SIGKILL)
        s_group_kill (self, group);
    else
    if (group)
        s_signal_listed (self, group, signum);
}


//  --------------------------------------------------------------------------
//  The task ended and its leader was reaped: kill what is left in its
//  cgroup, forget its process group, give its cgroup back to the pool
//  once it is empty

void
drover_confine_release (drover_confine_t *self, uint32_t group, pid_t pid)
{
    assert (self);
    if (!group) {
        if (pid > 0)
            s_tell (self, S_RECORD_DEL, pid);
        return;
    }
    if (group > self->ngroups || self->groups [group - 1].state != S_GROUP_USED) {
        zsys_warning ("confine: release of cgroup t%u, not one a task holds", group);
        return;
    }
    s_group_t *entry = &self->groups [group - 1];
    if (s_group_empty (entry) && s_group_settle (self, group))
        return;                     //  the common case: nothing was left in it
    //  Something the task started lives on: it dies with the task, and the
    //  cgroup is reused (or removed) once the kernel has seen it out
    s_group_kill (self, group);
    if (entry->state == S_GROUP_USED)
        entry->state = entry->tainted? S_GROUP_REMOVING: S_GROUP_DRAINING;
    s_leftover_add (self, group);
}


//  --------------------------------------------------------------------------
//  Check again the cgroups of ended tasks that were not empty: pool (or
//  remove) those now empty; returns the next retry or -1

int64_t
drover_confine_tidy (drover_confine_t *self, int64_t now)
{
    assert (self);
    if (self->next_tidy == -1 || now < self->next_tidy)
        return self->next_tidy;
    size_t index = 0;
    while (index < self->nleftover) {
        uint32_t group = self->leftover [index];
        s_group_t *entry = &self->groups [group - 1];
        bool gone = false;
        bool done = entry->state == S_GROUP_REMOVING
                  ? s_group_remove (self, group)
                  : s_group_empty_or_gone (entry, &gone) && s_group_settle (self, group);
        if (gone) {
            //  Removed by someone else: nothing left to wait for
            s_group_close (entry);
            entry->state = S_GROUP_NONE;
            entry->tainted = false;
            done = true;
        }
        if (done)
            self->leftover [index] = self->leftover [--self->nleftover];
        else {
            if (!s_group_empty (entry))
                s_group_kill (self, group);     //  a process forked as it was killed
            index++;
        }
    }
    self->next_tidy = self->nleftover? now + S_TIDY_RETRY: -1;
    return self->next_tidy;
}


//  --------------------------------------------------------------------------
//  Return the msec of the next removal retry, or -1

int64_t
drover_confine_next_tidy (drover_confine_t *self)
{
    assert (self);
    return self->next_tidy;
}
