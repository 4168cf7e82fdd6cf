/*  =========================================================================
    drover_pooldriver - creates, lists, tags and destroys the pool's
    instances, through the `local` or the `command` driver

    This file is what both drivers share: the queue of finished operations
    (drover_poolreport_t, reported by drover_pooldriver_process), the list
    format's parser, and the dispatch to the driver the config names
    (drover_poolcommand.c, drover_poollocal.c).
    =========================================================================
*/

#include "drover_pooldriver_internal.h"
#include "drover_msg.h"
#include <errno.h>
#include <unistd.h>

//  ---------------------------------------------------------------------
//  A finished operation, until reported

struct _drover_poolreport_t {
    drover_pooldone_t done;         //  what the callback sees; strings below
    char *instance;                 //  the instance, owned; NULL for LIST
    char *detail;                   //  what the driver said, owned
    drover_poolentry_t *entries;    //  listed instances, strings owned
    size_t nentries;                //  entries used
    size_t alloc;                   //  room in entries
};


//  --------------------------------------------------------------------------
//  Create a report of an operation

drover_poolreport_t *
drover_poolreport_new (drover_poolaction_kind_t kind, const char *instance,
                       drover_poolop_result_t result, const char *detail)
{
    drover_poolreport_t *self = (drover_poolreport_t *) zmalloc (sizeof (drover_poolreport_t));
    self->done.kind = kind;
    self->done.result = result;
    self->instance = instance? strdup (instance): NULL;
    self->detail = strdup (detail? detail: "");
    assert (self->detail);
    return self;
}


//  --------------------------------------------------------------------------
//  Destroy a report

void
drover_poolreport_destroy (drover_poolreport_t **self_p)
{
    assert (self_p);
    drover_poolreport_t *self = *self_p;
    if (!self)
        return;
    for (size_t index = 0; index < self->nentries; index++) {
        free ((char *) self->entries [index].name);
        free ((char *) self->entries [index].type);
        free ((char *) self->entries [index].pool);
    }
    free (self->entries);
    free (self->instance);
    free (self->detail);
    free (self);
    *self_p = NULL;
}


//  --------------------------------------------------------------------------
//  Add a listed instance to a LIST report

void
drover_poolreport_add (drover_poolreport_t *self, const char *name, const char *type,
                       const char *pool, drover_idle_behaviour_t behaviour)
{
    assert (self);
    if (self->nentries == self->alloc) {
        self->alloc = self->alloc? self->alloc * 2: 16;
        self->entries = (drover_poolentry_t *) realloc (self->entries,
                                                        self->alloc * sizeof (drover_poolentry_t));
        assert (self->entries);
    }
    drover_poolentry_t *entry = &self->entries [self->nentries++];
    entry->name = strdup (name);
    entry->type = strdup (type? type: "");
    entry->pool = strdup (pool? pool: "");
    entry->behaviour = behaviour;
    assert (entry->name && entry->type && entry->pool);
}


//  --------------------------------------------------------------------------
//  Return the report as the callback sees it

const drover_pooldone_t *
drover_poolreport_done (drover_poolreport_t *self)
{
    assert (self);
    self->done.instance = self->instance;
    self->done.detail = self->detail;
    self->done.entries = self->entries;
    self->done.nentries = self->nentries;
    return &self->done;
}


//  The destructor the queue of reports uses
static void
s_report_destructor (void **item_p)
{
    drover_poolreport_destroy ((drover_poolreport_t **) item_p);
}


//  --------------------------------------------------------------------------
//  Return a behaviour's name

const char *
drover_poolidle_name (drover_idle_behaviour_t behaviour)
{
    return behaviour == DROVER_IDLE_HOLD? "hold":
           behaviour == DROVER_IDLE_DRAIN? "drain": "run";
}


//  --------------------------------------------------------------------------
//  Parse a behaviour's name. Returns 0, or -1 if unknown.

int
drover_poolidle_parse (const char *name, drover_idle_behaviour_t *behaviour_p)
{
    if (streq (name, "run"))
        *behaviour_p = DROVER_IDLE_RUN;
    else
    if (streq (name, "hold"))
        *behaviour_p = DROVER_IDLE_HOLD;
    else
    if (streq (name, "drain"))
        *behaviour_p = DROVER_IDLE_DRAIN;
    else
        return -1;
    return 0;
}


//  --------------------------------------------------------------------------
//  Copy the last non-blank line of text into detail, trimmed, control
//  characters made '?', at most DROVER_POOLDRIVER_DETAIL_MAX bytes

void
drover_pooldriver_last_line (const char *text, size_t size, char *detail, size_t detail_size)
{
    assert (detail_size > 0);
    size_t end = size;
    while (end > 0 && isspace ((unsigned char) text [end - 1]))
        end--;
    size_t start = end;
    while (start > 0 && text [start - 1] != '\n')
        start--;
    while (start < end && isspace ((unsigned char) text [start]))
        start++;
    size_t length = end - start;
    if (length > DROVER_POOLDRIVER_DETAIL_MAX)
        length = DROVER_POOLDRIVER_DETAIL_MAX;
    if (length > detail_size - 1)
        length = detail_size - 1;
    for (size_t index = 0; index < length; index++) {
        unsigned char c = (unsigned char) text [start + index];
        detail [index] = (c < 32 || c == 127)? '?': (char) c;
    }
    detail [length] = 0;
}


//  Parse one list line (NUL-terminated, modified) into self. Returns NULL,
//  or why the line is malformed.
static const char *
s_parse_line (drover_poolreport_t *self, char *line)
{
    char *save = NULL;
    char *name = strtok_r (line, " \t\r", &save);
    char *type = strtok_r (NULL, " \t\r", &save);
    if (!name || !type)
        return "no NAME TYPE";
    if (!drover_id_valid (name) || strchr (name, '='))
        return "bad NAME";
    if (strchr (type, '='))
        return "no TYPE";
    const char *pool = "";
    drover_idle_behaviour_t behaviour = DROVER_IDLE_RUN;
    char *token;
    while ((token = strtok_r (NULL, " \t\r", &save))) {
        char *equal = strchr (token, '=');
        if (!equal || equal == token)
            return "a tag is not key=value";
        *equal = 0;
        const char *value = equal + 1;
        if (streq (token, "drover-pool"))
            pool = value;
        else
        if (streq (token, "drover-idle") && drover_poolidle_parse (value, &behaviour))
            return "bad drover-idle (run, hold or drain)";
    }
    drover_poolreport_add (self, name, streq (type, "-")? "": type, pool, behaviour);
    return NULL;
}


//  --------------------------------------------------------------------------
//  Parse a command's list output into a LIST report. Returns how many
//  lines were skipped as malformed.

size_t
drover_poolreport_parse (drover_poolreport_t *self, const char *text, size_t size)
{
    assert (self);
    size_t skipped = 0;
    size_t number = 0;
    size_t start = 0;
    while (start < size) {
        size_t end = start;
        while (end < size && text [end] != '\n')
            end++;
        number++;
        char *line = (char *) malloc (end - start + 1);
        assert (line);
        memcpy (line, text + start, end - start);
        line [end - start] = 0;
        char *first = line;
        while (isspace ((unsigned char) *first))
            first++;
        const char *why = NULL;
        if (*first && *first != '#') {
            if (strlen (first) != end - start - (size_t) (first - line))
                why = "a NUL byte";
            else
                why = s_parse_line (self, first);
        }
        if (why) {
            char sample [64];
            drover_pooldriver_last_line (text + start, end - start, sample, sizeof sample);
            zsys_warning ("pooldriver: list line=%zu skipped reason=\"%s\" line=\"%s\"",
                          number, why, sample);
            skipped++;
        }
        free (line);
        start = end + 1;
    }
    return skipped;
}


//  ---------------------------------------------------------------------
//  The driver

struct _drover_pooldriver_t {
    drover_poolcommand_t *command;  //  the command driver, or NULL
    drover_poollocal_t *local;      //  the local driver, or NULL
    zlistx_t *done;                 //  finished operations to report, drover_poolreport_t
};


//  Make the local driver's directory path: config's, else state_dir/pool,
//  else a fresh temporary directory. Returns a fresh string or NULL.
static char *
s_local_dir (const drover_poolconfig_t *config, const char *state_dir)
{
    if (config->local_dir && *config->local_dir) {
        zsys_info ("pooldriver: driver=local dir=%s (pool/local-dir)", config->local_dir);
        return strdup (config->local_dir);
    }
    if (state_dir && *state_dir) {
        char *dir = zsys_sprintf ("%s/pool", state_dir);
        zsys_info ("pooldriver: driver=local dir=%s (in the state directory)", dir);
        return dir;
    }
    const char *tmp = getenv ("TMPDIR");
    char *dir = zsys_sprintf ("%s/drover-pool-XXXXXX", tmp && *tmp? tmp: "/tmp");
    if (!mkdtemp (dir)) {
        zstr_free (&dir);
        return NULL;
    }
    zsys_info ("pooldriver: driver=local dir=%s (a temporary directory: the broker keeps "
               "no state, a restart will not find these instances)", dir);
    return dir;
}


//  --------------------------------------------------------------------------
//  Create the driver config->driver names

drover_pooldriver_t *
drover_pooldriver_new (const drover_poolconfig_t *config, const char *broker,
                       const char *state_dir, char **error_p)
{
    assert (config);
    assert (broker);
    assert (error_p);
    *error_p = NULL;
    const char *pool = config->name? config->name: "";
    drover_pooldriver_t *self = (drover_pooldriver_t *) zmalloc (sizeof (drover_pooldriver_t));
    self->done = zlistx_new ();
    zlistx_set_destructor (self->done, s_report_destructor);
    if (config->driver && streq (config->driver, "command"))
        self->command = drover_poolcommand_new (config->command, pool, broker, config->types,
                                                config->ntypes, config->op_timeout, error_p);
    else
    if (config->driver && streq (config->driver, "local")) {
        char *dir = s_local_dir (config, state_dir);
        if (dir)
            self->local = drover_poollocal_new (dir, config->worker, pool, broker, error_p);
        else
            *error_p = zsys_sprintf ("pool/local-dir: cannot make a temporary directory: %s",
                                     strerror (errno));
        zstr_free (&dir);
    }
    else
        *error_p = zsys_sprintf ("pool/driver: '%s' is not a driver (local or command)",
                                 config->driver? config->driver: "");
    if (!self->command && !self->local) {
        assert (*error_p);
        drover_pooldriver_destroy (&self);
    }
    return self;
}


//  --------------------------------------------------------------------------
//  Destroy a driver: running commands are killed and not reported

void
drover_pooldriver_destroy (drover_pooldriver_t **self_p)
{
    assert (self_p);
    drover_pooldriver_t *self = *self_p;
    if (!self)
        return;
    drover_poolcommand_destroy (&self->command);
    drover_poollocal_destroy (&self->local);
    zlistx_destroy (&self->done);
    free (self);
    *self_p = NULL;
}


//  Start an operation with the driver there is
static void
s_start (drover_pooldriver_t *self, drover_poolaction_kind_t kind, const char *name,
         const drover_pooltype_t *type, drover_idle_behaviour_t behaviour)
{
    assert (self);
    if (self->command)
        drover_poolcommand_start (self->command, kind, name, type, behaviour, self->done);
    else
        drover_poollocal_start (self->local, kind, name, type, behaviour, self->done);
}


//  --------------------------------------------------------------------------
//  Start creating an instance of type named name with an idle behaviour

void
drover_pooldriver_create (drover_pooldriver_t *self, const drover_pooltype_t *type,
                          const char *name, drover_idle_behaviour_t behaviour)
{
    assert (type);
    assert (name);
    s_start (self, DROVER_POOL_CREATE, name, type, behaviour);
}


//  --------------------------------------------------------------------------
//  Start destroying an instance

void
drover_pooldriver_destroy_instance (drover_pooldriver_t *self, const char *name)
{
    assert (name);
    s_start (self, DROVER_POOL_DESTROY, name, NULL, DROVER_IDLE_RUN);
}


//  --------------------------------------------------------------------------
//  Start setting an instance's idle-behaviour tag

void
drover_pooldriver_tag (drover_pooldriver_t *self, const char *name,
                       drover_idle_behaviour_t behaviour)
{
    assert (name);
    s_start (self, DROVER_POOL_TAG, name, NULL, behaviour);
}


//  --------------------------------------------------------------------------
//  Start listing the instances

void
drover_pooldriver_list (drover_pooldriver_t *self)
{
    s_start (self, DROVER_POOL_LIST, NULL, NULL, DROVER_IDLE_RUN);
}


//  --------------------------------------------------------------------------
//  Return how many operations are running (started, not yet reported)

size_t
drover_pooldriver_running (drover_pooldriver_t *self)
{
    assert (self);
    size_t running = zlistx_size (self->done);
    if (self->command)
        running += drover_poolcommand_running (self->command);
    return running;
}


//  --------------------------------------------------------------------------
//  Return how many poll items the driver needs now

size_t
drover_pooldriver_items (drover_pooldriver_t *self)
{
    assert (self);
    return self->command? drover_poolcommand_items (self->command):
                          drover_poollocal_items (self->local);
}


//  --------------------------------------------------------------------------
//  Fill up to max items with the fds to watch; returns how many

size_t
drover_pooldriver_fill (drover_pooldriver_t *self, zmq_pollitem_t *items, size_t max)
{
    assert (self);
    return self->command? drover_poolcommand_fill (self->command, items, max):
                          drover_poollocal_fill (self->local, items, max);
}


//  --------------------------------------------------------------------------
//  After a wait: read the items, reap, enforce op-timeouts, and report each
//  finished operation to fn. Only what finished before the first report is
//  reported now, so a callback that starts operations cannot keep us here.

void
drover_pooldriver_process (drover_pooldriver_t *self, zmq_pollitem_t *items, size_t count,
                           uint64_t now, drover_pooldone_fn *fn, void *arg)
{
    assert (self);
    assert (fn);
    if (self->command)
        drover_poolcommand_process (self->command, items, count, now, self->done);
    else
        drover_poollocal_process (self->local, items, count);
    size_t pending = zlistx_size (self->done);
    while (pending--) {
        drover_poolreport_t *report = (drover_poolreport_t *) zlistx_first (self->done);
        zlistx_detach_cur (self->done);
        fn (drover_poolreport_done (report), arg);
        drover_poolreport_destroy (&report);
    }
}


//  --------------------------------------------------------------------------
//  Return the next msec at which process must run without an fd ready

uint64_t
drover_pooldriver_next_deadline (drover_pooldriver_t *self)
{
    assert (self);
    if (zlistx_size (self->done))
        return 0;                   //  reports to hand over: now
    return self->command? drover_poolcommand_next_deadline (self->command): UINT64_MAX;
}
