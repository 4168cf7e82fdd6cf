/*  =========================================================================
    drover_deps - the dependency graph: which tasks wait for which parents

    Two hashes by id (drover_idhash): children, each with its after list
    and how many of its parents have not ended; parents, each with the
    ids of its children, in the order they were added. A parent listed
    twice in one after list is counted twice, and judged twice.
    =========================================================================
*/

#include "drover_deps.h"
#include "drover_idhash.h"

//  A child: its after list, and what is left of it
typedef struct {
    uint64_t id;                //  the child's id (first: drover_idhash)
    uint32_t count;             //  entries in after
    uint32_t unmet;             //  entries whose parent has not ended
    uint8_t verdict;            //  drover_deps_verdict_t
    drover_after_t after [];    //  its after list
} s_child_t;

//  A parent: its children's ids
typedef struct {
    uint64_t id;                //  the parent's id (first: drover_idhash)
    uint32_t size;              //  children listed
    uint32_t capacity;          //  room in children
    uint64_t *children;         //  their ids, owned
} s_parent_t;

struct _drover_deps_t {
    drover_idhash_t *children;  //  id -> s_child_t
    drover_idhash_t *parents;   //  id -> s_parent_t
    size_t waiting;             //  children whose verdict is WAITS
};


//  --------------------------------------------------------------------------
//  Create an empty graph

drover_deps_t *
drover_deps_new (void)
{
    drover_deps_t *self = (drover_deps_t *) zmalloc (sizeof (drover_deps_t));
    self->children = drover_idhash_new ();
    self->parents = drover_idhash_new ();
    return self;
}


//  Free every item a hash holds, with free_fn
static void
s_free_all (drover_idhash_t *hash, void (*free_fn) (void *))
{
    for (size_t index = 0; index < drover_idhash_slots (hash); index++) {
        void *item = drover_idhash_slot (hash, index);
        if (item)
            free_fn (item);
    }
}

//  Free a parent and its list
static void
s_parent_free (void *item)
{
    s_parent_t *parent = (s_parent_t *) item;
    free (parent->children);
    free (parent);
}


//  --------------------------------------------------------------------------
//  Destroy the graph; harmless on NULL

void
drover_deps_destroy (drover_deps_t **self_p)
{
    assert (self_p);
    drover_deps_t *self = *self_p;
    if (!self)
        return;
    s_free_all (self->children, free);
    s_free_all (self->parents, s_parent_free);
    drover_idhash_destroy (&self->children);
    drover_idhash_destroy (&self->parents);
    free (self);
    *self_p = NULL;
}


//  --------------------------------------------------------------------------
//  Judge a parent's state against a kind: 1 satisfied, -1 doomed, 0 not
//  final yet

int
drover_deps_judge (int kind, int state)
{
    if (state == DROVER_TASK_QUEUED || state == DROVER_TASK_ASSIGNED
    ||  state == DROVER_TASK_RUNNING)
        return 0;
    if (state == DROVER_TASK_UNKNOWN)
        return -1;              //  its outcome cannot be known
    bool succeeded = state == DROVER_TASK_SUCCEEDED;
    if (kind == DROVER_AFTER_OK)
        return succeeded? 1: -1;
    if (kind == DROVER_AFTER_FAIL)
        return succeeded? -1: 1;
    return 1;                   //  AFTER_ANY: ended, however
}

//  List child under parent's children
static void
s_list_child (drover_deps_t *self, uint64_t parent_id, uint64_t child)
{
    s_parent_t *parent = (s_parent_t *) drover_idhash_lookup (self->parents, parent_id);
    if (!parent) {
        parent = (s_parent_t *) zmalloc (sizeof (s_parent_t));
        parent->id = parent_id;
        drover_idhash_insert (self->parents, parent);
    }
    if (parent->size > 0 && parent->children [parent->size - 1] == child)
        return;                 //  listed twice in one after list: once here
    if (parent->size == parent->capacity) {
        parent->capacity = parent->capacity? parent->capacity * 2: 4;
        parent->children = (uint64_t *) realloc (parent->children,
                                                 parent->capacity * sizeof (uint64_t));
        assert (parent->children);
    }
    parent->children [parent->size++] = child;
}


//  --------------------------------------------------------------------------
//  Add a child waiting for its after list; returns its verdict now

int
drover_deps_add (drover_deps_t *self, uint64_t child_id, const drover_after_t *after,
                 size_t count, drover_deps_state_fn *state, void *arg,
                 uint64_t *blame_p, int *blame_state_p)
{
    assert (self && after && count > 0 && state && blame_p && blame_state_p);
    assert (!drover_idhash_lookup (self->children, child_id));
    s_child_t *child = (s_child_t *) zmalloc (sizeof (s_child_t)
                                              + count * sizeof (drover_after_t));
    child->id = child_id;
    child->count = (uint32_t) count;
    memcpy (child->after, after, count * sizeof (drover_after_t));
    drover_idhash_insert (self->children, child);
    *blame_p = 0;
    *blame_state_p = 0;
    bool doomed = false;
    for (size_t index = 0; index < count && !doomed; index++) {
        int now = state (arg, after [index].task);
        int judged = drover_deps_judge (after [index].kind, now);
        if (judged < 0) {
            doomed = true;
            *blame_p = after [index].task;
            *blame_state_p = now;
        }
        else
        if (judged == 0)
            child->unmet++;
    }
    for (size_t index = 0; index < count; index++)
        s_list_child (self, after [index].task, child_id);     //  for TASK SHOW too
    if (doomed) {
        child->verdict = DROVER_DEPS_DOOMED;
        child->unmet = 0;
        return DROVER_DEPS_DOOMED;
    }
    if (child->unmet == 0) {
        child->verdict = DROVER_DEPS_RELEASED;
        return DROVER_DEPS_RELEASED;
    }
    child->verdict = DROVER_DEPS_WAITS;
    self->waiting++;
    return DROVER_DEPS_WAITS;
}


//  --------------------------------------------------------------------------
//  A parent ended: count it for each child still waiting, telling fn of
//  those it releases or dooms

void
drover_deps_ended (drover_deps_t *self, uint64_t parent_id, int state,
                   drover_deps_fn *fn, void *arg)
{
    assert (self && fn);
    s_parent_t *parent = (s_parent_t *) drover_idhash_lookup (self->parents, parent_id);
    if (!parent)
        return;
    for (uint32_t index = 0; index < parent->size; index++) {
        s_child_t *child = (s_child_t *) drover_idhash_lookup (self->children,
                                                               parent->children [index]);
        if (!child || child->verdict != DROVER_DEPS_WAITS)
            continue;           //  forgotten, or decided by another parent
        bool doomed = false;
        for (uint32_t entry = 0; entry < child->count && !doomed; entry++)
            if (child->after [entry].task == parent_id) {
                if (drover_deps_judge (child->after [entry].kind, state) < 0)
                    doomed = true;
                else
                    child->unmet--;
            }
        if (!doomed && child->unmet > 0)
            continue;
        child->verdict = doomed? DROVER_DEPS_DOOMED: DROVER_DEPS_RELEASED;
        self->waiting--;
        fn (arg, child->id, child->verdict, parent_id, state);
    }
}


//  --------------------------------------------------------------------------
//  Tell whether child waits for parents still

bool
drover_deps_waits (drover_deps_t *self, uint64_t child_id)
{
    assert (self);
    s_child_t *child = (s_child_t *) drover_idhash_lookup (self->children, child_id);
    return child && child->verdict == DROVER_DEPS_WAITS;
}


//  --------------------------------------------------------------------------
//  Return a child's after list, or NULL if it has none

const drover_after_t *
drover_deps_parents (drover_deps_t *self, uint64_t child_id, size_t *count_p)
{
    assert (self && count_p);
    s_child_t *child = (s_child_t *) drover_idhash_lookup (self->children, child_id);
    *count_p = child? child->count: 0;
    return child? child->after: NULL;
}


//  --------------------------------------------------------------------------
//  Fill children with up to max of a parent's children; returns how many
//  it has in all

size_t
drover_deps_children (drover_deps_t *self, uint64_t parent_id, uint64_t *children, size_t max)
{
    assert (self);
    s_parent_t *parent = (s_parent_t *) drover_idhash_lookup (self->parents, parent_id);
    if (!parent)
        return 0;
    for (size_t index = 0; index < parent->size && index < max; index++)
        children [index] = parent->children [index];
    return parent->size;
}


//  --------------------------------------------------------------------------
//  Forget a task, as a child and as a parent

void
drover_deps_forget (drover_deps_t *self, uint64_t task)
{
    assert (self);
    s_child_t *child = (s_child_t *) drover_idhash_lookup (self->children, task);
    if (child) {
        if (child->verdict == DROVER_DEPS_WAITS)
            self->waiting--;
        drover_idhash_delete (self->children, child);
        free (child);
    }
    s_parent_t *parent = (s_parent_t *) drover_idhash_lookup (self->parents, task);
    if (parent) {
        drover_idhash_delete (self->parents, parent);
        s_parent_free (parent);
    }
}


//  --------------------------------------------------------------------------
//  Return how many children wait now

size_t
drover_deps_waiting (drover_deps_t *self)
{
    assert (self);
    return self->waiting;
}
