/*  =========================================================================
    test_drover_schedq_actor_affinity - schedq's FLEET answer and its affinity
    requests, through its pipe and its link (the test plays the main, the
    reconciler and assign)
    =========================================================================
*/

#include "testutil_actor.h"
#include "drover_schedq_actor.h"
#include "drover_fleet.h"
#include "drover_rendezvous.h"
#include "drover_why.h"

//  The test's end of the actor's link: it plays assign there
static zsock_t *s_link = NULL;

//  Start the actor: max-leases and affinity-wait (msec) as given
static zactor_t *
s_actor_new (uint32_t max_leases, uint32_t affinity_wait)
{
    char endpoint [64];
    static int count = 0;
    snprintf (endpoint, sizeof endpoint, "inproc://test-schedq-affinity-%d", ++count);
    zactor_t *actor = zactor_new (drover_schedq_actor, endpoint);
    assert_non_null (actor);
    s_link = zsock_new (ZMQ_PAIR);
    assert_int_equal (zsock_connect (s_link, "%s", endpoint), 0);
    zsock_send (actor, "s4444444", "CONFIGURE", 100, 0, max_leases, 60000, 100, 0,
                affinity_wait);
    return actor;
}

//  Stop the actor and close the link
static void
s_actor_destroy (zactor_t **actor_p)
{
    //  What a test left unread must not be read by the next (its actor
    //  may have the same address)
    zmsg_t *left;
    while ((left = testutil_actor_recv (*actor_p, 0)))
        zmsg_destroy (&left);
    testutil_actor_destroy (actor_p);
    zsock_destroy (&s_link);
}

//  Say UP for a worker
static void
s_up (zactor_t *actor, const char *worker, uint32_t procs, uint64_t mem, const char *labels)
{
    zframe_t *frame = zframe_new (worker, strlen (worker));
    zframe_t *running = zframe_new_empty ();
    zsock_send (actor, "ssf848sf4s", "UP", worker, frame, (uint64_t) 1, procs, mem, labels,
                running, (uint32_t) DROVER_MSG_LEVEL, DROVER_RELEASE);
    zframe_destroy (&running);
    zframe_destroy (&frame);
}

//  Say AFFINITY for a request, as assign does on the link
static void
s_affinity (uint64_t task, uint32_t procs, const char *labels, const char *key)
{
    zsock_send (s_link, "s8i48ss", "AFFINITY", task, 0, procs, (uint64_t) 0, labels, key);
}

//  Expect ASSIGN task worker next on the link
static void
s_expect_assign (uint64_t task, const char *worker, int timeout)
{
    zmsg_t *msg = testutil_expect_link (s_link, "ASSIGN", timeout);
    char *text = zmsg_popstr (msg);
    assert_int_equal (strtoull (text, NULL, 10), task);
    zstr_free (&text);
    testutil_pop_check (msg, worker);
    zmsg_destroy (&msg);
}

//  Ask schedq to explain a task; return the TASK EXPLANATION (caller destroys)
static drover_msg_t *
s_explain (zactor_t *actor, uint64_t task)
{
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_EXPLAIN);
    request->task = task;
    request->seq = 5;
    drover_outbox_t *outbox = drover_outbox_new ();
    drover_outbox_say_msg (outbox, (const byte *) "client", 6, &request);
    testutil_say_batch (s_link, &outbox);
    drover_msg_t *reply = testutil_expect_send (actor, "client", "");
    assert_int_equal (reply->id, DROVER_MSG_TASK_EXPLANATION);
    return reply;
}

//  The order of key over w0..w3
static void
s_order (const char *key, char ids [4][8])
{
    const char *names [4] = { "w0", "w1", "w2", "w3" };
    size_t order [4];
    drover_rendezvous_order (key, strlen (key), names, NULL, 4, order);
    for (int index = 0; index < 4; index++)
        strcpy (ids [index], names [order [index]]);
}


//  ---------------------------------------------------------------------

//  FLEET: every connected worker, what it offers and uses, its labels and
//  whether it takes new work
static void
test_fleet (void **state)
{
    zactor_t *actor = s_actor_new (0, 0);
    s_up (actor, "alpha", 4, 1000, "zone=a");
    s_up (actor, "beta", 2, 500, "");
    testutil_say_queue (s_link, 1, 0, 3, 100, "zone=a");
    s_expect_assign (1, "alpha", 2000);
    zsock_send (actor, "sss", "PROBATION", "beta", "ack timeout");
    zsock_send (actor, "s", "FLEET");
    zmsg_t *msg = testutil_expect (actor, "FLEET", 2000);
    zframe_t *frame = zmsg_pop (msg);
    drover_fleet_t *fleet = drover_fleet_decode (frame);
    assert_non_null (fleet);
    size_t count;
    const drover_fleet_worker_t *workers = drover_fleet_workers (fleet, &count);
    assert_int_equal (count, 2);
    const drover_fleet_worker_t *alpha = streq (workers [0].id, "alpha")? &workers [0]
                                                                         : &workers [1];
    const drover_fleet_worker_t *beta = alpha == &workers [0]? &workers [1]: &workers [0];
    assert_string_equal (alpha->id, "alpha");
    assert_int_equal (alpha->procs, 4);
    assert_int_equal (alpha->mem, 1000);
    assert_int_equal (alpha->procs_used, 3);
    assert_int_equal (alpha->mem_used, 100);
    assert_string_equal (alpha->labels, "zone=a");
    assert_int_equal (alpha->state, DROVER_FLEET_USABLE);
    assert_int_equal (alpha->tasks, 1);
    assert_string_equal (beta->id, "beta");
    assert_int_equal (beta->state, DROVER_FLEET_PROBATION);
    assert_int_equal (beta->tasks, 0);
    drover_fleet_destroy (&fleet);
    zframe_destroy (&frame);
    zmsg_destroy (&msg);
    //  Drained, held: said so
    zsock_send (actor, "sss", "CLEARED", "beta", "timeout");
    zsock_send (actor, "ss4s", "POOLADMIN", "beta", DROVER_ADMIN_DRAIN, "pool: drain");
    zsock_send (actor, "ss4s", "POOLADMIN", "alpha", DROVER_ADMIN_HOLD, "pool: hold");
    zsock_send (actor, "s", "FLEET");
    msg = testutil_expect (actor, "FLEET", 2000);
    frame = zmsg_pop (msg);
    fleet = drover_fleet_decode (frame);
    workers = drover_fleet_workers (fleet, &count);
    for (size_t index = 0; index < count; index++)
        assert_int_equal (workers [index].state, streq (workers [index].id, "beta")?
                          DROVER_FLEET_DRAINING: DROVER_FLEET_HELD);
    drover_fleet_destroy (&fleet);
    zframe_destroy (&frame);
    zmsg_destroy (&msg);
    s_actor_destroy (&actor);
}

//  The same key goes to its first worker; while that one is full a
//  request waits for it (EXPLAIN says so, until when) and then takes the
//  next in order; a cancelled one goes
static void
test_affinity_waits_then_falls_back (void **state)
{
    zactor_t *actor = s_actor_new (0, 800);
    char order [4][8];
    s_order ("dataset-1", order);
    for (int index = 0; index < 4; index++)
        s_up (actor, (char []) { 'w', (char) ('0' + index), 0 }, 1, 0, "");
    s_affinity (1, 1, "", "dataset-1");
    s_expect_assign (1, order [0], 2000);
    int64_t asked = zclock_time ();
    s_affinity (2, 1, "", "dataset-1");
    drover_msg_t *reply = s_explain (actor, 2);
    assert_int_equal (reply->state, DROVER_TASK_QUEUED);
    assert_int_equal (reply->nwhys, 1);
    assert_int_equal (reply->whys [0].code, DROVER_WHY_AFFINITY);
    assert_int_equal (reply->whys [0].nnames, 1);
    assert_string_equal (reply->whys [0].names [0], order [0]);
    assert_true (reply->whys [0].a > (uint64_t) asked);
    assert_true (reply->whys [0].a <= (uint64_t) asked + 900);
    char text [256];
    drover_why_sentence (&reply->whys [0], text, sizeof text);
    assert_non_null (strstr (text, "first in its affinity order"));
    assert_non_null (strstr (text, order [0]));
    drover_msg_destroy (&reply);
    //  A TASK TABLE row of it says so, short
    drover_msg_t *table = drover_msg_new (DROVER_MSG_TASK_TABLE);
    table->seq = 6;
    table->nrows = 1;
    table->task_rows = (drover_task_row_t *) zmalloc (sizeof (drover_task_row_t));
    table->task_rows [0].task = 2;
    table->task_rows [0].state = DROVER_TASK_QUEUED;
    table->task_rows [0].summary = strdup ("true");
    drover_outbox_t *outbox = drover_outbox_new ();
    drover_outbox_say_msg (outbox, (const byte *) "client", 6, &table);
    testutil_say_batch (s_link, &outbox);
    table = testutil_expect_send (actor, "client", "");
    assert_int_equal (table->id, DROVER_MSG_TASK_TABLE);
    char expected [64];
    snprintf (expected, sizeof expected, "affinity %s", order [0]);
    assert_string_equal (table->task_rows [0].reason, expected);
    drover_msg_destroy (&table);
    //  Its wait over, the next in order with room
    s_expect_assign (2, order [1], 3000);
    //  A third waits for order [0], and is cancelled
    s_affinity (3, 1, "", "dataset-1");
    zsock_send (s_link, "s8", "DEQUEUE", (uint64_t) 3);
    testutil_say_free (s_link, 1);
    //  order [0] is free: a later request of the key takes it
    s_affinity (4, 1, "", "dataset-1");
    s_expect_assign (4, order [0], 2000);
    s_actor_destroy (&actor);
}

//  While an affinity request waits, nothing is lent and leases come back
static void
test_affinity_revokes_leases (void **state)
{
    zactor_t *actor = s_actor_new (1, 60000);
    s_up (actor, "w0", 1, 0, "");
    zmsg_t *lease = testutil_expect_link (s_link, "LEASE", 2000);
    char *id = zmsg_popstr (lease);
    uint64_t number = strtoull (id, NULL, 10);
    zstr_free (&id);
    zmsg_destroy (&lease);
    s_affinity (1, 1, "", "k");
    zmsg_t *revoke = testutil_expect_link (s_link, "REVOKE", 2000);
    char text [24];
    snprintf (text, sizeof text, "%" PRIu64, number);
    testutil_pop_check (revoke, text);
    zmsg_destroy (&revoke);
    zsock_send (s_link, "s8", "RETURN", number);
    s_expect_assign (1, "w0", 2000);
    s_actor_destroy (&actor);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_fleet),
        cmocka_unit_test (test_affinity_waits_then_falls_back),
        cmocka_unit_test (test_affinity_revokes_leases),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
