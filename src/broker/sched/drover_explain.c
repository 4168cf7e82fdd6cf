/*  =========================================================================
    drover_explain - why a queued task waits and what would unblock it, as
    the scheduling queue sees it

    For every worker, the first reason it cannot take the request, in this
    order: what it could never do (a label it lacks, too few procs or too
    little memory in all), then what it will not do now (held, draining,
    on probation, low on disk), then what it is busy with (kept for
    another request, lent to assign, too few procs or too little memory
    free). Workers that say the same are one item: how many, a few names,
    and the numbers of the closest (the most procs, the most free). Then
    the verdict, from the closest worker: it runs next, fits somewhere
    when so much frees, waits for a worker kept for another, waits for a
    held or sick worker, or no worker could ever run it (and why); with
    an elastic pool, that last says instead which type of instance will
    be started for it, or that no instance type fits. Counted devices
    ("gpu=2") come after memory: too few in all, then too few free.

    Shared clusters add two: a request whose owner or account is at a
    running quota has the verdict QUOTA (what, how much used, the quota);
    and when its owner's account is above its fair share, a FAIR_SHARE
    item follows the verdict (the account's dominant share against its
    fair share, and the dominant resource): others go first.

    Its place in the queue counts every queued request that ranks before
    it in placement order (drover_schedq_ranks_before), but those that no
    worker taking work could ever hold (they wait aside, their group
    parked or soon to be): they run before nothing until such a worker
    comes, unless they ask exactly what it asks (its own group). One look
    at each request and, per group, at the workers, paid only when asked.
    A TASK TABLE's rows are annotated in one look at each for all of them.

    It reads drover_schedq through its public views only: the workers
    (drover_schedq_lookup), the groups of queued requests and their
    requests (drover_schedq_each_group, drover_schedq_each_request).
    =========================================================================
*/

#include "drover_explain.h"
#include "drover_why.h"
#include "drover_pool.h"

//  A request's demand, as the explanation needs it
typedef struct {
    uint64_t task;              //  task id
    int32_t priority;           //  lower first
    uint32_t procs;             //  procs asked
    const drover_demand_t *demand;  //  memory and labels asked
} s_asked_t;


//  ---------------------------------------------------------------------
//  The workers, through drover_schedq's views

//  Procs a worker has free (the view counts what it lent as free: only a
//  worker that lends nothing is asked, a lent one says LENT first)
static uint32_t
s_free_procs (const drover_schedq_view_t *worker)
{
    return worker->procs_used < worker->procs? worker->procs - worker->procs_used: 0;
}

//  Memory a worker has free, bytes
static uint64_t
s_free_mem (const drover_schedq_view_t *worker)
{
    return worker->mem_used < worker->mem? worker->mem - worker->mem_used: 0;
}

//  Return how many of a device a worker has in all, setting *free_p to how
//  many of them are free
static uint32_t
s_device_count (const drover_schedq_view_t *worker, const char *name, uint32_t *free_p)
{
    for (size_t index = 0; index < worker->ndevices; index++)
        if (streq (worker->devices [index].name, name)) {
            uint32_t total = worker->devices [index].count;
            uint32_t used = worker->devices_used [index];
            *free_p = total > used? total - used: 0;
            return total;
        }
    *free_p = 0;
    return 0;
}

//  Return the first device of a demand a worker has too few of (in all, or
//  free), or -1
static int
s_device_short (const drover_schedq_view_t *worker, const drover_demand_t *demand, bool total)
{
    for (size_t index = 0; index < demand->ndevices; index++) {
        uint32_t free_count;
        uint32_t count = s_device_count (worker, demand->devices [index].name, &free_count);
        if ((total? count: free_count) < demand->devices [index].count)
            return (int) index;
    }
    return -1;
}

//  Return true if a worker could ever hold a group's requests: it takes
//  new work, is big enough in all, and has every label and device they
//  require
static bool
s_could_hold (const drover_schedq_view_t *worker, uint32_t procs,
              const drover_demand_t *demand)
{
    return worker->admin == DROVER_ADMIN_RUN && !worker->probation && !worker->disk_low
        && !worker->settling && worker->procs >= procs && worker->mem >= demand->mem
        && drover_labels_match (worker->labels, worker->nlabels, demand)
        && s_device_short (worker, demand, true) < 0;
}

//  Fill view with the first worker in order of arrival; false if none
static bool
s_first_worker (drover_schedq_t *sched, drover_schedq_view_t *view)
{
    const char *id = drover_schedq_first (sched);
    return id && drover_schedq_lookup (sched, id, view) == 0;
}

//  Fill view with the next worker; false at the end
static bool
s_next_worker (drover_schedq_t *sched, drover_schedq_view_t *view)
{
    const char *id = drover_schedq_next (sched);
    return id && drover_schedq_lookup (sched, id, view) == 0;
}


//  ---------------------------------------------------------------------
//  One worker

//  Set a device reason: how many of the device the worker has (in all for
//  DEVICES, free for BUSY_DEVICES) against how many are asked
static void
s_device_reason (const drover_schedq_view_t *worker, const drover_demand_t *demand, int device,
                 int code, drover_why_t *why)
{
    uint32_t free_count;
    uint32_t total = s_device_count (worker, demand->devices [device].name, &free_count);
    why->code = (uint8_t) code;
    why->a = code == DROVER_WHY_DEVICES? total: free_count;
    why->b = demand->devices [device].count;
    snprintf (why->text, sizeof why->text, "%s", demand->devices [device].name);
}

//  Set why a worker cannot take the request now (code and numbers), or
//  DROVER_WHY_FITS with its free procs
static void
s_first_reason (const drover_schedq_view_t *worker, const s_asked_t *asked, drover_why_t *why)
{
    int device;
    memset (why, 0, sizeof *why);
    const drover_demand_t *demand = asked->demand;
    for (size_t wanted = 0; wanted < demand->nlabels; wanted++) {
        size_t have;
        for (have = 0; have < worker->nlabels; have++)
            if (streq (worker->labels [have], demand->labels [wanted]))
                break;
        if (have == worker->nlabels) {
            why->code = DROVER_WHY_LABEL;
            snprintf (why->text, sizeof why->text, "%s", demand->labels [wanted]);
            return;
        }
    }
    if (worker->procs < asked->procs) {
        why->code = DROVER_WHY_PROCS;
        why->a = worker->procs;
        why->b = asked->procs;
    }
    else
    if (worker->mem < demand->mem) {
        why->code = DROVER_WHY_MEM;
        why->a = worker->mem;
        why->b = demand->mem;
    }
    else
    if ((device = s_device_short (worker, demand, true)) >= 0)
        s_device_reason (worker, demand, device, DROVER_WHY_DEVICES, why);
    else
    if (worker->admin == DROVER_ADMIN_HOLD)
        why->code = DROVER_WHY_HELD;
    else
    if (worker->admin == DROVER_ADMIN_DRAIN)
        why->code = DROVER_WHY_DRAINING;
    else
    if (worker->probation) {
        why->code = DROVER_WHY_PROBATION;
        why->a = worker->probation_until;   //  0 until probation says when
    }
    else
    if (worker->disk_low)
        why->code = DROVER_WHY_LOW_DISK;
    else
    if (worker->reserved && worker->reserved != asked->task) {
        why->code = DROVER_WHY_RESERVED;
        why->a = worker->reserved;
    }
    else
    if (worker->lease)
        why->code = DROVER_WHY_LENT;
    else
    if (s_free_procs (worker) < asked->procs || s_free_mem (worker) < demand->mem) {
        bool procs = s_free_procs (worker) < asked->procs;
        why->code = worker->reserved? DROVER_WHY_KEPT:
                    procs? DROVER_WHY_BUSY: DROVER_WHY_BUSY_MEM;
        why->a = procs || worker->reserved? s_free_procs (worker): s_free_mem (worker);
        why->b = procs || worker->reserved? asked->procs: demand->mem;
    }
    else
    if ((device = s_device_short (worker, demand, false)) >= 0)
        s_device_reason (worker, demand, device, DROVER_WHY_BUSY_DEVICES, why);
    else {
        why->code = DROVER_WHY_FITS;
        why->a = s_free_procs (worker);
    }
}

//  Return true if a reason's numbers make its worker closer to taking the
//  request than another's of the same code: the most procs or memory in
//  all, the most free, the earliest probation end
static bool
s_closer (const drover_why_t *one, const drover_why_t *two)
{
    if (one->code == DROVER_WHY_PROBATION)
        return one->a && (!two->a || one->a < two->a);
    return one->a > two->a;
}

//  Count a worker's reason in the items: into the item of its code (and
//  label), made if new, its name first if it is the closest yet
static void
s_tally (drover_why_t *whys, size_t *count_p, size_t max, const drover_why_t *why,
         const char *worker)
{
    size_t index;
    for (index = 0; index < *count_p; index++)
        if (whys [index].code == why->code && streq (whys [index].text, why->text))
            break;
    if (index == *count_p) {
        if (*count_p == max)
            return;             //  no room: cannot happen with 16 labels and 13 codes
        whys [index] = *why;
        whys [index].count = 0;
        (*count_p)++;
    }
    drover_why_t *item = &whys [index];
    bool first = item->count == 0 || s_closer (why, item);
    if (first && item->count) {
        item->a = why->a;
        item->b = why->b;
    }
    item->count++;
    if (first) {
        //  The closest leads: the others move down, the last may fall off
        size_t keep = item->nnames < DROVER_WHY_NAMES_MAX? item->nnames: DROVER_WHY_NAMES_MAX - 1;
        memmove (item->names [1], item->names [0], keep * sizeof item->names [0]);
        item->nnames = (uint32_t) keep + 1;
        snprintf (item->names [0], sizeof item->names [0], "%s", worker);
    }
    else
    if (item->nnames < DROVER_WHY_NAMES_MAX)
        snprintf (item->names [item->nnames++], sizeof item->names [0], "%s", worker);
}


//  ---------------------------------------------------------------------
//  The verdict

//  Find the item with a code among count, or NULL
static drover_why_t *
s_find (drover_why_t *whys, size_t count, int code)
{
    for (size_t index = 0; index < count; index++)
        if (whys [index].code == code)
            return &whys [index];
    return NULL;
}

//  Say why no worker could ever run the request: the first label nobody
//  has, else too few procs, else too little memory, else no one has all
static void
s_never (drover_schedq_t *sched, const s_asked_t *asked, drover_why_t *verdict)
{
    const drover_demand_t *demand = asked->demand;
    size_t npooltypes;
    const drover_pooltype_t *pooltypes = drover_schedq_pooltypes (sched, &npooltypes);
    if (npooltypes) {
        //  An elastic pool: an instance of the cheapest type that fits
        //  will be started for it, or none fits (and none is started)
        const drover_pooltype_t *type = drover_pooltype_cheapest (
            pooltypes, npooltypes, asked->procs, demand->mem, demand->given,
            demand->device_text);
        verdict->code = type? DROVER_WHY_POOL_START: DROVER_WHY_POOL_NOFIT;
        if (type)
            snprintf (verdict->text, sizeof verdict->text, "%s", type->name);
        return;
    }
    if (drover_schedq_workers (sched) == 0) {
        verdict->code = DROVER_WHY_NEVER_NONE;
        return;
    }
    uint64_t most_procs = 0, most_mem = 0;
    uint32_t most_devices [DROVER_DEVICES_MAX] = { 0 };
    drover_schedq_view_t worker;
    for (bool more = s_first_worker (sched, &worker); more; more = s_next_worker (sched, &worker)) {
        if (worker.procs > most_procs)
            most_procs = worker.procs;
        if (worker.mem > most_mem)
            most_mem = worker.mem;
        for (size_t index = 0; index < demand->ndevices; index++) {
            uint32_t free_count;
            uint32_t count = s_device_count (&worker, demand->devices [index].name, &free_count);
            if (count > most_devices [index])
                most_devices [index] = count;
        }
    }
    for (size_t wanted = 0; wanted < demand->nlabels; wanted++) {
        bool held = false;
        for (bool more = s_first_worker (sched, &worker); more && !held;
             more = s_next_worker (sched, &worker))
            for (size_t have = 0; have < worker.nlabels && !held; have++)
                held = streq (worker.labels [have], demand->labels [wanted]);
        if (!held) {
            verdict->code = DROVER_WHY_NEVER_LABEL;
            snprintf (verdict->text, sizeof verdict->text, "%s", demand->labels [wanted]);
            return;
        }
    }
    if (most_procs < asked->procs) {
        verdict->code = DROVER_WHY_NEVER_PROCS;
        verdict->a = most_procs;
        verdict->b = asked->procs;
    }
    else
    if (most_mem < demand->mem) {
        verdict->code = DROVER_WHY_NEVER_MEM;
        verdict->a = most_mem;
        verdict->b = demand->mem;
    }
    else {
        verdict->code = DROVER_WHY_NEVER_ALL;
        for (size_t index = 0; index < demand->ndevices; index++)
            if (most_devices [index] < demand->devices [index].count) {
                verdict->code = DROVER_WHY_NEVER_DEVICES;
                verdict->a = most_devices [index];
                verdict->b = demand->devices [index].count;
                snprintf (verdict->text, sizeof verdict->text, "%s",
                          demand->devices [index].name);
                break;
            }
    }
}

//  Name the worker an item leads with in a verdict
static void
s_name (drover_why_t *verdict, const drover_why_t *item)
{
    verdict->count = item->count;
    verdict->nnames = 1;
    memcpy (verdict->names [0], item->names [0], sizeof verdict->names [0]);
}

//  Decide the verdict from the workers' items: the closest way to running
static void
s_verdict (drover_schedq_t *sched, const s_asked_t *asked, drover_why_t *whys, size_t count,
           drover_why_t *verdict)
{
    memset (verdict, 0, sizeof *verdict);
    drover_why_t *item;
    if ((item = s_find (whys, count, DROVER_WHY_FITS))) {
        verdict->code = DROVER_WHY_NEXT;
        s_name (verdict, item);
    }
    else
    if ((item = s_find (whys, count, DROVER_WHY_KEPT))
    ||  (item = s_find (whys, count, DROVER_WHY_BUSY))
    ||  (item = s_find (whys, count, DROVER_WHY_BUSY_MEM))
    ||  (item = s_find (whys, count, DROVER_WHY_BUSY_DEVICES))) {
        //  Its worker: how much more must free there
        drover_schedq_view_t view = { 0 };      //  named by the look just taken: known
        drover_schedq_lookup (sched, item->names [0], &view);
        const drover_schedq_view_t *worker = &view;
        verdict->code = DROVER_WHY_FITS_WHEN;
        s_name (verdict, item);
        verdict->a = asked->procs > s_free_procs (worker)? asked->procs - s_free_procs (worker): 0;
        verdict->b = asked->demand->mem > s_free_mem (worker)?
                     asked->demand->mem - s_free_mem (worker): 0;
        int device = s_device_short (worker, asked->demand, false);
        if (device >= 0)        //  and devices: the first of which too few are free
            snprintf (verdict->text, sizeof verdict->text, "%s",
                      asked->demand->devices [device].name);
    }
    else
    if ((item = s_find (whys, count, DROVER_WHY_RESERVED))) {
        verdict->code = DROVER_WHY_AFTER;
        s_name (verdict, item);
        verdict->a = item->a;
    }
    else
    if ((item = s_find (whys, count, DROVER_WHY_LENT))
    ||  (item = s_find (whys, count, DROVER_WHY_PROBATION))
    ||  (item = s_find (whys, count, DROVER_WHY_LOW_DISK))
    ||  (item = s_find (whys, count, DROVER_WHY_HELD))
    ||  (item = s_find (whys, count, DROVER_WHY_DRAINING))) {
        verdict->code = DROVER_WHY_WHEN_USABLE;
        s_name (verdict, item);
        verdict->a = item->code;
        verdict->b = item->code == DROVER_WHY_PROBATION? item->a: 0;
    }
    else
        s_never (sched, asked, verdict);
}


//  ---------------------------------------------------------------------
//  Sharing

//  Make the verdict QUOTA if the request's owner or account is at a
//  running quota it would pass
static void
s_quota (drover_fairshare_t *fairshare, const drover_schedq_request_t *request,
         drover_why_t *verdict)
{
    const drover_demand_t *demand = request->demand;
    drover_fairshare_device_t devices [DROVER_DEVICES_MAX];
    for (size_t index = 0; index < demand->ndevices; index++)
        devices [index] = (drover_fairshare_device_t) {
            demand->devices [index].name, demand->devices [index].count };
    drover_fairshare_use_t use = { request->procs, demand->mem, devices, demand->ndevices };
    drover_fairshare_refusal_t refusal;
    if (drover_fairshare_check (fairshare, request->owner, &use, &refusal) == 0)
        return;
    memset (verdict, 0, sizeof *verdict);
    verdict->code = DROVER_WHY_QUOTA;
    verdict->count = refusal.account? 1: 0;
    verdict->a = refusal.used;
    verdict->b = refusal.limit;
    snprintf (verdict->text, sizeof verdict->text, "%s", refusal.resource);
    verdict->nnames = 1;
    snprintf (verdict->names [0], sizeof verdict->names [0], "%s", refusal.who);
}

//  Fill a FAIR_SHARE item if the owner's account is above its fair share;
//  returns true if it did
static bool
s_fair_share (drover_fairshare_t *fairshare, uint32_t owner, drover_why_t *why)
{
    drover_fairshare_standing_t standing;
    if (drover_fairshare_standing (fairshare, owner, &standing) || !standing.above)
        return false;
    memset (why, 0, sizeof *why);
    why->code = DROVER_WHY_FAIR_SHARE;
    why->a = standing.account_permille;
    why->b = standing.fair_permille;
    snprintf (why->text, sizeof why->text, "%s", standing.account_resource);
    why->nnames = 1;
    snprintf (why->names [0], sizeof why->names [0], "%s", standing.owner);
    if (!standing.solo) {
        why->nnames = 2;
        snprintf (why->names [1], sizeof why->names [1], "%s", standing.account);
    }
    return true;
}


//  ---------------------------------------------------------------------
//  Place in the queue

//  True if a group's requests (each demanding procs and demand) may run
//  before others: a connected worker that takes work could ever hold
//  them, or an instance of the elastic pool would be started for them; or
//  no worker is connected at all (then everything waits for workers, in
//  placement order)
static bool
s_group_runnable (drover_schedq_t *sched, uint32_t procs, const drover_demand_t *demand)
{
    size_t npooltypes;
    const drover_pooltype_t *pooltypes = drover_schedq_pooltypes (sched, &npooltypes);
    if (npooltypes)
        return drover_pooltype_cheapest (pooltypes, npooltypes, procs,
                                         demand->mem, demand->given, demand->device_text) != NULL;
    if (drover_schedq_workers (sched) == 0)
        return true;
    drover_schedq_view_t worker;
    for (bool more = s_first_worker (sched, &worker); more; more = s_next_worker (sched, &worker))
        if (s_could_hold (&worker, procs, demand))
            return true;
    return false;
}

//  What walking the groups for the requests that may run first needs
typedef struct {
    drover_schedq_t *sched;     //  the queue
    uint32_t own;               //  the group asked about, always walked (0: none)
    drover_schedq_request_fn *fn;   //  called for each request walked
    void *arg;                  //  its argument
} s_walk_t;

//  Call the walk's fn for each request of a group that some worker could
//  hold, or of its own group: those that may run before its own
static void
s_walk_group (uint32_t group, uint32_t procs, const drover_demand_t *demand, void *arg)
{
    s_walk_t *walk = (s_walk_t *) arg;
    if (group == walk->own || s_group_runnable (walk->sched, procs, demand))
        drover_schedq_each_request (walk->sched, group, walk->fn, walk->arg);
}

//  The same over the groups queued, parked and blocked
static void
s_each_queued (drover_schedq_t *sched, uint32_t own, drover_schedq_request_fn *fn, void *arg)
{
    s_walk_t walk = { sched, own, fn, arg };
    drover_schedq_each_group (sched, s_walk_group, &walk);
}

//  What counting one request's place needs
typedef struct {
    const s_asked_t *asked;     //  the request
    drover_why_t *ahead;        //  AHEAD: count, a (higher priority), b (more procs)
} s_place_t;

//  Count a request if it ranks before the one asked about
static void
s_count_ahead (const drover_schedq_request_t *request, void *arg)
{
    s_place_t *place = (s_place_t *) arg;
    const s_asked_t *asked = place->asked;
    if (!drover_schedq_ranks_before (request->priority, request->procs, request->task,
                                    asked->priority, asked->procs, asked->task))
        return;
    place->ahead->count++;
    if (request->priority < asked->priority)
        place->ahead->a++;
    else
    if (request->procs > asked->procs)
        place->ahead->b++;
}


//  ---------------------------------------------------------------------
//  Explaining

//  Fill items for a queued request: place (if ahead is set), groups,
//  verdict. Returns how many.
static int
s_explain (drover_schedq_t *sched, const drover_schedq_request_t *request, bool place,
           drover_why_t *whys)
{
    s_asked_t asked = { request->task, request->priority, request->procs, request->demand };
    size_t count = 0;
    if (place) {
        memset (&whys [0], 0, sizeof whys [0]);
        whys [0].code = DROVER_WHY_AHEAD;
        s_place_t counting = { &asked, &whys [0] };
        s_each_queued (sched, request->group, s_count_ahead, &counting);
        count = 1;
    }
    size_t first = count;
    drover_schedq_view_t worker;
    for (bool more = s_first_worker (sched, &worker); more; more = s_next_worker (sched, &worker)) {
        drover_why_t why;
        s_first_reason (&worker, &asked, &why);
        s_tally (whys, &count, DROVER_WHYS_MAX - 2, &why, worker.id);
    }
    s_verdict (sched, &asked, whys + first, count - first, &whys [count]);
    drover_fairshare_t *fairshare = drover_schedq_fairshare (sched);
    s_quota (fairshare, request, &whys [count]);
    count++;
    if (s_fair_share (fairshare, request->owner, &whys [count]))
        count++;
    return (int) count;
}

//  Explain why a queued task waits
int
drover_explain_task (drover_schedq_t *sched, uint64_t task, drover_why_t *whys)
{
    assert (sched && whys);
    drover_schedq_request_t request;
    if (drover_schedq_request (sched, task, &request))
        return -1;              //  not queued
    return s_explain (sched, &request, true, whys);
}

//  A row's sort key and where it is, to count places in one look
typedef struct {
    int32_t priority;           //  its request's
    uint32_t procs;             //  likewise
    uint64_t task;              //  likewise
    size_t row;                 //  index in the rows
    uint32_t group;             //  its request's group
    const drover_demand_t *demand;  //  what its group demands besides procs
    uint32_t ahead;             //  queued requests ranked before it
} s_key_t;

//  Order keys in placement order
static int
s_key_compare (const void *one, const void *two)
{
    const s_key_t *a = (const s_key_t *) one;
    const s_key_t *b = (const s_key_t *) two;
    if (drover_schedq_ranks_before (a->priority, a->procs, a->task, b->priority, b->procs, b->task))
        return -1;
    return a->task == b->task? 0: 1;
}

//  Order keys by group, then in placement order
static int
s_key_compare_group (const void *one, const void *two)
{
    const s_key_t *a = (const s_key_t *) one;
    const s_key_t *b = (const s_key_t *) two;
    if (a->group != b->group)
        return a->group < b->group? -1: 1;
    return s_key_compare (one, two);
}

//  What counting the places of many rows needs
typedef struct {
    s_key_t *keys;              //  the rows' keys, in placement order
    size_t count;               //  entries in keys
    uint32_t *starts;           //  per key: requests whose first key after them is it
} s_places_t;

//  Count a request as ahead of every key it ranks before: mark the first
static void
s_mark_ahead (const drover_schedq_request_t *request, void *arg)
{
    s_places_t *places = (s_places_t *) arg;
    size_t low = 0, high = places->count;
    while (low < high) {
        size_t middle = (low + high) / 2;
        const s_key_t *key = &places->keys [middle];
        if (drover_schedq_ranks_before (request->priority, request->procs, request->task,
                                       key->priority, key->procs, key->task))
            high = middle;
        else
            low = middle + 1;
    }
    if (low < places->count)
        places->starts [low]++;
}

//  Count for each of count keys (in placement order) the requests of
//  group each_group, or every request that may run first (each_group 0),
//  that rank before it: mark the first key each ranks before, then add up
static void
s_count_places (drover_schedq_t *sched, s_key_t *keys, size_t count, uint32_t each_group)
{
    uint32_t *starts = (uint32_t *) calloc (count? count: 1, sizeof (uint32_t));
    assert (starts);
    s_places_t places = { keys, count, starts };
    if (each_group)
        drover_schedq_each_request (sched, each_group, s_mark_ahead, &places);
    else
        s_each_queued (sched, 0, s_mark_ahead, &places);
    uint32_t ahead = 0;
    for (size_t index = 0; index < count; index++) {
        ahead += starts [index];
        keys [index].ahead += ahead;
    }
    free (starts);
}

//  Fill the reason of each QUEUED row with the short form of its explanation
void
drover_explain_annotate (drover_schedq_t *sched, drover_task_row_t *rows, size_t nrows)
{
    assert (sched);
    s_key_t *keys = (s_key_t *) malloc ((nrows? nrows: 1) * sizeof (s_key_t));
    assert (keys);
    size_t count = 0;
    for (size_t index = 0; index < nrows; index++) {
        drover_schedq_request_t request;
        if (rows [index].state != DROVER_TASK_QUEUED
        ||  drover_schedq_request (sched, rows [index].task, &request))
            continue;           //  not queued here
        s_key_t key = { request.priority, request.procs, request.task, index,
                        request.group, request.demand, 0 };
        keys [count++] = key;
    }
    //  Sorted by group, a run of keys each: the requests of a group no
    //  worker could hold count for its own keys only; then every request
    //  that may run first counts for every key it ranks before
    qsort (keys, count, sizeof (s_key_t), s_key_compare_group);
    for (size_t start = 0, end; start < count; start = end) {
        for (end = start + 1; end < count && keys [end].group == keys [start].group; end++)
            ;
        if (!s_group_runnable (sched, keys [start].procs, keys [start].demand))
            s_count_places (sched, keys + start, end - start, keys [start].group);
    }
    qsort (keys, count, sizeof (s_key_t), s_key_compare);
    s_count_places (sched, keys, count, 0);
    drover_why_t *whys = (drover_why_t *) malloc (DROVER_WHYS_MAX * sizeof (drover_why_t));
    assert (whys);
    for (size_t index = 0; index < count; index++) {
        drover_task_row_t *row = &rows [keys [index].row];
        memset (&whys [0], 0, sizeof whys [0]);
        whys [0].code = DROVER_WHY_AHEAD;
        whys [0].count = keys [index].ahead;
        drover_schedq_request_t request;
        if (drover_schedq_request (sched, row->task, &request))
            continue;           //  queued when its key was made: not expected
        int items = s_explain (sched, &request, false, whys + 1);
        drover_why_short (whys, (size_t) items + 1, row->reason, sizeof row->reason);
    }
    free (whys);
    free (keys);
}
