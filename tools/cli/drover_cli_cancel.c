/*  =========================================================================
    drover_cli_cancel - `drover cancel`: tasks by id, or every task that a
    filter matches (--state, --label, --all), after a confirmation on a
    terminal unless --yes; without a terminal a filter needs --yes

    A filter lists the matching tasks with TASK LIST (the labels as its
    optional trailing filter, PROTOCOL.md §7.15; with CURVE a client key
    lists its own tasks only), then cancels them one by one. TASK LIST
    gives at most DROVER_ROWS_MAX rows a state: past that it lists again
    until nothing matching is left.
    =========================================================================
*/

#include "drover_cli.h"
#include <ctype.h>
#include <unistd.h>

//  What the flags said
typedef struct {
    int state;                  //  --state: a state, or -1 for every one not final
    const char *labels [DROVER_LABELS_MAX];     //  --label k=v, all must match
    uint32_t nlabels;           //  how many
    bool all;                   //  --all
    bool yes;                   //  --yes: no confirmation
} s_filter_t;

//  How a cancel went
typedef struct {
    size_t cancelled;           //  tasks cancelled
    size_t ended;               //  ended meanwhile (410), or gone (404)
} s_counts_t;

//  Print cancel's usage
static void
s_usage (FILE *stream)
{
    fprintf (stream,
        "usage: drover cancel ID...\n"
        "       drover cancel [-s|--state S] [-l|--label k=v]... [-a|--all] [-y|--yes]\n"
        "\n"
        "Cancels each task: a queued one leaves the queue, a running one is killed.\n"
        "With a filter instead of ids, cancels every task not final that matches it:\n"
        "  -s, --state S    only tasks in state S: queued, assigned or running\n"
        "  -l, --label k=v  only tasks submitted with this label (repeatable: all of them)\n"
        "  -a, --all        every task not final (with a CURVE client key: your own)\n"
        "  -y, --yes        do not ask; without a terminal a filter needs it\n"
        "It says how many match and asks first (on a terminal), then how many it\n"
        "cancelled. Exit status 1 if any could not be cancelled (unknown, or already\n"
        "finished: by id only; a task of a filter that ended meanwhile is counted apart),\n"
        "2 for bad arguments or a filter refused for want of --yes.\n");
}

//  Cancel tasks by id: each in turn; stop early if the broker is unreachable
static int
s_cancel_ids (drover_client_t *client, const uint64_t *ids, size_t count)
{
    int rc = DROVER_EXIT_OK;
    for (size_t index = 0; index < count; index++) {
        if (drover_client_cancel (client, ids [index]) == 0) {
            printf ("cancelled %llu\n", (unsigned long long) ids [index]);
            continue;
        }
        char what [64];
        snprintf (what, sizeof what, "cancel %llu", (unsigned long long) ids [index]);
        rc = drover_cli_error (client, what);
        int code = drover_client_error_code (client);
        if (code > 0 && code < 300)
            break;                  //  unreachable or interrupted: the rest would be too
    }
    return rc;
}

//  List the tasks the filter matches now, at most DROVER_ROWS_MAX a state,
//  into *ids_p (caller frees); returns 0 or the exit status. *more_p says
//  whether a state had more than listed.
static int
s_matching (drover_client_t *client, s_filter_t *filter, uint64_t **ids_p, size_t *count_p,
            bool *more_p)
{
    int states [] = { DROVER_TASK_QUEUED, DROVER_TASK_ASSIGNED, DROVER_TASK_RUNNING };
    *ids_p = NULL;
    *count_p = 0;
    *more_p = false;
    for (int index = 0; index < 3; index++) {
        if (filter->state != -1 && filter->state != states [index])
            continue;
        drover_msg_t *table = drover_client_task_table (client, states [index], DROVER_ROWS_MAX,
                                                           filter->labels, filter->nlabels);
        if (!table) {
            if (drover_client_error_code (client) == DROVER_CODE_BAD_REQUEST && filter->nlabels)
                fprintf (stderr, "drover cancel: the broker does not filter tasks by label "
                         "(older than this drover?)\n");
            return drover_cli_error (client, "cancel: list tasks");
        }
        *ids_p = (uint64_t *) realloc (*ids_p, (*count_p + table->nrows + 1) * sizeof (uint64_t));
        assert (*ids_p);
        for (uint32_t row = 0; row < table->nrows; row++)
            if (table->task_rows [row].state == states [index])
                (*ids_p) [(*count_p)++] = table->task_rows [row].task;
        *more_p |= table->nrows >= DROVER_ROWS_MAX;
        drover_msg_destroy (&table);
    }
    return 0;
}

//  Describe the filter: "queued tasks with zone=a"
static void
s_describe (s_filter_t *filter, char *buffer, size_t size)
{
    char state [16] = "unfinished";
    if (filter->state != -1)
        snprintf (state, sizeof state, "%s", drover_task_state_name (filter->state));
    for (char *cursor = state; *cursor; cursor++)
        *cursor = (char) tolower ((unsigned char) *cursor);
    int length = snprintf (buffer, size, "%s task(s)", state);
    for (uint32_t index = 0; index < filter->nlabels && length < (int) size; index++)
        length += snprintf (buffer + length, size - length, "%s%s", index? ", ": " with ",
                            filter->labels [index]);
}

//  Ask on the terminal; true if the answer starts with y
static bool
s_confirm (size_t count, bool more, const char *what)
{
    fprintf (stderr, "cancel %zu%s %s? [y/N] ", count, more? " or more": "", what);
    fflush (stderr);
    char answer [16] = "";
    if (!fgets (answer, sizeof answer, stdin))
        return false;
    return answer [0] == 'y' || answer [0] == 'Y';
}

//  Cancel what the filter matches, list after list
static int
s_cancel_matching (drover_client_t *client, s_filter_t *filter)
{
    char what [512];
    s_describe (filter, what, sizeof what);
    s_counts_t counts = { 0, 0 };
    bool asked = false;
    int rc = DROVER_EXIT_OK;
    while (rc == DROVER_EXIT_OK) {
        uint64_t *ids;
        size_t count;
        bool more;
        rc = s_matching (client, filter, &ids, &count, &more);
        if (rc || count == 0) {
            free (ids);
            break;
        }
        if (!asked && !filter->yes) {
            if (!isatty (STDIN_FILENO)) {
                fprintf (stderr, "drover cancel: %zu%s %s match; not cancelling without a "
                         "terminal to confirm: give --yes\n", count, more? " or more": "", what);
                free (ids);
                return DROVER_EXIT_USAGE;
            }
            if (!s_confirm (count, more, what)) {
                fprintf (stderr, "drover cancel: nothing cancelled\n");
                free (ids);
                return DROVER_EXIT_OK;
            }
        }
        asked = true;
        size_t before = counts.cancelled;
        for (size_t index = 0; index < count && rc == DROVER_EXIT_OK; index++) {
            if (drover_client_cancel (client, ids [index]) == 0)
                counts.cancelled++;
            else {
                int code = drover_client_error_code (client);
                if (code == DROVER_CODE_CONFLICT || code == DROVER_CODE_NOT_FOUND)
                    counts.ended++;     //  ended since it was listed
                else {
                    char action [64];
                    snprintf (action, sizeof action, "cancel %llu", (unsigned long long) ids [index]);
                    rc = drover_cli_error (client, action);
                }
            }
        }
        free (ids);
        if (!more || counts.cancelled == before)
            break;                  //  all listed, or no progress: stop
    }
    printf ("cancelled %zu task%s", counts.cancelled, counts.cancelled == 1? "": "s");
    if (counts.ended)
        printf (" (%zu ended before they could be)", counts.ended);
    printf ("\n");
    return rc;
}

//  drover cancel
int
drover_cli_cancel (int argc, char **argv)
{
    static struct option long_options [] = {
        { "state", required_argument, NULL, 's' },
        { "label", required_argument, NULL, 'l' },
        { "all", no_argument, NULL, 'a' },
        { "yes", no_argument, NULL, 'y' },
        DROVER_CLI_COMMON_OPTIONS,
        DROVER_CLI_KEY_OPTION,
        { NULL, 0, NULL, 0 }
    };
    s_filter_t filter = { .state = -1 };
    bool filtered = false;      //  --state, --label or --all given
    optind = 0;
    opterr = 0;
    int option;
    while ((option = getopt_long (argc, argv, ":hs:l:ay", long_options, NULL)) != -1) {
        if (option == 'h') {
            s_usage (stdout);
            return DROVER_EXIT_OK;
        }
        else
        if (option == 's') {
            filter.state = drover_cli_parse_state (optarg);
            if (filter.state != DROVER_TASK_QUEUED && filter.state != DROVER_TASK_ASSIGNED
            &&  filter.state != DROVER_TASK_RUNNING)
                return drover_cli_usage_error ("cancel", "--state: '%s' is not one of queued, "
                                               "assigned, running", optarg);
            filtered = true;
        }
        else
        if (option == 'l') {
            if (!drover_label_valid (optarg))
                return drover_cli_usage_error ("cancel", "--label: '%s' is not key=value", optarg);
            if (filter.nlabels == DROVER_LABELS_MAX)
                return drover_cli_usage_error ("cancel", "--label: at most %d", DROVER_LABELS_MAX);
            filter.labels [filter.nlabels++] = optarg;
            filtered = true;
        }
        else
        if (option == 'a')
            filtered = filter.all = true;
        else
        if (option == 'y')
            filter.yes = true;
        else {
            int rc = drover_cli_common_option ("cancel", option, argv);
            if (rc)
                return rc;
        }
    }
    if (filtered && optind < argc)
        return drover_cli_usage_error ("cancel", "ids and --state, --label or --all: give one "
                                       "or the other");
    if (!filtered && optind >= argc)
        return drover_cli_usage_error ("cancel", "which tasks? (drover cancel ID..., or "
                                       "--state S, --label k=v, --all)");
    uint64_t *ids = NULL;
    if (!filtered) {
        ids = (uint64_t *) zmalloc ((argc - optind) * sizeof (uint64_t));
        for (int index = optind; index < argc; index++)
            if (drover_cli_parse_id ("cancel", argv [index], &ids [index - optind])) {
                free (ids);
                return DROVER_EXIT_USAGE;
            }
    }
    drover_client_t *client = drover_cli_connect ("cancel");
    int rc = DROVER_EXIT_USAGE;
    if (client)
        rc = filtered? s_cancel_matching (client, &filter)
                     : s_cancel_ids (client, ids, (size_t) (argc - optind));
    drover_client_destroy (&client);
    free (ids);
    return rc;
}
