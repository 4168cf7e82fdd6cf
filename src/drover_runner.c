/*  =========================================================================
    drover_runner - runs task attempts as child processes

    Each attempt is a child forked in its own process group. Between fork
    and exec the child does only async-signal-safe calls (the parent may
    run ZeroMQ threads): reset signals, setpgid, dup2 its stdin/stdout/
    stderr, mark every other fd close-on-exec, chdir, execvpe. If any step
    fails it writes (stage, errno) on a close-on-exec pipe and exits; the
    parent reads that pipe until EOF, so an exec that fails is reported as
    SPAWN_FAILED with its reason, and one that succeeds costs a single
    empty read.

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
#include <sys/prctl.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <poll.h>

extern char **environ;

#define S_DISCARD_SIZE  65536       //  scratch for output past the bound
#define S_READS_MAX     16          //  reads of one pipe per readiness

//  What each poll item filled by the runner watches
typedef enum {
    S_ITEM_OUT = 0,                 //  stdout pipe
    S_ITEM_ERR = 1,                 //  stderr pipe
    S_ITEM_PID = 2                  //  pidfd: readable once the child exits
} s_item_kind_t;

//  Where the child's setup failed, as written on the report pipe
typedef enum {
    S_STAGE_CHDIR = 1,
    S_STAGE_EXEC  = 2
} s_stage_t;

//  The report a child writes if it cannot exec
typedef struct {
    int stage;                      //  s_stage_t
    int error;                      //  errno
} s_report_t;

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
    return self;
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
    for (size_t index = 0; index < self->size; index++) {
        s_attempt_t *attempt = self->attempts [index];
        kill (-attempt->pid, SIGKILL);
        while (waitpid (attempt->pid, NULL, 0) == -1 && errno == EINTR)
            ;
        s_attempt_destroy (&attempt);
    }
    free (self->attempts);
    free (self->polled);
    zlistx_destroy (&self->results);
    free (self->discard);
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

//  Tell the parent which setup step failed, then exit. Runs in the child.
static void
s_child_fail (int report_fd, int stage, int error)
{
    s_report_t report = { stage, error };
    ssize_t rc = write (report_fd, &report, sizeof report);
    (void) rc;
    _exit (127);
}

//  The child between fork and exec: async-signal-safe calls only
static void
s_child (pid_t parent, int in_fd, int out_fd, int err_fd, int report_fd,
         const char *cwd, char **argv, char **envp)
{
    //  A task must not outlive a worker killed outright: the broker reruns
    //  it elsewhere, and an orphan would run twice and hold the machine
    prctl (PR_SET_PDEATHSIG, SIGKILL);
    if (getppid () != parent)
        _exit (127);            //  the worker died before prctl took effect

    //  Signals ignored or blocked by the worker must not leak into tasks
    static const int reset [] = { SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD,
                                  SIGUSR1, SIGUSR2, SIGALRM, SIGTSTP, SIGTTIN, SIGTTOU };
    struct sigaction action;
    memset (&action, 0, sizeof action);
    action.sa_handler = SIG_DFL;
    sigemptyset (&action.sa_mask);
    for (size_t index = 0; index < sizeof reset / sizeof reset [0]; index++)
        sigaction (reset [index], &action, NULL);
    sigset_t none;
    sigemptyset (&none);
    sigprocmask (SIG_SETMASK, &none, NULL);

    setpgid (0, 0);
    if (dup2 (in_fd, 0) == -1 || dup2 (out_fd, 1) == -1 || dup2 (err_fd, 2) == -1)
        s_child_fail (report_fd, S_STAGE_EXEC, errno);
    //  Whatever else is open (other tasks' pipes, sockets) stays behind
    syscall (SYS_close_range, 3U, ~0U, 4U /* CLOSE_RANGE_CLOEXEC */);
    if (cwd && *cwd && chdir (cwd) == -1)
        s_child_fail (report_fd, S_STAGE_CHDIR, errno);
    execvpe (argv [0], argv, envp);
    s_child_fail (report_fd, S_STAGE_EXEC, errno);
}

//  Read the child's report pipe until EOF (exec succeeded) or a report.
//  Returns 0 if exec succeeded, else -1 with reason filled.
static int
s_read_report (int report_fd, const drover_exec_t *exec, char *reason, size_t reason_size)
{
    s_report_t report;
    size_t got = 0;
    while (got < sizeof report) {
        ssize_t rc = read (report_fd, (byte *) &report + got, sizeof report - got);
        if (rc == -1 && errno == EINTR)
            continue;
        if (rc <= 0)
            break;
        got += (size_t) rc;
    }
    if (got < sizeof report)
        return 0;               //  EOF: the exec closed the pipe
    if (report.stage == S_STAGE_CHDIR)
        snprintf (reason, reason_size, "chdir %s: %s", exec->cwd, strerror (report.error));
    else
        snprintf (reason, reason_size, "exec %s: %s", exec->argv [0], strerror (report.error));
    return -1;
}

//  Fork and exec the attempt's child; fills the attempt's pid, pidfd and
//  pipes. Returns 0, or -1 with reason filled (nothing left open).
static int
s_spawn (s_attempt_t *attempt, const drover_exec_t *exec, char *reason, size_t reason_size)
{
    if (exec->argc < 1 || !exec->argv || !exec->argv [0] || !*exec->argv [0]) {
        snprintf (reason, reason_size, "empty argv");
        return -1;
    }
    int out_pipe [2] = { -1, -1 };
    int err_pipe [2] = { -1, -1 };
    int report_pipe [2] = { -1, -1 };
    int in_fd = s_stdin_open (exec);
    if (in_fd == -1
    ||  pipe2 (out_pipe, O_CLOEXEC) == -1
    ||  pipe2 (err_pipe, O_CLOEXEC) == -1
    ||  pipe2 (report_pipe, O_CLOEXEC) == -1) {
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
    char **envp = s_environment (exec);
    pid_t parent = getpid ();
    pid_t pid = fork ();
    if (pid == 0)
        s_child (parent, in_fd, out_pipe [1], err_pipe [1], report_pipe [1], exec->cwd, exec->argv, envp);
    free (envp);
    if (pid == -1) {
        snprintf (reason, reason_size, "fork: %s", strerror (errno));
        goto failed;
    }
    setpgid (pid, pid);         //  also in the child: whichever runs first
    s_close (&in_fd);
    s_close (&out_pipe [1]);
    s_close (&err_pipe [1]);
    s_close (&report_pipe [1]);
    int rc = s_read_report (report_pipe [0], exec, reason, reason_size);
    s_close (&report_pipe [0]);
    int pidfd = rc == 0? (int) syscall (SYS_pidfd_open, pid, 0): -1;
    if (rc == 0 && pidfd == -1)
        snprintf (reason, reason_size, "pidfd_open: %s", strerror (errno));
    if (pidfd == -1) {
        kill (-pid, SIGKILL);
        kill (pid, SIGKILL);
        while (waitpid (pid, NULL, 0) == -1 && errno == EINTR)
            ;
        goto failed;
    }
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
        s_close (&report_pipe [end]);
    }
    return -1;
}


//  --------------------------------------------------------------------------
//  Start an attempt. Returns 0 if it runs, or -1 with a SPAWN_FAILED result
//  queued.

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
    if (s_spawn (attempt, exec, reason, sizeof reason)) {
        drover_msg_t *result = drover_msg_new (DROVER_MSG_TASK_RESULT);
        result->task = task;
        result->attempt = attempt_nbr;
        result->outcome = DROVER_OUTCOME_SPAWN_FAILED;
        result->exit_code = 127;
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
    kill (-attempt->pid, SIGTERM);
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
            kill (-attempt->pid, SIGKILL);
            attempt->kill_at = 0;
        }
        else
        if (attempt->deadline && now >= attempt->deadline)
            s_terminate (self, attempt, DROVER_OUTCOME_TIMEDOUT, now);
        index++;
    }
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
        kill (-self->attempts [index]->pid, SIGTERM);
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
                s_attempt_destroy (&attempt);
                self->attempts [index] = self->attempts [--self->size];
                fds [index] = fds [self->size];
            }
            else
                index++;
        }
    }
    free (fds);
    for (size_t index = 0; index < self->size; index++) {
        s_attempt_t *attempt = self->attempts [index];
        kill (-attempt->pid, SIGKILL);
        while (waitpid (attempt->pid, NULL, 0) == -1 && errno == EINTR)
            ;
        s_attempt_destroy (&attempt);
    }
    self->size = 0;
    self->npolled = 0;
}
