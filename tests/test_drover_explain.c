/*  =========================================================================
    test_drover_explain - why a queued task waits: each worker's first
    reason, grouped, the verdict, the place in the queue and the short
    form, on hand-built workers and requests, without threads
    =========================================================================
*/

#include "testutil.h"
#include "drover_explain.h"
#include "drover_why.h"

#define S_GIB   (1ULL << 30)

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
    return 0;
}

//  An explanation and its items
typedef struct {
    drover_why_t whys [DROVER_WHYS_MAX];    //  the items
    int count;                  //  how many
} s_told_t;

//  Explain a task, which must be queued
static void
s_explain (drover_schedq_t *sched, uint64_t task, s_told_t *told)
{
    told->count = drover_explain_task (sched, task, told->whys);
    assert_true (told->count >= 2);
    assert_int_equal (told->whys [0].code, DROVER_WHY_AHEAD);
}

//  Find the item of a code, failing if there is none
static const drover_why_t *
s_item (const s_told_t *told, int code)
{
    for (int index = 0; index < told->count; index++)
        if (told->whys [index].code == code)
            return &told->whys [index];
    fail_msg ("no item with code %d", code);
    return NULL;
}

//  Return the verdict, the last item
static const drover_why_t *
s_verdict (const s_told_t *told)
{
    const drover_why_t *verdict = drover_why_verdict (told->whys, (size_t) told->count);
    assert_non_null (verdict);
    assert_ptr_equal (verdict, &told->whys [told->count - 1]);
    return verdict;
}

//  Assert the words of an item
static void
s_says (const drover_why_t *why, const char *expected)
{
    char text [256];
    drover_why_sentence (why, text, sizeof text);
    assert_string_equal (text, expected);
}

//  Assert the short form of an explanation
static void
s_short (const s_told_t *told, const char *expected)
{
    char text [DROVER_ROW_REASON_MAX + 1];
    drover_why_short (told->whys, (size_t) told->count, text, sizeof text);
    assert_string_equal (text, expected);
}

//  A task nobody can run: no worker at all, then only workers without its label
static void
test_label_no_worker_has (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_told_t told;
    assert_int_equal (drover_schedq_push (sched, 1, 0, 1, 0, "zone=c"), 0);
    s_explain (sched, 1, &told);
    assert_int_equal (told.count, 2);
    assert_int_equal (s_verdict (&told)->code, DROVER_WHY_NEVER_NONE);
    s_short (&told, "no workers");

    drover_schedq_add_worker (sched, "a", 4, S_GIB, "zone=a");
    drover_schedq_add_worker (sched, "b", 4, S_GIB, "zone=b\ngpu=1");
    s_explain (sched, 1, &told);
    assert_int_equal (told.count, 3);
    const drover_why_t *label = s_item (&told, DROVER_WHY_LABEL);
    assert_int_equal (label->count, 2);
    assert_string_equal (label->text, "zone=c");
    assert_int_equal (label->nnames, 2);
    s_says (label, "lacks label zone=c");
    const drover_why_t *verdict = s_verdict (&told);
    assert_int_equal (verdict->code, DROVER_WHY_NEVER_LABEL);
    assert_true (drover_why_never (verdict));
    s_says (verdict, "no worker could ever run it: no worker has label zone=c");
    s_short (&told, "no label zone=c");
    s_says (&told.whys [0], "first in the queue");
}

//  Too many procs, too much memory: the closest worker's numbers lead
static void
test_procs_and_memory_no_worker_has (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_told_t told;
    drover_schedq_add_worker (sched, "small", 4, 24 * S_GIB, NULL);
    drover_schedq_add_worker (sched, "big", 16, 24 * S_GIB, NULL);
    assert_int_equal (drover_schedq_push (sched, 1, 0, 64, 0, NULL), 0);
    assert_int_equal (drover_schedq_push (sched, 2, 0, 2, 30 * S_GIB, NULL), 0);

    s_explain (sched, 1, &told);
    const drover_why_t *procs = s_item (&told, DROVER_WHY_PROCS);
    assert_int_equal (procs->count, 2);
    assert_string_equal (procs->names [0], "big");
    assert_int_equal (procs->a, 16);
    s_says (procs, "has 16 procs of 64 asked");
    assert_int_equal (s_verdict (&told)->code, DROVER_WHY_NEVER_PROCS);
    s_says (s_verdict (&told),
            "no worker could ever run it: the most procs a worker has is 16, of 64 asked");
    s_short (&told, "procs 64>16");

    s_explain (sched, 2, &told);
    //  Task 1 asks more procs, but no worker could ever hold it: it waits
    //  aside, not ahead
    assert_int_equal (told.whys [0].count, 0);
    const drover_why_t *mem = s_item (&told, DROVER_WHY_MEM);
    assert_int_equal (mem->count, 2);
    s_says (mem, "has 24G memory of 30G asked");
    assert_int_equal (s_verdict (&told)->code, DROVER_WHY_NEVER_MEM);
    s_short (&told, "mem 30G>24G");
}

//  Every worker lacks something else: none has all
static void
test_no_one_worker_has_all (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_told_t told;
    drover_schedq_add_worker (sched, "labelled", 2, S_GIB, "zone=c");
    drover_schedq_add_worker (sched, "big", 32, S_GIB, NULL);
    assert_int_equal (drover_schedq_push (sched, 1, 0, 8, 0, "zone=c"), 0);
    s_explain (sched, 1, &told);
    assert_int_equal (s_item (&told, DROVER_WHY_LABEL)->count, 1);
    assert_int_equal (s_item (&told, DROVER_WHY_PROCS)->count, 1);
    assert_int_equal (s_verdict (&told)->code, DROVER_WHY_NEVER_ALL);
}

//  Held, draining, on probation, low on disk: each said, the verdict waits
//  for the first that could come back
static void
test_admin_states_and_health (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_told_t told;
    drover_schedq_set_min_disk_free (sched, 100ULL << 20);
    drover_schedq_add_worker (sched, "held", 4, S_GIB, NULL);
    drover_schedq_add_worker (sched, "drained", 4, S_GIB, NULL);
    drover_schedq_add_worker (sched, "sick", 4, S_GIB, NULL);
    drover_schedq_add_worker (sched, "full", 4, S_GIB, NULL);
    drover_schedq_set_admin (sched, "held", DROVER_ADMIN_HOLD);
    drover_schedq_set_admin (sched, "drained", DROVER_ADMIN_DRAIN);
    drover_schedq_set_probation (sched, "sick", true);
    drover_stats_t stats = { .disk_total = 1ULL << 40, .disk_used = (1ULL << 40) - (1ULL << 20) };
    drover_schedq_set_stats (sched, "full", &stats);
    assert_int_equal (drover_schedq_push (sched, 7, 0, 2, 0, NULL), 0);
    s_explain (sched, 7, &told);
    assert_int_equal (told.count, 6);
    assert_string_equal (s_item (&told, DROVER_WHY_HELD)->names [0], "held");
    assert_string_equal (s_item (&told, DROVER_WHY_DRAINING)->names [0], "drained");
    assert_string_equal (s_item (&told, DROVER_WHY_PROBATION)->names [0], "sick");
    assert_string_equal (s_item (&told, DROVER_WHY_LOW_DISK)->names [0], "full");
    s_says (s_item (&told, DROVER_WHY_PROBATION), "on probation");
    s_says (s_item (&told, DROVER_WHY_LOW_DISK), "low disk");
    const drover_why_t *verdict = s_verdict (&told);
    assert_int_equal (verdict->code, DROVER_WHY_WHEN_USABLE);
    assert_int_equal (verdict->a, DROVER_WHY_PROBATION);
    assert_false (drover_why_never (verdict));
    s_says (verdict, "runs when sick leaves probation");
    s_short (&told, "probation");

    //  Once probation says when it ends, the worker's line and the verdict
    //  say the time
    uint64_t until = 1795496905123ULL;
    time_t until_seconds = (time_t) (until / 1000);
    struct tm until_tm;
    char clock [16], expected [64];
    assert_non_null (localtime_r (&until_seconds, &until_tm));
    strftime (clock, sizeof clock, "%H:%M:%S", &until_tm);
    drover_schedq_set_probation_until (sched, "sick", until);
    s_explain (sched, 7, &told);
    snprintf (expected, sizeof expected, "on probation until %s", clock);
    s_says (s_item (&told, DROVER_WHY_PROBATION), expected);
    snprintf (expected, sizeof expected, "runs when sick leaves probation at %s", clock);
    s_says (s_verdict (&told), expected);

    drover_schedq_remove_worker (sched, "sick", NULL, NULL);
    drover_schedq_remove_worker (sched, "full", NULL, NULL);
    s_explain (sched, 7, &told);
    s_says (s_verdict (&told), "runs when held is resumed");
    s_short (&told, "held");
}

//  Busy workers: the one kept for the task, one too full now, one kept
//  for a task ranked before
static void
test_busy_kept_and_reserved (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_told_t told;
    drover_schedq_add_worker (sched, "big", 8, S_GIB, NULL);
    drover_schedq_add_worker (sched, "small", 4, S_GIB, NULL);
    assert_int_equal (drover_schedq_push (sched, 1, 0, 6, 0, NULL), 0);
    assert_int_equal (drover_schedq_push (sched, 2, 0, 3, 0, NULL), 0);
    assert_int_equal (drover_schedq_run (sched, NULL, NULL), 2);
    assert_string_equal (drover_schedq_assigned (sched, 1), "big");
    assert_string_equal (drover_schedq_assigned (sched, 2), "small");
    assert_int_equal (drover_explain_task (sched, 1, told.whys), -1);     //  not queued

    //  Task 3 fits nowhere now: big is kept for it, and small takes task 6
    assert_int_equal (drover_schedq_push (sched, 3, 0, 4, 0, NULL), 0);
    assert_int_equal (drover_schedq_push (sched, 6, 0, 1, 0, NULL), 0);
    assert_int_equal (drover_schedq_run (sched, NULL, NULL), 1);
    assert_string_equal (drover_schedq_assigned (sched, 6), "small");
    s_explain (sched, 3, &told);
    const drover_why_t *kept = s_item (&told, DROVER_WHY_KEPT);
    assert_string_equal (kept->names [0], "big");
    s_says (kept, "kept for this task (fits when 2 more procs free)");
    const drover_why_t *busy = s_item (&told, DROVER_WHY_BUSY);
    assert_string_equal (busy->names [0], "small");
    s_says (busy, "busy (would fit when 4 more procs free)");
    const drover_why_t *verdict = s_verdict (&told);
    assert_int_equal (verdict->code, DROVER_WHY_FITS_WHEN);
    s_says (verdict, "fits on big when 2 more procs free");
    s_short (&told, "busy");

    //  Task 4: big is reserved for task 3, ranked before; small is closest
    assert_int_equal (drover_schedq_push (sched, 4, 0, 4, 0, NULL), 0);
    s_explain (sched, 4, &told);
    const drover_why_t *reserved = s_item (&told, DROVER_WHY_RESERVED);
    assert_int_equal (reserved->a, 3);
    s_says (reserved, "reserved for task 3");
    s_says (s_verdict (&told), "fits on small when 4 more procs free");
    s_says (&told.whys [0], "1 ahead: 1 earlier of the same");
    s_short (&told, "behind 1");

    //  Only the reserved worker could hold task 5: it waits for task 3
    drover_schedq_remove_worker (sched, "small", NULL, NULL);
    assert_int_equal (drover_schedq_remove (sched, 4), 0);
    assert_int_equal (drover_schedq_push (sched, 5, 0, 4, 0, NULL), 0);
    s_explain (sched, 5, &told);
    assert_int_equal (s_verdict (&told)->code, DROVER_WHY_AFTER);
    s_says (s_verdict (&told), "runs on big once task 3, kept for it, is placed");
}

//  A worker with room: the next pass places it
static void
test_fits_now_runs_next (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_told_t told;
    drover_schedq_add_worker (sched, "roomy", 8, S_GIB, NULL);
    drover_schedq_add_worker (sched, "tiny", 1, S_GIB, NULL);
    assert_int_equal (drover_schedq_push (sched, 1, 0, 2, 0, NULL), 0);
    s_explain (sched, 1, &told);
    assert_int_equal (s_item (&told, DROVER_WHY_FITS)->a, 8);
    s_says (s_verdict (&told), "runs next: fits on roomy now");
    s_short (&told, "next");
}

//  Place in the queue: higher priority, more procs, earlier
static void
test_queue_position (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_told_t told;
    assert_int_equal (drover_schedq_push (sched, 1, 0, 1, 0, NULL), 0);
    assert_int_equal (drover_schedq_push (sched, 2, -1, 1, 0, NULL), 0);
    assert_int_equal (drover_schedq_push (sched, 3, 0, 2, 0, NULL), 0);
    assert_int_equal (drover_schedq_push (sched, 4, 0, 1, 0, NULL), 0);
    assert_int_equal (drover_schedq_push (sched, 5, 5, 1, 0, NULL), 0);
    assert_int_equal (drover_schedq_push (sched, 6, 0, 1, 0, "zone=c"), 0);
    s_explain (sched, 4, &told);
    assert_int_equal (told.whys [0].count, 3);
    s_says (&told.whys [0], "3 ahead: 1 of higher priority, 1 asking more procs, 1 earlier of "
            "the same");
    s_explain (sched, 2, &told);
    assert_int_equal (told.whys [0].count, 0);
    s_explain (sched, 5, &told);
    assert_int_equal (told.whys [0].count, 5);
    assert_int_equal (told.whys [0].a, 5);
}

//  Many workers saying the same are one item: a count and a few names
static void
test_many_workers_grouped (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_told_t told;
    for (int index = 0; index < 20; index++) {
        char id [16];
        snprintf (id, sizeof id, "w%02d", index);
        drover_schedq_add_worker (sched, id, (uint32_t) (index % 4 + 1), S_GIB, NULL);
    }
    assert_int_equal (drover_schedq_push (sched, 1, 0, 64, 0, NULL), 0);
    s_explain (sched, 1, &told);
    assert_int_equal (told.count, 3);
    const drover_why_t *procs = s_item (&told, DROVER_WHY_PROCS);
    assert_int_equal (procs->count, 20);
    assert_int_equal (procs->nnames, DROVER_WHY_NAMES_MAX);
    assert_int_equal (procs->a, 4);
    assert_string_equal (procs->names [0], "w03");

    //  And it goes on the wire as it is
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_TASK_EXPLANATION);
    msg->task = 1;
    msg->whys = (drover_why_t *) malloc ((size_t) told.count * sizeof (drover_why_t));
    memcpy (msg->whys, told.whys, (size_t) told.count * sizeof (drover_why_t));
    msg->nwhys = (uint32_t) told.count;
    zframe_t *frame = drover_msg_encode (msg);
    assert_non_null (frame);
    drover_msg_t *back = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (back, zframe_data (frame), zframe_size (frame)), 0);
    assert_int_equal (back->id, DROVER_MSG_TASK_EXPLANATION);
    assert_int_equal (back->nwhys, (uint32_t) told.count);
    assert_memory_equal (back->whys, told.whys, (size_t) told.count * sizeof (drover_why_t));
    zframe_destroy (&frame);
    drover_msg_destroy (&back);
    drover_msg_destroy (&msg);
}

//  Take a lease made
static void
s_lent (const drover_schedq_lease_t *lease, void *arg)
{
    (*(int *) arg)++;
}

//  A worker lent to the fast path: it comes back once the request waits
static void
test_lent_worker (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_told_t told;
    drover_schedq_set_max_leases (sched, 1);
    drover_schedq_add_worker (sched, "idle", 4, S_GIB, NULL);
    int leases = 0;
    assert_int_equal (drover_schedq_lend (sched, s_lent, &leases), 1);
    assert_int_equal (leases, 1);
    assert_int_equal (drover_schedq_push (sched, 1, 0, 2, 0, NULL), 0);
    s_explain (sched, 1, &told);
    assert_int_equal (s_item (&told, DROVER_WHY_LENT)->count, 1);
    s_says (s_verdict (&told), "runs when idle comes back from the fast path");
}

//  A TASK TABLE's queued rows get the short form, with their places
static void
test_rows_annotated (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    drover_schedq_add_worker (sched, "w", 2, S_GIB, NULL);
    assert_int_equal (drover_schedq_push (sched, 1, 0, 2, 0, NULL), 0);
    assert_int_equal (drover_schedq_run (sched, NULL, NULL), 1);
    for (uint64_t task = 2; task <= 4; task++)
        assert_int_equal (drover_schedq_push (sched, task, 0, 1, 0, NULL), 0);
    assert_int_equal (drover_schedq_push (sched, 5, 0, 1, 0, "zone=c"), 0);
    assert_int_equal (drover_schedq_push (sched, 6, -1, 1, 0, NULL), 0);
    drover_task_row_t rows [7];
    memset (rows, 0, sizeof rows);
    for (int index = 0; index < 7; index++) {
        rows [index].task = (uint64_t) (7 - index);
        rows [index].state = DROVER_TASK_QUEUED;
    }
    rows [6].state = DROVER_TASK_RUNNING;          //  task 1
    drover_explain_annotate (sched, rows, 7);
    assert_string_equal (rows [0].reason, "");     //  task 7: not queued here
    assert_string_equal (rows [1].reason, "busy");             //  6: first
    assert_string_equal (rows [2].reason, "no label zone=c");  //  5
    assert_string_equal (rows [3].reason, "behind 3");         //  4: 6, 2, 3
    assert_string_equal (rows [4].reason, "behind 2");
    assert_string_equal (rows [5].reason, "behind 1");
    assert_string_equal (rows [6].reason, "");
}

//  Tasks no connected worker could ever run wait aside: they are not
//  ahead of a task that could run, in its explanation nor in its row;
//  among themselves, those asking the same still queue
static void
test_never_runnable_not_ahead (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    s_told_t told;
    drover_schedq_add_worker (sched, "w", 1, S_GIB, NULL);
    assert_int_equal (drover_schedq_push (sched, 1, 0, 1, 0, NULL), 0);
    assert_int_equal (drover_schedq_run (sched, NULL, NULL), 1);
    //  Urgent, but nobody has the label: set aside at the next pass
    assert_int_equal (drover_schedq_push (sched, 2, -5, 1, 0, "zone=c"), 0);
    assert_int_equal (drover_schedq_push (sched, 3, -5, 1, 0, "zone=c"), 0);
    assert_int_equal (drover_schedq_push (sched, 4, 0, 1, 0, NULL), 0);
    assert_int_equal (drover_schedq_push (sched, 5, 0, 1, 0, NULL), 0);
    assert_int_equal (drover_schedq_run (sched, NULL, NULL), 0);

    s_explain (sched, 5, &told);
    assert_int_equal (told.whys [0].count, 1);          //  4 only: before the fix 3
    assert_int_equal (told.whys [0].a, 0);
    s_says (&told.whys [0], "1 ahead: 1 earlier of the same");
    s_explain (sched, 4, &told);
    assert_int_equal (told.whys [0].count, 0);
    //  Task 3 waits for the same worker task 2 does: 2 runs first
    s_explain (sched, 3, &told);
    assert_int_equal (told.whys [0].count, 1);
    assert_int_equal (s_verdict (&told)->code, DROVER_WHY_NEVER_LABEL);

    //  The rows say the same places
    drover_task_row_t rows [4];
    memset (rows, 0, sizeof rows);
    for (int index = 0; index < 4; index++) {
        rows [index].task = (uint64_t) (5 - index);
        rows [index].state = DROVER_TASK_QUEUED;
    }
    drover_explain_annotate (sched, rows, 4);
    assert_string_equal (rows [0].reason, "behind 1");         //  5: behind 4 only
    assert_string_equal (rows [2].reason, "no label zone=c");  //  3
    assert_string_equal (rows [3].reason, "no label zone=c");  //  2
    char kept [sizeof rows [1].reason];
    snprintf (kept, sizeof kept, "%s", rows [1].reason);       //  4: first, for w
    assert_null (strstr (kept, "behind"));
}

//  With an elastic pool, a task no connected worker could ever run is
//  explained by the pool's types: the cheapest that fits will be started,
//  or none fits
static void
test_pool_type_fits_or_not (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    drover_pooltype_t types [2] = {
        { .name = "small", .procs = 2, .mem = 4 * S_GIB, .labels = "", .price = 0.1 },
        { .name = "gpu", .procs = 16, .mem = 64 * S_GIB, .labels = "gpu=1", .price = 1.2 },
    };
    drover_schedq_set_pooltypes (sched, types, 2);
    s_told_t told;
    assert_int_equal (drover_schedq_push (sched, 1, 0, 2, S_GIB, ""), 0);
    assert_int_equal (drover_schedq_push (sched, 2, 0, 4, 0, "gpu=1"), 0);
    assert_int_equal (drover_schedq_push (sched, 3, 0, 32, 0, ""), 0);
    s_explain (sched, 1, &told);
    const drover_why_t *verdict = s_verdict (&told);
    assert_int_equal (verdict->code, DROVER_WHY_POOL_START);
    assert_string_equal (verdict->text, "small");
    assert_false (drover_why_never (verdict));
    s_says (verdict, "no connected worker could run it: an instance of type small will be "
                     "started");
    s_short (&told, "starting small");
    s_explain (sched, 2, &told);
    assert_string_equal (s_verdict (&told)->text, "gpu");
    //  Nothing has 32 procs: no type fits, even with workers connected
    drover_schedq_add_worker (sched, "a", 4, S_GIB, "");
    s_explain (sched, 3, &told);
    verdict = s_verdict (&told);
    assert_int_equal (verdict->code, DROVER_WHY_POOL_NOFIT);
    assert_true (drover_why_never (verdict));
    s_says (verdict, "no connected worker could run it, and no instance type fits");
    s_short (&told, "no type fits");
    //  Without the pool, the worker's view as before
    drover_schedq_set_pooltypes (sched, NULL, 0);
    s_explain (sched, 3, &told);
    assert_int_equal (s_verdict (&told)->code, DROVER_WHY_NEVER_PROCS);
}

//  Devices: a worker with too few in all, one with too few free; the
//  verdict names the device; with none anywhere big enough, NEVER_DEVICES
static void
test_devices_reasons (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    drover_schedq_add_worker (sched, "small", 8, 0, NULL);
    drover_schedq_set_devices (sched, "small", "gpu=1");
    drover_schedq_add_worker (sched, "big", 8, 0, NULL);
    drover_schedq_set_devices (sched, "big", "gpu=2");
    drover_schedq_tenant_t one = { "alice", "gpu=1", 0 }, two = { "bob", "gpu=2", 0 };
    assert_int_equal (drover_schedq_push_as (sched, 1, 0, 1, 0, NULL, &one), 0);
    assert_int_equal (drover_schedq_run (sched, NULL, NULL), 1);   //  on big: 1 gpu left
    assert_int_equal (drover_schedq_push_as (sched, 2, 0, 1, 0, NULL, &two), 0);
    assert_int_equal (drover_schedq_run (sched, NULL, NULL), 0);
    s_told_t told;
    s_explain (sched, 2, &told);
    const drover_why_t *item = s_item (&told, DROVER_WHY_DEVICES);
    assert_string_equal (item->text, "gpu");
    assert_int_equal (item->a, 1);
    assert_int_equal (item->b, 2);
    assert_string_equal (item->names [0], "small");
    const drover_why_t *verdict = s_verdict (&told);
    assert_true (verdict->code == DROVER_WHY_FITS_WHEN || verdict->code == DROVER_WHY_AFTER);
    //  Three gpus: nobody has so many
    drover_schedq_tenant_t three = { "bob", "gpu=3", 0 };
    assert_int_equal (drover_schedq_push_as (sched, 3, 0, 1, 0, NULL, &three), 0);
    s_explain (sched, 3, &told);
    verdict = s_verdict (&told);
    assert_int_equal (verdict->code, DROVER_WHY_NEVER_DEVICES);
    assert_string_equal (verdict->text, "gpu");
    assert_int_equal (verdict->a, 2);
    assert_int_equal (verdict->b, 3);
}

//  With room free but a gpu busy, the worker says BUSY_DEVICES
static void
test_devices_busy (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    drover_schedq_add_worker (sched, "m1", 8, 0, NULL);
    drover_schedq_set_devices (sched, "m1", "gpu=1");
    drover_schedq_tenant_t gpu = { "alice", "gpu=1", 0 };
    drover_schedq_push_as (sched, 1, 0, 1, 0, NULL, &gpu);
    assert_int_equal (drover_schedq_run (sched, NULL, NULL), 1);
    drover_schedq_push_as (sched, 2, 0, 1, 0, NULL, &gpu);
    s_told_t told;
    s_explain (sched, 2, &told);
    const drover_why_t *item = s_item (&told, DROVER_WHY_BUSY_DEVICES);
    assert_int_equal (item->a, 0);
    assert_int_equal (item->b, 1);
    assert_string_equal (item->text, "gpu");
    s_says (item, "busy (has 0 gpu free, of 1 asked)");
    const drover_why_t *verdict = s_verdict (&told);
    assert_int_equal (verdict->code, DROVER_WHY_FITS_WHEN);
    assert_string_equal (verdict->text, "gpu");
}

//  A request past its owner's quota has the verdict QUOTA
static void
test_quota_verdict (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    drover_fairshare_quota_t quota = { .procs = 2 };
    drover_fairshare_set_quota (drover_schedq_fairshare (sched), "alice", &quota);
    drover_schedq_add_worker (sched, "m1", 8, 0, NULL);
    drover_schedq_tenant_t alice = { "alice", NULL, 0 };
    for (uint64_t task = 1; task <= 3; task++)
        drover_schedq_push_as (sched, task, 0, 1, 0, NULL, &alice);
    assert_int_equal (drover_schedq_run (sched, NULL, NULL), 2);
    s_told_t told;
    s_explain (sched, 3, &told);
    const drover_why_t *verdict = s_verdict (&told);
    assert_int_equal (verdict->code, DROVER_WHY_QUOTA);
    assert_int_equal (verdict->a, 2);
    assert_int_equal (verdict->b, 2);
    assert_string_equal (verdict->text, "procs");
    assert_string_equal (verdict->names [0], "alice");
    assert_int_equal (verdict->count, 0);
    s_says (verdict, "quota: alice runs 2 procs, at most 2");
    char text [64];
    drover_why_short (told.whys, (size_t) told.count, text, sizeof text);
    assert_string_equal (text, "quota procs");
}

//  An owner above its share gets a FAIR_SHARE item after the verdict
static void
test_fair_share_item (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    drover_schedq_add_worker (sched, "m1", 4, 0, NULL);
    drover_schedq_tenant_t alice = { "alice", NULL, 0 }, bob = { "bob", NULL, 0 };
    for (uint64_t task = 1; task <= 5; task++)
        drover_schedq_push_as (sched, task, 0, 1, 0, NULL, &alice);
    assert_int_equal (drover_schedq_run (sched, NULL, NULL), 4);
    drover_schedq_push_as (sched, 10, 0, 1, 0, NULL, &bob);
    s_told_t told;
    s_explain (sched, 5, &told);
    const drover_why_t *item = s_item (&told, DROVER_WHY_FAIR_SHARE);
    assert_int_equal (item->a, 1000);       //  all procs
    assert_int_equal (item->b, 500);        //  against half
    assert_string_equal (item->text, "procs");
    assert_string_equal (item->names [0], "alice");
    assert_int_equal (item->nnames, 1);
    s_says (item, "owner alice is above its share: 100% of procs against 50%");
    char *said = drover_fairshare_describe (drover_schedq_fairshare (sched),
                                            drover_fairshare_owner (drover_schedq_fairshare (sched), "alice"));
    assert_non_null (said);
    assert_string_equal (said, "owner alice is above their share: 100% of procs against 50%");
    zstr_free (&said);
    //  bob, below his share, has none
    s_explain (sched, 10, &told);
    for (int index = 0; index < told.count; index++)
        assert_int_not_equal (told.whys [index].code, DROVER_WHY_FAIR_SHARE);
}

//  The level-4 items in words, as a client of this release says them
static void
test_sharing_sentences (void **state)
{
    (void) state;
    drover_why_t why = { .code = DROVER_WHY_QUOTA, .a = 3 << 20, .b = 4 << 20, .count = 1,
                         .text = "mem", .nnames = 1 };
    strcpy (why.names [0], "physics");
    s_says (&why, "quota: account physics runs 3.0M mem, at most 4.0M");
    why = (drover_why_t) { .code = DROVER_WHY_NEVER_DEVICES, .a = 2, .b = 4, .text = "gpu" };
    s_says (&why, "no worker could ever run it: the most gpu a worker has is 2, of 4 asked");
    assert_true (drover_why_never (&why));
    char text [64];
    drover_why_short (&why, 1, text, sizeof text);
    assert_string_equal (text, "gpu 4>2");
    why = (drover_why_t) { .code = DROVER_WHY_DEVICES, .a = 1, .b = 2, .text = "fpga" };
    s_says (&why, "has 1 fpga in all, of 2 asked");
    why = (drover_why_t) { .code = DROVER_WHY_FAIR_SHARE, .a = 600, .b = 125, .text = "mem",
                           .nnames = 2 };
    strcpy (why.names [0], "alice");
    strcpy (why.names [1], "physics");
    s_says (&why, "owner alice (account physics) is above its share: 60% of mem against 12.5%");
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_sharing_sentences),
        cmocka_unit_test_setup_teardown (test_label_no_worker_has, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_procs_and_memory_no_worker_has, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_no_one_worker_has_all, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_admin_states_and_health, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_busy_kept_and_reserved, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_fits_now_runs_next, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_queue_position, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_many_workers_grouped, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_lent_worker, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_rows_annotated, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_never_runnable_not_ahead, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_pool_type_fits_or_not, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_devices_reasons, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_devices_busy, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_quota_verdict, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_fair_share_item, s_setup, s_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
