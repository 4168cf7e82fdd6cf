/*  =========================================================================
    drover_client_requests - the client's plain requests: cancel a task,
    set a worker's admin setting, ask for the worker table, the kept
    events, the task table, everything about one task. Each is one
    synchronous request (drover_client_request) checked for the answer it
    expects.

    Part of the client (drover_client_internal.h is what its files share).
    =========================================================================
*/

#include "drover_client_internal.h"

//  Cancel a task
int
drover_client_cancel (drover_client_t *self, uint64_t task)
{
    assert (self);
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_CANCEL);
    request->task = task;
    int rc = drover_client_request_ok (self, request);
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
    int rc = drover_client_request_ok (self, request);
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
    char *answer = drover_client_request_text (self, request);
    drover_msg_destroy (&request);
    return answer;
}

//  Ask for the worker table, as the wire has it
drover_msg_t *
drover_client_worker_table (drover_client_t *self)
{
    assert (self);
    drover_msg_t *request = drover_msg_new (DROVER_MSG_WORKER_LIST);
    drover_msg_t *reply = drover_client_request_expect (self, request, DROVER_MSG_WORKER_TABLE);
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
    drover_msg_t *reply = drover_client_request_expect (self, request, DROVER_MSG_EVENT_LIST);
    drover_msg_destroy (&request);
    return reply;
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
    drover_msg_t *reply = drover_client_request_expect (self, request, DROVER_MSG_TASK_TABLE);
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
    drover_msg_t *reply = drover_client_request_expect (self, request, DROVER_MSG_TASK_INFO);
    drover_msg_destroy (&request);
    return reply;
}
