/*  =========================================================================
    drover_elector_actor - the elector actor: keeps this broker's session lease in
    etcd, campaigns, and tells the broker main whether it leads or whom it
    follows

    What it hears and says, and how: actors/ACTORS.md, "elector".
    =========================================================================
*/

#ifndef DROVER_ELECTOR_ACTOR_H_INCLUDED
#define DROVER_ELECTOR_ACTOR_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

//  What the elector is started with (copied: the caller's may go after
//  zactor_new returns)
typedef struct {
    const char *etcd;           //  etcd endpoints, "http://127.0.0.1:2379[,http://...]"
    const char *prefix;         //  key prefix, e.g. "/drover" (NULL or "": "/drover")
    const char *name;           //  this broker's name (unique in the cluster)
    const char *advertise;      //  the endpoint peers reach this broker on
    uint32_t ttl;               //  msec: the session lease's TTL (etcd takes seconds: round up)
    bool verbose;               //  log every call to etcd
    const char *queues;         //  named queues offered, "Q1 EP1\nQ2 EP2" (NULL or "": none)
    const char *strategy;       //  their placement: "leader", "spread" or "rr" (NULL or "":
                                //  "leader")
    uint32_t check_max;         //  msec between reads of the keys at most while polling
                                //  (0: DROVER_ELECTOR_CHECK_MAX)
    uint32_t retry_min;         //  msec: least wait after a failed call (0: the default)
    uint32_t retry_max;         //  msec: most wait after a failed call (0: the default)
    uint32_t safety_check;      //  msec between reads while the watch is up (0: the default)
    bool poll_only;             //  true: no etcd watch, poll (ha/watch off)
} drover_elector_actor_args_t;

//  The timers' defaults (ha/check-max, ha/retry-min, ha/retry-max, ha/safety-check)
#define DROVER_ELECTOR_CHECK_MAX    250
#define DROVER_ELECTOR_RETRY_MIN    20
#define DROVER_ELECTOR_RETRY_MAX    1000
#define DROVER_ELECTOR_SAFETY_CHECK 5000

//  The prefix when args says none
#define DROVER_ELECTOR_PREFIX   "/drover"

//  Check args before starting the actor (for the settings' checks): 0, or
//  -1 and *error_p (ours to free) naming what is wrong: endpoints that are
//  not http:// URLs, a name empty, longer than 64 bytes or holding '/' or
//  a control character, an advertise longer than 256 bytes or holding a
//  control character, a ttl of 0, queue lines that are not each a queue
//  name (1 to 64 bytes of [A-Za-z0-9._-]), one space and an endpoint (1 to
//  256 bytes, no control character, space or comma), or name a queue
//  twice, a strategy other than "leader", "spread" or "rr", a retry_min
//  above retry_max, or a safety_check below check_max. The actor started
//  with such args logs the same error and campaigns not at all (PEERS
//  says 0).
int
    drover_elector_actor_args_check (const drover_elector_actor_args_t *args, char **error_p);

//  The actor: zactor_new (drover_elector_actor, &args). It starts
//  campaigning at once.
void
    drover_elector_actor (zsock_t *pipe, void *args);

#ifdef __cplusplus
}
#endif

#endif
