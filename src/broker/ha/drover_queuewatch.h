/*  =========================================================================
    drover_queuewatch - the elector's view of the named queues: what the
    brokers offer and whom etcd names as each queue's owner, the keys the
    leader must write, and the QUEUE messages said on the elector's pipe

    The elector (actors/drover_elector_actor.c) reads PREFIX/brokers/ and
    PREFIX/queues/ and hands the keys here; this class decides (placement
    through src/broker/ha/drover_placement.c) and words the messages. It makes
    no call to etcd itself. The QUEUE messages it words are the elector's
    (actors/ACTORS.md, elector).
    =========================================================================
*/

#ifndef DROVER_QUEUEWATCH_H_INCLUDED
#define DROVER_QUEUEWATCH_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_queuewatch_t drover_queuewatch_t;

//  Longest queue name
#define DROVER_QUEUEWATCH_NAME_MAX  64

//  Check the queues a broker offers, "Q1 EP1\nQ2 EP2" ("" or NULL: none):
//  each line a queue name of 1 to 64 bytes of [A-Za-z0-9._-], one space,
//  an endpoint of 1 to endpoint_max bytes without control characters,
//  spaces or commas; no queue twice. 0, or -1 and *error_p (ours to free,
//  if error_p is not NULL) naming the fault.
int
    drover_queuewatch_check_offers (const char *offers, size_t endpoint_max, char **error_p);

//  Create the view of broker name (its own queues are in what it reads),
//  placing with strategy when it leads (checked: "leader", "spread", NULL
//  or "")
drover_queuewatch_t *
    drover_queuewatch_new (const char *name, const char *strategy);

//  Destroy the view; harmless on NULL
void
    drover_queuewatch_destroy (drover_queuewatch_t **self_p);

//  The keys read under PREFIX/brokers/ (drover_etcd_kv_t, in key order;
//  each key's name starts prefix_length bytes in): the live members and
//  what each offers. Malformed queue lines are skipped.
void
    drover_queuewatch_set_members (drover_queuewatch_t *self, zlistx_t *kvs,
                                   size_t prefix_length);

//  The keys read under PREFIX/queues/: each queue's owner and token (its
//  mod revision). A malformed value names no owner.
void
    drover_queuewatch_set_queues (drover_queuewatch_t *self, zlistx_t *kvs,
                                  size_t prefix_length);

//  For the leader: the next key the placement wants written, in queue name
//  order: true and *queue_p, *value_p ("NAME\nENDPOINT"; both ours to
//  free), or false if every offered queue's key holds its choice
bool
    drover_queuewatch_next_put (drover_queuewatch_t *self, char **queue_p, char **value_p);

//  The leader wrote value to queue's key at revision
void
    drover_queuewatch_put_done (drover_queuewatch_t *self, const char *queue, const char *value,
                                int64_t revision);

//  Say on pipe "QUEUE name owner owner_endpoint token endpoints" for every
//  queue whose fields changed since last said (all of them the first time,
//  once both reads are in). While sure is false (our session is not sure),
//  a queue whose key names us is said with owner "" "" and token 0.
void
    drover_queuewatch_say_changes (drover_queuewatch_t *self, zsock_t *pipe, bool sure);

//  Say on pipe QUEUE Q "" "" 0 endpoints for every queue whose last QUEUE
//  named us: our session is no longer sure
void
    drover_queuewatch_release (drover_queuewatch_t *self, zsock_t *pipe);

//  True if the last QUEUE said of some queue named us
bool
    drover_queuewatch_owns (drover_queuewatch_t *self);

#ifdef __cplusplus
}
#endif

#endif
