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
#include <ctype.h>

//  Print explain's usage
static void
s_usage (FILE *stream)
{
    fprintf (stream,
        "usage: drover explain ID [-j|--json]\n"
        "\n"
        "Why a task waits, as the broker's scheduler sees it: its place in the queue\n"
        "(how many run before it, and why), for every worker the first reason it cannot\n"
        "take the task (workers that say the same grouped: a count and a few names),\n"
        "and what would unblock it. For a task not waiting: its state, worker and\n"
        "attempt (`drover show ID` has the rest). --json prints the codes and numbers\n"
        "the broker sent, with the sentences.\n"
        "\n"
        "A task held out of the queue says what for: \"waiting for tasks 12, 14 (12\n"
        "running, 14 queued)\" (--after), \"begins at 02:00:00 (in 3h12m)\" (--begin),\n"
        "\"retry 3 of 5 at 10:42:07\" (--retry-delay), \"array 40: 50 of 50 queued or\n"
        "running, limit reached\" (--array with %%MAX); an array's or workflow's own id\n"
        "says how far its members are: \"workflow 40: 3 of 5 ended, 2 queued or running\".\n");
}

//  Return the lower-case name of a reason code, for JSON; a code of a later
//  broker as its number, written into number (PROTOCOL.md §7.25)
static const char *
s_code_name (int code, char *number, size_t size)
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
        case DROVER_WHY_POOL_START:     return "pool_start";
        case DROVER_WHY_POOL_NOFIT:     return "pool_nofit";
        case DROVER_WHY_AFFINITY:       return "affinity";
        case DROVER_WHY_PARENT:         return "parent";
        case DROVER_WHY_BEGIN:          return "begin";
        case DROVER_WHY_RETRY:          return "retry";
        case DROVER_WHY_ARRAY_LIMIT:    return "array_limit";
        case DROVER_WHY_GROUP:          return "group";
    }
    snprintf (number, size, "%d", code);
    return number;
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

//  Say when a wall-clock time (msec since the epoch) comes, from now:
//  "02:00:00 (in 3h12m)", with the date when it is not within a day
static void
s_when (uint64_t msec, char *text, size_t size)
{
    int64_t now = zclock_time ();
    time_t seconds = (time_t) (msec / 1000);
    struct tm tm;
    localtime_r (&seconds, &tm);
    char clock [32];
    strftime (clock, sizeof clock, (int64_t) msec - now < 86400000 && (int64_t) msec > now - 86400000
              ? "%H:%M:%S": "%Y-%m-%d %H:%M:%S", &tm);
    char left [32];
    drover_cli_duration ((int64_t) msec > now? (int64_t) msec - now: 0, left, sizeof left);
    snprintf (text, size, "%s (%s%s)", clock, (int64_t) msec > now? "in ": "due, ",
              (int64_t) msec > now? left: "now");
}

//  Say a level-3 item (codes 60..64: what a task waits for before the
//  queue) in words into text; item index of the reply, whose parent
//  items (60) it says all at once, and 0 of them past the first. group_array:
//  the task is an array's own id (not a workflow's). Returns true if the
//  item is one of these.
static bool
s_wait_sentence (const drover_msg_t *reply, uint32_t index, bool group_array, char *text,
                 size_t size)
{
    const drover_why_t *why = &reply->whys [index];
    text [0] = 0;
    if (why->code == DROVER_WHY_PARENT) {
        if (index > 0 && reply->whys [index - 1].code == DROVER_WHY_PARENT)
            return true;                //  said with the first
        //  "waiting for tasks 12, 14 (12 running, 14 queued)"
        uint32_t listed = 0;
        while (index + listed < reply->nwhys && reply->whys [index + listed].code == DROVER_WHY_PARENT)
            listed++;
        size_t used = (size_t) snprintf (text, size, "waiting for task%s ",
                                         why->count > 1 || listed > 1? "s": "");
        for (uint32_t at = 0; at < listed && used < size; at++)
            used += (size_t) snprintf (text + used, size - used, "%s%" PRIu64, at? ", ": "",
                                       reply->whys [index + at].a);
        if (why->count > listed && used < size)
            used += (size_t) snprintf (text + used, size - used, " and %u more",
                                       why->count - listed);
        for (uint32_t at = 0; at < listed && used < size; at++) {
            char state [16];
            drover_cli_lower (drover_task_state_name ((int) reply->whys [index + at].b), state,
                              sizeof state);
            used += (size_t) snprintf (text + used, size - used, "%s%" PRIu64 " %s",
                                       at? ", ": " (", reply->whys [index + at].a, state);
        }
        if (used < size)
            snprintf (text + used, size - used, ")");
        return true;
    }
    char when [128];
    if (why->code == DROVER_WHY_BEGIN) {
        s_when (why->a, when, sizeof when);
        snprintf (text, size, "begins at %s", when);
        return true;
    }
    if (why->code == DROVER_WHY_RETRY) {
        s_when (why->a, when, sizeof when);
        snprintf (text, size, "retry %" PRIu64 " of %u at %s, after the last attempt failed",
                  why->b, why->count, when);
        return true;
    }
    if (why->code == DROVER_WHY_ARRAY_LIMIT) {
        snprintf (text, size, "array %" PRIu64 ": %" PRIu64 " of %u queued or running, "
                  "limit reached", why->a, why->b, why->count);
        return true;
    }
    if (why->code == DROVER_WHY_GROUP) {
        snprintf (text, size, "%s %" PRIu64 ": %" PRIu64 " of %" PRIu64 " ended, %u queued or running",
                  group_array? "array": "workflow", reply->task, why->a, why->b, why->count);
        return true;
    }
    return false;
}

//  Print an explanation in words; ended (a final task's TASK INFO, or
//  NULL) says how it ended
static void
s_text (const drover_msg_t *reply, bool group_array, const drover_taskinfo_t *ended)
{
    char text [512];
    printf ("task %" PRIu64 ": %s", reply->task, drover_task_state_name (reply->state));
    if (reply->state != DROVER_TASK_QUEUED) {
        if (reply->worker [0])
            printf (" on %s", reply->worker);
        if (reply->attempt)
            printf (", attempt %u", reply->attempt);
        if (reply->state == DROVER_TASK_ASSIGNED)
            printf ("\noffered: not started yet; a worker whose procs are all taken may hold it "
                    "ahead, to start when a task of its own ends");
        if (ended && ended->end != DROVER_END_NONE)
            printf ("\nended:   %s%s%s", drover_end_name (ended->end),
                    ended->reason? ": ": "", ended->reason? ended->reason: "");
        printf ("\n(drover show %" PRIu64 " has its history)\n", reply->task);
        return;
    }
    printf ("\n");
    for (uint32_t index = 0; index < reply->nwhys; index++) {
        const drover_why_t *why = &reply->whys [index];
        if (s_wait_sentence (reply, index, group_array, text, sizeof text)) {
            if (*text)
                printf ("waiting: %s\n", text);
            continue;
        }
        drover_why_sentence (why, text, sizeof text);
        if (why->code == DROVER_WHY_AHEAD)
            printf ("queue:   %s\n", text);
        else
        if (why->code == DROVER_WHY_FAIR_SHARE)
            printf ("share:   %s\n", text);
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
s_json (const drover_msg_t *reply, bool group_array)
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
        char number [8];
        drover_cli_json_string (stdout, s_code_name (why->code, number, sizeof number));
        printf (",\"count\":%u,\"a\":%" PRIu64 ",\"b\":%" PRIu64 ",\"text\":", why->count,
                why->a, why->b);
        drover_cli_json_string (stdout, why->text);
        printf (",\"workers\":[");
        for (uint32_t name = 0; name < why->nnames; name++) {
            printf ("%s", name? ",": "");
            drover_cli_json_string (stdout, why->names [name]);
        }
        if (!s_wait_sentence (reply, index, group_array, text, sizeof text))
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
    bool json = false;
    int rc = drover_cli_parse_simple ("explain", argc, argv, &json, s_usage);
    if (rc)
        return rc == DROVER_CLI_HELP? DROVER_EXIT_OK: rc;
    if (optind != argc - 1)
        return drover_cli_usage_error ("explain", optind < argc? "one task id, please":
                                       "which task? drover explain ID");
    uint64_t task;
    if (drover_cli_parse_id ("explain", argv [optind], &task))
        return DROVER_EXIT_USAGE;
    drover_client_t *client = drover_cli_connect ("explain");
    if (!client)
        return DROVER_EXIT_USAGE;
    rc = DROVER_EXIT_OK;
    drover_msg_t *reply = drover_client_explain (client, task);
    //  A group's item says not whether it is an array's: TASK SHOW does
    bool group_array = false;
    for (uint32_t index = 0; reply && index < reply->nwhys; index++)
        if (reply->whys [index].code == DROVER_WHY_GROUP) {
            drover_msg_t *info = drover_client_show (client, task);
            group_array = info && info->info && info->info->array_step > 0;
            drover_msg_destroy (&info);
            break;
        }
    //  A final task: how it ended (an OOM kill, a timeout...), from TASK SHOW
    drover_msg_t *ended = NULL;
    if (reply && !json && reply->state >= DROVER_TASK_SUCCEEDED
    &&  reply->state <= DROVER_TASK_CANCELLED)
        ended = drover_client_show (client, task);
    if (!reply)
        rc = drover_cli_error (client, "explain");
    else
    if (json)
        s_json (reply, group_array);
    else
        s_text (reply, group_array, ended? ended->info: NULL);
    drover_msg_destroy (&ended);
    drover_msg_destroy (&reply);
    drover_client_destroy (&client);
    return rc;
}

//  Ask why a task waits and say it in a few words into text: the
//  verdict's sentence; *workers_p gets how many connected workers the
//  explanation counts. Returns 1 if no connected worker could ever run
//  it, 0 if one could or it does not wait, -1 if the broker did not say
//  (text empty).
static int
s_verdict_workers (drover_client_t *client, uint64_t task, char *text, size_t size,
                   uint64_t *workers_p)
{
    text [0] = 0;
    *workers_p = 0;
    drover_msg_t *reply = drover_client_explain (client, task);
    if (!reply)
        return -1;
    for (uint32_t index = 0; index < reply->nwhys; index++)
        if (reply->whys [index].code > DROVER_WHY_AHEAD
        &&  reply->whys [index].code < DROVER_WHY_NEXT)
            *workers_p += reply->whys [index].count;
    const drover_why_t *verdict = drover_why_verdict (reply->whys, reply->nwhys);
    if (verdict)
        drover_why_sentence (verdict, text, size);
    int never = drover_why_never (verdict);
    drover_msg_destroy (&reply);
    return never;
}

//  Ask why a task waits and say it in a few words into text: the verdict's
//  sentence. Returns 1 if no connected worker could ever run it, 0 if it
//  could or is not waiting, -1 if the broker did not say (text empty).
int
drover_cli_explain_verdict (drover_client_t *client, uint64_t task, char *text, size_t size)
{
    uint64_t workers;
    return s_verdict_workers (client, task, text, size, &workers);
}


//  ---------------------------------------------------------------------
//  Warnings and watching: submit and wait say why tasks cannot run

//  Msec a broker that just took over may have fewer workers than it will
//  (they are finding it: PROTOCOL.md §17), and between two looks then
#define S_TAKEOVER_GRACE    2000
#define S_LOOK_AGAIN        200

//  True if the command was given several brokers: the one that answers
//  may have just taken over from another
static bool
s_several_brokers (void)
{
    const char *list = drover_cli_globals.broker? drover_cli_globals.broker
                     : getenv ("DROVER_BROKER");
    return list && strchr (list, ',');
}

//  Warn on stderr if no connected worker could ever run a task just
//  submitted (count tasks alike from first on, for a --file: one warning
//  for them all); the verdict's words go into text (may be empty).
//  Returns true if it warned. With several brokers, the one that answers
//  may have just taken over, its workers still on their way: while no
//  worker is connected, or more come, it looks again for a while first.
bool
drover_cli_explain_warn (drover_client_t *client, const char *command, uint64_t first,
                         size_t count, char *text, size_t size)
{
    uint64_t workers = 0, before = 0;
    int never = s_verdict_workers (client, first, text, size, &workers);
    int64_t until = zclock_mono () + S_TAKEOVER_GRACE;
    while (never == 1 && s_several_brokers () && (workers == 0 || workers > before)
       &&  zclock_mono () < until && !zsys_interrupted) {
        zclock_sleep (S_LOOK_AGAIN);
        before = workers;
        never = s_verdict_workers (client, first, text, size, &workers);
    }
    if (never != 1)
        return false;
    //  "no worker could ever run it: WHY": say WHY after our own words
    const char *why = strstr (text, ": ");
    why = why? why + 2: text;
    if (count > 1)
        fprintf (stderr, "drover %s: warning: %zu tasks (the first %" PRIu64 ") cannot run on any "
                 "connected worker: %s\n", command, count, first, why);
    else
        fprintf (stderr, "drover %s: warning: task %" PRIu64 " cannot run on any connected "
                 "worker: %s\n", command, first, why);
    return true;
}

//  Most tasks a watch explains in one look; the rest are counted
#define S_WATCH_EXPLAIN     20
//  Msec between looks while tasks still wait
#define S_WATCH_EVERY       2000
//  Bytes of one report
#define S_WATCH_REPORT      8192

struct _drover_cli_watch_t {
    const char *command;        //  "wait", "submit": for the messages
    const uint64_t *tasks;      //  the tasks waited for (borrowed)
    size_t count;               //  entries in tasks
    int64_t quiet;              //  msec without an end before a report
    zhashx_t *ended;            //  ids (as text) of the tasks that ended
    drover_client_t *client;    //  a connection of its own for EXPLAIN, made when needed
    bool broken;                //  it could not connect: say nothing more
    size_t done;                //  ended, as the last tick said
    int64_t changed;            //  when done last changed, msec monotonic
    int64_t next_look;          //  msec monotonic
    char *said;                 //  the last report's lines, to say only changes
};

//  Create a watch over count tasks (borrowed) for command: after quiet
//  msec without a task ending, and then whenever what it would say changes,
//  it says on stderr which are left and why
drover_cli_watch_t *
drover_cli_watch_new (const char *command, const uint64_t *tasks, size_t count, int64_t quiet)
{
    drover_cli_watch_t *self = (drover_cli_watch_t *) zmalloc (sizeof (drover_cli_watch_t));
    self->command = command;
    self->tasks = tasks;
    self->count = count;
    self->quiet = quiet;
    self->ended = zhashx_new ();
    self->changed = zclock_mono ();
    self->said = strdup ("");
    return self;
}

//  Destroy a watch; harmless on NULL
void
drover_cli_watch_destroy (drover_cli_watch_t **self_p)
{
    drover_cli_watch_t *self = *self_p;
    if (self) {
        zhashx_destroy (&self->ended);
        drover_client_destroy (&self->client);
        free (self->said);
        free (self);
        *self_p = NULL;
    }
}

//  Take a task's words as already said (a warning said them)
void
drover_cli_watch_said (drover_cli_watch_t *self, uint64_t task, const char *text)
{
    free (self->said);
    self->said = zsys_sprintf ("  %" PRIu64 ": %s\n", task, text);
}

//  A task ended: it is left no more
void
drover_cli_watch_ended (drover_cli_watch_t *self, uint64_t task)
{
    char key [24];
    snprintf (key, sizeof key, "%" PRIu64, task);
    zhashx_update (self->ended, key, (void *) 1);
}

//  Say in words where one task is: the verdict of a queued one, the state
//  and worker of any other
static void
s_whereabouts (drover_msg_t *reply, char *text, size_t size)
{
    const drover_why_t *verdict = drover_why_verdict (reply->whys, reply->nwhys);
    if (reply->state == DROVER_TASK_QUEUED && verdict)
        drover_why_sentence (verdict, text, size);
    else {
        char state [16];
        snprintf (state, sizeof state, "%s", drover_task_state_name (reply->state));
        for (char *at = state; *at; at++)
            *at = (char) tolower ((unsigned char) *at);
        snprintf (text, size, "%s%s%s", state, *reply->worker? " on ": "", reply->worker);
    }
}

//  Explain up to S_WATCH_EXPLAIN tasks left and group them by what they
//  wait for: "  ID, ID: words" lines into report. Returns false if the
//  broker did not answer.
static bool
s_look (drover_cli_watch_t *self, char *report, size_t size)
{
    char texts [S_WATCH_EXPLAIN][160];
    uint64_t ids [S_WATCH_EXPLAIN];
    size_t looked = 0;
    for (size_t index = 0; index < self->count && looked < S_WATCH_EXPLAIN; index++) {
        char key [24];
        snprintf (key, sizeof key, "%" PRIu64, self->tasks [index]);
        if (zhashx_lookup (self->ended, key))
            continue;
        bool seen = false;
        for (size_t other = 0; other < looked && !seen; other++)
            seen = ids [other] == self->tasks [index];
        if (seen)
            continue;
        drover_msg_t *reply = drover_client_explain (self->client, self->tasks [index]);
        if (!reply) {
            int code = drover_client_error_code (self->client);
            if (code == DROVER_CODE_NOT_FOUND || code == DROVER_CODE_CONFLICT)
                continue;       //  gone, or placed meanwhile: the wait says the rest
            return false;
        }
        ids [looked] = self->tasks [index];
        s_whereabouts (reply, texts [looked], sizeof texts [looked]);
        looked++;
        drover_msg_destroy (&reply);
    }
    //  One line per distinct text, its ids in the order waited for
    size_t used = 0;
    report [0] = 0;
    bool grouped [S_WATCH_EXPLAIN] = { false };
    for (size_t index = 0; index < looked; index++) {
        if (grouped [index])
            continue;
        used += (size_t) snprintf (report + used, used < size? size - used: 0, "  %" PRIu64,
                                   ids [index]);
        for (size_t other = index + 1; other < looked; other++)
            if (!grouped [other] && streq (texts [other], texts [index])) {
                grouped [other] = true;
                used += (size_t) snprintf (report + used, used < size? size - used: 0,
                                           ", %" PRIu64, ids [other]);
            }
        used += (size_t) snprintf (report + used, used < size? size - used: 0, ": %s\n",
                                   texts [index]);
    }
    return true;
}

//  Wait's progress: done of total tasks ended. Past the quiet time
//  without an end, looks every few seconds and says which tasks are left
//  and why whenever that changes (clearing the progress bar first, if any).
void
drover_cli_watch_tick (drover_cli_watch_t *self, size_t done, size_t total,
                       drover_cli_progress_t *progress)
{
    int64_t now = zclock_mono ();
    if (done != self->done) {
        self->done = done;
        self->changed = now;
    }
    if (self->broken || done >= total || now - self->changed < self->quiet
    ||  now < self->next_look)
        return;
    self->next_look = now + S_WATCH_EVERY;
    if (!self->client) {
        self->client = drover_cli_connect (self->command);
        if (!self->client) {
            self->broken = true;
            return;
        }
    }
    char report [S_WATCH_REPORT];
    if (!s_look (self, report, sizeof report) || streq (report, self->said) || !*report)
        return;
    free (self->said);
    self->said = strdup (report);
    if (progress)
        drover_cli_progress_clear (progress);
    size_t left = total - done;
    if (left == 1 && !strchr (report + 2, ','))
        fprintf (stderr, "drover %s: task%s", self->command, report + 1);
    else {
        fprintf (stderr, "drover %s: %zu task%s left", self->command, left, left == 1? "": "s");
        if (now - self->changed >= 1000)
            fprintf (stderr, ", none ended for %" PRId64 " s", (now - self->changed) / 1000);
        fprintf (stderr, ":\n%s", report);
        if (left > S_WATCH_EXPLAIN)
            fprintf (stderr, "  ... and %zu more\n", left - S_WATCH_EXPLAIN);
    }
}
