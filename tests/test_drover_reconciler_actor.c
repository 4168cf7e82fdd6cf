/*  =========================================================================
    test_drover_reconciler_actor - the reconciler actor through its pipe (the
    test plays the main, schedq, assign and the store): a create is kept,
    said and started on the fleet schedq gives; a bad definition is
    refused naming its field; a WORKER RUNS from another route than the
    worker's registration is dropped; a term gathers, ends when all answer
    or at the timeout (then incomplete, saying which); a plan on an unknown
    worker or service is 404; a kept definition comes back; a replica that
    ended is restarted; METRICS is answered
    =========================================================================
*/

#include "testutil_actor.h"
#include "drover_reconciler_actor.h"
#include "drover_fleet.h"
#include "drover_exec.h"
#include "drover_event.h"
#include "drover_metrics.h"

//  Start the actor with the service settings (term and gather-timeout
//  msec, max-services), then say LOADED unless told not to (no term runs
//  before it)
static zactor_t *
s_start_loading (uint32_t term, uint32_t gather_timeout, uint32_t max_services, bool loaded)
{
    zactor_t *actor = zactor_new (drover_reconciler_actor, NULL);
    assert_non_null (actor);
    zsock_send (actor, "s4444444444", "CONFIGURE", term, gather_timeout, 0, 1000, 60000, 3,
                50, max_services, 1000, 0);
    if (loaded)
        zsock_send (actor, "s88", "LOADED", (uint64_t) 1, (uint64_t) 0);
    return actor;
}

//  Start the actor, loaded
static zactor_t *
s_start (uint32_t term, uint32_t gather_timeout, uint32_t max_services)
{
    return s_start_loading (term, gather_timeout, max_services, true);
}

//  Destroy the actor, dropping what it said that the test did not read
//  (testutil holds the rest of a BATCH read: a next actor at the same
//  address would be handed it)
static void
s_stop (zactor_t **actor_p)
{
    zmsg_t *msg;
    while ((msg = testutil_actor_recv (*actor_p, 0)))
        zmsg_destroy (&msg);
    testutil_actor_destroy (actor_p);
}

//  Say UP for a worker registered from route
static void
s_up (zactor_t *actor, const char *worker, const char *route)
{
    zframe_t *frame = zframe_new (route, strlen (route));
    zframe_t *running = zframe_new_empty ();
    zsock_send (actor, "ssf848sf", "UP", worker, frame, (uint64_t) 1, 4, (uint64_t) 0, "",
                running);
    zframe_destroy (&running);
    zframe_destroy (&frame);
}

//  Say FLEET with the workers named (NULL-ended), 4 procs each, none used
static void
s_fleet (zactor_t *actor, const char *workers [])
{
    drover_fleet_t *fleet = drover_fleet_new ();
    for (size_t index = 0; workers [index]; index++) {
        drover_fleet_worker_t worker = { .id = workers [index], .procs = 4, .labels = "" };
        drover_fleet_add (fleet, &worker);
    }
    zframe_t *frame = drover_fleet_encode (fleet);
    zsock_send (actor, "sf", "FLEET", frame);
    zframe_destroy (&frame);
    drover_fleet_destroy (&fleet);
}

//  A SERVICE ADMIN create of name with replicas, each of procs, running
//  `sleep 1000`
static drover_msg_t *
s_create (const char *name, uint32_t replicas, uint32_t procs)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_SERVICE_ADMIN);
    msg->seq = 11;
    msg->action = DROVER_SERVICE_CREATE;
    snprintf (msg->service, sizeof msg->service, "%s", name);
    msg->count = replicas;
    msg->procs = procs;
    drover_exec_t *exec = drover_exec_new ();
    const char *argv [] = { "sleep", "1000" };
    assert_int_equal (drover_exec_set_argv (exec, 2, argv), 0);
    size_t size = 0;
    byte *body = drover_exec_encode (exec, &size);
    assert_non_null (body);
    drover_msg_set_body (msg, body, size);
    free (body);
    drover_exec_destroy (&exec);
    return msg;
}

//  A SERVICE ADMIN scale or delete
static drover_msg_t *
s_admin (int action, const char *name, uint32_t count)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_SERVICE_ADMIN);
    msg->seq = 12;
    msg->action = (uint8_t) action;
    snprintf (msg->service, sizeof msg->service, "%s", name);
    msg->count = count;
    return msg;
}

//  Receive the next command that is not an EVENT and check its word
static zmsg_t *
s_expect (zactor_t *actor, const char *command)
{
    int64_t deadline = zclock_mono () + 3000;
    while (zclock_mono () < deadline) {
        zmsg_t *msg = testutil_actor_recv (actor, (int) (deadline - zclock_mono ()));
        if (!msg)
            break;
        char *word = zmsg_popstr (msg);
        bool found = streq (word, command);
        if (!found && !streq (word, "EVENT"))
            fail_msg ("expected %s, got %s", command, word);
        zstr_free (&word);
        if (found)
            return msg;
        zmsg_destroy (&msg);
    }
    fail_msg ("no %s within 3 s", command);
    return NULL;
}

//  Receive the next command that is not an EVENT, check its word, drop it
static void
s_skip (zactor_t *actor, const char *command)
{
    zmsg_t *msg = s_expect (actor, command);
    zmsg_destroy (&msg);
}

//  Expect the event topic, skipping other commands and events; returns it
static drover_event_t
s_expect_event (zactor_t *actor, const char *topic, int timeout)
{
    drover_event_t event;
    memset (&event, 0, sizeof event);
    int64_t deadline = zclock_mono () + timeout;
    while (zclock_mono () < deadline) {
        zmsg_t *msg = testutil_actor_recv (actor, (int) (deadline - zclock_mono ()));
        if (!msg)
            break;
        char *word = zmsg_popstr (msg);
        bool found = false;
        if (streq (word, "EVENT")) {
            char *said = zmsg_popstr (msg);
            zframe_t *body = zmsg_pop (msg);
            assert_int_equal (drover_event_decode (&event, zframe_data (body),
                                                   zframe_size (body)), 0);
            found = streq (said, topic);
            zstr_free (&said);
            zframe_destroy (&body);
        }
        zstr_free (&word);
        zmsg_destroy (&msg);
        if (found)
            return event;
    }
    fail_msg ("no EVENT %s within %d msec", topic, timeout);
    return event;
}

//  The barrier: a SERVICE LIST is answered after everything handed before
//  it was handled. Hand one and expect its SERVICE TABLE to be the next
//  thing the actor says: nothing (no EVENT, no SEND) came of what it
//  handled before, then or late
static void
s_expect_nothing_before_barrier (zactor_t *actor)
{
    drover_msg_t *list = drover_msg_new (DROVER_MSG_SERVICE_LIST);
    list->seq = 9999;
    testutil_hand (actor, "barrier", list);
    zmsg_t *msg = testutil_actor_recv (actor, 3000);
    if (!msg)
        fail_msg ("no answer to the barrier's SERVICE LIST within 3 s");
    char *word = zmsg_popstr (msg);
    if (!streq (word, "SEND"))
        fail_msg ("%s said before the barrier's answer", word);
    testutil_pop_check (msg, "barrier");
    zframe_t *payload = zmsg_pop (msg);
    drover_msg_t *table = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (table, zframe_data (payload), zframe_size (payload)),
                      0);
    assert_int_equal (table->id, DROVER_MSG_SERVICE_TABLE);
    assert_int_equal (table->seq, 9999);
    drover_msg_destroy (&table);
    zframe_destroy (&payload);
    zstr_free (&word);
    zmsg_destroy (&msg);
}

//  Expect SEND (or REPLY, held by the store) to route: the decoded
//  message (caller destroys)
static drover_msg_t *
s_expect_said (zactor_t *actor, const char *word, const char *route)
{
    zmsg_t *msg = s_expect (actor, word);
    testutil_pop_check (msg, route);
    zframe_t *payload = zmsg_pop (msg);
    drover_msg_t *decoded = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (decoded, zframe_data (payload), zframe_size (payload)),
                      0);
    zframe_destroy (&payload);
    zmsg_destroy (&msg);
    return decoded;
}

//  Expect SEND to route: the decoded message (caller destroys)
static drover_msg_t *
s_expect_send (zactor_t *actor, const char *route)
{
    return s_expect_said (actor, "SEND", route);
}

//  Expect a SERVICE ADMIN's OK: said as REPLY, for the store to send once
//  the definition is kept
static void
s_expect_ok (zactor_t *actor, const char *route)
{
    drover_msg_t *reply = s_expect_said (actor, "REPLY", route);
    assert_int_equal (reply->id, DROVER_MSG_OK);
    drover_msg_destroy (&reply);
}

//  Expect an ERROR to route with code, its reason holding text
static void
s_expect_error (zactor_t *actor, const char *route, int code, const char *text)
{
    drover_msg_t *reply = s_expect_send (actor, route);
    assert_int_equal (reply->id, DROVER_MSG_ERROR);
    assert_int_equal (reply->code, code);
    if (!strstr (reply->reason, text))
        fail_msg ("ERROR %d reason \"%s\" does not say \"%s\"", code, reply->reason, text);
    drover_msg_destroy (&reply);
}

//  Expect START: its worker (into worker) and decoded submit (caller destroys)
static drover_msg_t *
s_expect_start (zactor_t *actor, char *worker)
{
    zmsg_t *msg = s_expect (actor, "START");
    char *said = zmsg_popstr (msg);
    snprintf (worker, DROVER_ID_MAX + 1, "%s", said);
    zstr_free (&said);
    zframe_t *frame = zmsg_pop (msg);
    drover_msg_t *submit = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (submit, zframe_data (frame), zframe_size (frame)), 0);
    assert_int_equal (submit->id, DROVER_MSG_TASK_SUBMIT);
    zframe_destroy (&frame);
    zmsg_destroy (&msg);
    return submit;
}

//  Create a service of replicas on workers w1 and w2 (registered from
//  routes r1, r2): kept, said, answered OK, started once the fleet comes
static void
s_create_started (zactor_t *actor, const char *name, uint32_t replicas)
{
    testutil_hand (actor, "admin", s_create (name, replicas, 1));
    zmsg_t *keep = s_expect (actor, "KEEPSERVICE");
    testutil_pop_check (keep, name);
    zframe_t *def = zmsg_pop (keep);
    drover_msg_t *kept = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (kept, zframe_data (def), zframe_size (def)), 0);
    assert_int_equal (kept->id, DROVER_MSG_SERVICE_ADMIN);
    assert_string_equal (kept->service, name);
    assert_int_equal (kept->count, replicas);
    drover_msg_destroy (&kept);
    zframe_destroy (&def);
    zmsg_destroy (&keep);
    drover_msg_t *reply = s_expect_said (actor, "REPLY", "admin");
    assert_int_equal (reply->id, DROVER_MSG_OK);
    assert_int_equal (reply->seq, 11);
    drover_msg_destroy (&reply);
    s_skip (actor, "FLEET");
    const char *workers [] = { "w1", "w2", NULL };
    s_fleet (actor, workers);
    bool slots [16] = { false };
    for (uint32_t count = 0; count < replicas; count++) {
        char worker [DROVER_ID_MAX + 1];
        drover_msg_t *submit = s_expect_start (actor, worker);
        assert_true (streq (worker, "w1") || streq (worker, "w2"));
        assert_string_equal (submit->service, name);
        assert_true (submit->slot < replicas && !slots [submit->slot]);
        slots [submit->slot] = true;
        assert_int_equal (submit->procs, 1);
        assert_int_equal (submit->retries, 0);
        assert_true (submit->body_size > 0);
        drover_msg_destroy (&submit);
    }
}

//  A create is kept (KEEPSERVICE), answered OK, said (service.created)
//  and started on the fleet: one START per slot, each a TASK SUBMIT of the
//  service and slot; SERVICE LIST lists it, and one unknown is 404
static void
test_create_keeps_and_starts (void **state)
{
    zactor_t *actor = s_start (600000, 1000, 10);
    s_up (actor, "w1", "r1");
    s_up (actor, "w2", "r2");
    s_create_started (actor, "web", 3);
    drover_msg_t *list = drover_msg_new (DROVER_MSG_SERVICE_LIST);
    list->seq = 4;
    testutil_hand (actor, "client", list);
    drover_msg_t *table = s_expect_send (actor, "client");
    assert_int_equal (table->id, DROVER_MSG_SERVICE_TABLE);
    assert_int_equal (table->seq, 4);
    assert_int_equal (table->nservices, 1);
    assert_string_equal (table->service_rows [0].name, "web");
    assert_int_equal (table->service_rows [0].replicas, 3);
    assert_string_equal (table->service_rows [0].summary, "sleep 1000");
    drover_msg_destroy (&table);
    list = drover_msg_new (DROVER_MSG_SERVICE_LIST);
    snprintf (list->service, sizeof list->service, "nope");
    testutil_hand (actor, "client", list);
    s_expect_error (actor, "client", DROVER_CODE_NOT_FOUND, "no such service");
    s_stop (&actor);
}

//  A bad definition gets ERROR 400 naming the field; an existing name 410;
//  past max-services 302; scale or delete of what does not exist 404;
//  nothing is kept for any of them
static void
test_bad_admin_refused_naming_field (void **state)
{
    zactor_t *actor = s_start (600000, 1000, 1);
    drover_msg_t *msg = s_create ("web", 2, 0);
    testutil_hand (actor, "admin", msg);
    s_expect_error (actor, "admin", DROVER_CODE_BAD_REQUEST, "procs");
    msg = s_create ("web", 2, 1);
    drover_msg_set_body (msg, (const byte *) "junk", 4);
    testutil_hand (actor, "admin", msg);
    s_expect_error (actor, "admin", DROVER_CODE_BAD_REQUEST, "body");
    msg = s_create ("web", 2, 1);
    msg->labels [msg->nlabels++] = strdup ("no equals sign");
    testutil_hand (actor, "admin", msg);
    s_expect_error (actor, "admin", DROVER_CODE_BAD_REQUEST, "label");
    msg = s_create ("has space", 2, 1);
    testutil_hand (actor, "admin", msg);
    s_expect_error (actor, "admin", DROVER_CODE_BAD_REQUEST, "service");
    msg = s_admin (7, "web", 0);
    testutil_hand (actor, "admin", msg);
    s_expect_error (actor, "admin", DROVER_CODE_BAD_REQUEST, "action");
    testutil_hand (actor, "admin", s_admin (DROVER_SERVICE_SCALE, "web", 3));
    s_expect_error (actor, "admin", DROVER_CODE_NOT_FOUND, "no such service");
    testutil_hand (actor, "admin", s_admin (DROVER_SERVICE_DELETE, "web", 0));
    s_expect_error (actor, "admin", DROVER_CODE_NOT_FOUND, "no such service");

    //  One is fine; the same name again is 410; another past max-services 302
    testutil_hand (actor, "admin", s_create ("web", 1, 1));
    s_skip (actor, "KEEPSERVICE");
    s_expect_ok (actor, "admin");
    s_skip (actor, "FLEET");
    testutil_hand (actor, "admin", s_create ("web", 1, 1));
    s_expect_error (actor, "admin", DROVER_CODE_CONFLICT, "exists");
    testutil_hand (actor, "admin", s_create ("db", 1, 1));
    s_expect_error (actor, "admin", DROVER_CODE_TOO_MANY, "max-services");
    s_stop (&actor);
}

//  A term asks the fleet, gathers from every worker (WORKER GATHER, seq
//  the term) and ends when all answered; a RUNS from another route than
//  the worker's registration is dropped; a term where one is silent ends
//  at gather-timeout, incomplete, and says so
static void
test_term_gathers_and_fences_runs (void **state)
{
    zactor_t *actor = s_start_loading (100, 300, 10, false);
    s_up (actor, "w1", "r1");
    s_up (actor, "w2", "r2");
    s_create_started (actor, "web", 2);
    //  Loaded now: the first term, one term later: the fleet, then a
    //  gather of both
    zsock_send (actor, "s88", "LOADED", (uint64_t) 1, (uint64_t) 0);
    s_skip (actor, "FLEET");
    const char *workers [] = { "w1", "w2", NULL };
    s_fleet (actor, workers);
    drover_msg_t *gather = s_expect_send (actor, "r1");
    assert_int_equal (gather->id, DROVER_MSG_WORKER_GATHER);
    uint32_t term = gather->seq;
    drover_msg_destroy (&gather);
    gather = s_expect_send (actor, "r2");
    assert_int_equal (gather->seq, term);
    drover_msg_destroy (&gather);
    //  w2's answer from w1's route: dropped, the term waits on
    drover_msg_t *runs = drover_msg_new (DROVER_MSG_WORKER_RUNS);
    runs->seq = term;
    snprintf (runs->worker, sizeof runs->worker, "w2");
    testutil_hand (actor, "r1", runs);
    runs = drover_msg_new (DROVER_MSG_WORKER_RUNS);
    runs->seq = term;
    snprintf (runs->worker, sizeof runs->worker, "w1");
    testutil_hand (actor, "r1", runs);
    s_expect_nothing_before_barrier (actor);             //  w2 has not answered: no term end
    runs = drover_msg_new (DROVER_MSG_WORKER_RUNS);
    runs->seq = term;
    snprintf (runs->worker, sizeof runs->worker, "w2");
    testutil_hand (actor, "r2", runs);
    drover_event_t event = s_expect_event (actor, "service.term", 2000);
    assert_non_null (strstr (event.reason, "workers 2 of 2 answered"));
    assert_null (strstr (event.reason, "incomplete"));

    //  The next term: w2 is silent, so it ends at gather-timeout incomplete
    s_skip (actor, "FLEET");
    s_fleet (actor, workers);
    gather = s_expect_send (actor, "r1");
    uint32_t next = gather->seq;
    assert_int_equal (next, term + 1);
    drover_msg_destroy (&gather);
    runs = drover_msg_new (DROVER_MSG_WORKER_RUNS);
    runs->seq = next;
    snprintf (runs->worker, sizeof runs->worker, "w1");
    testutil_hand (actor, "r1", runs);
    int64_t asked = zclock_mono ();
    event = s_expect_event (actor, "service.term", 3000);
    assert_true (zclock_mono () - asked >= 200);        //  waited for w2 (300 msec)
    assert_non_null (strstr (event.reason, "incomplete"));
    assert_non_null (strstr (event.reason, "workers 1 of 2 answered"));
    s_stop (&actor);
}

//  A plan naming an unknown service is 404 at once; one naming a worker
//  not in the fleet is 404 once the fleet came; one on a worker of it is
//  answered PLAN RESULT, and nothing is started for it
static void
test_plan_unknown_is_404 (void **state)
{
    zactor_t *actor = s_start (600000, 1000, 10);
    drover_msg_t *plan = drover_msg_new (DROVER_MSG_PLAN);
    plan->seq = 21;
    plan->action = DROVER_PLAN_SCALE;
    snprintf (plan->service, sizeof plan->service, "nope");
    plan->count = 3;
    testutil_hand (actor, "client", plan);
    s_expect_error (actor, "client", DROVER_CODE_NOT_FOUND, "no such service");
    plan = drover_msg_new (DROVER_MSG_PLAN);
    plan->seq = 22;
    plan->action = DROVER_PLAN_DRAIN;
    snprintf (plan->worker, sizeof plan->worker, "ghost");
    testutil_hand (actor, "client", plan);
    s_skip (actor, "FLEET");
    const char *workers [] = { "w1", NULL };
    s_fleet (actor, workers);
    s_expect_error (actor, "client", DROVER_CODE_NOT_FOUND, "ghost");
    plan = drover_msg_new (DROVER_MSG_PLAN);
    plan->seq = 23;
    plan->action = DROVER_PLAN_DRAIN;
    snprintf (plan->worker, sizeof plan->worker, "w1");
    testutil_hand (actor, "client", plan);
    s_skip (actor, "FLEET");
    s_fleet (actor, workers);
    drover_msg_t *result = s_expect_send (actor, "client");
    assert_int_equal (result->id, DROVER_MSG_PLAN_RESULT);
    assert_int_equal (result->seq, 23);
    assert_int_equal (result->nchanges, 0);         //  no service: nothing moves
    drover_msg_destroy (&result);
    s_stop (&actor);
}

//  A definition the store kept (SERVICE, before LOADED) is defined again;
//  one that does not decode is skipped without harm; a scale is kept
//  with its new count, a delete is kept as an empty definition
static void
test_kept_definition_restored (void **state)
{
    zactor_t *actor = zactor_new (drover_reconciler_actor, NULL);
    zsock_send (actor, "s4444444444", "CONFIGURE", 600000, 1000, 0, 1000, 60000, 3, 50, 10,
                1000, 0);
    drover_msg_t *def = s_create ("kept", 2, 1);
    zframe_t *frame = drover_msg_encode (def);
    drover_msg_destroy (&def);
    zsock_send (actor, "sf", "SERVICE", frame);
    zframe_destroy (&frame);
    frame = zframe_new ("garbage", 7);
    zsock_send (actor, "sf", "SERVICE", frame);
    zframe_destroy (&frame);
    zsock_send (actor, "s88", "LOADED", (uint64_t) 1, (uint64_t) 0);
    drover_msg_t *list = drover_msg_new (DROVER_MSG_SERVICE_LIST);
    testutil_hand (actor, "client", list);
    drover_msg_t *table = s_expect_send (actor, "client");
    assert_int_equal (table->nservices, 1);
    assert_string_equal (table->service_rows [0].name, "kept");
    assert_int_equal (table->service_rows [0].replicas, 2);
    drover_msg_destroy (&table);

    testutil_hand (actor, "admin", s_admin (DROVER_SERVICE_SCALE, "kept", 5));
    zmsg_t *keep = s_expect (actor, "KEEPSERVICE");
    testutil_pop_check (keep, "kept");
    frame = zmsg_pop (keep);
    def = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (def, zframe_data (frame), zframe_size (frame)), 0);
    assert_int_equal (def->count, 5);
    drover_msg_destroy (&def);
    zframe_destroy (&frame);
    zmsg_destroy (&keep);
    s_expect_ok (actor, "admin");
    s_skip (actor, "FLEET");        //  the pass that would start more
    testutil_hand (actor, "admin", s_admin (DROVER_SERVICE_DELETE, "kept", 0));
    keep = s_expect (actor, "KEEPSERVICE");
    testutil_pop_check (keep, "kept");
    frame = zmsg_pop (keep);
    assert_int_equal (zframe_size (frame), 0);      //  forget it
    zframe_destroy (&frame);
    zmsg_destroy (&keep);
    drover_event_t event = s_expect_event (actor, "service.deleted", 2000);
    assert_string_equal (event.reason, "kept replicas 5");
    s_stop (&actor);
}

//  A replica that ended is started again (restart delay 0) on the fleet;
//  METRICS is answered with the services and the counters
static void
test_ended_replica_restarted_and_metrics (void **state)
{
    zactor_t *actor = s_start (600000, 1000, 10);
    s_up (actor, "w1", "r1");
    s_up (actor, "w2", "r2");
    s_create_started (actor, "web", 1);
    zsock_send (actor, "s8s4s444s", "REPLICA", (uint64_t) 40, "web", 0, "w1", 1,
                DROVER_TASK_RUNNING, DROVER_END_NONE, "");
    zsock_send (actor, "s8s4s444s", "REPLICA", (uint64_t) 40, "web", 0, "w1", 1,
                DROVER_TASK_FAILED, DROVER_END_FAILED, "exited 1");
    s_skip (actor, "FLEET");
    const char *workers [] = { "w1", "w2", NULL };
    s_fleet (actor, workers);
    char worker [DROVER_ID_MAX + 1];
    drover_msg_t *submit = s_expect_start (actor, worker);
    assert_string_equal (submit->service, "web");
    assert_int_equal (submit->slot, 0);
    drover_msg_destroy (&submit);

    zsock_send (actor, "s8", "METRICS", (uint64_t) 7);
    zmsg_t *counts = s_expect (actor, "COUNTS");
    testutil_pop_check (counts, "7");
    zframe_t *values = zmsg_pop (counts);
    drover_metrics_t *metrics = drover_metrics_new ();
    assert_int_equal (drover_metrics_merge (metrics, values), 0);
    assert_int_equal (drover_metrics_get (metrics, DROVER_METRIC_SERVICE_REPLICAS_WANTED), 1);
    assert_int_equal (drover_metrics_get (metrics, DROVER_METRIC_SERVICE_STARTED), 2);
    assert_true (drover_metrics_has (metrics, DROVER_METRIC_SERVICE_TERMS));
    assert_true (drover_metrics_has (metrics, DROVER_METRIC_SERVICE_RESTARTS_SUM));
    drover_metrics_destroy (&metrics);
    zframe_destroy (&values);
    zmsg_destroy (&counts);
    s_stop (&actor);
}

//  A replica that keeps exiting quickly (crash-warn 3 times in a row) is
//  restarted each time, and its service is said CRASHING: the event
//  service.crashing, once
static void
test_crash_loop_said (void **state)
{
    zactor_t *actor = s_start (600000, 1000, 10);
    s_up (actor, "w1", "r1");
    s_up (actor, "w2", "r2");
    testutil_hand (actor, "admin", s_create ("flaky", 1, 1));
    s_skip (actor, "KEEPSERVICE");
    s_expect_ok (actor, "admin");
    const char *workers [] = { "w1", "w2", NULL };
    for (uint64_t task = 50; task < 53; task++) {
        s_skip (actor, "FLEET");
        s_fleet (actor, workers);
        char worker [DROVER_ID_MAX + 1];
        drover_msg_t *submit = s_expect_start (actor, worker);
        drover_msg_destroy (&submit);
        zsock_send (actor, "s8s4s444s", "REPLICA", task, "flaky", 0, worker, 1,
                    DROVER_TASK_RUNNING, DROVER_END_NONE, "");
        zsock_send (actor, "s8s4s444s", "REPLICA", task, "flaky", 0, worker, 1,
                    DROVER_TASK_FAILED, DROVER_END_FAILED, "exited 3");
    }
    drover_event_t event = s_expect_event (actor, "service.crashing", 2000);
    assert_non_null (strstr (event.reason, "flaky"));
    assert_non_null (strstr (event.reason, "exited 3"));
    assert_int_equal (event.task, 52);
    s_stop (&actor);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_create_keeps_and_starts),
        cmocka_unit_test (test_bad_admin_refused_naming_field),
        cmocka_unit_test (test_term_gathers_and_fences_runs),
        cmocka_unit_test (test_plan_unknown_is_404),
        cmocka_unit_test (test_kept_definition_restored),
        cmocka_unit_test (test_ended_replica_restarted_and_metrics),
        cmocka_unit_test (test_crash_loop_said),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
