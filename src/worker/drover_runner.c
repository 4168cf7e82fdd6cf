/*  =========================================================================
    drover_runner - runs task attempts as child processes

    Each attempt is a child in its own process group and, where the machine
    allows, its own cgroup (drover_confine), started by drover_spawner
    (clone on a stack of its own, without copying the worker's memory).

    The runner keeps, per attempt: the pid and a pidfd (readable once the
    child exits), its stdout and stderr as bounded captures
    (drover_capture), and its deadlines (the timeout, then the SIGKILL
    after the grace). When the child exits, its process group gets SIGKILL
    while the zombie still holds the group id (so it cannot have been
    reused), the child is reaped, the pipes are drained of what is left,
    and a TASK RESULT message is queued for the caller.
    =========================================================================
*/

#include "drover_runner.h"
#include "drover_confine.h"
#include "drover_memlimit.h"
#include "drover_spawner.h"
#include "drover_capture.h"
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>
#include <poll.h>

#define S_DISCARD_SIZE  65536       //  scratch for output past the bound

//  What each poll item filled by the runner watches
typedef enum {
    S_ITEM_OUT = 0,                 //  stdout pipe
    S_ITEM_ERR = 1,                 //  stderr pipe
    S_ITEM_PID = 2                  //  pidfd: readable once the child exits
} s_item_kind_t;

//  One running attempt
typedef struct {
    uint64_t task;                  //  task id
    uint32_t attempt;               //  attempt number
    pid_t pid;                      //  child pid, also its process group id
    uint32_t group;                 //  its cgroup's number (drover_confine), 0 = none
    uint32_t limit;                 //  its memory limit's number (drover_memlimit), 0 = none
    uint64_t mem;                   //  that limit, bytes, 0 = none
    int pidfd;                      //  pidfd of the child
    bool exited;                    //  pidfd said the child exited
    drover_capture_t *out;          //  stdout, owned
    drover_capture_t *err;          //  stderr, owned
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
    drover_spawner_t *spawner;      //  starts the children, owned
    char *confine_mode;             //  "auto", "cgroup" or "pgroup", owned
    drover_confine_t *confine;      //  keeps each task's processes together, made at first start
    char *memlimit_mode;            //  "hard", "soft" or "off", owned
    drover_memlimit_t *memlimit;    //  bounds each task's memory, made at first start
    char *worker;                   //  the worker id tasks see as DROVER_WORKER, or NULL, owned
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
    self->spawner = drover_spawner_new ();
    const char *mode = getenv ("DROVER_CONFINE");
    self->confine_mode = strdup (mode && *mode? mode: "auto");
    const char *limit = getenv ("DROVER_MEMORY_LIMIT");
    self->memlimit_mode = strdup (drover_memlimit_mode_valid (limit)? limit: "hard");
    return self;
}

//  The attempt's processes are all gone (its leader reaped): forget its
//  memory limit and cgroup, killing what is left in them
static void
s_release (drover_runner_t *self, s_attempt_t *attempt)
{
    if (attempt->limit)
        drover_memlimit_release (self->memlimit, attempt->limit);
    attempt->limit = 0;
    drover_confine_release (self->confine, attempt->group, attempt->pid);
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
        s_release (self, attempt);
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
    drover_memlimit_destroy (&self->memlimit);
    drover_confine_destroy (&self->confine);
    free (self->confine_mode);
    free (self->memlimit_mode);
    free (self->worker);
    free (self->attempts);
    free (self->polled);
    zlistx_destroy (&self->results);
    free (self->discard);
    drover_spawner_destroy (&self->spawner);
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
//  Set how a task's memory is bounded: "hard", "soft" or "off"; before
//  the first start only

void
drover_runner_set_memory_limit (drover_runner_t *self, const char *mode)
{
    assert (self);
    assert (drover_memlimit_mode_valid (mode));
    assert (!self->memlimit);
    free (self->memlimit_mode);
    self->memlimit_mode = strdup (mode);
}


//  --------------------------------------------------------------------------
//  Return the memory controller tasks' limits go through
//  (drover_memlimit_controller_t); DROVER_MEMLIMIT_NONE before the first
//  start

int
drover_runner_memory_controller (drover_runner_t *self)
{
    assert (self);
    return self->memlimit? drover_memlimit_controller (self->memlimit): DROVER_MEMLIMIT_NONE;
}


//  --------------------------------------------------------------------------
//  Set the directory tasks start in (a task's relative cwd is taken from
//  there); a task that cannot get there failed for its machine's sake

void
drover_runner_set_workdir (drover_runner_t *self, const char *workdir)
{
    assert (self);
    drover_spawner_set_workdir (self->spawner, workdir);
}


//  --------------------------------------------------------------------------
//  Set what tasks see of the worker (user, environment); borrowed

void
drover_runner_set_taskenv (drover_runner_t *self, drover_taskenv_t *taskenv)
{
    assert (self);
    drover_spawner_set_taskenv (self->spawner, taskenv);
}


//  --------------------------------------------------------------------------
//  Set the worker id tasks see as DROVER_WORKER (copied; NULL: none)

void
drover_runner_set_worker (drover_runner_t *self, const char *worker)
{
    assert (self);
    free (self->worker);
    self->worker = worker? strdup (worker): NULL;
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
    drover_capture_destroy (&self->out);
    drover_capture_destroy (&self->err);
    free (self);
    *self_p = NULL;
}



//  --------------------------------------------------------------------------
//  Start an attempt. Returns 0 if it runs, or -1 with a SPAWN_FAILED or
//  MACHINE_FAILED result queued.

int
drover_runner_start (drover_runner_t *self, uint64_t task, uint32_t attempt_nbr,
                     const drover_exec_t *exec, uint32_t timeout, int64_t now)
{
    return drover_runner_start_bounded (self, task, attempt_nbr, exec, timeout, 0, now);
}


//  --------------------------------------------------------------------------
//  Start an attempt with its memory bounded to mem bytes (0: unbounded)

int
drover_runner_start_bounded (drover_runner_t *self, uint64_t task, uint32_t attempt_nbr,
                             const drover_exec_t *exec, uint32_t timeout, uint64_t mem,
                             int64_t now)
{
    return drover_runner_start_assigned (self, task, attempt_nbr, exec, timeout, mem, NULL, now);
}


//  --------------------------------------------------------------------------
//  Start an attempt with its memory bounded and the devices it was given
//  in its environment

int
drover_runner_start_assigned (drover_runner_t *self, uint64_t task, uint32_t attempt_nbr,
                              const drover_exec_t *exec, uint32_t timeout, uint64_t mem,
                              char *const *devices, int64_t now)
{
    assert (self);
    assert (exec);
    s_attempt_t *attempt = (s_attempt_t *) zmalloc (sizeof (s_attempt_t));
    attempt->task = task;
    attempt->attempt = attempt_nbr;
    attempt->pidfd = -1;
    attempt->started = now;
    attempt->timeout = timeout;
    attempt->deadline = timeout? now + timeout: 0;
    attempt->ending = -1;
    char reason [DROVER_REASON_MAX];
    bool machine = false;
    drover_spawned_t spawned;
    int rc = -1;
    if (!drover_spawner_runnable (exec))
        snprintf (reason, sizeof reason, "empty argv");
    else {
        if (!self->confine)
            self->confine = drover_confine_new (self->confine_mode);
        if (!self->memlimit)
            self->memlimit = drover_memlimit_new (self->memlimit_mode,
                                                  drover_confine_cgroup (self->confine));
        drover_taskenv_who_t who = { task, attempt_nbr, self->worker, devices };
        rc = drover_spawner_start (self->spawner, exec, &who, self->confine, self->memlimit,
                                   mem, &spawned, reason, sizeof reason, &machine);
    }
    if (rc) {
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
    attempt->pid = spawned.pid;
    attempt->pidfd = spawned.pidfd;
    attempt->group = spawned.group;
    attempt->limit = spawned.limit;
    attempt->mem = mem;
    attempt->out = drover_capture_new (spawned.out_fd, DROVER_OUTPUT_MAX);
    attempt->err = drover_capture_new (spawned.err_fd, DROVER_OUTPUT_MAX);
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
        int out_fd = drover_capture_fd (attempt->out);
        int err_fd = drover_capture_fd (attempt->err);
        if (out_fd >= 0 && self->npolled < max)
            s_polled_add (self, &items [self->npolled], out_fd, attempt, S_ITEM_OUT);
        if (err_fd >= 0 && self->npolled < max)
            s_polled_add (self, &items [self->npolled], err_fd, attempt, S_ITEM_ERR);
        if (!attempt->exited && self->npolled < max)
            s_polled_add (self, &items [self->npolled], attempt->pidfd, attempt, S_ITEM_PID);
    }
    return self->npolled;
}


//  Build the TASK RESULT of an attempt whose child exited with status
static drover_msg_t *
s_result_new (s_attempt_t *attempt, int status, bool oom, int64_t now)
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
    else
    if (oom && !(result->outcome == DROVER_OUTCOME_EXITED && result->exit_code == 0)) {
        //  The OOM killer's signal, whichever process of the task it hit
        result->outcome = DROVER_OUTCOME_OOM;
        result->signal = SIGKILL;
        snprintf (reason, sizeof reason, "killed by the OOM killer: past its memory limit "
                  "of %" PRIu64 " bytes", attempt->mem);
    }
    if (*reason)
        drover_msg_set_reason (result, reason);
    if (drover_capture_truncated (attempt->out))
        result->truncated |= DROVER_TRUNC_STDOUT;
    if (drover_capture_truncated (attempt->err))
        result->truncated |= DROVER_TRUNC_STDERR;
    drover_capture_take (attempt->out, &result->out, &result->out_size);
    drover_capture_take (attempt->err, &result->err, &result->err_size);
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
        drover_capture_drain (attempt->out, self->discard, S_DISCARD_SIZE);
        drover_capture_drain (attempt->err, self->discard, S_DISCARD_SIZE);
        s_release (self, attempt);
        drover_msg_t *result = s_result_new (attempt, 0, false, now);
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
    bool oom = attempt->limit
            && drover_memlimit_oom (self->memlimit, attempt->limit,
                                    WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL);
    s_release (self, attempt);
    drover_capture_drain (attempt->out, self->discard, S_DISCARD_SIZE);
    drover_capture_drain (attempt->err, self->discard, S_DISCARD_SIZE);
    zlistx_add_end (self->results, s_result_new (attempt, status, oom, now));
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
            drover_capture_read (attempt->out, self->discard, S_DISCARD_SIZE);
        else
        if (kind == S_ITEM_ERR)
            drover_capture_read (attempt->err, self->discard, S_DISCARD_SIZE);
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
    if (self->memlimit)
        drover_memlimit_tidy (self->memlimit, now);
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
    tidy = self->memlimit? drover_memlimit_next_tidy (self->memlimit): -1;
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
                s_release (self, attempt);
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
