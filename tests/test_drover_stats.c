/*  =========================================================================
    test_drover_stats - reading load, memory and disk stats

    The parsers are checked on fixed samples (and on text that must be
    refused); the reader is checked for sane values on this machine.
    =========================================================================
*/

#include "testutil.h"
#include "drover_stats.h"

//  /proc/loadavg text parses into three loads; junk is refused
static void
test_parse_loadavg (void **state)
{
    double load [3];
    assert_int_equal (drover_stats_parse_loadavg ("0.52 1.25 3.00 2/345 12345\n", load), 0);
    assert_true (load [0] > 0.51 && load [0] < 0.53);
    assert_true (load [1] > 1.24 && load [1] < 1.26);
    assert_true (load [2] > 2.99 && load [2] < 3.01);
    assert_int_equal (drover_stats_parse_loadavg ("", load), -1);
    assert_int_equal (drover_stats_parse_loadavg ("1.0 2.0", load), -1);
    assert_int_equal (drover_stats_parse_loadavg ("1.0 -2.0 3.0", load), -1);
    assert_int_equal (drover_stats_parse_loadavg ("nan nan nan", load), -1);
}

//  /proc/meminfo text gives MemTotal and MemAvailable in bytes
static void
test_parse_meminfo (void **state)
{
    const char *sample =
        "MemTotal:       16316412 kB\n"
        "MemFree:         1234567 kB\n"
        "MemAvailable:    8000000 kB\n"
        "Buffers:          123456 kB\n";
    uint64_t total = 0, available = 0;
    assert_int_equal (drover_stats_parse_meminfo (sample, &total, &available), 0);
    assert_true (total == 16316412ULL * 1024);
    assert_true (available == 8000000ULL * 1024);
    assert_int_equal (drover_stats_parse_meminfo ("MemTotal: 100 kB\n", &total, &available), -1);
    assert_int_equal (drover_stats_parse_meminfo ("", &total, &available), -1);
}

//  The real files and statvfs give sane values
static void
test_read (void **state)
{
    drover_stats_t stats;
    memset (&stats, 0, sizeof stats);
    stats.running = 7;
    assert_int_equal (drover_stats_read (&stats, "/tmp"), 0);
    assert_int_equal (stats.running, 7);            //  left to the caller
    for (int index = 0; index < 3; index++)
        assert_true (stats.load [index] >= 0 && stats.load [index] < 10000);
    assert_true (stats.mem_total > 16ULL << 20);    //  more than 16 MiB
    assert_true (stats.mem_used > 0);
    assert_true (stats.mem_used <= stats.mem_total);
    assert_true (stats.disk_total > 0);
    assert_true (stats.disk_used <= stats.disk_total);
    assert_true (drover_stats_mem_total () == stats.mem_total);
    assert_true (drover_stats_cpus () >= 1);

    //  A work directory that does not exist: disk is zero, the rest is read
    memset (&stats, 0, sizeof stats);
    assert_int_equal (drover_stats_read (&stats, "/nonexistent/drover"), -1);
    assert_true (stats.disk_total == 0);
    assert_true (stats.mem_total > 0);

    //  NULL means the current directory
    assert_int_equal (drover_stats_read (&stats, NULL), 0);
    assert_true (stats.disk_total > 0);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_parse_loadavg),
        cmocka_unit_test (test_parse_meminfo),
        cmocka_unit_test (test_read),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
