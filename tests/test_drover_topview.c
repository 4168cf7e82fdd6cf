/*  =========================================================================
    test_drover_topview - what `drover top` shows, without a terminal: the
    rates from one refresh to the next, the queue by priority, the pool's
    line, and the layout for the terminal's size
    =========================================================================
*/

#include "testutil.h"
#include "drover_topview.h"

//  A WORKER TABLE of count workers, the first on probation
static drover_msg_t *
s_workers (uint32_t count)
{
    drover_msg_t *table = drover_msg_new (DROVER_MSG_WORKER_TABLE);
    table->nrows = count;
    table->worker_rows = (drover_worker_row_t *) zmalloc ((count? count: 1) * sizeof (drover_worker_row_t));
    for (uint32_t index = 0; index < count; index++) {
        drover_worker_row_t *row = &table->worker_rows [index];
        snprintf (row->id, sizeof row->id, "worker-%02u", index);
        row->health = index == 0? DROVER_HEALTH_PROBATION: DROVER_HEALTH_OK;
        row->procs = 4;
        row->procs_used = index % 5;
        row->stats.load [0] = 1.5;
        row->stats.running = index % 3;
    }
    return table;
}

//  A TASK TABLE of queued tasks with these priorities (ids from first),
//  counts: queued as given, running and succeeded
static drover_msg_t *
s_queued (uint64_t first, const int *priorities, uint32_t count, uint64_t queued,
          uint64_t running, uint64_t succeeded)
{
    drover_msg_t *table = drover_msg_new (DROVER_MSG_TASK_TABLE);
    table->counts [DROVER_TASK_QUEUED] = queued;
    table->counts [DROVER_TASK_RUNNING] = running;
    table->counts [DROVER_TASK_SUCCEEDED] = succeeded;
    table->nrows = count;
    table->task_rows = (drover_task_row_t *) zmalloc ((count? count: 1) * sizeof (drover_task_row_t));
    for (uint32_t index = 0; index < count; index++) {
        drover_task_row_t *row = &table->task_rows [index];
        row->task = first + count - 1 - index;      //  newest first, as the broker lists
        row->state = DROVER_TASK_QUEUED;
        row->priority = priorities [index];
        row->procs = 1;
        row->summary = strdup ("sleep 1");
    }
    return table;
}

//  Find the first line of the last render containing needle; -1 if none
static int
s_find (drover_topview_t *view, size_t lines, const char *needle)
{
    for (size_t index = 0; index < lines; index++)
        if (strstr (drover_topview_line (view, index), needle))
            return (int) index;
    return -1;
}

//  Submitted per second comes from the newest id, finished from what was
//  submitted less the growth of the tasks not final: neither is fooled by
//  finished tasks the broker forgets (their counts shrink)
static void
test_rates_from_refresh_deltas (void **state)
{
    drover_topview_t *view = drover_topview_new ("tcp://127.0.0.1:5555");
    int none [1] = { 0 };
    drover_msg_t *workers = s_workers (1);
    drover_msg_t *queued = s_queued (1, none, 0, 10, 2, 100);
    drover_topview_update (view, &workers, &queued, 200, 1000, 1732262400000);
    assert_null (workers);
    assert_null (queued);
    assert_true (drover_topview_submit_rate (view) == 0);      //  no base yet
    //  2 s later: 40 new ids, 6 more not final: 34 finished; the
    //  succeeded count fell (forgotten past keep-finished)
    workers = s_workers (1);
    queued = s_queued (1, none, 0, 16, 2, 50);
    drover_topview_update (view, &workers, &queued, 240, 3000, 1732262402000);
    assert_true (drover_topview_submit_rate (view) == 20.0);
    assert_true (drover_topview_finish_rate (view) == 17.0);
    size_t lines = drover_topview_render (view, 200, 40);
    assert_true (s_find (view, lines, "20.0 submitted/s, 17.0 finished/s") == 2);
    //  A broker whose newest id went back (its state wiped): no rate
    workers = s_workers (1);
    queued = s_queued (1, none, 0, 1, 0, 0);
    drover_topview_update (view, &workers, &queued, 3, 4000, 1732262403000);
    assert_true (drover_topview_submit_rate (view) == 0);
    assert_true (drover_topview_finish_rate (view) == 0);
    drover_topview_destroy (&view);
    drover_topview_destroy (&view);
}

//  The header counts workers by health and the procs; the queue lists by
//  priority, then id; the time is ISO 8601 UTC
static void
test_header_and_queue_by_priority (void **state)
{
    drover_topview_t *view = drover_topview_new ("tcp://hub:5555");
    int priorities [] = { 5, -2, 0, -2 };      //  ids 4, 3, 2, 1
    drover_msg_t *workers = s_workers (3);
    drover_msg_t *queued = s_queued (1, priorities, 4, 4, 3, 0);
    drover_topview_update (view, &workers, &queued, 4, 1000, 1732262400123);
    size_t lines = drover_topview_render (view, 120, 40);
    assert_int_equal (s_find (view, lines, "drover top  tcp://hub:5555  2024-11-22T08:00:00Z"), 0);
    assert_int_equal (drover_topview_style (view, 0), DROVER_TOPVIEW_TITLE);
    assert_int_equal (s_find (view, lines, "workers 3: 2 ok, 1 probation, 0 low disk, 0 lost"), 1);
    assert_true (s_find (view, lines, "procs 3/12 used") == 1);
    assert_int_equal (s_find (view, lines, "tasks: 4 queued, 0 assigned, 3 running"), 2);
    int header = s_find (view, lines, "TASK ");
    assert_true (header > 0);
    assert_int_equal (drover_topview_style (view, header), DROVER_TOPVIEW_COLUMNS);
    //  -2 (ids 1 then 3), 0 (id 2), 5 (id 4)
    unsigned long long ids [] = { 1, 3, 2, 4 };
    int order [] = { -2, -2, 0, 5 };
    for (int index = 0; index < 4; index++) {
        const char *line = drover_topview_line (view, header + 1 + index);
        unsigned long long id;
        int priority;
        if (sscanf (line, "%llu %d", &id, &priority) != 2 || id != ids [index]
        ||  priority != order [index])
            fail_msg ("queue line %d: '%s', expected task %llu at %d", index, line, ids [index],
                      order [index]);
    }
    assert_true (s_find (view, lines, "worker-00  probation") > 0);
    drover_topview_destroy (&view);
}

//  With an elastic pool the header has a line for it: instances by state
//  of the most allowed, the price per hour of its limit, a quota backoff;
//  none for a broker without a pool, or one that did not answer
static void
test_pool_line (void **state)
{
    drover_topview_t *view = drover_topview_new ("tcp://hub:5555");
    int priorities [] = { 0 };
    drover_msg_t *workers = s_workers (2);
    drover_msg_t *queued = s_queued (1, priorities, 1, 1, 0, 0);
    drover_topview_update (view, &workers, &queued, 1, 1000, 1732262400123);
    drover_msg_t *pool = drover_msg_new (DROVER_MSG_POOL_TABLE);
    pool->pool = (drover_pool_summary_t) { .enabled = 1, .driver = "local", .live = 3,
        .max_instances = 4, .price = 0.3, .max_price = 0.5, .backoff_until = 1732262460000 };
    pool->nrows = 4;
    pool->pool_rows = (drover_pool_row_t *) zmalloc (4 * sizeof (drover_pool_row_t));
    uint8_t states [] = { 1, 2, 3, 4 };
    for (int index = 0; index < 4; index++) {
        snprintf (pool->pool_rows [index].id, DROVER_ID_MAX, "POOL-x-%d", index);
        pool->pool_rows [index].state = states [index];
    }
    drover_topview_set_pool (view, &pool);
    assert_null (pool);
    size_t lines = drover_topview_render (view, 200, 40);
    int line = s_find (view, lines, "pool 3/4: 1 booting, 1 idle, 1 running, 0 unknown, "
                                    "1 shutting down   price 0.30/0.50 per hour   quota backoff");
    assert_int_equal (line, 3);                         //  after the tasks line
    assert_int_equal (drover_topview_style (view, line), DROVER_TOPVIEW_TITLE);
    //  No pool: no line
    pool = drover_msg_new (DROVER_MSG_POOL_TABLE);
    drover_topview_set_pool (view, &pool);
    lines = drover_topview_render (view, 200, 40);
    assert_int_equal (s_find (view, lines, "pool "), -1);
    drover_topview_set_pool (view, &pool);              //  NULL: a broker before pools
    lines = drover_topview_render (view, 200, 40);
    assert_int_equal (s_find (view, lines, "pool "), -1);
    drover_topview_destroy (&view);
}

//  A small terminal: every line fits its width, no more lines than its
//  height, the panes share it and say how many they leave out
static void
test_layout_fits_the_terminal (void **state)
{
    drover_topview_t *view = drover_topview_new ("tcp://127.0.0.1:5555");
    int priorities [60];
    for (int index = 0; index < 60; index++)
        priorities [index] = index % 7;
    drover_msg_t *workers = s_workers (30);
    drover_msg_t *queued = s_queued (1, priorities, 60, 100, 0, 0);
    drover_topview_update (view, &workers, &queued, 100, 1000, 1732262400000);
    int sizes [][2] = { { 80, 24 }, { 40, 10 }, { 200, 60 }, { 20, 5 }, { 1, 1 } };
    for (int size = 0; size < 5; size++) {
        int width = sizes [size][0], height = sizes [size][1];
        size_t lines = drover_topview_render (view, width, height);
        assert_true (lines <= (size_t) height);
        for (size_t index = 0; index < lines; index++)
            assert_true (strlen (drover_topview_line (view, index)) <= (size_t) width);
        if (height >= 24) {
            int more_workers = s_find (view, lines, "more workers");
            int more_queued = s_find (view, lines, "more queued");
            assert_true (more_workers > 0 && more_queued > more_workers);
            assert_int_equal (lines, (size_t) height);      //  the screen is used
        }
    }
    //  Room for everything: no "more"
    size_t lines = drover_topview_render (view, 200, 200);
    assert_int_equal (s_find (view, lines, "more workers"), -1);
    //  The 100 queued are more than the 60 listed: said
    assert_true (s_find (view, lines, "... 40 more queued") > 0);
    drover_topview_destroy (&view);
}

//  Unreachable: said on a line of its own, the last tables kept
static void
test_unreachable_is_said (void **state)
{
    drover_topview_t *view = drover_topview_new ("tcp://127.0.0.1:5555");
    size_t lines = drover_topview_render (view, 100, 20);
    assert_true (s_find (view, lines, "(no workers)") > 0);
    drover_topview_set_error (view, "no reply from the broker", 1732262400000);
    lines = drover_topview_render (view, 100, 20);
    int alert = s_find (view, lines, "broker unreachable: no reply from the broker (still trying)");
    assert_true (alert > 0);
    assert_int_equal (drover_topview_style (view, alert), DROVER_TOPVIEW_ALERT);
    drover_msg_t *workers = s_workers (2);
    int none [1] = { 0 };
    drover_msg_t *queued = s_queued (1, none, 0, 0, 0, 0);
    drover_topview_update (view, &workers, &queued, 0, 1000, 1732262401000);
    drover_topview_set_error (view, "gone", 1732262402000);
    lines = drover_topview_render (view, 100, 20);
    assert_true (s_find (view, lines, "broker unreachable: gone") > 0);
    assert_true (s_find (view, lines, "worker-01") > 0);
    drover_topview_destroy (&view);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_rates_from_refresh_deltas),
        cmocka_unit_test (test_header_and_queue_by_priority),
        cmocka_unit_test (test_pool_line),
        cmocka_unit_test (test_layout_fits_the_terminal),
        cmocka_unit_test (test_unreachable_is_said),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
