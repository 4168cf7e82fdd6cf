/*  =========================================================================
    fuzz_msg - libFuzzer target for the wire codec's decoder

    Feeds any bytes to drover_msg_decode and drover_msg_peek, as the
    broker, a worker and a client do with whatever reaches their sockets.
    Besides what ASan and UBSan catch, it checks what the codec promises:
    decode returns 0 or -2; a refusal says why and keeps nothing but id,
    seq and the version flag; an accepted message encodes again, and that
    encoding decodes to itself (a fixed point), unless it is one the broker
    sends holding a value this version does not know (kept as it came,
    PROTOCOL.md §12, and not sent on); peek reads the same id and seq as a
    full decode of an accepted message.

    Built with CC=clang cmake -DDROVER_FUZZ=ON; seeds come from fuzz_seeds.
    =========================================================================
*/

#include "drover_msg.h"
#include "../kit/testcodec_known.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    drover_msg_t *msg = drover_msg_new (0);
    int rc = drover_msg_decode (msg, data, size);
    uint32_t peeked;
    int id = drover_msg_peek (data, size, &peeked);
    assert (rc == 0 || rc == -2);
    if (rc == -2) {
        assert (msg->error);
        assert (!msg->body && !msg->reason && !msg->task_rows && !msg->worker_rows
                && !msg->pool_rows && !msg->running && !msg->tasks && !msg->out && !msg->err
                && msg->nrows == 0);
        //  What a refusal echoes is what the header alone gives
        assert (msg->seq == peeked && msg->id == (id > 0? id: 0));
    }
    else {
        assert (msg->seq == peeked && msg->id == id);
        zframe_t *frame = drover_msg_encode (msg);
        if (!frame && testcodec_from_broker (msg->id) && testcodec_holds_unknown_value (msg)) {
            drover_msg_destroy (&msg);
            return 0;               //  a newer broker's value: read, not sent on
        }
        assert (frame);             //  what decodes, encodes
        drover_msg_t *again = drover_msg_new (0);
        rc = drover_msg_decode (again, zframe_data (frame), zframe_size (frame));
        assert (rc == 0);
        zframe_t *twice = drover_msg_encode (again);
        assert (twice && zframe_eq (frame, twice));
        zframe_destroy (&twice);
        zframe_destroy (&frame);
        drover_msg_destroy (&again);
    }
    drover_msg_destroy (&msg);
    return 0;
}
