/*  =========================================================================
    drover_msg_workflow - the fields of workflows (level 3): a TASK
    SUBMIT's after list and array, WORKFLOW SUBMIT's steps, WORKFLOW
    ACCEPTED's step ids (internal)

    Not part of the API: only drover_msg_fields.c includes this, and calls
    these from the message table while packing and reading (fields
    F_AFTER, F_ARRAY, F_STEPS and F_STEP_TASKS). The plain fields of level
    3 (begin, retry delays, a list's group, a workflow's name) are plain
    fields of the table.
    =========================================================================
*/

#ifndef DROVER_MSG_WORKFLOW_H_INCLUDED
#define DROVER_MSG_WORKFLOW_H_INCLUDED

#include "drover_msg.h"
#include "drover_mpack.h"

//  Pack a TASK SUBMIT's after list; step: the submit is a WORKFLOW
//  SUBMIT's step, whose entries may name steps (DROVER_AFTER_STEP). -1 if
//  past the limit, or an entry's kind or task is not valid there.
int
    drover_msg_workflow_pack_after (msgpack_packer *pk, const drover_msg_t *self, bool step);

//  Pack a TASK SUBMIT's array [first, step, count, limit]; -1 if not valid
int
    drover_msg_workflow_pack_array (msgpack_packer *pk, const drover_msg_t *self);

//  Pack WORKFLOW SUBMIT's steps, each [name, the step's TASK SUBMIT encoded
//  whole as a bin]; -1 if a step or name is not valid, or names repeat
int
    drover_msg_workflow_pack_steps (msgpack_packer *pk, const drover_msg_t *self);

//  Pack WORKFLOW ACCEPTED's step ids (self->tasks); -1 if not 1..1000 ids
//  above 0
int
    drover_msg_workflow_pack_step_tasks (msgpack_packer *pk, const drover_msg_t *self);

//  Read a TASK SUBMIT's after list into self->after. Entries naming a
//  step are read here and refused by drover_msg_workflow_check_after
//  outside a step.
bool
    drover_msg_workflow_read_after (drover_mpack_cursor_t *cursor, drover_msg_t *self);

//  Check what only the whole message tells: a TASK SUBMIT's after entries
//  name steps only when it is a step (step true)
bool
    drover_msg_workflow_check_after (drover_mpack_cursor_t *cursor, const drover_msg_t *self,
                                     bool step);

//  Read a TASK SUBMIT's array into self->array
bool
    drover_msg_workflow_read_array (drover_mpack_cursor_t *cursor, drover_msg_t *self);

//  Read WORKFLOW SUBMIT's steps into self->step_names and self->steps
bool
    drover_msg_workflow_read_steps (drover_mpack_cursor_t *cursor, drover_msg_t *self);

//  Read WORKFLOW ACCEPTED's step ids into self->tasks
bool
    drover_msg_workflow_read_step_tasks (drover_mpack_cursor_t *cursor, drover_msg_t *self);

#endif
