/*  =========================================================================
    drover_cli_brokers - which broker of a list leads, as `drover status`
    shows it: each endpoint of --broker / DROVER_BROKER asked directly

    Each endpoint gets a DEALER of its own (a CURVE client with the keys
    the client uses, as drover_client connects) and one cheap request, a
    TASK LIST of counts only. The probes go out together and are waited
    for together, up to one timeout, so that dead brokers cost it once and
    not once each. A broker that answers itself (a TASK TABLE, or even an
    ERROR: it does not redirect) serves: the leader. One that answers
    REDIRECT (PROTOCOL.md §7.38) stands by, and names the leader. One that
    says nothing in time is unreachable. Standbys naming a leader other
    than the broker that answered as one, or two brokers answering, are a
    split view, which drover_cli_brokers_warning says. The command then
    connects its client with the list reordered leader first.
    =========================================================================
*/

#include "drover_cli.h"
#include "drover_endpoints.h"
#include "drover_keys.h"
#include "drover_handshake.h"
#include <ctype.h>
#include <netdb.h>

struct _drover_cli_brokers_t {
    drover_endpoints_t *list;   //  the endpoints in the list's order, owned
    drover_cli_broker_t *rows;  //  what the probe found, one per endpoint, owned
    size_t size;                //  rows
};


//  Take the list of brokers: its endpoints, in order, none probed yet
drover_cli_brokers_t *
drover_cli_brokers_new (const char *list)
{
    drover_endpoints_t *endpoints = drover_endpoints_new (list);
    if (!endpoints)
        return NULL;
    drover_cli_brokers_t *self = (drover_cli_brokers_t *) zmalloc (sizeof (drover_cli_brokers_t));
    self->list = endpoints;
    self->size = drover_endpoints_size (endpoints);
    self->rows = (drover_cli_broker_t *) zmalloc (self->size * sizeof (drover_cli_broker_t));
    for (size_t index = 0; index < self->size; index++) {
        self->rows [index].endpoint = drover_endpoints_item (endpoints, index);
        self->rows [index].state = DROVER_CLI_BROKER_UNREACHABLE;
    }
    return self;
}

//  Destroy; harmless on NULL
void
drover_cli_brokers_destroy (drover_cli_brokers_t **self_p)
{
    assert (self_p);
    drover_cli_brokers_t *self = *self_p;
    if (!self)
        return;
    free (self->rows);
    drover_endpoints_destroy (&self->list);
    free (self);
    *self_p = NULL;
}

//  Return how many brokers the list has
size_t
drover_cli_brokers_size (drover_cli_brokers_t *self)
{
    assert (self);
    return self->size;
}

//  Return what the probe found of broker index (borrowed)
const drover_cli_broker_t *
drover_cli_brokers_at (drover_cli_brokers_t *self, size_t index)
{
    assert (self);
    assert (index < self->size);
    return &self->rows [index];
}

//  One probe in flight
typedef struct {
    zsock_t *dealer;            //  to the broker, owned
    drover_handshake_t *handshake;  //  watches its handshakes (a CURVE refusal), owned
    bool over;                  //  answered, or refused
} s_probe_t;

//  Open a probe's DEALER, CURVE with pair and server_key if pair is set,
//  its handshakes watched, connected to endpoint (one ZeroMQ does not
//  understand stays unreachable: the client then refuses the list)
static void
s_probe_open (s_probe_t *probe, const char *endpoint, zcert_t *pair, const char *server_key)
{
    probe->dealer = zsock_new (ZMQ_DEALER);
    assert (probe->dealer);
    zsock_set_linger (probe->dealer, 0);        //  a dead broker's probe is dropped at once
    zsock_set_maxmsgsize (probe->dealer, DROVER_MSG_MAX);
    zsock_set_sndtimeo (probe->dealer, 0);      //  queued until connected; never blocks
    if (pair) {
        zcert_apply (pair, probe->dealer);
        zsock_set_curve_serverkey (probe->dealer, server_key);
    }
    probe->handshake = drover_handshake_new (probe->dealer, pair != NULL);
    if (zsock_connect (probe->dealer, "%s", endpoint) == -1)
        probe->over = true;     //  unreachable: drover_cli_connect says why
}

//  Close a probe: the monitor before its socket
static void
s_probe_close (s_probe_t *probe)
{
    drover_handshake_destroy (&probe->handshake);
    zsock_destroy (&probe->dealer);
}

//  Note what broker index answered, if it is the reply to our probe
static void
s_note_answer (drover_cli_brokers_t *self, size_t index, drover_msg_t *reply)
{
    drover_cli_broker_t *row = &self->rows [index];
    if (reply->id == DROVER_MSG_CLIENT_WELCOME) {
        snprintf (row->name, sizeof row->name, "%s", reply->leader_name);
        return;                 //  its name: it comes before the probe's answer
    }
    if (reply->seq != 1)
        return;                 //  not the reply to the probe
    if (reply->id == DROVER_MSG_REDIRECT) {
        row->state = DROVER_CLI_BROKER_STANDBY;
        snprintf (row->leader, sizeof row->leader, "%s", reply->leader);
        snprintf (row->leader_name, sizeof row->leader_name, "%s", reply->leader_name);
    }
    else {
        row->state = DROVER_CLI_BROKER_LEADER;
        snprintf (row->leader, sizeof row->leader, "%s", row->endpoint);
        snprintf (row->leader_name, sizeof row->leader_name, "%s", row->name);
    }
}

//  Resolve tcp://HOST:PORT's host and port into *found (ours to free
//  with freeaddrinfo); false if it is not one or does not resolve
static bool
s_resolve (const char *endpoint, struct addrinfo **found)
{
    const char *colon = strrchr (endpoint, ':');
    if (strncmp (endpoint, "tcp://", 6) || !colon || colon <= endpoint + 6)
        return false;
    char host [256];
    const char *start = endpoint + 6;
    size_t length = (size_t) (colon - start);
    if (*start == '[' && length >= 2 && colon [-1] == ']') {
        start++;
        length -= 2;
    }
    if (length >= sizeof host)
        return false;
    memcpy (host, start, length);
    host [length] = 0;
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
    return getaddrinfo (host, colon + 1, &hints, found) == 0;
}

//  True if two endpoints are one broker's: the same text, or TCP to the
//  same port of a host they both resolve to (a list may name by host
//  name a broker that advertises its address)
static bool
s_same_endpoint (const char *one, const char *two)
{
    if (streq (one, two))
        return true;
    struct addrinfo *first = NULL, *second = NULL;
    bool same = false;
    if (s_resolve (one, &first) && s_resolve (two, &second))
        for (struct addrinfo *a = first; a && !same; a = a->ai_next)
            for (struct addrinfo *b = second; b && !same; b = b->ai_next)
                same = a->ai_addrlen == b->ai_addrlen
                    && memcmp (a->ai_addr, b->ai_addr, a->ai_addrlen) == 0;
    if (first)
        freeaddrinfo (first);
    if (second)
        freeaddrinfo (second);
    return same;
}

//  A leader's name, from a standby that names its endpoint
static void
s_name_leaders (drover_cli_brokers_t *self)
{
    for (size_t index = 0; index < self->size; index++) {
        drover_cli_broker_t *row = &self->rows [index];
        for (size_t other = 0; row->state == DROVER_CLI_BROKER_LEADER && other < self->size;
             other++) {
            drover_cli_broker_t *standby = &self->rows [other];
            if (standby->state == DROVER_CLI_BROKER_STANDBY && *standby->leader_name
            &&  s_same_endpoint (standby->leader, row->endpoint)) {
                snprintf (row->leader_name, sizeof row->leader_name, "%s",
                          standby->leader_name);
                break;
            }
        }
    }
}

//  Ask every broker of the list at once whether it serves
int
drover_cli_brokers_probe (drover_cli_brokers_t *self, const char *key,
                          const char *server_key, int timeout, char **error_p)
{
    assert (self);
    zcert_t *pair = NULL;
    drover_serverkeys_t *serverkeys = NULL;     //  each broker's public key
    if (key) {
        pair = drover_keys_load_pair (key, error_p);
        serverkeys = pair? drover_serverkeys_new (): NULL;
        if (serverkeys && ((server_key && drover_serverkeys_add_list (serverkeys, server_key,
                                                                       error_p))
                       ||  drover_serverkeys_pair_list (serverkeys, self->list, error_p))) {
            drover_serverkeys_destroy (&serverkeys);
        }
        if (!serverkeys) {
            zcert_destroy (&pair);
            return -1;          //  *error_p says why
        }
    }
    s_probe_t *probes = (s_probe_t *) zmalloc (self->size * sizeof (s_probe_t));
    zpoller_t *poller = zpoller_new (NULL);
    assert (poller);
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_LIST);
    request->seq = 1;
    request->state = 255;       //  every state, counts only: the cheapest request
    request->limit = 0;
    size_t waiting = 0;
    for (size_t index = 0; index < self->size; index++) {
        s_probe_t *probe = &probes [index];
        s_probe_open (probe, self->rows [index].endpoint, pair,
                      serverkeys? drover_serverkeys_for (serverkeys, self->rows [index].endpoint)
                                : NULL);
        //  Our level first: a standby tells a peer of level 1 ERROR 300, not
        //  REDIRECT, and it would pass for a leader (PROTOCOL.md §12.2)
        if (!probe->over && drover_msg_say_level (probe->dealer) == 0
        &&  drover_msg_send (request, probe->dealer) == 0) {
            zpoller_add (poller, probe->dealer);
            zpoller_add (poller, drover_handshake_sock (probe->handshake));
            waiting++;
        }
    }
    drover_msg_t *reply = drover_msg_new (0);
    int64_t deadline = zclock_mono () + timeout;
    while (waiting > 0 && !zsys_interrupted) {
        int64_t left = deadline - zclock_mono ();
        if (left <= 0)
            break;
        void *which = zpoller_wait (poller, (int) left);
        for (size_t index = 0; which && index < self->size; index++) {
            s_probe_t *probe = &probes [index];
            drover_cli_broker_t *row = &self->rows [index];
            if (probe->over)
                continue;
            if (which == probe->dealer && drover_msg_recv (reply, probe->dealer) == 0)
                s_note_answer (self, index, reply);
            else
            if (which == drover_handshake_sock (probe->handshake)
            &&  drover_handshake_read (probe->handshake) == -1)
                snprintf (row->why, sizeof row->why, "%s",
                          drover_handshake_reason (probe->handshake));
            if (row->state != DROVER_CLI_BROKER_UNREACHABLE || *row->why) {
                zpoller_remove (poller, probe->dealer);
                zpoller_remove (poller, drover_handshake_sock (probe->handshake));
                probe->over = true;
                waiting--;
            }
        }
    }
    drover_msg_destroy (&reply);
    drover_msg_destroy (&request);
    zpoller_destroy (&poller);
    for (size_t index = 0; index < self->size; index++)
        s_probe_close (&probes [index]);
    free (probes);
    zcert_destroy (&pair);
    drover_serverkeys_destroy (&serverkeys);
    s_name_leaders (self);
    if (zsys_interrupted) {
        *error_p = strdup ("interrupted");
        return -1;
    }
    return 0;
}

//  The list, the one leader first
char *
drover_cli_brokers_leader_first (drover_cli_brokers_t *self)
{
    assert (self);
    size_t leaders = 0, leader = 0;
    for (size_t index = 0; index < self->size; index++)
        if (self->rows [index].state == DROVER_CLI_BROKER_LEADER) {
            leaders++;
            leader = index;
        }
    if (leaders != 1 || leader == 0)
        return NULL;            //  none, several (a split view), or first already
    //  Each endpoint with the key the list named for it, if any
    const char *key = drover_endpoints_item_key (self->list, leader);
    char *list = zsys_sprintf ("%s%s%s", self->rows [leader].endpoint, key? "=": "",
                               key? key: "");
    for (size_t index = 0; index < self->size; index++)
        if (index != leader) {
            key = drover_endpoints_item_key (self->list, index);
            char *longer = zsys_sprintf ("%s,%s%s%s", list, self->rows [index].endpoint,
                                         key? "=": "", key? key: "");
            zstr_free (&list);
            list = longer;
        }
    return list;
}

//  Say what the brokers disagree on: several leaders, standbys naming
//  another leader than the one that answered, or no leader at all
char *
drover_cli_brokers_warning (drover_cli_brokers_t *self)
{
    assert (self);
    size_t leaders = 0, standbys = 0;
    const char *leader = NULL;
    for (size_t index = 0; index < self->size; index++) {
        if (self->rows [index].state == DROVER_CLI_BROKER_LEADER) {
            leaders++;
            leader = self->rows [index].endpoint;
        }
        standbys += self->rows [index].state == DROVER_CLI_BROKER_STANDBY;
    }
    if (leaders > 1) {
        char *text = zsys_sprintf ("split view: %zu brokers answer as leader", leaders);
        const char *separator = ":";
        for (size_t index = 0; index < self->size; index++)
            if (self->rows [index].state == DROVER_CLI_BROKER_LEADER) {
                char *longer = zsys_sprintf ("%s%s %s", text, separator,
                                             self->rows [index].endpoint);
                zstr_free (&text);
                text = longer;
                separator = ",";
            }
        return text;
    }
    for (size_t index = 0; leaders == 1 && index < self->size; index++) {
        const drover_cli_broker_t *row = &self->rows [index];
        if (row->state == DROVER_CLI_BROKER_STANDBY && *row->leader
        &&  !s_same_endpoint (row->leader, leader))
            return zsys_sprintf ("split view: %s names leader %s%s%s, but %s answered as "
                                 "leader", row->endpoint, row->leader_name,
                                 *row->leader_name? " at ": "", row->leader, leader);
    }
    if (leaders == 0 && standbys > 0)
        return zsys_sprintf ("no broker of the list answers as leader (an election, or the "
                             "leader just went)");
    return NULL;
}

//  Copy text into buffer for a terminal, '?' for what is not printable
const char *
drover_cli_printable (const char *text, char *buffer, size_t size)
{
    size_t index = 0;
    for (; text [index] && index + 1 < size; index++)
        buffer [index] = isprint ((unsigned char) text [index])? text [index]: '?';
    buffer [index] = 0;
    return buffer;
}

//  Print the brokers for people, one line each, under a "brokers:" label
void
drover_cli_brokers_print (drover_cli_brokers_t *self, FILE *stream)
{
    assert (self);
    int width = 0;
    for (size_t index = 0; index < self->size; index++)
        if ((int) strlen (self->rows [index].endpoint) > width)
            width = (int) strlen (self->rows [index].endpoint);
    for (size_t index = 0; index < self->size; index++) {
        const drover_cli_broker_t *row = &self->rows [index];
        char name [DROVER_ID_MAX + 1], leader [DROVER_ENDPOINT_MAX + 1];
        drover_cli_printable (row->leader_name, name, sizeof name);
        drover_cli_printable (row->leader, leader, sizeof leader);
        fprintf (stream, "%-9s%-*s  ", index? "": "brokers:", width, row->endpoint);
        if (row->state == DROVER_CLI_BROKER_LEADER)
            fprintf (stream, *name? "leader (%s)\n": "leader\n", name);
        else
        if (row->state == DROVER_CLI_BROKER_UNREACHABLE)
            fprintf (stream, *row->why? "unreachable: %s\n": "unreachable\n", row->why);
        else
        if (*leader)
            fprintf (stream, "standby (leader %s%sat %s)\n", name, *name? " ": "", leader);
        else
            fprintf (stream, "standby (no leader known)\n");
    }
}

//  Print the brokers as a JSON array, no newline
void
drover_cli_brokers_print_json (drover_cli_brokers_t *self, FILE *stream)
{
    assert (self);
    static const char *states [] = { "unreachable", "leader", "standby" };
    fputc ('[', stream);
    for (size_t index = 0; index < self->size; index++) {
        const drover_cli_broker_t *row = &self->rows [index];
        fprintf (stream, "%s{\"endpoint\":", index? ",": "");
        drover_cli_json_string (stream, row->endpoint);
        fprintf (stream, ",\"state\":\"%s\",\"leader_name\":", states [row->state]);
        drover_cli_json_string (stream, row->leader_name);
        fprintf (stream, ",\"leader\":");
        drover_cli_json_string (stream, row->leader);
        if (*row->why) {
            fprintf (stream, ",\"why\":");
            drover_cli_json_string (stream, row->why);
        }
        fputc ('}', stream);
    }
    fputc (']', stream);
}

//  Return how many brokers answered the probe, as leader or standby, or
//  refused our handshake
size_t
drover_cli_brokers_answered (drover_cli_brokers_t *self)
{
    assert (self);
    size_t answered = 0;
    for (size_t index = 0; index < self->size; index++)
        answered += self->rows [index].state != DROVER_CLI_BROKER_UNREACHABLE
                 || *self->rows [index].why;
    return answered;
}

//  Return the msec a command's probe waits: DROVER_CLI_BROKERS_TIMEOUT,
//  or --broker-timeout if less
int
drover_cli_brokers_timeout (void)
{
    return drover_cli_globals.timeout < DROVER_CLI_BROKERS_TIMEOUT
         ? drover_cli_globals.timeout: DROVER_CLI_BROKERS_TIMEOUT;
}

//  For a command given several brokers, ask each one directly whether it
//  leads (all at once, for at most DROVER_CLI_BROKERS_TIMEOUT). *brokers_p
//  stays NULL with one broker (status then shows it as before). Returns
//  0, or an exit status.
int
drover_cli_brokers_ask (const char *command, drover_cli_brokers_t **brokers_p)
{
    const char *list = drover_cli_globals.broker? drover_cli_globals.broker
                     : getenv ("DROVER_BROKER");
    drover_cli_brokers_t *brokers = drover_cli_brokers_new (list);
    if (!brokers || drover_cli_brokers_size (brokers) < 2) {
        drover_cli_brokers_destroy (&brokers);
        return 0;
    }
    const char *key, *server_key;
    if (drover_cli_keys (command, &key, &server_key)) {
        drover_cli_brokers_destroy (&brokers);
        return DROVER_EXIT_USAGE;       //  it said why
    }
    char *error = NULL;
    if (drover_cli_brokers_probe (brokers, key, server_key, drover_cli_brokers_timeout (),
                                  &error)) {
        fprintf (stderr, "drover %s: %s\n", command, error);
        zstr_free (&error);
        drover_cli_brokers_destroy (&brokers);
        return zsys_interrupted? DROVER_EXIT_INTERRUPTED: DROVER_EXIT_USAGE;
    }
    *brokers_p = brokers;
    return 0;
}

//  Connect the client; when the probe found the leader, with the list
//  reordered leader first, so that the command goes there at once instead
//  of finding a dead broker gone first (DROVER_ENDPOINTS_DEAD_AFTER)
drover_client_t *
drover_cli_brokers_connect (const char *command, drover_cli_brokers_t *brokers)
{
    char *list = brokers? drover_cli_brokers_leader_first (brokers): NULL;
    if (!list)
        return drover_cli_connect (command);
    const char *given = drover_cli_globals.broker;
    drover_cli_globals.broker = list;
    drover_client_t *client = drover_cli_connect (command);
    drover_cli_globals.broker = given;
    zstr_free (&list);
    return client;
}
