/*  =========================================================================
    drover_explain - why a queued task waits and what would unblock it, as
    the scheduling queue sees it

    Asked, never per pass: an explanation costs one look at every worker
    and every queued request, paid only by whoever asks (drover explain,
    the REASON column of drover tasks). It reads drover_schedq through its
    public views only. Plain functions on a drover_schedq_t: no state of
    their own, no threads, no I/O, no clock.
    =========================================================================
*/

#ifndef DROVER_EXPLAIN_H_INCLUDED
#define DROVER_EXPLAIN_H_INCLUDED

#include "drover_schedq.h"

#ifdef __cplusplus
extern "C" {
#endif

//  Explain why a queued task waits, into whys (room for DROVER_WHYS_MAX):
//  first its place in the queue (AHEAD), then, for each group of workers
//  that give the same first reason they cannot take it, one item (how
//  many, a few names, the numbers), then the verdict: what would unblock
//  it (PROTOCOL.md §7.25). Returns how many items, or -1 if the task is
//  not queued.
int
    drover_explain_task (drover_schedq_t *sched, uint64_t task, drover_why_t *whys);

//  Fill the reason of each QUEUED row (a TASK TABLE's) with the short form
//  of its explanation (drover_why_short); rows of tasks not queued here
//  are left as they are
void
    drover_explain_annotate (drover_schedq_t *sched, drover_task_row_t *rows, size_t nrows);

#ifdef __cplusplus
}
#endif

#endif
