/*  =========================================================================
    drover_cli_submit - `drover submit`: one task from the command line, or
    one shell command per line of a file, pipelined through the client's
    async window with a progress line; --wait waits for the results.

    Every line of a file goes with a submit key, a hash of the file's
    absolute path, the line's number and its text (and --key, if given):
    the broker answers a key it holds with the task id it gave it, so
    running a file again after a broker crash cut its submit short runs
    nothing twice, and the client's re-sends after a silence are safe.
    =========================================================================
*/

#include "drover_cli.h"
#include "drover_keys.h"
#include "drover_taskopts.h"
#include "drover_workflowfile.h"

//  Lines of a --file longer than this are refused (bytes)
#define S_LINE_MAX      DROVER_STRING_MAX
//  Refused lines reported one by one, at most
#define S_REPORT_MAX    10

//  What the flags said
typedef struct {
    drover_taskopts_t *task;    //  the task's options: its TASK SUBMIT and body, owned
    drover_msg_t *submit;       //  the TASK SUBMIT every task starts from (task's)
    bool task_options;          //  a task's option was given
    const char *file;           //  --file, or NULL
    const char *workflow;       //  --workflow, or NULL
    const char *name;           //  --name: the workflow's, or NULL
    bool wait;                  //  --wait
    uint32_t window;            //  --window: async submits outstanding
    size_t max_listed;          //  --failures: failures listed by --wait
    const char *key;            //  --submit-key: the task's key, or with --file mixed into
                                //  each line's
    bool no_keys;               //  --no-submit-keys: --file sends no keys
    const char *queue;          //  --queue: the named queue, or NULL ($DROVER_QUEUE, none)
} s_options_t;

//  The async submit of a file's lines
typedef struct {
    uint64_t *ids;              //  task id per line, 0 if refused or unanswered
    char **lines;               //  the commands
    size_t count;               //  lines
    size_t *numbers;            //  line number in the file, per command
    size_t answered;            //  replies in
    size_t refused;             //  ERROR replies
    bool tty;                   //  stderr is a terminal: clear the bar before a message
} s_batch_t;

//  Print submit's usage
static void
s_usage (FILE *stream)
{
    fprintf (stream,
        "usage: drover submit [options] [--wait] -- CMD ARGS...\n"
        "       drover submit --file FILE [options] [--wait]\n"
        "       drover submit --workflow FILE [--name NAME] [--json] [--wait]\n"
        "\n"
        "Submits CMD ARGS (run directly, not through a shell) and prints the task id.\n"
        "With --file, submits each line of FILE ('-' for stdin) as `sh -c LINE` (blank\n"
        "lines and lines starting with # are skipped), pipelined, and prints the ids\n"
        "one per line in the file's order; the options apply to every line.\n"
        "\n"
        "Each line of FILE is submitted with a key made from the file's absolute path, the\n"
        "line's number and text (and --submit-key): submitting the same file again, e.g.\n"
        "after a broker crash cut the first run short, gives the same ids and runs nothing\n"
        "twice while the broker keeps those tasks. To run it again as new tasks, give a new\n"
        "--submit-key (e.g. a date) or --no-submit-keys. Lines from stdin get keys only\n"
        "with --submit-key.\n"
        "\n"
        "options:\n"
        "  -p, --priority P    lower runs first (default 0)\n"
        "  -n, --procs N       procs the task needs (default 1)\n"
        "  -m, --mem SIZE      memory the task needs: bytes, or with K, M, G, T\n"
        "  -l, --label k=v     run only on workers with this label (repeatable)\n"
        "  -t, --timeout SECONDS  kill the task after this long (default: no limit)\n"
        "  --retries R         run again up to R times if it fails (default 0)\n"
        "  --retry-delay SECONDS  wait this long before the first retry, twice as long\n"
        "                      before each next one (jittered by up to 20%%); needs --retries\n"
        "  --retry-max-delay SECONDS  the longest a retry waits (default 600)\n"
        "  --after ID[,ID...]  wait until these tasks (or arrays, workflows) succeeded; if\n"
        "                      one fails or is cancelled, this one is cancelled (dependency)\n"
        "  --after-any ID[,ID...]  wait until these tasks ended, however\n"
        "  --after-fail ID[,ID...] wait until these tasks ended without success (a clean-up);\n"
        "                      cancelled if they all succeed\n"
        "  --begin TIME        start no earlier than TIME: 2026-12-06T02:00[:00] (local),\n"
        "                      2026-12-06T01:00Z (UTC), 02:00 (the next 02:00), +30s, +10m,\n"
        "                      +2h, +1d\n"
        "  --array SPEC        one task per index: 0-999, 1-99:2 (step 2), 0-999%%50 (at most\n"
        "                      50 queued or running at once); each gets DROVER_ARRAY_ID and\n"
        "                      DROVER_ARRAY_INDEX. Prints the array's id (wait, cancel, show,\n"
        "                      explain and --after take it) and, on stderr, its elements' ids\n"
        "  --env NAME=value    set an environment variable (repeatable)\n"
        "  --cwd DIR           working directory on the worker\n"
        "  --stdin FILE        send FILE's bytes as the task's stdin (at most 1 MiB)\n"
        "  -w, --wait          wait for the result (see below); the task id goes to stderr\n"
        "  -j, --json          print JSON: {\"ids\":[...]}; with --wait the outcome\n"
        "                      (one task: id, state, outcome, exit_code, signal, status,\n"
        "                      worker, reason, stdout, stderr; --file: as `drover wait --json`)\n"
        "  --window N          --file: submits in flight at once (default %d)\n"
        "  --failures N        --file --wait: failures listed in the summary (default 100, 0 all)\n"
        "  --submit-key K      submit key (1..128 printable ASCII bytes): a second submit\n"
        "                      with the same key gets the first one's task id, runs nothing\n"
        "                      new. With --file, K is mixed into every line's key\n"
        "  --no-submit-keys    --file: send no submit keys (each run makes new tasks)\n"
        "  --affinity KEY      prefer the workers in rendezvous order of KEY (a cache, a\n"
        "                      dataset, a tenant: 1..128 printable ASCII bytes): the same\n"
        "                      key goes to the same worker while it is healthy and has\n"
        "                      room, else the next in its order after a short wait\n"
        "  --owner NAME        who the task is for, for fair share and quotas (default:\n"
        "                      your login name). Without CURVE a label for fairness, not a\n"
        "                      security boundary; with CURVE your key's name is the owner\n"
        "  --device NAME=COUNT counted devices the task needs on one worker, e.g. gpu=2\n"
        "                      (repeatable; the worker picks the indices: see `drover show`)\n"
        "  --preemptible       the broker may stop the task to make room for others and\n"
        "                      queue it again at its place, without using up a retry\n"
        "  --queue Q           submit to named queue Q ($DROVER_QUEUE): its brokers are\n"
        "                      asked of --broker's (QUEUES), the owner's first; an unknown\n"
        "                      queue is an error (exit 2)\n"
        "  --workflow FILE     submit the steps of FILE as one graph, all or none (see\n"
        "                      below); prints `NAME ID` per step, then `workflow ID`\n"
        "  --name NAME         --workflow: the workflow's name (default: FILE's, no suffix)\n"
        "  --broker ENDPOINT, --broker-timeout SECONDS, --key FILE, --server-key FILE\n"
        "                      as for every command: --key is your CURVE key pair here too\n"
        "                      (it used to be the submit key, which is --submit-key now)\n"
        "\n"
        "With --wait, one task's stdout and stderr are copied to ours and drover exits with\n"
        "the task's status, from the outcome the broker reports:\n"
        "  succeeded: 0;  exited with N: N;  killed by signal S: 128+S;  timed out: 124;\n"
        "  cancelled: 130;  failed without a status of its own (could not start, lost\n"
        "  with its workers) or unknown to the broker: 1, saying so on stderr.\n"
        "Refused by the broker or broker unreachable: 1, with the reason on stderr.\n"
        "With --file --wait, drover waits like `drover wait` (progress, summary) and exits\n"
        "0 if every task succeeded, 1 otherwise.\n"
        "\n"
        "A workflow FILE has one step per line, `NAME: [options] [--] CMD ARGS...`, with\n"
        "the task options above; --after, --after-any and --after-fail name steps of the\n"
        "file (or task ids). '#' starts a comment, a trailing backslash continues the line,\n"
        "words split as in sh, with quotes and backslashes but no expansion:\n"
        "  fetch:  --retries 3 --retry-delay 10 -- curl -o /data/in.csv https://example.com/in\n"
        "  split:  --after fetch --array 0-99%%10 -- sh -c 'transform $DROVER_ARRAY_INDEX'\n"
        "  merge:  --after split -- merge /data/out\n"
        "  clean:  --after-fail fetch,split,merge -- rm -rf /data/tmp\n"
        "Errors name FILE:LINE (an unknown step, a duplicate name, a cycle, a bad option);\n"
        "then nothing is submitted. --json prints {\"workflow\": ID, \"steps\": {NAME: ID}}.\n"
        "Options past level 2 need a broker of level 3 (`drover status` says its level).\n",
        DROVER_CLIENT_WINDOW);
}

//  Check that --key's value is a usable key pair: --key meant the submit
//  key here until --submit-key took that over, and a script of that time
//  must hear so rather than have its key taken for a file name. Returns
//  0, or the usage exit status after saying why.
static int
s_check_key_pair (const char *path)
{
    char *error = NULL;
    zcert_t *pair = drover_keys_load_pair (path, &error);
    if (pair) {
        zcert_destroy (&pair);
        return 0;
    }
    drover_cli_usage_error ("submit", "--key is your CURVE key pair; the submit key is now "
                            "--submit-key K");
    drover_cli_usage_error ("submit", "--key '%.60s' is not a key pair: %s", path, error);
    zstr_free (&error);
    return DROVER_EXIT_USAGE;
}

//  Read a task id (a whole number above 0). Returns 0, or -1 if not one.
static int
s_task_id (const char *text, uint64_t *task_p)
{
    if (!isdigit ((unsigned char) *text))
        return -1;
    char *end = NULL;
    errno = 0;
    unsigned long long value = strtoull (text, &end, 10);
    if (errno || *end || value == 0)
        return -1;
    *task_p = value;
    return 0;
}

//  Check what goes with --workflow: its steps' options are in the file.
//  Returns 0, or the exit status.
static int
s_check_workflow_flags (int argc, s_options_t *options)
{
    if (options->file || optind < argc)
        return drover_cli_usage_error ("submit", "--workflow and %s: give one or the other",
                                       options->file? "--file": "a command");
    if (options->task_options)
        return drover_cli_usage_error ("submit", "--workflow: the steps' options go in the "
                                       "file, on each step's line");
    if (options->no_keys)
        return drover_cli_usage_error ("submit", "--no-submit-keys goes with --file");
    return 0;
}

//  Parse submit's flags into options; returns 0, or the exit status
static int
s_parse (int argc, char **argv, s_options_t *options)
{
    static struct option long_options [] = {
        DROVER_TASKOPTS_LONG,
        { "file", required_argument, NULL, 'f' },
        { "wait", no_argument, NULL, 'w' },
        { "window", required_argument, NULL, 'W' },
        { "failures", required_argument, NULL, 'F' },
        { "no-submit-keys", no_argument, NULL, 'K' },
        { "no-keys", no_argument, NULL, 'K' },          //  its old spelling: one meaning
        DROVER_CLI_KEY_OPTION,
        { "queue", required_argument, NULL, 'Q' },
        { "workflow", required_argument, NULL, 'X' },
        { "name", required_argument, NULL, 'N' },
        { "json", no_argument, NULL, 'j' },
        DROVER_CLI_COMMON_OPTIONS,
        { NULL, 0, NULL, 0 }
    };
    drover_msg_t *submit = options->submit;
    long long value;
    optind = 0;
    opterr = 0;
    int option;
    while ((option = getopt_long (argc, argv, "+:h" DROVER_TASKOPTS_SHORT "wj", long_options,
                                  NULL)) != -1) {
        char why [256];
        int taken = option == '?' || option == ':'
                  ? 1: drover_taskopts_apply (options->task, option, optarg, why, sizeof why);
        if (taken == -1)
            return drover_cli_usage_error ("submit", "%s", why);
        if (taken == 0) {
            options->task_options = true;
            if (option == DROVER_TASKOPTS_SUBMIT_KEY)
                options->key = optarg;
            continue;
        }
        switch (option) {
            case 'h':
                s_usage (stdout);
                return DROVER_CLI_HELP;
            case 'f':
                options->file = optarg;
                break;
            case 'w':
                options->wait = true;
                break;
            case 'W':
                if (drover_cli_parse_int ("submit", "--window", optarg,
                                          1, DROVER_CLIENT_WINDOW_MAX, &value))
                    return DROVER_EXIT_USAGE;
                options->window = (uint32_t) value;
                break;
            case 'F':
                if (drover_cli_parse_int ("submit", "--failures", optarg, 0, INT32_MAX, &value))
                    return DROVER_EXIT_USAGE;
                options->max_listed = (size_t) value;
                break;
            case DROVER_CLI_OPT_KEY:
                if (s_check_key_pair (optarg))
                    return DROVER_EXIT_USAGE;
                drover_cli_globals.key = optarg;
                break;
            case 'K':
                options->no_keys = true;
                break;
            case 'j':
                drover_cli_globals.json = true;
                break;
            case 'Q':
                options->queue = optarg;
                break;
            case 'X':
                options->workflow = optarg;
                break;
            case 'N':
                options->name = optarg;
                break;
            default: {
                int rc = drover_cli_common_option ("submit", option, argv);
                if (rc)
                    return rc;
            }
        }
    }
    if (options->workflow)
        return s_check_workflow_flags (argc, options);
    if (options->name)
        return drover_cli_usage_error ("submit", "--name goes with --workflow (a workflow's name)");
    char why [256];
    if (drover_taskopts_check (options->task, why, sizeof why))
        return drover_cli_usage_error ("submit", "%s", why);
    for (size_t at = 0; at < drover_taskopts_afters (options->task); at++) {
        const char *word = drover_taskopts_after_name (options->task, at);
        uint64_t task = 0;
        if (s_task_id (word, &task))
            return drover_cli_usage_error ("submit", "--after: '%.64s' is not a task id (step "
                                           "names go in a workflow file, --workflow)", word);
        drover_submit_add_after (drover_submit_of (submit), drover_taskopts_after_kind (
                                 options->task, at), task);
    }
    if (options->file && optind < argc)
        return drover_cli_usage_error ("submit", "--file and a command: give one or the other");
    if (options->no_keys && (options->key || !options->file))
        return drover_cli_usage_error ("submit", "--no-submit-keys goes with --file, without "
                                       "--submit-key");
    if (!options->file && optind >= argc)
        return drover_cli_usage_error ("submit", "no command given (drover submit -- CMD ARGS...)");
    if (options->wait)
        submit->flags |= DROVER_SUBMIT_NOTIFY;
    return 0;
}

//  Encode the exec body with argv into the submit. Returns 0 or -1.
static int
s_set_body (s_options_t *options, int argc, const char **argv)
{
    return drover_taskopts_set_body (options->task, options->submit, argc, argv);
}


//  ---------------------------------------------------------------------
//  One task

//  Copy one task's output to ours and keep its TASK DONE's exit status
typedef struct {
    int status;                 //  exit status for us
    bool delivered;             //  the TASK DONE came
    drover_cli_watch_t *watch;  //  says why it waits, when that changes
} s_single_t;

//  The TASK DONE of a single --wait submit
static void
s_on_single_done (const drover_result_t *result, void *arg)
{
    const drover_msg_t *done = drover_result_msg (result);
    s_single_t *single = (s_single_t *) arg;
    single->delivered = true;
    single->status = drover_cli_exit_status (done);
    if (drover_cli_globals.json) {
        drover_cli_json_done (done, true);
        printf ("\n");
        fflush (stdout);
        return;
    }
    if (done->out_size)
        fwrite (done->out, 1, done->out_size, stdout);
    fflush (stdout);
    if (done->err_size)
        fwrite (done->err, 1, done->err_size, stderr);
    if (done->truncated & DROVER_TRUNC_STDOUT)
        fprintf (stderr, "drover: task %llu: stdout truncated\n", (unsigned long long) done->task);
    if (done->truncated & DROVER_TRUNC_STDERR)
        fprintf (stderr, "drover: task %llu: stderr truncated\n", (unsigned long long) done->task);
    //  A plain exit status speaks for itself; say what else happened
    bool plain_exit = done->end == DROVER_END_FAILED && done->signal == 0
                   && single->status == done->exit_code;
    if (done->end != DROVER_END_SUCCEEDED && !plain_exit) {
        char end [128];
        drover_cli_describe_end (done, end, sizeof end);
        fprintf (stderr, "drover: task %llu %s (%s)%s%s\n", (unsigned long long) done->task,
                 drover_task_state_name (done->state), end,
                 done->reason && *done->reason? ": ": "", done->reason? done->reason: "");
    }
}

//  While a single --wait submit waits: say why, when that changes
static void
s_on_single_progress (size_t done, size_t total, void *arg)
{
    drover_cli_watch_tick (((s_single_t *) arg)->watch, done, total, NULL);
}

//  Submit one task; with --wait copy its output and exit with its status
static int
s_submit_one (drover_client_t *client, s_options_t *options, int argc, const char **argv)
{
    if (s_set_body (options, argc, argv))
        return drover_cli_usage_error ("submit", "the command is too long (at most %d arguments"
                                       " of %d bytes each)", DROVER_ARGV_MAX, DROVER_STRING_MAX);
    uint64_t task = 0;
    if (drover_client_submit (client, drover_submit_of (options->submit), &task))
        return drover_cli_error (client, "submit");
    //  Accepted even if no worker could ever run it (one may come): say so
    char why [256];
    bool warned = drover_cli_explain_warn (client, "submit", task, 1, why, sizeof why);
    const drover_array_spec_t *array = &options->submit->array;
    if (array->count && !drover_cli_globals.json) {
        //  Stdout has the id alone, for scripts; the elements' go beside
        uint32_t last = array->first + array->step * (array->count - 1);
        fprintf (stderr, "array %llu: elements %llu-%llu (indexes %u-%u", (unsigned long long) task,
                 (unsigned long long) task + 1, (unsigned long long) task + array->count,
                 array->first, last);
        if (array->step > 1)
            fprintf (stderr, " step %u", array->step);
        if (array->limit)
            fprintf (stderr, ", at most %u at once", array->limit);
        fprintf (stderr, ")\n");
    }
    if (!options->wait) {
        if (drover_cli_globals.json && array->count)
            printf ("{\"ids\":[%llu],\"elements\":[%llu,%llu]}\n", (unsigned long long) task,
                    (unsigned long long) task + 1, (unsigned long long) task + array->count);
        else
        if (drover_cli_globals.json)
            drover_cli_json_ids (&task, 1);
        else
            printf ("%llu\n", (unsigned long long) task);
        return DROVER_EXIT_OK;
    }
    //  Stdout is the task's: its id goes to stderr, to find it again
    fprintf (stderr, "drover: task %llu submitted, waiting\n", (unsigned long long) task);
    s_single_t single = { 1, false, drover_cli_watch_new ("submit", &task, 1, 0) };
    if (warned)
        drover_cli_watch_said (single.watch, task, why);
    int rc = drover_client_wait (client, &task, 1, s_on_single_done, s_on_single_progress,
                                 &single);
    drover_cli_watch_destroy (&single.watch);
    if (rc) {
        char what [64];
        snprintf (what, sizeof what, "wait for task %llu", (unsigned long long) task);
        return drover_cli_error (client, what);
    }
    return single.status;
}


//  ---------------------------------------------------------------------
//  A file of commands

//  Strip the line end; is it a command (not blank, not a comment)?
static bool
s_is_command (char *line)
{
    size_t length = strlen (line);
    while (length && (line [length - 1] == '\n' || line [length - 1] == '\r'))
        line [--length] = 0;
    const char *cursor = line;
    while (*cursor == ' ' || *cursor == '\t')
        cursor++;
    return *cursor && *cursor != '#';
}

//  Read the commands of a file into batch. Returns 0 or the exit status.
static int
s_read_lines (const char *path, s_batch_t *batch)
{
    FILE *file = streq (path, "-")? stdin: fopen (path, "r");
    if (!file) {
        fprintf (stderr, "drover submit: cannot read '%s': %s\n", path, strerror (errno));
        return DROVER_EXIT_USAGE;
    }
    size_t capacity = 1024;
    batch->lines = (char **) malloc (capacity * sizeof (char *));
    batch->numbers = (size_t *) malloc (capacity * sizeof (size_t));
    assert (batch->lines && batch->numbers);
    char *line = NULL;
    size_t line_capacity = 0;
    size_t number = 0;
    int rc = 0;
    while (getline (&line, &line_capacity, file) != -1) {
        number++;
        if (!s_is_command (line))
            continue;
        if (strlen (line) > S_LINE_MAX) {
            fprintf (stderr, "drover submit: %s:%zu: line longer than %d bytes\n",
                     path, number, S_LINE_MAX);
            rc = DROVER_EXIT_USAGE;
            break;
        }
        if (batch->count == capacity) {
            capacity *= 2;
            batch->lines = (char **) realloc (batch->lines, capacity * sizeof (char *));
            batch->numbers = (size_t *) realloc (batch->numbers, capacity * sizeof (size_t));
            assert (batch->lines && batch->numbers);
        }
        batch->lines [batch->count] = strdup (line);
        batch->numbers [batch->count++] = number;
    }
    free (line);
    if (rc == 0 && ferror (file)) {
        fprintf (stderr, "drover submit: cannot read '%s': %s\n", path, strerror (errno));
        rc = DROVER_EXIT_USAGE;
    }
    if (file != stdin)
        fclose (file);
    if (rc == 0 && batch->count == 0) {
        fprintf (stderr, "drover submit: no commands in '%s'\n", path);
        rc = DROVER_EXIT_USAGE;
    }
    batch->ids = (uint64_t *) zmalloc ((batch->count + 1) * sizeof (uint64_t));
    return rc;
}

//  Free what the batch holds
static void
s_batch_free (s_batch_t *batch)
{
    for (size_t index = 0; index < batch->count; index++)
        free (batch->lines [index]);
    free (batch->lines);
    free (batch->numbers);
    free (batch->ids);
}

//  An async submit's reply: keep the id, or report the refusal
static void
s_on_ack (uint32_t seq, uintptr_t tag, uint64_t task, int code, const char *reason, void *arg)
{
    s_batch_t *batch = (s_batch_t *) arg;
    batch->answered++;
    if (code == DROVER_CODE_OK) {
        batch->ids [tag] = task;
        return;
    }
    if (batch->refused++ < S_REPORT_MAX)
        fprintf (stderr, "%sdrover submit: line %zu: %s (%d)%s%s\n", batch->tty? "\r\033[K": "",
                 batch->numbers [tag], drover_client_code_name (code), code,
                 reason && *reason? ": ": "", reason? reason: "");
}

//  Make the key of a file's line: the SHA-1, in hex, of the file's
//  absolute path, the line's number and text, and salt (--key, or "")
static void
s_line_key (const char *path, size_t number, const char *line, const char *salt,
            char key [41])
{
    char prefix [64];
    int length = snprintf (prefix, sizeof prefix, "drover submit --file\n%zu\n", number);
    zdigest_t *digest = zdigest_new ();
    assert (digest);
    zdigest_update (digest, (const byte *) prefix, (size_t) length);
    zdigest_update (digest, (const byte *) path, strlen (path) + 1);      //  with its NUL
    zdigest_update (digest, (const byte *) salt, strlen (salt) + 1);
    zdigest_update (digest, (const byte *) line, strlen (line));
    const byte *hash = zdigest_data (digest);
    for (int index = 0; index < 20; index++)
        snprintf (key + 2 * index, 3, "%02x", hash [index]);
    zdigest_destroy (&digest);
}

//  Submit every line, then print the ids (or wait for the tasks)
static int
s_submit_file (drover_client_t *client, s_options_t *options)
{
    s_batch_t batch = { 0 };
    int rc = s_read_lines (options->file, &batch);
    if (rc) {
        s_batch_free (&batch);
        return rc;
    }
    //  Keys name the file by its absolute path: the same file run from
    //  another directory is the same batch; stdin has no name, only --key
    char *path = NULL;
    if (!options->no_keys && !streq (options->file, "-"))
        path = realpath (options->file, NULL);
    else
    if (!options->no_keys && options->key)
        path = strdup ("-");
    if (!options->no_keys && !path)
        fprintf (stderr, "drover submit: lines of '%s' go without keys%s\n", options->file,
                 streq (options->file, "-")? " (give --key for stdin)": "");
    drover_client_set_window (client, options->window);
    drover_client_set_ack_handler (client, s_on_ack, &batch);
    drover_cli_progress_t progress;
    drover_cli_progress_init (&progress);
    batch.tty = progress.tty;
    size_t sent = 0;
    for (; sent < batch.count; sent++) {
        const char *argv [] = { "sh", "-c", batch.lines [sent] };
        if (path) {
            char key [41];
            s_line_key (path, batch.numbers [sent], batch.lines [sent],
                        options->key? options->key: "", key);
            drover_submit_set_key (drover_submit_of (options->submit), key);
        }
        if (s_set_body (options, 3, argv)) {
            drover_cli_progress_clear (&progress);
            fprintf (stderr, "drover submit: line %zu: too long\n", batch.numbers [sent]);
            rc = DROVER_EXIT_USAGE;
            break;
        }
        if (drover_client_submit_async (client, drover_submit_of (options->submit), sent) == 0) {
            drover_cli_progress_clear (&progress);
            rc = drover_cli_error (client, "submit");
            break;
        }
        if ((sent & 1023) == 0)
            drover_cli_progress_show (&progress, "submitted", batch.answered, batch.count, NULL, false);
    }
    if (rc == 0 && drover_client_flush (client)) {
        drover_cli_progress_clear (&progress);
        rc = drover_cli_error (client, "submit");
    }
    drover_cli_progress_show (&progress, "submitted", batch.answered, batch.count, NULL, !progress.tty);
    drover_cli_progress_clear (&progress);
    if (batch.refused > S_REPORT_MAX)
        fprintf (stderr, "drover submit: ... and %zu more refused\n", batch.refused - S_REPORT_MAX);
    if (batch.refused)
        fprintf (stderr, "drover submit: %zu of %zu commands refused\n", batch.refused, batch.count);
    if (batch.refused && rc == 0)
        rc = DROVER_EXIT_FAILED;

    //  The accepted ids, in the file's order
    size_t accepted = 0;
    for (size_t index = 0; index < batch.count; index++)
        if (batch.ids [index])
            batch.ids [accepted++] = batch.ids [index];
    //  Every line asks for the same procs, memory and labels: one warning
    //  if no connected worker could ever run them
    char why [256];
    if (accepted)
        drover_cli_explain_warn (client, "submit", batch.ids [0], accepted, why, sizeof why);
    if (!options->wait || (rc != 0 && rc != DROVER_EXIT_FAILED)) {
        if (drover_cli_globals.json)
            drover_cli_json_ids (batch.ids, accepted);
        else
        for (size_t index = 0; index < accepted; index++)
            printf ("%llu\n", (unsigned long long) batch.ids [index]);
    }
    else
    if (accepted) {
        int waited = drover_cli_wait_tasks (client, batch.ids, accepted, options->max_listed);
        if (rc == 0 || waited == DROVER_EXIT_INTERRUPTED)
            rc = waited;
    }
    free (path);
    s_batch_free (&batch);
    return rc;
}

//  ---------------------------------------------------------------------
//  A workflow file

//  The default name of a workflow: its file's, without directory or
//  suffix, when that is a name; else "workflow"
static void
s_workflow_title (const char *path, char *title, size_t size)
{
    const char *base = strrchr (path, '/');
    base = base? base + 1: path;
    snprintf (title, size, "%s", base);
    char *dot = strrchr (title, '.');
    if (dot && dot != title)
        *dot = 0;
    bool valid = *title != 0 && strlen (title) <= DROVER_ID_MAX && !streq (path, "-");
    for (const char *cursor = title; *cursor && valid; cursor++)
        valid = *cursor > 0x20 && *cursor < 0x7f;
    if (!valid)
        snprintf (title, size, "workflow");
}

//  Submit a workflow file's steps, all or none, and print their ids
static int
s_submit_workflow (drover_client_t *client, s_options_t *options)
{
    char title [DROVER_ID_MAX + 1];
    s_workflow_title (options->workflow, title, sizeof title);
    char why [512];
    drover_workflow_t *workflow = drover_workflowfile_load (
        options->workflow, options->name? options->name: title, why, sizeof why);
    if (!workflow)
        return drover_cli_usage_error ("submit", "%s", why);
    size_t count = drover_workflow_size (workflow);
    uint64_t *ids = (uint64_t *) zmalloc (count * sizeof (uint64_t));
    uint64_t id = 0;
    int rc = DROVER_EXIT_OK;
    if (drover_client_submit_workflow (client, workflow, &id, ids))
        rc = drover_cli_error (client, "submit --workflow");
    else
    if (drover_cli_globals.json) {
        printf ("{\"workflow\":%llu,\"steps\":{", (unsigned long long) id);
        for (size_t index = 0; index < count; index++) {
            printf ("%s", index? ",": "");
            drover_cli_json_string (stdout, drover_workflow_name (workflow, (int) index + 1));
            printf (":%llu", (unsigned long long) ids [index]);
        }
        printf ("}}\n");
    }
    else {
        for (size_t index = 0; index < count; index++)
            printf ("%s %llu\n", drover_workflow_name (workflow, (int) index + 1),
                    (unsigned long long) ids [index]);
        printf ("workflow %llu\n", (unsigned long long) id);
    }
    fflush (stdout);
    if (rc == DROVER_EXIT_OK && options->wait)
        rc = drover_cli_wait_tasks (client, &id, 1, options->max_listed);
    free (ids);
    drover_workflow_destroy (&workflow);
    return rc;
}

//  drover submit
int
drover_cli_submit (int argc, char **argv)
{
    s_options_t options = {
        .task = drover_taskopts_new (),
        .window = DROVER_CLIENT_WINDOW,
        .max_listed = 100
    };
    options.submit = drover_taskopts_msg (options.task);
    int rc = s_parse (argc, argv, &options);
    if (rc == 0) {
        drover_client_t *client = NULL;
        rc = drover_cli_queue_connect ("submit", options.queue, &client);
        if (rc)
            ;                           //  it said why
        else
        if (options.workflow)
            rc = s_submit_workflow (client, &options);
        else
        if (options.file)
            rc = s_submit_file (client, &options);
        else
            rc = s_submit_one (client, &options, argc - optind, (const char **) argv + optind);
        drover_client_destroy (&client);
    }
    drover_taskopts_destroy (&options.task);
    return rc == DROVER_CLI_HELP? DROVER_EXIT_OK: rc;
}
