/*  =========================================================================
    drover_taskopts - the options of one task to submit (see
    drover_taskopts.h)

    The options write straight into a TASK SUBMIT and an exec body (env,
    cwd, stdin); --after's words are kept as given, for the caller to read
    as task ids (`drover submit`) or step names (a workflow file). Times
    are read with the C library's mktime (local) and timegm (UTC).
    =========================================================================
*/

#include "drover_taskopts.h"
#include "drover_client_wire.h"
#include <math.h>
#include <pwd.h>

//  One word of --after, --after-any or --after-fail
typedef struct {
    char *name;                 //  as given: a task id or a step's name, owned
    int kind;                   //  DROVER_AFTER_*
} s_after_t;

struct _drover_taskopts_t {
    drover_msg_t *submit;       //  the TASK SUBMIT the options write into, owned
    drover_exec_t *exec;        //  its body but argv: env, cwd, stdin, owned
    s_after_t *afters;          //  the words of --after*, owned
    size_t nafters;             //  words
    bool retries_set;           //  --retries given (and above 0)
    bool retry_delay_set;       //  --retry-delay given
    bool retry_max_set;         //  --retry-max-delay given
};

//  Create the options of a task
drover_taskopts_t *
drover_taskopts_new (void)
{
    drover_taskopts_t *self = (drover_taskopts_t *) zmalloc (sizeof (drover_taskopts_t));
    self->submit = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    self->submit->procs = 1;
    self->exec = drover_exec_new ();
    //  The owner without --owner: the OS user, when its name is an id
    struct passwd *user = getpwuid (getuid ());
    if (user && user->pw_name && drover_id_valid (user->pw_name))
        snprintf (self->submit->owner, sizeof self->submit->owner, "%s", user->pw_name);
    return self;
}

//  Destroy them
void
drover_taskopts_destroy (drover_taskopts_t **self_p)
{
    assert (self_p);
    drover_taskopts_t *self = *self_p;
    if (!self)
        return;
    for (size_t at = 0; at < self->nafters; at++)
        free (self->afters [at].name);
    free (self->afters);
    drover_exec_destroy (&self->exec);
    drover_msg_destroy (&self->submit);
    free (self);
    *self_p = NULL;
}

//  Say why in error; returns -1
static int
s_fail (char *error, size_t size, const char *format, ...)
{
    va_list args;
    va_start (args, format);
    if (error && size)
        vsnprintf (error, size, format, args);
    va_end (args);
    return -1;
}

//  Parse a whole number within [min, max]
static int
s_parse_int (const char *flag, const char *text, long long min, long long max,
             long long *value_p, char *error, size_t size)
{
    char *end = NULL;
    errno = 0;
    long long value = strtoll (text, &end, 10);
    if (errno || end == text || *end || value < min || value > max)
        return s_fail (error, size, "%s: '%s' is not a whole number from %lld to %lld",
                       flag, text, min, max);
    *value_p = value;
    return 0;
}

//  Parse seconds (decimals allowed) into msec, 0..max seconds
static int
s_parse_seconds (const char *flag, const char *text, double max, uint32_t *msec_p,
                 char *error, size_t size)
{
    char *end = NULL;
    errno = 0;
    double seconds = strtod (text, &end);
    if (errno || end == text || *end || !isfinite (seconds) || seconds < 0 || seconds > max)
        return s_fail (error, size, "%s: '%s' is not a number of seconds from 0 to %.0f",
                       flag, text, max);
    *msec_p = (uint32_t) llround (seconds * 1000);
    return 0;
}

//  --------------------------------------------------------------------------
//  Parse a size: bytes, or a number with K, M, G or T (powers of 1024)

int
drover_taskopts_parse_size (const char *flag, const char *text, uint64_t *bytes_p, char *error,
                            size_t size)
{
    char *end = NULL;
    errno = 0;
    double value = strtod (text, &end);
    double scale = 1;
    if (end != text && *end) {
        switch (toupper ((unsigned char) *end)) {
            case 'K': scale = 1024.0; end++; break;
            case 'M': scale = 1024.0 * 1024; end++; break;
            case 'G': scale = 1024.0 * 1024 * 1024; end++; break;
            case 'T': scale = 1024.0 * 1024 * 1024 * 1024; end++; break;
        }
        if (scale > 1 && (*end == 'i' || *end == 'I'))
            end++;
        if (*end == 'b' || *end == 'B')
            end++;
    }
    value *= scale;
    if (errno || end == text || *end || !isfinite (value) || value < 0 || value > 1e18)
        return s_fail (error, size, "%s: '%s' is not a size (e.g. 512M, 2G, 1048576)",
                       flag, text);
    *bytes_p = (uint64_t) llround (value);
    return 0;
}

//  Read a whole file of at most max bytes; NULL with why in error
static byte *
s_read_file (const char *path, size_t max, size_t *size_p, char *error, size_t size)
{
    FILE *file = streq (path, "-")? stdin: fopen (path, "rb");
    if (!file) {
        s_fail (error, size, "--stdin: cannot read '%s': %s", path, strerror (errno));
        return NULL;
    }
    byte *data = (byte *) malloc (max + 1);
    assert (data);
    size_t got = fread (data, 1, max + 1, file);
    bool failed = ferror (file);
    if (file != stdin)
        fclose (file);
    if (failed || got > max) {
        if (failed)
            s_fail (error, size, "--stdin: cannot read '%s'", path);
        else
            s_fail (error, size, "--stdin: '%s' is larger than %zu bytes", path, max);
        free (data);
        return NULL;
    }
    *size_p = got;
    return data;
}

//  Keep the words of an --after list (comma-separated)
static int
s_add_afters (drover_taskopts_t *self, const char *flag, int kind, const char *list,
              char *error, size_t size)
{
    size_t length = strlen (list);
    if (length == 0 || list [0] == ',' || list [length - 1] == ',' || strstr (list, ",,"))
        return s_fail (error, size, "%s: '%s' has an empty item", flag, list);
    char *copy = strdup (list);
    assert (copy);
    int rc = 0;
    char *word = copy;
    while (rc == 0) {
        char *comma = strchr (word, ',');
        if (comma)
            *comma = 0;
        if (!*word)
            rc = s_fail (error, size, "%s: '%s' has an empty item", flag, list);
        else
        if (self->nafters >= DROVER_AFTER_MAX)
            rc = s_fail (error, size, "%s: at most %d tasks to wait for", flag,
                         DROVER_AFTER_MAX);
        else {
            self->afters = (s_after_t *) realloc (self->afters,
                                                  (self->nafters + 1) * sizeof (s_after_t));
            assert (self->afters);
            self->afters [self->nafters].name = strdup (word);
            self->afters [self->nafters++].kind = kind;
        }
        if (!comma)
            break;
        word = comma + 1;
    }
    free (copy);
    return rc;
}

//  Add the devices of a --device NAME=COUNT[,NAME=COUNT...] to submit (a
//  name given again, in this or an earlier --device, takes the new count)
static int
s_add_devices (drover_msg_t *submit, const char *value, char *error, size_t size)
{
    drover_device_t devices [DROVER_DEVICES_MAX];
    const char *why = NULL;
    int count = drover_devicelist_parse (value, devices, &why);
    if (count <= 0)
        return s_fail (error, size, "--device: '%.64s': %s", value,
                       count == 0? "no NAME=COUNT": why);
    for (int index = 0; index < count; index++)
        if (drover_submit_add_device (drover_submit_of (submit), devices [index].name,
                                      devices [index].count))
            return s_fail (error, size, "--device: at most %d device names",
                           DROVER_DEVICES_MAX);
    return 0;
}

//  Take one option getopt_long found
int
drover_taskopts_apply (drover_taskopts_t *self, int option, const char *value,
                       char *error, size_t size)
{
    assert (self);
    drover_msg_t *submit = self->submit;
    long long number;
    switch (option) {
        case 'p':
            if (s_parse_int ("--priority", value, INT32_MIN, INT32_MAX, &number, error, size))
                return -1;
            submit->priority = (int32_t) number;
            return 0;
        case 'n':
            if (s_parse_int ("--procs", value, 1, 1 << 20, &number, error, size))
                return -1;
            submit->procs = (uint32_t) number;
            return 0;
        case 'm':
            return drover_taskopts_parse_size ("--mem", value, &submit->mem, error, size);
        case 'l':
            if (!drover_label_valid (value))
                return s_fail (error, size, "--label: '%s' is not key=value (key of letters, "
                               "digits, _ . -)", value);
            if (drover_msg_add_label (submit, value))
                return s_fail (error, size, "--label: at most %d labels", DROVER_LABELS_MAX);
            return 0;
        case 't':
            return s_parse_seconds ("--timeout", value, UINT32_MAX / 1000, &submit->timeout,
                                    error, size);
        case DROVER_TASKOPTS_RETRIES:
            if (s_parse_int ("--retries", value, 0, 1000, &number, error, size))
                return -1;
            submit->retries = (uint32_t) number;
            self->retries_set = number > 0;
            return 0;
        case DROVER_TASKOPTS_ENV:
            if (!strchr (value, '=') || value [0] == '=')
                return s_fail (error, size, "--env: '%s' is not NAME=value", value);
            if (drover_exec_add_env (self->exec, value))
                return s_fail (error, size, "--env: too many or too long");
            return 0;
        case DROVER_TASKOPTS_CWD:
            drover_exec_set_cwd (self->exec, value);
            return 0;
        case DROVER_TASKOPTS_STDIN: {
            size_t got;
            byte *input = s_read_file (value, DROVER_INPUT_MAX, &got, error, size);
            if (!input)
                return -1;
            drover_exec_set_input (self->exec, input, got);
            free (input);
            return 0;
        }
        case DROVER_TASKOPTS_SUBMIT_KEY:
            if (drover_submit_set_key (drover_submit_of (submit), value))
                return s_fail (error, size, "--submit-key: '%.40s' is not 1..%d bytes of "
                               "printable ASCII", value, DROVER_KEY_MAX);
            return 0;
        case DROVER_TASKOPTS_AFFINITY:
            if (drover_submit_set_affinity (drover_submit_of (submit), value))
                return s_fail (error, size, "--affinity: '%.40s' is not 1..%d bytes of "
                               "printable ASCII", value, DROVER_KEY_MAX);
            return 0;
        case DROVER_TASKOPTS_AFTER:
            return s_add_afters (self, "--after", DROVER_AFTER_OK, value, error, size);
        case DROVER_TASKOPTS_AFTER_ANY:
            return s_add_afters (self, "--after-any", DROVER_AFTER_ANY, value, error, size);
        case DROVER_TASKOPTS_AFTER_FAIL:
            return s_add_afters (self, "--after-fail", DROVER_AFTER_FAIL, value, error, size);
        case DROVER_TASKOPTS_BEGIN:
            return drover_taskopts_parse_time (value, zclock_time (), &submit->begin,
                                               error, size);
        case DROVER_TASKOPTS_RETRY_DELAY:
            if (s_parse_seconds ("--retry-delay", value, UINT32_MAX / 1000,
                                 &submit->retry_delay, error, size))
                return -1;
            if (submit->retry_delay == 0)
                return s_fail (error, size, "--retry-delay: 0 is no delay (leave it out)");
            self->retry_delay_set = true;
            return 0;
        case DROVER_TASKOPTS_RETRY_MAX_DELAY:
            if (s_parse_seconds ("--retry-max-delay", value, UINT32_MAX / 1000,
                                 &submit->retry_max_delay, error, size))
                return -1;
            if (submit->retry_max_delay == 0)
                return s_fail (error, size, "--retry-max-delay: 0 is the default (leave it out)");
            self->retry_max_set = true;
            return 0;
        case DROVER_TASKOPTS_ARRAY:
            return drover_taskopts_parse_array (value, &submit->array, error, size);
        case DROVER_TASKOPTS_OWNER:
            if (drover_submit_set_owner (drover_submit_of (submit), value))
                return s_fail (error, size, "--owner: '%.64s' is not a name (printable, no "
                               "spaces, 1..%d bytes)", value, DROVER_ID_MAX);
            return 0;
        case DROVER_TASKOPTS_DEVICE:
            return s_add_devices (submit, value, error, size);
        case DROVER_TASKOPTS_PREEMPTIBLE:
            submit->flags |= DROVER_SUBMIT_PREEMPTIBLE;
            return 0;
    }
    return 1;                   //  not a task's option
}

//  Check the options together
int
drover_taskopts_check (drover_taskopts_t *self, char *error, size_t size)
{
    assert (self);
    const drover_msg_t *submit = self->submit;
    if (self->retry_delay_set && !self->retries_set)
        return s_fail (error, size, "--retry-delay does nothing without --retries (how many "
                       "times to run again)");
    if (self->retry_max_set && !self->retry_delay_set)
        return s_fail (error, size, "--retry-max-delay does nothing without --retry-delay");
    if (self->retry_max_set && submit->retry_max_delay < submit->retry_delay)
        return s_fail (error, size, "--retry-max-delay (%.1fs) is less than --retry-delay "
                       "(%.1fs)", submit->retry_max_delay / 1000.0,
                       submit->retry_delay / 1000.0);
    if (submit->array.count && submit->key)
        return s_fail (error, size, "--array and --submit-key: an array's elements have no "
                       "keys of their own; give one or the other");
    return 0;
}

//  Return how many words --after* named
size_t
drover_taskopts_afters (drover_taskopts_t *self)
{
    assert (self);
    return self->nafters;
}

//  Return an --after word as given
const char *
drover_taskopts_after_name (drover_taskopts_t *self, size_t index)
{
    assert (self);
    return index < self->nafters? self->afters [index].name: NULL;
}

//  Return an --after word's kind
int
drover_taskopts_after_kind (drover_taskopts_t *self, size_t index)
{
    assert (self);
    return index < self->nafters? self->afters [index].kind: -1;
}

//  Return the TASK SUBMIT the options write into
drover_msg_t *
drover_taskopts_msg (drover_taskopts_t *self)
{
    assert (self);
    return self->submit;
}

//  Set a submit's body to argv with the options' env, cwd and input
int
drover_taskopts_set_body (drover_taskopts_t *self, drover_msg_t *submit, int argc,
                          const char **argv)
{
    assert (self);
    if (drover_exec_set_argv (self->exec, argc, argv))
        return -1;
    size_t size;
    byte *body = drover_exec_encode (self->exec, &size);
    if (!body)
        return -1;
    drover_msg_set_body (submit, body, size);
    free (body);
    return 0;
}

//  Make a TASK SUBMIT running argv with the options
drover_msg_t *
drover_taskopts_submit (drover_taskopts_t *self, int argc, const char **argv,
                        char *error, size_t size)
{
    assert (self);
    drover_submit_t *made = drover_submit_new (argc, argv);
    if (!made) {
        s_fail (error, size, "the command is too long (at most %d arguments of %d bytes each)",
                DROVER_ARGV_MAX, DROVER_STRING_MAX);
        return NULL;
    }
    drover_msg_t *submit = drover_submit_msg (made);
    const drover_msg_t *from = self->submit;
    submit->priority = from->priority;
    submit->procs = from->procs;
    submit->mem = from->mem;
    submit->timeout = from->timeout;
    submit->retries = from->retries;
    submit->flags = from->flags;
    for (uint32_t at = 0; at < from->nlabels; at++)
        drover_msg_add_label (submit, from->labels [at]);
    if (from->key)
        drover_submit_set_key (made, from->key);
    if (from->affinity)
        drover_submit_set_affinity (made, from->affinity);
    submit->begin = from->begin;
    submit->retry_delay = from->retry_delay;
    submit->retry_max_delay = from->retry_max_delay;
    submit->array = from->array;
    memcpy (submit->owner, from->owner, sizeof submit->owner);
    submit->ndevices = from->ndevices;
    memcpy (submit->devices, from->devices, sizeof submit->devices);
    if (drover_taskopts_set_body (self, submit, argc, argv)) {
        drover_submit_destroy (&made);
        s_fail (error, size, "the command and its --env, --cwd and --stdin are too long");
        return NULL;
    }
    return submit;
}


//  ---------------------------------------------------------------------
//  Times and array specs

//  Read digits into *value (at most max_digits, at least 1); returns the
//  cursor after them, or NULL
static const char *
s_digits (const char *cursor, int min_digits, int max_digits, int *value)
{
    int count = 0, number = 0;
    while (count < max_digits && isdigit ((unsigned char) cursor [count])) {
        number = number * 10 + (cursor [count] - '0');
        count++;
    }
    if (count < min_digits)
        return NULL;
    *value = number;
    return cursor + count;
}

//  Read "HH:MM[:SS]" into tm's hour, minute and second; returns the cursor
//  after it, or NULL
static const char *
s_clock (const char *cursor, struct tm *tm)
{
    cursor = s_digits (cursor, 1, 2, &tm->tm_hour);
    if (!cursor || *cursor != ':')
        return NULL;
    cursor = s_digits (cursor + 1, 2, 2, &tm->tm_min);
    if (cursor && *cursor == ':')
        cursor = s_digits (cursor + 1, 2, 2, &tm->tm_sec);
    if (!cursor || tm->tm_hour > 23 || tm->tm_min > 59 || tm->tm_sec > 60)
        return NULL;
    return cursor;
}

//  Parse --begin's TIME into msec since the epoch
int
drover_taskopts_parse_time (const char *text, int64_t now, uint64_t *msec_p,
                            char *error, size_t size)
{
    assert (text && msec_p);
    const char *shape = "a time: 'YYYY-MM-DDTHH:MM[:SS][Z]', 'HH:MM[:SS]' or "
                        "'+N' with s, m, h or d";
    int64_t msec = 0;
    if (*text == '+') {
        char *end = NULL;
        errno = 0;
        long long count = strtoll (text + 1, &end, 10);
        int64_t unit = !end || end == text + 1 || end [0] == 0 || end [1]? 0:
                       *end == 's'? 1000: *end == 'm'? 60000: *end == 'h'? 3600000:
                       *end == 'd'? 86400000: 0;
        if (errno || !isdigit ((unsigned char) text [1]) || unit == 0
        ||  count < 1 || count > 3650LL * 86400000 / unit)
            return s_fail (error, size, "--begin: '%s' is not %s (e.g. +30s, +10m, +2h, +1d; "
                           "above 0, within 10 years)", text, shape);
        msec = now + count * unit;
    }
    else {
        struct tm tm = { 0 };
        time_t seconds = (time_t) (now / 1000);
        localtime_r (&seconds, &tm);
        tm.tm_sec = 0;
        const char *cursor = text;
        bool date = strlen (text) >= 10 && text [4] == '-';
        if (date) {
            cursor = s_digits (cursor, 4, 4, &tm.tm_year);
            if (cursor && *cursor == '-')
                cursor = s_digits (cursor + 1, 2, 2, &tm.tm_mon);
            else
                cursor = NULL;
            if (cursor && *cursor == '-')
                cursor = s_digits (cursor + 1, 2, 2, &tm.tm_mday);
            else
                cursor = NULL;
            if (cursor && (*cursor == 'T' || *cursor == ' '))
                cursor++;
            else
                cursor = NULL;
        }
        if (cursor)
            cursor = s_clock (cursor, &tm);
        bool utc = cursor && date && *cursor == 'Z';
        if (utc)
            cursor++;
        if (!cursor || *cursor
        ||  (date && (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31)))
            return s_fail (error, size, "--begin: '%s' is not %s", text, shape);
        if (date) {
            tm.tm_year -= 1900;
            tm.tm_mon -= 1;
        }
        tm.tm_isdst = -1;
        int hour = tm.tm_hour, minute = tm.tm_min, second = tm.tm_sec;
        time_t when = utc? timegm (&tm): mktime (&tm);
        if (when == (time_t) -1)
            return s_fail (error, size, "--begin: '%s' is not %s", text, shape);
        if (!date && (int64_t) when * 1000 <= now) {
            //  The next such time: tomorrow's (mktime mends the day)
            struct tm next = { 0 };
            seconds = (time_t) (now / 1000);
            localtime_r (&seconds, &next);
            next.tm_mday += 1;
            next.tm_hour = hour;
            next.tm_min = minute;
            next.tm_sec = second;
            next.tm_isdst = -1;
            when = mktime (&next);
        }
        msec = (int64_t) when * 1000;
        if (date && msec <= now)
            return s_fail (error, size, "--begin: '%s' is past already (it would wait for "
                           "nothing)", text);
    }
    *msec_p = (uint64_t) msec;
    return 0;
}

//  Read an unsigned 32-bit number; returns the cursor after it, or NULL
static const char *
s_uint32 (const char *cursor, uint32_t *value)
{
    if (!isdigit ((unsigned char) *cursor))
        return NULL;
    char *end = NULL;
    errno = 0;
    unsigned long long number = strtoull (cursor, &end, 10);
    if (errno || number > UINT32_MAX)
        return NULL;
    *value = (uint32_t) number;
    return end;
}

//  Parse --array's SPEC
int
drover_taskopts_parse_array (const char *text, drover_array_spec_t *array,
                             char *error, size_t size)
{
    assert (text && array);
    uint32_t first = 0, last = 0, step = 1, limit = 0;
    const char *cursor = s_uint32 (text, &first);
    if (cursor && *cursor == '-')
        cursor = s_uint32 (cursor + 1, &last);
    else
        cursor = NULL;
    if (cursor && *cursor == ':')
        cursor = s_uint32 (cursor + 1, &step);
    if (cursor && *cursor == '%')
        cursor = s_uint32 (cursor + 1, &limit);
    if (!cursor || *cursor)
        return s_fail (error, size, "--array: '%s' is not FIRST-LAST[:STEP][%%MAX] "
                       "(e.g. 0-999, 1-99:2, 0-999%%50)", text);
    if (last < first)
        return s_fail (error, size, "--array: '%s': the last index is below the first", text);
    if (step == 0)
        return s_fail (error, size, "--array: '%s': a step of 0 goes nowhere", text);
    uint64_t count = ((uint64_t) last - first) / step + 1;
    if (count > DROVER_ARRAY_MAX)
        return s_fail (error, size, "--array: '%s' makes %llu elements, at most %d", text,
                       (unsigned long long) count, DROVER_ARRAY_MAX);
    if (strchr (text, '%') && limit == 0)
        return s_fail (error, size, "--array: '%s': %%0 would run nothing (leave %%MAX out "
                       "for no limit)", text);
    if (limit >= count)
        return s_fail (error, size, "--array: '%s': %%%u limits nothing, the array has %llu "
                       "elements (leave %%MAX out)", text, limit, (unsigned long long) count);
    array->first = first;
    array->step = step;
    array->count = (uint32_t) count;
    array->limit = limit;
    return 0;
}
