/*  =========================================================================
    drover_adminbook - an operator's settings per worker id: hold or drain,
    why, and since when

    schedq keeps what an operator said about a worker here, by id, apart
    from the worker itself: so it outlives the worker's registration (a
    reconnect, a restart, a loss) and may be said of a worker that has not
    joined yet; the store keeps it across the broker's restarts. A worker
    set back to RUN has no entry. At most max entries (a new id past it is
    refused). A plain class: no threads, no I/O, no clock.
    =========================================================================
*/

#ifndef DROVER_ADMINBOOK_H_INCLUDED
#define DROVER_ADMINBOOK_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_adminbook_t drover_adminbook_t;

//  One worker's setting; pointers borrowed until the entry changes
typedef struct {
    const char *id;             //  worker id
    int admin;                  //  drover_admin_t: HOLD or DRAIN (RUN has no entry)
    uint32_t flags;             //  DROVER_ADMIN_* flags (EXIT: leave once drained)
    const char *reason;         //  the operator's reason, "" if none
    uint64_t since;             //  when it was set, msec since the epoch
} drover_adminbook_entry_t;

//  Create an empty book of at most max entries
drover_adminbook_t *
    drover_adminbook_new (size_t max);

//  Destroy the book; harmless on NULL
void
    drover_adminbook_destroy (drover_adminbook_t **self_p);

//  Set a worker's admin setting (RUN forgets its entry), flags, reason
//  (NULL: none) and since. Returns 0, or -1 if the book is full and the id
//  has no entry, or admin is not a setting.
int
    drover_adminbook_set (drover_adminbook_t *self, const char *id, int admin, uint32_t flags,
                          const char *reason, uint64_t since);

//  Clear flags of a worker's entry (EXIT once the worker was told to
//  leave). Returns true if it had any of them.
bool
    drover_adminbook_clear_flags (drover_adminbook_t *self, const char *id, uint32_t flags);

//  Return a worker's entry, or NULL (RUN)
const drover_adminbook_entry_t *
    drover_adminbook_lookup (drover_adminbook_t *self, const char *id);

//  Return how many entries the book holds
size_t
    drover_adminbook_size (drover_adminbook_t *self);

#ifdef __cplusplus
}
#endif

#endif
