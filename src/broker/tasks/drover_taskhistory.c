/*  =========================================================================
    drover_taskhistory - the past attempts of one task (see the header)

    The array grows by one attempt at a time up to the bound (most tasks
    that have a history have one or two past attempts), then the oldest
    is dropped and counted.
    =========================================================================
*/

#include "drover_taskhistory.h"

//  Create an empty history
drover_taskhistory_t *
drover_taskhistory_new (uint64_t id)
{
    drover_taskhistory_t *self = (drover_taskhistory_t *) zmalloc (sizeof (drover_taskhistory_t));
    self->id = id;
    return self;
}

//  Destroy a history
void
drover_taskhistory_destroy (drover_taskhistory_t **self_p)
{
    assert (self_p);
    drover_taskhistory_t *self = *self_p;
    if (!self)
        return;
    free (self->attempts);
    free (self);
    *self_p = NULL;
}

//  Add an attempt that ended, dropping the oldest past the bound
void
drover_taskhistory_add (drover_taskhistory_t *self, const drover_attempt_t *attempt)
{
    assert (self && attempt);
    if (self->count == DROVER_ATTEMPTS_MAX) {
        memmove (self->attempts, self->attempts + 1,
                 (DROVER_ATTEMPTS_MAX - 1) * sizeof (drover_attempt_t));
        self->count--;
        self->dropped++;
    }
    else {
        self->attempts = (drover_attempt_t *) realloc (self->attempts,
                                                       (self->count + 1) * sizeof (drover_attempt_t));
        assert (self->attempts);
    }
    self->attempts [self->count++] = *attempt;
}

//  Encode the attempts and the dropped count
byte *
drover_taskhistory_encode (const drover_taskhistory_t *self, size_t *size_p)
{
    assert (self && size_p);
    return drover_taskinfo_encode_attempts (self->attempts, self->count, self->dropped, size_p);
}

//  Create a history from what encode made
drover_taskhistory_t *
drover_taskhistory_decode (uint64_t id, const byte *data, size_t size)
{
    drover_attempt_t attempts [DROVER_ATTEMPTS_MAX];
    uint32_t dropped = 0;
    int count = drover_taskinfo_decode_attempts (data, size, attempts, &dropped);
    if (count < 0 || (count == 0 && dropped == 0))
        return NULL;
    drover_taskhistory_t *self = drover_taskhistory_new (id);
    self->dropped = dropped;
    for (int index = 0; index < count; index++)
        drover_taskhistory_add (self, &attempts [index]);
    return self;
}
