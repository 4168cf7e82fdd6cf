/*  =========================================================================
    drover_metrics_actor - the metrics actor: gathers the other actors' numbers,
    serves them to Prometheus over HTTP and logs a status line

    What it hears and says, and how: actors/ACTORS.md, "metrics".
    =========================================================================
*/

#ifndef DROVER_METRICS_ACTOR_H_INCLUDED
#define DROVER_METRICS_ACTOR_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

//  What the actor is started with (copied before zactor_new returns)
typedef struct {
    const char *address;        //  HOST:PORT to serve /metrics on, "" for none
    uint32_t status_interval;   //  msec between status lines in the log, 0 for none
    const char *endpoint;       //  the broker's ROUTER endpoint, for drover_broker_info
    int counters;               //  answers (COUNTS) one round of METRICS waits for
} drover_metrics_actor_args_t;

//  The actor: zactor_new (drover_metrics_actor, &args). It says STARTED
//  ok(4) text(s) first, outside any batch: 1 and the address served (or
//  ""), or 0 and why it cannot serve it (the broker stops).
void
    drover_metrics_actor (zsock_t *pipe, void *args);

#ifdef __cplusplus
}
#endif

#endif
