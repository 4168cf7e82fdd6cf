/*  =========================================================================
    drover_brokerflags - the `drover broker` command line (see the header)
    =========================================================================
*/

#include "drover_brokerflags.h"
#include "drover_sharespec.h"
#include "drover_queuespec.h"
#include "drover_ha.h"
#include "drover_defaults.h"
#include "drover_keys.h"
#include "drover_keyring.h"
#include <getopt.h>

//  Print usage
static void
s_usage (FILE *stream)
{
    fprintf (stream,
        "usage: drover broker [options]\n"
        "  -c, --config FILE          read settings from a ZPL file (see --print-config)\n"
        "  -e, --endpoint ENDPOINT    ROUTER for workers and clients (" DROVER_DEFAULT_ENDPOINT ")\n"
        "  -E, --events ENDPOINT      PUB for the event stream (" DROVER_DEFAULT_EVENTS ")\n"
"      --metrics HOST:PORT    serve Prometheus metrics over HTTP there (/metrics; off\n"
        "                             by default; loopback unless broker/metrics-public = 1)\n"
        "  -d, --state-dir DIR        keep the state there (" DROVER_DEFAULT_STATE_DIR ", made if missing)\n"
        "      --state URI            the same, or a PostgreSQL database: postgresql://USER@HOST/DB\n"
        "      --etcd URLS            elect a leader among brokers through etcd\n"
        "                             (http://HOST:2379[,...]); the others stand by and redirect\n"
        "      --name NAME            this broker's name among its peers (default: host name)\n"
        "      --advertise ENDPOINT   where peers reach this broker (default: --endpoint)\n"
        "      --lease-ttl MSEC       etcd session TTL: failover after about this long (4000)\n"
        "      --durability MODE      full, batch or off (" DROVER_DEFAULT_DURABILITY "; docs/durability.md)\n"
        "      --key FILE             the broker's key pair (NAME.key, NAME.key_secret beside it):\n"
        "                             every endpoint then requires CURVE and may be any address\n"
        "      --keys DIR             public keys allowed in, by role: DIR/workers, DIR/clients,\n"
        "                             DIR/admins (security/keys)\n"
        "      --insecure             allow non-loopback endpoints without CURVE (anyone who\n"
        "                             reaches them can run commands on the workers)\n"
        "      --set SECTION/KEY=VALUE  override one setting, e.g. --set health/lost-after=3000\n"
        "      --print-config         print every setting with its comment, then exit\n"
        "      --check-config         check the settings (file, flags, --set, keys) as at\n"
        "                             start, without binding or opening the state: says\n"
        "                             \"config ok\" (exit 0) or every mistake (exit 2)\n"
        "  -v, --verbose              log each command the actors handle\n"
        "  -h, --help                 this help\n"
        "Flags override the file. SIGINT or SIGTERM shut the broker down cleanly (exit 0);\n"
        "SIGHUP reads the file and flags again and applies what can change while it runs\n"
        "(docs/operating.md, \"Reloading settings\").\n");
}

//  What the command line asks besides settings
typedef struct {
    bool verbose;               //  -v
    bool help;                  //  -h
    bool usage;                 //  a flag we do not know: usage on stderr
    bool print_config;          //  --print-config
    bool check_config;          //  --check-config
} s_flags_t;

//  Parse flags into config, collecting every mistake in *errors_p (one a
//  line, "" prefix: the caller says whose); what they ask besides
//  settings into flags
static void
s_parse_flags (drover_config_t *config, int argc, char **argv, s_flags_t *flags,
               char **errors_p)
{
    static const struct option options [] = {
        { "config",       required_argument, NULL, 'c' },
        { "endpoint",     required_argument, NULL, 'e' },
        { "events",       required_argument, NULL, 'E' },
        { "state-dir",    required_argument, NULL, 'd' },
        { "state",        required_argument, NULL, 'd' },
        { "etcd",         required_argument, NULL, 'T' },
        { "name",         required_argument, NULL, 'N' },
        { "advertise",    required_argument, NULL, 'A' },
        { "lease-ttl",    required_argument, NULL, 'L' },
        { "durability",   required_argument, NULL, 'D' },
        { "metrics",      required_argument, NULL, 'M' },
        { "insecure",     no_argument,       NULL, 'I' },
        { "key",          required_argument, NULL, 'K' },
        { "keys",         required_argument, NULL, 'k' },
        { "set",          required_argument, NULL, 'S' },
        { "print-config", no_argument,       NULL, 'P' },
        { "check-config", no_argument,       NULL, 'C' },
        { "verbose",      no_argument,       NULL, 'v' },
        { "help",         no_argument,       NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    //  The file is read first wherever -c stands, so flags override it;
    //  a flag we do not know is said by the second pass, as ours
    optind = 1;
    opterr = 0;
    int option;
    while ((option = getopt_long (argc, argv, "c:e:E:d:vh", options, NULL)) != -1)
        if (option == 'c') {
            char *error = NULL;
            drover_config_load (config, optarg, &error);
            drover_config_add_error (errors_p, &error);
        }
    optind = 1;
    while ((option = getopt_long (argc, argv, "c:e:E:d:vh", options, NULL)) != -1) {
        char *error = NULL;
        if (option == 'e')
            drover_config_set (config, "broker/endpoint", optarg, &error);
        else
        if (option == 'E')
            drover_config_set (config, "broker/events", optarg, &error);
        else
        if (option == 'd')
            drover_config_set (config, "broker/state-dir", optarg, &error);
        else
        if (option == 'D')
            drover_config_set (config, "broker/durability", optarg, &error);
        else
        if (option == 'T')
            drover_config_set (config, "ha/etcd", optarg, &error);
        else
        if (option == 'N')
            drover_config_set (config, "ha/name", optarg, &error);
        else
        if (option == 'A')
            drover_config_set (config, "ha/advertise", optarg, &error);
        else
        if (option == 'L')
            drover_config_set (config, "ha/lease-ttl", optarg, &error);
        else
        if (option == 'M')
            drover_config_set (config, "broker/metrics", optarg, &error);
        else
        if (option == 'I')
            config->insecure = 1;
        else
        if (option == 'K')
            drover_config_set (config, "security/key", optarg, &error);
        else
        if (option == 'k')
            drover_config_set (config, "security/keys", optarg, &error);
        else
        if (option == 'S') {
            char *why = NULL;
            if (drover_config_set_assignment (config, optarg, &why))
                error = zsys_sprintf ("--set %s", why);
            zstr_free (&why);
        }
        else
        if (option == 'P')
            flags->print_config = true;
        else
        if (option == 'C')
            flags->check_config = true;
        else
        if (option == 'v')
            flags->verbose = true;
        else
        if (option == 'h')
            flags->help = true;
        else
        if (option != 'c') {
            const char *flag = optind > 1 && optind - 1 < argc? argv [optind - 1]: "?";
            error = zsys_sprintf ("%s: no such flag (see --help)", flag);
            flags->usage = true;
        }
        drover_config_add_error (errors_p, &error);
    }
    if (optind < argc) {
        char *error = zsys_sprintf ("unexpected argument '%s'", argv [optind]);
        drover_config_add_error (errors_p, &error);
    }
}

//  Refuse endpoints that would expose the workers, unless CURVE guards
//  them or the operator said --insecure, and settings that would do
//  nothing (drover_config_check_together); every reason collected
static void
s_check_endpoints (drover_config_t *config, char **errors_p)
{
    const char *endpoints [] = { config->endpoint, config->events };
    bool open = config->insecure || *config->security_key;
    for (int index = 0; index < 2; index++) {
        char *error = NULL;
        drover_config_check_endpoint (endpoints [index], open, &error);
        drover_config_add_error (errors_p, &error);
    }
    char *error = NULL;
    drover_config_check_metrics (config->metrics, config->metrics_public, &error);
    drover_config_add_error (errors_p, &error);
    drover_config_check_pool (config, &error);
    drover_config_add_error (errors_p, &error);
    drover_config_check_together (config, &error);
    drover_config_add_error (errors_p, &error);
    drover_sharespec_check (config->share_accounts, config->share_weights,
                            config->share_quotas, &error);
    drover_config_add_error (errors_p, &error);
}

//  Check the named queues: a valid list, on ports apart from the broker's
//  own, which end with a port each queue's can replace
static void
s_check_queues (drover_config_t *config, char **errors_p)
{
    char *error = NULL;
    drover_queuespec_t *spec = drover_queuespec_new (config->ha.queues, &error);
    if (spec && drover_queuespec_size (spec)) {
        const char *endpoints [] = { config->endpoint, config->events, config->ha.advertise };
        for (int index = 0; index < 3 && !error; index++) {
            char *derived = drover_queuespec_endpoint (endpoints [index], 1);
            if (!derived || drover_queuespec_uses (spec, endpoints [index]))
                error = zsys_sprintf ("ha/queues: %s must end with a port apart from the "
                                      "queues' ports", endpoints [index]);
            zstr_free (&derived);
        }
    }
    drover_queuespec_destroy (&spec);
    drover_config_add_error (errors_p, &error);
}

//  Check the settings of several brokers: a shared state, a name and an
//  endpoint peers can reach; fills in the defaults ("" name, advertise)
static void
s_check_ha (drover_config_t *config, char **errors_p)
{
    char *error = NULL;
    if (!*config->ha.etcd) {
        if (*config->ha.queues)
            error = strdup ("ha/queues needs several brokers: set ha/etcd too");
        drover_config_add_error (errors_p, &error);
        return;
    }
    if (strncmp (config->ha.etcd, "http://", 7) && strncmp (config->ha.etcd, "https://", 8))
        error = strdup ("ha/etcd: give etcd's client URLs, e.g. http://127.0.0.1:2379");
    else
    if (strncmp (config->state_dir, "postgresql://", 13)
    &&  strncmp (config->state_dir, "postgres://", 11))
        error = strdup ("ha/etcd needs a state every broker shares: "
                        "--state postgresql://USER@HOST/DB");
    else
    if (streq (config->durability, "off"))
        error = strdup ("ha/etcd needs a kept state: broker/durability full or batch, not off");
    drover_config_add_error (errors_p, &error);
    if (!*config->ha.name) {
        char host [256] = "";
        gethostname (host, sizeof host - 1);
        free (config->ha.name);
        config->ha.name = strdup (*host? host: "broker");
    }
    if (!*config->ha.advertise) {
        if (strchr (config->endpoint, '*')) {
            error = zsys_sprintf ("broker/endpoint %s binds every address: say which one "
                                  "peers reach with --advertise tcp://HOST:PORT",
                                  config->endpoint);
            drover_config_add_error (errors_p, &error);
        }
        else {
            free (config->ha.advertise);
            config->ha.advertise = strdup (config->endpoint);
        }
    }
    s_check_queues (config, errors_p);
    drover_ha_check_timers (config, &error);        //  issue 33 (etcd): timer pairs
    drover_config_add_error (errors_p, &error);
}

//  Check that the broker's key pair and the keys directory can be read,
//  as the broker does at start (drover_guard_new), without its ZAP handler
static void
s_check_keys (drover_config_t *config, char **errors_p)
{
    if (!*config->security_key || !*config->security_keys)
        return;                 //  none, or drover_config_check_together said why
    char *error = NULL;
    zcert_t *pair = drover_keys_load_pair (config->security_key, &error);
    drover_config_add_error (errors_p, &error);
    zcert_destroy (&pair);
    drover_keyring_t *keyring = drover_keyring_new (config->security_keys);
    drover_keyring_load (keyring, &error);
    drover_config_add_error (errors_p, &error);
    drover_keyring_destroy (&keyring);
}

//  Say each line of text on stream as "drover broker: LINE"
static void
s_say_lines (FILE *stream, const char *prefix, const char *text)
{
    while (text && *text) {
        const char *end = strchr (text, '\n');
        int length = end? (int) (end - text): (int) strlen (text);
        fprintf (stream, "drover broker: %s%.*s\n", prefix, length, text);
        text = end? end + 1: NULL;
    }
}

//  Check everything the broker checks before it binds or opens anything
//  (a check-config checks the keys too); every reason in *errors_p
static void
s_check_all (drover_config_t *config, bool keys, char **errors_p)
{
    s_check_endpoints (config, errors_p);
    s_check_ha (config, errors_p);
    if (keys)
        s_check_keys (config, errors_p);
}

//  --check-config: say every reason, or "config ok" and the warnings;
//  returns the exit status
static int
s_check_config (drover_config_t *config, char *errors)
{
    if (!errors)
        s_check_all (config, true, &errors);
    if (errors) {
        s_say_lines (stderr, "", errors);
        zstr_free (&errors);
        return 2;
    }
    char *idle = drover_config_idle (config);
    if (idle)
        s_say_lines (stdout, "warning: settings that do nothing: ", idle);
    zstr_free (&idle);
    printf ("drover broker: config ok\n");
    return 0;
}

//  Parse the flags, then check the endpoints they leave
int
drover_brokerflags_parse (drover_config_t *config, int argc, char **argv,
                          bool *verbose_p, int *status_p)
{
    s_flags_t flags = { false };
    char *errors = NULL;
    s_parse_flags (config, argc, argv, &flags, &errors);
    *verbose_p = flags.verbose;
    if (flags.help && !flags.usage) {
        zstr_free (&errors);
        s_usage (stdout);
        *status_p = 0;
        return -1;
    }
    if (flags.check_config) {
        *status_p = s_check_config (config, errors);
        return -1;
    }
    if (!errors && flags.print_config) {
        drover_config_print (config, stdout);
        *status_p = 0;
        return -1;
    }
    if (!errors)
        s_check_all (config, false, &errors);
    if (errors) {
        s_say_lines (stderr, "", errors);
        if (flags.usage)
            s_usage (stderr);
        zstr_free (&errors);
        *status_p = 2;
        return -1;
    }
    return 0;
}

//  Read the command line again into config, as at start, saying nothing
int
drover_brokerflags_reread (drover_config_t *config, int argc, char **argv, char **errors_p)
{
    assert (errors_p && !*errors_p);
    s_flags_t flags = { false };
    s_parse_flags (config, argc, argv, &flags, errors_p);
    if (!*errors_p)
        s_check_all (config, true, errors_p);
    return *errors_p? -1: 0;
}
