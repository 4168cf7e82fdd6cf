/*  =========================================================================
    drover_shares - a listing of fair shares: one row per account, each
    followed by its owners' rows

    What drover_client_shares returns (SHARE LIST, level 4): each account
    and owner the broker knows, its weight, its dominant share now and
    its fair share, what its running tasks hold, its waiting tasks and its
    quotas. A row's strings are borrowed from the listing and live as long
    as it. drover_client_share_set and drover_client_share_drop change an
    account's or owner's share (SHARE ADMIN, an admin's request).
    =========================================================================
*/

#ifndef DROVER_SHARES_H_INCLUDED
#define DROVER_SHARES_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_shares_t drover_shares_t;

//  One account or owner of a listing
typedef struct {
    const char *name;               //  the account's or owner's name
    const char *account;            //  an owner's account ("" for an account's row)
    int kind;                       //  0 an account, 1 an owner
    uint32_t weight;                //  its weight
    uint32_t share;                 //  its dominant share now, permille of the cluster
    const char *resource;           //  the resource of that share ("procs", "mem", a
                                    //  device), "" when it runs nothing
    uint32_t fair;                  //  an account's fair share now, permille; an owner's 0
    uint32_t procs;                 //  procs its running tasks hold
    uint64_t mem;                   //  memory its running tasks reserve, bytes
    const char *devices;            //  devices its running tasks hold, "gpu=2", "" none
    uint64_t waiting;               //  its tasks waiting in the scheduling queue
    uint64_t queued;                //  its tasks QUEUED in all
    const char *quota;              //  its quotas, "procs=8,mem=16G,gpu=2,queued=1000", ""
} drover_share_entry_t;

//  What drover_client_share_set sets for an account or an owner
typedef struct {
    uint32_t weight;                //  its weight, 1..1000000; 0 keeps it (1 if new)
    const char *members;            //  an account's owners, "alice,bob"; "" none; NULL keeps
    uint32_t max_procs;             //  most procs its tasks run on at once, 0 no limit
    uint64_t max_mem;               //  most memory its running tasks reserve, bytes, 0 none
    uint32_t max_queued;            //  most tasks it has queued, 0 no limit
    const char *max_devices;        //  most devices its running tasks hold, "gpu=2"; NULL
                                    //  or "" no limit
} drover_share_set_t;

//  Destroy a listing; harmless on NULL
void
    drover_shares_destroy (drover_shares_t **self_p);

//  Return the number of rows
size_t
    drover_shares_size (const drover_shares_t *self);

//  Return row index (0 .. size - 1), borrowed; NULL past the end
const drover_share_entry_t *
    drover_shares_row (const drover_shares_t *self, size_t index);

#ifdef __cplusplus
}
#endif

#endif
