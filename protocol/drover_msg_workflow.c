/*  =========================================================================
    drover_msg_workflow - the fields of workflows (level 3; PROTOCOL.md
    §7.10, §7.43, §7.44)

    A TASK SUBMIT's `after` is an array of [kind, task] entries and its
    `array` a record [first, step, count, limit]. A WORKFLOW SUBMIT's
    `steps` is an array of [name, submit]: submit a bin holding a whole
    TASK SUBMIT message, decoded as one (drover_msg_decode_step), in which
    after entries may name other steps of the same workflow by index (kind
    | DROVER_AFTER_STEP). Records may grow at their end in a later level:
    a reader takes the elements it knows and skips the rest.

    Every value is checked on the way out (such a message is not encoded)
    and on the way in (it is refused), and an array is refused before it
    is allocated unless the bytes left hold its count at the smallest size
    an element can take. Errors name the part that is wrong: while reading,
    the cursor says its errors with this file's table, then the message
    table's again.
    =========================================================================
*/

#include "drover_msg_workflow.h"
#include "drover_msg_fields.h"

//  The parts of the workflow fields, for error texts
typedef enum {
    P_AFTER, P_AFTER_ENTRY, P_AFTER_KIND, P_AFTER_TASK, P_AFTER_STEP, P_ARRAY, P_ARRAY_COUNT,
    P_ARRAY_STEP, P_ARRAY_LAST, P_ARRAY_NONE, P_STEPS, P_STEP, P_STEP_NAME, P_STEP_NAMES,
    P_STEP_SUBMIT, P_STEP_TASKS, P_COUNT
} s_part_t;

static const drover_mpack_errors_t
s_errors [P_COUNT] = {
    [P_AFTER]       = DROVER_MPACK_ERRORS ("after", "invalid"),
    [P_AFTER_ENTRY] = DROVER_MPACK_ERRORS ("after entry", "invalid"),
    [P_AFTER_KIND]  = DROVER_MPACK_ERRORS ("after kind", "not after, after-any or after-fail"),
    [P_AFTER_TASK]  = DROVER_MPACK_ERRORS ("after task", "task ids start at 1"),
    [P_AFTER_STEP]  = DROVER_MPACK_ERRORS ("after step",
                                           "names a step outside a workflow, or step 0"),
    [P_ARRAY]       = DROVER_MPACK_ERRORS ("array", "invalid"),
    [P_ARRAY_COUNT] = DROVER_MPACK_ERRORS ("array count", "more than 10000000 elements"),
    [P_ARRAY_STEP]  = DROVER_MPACK_ERRORS ("array step", "must be 1 or more"),
    [P_ARRAY_LAST]  = DROVER_MPACK_ERRORS ("array", "its last index is past 4294967295"),
    [P_ARRAY_NONE]  = DROVER_MPACK_ERRORS ("array", "count 0 (none) with other elements set"),
    [P_STEPS]       = DROVER_MPACK_ERRORS ("steps", "invalid"),
    [P_STEP]        = DROVER_MPACK_ERRORS ("step", "invalid"),
    [P_STEP_NAME]   = DROVER_MPACK_ERRORS ("step name", "not a valid id"),
    [P_STEP_NAMES]  = DROVER_MPACK_ERRORS ("step name", "used by two steps"),
    [P_STEP_SUBMIT] = DROVER_MPACK_ERRORS ("step submit", "not a TASK SUBMIT"),
    [P_STEP_TASKS]  = DROVER_MPACK_ERRORS ("tasks", "task ids start at 1"),
};

#define S_AFTER_KNOWN       2       //  elements of an after entry this version reads
#define S_ARRAY_KNOWN       4       //  elements of an array record this version reads
#define S_STEP_KNOWN        2       //  elements of a step this version reads
#define S_AFTER_MIN         3       //  fewest wire bytes of an after entry: header + 2 fixints
#define S_STEP_MIN          22      //  fewest of a step: header + 1-byte name (2) + bin
                                    //  header (2) + the smallest TASK SUBMIT (17)

//  True if an after entry's kind is valid: a kind this level knows, with
//  the step bit only in a step
static bool
s_kind_valid (uint8_t kind, bool step)
{
    if (kind & DROVER_AFTER_STEP) {
        if (!step)
            return false;
        kind &= (uint8_t) ~DROVER_AFTER_STEP;
    }
    return kind <= DROVER_AFTER_KIND_MAX;
}

//  Pack a TASK SUBMIT's after list; -1 if past the limit or an entry is
//  not valid (outside a step, no entry may name a step)
int
drover_msg_workflow_pack_after (msgpack_packer *pk, const drover_msg_t *self, bool step)
{
    if (self->nafter > DROVER_AFTER_MAX || (self->nafter && !self->after))
        return -1;
    msgpack_pack_array (pk, self->nafter);
    for (uint32_t index = 0; index < self->nafter; index++) {
        const drover_after_t *after = &self->after [index];
        if (!s_kind_valid (after->kind, step) || after->task == 0
        ||  ((after->kind & DROVER_AFTER_STEP) && after->task > DROVER_STEPS_MAX))
            return -1;
        msgpack_pack_array (pk, S_AFTER_KNOWN);
        msgpack_pack_uint8 (pk, after->kind);
        msgpack_pack_uint64 (pk, after->task);
    }
    return 0;
}

//  Return the part that says what is wrong with an array spec, or -1 if it
//  is valid: none (all 0), or 1..DROVER_ARRAY_MAX elements, a step of 1 or
//  more, the last index within a uint32
static int
s_array_fault (const drover_array_spec_t *array)
{
    if (array->count == 0)
        return array->first || array->step || array->limit? P_ARRAY_NONE: -1;
    if (array->count > DROVER_ARRAY_MAX)
        return P_ARRAY_COUNT;
    if (array->step == 0)
        return P_ARRAY_STEP;
    if (array->first + (uint64_t) (array->count - 1) * array->step > UINT32_MAX)
        return P_ARRAY_LAST;
    return -1;
}

//  Pack a TASK SUBMIT's array; -1 if not valid
int
drover_msg_workflow_pack_array (msgpack_packer *pk, const drover_msg_t *self)
{
    if (s_array_fault (&self->array) >= 0)
        return -1;
    msgpack_pack_array (pk, S_ARRAY_KNOWN);
    msgpack_pack_uint32 (pk, self->array.first);
    msgpack_pack_uint32 (pk, self->array.step);
    msgpack_pack_uint32 (pk, self->array.count);
    msgpack_pack_uint32 (pk, self->array.limit);
    return 0;
}

//  True if two of count names are the same, or one is not an id
static bool
s_names_wrong (char *const *names, uint32_t count)
{
    zhashx_t *seen = zhashx_new ();
    bool wrong = false;
    for (uint32_t index = 0; index < count && !wrong; index++)
        wrong = !drover_id_valid (names [index])
             || zhashx_insert (seen, names [index], (void *) 1) != 0;
    zhashx_destroy (&seen);
    return wrong;
}

//  Pack WORKFLOW SUBMIT's steps; -1 if a step or name is not valid
int
drover_msg_workflow_pack_steps (msgpack_packer *pk, const drover_msg_t *self)
{
    if (self->nsteps < 1 || self->nsteps > DROVER_STEPS_MAX || !self->steps
    ||  !self->step_names || s_names_wrong (self->step_names, self->nsteps))
        return -1;
    msgpack_pack_array (pk, self->nsteps);
    for (uint32_t index = 0; index < self->nsteps; index++) {
        const drover_msg_t *step = self->steps [index];
        if (!step || step->id != DROVER_MSG_TASK_SUBMIT)
            return -1;
        //  The step's bytes go straight into the bin: measured first
        drover_msg_fields_leveled_t leveled = { step, DROVER_MSG_LEVEL, true };
        size_t size = drover_mpack_measure (drover_msg_fields_pack_at, &leveled, DROVER_MSG_MAX);
        if (size == 0)
            return -1;
        msgpack_pack_array (pk, S_STEP_KNOWN);
        drover_mpack_pack_str (pk, self->step_names [index], strlen (self->step_names [index]));
        msgpack_pack_bin (pk, size);
        if (drover_msg_fields_pack_at (pk, &leveled))
            return -1;
    }
    return 0;
}

//  Pack WORKFLOW ACCEPTED's step ids; -1 if not 1..1000 ids above 0
int
drover_msg_workflow_pack_step_tasks (msgpack_packer *pk, const drover_msg_t *self)
{
    if (self->ntasks < 1 || self->ntasks > DROVER_STEPS_MAX || !self->tasks)
        return -1;
    msgpack_pack_array (pk, self->ntasks);
    for (uint32_t index = 0; index < self->ntasks; index++) {
        if (self->tasks [index] == 0)
            return -1;
        msgpack_pack_uint64 (pk, self->tasks [index]);
    }
    return 0;
}

//  Read the after list, with this file's error texts
static bool
s_read_after (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    uint32_t count, fields;
    if (!drover_mpack_read_array (cursor, P_AFTER, 0, DROVER_AFTER_MAX, S_AFTER_MIN, &count))
        return false;
    if (count == 0)
        return true;
    self->after = (drover_after_t *) zmalloc (count * sizeof (drover_after_t));
    self->nafter = count;
    for (uint32_t index = 0; index < count; index++) {
        drover_after_t *after = &self->after [index];
        if (!drover_mpack_read_array (cursor, P_AFTER_ENTRY, S_AFTER_KNOWN, UINT32_MAX, 1,
                                      &fields)
        ||  !drover_mpack_read_u8 (cursor, P_AFTER_KIND, UINT8_MAX, &after->kind)
        ||  !drover_mpack_read_u64 (cursor, P_AFTER_TASK, &after->task))
            return false;
        if (!s_kind_valid (after->kind, true))
            return drover_mpack_fail (cursor, s_errors [P_AFTER_KIND].invalid);
        if (after->task == 0)
            return drover_mpack_fail (cursor, s_errors [P_AFTER_TASK].invalid);
        if ((after->kind & DROVER_AFTER_STEP) && after->task > DROVER_STEPS_MAX)
            return drover_mpack_fail (cursor, s_errors [P_AFTER_STEP].range);
        if (!drover_mpack_skip_rest (cursor, fields, S_AFTER_KNOWN, 3))
            return false;
    }
    return true;
}

//  Read a TASK SUBMIT's after list into self->after
bool
drover_msg_workflow_read_after (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    const drover_mpack_errors_t *errors = cursor->errors;
    cursor->errors = s_errors;
    bool ok = s_read_after (cursor, self);
    cursor->errors = errors;
    return ok;
}

//  Check that a TASK SUBMIT's after entries name steps only in a step
bool
drover_msg_workflow_check_after (drover_mpack_cursor_t *cursor, const drover_msg_t *self,
                                 bool step)
{
    for (uint32_t index = 0; !step && index < self->nafter; index++)
        if (self->after [index].kind & DROVER_AFTER_STEP)
            return drover_mpack_fail (cursor, s_errors [P_AFTER_STEP].invalid);
    return true;
}

//  Read the array, with this file's error texts
static bool
s_read_array (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    uint32_t fields;
    drover_array_spec_t *array = &self->array;
    if (!drover_mpack_read_array (cursor, P_ARRAY, S_ARRAY_KNOWN, UINT32_MAX, 1, &fields)
    ||  !drover_mpack_read_u32 (cursor, P_ARRAY, &array->first)
    ||  !drover_mpack_read_u32 (cursor, P_ARRAY_STEP, &array->step)
    ||  !drover_mpack_read_u32 (cursor, P_ARRAY_COUNT, &array->count)
    ||  !drover_mpack_read_u32 (cursor, P_ARRAY, &array->limit))
        return false;
    int fault = s_array_fault (array);
    if (fault >= 0)
        return drover_mpack_fail (cursor, s_errors [fault].invalid);
    return drover_mpack_skip_rest (cursor, fields, S_ARRAY_KNOWN, 2);
}

//  Read a TASK SUBMIT's array into self->array
bool
drover_msg_workflow_read_array (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    const drover_mpack_errors_t *errors = cursor->errors;
    cursor->errors = s_errors;
    bool ok = s_read_array (cursor, self);
    cursor->errors = errors;
    return ok;
}

//  Read one step, index of the steps, with this file's error texts
static bool
s_read_step (drover_mpack_cursor_t *cursor, drover_msg_t *self, uint32_t index)
{
    uint32_t fields;
    char name [DROVER_ID_MAX + 1];
    const byte *data;
    size_t size;
    if (!drover_mpack_read_array (cursor, P_STEP, S_STEP_KNOWN, UINT32_MAX, 1, &fields)
    ||  !drover_mpack_read_id (cursor, P_STEP_NAME, false, name)
    ||  !drover_mpack_read_bin (cursor, P_STEP_SUBMIT, DROVER_MSG_MAX, &data, &size))
        return false;
    self->step_names [index] = strdup (name);
    assert (self->step_names [index]);
    self->steps [index] = drover_msg_new (0);
    if (drover_msg_decode_step (self->steps [index], data, size)) {
        //  What was wrong in it, as its own decode says (static text)
        cursor->too_large = self->steps [index]->too_large;
        return drover_mpack_fail (cursor, self->steps [index]->error);
    }
    return drover_mpack_skip_rest (cursor, fields, S_STEP_KNOWN, 3);
}

//  Read the steps, with this file's error texts
static bool
s_read_steps (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    uint32_t count;
    if (!drover_mpack_read_array (cursor, P_STEPS, 1, DROVER_STEPS_MAX, S_STEP_MIN, &count))
        return false;
    //  Both arrays whole from the start, so that a reset frees what was read
    self->step_names = (char **) zmalloc (count * sizeof (char *));
    self->steps = (drover_msg_t **) zmalloc (count * sizeof (drover_msg_t *));
    self->nsteps = count;
    for (uint32_t index = 0; index < count; index++)
        if (!s_read_step (cursor, self, index))
            return false;
    if (s_names_wrong (self->step_names, count))
        return drover_mpack_fail (cursor, s_errors [P_STEP_NAMES].invalid);
    return true;
}

//  Read WORKFLOW SUBMIT's steps into self->step_names and self->steps
bool
drover_msg_workflow_read_steps (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    const drover_mpack_errors_t *errors = cursor->errors;
    cursor->errors = s_errors;
    bool ok = s_read_steps (cursor, self);
    cursor->errors = errors;
    return ok;
}

//  Read the step ids, with this file's error texts
static bool
s_read_step_tasks (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    uint32_t count;
    if (!drover_mpack_read_array (cursor, P_STEP_TASKS, 1, DROVER_STEPS_MAX, 1, &count))
        return false;
    self->tasks = (uint64_t *) drover_mpack_malloc (count * sizeof (uint64_t));
    self->ntasks = count;
    for (uint32_t index = 0; index < count; index++) {
        if (!drover_mpack_read_u64 (cursor, P_STEP_TASKS, &self->tasks [index]))
            return false;
        if (self->tasks [index] == 0)
            return drover_mpack_fail (cursor, s_errors [P_STEP_TASKS].invalid);
    }
    return true;
}

//  Read WORKFLOW ACCEPTED's step ids into self->tasks
bool
drover_msg_workflow_read_step_tasks (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    const drover_mpack_errors_t *errors = cursor->errors;
    cursor->errors = s_errors;
    bool ok = s_read_step_tasks (cursor, self);
    cursor->errors = errors;
    return ok;
}
