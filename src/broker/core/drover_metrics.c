/*  =========================================================================
    drover_metrics - one snapshot of the broker's numbers, and how it is
    written for Prometheus and for the log (see the header)

    The series table below is the whole list of what the broker exposes:
    names follow Prometheus' conventions (a drover_ prefix, base units,
    seconds and bytes, _total on counters; process_ for the process, as
    every client library names them).
    =========================================================================
*/

#include "drover_metrics.h"
#include "drover_msg.h"

typedef enum { S_GAUGE, S_COUNTER, S_PART } s_type_t;     //  S_PART: of a histogram
                                                            //  written on its own

//  One series: its family, its labels (fixed values) and what it means
typedef struct {
    const char *family;         //  metric name
    const char *labels;         //  label="value" pairs, or NULL
    s_type_t type;              //  gauge or counter
    const char *help;           //  the family's HELP text (read from its first series)
} s_series_t;

#define S_WORKERS_HELP  "Workers by health (lost: declared lost and not registered again since)"
#define S_ADMIN_HELP    "Connected workers by the state an operator set (run, hold, drain)"
#define S_WAITING_HELP  "QUEUED tasks held back before the queue: for their parents, their begin time, a retry's backoff, room in their array, or (an array's or workflow's own id) their members"
#define S_TASKS_HELP    "Tasks the broker holds, by state (finished ones as long as they are kept)"
#define S_ENDED_HELP    "Tasks that reached a final state, by how they ended"
#define S_BACKUPS_HELP  "Online backups of the state (drover admin backup) since the broker started, by outcome"
#define S_DEVICES_HELP  "Counted devices the connected workers offer: gpu, and every other name together"
#define S_DEVICES_USED_HELP "Counted devices held by tasks assigned to connected workers: gpu, and every other name together"
#define S_REFUSED_HELP  "Task reports from workers refused, by code (409: stale attempt)"
#define S_POOL_HELP     "Instances of the elastic pool by state (booting and unknown count as capacity)"
#define S_POSITION_HELP "Running replicas at the last term: on the first eligible worker of their slot's rendezvous order (best) or further down"
#define S_RANK_HELP "Running replicas at the last term by the rank of their worker in their slot's rendezvous order (0 best)"
#define S_SERVICES_HELP "Services by state (lost: none of its replicas runs; crashing: its replicas keep exiting quickly)"
#define S_REPLICAS_HELP "Replicas of services: wanted (over all services), running, pending (started, not running yet)"
#define S_RESTARTS_HELP "Replica slots of services by how many times each restarted, at the last term"
#define S_CONNECTIONS_HELP "Peer connections open, by class: silent (said nothing valid yet), client, member (a registered worker, an admin key), trial (may stay as a member only), refused (to be closed)"
#define S_CLOSED_HELP   "Peer connections the broker closed, by reason (unreported: closed without libzmq saying so, found gone)"
#define S_BAD_HELP      "Messages the broker refused before any actor saw them, by the error code answered"
#define S_LEVELS_HELP   "Connected workers by the protocol level their agent speaks (PROTOCOL.md section 12)"
#define S_RELEASE_HELP  "Registered workers by the release their agent said (unknown: none said; other: past the most common 8)"
#define S_FITTED_HELP   "Messages to peers of an older protocol level: re-encoded with that level's fields, or not sent (a message that level has not)"

static const s_series_t s_series [DROVER_METRICS] = {
    [DROVER_METRIC_WORKERS_OK] =        { "drover_workers", "health=\"ok\"", S_GAUGE, S_WORKERS_HELP },
    [DROVER_METRIC_WORKERS_PROBATION] = { "drover_workers", "health=\"probation\"", S_GAUGE, S_WORKERS_HELP },
    [DROVER_METRIC_WORKERS_LOW_DISK] =  { "drover_workers", "health=\"low_disk\"", S_GAUGE, S_WORKERS_HELP },
    [DROVER_METRIC_WORKERS_LOST] =      { "drover_workers", "health=\"lost\"", S_GAUGE, S_WORKERS_HELP },
    [DROVER_METRIC_ADMIN_RUN] =         { "drover_workers_admin", "admin=\"run\"", S_GAUGE, S_ADMIN_HELP },
    [DROVER_METRIC_ADMIN_HOLD] =        { "drover_workers_admin", "admin=\"hold\"", S_GAUGE, S_ADMIN_HELP },
    [DROVER_METRIC_ADMIN_DRAIN] =       { "drover_workers_admin", "admin=\"drain\"", S_GAUGE, S_ADMIN_HELP },
    [DROVER_METRIC_WORKERS_LEVEL_1] =   { "drover_workers_level", "level=\"1\"", S_GAUGE, S_LEVELS_HELP },
    [DROVER_METRIC_WORKERS_LEVEL_2] =   { "drover_workers_level", "level=\"2\"", S_GAUGE, S_LEVELS_HELP },
    [DROVER_METRIC_PROCS] =             { "drover_procs", NULL, S_GAUGE,
                                          "Procs the connected workers offer" },
    [DROVER_METRIC_PROCS_USED] =        { "drover_procs_used", NULL, S_GAUGE,
                                          "Procs taken by tasks assigned to connected workers" },
    [DROVER_METRIC_MEMORY] =            { "drover_memory_bytes", NULL, S_GAUGE,
                                          "Memory the connected workers offer" },
    [DROVER_METRIC_MEMORY_USED] =       { "drover_memory_used_bytes", NULL, S_GAUGE,
                                          "Memory taken by tasks assigned to connected workers" },
    [DROVER_METRIC_DEVICES_GPU] =       { "drover_devices", "name=\"gpu\"", S_GAUGE, S_DEVICES_HELP },
    [DROVER_METRIC_DEVICES_OTHER] =     { "drover_devices", "name=\"other\"", S_GAUGE, S_DEVICES_HELP },
    [DROVER_METRIC_DEVICES_USED_GPU] =  { "drover_devices_used", "name=\"gpu\"", S_GAUGE,
                                          S_DEVICES_USED_HELP },
    [DROVER_METRIC_DEVICES_USED_OTHER] = { "drover_devices_used", "name=\"other\"", S_GAUGE,
                                          S_DEVICES_USED_HELP },
    [DROVER_METRIC_SHARE_OWNERS] =      { "drover_share_owners", NULL, S_GAUGE,
                                          "Owners of tasks the scheduler knows (fair share)" },
    [DROVER_METRIC_QUOTA_HELD] =        { "drover_tasks_quota_held", NULL, S_GAUGE,
                                          "Tasks in the scheduling queue held by a running quota of their owner or account" },
    [DROVER_METRIC_OFFERS_HELD] =       { "drover_offers_held", NULL, S_GAUGE,
                                          "Offers workers hold ahead of their free procs now, unstarted (counted among assigned tasks)" },
    [DROVER_METRIC_TASKS_QUEUED] =      { "drover_tasks", "state=\"queued\"", S_GAUGE, S_TASKS_HELP },
    [DROVER_METRIC_TASKS_ASSIGNED] =    { "drover_tasks", "state=\"assigned\"", S_GAUGE, S_TASKS_HELP },
    [DROVER_METRIC_TASKS_RUNNING] =     { "drover_tasks", "state=\"running\"", S_GAUGE, S_TASKS_HELP },
    [DROVER_METRIC_TASKS_SUCCEEDED] =   { "drover_tasks", "state=\"succeeded\"", S_GAUGE, S_TASKS_HELP },
    [DROVER_METRIC_TASKS_FAILED] =      { "drover_tasks", "state=\"failed\"", S_GAUGE, S_TASKS_HELP },
    [DROVER_METRIC_TASKS_CANCELLED] =   { "drover_tasks", "state=\"cancelled\"", S_GAUGE, S_TASKS_HELP },
    [DROVER_METRIC_SUBMITTED] =         { "drover_tasks_submitted_total", NULL, S_COUNTER,
                                          "Tasks accepted" },
    [DROVER_METRIC_ENDED_SUCCEEDED] =   { "drover_tasks_ended_total", "end=\"succeeded\"", S_COUNTER, S_ENDED_HELP },
    [DROVER_METRIC_ENDED_FAILED] =      { "drover_tasks_ended_total", "end=\"failed\"", S_COUNTER, S_ENDED_HELP },
    [DROVER_METRIC_ENDED_TIMED_OUT] =   { "drover_tasks_ended_total", "end=\"timed_out\"", S_COUNTER, S_ENDED_HELP },
    [DROVER_METRIC_ENDED_CANCELLED] =   { "drover_tasks_ended_total", "end=\"cancelled\"", S_COUNTER, S_ENDED_HELP },
    [DROVER_METRIC_ENDED_SPAWN_FAILED] = { "drover_tasks_ended_total", "end=\"spawn_failed\"", S_COUNTER, S_ENDED_HELP },
    [DROVER_METRIC_ENDED_LOST] =        { "drover_tasks_ended_total", "end=\"lost\"", S_COUNTER, S_ENDED_HELP },
    [DROVER_METRIC_ENDED_POISON] =      { "drover_tasks_ended_total", "end=\"poison\"", S_COUNTER, S_ENDED_HELP },
    [DROVER_METRIC_ENDED_DEPENDENCY] =  { "drover_tasks_ended_total", "end=\"dependency\"", S_COUNTER, S_ENDED_HELP },
    [DROVER_METRIC_ENDED_OOM] =         { "drover_tasks_ended_total", "end=\"oom\"", S_COUNTER, S_ENDED_HELP },
    [DROVER_METRIC_REQUEUED] =          { "drover_tasks_requeued_total", NULL, S_COUNTER,
                                          "Attempts put back in the queue (a retry after a failure, its worker lost, a machine failure)" },
    [DROVER_METRIC_PREEMPTED] =         { "drover_tasks_preempted_total", NULL, S_COUNTER,
                                          "Attempts of preemptible tasks stopped to make room for another task" },
    [DROVER_METRIC_OFFERS_RETURNED] =   { "drover_offers_returned_total", NULL, S_COUNTER,
                                          "Offers a worker held ahead of its free procs and gave back unstarted (they are queued again)" },
    [DROVER_METRIC_REFUSED_STALE] =     { "drover_reports_refused_total", "code=\"409\"", S_COUNTER, S_REFUSED_HELP },
    [DROVER_METRIC_REFUSED_NOT_FOUND] = { "drover_reports_refused_total", "code=\"404\"", S_COUNTER, S_REFUSED_HELP },
    [DROVER_METRIC_REFUSED_NOT_REGISTERED] = { "drover_reports_refused_total", "code=\"401\"", S_COUNTER, S_REFUSED_HELP },
    [DROVER_METRIC_WAITING_AFTER] =     { "drover_tasks_waiting", "cause=\"after\"", S_GAUGE, S_WAITING_HELP },
    [DROVER_METRIC_WAITING_BEGIN] =     { "drover_tasks_waiting", "cause=\"begin\"", S_GAUGE, S_WAITING_HELP },
    [DROVER_METRIC_WAITING_RETRY] =     { "drover_tasks_waiting", "cause=\"retry\"", S_GAUGE, S_WAITING_HELP },
    [DROVER_METRIC_WAITING_ARRAY] =     { "drover_tasks_waiting", "cause=\"array\"", S_GAUGE, S_WAITING_HELP },
    [DROVER_METRIC_WAITING_GROUP] =     { "drover_tasks_waiting", "cause=\"group\"", S_GAUGE, S_WAITING_HELP },
    [DROVER_METRIC_WORKERS_LOST_TOTAL] = { "drover_workers_lost_total", NULL, S_COUNTER,
                                          "Workers declared lost: silent past lost-after, or their key revoked (not those that left or restarted)" },
    [DROVER_METRIC_PROBATIONS] =        { "drover_probations_total", NULL, S_COUNTER,
                                          "Times a worker was put on probation" },
    [DROVER_METRIC_HEARTBEAT_INTERVAL] = { "drover_heartbeat_interval_seconds", NULL, S_GAUGE,
                                          "Seconds between heartbeats told to a worker registering now "
                                          "(health/heartbeat, scaled with the fleet by health/heartbeat-rate)" },
    [DROVER_METRIC_HEARTBEAT_RATE] =    { "drover_heartbeat_rate_target", NULL, S_GAUGE,
                                          "Heartbeats a second the broker aims at (health/heartbeat-rate; 0: no scaling)" },
    [DROVER_METRIC_HEARTBEATS] =        { "drover_heartbeats_total", NULL, S_COUNTER,
                                          "Worker heartbeats heard" },
    [DROVER_METRIC_HEALTH_GRACE] =      { "drover_health_grace_remaining_seconds", NULL, S_GAUGE,
                                          "Seconds left of the grace after start or leadership in which no worker is declared lost" },
    [DROVER_METRIC_WORKERS_RELEASE_0 + 0] = { "drover_workers_release", NULL, S_GAUGE, S_RELEASE_HELP },
    [DROVER_METRIC_WORKERS_RELEASE_0 + 1] = { "drover_workers_release", NULL, S_GAUGE, S_RELEASE_HELP },
    [DROVER_METRIC_WORKERS_RELEASE_0 + 2] = { "drover_workers_release", NULL, S_GAUGE, S_RELEASE_HELP },
    [DROVER_METRIC_WORKERS_RELEASE_0 + 3] = { "drover_workers_release", NULL, S_GAUGE, S_RELEASE_HELP },
    [DROVER_METRIC_WORKERS_RELEASE_0 + 4] = { "drover_workers_release", NULL, S_GAUGE, S_RELEASE_HELP },
    [DROVER_METRIC_WORKERS_RELEASE_0 + 5] = { "drover_workers_release", NULL, S_GAUGE, S_RELEASE_HELP },
    [DROVER_METRIC_WORKERS_RELEASE_0 + 6] = { "drover_workers_release", NULL, S_GAUGE, S_RELEASE_HELP },
    [DROVER_METRIC_WORKERS_RELEASE_0 + 7] = { "drover_workers_release", NULL, S_GAUGE, S_RELEASE_HELP },
    [DROVER_METRIC_WORKERS_RELEASE_OTHER] = { "drover_workers_release", "release=\"other\"", S_GAUGE, S_RELEASE_HELP },
    [DROVER_METRIC_WORKERS_REFUSED_TOTAL] = { "drover_workers_refused_total", NULL, S_COUNTER,
                                          "Worker HELLOs refused for their protocol level or release (health/min-release)" },
    [DROVER_METRIC_WORKERS_REPACED_TOTAL] = { "drover_workers_repaced_total", NULL, S_COUNTER,
                                          "Registered workers told a new heartbeat interval as the fleet grew or shrank (level 8)" },
    [DROVER_METRIC_POOL_UNKNOWN] =      { "drover_pool_instances", "state=\"unknown\"", S_GAUGE, S_POOL_HELP },
    [DROVER_METRIC_POOL_BOOTING] =      { "drover_pool_instances", "state=\"booting\"", S_GAUGE, S_POOL_HELP },
    [DROVER_METRIC_POOL_IDLE] =         { "drover_pool_instances", "state=\"idle\"", S_GAUGE, S_POOL_HELP },
    [DROVER_METRIC_POOL_RUNNING] =      { "drover_pool_instances", "state=\"running\"", S_GAUGE, S_POOL_HELP },
    [DROVER_METRIC_POOL_SHUTDOWN] =     { "drover_pool_instances", "state=\"shutdown\"", S_GAUGE, S_POOL_HELP },
    [DROVER_METRIC_POOL_PRICE] =        { "drover_pool_price_per_hour", NULL, S_GAUGE,
                                          "Total price per hour of the pool's live instances, "
                                          "in the operator's currency" },
    [DROVER_METRIC_POOL_TASKS] =        { "drover_pool_tasks_running", NULL, S_GAUGE,
                                          "Tasks running on the pool's instances" },
    [DROVER_METRIC_POOL_PROCS] =        { "drover_pool_procs", NULL, S_GAUGE,
                                          "Procs the pool's registered instances offer" },
    [DROVER_METRIC_POOL_PROCS_USED] =   { "drover_pool_procs_used", NULL, S_GAUGE,
                                          "Procs taken on the pool's instances" },
    [DROVER_METRIC_POOL_MEMORY] =       { "drover_pool_memory_bytes", NULL, S_GAUGE,
                                          "Memory the pool's registered instances offer" },
    [DROVER_METRIC_POOL_MEMORY_USED] =  { "drover_pool_memory_used_bytes", NULL, S_GAUGE,
                                          "Memory taken on the pool's instances" },
    [DROVER_METRIC_POOL_CREATES] =      { "drover_pool_creates_total", NULL, S_COUNTER,
                                          "Instance creates the pool asked of its driver" },
    [DROVER_METRIC_POOL_CREATE_FAILURES] = { "drover_pool_create_failures_total", NULL, S_COUNTER,
                                          "Instance creates that failed (quota and rate limits included)" },
    [DROVER_METRIC_POOL_DESTROYS] =     { "drover_pool_destroys_total", NULL, S_COUNTER,
                                          "Instance destroys the pool asked of its driver" },
    [DROVER_METRIC_POOL_QUOTA_BACKOFF] = { "drover_pool_quota_backoff", NULL, S_GAUGE,
                                          "1 while the pool waits to create after a quota error" },
    [DROVER_METRIC_POOL_PROBING] =      { "drover_pool_probing", NULL, S_GAUGE,
                                          "Registered instances whose boot probe has not passed (no work)" },
    [DROVER_METRIC_POOL_PROBES] =       { "drover_pool_probes_total", NULL, S_COUNTER,
                                          "Boot probes the pool ran" },
    [DROVER_METRIC_POOL_PROBE_FAILURES] = { "drover_pool_probe_failures_total", NULL, S_COUNTER,
                                          "Boot probes that failed" },
    [DROVER_METRIC_POOL_SURPLUS] =      { "drover_pool_surplus_destroys_total", NULL, S_COUNTER,
                                          "Booting instances destroyed because the demand they were created for was gone" },
    [DROVER_METRIC_POOL_UNKNOWN_TYPES] = { "drover_pool_unknown_type_instances_total", NULL, S_COUNTER,
                                          "Listed instances ignored because the settings have no such type (each once)" },
    [DROVER_METRIC_SERVICES_OK] =       { "drover_services", "state=\"ok\"", S_GAUGE, S_SERVICES_HELP },
    [DROVER_METRIC_SERVICES_UNDER] =    { "drover_services", "state=\"under\"", S_GAUGE, S_SERVICES_HELP },
    [DROVER_METRIC_SERVICES_OVER] =     { "drover_services", "state=\"over\"", S_GAUGE, S_SERVICES_HELP },
    [DROVER_METRIC_SERVICES_LOST] =     { "drover_services", "state=\"lost\"", S_GAUGE, S_SERVICES_HELP },
    [DROVER_METRIC_SERVICES_CRASHING] = { "drover_services", "state=\"crashing\"", S_GAUGE, S_SERVICES_HELP },
    [DROVER_METRIC_SERVICE_REPLICAS_WANTED] = { "drover_service_replicas", "state=\"wanted\"", S_GAUGE, S_REPLICAS_HELP },
    [DROVER_METRIC_SERVICE_REPLICAS_RUNNING] = { "drover_service_replicas", "state=\"running\"", S_GAUGE, S_REPLICAS_HELP },
    [DROVER_METRIC_SERVICE_REPLICAS_PENDING] = { "drover_service_replicas", "state=\"pending\"", S_GAUGE, S_REPLICAS_HELP },
    [DROVER_METRIC_SERVICE_STARTED] =   { "drover_service_replicas_started_total", NULL, S_COUNTER,
                                          "Replicas the reconciler started (moves included)" },
    [DROVER_METRIC_SERVICE_STOPPED] =   { "drover_service_replicas_stopped_total", NULL, S_COUNTER,
                                          "Replicas the reconciler stopped (scaled down, deleted, moved away, extra)" },
    [DROVER_METRIC_SERVICE_MOVED] =     { "drover_service_replicas_moved_total", NULL, S_COUNTER,
                                          "Replicas the reconciler moved to another worker (a drain, spread)" },
    [DROVER_METRIC_SERVICE_TERMS] =     { "drover_service_terms_total", NULL, S_COUNTER,
                                          "Terms of the reconciler (gather, delta, placement)" },
    [DROVER_METRIC_SERVICE_TERMS_INCOMPLETE] = { "drover_service_terms_incomplete_total", NULL, S_COUNTER,
                                          "Terms that removed nothing: a worker did not answer the gather, or the view looked implausible" },
    [DROVER_METRIC_SERVICE_TERM_SECONDS] = { "drover_service_term_seconds", NULL, S_GAUGE,
                                          "How long the last term took, gather included" },
    [DROVER_METRIC_SERVICE_RESTARTS_0] = { "drover_service_replica_restarts", NULL, S_PART, S_RESTARTS_HELP },
    [DROVER_METRIC_SERVICE_RESTARTS_0 + 1] = { "drover_service_replica_restarts", NULL, S_PART, S_RESTARTS_HELP },
    [DROVER_METRIC_SERVICE_RESTARTS_0 + 2] = { "drover_service_replica_restarts", NULL, S_PART, S_RESTARTS_HELP },
    [DROVER_METRIC_SERVICE_RESTARTS_0 + 3] = { "drover_service_replica_restarts", NULL, S_PART, S_RESTARTS_HELP },
    [DROVER_METRIC_SERVICE_RESTARTS_0 + 4] = { "drover_service_replica_restarts", NULL, S_PART, S_RESTARTS_HELP },
    [DROVER_METRIC_SERVICE_RESTARTS_0 + 5] = { "drover_service_replica_restarts", NULL, S_PART, S_RESTARTS_HELP },
    [DROVER_METRIC_SERVICE_RESTARTS_0 + 6] = { "drover_service_replica_restarts", NULL, S_PART, S_RESTARTS_HELP },
    [DROVER_METRIC_SERVICE_RESTARTS_LAST] = { "drover_service_replica_restarts", NULL, S_PART, S_RESTARTS_HELP },
    [DROVER_METRIC_SERVICE_RESTARTS_SUM] = { "drover_service_replica_restarts", NULL, S_PART, S_RESTARTS_HELP },
    [DROVER_METRIC_SERVICE_BEST] =      { "drover_service_replica_position", "position=\"best\"", S_GAUGE, S_POSITION_HELP },
    [DROVER_METRIC_SERVICE_NOT_BEST] =  { "drover_service_replica_position", "position=\"not_best\"", S_GAUGE, S_POSITION_HELP },
    [DROVER_METRIC_SERVICE_RANK_0 + 0] = { "drover_service_replica_rank", "rank=\"0\"", S_GAUGE, S_RANK_HELP },
    [DROVER_METRIC_SERVICE_RANK_0 + 1] = { "drover_service_replica_rank", "rank=\"1\"", S_GAUGE, S_RANK_HELP },
    [DROVER_METRIC_SERVICE_RANK_0 + 2] = { "drover_service_replica_rank", "rank=\"2-3\"", S_GAUGE, S_RANK_HELP },
    [DROVER_METRIC_SERVICE_RANK_0 + 3] = { "drover_service_replica_rank", "rank=\"4-7\"", S_GAUGE, S_RANK_HELP },
    [DROVER_METRIC_SERVICE_RANK_0 + 4] = { "drover_service_replica_rank", "rank=\"8-15\"", S_GAUGE, S_RANK_HELP },
    [DROVER_METRIC_SERVICE_RANK_0 + 5] = { "drover_service_replica_rank", "rank=\"16-31\"", S_GAUGE, S_RANK_HELP },
    [DROVER_METRIC_SERVICE_RANK_0 + 6] = { "drover_service_replica_rank", "rank=\"32-63\"", S_GAUGE, S_RANK_HELP },
    [DROVER_METRIC_SERVICE_RANK_0 + 7] = { "drover_service_replica_rank", "rank=\"64+\"", S_GAUGE, S_RANK_HELP },
    [DROVER_METRIC_SERVICE_CAPPED] =    { "drover_service_replicas_capped", NULL, S_GAUGE,
                                          "Replicas the last term left unplaced because of their service's max-per-worker" },
    [DROVER_METRIC_SERVICE_REBALANCED] = { "drover_service_replicas_rebalanced_total", NULL, S_COUNTER,
                                          "Replicas moved toward the first worker of their rendezvous order (service/rebalance-moves)" },
    [DROVER_METRIC_BAD_400] =           { "drover_bad_messages_total", "code=\"400\"", S_COUNTER, S_BAD_HELP },
    [DROVER_METRIC_BAD_403] =           { "drover_bad_messages_total", "code=\"403\"", S_COUNTER, S_BAD_HELP },
    [DROVER_METRIC_BAD_413] =           { "drover_bad_messages_total", "code=\"413\"", S_COUNTER, S_BAD_HELP },
    [DROVER_METRIC_BAD_415] =           { "drover_bad_messages_total", "code=\"415\"", S_COUNTER, S_BAD_HELP },
    [DROVER_METRIC_BAD_426] =           { "drover_bad_messages_total", "code=\"426\"", S_COUNTER, S_BAD_HELP },
    [DROVER_METRIC_BAD_302] =           { "drover_bad_messages_total", "code=\"302\"", S_COUNTER, S_BAD_HELP },
    [DROVER_METRIC_LEVEL_FITTED] =      { "drover_older_peer_messages_total", "fate=\"fitted\"", S_COUNTER, S_FITTED_HELP },
    [DROVER_METRIC_LEVEL_UNSENT] =      { "drover_older_peer_messages_total", "fate=\"unsent\"", S_COUNTER, S_FITTED_HELP },
    [DROVER_METRIC_CONNECTIONS_SILENT] = { "drover_connections", "class=\"silent\"", S_GAUGE, S_CONNECTIONS_HELP },
    [DROVER_METRIC_CONNECTIONS_CLIENT] = { "drover_connections", "class=\"client\"", S_GAUGE, S_CONNECTIONS_HELP },
    [DROVER_METRIC_CONNECTIONS_MEMBER] = { "drover_connections", "class=\"member\"", S_GAUGE, S_CONNECTIONS_HELP },
    [DROVER_METRIC_CONNECTIONS_TRIAL] = { "drover_connections", "class=\"trial\"", S_GAUGE, S_CONNECTIONS_HELP },
    [DROVER_METRIC_CONNECTIONS_REFUSED] = { "drover_connections", "class=\"refused\"", S_GAUGE, S_CONNECTIONS_HELP },
    [DROVER_METRIC_CONNECTION_LIMIT] =  { "drover_connections_limit", NULL, S_GAUGE,
                                          "Peer connections served at most, as the descriptor limit allows" },
    [DROVER_METRIC_CONNECTION_RESERVE] = { "drover_connections_reserved", NULL, S_GAUGE,
                                          "Of those, kept for registered workers and admin keys" },
    [DROVER_METRIC_CONNECTIONS_ACCEPTED] = { "drover_connections_accepted_total", NULL, S_COUNTER,
                                          "Peer connections accepted" },
    [DROVER_METRIC_CLOSED_SILENT] =     { "drover_connections_closed_total", "reason=\"silent\"", S_COUNTER, S_CLOSED_HELP },
    [DROVER_METRIC_CLOSED_EVICTED] =    { "drover_connections_closed_total", "reason=\"evicted\"", S_COUNTER, S_CLOSED_HELP },
    [DROVER_METRIC_CLOSED_REFUSED] =    { "drover_connections_closed_total", "reason=\"refused\"", S_COUNTER, S_CLOSED_HELP },
    [DROVER_METRIC_CLOSED_UNREPORTED] = { "drover_connections_closed_total", "reason=\"unreported\"", S_COUNTER, S_CLOSED_HELP },
    [DROVER_METRIC_BACKUPS_OK] =        { "drover_state_backups_total", "outcome=\"ok\"", S_COUNTER, S_BACKUPS_HELP },
    [DROVER_METRIC_BACKUPS_FAILED] =    { "drover_state_backups_total", "outcome=\"failed\"", S_COUNTER, S_BACKUPS_HELP },
    [DROVER_METRIC_BACKUP_LAST] =       { "drover_state_backup_last_success_seconds", NULL, S_GAUGE,
                                          "When the last online backup of the state was made, seconds since the epoch" },
    [DROVER_METRIC_START_TIME] =        { "process_start_time_seconds", NULL, S_GAUGE,
                                          "Start time of the process since unix epoch in seconds." },
    [DROVER_METRIC_OPEN_FDS] =          { "process_open_fds", NULL, S_GAUGE,
                                          "Number of open file descriptors." },
    [DROVER_METRIC_MAX_FDS] =           { "process_max_fds", NULL, S_GAUGE,
                                          "Maximum number of open file descriptors." },
    [DROVER_METRIC_RESIDENT] =          { "process_resident_memory_bytes", NULL, S_GAUGE,
                                          "Resident memory size in bytes." },
};

//  The error codes DROVER_METRIC_BAD_* count, in their order
static const int s_bad_codes [] = {
    DROVER_CODE_BAD_REQUEST, DROVER_CODE_FORBIDDEN, DROVER_CODE_TOO_LARGE,
    DROVER_CODE_UNEXPECTED, DROVER_CODE_BAD_VERSION, DROVER_CODE_TOO_MANY
};
#define S_BAD_CODES (sizeof s_bad_codes / sizeof s_bad_codes [0])

//  The histograms' names and meanings
static const struct {
    const char *family;         //  metric name, without _bucket, _sum, _count
    const char *help;           //  HELP text
} s_histograms [DROVER_HISTOGRAMS] = {
    [DROVER_HISTOGRAM_QUEUE_WAIT] = { "drover_task_queue_wait_seconds",
        "Time a task waited from its submit until its first attempt started" },
    [DROVER_HISTOGRAM_RUN] = { "drover_task_run_seconds",
        "Time a task's last attempt ran, from its start on a worker to the task's end" },
    [DROVER_HISTOGRAM_END_TO_END] = { "drover_task_end_to_end_seconds",
        "Time from a task's submit to its final state" },
};

//  Upper bounds of the buckets, msec
static const int64_t s_bounds [DROVER_HISTOGRAM_BOUNDS] = {
    5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000, 300000, 900000, 3600000
};

//  What a snapshot holds; packed whole for COUNTS
typedef struct {
    uint32_t magic;             //  S_MAGIC: a packed metricset
    bool set [DROVER_METRICS];  //  which series were set
    uint64_t values [DROVER_METRICS];   //  their values
    bool histogram_set [DROVER_HISTOGRAMS];     //  which histograms were set
    drover_histogram_t histograms [DROVER_HISTOGRAMS];  //  their values
    char releases [DROVER_METRICS_RELEASES][DROVER_METRICS_RELEASE_SIZE + 1];
                                //  the release each drover_workers_release slot counts
} s_values_t;
#define S_MAGIC     0x4d455452  //  "METR"

struct _drover_metrics_t {
    s_values_t values;          //  the snapshot
    char *version;              //  the info series' version label, or NULL
    char *endpoint;             //  its endpoint label, or NULL
};


//  Count one observation of msec (negative counts as 0)
void
drover_histogram_observe (drover_histogram_t *self, int64_t msec)
{
    assert (self);
    if (msec < 0)
        msec = 0;
    for (size_t index = 0; index < DROVER_HISTOGRAM_BOUNDS; index++)
        if (msec <= s_bounds [index]) {
            self->buckets [index]++;
            break;
        }
    self->count++;
    self->sum += (uint64_t) msec;
}

//  The series that counts an error code the main answered, or -1
int
drover_metrics_bad_code (int code)
{
    for (size_t index = 0; index < S_BAD_CODES; index++)
        if (s_bad_codes [index] == code)
            return DROVER_METRIC_BAD_400 + (int) index;
    return -1;
}

//  Create a snapshot holding nothing
drover_metrics_t *
drover_metrics_new (void)
{
    drover_metrics_t *self = (drover_metrics_t *) zmalloc (sizeof (drover_metrics_t));
    self->values.magic = S_MAGIC;
    return self;
}

//  Destroy the snapshot
void
drover_metrics_destroy (drover_metrics_t **self_p)
{
    assert (self_p);
    drover_metrics_t *self = *self_p;
    if (self) {
        zstr_free (&self->version);
        zstr_free (&self->endpoint);
        free (self);
        *self_p = NULL;
    }
}

//  Forget every value (the info text stays)
void
drover_metrics_reset (drover_metrics_t *self)
{
    assert (self);
    memset (&self->values, 0, sizeof self->values);
    self->values.magic = S_MAGIC;
}

//  Set one series
void
drover_metrics_set (drover_metrics_t *self, drover_metric_t id, uint64_t value)
{
    assert (self);
    assert (id >= 0 && id < DROVER_METRICS);
    self->values.set [id] = true;
    self->values.values [id] = value;
}

//  Return a series' value, 0 if not set
uint64_t
drover_metrics_get (drover_metrics_t *self, drover_metric_t id)
{
    assert (self);
    assert (id >= 0 && id < DROVER_METRICS);
    return self->values.set [id]? self->values.values [id]: 0;
}

//  Tell whether a series was set
bool
drover_metrics_has (drover_metrics_t *self, drover_metric_t id)
{
    assert (self);
    assert (id >= 0 && id < DROVER_METRICS);
    return self->values.set [id];
}

//  Set a release slot's release and count
void
drover_metrics_set_release (drover_metrics_t *self, size_t slot, const char *release,
                            uint64_t count)
{
    assert (self);
    assert (slot < DROVER_METRICS_RELEASES);
    assert (release);
    drover_metrics_set (self, (drover_metric_t) (DROVER_METRIC_WORKERS_RELEASE_0 + slot), count);
    snprintf (self->values.releases [slot], sizeof self->values.releases [slot], "%s", release);
}

//  Set one histogram
void
drover_metrics_set_histogram (drover_metrics_t *self, drover_histogram_id_t id,
                                const drover_histogram_t *histogram)
{
    assert (self);
    assert (id >= 0 && id < DROVER_HISTOGRAMS);
    self->values.histogram_set [id] = true;
    self->values.histograms [id] = *histogram;
}

//  Set the info series' text
void
drover_metrics_set_info (drover_metrics_t *self, const char *version, const char *endpoint)
{
    assert (self);
    zstr_free (&self->version);
    zstr_free (&self->endpoint);
    self->version = strdup (version);
    self->endpoint = strdup (endpoint);
}

//  Pack what was set into a frame
zframe_t *
drover_metrics_pack (drover_metrics_t *self)
{
    assert (self);
    return zframe_new (&self->values, sizeof self->values);
}

//  Say COUNTS round values: an actor's answer to METRICS
void
drover_metrics_say (drover_metrics_t *self, drover_outbox_t *outbox, uint64_t round)
{
    assert (self);
    zframe_t *values = drover_metrics_pack (self);
    drover_outbox_say (outbox, "s8f", "COUNTS", round, values);
    zframe_destroy (&values);
}

//  Take what a packed frame set into self
int
drover_metrics_merge (drover_metrics_t *self, zframe_t *frame)
{
    assert (self);
    s_values_t other;
    if (!frame || zframe_size (frame) != sizeof other)
        return -1;
    memcpy (&other, zframe_data (frame), sizeof other);
    if (other.magic != S_MAGIC)
        return -1;
    for (size_t id = 0; id < DROVER_METRICS; id++)
        if (other.set [id]) {
            self->values.set [id] = true;
            self->values.values [id] = other.values [id];
            if (id >= DROVER_METRIC_WORKERS_RELEASE_0 && id <= DROVER_METRIC_WORKERS_RELEASE_LAST)
                memcpy (self->values.releases [id - DROVER_METRIC_WORKERS_RELEASE_0],
                        other.releases [id - DROVER_METRIC_WORKERS_RELEASE_0],
                        sizeof other.releases [0]);
        }
    for (size_t id = 0; id < DROVER_HISTOGRAMS; id++)
        if (other.histogram_set [id]) {
            self->values.histogram_set [id] = true;
            self->values.histograms [id] = other.histograms [id];
        }
    return 0;
}

//  Escape a label value: backslash, double quote and newline
char *
drover_metrics_escape (const char *value)
{
    assert (value);
    size_t length = 0;
    for (const char *at = value; *at; at++)
        length += (*at == '\\' || *at == '"' || *at == '\n')? 2: 1;
    char *escaped = (char *) zmalloc (length + 1);
    char *to = escaped;
    for (const char *at = value; *at; at++)
        if (*at == '\\' || *at == '"') {
            *to++ = '\\';
            *to++ = *at;
        }
        else
        if (*at == '\n') {
            *to++ = '\\';
            *to++ = 'n';
        }
        else
            *to++ = *at;
    return escaped;
}

//  Append printf-style text to a growing buffer
static void
s_append (char **text_p, size_t *size_p, size_t *used_p, const char *format, ...)
{
    va_list args;
    while (true) {
        va_start (args, format);
        int wrote = vsnprintf (*text_p + *used_p, *size_p - *used_p, format, args);
        va_end (args);
        assert (wrote >= 0);
        if ((size_t) wrote < *size_p - *used_p) {
            *used_p += (size_t) wrote;
            return;
        }
        *size_p *= 2;
        *text_p = (char *) realloc (*text_p, *size_p);
        assert (*text_p);
    }
}

//  Tell whether any series of the family that starts at first was set
static bool
s_family_set (drover_metrics_t *self, size_t first)
{
    for (size_t id = first; id < DROVER_METRICS
                         && streq (s_series [id].family, s_series [first].family); id++)
        if (self->values.set [id])
            return true;
    return false;
}

//  Write msec as seconds, exactly (three decimals, no trailing zeros)
static void
s_append_seconds (char **text_p, size_t *size_p, size_t *used_p, uint64_t msec)
{
    if (msec % 1000 == 0)
        s_append (text_p, size_p, used_p, "%" PRIu64, msec / 1000);
    else {
        char digits [8];
        snprintf (digits, sizeof digits, "%03u", (unsigned) (msec % 1000));
        for (int last = 2; last > 0 && digits [last] == '0'; last--)
            digits [last] = 0;
        s_append (text_p, size_p, used_p, "%" PRIu64 ".%s", msec / 1000, digits);
    }
}

//  Write one histogram: cumulative buckets, +Inf, sum (seconds) and count
static void
s_append_histogram (char **text_p, size_t *size_p, size_t *used_p, const char *family,
                    const char *help, const drover_histogram_t *histogram)
{
    s_append (text_p, size_p, used_p, "# HELP %s %s\n# TYPE %s histogram\n", family, help, family);
    uint64_t cumulated = 0;
    for (size_t index = 0; index < DROVER_HISTOGRAM_BOUNDS; index++) {
        cumulated += histogram->buckets [index];
        s_append (text_p, size_p, used_p, "%s_bucket{le=\"", family);
        s_append_seconds (text_p, size_p, used_p, (uint64_t) s_bounds [index]);
        s_append (text_p, size_p, used_p, "\"} %" PRIu64 "\n", cumulated);
    }
    s_append (text_p, size_p, used_p, "%s_bucket{le=\"+Inf\"} %" PRIu64 "\n", family,
              histogram->count);
    s_append (text_p, size_p, used_p, "%s_sum ", family);
    s_append_seconds (text_p, size_p, used_p, histogram->sum);
    s_append (text_p, size_p, used_p, "\n%s_count %" PRIu64 "\n", family, histogram->count);
}

//  Return true if a series holds thousandths, written as units (a price;
//  msec written as seconds)
static bool
s_milli (drover_metric_t id)
{
    return id == DROVER_METRIC_POOL_PRICE || id == DROVER_METRIC_SERVICE_TERM_SECONDS
        || id == DROVER_METRIC_HEARTBEAT_INTERVAL || id == DROVER_METRIC_HEALTH_GRACE;
}

//  Write the replicas' restarts as a histogram: the buckets' upper bounds
//  are 0, 1, 3, 7 ... 63 restarts (log scale, as drover_service_stats_t
//  counts them), then +Inf; written when its actor answered
static void
s_append_restarts (drover_metrics_t *self, char **text_p, size_t *size_p, size_t *used_p)
{
    if (!self->values.set [DROVER_METRIC_SERVICE_RESTARTS_SUM])
        return;
    const char *family = s_series [DROVER_METRIC_SERVICE_RESTARTS_0].family;
    s_append (text_p, size_p, used_p, "# HELP %s %s\n# TYPE %s histogram\n", family,
              S_RESTARTS_HELP, family);
    uint64_t cumulated = 0;
    for (int bucket = 0; bucket <= DROVER_METRIC_SERVICE_RESTARTS_LAST
                                  - DROVER_METRIC_SERVICE_RESTARTS_0; bucket++) {
        cumulated += self->values.values [DROVER_METRIC_SERVICE_RESTARTS_0 + bucket];
        if (DROVER_METRIC_SERVICE_RESTARTS_0 + bucket < DROVER_METRIC_SERVICE_RESTARTS_LAST)
            s_append (text_p, size_p, used_p, "%s_bucket{le=\"%u\"} %" PRIu64 "\n", family,
                      (1u << bucket) - 1, cumulated);
    }
    s_append (text_p, size_p, used_p, "%s_bucket{le=\"+Inf\"} %" PRIu64 "\n", family, cumulated);
    s_append (text_p, size_p, used_p, "%s_sum %" PRIu64 "\n%s_count %" PRIu64 "\n", family,
              self->values.values [DROVER_METRIC_SERVICE_RESTARTS_SUM], family, cumulated);
}

//  Write the snapshot in the Prometheus text exposition format 0.0.4
char *
drover_metrics_exposition (drover_metrics_t *self)
{
    assert (self);
    size_t size = 4096, used = 0;
    char *text = (char *) zmalloc (size);
    for (size_t id = 0; id < DROVER_METRICS; id++) {
        const s_series_t *series = &s_series [id];
        if (series->type == S_PART)
            continue;           //  written on its own, below
        bool first = id == 0 || !streq (s_series [id - 1].family, series->family);
        if (first && s_family_set (self, id))
            s_append (&text, &size, &used, "# HELP %s %s\n# TYPE %s %s\n", series->family,
                      series->help, series->family,
                      series->type == S_COUNTER? "counter": "gauge");
        if (!self->values.set [id])
            continue;
        if (s_milli ((drover_metric_t) id)) {
            s_append (&text, &size, &used, "%s ", series->family);
            s_append_seconds (&text, &size, &used, self->values.values [id]);
            s_append (&text, &size, &used, "\n");
        }
        else
        if (id >= DROVER_METRIC_WORKERS_RELEASE_0 && id <= DROVER_METRIC_WORKERS_RELEASE_LAST) {
            char *release = drover_metrics_escape (self->values.releases
                                                   [id - DROVER_METRIC_WORKERS_RELEASE_0]);
            s_append (&text, &size, &used, "%s{release=\"%s\"} %" PRIu64 "\n",
                      series->family, release, self->values.values [id]);
            zstr_free (&release);
        }
        else
        if (series->labels)
            s_append (&text, &size, &used, "%s{%s} %" PRIu64 "\n", series->family,
                      series->labels, self->values.values [id]);
        else
            s_append (&text, &size, &used, "%s %" PRIu64 "\n", series->family,
                      self->values.values [id]);
    }
    s_append_restarts (self, &text, &size, &used);
    for (size_t id = 0; id < DROVER_HISTOGRAMS; id++)
        if (self->values.histogram_set [id])
            s_append_histogram (&text, &size, &used, s_histograms [id].family,
                                s_histograms [id].help, &self->values.histograms [id]);
    if (self->version && self->endpoint) {
        char *version = drover_metrics_escape (self->version);
        char *endpoint = drover_metrics_escape (self->endpoint);
        s_append (&text, &size, &used,
                  "# HELP drover_broker_info The broker's version and ROUTER endpoint\n"
                  "# TYPE drover_broker_info gauge\n"
                  "drover_broker_info{version=\"%s\",endpoint=\"%s\"} 1\n", version, endpoint);
        zstr_free (&version);
        zstr_free (&endpoint);
    }
    return text;
}

//  Write one count of the status line, "?" if its actor did not answer
static void
s_append_count (char **text_p, size_t *size_p, size_t *used_p, drover_metrics_t *self,
                const char *name, drover_metric_t first, drover_metric_t last)
{
    bool known = true;
    uint64_t sum = 0;
    for (int id = first; id <= (int) last; id++) {
        known &= self->values.set [id];
        sum += self->values.values [id];
    }
    if (known)
        s_append (text_p, size_p, used_p, "%s%s=%" PRIu64, *used_p? " ": "", name, sum);
    else
        s_append (text_p, size_p, used_p, "%s%s=?", *used_p? " ": "", name);
}

//  Write the snapshot as the status line of the log
char *
drover_metrics_status (drover_metrics_t *self)
{
    assert (self);
    size_t size = 256, used = 0;
    char *text = (char *) zmalloc (size);
    s_append_count (&text, &size, &used, self, "pending", DROVER_METRIC_TASKS_QUEUED,
                    DROVER_METRIC_TASKS_QUEUED);
    s_append_count (&text, &size, &used, self, "running", DROVER_METRIC_TASKS_ASSIGNED,
                    DROVER_METRIC_TASKS_RUNNING);
    s_append_count (&text, &size, &used, self, "workers", DROVER_METRIC_WORKERS_OK,
                    DROVER_METRIC_WORKERS_LOW_DISK);
    s_append_count (&text, &size, &used, self, "probation", DROVER_METRIC_WORKERS_PROBATION,
                    DROVER_METRIC_WORKERS_PROBATION);
    s_append_count (&text, &size, &used, self, "low_disk", DROVER_METRIC_WORKERS_LOW_DISK,
                    DROVER_METRIC_WORKERS_LOW_DISK);
    s_append_count (&text, &size, &used, self, "lost", DROVER_METRIC_WORKERS_LOST,
                    DROVER_METRIC_WORKERS_LOST);
    s_append_count (&text, &size, &used, self, "held", DROVER_METRIC_ADMIN_HOLD,
                    DROVER_METRIC_ADMIN_HOLD);
    s_append_count (&text, &size, &used, self, "draining", DROVER_METRIC_ADMIN_DRAIN,
                    DROVER_METRIC_ADMIN_DRAIN);
    s_append_count (&text, &size, &used, self, "procs_used", DROVER_METRIC_PROCS_USED,
                    DROVER_METRIC_PROCS_USED);
    s_append_count (&text, &size, &used, self, "procs", DROVER_METRIC_PROCS,
                    DROVER_METRIC_PROCS);
    return text;
}
