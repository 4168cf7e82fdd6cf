/*  =========================================================================
    drover_cli_show - `drover show ID` and `drover logs ID`: what happened
    to a task, seen again at any time (as `scontrol show job` and `nomad
    alloc logs` do)

    show asks TASK SHOW and prints the TASK INFO: aligned "field: value"
    lines, times in local ISO 8601 with the UTC offset, durations in human
    units; with --json one object, times as ISO 8601 UTC strings beside
    their msec numbers. logs asks TASK SHOW first (the state, and the 403
    or 404 in plain words), then TASK WAIT for the TASK DONE that carries
    the captured output, and writes its bytes as they came.
    =========================================================================
*/

#include "drover_cli.h"
#include "drover_taskinfo.h"

//  ---------------------------------------------------------------------
//  Formatting times and durations

//  Say how an attempt ended, e.g. "exit 1, requeued", "worker lost:
//  heartbeats stopped, requeued", "running"
static void
s_attempt_end (const drover_attempt_t *attempt, char *buffer, size_t size)
{
    if (attempt->ended_at == 0) {
        snprintf (buffer, size, "%s", attempt->started_at? "running": "offered, not started");
        return;
    }
    char how [DROVER_REASON_MAX + 32];
    if (attempt->reason [0])
        snprintf (how, sizeof how, "%s", attempt->reason);
    else
    if (attempt->outcome == DROVER_OUTCOME_EXITED)
        snprintf (how, sizeof how, "exit %d", attempt->exit_code);
    else
    if (attempt->outcome == DROVER_OUTCOME_SIGNALLED)
        snprintf (how, sizeof how, "signal %d (%s)", attempt->signal, strsignal (attempt->signal));
    else
    if (attempt->outcome <= DROVER_OUTCOME_MAX) {
        char name [32];
        snprintf (how, sizeof how, "%s",
                  drover_cli_lower (drover_outcome_name (attempt->outcome), name, sizeof name));
    }
    else
        snprintf (how, sizeof how, "ended without a result");
    snprintf (buffer, size, "%s%s", how, attempt->requeued? ", requeued": "");
}


//  ---------------------------------------------------------------------
//  drover show ID

//  Print show's usage
static void
s_show_usage (FILE *stream)
{
    fprintf (stream,
        "usage: drover show [-j|--json] ID\n"
        "       drover show worker [-j|--json] ID   (one worker: see its --help)\n"
        "\n"
        "Prints everything the broker knows of a task: its state and how it ended\n"
        "(exit status or signal, reason), its command, cwd and environment variable\n"
        "names (not their values), labels, procs, memory, priority, timeout, retries\n"
        "left of those asked, owner (and the devices it asks, the indices its worker\n"
        "gave it, whether it is preemptible), when it was queued, started and ended, how long\n"
        "it waited, ran and took in all, and each attempt: its worker, when it was\n"
        "offered, started and ended, and how it ended (the latest %d past attempts;\n"
        "it says how many earlier ones were dropped). Times are local, ISO 8601 with\n"
        "the UTC offset.\n"
        "\n"
        "  -j, --json     one JSON object: times as ISO 8601 UTC strings (\"queued\")\n"
        "                 beside msec since the epoch (\"queued_ms\"), durations in msec\n"
        "\n"
        "Exit status 1 if the task is unknown, its result expired, or the broker\n"
        "refused (another key's task: 403).\n", DROVER_ATTEMPTS_MAX);
}

//  Parse show's and logs' flags: --json, and logs' --stderr and --follow.
//  Returns 0, DROVER_CLI_HELP, or an exit status.
static int
s_parse (const char *command, int argc, char **argv, bool *json, bool *err, bool *follow,
         void (*usage) (FILE *), uint64_t *task_p)
{
    static struct option options [] = {
        { "json", no_argument, NULL, 'j' },
        { "stderr", no_argument, NULL, 'e' },
        { "follow", no_argument, NULL, 'f' },
        DROVER_CLI_KEY_OPTION,
        DROVER_CLI_COMMON_OPTIONS,
        { NULL, 0, NULL, 0 }
    };
    bool logs = err != NULL;
    optind = 0;
    opterr = 0;
    int option;
    while ((option = getopt_long (argc, argv, logs? ":hjef": ":hj", options, NULL)) != -1) {
        if (option == 'h') {
            usage (stdout);
            return DROVER_CLI_HELP;
        }
        else
        if (option == 'j')
            *json = true;
        else
        if (option == 'e' && logs)
            *err = true;
        else
        if (option == 'f' && logs)
            *follow = true;
        else {
            if (option == 'e' || option == 'f')
                option = '?';           //  --stderr and --follow are logs' only
            int rc = drover_cli_common_option (command, option, argv);
            if (rc)
                return rc;
        }
    }
    if (optind >= argc)
        return drover_cli_usage_error (command, "which task? (drover %s ID)", command);
    if (optind + 1 < argc)
        return drover_cli_usage_error (command, "one task at a time ('%s' is extra)",
                                       argv [optind + 1]);
    return drover_cli_parse_id (command, argv [optind], task_p)? DROVER_EXIT_USAGE: 0;
}

//  Ask the broker for a task's info: the TASK INFO, or NULL after saying
//  why (rc_p: the exit status)
static drover_msg_t *
s_ask (drover_client_t *client, const char *command, uint64_t task, int *rc_p)
{
    drover_msg_t *reply = drover_client_show (client, task);
    if (!reply) {
        char what [64];
        snprintf (what, sizeof what, "%s %llu", command, (unsigned long long) task);
        *rc_p = drover_cli_error (client, what);
    }
    return reply;
}

//  Print one "field: value" line, the values aligned
static void
s_line (const char *field, const char *format, ...)
{
    char label [32];
    snprintf (label, sizeof label, "%s:", field);
    printf ("%-14s", label);
    va_list args;
    va_start (args, format);
    vprintf (format, args);
    va_end (args);
    printf ("\n");
}

//  Print a time line ("-" if none) in local ISO 8601
static void
s_time_line (const char *field, int64_t msec)
{
    char text [48] = "-";
    if (msec > 0)
        drover_cli_iso_time (msec, false, text, sizeof text);
    s_line (field, "%s", text);
}

//  Print a duration line from..to, "-" if either is unknown; so_far if to
//  is now
static void
s_duration_line (const char *field, int64_t from, int64_t to, bool so_far)
{
    char text [32] = "-";
    if (from > 0 && to > 0)
        drover_cli_duration (to - from, text, sizeof text);
    s_line (field, "%s%s", text, from > 0 && to > 0 && so_far? " so far": "");
}

//  Quote an argument for a shell when it needs it, into buffer
static const char *
s_quoted (const char *arg, char *buffer, size_t size)
{
    if (*arg && strspn (arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                             "0123456789_-./=:,+@%") == strlen (arg))
        return arg;
    size_t length = 0;
    buffer [length++] = '\'';
    for (const char *cursor = arg; *cursor && length + 6 < size; cursor++) {
        if (*cursor == '\'') {
            memcpy (buffer + length, "'\\''", 4);
            length += 4;
        }
        else
            buffer [length++] = *cursor;
    }
    buffer [length++] = '\'';
    buffer [length] = 0;
    return buffer;
}

//  Print what a task waits for and belongs to (level 3): its wait, begin
//  and due times, retry delays, parents, children, group and index; an
//  array's or workflow's own id, its members' counts. Nothing for a task
//  that has none of them (or from an older broker).
static void
s_workflow_lines (const drover_taskinfo_t *info)
{
    char text [256];
    if (info->waits && info->state == DROVER_TASK_QUEUED)
        s_line ("waits", "%s (not in the queue yet: drover explain %llu says why)",
                drover_cli_waits_name (info->waits), (unsigned long long) info->task);
    if (info->begin)
        s_time_line ("begin", (int64_t) info->begin);
    if (info->due)
        s_time_line (info->waits == DROVER_WAITS_RETRY? "next retry": "due", (int64_t) info->due);
    if (info->retry_delay) {
        char most [32];
        drover_cli_duration (info->retry_delay, text, sizeof text);
        drover_cli_duration (info->retry_max_delay? info->retry_max_delay
                                                  : DROVER_RETRY_MAX_DELAY, most, sizeof most);
        s_line ("retry delay", "%s, doubling, at most %s", text, most);
    }
    if (info->group)
        s_line ("group", "%llu", (unsigned long long) info->group);
    if (info->group && (info->index || (info->array_step && !info->members)))
        s_line ("index", "%u", info->index);        //  an element: index 0 is not sent
    for (uint32_t at = 0; at < info->nparents; at++) {
        const drover_parent_t *parent = &info->parents [at];
        char state [16];
        drover_cli_lower (drover_task_state_name (parent->state), state, sizeof state);
        printf ("%-14s%s %llu (%s)\n", at? "": "parents:", drover_cli_after_name (parent->kind),
                (unsigned long long) parent->task, state);
    }
    if (info->children_total) {
        printf ("%-14s%u:", "children:", info->children_total);
        for (uint32_t at = 0; at < info->nchildren; at++)
            printf (" %llu", (unsigned long long) info->children [at]);
        printf ("%s\n", info->children_total > info->nchildren? " ...": "");
    }
    if (info->members) {
        bool array = info->array_step > 0;
        drover_cli_group_line (info->task, array, info->members, info->member_counts,
                               info->limit, text, sizeof text);
        s_line (array? "array": "workflow", "%s", text);
        if (array)
            s_line ("elements", "%llu-%llu, indexes %u-%u%s", (unsigned long long) info->task + 1,
                    (unsigned long long) info->task + info->members, info->array_first,
                    info->array_first + info->array_step * (info->members - 1),
                    info->array_step > 1? " (step > 1)": "");
        printf ("%-14s", "members:");
        for (int state = 0; state < DROVER_TASK_STATES; state++) {
            drover_cli_lower (drover_task_state_name (state), text, sizeof text);
            printf ("%s%llu %s", state? ", ": "", (unsigned long long) info->member_counts [state],
                    text);
        }
        printf ("\n");
    }
}

//  Print the info as aligned lines
static void
s_print_human (const drover_taskinfo_t *info)
{
    char name [32], text [DROVER_REASON_MAX + 64];
    int64_t now = zclock_time ();
    bool final = info->state >= DROVER_TASK_SUCCEEDED && info->state <= DROVER_TASK_CANCELLED;
    s_line ("task", "%llu", (unsigned long long) info->task);
    if (final) {
        //  "FAILED (timed out)", but "SUCCEEDED", not "SUCCEEDED (succeeded)"
        drover_cli_end_name (info->end, text, sizeof text);
        const char *state = drover_task_state_name (info->state);
        if (streq (text, drover_cli_lower (state, name, sizeof name)))
            s_line ("state", "%s", drover_task_state_name (info->state));
        else
            s_line ("state", "%s (%s)", drover_task_state_name (info->state), text);
    }
    else
        s_line ("state", "%s", drover_task_state_name (info->state));
    if (final) {
        if (info->outcome == DROVER_OUTCOME_SIGNALLED)
            s_line ("exit", "signal %d (%s)", info->signal, strsignal (info->signal));
        else
        if (info->exit_code >= 0)
            s_line ("exit", "%d", info->exit_code);
        else
            s_line ("exit", "- (no process status)");
        if (info->reason)
            s_line ("reason", "%s", info->reason);
    }
    s_line ("owner", "%s", info->owner [0]? info->owner: "-");
    if (info->devices)
        s_line ("devices", "%s", info->devices);
    if (info->assigned)
        s_line ("assigned", "%s", info->assigned);
    if (info->preemptible)
        s_line ("preemptible", "yes: the broker may stop it to make room, and queue it again");
    printf ("%-14s", "command:");
    for (uint32_t arg = 0; arg < info->argc; arg++) {
        char quoted [4096];
        printf ("%s%s", arg? " ": "", s_quoted (info->argv [arg], quoted, sizeof quoted));
    }
    printf ("\n");
    s_line ("cwd", "%s", info->cwd? info->cwd: "- (the worker's)");
    printf ("%-14s", "env:");
    for (uint32_t entry = 0; entry < info->nenv; entry++)
        printf ("%s%s", entry? " ": "", info->env [entry]);
    printf ("%s\n", info->nenv? " (names only)": "-");
    if (info->input_size)
        s_line ("stdin", "%llu bytes", (unsigned long long) info->input_size);
    printf ("%-14s", "labels:");
    for (uint32_t label = 0; label < info->nlabels; label++)
        printf ("%s%s", label? " ": "", info->labels [label]);
    printf ("%s\n", info->nlabels? "": "-");
    s_line ("procs", "%u", info->procs);
    s_line ("memory", "%llu bytes", (unsigned long long) info->mem);
    s_line ("priority", "%d", info->priority);
    if (info->timeout)
        drover_cli_duration (info->timeout, text, sizeof text);
    s_line ("timeout", "%s", info->timeout? text: "none");
    s_line ("retries", "%u left of %u", info->retries_left, info->retries);
    s_line ("lost workers", "%u", info->lost);
    if (info->key)
        s_line ("submit key", "%s", info->key);
    s_time_line ("queued", info->queued_at);
    s_time_line ("started", info->started_at);
    s_time_line ("ended", info->ended_at);
    s_duration_line ("queue wait", info->queued_at,
                     info->started_at? info->started_at: final? 0: now, !info->started_at);
    s_duration_line ("run time", info->started_at, info->ended_at? info->ended_at: now,
                     !info->ended_at);
    s_duration_line ("total", info->queued_at, info->ended_at? info->ended_at: now,
                     !info->ended_at);
    s_workflow_lines (info);
    s_line ("worker", "%s", info->worker [0]? info->worker: "-");
    if (final) {
        s_line ("stdout", "%llu bytes%s", (unsigned long long) info->out_size,
                info->truncated & DROVER_TRUNC_STDOUT? " (truncated at the limit)": "");
        s_line ("stderr", "%llu bytes%s", (unsigned long long) info->err_size,
                info->truncated & DROVER_TRUNC_STDERR? " (truncated at the limit)": "");
    }
    if (info->dropped)
        s_line ("attempts", "%u (the %u before these were dropped)", info->attempt, info->dropped);
    else
        s_line ("attempts", "%u", info->attempt);
    for (uint32_t index = 0; index < info->nattempts; index++) {
        const drover_attempt_t *attempt = &info->attempts [index];
        char offered [48] = "-", started [48] = "-", ended [48] = "-", took [32] = "";
        if (attempt->offered_at)
            drover_cli_iso_time (attempt->offered_at, false, offered, sizeof offered);
        if (attempt->started_at)
            drover_cli_iso_time (attempt->started_at, false, started, sizeof started);
        if (attempt->ended_at)
            drover_cli_iso_time (attempt->ended_at, false, ended, sizeof ended);
        if (attempt->started_at && attempt->ended_at) {
            char duration [24];
            drover_cli_duration (attempt->ended_at - attempt->started_at, duration, sizeof duration);
            snprintf (took, sizeof took, " (ran %s)", duration);
        }
        s_attempt_end (attempt, text, sizeof text);
        printf ("  #%u on %s: offered %s, started %s, ended %s%s: %s\n", attempt->attempt,
                attempt->worker [0]? attempt->worker: "-", offered, started, ended, took, text);
    }
}

//  Print a JSON time pair: "name": "ISO UTC" or null, "name_ms": msec or null
static void
s_json_time (const char *name, int64_t msec)
{
    char text [48];
    if (msec > 0) {
        drover_cli_iso_time (msec, true, text, sizeof text);
        printf (",\"%s\":\"%s\",\"%s_ms\":%lld", name, text, name, (long long) msec);
    }
    else
        printf (",\"%s\":null,\"%s_ms\":null", name, name);
}

//  Print a JSON duration in msec, or null if either end is unknown
static void
s_json_duration (const char *name, int64_t from, int64_t to)
{
    if (from > 0 && to > 0)
        printf (",\"%s_ms\":%lld", name, (long long) (to > from? to - from: 0));
    else
        printf (",\"%s_ms\":null", name);
}

//  Print a JSON list of strings
static void
s_json_list (const char *name, char *const *list, uint32_t count)
{
    printf (",\"%s\":[", name);
    for (uint32_t index = 0; index < count; index++) {
        printf ("%s", index? ",": "");
        drover_cli_json_string (stdout, list [index]);
    }
    printf ("]");
}

//  Print a JSON string field, null if NULL
static void
s_json_text (const char *name, const char *text)
{
    printf (",\"%s\":", name);
    if (text)
        drover_cli_json_string (stdout, text);
    else
        printf ("null");
}

//  Print an outcome as a JSON string, null for none
static void
s_json_outcome (uint8_t outcome)
{
    char name [32];
    if (outcome <= DROVER_OUTCOME_MAX)
        printf (",\"outcome\":\"%s\"",
                drover_cli_lower (drover_outcome_name (outcome), name, sizeof name));
    else
        printf (",\"outcome\":null");
}

//  Print the same as JSON members of the task's object
static void
s_workflow_json (const drover_taskinfo_t *info)
{
    printf (",\"waits\":");
    drover_cli_json_string (stdout, drover_cli_waits_name (info->waits));
    s_json_time ("begin", (int64_t) info->begin);
    s_json_time ("due", (int64_t) info->due);
    printf (",\"retry_delay_ms\":%u,\"retry_max_delay_ms\":%u,\"group\":%llu,\"index\":%u",
            info->retry_delay, info->retry_max_delay, (unsigned long long) info->group,
            info->index);
    printf (",\"parents\":[");
    for (uint32_t at = 0; at < info->nparents; at++) {
        char state [16];
        drover_cli_lower (drover_task_state_name (info->parents [at].state), state, sizeof state);
        printf ("%s{\"kind\":\"%s\",\"id\":%llu,\"state\":\"%s\"}", at? ",": "",
                drover_cli_after_name (info->parents [at].kind),
                (unsigned long long) info->parents [at].task, state);
    }
    printf ("],\"children\":[");
    for (uint32_t at = 0; at < info->nchildren; at++)
        printf ("%s%llu", at? ",": "", (unsigned long long) info->children [at]);
    printf ("],\"children_total\":%u,\"members\":%u", info->children_total, info->members);
    if (info->members) {
        printf (",\"kind\":\"%s\",\"limit\":%u,\"array_first\":%u,\"array_step\":%u"
                ",\"member_counts\":{", info->array_step? "array": "workflow", info->limit,
                info->array_first, info->array_step);
        char state [16];
        for (int at = 0; at < DROVER_TASK_STATES; at++)
            printf ("%s\"%s\":%llu", at? ",": "",
                    drover_cli_lower (drover_task_state_name (at), state, sizeof state),
                    (unsigned long long) info->member_counts [at]);
        printf ("}");
    }
}

//  Print the info as one JSON object
static void
s_print_json (const drover_taskinfo_t *info)
{
    char name [32], text [DROVER_REASON_MAX + 64];
    bool final = info->state >= DROVER_TASK_SUCCEEDED && info->state <= DROVER_TASK_CANCELLED;
    printf ("{\"task\":%llu,\"state\":\"%s\"", (unsigned long long) info->task,
            drover_cli_lower (drover_task_state_name (info->state), name, sizeof name));
    if (final || info->end == DROVER_END_EXPIRED) {
        drover_cli_end_name (info->end, text, sizeof text);
        printf (",\"end\":\"%s\"", text);
    }
    else
        printf (",\"end\":null");
    s_json_outcome (final? info->outcome: DROVER_ATTEMPT_NO_RESULT);
    if (final && info->exit_code >= 0)
        printf (",\"exit_code\":%d", info->exit_code);
    else
        printf (",\"exit_code\":null");
    if (final && info->outcome == DROVER_OUTCOME_SIGNALLED)
        printf (",\"signal\":%d", info->signal);
    else
        printf (",\"signal\":null");
    s_json_text ("reason", info->reason);
    s_json_text ("owner", info->owner [0]? info->owner: NULL);
    s_json_text ("devices", info->devices);
    s_json_text ("assigned", info->assigned);
    printf (",\"preemptible\":%s", info->preemptible? "true": "false");
    s_json_list ("argv", info->argv, info->argc);
    s_json_text ("cwd", info->cwd);
    s_json_list ("env_names", info->env, info->nenv);
    printf (",\"stdin_bytes\":%llu", (unsigned long long) info->input_size);
    s_json_list ("labels", info->labels, info->nlabels);
    printf (",\"procs\":%u,\"mem\":%llu,\"priority\":%d,\"timeout_ms\":%u,"
            "\"retries\":%u,\"retries_left\":%u,\"lost\":%u", info->procs,
            (unsigned long long) info->mem, info->priority, info->timeout, info->retries,
            info->retries_left, info->lost);
    s_json_text ("submit_key", info->key);
    s_json_time ("queued", info->queued_at);
    s_json_time ("started", info->started_at);
    s_json_time ("ended", info->ended_at);
    s_json_duration ("queue_wait", info->queued_at, info->started_at);
    s_json_duration ("run_time", info->started_at, info->ended_at);
    s_json_duration ("total", info->queued_at, info->ended_at);
    s_json_text ("worker", info->worker [0]? info->worker: NULL);
    printf (",\"worker_duration_ms\":%u", info->duration);
    printf (",\"stdout_bytes\":%llu,\"stderr_bytes\":%llu,\"stdout_truncated\":%s,"
            "\"stderr_truncated\":%s", (unsigned long long) info->out_size,
            (unsigned long long) info->err_size,
            info->truncated & DROVER_TRUNC_STDOUT? "true": "false",
            info->truncated & DROVER_TRUNC_STDERR? "true": "false");
    s_workflow_json (info);
    printf (",\"attempt\":%u,\"attempts_dropped\":%u,\"attempts\":[", info->attempt,
            info->dropped);
    for (uint32_t index = 0; index < info->nattempts; index++) {
        const drover_attempt_t *attempt = &info->attempts [index];
        printf ("%s{\"attempt\":%u", index? ",": "", attempt->attempt);
        s_json_text ("worker", attempt->worker [0]? attempt->worker: NULL);
        s_json_time ("offered", attempt->offered_at);
        s_json_time ("started", attempt->started_at);
        s_json_time ("ended", attempt->ended_at);
        s_json_outcome (attempt->outcome);
        if (attempt->outcome == DROVER_OUTCOME_EXITED)
            printf (",\"exit_code\":%d", attempt->exit_code);
        else
            printf (",\"exit_code\":null");
        if (attempt->outcome == DROVER_OUTCOME_SIGNALLED)
            printf (",\"signal\":%d", attempt->signal);
        else
            printf (",\"signal\":null");
        s_attempt_end (attempt, text, sizeof text);
        s_json_text ("how", text);
        printf (",\"requeued\":%s}", attempt->requeued? "true": "false");
    }
    printf ("]}\n");
}

//  Say that a task's result expired; returns the exit status
static int
s_expired (const char *command, uint64_t task, bool json)
{
    if (json && streq (command, "show"))
        printf ("{\"task\":%llu,\"state\":\"unknown\",\"end\":\"expired\"}\n",
                (unsigned long long) task);
    fprintf (stderr, "drover %s: task %llu ended and its result expired (no longer kept: see"
             " assign/keep-finished)\n", command, (unsigned long long) task);
    return DROVER_EXIT_FAILED;
}

//  drover show ID: everything about one task
int
drover_cli_show (int argc, char **argv)
{
    //  show worker ID: one worker (drover_cli_admin.c); a task id is a
    //  number, so the word can only mean that
    for (int index = 1; index < argc; index++)
        if (streq (argv [index], "worker"))
            return drover_cli_show_worker (argc, argv);
    bool json = false;
    uint64_t task = 0;
    int rc = s_parse ("show", argc, argv, &json, NULL, NULL, s_show_usage, &task);
    if (rc)
        return rc == DROVER_CLI_HELP? DROVER_EXIT_OK: rc;
    drover_client_t *client = drover_cli_connect ("show");
    if (!client)
        return DROVER_EXIT_USAGE;
    drover_msg_t *reply = s_ask (client, "show", task, &rc);
    if (reply) {
        const drover_taskinfo_t *info = reply->info;
        if (info->state == DROVER_TASK_UNKNOWN)
            rc = s_expired ("show", task, json);
        else
        if (json)
            s_print_json (info);
        else
            s_print_human (info);
    }
    drover_msg_destroy (&reply);
    drover_client_destroy (&client);
    return rc;
}


//  ---------------------------------------------------------------------
//  drover logs ID

//  Print logs' usage
static void
s_logs_usage (FILE *stream)
{
    fprintf (stream,
        "usage: drover logs [-e|--stderr] [-f|--follow] [-j|--json] ID\n"
        "\n"
        "Writes a finished task's captured stdout (or stderr) exactly as it came,\n"
        "byte for byte. Says on stderr when it was cut at the capture limit. The\n"
        "broker keeps a task's output only once it ended: for a task still queued\n"
        "or running, logs says so and exits 1, unless --follow waits for its end.\n"
        "\n"
        "  -e, --stderr   the task's stderr instead of its stdout\n"
        "  -f, --follow   wait until the task ends, then write its output\n"
        "  -j, --json     one JSON object: {\"task\", \"stream\", \"bytes\", \"truncated\",\n"
        "                 \"base64\"}: the bytes in base64, so any byte survives\n"
        "\n"
        "Exit status 0 when the output was written (whatever the task's own exit\n"
        "status), 1 if the task is unknown, not finished (without --follow), its\n"
        "result expired, or the broker refused (another key's task: 403).\n");
}

//  What logs waits for: the TASK DONE
typedef struct {
    drover_msg_t *done;         //  a copy of the task's TASK DONE
} s_logs_t;

//  Keep the TASK DONE
static void
s_logs_done (const drover_result_t *result, void *arg)
{
    const drover_msg_t *done = drover_result_msg (result);
    s_logs_t *logs = (s_logs_t *) arg;
    drover_msg_destroy (&logs->done);
    logs->done = drover_msg_new (DROVER_MSG_TASK_DONE);
    logs->done->task = done->task;
    logs->done->state = done->state;
    logs->done->end = done->end;
    logs->done->truncated = done->truncated;
    drover_msg_set_output (logs->done, done->out, done->out_size, done->err, done->err_size);
}

//  Print bytes as base64
static void
s_base64 (const byte *data, size_t size)
{
    static const char digits [] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t at = 0; at < size; at += 3) {
        uint32_t group = (uint32_t) data [at] << 16;
        if (at + 1 < size)
            group |= (uint32_t) data [at + 1] << 8;
        if (at + 2 < size)
            group |= data [at + 2];
        putchar (digits [group >> 18 & 63]);
        putchar (digits [group >> 12 & 63]);
        putchar (at + 1 < size? digits [group >> 6 & 63]: '=');
        putchar (at + 2 < size? digits [group & 63]: '=');
    }
}

//  drover logs ID: a finished task's captured output
int
drover_cli_logs (int argc, char **argv)
{
    bool json = false, err = false, follow = false;
    uint64_t task = 0;
    int rc = s_parse ("logs", argc, argv, &json, &err, &follow, s_logs_usage, &task);
    if (rc)
        return rc == DROVER_CLI_HELP? DROVER_EXIT_OK: rc;
    drover_client_t *client = drover_cli_connect ("logs");
    if (!client)
        return DROVER_EXIT_USAGE;
    drover_msg_t *reply = s_ask (client, "logs", task, &rc);
    const drover_taskinfo_t *info = reply? reply->info: NULL;
    if (info && info->state == DROVER_TASK_UNKNOWN)
        rc = s_expired ("logs", task, json);
    else
    if (info && info->state < DROVER_TASK_SUCCEEDED && !follow) {
        fprintf (stderr, "drover logs: task %llu is %s: its output is kept once it ends"
                 " (drover logs --follow %llu waits for that)\n", (unsigned long long) task,
                 drover_task_state_name (info->state), (unsigned long long) task);
        rc = DROVER_EXIT_FAILED;
    }
    else
    if (info) {
        s_logs_t logs = { NULL };
        if (drover_client_wait (client, &task, 1, s_logs_done, NULL, &logs))
            rc = drover_cli_error (client, "logs");
        else
        if (logs.done->state == DROVER_TASK_UNKNOWN)
            rc = s_expired ("logs", task, json);
        else {
            const byte *data = err? logs.done->err: logs.done->out;
            size_t size = err? logs.done->err_size: logs.done->out_size;
            bool truncated = (logs.done->truncated
                              & (err? DROVER_TRUNC_STDERR: DROVER_TRUNC_STDOUT)) != 0;
            if (json) {
                printf ("{\"task\":%llu,\"stream\":\"%s\",\"bytes\":%zu,\"truncated\":%s,"
                        "\"base64\":\"", (unsigned long long) task, err? "stderr": "stdout",
                        size, truncated? "true": "false");
                s_base64 (data, size);
                printf ("\"}\n");
            }
            else
            if (size)
                fwrite (data, 1, size, stdout);
            fflush (stdout);
            if (truncated)
                fprintf (stderr, "drover logs: task %llu: its %s was truncated at the capture"
                         " limit (%zu bytes kept)\n", (unsigned long long) task,
                         err? "stderr": "stdout", size);
        }
        drover_msg_destroy (&logs.done);
    }
    drover_msg_destroy (&reply);
    drover_client_destroy (&client);
    return rc;
}
