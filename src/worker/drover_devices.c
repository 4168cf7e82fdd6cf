/*  =========================================================================
    drover_devices - a worker's counted devices (GPUs and any other counted
    resource) and which running task holds each of them

    Each name keeps its indices sorted, lowest first, and beside each the
    holder that has it (a copy of the holder's string) or NULL when it is
    free: taking scans for the lowest free ones, giving back clears a
    holder's. A worker has a few names of a few devices each (at most
    DROVER_DEVICES_NAMES_MAX of DROVER_DEVICES_COUNT_MAX), so plain arrays
    and scans do.

    Detection runs `nvidia-smi -L` with posix_spawnp (the C library's; its
    own process group, so a timeout kills whatever it started too), reads
    its output to the end or the timeout, and takes the lines that start
    "GPU N:"; without it, the /dev/nvidiaN entries.
    =========================================================================
*/

#ifndef _GNU_SOURCE
#   define _GNU_SOURCE         //  pipe2
#endif
#include "drover_devices.h"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>
#include <sys/wait.h>

#define S_PROBE_OUTPUT      65536       //  bytes of nvidia-smi's output kept at most
#define S_SOURCE_GIVEN      "given"
#define S_SOURCE_SMI        "nvidia-smi"
#define S_SOURCE_DEV        "/dev/nvidia*"

extern char **environ;

//  The devices of one name
typedef struct {
    char name [DROVER_DEVICES_NAME_MAX + 1];    //  the name, [a-z0-9_]
    const char *source;             //  where they come from, a S_SOURCE_* literal
    uint32_t count;                 //  devices; 0: the operator said none
    uint16_t *indices;              //  their indices, ascending, owned
    char **held_by;                 //  per index, its holder (owned) or NULL if free
} s_kind_t;

struct _drover_devices_t {
    s_kind_t kinds [DROVER_DEVICES_NAMES_MAX];  //  names in the order added
    size_t nkinds;                  //  kinds in use
    char *root;                     //  what stands for / in detection, owned
    char *command;                  //  the nvidia-smi to run, owned; NULL: from the PATH
    bool no_command;                //  run no nvidia-smi
    uint32_t timeout;               //  msec nvidia-smi may take
};


//  --------------------------------------------------------------------------
//  Create an empty inventory

drover_devices_t *
drover_devices_new (void)
{
    drover_devices_t *self = (drover_devices_t *) zmalloc (sizeof (drover_devices_t));
    assert (self);
    self->timeout = DROVER_DEVICES_PROBE_MSEC;
    return self;
}


//  --------------------------------------------------------------------------
//  Destroy an inventory

void
drover_devices_destroy (drover_devices_t **self_p)
{
    assert (self_p);
    drover_devices_t *self = *self_p;
    if (!self)
        return;
    for (size_t kind = 0; kind < self->nkinds; kind++) {
        s_kind_t *entry = &self->kinds [kind];
        for (uint32_t slot = 0; slot < entry->count; slot++)
            free (entry->held_by [slot]);
        free (entry->held_by);
        free (entry->indices);
    }
    free (self->root);
    free (self->command);
    free (self);
    *self_p = NULL;
}


//  Return the kind called name, or NULL
static s_kind_t *
s_kind (drover_devices_t *self, const char *name)
{
    for (size_t kind = 0; kind < self->nkinds; kind++)
        if (streq (self->kinds [kind].name, name))
            return &self->kinds [kind];
    return NULL;
}

//  Add a kind with the indices set in a bitmap of DROVER_DEVICES_INDEX_MAX + 1
//  bits (count of them), from source
static void
s_add (drover_devices_t *self, const char *name, const uint8_t *bits, uint32_t count,
       const char *source)
{
    assert (self->nkinds < DROVER_DEVICES_NAMES_MAX);
    s_kind_t *entry = &self->kinds [self->nkinds++];
    snprintf (entry->name, sizeof entry->name, "%s", name);
    entry->source = source;
    entry->count = count;
    entry->indices = (uint16_t *) zmalloc ((count + 1) * sizeof (uint16_t));
    entry->held_by = (char **) zmalloc ((count + 1) * sizeof (char *));
    assert (entry->indices && entry->held_by);
    uint32_t slot = 0;
    for (uint32_t index = 0; index <= DROVER_DEVICES_INDEX_MAX && slot < count; index++)
        if (bits [index / 8] & (1 << (index % 8)))
            entry->indices [slot++] = (uint16_t) index;
    assert (slot == count);
}

//  True if name is a device name: 1..DROVER_DEVICES_NAME_MAX of [a-z0-9_]
static bool
s_name_valid (const char *name, size_t length)
{
    if (length < 1 || length > DROVER_DEVICES_NAME_MAX)
        return false;
    for (size_t at = 0; at < length; at++)
        if (!(islower ((unsigned char) name [at]) || isdigit ((unsigned char) name [at])
           || name [at] == '_'))
            return false;
    return true;
}

//  Parse digits at *text_p (no sign, at most 5 of them) up to a character
//  that is not one; moves *text_p past them. Returns the value or -1.
static long
s_number (const char **text_p)
{
    const char *text = *text_p;
    long value = 0;
    size_t digits = 0;
    while (isdigit ((unsigned char) text [digits])) {
        if (++digits > 5)
            return -1;
        value = value * 10 + (text [digits - 1] - '0');
    }
    if (digits == 0)
        return -1;
    *text_p = text + digits;
    return value;
}

//  Set in bits the indices a list says ("0,2,4-7", one index alone "3,"),
//  counting them in *count_p. Returns 0, or -1 with why in *error_p.
static int
s_parse_list (const char *spec, const char *list, uint8_t *bits, uint32_t *count_p,
              char **error_p)
{
    const char *at = list;
    while (*at) {
        long first = s_number (&at);
        long last = first;
        if (first >= 0 && *at == '-') {
            at++;
            last = s_number (&at);
        }
        if (first < 0 || last < 0 || (*at && *at != ',')) {
            *error_p = zsys_sprintf ("--device '%s': '%s' is not a list of indices such as "
                                     "0,1,3 or 0-3", spec, list);
            return -1;
        }
        if (first > DROVER_DEVICES_INDEX_MAX || last > DROVER_DEVICES_INDEX_MAX || last < first) {
            *error_p = zsys_sprintf ("--device '%s': indices go from 0 to %d, a range I-J "
                                     "with I <= J", spec, DROVER_DEVICES_INDEX_MAX);
            return -1;
        }
        for (long index = first; index <= last; index++) {
            if (bits [index / 8] & (1 << (index % 8))) {
                *error_p = zsys_sprintf ("--device '%s': index %ld is listed twice", spec, index);
                return -1;
            }
            bits [index / 8] |= (uint8_t) (1 << (index % 8));
            if (++*count_p > DROVER_DEVICES_COUNT_MAX) {
                *error_p = zsys_sprintf ("--device '%s': more than %d devices", spec,
                                         DROVER_DEVICES_COUNT_MAX);
                return -1;
            }
        }
        if (*at == ',')
            at++;
    }
    return 0;
}


//  --------------------------------------------------------------------------
//  Add what one --device value says: NAME=COUNT or NAME=LIST

int
drover_devices_parse (drover_devices_t *self, const char *spec, char **error_p)
{
    assert (self);
    assert (spec);
    assert (error_p);
    const char *equals = strchr (spec, '=');
    if (!equals || !s_name_valid (spec, (size_t) (equals - spec)) || !equals [1]) {
        *error_p = zsys_sprintf ("--device '%s': must be NAME=COUNT or NAME=I,J,... "
                                 "(NAME of 1..%d of a-z 0-9 _, e.g. gpu=2 or gpu=0,1,3)",
                                 spec, DROVER_DEVICES_NAME_MAX);
        return -1;
    }
    char name [DROVER_DEVICES_NAME_MAX + 1];
    snprintf (name, sizeof name, "%.*s", (int) (equals - spec), spec);
    if (s_kind (self, name)) {
        *error_p = zsys_sprintf ("--device '%s': %s is given twice", spec, name);
        return -1;
    }
    if (self->nkinds >= DROVER_DEVICES_NAMES_MAX) {
        *error_p = zsys_sprintf ("--device '%s': more than %d device names", spec,
                                 DROVER_DEVICES_NAMES_MAX);
        return -1;
    }
    const char *value = equals + 1;
    uint8_t bits [(DROVER_DEVICES_INDEX_MAX + 1) / 8] = { 0 };
    uint32_t count = 0;
    if (strchr (value, ',') || strchr (value, '-')) {
        if (s_parse_list (spec, value, bits, &count, error_p))
            return -1;
    }
    else {
        const char *at = value;
        long number = s_number (&at);
        if (number < 0 || *at || number > DROVER_DEVICES_COUNT_MAX) {
            *error_p = zsys_sprintf ("--device '%s': the count must be a whole number from 0 "
                                     "to %d (or give indices: %s=0,1,3)", spec,
                                     DROVER_DEVICES_COUNT_MAX, name);
            return -1;
        }
        count = (uint32_t) number;
        for (uint32_t index = 0; index < count; index++)
            bits [index / 8] |= (uint8_t) (1 << (index % 8));
    }
    s_add (self, name, bits, count, S_SOURCE_GIVEN);
    return 0;
}


//  --------------------------------------------------------------------------
//  Say where detection looks

void
drover_devices_set_probe (drover_devices_t *self, const char *root, const char *command,
                          uint32_t timeout)
{
    assert (self);
    free (self->root);
    self->root = root? strdup (root): NULL;
    free (self->command);
    self->command = command && *command? strdup (command): NULL;
    self->no_command = command && !*command;
    self->timeout = timeout? timeout: DROVER_DEVICES_PROBE_MSEC;
}

//  Run nvidia-smi -L into output (NUL-terminated, at most size - 1 bytes),
//  killing it (and what it started) at the timeout. Returns 0 if it ran
//  and exited 0, else -1 (absent, failed, killed).
static int
s_run_smi (drover_devices_t *self, char *output, size_t size)
{
    const char *command = self->command? self->command: "nvidia-smi";
    int pipe_fds [2];
    if (pipe2 (pipe_fds, O_CLOEXEC))
        return -1;
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init (&actions);
    posix_spawn_file_actions_addopen (&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2 (&actions, pipe_fds [1], 1);
    posix_spawn_file_actions_addopen (&actions, 2, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_init (&attr);
    posix_spawnattr_setflags (&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup (&attr, 0);
    char *argv [] = { (char *) command, "-L", NULL };
    pid_t pid;
    int rc = posix_spawnp (&pid, command, &actions, &attr, argv, environ);
    posix_spawn_file_actions_destroy (&actions);
    posix_spawnattr_destroy (&attr);
    close (pipe_fds [1]);
    if (rc) {
        close (pipe_fds [0]);
        return -1;                      //  no such program: no GPU this way
    }
    size_t length = 0;
    bool killed = false;
    int64_t deadline = zclock_mono () + self->timeout;
    while (true) {
        int64_t left = deadline - zclock_mono ();
        struct pollfd item = { pipe_fds [0], POLLIN, 0 };
        int ready = left > 0? poll (&item, 1, (int) left): 0;
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0) {
            kill (-pid, SIGKILL);       //  its group: a script's children too
            killed = true;
            break;
        }
        char scratch [4096];
        char *into = length < size - 1? output + length: scratch;
        size_t room = length < size - 1? size - 1 - length: sizeof scratch;
        ssize_t got = read (pipe_fds [0], into, room);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;                      //  end of its output
        if (into != scratch)
            length += (size_t) got;
    }
    output [length] = 0;
    close (pipe_fds [0]);
    int status = 0;
    while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (killed) {
        zsys_warning ("devices: %s -L did not answer in %u msec: no GPU found by it",
                      command, self->timeout);
        return -1;
    }
    if (!WIFEXITED (status) || WEXITSTATUS (status) != 0) {
        zsys_info ("devices: %s -L failed (status %d): no GPU found by it", command,
                   WIFEXITED (status)? WEXITSTATUS (status): -1);
        return -1;
    }
    return 0;
}

//  Set in bits the GPUs of nvidia-smi -L's "GPU N: ..." lines; returns how many
static uint32_t
s_parse_smi (const char *output, uint8_t *bits)
{
    uint32_t count = 0;
    for (const char *line = output; line && *line; ) {
        const char *at = line;
        if (strncmp (at, "GPU ", 4) == 0) {
            at += 4;
            long index = s_number (&at);
            if (index >= 0 && index <= DROVER_DEVICES_INDEX_MAX && *at == ':'
            &&  !(bits [index / 8] & (1 << (index % 8))) && count < DROVER_DEVICES_COUNT_MAX) {
                bits [index / 8] |= (uint8_t) (1 << (index % 8));
                count++;
            }
        }
        line = strchr (line, '\n');
        if (line)
            line++;
    }
    return count;
}

//  Set in bits the GPUs of <root>/dev/nvidiaN; returns how many
static uint32_t
s_scan_dev (drover_devices_t *self, uint8_t *bits)
{
    char *path = zsys_sprintf ("%s/dev", self->root? self->root: "");
    DIR *dir = opendir (path);
    zstr_free (&path);
    if (!dir)
        return 0;
    uint32_t count = 0;
    struct dirent *entry;
    while ((entry = readdir (dir)) && count < DROVER_DEVICES_COUNT_MAX) {
        if (strncmp (entry->d_name, "nvidia", 6) != 0)
            continue;
        const char *at = entry->d_name + 6;
        long index = s_number (&at);
        if (index < 0 || *at || index > DROVER_DEVICES_INDEX_MAX
        ||  (bits [index / 8] & (1 << (index % 8))))
            continue;                   //  nvidiactl, nvidia-uvm, nvidia-modeset...
        bits [index / 8] |= (uint8_t) (1 << (index % 8));
        count++;
    }
    closedir (dir);
    return count;
}


//  --------------------------------------------------------------------------
//  Detect the GPUs if no gpu was given

uint32_t
drover_devices_detect (drover_devices_t *self)
{
    assert (self);
    if (s_kind (self, DROVER_DEVICES_GPU))
        return 0;                       //  the operator said
    if (self->nkinds >= DROVER_DEVICES_NAMES_MAX)
        return 0;                       //  no room for one more name
    uint8_t bits [(DROVER_DEVICES_INDEX_MAX + 1) / 8] = { 0 };
    uint32_t count = 0;
    if (!self->no_command) {
        char *output = (char *) zmalloc (S_PROBE_OUTPUT);
        assert (output);
        if (s_run_smi (self, output, S_PROBE_OUTPUT) == 0)
            count = s_parse_smi (output, bits);
        free (output);
        if (count) {
            s_add (self, DROVER_DEVICES_GPU, bits, count, S_SOURCE_SMI);
            return count;
        }
    }
    count = s_scan_dev (self, bits);
    if (count)
        s_add (self, DROVER_DEVICES_GPU, bits, count, S_SOURCE_DEV);
    return count;
}


//  --------------------------------------------------------------------------
//  Return where name's devices come from, or NULL

const char *
drover_devices_source (drover_devices_t *self, const char *name)
{
    assert (self);
    s_kind_t *entry = s_kind (self, name);
    return entry? entry->source: NULL;
}


//  --------------------------------------------------------------------------
//  Return the number of names with devices

size_t
drover_devices_size (drover_devices_t *self)
{
    assert (self);
    size_t size = 0;
    for (size_t kind = 0; kind < self->nkinds; kind++)
        if (self->kinds [kind].count)
            size++;
    return size;
}


//  --------------------------------------------------------------------------
//  Return the name at position index among the names with devices, or NULL

const char *
drover_devices_name (drover_devices_t *self, size_t index)
{
    assert (self);
    for (size_t kind = 0; kind < self->nkinds; kind++)
        if (self->kinds [kind].count && index-- == 0)
            return self->kinds [kind].name;
    return NULL;
}


//  --------------------------------------------------------------------------
//  Return how many devices of name the worker has

uint32_t
drover_devices_total (drover_devices_t *self, const char *name)
{
    assert (self);
    s_kind_t *entry = s_kind (self, name);
    return entry? entry->count: 0;
}


//  Return how many of a kind's devices are free
static uint32_t
s_free (s_kind_t *entry)
{
    uint32_t free_count = 0;
    for (uint32_t slot = 0; slot < entry->count; slot++)
        if (!entry->held_by [slot])
            free_count++;
    return free_count;
}


//  --------------------------------------------------------------------------
//  Return how many devices of name no task holds

uint32_t
drover_devices_free (drover_devices_t *self, const char *name)
{
    assert (self);
    s_kind_t *entry = s_kind (self, name);
    return entry? s_free (entry): 0;
}


//  Append to a string of indices (at *text_p, reallocated) the kind's
//  indices that holder holds (NULL: all of them), comma-separated; with
//  ranges, three or more in a row as I-J
static void
s_format (s_kind_t *entry, const char *holder, bool ranges, char **text_p)
{
    char *text = *text_p;
    uint32_t slot = 0;
    while (slot < entry->count) {
        if (holder && !(entry->held_by [slot] && streq (entry->held_by [slot], holder))) {
            slot++;
            continue;
        }
        uint32_t last = slot;
        while (ranges && last + 1 < entry->count
           &&  entry->indices [last + 1] == entry->indices [last] + 1)
            last++;
        const char *comma = *text? ",": "";
        char *longer;
        if (last >= slot + 2) {
            longer = zsys_sprintf ("%s%s%u-%u", text, comma, entry->indices [slot],
                                   entry->indices [last]);
            slot = last + 1;
        }
        else {
            longer = zsys_sprintf ("%s%s%u", text, comma, entry->indices [slot]);
            slot++;
        }
        zstr_free (&text);
        text = longer;
    }
    *text_p = text;
}


//  --------------------------------------------------------------------------
//  Describe the inventory for a log line

char *
drover_devices_describe (drover_devices_t *self)
{
    assert (self);
    char *text = strdup ("");
    assert (text);
    for (size_t kind = 0; kind < self->nkinds; kind++) {
        s_kind_t *entry = &self->kinds [kind];
        if (!entry->count)
            continue;
        char *indices = strdup ("");
        assert (indices);
        s_format (entry, NULL, true, &indices);
        char *longer = zsys_sprintf ("%s%s%s=%s (%s)", text, *text? " ": "", entry->name,
                                     indices, entry->source);
        zstr_free (&indices);
        zstr_free (&text);
        text = longer;
    }
    if (!*text) {
        zstr_free (&text);
        text = strdup ("none");
        assert (text);
    }
    return text;
}


//  --------------------------------------------------------------------------
//  Give holder count free devices of name, the lowest first

int
drover_devices_take (drover_devices_t *self, const char *holder, const char *name,
                     uint32_t count, char **error_p)
{
    assert (self);
    assert (holder);
    assert (error_p);
    s_kind_t *entry = s_kind (self, name);
    if (!entry || !entry->count) {
        *error_p = zsys_sprintf ("this worker has no device %s", name);
        return -1;
    }
    uint32_t free_count = s_free (entry);
    if (free_count < count) {
        *error_p = zsys_sprintf ("%s: %u asked, %u of %u free", name, count, free_count,
                                 entry->count);
        return -1;
    }
    for (uint32_t slot = 0; slot < entry->count && count; slot++)
        if (!entry->held_by [slot]) {
            entry->held_by [slot] = strdup (holder);
            assert (entry->held_by [slot]);
            count--;
        }
    return 0;
}


//  --------------------------------------------------------------------------
//  Give back every device holder holds

uint32_t
drover_devices_give_back (drover_devices_t *self, const char *holder)
{
    assert (self);
    assert (holder);
    uint32_t freed = 0;
    for (size_t kind = 0; kind < self->nkinds; kind++) {
        s_kind_t *entry = &self->kinds [kind];
        for (uint32_t slot = 0; slot < entry->count; slot++)
            if (entry->held_by [slot] && streq (entry->held_by [slot], holder)) {
                zstr_free (&entry->held_by [slot]);
                freed++;
            }
    }
    return freed;
}


//  --------------------------------------------------------------------------
//  Return the indices of name that holder holds, comma-separated

char *
drover_devices_held (drover_devices_t *self, const char *holder, const char *name)
{
    assert (self);
    assert (holder);
    char *text = strdup ("");
    assert (text);
    s_kind_t *entry = s_kind (self, name);
    if (entry)
        s_format (entry, holder, false, &text);
    return text;
}


//  --------------------------------------------------------------------------
//  Return what holder holds, "gpu=0,2;fpga=4", "" if none

char *
drover_devices_assigned (drover_devices_t *self, const char *holder)
{
    assert (self);
    assert (holder);
    char *text = strdup ("");
    assert (text);
    for (size_t kind = 0; kind < self->nkinds; kind++) {
        s_kind_t *entry = &self->kinds [kind];
        char *held = strdup ("");
        assert (held);
        s_format (entry, holder, false, &held);
        if (*held) {
            char *longer = zsys_sprintf ("%s%s%s=%s", text, *text? ";": "", entry->name, held);
            zstr_free (&text);
            text = longer;
        }
        zstr_free (&held);
    }
    return text;
}


//  --------------------------------------------------------------------------
//  Return the environment entries holder's task gets

zlistx_t *
drover_devices_env (drover_devices_t *self, const char *holder)
{
    assert (self);
    assert (holder);
    zlistx_t *env = zlistx_new ();
    assert (env);
    zlistx_set_destructor (env, (zlistx_destructor_fn *) zstr_free);
    for (size_t kind = 0; kind < self->nkinds; kind++) {
        s_kind_t *entry = &self->kinds [kind];
        if (!entry->count)
            continue;
        char *held = strdup ("");
        assert (held);
        s_format (entry, holder, false, &held);
        char upper [DROVER_DEVICES_NAME_MAX + 1];
        size_t at = 0;
        for (; entry->name [at]; at++)
            upper [at] = (char) toupper ((unsigned char) entry->name [at]);
        upper [at] = 0;
        zlistx_add_end (env, zsys_sprintf ("DROVER_DEVICES_%s=%s", upper, held));
        if (streq (entry->name, DROVER_DEVICES_GPU)) {
            zlistx_add_end (env, zsys_sprintf ("CUDA_VISIBLE_DEVICES=%s", held));
            zlistx_add_end (env, strdup ("CUDA_DEVICE_ORDER=PCI_BUS_ID"));
        }
        zstr_free (&held);
    }
    return env;
}


//  True if holder holds any device
static bool
s_holds (drover_devices_t *self, const char *holder)
{
    for (size_t kind = 0; kind < self->nkinds; kind++) {
        s_kind_t *entry = &self->kinds [kind];
        for (uint32_t slot = 0; slot < entry->count; slot++)
            if (entry->held_by [slot] && streq (entry->held_by [slot], holder))
                return true;
    }
    return false;
}


//  --------------------------------------------------------------------------
//  What an offer asks for, all or nothing: take and return the env entries

int
drover_devices_assign (drover_devices_t *self, const char *holder,
                       const drover_devices_request_t *requests, size_t count,
                       zlistx_t **env_p, char **error_p)
{
    assert (self);
    assert (holder);
    assert (env_p);
    assert (error_p);
    if (s_holds (self, holder)) {
        *error_p = zsys_sprintf ("%s holds devices already", holder);
        return -1;
    }
    //  Check every request before taking any: nothing taken on a refusal
    for (size_t index = 0; index < count; index++) {
        const drover_devices_request_t *request = &requests [index];
        s_kind_t *entry = s_kind (self, request->name);
        if (!entry || !entry->count) {
            *error_p = zsys_sprintf ("this worker has no device %s", request->name);
            return -1;
        }
        for (size_t before = 0; before < index; before++)
            if (streq (requests [before].name, request->name)) {
                *error_p = zsys_sprintf ("%s is asked twice", request->name);
                return -1;
            }
        if (request->count == 0) {
            *error_p = zsys_sprintf ("%s: a count of 0 asked", request->name);
            return -1;
        }
        uint32_t free_count = s_free (entry);
        if (free_count < request->count) {
            *error_p = zsys_sprintf ("%s: %u asked, %u of %u free", request->name,
                                     request->count, free_count, entry->count);
            return -1;
        }
    }
    for (size_t index = 0; index < count; index++) {
        int rc = drover_devices_take (self, holder, requests [index].name, requests [index].count,
                                      error_p);
        assert (rc == 0);               //  checked above
    }
    *env_p = drover_devices_env (self, holder);
    return 0;
}
