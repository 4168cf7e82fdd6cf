/*  =========================================================================
    drover_sched - the scheduling queue: pending requests and the machines
    they are placed on, after bigslice's machine manager

    Two binary heaps hold the queued requests: one in placement order
    (priority, then procs decreasing, then arrival) and one by procs
    increasing, whose head says whether anything queued could still fit the
    free procs left. A third heap holds the eligible machines, most free
    procs first. Every element knows its index in each heap it is in, so a
    change or a removal costs O(log n). Hash maps find requests by task id
    and machines by id. One pass costs O(log n) per placement plus one per
    shelved request; only a request whose memory or labels the least-loaded
    machine cannot meet makes it scan the eligible machines.
    =========================================================================
*/

#include "drover_sched.h"

//  Index of an element that is in no heap
#define S_NOWHERE   SIZE_MAX

//  Return true if a must come before b
typedef bool (s_less_fn) (const void *a, const void *b);

//  A binary heap of pointers; each element keeps its own index at offset
typedef struct {
    void **items;               //  the heap array
    size_t size;                //  elements in use
    size_t capacity;            //  elements allocated
    s_less_fn *less;            //  ordering
    size_t offset;              //  offset of the size_t index in an element
} s_heap_t;

//  A request, queued or assigned (it becomes its own assignment record)
typedef struct {
    uint64_t task;              //  task id, the key of self->tasks
    int32_t priority;           //  lower runs first
    uint32_t procs;             //  procs demanded, >= 1
    uint64_t mem;               //  memory demanded, bytes, 0 = none
    uint64_t arrival;           //  push order, for FIFO among equals
    char *label_text;           //  required labels, "\n" turned to NUL, or NULL
    char **labels;              //  pointers into label_text
    size_t nlabels;             //  entries in labels
    size_t order_index;         //  index in self->requests, or S_NOWHERE
    size_t size_index;          //  index in self->smallest, or S_NOWHERE
    void *machine;              //  s_machine_t it is assigned to, or NULL
    void *handle;               //  its node in the machine's task list
} s_request_t;

//  A machine (a registered worker)
typedef struct {
    char *id;                   //  worker id, the key of self->machines
    uint32_t procs;             //  procs offered
    uint32_t used;              //  procs taken by assigned tasks
    uint64_t mem;               //  memory offered, bytes
    uint64_t mem_used;          //  memory taken by assigned tasks, bytes
    char *label_text;           //  its labels, "\n" turned to NUL, or NULL
    char **labels;              //  pointers into label_text
    size_t nlabels;             //  entries in labels
    int admin;                  //  drover_admin_t
    bool probation;             //  benched: takes nothing new
    drover_stats_t stats;       //  last stats, for WORKER TABLE
    zlistx_t *tasks;            //  s_request_t assigned here (not owned)
    size_t heap_index;          //  index in self->eligible, or S_NOWHERE
    void *handle;               //  its node in self->order
} s_machine_t;

struct _drover_sched_t {
    zhashx_t *tasks;            //  task id -> s_request_t, queued or assigned (owned)
    zhashx_t *machines;         //  machine id -> s_machine_t (owned)
    zlistx_t *order;            //  s_machine_t in order of arrival, for iteration
    s_heap_t requests;          //  queued requests in placement order
    s_heap_t smallest;          //  queued requests by procs, fewest first
    s_heap_t eligible;          //  eligible machines, most free procs first
    s_request_t **shelf;        //  requests set aside during a pass
    size_t shelved;             //  entries in shelf
    size_t shelf_capacity;      //  entries allocated in shelf
    uint32_t max_shelve;        //  most unfit requests one pass looks past
    uint64_t arrivals;          //  requests pushed so far
};


//  ---------------------------------------------------------------------
//  The heap

//  Put item at index and tell it where it is
static void
s_heap_place (s_heap_t *heap, size_t index, void *item)
{
    heap->items [index] = item;
    *(size_t *) ((char *) item + heap->offset) = index;
}

//  Return where item is in the heap, or S_NOWHERE
static size_t
s_heap_index (s_heap_t *heap, void *item)
{
    return *(size_t *) ((char *) item + heap->offset);
}

//  Move the element at index up until its parent comes before it
static size_t
s_heap_up (s_heap_t *heap, size_t index)
{
    void *item = heap->items [index];
    while (index > 0) {
        size_t parent = (index - 1) / 2;
        if (!heap->less (item, heap->items [parent]))
            break;
        s_heap_place (heap, index, heap->items [parent]);
        index = parent;
    }
    s_heap_place (heap, index, item);
    return index;
}

//  Move the element at index down until its children come after it
static void
s_heap_down (s_heap_t *heap, size_t index)
{
    void *item = heap->items [index];
    while (true) {
        size_t child = 2 * index + 1;
        if (child >= heap->size)
            break;
        if (child + 1 < heap->size && heap->less (heap->items [child + 1], heap->items [child]))
            child++;
        if (!heap->less (heap->items [child], item))
            break;
        s_heap_place (heap, index, heap->items [child]);
        index = child;
    }
    s_heap_place (heap, index, item);
}

//  Restore heap order around an element whose key changed
static void
s_heap_fix (s_heap_t *heap, void *item)
{
    size_t index = s_heap_index (heap, item);
    assert (index < heap->size);
    if (s_heap_up (heap, index) == index)
        s_heap_down (heap, index);
}

//  Add an element
static void
s_heap_push (s_heap_t *heap, void *item)
{
    if (heap->size == heap->capacity) {
        heap->capacity = heap->capacity? heap->capacity * 2: 64;
        heap->items = (void **) realloc (heap->items, heap->capacity * sizeof (void *));
        assert (heap->items);
    }
    s_heap_place (heap, heap->size++, item);
    s_heap_up (heap, heap->size - 1);
}

//  Remove an element from wherever it is
static void
s_heap_remove (s_heap_t *heap, void *item)
{
    size_t index = s_heap_index (heap, item);
    assert (index < heap->size && heap->items [index] == item);
    void *last = heap->items [--heap->size];
    if (index < heap->size) {
        s_heap_place (heap, index, last);
        s_heap_fix (heap, last);
    }
    *(size_t *) ((char *) item + heap->offset) = S_NOWHERE;
}

//  Return the first element, or NULL if empty
static void *
s_heap_top (s_heap_t *heap)
{
    return heap->size? heap->items [0]: NULL;
}


//  ---------------------------------------------------------------------
//  Orderings and keys

//  Placement order: priority, then procs decreasing, then arrival
static bool
s_request_less (const void *a, const void *b)
{
    const s_request_t *one = (const s_request_t *) a;
    const s_request_t *two = (const s_request_t *) b;
    if (one->priority != two->priority)
        return one->priority < two->priority;
    if (one->procs != two->procs)
        return one->procs > two->procs;
    return one->arrival < two->arrival;
}

//  Size order: procs increasing
static bool
s_request_smaller (const void *a, const void *b)
{
    const s_request_t *one = (const s_request_t *) a;
    const s_request_t *two = (const s_request_t *) b;
    if (one->procs != two->procs)
        return one->procs < two->procs;
    return one->arrival < two->arrival;
}

//  Procs a machine has free
static uint32_t
s_free_procs (const s_machine_t *machine)
{
    return machine->used < machine->procs? machine->procs - machine->used: 0;
}

//  Memory a machine has free, bytes
static uint64_t
s_free_mem (const s_machine_t *machine)
{
    return machine->mem_used < machine->mem? machine->mem - machine->mem_used: 0;
}

//  Machine order: most free procs, then most free memory, then id
static bool
s_machine_less (const void *a, const void *b)
{
    const s_machine_t *one = (const s_machine_t *) a;
    const s_machine_t *two = (const s_machine_t *) b;
    if (s_free_procs (one) != s_free_procs (two))
        return s_free_procs (one) > s_free_procs (two);
    if (s_free_mem (one) != s_free_mem (two))
        return s_free_mem (one) > s_free_mem (two);
    return strcmp (one->id, two->id) < 0;
}

//  Hash a task id (splitmix64's finalizer spreads sequential ids)
static size_t
s_task_hash (const void *key)
{
    uint64_t value = *(const uint64_t *) key;
    value ^= value >> 30;
    value *= 0xbf58476d1ce4e5b9ULL;
    value ^= value >> 27;
    value *= 0x94d049bb133111ebULL;
    value ^= value >> 31;
    return (size_t) value;
}

//  Compare two task ids for the hash map
static int
s_task_compare (const void *a, const void *b)
{
    uint64_t one = *(const uint64_t *) a;
    uint64_t two = *(const uint64_t *) b;
    return one < two? -1: one > two? 1: 0;
}

//  Split "k=v\nk=v" into a private copy and pointers into it; empty
//  lines are skipped. Leaves both NULL when there are no labels.
static void
s_labels_parse (const char *text, char **text_p, char ***labels_p, size_t *count_p)
{
    *text_p = NULL;
    *labels_p = NULL;
    *count_p = 0;
    if (!text || !*text)
        return;
    char *copy = strdup (text);
    assert (copy);
    size_t lines = 1;
    for (char *cursor = copy; *cursor; cursor++)
        lines += *cursor == '\n';
    char **labels = (char **) calloc (lines, sizeof (char *));
    assert (labels);
    size_t count = 0;
    char *start = copy;
    while (start) {
        char *newline = strchr (start, '\n');
        if (newline)
            *newline = 0;
        if (*start)
            labels [count++] = start;
        start = newline? newline + 1: NULL;
    }
    if (count == 0) {
        free (labels);
        free (copy);
        return;
    }
    *text_p = copy;
    *labels_p = labels;
    *count_p = count;
}

//  Return true if a machine has every label a request requires
static bool
s_labels_match (const s_machine_t *machine, const s_request_t *request)
{
    for (size_t wanted = 0; wanted < request->nlabels; wanted++) {
        size_t have;
        for (have = 0; have < machine->nlabels; have++)
            if (streq (machine->labels [have], request->labels [wanted]))
                break;
        if (have == machine->nlabels)
            return false;
    }
    return true;
}

//  Return true if a request fits a machine now: procs, memory and labels
static bool
s_fits (const s_machine_t *machine, const s_request_t *request)
{
    return request->procs <= s_free_procs (machine)
        && request->mem <= s_free_mem (machine)
        && s_labels_match (machine, request);
}


//  ---------------------------------------------------------------------
//  Requests and machines

//  Free a request; the hash map's destructor
static void
s_request_destroy (void **item_p)
{
    s_request_t *request = (s_request_t *) *item_p;
    if (request) {
        free (request->labels);
        free (request->label_text);
        free (request);
        *item_p = NULL;
    }
}

//  Free a machine; the hash map's destructor (its tasks are freed by the
//  caller, who owns them through self->tasks)
static void
s_machine_destroy (void **item_p)
{
    s_machine_t *machine = (s_machine_t *) *item_p;
    if (machine) {
        zlistx_destroy (&machine->tasks);
        free (machine->labels);
        free (machine->label_text);
        free (machine->id);
        free (machine);
        *item_p = NULL;
    }
}

//  Put a machine in the eligible heap, take it out, or reorder it, after
//  anything about it changed
static void
s_machine_refresh (drover_sched_t *self, s_machine_t *machine)
{
    bool eligible = machine->admin == DROVER_ADMIN_RUN && !machine->probation;
    if (eligible && machine->heap_index == S_NOWHERE)
        s_heap_push (&self->eligible, machine);
    else
    if (!eligible && machine->heap_index != S_NOWHERE)
        s_heap_remove (&self->eligible, machine);
    else
    if (eligible)
        s_heap_fix (&self->eligible, machine);
}


//  ---------------------------------------------------------------------
//  Construction

//  Create an empty queue
drover_sched_t *
drover_sched_new (uint32_t max_shelve)
{
    drover_sched_t *self = (drover_sched_t *) zmalloc (sizeof (drover_sched_t));
    self->tasks = zhashx_new ();
    zhashx_set_key_hasher (self->tasks, s_task_hash);
    zhashx_set_key_comparator (self->tasks, s_task_compare);
    zhashx_set_key_duplicator (self->tasks, NULL);      //  keys live in the requests
    zhashx_set_key_destructor (self->tasks, NULL);
    zhashx_set_destructor (self->tasks, s_request_destroy);
    self->machines = zhashx_new ();
    zhashx_set_destructor (self->machines, s_machine_destroy);
    self->order = zlistx_new ();
    self->requests.less = s_request_less;
    self->requests.offset = offsetof (s_request_t, order_index);
    self->smallest.less = s_request_smaller;
    self->smallest.offset = offsetof (s_request_t, size_index);
    self->eligible.less = s_machine_less;
    self->eligible.offset = offsetof (s_machine_t, heap_index);
    self->max_shelve = max_shelve;
    return self;
}

//  Destroy the queue and everything in it
void
drover_sched_destroy (drover_sched_t **self_p)
{
    assert (self_p);
    drover_sched_t *self = *self_p;
    if (self) {
        zhashx_destroy (&self->tasks);
        zhashx_destroy (&self->machines);
        zlistx_destroy (&self->order);
        free (self->requests.items);
        free (self->smallest.items);
        free (self->eligible.items);
        free (self->shelf);
        free (self);
        *self_p = NULL;
    }
}

//  Change how many unfit requests one pass looks past
void
drover_sched_set_max_shelve (drover_sched_t *self, uint32_t max_shelve)
{
    assert (self);
    self->max_shelve = max_shelve;
}


//  ---------------------------------------------------------------------
//  Machines

//  Add a machine, or update a known one in place
int
drover_sched_add_machine (drover_sched_t *self, const char *id, uint32_t procs,
                          uint64_t mem, const char *labels)
{
    assert (self);
    assert (id);
    s_machine_t *machine = (s_machine_t *) zhashx_lookup (self->machines, id);
    int rc = 1;
    if (machine) {
        free (machine->labels);
        free (machine->label_text);
    }
    else {
        machine = (s_machine_t *) zmalloc (sizeof (s_machine_t));
        machine->id = strdup (id);
        assert (machine->id);
        machine->admin = DROVER_ADMIN_RUN;
        machine->tasks = zlistx_new ();
        machine->heap_index = S_NOWHERE;
        zhashx_insert (self->machines, id, machine);
        machine->handle = zlistx_add_end (self->order, machine);
        rc = 0;
    }
    machine->procs = procs;
    machine->mem = mem;
    s_labels_parse (labels, &machine->label_text, &machine->labels, &machine->nlabels);
    s_machine_refresh (self, machine);
    return rc;
}

//  Remove a machine and forget its assignments, telling fn about each
int
drover_sched_remove_machine (drover_sched_t *self, const char *id,
                             drover_sched_task_fn *fn, void *arg)
{
    assert (self);
    s_machine_t *machine = (s_machine_t *) zhashx_lookup (self->machines, id);
    if (!machine)
        return -1;              //  unknown machine
    if (machine->heap_index != S_NOWHERE)
        s_heap_remove (&self->eligible, machine);
    int count = 0;
    s_request_t *request = (s_request_t *) zlistx_first (machine->tasks);
    while (request) {
        uint64_t task = request->task;
        if (fn)
            fn (task, arg);
        zhashx_delete (self->tasks, &task);
        count++;
        request = (s_request_t *) zlistx_next (machine->tasks);
    }
    zlistx_delete (self->order, machine->handle);
    zhashx_delete (self->machines, id);
    return count;
}

//  Set a machine's admin setting
int
drover_sched_set_admin (drover_sched_t *self, const char *id, int admin)
{
    assert (self);
    s_machine_t *machine = (s_machine_t *) zhashx_lookup (self->machines, id);
    if (!machine || admin < 0 || admin > DROVER_ADMIN_MAX)
        return -1;              //  unknown machine or not a setting
    machine->admin = admin;
    s_machine_refresh (self, machine);
    return 0;
}

//  Put a machine on probation or take it off
int
drover_sched_set_probation (drover_sched_t *self, const char *id, bool probation)
{
    assert (self);
    s_machine_t *machine = (s_machine_t *) zhashx_lookup (self->machines, id);
    if (!machine)
        return -1;              //  unknown machine
    machine->probation = probation;
    s_machine_refresh (self, machine);
    return 0;
}

//  Keep a machine's last stats
int
drover_sched_set_stats (drover_sched_t *self, const char *id, const drover_stats_t *stats)
{
    assert (self);
    assert (stats);
    s_machine_t *machine = (s_machine_t *) zhashx_lookup (self->machines, id);
    if (!machine)
        return -1;              //  unknown machine
    machine->stats = *stats;
    return 0;
}


//  ---------------------------------------------------------------------
//  Requests

//  Queue a request
int
drover_sched_push (drover_sched_t *self, uint64_t task, int32_t priority,
                   uint32_t procs, uint64_t mem, const char *labels)
{
    assert (self);
    if (procs == 0 || zhashx_lookup (self->tasks, &task))
        return -1;              //  nothing to place, or already known
    s_request_t *request = (s_request_t *) zmalloc (sizeof (s_request_t));
    request->task = task;
    request->priority = priority;
    request->procs = procs;
    request->mem = mem;
    request->arrival = self->arrivals++;
    s_labels_parse (labels, &request->label_text, &request->labels, &request->nlabels);
    zhashx_insert (self->tasks, &request->task, request);
    s_heap_push (&self->requests, request);
    s_heap_push (&self->smallest, request);
    return 0;
}

//  Drop a queued request
int
drover_sched_remove (drover_sched_t *self, uint64_t task)
{
    assert (self);
    s_request_t *request = (s_request_t *) zhashx_lookup (self->tasks, &task);
    if (!request || request->machine)
        return -1;              //  not queued
    s_heap_remove (&self->requests, request);
    s_heap_remove (&self->smallest, request);
    zhashx_delete (self->tasks, &task);
    return 0;
}

//  Give back an assigned task's procs and memory
const char *
drover_sched_free (drover_sched_t *self, uint64_t task)
{
    assert (self);
    s_request_t *request = (s_request_t *) zhashx_lookup (self->tasks, &task);
    if (!request || !request->machine)
        return NULL;            //  holds nothing
    s_machine_t *machine = (s_machine_t *) request->machine;
    machine->used -= request->procs;
    machine->mem_used -= request->mem;
    zlistx_delete (machine->tasks, request->handle);
    zhashx_delete (self->tasks, &task);
    s_machine_refresh (self, machine);
    return machine->id;
}


//  ---------------------------------------------------------------------
//  The pass

//  Return the eligible machine with the most free procs that meets every
//  constraint of the request, or NULL; the rare path, so a scan
static s_machine_t *
s_best_fit (drover_sched_t *self, s_request_t *request)
{
    s_machine_t *best = NULL;
    for (size_t index = 0; index < self->eligible.size; index++) {
        s_machine_t *machine = (s_machine_t *) self->eligible.items [index];
        if (s_fits (machine, request) && (!best || s_machine_less (machine, best)))
            best = machine;
    }
    return best;
}

//  Take a request out of the heaps for the rest of this pass
static void
s_shelve (drover_sched_t *self, s_request_t *request)
{
    if (self->shelved == self->shelf_capacity) {
        self->shelf_capacity = self->shelf_capacity? self->shelf_capacity * 2: 64;
        self->shelf = (s_request_t **) realloc (self->shelf,
                                               self->shelf_capacity * sizeof (s_request_t *));
        assert (self->shelf);
    }
    s_heap_remove (&self->requests, request);
    s_heap_remove (&self->smallest, request);
    self->shelf [self->shelved++] = request;
}

//  Put every shelved request back in the heaps
static void
s_unshelve (drover_sched_t *self)
{
    for (size_t index = 0; index < self->shelved; index++) {
        s_heap_push (&self->requests, self->shelf [index]);
        s_heap_push (&self->smallest, self->shelf [index]);
    }
    self->shelved = 0;
}

//  Place a queued request on a machine
static void
s_assign (drover_sched_t *self, s_request_t *request, s_machine_t *machine)
{
    s_heap_remove (&self->requests, request);
    s_heap_remove (&self->smallest, request);
    request->machine = machine;
    request->handle = zlistx_add_end (machine->tasks, request);
    machine->used += request->procs;
    machine->mem_used += request->mem;
    s_machine_refresh (self, machine);
    //  An assignment needs no labels: give the memory back now
    free (request->labels);
    free (request->label_text);
    request->labels = NULL;
    request->label_text = NULL;
    request->nlabels = 0;
}

//  Run one scheduling pass; fn must not change the queue
int
drover_sched_run (drover_sched_t *self, drover_sched_assign_fn *fn, void *arg)
{
    assert (self);
    int placed = 0;
    while (self->requests.size && self->eligible.size) {
        s_machine_t *top = (s_machine_t *) s_heap_top (&self->eligible);
        uint32_t room = s_free_procs (top);
        if (room == 0)
            break;              //  the least loaded machine is full: all are
        s_request_t *smallest = (s_request_t *) s_heap_top (&self->smallest);
        if (smallest->procs > room)
            break;              //  nothing still queued fits anywhere
        s_request_t *request = (s_request_t *) s_heap_top (&self->requests);
        s_machine_t *target = NULL;
        if (request->procs <= room)
            target = s_fits (top, request)? top: s_best_fit (self, request);
        if (!target) {
            s_shelve (self, request);
            if (self->shelved >= self->max_shelve)
                break;          //  looked past enough for one pass
            continue;
        }
        s_assign (self, request, target);
        if (fn)
            fn (request->task, target->id, arg);
        placed++;
    }
    s_unshelve (self);
    return placed;
}


//  ---------------------------------------------------------------------
//  Queries

//  Return true if the task is queued
bool
drover_sched_queued (drover_sched_t *self, uint64_t task)
{
    assert (self);
    s_request_t *request = (s_request_t *) zhashx_lookup (self->tasks, &task);
    return request && !request->machine;
}

//  Return the machine a task is assigned to, or NULL
const char *
drover_sched_assigned (drover_sched_t *self, uint64_t task)
{
    assert (self);
    s_request_t *request = (s_request_t *) zhashx_lookup (self->tasks, &task);
    return request && request->machine? ((s_machine_t *) request->machine)->id: NULL;
}

//  Return how many requests are queued
size_t
drover_sched_size (drover_sched_t *self)
{
    assert (self);
    return self->requests.size + self->shelved;
}

//  Return how many machines are known
size_t
drover_sched_machines (drover_sched_t *self)
{
    assert (self);
    return zhashx_size (self->machines);
}

//  Return true if the machine is known and has nothing assigned
bool
drover_sched_idle (drover_sched_t *self, const char *id)
{
    assert (self);
    s_machine_t *machine = (s_machine_t *) zhashx_lookup (self->machines, id);
    return machine && zlistx_size (machine->tasks) == 0;
}

//  Fill view with a machine's state
int
drover_sched_lookup (drover_sched_t *self, const char *id, drover_sched_view_t *view)
{
    assert (self);
    assert (view);
    s_machine_t *machine = (s_machine_t *) zhashx_lookup (self->machines, id);
    if (!machine)
        return -1;              //  unknown machine
    view->id = machine->id;
    view->procs = machine->procs;
    view->procs_used = machine->used;
    view->mem = machine->mem;
    view->mem_used = machine->mem_used;
    view->admin = machine->admin;
    view->probation = machine->probation;
    view->nlabels = machine->nlabels;
    view->labels = machine->labels;
    view->stats = machine->stats;
    view->tasks = zlistx_size (machine->tasks);
    return 0;
}

//  Return the first known machine's id
const char *
drover_sched_first (drover_sched_t *self)
{
    assert (self);
    s_machine_t *machine = (s_machine_t *) zlistx_first (self->order);
    return machine? machine->id: NULL;
}

//  Return the next machine's id
const char *
drover_sched_next (drover_sched_t *self)
{
    assert (self);
    s_machine_t *machine = (s_machine_t *) zlistx_next (self->order);
    return machine? machine->id: NULL;
}
