/*  =========================================================================
    drover_client_service - services (create, scale, delete, list), plans
    (what a drain, a hold or a scale would do)

    Each call checks what it can before it sends anything (a name that is
    not an id, a label that is not key=value, an argv the exec body cannot
    hold), so a mistake is told at once as DROVER_CLIENT_ERR_INVALID
    rather than as the broker's 400.
    =========================================================================
*/

#include "drover_client_internal.h"

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
        rc = drover_client_request_ok (self, request);
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
    int rc = drover_client_request_ok (self, request);
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
    int rc = drover_client_request_ok (self, request);
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
    drover_msg_t *reply = drover_client_request_expect (self, request, DROVER_MSG_SERVICE_TABLE);
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
    drover_msg_t *reply = drover_client_request_expect (self, request, DROVER_MSG_PLAN_RESULT);
    drover_msg_destroy (&request);
    return reply;
}
