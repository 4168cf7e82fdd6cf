/*  =========================================================================
    drover_msg_queues - the fields of QUEUE TABLE: the strategy and the
    named queues' rows (internal)

    Not part of the API: only drover_msg_fields.c includes this, and
    calls these from the message table while packing and reading
    (fields F_STRATEGY and F_QUEUE_ROWS). QUEUES has no fields.
    =========================================================================
*/

#ifndef DROVER_MSG_QUEUES_H_INCLUDED
#define DROVER_MSG_QUEUES_H_INCLUDED

#include "drover_msg.h"
#include "drover_mpack.h"

//  Pack QUEUE TABLE's strategy (self->strategy) as a peer of level knows
//  it: "rr" (level 7) is "spread" below level 7, the nearest it has (the
//  queues over several brokers); -1 if it is not one
int
    drover_msg_queues_pack_strategy (msgpack_packer *pk, const drover_msg_t *self, int level);

//  Pack QUEUE TABLE's rows (self->queue_rows, self->nqueues); -1 if one
//  breaks a limit, or they are not in name order
int
    drover_msg_queues_pack_rows (msgpack_packer *pk, const drover_msg_t *self);

//  Read QUEUE TABLE's strategy into self->strategy
bool
    drover_msg_queues_read_strategy (drover_mpack_cursor_t *cursor, drover_msg_t *self);

//  Read QUEUE TABLE's rows into self->queue_rows
bool
    drover_msg_queues_read_rows (drover_mpack_cursor_t *cursor, drover_msg_t *self);

#endif
