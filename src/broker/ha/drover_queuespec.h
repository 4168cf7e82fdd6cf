/*  =========================================================================
    drover_queuespec - the named queues a broker offers (setting ha/queues,
    "Q=PORT,..."), and where each one's broker binds, is reached and keeps
    its state

    Each named queue is a broker of its own in this process (drover_cell):
    its ROUTER on PORT, on the host of broker/endpoint; its event stream on
    PORT+1, on the host of broker/events; reached by peers on PORT at the
    host of ha/advertise; its state in the PostgreSQL schema drover_q_Q of
    the shared database. A plain class: parsed once at start-up.
    =========================================================================
*/

#ifndef DROVER_QUEUESPEC_H_INCLUDED
#define DROVER_QUEUESPEC_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_queuespec_t drover_queuespec_t;

#define DROVER_QUEUESPEC_NAME_MAX   64  //  bytes of a queue's name, at most
#define DROVER_QUEUESPEC_MAX        64  //  queues one broker offers, at most

//  Parse text ("a=6001,b=6002"; "" none). NULL and *error_p (ours to free)
//  naming what is wrong: a name not of 1-64 letters, digits, '.', '_' or
//  '-', a port not in 1..65534 (PORT+1 is its events'), a name or port
//  given twice (ports: PORT and PORT+1 of every queue apart), too many.
drover_queuespec_t *
    drover_queuespec_new (const char *text, char **error_p);

//  Destroy; harmless on NULL
void
    drover_queuespec_destroy (drover_queuespec_t **self_p);

//  Queues offered
size_t
    drover_queuespec_size (drover_queuespec_t *self);

//  Queue index's name (borrowed)
const char *
    drover_queuespec_name (drover_queuespec_t *self, size_t index);

//  Queue index's port (its events are on port + 1)
int
    drover_queuespec_port (drover_queuespec_t *self, size_t index);

//  True if a queue's port or events port is the port endpoint ends with
bool
    drover_queuespec_uses (drover_queuespec_t *self, const char *endpoint);

//  Endpoint with its port replaced by port ("tcp://h:5555", 6001 ->
//  "tcp://h:6001"); NULL if endpoint has no ":PORT" at its end. Ours.
char *
    drover_queuespec_endpoint (const char *endpoint, int port);

//  What this broker offers, as the elector publishes it: one line
//  "Q ENDPOINT" per queue, ENDPOINT on advertise's host; "" none. Ours.
char *
    drover_queuespec_offer (drover_queuespec_t *self, const char *advertise);

//  The state of queue index in the database state (a postgresql:// URI):
//  the same URI, its search_path the schema drover_q_Q. Ours.
char *
    drover_queuespec_state (drover_queuespec_t *self, size_t index, const char *state);

//  The schema queue index keeps its state in, quoted for SQL. Ours.
char *
    drover_queuespec_schema (drover_queuespec_t *self, size_t index);

#ifdef __cplusplus
}
#endif

#endif
