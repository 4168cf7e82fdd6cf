/*  =========================================================================
    drover_devicelist - counts of named devices as text and back

    Parsing is by hand: the grammar is two separators and a number, and
    the limits (name characters, counts, repeats) are ours to say.
    =========================================================================
*/

#include "drover_devicelist.h"

//  True if text is a device name: 1..32 of a-z 0-9 _
bool
drover_devicelist_name_valid (const char *text)
{
    size_t length = text? strlen (text): 0;
    if (length == 0 || length > DROVER_DEVICE_NAME_MAX)
        return false;
    for (size_t index = 0; index < length; index++) {
        char c = text [index];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
            return false;
    }
    return true;
}

//  Order entries by name, for qsort
static int
s_compare (const void *a, const void *b)
{
    return strcmp (((const drover_device_t *) a)->name, ((const drover_device_t *) b)->name);
}

//  Sort entries by name
void
drover_devicelist_sort (drover_device_t *devices, size_t count)
{
    if (count > 1)
        qsort (devices, count, sizeof (drover_device_t), s_compare);
}

//  Parse one entry "name=count" (trimmed) into device; returns 0, or -1
//  with *error_p set
static int
s_parse_entry (char *entry, drover_device_t *device, const char **error_p)
{
    while (*entry == ' ')
        entry++;
    size_t length = strlen (entry);
    while (length && entry [length - 1] == ' ')
        entry [--length] = 0;
    char *equals = strchr (entry, '=');
    if (!equals) {
        *error_p = "an entry is not NAME=COUNT";
        return -1;
    }
    *equals = 0;
    if (!drover_devicelist_name_valid (entry)) {
        *error_p = "a device name is not 1..32 of a-z 0-9 _";
        return -1;
    }
    const char *digits = equals + 1;
    char *end = NULL;
    errno = 0;
    unsigned long long value = *digits >= '0' && *digits <= '9'?
                               strtoull (digits, &end, 10): 0;
    if (!end || *end || errno || value < 1 || value > DROVER_DEVICE_COUNT_MAX) {
        *error_p = "a device count is not 1..1000000";
        return -1;
    }
    snprintf (device->name, sizeof device->name, "%s", entry);
    device->count = (uint32_t) value;
    return 0;
}

//  Parse "gpu=2,fpga=1" into sorted entries
int
drover_devicelist_parse (const char *text, drover_device_t *devices, const char **error_p)
{
    const char *ignored;
    if (!error_p)
        error_p = &ignored;
    if (!text || !*text)
        return 0;
    char *copy = strdup (text);
    assert (copy);
    int count = 0;
    char *rest = copy;
    for (char *entry = strsep (&rest, ","); entry; entry = strsep (&rest, ",")) {
        if (count == DROVER_DEVICES_MAX) {
            *error_p = "more than 16 device names";
            count = -1;
            break;
        }
        if (s_parse_entry (entry, &devices [count], error_p)) {
            count = -1;
            break;
        }
        if (drover_devicelist_count (devices, (size_t) count, devices [count].name)) {
            *error_p = "a device name is given twice";
            count = -1;
            break;
        }
        count++;
    }
    free (copy);
    if (count > 0)
        drover_devicelist_sort (devices, (size_t) count);
    return count;
}

//  Write the canonical text of the entries
char *
drover_devicelist_format (const drover_device_t *devices, size_t count, char *text)
{
    drover_device_t sorted [DROVER_DEVICES_MAX];
    if (count > DROVER_DEVICES_MAX)
        count = DROVER_DEVICES_MAX;
    if (count)
        memcpy (sorted, devices, count * sizeof (drover_device_t));
    drover_devicelist_sort (sorted, count);
    size_t used = 0;
    text [0] = 0;
    for (size_t index = 0; index < count; index++)
        used += (size_t) snprintf (text + used, DROVER_DEVICELIST_TEXT_MAX - used, "%s%s=%u",
                                   index? ",": "", sorted [index].name, sorted [index].count);
    return text;
}

//  Return the count of name, 0 if absent
uint32_t
drover_devicelist_count (const drover_device_t *devices, size_t count, const char *name)
{
    for (size_t index = 0; index < count; index++)
        if (streq (devices [index].name, name))
            return devices [index].count;
    return 0;
}
