/*  =========================================================================
    drover_exec - the exec body codec: what a task runs (PROTOCOL.md §7.0)

    A task's argv, environment, working directory and stdin, carried
    encoded as the body of TASK SUBMIT and TASK OFFER. The client encodes
    it, the broker only validates it and keeps it opaque, the worker
    decodes it to start the process. Decoding checks every count, length
    and entry against the limits (drover_limits.h) before it allocates.
    =========================================================================
*/

#ifndef DROVER_EXEC_H_INCLUDED
#define DROVER_EXEC_H_INCLUDED

#include "drover_limits.h"
#include <czmq.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

//  What a task runs: argv, environment, working directory, stdin. Carried
//  encoded in TASK SUBMIT and TASK OFFER as body; the broker only validates it.
typedef struct {
    uint32_t argc;                  //  entries in argv, >= 1
    char **argv;                    //  NULL-terminated, owned
    uint32_t nenv;                  //  entries in env
    char **env;                     //  "NAME=value", NULL-terminated, owned
    char *cwd;                      //  working directory or NULL, owned
    byte *input;                    //  stdin bytes or NULL, owned
    size_t input_size;              //  bytes
} drover_exec_t;

//  Create an empty exec body; never returns NULL
drover_exec_t *
    drover_exec_new (void);

//  Destroy an exec body; harmless on NULL
void
    drover_exec_destroy (drover_exec_t **self_p);

//  Set argv (copied); argc >= 1. Returns 0 or -1 past DROVER_ARGV_MAX.
int
    drover_exec_set_argv (drover_exec_t *self, int argc, const char **argv);

//  Add one "NAME=value" environment entry (copied). Returns 0 or -1.
int
    drover_exec_add_env (drover_exec_t *self, const char *entry);

//  Set the working directory (copied, NULL clears)
void
    drover_exec_set_cwd (drover_exec_t *self, const char *cwd);

//  Set the stdin bytes (copied, NULL clears)
void
    drover_exec_set_input (drover_exec_t *self, const byte *input, size_t size);

//  Encode into a fresh buffer the caller frees; NULL if a limit is broken
byte *
    drover_exec_encode (drover_exec_t *self, size_t *size_p);

//  Decode a body into self (emptied first). Returns 0 or -2 with *error_p set.
int
    drover_exec_decode (drover_exec_t *self, const byte *data, size_t size,
                        const char **error_p);

//  Check a body without keeping it. Returns 0 or -2 with *error_p set.
int
    drover_exec_validate (const byte *data, size_t size, const char **error_p);

//  Return a new body: body (size bytes) with count "NAME=value" entries
//  put into its env, each replacing the entry of the same NAME (any later
//  ones of that NAME dropped) or added at the end, in order. The caller
//  frees it; *size_p is its size. NULL if body does not decode, an entry
//  is not NAME=value, or a limit would be broken (DROVER_ENV_MAX entries,
//  DROVER_STRING_MAX, DROVER_BODY_MAX). The broker adds an array element's
//  DROVER_ARRAY_ID and DROVER_ARRAY_INDEX this way.
byte *
    drover_exec_body_with_env (const byte *body, size_t size, const char **entries,
                               size_t count, size_t *size_p);

#ifdef __cplusplus
}
#endif

#endif
