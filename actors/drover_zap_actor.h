/*  =========================================================================
    drover_zap_actor - the broker's ZAP handler (RFC 27): admits at the CURVE
    handshake the public keys of the keys directory, and logs those it
    refuses, with the peer's address and key

    It replaces czmq's zauth, which refuses in silence: an operator must
    see who knocks with a key the broker does not hold. It keeps a
    keyring of its own over the directory (quiet: the guard's keyring
    reports the files it skips) and looks at the directory at each
    handshake (at most once a msec), so a key added a moment ago is
    admitted, and one removed refused, at once. A refusal is logged
    at WARNING through drover_refusals (a line per key and address, then
    one every 10 s with the count held back):

        guard: refused a handshake from address=10.0.0.7 key=Z85...: not
        among the broker's keys (security/keys=DIR: workers/, clients/ or
        admins/)

    The reply's User-Id is the key's Z85 text (what drover_guard looks up).
    One per process (ZAP's endpoint, inproc://zeromq.zap.01, is one per
    ZeroMQ context): the guard owns it; a second one (a named queue's
    cell, whose keys are its broker's) finds the endpoint taken and
    leaves the handshakes to the first.

    Args: the keys directory (const char *, read before the actor signals).
    What it hears: actors/ACTORS.md, "zap".
    =========================================================================
*/

#ifndef DROVER_ZAP_ACTOR_H_INCLUDED
#define DROVER_ZAP_ACTOR_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

//  The actor: zactor_new (drover_zap_actor, (void *) keys_directory)
void
    drover_zap_actor (zsock_t *pipe, void *args);

#ifdef __cplusplus
}
#endif

#endif
