/*  =========================================================================
    drover_owners - the names tasks belong to, each kept once

    With CURVE every task belongs to the name of the key that submitted it.
    A million tasks of a few owners must not hold a million copies of a few
    names: each record keeps a 16-bit index here instead. Index 0 is the
    empty name (no CURVE, or past DROVER_OWNERS_MAX names: then only an
    admin may act on the task, since no key is named "").
    =========================================================================
*/

#ifndef DROVER_OWNERS_H_INCLUDED
#define DROVER_OWNERS_H_INCLUDED

#include <czmq.h>

//  Names kept at most, "" included
#define DROVER_OWNERS_MAX   65535

typedef struct _drover_owners_t drover_owners_t;

//  Create a table holding only ""
drover_owners_t *
    drover_owners_new (void);

//  Destroy the table; harmless on NULL
void
    drover_owners_destroy (drover_owners_t **self_p);

//  The index of a name, added if new (0 for "" and once the table is full)
uint16_t
    drover_owners_index (drover_owners_t *self, const char *name);

//  The name at an index ("" for 0 or an index never given)
const char *
    drover_owners_name (drover_owners_t *self, uint16_t index);

//  Names kept, "" included
size_t
    drover_owners_size (drover_owners_t *self);

#endif
