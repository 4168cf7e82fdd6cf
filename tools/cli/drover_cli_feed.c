/*  =========================================================================
    drover_cli_feed - the event streams `drover events` hears: one SUB
    connected to the publisher of every broker it knows of (PROTOCOL.md
    §14, §17), its connections watched

    With several brokers only the leader publishes what happens; a
    standby publishes only its own broker.leader and broker.standby. A
    SUB connected to every broker's publisher at once therefore hears the
    leader, whichever it is, and a new leader's events as soon as it
    serves, without reconnecting. The feed says when a publisher's
    connection comes up (a handshake), goes down, or is refused (CURVE),
    and how many are up, so that the command can tell a stream that went
    from one that never was.

    Where a broker publishes, unless --events says: on the port after its
    ROUTER's, the default layout (5555, 5556) and that of named queues'
    cells (drover_cli_feed_derive).
    =========================================================================
*/

#include "drover_cli.h"
#include "drover_keys.h"
#include "drover_handshake.h"

//  A publisher's state in the feed
#define S_CONNECTED     1       //  connected, no handshake yet (or down)
#define S_UP            2       //  its handshake succeeded, not down since

struct _drover_cli_feed_t {
    zsock_t *sub;               //  one SUB to every publisher, owned
    zsock_t *monitor;           //  the SUB's connection events, owned
    zhashx_t *publishers;       //  endpoint -> S_CONNECTED or S_UP (as a pointer)
    size_t up;                  //  publishers in S_UP
    bool curve;                 //  CURVE: a failed handshake is a refusal
    char *list;                 //  the publishers, ", "-separated, for messages, owned
};


//  Write into out the endpoint where a broker whose ROUTER is at router
//  publishes by default: the next port on the same host. Returns 0, or -1
//  if router is not tcp://HOST:PORT with a port below 65535.
int
drover_cli_feed_derive (const char *router, char *out, size_t size)
{
    const char *colon = strrchr (router, ':');
    if (strncmp (router, "tcp://", 6) || !colon || colon <= router + 6 || !colon [1])
        return -1;
    char *end = NULL;
    long port = strtol (colon + 1, &end, 10);
    if (*end || port < 1 || port >= 65535 || strchr (router, '*'))
        return -1;
    int written = snprintf (out, size, "%.*s:%ld", (int) (colon - router), router, port + 1);
    return written > 0 && (size_t) written < size? 0: -1;
}

//  Create a feed: a SUB (CURVE with the key pair key, if set: each
//  publisher's server key comes with it, drover_cli_feed_add) subscribed
//  to the topics (none: everything), watched, connected to nothing yet.
//  NULL with *error_p (ours to free) if the key is unusable.
drover_cli_feed_t *
drover_cli_feed_new (const char *key, const char **topics, int ntopics, char **error_p)
{
    drover_cli_feed_t *self = (drover_cli_feed_t *) zmalloc (sizeof (drover_cli_feed_t));
    self->sub = zsock_new (ZMQ_SUB);
    assert (self->sub);
    zsock_set_linger (self->sub, 0);
    zsock_set_maxmsgsize (self->sub, 65536);      //  an event is a few hundred bytes
    //  With a key the broker may narrow what this key sees (PROTOCOL.md
    //  §14: a client's own tasks' events come under own/NAME/), so the
    //  socket takes everything it is sent and the caller filters on the
    //  body's topic
    if (ntopics == 0 || key)
        zsock_set_subscribe (self->sub, "");
    for (int index = 0; index < ntopics && !key; index++)
        zsock_set_subscribe (self->sub, topics [index]);
    zcert_t *pair = key? drover_keys_load_pair (key, error_p): NULL;
    if (key && !pair) {
        zsock_destroy (&self->sub);
        free (self);
        return NULL;
    }
    if (pair)
        zcert_apply (pair, self->sub);
    zcert_destroy (&pair);
    self->curve = key != NULL;
    //  Watched before it connects: events before the monitor are lost
    char endpoint [64];
    snprintf (endpoint, sizeof endpoint, "inproc://drover-feed-%p", (void *) self);
    int rc = zmq_socket_monitor (zsock_resolve (self->sub), endpoint,
                                 ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_DISCONNECTED
                               | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH
                               | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL
                               | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL);
    assert (rc == 0);
    self->monitor = zsock_new (ZMQ_PAIR);
    assert (self->monitor);
    rc = zsock_connect (self->monitor, "%s", endpoint);
    assert (rc == 0);
    self->publishers = zhashx_new ();
    self->list = strdup ("");
    return self;
}

//  Destroy the feed; harmless on NULL
void
drover_cli_feed_destroy (drover_cli_feed_t **self_p)
{
    assert (self_p);
    drover_cli_feed_t *self = *self_p;
    if (!self)
        return;
    zmq_socket_monitor (zsock_resolve (self->sub), NULL, 0);
    zsock_destroy (&self->monitor);
    zsock_destroy (&self->sub);
    zhashx_destroy (&self->publishers);
    free (self->list);
    free (self);
    *self_p = NULL;
}

//  Connect to the publisher at endpoint, unless connected already; with
//  CURVE, server_key is its broker's public key (Z85). Returns 1 if it is
//  new, 0 if known, -1 if ZeroMQ does not take it, -2 if no server key
//  is given with CURVE.
int
drover_cli_feed_add (drover_cli_feed_t *self, const char *endpoint, const char *server_key)
{
    assert (self);
    if (zhashx_lookup (self->publishers, endpoint))
        return 0;
    if (self->curve && !server_key)
        return -2;
    if (self->curve)            //  a connection takes the option as it is now
        zsock_set_curve_serverkey (self->sub, server_key);
    if (zsock_connect (self->sub, "%s", endpoint) == -1)
        return -1;
    zhashx_insert (self->publishers, endpoint, (void *) (uintptr_t) S_CONNECTED);
    char *longer = zsys_sprintf ("%s%s%s", self->list, *self->list? ", ": "", endpoint);
    zstr_free (&self->list);
    self->list = longer;
    return 1;
}

//  Return the SUB, to poll and read
zsock_t *
drover_cli_feed_sock (drover_cli_feed_t *self)
{
    assert (self);
    return self->sub;
}

//  Return the monitor, to poll: drover_cli_feed_read takes what it says
zsock_t *
drover_cli_feed_monitor (drover_cli_feed_t *self)
{
    assert (self);
    return self->monitor;
}

//  Set a publisher's state, counting those up
static void
s_set_state (drover_cli_feed_t *self, const char *endpoint, uintptr_t state)
{
    uintptr_t was = (uintptr_t) zhashx_lookup (self->publishers, endpoint);
    if (!was)
        return;                 //  not one we connected (cannot be)
    self->up += (state == S_UP) - (was == S_UP);
    zhashx_update (self->publishers, endpoint, (void *) state);
}

//  Read one connection event of the monitor: DROVER_CLI_FEED_UP (a
//  publisher's handshake succeeded), _DOWN (its connection closed),
//  _REFUSED (it refused our handshake; reason says why), or 0 (nothing
//  the caller needs). The publisher's endpoint goes into endpoint.
int
drover_cli_feed_read (drover_cli_feed_t *self, char *endpoint, size_t endpoint_size,
                      char *reason, size_t reason_size)
{
    assert (self);
    endpoint [0] = reason [0] = 0;
    zmsg_t *note = zmsg_recv (self->monitor);
    zframe_t *head = note? zmsg_first (note): NULL;
    zframe_t *address = note? zmsg_next (note): NULL;
    int said = 0;
    if (head && zframe_size (head) >= 6) {
        uint16_t event;
        uint32_t value;
        memcpy (&event, zframe_data (head), 2);
        memcpy (&value, zframe_data (head) + 2, 4);
        if (address)
            snprintf (endpoint, endpoint_size, "%.*s", (int) zframe_size (address),
                      (const char *) zframe_data (address));
        if (event == ZMQ_EVENT_HANDSHAKE_SUCCEEDED) {
            s_set_state (self, endpoint, S_UP);
            said = DROVER_CLI_FEED_UP;
        }
        else
        if (event == ZMQ_EVENT_DISCONNECTED) {
            bool was_up = (uintptr_t) zhashx_lookup (self->publishers, endpoint) == S_UP;
            s_set_state (self, endpoint, S_CONNECTED);
            said = was_up? DROVER_CLI_FEED_DOWN: 0;
        }
        else
        //  A plain connection closed early is a broker going away, not a
        //  refusal (as in drover_handshake)
        if (event != ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL || self->curve) {
            drover_handshake_describe (event, value, self->curve, reason, reason_size);
            s_set_state (self, endpoint, S_CONNECTED);
            said = DROVER_CLI_FEED_REFUSED;
        }
    }
    zmsg_destroy (&note);
    return said;
}

//  Return how many publishers are up (their handshake done, not down)
size_t
drover_cli_feed_up (drover_cli_feed_t *self)
{
    assert (self);
    return self->up;
}

//  Return the publishers connected to, ", "-separated (borrowed)
const char *
drover_cli_feed_list (drover_cli_feed_t *self)
{
    assert (self);
    return self->list;
}
