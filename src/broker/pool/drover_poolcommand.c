/*  =========================================================================
    drover_poolcommand - the pool's command driver: the operator's
    executable run as `PROGRAM create TYPE NAME`, `list`, `tag NAME
    BEHAVIOUR`, `destroy NAME` (the protocol is in drover_pooldriver.h)

    Each operation is a child process started with posix_spawn in a process
    group of its own, stdin /dev/null, stdout and stderr into non-blocking
    pipes, with a pidfd readable once it exits: the broker's loop never
    waits for it. stdout is kept up to S_OUT_MAX (a list that prints more
    fails rather than be read in part), stderr's last S_ERR_MAX bytes (its
    last line is the detail). At op-timeout the whole process group gets
    SIGKILL, while the unreaped
    child still holds the group id (so it cannot have been reused); the
    operation then fails. Every child is reaped: when its pidfd says so, or
    at once when the driver is destroyed.

    A child's own background processes are left alone after it exits
    (a create may start a daemon): they must not keep its stdout or stderr
    open, or the end of their output is lost when the child is reaped.
    =========================================================================
*/

#ifndef _GNU_SOURCE
#   define _GNU_SOURCE         //  pipe2, posix_spawn_file_actions_addclosefrom_np
#endif
#include "drover_poolcommand.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

extern char **environ;

#define S_READS_MAX     16          //  reads of one pipe per readiness
#define S_OUT_MAX       (1024 * 1024)   //  bytes of a command's stdout kept at most
                                        //  (a list past it fails)
#define S_ERR_MAX       4096        //  bytes of the end of a command's stderr kept
                                    //  (its last line is the detail)
#define S_SCRATCH_SIZE  65536       //  bytes one read takes at most

//  One output stream of a command, bounded
typedef struct {
    int fd;                         //  read end of the pipe, -1 once closed
    char *data;                     //  bytes kept, owned
    size_t size;                    //  bytes kept
    size_t alloc;                   //  room in data
    size_t max;                     //  bytes kept at most
    bool tail;                      //  keep the last max bytes, not the first
    bool truncated;                 //  some bytes were not kept
} s_stream_t;

//  One running command
typedef struct {
    drover_poolaction_kind_t kind;  //  what it does
    char *instance;                 //  its instance, owned; NULL for LIST
    char *type;                     //  CREATE: the type's name, owned; else NULL
    pid_t pid;                      //  the child, also its process group id
    int pidfd;                      //  readable once it exits
    bool exited;                    //  its pidfd said so
    bool timed_out;                 //  killed at op-timeout
    uint64_t deadline;              //  op-timeout, monotonic msec
    s_stream_t out;                 //  its stdout
    s_stream_t err;                 //  its stderr
} s_op_t;

//  What one filled poll item watches
typedef struct {
    s_op_t *op;                     //  borrowed from ops
    int what;                       //  0 stdout, 1 stderr, 2 pidfd
} s_polled_t;

struct _drover_poolcommand_t {
    char *program;                  //  the executable
    char *pool;                     //  pool name (DROVER_POOL)
    char *broker;                   //  endpoint workers connect to (DROVER_BROKER)
    drover_pooltype_t *types;       //  the pool's types, labels owned
    size_t ntypes;                  //  entries in types
    uint32_t op_timeout;            //  msec an operation may take
    zhashx_t *known;                //  instance -> its type's name, from creates and lists
    zlistx_t *ops;                  //  running commands, s_op_t
    s_polled_t *polled;             //  per item of the last fill
    size_t polled_alloc;            //  room in polled
    size_t npolled;                 //  items of the last fill
    char *scratch;                  //  S_SCRATCH_SIZE bytes to read into, owned
};


//  Free one stream's bytes and close its fd
static void
s_stream_close (s_stream_t *stream)
{
    if (stream->fd >= 0)
        close (stream->fd);
    stream->fd = -1;
}


//  Keep n bytes read from a stream, within its bound
static void
s_stream_keep (s_stream_t *stream, const char *bytes, size_t n)
{
    if (stream->tail && n >= stream->max) {
        stream->truncated |= stream->size > 0 || n > stream->max;
        bytes += n - stream->max;
        n = stream->max;
        stream->size = 0;
    }
    else
    if (stream->tail && stream->size + n > stream->max) {
        size_t drop = stream->size + n - stream->max;
        memmove (stream->data, stream->data + drop, stream->size - drop);
        stream->size -= drop;
        stream->truncated = true;
    }
    else
    if (!stream->tail && stream->size + n > stream->max) {
        n = stream->max - stream->size;
        stream->truncated = true;
    }
    if (stream->size + n > stream->alloc) {
        size_t alloc = stream->alloc? stream->alloc: 4096;
        while (alloc < stream->size + n)
            alloc *= 2;
        if (alloc > stream->max)
            alloc = stream->max;
        stream->data = (char *) realloc (stream->data, alloc);
        assert (stream->data);
        stream->alloc = alloc;
    }
    memcpy (stream->data + stream->size, bytes, n);
    stream->size += n;
}


//  Read what a stream's pipe holds now, a few reads at most; closes it at
//  the end of file. drain: read until it would block, then close anyway.
static void
s_stream_read (s_stream_t *stream, char *scratch, bool drain)
{
    for (int reads = 0; stream->fd >= 0 && (drain || reads < S_READS_MAX); reads++) {
        ssize_t rc = read (stream->fd, scratch, S_SCRATCH_SIZE);
        if (rc == -1 && errno == EINTR)
            continue;
        if (rc == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (rc <= 0) {
            s_stream_close (stream);     //  end of file, or an error we can't read past
            break;
        }
        s_stream_keep (stream, scratch, (size_t) rc);
    }
    if (drain)
        s_stream_close (stream);        //  a grandchild may hold it open: not our wait
}


//  Destroy a command's record (its child reaped already)
static void
s_op_destroy (s_op_t **self_p)
{
    s_op_t *self = *self_p;
    if (!self)
        return;
    s_stream_close (&self->out);
    s_stream_close (&self->err);
    free (self->out.data);
    free (self->err.data);
    if (self->pidfd >= 0)
        close (self->pidfd);
    free (self->instance);
    free (self->type);
    free (self);
    *self_p = NULL;
}


//  --------------------------------------------------------------------------
//  Create the command driver

drover_poolcommand_t *
drover_poolcommand_new (const char *program, const char *pool, const char *broker,
                        const drover_pooltype_t *types, size_t ntypes,
                        uint32_t op_timeout, char **error_p)
{
    struct stat info;
    if (!program || !*program) {
        *error_p = strdup ("pool/command: the command driver needs an executable");
        return NULL;
    }
    if (stat (program, &info) || !S_ISREG (info.st_mode) || access (program, X_OK)) {
        *error_p = zsys_sprintf ("pool/command: '%s' is not an executable file", program);
        return NULL;
    }
    drover_poolcommand_t *self = (drover_poolcommand_t *) zmalloc (sizeof (drover_poolcommand_t));
    self->program = strdup (program);
    self->pool = strdup (pool);
    self->broker = strdup (broker);
    self->types = (drover_pooltype_t *) zmalloc ((ntypes + 1) * sizeof (drover_pooltype_t));
    for (size_t index = 0; index < ntypes; index++) {
        self->types [index] = types [index];
        self->types [index].labels = strdup (types [index].labels? types [index].labels: "");
        self->types [index].devices = strdup (types [index].devices? types [index].devices: "");
    }
    self->ntypes = ntypes;
    self->op_timeout = op_timeout;
    self->known = zhashx_new ();
    zhashx_set_destructor (self->known, (zhashx_destructor_fn *) zstr_free);
    self->ops = zlistx_new ();
    self->scratch = (char *) zmalloc (S_SCRATCH_SIZE);
    zsys_info ("pooldriver: driver=command command=%s op-timeout=%u", program, op_timeout);
    return self;
}


//  --------------------------------------------------------------------------
//  Destroy the driver: kill and reap every running command

void
drover_poolcommand_destroy (drover_poolcommand_t **self_p)
{
    assert (self_p);
    drover_poolcommand_t *self = *self_p;
    if (!self)
        return;
    s_op_t *op = (s_op_t *) zlistx_first (self->ops);
    while (op) {
        kill (-op->pid, SIGKILL);
        while (waitpid (op->pid, NULL, 0) == -1 && errno == EINTR)
            ;
        s_op_destroy (&op);
        op = (s_op_t *) zlistx_next (self->ops);
    }
    zlistx_destroy (&self->ops);
    zhashx_destroy (&self->known);
    for (size_t index = 0; index < self->ntypes; index++) {
        free (self->types [index].labels);
        free (self->types [index].devices);
    }
    free (self->types);
    free (self->polled);
    free (self->scratch);
    free (self->program);
    free (self->pool);
    free (self->broker);
    free (self);
    *self_p = NULL;
}


//  Find a type by name, or NULL
static const drover_pooltype_t *
s_type (drover_poolcommand_t *self, const char *name)
{
    for (size_t index = 0; name && index < self->ntypes; index++)
        if (streq (self->types [index].name, name))
            return &self->types [index];
    return NULL;
}


//  Add NAME=value to env (a zlistx of strings the list owns)
static void
s_setenv (zlistx_t *env, const char *name, const char *value)
{
    zlistx_add_end (env, zsys_sprintf ("%s=%s", name, value));
}


//  Build the environment of an operation: ours without the DROVER_ names
//  the protocol sets, then those. Returns a NULL-terminated array (caller
//  frees with s_env_free).
static char **
s_env_new (drover_poolcommand_t *self, const char *instance, const drover_pooltype_t *type,
           drover_idle_behaviour_t behaviour, bool typed)
{
    static const char *ours [] = {
        "DROVER_POOL=", "DROVER_BROKER=", "DROVER_POOL_TYPE=", "DROVER_POOL_PROCS=",
        "DROVER_POOL_MEMORY=", "DROVER_POOL_LABELS=", "DROVER_POOL_IDLE=",
        "DROVER_WORKER_ID=", NULL
    };
    zlistx_t *env = zlistx_new ();
    for (char **entry = environ; entry && *entry; entry++) {
        bool set_by_us = false;
        for (const char **name = ours; *name && !set_by_us; name++)
            set_by_us = strncmp (*entry, *name, strlen (*name)) == 0;
        if (!set_by_us)
            zlistx_add_end (env, strdup (*entry));
    }
    s_setenv (env, "DROVER_POOL", self->pool);
    s_setenv (env, "DROVER_BROKER", self->broker);
    if (typed) {
        if (type) {
            char number [32];
            s_setenv (env, "DROVER_POOL_TYPE", type->name);
            snprintf (number, sizeof number, "%u", type->procs);
            s_setenv (env, "DROVER_POOL_PROCS", number);
            snprintf (number, sizeof number, "%" PRIu64, type->mem);
            s_setenv (env, "DROVER_POOL_MEMORY", number);
            char *labels = strdup (type->labels? type->labels: "");
            for (char *c = labels; *c; c++)
                if (*c == '\n')
                    *c = ',';
            s_setenv (env, "DROVER_POOL_LABELS", labels);
            free (labels);
            s_setenv (env, "DROVER_POOL_DEVICES", type->devices? type->devices: "");
        }
        s_setenv (env, "DROVER_POOL_IDLE", drover_idle_behaviour_name (behaviour));
        s_setenv (env, "DROVER_WORKER_ID", instance);
    }
    char **array = (char **) zmalloc ((zlistx_size (env) + 1) * sizeof (char *));
    size_t count = 0;
    for (char *entry = (char *) zlistx_first (env); entry; entry = (char *) zlistx_next (env))
        array [count++] = entry;
    zlistx_destroy (&env);          //  the strings are the array's now
    return array;
}


//  Free an environment s_env_new made
static void
s_env_free (char ***env_p)
{
    for (char **entry = *env_p; *entry; entry++)
        free (*entry);
    free (*env_p);
    *env_p = NULL;
}


//  Start a child running argv with env: its own process group, stdin
//  /dev/null, stdout and stderr into op's pipes, a pidfd. Returns 0, or
//  -1 (errno set: ESRCH, it ended and was reaped already) with nothing
//  left open.
static int
s_spawn (drover_poolcommand_t *self, s_op_t *op, char *const argv [], char *const env [])
{
    int out [2] = { -1, -1 };
    int err [2] = { -1, -1 };
    if (pipe2 (out, O_CLOEXEC | O_NONBLOCK) || pipe2 (err, O_CLOEXEC | O_NONBLOCK)) {
        int saved = errno;
        for (int index = 0; index < 2; index++) {
            if (out [index] >= 0) close (out [index]);
            if (err [index] >= 0) close (err [index]);
        }
        errno = saved;
        return -1;
    }
    //  The write ends block, as a child expects; only our read ends must not
    fcntl (out [1], F_SETFL, fcntl (out [1], F_GETFL) & ~O_NONBLOCK);
    fcntl (err [1], F_SETFL, fcntl (err [1], F_GETFL) & ~O_NONBLOCK);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init (&actions);
    posix_spawn_file_actions_addopen (&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2 (&actions, out [1], 1);
    posix_spawn_file_actions_adddup2 (&actions, err [1], 2);
    posix_spawn_file_actions_addclosefrom_np (&actions, 3);
    posix_spawnattr_t attr;
    posix_spawnattr_init (&attr);
    sigset_t none, all;
    sigemptyset (&none);
    sigfillset (&all);
    posix_spawnattr_setsigmask (&attr, &none);
    posix_spawnattr_setsigdefault (&attr, &all);
    posix_spawnattr_setpgroup (&attr, 0);
    posix_spawnattr_setflags (&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK
                                   | POSIX_SPAWN_SETSIGDEF);
    pid_t pid;
    int rc = posix_spawn (&pid, self->program, &actions, &attr, argv, env);
    posix_spawn_file_actions_destroy (&actions);
    posix_spawnattr_destroy (&attr);
    close (out [1]);
    close (err [1]);
    if (rc) {
        close (out [0]);
        close (err [0]);
        errno = rc;
        return -1;
    }
    //  No pidfd: no descriptor left (the operation fails, the child is
    //  killed and reaped), or the child already ended and was reaped by
    //  the kernel (SIGCHLD ignored: ESRCH, its status unknown)
    int pidfd = (int) syscall (SYS_pidfd_open, pid, 0);
    if (pidfd < 0) {
        int saved = errno;
        kill (-pid, SIGKILL);
        waitpid (pid, NULL, 0);     //  at once: it was just killed (ECHILD if reaped)
        close (out [0]);
        close (err [0]);
        errno = saved;
        return -1;
    }
    op->pid = pid;
    op->pidfd = pidfd;
    op->out.fd = out [0];
    op->err.fd = err [0];
    return 0;
}


//  --------------------------------------------------------------------------
//  Start an operation as a child process

void
drover_poolcommand_start (drover_poolcommand_t *self, drover_poolaction_kind_t kind,
                          const char *instance, const drover_pooltype_t *type,
                          drover_idle_behaviour_t behaviour, zlistx_t *done)
{
    assert (self);
    assert (kind == DROVER_POOL_LIST || instance);
    s_op_t *op = (s_op_t *) zmalloc (sizeof (s_op_t));
    op->kind = kind;
    op->instance = instance? strdup (instance): NULL;
    op->pidfd = op->out.fd = op->err.fd = -1;
    op->out.max = S_OUT_MAX;
    op->err.max = S_ERR_MAX;
    op->err.tail = true;
    const char *argv [5] = { self->program, NULL, NULL, NULL, NULL };
    bool typed = false;
    if (kind == DROVER_POOL_CREATE) {
        assert (type);
        op->type = strdup (type->name);
        argv [1] = "create";
        argv [2] = type->name;
        argv [3] = instance;
        typed = true;
    }
    else
    if (kind == DROVER_POOL_TAG) {
        type = s_type (self, (const char *) zhashx_lookup (self->known, instance));
        argv [1] = "tag";
        argv [2] = instance;
        argv [3] = drover_idle_behaviour_name (behaviour);
        typed = true;
    }
    else
    if (kind == DROVER_POOL_DESTROY) {
        argv [1] = "destroy";
        argv [2] = instance;
    }
    else
    if (kind == DROVER_POOL_PROBE) {
        //  Its boot probe (pool/probe on): exit 0 passes, anything else fails
        type = s_type (self, (const char *) zhashx_lookup (self->known, instance));
        argv [1] = "probe";
        argv [2] = instance;
        typed = true;
    }
    else {
        assert (kind == DROVER_POOL_LIST);
        argv [1] = "list";
    }
    char **env = s_env_new (self, instance, type, behaviour, typed);
    int rc = s_spawn (self, op, (char *const *) argv, env);
    s_env_free (&env);
    if (rc) {
        char detail [256];
        if (errno == ESRCH)
            snprintf (detail, sizeof detail, "exit status unknown: reaped elsewhere "
                      "(SIGCHLD ignored?)");
        else
            snprintf (detail, sizeof detail, "cannot run %s: %s", self->program,
                      strerror (errno));
        zsys_warning ("pooldriver: op=%s instance=%s result=failed detail=\"%s\"", argv [1],
                      instance? instance: "-", detail);
        zlistx_add_end (done, drover_poolreport_new (kind, instance, DROVER_POOLOP_FAILED,
                                                     detail));
        s_op_destroy (&op);
        return;
    }
    op->deadline = (uint64_t) zclock_mono () + self->op_timeout;
    zsys_debug ("pooldriver: op=%s instance=%s pid=%d", argv [1], instance? instance: "-",
                (int) op->pid);
    zlistx_add_end (self->ops, op);
}


//  --------------------------------------------------------------------------
//  Return how many commands run

size_t
drover_poolcommand_running (drover_poolcommand_t *self)
{
    assert (self);
    return zlistx_size (self->ops);
}


//  --------------------------------------------------------------------------
//  Return how many items fill needs at most

size_t
drover_poolcommand_items (drover_poolcommand_t *self)
{
    assert (self);
    return 3 * zlistx_size (self->ops);
}


//  Add one item to fill, remembering what it watches
static void
s_polled_add (drover_poolcommand_t *self, zmq_pollitem_t *item, int fd, s_op_t *op, int what)
{
    if (self->npolled == self->polled_alloc) {
        self->polled_alloc = self->polled_alloc? self->polled_alloc * 2: 16;
        self->polled = (s_polled_t *) realloc (self->polled,
                                               self->polled_alloc * sizeof (s_polled_t));
        assert (self->polled);
    }
    self->polled [self->npolled].op = op;
    self->polled [self->npolled].what = what;
    self->npolled++;
    item->socket = NULL;
    item->fd = fd;
    item->events = ZMQ_POLLIN;
    item->revents = 0;
}


//  --------------------------------------------------------------------------
//  Fill items with each command's pipes and pidfd; returns how many

size_t
drover_poolcommand_fill (drover_poolcommand_t *self, zmq_pollitem_t *items, size_t max)
{
    assert (self);
    self->npolled = 0;
    s_op_t *op = (s_op_t *) zlistx_first (self->ops);
    for (; op; op = (s_op_t *) zlistx_next (self->ops)) {
        if (op->out.fd >= 0 && self->npolled < max)
            s_polled_add (self, &items [self->npolled], op->out.fd, op, 0);
        if (op->err.fd >= 0 && self->npolled < max)
            s_polled_add (self, &items [self->npolled], op->err.fd, op, 1);
        if (!op->exited && self->npolled < max)
            s_polled_add (self, &items [self->npolled], op->pidfd, op, 2);
    }
    return self->npolled;
}


//  Return an operation's name, as the command hears it
static const char *
s_op_name (drover_poolaction_kind_t kind)
{
    return kind == DROVER_POOL_CREATE? "create": kind == DROVER_POOL_DESTROY? "destroy":
           kind == DROVER_POOL_TAG? "tag": kind == DROVER_POOL_PROBE? "probe": "list";
}


//  Reap a command that exited and report what it came to
static void
s_finish (drover_poolcommand_t *self, s_op_t *op, zlistx_t *done)
{
    int status = 0;
    pid_t rc;
    while ((rc = waitpid (op->pid, &status, 0)) == -1 && errno == EINTR)
        ;
    //  Its pidfd said it exited, so this did not wait; ECHILD: reaped by
    //  someone else (SIGCHLD ignored in this process), its status unknown
    bool reaped = rc == op->pid;
    s_stream_read (&op->out, self->scratch, true);
    s_stream_read (&op->err, self->scratch, true);
    const char *name = s_op_name (op->kind);
    char detail [DROVER_POOLREPORT_DETAIL_MAX + 64];
    drover_poolreport_last_line (op->err.data? op->err.data: "", op->err.size,
                                 detail, sizeof detail);
    drover_poolop_result_t result = DROVER_POOLOP_FAILED;
    int code = reaped && WIFEXITED (status)? WEXITSTATUS (status): -1;
    if (op->timed_out)
        snprintf (detail + strlen (detail), sizeof detail - strlen (detail),
                  "%stimed out after %u ms", *detail? ": ": "", self->op_timeout);
    else
    if (code == 0)
        result = DROVER_POOLOP_OK;
    else
    if (code == DROVER_POOLDRIVER_EXIT_QUOTA)
        result = DROVER_POOLOP_QUOTA;
    else
    if (code == DROVER_POOLDRIVER_EXIT_RATE)
        result = DROVER_POOLOP_RATE_LIMITED;
    if (!op->timed_out && code != 0 && !*detail) {
        if (!reaped)
            snprintf (detail, sizeof detail, "exit status unknown: reaped elsewhere "
                      "(SIGCHLD ignored?)");
        else
        if (WIFSIGNALED (status))
            snprintf (detail, sizeof detail, "killed by signal %d", WTERMSIG (status));
        else
            snprintf (detail, sizeof detail, "exit status %d", code);
    }
    if (result == DROVER_POOLOP_OK && op->kind == DROVER_POOL_LIST && op->out.truncated) {
        result = DROVER_POOLOP_FAILED;
        snprintf (detail, sizeof detail, "list printed more than %d bytes",
                  S_OUT_MAX);
    }
    drover_poolreport_t *report = drover_poolreport_new (op->kind, op->instance, result,
                                                         result == DROVER_POOLOP_OK? "": detail);
    if (result == DROVER_POOLOP_OK) {
        if (op->kind == DROVER_POOL_CREATE)
            zhashx_update (self->known, op->instance, strdup (op->type));
        else
        if (op->kind == DROVER_POOL_DESTROY)
            zhashx_delete (self->known, op->instance);
        else
        if (op->kind == DROVER_POOL_LIST) {
            drover_poolreport_parse (report, op->out.data? op->out.data: "", op->out.size);
            //  What the list says is what we know: forget the rest
            zhashx_purge (self->known);
            const drover_pooldone_t *listed = drover_poolreport_done (report);
            for (size_t index = 0; index < listed->nentries; index++)
                zhashx_update (self->known, listed->entries [index].name,
                               strdup (listed->entries [index].type));
        }
        zsys_debug ("pooldriver: op=%s instance=%s result=ok", name,
                    op->instance? op->instance: "-");
    }
    else
        zsys_warning ("pooldriver: op=%s instance=%s result=%s detail=\"%s\"", name,
                      op->instance? op->instance: "-",
                      result == DROVER_POOLOP_QUOTA? "quota":
                      result == DROVER_POOLOP_RATE_LIMITED? "rate-limited": "failed", detail);
    zlistx_add_end (done, report);
}


//  --------------------------------------------------------------------------
//  Read the filled items, reap commands that exited, kill those past
//  op-timeout; append a report for each finished one

void
drover_poolcommand_process (drover_poolcommand_t *self, zmq_pollitem_t *items, size_t count,
                            uint64_t now, zlistx_t *done)
{
    assert (self);
    if (count > self->npolled)
        count = self->npolled;
    for (size_t index = 0; items && index < count; index++) {
        if (!(items [index].revents & (ZMQ_POLLIN | ZMQ_POLLERR)))
            continue;
        s_op_t *op = self->polled [index].op;
        if (self->polled [index].what == 0)
            s_stream_read (&op->out, self->scratch, false);
        else
        if (self->polled [index].what == 1)
            s_stream_read (&op->err, self->scratch, false);
        else
            op->exited = true;
    }
    self->npolled = 0;              //  the items are spent
    s_op_t *op = (s_op_t *) zlistx_first (self->ops);
    while (op) {
        if (op->exited) {
            zlistx_detach_cur (self->ops);
            s_finish (self, op, done);
            s_op_destroy (&op);
        }
        else
        if (!op->timed_out && now >= op->deadline) {
            //  The child is not reaped yet: its group id is still its own
            kill (-op->pid, SIGKILL);
            op->timed_out = true;
            zsys_warning ("pooldriver: op=%s instance=%s pid=%d killed: past op-timeout=%u",
                          s_op_name (op->kind),
                          op->instance? op->instance: "-", (int) op->pid, self->op_timeout);
        }
        op = (s_op_t *) zlistx_next (self->ops);
    }
}


//  --------------------------------------------------------------------------
//  Return the next op-timeout, UINT64_MAX if none

uint64_t
drover_poolcommand_next_deadline (drover_poolcommand_t *self)
{
    assert (self);
    uint64_t next = UINT64_MAX;
    s_op_t *op = (s_op_t *) zlistx_first (self->ops);
    for (; op; op = (s_op_t *) zlistx_next (self->ops))
        if (!op->timed_out && op->deadline < next)
            next = op->deadline;
    return next;
}
