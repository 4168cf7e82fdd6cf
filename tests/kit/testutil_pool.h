/*  =========================================================================
    testutil_pool - the elastic pool's settings for a test
    =========================================================================
*/

#ifndef TESTUTIL_POOL_H_INCLUDED
#define TESTUTIL_POOL_H_INCLUDED

#include "testutil.h"
#include "drover_config.h"

//  Pool settings with Arvados' defaults (timeouts, backoffs, rates, warn
//  every 3 failures), named drover, no types and no limits yet: a test
//  adds its own
void
    testutil_pool_defaults (drover_poolconfig_t *config);

#endif
