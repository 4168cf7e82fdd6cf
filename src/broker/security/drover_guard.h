/*  =========================================================================
    drover_guard - who may reach the broker, and what each may say

    Without a key pair (security/key unset) the broker runs as before: no
    CURVE, every sender may do everything, and the endpoints must be
    loopback. With one, every endpoint is a CURVE server: the ZAP handler
    (drover_zap, RFC 27) admits at the handshake only the keys in the keys
    directory (security/keys), and the main asks the guard about every
    message: the sender's key (its User-Id) must still be known, and its
    roles must allow the message; the guard then writes the key's name and
    roles into the message for the actors (task owners, cancel rights).

    ZAP runs only at the handshake, so the guard refreshes its keyring
    every DROVER_GUARD_REFRESH msec and names the keys that went away, for
    the main to end their live sessions.
    =========================================================================
*/

#ifndef DROVER_GUARD_H_INCLUDED
#define DROVER_GUARD_H_INCLUDED

#include <czmq.h>
#include "drover_config.h"
#include "drover_msg.h"

//  Msec between two looks at the keys directory
#define DROVER_GUARD_REFRESH    250

typedef struct _drover_guard_t drover_guard_t;

//  Create the guard from the settings: with security/key set, load the key
//  pair and the keys and start the ZAP handler. Returns NULL with a message in
//  *error_p (caller frees) when the key, its mode or the keys are wrong.
drover_guard_t *
    drover_guard_new (drover_config_t *config, bool verbose, char **error_p);

//  Destroy the guard and its ZAP handler; harmless on NULL
void
    drover_guard_destroy (drover_guard_t **self_p);

//  Tell whether the broker runs with CURVE
bool
    drover_guard_secure (drover_guard_t *self);

//  Make a socket the broker binds a CURVE server (when secure) and give
//  it the handshake limit. Call before binding.
void
    drover_guard_apply (drover_guard_t *self, zsock_t *sock, int handshake);

//  Admit one decoded message received in PAYLOAD if its sender may send
//  it: ROLES are the roles any of which may. Sets msg->principal and
//  msg->roles. Returns 0, or the ERROR code to answer with and a reason
//  in *reason_p (caller frees).
int
    drover_guard_admit (drover_guard_t *self, zmq_msg_t *payload, drover_msg_t *msg,
                        uint8_t roles, char **reason_p);

//  Apply a subscription (or unsubscription) received in FRAME on the
//  event stream PUBLISHER: as asked without CURVE (the XPUB did) or from
//  an admin key; from any other known key, narrowed to worker events and
//  its own tasks' events (their copies under "own/NAME/"); from a key
//  that went away, not at all. Returns +1 for a subscription, -1 for an
//  unsubscription (applied or not: for counting), 0 for neither.
int
    drover_guard_subscribe (drover_guard_t *self, zsock_t *publisher, zmq_msg_t *frame);

//  The topic of an owner's copy of an event ("own/OWNER/TOPIC") into
//  buffer, or NULL when no copy is due (no CURVE, or no owner)
const char *
    drover_guard_owner_topic (drover_guard_t *self, const char *topic, const char *owner,
                              char *buffer, size_t size);

//  Make the next drover_guard_refresh look at the keys directory, however
//  recent the last look (a reload: SIGHUP)
void
    drover_guard_refresh_soon (drover_guard_t *self);

//  Look at the keys directory if DROVER_GUARD_REFRESH msec have passed;
//  returns how many names lost their key since the last call (those it
//  found, and those a look on a message from an unknown key found),
//  listed by drover_guard_revoked until the next call
size_t
    drover_guard_refresh (drover_guard_t *self, int64_t now);

//  The names the last refresh found revoked, or NULL past the end
const char *
    drover_guard_revoked (drover_guard_t *self, size_t index);

//  Messages refused so far (unknown key, role, pinned id); each refusal
//  is logged (rate limited by key: drover_refusals) as
//  "guard: refused key=NAME MESSAGE code=403: REASON held=N"
uint64_t
    drover_guard_refused (drover_guard_t *self);

#endif
