/*  =========================================================================
    drover_affinity - requests placed by an affinity key (see the header)

    Requests sit in an array kept in placement order (priority, then task
    id), found by task in a hash of their ids; the workers in an array of
    ids and rendezvous hashes, rebuilt from the queue's workers when they
    changed. Each request keeps its key's hash, its first worker and the
    generation of the workers that first was found in, so a run asks the
    queue about one worker per waiting request, and walks the workers
    (one pass, drover_rendezvous_best) only for a request past its wait
    when room may have grown.
    =========================================================================
*/

#include "drover_affinity.h"
#include "drover_rendezvous.h"
#include "drover_msg.h"

//  One request
typedef struct {
    uint64_t task;              //  task id
    int32_t priority;           //  lower first
    uint32_t procs;             //  procs asked, >= 1
    uint64_t mem;               //  bytes asked, 0 any
    char *labels;               //  labels required, "k=v" joined by "\n", "" none
    char *owner;                //  its owner, "" nobody's
    char *devices;              //  devices asked, "gpu=1" (drover_devicelist), "" none
    uint32_t flags;             //  DROVER_SUBMIT_* flags
    char *key;                  //  its affinity key
    uint64_t key_hash;          //  drover_rendezvous_hash of key
    int64_t until;              //  msec, monotonic: its wait for its first worker ends
    long first;                 //  index of its first worker in the workers array, -1 none
    uint64_t first_at;          //  workers' generation first was found in, 0 never
    uint64_t full_at;           //  room's generation in which no worker had room, 0 none
} s_request_t;

struct _drover_affinity_t {
    s_request_t **requests;     //  the requests in placement order (owned)
    size_t count;               //  entries in requests
    size_t capacity;            //  entries allocated
    zhashx_t *tasks;            //  task id (text) -> request, to find one
    char **ids;                 //  the workers' ids (owned), in the queue's order
    uint64_t *hashes;           //  drover_rendezvous_hash of each id
    size_t nworkers;            //  entries in ids and hashes
    uint64_t workers_at;        //  generation of the workers: bumped when they change
    uint64_t built_at;          //  generation ids and hashes were built in, 0 never
    uint64_t room_at;           //  generation of room: bumped when room may have grown
    bool changed;               //  something changed since the last run
    const s_request_t *full;    //  during a run: the last request past its wait that no
                                //  worker had room for (one asking as much or more of
                                //  the same labels has none either), or NULL
    int64_t deadline;           //  earliest wait end a run must look at, -1 none
    uint32_t wait;              //  msec a request waits for its first worker
};

//  What an accept callback looks at
typedef struct {
    drover_affinity_t *self;    //  the workers
    drover_schedq_t *sched;      //  the queue, asked about each
    const s_request_t *request; //  the request
    bool room;                  //  true: room now; false: could hold it in all
} s_accept_t;

//  Free a request
static void
s_request_destroy (s_request_t **request_p)
{
    s_request_t *request = *request_p;
    if (request) {
        free (request->labels);
        free (request->owner);
        free (request->devices);
        free (request->key);
        free (request);
        *request_p = NULL;
    }
}

//  Create an empty set of requests
drover_affinity_t *
drover_affinity_new (uint32_t wait)
{
    drover_affinity_t *self = (drover_affinity_t *) zmalloc (sizeof (drover_affinity_t));
    self->tasks = zhashx_new ();
    self->wait = wait;
    self->workers_at = self->room_at = 1;
    self->deadline = -1;
    return self;
}

//  Forget the workers' ids
static void
s_clear_workers (drover_affinity_t *self)
{
    for (size_t index = 0; index < self->nworkers; index++)
        free (self->ids [index]);
    free (self->ids);
    free (self->hashes);
    self->ids = NULL;
    self->hashes = NULL;
    self->nworkers = 0;
}

//  Destroy the requests
void
drover_affinity_destroy (drover_affinity_t **self_p)
{
    assert (self_p);
    drover_affinity_t *self = *self_p;
    if (!self)
        return;
    for (size_t index = 0; index < self->count; index++)
        s_request_destroy (&self->requests [index]);
    free (self->requests);
    zhashx_destroy (&self->tasks);
    s_clear_workers (self);
    free (self);
    *self_p = NULL;
}

//  Change how long a request waits for its first worker
void
drover_affinity_set_wait (drover_affinity_t *self, uint32_t wait)
{
    assert (self);
    self->wait = wait;
}

//  The hash key of a task id
static void
s_task_key (uint64_t task, char *text, size_t size)
{
    snprintf (text, size, "%" PRIu64, task);
}

//  Return true if a ranks before b: priority, then task id
static bool
s_before (const s_request_t *a, const s_request_t *b)
{
    return a->priority != b->priority? a->priority < b->priority: a->task < b->task;
}

//  Add a request of nobody in particular
int
drover_affinity_add (drover_affinity_t *self, uint64_t task, int32_t priority, uint32_t procs,
                     uint64_t mem, const char *labels, const char *key, int64_t now)
{
    return drover_affinity_add_as (self, task, priority, procs, mem, labels, key, NULL, now);
}

//  Add a request of a tenant
int
drover_affinity_add_as (drover_affinity_t *self, uint64_t task, int32_t priority, uint32_t procs,
                        uint64_t mem, const char *labels, const char *key,
                        const drover_schedq_tenant_t *tenant, int64_t now)
{
    assert (self);
    if (procs == 0 || !key || !*key)
        return -1;
    drover_affinity_remove (self, task);
    s_request_t *request = (s_request_t *) zmalloc (sizeof (s_request_t));
    request->task = task;
    request->priority = priority;
    request->procs = procs;
    request->mem = mem;
    request->labels = strdup (labels? labels: "");
    request->owner = strdup (tenant && tenant->owner? tenant->owner: "");
    request->devices = strdup (tenant && tenant->devices? tenant->devices: "");
    request->flags = tenant? tenant->flags: 0;
    request->key = strdup (key);
    request->key_hash = drover_rendezvous_hash (key, strlen (key));
    request->until = now + self->wait;
    request->first = -1;
    if (self->count == self->capacity) {
        self->capacity = self->capacity? self->capacity * 2: 16;
        self->requests = (s_request_t **) realloc (self->requests,
                                                   self->capacity * sizeof (s_request_t *));
        assert (self->requests);
    }
    //  Its place: after every request that ranks before it (a binary search)
    size_t low = 0, high = self->count;
    while (low < high) {
        size_t middle = (low + high) / 2;
        if (s_before (self->requests [middle], request))
            low = middle + 1;
        else
            high = middle;
    }
    memmove (self->requests + low + 1, self->requests + low,
             (self->count - low) * sizeof (s_request_t *));
    self->requests [low] = request;
    self->count++;
    char text [24];
    s_task_key (task, text, sizeof text);
    zhashx_insert (self->tasks, text, request);
    self->changed = true;
    return 0;
}

//  Take a request out of the array (it stays allocated)
static void
s_unlink (drover_affinity_t *self, s_request_t *request)
{
    char text [24];
    s_task_key (request->task, text, sizeof text);
    zhashx_delete (self->tasks, text);
    for (size_t index = 0; index < self->count; index++)
        if (self->requests [index] == request) {
            memmove (self->requests + index, self->requests + index + 1,
                     (self->count - index - 1) * sizeof (s_request_t *));
            self->count--;
            return;
        }
    assert (false);             //  the hash and the array hold the same requests
}

//  Drop a request
int
drover_affinity_remove (drover_affinity_t *self, uint64_t task)
{
    assert (self);
    char text [24];
    s_task_key (task, text, sizeof text);
    s_request_t *request = (s_request_t *) zhashx_lookup (self->tasks, text);
    if (!request)
        return -1;
    s_unlink (self, request);
    s_request_destroy (&request);
    return 0;
}

//  Return true if the task waits here
bool
drover_affinity_holds (drover_affinity_t *self, uint64_t task)
{
    assert (self);
    char text [24];
    s_task_key (task, text, sizeof text);
    return zhashx_lookup (self->tasks, text) != NULL;
}

//  Return how many requests wait
size_t
drover_affinity_size (drover_affinity_t *self)
{
    assert (self);
    return self->count;
}

//  The workers changed
void
drover_affinity_workers_changed (drover_affinity_t *self)
{
    assert (self);
    self->workers_at++;
    self->room_at++;
    self->changed = true;
}

//  Room may have grown
void
drover_affinity_room_changed (drover_affinity_t *self)
{
    assert (self);
    self->room_at++;
    self->changed = true;
}

//  Rebuild the workers' ids and hashes from the queue's, if they changed
static void
s_refresh_workers (drover_affinity_t *self, drover_schedq_t *sched)
{
    if (self->built_at == self->workers_at)
        return;
    s_clear_workers (self);
    size_t count = drover_schedq_workers (sched);
    if (count) {
        self->ids = (char **) malloc (count * sizeof (char *));
        self->hashes = (uint64_t *) malloc (count * sizeof (uint64_t));
        assert (self->ids && self->hashes);
    }
    for (const char *id = drover_schedq_first (sched); id && self->nworkers < count;
         id = drover_schedq_next (sched)) {
        self->ids [self->nworkers] = strdup (id);
        self->hashes [self->nworkers] = drover_rendezvous_hash (id, strlen (id));
        self->nworkers++;
    }
    self->built_at = self->workers_at;
}

//  Accept a worker for a request: it could hold it in all, or has room now
static bool
s_accept (size_t index, void *arg)
{
    s_accept_t *accept = (s_accept_t *) arg;
    const s_request_t *request = accept->request;
    const char *id = accept->self->ids [index];
    return (accept->room?
        drover_schedq_has_room (accept->sched, id, request->procs, request->mem, request->labels):
        drover_schedq_could_hold (accept->sched, id, request->procs, request->mem,
                                 request->labels))
        && drover_schedq_has_devices (accept->sched, id, request->devices, accept->room);
}

//  Find a request's first worker (one pass over the workers), unless it
//  was found in this generation of them
static void
s_find_first (drover_affinity_t *self, drover_schedq_t *sched, s_request_t *request)
{
    if (request->first_at == self->workers_at)
        return;
    s_accept_t accept = { self, sched, request, false };
    request->first = drover_rendezvous_best (request->key_hash, self->hashes, self->nworkers,
                                             (const char *const *) self->ids, s_accept,
                                             &accept);
    request->first_at = self->workers_at;
}

//  Find a worker for a request now, or NULL: during its wait only its
//  first (if it has room), after it the first in order with room
static const char *
s_choose (drover_affinity_t *self, drover_schedq_t *sched, s_request_t *request, int64_t now)
{
    s_find_first (self, sched, request);
    if (now < request->until) {
        if (self->deadline == -1 || request->until < self->deadline)
            self->deadline = request->until;
        const char *first = request->first >= 0? self->ids [request->first]: NULL;
        return first && drover_schedq_has_room (sched, first, request->procs, request->mem,
                                               request->labels)
            && drover_schedq_has_devices (sched, first, request->devices, true)? first: NULL;
    }
    if (request->full_at == self->room_at)
        return NULL;            //  no room anywhere, and none grew since
    const s_request_t *full = self->full;
    if (full && request->procs >= full->procs && request->mem >= full->mem
    &&  streq (request->labels, full->labels) && streq (request->devices, full->devices)) {
        request->full_at = self->room_at;
        return NULL;            //  no room for less of the same, no room for it
    }
    s_accept_t accept = { self, sched, request, true };
    long best = drover_rendezvous_best (request->key_hash, self->hashes, self->nworkers,
                                        (const char *const *) self->ids, s_accept, &accept);
    if (best < 0) {
        request->full_at = self->room_at;
        self->full = request;
        return NULL;
    }
    return self->ids [best];
}

//  Place what can be placed now
int
drover_affinity_run (drover_affinity_t *self, drover_schedq_t *sched, int64_t now,
                     drover_schedq_assign_fn *fn, void *arg)
{
    assert (self && sched && fn);
    if (!self->changed && (self->deadline == -1 || now < self->deadline))
        return 0;               //  nothing changed, no wait ended
    self->changed = false;
    self->deadline = -1;
    s_refresh_workers (self, sched);
    self->full = NULL;
    int placed = 0;
    size_t index = 0;
    while (index < self->count) {
        s_request_t *request = self->requests [index];
        const char *worker = s_choose (self, sched, request, now);
        if (!worker
        ||  drover_schedq_place_as (sched, worker, request->task, request->procs, request->mem,
                                   request->labels, &(drover_schedq_tenant_t) {
                                       request->owner, request->devices, request->flags })) {
            index++;            //  it waits (or the queue holds the task already: our bug)
            continue;
        }
        //  What it takes is no longer free: requests that found no room
        //  stay as they are
        memmove (self->requests + index, self->requests + index + 1,
                 (self->count - index - 1) * sizeof (s_request_t *));
        self->count--;
        char text [24];
        s_task_key (request->task, text, sizeof text);
        zhashx_delete (self->tasks, text);
        fn (request->task, worker, arg);
        s_request_destroy (&request);
        placed++;
    }
    return placed;
}

//  One demand shape of the requests, while they are counted
typedef struct {
    const s_request_t *sample;  //  the first request asking it
    uint32_t count;             //  requests asking it
} s_shape_t;

//  Free a shape; the hash's destructor
static void
s_shape_free (void **item_p)
{
    free (*item_p);
    *item_p = NULL;
}

//  Call fn for each distinct demand of the requests waiting
void
drover_affinity_each_demand (drover_affinity_t *self, size_t max_shapes,
                             drover_schedq_demand_fn *fn, void *arg)
{
    assert (self && fn);
    if (self->count == 0)
        return;
    zhashx_t *shapes = zhashx_new ();
    zhashx_set_destructor (shapes, s_shape_free);
    zlistx_t *order = zlistx_new ();
    for (size_t index = 0; index < self->count; index++) {
        const s_request_t *request = self->requests [index];
        char *key = zsys_sprintf ("%u/%" PRIu64 "/%s/%s", request->procs, request->mem,
                                  request->labels, request->devices);
        s_shape_t *shape = (s_shape_t *) zhashx_lookup (shapes, key);
        if (shape)
            shape->count++;
        else
        if (zlistx_size (order) < max_shapes) {
            shape = (s_shape_t *) zmalloc (sizeof (s_shape_t));
            shape->sample = request;
            shape->count = 1;
            zhashx_insert (shapes, key, shape);
            zlistx_add_end (order, shape);
        }
        zstr_free (&key);
    }
    for (s_shape_t *shape = (s_shape_t *) zlistx_first (order); shape;
         shape = (s_shape_t *) zlistx_next (order))
        fn (shape->sample->procs, shape->sample->mem, shape->sample->labels,
            shape->sample->devices, shape->count, arg);
    zlistx_destroy (&order);
    zhashx_destroy (&shapes);
}

//  Return when a wait ends and a run must look again, or -1
int64_t
drover_affinity_deadline (drover_affinity_t *self)
{
    assert (self);
    return self->deadline;
}

//  Say why a request waits
int
drover_affinity_explain (drover_affinity_t *self, drover_schedq_t *sched, uint64_t task,
                         int64_t now, char *worker, size_t size, int64_t *left_p)
{
    assert (self && sched && worker && left_p);
    char text [24];
    s_task_key (task, text, sizeof text);
    s_request_t *request = (s_request_t *) zhashx_lookup (self->tasks, text);
    if (!request)
        return -1;
    s_refresh_workers (self, sched);
    s_find_first (self, sched, request);
    snprintf (worker, size, "%s", request->first >= 0? self->ids [request->first]: "");
    *left_p = now < request->until? request->until - now: 0;
    return 0;
}
