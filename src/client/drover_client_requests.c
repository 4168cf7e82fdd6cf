/*  =========================================================================
    drover_client_requests - the client's requests that are one question
    and one answer: cancel a task, set a worker's admin setting, ask for
    the worker table, the task table, the kept events, everything about
    one task, why a task waits; the elastic pool (list it; hold, drain,
    run or destroy an instance); services (create, scale, delete, list)
    and plans (what a drain, a hold or a scale would do); the named queues
    of several brokers (QUEUES, and where a peer of one queue talks).

    Each is one synchronous request (drover_client_request) checked for
    the answer it expects. Each checks what it can before it sends
    anything (an id, a label that is not key=value, an argv the exec body
    cannot hold), so a mistake is told at once as
    DROVER_CLIENT_ERR_INVALID rather than as the broker's 400.

    A part of its own over the client's public and wire API
    (drover_client.h, drover_client_wire.h): it touches nothing of the
    client's state, which is drover_client.c's alone (the connection,
    moving between brokers, submits, waits).
    =========================================================================
*/

#include "drover_client_wire.h"
#include "drover_queuetable.h"


//  ---------------------------------------------------------------------
//  The request and its answer

//  Send a request and take its answer if it is a message of id
static drover_msg_t *
s_request_expect (drover_client_t *self, drover_msg_t *request, int id)
{
    drover_msg_t *reply = drover_client_request (self, request);
    if (reply && reply->id != id) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_PROTOCOL, "broker answered %s to %s",
                                 drover_msg_name (reply->id), drover_msg_name (request->id));
        drover_msg_destroy (&reply);
    }
    return reply;
}

//  Send a request whose answer is OK. Returns 0, or -1 with the error set.
static int
s_request_ok (drover_client_t *self, drover_msg_t *request)
{
    drover_msg_t *reply = s_request_expect (self, request, DROVER_MSG_OK);
    int rc = reply? 0: -1;
    drover_msg_destroy (&reply);
    return rc;
}

//  Send a request whose answer is OK and return the OK's text
static char *
s_request_text (drover_client_t *self, drover_msg_t *request)
{
    drover_msg_t *reply = s_request_expect (self, request, DROVER_MSG_OK);
    if (!reply)
        return NULL;
    char *text = strdup (reply->reason? reply->reason: "");
    assert (text);
    drover_msg_destroy (&reply);
    return text;
}


//  ---------------------------------------------------------------------
//  Tasks and workers

//  Cancel a task
int
drover_client_cancel (drover_client_t *self, uint64_t task)
{
    assert (self);
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_CANCEL);
    request->task = task;
    int rc = s_request_ok (self, request);
    drover_msg_destroy (&request);
    return rc;
}

//  Set a worker's admin setting
int
drover_client_admin (drover_client_t *self, const char *worker, int admin)
{
    assert (self);
    assert (worker);
    if (!drover_id_valid (worker)) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID,
                     "'%.64s' is not a worker id (printable, no spaces, 1..64 bytes)", worker);
        return -1;
    }
    if (admin < 0 || admin > DROVER_ADMIN_MAX) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID, "no admin setting %d", admin);
        return -1;
    }
    drover_msg_t *request = drover_msg_new (DROVER_MSG_WORKER_ADMIN);
    strcpy (request->worker, worker);
    request->admin = (uint8_t) admin;
    int rc = s_request_ok (self, request);
    drover_msg_destroy (&request);
    return rc;
}

//  Set a worker's admin setting with a reason and flags; return the answer
char *
drover_client_admin_reason (drover_client_t *self, const char *worker, int admin,
                            const char *reason, uint32_t flags)
{
    assert (self);
    assert (worker);
    if (!drover_id_valid (worker)) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID,
                     "'%.64s' is not a worker id (printable, no spaces, 1..64 bytes)", worker);
        return NULL;
    }
    if (admin < 0 || admin > DROVER_ADMIN_MAX) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID, "no admin setting %d", admin);
        return NULL;
    }
    if (reason && strlen (reason) > DROVER_REASON_MAX) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID,
                                 "a reason is at most %d bytes", DROVER_REASON_MAX);
        return NULL;
    }
    drover_msg_t *request = drover_msg_new (DROVER_MSG_WORKER_ADMIN);
    strcpy (request->worker, worker);
    request->admin = (uint8_t) admin;
    request->flags = flags;
    if (reason && *reason)
        drover_msg_set_reason (request, reason);
    char *answer = s_request_text (self, request);
    drover_msg_destroy (&request);
    return answer;
}

//  Ask for the worker table, as the wire has it
drover_msg_t *
drover_client_worker_table (drover_client_t *self)
{
    assert (self);
    drover_msg_t *request = drover_msg_new (DROVER_MSG_WORKER_LIST);
    drover_msg_t *reply = s_request_expect (self, request, DROVER_MSG_WORKER_TABLE);
    drover_msg_destroy (&request);
    return reply;
}

//  Ask for kept events after a seq
drover_msg_t *
drover_client_events (drover_client_t *self, uint64_t since, uint32_t limit)
{
    assert (self);
    drover_msg_t *request = drover_msg_new (DROVER_MSG_EVENT_REPLAY);
    request->since = since;
    request->limit = limit;
    drover_msg_t *reply = s_request_expect (self, request, DROVER_MSG_EVENT_LIST);
    drover_msg_destroy (&request);
    return reply;
}

//  Ask the broker to copy its state into path, waiting up to msec
int
drover_client_backup (drover_client_t *self, const char *path, int msec,
                      drover_backup_result_t *result)
{
    assert (self);
    assert (path);
    if (path [0] != '/') {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID,
                                 "%s is not an absolute path: the broker writes the backup on "
                                 "its own host, give the full path there", path);
        return -1;
    }
    if (strlen (path) > DROVER_PATH_MAX) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID,
                                 "the path is longer than %d bytes", DROVER_PATH_MAX);
        return -1;
    }
    //  The broker's level first, within the usual timeout: an unreachable
    //  broker is not waited on for the copy's
    if (drover_client_broker_level (self) < 0)
        return -1;
    drover_msg_t *request = drover_msg_new (DROVER_MSG_STATE_BACKUP);
    request->path = strdup (path);
    int timeout = drover_client_timeout (self);
    drover_client_set_timeout (self, msec > 0? msec: 3600 * 1000);
    drover_msg_t *reply = s_request_expect (self, request, DROVER_MSG_BACKUP_DONE);
    drover_client_set_timeout (self, timeout);
    drover_msg_destroy (&request);
    if (!reply)
        return -1;
    if (result)
        *result = (drover_backup_result_t) { .pages = reply->pages, .bytes = reply->bytes,
                                             .msec = reply->duration };
    drover_msg_destroy (&reply);
    return 0;
}

//  Ask for the workers
drover_workers_t *
drover_client_workers (drover_client_t *self)
{
    drover_msg_t *table = drover_client_worker_table (self);
    return drover_workers_from (&table);
}

//  Ask for task counts and rows
drover_tasks_t *
drover_client_tasks (drover_client_t *self, int state, uint32_t limit)
{
    return drover_client_tasks_labeled (self, state, limit, NULL, 0);
}

//  Ask for task counts and the rows of tasks with every one of the labels
drover_tasks_t *
drover_client_tasks_labeled (drover_client_t *self, int state, uint32_t limit,
                             const char *const *labels, uint32_t nlabels)
{
    drover_msg_t *table = drover_client_task_table (self, state, limit, labels, nlabels);
    return drover_tasks_from (&table);
}

//  Ask for task counts and rows, as the wire has them
drover_msg_t *
drover_client_task_table (drover_client_t *self, int state, uint32_t limit,
                          const char *const *labels, uint32_t nlabels)
{
    assert (self);
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_LIST);
    request->state = (uint8_t) state;
    request->limit = limit;
    for (uint32_t index = 0; index < nlabels; index++)
        if (drover_msg_add_label (request, labels [index])) {
            drover_msg_destroy (&request);
            drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID,
                                     "'%s' is not a label (k=v), or more than %d", labels [index],
                                     DROVER_LABELS_MAX);
            return NULL;
        }
    drover_msg_t *reply = s_request_expect (self, request, DROVER_MSG_TASK_TABLE);
    drover_msg_destroy (&request);
    return reply;
}

//  Ask for the members of an array or a workflow, as the wire has them
drover_msg_t *
drover_client_group_table (drover_client_t *self, uint64_t group, int state, uint32_t limit)
{
    assert (self);
    if (group == 0) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID, "0 is not a task id");
        return NULL;
    }
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_LIST);
    request->state = (uint8_t) state;
    request->limit = limit;
    request->group = group;
    drover_msg_t *reply = s_request_expect (self, request, DROVER_MSG_TASK_TABLE);
    drover_msg_destroy (&request);
    return reply;
}

//  Ask for everything about one task
drover_msg_t *
drover_client_show (drover_client_t *self, uint64_t task)
{
    assert (self);
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_SHOW);
    request->task = task;
    drover_msg_t *reply = s_request_expect (self, request, DROVER_MSG_TASK_INFO);
    drover_msg_destroy (&request);
    return reply;
}

//  Ask why a task waits
drover_msg_t *
drover_client_explain (drover_client_t *self, uint64_t task)
{
    assert (self);
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_EXPLAIN);
    request->task = task;
    drover_msg_t *reply = s_request_expect (self, request, DROVER_MSG_TASK_EXPLANATION);
    drover_msg_destroy (&request);
    return reply;
}


//  ---------------------------------------------------------------------
//  The elastic pool

//  Ask for the pool's table
drover_msg_t *
drover_client_pool (drover_client_t *self)
{
    assert (self);
    drover_msg_t *request = drover_msg_new (DROVER_MSG_POOL_LIST);
    drover_msg_t *reply = s_request_expect (self, request, DROVER_MSG_POOL_TABLE);
    drover_msg_destroy (&request);
    return reply;
}

//  Ask the pool to hold, drain, run or destroy an instance
char *
drover_client_pool_admin (drover_client_t *self, const char *instance, int action)
{
    assert (self);
    assert (instance);
    if (!drover_id_valid (instance)) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID,
                     "'%.64s' is not an instance id (printable, no spaces, 1..64 bytes)",
                     instance);
        return NULL;
    }
    if (action < 0 || action > DROVER_POOLADMIN_MAX) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID, "no pool action %d", action);
        return NULL;
    }
    drover_msg_t *request = drover_msg_new (DROVER_MSG_POOL_ADMIN);
    strcpy (request->worker, instance);
    request->admin = (uint8_t) action;
    char *answer = s_request_text (self, request);
    drover_msg_destroy (&request);
    return answer;
}


//  ---------------------------------------------------------------------
//  Services and plans

//  Check that name is a service name; sets the error if not
static bool
s_name_valid (drover_client_t *self, const char *name)
{
    if (name && drover_id_valid (name))
        return true;
    drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID,
                             "'%.64s' is not a service name (printable, no spaces, 1..64 bytes)",
                             name? name: "");
    return false;
}

//  Create a service (SERVICE ADMIN create) from def and argv
int
drover_client_service_create (drover_client_t *self, const drover_service_row_t *def,
                              int argc, const char **argv)
{
    assert (self);
    assert (def);
    if (!s_name_valid (self, def->name))
        return -1;
    if (argc < 1 || !argv || def->nlabels > DROVER_LABELS_MAX) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID,
                                 argc < 1? "a service needs a command": "too many labels");
        return -1;
    }
    //  max-per-worker is a level-7 field: an older broker would refuse it
    if (def->max_per_worker) {
        int level = drover_client_broker_level (self);
        if (level < 0)
            return -1;
        if (level < 7) {
            drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID,
                                     "the broker speaks protocol level %d: --max-per-worker "
                                     "needs level 7 (drover 0.7)", level);
            return -1;
        }
    }
    drover_exec_t *exec = drover_exec_new ();
    size_t size = 0;
    byte *body = NULL;
    if (drover_exec_set_argv (exec, argc, argv) == 0)
        body = drover_exec_encode (exec, &size);
    drover_exec_destroy (&exec);
    if (!body) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID,
                                 "the command does not fit an exec body");
        return -1;
    }
    drover_msg_t *request = drover_msg_new (DROVER_MSG_SERVICE_ADMIN);
    request->action = DROVER_SERVICE_CREATE;
    strcpy (request->service, def->name);
    request->count = def->replicas;
    request->procs = def->procs? def->procs: 1;
    request->mem = def->mem;
    request->delay = def->restart_delay;
    request->max_per_worker = def->max_per_worker;
    drover_msg_set_body (request, body, size);
    free (body);
    int rc = 0;
    for (uint32_t index = 0; index < def->nlabels && rc == 0; index++)
        if (drover_msg_add_label (request, def->labels [index])) {
            drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID,
                                     "'%.128s' is not a label (key=value)", def->labels [index]);
            rc = -1;
        }
    if (rc == 0)
        rc = s_request_ok (self, request);
    drover_msg_destroy (&request);
    return rc;
}

//  Scale a service to replicas (SERVICE ADMIN scale)
int
drover_client_service_scale (drover_client_t *self, const char *name, uint32_t replicas)
{
    assert (self);
    if (!s_name_valid (self, name))
        return -1;
    drover_msg_t *request = drover_msg_new (DROVER_MSG_SERVICE_ADMIN);
    request->action = DROVER_SERVICE_SCALE;
    strcpy (request->service, name);
    request->count = replicas;
    int rc = s_request_ok (self, request);
    drover_msg_destroy (&request);
    return rc;
}

//  Delete a service and stop its replicas (SERVICE ADMIN delete)
int
drover_client_service_delete (drover_client_t *self, const char *name)
{
    assert (self);
    if (!s_name_valid (self, name))
        return -1;
    drover_msg_t *request = drover_msg_new (DROVER_MSG_SERVICE_ADMIN);
    request->action = DROVER_SERVICE_DELETE;
    strcpy (request->service, name);
    int rc = s_request_ok (self, request);
    drover_msg_destroy (&request);
    return rc;
}

//  List services (SERVICE LIST): all, or the one named with its replicas
drover_msg_t *
drover_client_services (drover_client_t *self, const char *name)
{
    assert (self);
    if (name && *name && !s_name_valid (self, name))
        return NULL;
    drover_msg_t *request = drover_msg_new (DROVER_MSG_SERVICE_LIST);
    if (name)
        strcpy (request->service, name);
    drover_msg_t *reply = s_request_expect (self, request, DROVER_MSG_SERVICE_TABLE);
    drover_msg_destroy (&request);
    return reply;
}

//  Ask what a change would do, without doing it (PLAN)
drover_msg_t *
drover_client_plan (drover_client_t *self, int action, const char *target, uint32_t count)
{
    assert (self);
    if (action < 0 || action > DROVER_PLAN_ACTION_MAX) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID, "no plan action %d", action);
        return NULL;
    }
    bool named = action != DROVER_PLAN_TERM;
    if (named && !(target && drover_id_valid (target))) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID,
                                 "'%.64s' is not a %s name (printable, no spaces, 1..64 bytes)",
                                 target? target: "",
                                 action == DROVER_PLAN_SCALE? "service": "worker");
        return NULL;
    }
    drover_msg_t *request = drover_msg_new (DROVER_MSG_PLAN);
    request->action = (uint8_t) action;
    if (action == DROVER_PLAN_SCALE) {
        strcpy (request->service, target);
        request->count = count;
    }
    else
    if (named)
        strcpy (request->worker, target);
    drover_msg_t *reply = s_request_expect (self, request, DROVER_MSG_PLAN_RESULT);
    drover_msg_destroy (&request);
    return reply;
}


//  ---------------------------------------------------------------------
//  Named queues: where the brokers serve them (PROTOCOL.md §7.39, §17)
//
//  Every broker answers QUEUES itself, a standby too, so the request is
//  answered by the first broker of the list that is alive; the client's
//  usual moving between brokers takes care of dead ones.

//  Ask the brokers for their queue table
drover_msg_t *
drover_client_queues (drover_client_t *self)
{
    assert (self);
    drover_msg_t *request = drover_msg_new (DROVER_MSG_QUEUES);
    drover_msg_t *reply = s_request_expect (self, request, DROVER_MSG_QUEUE_TABLE);
    drover_msg_destroy (&request);
    return reply;
}

//  Say which queues there are, for an error about one that is not: "a, b"
//  or "none", at most a line of them
static char *
s_queue_names (drover_queuetable_t *table)
{
    size_t size = drover_queuetable_size (table);
    if (size == 0)
        return strdup ("none");
    char *names = strdup ("");
    for (size_t index = 0; index < size && strlen (names) < 200; index++) {
        char *longer = zsys_sprintf ("%s%s%s", names, index? ", ": "",
                                     drover_queuetable_item (table, index)->name);
        zstr_free (&names);
        names = longer;
    }
    if (strlen (names) >= 200) {
        char *longer = zsys_sprintf ("%s, ...", names);
        zstr_free (&names);
        names = longer;
    }
    return names;
}

//  Return where a peer of queue talks, owner first
char *
drover_client_queue_endpoints (drover_client_t *self, const char *queue)
{
    assert (self);
    if (!drover_queue_name_valid (queue)) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID, "'%.64s' is not a queue name "
                                 "(1..64 of A-Z a-z 0-9 . _ -)", queue? queue: "");
        return NULL;
    }
    drover_msg_t *reply = drover_client_queues (self);
    if (!reply) {
        if (drover_client_error_code (self) == DROVER_CODE_UNEXPECTED)
            drover_client_set_error (self, DROVER_CODE_UNEXPECTED, "the broker knows no "
                                     "named queues (it predates QUEUES): no queue '%s'", queue);
        return NULL;
    }
    drover_queuetable_t *table = drover_queuetable_decode (reply);
    drover_msg_destroy (&reply);
    char *list = drover_queuetable_endpoints_for (table, queue);
    if (!list) {
        char *names = s_queue_names (table);
        drover_client_set_error (self, DROVER_CODE_NOT_FOUND, "no queue '%s' (the brokers "
                                 "offer: %s)", queue, names);
        zstr_free (&names);
    }
    else
    if (!*list) {
        zstr_free (&list);
        drover_client_set_error (self, DROVER_CODE_UNAVAILABLE, "no broker offers queue '%s' "
                                 "now", queue);
    }
    drover_queuetable_destroy (&table);
    return list;
}


//  ---------------------------------------------------------------------
//  Workflows

//  Submit a whole workflow and wait for its ids
int
drover_client_submit_workflow (drover_client_t *self, drover_workflow_t *workflow,
                               uint64_t *workflow_p, uint64_t *ids)
{
    assert (self);
    assert (workflow);
    size_t count = drover_workflow_size (workflow);
    if (count == 0 || count > DROVER_STEPS_MAX) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID,
                                 "a workflow has 1 to %d steps, not %zu", DROVER_STEPS_MAX, count);
        return -1;
    }
    char why [DROVER_REASON_MAX + 1];
    if (drover_workflow_check (workflow, why, sizeof why)) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID, "%s", why);
        return -1;
    }
    //  The message borrows the workflow's names and submits: its arrays
    //  are ours, emptied before it is destroyed
    drover_msg_t *request = drover_msg_new (DROVER_MSG_WORKFLOW_SUBMIT);
    drover_msg_set_reason (request, drover_workflow_title (workflow));
    request->nsteps = (uint32_t) count;
    request->step_names = (char **) zmalloc (count * sizeof (char *));
    request->steps = (drover_msg_t **) zmalloc (count * sizeof (drover_msg_t *));
    for (size_t index = 0; index < count; index++) {
        request->step_names [index] = (char *) drover_workflow_name (workflow, (int) index + 1);
        request->steps [index] = drover_submit_msg (drover_workflow_submit (workflow,
                                                                            (int) index + 1));
    }
    drover_msg_t *reply = s_request_expect (self, request, DROVER_MSG_WORKFLOW_ACCEPTED);
    free (request->step_names);
    free (request->steps);
    request->step_names = NULL;
    request->steps = NULL;
    request->nsteps = 0;
    drover_msg_destroy (&request);
    if (!reply)
        return -1;
    int rc = 0;
    if (reply->ntasks != count || reply->task == 0) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_PROTOCOL,
                                 "the broker answered %u ids to a workflow of %zu steps",
                                 reply->ntasks, count);
        rc = -1;
    }
    else {
        if (workflow_p)
            *workflow_p = reply->task;
        if (ids)
            memcpy (ids, reply->tasks, count * sizeof (uint64_t));
    }
    drover_msg_destroy (&reply);
    return rc;
}
