/*  =========================================================================
    test_drover_schedq_ahead - offers held ahead in the scheduling queue,
    without threads: a worker granted ahead gets one-proc requests beyond
    its free procs only when a pass finds none free, never more than
    granted, never a request of more procs, with devices or more memory
    than it has free, and counted as demand for the elastic pool (each in
    its own shape, however many); held
    requests start (and are charged) in order as
    running tasks there free, a given-back one holds the worker from more
    (longer after each in a row), nothing is held while two owners or two
    priorities wait, a reserved worker gets nothing ahead, and preemption
    comes first. Last,
    the actor: UP's trailing ahead and a FREE flagged RETURNED.
    =========================================================================
*/

#include "testutil_placed.h"
#include "testutil_schedq.h"

//  Return how many requests a worker holds ahead
static size_t
s_held (drover_schedq_t *sched, const char *id)
{
    drover_schedq_view_t view;
    assert_int_equal (drover_schedq_lookup (sched, id, &view), 0);
    return view.held;
}

//  Return the memory used on a worker, bytes
static uint64_t
s_mem_used (drover_schedq_t *sched, const char *id)
{
    drover_schedq_view_t view;
    assert_int_equal (drover_schedq_lookup (sched, id, &view), 0);
    return view.mem_used;
}

//  Sum the demand counts each_demand tells, and those of one proc
typedef struct {
    uint32_t total;             //  tasks told
    uint32_t mem_100;           //  of them, asking 100 bytes
    uint64_t mem;               //  the memory they ask, in all
} s_demand_sum_t;

//  Add one demand shape to a sum
static void
s_sum_demand (uint32_t procs, uint64_t mem, const char *labels, const char *devices,
              uint32_t count, void *arg)
{
    s_demand_sum_t *sum = (s_demand_sum_t *) arg;
    assert_int_equal (procs, 1);
    sum->total += count;
    sum->mem += mem * count;
    if (mem == 100)
        sum->mem_100 += count;
}

//  Without ahead (the default, or 0) a full worker gets nothing more, as
//  before; set_ahead knows only known workers and grants at most the
//  protocol's maximum
static void
test_no_ahead_unchanged (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    assert_int_equal (drover_schedq_set_ahead (sched, "nobody", 1), -1);
    drover_schedq_add_worker (sched, "a", 1, 0, NULL);
    drover_schedq_push (sched, 1, 0, 1, 0, NULL);
    drover_schedq_push (sched, 2, 0, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_int_equal (drover_schedq_size (sched), 1);
    assert_int_equal (drover_schedq_set_ahead (sched, "a", 0), 0);
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    assert_int_equal (s_held (sched, "a"), 0);
    assert_int_equal (drover_schedq_set_ahead (sched, "a", 1000), 0);
    drover_schedq_view_t view;
    drover_schedq_lookup (sched, "a", &view);
    assert_int_equal (view.ahead, DROVER_AHEAD_MAX);
}

//  A worker with a free proc gets the request running there, not held;
//  once full, the next goes ahead: assigned, not charged, and no more than
//  granted
static void
test_ahead_only_when_full (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "a", 2, 1000, NULL);
    assert_int_equal (drover_schedq_set_ahead (sched, "a", 2), 0);
    drover_schedq_push (sched, 1, 0, 1, 100, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_false (drover_schedq_held_ahead (sched, 1));
    assert_int_equal (s_held (sched, "a"), 0);
    for (uint64_t task = 2; task <= 6; task++)
        drover_schedq_push (sched, task, 0, 1, 100, NULL);
    //  One runs on the free proc, two are held, two wait
    assert_int_equal (testutil_placed_run (sched, &placed), 3);
    assert_int_equal (placed.tasks [1], 2);
    assert_int_equal (placed.tasks [2], 3);
    assert_int_equal (placed.tasks [3], 4);
    assert_string_equal (placed.workers [3], "a");
    assert_false (drover_schedq_held_ahead (sched, 2));
    assert_true (drover_schedq_held_ahead (sched, 3));
    assert_true (drover_schedq_held_ahead (sched, 4));
    assert_string_equal (drover_schedq_assigned (sched, 4), "a");
    assert_false (drover_schedq_queued (sched, 4));
    assert_int_equal (testutil_placed_used (sched, "a"), 2);
    assert_int_equal (s_mem_used (sched, "a"), 200);
    assert_int_equal (s_held (sched, "a"), 2);
    assert_int_equal (drover_schedq_size (sched), 2);
    assert_false (drover_schedq_idle (sched, "a"));
    //  Never past what was granted
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    assert_int_equal (s_held (sched, "a"), 2);
    //  The elastic pool's demand counts the held with the queued: all wait
    s_demand_sum_t sum = { 0 };
    drover_schedq_each_demand (sched, s_sum_demand, &sum);
    assert_int_equal (sum.total, 4);
    assert_int_equal (sum.mem_100, 4);
    //  One starts: three wait
    drover_schedq_free (sched, 1);
    sum = (s_demand_sum_t) { 0 };
    drover_schedq_each_demand (sched, s_sum_demand, &sum);
    assert_int_equal (sum.total, 3);
}

//  Requests held ahead in more distinct shapes than each_demand counts at
//  once are each told with their own memory (before, those past the 64th
//  shape were told as the first's)
static void
test_held_demand_many_shapes (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    enum { S_WORKERS = 70 };
    for (int index = 0; index < S_WORKERS; index++) {
        char id [16];
        snprintf (id, sizeof id, "w%d", index);
        drover_schedq_add_worker (sched, id, 1, 10000, NULL);
        assert_int_equal (drover_schedq_set_ahead (sched, id, 1), 0);
        drover_schedq_push (sched, (uint64_t) index + 1, 0, 1, 1, NULL);
    }
    assert_int_equal (testutil_placed_run (sched, &placed), S_WORKERS);
    //  Each worker full: one request of its own memory held on each
    uint64_t asked = 0;
    for (int index = 0; index < S_WORKERS; index++) {
        drover_schedq_push (sched, (uint64_t) (S_WORKERS + index + 1), 0, 1,
                            (uint64_t) (101 + index), NULL);
        asked += (uint64_t) (101 + index);
    }
    placed = (testutil_placed_t) { 0 };
    assert_int_equal (testutil_placed_run (sched, &placed), S_WORKERS);
    assert_int_equal (drover_schedq_size (sched), 0);
    s_demand_sum_t sum = { 0 };
    drover_schedq_each_demand (sched, s_sum_demand, &sum);
    assert_int_equal (sum.total, S_WORKERS);
    assert_int_equal (sum.mem, asked);
}

//  Only a request of one proc, no devices, memory the worker has free and
//  labels it has goes ahead; the first that cannot stops the step, and
//  those ranked after it wait too
static void
test_ahead_only_small (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "a", 2, 1000, "zone=x");
    drover_schedq_set_devices (sched, "a", "gpu=1");
    drover_schedq_set_ahead (sched, "a", 4);
    drover_schedq_push (sched, 1, 0, 2, 400, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    //  Two procs, first in line: nothing goes ahead, not even what follows
    drover_schedq_push (sched, 10, 0, 2, 0, NULL);
    drover_schedq_push (sched, 11, 5, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    assert_int_equal (drover_schedq_remove (sched, 10), 0);
    assert_int_equal (drover_schedq_remove (sched, 11), 0);
    //  A device
    drover_schedq_tenant_t gpu = { NULL, "gpu=1", 0 };
    drover_schedq_push_as (sched, 12, 0, 1, 0, NULL, &gpu);
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    assert_int_equal (drover_schedq_remove (sched, 12), 0);
    //  More memory than it has free (600)
    drover_schedq_push (sched, 13, 0, 1, 700, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    assert_int_equal (drover_schedq_remove (sched, 13), 0);
    //  A label it lacks
    drover_schedq_push (sched, 14, 0, 1, 0, "zone=y");
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    assert_int_equal (drover_schedq_remove (sched, 14), 0);
    assert_int_equal (s_held (sched, "a"), 0);
    //  All its free memory, and its label: held
    drover_schedq_push (sched, 15, 0, 1, 600, "zone=x");
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_true (drover_schedq_held_ahead (sched, 15));
    assert_int_equal (s_mem_used (sched, "a"), 400);
}

//  The FREE of a running task starts the held ones in the order they were
//  placed, one per freed proc, charged then; freeing a held one or a
//  started one gives back only what was charged, once
static void
test_free_starts_held_in_order (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "a", 2, 1000, NULL);
    drover_schedq_set_ahead (sched, "a", 3);
    drover_schedq_push (sched, 1, 0, 2, 500, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    for (uint64_t task = 2; task <= 4; task++)
        drover_schedq_push (sched, task, 0, 1, 100, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 3);
    assert_int_equal (s_held (sched, "a"), 3);
    //  Two procs free: the two oldest start
    assert_string_equal (drover_schedq_free (sched, 1), "a");
    assert_false (drover_schedq_held_ahead (sched, 2));
    assert_false (drover_schedq_held_ahead (sched, 3));
    assert_true (drover_schedq_held_ahead (sched, 4));
    assert_int_equal (testutil_placed_used (sched, "a"), 2);
    assert_int_equal (s_mem_used (sched, "a"), 200);
    assert_int_equal (s_held (sched, "a"), 1);
    //  A held one freed (cancelled): nothing was charged, nothing given back
    assert_string_equal (drover_schedq_free (sched, 4), "a");
    assert_int_equal (testutil_placed_used (sched, "a"), 2);
    assert_int_equal (s_mem_used (sched, "a"), 200);
    assert_int_equal (s_held (sched, "a"), 0);
    assert_null (drover_schedq_assigned (sched, 4));
    //  The started ones give back what they were charged, once
    assert_string_equal (drover_schedq_free (sched, 2), "a");
    assert_string_equal (drover_schedq_free (sched, 3), "a");
    assert_null (drover_schedq_free (sched, 3));
    assert_int_equal (testutil_placed_used (sched, "a"), 0);
    assert_int_equal (s_mem_used (sched, "a"), 0);
    assert_true (drover_schedq_idle (sched, "a"));
    //  Held again, then the running one ends: the held one takes its proc
    //  before any pass, and nothing is queued on top of it
    drover_schedq_push (sched, 5, 0, 2, 0, NULL);
    drover_schedq_push (sched, 6, 0, 1, 0, NULL);
    drover_schedq_push (sched, 7, 0, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 3);
    assert_int_equal (s_held (sched, "a"), 2);
    drover_schedq_push (sched, 8, 0, 2, 0, NULL);
    assert_string_equal (drover_schedq_free (sched, 5), "a");
    assert_int_equal (testutil_placed_used (sched, "a"), 2);
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    assert_true (drover_schedq_queued (sched, 8));
}

//  A held request given back unstarted frees nothing charged and keeps its
//  worker from holding more, while another worker may, until a running
//  task there frees
static void
test_give_back_blocks (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "a", 1, 0, NULL);
    drover_schedq_set_ahead (sched, "a", 1);
    drover_schedq_push (sched, 1, 0, 1, 0, NULL);
    drover_schedq_push (sched, 2, 0, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 2);
    assert_true (drover_schedq_held_ahead (sched, 2));
    assert_string_equal (drover_schedq_give_back (sched, 2), "a");
    assert_null (drover_schedq_give_back (sched, 2));
    assert_int_equal (testutil_placed_used (sched, "a"), 1);
    assert_int_equal (s_held (sched, "a"), 0);
    //  Requeued (a new attempt): not held there again
    drover_schedq_push (sched, 2, 0, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    //  Another full worker takes it ahead
    drover_schedq_add_worker (sched, "b", 1, 0, NULL);
    drover_schedq_set_ahead (sched, "b", 1);
    drover_schedq_push (sched, 3, 0, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 2);    //  2 runs on b, 3 ahead
    assert_string_equal (drover_schedq_assigned (sched, 3), "b");
    assert_true (drover_schedq_held_ahead (sched, 3));
    //  a's running task ends: it may hold again
    drover_schedq_push (sched, 4, 0, 1, 0, NULL);
    drover_schedq_push (sched, 5, 0, 1, 0, NULL);
    assert_string_equal (drover_schedq_free (sched, 1), "a");
    assert_int_equal (testutil_placed_run (sched, &placed), 2);    //  4 runs on a, 5 ahead
    assert_string_equal (drover_schedq_assigned (sched, 4), "a");
    assert_false (drover_schedq_held_ahead (sched, 4));
    assert_string_equal (drover_schedq_assigned (sched, 5), "a");
    assert_true (drover_schedq_held_ahead (sched, 5));
}

//  Give-backs in a row block a worker from holding ahead for one, then
//  two running tasks freed; a held request that starts ends the backoff
static void
test_give_back_backs_off (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "a", 1, 0, NULL);
    drover_schedq_set_ahead (sched, "a", 1);
    for (uint64_t task = 1; task <= 2; task++)
        drover_schedq_push (sched, task, 0, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 2);    //  1 runs, 2 held
    assert_string_equal (drover_schedq_give_back (sched, 2), "a");
    drover_schedq_push (sched, 2, 0, 1, 0, NULL);
    drover_schedq_push (sched, 3, 0, 1, 0, NULL);
    //  One free ends the first block: 2 runs, 3 held
    drover_schedq_free (sched, 1);
    assert_int_equal (testutil_placed_run (sched, &placed), 2);
    assert_true (drover_schedq_held_ahead (sched, 3));
    //  The second give-back in a row blocks it for two frees
    assert_string_equal (drover_schedq_give_back (sched, 3), "a");
    drover_schedq_push (sched, 3, 0, 1, 0, NULL);
    drover_schedq_push (sched, 4, 0, 1, 0, NULL);
    drover_schedq_free (sched, 2);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);    //  3 runs, 4 waits
    assert_int_equal (s_held (sched, "a"), 0);
    assert_true (drover_schedq_queued (sched, 4));
    drover_schedq_free (sched, 3);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);    //  4 runs
    drover_schedq_push (sched, 5, 0, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);    //  5 held
    assert_true (drover_schedq_held_ahead (sched, 5));
    //  5 starts when 4 frees: the next give-back blocks for one free again
    drover_schedq_free (sched, 4);
    assert_false (drover_schedq_held_ahead (sched, 5));
    drover_schedq_push (sched, 6, 0, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);    //  6 held
    assert_string_equal (drover_schedq_give_back (sched, 6), "a");
    drover_schedq_push (sched, 6, 0, 1, 0, NULL);
    drover_schedq_push (sched, 7, 0, 1, 0, NULL);
    drover_schedq_free (sched, 5);
    assert_int_equal (testutil_placed_run (sched, &placed), 2);    //  6 runs, 7 held
    assert_true (drover_schedq_held_ahead (sched, 7));
}

//  Offers are held only while the work waiting is one owner's at one
//  priority: with a second owner, or a second priority, each waits for a
//  free proc and the fair share or the order picks it then
static void
test_ahead_one_owner_one_priority (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "a", 1, 1000, NULL);
    drover_schedq_set_ahead (sched, "a", 1);
    drover_schedq_tenant_t alice = { "alice", NULL, 0 };
    drover_schedq_tenant_t bob = { "bob", NULL, 0 };
    drover_schedq_push_as (sched, 1, 0, 1, 0, NULL, &alice);
    drover_schedq_push_as (sched, 2, 0, 1, 0, NULL, &alice);
    drover_schedq_push_as (sched, 3, 0, 1, 0, NULL, &bob);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);    //  alice's 1 runs
    assert_int_equal (s_held (sched, "a"), 0);
    //  Bob's gone: alice's 2 is held
    assert_int_equal (drover_schedq_remove (sched, 3), 0);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_true (drover_schedq_held_ahead (sched, 2));
    //  Alice alone at two priorities, in two groups (one group orders its
    //  own by priority): nothing more held (a worker granted two)
    drover_schedq_set_ahead (sched, "a", 2);
    drover_schedq_push_as (sched, 4, 0, 1, 0, NULL, &alice);
    drover_schedq_push_as (sched, 5, -5, 1, 10, NULL, &alice);     //  a group of its own
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    assert_int_equal (s_held (sched, "a"), 1);
    //  The urgent one gone, the other goes ahead
    assert_int_equal (drover_schedq_remove (sched, 5), 0);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_true (drover_schedq_held_ahead (sched, 4));
}

//  A given-back task the queue had started already (its worker had not)
//  gives back its procs, which go to the next held one, as the worker
//  would start it
static void
test_give_back_of_started (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "a", 1, 0, NULL);
    drover_schedq_set_ahead (sched, "a", 2);
    for (uint64_t task = 1; task <= 3; task++)
        drover_schedq_push (sched, task, 0, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 3);
    drover_schedq_free (sched, 1);
    assert_false (drover_schedq_held_ahead (sched, 2));
    assert_string_equal (drover_schedq_give_back (sched, 2), "a");
    assert_false (drover_schedq_held_ahead (sched, 3));
    assert_int_equal (testutil_placed_used (sched, "a"), 1);
    drover_schedq_push (sched, 4, 0, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 0);    //  blocked
}

//  With several workers granted ahead, the one holding the fewest gets the
//  next; a worker reserved for a bigger request gets nothing ahead, and a
//  request holding a reservation at the head keeps the rest from going
static void
test_fewest_held_and_reserved (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "a", 4, 0, NULL);
    drover_schedq_add_worker (sched, "b", 4, 0, NULL);
    drover_schedq_set_ahead (sched, "a", 2);
    drover_schedq_set_ahead (sched, "b", 2);
    for (uint64_t task = 1; task <= 8; task++)
        drover_schedq_push (sched, task, 0, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 8);
    for (uint64_t task = 9; task <= 11; task++)
        drover_schedq_push (sched, task, 0, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 3);
    assert_int_equal (s_held (sched, "a") + s_held (sched, "b"), 3);
    assert_true (s_held (sched, "a") >= 1 && s_held (sched, "b") >= 1);
    drover_schedq_remove_worker (sched, "b", NULL, NULL);
    //  a: four running, some held. c: one running. A request of four
    //  procs reserves the least loaded that could hold it (c); the one-proc
    //  request after it goes ahead to a, not to c, whose procs are free
    for (uint64_t task = 9; task <= 11; task++)
        if (drover_schedq_assigned (sched, task))
            drover_schedq_free (sched, task);
    assert_int_equal (s_held (sched, "a"), 0);
    drover_schedq_add_worker (sched, "c", 4, 0, NULL);
    drover_schedq_set_ahead (sched, "c", 2);
    drover_schedq_place (sched, "c", 20, 1, 0, NULL);
    drover_schedq_push (sched, 21, 0, 4, 0, NULL);
    drover_schedq_push (sched, 22, 1, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_int_equal (testutil_placed_reserved (sched, "c"), 21);
    assert_string_equal (drover_schedq_assigned (sched, 22), "a");
    assert_true (drover_schedq_held_ahead (sched, 22));
    assert_int_equal (s_held (sched, "c"), 0);
    //  The reserving request is now the head when the pass stops: what
    //  follows waits, on neither worker
    drover_schedq_push (sched, 23, 1, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    assert_true (drover_schedq_queued (sched, 23));
    assert_int_equal (s_held (sched, "c"), 0);
    assert_int_equal (s_held (sched, "a"), 1);
}

//  What preemption told: how many tasks to stop
static void
s_on_preempt (uint64_t task, const char *worker, uint64_t for_task, void *arg)
{
    (void) task;
    (void) worker;
    (void) for_task;
    (*(size_t *) arg)++;
}

//  A higher-priority request stops a preemptible task rather than going
//  ahead, and a held request is never chosen to stop (it runs nothing)
static void
test_preemption_before_ahead (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    size_t stopped = 0;
    drover_schedq_set_preemption (sched, 4, s_on_preempt, &stopped);
    drover_schedq_add_worker (sched, "m1", 1, 0, NULL);
    drover_schedq_set_ahead (sched, "m1", 1);
    drover_schedq_tenant_t bob = { "bob", NULL, DROVER_SUBMIT_PREEMPTIBLE };
    drover_schedq_tenant_t alice = { "alice", NULL, 0 };
    drover_schedq_push_as (sched, 1, 5, 1, 0, NULL, &bob);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    drover_schedq_push_as (sched, 2, 0, 1, 0, NULL, &alice);
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    assert_int_equal (stopped, 1);
    assert_int_equal (s_held (sched, "m1"), 0);
    assert_int_equal (testutil_placed_reserved (sched, "m1"), 2);
    drover_schedq_free (sched, 1);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [1], 2);
    //  bob's preemptible task held ahead behind alice's: a request of
    //  higher priority finds nothing to stop, and nothing more goes ahead
    drover_schedq_push_as (sched, 3, 5, 1, 0, NULL, &bob);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_true (drover_schedq_held_ahead (sched, 3));
    drover_schedq_tenant_t carol = { "carol", NULL, 0 };
    drover_schedq_push_as (sched, 4, -1, 1, 0, NULL, &carol);
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    assert_int_equal (stopped, 1);
}

//  Count a task a removed worker had
static void
s_on_removed (uint64_t task, void *arg)
{
    (void) task;
    (*(size_t *) arg)++;
}

//  A worker that goes takes its held requests with the rest: each told,
//  its owner's use given back
static void
test_remove_worker_with_held (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "a", 1, 1000, NULL);
    drover_schedq_set_ahead (sched, "a", 1);
    drover_schedq_tenant_t alice = { "alice", NULL, 0 };
    drover_schedq_push_as (sched, 1, 0, 1, 0, NULL, &alice);
    drover_schedq_push_as (sched, 2, 0, 1, 0, NULL, &alice);
    assert_int_equal (testutil_placed_run (sched, &placed), 2);
    drover_fairshare_t *fairshare = drover_schedq_fairshare (sched);
    uint32_t owner = drover_fairshare_owner (fairshare, "alice");
    drover_fairshare_standing_t standing;
    drover_fairshare_standing (fairshare, owner, &standing);
    assert_int_equal (standing.procs, 2);          //  the held one counts as placed
    size_t told = 0;
    assert_int_equal (drover_schedq_remove_worker (sched, "a", s_on_removed, &told), 2);
    assert_int_equal (told, 2);
    drover_fairshare_standing (fairshare, owner, &standing);
    assert_int_equal (standing.procs, 0);
    assert_null (drover_schedq_assigned (sched, 2));
    assert_false (drover_schedq_held_ahead (sched, 2));
    //  Back with ahead again: held anew
    drover_schedq_add_worker (sched, "a", 1, 0, NULL);
    drover_schedq_set_ahead (sched, "a", 1);
    drover_schedq_push (sched, 3, 0, 1, 0, NULL);
    drover_schedq_push (sched, 4, 0, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 2);
    assert_true (drover_schedq_held_ahead (sched, 4));
}

//  Flag a FREE record as assign does for an offer given back unstarted
static void
s_flag_returned (void *arg, drover_record_t *record)
{
    (void) arg;
    if (record->kind == DROVER_RECORD_FREE)
        record->flags |= DROVER_RECORD_FREE_RETURNED;
}

//  The actor: UP's trailing ahead grants it; a FREE flagged RETURNED
//  holds the worker from more until a running task there frees
static void
test_actor_up_ahead_and_returned (void **state)
{
    zactor_t *actor = (zactor_t *) *state;
    zframe_t *route = zframe_new ("r-alpha", 7);
    zframe_t *running = zframe_new_empty ();
    zsock_send (actor, "ssf848sf4ss484", "UP", "alpha", route, (uint64_t) 1, 1, (uint64_t) 0, "",
                running, (uint32_t) DROVER_MSG_LEVEL, DROVER_RELEASE, "", 1000, (uint64_t) 5000,
                1);
    zframe_destroy (&running);
    zframe_destroy (&route);
    testutil_schedq_queue (actor, 1, 0, 1, 0, "");
    testutil_schedq_expect_one (actor, 1, "alpha");
    testutil_schedq_queue (actor, 2, 0, 1, 0, "");
    testutil_schedq_expect_one (actor, 2, "alpha");         //  held ahead
    //  Given back: a new attempt is not offered there again yet
    drover_outbox_t *outbox = drover_outbox_new ();
    drover_outbox_say_free (outbox, 2);
    drover_outbox_each (outbox, s_flag_returned, NULL);
    testutil_say_batch (testutil_schedq_link, &outbox);
    testutil_schedq_queue (actor, 3, 0, 1, 0, "");
    testutil_schedq_quiet (actor);
    assert_int_equal (testutil_schedq_procs_used (actor, "alpha"), 1);
    //  The running one ends: 3 runs there, 4 is held
    testutil_say_free (testutil_schedq_link, 1);
    testutil_schedq_expect_one (actor, 3, "alpha");
    testutil_schedq_queue (actor, 4, 0, 1, 0, "");
    testutil_schedq_expect_one (actor, 4, "alpha");
    assert_int_equal (testutil_schedq_procs_used (actor, "alpha"), 1);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_no_ahead_unchanged, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_ahead_only_when_full, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_held_demand_many_shapes, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_ahead_only_small, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_free_starts_held_in_order, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_give_back_blocks, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_give_back_backs_off, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_ahead_one_owner_one_priority, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_give_back_of_started, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_fewest_held_and_reserved, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_preemption_before_ahead, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_remove_worker_with_held, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_actor_up_ahead_and_returned, testutil_schedq_setup, testutil_schedq_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
