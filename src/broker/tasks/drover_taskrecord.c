/*  =========================================================================
    drover_taskrecord - one task as the task table holds it (see the header)
    =========================================================================
*/

#include "drover_taskrecord.h"
#include "drover_devicelist.h"
#include "drover_taskworker.h"
#include "drover_assign.h"

//  The bit fields hold every body and every state a task is in
_Static_assert (DROVER_BODY_MAX < (1 << 22), "body_size needs more bits");
_Static_assert (DROVER_TASK_UNKNOWN <= 7, "state needs more bits");
//  drover_idhash finds a task by the id it begins with
_Static_assert (offsetof (drover_taskrecord_t, id) == 0, "a task must begin with its id");
//  With a 100-byte command's body (106 bytes), a record fits in 160 bytes
_Static_assert (offsetof (drover_taskrecord_t, data) + 106 <= 160,
                "a queued task's record no longer fits jemalloc's 160-byte class");

//  The submit fields a task rarely sets, at the head of data if it does
typedef struct {
    uint64_t mem;               //  bytes demanded
    uint32_t timeout;           //  msec, 0 = none
    uint32_t retries;           //  retries asked at submit
} s_extra_t;

//  Read the rare fields (all 0 if the task has none); data is not aligned
static s_extra_t
s_extra (const drover_taskrecord_t *self)
{
    s_extra_t extra = { 0 };
    if (self->has_extra)
        memcpy (&extra, self->data, sizeof extra);
    return extra;
}

//  Where the body begins, past the rare fields if any
static const char *
s_tail (const drover_taskrecord_t *self)
{
    return (const char *) self->data + (self->has_extra? sizeof (s_extra_t): 0);
}

//  Bytes past the body's start: the body, labels, key and devices
static size_t
s_bytes (const drover_taskrecord_t *self)
{
    const char *tail = s_tail (self);
    size_t size = self->body_size;
    if (self->has_labels)
        size += strlen (tail + self->body_size) + 1;
    if (self->has_key)
        size += strlen (tail + size) + 1;
    if (self->has_devices)
        size += strlen (tail + size) + 1;
    return size;
}


//  Check a submit's fields. Returns 200 or an error code with a reason.
int
drover_taskrecord_check (const drover_msg_t *msg, char *buffer, size_t buffer_size,
                         const char **reason_p)
{
    assert (msg && buffer && reason_p);
    if (msg->procs < 1) {
        *reason_p = "procs must be at least 1";
        return DROVER_CODE_BAD_REQUEST;
    }
    if (!msg->body || msg->body_size == 0) {
        *reason_p = "no body: nothing to run";
        return DROVER_CODE_BAD_REQUEST;
    }
    if (msg->body_size > DROVER_BODY_MAX) {
        *reason_p = "body larger than the limit";
        return DROVER_CODE_TOO_LARGE;
    }
    const char *error = NULL;
    if (drover_exec_validate (msg->body, msg->body_size, &error)) {
        snprintf (buffer, buffer_size, "bad body: %s", error? error: "malformed");
        *reason_p = buffer;
        return DROVER_CODE_BAD_REQUEST;
    }
    if (msg->nlabels > DROVER_LABELS_MAX) {
        *reason_p = "too many labels";
        return DROVER_CODE_BAD_REQUEST;
    }
    for (uint32_t index = 0; index < msg->nlabels; index++)
        if (!msg->labels [index] || !drover_label_valid (msg->labels [index])) {
            *reason_p = "a label is not key=value";
            return DROVER_CODE_BAD_REQUEST;
        }
    return DROVER_CODE_OK;
}

//  Bytes the labels take, each ended by "\n" or, the last, by NUL
size_t
drover_taskrecord_labels_size (const drover_msg_t *msg)
{
    assert (msg);
    size_t labels_size = 0;
    for (uint32_t index = 0; index < msg->nlabels; index++)
        labels_size += strlen (msg->labels [index]) + 1;
    return labels_size;
}

//  Pack a submit into one allocation: fields, body, labels
drover_taskrecord_t *
drover_taskrecord_new (uint64_t id, const drover_msg_t *msg)
{
    assert (msg);
    size_t fields = offsetof (drover_taskrecord_t, data);
    size_t key_size = msg->key? strlen (msg->key) + 1: 0;
    char devices [DROVER_DEVICELIST_TEXT_MAX];
    drover_devicelist_format (msg->devices, msg->ndevices, devices);
    size_t devices_size = *devices? strlen (devices) + 1: 0;
    s_extra_t extra = { msg->mem, msg->timeout, msg->retries };
    bool has_extra = extra.mem || extra.timeout || extra.retries;
    size_t extra_size = has_extra? sizeof extra: 0;
    drover_taskrecord_t *self = (drover_taskrecord_t *)
        malloc (fields + extra_size + msg->body_size + drover_taskrecord_labels_size (msg)
                + key_size + devices_size);
    assert (self);
    memset (self, 0, fields);
    self->id = id;
    self->priority = msg->priority;
    self->procs = msg->procs;
    self->body_size = (uint32_t) msg->body_size;
    self->state = DROVER_TASK_QUEUED;
    self->replica = msg->service [0] != 0;
    self->has_extra = has_extra;
    if (has_extra)
        memcpy (self->data, &extra, sizeof extra);
    memcpy ((char *) s_tail (self), msg->body, msg->body_size);
    if (msg->nlabels) {
        char *labels = (char *) s_tail (self) + self->body_size;
        for (uint32_t index = 0; index < msg->nlabels; index++) {
            size_t length = strlen (msg->labels [index]);
            memcpy (labels, msg->labels [index], length);
            labels [length] = index + 1 < msg->nlabels? '\n': 0;
            labels += length + 1;
        }
        self->has_labels = true;
    }
    if (key_size) {
        memcpy ((char *) s_tail (self) + s_bytes (self), msg->key, key_size);
        self->has_key = true;
    }
    if (devices_size) {
        memcpy ((char *) s_tail (self) + s_bytes (self), devices,
                devices_size);
        self->has_devices = true;
    }
    self->preemptible = (msg->flags & DROVER_SUBMIT_PREEMPTIBLE) != 0;
    return self;
}

//  Free the record and what hangs off it (its waiters' routes are not
//  released: that is the table's, which knows the registry)
void
drover_taskrecord_destroy (drover_taskrecord_t **self_p)
{
    assert (self_p);
    drover_taskrecord_t *self = *self_p;
    if (!self)
        return;
    if (drover_taskrecord_final (self))
        drover_taskresult_destroy (&self->result);
    else
        drover_waitlist_destroy (&self->waiters);
    free (self->run);
    free (self);
    *self_p = NULL;
}

//  The task's attempt, made on first need
drover_taskrun_t *
drover_taskrecord_run (drover_taskrecord_t *self)
{
    assert (self);
    if (!self->run) {
        self->run = (drover_taskrun_t *) zmalloc (sizeof (drover_taskrun_t));
        self->run->retries_left = drover_taskrecord_retries (self);
    }
    return self->run;
}

//  Tell whether the task is final
bool
drover_taskrecord_final (const drover_taskrecord_t *self)
{
    assert (self);
    return self->state == DROVER_TASK_SUCCEEDED
        || self->state == DROVER_TASK_FAILED
        || self->state == DROVER_TASK_CANCELLED;
}

//  Bytes of body, labels, key and devices (what max-queued-bytes counts;
//  not the rare fields, which are the record's own)
size_t
drover_taskrecord_bytes (const drover_taskrecord_t *self)
{
    assert (self);
    return s_bytes (self);
}

//  The exec body
const byte *
drover_taskrecord_body (const drover_taskrecord_t *self)
{
    assert (self);
    return (const byte *) s_tail (self);
}

//  The bytes of memory demanded
uint64_t
drover_taskrecord_mem (const drover_taskrecord_t *self)
{
    assert (self);
    return s_extra (self).mem;
}

//  The timeout, msec
uint32_t
drover_taskrecord_timeout (const drover_taskrecord_t *self)
{
    assert (self);
    return s_extra (self).timeout;
}

//  The retries asked at submit
uint32_t
drover_taskrecord_retries (const drover_taskrecord_t *self)
{
    assert (self);
    return s_extra (self).retries;
}

//  The own failures still allowed: those asked until an attempt says
uint32_t
drover_taskrecord_retries_left (const drover_taskrecord_t *self)
{
    assert (self);
    return self->run? self->run->retries_left: drover_taskrecord_retries (self);
}

//  No retries asked: the rare fields say 0 (they stay, at their place)
void
drover_taskrecord_clear_retries (drover_taskrecord_t *self)
{
    assert (self);
    if (self->has_extra) {
        s_extra_t extra = s_extra (self);
        extra.retries = 0;
        memcpy (self->data, &extra, sizeof extra);
    }
}

//  The device demand, or ""
const char *
drover_taskrecord_devices (const drover_taskrecord_t *self)
{
    assert (self);
    if (!self->has_devices)
        return "";
    const char *tail = s_tail (self);
    size_t at = self->body_size;
    if (self->has_labels)
        at += strlen (tail + at) + 1;
    if (self->has_key)
        at += strlen (tail + at) + 1;
    return tail + at;
}

//  The submit key, or NULL
const char *
drover_taskrecord_key (const drover_taskrecord_t *self)
{
    assert (self);
    if (!self->has_key)
        return NULL;
    const char *tail = s_tail (self);
    size_t at = self->body_size;
    if (self->has_labels)
        at += strlen (tail + at) + 1;
    return tail + at;
}

//  The labels, or ""
const char *
drover_taskrecord_labels (const drover_taskrecord_t *self)
{
    assert (self);
    return self->has_labels? s_tail (self) + self->body_size: "";
}

//  The worker of the current attempt, else of the last one, else ""
const char *
drover_taskrecord_worker (const drover_taskrecord_t *self)
{
    assert (self);
    if (drover_taskrecord_on (self))
        return self->run->worker->id;
    if (drover_taskrecord_final (self))
        return self->result->worker;
    return "";
}

//  Join the task's argv with spaces, at most SUMMARY_MAX bytes, printable
static char *
s_summary (const drover_taskrecord_t *self, drover_exec_t *exec)
{
    char text [DROVER_ASSIGN_SUMMARY_MAX + 1] = "";
    size_t length = 0;
    const char *error;
    if (drover_exec_decode (exec, drover_taskrecord_body (self), self->body_size, &error) == 0)
        for (uint32_t arg = 0; arg < exec->argc && length < DROVER_ASSIGN_SUMMARY_MAX; arg++) {
            if (arg)
                text [length++] = ' ';
            for (const char *cursor = exec->argv [arg];
                 *cursor && length < DROVER_ASSIGN_SUMMARY_MAX; cursor++)
                text [length++] = (*cursor >= 0x20 && *cursor < 0x7f)? *cursor: '?';
        }
    text [length] = 0;
    return strdup (text);
}

//  One TASK TABLE row
void
drover_taskrecord_row (const drover_taskrecord_t *self, drover_exec_t *exec,
                       drover_task_row_t *row)
{
    assert (self && exec && row);
    row->task = self->id;
    row->state = self->state;
    row->priority = self->priority;
    row->procs = self->procs;
    row->attempt = drover_taskrecord_attempt (self);
    row->end = drover_taskrecord_final (self)? self->result->end: DROVER_END_NONE;
    snprintf (row->worker, sizeof row->worker, "%s", drover_taskrecord_worker (self));
    row->summary = s_summary (self, exec);
}

//  Split a record's "\n"-joined labels into the info
static void
s_labels (const drover_taskrecord_t *task, drover_taskinfo_t *info)
{
    const char *labels = drover_taskrecord_labels (task);
    if (!*labels)
        return;
    info->labels = (char **) zmalloc (DROVER_LABELS_MAX * sizeof (char *));
    while (*labels && info->nlabels < DROVER_LABELS_MAX) {
        size_t length = strcspn (labels, "\n");
        info->labels [info->nlabels++] = strndup (labels, length);
        labels += length + (labels [length] == '\n');
    }
}

//  Copy the command from the task's body: argv, cwd, and the environment's
//  names only (values may be secrets: a token, a password)
static void
s_command (const drover_taskrecord_t *task, drover_exec_t *exec, drover_taskinfo_t *info)
{
    const char *error;
    if (drover_exec_decode (exec, drover_taskrecord_body (task), task->body_size, &error))
        return;                 //  validated at submit: not expected
    info->argv = (char **) zmalloc ((exec->argc + 1) * sizeof (char *));
    for (uint32_t arg = 0; arg < exec->argc; arg++)
        info->argv [info->argc++] = strdup (exec->argv [arg]);
    if (exec->cwd)
        info->cwd = strdup (exec->cwd);
    if (exec->nenv)
        info->env = (char **) zmalloc (exec->nenv * sizeof (char *));
    for (uint32_t entry = 0; entry < exec->nenv; entry++)
        info->env [info->nenv++] = strndup (exec->env [entry], strcspn (exec->env [entry], "="));
    info->input_size = exec->input_size;
}

//  Describe the task's current or last attempt (the one its record holds,
//  not in its history)
static void
s_last_attempt (const drover_taskrecord_t *task, drover_attempt_t *attempt)
{
    memset (attempt, 0, sizeof *attempt);
    attempt->attempt = drover_taskrecord_attempt (task);
    snprintf (attempt->worker, sizeof attempt->worker, "%s", drover_taskrecord_worker (task));
    attempt->offered_at = drover_taskrecord_offered_at (task);
    attempt->started_at = drover_taskrecord_started_at (task);
    attempt->outcome = DROVER_ATTEMPT_NO_RESULT;
    attempt->exit_code = -1;
    if (drover_taskrecord_final (task)) {
        const drover_taskresult_t *result = task->result;
        attempt->ended_at = result->ended_at;
        attempt->outcome = result->outcome;
        attempt->exit_code = result->exit_code;
        attempt->signal = result->signal;
        if (result->reason)
            snprintf (attempt->reason, sizeof attempt->reason, "%s", result->reason);
        else
        if (result->outcome == DROVER_OUTCOME_EXITED)
            snprintf (attempt->reason, sizeof attempt->reason, "exit %d", result->exit_code);
    }
}

//  TASK SHOW's description of the task
drover_taskinfo_t *
drover_taskrecord_info (const drover_taskrecord_t *self, const drover_taskhistory_t *history,
                        const char *owner, drover_exec_t *exec)
{
    assert (self && owner && exec);
    drover_taskinfo_t *info = drover_taskinfo_new ();
    info->task = self->id;
    info->state = self->state;
    snprintf (info->owner, sizeof info->owner, "%s", owner);
    info->priority = self->priority;
    info->procs = self->procs;
    s_extra_t extra = s_extra (self);
    info->mem = extra.mem;
    info->timeout = extra.timeout;
    info->retries = extra.retries;
    info->retries_left = drover_taskrecord_retries_left (self);
    info->lost = drover_taskrecord_lost (self);
    s_labels (self, info);
    s_command (self, exec, info);
    const char *key = drover_taskrecord_key (self);
    if (key)
        info->key = strdup (key);
    info->queued_at = self->queued_at;
    info->started_at = drover_taskrecord_started_at (self);
    info->attempt = drover_taskrecord_attempt (self);
    snprintf (info->worker, sizeof info->worker, "%s", drover_taskrecord_worker (self));
    if (drover_taskrecord_final (self)) {
        const drover_taskresult_t *result = self->result;
        info->end = result->end;
        info->reason = result->reason? strdup (result->reason): NULL;
        info->outcome = result->outcome;
        info->exit_code = result->exit_code;
        info->signal = result->signal;
        info->duration = result->duration;
        info->truncated = result->truncated;
        info->out_size = result->out_size;
        info->err_size = result->err_size;
        info->ended_at = result->ended_at;
    }
    //  The past attempts, then the current or last one if it is not among them
    uint32_t past = history? history->count: 0;
    info->attempts = (drover_attempt_t *) zmalloc ((past + 1) * sizeof (drover_attempt_t));
    for (uint32_t index = 0; index < past; index++)
        info->attempts [info->nattempts++] = history->attempts [index];
    info->dropped = history? history->dropped: 0;
    uint32_t attempt = drover_taskrecord_attempt (self);
    if (attempt > 0 && self->state != DROVER_TASK_QUEUED
    &&  !(past && history->attempts [past - 1].attempt >= attempt))
        s_last_attempt (self, &info->attempts [info->nattempts++]);
    return info;
}
