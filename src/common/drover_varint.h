/*  =========================================================================
    drover_varint - unsigned varints (7 bits a byte, low first, the high
    bit saying another follows), as the store packs its events rows
    (drover_eventpack) and a fresh task's fields (drover_sqlbatch)
    =========================================================================
*/

#ifndef DROVER_VARINT_H_INCLUDED
#define DROVER_VARINT_H_INCLUDED

#include <czmq.h>

//  Write value as a varint at data (room for 10 bytes);
//  returns the bytes written
static inline size_t
drover_varint_put (byte *data, uint64_t value)
{
    size_t size = 0;
    while (value >= 0x80) {
        data [size++] = (byte) (value | 0x80);
        value >>= 7;
    }
    data [size++] = (byte) value;
    return size;
}

//  A signed number as an unsigned one whose varint stays short when the
//  number is near zero (zigzag: 0, -1, 1, -2... as 0, 1, 2, 3...)
static inline uint64_t
drover_varint_zigzag (int64_t value)
{
    return ((uint64_t) value << 1) ^ (uint64_t) (value >> 63);
}

//  The signed number drover_varint_zigzag made value of
static inline int64_t
drover_varint_unzigzag (uint64_t value)
{
    return (int64_t) (value >> 1) ^ -(int64_t) (value & 1);
}

//  Read a varint of at most max_bits (1..64) at *data_p, before end, and
//  move *data_p past it. Returns 0, or -1 if it is cut short or too large.
static inline int
drover_varint_get (const byte **data_p, const byte *end, int max_bits, uint64_t *value)
{
    const byte *data = *data_p;
    uint64_t result = 0;
    for (int shift = 0; data < end && shift < max_bits; shift += 7) {
        byte next = *data++;
        result |= (uint64_t) (next & 0x7f) << shift;
        if (!(next & 0x80)) {
            if (max_bits < 64 && result >> max_bits)
                return -1;
            *data_p = data;
            *value = result;
            return 0;
        }
    }
    return -1;
}

#endif
