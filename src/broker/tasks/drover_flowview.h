/*  =========================================================================
    drover_flowview - what the flow says of a task, for those who ask

    The words and fields that tell what a task waits for before the queue,
    read from a drover_flow: a task.waiting event's reason, a TASK TABLE
    row's waits, group and parents, a TASK INFO's workflow keys, a TASK
    EXPLANATION's items (codes 60-64), and a change's fields for the
    store. The states of other tasks come from the caller (the task
    table) through a drover_deps_state_fn. Read only; no threads, no I/O.
    =========================================================================
*/

#ifndef DROVER_FLOWVIEW_H_INCLUDED
#define DROVER_FLOWVIEW_H_INCLUDED

#include "drover_flow.h"
#include "drover_taskinfo.h"

#ifdef __cplusplus
extern "C" {
#endif

//  Write why a held task waits, for its task.waiting event: "after 12,14"
//  (the parents not ended yet), "begin until 2026-12-06T02:00:00Z", ...
void
    drover_flowview_held (drover_flow_t *flow, uint64_t task, drover_deps_state_fn *state,
                          void *arg, char *text, size_t size);

//  Fill a TASK TABLE row's workflow elements: waits, group, parents
void
    drover_flowview_row (drover_flow_t *flow, drover_task_row_t *row);

//  Fill a TASK INFO's workflow keys (its task is info->task)
void
    drover_flowview_info (drover_flow_t *flow, drover_taskinfo_t *info,
                          drover_deps_state_fn *state, void *arg);

//  Fill reply's explanation items for a task held back (attempt: its
//  next attempt's number, of attempts in all) or a group's own id, and
//  return true; false if the flow neither holds it nor has it as a group
bool
    drover_flowview_explain (drover_flow_t *flow, uint64_t task, uint32_t attempt,
                             uint32_t attempts, drover_msg_t *reply,
                             drover_deps_state_fn *state, void *arg);

//  Fill a change's workflow fields: why the task is held (drover_waits_t)
//  and until when, its group, and (a group's own id) the members it made
void
    drover_flowview_fields (drover_flow_t *flow, uint64_t task, uint8_t *waits_p,
                            int64_t *due_p, uint64_t *group_p, uint32_t *made_p);

#ifdef __cplusplus
}
#endif

#endif
