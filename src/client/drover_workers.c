/*  =========================================================================
    drover_workers - a listing of workers (see drover_workers.h)

    Made from a WORKER TABLE, which it keeps: its rows' strings are the
    message's own, so a row costs a few words and no copy of text.
    =========================================================================
*/

#include "drover_client_wire.h"

struct _drover_workers_t {
    drover_msg_t *table;            //  the WORKER TABLE, owned
    drover_worker_entry_t *rows;    //  table->nrows entries, owned
};

//  Fill one entry from a WORKER TABLE row (strings borrowed from it)
static void
s_entry_fill (drover_worker_entry_t *entry, const drover_worker_row_t *row)
{
    *entry = (drover_worker_entry_t) {
        .id = row->id,
        .state = row->state,
        .health = row->health,
        .admin = row->admin,
        .procs = row->procs,
        .procs_used = row->procs_used,
        .mem = row->mem,
        .mem_used = row->mem_used,
        .tasks = row->tasks,
        .nlabels = row->nlabels,
        .labels = (const char *const *) row->labels,
        .load = { row->stats.load [0], row->stats.load [1], row->stats.load [2] },
        .machine_mem = row->stats.mem_total,
        .machine_mem_used = row->stats.mem_used,
        .disk_used = row->stats.disk_used,
        .disk_total = row->stats.disk_total,
        .running = row->stats.running,
        .reserved = row->reserved,
        .since = row->since,
        .why = row->why? row->why: "",
        .admin_reason = row->admin_reason? row->admin_reason: "",
        .admin_since = row->admin_since,
        .probation_until = row->probation_until,
        .release = row->release,
        .devices = row->devices? row->devices: "",
        .devices_used = row->devices_used? row->devices_used: ""
    };
}

//  Make a listing of a WORKER TABLE, which it takes; NULL stays NULL
drover_workers_t *
drover_workers_from (drover_msg_t **table_p)
{
    assert (table_p);
    drover_msg_t *table = *table_p;
    *table_p = NULL;
    if (!table)
        return NULL;
    drover_workers_t *self = (drover_workers_t *) zmalloc (sizeof (drover_workers_t));
    self->table = table;
    self->rows = (drover_worker_entry_t *) zmalloc ((table->nrows + 1)
                                                    * sizeof (drover_worker_entry_t));
    for (uint32_t index = 0; index < table->nrows; index++)
        s_entry_fill (&self->rows [index], &table->worker_rows [index]);
    return self;
}

//  Destroy a listing
void
drover_workers_destroy (drover_workers_t **self_p)
{
    assert (self_p);
    drover_workers_t *self = *self_p;
    if (self) {
        drover_msg_destroy (&self->table);
        free (self->rows);
        free (self);
        *self_p = NULL;
    }
}

//  Return the number of rows
size_t
drover_workers_size (const drover_workers_t *self)
{
    assert (self);
    return self->table->nrows;
}

//  Return one row
const drover_worker_entry_t *
drover_workers_row (const drover_workers_t *self, size_t index)
{
    assert (self);
    return index < self->table->nrows? &self->rows [index]: NULL;
}
