/*  =========================================================================
    drover_queuequota - the queued quotas assign enforces at submit
    =========================================================================
*/

#include "drover_queuequota.h"
#include "drover_owners.h"
#include "drover_fairshare.h"
#include "drover_sharespec.h"

struct _drover_queuequota_t {
    uint64_t *queued;           //  tasks QUEUED per owner index, DROVER_OWNERS_MAX + 1
    char **names;               //  each counted index's name (owned), for a new table
    uint32_t *handles;          //  each index's handle in fairshare, 0 not yet known
    drover_fairshare_t *fairshare;  //  accounts and quotas, or NULL while none are set
};

//  Create a table with no quotas
drover_queuequota_t *
drover_queuequota_new (void)
{
    drover_queuequota_t *self = (drover_queuequota_t *) zmalloc (sizeof (drover_queuequota_t));
    self->queued = (uint64_t *) zmalloc ((DROVER_OWNERS_MAX + 1) * sizeof (uint64_t));
    self->names = (char **) zmalloc ((DROVER_OWNERS_MAX + 1) * sizeof (char *));
    self->handles = (uint32_t *) zmalloc ((DROVER_OWNERS_MAX + 1) * sizeof (uint32_t));
    return self;
}

//  Destroy the table
void
drover_queuequota_destroy (drover_queuequota_t **self_p)
{
    assert (self_p);
    drover_queuequota_t *self = *self_p;
    if (!self)
        return;
    for (size_t index = 0; index <= DROVER_OWNERS_MAX; index++)
        free (self->names [index]);
    free (self->names);
    free (self->queued);
    free (self->handles);
    drover_fairshare_destroy (&self->fairshare);
    free (self);
    *self_p = NULL;
}

//  Return an owner's handle in the fair-share table, made known if new;
//  0 if there is no table or the name is not an id
static uint32_t
s_handle (drover_queuequota_t *self, uint16_t owner, const char *name)
{
    if (!self->fairshare || !*name)
        return 0;
    if (!self->handles [owner]) {
        self->handles [owner] = drover_fairshare_owner (self->fairshare, name);
        if (self->handles [owner] && self->queued [owner])
            drover_fairshare_add_queued (self->fairshare, self->handles [owner],
                                         (int64_t) self->queued [owner]);
    }
    return self->handles [owner];
}

//  Take the share settings
int
drover_queuequota_set (drover_queuequota_t *self, const char *accounts, const char *quotas,
                      char **error_p)
{
    assert (self);
    drover_sharespec_t *spec = drover_sharespec_new (accounts, NULL, quotas, error_p);
    if (!spec)
        return -1;
    drover_fairshare_destroy (&self->fairshare);
    memset (self->handles, 0, (DROVER_OWNERS_MAX + 1) * sizeof (uint32_t));
    if ((accounts && *accounts) || (quotas && *quotas)) {
        self->fairshare = drover_fairshare_new ();
        drover_sharespec_apply (spec, self->fairshare);
        for (size_t index = 1; index <= DROVER_OWNERS_MAX; index++)
            if (self->names [index])
                s_handle (self, (uint16_t) index, self->names [index]);
    }
    drover_sharespec_destroy (&spec);
    return 0;
}

//  Count tasks of an owner as QUEUED or no longer
void
drover_queuequota_add (drover_queuequota_t *self, uint16_t owner, const char *name,
                      int64_t delta)
{
    assert (self && name);
    if (delta < 0 && (uint64_t) -delta > self->queued [owner])
        delta = - (int64_t) self->queued [owner];
    if (!self->names [owner] && *name) {
        self->names [owner] = strdup (name);
        assert (self->names [owner]);
    }
    bool known = self->handles [owner] != 0;
    self->queued [owner] += (uint64_t) delta;
    uint32_t handle = s_handle (self, owner, name);
    if (handle && known)        //  a new handle counted them all already
        drover_fairshare_add_queued (self->fairshare, handle, delta);
}

//  Return the tasks an owner has QUEUED
uint64_t
drover_queuequota_queued (drover_queuequota_t *self, uint16_t owner)
{
    assert (self);
    return self->queued [owner];
}

//  Check whether count more tasks may be queued
int
drover_queuequota_check (drover_queuequota_t *self, uint16_t owner, const char *name,
                        uint64_t count, char *reason, size_t reason_size)
{
    assert (self && name);
    uint32_t handle = s_handle (self, owner, name);
    drover_fairshare_refusal_t refusal;
    if (!handle || drover_fairshare_may_queue (self->fairshare, handle, count, &refusal) == 0)
        return 0;
    int length = snprintf (reason, reason_size, "quota: %s%s has %" PRIu64 " tasks queued,"
                           " at most %" PRIu64, refusal.account? "account ": "", refusal.who,
                           refusal.used, refusal.limit);
    if (count > 1 && length > 0 && (size_t) length < reason_size)
        snprintf (reason + length, reason_size - (size_t) length, "; this submit adds %" PRIu64,
                  count);
    return -1;
}
