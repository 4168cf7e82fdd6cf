/*  =========================================================================
    drover_cli_events - `drover events`: the broker's event stream, one JSON
    line per event, until interrupted

    With --since SEQ it first prints what it missed: it subscribes, then
    pages through the broker's kept events after SEQ (EVENT REPLAY), then
    prints the live ones, dropping any whose seq it printed already (and
    replays again after each reconnect to the publisher). A
    live event whose seq jumps past the next one (a subscription not yet
    in effect during the replay, or an event the PUB dropped) is preceded
    by another replay that fills the gap: no gap, no duplicate.
    =========================================================================
*/

#include "drover_cli.h"
#include "drover_keys.h"
#include "drover_handshake.h"

//  What a resumed stream (--since) has printed, and how to fill its gaps
typedef struct {
    drover_client_t *client;    //  to the broker's ROUTER, for EVENT REPLAY
    const char **topics;        //  --topic prefixes (none: every event)
    int ntopics;                //  how many
    uint64_t printed;           //  seq of the last event printed, or passed over
} s_resume_t;

//  ---------------------------------------------------------------------
//  drover events [--topic PREFIX] [--since SEQ]

//  Print events' usage
static void
s_events_usage (FILE *stream)
{
    fprintf (stream,
        "usage: drover events [--topic PREFIX]... [--since SEQ] [--events ENDPOINT] [--json]\n"
        "\n"
        "Prints the broker's events, one JSON line each, until interrupted. Exits 1\n"
        "when no event stream answers at ENDPOINT within --broker-timeout (at start,\n"
        "or after losing it).\n"
        "  --topic PREFIX     only topics starting with PREFIX, e.g. task. or worker.lost\n"
        "                     (repeatable; default every event)\n"
        "  --since SEQ        first the events after SEQ that the broker keeps (every\n"
        "                     event's \"seq\"; 0 for all it keeps), then live ones, with no\n"
        "                     gap and no duplicate (asks the broker at --broker)\n"
        "  --events ENDPOINT  the broker's event endpoint (default $DROVER_EVENTS,\n"
        "                     else %s)\n"
        "  --json             accepted for symmetry: JSON lines are the only format\n",
        DROVER_CLIENT_EVENTS);
}

//  Print one event as a JSON line
static void
s_print_event (const drover_event_t *event)
{
    char *line = drover_event_json (event);
    printf ("%s\n", line);
    fflush (stdout);
    zstr_free (&line);
}

//  True if the event's topic starts with one of the prefixes (or none given)
static bool
s_topic_wanted (s_resume_t *resume, const char *topic)
{
    if (resume->ntopics == 0)
        return true;
    for (int index = 0; index < resume->ntopics; index++)
        if (strncmp (topic, resume->topics [index], strlen (resume->topics [index])) == 0)
            return true;
    return false;
}

//  Print the broker's kept events after resume->printed, page by page,
//  until it has no more. Returns 0, or the exit status after saying why.
static int
s_replay (s_resume_t *resume)
{
    bool more = true;
    while (more) {
        drover_msg_t *list = drover_client_events (resume->client, resume->printed,
                                                   DROVER_REPLAY_MAX);
        if (!list) {
            if (drover_client_error_code (resume->client) == DROVER_CODE_UNEXPECTED)
                fprintf (stderr, "drover events: the broker keeps no events to replay\n");
            return drover_cli_error (resume->client, "events --since");
        }
        if (list->last < resume->printed) {
            //  Its seqs start again: it has other state (PROTOCOL.md §6.5)
            fprintf (stderr, "drover events: the broker's newest event is %" PRIu64 ", before %"
                     PRIu64 ": its state is not the one that seq came from; following its "
                     "events from there\n", list->last, resume->printed);
            resume->printed = list->last;
        }
        for (uint32_t index = 0; index < list->nevents; index++) {
            drover_event_t *event = &list->events [index];
            if (event->seq <= resume->printed)
                continue;       //  a duplicate: a broker lists only later ones
            if (event->seq > resume->printed + 1)
                fprintf (stderr, "drover events: events %" PRIu64 "..%" PRIu64 " are no longer "
                         "kept\n", resume->printed + 1, event->seq - 1);
            if (s_topic_wanted (resume, event->topic))
                s_print_event (event);
            resume->printed = event->seq;
        }
        more = list->more && list->nevents;
        drover_msg_destroy (&list);
    }
    return 0;
}

//  A live event while resuming: print it unless printed already; a seq
//  past the next one means events were missed: replay them first.
//  Returns 0, or the exit status.
static int
s_resume_live (s_resume_t *resume, const drover_event_t *event)
{
    if (event->seq > resume->printed + 1) {
        int rc = s_replay (resume);
        if (rc)
            return rc;
    }
    if (event->seq > resume->printed) {
        if (s_topic_wanted (resume, event->topic))
            s_print_event (event);
        resume->printed = event->seq;
    }
    return 0;
}

//  Make the subscriber a CURVE client: our pair, and the public key of the
//  broker whose stream *endpoint_p is: the only one trusted, or the one
//  the endpoint names (--events tcp://HOST:5556=b1, or =FILE), which
//  *endpoint_p loses then. Returns 0, or -1 with why in *error_p.
static int
s_apply_keys (zsock_t *subscriber, const char *key, const char *server_key,
              const char **endpoint_p, char **error_p)
{
    static char s_endpoint [DROVER_ENDPOINT_MAX + 1];
    drover_serverkeys_t *keys = drover_cli_server_keys (server_key, *endpoint_p, error_p);
    zcert_t *pair = keys? drover_keys_load_pair (key, error_p): NULL;
    drover_endpoints_t *list = pair? drover_endpoints_new (*endpoint_p): NULL;
    if (list) {
        snprintf (s_endpoint, sizeof s_endpoint, "%s", drover_endpoints_item (list, 0));
        *endpoint_p = s_endpoint;
        zcert_apply (pair, subscriber);
        zsock_set_curve_serverkey (subscriber, drover_serverkeys_for (keys, s_endpoint));
    }
    if (pair && !list)
        *error_p = zsys_sprintf ("'%s' is not an event endpoint", *endpoint_p);
    int rc = list? 0: -1;
    drover_endpoints_destroy (&list);
    zcert_destroy (&pair);
    drover_serverkeys_destroy (&keys);
    return rc;
}

//  drover events: SUB to the event endpoint, one JSON line per event
int
drover_cli_events (int argc, char **argv)
{
    static struct option long_options [] = {
        { "topic", required_argument, NULL, 't' },
        { "json", no_argument, NULL, 'j' },
        { "events", required_argument, NULL, DROVER_CLI_OPT_EVENTS },
        { "since", required_argument, NULL, 's' },
        DROVER_CLI_COMMON_OPTIONS,
        DROVER_CLI_KEY_OPTION,
        { NULL, 0, NULL, 0 }
    };
    const char *topics [64];
    int ntopics = 0;
    bool since = false;         //  --since given: resume
    s_resume_t resume = { .topics = topics };
    long long value;
    optind = 0;
    opterr = 0;
    int option;
    while ((option = getopt_long (argc, argv, ":h", long_options, NULL)) != -1) {
        if (option == 'h') {
            s_events_usage (stdout);
            return DROVER_EXIT_OK;
        }
        else
        if (option == 't') {
            if (ntopics == 64)
                return drover_cli_usage_error ("events", "--topic: at most 64");
            topics [ntopics++] = optarg;
        }
        else
        if (option == 's') {
            if (drover_cli_parse_int ("events", "--since", optarg, 0, LLONG_MAX, &value))
                return DROVER_EXIT_USAGE;
            resume.printed = (uint64_t) value;
            since = true;
        }
        else
        if (option == 'j')
            ;                       //  JSON lines are the only format
        else
        if (option == DROVER_CLI_OPT_EVENTS)
            drover_cli_globals.events = optarg;
        else {
            int rc = drover_cli_common_option ("events", option, argv);
            if (rc)
                return rc;
        }
    }
    if (optind < argc)
        return drover_cli_usage_error ("events", "unexpected argument '%s'", argv [optind]);
    const char *endpoint = drover_cli_globals.events;
    if (!endpoint || !*endpoint)
        endpoint = getenv ("DROVER_EVENTS");
    if (!endpoint || !*endpoint)
        endpoint = DROVER_CLIENT_EVENTS;
    resume.ntopics = ntopics;
    const char *key, *server_key;
    if (drover_cli_keys ("events", &key, &server_key))
        return DROVER_EXIT_USAGE;
    if (since) {
        resume.client = drover_cli_connect ("events");
        if (!resume.client)
            return DROVER_EXIT_USAGE;
    }
    bool replayed = false;      //  a replay is done (after the first handshake)

    zsock_t *subscriber = zsock_new (ZMQ_SUB);
    assert (subscriber);
    zsock_set_linger (subscriber, 0);
    zsock_set_maxmsgsize (subscriber, 65536);        //  an event is a few hundred bytes
    //  With a key the broker may narrow what this key sees (PROTOCOL.md
    //  §14: a client's own tasks' events come under own/NAME/), so the
    //  socket takes everything it is sent and the topics filter on the
    //  body's topic (as for a replay)
    if (ntopics == 0 || key)
        zsock_set_subscribe (subscriber, "");
    for (int index = 0; index < ntopics && !key; index++)
        zsock_set_subscribe (subscriber, topics [index]);
    char *error = NULL;
    if (key && s_apply_keys (subscriber, key, server_key, &endpoint, &error)) {
        fprintf (stderr, "drover events: %s\n", error);
        zstr_free (&error);
        zsock_destroy (&subscriber);
        drover_client_destroy (&resume.client);
        return DROVER_EXIT_USAGE;
    }
    //  Watched before it connects (see below)
    int rc = zmq_socket_monitor (zsock_resolve (subscriber), "inproc://drover-events-monitor",
                                 ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_DISCONNECTED
                               | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH
                               | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL
                               | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL);
    assert (rc == 0);
    zsock_t *monitor = zsock_new_pair (">inproc://drover-events-monitor");
    assert (monitor);
    if (zsock_connect (subscriber, "%s", endpoint) == -1) {
        zsock_destroy (&monitor);
        zsock_destroy (&subscriber);
        drover_client_destroy (&resume.client);
        return drover_cli_usage_error ("events", "'%s' is not an event endpoint", endpoint);
    }
    //  A SUB hears nothing from a PUB it is not connected to, and says
    //  nothing about it: watch its connections, and give up when none has
    //  completed a handshake within the timeout (nothing listening, or a
    //  peer that is not a publisher, e.g. the broker's ROUTER port), or
    //  when the broker refuses our handshake (our key, its key, CURVE on
    //  one side only): that is said at once
    zpoller_t *poller = zpoller_new (subscriber, monitor, NULL);
    assert (poller);
    int timeout = drover_cli_globals.timeout;
    int64_t deadline = zclock_mono () + timeout;     //  0 while connected
    uint64_t malformed = 0;
    int status = DROVER_EXIT_OK;
    while (true) {
        int wait = deadline? (int) MAX (deadline - zclock_mono (), 0): -1;
        void *which = zpoller_wait (poller, wait);
        if (which == monitor) {
            zmsg_t *note = zmsg_recv (monitor);
            zframe_t *head = note? zmsg_first (note): NULL;
            if (head && zframe_size (head) >= 6) {
                uint16_t event;
                uint32_t value;
                memcpy (&event, zframe_data (head), 2);
                memcpy (&value, zframe_data (head) + 2, 4);
                if (event & (ZMQ_EVENT_HANDSHAKE_FAILED_AUTH | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL
                           | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL)) {
                    //  A plain connection closed early is a broker going
                    //  away, not a refusal (as in drover_handshake)
                    if (event == ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL && !key) {
                        zmsg_destroy (&note);
                        continue;
                    }
                    char reason [256];
                    drover_handshake_describe (event, value, key != NULL, reason, sizeof reason);
                    fprintf (stderr, "drover events: %s at %s\n", reason, endpoint);
                    status = DROVER_EXIT_FAILED;
                    zmsg_destroy (&note);
                    break;
                }
                if (event == ZMQ_EVENT_HANDSHAKE_SUCCEEDED) {
                    deadline = 0;
                    if (since) {
                        //  Subscribed (what is published from now on waits in
                        //  the SUB): print what was missed before, at start
                        //  and after each reconnect (a broker restart)
                        replayed = true;
                        status = s_replay (&resume);
                        if (status) {
                            zmsg_destroy (&note);
                            break;
                        }
                    }
                }
                else
                if (deadline == 0) {
                    fprintf (stderr, "drover events: lost the publisher at %s, reconnecting\n",
                             endpoint);
                    deadline = zclock_mono () + timeout;
                }
            }
            zmsg_destroy (&note);
            continue;
        }
        if (which != subscriber) {
            if (zpoller_terminated (poller) || zsys_interrupted)
                break;              //  interrupted
            fprintf (stderr, "drover events: no event stream at %s within %d msec (is the "
                     "broker running, and is this its --events endpoint?)\n", endpoint, timeout);
            status = DROVER_EXIT_FAILED;
            break;
        }
        zmsg_t *msg = zmsg_recv (subscriber);
        if (!msg)
            break;                  //  interrupted
        zframe_t *topic = zmsg_first (msg);
        zframe_t *body = zmsg_next (msg);
        drover_event_t event;
        if (zmsg_size (msg) == 2 && topic && body
        &&  drover_event_decode (&event, zframe_data (body), zframe_size (body)) == 0) {
            if (!since) {
                if (s_topic_wanted (&resume, event.topic))
                    s_print_event (&event);
            }
            else
            if (replayed) {
                status = s_resume_live (&resume, &event);
                if (status) {
                    zmsg_destroy (&msg);
                    break;
                }
            }
            //  else: before the replay, which lists it (it is kept)
        }
        else
        if (malformed++ == 0)
            fprintf (stderr, "drover events: skipping a malformed event\n");
        zmsg_destroy (&msg);
    }
    zpoller_destroy (&poller);
    zsock_destroy (&monitor);
    zsock_destroy (&subscriber);
    drover_client_destroy (&resume.client);
    return status;
}
