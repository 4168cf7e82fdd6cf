/*  =========================================================================
    drover_guard - who may reach the broker, and what each may say
    =========================================================================
*/

#include "drover_guard.h"
#include "drover_keyring.h"
#include "drover_keys.h"
#include "drover_refusals.h"
#include "drover_zap_actor.h"

//  The ZAP domain the broker's sockets ask the ZAP handler (drover_zap) about
#define S_ZAP_DOMAIN    "drover"

struct _drover_guard_t {
    zcert_t *pair;              //  the broker's key pair, or NULL without CURVE
    drover_keyring_t *keyring;  //  the keys and their roles, or NULL
    zactor_t *auth;             //  the ZAP handler (drover_zap), or NULL
    drover_refusals_t *refusals;    //  which refused messages to log
    int64_t refreshed;          //  last look at the keys directory, msec (mono)
    zlistx_t *pending;          //  names found revoked, not yet told (owned)
    zlistx_t *revoked;          //  names the last drover_guard_refresh told (owned)
    uint64_t refused;           //  messages refused
};

//  A message from a key the keyring does not know looks again (three
//  stat calls, a rescan if a directory changed), at most this often
//  (msec): the key may have been added since the last look, and a revoked
//  peer that keeps sending must not make every message cost a look
#define S_MISS_REFRESH  1

//  Create the guard from the settings
drover_guard_t *
drover_guard_new (drover_config_t *config, bool verbose, char **error_p)
{
    drover_guard_t *self = (drover_guard_t *) zmalloc (sizeof (drover_guard_t));
    self->pending = zlistx_new ();
    zlistx_set_destructor (self->pending, (zlistx_destructor_fn *) zstr_free);
    self->revoked = zlistx_new ();
    zlistx_set_destructor (self->revoked, (zlistx_destructor_fn *) zstr_free);
    self->refusals = drover_refusals_new ();
    if (!*config->security_key) {
        if (*config->security_keys) {
            *error_p = zsys_sprintf ("security/keys is set but security/key is not: "
                                     "the broker needs its own key pair to use CURVE");
            drover_guard_destroy (&self);
            return NULL;
        }
        return self;
    }
    if (!*config->security_keys) {
        *error_p = zsys_sprintf ("security/key is set but security/keys is not: "
                                 "no key could connect");
        drover_guard_destroy (&self);
        return NULL;
    }
    self->pair = drover_keys_load_pair (config->security_key, error_p);
    self->keyring = drover_keyring_new (config->security_keys);
    if (!self->pair || drover_keyring_load (self->keyring, error_p)) {
        drover_guard_destroy (&self);
        return NULL;
    }
    (void) verbose;
    self->auth = zactor_new (drover_zap_actor, config->security_keys);
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
        zlistx_destroy (&self->pending);
        zlistx_destroy (&self->revoked);
        drover_refusals_destroy (&self->refusals);
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
    if (zsock_type (sock) == ZMQ_XPUB)
        //  Subscriptions are the guard's to apply (drover_guard_subscribe)
        zsock_set_xpub_manual (sock, 1);
}

//  The role a message needs, with its article, for a refusal's text
static const char *
s_role_needed (uint8_t roles)
{
    if (roles & DROVER_ROLE_WORKER)
        return "a worker key";
    if (roles & DROVER_ROLE_CLIENT)
        return "a client key";
    return "an admin key";
}

//  The role subdirectory a message's role is given by
static const char *
s_role_subdir (uint8_t roles)
{
    if (roles & DROVER_ROLE_WORKER)
        return "workers/";
    if (roles & DROVER_ROLE_CLIENT)
        return "clients/ or admins/";
    return "admins/";
}

//  A key's roles in words, with its article: "a client key", "an admin key",
//  "a worker and client key"
static void
s_roles_held (uint8_t roles, char *buffer, size_t size)
{
    const char *names [3];
    size_t count = 0;
    if (roles & DROVER_ROLE_WORKER)
        names [count++] = "worker";
    if (roles & DROVER_ROLE_ADMIN)
        names [count++] = "admin";
    else
    if (roles & DROVER_ROLE_CLIENT)
        names [count++] = "client";
    if (count == 0)
        snprintf (buffer, size, "a key without a role");
    else
    if (count == 1)
        snprintf (buffer, size, "%s %s key", streq (names [0], "admin")? "an": "a", names [0]);
    else
        snprintf (buffer, size, "a %s and %s key", names [0], names [1]);
}

//  Refuse a message: count it, log it by key (not every time: a refused
//  peer may send again and again), and return 403 with the reason
static int
s_refuse (drover_guard_t *self, const char *key, drover_msg_t *msg, char **reason_p)
{
    self->refused++;
    char subject [DROVER_ID_MAX + 64];
    snprintf (subject, sizeof subject, "%s %d", key, msg->id);
    uint64_t held = 0;
    if (drover_refusals_due (self->refusals, subject, zclock_mono (), &held))
        zsys_warning ("guard: refused key=%s %s code=%d: %s held=%" PRIu64, key,
                      drover_msg_name (msg->id), DROVER_CODE_FORBIDDEN, *reason_p, held);
    return DROVER_CODE_FORBIDDEN;
}

//  Look at the keys directory now; names found revoked wait in pending
static void
s_look (drover_guard_t *self, int64_t now)
{
    self->refreshed = now;
    size_t revoked = drover_keyring_refresh (self->keyring, now);
    for (size_t index = 0; index < revoked; index++) {
        const char *name = drover_keyring_revoked (self->keyring, index);
        zsys_notice ("guard: key revoked name=%s", name);
        zlistx_add_end (self->pending, strdup (name));
    }
}

//  Find a message's sender in the keyring; on a miss look at the keys
//  directory again first, if the last look is a little old (the ZAP handler admits
//  a key added since the guard's last look)
static const drover_keyring_entry_t *
s_sender (drover_guard_t *self, zmq_msg_t *msg)
{
    const char *key = zmq_msg_gets (msg, "User-Id");
    const drover_keyring_entry_t *entry = drover_keyring_lookup (self->keyring, key);
    int64_t now = zclock_mono ();
    if (!entry && key && now - self->refreshed >= S_MISS_REFRESH) {
        s_look (self, now);
        entry = drover_keyring_lookup (self->keyring, key);
    }
    return entry;
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
    const drover_keyring_entry_t *entry = s_sender (self, payload);
    if (!entry) {
        const char *key = zmq_msg_gets (payload, "User-Id");
        *reason_p = zsys_sprintf ("this key is not in the broker's keys any more (revoked)");
        return s_refuse (self, key? key: "?", msg, reason_p);
    }
    snprintf (msg->principal, sizeof msg->principal, "%s", entry->name);
    msg->roles = entry->roles;
    if (!(entry->roles & roles)) {
        char held [64];
        s_roles_held (entry->roles, held, sizeof held);
        *reason_p = zsys_sprintf ("%s is %s: %s needs %s (the broker's operator puts its "
                                  "public key in %s of the broker's keys directory, "
                                  "security/keys)", entry->name, held,
                                  drover_msg_name (msg->id), s_role_needed (roles),
                                  s_role_subdir (roles));
        return s_refuse (self, entry->name, msg, reason_p);
    }
    if (msg->id == DROVER_MSG_WORKER_HELLO
    &&  !drover_keyring_allows_worker (entry, msg->worker)) {
        *reason_p = zsys_sprintf ("%s: this key may not register as worker '%s' (its "
                                  "worker-ids do not name it)", entry->name, msg->worker);
        return s_refuse (self, entry->name, msg, reason_p);
    }
    return 0;
}

//  The prefix of the topics an owner's copies of events go under
#define S_OWN_PREFIX    "own/"

//  Subscribe or unsubscribe the XPUB's last subscriber to one topic
static void
s_set_subscription (zsock_t *publisher, bool subscribe, const char *topic, size_t size)
{
    zmq_setsockopt (zsock_resolve (publisher), subscribe? ZMQ_SUBSCRIBE: ZMQ_UNSUBSCRIBE,
                    topic, size);
}

//  Tell whether one of two strings is a prefix of the other
static bool
s_prefixes (const char *topic, size_t length, const char *fixed, size_t fixed_size)
{
    return memcmp (topic, fixed, length < fixed_size? length: fixed_size) == 0;
}

//  Apply one subscription from the event stream
int
drover_guard_subscribe (drover_guard_t *self, zsock_t *publisher, zmq_msg_t *frame)
{
    assert (self);
    const char *data = (const char *) zmq_msg_data (frame);
    size_t size = zmq_msg_size (frame);
    if (size < 1 || (data [0] != 0 && data [0] != 1))
        return 0;
    bool subscribe = data [0] == 1;
    const char *topic = data + 1;
    size_t length = size - 1;
    int counted = subscribe? 1: -1;
    if (!self->pair)
        return counted;             //  the XPUB applied it itself
    //  Counted whatever is applied: libzmq says an unsubscription (with no
    //  key, none applied) for each subscription of a subscriber that left
    const drover_keyring_entry_t *entry = s_sender (self, frame);
    if (!entry)
        return counted;
    if (entry->roles & DROVER_ROLE_ADMIN) {
        s_set_subscription (publisher, subscribe, topic, length);
        return counted;
    }
    //  Anyone else: worker events as asked, and its own tasks' events
    //  under own/NAME/ (a SUB filters on the topic frame too: it asks for
    //  "" or own/NAME/..., PROTOCOL.md §14)
    const char *workers = "worker.";
    char own [DROVER_ID_MAX + 8];
    size_t own_size = (size_t) snprintf (own, sizeof own, S_OWN_PREFIX "%s/", entry->name);
    if (length == 0) {
        s_set_subscription (publisher, subscribe, workers, strlen (workers));
        s_set_subscription (publisher, subscribe, own, own_size);
    }
    else
    if (s_prefixes (topic, length, workers, strlen (workers)))
        s_set_subscription (publisher, subscribe, length < strlen (workers)? workers: topic,
                            length < strlen (workers)? strlen (workers): length);
    else
    if (s_prefixes (topic, length, own, own_size))
        s_set_subscription (publisher, subscribe, length < own_size? own: topic,
                            length < own_size? own_size: length);
    else {
        char narrowed [DROVER_ID_MAX + 8 + 256];
        if (length > sizeof narrowed - own_size)
            return counted;         //  no topic is that long
        memcpy (narrowed, own, own_size);
        memcpy (narrowed + own_size, topic, length);
        s_set_subscription (publisher, subscribe, narrowed, own_size + length);
    }
    return counted;
}

//  The topic of an owner's copy of an event
const char *
drover_guard_owner_topic (drover_guard_t *self, const char *topic, const char *owner,
                          char *buffer, size_t size)
{
    assert (self);
    if (!self->pair || !*owner)
        return NULL;
    snprintf (buffer, size, S_OWN_PREFIX "%s/%s", owner, topic);
    return buffer;
}

//  Look at the keys directory now and then
size_t
drover_guard_refresh (drover_guard_t *self, int64_t now)
{
    assert (self);
    zlistx_purge (self->revoked);
    if (!self->keyring)
        return 0;
    if (now - self->refreshed >= DROVER_GUARD_REFRESH)
        s_look (self, now);
    zlistx_t *told = self->revoked;
    self->revoked = self->pending;
    self->pending = told;
    return zlistx_size (self->revoked);
}

//  Look at the keys directory at the next refresh, however recent the last
void
drover_guard_refresh_soon (drover_guard_t *self)
{
    assert (self);
    self->refreshed = INT64_MIN / 2;
}

//  The names the last refresh found revoked
const char *
drover_guard_revoked (drover_guard_t *self, size_t index)
{
    assert (self);
    const char *name = (const char *) zlistx_first (self->revoked);
    for (size_t at = 0; name && at < index; at++)
        name = (const char *) zlistx_next (self->revoked);
    return name;
}

//  Messages refused so far
uint64_t
drover_guard_refused (drover_guard_t *self)
{
    assert (self);
    return self->refused;
}
