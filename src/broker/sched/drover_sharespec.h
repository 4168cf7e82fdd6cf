/*  =========================================================================
    drover_sharespec - the broker's share settings, parsed and checked:
    accounts and their members, weights, quotas

        share/accounts = "team-a:alice,bob;team-b:carol"
        share/weights  = "team-a=3,team-b=1,alice=2"
        share/quotas   = "team-a:procs=40,mem=64G,gpu=4,queued=1000;alice:procs=8"

    A weight or quota names a declared account if there is one by that
    name, else an owner (an owner in no account is an account of its own,
    and its weight is that account's). Weights are 1..1000000 (default 1).
    Quota keys: procs, mem (a size: 512M, 64G), queued, and any other key
    is a device name (gpu=4). Spaces around names and values are ignored;
    an empty setting says nothing. A mistake is refused as a whole, with a
    message that names the setting, the entry and what is wrong.
    =========================================================================
*/

#ifndef DROVER_SHARESPEC_H_INCLUDED
#define DROVER_SHARESPEC_H_INCLUDED

#include <czmq.h>
#include "drover_fairshare.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_sharespec_t drover_sharespec_t;

//  Parse the three settings (each may be NULL or ""). Returns the spec, or
//  NULL and sets *error_p (ours to free) to say what is wrong.
drover_sharespec_t *
    drover_sharespec_new (const char *accounts, const char *weights, const char *quotas,
                         char **error_p);

//  Check the three settings as drover_sharespec_new parses them. Returns 0,
//  or -1 and sets *error_p (ours to free) naming the setting.
int
    drover_sharespec_check (const char *accounts, const char *weights, const char *quotas,
                           char **error_p);

//  Destroy the spec; harmless on NULL
void
    drover_sharespec_destroy (drover_sharespec_t **self_p);

//  Return how many accounts are declared
size_t
    drover_sharespec_accounts (drover_sharespec_t *self);

//  Return the name of the account at index (< accounts), in the order
//  given, setting *weight_p, *members_p (borrowed) and *nmembers_p
const char *
    drover_sharespec_account (drover_sharespec_t *self, size_t index, uint32_t *weight_p,
                             const char ***members_p, size_t *nmembers_p);

//  Return the weight given to a name (an account or an owner), or 0 if none
uint32_t
    drover_sharespec_weight (drover_sharespec_t *self, const char *name);

//  Return the quotas given to a name (borrowed), or NULL if none
const drover_fairshare_quota_t *
    drover_sharespec_quota (drover_sharespec_t *self, const char *name);

//  Give a fair-share table what the spec says: declare each account with
//  its weight and members, set the weights of owners and their quotas.
//  Returns 0, or -1 if the table refused something (it cannot, for a
//  spec that parsed, unless the table already counts too many devices).
int
    drover_sharespec_apply (drover_sharespec_t *self, drover_fairshare_t *fairshare);

#ifdef __cplusplus
}
#endif

#endif
