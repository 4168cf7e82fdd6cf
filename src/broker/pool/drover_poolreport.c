/*  =========================================================================
    drover_poolreport - a pool driver's finished operation, until the
    driver reports it, and the parser of a command driver's list output
    =========================================================================
*/

#include "drover_poolreport.h"
#include "drover_msg.h"

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


//  --------------------------------------------------------------------------
//  Copy the last non-blank line of text into detail, trimmed, control
//  characters made '?', at most DROVER_POOLREPORT_DETAIL_MAX bytes

void
drover_poolreport_last_line (const char *text, size_t size, char *detail, size_t detail_size)
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
    if (length > DROVER_POOLREPORT_DETAIL_MAX)
        length = DROVER_POOLREPORT_DETAIL_MAX;
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
        if (streq (token, "drover-idle") && drover_idle_behaviour_parse (value, &behaviour))
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
            drover_poolreport_last_line (text + start, end - start, sample, sizeof sample);
            zsys_warning ("pooldriver: list line=%zu skipped reason=\"%s\" line=\"%s\"",
                          number, why, sample);
            skipped++;
        }
        free (line);
        start = end + 1;
    }
    return skipped;
}
