/*  =========================================================================
    drover_gone - workers that went (lost, or left), kept listed for a while

    Rows are kept in the order the workers went, in a list (the oldest at
    its head: expiring and evicting take from there), and found by id in a
    hash of list nodes.
    =========================================================================
*/

#include "drover_gone.h"

//  One row, owning its strings
typedef struct {
    drover_gone_row_t row;      //  what is shown; its strings point into the fields below
    char *id;                   //  worker id, the hash's key too
    char *why;                  //  why it went
    char *labels;               //  its labels, "k=v" joined by "\n"
} s_row_t;

struct _drover_gone_t {
    zlistx_t *rows;             //  s_row_t, oldest first (owned)
    zhashx_t *index;            //  worker id -> node in rows
    uint64_t keep;              //  msec a row lasts
    size_t max;                 //  rows kept at most
};


//  Free a row; the list's destructor
static void
s_row_destroy (void **item_p)
{
    s_row_t *row = (s_row_t *) *item_p;
    if (row) {
        free (row->id);
        free (row->why);
        free (row->labels);
        free (row);
        *item_p = NULL;
    }
}

//  Copy a string, "" for NULL; never NULL
static char *
s_strdup (const char *text)
{
    char *copy = strdup (text? text: "");
    assert (copy);
    return copy;
}

//  Drop the row at a list node
static void
s_drop (drover_gone_t *self, void *node)
{
    s_row_t *row = (s_row_t *) zlistx_handle_item (node);
    zhashx_delete (self->index, row->id);
    zlistx_delete (self->rows, node);
}

//  Drop the oldest rows past max
static void
s_trim (drover_gone_t *self)
{
    while (zlistx_size (self->rows) > self->max) {
        zlistx_first (self->rows);
        s_drop (self, zlistx_cursor (self->rows));
    }
}

//  Create an empty list
drover_gone_t *
drover_gone_new (uint64_t keep, size_t max)
{
    drover_gone_t *self = (drover_gone_t *) zmalloc (sizeof (drover_gone_t));
    self->rows = zlistx_new ();
    zlistx_set_destructor (self->rows, s_row_destroy);
    self->index = zhashx_new ();
    self->keep = keep;
    self->max = max;
    return self;
}

//  Destroy the list
void
drover_gone_destroy (drover_gone_t **self_p)
{
    assert (self_p);
    drover_gone_t *self = *self_p;
    if (self) {
        zhashx_destroy (&self->index);
        zlistx_destroy (&self->rows);
        free (self);
        *self_p = NULL;
    }
}

//  Change how long rows last and how many are kept
void
drover_gone_set_limits (drover_gone_t *self, uint64_t keep, size_t max)
{
    assert (self);
    self->keep = keep;
    self->max = max;
    s_trim (self);
}

//  Record that a worker went
void
drover_gone_add (drover_gone_t *self, const char *id, int state, const char *why,
                 uint64_t now, uint32_t procs, uint64_t mem, const char *labels)
{
    assert (self);
    assert (id);
    drover_gone_remove (self, id);
    if (self->max == 0)
        return;                 //  nothing is kept
    s_row_t *row = (s_row_t *) zmalloc (sizeof (s_row_t));
    row->id = s_strdup (id);
    row->why = s_strdup (why);
    row->labels = s_strdup (labels);
    row->row.id = row->id;
    row->row.state = state;
    row->row.since = now;
    row->row.why = row->why;
    row->row.procs = procs;
    row->row.mem = mem;
    row->row.labels = row->labels;
    void *node = zlistx_add_end (self->rows, row);
    zhashx_insert (self->index, row->id, node);
    s_trim (self);
}

//  Forget a worker's row
bool
drover_gone_remove (drover_gone_t *self, const char *id)
{
    assert (self);
    void *node = zhashx_lookup (self->index, id);
    if (!node)
        return false;
    s_drop (self, node);
    return true;
}

//  Drop the rows older than keep
size_t
drover_gone_expire (drover_gone_t *self, uint64_t now)
{
    assert (self);
    size_t count = 0;
    s_row_t *row;
    while ((row = (s_row_t *) zlistx_first (self->rows))
    &&     row->row.since + self->keep <= now) {
        s_drop (self, zlistx_cursor (self->rows));
        count++;
    }
    return count;
}

//  Return the row of a worker
const drover_gone_row_t *
drover_gone_lookup (drover_gone_t *self, const char *id)
{
    assert (self);
    void *node = zhashx_lookup (self->index, id);
    return node? &((s_row_t *) zlistx_handle_item (node))->row: NULL;
}

//  Return how many rows are kept
size_t
drover_gone_size (drover_gone_t *self)
{
    assert (self);
    return zlistx_size (self->rows);
}

//  Return the oldest row
const drover_gone_row_t *
drover_gone_first (drover_gone_t *self)
{
    assert (self);
    s_row_t *row = (s_row_t *) zlistx_first (self->rows);
    return row? &row->row: NULL;
}

//  Return the next row
const drover_gone_row_t *
drover_gone_next (drover_gone_t *self)
{
    assert (self);
    s_row_t *row = (s_row_t *) zlistx_next (self->rows);
    return row? &row->row: NULL;
}
