/*  =========================================================================
    test_drover_client_levels - the client holds back what a broker's
    level does not know

    Against a fake broker (testutil_clientbroker) whose CLIENT WELCOME
    says level 2, or that says none (a broker before levels): a submit
    with any level-3 field (after, begin, retry delay, array), a workflow
    and a group's TASK LIST are refused here with a text that says why,
    and nothing of them reaches the broker; a plain submit still goes. A
    broker of level 3 gets the submit. The level is learnt once per
    connection (one WORKER LIST when no WELCOME came before it).
    =========================================================================
*/

#include "testutil_clientbroker.h"

//  Behaviour: an empty WORKER TABLE to WORKER LIST, every submit accepted
static void
s_answer (testutil_clientbroker_t *fake, zframe_t *route, drover_msg_t *msg)
{
    if (msg->id == DROVER_MSG_WORKER_LIST)
        testutil_clientbroker_reply (fake, route, msg, DROVER_MSG_WORKER_TABLE);
    else
    if (msg->id == DROVER_MSG_TASK_SUBMIT)
        testutil_clientbroker_accept (fake, route, msg, 500 + msg->seq);
}

//  Make a submit running "true"
static drover_submit_t *
s_submit (void)
{
    const char *argv [] = { "true" };
    drover_submit_t *submit = drover_submit_new (1, argv);
    assert_non_null (submit);
    return submit;
}

//  Submit one with a level-3 field set by which; expect a refusal naming field
static void
s_expect_refused (drover_client_t *client, int which, int level, const char *field)
{
    drover_submit_t *submit = s_submit ();
    if (which == 0)
        assert_int_equal (drover_submit_add_after (submit, DROVER_AFTER_ANY, 12), 0);
    else
    if (which == 1)
        drover_submit_set_begin (submit, (uint64_t) zclock_time () + 60000);
    else
    if (which == 2)
        drover_submit_set_retry_delay (submit, 1000, 0);
    else
        assert_int_equal (drover_submit_set_array (submit, 0, 1, 10, 2), 0);
    uint64_t task = 0;
    assert_int_equal (drover_client_submit (client, submit, &task), -1);
    assert_int_equal (drover_client_error_code (client), DROVER_CLIENT_ERR_INVALID);
    char expected [128];
    snprintf (expected, sizeof expected, "the broker speaks level %d; %s needs level 3",
              level, field);
    assert_string_equal (drover_client_error_text (client), expected);
    //  Async too: refused before it takes a slot
    assert_int_equal (drover_client_submit_async (client, submit, 7), 0);
    assert_int_equal (drover_client_outstanding (client), 0);
    drover_submit_destroy (&submit);
}

//  Run the refusals against a fake of level (-1: it says none)
static void
s_refusals (int level)
{
    testutil_clientbroker_t fake;
    char endpoint [64];
    zactor_t *actor = testutil_clientbroker_start (&fake, s_answer, endpoint);
    fake.level = level;                 //  before any client connects
    drover_client_t *client = drover_client_new (endpoint);
    drover_client_set_timeout (client, 2000);
    int said = level < 0? 1: level;
    s_expect_refused (client, 0, said, "--after-any");
    s_expect_refused (client, 1, said, "--begin");
    s_expect_refused (client, 2, said, "--retry-delay");
    s_expect_refused (client, 3, said, "--array");
    assert_int_equal (drover_client_broker_level (client), said);

    //  A workflow, and a group's members
    drover_workflow_t *workflow = drover_workflow_new ("flow");
    drover_submit_t *submit = s_submit ();
    assert_int_equal (drover_workflow_add (workflow, "one", &submit), 1);
    uint64_t id = 0, ids [1] = { 0 };
    assert_int_equal (drover_client_submit_workflow (client, workflow, &id, ids), -1);
    assert_non_null (strstr (drover_client_error_text (client), "a workflow needs level 3"));
    assert_int_equal (id, 0);
    drover_workflow_destroy (&workflow);
    assert_null (drover_client_group_table (client, 40, 255, 10));
    assert_non_null (strstr (drover_client_error_text (client), "needs level 3"));

    //  A plain submit goes
    submit = s_submit ();
    uint64_t task = 0;
    assert_int_equal (drover_client_submit (client, submit, &task), 0);
    assert_int_equal (task, 500 + drover_submit_msg (submit)->seq);
    drover_submit_destroy (&submit);
    drover_client_destroy (&client);
    zactor_destroy (&actor);
    assert_int_equal (fake.requests [DROVER_MSG_TASK_SUBMIT], 1);
    assert_int_equal (fake.requests [DROVER_MSG_WORKFLOW_SUBMIT], 0);
    assert_int_equal (fake.requests [DROVER_MSG_TASK_LIST], 0);
    assert_int_equal (fake.requests [DROVER_MSG_WORKER_LIST], 1);   //  learnt once
}

//  A level-2 broker gets none of level 3
static void
test_level2_refused (void **state)
{
    s_refusals (2);
}

//  A broker before levels (no WELCOME) is of level 1, and gets none either
static void
test_level1_refused (void **state)
{
    s_refusals (-1);
}

//  A level-3 broker gets the submit; its level comes from the WELCOME
static void
test_level3_sent (void **state)
{
    testutil_clientbroker_t fake;
    char endpoint [64];
    zactor_t *actor = testutil_clientbroker_start (&fake, s_answer, endpoint);
    drover_client_t *client = drover_client_new (endpoint);
    drover_submit_t *submit = s_submit ();
    assert_int_equal (drover_submit_add_after (submit, DROVER_AFTER_OK, 12), 0);
    uint64_t task = 0;
    assert_int_equal (drover_client_submit (client, submit, &task), 0);
    assert_true (task > 500);
    assert_int_equal (drover_client_broker_level (client), DROVER_MSG_LEVEL);
    drover_submit_destroy (&submit);
    drover_client_destroy (&client);
    zactor_destroy (&actor);
    assert_int_equal (fake.requests [DROVER_MSG_TASK_SUBMIT], 1);
}

//  A level-3 broker gets none of level 4: devices, PREEMPTIBLE and the
//  share requests are refused here; a submit's owner is left out
static void
test_level3_no_level4 (void **state)
{
    testutil_clientbroker_t fake;
    char endpoint [64];
    zactor_t *actor = testutil_clientbroker_start (&fake, s_answer, endpoint);
    fake.level = 3;
    drover_client_t *client = drover_client_new (endpoint);
    drover_client_set_timeout (client, 2000);
    drover_submit_t *submit = s_submit ();
    assert_int_equal (drover_submit_add_device (submit, "gpu", 2), 0);
    uint64_t task = 0;
    assert_int_equal (drover_client_submit (client, submit, &task), -1);
    assert_string_equal (drover_client_error_text (client),
                         "the broker speaks level 3; --device needs level 4");
    drover_submit_destroy (&submit);
    submit = s_submit ();
    drover_submit_set_preemptible (submit, true);
    assert_int_equal (drover_client_submit_async (client, submit, 7), 0);
    assert_string_equal (drover_client_error_text (client),
                         "the broker speaks level 3; --preemptible needs level 4");
    drover_submit_destroy (&submit);
    assert_null (drover_client_shares (client));
    assert_non_null (strstr (drover_client_error_text (client), "drover share needs level 4"));
    assert_int_equal (drover_client_share_drop (client, "team-a"), -1);
    //  The owner goes unsaid: the submit is accepted
    submit = s_submit ();
    assert_int_equal (drover_submit_set_owner (submit, "alice"), 0);
    assert_int_equal (drover_client_submit (client, submit, &task), 0);
    assert_string_equal (drover_submit_msg (submit)->owner, "");
    drover_submit_destroy (&submit);
    drover_client_destroy (&client);
    zactor_destroy (&actor);
    assert_int_equal (fake.requests [DROVER_MSG_TASK_SUBMIT], 1);
    assert_int_equal (fake.requests [DROVER_MSG_SHARE_LIST], 0);
    assert_int_equal (fake.requests [DROVER_MSG_SHARE_ADMIN], 0);
}

//  The submit's level-4 setters check what they are given
static void
test_submit_setters (void **state)
{
    drover_submit_t *submit = s_submit ();
    drover_msg_t *msg = drover_submit_msg (submit);
    assert_int_equal (drover_submit_set_owner (submit, "al ice"), -1);
    assert_int_equal (drover_submit_set_owner (submit, "alice"), 0);
    assert_string_equal (msg->owner, "alice");
    assert_int_equal (drover_submit_set_owner (submit, NULL), 0);
    assert_string_equal (msg->owner, "");
    assert_int_equal (drover_submit_add_device (submit, "GPU", 1), -1);
    assert_int_equal (drover_submit_add_device (submit, "gpu", 0), -1);
    assert_int_equal (drover_submit_add_device (submit, "gpu", 1000001), -1);
    assert_int_equal (drover_submit_add_device (submit, "gpu", 2), 0);
    assert_int_equal (drover_submit_add_device (submit, "fpga", 1), 0);
    assert_int_equal (drover_submit_add_device (submit, "gpu", 3), 0);
    assert_int_equal (msg->ndevices, 2);
    assert_string_equal (msg->devices [0].name, "fpga");
    assert_int_equal (msg->devices [1].count, 3);
    drover_submit_set_preemptible (submit, true);
    assert_true (msg->flags & DROVER_SUBMIT_PREEMPTIBLE);
    drover_submit_set_preemptible (submit, false);
    assert_false (msg->flags & DROVER_SUBMIT_PREEMPTIBLE);
    drover_submit_destroy (&submit);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_level2_refused),
        cmocka_unit_test (test_level1_refused),
        cmocka_unit_test (test_level3_sent),
        cmocka_unit_test (test_level3_no_level4),
        cmocka_unit_test (test_submit_setters),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
