/*  =========================================================================
    drover_owners - the names tasks belong to, each kept once
    =========================================================================
*/

#include "drover_owners.h"

struct _drover_owners_t {
    zhashx_t *indexes;          //  name -> index (uintptr_t), names past ""
    char **names;               //  index -> name (owned), names [0] = ""
    size_t size;                //  names held, "" included
    size_t room;                //  slots in names
};

//  Create a table holding only ""
drover_owners_t *
drover_owners_new (void)
{
    drover_owners_t *self = (drover_owners_t *) zmalloc (sizeof (drover_owners_t));
    self->indexes = zhashx_new ();
    self->room = 8;
    self->names = (char **) zmalloc (self->room * sizeof (char *));
    self->names [0] = strdup ("");
    self->size = 1;
    return self;
}

//  Destroy the table
void
drover_owners_destroy (drover_owners_t **self_p)
{
    assert (self_p);
    drover_owners_t *self = *self_p;
    if (self) {
        for (size_t index = 0; index < self->size; index++)
            free (self->names [index]);
        free (self->names);
        zhashx_destroy (&self->indexes);
        free (self);
        *self_p = NULL;
    }
}

//  The index of a name, added if new
uint16_t
drover_owners_index (drover_owners_t *self, const char *name)
{
    assert (self && name);
    if (!*name)
        return 0;
    void *found = zhashx_lookup (self->indexes, name);
    if (found)
        return (uint16_t) (uintptr_t) found;
    if (self->size >= DROVER_OWNERS_MAX)
        return 0;
    if (self->size == self->room) {
        self->room *= 2;
        self->names = (char **) realloc (self->names, self->room * sizeof (char *));
        assert (self->names);
    }
    uint16_t index = (uint16_t) self->size++;
    self->names [index] = strdup (name);
    zhashx_insert (self->indexes, name, (void *) (uintptr_t) index);
    return index;
}

//  The name at an index
const char *
drover_owners_name (drover_owners_t *self, uint16_t index)
{
    assert (self);
    return index < self->size? self->names [index]: "";
}

//  Names kept
size_t
drover_owners_size (drover_owners_t *self)
{
    assert (self);
    return self->size;
}
