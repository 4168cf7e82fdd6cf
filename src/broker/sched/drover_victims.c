/*  =========================================================================
    drover_victims - which running tasks to stop on one worker to make room
    (see the header)
    =========================================================================
*/

#include "drover_victims.h"

//  Return the count of a device among devices, 0 if absent
static uint64_t
s_count (const drover_victims_devices_t *devices, const char *name)
{
    for (size_t index = 0; index < devices->ndevices; index++)
        if (streq (devices->devices [index].name, name))
            return devices->devices [index].count;
    return 0;
}

//  Return true if what is free plus what the tasks chosen hold meets the
//  need (in chosen [0..nchosen), skipping index skip, or none: SIZE_MAX)
static bool
s_enough (const drover_victims_need_t *need, const drover_victims_task_t *tasks,
          const size_t *chosen, size_t nchosen, size_t skip)
{
    uint64_t procs = need->free_procs, mem = need->free_mem;
    for (size_t index = 0; index < nchosen; index++)
        if (index != skip) {
            procs += tasks [chosen [index]].procs;
            mem += tasks [chosen [index]].mem;
        }
    if (procs < need->procs || mem < need->mem)
        return false;
    for (size_t wanted = 0; wanted < need->devices.ndevices; wanted++) {
        const char *name = need->devices.devices [wanted].name;
        uint64_t have = s_count (&need->free_devices, name);
        for (size_t index = 0; index < nchosen; index++)
            if (index != skip)
                have += s_count (&tasks [chosen [index]].devices, name);
        if (have < need->devices.devices [wanted].count)
            return false;
    }
    return true;
}

//  Return true if stopping a task is allowed and justified
bool
drover_victims_allowed (const drover_victims_need_t *need, const drover_victims_task_t *task)
{
    assert (need && task);
    if (!task->preemptible || task->account == need->account)
        return false;
    return need->priority < task->priority || (need->below_share && task->above_share);
}

//  Sort candidates' indexes newest first (an insertion sort: the tasks of
//  one worker are few)
static void
s_newest_first (const drover_victims_task_t *tasks, size_t *indexes, size_t count)
{
    for (size_t index = 1; index < count; index++) {
        size_t moving = indexes [index];
        size_t slot = index;
        while (slot > 0 && tasks [indexes [slot - 1]].task < tasks [moving].task) {
            indexes [slot] = indexes [slot - 1];
            slot--;
        }
        indexes [slot] = moving;
    }
}

//  Choose the tasks to stop
size_t
drover_victims_choose (const drover_victims_need_t *need, const drover_victims_task_t *tasks,
                       size_t count, size_t max, size_t *chosen)
{
    assert (need && (tasks || count == 0) && chosen);
    if (max == 0 || s_enough (need, tasks, NULL, 0, SIZE_MAX))
        return 0;               //  nothing may be stopped, or nothing need be
    size_t *allowed = (size_t *) malloc ((count? count: 1) * sizeof (size_t));
    assert (allowed);
    size_t nallowed = 0;
    for (size_t index = 0; index < count; index++)
        if (drover_victims_allowed (need, &tasks [index]))
            allowed [nallowed++] = index;
    s_newest_first (tasks, allowed, nallowed);
    //  The newest one alone that frees enough
    for (size_t index = 0; index < nallowed; index++)
        if (s_enough (need, tasks, &allowed [index], 1, SIZE_MAX)) {
            chosen [0] = allowed [index];
            free (allowed);
            return 1;
        }
    //  Else the newest in turn until enough is free
    size_t nchosen = 0;
    for (size_t index = 0; index < nallowed && nchosen < max; index++) {
        chosen [nchosen++] = allowed [index];
        if (s_enough (need, tasks, chosen, nchosen, SIZE_MAX))
            break;
    }
    free (allowed);
    if (!s_enough (need, tasks, chosen, nchosen, SIZE_MAX))
        return 0;               //  not enough within max
    //  Then drop those no longer needed, the oldest (last) first
    for (size_t index = nchosen; index-- > 0; )
        if (s_enough (need, tasks, chosen, nchosen, index)) {
            memmove (chosen + index, chosen + index + 1, (nchosen - index - 1) * sizeof (size_t));
            nchosen--;
        }
    return nchosen;
}
