/*  =========================================================================
    drover_cli_explain - `drover explain ID [--json]`: why a task waits and
    what would unblock it, as the broker's scheduler sees it

    The broker sends codes and numbers (TASK EXPLANATION); the words are
    made here (drover_why). Also what submit and wait use to say why the
    tasks they wait for cannot run: drover_cli_explain_verdict.
    =========================================================================
*/

#include "drover_cli.h"
#include "drover_why.h"

//  Print explain's usage
static void
s_usage (FILE *stream)
{
    fprintf (stream,
        "usage: drover explain ID [--json]\n"
        "\n"
        "Why a task waits, as the broker's scheduler sees it: its place in the queue\n"
        "(how many run before it, and why), for every worker the first reason it cannot\n"
        "take the task (workers that say the same grouped: a count and a few names),\n"
        "and what would unblock it. For a task not waiting: its state, worker and\n"
        "attempt (`drover show ID` has the rest). --json prints the codes and numbers\n"
        "the broker sent, with the sentences.\n");
}

//  Return the lower-case name of a reason code, for JSON
static const char *
s_code_name (int code)
{
    switch (code) {
        case DROVER_WHY_AHEAD:          return "ahead";
        case DROVER_WHY_FITS:           return "fits";
        case DROVER_WHY_LABEL:          return "label";
        case DROVER_WHY_PROCS:          return "procs";
        case DROVER_WHY_MEM:            return "mem";
        case DROVER_WHY_HELD:           return "held";
        case DROVER_WHY_DRAINING:       return "draining";
        case DROVER_WHY_PROBATION:      return "probation";
        case DROVER_WHY_LOW_DISK:       return "low_disk";
        case DROVER_WHY_RESERVED:       return "reserved";
        case DROVER_WHY_LENT:           return "lent";
        case DROVER_WHY_BUSY:           return "busy";
        case DROVER_WHY_BUSY_MEM:       return "busy_mem";
        case DROVER_WHY_KEPT:           return "kept";
        case DROVER_WHY_NEXT:           return "next";
        case DROVER_WHY_FITS_WHEN:      return "fits_when";
        case DROVER_WHY_AFTER:          return "after";
        case DROVER_WHY_WHEN_USABLE:    return "when_usable";
        case DROVER_WHY_NEVER_NONE:     return "never_no_worker";
        case DROVER_WHY_NEVER_LABEL:    return "never_label";
        case DROVER_WHY_NEVER_PROCS:    return "never_procs";
        case DROVER_WHY_NEVER_MEM:      return "never_mem";
        case DROVER_WHY_NEVER_ALL:      return "never_all";
    }
    return "unknown";
}

//  Print the worker names of a group: "big" or "a, b, c and 7 more"
static void
s_names (const drover_why_t *why)
{
    for (uint32_t index = 0; index < why->nnames; index++)
        printf ("%s%s", index? ", ": "", why->names [index]);
    if (why->count > why->nnames)
        printf (" and %u more", why->count - why->nnames);
}

//  Print an explanation in words
static void
s_text (const drover_msg_t *reply)
{
    char text [512];
    printf ("task %" PRIu64 ": %s", reply->task, drover_task_state_name (reply->state));
    if (reply->state != DROVER_TASK_QUEUED) {
        if (reply->worker [0])
            printf (" on %s", reply->worker);
        if (reply->attempt)
            printf (", attempt %u", reply->attempt);
        printf ("\n(drover show %" PRIu64 " has its history)\n", reply->task);
        return;
    }
    printf ("\n");
    for (uint32_t index = 0; index < reply->nwhys; index++) {
        const drover_why_t *why = &reply->whys [index];
        drover_why_sentence (why, text, sizeof text);
        if (why->code == DROVER_WHY_AHEAD)
            printf ("queue:   %s\n", text);
        else
        if (why->code >= DROVER_WHY_NEXT)
            printf ("verdict: %s\n", text);
        else {
            printf ("  %u worker%s (", why->count, why->count == 1? "": "s");
            s_names (why);
            printf ("): %s\n", text);
        }
    }
}

//  Print an explanation as one JSON object
static void
s_json (const drover_msg_t *reply)
{
    char text [512];
    printf ("{\"task\":%" PRIu64 ",\"state\":", reply->task);
    char state [32];
    snprintf (state, sizeof state, "%s", drover_task_state_name (reply->state));
    for (char *at = state; *at; at++)
        *at = (char) tolower ((unsigned char) *at);
    drover_cli_json_string (stdout, state);
    printf (",\"attempt\":%u,\"worker\":", reply->attempt);
    drover_cli_json_string (stdout, reply->worker);
    const drover_why_t *verdict = drover_why_verdict (reply->whys, reply->nwhys);
    printf (",\"never\":%s", drover_why_never (verdict)? "true": "false");
    drover_why_short (reply->whys, reply->nwhys, text, sizeof text);
    printf (",\"reason\":");
    drover_cli_json_string (stdout, text);
    printf (",\"items\":[");
    for (uint32_t index = 0; index < reply->nwhys; index++) {
        const drover_why_t *why = &reply->whys [index];
        printf ("%s{\"code\":", index? ",": "");
        drover_cli_json_string (stdout, s_code_name (why->code));
        printf (",\"count\":%u,\"a\":%" PRIu64 ",\"b\":%" PRIu64 ",\"text\":", why->count,
                why->a, why->b);
        drover_cli_json_string (stdout, why->text);
        printf (",\"workers\":[");
        for (uint32_t name = 0; name < why->nnames; name++) {
            printf ("%s", name? ",": "");
            drover_cli_json_string (stdout, why->names [name]);
        }
        drover_why_sentence (why, text, sizeof text);
        printf ("],\"says\":");
        drover_cli_json_string (stdout, text);
        printf ("}");
    }
    printf ("]}\n");
}

//  drover explain ID [--json]
int
drover_cli_explain (int argc, char **argv)
{
    static struct option long_options [] = {
        { "json", no_argument, NULL, 'j' },
        DROVER_CLI_COMMON_OPTIONS,
        DROVER_CLI_KEY_OPTION,
        { NULL, 0, NULL, 0 }
    };
    bool json = false;
    optind = 0;
    opterr = 0;
    int option;
    while ((option = getopt_long (argc, argv, ":h", long_options, NULL)) != -1) {
        if (option == 'h') {
            s_usage (stdout);
            return DROVER_EXIT_OK;
        }
        else
        if (option == 'j')
            json = true;
        else {
            int rc = drover_cli_common_option ("explain", option, argv);
            if (rc)
                return rc;
        }
    }
    if (optind != argc - 1)
        return drover_cli_usage_error ("explain", optind < argc? "one task id, please":
                                       "which task? drover explain ID");
    uint64_t task;
    if (drover_cli_parse_id ("explain", argv [optind], &task))
        return DROVER_EXIT_USAGE;
    drover_client_t *client = drover_cli_connect ("explain");
    if (!client)
        return DROVER_EXIT_USAGE;
    int rc = DROVER_EXIT_OK;
    drover_msg_t *reply = drover_client_explain (client, task);
    if (!reply)
        rc = drover_cli_error (client, "explain");
    else
    if (json)
        s_json (reply);
    else
        s_text (reply);
    drover_msg_destroy (&reply);
    drover_client_destroy (&client);
    return rc;
}

//  Ask why a task waits and say it in a few words into text: the verdict's
//  sentence. Returns 1 if no connected worker could ever run it, 0 if it
//  could or is not waiting, -1 if the broker did not say (text empty).
int
drover_cli_explain_verdict (drover_client_t *client, uint64_t task, char *text, size_t size)
{
    text [0] = 0;
    drover_msg_t *reply = drover_client_explain (client, task);
    if (!reply)
        return -1;
    const drover_why_t *verdict = drover_why_verdict (reply->whys, reply->nwhys);
    if (verdict)
        drover_why_sentence (verdict, text, size);
    int never = drover_why_never (verdict);
    drover_msg_destroy (&reply);
    return never;
}
