/*  =========================================================================
    drover_cli_queues - the named queues in the CLI: `drover status` shows
    where each is served, and `submit --queue Q` talks to Q's brokers

    Any broker answers QUEUES (a standby too: PROTOCOL.md §7.39), so both
    ask the list they were given. A command of one queue then connects its
    client to Q's endpoints, the owner's first, and the client library's
    list and REDIRECT following do the rest (drover_client_queue_endpoints
    is the one place that decides that list; `drover worker` uses it too).
    =========================================================================
*/

#include "drover_cli.h"
#include <ctype.h>

//  Print the queues for people, a line each (name, owner, owner
//  endpoint), the first labelled "queues:"; nothing when there are none
void
drover_cli_queues_print (const drover_msg_t *table, FILE *stream)
{
    int width = 0, owner_width = 0;
    for (uint32_t index = 0; table && index < table->nqueues; index++) {
        const drover_queue_row_t *row = &table->queue_rows [index];
        if ((int) strlen (row->name) > width)
            width = (int) strlen (row->name);
        int owner = *row->owner? (int) strlen (row->owner): 10;
        if (owner > owner_width)
            owner_width = owner;
    }
    for (uint32_t index = 0; table && index < table->nqueues; index++) {
        const drover_queue_row_t *row = &table->queue_rows [index];
        char owner [DROVER_ID_MAX + 1], endpoint [DROVER_ENDPOINT_MAX + 1];
        drover_cli_printable (row->owner, owner, sizeof owner);
        drover_cli_printable (row->owner_endpoint, endpoint, sizeof endpoint);
        fprintf (stream, "%-9s%-*s  %-*s  %s\n", index? "": "queues:", width, row->name,
                 owner_width, *owner? owner: "(no owner)", *endpoint? endpoint: "-");
    }
}

//  Print the queues as a JSON array of {name, owner, owner_endpoint,
//  token, endpoints}, no newline ([] for none)
void
drover_cli_queues_print_json (const drover_msg_t *table, FILE *stream)
{
    fputc ('[', stream);
    for (uint32_t index = 0; table && index < table->nqueues; index++) {
        const drover_queue_row_t *row = &table->queue_rows [index];
        fprintf (stream, "%s{\"name\":", index? ",": "");
        drover_cli_json_string (stream, row->name);
        fprintf (stream, ",\"owner\":");
        drover_cli_json_string (stream, row->owner);
        fprintf (stream, ",\"owner_endpoint\":");
        drover_cli_json_string (stream, row->owner_endpoint);
        fprintf (stream, ",\"token\":%" PRIu64 ",\"endpoints\":[", row->token);
        const char *item = row->endpoints? row->endpoints: "";
        for (int count = 0; *item; count++) {
            const char *end = strchr (item, ',');
            size_t length = end? (size_t) (end - item): strlen (item);
            char *endpoint = zsys_sprintf ("%.*s", (int) length, item);
            fprintf (stream, "%s", count? ",": "");
            drover_cli_json_string (stream, endpoint);
            zstr_free (&endpoint);
            item += length + (end? 1: 0);
        }
        fprintf (stream, "]}");
    }
    fputc (']', stream);
}

//  Connect a client for command; to queue's brokers when a queue is named
//  (queue, else DROVER_QUEUE), else as drover_cli_connect
int
drover_cli_queue_connect (const char *command, const char *queue, drover_client_t **client_p)
{
    *client_p = NULL;
    if (!queue)
        queue = getenv ("DROVER_QUEUE");
    if (queue && !*queue)
        queue = NULL;
    drover_client_t *client = drover_cli_connect (command);
    if (!client)
        return DROVER_EXIT_USAGE;       //  it said why
    if (!queue) {
        *client_p = client;
        return 0;
    }
    if (!drover_queue_name_valid (queue)) {
        drover_client_destroy (&client);
        return drover_cli_usage_error (command, "--queue '%.64s' is not a queue name "
                                       "(1..64 of A-Z a-z 0-9 . _ -)", queue);
    }
    char *list = drover_client_queue_endpoints (client, queue);
    if (!list) {
        int code = drover_client_error_code (client);
        int rc;
        if (code == DROVER_CODE_NOT_FOUND || code == DROVER_CODE_UNEXPECTED) {
            fprintf (stderr, "drover %s: %s\n", command, drover_client_error_text (client));
            rc = DROVER_EXIT_USAGE;
        }
        else
            rc = drover_cli_error (client, command);
        drover_client_destroy (&client);
        return rc;
    }
    drover_client_destroy (&client);
    //  The queue's list is the command's from now on: whatever else it
    //  asks (why a task waits, its worker) is asked of the queue's brokers
    static char *queue_list = NULL;
    zstr_free (&queue_list);
    queue_list = list;
    drover_cli_globals.broker = queue_list;
    client = drover_cli_connect (command);
    if (!client)
        return DROVER_EXIT_USAGE;
    *client_p = client;
    return 0;
}
