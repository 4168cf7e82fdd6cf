/*  =========================================================================
    test_drover_store_formats - what each format of the store's SQLite
    state keeps (owners, task times and attempts, services, slots and
    affinity keys), and states written by older formats upgraded at open
    =========================================================================
*/

#include "testutil_statedir.h"
#include "testutil_backend.h"

//  A task's owner is kept; a state written before owners existed (format
//  1, no owner column) is upgraded at open, its tasks owned by nobody
static void
test_owner_kept_and_format_1_upgraded (void **state)
{
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
    char text [DROVER_STORE_ERROR_MAX];
    testutil_statedir_make (dirs, 1);
    //  Make it a format 1 state: no owner column
    drover_store_t *backend =
        testutil_statedir_open_after_sql (dirs, "ALTER TABLE tasks DROP COLUMN owner;"
                                          TESTUTIL_DROP_COLUMNS_3
                                          "UPDATE meta SET value = 'drover-state 1'"
                                          " WHERE name = 'format'");
    drover_change_t *owned = testutil_queued (2, 2, NULL);
    strcpy (owned->submit->principal, "alice");
    drover_change_t *second [] = { owned };
    assert_int_equal (testutil_apply (backend, second, 1, text), 0);
    drover_store_destroy (&backend);

    backend = testutil_statedir_open (dirs);
    testutil_loaded_t loaded = { .count = 0 };
    assert_int_equal (testutil_load (backend, 10, &loaded), 2);
    assert_string_equal (loaded.changes [0]->submit->principal, "");
    assert_string_equal (loaded.changes [1]->submit->principal, "alice");
    testutil_loaded_free (&loaded);
    drover_store_destroy (&backend);
    testutil_assert_and_free (testutil_statedir_format (dirs->file), "drover-state 7");
}

//  A final change with times, a RESULT outcome and past attempts
static drover_change_t *
s_final_with_history (uint64_t task, uint64_t seq)
{
    drover_change_t *change = testutil_final (task, seq, DROVER_TASK_FAILED, DROVER_END_FAILED, 3,
                                              "x");
    change->done->outcome = DROVER_OUTCOME_EXITED;
    change->queued_at = 1795000000000;
    change->offered_at = 1795000001000;
    change->started_at = 1795000001100;
    change->ended_at = 1795000002000;
    drover_attempt_t attempts [2] = {
        { .attempt = 1, .worker = "w1", .offered_at = 1795000000100, .started_at = 1795000000200,
          .ended_at = 1795000000300, .outcome = DROVER_OUTCOME_EXITED, .requeued = true,
          .exit_code = 3, .reason = "exit 3" },
        { .attempt = 2, .worker = "w2", .offered_at = 1795000000400, .ended_at = 1795000000900,
          .outcome = DROVER_ATTEMPT_NO_RESULT, .requeued = true, .exit_code = -1,
          .reason = "worker lost: heartbeats stopped" },
    };
    change->history = drover_taskinfo_encode_attempts (attempts, 2, 5, &change->history_size);
    return change;
}

//  Check what s_final_with_history kept came back
static void
s_assert_history (drover_change_t *change)
{
    assert_true (change->queued_at > 0);
    assert_int_equal (change->offered_at, 1795000001000);
    assert_int_equal (change->started_at, 1795000001100);
    assert_int_equal (change->ended_at, 1795000002000);
    assert_int_equal (change->done->outcome, DROVER_OUTCOME_EXITED);
    drover_attempt_t attempts [DROVER_ATTEMPTS_MAX];
    uint32_t dropped = 0;
    assert_int_equal (drover_taskinfo_decode_attempts (change->history, change->history_size,
                                                       attempts, &dropped), 2);
    assert_int_equal (dropped, 5);
    assert_int_equal (attempts [0].attempt, 1);
    assert_string_equal (attempts [0].worker, "w1");
    assert_int_equal (attempts [0].exit_code, 3);
    assert_int_equal (attempts [1].ended_at, 1795000000900);
    assert_string_equal (attempts [1].reason, "worker lost: heartbeats stopped");
    assert_true (attempts [1].requeued);
}

//  Format 4 keeps a replica's service and slot and a task's affinity key;
//  a state written before them (format 3) is upgraded at open, its tasks
//  load with neither
static void
test_services_and_affinity_kept_and_format_3_upgraded (void **state)
{
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_t *backend = testutil_statedir_open (dirs);
    drover_change_t *first [] = { testutil_queued (1, 1, NULL), testutil_queued (2, 2, NULL) };
    strcpy (first [0]->submit->service, "web");
    first [0]->submit->slot = 3;
    first [1]->submit->affinity = strdup ("dataset-7");
    assert_int_equal (testutil_apply (backend, first, 2, text), 0);
    drover_store_destroy (&backend);

    backend = testutil_statedir_open (dirs);
    testutil_loaded_t loaded = { .count = 0 };
    assert_int_equal (testutil_load (backend, 10, &loaded), 2);
    assert_string_equal (loaded.changes [0]->submit->service, "web");
    assert_int_equal (loaded.changes [0]->submit->slot, 3);
    assert_null (loaded.changes [0]->submit->affinity);
    assert_string_equal (loaded.changes [1]->submit->service, "");
    assert_string_equal (loaded.changes [1]->submit->affinity, "dataset-7");
    testutil_loaded_free (&loaded);
    drover_store_destroy (&backend);

    backend = testutil_statedir_open_after_sql (dirs, TESTUTIL_DROP_COLUMNS_4
                                                "UPDATE meta SET value = 'drover-state 3'"
                                                " WHERE name = 'format'");
    assert_int_equal (testutil_load (backend, 10, &loaded), 2);
    assert_string_equal (loaded.changes [0]->submit->service, "");
    assert_null (loaded.changes [1]->submit->affinity);
    testutil_loaded_free (&loaded);
    drover_store_destroy (&backend);
    testutil_assert_and_free (testutil_statedir_format (dirs->file), "drover-state 7");
}

//  Format 3 keeps a task's times, its last RESULT outcome and its past
//  attempts; a task without them keeps none (NULL outcome, no history)
static void
test_times_and_attempts_round_trip (void **state)
{
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_t *backend = testutil_statedir_open (dirs);
    drover_change_t *first [] = { testutil_queued (1, 1, NULL), testutil_queued (2, 2, NULL) };
    first [0]->queued_at = 1794000000000;
    assert_int_equal (testutil_apply (backend, first, 2, text), 0);
    drover_change_t *second [] = { s_final_with_history (1, 3) };
    assert_int_equal (testutil_apply (backend, second, 1, text), 0);
    drover_store_destroy (&backend);

    backend = testutil_statedir_open (dirs);
    testutil_loaded_t loaded = { .count = 0 };
    assert_int_equal (testutil_load (backend, 10, &loaded), 2);
    s_assert_history (loaded.changes [0]);
    assert_int_equal (loaded.changes [0]->queued_at, 1794000000000);
    assert_null (loaded.changes [1]->history);
    assert_int_equal (loaded.changes [1]->started_at, 0);
    testutil_loaded_free (&loaded);
    drover_store_destroy (&backend);
}

//  A state written before task times and attempts (format 2) is upgraded
//  at open: its tasks load with none, and take them from then on
static void
test_format_2_upgraded (void **state)
{
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
    char text [DROVER_STORE_ERROR_MAX];
    testutil_statedir_make (dirs, 2);
    drover_store_t *backend =
        testutil_statedir_open_after_sql (dirs, TESTUTIL_DROP_COLUMNS_3
                                          "UPDATE meta SET value = 'drover-state 2'"
                                          " WHERE name = 'format'");
    testutil_loaded_t loaded = { .count = 0 };
    assert_int_equal (testutil_load (backend, 10, &loaded), 2);
    assert_int_equal (loaded.changes [0]->offered_at, 0);
    assert_null (loaded.changes [0]->history);
    testutil_assert_submit (loaded.changes [1], 2, NULL);
    testutil_loaded_free (&loaded);
    drover_change_t *later [] = { s_final_with_history (1, 3) };
    assert_int_equal (testutil_apply (backend, later, 1, text), 0);
    drover_store_destroy (&backend);

    backend = testutil_statedir_open (dirs);
    assert_int_equal (testutil_load (backend, 10, &loaded), 2);
    s_assert_history (loaded.changes [0]);
    testutil_loaded_free (&loaded);
    drover_store_destroy (&backend);
    testutil_assert_and_free (testutil_statedir_format (dirs->file), "drover-state 7");
}

//  A state made before worker settings were kept (no worker_admin table)
//  opens as it was: its tasks load, the table is made, the format stays
static void
test_state_without_admin_table_opens (void **state)
{
    testutil_statedir_t *dirs = (testutil_statedir_t *) *state;
    char text [DROVER_STORE_ERROR_MAX];
    testutil_statedir_make (dirs, 1);
    char *format = testutil_statedir_format (dirs->file);
    drover_store_t *backend = testutil_statedir_open_after_sql (dirs, "DROP TABLE worker_admin");
    testutil_loaded_t loaded = { .count = 0 };
    assert_int_equal (testutil_load (backend, 10, &loaded), 1);
    testutil_loaded_free (&loaded);
    testutil_admins_t admins = { .count = 0 };
    assert_int_equal (drover_store_load_admin (backend, testutil_take_admin, &admins, text,
                                                 sizeof text), 0);
    drover_store_admin_t held = { .worker = "w", .admin = DROVER_ADMIN_HOLD, .reason = "r" };
    assert_int_equal (drover_store_save_admin (backend, &held, text, sizeof text), 0);
    drover_store_destroy (&backend);
    char *after = testutil_statedir_format (dirs->file);
    assert_string_equal (after, format);                    //  no format change for it
    free (after);
    free (format);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_state_without_admin_table_opens,
                                         testutil_statedir_setup,
                                         testutil_statedir_teardown),
        cmocka_unit_test_setup_teardown (test_times_and_attempts_round_trip,
                                         testutil_statedir_setup,
                                         testutil_statedir_teardown),
        cmocka_unit_test_setup_teardown (test_format_2_upgraded, testutil_statedir_setup,
                                         testutil_statedir_teardown),
        cmocka_unit_test_setup_teardown (test_services_and_affinity_kept_and_format_3_upgraded,
                                         testutil_statedir_setup, testutil_statedir_teardown),
        cmocka_unit_test_setup_teardown (test_owner_kept_and_format_1_upgraded,
                                         testutil_statedir_setup,
                                         testutil_statedir_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
