/*  =========================================================================
    drover_taskquery - the task table's queries: TASK LIST (counts per
    state and the newest rows, or the queued ones in the order they will
    run), whether a sender may act on tasks, and one task's fields by id

    Part of the task table (drover_assign.h declares these functions;
    drover_assign_internal.h is what the parts share). No threads, no I/O.
    =========================================================================
*/

#include "drover_assign_internal.h"


//  What TASK LIST asked for
typedef struct {
    int state;                  //  a state, or 255 for any
    int owner;                  //  an owner's index, or -1 for any
    char *const *labels;        //  labels a task must all have ("k=v")
    uint32_t nlabels;           //  how many
} s_listing_t;

//  Tell whether a task has a label: one of its "\n"-joined labels
static bool
s_has_label (const char *labels, const char *label)
{
    size_t length = strlen (label);
    for (const char *cursor = labels; *cursor; ) {
        const char *end = strchr (cursor, '\n');
        size_t size = end? (size_t) (end - cursor): strlen (cursor);
        if (size == length && memcmp (cursor, label, length) == 0)
            return true;
        cursor += size + (end? 1: 0);
    }
    return false;
}

//  Tell whether a task is one TASK LIST asked for
static bool
s_in_listing (const void *item, void *arg)
{
    const s_listing_t *listing = (const s_listing_t *) arg;
    const drover_taskrecord_t *task = (const drover_taskrecord_t *) item;
    if (!((listing->state == 255 || task->state == listing->state)
    &&    (listing->owner == -1 || task->owner == listing->owner)))
        return false;
    for (uint32_t index = 0; index < listing->nlabels; index++)
        if (!s_has_label (drover_taskrecord_labels (task), listing->labels [index]))
            return false;
    return true;
}

//  Order queued tasks as the scheduler places them: priority (lower
//  first), then procs (more first), then id (drover_schedq_ranks_before)
static int
s_run_order (const void *a, const void *b)
{
    const drover_taskrecord_t *one = (const drover_taskrecord_t *) a;
    const drover_taskrecord_t *two = (const drover_taskrecord_t *) b;
    if (one->priority != two->priority)
        return one->priority < two->priority? -1: 1;
    if (one->procs != two->procs)
        return one->procs > two->procs? -1: 1;
    return one->id < two->id? -1: one->id > two->id? 1: 0;
}

//  Tell whether the sender of a request may act on these tasks: an admin
//  on any, anyone else on its own (unknown ids are left to the request,
//  which answers them as it does)
int
drover_assign_check_owner (drover_assign_t *self, const drover_msg_t *request,
                              const uint64_t *tasks, size_t count, const char **reason_p)
{
    assert (self && request);
    if (request->roles & DROVER_ROLE_ADMIN)
        return DROVER_CODE_OK;
    for (size_t index = 0; index < count; index++) {
        drover_taskrecord_t *task = drover_assign_lookup (self, tasks [index]);
        if (task && !streq (drover_owners_name (self->owners, task->owner), request->principal)) {
            snprintf (self->reason, sizeof self->reason,
                      "task %" PRIu64 " belongs to another key", tasks [index]);
            *reason_p = self->reason;
            return DROVER_CODE_FORBIDDEN;
        }
    }
    return DROVER_CODE_OK;
}

//  TASK LIST: counts per state and the newest rows
void
drover_assign_list (drover_assign_t *self, uint8_t state, uint32_t limit,
                       const char *owner, char *const *labels, uint32_t nlabels,
                       drover_msg_t *table)
{
    assert (self && table);
    drover_assign_begin (self);
    for (int index = 0; index < DROVER_TASK_STATES; index++)
        table->counts [index] = self->counts [index];
    size_t wanted = limit < DROVER_ROWS_MAX? limit: DROVER_ROWS_MAX;
    if (wanted == 0 || drover_idhash_size (self->tasks) == 0)
        return;
    void **newest = (void **) malloc (wanted * sizeof (void *));
    assert (newest);
    s_listing_t listing = { state, owner? drover_owners_index (self->owners, owner): -1,
                            labels, nlabels };
    //  Queued tasks in the order they will run; any other listing newest first
    size_t count = state == DROVER_TASK_QUEUED?
        drover_idhash_first (self->tasks, newest, wanted, s_in_listing, &listing, s_run_order):
        drover_idhash_newest (self->tasks, newest, wanted, s_in_listing, &listing);
    if (count)
        table->task_rows = (drover_task_row_t *) zmalloc (count * sizeof (drover_task_row_t));
    table->nrows = (uint32_t) count;
    for (size_t index = 0; index < count; index++) {
        drover_taskrecord_t *task = (drover_taskrecord_t *) newest [index];
        drover_taskrecord_row (task, self->exec, &table->task_rows [index]);
        snprintf (table->task_rows [index].owner, sizeof table->task_rows [index].owner, "%s",
                  drover_owners_name (self->owners, task->owner));
    }
    free (newest);
}

//  Return a task's owner, "" if none or unknown
const char *
drover_assign_owner (drover_assign_t *self, uint64_t id)
{
    assert (self);
    drover_taskrecord_t *task = drover_assign_lookup (self, id);
    return task? drover_owners_name (self->owners, task->owner): "";
}

//  Return a task's state, or DROVER_TASK_UNKNOWN
int
drover_assign_state (drover_assign_t *self, uint64_t id)
{
    assert (self);
    drover_taskrecord_t *task = drover_assign_lookup (self, id);
    return task? task->state: DROVER_TASK_UNKNOWN;
}

//  Return a task's current attempt number
uint32_t
drover_assign_attempt (drover_assign_t *self, uint64_t id)
{
    assert (self);
    drover_taskrecord_t *task = drover_assign_lookup (self, id);
    return task? task->attempt: 0;
}

//  Return the worker of a task's current or last attempt, or ""
const char *
drover_assign_worker (drover_assign_t *self, uint64_t id)
{
    assert (self);
    drover_taskrecord_t *task = drover_assign_lookup (self, id);
    return task? drover_taskrecord_worker (task): "";
}

//  Get a task's wall-clock times: submitted, started, ended
int
drover_assign_times (drover_assign_t *self, uint64_t id, int64_t *queued_p,
                        int64_t *started_p, int64_t *ended_p)
{
    assert (self && queued_p && started_p && ended_p);
    drover_taskrecord_t *task = drover_assign_lookup (self, id);
    if (!task)
        return -1;
    *queued_p = task->queued_at;
    *started_p = task->started_at;
    *ended_p = drover_taskrecord_final (task)? task->result->ended_at: 0;
    return 0;
}

//  Encode a task's past attempts, or NULL if it has none
byte *
drover_assign_history (drover_assign_t *self, uint64_t id, size_t *size_p)
{
    assert (self && size_p);
    drover_taskrecord_t *task = drover_assign_lookup (self, id);
    if (!task || !task->has_history)
        return NULL;
    drover_taskhistory_t *history = (drover_taskhistory_t *)
        drover_idhash_lookup (self->histories, id);
    return history? drover_taskhistory_encode (history, size_p): NULL;
}

//  Return how many tasks the table holds in one state
uint64_t
drover_assign_count (drover_assign_t *self, int state)
{
    assert (self);
    return state >= 0 && state < DROVER_TASK_STATES? self->counts [state]: 0;
}

//  Return how many tasks the table holds in all
size_t
drover_assign_size (drover_assign_t *self)
{
    assert (self);
    return drover_idhash_size (self->tasks);
}
