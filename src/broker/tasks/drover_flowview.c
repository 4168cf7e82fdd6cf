/*  =========================================================================
    drover_flowview - what the flow says of a task, for those who ask

    Every function reads the flow's graph, holds and groups, and the
    states the caller gives; none changes anything.
    =========================================================================
*/

#include "drover_flowview.h"


//  --------------------------------------------------------------------------
//  Write why a held task waits, for its task.waiting event

void
drover_flowview_held (drover_flow_t *flow, uint64_t task, drover_deps_state_fn *state,
                      void *arg, char *text, size_t size)
{
    assert (flow && state && text && size);
    int64_t due;
    int cause = drover_waiting_cause (drover_flow_waiting (flow), task, &due);
    size_t used = (size_t) snprintf (text, size, "%s", drover_waits_name (cause));
    if (due) {
        time_t seconds = (time_t) (due / 1000);
        struct tm tm;
        gmtime_r (&seconds, &tm);
        strftime (text + used, size - used, " until %Y-%m-%dT%H:%M:%SZ", &tm);
    }
    else
    if (cause == DROVER_WAITS_AFTER) {
        //  The parents it waits for, the first few
        size_t count, listed = 0;
        const drover_after_t *after = drover_deps_parents (drover_flow_deps (flow), task, &count);
        for (size_t index = 0; index < count && used + 24 < size; index++)
            if (drover_deps_judge (after [index].kind, state (arg, after [index].task)) == 0)
                used += (size_t) snprintf (text + used, size - used, "%s%" PRIu64,
                                           listed++? ",": " ", after [index].task);
    }
}


//  --------------------------------------------------------------------------
//  Fill a change's workflow fields

void
drover_flowview_fields (drover_flow_t *flow, uint64_t task, uint8_t *waits_p, int64_t *due_p,
                        uint64_t *group_p, uint32_t *made_p)
{
    assert (flow && waits_p && due_p && group_p && made_p);
    *waits_p = (uint8_t) drover_waiting_cause (drover_flow_waiting (flow), task, due_p);
    drover_groups_t *groups = drover_flow_groups (flow);
    drover_group_t *group = drover_groups_of (groups, task);
    *group_p = group? group->id: 0;
    drover_group_t *own = drover_groups_lookup (groups, task);
    *made_p = own? own->made: 0;
}

//  Add an explanation item to reply
static drover_why_t *
s_why (drover_msg_t *reply, int code)
{
    if (reply->nwhys >= DROVER_WHYS_MAX)
        return NULL;
    reply->whys = (drover_why_t *) realloc (reply->whys, (reply->nwhys + 1) * sizeof (drover_why_t));
    assert (reply->whys);
    drover_why_t *why = &reply->whys [reply->nwhys++];
    memset (why, 0, sizeof *why);
    why->code = (uint8_t) code;
    return why;
}


//  --------------------------------------------------------------------------
//  Fill reply's explanation items for a held task or a group's own id

bool
drover_flowview_explain (drover_flow_t *flow, uint64_t id, uint32_t attempt, uint32_t attempts,
                         drover_msg_t *reply, drover_deps_state_fn *state, void *arg)
{
    assert (flow && reply && state);
    int64_t due;
    int cause = drover_waiting_cause (drover_flow_waiting (flow), id, &due);
    drover_group_t *group = drover_groups_lookup (drover_flow_groups (flow), id);
    if (!cause && !group)
        return false;
    drover_why_t *why;
    if (cause == DROVER_WAITS_AFTER) {
        size_t count;
        const drover_after_t *after = drover_deps_parents (drover_flow_deps (flow), id,
                                                           &count);
        uint32_t pending = 0;
        for (size_t index = 0; index < count; index++)
            if (drover_deps_judge (after [index].kind, state (arg, after [index].task)) == 0)
                pending++;
        for (size_t index = 0, listed = 0; index < count && listed < 8; index++) {
            int now = state (arg, after [index].task);
            if (drover_deps_judge (after [index].kind, now) != 0
            ||  !(why = s_why (reply, DROVER_WHY_PARENT)))
                continue;
            why->a = after [index].task;
            why->b = (uint64_t) now;
            why->count = listed++ == 0? pending: 0;
        }
    }
    else
    if ((cause == DROVER_WAITS_BEGIN || cause == DROVER_WAITS_RETRY)
    &&  (why = s_why (reply, cause == DROVER_WAITS_BEGIN? DROVER_WHY_BEGIN: DROVER_WHY_RETRY))) {
        why->a = (uint64_t) due;
        why->b = attempt;
        why->count = attempts;
    }
    if (group && (why = s_why (reply, DROVER_WHY_GROUP))) {
        why->a = drover_groups_ended (group);
        why->b = group->members;
        why->count = group->live;
        if (group->array && group->limit && group->live >= group->limit
        &&  group->made < group->members && (why = s_why (reply, DROVER_WHY_ARRAY_LIMIT))) {
            why->a = group->id;
            why->b = group->live;
            why->count = group->limit;
        }
    }
    return true;
}


//  --------------------------------------------------------------------------
//  Fill a TASK TABLE row's workflow elements: why it is held, its group,
//  its parents

void
drover_flowview_row (drover_flow_t *flow, drover_task_row_t *row)
{
    assert (flow && row);
    row->waits = (uint8_t) drover_waiting_cause (drover_flow_waiting (flow), row->task, NULL);
    drover_group_t *group = drover_groups_of (drover_flow_groups (flow), row->task);
    row->group = group? group->id: 0;
    size_t count;
    drover_deps_parents (drover_flow_deps (flow), row->task, &count);
    row->parents = (uint32_t) count;
}


//  --------------------------------------------------------------------------
//  Fill a TASK INFO's workflow keys

void
drover_flowview_info (drover_flow_t *flow, drover_taskinfo_t *info,
                      drover_deps_state_fn *state, void *arg)
{
    assert (flow && info && state);
    int64_t due;
    info->waits = (uint8_t) drover_waiting_cause (drover_flow_waiting (flow), info->task, &due);
    info->due = (uint64_t) due;
    info->begin = (uint64_t) drover_flow_begin (flow, info->task, &info->retry_delay,
                                                &info->retry_max_delay);
    drover_group_t *group = drover_groups_of (drover_flow_groups (flow), info->task);
    if (group) {
        info->group = group->id;
        if (group->array) {
            info->index = drover_groups_index (group, info->task);
            info->array_first = group->first;
            info->array_step = group->step;
        }
    }
    size_t count;
    const drover_after_t *after = drover_deps_parents (drover_flow_deps (flow), info->task, &count);
    if (count) {
        info->parents = (drover_parent_t *) zmalloc (count * sizeof (drover_parent_t));
        for (size_t index = 0; index < count; index++)
            info->parents [index] = (drover_parent_t) {
                after [index].kind, after [index].task,
                (uint8_t) state (arg, after [index].task) };
        info->nparents = (uint32_t) count;
    }
    uint64_t children [DROVER_CHILDREN_LISTED];
    size_t total = drover_deps_children (drover_flow_deps (flow), info->task, children,
                                         DROVER_CHILDREN_LISTED);
    if (total) {
        size_t listed = total < DROVER_CHILDREN_LISTED? total: DROVER_CHILDREN_LISTED;
        info->children = (uint64_t *) zmalloc (listed * sizeof (uint64_t));
        memcpy (info->children, children, listed * sizeof (uint64_t));
        info->nchildren = (uint32_t) listed;
        info->children_total = (uint32_t) total;
    }
    drover_group_t *own = drover_groups_lookup (drover_flow_groups (flow), info->task);
    if (own) {
        info->members = own->members;
        info->limit = own->limit;
        info->array_first = own->first;
        info->array_step = own->step;
        for (int state = 0; state < DROVER_TASK_STATES; state++)
            info->member_counts [state] = own->ended [state];
        //  Live members by their state now; those not made yet wait, QUEUED
        for (uint64_t id = own->id + 1; id <= drover_groups_last (own); id++) {
            int now = state (arg, id);
            if (now <= DROVER_TASK_RUNNING && drover_groups_of (drover_flow_groups (flow), id) == own)
                info->member_counts [now]++;
        }
        info->member_counts [DROVER_TASK_QUEUED] += own->members - own->made;
    }
}
