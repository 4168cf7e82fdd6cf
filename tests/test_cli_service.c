/*  =========================================================================
    test_cli_service - `drover service`, `drover plan` and `drover submit
    --affinity` through the real CLI against a broker played by the test

    A fake broker (an actor on a ROUTER) answers SERVICE LIST with a
    hand-made SERVICE TABLE, PLAN with a hand-made PLAN RESULT, SERVICE
    ADMIN and TASK SUBMIT with OK and ACCEPTED, and keeps the last request
    of each kind: the test checks what the CLI printed (tables for people,
    JSON that parses) and what it sent (every flag on the wire). Refusals
    (404, 410) exit 1 with the broker's reason; arguments the CLI cannot
    use exit 2 before any request.
    =========================================================================
*/

#include "testutil_cluster.h"
#include <sys/wait.h>

//  ---------------------------------------------------------------------
//  The fake broker

//  Term statistics with every figure set
static void
s_fill_stats (drover_service_stats_t *stats, uint32_t running, bool complete)
{
    *stats = (drover_service_stats_t) { .term = 41, .at = (uint64_t) zclock_time () - 12000,
        .duration = 17, .complete = complete, .workers = 3, .answered = complete? 3: 2,
        .services = 2, .lost = 0, .under = 1, .ok = 1, .over = 0, .wanted = 6,
        .running = running, .pending = 1, .started = 1, .stopped = 0, .moved = 2,
        .restarts = { 3, 2, 1, 0, 0, 0, 0, 1 } };
    if (!complete)
        strcpy (stats->why, "incomplete: w3 did not answer");
}

//  A SERVICE TABLE: every service, or web with its replicas
static drover_msg_t *
s_table (bool web_only)
{
    drover_msg_t *table = drover_msg_new (DROVER_MSG_SERVICE_TABLE);
    s_fill_stats (&table->stats_now, 4, false);
    table->nservices = web_only? 1: 2;
    table->service_rows = (drover_service_row_t *) zmalloc (2 * sizeof (drover_service_row_t));
    drover_service_row_t *web = &table->service_rows [0];
    *web = (drover_service_row_t) { .name = "web", .replicas = 4, .procs = 2,
        .mem = 1ull << 30, .restart_delay = 2500, .running = 3, .pending = 1, .restarts = 5,
        .state = DROVER_SERVICE_UNDER, .created = (uint64_t) zclock_time () - 3600000,
        .summary = "python3 -m http.server", .why = "slot 3: no worker has room" };
    web->labels [0] = strdup ("zone=eu");
    web->nlabels = 1;
    if (!web_only)
        table->service_rows [1] = (drover_service_row_t) { .name = "cache", .replicas = 2,
            .procs = 1, .running = 2, .state = DROVER_SERVICE_OK,
            .created = (uint64_t) zclock_time () - 60000, .summary = "memcached" };
    if (web_only) {
        table->nreplicas = 2;
        table->replica_rows = (drover_replica_row_t *) zmalloc (2 * sizeof (drover_replica_row_t));
        table->replica_rows [0] = (drover_replica_row_t) { .service = "web", .slot = 0,
            .task = 77, .attempt = 1, .worker = "w1", .state = DROVER_REPLICA_RUNNING,
            .since = (uint64_t) zclock_time () - 5000, .restarts = 0 };
        table->replica_rows [1] = (drover_replica_row_t) { .service = "web", .slot = 3,
            .state = DROVER_REPLICA_WAITING, .since = (uint64_t) zclock_time () - 2000,
            .restarts = 5, .why = "backoff 4s" };
    }
    return table;
}

//  A PLAN RESULT of a drain of w2
static drover_msg_t *
s_result (void)
{
    drover_msg_t *result = drover_msg_new (DROVER_MSG_PLAN_RESULT);
    s_fill_stats (&result->stats_now, 4, true);
    s_fill_stats (&result->stats_after, 5, true);
    result->stats_after.moved = 1;
    result->nchanges = 3;
    result->changes = (drover_planchange_t *) zmalloc (3 * sizeof (drover_planchange_t));
    result->changes [0] = (drover_planchange_t) { .kind = DROVER_CHANGE_MOVE, .service = "web",
        .slot = 1, .task = 99, .from = "w2", .to = "w3", .why = "worker draining" };
    result->changes [1] = (drover_planchange_t) { .kind = DROVER_CHANGE_FINISH, .task = 44,
        .from = "w2", .why = "worker draining" };
    result->changes [2] = (drover_planchange_t) { .kind = DROVER_CHANGE_START,
        .service = "web", .slot = 3, .to = "w1", .why = "under" };
    return result;
}

//  An ERROR of code and reason
static drover_msg_t *
s_error (uint16_t code, const char *reason)
{
    drover_msg_t *error = drover_msg_new (DROVER_MSG_ERROR);
    error->code = code;
    drover_msg_set_reason (error, reason);
    return error;
}

//  The protocol level the fake broker speaks in CLIENT WELCOME (0: it
//  does not answer CLIENT HELLO, as before levels); set before it starts
static int s_level = 0;

//  What the fake broker answers to request
static drover_msg_t *
s_answer (const drover_msg_t *request)
{
    drover_msg_t *reply = NULL;
    switch (request->id) {
        case DROVER_MSG_CLIENT_HELLO:
            if (s_level) {
                reply = drover_msg_new (DROVER_MSG_CLIENT_WELCOME);
                reply->level = (uint16_t) s_level;
            }
            else
                reply = s_error (DROVER_CODE_UNEXPECTED, "not played by this test");
            break;
        case DROVER_MSG_SERVICE_LIST:
            if (streq (request->service, "nope"))
                reply = s_error (DROVER_CODE_NOT_FOUND, "unknown service nope");
            else
                reply = s_table (*request->service != 0);
            break;
        case DROVER_MSG_SERVICE_ADMIN:
            if (streq (request->service, "dup"))
                reply = s_error (DROVER_CODE_CONFLICT, "service dup exists");
            else {
                reply = drover_msg_new (DROVER_MSG_OK);
                reply->code = DROVER_CODE_OK;
            }
            break;
        case DROVER_MSG_PLAN:
            if (streq (request->worker, "ghost"))
                reply = s_error (DROVER_CODE_NOT_FOUND, "unknown worker ghost");
            else
                reply = s_result ();
            break;
        case DROVER_MSG_TASK_SUBMIT:
            reply = drover_msg_new (DROVER_MSG_TASK_ACCEPTED);
            reply->task = 5;
            break;
        default:
            reply = s_error (DROVER_CODE_UNEXPECTED, "not played by this test");
    }
    reply->seq = request->seq;
    return reply;
}

//  The fake broker's actor. In: LAST id (answers count frame: the requests
//  had, and the last request of that id, empty if none), $TERM.
static void
s_broker_actor (zsock_t *pipe, void *args)
{
    zsock_t *router = zsock_new (ZMQ_ROUTER);
    int port = zsock_bind (router, "tcp://127.0.0.1:*");
    assert (port > 0);
    zpoller_t *poller = zpoller_new (pipe, router, NULL);
    zframe_t *last [DROVER_MSG_ID_MAX + 1] = { NULL };
    int requests = 0;
    zsock_signal (pipe, 0);
    zsock_send (pipe, "i", port);
    while (true) {
        void *which = zpoller_wait (poller, -1);
        if (which == pipe) {
            zmsg_t *command = zmsg_recv (pipe);
            char *word = command? zmsg_popstr (command): NULL;
            bool term = !word || streq (word, "$TERM");
            if (!term && streq (word, "LAST")) {
                char *id = zmsg_popstr (command);
                int index = atoi (id);
                zframe_t *frame = last [index]? zframe_dup (last [index]): zframe_new (NULL, 0);
                zsock_send (pipe, "if", requests, frame);
                zframe_destroy (&frame);
                zstr_free (&id);
            }
            zstr_free (&word);
            zmsg_destroy (&command);
            if (term)
                break;
        }
        else
        if (which == router) {
            zmsg_t *message = zmsg_recv (router);
            zframe_t *route = zmsg_pop (message);
            zframe_t *frame = zmsg_pop (message);
            drover_msg_t *request = drover_msg_new (0);
            if (frame && drover_msg_decode (request, zframe_data (frame), zframe_size (frame)) == 0) {
                requests++;
                zframe_destroy (&last [request->id]);
                last [request->id] = zframe_dup (frame);
                drover_msg_t *reply = s_answer (request);
                zframe_t *encoded = drover_msg_encode (reply);
                assert (encoded);
                zmsg_t *out = zmsg_new ();
                zmsg_append (out, &route);
                zmsg_append (out, &encoded);
                zmsg_send (&out, router);
                drover_msg_destroy (&reply);
            }
            drover_msg_destroy (&request);
            zframe_destroy (&route);
            zframe_destroy (&frame);
            zmsg_destroy (&message);
        }
        else
            break;
    }
    for (int index = 0; index <= DROVER_MSG_ID_MAX; index++)
        zframe_destroy (&last [index]);
    zpoller_destroy (&poller);
    zsock_destroy (&router);
}

//  The test's broker
typedef struct {
    zactor_t *actor;            //  the fake broker
    char endpoint [64];         //  where it listens
} s_broker_t;

static s_broker_t *
s_broker_new (void)
{
    s_broker_t *self = (s_broker_t *) zmalloc (sizeof (s_broker_t));
    self->actor = zactor_new (s_broker_actor, NULL);
    assert_non_null (self->actor);
    int port = 0;
    assert_int_equal (zsock_recv (self->actor, "i", &port), 0);
    snprintf (self->endpoint, sizeof self->endpoint, "tcp://127.0.0.1:%d", port);
    return self;
}

static void
s_broker_destroy (s_broker_t **self_p)
{
    zactor_destroy (&(*self_p)->actor);
    free (*self_p);
    *self_p = NULL;
}

//  The last request of id the broker had (NULL if none; the caller
//  destroys it); sets *requests_p to the requests it had in all
static drover_msg_t *
s_last (s_broker_t *self, int id, int *requests_p)
{
    zstr_sendm (self->actor, "LAST");
    zstr_sendf (self->actor, "%d", id);
    zframe_t *frame = NULL;
    assert_int_equal (zsock_recv (self->actor, "if", requests_p, &frame), 0);
    drover_msg_t *request = NULL;
    if (zframe_size (frame)) {
        request = drover_msg_new (0);
        assert_int_equal (drover_msg_decode (request, zframe_data (frame), zframe_size (frame)), 0);
    }
    zframe_destroy (&frame);
    return request;
}

//  ---------------------------------------------------------------------

//  service list, show and stats print the table for people and as JSON;
//  show of an unknown service exits 1 with the broker's reason
static void
test_service_listings (void **state)
{
    s_broker_t *broker = s_broker_new ();
    testutil_cli_t run;

    testutil_cli (broker->endpoint, (const char *[]) { "service", "list", NULL }, &run);
    testutil_cli_expect (&run, 0, run.out, "NAME");
    testutil_cli_expect (&run, 0, run.out, "python3 -m http.server");
    testutil_cli_expect (&run, 0, run.out, "under");
    testutil_cli_expect (&run, 0, run.out, "slot 3: no worker has room");
    testutil_cli_expect (&run, 0, run.out, "memcached");
    testutil_cli_expect (&run, 0, run.out, "term 41: incomplete: w3 did not answer");
    int requests;
    drover_msg_t *list = s_last (broker, DROVER_MSG_SERVICE_LIST, &requests);
    assert_non_null (list);
    assert_string_equal (list->service, "");
    drover_msg_destroy (&list);

    testutil_cli (broker->endpoint, (const char *[]) { "service", "list", "--json", NULL }, &run);
    testutil_assert_json (run.out);
    testutil_cli_expect (&run, 0, run.out,
                         "\"services\":[{\"name\":\"web\",\"replicas\":4,\"running\":3");
    testutil_cli_expect (&run, 0, run.out, "\"labels\":[\"zone=eu\"]");
    testutil_cli_expect (&run, 0, run.out, "\"complete\":false");

    testutil_cli (broker->endpoint, (const char *[]) { "service", "show", "web", NULL }, &run);
    testutil_cli_expect (&run, 0, run.out, "replicas: 4 wanted, 3 running, 1 pending: under");
    testutil_cli_expect (&run, 0, run.out, "labels zone=eu");
    testutil_cli_expect (&run, 0, run.out, "SLOT");
    testutil_cli_expect (&run, 0, run.out, "backoff 4s");
    testutil_cli_expect (&run, 0, run.out, "waiting");
    list = s_last (broker, DROVER_MSG_SERVICE_LIST, &requests);
    assert_string_equal (list->service, "web");
    drover_msg_destroy (&list);
    testutil_cli (broker->endpoint, (const char *[]) { "service", "show", "web", "-j", NULL },
                  &run);
    testutil_assert_json (run.out);
    testutil_cli_expect (&run, 0, run.out, "\"service\":{\"name\":\"web\"");
    testutil_cli_expect (&run, 0, run.out,
                         "\"replicas\":[{\"service\":\"web\",\"slot\":0,\"worker\":\"w1\","
                         "\"state\":\"running\",\"task\":77,\"attempt\":1");

    testutil_cli (broker->endpoint, (const char *[]) { "service", "show", "nope", NULL }, &run);
    testutil_cli_expect (&run, 1, run.err, "unknown service nope");

    testutil_cli (broker->endpoint, (const char *[]) { "service", "stats", NULL }, &run);
    testutil_cli_expect (&run, 0, run.out, "term 41");
    testutil_cli_expect (&run, 0, run.out,
                         "incomplete, removed nothing: incomplete: w3 did not answer");
    testutil_cli_expect (&run, 0, run.out, "workers:  3 asked, 2 answered");
    testutil_cli_expect (&run, 0, run.out, "services: 2: 0 lost, 1 under, 1 ok, 0 over");
    testutil_cli_expect (&run, 0, run.out, "replicas: 6 wanted, 4 running, 1 pending");
    testutil_cli_expect (&run, 0, run.out, "64+: 1");
    testutil_cli (broker->endpoint, (const char *[]) { "service", "stats", "--json", NULL }, &run);
    testutil_assert_json (run.out);
    testutil_cli_expect (&run, 0, run.out, "\"term\":41");
    testutil_cli_expect (&run, 0, run.out, "\"restarts\":{\"0\":3,\"1\":2,\"2-3\":1");
    s_broker_destroy (&broker);
}

//  service create, scale and delete send every flag; a refusal exits 1
//  with the broker's reason
static void
test_service_admin (void **state)
{
    s_broker_t *broker = s_broker_new ();
    testutil_cli_t run;
    int requests;
    testutil_cli (broker->endpoint, (const char *[]) { "service", "create", "web2", "--replicas",
                                                       "3", "--procs", "2", "--mem", "1G", "-l",
                                                       "zone=a", "--label", "gpu=",
                                                       "--restart-delay", "2.5", "--", "sleep",
                                                       "100", "-x", NULL }, &run);
    testutil_cli_expect (&run, 0, run.out, "service web2: created, 3 replicas");
    drover_msg_t *admin = s_last (broker, DROVER_MSG_SERVICE_ADMIN, &requests);
    assert_non_null (admin);
    assert_int_equal (admin->action, DROVER_SERVICE_CREATE);
    assert_string_equal (admin->service, "web2");
    assert_int_equal (admin->count, 3);
    assert_int_equal (admin->procs, 2);
    assert_true (admin->mem == 1ull << 30);
    assert_int_equal (admin->nlabels, 2);
    assert_string_equal (admin->labels [0], "zone=a");
    assert_string_equal (admin->labels [1], "gpu=");
    assert_int_equal (admin->delay, 2500);
    drover_exec_t *exec = drover_exec_new ();
    const char *error;
    assert_int_equal (drover_exec_decode (exec, admin->body, admin->body_size, &error), 0);
    assert_int_equal (exec->argc, 3);
    assert_string_equal (exec->argv [0], "sleep");
    assert_string_equal (exec->argv [2], "-x");
    drover_exec_destroy (&exec);
    drover_msg_destroy (&admin);

    //  The defaults: one proc, any memory, the broker's delay
    testutil_cli (broker->endpoint, (const char *[]) { "service", "create", "one", "-r", "0", "--",
                                                       "true", NULL }, &run);
    testutil_cli_expect (&run, 0, run.out, "created, 0 replicas");
    admin = s_last (broker, DROVER_MSG_SERVICE_ADMIN, &requests);
    assert_int_equal (admin->count, 0);
    assert_int_equal (admin->procs, 1);
    assert_true (admin->mem == 0);
    assert_int_equal (admin->delay, 0);
    drover_msg_destroy (&admin);

    testutil_cli (broker->endpoint, (const char *[]) { "service", "create", "dup", "--replicas",
                                                       "1", "--", "true", NULL }, &run);
    testutil_cli_expect (&run, 1, run.err, "service dup exists");

    testutil_cli (broker->endpoint, (const char *[]) { "service", "scale", "web", "6", NULL },
                  &run);
    testutil_cli_expect (&run, 0, run.out, "service web: scaled to 6 replicas");
    admin = s_last (broker, DROVER_MSG_SERVICE_ADMIN, &requests);
    assert_int_equal (admin->action, DROVER_SERVICE_SCALE);
    assert_string_equal (admin->service, "web");
    assert_int_equal (admin->count, 6);
    assert_int_equal (admin->body_size, 0);
    drover_msg_destroy (&admin);

    testutil_cli (broker->endpoint, (const char *[]) { "service", "delete", "web", NULL }, &run);
    testutil_cli_expect (&run, 0, run.out, "service web: deleted");
    admin = s_last (broker, DROVER_MSG_SERVICE_ADMIN, &requests);
    assert_int_equal (admin->action, DROVER_SERVICE_DELETE);
    assert_string_equal (admin->service, "web");
    drover_msg_destroy (&admin);
    s_broker_destroy (&broker);
}

//  plan prints one line per change and the statistics side by side, or
//  JSON; it sends the worker of a drain or hold, the service and count
//  of a scale; an unknown worker exits 1
static void
test_plans (void **state)
{
    s_broker_t *broker = s_broker_new ();
    testutil_cli_t run;
    int requests;
    testutil_cli (broker->endpoint, (const char *[]) { "plan", "drain", "w2", NULL }, &run);
    testutil_cli_expect (&run, 0, run.out, "move     web/1 (task 99) w2 -> w3  (worker draining)");
    testutil_cli_expect (&run, 0, run.out, "finish   task 44 on w2  (worker draining)");
    testutil_cli_expect (&run, 0, run.out, "start    web/3 on w1  (under)");
    testutil_cli_expect (&run, 0, run.out, "BEFORE");
    testutil_cli_expect (&run, 0, run.out, "AFTER");
    //  replicas running: 4 before, 5 after, on one line
    const char *line = strstr (run.out, "replicas running");
    assert_non_null (line);
    int before = 0, after = 0;
    assert_int_equal (sscanf (line, "replicas running %d %d", &before, &after), 2);
    assert_int_equal (before, 4);
    assert_int_equal (after, 5);
    drover_msg_t *plan = s_last (broker, DROVER_MSG_PLAN, &requests);
    assert_int_equal (plan->action, DROVER_PLAN_DRAIN);
    assert_string_equal (plan->worker, "w2");
    drover_msg_destroy (&plan);

    testutil_cli (broker->endpoint, (const char *[]) { "plan", "drain", "w2", "--json", NULL },
                  &run);
    testutil_assert_json (run.out);
    testutil_cli_expect (&run, 0, run.out, "{\"action\":\"drain\",\"target\":\"w2\",\"changes\":"
                         "[{\"kind\":\"move\",\"service\":\"web\",\"slot\":1,\"task\":99,"
                         "\"from\":\"w2\",\"to\":\"w3\",\"why\":\"worker draining\"}");
    testutil_cli_expect (&run, 0, run.out, "\"after\":{\"term\":41");

    testutil_cli (broker->endpoint, (const char *[]) { "plan", "hold", "w9", NULL }, &run);
    testutil_cli_expect (&run, 0, run.out,
                         "w9 would take no new task or replica; what runs there stays");
    testutil_cli_expect (&run, 0, run.out, "BEFORE");
    plan = s_last (broker, DROVER_MSG_PLAN, &requests);
    assert_int_equal (plan->action, DROVER_PLAN_HOLD);
    assert_string_equal (plan->worker, "w9");
    drover_msg_destroy (&plan);

    testutil_cli (broker->endpoint, (const char *[]) { "plan", "service", "scale", "web", "2",
                                                       NULL }, &run);
    testutil_cli_expect (&run, 0, run.out, "BEFORE");
    plan = s_last (broker, DROVER_MSG_PLAN, &requests);
    assert_int_equal (plan->action, DROVER_PLAN_SCALE);
    assert_string_equal (plan->service, "web");
    assert_int_equal (plan->count, 2);
    drover_msg_destroy (&plan);

    testutil_cli (broker->endpoint, (const char *[]) { "plan", "term", NULL }, &run);
    testutil_cli_expect (&run, 0, run.out, "BEFORE");
    plan = s_last (broker, DROVER_MSG_PLAN, &requests);
    assert_int_equal (plan->action, DROVER_PLAN_TERM);
    drover_msg_destroy (&plan);

    testutil_cli (broker->endpoint, (const char *[]) { "plan", "drain", "ghost", NULL }, &run);
    testutil_cli_expect (&run, 1, run.err, "unknown worker ghost");
    s_broker_destroy (&broker);
}

//  submit --affinity sends the key
static void
test_submit_affinity (void **state)
{
    s_broker_t *broker = s_broker_new ();
    testutil_cli_t run;
    int requests;
    testutil_cli (broker->endpoint, (const char *[]) { "submit", "--affinity", "tenant 7", "--",
                                                       "true", NULL }, &run);
    testutil_cli_expect (&run, 0, run.out, "5");
    drover_msg_t *submit = s_last (broker, DROVER_MSG_TASK_SUBMIT, &requests);
    assert_non_null (submit);
    assert_string_equal (submit->affinity, "tenant 7");
    assert_null (submit->key);
    assert_string_equal (submit->service, "");
    drover_msg_destroy (&submit);
    s_broker_destroy (&broker);
}

//  Arguments the CLI cannot use exit 2 with a message, before any request
static void
test_bad_arguments (void **state)
{
    static const struct {
        const char *args [12];
        const char *message;
    } cases [] = {
        { { "service", NULL }, "usage: drover service" },
        { { "service", "frob", NULL }, "unknown action 'frob'" },
        { { "service", "crate", "web", NULL }, "did you mean 'create'" },
        { { "service", "create", "web", "--", "true", NULL }, "create needs --replicas N" },
        { { "service", "create", "web", "--replicas", "2", NULL }, "no command given" },
        { { "service", "create", "--replicas", "2", "web", "--", "true", NULL },
          "a service name first" },
        { { "service", "create", "web", "--replicas", "-1", "--", "true", NULL }, "--replicas" },
        { { "service", "create", "web", "-r", "1", "--label", "nokey", "--", "true", NULL },
          "is not key=value" },
        { { "service", "create", "a b", "-r", "1", "--", "true", NULL }, "not a service name" },
        { { "service", "scale", "web", NULL }, "the replicas first" },
        { { "service", "scale", "web", "x", NULL }, "N" },
        { { "service", "show", NULL }, "a service name first" },
        { { "service", "list", "extra", NULL }, "unexpected argument 'extra'" },
        { { "service", "list", "--replicas", "3", NULL }, "go with create only" },
        { { "plan", NULL }, "usage: drover plan" },
        { { "plan", "drain", NULL }, "which worker?" },
        { { "plan", "drain", "w 2", NULL }, "not a worker name" },
        { { "plan", "service", "grow", "web", "2", NULL }, "only a scale" },
        { { "plan", "service", "scale", "web", NULL }, "how many replicas?" },
        { { "plan", "frob", NULL }, "unknown change 'frob'" },
        { { "plan", "hold", "w1", "extra", NULL }, "unexpected argument 'extra'" },
        { { "submit", "--affinity", "", "--", "true", NULL }, "--affinity" },
        { { "submit", "--affinity", "a\tb", "--", "true", NULL }, "--affinity" },
    };
    s_broker_t *broker = s_broker_new ();
    testutil_cli_t run;
    for (size_t index = 0; index < sizeof cases / sizeof cases [0]; index++) {
        testutil_cli (broker->endpoint, cases [index].args, &run);
        testutil_cli_expect (&run, 2, run.err, cases [index].message);
    }
    int requests = -1;
    drover_msg_t *none = s_last (broker, DROVER_MSG_SERVICE_ADMIN, &requests);
    assert_null (none);
    assert_int_equal (requests, 0);

    //  Help goes to stdout and exits 0
    testutil_cli (broker->endpoint, (const char *[]) { "service", "--help", NULL }, &run);
    testutil_cli_expect (&run, 0, run.out, "drover service create NAME --replicas N");
    testutil_cli (broker->endpoint, (const char *[]) { "plan", "--help", NULL }, &run);
    testutil_cli_expect (&run, 0, run.out, "drover plan drain WORKER");
    testutil_cli (broker->endpoint, (const char *[]) { "help", NULL }, &run);
    testutil_cli_expect (&run, 0, run.out, "drover plan service scale NAME N");
    s_broker_destroy (&broker);
}

//  create --max-per-worker N goes to a level-7 broker as SERVICE ADMIN's
//  level-7 field; to an older broker the CLI does not send it and says
//  why; out of range or with another action it is a usage error; the
//  level-7 statistics print for people and as JSON
static void
test_max_per_worker (void **state)
{
    s_level = 7;
    s_broker_t *broker = s_broker_new ();
    testutil_cli_t run;
    int requests;
    testutil_cli (broker->endpoint, (const char *[]) { "service", "create", "db", "--replicas",
                  "3", "--max-per-worker", "1", "--", "sleep", "100", NULL }, &run);
    testutil_cli_expect (&run, 0, run.out, "service db: created, 3 replicas");
    drover_msg_t *admin = s_last (broker, DROVER_MSG_SERVICE_ADMIN, &requests);
    assert_non_null (admin);
    assert_int_equal (admin->max_per_worker, 1);
    assert_int_equal (drover_msg_level (admin), 7);
    drover_msg_destroy (&admin);
    testutil_cli (broker->endpoint, (const char *[]) { "service", "create", "db0", "--replicas",
                  "3", "--", "sleep", "100", NULL }, &run);
    testutil_cli_expect (&run, 0, run.out, "created");
    admin = s_last (broker, DROVER_MSG_SERVICE_ADMIN, &requests);
    assert_int_equal (admin->max_per_worker, 0);        //  unlimited: left out
    assert_true (drover_msg_level (admin) < 7);
    drover_msg_destroy (&admin);
    testutil_cli (broker->endpoint, (const char *[]) { "service", "create", "db", "--replicas",
                  "3", "--max-per-worker", "0", "--", "sleep", "100", NULL }, &run);
    testutil_cli_expect (&run, 2, run.err, "--max-per-worker");
    testutil_cli (broker->endpoint, (const char *[]) { "service", "scale", "db", "4",
                  "--max-per-worker", "1", NULL }, &run);
    testutil_cli_expect (&run, 2, run.err, "go with create only");
    testutil_cli (broker->endpoint, (const char *[]) { "service", "stats", NULL }, &run);
    testutil_cli_expect (&run, 0, run.out, "position:");
    testutil_cli_expect (&run, 0, run.out, "(0 rebalanced)");
    testutil_cli (broker->endpoint, (const char *[]) { "service", "stats", "--json", NULL },
                  &run);
    testutil_assert_json (run.out);
    testutil_cli_expect (&run, 0, run.out, "\"ranks\":{\"0\":0");
    testutil_cli_expect (&run, 0, run.out, "\"capped\":0,\"rebalanced\":0");
    s_broker_destroy (&broker);

    //  A broker of level 6: refused here, nothing sent
    s_level = 6;
    broker = s_broker_new ();
    testutil_cli (broker->endpoint, (const char *[]) { "service", "create", "db", "--replicas",
                  "3", "--max-per-worker", "1", "--", "sleep", "100", NULL }, &run);
    testutil_cli_expect (&run, 1, run.err, "needs level 7");
    admin = s_last (broker, DROVER_MSG_SERVICE_ADMIN, &requests);
    assert_null (admin);
    s_broker_destroy (&broker);
    s_level = 0;
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_service_listings),
        cmocka_unit_test (test_service_admin),
        cmocka_unit_test (test_plans),
        cmocka_unit_test (test_submit_affinity),
        cmocka_unit_test (test_bad_arguments),
        cmocka_unit_test (test_max_per_worker),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
