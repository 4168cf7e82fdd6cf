/*  =========================================================================
    drover_pooldriver_internal - what the pool's drivers share: a finished
    operation waiting to be reported (drover_poolreport), the list format's
    parser, and the two drivers' classes (drover_poolcommand,
    drover_poollocal) behind drover_pooldriver

    Private to drover_pooldriver*.c.
    =========================================================================
*/

#ifndef DROVER_POOLDRIVER_INTERNAL_H_INCLUDED
#define DROVER_POOLDRIVER_INTERNAL_H_INCLUDED

#include "drover_pooldriver.h"

#ifdef __cplusplus
extern "C" {
#endif

//  Bytes of a command's stdout kept at most (a list past it fails)
#define DROVER_POOLDRIVER_OUT_MAX   (1024 * 1024)
//  Bytes of the end of a command's stderr kept (its last line is the detail)
#define DROVER_POOLDRIVER_ERR_MAX   4096
//  Bytes of a detail at most
#define DROVER_POOLDRIVER_DETAIL_MAX    200

//  ---------------------------------------------------------------------
//  A finished operation, until reported

typedef struct _drover_poolreport_t drover_poolreport_t;

//  Create a report of an operation that came to result (detail NULL: "")
drover_poolreport_t *
    drover_poolreport_new (drover_poolaction_kind_t kind, const char *instance,
                           drover_poolop_result_t result, const char *detail);

//  Destroy a report; harmless on NULL
void
    drover_poolreport_destroy (drover_poolreport_t **self_p);

//  Add a listed instance to a LIST report (strings copied)
void
    drover_poolreport_add (drover_poolreport_t *self, const char *name, const char *type,
                           const char *pool, drover_idle_behaviour_t behaviour);

//  Return the report as the callback sees it (borrowed from the report)
const drover_pooldone_t *
    drover_poolreport_done (drover_poolreport_t *self);

//  Parse a command's list output (size bytes, not NUL-terminated) into a
//  LIST report, one instance a line: NAME TYPE [key=value ...]. Blank
//  lines and lines starting with '#' are skipped; a malformed line is
//  skipped and logged. Returns how many lines were skipped as malformed.
size_t
    drover_poolreport_parse (drover_poolreport_t *self, const char *text, size_t size);

//  Return a behaviour's name, or parse one (0, or -1 if unknown)
const char *
    drover_poolidle_name (drover_idle_behaviour_t behaviour);
int
    drover_poolidle_parse (const char *name, drover_idle_behaviour_t *behaviour_p);

//  Copy text into a detail: its last non-blank line, trimmed, without
//  control characters, at most DROVER_POOLDRIVER_DETAIL_MAX bytes
void
    drover_pooldriver_last_line (const char *text, size_t size, char *detail,
                                 size_t detail_size);

//  ---------------------------------------------------------------------
//  The command driver: PROGRAM create|list|tag|destroy as child processes

typedef struct _drover_poolcommand_t drover_poolcommand_t;

//  Create the driver running program (an executable file) for pool, with
//  workers connecting to broker; types are copied. NULL with *error_p if
//  program is not an executable file.
drover_poolcommand_t *
    drover_poolcommand_new (const char *program, const char *pool, const char *broker,
                            const drover_pooltype_t *types, size_t ntypes,
                            uint32_t op_timeout, char **error_p);

//  Destroy the driver: SIGKILL every running command's process group and
//  reap it; harmless on NULL
void
    drover_poolcommand_destroy (drover_poolcommand_t **self_p);

//  Start an operation (type: CREATE's; NULL otherwise); a command that
//  cannot start is a failure appended to done at once
void
    drover_poolcommand_start (drover_poolcommand_t *self, drover_poolaction_kind_t kind,
                              const char *instance, const drover_pooltype_t *type,
                              drover_idle_behaviour_t behaviour, zlistx_t *done);

//  Return how many commands run
size_t
    drover_poolcommand_running (drover_poolcommand_t *self);

//  Return how many items fill needs at most
size_t
    drover_poolcommand_items (drover_poolcommand_t *self);

//  Fill items with the fds to watch; returns how many
size_t
    drover_poolcommand_fill (drover_poolcommand_t *self, zmq_pollitem_t *items, size_t max);

//  Read the filled items, reap commands that exited, kill those past
//  op-timeout, appending a report (drover_poolreport_t) to done for each
//  finished operation
void
    drover_poolcommand_process (drover_poolcommand_t *self, zmq_pollitem_t *items,
                                size_t count, uint64_t now, zlistx_t *done);

//  Return the next op-timeout (monotonic msec), UINT64_MAX if none
uint64_t
    drover_poolcommand_next_deadline (drover_poolcommand_t *self);

//  ---------------------------------------------------------------------
//  The local driver: drover worker processes on this machine

typedef struct _drover_poollocal_t drover_poollocal_t;

//  Create the driver keeping its instances in dir (made if missing),
//  starting worker (a drover binary; "" or NULL: this program) for pool,
//  connecting to broker. NULL with *error_p if dir cannot be made.
drover_poollocal_t *
    drover_poollocal_new (const char *dir, const char *worker, const char *pool,
                          const char *broker, char **error_p);

//  Destroy the driver (its instances keep running); harmless on NULL
void
    drover_poollocal_destroy (drover_poollocal_t **self_p);

//  Return the directory the instances are kept in
const char *
    drover_poollocal_dir (drover_poollocal_t *self);

//  Carry out an operation at once, appending its report to done
void
    drover_poollocal_start (drover_poollocal_t *self, drover_poolaction_kind_t kind,
                            const char *instance, const drover_pooltype_t *type,
                            drover_idle_behaviour_t behaviour, zlistx_t *done);

//  Return how many items fill needs at most (the pidfds of the workers it
//  started, to reap them when they end)
size_t
    drover_poollocal_items (drover_poollocal_t *self);

//  Fill items with the fds to watch; returns how many
size_t
    drover_poollocal_fill (drover_poollocal_t *self, zmq_pollitem_t *items, size_t max);

//  Reap the workers that ended
void
    drover_poollocal_process (drover_poollocal_t *self, zmq_pollitem_t *items, size_t count);

#ifdef __cplusplus
}
#endif

#endif
