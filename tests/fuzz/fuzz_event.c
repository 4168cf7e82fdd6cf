/*  =========================================================================
    fuzz_event - libFuzzer target for the event body decoder and its JSON

    Feeds any bytes to drover_event_decode, as `drover events` does with
    what any publisher sends, and prints what it accepts with
    drover_event_json. Checks: decode returns 0 or -2 and zeroes the event
    on a refusal; an accepted event encodes and decodes to the same values;
    its JSON line is whole: it starts with the exact time, holds no control
    byte, and ends the object (an earlier encoder printed a cut line here).
    =========================================================================
*/

#include "drover_msg.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    drover_event_t event;
    int rc = drover_event_decode (&event, data, size);
    assert (rc == 0 || rc == -2);
    if (rc == -2) {
        assert (event.time == 0 && event.topic [0] == 0 && event.reason [0] == 0);
        return 0;
    }
    char *json = drover_event_json (&event);
    //  The time is an ISO 8601 UTC string, as long as its year needs
    const char *start = "{\"time\":\"";
    size_t length = strlen (json);
    assert (strncmp (json, start, strlen (start)) == 0);
    const char *topic = strstr (json, "Z\",\"topic\":\"");
    assert (topic && topic > json + strlen (start));
    assert (json [length - 1] == '}');
    for (size_t index = 0; index < length; index++)
        assert ((byte) json [index] >= 0x20);
    zstr_free (&json);

    zframe_t *frame = drover_event_encode (&event);
    drover_event_t again;
    rc = drover_event_decode (&again, zframe_data (frame), zframe_size (frame));
    assert (rc == 0);
    assert (again.time == event.time && again.task == event.task
            && again.attempt == event.attempt);
    assert (streq (again.topic, event.topic) && streq (again.worker, event.worker)
            && streq (again.reason, event.reason));
    zframe_destroy (&frame);
    return 0;
}
