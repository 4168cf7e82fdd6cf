/*  =========================================================================
    drover_eventpack - a run of events packed into bytes, as the SQLite
    backend keeps them (the format is in drover_eventpack.h)
    =========================================================================
*/

#include "drover_eventpack.h"
#include "drover_varint.h"

//  Append a string as its length and bytes
static size_t
s_put_text (byte *data, const char *text, size_t max)
{
    size_t length = strnlen (text, max);
    size_t size = drover_varint_put (data, length);
    memcpy (data + size, text, length);
    return size + length;
}

//  Read a string of at most max bytes into text (max + 1 bytes)
static bool
s_get_text (const byte **data_p, const byte *end, char *text, size_t max)
{
    uint64_t length;
    if (drover_varint_get (data_p, end, 64, &length) || length > max
    ||  length > (uint64_t) (end - *data_p))
        return false;
    memcpy (text, *data_p, length);
    text [length] = 0;
    *data_p += length;
    return true;
}

//  Pack the events of count changes into data; returns the bytes used
size_t
drover_eventpack_pack (byte *data, drover_change_t **changes, size_t count)
{
    size_t size = 0;
    uint64_t seq = changes [0]->seq, time = 0;
    for (size_t index = 0; index < count; index++) {
        drover_change_t *change = changes [index];
        int64_t step = (int64_t) (change->time - time);
        size += drover_varint_put (data + size, change->seq - seq);
        size += drover_varint_put (data + size, drover_varint_zigzag (step));
        size += drover_varint_put (data + size, change->task);
        size += drover_varint_put (data + size, change->attempt);
        size += s_put_text (data + size, change->topic, sizeof change->topic - 1);
        size += s_put_text (data + size, change->worker, DROVER_ID_MAX);
        size += s_put_text (data + size, change->reason, DROVER_REASON_MAX);
        seq = change->seq;
        time = change->time;
    }
    return size;
}

//  Unpack a run of count events and hand fn those after since
int
drover_eventpack_unpack (const byte *data, size_t size, uint64_t first_seq, int64_t count,
                         uint64_t since, size_t max, drover_store_event_fn *fn, void *arg,
                         int64_t *handed)
{
    if (!data)                          //  no bytes: a run of nothing, or damaged
        return count == 0 && size == 0? 0: -1;
    const byte *end = data + size;
    drover_event_t event;
    memset (&event, 0, sizeof event);
    event.seq = first_seq;
    for (int64_t index = 0; index < count; index++) {
        uint64_t seq_step, time_step, task, attempt;
        if (drover_varint_get (&data, end, 64, &seq_step)
        ||  drover_varint_get (&data, end, 64, &time_step)
        ||  drover_varint_get (&data, end, 64, &task)
        ||  drover_varint_get (&data, end, 64, &attempt) || attempt > UINT32_MAX
        ||  !s_get_text (&data, end, event.topic, sizeof event.topic - 1)
        ||  !s_get_text (&data, end, event.worker, DROVER_ID_MAX)
        ||  !s_get_text (&data, end, event.reason, DROVER_REASON_MAX))
            return -1;
        event.seq += seq_step;
        event.time += (uint64_t) drover_varint_unzigzag (time_step);
        event.task = task;
        event.attempt = (uint32_t) attempt;
        if (event.seq <= since)
            continue;
        if ((size_t) *handed >= max)
            return 1;
        (*handed)++;
        if (fn (arg, &event))
            return 1;
    }
    return data == end? 0: -1;
}
