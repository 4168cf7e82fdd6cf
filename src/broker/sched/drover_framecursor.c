/*  =========================================================================
    drover_framecursor - writing and reading native-layout frames (see the
    header)
    =========================================================================
*/

#include "drover_framecursor.h"

//  Append bytes at a cursor, moving it
void
drover_framecursor_put (byte **cursor_p, const void *data, size_t size)
{
    memcpy (*cursor_p, data, size);
    *cursor_p += size;
}

//  Append a string as its length (4) and its bytes
void
drover_framecursor_put_string (byte **cursor_p, const char *text)
{
    uint32_t length = (uint32_t) strlen (text);
    drover_framecursor_put (cursor_p, &length, 4);
    drover_framecursor_put (cursor_p, text, length);
}

//  Take size bytes from a cursor if they are there. Returns false if not.
bool
drover_framecursor_get (const byte **cursor_p, const byte *end, void *data, size_t size)
{
    if ((size_t) (end - *cursor_p) < size)
        return false;
    memcpy (data, *cursor_p, size);
    *cursor_p += size;
    return true;
}

//  Take a string (its length, its bytes) from a cursor, as a fresh copy,
//  or NULL if the frame ends first
char *
drover_framecursor_get_string (const byte **cursor_p, const byte *end)
{
    uint32_t length;
    if (!drover_framecursor_get (cursor_p, end, &length, 4)
    ||  (size_t) (end - *cursor_p) < length)
        return NULL;
    char *text = strndup ((const char *) *cursor_p, length);
    assert (text);
    *cursor_p += length;
    return text;
}
