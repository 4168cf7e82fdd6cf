/*  =========================================================================
    drover_stats - a worker's resource stats, read from the machine

    Reads small /proc files whole into a stack buffer (each is far below
    4 KiB on any machine we know of; a longer one is cut, which only loses
    lines we don't use) and parses them with sscanf.
    =========================================================================
*/

#include "drover_stats.h"
#include <fcntl.h>
#include <unistd.h>
#include <sys/statvfs.h>

//  Read a small file into buffer as a string. Returns 0 or -1.
static int
s_slurp (const char *path, char *buffer, size_t size)
{
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    if (fd == -1)
        return -1;
    size_t got = 0;
    while (got + 1 < size) {
        ssize_t rc = read (fd, buffer + got, size - 1 - got);
        if (rc == -1 && errno == EINTR)
            continue;
        if (rc <= 0)
            break;
        got += (size_t) rc;
    }
    close (fd);
    buffer [got] = 0;
    return got? 0: -1;
}


//  --------------------------------------------------------------------------
//  Parse the text of /proc/loadavg into load [3]

int
drover_stats_parse_loadavg (const char *text, double load [3])
{
    assert (text);
    if (sscanf (text, "%lf %lf %lf", &load [0], &load [1], &load [2]) != 3)
        return -1;
    for (int index = 0; index < 3; index++)
        if (!(load [index] >= 0))
            return -1;          //  negative or NaN: not a load average
    return 0;
}


//  --------------------------------------------------------------------------
//  Parse the text of /proc/meminfo into MemTotal and MemAvailable, bytes

int
drover_stats_parse_meminfo (const char *text, uint64_t *total_p, uint64_t *available_p)
{
    assert (text);
    bool have_total = false, have_available = false;
    const char *line = text;
    while (line && *line) {
        unsigned long long kib;
        if (sscanf (line, "MemTotal: %llu kB", &kib) == 1) {
            *total_p = (uint64_t) kib * 1024;
            have_total = true;
        }
        else
        if (sscanf (line, "MemAvailable: %llu kB", &kib) == 1) {
            *available_p = (uint64_t) kib * 1024;
            have_available = true;
        }
        line = strchr (line, '\n');
        line = line? line + 1: NULL;
    }
    return have_total && have_available? 0: -1;
}


//  --------------------------------------------------------------------------
//  Fill stats with load, memory and the disk holding workdir

int
drover_stats_read (drover_stats_t *stats, const char *workdir)
{
    assert (stats);
    int rc = 0;
    char text [4096];
    if (s_slurp ("/proc/loadavg", text, sizeof text)
    ||  drover_stats_parse_loadavg (text, stats->load)) {
        memset (stats->load, 0, sizeof stats->load);
        rc = -1;
    }
    uint64_t total = 0, available = 0;
    if (s_slurp ("/proc/meminfo", text, sizeof text)
    ||  drover_stats_parse_meminfo (text, &total, &available)) {
        total = available = 0;
        rc = -1;
    }
    stats->mem_total = total;
    stats->mem_used = total > available? total - available: 0;
    struct statvfs disk;
    if (statvfs (workdir? workdir: ".", &disk) == 0) {
        uint64_t unit = disk.f_frsize? disk.f_frsize: disk.f_bsize;
        stats->disk_total = (uint64_t) disk.f_blocks * unit;
        stats->disk_used = disk.f_blocks > disk.f_bfree?
                           (uint64_t) (disk.f_blocks - disk.f_bfree) * unit: 0;
    }
    else {
        stats->disk_total = stats->disk_used = 0;
        rc = -1;
    }
    return rc;
}


//  --------------------------------------------------------------------------
//  Return the machine's MemTotal in bytes, 0 if unknown

uint64_t
drover_stats_mem_total (void)
{
    char text [4096];
    uint64_t total = 0, available = 0;
    if (s_slurp ("/proc/meminfo", text, sizeof text)
    ||  drover_stats_parse_meminfo (text, &total, &available))
        return 0;
    return total;
}


//  --------------------------------------------------------------------------
//  Return the number of online CPUs, at least 1

uint32_t
drover_stats_cpus (void)
{
    long cpus = sysconf (_SC_NPROCESSORS_ONLN);
    return cpus < 1? 1: (uint32_t) cpus;
}
