/*  =========================================================================
    drover_elector - the elector's records in etcd: what a broker's name
    and advertised endpoint may hold, and the values of its keys

    Checked when the elector starts (drover_elector_actor_args_check), written
    with each lease, read back from every range over the candidates and
    the members. See drover_elector.h for the formats.
    =========================================================================
*/

#include "drover_elector.h"

//  True if text holds a control character (a newline would split a candidacy)
static bool
s_has_control (const char *text)
{
    for (; *text; text++)
        if ((byte) *text < 32 || *text == 127)
            return true;
    return false;
}

//  Return a key prefix without its trailing '/'s (a lone "/" stays); ours
char *
drover_elector_prefix (const char *prefix)
{
    char *copy = strdup (prefix);
    assert (copy);
    size_t length = strlen (copy);
    while (length > 1 && copy [length - 1] == '/')
        copy [--length] = 0;
    return copy;
}

//  True if name can name a broker: 1 to 64 bytes, without '/' or control
//  characters
bool
drover_elector_name_valid (const char *name)
{
    return *name && strlen (name) <= DROVER_ELECTOR_NAME_MAX && !strchr (name, '/')
        && !s_has_control (name);
}

//  True if an advertised endpoint fits: at most 256 bytes, without
//  control characters
bool
drover_elector_advertise_valid (const char *advertise)
{
    return strlen (advertise) <= DROVER_ELECTOR_ENDPOINT_MAX && !s_has_control (advertise);
}

//  Return a candidacy's value, name "\n" advertise; ours
char *
drover_elector_candidacy (const char *name, const char *advertise)
{
    return zsys_sprintf ("%s\n%s", name, advertise);
}

//  Return a membership's value: advertise, then "\n" and the queue lines
//  if queues is not ""; ours
char *
drover_elector_membership (const char *advertise, const char *queues)
{
    return *queues? zsys_sprintf ("%s\n%s", advertise, queues)
                  : zsys_sprintf ("%s", advertise);
}

//  Split a candidacy's value "name\nendpoint"; false if malformed
bool
drover_elector_parse_candidacy (drover_etcd_kv_t *kv, char *name, char *endpoint)
{
    char *newline = strchr (kv->value, '\n');
    if (!newline || strlen (kv->value) != kv->value_size)
        return false;
    size_t name_size = (size_t) (newline - kv->value);
    size_t endpoint_size = strlen (newline + 1);
    if (name_size == 0 || name_size > DROVER_ELECTOR_NAME_MAX
    ||  endpoint_size > DROVER_ELECTOR_ENDPOINT_MAX)
        return false;
    memcpy (name, kv->value, name_size);
    name [name_size] = 0;
    memcpy (endpoint, newline + 1, endpoint_size + 1);
    return true;
}

//  Add the brokers' membership keys to a PEERS reply: their count ("0" if
//  etcd did not answer), then name, advertised endpoint and leader flag
void
drover_elector_add_peers (zmsg_t *reply, zlistx_t *brokers, size_t prefix_length,
                            const char *leader)
{
    zmsg_addstrf (reply, "%zu", brokers? zlistx_size (brokers): 0);
    drover_etcd_kv_t *kv = brokers? (drover_etcd_kv_t *) zlistx_first (brokers): NULL;
    while (kv) {
        const char *name = kv->key + prefix_length;
        zmsg_addstr (reply, name);
        const char *newline = strchr (kv->value, '\n');    //  the queue lines are not said
        size_t advertise_size = newline? (size_t) (newline - kv->value): strlen (kv->value);
        zmsg_addmem (reply, kv->value, advertise_size);
        zmsg_addstr (reply, *leader && streq (name, leader)? "1": "0");
        kv = (drover_etcd_kv_t *) zlistx_next (brokers);
    }
}
