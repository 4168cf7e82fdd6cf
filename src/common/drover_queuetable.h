/*  =========================================================================
    drover_queuetable - the named queues of several brokers: each queue's
    owner, where the owner serves it, its fencing token, and every broker's
    endpoint for it (PROTOCOL.md §7.40 QUEUE TABLE, §17)

    The broker keeps one to answer QUEUES (the serving broker and the
    standby alike); the CLI and the client library read one out of a QUEUE
    TABLE to find where a queue is served. A plain value class: queues are
    kept in name order, a name at most once; every text is copied.

    What goes in is held to the wire's limits (a name of 1..64 bytes of
    [A-Za-z0-9._-], an owner of at most 64 printable bytes, endpoints of
    at most 256 printable bytes without commas, at most 64 of them, at
    most 1024 queues): a queue that breaks one is not put (logged), so a
    table always goes on the wire whole.
    =========================================================================
*/

#ifndef DROVER_QUEUETABLE_H_INCLUDED
#define DROVER_QUEUETABLE_H_INCLUDED

#include <czmq.h>
#include "drover_msg.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_queuetable_t drover_queuetable_t;

//  One named queue (every text owned by the table, never NULL)
typedef struct {
    char *name;                 //  the queue's name
    char *owner;                //  the broker that serves it, "" none now
    char *owner_endpoint;       //  where the owner serves it, "" none
    uint64_t token;             //  its fencing token (mod revision), 0 while it has no owner
    char *endpoints;            //  every offering broker's endpoint for it, comma-separated
                                //  in broker-name order, "" none
} drover_queueentry_t;

//  Create an empty table for strategy ("leader", "spread"; NULL or "": no
//  named queues)
drover_queuetable_t *
    drover_queuetable_new (const char *strategy);

//  Destroy the table; harmless on NULL
void
    drover_queuetable_destroy (drover_queuetable_t **self_p);

//  Return a copy of the table
drover_queuetable_t *
    drover_queuetable_dup (drover_queuetable_t *self);

//  Set (or replace, by name) one queue; NULL texts count as "". A queue
//  past the wire's limits is not put (logged).
void
    drover_queuetable_put (drover_queuetable_t *self, const char *name, const char *owner,
                           const char *owner_endpoint, uint64_t token, const char *endpoints);

//  Return how many queues the table has
size_t
    drover_queuetable_size (drover_queuetable_t *self);

//  Return the queue at index (0..size - 1) in name order, borrowed; NULL
//  past the end
const drover_queueentry_t *
    drover_queuetable_item (drover_queuetable_t *self, size_t index);

//  Return the queue called name, borrowed; NULL if there is none
const drover_queueentry_t *
    drover_queuetable_lookup (drover_queuetable_t *self, const char *name);

//  Return the strategy ("" none)
const char *
    drover_queuetable_strategy (drover_queuetable_t *self);

//  Return a QUEUE TABLE of the table's strategy and queues, seq 0 (ours
//  to destroy)
drover_msg_t *
    drover_queuetable_encode (drover_queuetable_t *self);

//  Return a table of what a QUEUE TABLE holds (the message is only read)
drover_queuetable_t *
    drover_queuetable_decode (const drover_msg_t *msg);

//  Return where a peer of queue name talks: its endpoints, the owner's
//  first (also when the others do not list it), comma-separated, ours to
//  free; "" when no broker offers it now; NULL when there is no such queue
char *
    drover_queuetable_endpoints_for (drover_queuetable_t *self, const char *name);

#ifdef __cplusplus
}
#endif

#endif
