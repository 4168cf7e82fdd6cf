/*  =========================================================================
    drover_reconciler_rows - the reconciler's view as SERVICE TABLE rows:
    each service with its counts, state and why; each replica of one
    =========================================================================
*/

#include "drover_reconciler_internal.h"

#define S_ROWS_MAX  10000       //  rows of each kind one table carries at most

//  Return true if a slot's replica has run long enough to end its streak
static bool
s_slot_stable (drover_reconciler_t *self, const s_slot_t *slot, uint64_t now)
{
    for (size_t index = 0; index < slot->nrecords; index++) {
        const s_record_t *record = slot->records [index];
        if (record->state == S_RUNNING && now - record->running_since >= self->config.stable_after)
            return true;
    }
    return false;
}

//  Fill a service's row: its definition, counts, state and why
static void
s_service_row (drover_reconciler_t *self, const s_service_t *service, uint64_t now,
               drover_service_row_t *row)
{
    *row = service->def;
    for (uint32_t index = 0; index < row->nlabels; index++) {
        row->labels [index] = strdup (service->def.labels [index]);
        assert (row->labels [index]);
    }
    row->restarts = service->restarts;
    int crashing = -1, waiting = -1;
    for (uint32_t number = 0; number < service->nslots; number++) {
        const s_slot_t *slot = &service->slots [number];
        row->pending += (uint32_t) slot->npending;
        for (size_t index = 0; index < slot->nrecords; index++) {
            s_record_state_t state = slot->records [index]->state;
            row->running += state == S_RUNNING;
            row->pending += state == S_PENDING;
        }
        if (number >= service->def.replicas)
            continue;
        if (crashing < 0 && self->config.crash_warn && slot->streak >= self->config.crash_warn
        &&  !s_slot_stable (self, slot, now))
            crashing = (int) number;
        if (waiting < 0 && !drover_reconciler_slot_kept (slot))
            waiting = (int) number;
    }
    uint32_t wanted = service->def.replicas;
    row->state = crashing >= 0? DROVER_SERVICE_CRASHING
               : wanted && row->running == 0? DROVER_SERVICE_LOST
               : row->running < wanted? DROVER_SERVICE_UNDER
               : row->running > wanted? DROVER_SERVICE_OVER: DROVER_SERVICE_OK;
    if (crashing >= 0) {
        const s_slot_t *slot = &service->slots [crashing];
        snprintf (row->why, sizeof row->why, "slot %d exited quickly %u times in a row: %.160s",
                  crashing, slot->streak, slot->why);
    }
    else
    if (waiting >= 0) {
        const s_slot_t *slot = &service->slots [waiting];
        if (slot->next_start > now)
            snprintf (row->why, sizeof row->why, "slot %d restarts in %" PRIu64 "s: %.160s",
                      waiting, (slot->next_start - now + 999) / 1000, slot->why);
        else
            snprintf (row->why, sizeof row->why, "slot %d waits: no worker has room", waiting);
    }
}

//  Append a replica row, if there is room
static drover_replica_row_t *
s_replica_row (drover_replica_row_t *rows, size_t *count_p, const s_service_t *service,
               uint32_t number, drover_replica_state_t state)
{
    if (*count_p >= S_ROWS_MAX)
        return NULL;
    drover_replica_row_t *row = &rows [(*count_p)++];
    memset (row, 0, sizeof *row);
    snprintf (row->service, sizeof row->service, "%s", service->def.name);
    row->slot = number;
    row->state = (uint8_t) state;
    row->restarts = number < service->nslots? service->slots [number].restarts: 0;
    return row;
}

//  Fill the replica rows of one service, by slot
static size_t
s_replica_rows (drover_reconciler_t *self, const s_service_t *service, uint64_t now,
                drover_replica_row_t *rows)
{
    size_t count = 0;
    for (uint32_t number = 0; number < service->nslots; number++) {
        const s_slot_t *slot = &service->slots [number];
        for (size_t index = 0; index < slot->nrecords; index++) {
            const s_record_t *record = slot->records [index];
            drover_replica_row_t *row = s_replica_row (rows, &count, service, number,
                record->state == S_RUNNING? DROVER_REPLICA_RUNNING
              : record->state == S_PENDING? DROVER_REPLICA_PENDING: DROVER_REPLICA_STOPPING);
            if (!row)
                return count;
            row->task = record->task;
            row->attempt = record->attempt;
            snprintf (row->worker, sizeof row->worker, "%s", record->worker);
            row->since = record->since;
            snprintf (row->why, sizeof row->why, "%s", record->state == S_STOPPING? record->why
                      : record->leaving? "moving away": "");
        }
        for (size_t index = 0; index < slot->npending; index++) {
            drover_replica_row_t *row = s_replica_row (rows, &count, service, number,
                                                       DROVER_REPLICA_PENDING);
            if (!row)
                return count;
            snprintf (row->worker, sizeof row->worker, "%s", slot->pending [index].worker);
            row->since = slot->pending [index].since;
            snprintf (row->why, sizeof row->why, "starting");
        }
        if (number < service->def.replicas && !drover_reconciler_slot_kept (slot)) {
            drover_replica_row_t *row = s_replica_row (rows, &count, service, number,
                                                       DROVER_REPLICA_WAITING);
            if (!row)
                return count;
            row->since = slot->since? slot->since: service->def.created;
            if (slot->next_start > now)
                snprintf (row->why, sizeof row->why, "backoff %" PRIu64 "s after: %.160s",
                          (slot->next_start - now + 999) / 1000, slot->why);
            else
                snprintf (row->why, sizeof row->why, "no worker has room");
        }
    }
    return count;
}

//  Fill rows for SERVICE TABLE
int
drover_reconciler_rows (drover_reconciler_t *self, const char *name, uint64_t now,
                       drover_service_row_t **services_p, size_t *nservices_p,
                       drover_replica_row_t **replicas_p, size_t *nreplicas_p)
{
    assert (self && services_p && nservices_p && replicas_p && nreplicas_p);
    *services_p = NULL;
    *replicas_p = NULL;
    *nservices_p = *nreplicas_p = 0;
    bool one = name && *name;
    if (one && !drover_reconciler_has (self, name))
        return -1;                      //  unknown service
    size_t count;
    s_service_t **services = drover_reconciler_sorted (self, &count);
    drover_service_row_t *rows = (drover_service_row_t *) zmalloc ((count + 1) * sizeof *rows);
    size_t made = 0;
    for (size_t index = 0; index < count && made < S_ROWS_MAX; index++) {
        const s_service_t *service = services [index];
        if (service->defined && (!one || streq (service->def.name, name)))
            s_service_row (self, service, now, &rows [made++]);
    }
    *services_p = rows;
    *nservices_p = made;
    if (one) {
        const s_service_t *service = (s_service_t *) zhashx_lookup (self->services, name);
        size_t slots = service->nslots;
        size_t size = 1;
        for (size_t number = 0; number < slots; number++)
            size += service->slots [number].nrecords + service->slots [number].npending + 1;
        size = size < S_ROWS_MAX? size: S_ROWS_MAX;
        *replicas_p = (drover_replica_row_t *) zmalloc (size * sizeof (drover_replica_row_t));
        *nreplicas_p = s_replica_rows (self, service, now, *replicas_p);
    }
    return (int) made;
}

//  Free rows drover_reconciler_rows made
void
drover_reconciler_rows_free (drover_service_row_t **services_p, size_t nservices,
                            drover_replica_row_t **replicas_p)
{
    if (services_p && *services_p) {
        for (size_t index = 0; index < nservices; index++)
            for (uint32_t label = 0; label < (*services_p) [index].nlabels; label++)
                free ((*services_p) [index].labels [label]);
        free (*services_p);
        *services_p = NULL;
    }
    if (replicas_p && *replicas_p) {
        free (*replicas_p);
        *replicas_p = NULL;
    }
}
