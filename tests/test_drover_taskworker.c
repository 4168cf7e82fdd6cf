/*  =========================================================================
    test_drover_taskworker - a worker as the task table knows it: its
    route, and its live attempts indexed by slot
    =========================================================================
*/

#include "testutil_class.h"
#include "drover_taskworker.h"

//  Attach appends; detach moves the last task into the slot it frees, so
//  every task's slot stays its index in the worker's array
static void
test_detach_keeps_slots_true (void **state)
{
    drover_taskworker_t *worker = drover_taskworker_new ("alpha");
    assert_string_equal (worker->id, "alpha");
    assert_int_equal (worker->ntasks, 0);
    drover_taskrecord_t *tasks [40];
    for (int index = 0; index < 40; index++) {     //  past the first allocation
        tasks [index] = testutil_taskrecord ((uint64_t) index + 1, 5, 2, 4096);
        drover_taskworker_attach (worker, tasks [index]);
        assert_ptr_equal (drover_taskrecord_on (tasks [index]), worker);
        assert_int_equal (tasks [index]->run->worker_slot, index);
    }
    assert_int_equal (worker->ntasks, 40);
    drover_taskworker_detach (worker, tasks [3]);
    assert_null (drover_taskrecord_on (tasks [3]));
    assert_int_equal (worker->ntasks, 39);
    assert_ptr_equal (worker->tasks [3], tasks [39]);
    assert_int_equal (tasks [39]->run->worker_slot, 3);
    drover_taskworker_detach (worker, tasks [39]);      //  now in slot 3
    assert_ptr_equal (worker->tasks [3], tasks [38]);
    assert_int_equal (tasks [38]->run->worker_slot, 3);
    //  The last one leaves without moving another
    drover_taskworker_detach (worker, tasks [37]);
    assert_int_equal (worker->ntasks, 37);
    for (uint32_t slot = 0; slot < worker->ntasks; slot++)
        assert_int_equal (worker->tasks [slot]->run->worker_slot, slot);
    for (int index = 0; index < 40; index++)
        drover_taskrecord_destroy (&tasks [index]);
    drover_taskworker_destroy (&worker);
    drover_taskworker_destroy (&worker);        //  harmless twice
    assert_null (worker);
}

//  A report is fenced by the route the worker registered from
static void
test_route_is_the_registered_one (void **state)
{
    drover_taskworker_t *worker = drover_taskworker_new ("beta");
    drover_taskworker_set_route (worker, (const byte *) "\x00\x01" "a", 3);
    assert_true (drover_taskworker_routed (worker, (const byte *) "\x00\x01" "a", 3));
    assert_false (drover_taskworker_routed (worker, (const byte *) "\x00\x01" "b", 3));
    assert_false (drover_taskworker_routed (worker, (const byte *) "\x00\x01", 2));
    drover_taskworker_set_route (worker, (const byte *) "\x00\x02" "b", 3);
    assert_true (drover_taskworker_routed (worker, (const byte *) "\x00\x02" "b", 3));
    assert_false (drover_taskworker_routed (worker, (const byte *) "\x00\x01" "a", 3));
    drover_taskworker_destroy (&worker);
}

//  Killed attempts are kept until each one's RESULT; others are not theirs
static void
test_killed_attempts_awaited (void **state)
{
    drover_taskworker_t *worker = drover_taskworker_new ("gamma");
    for (uint64_t task = 1; task <= 9; task++)
        drover_taskworker_await_end (worker, task, 2);
    assert_int_equal (worker->nkilled, 9);
    assert_false (drover_taskworker_ended (worker, 4, 1));     //  another attempt
    assert_false (drover_taskworker_ended (worker, 10, 2));
    for (int task = 9; task >= 1; task -= 2)
        assert_true (drover_taskworker_ended (worker, (uint64_t) task, 2));
    assert_false (drover_taskworker_ended (worker, 5, 2));     //  once only
    assert_int_equal (worker->nkilled, 4);
    for (uint64_t task = 2; task <= 8; task += 2)
        assert_true (drover_taskworker_ended (worker, task, 2));
    assert_int_equal (worker->nkilled, 0);
    drover_taskworker_destroy (&worker);
}

//  Run every test
int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_detach_keeps_slots_true),
        cmocka_unit_test (test_route_is_the_registered_one),
        cmocka_unit_test (test_killed_attempts_awaited),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
