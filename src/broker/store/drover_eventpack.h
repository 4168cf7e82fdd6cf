/*  =========================================================================
    drover_eventpack - a run of events packed into bytes, as the SQLite
    backend keeps them (one blob per row of its events table)

    An event packs as varints (7 bits a byte, low first): seq as the step
    from the event before (the first from the run's first seq), time as a
    zigzag step from the event before (from 0), task, attempt; then topic,
    worker and reason, each as its length and its bytes. A run of no-op
    task events takes about 15 bytes an event. Unpacking checks every
    length against the event's limits and the bytes left, and that the
    run ends where its bytes do: a damaged blob is refused, never read
    past. A plain codec: no state, no allocation.
    =========================================================================
*/

#ifndef DROVER_EVENTPACK_H_INCLUDED
#define DROVER_EVENTPACK_H_INCLUDED

#include "drover_store.h"

#ifdef __cplusplus
extern "C" {
#endif

//  Bytes one packed event takes at most: 4 varints, 3 lengths, 3 strings
#define DROVER_EVENTPACK_MAX    (4 * 10 + 3 * 2 + 31 + DROVER_ID_MAX + DROVER_REASON_MAX)

//  Pack the events of count changes (seq ascending) into data, which has
//  room for count * DROVER_EVENTPACK_MAX bytes. Returns the bytes used.
size_t
    drover_eventpack_pack (byte *data, drover_change_t **changes, size_t count);

//  Unpack a run of count events whose first has seq first_seq, and hand
//  fn those with seq > since, counting them in *handed, until *handed
//  reaches max. Returns 0 when the run is done, 1 if fn or max stopped
//  it, -1 if the bytes are not a run of count events.
int
    drover_eventpack_unpack (const byte *data, size_t size, uint64_t first_seq, int64_t count,
                             uint64_t since, size_t max, drover_store_event_fn *fn,
                             void *arg, int64_t *handed);

#ifdef __cplusplus
}
#endif

#endif
