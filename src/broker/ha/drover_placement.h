/*  =========================================================================
    drover_placement - which broker owns each named queue: the placement
    strategy the leader runs over the brokers that offer each queue

    Given the members (each a broker name and, for each queue it offers,
    the endpoint it serves that queue on), the strategy and the leader's
    name, says for each offered queue its owner and the owner's endpoint:

      leader   the leader if it offers the queue, else the first member by
               name that does (plain failover)
      spread   the member with the highest rendezvous score of (queue name,
               member name) among those that offer the queue
               (src/common/drover_rendezvous.h): a member's going moves only
               its queues, its return moves back only the ones it wins
      rr       mgmt's round-robin: the queues, in name order, dealt to the
               members in turn, each to the member offering it that holds
               the fewest so far (a tie: the next in name order from the
               turn's member), so each member holds as many queues as it
               can; a member's going or coming deals them all again

    A plain class, no I/O: the elector (actors/drover_elector_actor.c, through
    src/broker/ha/drover_queuewatch.c) fills it from what etcd holds.
    =========================================================================
*/

#ifndef DROVER_PLACEMENT_H_INCLUDED
#define DROVER_PLACEMENT_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_placement_t drover_placement_t;

//  Create a placement with strategy "leader", "spread" or "rr" (NULL or "":
//  "leader"), or NULL if strategy is none of these
drover_placement_t *
    drover_placement_new (const char *strategy);

//  Destroy the placement; harmless on NULL
void
    drover_placement_destroy (drover_placement_t **self_p);

//  True if strategy is one drover_placement_new takes
bool
    drover_placement_strategy_valid (const char *strategy);

//  The strategy, "leader", "spread" or "rr"
const char *
    drover_placement_strategy (drover_placement_t *self);

//  Set the leader's name (the "leader" strategy's first choice; NULL or "": none)
void
    drover_placement_set_leader (drover_placement_t *self, const char *leader);

//  Member offers queue, serving it at endpoint (a second offer of the same
//  pair replaces the first)
void
    drover_placement_offer (drover_placement_t *self, const char *member, const char *queue,
                            const char *endpoint);

//  Forget member and every queue it offers
void
    drover_placement_remove (drover_placement_t *self, const char *member);

//  The queues offered, in name order: how many, and the name of one
size_t
    drover_placement_size (drover_placement_t *self);
const char *
    drover_placement_queue (drover_placement_t *self, size_t index);

//  The owner of queue and its endpoint for queue (borrowed: valid until the
//  next offer or remove), or NULL if no member offers queue
const char *
    drover_placement_owner (drover_placement_t *self, const char *queue);
const char *
    drover_placement_owner_endpoint (drover_placement_t *self, const char *queue);

//  Every member's endpoint for queue, comma-separated, in member-name order
//  ("" if no member offers it): ours, zstr_free
char *
    drover_placement_endpoints (drover_placement_t *self, const char *queue);

#ifdef __cplusplus
}
#endif

#endif
