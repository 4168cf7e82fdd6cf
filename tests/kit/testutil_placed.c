/*  =========================================================================
    testutil_placed - the scheduling queue's tests' fixtures
    (see the header)
    =========================================================================
*/

#include "testutil_placed.h"

//  Record a placement
void
testutil_placed_record (uint64_t task, const char *worker, void *arg)
{
    testutil_placed_t *placed = (testutil_placed_t *) arg;
    assert_true (placed->count < 4096);
    placed->tasks [placed->count] = task;
    snprintf (placed->workers [placed->count], DROVER_ID_MAX + 1, "%s", worker);
    placed->count++;
}

//  Run one pass into placed, returning how many it placed
int
testutil_placed_run (drover_schedq_t *sched, testutil_placed_t *placed)
{
    size_t before = placed->count;
    int count = drover_schedq_run (sched, testutil_placed_record, placed);
    assert_int_equal ((size_t) count, placed->count - before);
    return count;
}

//  Return the procs used on a worker
uint32_t
testutil_placed_used (drover_schedq_t *sched, const char *id)
{
    drover_schedq_view_t view;
    assert_int_equal (drover_schedq_lookup (sched, id, &view), 0);
    return view.procs_used;
}

//  cmocka's setup: a scheduling queue (its state) shelving up to 1000
//  requests a pass
int
testutil_placed_setup (void **state)
{
    *state = drover_schedq_new (1000);
    return 0;
}

//  cmocka's teardown: destroy the queue (twice: harmless)
int
testutil_placed_teardown (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    drover_schedq_destroy (&sched);
    assert_null (sched);
    drover_schedq_destroy (&sched);      //  harmless twice
    return 0;
}

//  Return the task a worker is reserved for, 0 if none
uint64_t
testutil_placed_reserved (drover_schedq_t *sched, const char *id)
{
    drover_schedq_view_t view;
    assert_int_equal (drover_schedq_lookup (sched, id, &view), 0);
    return view.reserved;
}
