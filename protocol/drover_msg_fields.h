/*  =========================================================================
    drover_msg_fields - the message table: what each wire message holds, in
    which order, and how each field is packed and read (internal)

    Not part of the API: only drover_msg.c includes this (and
    drover_msg_service.c, for the labels arrays its rows hold too). It packs and
    reads the header and the fields by the table in drover_msg_fields.c;
    drover_msg.c owns the message, runs the two packing passes and walks
    the structure before reading.
    =========================================================================
*/

#ifndef DROVER_MSG_FIELDS_H_INCLUDED
#define DROVER_MSG_FIELDS_H_INCLUDED

#include "drover_msg.h"
#include "drover_mpack.h"

//  Pack a whole message (a drover_msg_t): header, then its fields in wire
//  order; -1 if it has no valid id or a field breaks a limit. A
//  drover_mpack_pack_fn, for drover_mpack_measure and drover_mpack_write.
int
    drover_msg_fields_pack (msgpack_packer *pk, const void *value);

//  A message to pack as a peer of level knows it (drover_msg_fields_pack_at)
typedef struct {
    const drover_msg_t *msg;    //  the message, borrowed
    int level;                  //  1..DROVER_MSG_LEVEL
    bool step;                  //  a WORKFLOW SUBMIT's step: a TASK SUBMIT whose after
                                //  entries may name steps (DROVER_AFTER_STEP)
} drover_msg_fields_leveled_t;

//  Pack a drover_msg_fields_leveled_t: the header, then the fields and
//  values its level knows (PROTOCOL.md §12); -1 if the id is newer than
//  the level or a field breaks a limit. A drover_mpack_pack_fn.
int
    drover_msg_fields_pack_at (msgpack_packer *pk, const void *value);

//  A cursor over size bytes at data that names message fields in its errors
drover_mpack_cursor_t
    drover_msg_fields_cursor (const byte *data, size_t size);

//  Read the header: array, signature, version, id and seq, setting what
//  it can in self even when the message is refused (the broker echoes the
//  seq of a refused request). Returns the array's element count, or -1.
int64_t
    drover_msg_fields_read_header (drover_mpack_cursor_t *cursor, drover_msg_t *self);

//  Read the fields of self->id, the header read: the array holds count
//  elements in all, in the layout of the newest level they fit; step: the
//  message is a WORKFLOW SUBMIT's step (a TASK SUBMIT whose after entries
//  may name steps, and nothing else). Returns false at the first field
//  that is wrong, or if count fits no level, with cursor->error saying
//  why; sets self->implied.
bool
    drover_msg_fields_read (drover_mpack_cursor_t *cursor, drover_msg_t *self, size_t count,
                            bool step);

//  Decode the bytes of a WORKFLOW SUBMIT's step into self (reset first), as
//  drover_msg_decode does, but only a TASK SUBMIT, whose after entries may
//  name steps. Returns 0, or -2 with self->error saying why. (drover_msg.c)
int
    drover_msg_decode_step (drover_msg_t *self, const byte *data, size_t size);

//  Pack a labels array; -1 if past the limit or a label is invalid
int
    drover_msg_fields_pack_labels (msgpack_packer *pk, char *const *labels, uint32_t nlabels);

//  Read a labels array, part (for the error texts) of a message or record,
//  into labels [] (empty on entry), counting as it goes
bool
    drover_msg_fields_read_labels (drover_mpack_cursor_t *cursor, int part, char **labels,
                                   uint32_t *nlabels);

#endif
