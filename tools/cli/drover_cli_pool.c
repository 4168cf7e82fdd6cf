/*  =========================================================================
    drover_cli_pool - `drover pool`: the elastic pool's instances and
    summary, for people or as JSON; `drover pool hold|drain|run|destroy
    ID...` to steer its instances (POOL LIST, POOL ADMIN)
    =========================================================================
*/

#include "drover_cli.h"

//  The actions, as typed, and what the text output says of each done
static const struct {
    const char *name;           //  what the user types, = drover_pooladmin_name
    const char *done;           //  what is said when the broker took it
} s_actions [DROVER_POOLADMIN_MAX + 1] = {
    [DROVER_POOLADMIN_RUN]      = { "run",     "running (takes work again)" },
    [DROVER_POOLADMIN_HOLD]     = { "hold",    "held (takes no new work, kept)" },
    [DROVER_POOLADMIN_DRAIN]    = { "drain",   "draining (destroyed once idle)" },
    [DROVER_POOLADMIN_DESTROY]  = { "destroy", "destroying" },
};

//  Print pool's usage
static void
s_pool_usage (FILE *stream)
{
    fprintf (stream,
        "usage: drover pool [--json]                   the pool's instances and summary\n"
        "       drover pool hold ID... [--json]        take no new work; never destroyed by\n"
        "                                              the pool\n"
        "       drover pool drain ID... [--json]       take no new work; destroyed once idle\n"
        "       drover pool run ID... [--json]         take work again (after hold or drain)\n"
        "       drover pool destroy ID... [--json]     destroy now: its tasks run again elsewhere\n"
        "\n"
        "The elastic pool creates instances (worker machines, processes or containers) as\n"
        "tasks wait that no worker can take, and destroys them once idle (docs/pool.md).\n"
        "One row per instance: ID (its worker's id), TYPE, PRICE per hour, STATE\n"
        "(unknown, booting, idle, running, shutdown), IDLE (what it does when idle: run,\n"
        "hold, drain), LAST-BUSY (how long ago it last ran a task), LAST-TASK (the last task\n"
        "it was given) and AGE; with boot probes (pool/probe), PROBE (pending, ok, or\n"
        "failed, with the probes run) and WHY (why it is in its state: a probe's failure);\n"
        "then a summary: instances live of the most allowed, the price per hour now and\n"
        "its limit, a quota backoff, creates failed in a row, probes on.\n"
        "--json prints one JSON document instead (times in ISO 8601 UTC).\n"
        "\n"
        "exit status: 0 ok; 1 no pool configured, an instance refused (unknown: 404,\n"
        "shutting down: 410) or the broker did not answer; 2 bad flags or arguments.\n");
}

//  Format a price per hour for people: "0.10", "1.2345"
static void
s_price (double price, char *buffer, size_t size)
{
    snprintf (buffer, size, price < 1? "%.4g": "%.2f", price);
    if (price < 1 && strlen (buffer) < 4 && size > 4)
        snprintf (buffer, size, "%.2f", price);
}

//  Format how long ago a wall time was ("-" for never)
static void
s_ago (uint64_t msec, int64_t now, char *buffer, size_t size)
{
    if (msec == 0) {
        snprintf (buffer, size, "-");
        return;
    }
    char duration [32];
    drover_cli_duration (now - (int64_t) msec, duration, sizeof duration);
    snprintf (buffer, size, "%s ago", duration);
}

//  Print a JSON member "name":"ISO UTC" ("" for 0)
static void
s_json_time (const char *name, uint64_t msec)
{
    char text [48];
    drover_cli_iso_time ((int64_t) msec, true, text, sizeof text);
    printf (",\"%s\":\"%s\"", name, text);
}

//  The name of a POOL TABLE probe state (level 7)
static const char *
s_probe_name (uint8_t probe)
{
    static const char *names [DROVER_POOL_PROBE_MAX + 1] = {
        "none", "pending", "ok", "failed"
    };
    return probe <= DROVER_POOL_PROBE_MAX? names [probe]: "invalid";
}

//  Print the pool table as one JSON document
static void
s_pool_json (const drover_msg_t *table)
{
    const drover_pool_summary_t *pool = &table->pool;
    printf ("{\"enabled\":%s,\"driver\":", pool->enabled? "true": "false");
    drover_cli_json_string (stdout, pool->driver);
    printf (",\"live\":%u,\"max_instances\":%u,\"price\":%.10g,\"max_price\":%.10g",
            pool->live, pool->max_instances, pool->price, pool->max_price);
    s_json_time ("backoff_until", pool->backoff_until);
    printf (",\"failures\":%u,\"probing\":%s,\"instances\":[", pool->failures,
            pool->probing? "true": "false");
    for (uint32_t index = 0; index < table->nrows; index++) {
        const drover_pool_row_t *row = &table->pool_rows [index];
        printf ("%s{\"id\":", index? ",": "");
        drover_cli_json_string (stdout, row->id);
        printf (",\"probe\":\"%s\",\"probes\":%u", s_probe_name (row->probe), row->probes);
        printf (",\"type\":");
        drover_cli_json_string (stdout, row->type);
        printf (",\"price\":%.10g,\"state\":\"%s\",\"behaviour\":\"%s\"", row->price,
                drover_pool_state_name (row->state), drover_pooladmin_name (row->behaviour));
        s_json_time ("created", row->created);
        s_json_time ("since", row->since);
        s_json_time ("last_busy", row->last_busy);
        printf (",\"last_task\":%llu,\"tasks\":%u,\"procs\":%u,\"procs_used\":%u,"
                "\"mem\":%llu,\"mem_used\":%llu,\"why\":", (unsigned long long) row->last_task,
                row->tasks, row->procs, row->procs_used, (unsigned long long) row->mem,
                (unsigned long long) row->mem_used);
        drover_cli_json_string (stdout, row->why);
        printf ("}");
    }
    printf ("]}\n");
}


//  Print the pool's summary line for people
static void
s_pool_summary (const drover_pool_summary_t *pool)
{
    char price [32], max_price [32];
    s_price (pool->price, price, sizeof price);
    s_price (pool->max_price, max_price, sizeof max_price);
    printf ("pool (%s driver): instances %u/%u, price per hour %s/%s", *pool->driver
            ? pool->driver: "unknown", pool->live, pool->max_instances, price,
            pool->max_price > 0? max_price: "no limit");
    if (pool->backoff_until) {
        char until [48];
        drover_cli_iso_time ((int64_t) pool->backoff_until, false, until, sizeof until);
        printf (", quota backoff until %s", until);
    }
    if (pool->failures)
        printf (", %u create%s failed in a row", pool->failures, pool->failures == 1? "": "s");
    if (pool->probing)
        printf (", boot probes on");
    printf ("\n");
}

//  Print the pool table for people: the instances, then the summary
static void
s_pool_text (const drover_msg_t *table)
{
    int64_t now = zclock_time ();
    if (table->nrows) {
        drover_cli_table_t text;
        bool probing = table->pool.probing;
        drover_cli_table_init (&text, probing? 10: 8);
        const char *header [] = { "ID", "TYPE", "PRICE", "STATE", "IDLE", "LAST-BUSY",
                                  "LAST-TASK", "AGE", "PROBE", "WHY" };
        drover_cli_table_add (&text, header);
        for (uint32_t index = 0; index < table->nrows; index++) {
            const drover_pool_row_t *row = &table->pool_rows [index];
            char price [32], busy [48], task [24] = "-", age [32] = "-";
            s_price (row->price, price, sizeof price);
            s_ago (row->last_busy, now, busy, sizeof busy);
            if (row->last_task)
                snprintf (task, sizeof task, "%llu", (unsigned long long) row->last_task);
            if (row->created)
                drover_cli_duration (now - (int64_t) row->created, age, sizeof age);
            char probe [32];
            if (row->probe == DROVER_POOL_PROBE_MAX)
                snprintf (probe, sizeof probe, "failed/%u", row->probes);
            else
                snprintf (probe, sizeof probe, "%s", s_probe_name (row->probe));
            const char *cells [] = { row->id, *row->type? row->type: "-", price,
                                     drover_pool_state_name (row->state),
                                     drover_pooladmin_name (row->behaviour), busy, task, age,
                                     probe, *row->why? row->why: "-" };
            drover_cli_table_add (&text, cells);
        }
        drover_cli_table_print (&text);
    }
    else
        printf ("(no instances)\n");
    s_pool_summary (&table->pool);
}

//  drover pool [--json]: list the pool
static int
s_list (drover_client_t *client, bool json)
{
    drover_msg_t *table = drover_client_pool (client);
    if (!table)
        return drover_cli_error (client, "pool");
    int rc = DROVER_EXIT_OK;
    if (json)
        s_pool_json (table);
    if (!table->pool.enabled) {
        fprintf (stderr, "drover pool: no pool configured on this broker (the pool section of "
                 "its config file: docs/pool.md)\n");
        rc = DROVER_EXIT_FAILED;
    }
    else
    if (!json)
        s_pool_text (table);
    drover_msg_destroy (&table);
    return rc;
}

//  drover pool ACTION ID... [--json]: steer instances, one request each;
//  stops at the first the broker did not answer
static int
s_admin (drover_client_t *client, int action, int argc, char **argv, bool json)
{
    int rc = DROVER_EXIT_OK;
    if (json)
        printf ("{\"results\":[");
    for (int index = 0; index < argc; index++) {
        char *answer = drover_client_pool_admin (client, argv [index], action);
        int code = answer? DROVER_CODE_OK: drover_client_error_code (client);
        if (json) {
            printf ("%s{\"id\":", index? ",": "");
            drover_cli_json_string (stdout, argv [index]);
            printf (",\"action\":\"%s\",\"ok\":%s,\"code\":%d,\"reason\":",
                    s_actions [action].name, answer? "true": "false", code);
            drover_cli_json_string (stdout, answer? answer: drover_client_error_text (client));
            printf ("}");
        }
        else
        if (answer)
            printf ("%s: %s\n", argv [index], s_actions [action].done);
        if (!answer) {
            char what [128];
            snprintf (what, sizeof what, "pool %s %s", s_actions [action].name, argv [index]);
            rc = drover_cli_error (client, what);
        }
        zstr_free (&answer);
        if (code > 0 && code < 300 && code != DROVER_CODE_OK)
            break;              //  the broker did not answer, or we were interrupted
    }
    if (json)
        printf ("]}\n");
    return rc;
}

//  drover pool: list, or hold | drain | run | destroy ID...
int
drover_cli_pool (int argc, char **argv)
{
    bool json = false;
    int rc = drover_cli_parse_simple ("pool", argc, argv, &json, s_pool_usage);
    if (rc)
        return rc == DROVER_CLI_HELP? DROVER_EXIT_OK: rc;
    int action = -1;
    if (optind < argc && !streq (argv [optind], "list")
    &&  drover_pooladmin_parse (argv [optind], &action)) {
        const char *nearest = NULL;
        size_t best = SIZE_MAX;
        for (int entry = 0; entry <= DROVER_POOLADMIN_MAX + 1; entry++) {
            const char *name = entry <= DROVER_POOLADMIN_MAX? s_actions [entry].name: "list";
            size_t distance = drover_cli_distance (argv [optind], name);
            if (distance < best) {
                best = distance;
                nearest = name;
            }
        }
        if (best <= 2 && best < strlen (argv [optind]))
            return drover_cli_usage_error ("pool", "unknown action '%s': did you mean '%s'? "
                                           "(see drover pool --help)", argv [optind], nearest);
        return drover_cli_usage_error ("pool", "unknown action '%s': hold, drain, run or destroy "
                                       "(see drover pool --help)", argv [optind]);
    }
    if (action < 0 && optind + 1 < argc)
        return drover_cli_usage_error ("pool", "unexpected argument '%s'", argv [optind + 1]);
    if (action >= 0) {
        if (optind + 1 >= argc)
            return drover_cli_usage_error ("pool", "which instance? (drover pool %s ID)",
                                           s_actions [action].name);
        for (int index = optind + 1; index < argc; index++)
            if (!drover_id_valid (argv [index]))
                return drover_cli_usage_error ("pool", "'%s' is not an instance id",
                                               argv [index]);
    }
    drover_client_t *client = drover_cli_connect ("pool");
    if (!client)
        return DROVER_EXIT_USAGE;
    rc = action < 0? s_list (client, json)
       : s_admin (client, action, argc - optind - 1, argv + optind + 1, json);
    drover_client_destroy (&client);
    return rc;
}
