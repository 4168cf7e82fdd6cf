/*  =========================================================================
    drover_guard - who may reach the broker, and what each may say
    =========================================================================
*/

#include "drover_guard.h"
#include "drover_keyring.h"
#include "drover_keys.h"

//  The ZAP domain the broker's sockets ask zauth about
#define S_ZAP_DOMAIN    "drover"

struct _drover_guard_t {
    zcert_t *pair;              //  the broker's key pair, or NULL without CURVE
    drover_keyring_t *keyring;  //  the keys and their roles, or NULL
    zactor_t *auth;             //  czmq's zauth (the ZAP handler), or NULL
    int64_t refreshed;          //  last look at the keys directory, msec (mono)
    uint64_t refused;           //  messages refused
};

//  Create the guard from the settings
drover_guard_t *
drover_guard_new (drover_config_t *config, bool verbose, char **error_p)
{
    drover_guard_t *self = (drover_guard_t *) zmalloc (sizeof (drover_guard_t));
    if (!*config->security_key) {
        if (*config->security_keys) {
            *error_p = zsys_sprintf ("security/keys is set but security/key is not: "
                                     "the broker needs its own key pair to use CURVE");
            free (self);
            return NULL;
        }
        return self;
    }
    if (!*config->security_keys) {
        *error_p = zsys_sprintf ("security/key is set but security/keys is not: "
                                 "no key could connect");
        free (self);
        return NULL;
    }
    self->pair = drover_keys_load_pair (config->security_key, error_p);
    self->keyring = drover_keyring_new (config->security_keys);
    if (!self->pair || drover_keyring_load (self->keyring, error_p)) {
        drover_guard_destroy (&self);
        return NULL;
    }
    self->auth = zactor_new (zauth, NULL);
    if (verbose) {
        zstr_send (self->auth, "VERBOSE");
        zsock_wait (self->auth);
    }
    zstr_sendx (self->auth, "CURVE", config->security_keys, NULL);
    zsock_wait (self->auth);
    self->refreshed = zclock_mono ();
    zsys_info ("guard: curve=on keys=%zu directory=%s", drover_keyring_size (self->keyring),
               config->security_keys);
    return self;
}

//  Destroy the guard
void
drover_guard_destroy (drover_guard_t **self_p)
{
    assert (self_p);
    drover_guard_t *self = *self_p;
    if (self) {
        zactor_destroy (&self->auth);
        drover_keyring_destroy (&self->keyring);
        zcert_destroy (&self->pair);
        free (self);
        *self_p = NULL;
    }
}

//  Tell whether the broker runs with CURVE
bool
drover_guard_secure (drover_guard_t *self)
{
    assert (self);
    return self->pair != NULL;
}

//  Make a bound socket a CURVE server, with the handshake limit
void
drover_guard_apply (drover_guard_t *self, zsock_t *sock, int handshake)
{
    assert (self);
    zsock_set_handshake_ivl (sock, handshake);
    if (!self->pair)
        return;
    zcert_apply (self->pair, sock);
    zsock_set_curve_server (sock, 1);
    zsock_set_zap_domain (sock, S_ZAP_DOMAIN);
}

//  The name of the role a message needs, for a refusal's text
static const char *
s_roles_name (uint8_t roles)
{
    if (roles & DROVER_ROLE_WORKER)
        return "worker";
    if (roles & DROVER_ROLE_CLIENT)
        return "client";
    return "admin";
}

//  Admit one message if its sender's key may send it
int
drover_guard_admit (drover_guard_t *self, zmq_msg_t *payload, drover_msg_t *msg,
                    uint8_t roles, char **reason_p)
{
    assert (self);
    if (!self->pair) {
        msg->roles = DROVER_ROLE_ALL;
        return 0;
    }
    const char *key = zmq_msg_gets (payload, "User-Id");
    const drover_keyring_entry_t *entry = drover_keyring_lookup (self->keyring, key);
    if (!entry) {
        self->refused++;
        *reason_p = zsys_sprintf ("this key is not in the broker's keys any more (revoked)");
        return DROVER_CODE_FORBIDDEN;
    }
    snprintf (msg->principal, sizeof msg->principal, "%s", entry->name);
    msg->roles = entry->roles;
    if (!(entry->roles & roles)) {
        self->refused++;
        *reason_p = zsys_sprintf ("%s: only a %s key may send %s", entry->name,
                                  s_roles_name (roles), drover_msg_name (msg->id));
        return DROVER_CODE_FORBIDDEN;
    }
    if (msg->id == DROVER_MSG_WORKER_HELLO
    &&  !drover_keyring_allows_worker (entry, msg->worker)) {
        self->refused++;
        *reason_p = zsys_sprintf ("%s: this key may not register as worker '%s' (its "
                                  "worker-ids do not name it)", entry->name, msg->worker);
        return DROVER_CODE_FORBIDDEN;
    }
    return 0;
}

//  Tell whether a subscription comes from a known key, and what it may see
bool
drover_guard_known (drover_guard_t *self, zmq_msg_t *frame, uint8_t *roles_p,
                    const char **name_p)
{
    assert (self);
    if (!self->pair) {
        *roles_p = DROVER_ROLE_ALL;
        *name_p = "";
        return true;
    }
    const drover_keyring_entry_t *entry =
        drover_keyring_lookup (self->keyring, zmq_msg_gets (frame, "User-Id"));
    if (!entry)
        return false;
    *roles_p = entry->roles;
    *name_p = entry->name;
    return true;
}

//  Look at the keys directory now and then
size_t
drover_guard_refresh (drover_guard_t *self, int64_t now)
{
    assert (self);
    if (!self->keyring || now - self->refreshed < DROVER_GUARD_REFRESH)
        return 0;
    self->refreshed = now;
    size_t revoked = drover_keyring_refresh (self->keyring, now);
    for (size_t index = 0; index < revoked; index++)
        zsys_notice ("guard: key revoked name=%s", drover_keyring_revoked (self->keyring, index));
    return revoked;
}

//  The names the last refresh found revoked
const char *
drover_guard_revoked (drover_guard_t *self, size_t index)
{
    assert (self);
    return self->keyring? drover_keyring_revoked (self->keyring, index): NULL;
}

//  Messages refused so far
uint64_t
drover_guard_refused (drover_guard_t *self)
{
    assert (self);
    return self->refused;
}
