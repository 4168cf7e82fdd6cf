/*  =========================================================================
    drover_postgres - the PostgreSQL backend of drover_store (internal:
    only drover_store.c calls it; the functions mean what
    drover_store.h says of the same names)

    The state lives in tables of one database, made when missing:
    drover_meta (format marker, state id, next_task, next_seq),
    drover_fence (one row: the fencing token of the leader that holds the
    state), drover_tasks (one row per task), drover_events (runs of up to
    1024 events packed in one row, as the SQLite backend keeps them),
    drover_worker_admin, drover_services and drover_shares. Every write is one
    transaction that starts by locking the fence row and is refused
    (SQLSTATE DR001, "fenced: ...") if the token there is not ours.
    =========================================================================
*/

#ifndef DROVER_POSTGRES_H_INCLUDED
#define DROVER_POSTGRES_H_INCLUDED

#include "drover_store.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_postgres_t drover_postgres_t;

//  Connect to conninfo, make the tables if missing, claim the state for
//  fence (if > 0) and read its meta into *meta. Returns NULL with
//  *error_p set on failure (refused by fencing: "fenced: ...").
drover_postgres_t *
    drover_postgres_open (const char *conninfo, uint64_t fence, drover_store_meta_t *meta,
                          char **error_p);

//  Close the connection; harmless on NULL
void
    drover_postgres_destroy (drover_postgres_t **self_p);

//  True once a write was refused by fencing
bool
    drover_postgres_fenced (drover_postgres_t *self);

//  Apply one batch in one transaction and store meta with it
int
    drover_postgres_apply (drover_postgres_t *self, drover_change_t **changes, size_t count,
                           const drover_store_meta_t *meta, char *error, size_t error_size);

//  Load the kept tasks (see drover_store_load)
int64_t
    drover_postgres_load (drover_postgres_t *self, size_t max_final,
                          drover_store_task_fn *fn, void *arg,
                          char *error, size_t error_size);

//  Read one kept task by id (see drover_store_read_task)
int
    drover_postgres_read_task (drover_postgres_t *self, uint64_t id, drover_change_t **change_p,
                               char *error, size_t error_size);

//  Replay the kept events after since (see drover_store_replay)
int64_t
    drover_postgres_replay (drover_postgres_t *self, uint64_t since, size_t max,
                            drover_store_event_fn *fn, void *arg,
                            char *error, size_t error_size);

//  Delete old tasks and events (see drover_store_prune)
int64_t
    drover_postgres_prune (drover_postgres_t *self, uint64_t keep_count, uint64_t keep_age,
                           uint64_t keep_events, uint64_t now, size_t max_rows,
                           char *error, size_t error_size);

//  Keep an operator's setting of a worker (see drover_store_save_admin)
int
    drover_postgres_save_admin (drover_postgres_t *self, const drover_store_admin_t *admin,
                                char *error, size_t error_size);

//  Hand fn every kept setting (see drover_store_load_admin)
int64_t
    drover_postgres_load_admin (drover_postgres_t *self, drover_store_admin_fn *fn,
                                void *arg, char *error, size_t error_size);

//  Keep a service's definition (see drover_store_save_service)
int
    drover_postgres_save_service (drover_postgres_t *self, const char *name, const byte *def,
                                  size_t size, char *error, size_t error_size);

//  Hand fn every kept service (see drover_store_load_services)
int64_t
    drover_postgres_load_services (drover_postgres_t *self, drover_store_service_fn *fn,
                                   void *arg, char *error, size_t error_size);

//  Keep a share (see drover_store_save_share)
int
    drover_postgres_save_share (drover_postgres_t *self, const drover_store_share_t *share,
                        char *error, size_t error_size);

//  Hand fn every kept share (see drover_store_load_shares)
int64_t
    drover_postgres_load_shares (drover_postgres_t *self, drover_store_share_fn *fn, void *arg,
                         char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
