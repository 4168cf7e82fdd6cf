/*  =========================================================================
    test_drover_flow - the classes behind tasks that wait before the
    queue: the dependency graph (drover_deps), the holds and their timers
    (drover_waiting), arrays and workflows (drover_groups) and the retry
    backoff (drover_flow), each driven directly, with times given
    =========================================================================
*/

#include "testutil.h"
#include "drover_flow.h"

//  States of the parents in a test, by id (0: QUEUED)
static int s_states [64];

//  The state of a parent (drover_deps_state_fn)
static int
s_state (void *arg, uint64_t id)
{
    (void) arg;
    return id < 64? s_states [id]: DROVER_TASK_UNKNOWN;
}

//  What the graph decided, in order, as "child:verdict/blame "
static char s_told [512];

//  Note a verdict (drover_deps_fn)
static void
s_tell (void *arg, uint64_t child, int verdict, uint64_t blame, int blame_state)
{
    (void) arg;
    (void) blame_state;
    size_t used = strlen (s_told);
    snprintf (s_told + used, sizeof s_told - used, "%" PRIu64 ":%s/%" PRIu64 " ", child,
              verdict == DROVER_DEPS_RELEASED? "released": "doomed", blame);
}

//  Each kind judges each final state; a live parent is not judged
static void
test_kinds_judge_states (void **state)
{
    (void) state;
    assert_int_equal (drover_deps_judge (DROVER_AFTER_OK, DROVER_TASK_RUNNING), 0);
    assert_int_equal (drover_deps_judge (DROVER_AFTER_OK, DROVER_TASK_SUCCEEDED), 1);
    assert_int_equal (drover_deps_judge (DROVER_AFTER_OK, DROVER_TASK_FAILED), -1);
    assert_int_equal (drover_deps_judge (DROVER_AFTER_OK, DROVER_TASK_CANCELLED), -1);
    assert_int_equal (drover_deps_judge (DROVER_AFTER_ANY, DROVER_TASK_FAILED), 1);
    assert_int_equal (drover_deps_judge (DROVER_AFTER_ANY, DROVER_TASK_SUCCEEDED), 1);
    assert_int_equal (drover_deps_judge (DROVER_AFTER_FAIL, DROVER_TASK_SUCCEEDED), -1);
    assert_int_equal (drover_deps_judge (DROVER_AFTER_FAIL, DROVER_TASK_CANCELLED), 1);
    assert_int_equal (drover_deps_judge (DROVER_AFTER_ANY, DROVER_TASK_UNKNOWN), -1);
}

//  A child waits for every parent; the last end releases it, a failing
//  end dooms it at once; an ended parent counts at add
static void
test_deps_release_and_doom (void **state)
{
    (void) state;
    memset (s_states, 0, sizeof s_states);
    s_told [0] = 0;
    drover_deps_t *deps = drover_deps_new ();
    drover_after_t both [] = { { DROVER_AFTER_OK, 1 }, { DROVER_AFTER_OK, 2 } };
    uint64_t blame;
    int blame_state;
    assert_int_equal (drover_deps_add (deps, 10, both, 2, s_state, NULL, &blame, &blame_state),
                      DROVER_DEPS_WAITS);
    drover_after_t fail [] = { { DROVER_AFTER_FAIL, 1 } };
    assert_int_equal (drover_deps_add (deps, 11, fail, 1, s_state, NULL, &blame, &blame_state),
                      DROVER_DEPS_WAITS);
    assert_int_equal (drover_deps_waiting (deps), 2);
    s_states [1] = DROVER_TASK_SUCCEEDED;
    drover_deps_ended (deps, 1, DROVER_TASK_SUCCEEDED, s_tell, NULL);
    assert_string_equal (s_told, "11:doomed/1 ");       //  10 still waits for 2
    assert_true (drover_deps_waits (deps, 10));
    s_states [2] = DROVER_TASK_SUCCEEDED;
    drover_deps_ended (deps, 2, DROVER_TASK_SUCCEEDED, s_tell, NULL);
    assert_string_equal (s_told, "11:doomed/1 10:released/2 ");
    assert_int_equal (drover_deps_waiting (deps), 0);
    //  Parents that ended already: released or doomed at add
    assert_int_equal (drover_deps_add (deps, 12, both, 2, s_state, NULL, &blame, &blame_state),
                      DROVER_DEPS_RELEASED);
    s_states [3] = DROVER_TASK_FAILED;
    drover_after_t failed [] = { { DROVER_AFTER_OK, 2 }, { DROVER_AFTER_OK, 3 } };
    assert_int_equal (drover_deps_add (deps, 13, failed, 2, s_state, NULL, &blame, &blame_state),
                      DROVER_DEPS_DOOMED);
    assert_int_equal (blame, 3);
    assert_int_equal (blame_state, DROVER_TASK_FAILED);
    //  Parents and children stay listed for TASK SHOW until forgotten
    size_t count;
    const drover_after_t *parents = drover_deps_parents (deps, 10, &count);
    assert_int_equal (count, 2);
    assert_int_equal (parents [1].task, 2);
    uint64_t children [4];
    assert_int_equal (drover_deps_children (deps, 1, children, 4), 3);
    assert_int_equal (children [0], 10);
    assert_int_equal (children [1], 11);
    assert_int_equal (children [2], 12);
    drover_deps_forget (deps, 1);
    assert_int_equal (drover_deps_children (deps, 1, children, 4), 0);
    drover_deps_forget (deps, 10);
    assert_null (drover_deps_parents (deps, 10, &count));
    drover_deps_destroy (&deps);
    drover_deps_destroy (&deps);
}

//  A parent listed twice counts twice; a forgotten child is not told
static void
test_deps_twice_and_forgotten (void **state)
{
    (void) state;
    memset (s_states, 0, sizeof s_states);
    s_told [0] = 0;
    drover_deps_t *deps = drover_deps_new ();
    drover_after_t twice [] = { { DROVER_AFTER_OK, 1 }, { DROVER_AFTER_ANY, 1 } };
    uint64_t blame;
    int blame_state;
    drover_deps_add (deps, 20, twice, 2, s_state, NULL, &blame, &blame_state);
    drover_deps_add (deps, 21, twice, 2, s_state, NULL, &blame, &blame_state);
    drover_deps_forget (deps, 21);
    drover_deps_ended (deps, 1, DROVER_TASK_SUCCEEDED, s_tell, NULL);
    assert_string_equal (s_told, "20:released/1 ");
    drover_deps_destroy (&deps);
}

//  Timed holds come out by due time, once; one removed or re-held early
//  leaves nothing behind; untimed holds never come out by time
static void
test_waiting_by_due_time (void **state)
{
    (void) state;
    drover_waiting_t *waiting = drover_waiting_new ();
    drover_waiting_add (waiting, 5, DROVER_WAITS_BEGIN, 5000);
    drover_waiting_add (waiting, 6, DROVER_WAITS_RETRY, 2000);
    drover_waiting_add (waiting, 7, DROVER_WAITS_BEGIN, 3000);
    drover_waiting_add (waiting, 8, DROVER_WAITS_AFTER, 0);
    drover_waiting_add (waiting, 9, DROVER_WAITS_BEGIN, 1000);
    assert_int_equal (drover_waiting_count (waiting, DROVER_WAITS_BEGIN), 3);
    assert_int_equal (drover_waiting_remove (waiting, 9), DROVER_WAITS_BEGIN);
    drover_waiting_add (waiting, 7, DROVER_WAITS_BEGIN, 6000);     //  moved later
    assert_int_equal (drover_waiting_next_due (waiting), 2000);
    assert_int_equal (drover_waiting_take_due (waiting, 1999), 0);
    assert_int_equal (drover_waiting_take_due (waiting, 5000), 6);
    assert_int_equal (drover_waiting_take_due (waiting, 5000), 5);
    assert_int_equal (drover_waiting_take_due (waiting, 5000), 0);
    int64_t due;
    assert_int_equal (drover_waiting_cause (waiting, 7, &due), DROVER_WAITS_BEGIN);
    assert_int_equal (due, 6000);
    assert_int_equal (drover_waiting_take_due (waiting, 1000000), 7);
    assert_int_equal (drover_waiting_next_due (waiting), 0);
    assert_int_equal (drover_waiting_cause (waiting, 8, NULL), DROVER_WAITS_AFTER);
    assert_int_equal (drover_waiting_count (waiting, DROVER_WAITS_BEGIN), 0);
    assert_int_equal (drover_waiting_count (waiting, DROVER_WAITS_AFTER), 1);
    drover_waiting_destroy (&waiting);
}

//  A member is found by id; an array makes no more than its limit live;
//  a workflow's array step's elements belong to the step, the step to it
static void
test_groups_ranges_and_room (void **state)
{
    (void) state;
    drover_groups_t *groups = drover_groups_new ();
    drover_array_spec_t spec = { 10, 5, 100, 3 };
    drover_group_t *array = drover_groups_add (groups, 1, 100, 100, &spec);
    assert_ptr_equal (drover_groups_of (groups, 2), array);
    assert_ptr_equal (drover_groups_of (groups, 101), array);
    assert_null (drover_groups_of (groups, 102));
    assert_null (drover_groups_of (groups, 1));
    assert_int_equal (drover_groups_index (array, 2), 10);
    assert_int_equal (drover_groups_index (array, 4), 20);
    assert_int_equal (drover_groups_room (array), 0);           //  not started
    array->started = true;
    assert_int_equal (drover_groups_room (array), 3);
    array->made = array->live = 3;
    assert_int_equal (drover_groups_room (array), 0);
    assert_int_equal (drover_groups_unmade (groups), 97);
    //  A workflow 200: step 201, an array step 202 of 5 (203..207), step 208
    drover_group_t *workflow = drover_groups_add (groups, 200, 3, 8, NULL);
    drover_array_spec_t small = { 0, 1, 5, 0 };
    drover_group_t *step = drover_groups_add (groups, 202, 5, 5, &small);
    assert_ptr_equal (drover_groups_of (groups, 201), workflow);
    assert_ptr_equal (drover_groups_of (groups, 202), workflow);
    assert_ptr_equal (drover_groups_of (groups, 205), step);
    assert_ptr_equal (drover_groups_of (groups, 208), workflow);
    assert_null (drover_groups_of (groups, 209));
    assert_ptr_equal (drover_groups_lookup (groups, 202), step);
    step->ended [DROVER_TASK_SUCCEEDED] = 4;
    step->ended [DROVER_TASK_CANCELLED] = 1;
    assert_int_equal (drover_groups_ended (step), 5);
    assert_int_equal (drover_groups_outcome (step), DROVER_TASK_CANCELLED);
    step->ended [DROVER_TASK_FAILED] = 1;
    assert_int_equal (drover_groups_outcome (step), DROVER_TASK_FAILED);
    drover_groups_remove (groups, 202);
    assert_ptr_equal (drover_groups_of (groups, 205), workflow);
    drover_groups_destroy (&groups);
}

//  The backoff doubles from the delay up to its cap; each retry's wait
//  is jittered within 20% of it, the same for the same seed
static void
test_retry_backoff (void **state)
{
    (void) state;
    assert_int_equal (drover_flow_backoff (10000, 60000, 1), 10000);
    assert_int_equal (drover_flow_backoff (10000, 60000, 2), 20000);
    assert_int_equal (drover_flow_backoff (10000, 60000, 3), 40000);
    assert_int_equal (drover_flow_backoff (10000, 60000, 4), 60000);
    assert_int_equal (drover_flow_backoff (10000, 0, 30), DROVER_RETRY_MAX_DELAY);
    int64_t first [5], second [5];
    for (int run = 0; run < 2; run++) {
        drover_flow_t *flow = drover_flow_new (42);
        drover_msg_t *submit = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
        submit->retries = 5;
        submit->retry_delay = 1000;
        submit->retry_max_delay = 8000;
        uint64_t blame;
        int blame_state;
        assert_int_equal (drover_flow_submitted (flow, 7, submit, 0, s_state, NULL, &blame,
                                                 &blame_state), DROVER_FLOW_QUEUE);
        for (uint32_t retry = 1; retry <= 5; retry++) {
            int64_t due;
            assert_int_equal (drover_flow_retry (flow, 7, retry, 100000, &due), DROVER_FLOW_HOLD);
            uint32_t wait = drover_flow_backoff (1000, 8000, retry);
            assert_true (due - 100000 >= wait * 8 / 10);
            assert_true (due - 100000 <= wait * 12 / 10);
            (run? second: first) [retry - 1] = due;
            assert_int_equal (drover_waiting_take_due (drover_flow_waiting (flow), due), 7);
        }
        //  A task without a delay retries at once
        int64_t due;
        assert_int_equal (drover_flow_retry (flow, 8, 1, 0, &due), DROVER_FLOW_QUEUE);
        drover_msg_destroy (&submit);
        drover_flow_destroy (&flow);
    }
    assert_memory_equal (first, second, sizeof first);
    assert_true (first [0] != first [1] - 1000);        //  jittered, not exact
}

//  A begin time holds a task until then, after its parents if it has any
static void
test_begin_after_parents (void **state)
{
    (void) state;
    memset (s_states, 0, sizeof s_states);
    drover_flow_t *flow = drover_flow_new (1);
    drover_msg_t *submit = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    submit->begin = 50000;
    uint64_t blame;
    int blame_state;
    assert_int_equal (drover_flow_submitted (flow, 9, submit, 1000, s_state, NULL, &blame,
                                             &blame_state), DROVER_FLOW_HOLD);
    assert_int_equal (drover_waiting_cause (drover_flow_waiting (flow), 9, NULL),
                      DROVER_WAITS_BEGIN);
    submit->after = (drover_after_t *) zmalloc (sizeof (drover_after_t));
    submit->after [0] = (drover_after_t) { DROVER_AFTER_OK, 1 };
    submit->nafter = 1;
    assert_int_equal (drover_flow_submitted (flow, 10, submit, 1000, s_state, NULL, &blame,
                                             &blame_state), DROVER_FLOW_HOLD);
    assert_int_equal (drover_waiting_cause (drover_flow_waiting (flow), 10, NULL),
                      DROVER_WAITS_AFTER);
    //  Released by its parent before its begin time: held for it
    assert_int_equal (drover_flow_released (flow, 10, 2000), DROVER_FLOW_HOLD);
    assert_int_equal (drover_waiting_cause (drover_flow_waiting (flow), 10, NULL),
                      DROVER_WAITS_BEGIN);
    //  ...after it: queued
    assert_int_equal (drover_flow_released (flow, 10, 60000), DROVER_FLOW_QUEUE);
    assert_int_equal (drover_flow_begin (flow, 10, NULL, NULL), 50000);
    drover_flow_forget (flow, 10);
    assert_int_equal (drover_flow_begin (flow, 10, NULL, NULL), 0);
    drover_msg_destroy (&submit);
    drover_flow_destroy (&flow);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_kinds_judge_states),
        cmocka_unit_test (test_deps_release_and_doom),
        cmocka_unit_test (test_deps_twice_and_forgotten),
        cmocka_unit_test (test_waiting_by_due_time),
        cmocka_unit_test (test_groups_ranges_and_room),
        cmocka_unit_test (test_retry_backoff),
        cmocka_unit_test (test_begin_after_parents),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
