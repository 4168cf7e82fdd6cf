/*  =========================================================================
    test_drover_schedq_order - the scheduling queue's order, without
    threads: priority, first fit decreasing, the least loaded worker,
    shelving and the reservations that keep wide requests from starving
    =========================================================================
*/

#include "testutil_placed.h"

//  Lower priority values go first, whatever the arrival order
static void
test_priority_order (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    assert_int_equal (drover_schedq_add_worker (sched, "m1", 1, 0, ""), 0);
    assert_int_equal (drover_schedq_push (sched, 1, 5, 1, 0, NULL), 0);
    assert_int_equal (drover_schedq_push (sched, 2, -3, 1, 0, NULL), 0);
    assert_int_equal (drover_schedq_push (sched, 3, 1, 1, 0, NULL), 0);
    assert_int_equal (drover_schedq_size (sched), 3);
    for (int round = 0; round < 3; round++) {
        assert_int_equal (testutil_placed_run (sched, &placed), 1);
        assert_int_equal (testutil_placed_run (sched, &placed), 0);      //  m1 is full
        assert_non_null (drover_schedq_free (sched, placed.tasks [round]));
    }
    assert_int_equal (placed.tasks [0], 2);
    assert_int_equal (placed.tasks [1], 3);
    assert_int_equal (placed.tasks [2], 1);
    assert_int_equal (drover_schedq_size (sched), 0);
    assert_true (drover_schedq_idle (sched, "m1"));
}

//  Within a priority, larger requests go first; equals go in arrival order
static void
test_first_fit_decreasing_then_fifo (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "m1", 16, 0, NULL);
    drover_schedq_push (sched, 10, 0, 1, 0, NULL);
    drover_schedq_push (sched, 11, 0, 4, 0, NULL);
    drover_schedq_push (sched, 12, 0, 2, 0, NULL);
    drover_schedq_push (sched, 13, 0, 1, 0, NULL);
    drover_schedq_push (sched, 14, 0, 4, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 5);
    uint64_t expected [] = { 11, 14, 12, 10, 13 };
    for (int index = 0; index < 5; index++)
        assert_int_equal (placed.tasks [index], expected [index]);
    assert_int_equal (testutil_placed_used (sched, "m1"), 12);
}

//  Each placement goes to the worker with the most free procs
static void
test_least_loaded_worker (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "small", 2, 0, NULL);
    drover_schedq_add_worker (sched, "big", 4, 0, NULL);
    drover_schedq_push (sched, 1, 0, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_string_equal (placed.workers [0], "big");       //  4 free against 2
    drover_schedq_push (sched, 2, 0, 1, 0, NULL);
    drover_schedq_push (sched, 3, 0, 1, 0, NULL);
    drover_schedq_push (sched, 4, 0, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 3);
    //  big 3 free: big; then 2 and 2 (ties by id): big; then small 2 against big 1
    assert_string_equal (placed.workers [1], "big");
    assert_string_equal (placed.workers [2], "big");
    assert_string_equal (placed.workers [3], "small");
    assert_int_equal (testutil_placed_used (sched, "big"), 3);
    assert_int_equal (testutil_placed_used (sched, "small"), 1);
    assert_string_equal (drover_schedq_assigned (sched, 4), "small");
    assert_false (drover_schedq_queued (sched, 4));
}

//  A request no worker can hold is shelved; what comes after still runs,
//  and the shelved request keeps its place in the queue
static void
test_shelving (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "a", 4, 0, NULL);
    drover_schedq_add_worker (sched, "b", 2, 0, NULL);
    drover_schedq_push (sched, 1, 0, 6, 0, NULL);           //  fits nowhere
    drover_schedq_push (sched, 2, 1, 3, 0, NULL);
    drover_schedq_push (sched, 3, 1, 2, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 2);
    assert_int_equal (placed.tasks [0], 2);
    assert_string_equal (placed.workers [0], "a");
    assert_int_equal (placed.tasks [1], 3);
    assert_string_equal (placed.workers [1], "b");
    assert_true (drover_schedq_queued (sched, 1));
    assert_int_equal (drover_schedq_size (sched), 1);
    //  A bigger worker arrives: the shelved request is back at the head
    drover_schedq_add_worker (sched, "c", 8, 0, NULL);
    drover_schedq_push (sched, 4, 0, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 2);
    assert_int_equal (placed.tasks [2], 1);
    assert_string_equal (placed.workers [2], "c");
    assert_int_equal (placed.tasks [3], 4);
}

//  A pass stops after max-shelve unfit requests; reservations made last
//  across passes, and requests holding one are not counted again
static void
test_max_shelve_bounds_a_pass (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "a", 4, 0, NULL);
    drover_schedq_add_worker (sched, "b", 4, 0, NULL);
    drover_schedq_add_worker (sched, "c", 4, 0, NULL);
    drover_schedq_add_worker (sched, "d", 4, 0, NULL);
    for (uint64_t task = 1; task <= 8; task++)
        drover_schedq_push (sched, task, 9, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 8);           //  2 on each
    drover_schedq_set_max_shelve (sched, 2);
    drover_schedq_push (sched, 10, 0, 4, 0, NULL);
    drover_schedq_push (sched, 11, 0, 4, 0, NULL);
    drover_schedq_push (sched, 12, 0, 4, 0, NULL);
    drover_schedq_push (sched, 13, 1, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 0);           //  10 and 11 reserve a and b
    assert_int_equal (testutil_placed_reserved (sched, "a"), 10);
    assert_int_equal (testutil_placed_reserved (sched, "b"), 11);
    assert_int_equal (testutil_placed_reserved (sched, "c"), 0);
    assert_int_equal (drover_schedq_size (sched), 4);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);           //  12 reserves c, 13 runs on d
    assert_int_equal (placed.tasks [8], 13);
    assert_string_equal (placed.workers [8], "d");
    assert_int_equal (testutil_placed_reserved (sched, "c"), 12);
    assert_int_equal (testutil_placed_reserved (sched, "d"), 0);
    assert_int_equal (drover_schedq_size (sched), 3);
}

//  No priority inversion: a 4-proc worker busy with
//  priority-5 one-proc tasks; a priority-0 four-proc task reserves it and
//  runs as soon as its 4 procs are free, not after all small tasks
static void
test_wide_task_reserves_its_worker (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "w", 4, 0, NULL);
    for (uint64_t task = 1; task <= 24; task++)
        drover_schedq_push (sched, task, 5, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 4);
    drover_schedq_push (sched, 100, 0, 4, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    for (size_t index = 0; index < 3; index++) {
        assert_string_equal (drover_schedq_free (sched, placed.tasks [index]), "w");
        assert_int_equal (testutil_placed_run (sched, &placed), 0);       //  no small one takes the room
        assert_int_equal (testutil_placed_reserved (sched, "w"), 100);
    }
    assert_string_equal (drover_schedq_free (sched, placed.tasks [3]), "w");
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [4], 100);
    assert_string_equal (placed.workers [4], "w");
    assert_int_equal (testutil_placed_reserved (sched, "w"), 0);
    assert_int_equal (drover_schedq_size (sched), 20);
    assert_string_equal (drover_schedq_free (sched, 100), "w");
    assert_int_equal (testutil_placed_run (sched, &placed), 4);           //  the small ones again
}

//  A reservation ends when its request is cancelled or placed elsewhere,
//  when its worker is held, on probation or gone, and passes to a request
//  ranked before its own that has no other worker
static void
test_reservation_ends (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "a", 4, 0, NULL);
    drover_schedq_add_worker (sched, "b", 4, 0, NULL);
    for (uint64_t task = 1; task <= 4; task++)
        drover_schedq_push (sched, task, 5, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 4);           //  a: 1 3, b: 2 4
    for (uint64_t task = 5; task <= 12; task++)
        drover_schedq_push (sched, task, 5, 1, 0, NULL);
    drover_schedq_push (sched, 20, 3, 4, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 2);           //  20 keeps a; b fills up
    assert_int_equal (testutil_placed_reserved (sched, "a"), 20);
    assert_int_equal (testutil_placed_used (sched, "a"), 2);
    //  A request ranked before it takes the reservation over, though all
    //  workers are full
    drover_schedq_push (sched, 21, 1, 4, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    assert_int_equal (testutil_placed_reserved (sched, "a"), 21);
    //  Cancelled: the reservation ends; 20, the head again, makes it anew
    assert_int_equal (drover_schedq_remove (sched, 21), 0);
    assert_int_equal (testutil_placed_reserved (sched, "a"), 0);
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    assert_int_equal (testutil_placed_reserved (sched, "a"), 20);
    //  Held, then resumed; on probation, then cleared: made again each time
    drover_schedq_set_admin (sched, "a", DROVER_ADMIN_HOLD);
    assert_int_equal (testutil_placed_reserved (sched, "a"), 0);
    drover_schedq_set_admin (sched, "a", DROVER_ADMIN_RUN);
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    assert_int_equal (testutil_placed_reserved (sched, "a"), 20);
    drover_schedq_set_probation (sched, "a", true);
    assert_int_equal (testutil_placed_reserved (sched, "a"), 0);
    drover_schedq_set_probation (sched, "a", false);
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    assert_int_equal (testutil_placed_reserved (sched, "a"), 20);
    //  b empties first: 20 runs there, and a takes small ones again
    for (size_t index = 0; index < placed.count; index++)
        if (streq (placed.workers [index], "b"))
            assert_string_equal (drover_schedq_free (sched, placed.tasks [index]), "b");
    size_t before = placed.count;
    assert_int_equal (testutil_placed_run (sched, &placed), 3);
    assert_int_equal (placed.tasks [before], 20);
    assert_string_equal (placed.workers [before], "b");
    assert_string_equal (placed.workers [before + 1], "a");
    assert_string_equal (placed.workers [before + 2], "a");
    assert_int_equal (testutil_placed_reserved (sched, "a"), 0);
    //  Gone: the reservation goes with its worker (made once a has room:
    //  as in bigslice, a full cluster reserves nothing)
    drover_schedq_push (sched, 22, 0, 4, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    assert_int_equal (testutil_placed_reserved (sched, "a"), 0);
    assert_string_equal (drover_schedq_free (sched, placed.tasks [before + 1]), "a");
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    assert_int_equal (testutil_placed_reserved (sched, "a"), 22);
    assert_int_equal (drover_schedq_remove_worker (sched, "a", NULL, NULL), 3);
    drover_schedq_add_worker (sched, "c", 4, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_string_equal (drover_schedq_assigned (sched, 22), "c");
}

//  bigslice's degenerate case: small tasks spread over the workers, then a
//  whole-worker task reserves the least loaded one and cannot run until
//  the small tasks placed on it end (packing them densely would have left
//  a worker whole); the other worker keeps taking small tasks
static void
test_whole_worker_task_waits_then_runs (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "a", 8, 0, NULL);
    drover_schedq_add_worker (sched, "b", 8, 0, NULL);
    for (uint64_t task = 100; task < 104; task++)
        drover_schedq_push (sched, task, 0, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 4);
    assert_int_equal (testutil_placed_used (sched, "a"), 2);             //  spread: 2 and 2
    assert_int_equal (testutil_placed_used (sched, "b"), 2);
    drover_schedq_push (sched, 1, 0, 8, 0, NULL);           //  the whole worker
    for (uint64_t task = 200; task < 220; task++)
        drover_schedq_push (sched, task, 0, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 6);           //  smalls fill b only
    assert_true (drover_schedq_queued (sched, 1));          //  the big one waits
    assert_int_equal (testutil_placed_reserved (sched, "a"), 1);         //  for a (ties by id)
    assert_int_equal (testutil_placed_used (sched, "a"), 2);
    assert_int_equal (testutil_placed_used (sched, "b"), 8);
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    //  Worker a empties: the big task takes it whole
    for (size_t index = 0; index < placed.count; index++)
        if (streq (placed.workers [index], "a"))
            assert_string_equal (drover_schedq_free (sched, placed.tasks [index]), "a");
    assert_true (drover_schedq_idle (sched, "a"));
    size_t before = placed.count;
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [before], 1);
    assert_string_equal (placed.workers [before], "a");
    assert_int_equal (testutil_placed_reserved (sched, "a"), 0);
    assert_int_equal (drover_schedq_size (sched), 14);       //  smalls still queued
}

//  A requeued task keeps its place: its original arrival (the task id,
//  given in increasing order at submit) among requests of its priority,
//  not the back of the queue
static void
test_requeued_task_keeps_its_place (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "a", 1, 0, NULL);
    for (uint64_t task = 1; task <= 3; task++)
        drover_schedq_push (sched, task, 0, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [0], 1);
    //  a is lost with task 1, which is queued again behind 2 and 3
    assert_int_equal (drover_schedq_remove_worker (sched, "a", NULL, NULL), 1);
    assert_int_equal (drover_schedq_push (sched, 1, 0, 1, 0, NULL), 0);
    drover_schedq_push (sched, 4, 0, 1, 0, NULL);
    drover_schedq_add_worker (sched, "b", 1, 0, NULL);
    uint64_t expected [] = { 1, 2, 3, 4 };
    for (int index = 0; index < 4; index++) {
        assert_int_equal (testutil_placed_run (sched, &placed), 1);
        assert_int_equal (placed.tasks [1 + index], expected [index]);
        assert_non_null (drover_schedq_free (sched, expected [index]));
    }
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_priority_order, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_first_fit_decreasing_then_fifo, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_least_loaded_worker, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_shelving, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_max_shelve_bounds_a_pass, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_whole_worker_task_waits_then_runs, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_wide_task_reserves_its_worker, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_reservation_ends, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_requeued_task_keeps_its_place, testutil_placed_setup, testutil_placed_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
