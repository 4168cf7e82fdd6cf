/*  =========================================================================
    drover_poollocal - the pool's local driver: each instance is a `drover
    worker` process on this machine

    Its directory holds one file per instance, named after it, written
    atomically (a temporary file renamed over it):

        pid=12345
        type=small
        pool=drover
        idle=run

    and the worker's output, appended to NAME.log. A worker is started with
    posix_spawn in a session of its own (so it outlives a broker that stops,
    and a signal to the broker's group does not reach it), stdin /dev/null,
    the broker's environment plus DROVER_BROKER:

        drover worker --broker ENDPOINT --id NAME --procs P [--mem BYTES]
                      [--label K=V ...]

    An instance is listed only while its process is alive AND its
    /proc/PID/cmdline is a worker with --id NAME (a pid the kernel gave to
    another process since is not ours); a file whose process is gone is
    removed. Destroy sends SIGTERM (the worker says goodbye and stops its
    tasks), and a second destroy of the same instance SIGKILL to its
    process group. The workers this driver started are its children: each
    one's pidfd is watched, and it is reaped as soon as it ends. After a
    broker restart they are init's, and the new driver finds them by their
    files.

    Every operation is done at once (a spawn, a signal, a small file) and
    reported at the next drover_pooldriver_process.
    =========================================================================
*/

#ifndef _GNU_SOURCE
#   define _GNU_SOURCE         //  pipe2, posix_spawn_file_actions_addclosefrom_np
#endif
#include "drover_poollocal.h"
#include "drover_devicelist.h"
#include "drover_msg.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

extern char **environ;

#define S_POOL_MAX      256         //  bytes of a pool name kept from a file
#define S_CMDLINE_MAX   8192        //  bytes of /proc/PID/cmdline read

//  What an instance's file says
typedef struct {
    pid_t pid;                      //  its worker process
    char type [DROVER_ID_MAX + 1];  //  its type's name
    char pool [S_POOL_MAX];         //  its pool's name
    drover_idle_behaviour_t behaviour;  //  its idle behaviour
    uint64_t start;                 //  its process's start time (/proc/PID/stat), 0 unknown
} s_record_t;

//  A worker this driver started, until reaped
typedef struct {
    pid_t pid;                      //  the process
    int pidfd;                      //  readable once it exits
    char *name;                     //  its instance, owned
} s_child_t;

struct _drover_poollocal_t {
    char *dir;                      //  the instances' directory
    char *worker;                   //  the drover binary started
    char *pool;                     //  pool name, the tag of what we create
    char *broker;                   //  endpoint the workers connect to
    zlistx_t *children;             //  workers started and not reaped, s_child_t
    s_child_t **polled;             //  per item of the last fill, borrowed
    size_t polled_alloc;            //  room in polled
    size_t npolled;                 //  items of the last fill
    zhashx_t *destroys;             //  instance -> destroys asked (uintptr_t), while listed
};


//  Destroy a child's record (not the process)
static void
s_child_destroy (s_child_t **self_p)
{
    s_child_t *self = *self_p;
    if (!self)
        return;
    if (self->pidfd >= 0)
        close (self->pidfd);
    free (self->name);
    free (self);
    *self_p = NULL;
}


//  --------------------------------------------------------------------------
//  Create the local driver keeping its instances in dir

drover_poollocal_t *
drover_poollocal_new (const char *dir, const char *worker, const char *pool,
                      const char *broker, char **error_p)
{
    if (zsys_dir_create ("%s", dir) || access (dir, W_OK | X_OK)) {
        *error_p = zsys_sprintf ("pool/local-dir: cannot make directory %s: %s", dir,
                                 strerror (errno));
        return NULL;
    }
    drover_poollocal_t *self = (drover_poollocal_t *) zmalloc (sizeof (drover_poollocal_t));
    self->dir = strdup (dir);
    if (worker && *worker)
        self->worker = strdup (worker);
    else {
        //  The broker is the drover binary: its workers are that binary too
        char path [PATH_MAX];
        ssize_t size = readlink ("/proc/self/exe", path, sizeof path - 1);
        path [size > 0? size: 0] = 0;
        self->worker = strdup (size > 0? path: "/proc/self/exe");
    }
    self->pool = strdup (pool);
    self->broker = strdup (broker);
    self->children = zlistx_new ();
    self->destroys = zhashx_new ();
    zsys_info ("pooldriver: driver=local worker=%s", self->worker);
    return self;
}


//  --------------------------------------------------------------------------
//  Destroy the driver; its instances keep running

void
drover_poollocal_destroy (drover_poollocal_t **self_p)
{
    assert (self_p);
    drover_poollocal_t *self = *self_p;
    if (!self)
        return;
    s_child_t *child = (s_child_t *) zlistx_first (self->children);
    for (; child; child = (s_child_t *) zlistx_next (self->children)) {
        waitpid (child->pid, NULL, WNOHANG);     //  reap it if it ended already
        s_child_destroy (&child);
    }
    zlistx_destroy (&self->children);
    zhashx_destroy (&self->destroys);
    free (self->polled);
    free (self->dir);
    free (self->worker);
    free (self->pool);
    free (self->broker);
    free (self);
    *self_p = NULL;
}


//  --------------------------------------------------------------------------
//  Return the directory the instances are kept in

const char *
drover_poollocal_dir (drover_poollocal_t *self)
{
    assert (self);
    return self->dir;
}


//  Return true if name can be an instance's file name
static bool
s_name_valid (const char *name)
{
    size_t length = strlen (name);
    return drover_id_valid (name) && !strchr (name, '/') && *name != '.'
        && !(length >= 4 && streq (name + length - 4, ".log"));
}


//  Read /proc/PID/stat of process pid into line; return where its fields
//  after the command start (at the command's closing ')'), or NULL
static char *
s_stat_after_command (pid_t pid, char *line, int size)
{
    char path [64];
    snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
    FILE *file = fopen (path, "re");
    if (!file)
        return NULL;
    char *text = fgets (line, size, file);
    fclose (file);
    return text? strrchr (text, ')'): NULL;            //  the command may hold spaces
}


//  Return the start time of process pid (clock ticks since boot, field 22
//  of /proc/PID/stat), or 0 if it cannot be read
static uint64_t
s_start_time (pid_t pid)
{
    char line [1024];
    char *field = s_stat_after_command (pid, line, sizeof line);
    if (!field)
        return 0;
    //  field 3 (state) follows ") "; the start time is field 22
    for (int index = 2; index < 22 && field; index++)
        field = strchr (field + 1, ' ');
    return field? strtoull (field + 1, NULL, 10): 0;
}


//  Return true if process pid is alive and is the worker of instance name:
//  the process started at start (the time its file recorded) or, for a
//  file without one, whose command line has `worker` and `--id NAME`. A
//  pid reused by another process is not ours; a worker just spawned is,
//  even while its command line is not yet readable (exec in progress).
static bool
s_alive (pid_t pid, const char *name, uint64_t start)
{
    if (pid <= 1 || (kill (pid, 0) && errno != EPERM))
        return false;
    if (start)
        return s_start_time (pid) == start;
    char path [64];
    snprintf (path, sizeof path, "/proc/%d/cmdline", (int) pid);
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    char cmdline [S_CMDLINE_MAX + 1];
    ssize_t size = read (fd, cmdline, S_CMDLINE_MAX);
    close (fd);
    if (size <= 0)
        return false;               //  a zombie has no command line
    cmdline [size] = 0;
    bool worker = false;
    bool named = false;
    const char *previous = "";
    for (const char *arg = cmdline; arg < cmdline + size; arg += strlen (arg) + 1) {
        worker |= streq (arg, "worker");
        named |= streq (previous, "--id") && streq (arg, name);
        previous = arg;
    }
    return worker && named;
}


//  Read an instance's file. Returns 0, or -1 if missing or unreadable.
static int
s_record_read (drover_poollocal_t *self, const char *name, s_record_t *record)
{
    memset (record, 0, sizeof *record);
    char *path = zsys_sprintf ("%s/%s", self->dir, name);
    FILE *file = fopen (path, "re");
    zstr_free (&path);
    if (!file)
        return -1;
    char line [S_POOL_MAX + 16];
    while (fgets (line, sizeof line, file)) {
        line [strcspn (line, "\n")] = 0;
        char *value = strchr (line, '=');
        if (!value)
            continue;
        *value++ = 0;
        if (streq (line, "pid"))
            record->pid = (pid_t) atoi (value);
        else
        if (streq (line, "type"))
            snprintf (record->type, sizeof record->type, "%s", value);
        else
        if (streq (line, "pool"))
            snprintf (record->pool, sizeof record->pool, "%s", value);
        else
        if (streq (line, "idle") && drover_idle_behaviour_parse (value, &record->behaviour))
            record->behaviour = DROVER_IDLE_RUN;
        else
        if (streq (line, "start"))
            record->start = strtoull (value, NULL, 10);
    }
    fclose (file);
    return record->pid > 0? 0: -1;
}


//  Write an instance's file atomically. Returns 0, or -1 (errno set).
static int
s_record_write (drover_poollocal_t *self, const char *name, const s_record_t *record)
{
    char *temp = zsys_sprintf ("%s/.%s.tmp", self->dir, name);
    char *path = zsys_sprintf ("%s/%s", self->dir, name);
    int rc = -1;
    FILE *file = fopen (temp, "we");
    if (file) {
        fprintf (file, "pid=%d\ntype=%s\npool=%s\nidle=%s\nstart=%" PRIu64 "\n",
                 (int) record->pid, record->type, record->pool,
                 drover_idle_behaviour_name (record->behaviour), record->start);
        bool written = !ferror (file);
        if (fclose (file) == 0 && written)
            rc = rename (temp, path);
        if (rc)
            unlink (temp);
    }
    zstr_free (&temp);
    zstr_free (&path);
    return rc;
}


//  Remove an instance's file (when its process is gone)
static void
s_record_remove (drover_poollocal_t *self, const char *name)
{
    char *path = zsys_sprintf ("%s/%s", self->dir, name);
    unlink (path);
    zstr_free (&path);
    zhashx_delete (self->destroys, name);
}


//  Start the worker of an instance. Returns its pid, or -1 with detail.
static pid_t
s_spawn (drover_poollocal_t *self, const drover_pooltype_t *type, const char *name,
         char *detail, size_t detail_size)
{
    char procs [16];
    char mem [32];
    snprintf (procs, sizeof procs, "%u", type->procs);
    snprintf (mem, sizeof mem, "%" PRIu64, type->mem);
    const char *argv [8 + 2 + 2 * DROVER_LABELS_MAX + 2 * DROVER_DEVICES_MAX + 1] = {
        self->worker, "worker", "--broker", self->broker, "--id", name, "--procs", procs
    };
    size_t argc = 8;
    if (type->mem) {
        argv [argc++] = "--mem";
        argv [argc++] = mem;
    }
    char *labels = strdup (type->labels? type->labels: "");
    char *save = NULL;
    for (char *label = strtok_r (labels, "\n", &save); label && argc < 8 + 2 + 2 * DROVER_LABELS_MAX;
         label = strtok_r (NULL, "\n", &save)) {
        argv [argc++] = "--label";
        argv [argc++] = label;
    }
    //  Its devices, one --device per name; none given: none (not detected)
    drover_device_t devices [DROVER_DEVICES_MAX];
    int ndevices = drover_devicelist_parse (type->devices, devices, NULL);
    char device_flags [DROVER_DEVICES_MAX][DROVER_DEVICE_NAME_MAX + 16];
    for (int index = 0; index < ndevices; index++) {
        snprintf (device_flags [index], sizeof device_flags [index], "%.32s=%u",
                  devices [index].name, devices [index].count);
        argv [argc++] = "--device";
        argv [argc++] = device_flags [index];
    }
    if (ndevices <= 0 || !drover_devicelist_count (devices, (size_t) ndevices, "gpu")) {
        argv [argc++] = "--device";
        argv [argc++] = "gpu=0";        //  the type says what it has: no detection
    }
    argv [argc] = NULL;
    //  The broker's environment, DROVER_BROKER ours
    size_t count = 0;
    while (environ && environ [count])
        count++;
    char **env = (char **) zmalloc ((count + 2) * sizeof (char *));
    size_t envc = 0;
    for (size_t index = 0; index < count; index++)
        if (strncmp (environ [index], "DROVER_BROKER=", 14))
            env [envc++] = environ [index];
    char *broker = zsys_sprintf ("DROVER_BROKER=%s", self->broker);
    env [envc++] = broker;
    char *log = zsys_sprintf ("%s/%s.log", self->dir, name);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init (&actions);
    posix_spawn_file_actions_addopen (&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen (&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2 (&actions, 1, 2);
    posix_spawn_file_actions_addclosefrom_np (&actions, 3);
    posix_spawnattr_t attr;
    posix_spawnattr_init (&attr);
    sigset_t none, all;
    sigemptyset (&none);
    sigfillset (&all);
    posix_spawnattr_setsigmask (&attr, &none);
    posix_spawnattr_setsigdefault (&attr, &all);
    posix_spawnattr_setflags (&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK
                                   | POSIX_SPAWN_SETSIGDEF);
    pid_t pid;
    int rc = posix_spawn (&pid, self->worker, &actions, &attr, (char *const *) argv, env);
    posix_spawn_file_actions_destroy (&actions);
    posix_spawnattr_destroy (&attr);
    if (rc)
        snprintf (detail, detail_size, "cannot start %s worker (log %s): %s", self->worker, log,
                  strerror (rc));
    zstr_free (&log);
    zstr_free (&broker);
    free (env);
    free (labels);
    return rc? -1: pid;
}


//  Create an instance: start its worker, then write its file
static drover_poolop_result_t
s_create (drover_poollocal_t *self, const drover_pooltype_t *type, const char *name,
          drover_idle_behaviour_t behaviour, char *detail, size_t detail_size)
{
    s_record_t record;
    if (!s_name_valid (name)) {
        snprintf (detail, detail_size, "'%s' cannot name a file", name);
        return DROVER_POOLOP_FAILED;
    }
    if (s_record_read (self, name, &record) == 0 && s_alive (record.pid, name, record.start)) {
        snprintf (detail, detail_size, "instance %s exists (pid %d)", name, (int) record.pid);
        return DROVER_POOLOP_FAILED;
    }
    pid_t pid = s_spawn (self, type, name, detail, detail_size);
    if (pid < 0)
        return DROVER_POOLOP_FAILED;
    s_child_t *child = (s_child_t *) zmalloc (sizeof (s_child_t));
    child->pid = pid;
    child->pidfd = (int) syscall (SYS_pidfd_open, pid, 0);
    child->name = strdup (name);
    if (child->pidfd >= 0)
        zlistx_add_end (self->children, child);
    else {
        //  Ended and reaped already (ESRCH: SIGCHLD ignored, the kernel
        //  reaps at once): nothing to watch, its record says what ran
        zsys_info ("pooldriver: instance=%s pid=%d not watched: %s", name, (int) pid,
                   strerror (errno));
        s_child_destroy (&child);
    }
    memset (&record, 0, sizeof record);
    record.pid = pid;
    record.start = s_start_time (pid);
    snprintf (record.type, sizeof record.type, "%s", type->name);
    snprintf (record.pool, sizeof record.pool, "%s", self->pool);
    record.behaviour = behaviour;
    if (s_record_write (self, name, &record)) {
        snprintf (detail, detail_size, "cannot write %s/%s: %s", self->dir, name,
                  strerror (errno));
        kill (pid, SIGKILL);        //  reaped through its pidfd
        return DROVER_POOLOP_FAILED;
    }
    zhashx_delete (self->destroys, name);
    zsys_info ("pooldriver: instance=%s created type=%s pid=%d", name, type->name, (int) pid);
    return DROVER_POOLOP_OK;
}


//  Destroy an instance: SIGTERM, SIGKILL to its group the next time
static drover_poolop_result_t
s_destroy (drover_poollocal_t *self, const char *name, char *detail, size_t detail_size)
{
    s_record_t record;
    if (!s_name_valid (name) || s_record_read (self, name, &record))
        return DROVER_POOLOP_OK;    //  no such instance: gone already
    if (!s_alive (record.pid, name, record.start)) {
        s_record_remove (self, name);
        return DROVER_POOLOP_OK;
    }
    uintptr_t asked = (uintptr_t) zhashx_lookup (self->destroys, name);
    //  A worker leads its own session: its group is its pid
    int rc = asked? kill (-record.pid, SIGKILL): kill (record.pid, SIGTERM);
    if (rc && errno != ESRCH) {
        snprintf (detail, detail_size, "cannot signal pid %d: %s", (int) record.pid,
                  strerror (errno));
        return DROVER_POOLOP_FAILED;
    }
    zhashx_update (self->destroys, name, (void *) (asked + 1));
    zsys_info ("pooldriver: instance=%s destroy pid=%d signal=%s", name, (int) record.pid,
               asked? "KILL": "TERM");
    return DROVER_POOLOP_OK;
}


//  Set an instance's idle behaviour in its file
static drover_poolop_result_t
s_tag (drover_poollocal_t *self, const char *name, drover_idle_behaviour_t behaviour,
       char *detail, size_t detail_size)
{
    s_record_t record;
    if (!s_name_valid (name) || s_record_read (self, name, &record)
    ||  !s_alive (record.pid, name, record.start)) {
        snprintf (detail, detail_size, "no instance %s", name);
        return DROVER_POOLOP_FAILED;
    }
    record.behaviour = behaviour;
    if (s_record_write (self, name, &record)) {
        snprintf (detail, detail_size, "cannot write %s/%s: %s", self->dir, name,
                  strerror (errno));
        return DROVER_POOLOP_FAILED;
    }
    return DROVER_POOLOP_OK;
}


//  Return the state letter of process pid (field 3 of /proc/PID/stat: R,
//  S, D, T, t, Z...), or 0 if it cannot be read
static char
s_proc_state (pid_t pid)
{
    char line [1024];
    char *field = s_stat_after_command (pid, line, sizeof line);
    return field && field [1] == ' '? field [2]: 0;
}


//  Probe an instance (its boot probe): its worker's process is alive, is
//  that instance's worker, and is neither stopped nor a zombie (the pool
//  probes only once the worker registered: registered and this, healthy)
static drover_poolop_result_t
s_probe (drover_poollocal_t *self, const char *name, char *detail, size_t detail_size)
{
    s_record_t record;
    if (!s_name_valid (name) || s_record_read (self, name, &record)) {
        snprintf (detail, detail_size, "no instance %s", name? name: "");
        return DROVER_POOLOP_FAILED;
    }
    if (!s_alive (record.pid, name, record.start)) {
        snprintf (detail, detail_size, "its worker (pid %d) is gone", (int) record.pid);
        return DROVER_POOLOP_FAILED;
    }
    char state = s_proc_state (record.pid);
    if (state == 'T' || state == 't' || state == 'Z' || state == 'X') {
        snprintf (detail, detail_size, "its worker (pid %d) is %s", (int) record.pid,
                  state == 'Z' || state == 'X'? "a zombie": "stopped");
        return DROVER_POOLOP_FAILED;
    }
    return DROVER_POOLOP_OK;
}


//  List the instances whose worker is alive; remove the files of the rest
static drover_poolop_result_t
s_list (drover_poollocal_t *self, drover_poolreport_t *report, char *detail,
        size_t detail_size)
{
    DIR *dir = opendir (self->dir);
    if (!dir) {
        snprintf (detail, detail_size, "cannot read %s: %s", self->dir, strerror (errno));
        return DROVER_POOLOP_FAILED;
    }
    struct dirent *entry;
    while ((entry = readdir (dir))) {
        const char *name = entry->d_name;
        s_record_t record;
        if (!s_name_valid (name) || s_record_read (self, name, &record))
            continue;               //  a log, a temporary file, not an instance
        if (s_alive (record.pid, name, record.start))
            drover_poolreport_add (report, name, record.type, record.pool, record.behaviour);
        else {
            zsys_info ("pooldriver: instance=%s pid=%d gone: file removed", name,
                       (int) record.pid);
            s_record_remove (self, name);
        }
    }
    closedir (dir);
    return DROVER_POOLOP_OK;
}


//  --------------------------------------------------------------------------
//  Carry out an operation at once, appending its report to done

void
drover_poollocal_start (drover_poollocal_t *self, drover_poolaction_kind_t kind,
                        const char *instance, const drover_pooltype_t *type,
                        drover_idle_behaviour_t behaviour, zlistx_t *done)
{
    assert (self);
    char detail [DROVER_POOLREPORT_DETAIL_MAX + 1] = "";
    drover_poolreport_t *report = drover_poolreport_new (kind, instance, DROVER_POOLOP_OK, "");
    drover_poolop_result_t result;
    if (kind == DROVER_POOL_CREATE)
        result = s_create (self, type, instance, behaviour, detail, sizeof detail);
    else
    if (kind == DROVER_POOL_DESTROY)
        result = s_destroy (self, instance, detail, sizeof detail);
    else
    if (kind == DROVER_POOL_TAG)
        result = s_tag (self, instance, behaviour, detail, sizeof detail);
    else
    if (kind == DROVER_POOL_PROBE)
        result = s_probe (self, instance, detail, sizeof detail);
    else
        result = s_list (self, report, detail, sizeof detail);
    if (result != DROVER_POOLOP_OK) {
        zsys_warning ("pooldriver: instance=%s failed: %s", instance? instance: "-", detail);
        drover_poolreport_destroy (&report);
        report = drover_poolreport_new (kind, instance, result, detail);
    }
    zlistx_add_end (done, report);
}


//  --------------------------------------------------------------------------
//  Return how many items fill needs at most

size_t
drover_poollocal_items (drover_poollocal_t *self)
{
    assert (self);
    return zlistx_size (self->children);
}


//  --------------------------------------------------------------------------
//  Fill items with the pidfds of the workers started; returns how many

size_t
drover_poollocal_fill (drover_poollocal_t *self, zmq_pollitem_t *items, size_t max)
{
    assert (self);
    if (self->polled_alloc < zlistx_size (self->children)) {
        self->polled_alloc = zlistx_size (self->children) * 2;
        self->polled = (s_child_t **) realloc (self->polled,
                                               self->polled_alloc * sizeof (s_child_t *));
        assert (self->polled);
    }
    self->npolled = 0;
    s_child_t *child = (s_child_t *) zlistx_first (self->children);
    for (; child && self->npolled < max; child = (s_child_t *) zlistx_next (self->children)) {
        zmq_pollitem_t *item = &items [self->npolled];
        item->socket = NULL;
        item->fd = child->pidfd;
        item->events = ZMQ_POLLIN;
        item->revents = 0;
        self->polled [self->npolled++] = child;
    }
    return self->npolled;
}


//  --------------------------------------------------------------------------
//  Reap the workers whose pidfd says they ended

void
drover_poollocal_process (drover_poollocal_t *self, zmq_pollitem_t *items, size_t count)
{
    assert (self);
    if (count > self->npolled)
        count = self->npolled;
    for (size_t index = 0; items && index < count; index++) {
        if (!(items [index].revents & (ZMQ_POLLIN | ZMQ_POLLERR)))
            continue;
        s_child_t *child = self->polled [index];
        int status = 0;
        pid_t rc = waitpid (child->pid, &status, WNOHANG);
        if (rc == 0 || (rc == -1 && errno != ECHILD))
            continue;               //  not yet, or interrupted: its pidfd says so again
        if (rc == child->pid)
            zsys_info ("pooldriver: instance=%s pid=%d ended %s=%d", child->name,
                       (int) child->pid, WIFSIGNALED (status)? "signal": "status",
                       WIFSIGNALED (status)? WTERMSIG (status): WEXITSTATUS (status));
        else                        //  ECHILD: reaped by someone else (SIGCHLD ignored)
            zsys_info ("pooldriver: instance=%s pid=%d ended", child->name, (int) child->pid);
        s_record_t record;
        if (s_record_read (self, child->name, &record) == 0 && record.pid == child->pid)
            s_record_remove (self, child->name);
        void *handle = zlistx_find (self->children, child);
        assert (handle);
        zlistx_delete (self->children, handle);
        s_child_destroy (&child);
    }
    self->npolled = 0;
}
