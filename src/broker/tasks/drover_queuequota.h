/*  =========================================================================
    drover_queuequota - the queued quotas assign enforces at submit: how
    many tasks each owner has QUEUED, and whether a submit of more would
    pass its owner's or its account's quota

    schedq owns the share settings and says them to assign on every change
    (QUOTAS: accounts and quotas in the share settings' syntax); this class
    keeps assign's copy. Counts are kept per owner index (the record's,
    drover_owners) in an array, so a state change costs an increment; the
    accounts and quotas are a drover_fairshare of assign's own, made again
    from the counts when the settings change. A plain class: no threads, no
    I/O.
    =========================================================================
*/

#ifndef DROVER_QUEUEQUOTA_H_INCLUDED
#define DROVER_QUEUEQUOTA_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_queuequota_t drover_queuequota_t;

//  Create a table with no quotas and nothing counted
drover_queuequota_t *
    drover_queuequota_new (void);

//  Destroy the table; harmless on NULL
void
    drover_queuequota_destroy (drover_queuequota_t **self_p);

//  Take the share settings (share/accounts and share/quotas syntax; NULL or
//  "" none). Returns 0, or -1 and sets *error_p (ours to free) if they do
//  not parse: the quotas held before stay.
int
    drover_queuequota_set (drover_queuequota_t *self, const char *accounts, const char *quotas,
                          char **error_p);

//  Count tasks of an owner (index, and its name) as QUEUED (delta > 0) or
//  no longer (delta < 0)
void
    drover_queuequota_add (drover_queuequota_t *self, uint16_t owner, const char *name,
                          int64_t delta);

//  Return the tasks an owner has QUEUED
uint64_t
    drover_queuequota_queued (drover_queuequota_t *self, uint16_t owner);

//  Return 0 if count more tasks of owner name (its index) may be queued,
//  else -1 with reason written ("quota: alice has 1000 tasks queued, at
//  most 1000")
int
    drover_queuequota_check (drover_queuequota_t *self, uint16_t owner, const char *name,
                            uint64_t count, char *reason, size_t reason_size);

#ifdef __cplusplus
}
#endif

#endif
