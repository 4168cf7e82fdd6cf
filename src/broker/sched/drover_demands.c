/*  =========================================================================
    drover_demands - what requests demand besides procs, and which workers
    carry the labels they require: the scheduler's demands and label index

    Demands live in a map from their key ("<mem hex>:<labels as given>"),
    which each demand owns; the map frees a demand when its last reference
    goes. The cache holds a reference of its own to the demand last asked
    for. The label index maps each label to an unordered array of worker
    handles: workers come and go rarely, so removal scans the array.
    =========================================================================
*/

#include "drover_demands.h"
#include "drover_devicelist.h"

//  The workers that carry one label, in no order
typedef struct {
    uint32_t *handles;          //  worker handles
    size_t count;               //  entries used
    size_t capacity;            //  entries allocated
} s_holders_t;

struct _drover_demands_t {
    zhashx_t *demands;          //  demand key -> drover_demand_t (owned)
    zhashx_t *holders;          //  label "k=v" -> s_holders_t (owned)
    drover_demand_t *cached;    //  the demand last asked for (holds a reference), or NULL
    char *scratch;              //  buffer for demand keys
    size_t scratch_size;        //  bytes allocated in scratch
    uint32_t serials;           //  demands made so far
    drover_demand_t **plain;    //  by owner handle: its demand of nothing but procs (holds
                                //  a reference), or NULL; the common case costs an index
    size_t nplain;              //  entries in plain
};

//  Free a label's holders; the holders map's destructor
static void
s_holders_destroy (void **item_p)
{
    s_holders_t *holders = (s_holders_t *) *item_p;
    if (holders) {
        free (holders->handles);
        free (holders);
        *item_p = NULL;
    }
}

//  Free a demand; the demands map's destructor
static void
s_demand_destroy (void **item_p)
{
    drover_demand_t *demand = (drover_demand_t *) *item_p;
    if (demand) {
        free (demand->labels);
        free (demand->label_text);
        free (demand->devices);
        free (demand->device_text);
        free (demand->key);
        free (demand);
        *item_p = NULL;
    }
}

//  Create an empty set of demands and an empty label index
drover_demands_t *
drover_demands_new (void)
{
    drover_demands_t *self = (drover_demands_t *) zmalloc (sizeof (drover_demands_t));
    self->demands = zhashx_new ();
    zhashx_set_key_duplicator (self->demands, NULL);    //  keys live in the demands
    zhashx_set_key_destructor (self->demands, NULL);
    zhashx_set_destructor (self->demands, s_demand_destroy);
    self->holders = zhashx_new ();
    zhashx_set_destructor (self->holders, s_holders_destroy);
    return self;
}

//  Destroy the demands and the label index
void
drover_demands_destroy (drover_demands_t **self_p)
{
    assert (self_p);
    drover_demands_t *self = *self_p;
    if (self) {
        zhashx_destroy (&self->demands);       //  holders need not unref: all go
        free (self->plain);
        zhashx_destroy (&self->holders);
        free (self->scratch);
        free (self);
        *self_p = NULL;
    }
}

//  Return a reference to the demand for mem and labels, made if new
drover_demand_t *
drover_demands_ref (drover_demands_t *self, uint64_t mem, const char *labels)
{
    return drover_demands_ref_as (self, mem, labels, NULL);
}

//  Return a reference to the demand for mem, labels and a tenant, made if
//  new. The last one used is cached, so a run of alike requests costs a
//  compare.
drover_demand_t *
drover_demands_ref_as (drover_demands_t *self, uint64_t mem, const char *labels,
                       const drover_demand_tenant_t *tenant)
{
    assert (self);
    if (!labels)
        labels = "";
    uint32_t owner = tenant? tenant->owner: 0;
    uint32_t flags = tenant? tenant->flags: 0;
    const char *devices = tenant && tenant->devices? tenant->devices: "";
    bool plain = mem == 0 && flags == 0 && !*labels && !*devices;
    if (plain && owner < self->nplain && self->plain [owner]) {
        self->plain [owner]->refs++;
        return self->plain [owner];
    }
    drover_demand_t *demand = self->cached;
    if (demand && demand->mem == mem && demand->owner == owner && demand->flags == flags
    &&  streq (demand->given, labels) && streq (demand->device_text, devices)) {
        demand->refs++;
        return demand;
    }
    size_t size = strlen (labels) + strlen (devices) + 48;
    if (size > self->scratch_size) {
        self->scratch = (char *) realloc (self->scratch, size);
        assert (self->scratch);
        self->scratch_size = size;
    }
    int head = snprintf (self->scratch, size, "%" PRIx64 ":%x:%x:", mem, owner, flags);
    int prefix = head + snprintf (self->scratch + head, size - head, "%s:", devices);
    strcpy (self->scratch + prefix, labels);
    demand = (drover_demand_t *) zhashx_lookup (self->demands, self->scratch);
    if (!demand) {
        drover_device_t parsed [DROVER_DEVICES_MAX];
        int count = drover_devicelist_parse (devices, parsed, NULL);
        if (count < 0)
            return NULL;        //  not a device list
        demand = (drover_demand_t *) zmalloc (sizeof (drover_demand_t));
        demand->key = strdup (self->scratch);
        assert (demand->key);
        demand->device_text = strdup (devices);
        assert (demand->device_text);
        demand->given = demand->key + prefix;
        demand->mem = mem;
        demand->owner = owner;
        demand->flags = flags;
        demand->serial = ++self->serials;
        if (count > 0) {
            demand->devices = (drover_device_t *) malloc ((size_t) count * sizeof (drover_device_t));
            assert (demand->devices);
            memcpy (demand->devices, parsed, (size_t) count * sizeof (drover_device_t));
            demand->ndevices = (size_t) count;
        }
        drover_labels_parse (labels, &demand->label_text, &demand->labels, &demand->nlabels);
        zhashx_insert (self->demands, demand->key, demand);
    }
    if (plain) {
        if (owner >= self->nplain) {
            size_t size = owner * 2 + 16;
            self->plain = (drover_demand_t **) realloc (self->plain, size * sizeof (void *));
            assert (self->plain);
            memset (self->plain + self->nplain, 0, (size - self->nplain) * sizeof (void *));
            self->nplain = size;
        }
        self->plain [owner] = demand;   //  kept while the demands live
        demand->refs += 2;
        return demand;
    }
    demand->refs += 2;          //  the caller's and the cache's
    if (self->cached)
        drover_demands_unref (self, self->cached);
    self->cached = demand;
    return demand;
}

//  Drop a reference to a demand, forgetting it with the last one
void
drover_demands_unref (drover_demands_t *self, drover_demand_t *demand)
{
    assert (self);
    assert (demand->refs > 0);
    if (--demand->refs == 0)
        zhashx_delete (self->demands, demand->key);
}

//  Return how many distinct demands are alive
size_t
drover_demands_size (drover_demands_t *self)
{
    assert (self);
    return zhashx_size (self->demands);
}

//  Enter a worker among the holders of each of its labels
void
drover_demands_index (drover_demands_t *self, char *const *labels, size_t nlabels,
                      uint32_t handle)
{
    assert (self);
    for (size_t index = 0; index < nlabels; index++) {
        s_holders_t *holders = (s_holders_t *) zhashx_lookup (self->holders, labels [index]);
        if (!holders) {
            holders = (s_holders_t *) zmalloc (sizeof (s_holders_t));
            zhashx_insert (self->holders, labels [index], holders);
        }
        if (holders->count == holders->capacity) {
            holders->capacity = holders->capacity? holders->capacity * 2: 8;
            holders->handles = (uint32_t *) realloc (holders->handles,
                                                     holders->capacity * sizeof (uint32_t));
            assert (holders->handles);
        }
        holders->handles [holders->count++] = handle;
    }
}

//  Take a worker out of the holders of each of its labels (a worker
//  leaves rarely: a scan of each list is fine); drop lists left empty
void
drover_demands_unindex (drover_demands_t *self, char *const *labels, size_t nlabels,
                        uint32_t handle)
{
    assert (self);
    for (size_t index = 0; index < nlabels; index++) {
        s_holders_t *holders = (s_holders_t *) zhashx_lookup (self->holders, labels [index]);
        if (!holders)
            continue;           //  a label twice on one worker: gone already
        for (size_t slot = 0; slot < holders->count; slot++)
            if (holders->handles [slot] == handle) {
                holders->handles [slot] = holders->handles [--holders->count];
                break;
            }
        if (holders->count == 0)
            zhashx_delete (self->holders, labels [index]);
    }
}

//  Return the holders of the demand's label that fewest workers carry,
//  or NULL if some label has none: then no worker can meet it
const uint32_t *
drover_demands_rarest (drover_demands_t *self, const drover_demand_t *demand,
                       size_t *count_p)
{
    assert (self);
    assert (count_p);
    s_holders_t *rarest = NULL;
    *count_p = 0;
    for (size_t index = 0; index < demand->nlabels; index++) {
        s_holders_t *holders = (s_holders_t *) zhashx_lookup (self->holders,
                                                              demand->labels [index]);
        if (!holders)
            return NULL;        //  nobody carries this label
        if (!rarest || holders->count < rarest->count)
            rarest = holders;
    }
    if (!rarest)
        return NULL;            //  no label required
    *count_p = rarest->count;
    return rarest->handles;
}

//  Split "k=v\nk=v" into a private copy and pointers into it; empty
//  lines are skipped. Leaves both NULL when there are no labels.
void
drover_labels_parse (const char *text, char **text_p, char ***labels_p, size_t *count_p)
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
