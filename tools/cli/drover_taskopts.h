/*  =========================================================================
    drover_taskopts - the options of one task to submit, as `drover submit`
    and each step of a workflow file (drover_workflowfile) take them

    getopt_long finds the options (DROVER_TASKOPTS_LONG in the caller's
    table, DROVER_TASKOPTS_SHORT in its string); drover_taskopts_apply
    takes each one's value, and drover_taskopts_submit makes the TASK
    SUBMIT for a command. Errors are told as text in the caller's buffer,
    never printed: the CLI prefixes the command's name, a workflow file
    its FILE:LINE. The parsers of --begin's times and --array's specs are
    here too, with the clock passed in, for the tests.
    =========================================================================
*/

#ifndef DROVER_TASKOPTS_H_INCLUDED
#define DROVER_TASKOPTS_H_INCLUDED

#include <czmq.h>
#include <getopt.h>
#include "drover_msg.h"
#include "drover_exec.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_taskopts_t drover_taskopts_t;

//  The option values getopt_long returns for the task's long options
#define DROVER_TASKOPTS_RETRIES         2000
#define DROVER_TASKOPTS_ENV             2001
#define DROVER_TASKOPTS_CWD             2002
#define DROVER_TASKOPTS_STDIN           2003
#define DROVER_TASKOPTS_SUBMIT_KEY      2004
#define DROVER_TASKOPTS_AFFINITY        2005
#define DROVER_TASKOPTS_AFTER           2006
#define DROVER_TASKOPTS_AFTER_ANY       2007
#define DROVER_TASKOPTS_AFTER_FAIL      2008
#define DROVER_TASKOPTS_BEGIN           2009
#define DROVER_TASKOPTS_RETRY_DELAY     2010
#define DROVER_TASKOPTS_RETRY_MAX_DELAY 2011
#define DROVER_TASKOPTS_ARRAY           2012
#define DROVER_TASKOPTS_OWNER           2013
#define DROVER_TASKOPTS_DEVICE          2014
#define DROVER_TASKOPTS_PREEMPTIBLE     2015

//  The task's short options, for getopt_long's string
#define DROVER_TASKOPTS_SHORT   "p:n:m:l:t:"

//  The task's long options, for getopt_long's table
#define DROVER_TASKOPTS_LONG \
    { "priority", required_argument, NULL, 'p' }, \
    { "procs", required_argument, NULL, 'n' }, \
    { "mem", required_argument, NULL, 'm' }, \
    { "label", required_argument, NULL, 'l' }, \
    { "timeout", required_argument, NULL, 't' }, \
    { "retries", required_argument, NULL, DROVER_TASKOPTS_RETRIES }, \
    { "env", required_argument, NULL, DROVER_TASKOPTS_ENV }, \
    { "cwd", required_argument, NULL, DROVER_TASKOPTS_CWD }, \
    { "stdin", required_argument, NULL, DROVER_TASKOPTS_STDIN }, \
    { "submit-key", required_argument, NULL, DROVER_TASKOPTS_SUBMIT_KEY }, \
    { "affinity", required_argument, NULL, DROVER_TASKOPTS_AFFINITY }, \
    { "after", required_argument, NULL, DROVER_TASKOPTS_AFTER }, \
    { "after-any", required_argument, NULL, DROVER_TASKOPTS_AFTER_ANY }, \
    { "after-fail", required_argument, NULL, DROVER_TASKOPTS_AFTER_FAIL }, \
    { "begin", required_argument, NULL, DROVER_TASKOPTS_BEGIN }, \
    { "retry-delay", required_argument, NULL, DROVER_TASKOPTS_RETRY_DELAY }, \
    { "retry-max-delay", required_argument, NULL, DROVER_TASKOPTS_RETRY_MAX_DELAY }, \
    { "array", required_argument, NULL, DROVER_TASKOPTS_ARRAY }, \
    { "owner", required_argument, NULL, DROVER_TASKOPTS_OWNER }, \
    { "device", required_argument, NULL, DROVER_TASKOPTS_DEVICE }, \
    { "preemptible", no_argument, NULL, DROVER_TASKOPTS_PREEMPTIBLE }

//  Create the options of a task: 1 proc, nothing else asked, owned by the
//  OS user (its login name, when that is an id; else no owner)
drover_taskopts_t *
    drover_taskopts_new (void);

//  Destroy them; harmless on NULL
void
    drover_taskopts_destroy (drover_taskopts_t **self_p);

//  Take one option getopt_long found (its value: optarg). Returns 0, 1 if
//  it is not a task's option (the caller's own, or a mistake), or -1 with
//  why in error (size bytes), e.g. "--retries: 'x' is not a whole number
//  from 0 to 1000".
int
    drover_taskopts_apply (drover_taskopts_t *self, int option, const char *value,
                           char *error, size_t size);

//  Check the options together: a setting that would do nothing is
//  refused (--retry-delay without --retries, --retry-max-delay without
//  --retry-delay...). Returns 0, or -1 with why in error.
int
    drover_taskopts_check (drover_taskopts_t *self, char *error, size_t size);

//  Return how many tasks (or steps) --after, --after-any and --after-fail
//  named, and each one as given (a word of the comma-separated lists) and
//  its kind (DROVER_AFTER_*)
size_t
    drover_taskopts_afters (drover_taskopts_t *self);
const char *
    drover_taskopts_after_name (drover_taskopts_t *self, size_t index);
int
    drover_taskopts_after_kind (drover_taskopts_t *self, size_t index);

//  Return the task's TASK SUBMIT, to set what the options do not (the
//  flags, a key per line), borrowed; its after list is the caller's to
//  fill (the names above mean ids or steps as it knows)
drover_msg_t *
    drover_taskopts_msg (drover_taskopts_t *self);

//  Make a TASK SUBMIT running argv with the options (a copy: the options
//  may make another). NULL with why in error if argv does not fit.
drover_msg_t *
    drover_taskopts_submit (drover_taskopts_t *self, int argc, const char **argv,
                            char *error, size_t size);

//  Set the submit's body to argv with the options' environment, working
//  directory and input. Returns 0, or -1 if argv does not fit.
int
    drover_taskopts_set_body (drover_taskopts_t *self, drover_msg_t *submit, int argc,
                              const char **argv);

//  Parse a size for flag: bytes, or a number with K, M, G or T (powers of
//  1024, an optional "iB" or "B" after). Returns 0, or -1 with why in error.
int
    drover_taskopts_parse_size (const char *flag, const char *text, uint64_t *bytes_p,
                                char *error, size_t size);

//  Parse --begin's TIME into msec since the epoch: 'YYYY-MM-DDTHH:MM[:SS]'
//  (local time; with a trailing Z, UTC), 'HH:MM[:SS]' (the next such local
//  time after now), or '+N' with s, m, h or d (N from now). now: msec since
//  the epoch. Returns 0, or -1 with why in error (a time already past too).
int
    drover_taskopts_parse_time (const char *text, int64_t now, uint64_t *msec_p,
                                char *error, size_t size);

//  Parse --array's SPEC: 'FIRST-LAST[:STEP][%LIMIT]' (indexes FIRST,
//  FIRST+STEP, ... up to LAST, at most LIMIT of them queued or running at
//  once). Returns 0, or -1 with why in error (a LIMIT that bounds
//  nothing, at or past the elements' count, too).
int
    drover_taskopts_parse_array (const char *text, drover_array_spec_t *array,
                                 char *error, size_t size);

#ifdef __cplusplus
}
#endif

#endif
