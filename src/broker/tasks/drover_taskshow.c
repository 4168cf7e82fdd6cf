/*  =========================================================================
    drover_taskshow - the task table's answer to TASK SHOW: everything it
    holds about one task, its past attempts included, as a drover_taskinfo

    Part of the task table (drover_assign.h declares these functions;
    drover_assign_internal.h is what the parts share). No threads, no I/O.
    =========================================================================
*/

#include "drover_assign_internal.h"
#include "drover_taskhistory.h"

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
s_command (drover_assign_t *self, const drover_taskrecord_t *task, drover_taskinfo_t *info)
{
    const char *error;
    drover_exec_t *exec = self->exec;
    if (drover_exec_decode (exec, task->data, task->body_size, &error))
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
    attempt->attempt = task->attempt;
    snprintf (attempt->worker, sizeof attempt->worker, "%s", drover_taskrecord_worker (task));
    attempt->offered_at = task->offered_at;
    attempt->started_at = task->started_at;
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

//  TASK SHOW: fill *info_p with what the table holds of the task
int
drover_assign_show (drover_assign_t *self, uint64_t id, drover_taskinfo_t **info_p,
                       const char **reason_p)
{
    assert (self && info_p && reason_p);
    drover_assign_begin (self);
    *info_p = NULL;
    *reason_p = "";
    drover_taskrecord_t *task = drover_assign_lookup (self, id);
    if (!task && id >= 1 && id < self->next_id) {
        //  Given out, and its result no longer kept: as TASK DONE says it
        drover_taskinfo_t *info = drover_taskinfo_new ();
        info->task = id;
        info->state = DROVER_TASK_UNKNOWN;
        info->end = DROVER_END_EXPIRED;
        *info_p = info;
        return DROVER_CODE_OK;
    }
    if (!task) {
        *reason_p = "unknown task";
        return DROVER_CODE_NOT_FOUND;
    }
    drover_taskinfo_t *info = drover_taskinfo_new ();
    info->task = task->id;
    info->state = task->state;
    snprintf (info->owner, sizeof info->owner, "%s", drover_owners_name (self->owners, task->owner));
    info->priority = task->priority;
    info->procs = task->procs;
    info->mem = task->mem;
    info->timeout = task->timeout;
    info->retries = task->retries;
    info->retries_left = task->retries_left;
    info->lost = task->lost;
    s_labels (task, info);
    s_command (self, task, info);
    const char *key = drover_taskrecord_key (task);
    if (key)
        info->key = strdup (key);
    info->queued_at = task->queued_at;
    info->started_at = task->started_at;
    info->attempt = task->attempt;
    snprintf (info->worker, sizeof info->worker, "%s", drover_taskrecord_worker (task));
    if (drover_taskrecord_final (task)) {
        const drover_taskresult_t *result = task->result;
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
    const drover_taskhistory_t *history = task->has_history?
        (const drover_taskhistory_t *) drover_idhash_lookup (self->histories, task->id): NULL;
    uint32_t past = history? history->count: 0;
    info->attempts = (drover_attempt_t *) zmalloc ((past + 1) * sizeof (drover_attempt_t));
    for (uint32_t index = 0; index < past; index++)
        info->attempts [info->nattempts++] = history->attempts [index];
    info->dropped = history? history->dropped: 0;
    if (task->attempt > 0 && task->state != DROVER_TASK_QUEUED
    &&  !(past && history->attempts [past - 1].attempt >= task->attempt))
        s_last_attempt (task, &info->attempts [info->nattempts++]);
    *info_p = info;
    return DROVER_CODE_OK;
}
