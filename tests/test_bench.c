/*  =========================================================================
    test_bench - `drover bench --quick --json` runs every phase to the end
    and reports every figure, so the benchmark never rots. No timing
    assertions: only that it exits 0 within a deadline and each figure is
    there and positive; --phases runs only the phases named.
    =========================================================================
*/

#include "testutil.h"
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>

#define S_DEADLINE      150000      //  msec the quick bench may take at most
#define S_OUTPUT_MAX    65536       //  bytes of stdout kept

//  Run DROVER_BIN with args, stdout captured into output (NUL-terminated),
//  stderr inherited; killed at the deadline. Returns the wait status, or
//  -1 if it had to be killed.
static int
s_run (const char *const argv [], char *output, size_t size)
{
    int fds [2];
    assert_int_equal (pipe (fds), 0);
    fflush (stdout);
    fflush (stderr);
    pid_t pid = fork ();
    assert_true (pid >= 0);
    if (pid == 0) {
        dup2 (fds [1], STDOUT_FILENO);
        close (fds [0]);
        close (fds [1]);
        execv (argv [0], (char *const *) argv);
        _exit (127);
    }
    close (fds [1]);
    size_t used = 0;
    int64_t deadline = zclock_mono () + S_DEADLINE;
    bool killed = false;
    while (true) {
        int64_t left = deadline - zclock_mono ();
        if (left <= 0) {
            kill (pid, SIGTERM);        //  the bench stops its broker on SIGTERM
            killed = true;
            break;
        }
        struct pollfd item = { .fd = fds [0], .events = POLLIN };
        if (poll (&item, 1, (int) left) <= 0)
            continue;
        char buffer [4096];
        ssize_t got = read (fds [0], buffer, sizeof buffer);
        if (got <= 0)
            break;                      //  end of output: the bench is done
        size_t take = (size_t) got < size - 1 - used? (size_t) got: size - 1 - used;
        memcpy (output + used, buffer, take);
        used += take;
    }
    output [used] = 0;
    close (fds [0]);
    int status = 0;
    int64_t grace = zclock_mono () + 10000;
    while (waitpid (pid, &status, WNOHANG) == 0) {
        if (zclock_mono () >= grace)
            kill (pid, SIGKILL);        //  did not stop on SIGTERM either
        zclock_sleep (10);              //  polling the child's exit, not settling
    }
    return killed? -1: status;
}

//  The value of "name": in a flat JSON object, or 0 if absent
static double
s_figure (const char *json, const char *name)
{
    char key [64];
    snprintf (key, sizeof key, "\"%s\": ", name);
    const char *found = strstr (json, key);
    return found? strtod (found + strlen (key), NULL): 0;
}

//  Run the bench with argv into a fresh buffer and check it exited 0 with
//  one JSON object; the caller frees the output
static char *
s_run_ok (const char *const argv [])
{
    char *output = (char *) zmalloc (S_OUTPUT_MAX);
    int status = s_run (argv, output, S_OUTPUT_MAX);
    if (status == -1 || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
        fprintf (stderr, "bench output: %s\n", output);
    assert_int_not_equal (status, -1);
    assert_true (WIFEXITED (status));
    assert_int_equal (WEXITSTATUS (status), 0);
    assert_int_equal (output [0], '{');
    assert_non_null (strstr (output, "\"units\": {"));
    return output;
}

//  Assert that each named figure is in the output with a positive value
static void
s_assert_figures (const char *output, const char *const names [], size_t count)
{
    for (size_t index = 0; index < count; index++) {
        double value = s_figure (output, names [index]);
        if (value <= 0)
            fprintf (stderr, "figure %s missing or not positive in: %s\n", names [index], output);
        assert_true (value > 0);
    }
}

//  The quick bench runs every phase, exits 0 and prints every figure with
//  a positive value; the (e) figures are named after the quick sizes
static void
test_bench_quick_json (void **state)
{
    const char *argv [] = { DROVER_BIN, "bench", "--quick", "--json", NULL };
    char *output = s_run_ok (argv);
    const char *names [] = {
        "noop_throughput", "rtt_p50", "rtt_p90", "rtt_p99", "rtt_p999", "submit_rate",
        "broker_rss_idle", "broker_rss_queued", "bytes_per_queued_task",
        "assign_us_q100", "assign_us_q2k", "assign_us_w2", "assign_us_w20",
        "shell_throughput", "spawn_rate", "shell_vs_spawn_pct",
        "heartbeat_cpu_pct", "heartbeat_rate"
    };
    s_assert_figures (output, names, sizeof names / sizeof names [0]);
    free (output);
}

//  --phases runs only those phases; list flags name the (e) figures
static void
test_bench_phases (void **state)
{
    const char *argv [] = { DROVER_BIN, "bench", "--quick", "--json", "--phases", "rtt,workers",
                            "--rtt", "20", "--worker-counts", "3", "--assigns", "50", NULL };
    char *output = s_run_ok (argv);
    const char *names [] = { "rtt_p50", "rtt_p999", "assign_us_w3" };
    s_assert_figures (output, names, sizeof names / sizeof names [0]);
    assert_null (strstr (output, "noop_throughput"));
    assert_null (strstr (output, "assign_us_w2\""));
    assert_null (strstr (output, "heartbeat_cpu_pct"));
    free (output);
}

//  A bad flag is refused with the usage exit status, before any broker starts
static void
test_bench_bad_flag (void **state)
{
    const char *const bad [][6] = {
        { DROVER_BIN, "bench", "--tasks", "0", NULL },
        { DROVER_BIN, "bench", "--phases", "noop,nosuch", NULL },
        { DROVER_BIN, "bench", "--phases", ",", NULL },
        { DROVER_BIN, "bench", "--queue-sizes", "10,x", NULL },
        { DROVER_BIN, "bench", "--worker-counts", "1,2,3,4,5,6,7,8,9", NULL },
    };
    for (size_t index = 0; index < sizeof bad / sizeof bad [0]; index++) {
        char output [256];
        int status = s_run (bad [index], output, sizeof output);
        assert_true (status != -1 && WIFEXITED (status));
        assert_int_equal (WEXITSTATUS (status), 2);
    }
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_bench_bad_flag),
        cmocka_unit_test (test_bench_phases),
        cmocka_unit_test (test_bench_quick_json),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
