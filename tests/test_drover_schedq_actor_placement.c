/*  =========================================================================
    test_drover_schedq_actor_placement - the schedq actor's
    placements through its pipe and its link (the test plays the main and
    assign): a pass's ASSIGNs in priority order, constraints, DEQUEUE and
    FREE, requeued tasks and their place, requests that cannot be placed,
    a wide task reserving its worker, and many requests.
    =========================================================================
*/

#include "testutil_schedq.h"

//  A pass's placements come out in priority order; hold takes no new
//  work, resume does
static void
test_pass_places_in_priority_order (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    testutil_schedq_up (actor, "alpha", "r-alpha", 2, 0, "");
    testutil_schedq_admin (actor, "alpha", DROVER_ADMIN_HOLD, 1, DROVER_CODE_OK);
    testutil_expect_event (actor, "worker.hold", "alpha", "");
    testutil_schedq_queue (actor, 1, 0, 1, 0, "");
    testutil_schedq_queue (actor, 2, 5, 1, 0, "");
    testutil_schedq_queue (actor, 3, -1, 1, 0, "");
    testutil_schedq_quiet (actor);                                    //  held: nothing placed
    testutil_schedq_admin (actor, "alpha", DROVER_ADMIN_RUN, 2, DROVER_CODE_OK);
    testutil_expect_event (actor, "worker.resume", "alpha", "");
    uint64_t first [] = { 3, 1 };
    const char *alphas [] = { "alpha", "alpha" };
    testutil_schedq_expect_assign (actor, 2, first, alphas);
    testutil_say_free (testutil_schedq_link, (uint64_t) 3);
    testutil_schedq_expect_one (actor, 2, "alpha");
    testutil_schedq_quiet (actor);
}

//  Requests wait for workers with the labels and memory they need
static void
test_constraints (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    testutil_schedq_queue (actor, 1, 0, 1, 0, "gpu=yes");
    testutil_schedq_queue (actor, 2, 0, 1, 0, "");
    testutil_schedq_queue (actor, 3, 0, 1, 0, "gpu=no");
    testutil_schedq_queue (actor, 4, 0, 1, 1000, "");
    testutil_schedq_up (actor, "gpu", "r-gpu", 4, 100, "gpu=yes\nzone=a");
    uint64_t first [] = { 1, 2 };
    const char *gpus [] = { "gpu", "gpu" };
    testutil_schedq_expect_assign (actor, 2, first, gpus);
    testutil_schedq_up (actor, "big", "r-big", 1, 5000, "gpu=no");
    testutil_schedq_expect_one (actor, 3, "big");
    testutil_say_free (testutil_schedq_link, (uint64_t) 3);
    testutil_schedq_expect_one (actor, 4, "big");
}

//  A dequeued request is never placed; a freed slot goes to the next one
static void
test_dequeue_and_free (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    testutil_schedq_alpha_runs_task_1 (actor, 1);
    testutil_schedq_queue (actor, 2, 0, 1, 0, "");
    testutil_schedq_queue (actor, 3, 0, 1, 0, "");
    zsock_send (testutil_schedq_link, "s8", "DEQUEUE", (uint64_t) 2);
    zsock_send (testutil_schedq_link, "s8", "DEQUEUE", (uint64_t) 99);     //  not queued: no-op
    testutil_say_free (testutil_schedq_link, (uint64_t) 1);
    testutil_schedq_expect_one (actor, 3, "alpha");
    testutil_schedq_quiet (actor);
}

//  A task queued again while still assigned (its FREE not yet seen) gives
//  back the old placement first
static void
test_requeue_while_assigned (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    testutil_schedq_alpha_runs_task_1 (actor, 1);
    testutil_schedq_queue (actor, 1, 0, 1, 0, "");
    testutil_schedq_expect_one (actor, 1, "alpha");
    drover_msg_t *table = testutil_schedq_list_only (actor, 7);
    assert_int_equal (table->nrows, 1);
    assert_int_equal (table->worker_rows [0].procs_used, 1);
    drover_msg_destroy (&table);
}

//  A task requeued after its worker was lost runs before the tasks that
//  arrived after it (its id is its arrival), not behind them
static void
test_requeued_task_keeps_its_place (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    testutil_schedq_alpha_runs_task_1 (actor, 1);
    testutil_schedq_queue (actor, 2, 0, 1, 0, "");
    testutil_schedq_queue (actor, 3, 0, 1, 0, "");
    zsock_send (actor, "sss", "LOST", "alpha", "silent");
    //  assign requeues it once it has heard the LOST, which the main sent
    //  schedq first: schedq has dropped alpha before the QUEUE comes
    drover_msg_t *table = testutil_schedq_list_only (actor, 5);
    assert_int_equal (table->nrows, 1);                 //  listed as gone, with no work
    assert_int_equal (table->worker_rows [0].state, DROVER_WORKER_LOST);
    drover_msg_destroy (&table);
    testutil_schedq_queue (actor, 1, 0, 1, 0, "");
    //  The link and the pipe are not ordered between them: let schedq read
    //  the QUEUE (a turn that answers on the pipe is followed by one that
    //  polls every socket) before beta comes
    testutil_schedq_quiet (actor);
    testutil_schedq_up (actor, "beta", "r-beta", 1, 0, "");
    testutil_schedq_expect_one (actor, 1, "beta");
    testutil_say_free (testutil_schedq_link, (uint64_t) 1);
    testutil_schedq_expect_one (actor, 2, "beta");
}

//  Requests no worker can hold, at the highest priority and
//  far more than max-shelve (100 here), keep nothing else from running: a
//  request behind them is placed in the first pass; a worker that can
//  hold them wakes them
static void
test_unplaceable_requests_starve_nothing (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    testutil_schedq_up (actor, "alpha", "r-alpha", 1, 0, "");
    for (uint64_t task = 1; task <= 1000; task++)
        testutil_schedq_queue (actor, task, -100, 1, 0, "pool=nowhere");
    testutil_schedq_queue (actor, 5000, 100, 1, 0, "");
    testutil_schedq_expect_one (actor, 5000, "alpha");
    testutil_schedq_up (actor, "nowhere", "r-nowhere", 1, 0, "pool=nowhere");
    testutil_schedq_expect_one (actor, 1, "nowhere");
}

//  No priority inversion, through the pipe: a priority-0 four-proc
//  request reserves the 4-proc worker busy with priority-5 one-proc
//  tasks (WORKER TABLE shows it), no small one takes the procs it frees,
//  and it is placed as soon as all 4 are free
static void
test_wide_task_reserves_its_worker (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    testutil_schedq_up (actor, "w", "r-w", 4, 0, "");
    //  In one batch, as assign says them in one turn: said apart, a pass
    //  could run between them and place them in more than one ASSIGN
    drover_outbox_t *queues = drover_outbox_new ();
    for (uint64_t task = 1; task <= 8; task++)
        drover_outbox_say_queue (queues, task, 5, 1, 0, NULL, NULL);
    testutil_say_batch (testutil_schedq_link, &queues);
    uint64_t smalls [] = { 1, 2, 3, 4 };
    const char *ws [] = { "w", "w", "w", "w" };
    testutil_schedq_expect_assign (actor, 4, smalls, ws);
    testutil_schedq_queue (actor, 100, 0, 4, 0, "");
    for (uint64_t task = 1; task <= 3; task++) {
        testutil_say_free (testutil_schedq_link, task);
        //  The first answer may come before the pass, the second after it
        drover_msg_t *table = testutil_schedq_list_only (actor, (uint32_t) task);     //  nothing placed
        drover_msg_destroy (&table);
        table = testutil_schedq_list_only (actor, (uint32_t) task);
        assert_int_equal (table->nrows, 1);
        assert_true (table->worker_rows [0].reserved == 100);
        drover_msg_destroy (&table);
    }
    testutil_say_free (testutil_schedq_link, (uint64_t) 4);
    testutil_schedq_expect_one (actor, 100, "w");
    drover_msg_t *table = testutil_schedq_list_only (actor, 9);
    assert_true (table->worker_rows [0].reserved == 0);
    assert_int_equal (table->worker_rows [0].procs_used, 4);
    drover_msg_destroy (&table);
}

//  Many requests at once: every one placed exactly once
static void
test_many_requests (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    testutil_schedq_up (actor, "alpha", "r-alpha", 600, 0, "");
    testutil_schedq_up (actor, "beta", "r-beta", 600, 0, "");
    const uint64_t total = 1000;
    for (uint64_t task = 1; task <= total; task++)
        testutil_schedq_queue (actor, task, (int) (task % 3), 1, 0, "");
    bool seen [1001] = { false };
    uint64_t placed = 0;
    while (placed < total) {
        zmsg_t *msg = testutil_expect_link (testutil_schedq_link, "ASSIGN", 2000);
        while (zmsg_size (msg) >= 2) {
            char *task = zmsg_popstr (msg);
            char *worker = zmsg_popstr (msg);
            uint64_t id = strtoull (task, NULL, 10);
            assert_true (id >= 1 && id <= total);
            assert_false (seen [id]);
            seen [id] = true;
            assert_true (streq (worker, "alpha") || streq (worker, "beta"));
            placed++;
            zstr_free (&task);
            zstr_free (&worker);
        }
        assert_int_equal (zmsg_size (msg), 0);
        zmsg_destroy (&msg);
    }
    testutil_schedq_quiet (actor);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_pass_places_in_priority_order, testutil_schedq_setup,
                                         testutil_schedq_teardown),
        cmocka_unit_test_setup_teardown (test_constraints, testutil_schedq_setup,
                                         testutil_schedq_teardown),
        cmocka_unit_test_setup_teardown (test_dequeue_and_free, testutil_schedq_setup,
                                         testutil_schedq_teardown),
        cmocka_unit_test_setup_teardown (test_requeue_while_assigned, testutil_schedq_setup,
                                         testutil_schedq_teardown),
        cmocka_unit_test_setup_teardown (test_requeued_task_keeps_its_place, testutil_schedq_setup,
                                         testutil_schedq_teardown),
        cmocka_unit_test_setup_teardown (test_unplaceable_requests_starve_nothing,
                                         testutil_schedq_setup, testutil_schedq_teardown),
        cmocka_unit_test_setup_teardown (test_wide_task_reserves_its_worker, testutil_schedq_setup,
                                         testutil_schedq_teardown),
        cmocka_unit_test_setup_teardown (test_many_requests, testutil_schedq_setup,
                                         testutil_schedq_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
