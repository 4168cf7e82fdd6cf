/*  =========================================================================
    drover - the command-line front end: `drover <command> [options]`

    One executable in the manner of git or nomad. `broker` and `worker` hand
    over to their own mains; every other command is a client of the broker
    built on drover_client (tools/cli/drover_cli_*.c). This file holds the
    dispatch, the usage text, and what the client commands share: global
    options, connecting, errors in plain words and flag-value parsing.
    =========================================================================
*/

#include "drover_cli.h"
#include "drover_taskopts.h"
#include "drover_log.h"
#include "drover_broker.h"
#include "drover_benchmark.h"
#include "drover_agent.h"
#include <ctype.h>
#include <math.h>
#include <limits.h>
#include <unistd.h>

drover_cli_globals_t drover_cli_globals = { NULL, NULL, DROVER_CLIENT_TIMEOUT, NULL, NULL, false };

//  Take one more --server-key: the flag may be given several times (brokers
//  with a key pair each), its values joined with commas, as
//  DROVER_SERVER_KEY lists them
static void
s_add_server_key (const char *value)
{
    static char *s_joined = NULL;       //  the values so far, when more than one
    if (!drover_cli_globals.server_key) {
        drover_cli_globals.server_key = value;
        return;
    }
    char *joined = zsys_sprintf ("%s,%s", drover_cli_globals.server_key, value);
    free (s_joined);
    s_joined = joined;
    drover_cli_globals.server_key = s_joined;
}

//  Run the broker: argv [0] is "broker"
static int
s_broker (int argc, char **argv)
{
    return drover_broker_main (argc, argv);
}

//  Run a worker agent: argv [0] is "worker". The global --broker, --key
//  and --server-key go first, so that the same flags after `worker` win
//  (DROVER_BROKER, DROVER_KEY, DROVER_SERVER_KEY the agent reads itself)
static int
s_worker (int argc, char **argv)
{
    char **args = (char **) zmalloc ((argc + 7) * sizeof (char *));
    int count = 0;
    args [count++] = argv [0];
    if (drover_cli_globals.broker) {
        args [count++] = "--broker";
        args [count++] = (char *) drover_cli_globals.broker;
    }
    if (drover_cli_globals.key) {
        args [count++] = "--key";
        args [count++] = (char *) drover_cli_globals.key;
    }
    if (drover_cli_globals.server_key) {
        args [count++] = "--server-key";
        args [count++] = (char *) drover_cli_globals.server_key;
    }
    for (int index = 1; index < argc; index++)
        args [count++] = argv [index];
    args [count] = NULL;
    int rc = drover_agent_main (count, args);
    free (args);
    return rc;
}


//  The subcommands, in the order help lists them
static const struct {
    const char *name;           //  what the user types
    int (*run) (int argc, char **argv);     //  argv [0] is the name
    const char *summary;        //  one line for help
} s_commands [] = {
    { "broker",  s_broker,            "run the broker (drover broker --help)" },
    { "worker",  s_worker,            "run a worker agent (drover worker --help)" },
    { "submit",  drover_cli_submit,   "submit a task, an array, a file of commands or a workflow" },
    { "wait",    drover_cli_wait,     "wait for tasks, with progress and a summary" },
    { "cancel",  drover_cli_cancel,   "cancel tasks" },
    { "status",  drover_cli_status,   "workers, procs and tasks at a glance" },
    { "workers", drover_cli_workers,  "list workers" },
    { "tasks",   drover_cli_tasks,    "list tasks" },
    { "show",    drover_cli_show,     "everything about a task: state, times, attempts" },
    { "logs",    drover_cli_logs,     "a finished task's captured stdout or stderr" },
    { "explain", drover_cli_explain,  "why a task waits, and what would unblock it" },
    { "hold",    drover_cli_admin,    "stop giving a worker new tasks" },
    { "drain",   drover_cli_admin,    "let a worker finish its tasks (--exit: then leave)" },
    { "resume",  drover_cli_admin,    "give a held or draining worker tasks again" },
    { "events",  drover_cli_events,   "print the broker's events as JSON lines" },
    { "pool",    drover_cli_pool,     "the elastic pool's instances; hold, drain, run, destroy one" },
    { "share",   drover_cli_share,    "fair shares: accounts and owners, use, quotas; set, drop" },
    { "service", drover_cli_service,  "services: replicas kept running; create, list, show, scale" },
    { "plan",    drover_cli_plan,     "what a drain, hold or scale would do, without doing it" },
    { "top",     drover_cli_top,      "a live full-screen view of workers and queue" },
    { "keygen",  drover_cli_keygen,   "write a CURVE key pair (NAME.key, NAME.key_secret)" },
    { "admin",   drover_cli_operator, "operator tasks: backup the state (drover admin --help)" },
    { "bench",   drover_benchmark_main, "measure throughput, latency and memory" },
};
#define S_COMMANDS (sizeof s_commands / sizeof s_commands [0])

//  Print the usage listing every subcommand
static void
s_usage (FILE *stream)
{
    fprintf (stream,
        "usage: drover [global options] <command> [options] [arguments]\n"
        "\n"
        "commands:\n");
    for (size_t index = 0; index < S_COMMANDS; index++)
        fprintf (stream, "  %-9s %s\n", s_commands [index].name, s_commands [index].summary);
    fprintf (stream,
        "  help      this text; `drover help COMMAND` or `drover COMMAND --help` for one command\n"
        "\n"
        "  drover submit [--priority P] [--procs N] [--mem SIZE] [--label k=v]... [--timeout SECONDS]\n"
        "                [--retries R] [--env NAME=value]... [--cwd DIR] [--stdin FILE] [--wait]\n"
        "                [--affinity KEY] [--queue Q] [--json] [--after ID,..] [--after-any ID,..]\n"
        "                [--after-fail ID,..] [--begin TIME] [--retry-delay S [--retry-max-delay S]]\n"
        "                [--array FIRST-LAST[:STEP][%%MAX]] [--owner NAME] [--device NAME=COUNT]...\n"
        "                [--preemptible] -- CMD ARGS...\n"
        "  drover submit --file FILE [same options] [--window N]\n"
        "  drover submit --workflow FILE [--name NAME] [--json] [--wait]\n"
        "  drover wait [--all | ID... | -] [--failures N] [--json]\n"
        "  drover cancel ID... | [--state S] [--label k=v]... [--all] [--yes]\n"
        "  drover status [--json]\n"
        "  drover workers [--json]\n"
        "  drover tasks [--state S] [--limit N] [--array ID] [--json]\n"
        "  drover explain ID [--json]\n"
        "  drover hold | drain | resume WORKER... [--reason TEXT]   (drain --exit: then leave)\n"
        "  drover pool [--json]\n"
        "  drover pool hold | drain | run | destroy ID... [--json]\n"
        "  drover share [--json]\n"
        "  drover share set NAME [--weight N] [--members a,b] [--max-procs N] [--max-mem SIZE]\n"
        "                   [--max-queued N] [--max-device NAME=N]...\n"
        "  drover share drop NAME\n"
        "  drover service create NAME --replicas N [--procs P] [--mem SIZE] [--label k=v]...\n"
        "                 [--restart-delay SECONDS] -- CMD ARGS...\n"
        "  drover service list | stats [--json]\n"
        "  drover service show NAME [--json]\n"
        "  drover service scale NAME N | delete NAME\n"
        "  drover plan drain | hold WORKER [--json]\n"
        "  drover plan service scale NAME N [--json]\n"
        "  drover events [--topic PREFIX] [--since SEQ]\n"
        "  drover top [-d SECONDS]\n"
        "  drover keygen NAME [--dir DIR] [--worker-ids ID[,ID...]] [--force] [--json]\n"
        "  drover bench [options]\n"
        "\n"
        "short flags, the same in every command that has them: -p priority, -n procs, -m memory,\n"
        "-l label, -t timeout, -w wait, -j json, -s state, -a all, -h help\n"
        "\n"
        "global options (also accepted after the command):\n"
        "  --broker ENDPOINT[,...]   broker to talk to (default $DROVER_BROKER, else %s); a\n"
        "                            list of brokers: the leader is found, followed on failover\n"
        "                            (`submit --queue Q`, `worker --queue Q`: the brokers of\n"
        "                            named queue Q, asked of this list; $DROVER_QUEUE)\n"
        "  --broker-timeout SECONDS  how long to wait for each reply of the broker, which is\n"
        "                            then reported unreachable (default $DROVER_TIMEOUT, else %.0f)\n"
        "  --events ENDPOINT[,...]   event streams for `events` (default $DROVER_EVENTS, else\n"
        "                            each broker's port + 1: %s)\n"
        "  --key FILE                your CURVE key pair (NAME.key or NAME.key_secret; default\n"
        "                            $DROVER_KEY, else ~/.config/drover/client.key if it exists)\n"
        "  --server-key FILE|DIR     the broker's public key (default $DROVER_SERVER_KEY, else\n"
        "                            ~/.config/drover/server.key); both or neither: with neither\n"
        "                            the connection is plain. --key means this after every\n"
        "                            command; `submit --submit-key K` is a submit key. Brokers\n"
        "                            with a key pair each: repeat it, or give a directory or a\n"
        "                            comma-separated list, each key named by its file (b1.key:\n"
        "                            b1), and name each broker's in --broker: tcp://HOST:5555=b1\n"
        "                            (or =FILE); a leader not listed gets the key of its --name\n"
        "  -h, --help                this text\n"
        "  --version                 print the version\n"
        "\n"
        "exit status: 0 ok; 1 a task failed, the broker refused a request or did not answer;\n"
        "2 bad flags or arguments; 130 interrupted. `submit --wait` exits with the task's own\n"
        "status (see `drover submit --help`).\n",
        DROVER_CLIENT_ENDPOINT, DROVER_CLIENT_TIMEOUT / 1000.0, DROVER_CLIENT_EVENTS);
}

//  Take a global option's value, "--flag value" or "--flag=value"; NULL if missing
static const char *
s_global_value (int argc, char **argv, int *index, const char *flag)
{
    size_t length = strlen (flag);
    if (argv [*index][length] == '=')
        return argv [*index] + length + 1;
    if (*index + 1 >= argc)
        return NULL;
    return argv [++*index];
}

//  Print the version line every command's --version prints: the release
//  (drover_release.h, from CMakeLists.txt) and the protocol level it speaks
void
drover_cli_print_version (void)
{
    printf ("drover %s (protocol level %d)\n", DROVER_RELEASE, DROVER_MSG_LEVEL);
}

//  Return the edit distance (Levenshtein) between two short words
size_t
drover_cli_distance (const char *left, const char *right)
{
    size_t right_length = strlen (right);
    size_t row [64];
    if (right_length >= 64 || strlen (left) >= 64)
        return SIZE_MAX;
    for (size_t column = 0; column <= right_length; column++)
        row [column] = column;
    for (size_t line = 1; left [line - 1]; line++) {
        size_t diagonal = row [0];
        row [0] = line;
        for (size_t column = 1; column <= right_length; column++) {
            size_t above = row [column];
            size_t cost = left [line - 1] == right [column - 1]? 0: 1;
            size_t best = MIN (above + 1, row [column - 1] + 1);
            row [column] = MIN (best, diagonal + cost);
            diagonal = above;
        }
    }
    return row [right_length];
}

//  Say a command is unknown, with the nearest one if it is close enough
//  (an edit distance of at most 2, and less than the word's length)
static int
s_unknown_command (const char *command, const char *see)
{
    const char *nearest = NULL;
    size_t best = SIZE_MAX;
    for (size_t entry = 0; entry <= S_COMMANDS; entry++) {
        const char *name = entry < S_COMMANDS? s_commands [entry].name: "help";
        size_t distance = drover_cli_distance (command, name);
        if (distance < best) {
            best = distance;
            nearest = name;
        }
    }
    if (nearest && best <= 2 && best < strlen (command))
        return drover_cli_usage_error ("", "unknown command '%s': did you mean '%s'? (see %s)",
                                       command, nearest, see);
    return drover_cli_usage_error ("", "unknown command '%s' (see %s)", command, see);
}

//  True if argv (the arguments of a command that parses its own flags and
//  takes no command line of its own) asks for --version before any "--"
static bool
s_asks_version (int argc, char **argv)
{
    for (int index = 1; index < argc && !streq (argv [index], "--"); index++)
        if (streq (argv [index], "--version"))
            return true;
    return false;
}

//  Does argument match flag exactly or as "flag=..."?
static bool
s_is_flag (const char *argument, const char *flag)
{
    size_t length = strlen (flag);
    return strncmp (argument, flag, length) == 0
        && (argument [length] == 0 || argument [length] == '=');
}

//  Parse the global options, then hand over to the subcommand
int
main (int argc, char **argv)
{
    //  What the libraries log is not a command's output: stdout stays for
    //  what the command prints, and stderr hears only their warnings and
    //  errors, said as the command's own messages are (a client moving to
    //  the next broker of its list is not news; DROVER_VERBOSE=1 says it).
    //  `drover broker` and `drover worker` choose their own log stream.
    drover_log_init_command ("drover");
    const char *timeout = getenv ("DROVER_TIMEOUT");
    uint32_t msec;
    if (timeout && drover_cli_parse_seconds ("", "DROVER_TIMEOUT", timeout, 86400, &msec) == 0
    &&  msec > 0)
        drover_cli_globals.timeout = (int) msec;

    int index = 1;
    for (; index < argc && argv [index][0] == '-'; index++) {
        const char *argument = argv [index];
        if (streq (argument, "-h") || streq (argument, "--help")) {
            s_usage (stdout);
            return DROVER_EXIT_OK;
        }
        if (streq (argument, "--version") || streq (argument, "-V")) {
            drover_cli_print_version ();
            return DROVER_EXIT_OK;
        }
        const char *flags [] = { "--broker-timeout", "--broker", "--events", "--key",
                                 "--server-key" };
        size_t which = 0;
        while (which < 5 && !s_is_flag (argument, flags [which]))
            which++;
        if (which == 5)
            return drover_cli_usage_error ("", "unknown option '%s' (see drover --help)", argument);
        const char *value = s_global_value (argc, argv, &index, flags [which]);
        if (!value)
            return drover_cli_usage_error ("", "option '%s' needs a value", flags [which]);
        if (which == 0) {
            if (drover_cli_parse_seconds ("", flags [which], value, 86400, &msec))
                return DROVER_EXIT_USAGE;
            if (msec == 0)
                return drover_cli_usage_error ("", "%s: must be more than 0", flags [which]);
            drover_cli_globals.timeout = (int) msec;
        }
        else
        if (which == 1)
            drover_cli_globals.broker = value;
        else
        if (which == 2)
            drover_cli_globals.events = value;
        else
        if (which == 3)
            drover_cli_globals.key = value;
        else
            s_add_server_key (value);
    }
    if (index >= argc) {
        s_usage (stderr);
        return DROVER_EXIT_USAGE;
    }
    const char *command = argv [index];
    if (streq (command, "help")) {
        if (index + 1 < argc) {
            for (size_t entry = 0; entry < S_COMMANDS; entry++)
                if (streq (s_commands [entry].name, argv [index + 1])) {
                    char *help_argv [] = { argv [index + 1], "--help", NULL };
                    return s_commands [entry].run (2, help_argv);
                }
            return s_unknown_command (argv [index + 1], "drover help");
        }
        s_usage (stdout);
        return DROVER_EXIT_OK;
    }
    for (size_t entry = 0; entry < S_COMMANDS; entry++)
        if (streq (s_commands [entry].name, command)) {
            //  The client commands answer --version in their flag parsers
            //  (DROVER_CLI_COMMON_OPTIONS); these parse flags of their own
            if (s_commands [entry].run == s_broker || s_commands [entry].run == s_worker
            ||  s_commands [entry].run == drover_benchmark_main
            ||  s_commands [entry].run == drover_cli_keygen)
                if (s_asks_version (argc - index, argv + index)) {
                    drover_cli_print_version ();
                    return DROVER_EXIT_OK;
                }
            return s_commands [entry].run (argc - index, argv + index);
        }
    return s_unknown_command (command, "drover help");
}


//  ---------------------------------------------------------------------
//  Shared by the client subcommands

//  Print "drover <command>: <message>" and return the usage exit status
int
drover_cli_usage_error (const char *command, const char *format, ...)
{
    fprintf (stderr, "drover%s%s: ", *command? " ": "", command);
    va_list args;
    va_start (args, format);
    vfprintf (stderr, format, args);
    va_end (args);
    fprintf (stderr, "\n");
    return DROVER_EXIT_USAGE;
}

//  Handle a common option or a getopt error
int
drover_cli_common_option (const char *command, int option, char **argv)
{
    const char *typed = argv [optind - 1];
    char short_flag [3] = { '-', (char) optopt, 0 };
    if (strncmp (typed, "--", 2) != 0 && optopt > 0 && optopt < 256)
        typed = short_flag;
    if (option == DROVER_CLI_OPT_BROKER) {
        drover_cli_globals.broker = optarg;
        return 0;
    }
    if (option == DROVER_CLI_OPT_VERSION) {
        drover_cli_print_version ();
        exit (DROVER_EXIT_OK);          //  nothing to release yet: flags come first
    }
    if (option == DROVER_CLI_OPT_KEY) {
        drover_cli_globals.key = optarg;
        return 0;
    }
    if (option == DROVER_CLI_OPT_SERVER_KEY) {
        s_add_server_key (optarg);
        return 0;
    }
    if (option == DROVER_CLI_OPT_TIMEOUT) {
        uint32_t msec;
        if (drover_cli_parse_seconds (command, "--broker-timeout", optarg, 86400, &msec))
            return DROVER_EXIT_USAGE;
        if (msec == 0)
            return drover_cli_usage_error (command, "--broker-timeout: must be more than 0");
        drover_cli_globals.timeout = (int) msec;
        return 0;
    }
    if (option == ':')
        return drover_cli_usage_error (command, "option '%s' needs a value", typed);
    return drover_cli_usage_error (command, "unknown option '%s' (see drover %s --help)",
                                   typed, command);
}

//  One key file: the flag's, else the variable's, else the default file
//  in dir if it exists (as NAME or NAME_secret); NULL if none
static const char *
s_key_file (const char *flag, const char *variable, const char *dir, const char *name,
            char *buffer, size_t size)
{
    if (flag && *flag)
        return flag;
    const char *value = getenv (variable);
    if (value && *value)
        return value;
    if (!*dir)
        return NULL;
    snprintf (buffer, size, "%s/%s", dir, name);
    char secret [PATH_MAX + 16];
    snprintf (secret, sizeof secret, "%s_secret", buffer);
    return access (buffer, F_OK) == 0 || access (secret, F_OK) == 0? buffer: NULL;
}

//  Find the CURVE key files
int
drover_cli_keys (const char *command, const char **key_p, const char **server_key_p)
{
    static char s_key [PATH_MAX + 32];      //  the default files, when taken
    static char s_server_key [PATH_MAX + 32];
    char dir [PATH_MAX] = "";
    const char *config = getenv ("XDG_CONFIG_HOME");
    const char *home = getenv ("HOME");
    if (config && *config == '/')
        snprintf (dir, sizeof dir, "%s/drover", config);
    else
    if (home && *home)
        snprintf (dir, sizeof dir, "%s/.config/drover", home);
    const char *key = s_key_file (drover_cli_globals.key, "DROVER_KEY", dir, "client.key",
                                  s_key, sizeof s_key);
    const char *server_key = s_key_file (drover_cli_globals.server_key, "DROVER_SERVER_KEY",
                                         dir, "server.key", s_server_key, sizeof s_server_key);
    const char *brokers = drover_cli_globals.broker? drover_cli_globals.broker
                        : getenv ("DROVER_BROKER");
    if (key && !server_key && !(brokers && strchr (brokers, '='))) {
        fprintf (stderr, "drover %s: a key (%s) needs the broker's public key too: give "
                 "--server-key FILE, DROVER_SERVER_KEY, or put it in %s/server.key\n",
                 command, key, *dir? dir: "~/.config/drover");
        return -1;
    }
    if (server_key && !key) {
        fprintf (stderr, "drover %s: a server key (%s) needs your key pair too: give --key "
                 "FILE, DROVER_KEY, or put it in %s/client.key (drover keygen client --dir "
                 "%s)\n", command, server_key, *dir? dir: "~/.config/drover",
                 *dir? dir: "~/.config/drover");
        return -1;
    }
    *key_p = key;
    *server_key_p = server_key;
    return 0;
}

//  Connect a client with the global settings
drover_client_t *
drover_cli_connect (const char *command)
{
    const char *key, *server_key;
    if (drover_cli_keys (command, &key, &server_key))
        return NULL;
    drover_client_t *client = drover_client_new (drover_cli_globals.broker);
    if (!client) {
        const char *endpoint = drover_cli_globals.broker? drover_cli_globals.broker
                             : getenv ("DROVER_BROKER");
        fprintf (stderr, "drover %s: '%s' is not a broker endpoint (e.g. tcp://HOST:5555)\n",
                 command, endpoint? endpoint: "");
        return NULL;
    }
    drover_client_set_timeout (client, drover_cli_globals.timeout);
    if (key) {
        char *items = strdup (server_key? server_key: "");
        const char *paths [DROVER_CLI_SERVER_KEYS_MAX];
        size_t count = 0;
        for (char *item = strtok (items, ","); item && count < DROVER_CLI_SERVER_KEYS_MAX;
             item = strtok (NULL, ","))
            paths [count++] = item;
        if (drover_client_set_server_keys (client, key, paths, count)) {
            fprintf (stderr, "drover %s: %s\n", command, drover_client_error_text (client));
            drover_client_destroy (&client);
        }
        free (items);
    }
    return client;
}

//  The brokers' public keys the CLI trusts, for a socket of its own
drover_serverkeys_t *
drover_cli_server_keys (const char *server_key, const char *brokers, char **error_p)
{
    drover_serverkeys_t *keys = drover_serverkeys_new ();
    if (server_key && drover_serverkeys_add_list (keys, server_key, error_p))
        drover_serverkeys_destroy (&keys);
    drover_endpoints_t *list = keys && brokers? drover_endpoints_new (brokers): NULL;
    if (list && drover_serverkeys_pair_list (keys, list, error_p))
        drover_serverkeys_destroy (&keys);
    drover_endpoints_destroy (&list);
    return keys;
}

//  Print the client's last error in plain words
int
drover_cli_error (drover_client_t *client, const char *what)
{
    int code = drover_client_error_code (client);
    const char *text = drover_client_error_text (client);
    if (code == DROVER_CLIENT_ERR_INTERRUPTED) {
        fprintf (stderr, "drover: %s: interrupted\n", what);
        return DROVER_EXIT_INTERRUPTED;
    }
    if (code >= 300)
        fprintf (stderr, "drover: %s: %s (%d)%s%s\n", what, drover_client_code_name (code),
                 code, *text? ": ": "", text);
    else
        fprintf (stderr, "drover: %s: %s\n", what, *text? text: drover_client_code_name (code));
    return DROVER_EXIT_FAILED;
}

//  Parse a whole number within [min, max]
int
drover_cli_parse_int (const char *command, const char *flag, const char *text,
                      long long min, long long max, long long *value_p)
{
    char *end = NULL;
    errno = 0;
    long long value = strtoll (text, &end, 10);
    if (errno || end == text || *end || value < min || value > max) {
        drover_cli_usage_error (command, "%s: '%s' is not a whole number from %lld to %lld",
                                flag, text, min, max);
        return -1;
    }
    *value_p = value;
    return 0;
}

//  Parse seconds (decimals allowed) into msec, 0..max seconds
int
drover_cli_parse_seconds (const char *command, const char *flag, const char *text,
                          double max, uint32_t *msec_p)
{
    char *end = NULL;
    errno = 0;
    double seconds = strtod (text, &end);
    if (errno || end == text || *end || !isfinite (seconds) || seconds < 0 || seconds > max) {
        drover_cli_usage_error (command, "%s: '%s' is not a number of seconds from 0 to %.0f",
                                flag, text, max);
        return -1;
    }
    *msec_p = (uint32_t) llround (seconds * 1000);
    return 0;
}

//  Parse a size: bytes, or a number with K, M, G or T (powers of 1024)
int
drover_cli_parse_size (const char *command, const char *flag, const char *text,
                       uint64_t *bytes_p)
{
    char error [160];
    if (drover_taskopts_parse_size (flag, text, bytes_p, error, sizeof error) == 0)
        return 0;
    drover_cli_usage_error (command, "%s", error);
    return -1;
}

//  Parse a task id (a whole number above 0)
int
drover_cli_parse_id (const char *command, const char *text, uint64_t *task_p)
{
    char *end = NULL;
    errno = 0;
    unsigned long long value = isdigit ((unsigned char) *text)? strtoull (text, &end, 10): 0;
    if (errno || !end || end == text || *end || value == 0) {
        drover_cli_usage_error (command, "'%s' is not a task id", text);
        return -1;
    }
    *task_p = value;
    return 0;
}

//  Parse a task state name or "all"
int
drover_cli_parse_state (const char *text)
{
    if (strcasecmp (text, "all") == 0)
        return 255;
    for (int state = 0; state < DROVER_TASK_UNKNOWN; state++)
        if (strcasecmp (text, drover_task_state_name (state)) == 0)
            return state;
    return -1;
}

//  The exit status for a finished task (documented in submit --help),
//  from how it ended: never from the reason's text
int
drover_cli_exit_status (const drover_msg_t *done)
{
    switch (done->end) {
        case DROVER_END_SUCCEEDED:  return 0;
        case DROVER_END_CANCELLED:  return 130;
        case DROVER_END_TIMED_OUT:  return 124;
        case DROVER_END_FAILED:
            if (done->signal > 0 && done->signal < 128)
                return 128 + done->signal;
            if (done->exit_code > 0 && done->exit_code < 256)
                return done->exit_code;
            return 1;
    }
    return 1;                       //  no status of its own: could not start, lost, unknown
}

//  Describe how a task ended
void
drover_cli_describe_end (const drover_msg_t *done, char *buffer, size_t size)
{
    if (done->end == DROVER_END_FAILED && done->signal > 0)
        snprintf (buffer, size, "signal %d (%s)", done->signal,
                  done->signal < 65? strsignal (done->signal): "?");
    else
    if (done->end == DROVER_END_FAILED)
        snprintf (buffer, size, "exit %d", done->exit_code);
    else
        drover_cli_end_name (done->end, buffer, size);
}

//  Name how a task ended in lower case words: "timed out", "spawn failed"
void
drover_cli_end_name (int end, char *buffer, size_t size)
{
    size_t length = 0;
    for (const char *name = drover_end_name (end); *name && length + 1 < size; name++)
        buffer [length++] = *name == '_'? ' ': (char) tolower ((unsigned char) *name);
    buffer [length] = 0;
}

//  Write text as a JSON string, quotes included
void
drover_cli_json_string (FILE *stream, const char *text)
{
    fputc ('"', stream);
    for (const unsigned char *cursor = (const unsigned char *) (text? text: ""); *cursor; cursor++) {
        if (*cursor == '"' || *cursor == '\\')
            fprintf (stream, "\\%c", *cursor);
        else
        if (*cursor == '\n')
            fputs ("\\n", stream);
        else
        if (*cursor == '\t')
            fputs ("\\t", stream);
        else
        if (*cursor < 0x20 || *cursor == 0x7f)
            fprintf (stream, "\\u%04x", *cursor);
        else
            fputc (*cursor, stream);
    }
    fputc ('"', stream);
}


//  ---------------------------------------------------------------------
//  Progress line

//  Start a progress line
void
drover_cli_progress_init (drover_cli_progress_t *self)
{
    memset (self, 0, sizeof *self);
    self->tty = isatty (STDERR_FILENO);
    self->started = zclock_mono ();
    self->printed = self->started;
}

//  Show progress: a bar on a tty, else a plain line every 5 seconds
void
drover_cli_progress_show (drover_cli_progress_t *self, const char *verb, size_t done,
                          size_t total, const char *extra, bool force)
{
    int64_t now = zclock_mono ();
    double elapsed = (now - self->started) / 1000.0;
    double rate = elapsed > 0? done / elapsed: 0;
    if (!self->tty) {
        if (!force && now - self->printed < 5000)
            return;
        self->printed = now;
        fprintf (stderr, "drover: %s %zu/%zu%s%s\n", verb, done, total, extra? ", ": "",
                 extra? extra: "");
        return;
    }
    const int width = 24;
    int filled = total? (int) ((double) done / total * width): width;
    char bar [64];
    for (int cell = 0; cell < width; cell++)
        bar [cell] = cell < filled? '#': '.';
    bar [width] = 0;
    char eta [32] = "";
    if (rate > 0 && done < total) {
        long seconds = (long) ((total - done) / rate);
        snprintf (eta, sizeof eta, " ETA %ld:%02ld", seconds / 60, seconds % 60);
    }
    fprintf (stderr, "\r%s [%s] %zu/%zu %3.0f%%%s%s %.1f/s%s\033[K", verb, bar, done, total,
             total? 100.0 * done / total: 100.0, extra? "  ": "", extra? extra: "", rate, eta);
    fflush (stderr);
    self->drawn = true;
}

//  Clear the bar
void
drover_cli_progress_clear (drover_cli_progress_t *self)
{
    if (self->tty && self->drawn) {
        fprintf (stderr, "\r\033[K");
        fflush (stderr);
        self->drawn = false;
    }
}
