/*  =========================================================================
    drover_poolreport - a pool driver's finished operation, until the
    driver reports it (drover_pooldriver_process), and the list format's
    parser; both drivers (drover_poolcommand, drover_poollocal) make them
    =========================================================================
*/

#ifndef DROVER_POOLREPORT_H_INCLUDED
#define DROVER_POOLREPORT_H_INCLUDED

#include "drover_pooldriver.h"

#ifdef __cplusplus
extern "C" {
#endif

//  Bytes of a detail at most
#define DROVER_POOLREPORT_DETAIL_MAX    200

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

//  Copy text into a detail: its last non-blank line, trimmed, without
//  control characters, at most DROVER_POOLREPORT_DETAIL_MAX bytes
void
    drover_poolreport_last_line (const char *text, size_t size, char *detail,
                                 size_t detail_size);

#ifdef __cplusplus
}
#endif

#endif
