/*  =========================================================================
    drover_runner - runs task attempts as child processes

    Each attempt is a child in its own process group and, where the machine
    allows, its own cgroup (drover_confine), started with clone
    (CLONE_VM | CLONE_VFORK | CLONE_PIDFD; clone3 with CLONE_INTO_CGROUP
    when it has a cgroup) on a stack the runner maps once:
    the child shares the parent's memory instead of copying its page
    tables (fork from a big multi-threaded worker costs more the bigger it
    is), and the calling thread waits until the child has exec'd or exited.
    Between clone and exec the child does only async-signal-safe calls, on
    signals the parent blocked before the clone: PR_SET_PDEATHSIG, reset
    signals, setpgid, dup2 its stdin/stdout/stderr, mark every other fd
    close-on-exec, chdir, execvpe. If a step fails it writes (stage, errno)
    into the parent's memory and exits, so an exec that fails is reported
    as SPAWN_FAILED with its reason, at no cost to one that succeeds.

    The parent keeps, per attempt: the pid and a pidfd (readable once the
    child exits), two non-blocking pipes for stdout and stderr with their
    bounded buffers, and its deadlines (the timeout, then the SIGKILL after
    the grace). When the child exits, its process group gets SIGKILL while
    the zombie still holds the group id (so it cannot have been reused),
    the child is reaped, the pipes are drained of what is left, and a TASK
    RESULT message is queued for the caller.
    =========================================================================
*/

#ifndef _GNU_SOURCE
#   define _GNU_SOURCE         //  execvpe, pipe2, memfd_create
#endif
#include "drover_runner.h"
#include "drover_confine.h"
#include <sys/prctl.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#if defined (__SANITIZE_ADDRESS__)
#   include <sanitizer/asan_interface.h>
#endif

extern char **environ;

#define S_DISCARD_SIZE  65536       //  scratch for output past the bound
#define S_READS_MAX     16          //  reads of one pipe per readiness
#define S_STACK_SIZE    (256 * 1024)    //  stack a child runs on until exec

//  What each poll item filled by the runner watches
typedef enum {
    S_ITEM_OUT = 0,                 //  stdout pipe
    S_ITEM_ERR = 1,                 //  stderr pipe
    S_ITEM_PID = 2                  //  pidfd: readable once the child exits
} s_item_kind_t;

//  Where the child's setup failed, as it tells the parent
typedef enum {
    S_STAGE_CHDIR  = 1,
    S_STAGE_EXEC   = 2,
    S_STAGE_CGROUP = 3,
    S_STAGE_WORKDIR = 4
} s_stage_t;

//  What the child needs between clone and exec, and where it says why it
//  could not exec; lives on the parent's stack, which the child shares
typedef struct {
    pid_t parent;                   //  the worker's pid, to see it still lives
    int in_fd;                      //  becomes stdin
    int out_fd;                     //  becomes stdout
    int err_fd;                     //  becomes stderr
    int cgroup_fd;                  //  the task's cgroup directory to move into, or -1
    const char *workdir;            //  the worker's work directory, NULL = same as ours
    const char *cwd;                //  directory to run in, NULL or "" = same
    char **argv;                    //  argv, borrowed
    char **envp;                    //  environment, borrowed
    sigset_t defaults;              //  signals set back to SIG_DFL even if ignored
    int stage;                      //  s_stage_t where setup failed, 0 = none
    int error;                      //  errno of that failure
} s_child_t;

//  One captured stream, bounded at DROVER_OUTPUT_MAX
typedef struct {
    int fd;                         //  read end of the pipe, -1 once closed
    byte *data;                     //  bytes kept, owned
    size_t size;                    //  bytes kept
    size_t alloc;                   //  bytes allocated in data
    bool truncated;                 //  some bytes were read and discarded
} s_output_t;

//  One running attempt
typedef struct {
    uint64_t task;                  //  task id
    uint32_t attempt;               //  attempt number
    pid_t pid;                      //  child pid, also its process group id
    uint32_t group;                 //  its cgroup's number (drover_confine), 0 = none
    int pidfd;                      //  pidfd of the child
    bool exited;                    //  pidfd said the child exited
    s_output_t out;                 //  stdout
    s_output_t err;                 //  stderr
    int64_t started;                //  msec, zclock_mono
    uint32_t timeout;               //  msec, 0 = none
    int64_t deadline;               //  msec at which the timeout hits, 0 = none
    int64_t kill_at;                //  msec at which SIGKILL follows SIGTERM, 0 = none
    int ending;                     //  -1, or TIMEDOUT / CANCELLED once we decided to kill
} s_attempt_t;

//  What one filled poll item belongs to
typedef struct {
    s_attempt_t *attempt;           //  borrowed from attempts
    int kind;                       //  s_item_kind_t
} s_polled_t;

struct _drover_runner_t {
    s_attempt_t **attempts;         //  running attempts, owned
    size_t size;                    //  entries in attempts
    size_t alloc;                   //  room in attempts
    s_polled_t *polled;             //  per item of the last fill
    size_t npolled;                 //  items of the last fill
    size_t polled_alloc;            //  room in polled
    zlistx_t *results;              //  finished attempts, drover_msg_t *, owned
    uint32_t grace;                 //  msec between SIGTERM and SIGKILL
    byte *discard;                  //  S_DISCARD_SIZE scratch bytes, owned
    byte *stack;                    //  mapped stack for children (guard page first), or NULL
    size_t stack_size;              //  bytes mapped at stack, guard page included
    sigset_t defaults;              //  signals a child sets back to SIG_DFL even if ignored
    char *confine_mode;             //  "auto", "cgroup" or "pgroup", owned
    drover_confine_t *confine;      //  keeps each task's processes together, made at first start
    bool no_clone3;                 //  clone3 into a cgroup failed: the child moves itself
    char *workdir;                  //  where tasks start before their own cwd, or NULL, owned
};

static void s_attempt_destroy (s_attempt_t **self_p);

//  The destructor the results list uses
static void
s_result_destroy (void **item_p)
{
    drover_msg_destroy ((drover_msg_t **) item_p);
}


//  --------------------------------------------------------------------------
//  Create a runner with no attempts

drover_runner_t *
drover_runner_new (void)
{
    drover_runner_t *self = (drover_runner_t *) zmalloc (sizeof (drover_runner_t));
    self->results = zlistx_new ();
    zlistx_set_destructor (self->results, s_result_destroy);
    self->grace = DROVER_RUNNER_GRACE;
    self->discard = (byte *) zmalloc (S_DISCARD_SIZE);
    //  Signals the worker may ignore that a task must find at default
    static const int reset [] = { SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD,
                                  SIGUSR1, SIGUSR2, SIGALRM, SIGTSTP, SIGTTIN, SIGTTOU };
    sigemptyset (&self->defaults);
    for (size_t index = 0; index < sizeof reset / sizeof reset [0]; index++)
        sigaddset (&self->defaults, reset [index]);
    const char *mode = getenv ("DROVER_CONFINE");
    self->confine_mode = strdup (mode && *mode? mode: "auto");
    return self;
}


//  SIGKILL every attempt still running, reap it and forget it
static void
s_kill_all (drover_runner_t *self)
{
    for (size_t index = 0; index < self->size; index++) {
        s_attempt_t *attempt = self->attempts [index];
        drover_confine_signal (self->confine, attempt->group, attempt->pid, SIGKILL);
        while (waitpid (attempt->pid, NULL, 0) == -1 && errno == EINTR)
            ;
        drover_confine_release (self->confine, attempt->group, attempt->pid);
        s_attempt_destroy (&attempt);
    }
    self->size = 0;
}

//  --------------------------------------------------------------------------
//  Destroy a runner: SIGKILL every process group still running and reap

void
drover_runner_destroy (drover_runner_t **self_p)
{
    assert (self_p);
    drover_runner_t *self = *self_p;
    if (!self)
        return;
    s_kill_all (self);
    drover_confine_destroy (&self->confine);
    free (self->confine_mode);
    free (self->workdir);
    free (self->attempts);
    free (self->polled);
    zlistx_destroy (&self->results);
    free (self->discard);
    if (self->stack)
        munmap (self->stack, self->stack_size);
    free (self);
    *self_p = NULL;
}


//  --------------------------------------------------------------------------
//  Set the msec between SIGTERM and SIGKILL

void
drover_runner_set_grace (drover_runner_t *self, uint32_t grace)
{
    assert (self);
    self->grace = grace;
}


//  --------------------------------------------------------------------------
//  Set how tasks are confined: "auto", "cgroup" or "pgroup"; before the
//  first start only

void
drover_runner_set_confine (drover_runner_t *self, const char *mode)
{
    assert (self);
    assert (mode);
    assert (!self->confine);
    free (self->confine_mode);
    self->confine_mode = strdup (mode);
}


//  --------------------------------------------------------------------------
//  Set the directory tasks start in (a task's relative cwd is taken from
//  there); a task that cannot get there failed for its machine's sake

void
drover_runner_set_workdir (drover_runner_t *self, const char *workdir)
{
    assert (self);
    free (self->workdir);
    self->workdir = workdir? strdup (workdir): NULL;
}


//  --------------------------------------------------------------------------
//  Return the cgroup directory of the tasks' cgroups, or NULL

const char *
drover_runner_cgroup (drover_runner_t *self)
{
    assert (self);
    return self->confine? drover_confine_cgroup (self->confine): NULL;
}


//  Close a descriptor if open and mark it closed
static void
s_close (int *fd_p)
{
    if (*fd_p >= 0)
        close (*fd_p);
    *fd_p = -1;
}

//  Free an attempt's fds and buffers; the child must be reaped already
static void
s_attempt_destroy (s_attempt_t **self_p)
{
    s_attempt_t *self = *self_p;
    if (!self)
        return;
    s_close (&self->pidfd);
    s_close (&self->out.fd);
    s_close (&self->err.fd);
    free (self->out.data);
    free (self->err.data);
    free (self);
    *self_p = NULL;
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

//  Build the child's environment: the inherited one with the task's
//  entries added, a task entry replacing an inherited one of the same
//  name. The array holds borrowed strings; free only the array.
static char **
s_environment (const drover_exec_t *exec)
{
    size_t inherited = 0;
    while (environ && environ [inherited])
        inherited++;
    char **envp = (char **) zmalloc ((inherited + exec->nenv + 1) * sizeof (char *));
    size_t size = 0;
    for (size_t index = 0; index < inherited; index++)
        envp [size++] = environ [index];
    for (uint32_t extra = 0; extra < exec->nenv && exec->env [extra]; extra++) {
        char *entry = exec->env [extra];
        const char *equals = strchr (entry, '=');
        size_t name_size = equals? (size_t) (equals - entry) + 1: strlen (entry);
        size_t index;
        for (index = 0; index < size; index++)
            if (strncmp (envp [index], entry, name_size) == 0)
                break;
        envp [index] = entry;
        if (index == size)
            size++;
    }
    envp [size] = NULL;
    return envp;
}

//  Open the child's stdin: a memfd holding the input bytes, or /dev/null.
//  Writing to a memfd never blocks on a reader. Returns the fd or -1.
static int
s_stdin_open (const drover_exec_t *exec)
{
    if (!exec->input || exec->input_size == 0)
        return open ("/dev/null", O_RDONLY | O_CLOEXEC);
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

//  Code that runs in the child, on the runner's own stack in memory it
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
    //  Into the task's own cgroup before exec, if clone3 did not start us
    //  there: nothing the task starts can leave it
    if (child->cgroup_fd >= 0) {
        int procs = openat (child->cgroup_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
        if (procs == -1 || write (procs, "0", 1) != 1)
            s_child_fail (child, S_STAGE_CGROUP, errno);
        close (procs);
    }
    if (dup2 (child->in_fd, 0) == -1 || dup2 (child->out_fd, 1) == -1
    ||  dup2 (child->err_fd, 2) == -1)
        s_child_fail (child, S_STAGE_EXEC, errno);
    //  Whatever else is open (other tasks' pipes, sockets) stays behind
    syscall (SYS_close_range, 3U, ~0U, 4U /* CLOSE_RANGE_CLOEXEC */);
    if (child->workdir && chdir (child->workdir) == -1)
        s_child_fail (child, S_STAGE_WORKDIR, errno);
    if (child->cwd && *child->cwd && chdir (child->cwd) == -1)
        s_child_fail (child, S_STAGE_CHDIR, errno);
    execvpe (child->argv [0], child->argv, child->envp);
    s_child_fail (child, S_STAGE_EXEC, errno);
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

//  Map the stack children start on, once per runner: S_STACK_SIZE bytes
//  above a guard page. Returns its top, or NULL.
static byte *
s_stack_top (drover_runner_t *self)
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

//  Start the attempt's child without copying the address space: clone
//  with CLONE_VM | CLONE_VFORK (this thread waits until the child execs or
//  exits) and CLONE_PIDFD; fills the attempt's pid, pidfd and pipes.
//  Returns 0, or -1 with reason filled (nothing left open) and *machine_p
//  saying whether the machine is at fault (s_machine_error).
static int
s_spawn (drover_runner_t *self, s_attempt_t *attempt, const drover_exec_t *exec,
         char *reason, size_t reason_size, bool *machine_p)
{
    *machine_p = true;          //  until the task's own part fails
    if (exec->argc < 1 || !exec->argv || !exec->argv [0] || !*exec->argv [0]) {
        snprintf (reason, reason_size, "empty argv");
        *machine_p = false;
        return -1;
    }
    int out_pipe [2] = { -1, -1 };
    int err_pipe [2] = { -1, -1 };
    int in_fd = s_stdin_open (exec);
    if (in_fd == -1
    ||  pipe2 (out_pipe, O_CLOEXEC) == -1
    ||  pipe2 (err_pipe, O_CLOEXEC) == -1) {
        snprintf (reason, reason_size, "pipes: %s", strerror (errno));
        goto failed;
    }
    in_fd = s_above_stdio (in_fd);
    out_pipe [1] = s_above_stdio (out_pipe [1]);
    err_pipe [1] = s_above_stdio (err_pipe [1]);
    if (in_fd == -1 || out_pipe [1] == -1 || err_pipe [1] == -1) {
        snprintf (reason, reason_size, "fds: %s", strerror (errno));
        goto failed;
    }
    byte *stack_top = s_stack_top (self);
    if (!stack_top) {
        snprintf (reason, reason_size, "child stack: %s", strerror (errno));
        goto failed;
    }
    if (!self->confine)
        self->confine = drover_confine_new (self->confine_mode);
    uint32_t group = 0;
    int cgroup_fd = drover_confine_prepare (self->confine, &group);
    if (cgroup_fd == -2) {
        snprintf (reason, reason_size, "cgroup: %s", strerror (errno));
        goto failed;
    }
    s_child_t child;
    memset (&child, 0, sizeof child);
    child.cgroup_fd = -1;
    child.parent = getpid ();
    child.in_fd = in_fd;
    child.out_fd = out_pipe [1];
    child.err_fd = err_pipe [1];
    child.workdir = self->workdir;
    child.cwd = exec->cwd;
    child.argv = exec->argv;
    child.envp = s_environment (exec);
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
    s_close (&cgroup_fd);
    if (pid == -1) {
        drover_confine_release (self->confine, group, 0);
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
        if (child.stage)
            snprintf (reason, reason_size, "exec %s: %s", exec->argv [0], strerror (child.error));
        else
            snprintf (reason, reason_size, "clone gave no pidfd");
        kill (-pid, SIGKILL);
        kill (pid, SIGKILL);
        while (waitpid (pid, NULL, 0) == -1 && errno == EINTR)
            ;
        drover_confine_release (self->confine, group, 0);
        s_close (&pidfd);
        goto failed;
    }
    drover_confine_started (self->confine, group, pid);
    attempt->group = group;
    fcntl (out_pipe [0], F_SETFL, O_NONBLOCK);
    fcntl (err_pipe [0], F_SETFL, O_NONBLOCK);
    attempt->pid = pid;
    attempt->pidfd = pidfd;
    attempt->out.fd = out_pipe [0];
    attempt->err.fd = err_pipe [0];
    return 0;

failed:
    s_close (&in_fd);
    for (int end = 0; end < 2; end++) {
        s_close (&out_pipe [end]);
        s_close (&err_pipe [end]);
    }
    return -1;
}


//  --------------------------------------------------------------------------
//  Start an attempt. Returns 0 if it runs, or -1 with a SPAWN_FAILED or
//  MACHINE_FAILED result queued.

int
drover_runner_start (drover_runner_t *self, uint64_t task, uint32_t attempt_nbr,
                     const drover_exec_t *exec, uint32_t timeout, int64_t now)
{
    assert (self);
    assert (exec);
    s_attempt_t *attempt = (s_attempt_t *) zmalloc (sizeof (s_attempt_t));
    attempt->task = task;
    attempt->attempt = attempt_nbr;
    attempt->pidfd = attempt->out.fd = attempt->err.fd = -1;
    attempt->started = now;
    attempt->timeout = timeout;
    attempt->deadline = timeout? now + timeout: 0;
    attempt->ending = -1;
    char reason [DROVER_REASON_MAX];
    bool machine;
    if (s_spawn (self, attempt, exec, reason, sizeof reason, &machine)) {
        drover_msg_t *result = drover_msg_new (DROVER_MSG_TASK_RESULT);
        result->task = task;
        result->attempt = attempt_nbr;
        result->outcome = machine? DROVER_OUTCOME_MACHINE_FAILED: DROVER_OUTCOME_SPAWN_FAILED;
        result->exit_code = -1;         //  no process: no status
        drover_msg_set_reason (result, reason);
        zlistx_add_end (self->results, result);
        s_attempt_destroy (&attempt);
        return -1;
    }
    if (self->size == self->alloc) {
        self->alloc = self->alloc? self->alloc * 2: 16;
        self->attempts = (s_attempt_t **) realloc (self->attempts,
                                                   self->alloc * sizeof (s_attempt_t *));
        assert (self->attempts);
    }
    self->attempts [self->size++] = attempt;
    return 0;
}


//  Find a running attempt; NULL if none
static s_attempt_t *
s_find (drover_runner_t *self, uint64_t task, uint32_t attempt_nbr)
{
    for (size_t index = 0; index < self->size; index++)
        if (self->attempts [index]->task == task
        &&  self->attempts [index]->attempt == attempt_nbr)
            return self->attempts [index];
    return NULL;
}

//  Start killing an attempt's process group: SIGTERM now, SIGKILL after the
//  grace. The first reason to kill (timeout or cancel) is the one reported.
static void
s_terminate (drover_runner_t *self, s_attempt_t *attempt, int ending, int64_t now)
{
    if (attempt->ending == -1)
        attempt->ending = ending;
    attempt->deadline = 0;
    if (attempt->kill_at)
        return;                 //  already terminating
    drover_confine_signal (self->confine, attempt->group, attempt->pid, SIGTERM);
    attempt->kill_at = now + self->grace;
    if (attempt->kill_at == 0)
        attempt->kill_at = 1;
}


//  --------------------------------------------------------------------------
//  Cancel a running attempt. Returns 0, or -1 if no such attempt runs.

int
drover_runner_cancel (drover_runner_t *self, uint64_t task, uint32_t attempt_nbr,
                      int64_t now)
{
    assert (self);
    s_attempt_t *attempt = s_find (self, task, attempt_nbr);
    if (!attempt)
        return -1;
    s_terminate (self, attempt, DROVER_OUTCOME_CANCELLED, now);
    return 0;
}


//  --------------------------------------------------------------------------
//  Return true if this attempt is running

bool
drover_runner_running (drover_runner_t *self, uint64_t task, uint32_t attempt)
{
    assert (self);
    return s_find (self, task, attempt) != NULL;
}


//  --------------------------------------------------------------------------
//  Return the number of attempts running

size_t
drover_runner_size (drover_runner_t *self)
{
    assert (self);
    return self->size;
}


//  --------------------------------------------------------------------------
//  Copy up to max running (task, attempt) pairs into refs

size_t
drover_runner_list (drover_runner_t *self, drover_taskref_t *refs, size_t max)
{
    assert (self);
    size_t count = 0;
    for (size_t index = 0; index < self->size && count < max; index++) {
        refs [count].task = self->attempts [index]->task;
        refs [count].attempt = self->attempts [index]->attempt;
        count++;
    }
    return count;
}


//  --------------------------------------------------------------------------
//  Return how many poll items drover_runner_fill needs at most

size_t
drover_runner_items (drover_runner_t *self)
{
    assert (self);
    return self->size * 3;
}


//  Note that poll item index belongs to attempt, kind
static void
s_polled_add (drover_runner_t *self, zmq_pollitem_t *item, int fd,
              s_attempt_t *attempt, int kind)
{
    if (self->npolled == self->polled_alloc) {
        self->polled_alloc = self->polled_alloc? self->polled_alloc * 2: 48;
        self->polled = (s_polled_t *) realloc (self->polled,
                                               self->polled_alloc * sizeof (s_polled_t));
        assert (self->polled);
    }
    item->socket = NULL;
    item->fd = fd;
    item->events = ZMQ_POLLIN;
    item->revents = 0;
    self->polled [self->npolled].attempt = attempt;
    self->polled [self->npolled].kind = kind;
    self->npolled++;
}


//  --------------------------------------------------------------------------
//  Fill items with the fds to poll for reading; returns how many

size_t
drover_runner_fill (drover_runner_t *self, zmq_pollitem_t *items, size_t max)
{
    assert (self);
    self->npolled = 0;
    for (size_t index = 0; index < self->size; index++) {
        s_attempt_t *attempt = self->attempts [index];
        if (attempt->out.fd >= 0 && self->npolled < max)
            s_polled_add (self, &items [self->npolled], attempt->out.fd, attempt, S_ITEM_OUT);
        if (attempt->err.fd >= 0 && self->npolled < max)
            s_polled_add (self, &items [self->npolled], attempt->err.fd, attempt, S_ITEM_ERR);
        if (!attempt->exited && self->npolled < max)
            s_polled_add (self, &items [self->npolled], attempt->pidfd, attempt, S_ITEM_PID);
    }
    return self->npolled;
}

//  Read what a pipe holds into its bounded buffer, discarding past the
//  bound; closes the fd at EOF. Stops after S_READS_MAX reads so one busy
//  writer cannot hold the loop.
static void
s_output_read (drover_runner_t *self, s_output_t *output)
{
    for (int reads = 0; output->fd >= 0 && reads < S_READS_MAX; reads++) {
        byte *into = self->discard;
        size_t room = S_DISCARD_SIZE;
        if (output->size < DROVER_OUTPUT_MAX) {
            if (output->size == output->alloc) {
                size_t alloc = output->alloc? output->alloc * 2: 4096;
                if (alloc > DROVER_OUTPUT_MAX)
                    alloc = DROVER_OUTPUT_MAX;
                output->data = (byte *) realloc (output->data, alloc);
                assert (output->data);
                output->alloc = alloc;
            }
            into = output->data + output->size;
            room = output->alloc - output->size;
        }
        ssize_t rc = read (output->fd, into, room);
        if (rc == -1 && errno == EINTR)
            continue;
        if (rc == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (rc <= 0) {
            s_close (&output->fd);      //  EOF, or an error we can't read past
            return;
        }
        if (into == self->discard)
            output->truncated = true;
        else
            output->size += (size_t) rc;
    }
}

//  Drain a pipe after its writer exited: read until EAGAIN or EOF, then close
static void
s_output_drain (drover_runner_t *self, s_output_t *output)
{
    while (output->fd >= 0) {
        int before = output->fd;
        size_t size = output->size;
        bool truncated = output->truncated;
        s_output_read (self, output);
        if (output->fd == before && output->size == size && output->truncated == truncated)
            break;              //  nothing more now (a grandchild may hold it open)
    }
    s_close (&output->fd);
}

//  Hand a stream's buffer over to the result message
static void
s_output_give (s_output_t *output, byte **data_p, size_t *size_p)
{
    if (output->size) {
        *data_p = output->data;
        *size_p = output->size;
    }
    else
        free (output->data);
    output->data = NULL;
    output->size = output->alloc = 0;
}

//  Build the TASK RESULT of an attempt whose child exited with status
static drover_msg_t *
s_result_new (s_attempt_t *attempt, int status, int64_t now)
{
    drover_msg_t *result = drover_msg_new (DROVER_MSG_TASK_RESULT);
    result->task = attempt->task;
    result->attempt = attempt->attempt;
    int64_t duration = now - attempt->started;
    result->duration = duration < 0? 0: duration > UINT32_MAX? UINT32_MAX: (uint32_t) duration;
    char reason [DROVER_REASON_MAX] = "";
    if (WIFSIGNALED (status)) {
        result->outcome = DROVER_OUTCOME_SIGNALLED;
        result->signal = WTERMSIG (status);
        result->exit_code = 128 + result->signal;
        snprintf (reason, sizeof reason, "killed by signal %d (%s)",
                  result->signal, strsignal (result->signal));
    }
    else {
        result->outcome = DROVER_OUTCOME_EXITED;
        result->exit_code = WEXITSTATUS (status);
    }
    if (attempt->ending == DROVER_OUTCOME_TIMEDOUT) {
        result->outcome = DROVER_OUTCOME_TIMEDOUT;
        snprintf (reason, sizeof reason, "timed out after %u ms", attempt->timeout);
    }
    else
    if (attempt->ending == DROVER_OUTCOME_CANCELLED) {
        result->outcome = DROVER_OUTCOME_CANCELLED;
        snprintf (reason, sizeof reason, "cancelled");
    }
    if (*reason)
        drover_msg_set_reason (result, reason);
    if (attempt->out.truncated)
        result->truncated |= DROVER_TRUNC_STDOUT;
    if (attempt->err.truncated)
        result->truncated |= DROVER_TRUNC_STDERR;
    s_output_give (&attempt->out, &result->out, &result->out_size);
    s_output_give (&attempt->err, &result->err, &result->err_size);
    return result;
}

//  Reap an attempt whose pidfd said it exited. Kills what is left of its
//  process group first, while the zombie still holds the group id. Returns
//  true and queues its result if reaped.
static bool
s_reap (drover_runner_t *self, s_attempt_t *attempt, int64_t now)
{
    siginfo_t info;
    memset (&info, 0, sizeof info);
    int rc = waitid (P_PID, (id_t) attempt->pid, &info, WEXITED | WNOHANG | WNOWAIT);
    if (rc == -1 && errno == ECHILD) {
        //  Reaped by someone else (SIGCHLD set to SIG_IGN in this process):
        //  the pid may be reused, so the group is not signalled
        s_output_drain (self, &attempt->out);
        s_output_drain (self, &attempt->err);
        drover_confine_release (self->confine, attempt->group, attempt->pid);
        drover_msg_t *result = s_result_new (attempt, 0, now);
        result->exit_code = -1;
        drover_msg_set_reason (result, "exit status lost: the child was reaped elsewhere");
        zlistx_add_end (self->results, result);
        return true;
    }
    if (rc == -1 || info.si_pid == 0)
        return false;           //  not reapable yet
    kill (-attempt->pid, SIGKILL);
    int status = 0;
    pid_t reaped;
    while ((reaped = waitpid (attempt->pid, &status, WNOHANG)) == -1 && errno == EINTR)
        ;
    if (reaped != attempt->pid)
        return false;
    drover_confine_release (self->confine, attempt->group, attempt->pid);
    s_output_drain (self, &attempt->out);
    s_output_drain (self, &attempt->err);
    zlistx_add_end (self->results, s_result_new (attempt, status, now));
    return true;
}


//  --------------------------------------------------------------------------
//  Read what is ready, reap children that exited, act on deadlines

void
drover_runner_process (drover_runner_t *self, zmq_pollitem_t *items,
                       size_t count, int64_t now)
{
    assert (self);
    if (count > self->npolled)
        count = self->npolled;
    for (size_t index = 0; index < count; index++) {
        if (!items [index].revents)
            continue;
        s_attempt_t *attempt = self->polled [index].attempt;
        int kind = self->polled [index].kind;
        if (kind == S_ITEM_OUT)
            s_output_read (self, &attempt->out);
        else
        if (kind == S_ITEM_ERR)
            s_output_read (self, &attempt->err);
        else
            attempt->exited = true;
    }
    self->npolled = 0;

    size_t index = 0;
    while (index < self->size) {
        s_attempt_t *attempt = self->attempts [index];
        if (attempt->exited && s_reap (self, attempt, now)) {
            s_attempt_destroy (&attempt);
            self->attempts [index] = self->attempts [--self->size];
            continue;
        }
        if (attempt->exited)
            attempt->exited = false;    //  not reapable yet: poll its pidfd again
        if (attempt->kill_at && now >= attempt->kill_at) {
            drover_confine_signal (self->confine, attempt->group, attempt->pid, SIGKILL);
            attempt->kill_at = 0;
        }
        else
        if (attempt->deadline && now >= attempt->deadline)
            s_terminate (self, attempt, DROVER_OUTCOME_TIMEDOUT, now);
        index++;
    }
    if (self->confine)
        drover_confine_tidy (self->confine, now);
}


//  --------------------------------------------------------------------------
//  Return the earliest msec at which a deadline falls due, or -1

int64_t
drover_runner_next_deadline (drover_runner_t *self)
{
    assert (self);
    int64_t next = -1;
    for (size_t index = 0; index < self->size; index++) {
        s_attempt_t *attempt = self->attempts [index];
        int64_t due = attempt->kill_at? attempt->kill_at: attempt->deadline;
        if (due && (next == -1 || due < next))
            next = due;
    }
    int64_t tidy = self->confine? drover_confine_next_tidy (self->confine): -1;
    if (tidy != -1 && (next == -1 || tidy < next))
        next = tidy;
    return next;
}


//  --------------------------------------------------------------------------
//  Take the next finished attempt as a TASK RESULT; NULL if none

drover_msg_t *
drover_runner_next_result (drover_runner_t *self)
{
    assert (self);
    void *handle = zlistx_first (self->results);
    if (!handle)
        return NULL;
    drover_msg_t *result = (drover_msg_t *) zlistx_detach_cur (self->results);
    return result;
}


//  --------------------------------------------------------------------------
//  Stop every attempt: SIGTERM, up to the grace, then SIGKILL; results
//  are discarded

void
drover_runner_stop_all (drover_runner_t *self)
{
    assert (self);
    for (size_t index = 0; index < self->size; index++)
        drover_confine_signal (self->confine, self->attempts [index]->group,
                               self->attempts [index]->pid, SIGTERM);
    int64_t deadline = zclock_mono () + self->grace;
    struct pollfd *fds = (struct pollfd *) zmalloc ((self->size + 1) * sizeof (struct pollfd));
    while (self->size) {
        for (size_t index = 0; index < self->size; index++) {
            fds [index].fd = self->attempts [index]->pidfd;
            fds [index].events = POLLIN;
            fds [index].revents = 0;
        }
        int64_t wait = deadline - zclock_mono ();
        if (wait <= 0)
            break;
        if (poll (fds, self->size, (int) wait) == -1 && errno != EINTR)
            break;
        size_t index = 0;
        while (index < self->size) {
            s_attempt_t *attempt = self->attempts [index];
            if (fds [index].revents) {
                kill (-attempt->pid, SIGKILL);      //  grandchildren that linger
                while (waitpid (attempt->pid, NULL, 0) == -1 && errno == EINTR)
                    ;
                drover_confine_release (self->confine, attempt->group, attempt->pid);
                s_attempt_destroy (&attempt);
                self->attempts [index] = self->attempts [--self->size];
                fds [index] = fds [self->size];
            }
            else
                index++;
        }
    }
    free (fds);
    s_kill_all (self);
    self->npolled = 0;
}
