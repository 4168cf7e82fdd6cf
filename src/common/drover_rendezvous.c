/*  =========================================================================
    drover_rendezvous - rendezvous (highest random weight) hashing (see the
    header)

    A text hashes with 64-bit FNV-1a, finished with murmur3's fmix64 so
    that every input bit reaches every output bit (FNV-1a alone mixes its
    last bytes poorly: "w1" and "w2" would score alike). A pair's score
    is fmix64 again of the key's hash xor the worker's (turned by a
    golden-ratio multiply first): for each key the workers' scores are as
    good as independent uniform draws, so the order they give is a uniform
    permutation, independent from one key to the next.
    =========================================================================
*/

#include <stdlib.h>
#include <string.h>
#include <assert.h>
#include "drover_rendezvous.h"

//  murmur3's 64-bit finisher: a bijection with full avalanche
static inline uint64_t
s_fmix64 (uint64_t value)
{
    value ^= value >> 33;
    value *= 0xff51afd7ed558ccdULL;
    value ^= value >> 33;
    value *= 0xc4ceb9fe1a85ec53ULL;
    value ^= value >> 33;
    return value;
}

//  Hash a key or a worker id
uint64_t
drover_rendezvous_hash (const char *text, size_t length)
{
    assert (text || length == 0);
    uint64_t hash = 0xcbf29ce484222325ULL;          //  FNV-1a offset basis
    for (size_t index = 0; index < length; index++) {
        hash ^= (uint8_t) text [index];
        hash *= 0x100000001b3ULL;                   //  FNV-1a prime
    }
    return s_fmix64 (hash ^ length);
}

//  Score of a pair: the worker's hash is turned by a golden-ratio multiply
//  before it meets the key's, so that a key and a worker of equal hashes
//  (or any symmetric pair) do not cancel
uint64_t
drover_rendezvous_score (uint64_t key_hash, uint64_t worker_hash)
{
    return s_fmix64 (key_hash ^ (worker_hash * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL));
}

//  One worker's place in a key's order
typedef struct {
    uint64_t score;             //  the pair's score
    size_t index;               //  the worker's index in the caller's arrays
    const char *id;             //  its id, for ties
} s_ranked_t;

//  Return true if a ranks before b: higher score, then lower id
static inline bool
s_before (const s_ranked_t *a, const s_ranked_t *b)
{
    if (a->score != b->score)
        return a->score > b->score;
    if (a->id && b->id) {
        int order = strcmp (a->id, b->id);
        if (order)
            return order < 0;
    }
    return a->index < b->index;
}

//  Order ranked entries, best first (qsort's comparator)
static int
s_compare_ranked (const void *one, const void *two)
{
    const s_ranked_t *a = (const s_ranked_t *) one;
    const s_ranked_t *b = (const s_ranked_t *) two;
    return s_before (a, b)? -1: s_before (b, a)? 1: 0;
}

//  Order workers for a key, highest score first
void
drover_rendezvous_order (const char *key, size_t key_length, const char *const *ids,
                         const uint64_t *worker_hashes, size_t count, size_t *order)
{
    assert (ids || count == 0);
    assert (order || count == 0);
    if (count == 0)
        return;
    uint64_t key_hash = drover_rendezvous_hash (key, key_length);
    s_ranked_t *ranked = (s_ranked_t *) malloc (count * sizeof *ranked);
    assert (ranked);
    for (size_t index = 0; index < count; index++) {
        uint64_t worker_hash = worker_hashes? worker_hashes [index]
                             : drover_rendezvous_hash (ids [index], strlen (ids [index]));
        ranked [index].score = drover_rendezvous_score (key_hash, worker_hash);
        ranked [index].index = index;
        ranked [index].id = ids [index];
    }
    qsort (ranked, count, sizeof *ranked, s_compare_ranked);
    for (size_t index = 0; index < count; index++)
        order [index] = ranked [index].index;
    free (ranked);
}

//  Index of the best worker for a key among those accept says yes to
long
drover_rendezvous_best (uint64_t key_hash, const uint64_t *worker_hashes, size_t count,
                        const char *const *ids, drover_rendezvous_accept_fn *accept,
                        void *arg)
{
    assert (worker_hashes || count == 0);
    long best = -1;
    s_ranked_t best_ranked = { 0, 0, NULL };
    for (size_t index = 0; index < count; index++) {
        s_ranked_t ranked = {
            drover_rendezvous_score (key_hash, worker_hashes [index]),
            index, ids? ids [index]: NULL
        };
        if ((best < 0 || s_before (&ranked, &best_ranked))
        &&  (!accept || accept (index, arg))) {
            best = (long) index;
            best_ranked = ranked;
        }
    }
    return best;
}
