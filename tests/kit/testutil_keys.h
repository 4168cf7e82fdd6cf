/*  =========================================================================
    testutil_keys - CURVE key pairs for a test: written with zcert, or with the real
    `drover keygen` as an operator would
    =========================================================================
*/

#ifndef TESTUTIL_KEYS_H_INCLUDED
#define TESTUTIL_KEYS_H_INCLUDED

#include "testutil.h"

//  Write the CURVE key pair dir/name.key and dir/name.key_secret with the
//  real `drover keygen` (dir is made if missing); asserts it succeeds
void
    testutil_keygen (const char *dir, const char *name);

//  testutil_keygen for a worker's key that may register as worker_ids
//  ("a,b"; NULL: any)
void
    testutil_keygen_worker (const char *dir, const char *name, const char *worker_ids);

//  A new CURVE key pair saved at path, its secret half (path_secret) made
//  mode 0600 as the broker demands; asserts both are written. The caller
//  destroys the pair
zcert_t *
    testutil_save_key_pair (const char *path);

#endif
