/*  =========================================================================
    drover_cli_events - `drover events`: the event stream of the brokers
    given (--broker, DROVER_BROKER), one JSON line per event, until
    interrupted

    It hears every broker of the list at once (drover_cli_feed: each one's
    publisher, on its ROUTER's port + 1, or those --events lists), so it hears
    whichever leads (PROTOCOL.md §17), and a new leader as soon as it
    serves. A leader that a standby names outside the list is found by
    asking every broker (drover_cli_brokers), at start and whenever the
    leadership may have moved: a broker.leader or broker.standby event, a
    publisher gone; while they hold an election, again every second.

    Numbered events are printed once each, in seq order, from the first
    one heard (with --since SEQ: first the broker's kept events after SEQ,
    page by page, EVENT REPLAY). A live event whose seq is not above the
    last printed is a duplicate, dropped; one past the next one (an event
    the PUB dropped, or one published while no publisher of ours was the
    leader's) is preceded by a replay of the gap; and when a publisher
    comes up or a new leader serves, a replay catches up with what the
    state keeps: no gap, no duplicate, across a failover. Events numbered
    0 (broker.leader, broker.standby) are printed as they come.
    =========================================================================
*/

#include "drover_cli.h"
#include "drover_endpoints.h"

//  Msec between two looks for the leader while the brokers hold an election
#define S_FOLLOW_EVERY  1000

//  What `drover events` knows and has printed
typedef struct {
    const char **topics;        //  --topic prefixes (none: every event)
    int ntopics;                //  how many
    const char *key;            //  our key pair file, or NULL (plain)
    const char *server_key;     //  the brokers' public key files, with key
    drover_serverkeys_t *keys;  //  with key: each broker's (and publisher's) key, owned
    drover_cli_feed_t *feed;    //  every publisher we hear
    bool follow;                //  hear the leaders the brokers name (not with --events)
    drover_client_t *client;    //  for EVENT REPLAY, made when first needed
    bool since;                 //  --since: the first replay must succeed
    bool tracking;              //  printed says something: --since, or a numbered event heard
    uint64_t printed;           //  seq of the last event printed, or passed over
    uint64_t replays;           //  replays done
    bool replay_refused;        //  the brokers do not replay to us: live events only
    int64_t follow_at;          //  msec (mono) to look for the leader again, 0 not due
} s_events_t;

//  ---------------------------------------------------------------------
//  drover events [--topic PREFIX] [--since SEQ]

//  Print events' usage
static void
s_events_usage (FILE *stream)
{
    fprintf (stream,
        "usage: drover events [--topic PREFIX]... [--since SEQ] [--events ENDPOINTS] [--json]\n"
        "\n"
        "Prints the events of the brokers given (--broker or DROVER_BROKER, default %s),\n"
        "one JSON line each, until interrupted. With several brokers it hears them all,\n"
        "so it follows the leader across a failover: numbered events are printed once\n"
        "each, in seq order, a gap filled from what the brokers keep. Exits 1 when no\n"
        "event stream answers within --broker-timeout (at start, or after losing every one).\n"
        "  --topic PREFIX       only topics starting with PREFIX, e.g. task. or worker.lost\n"
        "                       (repeatable; default every event)\n"
        "  --since SEQ          first the events after SEQ that the brokers keep (every\n"
        "                       event's \"seq\"; 0 for all they keep), then live ones, with no\n"
        "                       gap and no duplicate\n"
        "  --events ENDPOINTS   hear these publishers only (comma-separated; default\n"
        "                       $DROVER_EVENTS, else each broker's, on its port + 1:\n"
        "                       tcp://HOST:5555 publishes on tcp://HOST:5556)\n"
        "  --json               accepted for symmetry: JSON lines are the only format\n",
        DROVER_CLIENT_ENDPOINT);
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
s_topic_wanted (s_events_t *self, const char *topic)
{
    if (self->ntopics == 0)
        return true;
    for (int index = 0; index < self->ntopics; index++)
        if (strncmp (topic, self->topics [index], strlen (self->topics [index])) == 0)
            return true;
    return false;
}


//  ---------------------------------------------------------------------
//  Where the brokers publish

//  Hear the broker whose ROUTER is router (named name, if a REDIRECT said:
//  its key's name), where it publishes by default: on its next port, with
//  the broker's key. Returns 0, -1 if we cannot tell where, -2 if no key
//  of the broker is trusted.
static int
s_hear (s_events_t *self, const char *router, const char *name)
{
    char events [DROVER_ENDPOINT_MAX + 16];
    if (drover_cli_feed_derive (router, events, sizeof events))
        return -1;
    if (self->keys)
        drover_serverkeys_learn (self->keys, router, name);
    const char *server_key = self->keys? drover_serverkeys_for (self->keys, router): NULL;
    int rc = drover_cli_feed_add (self->feed, events, server_key);
    return rc == -2? -2: rc < 0? -1: 0;
}

//  Hear the publishers --events (or DROVER_EVENTS) lists, and only those;
//  else every broker of the list given, where each publishes by default,
//  and the leaders they name. Returns 0, or the exit status after saying
//  why.
static int
s_hear_list (s_events_t *self, const char *events_list)
{
    const char *brokers_list = drover_cli_globals.broker? drover_cli_globals.broker
                             : getenv ("DROVER_BROKER");
    if (!brokers_list || !*brokers_list)
        brokers_list = DROVER_CLIENT_ENDPOINT;
    const char *list = events_list? events_list: brokers_list;
    drover_endpoints_t *endpoints = drover_endpoints_new (list);
    if (!endpoints)
        return drover_cli_usage_error ("events", "'%s' is not %s endpoint", list,
                                       events_list? "an event": "a broker");
    int rc = 0;
    for (size_t index = 0; rc == 0 && index < drover_endpoints_size (endpoints); index++) {
        const char *endpoint = drover_endpoints_item (endpoints, index);
        const char *server_key = self->keys? drover_serverkeys_for (self->keys, endpoint): NULL;
        int heard = events_list? drover_cli_feed_add (self->feed, endpoint, server_key)
                               : s_hear (self, endpoint, NULL);
        if (heard == -2)
            rc = drover_cli_usage_error ("events", "no key of the broker at %s is trusted "
                                         "(name it: %s=NAME)", endpoint, endpoint);
        else
        if (heard < 0 && events_list)
            rc = drover_cli_usage_error ("events", "'%s' is not an event endpoint", endpoint);
        else
        if (heard < 0)
            rc = drover_cli_usage_error ("events", "cannot tell where %s publishes its events: "
                                         "give --events", endpoint);
    }
    drover_endpoints_destroy (&endpoints);
    self->follow = !events_list;
    return rc;
}

//  Ask every broker of the list which one leads, and hear the leaders they
//  name (one outside the list too). While some answer but none leads (an
//  election), look again a while later.
static void
s_follow (s_events_t *self)
{
    self->follow_at = 0;
    if (!self->follow)
        return;                 //  --events: those publishers only
    const char *list = drover_cli_globals.broker? drover_cli_globals.broker
                     : getenv ("DROVER_BROKER");
    drover_cli_brokers_t *brokers = drover_cli_brokers_new (list && *list? list
                                                            : DROVER_CLIENT_ENDPOINT);
    char *error = NULL;
    if (!brokers || drover_cli_brokers_probe (brokers, self->key, self->server_key,
                                              drover_cli_brokers_timeout (), &error)) {
        zstr_free (&error);     //  the feed says what it hears, or does not
        drover_cli_brokers_destroy (&brokers);
        return;
    }
    bool leads = false;
    for (size_t index = 0; index < drover_cli_brokers_size (brokers); index++) {
        const drover_cli_broker_t *row = drover_cli_brokers_at (brokers, index);
        if (row->state == DROVER_CLI_BROKER_LEADER)
            leads = true;
        if (row->state != DROVER_CLI_BROKER_UNREACHABLE && *row->leader)
            s_hear (self, row->leader, row->leader_name);
    }
    if (!leads && drover_cli_brokers_answered (brokers))
        self->follow_at = zclock_mono () + S_FOLLOW_EVERY;
    drover_cli_brokers_destroy (&brokers);
}


//  ---------------------------------------------------------------------
//  Replays

//  The brokers did not replay: with --since and nothing replayed yet, say
//  why and return the exit status; else say it once and go on with the
//  live events (returns 0)
static int
s_replay_failed (s_events_t *self)
{
    int code = drover_client_error_code (self->client);
    bool refused = code == DROVER_CODE_UNEXPECTED || code == DROVER_CODE_FORBIDDEN;
    if (self->since && self->replays == 0) {
        if (code == DROVER_CODE_UNEXPECTED)
            fprintf (stderr, "drover events: the broker keeps no events to replay\n");
        return drover_cli_error (self->client, "events --since");
    }
    if (refused && !self->replay_refused)
        fprintf (stderr, "drover events: the broker does not replay events (%s): events it "
                 "published while not heard are missed\n", drover_client_error_text (self->client));
    else
    if (!refused)
        fprintf (stderr, "drover events: could not replay the events after %" PRIu64 " (%s); "
                 "going on\n", self->printed, drover_client_error_text (self->client));
    self->replay_refused |= refused;
    return 0;
}

//  Print the brokers' kept events after self->printed, page by page,
//  until they have no more; then hear the broker that answered (it leads,
//  and may be outside the list). Returns 0, or the exit status.
static int
s_replay (s_events_t *self)
{
    if (self->replay_refused)
        return 0;
    if (!self->client) {
        self->client = drover_cli_connect ("events");
        if (!self->client)
            return DROVER_EXIT_USAGE;   //  it said why
    }
    bool more = true;
    while (more) {
        drover_msg_t *list = drover_client_events (self->client, self->printed,
                                                   DROVER_REPLAY_MAX);
        if (!list)
            return s_replay_failed (self);
        if (list->last < self->printed) {
            //  Its seqs start again: it has other state (PROTOCOL.md §6.5)
            fprintf (stderr, "drover events: the broker's newest event is %" PRIu64 ", before %"
                     PRIu64 ": its state is not the one that seq came from; following its "
                     "events from there\n", list->last, self->printed);
            self->printed = list->last;
        }
        for (uint32_t index = 0; index < list->nevents; index++) {
            drover_event_t *event = &list->events [index];
            if (event->seq <= self->printed)
                continue;       //  a duplicate: a broker lists only later ones
            //  Since 0 asks for all that is kept: what is older is no news
            if (event->seq > self->printed + 1 && self->printed > 0)
                fprintf (stderr, "drover events: events %" PRIu64 "..%" PRIu64 " are no longer "
                         "kept\n", self->printed + 1, event->seq - 1);
            if (s_topic_wanted (self, event->topic))
                s_print_event (event);
            self->printed = event->seq;
        }
        more = list->more && list->nevents;
        drover_msg_destroy (&list);
    }
    self->replays++;
    self->tracking = true;
    if (self->follow)
        s_hear (self, drover_client_endpoint (self->client), NULL);
    return 0;
}

//  A live numbered event: print it unless printed already; a seq past the
//  next one means events were missed: replay them first. The first one
//  heard without --since starts the count. Returns 0, or the exit status.
static int
s_live (s_events_t *self, const drover_event_t *event)
{
    if (!self->tracking) {
        self->tracking = true;
        self->printed = event->seq - 1;
    }
    if (event->seq > self->printed + 1) {
        int rc = s_replay (self);
        if (rc)
            return rc;
        if (event->seq > self->printed + 1)
            fprintf (stderr, "drover events: events %" PRIu64 "..%" PRIu64 " were missed\n",
                     self->printed + 1, event->seq - 1);
    }
    if (event->seq > self->printed) {
        if (s_topic_wanted (self, event->topic))
            s_print_event (event);
        self->printed = event->seq;
    }
    return 0;
}

//  One event from the feed. Returns 0, or the exit status.
static int
s_heard (s_events_t *self, const drover_event_t *event)
{
    if (event->seq)
        return s_live (self, event);
    if (s_topic_wanted (self, event->topic))
        s_print_event (event);
    if (strneq (event->topic, "broker.leader") && strneq (event->topic, "broker.standby"))
        return 0;
    //  The leadership moved: find the leader, and what it keeps that we
    //  did not hear from the last one
    s_follow (self);
    return self->tracking && streq (event->topic, "broker.leader")? s_replay (self): 0;
}


//  ---------------------------------------------------------------------
//  The command

//  Parse the flags into self; returns 0, DROVER_CLI_HELP (printed), or an
//  exit status
static int
s_parse (s_events_t *self, int argc, char **argv, const char **events_p)
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
    long long value;
    optind = 0;
    opterr = 0;
    int option;
    while ((option = getopt_long (argc, argv, ":h", long_options, NULL)) != -1) {
        if (option == 'h') {
            s_events_usage (stdout);
            return DROVER_CLI_HELP;
        }
        else
        if (option == 't') {
            if (self->ntopics == 64)
                return drover_cli_usage_error ("events", "--topic: at most 64");
            self->topics [self->ntopics++] = optarg;
        }
        else
        if (option == 's') {
            if (drover_cli_parse_int ("events", "--since", optarg, 0, LLONG_MAX, &value))
                return DROVER_EXIT_USAGE;
            self->printed = (uint64_t) value;
            self->since = self->tracking = true;
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
    *events_p = drover_cli_globals.events;
    if (!*events_p || !**events_p)
        *events_p = getenv ("DROVER_EVENTS");
    if (*events_p && !**events_p)
        *events_p = NULL;
    return 0;
}

//  Take one connection event of the feed: a publisher up (replay what it
//  keeps, if we count), down (none left: give them the timeout to come
//  back), or refused (say it: exit). Returns 0, or the exit status;
//  *deadline_p is when to give up (0 while a publisher is up).
static int
s_connection (s_events_t *self, int64_t *deadline_p)
{
    char endpoint [DROVER_ENDPOINT_MAX + 16], reason [256];
    int said = drover_cli_feed_read (self->feed, endpoint, sizeof endpoint, reason, sizeof reason);
    if (said == DROVER_CLI_FEED_REFUSED) {
        fprintf (stderr, "drover events: %s at %s\n", reason, endpoint);
        return DROVER_EXIT_FAILED;
    }
    if (said == DROVER_CLI_FEED_UP) {
        *deadline_p = 0;
        //  Subscribed there (what it publishes from now on waits in the
        //  SUB): print what was missed before, at start with --since, and
        //  after each reconnect (a broker restart)
        return self->tracking? s_replay (self): 0;
    }
    if (said == DROVER_CLI_FEED_DOWN) {
        if (drover_cli_feed_up (self->feed) == 0 && *deadline_p == 0) {
            fprintf (stderr, "drover events: lost the publisher at %s, reconnecting\n",
                     endpoint);
            *deadline_p = zclock_mono () + drover_cli_globals.timeout;
        }
        self->follow_at = zclock_mono ();
    }
    return 0;
}

//  Hear the feed until interrupted, or no publisher answers within the
//  timeout. Returns the exit status.
static int
s_run (s_events_t *self)
{
    zsock_t *sub = drover_cli_feed_sock (self->feed);
    zsock_t *monitor = drover_cli_feed_monitor (self->feed);
    zpoller_t *poller = zpoller_new (sub, monitor, NULL);
    assert (poller);
    int timeout = drover_cli_globals.timeout;
    int64_t deadline = zclock_mono () + timeout;        //  0 while a publisher is up
    uint64_t malformed = 0;
    int status = DROVER_EXIT_OK;
    while (status == DROVER_EXIT_OK) {
        int64_t now = zclock_mono ();
        if (self->follow_at && now >= self->follow_at) {
            s_follow (self);
            continue;
        }
        int64_t wake = deadline;
        if (self->follow_at && (!wake || self->follow_at < wake))
            wake = self->follow_at;
        void *which = zpoller_wait (poller, wake? (int) MAX (wake - now, 0): -1);
        if (which == monitor) {
            status = s_connection (self, &deadline);
            continue;
        }
        if (which != sub) {
            if (zpoller_terminated (poller) || zsys_interrupted)
                break;              //  interrupted
            if (!deadline || zclock_mono () < deadline)
                continue;           //  time to look for the leader
            fprintf (stderr, "drover events: no event stream at %s within %d msec (is the "
                     "broker running, and is that where it publishes? see --events)\n",
                     drover_cli_feed_list (self->feed), timeout);
            status = DROVER_EXIT_FAILED;
            break;
        }
        zmsg_t *msg = zmsg_recv (sub);
        if (!msg)
            break;                  //  interrupted
        zframe_t *topic = zmsg_first (msg);
        zframe_t *body = zmsg_next (msg);
        drover_event_t event;
        if (zmsg_size (msg) == 2 && topic && body
        &&  drover_event_decode (&event, zframe_data (body), zframe_size (body)) == 0) {
            //  With --since, what comes before the first replay is listed
            //  by it (it is kept)
            if (!self->since || self->replays)
                status = s_heard (self, &event);
        }
        else
        if (malformed++ == 0)
            fprintf (stderr, "drover events: skipping a malformed event\n");
        zmsg_destroy (&msg);
    }
    zpoller_destroy (&poller);
    return status;
}

//  drover events: the brokers' event streams, one JSON line per event
int
drover_cli_events (int argc, char **argv)
{
    const char *topics [64];
    s_events_t self = { .topics = topics };
    const char *events = NULL;
    int rc = s_parse (&self, argc, argv, &events);
    if (rc)
        return rc == DROVER_CLI_HELP? DROVER_EXIT_OK: rc;
    if (drover_cli_keys ("events", &self.key, &self.server_key))
        return DROVER_EXIT_USAGE;
    char *error = NULL;
    if (self.key) {
        //  Each broker's key, paired as the list of publishers (--events)
        //  or of brokers names them (ENDPOINT=KEY)
        const char *brokers = drover_cli_globals.broker? drover_cli_globals.broker
                            : getenv ("DROVER_BROKER");
        self.keys = drover_cli_server_keys (self.server_key, events? events: brokers, &error);
    }
    self.feed = self.key && !self.keys? NULL
              : drover_cli_feed_new (self.key, topics, self.ntopics, &error);
    if (!self.feed) {
        fprintf (stderr, "drover events: %s\n", error);
        zstr_free (&error);
        drover_serverkeys_destroy (&self.keys);
        return DROVER_EXIT_USAGE;
    }
    rc = s_hear_list (&self, events);
    if (rc == 0) {
        s_follow (&self);
        rc = s_run (&self);
    }
    drover_client_destroy (&self.client);
    drover_cli_feed_destroy (&self.feed);
    drover_serverkeys_destroy (&self.keys);
    return rc;
}
