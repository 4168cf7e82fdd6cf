/*  =========================================================================
    test_drover_victims - preemption's choice on one worker: only
    preemptible tasks of other accounts, when justified by priority or fair
    share; as few as possible, the newest first; bounded
    =========================================================================
*/

#include "testutil.h"
#include "drover_victims.h"

//  A task of account 2, preemptible, priority 5, one proc
static drover_victims_task_t
s_task (uint64_t id, uint32_t procs)
{
    drover_victims_task_t task = { .task = id, .priority = 5, .account = 2, .preemptible = true,
                                   .procs = procs };
    return task;
}

//  Who may be stopped: preemptible, another account, justified
static void
test_allowed (void **state)
{
    (void) state;
    drover_victims_need_t need = { .priority = 0, .account = 1, .procs = 1 };
    drover_victims_task_t task = s_task (1, 1);
    assert_true (drover_victims_allowed (&need, &task));
    task.preemptible = false;
    assert_false (drover_victims_allowed (&need, &task));
    task = s_task (1, 1);
    task.account = 1;                   //  its own account: never
    assert_false (drover_victims_allowed (&need, &task));
    task = s_task (1, 1);
    task.priority = 0;                  //  same priority: only by fair share
    assert_false (drover_victims_allowed (&need, &task));
    need.below_share = true;
    assert_false (drover_victims_allowed (&need, &task));
    task.above_share = true;
    assert_true (drover_victims_allowed (&need, &task));
}

//  Fewest first: one that frees enough alone, the newest of those
static void
test_fewest_newest (void **state)
{
    (void) state;
    drover_victims_task_t tasks [] = { s_task (10, 1), s_task (11, 4), s_task (12, 1),
                                       s_task (13, 4), s_task (14, 1) };
    drover_victims_need_t need = { .priority = 0, .account = 1, .procs = 4 };
    size_t chosen [4];
    assert_int_equal (drover_victims_choose (&need, tasks, 5, 4, chosen), 1);
    assert_int_equal (tasks [chosen [0]].task, 13);
    //  Three procs free already, one more needed: the newest of any size
    need.free_procs = 3;
    assert_int_equal (drover_victims_choose (&need, tasks, 5, 4, chosen), 1);
    assert_int_equal (tasks [chosen [0]].task, 14);
    //  Enough free already: nothing to stop
    need.free_procs = 4;
    assert_int_equal (drover_victims_choose (&need, tasks, 5, 4, chosen), 0);
}

//  Several needed: the newest in turn, those no longer needed dropped
static void
test_several_and_bounded (void **state)
{
    (void) state;
    drover_victims_task_t tasks [] = { s_task (1, 2), s_task (2, 1), s_task (3, 1),
                                       s_task (4, 2) };
    drover_victims_need_t need = { .priority = 0, .account = 1, .procs = 4 };
    size_t chosen [4];
    //  Newest in turn: 4 (2), 3 (1), 2 (1) = 4
    assert_int_equal (drover_victims_choose (&need, tasks, 4, 4, chosen), 3);
    assert_int_equal (tasks [chosen [0]].task, 4);
    assert_int_equal (tasks [chosen [1]].task, 3);
    assert_int_equal (tasks [chosen [2]].task, 2);
    //  Five: 4, 3, 2, 1 (6), then 2 dropped (oldest no longer needed first: 1 is needed)
    need.procs = 5;
    assert_int_equal (drover_victims_choose (&need, tasks, 4, 4, chosen), 3);
    assert_int_equal (tasks [chosen [0]].task, 4);
    assert_int_equal (tasks [chosen [1]].task, 3);
    assert_int_equal (tasks [chosen [2]].task, 1);
    //  At most two: not enough, none stopped
    assert_int_equal (drover_victims_choose (&need, tasks, 4, 2, chosen), 0);
    //  Not preemptible: never
    for (int index = 0; index < 4; index++)
        tasks [index].preemptible = false;
    assert_int_equal (drover_victims_choose (&need, tasks, 4, 4, chosen), 0);
}

//  Devices count: a task holding the gpu asked is the one stopped
static void
test_devices (void **state)
{
    (void) state;
    drover_device_t gpu = { "gpu", 1 };
    drover_victims_task_t tasks [] = { s_task (1, 1), s_task (2, 1) };
    tasks [0].devices = (drover_victims_devices_t) { &gpu, 1 };
    drover_victims_need_t need = { .priority = 0, .account = 1, .procs = 1, .free_procs = 8,
                                   .devices = { &gpu, 1 } };
    size_t chosen [2];
    assert_int_equal (drover_victims_choose (&need, tasks, 2, 2, chosen), 1);
    assert_int_equal (tasks [chosen [0]].task, 1);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_allowed),
        cmocka_unit_test (test_fewest_newest),
        cmocka_unit_test (test_several_and_bounded),
        cmocka_unit_test (test_devices),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
