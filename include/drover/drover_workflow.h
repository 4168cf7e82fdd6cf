/*  =========================================================================
    drover_workflow - a graph of named steps to submit in one request

    Each step is a submit (its command and options) with a name; a step may
    wait for other steps of the same workflow (drover_workflow_after) as
    well as for tasks already submitted (drover_submit_add_after). The
    broker accepts the whole graph or none of it (WORKFLOW SUBMIT), gives
    every step a task id and the workflow an id of its own: waiting on the
    workflow's id waits for every step. Needs a broker of level 3.
    =========================================================================
*/

#ifndef DROVER_WORKFLOW_H_INCLUDED
#define DROVER_WORKFLOW_H_INCLUDED

#include "drover_submit.h"
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_workflow_t drover_workflow_t;

//  Create an empty workflow named name (shown as its summary; NULL:
//  "workflow"); NULL if name is not 1..64 printable bytes without spaces
drover_workflow_t *
    drover_workflow_new (const char *name);

//  Destroy a workflow and its steps; harmless on NULL
void
    drover_workflow_destroy (drover_workflow_t **self_p);

//  Add a step named name (1..64 printable bytes, no space) that runs
//  *submit_p (taken: NULL after). Returns its index, from 1, or -1 if the
//  name is not one or is taken, or past 1000 steps (*submit_p is then
//  left to the caller).
int
    drover_workflow_add (drover_workflow_t *self, const char *name, drover_submit_t **submit_p);

//  Return the index of the step named name, or 0 if there is none
int
    drover_workflow_find (drover_workflow_t *self, const char *name);

//  Return the steps in the workflow
size_t
    drover_workflow_size (drover_workflow_t *self);

//  Return the name of step index (from 1), or NULL
const char *
    drover_workflow_name (drover_workflow_t *self, int step);

//  Make step wait for step parent, with kind (DROVER_AFTER_OK, _ANY,
//  _FAIL). Returns 0, or -1 if either is not a step, they are the same,
//  or the step has 1024 parents already.
int
    drover_workflow_after (drover_workflow_t *self, int step, int kind, int parent);

//  Return the workflow's own name (its group's summary)
const char *
    drover_workflow_title (drover_workflow_t *self);

//  Return the submit of step index (from 1), borrowed, or NULL: set its
//  options, or add tasks it waits for (drover_submit_add_after), here
drover_submit_t *
    drover_workflow_submit (drover_workflow_t *self, int step);

//  Check the graph: returns 0, or -1 with why in error (size bytes) if a
//  cycle joins some steps (named in the text)
int
    drover_workflow_check (drover_workflow_t *self, char *error, size_t size);

//  Return a step of the cycle the last check found (the first in step
//  order), to say where it is; 0 if the last check found none
int
    drover_workflow_cycle_step (drover_workflow_t *self);

#ifdef __cplusplus
}
#endif

#endif
