/*  =========================================================================
    drover_cli_status - `drover status`: the cluster at a glance, composed
    from WORKER LIST, TASK LIST (counts only), SERVICE LIST and QUEUES; with
    several brokers, each one's part first (drover_cli_brokers.c). Text for
    people; --json gives one JSON document for machines.
    =========================================================================
*/

#include "drover_cli.h"
#include "drover_why.h"

//  Print status' usage
static void
s_status_usage (FILE *stream)
{
    fprintf (stream,
        "usage: drover status [--json]\n"
        "\n"
        "The cluster at a glance: workers up (busy: running something; idle), on\n"
        "probation, low on disk, held, draining, and those lost or left a while ago;\n"
        "procs and memory in use out of what the workers taking work offer (held,\n"
        "draining and gone workers are not counted in it; what runs on held or\n"
        "draining ones is said apart), tasks by state, services by state with their\n"
        "replicas running of those wanted. --json prints one JSON document instead.\n"
        "\n"
        "With several brokers (--broker or DROVER_BROKER: tcp://a:5555,tcp://b:5555)\n"
        "it first asks each one directly, all at once, for up to a second: leader\n"
        "(it serves), standby (it redirects; the leader it names) or unreachable;\n"
        "it warns if they disagree on the leader (a split view). The rest comes\n"
        "from the leader; if none answers, status fails then. --json: \"brokers\":\n"
        "[{endpoint, state, leader_name, leader}].\n"
        "\n"
        "Named queues, if the brokers offer any, come next: one line each, its name,\n"
        "the broker that serves it and where. --json: \"queues\": [{name, owner,\n"
        "owner_endpoint, token, endpoints}].\n");
}

//  What status counts over the worker table
typedef struct {
    uint64_t total, up, busy, idle, probation, low_disk, held, draining, lost, left;
    uint64_t procs, procs_used, mem, mem_used;      //  workers taking work
    uint64_t other_procs_used, other_mem_used;      //  held and draining workers
} s_status_t;

//  Count the worker table
static void
s_status_count (drover_msg_t *workers, s_status_t *count)
{
    memset (count, 0, sizeof *count);
    for (uint32_t index = 0; index < workers->nrows; index++) {
        drover_worker_row_t *row = &workers->worker_rows [index];
        count->total++;
        if (drover_cli_row_gone (row)) {
            if (row->state == DROVER_WORKER_LEFT)
                count->left++;
            else
                count->lost++;
            continue;
        }
        count->up++;
        if (row->procs_used > 0 || row->tasks > 0)
            count->busy++;
        else
            count->idle++;
        count->probation += row->health == DROVER_HEALTH_PROBATION;
        count->low_disk += row->health == DROVER_HEALTH_LOW_DISK;
        count->held += row->admin == DROVER_ADMIN_HOLD;
        count->draining += row->admin == DROVER_ADMIN_DRAIN;
        if (row->admin == DROVER_ADMIN_RUN) {
            count->procs += row->procs;
            count->procs_used += row->procs_used;
            count->mem += row->mem;
            count->mem_used += row->mem_used;
        }
        else {
            count->other_procs_used += row->procs_used;
            count->other_mem_used += row->mem_used;
        }
    }
}

//  Services by state and their replicas, off a SERVICE TABLE
typedef struct {
    uint64_t total;             //  services defined
    uint64_t states [DROVER_SERVICE_STATE_MAX + 1];     //  by drover_service_state_t
    uint64_t wanted;            //  replicas wanted
    uint64_t running;           //  replicas running
    uint64_t pending;           //  replicas started, not running yet
} s_services_t;

//  Count a SERVICE TABLE's services (none if table is NULL: an older
//  broker, or no answer)
static void
s_services_count (const drover_msg_t *table, s_services_t *count)
{
    memset (count, 0, sizeof *count);
    for (uint32_t index = 0; table && index < table->nservices; index++) {
        const drover_service_row_t *row = &table->service_rows [index];
        count->total++;
        if (row->state <= DROVER_SERVICE_STATE_MAX)
            count->states [row->state]++;
        count->wanted += row->replicas;
        count->running += row->running;
        count->pending += row->pending;
    }
}

//  Print status as JSON
static void
s_status_json (drover_client_t *client, drover_cli_brokers_t *brokers, s_status_t *count,
               drover_msg_t *tasks, const s_services_t *services, const drover_msg_t *queues)
{
    char name [16];
    printf ("{\"broker\":");
    drover_cli_json_string (stdout, drover_client_endpoint (client));
    if (brokers) {
        printf (",\"brokers\":");
        drover_cli_brokers_print_json (brokers, stdout);
    }
    printf (",\"queues\":");
    drover_cli_queues_print_json (queues, stdout);
    printf (",\"workers\":{\"total\":%llu,\"up\":%llu,\"busy\":%llu,\"idle\":%llu,"
            "\"probation\":%llu,\"low_disk\":%llu,\"held\":%llu,\"draining\":%llu,"
            "\"lost\":%llu,\"left\":%llu}",
            (unsigned long long) count->total, (unsigned long long) count->up,
            (unsigned long long) count->busy, (unsigned long long) count->idle,
            (unsigned long long) count->probation, (unsigned long long) count->low_disk,
            (unsigned long long) count->held, (unsigned long long) count->draining,
            (unsigned long long) count->lost, (unsigned long long) count->left);
    printf (",\"procs\":{\"used\":%llu,\"total\":%llu,\"used_held_or_draining\":%llu}",
            (unsigned long long) count->procs_used, (unsigned long long) count->procs,
            (unsigned long long) count->other_procs_used);
    printf (",\"memory\":{\"used\":%llu,\"total\":%llu,\"used_held_or_draining\":%llu}",
            (unsigned long long) count->mem_used, (unsigned long long) count->mem,
            (unsigned long long) count->other_mem_used);
    printf (",\"tasks\":{");
    for (int state = 0; state < DROVER_TASK_UNKNOWN; state++)
        printf ("%s\"%s\":%llu", state? ",": "",
                drover_cli_lower (drover_task_state_name (state), name, sizeof name),
                (unsigned long long) tasks->counts [state]);
    printf ("},\"services\":{\"total\":%llu", (unsigned long long) services->total);
    for (int state = 0; state <= DROVER_SERVICE_STATE_MAX; state++)
        printf (",\"%s\":%llu", drover_service_state_name (state),
                (unsigned long long) services->states [state]);
    printf (",\"replicas_wanted\":%llu,\"replicas_running\":%llu,\"replicas_pending\":%llu}}\n",
            (unsigned long long) services->wanted, (unsigned long long) services->running,
            (unsigned long long) services->pending);
}

//  Print status for people
static void
s_status_text (drover_client_t *client, s_status_t *count, drover_msg_t *tasks,
               const s_services_t *services)
{
    char used [16], total [16], other [16];
    drover_why_bytes (count->mem_used, used, sizeof used);
    drover_why_bytes (count->mem, total, sizeof total);
    drover_why_bytes (count->other_mem_used, other, sizeof other);
    printf ("broker:  %s\n", drover_client_endpoint (client));
    printf ("workers: %llu up (%llu busy, %llu idle; %llu on probation, %llu low on disk, "
            "%llu held, %llu draining), %llu lost, %llu left\n",
            (unsigned long long) count->up, (unsigned long long) count->busy,
            (unsigned long long) count->idle, (unsigned long long) count->probation,
            (unsigned long long) count->low_disk, (unsigned long long) count->held,
            (unsigned long long) count->draining, (unsigned long long) count->lost,
            (unsigned long long) count->left);
    printf ("procs:   %llu/%llu in use", (unsigned long long) count->procs_used,
            (unsigned long long) count->procs);
    if (count->held + count->draining > 0)
        printf (", and %llu on held or draining workers",
                (unsigned long long) count->other_procs_used);
    printf ("\nmemory:  %s/%s reserved", used, total);
    if (count->held + count->draining > 0)
        printf (", and %s on held or draining workers", other);
    printf ("\n");
    drover_cli_print_counts ("tasks:   ", tasks->counts);
    if (services->total)
        printf ("services: %llu (%llu ok, %llu under, %llu over, %llu lost, %llu crashing); "
                "replicas %llu of %llu running, %llu pending\n",
                (unsigned long long) services->total,
                (unsigned long long) services->states [DROVER_SERVICE_OK],
                (unsigned long long) services->states [DROVER_SERVICE_UNDER],
                (unsigned long long) services->states [DROVER_SERVICE_OVER],
                (unsigned long long) services->states [DROVER_SERVICE_LOST],
                (unsigned long long) services->states [DROVER_SERVICE_CRASHING],
                (unsigned long long) services->running, (unsigned long long) services->wanted,
                (unsigned long long) services->pending);
}

//  drover status: composed from WORKER LIST, TASK LIST (counts only) and
//  SERVICE LIST; with several brokers, each one's part first
int
drover_cli_status (int argc, char **argv)
{
    bool json = false;
    int rc = drover_cli_parse_simple ("status", argc, argv, &json, s_status_usage);
    if (rc)
        return rc == DROVER_CLI_HELP? DROVER_EXIT_OK: rc;
    if (optind < argc)
        return drover_cli_usage_error ("status", "unexpected argument '%s'", argv [optind]);
    drover_cli_brokers_t *brokers = NULL;
    rc = drover_cli_brokers_ask ("status", &brokers);
    if (rc)
        return rc;
    drover_client_t *client = drover_cli_brokers_connect ("status", brokers);
    if (!client) {
        drover_cli_brokers_destroy (&brokers);
        return DROVER_EXIT_USAGE;
    }
    char *warning = brokers? drover_cli_brokers_warning (brokers): NULL;
    if (warning)
        fprintf (stderr, "drover status: warning: %s\n", warning);
    zstr_free (&warning);
    if (brokers && !json)
        drover_cli_brokers_print (brokers, stdout);     //  even if no leader answers
    if (brokers && drover_cli_brokers_answered (brokers) == 0) {
        //  Not 15 s more of the client moving between dead brokers
        fprintf (stderr, "drover: status: no broker of the list answered within %d msec\n",
                 drover_cli_brokers_timeout ());
        drover_cli_brokers_destroy (&brokers);
        drover_client_destroy (&client);
        return DROVER_EXIT_FAILED;
    }
    drover_msg_t *workers = drover_client_worker_table (client);
    drover_msg_t *tasks = workers? drover_client_task_table (client, 255, 0, NULL, 0): NULL;
    //  A broker older than services answers SERVICE LIST with an error:
    //  then no service is shown
    drover_msg_t *table = tasks? drover_client_services (client, NULL): NULL;
    //  Any broker answers QUEUES; one older than it, with an error: none shown
    drover_msg_t *queues = tasks? drover_client_queues (client): NULL;
    if (!workers || !tasks)
        rc = drover_cli_error (client, "status");
    else {
        s_status_t count;
        s_status_count (workers, &count);
        s_services_t services;
        s_services_count (table, &services);
        if (json)
            s_status_json (client, brokers, &count, tasks, &services, queues);
        else {
            drover_cli_queues_print (queues, stdout);   //  after the brokers, if any
            s_status_text (client, &count, tasks, &services);
        }
    }
    drover_msg_destroy (&queues);
    drover_msg_destroy (&table);
    drover_msg_destroy (&tasks);
    drover_msg_destroy (&workers);
    drover_cli_brokers_destroy (&brokers);
    drover_client_destroy (&client);
    return rc;
}
