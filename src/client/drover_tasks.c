/*  =========================================================================
    drover_tasks - a listing of tasks (see drover_tasks.h)

    Made from a TASK TABLE, which it keeps: its rows' strings are the
    message's own, so a row costs a few words and no copy of text.
    =========================================================================
*/

#include "drover_client_wire.h"

struct _drover_tasks_t {
    drover_msg_t *table;            //  the TASK TABLE, owned
    drover_task_entry_t *rows;      //  table->nrows entries, owned
};

//  Make a listing of a TASK TABLE, which it takes; NULL stays NULL
drover_tasks_t *
drover_tasks_from (drover_msg_t **table_p)
{
    assert (table_p);
    drover_msg_t *table = *table_p;
    *table_p = NULL;
    if (!table)
        return NULL;
    drover_tasks_t *self = (drover_tasks_t *) zmalloc (sizeof (drover_tasks_t));
    self->table = table;
    self->rows = (drover_task_entry_t *) zmalloc ((table->nrows + 1) * sizeof (drover_task_entry_t));
    for (uint32_t index = 0; index < table->nrows; index++) {
        const drover_task_row_t *row = &table->task_rows [index];
        self->rows [index] = (drover_task_entry_t) {
            .task = row->task,
            .state = row->state,
            .end = row->end,
            .priority = row->priority,
            .procs = row->procs,
            .attempt = row->attempt,
            .worker = row->worker,
            .summary = row->summary? row->summary: "",
            .owner = row->owner,
            .reason = row->reason
        };
    }
    return self;
}

//  Destroy a listing
void
drover_tasks_destroy (drover_tasks_t **self_p)
{
    assert (self_p);
    drover_tasks_t *self = *self_p;
    if (self) {
        drover_msg_destroy (&self->table);
        free (self->rows);
        free (self);
        *self_p = NULL;
    }
}

//  Return how many tasks the broker holds in a state
uint64_t
drover_tasks_count (const drover_tasks_t *self, int state)
{
    assert (self);
    if (state < 0 || state >= DROVER_TASK_STATES)
        return 0;
    return self->table->counts [state];
}

//  Return the number of rows
size_t
drover_tasks_size (const drover_tasks_t *self)
{
    assert (self);
    return self->table->nrows;
}

//  Return one row
const drover_task_entry_t *
drover_tasks_row (const drover_tasks_t *self, size_t index)
{
    assert (self);
    return index < self->table->nrows? &self->rows [index]: NULL;
}
