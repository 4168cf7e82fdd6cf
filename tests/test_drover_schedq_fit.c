/*  =========================================================================
    test_drover_schedq_fit - where a request fits in the scheduling queue,
    without threads: adopted attempts, memory, huge procs, labels, shared
    demands, a disk floor, and capacity given back
    =========================================================================
*/

#include "testutil_placed.h"

//  An attempt adopted after a restart counts where it runs: its procs are
//  used (a pass places nothing in them), FREE gives them back; a task or
//  worker the scheduler holds already, or does not know, is refused
static void
test_place_adopted_attempt (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    assert_int_equal (drover_schedq_add_worker (sched, "m1", 4, 0, ""), 0);
    assert_int_equal (drover_schedq_place (sched, "m1", 7, 3, 0, ""), 0);
    assert_int_equal (testutil_placed_used (sched, "m1"), 3);
    assert_string_equal (drover_schedq_assigned (sched, 7), "m1");
    assert_int_equal (drover_schedq_place (sched, "m1", 7, 1, 0, ""), -1);     //  held already
    assert_int_equal (drover_schedq_place (sched, "gone", 8, 1, 0, ""), -1);   //  unknown worker
    assert_int_equal (drover_schedq_push (sched, 9, 0, 2, 0, NULL), 0);
    assert_int_equal (testutil_placed_run (sched, &placed), 0);          //  1 proc free of 4
    assert_non_null (drover_schedq_free (sched, 7));
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [0], 9);
}

//  A request demanding memory goes to the most-free worker that has it
static void
test_memory_constraint (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    uint64_t gib = 1ULL << 30;
    drover_schedq_add_worker (sched, "roomy", 8, 1 * gib, NULL);
    drover_schedq_add_worker (sched, "fat", 4, 16 * gib, NULL);
    drover_schedq_add_worker (sched, "fatter", 2, 32 * gib, NULL);
    drover_schedq_push (sched, 1, 0, 1, 8 * gib, NULL);
    drover_schedq_push (sched, 2, 0, 1, 64 * gib, NULL);    //  too much anywhere
    drover_schedq_push (sched, 3, 1, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 2);
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

//  A request demanding more procs than a request records (2^29 - 1: no
//  agent offers more than 65536) still fits no worker; one demanding a
//  worker's whole size fits it, and its procs come back with FREE
static void
test_huge_procs_fit_nothing (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "big", 65536, 0, NULL);
    drover_schedq_push (sched, 1, 0, UINT32_MAX, 0, NULL);
    drover_schedq_push (sched, 2, 1, 65537, 0, NULL);
    drover_schedq_push (sched, 3, 2, 65536, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [0], 3);
    assert_true (drover_schedq_queued (sched, 1));
    assert_true (drover_schedq_queued (sched, 2));
    assert_false (drover_schedq_queued (sched, 3));
    assert_string_equal (drover_schedq_assigned (sched, 3), "big");
    assert_null (drover_schedq_assigned (sched, 1));
    assert_int_equal (testutil_placed_used (sched, "big"), 65536);
    assert_non_null (drover_schedq_free (sched, 3));
    assert_int_equal (testutil_placed_used (sched, "big"), 0);
    assert_int_equal (drover_schedq_remove (sched, 1), 0);
    assert_int_equal (drover_schedq_remove (sched, 3), -1);      //  gone with its FREE
}

//  A labelled request finds its workers through the label index: among
//  many workers of another pool it goes to the holder with the most free
//  procs; the index follows a worker's new labels and its removal
static void
test_label_index (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
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
    assert_int_equal (testutil_placed_run (sched, &placed), 2);
    assert_string_equal (placed.workers [0], "busy-b");     //  most free procs
    assert_string_equal (placed.workers [1], "busy-a");     //  the only zone=a
    assert_true (drover_schedq_queued (sched, 3));           //  nobody has pool=none

    //  busy-b changes pool: it leaves pool=busy's holders and joins pool=none's
    assert_int_equal (drover_schedq_add_worker (sched, "busy-b", 4, 1 << 30, "pool=none"), 1);
    assert_int_equal (drover_schedq_push (sched, 4, 0, 1, 0, "pool=busy"), 0);
    assert_int_equal (testutil_placed_run (sched, &placed), 2);
    assert_int_equal (placed.tasks [2], 3);                 //  the older request first
    assert_string_equal (placed.workers [2], "busy-b");
    assert_int_equal (placed.tasks [3], 4);
    assert_string_equal (placed.workers [3], "busy-a");

    //  Gone: its label finds nobody, and the request waits
    assert_int_equal (drover_schedq_remove_worker (sched, "busy-a", NULL, NULL), 2);
    assert_int_equal (drover_schedq_push (sched, 5, 0, 1, 0, "pool=busy"), 0);
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    assert_true (drover_schedq_queued (sched, 5));
    assert_int_equal (drover_schedq_add_worker (sched, "busy-c", 1, 1 << 30, "pool=busy"), 0);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_string_equal (placed.workers [4], "busy-c");
}

//  A request requiring labels goes only where all of them are
static void
test_label_constraint (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "plain", 8, 0, "");
    drover_schedq_add_worker (sched, "gpu", 2, 0, "zone=x\ngpu=yes");
    drover_schedq_add_worker (sched, "gpu-y", 1, 0, "gpu=yes\nzone=y\n");
    drover_schedq_push (sched, 1, 0, 1, 0, "gpu=yes");
    drover_schedq_push (sched, 2, 0, 1, 0, "gpu=yes\nzone=y");
    drover_schedq_push (sched, 3, 0, 1, 0, "gpu=yes\nzone=z");  //  nowhere
    drover_schedq_push (sched, 4, 0, 1, 0, "zone=y");
    drover_schedq_push (sched, 5, 1, 1, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 3);
    assert_int_equal (placed.tasks [0], 1);
    assert_string_equal (placed.workers [0], "gpu");       //  2 free against 1
    assert_int_equal (placed.tasks [1], 2);
    assert_string_equal (placed.workers [1], "gpu-y");
    assert_int_equal (placed.tasks [2], 5);
    assert_string_equal (placed.workers [2], "plain");
    assert_true (drover_schedq_queued (sched, 3));
    assert_true (drover_schedq_queued (sched, 4));          //  gpu-y is full
    drover_schedq_free (sched, 2);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [3], 4);
    assert_string_equal (placed.workers [3], "gpu-y");
    drover_schedq_view_t view;
    assert_int_equal (drover_schedq_lookup (sched, "gpu-y", &view), 0);
    assert_int_equal (view.nlabels, 2);
    assert_string_equal (view.labels [0], "gpu=yes");
    assert_string_equal (view.labels [1], "zone=y");
}

//  Freeing gives capacity back; freeing twice or a queued task does nothing
static void
test_free_gives_capacity_back (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
    drover_schedq_add_worker (sched, "m", 4, 0, NULL);
    drover_schedq_push (sched, 1, 0, 3, 0, NULL);
    drover_schedq_push (sched, 2, 0, 3, 0, NULL);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_int_equal (testutil_placed_used (sched, "m"), 3);
    assert_null (drover_schedq_free (sched, 2));             //  queued, holds nothing
    assert_true (drover_schedq_queued (sched, 2));
    assert_string_equal (drover_schedq_free (sched, 1), "m");
    assert_null (drover_schedq_free (sched, 1));
    assert_int_equal (testutil_placed_used (sched, "m"), 0);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_int_equal (placed.tasks [1], 2);
}

//  Requests asking the same memory and labels share what they demand:
//  alike and unlike pushes interleaved, some removed, each still placed
//  only where it fits, and capacity given back exactly
static void
test_shared_demands (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    testutil_placed_t placed = { 0 };
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
    assert_int_equal (testutil_placed_run (sched, &placed), 45);
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
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_string_equal (drover_schedq_assigned (sched, 100), "gpu");
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
    testutil_placed_t placed = { 0 };
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
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
    assert_string_equal (placed.workers [0], "roomy");

    //  Room again: it takes the rest
    stats = s_disk_stats (200ULL << 20);
    drover_schedq_set_stats (sched, "full", &stats);
    assert_int_equal (drover_schedq_lookup (sched, "full", &view), 0);
    assert_false (view.disk_low);
    assert_int_equal (testutil_placed_run (sched, &placed), 2);
    assert_string_equal (placed.workers [1], "full");
    assert_string_equal (placed.workers [2], "full");

    //  Full again, with work queued: held; lowering the floor frees it
    stats = s_disk_stats (1ULL << 20);
    drover_schedq_set_stats (sched, "full", &stats);
    assert_int_equal (drover_schedq_push (sched, 4, 0, 1, 0, NULL), 0);
    assert_int_equal (testutil_placed_run (sched, &placed), 0);
    drover_schedq_set_min_disk_free (sched, 0);
    assert_int_equal (testutil_placed_run (sched, &placed), 1);
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
        cmocka_unit_test_setup_teardown (test_place_adopted_attempt, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_memory_constraint, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_huge_procs_fit_nothing, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_label_constraint, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_label_index, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_free_gives_capacity_back, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_shared_demands, testutil_placed_setup, testutil_placed_teardown),
        cmocka_unit_test_setup_teardown (test_disk_floor_holds_worker, testutil_placed_setup, testutil_placed_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
