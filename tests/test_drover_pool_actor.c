/*  =========================================================================
    test_drover_pool_actor - the pool actor through its pipe (the test
    plays the main and schedq), with the command driver and the test
    driver script (tests/pool/test-driver.sh): a driver that cannot be
    made is said at CONFIGURE; load creates instances (events, the
    driver's calls), a registration is told, a retire goes to schedq and
    RETIRED destroys; a hanging driver does not stop the actor answering
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_actor.h"
#include "drover_pool_actor.h"
#include "drover_loadreport.h"
#include "drover_config.h"
#include "drover_event.h"

#define S_DRIVER    DROVER_SOURCE_DIR "/tests/pool/test-driver.sh"

static char s_dir [64];         //  the test driver's directory

//  Start the actor and configure it with a command driver of program;
//  returns STARTED's ok and text (caller frees)
static zactor_t *
s_start (const char *program, const char *settings [], uint32_t *ok_p, char **text_p)
{
    zactor_t *actor = zactor_new (drover_pool_actor, NULL);
    assert_non_null (actor);
    drover_config_t *config = drover_config_new ();
    char *error = NULL;
    assert_int_equal (drover_config_set (config, "pool/driver", "command", &error), 0);
    assert_int_equal (drover_config_set (config, "pool/command", program, &error), 0);
    assert_int_equal (drover_config_set (config, "pool/type/small/procs", "2", &error), 0);
    for (size_t index = 0; settings && settings [index]; index++)
        assert_int_equal (drover_config_set_assignment (config, settings [index], &error), 0);
    zsock_send (actor, "spss", "CONFIGURE", drover_poolconfig_dup (&config->pool),
                "tcp://127.0.0.1:1", "");
    drover_config_destroy (&config);
    char *word = NULL;
    assert_int_equal (zsock_recv (actor, "s4s", &word, ok_p, text_p), 0);
    assert_string_equal (word, "STARTED");
    zstr_free (&word);
    return actor;
}

//  Say LOAD: count tasks of procs waiting, and the workers given
static void
s_load (zactor_t *actor, uint32_t procs, uint32_t count, const char *worker, uint32_t tasks)
{
    drover_loadreport_t *report = drover_loadreport_new ();
    if (count)
        drover_loadreport_add_demand (report, procs, 0, "", "", count);
    if (worker)
        drover_loadreport_add_worker (report, worker, tasks, tasks * procs, 0, 0);
    zframe_t *frame = drover_loadreport_encode (report);
    zsock_send (actor, "sf", "LOAD", frame);
    zframe_destroy (&frame);
    drover_loadreport_destroy (&report);
}

//  Wait for the event topic (skipping other events); fill event
static void
s_expect_event (zactor_t *actor, const char *topic, drover_event_t *event)
{
    int64_t deadline = zclock_mono () + 5000;
    while (zclock_mono () < deadline) {
        zmsg_t *msg = testutil_actor_recv (actor, (int) (deadline - zclock_mono ()));
        if (!msg)
            break;
        char *word = zmsg_popstr (msg);
        bool found = false;
        if (streq (word, "EVENT")) {
            char *said = zmsg_popstr (msg);
            zframe_t *body = zmsg_pop (msg);
            assert_int_equal (drover_event_decode (event, zframe_data (body),
                                                   zframe_size (body)), 0);
            found = streq (said, topic);
            zstr_free (&said);
            zframe_destroy (&body);
        }
        else
            fail_msg ("expected EVENT %s, got %s", topic, word);
        zstr_free (&word);
        zmsg_destroy (&msg);
        if (found)
            return;
    }
    fail_msg ("no EVENT %s within 5 s", topic);
}

//  Wait for the command word, skipping events; returns the rest
static zmsg_t *
s_expect_past_events (zactor_t *actor, const char *command)
{
    int64_t deadline = zclock_mono () + 5000;
    while (zclock_mono () < deadline) {
        zmsg_t *msg = testutil_actor_recv (actor, (int) (deadline - zclock_mono ()));
        if (!msg)
            break;
        char *word = zmsg_popstr (msg);
        if (streq (word, command)) {
            zstr_free (&word);
            return msg;
        }
        if (!streq (word, "EVENT"))
            fail_msg ("expected %s, got %s", command, word);
        zstr_free (&word);
        zmsg_destroy (&msg);
    }
    fail_msg ("no %s within 5 s", command);
    return NULL;
}

//  Count the lines of the driver's calls starting with prefix
static int
s_calls (const char *prefix)
{
    char path [128];
    snprintf (path, sizeof path, "%s/calls", s_dir);
    return testutil_count_lines_with (path, prefix);
}

static int
s_setup (void **state)
{
    snprintf (s_dir, sizeof s_dir, "/tmp/drover-poolactor-XXXXXX");
    assert_non_null (mkdtemp (s_dir));
    setenv ("DROVER_TEST_DIR", s_dir, 1);
    return 0;
}

static int
s_teardown (void **state)
{
    testutil_remove_tree (s_dir);
    return 0;
}

//  A driver that cannot be made: STARTED 0 with the reason
static void
test_driver_that_cannot_be_made_is_said (void **state)
{
    uint32_t ok = 1;
    char *text = NULL;
    zactor_t *actor = s_start ("/nonexistent/driver", NULL, &ok, &text);
    assert_int_equal (ok, 0);
    assert_non_null (strstr (text, "/nonexistent/driver"));
    zstr_free (&text);
    testutil_actor_destroy (&actor);
}

//  Load makes creates (after the first list), each a pool.booting event;
//  a registration is pool.up; an idle timeout retires through schedq,
//  and RETIRED destroys it
static void
test_load_creates_registers_retires (void **state)
{
    const char *settings [] = { "pool/idle-timeout=300", "pool/max-instances=2", NULL };
    uint32_t ok = 0;
    char *text = NULL;
    zactor_t *actor = s_start (S_DRIVER, settings, &ok, &text);
    assert_int_equal (ok, 1);
    zstr_free (&text);
    s_load (actor, 2, 5, NULL, 0);
    drover_event_t first, second;
    s_expect_event (actor, "pool.booting", &first);
    s_expect_event (actor, "pool.booting", &second);
    assert_non_null (strstr (first.worker, "POOL-"));
    assert_string_equal (first.reason, "small: created");
    assert_true (s_calls ("list") >= 1);

    //  POOL LIST: both instances, booting
    drover_msg_t *list = drover_msg_new (DROVER_MSG_POOL_LIST);
    list->seq = 5;
    testutil_hand (actor, "client", list);
    drover_msg_t *table = testutil_expect_send (actor, "client", "");
    assert_int_equal (table->id, DROVER_MSG_POOL_TABLE);
    assert_int_equal (table->seq, 5);
    assert_int_equal (table->pool.enabled, 1);
    assert_int_equal (table->nrows, 2);
    drover_msg_destroy (&table);
    //  max-instances 2: no third even after another load
    s_load (actor, 2, 5, NULL, 0);
    zframe_t *route = zframe_new ("r", 1);
    zframe_t *running = zframe_new_empty ();
    zsock_send (actor, "ssf848sf", "UP", first.worker, route, (uint64_t) 1, 2, (uint64_t) 0, "",
                running);
    zframe_destroy (&running);
    zframe_destroy (&route);
    drover_event_t up;
    s_expect_event (actor, "pool.up", &up);
    assert_string_equal (up.worker, first.worker);
    char calls [128];
    snprintf (calls, sizeof calls, "%s/calls", s_dir);
    assert_true (testutil_await_line (calls, first.worker, 5000));
    assert_true (testutil_await_line (calls, second.worker, 5000));
    assert_int_equal (s_calls ("create small"), 2);

    //  Idle (nothing waits, it runs nothing): retired through schedq
    s_load (actor, 2, 0, first.worker, 0);
    zmsg_t *retire = s_expect_past_events (actor, "RETIRE");
    testutil_pop_check (retire, first.worker);
    zmsg_destroy (&retire);
    zsock_send (actor, "ss", "RETIRED", first.worker);
    drover_event_t gone;
    s_expect_event (actor, "pool.gone", &gone);
    assert_string_equal (gone.worker, first.worker);
    char destroy [128];
    snprintf (destroy, sizeof destroy, "destroy %s", first.worker);
    assert_true (s_calls (destroy) >= 1);
    testutil_actor_destroy (&actor);
}

//  A create that hangs does not stop the actor: METRICS is answered
static void
test_hanging_driver_does_not_block (void **state)
{
    char cue [128];
    snprintf (cue, sizeof cue, "%s/create.cue", s_dir);
    FILE *file = fopen (cue, "w");
    assert_non_null (file);
    fprintf (file, "hang\n");
    fclose (file);
    uint32_t ok = 0;
    char *text = NULL;
    zactor_t *actor = s_start (S_DRIVER, NULL, &ok, &text);
    zstr_free (&text);
    s_load (actor, 2, 1, NULL, 0);
    drover_event_t booting;
    s_expect_event (actor, "pool.booting", &booting);
    char hang [128];
    snprintf (hang, sizeof hang, "%s/hang.pid", s_dir);
    assert_true (testutil_await_line (hang, "", 5000));
    int64_t asked = zclock_mono ();
    zsock_send (actor, "s8", "METRICS", (uint64_t) 7);
    zmsg_t *counts = s_expect_past_events (actor, "COUNTS");
    assert_true (zclock_mono () - asked < 1000);
    testutil_pop_check (counts, "7");
    zmsg_destroy (&counts);
    testutil_actor_destroy (&actor);
    char *pid = testutil_slurp (hang);
    assert_non_null (pid);
    kill ((pid_t) atoi (pid), SIGKILL);
    free (pid);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_driver_that_cannot_be_made_is_said, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_load_creates_registers_retires, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_hanging_driver_does_not_block, s_setup, s_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
