/*  =========================================================================
    drover_configcheck - settings that take effect only together: one
    changed from its default whose partner is missing would do nothing,
    silently (pool settings without an instance type, ha/... without
    ha/etcd...). One table of rules; drover_config_check_together refuses
    what breaks one, drover_config_idle says what a switch turned off on
    purpose (durability off) leaves idle. Declared in drover_config.h.
    =========================================================================
*/

#include "drover_config.h"

//  What makes the settings of a rule below take effect: one predicate each
static bool
s_has_types (const drover_config_t *self)
{
    return self->pool.ntypes > 0;
}

static bool
s_driver_command (const drover_config_t *self)
{
    return streq (self->pool.driver, "command");
}

static bool
s_driver_local (const drover_config_t *self)
{
    return streq (self->pool.driver, "local");
}

//  Boot probes run: pool/probe on, or auto with the local driver
static bool
s_pool_probes (const drover_config_t *self)
{
    return streq (self->pool.probe, "on")
        || (streq (self->pool.probe, "auto") && streq (self->pool.driver, "local"));
}

static bool
s_create_backoff (const drover_config_t *self)
{
    return self->pool.create_backoff > 0;
}

static bool
s_has_price (const drover_config_t *self)
{
    for (size_t index = 0; index < self->pool.ntypes; index++)
        if (self->pool.types [index].price > 0)
            return true;
    return false;
}

static bool
s_has_etcd (const drover_config_t *self)
{
    return *self->ha.etcd != 0;
}

static bool
s_has_key (const drover_config_t *self)
{
    return *self->security_key != 0;
}

static bool
s_has_keys (const drover_config_t *self)
{
    return *self->security_keys != 0;
}

static bool
s_has_metrics (const drover_config_t *self)
{
    return *self->metrics != 0;
}

static bool
s_durability_batch (const drover_config_t *self)
{
    return streq (self->durability, "batch");
}

static bool
s_preemption_on (const drover_config_t *self)
{
    return streq (self->preemption, "on");
}

static bool
s_durability_kept (const drover_config_t *self)
{
    return !streq (self->durability, "off");
}

//  Settings (a path, or a section's prefix ending in '/') that do nothing
//  unless holds: changed from its default while it does not hold, the
//  broker refuses to start (or, warn_only, says so in its log: a switch
//  turned off on purpose, as durability off for a run that keeps nothing)
typedef struct {
    const char *paths [6];      //  paths or "section/" prefixes, NULL-ended
    bool (*holds) (const drover_config_t *self);    //  what makes them work
    const char *needs;          //  "needs ..." what is missing
    bool warn_only;             //  log a warning instead of refusing
} s_together_t;

static const s_together_t s_together [] = {
    { { "pool/", NULL }, s_has_types,
      "an instance type to start any instance: set pool/type/NAME/procs (and memory, labels, "
      "price); without one there is no pool", false },
    { { "pool/command", NULL }, s_driver_command,
      "pool/driver = command (pool/driver is local)", false },
    { { "pool/worker", "pool/local-dir", NULL }, s_driver_local,
      "pool/driver = local (pool/driver is command)", false },
    { { "pool/max-price", NULL }, s_has_price,
      "a price on an instance type (pool/type/NAME/price): with none, no instance costs "
      "anything and the limit never applies", false },
    { { "pool/probes-per-second", "pool/probe-interval", NULL }, s_pool_probes,
      "boot probes: pool/probe = on (or auto with the local driver); with the command driver "
      "and pool/probe auto or off, a registered instance counts as probed", false },
    { { "pool/create-backoff-max", NULL }, s_create_backoff,
      "pool/create-backoff above 0 (it is 0: failed creates are never backed off)", false },
    { { "ha/", NULL }, s_has_etcd,
      "several brokers: set ha/etcd too (etcd's client URLs, where they elect a leader)",
      false },
    { { "security/keys", NULL }, s_has_key,
      "the broker's own key pair to use CURVE: set security/key (--key) too", false },
    { { "security/key", NULL }, s_has_keys,
      "the public keys allowed in: set security/keys (--keys) too; with none no key could "
      "connect", false },
    { { "broker/metrics-public", NULL }, s_has_metrics,
      "an address to serve on: set broker/metrics (--metrics) too", false },
    { { "broker/commit-every", NULL }, s_durability_batch,
      "broker/durability = batch (with full every change commits at once, with off "
      "nothing does)", false },
    { { "sched/preempt-max", NULL }, s_preemption_on,
      "sched/preemption = on (it is off: nothing is ever preempted)", false },
    { { "store/", "assign/restart-grace", "broker/state-dir", NULL }, s_durability_kept,
      "a kept state, and broker/durability is off: nothing is kept", true },
};
#define S_TOGETHER (sizeof s_together / sizeof s_together [0])

//  Tell whether a setting's path is one of a rule's
static bool
s_together_covers (const s_together_t *rule, const char *path)
{
    for (size_t index = 0; rule->paths [index]; index++) {
        const char *entry = rule->paths [index];
        size_t length = strlen (entry);
        if (entry [length - 1] == '/'? strncmp (path, entry, length) == 0: streq (path, entry))
            return true;
    }
    return false;
}

//  The settings of a rule that changed from their defaults while it does
//  not hold, "a, b" (ours to free), or NULL if none
static char *
s_together_idle (drover_config_t *self, const s_together_t *rule)
{
    if (rule->holds (self))
        return NULL;
    char *list = NULL;
    const char *path;
    for (size_t index = 0; (path = drover_config_path (index)); index++) {
        if (!s_together_covers (rule, path) || drover_config_is_default (self, index))
            continue;
        char *longer = zsys_sprintf ("%s%s%s", list? list: "", list? ", ": "", path);
        zstr_free (&list);
        list = longer;
    }
    return list;
}

//  Say a rule's idle settings: "a, b need ..." (ours to free)
static char *
s_together_say (const s_together_t *rule, const char *list)
{
    return zsys_sprintf ("%s %s %s", list, strchr (list, ',')? "need": "needs", rule->needs);
}

//  Refuse settings that would do nothing: every rule broken, one a line
int
drover_config_check_together (drover_config_t *self, char **error_p)
{
    assert (self);
    int rc = 0;
    for (size_t index = 0; index < S_TOGETHER; index++) {
        if (s_together [index].warn_only)
            continue;
        char *list = s_together_idle (self, &s_together [index]);
        if (list) {
            char *sentence = s_together_say (&s_together [index], list);
            drover_config_add_error (error_p, &sentence);
            zstr_free (&list);
            rc = -1;
        }
    }
    return rc;
}

//  Say which settings do nothing by another's choice
char *
drover_config_idle (drover_config_t *self)
{
    assert (self);
    char *said = NULL;
    for (size_t index = 0; index < S_TOGETHER; index++) {
        if (!s_together [index].warn_only)
            continue;
        char *list = s_together_idle (self, &s_together [index]);
        if (list) {
            char *sentence = s_together_say (&s_together [index], list);
            char *longer = zsys_sprintf ("%s%s%s", said? said: "", said? "; ": "", sentence);
            zstr_free (&sentence);
            zstr_free (&said);
            zstr_free (&list);
            said = longer;
        }
    }
    return said;
}
