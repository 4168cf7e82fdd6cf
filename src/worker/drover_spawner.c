/*  =========================================================================
    drover_spawner - starts a task's process without copying the worker

    Each child is started with clone (CLONE_VM | CLONE_VFORK | CLONE_PIDFD;
    clone3 with CLONE_INTO_CGROUP when it has a cgroup) on a stack the
    spawner maps once: the child shares the parent's memory instead of
    copying its page tables (fork from a big multi-threaded worker costs
    more the bigger it is), and the calling thread waits until the child
    has exec'd or exited. Between clone and exec the child does only
    async-signal-safe calls, on signals the parent blocked before the
    clone: PR_SET_PDEATHSIG, reset signals, setpgid, dup2 its stdin/stdout/
    stderr, mark every other fd close-on-exec, become the tasks' user if
    they have one of their own (drover_taskenv), chdir, exec (looking the
    command up in the task's own PATH, as execvpe does in the worker's). If a step
    fails it writes (stage, errno) into the parent's memory and exits, so
    an exec that fails is reported as SPAWN_FAILED with its reason, at no
    cost to one that succeeds.

    The child's environment is not the worker's: drover_taskenv builds it
    (a documented base, the variables an allow-list names, the task's own,
    then DROVER_TASK_ID, DROVER_ATTEMPT and DROVER_WORKER: who it is).

    What the spawner hands back (drover_spawned_t) is what the runner then
    watches the attempt by: the pid, a pidfd, and the read ends of the
    stdout and stderr pipes.
    =========================================================================
*/

#ifndef _GNU_SOURCE
#   define _GNU_SOURCE         //  pipe2, memfd_create
#endif
#include "drover_spawner.h"
#include "drover_taskenv.h"
#include <sys/prctl.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <pthread.h>
#include <sched.h>
#include <limits.h>
#if defined (__SANITIZE_ADDRESS__)
#   include <sanitizer/asan_interface.h>
#endif

extern char **environ;

#define S_STACK_SIZE    (256 * 1024)    //  stack a child runs on until exec

//  Where the child's setup failed, as it tells the parent
typedef enum {
    S_STAGE_CHDIR  = 1,
    S_STAGE_EXEC   = 2,
    S_STAGE_CGROUP = 3,
    S_STAGE_WORKDIR = 4,
    S_STAGE_USER   = 5
} s_stage_t;

//  What the child needs between clone and exec, and where it says why it
//  could not exec; lives on the parent's stack, which the child shares
typedef struct {
    pid_t parent;                   //  the worker's pid, to see it still lives
    int in_fd;                      //  becomes stdin
    int out_fd;                     //  becomes stdout
    int err_fd;                     //  becomes stderr
    int cgroup_fd;                  //  the task's cgroup directory to move into, or -1
    int join_fd;                    //  a v1 memory cgroup's cgroup.procs to join, or -1
    int guard_fd;                   //  where to announce our process group, or -1
    bool announced;                 //  the supervisor got our process group
    const char *workdir;            //  the worker's work directory, NULL = same as ours
    const char *cwd;                //  directory to run in, NULL or "" = same
    char **argv;                    //  argv, borrowed
    char **envp;                    //  environment, borrowed
    const char *path;               //  PATH of envp, where argv [0] is looked up, or NULL
    char **script_argv;             //  "/bin/sh", (the file), argv [1..]: a file without #!
    drover_taskenv_id_t user;       //  the user to become before exec
    sigset_t defaults;              //  signals set back to SIG_DFL even if ignored
    int stage;                      //  s_stage_t where setup failed, 0 = none
    int error;                      //  errno of that failure
} s_child_t;

struct _drover_spawner_t {
    byte *stack;                    //  mapped stack for children (guard page first), or NULL
    size_t stack_size;              //  bytes mapped at stack, guard page included
    sigset_t defaults;              //  signals a child sets back to SIG_DFL even if ignored
    bool no_clone3;                 //  clone3 into a cgroup failed: the child moves itself
    char *workdir;                  //  where tasks start before their own cwd, or NULL, owned
    drover_taskenv_t *taskenv;      //  what tasks see (user, environment), borrowed or own_taskenv
    drover_taskenv_t *own_taskenv;  //  the default (the agent's user, the base), owned, or NULL
    int null_fd;                    //  /dev/null (close-on-exec, above stdio), the stdin of
                                    //  tasks without input, opened once; -1 until then
};


//  --------------------------------------------------------------------------
//  Create a spawner; it maps the children's stack at the first start

drover_spawner_t *
drover_spawner_new (void)
{
    drover_spawner_t *self = (drover_spawner_t *) zmalloc (sizeof (drover_spawner_t));
    self->null_fd = -1;
    //  Signals the worker may ignore that a task must find at default
    static const int reset [] = { SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD,
                                  SIGUSR1, SIGUSR2, SIGALRM, SIGTSTP, SIGTTIN, SIGTTOU };
    sigemptyset (&self->defaults);
    for (size_t index = 0; index < sizeof reset / sizeof reset [0]; index++)
        sigaddset (&self->defaults, reset [index]);
    return self;
}


//  --------------------------------------------------------------------------
//  Destroy a spawner: unmap the children's stack; harmless on NULL

void
drover_spawner_destroy (drover_spawner_t **self_p)
{
    assert (self_p);
    drover_spawner_t *self = *self_p;
    if (!self)
        return;
    free (self->workdir);
    if (self->null_fd >= 0)
        close (self->null_fd);
    drover_taskenv_destroy (&self->own_taskenv);
    if (self->stack)
        munmap (self->stack, self->stack_size);
    free (self);
    *self_p = NULL;
}


//  --------------------------------------------------------------------------
//  Set the directory children start in before their own cwd (NULL: ours)

void
drover_spawner_set_workdir (drover_spawner_t *self, const char *workdir)
{
    assert (self);
    free (self->workdir);
    self->workdir = workdir? strdup (workdir): NULL;
}


//  --------------------------------------------------------------------------
//  Set what children see of the worker (their user, their environment);
//  borrowed, it must outlive the spawner. NULL: the default taskenv.

void
drover_spawner_set_taskenv (drover_spawner_t *self, drover_taskenv_t *taskenv)
{
    assert (self);
    self->taskenv = taskenv;
}


//  Close a descriptor if open and mark it closed
static void
s_close (int *fd_p)
{
    if (*fd_p >= 0)
        close (*fd_p);
    *fd_p = -1;
}

//  Return an fd numbered 3 or above (close-on-exec), so dup2 onto 0..2 in
//  the child always makes a fresh inheritable copy; -1 on failure
static int
s_above_stdio (int fd)
{
    if (fd < 0 || fd > 2)
        return fd;
    int moved = fcntl (fd, F_DUPFD_CLOEXEC, 3);
    close (fd);
    return moved;
}

//  Return what children see: the taskenv set, or the spawner's own default
static drover_taskenv_t *
s_taskenv (drover_spawner_t *self)
{
    if (self->taskenv)
        return self->taskenv;
    if (!self->own_taskenv)
        self->own_taskenv = drover_taskenv_new ();
    return self->own_taskenv;
}

//  Open the child's stdin if the task has input: a memfd holding the input
//  bytes (writing to it never blocks on a reader). Returns the fd, -1 on
//  failure, or -2 without input (the child reads the spawner's /dev/null).
static int
s_stdin_open (const drover_exec_t *exec)
{
    if (!exec->input || exec->input_size == 0)
        return -2;
    int fd = memfd_create ("drover-stdin", MFD_CLOEXEC);
    if (fd == -1)
        return -1;
    size_t done = 0;
    while (done < exec->input_size) {
        ssize_t wrote = write (fd, exec->input + done, exec->input_size - done);
        if (wrote == -1 && errno == EINTR)
            continue;
        if (wrote <= 0) {
            close (fd);
            return -1;
        }
        done += (size_t) wrote;
    }
    if (lseek (fd, 0, SEEK_SET) == -1) {
        close (fd);
        return -1;
    }
    return fd;
}

//  Return the spawner's /dev/null, opened at the first call (above stdio);
//  -1 if it cannot be opened
static int
s_null_fd (drover_spawner_t *self)
{
    if (self->null_fd == -1)
        self->null_fd = s_above_stdio (open ("/dev/null", O_RDONLY | O_CLOEXEC));
    return self->null_fd;
}

//  Code that runs in the child, on the spawner's own stack in memory it
//  shares with the parent: no sanitizer instrumentation (it would poison
//  shadow for frames that never return), and no function that is not
//  async-signal-safe
#if defined (__GNUC__) || defined (__clang__)
#   define S_CHILD_SIDE __attribute__ ((noinline, no_sanitize ("address", "undefined")))
#else
#   define S_CHILD_SIDE
#endif

//  Note which setup step failed where the parent reads it, then exit
S_CHILD_SIDE static void
s_child_fail (s_child_t *child, int stage, int error)
{
    child->stage = stage;
    child->error = error;
    _exit (127);
}

//  Exec file; one the kernel cannot run (no #!) runs under /bin/sh, as
//  execvp's do. Returns only on failure, with errno set.
S_CHILD_SIDE static void
s_child_execve (s_child_t *child, char *file)
{
    execve (file, child->argv, child->envp);
    if (errno == ENOEXEC) {
        child->script_argv [1] = file;
        execve ("/bin/sh", child->script_argv, child->envp);
        errno = ENOEXEC;
    }
}

//  Exec the task's command as execvpe would, but looking a name without a
//  slash up in the task's own PATH (child->path; the C library's would
//  read the worker's): each directory in turn, an empty one meaning the
//  current directory; on failure, the first EACCES met, else ENOENT. Byte
//  loops instead of string calls: nothing here may be intercepted.
S_CHILD_SIDE static void
s_child_exec (s_child_t *child)
{
    char *file = child->argv [0];
    size_t file_size = 0;
    bool slash = false;
    for (; file [file_size]; file_size++)
        slash = slash || file [file_size] == '/';
    if (slash) {
        s_child_execve (child, file);
        s_child_fail (child, S_STAGE_EXEC, errno);
    }
    char candidate [PATH_MAX];
    bool denied = false;
    const char *dir = child->path? child->path: "/bin:/usr/bin";
    while (true) {
        const char *end = dir;
        while (*end && *end != ':')
            end++;
        size_t dir_size = (size_t) (end - dir);
        if (dir_size + 1 + file_size < sizeof candidate) {
            size_t at = 0;
            for (size_t index = 0; index < dir_size; index++)
                candidate [at++] = dir [index];
            if (dir_size)
                candidate [at++] = '/';
            for (size_t index = 0; index < file_size; index++)
                candidate [at++] = file [index];
            candidate [at] = 0;
            s_child_execve (child, candidate);
            if (errno == EACCES)
                denied = true;
            else
            if (errno != ENOENT && errno != ENOTDIR && errno != ESTALE && errno != ENODEV
            &&  errno != ETIMEDOUT)
                s_child_fail (child, S_STAGE_EXEC, errno);
        }
        if (!*end)
            break;
        dir = end + 1;
    }
    s_child_fail (child, S_STAGE_EXEC, denied? EACCES: ENOENT);
}

//  The child between clone and exec, sharing the parent's memory while the
//  parent's thread waits (CLONE_VFORK): async-signal-safe calls only, no
//  allocation, nothing written but the child's stack and child->stage/error
S_CHILD_SIDE static int
s_child (void *arg)
{
    s_child_t *child = (s_child_t *) arg;
    //  A task must not outlive a worker killed outright: the broker reruns
    //  it elsewhere, and an orphan would run twice and hold the machine
    prctl (PR_SET_PDEATHSIG, SIGKILL);
    if (getppid () != child->parent)
        _exit (127);            //  the worker died before prctl took effect

    //  Every signal is blocked (the parent blocked them all before clone),
    //  so no handler of the parent's can run here on shared memory. Handled
    //  signals go back to default before the mask opens, and so do the
    //  ones the worker ignores or blocks: they must not leak into tasks
    for (int signum = 1; signum < _NSIG; signum++) {
        if (signum == SIGKILL || signum == SIGSTOP)
            continue;
        struct sigaction action;
        if (sigaction (signum, NULL, &action) == -1)
            continue;           //  reserved by the C library
        if (action.sa_handler == SIG_DFL
        || (action.sa_handler == SIG_IGN && !sigismember (&child->defaults, signum)))
            continue;
        action.sa_handler = SIG_DFL;
        action.sa_flags = 0;
        sigemptyset (&action.sa_mask);
        sigaction (signum, &action, NULL);
    }
    sigset_t none;
    sigemptyset (&none);
    sigprocmask (SIG_SETMASK, &none, NULL);

    setpgid (0, 0);
    //  Without a cgroup, the supervisor learns our group before the task
    //  runs: a worker killed right after the clone still takes it along
    if (child->guard_fd >= 0 && drover_confine_announce (child->guard_fd) == 0)
        child->announced = true;
    //  Into the task's own cgroup before exec, if clone3 did not start us
    //  there: nothing the task starts can leave it
    if (child->cgroup_fd >= 0) {
        int procs = openat (child->cgroup_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
        if (procs == -1 || write (procs, "0", 1) != 1)
            s_child_fail (child, S_STAGE_CGROUP, errno);
        close (procs);
    }
    //  Into its v1 memory cgroup (drover_memlimit), which every process
    //  it starts inherits, while it still has the rights to
    if (child->join_fd >= 0 && write (child->join_fd, "0", 1) != 1)
        s_child_fail (child, S_STAGE_CGROUP, errno);
    if (dup2 (child->in_fd, 0) == -1 || dup2 (child->out_fd, 1) == -1
    ||  dup2 (child->err_fd, 2) == -1)
        s_child_fail (child, S_STAGE_EXEC, errno);
    //  Whatever else is open (other tasks' pipes, sockets) stays behind
    syscall (SYS_close_range, 3U, ~0U, 4U /* CLOSE_RANGE_CLOEXEC */);
    //  The tasks' own user, if they have one: then the directories are
    //  entered with its rights. Changing ids clears the parent-death
    //  signal: set it again, and see the worker still lives
    if (child->user.change) {
        int error = drover_taskenv_become (&child->user);
        if (error)
            s_child_fail (child, S_STAGE_USER, error);
        prctl (PR_SET_PDEATHSIG, SIGKILL);
        if (getppid () != child->parent)
            _exit (127);
    }
    if (child->workdir && chdir (child->workdir) == -1)
        s_child_fail (child, S_STAGE_WORKDIR, errno);
    if (child->cwd && *child->cwd && chdir (child->cwd) == -1)
        s_child_fail (child, S_STAGE_CHDIR, errno);
    s_child_exec (child);
    return 127;
}

//  clone3 (Linux 5.3) with CLONE_INTO_CGROUP (5.7) starts the child in its
//  task's cgroup. Moving it there afterwards (writing cgroup.procs) takes
//  the kernel's cgroup lock for writing, which waits for an RCU grace
//  period unless another move just did: 0.4 to 2 ms per task measured on
//  the development machine, as much as 20% of a `true` task. The C
//  library has no clone3 wrapper that runs a function on a new stack, so
//  s_clone3_run does, as glibc's clone does: it calls fn (arg) in the
//  child on the stack clone_args names and exits with its return; in the
//  parent it returns the pid, or -errno.
typedef struct {
    uint64_t flags;                 //  CLONE_*
    uint64_t pidfd;                 //  where the kernel stores the pidfd (int *)
    uint64_t child_tid;             //  unused
    uint64_t parent_tid;            //  unused
    uint64_t exit_signal;           //  SIGCHLD
    uint64_t stack;                 //  lowest address of the child's stack
    uint64_t stack_size;            //  its size in bytes
    uint64_t tls;                   //  unused
    uint64_t set_tid;               //  unused
    uint64_t set_tid_size;          //  unused
    uint64_t cgroup;                //  fd of the cgroup directory to start in
} s_clone_args_t;

#define S_CLONE_INTO_CGROUP     0x200000000ULL

#if defined (__x86_64__) || defined (__aarch64__)
#   define S_HAVE_CLONE3_RUN    1
__attribute__ ((visibility ("hidden")))
long s_clone3_run (s_clone_args_t *args, size_t size, int (*fn) (void *), void *arg);
#   if defined (__x86_64__)
__asm__ (
    ".text\n"
    ".p2align 4\n"
    ".type s_clone3_run, @function\n"
    "s_clone3_run:\n"
    "    mov %rdx, %r8\n"              //  fn and arg survive the syscall in r8, r9
    "    mov %rcx, %r9\n"
    "    mov $435, %eax\n"             //  __NR_clone3
    "    syscall\n"
    "    test %rax, %rax\n"
    "    jnz 1f\n"
    "    xor %ebp, %ebp\n"             //  the child, on its own stack (16-byte aligned)
    "    mov %r9, %rdi\n"
    "    call *%r8\n"
    "    mov %eax, %edi\n"
    "    mov $60, %eax\n"              //  __NR_exit
    "    syscall\n"
    "    hlt\n"
    "1:  ret\n"
    ".size s_clone3_run, .-s_clone3_run\n");
#   else
__asm__ (
    ".text\n"
    ".p2align 4\n"
    ".type s_clone3_run, %function\n"
    "s_clone3_run:\n"
    "    mov x4, x2\n"                 //  fn and arg survive the syscall in x4, x5
    "    mov x5, x3\n"
    "    mov x8, #435\n"               //  __NR_clone3
    "    svc #0\n"
    "    cbnz x0, 1f\n"
    "    mov x29, xzr\n"               //  the child, on its own stack
    "    mov x0, x5\n"
    "    blr x4\n"
    "    mov x8, #93\n"                //  __NR_exit
    "    svc #0\n"
    "1:  ret\n"
    ".size s_clone3_run, .-s_clone3_run\n");
#   endif
#else
#   define S_HAVE_CLONE3_RUN    0
#endif

//  Map the stack children start on, once per spawner: S_STACK_SIZE bytes
//  above a guard page. Returns its top, or NULL.
static byte *
s_stack_top (drover_spawner_t *self)
{
    if (!self->stack) {
        size_t page = (size_t) sysconf (_SC_PAGESIZE);
        void *stack = mmap (NULL, S_STACK_SIZE + page, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
        if (stack == MAP_FAILED)
            return NULL;
        if (mprotect (stack, page, PROT_NONE) == -1) {
            munmap (stack, S_STACK_SIZE + page);
            return NULL;
        }
#if defined (__SANITIZE_ADDRESS__)
        ASAN_UNPOISON_MEMORY_REGION ((byte *) stack + page, S_STACK_SIZE);
#endif
        self->stack = (byte *) stack;
        self->stack_size = S_STACK_SIZE + page;
    }
    return self->stack + self->stack_size;
}

//  Return true if an errno says the machine ran out of something (file
//  descriptors, processes, memory, disk), not that the task asked for
//  something wrong
static bool
s_machine_error (int error)
{
    return error == ENOSPC || error == EMFILE || error == ENFILE || error == EAGAIN
        || error == ENOMEM || error == EDQUOT;
}


//  --------------------------------------------------------------------------
//  Return true if exec names a command to run (a task without one is at
//  fault, and no child is started for it)

bool
drover_spawner_runnable (const drover_exec_t *exec)
{
    assert (exec);
    return exec->argc >= 1 && exec->argv && exec->argv [0] && *exec->argv [0];
}


//  --------------------------------------------------------------------------
//  Start a child running exec, without copying the address space: clone
//  with CLONE_VM | CLONE_VFORK (this thread waits until the child execs or
//  exits) and CLONE_PIDFD, confined by confine. Returns 0 with spawned
//  filled, or -1 with reason filled (nothing left open) and *machine_p
//  saying whether the machine is at fault (s_machine_error).

int
drover_spawner_start (drover_spawner_t *self, const drover_exec_t *exec,
                      const drover_taskenv_who_t *who, drover_confine_t *confine,
                      drover_memlimit_t *memlimit, uint64_t mem, drover_spawned_t *spawned,
                      char *reason, size_t reason_size, bool *machine_p)
{
    assert (self);
    assert (confine);
    assert (drover_spawner_runnable (exec));
    *machine_p = true;          //  until the task's own part fails
    int out_pipe [2] = { -1, -1 };
    int err_pipe [2] = { -1, -1 };
    int in_fd = s_stdin_open (exec);
    if (in_fd == -1 || s_null_fd (self) == -1
    ||  pipe2 (out_pipe, O_CLOEXEC) == -1
    ||  pipe2 (err_pipe, O_CLOEXEC) == -1) {
        snprintf (reason, reason_size, "pipes: %s", strerror (errno));
        goto failed;
    }
    in_fd = in_fd == -2? -2: s_above_stdio (in_fd);
    out_pipe [1] = s_above_stdio (out_pipe [1]);
    err_pipe [1] = s_above_stdio (err_pipe [1]);
    if (in_fd == -1 || out_pipe [1] == -1 || err_pipe [1] == -1) {
        snprintf (reason, reason_size, "fds: %s", strerror (errno));
        goto failed;
    }
    //  A task of another user may open its stdio by name (/dev/stderr),
    //  which checks the file's owner: the pipes and the input's memfd
    //  (never /dev/null) become that user's
    drover_taskenv_t *taskenv = s_taskenv (self);
    drover_taskenv_id_t user;
    drover_taskenv_identity (taskenv, &user);
    if (user.change
    && (fchown (out_pipe [1], user.uid, user.gid) == -1
    ||  fchown (err_pipe [1], user.uid, user.gid) == -1
    || (exec->input && exec->input_size > 0 && fchown (in_fd, user.uid, user.gid) == -1))) {
        snprintf (reason, reason_size, "stdio for user %s: %s", drover_taskenv_user (taskenv),
                  strerror (errno));
        goto failed;
    }
    byte *stack_top = s_stack_top (self);
    if (!stack_top) {
        snprintf (reason, reason_size, "child stack: %s", strerror (errno));
        goto failed;
    }
    uint32_t group = 0;
    int cgroup_fd = drover_confine_prepare (confine, &group);
    if (cgroup_fd == -2) {
        snprintf (reason, reason_size, "cgroup: %s", strerror (errno));
        goto failed;
    }
    uint32_t limit = 0;
    int join_fd = -1;
    if (memlimit
    &&  drover_memlimit_prepare (memlimit, mem, cgroup_fd, &limit, &join_fd) == -1) {
        snprintf (reason, reason_size, "memory limit: %s", strerror (errno));
        drover_confine_taint (confine, group);
        drover_confine_release (confine, group, 0);
        goto failed;
    }
    //  A v2 limit is written into the task's cgroup: not one to reuse
    if (limit && cgroup_fd >= 0 && drover_memlimit_controller (memlimit) == DROVER_MEMLIMIT_V2)
        drover_confine_taint (confine, group);
    s_child_t child;
    memset (&child, 0, sizeof child);
    child.cgroup_fd = -1;
    child.join_fd = join_fd;
    child.guard_fd = drover_confine_guard_fd (confine, group);
    child.parent = getpid ();
    child.in_fd = in_fd >= 0? in_fd: self->null_fd;
    child.out_fd = out_pipe [1];
    child.err_fd = err_pipe [1];
    child.workdir = self->workdir;
    child.cwd = exec->cwd;
    child.argv = exec->argv;
    child.envp = drover_taskenv_build (taskenv, environ, exec, who);
    for (size_t index = 0; child.envp [index]; index++)
        if (strncmp (child.envp [index], "PATH=", 5) == 0)
            child.path = child.envp [index] + 5;
    child.script_argv = (char **) zmalloc ((exec->argc + 2) * sizeof (char *));
    child.script_argv [0] = "/bin/sh";
    for (uint32_t index = 1; index < exec->argc; index++)
        child.script_argv [index + 1] = exec->argv [index];
    child.user = user;
    child.defaults = self->defaults;

    //  No signal handler may run in the child before it resets them
    sigset_t all, previous;
    sigfillset (&all);
    pthread_sigmask (SIG_SETMASK, &all, &previous);
    int pidfd = -1;
    pid_t pid = -1;
    int clone_error = 0;
    bool cloned = false;
#if S_HAVE_CLONE3_RUN
    if (cgroup_fd >= 0 && !self->no_clone3) {
        s_clone_args_t args;
        memset (&args, 0, sizeof args);
        args.flags = CLONE_VM | CLONE_VFORK | CLONE_PIDFD | S_CLONE_INTO_CGROUP;
        args.pidfd = (uint64_t) (uintptr_t) &pidfd;
        args.exit_signal = SIGCHLD;
        args.stack = (uint64_t) (uintptr_t) (stack_top - S_STACK_SIZE);
        args.stack_size = S_STACK_SIZE;
        args.cgroup = (uint64_t) cgroup_fd;
        long rc = s_clone3_run (&args, sizeof args, s_child, &child);
        if (rc == -ENOSYS || rc == -E2BIG || rc == -EINVAL)
            self->no_clone3 = true;     //  an older kernel: the child moves itself
        else {
            cloned = true;
            pid = rc < 0? -1: (pid_t) rc;
            clone_error = rc < 0? (int) -rc: 0;
        }
    }
#endif
    if (!cloned) {
        child.cgroup_fd = cgroup_fd;
        pid = clone (s_child, stack_top, CLONE_VM | CLONE_VFORK | CLONE_PIDFD | SIGCHLD,
                     &child, &pidfd);
        clone_error = errno;
    }
    pthread_sigmask (SIG_SETMASK, &previous, NULL);
    free (child.envp);
    free (child.script_argv);
    s_close (&join_fd);             //  (cgroup_fd is the confinement's)
    if (pid == -1) {
        if (memlimit)
            drover_memlimit_release (memlimit, limit);
        drover_confine_release (confine, group, 0);
        snprintf (reason, reason_size, "clone: %s", strerror (clone_error));
        goto failed;
    }
    s_close (&in_fd);
    s_close (&out_pipe [1]);
    s_close (&err_pipe [1]);
    if (child.stage || pidfd == -1) {
        //  The child exited before exec: reap it
        //  What the task asked for (its command, its cwd) is its own
        //  failure, unless the machine ran out of something on the way
        if (child.stage == S_STAGE_CHDIR || child.stage == S_STAGE_EXEC)
            *machine_p = s_machine_error (child.error);
        if (child.stage == S_STAGE_CHDIR)
            snprintf (reason, reason_size, "chdir %s: %s", exec->cwd, strerror (child.error));
        else
        if (child.stage == S_STAGE_WORKDIR)
            snprintf (reason, reason_size, "work directory %s: %s", self->workdir,
                      strerror (child.error));
        else
        if (child.stage == S_STAGE_CGROUP)
            snprintf (reason, reason_size, "cgroup: %s", strerror (child.error));
        else
        if (child.stage == S_STAGE_USER)
            snprintf (reason, reason_size, "becoming user %s: %s",
                      drover_taskenv_user (s_taskenv (self)), strerror (child.error));
        else
        if (child.stage)
            snprintf (reason, reason_size, "exec %s: %s", exec->argv [0], strerror (child.error));
        else
            snprintf (reason, reason_size, "clone gave no pidfd");
        kill (-pid, SIGKILL);
        kill (pid, SIGKILL);
        while (waitpid (pid, NULL, 0) == -1 && errno == EINTR)
            ;
        if (memlimit)
            drover_memlimit_release (memlimit, limit);
        drover_confine_release (confine, group, child.announced? pid: 0);
        s_close (&pidfd);
        goto failed;
    }
    drover_confine_started (confine, group, pid, child.announced);
    fcntl (out_pipe [0], F_SETFL, O_NONBLOCK);
    fcntl (err_pipe [0], F_SETFL, O_NONBLOCK);
    spawned->pid = pid;
    spawned->pidfd = pidfd;
    spawned->out_fd = out_pipe [0];
    spawned->err_fd = err_pipe [0];
    spawned->group = group;
    spawned->limit = limit;
    return 0;

failed:
    s_close (&in_fd);
    for (int end = 0; end < 2; end++) {
        s_close (&out_pipe [end]);
        s_close (&err_pipe [end]);
    }
    return -1;
}
