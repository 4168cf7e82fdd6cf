/*  =========================================================================
    drover_cli_plan - `drover plan`: what a change would do, computed by the
    broker against the live cluster, without doing it (PLAN): which tasks
    are requeued or left to finish, which replicas start, stop or move and
    where, and the statistics before and after, side by side

    The same command without `plan` commits it: `drover drain W`, `drover
    hold W`, `drover service scale NAME N`.
    =========================================================================
*/

#include "drover_cli.h"

//  Print plan's usage
static void
s_usage (FILE *stream)
{
    fprintf (stream,
        "usage: drover plan drain WORKER [--json]            what `drover drain WORKER` does\n"
        "       drover plan hold WORKER [--json]             what `drover hold WORKER` does\n"
        "       drover plan service scale NAME N [--json]    what `drover service scale` does\n"
        "       drover plan term [--json]                    what the next term does unasked\n"
        "\n"
        "Asks the broker what the change would do on the cluster as it is now, and changes\n"
        "nothing. Prints one line per change: a replica started, stopped or moved (from a\n"
        "worker to another, in rendezvous order), a task left to finish where it runs or\n"
        "requeued; then the reconciler's statistics before and after, side by side. On a\n"
        "quiet cluster, the command itself (without `plan`) then makes these changes.\n"
        "--json prints one JSON document: action, target, changes, before, after.\n"
        "\n"
        "exit status: 0 ok; 1 the broker refused (no such worker or service: 404) or did\n"
        "not answer; 2 bad flags or arguments.\n");
}

//  Parse plan's flags (argv [0] the last word before them); returns 0,
//  DROVER_CLI_HELP, or an exit status
static int
s_parse_flags (int argc, char **argv)
{
    int rc = drover_cli_parse_simple ("plan", argc, argv, &drover_cli_globals.json, s_usage);
    if (rc)
        return rc;
    if (optind < argc)
        return drover_cli_usage_error ("plan", "unexpected argument '%s'", argv [optind]);
    return 0;
}

//  Parse `plan drain|hold WORKER`, `plan service scale NAME N`, `plan
//  term`, then flags. Returns 0, DROVER_CLI_HELP, or an exit status.
static int
s_parse (int argc, char **argv, int *action_p, const char **target_p, uint32_t *count_p)
{
    if (argc < 2 || streq (argv [1], "-h") || streq (argv [1], "--help")) {
        s_usage (argc < 2? stderr: stdout);
        return argc < 2? DROVER_EXIT_USAGE: DROVER_CLI_HELP;
    }
    int words;                  //  words before the flags, "plan" included
    if (streq (argv [1], "drain") || streq (argv [1], "hold")) {
        *action_p = streq (argv [1], "drain")? DROVER_PLAN_DRAIN: DROVER_PLAN_HOLD;
        if (argc < 3 || argv [2][0] == '-')
            return drover_cli_usage_error ("plan", "which worker? (drover plan %s WORKER)",
                                           argv [1]);
        *target_p = argv [2];
        words = 3;
    }
    else
    if (streq (argv [1], "service")) {
        *action_p = DROVER_PLAN_SCALE;
        if (argc < 3 || !streq (argv [2], "scale"))
            return drover_cli_usage_error ("plan", "plan service scale NAME N: only a scale "
                                           "can be planned");
        if (argc < 5 || argv [3][0] == '-' || argv [4][0] == '-')
            return drover_cli_usage_error ("plan", "which service, and how many replicas? "
                                           "(drover plan service scale NAME N)");
        long long value;
        if (drover_cli_parse_int ("plan", "N", argv [4], 0, UINT32_MAX, &value))
            return DROVER_EXIT_USAGE;
        *target_p = argv [3];
        *count_p = (uint32_t) value;
        words = 5;
    }
    else
    if (streq (argv [1], "term")) {
        *action_p = DROVER_PLAN_TERM;
        words = 2;
    }
    else
        return drover_cli_usage_error ("plan", "unknown change '%s': drain, hold, service scale "
                                       "or term (see drover plan --help)", argv [1]);
    if (*target_p && !drover_id_valid (*target_p))
        return drover_cli_usage_error ("plan", "'%s' is not a %s name (printable, no spaces, "
                                       "1..64 bytes)", *target_p,
                                       *action_p == DROVER_PLAN_SCALE? "service": "worker");
    return s_parse_flags (argc - (words - 1), argv + (words - 1));
}

//  Describe one change for people, on one line
static void
s_change_text (const drover_planchange_t *change)
{
    char replica [96] = "", task [32] = "";
    if (*change->service)
        snprintf (replica, sizeof replica, "%s/%u", change->service, change->slot);
    if (change->task)
        snprintf (task, sizeof task, "task %llu", (unsigned long long) change->task);
    const char *from = *change->from? change->from: "-";
    const char *to = *change->to? change->to: "-";
    switch (change->kind) {
        case DROVER_CHANGE_START:
            printf ("start    %s on %s", replica, to);
            break;
        case DROVER_CHANGE_STOP:
            printf ("stop     %s (%s) on %s", replica, *task? task: "no task", from);
            break;
        case DROVER_CHANGE_MOVE:
            printf ("move     %s (%s) %s -> %s", replica, *task? task: "no task", from, to);
            break;
        case DROVER_CHANGE_FINISH:
            printf ("finish   %s on %s", task, from);
            break;
        case DROVER_CHANGE_REQUEUE:
            printf ("requeue  %s from %s", task, from);
            break;
        default:
            printf ("%-8s %s %s %s -> %s", drover_change_kind_name (change->kind), replica,
                    task, from, to);
    }
    if (*change->why)
        printf ("  (%s)", change->why);
    printf ("\n");
}

//  Print a PLAN RESULT as one JSON document
static void
s_result_json (const drover_msg_t *result, int action, const char *target, uint32_t count)
{
    printf ("{\"action\":\"%s\",\"target\":", drover_plan_action_name (action));
    drover_cli_json_string (stdout, target? target: "");
    if (action == DROVER_PLAN_SCALE)
        printf (",\"count\":%u", count);
    printf (",\"changes\":[");
    for (uint32_t index = 0; index < result->nchanges; index++) {
        const drover_planchange_t *change = &result->changes [index];
        printf ("%s{\"kind\":\"%s\",\"service\":", index? ",": "",
                drover_change_kind_name (change->kind));
        drover_cli_json_string (stdout, change->service);
        printf (",\"slot\":%u,\"task\":%llu,\"from\":", change->slot,
                (unsigned long long) change->task);
        drover_cli_json_string (stdout, change->from);
        printf (",\"to\":");
        drover_cli_json_string (stdout, change->to);
        printf (",\"why\":");
        drover_cli_json_string (stdout, change->why);
        printf ("}");
    }
    printf ("],\"before\":");
    drover_cli_service_stats_json (&result->stats_now);
    printf (",\"after\":");
    drover_cli_service_stats_json (&result->stats_after);
    printf ("}\n");
}

//  Print a PLAN RESULT for people: the changes, then the statistics. A
//  hold moves nothing: say what it does change
static void
s_result_text (const drover_msg_t *result, int action, const char *target)
{
    if (action == DROVER_PLAN_HOLD)
        printf ("%s would take no new task or replica; what runs there stays\n", target);
    if (result->nchanges == 0)
        printf ("(no changes)\n");
    for (uint32_t index = 0; index < result->nchanges; index++)
        s_change_text (&result->changes [index]);
    printf ("\n");
    drover_cli_service_stats_compare (&result->stats_now, &result->stats_after);
}

//  drover plan CHANGE ...: ask what it would do and print it
int
drover_cli_plan (int argc, char **argv)
{
    int action = -1;
    const char *target = NULL;
    uint32_t count = 0;
    int rc = s_parse (argc, argv, &action, &target, &count);
    if (rc)
        return rc == DROVER_CLI_HELP? DROVER_EXIT_OK: rc;
    drover_client_t *client = drover_cli_connect ("plan");
    if (!client)
        return DROVER_EXIT_USAGE;
    drover_msg_t *result = drover_client_plan (client, action, target, count);
    if (!result) {
        char what [128];
        snprintf (what, sizeof what, "plan %s%s%s", drover_plan_action_name (action),
                  target? " ": "", target? target: "");
        rc = drover_cli_error (client, what);
    }
    else
    if (drover_cli_globals.json)
        s_result_json (result, action, target, count);
    else
        s_result_text (result, action, target);
    drover_msg_destroy (&result);
    drover_client_destroy (&client);
    return rc;
}
