/*  =========================================================================
    drover_msg_share - the fields of sharing a cluster (level 4): device
    counts (WORKER HELLO, TASK SUBMIT, TASK OFFER, SHARE ADMIN), a TASK
    STARTED's assigned indices, SHARE ADMIN's members, SHARE TABLE's rows,
    and the device texts of a WORKER TABLE row (internal)

    Not part of the API: only drover_msg_fields.c includes this, and calls
    these from the message table while packing and reading (fields
    F_DEVICES, F_ASSIGNED, F_MEMBERS, F_SHARE_ROWS). The plain fields of
    level 4 (owner, weight, quotas) are plain fields of the table.
    =========================================================================
*/

#ifndef DROVER_MSG_SHARE_H_INCLUDED
#define DROVER_MSG_SHARE_H_INCLUDED

#include "drover_msg.h"
#include "drover_mpack.h"

//  Pack a devices array [[name, count]...]; -1 if past DROVER_DEVICES_MAX,
//  a name is not a device name, a count is 0 or past 1000000, or a name
//  repeats
int
    drover_msg_share_pack_devices (msgpack_packer *pk, const drover_msg_t *self);

//  Read a devices array into self->devices, checked as packing checks it
bool
    drover_msg_share_read_devices (drover_mpack_cursor_t *cursor, drover_msg_t *self);

//  Pack TASK STARTED's assigned indices ("gpu=0,2;fpga=4"; NULL as "");
//  -1 if not that form
int
    drover_msg_share_pack_assigned (msgpack_packer *pk, const drover_msg_t *self);

//  Read TASK STARTED's assigned indices into self->assigned ("" gives NULL)
bool
    drover_msg_share_read_assigned (drover_mpack_cursor_t *cursor, drover_msg_t *self);

//  Pack SHARE ADMIN's members: nil (NULL: keep them), or ids joined by
//  commas ("" none); -1 if a member is not an id or one repeats
int
    drover_msg_share_pack_members (msgpack_packer *pk, const drover_msg_t *self);

//  Read SHARE ADMIN's members into self->members (nil gives NULL)
bool
    drover_msg_share_read_members (drover_mpack_cursor_t *cursor, drover_msg_t *self);

//  Pack SHARE TABLE's rows; -1 if past the limit or a row is not valid
int
    drover_msg_share_pack_rows (msgpack_packer *pk, const drover_msg_t *self);

//  Read SHARE TABLE's rows into self->share_rows
bool
    drover_msg_share_read_rows (drover_mpack_cursor_t *cursor, drover_msg_t *self);

//  Pack a device list text ("gpu=4,fpga=1"; NULL as ""): a WORKER TABLE
//  row's devices or devices_used; -1 if it is not a canonical-form list
int
    drover_msg_share_pack_devicelist (msgpack_packer *pk, const char *text);

//  Read a device list text of a WORKER TABLE row into a new copy ("" gives
//  NULL); refused if it is not a device list
bool
    drover_msg_share_read_devicelist (drover_mpack_cursor_t *cursor, char **text_p);

//  Free what a share row owns (its devices and quota texts)
void
    drover_msg_share_row_free (drover_share_row_t *row);

//  True if text is a TASK STARTED's assigned indices: entries NAME=I,J...
//  joined by ';', names device names each once, indices decimal, at most
//  DROVER_ASSIGNED_MAX bytes; "" none
bool
    drover_msg_share_assigned_valid (const char *text, size_t length);

#endif
