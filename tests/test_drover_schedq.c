/*  =========================================================================
    test_drover_schedq - the scheduling queue: order, fit, constraints,
    shelving, eligibility and capacity bookkeeping, without threads
    =========================================================================
*/

#include "testutil.h"
#include "drover_schedq.h"

//  What one or more passes placed, in order
typedef struct {
    size_t count;               //  placements recorded
    uint64_t tasks [4096];      //  task of each placement
    char workers [4096][DROVER_ID_MAX + 1];     //  worker of each placement
} s_placed_t;

//  Record a placement
static void
s_record (uint64_t task, const char *worker, void *arg)
{
    s_placed_t *placed = (s_placed_t *) arg;
    assert_true (placed->count < 4096);
    placed->tasks [placed->count] = task;
    snprintf (placed->workers [placed->count], DROVER_ID_MAX + 1, "%s", worker);
    placed->count++;
}

//  Run one pass into placed, returning how many it placed
static int
s_run (drover_schedq_t *sched, s_placed_t *placed)
{
    size_t before = placed->count;
    int count = drover_schedq_run (sched, s_record, placed);
    assert_int_equal ((size_t) count, placed->count - before);
    return count;
}

//  Return the procs used on a worker
static uint32_t
s_used (drover_schedq_t *sched, const char *id)
{
    drover_schedq_view_t view;
    assert_int_equal (drover_schedq_lookup (sched, id, &view), 0);
    return view.procs_used;
}

static int
s_setup (void **state)
{
    *state = drover_schedq_new (1000);
    return 0;
}

static int
s_teardown (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    drover_schedq_destroy (&sched);
    assert_null (sched);
    drover_schedq_destroy (&sched);      //  harmless twice
    return 0;
}

//  Lower priority values go first, whatever the arrival order
static void
test_priority_order (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_placed_t placed = { 0 };
    assert_int_equal (drover_schedq_add_worker (sched, "m1", 1, 0, ""), 0);
    assert_int_equal (drover_schedq_push (sched, 1, 5, 1, 0, NULL), 0);
    assert_int_equal (drover_schedq_push (sched, 2, -3, 1, 0, NULL), 0);
    assert_int_equal (drover_schedq_push (sched, 3, 1, 1, 0, NULL), 0);
    assert_int_equal (drover_schedq_size (sched), 3);
    for (int round = 0; round < 3; round++) {
        assert_int_equal (s_run (sched, &placed), 1);
        assert_int_equal (s_run (sched, &placed), 0);      //  m1 is full
        assert_non_null (drover_schedq_free (sched, placed.tasks [round]));
    }
    assert_int_equal (placed.tasks [0], 2);
    assert_int_equal (placed.tasks [1], 3);
    assert_int_equal (placed.tasks [2], 1);
    assert_int_equal (drover_schedq_size (sched), 0);
    assert_true (drover_schedq_idle (sched, "m1"));
}

//  An attempt adopted after a restart counts where it runs: its procs are
//  used (a pass places nothing in them), FREE gives them back; a task or
//  worker the scheduler holds already, or does not know, is refused
static void
test_place_adopted_attempt (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_placed_t placed = { 0 };
    assert_int_equal (drover_schedq_add_worker (sched, "m1", 4, 0, ""), 0);
    assert_int_equal (drover_schedq_place (sched, "m1", 7, 3, 0, ""), 0);
    assert_int_equal (s_used (sched, "m1"), 3);
    assert_string_equal (drover_schedq_assigned (sched, 7), "m1");
    assert_int_equal (drover_schedq_place (sched, "m1", 7, 1, 0, ""), -1);     //  held already
    assert_int_equal (drover_schedq_place (sched, "gone", 8, 1, 0, ""), -1);   //  unknown worker
    assert_int_equal (drover_schedq_push (sched, 9, 0, 2, 0, NULL), 0);
    assert_int_equal (s_run (sched, &placed), 0);          //  1 proc free of 4
    assert_non_null (drover_schedq_free (sched, 7));
    assert_int_equal (s_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [0], 9);
}

//  Within a priority, larger requests go first; equals go in arrival order
static void
test_first_fit_decreasing_then_fifo (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "m1", 16, 0, NULL);
    drover_schedq_push (sched, 10, 0, 1, 0, NULL);
    drover_schedq_push (sched, 11, 0, 4, 0, NULL);
    drover_schedq_push (sched, 12, 0, 2, 0, NULL);
    drover_schedq_push (sched, 13, 0, 1, 0, NULL);
    drover_schedq_push (sched, 14, 0, 4, 0, NULL);
    assert_int_equal (s_run (sched, &placed), 5);
    uint64_t expected [] = { 11, 14, 12, 10, 13 };
    for (int index = 0; index < 5; index++)
        assert_int_equal (placed.tasks [index], expected [index]);
    assert_int_equal (s_used (sched, "m1"), 12);
}

//  Each placement goes to the worker with the most free procs
static void
test_least_loaded_worker (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "small", 2, 0, NULL);
    drover_schedq_add_worker (sched, "big", 4, 0, NULL);
    drover_schedq_push (sched, 1, 0, 1, 0, NULL);
    assert_int_equal (s_run (sched, &placed), 1);
    assert_string_equal (placed.workers [0], "big");       //  4 free against 2
    drover_schedq_push (sched, 2, 0, 1, 0, NULL);
    drover_schedq_push (sched, 3, 0, 1, 0, NULL);
    drover_schedq_push (sched, 4, 0, 1, 0, NULL);
    assert_int_equal (s_run (sched, &placed), 3);
    //  big 3 free: big; then 2 and 2 (ties by id): big; then small 2 against big 1
    assert_string_equal (placed.workers [1], "big");
    assert_string_equal (placed.workers [2], "big");
    assert_string_equal (placed.workers [3], "small");
    assert_int_equal (s_used (sched, "big"), 3);
    assert_int_equal (s_used (sched, "small"), 1);
    assert_string_equal (drover_schedq_assigned (sched, 4), "small");
    assert_false (drover_schedq_queued (sched, 4));
}

//  A request no worker can hold is shelved; what comes after still runs,
//  and the shelved request keeps its place in the queue
static void
test_shelving (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "a", 4, 0, NULL);
    drover_schedq_add_worker (sched, "b", 2, 0, NULL);
    drover_schedq_push (sched, 1, 0, 6, 0, NULL);           //  fits nowhere
    drover_schedq_push (sched, 2, 1, 3, 0, NULL);
    drover_schedq_push (sched, 3, 1, 2, 0, NULL);
    assert_int_equal (s_run (sched, &placed), 2);
    assert_int_equal (placed.tasks [0], 2);
    assert_string_equal (placed.workers [0], "a");
    assert_int_equal (placed.tasks [1], 3);
    assert_string_equal (placed.workers [1], "b");
    assert_true (drover_schedq_queued (sched, 1));
    assert_int_equal (drover_schedq_size (sched), 1);
    //  A bigger worker arrives: the shelved request is back at the head
    drover_schedq_add_worker (sched, "c", 8, 0, NULL);
    drover_schedq_push (sched, 4, 0, 1, 0, NULL);
    assert_int_equal (s_run (sched, &placed), 2);
    assert_int_equal (placed.tasks [2], 1);
    assert_string_equal (placed.workers [2], "c");
    assert_int_equal (placed.tasks [3], 4);
}

//  Return the task a worker is reserved for, 0 if none
static uint64_t
s_reserved (drover_schedq_t *sched, const char *id)
{
    drover_schedq_view_t view;
    assert_int_equal (drover_schedq_lookup (sched, id, &view), 0);
    return view.reserved;
}

//  A pass stops after max-shelve unfit requests; reservations made last
//  across passes, and requests holding one are not counted again
static void
test_max_shelve_bounds_a_pass (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "a", 4, 0, NULL);
    drover_schedq_add_worker (sched, "b", 4, 0, NULL);
    drover_schedq_add_worker (sched, "c", 4, 0, NULL);
    drover_schedq_add_worker (sched, "d", 4, 0, NULL);
    for (uint64_t task = 1; task <= 8; task++)
        drover_schedq_push (sched, task, 9, 1, 0, NULL);
    assert_int_equal (s_run (sched, &placed), 8);           //  2 on each
    drover_schedq_set_max_shelve (sched, 2);
    drover_schedq_push (sched, 10, 0, 4, 0, NULL);
    drover_schedq_push (sched, 11, 0, 4, 0, NULL);
    drover_schedq_push (sched, 12, 0, 4, 0, NULL);
    drover_schedq_push (sched, 13, 1, 1, 0, NULL);
    assert_int_equal (s_run (sched, &placed), 0);           //  10 and 11 reserve a and b
    assert_int_equal (s_reserved (sched, "a"), 10);
    assert_int_equal (s_reserved (sched, "b"), 11);
    assert_int_equal (s_reserved (sched, "c"), 0);
    assert_int_equal (drover_schedq_size (sched), 4);
    assert_int_equal (s_run (sched, &placed), 1);           //  12 reserves c, 13 runs on d
    assert_int_equal (placed.tasks [8], 13);
    assert_string_equal (placed.workers [8], "d");
    assert_int_equal (s_reserved (sched, "c"), 12);
    assert_int_equal (s_reserved (sched, "d"), 0);
    assert_int_equal (drover_schedq_size (sched), 3);
}

//  No priority inversion: a 4-proc worker busy with
//  priority-5 one-proc tasks; a priority-0 four-proc task reserves it and
//  runs as soon as its 4 procs are free, not after all small tasks
static void
test_wide_task_reserves_its_worker (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "w", 4, 0, NULL);
    for (uint64_t task = 1; task <= 24; task++)
        drover_schedq_push (sched, task, 5, 1, 0, NULL);
    assert_int_equal (s_run (sched, &placed), 4);
    drover_schedq_push (sched, 100, 0, 4, 0, NULL);
    assert_int_equal (s_run (sched, &placed), 0);
    for (size_t index = 0; index < 3; index++) {
        assert_string_equal (drover_schedq_free (sched, placed.tasks [index]), "w");
        assert_int_equal (s_run (sched, &placed), 0);       //  no small one takes the room
        assert_int_equal (s_reserved (sched, "w"), 100);
    }
    assert_string_equal (drover_schedq_free (sched, placed.tasks [3]), "w");
    assert_int_equal (s_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [4], 100);
    assert_string_equal (placed.workers [4], "w");
    assert_int_equal (s_reserved (sched, "w"), 0);
    assert_int_equal (drover_schedq_size (sched), 20);
    assert_string_equal (drover_schedq_free (sched, 100), "w");
    assert_int_equal (s_run (sched, &placed), 4);           //  the small ones again
}

//  A reservation ends when its request is cancelled or placed elsewhere,
//  when its worker is held, on probation or gone, and passes to a request
//  ranked before its own that has no other worker
static void
test_reservation_ends (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "a", 4, 0, NULL);
    drover_schedq_add_worker (sched, "b", 4, 0, NULL);
    for (uint64_t task = 1; task <= 4; task++)
        drover_schedq_push (sched, task, 5, 1, 0, NULL);
    assert_int_equal (s_run (sched, &placed), 4);           //  a: 1 3, b: 2 4
    for (uint64_t task = 5; task <= 12; task++)
        drover_schedq_push (sched, task, 5, 1, 0, NULL);
    drover_schedq_push (sched, 20, 3, 4, 0, NULL);
    assert_int_equal (s_run (sched, &placed), 2);           //  20 keeps a; b fills up
    assert_int_equal (s_reserved (sched, "a"), 20);
    assert_int_equal (s_used (sched, "a"), 2);
    //  A request ranked before it takes the reservation over, though all
    //  workers are full
    drover_schedq_push (sched, 21, 1, 4, 0, NULL);
    assert_int_equal (s_run (sched, &placed), 0);
    assert_int_equal (s_reserved (sched, "a"), 21);
    //  Cancelled: the reservation ends; 20, the head again, makes it anew
    assert_int_equal (drover_schedq_remove (sched, 21), 0);
    assert_int_equal (s_reserved (sched, "a"), 0);
    assert_int_equal (s_run (sched, &placed), 0);
    assert_int_equal (s_reserved (sched, "a"), 20);
    //  Held, then resumed; on probation, then cleared: made again each time
    drover_schedq_set_admin (sched, "a", DROVER_ADMIN_HOLD);
    assert_int_equal (s_reserved (sched, "a"), 0);
    drover_schedq_set_admin (sched, "a", DROVER_ADMIN_RUN);
    assert_int_equal (s_run (sched, &placed), 0);
    assert_int_equal (s_reserved (sched, "a"), 20);
    drover_schedq_set_probation (sched, "a", true);
    assert_int_equal (s_reserved (sched, "a"), 0);
    drover_schedq_set_probation (sched, "a", false);
    assert_int_equal (s_run (sched, &placed), 0);
    assert_int_equal (s_reserved (sched, "a"), 20);
    //  b empties first: 20 runs there, and a takes small ones again
    for (size_t index = 0; index < placed.count; index++)
        if (streq (placed.workers [index], "b"))
            assert_string_equal (drover_schedq_free (sched, placed.tasks [index]), "b");
    size_t before = placed.count;
    assert_int_equal (s_run (sched, &placed), 3);
    assert_int_equal (placed.tasks [before], 20);
    assert_string_equal (placed.workers [before], "b");
    assert_string_equal (placed.workers [before + 1], "a");
    assert_string_equal (placed.workers [before + 2], "a");
    assert_int_equal (s_reserved (sched, "a"), 0);
    //  Gone: the reservation goes with its worker (made once a has room:
    //  as in bigslice, a full cluster reserves nothing)
    drover_schedq_push (sched, 22, 0, 4, 0, NULL);
    assert_int_equal (s_run (sched, &placed), 0);
    assert_int_equal (s_reserved (sched, "a"), 0);
    assert_string_equal (drover_schedq_free (sched, placed.tasks [before + 1]), "a");
    assert_int_equal (s_run (sched, &placed), 0);
    assert_int_equal (s_reserved (sched, "a"), 22);
    assert_int_equal (drover_schedq_remove_worker (sched, "a", NULL, NULL), 3);
    drover_schedq_add_worker (sched, "c", 4, 0, NULL);
    assert_int_equal (s_run (sched, &placed), 1);
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
    s_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "a", 8, 0, NULL);
    drover_schedq_add_worker (sched, "b", 8, 0, NULL);
    for (uint64_t task = 100; task < 104; task++)
        drover_schedq_push (sched, task, 0, 1, 0, NULL);
    assert_int_equal (s_run (sched, &placed), 4);
    assert_int_equal (s_used (sched, "a"), 2);             //  spread: 2 and 2
    assert_int_equal (s_used (sched, "b"), 2);
    drover_schedq_push (sched, 1, 0, 8, 0, NULL);           //  the whole worker
    for (uint64_t task = 200; task < 220; task++)
        drover_schedq_push (sched, task, 0, 1, 0, NULL);
    assert_int_equal (s_run (sched, &placed), 6);           //  smalls fill b only
    assert_true (drover_schedq_queued (sched, 1));          //  the big one waits
    assert_int_equal (s_reserved (sched, "a"), 1);         //  for a (ties by id)
    assert_int_equal (s_used (sched, "a"), 2);
    assert_int_equal (s_used (sched, "b"), 8);
    assert_int_equal (s_run (sched, &placed), 0);
    //  Worker a empties: the big task takes it whole
    for (size_t index = 0; index < placed.count; index++)
        if (streq (placed.workers [index], "a"))
            assert_string_equal (drover_schedq_free (sched, placed.tasks [index]), "a");
    assert_true (drover_schedq_idle (sched, "a"));
    size_t before = placed.count;
    assert_int_equal (s_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [before], 1);
    assert_string_equal (placed.workers [before], "a");
    assert_int_equal (s_reserved (sched, "a"), 0);
    assert_int_equal (drover_schedq_size (sched), 14);       //  smalls still queued
}

//  A requeued task keeps its place: its original arrival (the task id,
//  given in increasing order at submit) among requests of its priority,
//  not the back of the queue
static void
test_requeued_task_keeps_its_place (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "a", 1, 0, NULL);
    for (uint64_t task = 1; task <= 3; task++)
        drover_schedq_push (sched, task, 0, 1, 0, NULL);
    assert_int_equal (s_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [0], 1);
    //  a is lost with task 1, which is queued again behind 2 and 3
    assert_int_equal (drover_schedq_remove_worker (sched, "a", NULL, NULL), 1);
    assert_int_equal (drover_schedq_push (sched, 1, 0, 1, 0, NULL), 0);
    drover_schedq_push (sched, 4, 0, 1, 0, NULL);
    drover_schedq_add_worker (sched, "b", 1, 0, NULL);
    uint64_t expected [] = { 1, 2, 3, 4 };
    for (int index = 0; index < 4; index++) {
        assert_int_equal (s_run (sched, &placed), 1);
        assert_int_equal (placed.tasks [1 + index], expected [index]);
        assert_non_null (drover_schedq_free (sched, expected [index]));
    }
}

//  A request demanding memory goes to the most-free worker that has it
static void
test_memory_constraint (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_placed_t placed = { 0 };
    uint64_t gib = 1ULL << 30;
    drover_schedq_add_worker (sched, "roomy", 8, 1 * gib, NULL);
    drover_schedq_add_worker (sched, "fat", 4, 16 * gib, NULL);
    drover_schedq_add_worker (sched, "fatter", 2, 32 * gib, NULL);
    drover_schedq_push (sched, 1, 0, 1, 8 * gib, NULL);
    drover_schedq_push (sched, 2, 0, 1, 64 * gib, NULL);    //  too much anywhere
    drover_schedq_push (sched, 3, 1, 1, 0, NULL);
    assert_int_equal (s_run (sched, &placed), 2);
    assert_int_equal (placed.tasks [0], 1);
    assert_string_equal (placed.workers [0], "fat");       //  most free among those with 8 GiB
    assert_int_equal (placed.tasks [1], 3);
    assert_string_equal (placed.workers [1], "roomy");
    assert_true (drover_schedq_queued (sched, 2));
    drover_schedq_view_t view;
    assert_int_equal (drover_schedq_lookup (sched, "fat", &view), 0);
    assert_int_equal (view.mem_used, 8 * gib);
    //  Memory is given back with the procs
    drover_schedq_free (sched, 1);
    assert_int_equal (drover_schedq_lookup (sched, "fat", &view), 0);
    assert_int_equal (view.mem_used, 0);
    assert_int_equal (view.procs_used, 0);
}

//  A labelled request finds its workers through the label index: among
//  many workers of another pool it goes to the holder with the most free
//  procs; the index follows a worker's new labels and its removal
static void
test_label_index (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_placed_t placed = { 0 };
    for (int index = 0; index < 500; index++) {
        char id [32];
        snprintf (id, sizeof id, "idle-%d", index);
        assert_int_equal (drover_schedq_add_worker (sched, id, 8, 1 << 30, "pool=idle"), 0);
    }
    assert_int_equal (drover_schedq_add_worker (sched, "busy-a", 2, 1 << 30, "pool=busy\nzone=a"), 0);
    assert_int_equal (drover_schedq_add_worker (sched, "busy-b", 4, 1 << 30, "zone=b\npool=busy"), 0);
    assert_int_equal (drover_schedq_push (sched, 1, 0, 1, 0, "pool=busy"), 0);
    assert_int_equal (drover_schedq_push (sched, 2, 0, 1, 0, "pool=busy\nzone=a"), 0);
    assert_int_equal (drover_schedq_push (sched, 3, 0, 1, 0, "pool=none"), 0);
    assert_int_equal (s_run (sched, &placed), 2);
    assert_string_equal (placed.workers [0], "busy-b");     //  most free procs
    assert_string_equal (placed.workers [1], "busy-a");     //  the only zone=a
    assert_true (drover_schedq_queued (sched, 3));           //  nobody has pool=none

    //  busy-b changes pool: it leaves pool=busy's holders and joins pool=none's
    assert_int_equal (drover_schedq_add_worker (sched, "busy-b", 4, 1 << 30, "pool=none"), 1);
    assert_int_equal (drover_schedq_push (sched, 4, 0, 1, 0, "pool=busy"), 0);
    assert_int_equal (s_run (sched, &placed), 2);
    assert_int_equal (placed.tasks [2], 3);                 //  the older request first
    assert_string_equal (placed.workers [2], "busy-b");
    assert_int_equal (placed.tasks [3], 4);
    assert_string_equal (placed.workers [3], "busy-a");

    //  Gone: its label finds nobody, and the request waits
    assert_int_equal (drover_schedq_remove_worker (sched, "busy-a", NULL, NULL), 2);
    assert_int_equal (drover_schedq_push (sched, 5, 0, 1, 0, "pool=busy"), 0);
    assert_int_equal (s_run (sched, &placed), 0);
    assert_true (drover_schedq_queued (sched, 5));
    assert_int_equal (drover_schedq_add_worker (sched, "busy-c", 1, 1 << 30, "pool=busy"), 0);
    assert_int_equal (s_run (sched, &placed), 1);
    assert_string_equal (placed.workers [4], "busy-c");
}

//  A request requiring labels goes only where all of them are
static void
test_label_constraint (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "plain", 8, 0, "");
    drover_schedq_add_worker (sched, "gpu", 2, 0, "zone=x\ngpu=yes");
    drover_schedq_add_worker (sched, "gpu-y", 1, 0, "gpu=yes\nzone=y\n");
    drover_schedq_push (sched, 1, 0, 1, 0, "gpu=yes");
    drover_schedq_push (sched, 2, 0, 1, 0, "gpu=yes\nzone=y");
    drover_schedq_push (sched, 3, 0, 1, 0, "gpu=yes\nzone=z");  //  nowhere
    drover_schedq_push (sched, 4, 0, 1, 0, "zone=y");
    drover_schedq_push (sched, 5, 1, 1, 0, NULL);
    assert_int_equal (s_run (sched, &placed), 3);
    assert_int_equal (placed.tasks [0], 1);
    assert_string_equal (placed.workers [0], "gpu");       //  2 free against 1
    assert_int_equal (placed.tasks [1], 2);
    assert_string_equal (placed.workers [1], "gpu-y");
    assert_int_equal (placed.tasks [2], 5);
    assert_string_equal (placed.workers [2], "plain");
    assert_true (drover_schedq_queued (sched, 3));
    assert_true (drover_schedq_queued (sched, 4));          //  gpu-y is full
    drover_schedq_free (sched, 2);
    assert_int_equal (s_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [3], 4);
    assert_string_equal (placed.workers [3], "gpu-y");
    drover_schedq_view_t view;
    assert_int_equal (drover_schedq_lookup (sched, "gpu-y", &view), 0);
    assert_int_equal (view.nlabels, 2);
    assert_string_equal (view.labels [0], "gpu=yes");
    assert_string_equal (view.labels [1], "zone=y");
}

//  A worker's probation end time, as the probation actor says it, shows in
//  its view while it is on probation, and is forgotten once it is cleared
static void
test_probation_until_in_view (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    drover_schedq_view_t view;
    drover_schedq_add_worker (sched, "a", 4, 0, NULL);
    assert_int_equal (drover_schedq_set_probation_until (sched, "nobody", 5), -1);
    assert_int_equal (drover_schedq_set_probation (sched, "a", true), 0);
    assert_int_equal (drover_schedq_lookup (sched, "a", &view), 0);
    assert_int_equal (view.probation_until, 0);             //  not said yet: unknown
    assert_int_equal (drover_schedq_set_probation_until (sched, "a", 1700000030000), 0);
    assert_int_equal (drover_schedq_lookup (sched, "a", &view), 0);
    assert_true (view.probation);
    assert_int_equal (view.probation_until, 1700000030000);
    drover_schedq_set_probation (sched, "a", false);
    assert_int_equal (drover_schedq_lookup (sched, "a", &view), 0);
    assert_int_equal (view.probation_until, 0);
    drover_schedq_set_probation (sched, "a", true);          //  again, from assign: no time
    assert_int_equal (drover_schedq_lookup (sched, "a", &view), 0);
    assert_int_equal (view.probation_until, 0);
}

//  Held, draining and on probation workers take nothing new; they do again
//  once resumed or cleared
static void
test_held_drained_probation_skipped (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "held", 8, 0, NULL);
    drover_schedq_add_worker (sched, "drained", 8, 0, NULL);
    drover_schedq_add_worker (sched, "on probation", 8, 0, NULL);
    drover_schedq_add_worker (sched, "ok", 1, 0, NULL);
    assert_int_equal (drover_schedq_set_admin (sched, "held", DROVER_ADMIN_HOLD), 0);
    assert_int_equal (drover_schedq_set_admin (sched, "drained", DROVER_ADMIN_DRAIN), 0);
    assert_int_equal (drover_schedq_set_probation (sched, "on probation", true), 0);
    assert_int_equal (drover_schedq_set_admin (sched, "nobody", DROVER_ADMIN_HOLD), -1);
    assert_int_equal (drover_schedq_set_admin (sched, "ok", 7), -1);
    assert_int_equal (drover_schedq_set_probation (sched, "nobody", true), -1);
    for (uint64_t task = 1; task <= 4; task++)
        drover_schedq_push (sched, task, 0, 1, 0, NULL);
    assert_int_equal (s_run (sched, &placed), 1);
    assert_string_equal (placed.workers [0], "ok");
    assert_int_equal (s_run (sched, &placed), 0);
    drover_schedq_view_t view;
    assert_int_equal (drover_schedq_lookup (sched, "on probation", &view), 0);
    assert_true (view.probation);
    assert_int_equal (drover_schedq_lookup (sched, "drained", &view), 0);
    assert_int_equal (view.admin, DROVER_ADMIN_DRAIN);
    assert_true (drover_schedq_idle (sched, "drained"));
    assert_false (drover_schedq_idle (sched, "ok"));
    assert_false (drover_schedq_idle (sched, "nobody"));
    //  Each comes back and takes one
    drover_schedq_set_probation (sched, "on probation", false);
    assert_int_equal (s_run (sched, &placed), 3);           //  8 free takes all three
    assert_int_equal (s_used (sched, "on probation"), 3);
    drover_schedq_push (sched, 5, 0, 8, 0, NULL);
    drover_schedq_set_admin (sched, "held", DROVER_ADMIN_RUN);
    assert_int_equal (s_run (sched, &placed), 1);
    assert_string_equal (placed.workers [4], "held");
}

//  Freeing gives capacity back; freeing twice or a queued task does nothing
static void
test_free_gives_capacity_back (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "m", 4, 0, NULL);
    drover_schedq_push (sched, 1, 0, 3, 0, NULL);
    drover_schedq_push (sched, 2, 0, 3, 0, NULL);
    assert_int_equal (s_run (sched, &placed), 1);
    assert_int_equal (s_used (sched, "m"), 3);
    assert_null (drover_schedq_free (sched, 2));             //  queued, holds nothing
    assert_true (drover_schedq_queued (sched, 2));
    assert_string_equal (drover_schedq_free (sched, 1), "m");
    assert_null (drover_schedq_free (sched, 1));
    assert_int_equal (s_used (sched, "m"), 0);
    assert_int_equal (s_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [1], 2);
}

//  Queue bookkeeping: duplicates and empty demands refused, removal of
//  queued requests only
static void
test_push_and_remove (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_placed_t placed = { 0 };
    assert_int_equal (drover_schedq_push (sched, 1, 0, 0, 0, NULL), -1);
    assert_int_equal (drover_schedq_push (sched, 1, 0, 1, 0, NULL), 0);
    assert_int_equal (drover_schedq_push (sched, 1, 0, 1, 0, NULL), -1);
    assert_int_equal (drover_schedq_push (sched, 2, 0, 1, 0, NULL), 0);
    assert_int_equal (drover_schedq_push (sched, 3, 0, 1, 0, NULL), 0);
    assert_int_equal (drover_schedq_remove (sched, 2), 0);
    assert_int_equal (drover_schedq_remove (sched, 2), -1);
    assert_int_equal (drover_schedq_size (sched), 2);
    drover_schedq_add_worker (sched, "m", 1, 0, NULL);
    assert_int_equal (s_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [0], 1);
    assert_int_equal (drover_schedq_remove (sched, 1), -1);  //  assigned, not queued
    assert_int_equal (drover_schedq_push (sched, 1, 0, 1, 0, NULL), -1);
    assert_int_equal (drover_schedq_remove (sched, 3), 0);
    assert_int_equal (drover_schedq_size (sched), 0);
}

//  Collect the tasks a removed worker had
static void
s_collect (uint64_t task, void *arg)
{
    zlistx_t *tasks = (zlistx_t *) arg;
    zlistx_add_end (tasks, (void *) (uintptr_t) task);
}

//  Removing a worker reports and forgets its tasks; queued ones stay
static void
test_remove_worker (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "a", 2, 0, NULL);
    drover_schedq_add_worker (sched, "b", 1, 0, NULL);
    for (uint64_t task = 1; task <= 4; task++)
        drover_schedq_push (sched, task, 0, 1, 0, NULL);
    assert_int_equal (s_run (sched, &placed), 3);
    zlistx_t *tasks = zlistx_new ();
    assert_int_equal (drover_schedq_remove_worker (sched, "a", s_collect, tasks), 2);
    assert_int_equal (zlistx_size (tasks), 2);
    uint64_t sum = 0;
    for (void *task = zlistx_first (tasks); task; task = zlistx_next (tasks)) {
        assert_null (drover_schedq_assigned (sched, (uint64_t) (uintptr_t) task));
        sum += (uint64_t) (uintptr_t) task;
    }
    zlistx_destroy (&tasks);
    assert_int_equal (sum, 1 + 2);                          //  a took 1 and 2 (ties by id), b took 3
    assert_int_equal (drover_schedq_remove_worker (sched, "a", NULL, NULL), -1);
    assert_int_equal (drover_schedq_workers (sched), 1);
    assert_null (drover_schedq_free (sched, 1));             //  forgotten with a
    assert_true (drover_schedq_queued (sched, 4));
    assert_string_equal (drover_schedq_free (sched, 3), "b");
    assert_int_equal (s_run (sched, &placed), 1);
    assert_string_equal (placed.workers [3], "b");
    //  The requeued tasks can be pushed again
    assert_int_equal (drover_schedq_push (sched, 1, 0, 1, 0, NULL), 0);
    assert_int_equal (drover_schedq_remove_worker (sched, "b", NULL, NULL), 1);
    assert_int_equal (s_run (sched, &placed), 0);           //  no workers at all
}

//  A known worker added again keeps its tasks, admin and probation
static void
test_worker_update_keeps_state (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_placed_t placed = { 0 };
    assert_int_equal (drover_schedq_add_worker (sched, "m", 2, 0, "a=1"), 0);
    drover_schedq_push (sched, 1, 0, 2, 0, NULL);
    assert_int_equal (s_run (sched, &placed), 1);
    drover_schedq_set_admin (sched, "m", DROVER_ADMIN_HOLD);
    assert_int_equal (drover_schedq_add_worker (sched, "m", 4, 100, "b=2"), 1);
    drover_schedq_view_t view;
    assert_int_equal (drover_schedq_lookup (sched, "m", &view), 0);
    assert_int_equal (view.procs, 4);
    assert_int_equal (view.procs_used, 2);
    assert_int_equal (view.mem, 100);
    assert_int_equal (view.admin, DROVER_ADMIN_HOLD);
    assert_int_equal (view.tasks, 1);
    assert_int_equal (view.nlabels, 1);
    assert_string_equal (view.labels [0], "b=2");
    drover_stats_t stats = { .running = 7, .mem_total = 1000 };
    assert_int_equal (drover_schedq_set_stats (sched, "m", &stats), 0);
    assert_int_equal (drover_schedq_set_stats (sched, "x", &stats), -1);
    assert_int_equal (drover_schedq_lookup (sched, "m", &view), 0);
    assert_int_equal (view.stats.running, 7);
    assert_int_equal (view.stats.mem_total, 1000);
    assert_int_equal (drover_schedq_lookup (sched, "x", &view), -1);
}

//  Iteration visits every worker once
static void
test_iteration (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    assert_null (drover_schedq_first (sched));
    drover_schedq_add_worker (sched, "a", 1, 0, NULL);
    drover_schedq_add_worker (sched, "b", 1, 0, NULL);
    drover_schedq_add_worker (sched, "c", 1, 0, NULL);
    int seen = 0;
    for (const char *id = drover_schedq_first (sched); id; id = drover_schedq_next (sched))
        seen |= 1 << (id [0] - 'a');
    assert_int_equal (seen, 7);
}

//  Requests asking the same memory and labels share what they demand:
//  alike and unlike pushes interleaved, some removed, each still placed
//  only where it fits, and capacity given back exactly
static void
test_shared_demands (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "gpu", 64, 1000, "gpu=1\nzone=a");
    drover_schedq_add_worker (sched, "plain", 64, 100000, "zone=b");
    drover_schedq_set_admin (sched, "plain", DROVER_ADMIN_HOLD);
    drover_schedq_set_admin (sched, "gpu", DROVER_ADMIN_HOLD);
    const char *labels [] = { "gpu=1", NULL, "gpu=1", "zone=b", "", "gpu=1\nzone=a" };
    const uint64_t mems [] = { 10, 0, 10, 500, 0, 20 };
    for (uint64_t task = 1; task <= 60; task++)
        assert_int_equal (drover_schedq_push (sched, task, 0, 1, mems [task % 6],
                                             labels [task % 6]), 0);
    for (uint64_t task = 2; task <= 60; task += 4)
        assert_int_equal (drover_schedq_remove (sched, task), 0);
    assert_int_equal (drover_schedq_size (sched), 45);
    drover_schedq_set_admin (sched, "plain", DROVER_ADMIN_RUN);
    drover_schedq_set_admin (sched, "gpu", DROVER_ADMIN_RUN);
    assert_int_equal (s_run (sched, &placed), 45);
    uint64_t gpu_mem = 0;
    for (size_t index = 0; index < placed.count; index++) {
        uint64_t task = placed.tasks [index];
        const char *want = labels [task % 6];
        if (want && strstr (want, "gpu"))
            assert_string_equal (placed.workers [index], "gpu");
        if (want && streq (want, "zone=b"))
            assert_string_equal (placed.workers [index], "plain");
        if (streq (placed.workers [index], "gpu"))
            gpu_mem += mems [task % 6];
    }
    drover_schedq_view_t view;
    assert_int_equal (drover_schedq_lookup (sched, "gpu", &view), 0);
    assert_int_equal (view.mem_used, gpu_mem);
    for (size_t index = 0; index < placed.count; index++)
        assert_non_null (drover_schedq_free (sched, placed.tasks [index]));
    assert_int_equal (drover_schedq_lookup (sched, "gpu", &view), 0);
    assert_int_equal (view.mem_used, 0);
    assert_int_equal (view.procs_used, 0);
    //  The same demands again, after all were let go
    assert_int_equal (drover_schedq_push (sched, 100, 0, 1, 10, "gpu=1"), 0);
    assert_int_equal (s_run (sched, &placed), 1);
    assert_string_equal (drover_schedq_assigned (sched, 100), "gpu");
}

//  Many requests and workers, mixed sizes, frees and removals: capacity
//  bookkeeping stays exact and nothing is placed twice or lost
static void
test_many_requests_stay_consistent (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_placed_t placed = { 0 };
    char id [16];
    for (int worker = 0; worker < 100; worker++) {
        snprintf (id, sizeof id, "m%03d", worker);
        drover_schedq_add_worker (sched, id, 1 + worker % 8, 0, NULL);
    }
    const uint64_t total = 20000;
    for (uint64_t task = 1; task <= total; task++)
        assert_int_equal (drover_schedq_push (sched, task, (int32_t) (task % 7), 1 + task % 5, 0, NULL), 0);
    uint64_t done = 0;
    while (drover_schedq_size (sched) > 0) {
        placed.count = 0;
        int count = s_run (sched, &placed);
        assert_true (count > 0);
        for (size_t index = 0; index < placed.count; index++) {
            assert_false (drover_schedq_queued (sched, placed.tasks [index]));
            assert_string_equal (drover_schedq_free (sched, placed.tasks [index]),
                                 placed.workers [index]);
        }
        done += count;
    }
    assert_int_equal (done, total);
    for (const char *worker = drover_schedq_first (sched); worker; worker = drover_schedq_next (sched)) {
        assert_true (drover_schedq_idle (sched, worker));
        assert_int_equal (s_used (sched, worker), 0);
    }
}

//  Run up to passes empty passes within msec; return how many ran
static int
s_passes_within (drover_schedq_t *sched, s_placed_t *placed, int passes, int msec)
{
    int64_t deadline = zclock_mono () + msec;
    int pass;
    for (pass = 0; pass < passes && zclock_mono () < deadline; pass++)
        assert_int_equal (s_run (sched, placed), 0);
    return pass;
}

//  A pass over a full cluster with a long queue costs nothing per request
static void
test_full_cluster_pass_is_cheap (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_placed_t placed = { 0 };
    drover_schedq_set_max_shelve (sched, UINT32_MAX);
    drover_schedq_add_worker (sched, "m", 1, 0, NULL);
    for (uint64_t task = 1; task <= 200000; task++)
        drover_schedq_push (sched, task, 0, 2, 0, NULL);
    //  One free proc and nothing that small queued: a pass stops at once,
    //  where walking the queue would shelve 200000 requests each time
    assert_int_equal (s_passes_within (sched, &placed, 1000, 2000), 1000);
    //  A 1-proc request behind all of them is found and placed
    drover_schedq_push (sched, 999999, 9, 1, 0, NULL);
    assert_int_equal (s_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [0], 999999);
    assert_int_equal (s_passes_within (sched, &placed, 1000, 2000), 1000);   //  full
    assert_int_equal (drover_schedq_size (sched), 200000);
}

//  Requests no worker could ever hold (a label nobody has,
//  more procs than any worker, each alike or each different) at the
//  highest priority, far past max-shelve, cost a pass nothing: a normal
//  request behind them is placed in the same pass, and later passes stay
//  cheap; each waits, parked, until a worker that could hold it comes
static void
test_unplaceable_requests_cost_nothing (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "m", 2, 0, "pool=main");
    uint64_t task = 1;
    for (int index = 0; index < 1500; index++)
        drover_schedq_push (sched, task++, -10, 1, 0, "pool=nowhere");
    for (int index = 0; index < 1500; index++) {
        char labels [32];
        snprintf (labels, sizeof labels, "pool=main\nn=%d", index);
        drover_schedq_push (sched, task++, -10, 1, 0, labels);
    }
    for (int index = 0; index < 1500; index++)
        drover_schedq_push (sched, task++, -10, 64, 0, NULL);
    drover_schedq_push (sched, 9999, 10, 1, 0, NULL);
    assert_int_equal (s_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [0], 9999);
    assert_string_equal (placed.workers [0], "m");
    assert_int_equal (drover_schedq_size (sched), 4500);
    //  Later passes skip them at once, whatever their number
    drover_schedq_push (sched, 10000, 10, 1, 0, NULL);
    assert_int_equal (s_run (sched, &placed), 1);
    assert_int_equal (s_passes_within (sched, &placed, 1000, 2000), 1000);
    //  A worker that could hold some wakes them, and only them
    drover_schedq_add_worker (sched, "nowhere", 1, 0, "pool=nowhere");
    assert_int_equal (s_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [2], 1);
    assert_string_equal (placed.workers [2], "nowhere");
    drover_schedq_add_worker (sched, "n7", 1, 0, "n=7\npool=main");
    assert_int_equal (s_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [3], 1501 + 7);
    drover_schedq_add_worker (sched, "huge", 64, 0, NULL);
    drover_schedq_set_admin (sched, "huge", DROVER_ADMIN_HOLD);
    assert_int_equal (s_run (sched, &placed), 0);
    drover_schedq_set_admin (sched, "huge", DROVER_ADMIN_RUN);   //  resumed: woken
    assert_int_equal (s_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [4], 3001);
    assert_string_equal (placed.workers [4], "huge");
    //  Cancelled while parked: gone for good
    assert_int_equal (drover_schedq_remove (sched, 3002), 0);
    assert_false (drover_schedq_queued (sched, 3002));
    assert_int_equal (drover_schedq_size (sched), 4496);
}

//  Thousands of requests waiting for one busy labelled worker
//  do not keep a request that can run elsewhere waiting: the first
//  reserves the worker, the rest of its kind are passed over in one step;
//  the worker then serves them in order
static void
test_waiting_for_busy_workers_does_not_starve (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "gpu", 1, 1 << 20, "gpu=yes");
    drover_schedq_add_worker (sched, "plain", 1, 0, NULL);
    drover_schedq_push (sched, 1, 0, 1, 0, "gpu=yes");
    assert_int_equal (s_run (sched, &placed), 1);
    for (uint64_t task = 2; task <= 3001; task++)
        drover_schedq_push (sched, task, 0, 1, 0, "gpu=yes");
    drover_schedq_push (sched, 5000, 5, 1, 0, NULL);
    assert_int_equal (s_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [1], 5000);
    assert_string_equal (placed.workers [1], "plain");
    assert_int_equal (s_passes_within (sched, &placed, 1000, 2000), 1000);
    for (uint64_t task = 1; task <= 3; task++) {
        assert_string_equal (drover_schedq_free (sched, task), "gpu");
        assert_int_equal (s_run (sched, &placed), 1);
        assert_int_equal (placed.tasks [placed.count - 1], task + 1);
    }
    //  Each asking a different memory: 1500 groups, none costing a pass
    for (uint64_t task = 6001; task <= 7500; task++)
        drover_schedq_push (sched, task, -1, 1, task, "gpu=yes");
    assert_string_equal (drover_schedq_free (sched, 5000), "plain");
    drover_schedq_push (sched, 8000, 5, 1, 0, NULL);
    assert_int_equal (s_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [placed.count - 1], 8000);
    assert_int_equal (s_passes_within (sched, &placed, 1000, 2000), 1000);
    //  The gpu worker frees: the first of them, ranked first, takes it
    assert_string_equal (drover_schedq_free (sched, 4), "gpu");
    assert_int_equal (s_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [placed.count - 1], 6001);
}

//  A request that arrives ranked before the one a worker is reserved for
//  takes the reservation over, even when the rest of its kind wait set
//  aside for that worker: it runs first when the worker empties
static void
test_new_request_outranks_a_waiting_kind (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "w", 4, 0, NULL);
    drover_schedq_add_worker (sched, "v", 2, 0, NULL);   //  too small for the wide ones
    for (uint64_t task = 1; task <= 10; task++)
        drover_schedq_push (sched, task, 5, 1, 0, NULL);
    assert_int_equal (s_run (sched, &placed), 6);
    uint64_t on_w [4], on_v [2];
    size_t nw = 0, nv = 0;
    for (size_t index = 0; index < placed.count; index++)
        if (streq (placed.workers [index], "w"))
            on_w [nw++] = placed.tasks [index];
        else
            on_v [nv++] = placed.tasks [index];
    assert_int_equal (nw, 4);
    drover_schedq_push (sched, 20, 3, 4, 0, NULL);     //  reserves w
    drover_schedq_push (sched, 21, 4, 4, 0, NULL);     //  then waits for w, set aside
    assert_string_equal (drover_schedq_free (sched, on_v [0]), "v");
    assert_int_equal (s_run (sched, &placed), 1);     //  a small one takes v's room
    assert_string_equal (placed.workers [placed.count - 1], "v");
    assert_int_equal (s_reserved (sched, "w"), 20);
    drover_schedq_push (sched, 22, 0, 4, 0, NULL);     //  ranked first of all
    assert_int_equal (s_run (sched, &placed), 0);
    assert_int_equal (s_reserved (sched, "w"), 22);
    for (size_t index = 0; index < 4; index++)
        assert_string_equal (drover_schedq_free (sched, on_w [index]), "w");
    assert_int_equal (s_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [placed.count - 1], 22);
    assert_string_equal (drover_schedq_free (sched, 22), "w");
    assert_int_equal (s_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [placed.count - 1], 20);
    assert_string_equal (drover_schedq_free (sched, 20), "w");
    assert_int_equal (s_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [placed.count - 1], 21);
}

//  Stats with disk_free bytes free of a 10 GiB disk
static drover_stats_t
s_disk_stats (uint64_t disk_free)
{
    drover_stats_t stats;
    memset (&stats, 0, sizeof stats);
    stats.disk_total = 10ULL << 30;
    stats.disk_used = stats.disk_total - disk_free;
    return stats;
}

//  A worker whose disk is fuller than the floor gets no new work until its
//  stats say it has room again; no floor, or no disk in its stats, never
//  holds it
static void
test_disk_floor_holds_worker (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_placed_t placed = { 0 };
    drover_schedq_set_min_disk_free (sched, 100ULL << 20);
    drover_schedq_add_worker (sched, "full", 8, 1ULL << 30, NULL);
    drover_schedq_add_worker (sched, "roomy", 1, 1ULL << 30, NULL);
    drover_stats_t stats = s_disk_stats (10ULL << 20);
    assert_int_equal (drover_schedq_set_stats (sched, "full", &stats), 0);
    stats = s_disk_stats (5ULL << 30);
    assert_int_equal (drover_schedq_set_stats (sched, "roomy", &stats), 0);
    drover_schedq_view_t view;
    assert_int_equal (drover_schedq_lookup (sched, "full", &view), 0);
    assert_true (view.disk_low);
    assert_int_equal (drover_schedq_lookup (sched, "roomy", &view), 0);
    assert_false (view.disk_low);

    //  "full" has the most free procs, yet only "roomy" takes work
    for (uint64_t task = 1; task <= 3; task++)
        assert_int_equal (drover_schedq_push (sched, task, 0, 1, 0, NULL), 0);
    assert_int_equal (s_run (sched, &placed), 1);
    assert_string_equal (placed.workers [0], "roomy");

    //  Room again: it takes the rest
    stats = s_disk_stats (200ULL << 20);
    drover_schedq_set_stats (sched, "full", &stats);
    assert_int_equal (drover_schedq_lookup (sched, "full", &view), 0);
    assert_false (view.disk_low);
    assert_int_equal (s_run (sched, &placed), 2);
    assert_string_equal (placed.workers [1], "full");
    assert_string_equal (placed.workers [2], "full");

    //  Full again, with work queued: held; lowering the floor frees it
    stats = s_disk_stats (1ULL << 20);
    drover_schedq_set_stats (sched, "full", &stats);
    assert_int_equal (drover_schedq_push (sched, 4, 0, 1, 0, NULL), 0);
    assert_int_equal (s_run (sched, &placed), 0);
    drover_schedq_set_min_disk_free (sched, 0);
    assert_int_equal (s_run (sched, &placed), 1);
    assert_string_equal (placed.workers [3], "full");

    //  Stats without a disk (unreadable) never hold a worker
    drover_schedq_set_min_disk_free (sched, 100ULL << 20);
    memset (&stats, 0, sizeof stats);
    drover_schedq_set_stats (sched, "full", &stats);
    assert_int_equal (drover_schedq_lookup (sched, "full", &view), 0);
    assert_false (view.disk_low);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_priority_order, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_place_adopted_attempt, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_first_fit_decreasing_then_fifo, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_least_loaded_worker, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_shelving, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_max_shelve_bounds_a_pass, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_whole_worker_task_waits_then_runs, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_wide_task_reserves_its_worker, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_reservation_ends, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_requeued_task_keeps_its_place, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_memory_constraint, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_label_constraint, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_label_index, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_probation_until_in_view, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_held_drained_probation_skipped, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_free_gives_capacity_back, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_push_and_remove, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_remove_worker, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_worker_update_keeps_state, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_iteration, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_shared_demands, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_many_requests_stay_consistent, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_full_cluster_pass_is_cheap, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_unplaceable_requests_cost_nothing, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_waiting_for_busy_workers_does_not_starve, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_new_request_outranks_a_waiting_kind, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_disk_floor_holds_worker, s_setup, s_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
