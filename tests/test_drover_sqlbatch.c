/*  =========================================================================
    test_drover_sqlbatch - a batch's changes grouped by task; a submit's
    after list and array packed as the backends keep them
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

//  An after list packs to 9 bytes an entry, kind then id big-endian, and
//  unpacks to the same list, owned by the submit; none packs to nothing
static void
test_after_packed_and_unpacked (void **state)
{
    (void) state;
    drover_msg_t *submit = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    byte data [DROVER_SQLBATCH_AFTER_MAX];
    assert_int_equal (drover_sqlbatch_after_pack (submit, data), 0);
    drover_after_t after [2] = {
        { DROVER_AFTER_FAIL, 0x0102030405060708ull }, { DROVER_AFTER_OK | DROVER_AFTER_STEP, 9 }
    };
    submit->after = after;
    submit->nafter = 2;
    assert_int_equal (drover_sqlbatch_after_pack (submit, data), 18);
    const byte expected [18] = { 2, 1, 2, 3, 4, 5, 6, 7, 8, 0x10, 0, 0, 0, 0, 0, 0, 0, 9 };
    assert_memory_equal (data, expected, 18);
    submit->after = NULL;
    submit->nafter = 0;

    drover_msg_t *loaded = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    assert_int_equal (drover_sqlbatch_after_unpack (loaded, NULL, 0), 0);
    assert_null (loaded->after);
    assert_int_equal (drover_sqlbatch_after_unpack (loaded, data, 18), 0);
    assert_int_equal (loaded->nafter, 2);
    assert_int_equal (loaded->after [0].kind, DROVER_AFTER_FAIL);
    assert_int_equal (loaded->after [0].task, 0x0102030405060708ull);
    assert_int_equal (loaded->after [1].kind, DROVER_AFTER_OK | DROVER_AFTER_STEP);
    assert_int_equal (loaded->after [1].task, 9);
    //  Not a packed list: the submit keeps what it had
    assert_int_equal (drover_sqlbatch_after_unpack (loaded, data, 17), -1);
    data [9] = 7;
    assert_int_equal (drover_sqlbatch_after_unpack (loaded, data, 18), -1);
    assert_int_equal (drover_sqlbatch_after_unpack (loaded, data, DROVER_SQLBATCH_AFTER_MAX
                                                    + DROVER_SQLBATCH_AFTER_ENTRY), -1);
    assert_int_equal (loaded->nafter, 2);
    assert_int_equal (loaded->after [1].task, 9);
    free (loaded->after);       //  the submit's, freed here whatever destroy does
    loaded->after = NULL;
    drover_msg_destroy (&loaded);
    drover_msg_destroy (&submit);
}

//  An array packs to 16 bytes, first, step, count, limit big-endian; not
//  an array packs to nothing; a packed array with no elements or no step
//  is refused
static void
test_array_packed_and_unpacked (void **state)
{
    (void) state;
    drover_msg_t *submit = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    byte data [DROVER_SQLBATCH_ARRAY_SIZE];
    assert_int_equal (drover_sqlbatch_array_pack (submit, data), 0);
    submit->array = (drover_array_spec_t) { .first = 0x01020304, .step = 2, .count = 1000,
                                            .limit = 50 };
    assert_int_equal (drover_sqlbatch_array_pack (submit, data), 16);
    const byte expected [16] = { 1, 2, 3, 4, 0, 0, 0, 2, 0, 0, 0x03, 0xe8, 0, 0, 0, 50 };
    assert_memory_equal (data, expected, 16);

    drover_msg_t *loaded = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    assert_int_equal (drover_sqlbatch_array_unpack (loaded, NULL, 0), 0);
    assert_int_equal (loaded->array.count, 0);
    assert_int_equal (drover_sqlbatch_array_unpack (loaded, data, 16), 0);
    assert_memory_equal (&loaded->array, &submit->array, sizeof submit->array);
    assert_int_equal (drover_sqlbatch_array_unpack (loaded, data, 15), -1);
    data [11] = 0, data [10] = 0;
    assert_int_equal (drover_sqlbatch_array_unpack (loaded, data, 16), -1);
    data [11] = 1, data [7] = 0;
    assert_int_equal (drover_sqlbatch_array_unpack (loaded, data, 16), -1);
    assert_int_equal (loaded->array.count, 1000);
    drover_msg_destroy (&loaded);
    drover_msg_destroy (&submit);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_groups_in_first_met_order),
        cmocka_unit_test (test_grows_and_separates_collisions),
        cmocka_unit_test (test_after_packed_and_unpacked),
        cmocka_unit_test (test_array_packed_and_unpacked),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
