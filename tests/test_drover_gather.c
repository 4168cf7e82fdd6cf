/*  =========================================================================
    test_drover_gather - the reconciler's gather without the actor: WORKER
    GATHER said to the routed workers of a fleet, WORKER RUNS fenced by the
    route of the worker's registration, the gather done when every worker
    asked has answered
    =========================================================================
*/

#include "testutil_class.h"
#include "drover_gather.h"

//  Register worker from a route of one byte
static void
s_register (drover_gather_t *gather, const char *worker, byte route)
{
    zframe_t *frame = zframe_new (&route, 1);
    drover_gather_register (gather, worker, &frame);
    assert_null (frame);
}

//  WORKER GATHER goes to every worker of the fleet that registered; the
//  gather is done once all the fleet's workers answered
static void
test_gather_asks_the_routed (void **state)
{
    drover_gather_t *gather = drover_gather_new ();
    s_register (gather, "w1", 1);
    s_register (gather, "w2", 2);
    s_register (gather, "w3", 3);
    drover_gather_forget (gather, "w3");
    drover_fleet_worker_t workers [] = {
        { .id = "w1", .labels = "" }, { .id = "w2", .labels = "" }, { .id = "w3", .labels = "" }
    };
    drover_outbox_t *outbox = drover_outbox_new ();
    drover_gather_begin (gather, 7, workers, 3, outbox);
    testutil_sends_t sends = { .count = 0 };
    testutil_read_sends (outbox, &sends);
    assert_int_equal (sends.count, 2);      //  w3 has no route: it cannot answer
    assert_string_equal (sends.workers [0], "w1");
    assert_string_equal (sends.workers [1], "w2");
    assert_int_equal (sends.msgs [0]->id, DROVER_MSG_WORKER_GATHER);
    assert_int_equal (sends.msgs [1]->seq, 7);
    testutil_sends_reset (&sends);
    assert_int_equal (drover_gather_asked (gather), 3);

    assert_false (drover_gather_answered (gather, "w1"));
    assert_false (drover_gather_answer (gather, "w1"));
    assert_true (drover_gather_answered (gather, "w1"));
    assert_false (drover_gather_answer (gather, "w2"));
    assert_true (drover_gather_answer (gather, "w3"));

    //  A new gather forgets who answered the last
    drover_gather_begin (gather, 8, workers, 1, outbox);
    assert_false (drover_gather_answered (gather, "w1"));
    assert_true (drover_gather_answer (gather, "w1"));
    drover_outbox_destroy (&outbox);
    drover_gather_destroy (&gather);
    assert_null (gather);
    drover_gather_destroy (&gather);
}

//  A WORKER RUNS counts only from the route of the worker's latest UP
static void
test_runs_fenced_by_route (void **state)
{
    drover_gather_t *gather = drover_gather_new ();
    s_register (gather, "w1", 1);
    byte one = 1, two = 2, pair [2] = { 1, 1 };
    assert_true (drover_gather_fenced (gather, "w1", &one, 1, 1000));
    assert_false (drover_gather_fenced (gather, "w1", &two, 1, 1000));
    assert_false (drover_gather_fenced (gather, "w1", pair, 2, 1001));
    assert_false (drover_gather_fenced (gather, "w9", &one, 1, 5000));   //  not registered
    assert_int_equal (drover_gather_dropped (gather), 3);
    s_register (gather, "w1", 2);           //  it came back on another connection
    assert_false (drover_gather_fenced (gather, "w1", &one, 1, 6000));
    assert_true (drover_gather_fenced (gather, "w1", &two, 1, 6000));
    drover_gather_forget (gather, "w1");
    assert_false (drover_gather_fenced (gather, "w1", &two, 1, 7000));
    assert_int_equal (drover_gather_dropped (gather), 5);
    drover_gather_destroy (&gather);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_gather_asks_the_routed),
        cmocka_unit_test (test_runs_fenced_by_route),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
