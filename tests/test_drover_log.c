/*  =========================================================================
    test_drover_log - log lines carry their date in full ISO 8601 UTC with
    milliseconds: the rewrite of czmq's date, the date itself, and the
    real broker's and worker's log files
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_cluster.h"
#include "drover_log.h"
#include <regex.h>

#define S_WAIT_MAX      10000   //  msec a test waits for a process at most

//  2026-11-24T05:08:25.123Z in msec since the Unix epoch
#define S_NOW           1795496905123LL

//  Rewrite line with S_NOW and check the result is expected
static void
s_assert_rewrite (const char *line, const char *expected)
{
    char out [256];
    size_t size = drover_log_rewrite (line, strlen (line), S_NOW, out, sizeof out);
    assert_string_equal (out, expected);
    assert_int_equal (size, strlen (expected));
}

//  czmq's two-digit local date becomes ISO 8601 UTC, with or without ident
static void
test_rewrites_czmq_date (void **state)
{
    s_assert_rewrite ("I: (drover-broker) 26-11-24 06:08:25 broker: ready",
                      "I: (drover-broker) 2026-11-24T05:08:25.123Z broker: ready");
    s_assert_rewrite ("E: 99-01-02 03:04:05 no ident",
                      "E: 2026-11-24T05:08:25.123Z no ident");
    s_assert_rewrite ("W: (x) 26-11-24 06:08:25 ", "W: (x) 2026-11-24T05:08:25.123Z ");
}

//  Rewrite line for a command's user and check the result is expected
//  ("" for a line dropped)
static void
s_assert_tool (const char *line, const char *expected)
{
    char out [256];
    size_t size = drover_log_rewrite_tool (line, strlen (line), "drover", false, out,
                                           sizeof out);
    assert_string_equal (out, expected);
    assert_int_equal (size, strlen (expected));
}

//  For a command's user: warnings and errors said as its own messages,
//  the rest of the library's log dropped, other lines as they are
static void
test_rewrites_for_a_command (void **state)
{
    s_assert_tool ("I: 26-12-06 04:42:01 client: moving from broker=a to broker=b", "");
    s_assert_tool ("N: (x) 26-12-06 04:42:01 worker: moving", "");
    s_assert_tool ("D: 26-12-06 04:42:01 anything", "");
    s_assert_tool ("W: 26-12-06 04:42:01 client: 2 submits without a key not sent again",
                   "drover: warning: client: 2 submits without a key not sent again");
    s_assert_tool ("E: (ident) 26-12-06 04:42:01 bad", "drover: error: bad");
    s_assert_tool ("not a log line", "not a log line");
    //  Verbose (DROVER_VERBOSE): every line, its level in words
    char out [256];
    const char *line = "I: 26-12-06 04:42:01 client: moving";
    drover_log_rewrite_tool (line, strlen (line), "drover", true, out, sizeof out);
    assert_string_equal (out, "drover: info: client: moving");
}

//  A line without czmq's date (a child's own output, a cut line, a date
//  that is not one) passes through as it is
static void
test_leaves_other_lines (void **state)
{
    s_assert_rewrite ("plain text", "plain text");
    s_assert_rewrite ("", "");
    s_assert_rewrite ("I: (x) 26-11-24 06:08", "I: (x) 26-11-24 06:08");
    s_assert_rewrite ("I: (x) 26/11/24 06:08:25 slashes", "I: (x) 26/11/24 06:08:25 slashes");
    s_assert_rewrite ("I: (unclosed 26-11-24 06:08:25 x", "I: (unclosed 26-11-24 06:08:25 x");
    s_assert_rewrite ("I: 26-11-24 06:08:25x", "I: 26-11-24 06:08:25x");
}

//  A line longer than the output is cut, NUL-ended, and says so by its size
static void
test_cuts_long_line (void **state)
{
    char out [16];
    const char *line = "I: (x) 26-11-24 06:08:25 a long line";
    size_t size = drover_log_rewrite (line, strlen (line), S_NOW, out, sizeof out);
    assert_int_equal (size, sizeof out - 1);
    assert_string_equal (out, "I: (x) 2026-11-");
}

//  The date itself: milliseconds kept, the epoch, before the epoch
static void
test_iso8601 (void **state)
{
    char out [25];
    assert_string_equal (drover_log_iso8601 (S_NOW, out), "2026-11-24T05:08:25.123Z");
    assert_string_equal (drover_log_iso8601 (0, out), "1970-01-01T00:00:00.000Z");
    assert_string_equal (drover_log_iso8601 (-1, out), "1969-12-31T23:59:59.999Z");
    assert_string_equal (drover_log_iso8601 (951782400000LL, out), "2000-02-29T00:00:00.000Z");
}

//  Return true if every line of the file at path that czmq wrote (it
//  starts with a level letter and ": (") carries an ISO 8601 UTC date with
//  milliseconds; counts those lines into *lines_p
static bool
s_all_dated (const char *path, int *lines_p)
{
    char *text = testutil_slurp (path);
    assert_non_null (text);
    regex_t dated;
    assert_int_equal (regcomp (&dated, "^[A-Z]: \\([a-z-]+\\) "
                               "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z ",
                               REG_EXTENDED | REG_NOSUB), 0);
    bool all = true;
    *lines_p = 0;
    char *saveptr = NULL;
    for (char *line = strtok_r (text, "\n", &saveptr); line; line = strtok_r (NULL, "\n", &saveptr)) {
        if (strlen (line) < 4 || line [1] != ':' || line [3] != '(')
            continue;
        (*lines_p)++;
        if (regexec (&dated, line, 0, NULL, 0) != 0) {
            fprintf (stderr, "not dated in ISO 8601: %s\n", line);
            all = false;
        }
    }
    regfree (&dated);
    free (text);
    return all;
}

//  The real broker's and worker's log lines are all dated in ISO 8601 UTC
static void
test_broker_and_worker_logs (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    testutil_cluster_add_worker (cluster, 0, "dated", 1, NULL);
    const char *worker_log = testutil_cluster_log (cluster, "dated");
    assert_true (testutil_await_line (worker_log, "registered", S_WAIT_MAX));
    int lines = 0;
    assert_true (s_all_dated (worker_log, &lines));
    assert_true (lines >= 1);
    assert_true (s_all_dated (testutil_cluster_log (cluster, "broker"), &lines));
    assert_true (lines >= 2);
    testutil_cluster_destroy (&cluster);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_rewrites_czmq_date),
        cmocka_unit_test (test_leaves_other_lines),
        cmocka_unit_test (test_rewrites_for_a_command),
        cmocka_unit_test (test_cuts_long_line),
        cmocka_unit_test (test_iso8601),
        cmocka_unit_test (test_broker_and_worker_logs),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
