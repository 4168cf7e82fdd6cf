/*  =========================================================================
    drover_brokerflags - the `drover broker` command line (see the header)
    =========================================================================
*/

#include "drover_brokerflags.h"
#include "drover_sharespec.h"
#include "drover_queuespec.h"
#include "drover_defaults.h"
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
        "  -v, --verbose              log each command the actors handle\n"
        "  -h, --help                 this help\n"
        "Flags override the file. SIGINT or SIGTERM shut the broker down cleanly.\n");
}

//  Apply one --set SECTION/KEY=VALUE override
static int
s_apply_override (drover_config_t *config, const char *assignment)
{
    char *error = NULL;
    int rc = drover_config_set_assignment (config, assignment, &error);
    if (rc)
        fprintf (stderr, "drover broker: --set %s\n", error);
    zstr_free (&error);
    return rc;
}

//  Parse flags into config; returns -1 to exit with status *status_p
static int
s_parse_flags (drover_config_t *config, int argc, char **argv, bool *verbose_p, int *status_p)
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
        { "verbose",      no_argument,       NULL, 'v' },
        { "help",         no_argument,       NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    //  The file is read first wherever -c stands, so flags override it
    optind = 1;
    int option;
    while ((option = getopt_long (argc, argv, "c:e:E:d:vh", options, NULL)) != -1)
        if (option == 'c') {
            char *error = NULL;
            if (drover_config_load (config, optarg, &error)) {
                fprintf (stderr, "drover broker: %s\n", error);
                zstr_free (&error);
                *status_p = 2;
                return -1;
            }
        }
    optind = 1;
    bool print_config = false;
    while ((option = getopt_long (argc, argv, "c:e:E:d:vh", options, NULL)) != -1) {
        char *error = NULL;
        int rc = 0;
        if (option == 'e')
            rc = drover_config_set (config, "broker/endpoint", optarg, &error);
        else
        if (option == 'E')
            rc = drover_config_set (config, "broker/events", optarg, &error);
        else
        if (option == 'd')
            rc = drover_config_set (config, "broker/state-dir", optarg, &error);
        else
        if (option == 'D')
            rc = drover_config_set (config, "broker/durability", optarg, &error);
        else
        if (option == 'T')
            rc = drover_config_set (config, "ha/etcd", optarg, &error);
        else
        if (option == 'N')
            rc = drover_config_set (config, "ha/name", optarg, &error);
        else
        if (option == 'A')
            rc = drover_config_set (config, "ha/advertise", optarg, &error);
        else
        if (option == 'L')
            rc = drover_config_set (config, "ha/lease-ttl", optarg, &error);
        else
        if (option == 'M')
            rc = drover_config_set (config, "broker/metrics", optarg, &error);
        else
        if (option == 'I')
            config->insecure = 1;
        else
        if (option == 'K')
            rc = drover_config_set (config, "security/key", optarg, &error);
        else
        if (option == 'k')
            rc = drover_config_set (config, "security/keys", optarg, &error);
        else
        if (option == 'S')
            rc = s_apply_override (config, optarg);
        else
        if (option == 'P')
            print_config = true;
        else
        if (option == 'v')
            *verbose_p = true;
        else
        if (option == 'h') {
            s_usage (stdout);
            *status_p = 0;
            return -1;
        }
        else
        if (option != 'c') {
            s_usage (stderr);
            *status_p = 2;
            return -1;
        }
        if (error)
            fprintf (stderr, "drover broker: %s\n", error);
        zstr_free (&error);
        if (rc) {
            *status_p = 2;
            return -1;
        }
    }
    if (optind < argc) {
        fprintf (stderr, "drover broker: unexpected argument '%s'\n", argv [optind]);
        *status_p = 2;
        return -1;
    }
    if (print_config) {
        drover_config_print (config, stdout);
        *status_p = 0;
        return -1;
    }
    return 0;
}

//  Refuse endpoints that would expose the workers, unless CURVE guards
//  them or the operator said --insecure, and settings that would do
//  nothing (drover_config_check_together)
static int
s_check_endpoints (drover_config_t *config)
{
    const char *endpoints [] = { config->endpoint, config->events };
    bool open = config->insecure || *config->security_key;
    for (int index = 0; index < 2; index++) {
        char *error = NULL;
        if (drover_config_check_endpoint (endpoints [index], open, &error)) {
            fprintf (stderr, "drover broker: %s\n", error);
            zstr_free (&error);
            return -1;
        }
    }
    char *error = NULL;
    if (drover_config_check_metrics (config->metrics, config->metrics_public, &error)
    ||  drover_config_check_pool (config, &error)
    ||  drover_config_check_together (config, &error)
    ||  drover_sharespec_check (config->share_accounts, config->share_weights,
                                config->share_quotas, &error)) {
        fprintf (stderr, "drover broker: %s\n", error);
        zstr_free (&error);
        return -1;
    }
    return 0;
}

//  Check the named queues: a valid list, on ports apart from the broker's
//  own, which end with a port each queue's can replace
static int
s_check_queues (drover_config_t *config)
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
    if (!error)
        return 0;
    fprintf (stderr, "drover broker: %s\n", error);
    zstr_free (&error);
    return -1;
}

//  Check the settings of several brokers: a shared state, a name and an
//  endpoint peers can reach; fills in the defaults ("" name, advertise)
static int
s_check_ha (drover_config_t *config)
{
    if (!*config->ha.etcd) {
        if (!*config->ha.queues)
            return 0;
        fprintf (stderr, "drover broker: ha/queues needs several brokers: set ha/etcd too\n");
        return -1;
    }
    const char *error = NULL;
    if (strncmp (config->ha.etcd, "http://", 7) && strncmp (config->ha.etcd, "https://", 8))
        error = "ha/etcd: give etcd's client URLs, e.g. http://127.0.0.1:2379";
    else
    if (strncmp (config->state_dir, "postgresql://", 13)
    &&  strncmp (config->state_dir, "postgres://", 11))
        error = "ha/etcd needs a state every broker shares: --state postgresql://USER@HOST/DB";
    else
    if (streq (config->durability, "off"))
        error = "ha/etcd needs a kept state: broker/durability full or batch, not off";
    if (error) {
        fprintf (stderr, "drover broker: %s\n", error);
        return -1;
    }
    if (!*config->ha.name) {
        char host [256] = "";
        gethostname (host, sizeof host - 1);
        free (config->ha.name);
        config->ha.name = strdup (*host? host: "broker");
    }
    if (!*config->ha.advertise) {
        if (strchr (config->endpoint, '*')) {
            fprintf (stderr, "drover broker: broker/endpoint %s binds every address: say which "
                     "one peers reach with --advertise tcp://HOST:PORT\n", config->endpoint);
            return -1;
        }
        free (config->ha.advertise);
        config->ha.advertise = strdup (config->endpoint);
    }
    return s_check_queues (config);
}

//  Parse the flags, then check the endpoints they leave
int
drover_brokerflags_parse (drover_config_t *config, int argc, char **argv,
                          bool *verbose_p, int *status_p)
{
    if (s_parse_flags (config, argc, argv, verbose_p, status_p))
        return -1;              //  *status_p says how to exit
    if (s_check_endpoints (config) || s_check_ha (config)) {
        *status_p = 2;
        return -1;
    }
    return 0;
}
