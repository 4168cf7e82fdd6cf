/*  =========================================================================
    drover_schedbench - what one assignment costs the scheduling queue
    shared by many owners (see the header)
    =========================================================================
*/

#include "drover_schedbench.h"
#include "drover_schedq.h"

#define S_WORKERS   100
#define S_PROCS     16
#define S_SLOTS     (S_WORKERS * S_PROCS)

//  What a run keeps: the tasks running, in slots, and where a pass put one
typedef struct {
    uint64_t running [S_SLOTS];     //  task in each slot
    size_t filled;              //  slots filled by the first passes
    uint64_t placed;            //  the last task a pass placed
} s_run_t;

//  Record a placement
static void
s_on_assign (uint64_t task, const char *worker, void *arg)
{
    (void) worker;
    s_run_t *run = (s_run_t *) arg;
    if (run->filled < S_SLOTS)
        run->running [run->filled++] = task;
    run->placed = task;
}

//  Return the name of owner number index
static const char *
s_owner (uint32_t index, char *name, size_t size)
{
    snprintf (name, size, "owner-%05u", index);
    return name;
}

//  Measure the cost per assignment
int
drover_schedbench_run (uint32_t owners, uint32_t queued, uint32_t rounds,
                       drover_schedbench_t *result)
{
    assert (result);
    if (owners == 0 || queued < owners)
        return -1;
    drover_schedq_t *sched = drover_schedq_new (1000);
    char id [32], name [32];
    for (int worker = 0; worker < S_WORKERS; worker++) {
        snprintf (id, sizeof id, "w%03d", worker);
        drover_schedq_add_worker (sched, id, S_PROCS, 0, NULL);
    }
    //  The cluster full, and the queue as deep as asked
    uint64_t next = 1;
    uint32_t total = queued + S_SLOTS;
    for (uint32_t index = 0; index < total; index++) {
        drover_schedq_tenant_t tenant = { s_owner (index % owners, name, sizeof name), NULL, 0 };
        drover_schedq_push_as (sched, next++, 0, 1, 0, NULL, &tenant);
    }
    s_run_t *run = (s_run_t *) zmalloc (sizeof (s_run_t));
    drover_schedq_run (sched, s_on_assign, run);
    assert (run->filled == S_SLOTS);
    drover_fairshare_t *fairshare = drover_schedq_fairshare (sched);
    uint64_t seed = 88172645463325252ULL;
    int64_t start = zclock_usecs ();
    for (uint32_t round = 0; round < rounds; round++) {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        size_t slot = (size_t) (seed % S_SLOTS);
        drover_schedq_free (sched, run->running [slot]);
        drover_schedq_run (sched, s_on_assign, run);
        run->running [slot] = run->placed;
        //  Its owner queues one more (owners by task id, as pushed)
        drover_schedq_tenant_t tenant = {
            s_owner ((uint32_t) ((run->placed - 1) % owners), name, sizeof name), NULL, 0 };
        drover_schedq_push_as (sched, next++, 0, 1, 0, NULL, &tenant);
    }
    int64_t spent = zclock_usecs () - start;
    //  How evenly the owners run now
    uint32_t most = 0, fewest = UINT32_MAX;
    for (uint32_t index = 0; index < owners; index++) {
        drover_fairshare_standing_t standing;
        uint32_t owner = drover_fairshare_owner (fairshare, s_owner (index, name, sizeof name));
        if (drover_fairshare_standing (fairshare, owner, &standing) || standing.procs == 0)
            continue;
        most = standing.procs > most? standing.procs: most;
        fewest = standing.procs < fewest? standing.procs: fewest;
    }
    *result = (drover_schedbench_t) {
        .owners = owners, .queued = queued, .rounds = rounds,
        .usec = rounds? (double) spent / rounds: 0,
        .spread = fewest != UINT32_MAX && fewest? (double) most / fewest: 0
    };
    free (run);
    drover_schedq_destroy (&sched);
    return 0;
}
