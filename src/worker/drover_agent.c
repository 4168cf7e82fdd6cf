/*  =========================================================================
    drover_agent - the `drover worker` agent: runs tasks as child processes
    for a broker, using the worker API (drover_worker) and the process
    runner (drover_runner)

    Tasks see a clean environment (drover_taskenv): a documented base, the
    agent's variables named by --pass-env or DROVER_PASS_ENV (never its
    own DROVER_* ones), their own, and who they are (DROVER_TASK_ID,
    DROVER_ATTEMPT, DROVER_WORKER); with --user they run as that
    unprivileged user.

    Its counted devices (drover_devices) are those --device gives, and the
    GPUs nvidia-smi or /dev/nvidiaN show when no gpu is given; they are
    checked and logged at start, then handed to the worker (HELLO says
    them; each task gets its own indices). DROVER_DETECT_ROOT (a directory standing
    for /) and DROVER_NVIDIA_SMI (the program to run) say where detection
    looks.

    The main parses flags into a worker, moves into the work directory (so
    tasks without a cwd of their own run there), and runs the worker loop
    in this thread until the broker says WORKER LEAVE or SIGINT/SIGTERM
    arrive; then running tasks are killed and the worker says GOODBYE.
    With --queue Q it first asks the brokers where Q is served (QUEUES,
    drover_client_queue_endpoints) and works for Q's brokers instead.
    A bad flag value stops it with a message naming the flag, status 2.
    =========================================================================
*/

#include "drover_agent.h"
#include "drover_worker.h"
#include "drover_client.h"
#include "drover_stats.h"
#include "drover_config.h"
#include "drover_defaults.h"
#include "drover_taskenv.h"
#include "drover_memlimit.h"
#include "drover_devices.h"
#include "drover_log.h"
#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <unistd.h>
#include <sys/stat.h>

#define S_EXIT_USAGE        2
#define S_EXIT_UNSUPPORTED  3       //  the broker does not take this agent's release or
                                    //  level (ERROR 426 to its HELLO): upgrade it
#define S_PROCS_MAX         65536
#define S_PASS_MAX          64      //  --pass-env flags at most

//  A plain literal macro's value as a string, for the usage text
#define S_TEXT(x)   #x
#define S_QUOTE(x)  S_TEXT (x)

//  What the flags say
typedef struct {
    const char *broker;                 //  endpoint
    uint32_t procs;                     //  procs of the machine (before --max-load)
    uint64_t mem;                       //  bytes
    double max_load;                    //  fraction of procs offered
    uint32_t ahead;                     //  offers held beyond the free procs (--ahead)
    const char *id;                     //  worker id, or NULL for hostname-pid
    const char *workdir;                //  work directory, or NULL for the current one
    uint32_t heartbeat;                 //  msec, 0 = default
    uint32_t grace;                     //  msec, SIGTERM to SIGKILL
    const char *labels [DROVER_LABELS_MAX]; //  "k=v", borrowed from argv
    uint32_t nlabels;                   //  labels given
    bool verbose;                       //  -v
    const char *pass [S_PASS_MAX];      //  --pass-env lists, borrowed from argv
    uint32_t npass;                     //  --pass-env flags given
    const char *user;                   //  --user: tasks run as this user, or NULL
    const char *key;                    //  --key: our key pair file, or NULL
    char *server_key;                   //  --server-key: the brokers' public key files and
                                        //  directories, comma-separated (every flag's), or NULL
    const char *queue;                  //  --queue: the named queue, or NULL ($DROVER_QUEUE)
    const char *memory_limit;           //  --memory-limit: hard, soft, off, or NULL
    drover_devices_t *devices;          //  --device's, then those detected, owned
} s_options_t;

//  Detect the GPUs where DROVER_DETECT_ROOT and DROVER_NVIDIA_SMI say
//  (/ and nvidia-smi from the PATH), unless --device gave gpu
static void
s_detect_devices (drover_devices_t *devices)
{
    const char *root = getenv ("DROVER_DETECT_ROOT");
    const char *command = getenv ("DROVER_NVIDIA_SMI");
    drover_devices_set_probe (devices, root && *root? root: NULL, command, 0);
    drover_devices_detect (devices);
}

//  Print the usage text, with the devices this machine has (devices,
//  what --device gave before -h, and the GPUs detected)
static void
s_usage (FILE *stream, drover_devices_t *devices)
{
    s_detect_devices (devices);
    char *described = drover_devices_describe (devices);
    fprintf (stream,
        "usage: drover worker [options]\n"
        "  Registers with a broker and runs the tasks it offers as child processes.\n"
        "  --broker ENDPOINT[,ENDPOINT...]  broker ROUTER endpoint ($DROVER_BROKER, else "
                                DROVER_DEFAULT_ENDPOINT ");\n"
        "                       several brokers: it registers with the leader, and again\n"
        "                       with the next one when that leader is gone\n"
        "  --queue Q            work for named queue Q ($DROVER_QUEUE): its brokers are\n"
        "                       asked of --broker's (QUEUES), the owner's first; an unknown\n"
        "                       queue is an error (exit 2); until they answer and one offers\n"
        "                       Q, asked again after 1 s, doubling to 30 s\n"
        "  -n, --procs N        procs of this machine (number of CPUs)\n"
        "  -m, --mem SIZE       memory offered, with K/M/G/T suffix (MemTotal)\n"
        "  -l, --label KEY=VALUE  a label the scheduler can match; repeatable\n"
        "  --max-load F         offer max(1, floor(procs * F)) procs, 0 < F <= 1 (1)\n"
        "  --ahead N            hold up to N offers past the free procs, each started the\n"
        "                       moment a task ends, or given back when held too long\n"
        "                       (" S_QUOTE (DROVER_DEFAULT_WORKER_AHEAD) "; 0 none, at most "
                                S_QUOTE (DROVER_AHEAD_MAX) "; a broker of protocol level 9\n"
        "                       grants up to its assign/offer-ahead, 1 unless set)\n"
        "  --device NAME=COUNT|NAME=I,J,...  counted devices (NAME of a-z 0-9 _): COUNT\n"
        "                       of them (indices 0..COUNT-1) or these indices (I-J a\n"
        "                       range, one alone I,); repeatable, one per NAME; gpu=0:\n"
        "                       none. Without gpu, the GPUs of nvidia-smi -L, else of\n"
        "                       /dev/nvidiaN (here: %s). Brokers schedule by them\n"
        "                       from protocol level 4 on; tasks are then told their\n"
        "                       own: DROVER_DEVICES_<NAME>, CUDA_VISIBLE_DEVICES for gpu\n"
        "  --id ID              worker id (HOSTNAME-PID)\n"
        "  --workdir DIR        tasks run here unless they say otherwise; disk stats\n"
        "                       describe its filesystem (current directory)\n"
        "  --heartbeat MSEC     heartbeat until the broker names its own ("
                                S_QUOTE (DROVER_DEFAULT_HEARTBEAT) ")\n"
        "  --grace MSEC         from SIGTERM to SIGKILL when killing a task (5000)\n"
        "  --memory-limit hard|soft|off  what a task's --mem does ($DROVER_MEMORY_LIMIT,\n"
        "                       else hard): hard, its cgroup's memory.max (v2) or\n"
        "                       memory.limit_in_bytes (v1), the OOM killer ends it (OOM);\n"
        "                       soft, memory.high or memory.soft_limit_in_bytes; off, none\n"
        "  --pass-env NAME[,NAME...]  pass these variables of the agent's to tasks\n"
        "                       (NAME* for every name it starts; DROVER_* never);\n"
        "                       repeatable; also DROVER_PASS_ENV. Tasks otherwise see\n"
        "                       PATH=" DROVER_TASKENV_PATH ", HOME, USER,\n"
        "                       LOGNAME of their user, LANG=" DROVER_TASKENV_LANG ", and their own\n"
        "  --user NAME          run tasks as this unprivileged user (agent as root)\n"
        "  --key FILE           this worker's CURVE key pair (NAME.key or NAME.key_secret,\n"
        "                       from drover keygen; $DROVER_KEY); needs --server-key\n"
        "  --server-key FILE|DIR  the broker's public key file ($DROVER_SERVER_KEY); with\n"
        "                       neither, the connection is plain (no CURVE). Brokers\n"
        "                       with a key pair each: repeat it, or give a directory or a\n"
        "                       comma-separated list, the keys named by their file names\n"
        "                       (b1.key: b1); each broker gets the key --broker names,\n"
        "                       tcp://HOST:5555=b1 (or =FILE), or that of its --name\n"
        "                       when a broker redirects to it, or the only one\n"
        "  -v, --verbose        log every message\n"
        "  -h, --help           this text\n", described);
    zstr_free (&described);
}

//  Print a message naming the flag; returns the usage exit status
static int
s_bad (const char *flag, const char *value, const char *why)
{
    fprintf (stderr, "drover worker: %s '%s': %s\n", flag, value, why);
    return S_EXIT_USAGE;
}

//  Parse an unsigned integer in [min, max]. Returns 0 or -1.
static int
s_parse_uint (const char *text, uint64_t min, uint64_t max, uint64_t *value_p)
{
    if (!text || !isdigit ((unsigned char) *text))
        return -1;
    errno = 0;
    char *end;
    unsigned long long value = strtoull (text, &end, 10);
    if (errno || *end || value < min || value > max)
        return -1;
    *value_p = value;
    return 0;
}

//  Check each endpoint of a comma-separated list of brokers; says what is
//  wrong and returns -1 if one is not an endpoint, or there is none
static int
s_check_brokers (const char *brokers)
{
    char *list = strdup (brokers);
    assert (list);
    int rc = 0;
    size_t count = 0;
    char *saved = NULL;
    for (char *item = strtok_r (list, ",", &saved); item && rc == 0;
         item = strtok_r (NULL, ",", &saved)) {
        while (isspace ((byte) *item))
            item++;
        for (char *end = item + strlen (item); end > item && isspace ((byte) end [-1]); )
            *--end = 0;
        if (!*item)
            continue;               //  an empty item: dropped, as the worker does
        count++;
        char *error = NULL;
        rc = drover_config_check_endpoint (item, true, &error);
        if (rc)
            fprintf (stderr, "drover worker: --broker %s\n", error);
        zstr_free (&error);
    }
    if (rc == 0 && count == 0) {
        fprintf (stderr, "drover worker: --broker '%s': no endpoint\n", brokers);
        rc = -1;
    }
    free (list);
    return rc;
}

//  Parse argv into options. Returns -1 to go on, or an exit status.
static int
s_parse (int argc, char **argv, s_options_t *options)
{
    static const struct option longs [] = {
        { "broker", required_argument, NULL, 'b' },
        { "procs", required_argument, NULL, 'p' },
        { "mem", required_argument, NULL, 'm' },
        { "label", required_argument, NULL, 'l' },
        { "max-load", required_argument, NULL, 'L' },
        { "ahead", required_argument, NULL, 'A' },
        { "id", required_argument, NULL, 'i' },
        { "workdir", required_argument, NULL, 'w' },
        { "heartbeat", required_argument, NULL, 'H' },
        { "grace", required_argument, NULL, 'g' },
        { "memory-limit", required_argument, NULL, 'M' },
        { "pass-env", required_argument, NULL, 'P' },
        { "user", required_argument, NULL, 'u' },
        { "key", required_argument, NULL, 'k' },
        { "server-key", required_argument, NULL, 'K' },
        { "queue", required_argument, NULL, 'Q' },
        { "device", required_argument, NULL, 'D' },
        { "verbose", no_argument, NULL, 'v' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    optind = 0;                         //  a fresh scan, whatever parsed before us
    opterr = 0;
    int option;
    while ((option = getopt_long (argc, argv, ":vhn:m:l:", longs, NULL)) != -1) {
        uint64_t value;
        char *end;
        switch (option) {
            case 'b':
                options->broker = optarg;
                break;
            case 'n':                   //  -n N, as `drover submit -n` (procs)
            case 'p':
                if (s_parse_uint (optarg, 1, S_PROCS_MAX, &value))
                    return s_bad ("--procs", optarg, "must be a whole number from 1 to 65536");
                options->procs = (uint32_t) value;
                break;
            case 'm':
                if (drover_config_parse_size (optarg, &options->mem))
                    return s_bad ("--mem", optarg, "must be a size such as 512M or 16G");
                break;
            case 'l':
                if (!drover_label_valid (optarg))
                    return s_bad ("--label", optarg,
                                  "must be KEY=VALUE, KEY of [A-Za-z0-9_.-] (1..63), VALUE printable");
                if (options->nlabels >= DROVER_LABELS_MAX)
                    return s_bad ("--label", optarg, "too many labels (16 at most)");
                options->labels [options->nlabels++] = optarg;
                break;
            case 'L':
                errno = 0;
                options->max_load = strtod (optarg, &end);
                if (errno || end == optarg || *end
                ||  !(options->max_load > 0 && options->max_load <= 1))
                    return s_bad ("--max-load", optarg, "must be a number above 0 and at most 1");
                break;
            case 'A':
                if (s_parse_uint (optarg, 0, DROVER_AHEAD_MAX, &value))
                    return s_bad ("--ahead", optarg, "must be a whole number from 0 to "
                                  S_QUOTE (DROVER_AHEAD_MAX));
                options->ahead = (uint32_t) value;
                break;
            case 'i':
                if (!drover_id_valid (optarg))
                    return s_bad ("--id", optarg, "must be 1..64 printable characters without spaces");
                options->id = optarg;
                break;
            case 'w': {
                struct stat info;
                if (stat (optarg, &info) || !S_ISDIR (info.st_mode))
                    return s_bad ("--workdir", optarg, "is not a directory");
                options->workdir = optarg;
                break;
            }
            case 'H':
                if (s_parse_uint (optarg, 10, 3600000, &value))
                    return s_bad ("--heartbeat", optarg, "must be msec from 10 to 3600000");
                options->heartbeat = (uint32_t) value;
                break;
            case 'g':
                if (s_parse_uint (optarg, 0, 3600000, &value))
                    return s_bad ("--grace", optarg, "must be msec from 0 to 3600000");
                options->grace = (uint32_t) value;
                break;
            case 'M':
                if (!drover_memlimit_mode_valid (optarg))
                    return s_bad ("--memory-limit", optarg, "must be hard, soft or off");
                options->memory_limit = optarg;
                break;
            case 'P':
                if (options->npass >= S_PASS_MAX)
                    return s_bad ("--pass-env", optarg, "too many --pass-env flags (64 at most)");
                options->pass [options->npass++] = optarg;
                break;
            case 'u':
                options->user = optarg;
                break;
            case 'k':
                options->key = optarg;
                break;
            case 'K':
                if (options->server_key) {
                    char *joined = zsys_sprintf ("%s,%s", options->server_key, optarg);
                    free (options->server_key);
                    options->server_key = joined;
                }
                else
                    options->server_key = strdup (optarg);
                break;
            case 'Q':
                options->queue = optarg;
                break;
            case 'D': {
                char *error = NULL;
                if (drover_devices_parse (options->devices, optarg, &error)) {
                    fprintf (stderr, "drover worker: %s\n", error);
                    zstr_free (&error);
                    return S_EXIT_USAGE;
                }
                break;
            }
            case 'v':
                options->verbose = true;
                break;
            case 'h':
                s_usage (stdout, options->devices);
                return 0;
            case ':':
                fprintf (stderr, "drover worker: %s needs a value\n", argv [optind - 1]);
                return S_EXIT_USAGE;
            default:
                fprintf (stderr, "drover worker: unknown option '%s' (see drover worker -h)\n",
                         argv [optind - 1]);
                return S_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf (stderr, "drover worker: unexpected argument '%s' (see drover worker -h)\n",
                 argv [optind]);
        return S_EXIT_USAGE;
    }
    if (s_check_brokers (options->broker))
        return S_EXIT_USAGE;
    return -1;
}

//  Create the worker the options describe; NULL if the default id is not usable
static drover_worker_t *
s_worker_new (s_options_t *options, uint32_t procs)
{
    char id [DROVER_ID_MAX + 1];
    if (options->id)
        snprintf (id, sizeof id, "%s", options->id);
    else {
        char host [256] = "";
        if (gethostname (host, sizeof host - 1) || !*host)
            strcpy (host, "worker");
        for (char *c = host; *c; c++)
            if (*c <= ' ' || *c > '~')
                *c = '_';
        snprintf (id, sizeof id, "%.50s-%d", host, (int) getpid ());
    }
    drover_worker_t *worker = drover_worker_new (options->broker, id, procs, options->mem);
    if (!worker)
        return NULL;
    for (uint32_t index = 0; index < options->nlabels; index++)
        drover_worker_set_label (worker, options->labels [index]);
    if (options->heartbeat)
        drover_worker_set_heartbeat (worker, options->heartbeat);
    drover_worker_set_grace (worker, options->grace);
    drover_worker_set_ahead (worker, options->ahead);
    if (options->memory_limit)
        drover_worker_set_memory_limit (worker, options->memory_limit);
    char *cwd = getcwd (NULL, 0);       //  absolute: a removed workdir is noticed
    drover_worker_set_workdir (worker, cwd? cwd: ".");
    free (cwd);
    drover_worker_set_verbose (worker, options->verbose);
    return worker;
}


//  Tell the worker what its tasks see: the variables passed (DROVER_PASS_ENV,
//  then each --pass-env) and the user. Returns -1 to go on, or an exit status.
static int
s_taskenv (drover_worker_t *worker, s_options_t *options)
{
    char *error = NULL;
    const char *listed = getenv ("DROVER_PASS_ENV");
    if (listed && *listed && drover_worker_pass_env (worker, listed, &error)) {
        fprintf (stderr, "drover worker: DROVER_PASS_ENV: %s\n", error);
        zstr_free (&error);
        return S_EXIT_USAGE;
    }
    for (uint32_t index = 0; index < options->npass; index++)
        if (drover_worker_pass_env (worker, options->pass [index], &error)) {
            fprintf (stderr, "drover worker: --pass-env: %s\n", error);
            zstr_free (&error);
            return S_EXIT_USAGE;
        }
    if (options->user && drover_worker_set_user (worker, options->user, &error)) {
        int status = s_bad ("--user", options->user, error);
        zstr_free (&error);
        return status;
    }
    if (options->user)
        zsys_notice ("worker: tasks run as user=%s", options->user);
    return -1;
}


//  Most --server-key items (files, directories) taken
#define S_SERVER_KEYS_MAX   64

//  Split the comma-separated server keys (NULL: none) into paths, at most
//  S_SERVER_KEYS_MAX; they point into *items_p, which the caller frees
static size_t
s_server_key_paths (const char *list, const char **paths, char **items_p)
{
    *items_p = strdup (list? list: "");
    assert (*items_p);
    size_t count = 0;
    for (char *item = strtok (*items_p, ","); item && count < S_SERVER_KEYS_MAX;
         item = strtok (NULL, ","))
        paths [count++] = item;
    return count;
}

//  Give the worker its CURVE keys: --key and --server-key, else DROVER_KEY
//  and DROVER_SERVER_KEY, one of each or none. Returns -1 to go on, or an
//  exit status.
static int
s_keys (drover_worker_t *worker, s_options_t *options)
{
    const char *key = options->key? options->key: getenv ("DROVER_KEY");
    const char *server_key = options->server_key? options->server_key
                           : getenv ("DROVER_SERVER_KEY");
    if (key && !*key)
        key = NULL;
    if (server_key && !*server_key)
        server_key = NULL;
    if (!key && !server_key)
        return -1;                      //  plain, as without CURVE
    //  The list of brokers may give each broker's key file (ENDPOINT=FILE)
    if (!server_key && !strchr (options->broker, '=')) {
        fprintf (stderr, "drover worker: a key (%s) needs the broker's public key too: give "
                 "--server-key FILE or DROVER_SERVER_KEY\n", key);
        return S_EXIT_USAGE;
    }
    if (!key) {
        fprintf (stderr, "drover worker: a server key (%s) needs this worker's key pair too: "
                 "give --key FILE or DROVER_KEY\n", server_key);
        return S_EXIT_USAGE;
    }
    const char *paths [S_SERVER_KEYS_MAX];
    char *items = NULL;
    size_t count = s_server_key_paths (server_key, paths, &items);
    char *error = NULL;
    int rc = drover_worker_set_server_keys (worker, key, paths, count, &error);
    free (items);
    if (rc) {
        fprintf (stderr, "drover worker: %s\n", error);
        zstr_free (&error);
        return S_EXIT_USAGE;
    }
    zsys_notice ("worker: CURVE key=%s server-key=%s", key, server_key? server_key: "(in --broker)");
    return -1;
}


//  Bounds of the wait before asking where the queue is again, msec
#define S_QUEUE_RETRY_MIN   1000
#define S_QUEUE_RETRY_MAX   30000

//  With --queue (or DROVER_QUEUE): ask the brokers where that queue is
//  served and take its endpoints, the owner's first, as the list of
//  brokers (*list_p, ours to free). Returns -1 to go on, or an exit status.
static int
s_queue_brokers (s_options_t *options, char **list_p)
{
    const char *queue = options->queue? options->queue: getenv ("DROVER_QUEUE");
    if (!queue || !*queue)
        return -1;
    if (!drover_queue_name_valid (queue))
        return s_bad ("--queue", queue, "is not a queue name (1..64 of A-Z a-z 0-9 . _ -)");
    drover_client_t *client = drover_client_new (options->broker);
    assert (client);            //  s_parse checked the list
    const char *key = options->key? options->key: getenv ("DROVER_KEY");
    const char *server_key = options->server_key? options->server_key
                           : getenv ("DROVER_SERVER_KEY");
    if (key && *key && ((server_key && *server_key) || strchr (options->broker, '='))) {
        const char *paths [S_SERVER_KEYS_MAX];
        char *items = NULL;
        size_t count = s_server_key_paths (server_key, paths, &items);
        int rc = drover_client_set_server_keys (client, key, paths, count);
        free (items);
        if (rc) {
            fprintf (stderr, "drover worker: %s\n", drover_client_error_text (client));
            drover_client_destroy (&client);
            return S_EXIT_USAGE;
        }
    }
    //  An unknown queue is the operator's mistake; brokers not answering yet,
    //  or none offering the queue now, are waited out as a plain worker
    //  waits for its broker: asked again after 1 s, doubling to 30 s
    char *list = NULL;
    int retry = S_QUEUE_RETRY_MIN;
    while (!(list = drover_client_queue_endpoints (client, queue))) {
        int code = drover_client_error_code (client);
        const char *text = drover_client_error_text (client);
        bool usage = code == DROVER_CODE_NOT_FOUND || code == DROVER_CODE_UNEXPECTED;
        if (usage || zsys_interrupted) {
            fprintf (stderr, "drover worker: --queue %s: %s\n", queue,
                     *text? text: drover_client_code_name (code));
            drover_client_destroy (&client);
            return usage? S_EXIT_USAGE: 1;
        }
        zsys_warning ("worker: queue=%s: %s: asking again in %d ms", queue,
                      *text? text: drover_client_code_name (code), retry);
        int64_t until = zclock_mono () + retry;
        while (!zsys_interrupted && zclock_mono () < until)
            zclock_sleep (100);     //  a signal ends the wait soon
        retry = retry * 2 > S_QUEUE_RETRY_MAX? S_QUEUE_RETRY_MAX: retry * 2;
    }
    drover_client_destroy (&client);
    zsys_notice ("worker: queue=%s brokers=%s", queue, list);
    options->broker = list;
    *list_p = list;
    return -1;
}


//  --------------------------------------------------------------------------
//  Run `drover worker [flags]`. Returns the exit status.

static int
    s_agent (int argc, char **argv, s_options_t *options);

int
drover_agent_main (int argc, char **argv)
{
    const char *broker = getenv ("DROVER_BROKER");
    s_options_t options = {
        .broker = broker && *broker? broker: DROVER_DEFAULT_ENDPOINT,
        .procs = drover_stats_cpus (),
        .mem = drover_stats_mem_total (),
        .max_load = 1.0,
        .ahead = DROVER_DEFAULT_WORKER_AHEAD,
        .grace = 5000,
        .devices = drover_devices_new ()
    };
    int status = s_agent (argc, argv, &options);
    free (options.server_key);
    drover_devices_destroy (&options.devices);
    return status;
}

//  The agent, with its options' defaults set
static int
s_agent (int argc, char **argv, s_options_t *options)
{
    int status = s_parse (argc, argv, options);
    if (status != -1)
        return status;
    const char *memory_limit = getenv ("DROVER_MEMORY_LIMIT");
    if (!options->memory_limit && memory_limit && *memory_limit) {
        if (!drover_memlimit_mode_valid (memory_limit))
            return s_bad ("DROVER_MEMORY_LIMIT", memory_limit, "must be hard, soft or off");
        options->memory_limit = memory_limit;
    }
    if (options->workdir && chdir (options->workdir)) {
        fprintf (stderr, "drover worker: --workdir '%s': %s\n", options->workdir, strerror (errno));
        return S_EXIT_USAGE;
    }
    uint32_t procs = (uint32_t) floor (options->procs * options->max_load);
    if (procs < 1)
        procs = 1;
    if (options->mem == 0)
        options->mem = 1;                //  MemTotal unreadable: offer something
    zsys_set_logident ("drover-worker");
    drover_log_init (STDOUT_FILENO);    //  dates in ISO 8601 UTC
    char *queue_brokers = NULL;         //  --queue: the queue's brokers, owner first
    status = s_queue_brokers (options, &queue_brokers);
    if (status != -1)
        return status;
    drover_worker_t *worker = s_worker_new (options, procs);
    if (!worker) {
        fprintf (stderr, "drover worker: cannot make a worker id from the hostname; give --id\n");
        zstr_free (&queue_brokers);
        return S_EXIT_USAGE;
    }
    status = s_taskenv (worker, options);
    if (status == -1)
        status = s_keys (worker, options);
    if (status != -1) {
        drover_worker_destroy (&worker);
        zstr_free (&queue_brokers);
        return status;
    }
    char *cwd = getcwd (NULL, 0);
    zsys_notice ("worker: starting id=%s broker=%s procs=%u ahead=%u mem=%" PRIu64 " labels=%u "
                 "workdir=%s", drover_worker_id (worker), options->broker, procs, options->ahead,
                 options->mem, options->nlabels, cwd? cwd: "?");
    free (cwd);
    //  Brokers count the devices from protocol level 4 on (HELLO says
    //  them); the worker gives each task its own indices
    s_detect_devices (options->devices);
    char *described = drover_devices_describe (options->devices);
    zsys_notice ("worker: devices %s", described);
    zstr_free (&described);
    drover_worker_set_devices (worker, &options->devices);
    //  For tests only: say an older release, to be refused (health/min-release)
    const char *release = getenv ("DROVER_TEST_RELEASE");
    if (release && *release)
        drover_worker_set_release (worker, release);
    int rc = drover_worker_run (worker);
    if (drover_worker_refused (worker))
        fprintf (stderr, "drover worker: %s\n", drover_worker_refused (worker));
    if (rc != 0 && drover_worker_refused_code (worker) == DROVER_CODE_BAD_VERSION)
        rc = S_EXIT_UNSUPPORTED;
    zsys_notice ("worker: stopped id=%s tasks=%" PRIu64 " acked=%" PRIu64,
                 drover_worker_id (worker), drover_worker_tasks_run (worker),
                 drover_worker_results_acked (worker));
    drover_worker_destroy (&worker);
    zstr_free (&queue_brokers);
    return rc == 0? 0: rc == S_EXIT_UNSUPPORTED? rc: 1;
}
