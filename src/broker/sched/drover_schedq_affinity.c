/*  =========================================================================
    drover_schedq_affinity - drover_schedq answering for requests placed
    outside its queue, by an affinity key (drover_affinity)

    drover_affinity picks a worker by rendezvous order and asks here whether
    it could ever hold a request (it takes new work, has the labels and
    enough procs and memory in all) and whether it has room now (free
    procs and memory, its capacity not lent nor kept for another request);
    it places with drover_schedq_place. While such a request waits, the
    queue lends nothing and calls back what it lent: the capacity goes to
    the request first (ACTORS.md, "Leases").
    =========================================================================
*/

#include "drover_schedq_internal.h"

//  Tell whether a worker has every label of labels ("k=v" joined by
//  "\n", "" or NULL none)
static bool
s_has_labels (const s_worker_t *worker, const char *labels)
{
    for (const char *cursor = labels? labels: ""; *cursor; ) {
        const char *end = strchr (cursor, '\n');
        size_t size = end? (size_t) (end - cursor): strlen (cursor);
        bool found = size == 0;
        for (size_t index = 0; index < worker->nlabels && !found; index++)
            found = strlen (worker->labels [index]) == size
                 && memcmp (worker->labels [index], cursor, size) == 0;
        if (!found)
            return false;
        cursor += size + (end? 1: 0);
    }
    return true;
}

//  Return true if the worker takes new work, has the labels and enough
//  procs and memory in all (mem 0: any) for the request
bool
drover_schedq_could_hold (drover_schedq_t *self, const char *id, uint32_t procs, uint64_t mem,
                         const char *labels)
{
    assert (self);
    s_worker_t *worker = s_worker_find (self, id, NULL);
    return worker && s_usable (worker) && worker->procs >= procs && worker->mem >= mem
        && s_has_labels (worker, labels);
}

//  Return true if the worker could hold the request and has room for it
//  now: free procs and memory, nothing lent, not kept for another request
bool
drover_schedq_has_room (drover_schedq_t *self, const char *id, uint32_t procs, uint64_t mem,
                       const char *labels)
{
    assert (self);
    s_worker_t *worker = s_worker_find (self, id, NULL);
    return worker && s_usable (worker) && !worker->lease && !worker->reserved
        && s_free_procs (worker) >= procs && s_free_mem (worker) >= mem
        && s_has_labels (worker, labels);
}

//  Say whether requests wait outside the queue: while they do, nothing is
//  lent and every lease is called back
void
drover_schedq_set_waiting (drover_schedq_t *self, bool waiting)
{
    assert (self);
    self->waiting_outside = waiting;
}
