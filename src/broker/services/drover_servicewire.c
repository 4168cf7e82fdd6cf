/*  =========================================================================
    drover_servicewire - the reconciler's wire side (see the header)

    A definition is kept as the SERVICE ADMIN create that made it (scaled:
    its count changed), so one message holds what a replica runs and what
    the store keeps. Its check is SUBMIT's for the body and labels, plus
    the service's own fields; each refusal names the field.
    =========================================================================
*/

#include "drover_servicewire.h"
#include "drover_exec.h"
#include "drover_taskrecord.h"

//  Join a body's argv with spaces into summary (DROVER_SUMMARY_MAX + 1
//  bytes), printable only; "" if it does not decode
static void
s_summary (const byte *body, size_t size, char *summary)
{
    size_t length = 0;
    drover_exec_t *exec = drover_exec_new ();
    const char *error;
    if (drover_exec_decode (exec, body, size, &error) == 0)
        for (uint32_t arg = 0; arg < exec->argc && length < DROVER_SUMMARY_MAX; arg++) {
            if (arg)
                summary [length++] = ' ';
            for (const char *cursor = exec->argv [arg];
                 *cursor && length < DROVER_SUMMARY_MAX; cursor++)
                summary [length++] = (*cursor >= 0x20 && *cursor < 0x7f)? *cursor: '?';
        }
    summary [length] = 0;
    drover_exec_destroy (&exec);
}

//  Check a SERVICE ADMIN create and fill def from it
int
drover_servicewire_check (const drover_msg_t *msg, drover_service_row_t *def,
                          char *buffer, size_t buffer_size, const char **reason_p)
{
    assert (msg && def && buffer && reason_p);
    memset (def, 0, sizeof *def);
    if (msg->id != DROVER_MSG_SERVICE_ADMIN || msg->action != DROVER_SERVICE_CREATE) {
        *reason_p = "action: not a create";
        return DROVER_CODE_BAD_REQUEST;
    }
    if (!drover_id_valid (msg->service)) {
        *reason_p = "service: a name is 1..64 printable bytes without spaces";
        return DROVER_CODE_BAD_REQUEST;
    }
    //  Each replica is a task: its procs, body and labels are checked as a
    //  TASK SUBMIT's are
    int code = drover_taskrecord_check (msg, buffer, buffer_size, reason_p);
    if (code != DROVER_CODE_OK)
        return code;
    snprintf (def->name, sizeof def->name, "%s", msg->service);
    def->replicas = msg->count;
    def->procs = msg->procs;
    def->mem = msg->mem;
    def->nlabels = msg->nlabels;
    for (uint32_t index = 0; index < msg->nlabels; index++)
        def->labels [index] = msg->labels [index];
    def->restart_delay = msg->delay;
    def->max_per_worker = msg->max_per_worker;
    s_summary (msg->body, msg->body_size, def->summary);
    return DROVER_CODE_OK;
}

//  A create: checked, defined, its message kept in defs
static int
s_admin_create (drover_reconciler_t *reconcile, zhashx_t *defs, drover_msg_t **request_p,
                uint64_t now, char *buffer, size_t buffer_size, const char **reason_p)
{
    drover_service_row_t def;
    int code = drover_servicewire_check (*request_p, &def, buffer, buffer_size, reason_p);
    if (code != DROVER_CODE_OK)
        return code;
    if (drover_reconciler_has (reconcile, def.name)) {
        *reason_p = "service: one of that name exists";
        return DROVER_CODE_CONFLICT;
    }
    if (drover_reconciler_define (reconcile, &def, now) < 0) {
        *reason_p = "count: past service/max-services or service/max-replicas";
        return DROVER_CODE_TOO_MANY;
    }
    drover_msg_t *msg = *request_p;
    *request_p = NULL;
    msg->seq = 0;
    zhashx_update (defs, def.name, msg);
    return DROVER_CODE_OK;
}

//  Apply a SERVICE ADMIN to the reconciler and the definitions
int
drover_servicewire_admin (drover_reconciler_t *reconcile, zhashx_t *defs,
                          drover_msg_t **request_p, uint64_t now, char *buffer,
                          size_t buffer_size, const char **reason_p, uint32_t *replicas_p)
{
    assert (reconcile && defs && request_p && *request_p && reason_p && replicas_p);
    drover_msg_t *request = *request_p;
    *replicas_p = request->count;
    if (request->action == DROVER_SERVICE_CREATE)
        return s_admin_create (reconcile, defs, request_p, now, buffer, buffer_size, reason_p);
    if (request->action != DROVER_SERVICE_SCALE && request->action != DROVER_SERVICE_DELETE) {
        *reason_p = "action: not create, scale or delete";
        return DROVER_CODE_BAD_REQUEST;
    }
    drover_msg_t *def = (drover_msg_t *) zhashx_lookup (defs, request->service);
    if (!def || !drover_reconciler_has (reconcile, request->service)) {
        *reason_p = "no such service";
        return DROVER_CODE_NOT_FOUND;
    }
    if (request->action == DROVER_SERVICE_SCALE) {
        if (drover_reconciler_scale (reconcile, request->service, request->count, now)) {
            *reason_p = "count: past service/max-replicas";
            return DROVER_CODE_TOO_MANY;
        }
        def->count = request->count;
    }
    else {
        *replicas_p = def->count;
        drover_reconciler_undefine (reconcile, request->service, now);
        zhashx_delete (defs, request->service);
    }
    return DROVER_CODE_OK;
}

//  Build the TASK SUBMIT of one replica of a service
drover_msg_t *
drover_servicewire_submit (const drover_msg_t *def, uint32_t slot)
{
    assert (def);
    drover_msg_t *submit = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    submit->procs = def->procs;
    submit->mem = def->mem;
    for (uint32_t index = 0; index < def->nlabels; index++)
        drover_msg_add_label (submit, def->labels [index]);
    drover_msg_set_body (submit, def->body, def->body_size);
    snprintf (submit->service, sizeof submit->service, "%s", def->service);
    submit->slot = slot;
    submit->retries = 0;        //  a replica is restarted by the reconciler, not retried
    return submit;
}

//  Build the SERVICE TABLE answering a SERVICE LIST
drover_msg_t *
drover_servicewire_table (drover_reconciler_t *reconcile, const drover_msg_t *list,
                          uint64_t now)
{
    assert (reconcile && list);
    drover_service_row_t *services = NULL;
    drover_replica_row_t *replicas = NULL;
    size_t nservices = 0, nreplicas = 0;
    if (drover_reconciler_rows (reconcile, list->service, now, &services, &nservices,
                               &replicas, &nreplicas) < 0)
        return NULL;            //  no such service
    drover_msg_t *table = drover_msg_new (DROVER_MSG_SERVICE_TABLE);
    table->seq = list->seq;
    table->stats_now = *drover_reconciler_stats (reconcile);
    //  Rows past the wire's bound are left out: the counts say there are more
    if (nservices > DROVER_SERVICEWIRE_ROWS_MAX)
        nservices = DROVER_SERVICEWIRE_ROWS_MAX;
    if (nreplicas > DROVER_SERVICEWIRE_ROWS_MAX)
        nreplicas = DROVER_SERVICEWIRE_ROWS_MAX;
    table->nservices = (uint32_t) nservices;
    if (nservices) {
        table->service_rows = (drover_service_row_t *) zmalloc (nservices * sizeof *services);
        memcpy (table->service_rows, services, nservices * sizeof *services);
        for (size_t index = 0; index < nservices; index++)
            for (uint32_t label = 0; label < services [index].nlabels; label++)
                table->service_rows [index].labels [label] =
                    strdup (services [index].labels [label]);
    }
    table->nreplicas = (uint32_t) nreplicas;
    if (nreplicas) {
        table->replica_rows = (drover_replica_row_t *) zmalloc (nreplicas * sizeof *replicas);
        memcpy (table->replica_rows, replicas, nreplicas * sizeof *replicas);
    }
    drover_reconciler_rows_free (&services, nservices, &replicas);
    return table;
}

//  Build the PLAN RESULT of a change set
drover_msg_t *
drover_servicewire_plan_result (const drover_msg_t *plan, const drover_changeset_t *set)
{
    assert (plan && set);
    drover_msg_t *result = drover_msg_new (DROVER_MSG_PLAN_RESULT);
    result->seq = plan->seq;
    result->stats_now = set->before;
    result->stats_after = set->after;
    size_t count = set->count < DROVER_SERVICEWIRE_ROWS_MAX? set->count
                                                            : DROVER_SERVICEWIRE_ROWS_MAX;
    result->nchanges = (uint32_t) count;
    if (count) {
        result->changes = (drover_planchange_t *) zmalloc (count * sizeof *set->changes);
        memcpy (result->changes, set->changes, count * sizeof *set->changes);
    }
    return result;
}

//  Set the reconciler's gauges in metrics
void
drover_servicewire_counts (drover_reconciler_t *reconcile, uint64_t now,
                           drover_metrics_t *metrics)
{
    assert (reconcile && metrics);
    drover_service_row_t *rows = NULL;
    drover_replica_row_t *replicas = NULL;
    size_t nrows = 0, nreplicas = 0;
    uint64_t states [DROVER_SERVICE_STATE_MAX + 1] = { 0 };
    uint64_t wanted = 0, running = 0, pending = 0, restarts = 0;
    if (drover_reconciler_rows (reconcile, NULL, now, &rows, &nrows, &replicas, &nreplicas) >= 0) {
        for (size_t index = 0; index < nrows; index++) {
            if (rows [index].state <= DROVER_SERVICE_STATE_MAX)
                states [rows [index].state]++;
            wanted += rows [index].replicas;
            running += rows [index].running;
            pending += rows [index].pending;
            restarts += rows [index].restarts;
        }
        drover_reconciler_rows_free (&rows, nrows, &replicas);
    }
    //  DROVER_METRIC_SERVICES_* follow drover_service_state_t's order
    for (int state = 0; state <= DROVER_SERVICE_STATE_MAX; state++)
        drover_metrics_set (metrics, (drover_metric_t) (DROVER_METRIC_SERVICES_OK + state),
                              states [state]);
    drover_metrics_set (metrics, DROVER_METRIC_SERVICE_REPLICAS_WANTED, wanted);
    drover_metrics_set (metrics, DROVER_METRIC_SERVICE_REPLICAS_RUNNING, running);
    drover_metrics_set (metrics, DROVER_METRIC_SERVICE_REPLICAS_PENDING, pending);
    const drover_service_stats_t *stats = drover_reconciler_stats (reconcile);
    for (int bucket = 0; bucket < DROVER_HISTOGRAM_BUCKETS; bucket++)
        drover_metrics_set (metrics,
                              (drover_metric_t) (DROVER_METRIC_SERVICE_RESTARTS_0 + bucket),
                              stats->restarts [bucket]);
    drover_metrics_set (metrics, DROVER_METRIC_SERVICE_RESTARTS_SUM, restarts);
    drover_metrics_set (metrics, DROVER_METRIC_SERVICE_BEST, stats->best);
    drover_metrics_set (metrics, DROVER_METRIC_SERVICE_NOT_BEST, stats->not_best);
    for (int bucket = 0; bucket < DROVER_HISTOGRAM_BUCKETS; bucket++)
        drover_metrics_set (metrics, (drover_metric_t) (DROVER_METRIC_SERVICE_RANK_0 + bucket),
                            stats->ranks [bucket]);
    drover_metrics_set (metrics, DROVER_METRIC_SERVICE_CAPPED, stats->capped);
}

//  Write a term's statistics in words
void
drover_servicewire_words (const drover_service_stats_t *stats, char *text, size_t size)
{
    assert (stats && text && size);
    snprintf (text, size, "term %" PRIu64 ": services %u (ok %u, under %u, over %u, lost %u);"
              " replicas %u of %u running, %u pending; started %u, stopped %u, moved %u"
              " (rebalanced %u); best %u, not best %u, capped %u;"
              " workers %u of %u answered%s%s", stats->term, stats->services, stats->ok,
              stats->under, stats->over, stats->lost, stats->running, stats->wanted,
              stats->pending, stats->started, stats->stopped, stats->moved, stats->rebalanced,
              stats->best, stats->not_best, stats->capped, stats->answered,
              stats->workers, stats->complete? "": "; ", stats->complete? "": stats->why);
}
