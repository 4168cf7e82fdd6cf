/*  =========================================================================
    drover_deps - the dependency graph: which tasks wait for which parents

    A child is added with its after list (drover_after_t: a kind and a
    parent id each) once, when it is submitted; its parents exist already,
    so the graph has no cycles. It counts the parents that have not ended;
    each parent keeps the list of its children, so that a parent's end
    touches only its own children: O(children), never a scan. A parent's
    end that fails a child's kind (under AFTER_OK a parent that did not
    succeed, under AFTER_FAIL one that did) dooms the child at once; the
    last parent's end that fails nothing releases it. The caller ends a
    doomed child and tells the graph in turn (drover_deps_ended), so a
    cascade is a loop in the caller, never a recursion here.

    Entries stay after a child is released or doomed, for TASK SHOW (its
    parents, a parent's children), until the caller forgets the task.
    A plain class; no threads, no I/O.
    =========================================================================
*/

#ifndef DROVER_DEPS_H_INCLUDED
#define DROVER_DEPS_H_INCLUDED

#include <czmq.h>
#include "drover_msg.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_deps_t drover_deps_t;

//  What became of a child
typedef enum {
    DROVER_DEPS_WAITS    = 0,           //  some parents have not ended
    DROVER_DEPS_RELEASED = 1,           //  every parent ended as its kind asks
    DROVER_DEPS_DOOMED   = 2            //  a parent ended as its kind forbids
} drover_deps_verdict_t;

//  The state of a parent now (drover_task_state_t; UNKNOWN: not held)
typedef int (drover_deps_state_fn) (void *arg, uint64_t parent);

//  Told of a child released or doomed by a parent's end (blame: the
//  parent, and the state it ended in)
typedef void (drover_deps_fn) (void *arg, uint64_t child, int verdict, uint64_t blame,
                               int blame_state);

//  Create an empty graph
drover_deps_t *
    drover_deps_new (void);

//  Destroy the graph; harmless on NULL
void
    drover_deps_destroy (drover_deps_t **self_p);

//  Tell whether a parent in state satisfies kind (state final), or dooms
//  the child (returns -1), or neither yet (0: not final); 1 satisfied
int
    drover_deps_judge (int kind, int state);

//  Add child (not held yet) waiting for the count parents of after (kinds
//  without DROVER_AFTER_STEP); state says each parent's state now. Returns
//  the verdict: WAITS, or RELEASED / DOOMED at once (with *blame_p and
//  *blame_state_p for DOOMED). The entry is kept whatever the verdict.
int
    drover_deps_add (drover_deps_t *self, uint64_t child, const drover_after_t *after,
                     size_t count, drover_deps_state_fn *state, void *arg,
                     uint64_t *blame_p, int *blame_state_p);

//  Parent ended in state (final): each of its children still waiting
//  counts it; those it releases or dooms are told to fn, in the order
//  they were added. O(its children).
void
    drover_deps_ended (drover_deps_t *self, uint64_t parent, int state,
                       drover_deps_fn *fn, void *arg);

//  Tell whether child waits for parents still
bool
    drover_deps_waits (drover_deps_t *self, uint64_t child);

//  Return a child's after list (and its size in *count_p), or NULL if the
//  task has none (borrowed, until the task is forgotten)
const drover_after_t *
    drover_deps_parents (drover_deps_t *self, uint64_t child, size_t *count_p);

//  Fill children with up to max of a parent's children, in the order they
//  were added; returns how many it has in all
size_t
    drover_deps_children (drover_deps_t *self, uint64_t parent, uint64_t *children,
                          size_t max);

//  Forget a task: its entry as a child and its list as a parent
void
    drover_deps_forget (drover_deps_t *self, uint64_t task);

//  Return how many children wait now
size_t
    drover_deps_waiting (drover_deps_t *self);

#ifdef __cplusplus
}
#endif

#endif
