/*  =========================================================================
    drover_event - the event codec: what the broker publishes (PROTOCOL.md
    §14, "The event stream")

    An event goes out on the broker's PUB socket as two frames: the topic
    (e.g. "task.succeeded", "worker.lost"), then the body, a msgpack map
    {time, topic, task, attempt, worker, reason, seq}. A subscriber decodes the
    body with drover_event_decode, which takes keys in any order, skips
    unknown ones and refuses anything past the limits, and may print it as
    one JSON line (`drover events`).
    =========================================================================
*/

#ifndef DROVER_EVENT_H_INCLUDED
#define DROVER_EVENT_H_INCLUDED

#include "drover_limits.h"
#include <czmq.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

//  An event published on the broker's PUB socket: frame 1 is the topic
//  (e.g. "task.succeeded", "worker.lost"), frame 2 the encoded body.
typedef struct {
    uint64_t seq;                   //  sequence number, from 1, never reused (0: none)
    uint64_t time;                  //  wall clock, msec since the epoch
    char topic [32];                //  "task.<state>" or "worker.<change>"
    uint64_t task;                  //  task id, 0 for a worker event
    uint32_t attempt;               //  attempt number, 0 if none
    char worker [DROVER_ID_MAX + 1];    //  worker id or ""
    char reason [DROVER_REASON_MAX + 1];    //  free text or ""
} drover_event_t;

//  Encode an event body into a new frame (never NULL)
zframe_t *
    drover_event_encode (const drover_event_t *event);

//  Decode an event body. Returns 0 or -2 if malformed.
int
    drover_event_decode (drover_event_t *event, const byte *data, size_t size);

//  Format an event as one JSON line (no newline); caller frees with zstr_free
char *
    drover_event_json (const drover_event_t *event);

#ifdef __cplusplus
}
#endif

#endif
