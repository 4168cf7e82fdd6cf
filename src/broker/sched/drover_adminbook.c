/*  =========================================================================
    drover_adminbook - an operator's settings per worker id: hold or drain,
    why, and since when

    A hash of entries by worker id, each owning its strings.
    =========================================================================
*/

#include "drover_adminbook.h"
#include "drover_msg.h"

//  One entry, owning its strings
typedef struct {
    drover_adminbook_entry_t entry;     //  what is shown; strings point below
    char *id;                   //  worker id
    char *reason;               //  the operator's reason, "" if none
} s_entry_t;

struct _drover_adminbook_t {
    zhashx_t *entries;          //  worker id -> s_entry_t (owned)
    size_t max;                 //  entries at most
};


//  Free an entry; the hash's destructor
static void
s_entry_destroy (void **item_p)
{
    s_entry_t *entry = (s_entry_t *) *item_p;
    if (entry) {
        free (entry->id);
        free (entry->reason);
        free (entry);
        *item_p = NULL;
    }
}

//  Create an empty book
drover_adminbook_t *
drover_adminbook_new (size_t max)
{
    drover_adminbook_t *self = (drover_adminbook_t *) zmalloc (sizeof (drover_adminbook_t));
    self->entries = zhashx_new ();
    zhashx_set_destructor (self->entries, s_entry_destroy);
    self->max = max;
    return self;
}

//  Destroy the book
void
drover_adminbook_destroy (drover_adminbook_t **self_p)
{
    assert (self_p);
    drover_adminbook_t *self = *self_p;
    if (self) {
        zhashx_destroy (&self->entries);
        free (self);
        *self_p = NULL;
    }
}

//  Set a worker's admin setting
int
drover_adminbook_set (drover_adminbook_t *self, const char *id, int admin, uint32_t flags,
                      const char *reason, uint64_t since)
{
    assert (self);
    assert (id);
    if (admin < 0 || admin > DROVER_ADMIN_MAX)
        return -1;
    s_entry_t *entry = (s_entry_t *) zhashx_lookup (self->entries, id);
    if (admin == DROVER_ADMIN_RUN) {
        zhashx_delete (self->entries, id);
        return 0;
    }
    if (!entry) {
        if (zhashx_size (self->entries) >= self->max)
            return -1;          //  full
        entry = (s_entry_t *) zmalloc (sizeof (s_entry_t));
        entry->id = strdup (id);
        assert (entry->id);
        zhashx_insert (self->entries, id, entry);
    }
    free (entry->reason);
    entry->reason = strdup (reason? reason: "");
    assert (entry->reason);
    entry->entry.id = entry->id;
    entry->entry.admin = admin;
    entry->entry.flags = flags;
    entry->entry.reason = entry->reason;
    entry->entry.since = since;
    return 0;
}

//  Clear flags of a worker's entry
bool
drover_adminbook_clear_flags (drover_adminbook_t *self, const char *id, uint32_t flags)
{
    assert (self);
    s_entry_t *entry = (s_entry_t *) zhashx_lookup (self->entries, id);
    if (!entry || !(entry->entry.flags & flags))
        return false;
    entry->entry.flags &= ~flags;
    return true;
}

//  Return a worker's entry
const drover_adminbook_entry_t *
drover_adminbook_lookup (drover_adminbook_t *self, const char *id)
{
    assert (self);
    s_entry_t *entry = (s_entry_t *) zhashx_lookup (self->entries, id);
    return entry? &entry->entry: NULL;
}

//  Return how many entries the book holds
size_t
drover_adminbook_size (drover_adminbook_t *self)
{
    assert (self);
    return zhashx_size (self->entries);
}
