/*  =========================================================================
    drover_cli_events - `drover events`: the broker's event stream, one JSON
    line per event, until interrupted
    =========================================================================
*/

#include "drover_cli.h"

//  ---------------------------------------------------------------------
//  drover events [--topic PREFIX]

//  Print events' usage
static void
s_events_usage (FILE *stream)
{
    fprintf (stream,
        "usage: drover events [--topic PREFIX]... [--events ENDPOINT] [--json]\n"
        "\n"
        "Prints the broker's events, one JSON line each, until interrupted. Exits 1\n"
        "when no event stream answers at ENDPOINT within --broker-timeout (at start,\n"
        "or after losing it).\n"
        "  --topic PREFIX     only topics starting with PREFIX, e.g. task. or worker.lost\n"
        "                     (repeatable; default every event)\n"
        "  --events ENDPOINT  the broker's event endpoint (default $DROVER_EVENTS,\n"
        "                     else %s)\n"
        "  --json             accepted for symmetry: JSON lines are the only format\n",
        DROVER_CLIENT_EVENTS);
}

//  drover events: SUB to the event endpoint, one JSON line per event
int
drover_cli_events (int argc, char **argv)
{
    static struct option long_options [] = {
        { "topic", required_argument, NULL, 't' },
        { "json", no_argument, NULL, 'j' },
        { "events", required_argument, NULL, DROVER_CLI_OPT_EVENTS },
        DROVER_CLI_COMMON_OPTIONS,
        { NULL, 0, NULL, 0 }
    };
    const char *topics [64];
    int ntopics = 0;
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

    zsock_t *subscriber = zsock_new (ZMQ_SUB);
    assert (subscriber);
    zsock_set_linger (subscriber, 0);
    zsock_set_maxmsgsize (subscriber, 65536);        //  an event is a few hundred bytes
    if (ntopics == 0)
        zsock_set_subscribe (subscriber, "");
    for (int index = 0; index < ntopics; index++)
        zsock_set_subscribe (subscriber, topics [index]);
    if (zsock_connect (subscriber, "%s", endpoint) == -1) {
        zsock_destroy (&subscriber);
        return drover_cli_usage_error ("events", "'%s' is not an event endpoint", endpoint);
    }
    //  A SUB hears nothing from a PUB it is not connected to, and says
    //  nothing about it: watch its connections, and give up when none has
    //  completed a handshake within the timeout (nothing listening, or a
    //  peer that is not a publisher, e.g. the broker's ROUTER port)
    int rc = zmq_socket_monitor (zsock_resolve (subscriber), "inproc://drover-events-monitor",
                                 ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_DISCONNECTED);
    assert (rc == 0);
    zsock_t *monitor = zsock_new_pair (">inproc://drover-events-monitor");
    assert (monitor);
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
            if (head && zframe_size (head) >= 2) {
                uint16_t event;
                memcpy (&event, zframe_data (head), 2);
                if (event == ZMQ_EVENT_HANDSHAKE_SUCCEEDED)
                    deadline = 0;
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
            char *line = drover_event_json (&event);
            printf ("%s\n", line);
            fflush (stdout);
            zstr_free (&line);
        }
        else
        if (malformed++ == 0)
            fprintf (stderr, "drover events: skipping a malformed event\n");
        zmsg_destroy (&msg);
    }
    zpoller_destroy (&poller);
    zsock_destroy (&monitor);
    zsock_destroy (&subscriber);
    return status;
}
