/*  =========================================================================
    drover_topview - what `drover top` shows, without a terminal: the last
    WORKER TABLE and TASK TABLEs the broker sent, the submit and finish
    rates from one refresh to the next, and the screen laid out as lines
    of text for a width and a height (the tool draws them with ncurses)
    =========================================================================
*/

#ifndef DROVER_TOPVIEW_H_INCLUDED
#define DROVER_TOPVIEW_H_INCLUDED

#include <czmq.h>
#include "drover_msg.h"

typedef struct _drover_topview_t drover_topview_t;

//  How a line is drawn
typedef enum {
    DROVER_TOPVIEW_PLAIN    = 0,        //  a row
    DROVER_TOPVIEW_TITLE    = 1,        //  the header lines
    DROVER_TOPVIEW_COLUMNS  = 2,        //  a pane's column names
    DROVER_TOPVIEW_ALERT    = 3         //  the broker is unreachable
} drover_topview_style_t;

//  Create a view of the broker at endpoint (shown in the header)
drover_topview_t *
    drover_topview_new (const char *endpoint);

//  Destroy the view
void
    drover_topview_destroy (drover_topview_t **self_p);

//  One refresh: the WORKER TABLE, a TASK TABLE of queued tasks (its
//  counts are every task's), and the newest task id the broker gave (0
//  if none listed); the view owns the tables now. now is msec monotonic,
//  wall msec since the epoch. Clears an error.
void
    drover_topview_update (drover_topview_t *self, drover_msg_t **workers_p,
                           drover_msg_t **queued_p, uint64_t newest, int64_t now, int64_t wall);

//  The pool's table of this refresh (POOL TABLE), which the view owns
//  now; NULL (a broker that does not answer POOL LIST) or one whose
//  enabled is 0 shows no pool line
void
    drover_topview_set_pool (drover_topview_t *self, drover_msg_t **pool_p);

//  A refresh that failed: the view keeps the last tables and says why
void
    drover_topview_set_error (drover_topview_t *self, const char *error, int64_t wall);

//  Tasks submitted and finished per second between the last two refreshes
//  (0 before the second): submitted from the newest id, finished as what
//  was submitted less the growth of the tasks not final, so neither is
//  fooled by the broker forgetting finished tasks (keep-finished)
double
    drover_topview_submit_rate (drover_topview_t *self);
double
    drover_topview_finish_rate (drover_topview_t *self);

//  Lay the screen out for width x height; returns the number of lines
//  (at most height), each at most width bytes
size_t
    drover_topview_render (drover_topview_t *self, int width, int height);

//  Line index of the last render, and its style
const char *
    drover_topview_line (drover_topview_t *self, size_t index);
drover_topview_style_t
    drover_topview_style (drover_topview_t *self, size_t index);

#endif
