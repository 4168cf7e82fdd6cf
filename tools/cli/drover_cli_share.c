/*  =========================================================================
    drover_cli_share - `drover share`: the accounts and owners that share
    the cluster, their weights, shares, use, waiting tasks and quotas, for
    people or as JSON (SHARE LIST); `drover share set NAME ...` and
    `drover share drop NAME` change them (SHARE ADMIN, an admin's request)
    =========================================================================
*/

#include "drover_cli.h"
#include "drover_why.h"

//  Print share's usage
static void
s_usage (FILE *stream)
{
    fprintf (stream,
        "usage: drover share [--json]                 accounts and owners, shares, use, quotas\n"
        "       drover share set NAME [--weight N] [--members a,b] [--max-procs N]\n"
        "                        [--max-mem SIZE] [--max-queued N] [--max-device gpu=2]...\n"
        "       drover share drop NAME                forget what `share set` set for NAME\n"
        "\n"
        "Every task has an owner (with CURVE its key's name, else `submit --owner`, by\n"
        "default the login name); owners are grouped into accounts (teams), and an owner in\n"
        "no account is an account of its own. Among tasks of the same priority the broker\n"
        "serves first the account furthest below its fair share: its weight over the\n"
        "weights of the accounts with work. Use is measured over procs, memory and devices\n"
        "together: an account's share is its largest fraction of any of them, over its\n"
        "weight (Dominant Resource Fairness). Alone on the cluster an owner gets all of it.\n"
        "\n"
        "One row per account, then one per owner of it (indented): NAME, ACCOUNT, WEIGHT,\n"
        "SHARE (its dominant share now, and of which resource), FAIR (an account's fair\n"
        "share now), PROCS, MEM and DEVICES its running tasks hold, WAITING (in the scheduling\n"
        "queue for room or their turn), QUEUED (in the scheduling queue, with those a\n"
        "running quota holds; not those waiting for parents, a begin time or a retry) and\n"
        "QUOTA.\n"
        "--json prints one JSON document instead.\n"
        "\n"
        "set (an admin's request; kept across restarts) changes an account or an owner:\n"
        "  --weight N           its weight, 1..1000000 (default 1)\n"
        "  --members a,b        an account's owners (\"\" none); left out: kept\n"
        "  --max-procs N        the most procs its tasks run on at once (0: no limit)\n"
        "  --max-mem SIZE       the most memory its running tasks reserve (0: no limit)\n"
        "  --max-queued N       the most tasks it has queued: a submit past it is refused\n"
        "  --max-device NAME=N  the most of a device its running tasks hold (repeatable)\n"
        "Each set replaces every quota: a quota not given is no limit.\n"
        "\n"
        "exit status: 0 ok; 1 refused (not an admin: 403) or the broker did not answer;\n"
        "2 bad flags or arguments.\n");
}

//  Format bytes for people: 512B, 64K, 1.5G
static void
s_human (uint64_t bytes, char *buffer, size_t size)
{
    drover_why_bytes (bytes, buffer, size);
}

//  Format a permille as a percent: "25%", "12.5%"
static void
s_percent (uint32_t permille, char *buffer, size_t size)
{
    if (permille % 10)
        snprintf (buffer, size, "%u.%u%%", permille / 10, permille % 10);
    else
        snprintf (buffer, size, "%u%%", permille / 10);
}

//  Print the shares as one JSON document
static void
s_print_json (const drover_shares_t *shares)
{
    printf ("{\"shares\":[");
    for (size_t index = 0; index < drover_shares_size (shares); index++) {
        const drover_share_entry_t *row = drover_shares_row (shares, index);
        printf ("%s{\"name\":", index? ",": "");
        drover_cli_json_string (stdout, row->name);
        printf (",\"kind\":\"%s\",\"account\":", row->kind == 0? "account"
                                               : row->kind == 1? "owner": "unknown");
        drover_cli_json_string (stdout, row->account);
        printf (",\"weight\":%u,\"share\":%.1f,\"resource\":", row->weight, row->share / 10.0);
        drover_cli_json_string (stdout, row->resource);
        printf (",\"fair\":%.1f,\"procs\":%u,\"mem\":%llu,\"devices\":", row->fair / 10.0,
                row->procs, (unsigned long long) row->mem);
        drover_cli_json_string (stdout, row->devices);
        printf (",\"waiting\":%llu,\"queued\":%llu,\"quota\":",
                (unsigned long long) row->waiting, (unsigned long long) row->queued);
        drover_cli_json_string (stdout, row->quota);
        printf ("}");
    }
    printf ("]}\n");
}

//  Print the shares for people: an aligned table, owners under their account
static void
s_print_text (const drover_shares_t *shares)
{
    if (drover_shares_size (shares) == 0) {
        printf ("(no accounts or owners yet)\n");
        return;
    }
    drover_cli_table_t text;
    drover_cli_table_init (&text, 11);
    const char *header [] = { "NAME", "ACCOUNT", "WEIGHT", "SHARE", "FAIR", "PROCS", "MEM",
                              "DEVICES", "WAITING", "QUEUED", "QUOTA" };
    drover_cli_table_add (&text, header);
    for (size_t index = 0; index < drover_shares_size (shares); index++) {
        const drover_share_entry_t *row = drover_shares_row (shares, index);
        char name [DROVER_ID_MAX + 4], weight [16], share [64], fair [16], procs [16];
        char mem [32], waiting [24], queued [24];
        snprintf (name, sizeof name, "%s%s", row->kind == 1? "  ": "", row->name);
        snprintf (weight, sizeof weight, "%u", row->weight);
        s_percent (row->share, share, sizeof share);
        if (*row->resource)
            snprintf (share + strlen (share), sizeof share - strlen (share), " %s",
                      row->resource);
        if (row->kind == 0)
            s_percent (row->fair, fair, sizeof fair);
        else
            snprintf (fair, sizeof fair, "-");
        snprintf (procs, sizeof procs, "%u", row->procs);
        s_human (row->mem, mem, sizeof mem);
        snprintf (waiting, sizeof waiting, "%llu", (unsigned long long) row->waiting);
        snprintf (queued, sizeof queued, "%llu", (unsigned long long) row->queued);
        const char *cells [] = { name, *row->account? row->account: "-", weight, share, fair,
                                 procs, mem, *row->devices? row->devices: "-", waiting,
                                 queued, *row->quota? row->quota: "-" };
        drover_cli_table_add (&text, cells);
    }
    drover_cli_table_print (&text);
}

//  drover share [--json]: list
static int
s_list (drover_client_t *client)
{
    drover_shares_t *shares = drover_client_shares (client);
    if (!shares)
        return drover_cli_error (client, "share");
    if (drover_cli_globals.json)
        s_print_json (shares);
    else
        s_print_text (shares);
    drover_shares_destroy (&shares);
    return DROVER_EXIT_OK;
}

//  Append a device quota NAME=N to the device list text in devices
//  (size bytes); -1 after saying why
static int
s_add_device (const char *value, char *devices, size_t size)
{
    drover_device_t parsed [DROVER_DEVICES_MAX];
    const char *why = NULL;
    if (drover_devicelist_parse (value, parsed, &why) <= 0)
        return drover_cli_usage_error ("share", "--max-device: '%.64s': %s", value,
                                       why? why: "no NAME=COUNT");
    size_t length = strlen (devices);
    snprintf (devices + length, size - length, "%s%s", length? ",": "", value);
    if (drover_devicelist_parse (devices, parsed, &why) < 0)
        return drover_cli_usage_error ("share", "--max-device: %s", why);
    return 0;
}

//  Parse `share set`'s flags into set (devices: room for its device text)
//  and the common ones. Returns 0, DROVER_CLI_HELP or an exit status.
static int
s_parse_flags (int argc, char **argv, bool setting, drover_share_set_t *set,
               char *devices, size_t size)
{
    static struct option long_options [] = {
        { "json", no_argument, NULL, 'j' },
        { "weight", required_argument, NULL, 'w' },
        { "members", required_argument, NULL, 'M' },
        { "max-procs", required_argument, NULL, 'P' },
        { "max-mem", required_argument, NULL, 'm' },
        { "max-queued", required_argument, NULL, 'Q' },
        { "max-device", required_argument, NULL, 'D' },
        DROVER_CLI_COMMON_OPTIONS,
        DROVER_CLI_KEY_OPTION,
        { NULL, 0, NULL, 0 }
    };
    long long value;
    optind = 0;
    opterr = 0;
    int option;
    while ((option = getopt_long (argc, argv, ":hj", long_options, NULL)) != -1) {
        bool set_only = option == 'w' || option == 'M' || option == 'P' || option == 'm'
                     || option == 'Q' || option == 'D';
        if (set_only && !setting)
            return drover_cli_usage_error ("share", "--weight, --members and the --max-... "
                                           "flags go with `share set` only");
        switch (option) {
            case 'h':
                s_usage (stdout);
                return DROVER_CLI_HELP;
            case 'j':
                drover_cli_globals.json = true;
                break;
            case 'w':
                if (drover_cli_parse_int ("share", "--weight", optarg, 1, DROVER_WEIGHT_MAX,
                                          &value))
                    return DROVER_EXIT_USAGE;
                set->weight = (uint32_t) value;
                break;
            case 'M':
                set->members = optarg;
                break;
            case 'P':
                if (drover_cli_parse_int ("share", "--max-procs", optarg, 0, UINT32_MAX, &value))
                    return DROVER_EXIT_USAGE;
                set->max_procs = (uint32_t) value;
                break;
            case 'm':
                if (drover_cli_parse_size ("share", "--max-mem", optarg, &set->max_mem))
                    return DROVER_EXIT_USAGE;
                break;
            case 'Q':
                if (drover_cli_parse_int ("share", "--max-queued", optarg, 0, UINT32_MAX,
                                          &value))
                    return DROVER_EXIT_USAGE;
                set->max_queued = (uint32_t) value;
                break;
            case 'D':
                if (s_add_device (optarg, devices, size))
                    return DROVER_EXIT_USAGE;
                set->max_devices = devices;
                break;
            default: {
                int rc = drover_cli_common_option ("share", option, argv);
                if (rc)
                    return rc;
            }
        }
    }
    return 0;
}

//  drover share: list, or set NAME [flags], or drop NAME
int
drover_cli_share (int argc, char **argv)
{
    //  The action and name come first: `share set NAME --weight 3`
    int action = -1;            //  -1 list, else DROVER_SHARE_SET or DROVER_SHARE_DROP
    const char *name = NULL;
    int skip = 0;
    if (argc > 1 && argv [1][0] != '-') {
        if (streq (argv [1], "set"))
            action = DROVER_SHARE_SET;
        else
        if (streq (argv [1], "drop"))
            action = DROVER_SHARE_DROP;
        else
        if (!streq (argv [1], "list"))
            return drover_cli_usage_error ("share", "unknown action '%s': list, set or drop "
                                           "(see drover share --help)", argv [1]);
        skip = 1;
        if (action >= 0) {
            if (argc < 3 || argv [2][0] == '-')
                return drover_cli_usage_error ("share", "which account or owner? (drover "
                                               "share %s NAME)", argv [1]);
            name = argv [2];
            skip = 2;
            if (!drover_id_valid (name))
                return drover_cli_usage_error ("share", "'%.64s' is not a name (printable, no "
                                               "spaces, 1..64 bytes)", name);
        }
    }
    drover_share_set_t set = { 0 };
    char devices [DROVER_DEVICELIST_TEXT_MAX * 2] = "";
    int rc = s_parse_flags (argc - skip, argv + skip, action == DROVER_SHARE_SET, &set,
                            devices, sizeof devices);
    if (rc)
        return rc == DROVER_CLI_HELP? DROVER_EXIT_OK: rc;
    if (optind < argc - skip)
        return drover_cli_usage_error ("share", "unexpected argument '%s'",
                                       argv [skip + optind]);
    drover_client_t *client = drover_cli_connect ("share");
    if (!client)
        return DROVER_EXIT_USAGE;
    if (action < 0)
        rc = s_list (client);
    else {
        int failed = action == DROVER_SHARE_SET? drover_client_share_set (client, name, &set)
                                               : drover_client_share_drop (client, name);
        char what [128];
        snprintf (what, sizeof what, "share %s %s", action == DROVER_SHARE_SET? "set": "drop",
                  name);
        if (failed)
            rc = drover_cli_error (client, what);
        else
        if (drover_cli_globals.json) {
            printf ("{\"name\":");
            drover_cli_json_string (stdout, name);
            printf (",\"action\":\"%s\",\"ok\":true}\n",
                    action == DROVER_SHARE_SET? "set": "drop");
        }
        else
            printf ("%s: %s\n", name, action == DROVER_SHARE_SET? "set": "dropped");
        rc = failed? rc: DROVER_EXIT_OK;
    }
    drover_client_destroy (&client);
    return rc;
}
