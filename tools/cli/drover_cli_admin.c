/*  =========================================================================
    drover_cli_admin - the operator's subcommands: workers, tasks, hold /
    drain / resume (status: drover_cli_status.c; cancel:
    drover_cli_cancel.c; events: drover_cli_events.c), and the helpers
    status shares with them. Tables are aligned for people; --json gives
    one JSON document for machines.
    =========================================================================
*/

#include "drover_cli.h"
#include "drover_why.h"
#include <ctype.h>

//  Parse flags that only take the common options plus --json; returns 0,
//  DROVER_CLI_HELP, or an exit status
int
drover_cli_parse_simple (const char *command, int argc, char **argv, bool *json_p,
                         void (*usage) (FILE *stream))
{
    static struct option long_options [] = {
        { "json", no_argument, NULL, 'j' },
        DROVER_CLI_COMMON_OPTIONS,
        DROVER_CLI_KEY_OPTION,
        { NULL, 0, NULL, 0 }
    };
    optind = 0;
    opterr = 0;
    int option;
    while ((option = getopt_long (argc, argv, ":hj", long_options, NULL)) != -1) {
        if (option == 'h') {
            usage (stdout);
            return DROVER_CLI_HELP;
        }
        else
        if (option == 'j' && json_p)
            *json_p = true;
        else {
            if (option == 'j')
                option = '?';           //  --json is not for this command
            int rc = drover_cli_common_option (command, option, argv);
            if (rc)
                return rc;
        }
    }
    return 0;
}

//  Format bytes for people: 512B, 64K, 1.5G
static void
s_human (uint64_t bytes, char *buffer, size_t size)
{
    drover_why_bytes (bytes, buffer, size);
}

//  Lower-case a name into buffer (for JSON values)
const char *
drover_cli_lower (const char *name, char *buffer, size_t size)
{
    size_t index = 0;
    for (; name [index] && index + 1 < size; index++)
        buffer [index] = (char) tolower ((unsigned char) name [index]);
    buffer [index] = 0;
    return buffer;
}


//  ---------------------------------------------------------------------
//  drover hold | drain | resume WORKER...

//  Print the usage of hold, drain and resume
static void
s_admin_usage (FILE *stream)
{
    fprintf (stream,
        "usage: drover hold WORKER... [--reason TEXT]     keep running tasks, take no new ones\n"
        "       drover drain WORKER... [--reason TEXT] [--exit]\n"
        "                                                 take no new tasks; stay connected and\n"
        "                                                 idle once they end (--exit: then leave)\n"
        "       drover resume WORKER... [--reason TEXT]   take tasks again\n"
        "\n"
        "The setting and its reason are kept by worker id: across the worker's\n"
        "reconnects and restarts, and across the broker's restarts when it keeps\n"
        "its state. A worker not connected now may be held or drained: the setting\n"
        "waits for it to join. drover workers shows them (ADMIN, REASON).\n");
}

//  Parse hold, drain and resume's flags; returns 0, DROVER_CLI_HELP, or an
//  exit status
static int
s_parse_admin (const char *command, int argc, char **argv, const char **reason_p,
               uint32_t *flags_p)
{
    static struct option long_options [] = {
        { "reason", required_argument, NULL, 'r' },
        { "exit", no_argument, NULL, 'x' },
        DROVER_CLI_COMMON_OPTIONS,
        DROVER_CLI_KEY_OPTION,
        { NULL, 0, NULL, 0 }
    };
    optind = 0;
    opterr = 0;
    int option;
    while ((option = getopt_long (argc, argv, ":hr:", long_options, NULL)) != -1) {
        if (option == 'h') {
            s_admin_usage (stdout);
            return DROVER_CLI_HELP;
        }
        else
        if (option == 'r') {
            if (strlen (optarg) > DROVER_REASON_MAX)
                return drover_cli_usage_error (command, "a reason is at most %d bytes",
                                               DROVER_REASON_MAX);
            *reason_p = optarg;
        }
        else
        if (option == 'x' && streq (command, "drain"))
            *flags_p |= DROVER_ADMIN_EXIT;
        else {
            if (option == 'x')
                option = '?';           //  --exit is drain's
            int rc = drover_cli_common_option (command, option, argv);
            if (rc)
                return rc;
        }
    }
    return 0;
}

//  Say why the broker refused an admin command (403): its reason names
//  the wire message, WORKER ADMIN; the user typed `drover COMMAND`
static int
s_forbidden (drover_client_t *client, const char *what, const char *command)
{
    const char *text = drover_client_error_text (client);
    const char *wire = drover_msg_name (DROVER_MSG_WORKER_ADMIN);
    const char *at = strstr (text, wire);
    if (!at)
        return drover_cli_error (client, what);
    fprintf (stderr, "drover: %s: forbidden (%d): %.*sdrover %s%s\n", what,
             DROVER_CODE_FORBIDDEN, (int) (at - text), text, command, at + strlen (wire));
    return DROVER_EXIT_FAILED;
}

//  drover hold | drain | resume: argv [0] says which
int
drover_cli_admin (int argc, char **argv)
{
    const char *command = argv [0];
    int admin = streq (command, "hold")? DROVER_ADMIN_HOLD
              : streq (command, "drain")? DROVER_ADMIN_DRAIN: DROVER_ADMIN_RUN;
    const char *reason = NULL;
    uint32_t flags = 0;
    int rc = s_parse_admin (command, argc, argv, &reason, &flags);
    if (rc)
        return rc == DROVER_CLI_HELP? DROVER_EXIT_OK: rc;
    if (optind >= argc)
        return drover_cli_usage_error (command, "which worker? (drover %s WORKER)", command);
    for (int index = optind; index < argc; index++)
        if (!drover_id_valid (argv [index]))
            return drover_cli_usage_error (command, "'%s' is not a worker id", argv [index]);
    drover_client_t *client = drover_cli_connect (command);
    rc = client? DROVER_EXIT_OK: DROVER_EXIT_USAGE;
    for (int index = optind; client && index < argc; index++) {
        char *answer = drover_client_admin_reason (client, argv [index], admin, reason, flags);
        if (answer) {
            const char *wait = strchr (answer, '(');
            printf ("%s: %s%s%s\n", argv [index], admin == DROVER_ADMIN_HOLD? "held"
                    : admin == DROVER_ADMIN_DRAIN? (flags & DROVER_ADMIN_EXIT? "draining, then leaving"
                                                                            : "draining")
                    : "resumed", wait? " ": "", wait? wait: "");
            zstr_free (&answer);
            continue;
        }
        char what [128];
        snprintf (what, sizeof what, "%s %s", command, argv [index]);
        int code = drover_client_error_code (client);
        if (code == DROVER_CODE_FORBIDDEN)
            rc = s_forbidden (client, what, command);
        else
            rc = drover_cli_error (client, what);
        if (code > 0 && code < 300)
            break;
    }
    drover_client_destroy (&client);
    return rc;
}


//  ---------------------------------------------------------------------
//  drover workers [--json]

//  Print workers' usage
static void
s_workers_usage (FILE *stream)
{
    fprintf (stream,
        "usage: drover workers [--json]\n"
        "\n"
        "One row per worker: STATE (up, or lost or left: a worker that went stays\n"
        "listed for schedq/keep-gone), health (ok, probation, low_disk, lost), admin\n"
        "setting (run, hold, drain; drained once a draining worker is idle), SINCE\n"
        "(when it joined, or went), procs and memory reserved by its tasks, its load,\n"
        "host memory, tasks running, the queued task it is kept empty for (RESERVED:\n"
        "a task that fits no worker now has the least loaded one that could hold it\n"
        "reserved, so that smaller tasks cannot take the procs it frees), LEVEL (the\n"
        "protocol level and release its agent said: 1 for an agent of drover 0.1),\n"
        "REASON (why\n"
        "it went, the operator's reason for its setting, when its probation ends),\n"
        "DEVICES (when a worker has counted devices: each one's held/total, gpu 1/4) and\n"
        "labels. --json prints one JSON document instead (times in ISO 8601 UTC), with\n"
        "each worker's heartbeat interval and the silence that makes it LOST, msec\n"
        "(heartbeat_ms, lost_after_ms; 0 for a worker gone). drover show worker ID\n"
        "prints one worker, with those.\n");
}

//  Format msec since the epoch for people, local time: the time of day
//  within a day from now, else the date too ("-" for 0)
static void
s_local_time (uint64_t msec, char *buffer, size_t size)
{
    if (msec == 0) {
        snprintf (buffer, size, "-");
        return;
    }
    time_t seconds = (time_t) (msec / 1000);
    struct tm tm;
    localtime_r (&seconds, &tm);
    int64_t age = zclock_time () - (int64_t) msec;
    strftime (buffer, size, age < 0 || age > 86400000? "%Y-%m-%d %H:%M": "%H:%M:%S", &tm);
}

//  True if a row's worker went (lost or left): a broker before rows said
//  so tells it by health LOST
bool
drover_cli_row_gone (const drover_worker_row_t *row)
{
    return row->state != DROVER_WORKER_UP || row->health == DROVER_HEALTH_LOST;
}

//  The admin setting of a row for people: a draining worker with nothing
//  assigned is drained
static const char *
s_row_admin (const drover_worker_row_t *row, char *buffer, size_t size)
{
    if (row->admin == DROVER_ADMIN_DRAIN && !drover_cli_row_gone (row) && row->procs_used == 0
    &&  row->tasks == 0)
        return snprintf (buffer, size, "drained"), buffer;
    return drover_cli_lower (drover_admin_name (row->admin), buffer, size);
}

//  The REASON of a row for people: why it went, the operator's reason,
//  when its probation ends; "-" for none
static void
s_row_reason (const drover_worker_row_t *row, char *buffer, size_t size)
{
    size_t length = 0;
    buffer [0] = 0;
    if (row->why && drover_cli_row_gone (row))
        length += snprintf (buffer + length, size - length, "%s", row->why);
    if (row->admin_reason && length < size)
        length += snprintf (buffer + length, size - length, "%s%s: %s", length? "; ": "",
                            row->admin == DROVER_ADMIN_HOLD? "held"
                            : row->admin == DROVER_ADMIN_DRAIN? "drain": "admin",
                            row->admin_reason);
    if (row->probation_until && row->health == DROVER_HEALTH_PROBATION && length < size) {
        char until [32];
        s_local_time (row->probation_until, until, sizeof until);
        length += snprintf (buffer + length, size - length, "%son probation until %s",
                            length? "; ": "", until);
    }
    if (length == 0)
        snprintf (buffer, size, "-");
}

//  Print one worker row as a JSON object
static void
s_worker_json (const drover_worker_row_t *row)
{
    char name [16], when [40];
    printf ("{\"id\":");
    drover_cli_json_string (stdout, row->id);
    printf (",\"state\":\"%s\"",
            drover_cli_lower (drover_worker_state_name (drover_cli_row_gone (row)
            && row->state == DROVER_WORKER_UP? DROVER_WORKER_LOST: row->state), name,
            sizeof name));
    drover_cli_iso_time (row->since, true, when, sizeof when);
    printf (",\"since\":");
    drover_cli_json_string (stdout, when);
    printf (",\"why\":");
    drover_cli_json_string (stdout, row->why? row->why: "");
    printf (",\"health\":\"%s\"",
            drover_cli_lower (drover_worker_health_name (row->health), name, sizeof name));
    printf (",\"admin\":\"%s\"",
            drover_cli_lower (drover_admin_name (row->admin), name, sizeof name));
    printf (",\"admin_reason\":");
    drover_cli_json_string (stdout, row->admin_reason? row->admin_reason: "");
    drover_cli_iso_time (row->admin_since, true, when, sizeof when);
    printf (",\"admin_since\":");
    drover_cli_json_string (stdout, when);
    drover_cli_iso_time (row->probation_until, true, when, sizeof when);
    printf (",\"probation_until\":");
    drover_cli_json_string (stdout, when);
    printf (",\"tasks\":%u", row->tasks);
    printf (",\"procs\":%u,\"procs_used\":%u,\"mem\":%llu,\"mem_used\":%llu,\"labels\":[",
            row->procs, row->procs_used, (unsigned long long) row->mem,
            (unsigned long long) row->mem_used);
    for (uint32_t label = 0; label < row->nlabels && label < DROVER_LABELS_MAX; label++) {
        printf ("%s", label? ",": "");
        drover_cli_json_string (stdout, row->labels [label]);
    }
    printf ("],\"stats\":{\"load\":[%.2f,%.2f,%.2f],\"mem_used\":%llu,\"mem_total\":%llu,"
            "\"disk_used\":%llu,\"disk_total\":%llu,\"running\":%u}",
            row->stats.load [0], row->stats.load [1], row->stats.load [2],
            (unsigned long long) row->stats.mem_used, (unsigned long long) row->stats.mem_total,
            (unsigned long long) row->stats.disk_used, (unsigned long long) row->stats.disk_total,
            row->stats.running);
    printf (",\"reserved\":%llu", (unsigned long long) row->reserved);
    printf (",\"level\":%u,\"release\":", row->level);
    drover_cli_json_string (stdout, row->release);
    printf (",\"devices\":");
    drover_cli_json_string (stdout, row->devices? row->devices: "");
    printf (",\"devices_used\":");
    drover_cli_json_string (stdout, row->devices_used? row->devices_used: "");
    //  Level 6: its heartbeat interval and the silence that makes it
    //  LOST, msec (0: a worker gone, or a broker before level 6)
    printf (",\"heartbeat_ms\":%u,\"lost_after_ms\":%llu", row->heartbeat,
            (unsigned long long) row->lost_after);
    //  Level 9: the offers it may be sent past its free procs, and those
    //  it holds unstarted now (counted in tasks)
    printf (",\"ahead\":%u,\"held\":%u", row->ahead, row->held);
    printf ("}");
}

//  Print the worker table as JSON
static void
s_workers_json (drover_msg_t *table)
{
    printf ("{\"workers\":[");
    for (uint32_t index = 0; index < table->nrows; index++) {
        printf ("%s", index? ",": "");
        s_worker_json (&table->worker_rows [index]);
    }
    printf ("]}\n");
}

//  Format a worker's devices for people, each "name used/total" joined by
//  spaces ("gpu 1/4 fpga 0/1"); "-" for none
static void
s_row_devices (const drover_worker_row_t *row, char *buffer, size_t size)
{
    drover_device_t total [DROVER_DEVICES_MAX], used [DROVER_DEVICES_MAX];
    int count = drover_devicelist_parse (row->devices, total, NULL);
    int taken = drover_devicelist_parse (row->devices_used, used, NULL);
    snprintf (buffer, size, "-");
    size_t length = 0;
    for (int index = 0; index < count; index++)
        length += snprintf (buffer + length, size - length, "%s%s %u/%u", index? " ": "",
                            total [index].name,
                            taken > 0? drover_devicelist_count (used, (size_t) taken,
                                                                total [index].name): 0,
                            total [index].count);
}

//  Print the worker table for people: the workers here, then those that
//  went; a DEVICES column when a worker has devices
static void
s_workers_text (drover_msg_t *table)
{
    bool devices = false;
    for (uint32_t index = 0; index < table->nrows; index++)
        devices |= table->worker_rows [index].devices != NULL;
    int columns = devices? 15: 14;
    drover_cli_table_t text;
    drover_cli_table_init (&text, columns);
    const char *header [] = { "WORKER", "STATE", "HEALTH", "ADMIN", "SINCE", "PROCS", "MEM",
                              "LOAD", "HOST-MEM", "RUNNING", "RESERVED", "LEVEL", "REASON",
                              devices? "DEVICES": "LABELS", "LABELS" };
    drover_cli_table_add (&text, header);
    for (int pass = 0; pass < 2; pass++)
    for (uint32_t index = 0; index < table->nrows; index++) {
        drover_worker_row_t *row = &table->worker_rows [index];
        if (drover_cli_row_gone (row) != (pass == 1))
            continue;
        char state [16], health [16], admin [16], since [32], procs [32], mem [48], used [16];
        char total [16], load [16], host [48], running [16], reserved [24] = "-";
        char level [DROVER_RELEASE_MAX + 16] = "-";
        char reason [3 * DROVER_REASON_MAX + 64];
        char labels [DROVER_LABELS_MAX * (DROVER_LABEL_MAX + 1) + 2] = "-";
        drover_cli_lower (drover_worker_state_name (pass && row->state == DROVER_WORKER_UP
                                           ? DROVER_WORKER_LOST: row->state), state, sizeof state);
        drover_cli_lower (drover_worker_health_name (row->health), health, sizeof health);
        s_row_admin (row, admin, sizeof admin);
        s_local_time (row->since, since, sizeof since);
        snprintf (procs, sizeof procs, "%u/%u", row->procs_used, row->procs);
        s_human (row->mem_used, used, sizeof used);
        s_human (row->mem, total, sizeof total);
        snprintf (mem, sizeof mem, "%s/%s", used, total);
        snprintf (load, sizeof load, "%.2f", row->stats.load [0]);
        s_human (row->stats.mem_used, used, sizeof used);
        s_human (row->stats.mem_total, total, sizeof total);
        snprintf (host, sizeof host, "%s/%s", used, total);
        //  The broker's count of what it assigned, as PROCS is: the
        //  heartbeat's may lag (a broker before rows had it: that one)
        snprintf (running, sizeof running, "%u", row->since? row->tasks: row->stats.running);
        if (row->since && row->held && row->held <= row->tasks)     //  "2+1": one held ahead
            snprintf (running, sizeof running, "%u+%u", row->tasks - row->held, row->held);
        if (row->reserved)
            snprintf (reserved, sizeof reserved, "%llu", (unsigned long long) row->reserved);
        if (row->level)
            snprintf (level, sizeof level, "%u%s%s%s", row->level, *row->release? " (": "",
                      row->release, *row->release? ")": "");
        s_row_reason (row, reason, sizeof reason);
        size_t length = 0;
        for (uint32_t label = 0; label < row->nlabels && label < DROVER_LABELS_MAX; label++)
            length += snprintf (labels + length, sizeof labels - length, "%s%s",
                                label? ",": "", row->labels [label]);
        char used_devices [DROVER_DEVICES_MAX * (DROVER_DEVICE_NAME_MAX + 24) + 2];
        s_row_devices (row, used_devices, sizeof used_devices);
        const char *cells [] = { row->id, state, health, admin, since, procs, mem, load, host,
                                 running, reserved, level, reason,
                                 devices? used_devices: labels, labels };
        drover_cli_table_add (&text, cells);
    }
    drover_cli_table_print (&text);
    if (table->nrows == 0)
        printf ("(no workers)\n");
}

//  drover workers: the worker table, for people or as JSON
int
drover_cli_workers (int argc, char **argv)
{
    bool json = false;
    int rc = drover_cli_parse_simple ("workers", argc, argv, &json, s_workers_usage);
    if (rc)
        return rc == DROVER_CLI_HELP? DROVER_EXIT_OK: rc;
    if (optind < argc)
        return drover_cli_usage_error ("workers", "unexpected argument '%s'", argv [optind]);
    drover_client_t *client = drover_cli_connect ("workers");
    if (!client)
        return DROVER_EXIT_USAGE;
    drover_msg_t *table = drover_client_worker_table (client);
    if (!table)
        rc = drover_cli_error (client, "workers");
    else
    if (json)
        s_workers_json (table);
    else
        s_workers_text (table);
    drover_msg_destroy (&table);
    drover_client_destroy (&client);
    return rc;
}


//  ---------------------------------------------------------------------
//  drover show worker ID [--json]

//  Print show worker's usage
static void
s_show_worker_usage (FILE *stream)
{
    fprintf (stream,
        "usage: drover show worker [-j|--json] ID\n"
        "\n"
        "Prints one worker as the broker lists it (drover workers): its state, health,\n"
        "admin setting and reasons, procs, memory and devices (reserved of offered),\n"
        "load, host memory and disk, tasks, the task it is kept for, its protocol\n"
        "level and release, labels, and its heartbeat: the interval the broker told it\n"
        "(it grows with the fleet: health/heartbeat-rate) and the silence after which\n"
        "it is declared LOST (lost-after times the heartbeats the interval spans; none\n"
        "is declared LOST during the grace after the broker starts or leads).\n"
        "\n"
        "  -j, --json     one JSON object, as one of drover workers --json\n"
        "\n"
        "Exit status 1 if no worker of that id is listed.\n");
}

//  Print one worker for people: aligned "field: value" lines
static void
s_show_worker_text (const drover_worker_row_t *row)
{
    char state [16], health [16], admin [16], since [32], used [16], total [16];
    char reason [3 * DROVER_REASON_MAX + 64], devices [DROVER_DEVICES_MAX * (DROVER_DEVICE_NAME_MAX + 24) + 2];
    bool gone = drover_cli_row_gone (row);
    drover_cli_lower (drover_worker_state_name (gone && row->state == DROVER_WORKER_UP
                                                ? DROVER_WORKER_LOST: row->state),
                      state, sizeof state);
    drover_cli_lower (drover_worker_health_name (row->health), health, sizeof health);
    s_row_admin (row, admin, sizeof admin);
    s_local_time (row->since, since, sizeof since);
    s_row_reason (row, reason, sizeof reason);
    s_row_devices (row, devices, sizeof devices);
    printf ("worker:       %s\n", row->id);
    printf ("state:        %s\n", state);
    printf ("since:        %s\n", since);
    printf ("health:       %s\n", health);
    printf ("admin:        %s\n", admin);
    printf ("reason:       %s\n", reason);
    s_human (row->mem_used, used, sizeof used);
    s_human (row->mem, total, sizeof total);
    printf ("procs:        %u/%u\n", row->procs_used, row->procs);
    printf ("memory:       %s/%s\n", used, total);
    printf ("devices:      %s\n", devices);
    printf ("tasks:        %u\n", row->since? row->tasks: row->stats.running);
    printf ("load:         %.2f %.2f %.2f\n", row->stats.load [0], row->stats.load [1],
            row->stats.load [2]);
    s_human (row->stats.mem_used, used, sizeof used);
    s_human (row->stats.mem_total, total, sizeof total);
    printf ("host memory:  %s/%s\n", used, total);
    s_human (row->stats.disk_used, used, sizeof used);
    s_human (row->stats.disk_total, total, sizeof total);
    printf ("disk:         %s/%s\n", used, total);
    if (row->reserved)
        printf ("reserved for: task %llu\n", (unsigned long long) row->reserved);
    else
        printf ("reserved for: -\n");
    if (row->level)
        printf ("level:        %u%s%s%s\n", row->level, *row->release? " (": "", row->release,
                *row->release? ")": "");
    else
        printf ("level:        -\n");
    printf ("labels:      ");
    for (uint32_t label = 0; label < row->nlabels && label < DROVER_LABELS_MAX; label++)
        printf (" %s", row->labels [label]);
    printf ("%s\n", row->nlabels? "": " -");
    //  Level 6: 0 for a worker gone, or from a broker before level 6
    if (row->heartbeat)
        printf ("heartbeat:    %u ms\n", row->heartbeat);
    else
        printf ("heartbeat:    -\n");
    if (row->lost_after)
        printf ("lost after:   %llu ms of silence\n", (unsigned long long) row->lost_after);
    else
        printf ("lost after:   -\n");
    //  Level 9: 0 when not granted, or from a broker before level 9
    if (row->ahead)
        printf ("held ahead:   %u (of %u it may be sent past its free procs)\n", row->held,
                row->ahead);
    else
        printf ("held ahead:   -\n");
}

//  drover show worker ID: one worker, for people or as JSON (argv holds
//  "worker" among its arguments)
int
drover_cli_show_worker (int argc, char **argv)
{
    bool json = false;
    int rc = drover_cli_parse_simple ("show worker", argc, argv, &json, s_show_worker_usage);
    if (rc)
        return rc == DROVER_CLI_HELP? DROVER_EXIT_OK: rc;
    if (optind < argc && streq (argv [optind], "worker"))
        optind++;
    if (optind >= argc)
        return drover_cli_usage_error ("show worker", "a worker id is required");
    const char *id = argv [optind++];
    if (optind < argc)
        return drover_cli_usage_error ("show worker", "unexpected argument '%s'", argv [optind]);
    drover_client_t *client = drover_cli_connect ("show worker");
    if (!client)
        return DROVER_EXIT_USAGE;
    drover_msg_t *table = drover_client_worker_table (client);
    if (!table)
        rc = drover_cli_error (client, "show worker");
    else {
        const drover_worker_row_t *found = NULL;
        for (uint32_t index = 0; index < table->nrows && !found; index++)
            if (streq (table->worker_rows [index].id, id))
                found = &table->worker_rows [index];
        if (!found) {
            fprintf (stderr, "drover show worker: no worker %s is listed (not registered, "
                     "or gone longer than schedq/keep-gone)\n", id);
            rc = DROVER_EXIT_FAILED;
        }
        else
        if (json) {
            s_worker_json (found);
            printf ("\n");
        }
        else
            s_show_worker_text (found);
    }
    drover_msg_destroy (&table);
    drover_client_destroy (&client);
    return rc;
}


//  ---------------------------------------------------------------------
//  drover tasks [--state S] [--limit N] [--json]

//  Print tasks' usage
static void
s_tasks_usage (FILE *stream)
{
    fprintf (stream,
        "usage: drover tasks [--state S] [--limit N] [--array ID] [--json]\n"
        "\n"
        "The newest tasks, one row each, then the count of tasks in each state. A\n"
        "queued task that has a worker reserved for it (kept empty until it fits)\n"
        "shows that worker as 'WORKER (reserved)'; REASON says why a queued task\n"
        "waits (drover explain ID says it at length). Queued tasks alone (--state\n"
        "queued) are listed in the order they will run.\n"
        "  -s, --state S  only tasks in state S: queued, assigned, running, succeeded,\n"
        "              failed, cancelled, or all (default)\n"
        "  --limit N   at most N rows (default 50, at most %d; 0 for the counts only)\n"
        "  --array ID  only the members of array (or workflow) ID\n"
        "  -j, --json  one JSON document instead (each row with waits: what a queued\n"
        "              task waits for before the queue, \"after\", \"begin\", \"retry\",\n"
        "              \"array\" or \"group\"; group: its array or workflow, 0 none;\n"
        "              parents: the tasks it waits for)\n", DROVER_ROWS_MAX);
}

//  Return the worker reserved for a queued task (from a WORKER TABLE, may
//  be NULL), or NULL
static const char *
s_reserved_for (drover_msg_t *workers, drover_task_row_t *row)
{
    if (!workers || row->state != DROVER_TASK_QUEUED)
        return NULL;
    for (uint32_t index = 0; index < workers->nrows; index++)
        if (workers->worker_rows [index].reserved == row->task)
            return workers->worker_rows [index].id;
    return NULL;
}

//  Print a task table as JSON
static void
s_tasks_json (drover_msg_t *table, drover_msg_t *workers)
{
    char name [16];
    printf ("{\"counts\":{");
    for (int state = 0; state < DROVER_TASK_UNKNOWN; state++)
        printf ("%s\"%s\":%llu", state? ",": "",
                drover_cli_lower (drover_task_state_name (state), name, sizeof name),
                (unsigned long long) table->counts [state]);
    printf ("},\"tasks\":[");
    for (uint32_t index = 0; index < table->nrows; index++) {
        drover_task_row_t *row = &table->task_rows [index];
        char end [16];
        printf ("%s{\"id\":%llu,\"state\":\"%s\",\"outcome\":\"%s\",\"priority\":%d,"
                "\"procs\":%u,\"attempt\":%u,\"worker\":", index? ",": "",
                (unsigned long long) row->task,
                drover_cli_lower (drover_task_state_name (row->state), name, sizeof name),
                drover_cli_lower (drover_end_name (row->end), end, sizeof end),
                row->priority, row->procs, row->attempt);
        drover_cli_json_string (stdout, row->worker);
        printf (",\"command\":");
        drover_cli_json_string (stdout, row->summary);
        printf (",\"owner\":");
        drover_cli_json_string (stdout, row->owner);
        const char *reserved = s_reserved_for (workers, row);
        printf (",\"reserved\":");
        drover_cli_json_string (stdout, reserved? reserved: "");
        printf (",\"reason\":");
        drover_cli_json_string (stdout, row->reason);
        printf (",\"waits\":");
        drover_cli_json_string (stdout, drover_cli_waits_name (row->waits));
        printf (",\"group\":%llu,\"parents\":%u}", (unsigned long long) row->group,
                row->parents);
    }
    printf ("]}\n");
}

//  Print the counts of tasks by state on one line
void
drover_cli_print_counts (const char *prefix, const uint64_t *counts)
{
    char name [16];
    printf ("%s", prefix);
    for (int state = 0; state < DROVER_TASK_UNKNOWN; state++)
        printf ("%s%llu %s", state? ", ": "", (unsigned long long) counts [state],
                drover_cli_lower (drover_task_state_name (state), name, sizeof name));
    printf ("\n");
}

//  Print a task table for people
static void
s_tasks_text (drover_msg_t *table, drover_msg_t *workers)
{
    if (table->nrows) {
        drover_cli_table_t text;
        drover_cli_table_init (&text, 10);
        const char *header [] = { "TASK", "STATE", "OUTCOME", "PRIO", "PROCS", "ATTEMPT",
                                  "WORKER", "OWNER", "REASON", "COMMAND" };
        drover_cli_table_add (&text, header);
        for (uint32_t index = 0; index < table->nrows; index++) {
            drover_task_row_t *row = &table->task_rows [index];
            char id [24], state [16], end [16], priority [16], procs [16], attempt [16];
            char summary [DROVER_SUMMARY_MAX + 1];
            snprintf (id, sizeof id, "%llu", (unsigned long long) row->task);
            drover_cli_lower (drover_task_state_name (row->state), state, sizeof state);
            if (row->end == DROVER_END_NONE)
                strcpy (end, "-");
            else
                //  one word: "timed_out"
                drover_cli_lower (drover_end_name (row->end), end, sizeof end);
            snprintf (priority, sizeof priority, "%d", row->priority);
            snprintf (procs, sizeof procs, "%u", row->procs);
            snprintf (attempt, sizeof attempt, "%u", row->attempt);
            //  The summary is the peer's text: show it printable only
            const char *source = row->summary? row->summary: "";
            size_t length = 0;
            for (; source [length] && length < DROVER_SUMMARY_MAX; length++)
                summary [length] = isprint ((unsigned char) source [length])? source [length]: '?';
            summary [length] = 0;
            char worker [DROVER_ID_MAX + 16];
            const char *reserved = s_reserved_for (workers, row);
            snprintf (worker, sizeof worker, "%s%s", reserved? reserved: *row->worker? row->worker: "-",
                      reserved? " (reserved)": "");
            const char *owner = *row->owner? row->owner: "-";
            //  A task that waits before the queue says for what first
            char reason [DROVER_ROW_REASON_MAX + 32];
            const char *waits = drover_cli_waits_name (row->waits);
            if (row->state == DROVER_TASK_QUEUED && *waits)
                snprintf (reason, sizeof reason, "waits: %s%s%s", waits,
                          *row->reason? "; ": "", row->reason);
            else
                snprintf (reason, sizeof reason, "%s", *row->reason? row->reason: "-");
            const char *cells [] = { id, state, end, priority, procs, attempt, worker, owner,
                                     reason, summary };
            drover_cli_table_add (&text, cells);
        }
        drover_cli_table_print (&text);
        printf ("\n");
    }
    drover_cli_print_counts ("tasks: ", table->counts);
}

//  drover tasks: the newest rows and the counts, for people or as JSON
int
drover_cli_tasks (int argc, char **argv)
{
    static struct option long_options [] = {
        { "state", required_argument, NULL, 's' },
        { "limit", required_argument, NULL, 'l' },
        { "json", no_argument, NULL, 'j' },
        { "array", required_argument, NULL, 'a' },
        DROVER_CLI_COMMON_OPTIONS,
        DROVER_CLI_KEY_OPTION,
        { NULL, 0, NULL, 0 }
    };
    uint64_t group = 0;
    int state = 255;
    long long limit = 50;
    bool json = false;
    optind = 0;
    opterr = 0;
    int option;
    while ((option = getopt_long (argc, argv, ":hs:j", long_options, NULL)) != -1) {
        if (option == 'h') {
            s_tasks_usage (stdout);
            return DROVER_EXIT_OK;
        }
        else
        if (option == 's') {
            state = drover_cli_parse_state (optarg);
            if (state == -1)
                return drover_cli_usage_error ("tasks", "--state: '%s' is not one of queued, "
                    "assigned, running, succeeded, failed, cancelled, all", optarg);
        }
        else
        if (option == 'l') {
            if (drover_cli_parse_int ("tasks", "--limit", optarg, 0, DROVER_ROWS_MAX, &limit))
                return DROVER_EXIT_USAGE;
        }
        else
        if (option == 'j')
            json = true;
        else
        if (option == 'a') {
            if (drover_cli_parse_id ("tasks", optarg, &group))
                return DROVER_EXIT_USAGE;
        }
        else {
            int rc = drover_cli_common_option ("tasks", option, argv);
            if (rc)
                return rc;
        }
    }
    if (optind < argc)
        return drover_cli_usage_error ("tasks", "unexpected argument '%s'", argv [optind]);
    drover_client_t *client = drover_cli_connect ("tasks");
    if (!client)
        return DROVER_EXIT_USAGE;
    int rc = DROVER_EXIT_OK;
    drover_msg_t *table = group
                        ? drover_client_group_table (client, group, state, (uint32_t) limit)
                        : drover_client_task_table (client, state, (uint32_t) limit, NULL, 0);
    //  Which worker is reserved for a queued task: WORKER LIST says it
    bool queued = false;
    for (uint32_t index = 0; table && index < table->nrows; index++)
        queued |= table->task_rows [index].state == DROVER_TASK_QUEUED;
    drover_msg_t *workers = queued? drover_client_worker_table (client): NULL;
    if (!table)
        rc = drover_cli_error (client, "tasks");
    else
    if (json)
        s_tasks_json (table, workers);
    else
        s_tasks_text (table, workers);
    drover_msg_destroy (&workers);
    drover_msg_destroy (&table);
    drover_client_destroy (&client);
    return rc;
}
