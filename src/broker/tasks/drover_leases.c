/*  =========================================================================
    drover_leases - the leases assign holds: workers' free capacity that
    schedq lent it ahead of time

    A short array (schedq lends max-leases at most), scanned whole: a find
    looks at each lease once.
    =========================================================================
*/

#include "drover_leases.h"
#include "drover_demands.h"

//  One lease
typedef struct {
    uint64_t id;                //  lease id, from schedq
    char *worker;               //  the worker it lends (owned)
    uint32_t procs;             //  procs left
    uint64_t mem;               //  memory left, bytes
    char *label_text;           //  the worker's labels, "\n" turned to NUL (owned), or NULL
    char **labels;              //  pointers into label_text (owned), or NULL
    size_t nlabels;             //  entries in labels
} s_lease_t;

struct _drover_leases_t {
    s_lease_t *leases;          //  the leases held, in no order
    size_t count;               //  entries used
    size_t capacity;            //  entries allocated
};

//  Create an empty set
drover_leases_t *
drover_leases_new (void)
{
    return (drover_leases_t *) zmalloc (sizeof (drover_leases_t));
}

//  Free what a lease owns and move the last lease into its slot
static void
s_remove (drover_leases_t *self, size_t slot)
{
    s_lease_t *lease = &self->leases [slot];
    free (lease->worker);
    free (lease->label_text);
    free (lease->labels);
    *lease = self->leases [--self->count];
}

//  Destroy the set
void
drover_leases_destroy (drover_leases_t **self_p)
{
    assert (self_p);
    drover_leases_t *self = *self_p;
    if (self) {
        while (self->count)
            s_remove (self, 0);
        free (self->leases);
        free (self);
        *self_p = NULL;
    }
}

//  Return the slot of a lease, or -1
static ssize_t
s_slot (drover_leases_t *self, uint64_t lease)
{
    for (size_t slot = 0; slot < self->count; slot++)
        if (self->leases [slot].id == lease)
            return (ssize_t) slot;
    return -1;
}

//  Hold a lease
int
drover_leases_add (drover_leases_t *self, uint64_t lease, const char *worker,
                   uint32_t procs, uint64_t mem, const char *labels)
{
    assert (self);
    assert (worker);
    if (lease == 0 || s_slot (self, lease) >= 0)
        return -1;
    if (self->count == self->capacity) {
        self->capacity = self->capacity? self->capacity * 2: 8;
        self->leases = (s_lease_t *) realloc (self->leases, self->capacity * sizeof (s_lease_t));
        assert (self->leases);
    }
    s_lease_t *entry = &self->leases [self->count++];
    memset (entry, 0, sizeof *entry);
    entry->id = lease;
    entry->worker = strdup (worker);
    assert (entry->worker);
    entry->procs = procs;
    entry->mem = mem;
    drover_labels_parse (labels, &entry->label_text, &entry->labels, &entry->nlabels);
    return 0;
}

//  Return true if a lease's worker carries every label of "k=v\nk=v"
static bool
s_carries (const s_lease_t *lease, const char *labels)
{
    while (labels && *labels) {
        const char *end = strchr (labels, '\n');
        size_t size = end? (size_t) (end - labels): strlen (labels);
        bool found = size == 0;         //  an empty line asks for nothing
        for (size_t index = 0; !found && index < lease->nlabels; index++)
            found = strlen (lease->labels [index]) == size
                 && memcmp (lease->labels [index], labels, size) == 0;
        if (!found)
            return false;
        labels = end? end + 1: labels + size;
    }
    return true;
}

//  Find the lease with the most procs left that holds a task
uint64_t
drover_leases_find (drover_leases_t *self, uint32_t procs, uint64_t mem,
                    const char *labels, const char **worker_p)
{
    assert (self);
    s_lease_t *best = NULL;
    for (size_t slot = 0; slot < self->count; slot++) {
        s_lease_t *lease = &self->leases [slot];
        if (lease->procs >= procs && lease->mem >= mem
        &&  (!best || lease->procs > best->procs) && s_carries (lease, labels))
            best = lease;
    }
    if (best && worker_p)
        *worker_p = best->worker;
    return best? best->id: 0;
}

//  Take procs and mem from a lease
int64_t
drover_leases_take (drover_leases_t *self, uint64_t lease, uint32_t procs, uint64_t mem)
{
    assert (self);
    ssize_t slot = s_slot (self, lease);
    if (slot < 0)
        return -1;
    s_lease_t *entry = &self->leases [slot];
    if (procs > entry->procs || mem > entry->mem)
        return -1;
    entry->procs -= procs;
    entry->mem -= mem;
    return entry->procs;
}

//  Stop holding a lease
int
drover_leases_end (drover_leases_t *self, uint64_t lease)
{
    assert (self);
    ssize_t slot = s_slot (self, lease);
    if (slot < 0)
        return -1;
    s_remove (self, (size_t) slot);
    return 0;
}

//  Stop holding every lease on a worker
size_t
drover_leases_end_worker (drover_leases_t *self, const char *worker,
                          drover_leases_fn *fn, void *arg)
{
    assert (self);
    assert (worker);
    size_t ended = 0;
    for (size_t slot = 0; slot < self->count; ) {
        if (streq (self->leases [slot].worker, worker)) {
            uint64_t lease = self->leases [slot].id;
            s_remove (self, slot);
            if (fn)
                fn (lease, arg);
            ended++;
        }
        else
            slot++;
    }
    return ended;
}

//  Return how many leases are held
size_t
drover_leases_size (drover_leases_t *self)
{
    assert (self);
    return self->count;
}
