/*  =========================================================================
    drover_workerwindow - which worker agents a broker registers: their
    protocol level and their release (PROTOCOL.md §7.1, §12.1)

    At HELLO the health actor asks the window whether to take the agent.
    An agent is refused if its level is below the oldest the broker
    serves (DROVER_MSG_LEVEL_MIN), or if the operator set an oldest
    release (health/min-release) and the agent's is older, or unknown ("",
    as a level-1 agent says nothing, or not a release). Without that
    setting any release is taken. An agent NEWER than the broker, by
    level or release, is taken whatever its level: it speaks the broker's
    level (min of the two, §12.1), and only it knows whether it still can
    (if not, it leaves when WELCOME tells it the broker's level). That is
    how a cluster is upgraded: brokers first, then workers.

    The reason given to a refused agent says what it is, what the broker
    takes, and what to do. A plain class: no threads, no I/O.
    =========================================================================
*/

#ifndef DROVER_WORKERWINDOW_H_INCLUDED
#define DROVER_WORKERWINDOW_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_workerwindow_t drover_workerwindow_t;

//  Create a window: levels min_level and up (the broker speaks level,
//  release), releases min_release and up ("" or NULL: any). Returns NULL
//  if min_release is not a plain release (MAJOR.MINOR[.PATCH]).
drover_workerwindow_t *
    drover_workerwindow_new (int min_level, int level, const char *release,
                             const char *min_release);

//  Destroy; harmless on NULL or when called twice
void
    drover_workerwindow_destroy (drover_workerwindow_t **self_p);

//  Decide on an agent of level (0: none said, read as 1) and release ("":
//  unknown). Returns NULL to take it, or why it is refused, for the agent
//  to print (caller frees with zstr_free).
char *
    drover_workerwindow_refuse (drover_workerwindow_t *self, int level, const char *release);

//  Describe what the window takes, for the log ("levels 1..7, any
//  release"). Borrowed.
const char *
    drover_workerwindow_describe (drover_workerwindow_t *self);

#ifdef __cplusplus
}
#endif

#endif
