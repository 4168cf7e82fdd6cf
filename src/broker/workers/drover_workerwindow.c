/*  =========================================================================
    drover_workerwindow - which worker agents a broker registers (see the
    header)
    =========================================================================
*/

#include "drover_workerwindow.h"
#include "drover_semver.h"

struct _drover_workerwindow_t {
    int min_level;              //  the oldest level taken
    int level;                  //  the broker's own level
    char *release;              //  the broker's own release, owned
    char *min_release;          //  the oldest release taken, "" any, owned
    drover_semver_t oldest;     //  min_release, read (if set)
    char *described;            //  what it takes, for the log, owned
};

//  Create a window
drover_workerwindow_t *
drover_workerwindow_new (int min_level, int level, const char *release,
                         const char *min_release)
{
    assert (min_level >= 1 && min_level <= level);
    assert (release);
    if (!min_release)
        min_release = "";
    if (*min_release && !drover_semver_plain (min_release))
        return NULL;
    drover_workerwindow_t *self = (drover_workerwindow_t *) zmalloc (sizeof (drover_workerwindow_t));
    self->min_level = min_level;
    self->level = level;
    self->release = strdup (release);
    self->min_release = strdup (min_release);
    if (*min_release)
        drover_semver_parse (min_release, &self->oldest);
    self->described = *min_release
        ? zsys_sprintf ("levels %d..%d, release %s or newer", min_level, level, min_release)
        : zsys_sprintf ("levels %d..%d, any release", min_level, level);
    return self;
}

//  Destroy
void
drover_workerwindow_destroy (drover_workerwindow_t **self_p)
{
    assert (self_p);
    drover_workerwindow_t *self = *self_p;
    if (self) {
        zstr_free (&self->release);
        zstr_free (&self->min_release);
        zstr_free (&self->described);
        free (self);
        *self_p = NULL;
    }
}

//  Decide on an agent: NULL to take it, or why not (ours to free)
char *
drover_workerwindow_refuse (drover_workerwindow_t *self, int level, const char *release)
{
    assert (self);
    if (level < 1)
        level = 1;              //  a HELLO without a level: level 1
    if (!release)
        release = "";
    //  What it is, in the reason's words: "release 0.3.0 (level 3)"
    char printable [64];
    snprintf (printable, sizeof printable, "%s", *release? release: "unknown");
    for (char *at = printable; *at; at++)
        if (!isprint ((unsigned char) *at) || *at == ' ')
            *at = '?';
    if (level < self->min_level)
        return zsys_sprintf ("worker release %s (level %d) is older than this broker "
                             "supports: levels %d..%d (this broker: %s, level %d); "
                             "upgrade the worker", printable, level, self->min_level,
                             self->level, self->release, self->level);
    if (!*self->min_release)
        return NULL;            //  any release within the levels
    drover_semver_t semver;
    if (!*release || drover_semver_parse (release, &semver))
        return zsys_sprintf ("worker release %s (level %d) is not known to be one this "
                             "broker supports: %s .. %s and newer (health/min-release); "
                             "upgrade the worker", printable, level, self->min_release,
                             self->release);
    if (drover_semver_compare (&semver, &self->oldest) < 0)
        return zsys_sprintf ("worker release %s (level %d) is older than this broker "
                             "supports: %s .. %s and newer (health/min-release); "
                             "upgrade the worker", printable, level, self->min_release,
                             self->release);
    return NULL;
}

//  Describe what the window takes
const char *
drover_workerwindow_describe (drover_workerwindow_t *self)
{
    assert (self);
    return self->described;
}
