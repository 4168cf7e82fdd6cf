/*  =========================================================================
    drover_conns - the broker's TCP connections against its file
    descriptors (see the header)

    A table indexed by descriptor holds each open connection, grown to the
    highest descriptor seen (the kernel hands out the lowest free one, so
    it stays about as large as the most connections open at once). A
    connection has a serial number, so that a queued deadline of one that
    has gone is told from the connection open on its descriptor now.
    =========================================================================
*/

#include "drover_conns.h"

//  Longest peer address kept (an IPv6 address in text)
#define S_ADDRESS_MAX   46

//  One open connection (serial 0: none on that descriptor)
typedef struct {
    uint64_t serial;            //  which connection, 1 and up; 0 if none
    uint64_t route;             //  its routing id's key, from its first message; 0 before
    int64_t since;              //  accepted, or its silent clock restarted, msec monotonic
    uint8_t klass;              //  drover_conn_class_t
    bool told;                  //  refused: its cut is queued `told` msec after
    int port;                   //  the peer's port, 0 if unknown
    char address [S_ADDRESS_MAX];   //  the peer's address, "" if unknown
} s_conn_t;

//  A queued cut: of which connection, when, and why
typedef struct {
    int fd;                     //  its descriptor
    uint64_t serial;            //  the connection meant
    int64_t due;                //  when it is cut, msec monotonic
    uint8_t reason;             //  drover_conns_reason_t it goes for
} s_due_t;

//  Cuts in the order of their deadlines: a ring that grows
typedef struct {
    s_due_t *items;             //  the ring
    size_t head;                //  index of the first
    size_t count;               //  entries in use
    size_t size;                //  entries allocated
} s_queue_t;

//  The queues: one per delay, so each stays in deadline order
enum { S_SILENT_QUEUE, S_GRACE_QUEUE, S_TOLD_QUEUE, S_NOW_QUEUE, S_QUEUES };

struct _drover_conns_t {
    drover_conns_rules_t rules; //  the limits
    s_conn_t *table;            //  connection by descriptor
    size_t table_size;          //  entries allocated
    uint64_t serials;           //  serial numbers given so far
    size_t count;               //  connections open
    size_t classes [DROVER_CONN_CLASSES];   //  open by class
    uint64_t gone [DROVER_CONNS_REASONS];   //  gone by reason
    uint64_t accepted;          //  accepted since creation
    int silent;                 //  msec a stranger may stay silent; 0 while not serving
    s_queue_t queues [S_QUEUES];    //  cuts to come
    zhashx_t *addresses;        //  address -> strangers from it (a count as a pointer)
    char reason [256];          //  why the last request refused was
};


//  Create with the rules
drover_conns_t *
drover_conns_new (const drover_conns_rules_t *rules)
{
    assert (rules);
    assert (rules->fd_limit > 0);
    assert (rules->limit >= 1 && rules->reserve < rules->limit);
    drover_conns_t *self = (drover_conns_t *) zmalloc (sizeof (drover_conns_t));
    self->rules = *rules;
    if (self->rules.spare < 1)
        self->rules.spare = 1;
    self->addresses = zhashx_new ();
    return self;
}

//  Destroy
void
drover_conns_destroy (drover_conns_t **self_p)
{
    assert (self_p);
    drover_conns_t *self = *self_p;
    if (self) {
        for (int index = 0; index < S_QUEUES; index++)
            free (self->queues [index].items);
        zhashx_destroy (&self->addresses);
        free (self->table);
        free (self);
        *self_p = NULL;
    }
}

//  Add a cut at the end of a queue
static void
s_queue_push (s_queue_t *queue, s_due_t due)
{
    if (queue->count == queue->size) {
        size_t size = queue->size? queue->size * 2: 64;
        s_due_t *items = (s_due_t *) malloc (size * sizeof (s_due_t));
        assert (items);
        for (size_t index = 0; index < queue->count; index++)
            items [index] = queue->items [(queue->head + index) % queue->size];
        free (queue->items);
        queue->items = items;
        queue->head = 0;
        queue->size = size;
    }
    queue->items [(queue->head + queue->count++) % queue->size] = due;
}

//  The first cut of a queue, or NULL
static s_due_t *
s_queue_head (s_queue_t *queue)
{
    return queue->count? &queue->items [queue->head]: NULL;
}

//  Drop the first cut of a queue
static void
s_queue_pop (s_queue_t *queue)
{
    assert (queue->count);
    queue->head = (queue->head + 1) % queue->size;
    queue->count--;
}

//  The connection on fd, or NULL if none is open there
static s_conn_t *
s_open (drover_conns_t *self, int fd)
{
    if (fd < 0 || (size_t) fd >= self->table_size || !self->table [fd].serial)
        return NULL;
    return &self->table [fd];
}

//  Tell whether a class is a stranger's place
static bool
s_stranger (int klass)
{
    return klass == DROVER_CONN_SILENT || klass == DROVER_CONN_CLIENT;
}

//  Connections served: strangers, members, trials
static size_t
s_served (drover_conns_t *self)
{
    return self->classes [DROVER_CONN_SILENT] + self->classes [DROVER_CONN_CLIENT]
         + self->classes [DROVER_CONN_MEMBER] + self->classes [DROVER_CONN_TRIAL];
}

//  Strangers from address
static size_t
s_from (drover_conns_t *self, const char *address)
{
    return (size_t) (uintptr_t) zhashx_lookup (self->addresses, address);
}

//  Count one stranger more (+1) or less (-1) from address, if capped
static void
s_count_address (drover_conns_t *self, const char *address, int delta)
{
    if (!self->rules.per_address || !*address)
        return;                 //  not counted
    size_t count = s_from (self, address) + (size_t) delta;
    if (count)
        zhashx_update (self->addresses, address, (void *) (uintptr_t) count);
    else
        zhashx_delete (self->addresses, address);
}

//  Move a connection to another class, keeping every count
static void
s_set_class (drover_conns_t *self, s_conn_t *conn, int klass)
{
    if (conn->klass != DROVER_CONN_NONE)
        self->classes [conn->klass]--;
    if (klass != DROVER_CONN_NONE)
        self->classes [klass]++;
    if (s_stranger (conn->klass) && !s_stranger (klass))
        s_count_address (self, conn->address, -1);
    else
    if (!s_stranger (conn->klass) && s_stranger (klass))
        s_count_address (self, conn->address, +1);
    conn->klass = (uint8_t) klass;
}

//  Queue a cut of the connection on fd, delay msec from now
static void
s_schedule (drover_conns_t *self, int fd, int queue, int delay, int reason, int64_t now)
{
    s_due_t due = { fd, self->table [fd].serial, now + delay, (uint8_t) reason };
    s_queue_push (&self->queues [queue], due);
}

//  Tell whether a queued cut still applies: the same connection, still
//  in a class the cut is for
static bool
s_due_valid (drover_conns_t *self, const s_due_t *due)
{
    s_conn_t *conn = s_open (self, due->fd);
    if (!conn || conn->serial != due->serial)
        return false;
    if (due->reason == DROVER_CONNS_SILENT)
        return conn->klass == DROVER_CONN_SILENT && self->silent
            && due->due == conn->since + self->silent;
    return conn->klass == DROVER_CONN_TRIAL || conn->klass == DROVER_CONN_EXCESS;
}

//  The first cut of a queue that still applies, dropping those that do not
static s_due_t *
s_queue_valid_head (drover_conns_t *self, s_queue_t *queue)
{
    s_due_t *due;
    while ((due = s_queue_head (queue)) && !s_due_valid (self, due))
        s_queue_pop (queue);
    return due;
}

//  Forget the connection on fd
static void
s_forget (drover_conns_t *self, s_conn_t *conn)
{
    s_set_class (self, conn, DROVER_CONN_NONE);
    conn->serial = 0;
    self->count--;
}

//  Tell whether a stranger from address finds a place now
static bool
s_stranger_room (drover_conns_t *self)
{
    return s_served (self) < self->rules.limit
        && self->classes [DROVER_CONN_SILENT] + self->classes [DROVER_CONN_CLIENT]
           < self->rules.limit - self->rules.reserve;
}

//  Tell whether address may have one stranger more
static bool
s_address_room (drover_conns_t *self, const char *address)
{
    return !self->rules.per_address || !*address || s_from (self, address) < self->rules.per_address;
}

//  Give the oldest silent stranger's place to a newcomer: it is cut at
//  once. Returns false if there is none (or silent ones are not cut).
static bool
s_evict_oldest_silent (drover_conns_t *self, int64_t now)
{
    s_due_t *due = s_queue_valid_head (self, &self->queues [S_SILENT_QUEUE]);
    if (!due)
        return false;
    int fd = due->fd;
    s_queue_pop (&self->queues [S_SILENT_QUEUE]);
    s_set_class (self, &self->table [fd], DROVER_CONN_EXCESS);
    s_schedule (self, fd, S_NOW_QUEUE, 0, DROVER_CONNS_EVICTED, now);
    return true;
}

//  Make the table hold descriptor fd
static void
s_grow (drover_conns_t *self, int fd)
{
    if ((size_t) fd < self->table_size)
        return;
    size_t size = self->table_size? self->table_size: 256;
    while (size <= (size_t) fd)
        size *= 2;
    self->table = (s_conn_t *) realloc (self->table, size * sizeof (s_conn_t));
    assert (self->table);
    memset (self->table + self->table_size, 0, (size - self->table_size) * sizeof (s_conn_t));
    self->table_size = size;
}

//  Count a connection on fd and give it its class
drover_conn_class_t
drover_conns_accepted (drover_conns_t *self, int fd, const char *address, int port,
                       bool listener, int64_t now)
{
    assert (self);
    assert (address);
    if (fd < 0 || fd >= self->rules.fd_limit)
        return DROVER_CONN_NONE;    //  not a descriptor we can have
    s_grow (self, fd);
    s_conn_t *conn = &self->table [fd];
    if (conn->serial) {
        s_forget (self, conn);      //  its close was not reported
        self->gone [DROVER_CONNS_LOST]++;
    }
    conn->serial = ++self->serials;
    conn->since = now;
    conn->port = port;
    snprintf (conn->address, sizeof conn->address, "%s", address);
    conn->klass = DROVER_CONN_NONE;
    conn->told = false;
    conn->route = 0;
    self->count++;
    self->accepted++;
    bool address_room = s_address_room (self, conn->address);
    if (address_room && !s_stranger_room (self))
        s_evict_oldest_silent (self, now);
    if (address_room && s_stranger_room (self)) {
        s_set_class (self, conn, listener? DROVER_CONN_CLIENT: DROVER_CONN_SILENT);
        if (!listener && self->silent)
            s_schedule (self, fd, S_SILENT_QUEUE, self->silent, DROVER_CONNS_SILENT, now);
    }
    else
    if (s_served (self) < self->rules.limit) {
        s_set_class (self, conn, DROVER_CONN_TRIAL);
        s_schedule (self, fd, S_GRACE_QUEUE, self->rules.grace, DROVER_CONNS_REFUSED, now);
    }
    else {
        //  Excess: cut after the grace, or at once when half the spare is used
        bool spare_left = (self->classes [DROVER_CONN_EXCESS] + self->classes [DROVER_CONN_CUT])
                          * 2 < self->rules.spare;
        s_set_class (self, conn, DROVER_CONN_EXCESS);
        if (spare_left)
            s_schedule (self, fd, S_GRACE_QUEUE, self->rules.grace, DROVER_CONNS_REFUSED, now);
        else
            s_schedule (self, fd, S_NOW_QUEUE, 0, DROVER_CONNS_REFUSED, now);
    }
    return (drover_conn_class_t) conn->klass;
}

//  Forget a connection
void
drover_conns_closed (drover_conns_t *self, int fd)
{
    assert (self);
    s_conn_t *conn = s_open (self, fd);
    if (conn)
        s_forget (self, conn);
}

//  The class of the connection on fd
drover_conn_class_t
drover_conns_class (drover_conns_t *self, int fd)
{
    assert (self);
    s_conn_t *conn = s_open (self, fd);
    return conn? (drover_conn_class_t) conn->klass: DROVER_CONN_NONE;
}

//  Say why a request is refused, into self->reason
static const char *
s_refusal (drover_conns_t *self, s_conn_t *conn)
{
    if (!s_address_room (self, conn->address))
        snprintf (self->reason, sizeof self->reason, "too many connections from %s: the broker "
                  "serves at most %zu from one address, besides registered workers and admin "
                  "keys; retry later", conn->address, self->rules.per_address);
    else
    if (s_served (self) - (conn->klass == DROVER_CONN_TRIAL) < self->rules.limit)
        snprintf (self->reason, sizeof self->reason, "too many connections: the broker keeps "
                  "its last %zu of %zu for registered workers and admin keys; retry later",
                  self->rules.reserve, self->rules.limit);
    else
        snprintf (self->reason, sizeof self->reason, "too many connections: the broker serves "
                  "%zu, as its descriptor limit allows; retry later", self->rules.limit);
    return self->reason;
}

//  Could a message from route be from the connection on fd
bool
drover_conns_same (drover_conns_t *self, int fd, uint64_t route)
{
    assert (self);
    s_conn_t *conn = s_open (self, fd);
    return conn && (conn->route == 0 || conn->route == route);
}

//  A valid message on fd: serve it or say why not
const char *
drover_conns_admit (drover_conns_t *self, int fd, uint64_t route, bool member, int64_t now)
{
    assert (self);
    assert (route);
    s_conn_t *conn = s_open (self, fd);
    if (!conn || (conn->route && conn->route != route))
        return NULL;            //  not known, or from one gone: not ours to refuse
    conn->route = route;
    if (conn->klass == DROVER_CONN_MEMBER)
        return NULL;
    if (s_stranger (conn->klass)) {
        if (member)
            s_set_class (self, conn, DROVER_CONN_MEMBER);
        else
        if (conn->klass == DROVER_CONN_SILENT)
            s_set_class (self, conn, DROVER_CONN_CLIENT);
        return NULL;
    }
    if (conn->klass == DROVER_CONN_CUT)
        return s_refusal (self, conn);  //  going already
    //  On trial or excess: served if a place is free for it now
    bool trial = conn->klass == DROVER_CONN_TRIAL;
    size_t others = s_served (self) - (trial? 1: 0);
    if (others < self->rules.limit) {
        if (member) {
            s_set_class (self, conn, DROVER_CONN_MEMBER);
            return NULL;
        }
        s_set_class (self, conn, DROVER_CONN_NONE);     //  out of the counts a moment
        bool room = s_address_room (self, conn->address) && s_stranger_room (self);
        s_set_class (self, conn, room? DROVER_CONN_CLIENT: trial? DROVER_CONN_TRIAL:
                                                               DROVER_CONN_EXCESS);
        if (room)
            return NULL;
    }
    if (!conn->told)
        s_schedule (self, fd, S_TOLD_QUEUE, self->rules.told, DROVER_CONNS_REFUSED, now);
    conn->told = true;
    return s_refusal (self, conn);
}

//  Turn cutting silent connections on or off
void
drover_conns_set_silent (drover_conns_t *self, int msec, int64_t now)
{
    assert (self);
    assert (msec >= 0);
    if (msec == self->silent)
        return;
    self->silent = msec;
    s_queue_t *queue = &self->queues [S_SILENT_QUEUE];
    queue->count = queue->head = 0;
    if (!msec)
        return;
    for (size_t fd = 0; fd < self->table_size; fd++)
        if (self->table [fd].serial && self->table [fd].klass == DROVER_CONN_SILENT) {
            self->table [fd].since = now;
            s_schedule (self, (int) fd, S_SILENT_QUEUE, msec, DROVER_CONNS_SILENT, now);
        }
}

//  Take a connection whose cut is due
int
drover_conns_next_cut (drover_conns_t *self, int64_t now)
{
    assert (self);
    for (int index = 0; index < S_QUEUES; index++) {
        s_due_t *due = s_queue_valid_head (self, &self->queues [index]);
        if (due && due->due <= now) {
            int fd = due->fd;
            self->gone [due->reason]++;
            s_queue_pop (&self->queues [index]);
            s_set_class (self, &self->table [fd], DROVER_CONN_CUT);
            return fd;
        }
    }
    return -1;
}

//  The earliest cut still to come
int64_t
drover_conns_deadline (drover_conns_t *self)
{
    assert (self);
    int64_t deadline = -1;
    for (int index = 0; index < S_QUEUES; index++) {
        s_due_t *due = s_queue_valid_head (self, &self->queues [index]);
        if (due && (deadline == -1 || due->due < deadline))
            deadline = due->due;
    }
    return deadline;
}

//  No place left for a stranger without an eviction
bool
drover_conns_full (drover_conns_t *self)
{
    assert (self);
    return !s_stranger_room (self);
}

//  Forget the connections check says are gone
size_t
drover_conns_audit (drover_conns_t *self, drover_conns_check_fn *check, void *arg)
{
    assert (self);
    assert (check);
    size_t lost = 0;
    for (size_t fd = 0; fd < self->table_size; fd++) {
        s_conn_t *conn = &self->table [fd];
        if (conn->serial && !check ((int) fd, conn->address, conn->port, arg)) {
            s_forget (self, conn);
            lost++;
        }
    }
    self->gone [DROVER_CONNS_LOST] += lost;
    return lost;
}

//  The peer of the connection on fd
const char *
drover_conns_address (drover_conns_t *self, int fd, int *port_p)
{
    assert (self);
    assert (port_p);
    s_conn_t *conn = s_open (self, fd);
    *port_p = conn? conn->port: 0;
    return conn? conn->address: "";
}

//  Connections open
size_t
drover_conns_count (drover_conns_t *self)
{
    assert (self);
    return self->count;
}

//  Connections open of one class
size_t
drover_conns_class_count (drover_conns_t *self, drover_conn_class_t klass)
{
    assert (self);
    assert (klass > DROVER_CONN_NONE && klass < DROVER_CONN_CLASSES);
    return self->classes [klass];
}

//  Connections gone for one reason
uint64_t
drover_conns_gone (drover_conns_t *self, drover_conns_reason_t reason)
{
    assert (self);
    assert (reason < DROVER_CONNS_REASONS);
    return self->gone [reason];
}

//  Connections accepted since creation
uint64_t
drover_conns_accepted_total (drover_conns_t *self)
{
    assert (self);
    return self->accepted;
}

//  Connections served at most
size_t
drover_conns_limit (drover_conns_t *self)
{
    assert (self);
    return self->rules.limit;
}

//  Of those, kept for members
size_t
drover_conns_reserve (drover_conns_t *self)
{
    assert (self);
    return self->rules.reserve;
}
