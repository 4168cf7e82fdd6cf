/*  =========================================================================
    test_drover_sqlbatch - a batch's changes grouped by task
    =========================================================================
*/

#include "testutil.h"
#include "drover_sqlbatch.h"

//  A change of task, with a submit or a result if asked
static drover_change_t *
s_change (uint64_t task, bool submit, bool done)
{
    drover_change_t *change = drover_change_new (task? "task.running": "worker.up", task);
    if (submit)
        change->submit = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    if (done)
        change->done = drover_msg_new (DROVER_MSG_TASK_DONE);
    return change;
}

//  Several changes of one task are one task: its submit, its result and
//  its last change found; tasks come in the order first met
static void
test_groups_in_first_met_order (void **state)
{
    (void) state;
    drover_change_t *changes [] = {
        s_change (7, true, false), s_change (3, true, false), s_change (0, false, false),
        s_change (7, false, false), s_change (3, false, true), s_change (7, false, true),
        s_change (9, false, false)
    };
    size_t count = sizeof changes / sizeof changes [0];
    drover_sqlbatch_t *group = drover_sqlbatch_new ();
    assert_int_equal (drover_sqlbatch_group (group, changes, count), 3);
    const drover_sqlbatch_task_t *task = drover_sqlbatch_at (group, 0);
    assert_int_equal (task->task, 7);
    assert_int_equal (task->submit, 0);
    assert_int_equal (task->done, 5);
    assert_int_equal (task->last, 5);
    task = drover_sqlbatch_at (group, 1);
    assert_int_equal (task->task, 3);
    assert_int_equal (task->submit, 1);
    assert_int_equal (task->done, 4);
    assert_int_equal (task->last, 4);
    task = drover_sqlbatch_at (group, 2);
    assert_int_equal (task->task, 9);
    assert_int_equal (task->submit, -1);
    assert_int_equal (task->done, -1);
    assert_int_equal (task->last, 6);

    //  A second batch forgets the first: task 7 is met anew
    assert_int_equal (drover_sqlbatch_group (group, changes + 3, 1), 1);
    task = drover_sqlbatch_at (group, 0);
    assert_int_equal (task->task, 7);
    assert_int_equal (task->submit, -1);
    assert_int_equal (task->done, -1);
    assert_int_equal (task->last, 0);
    drover_sqlbatch_destroy (&group);
    for (size_t index = 0; index < count; index++)
        drover_change_destroy (&changes [index]);
}

//  A batch larger than the table grows it; ids that collide in the hash
//  (multiples of a large power of two) are each their own task
static void
test_grows_and_separates_collisions (void **state)
{
    (void) state;
    size_t count = 5000;
    drover_change_t **changes = (drover_change_t **) zmalloc (count * sizeof (drover_change_t *));
    for (size_t index = 0; index < count; index++)
        changes [index] = s_change ((uint64_t) (index / 2 + 1) << 40, index % 2 == 0, false);
    drover_sqlbatch_t *group = drover_sqlbatch_new ();
    assert_int_equal (drover_sqlbatch_group (group, changes, 10), 5);
    assert_int_equal (drover_sqlbatch_group (group, changes, count), count / 2);
    for (size_t index = 0; index < count / 2; index++) {
        const drover_sqlbatch_task_t *task = drover_sqlbatch_at (group, index);
        assert_int_equal (task->task, (uint64_t) (index + 1) << 40);
        assert_int_equal (task->submit, (int64_t) (2 * index));
        assert_int_equal (task->last, (int64_t) (2 * index + 1));
    }
    drover_sqlbatch_destroy (&group);
    drover_sqlbatch_destroy (&group);      //  harmless on NULL
    for (size_t index = 0; index < count; index++)
        drover_change_destroy (&changes [index]);
    free (changes);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_groups_in_first_met_order),
        cmocka_unit_test (test_grows_and_separates_collisions),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
