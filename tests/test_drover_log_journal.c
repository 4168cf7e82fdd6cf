/*  =========================================================================
    test_drover_log_journal - log lines for the journal ("<N>" priorities as
    sd-daemon(3) says, no date) when JOURNAL_STREAM names the log's fd, and
    the log level that drops the less severe
    =========================================================================
*/

#include "testutil.h"
#include "drover_log.h"
#include <sys/stat.h>

//  Rewrite line for the journal and check the result
static void
s_assert_journal (const char *line, const char *expected)
{
    char out [256];
    size_t size = drover_log_rewrite_journal (line, strlen (line), out, sizeof out);
    assert_string_equal (out, expected);
    assert_int_equal (size, strlen (expected));
}

//  Each czmq level gets its priority; ident and date go; other lines stay
static void
test_priorities (void **state)
{
    s_assert_journal ("E: (drover-broker) 26-11-24 06:08:25 store: cannot open",
                      "<3>store: cannot open");
    s_assert_journal ("W: (drover-broker) 26-11-24 06:08:25 reload: needs a restart: broker/hwm",
                      "<4>reload: needs a restart: broker/hwm");
    s_assert_journal ("N: 26-11-24 06:08:25 broker: ready", "<5>broker: ready");
    s_assert_journal ("I: (x) 26-11-24 06:08:25 reload: applied share/weights",
                      "<6>reload: applied share/weights");
    s_assert_journal ("D: (x) 26-11-24 06:08:25 schedq: command=UP", "<7>schedq: command=UP");
    s_assert_journal ("not a czmq line", "not a czmq line");
    s_assert_journal ("X: 26-11-24 06:08:25 unknown level", "X: 26-11-24 06:08:25 unknown level");
    char small [8];
    size_t size = drover_log_rewrite_journal ("I: 26-11-24 06:08:25 long text", 30, small,
                                              sizeof small);
    assert_int_equal (size, sizeof small - 1);
    assert_string_equal (small, "<6>long");
}

//  JOURNAL_STREAM matches only the fd it names
static void
test_journal_stream_matches_fd (void **state)
{
    char path [] = "/tmp/drover-journal-XXXXXX";
    int fd = mkstemp (path);
    assert_true (fd >= 0);
    struct stat info;
    assert_int_equal (fstat (fd, &info), 0);
    char stream [64];
    snprintf (stream, sizeof stream, "%llu:%llu", (unsigned long long) info.st_dev,
              (unsigned long long) info.st_ino);
    assert_true (drover_log_is_journal (fd, stream));
    char other [64];
    snprintf (other, sizeof other, "%llu:%llu", (unsigned long long) info.st_dev,
              (unsigned long long) info.st_ino + 1);
    assert_false (drover_log_is_journal (fd, other));
    assert_false (drover_log_is_journal (fd, NULL));
    assert_false (drover_log_is_journal (fd, ""));
    assert_false (drover_log_is_journal (fd, "12"));
    char trailing [80];
    snprintf (trailing, sizeof trailing, "%sx", stream);
    assert_false (drover_log_is_journal (fd, trailing));
    assert_false (drover_log_is_journal (-1, stream));
    close (fd);
    unlink (path);
}

//  Level names, and the level lines are written at
static void
test_levels (void **state)
{
    assert_int_equal (drover_log_level_parse ("error"), DROVER_LOG_ERROR);
    assert_int_equal (drover_log_level_parse ("warning"), DROVER_LOG_WARNING);
    assert_int_equal (drover_log_level_parse ("notice"), DROVER_LOG_NOTICE);
    assert_int_equal (drover_log_level_parse ("info"), DROVER_LOG_INFO);
    assert_int_equal (drover_log_level_parse ("debug"), DROVER_LOG_DEBUG);
    assert_int_equal (drover_log_level_parse ("loud"), -1);
    assert_int_equal (drover_log_level_parse (NULL), -1);
    assert_int_equal (drover_log_level (), DROVER_LOG_DEBUG);     //  every line until set
    drover_log_set_level (DROVER_LOG_WARNING);
    assert_int_equal (drover_log_level (), DROVER_LOG_WARNING);
    drover_log_set_level (DROVER_LOG_DEBUG);
}

//  Through the log stream: a line below the level is dropped, the rest
//  written (to a file standing for stdout)
static void
test_level_drops_lines (void **state)
{
    char path [] = "/tmp/drover-loglevel-XXXXXX";
    int fd = mkstemp (path);
    assert_true (fd >= 0);
    assert_int_equal (drover_log_init (fd), 0);
    drover_log_set_level (DROVER_LOG_WARNING);
    zsys_info ("test: dropped-info-line");
    zsys_warning ("test: kept-warning-line");
    drover_log_set_level (DROVER_LOG_DEBUG);
    zsys_debug ("test: kept-debug-line");
    char text [4096] = "";
    ssize_t size = pread (fd, text, sizeof text - 1, 0);
    assert_true (size > 0);
    assert_null (strstr (text, "dropped-info-line"));
    assert_non_null (strstr (text, "kept-warning-line"));
    assert_non_null (strstr (text, "kept-debug-line"));
    zsys_set_logstream (NULL);
    close (fd);
    unlink (path);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_priorities),
        cmocka_unit_test (test_journal_stream_matches_fd),
        cmocka_unit_test (test_levels),
        cmocka_unit_test (test_level_drops_lines),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
