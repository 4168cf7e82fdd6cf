/*  =========================================================================
    drover_shareboard - the share settings in force: the broker's settings
    (share/accounts, share/weights, share/quotas) with what SHARE ADMIN
    said on top, given to a fair-share table, and the SHARE TABLE rows

    What an admin sets of a name (an account, or an owner) wins over the
    settings for that name: its weight, its members (an account's), its
    quotas (as a whole). Each change makes the settings in force again as
    the three texts of drover_sharespec (so assign reads them with the
    same parser: QUOTAS), checks them, and gives the table the difference:
    accounts no longer declared are dropped, weights and quotas no longer
    given go back to 1 and none. A change that would not parse (an owner
    in two accounts) is refused with the parser's message. A plain class:
    no threads, no I/O, no clock.
    =========================================================================
*/

#ifndef DROVER_SHAREBOARD_H_INCLUDED
#define DROVER_SHAREBOARD_H_INCLUDED

#include <czmq.h>
#include "drover_fairshare.h"
#include "drover_msg.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_shareboard_t drover_shareboard_t;

//  Create a board that sets the fair-share table (borrowed) from now on
drover_shareboard_t *
    drover_shareboard_new (drover_fairshare_t *fairshare);

//  Destroy the board; harmless on NULL
void
    drover_shareboard_destroy (drover_shareboard_t **self_p);

//  Take the broker's settings (each NULL or "" says nothing). Returns 0,
//  or -1 and sets *error_p (ours to free) naming the setting.
int
    drover_shareboard_configure (drover_shareboard_t *self, const char *accounts,
                                const char *weights, const char *quotas, char **error_p);

//  Set what an admin says of a name: weight (0 keeps it), members (an
//  account's, comma-separated; NULL keeps them), quota (quota text
//  "procs=8,mem=1G,gpu=2,queued=10"; NULL or "" keeps it). Returns 0, or
//  -1 and sets *error_p (ours to free).
int
    drover_shareboard_set (drover_shareboard_t *self, const char *name, uint32_t weight,
                          const char *members, const char *quota, char **error_p);

//  Forget what an admin said of a name. Returns 0, or -1 if it said nothing.
int
    drover_shareboard_drop (drover_shareboard_t *self, const char *name);

//  Return true if an admin said something of a name, and what (borrowed):
//  weight (0 none), members (NULL none given), quota text ("" none)
bool
    drover_shareboard_entry (drover_shareboard_t *self, const char *name, uint32_t *weight_p,
                            const char **members_p, const char **quota_p);

//  Return the weight in force for a name (an admin's, else the settings'),
//  1 if none is given
uint32_t
    drover_shareboard_weight (drover_shareboard_t *self, const char *name);

//  The settings in force, as share/accounts and share/quotas say them
//  (borrowed until the next change): what QUOTAS carries to assign
const char *
    drover_shareboard_accounts (drover_shareboard_t *self);
const char *
    drover_shareboard_quotas (drover_shareboard_t *self);

//  Write a SHARE ADMIN's quota fields as quota text (caller frees); ""
//  when it gives none
char *
    drover_shareboard_quota_text (const drover_msg_t *admin);

//  Make SHARE TABLE rows: each account with owners known, then its owners,
//  by name, at most max rows. Sets *count_p; caller frees the rows with
//  drover_shareboard_rows_destroy.
drover_share_row_t *
    drover_shareboard_rows (drover_shareboard_t *self, size_t max, uint32_t *count_p);

//  Free rows made by drover_shareboard_rows
void
    drover_shareboard_rows_destroy (drover_share_row_t **rows_p, uint32_t count);

#ifdef __cplusplus
}
#endif

#endif
