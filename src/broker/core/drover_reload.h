/*  =========================================================================
    drover_reload - SIGHUP: read the broker's settings again and tell
    which may change while it runs

    `systemctl reload` sends SIGHUP. The broker blocks SIGHUP in every
    thread (drover_reload_block, before any thread starts) and hears it on
    a signalfd its loop watches, so a reload happens at once, even when
    idle, and never interrupts a call. On each, this class reads the -c
    file and the flags again (the command line the broker started with),
    checks them as a start would, and compares them with the running
    settings: a setting that may change while the broker runs (see
    drover_reload_live) is copied into the running settings, for the
    broker to apply; any other that changed is named as needing a restart
    and keeps its running value. Settings that do not read or check keep
    every running value.
    =========================================================================
*/

#ifndef DROVER_RELOAD_H_INCLUDED
#define DROVER_RELOAD_H_INCLUDED

#include "drover_config.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_reload_t drover_reload_t;

//  Block SIGHUP in the calling thread, and so in every thread it starts
//  from now on: call first thing in the main, before any thread runs
void
    drover_reload_block (void);

//  Create a reload for the command line argv (copied; argv [0] is
//  "broker") that config was read from (copied, before the broker fits
//  any value of it), hearing SIGHUP on a signalfd. NULL if it cannot
//  (logged).
drover_reload_t *
    drover_reload_new (int argc, char **argv, drover_config_t *config);

//  Destroy; harmless on NULL
void
    drover_reload_destroy (drover_reload_t **self_p);

//  The signalfd to watch: readable when a SIGHUP came
int
    drover_reload_fd (drover_reload_t *self);

//  Read what the signalfd holds; true if a SIGHUP came
bool
    drover_reload_heard (drover_reload_t *self);

//  Read the settings again and compare them with those last read: each
//  live setting that changed is set in running (and remembered) and named in *applied_p ("a,
//  b", or NULL if none), each other one named in *restart_p (or NULL).
//  Returns 0, or -1 with every reason, one a line, in *errors_p and
//  running untouched. The caller frees what it is given.
int
    drover_reload_compare (drover_reload_t *self, drover_config_t *running,
                           char **applied_p, char **restart_p, char **errors_p);

//  Tell whether a setting ("section/key") may change while the broker
//  runs: the log level, the shares and preemption, schedq's and
//  probation's settings
bool
    drover_reload_live (const char *path);

#ifdef __cplusplus
}
#endif

#endif
