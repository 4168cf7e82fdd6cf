/*  =========================================================================
    drover_poolconfig - the elastic pool's settings: its instance types
    (pool/type/NAME/KEY), their check, print and copy; the pool's other
    settings are plain rows of drover_config's table
    =========================================================================
*/

#include "drover_poolconfig.h"
#include "drover_devicelist.h"
#include "drover_defaults.h"
#include "drover_msg.h"
#include <errno.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <unistd.h>

//  Parse labels "k=v,k=v" into "k=v\nk=v" (each a valid label, at most
//  DROVER_LABELS_MAX). Returns a fresh string (caller frees), or NULL.
static char *
s_parse_labels (const char *text)
{
    char *labels = strdup (text);
    assert (labels);
    size_t count = 0;
    char *save = NULL;
    char *copy = strdup (text);
    assert (copy);
    for (char *label = strtok_r (copy, ",", &save); label; label = strtok_r (NULL, ",", &save))
        if (!drover_label_valid (label) || ++count > DROVER_LABELS_MAX) {
            free (copy);
            free (labels);
            return NULL;
        }
    free (copy);
    //  No empty label: no leading, trailing or doubled comma
    if (*text && (*text == ',' || text [strlen (text) - 1] == ',' || strstr (text, ",,"))) {
        free (labels);
        return NULL;
    }
    for (char *cursor = labels; *cursor; cursor++)
        if (*cursor == ',')
            *cursor = '\n';
    return labels;
}

//  Set one key of an instance type from "pool/type/NAME/KEY", adding the
//  type if new. Returns 0, or -1 with a message naming the key.
int
drover_poolconfig_set_type (drover_poolconfig_t *pool, const char *path, const char *value,
                            char **error_p)
{
    const char *name = path + 10;
    const char *slash = strchr (name, '/');
    size_t length = slash? (size_t) (slash - name): strlen (name);
    if (!slash || length == 0 || length > DROVER_ID_MAX || strchr (slash + 1, '/')) {
        *error_p = zsys_sprintf ("%s: expected pool/type/NAME/KEY", path);
        return -1;
    }
    for (size_t index = 0; index < length; index++)
        if (!isalnum ((unsigned char) name [index]) && !strchr ("-_.", name [index])) {
            *error_p = zsys_sprintf ("%s: a type's name takes letters, digits, '-', '_', '.'",
                                     path);
            return -1;
        }
    const char *key = slash + 1;
    if (!streq (key, "procs") && !streq (key, "memory") && !streq (key, "labels")
    &&  !streq (key, "devices") && !streq (key, "price")) {
        *error_p = zsys_sprintf ("%s: no such setting (a type has procs, memory, labels, devices,"
                                 " price)", path);
        return -1;
    }
    drover_pooltype_t *type = NULL;
    for (size_t index = 0; index < pool->ntypes && !type; index++)
        if (strlen (pool->types [index].name) == length
        &&  memcmp (pool->types [index].name, name, length) == 0)
            type = &pool->types [index];
    if (!type) {
        if (pool->ntypes >= DROVER_POOL_TYPES_MAX) {
            *error_p = zsys_sprintf ("%s: more than %d instance types", path,
                                     DROVER_POOL_TYPES_MAX);
            return -1;
        }
        type = &pool->types [pool->ntypes++];
        memset (type, 0, sizeof *type);
        memcpy (type->name, name, length);
        type->labels = strdup ("");
    }
    if (streq (key, "procs")) {
        char *end;
        errno = 0;
        unsigned long long procs = strtoull (value, &end, 10);
        if (errno || !isdigit ((unsigned char) *value) || *end || procs < 1 || procs > 65536) {
            *error_p = zsys_sprintf ("%s: '%s' is not a whole number from 1 to 65536",
                                     path, value);
            return -1;
        }
        type->procs = (uint32_t) procs;
    }
    else
    if (streq (key, "memory")) {
        if (drover_config_parse_size (value, &type->mem)) {
            *error_p = zsys_sprintf ("%s: '%s' is not a size such as 512M or 16G", path, value);
            return -1;
        }
    }
    else
    if (streq (key, "labels")) {
        char *labels = s_parse_labels (value);
        if (!labels) {
            *error_p = zsys_sprintf ("%s: '%s' is not labels \"k=v,k=v\" (at most %d)",
                                     path, value, DROVER_LABELS_MAX);
            return -1;
        }
        zstr_free (&type->labels);
        type->labels = labels;
    }
    else
    if (streq (key, "devices")) {
        drover_device_t devices [DROVER_DEVICES_MAX];
        const char *why = NULL;
        int count = drover_devicelist_parse (value, devices, &why);
        if (count < 0) {
            *error_p = zsys_sprintf ("%s: '%s' is not devices \"gpu=1,fpga=2\": %s", path, value,
                                     why);
            return -1;
        }
        char text [DROVER_DEVICELIST_TEXT_MAX];
        zstr_free (&type->devices);
        type->devices = strdup (drover_devicelist_format (devices, (size_t) count, text));
        assert (type->devices);
    }
    else
        return drover_config_parse_price (path, value, &type->price, error_p);
    return 0;
}

//  Print the instance types as ZPL under pool (none by default: no pool)
void
drover_poolconfig_print_types (const drover_poolconfig_t *pool, FILE *stream)
{
    assert (pool);
    if (pool->ntypes)
        fprintf (stream, "pool\n    type\n");
    for (size_t index = 0; index < pool->ntypes; index++) {
        const drover_pooltype_t *type = &pool->types [index];
        fprintf (stream, "        %s\n            procs = %u\n", type->name, type->procs);
        if (type->mem)
            fprintf (stream, "            memory = %" PRIu64 "\n", type->mem);
        char *labels = strdup (type->labels? type->labels: "");
        for (char *cursor = labels; *cursor; cursor++)
            if (*cursor == '\n')
                *cursor = ',';
        if (*labels)
            fprintf (stream, "            labels = \"%s\"\n", labels);
        free (labels);
        if (type->devices && *type->devices)
            fprintf (stream, "            devices = \"%s\"\n", type->devices);
        fprintf (stream, "            price = %.17g\n", type->price);
    }
}

//  Check what single keys cannot: every type has procs, min-instances at
//  most max-instances, the command driver's executable
int
drover_config_check_pool (drover_config_t *self, char **error_p)
{
    assert (self);
    const drover_poolconfig_t *pool = &self->pool;
    for (size_t index = 0; index < pool->ntypes; index++)
        if (pool->types [index].procs == 0) {
            *error_p = zsys_sprintf ("pool/type/%s/procs: a type must say its procs",
                                     pool->types [index].name);
            return -1;
        }
    if (pool->ntypes == 0)
        return 0;               //  no types, no pool: the rest does not matter
    if (pool->min_instances > pool->max_instances) {
        *error_p = zsys_sprintf ("pool/min-instances: %u is more than pool/max-instances (%u)",
                                 pool->min_instances, pool->max_instances);
        return -1;
    }
    if (streq (pool->driver, "command")) {
        struct stat info;
        if (!*pool->command || stat (pool->command, &info) || !S_ISREG (info.st_mode)
        ||  access (pool->command, X_OK)) {
            *error_p = zsys_sprintf ("pool/command: '%s' is not an executable file (the command "
                                     "driver needs one)", pool->command);
            return -1;
        }
    }
    return 0;
}

//  Return a heap copy of pool settings (caller destroys it with
//  drover_poolconfig_destroy)
drover_poolconfig_t *
drover_poolconfig_dup (const drover_poolconfig_t *pool)
{
    assert (pool);
    drover_poolconfig_t *copy = (drover_poolconfig_t *) zmalloc (sizeof (drover_poolconfig_t));
    *copy = *pool;
    char **strings [] = { &copy->name, &copy->driver, &copy->command, &copy->worker,
                          &copy->local_dir, &copy->broker, &copy->probe };
    for (size_t index = 0; index < sizeof strings / sizeof strings [0]; index++)
        *strings [index] = strdup (*strings [index]? *strings [index]: "");
    for (size_t index = 0; index < copy->ntypes; index++) {
        copy->types [index].labels = strdup (pool->types [index].labels?
                                             pool->types [index].labels: "");
        copy->types [index].devices = strdup (pool->types [index].devices?
                                              pool->types [index].devices: "");
    }
    return copy;
}

//  Destroy a copy made by drover_poolconfig_dup; harmless on NULL
void
drover_poolconfig_destroy (drover_poolconfig_t **self_p)
{
    assert (self_p);
    drover_poolconfig_t *self = *self_p;
    if (self) {
        zstr_free (&self->name);
        zstr_free (&self->driver);
        zstr_free (&self->command);
        zstr_free (&self->worker);
        zstr_free (&self->local_dir);
        zstr_free (&self->broker);
        zstr_free (&self->probe);
        for (size_t index = 0; index < self->ntypes; index++) {
            zstr_free (&self->types [index].labels);
            zstr_free (&self->types [index].devices);
        }
        free (self);
        *self_p = NULL;
    }
}
