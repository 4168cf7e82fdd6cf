/*  =========================================================================
    drover_groups - arrays and workflows: tasks whose members follow them

    A group is a task of its own (an array's or a workflow's id, G) whose
    members have the next ids, G + 1 .. G + members. The task table holds
    G's record (never queued) and each member's once it is made; this
    class holds what the group counts: members made so far (an array makes
    its elements lazily, at most its limit live at once), live, and ended
    by state. A member's group is found by its id alone (a binary search
    over the groups, kept in id order), so a member carries nothing extra.
    A plain class; no threads, no I/O.
    =========================================================================
*/

#ifndef DROVER_GROUPS_H_INCLUDED
#define DROVER_GROUPS_H_INCLUDED

#include <czmq.h>
#include "drover_msg.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DROVER_GROUPS_WINDOW    10000   //  an array without a limit: elements live at once

//  One group
typedef struct {
    uint64_t id;                //  the group's own id
    uint32_t members;           //  members in all (a workflow: its steps)
    uint32_t span;              //  ids after its own that are its or its members':
                                //  id + 1 .. id + span (a workflow's array steps
                                //  bring their elements)
    uint32_t made;              //  members made so far (a workflow: all, at once)
    uint32_t live;              //  made, not ended
    uint32_t running;           //  members ASSIGNED or RUNNING now
    uint32_t limit;             //  an array: most live at once, 0 none (the window)
    uint32_t first;             //  an array: the first index
    uint32_t step;              //  an array: between indexes
    bool array;                 //  an array (else a workflow)
    bool started;               //  its own wait is over: it may make members
    bool stopped;               //  cancelled or doomed: makes no more
    uint64_t ended [DROVER_TASK_STATES];    //  members ended, by state (those never
                                //  made count CANCELLED)
    uint64_t skipped;           //  of the CANCELLED, those not needed: a clean-up step
                                //  (after-fail) whose parents succeeded
} drover_group_t;

typedef struct _drover_groups_t drover_groups_t;

//  Create an empty set
drover_groups_t *
    drover_groups_new (void);

//  Destroy the set and its groups; harmless on NULL
void
    drover_groups_destroy (drover_groups_t **self_p);

//  Add a group (id not held) of members spanning the next span ids; an
//  array's spec gives first, step and limit (NULL: a workflow). Returns it.
drover_group_t *
    drover_groups_add (drover_groups_t *self, uint64_t id, uint32_t members, uint32_t span,
                       const drover_array_spec_t *array);

//  Return the group whose own id is id, or NULL
drover_group_t *
    drover_groups_lookup (drover_groups_t *self, uint64_t id);

//  Return the group task is a direct member of (the innermost whose span
//  holds it), or NULL
drover_group_t *
    drover_groups_of (drover_groups_t *self, uint64_t task);

//  Forget a group
void
    drover_groups_remove (drover_groups_t *self, uint64_t id);

//  Return the elements of arrays not made yet (waiting for room under
//  their limit, or for their array to start), over every array
uint64_t
    drover_groups_unmade (drover_groups_t *self);

//  Return how many more elements an array may make now (0: a workflow,
//  stopped, not started, all made, or its limit reached)
uint32_t
    drover_groups_room (const drover_group_t *group);

//  Return the highest id of the group's that may be a task held now: an
//  array's last element made (those after it were never made), a
//  workflow's last id (its array steps' elements included)
uint64_t
    drover_groups_last (const drover_group_t *group);

//  Return the index of an array's element task
uint32_t
    drover_groups_index (const drover_group_t *group, uint64_t task);

//  Return the members ended, in all
uint64_t
    drover_groups_ended (const drover_group_t *group);

//  Return the state a group ends in once every member ended: FAILED if any
//  failed, else CANCELLED if any was cancelled (but for those skipped),
//  else SUCCEEDED
int
    drover_groups_outcome (const drover_group_t *group);

#ifdef __cplusplus
}
#endif

#endif
