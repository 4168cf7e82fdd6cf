/*  =========================================================================
    test_bench - `drover bench --quick --json` runs to the end and reports
    every figure, so the benchmark never rots. No timing assertions: only
    that it exits 0 within a deadline and each figure is there and positive.
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

//  The quick bench exits 0 and prints every figure with a positive value
static void
test_bench_quick_json (void **state)
{
    const char *argv [] = { DROVER_BIN, "bench", "--quick", "--json", NULL };
    char *output = (char *) zmalloc (S_OUTPUT_MAX);
    int status = s_run (argv, output, S_OUTPUT_MAX);
    if (status == -1 || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
        fprintf (stderr, "bench output: %s\n", output);
    assert_int_not_equal (status, -1);
    assert_true (WIFEXITED (status));
    assert_int_equal (WEXITSTATUS (status), 0);
    assert_int_equal (output [0], '{');
    const char *names [] = {
        "noop_throughput", "rtt_p50", "rtt_p90", "rtt_p99", "rtt_p999", "submit_rate",
        "broker_rss_idle", "broker_rss_queued", "bytes_per_queued_task"
    };
    for (size_t index = 0; index < sizeof names / sizeof names [0]; index++) {
        double value = s_figure (output, names [index]);
        if (value <= 0)
            fprintf (stderr, "figure %s missing or not positive in: %s\n", names [index], output);
        assert_true (value > 0);
    }
    assert_non_null (strstr (output, "\"units\": {"));
    free (output);
}

//  A bad flag is refused with the usage exit status, before any broker starts
static void
test_bench_bad_flag (void **state)
{
    const char *argv [] = { DROVER_BIN, "bench", "--tasks", "0", NULL };
    char output [256];
    int status = s_run (argv, output, sizeof output);
    assert_true (status != -1 && WIFEXITED (status));
    assert_int_equal (WEXITSTATUS (status), 2);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_bench_bad_flag),
        cmocka_unit_test (test_bench_quick_json),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
