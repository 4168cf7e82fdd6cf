/*  =========================================================================
    drover_msg_service - the records of the services' and plans' messages:
    the term statistics, SERVICE TABLE's service and replica rows, PLAN
    RESULT's changes (internal)

    Not part of the API: only drover_msg_fields.c includes this, and
    calls these from the message table while packing and reading
    (fields F_SERVICE_STATS, F_STATS_AFTER, F_SERVICE_ROWS,
    F_REPLICA_ROWS and F_CHANGES). WORKER GATHER, WORKER RUNS, SERVICE
    ADMIN, SERVICE LIST and PLAN hold plain fields of the table only.
    =========================================================================
*/

#ifndef DROVER_MSG_SERVICE_H_INCLUDED
#define DROVER_MSG_SERVICE_H_INCLUDED

#include "drover_msg.h"
#include "drover_mpack.h"

//  Pack a term's statistics as a peer of level knows them (its level-7
//  elements only to level 7 and later); -1 if they break a limit
int
    drover_msg_service_pack_stats (msgpack_packer *pk, const drover_service_stats_t *stats,
                                   int level);

//  Pack SERVICE TABLE's service rows (self->service_rows, nservices) as a
//  peer of level knows them; -1 if one breaks a limit
int
    drover_msg_service_pack_services (msgpack_packer *pk, const drover_msg_t *self, int level);

//  Pack SERVICE TABLE's replica rows (self->replica_rows, nreplicas); -1
//  if one breaks a limit
int
    drover_msg_service_pack_replicas (msgpack_packer *pk, const drover_msg_t *self);

//  Pack PLAN RESULT's changes (self->changes, nchanges); -1 if one breaks
//  a limit
int
    drover_msg_service_pack_changes (msgpack_packer *pk, const drover_msg_t *self);

//  Read a term's statistics into stats
bool
    drover_msg_service_read_stats (drover_mpack_cursor_t *cursor, drover_service_stats_t *stats);

//  Read SERVICE TABLE's service rows into self->service_rows
bool
    drover_msg_service_read_services (drover_mpack_cursor_t *cursor, drover_msg_t *self);

//  Read SERVICE TABLE's replica rows into self->replica_rows
bool
    drover_msg_service_read_replicas (drover_mpack_cursor_t *cursor, drover_msg_t *self);

//  Read PLAN RESULT's changes into self->changes
bool
    drover_msg_service_read_changes (drover_mpack_cursor_t *cursor, drover_msg_t *self);

#endif
