/*  =========================================================================
    drover_sharespec - the broker's share settings, parsed and checked

    Each setting is copied and cut in place (strsep) into entries; names
    are checked as ids (drover_id_valid), sizes as drover_config parses
    them. The spec owns every string it keeps.
    =========================================================================
*/

#include "drover_sharespec.h"
#include "drover_config.h"
#include "drover_msg.h"

//  A declared account
typedef struct {
    char *name;                 //  its name
    char **members;             //  its owners' names
    size_t nmembers;            //  entries in members
} s_account_t;

//  Quotas with the device names they own
typedef struct {
    drover_fairshare_quota_t quota;     //  the quotas; device names point into names
    char *names [DROVER_FAIRSHARE_DEVICES_MAX];    //  device names, owned
} s_quota_t;

struct _drover_sharespec_t {
    s_account_t *accounts;      //  declared accounts, in the order given
    size_t naccounts;           //  entries in accounts
    zhashx_t *members;          //  owner name -> account name (borrowed), to refuse twice
    zhashx_t *weights;          //  name -> weight (a number, not owned)
    zhashx_t *quotas;           //  name -> s_quota_t, owned
};

//  Free a quota record (the quotas hash's destructor)
static void
s_quota_destroy (void **item_p)
{
    s_quota_t *quota = (s_quota_t *) *item_p;
    if (quota) {
        for (size_t index = 0; index < quota->quota.ndevices; index++)
            free (quota->names [index]);
        free (quota);
        *item_p = NULL;
    }
}

//  Destroy the spec
void
drover_sharespec_destroy (drover_sharespec_t **self_p)
{
    assert (self_p);
    drover_sharespec_t *self = *self_p;
    if (!self)
        return;
    for (size_t index = 0; index < self->naccounts; index++) {
        for (size_t member = 0; member < self->accounts [index].nmembers; member++)
            free (self->accounts [index].members [member]);
        free (self->accounts [index].members);
        free (self->accounts [index].name);
    }
    free (self->accounts);
    zhashx_destroy (&self->members);
    zhashx_destroy (&self->weights);
    zhashx_destroy (&self->quotas);
    free (self);
    *self_p = NULL;
}

//  Cut the spaces around a piece of text, in place
static char *
s_trim (char *text)
{
    while (isspace ((unsigned char) *text))
        text++;
    size_t length = strlen (text);
    while (length && isspace ((unsigned char) text [length - 1]))
        text [--length] = 0;
    return text;
}

//  Return an error naming a bad name in a setting
static char *
s_bad_name (const char *setting, const char *what, const char *name)
{
    return zsys_sprintf ("%s: %s \"%s\" is not a name (1 to 64 printable characters, no spaces)",
                         setting, what, name);
}

//  Parse one account entry "NAME:OWNER,OWNER". Returns NULL, or an error.
static char *
s_parse_account (drover_sharespec_t *self, char *entry)
{
    char *colon = strchr (entry, ':');
    if (!colon)
        return zsys_sprintf ("share/accounts: \"%s\" has no ':' between the account and its "
                             "owners (write ACCOUNT:OWNER,OWNER;ACCOUNT:OWNER)", entry);
    *colon = 0;
    char *name = s_trim (entry);
    if (!drover_id_valid (name))
        return s_bad_name ("share/accounts", "account", name);
    for (size_t index = 0; index < self->naccounts; index++)
        if (streq (self->accounts [index].name, name))
            return zsys_sprintf ("share/accounts: account %s is given twice", name);
    self->accounts = (s_account_t *) realloc (self->accounts,
                                              (self->naccounts + 1) * sizeof (s_account_t));
    assert (self->accounts);
    s_account_t *account = &self->accounts [self->naccounts++];
    *account = (s_account_t) { .name = strdup (name) };
    char *rest = s_trim (colon + 1);
    if (!*rest)
        return NULL;            //  no members yet
    char *member;
    while ((member = strsep (&rest, ",")) != NULL) {
        member = s_trim (member);
        if (!*member)
            return zsys_sprintf ("share/accounts: account %s has an empty owner name", name);
        if (!drover_id_valid (member))
            return s_bad_name ("share/accounts", "owner", member);
        const char *other = (const char *) zhashx_lookup (self->members, member);
        if (other && streq (other, name))
            return zsys_sprintf ("share/accounts: owner %s is listed twice in %s", member, name);
        if (other)
            return zsys_sprintf ("share/accounts: owner %s is in %s and in %s (an owner is in "
                                 "one account at most)", member, other, name);
        account->members = (char **) realloc (account->members,
                                              (account->nmembers + 1) * sizeof (char *));
        assert (account->members);
        account->members [account->nmembers++] = strdup (member);
        zhashx_insert (self->members, member, account->name);
    }
    return NULL;
}

//  Parse a whole number in [min, max]. Returns 0, or -1.
static int
s_parse_number (const char *text, uint64_t min, uint64_t max, uint64_t *value_p)
{
    if (!isdigit ((unsigned char) *text))
        return -1;
    errno = 0;
    char *end;
    unsigned long long value = strtoull (text, &end, 10);
    if (errno || *end || value < min || value > max)
        return -1;
    *value_p = value;
    return 0;
}

//  Parse one weight entry "NAME=N". Returns NULL, or an error.
static char *
s_parse_weight (drover_sharespec_t *self, char *entry)
{
    char *equals = strchr (entry, '=');
    if (!equals)
        return zsys_sprintf ("share/weights: \"%s\" has no '=' (write NAME=WEIGHT,NAME=WEIGHT)",
                             entry);
    *equals = 0;
    char *name = s_trim (entry);
    char *text = s_trim (equals + 1);
    if (!drover_id_valid (name))
        return s_bad_name ("share/weights", "account or owner", name);
    if (zhashx_lookup (self->weights, name))
        return zsys_sprintf ("share/weights: %s is given a weight twice", name);
    uint64_t weight;
    if (s_parse_number (text, 1, DROVER_FAIRSHARE_WEIGHT_MAX, &weight))
        return zsys_sprintf ("share/weights: the weight of %s, \"%s\", is not a whole number "
                             "from 1 to %d", name, text, DROVER_FAIRSHARE_WEIGHT_MAX);
    zhashx_insert (self->weights, name, (void *) (uintptr_t) weight);
    return NULL;
}

//  Parse one "KEY=VALUE" of a quota entry into quota. Returns NULL, or an error.
static char *
s_parse_limit (s_quota_t *quota, const char *name, char *item)
{
    char *equals = strchr (item, '=');
    if (!equals)
        return zsys_sprintf ("share/quotas: %s: \"%s\" has no '=' (write procs=N, mem=SIZE, "
                             "queued=N or DEVICE=N)", name, s_trim (item));
    *equals = 0;
    char *key = s_trim (item);
    char *text = s_trim (equals + 1);
    uint64_t value;
    if (streq (key, "mem")) {
        if (drover_config_parse_size (text, &quota->quota.mem))
            return zsys_sprintf ("share/quotas: %s: mem \"%s\" is not a size (512M, 64G)",
                                 name, text);
        return NULL;
    }
    if (s_parse_number (text, 1, UINT32_MAX, &value))
        return zsys_sprintf ("share/quotas: %s: %s \"%s\" is not a whole number from 1 to %u "
                             "(leave it out for no limit)", name, key, text, UINT32_MAX);
    if (streq (key, "procs"))
        quota->quota.procs = (uint32_t) value;
    else
    if (streq (key, "queued"))
        quota->quota.queued = (uint32_t) value;
    else {
        if (!drover_id_valid (key))
            return s_bad_name ("share/quotas", "device", key);
        size_t index = 0;
        while (index < quota->quota.ndevices && !streq (quota->names [index], key))
            index++;
        if (index == DROVER_FAIRSHARE_DEVICES_MAX)
            return zsys_sprintf ("share/quotas: %s: more than %d devices", name,
                                 DROVER_FAIRSHARE_DEVICES_MAX);
        if (index == quota->quota.ndevices) {
            quota->names [index] = strdup (key);
            quota->quota.devices [index].name = quota->names [index];
            quota->quota.ndevices++;
        }
        quota->quota.devices [index].count = (uint32_t) value;
    }
    return NULL;
}

//  Parse one quota entry "NAME:KEY=VALUE,KEY=VALUE". Returns NULL, or an error.
static char *
s_parse_quota (drover_sharespec_t *self, char *entry)
{
    char *colon = strchr (entry, ':');
    if (!colon)
        return zsys_sprintf ("share/quotas: \"%s\" has no ':' between the name and its limits "
                             "(write NAME:procs=N,mem=SIZE;NAME:queued=N)", entry);
    *colon = 0;
    char *name = s_trim (entry);
    if (!drover_id_valid (name))
        return s_bad_name ("share/quotas", "account or owner", name);
    if (zhashx_lookup (self->quotas, name))
        return zsys_sprintf ("share/quotas: %s is given quotas twice", name);
    s_quota_t *quota = (s_quota_t *) zmalloc (sizeof (s_quota_t));
    zhashx_insert (self->quotas, name, quota);
    char *rest = colon + 1;
    char *item;
    while ((item = strsep (&rest, ",")) != NULL) {
        if (!*s_trim (item))
            return zsys_sprintf ("share/quotas: %s has an empty limit", name);
        char *error = s_parse_limit (quota, name, item);
        if (error)
            return error;
    }
    return NULL;
}

//  What parses one entry of a setting
typedef char *(s_parse_fn) (drover_sharespec_t *self, char *entry);

//  Cut a setting into entries at separator and parse each non-empty one.
//  Returns NULL, or an error.
static char *
s_parse_setting (drover_sharespec_t *self, const char *text, const char *separator,
                 s_parse_fn *parse)
{
    if (!text)
        return NULL;
    char *copy = strdup (text);
    char *rest = copy;
    char *entry;
    char *error = NULL;
    while (!error && (entry = strsep (&rest, separator)) != NULL) {
        entry = s_trim (entry);
        if (*entry)
            error = parse (self, entry);
    }
    free (copy);
    return error;
}

//  Parse the three settings
drover_sharespec_t *
drover_sharespec_new (const char *accounts, const char *weights, const char *quotas,
                     char **error_p)
{
    assert (error_p);
    drover_sharespec_t *self = (drover_sharespec_t *) zmalloc (sizeof (drover_sharespec_t));
    self->members = zhashx_new ();
    self->weights = zhashx_new ();
    self->quotas = zhashx_new ();
    zhashx_set_destructor (self->quotas, s_quota_destroy);
    char *error = s_parse_setting (self, accounts, ";", s_parse_account);
    if (!error)
        error = s_parse_setting (self, weights, ",", s_parse_weight);
    if (!error)
        error = s_parse_setting (self, quotas, ";", s_parse_quota);
    if (error) {
        drover_sharespec_destroy (&self);
        *error_p = error;
    }
    return self;
}

//  Return how many accounts are declared
size_t
drover_sharespec_accounts (drover_sharespec_t *self)
{
    assert (self);
    return self->naccounts;
}

//  Return an account by index with its weight and members
const char *
drover_sharespec_account (drover_sharespec_t *self, size_t index, uint32_t *weight_p,
                         const char ***members_p, size_t *nmembers_p)
{
    assert (self);
    assert (index < self->naccounts);
    s_account_t *account = &self->accounts [index];
    if (weight_p) {
        uint32_t weight = drover_sharespec_weight (self, account->name);
        *weight_p = weight? weight: 1;
    }
    if (members_p)
        *members_p = (const char **) account->members;
    if (nmembers_p)
        *nmembers_p = account->nmembers;
    return account->name;
}

//  Return the weight given to a name, or 0
uint32_t
drover_sharespec_weight (drover_sharespec_t *self, const char *name)
{
    assert (self);
    return (uint32_t) (uintptr_t) zhashx_lookup (self->weights, name);
}

//  Return the quotas given to a name, or NULL
const drover_fairshare_quota_t *
drover_sharespec_quota (drover_sharespec_t *self, const char *name)
{
    assert (self);
    s_quota_t *quota = (s_quota_t *) zhashx_lookup (self->quotas, name);
    return quota? &quota->quota: NULL;
}

//  Return true if a name is an account the spec declares
static bool
s_declared (drover_sharespec_t *self, const char *name)
{
    for (size_t index = 0; index < self->naccounts; index++)
        if (streq (self->accounts [index].name, name))
            return true;
    return false;
}

//  Give a fair-share table what the spec says
int
drover_sharespec_apply (drover_sharespec_t *self, drover_fairshare_t *fairshare)
{
    assert (self && fairshare);
    int rc = 0;
    for (size_t index = 0; index < self->naccounts; index++) {
        uint32_t weight;
        const char **members;
        size_t nmembers;
        const char *name = drover_sharespec_account (self, index, &weight, &members, &nmembers);
        if (drover_fairshare_set_account (fairshare, name, weight, members, nmembers))
            rc = -1;
    }
    for (void *item = zhashx_first (self->weights); item; item = zhashx_next (self->weights)) {
        const char *name = (const char *) zhashx_cursor (self->weights);
        if (!s_declared (self, name)
        &&  drover_fairshare_set_owner_weight (fairshare, name, (uint32_t) (uintptr_t) item))
            rc = -1;
    }
    for (s_quota_t *quota = (s_quota_t *) zhashx_first (self->quotas); quota;
         quota = (s_quota_t *) zhashx_next (self->quotas))
        if (drover_fairshare_set_quota (fairshare, (const char *) zhashx_cursor (self->quotas),
                                        &quota->quota))
            rc = -1;
    return rc;
}

//  Check the three settings
int
drover_sharespec_check (const char *accounts, const char *weights, const char *quotas,
                        char **error_p)
{
    drover_sharespec_t *spec = drover_sharespec_new (accounts, weights, quotas, error_p);
    if (!spec)
        return -1;
    drover_sharespec_destroy (&spec);
    return 0;
}
