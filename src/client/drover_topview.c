/*  =========================================================================
    drover_topview - what `drover top` shows, without a terminal

    The tool asks the broker once a refresh for the WORKER TABLE, the
    queued tasks (a TASK TABLE, whose counts are every task's) and the
    newest task id, and hands them here; render lays out a header (broker,
    time, workers by health, procs, tasks, rates), the workers pane and the
    queue by priority for the terminal's size, as plain lines the tool
    draws. With an elastic pool (POOL TABLE), the header says its
    instances by state and its price per hour. Every decision is here, tested without a terminal.
    =========================================================================
*/

#include "drover_topview.h"
#include <ctype.h>

//  Columns of the panes never wider than this
#define S_ID_WIDTH_MAX      24

struct _drover_topview_t {
    char *endpoint;             //  the broker, for the header
    drover_msg_t *workers;      //  last WORKER TABLE, or NULL
    drover_msg_t *queued;       //  last TASK TABLE of queued tasks, rows by priority, or NULL
    drover_msg_t *pool;         //  last POOL TABLE, or NULL
    int64_t wall;               //  msec since the epoch of the last refresh or error
    char *error;                //  why the last refresh failed, or NULL
    bool measured;              //  a refresh before the last one gave a base for rates
    int64_t then;               //  msec monotonic of the last refresh
    uint64_t newest;            //  newest task id at the last refresh
    uint64_t active;            //  tasks not final at the last refresh
    double submit_rate;         //  tasks submitted per second between the last two
    double finish_rate;         //  tasks finished per second between the last two
    char **lines;               //  the last render's lines, owned
    drover_topview_style_t *styles;     //  their styles
    size_t nlines;              //  lines rendered
    size_t capacity;            //  room in lines
    int width;                  //  bytes per line of the last render
};

//  Create a view
drover_topview_t *
drover_topview_new (const char *endpoint)
{
    drover_topview_t *self = (drover_topview_t *) zmalloc (sizeof (drover_topview_t));
    assert (self);
    self->endpoint = strdup (endpoint? endpoint: "");
    assert (self->endpoint);
    return self;
}

//  Free the lines of a render
static void
s_free_lines (drover_topview_t *self)
{
    for (size_t index = 0; index < self->capacity; index++)
        free (self->lines [index]);
    free (self->lines);
    free (self->styles);
    self->lines = NULL;
    self->styles = NULL;
    self->capacity = self->nlines = 0;
}

//  Destroy the view
void
drover_topview_destroy (drover_topview_t **self_p)
{
    assert (self_p);
    drover_topview_t *self = *self_p;
    if (!self)
        return;
    s_free_lines (self);
    drover_msg_destroy (&self->workers);
    drover_msg_destroy (&self->queued);
    drover_msg_destroy (&self->pool);
    free (self->endpoint);
    free (self->error);
    free (self);
    *self_p = NULL;
}

//  Order queued rows as they run: lower priority first, then older
static int
s_compare_queued (const void *left, const void *right)
{
    const drover_task_row_t *one = (const drover_task_row_t *) left;
    const drover_task_row_t *other = (const drover_task_row_t *) right;
    if (one->priority != other->priority)
        return one->priority < other->priority? -1: 1;
    return one->task < other->task? -1: one->task > other->task;
}

//  Tasks not final in a TASK TABLE's counts
static uint64_t
s_active (const drover_msg_t *table)
{
    return table->counts [DROVER_TASK_QUEUED] + table->counts [DROVER_TASK_ASSIGNED]
         + table->counts [DROVER_TASK_RUNNING];
}

//  One refresh
void
drover_topview_update (drover_topview_t *self, drover_msg_t **workers_p,
                       drover_msg_t **queued_p, uint64_t newest, int64_t now, int64_t wall)
{
    assert (self && workers_p && *workers_p && queued_p && *queued_p);
    drover_msg_destroy (&self->workers);
    drover_msg_destroy (&self->queued);
    self->workers = *workers_p;
    self->queued = *queued_p;
    *workers_p = NULL;
    *queued_p = NULL;
    if (self->queued->nrows)        //  task_rows is NULL without rows
        qsort (self->queued->task_rows, self->queued->nrows, sizeof (drover_task_row_t),
               s_compare_queued);
    uint64_t active = s_active (self->queued);
    //  A newest id going back is another broker (its state wiped): start again
    if (self->measured && now > self->then && newest >= self->newest) {
        double seconds = (now - self->then) / 1000.0;
        double submitted = (double) (newest - self->newest);
        double finished = submitted - ((double) active - (double) self->active);
        self->submit_rate = submitted / seconds;
        self->finish_rate = (finished > 0? finished: 0) / seconds;
    }
    else
        self->submit_rate = self->finish_rate = 0;
    self->measured = true;
    self->then = now;
    self->newest = newest;
    self->active = active;
    self->wall = wall;
    free (self->error);
    self->error = NULL;
}

//  The pool's table of this refresh
void
drover_topview_set_pool (drover_topview_t *self, drover_msg_t **pool_p)
{
    assert (self && pool_p);
    drover_msg_destroy (&self->pool);
    self->pool = *pool_p;
    *pool_p = NULL;
}

//  A refresh that failed
void
drover_topview_set_error (drover_topview_t *self, const char *error, int64_t wall)
{
    assert (self);
    free (self->error);
    self->error = strdup (error && *error? error: "no reply");
    assert (self->error);
    self->wall = wall;
    self->measured = false;         //  rates start again when it answers
    self->submit_rate = self->finish_rate = 0;
}

//  Rates between the last two refreshes
double
drover_topview_submit_rate (drover_topview_t *self)
{
    assert (self);
    return self->submit_rate;
}

double
drover_topview_finish_rate (drover_topview_t *self)
{
    assert (self);
    return self->finish_rate;
}


//  ---------------------------------------------------------------------
//  Layout

//  Add a line, cut to the width, made printable
static void
s_add (drover_topview_t *self, drover_topview_style_t style, const char *format, ...)
{
    if (self->nlines == self->capacity)
        return;
    char *line = self->lines [self->nlines];
    va_list args;
    va_start (args, format);
    vsnprintf (line, (size_t) self->width + 1, format, args);
    va_end (args);
    for (char *cursor = line; *cursor; cursor++)
        if (!isprint ((unsigned char) *cursor))
            *cursor = '?';
    self->styles [self->nlines++] = style;
}

//  Lower-case a name into buffer
static const char *
s_lower (const char *name, char *buffer, size_t size)
{
    size_t index = 0;
    for (; name [index] && index + 1 < size; index++)
        buffer [index] = (char) tolower ((unsigned char) name [index]);
    buffer [index] = 0;
    return buffer;
}

//  The header's pool line: instances by state of the most allowed, the
//  price per hour of its limit, a quota backoff
static void
s_pool_line (drover_topview_t *self)
{
    const drover_pool_summary_t *pool = &self->pool->pool;
    uint32_t states [DROVER_POOL_STATE_MAX + 1] = { 0 };
    for (uint32_t index = 0; index < self->pool->nrows; index++)
        if (self->pool->pool_rows [index].state <= DROVER_POOL_STATE_MAX)
            states [self->pool->pool_rows [index].state]++;
    char limit [32] = "no limit";
    if (pool->max_price > 0)
        snprintf (limit, sizeof limit, "%.2f", pool->max_price);
    s_add (self, DROVER_TOPVIEW_TITLE,
           "pool %u/%u: %u booting, %u idle, %u running, %u unknown, %u shutting down   "
           "price %.2f/%s per hour%s", pool->live, pool->max_instances,
           states [1], states [2], states [3], states [0], states [4], pool->price, limit,
           pool->backoff_until? "   quota backoff": "");
}

//  The header: broker and time, workers, procs, tasks and rates
static void
s_header (drover_topview_t *self)
{
    char when [32] = "-";
    time_t seconds = (time_t) (self->wall / 1000);
    struct tm utc;
    if (self->wall > 0 && gmtime_r (&seconds, &utc))
        strftime (when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &utc);
    s_add (self, DROVER_TOPVIEW_TITLE, "drover top  %s  %s  (q quits)", self->endpoint, when);
    uint64_t health [DROVER_HEALTH_MAX + 1] = { 0 }, admin [DROVER_ADMIN_MAX + 1] = { 0 };
    uint64_t procs = 0, used = 0;
    uint32_t nworkers = self->workers? self->workers->nrows: 0;
    for (uint32_t index = 0; index < nworkers; index++) {
        drover_worker_row_t *row = &self->workers->worker_rows [index];
        if (row->health <= DROVER_HEALTH_MAX)
            health [row->health]++;
        if (row->admin <= DROVER_ADMIN_MAX)
            admin [row->admin]++;
        if (row->health != DROVER_HEALTH_LOST) {
            procs += row->procs;
            used += row->procs_used;
        }
    }
    s_add (self, DROVER_TOPVIEW_TITLE,
           "workers %u: %llu ok, %llu probation, %llu low disk, %llu lost; %llu held, "
           "%llu draining   procs %llu/%llu used", nworkers,
           (unsigned long long) health [DROVER_HEALTH_OK],
           (unsigned long long) health [DROVER_HEALTH_PROBATION],
           (unsigned long long) health [DROVER_HEALTH_LOW_DISK],
           (unsigned long long) health [DROVER_HEALTH_LOST],
           (unsigned long long) admin [DROVER_ADMIN_HOLD],
           (unsigned long long) admin [DROVER_ADMIN_DRAIN],
           (unsigned long long) used, (unsigned long long) procs);
    const uint64_t *counts = self->queued? self->queued->counts: NULL;
    if (counts)
        s_add (self, DROVER_TOPVIEW_TITLE,
               "tasks: %llu queued, %llu assigned, %llu running; %llu succeeded, %llu failed, "
               "%llu cancelled   %.1f submitted/s, %.1f finished/s",
               (unsigned long long) counts [DROVER_TASK_QUEUED],
               (unsigned long long) counts [DROVER_TASK_ASSIGNED],
               (unsigned long long) counts [DROVER_TASK_RUNNING],
               (unsigned long long) counts [DROVER_TASK_SUCCEEDED],
               (unsigned long long) counts [DROVER_TASK_FAILED],
               (unsigned long long) counts [DROVER_TASK_CANCELLED],
               self->submit_rate, self->finish_rate);
    else
        s_add (self, DROVER_TOPVIEW_TITLE, "tasks: -");
    if (self->pool && self->pool->pool.enabled)
        s_pool_line (self);
    if (self->error)
        s_add (self, DROVER_TOPVIEW_ALERT, "broker unreachable: %s (still trying)", self->error);
    else
        s_add (self, DROVER_TOPVIEW_PLAIN, "%s", "");
}

//  The workers pane, in at most rows lines after its column names
static void
s_workers (drover_topview_t *self, size_t rows)
{
    uint32_t nworkers = self->workers? self->workers->nrows: 0;
    int id_width = 6;
    for (uint32_t index = 0; index < nworkers; index++) {
        int length = (int) strlen (self->workers->worker_rows [index].id);
        id_width = length > id_width? length: id_width;
    }
    id_width = id_width > S_ID_WIDTH_MAX? S_ID_WIDTH_MAX: id_width;
    s_add (self, DROVER_TOPVIEW_COLUMNS, "%-*s  %-9s  %-5s  %-9s  %5s  %7s  %s", id_width,
           "WORKER", "HEALTH", "ADMIN", "PROCS", "LOAD", "RUNNING", "PROBATION");
    if (nworkers == 0) {
        s_add (self, DROVER_TOPVIEW_PLAIN, "(no workers)");
        return;
    }
    size_t shown = nworkers <= rows? nworkers: rows > 0? rows - 1: 0;
    for (size_t index = 0; index < shown; index++) {
        drover_worker_row_t *row = &self->workers->worker_rows [index];
        char health [16], admin [16], procs [32];
        s_lower (drover_worker_health_name (row->health), health, sizeof health);
        s_lower (drover_admin_name (row->admin), admin, sizeof admin);
        snprintf (procs, sizeof procs, "%u/%u", row->procs_used, row->procs);
        s_add (self, DROVER_TOPVIEW_PLAIN, "%-*.*s  %-9s  %-5s  %-9s  %5.2f  %7u  %s", id_width,
               id_width, row->id, health, admin, procs, row->stats.load [0], row->stats.running,
               "-");
    }
    if (shown < nworkers)
        s_add (self, DROVER_TOPVIEW_PLAIN, "... %zu more workers", nworkers - shown);
}

//  The queue pane, by priority, in at most rows lines after its title
static void
s_queue (drover_topview_t *self, size_t rows)
{
    uint64_t queued = self->queued? self->queued->counts [DROVER_TASK_QUEUED]: 0;
    uint32_t listed = self->queued? self->queued->nrows: 0;
    s_add (self, DROVER_TOPVIEW_COLUMNS, "%-8s  %6s  %5s  %s   (%llu queued, by priority)",
           "TASK", "PRIO", "PROCS", "COMMAND", (unsigned long long) queued);
    if (listed == 0) {
        s_add (self, DROVER_TOPVIEW_PLAIN, "(nothing queued)");
        return;
    }
    size_t shown = listed <= rows && queued <= listed? listed: rows > 0? rows - 1: 0;
    shown = shown > listed? listed: shown;
    for (size_t index = 0; index < shown; index++) {
        drover_task_row_t *row = &self->queued->task_rows [index];
        s_add (self, DROVER_TOPVIEW_PLAIN, "%-8llu  %6d  %5u  %s", (unsigned long long) row->task,
               row->priority, row->procs, row->summary? row->summary: "");
    }
    if (shown < queued)
        s_add (self, DROVER_TOPVIEW_PLAIN, "... %llu more queued",
               (unsigned long long) (queued - shown));
}

//  Lay the screen out
size_t
drover_topview_render (drover_topview_t *self, int width, int height)
{
    assert (self);
    s_free_lines (self);
    if (width < 1 || height < 1)
        return 0;
    self->width = width;
    self->capacity = (size_t) height;
    self->lines = (char **) zmalloc (self->capacity * sizeof (char *));
    self->styles = (drover_topview_style_t *) zmalloc (self->capacity * sizeof (drover_topview_style_t));
    assert (self->lines && self->styles);
    for (size_t index = 0; index < self->capacity; index++) {
        self->lines [index] = (char *) zmalloc ((size_t) width + 1);
        assert (self->lines [index]);
    }
    s_header (self);
    //  What is left after the header, the two panes' column names and a
    //  blank line between them: the workers take what they need up to
    //  half, the queue the rest
    size_t left = self->capacity > self->nlines + 3? self->capacity - self->nlines - 3: 0;
    uint32_t nworkers = self->workers? self->workers->nrows: 0;
    uint64_t queued = self->queued? self->queued->counts [DROVER_TASK_QUEUED]: 0;
    size_t worker_rows = nworkers? nworkers: 1;
    size_t queue_rows = queued? (size_t) MIN (queued, (uint64_t) SIZE_MAX / 2): 1;
    if (worker_rows + queue_rows > left) {
        size_t half = left / 2 > 0? left / 2: 1;
        size_t spare = left > queue_rows? left - queue_rows: 0;     //  what the queue leaves
        worker_rows = MIN (worker_rows, MAX (half, spare));
    }
    s_workers (self, worker_rows);
    s_add (self, DROVER_TOPVIEW_PLAIN, "%s", "");
    s_queue (self, self->capacity > self->nlines + 1? self->capacity - self->nlines - 1: 0);
    return self->nlines;
}

//  A line of the last render
const char *
drover_topview_line (drover_topview_t *self, size_t index)
{
    assert (self);
    return index < self->nlines? self->lines [index]: NULL;
}

//  Its style
drover_topview_style_t
drover_topview_style (drover_topview_t *self, size_t index)
{
    assert (self);
    return index < self->nlines? self->styles [index]: DROVER_TOPVIEW_PLAIN;
}
