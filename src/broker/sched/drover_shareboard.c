/*  =========================================================================
    drover_shareboard - the share settings in force, and SHARE TABLE

    The settings and the admin's entries are kept as text by name, in
    the order first given (zlistx of s_entry_t, per kind); the settings
    were checked by drover_sharespec before they are cut here, so a plain
    split is enough. The texts in force are made from both and parsed
    again; the names of the last texts in force say what to undo.
    =========================================================================
*/

#include "drover_shareboard.h"
#include "drover_devicelist.h"
#include "drover_sharespec.h"

//  One name's entry in a setting: "name:text" or "name=text"
typedef struct {
    char *name;                 //  the account's or owner's name
    char *text;                 //  members, weight or quota text
} s_entry_t;

//  What an admin said of a name
typedef struct {
    uint32_t weight;            //  0: none
    char *members;              //  comma-separated, or NULL: none said
    char *quota;                //  quota text, or NULL: none said
} s_admin_t;

//  The kinds of entry
enum { S_ACCOUNTS, S_WEIGHTS, S_QUOTAS, S_KINDS };

struct _drover_shareboard_t {
    drover_fairshare_t *fairshare;  //  the table set (borrowed)
    zlistx_t *settings [S_KINDS];   //  the broker's settings, s_entry_t each
    zhashx_t *admin;            //  name -> s_admin_t
    zlistx_t *admin_order;      //  names the admin set, in order first set (owned)
    char *texts [S_KINDS];      //  the texts in force
    zhashx_t *applied [S_KINDS];    //  names in the texts in force -> "" (for undoing)
};

//  Free an entry (the lists' destructor)
static void
s_entry_destroy (void **item_p)
{
    s_entry_t *entry = (s_entry_t *) *item_p;
    if (entry) {
        free (entry->name);
        free (entry->text);
        free (entry);
        *item_p = NULL;
    }
}

//  Free an admin's entry (the hash's destructor)
static void
s_admin_destroy (void **item_p)
{
    s_admin_t *admin = (s_admin_t *) *item_p;
    if (admin) {
        free (admin->members);
        free (admin->quota);
        free (admin);
        *item_p = NULL;
    }
}

//  Create a board
drover_shareboard_t *
drover_shareboard_new (drover_fairshare_t *fairshare)
{
    assert (fairshare);
    drover_shareboard_t *self = (drover_shareboard_t *) zmalloc (sizeof (drover_shareboard_t));
    self->fairshare = fairshare;
    for (int kind = 0; kind < S_KINDS; kind++) {
        self->settings [kind] = zlistx_new ();
        zlistx_set_destructor (self->settings [kind], s_entry_destroy);
        self->texts [kind] = strdup ("");
        self->applied [kind] = zhashx_new ();
    }
    self->admin = zhashx_new ();
    zhashx_set_destructor (self->admin, s_admin_destroy);
    self->admin_order = zlistx_new ();
    zlistx_set_destructor (self->admin_order, (zlistx_destructor_fn *) zstr_free);
    zlistx_set_duplicator (self->admin_order, (zlistx_duplicator_fn *) strdup);
    zlistx_set_comparator (self->admin_order, (zlistx_comparator_fn *) strcmp);
    return self;
}

//  Destroy the board
void
drover_shareboard_destroy (drover_shareboard_t **self_p)
{
    assert (self_p);
    drover_shareboard_t *self = *self_p;
    if (self) {
        for (int kind = 0; kind < S_KINDS; kind++) {
            zlistx_destroy (&self->settings [kind]);
            free (self->texts [kind]);
            zhashx_destroy (&self->applied [kind]);
        }
        zhashx_destroy (&self->admin);
        zlistx_destroy (&self->admin_order);
        free (self);
        *self_p = NULL;
    }
}


//  ---------------------------------------------------------------------
//  Texts

//  Trim spaces around text, in place
static char *
s_trim (char *text)
{
    while (*text == ' ')
        text++;
    size_t length = strlen (text);
    while (length && text [length - 1] == ' ')
        text [--length] = 0;
    return text;
}

//  Cut a checked setting into entries NAME<mark>TEXT at separator
static void
s_cut (zlistx_t *list, const char *setting, char separator, char mark)
{
    zlistx_purge (list);
    char *copy = strdup (setting? setting: "");
    char *rest = copy;
    char separators [2] = { separator, 0 };
    char *piece;
    while ((piece = strsep (&rest, separators)) != NULL) {
        char *at = strchr (piece, mark);
        if (!at)
            continue;           //  empty: checked already
        *at = 0;
        s_entry_t *entry = (s_entry_t *) zmalloc (sizeof (s_entry_t));
        entry->name = strdup (s_trim (piece));
        entry->text = strdup (s_trim (at + 1));
        zlistx_add_end (list, entry);
    }
    free (copy);
}

//  Return true if a comma-separated list names member
static bool
s_lists (const char *list, const char *member)
{
    size_t length = strlen (member);
    for (const char *cursor = list; cursor && *cursor; ) {
        while (*cursor == ' ' || *cursor == ',')
            cursor++;
        const char *end = cursor;
        while (*end && *end != ',' && *end != ' ')
            end++;
        if ((size_t) (end - cursor) == length && memcmp (cursor, member, length) == 0)
            return true;
        cursor = end;
    }
    return false;
}

//  Return true if an admin's accounts list member (other than in name)
static bool
s_admin_lists (drover_shareboard_t *self, const char *member)
{
    for (s_admin_t *admin = (s_admin_t *) zhashx_first (self->admin); admin;
         admin = (s_admin_t *) zhashx_next (self->admin))
        if (admin->members && s_lists (admin->members, member))
            return true;
    return false;
}

//  Append item to a text being made, after separator if not the first
static void
s_join (char **text_p, char separator, const char *item)
{
    char *joined = **text_p? zsys_sprintf ("%s%c%s", *text_p, separator, item)
                           : strdup (item);
    free (*text_p);
    *text_p = joined;
}

//  Append "name<mark>text" to a text being made, after separator
static void
s_append (char **text_p, char separator, const char *name, char mark, const char *text)
{
    char *item = zsys_sprintf ("%s%c%s", name, mark, text);
    s_join (text_p, separator, item);
    free (item);
}

//  Make the accounts text in force: the settings' accounts (the admin's
//  members win, and owners an admin put elsewhere leave), then the
//  admin's accounts the settings lack
static char *
s_make_accounts (drover_shareboard_t *self)
{
    char *text = strdup ("");
    zlistx_t *list = self->settings [S_ACCOUNTS];
    for (s_entry_t *entry = (s_entry_t *) zlistx_first (list); entry;
         entry = (s_entry_t *) zlistx_next (list)) {
        s_admin_t *admin = (s_admin_t *) zhashx_lookup (self->admin, entry->name);
        if (admin && admin->members) {
            s_append (&text, ';', entry->name, ':', admin->members);
            continue;
        }
        char *members = strdup ("");
        char *copy = strdup (entry->text);
        char *rest = copy, *member;
        while ((member = strsep (&rest, ",")) != NULL) {
            member = s_trim (member);
            if (*member && !s_admin_lists (self, member))
                s_join (&members, ',', member);
        }
        s_append (&text, ';', entry->name, ':', members);
        free (copy);
        free (members);
    }
    for (const char *name = (const char *) zlistx_first (self->admin_order); name;
         name = (const char *) zlistx_next (self->admin_order)) {
        s_admin_t *admin = (s_admin_t *) zhashx_lookup (self->admin, name);
        bool set = false;
        for (s_entry_t *entry = (s_entry_t *) zlistx_first (list); entry && !set;
             entry = (s_entry_t *) zlistx_next (list))
            set = streq (entry->name, name);
        if (admin->members && !set)
            s_append (&text, ';', name, ':', admin->members);
    }
    return text;
}

//  Make the weights or quotas text in force: the settings' entries (the
//  admin's win), then the admin's for names the settings lack
static char *
s_make (drover_shareboard_t *self, int kind)
{
    char separator = kind == S_WEIGHTS? ',': ';';
    char mark = kind == S_WEIGHTS? '=': ':';
    char *text = strdup ("");
    char number [16];
    zlistx_t *list = self->settings [kind];
    for (s_entry_t *entry = (s_entry_t *) zlistx_first (list); entry;
         entry = (s_entry_t *) zlistx_next (list)) {
        s_admin_t *admin = (s_admin_t *) zhashx_lookup (self->admin, entry->name);
        const char *value = entry->text;
        if (admin && kind == S_WEIGHTS && admin->weight) {
            snprintf (number, sizeof number, "%u", admin->weight);
            value = number;
        }
        if (admin && kind == S_QUOTAS && admin->quota)
            value = admin->quota;
        s_append (&text, separator, entry->name, mark, value);
    }
    for (const char *name = (const char *) zlistx_first (self->admin_order); name;
         name = (const char *) zlistx_next (self->admin_order)) {
        s_admin_t *admin = (s_admin_t *) zhashx_lookup (self->admin, name);
        bool set = false;
        for (s_entry_t *entry = (s_entry_t *) zlistx_first (list); entry && !set;
             entry = (s_entry_t *) zlistx_next (list))
            set = streq (entry->name, name);
        if (set)
            continue;
        if (kind == S_WEIGHTS && admin->weight) {
            snprintf (number, sizeof number, "%u", admin->weight);
            s_append (&text, separator, name, mark, number);
        }
        if (kind == S_QUOTAS && admin->quota)
            s_append (&text, separator, name, mark, admin->quota);
    }
    return text;
}

//  Collect the names of a text in force
static void
s_names (zhashx_t *names, const char *text, char separator, char mark)
{
    zhashx_purge (names);
    zlistx_t *list = zlistx_new ();
    zlistx_set_destructor (list, s_entry_destroy);
    s_cut (list, text, separator, mark);
    for (s_entry_t *entry = (s_entry_t *) zlistx_first (list); entry;
         entry = (s_entry_t *) zlistx_next (list))
        zhashx_update (names, entry->name, "");
    zlistx_destroy (&list);
}


//  ---------------------------------------------------------------------
//  Applying

//  Make the texts in force and give the table the difference. Returns 0,
//  or -1 and *error_p if they do not parse (nothing changes then).
static int
s_apply (drover_shareboard_t *self, char **error_p)
{
    char *texts [S_KINDS] = {
        s_make_accounts (self), s_make (self, S_WEIGHTS), s_make (self, S_QUOTAS)
    };
    drover_sharespec_t *spec = drover_sharespec_new (texts [S_ACCOUNTS], texts [S_WEIGHTS],
                                                     texts [S_QUOTAS], error_p);
    if (!spec) {
        for (int kind = 0; kind < S_KINDS; kind++)
            free (texts [kind]);
        return -1;
    }
    zhashx_t *now [S_KINDS];
    static const char separators [S_KINDS] = { ';', ',', ';' };
    static const char marks [S_KINDS] = { ':', '=', ':' };
    for (int kind = 0; kind < S_KINDS; kind++) {
        now [kind] = zhashx_new ();
        s_names (now [kind], texts [kind], separators [kind], marks [kind]);
    }
    //  Undo what is no longer given: accounts, then weights, then quotas
    for (void *item = zhashx_first (self->applied [S_ACCOUNTS]); item;
         item = zhashx_next (self->applied [S_ACCOUNTS])) {
        const char *name = (const char *) zhashx_cursor (self->applied [S_ACCOUNTS]);
        if (!zhashx_lookup (now [S_ACCOUNTS], name))
            drover_fairshare_drop_account (self->fairshare, name);
    }
    for (void *item = zhashx_first (self->applied [S_WEIGHTS]); item;
         item = zhashx_next (self->applied [S_WEIGHTS])) {
        const char *name = (const char *) zhashx_cursor (self->applied [S_WEIGHTS]);
        if (!zhashx_lookup (now [S_WEIGHTS], name) && !zhashx_lookup (now [S_ACCOUNTS], name)
        &&  !zhashx_lookup (self->applied [S_ACCOUNTS], name))
            drover_fairshare_set_owner_weight (self->fairshare, name, 1);
    }
    drover_fairshare_quota_t none = { 0 };
    for (void *item = zhashx_first (self->applied [S_QUOTAS]); item;
         item = zhashx_next (self->applied [S_QUOTAS])) {
        const char *name = (const char *) zhashx_cursor (self->applied [S_QUOTAS]);
        if (!zhashx_lookup (now [S_QUOTAS], name))
            drover_fairshare_set_quota (self->fairshare, name, &none);
    }
    if (drover_sharespec_apply (spec, self->fairshare))
        zsys_warning ("shares: the fair-share table refused some of \"%s\" / \"%s\"",
                      texts [S_ACCOUNTS], texts [S_QUOTAS]);
    drover_sharespec_destroy (&spec);
    for (int kind = 0; kind < S_KINDS; kind++) {
        free (self->texts [kind]);
        self->texts [kind] = texts [kind];
        zhashx_destroy (&self->applied [kind]);
        self->applied [kind] = now [kind];
    }
    return 0;
}

//  Take the broker's settings
int
drover_shareboard_configure (drover_shareboard_t *self, const char *accounts,
                            const char *weights, const char *quotas, char **error_p)
{
    assert (self && error_p);
    drover_sharespec_t *spec = drover_sharespec_new (accounts, weights, quotas, error_p);
    if (!spec)
        return -1;
    drover_sharespec_destroy (&spec);
    s_cut (self->settings [S_ACCOUNTS], accounts, ';', ':');
    s_cut (self->settings [S_WEIGHTS], weights, ',', '=');
    s_cut (self->settings [S_QUOTAS], quotas, ';', ':');
    return s_apply (self, error_p);
}

//  Set what an admin says of a name
int
drover_shareboard_set (drover_shareboard_t *self, const char *name, uint32_t weight,
                      const char *members, const char *quota, char **error_p)
{
    assert (self && name && error_p);
    if (!drover_id_valid (name)) {
        *error_p = zsys_sprintf ("\"%s\" is not a name", name);
        return -1;
    }
    if (weight > DROVER_FAIRSHARE_WEIGHT_MAX) {
        *error_p = zsys_sprintf ("weight %u is past %d", weight, DROVER_FAIRSHARE_WEIGHT_MAX);
        return -1;
    }
    s_admin_t *admin = (s_admin_t *) zhashx_lookup (self->admin, name);
    s_admin_t before = { 0 };
    bool known = admin != NULL;
    if (!admin) {
        admin = (s_admin_t *) zmalloc (sizeof (s_admin_t));
        zhashx_insert (self->admin, name, admin);
        zlistx_add_end (self->admin_order, (void *) name);
    }
    else {
        before.weight = admin->weight;
        before.members = admin->members? strdup (admin->members): NULL;
        before.quota = admin->quota? strdup (admin->quota): NULL;
    }
    if (weight)
        admin->weight = weight;
    if (members) {
        free (admin->members);
        admin->members = strdup (members);
    }
    if (quota && *quota) {
        free (admin->quota);
        admin->quota = strdup (quota);
    }
    if (s_apply (self, error_p) == 0) {
        free (before.members);
        free (before.quota);
        return 0;
    }
    //  Refused: as it was
    if (known) {
        free (admin->members);
        free (admin->quota);
        *admin = before;
    }
    else {
        zhashx_delete (self->admin, name);
        zlistx_delete (self->admin_order, zlistx_find (self->admin_order, (void *) name));
    }
    return -1;
}

//  Forget what an admin said of a name
int
drover_shareboard_drop (drover_shareboard_t *self, const char *name)
{
    assert (self);
    if (!name || !zhashx_lookup (self->admin, name))
        return -1;
    zhashx_delete (self->admin, name);
    zlistx_delete (self->admin_order, zlistx_find (self->admin_order, (void *) name));
    char *error = NULL;
    if (s_apply (self, &error)) {
        //  Taking an entry away cannot make the rest wrong but for owners
        //  it moved: say so, and keep what is in force
        zsys_warning ("shares: dropping %s: %s", name, error);
        zstr_free (&error);
    }
    return 0;
}

//  Return what an admin said of a name
bool
drover_shareboard_entry (drover_shareboard_t *self, const char *name, uint32_t *weight_p,
                        const char **members_p, const char **quota_p)
{
    assert (self);
    s_admin_t *admin = name? (s_admin_t *) zhashx_lookup (self->admin, name): NULL;
    if (!admin)
        return false;
    *weight_p = admin->weight;
    *members_p = admin->members;
    *quota_p = admin->quota? admin->quota: "";
    return true;
}

//  Return the weight in force for a name
uint32_t
drover_shareboard_weight (drover_shareboard_t *self, const char *name)
{
    assert (self && name);
    zlistx_t *list = zlistx_new ();
    zlistx_set_destructor (list, s_entry_destroy);
    s_cut (list, self->texts [S_WEIGHTS], ',', '=');
    uint32_t weight = 1;
    for (s_entry_t *entry = (s_entry_t *) zlistx_first (list); entry;
         entry = (s_entry_t *) zlistx_next (list))
        if (streq (entry->name, name))
            weight = (uint32_t) atol (entry->text);
    zlistx_destroy (&list);
    return weight;
}

//  The accounts in force
const char *
drover_shareboard_accounts (drover_shareboard_t *self)
{
    assert (self);
    return self->texts [S_ACCOUNTS];
}

//  The quotas in force
const char *
drover_shareboard_quotas (drover_shareboard_t *self)
{
    assert (self);
    return self->texts [S_QUOTAS];
}

//  Write a SHARE ADMIN's quota fields as quota text
char *
drover_shareboard_quota_text (const drover_msg_t *admin)
{
    assert (admin);
    char *text = strdup ("");
    char item [64];
    if (admin->quota_procs) {
        snprintf (item, sizeof item, "procs=%u", admin->quota_procs);
        s_join (&text, ',', item);
    }
    if (admin->quota_mem) {
        snprintf (item, sizeof item, "mem=%" PRIu64, admin->quota_mem);
        s_join (&text, ',', item);
    }
    for (uint32_t index = 0; index < admin->ndevices && index < DROVER_DEVICES_MAX; index++) {
        snprintf (item, sizeof item, "%s=%u", admin->devices [index].name,
                  admin->devices [index].count);
        s_join (&text, ',', item);
    }
    if (admin->quota_queued) {
        snprintf (item, sizeof item, "queued=%u", admin->quota_queued);
        s_join (&text, ',', item);
    }
    return text;
}


//  ---------------------------------------------------------------------
//  SHARE TABLE

//  What making the rows needs
typedef struct {
    drover_share_row_t *rows;   //  the rows
    uint32_t count;             //  made
    size_t max;                 //  at most
    uint32_t account;           //  index of the current account's row
    zlistx_t *quotas;           //  the quotas in force, s_entry_t each
} s_rows_t;

//  Return the quota text in force for a name, "" none (owned copy)
static char *
s_quota_of (s_rows_t *making, const char *name)
{
    for (s_entry_t *entry = (s_entry_t *) zlistx_first (making->quotas); entry;
         entry = (s_entry_t *) zlistx_next (making->quotas))
        if (streq (entry->name, name))
            return strdup (entry->text);
    return strdup ("");
}

//  Add an owner's running devices to a row's devices text (owned,
//  replaced): its own, or its account's sum
static void
s_add_devices (char **text_p, const drover_fairshare_standing_t *standing)
{
    drover_device_t devices [DROVER_DEVICES_MAX];
    int count = drover_devicelist_parse (*text_p, devices, NULL);
    if (count < 0)
        count = 0;
    for (size_t index = 0; index < standing->ndevices; index++) {
        const drover_fairshare_device_t *held = &standing->devices [index];
        int at = 0;
        while (at < count && !streq (devices [at].name, held->name))
            at++;
        if (at == count && count < DROVER_DEVICES_MAX) {
            snprintf (devices [count].name, sizeof devices [count].name, "%s", held->name);
            devices [count++].count = 0;
        }
        if (at < count)
            devices [at].count += held->count;
    }
    char text [DROVER_DEVICELIST_TEXT_MAX];
    free (*text_p);
    *text_p = strdup (drover_devicelist_format (devices, (size_t) count, text));
    assert (*text_p);
}

//  Add an owner's row, after its account's row (made when the account
//  changes: owners come by account name, then owner name)
static void
s_add_owner (const drover_fairshare_standing_t *standing, void *arg)
{
    s_rows_t *making = (s_rows_t *) arg;
    drover_share_row_t *account = making->count? &making->rows [making->account]: NULL;
    if (!account || !streq (account->name, standing->account)) {
        if (making->count + 2 > making->max)
            return;             //  no room for the account and one owner
        making->account = making->count++;
        account = &making->rows [making->account];
        snprintf (account->name, sizeof account->name, "%s", standing->account);
        account->kind = 0;
        account->weight = standing->account_weight;
        account->share = standing->account_permille;
        account->fair = standing->fair_permille;
        snprintf (account->resource, sizeof account->resource, "%s",
                  standing->account_permille? standing->account_resource: "");
        account->devices = strdup ("");
        account->quota = s_quota_of (making, standing->account);
    }
    if (making->count == making->max)
        return;
    account->procs += standing->procs;
    account->mem += standing->mem;
    s_add_devices (&account->devices, standing);
    account->waiting += standing->waiting;
    account->queued += standing->queued;
    drover_share_row_t *row = &making->rows [making->count++];
    snprintf (row->name, sizeof row->name, "%s", standing->owner);
    snprintf (row->account, sizeof row->account, "%s", standing->account);
    row->kind = 1;
    row->weight = standing->owner_weight;
    row->share = standing->owner_permille;
    snprintf (row->resource, sizeof row->resource, "%s",
              standing->owner_permille? standing->owner_resource: "");
    row->procs = standing->procs;
    row->mem = standing->mem;
    row->waiting = standing->waiting;
    row->queued = standing->queued;
    row->devices = strdup ("");
    s_add_devices (&row->devices, standing);
    row->quota = s_quota_of (making, standing->owner);
}

//  Make SHARE TABLE rows
drover_share_row_t *
drover_shareboard_rows (drover_shareboard_t *self, size_t max, uint32_t *count_p)
{
    assert (self && count_p);
    s_rows_t making = { 0 };
    making.max = max;
    making.rows = (drover_share_row_t *) zmalloc ((max? max: 1) * sizeof (drover_share_row_t));
    making.quotas = zlistx_new ();
    zlistx_set_destructor (making.quotas, s_entry_destroy);
    s_cut (making.quotas, self->texts [S_QUOTAS], ';', ':');
    drover_fairshare_each_owner (self->fairshare, s_add_owner, &making);
    zlistx_destroy (&making.quotas);
    *count_p = making.count;
    return making.rows;
}

//  Free rows
void
drover_shareboard_rows_destroy (drover_share_row_t **rows_p, uint32_t count)
{
    assert (rows_p);
    drover_share_row_t *rows = *rows_p;
    for (uint32_t index = 0; rows && index < count; index++) {
        free (rows [index].devices);
        free (rows [index].quota);
    }
    free (rows);
    *rows_p = NULL;
}
