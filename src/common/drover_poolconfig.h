/*  =========================================================================
    drover_poolconfig - the elastic pool's instance types in the settings
    (pool/type/NAME/KEY): set, printed; drover_config calls these. The
    types themselves (drover_poolconfig_t) and the check and copy of a pool's
    settings are declared in drover_config.h, with the rest of the settings.
    =========================================================================
*/

#ifndef DROVER_POOLCONFIG_H_INCLUDED
#define DROVER_POOLCONFIG_H_INCLUDED

#include "drover_config.h"

#ifdef __cplusplus
extern "C" {
#endif

//  Set one key of an instance type from "pool/type/NAME/KEY" (procs,
//  memory, labels, price), adding the type if new. Returns 0, or -1 with
//  *error_p (ours to free) naming the key.
int
    drover_poolconfig_set_type (drover_poolconfig_t *pool, const char *path, const char *value,
                                char **error_p);

//  Print the instance types as ZPL under a pool section; nothing if none
void
    drover_poolconfig_print_types (const drover_poolconfig_t *pool, FILE *stream);

#ifdef __cplusplus
}
#endif

#endif
