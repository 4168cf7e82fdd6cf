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

//  Lines of a --file longer than this are refused (bytes)
#define S_LINE_MAX      DROVER_STRING_MAX
//  Refused lines reported one by one, at most
#define S_REPORT_MAX    10

//  What the flags said
typedef struct {
    drover_msg_t *submit;       //  the TASK SUBMIT every task starts from
    drover_exec_t *exec;        //  its body: env, cwd, stdin (argv set per task)
    const char *file;           //  --file, or NULL
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
        "  --queue Q           submit to named queue Q ($DROVER_QUEUE): its brokers are\n"
        "                      asked of --broker's (QUEUES), the owner's first; an unknown\n"
        "                      queue is an error (exit 2)\n"
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
        "0 if every task succeeded, 1 otherwise.\n",
        DROVER_CLIENT_WINDOW);
}

//  Read a whole file of at most max bytes; NULL after printing why
static byte *
s_read_file (const char *path, size_t max, size_t *size_p)
{
    FILE *file = streq (path, "-")? stdin: fopen (path, "rb");
    if (!file) {
        fprintf (stderr, "drover submit: cannot read '%s': %s\n", path, strerror (errno));
        return NULL;
    }
    size_t capacity = 4096, size = 0;
    byte *data = (byte *) malloc (capacity);
    assert (data);
    while (true) {
        if (size == capacity) {
            if (capacity > max)
                break;
            capacity *= 2;
            data = (byte *) realloc (data, capacity);
            assert (data);
        }
        size_t got = fread (data + size, 1, capacity - size, file);
        size += got;
        if (got == 0)
            break;
    }
    bool failed = ferror (file);
    if (file != stdin)
        fclose (file);
    if (failed || size > max) {
        if (failed)
            fprintf (stderr, "drover submit: cannot read '%s': %s\n", path, strerror (errno));
        else
            fprintf (stderr, "drover submit: '%s' is larger than %zu bytes\n", path, max);
        free (data);
        return NULL;
    }
    *size_p = size;
    return data;
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

//  Parse submit's flags into options; returns 0, or the exit status
static int
s_parse (int argc, char **argv, s_options_t *options)
{
    static struct option long_options [] = {
        { "priority", required_argument, NULL, 'p' },
        { "procs", required_argument, NULL, 'n' },
        { "mem", required_argument, NULL, 'm' },
        { "label", required_argument, NULL, 'l' },
        { "timeout", required_argument, NULL, 't' },
        { "retries", required_argument, NULL, 'r' },
        { "env", required_argument, NULL, 'e' },
        { "cwd", required_argument, NULL, 'c' },
        { "stdin", required_argument, NULL, 'i' },
        { "file", required_argument, NULL, 'f' },
        { "wait", no_argument, NULL, 'w' },
        { "window", required_argument, NULL, 'W' },
        { "failures", required_argument, NULL, 'F' },
        { "submit-key", required_argument, NULL, 'k' },
        { "no-submit-keys", no_argument, NULL, 'K' },
        { "no-keys", no_argument, NULL, 'K' },          //  its old spelling: one meaning
        DROVER_CLI_KEY_OPTION,
        { "affinity", required_argument, NULL, 'A' },
        { "queue", required_argument, NULL, 'Q' },
        { "json", no_argument, NULL, 'j' },
        DROVER_CLI_COMMON_OPTIONS,
        { NULL, 0, NULL, 0 }
    };
    drover_msg_t *submit = options->submit;
    long long value;
    optind = 0;
    opterr = 0;
    int option;
    while ((option = getopt_long (argc, argv, "+:hp:n:m:l:t:wj", long_options, NULL)) != -1) {
        switch (option) {
            case 'h':
                s_usage (stdout);
                return DROVER_CLI_HELP;
            case 'p':
                if (drover_cli_parse_int ("submit", "--priority", optarg,
                                          INT32_MIN, INT32_MAX, &value))
                    return DROVER_EXIT_USAGE;
                submit->priority = (int32_t) value;
                break;
            case 'n':
                if (drover_cli_parse_int ("submit", "--procs", optarg, 1, 1 << 20, &value))
                    return DROVER_EXIT_USAGE;
                submit->procs = (uint32_t) value;
                break;
            case 'm':
                if (drover_cli_parse_size ("submit", "--mem", optarg, &submit->mem))
                    return DROVER_EXIT_USAGE;
                break;
            case 'l':
                if (!drover_label_valid (optarg))
                    return drover_cli_usage_error ("submit", "--label: '%s' is not key=value "
                                                   "(key of letters, digits, _ . -)", optarg);
                if (drover_msg_add_label (submit, optarg))
                    return drover_cli_usage_error ("submit", "--label: at most %d labels",
                                                   DROVER_LABELS_MAX);
                break;
            case 't':
                if (drover_cli_parse_seconds ("submit", "--timeout", optarg,
                                              UINT32_MAX / 1000, &submit->timeout))
                    return DROVER_EXIT_USAGE;
                break;
            case 'r':
                if (drover_cli_parse_int ("submit", "--retries", optarg, 0, 1000, &value))
                    return DROVER_EXIT_USAGE;
                submit->retries = (uint32_t) value;
                break;
            case 'e':
                if (!strchr (optarg, '=') || optarg [0] == '=')
                    return drover_cli_usage_error ("submit", "--env: '%s' is not NAME=value", optarg);
                if (drover_exec_add_env (options->exec, optarg))
                    return drover_cli_usage_error ("submit", "--env: too many or too long");
                break;
            case 'c':
                drover_exec_set_cwd (options->exec, optarg);
                break;
            case 'i': {
                size_t size;
                byte *input = s_read_file (optarg, DROVER_INPUT_MAX, &size);
                if (!input)
                    return DROVER_EXIT_USAGE;
                drover_exec_set_input (options->exec, input, size);
                free (input);
                break;
            }
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
            case 'k':
                if (drover_submit_set_key (drover_submit_of (submit), optarg))
                    return drover_cli_usage_error ("submit", "--submit-key: '%.40s' is not "
                                                   "1..%d bytes of printable ASCII", optarg,
                                                   DROVER_KEY_MAX);
                options->key = optarg;
                break;
            case DROVER_CLI_OPT_KEY:
                if (s_check_key_pair (optarg))
                    return DROVER_EXIT_USAGE;
                drover_cli_globals.key = optarg;
                break;
            case 'K':
                options->no_keys = true;
                break;
            case 'A':
                if (drover_submit_set_affinity (drover_submit_of (submit), optarg))
                    return drover_cli_usage_error ("submit", "--affinity: '%.40s' is not 1..%d "
                                                   "bytes of printable ASCII", optarg,
                                                   DROVER_KEY_MAX);
                break;
            case 'j':
                drover_cli_globals.json = true;
                break;
            case 'Q':
                options->queue = optarg;
                break;
            default: {
                int rc = drover_cli_common_option ("submit", option, argv);
                if (rc)
                    return rc;
            }
        }
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
    if (drover_exec_set_argv (options->exec, argc, argv))
        return -1;
    size_t size;
    byte *body = drover_exec_encode (options->exec, &size);
    if (!body)
        return -1;
    drover_msg_set_body (options->submit, body, size);
    free (body);
    return 0;
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
    if (!options->wait) {
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

//  drover submit
int
drover_cli_submit (int argc, char **argv)
{
    s_options_t options = {
        .submit = drover_msg_new (DROVER_MSG_TASK_SUBMIT),
        .exec = drover_exec_new (),
        .window = DROVER_CLIENT_WINDOW,
        .max_listed = 100
    };
    options.submit->procs = 1;
    int rc = s_parse (argc, argv, &options);
    if (rc == 0) {
        drover_client_t *client = NULL;
        rc = drover_cli_queue_connect ("submit", options.queue, &client);
        if (rc)
            ;                           //  it said why
        else
        if (options.file)
            rc = s_submit_file (client, &options);
        else
            rc = s_submit_one (client, &options, argc - optind, (const char **) argv + optind);
        drover_client_destroy (&client);
    }
    drover_exec_destroy (&options.exec);
    drover_msg_destroy (&options.submit);
    return rc == DROVER_CLI_HELP? DROVER_EXIT_OK: rc;
}
