/*  =========================================================================
    drover_msg_share - the fields of sharing a cluster (level 4; PROTOCOL.md
    §7.1, §7.6, §7.7, §7.10, §7.18, §7.45-§7.47)

    A devices field is an array of [name, count] entries: names of 1..32
    of a-z 0-9 _ (drover_devicelist_name_valid), each once, counts
    1..1000000, at most DROVER_DEVICES_MAX entries. A TASK STARTED's
    assigned is a string "gpu=0,2;fpga=4": per device name the indices the
    worker gave the attempt. SHARE ADMIN's members is nil (keep) or ids
    joined by commas. A SHARE TABLE row is a record of 13 elements
    (drover_share_row_t in order); records may grow at their end in a later
    level: a reader takes the elements it knows and skips the rest.

    Every value is checked on the way out (such a message is not encoded)
    and on the way in (it is refused, with a text naming the part), and an
    array is refused before it is allocated unless the bytes left hold its
    count at the smallest size an element can take.
    =========================================================================
*/

#include "drover_msg_share.h"
#include "drover_msg_fields.h"
#include "drover_devicelist.h"

//  The parts of the share fields, for error texts
typedef enum {
    P_DEVICES, P_DEVICE, P_DEVICE_NAME, P_DEVICE_COUNT, P_DEVICE_TWICE, P_ASSIGNED,
    P_MEMBERS, P_ROWS, P_ROW, P_ROW_NAME, P_ROW_ACCOUNT, P_ROW_KIND, P_ROW_RESOURCE,
    P_ROW_DEVICES, P_ROW_QUOTA, P_ROW_NUMBER, P_DEVICELIST, P_COUNT
} s_part_t;

static const drover_mpack_errors_t
s_errors [P_COUNT] = {
    [P_DEVICES]     = DROVER_MPACK_ERRORS ("devices", "invalid"),
    [P_DEVICE]      = DROVER_MPACK_ERRORS ("device", "not [name, count]"),
    [P_DEVICE_NAME] = DROVER_MPACK_ERRORS ("device name", "not 1..32 of a-z 0-9 _"),
    [P_DEVICE_COUNT] = DROVER_MPACK_ERRORS ("device count", "not 1..1000000"),
    [P_DEVICE_TWICE] = DROVER_MPACK_ERRORS ("devices", "a device name is given twice"),
    [P_ASSIGNED]    = DROVER_MPACK_ERRORS ("assigned", "not NAME=I,J;NAME=K"),
    [P_MEMBERS]     = DROVER_MPACK_ERRORS ("members", "not ids joined by commas, each once"),
    [P_ROWS]        = DROVER_MPACK_ERRORS ("shares", "invalid"),
    [P_ROW]         = DROVER_MPACK_ERRORS ("share row", "invalid"),
    [P_ROW_NAME]    = DROVER_MPACK_ERRORS ("share name", "not a valid id"),
    [P_ROW_ACCOUNT] = DROVER_MPACK_ERRORS ("share account", "not a valid id"),
    [P_ROW_KIND]    = DROVER_MPACK_ERRORS ("share kind", "invalid"),
    [P_ROW_RESOURCE] = DROVER_MPACK_ERRORS ("share resource", "not a resource name"),
    [P_ROW_DEVICES] = DROVER_MPACK_ERRORS ("share devices", "not a device list"),
    [P_ROW_QUOTA]   = DROVER_MPACK_ERRORS ("share quota", "not printable ASCII"),
    [P_ROW_NUMBER]  = DROVER_MPACK_ERRORS ("share row", "invalid"),
    [P_DEVICELIST]  = DROVER_MPACK_ERRORS ("devices", "not a device list"),
};

#define S_DEVICE_KNOWN      2       //  elements of a device entry this version reads
#define S_ROW_KNOWN         13      //  elements of a share row this version reads
#define S_DEVICE_MIN        4       //  fewest wire bytes of a device: header + "x" (2) + fixint
#define S_ROW_MIN           15      //  fewest of a share row: header + 1-byte name (2) +
                                    //  11 one-byte elements + empty quota (1)
#define S_KINDS_MAX         1       //  a share row's kind: 0 account, 1 owner

//  Run a reader with this file's error texts, then the caller's again
#define S_WITH_ERRORS(cursor, call) do { \
        const drover_mpack_errors_t *saved = (cursor)->errors; \
        (cursor)->errors = s_errors; \
        bool ok = (call); \
        (cursor)->errors = saved; \
        return ok; \
    } while (0)

//  True if length bytes are a device name
static bool
s_name_valid (const char *text, size_t length)
{
    char name [DROVER_DEVICE_NAME_MAX + 1];
    if (length < 1 || length > DROVER_DEVICE_NAME_MAX)
        return false;
    memcpy (name, text, length);
    name [length] = 0;
    return drover_devicelist_name_valid (name);
}

//  Pack a devices array; -1 if an entry is not valid or a name repeats
int
drover_msg_share_pack_devices (msgpack_packer *pk, const drover_msg_t *self)
{
    if (self->ndevices > DROVER_DEVICES_MAX)
        return -1;
    msgpack_pack_array (pk, self->ndevices);
    for (uint32_t index = 0; index < self->ndevices; index++) {
        const drover_device_t *device = &self->devices [index];
        if (!drover_devicelist_name_valid (device->name)
        ||  device->count < 1 || device->count > DROVER_DEVICE_COUNT_MAX
        ||  drover_devicelist_count (self->devices, index, device->name))
            return -1;
        msgpack_pack_array (pk, S_DEVICE_KNOWN);
        drover_mpack_pack_str (pk, device->name, strlen (device->name));
        msgpack_pack_uint32 (pk, device->count);
    }
    return 0;
}

//  Read a devices array, with this file's error texts
static bool
s_read_devices (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    uint32_t count, fields;
    if (!drover_mpack_read_array (cursor, P_DEVICES, 0, DROVER_DEVICES_MAX, S_DEVICE_MIN,
                                  &count))
        return false;
    self->ndevices = 0;
    for (uint32_t index = 0; index < count; index++) {
        drover_device_t *device = &self->devices [index];
        const char *text;
        size_t length;
        if (!drover_mpack_read_array (cursor, P_DEVICE, S_DEVICE_KNOWN, UINT32_MAX, 1, &fields)
        ||  !drover_mpack_read_str (cursor, P_DEVICE_NAME, 1, DROVER_DEVICE_NAME_MAX,
                                    &text, &length)
        ||  !drover_mpack_read_u32 (cursor, P_DEVICE_COUNT, &device->count))
            return false;
        if (!s_name_valid (text, length))
            return drover_mpack_fail (cursor, s_errors [P_DEVICE_NAME].invalid);
        memcpy (device->name, text, length);
        device->name [length] = 0;
        if (device->count < 1 || device->count > DROVER_DEVICE_COUNT_MAX)
            return drover_mpack_fail (cursor, s_errors [P_DEVICE_COUNT].range);
        if (drover_devicelist_count (self->devices, index, device->name))
            return drover_mpack_fail (cursor, s_errors [P_DEVICE_TWICE].invalid);
        self->ndevices = index + 1;
        if (!drover_mpack_skip_rest (cursor, fields, S_DEVICE_KNOWN, 3))
            return false;
    }
    return true;
}

//  Read a devices array into self->devices
bool
drover_msg_share_read_devices (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    S_WITH_ERRORS (cursor, s_read_devices (cursor, self));
}

//  True if text is assigned indices: NAME=I,J... entries joined by ';'
bool
drover_msg_share_assigned_valid (const char *text, size_t length)
{
    if (length > DROVER_ASSIGNED_MAX)
        return false;
    char names [DROVER_DEVICES_MAX][DROVER_DEVICE_NAME_MAX + 1];
    size_t nnames = 0;
    size_t at = 0;
    while (at < length) {
        size_t start = at;
        while (at < length && text [at] != '=')
            at++;
        if (at == length || nnames == DROVER_DEVICES_MAX || !s_name_valid (text + start, at - start))
            return false;
        memcpy (names [nnames], text + start, at - start);
        names [nnames][at - start] = 0;
        for (size_t other = 0; other < nnames; other++)
            if (streq (names [other], names [nnames]))
                return false;
        nnames++;
        at++;                   //  past '='
        //  One or more indices: up to 9 digits each, joined by commas
        while (true) {
            size_t digits = 0;
            while (at < length && text [at] >= '0' && text [at] <= '9') {
                at++;
                digits++;
            }
            if (digits < 1 || digits > 9)
                return false;
            if (at < length && text [at] == ',') {
                at++;
                continue;
            }
            break;
        }
        if (at < length && text [at] != ';')
            return false;
        if (at < length && ++at == length)
            return false;       //  a trailing ';'
    }
    return true;
}

//  Pack TASK STARTED's assigned indices; -1 if not that form
int
drover_msg_share_pack_assigned (msgpack_packer *pk, const drover_msg_t *self)
{
    const char *text = self->assigned? self->assigned: "";
    size_t length = strnlen (text, DROVER_ASSIGNED_MAX + 1);
    if (!drover_msg_share_assigned_valid (text, length))
        return -1;
    drover_mpack_pack_str (pk, text, length);
    return 0;
}

//  Read assigned indices, with this file's error texts
static bool
s_read_assigned (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    const char *text;
    size_t length;
    if (!drover_mpack_read_str (cursor, P_ASSIGNED, 0, DROVER_ASSIGNED_MAX, &text, &length))
        return false;
    if (!drover_msg_share_assigned_valid (text, length))
        return drover_mpack_fail (cursor, s_errors [P_ASSIGNED].invalid);
    free (self->assigned);
    self->assigned = length? drover_mpack_strndup (text, length): NULL;
    return true;
}

//  Read TASK STARTED's assigned indices into self->assigned
bool
drover_msg_share_read_assigned (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    S_WITH_ERRORS (cursor, s_read_assigned (cursor, self));
}

//  True if length bytes are ids joined by commas, each once ("" none)
static bool
s_members_valid (const char *text, size_t length)
{
    if (length > DROVER_MEMBERS_MAX)
        return false;
    if (length == 0)
        return true;
    zhashx_t *seen = zhashx_new ();
    bool valid = true;
    size_t at = 0;
    while (valid && at <= length) {
        size_t start = at;
        while (at < length && text [at] != ',')
            at++;
        char id [DROVER_ID_MAX + 1];
        size_t size = at - start;
        valid = size >= 1 && size <= DROVER_ID_MAX
             && drover_mpack_id_valid (text + start, size);
        if (valid) {
            memcpy (id, text + start, size);
            id [size] = 0;
            valid = zhashx_insert (seen, id, (void *) 1) == 0;
        }
        at++;                   //  past ',' (or the end)
    }
    zhashx_destroy (&seen);
    return valid;
}

//  Pack SHARE ADMIN's members: nil to keep, else ids joined by commas
int
drover_msg_share_pack_members (msgpack_packer *pk, const drover_msg_t *self)
{
    if (!self->members)
        return msgpack_pack_nil (pk), 0;
    size_t length = strnlen (self->members, DROVER_MEMBERS_MAX + 1);
    if (!s_members_valid (self->members, length))
        return -1;
    drover_mpack_pack_str (pk, self->members, length);
    return 0;
}

//  Read members, with this file's error texts
static bool
s_read_members (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    const char *text;
    size_t length;
    if (drover_mpack_read_nil (cursor))
        return true;
    if (!drover_mpack_read_str (cursor, P_MEMBERS, 0, DROVER_MEMBERS_MAX, &text, &length))
        return false;
    if (!s_members_valid (text, length))
        return drover_mpack_fail (cursor, s_errors [P_MEMBERS].invalid);
    free (self->members);
    self->members = drover_mpack_strndup (text, length);   //  "" stays "": no members
    return true;
}

//  Read SHARE ADMIN's members into self->members
bool
drover_msg_share_read_members (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    S_WITH_ERRORS (cursor, s_read_members (cursor, self));
}

//  True if length bytes are a device list ("" none)
static bool
s_devicelist_valid (const char *text, size_t length)
{
    if (length >= DROVER_DEVICELIST_TEXT_MAX)
        return false;
    if (length == 0)
        return true;
    char copy [DROVER_DEVICELIST_TEXT_MAX];
    memcpy (copy, text, length);
    copy [length] = 0;
    if (strchr (copy, ' '))
        return false;           //  the wire has the canonical form: no spaces
    drover_device_t devices [DROVER_DEVICES_MAX];
    return drover_devicelist_parse (copy, devices, NULL) > 0;
}

//  True if length bytes are printable ASCII
static bool
s_printable (const char *text, size_t length)
{
    for (size_t index = 0; index < length; index++)
        if ((byte) text [index] < 0x20 || (byte) text [index] > 0x7e)
            return false;
    return true;
}

//  Pack a device list text; -1 if it is not one
int
drover_msg_share_pack_devicelist (msgpack_packer *pk, const char *text)
{
    text = text? text: "";
    size_t length = strnlen (text, DROVER_DEVICELIST_TEXT_MAX);
    if (!s_devicelist_valid (text, length))
        return -1;
    drover_mpack_pack_str (pk, text, length);
    return 0;
}

//  Read a device list text part into a new copy ("" gives NULL)
static bool
s_read_devicelist (drover_mpack_cursor_t *cursor, int part, char **text_p)
{
    const char *text;
    size_t length;
    if (!drover_mpack_read_str (cursor, part, 0, DROVER_DEVICELIST_TEXT_MAX - 1, &text, &length))
        return false;
    if (!s_devicelist_valid (text, length))
        return drover_mpack_fail (cursor, s_errors [part].invalid);
    free (*text_p);
    *text_p = length? drover_mpack_strndup (text, length): NULL;
    return true;
}

//  Read a WORKER TABLE row's device list text into a new copy
bool
drover_msg_share_read_devicelist (drover_mpack_cursor_t *cursor, char **text_p)
{
    S_WITH_ERRORS (cursor, s_read_devicelist (cursor, P_DEVICELIST, text_p));
}

//  True if a share row's resource is "" (runs nothing), "procs", "mem" or
//  a device name (all three are of a-z)
static bool
s_resource_valid (const char *text, size_t length)
{
    return length == 0 || s_name_valid (text, length);
}

//  Pack SHARE TABLE's rows; -1 if past the limit or a row is not valid
int
drover_msg_share_pack_rows (msgpack_packer *pk, const drover_msg_t *self)
{
    if (self->nshares > DROVER_ROWS_MAX || (self->nshares && !self->share_rows))
        return -1;
    msgpack_pack_array (pk, self->nshares);
    for (uint32_t index = 0; index < self->nshares; index++) {
        const drover_share_row_t *row = &self->share_rows [index];
        size_t resource = strnlen (row->resource, DROVER_DEVICE_NAME_MAX + 1);
        const char *quota = row->quota? row->quota: "";
        size_t quota_length = strnlen (quota, DROVER_QUOTA_MAX + 1);
        if (row->kind > S_KINDS_MAX || !s_resource_valid (row->resource, resource)
        ||  quota_length > DROVER_QUOTA_MAX || !s_printable (quota, quota_length))
            return -1;
        msgpack_pack_array (pk, S_ROW_KNOWN);
        if (drover_mpack_pack_id (pk, row->name, false)
        ||  drover_mpack_pack_id (pk, row->account, true))
            return -1;
        msgpack_pack_uint8 (pk, row->kind);
        msgpack_pack_uint32 (pk, row->weight);
        msgpack_pack_uint32 (pk, row->share);
        drover_mpack_pack_str (pk, row->resource, resource);
        msgpack_pack_uint32 (pk, row->fair);
        msgpack_pack_uint32 (pk, row->procs);
        msgpack_pack_uint64 (pk, row->mem);
        if (drover_msg_share_pack_devicelist (pk, row->devices))
            return -1;
        msgpack_pack_uint64 (pk, row->waiting);
        msgpack_pack_uint64 (pk, row->queued);
        drover_mpack_pack_str (pk, quota, quota_length);
    }
    return 0;
}

//  Read one share row's elements (its header read: fields elements)
static bool
s_read_row (drover_mpack_cursor_t *cursor, drover_share_row_t *row, uint32_t fields)
{
    const char *text;
    size_t length;
    if (!drover_mpack_read_id (cursor, P_ROW_NAME, false, row->name)
    ||  !drover_mpack_read_id (cursor, P_ROW_ACCOUNT, true, row->account)
    ||  !drover_mpack_read_u8 (cursor, P_ROW_KIND, S_KINDS_MAX, &row->kind)
    ||  !drover_mpack_read_u32 (cursor, P_ROW_NUMBER, &row->weight)
    ||  !drover_mpack_read_u32 (cursor, P_ROW_NUMBER, &row->share)
    ||  !drover_mpack_read_str (cursor, P_ROW_RESOURCE, 0, DROVER_DEVICE_NAME_MAX,
                                &text, &length))
        return false;
    if (!s_resource_valid (text, length))
        return drover_mpack_fail (cursor, s_errors [P_ROW_RESOURCE].invalid);
    memcpy (row->resource, text, length);
    row->resource [length] = 0;
    if (!drover_mpack_read_u32 (cursor, P_ROW_NUMBER, &row->fair)
    ||  !drover_mpack_read_u32 (cursor, P_ROW_NUMBER, &row->procs)
    ||  !drover_mpack_read_u64 (cursor, P_ROW_NUMBER, &row->mem)
    ||  !s_read_devicelist (cursor, P_ROW_DEVICES, &row->devices)
    ||  !drover_mpack_read_u64 (cursor, P_ROW_NUMBER, &row->waiting)
    ||  !drover_mpack_read_u64 (cursor, P_ROW_NUMBER, &row->queued)
    ||  !drover_mpack_read_str (cursor, P_ROW_QUOTA, 0, DROVER_QUOTA_MAX, &text, &length))
        return false;
    if (!s_printable (text, length))
        return drover_mpack_fail (cursor, s_errors [P_ROW_QUOTA].invalid);
    row->quota = length? drover_mpack_strndup (text, length): NULL;
    return drover_mpack_skip_rest (cursor, fields, S_ROW_KNOWN, 3);
}

//  Read the rows, with this file's error texts
static bool
s_read_rows (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    uint32_t count, fields;
    if (!drover_mpack_read_array (cursor, P_ROWS, 0, DROVER_ROWS_MAX, S_ROW_MIN, &count))
        return false;
    if (count == 0)
        return true;
    self->share_rows = (drover_share_row_t *) zmalloc (count * sizeof (drover_share_row_t));
    self->nshares = count;
    for (uint32_t index = 0; index < count; index++)
        if (!drover_mpack_read_array (cursor, P_ROW, S_ROW_KNOWN, UINT32_MAX, 1, &fields)
        ||  !s_read_row (cursor, &self->share_rows [index], fields))
            return false;
    return true;
}

//  Read SHARE TABLE's rows into self->share_rows
bool
drover_msg_share_read_rows (drover_mpack_cursor_t *cursor, drover_msg_t *self)
{
    S_WITH_ERRORS (cursor, s_read_rows (cursor, self));
}

//  Free what a share row owns
void
drover_msg_share_row_free (drover_share_row_t *row)
{
    free (row->devices);
    free (row->quota);
    row->devices = NULL;
    row->quota = NULL;
}
