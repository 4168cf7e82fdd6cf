/*  =========================================================================
    drover_cli_wait - `drover wait`: wait for tasks with a progress line on
    stderr, then a summary on stdout (succeeded, failed, cancelled; expired
    and unknown apart, never as failed; and the tasks that did not
    succeed). Also used by `drover submit --file --wait`.
    =========================================================================
*/

#include "drover_cli.h"
#include <ctype.h>

//  Bytes of a failure's reason and first stderr line shown
#define S_TEXT_MAX      80
//  Msec without a task ending before wait says which are left and why
#define S_STUCK_AFTER   3000

//  A task that did not succeed, as the summary lists it
typedef struct {
    uint64_t task;              //  task id
    uint8_t state;              //  drover_task_state_t
    char end [64];              //  how it ended, e.g. "exit 3"
    char worker [DROVER_ID_MAX + 1];    //  worker of the last attempt, or "-"
    char reason [S_TEXT_MAX + 1];   //  the broker's reason, printable
    char error [S_TEXT_MAX + 1];    //  first line of its stderr, printable
} s_failure_t;

//  One task's outcome, for --json (every task, so kept small)
typedef struct {
    uint64_t task;              //  task id
    uint8_t state;              //  drover_task_state_t
    uint8_t end;                //  drover_end_t
    int32_t exit_code;          //  exit status, if it exited
    int32_t signal;             //  signal, if one ended it
} s_outcome_t;

//  Results counted as they come
typedef struct {
    size_t total;               //  tasks waited for
    size_t succeeded;           //  SUCCEEDED
    size_t failed;              //  FAILED
    size_t cancelled;           //  CANCELLED
    size_t expired;             //  ended, but the broker no longer keeps the result
    size_t unknown;             //  never accepted by the broker
    s_failure_t *failures;      //  the first max_listed that did not succeed
    size_t listed;              //  entries in failures
    size_t capacity;            //  room in failures
    size_t max_listed;          //  most kept (0: all)
    drover_cli_progress_t progress;     //  the progress line
    s_outcome_t *outcomes;      //  --json: every task's outcome, as it came
    size_t noutcomes;           //  entries in outcomes
    size_t outcomes_room;       //  room in outcomes
    drover_cli_watch_t *watch;  //  says which tasks are left and why, when none end
    drover_cli_groups_t *groups;    //  the arrays and workflows waited for, or NULL
} s_tally_t;

//  Copy at most max bytes of text up to the first newline, printable only
static void
s_printable (char *target, const byte *text, size_t size, size_t max)
{
    size_t length = 0;
    for (size_t index = 0; index < size && length < max && text [index] != '\n'; index++)
        target [length++] = text [index] >= 0x20 && text [index] < 0x7f? (char) text [index]: '?';
    target [length] = 0;
}

//  A TASK DONE: count it; keep what the summary needs if it did not succeed
static void
s_on_done (const drover_result_t *result, void *arg)
{
    const drover_msg_t *done = drover_result_msg (result);
    s_tally_t *tally = (s_tally_t *) arg;
    drover_cli_watch_ended (tally->watch, done->task);
    if (drover_cli_globals.json) {
        if (tally->noutcomes == tally->outcomes_room) {
            tally->outcomes_room = tally->outcomes_room? tally->outcomes_room * 2: 64;
            tally->outcomes = (s_outcome_t *) realloc (tally->outcomes,
                                                       tally->outcomes_room * sizeof (s_outcome_t));
            assert (tally->outcomes);
        }
        tally->outcomes [tally->noutcomes++] = (s_outcome_t) {
            done->task, done->state, done->end, done->exit_code, done->signal };
    }
    if (done->state == DROVER_TASK_SUCCEEDED) {
        tally->succeeded++;
        return;
    }
    if (done->end == DROVER_END_EXPIRED)
        tally->expired++;
    else
    if (done->state == DROVER_TASK_UNKNOWN)
        tally->unknown++;
    else
    if (done->state == DROVER_TASK_CANCELLED)
        tally->cancelled++;
    else
        tally->failed++;
    s_failure_t *failure = NULL;
    if (tally->max_listed && tally->listed >= tally->max_listed) {
        //  Full: keep the lowest ids, as the summary lists them in id order
        for (size_t index = 0; index < tally->listed; index++)
            if (!failure || tally->failures [index].task > failure->task)
                failure = &tally->failures [index];
        if (done->task > failure->task)
            return;
    }
    else {
        if (tally->listed == tally->capacity) {
            tally->capacity = tally->capacity? tally->capacity * 2: 16;
            tally->failures = (s_failure_t *) realloc (tally->failures,
                                                       tally->capacity * sizeof (s_failure_t));
            assert (tally->failures);
        }
        failure = &tally->failures [tally->listed++];
    }
    failure->task = done->task;
    failure->state = done->state;
    drover_cli_describe_end (done, failure->end, sizeof failure->end);
    snprintf (failure->worker, sizeof failure->worker, "%s", *done->worker? done->worker: "-");
    const char *reason = done->reason? done->reason: "";
    s_printable (failure->reason, (const byte *) reason, strlen (reason), S_TEXT_MAX);
    s_printable (failure->error, done->err, done->err_size, S_TEXT_MAX);
}

//  Progress: redraw with the counts so far
static void
s_on_progress (size_t done, size_t total, void *arg)
{
    s_tally_t *tally = (s_tally_t *) arg;
    tally->total = total;           //  distinct tasks, as wait counts them
    char extra [160];
    int length = snprintf (extra, sizeof extra, "ok %zu  failed %zu  cancelled %zu",
                           tally->succeeded, tally->failed, tally->cancelled);
    if (tally->expired + tally->unknown)
        snprintf (extra + length, sizeof extra - length, "  expired %zu  unknown %zu",
                  tally->expired, tally->unknown);
    drover_cli_progress_show (&tally->progress, "waited", done, total, extra, false);
    drover_cli_watch_tick (tally->watch, done, total, &tally->progress);
    drover_cli_groups_tick (tally->groups, &tally->progress);
}

//  Order failures by task id
static int
s_compare_failures (const void *left, const void *right)
{
    uint64_t one = ((const s_failure_t *) left)->task, other = ((const s_failure_t *) right)->task;
    return one < other? -1: one > other;
}

//  Order outcomes by task id
static int
s_compare_outcomes (const void *left, const void *right)
{
    uint64_t one = ((const s_outcome_t *) left)->task, other = ((const s_outcome_t *) right)->task;
    return one < other? -1: one > other;
}

//  Print a task state's or outcome's name in lower case as a JSON string
static void
s_json_name (const char *name)
{
    char lower [32];
    size_t length = 0;
    for (; name [length] && length + 1 < sizeof lower; length++)
        lower [length] = (char) tolower ((unsigned char) name [length]);
    lower [length] = 0;
    drover_cli_json_string (stdout, lower);
}

//  Print the summary as one JSON document: the counts, every task's
//  outcome and the details of those that did not succeed, in id order
static void
s_summary_json (s_tally_t *tally, size_t not_finished, double elapsed)
{
    printf ("{\"total\":%zu,\"succeeded\":%zu,\"failed\":%zu,\"cancelled\":%zu,"
            "\"expired\":%zu,\"unknown\":%zu,\"not_finished\":%zu,\"seconds\":%.3f,\"tasks\":[",
            tally->total, tally->succeeded, tally->failed, tally->cancelled, tally->expired,
            tally->unknown, not_finished, elapsed);
    if (tally->noutcomes)           //  outcomes is NULL without one
        qsort (tally->outcomes, tally->noutcomes, sizeof (s_outcome_t), s_compare_outcomes);
    for (size_t index = 0; index < tally->noutcomes; index++) {
        s_outcome_t *outcome = &tally->outcomes [index];
        char end [32];
        drover_cli_end_name (outcome->end, end, sizeof end);
        printf ("%s{\"id\":%llu,\"state\":", index? ",": "", (unsigned long long) outcome->task);
        s_json_name (drover_task_state_name (outcome->state));
        printf (",\"outcome\":");
        drover_cli_json_string (stdout, end);
        printf (",\"exit_code\":%d,\"signal\":%d}", outcome->exit_code, outcome->signal);
    }
    printf ("],\"not_succeeded\":[");
    for (size_t index = 0; index < tally->listed; index++) {
        s_failure_t *failure = &tally->failures [index];
        printf ("%s{\"id\":%llu,\"state\":", index? ",": "", (unsigned long long) failure->task);
        s_json_name (drover_task_state_name (failure->state));
        printf (",\"end\":");
        drover_cli_json_string (stdout, failure->end);
        printf (",\"worker\":");
        drover_cli_json_string (stdout, failure->worker);
        printf (",\"reason\":");
        drover_cli_json_string (stdout, failure->reason);
        printf (",\"stderr\":");
        drover_cli_json_string (stdout, failure->error);
        printf ("}");
    }
    printf ("]}\n");
}

//  Print the summary and the tasks that did not succeed, in id order
static void
s_summary (s_tally_t *tally)
{
    size_t not_succeeded = tally->failed + tally->cancelled + tally->expired + tally->unknown;
    size_t done = tally->succeeded + not_succeeded;
    double elapsed = (zclock_mono () - tally->progress.started) / 1000.0;
    if (tally->listed)              //  failures is NULL without one
        qsort (tally->failures, tally->listed, sizeof (s_failure_t), s_compare_failures);
    if (drover_cli_globals.json) {
        s_summary_json (tally, tally->total - MIN (done, tally->total), elapsed);
        return;
    }
    printf ("%zu task%s: %zu succeeded, %zu failed, %zu cancelled", tally->total,
            tally->total == 1? "": "s", tally->succeeded, tally->failed, tally->cancelled);
    if (tally->expired)
        printf (", %zu expired", tally->expired);
    if (tally->unknown)
        printf (", %zu unknown", tally->unknown);
    if (done < tally->total)
        printf (", %zu not finished", tally->total - done);
    printf (" (%.1f s)\n", elapsed);
    if (tally->listed == 0)
        return;
    //  An aligned table: widths from the widest cell of each column
    int id_width = 4, state_width = 5, end_width = 3, worker_width = 6, reason_width = 6;
    for (size_t index = 0; index < tally->listed; index++) {
        s_failure_t *failure = &tally->failures [index];
        char id [24];
        int width = snprintf (id, sizeof id, "%llu", (unsigned long long) failure->task);
        id_width = width > id_width? width: id_width;
        width = (int) strlen (drover_task_state_name (failure->state));
        state_width = width > state_width? width: state_width;
        width = (int) strlen (failure->end);
        end_width = width > end_width? width: end_width;
        width = (int) strlen (failure->worker);
        worker_width = width > worker_width? width: worker_width;
        width = (int) strlen (failure->reason);
        reason_width = width > reason_width? width: reason_width;
    }
    printf ("\nnot succeeded:\n");
    printf ("  %-*s  %-*s  %-*s  %-*s  %-*s  %s\n", id_width, "TASK", state_width, "STATE",
            end_width, "END", worker_width, "WORKER", reason_width, "REASON", "STDERR");
    for (size_t index = 0; index < tally->listed; index++) {
        s_failure_t *failure = &tally->failures [index];
        printf ("  %-*llu  %-*s  %-*s  %-*s  %-*s  %s\n", id_width,
                (unsigned long long) failure->task, state_width,
                drover_task_state_name (failure->state), end_width, failure->end,
                worker_width, failure->worker, reason_width, failure->reason, failure->error);
    }
    size_t unlisted = not_succeeded - tally->listed;
    if (unlisted)
        printf ("  ... and %zu more (drover tasks --state failed)\n", unlisted);
}

//  Wait for count tasks with progress and a summary
int
drover_cli_wait_tasks (drover_client_t *client, const uint64_t *tasks, size_t count,
                       size_t max_listed)
{
    s_tally_t tally = { .max_listed = max_listed };
    drover_cli_progress_init (&tally.progress);
    tally.watch = drover_cli_watch_new ("wait", tasks, count, S_STUCK_AFTER);
    tally.groups = drover_cli_groups_new (client, tasks, count);
    int rc = drover_client_wait (client, tasks, count, s_on_done, s_on_progress, &tally);
    if (rc == 0)
        drover_cli_progress_show (&tally.progress, "waited", tally.total, tally.total, NULL,
                                  !tally.progress.tty);
    drover_cli_progress_clear (&tally.progress);
    int status;
    if (rc) {
        //  A partial summary, then why we stopped
        s_summary (&tally);
        fflush (stdout);
        status = drover_cli_error (client, "wait");
    }
    else {
        s_summary (&tally);
        status = tally.succeeded == tally.total? DROVER_EXIT_OK: DROVER_EXIT_FAILED;
    }
    free (tally.failures);
    free (tally.outcomes);
    drover_cli_watch_destroy (&tally.watch);
    drover_cli_groups_destroy (&tally.groups);
    return status;
}


//  ---------------------------------------------------------------------
//  Finding the ids

//  A growing array of task ids
typedef struct {
    uint64_t *ids;              //  the ids
    size_t count;               //  ids held
    size_t capacity;            //  room
} s_ids_t;

//  Append one id
static void
s_ids_add (s_ids_t *ids, uint64_t task)
{
    if (ids->count == ids->capacity) {
        ids->capacity = ids->capacity? ids->capacity * 2: 1024;
        ids->ids = (uint64_t *) realloc (ids->ids, ids->capacity * sizeof (uint64_t));
        assert (ids->ids);
    }
    ids->ids [ids->count++] = task;
}

//  Read whitespace-separated ids from stdin. Returns 0 or the exit status.
static int
s_read_ids (s_ids_t *ids)
{
    char token [64];
    int rc = 0;
    while (rc == 0 && scanf ("%63s", token) == 1) {
        uint64_t task;
        if (drover_cli_parse_id ("wait", token, &task))
            rc = DROVER_EXIT_USAGE;
        else
            s_ids_add (ids, task);
    }
    return rc;
}

//  Add every task in one state. TASK LIST gives the newest DROVER_ROWS_MAX
//  at most and has no cursor in protocol version 1: past that, say what
//  was left out.
static int
s_list_state (drover_client_t *client, int state, s_ids_t *ids)
{
    drover_msg_t *table = drover_client_task_table (client, state, DROVER_ROWS_MAX, NULL, 0);
    if (!table)
        return drover_cli_error (client, "wait --all: list tasks");
    for (uint32_t row = 0; row < table->nrows; row++)
        if (table->task_rows [row].state == state)
            s_ids_add (ids, table->task_rows [row].task);
    if (table->counts [state] > table->nrows)
        fprintf (stderr, "drover wait: the broker lists the newest %u of %llu %s tasks; "
                 "waiting for those\n", table->nrows, (unsigned long long) table->counts [state],
                 drover_task_state_name (state));
    drover_msg_destroy (&table);
    return 0;
}

//  Print wait's usage
static void
s_usage (FILE *stream)
{
    fprintf (stream,
        "usage: drover wait [--failures N] [--json] [--all | ID... | -]\n"
        "\n"
        "Waits for the tasks to end, with a progress line on stderr, then prints a\n"
        "summary: how many succeeded, failed and were cancelled (and, apart, how many\n"
        "had expired: ended, but the broker no longer keeps their results, see\n"
        "assign/keep-finished and assign/keep-finished-bytes; and how many ids it never gave\n"
        "out), and each task that did not succeed (id, state, outcome or exit status,\n"
        "worker, reason, first line of stderr), in id order. When no task has ended\n"
        "for 3 s, it says on stderr which are left and why (as `drover explain` says\n"
        "it), and again whenever that changes. An id may be an array's or a workflow's\n"
        "(drover submit --array, --workflow): it ends when all its members ended, and\n"
        "while it waits a line on stderr says its members' progress when it changes\n"
        "(\"array 40: 812 of 1000 ended, 50 running\").\n"
        "\n"
        "  ID...          task ids; '-' reads them from stdin (whitespace-separated)\n"
        "  -a, --all      every task not finished when drover wait starts\n"
        "  -j, --json     the summary as one JSON document: the counts (total, succeeded,\n"
        "                 failed, cancelled, expired, unknown, not_finished, seconds),\n"
        "                 \"tasks\" (each task's id, state, outcome, exit_code, signal) and\n"
        "                 \"not_succeeded\" (id, state, end, worker, reason, stderr)\n"
        "  --failures N   list at most N tasks that did not succeed (default 100, 0 all)\n"
        "  --broker ENDPOINT, --broker-timeout SECONDS   as for every command\n"
        "\n"
        "exit status: 0 if every task succeeded, 1 otherwise (or if the broker stopped\n"
        "answering), 2 for bad arguments, 130 if interrupted.\n");
}

//  drover wait
int
drover_cli_wait (int argc, char **argv)
{
    static struct option long_options [] = {
        { "all", no_argument, NULL, 'a' },
        { "failures", required_argument, NULL, 'F' },
        { "json", no_argument, NULL, 'j' },
        DROVER_CLI_COMMON_OPTIONS,
        DROVER_CLI_KEY_OPTION,
        { NULL, 0, NULL, 0 }
    };
    bool all = false;
    long long max_listed = 100;
    optind = 0;
    opterr = 0;
    int option;
    while ((option = getopt_long (argc, argv, ":haj", long_options, NULL)) != -1) {
        if (option == 'h') {
            s_usage (stdout);
            return DROVER_EXIT_OK;
        }
        else
        if (option == 'a')
            all = true;
        else
        if (option == 'j')
            drover_cli_globals.json = true;
        else
        if (option == 'F') {
            if (drover_cli_parse_int ("wait", "--failures", optarg, 0, INT32_MAX, &max_listed))
                return DROVER_EXIT_USAGE;
        }
        else {
            int rc = drover_cli_common_option ("wait", option, argv);
            if (rc)
                return rc;
        }
    }
    if (all == (optind < argc))
        return drover_cli_usage_error ("wait", all? "--all and ids: give one or the other"
                                                 : "which tasks? (ids, '-' or --all)");
    s_ids_t ids = { 0 };
    int rc = 0;
    for (int index = optind; rc == 0 && index < argc; index++) {
        uint64_t task;
        if (streq (argv [index], "-"))
            rc = s_read_ids (&ids);
        else
        if (drover_cli_parse_id ("wait", argv [index], &task))
            rc = DROVER_EXIT_USAGE;
        else
            s_ids_add (&ids, task);
    }
    drover_client_t *client = rc? NULL: drover_cli_connect ("wait");
    if (rc == 0 && !client)
        rc = DROVER_EXIT_USAGE;
    if (rc == 0 && all) {
        int states [] = { DROVER_TASK_QUEUED, DROVER_TASK_ASSIGNED, DROVER_TASK_RUNNING };
        for (int index = 0; rc == 0 && index < 3; index++)
            rc = s_list_state (client, states [index], &ids);
    }
    if (rc == 0) {
        if (ids.count == 0 && drover_cli_globals.json)
            printf ("{\"total\":0,\"succeeded\":0,\"failed\":0,\"cancelled\":0,\"expired\":0,"
                    "\"unknown\":0,\"not_finished\":0,\"seconds\":0,\"tasks\":[],"
                    "\"not_succeeded\":[]}\n");
        else
        if (ids.count == 0)
            printf ("0 tasks: nothing to wait for\n");
        else
            rc = drover_cli_wait_tasks (client, ids.ids, ids.count, (size_t) max_listed);
    }
    drover_client_destroy (&client);
    free (ids.ids);
    return rc;
}
