/*  =========================================================================
    drover_devicelist - counts of named devices as text and back: a task's
    device demand, a worker's devices, a quota's ("gpu=2,fpga=1")

    The text is entries NAME=COUNT joined by commas, names of 1..32 of
    a-z 0-9 _, counts 1..1000000, each name once; the canonical form lists
    them by name. "" is no devices. The broker's actors pass a demand to
    each other in this form; the wire carries arrays of drover_device_t.
    A plain value class: no threads, no I/O.
    =========================================================================
*/

#ifndef DROVER_DEVICELIST_H_INCLUDED
#define DROVER_DEVICELIST_H_INCLUDED

#include <czmq.h>
#include "drover_msg.h"

#ifdef __cplusplus
extern "C" {
#endif

//  Most of one device a demand, a worker or a quota may count
#define DROVER_DEVICE_COUNT_MAX     1000000

//  Room for the canonical text of DROVER_DEVICES_MAX entries, with its NUL
#define DROVER_DEVICELIST_TEXT_MAX  (DROVER_DEVICES_MAX * (DROVER_DEVICE_NAME_MAX + 9) + 1)

//  True if text is a device name: 1..32 of a-z 0-9 _
bool
    drover_devicelist_name_valid (const char *text);

//  Parse "gpu=2,fpga=1" (spaces around entries allowed; "" or NULL none)
//  into devices [DROVER_DEVICES_MAX], sorted by name. Returns the number
//  of entries, or -1 and sets *error_p (static text, may be NULL) if a
//  name or count is invalid, a name repeats, or there are too many.
int
    drover_devicelist_parse (const char *text, drover_device_t *devices, const char **error_p);

//  Write the canonical text of count entries (sorted by name) into text
//  [DROVER_DEVICELIST_TEXT_MAX]; "" for none. Returns text.
char *
    drover_devicelist_format (const drover_device_t *devices, size_t count, char *text);

//  Return the count of name among count entries, 0 if absent
uint32_t
    drover_devicelist_count (const drover_device_t *devices, size_t count, const char *name);

//  Sort count entries by name (in place)
void
    drover_devicelist_sort (drover_device_t *devices, size_t count);

#ifdef __cplusplus
}
#endif

#endif
