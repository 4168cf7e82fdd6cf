/*  =========================================================================
    drover_workflow - a graph of named steps to submit in one request (see
    drover_workflow.h)

    Each step is its name and its TASK SUBMIT (drover_client_wire.h). A
    step that waits for another step says so in its own after list, as the
    wire has it: kind | DROVER_AFTER_STEP and the other step's index, from
    1; entries without the bit name tasks already submitted. So a step's
    submit is sent as it is, in WORKFLOW SUBMIT's steps, with no copy.

    The check walks the steps depth first (edges from a step to the steps
    it waits for) and stops at the first edge back to a step still on the
    walk's path: the path from there is the cycle, which it names.
    =========================================================================
*/

#include "drover_client_wire.h"

//  One step
typedef struct {
    char *name;                 //  the step's name, owned
    drover_msg_t *submit;       //  its TASK SUBMIT, owned
} s_step_t;

struct _drover_workflow_t {
    char *title;                //  the workflow's name, owned
    s_step_t *steps;            //  steps [0] is step 1, owned
    size_t count;               //  steps
    size_t capacity;            //  room in steps
    zhashx_t *index;            //  step name -> its index (from 1), as a pointer value
    int cycle_step;             //  a step of the cycle the last check found, 0 none
};

//  Check a name: 1..64 printable bytes, no space
static bool
s_name_valid (const char *name)
{
    size_t length = strnlen (name, DROVER_ID_MAX + 1);
    if (length < 1 || length > DROVER_ID_MAX)
        return false;
    for (size_t at = 0; at < length; at++)
        if ((byte) name [at] <= 0x20 || (byte) name [at] > 0x7e)
            return false;
    return true;
}

//  Create an empty workflow
drover_workflow_t *
drover_workflow_new (const char *name)
{
    if (!name)
        name = "workflow";
    if (!s_name_valid (name))
        return NULL;
    drover_workflow_t *self = (drover_workflow_t *) zmalloc (sizeof (drover_workflow_t));
    self->title = strdup (name);
    self->index = zhashx_new ();
    assert (self->title && self->index);
    return self;
}

//  Destroy a workflow and its steps
void
drover_workflow_destroy (drover_workflow_t **self_p)
{
    assert (self_p);
    drover_workflow_t *self = *self_p;
    if (!self)
        return;
    for (size_t at = 0; at < self->count; at++) {
        free (self->steps [at].name);
        drover_msg_destroy (&self->steps [at].submit);
    }
    free (self->steps);
    zhashx_destroy (&self->index);
    free (self->title);
    free (self);
    *self_p = NULL;
}

//  Add a step that runs *submit_p
int
drover_workflow_add (drover_workflow_t *self, const char *name, drover_submit_t **submit_p)
{
    assert (self);
    assert (submit_p && *submit_p);
    if (!name || !s_name_valid (name) || zhashx_lookup (self->index, name)
    ||  self->count >= DROVER_STEPS_MAX)
        return -1;              //  *submit_p stays the caller's
    if (self->count == self->capacity) {
        self->capacity = self->capacity? self->capacity * 2: 16;
        self->steps = (s_step_t *) realloc (self->steps, self->capacity * sizeof (s_step_t));
        assert (self->steps);
    }
    s_step_t *step = &self->steps [self->count++];
    step->name = strdup (name);
    assert (step->name);
    step->submit = drover_submit_msg (*submit_p);
    *submit_p = NULL;
    zhashx_insert (self->index, name, (void *) (uintptr_t) self->count);
    return (int) self->count;
}

//  Return the index of the step named name, or 0
int
drover_workflow_find (drover_workflow_t *self, const char *name)
{
    assert (self);
    if (!name)
        return 0;
    return (int) (uintptr_t) zhashx_lookup (self->index, name);
}

//  Return the steps in the workflow
size_t
drover_workflow_size (drover_workflow_t *self)
{
    assert (self);
    return self->count;
}

//  Return the name of a step, or NULL
const char *
drover_workflow_name (drover_workflow_t *self, int step)
{
    assert (self);
    if (step < 1 || (size_t) step > self->count)
        return NULL;
    return self->steps [step - 1].name;
}

//  Return the workflow's own name
const char *
drover_workflow_title (drover_workflow_t *self)
{
    assert (self);
    return self->title;
}

//  Return the submit of a step, or NULL
drover_submit_t *
drover_workflow_submit (drover_workflow_t *self, int step)
{
    assert (self);
    if (step < 1 || (size_t) step > self->count)
        return NULL;
    return drover_submit_of (self->steps [step - 1].submit);
}

//  Make step wait for step parent
int
drover_workflow_after (drover_workflow_t *self, int step, int kind, int parent)
{
    assert (self);
    if (step < 1 || (size_t) step > self->count || parent < 1 || (size_t) parent > self->count
    ||  step == parent || kind < 0 || kind > DROVER_AFTER_KIND_MAX)
        return -1;
    return drover_submit_append_after (self->steps [step - 1].submit,
                                       (uint8_t) (kind | DROVER_AFTER_STEP), (uint64_t) parent);
}


//  ---------------------------------------------------------------------
//  The check

//  The walk's state
typedef struct {
    drover_workflow_t *workflow;
    uint8_t *mark;              //  per step (index from 1): 0 new, 1 on the path, 2 done
    int *path;                  //  the steps on the walk's path, in order
    size_t depth;               //  steps on it
    int from;                   //  the cycle: where on the path it starts, -1 none
} s_walk_t;

//  Walk from step; returns true if a cycle was found (walk->from says where)
static bool
s_visit (s_walk_t *walk, int step)
{
    walk->mark [step] = 1;
    walk->path [walk->depth++] = step;
    const drover_msg_t *submit = walk->workflow->steps [step - 1].submit;
    for (uint32_t at = 0; at < submit->nafter; at++) {
        if (!(submit->after [at].kind & DROVER_AFTER_STEP))
            continue;                   //  a task: not in the graph
        uint64_t parent = submit->after [at].task;
        if (parent < 1 || parent > walk->workflow->count)
            continue;                   //  not a step: told as such elsewhere
        if (walk->mark [parent] == 1) {
            for (size_t on = 0; on < walk->depth; on++)
                if (walk->path [on] == (int) parent)
                    walk->from = (int) on;
            return true;
        }
        if (walk->mark [parent] == 0 && s_visit (walk, (int) parent))
            return true;
    }
    walk->mark [step] = 2;
    walk->depth--;
    return false;
}

//  Check the graph: no step waits, through others, for itself
int
drover_workflow_check (drover_workflow_t *self, char *error, size_t size)
{
    assert (self);
    self->cycle_step = 0;
    s_walk_t walk = { self, NULL, NULL, 0, -1 };
    walk.mark = (uint8_t *) zmalloc (self->count + 1);
    walk.path = (int *) zmalloc ((self->count + 1) * sizeof (int));
    bool cycle = false;
    for (size_t step = 1; step <= self->count && !cycle; step++)
        if (walk.mark [step] == 0)
            cycle = s_visit (&walk, (int) step);
    if (cycle && error && size) {
        //  "cycle: a -> b -> c -> a (each waits for the next)"
        size_t used = (size_t) snprintf (error, size, "cycle:");
        for (size_t on = (size_t) walk.from; on <= walk.depth && used < size; on++) {
            int step = on < walk.depth? walk.path [on]: walk.path [walk.from];
            used += (size_t) snprintf (error + used, size - used, "%s%s",
                                       on == (size_t) walk.from? " ": " -> ",
                                       self->steps [step - 1].name);
        }
        if (used < size)
            snprintf (error + used, size - used, " (each waits for the next)");
    }
    if (cycle) {
        self->cycle_step = INT32_MAX;
        for (size_t on = (size_t) walk.from; on < walk.depth; on++)
            if (walk.path [on] < self->cycle_step)
                self->cycle_step = walk.path [on];
    }
    free (walk.mark);
    free (walk.path);
    return cycle? -1: 0;
}

//  Return a step of the cycle the last check found, or 0
int
drover_workflow_cycle_step (drover_workflow_t *self)
{
    assert (self);
    return self->cycle_step;
}
