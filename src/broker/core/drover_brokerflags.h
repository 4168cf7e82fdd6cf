/*  =========================================================================
    drover_brokerflags - the `drover broker` command line: flags, a config
    file and --set overrides read into the broker's settings

    Not a class: one function the broker main calls before anything else.
    The file (-c) is read first wherever it stands, so flags override it;
    endpoints that would expose the workers are refused unless --insecure.
    Mistakes are said on stderr, as `drover broker: ...`.
    =========================================================================
*/

#ifndef DROVER_BROKERFLAGS_H_INCLUDED
#define DROVER_BROKERFLAGS_H_INCLUDED

#include "drover_config.h"

#ifdef __cplusplus
extern "C" {
#endif

//  Parse argv (argv [0] is "broker") into config, and set *verbose_p if
//  -v. Returns 0 to run the broker, or -1 to exit with *status_p: 0 after
//  --help or --print-config, 2 on a bad flag, file, value or endpoint
//  (every mistake said, one a line). --check-config checks all a start
//  would (and the key files) and exits: 0 "config ok", or 2.
int
    drover_brokerflags_parse (drover_config_t *config, int argc, char **argv,
                              bool *verbose_p, int *status_p);

//  Read argv again into config (fresh: drover_config_new) for a reload,
//  as a start reads it and checks it (key files too), printing nothing.
//  Returns 0, or -1 with every reason, one a line, in *errors_p (caller
//  frees).
int
    drover_brokerflags_reread (drover_config_t *config, int argc, char **argv,
                               char **errors_p);

#ifdef __cplusplus
}
#endif

#endif
