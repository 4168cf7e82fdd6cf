/*  =========================================================================
    drover_rendezvous - rendezvous (highest random weight) hashing, as
    Arvados' keep-balance orders servers for each block

    Each (key, worker) pair gets a 64-bit score; a key's order of workers is
    by score, highest first (ties by worker id). The same key ranks the same
    workers the same way on every broker and every run; when a worker comes
    or goes, only the keys it ranks first move (about 1/n of them). Used by
    the reconciler for replica slots (key "SERVICE/SLOT") and by the
    scheduler for tasks submitted with an affinity key. A plain class of
    pure functions.
    =========================================================================
*/

#ifndef DROVER_RENDEZVOUS_H_INCLUDED
#define DROVER_RENDEZVOUS_H_INCLUDED

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

//  Hash a key or a worker id (64 bits, well mixed; any bytes)
uint64_t
    drover_rendezvous_hash (const char *text, size_t length);

//  Score of a pair, from the two hashes above: highest ranks first
uint64_t
    drover_rendezvous_score (uint64_t key_hash, uint64_t worker_hash);

//  Order workers for a key: fill order with the indexes 0..count-1 of ids
//  (each a worker id, worker_hashes [i] its hash, or NULL to hash ids
//  here), highest score first, ties by id
void
    drover_rendezvous_order (const char *key, size_t key_length, const char *const *ids,
                             const uint64_t *worker_hashes, size_t count, size_t *order);

//  Index of the best worker for a key among those accept (may be NULL:
//  all) says yes to, or -1 if none: one pass, no sort
typedef bool (drover_rendezvous_accept_fn) (size_t index, void *arg);
long
    drover_rendezvous_best (uint64_t key_hash, const uint64_t *worker_hashes, size_t count,
                            const char *const *ids, drover_rendezvous_accept_fn *accept,
                            void *arg);

#ifdef __cplusplus
}
#endif

#endif
