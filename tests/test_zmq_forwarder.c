/*  =========================================================================
    test_zmq_forwarder - the bare ZeroMQ forwarder
    (tools/bench/peers/zmq_forwarder.c, the third peer of
    tools/bench/sidebyside.sh) runs both phases at tiny sizes and prints
    every figure, `name value unit` as drover bench does, with a positive
    value, so the side-by-side never rots. No timing assertions.
    =========================================================================
*/

#include "testutil_proc.h"
#include <sys/wait.h>

#define S_DEADLINE      60000       //  msec the tiny run may take at most
#define S_OUTPUT_MAX    4096        //  bytes of stdout kept

//  The value on the line "name value unit" in output, or 0 if absent
static double
s_figure (const char *output, const char *name, const char *unit)
{
    const char *line = output;
    while (line) {
        char found [64], found_unit [32];
        double value;
        if (sscanf (line, "%63s %lf %31s", found, &value, found_unit) == 3
        &&  streq (found, name) && streq (found_unit, unit))
            return value;
        line = strchr (line, '\n');
        if (line)
            line++;
    }
    return 0;
}

//  Both phases at tiny sizes: exit 0, every figure there and positive
static void
test_zmq_forwarder_prints_every_figure (void **state)
{
    const char *argv [] = { ZMQ_FORWARDER_BIN, "--tasks", "2000", "--rtt", "200",
                            "--workers", "2", "--window", "200", NULL };
    char output [S_OUTPUT_MAX];
    int status = testutil_run_output (argv, output, sizeof output, S_DEADLINE);
    if (status == -1 || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
        fprintf (stderr, "zmq_forwarder output: %s\n", output);
    assert_true (status != -1 && WIFEXITED (status));
    assert_int_equal (WEXITSTATUS (status), 0);
    const struct {
        const char *name;
        const char *unit;
    } figures [] = {
        { "noop_throughput", "tasks/s" }, { "rtt_p50", "us" }, { "rtt_p90", "us" },
        { "rtt_p99", "us" }, { "rtt_p999", "us" }
    };
    for (size_t index = 0; index < sizeof figures / sizeof figures [0]; index++) {
        double value = s_figure (output, figures [index].name, figures [index].unit);
        if (value <= 0)
            fprintf (stderr, "figure %s missing or not positive in: %s\n",
                     figures [index].name, output);
        assert_true (value > 0);
    }
}

//  --phases rtt runs only the round trips (here with the broker on CPU 0);
//  a bad size or CPU is a usage error, a CPU nobody may use a failure
static void
test_zmq_forwarder_flags (void **state)
{
    const char *rtt [] = { ZMQ_FORWARDER_BIN, "--phases", "rtt", "--rtt", "20",
                           "--broker-cpu", "0", NULL };
    char output [S_OUTPUT_MAX];
    int status = testutil_run_output (rtt, output, sizeof output, S_DEADLINE);
    assert_true (status != -1 && WIFEXITED (status));
    assert_int_equal (WEXITSTATUS (status), 0);
    assert_true (s_figure (output, "rtt_p999", "us") > 0);
    assert_null (strstr (output, "noop_throughput"));

    const char *const bad [][4] = {
        { ZMQ_FORWARDER_BIN, "--tasks", "0", NULL },
        { ZMQ_FORWARDER_BIN, "--phases", "noop,nosuch", NULL },
        { ZMQ_FORWARDER_BIN, "--window", NULL },
        { ZMQ_FORWARDER_BIN, "extra", NULL },
        { ZMQ_FORWARDER_BIN, "--broker-cpu", "-1", NULL },
        { ZMQ_FORWARDER_BIN, "--broker-cpu", "1024", NULL },
    };
    for (size_t index = 0; index < sizeof bad / sizeof bad [0]; index++) {
        status = testutil_run_output (bad [index], output, sizeof output, S_DEADLINE);
        assert_true (status != -1 && WIFEXITED (status));
        assert_int_equal (WEXITSTATUS (status), 2);
    }
    const char *nowhere [] = { ZMQ_FORWARDER_BIN, "--phases", "rtt", "--rtt", "20",
                               "--broker-cpu", "1023", NULL };
    status = testutil_run_output (nowhere, output, sizeof output, S_DEADLINE);
    assert_true (status != -1 && WIFEXITED (status));
    assert_int_equal (WEXITSTATUS (status), 1);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_zmq_forwarder_prints_every_figure),
        cmocka_unit_test (test_zmq_forwarder_flags),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
