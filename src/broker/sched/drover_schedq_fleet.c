/*  =========================================================================
    drover_schedq_fleet - drover_schedq's workers as the reconciler sees them
    (drover_fleet): what each offers, what its tasks use, its labels,
    whether it takes new work and why not

    One look at each worker, paid once per FLEET (a term, a pass, a plan).
    Capacity lent to assign counts as free: a lease is called back as soon
    as anything waits.
    =========================================================================
*/

#include "drover_schedq_internal.h"
#include "drover_fleet.h"

//  Why a worker takes no new work, in order of precedence: what runs on a
//  draining worker should move away, whatever else holds it
static drover_fleet_state_t
s_fleet_state (const s_worker_t *worker)
{
    return worker->admin == DROVER_ADMIN_DRAIN? DROVER_FLEET_DRAINING:
           worker->admin == DROVER_ADMIN_HOLD? DROVER_FLEET_HELD:
           worker->probation? DROVER_FLEET_PROBATION:
           worker->disk_low? DROVER_FLEET_LOW_DISK: DROVER_FLEET_USABLE;
}

//  Build the fleet of every worker known, in order of arrival
drover_fleet_t *
drover_schedq_fleet (drover_schedq_t *self)
{
    assert (self);
    drover_fleet_t *fleet = drover_fleet_new ();
    char labels [DROVER_LABELS_MAX * (DROVER_LABEL_MAX + 1) + 1];
    for (void *item = zlistx_first (self->order); item; item = zlistx_next (self->order)) {
        s_worker_t *worker = s_worker (self, (uint32_t) (uintptr_t) item);
        size_t size = 0;
        labels [0] = 0;
        for (size_t index = 0; index < worker->nlabels && size < sizeof labels; index++)
            size += (size_t) snprintf (labels + size, sizeof labels - size, "%s%s",
                                       index? "\n": "", worker->labels [index]);
        drover_fleet_worker_t entry = {
            worker->id, worker->procs, worker->mem,
            worker->used - worker->lease_procs, worker->mem_used - worker->lease_mem,
            labels, s_fleet_state (worker), worker->ntasks
        };
        drover_fleet_add (fleet, &entry);
    }
    return fleet;
}
