/*  =========================================================================
    drover_cli_backup - `drover admin`: an operator's tasks on the broker
    itself. `drover admin backup FILE` has the broker copy its state,
    while it serves, into FILE on its own host (STATE BACKUP, level 5),
    and says how much it copied and how long it took

    While the broker copies, a small actor hears its state.backup events
    (the broker's publisher, as `drover events` finds it) and prints their
    progress on stderr; the answer itself comes on the client's request.
    =========================================================================
*/

#include "drover_cli.h"
#include "drover_config.h"

//  Print admin's usage
static void
s_usage (FILE *stream)
{
    fprintf (stream,
        "usage: drover admin backup FILE [--json] [--wait SECONDS]\n"
        "\n"
        "An operator's tasks on the broker itself (an admin's requests: with CURVE, a key\n"
        "in the broker's admins/ directory).\n"
        "\n"
        "backup FILE  the broker copies its state, while it goes on serving, into FILE:\n"
        "             a consistent SQLite database holding every task and setting kept\n"
        "             until the copy ended (SQLite's online backup, not a file copy).\n"
        "             FILE is an absolute path on the BROKER's host, written by the\n"
        "             broker (its user needs write access to the directory); it must\n"
        "             not exist. The broker writes FILE.part and renames it once whole.\n"
        "             Progress is printed on stderr while it copies. To restore: stop\n"
        "             the broker, put FILE in place of the state directory's state.db\n"
        "             (and remove state.db-wal), start it (docs/operating.md, \"Backups\n"
        "             and restore\"). A broker on PostgreSQL answers to use pg_dump; one\n"
        "             with durability off keeps nothing to back up.\n"
        "  --json            print the result as one JSON object\n"
        "  --wait SECONDS    how long to wait for the copy (default 3600)\n"
        "\n"
        "The broker must speak protocol level 5 (drover 0.5 or later).\n"
        "exit status: 0 backed up; 1 refused (the reason is printed) or the broker did\n"
        "not answer; 2 bad flags or arguments.\n");
}


//  The progress printer: hears state.backup events on the publisher at
//  args (a string, ours to free) and prints each one's reason on stderr
//  until $TERM
static void
s_progress_actor (zsock_t *pipe, void *args)
{
    char *endpoint = (char *) args;
    const char *topics [] = { "state.backup" };
    char *error = NULL;
    drover_cli_feed_t *feed = drover_cli_feed_new (NULL, topics, 1, &error);
    if (feed && drover_cli_feed_add (feed, endpoint, NULL) < 0)
        drover_cli_feed_destroy (&feed);
    zstr_free (&error);
    zsock_signal (pipe, 0);
    zpoller_t *poller = zpoller_new (pipe, feed? drover_cli_feed_sock (feed): NULL, NULL);
    while (true) {
        void *which = zpoller_wait (poller, -1);
        if (which == pipe || !which)
            break;              //  $TERM, or interrupted
        zmsg_t *msg = zmsg_recv (which);
        if (!msg)
            break;
        char *topic = zmsg_popstr (msg);
        zframe_t *body = zmsg_pop (msg);
        drover_event_t event;
        if (topic && body && streq (topic, "state.backup")
        &&  drover_event_decode (&event, zframe_data (body), zframe_size (body)) == 0)
            fprintf (stderr, "backup: %s\n", event.reason);
        zstr_free (&topic);
        zframe_destroy (&body);
        zmsg_destroy (&msg);
    }
    zpoller_destroy (&poller);
    drover_cli_feed_destroy (&feed);
    free (endpoint);
}

//  Start the progress printer on the broker's publisher, if we know where
//  it is and need no key to hear it (with CURVE: no progress, only the
//  result); NULL if not
static zactor_t *
s_progress_start (drover_client_t *client)
{
    const char *key = NULL, *server_key = NULL;
    if (drover_cli_keys ("admin", &key, &server_key) || key)
        return NULL;
    const char *events = drover_cli_globals.events? drover_cli_globals.events
                                                  : getenv ("DROVER_EVENTS");
    char derived [256];
    if (!events || !*events || strchr (events, ',')) {
        const char *router = drover_client_endpoint (client);
        if (!router || strchr (router, ',')
        ||  drover_cli_feed_derive (router, derived, sizeof derived))
            return NULL;
        events = derived;
    }
    return zactor_new (s_progress_actor, strdup (events));
}

//  drover admin backup FILE
static int
s_backup (const char *path, int wait)
{
    if (path [0] != '/') {
        return drover_cli_usage_error ("admin", "backup: %s is not an absolute path: the "
                                       "broker writes the file on its own host, so give the "
                                       "full path there (e.g. /var/backups/drover/state.db)",
                                       path);
    }
    drover_client_t *client = drover_cli_connect ("admin");
    if (!client)
        return DROVER_EXIT_USAGE;
    zactor_t *progress = drover_cli_globals.json? NULL: s_progress_start (client);
    drover_backup_result_t result = { 0 };
    int rc = drover_client_backup (client, path, wait * 1000, &result);
    zactor_destroy (&progress);
    if (rc) {
        char what [64];
        snprintf (what, sizeof what, "admin backup");
        rc = drover_cli_error (client, what);
    }
    else
    if (drover_cli_globals.json) {
        printf ("{\"path\":");
        drover_cli_json_string (stdout, path);
        printf (",\"pages\":%llu,\"bytes\":%llu,\"msec\":%u}\n",
                (unsigned long long) result.pages, (unsigned long long) result.bytes,
                result.msec);
    }
    else {
        char size [32];
        drover_config_print_size (result.bytes, size, sizeof size);
        printf ("backed up %llu pages (%s) to %s in %.1f s\n",
                (unsigned long long) result.pages, size, path, result.msec / 1000.0);
    }
    drover_client_destroy (&client);
    return rc? rc: DROVER_EXIT_OK;
}

//  drover admin ACTION ...: one action today, backup
int
drover_cli_operator (int argc, char **argv)
{
    static struct option long_options [] = {
        { "json", no_argument, NULL, 'j' },
        { "wait", required_argument, NULL, 'W' },
        DROVER_CLI_COMMON_OPTIONS,
        DROVER_CLI_KEY_OPTION,
        { NULL, 0, NULL, 0 }
    };
    long long wait = 3600;
    optind = 0;
    opterr = 0;
    int option;
    while ((option = getopt_long (argc, argv, ":hj", long_options, NULL)) != -1) {
        switch (option) {
            case 'h':
                s_usage (stdout);
                return DROVER_EXIT_OK;
            case 'j':
                drover_cli_globals.json = true;
                break;
            case 'W':
                if (drover_cli_parse_int ("admin", "--wait", optarg, 1, 30 * 86400, &wait))
                    return DROVER_EXIT_USAGE;
                break;
            default: {
                int rc = drover_cli_common_option ("admin", option, argv);
                if (rc)
                    return rc == DROVER_CLI_HELP? DROVER_EXIT_OK: rc;
            }
        }
    }
    if (optind >= argc)
        return drover_cli_usage_error ("admin", "what? (drover admin backup FILE; see drover "
                                       "admin --help)");
    const char *action = argv [optind];
    if (!streq (action, "backup"))
        return drover_cli_usage_error ("admin", "unknown action '%s': backup (see drover admin "
                                       "--help)", action);
    if (optind + 1 >= argc)
        return drover_cli_usage_error ("admin", "backup: which file? (drover admin backup FILE:"
                                       " an absolute path on the broker's host)");
    if (optind + 2 < argc)
        return drover_cli_usage_error ("admin", "unexpected argument '%s'", argv [optind + 2]);
    return s_backup (argv [optind + 1], (int) wait);
}
