/*  =========================================================================
    test_drover_queuespec - the named queues a broker offers (ha/queues)
    =========================================================================
*/

#include "testutil_proc.h"
#include "drover_queuespec.h"
#include <sys/wait.h>

//  Parse text and expect an error holding needle
static void
s_expect_refused (const char *text, const char *needle)
{
    char *error = NULL;
    drover_queuespec_t *spec = drover_queuespec_new (text, &error);
    assert_null (spec);
    assert_non_null (error);
    if (!strstr (error, needle))
        fail_msg ("'%s': error '%s' lacks '%s'", text, error, needle);
    zstr_free (&error);
}

//  A list parses to its queues in order, with the endpoints derived
static void
test_parses_and_derives (void **state)
{
    (void) state;
    char *error = NULL;
    drover_queuespec_t *spec = drover_queuespec_new ("a=6001,b.2-x_y=6010", &error);
    assert_non_null (spec);
    assert_null (error);
    assert_int_equal (drover_queuespec_size (spec), 2);
    assert_string_equal (drover_queuespec_name (spec, 1), "b.2-x_y");
    assert_int_equal (drover_queuespec_port (spec, 1), 6010);
    testutil_assert_and_free (drover_queuespec_endpoint ("tcp://10.0.0.2:5555", 6001),
                              "tcp://10.0.0.2:6001");
    testutil_assert_and_free (drover_queuespec_endpoint ("tcp://*:5555", 6001), "tcp://*:6001");
    assert_null (drover_queuespec_endpoint ("tcp://", 6001));
    testutil_assert_and_free (drover_queuespec_offer (spec, "tcp://h:5555"),
                              "a tcp://h:6001\nb.2-x_y tcp://h:6010");
    assert_true (drover_queuespec_uses (spec, "tcp://127.0.0.1:6002"));     //  a's events
    assert_true (drover_queuespec_uses (spec, "tcp://127.0.0.1:6010"));
    assert_false (drover_queuespec_uses (spec, "tcp://127.0.0.1:6003"));
    assert_false (drover_queuespec_uses (spec, "tcp://127.0.0.1:*"));
    testutil_assert_and_free (drover_queuespec_schema (spec, 1), "\"drover_q_b.2-x_y\"");
    testutil_assert_and_free (drover_queuespec_state (spec, 0, "postgresql://u@h/db"),
        "postgresql://u@h/db?options=-csearch_path%3D%22drover_q_a%22");
    testutil_assert_and_free (drover_queuespec_state (spec, 0, "postgresql://h/db?sslmode=off"),
        "postgresql://h/db?sslmode=off&options=-csearch_path%3D%22drover_q_a%22");
    drover_queuespec_destroy (&spec);
    drover_queuespec_destroy (&spec);

    spec = drover_queuespec_new ("", &error);
    assert_non_null (spec);
    assert_int_equal (drover_queuespec_size (spec), 0);
    testutil_assert_and_free (drover_queuespec_offer (spec, "tcp://h:5555"), "");
    drover_queuespec_destroy (&spec);
}

//  Bad lists are refused, each with a message saying what is wrong
static void
test_refuses_bad_lists (void **state)
{
    (void) state;
    s_expect_refused ("a", "is not Q=PORT");
    s_expect_refused ("=6001", "is not Q=PORT");
    s_expect_refused ("a b=6001", "is not Q=PORT");
    s_expect_refused ("a/b=6001", "is not Q=PORT");
    s_expect_refused ("a=", "must be 1..65534");
    s_expect_refused ("a=0", "must be 1..65534");
    s_expect_refused ("a=65535", "must be 1..65534");
    s_expect_refused ("a=60x1", "must be 1..65534");
    s_expect_refused ("a=-6001", "must be 1..65534");
    s_expect_refused ("a=6001,a=6005", "given twice");
    s_expect_refused ("a=6001,b=6002", "shares a port");
    s_expect_refused ("a=6001,b=6000", "shares a port");
    char name [80];
    memset (name, 'q', 65);
    snprintf (name + 65, sizeof name - 65, "=6001");
    s_expect_refused (name, "is not Q=PORT");
    char many [1024] = "";
    for (int index = 0; index <= DROVER_QUEUESPEC_MAX; index++)
        snprintf (many + strlen (many), sizeof many - strlen (many), "%sq%d=%d",
                  index? ",": "", index, 7000 + index * 2);
    s_expect_refused (many, "more than");
}

//  Run `drover broker` with flags; expect exit 2 and needle on stderr
static void
s_expect_broker_refuses (const char *const flags [], const char *needle)
{
    const char *argv [16] = { DROVER_BIN, "broker" };
    int argc = 2;
    for (int index = 0; flags [index]; index++)
        argv [argc++] = flags [index];
    argv [argc] = NULL;
    char output [1024], errors [1024];
    int status = testutil_run_cli (argv, output, sizeof output, errors, sizeof errors, 10000);
    assert_true (status != -1 && WIFEXITED (status));
    assert_int_equal (WEXITSTATUS (status), 2);
    if (!strstr (errors, needle))
        fail_msg ("drover broker said '%s', lacking '%s'", errors, needle);
}

//  The broker refuses queues it cannot serve, before binding anything
static void
test_broker_refuses_bad_queues (void **state)
{
    (void) state;
    const char *alone [] = { "--set", "ha/queues=a=6001", NULL };
    s_expect_broker_refuses (alone, "ha/queues needs several brokers");
    const char *own_port [] = { "--etcd", "http://127.0.0.1:9", "--state",
                                "postgresql://drover@127.0.0.1:9/drover", "--endpoint",
                                "tcp://127.0.0.1:6001", "--set", "ha/queues=a=6000", NULL };
    s_expect_broker_refuses (own_port, "must end with a port apart from the queues'");
    const char *bad_list [] = { "--etcd", "http://127.0.0.1:9", "--state",
                                "postgresql://drover@127.0.0.1:9/drover", "--set",
                                "ha/queues=a=6001,a=6005", NULL };
    s_expect_broker_refuses (bad_list, "given twice");
    const char *bad_strategy [] = { "--set", "ha/strategy=random", NULL };
    s_expect_broker_refuses (bad_strategy, "is not one of leader, spread");
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_parses_and_derives),
        cmocka_unit_test (test_refuses_bad_lists),
        cmocka_unit_test (test_broker_refuses_bad_queues),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
