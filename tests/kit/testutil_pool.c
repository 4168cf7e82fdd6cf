/*  =========================================================================
    testutil_pool - the elastic pool's settings for a test (see the header)
    =========================================================================
*/

#include "testutil_pool.h"

//  Pool settings with Arvados' defaults, no types
void
testutil_pool_defaults (drover_poolconfig_t *config)
{
    memset (config, 0, sizeof *config);
    config->name = "drover";
    config->max_creates = 10;
    config->ops_per_second = 1000;
    config->boot_timeout = 600000;
    config->idle_timeout = 60000;
    config->probe_timeout = 600000;
    config->shutdown_timeout = 10000;
    config->quota_backoff = 60000;
    config->rate_backoff = 10000;
    config->warn_failures = 3;
    config->list_interval = 60000;
    config->create_backoff = 1000;
    config->create_backoff_max = 60000;
}
