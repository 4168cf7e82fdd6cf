/*  =========================================================================
    drover_msg_pool - the fields of the elastic pool's messages: POOL TABLE's
    summary and rows (internal)

    Not part of the API: only drover_msg_fields.c includes this, and
    calls these from the message table while packing and reading
    (fields F_POOL_SUMMARY and F_POOL_ROWS). POOL LIST has no fields;
    POOL ADMIN's (action, instance) are plain fields of the table.
    =========================================================================
*/

#ifndef DROVER_MSG_POOL_H_INCLUDED
#define DROVER_MSG_POOL_H_INCLUDED

#include "drover_msg.h"
#include "drover_mpack.h"

//  Pack POOL TABLE's summary (self->pool) for a peer of level (its level-7
//  element only to level >= 7); -1 if it breaks a limit
int
    drover_msg_pool_pack_summary (msgpack_packer *pk, const drover_msg_t *self, int level);

//  Pack POOL TABLE's rows (self->pool_rows, self->nrows) for a peer of
//  level (their level-7 elements only to level >= 7); -1 if one breaks a
//  limit, or if there are rows and the summary says no pool
int
    drover_msg_pool_pack_rows (msgpack_packer *pk, const drover_msg_t *self, int level);

//  Read POOL TABLE's summary into self->pool
bool
    drover_msg_pool_read_summary (drover_mpack_cursor_t *cursor, drover_msg_t *self);

//  Read POOL TABLE's rows into self->pool_rows (the summary read before)
bool
    drover_msg_pool_read_rows (drover_mpack_cursor_t *cursor, drover_msg_t *self);

#endif
