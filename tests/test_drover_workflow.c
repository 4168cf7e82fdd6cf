/*  =========================================================================
    test_drover_workflow - a graph of named steps, before it is submitted

    Steps by name and index, refused names and duplicates, waits between
    steps carried in each step's after list (DROVER_AFTER_STEP) beside
    waits for tasks, and the check: a graph without a cycle passes, a
    cycle (two steps, three, one joined by a longer path) is named step by
    step, and the submit setters' refusals.
    =========================================================================
*/

#include "testutil.h"
#include "drover_client_wire.h"

//  Add a step named name running "true"; returns its index
static int
s_add (drover_workflow_t *workflow, const char *name)
{
    const char *argv [] = { "true" };
    drover_submit_t *submit = drover_submit_new (1, argv);
    assert_non_null (submit);
    int index = drover_workflow_add (workflow, name, &submit);
    if (index > 0)
        assert_null (submit);           //  taken
    drover_submit_destroy (&submit);
    return index;
}

//  Steps by name and index; bad and duplicate names refused
static void
test_steps (void **state)
{
    assert_null (drover_workflow_new ("has space"));
    assert_null (drover_workflow_new (""));
    drover_workflow_t *workflow = drover_workflow_new (NULL);
    assert_non_null (workflow);
    assert_string_equal (drover_workflow_title (workflow), "workflow");
    assert_int_equal (s_add (workflow, "fetch"), 1);
    assert_int_equal (s_add (workflow, "merge"), 2);
    assert_int_equal (s_add (workflow, "fetch"), -1);
    assert_int_equal (s_add (workflow, "two words"), -1);
    assert_int_equal (drover_workflow_size (workflow), 2);
    assert_int_equal (drover_workflow_find (workflow, "merge"), 2);
    assert_int_equal (drover_workflow_find (workflow, "nope"), 0);
    assert_string_equal (drover_workflow_name (workflow, 1), "fetch");
    assert_null (drover_workflow_name (workflow, 3));
    assert_null (drover_workflow_submit (workflow, 0));
    assert_non_null (drover_workflow_submit (workflow, 2));
    drover_workflow_destroy (&workflow);
    assert_null (workflow);
    drover_workflow_destroy (&workflow);
}

//  Waits between steps ride in the step's after list, beside task waits
static void
test_after_entries (void **state)
{
    drover_workflow_t *workflow = drover_workflow_new ("pipeline");
    s_add (workflow, "a");
    s_add (workflow, "b");
    assert_int_equal (drover_workflow_after (workflow, 2, DROVER_AFTER_ANY, 1), 0);
    assert_int_equal (drover_workflow_after (workflow, 2, DROVER_AFTER_OK, 2), -1);     //  itself
    assert_int_equal (drover_workflow_after (workflow, 2, DROVER_AFTER_OK, 3), -1);     //  no step
    assert_int_equal (drover_workflow_after (workflow, 2, 7, 1), -1);                   //  no kind
    drover_submit_t *submit = drover_workflow_submit (workflow, 2);
    assert_int_equal (drover_submit_add_after (submit, DROVER_AFTER_FAIL, 77), 0);
    const drover_msg_t *msg = drover_submit_msg (submit);
    assert_int_equal (msg->nafter, 2);
    assert_int_equal (msg->after [0].kind, DROVER_AFTER_ANY | DROVER_AFTER_STEP);
    assert_int_equal (msg->after [0].task, 1);
    assert_int_equal (msg->after [1].kind, DROVER_AFTER_FAIL);
    assert_int_equal (msg->after [1].task, 77);
    char error [256] = "";
    assert_int_equal (drover_workflow_check (workflow, error, sizeof error), 0);
    assert_int_equal (drover_workflow_cycle_step (workflow), 0);
    drover_workflow_destroy (&workflow);
}

//  A cycle is found and named, step by step, wherever it is
static void
test_cycles (void **state)
{
    drover_workflow_t *workflow = drover_workflow_new ("loops");
    //  a <- b <- c <- d, and e waits for d; then a waits for c: a, c, b
    const char *names [] = { "a", "b", "c", "d", "e" };
    for (int at = 0; at < 5; at++)
        assert_int_equal (s_add (workflow, names [at]), at + 1);
    drover_workflow_after (workflow, 2, DROVER_AFTER_OK, 1);
    drover_workflow_after (workflow, 3, DROVER_AFTER_OK, 2);
    drover_workflow_after (workflow, 4, DROVER_AFTER_OK, 3);
    drover_workflow_after (workflow, 5, DROVER_AFTER_OK, 4);
    drover_workflow_after (workflow, 5, DROVER_AFTER_OK, 1);        //  a diamond: no cycle
    char error [256] = "";
    assert_int_equal (drover_workflow_check (workflow, error, sizeof error), 0);
    drover_workflow_after (workflow, 1, DROVER_AFTER_ANY, 3);
    assert_int_equal (drover_workflow_check (workflow, error, sizeof error), -1);
    assert_string_equal (error, "cycle: a -> c -> b -> a (each waits for the next)");
    assert_int_equal (drover_workflow_cycle_step (workflow), 1);
    drover_workflow_destroy (&workflow);

    //  Two steps that wait for each other, the cycle away from step 1
    workflow = drover_workflow_new ("pair");
    s_add (workflow, "first");
    s_add (workflow, "ping");
    s_add (workflow, "pong");
    drover_workflow_after (workflow, 2, DROVER_AFTER_OK, 1);
    drover_workflow_after (workflow, 2, DROVER_AFTER_OK, 3);
    drover_workflow_after (workflow, 3, DROVER_AFTER_FAIL, 2);
    assert_int_equal (drover_workflow_check (workflow, error, sizeof error), -1);
    assert_string_equal (error, "cycle: ping -> pong -> ping (each waits for the next)");
    assert_int_equal (drover_workflow_cycle_step (workflow), 2);
    //  A short buffer is cut, never overrun
    char tiny [12];
    assert_int_equal (drover_workflow_check (workflow, tiny, sizeof tiny), -1);
    assert_string_equal (tiny, "cycle: ping");
    drover_workflow_destroy (&workflow);
}

//  A long chain checks without a cycle; one edge back makes one
static void
test_long_chain (void **state)
{
    drover_workflow_t *workflow = drover_workflow_new ("chain");
    char name [16];
    for (int at = 1; at <= DROVER_STEPS_MAX; at++) {
        snprintf (name, sizeof name, "s%d", at);
        assert_int_equal (s_add (workflow, name), at);
        if (at > 1)
            assert_int_equal (drover_workflow_after (workflow, at, DROVER_AFTER_OK, at - 1), 0);
    }
    assert_int_equal (s_add (workflow, "one-too-many"), -1);
    char error [DROVER_REASON_MAX + 1];
    assert_int_equal (drover_workflow_check (workflow, error, sizeof error), 0);
    drover_workflow_after (workflow, 1, DROVER_AFTER_OK, DROVER_STEPS_MAX);
    assert_int_equal (drover_workflow_check (workflow, error, sizeof error), -1);
    assert_memory_equal (error, "cycle: s1 -> s1000 -> s999", 26);
    assert_int_equal (drover_workflow_cycle_step (workflow), 1);
    drover_workflow_destroy (&workflow);
}

//  The submit setters write the fields and refuse what is out of range
static void
test_submit_setters (void **state)
{
    const char *argv [] = { "true" };
    drover_submit_t *submit = drover_submit_new (1, argv);
    drover_msg_t *msg = drover_submit_msg (submit);
    assert_int_equal (drover_submit_add_after (submit, DROVER_AFTER_OK, 0), -1);
    assert_int_equal (drover_submit_add_after (submit, 3, 5), -1);
    for (int at = 0; at < DROVER_AFTER_MAX; at++)
        assert_int_equal (drover_submit_add_after (submit, DROVER_AFTER_OK, at + 1), 0);
    assert_int_equal (drover_submit_add_after (submit, DROVER_AFTER_OK, 9), -1);
    assert_int_equal (msg->nafter, DROVER_AFTER_MAX);
    assert_int_equal (msg->after [DROVER_AFTER_MAX - 1].task, DROVER_AFTER_MAX);
    drover_submit_set_begin (submit, 1765000000000ULL);
    assert_int_equal (msg->begin, 1765000000000ULL);
    drover_submit_set_retry_delay (submit, 10000, 60000);
    assert_int_equal (msg->retry_delay, 10000);
    assert_int_equal (msg->retry_max_delay, 60000);
    assert_int_equal (drover_submit_set_array (submit, 0, 1, 0, 0), -1);
    assert_int_equal (drover_submit_set_array (submit, 0, 0, 5, 0), -1);
    assert_int_equal (drover_submit_set_array (submit, 0, 1, DROVER_ARRAY_MAX + 1, 0), -1);
    assert_int_equal (drover_submit_set_array (submit, UINT32_MAX - 1, 2, 2, 0), -1);
    assert_int_equal (drover_submit_set_array (submit, UINT32_MAX - 2, 2, 2, 0), 0);
    assert_int_equal (drover_submit_set_array (submit, 1, 2, 5, 3), 0);
    assert_int_equal (msg->array.first, 1);
    assert_int_equal (msg->array.step, 2);
    assert_int_equal (msg->array.count, 5);
    assert_int_equal (msg->array.limit, 3);
    drover_submit_destroy (&submit);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_steps),
        cmocka_unit_test (test_after_entries),
        cmocka_unit_test (test_cycles),
        cmocka_unit_test (test_long_chain),
        cmocka_unit_test (test_submit_setters),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
