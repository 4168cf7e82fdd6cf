/*  =========================================================================
    drover_shares - a listing of fair shares (see drover_shares.h), and the
    client's share requests: SHARE LIST, SHARE ADMIN set and drop

    Made from a SHARE TABLE, which it keeps: its rows' strings are the
    message's own, so a row costs a few words and no copy of text.
    =========================================================================
*/

#include "drover_client_wire.h"

struct _drover_shares_t {
    drover_msg_t *table;            //  the SHARE TABLE, owned
    drover_share_entry_t *rows;     //  table->nshares entries, owned
};

//  Fill one entry from a SHARE TABLE row (strings borrowed from it)
static void
s_entry_fill (drover_share_entry_t *entry, const drover_share_row_t *row)
{
    *entry = (drover_share_entry_t) {
        .name = row->name,
        .account = row->account,
        .kind = row->kind,
        .weight = row->weight,
        .share = row->share,
        .resource = row->resource,
        .fair = row->fair,
        .procs = row->procs,
        .mem = row->mem,
        .devices = row->devices? row->devices: "",
        .waiting = row->waiting,
        .queued = row->queued,
        .quota = row->quota? row->quota: ""
    };
}

//  Make a listing of a SHARE TABLE, which it takes; NULL stays NULL
static drover_shares_t *
s_shares_from (drover_msg_t **table_p)
{
    drover_msg_t *table = *table_p;
    *table_p = NULL;
    if (!table)
        return NULL;
    drover_shares_t *self = (drover_shares_t *) zmalloc (sizeof (drover_shares_t));
    self->table = table;
    self->rows = (drover_share_entry_t *) zmalloc ((table->nshares + 1)
                                                   * sizeof (drover_share_entry_t));
    for (uint32_t index = 0; index < table->nshares; index++)
        s_entry_fill (&self->rows [index], &table->share_rows [index]);
    return self;
}

//  Destroy a listing
void
drover_shares_destroy (drover_shares_t **self_p)
{
    assert (self_p);
    drover_shares_t *self = *self_p;
    if (self) {
        drover_msg_destroy (&self->table);
        free (self->rows);
        free (self);
        *self_p = NULL;
    }
}

//  Return the number of rows
size_t
drover_shares_size (const drover_shares_t *self)
{
    return self? self->table->nshares: 0;
}

//  Return row index, borrowed; NULL past the end
const drover_share_entry_t *
drover_shares_row (const drover_shares_t *self, size_t index)
{
    return self && index < self->table->nshares? &self->rows [index]: NULL;
}

//  Send a request and take its answer if it is a message of id
static drover_msg_t *
s_request_expect (drover_client_t *self, drover_msg_t *request, int id)
{
    drover_msg_t *reply = drover_client_request (self, request);
    if (reply && reply->id != id) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_PROTOCOL, "broker answered %s to %s",
                                 drover_msg_name (reply->id), drover_msg_name (request->id));
        drover_msg_destroy (&reply);
    }
    return reply;
}

//  Ask for the fair shares
drover_shares_t *
drover_client_shares (drover_client_t *self)
{
    assert (self);
    drover_msg_t *request = drover_msg_new (DROVER_MSG_SHARE_LIST);
    drover_msg_t *table = s_request_expect (self, request, DROVER_MSG_SHARE_TABLE);
    drover_msg_destroy (&request);
    return s_shares_from (&table);
}

//  Check a share's name; -1 with the error set if it is not an id
static int
s_name_check (drover_client_t *self, const char *name)
{
    if (drover_id_valid (name))
        return 0;
    drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID,
                             "'%.64s' is not an account or owner name (printable, no spaces, "
                             "1..64 bytes)", name? name: "");
    return -1;
}

//  Send a SHARE ADMIN; 0 on OK, -1 with the error set
static int
s_share_admin (drover_client_t *self, drover_msg_t *request)
{
    drover_msg_t *reply = s_request_expect (self, request, DROVER_MSG_OK);
    int rc = reply? 0: -1;
    drover_msg_destroy (&reply);
    return rc;
}

//  Set an account's or an owner's weight, members and quotas
int
drover_client_share_set (drover_client_t *self, const char *name, const drover_share_set_t *set)
{
    assert (self);
    assert (set);
    if (s_name_check (self, name))
        return -1;
    if (set->weight > DROVER_WEIGHT_MAX) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID,
                                 "a weight is 1..%d", DROVER_WEIGHT_MAX);
        return -1;
    }
    drover_msg_t *request = drover_msg_new (DROVER_MSG_SHARE_ADMIN);
    request->action = DROVER_SHARE_SET;
    snprintf (request->owner, sizeof request->owner, "%s", name);
    request->weight = set->weight;
    request->members = set->members? strdup (set->members): NULL;
    request->quota_procs = set->max_procs;
    request->quota_mem = set->max_mem;
    request->quota_queued = set->max_queued;
    const char *error = NULL;
    int count = drover_devicelist_parse (set->max_devices, request->devices, &error);
    int rc = -1;
    if (count < 0)
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID, "device quota: %s", error);
    else {
        request->ndevices = (uint32_t) count;
        rc = s_share_admin (self, request);
    }
    drover_msg_destroy (&request);
    return rc;
}

//  Forget what share_set set for name
int
drover_client_share_drop (drover_client_t *self, const char *name)
{
    assert (self);
    if (s_name_check (self, name))
        return -1;
    drover_msg_t *request = drover_msg_new (DROVER_MSG_SHARE_ADMIN);
    request->action = DROVER_SHARE_DROP;
    snprintf (request->owner, sizeof request->owner, "%s", name);
    int rc = s_share_admin (self, request);
    drover_msg_destroy (&request);
    return rc;
}
