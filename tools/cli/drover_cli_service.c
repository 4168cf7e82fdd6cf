/*  =========================================================================
    drover_cli_service - `drover service`: create, list, show, scale and
    delete services, and the reconciler's last term's statistics (SERVICE
    ADMIN, SERVICE LIST), for people or as JSON

    A service is a set of long-running tasks (replicas) the broker keeps at
    a count, placed by its reconciler (docs/services.md). The statistics
    printers here are shared with `drover plan` (drover_cli_plan.c), which
    shows them before and after a change.
    =========================================================================
*/

#include "drover_cli.h"

//  What a service command asks for, from its arguments
typedef struct {
    int action;                 //  S_LIST, S_SHOW, ...
    const char *name;           //  the service named, or NULL
    uint32_t count;             //  create: --replicas; scale: N
    bool replicas_given;        //  create: --replicas was given
    drover_service_row_t def;   //  create: the definition (labels borrowed from argv)
    int argc;                   //  create: the command's words
    const char **argv;          //  create: the command (argv's, borrowed)
} s_request_t;

#define S_LIST      0
#define S_SHOW      1
#define S_CREATE    2
#define S_SCALE     3
#define S_DELETE    4
#define S_STATS     5
#define S_ACTIONS   6

//  The actions, as typed
static const char *s_action_names [S_ACTIONS] = {
    "list", "show", "create", "scale", "delete", "stats"
};

//  Print service's usage
static void
s_usage (FILE *stream)
{
    fprintf (stream,
        "usage: drover service create NAME --replicas N [--procs P] [--mem SIZE]\n"
        "                             [--label k=v]... [--restart-delay SECONDS]\n"
        "                             [--max-per-worker N] -- CMD ARGS...\n"
        "       drover service list [--json]           every service, and the last term\n"
        "       drover service show NAME [--json]      one service and each of its replicas\n"
        "       drover service scale NAME N            keep N replicas running\n"
        "       drover service delete NAME             forget it and stop its replicas\n"
        "       drover service stats [--json]          the reconciler's last term\n"
        "\n"
        "A service is CMD ARGS run as N long-running tasks, its replicas, which the broker\n"
        "keeps running: one that exits is started again after --restart-delay (doubling\n"
        "while it keeps crashing), one whose worker is lost is started elsewhere. Each\n"
        "replica slot goes to the first worker, in rendezvous order of (service, slot), that\n"
        "has the labels and room, so workers joining or leaving move only the replicas\n"
        "they must. Definitions survive a broker restart. See docs/services.md.\n"
        "\n"
        "create options:\n"
        "  -r, --replicas N        replicas to keep running (0 keeps the definition idle)\n"
        "  -n, --procs P           procs each replica needs (default 1)\n"
        "  -m, --mem SIZE          memory each replica needs: bytes, or with K, M, G, T\n"
        "  -l, --label k=v         run only on workers with this label (repeatable)\n"
        "  --restart-delay SECONDS\n"
        "                          before an exited replica starts again (default: the\n"
        "                          broker's service/restart-delay)\n"
        "  --max-per-worker N      at most N replicas on one worker (1: each on its own, as\n"
        "                          an orchestrator does; default unlimited). A replica that\n"
        "                          cannot be placed because of it waits, and says so\n"
        "\n"
        "list: one row per service: NAME, WANT (replicas), RUN (running), PEND (started, not\n"
        "running yet), STATE (ok, under, over, lost: none running, crashing), RESTARTS, AGE,\n"
        "COMMAND, WHY. show: its definition, then one row per replica: SLOT, WORKER, STATE\n"
        "(pending, running, stopping, waiting), TASK, ATTEMPT, SINCE, RESTARTS, WHY.\n"
        "stats: the last term: complete, or why it removed nothing; workers asked and\n"
        "answered; services lost, under, ok, over; replicas wanted, running, pending;\n"
        "started, stopped, moved (of which rebalanced toward their best worker); replicas at\n"
        "their best position and not, and a histogram of their rendezvous rank (0: the first\n"
        "eligible worker of their slot's order); replicas left unplaced by max-per-worker;\n"
        "a histogram of the replicas by restarts.\n"
        "--json prints one JSON document instead (times in ISO 8601 UTC).\n"
        "\n"
        "exit status: 0 ok; 1 the broker refused (no such service: 404; exists: 410; past\n"
        "its bounds: 302; not an admin key: 403) or did not answer; 2 bad flags or arguments.\n");
}

//  Parse the flags after the action's words (argv [0] is the last word
//  before them); create's stop at its command. Returns 0, DROVER_CLI_HELP
//  or an exit status.
static int
s_parse_flags (int argc, char **argv, s_request_t *request)
{
    static struct option long_options [] = {
        { "json", no_argument, NULL, 'j' },
        { "replicas", required_argument, NULL, 'r' },
        { "procs", required_argument, NULL, 'n' },
        { "mem", required_argument, NULL, 'm' },
        { "label", required_argument, NULL, 'l' },
        { "restart-delay", required_argument, NULL, 'd' },
        { "max-per-worker", required_argument, NULL, 'p' },
        DROVER_CLI_COMMON_OPTIONS,
        DROVER_CLI_KEY_OPTION,
        { NULL, 0, NULL, 0 }
    };
    bool create = request->action == S_CREATE;
    long long value;
    optind = 0;
    opterr = 0;
    int option;
    while ((option = getopt_long (argc, argv, create? "+:hjr:n:m:l:": ":hj", long_options,
                                  NULL)) != -1) {
        bool create_only = option == 'r' || option == 'n' || option == 'm' || option == 'l'
                        || option == 'd' || option == 'p';
        if (create_only && !create)
            return drover_cli_usage_error ("service", "--replicas, --procs, --mem, --label, "
                                           "--restart-delay and --max-per-worker go with "
                                           "create only");
        switch (option) {
            case 'h':
                s_usage (stdout);
                return DROVER_CLI_HELP;
            case 'j':
                drover_cli_globals.json = true;
                break;
            case 'r':
                if (drover_cli_parse_int ("service", "--replicas", optarg, 0, UINT32_MAX,
                                          &value))
                    return DROVER_EXIT_USAGE;
                request->def.replicas = (uint32_t) value;
                request->replicas_given = true;
                break;
            case 'n':
                if (drover_cli_parse_int ("service", "--procs", optarg, 1, 1 << 20, &value))
                    return DROVER_EXIT_USAGE;
                request->def.procs = (uint32_t) value;
                break;
            case 'm':
                if (drover_cli_parse_size ("service", "--mem", optarg, &request->def.mem))
                    return DROVER_EXIT_USAGE;
                break;
            case 'l':
                if (!drover_label_valid (optarg))
                    return drover_cli_usage_error ("service", "--label: '%s' is not key=value "
                                                   "(key of letters, digits, _ . -)", optarg);
                if (request->def.nlabels >= DROVER_LABELS_MAX)
                    return drover_cli_usage_error ("service", "--label: at most %d labels",
                                                   DROVER_LABELS_MAX);
                request->def.labels [request->def.nlabels++] = optarg;
                break;
            case 'p':
                if (drover_cli_parse_int ("service", "--max-per-worker", optarg, 1, UINT32_MAX,
                                          &value))
                    return DROVER_EXIT_USAGE;
                request->def.max_per_worker = (uint32_t) value;
                break;
            case 'd':
                if (drover_cli_parse_seconds ("service", "--restart-delay", optarg,
                                              UINT32_MAX / 1000, &request->def.restart_delay))
                    return DROVER_EXIT_USAGE;
                break;
            default: {
                int rc = drover_cli_common_option ("service", option, argv);
                if (rc)
                    return rc;
            }
        }
    }
    return 0;
}

//  Parse `service ACTION [NAME [N]] [flags] [-- CMD ARGS...]`. Returns 0,
//  DROVER_CLI_HELP, or an exit status.
static int
s_parse (int argc, char **argv, s_request_t *request)
{
    if (argc < 2 || streq (argv [1], "-h") || streq (argv [1], "--help")) {
        s_usage (argc < 2? stderr: stdout);
        return argc < 2? DROVER_EXIT_USAGE: DROVER_CLI_HELP;
    }
    request->action = -1;
    for (int action = 0; action < S_ACTIONS; action++)
        if (streq (argv [1], s_action_names [action]))
            request->action = action;
    if (request->action < 0) {
        for (int action = 0; action < S_ACTIONS; action++) {
            size_t distance = drover_cli_distance (argv [1], s_action_names [action]);
            if (distance <= 2 && distance < strlen (argv [1]))
                return drover_cli_usage_error ("service", "unknown action '%s': did you mean "
                                               "'%s'? (see drover service --help)", argv [1],
                                               s_action_names [action]);
        }
        return drover_cli_usage_error ("service", "unknown action '%s': create, list, show, "
                                       "scale, delete or stats (see drover service --help)",
                                       argv [1]);
    }
    //  The words the action takes come first: NAME (and N), then the flags
    int words = request->action == S_LIST || request->action == S_STATS? 0
              : request->action == S_SCALE? 2: 1;
    for (int word = 0; word < words; word++)
        if (2 + word >= argc || argv [2 + word][0] == '-') {
            if (2 + word < argc && (streq (argv [2 + word], "-h")
                                ||  streq (argv [2 + word], "--help"))) {
                s_usage (stdout);
                return DROVER_CLI_HELP;
            }
            return drover_cli_usage_error ("service", "%s needs %s first (drover service %s)",
                                           s_action_names [request->action],
                                           word? "the replicas": "a service name",
                                           request->action == S_SCALE? "scale NAME N"
                                         : request->action == S_CREATE? "create NAME "
                                           "--replicas N -- CMD ARGS...": "NAME");
        }
    if (words) {
        request->name = argv [2];
        if (!drover_id_valid (request->name))
            return drover_cli_usage_error ("service", "'%s' is not a service name (printable, "
                                           "no spaces, 1..64 bytes)", request->name);
    }
    if (request->action == S_SCALE) {
        long long value;
        if (drover_cli_parse_int ("service", "N", argv [3], 0, UINT32_MAX, &value))
            return DROVER_EXIT_USAGE;
        request->count = (uint32_t) value;
    }
    //  getopt takes the last word as its program name
    int first = 1 + words;
    int rc = s_parse_flags (argc - first, argv + first, request);
    if (rc)
        return rc;
    int rest = first + optind;
    if (request->action == S_CREATE) {
        if (rest >= argc)
            return drover_cli_usage_error ("service", "no command given (drover service create "
                                           "NAME --replicas N -- CMD ARGS...)");
        if (!request->replicas_given)
            return drover_cli_usage_error ("service", "create needs --replicas N");
        snprintf (request->def.name, sizeof request->def.name, "%s", request->name);
        request->argc = argc - rest;
        request->argv = (const char **) argv + rest;
    }
    else
    if (rest < argc)
        return drover_cli_usage_error ("service", "unexpected argument '%s'", argv [rest]);
    return 0;
}


//  ---------------------------------------------------------------------
//  Statistics, shared with `drover plan`

//  The restarts histogram's bucket names
static const char *s_buckets [DROVER_HISTOGRAM_BUCKETS] = {
    "0", "1", "2-3", "4-7", "8-15", "16-31", "32-63", "64+"
};

//  Print a JSON member "name":"ISO UTC" ("" for 0), after a comma
static void
s_json_time (const char *name, uint64_t msec)
{
    char text [48];
    drover_cli_iso_time ((int64_t) msec, true, text, sizeof text);
    printf (",\"%s\":\"%s\"", name, text);
}

//  Print a term's statistics as one JSON object (no newline)
void
drover_cli_service_stats_json (const drover_service_stats_t *stats)
{
    printf ("{\"term\":%llu", (unsigned long long) stats->term);
    s_json_time ("at", stats->at);
    printf (",\"duration_ms\":%u,\"complete\":%s,\"why\":", stats->duration,
            stats->complete? "true": "false");
    drover_cli_json_string (stdout, stats->why);
    printf (",\"workers\":%u,\"answered\":%u,\"services\":%u,\"lost\":%u,\"under\":%u,"
            "\"ok\":%u,\"over\":%u,\"wanted\":%u,\"running\":%u,\"pending\":%u,"
            "\"started\":%u,\"stopped\":%u,\"moved\":%u,\"restarts\":{",
            stats->workers, stats->answered, stats->services, stats->lost, stats->under,
            stats->ok, stats->over, stats->wanted, stats->running, stats->pending,
            stats->started, stats->stopped, stats->moved);
    for (int bucket = 0; bucket < DROVER_HISTOGRAM_BUCKETS; bucket++)
        printf ("%s\"%s\":%u", bucket? ",": "", s_buckets [bucket], stats->restarts [bucket]);
    printf ("},\"best\":%u,\"not_best\":%u,\"ranks\":{", stats->best, stats->not_best);
    for (int bucket = 0; bucket < DROVER_HISTOGRAM_BUCKETS; bucket++)
        printf ("%s\"%s\":%u", bucket? ",": "", s_buckets [bucket], stats->ranks [bucket]);
    printf ("},\"capped\":%u,\"rebalanced\":%u}", stats->capped, stats->rebalanced);
}

//  Print a term's statistics for people, a few lines
static void
s_stats_text (const drover_service_stats_t *stats)
{
    if (stats->term == 0) {
        printf ("no term yet (the reconciler runs terms while services exist)\n");
        return;
    }
    char ended [48] = "", took [32];
    drover_cli_iso_time ((int64_t) stats->at, false, ended, sizeof ended);
    if (stats->duration < 1000)
        snprintf (took, sizeof took, "%ums", stats->duration);
    else
        drover_cli_duration (stats->duration, took, sizeof took);
    printf ("term %llu, ended %s, took %s: %s%s\n", (unsigned long long) stats->term, ended,
            took, stats->complete? "complete": "incomplete, removed nothing: ",
            stats->complete? "": stats->why);
    printf ("workers:  %u asked, %u answered\n", stats->workers, stats->answered);
    printf ("services: %u: %u lost, %u under, %u ok, %u over\n", stats->services, stats->lost,
            stats->under, stats->ok, stats->over);
    printf ("replicas: %u wanted, %u running, %u pending\n", stats->wanted, stats->running,
            stats->pending);
    printf ("changes:  %u started, %u stopped, %u moved (%u rebalanced)\n", stats->started,
            stats->stopped, stats->moved, stats->rebalanced);
    printf ("position: %u best, %u not best; by rank:", stats->best, stats->not_best);
    for (int bucket = 0; bucket < DROVER_HISTOGRAM_BUCKETS; bucket++)
        printf ("  %s: %u", s_buckets [bucket], stats->ranks [bucket]);
    printf ("\n");
    if (stats->capped)
        printf ("capped:   %u replica%s not placed: max-per-worker (see drover service show)\n",
                stats->capped, stats->capped == 1? "": "s");
    printf ("restarts:");
    for (int bucket = 0; bucket < DROVER_HISTOGRAM_BUCKETS; bucket++)
        printf ("  %s: %u", s_buckets [bucket], stats->restarts [bucket]);
    printf ("  (replicas by restarts)\n");
}

//  Print two terms' statistics side by side for people: a row per figure
void
drover_cli_service_stats_compare (const drover_service_stats_t *before,
                                  const drover_service_stats_t *after)
{
    drover_cli_table_t table;
    drover_cli_table_init (&table, 3);
    const char *header [] = { "", "BEFORE", "AFTER" };
    drover_cli_table_add (&table, header);
    const char *names [] = {
        "workers asked", "workers answered", "services", "services lost", "services under",
        "services ok", "services over", "replicas wanted", "replicas running",
        "replicas pending", "replicas started", "replicas stopped", "replicas moved",
        "replicas rebalanced", "replicas best", "replicas not best",
        "replicas capped (max-per-worker)"
    };
    const uint32_t left [] = {
        before->workers, before->answered, before->services, before->lost, before->under,
        before->ok, before->over, before->wanted, before->running, before->pending,
        before->started, before->stopped, before->moved, before->rebalanced, before->best,
        before->not_best, before->capped
    };
    const uint32_t right [] = {
        after->workers, after->answered, after->services, after->lost, after->under,
        after->ok, after->over, after->wanted, after->running, after->pending,
        after->started, after->stopped, after->moved, after->rebalanced, after->best,
        after->not_best, after->capped
    };
    for (size_t index = 0; index < sizeof names / sizeof names [0]; index++) {
        char a [16], b [16];
        snprintf (a, sizeof a, "%u", left [index]);
        snprintf (b, sizeof b, "%u", right [index]);
        const char *cells [] = { names [index], a, b };
        drover_cli_table_add (&table, cells);
    }
    for (int bucket = 0; bucket < DROVER_HISTOGRAM_BUCKETS; bucket++) {
        char name [32], a [16], b [16];
        snprintf (name, sizeof name, "restarts %s", s_buckets [bucket]);
        snprintf (a, sizeof a, "%u", before->restarts [bucket]);
        snprintf (b, sizeof b, "%u", after->restarts [bucket]);
        const char *cells [] = { name, a, b };
        drover_cli_table_add (&table, cells);
    }
    for (int bucket = 0; bucket < DROVER_HISTOGRAM_BUCKETS; bucket++) {
        char name [32], a [16], b [16];
        snprintf (name, sizeof name, "rank %s", s_buckets [bucket]);
        snprintf (a, sizeof a, "%u", before->ranks [bucket]);
        snprintf (b, sizeof b, "%u", after->ranks [bucket]);
        const char *cells [] = { name, a, b };
        drover_cli_table_add (&table, cells);
    }
    const char *complete [] = { "complete", before->complete? "yes": "no",
                                after->complete? "yes": "no" };
    drover_cli_table_add (&table, complete);
    drover_cli_table_print (&table);
    if (!before->complete && *before->why)
        printf ("before: %s\n", before->why);
    if (!after->complete && *after->why)
        printf ("after: %s\n", after->why);
}


//  ---------------------------------------------------------------------
//  Listing

//  Format a memory size for people: "-" for 0, else "512M", "4G"
static void
s_mem (uint64_t bytes, char *buffer, size_t size)
{
    const char *units = "KMGT";
    if (bytes == 0) {
        snprintf (buffer, size, "-");
        return;
    }
    int unit = -1;
    double value = (double) bytes;
    while (value >= 1024 && unit < 3 && (bytes % 1024) == 0) {
        value /= 1024;
        bytes /= 1024;
        unit++;
    }
    if (unit < 0)
        snprintf (buffer, size, "%llu", (unsigned long long) bytes);
    else
        snprintf (buffer, size, "%llu%c", (unsigned long long) bytes, units [unit]);
}

//  Print one service as a JSON object (no newline)
static void
s_service_json (const drover_service_row_t *row)
{
    printf ("{\"name\":");
    drover_cli_json_string (stdout, row->name);
    printf (",\"replicas\":%u,\"running\":%u,\"pending\":%u,\"state\":\"%s\",\"restarts\":%u,"
            "\"procs\":%u,\"mem\":%llu,\"labels\":[", row->replicas, row->running, row->pending,
            drover_service_state_name (row->state), row->restarts, row->procs,
            (unsigned long long) row->mem);
    for (uint32_t index = 0; index < row->nlabels; index++) {
        printf ("%s", index? ",": "");
        drover_cli_json_string (stdout, row->labels [index]);
    }
    printf ("],\"restart_delay_ms\":%u,\"max_per_worker\":%u", row->restart_delay,
            row->max_per_worker);
    s_json_time ("created", row->created);
    printf (",\"command\":");
    drover_cli_json_string (stdout, row->summary);
    printf (",\"why\":");
    drover_cli_json_string (stdout, row->why);
    printf ("}");
}

//  Print one replica as a JSON object (no newline)
static void
s_replica_json (const drover_replica_row_t *row)
{
    printf ("{\"service\":");
    drover_cli_json_string (stdout, row->service);
    printf (",\"slot\":%u,\"worker\":", row->slot);
    drover_cli_json_string (stdout, row->worker);
    printf (",\"state\":\"%s\",\"task\":%llu,\"attempt\":%u",
            drover_replica_state_name (row->state), (unsigned long long) row->task,
            row->attempt);
    s_json_time ("since", row->since);
    printf (",\"restarts\":%u,\"why\":", row->restarts);
    drover_cli_json_string (stdout, row->why);
    printf ("}");
}

//  Print a SERVICE TABLE as one JSON document: list (every service) or
//  show (the one, with its replicas)
static void
s_table_json (const drover_msg_t *table, bool show)
{
    printf ("{\"stats\":");
    drover_cli_service_stats_json (&table->stats_now);
    if (show) {
        printf (",\"service\":");
        if (table->nservices)
            s_service_json (&table->service_rows [0]);
        else
            printf ("null");
        printf (",\"replicas\":[");
        for (uint32_t index = 0; index < table->nreplicas; index++) {
            printf ("%s", index? ",": "");
            s_replica_json (&table->replica_rows [index]);
        }
    }
    else {
        printf (",\"services\":[");
        for (uint32_t index = 0; index < table->nservices; index++) {
            printf ("%s", index? ",": "");
            s_service_json (&table->service_rows [index]);
        }
    }
    printf ("]}\n");
}

//  Print the services for people, then the last term in a line
static void
s_list_text (const drover_msg_t *table)
{
    int64_t now = zclock_time ();
    if (table->nservices == 0)
        printf ("(no services)\n");
    else {
        drover_cli_table_t text;
        drover_cli_table_init (&text, 9);
        const char *header [] = { "NAME", "WANT", "RUN", "PEND", "STATE", "RESTARTS", "AGE",
                                  "COMMAND", "WHY" };
        drover_cli_table_add (&text, header);
        for (uint32_t index = 0; index < table->nservices; index++) {
            const drover_service_row_t *row = &table->service_rows [index];
            char want [16], run [16], pend [16], restarts [16], age [32] = "-";
            snprintf (want, sizeof want, "%u", row->replicas);
            snprintf (run, sizeof run, "%u", row->running);
            snprintf (pend, sizeof pend, "%u", row->pending);
            snprintf (restarts, sizeof restarts, "%u", row->restarts);
            if (row->created)
                drover_cli_duration (now - (int64_t) row->created, age, sizeof age);
            const char *cells [] = { row->name, want, run, pend,
                                     drover_service_state_name (row->state), restarts, age,
                                     row->summary, row->why };
            drover_cli_table_add (&text, cells);
        }
        drover_cli_table_print (&text);
    }
    const drover_service_stats_t *stats = &table->stats_now;
    if (stats->term)
        printf ("term %llu: %s; services %u lost, %u under, %u ok, %u over; replicas %u "
                "wanted, %u running, %u pending\n", (unsigned long long) stats->term,
                stats->complete? "complete": stats->why, stats->lost, stats->under, stats->ok,
                stats->over, stats->wanted, stats->running, stats->pending);
}

//  Print one service and its replicas for people
static void
s_show_text (const drover_msg_t *table)
{
    int64_t now = zclock_time ();
    const drover_service_row_t *row = &table->service_rows [0];
    char mem [32], delay [32] = "the broker's", created [48] = "";
    s_mem (row->mem, mem, sizeof mem);
    if (row->restart_delay)
        drover_cli_duration (row->restart_delay, delay, sizeof delay);
    drover_cli_iso_time ((int64_t) row->created, false, created, sizeof created);
    printf ("service:  %s\n", row->name);
    printf ("command:  %s\n", row->summary);
    printf ("replicas: %u wanted, %u running, %u pending: %s%s%s\n", row->replicas,
            row->running, row->pending, drover_service_state_name (row->state),
            *row->why? ", ": "", row->why);
    printf ("each:     procs %u, mem %s", row->procs, mem);
    for (uint32_t index = 0; index < row->nlabels; index++)
        printf ("%s%s", index? " ": ", labels ", row->labels [index]);
    if (row->max_per_worker)
        printf (", at most %u per worker", row->max_per_worker);
    printf ("\nrestarts: %u (restart delay %s)\n", row->restarts, delay);
    printf ("created:  %s\n", created);
    if (table->nreplicas == 0) {
        printf ("(no replicas)\n");
        return;
    }
    drover_cli_table_t text;
    drover_cli_table_init (&text, 8);
    const char *header [] = { "SLOT", "WORKER", "STATE", "TASK", "ATTEMPT", "SINCE",
                              "RESTARTS", "WHY" };
    drover_cli_table_add (&text, header);
    for (uint32_t index = 0; index < table->nreplicas; index++) {
        const drover_replica_row_t *replica = &table->replica_rows [index];
        char slot [16], task [24] = "-", attempt [16] = "-", since [48] = "-", restarts [16];
        snprintf (slot, sizeof slot, "%u", replica->slot);
        if (replica->task)
            snprintf (task, sizeof task, "%llu", (unsigned long long) replica->task);
        if (replica->attempt)
            snprintf (attempt, sizeof attempt, "%u", replica->attempt);
        if (replica->since) {
            char ago [32];
            drover_cli_duration (now - (int64_t) replica->since, ago, sizeof ago);
            snprintf (since, sizeof since, "%s ago", ago);
        }
        snprintf (restarts, sizeof restarts, "%u", replica->restarts);
        const char *cells [] = { slot, *replica->worker? replica->worker: "-",
                                 drover_replica_state_name (replica->state), task, attempt,
                                 since, restarts, replica->why };
        drover_cli_table_add (&text, cells);
    }
    drover_cli_table_print (&text);
}

//  list, show, stats: ask for the table and print what was asked
static int
s_table (drover_client_t *client, const s_request_t *request, bool json)
{
    drover_msg_t *table = drover_client_services (client, request->name);
    if (!table) {
        char what [128];
        snprintf (what, sizeof what, "service %s%s%s", s_action_names [request->action],
                  request->name? " ": "", request->name? request->name: "");
        return drover_cli_error (client, what);
    }
    if (request->action == S_STATS) {
        if (json) {
            drover_cli_service_stats_json (&table->stats_now);
            printf ("\n");
        }
        else
            s_stats_text (&table->stats_now);
    }
    else
    if (json)
        s_table_json (table, request->action == S_SHOW);
    else
    if (request->action == S_SHOW && table->nservices)
        s_show_text (table);
    else
        s_list_text (table);
    drover_msg_destroy (&table);
    return DROVER_EXIT_OK;
}

//  create, scale, delete: ask, and say what was done
static int
s_admin (drover_client_t *client, const s_request_t *request)
{
    int rc;
    if (request->action == S_CREATE)
        rc = drover_client_service_create (client, &request->def, request->argc,
                                           request->argv);
    else
    if (request->action == S_SCALE)
        rc = drover_client_service_scale (client, request->name, request->count);
    else
        rc = drover_client_service_delete (client, request->name);
    if (rc) {
        char what [128];
        snprintf (what, sizeof what, "service %s %s", s_action_names [request->action],
                  request->name);
        return drover_cli_error (client, what);
    }
    if (request->action == S_CREATE)
        printf ("service %s: created, %u replica%s\n", request->name, request->def.replicas,
                request->def.replicas == 1? "": "s");
    else
    if (request->action == S_SCALE)
        printf ("service %s: scaled to %u replica%s\n", request->name, request->count,
                request->count == 1? "": "s");
    else
        printf ("service %s: deleted, its replicas stop\n", request->name);
    return DROVER_EXIT_OK;
}

//  drover service ACTION ...
int
drover_cli_service (int argc, char **argv)
{
    s_request_t request = { 0 };
    int rc = s_parse (argc, argv, &request);
    if (rc)
        return rc == DROVER_CLI_HELP? DROVER_EXIT_OK: rc;
    drover_client_t *client = drover_cli_connect ("service");
    if (!client)
        return DROVER_EXIT_USAGE;
    bool table = request.action == S_LIST || request.action == S_SHOW
              || request.action == S_STATS;
    rc = table? s_table (client, &request, drover_cli_globals.json): s_admin (client, &request);
    drover_client_destroy (&client);
    return rc;
}
