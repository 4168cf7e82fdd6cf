/*  =========================================================================
    drover_servicewire - the reconciler's wire side: a SERVICE ADMIN
    create checked into a definition, a replica's TASK SUBMIT built from
    its service's definition, SERVICE TABLE and PLAN RESULT built from the
    reconciler's rows and change sets, a term's statistics in words

    A plain class of functions: no threads, no I/O. The reconciler actor
    (actors/drover_reconciler_actor.c) calls them; the decisions are
    drover_reconciler's.
    =========================================================================
*/

#ifndef DROVER_SERVICEWIRE_H_INCLUDED
#define DROVER_SERVICEWIRE_H_INCLUDED

#include <czmq.h>
#include "drover_msg.h"
#include "drover_reconciler.h"
#include "drover_metrics.h"

#ifdef __cplusplus
extern "C" {
#endif

//  Most rows of each kind one SERVICE TABLE or PLAN RESULT carries
#define DROVER_SERVICEWIRE_ROWS_MAX     10000

//  Check a SERVICE ADMIN create (or a kept definition) and fill def from
//  it (name, replicas, procs, mem, labels borrowed from msg, restart
//  delay, summary of its argv). Returns 200, or 400 (413 for a body too
//  large) with *reason_p naming the field, composed in buffer if need be.
int
    drover_servicewire_check (const drover_msg_t *msg, drover_service_row_t *def,
                              char *buffer, size_t buffer_size, const char **reason_p);

//  Apply a SERVICE ADMIN to the reconciler and to defs, the definitions
//  (name -> drover_msg_t *: the create that made each, scaled: its count
//  changed; the hash destroys them): a create takes *request_p (NULL
//  after: kept or destroyed), scale and delete only read it. Returns 200
//  and sets *replicas_p (created, scaled to, or had when deleted), or the
//  ERROR code (400 naming the field, 410 exists, 404 no such service,
//  302 past the bounds) with *reason_p, composed in buffer if need be.
int
    drover_servicewire_admin (drover_reconciler_t *reconcile, zhashx_t *defs,
                              drover_msg_t **request_p, uint64_t now, char *buffer,
                              size_t buffer_size, const char **reason_p, uint32_t *replicas_p);

//  Build the TASK SUBMIT of a replica: slot of the service whose definition
//  is def (a checked SERVICE ADMIN create): its procs, mem, labels and
//  body, the service and slot set, no retries. Caller destroys it.
drover_msg_t *
    drover_servicewire_submit (const drover_msg_t *def, uint32_t slot);

//  Build the SERVICE TABLE answering list (a SERVICE LIST): the last
//  term's statistics, every service or the one named with its replicas.
//  Returns NULL if the one named is not defined.
drover_msg_t *
    drover_servicewire_table (drover_reconciler_t *reconcile, const drover_msg_t *list,
                              uint64_t now);

//  Build the PLAN RESULT answering plan with a change set: its changes,
//  the statistics before and after
drover_msg_t *
    drover_servicewire_plan_result (const drover_msg_t *plan, const drover_changeset_t *set);

//  Set the reconciler's gauges in metrics: services by state, replicas
//  wanted, running and pending, the last term's restarts histogram (its
//  buckets, and the sum of every service's restarts)
void
    drover_servicewire_counts (drover_reconciler_t *reconcile, uint64_t now,
                               drover_metrics_t *metrics);

//  Write a term's statistics in words into text (an event's reason)
void
    drover_servicewire_words (const drover_service_stats_t *stats, char *text, size_t size);

#ifdef __cplusplus
}
#endif

#endif
