/*  =========================================================================
    drover_zap_actor - the broker's ZAP handler (see the header)

    A ZAP request is a multipart message on a REP bound at
    inproc://zeromq.zap.01: version "1.0", request id, domain, address,
    routing id, mechanism, then the mechanism's credentials (CURVE: the
    client's 32-byte public key). The reply: version, request id, status
    code ("200", "400", "500"), status text, user id, metadata (none).
    =========================================================================
*/

#include "drover_zap_actor.h"
#include "drover_keyring.h"
#include "drover_refusals.h"
#include "drover_actor.h"

#define S_ZAP_ENDPOINT  "inproc://zeromq.zap.01"
//  Least msec between two looks at the directory (a flood of handshakes
//  must not make each one three stat calls)
#define S_REFRESH       1
//  Where the poller watches the ZAP socket, after the pipe
#define S_HANDLER_AT    1

typedef struct {
    zsock_t *pipe;              //  commands from the guard
    zsock_t *handler;           //  the ZAP REP socket
    drover_poller_t *poller;    //  pipe, then handler (if bound)
    char *directory;            //  the keys directory
    drover_keyring_t *keyring;  //  the keys, our own copy
    int64_t refreshed;          //  last look at the directory, msec (mono)
    drover_refusals_t *refusals;    //  which refusals to log
    drover_actor_flags_t flags; //  VERBOSE, $TERM heard
} self_t;

//  Create the handler: bind the ZAP endpoint, read the keys
static self_t *
s_self_new (zsock_t *pipe, const char *directory)
{
    self_t *self = (self_t *) zmalloc (sizeof (self_t));
    self->pipe = pipe;
    self->directory = strdup (directory);
    self->keyring = drover_keyring_new (directory);
    drover_keyring_set_quiet (self->keyring);
    char *error = NULL;
    if (drover_keyring_load (self->keyring, &error))
        zstr_free (&error);     //  the guard loaded it a moment ago and said why if not
    self->refreshed = zclock_mono ();
    self->refusals = drover_refusals_new ();
    self->handler = zsock_new (ZMQ_REP);
    assert (self->handler);
    if (zsock_bind (self->handler, S_ZAP_ENDPOINT) == -1) {
        //  One ZAP handler per process (per ZeroMQ context): a named
        //  queue's cell shares its broker's, whose keys are its own
        zsys_debug ("zap: another ZAP handler serves this process");
        zsock_destroy (&self->handler);
    }
    self->poller = drover_poller_new ();
    drover_poller_add (self->poller, self->pipe);
    drover_poller_add (self->poller, self->handler);   //  NULL: an empty slot
    return self;
}

//  Destroy the handler
static void
s_self_destroy (self_t **self_p)
{
    self_t *self = *self_p;
    drover_poller_destroy (&self->poller);
    if (self->handler)
        zsock_unbind (self->handler, S_ZAP_ENDPOINT);
    zsock_destroy (&self->handler);
    drover_refusals_destroy (&self->refusals);
    drover_keyring_destroy (&self->keyring);
    free (self->directory);
    free (self);
    *self_p = NULL;
}

//  Tell whether a key is in the keys directory as it is now: look at the
//  directory first (three stat calls, a rescan if a role subdirectory
//  changed), so that a key removed is refused and one added admitted
static bool
s_known (self_t *self, const char *key)
{
    int64_t now = zclock_mono ();
    if (now - self->refreshed >= S_REFRESH) {
        self->refreshed = now;
        drover_keyring_refresh (self->keyring, now);
    }
    return drover_keyring_lookup (self->keyring, key) != NULL;
}

//  Log a refused key, unless the same was logged lately
static void
s_log_refusal (self_t *self, const char *address, const char *key)
{
    char subject [128];
    snprintf (subject, sizeof subject, "%s %s", address, key);
    uint64_t held = 0;
    if (drover_refusals_due (self->refusals, subject, zclock_mono (), &held))
        zsys_warning ("guard: refused a handshake from address=%s key=%s: not among the "
                      "broker's keys (security/keys=%s: workers/, clients/ or admins/) "
                      "held=%" PRIu64, address, key, self->directory, held);
}

//  Answer one ZAP request, waiting on the handler
static void
s_handle_request (self_t *self)
{
    zmsg_t *request = zmsg_recv (self->handler);
    if (!request)
        return;                 //  interrupted
    if (self->flags.verbose)
        zsys_debug ("zap: request");
    char *version = zmsg_popstr (request);
    char *sequence = zmsg_popstr (request);
    char *domain = zmsg_popstr (request);
    char *address = zmsg_popstr (request);
    char *identity = zmsg_popstr (request);
    char *mechanism = zmsg_popstr (request);
    zframe_t *credentials = zmsg_pop (request);
    const char *status = "500";
    const char *text = "malformed ZAP request";
    char key [41] = "";
    if (version && streq (version, "1.0") && mechanism && streq (mechanism, "CURVE")
    &&  credentials && zframe_size (credentials) == 32) {
        zmq_z85_encode (key, zframe_data (credentials), 32);
        if (s_known (self, key)) {
            status = "200";
            text = "OK";
        }
        else {
            status = "400";
            text = "not among the broker's keys";
            s_log_refusal (self, address? address: "?", key);
        }
    }
    else
    if (version && streq (version, "1.0") && mechanism) {
        status = "400";
        text = "CURVE only";
    }
    zstr_sendx (self->handler, "1.0", sequence? sequence: "", status, text,
                streq (status, "200")? key: "", "", NULL);
    drover_poller_sent (self->poller, S_HANDLER_AT);
    zframe_destroy (&credentials);
    zstr_free (&version);
    zstr_free (&sequence);
    zstr_free (&domain);
    zstr_free (&address);
    zstr_free (&identity);
    zstr_free (&mechanism);
    zmsg_destroy (&request);
}

//  Answer the ZAP requests that wait, without blocking: at most a turn's
//  worth, so that the pipe is read between
static void
s_handle_requests (self_t *self)
{
    for (int count = 0; count < DROVER_PIPE_BATCHES; count++) {
        if (!self->handler || !drover_poller_readable (self->poller, S_HANDLER_AT))
            return;
        if (!(zsock_events (self->handler) & ZMQ_POLLIN)) {
            drover_poller_drained (self->poller, S_HANDLER_AT);
            return;
        }
        s_handle_request (self);
    }
}

//  Handle a command from the guard (drover_actor_read calls this)
static void
s_handle_command (void *arg, zmsg_t *msg)
{
    self_t *self = (self_t *) arg;
    char command [16];
    drover_actor_pop_text (msg, command, sizeof command);
    if (!drover_actor_handle_common (&self->flags, command, msg)) {
        zsys_error ("zap: invalid command: %s", command);
        assert (false);         //  the vocabulary is in ACTORS.md
    }
}

//  The actor
void
drover_zap_actor (zsock_t *pipe, void *args)
{
    drover_actor_name_thread ("zap");
    assert (args);
    self_t *self = s_self_new (pipe, (const char *) args);
    zsock_signal (pipe, 0);
    while (!self->flags.stopping) {
        if (drover_actor_wait (self->poller, -1, 0) == -1)
            break;              //  interrupted
        if (drover_actor_read (self->poller, self->pipe, NULL, s_handle_command, NULL,
                               self) == -1)
            break;              //  the context is ending
        if (!self->flags.stopping)
            s_handle_requests (self);
    }
    s_self_destroy (&self);
}
